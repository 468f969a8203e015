/* tests/core/test_cemprack.c - the CE form's steered McPherson axle on a rack (core/nlcorner.h
 * "On a rack", core/ce_rack.c) on tests/core/mprack_ce.yaml (tests/core/mp_ml_ce.yaml with the
 * sedan's rack_pinion steering, the McPherson tie rods on the rack; 16 coordinates in CE):
 *   0. the proof of the fixed Newton count over the arm's and the rack's ranges (nlcorner.h)
 *      and the fixed count's residual over that rectangle;
 *   1. the kinematic curves: toe, camber and the wheel centre's height against the lower arm
 *      angle (wheel travel) and the rack travel, from the closure, equal the ideal-joint (FA)
 *      model's own solution (Newton's method on the corner's joints with the arm's angle and
 *      the rack held, from a start 1 mm / 1 mrad away) to a derived bound; the steering
 *      geometry's sanity (the overall ratio at the centre, the wheel angle at the end stops);
 *   2. at states away from the design pose the placed bodies satisfy every joint (g = 0,
 *      G v = 0, G v' + gamma = 0), the bushings' locked translations and the gear's error
 *      vanish (test_cerack's part 1);
 *   3. the rack closure's ds/dq and d kappa/dq against central differences;
 *   4. CE against FA over 0.5 s steering from rest (test_cerack's part 3);
 *   5. a multilink's tie rod on a (virtual) rack: the proof and the derivatives.
 * Tolerances derived beside each check. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "config/model_yaml.h"
#include "core/ce.h"
#include "core/data.h"
#include "core/eval.h"
#include "core/joint.h"
#include "core/kinematics.h"
#include "core/model.h"
#include "core/step.h"
#include "core/vdmath.h"
#include "ce_checks.h"
#include "fa_corner.h"

/* 1. the corner's kinematics against the ideal-joint model's (fa_corner.h: the corner's joint
 * rows but the lower arm's pivot, held, solved for its knuckle, tie rod and piston rod, the
 * rack's body at the travel s) */
static void curves(const struct vd_model *m, struct vd_data *d, const struct vd_ce *ce)
{
    struct vt_rack_curves o;
    double ratio, t75p, t75m;

    vt_rack_fa_curves(m, d, ce, 0.35, 0.085, &o);
    CHECK(o.nf == 0, "the closure over arm +-0.35 rad x rack +-0.085 m (%d failed)", o.nf);
    CHECK(o.maxstep < 1e-12, "the ideal-joint Newton converged (last step %.3g)", o.maxstep);
    /* the closure's pose error: at most |J^-1| (beta, the proof's largest, about 24 m/m) times
     * its residual (the run-time check: <= VD_NLC_RTOL 1e-11), 2.4e-10 m or rad, plus the
     * ideal-joint solve's rounding (its rows' condition times u: 1e-13): 1e-9 for toe, camber
     * (rad) and the height (m) */
    CHECK_TOL(o.wt, 1e-9, "toe CE vs FA %.3g rad (beta %.3g)", o.wt, o.beta);
    CHECK_TOL(o.wc, 1e-9, "camber CE vs FA %.3g rad", o.wc);
    CHECK_TOL(o.wz, 1e-9, "wheel centre height CE vs FA %.3g m", o.wz);
    printf("curves (arm +-0.35 rad x rack +-0.085 m, both sides): toe %.2g, camber %.2g, "
           "wheel centre %.2g against the ideal-joint model\n",
           o.wt, o.wc, o.wz);
    /* the steering geometry at the design travel: toe against the rack's travel */
    vt_rack_steering(m, d, ce, &ratio, &t75p, &t75m);
    /* sanity, not tuning: passenger cars' overall ratios lie between 12 and 20 (sedan.yaml:
     * 16.5), the road wheel at the stops between 25 and 45 deg */
    CHECK(ratio > 12.0 && ratio < 20.0, "overall steering ratio %.1f in (12, 20)", ratio);
    CHECK(fabs(t75p) > 25 * M_PI / 180 && fabs(t75m) > 25 * M_PI / 180 &&
              fabs(t75p) < 45 * M_PI / 180 && fabs(t75m) < 45 * M_PI / 180,
          "wheel angle at the stops %.1f / %.1f deg", t75p * 180 / M_PI, t75m * 180 / M_PI);
}

/* 5. a multilink's tie rod on a rack (vd_nlc_on_rack with rack_link the tie rod, link 5) over a
 * short travel: the rear corner of mp_ml_ce.yaml with a virtual rack along the chassis' y over
 * +-0.02 m (a rear-steer actuator's travel): the proof over the rectangle and the closure's
 * ds/dq and d kappa/dq in both coordinates against central differences (the tolerance as part
 * 3's: 1e-6 relative). The template-built steered multilink axle on the sedan's rack (+-0.09 m):
 * test_cemlrack */
