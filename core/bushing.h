/* core/bushing.h - internal to core: six-component bushings and the gear couplers between
 * two bushing components. vd_bushing_group_eval is the four-lane kernel (lanes are bushings,
 * GCC vector extensions); its scalar twin (bushing_kin, bushing_law, bushing_apply, beside it
 * in bushing.c) serves the couplers and the lanes whose law is not linear, with the same
 * operations in the same order, so both give the same bits. Forces go into h, Jacobian
 * blocks into d->Jp, d->Jvb, d->Ju (elem.h). All RT-safe: no allocation, fixed work. */
#ifndef VD_CORE_BUSHING_H
#define VD_CORE_BUSHING_H

#include <stdbool.h>

#include "data.h"
#include "model.h"

/* lanes of vd_bushing_group_eval: 4 doubles, two SSE2 registers or one AVX register */
#define VD_BUSHING_LANES 4

/* RT-safe */
/* bushings e0 .. e0 + n - 1 (n <= VD_BUSHING_LANES); with commit, the unwrapped angles and friction
 * anchors of the bushings are updated (an accepted state) */
void vd_bushing_group_eval(const struct vd_model *m, struct vd_data *d, int e0, int n,
                           const double *u, double *h, bool jac, bool commit);
/* the same for the bushings ix[0 .. n) (n <= VD_BUSHING_LANES, increasing: a subset, the CE
 * step's, core/ce.h), with vd_bushing_group_eval's bits for each */
void vd_bushing_group_eval_ix(const struct vd_model *m, struct vd_data *d, const int *ix, int n,
                              const double *u, double *h, bool jac, bool commit);
/* coupler e; its bushings' angles must have been committed in this evaluation already */
void vd_coupler_eval(const struct vd_model *m, struct vd_data *d, int e, double *h, bool jac);
/* bushing e's component coordinates q and rates qd (x y z rx ry rz, model.h) at the marker
 * kinematics in d, as its evaluation computes them, without committing anything (init-time
 * use: the CE form's locked elements, core/ce_lock.c) */
void vd_bushing_coords(const struct vd_model *m, struct vd_data *d, int e, double q[6],
                       double qd[6]);

#endif /* VD_CORE_BUSHING_H */
