/* tests/core/test_cerack.c - the CE form's rack_pinion steered axle (core/ce_rack.c) on
 * tests/core/rack_ce.yaml (the sedan's steering, double wishbone front and multilink rear with
 * ideal joints; 16 coordinates in CE):
 *   1. at states away from the design pose (travels, rack, steering wheel, chassis pose and
 *      velocities) the placed bodies satisfy every joint of the joint model (g = 0, G v = 0),
 *      every bushing's translation and the gear coupler's error vanish (the rigid gear, the
 *      steering wheel and the column on one axis), and the tree's accelerations satisfy the
 *      joints' acceleration rows (G v' + gamma = 0: the closures' acceleration terms);
 *   2. the rack closure's ds/dq and d kappa/dq against central differences;
 *   3. CE against FA over 0.5 s steering from rest (test_nlcorner part 5's step-size argument).
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

/* the fast Jacobians (core/tree_jac.h) of the sedan with its engine free on its own node (a
 * second free node: the plan's root sweep is off, every coordinate by its own pass) against the
 * reference recursion (vd_tree_jac, cd->ref_jac) from the same state, at two driven states
 * (steering and front drive from rest). The rounding bound of test_ce's fast_vs_ref (test_tree
 * item 6): both within gamma_m sum|terms| of the exact derivative, m <= 64 operations per term,
 * at most 64 nbody terms per entry, each at most Fs (1 + |x|) (1 + |u| + |q''|), Fs the largest
 * subtree spatial force: tol = 2 x 64 u x 64 nbody Fs (1 + |x|) (1 + |u| + |q''|); M and f from
 * the same recursions: equal bit for bit. A Jacobian that moved the engine with the chassis
 * (the root sweep's premise) misses the mounts' stiffness between them: an error of the
 * mounts' 2e5 N/m, far above the bound */
static void free_body_jacobians(struct vd_model *m, struct vd_data *d, const struct vd_ce *ce,
                                struct vd_ce_data *cd)
{
    const int N = ce->tree->n;
    const struct vd_tree_data *td = cd->td;
    static double q0[64], u0[64], z0[64], f[64], M[64 * 64], Jq[64 * 64], Ju[64 * 64];

    CHECK(N <= 64, "%d coordinates", N);
    if (N > 64)
        return;
    vd_data_reset(m, d);
    d->u[vd_model_find_input(m, "front_l.drive")] = 300.0;
    d->u[vd_model_find_input(m, "front_r.drive")] = 300.0;
    d->u[vd_model_find_input(m, "steering.angle")] = 1.0;
    vd_ce_init(m, ce, cd, d);
    for (int s = 0; s < 200; s++) {
        int rc[2];

        if (s % 100 != 99) {
            CHECK(vd_ce_step(m, ce, cd, d) == 0, "step %d", s);
            continue;
        }
        vt_ce_ref_and_fast(m, ce, cd, d, td, s, q0, u0, z0, M, f, Jq, Ju, rc);
        CHECK(rc[0] == 0 && rc[1] == 0, "step %d: reference and fast steps", s);
        vt_ce_fast_vs_ref(ce, cd, td, s, u0, M, f, Jq, Ju, "sedan_ce ", false);
    }
}

/* sedan_joints.yaml (front drive through its elastic half shafts) in CE with the subframe
 * welded: each shaft on a spherical node on its wheel at the outer joint (the drop links'
 * rule: its inner tripod, free in plunge and bending, is no bearing, so not a revolute on
 * the chassis, which would hold the wheel's travel and steer), the engine free: 44
 * coordinates; the shafts' outer translations rigid, their inner tripods and the outer joints'
 * wind-up force elements. The placements as for sedan_ce (the tripods' translations left out:
 * elastic in CE) */
static void shafts(void)
{
    const char *path = "config/vehicles/sedan_joints.yaml";
    struct vd_model *m = vd_cfg_load_model(path, NULL, stderr);
    char err[256];

    CHECK(m != NULL, "load %s", path);
    if (!m)
        return;
    snprintf(m->opt.weld, sizeof(m->opt.weld), "rear.subframe");
    CHECK(!vd_model_set_formulation(m, VD_FORM_CE, err, sizeof(err)) && m->ce, "%s in ce: %s", path,
          m->ce ? "ok" : err);
    if (m->ce) {
        const struct vd_ce *ce = m->ce;

        CHECK(ce->tree->n == 44 && ce->nfree == 1, "44 coordinates (%d), the engine free",
              ce->tree->n);
        for (int s = 0; s < 2; s++) {
            const int sh = vd_model_find_body(m, s ? "front_r.shaft" : "front_l.shaft");
            const int wh = vd_model_find_body(m, s ? "front_r.wheel" : "front_l.wheel");
            const int ts = sh >= 0 ? ce->model_tb[sh] : -1;
            const struct vd_tree_node *n =
                ts >= 0 ? &ce->tree->node[ce->tree->body[ts].node] : NULL;

            CHECK(n && n->type == VD_TREE_SPHERICAL && wh >= 0 && n->parent == ce->model_tb[wh],
                  "%s on a spherical node on its wheel", sh >= 0 ? m->body[sh].name : "shaft");
        }
        {
            struct vd_data *d = vd_data_new(m);
            struct vd_ce_data *cd = vd_ce_data_new(m, ce);

            CHECK(d && cd, "data");
            if (d && cd)
                vt_rack_placements(m, d, ce, cd, 0.2);
            vd_ce_data_free(cd);
            vd_data_free(d);
        }
    }
    vd_model_free(m);
}

