/* tests/core/test_cemlrack.c - the CE form's steered multilink axle on a rack (core/nlcorner.h
 * "On a rack", core/ce_rack.c) on tests/core/mlrack_ce.yaml (Chrono's generic multilink, the
 * sedan's rear, at the front with its tie rods on the sedan's rack: `tierod_mount:
 * steering.rack`; 16 coordinates in CE):
 *   0. the template put the tie rods on the rack (and the rear ones stay on the chassis); the
 *      proof of the fixed Newton count over the wheel travel's and the rack's ranges
 *      (nlcorner.h) and the fixed count's residual over that rectangle;
 *   1. the kinematic curves: toe, camber and the wheel centre's height against the wheel
 *      travel and the rack travel, from the closure, equal the ideal-joint (FA) model's own
 *      solution (Newton's method on the corner's joints with the wheel centre's height as one
 *      more row and the rack held, from a start 1 mm / 1 mrad away) to a derived bound; the
 *      steering geometry's sanity (the overall ratio at the centre, the wheel angle at the end
 *      stops);
 *   2. at states away from the design pose the placed bodies satisfy every joint (g = 0,
 *      G v = 0, G v' + gamma = 0), the bushings' locked translations and the gear's error
 *      vanish (ce_checks.h);
 *   3. the rack closure's ds/dq and d kappa/dq against central differences (ce_checks.h);
 *   4. CE against FA over 0.5 s steering from rest (ce_checks.h).
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
 * rows and the wheel centre's height row solved for its eight bodies, the rack's body at the
 * travel s) */
static void curves(const struct vd_model *m, struct vd_data *d, const struct vd_ce *ce)
{
    struct vt_rack_curves o;
    double ratio, t75p, t75m;

    vt_rack_fa_curves(m, d, ce, 0.12, 0.085, &o);
    for (int side = 0; side < 2; side++)
        CHECK(o.nrow[side] == 47,
              "side %d: 47 joint rows (5 universal + 5 ball links, the strut's "
              "universal, ball and prismatic) (%d)",
              side, o.nrow[side]);
    CHECK(o.nf == 0, "the closure over travel +-0.12 m x rack +-0.085 m (%d failed)", o.nf);
    CHECK(o.maxstep < 1e-12, "the ideal-joint Newton converged (last step %.3g)", o.maxstep);
    /* the design pose: the closure at (0, 0) is the tabulated design pose refined by the fixed
     * iterations (error <= the proof's 1e-13), toe and camber of a rotation within 1e-13 of
     * the identity, the height of a point within 1e-13 m: 1e-12 */
    CHECK_TOL(o.w0, 1e-12, "rack centred, travel 0: the design pose (toe, camber, height %.3g)",
              o.w0);
    /* the closure's pose error: at most |J^-1| (beta, the proof's largest) times its residual
     * (the run-time check: <= VD_NLC_RTOL 1e-11), beta 1e-11, plus the ideal-joint solve's
     * rounding (its rows' condition times u: 1e-13); beta is printed and checked below 50
     * (then 5e-10): 1e-9 for toe, camber (rad) and the height (m) */
    CHECK(o.beta < 50.0, "the closure's |J^-1| %.3g < 50 (the 1e-9 bound's premise)", o.beta);
    CHECK_TOL(o.wt, 1e-9, "toe CE vs FA %.3g rad (beta %.3g)", o.wt, o.beta);
    CHECK_TOL(o.wc, 1e-9, "camber CE vs FA %.3g rad", o.wc);
    CHECK_TOL(o.wz, 1e-9, "wheel centre height CE vs FA %.3g m", o.wz);
    printf("curves (travel +-0.12 m x rack +-0.085 m, both sides): toe %.2g, camber %.2g, "
           "wheel centre %.2g against the ideal-joint model (beta %.3g)\n",
           o.wt, o.wc, o.wz, o.beta);
    /* the steering geometry at the design travel: toe against the rack's travel */
    vt_rack_steering(m, d, ce, &ratio, &t75p, &t75m);
    /* sanity, not tuning: the sedan's rack (8.5 mm per pinion radian) on this knuckle's
     * steering arm (the tie rod's outer point 0.144 m behind the wheel centre) gives a
     * slower ratio than sedan.yaml's 16.5 (about 21): between 12 and 24, the range of
     * passenger cars and light trucks; the road wheel at the stops between 20 and 45 deg
     * (Chrono's Vehicle_MultiLinks.json, this corner's vehicle, steers to 25 deg) */
    CHECK(ratio > 12.0 && ratio < 24.0, "overall steering ratio %.1f in (12, 24)", ratio);
    CHECK(fabs(t75p) > 20 * M_PI / 180 && fabs(t75m) > 20 * M_PI / 180 &&
              fabs(t75p) < 45 * M_PI / 180 && fabs(t75m) < 45 * M_PI / 180,
          "wheel angle at the stops %.1f / %.1f deg", t75p * 180 / M_PI, t75m * 180 / M_PI);
}

