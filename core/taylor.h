/* core/taylor.h - truncated bivariate Taylor series for closed-form kinematics: a scalar
 * x(t, e) along q(t, e) = q0 + v t + w e is carried as its coefficients of
 *   1, t, t^2, e, t e, t^2 e
 * (position, velocity along v, half the acceleration at q'' = 0, the derivative along w, and
 * their derivatives along w). Arithmetic on them is exact (forward-mode differentiation in
 * Taylor form; Griewank & Walther, "Evaluating Derivatives", SIAM 2008, ch. 13): a closed
 * form written with these operations yields positions, velocities, the acceleration term and
 * their derivatives with respect to the coordinates analytically, to rounding.
 * Header-only, RT-safe: no allocation, fixed work. */
#ifndef VD_CORE_TAYLOR_H
#define VD_CORE_TAYLOR_H

#include <math.h>

enum { VD_TS_1 = 0, VD_TS_T, VD_TS_TT, VD_TS_E, VD_TS_TE, VD_TS_TTE, VD_TS_N };

struct vd_ts {
    double c[VD_TS_N];
};

static inline struct vd_ts vdu_ts_const(double a)
{
    struct vd_ts r = {{a, 0, 0, 0, 0, 0}};
    return r;
}

static inline struct vd_ts vdu_ts_add(struct vd_ts a, struct vd_ts b)
{
    for (int i = 0; i < VD_TS_N; i++)
        a.c[i] += b.c[i];
    return a;
}

static inline struct vd_ts vdu_ts_sub(struct vd_ts a, struct vd_ts b)
{
    for (int i = 0; i < VD_TS_N; i++)
        a.c[i] -= b.c[i];
    return a;
}

static inline struct vd_ts vdu_ts_scale(double s, struct vd_ts a)
{
    for (int i = 0; i < VD_TS_N; i++)
        a.c[i] *= s;
    return a;
}

/* res = a b, truncated to t^2 e */
static inline struct vd_ts vdu_ts_mul(struct vd_ts a, struct vd_ts b)
{
    struct vd_ts r;
    const double *x = a.c, *y = b.c;

    r.c[0] = x[0] * y[0];
    r.c[1] = x[0] * y[1] + x[1] * y[0];
    r.c[2] = x[0] * y[2] + x[1] * y[1] + x[2] * y[0];
    r.c[3] = x[0] * y[3] + x[3] * y[0];
    r.c[4] = x[0] * y[4] + x[1] * y[3] + x[3] * y[1] + x[4] * y[0];
    r.c[5] = x[0] * y[5] + x[1] * y[4] + x[2] * y[3] + x[3] * y[2] + x[4] * y[1] + x[5] * y[0];
    return r;
}

/* res = f(a) from f and its first three derivatives at a's constant term: with h = a - a0
 * (no constant term, so h^4 = 0 in this truncation) f(a) = f0 + f1 h + f2 h^2/2 + f3 h^3/6 */
static inline struct vd_ts vdu_ts_fn(struct vd_ts a, double f0, double f1, double f2, double f3)
{
    struct vd_ts h = a, h2, h3, r;

    h.c[0] = 0.0;
    h2 = vdu_ts_mul(h, h);
    h3 = vdu_ts_mul(h2, h);
    for (int i = 0; i < VD_TS_N; i++)
        r.c[i] = f1 * h.c[i] + 0.5 * f2 * h2.c[i] + f3 / 6.0 * h3.c[i];
    r.c[0] = f0;
    return r;
}

static inline struct vd_ts vdu_ts_sqrt(struct vd_ts a)
{
    const double s = sqrt(a.c[0]);

    return vdu_ts_fn(a, s, 0.5 / s, -0.25 / (s * a.c[0]), 0.375 / (s * a.c[0] * a.c[0]));
}

static inline struct vd_ts vdu_ts_inv(struct vd_ts a)
{
    const double i = 1.0 / a.c[0];

    return vdu_ts_fn(a, i, -i * i, 2.0 * i * i * i, -6.0 * i * i * i * i);
}

static inline struct vd_ts vdu_ts_div(struct vd_ts a, struct vd_ts b)
{
    return vdu_ts_mul(a, vdu_ts_inv(b));
}

static inline struct vd_ts vdu_ts_sin(struct vd_ts a)
{
    const double s = sin(a.c[0]), c = cos(a.c[0]);

    return vdu_ts_fn(a, s, c, -s, -c);
}

static inline struct vd_ts vdu_ts_cos(struct vd_ts a)
{
    const double s = sin(a.c[0]), c = cos(a.c[0]);

    return vdu_ts_fn(a, c, -s, -c, s);
}

/* acos(a), |a0| < 1 */
static inline struct vd_ts vdu_ts_acos(struct vd_ts a)
{
    const double u = a.c[0], w = 1.0 - u * u, sw = sqrt(w);

    return vdu_ts_fn(a, acos(u), -1.0 / sw, -u / (w * sw), -(1.0 + 2.0 * u * u) / (w * w * sw));
}

/* atan2(y, x) = atan2(y0, x0) + atan(w), w = (x0 y - y0 x) / (x0 x + y0 y) (the angle from
 * (x0, y0), no constant term); atan(w) = w - w^3/3 in this truncation */
static inline struct vd_ts vdu_ts_atan2(struct vd_ts y, struct vd_ts x)
{
    const double x0 = x.c[0], y0 = y.c[0];
    struct vd_ts n = vdu_ts_sub(vdu_ts_scale(x0, y), vdu_ts_scale(y0, x));
    struct vd_ts d = vdu_ts_add(vdu_ts_scale(x0, x), vdu_ts_scale(y0, y));
    struct vd_ts w = vdu_ts_div(n, d), w3 = vdu_ts_mul(vdu_ts_mul(w, w), w), r;

    w.c[0] = 0.0;
    w3.c[0] = 0.0;
    r = vdu_ts_sub(w, vdu_ts_scale(1.0 / 3.0, w3));
    r.c[0] = atan2(y0, x0);
    return r;
}

/* 3-vectors of series */
static inline struct vd_ts vdu_ts_dot3(const struct vd_ts a[3], const struct vd_ts b[3])
{
    return vdu_ts_add(vdu_ts_add(vdu_ts_mul(a[0], b[0]), vdu_ts_mul(a[1], b[1])),
                      vdu_ts_mul(a[2], b[2]));
}

static inline void vdu_ts_cross3(struct vd_ts r[3], const struct vd_ts a[3],
                                 const struct vd_ts b[3])
{
    struct vd_ts t[3];

    t[0] = vdu_ts_sub(vdu_ts_mul(a[1], b[2]), vdu_ts_mul(a[2], b[1]));
    t[1] = vdu_ts_sub(vdu_ts_mul(a[2], b[0]), vdu_ts_mul(a[0], b[2]));
    t[2] = vdu_ts_sub(vdu_ts_mul(a[0], b[1]), vdu_ts_mul(a[1], b[0]));
    r[0] = t[0], r[1] = t[1], r[2] = t[2];
}

/* r = a / |a| */
static inline void vdu_ts_normalize3(struct vd_ts r[3], const struct vd_ts a[3])
{
    const struct vd_ts il = vdu_ts_inv(vdu_ts_sqrt(vdu_ts_dot3(a, a)));

    for (int i = 0; i < 3; i++)
        r[i] = vdu_ts_mul(a[i], il);
}

#endif /* VD_CORE_TAYLOR_H */
