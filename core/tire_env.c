/* core/tire_env.c - tandem elliptical cams over the road (see tire_env.h for the equations). */
#include "tire_env.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "road.h"

#define XMAX_FRAC 0.99 /* the cam spans |xi| <= 0.99 ae (its slope is infinite at ae) */

/* exact cam height off(xi) and slope off'(xi), xi >= 0 */
static void cam_exact(double ae, double be, double ce, double xi, double *f, double *df)
{
    const double u = xi / ae, p = pow(u, ce), r = pow(1.0 - p, 1.0 / ce);

    *f = be * (1.0 - r);
    *df = u > 0.0 ? be / ae * (p / u) * r / (1.0 - p) : 0.0;
}

int vd_tire_env_init(struct vd_tire_env *e, double length, double height, double order,
                     double shift, double ds, double r0, double kz, double fnomin, double qra1,
                     double qra2, char *err, size_t errlen)
{
    double rho, a;

    if (!(length > 0.0 && length <= 2.0) || !(height > 0.0 && height <= 2.0) ||
        !(order > 1.0 && order <= 10.0) || !(shift >= 0.0 && shift <= 2.0) || !(r0 > 0.0) ||
        !(kz > 0.0) || !(fnomin > 0.0) || !(qra1 >= 0.0) || !(qra2 >= 0.0)) {
        snprintf(err, errlen, "enveloping: a factor out of range");
        return -EINVAL;
    }
    e->ae = length * r0;
    e->be = height * r0;
    e->ce = order;
    rho = fnomin / kz;
    a = r0 * (qra2 * rho / r0 + qra1 * sqrt(rho / r0));
    e->ls = shift * a;
    e->xmax = XMAX_FRAC * e->ae;
    if (!(ds > 0.0) || !(ds <= 0.25 * e->xmax)) {
        snprintf(err, errlen, "enveloping: road increment %g m not in (0, %.3g] m", ds,
                 0.25 * e->xmax);
        return -EINVAL;
    }
    e->ds = ds;
    e->ns = (int)ceil((e->ls + 2.0 * e->xmax) / ds) + 2;
    if (e->ns > VD_ENV_NMAX) {
        snprintf(err, errlen,
                 "enveloping: %d road samples per evaluation (at most %d): a larger road "
                 "increment than %g m",
                 e->ns, VD_ENV_NMAX, ds);
        return -EINVAL;
    }
    for (int j = 0; j <= VD_ENV_NTAB; j++)
        cam_exact(e->ae, e->be, e->ce, e->xmax * j / VD_ENV_NTAB, &e->off[j][0], &e->off[j][1]);
    e->on = 1;
    return 0;
}

/* cam height off(xi), its slope and curvature from the cubic Hermite table (|xi| <= xmax) */
static double cam(const struct vd_tire_env *e, double xi, double *d1, double *d2)
{
    const double hs = e->xmax / VD_ENV_NTAB, ax = fabs(xi), sg = xi < 0.0 ? -1.0 : 1.0;
    double t = ax / hs, f0, f1, m0, m1, t2, t3;
    int j = (int)t;

    if (j >= VD_ENV_NTAB)
        j = VD_ENV_NTAB - 1;
    t -= j;
    t2 = t * t;
    t3 = t2 * t;
    f0 = e->off[j][0];
    f1 = e->off[j + 1][0];
    m0 = e->off[j][1] * hs;
    m1 = e->off[j + 1][1] * hs;
    *d1 = sg *
          ((6.0 * t2 - 6.0 * t) * (f0 - f1) + (3.0 * t2 - 4.0 * t + 1.0) * m0 +
           (3.0 * t2 - 2.0 * t) * m1) /
          hs;
    *d2 = ((12.0 * t - 6.0) * (f0 - f1) + (6.0 * t - 4.0) * m0 + (6.0 * t - 2.0) * m1) / (hs * hs);
    return (2.0 * t3 - 3.0 * t2 + 1.0) * f0 + (t3 - 2.0 * t2 + t) * m0 +
           (-2.0 * t3 + 3.0 * t2) * f1 + (t3 - t2) * m1;
}

/* the cam's rise on a slope g: max_xi [g xi - off(xi)] = ((|g| ae)^ce' + be^ce')^(1/ce') - be
 * (the super-ellipse's support function), and its derivative, the tangent point xi*(g) */
