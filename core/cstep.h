/* core/cstep.h - the linearly implicit Euler step of a model with joints (numerics.md §2.2,
 * the LIE paper's Alg. 1 and 2): the index-2 system with the velocity constraint at t + dt,
 * G_n v_{n+1} = s', solved in the form of opt.constraints (core/csolve.h), then the
 * non-iterative projection of the positions onto g = 0 (one simplified Newton step with the
 * factors of the step) and, with opt.project both, of the velocities onto G v = s'. The
 * linearization is refreshed every step (G must be current). vd_step dispatches here when
 * m->nc > 0. With opt.method lsrt2 both stages of the W-form (numerics.md §1.5, RMID) are
 * solved on the same augmented matrix with G_n, stage i's constraint rows in the method's
 * own form, G_n (v + dt (beta_i1 k_1 + gamma k_i)) = s'; measured first order all the same
 * (0.96 .. 0.99 on a free pendulum from dt = 2 ms to 0.25 ms, tests/core/test_mechanism.c),
 * with an error about 28 % below the LIE's: order 2 is not kept.
 * RT-safe: fixed operation count, no allocation, no syscalls but the vDSO clock. */
#ifndef VD_CORE_CSTEP_H
#define VD_CORE_CSTEP_H

#include "data.h"
#include "model.h"

/* RT-safe */
/* one step; 0 or -errno as vd_step (state unchanged on error). d->cres: max |g| at the start
 * of the step, d->jlam: the multipliers */
int vd_step_constrained(const struct vd_model *m, struct vd_data *d);

#endif /* VD_CORE_CSTEP_H */