static void multilink_on_rack(void)
{
    static struct vd_nlc c;
    static struct vd_tree_rel r0[VD_NLC_MAXB], rp[VD_NLC_MAXB], rm[VD_NLC_MAXB];
    const double rd[3] = {0.0, 1.0, 0.0};
    struct vd_model *m = vd_cfg_load_model("tests/core/mp_ml_ce.yaml", NULL, stderr);
    double wds = 0.0, wdk = 0.0, sds = 0.0, sdk = 0.0, wr = 0.0, t[3], Q[9], res;
    char err[256];
    int rc;

    CHECK(m != NULL, "load mp_ml_ce.yaml");
    if (!m)
        return;
    rc = vd_nlc_from_model(&c, m, "rear_l", vd_model_find_body(m, "chassis"), err, sizeof(err));
    CHECK(rc == 0, "rear_l: %s", rc ? err : "multilink");
    rc = rc ? rc : vd_nlc_on_rack(&c, rd, 0.02, err, sizeof(err));
    CHECK(rc == 0 && c.rack_link == VD_NLC_MAXL - 1, "rear_l on a rack: %s", rc ? err : "proven");
    if (rc) {
        vd_model_free(m);
        return;
    }
    printf("multilink on a rack (+-0.02 m): h %.3g, bound %.3g\n", c.kh, c.kbound);
    for (int i = 0; i <= 20; i++)
        for (int j = 0; j <= 10; j++) {
            CHECK(vd_nlc_solve2(&c, c.qmin + (c.qmax - c.qmin) * i / 20.0,
                                c.smin + (c.smax - c.smin) * j / 10.0, t, Q, &res) == 0,
                  "multilink solve %d %d", i, j);
            wr = fmax(wr, res);
        }
    /* as main's: 1e-13 */
    CHECK_TOL(wr, 1e-13, "multilink on a rack: residual %.3g", wr);
    for (int trial = 0; trial < 5; trial++) {
        const double q[3] = {0.1 * sin(trial), 0.0, 0.015 * cos(1.3 * trial)};
        const double qd[3] = {0.4 - 0.1 * trial, 0.0, 0.05 * trial - 0.1};

        CHECK(vd_nlc_closure_in3(&c, 0, q, qd, 0, r0) == 0, "multilink closure %d", trial);
        for (int k = 0; k < 3; k += 2) {
            const double e = 1e-6;
            double qp[3] = {q[0], q[1], q[2]}, qm[3] = {q[0], q[1], q[2]};

            qp[k] += e;
            qm[k] -= e;
            vd_nlc_closure_in3(&c, 0, qp, qd, 0, rp);
            vd_nlc_closure_in3(&c, 0, qm, qd, 0, rm);
            for (int b = 0; b < c.nb; b++)
                for (int i = 0; i < 6; i++) {
                    sdk = fmax(sdk, fabs(r0[b].dkappa[6 * k + i]));
                    wdk = fmax(wdk, fabs(r0[b].dkappa[6 * k + i] -
                                         (rp[b].kappa[i] - rm[b].kappa[i]) / (2 * e)));
                    for (int j = 0; j < 3; j += 2) {
                        sds = fmax(sds, fabs(r0[b].ds[6 * (j + 3 * k) + i]));
                        wds = fmax(wds, fabs(r0[b].ds[6 * (j + 3 * k) + i] -
                                             (rp[b].s[6 * j + i] - rm[b].s[6 * j + i]) / (2 * e)));
                    }
                }
        }
    }
    CHECK_TOL(wds / sds, 1e-6, "multilink on a rack: ds/dq vs central differences %.3g (of %.3g)",
              wds, sds);
    CHECK_TOL(wdk / sdk, 1e-6,
              "multilink on a rack: d kappa/dq vs central differences %.3g (of %.3g)", wdk, sdk);
    printf("multilink on a rack: ds %.2g of %.3g, dkappa %.2g of %.3g against central "
           "differences\n",
           wds, sds, wdk, sdk);
    vd_model_free(m);
}

int main(void)
{
    const char *path = "tests/core/mprack_ce.yaml";
    struct vd_model *m = vd_cfg_load_model(path, NULL, stderr);
    struct vd_data *d;
    struct vd_ce_data *cd;
    char err[256];

    CHECK(m != NULL && !vd_model_set_formulation(m, VD_FORM_CE, err, sizeof(err)) && m->ce,
          "load %s as ce", path);
    if (!m || !m->ce)
        return vt_report("test_cemprack");
    CHECK(m->ce->tree->n == 16 && m->ce->has_rack && m->ce->nnlc == 4 && m->ce->ncorner == 0 &&
              m->ce->rack.nlc[0] && m->ce->rack.nlc[1],
          "16 coordinates (%d): the rack node of two McPhersons, two multilinks", m->ce->tree->n);
    for (int s = 0; s < 2; s++) {
        const struct vd_nlc *c = m->ce->rack.nlc[s];

        vt_rack_proof(c, s, true);
    }
    d = vd_data_new(m);
    cd = vd_ce_data_new(m, m->ce);
    curves(m, d, m->ce);
    vt_rack_placements(m, d, m->ce, cd, 0.3);
    /* 3. the rack closure's derivatives (the McPherson corners' mixed passes in (q, s) and the
     * steering chain) against central differences, step e = 1e-6 (rad, m), relative to the largest
     * entry, as test_cerack's: truncation e^2/6 |s'''| / |s'| <= 2.3e-9 (the column's 118 rad per
     * m of rack dominates; the knuckle turns by about 5 rad per m of rack); rounding u |s| / (e
     * |s'|) plus the closure's: each placement from a pose within 1e-13 of the exact one (the
     * proof's bound), 1e-13 / e = 1e-7 relative to s' of order 1: 1e-6 relative (a wrong term is
     * >= 1e-2) */
    {
        static const double amp[3] = {0.2, 0.25, 0.07};

        vt_rack_derivatives(m->ce, m->ce->rack.off[2] + 4, amp);
    }
    {
        /* past the proven rectangle: refused (the state is rejected), not extrapolated */
        static struct vd_tree_rel rel[2 * VD_NLC_MAXB + 4];
        const double q[3] = {0.0, 0.0, 1.01 * VD_CE_RACK_SMAX}, qd[3] = {0, 0, 0};

        CHECK(vd_ce_rack_closure(&m->ce->rack, q, qd, rel) == -EDOM,
              "rack travel past the proven range: -EDOM");
    }
    vd_ce_data_free(cd);
    vd_data_free(d);
    vd_model_free(m);
    vt_rack_ce_vs_fa(path, 1e-3);
    multilink_on_rack();
    return vt_report("test_cemprack");
}
