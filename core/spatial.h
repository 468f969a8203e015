/* core/spatial.h - spatial vector algebra (Featherstone, "Rigid Body Dynamics Algorithms",
 * Springer 2008; RBDA) for the tree recursions: motion vectors (omega; v_O) and force vectors
 * (n_O; F) in global axes at the global origin, 6x6 matrices column-major. Pure helpers, no
 * state; RT-safe. */
#ifndef VD_CORE_SPATIAL_H
#define VD_CORE_SPATIAL_H

#include <string.h>

#include "vdmath.h"

/* res = v x m (motion cross motion, RBDA eq. 2.31) */
static inline void vdu_crm(double res[6], const double v[6], const double m[6])
{
    double t[3];

    vdu_cross3(res, v, m);
    vdu_cross3(res + 3, v, m + 3);
    vdu_cross3(t, v + 3, m);
    vdu_add3(res + 3, res + 3, t);
}

/* res = v x* f (motion cross force, RBDA eq. 2.32) */
static inline void vdu_crf(double res[6], const double v[6], const double f[6])
{
    double t[3];

    vdu_cross3(res, v, f);
    vdu_cross3(t, v + 3, f + 3);
    vdu_add3(res, res, t);
    vdu_cross3(res + 3, v, f + 3);
}

/* res = I x (6x6 column-major) */
static inline void vdu_mul6(double res[6], const double I[36], const double x[6])
{
    for (int i = 0; i < 6; i++) {
        double s = 0.0;

        for (int j = 0; j < 6; j++)
            s += I[i + 6 * j] * x[j];
        res[i] = s;
    }
}

static inline double vdu_dot6(const double a[6], const double b[6])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

/* res += a */
static inline void vdu_add6(double res[6], const double a[6])
{
    for (int i = 0; i < 6; i++)
        res[i] += a[i];
}

/* res = X s: a motion vector in the axes of a frame (A, x) at its origin x to global at the
 * global origin (A NULL: the identity) */
static inline void vdu_xform6(double res[6], const double *A, const double *x, const double s[6])
{
    double t[3];

    if (!A) {
        memcpy(res, s, 6 * sizeof(double));
        return;
    }
    vdu_mat3_vec(res, A, s);
    vdu_mat3_vec(res + 3, A, s + 3);
    vdu_cross3(t, x, res);
    vdu_add3(res + 3, res + 3, t);
}

#endif /* VD_CORE_SPATIAL_H */
