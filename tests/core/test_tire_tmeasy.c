/* tests/core/test_tire_tmeasy.c - TMeasy tyre model (core/tire_tmeasy) and its JSON reader
 * (config/tmeasy): the estimated parameter sets of both shipped files against Chrono's
 * formulas evaluated by hand, the characteristic points of the curves (exact by
 * construction), the signs and small-slip limits of the camber force and the bore torque,
 * every analytic partial (slips, load, camber, spin, turning, rolling radius) against central
 * differences, the relaxation lengths, malformed-file diagnostics and no allocation in
 * vd_tm_eval. `test_tire_tmeasy --params FILE.json` and `--eval FILE.json` are the back end of
 * the independent reference tests/core/tm_reference.py. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "config/tmeasy.h"
#include "core/tire_tmeasy.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define VT_INTERPOSE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||                         \
    __has_feature(memory_sanitizer)
#define VT_INTERPOSE 0
#endif
#endif
#ifndef VT_INTERPOSE
#define VT_INTERPOSE 1
#endif
#if VT_INTERPOSE
#include "noalloc.h"
#endif

#define EPS 2.220446049250313e-16

/* no camber, no spin, no turning: the in-plane model */
static struct vd_tm_out ev(const struct vd_tm_params *p, double k, double a, double fz, double mu)
{
    struct vd_tm_in in = {k, a, fz, mu, 0.0, 0.0, 0.0, p->r0};
    struct vd_tm_out o;

    vd_tm_eval(p, &in, &o);
    return o;
}

static struct vd_tm_out evx(const struct vd_tm_params *p, const double x[8])
{
    struct vd_tm_in in = {x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]};
    struct vd_tm_out o;

    vd_tm_eval(p, &in, &o);
    return o;
}

/* the estimation of the two shipped files, recomputed from ChTMeasyTire.cpp's formulas:
 * every value is a product of at most 4 rounded factors: relative error <= 8 eps */
static void test_files(struct vd_tm_params *car, struct vd_tm_params *trk)
{
    int rc = vd_tmeasy_load("config/tires/passenger_245_40R18_tmeasy.json", car, stderr);

    CHECK(rc == 0, "sedan TMeasy file: rc %d", rc);
    rc = vd_tmeasy_load("config/tires/hmmwv_37x12.5R16.5_tmeasy.json", trk, stderr);
    CHECK(rc == 0, "HMMWV TMeasy file: rc %d", rc);
    {
        /* load index 97: 730 kg; section height 0.3266 - 0.2286 */
        const double pn = 0.5 * 730.0 * 9.81, cz = pn / (0.16 * (0.3266 - 0.2286));

        CHECK_TOL(fabs(car->pn - pn), 8 * EPS * pn, "sedan pn %.9g vs %.9g", car->pn, pn);
        CHECK_TOL(fabs(car->cz - cz), 8 * EPS * cz, "sedan cz %.9g vs %.9g", car->cz, cz);
        CHECK_TOL(fabs(car->dfy0[1] - 10.0505 * 2 * pn), 8 * EPS * 10.0505 * 2 * pn,
                  "sedan dfy0_2");
        CHECK_TOL(fabs(car->fxm[0] - 1.1205 * pn), 8 * EPS * 1.1205 * pn, "sedan fxm_1");
        CHECK(car->mu0 == 0.8 && car->rr == 0.015 && car->r0 == 0.3266, "sedan mu0 rr r0");
        CHECK(car->sym[0] == 0.18197 && car->syntoE[1] == 0.91309, "sedan sym, syntoE");
    }
    {
        /* load index 108: 1000 kg; truck coefficients */
        const double pn = 0.5 * 1000.0 * 9.81;

        CHECK_TOL(fabs(trk->pn - pn), 8 * EPS * pn, "hmmwv pn %.9g vs %.9g", trk->pn, pn);
        CHECK_TOL(fabs(trk->dfy0[0] - 5.948 * pn), 8 * EPS * 5.948 * pn, "hmmwv dfy0_1");
        CHECK(trk->sym[0] == 0.38786 && trk->sxm[1] == 0.15, "hmmwv sym, sxm");
    }
    CHECK(vd_tmeasy_load_index(0) == 45.0 * 9.81 && vd_tmeasy_load_index(279) == 136000 * 9.81 &&
              vd_tmeasy_load_index(280) == 0.0,
          "load index table ends");
}

