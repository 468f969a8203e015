/* core/vdmath.h - small fixed-size vector and matrix helpers (vdu_*). Owns nothing.
 * 3x3 matrices are row-major double[9]; 6x6 blocks and n x n matrices are column-major
 * (LAPACK's order). All helpers are RT-safe: no allocation, no branches on data. */
#ifndef VD_CORE_VDMATH_H
#define VD_CORE_VDMATH_H

#include <math.h>
#include <string.h>

/* res = a + b */
static inline void vdu_add3(double res[3], const double a[3], const double b[3])
{
    res[0] = a[0] + b[0];
    res[1] = a[1] + b[1];
    res[2] = a[2] + b[2];
}

/* res = a - b */
static inline void vdu_sub3(double res[3], const double a[3], const double b[3])
{
    res[0] = a[0] - b[0];
    res[1] = a[1] - b[1];
    res[2] = a[2] - b[2];
}

/* res = s * a */
static inline void vdu_scale3(double res[3], double s, const double a[3])
{
    res[0] = s * a[0];
    res[1] = s * a[1];
    res[2] = s * a[2];
}

/* a . b */
static inline double vdu_dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* res = a x b (res may not alias a or b) */
static inline void vdu_cross3(double res[3], const double a[3], const double b[3])
{
    res[0] = a[1] * b[2] - a[2] * b[1];
    res[1] = a[2] * b[0] - a[0] * b[2];
    res[2] = a[0] * b[1] - a[1] * b[0];
}

/* res = skew(a), so that skew(a) b = a x b */
static inline void vdu_skew(double res[9], const double a[3])
{
    res[0] = 0.0;
    res[1] = -a[2];
    res[2] = a[1];
    res[3] = a[2];
    res[4] = 0.0;
    res[5] = -a[0];
    res[6] = -a[1];
    res[7] = a[0];
    res[8] = 0.0;
}

/* res = A x (res may not alias x) */
static inline void vdu_mat3_vec(double res[3], const double A[9], const double x[3])
{
    res[0] = A[0] * x[0] + A[1] * x[1] + A[2] * x[2];
    res[1] = A[3] * x[0] + A[4] * x[1] + A[5] * x[2];
    res[2] = A[6] * x[0] + A[7] * x[1] + A[8] * x[2];
}

/* res = A^T x (res may not alias x) */
static inline void vdu_mat3t_vec(double res[3], const double A[9], const double x[3])
{
    res[0] = A[0] * x[0] + A[3] * x[1] + A[6] * x[2];
    res[1] = A[1] * x[0] + A[4] * x[1] + A[7] * x[2];
    res[2] = A[2] * x[0] + A[5] * x[1] + A[8] * x[2];
}

/* res = A B (res may not alias A or B) */
static inline void vdu_mat3_mul(double res[9], const double A[9], const double B[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            res[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

/* res = A^T B (res may not alias A or B) */
static inline void vdu_mat3t_mul(double res[9], const double A[9], const double B[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            res[3 * i + j] = A[i] * B[j] + A[3 + i] * B[3 + j] + A[6 + i] * B[6 + j];
}

/* res = A B^T (res may not alias A or B) */
static inline void vdu_mat3_mult(double res[9], const double A[9], const double B[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            res[3 * i + j] =
                A[3 * i] * B[3 * j] + A[3 * i + 1] * B[3 * j + 1] + A[3 * i + 2] * B[3 * j + 2];
}

/* res = A^T */
static inline void vdu_mat3_transpose(double res[9], const double A[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            res[3 * i + j] = A[3 * j + i];
}

/* the 3 x 3 matrix (row-major) with columns a, b, c */
static inline void vdu_mat3_cols(double F[9], const double a[3], const double b[3],
                                 const double c[3])
{
    for (int i = 0; i < 3; i++) {
        F[3 * i] = a[i];
        F[3 * i + 1] = b[i];
        F[3 * i + 2] = c[i];
    }
}

/* res = a / |a| (a nonzero) */
static inline void vdu_unit3(double res[3], const double a[3])
{
    vdu_scale3(res, 1.0 / sqrt(vdu_dot3(a, a)), a);
}

/* res = I */
static inline void vdu_mat3_eye(double res[9])
{
    memset(res, 0, 9 * sizeof(double));
    res[0] = res[4] = res[8] = 1.0;
}

/* A = Rz(az) Ry(ay) Rx(ax): Cardan z-y'-x'' (yaw-pitch-roll, current-frame sequence),
 * body -> inertial. */
static inline void vdu_cardan_zyx_cs(double A[9], double cz, double sz, double cy, double sy,
                                     double cx, double sx)
{
    A[0] = cz * cy;
    A[1] = cz * sy * sx - sz * cx;
    A[2] = cz * sy * cx + sz * sx;
    A[3] = sz * cy;
    A[4] = sz * sy * sx + cz * cx;
    A[5] = sz * sy * cx - cz * sx;
    A[6] = -sy;
    A[7] = cy * sx;
    A[8] = cy * cx;
}

/* the same from the angles (vdu_cardan_zyx_cs: from their cosines and sines) */
static inline void vdu_cardan_zyx(double A[9], double az, double ay, double ax)
{
    vdu_cardan_zyx_cs(A, cos(az), sin(az), cos(ay), sin(ay), cos(ax), sin(ax));
}

/* Cardan z-y'-x'' angles (az, ay, ax) of a rotation matrix; ay in [-pi/2, pi/2]. */
static inline void vdu_cardan_from_mat(double ang[3], const double A[9])
{
    double s = -A[6];

    s = s > 1.0 ? 1.0 : (s < -1.0 ? -1.0 : s);
    ang[0] = atan2(A[3], A[0]);
    ang[1] = asin(s);
    ang[2] = atan2(A[7], A[8]);
}

/* res = s * a, n elements */
static inline void vdu_scale_n(double *res, double s, const double *a, int n)
{
    for (int i = 0; i < n; i++)
        res[i] = s * a[i];
}

/* inverse of a regular 3x3 matrix (adjugate / determinant; inertia tensors and the like) */
static inline void vdu_mat3_inv(double res[9], const double A[9])
{
    const double c0 = A[4] * A[8] - A[5] * A[7], c1 = A[5] * A[6] - A[3] * A[8];
    const double c2 = A[3] * A[7] - A[4] * A[6];
    const double id = 1.0 / (A[0] * c0 + A[1] * c1 + A[2] * c2);

    res[0] = c0 * id;
    res[1] = (A[2] * A[7] - A[1] * A[8]) * id;
    res[2] = (A[1] * A[5] - A[2] * A[4]) * id;
    res[3] = c1 * id;
    res[4] = (A[0] * A[8] - A[2] * A[6]) * id;
    res[5] = (A[2] * A[3] - A[0] * A[5]) * id;
    res[6] = c2 * id;
    res[7] = (A[1] * A[6] - A[0] * A[7]) * id;
    res[8] = (A[0] * A[4] - A[1] * A[3]) * id;
}

/* 6x6 column-major block: B[i + 6*j] */
#define VD_B6(B, i, j) ((B)[(i) + 6 * (j)])

#endif /* VD_CORE_VDMATH_H */