static double rise(const struct vd_tire_env *e, double g, double *xs)
{
    const double cc = e->ce / (e->ce - 1.0), ga = fabs(g) * e->ae;
    const double A = pow(ga, cc), hs = pow(A + pow(e->be, cc), 1.0 / cc);

    *xs = (g < 0.0 ? -1.0 : 1.0) * e->ae * (ga > 0.0 ? A / ga : 0.0) * pow(hs, 1.0 - cc);
    return hs - e->be;
}

/* one cam resting on the sampled road (w, gp: heights and lateral slopes at s0 + i ds):
 * its height, d/ds (along), d2/ds2 and d/dperp */
static double cam_rest(const struct vd_tire_env *e, const double *w, const double *gp, double s0,
                       double sc, double *dz, double *ddz, double *dp)
{
    double best = -INFINITY, dprev = 0.0;
    int prev = 0;

    *dz = *ddz = *dp = 0.0;
    for (int i = 0; i < e->ns; i++) {
        const double xi = s0 + i * e->ds - sc;
        double f, d1, d2;
        int in = fabs(xi) <= e->xmax;

        if (in) {
            f = cam(e, xi, &d1, &d2);
            if (w[i] - f > best) {
                best = w[i] - f;
                *dz = d1;
                *ddz = -d2;
                *dp = gp[i];
            }
            /* the segment (i-1, i): a tangent point inside it */
            if (prev) {
                const double g = (w[i] - w[i - 1]) / e->ds;

                if (dprev < g && g < d1) {
                    double xs;
                    const double v = w[i - 1] + g * (sc - (s0 + (i - 1) * e->ds)) + rise(e, g, &xs);

                    if (v > best) {
                        const double fr = (sc + xs - (s0 + (i - 1) * e->ds)) / e->ds;

                        best = v;
                        *dz = g;
                        *ddz = 0.0;
                        *dp = gp[i - 1] + fr * (gp[i] - gp[i - 1]);
                    }
                }
            }
            dprev = d1;
        }
        prev = in;
    }
    return best;
}

double vd_tire_env_road(const struct vd_model *m, const struct vd_tire_env *e, const double c[2],
                        const double h[2], double grad[2], double slope[2], double rate[2],
                        double *curv)
{
    const double hp[2] = {-h[1], h[0]}; /* to the left of the heading */
    const double sc = c[0] * h[0] + c[1] * h[1];
    const double s0 = floor((sc - 0.5 * e->ls - e->xmax) / e->ds) * e->ds;
    double w[VD_ENV_NMAX], gp[VD_ENV_NMAX], zf, zr, df, dr, ddf, ddr, pf, pr, we;

    /* the road on the grid along the heading */
    for (int i = 0; i < e->ns; i++) {
        const double s = s0 + i * e->ds - sc;
        double g[2];

        w[i] = vd_road_height(m, c[0] + s * h[0], c[1] + s * h[1], g);
        gp[i] = g[0] * hp[0] + g[1] * hp[1];
    }
    zf = cam_rest(e, w, gp, s0, sc + 0.5 * e->ls, &df, &ddf, &pf);
    zr = cam_rest(e, w, gp, s0, sc - 0.5 * e->ls, &dr, &ddr, &pr);
    {
        /* w_e = (z_f + z_r)/2 - rise(tan beta): on a plane the cams rest rise(g) above it */
        const double sl = e->ls > 0.0 ? (zf - zr) / e->ls : 0.5 * (df + dr);
        const double dsl = e->ls > 0.0 ? (df - dr) / e->ls : 0.5 * (ddf + ddr);
        const double dslp = e->ls > 0.0 ? (pf - pr) / e->ls : 0.0;
        double xs, da, dpp;

        we = 0.5 * (zf + zr) - rise(e, sl, &xs);
        da = 0.5 * (df + dr) - xs * dsl;
        dpp = 0.5 * (pf + pr) - xs * dslp;
        grad[0] = da * h[0] + dpp * hp[0];
        grad[1] = da * h[1] + dpp * hp[1];
        slope[0] = sl * h[0] + dpp * hp[0];
        slope[1] = sl * h[1] + dpp * hp[1];
        rate[0] = 0.5 * (df + dr) * h[0] + 0.5 * (pf + pr) * hp[0];
        rate[1] = 0.5 * (df + dr) * h[1] + 0.5 * (pf + pr) * hp[1];
        *curv = dsl;
    }
    return we;
}
