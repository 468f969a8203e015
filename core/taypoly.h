/* core/taypoly.h - truncated Taylor polynomials of total degree 3 in two variables for
 * closed-form kinematics with two coordinates: a scalar x(q0 + d) with d = (d0, d1) is
 * carried as its Taylor coefficients of
 *   1, d0, d1, d0^2, d0 d1, d1^2, d0^3, d0^2 d1, d0 d1^2, d1^3
 * (Griewank & Walther, "Evaluating Derivatives", SIAM 2008, ch. 13: multivariate Taylor
 * propagation). One evaluation gives every derivative up to the third; vdu_tp_line restricts
 * it to the line d = v t + w e as core/taylor.h's series of 1, t, t^2, e, t e, t^2 e, exactly
 * what taylor.h's arithmetic would have carried along (v, w), to rounding. So a closure
 * written once in this arithmetic replaces taylor.h's 2 + nd (nd + 1) / 2 = 5 passes of a
 * two-coordinate closure with one (the products cost 35 multiplications instead of 18, the
 * elementary functions are called once instead of five times).
 * Header-only, RT-safe: no allocation, fixed work. The API mirrors taylor.h's (vdu_ts_* ->
 * vdu_tp_*) so that one closure source serves both (core/dwcorner_solve.h). */
#ifndef VD_CORE_TAYPOLY_H
#define VD_CORE_TAYPOLY_H

#include <math.h>

#include "taylor.h"

enum { VD_TP_N = 10 };

struct vd_tp {
    double c[VD_TP_N];
};

static inline struct vd_tp vdu_tp_const(double a)
{
    struct vd_tp r = {{a, 0, 0, 0, 0, 0, 0, 0, 0, 0}};
    return r;
}

static inline struct vd_tp vdu_tp_add(struct vd_tp a, struct vd_tp b)
{
    for (int i = 0; i < VD_TP_N; i++)
        a.c[i] += b.c[i];
    return a;
}

static inline struct vd_tp vdu_tp_sub(struct vd_tp a, struct vd_tp b)
{
    for (int i = 0; i < VD_TP_N; i++)
        a.c[i] -= b.c[i];
    return a;
}

static inline struct vd_tp vdu_tp_scale(double s, struct vd_tp a)
{
    for (int i = 0; i < VD_TP_N; i++)
        a.c[i] *= s;
    return a;
}

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

/* res = f(a) from f and its first three derivatives at a's constant term: with h = a - a0
 * (no constant term: h^2 starts at degree 2, h^3 is of degree 3, h^4 = 0)
 * f(a) = f0 + f1 h + f2 h^2/2 + f3 h^3/6 */
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

static inline struct vd_tp vdu_tp_sqrt(struct vd_tp a)
{
    const double s = sqrt(a.c[0]);

    return vdu_tp_fn(a, s, 0.5 / s, -0.25 / (s * a.c[0]), 0.375 / (s * a.c[0] * a.c[0]));
}

static inline struct vd_tp vdu_tp_inv(struct vd_tp a)
{
    const double i = 1.0 / a.c[0];

    return vdu_tp_fn(a, i, -i * i, 2.0 * i * i * i, -6.0 * i * i * i * i);
}

static inline struct vd_tp vdu_tp_div(struct vd_tp a, struct vd_tp b)
{
    return vdu_tp_mul(a, vdu_tp_inv(b));
}

static inline struct vd_tp vdu_tp_sin(struct vd_tp a)
{
    const double s = sin(a.c[0]), c = cos(a.c[0]);

    return vdu_tp_fn(a, s, c, -s, -c);
}

static inline struct vd_tp vdu_tp_cos(struct vd_tp a)
{
    const double s = sin(a.c[0]), c = cos(a.c[0]);

    return vdu_tp_fn(a, c, -s, -c, s);
}

/* acos(a), |a0| < 1 */
static inline struct vd_tp vdu_tp_acos(struct vd_tp a)
{
    const double u = a.c[0], w = 1.0 - u * u, sw = sqrt(w);

    return vdu_tp_fn(a, acos(u), -1.0 / sw, -u / (w * sw), -(1.0 + 2.0 * u * u) / (w * w * sw));
}

/* atan2(y, x) as taylor.h's: atan2(y0, x0) + atan(w), w = (x0 y - y0 x) / (x0 x + y0 y),
 * atan(w) = w - w^3/3 in this truncation */
static inline struct vd_tp vdu_tp_atan2(struct vd_tp y, struct vd_tp x)
{
    const double x0 = x.c[0], y0 = y.c[0];
    struct vd_tp n = vdu_tp_sub(vdu_tp_scale(x0, y), vdu_tp_scale(y0, x));
    struct vd_tp d = vdu_tp_add(vdu_tp_scale(x0, x), vdu_tp_scale(y0, y));
    struct vd_tp w = vdu_tp_div(n, d), r;

    w.c[0] = 0.0;
    r = w;
    /* w^3 has only degree-3 terms: w1, w2 cubed */
    r.c[6] -= (w.c[1] * w.c[1] * w.c[1]) / 3.0;
    r.c[7] -= w.c[1] * w.c[1] * w.c[2];
    r.c[8] -= w.c[1] * w.c[2] * w.c[2];
    r.c[9] -= (w.c[2] * w.c[2] * w.c[2]) / 3.0;
    r.c[0] = atan2(y0, x0);
    return r;
}

/* 3-vectors of polynomials */
static inline struct vd_tp vdu_tp_dot3(const struct vd_tp a[3], const struct vd_tp b[3])
{
    return vdu_tp_add(vdu_tp_add(vdu_tp_mul(a[0], b[0]), vdu_tp_mul(a[1], b[1])),
                      vdu_tp_mul(a[2], b[2]));
}

static inline void vdu_tp_cross3(struct vd_tp r[3], const struct vd_tp a[3],
                                 const struct vd_tp b[3])
{
    struct vd_tp t[3];

    t[0] = vdu_tp_sub(vdu_tp_mul(a[1], b[2]), vdu_tp_mul(a[2], b[1]));
    t[1] = vdu_tp_sub(vdu_tp_mul(a[2], b[0]), vdu_tp_mul(a[0], b[2]));
    t[2] = vdu_tp_sub(vdu_tp_mul(a[0], b[1]), vdu_tp_mul(a[1], b[0]));
    r[0] = t[0], r[1] = t[1], r[2] = t[2];
}

/* r = a / |a| */
static inline void vdu_tp_normalize3(struct vd_tp r[3], const struct vd_tp a[3])
{
    const struct vd_tp il = vdu_tp_inv(vdu_tp_sqrt(vdu_tp_dot3(a, a)));

    for (int i = 0; i < 3; i++)
        r[i] = vdu_tp_mul(a[i], il);
}

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

#endif /* VD_CORE_TAYPOLY_H */
