/* core/taypoly.h - truncated Taylor polynomials in the coordinates for closed-form kinematics:
 * a scalar x(q0 + d) carried as its Taylor coefficients (Griewank & Walther, "Evaluating
 * Derivatives", SIAM 2008, ch. 13: multivariate Taylor propagation), three truncations:
 *   vd_tp  two coordinates d = (d0, d1) to total degree 3:
 *          1, d0, d1, d0^2, d0 d1, d1^2, d0^3, d0^2 d1, d0 d1^2, d1^3   (35 products a mul)
 *   vd_tq  two coordinates to degree 2: 1, d0, d1, d0^2, d0 d1, d1^2   (15; poses, motion
 *          columns and the acceleration term only)
 *   vd_tu  one coordinate to degree 3: 1, d, d^2, d^3                  (10)
 * vdu_t?_line restricts one to the line d = v t + w e as core/taylor.h's series of 1, t, t^2,
 * e, t e, t^2 e (18 products a mul): exactly what taylor.h's arithmetic would have carried
 * along (v, w), to rounding (vd_tq's t^2 e coefficient is 0: it has no third derivatives). So
 * a closure written once in these arithmetics replaces taylor.h's 2 + nd (nd + 1) / 2 = 5
 * passes of a two-coordinate closure with one, and its one pass of a one-coordinate closure
 * with a cheaper one; the elementary functions are called once.
 * Header-only, RT-safe: no allocation, fixed work. The API mirrors taylor.h's (vdu_ts_* ->
 * vdu_tp_*, vdu_tq_*, vdu_tu_*) so that one closure source serves all (core/dwcorner_solve.h). */
#ifndef VD_CORE_TAYPOLY_H
#define VD_CORE_TAYPOLY_H

#include <math.h>

#include "taylor.h"

/* the operations every truncation shares, from its own mul and fn (f0..f3: the value and the
 * first three derivatives at the constant term) */
