/* core/curve.c - characteristic curves y(x) of the force elements: none, linear, or a table
 * interpolated monotone-cubic (Fritsch-Carlson) or linearly with linear extrapolation; the
 * builder's copy into the model's point pool. Types and declarations in core/model.h (struct
 * vd_curve). vd_model_add_curve: init only (allocates). vd_curve_eval: RT-safe, no allocation. */
#include "model.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Fritsch-Carlson monotone slopes for a table (x strictly increasing) */
static void pchip_slopes(int n, const double *x, const double *y, double *d)
{
    if (n == 1) {
        d[0] = 0.0;
        return;
    }
    if (n == 2) {
        d[0] = d[1] = (y[1] - y[0]) / (x[1] - x[0]);
        return;
    }
    for (int i = 1; i < n - 1; i++) {
        double h0 = x[i] - x[i - 1], h1 = x[i + 1] - x[i];
        double s0 = (y[i] - y[i - 1]) / h0, s1 = (y[i + 1] - y[i]) / h1;

        if (s0 * s1 <= 0.0) {
            d[i] = 0.0;
        } else {
            /* weighted harmonic mean (Fritsch-Butland / SciPy's PCHIP) */
            double w1 = 2.0 * h1 + h0, w2 = h1 + 2.0 * h0;
            d[i] = (w1 + w2) / (w1 / s0 + w2 / s1);
        }
    }
    /* one-sided three-point ends, kept shape-preserving */
    for (int e = 0; e < 2; e++) {
        int i0 = e ? n - 1 : 0, i1 = e ? n - 2 : 1, i2 = e ? n - 3 : 2;
        double h0 = fabs(x[i1] - x[i0]), h1 = fabs(x[i2] - x[i1]);
        double s0 = (y[i1] - y[i0]) / (x[i1] - x[i0]);
        double s1 = (y[i2] - y[i1]) / (x[i2] - x[i1]);
        double dd = ((2.0 * h0 + h1) * s0 - h0 * s1) / (h0 + h1);

        if (dd * s0 <= 0.0)
            dd = 0.0;
        else if (s0 * s1 <= 0.0 && fabs(dd) > fabs(3.0 * s0))
            dd = 3.0 * s0;
        d[i0] = dd;
    }
}

int vd_model_add_curve(struct vd_model *m, const struct vd_curve_spec *spec, bool monotone,
                       struct vd_curve *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    out->kind = spec->kind;
    out->interp = spec->interp;
    if (m->frozen) {
        snprintf(err, errlen, "model is frozen");
        return -EINVAL;
    }
    if (spec->kind == VD_CURVE_NONE)
        return 0;
    if (spec->kind == VD_CURVE_LINEAR) {
        if (!isfinite(spec->k) || (monotone && spec->k < 0.0)) {
            snprintf(err, errlen, "coefficient %g must be finite%s", spec->k,
                     monotone ? " and >= 0" : "");
            return -EINVAL;
        }
        out->k = spec->k;
        return 0;
    }
    if (spec->kind != VD_CURVE_TABLE || spec->n < 2) {
        snprintf(err, errlen, "a curve table needs at least 2 points");
        return -EINVAL;
    }
    for (int i = 0; i < spec->n; i++) {
        if (!isfinite(spec->x[i]) || !isfinite(spec->y[i])) {
            snprintf(err, errlen, "point %d is not finite", i);
            return -EINVAL;
        }
        if (i > 0 && !(spec->x[i] > spec->x[i - 1])) {
            snprintf(err, errlen, "x not strictly increasing at point %d (%g after %g)", i,
                     spec->x[i], spec->x[i - 1]);
            return -EINVAL;
        }
        if (monotone && i > 0 && spec->y[i] < spec->y[i - 1]) {
            snprintf(err, errlen, "curve not monotonic: y decreases at point %d (%g after %g)", i,
                     spec->y[i], spec->y[i - 1]);
            return -EINVAL;
        }
    }
    if (vd_model_reserve_points(m, spec->n)) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    out->n = spec->n;
    out->off = m->ncpt;
    memcpy(m->cx + m->ncpt, spec->x, (size_t)spec->n * sizeof(double));
    memcpy(m->cy + m->ncpt, spec->y, (size_t)spec->n * sizeof(double));
    if (spec->interp == VD_INTERP_LINEAR) {
        /* slope array unused by linear interpolation, but give the end slopes */
        for (int i = 0; i < spec->n; i++) {
            int a = i < spec->n - 1 ? i : i - 1;
            m->cm[m->ncpt + i] = (spec->y[a + 1] - spec->y[a]) / (spec->x[a + 1] - spec->x[a]);
        }
    } else {
        pchip_slopes(spec->n, spec->x, spec->y, m->cm + m->ncpt);
    }
    m->ncpt += spec->n;
    return 0;
}

double vd_curve_eval(const struct vd_model *m, const struct vd_curve *c, double x, double *dy)
{
    const double *cx, *cy, *cm;
    int lo, hi, n;
    double h, t, y0, y1, d0, d1, t2, t3;

    switch (c->kind) {
    case VD_CURVE_LINEAR:
        *dy = c->k;
        return c->k * x;
    case VD_CURVE_TABLE:
        break;
    default:
        *dy = 0.0;
        return 0.0;
    }
    n = c->n;
    cx = m->cx + c->off;
    cy = m->cy + c->off;
    cm = m->cm + c->off;
    /* linear extrapolation with the end slopes */
    if (x <= cx[0]) {
        *dy = cm[0];
        return cy[0] + cm[0] * (x - cx[0]);
    }
    if (x >= cx[n - 1]) {
        *dy = cm[n - 1];
        return cy[n - 1] + cm[n - 1] * (x - cx[n - 1]);
    }
    /* bisection: cx[lo] <= x < cx[hi] */
    lo = 0;
    hi = n - 1;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;

        if (x < cx[mid])
            hi = mid;
        else
            lo = mid;
    }
    h = cx[hi] - cx[lo];
    y0 = cy[lo];
    y1 = cy[hi];
    if (c->interp == VD_INTERP_LINEAR) {
        *dy = (y1 - y0) / h;
        return y0 + *dy * (x - cx[lo]);
    }
    /* cubic Hermite on [lo, hi] */
    t = (x - cx[lo]) / h;
    d0 = cm[lo] * h;
    d1 = cm[hi] * h;
    t2 = t * t;
    t3 = t2 * t;
    *dy = ((6.0 * t2 - 6.0 * t) * y0 + (3.0 * t2 - 4.0 * t + 1.0) * d0 +
           (-6.0 * t2 + 6.0 * t) * y1 + (3.0 * t2 - 2.0 * t) * d1) /
          h;
    return (2.0 * t3 - 3.0 * t2 + 1.0) * y0 + (t3 - 2.0 * t2 + t) * d0 +
           (-2.0 * t3 + 3.0 * t2) * y1 + (t3 - t2) * d1;
}