int main(void)
{
    const char *path = "tests/core/mlrack_ce.yaml";
    struct vd_model *m = vd_cfg_load_model(path, NULL, stderr);
    struct vd_data *d;
    struct vd_ce_data *cd;
    char err[256];

    /* 0. the template: the front tie rods' inner joints on the rack, the rear ones on the
     * chassis (no tierod_mount there) */
    CHECK(m != NULL, "load %s", path);
    if (!m)
        return vt_report("test_cemlrack");
    {
        static const char *const jn[4] = {"front_l.tierod_inner", "front_r.tierod_inner",
                                          "rear_l.tierod_inner", "rear_r.tierod_inner"};

        for (int k = 0; k < 4; k++) {
            const int j = vd_model_find_joint(m, jn[k]);
            const int b = j >= 0 ? m->marker[m->joint[j].mk[1]].body : -1;
            const char *want = k < 2 ? "steering.rack" : "chassis";

            CHECK(j >= 0 && m->joint[j].type == VD_JOINT_UNIVERSAL && b >= 0 &&
                      !strcmp(m->body[b].name, want),
                  "%s: a universal joint on %s (%s)", jn[k], want, b >= 0 ? m->body[b].name : "-");
        }
    }
    CHECK(!vd_model_set_formulation(m, VD_FORM_CE, err, sizeof(err)) && m->ce, "%s as ce: %s", path,
          m->ce ? "ok" : err);
    if (!m->ce) {
        vd_model_free(m);
        return vt_report("test_cemlrack");
    }
    CHECK(m->ce->tree->n == 16 && m->ce->has_rack && m->ce->nnlc == 4 && m->ce->ncorner == 0 &&
              m->ce->rack.nlc[0] && m->ce->rack.nlc[1] &&
              m->ce->rack.nlc[0]->kind == VD_NLC_MULTILINK &&
              m->ce->rack.nlc[1]->kind == VD_NLC_MULTILINK,
          "16 coordinates (%d): the rack node of two multilinks, two multilinks on the chassis",
          m->ce->tree->n);
    for (int s = 0; s < 2; s++) {
        const struct vd_nlc *c = m->ce->rack.nlc[s];

        vt_rack_proof(c, s, c->rack_link == VD_NLC_MAXL - 1 && c->smax == VD_CE_RACK_SMAX);
    }
    d = vd_data_new(m);
    cd = vd_ce_data_new(m, m->ce);
    curves(m, d, m->ce);
    /* 2. the placements, the multilinks' heights within +-0.09 m */
    vt_rack_placements(m, d, m->ce, cd, 0.09);
    /* 3. the rack closure's derivatives against central differences, step e = 1e-6 (m),
     * relative to the largest entry, as test_cemprack's: truncation e^2/6 |s'''| / |s'| (the
     * column's 118 rad per m of rack dominates |s'|, its third derivative in the rack travel of
     * the same order per m^2: 1e-12 x O(1e2) / 118, below 1e-9); rounding u |s| / (e |s'|)
     * plus the closure's: each placement from a pose within 1e-13 of the exact one (the
     * proof's bound), 1e-13 / e = 1e-7 relative to s' of order 1: 1e-6 relative (a wrong term
     * is >= 1e-2) */
    {
        static const double amp[3] = {0.08, 0.1, 0.07};

        vt_rack_derivatives(m->ce, m->ce->rack.off[2] + 4, amp);
    }
    {
        /* past the proven rectangle: refused (the state is rejected), not extrapolated */
        static struct vd_tree_rel rel[2 * VD_NLC_MAXB + 4];
        const double q[3] = {0.0, 0.0, 1.01 * VD_CE_RACK_SMAX}, qd[3] = {0, 0, 0};
        const double q2[3] = {0.16, 0.0, 0.0};

        CHECK(vd_ce_rack_closure(&m->ce->rack, q, qd, rel) == -EDOM,
              "rack travel past the proven range: -EDOM");
        CHECK(vd_ce_rack_closure(&m->ce->rack, q2, qd, rel) == -EDOM,
              "wheel travel past the proven range: -EDOM");
    }
    vd_ce_data_free(cd);
    vd_data_free(d);
    vd_model_free(m);
    /* 4. CE against FA steering from rest (the bound: ce_checks.h) at h = 0.5 ms: at 1 ms the
     * CE form's pitch is not in the first-order regime the bound assumes over the first 0.2 s
     * (the drop from the design pose and the steering step: e(1 ms) / e(0.5 ms) measured 5.5
     * for the pitch angle, 4.5 for its rate, against the 2 x 1.5 the bound allows; 2.1-2.4 for
     * every other signal and for FA), so the 1 ms check passed by a 1 % margin that the
     * derivation does not cover; at 0.5 ms the pitch angle's ratio is 2.7 and the check holds
     * with the bound's margin (worst 0.32 of it) */
    vt_rack_ce_vs_fa(path, 0.5e-3);
    return vt_report("test_cemlrack");
}