/* characteristic points: at Fz = pn and mu = mu0 the pure-slip curves pass through (sxm, Fxm)
 * and reach Fxs beyond sxs, the initial slopes are dFx0, dFy0; these hold exactly up to
 * the rounding of ~30 operations: 64 eps relative */
static void test_points(const struct vd_tm_params *p, const char *nm)
{
    const double pn = p->pn, mu = p->mu0, tol = 64 * EPS;
    struct vd_tm_out o;

    o = ev(p, p->sxm[0], 0.0, pn, mu);
    CHECK_TOL(fabs(o.fx - p->fxm[0]), tol * p->fxm[0], "%s Fx(sxm) %.9g vs Fxm %.9g", nm, o.fx,
              p->fxm[0]);
    CHECK_TOL(fabs(o.dfx[0]), tol * p->dfx0[0], "%s dFx/dsx at sxm %.3g", nm, o.dfx[0]);
    o = ev(p, -1.0, 0.0, pn, mu); /* locked wheel: s = 1 > sxs */
    CHECK_TOL(fabs(o.fx + p->fxs[0]), tol * p->fxs[0], "%s Fx(-1) %.9g vs -Fxs", nm, o.fx);
    o = ev(p, 0.0, atan(p->sym[0]), pn, mu);
    CHECK_TOL(fabs(o.fy + p->fym[0]), tol * p->fym[0], "%s Fy(sym) %.9g vs -Fym %.9g", nm, o.fy,
              p->fym[0]);
    o = ev(p, 0.0, 0.0, pn, mu);
    CHECK(o.fx == 0.0 && o.fy == 0.0 && o.mz == 0.0, "%s zero slip: nonzero force", nm);
    CHECK_TOL(fabs(o.dfx[0] - p->dfx0[0]), tol * p->dfx0[0], "%s initial slope x", nm);
    CHECK_TOL(fabs(o.dfy[1] + p->dfy0[0]), tol * p->dfy0[0], "%s initial slope y", nm);
    /* at 2 pn the quadratic interpolation returns the second value */
    o = ev(p, p->sxm[1], 0.0, 2.0 * pn, mu);
    CHECK_TOL(fabs(o.fx - p->fxm[1]), tol * p->fxm[1], "%s Fx(sxm, 2pn)", nm);
    /* signs: driving slip -> Fx > 0, alpha > 0 -> Fy < 0 and an aligning Mz > 0 */
    o = ev(p, 0.05, 0.03, pn, mu);
    CHECK(o.fx > 0.0 && o.fy < 0.0 && o.mz > 0.0, "%s signs: %g %g %g", nm, o.fx, o.fy, o.mz);
    /* friction scaling halves the peak */
    o = ev(p, 0.5 * p->sxm[0], 0.0, pn, 0.5 * mu);
    CHECK_TOL(fabs(o.fx - 0.5 * p->fxm[0]), tol * p->fxm[0], "%s mu/2 peak", nm);
}

/* analytic partials against central differences. Error bound of a central difference with
 * step h of a function that is C1 with piecewise bounded f'' (the curves are C1 at sm, s*,
 * ss and the trail at sy0, syE): |D_h f - f'| <= h max|f''|, plus the rounding 2 eps |f| / h.
 * Bounds of f'': for the slips, the adhesion curve's |F''| <= 6 dF0 / sm (its denominator
 * 1 + sn (sn + p) >= 1/2 with p >= 0 and |d^2/ds^2| of F = dF0 s / den summed termwise)
 * times the normalising factors (<= 2 each); Mz = -L n Fy adds L n0 Fy'' and 2 L n' Fy'
 * with |n'| <= 3 n0 / sy0; for Fz the quadratic interpolation gives |d^2/dFz^2| <= 4 Fmax /
 * pn^2 per curve parameter, times the slope of F in each (<= 4 dF0 / Fm). */
