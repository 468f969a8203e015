/* core/step.h - linearly implicit integrators for r' = K(r) v, M v' = h(r, v, u):
 *   LIE   linearly implicit Euler (numerics.md §2.1), order 1, L-stable;
 *   LSRT2 two-stage L-stable Rosenbrock/W method with gamma_11 = gamma_22 (one LU per
 *         linearization), in the W-form of numerics.md §1.5 with the RMID coefficients,
 *         which keeps order 2 when K(r) varies and when the linearization is frozen.
 * Both share S = M - dt g Jv - (dt g)^2 Jr K (g = 1 for LIE), refreshed every opt.relin steps.
 * vd_step (a dispatch to step_lie, step_lsrt2_w, step_lsrt2_lin in step.c; the matrix work in
 * solve.c): RT-safe; fixed operation count, no allocation, no syscalls (clock_gettime is vDSO). */
#ifndef VD_CORE_STEP_H
#define VD_CORE_STEP_H

#include "data.h"
#include "model.h"
#include "solve.h" /* assembly, factorization, solve; vd_solver_warmup (init-time) */

/* LSRT2 (RMID member of the family of numerics.md §1.3) */
#define VD_LSRT2_GAMMA 0.29289321881345254 /* 1 - sqrt(2)/2: L-stability */
#define VD_LSRT2_A21   0.5
#define VD_LSRT2_G21   (-VD_LSRT2_GAMMA)
#define VD_LSRT2_B1    0.0
#define VD_LSRT2_B2    1.0
#define VD_LSRT2_C2    0.5

/* RT-safe */
/* advance d->r, d->v by one step of m->opt.dt; d->t += dt. 0 or -errno; on error (NaN,
 * singular matrix, arena) the state is left unchanged and the cause is counted in d->warn */
int vd_step(const struct vd_model *m, struct vd_data *d);
/* evaluate kinematics and element results (timed into d->outputs_ns) at the current state (for
 * outputs/signals): the inputs at d->t first (d->input_fn into d->u, if installed), then h
 * into d->h (the sensor accelerations use it) and, with joints, the constraint values into
 * d->jg */
int vd_outputs(const struct vd_model *m, struct vd_data *d);

#endif /* VD_CORE_STEP_H */