#define VD_TAYPOLY_COMMON(T, P, N)                                                                 \
    static inline struct T P##_const(double a)                                                     \
    {                                                                                              \
        struct T r;                                                                                \
        r.c[0] = a;                                                                                \
        for (int i = 1; i < N; i++)                                                                \
            r.c[i] = 0.0;                                                                          \
        return r;                                                                                  \
    }                                                                                              \
    static inline struct T P##_add(struct T a, struct T b)                                         \
    {                                                                                              \
        for (int i = 0; i < N; i++)                                                                \
            a.c[i] += b.c[i];                                                                      \
        return a;                                                                                  \
    }                                                                                              \
    static inline struct T P##_sub(struct T a, struct T b)                                         \
    {                                                                                              \
        for (int i = 0; i < N; i++)                                                                \
            a.c[i] -= b.c[i];                                                                      \
        return a;                                                                                  \
    }                                                                                              \
    static inline struct T P##_scale(double s, struct T a)                                         \
    {                                                                                              \
        for (int i = 0; i < N; i++)                                                                \
            a.c[i] *= s;                                                                           \
        return a;                                                                                  \
    }                                                                                              \
    static inline struct T P##_sqrt(struct T a)                                                    \
    {                                                                                              \
        const double s = sqrt(a.c[0]);                                                             \
        return P##_fn(a, s, 0.5 / s, -0.25 / (s * a.c[0]), 0.375 / (s * a.c[0] * a.c[0]));         \
    }                                                                                              \
    static inline struct T P##_inv(struct T a)                                                     \
    {                                                                                              \
        const double i = 1.0 / a.c[0];                                                             \
        return P##_fn(a, i, -i * i, 2.0 * i * i * i, -6.0 * i * i * i * i);                        \
    }                                                                                              \
    static inline struct T P##_div(struct T a, struct T b)                                         \
    {                                                                                              \
        return P##_mul(a, P##_inv(b));                                                             \
    }                                                                                              \
    static inline struct T P##_sin(struct T a)                                                     \
    {                                                                                              \
        const double s = sin(a.c[0]), c = cos(a.c[0]);                                             \
        return P##_fn(a, s, c, -s, -c);                                                            \
    }                                                                                              \
    static inline struct T P##_cos(struct T a)                                                     \
    {                                                                                              \
        const double s = sin(a.c[0]), c = cos(a.c[0]);                                             \
        return P##_fn(a, c, -s, -c, s);                                                            \
    }                                                                                              \
    /* acos(a), |a0| < 1 */                                                                        \
    static inline struct T P##_acos(struct T a)                                                    \
    {                                                                                              \
        const double u = a.c[0], w = 1.0 - u * u, sw = sqrt(w);                                    \
        return P##_fn(a, acos(u), -1.0 / sw, -u / (w * sw), -(1.0 + 2.0 * u * u) / (w * w * sw));  \
    }                                                                                              \
    /* atan2(y, x) as taylor.h's: atan2(y0, x0) + atan(w), w = (x0 y - y0 x) / (x0 x + y0 y) */    \
    static inline struct T P##_atan2(struct T y, struct T x)                                       \
    {                                                                                              \
        const double x0 = x.c[0], y0 = y.c[0];                                                     \
        struct T n = P##_sub(P##_scale(x0, y), P##_scale(y0, x));                                  \
        struct T d = P##_add(P##_scale(x0, x), P##_scale(y0, y));                                  \
        struct T w = P##_div(n, d);                                                                \
        w.c[0] = 0.0;                                                                              \
        w = P##_atan0(w);                                                                          \
        w.c[0] = atan2(y0, x0);                                                                    \
        return w;                                                                                  \
    }                                                                                              \
    static inline struct T P##_dot3(const struct T a[3], const struct T b[3])                      \
    {                                                                                              \
        return P##_add(P##_add(P##_mul(a[0], b[0]), P##_mul(a[1], b[1])), P##_mul(a[2], b[2]));    \
    }                                                                                              \
    static inline void P##_cross3(struct T r[3], const struct T a[3], const struct T b[3])         \
    {                                                                                              \
        struct T t[3];                                                                             \
        t[0] = P##_sub(P##_mul(a[1], b[2]), P##_mul(a[2], b[1]));                                  \
        t[1] = P##_sub(P##_mul(a[2], b[0]), P##_mul(a[0], b[2]));                                  \
        t[2] = P##_sub(P##_mul(a[0], b[1]), P##_mul(a[1], b[0]));                                  \
        r[0] = t[0], r[1] = t[1], r[2] = t[2];                                                     \
    }                                                                                              \
    /* r = a / |a| */                                                                              \
    static inline void P##_normalize3(struct T r[3], const struct T a[3])                          \
    {                                                                                              \
        const struct T il = P##_inv(P##_sqrt(P##_dot3(a, a)));                                     \
        for (int i = 0; i < 3; i++)                                                                \
            r[i] = P##_mul(a[i], il);                                                              \
    }

/* ---- vd_tp: two coordinates, degree 3 ------------------------------------------------------ */

enum { VD_TP_N = 10 };

struct vd_tp {
    double c[VD_TP_N];
};

/* res = a b, truncated to total degree 3 */
static inline struct vd_tp vdu_tp_mul(struct vd_tp a, struct vd_tp b)
{
    struct vd_tp r;
    const double *x = a.c, *y = b.c;

    r.c[0] = x[0] * y[0];
    r.c[1] = x[0] * y[1] + x[1] * y[0];
    r.c[2] = x[0] * y[2] + x[2] * y[0];
    r.c[3] = x[0] * y[3] + x[1] * y[1] + x[3] * y[0];
    r.c[4] = x[0] * y[4] + x[1] * y[2] + x[2] * y[1] + x[4] * y[0];
    r.c[5] = x[0] * y[5] + x[2] * y[2] + x[5] * y[0];
    r.c[6] = x[0] * y[6] + x[1] * y[3] + x[3] * y[1] + x[6] * y[0];
    r.c[7] = x[0] * y[7] + x[1] * y[4] + x[2] * y[3] + x[3] * y[2] + x[4] * y[1] + x[7] * y[0];
    r.c[8] = x[0] * y[8] + x[1] * y[5] + x[2] * y[4] + x[4] * y[2] + x[5] * y[1] + x[8] * y[0];
    r.c[9] = x[0] * y[9] + x[2] * y[5] + x[5] * y[2] + x[9] * y[0];
    return r;
}

