/* tests/core/test_tire_tmeasy.c - TMeasy tyre model (core/tire_tmeasy) and its JSON reader
 * (config/tmeasy): the estimated parameter sets of both shipped files against Chrono's
 * formulas evaluated by hand, the characteristic points of the curves (exact by
 * construction), every analytic partial against central differences, the relaxation
 * lengths, malformed-file diagnostics and no allocation in vd_tm_eval. */
#include <errno.h>
#include <math.h>
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

static struct vd_tm_out ev(const struct vd_tm_params *p, double k, double a, double fz, double mu)
{
    struct vd_tm_in in = {k, a, fz, mu};
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
        struct vd_tm_out o = ev(p, 0.9 * sin(0.001 * i), 1.2 * cos(0.0013 * i),
                                p->pn * (1.0 + 0.9 * sin(0.0011 * i)), p->mu0);
        double r[4];

        vd_tm_relax(p, p->pn, r);
        sum += o.fx + o.fy + o.mz + r[0];
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

int main(void)
{
    struct vd_tm_params car, trk;

    test_files(&car, &trk);
    test_syntax();
    if (vt_fail)
        return vt_report("test_tire_tmeasy");
    test_points(&car, "sedan");
    test_points(&trk, "hmmwv");
    test_partials(&car, "sedan");
    test_partials(&trk, "hmmwv");
    test_relax(&car, "sedan");
    test_relax(&trk, "hmmwv");
    test_noalloc(&car);
    return vt_report("test_tire_tmeasy");
}