int main(void)
{
    const char *path = "tests/core/rack_ce.yaml";
    struct vd_model *m = vd_cfg_load_model(path, NULL, stderr);
    struct vd_data *d;
    struct vd_ce_data *cd;

    CHECK(m != NULL && m->ce != NULL, "load %s (formulation ce)", path);
    if (!m || !m->ce)
        return vt_report("test_cerack");
    CHECK(m->ce->tree->n == 16 && m->ce->has_rack && m->ce->nnlc == 2 && m->ce->ncorner == 2,
          "16 coordinates (%d): the rack node, two multilinks", m->ce->tree->n);
    d = vd_data_new(m);
    cd = vd_ce_data_new(m, m->ce);
    vt_rack_placements(m, d, m->ce, cd, 0.2);
    /* 2. the rack closure's derivatives against central differences, step e = 1e-6 (rad, m),
     * relative to the largest entry (the column turns 130 rad per m of rack: ds up to 1.4e3,
     * d kappa up to 6e5): truncation e^2/6 |s'''| / |s'| with |s'''| / |s'| <= 118^2 (a turn
     * of 118 rad per m, the chain's derivatives scale by it), 2.3e-9; rounding u |s| / (e |s'|)
     * with |s| / |s'| <= 1 m: 2.2e-10; kappa the same: 1e-6 relative (a wrong term is >= 1e-2) */
    {
        static const double amp[3] = {0.1, 0.15, 0.06};

        vt_rack_derivatives(m->ce, 2 * VD_DWC_NB + 4, amp);
    }
    vd_ce_data_free(cd);
    vd_data_free(d);
    vd_model_free(m);
    vt_rack_ce_vs_fa(path, 1e-3);
    /* the sedan in CE (config/vehicles/sedan_ce.yaml: the anti-roll bars' halves on revolutes
     * and drop links on spherical nodes, the engine free on its mounts, the subframe welded):
     * 38 coordinates */
    path = "config/vehicles/sedan_ce.yaml";
    m = vd_cfg_load_model(path, NULL, stderr);
    CHECK(m != NULL && m->ce != NULL && m->ce->tree->n == 38 && m->ce->has_rack &&
              m->ce->nfree == 1 && m->ce->nweld == 1,
          "load %s: 38 coordinates (%d), the engine free, the subframe welded", path,
          m && m->ce ? m->ce->tree->n : -1);
    if (m && m->ce) {
        const int eng = vd_model_find_body(m, "engine");
        const int te = eng >= 0 ? m->ce->model_tb[eng] : -1;

        CHECK(te > 0 && m->ce->tree->node[m->ce->tree->body[te].node].type == VD_TREE_FREE,
              "the engine on a free node of its own");
        /* the locked elements (core/ce_lock.c): the welded subframe's four mounts, the rack's
         * gear coupler (the closure turns the pinion by the gear's ratio) and the pinion's
         * rate-free bearing that only carries it; the engine mounts, the bars' bushings and
         * the wheel bearings move and stay. The proof's largest rate per unit rate: the
         * closures' velocity-level error (<= 6.4e-14, test_dwcorner / above), not 1 */
        CHECK(m->ce->nlock_bush == 5 && m->ce->nlock_cpl == 1 && m->ce->nlock_p2p == 0 &&
                  m->ce->nbu == m->nbush - 5,
              "sedan_ce: locked %d bushings, %d couplers, %d point-to-point elements",
              m->ce->nlock_bush, m->ce->nlock_cpl, m->ce->nlock_p2p);
        CHECK_TOL(m->ce->lock_rate, 6.4e-14, "sedan_ce: the locked elements' rates %.3g",
                  m->ce->lock_rate);
        CHECK(m->ce->lock_proven && m->ce->live_rate >= VD_CE_LOCK_LIVE,
              "sedan_ce: locked-element proof ran %d, smallest moving rate %.3g (gap edge %g)",
              m->ce->lock_proven, m->ce->live_rate, VD_CE_LOCK_LIVE);
        for (int i = 0; i < m->ce->nbu; i++)
            CHECK(strncmp(m->bush[m->ce->bu[i]].name, "rear.mount", 10) &&
                      strcmp(m->bush[m->ce->bu[i]].name, "steering.pinion_bearing"),
                  "sedan_ce: %s not among the step's bushings", m->bush[m->ce->bu[i]].name);
        d = vd_data_new(m);
        cd = vd_ce_data_new(m, m->ce);
        vt_rack_placements(m, d, m->ce, cd, 0.2);
        free_body_jacobians(m, d, m->ce, cd);
        vd_ce_data_free(cd);
        vd_data_free(d);
    }
    vd_model_free(m);
    vt_rack_ce_vs_fa(path, 1e-3);
    shafts();
    return vt_report("test_cerack");
}