/* res = f(a): with h = a - a0 (no constant term: h^2 starts at degree 2, h^3 is of degree 3,
 * h^4 = 0) f(a) = f0 + f1 h + f2 h^2/2 + f3 h^3/6 */
static inline struct vd_tp vdu_tp_fn(struct vd_tp a, double f0, double f1, double f2, double f3)
{
    const double *h = a.c, g2 = 0.5 * f2, g3 = f3 / 6.0;
    double h2[VD_TP_N], h3[4];
    struct vd_tp r;

    h2[3] = h[1] * h[1];
    h2[4] = 2.0 * h[1] * h[2];
    h2[5] = h[2] * h[2];
    h2[6] = 2.0 * h[1] * h[3];
    h2[7] = 2.0 * (h[1] * h[4] + h[2] * h[3]);
    h2[8] = 2.0 * (h[1] * h[5] + h[2] * h[4]);
    h2[9] = 2.0 * h[2] * h[5];
    h3[0] = h2[3] * h[1];
    h3[1] = 3.0 * h2[3] * h[2];
    h3[2] = 3.0 * h[1] * h2[5];
    h3[3] = h2[5] * h[2];
    r.c[0] = f0;
    r.c[1] = f1 * h[1];
    r.c[2] = f1 * h[2];
    for (int i = 3; i < 6; i++)
        r.c[i] = f1 * h[i] + g2 * h2[i];
    for (int i = 6; i < VD_TP_N; i++)
        r.c[i] = f1 * h[i] + g2 * h2[i] + g3 * h3[i - 6];
    return r;
}

/* atan(w) = w - w^3/3 for w without a constant term: w^3 has only degree-3 terms */
static inline struct vd_tp vdu_tp_atan0(struct vd_tp w)
{
    struct vd_tp r = w;

    r.c[6] -= (w.c[1] * w.c[1] * w.c[1]) / 3.0;
    r.c[7] -= w.c[1] * w.c[1] * w.c[2];
    r.c[8] -= w.c[1] * w.c[2] * w.c[2];
    r.c[9] -= (w.c[2] * w.c[2] * w.c[2]) / 3.0;
    return r;
}

VD_TAYPOLY_COMMON(vd_tp, vdu_tp, VD_TP_N)

/* the series along d = v t + w e (taylor.h's coefficients of 1, t, t^2, e, t e, t^2 e) */
static inline struct vd_ts vdu_tp_line(const struct vd_tp *a, const double v[2], const double w[2])
{
    const double *p = a->c;
    struct vd_ts r;

    r.c[VD_TS_1] = p[0];
    r.c[VD_TS_T] = p[1] * v[0] + p[2] * v[1];
    r.c[VD_TS_E] = p[1] * w[0] + p[2] * w[1];
    r.c[VD_TS_TT] = p[3] * v[0] * v[0] + p[4] * v[0] * v[1] + p[5] * v[1] * v[1];
    r.c[VD_TS_TE] =
        2.0 * p[3] * v[0] * w[0] + p[4] * (v[0] * w[1] + v[1] * w[0]) + 2.0 * p[5] * v[1] * w[1];
    r.c[VD_TS_TTE] =
        3.0 * p[6] * v[0] * v[0] * w[0] + p[7] * (v[0] * v[0] * w[1] + 2.0 * v[0] * v[1] * w[0]) +
        p[8] * (2.0 * v[0] * v[1] * w[1] + v[1] * v[1] * w[0]) + 3.0 * p[9] * v[1] * v[1] * w[1];
    return r;
}

/* ---- vd_tq: two coordinates, degree 2 ------------------------------------------------------ */

enum { VD_TQ_N = 6 };

struct vd_tq {
    double c[VD_TQ_N];
};

static inline struct vd_tq vdu_tq_mul(struct vd_tq a, struct vd_tq b)
{
    struct vd_tq r;
    const double *x = a.c, *y = b.c;

    r.c[0] = x[0] * y[0];
    r.c[1] = x[0] * y[1] + x[1] * y[0];
    r.c[2] = x[0] * y[2] + x[2] * y[0];
    r.c[3] = x[0] * y[3] + x[1] * y[1] + x[3] * y[0];
    r.c[4] = x[0] * y[4] + x[1] * y[2] + x[2] * y[1] + x[4] * y[0];
    r.c[5] = x[0] * y[5] + x[2] * y[2] + x[5] * y[0];
    return r;
}

