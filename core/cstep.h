/* core/cstep.h - the linearly implicit Euler step of a model with joints (numerics.md §2.2,
 * the LIE paper's Alg. 1 and 2): the index-2 system with the velocity constraint at t + dt,
 * G_n v_{n+1} = s', solved in the form of opt.constraints (core/csolve.h), then the
 * non-iterative projection of the positions onto g = 0 (one simplified Newton step with the
 * factors of the step) and, with opt.project both, of the velocities onto G v = s'. The
 * linearization is refreshed every step (G must be current). vd_step dispatches here when
 * m->nc > 0. RT-safe: fixed operation count, no allocation, no syscalls but the vDSO clock. */
#ifndef VD_CORE_CSTEP_H
#define VD_CORE_CSTEP_H

#include "data.h"
#include "model.h"

/* RT-safe */
/* one step; 0 or -errno as vd_step (state unchanged on error). d->cres: max |g| at the start
 * of the step, d->jlam: the multipliers */
int vd_step_constrained(const struct vd_model *m, struct vd_data *d);

#endif /* VD_CORE_CSTEP_H */