static void test_partials(const struct vd_tm_params *p, const char *nm)
{
    const double hs = 1e-6, hf = 1e-3 * p->pn;
    const double f2 = 4 * 6 * p->dfx0[1] / p->sxm[1] + 4 * 6 * p->dfy0[1] / p->sym[0];
    const double L = 2 * sqrt(p->r0 * p->pn_max / p->cz);
    const double m2 = L * (p->nto0[1] * f2 + 6 * p->nto0[1] / p->synto0[0] * 2 * p->dfy0[1]);
    const double fmax = 2 * (p->fxm[1] + p->fym[1]);
    const double ff2 = 4 * 4 * fmax / (p->pn * p->pn) * 16;
    int n = 0;

    for (int i = 0; i < 400; i++) {
        const double k = vt_uniform(-0.6, 0.6), a = vt_uniform(-0.5, 0.5);
        const double fz = p->pn * vt_uniform(0.3, 2.5), mu = p->mu0 * vt_uniform(0.5, 1.2);
        const double ca = cos(a), dad = 1.0 / (ca * ca); /* alpha'' bound 2 tan/cos^2 <= 3 */
        struct vd_tm_out o = ev(p, k, a, fz, mu), op, om;
        double d[3][3], an[3][3] = {{o.dfx[0], o.dfx[1], o.dfx[2]},
                                    {o.dfy[0], o.dfy[1], o.dfy[2]},
                                    {o.dmz[0], o.dmz[1], o.dmz[2]}};
        const double h[3] = {hs, hs, hf};

        for (int j = 0; j < 3; j++) {
            op = ev(p, k + (j == 0) * hs, a + (j == 1) * hs, fz + (j == 2) * hf, mu);
            om = ev(p, k - (j == 0) * hs, a - (j == 1) * hs, fz - (j == 2) * hf, mu);
            d[0][j] = (op.fx - om.fx) / (2 * h[j]);
            d[1][j] = (op.fy - om.fy) / (2 * h[j]);
            d[2][j] = (op.mz - om.mz) / (2 * h[j]);
        }
        for (int r = 0; r < 3; r++)
            for (int j = 0; j < 3; j++) {
                const double sec = r < 2 ? (j < 2 ? f2 * 3 * dad * dad : ff2 * p->pn)
                                         : (j < 2 ? m2 * 3 * dad * dad : ff2 * p->pn * L);
                const double mag = r < 2 ? fmax : fmax * L;
                const double tol = h[j] * sec + 2 * EPS * mag / h[j] + 64 * EPS * fabs(an[r][j]);

                CHECK_TOL(fabs(d[r][j] - an[r][j]), tol,
                          "%s partial %d/%d at k %.4f a %.4f fz %.1f: %.9g vs %.9g", nm, r, j, k, a,
                          fz, an[r][j], d[r][j]);
                n++;
            }
    }
    printf("%s: %d partials checked\n", nm, n);
}

/* the characteristic values at Fz = pn (q = 1: the interpolations return the first values)
 * that the camber and bore terms use (tire_tmeasy.h), computed by hand */
struct at_pn {
    double hx, hy, dfb, fmb, smb, fsb, L, rb;
};

static struct at_pn at_pn(const struct vd_tm_params *p)
{
    struct at_pn a;
    const double rx = p->fxm[0] / p->dfx0[0], ry = p->fym[0] / p->dfy0[0];

    a.hx = p->sxm[0] / (p->sxm[0] + p->sym[0]) + rx / (rx + ry);
    a.hy = p->sym[0] / (p->sxm[0] + p->sym[0]) + ry / (rx + ry);
    a.dfb = hypot(p->dfx0[0] * a.hx, p->dfy0[0] * a.hy) / sqrt(2.0);
    a.fmb = hypot(p->fxm[0], p->fym[0]) / sqrt(2.0);
    a.smb = hypot(p->sxm[0] / a.hx, p->sym[0] / a.hy) / sqrt(2.0);
    a.fsb = hypot(p->fxs[0], p->fys[0]) / sqrt(2.0);
    a.L = 2.0 * sqrt(p->r0 * p->pn / p->cz);
    a.rb = (a.L + p->width) / 6.0;
    return a;
}

/* camber force and bore torque: signs, the small-camber limit and the parking torque against
 * values derived by hand from the equations of tire_tmeasy.h */