static inline struct vd_tq vdu_tq_fn(struct vd_tq a, double f0, double f1, double f2, double f3)
{
    const double *h = a.c, g2 = 0.5 * f2;
    struct vd_tq r;

    (void)f3;
    r.c[0] = f0;
    r.c[1] = f1 * h[1];
    r.c[2] = f1 * h[2];
    r.c[3] = f1 * h[3] + g2 * (h[1] * h[1]);
    r.c[4] = f1 * h[4] + g2 * (2.0 * h[1] * h[2]);
    r.c[5] = f1 * h[5] + g2 * (h[2] * h[2]);
    return r;
}

/* atan(w) = w to degree 2 */
static inline struct vd_tq vdu_tq_atan0(struct vd_tq w)
{
    return w;
}

VD_TAYPOLY_COMMON(vd_tq, vdu_tq, VD_TQ_N)

static inline struct vd_ts vdu_tq_line(const struct vd_tq *a, const double v[2], const double w[2])
{
    const double *p = a->c;
    struct vd_ts r;

    r.c[VD_TS_1] = p[0];
    r.c[VD_TS_T] = p[1] * v[0] + p[2] * v[1];
    r.c[VD_TS_E] = p[1] * w[0] + p[2] * w[1];
    r.c[VD_TS_TT] = p[3] * v[0] * v[0] + p[4] * v[0] * v[1] + p[5] * v[1] * v[1];
    r.c[VD_TS_TE] =
        2.0 * p[3] * v[0] * w[0] + p[4] * (v[0] * w[1] + v[1] * w[0]) + 2.0 * p[5] * v[1] * w[1];
    r.c[VD_TS_TTE] = 0.0;
    return r;
}

/* ---- vd_tu: one coordinate, degree 3 ------------------------------------------------------- */

enum { VD_TU_N = 4 };

struct vd_tu {
    double c[VD_TU_N];
};

static inline struct vd_tu vdu_tu_mul(struct vd_tu a, struct vd_tu b)
{
    struct vd_tu r;
    const double *x = a.c, *y = b.c;

    r.c[0] = x[0] * y[0];
    r.c[1] = x[0] * y[1] + x[1] * y[0];
    r.c[2] = x[0] * y[2] + x[1] * y[1] + x[2] * y[0];
    r.c[3] = x[0] * y[3] + x[1] * y[2] + x[2] * y[1] + x[3] * y[0];
    return r;
}

static inline struct vd_tu vdu_tu_fn(struct vd_tu a, double f0, double f1, double f2, double f3)
{
    const double *h = a.c;
    struct vd_tu r;

    r.c[0] = f0;
    r.c[1] = f1 * h[1];
    r.c[2] = f1 * h[2] + 0.5 * f2 * (h[1] * h[1]);
    r.c[3] = f1 * h[3] + 0.5 * f2 * (2.0 * h[1] * h[2]) + f3 / 6.0 * (h[1] * h[1] * h[1]);
    return r;
}

static inline struct vd_tu vdu_tu_atan0(struct vd_tu w)
{
    w.c[3] -= (w.c[1] * w.c[1] * w.c[1]) / 3.0;
    return w;
}

VD_TAYPOLY_COMMON(vd_tu, vdu_tu, VD_TU_N)

/* the series along t = e = d (taylor.h's coefficients of 1, t, t^2, e, t e, t^2 e) */
static inline struct vd_ts vdu_tu_line(const struct vd_tu *a)
{
    struct vd_ts r;

    r.c[VD_TS_1] = a->c[0];
    r.c[VD_TS_T] = a->c[1];
    r.c[VD_TS_E] = a->c[1];
    r.c[VD_TS_TT] = a->c[2];
    r.c[VD_TS_TE] = 2.0 * a->c[2];
    r.c[VD_TS_TTE] = 3.0 * a->c[3];
    return r;
}

#undef VD_TAYPOLY_COMMON

#endif /* VD_CORE_TAYPOLY_H */
