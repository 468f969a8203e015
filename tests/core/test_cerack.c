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
     * and drop links on spherical nodes, the engine and subframe welded): 32 coordinates */
    path = "config/vehicles/sedan_ce.yaml";
    m = vd_cfg_load_model(path, NULL, stderr);
    CHECK(m != NULL && m->ce != NULL && m->ce->tree->n == 32 && m->ce->has_rack,
          "load %s: 32 coordinates (%d)", path, m && m->ce ? m->ce->tree->n : -1);
    if (m && m->ce) {
        d = vd_data_new(m);
        cd = vd_ce_data_new(m, m->ce);
        vt_rack_placements(m, d, m->ce, cd, 0.2);
        vd_ce_data_free(cd);
        vd_data_free(d);
    }
    vd_model_free(m);
    vt_rack_ce_vs_fa(path, 1e-3);
    return vt_report("test_cerack");
}