static void test_camber(const struct vd_tm_params *p, const char *nm)
{
    const struct at_pn a = at_pn(p);
    const double re = 0.97 * p->r0, om = 20.0 / re, vt = hypot(re * om, p->vn);
    struct vd_tm_out o;

    /* a wheel rolling at 20 m/s without slip, top leaning to -y (gamma > 0), its carrier not
     * turning (wn = Omega sin(gamma)): pushed towards -y (the side it leans to), the bore
     * torque against the turning of the tread, no longitudinal force */
    {
        const double g = 0.03, x[8] = {0.0, 0.0, p->pn, p->mu0, g, om, om * sin(g), re};
        const double xm[8] = {0.0, 0.0, p->pn, p->mu0, -g, om, -om * sin(g), re};
        struct vd_tm_out om_ = evx(p, xm);

        o = evx(p, x);
        CHECK(o.fy < 0.0 && o.mb < 0.0 && o.fx == 0.0, "%s camber 0.03: Fy %g MB %g Fx %g", nm,
              o.fy, o.mb, o.fx);
        CHECK(om_.fy == -o.fy && om_.mb == -o.mb, "%s camber: not odd in gamma", nm);
    }
    /* small camber, gamma = 1e-4: pure bore direction (sx = sy = 0), sB = -RB Omega sin(g) /
     * vt, sgam = -(L/2) Omega sin(g) / vt, and in adhesion (|sB| < smB) F = dF0 |sB| / (1 + u
     * (u + p)), dF0 = max(dFB, 2 FmB / smB), u = |sB| / smB, p = dF0 smB / FmB - 2, so MB = RB
     * F sgn(sB) and Fgam = F / |sB| sgam / (3 hy): exact up to the rounding of ~60 operations
     * here and in vd_tm_eval (no cancellation: every term positive), 128 eps relative. The
     * linear values (1 + u (u + p) -> 1) give the camber stiffness printed. */
    {
        const double g = 1e-4, x[8] = {0.0, 0.0, p->pn, p->mu0, g, om, om * sin(g), re};
        const double sb = -a.rb * om * sin(g) / vt, sgam = -0.5 * a.L * om * sin(g) / vt;
        const double df0 = fmax(a.dfb, 2.0 * a.fmb / a.smb), u = fabs(sb) / a.smb;
        const double den = 1.0 + u * (u + df0 * a.smb / a.fmb - 2.0);
        const double mb = a.rb * df0 * sb / den, fy = df0 / den * sgam / (3.0 * a.hy);

        o = evx(p, x);
        CHECK(u < 1.0, "%s small camber: not in adhesion", nm);
        CHECK_TOL(fabs(o.mb - mb), 128 * EPS * fabs(mb), "%s MB(1e-4) %.9g vs %.9g", nm, o.mb, mb);
        CHECK_TOL(fabs(o.fy - fy), 128 * EPS * fabs(fy), "%s Fgam(1e-4) %.9g vs %.9g", nm, o.fy,
                  fy);
        printf("%s: camber stiffness %.1f N/deg at Fz = pn = %.0f N, 20 m/s (%.3f Fz/rad)\n", nm,
               fy * den / g * M_PI / 180.0, p->pn, fy * den / g / p->pn);
    }
    /* parking: no spin, turning at 0.5 rad/s: sB = -RB 0.5 / vN, far beyond the sliding slip,
     * so MB = -RB FsB (FsB the 45-degree sliding force), no force; exact up to the rounding
     * of ~20 operations */
    {
        const double x[8] = {0.0, 0.0, p->pn, p->mu0, 0.0, 0.0, 0.5, re};

        o = evx(p, x);
        CHECK(a.rb * 0.5 / p->vn > 2.0 * hypot(p->sxs[0] / a.hx, p->sys[0] / a.hy),
              "%s parking: bore slip not in sliding", nm);
        CHECK_TOL(fabs(o.mb + a.rb * a.fsb), 32 * EPS * a.rb * a.fsb, "%s parking MB %.9g vs %.9g",
                  nm, o.mb, -a.rb * a.fsb);
        CHECK(o.fx == 0.0 && o.fy == 0.0, "%s parking: force %g %g", nm, o.fx, o.fy);
        printf("%s: parking bore torque %.1f N m at Fz = pn (RB = %.4f m)\n", nm, o.mb, a.rb);
    }
}

/* the partials w.r.t. camber, spin, turning and rolling radius (and again slips and load)
 * at random states that include them, against central differences. Step: h_j = 1e-6 / D1_j,
 * D1_j a bound of |d(sB, sgam)/dx_j| at the state (the formulas below, from sB = -RB wn /
 * vt, sgam = -(L/2) Omega sin(gamma) / vt, vt = sqrt((re Omega)^2 + vN^2): |d(1/vt)/dOmega|
 * <= re / vt^2, |d2| <= 4 re^2 / vt^3, |d(Omega/vt)/dOmega| <= 2 / vt, |d2| <= 6 re / vt^2,
 * and likewise in re), so the slips move by ~1e-6 as in test_partials. Error bound of the
 * central difference: h (F2 D1^2 + G1 D2) + 2 eps |f| / h, with F2 the slip-curvature bound
 * f2 of test_partials, G1 = 4 max dF0 / hy_min the slope bound (the camber force's secant
 * stiffness is divided by hy >= hy_min), D2 the bound of the second derivative of the slips;
 * MB and Mz carry the lever arms RB, L n0 (<= L_max). The variables of test_partials (kappa,
 * alpha, fz) keep their steps and bounds, with the bore slip's load terms added. */
static void test_partials_camber(const struct vd_tm_params *p, const char *nm)
{
    const double f2 = 4 * 6 * p->dfx0[1] / p->sxm[1] + 4 * 6 * p->dfy0[1] / p->sym[0];
    const double hym =
        fmin(p->sym[0] / (p->sxm[0] + p->sym[0]), p->sym[1] / (p->sxm[1] + p->sym[1]));
    const double g1 = 4 * fmax(p->dfx0[1], p->dfy0[1]) / hym, F2 = f2 / hym;
    const double Lx = 2 * sqrt(p->r0 * p->pn_max / p->cz), rbx = (Lx + p->width) / 6;
    const double fmx = 2 * (p->fxm[1] + p->fym[1]);
    const double ff2 = 4 * 4 * fmx / (p->pn * p->pn) * 16;
    int n = 0;

    for (int i = 0; i < 400; i++) {
        const bool park = i % 4 == 0;
        const double re = p->r0 * vt_uniform(0.9, 1.0);
        const double om = park ? vt_uniform(-0.05, 0.05) / re : vt_uniform(-30.0, 30.0) / re;
        const double g = vt_uniform(-0.1, 0.1), wn = vt_uniform(-2.0, 2.0) + om * sin(g);
        const double fz = p->pn * vt_uniform(0.3, 2.5);
        const double x[8] = {i % 3 ? vt_uniform(-0.3, 0.3) : 0.0,
                             i % 3 ? vt_uniform(-0.3, 0.3) : 0.0,
                             fz,
                             p->mu0 * vt_uniform(0.5, 1.2),
                             g,
                             om,
                             wn,
                             re};
        const double vt = hypot(re * om, p->vn), L = 2 * sqrt(p->r0 * fz / p->cz);
        const double rb = (L + p->width) / 6, sgm = fabs(sin(g)) + 1e-3;
        const double sb = rb * fabs(wn) / vt, sgam = 0.5 * L * fabs(om) * sgm / vt;
        const double ca = cos(x[1]), dad = 1.0 / (ca * ca);
        /* D1, D2 per input (kappa, alpha, fz, gamma, Omega, wn, re) */
        const double D1[7] = {1.0,
                              dad,
                              (sb + sgam) / fz,
                              0.5 * L * fabs(om) / vt,
                              rb * fabs(wn) * re / (vt * vt) + 0.5 * L * sgm * 2 / vt,
                              rb / vt,
                              (sb + sgam) * fabs(om) / vt};
        const double D2[7] = {0.0,
                              3 * dad * dad,
                              (sb + sgam) / (fz * fz),
                              0.5 * L * fabs(om) / vt,
                              4 * rb * fabs(wn) * re * re / (vt * vt * vt) +
                                  0.5 * L * sgm * 6 * re / (vt * vt),
                              0.0,
                              4 * (sb + sgam) * om * om / (vt * vt)};
        struct vd_tm_out o = evx(p, x), op, om_;
        const double *an[4] = {o.dfx, o.dfy, o.dmz, o.dmb};

        for (int j = 0; j < 7; j++) {
            const int xi = j < 3 ? j : j + 1; /* skip mu */
            const double h = j == 2 ? 1e-3 * p->pn : 1e-6 / fmax(D1[j], 1e-3);
            double xp[8], xm[8];

            memcpy(xp, x, sizeof(xp));
            memcpy(xm, x, sizeof(xm));
            xp[xi] += h;
            xm[xi] -= h;
            op = evx(p, xp);
            om_ = evx(p, xm);
            {
                const double d[4] = {(op.fx - om_.fx) / (2 * h), (op.fy - om_.fy) / (2 * h),
                                     (op.mz - om_.mz) / (2 * h), (op.mb - om_.mb) / (2 * h)};
                const double arm[4] = {1.0, 1.0, Lx * fmax(p->nto0[0], p->nto0[1]), rbx};

                for (int r = 0; r < 4; r++) {
                    double sec = arm[r] * (F2 * D1[j] * D1[j] + g1 * D2[j]);
                    double tol;

                    if (j == 2)
                        sec += arm[r] * ff2 * p->pn * 3; /* the characteristic values and L */
                    if (j == 1)
                        sec *= 3;
                    tol = h * sec + 2 * EPS * arm[r] * fmx / h + 64 * EPS * fabs(an[r][j]);
                    CHECK_TOL(fabs(d[r] - an[r][j]), tol,
                              "%s camber partial %d/%d at k %.4f a %.4f fz %.1f g %.4f om %.3f wn "
                              "%.3f: %.9g vs %.9g",
                              nm, r, j, x[0], x[1], fz, g, om, wn, an[r][j], d[r]);
                    n++;
                }
            }
        }
    }
    printf("%s: %d partials with camber and turning checked\n", nm, n);
}

/* relaxation lengths dF0(Fz)/c and their load derivative (the quadratic's derivative is
 * exact; central difference of a quadratic is exact up to rounding 2 eps sigma / h) */
static void test_relax(const struct vd_tm_params *p, const char *nm)
{
    double o[4], op[4], om[4];
    const double fz = 1.3 * p->pn, h = 1e-3 * p->pn;

    vd_tm_relax(p, p->pn, o);
    CHECK_TOL(fabs(o[0] - p->dfx0[0] / p->cx), 8 * EPS * o[0], "%s sigma_kappa", nm);
    CHECK_TOL(fabs(o[2] - p->dfy0[0] / p->cy), 8 * EPS * o[2], "%s sigma_alpha", nm);
    CHECK(o[0] > 0.05 && o[0] < 1.0 && o[2] > 0.05 && o[2] < 1.5,
          "%s relaxation lengths %.3f %.3f m outside the usual 0.05..1.5 m", nm, o[0], o[2]);
    vd_tm_relax(p, fz, o);
    vd_tm_relax(p, fz + h, op);
    vd_tm_relax(p, fz - h, om);
    CHECK_TOL(fabs((op[0] - om[0]) / (2 * h) - o[1]), 4 * EPS * o[0] / h, "%s dsk/dfz", nm);
    CHECK_TOL(fabs((op[2] - om[2]) / (2 * h) - o[3]), 4 * EPS * o[2] / h, "%s dsa/dfz", nm);
}

/* malformed files: located errors */
static void test_syntax(void)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"{\"Template\": \"TMeasyTire\",\n \"Design\": {\"Width [m]\" 0.2}}",
         "x:2:25: error: expected ':'"},
        {"{\"Template\": \"Pac02Tire\"}", "\"Template\": \"TMeasyTire\" expected"},
        {"{\"Template\": \"TMeasyTire\", \"Coefficient of Friction\": \"high\"}",
         "missing key \"Design/Unloaded Radius [m]\""},
        {"{\"Template\": \"TMeasyTire\", // c\n \"Design\": {\"Unloaded Radius [m]\": 0.3, \"Mass "
         "[kg]\": 10, \"Width [m]\": 0.2, \"Rim Radius [m]\": 0.2}, \"Coefficient of Friction\": "
         "0.8, \"Rolling Resistance Coefficient\": 0.01, \"Vehicle Type\": \"Bus\", \"Load "
         "Index\": "
         "90}",
         "\"Vehicle Type\": \"Passenger\" or \"Truck\" expected"},
        {"{\"Template\": \"TMeasyTire\", \"Design\": {\"Unloaded Radius [m]\": 0.3, \"Mass [kg]\": "
         "10, \"Width [m]\": 0.2, \"Rim Radius [m]\": 0.2}, \"Coefficient of Friction\": 0.8, "
         "\"Rolling Resistance Coefficient\": 0.01, \"Vehicle Type\": \"Truck\", \"Load Index\": "
         "900}",
         "\"Load Index\": an integer in [0, 279] expected"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *buf = NULL;
        size_t sz = 0;
        FILE *f = open_memstream(&buf, &sz);
        struct vd_tm_params p;
        int rc;

        if (!f)
            return;
        rc = vd_tmeasy_parse("x", bad[i].text, strlen(bad[i].text), &p, f);
        fclose(f);
        CHECK(rc == -EINVAL, "bad file %zu: rc %d", i, rc);
        CHECK(buf && strstr(buf, bad[i].want), "bad file %zu: want '%s', got '%s'", i, bad[i].want,
              buf ? buf : "");
        free(buf);
    }
}

static void test_noalloc(const struct vd_tm_params *p)
{
#if VT_INTERPOSE
    double sum = 0;
    long c;

    atomic_store(&calls, 0);
    atomic_store(&armed, 1);
    for (int i = 0; i < 20000; i++) {
        /* slips, load, camber, spin (through standstill) and turning all varying */
        const double x[8] = {0.9 * sin(0.001 * i),
                             1.2 * cos(0.0013 * i),
                             p->pn * (1.0 + 0.9 * sin(0.0011 * i)),
                             p->mu0,
                             0.1 * sin(0.0017 * i),
                             60.0 * sin(0.0007 * i),
                             cos(0.0019 * i),
                             0.97 * p->r0};
        struct vd_tm_out o = evx(p, x);
        double r[4];

        vd_tm_relax(p, p->pn, r);
        sum += o.fx + o.fy + o.mz + o.mb + r[0];
    }
    atomic_store(&armed, 0);
    c = atomic_load(&calls);
    printf("noalloc: 20000 vd_tm_eval calls, %ld allocator calls (checksum %.6g)\n", c, sum);
    CHECK(c == 0, "%ld allocator calls in vd_tm_eval", c);
#else
    (void)p;
    printf("noalloc: skipped under a sanitizer (it replaces malloc)\n");
#endif
}

/* back end of tm_reference.py: "kappa alpha fz mu gamma omega wn re" lines in, "fx fy mz mb
 * dfx[7] dfy[7] dmz[7] dmb[7]" lines out */
static int eval_stdin(const char *path)
{
    struct vd_tm_params p;
    double x[8];

    if (vd_tmeasy_load(path, &p, stderr))
        return 2;
    while (scanf("%lf %lf %lf %lf %lf %lf %lf %lf", &x[0], &x[1], &x[2], &x[3], &x[4], &x[5], &x[6],
                 &x[7]) == 8) {
        const struct vd_tm_out o = evx(&p, x);
        const double *pa[4] = {o.dfx, o.dfy, o.dmz, o.dmb};

        printf("%.17g %.17g %.17g %.17g", o.fx, o.fy, o.mz, o.mb);
        for (int r = 0; r < 4; r++)
            for (int j = 0; j < VD_TM_NPART; j++)
                printf(" %.17g", pa[r][j]);
        printf("\n");
    }
    return 0;
}

/* back end of tm_reference.py: the loaded parameter set as "name value..." lines */
static int print_params(const char *path)
{
    struct vd_tm_params p;

    if (vd_tmeasy_load(path, &p, stderr))
        return 2;
    printf("pn %.17g\npn_max %.17g\nmu0 %.17g\nr0 %.17g\nwidth %.17g\ncz %.17g\nvn %.17g\n", p.pn,
           p.pn_max, p.mu0, p.r0, p.width, p.cz, p.vn);
#define PAIR(f) printf(#f " %.17g %.17g\n", p.f[0], p.f[1])
    PAIR(dfx0);
    PAIR(fxm);
    PAIR(sxm);
    PAIR(fxs);
    PAIR(sxs);
    PAIR(dfy0);
    PAIR(fym);
    PAIR(sym);
    PAIR(fys);
    PAIR(sys);
    PAIR(nto0);
    PAIR(synto0);
    PAIR(syntoE);
#undef PAIR
    return 0;
}

int main(int argc, char **argv)
{
    struct vd_tm_params car, trk;

    if (argc == 3 && !strcmp(argv[1], "--params"))
        return print_params(argv[2]);

    if (argc == 3 && !strcmp(argv[1], "--eval"))
        return eval_stdin(argv[2]);

    test_files(&car, &trk);
    test_syntax();
    if (vt_fail)
        return vt_report("test_tire_tmeasy");
    test_points(&car, "sedan");
    test_points(&trk, "hmmwv");
    test_partials(&car, "sedan");
    test_partials(&trk, "hmmwv");
    test_camber(&car, "sedan");
    test_camber(&trk, "hmmwv");
    test_partials_camber(&car, "sedan");
    test_partials_camber(&trk, "hmmwv");
    test_relax(&car, "sedan");
    test_relax(&trk, "hmmwv");
    test_noalloc(&car);
    return vt_report("test_tire_tmeasy");
}
