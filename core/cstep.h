/* core/cstep.h - the linearly implicit Euler step of a model with joints (numerics.md §2.2,
 * the LIE paper's Alg. 1 and 2): the index-2 system with the velocity constraint at t + dt,
 * G_n v_{n+1} = s', solved in the form of opt.constraints (core/csolve.h), then the
 * non-iterative projection of the positions onto g = 0 (one simplified Newton step with the
 * factors of the step) and, with opt.project both, of the velocities onto G v = s'. The
 * linearization is refreshed every step (G must be current). vd_step dispatches here when
 * m->nc > 0.
 *
 * With opt.method lsrt2 the constraints enter at acceleration level (index 1) and the
 * projection after the step restores g = 0 (and G v = s'): the method is then the W-form
 * LSRT2 (numerics.md §1.5, RMID) applied to the underlying ODE r' = K v, v' = a(r, v), with
 * M a + G^T l = h, G a = s'' - gamma, followed by a projection, and keeps order 2 (Hairer &
 * Wanner II, §VII.2: a projection after each step keeps the order of the method on the
 * underlying ODE). Both stages solve [S G_n^T; G_n 0] [k_i; l_i] = [b_i; c_i], the same
 * factors as the LIE. This equals a W-method step with W = [[0, K_n], [P M^-1 Jr,
 * P M^-1 Jv]], P = I - M^-1 G_n^T (G_n M^-1 G_n^T)^-1 G_n, provided b_i - G_n^T l (some l) and c_i
 * are M a_i and G_n a_i of the exact stage acceleration a_i; the W-conditions of RMID (b2 a21 =
 * 1/2) make any W order 2 (Hairer & Wanner II, §IV.7). At stage 1 (r_n, v_n): c_1 = s'' -
 * gamma_n, b_1 = h_n + ... exactly. At stage 2 G_2 = G(r_a) differs from G_n by O(dt):
 *   b_2 = h_2 + ... - (G_2 - G_n)^T l_1,   c_2 = s'' - gamma_2 - (G_2 - G_n) k_1,
 * with l_1, k_1 (O(dt) from l_2, a_2) in place of the unknown stage values: an O(dt^2)
 * error in k_2, O(dt^3) per step. The velocity constraint of the earlier index-2 form
 * (G_n (v + dt (beta_i1 k_1 + gamma k_i)) = s') holds G v = s' at r_n, not at r_{n+1}: an
 * O(dt) error of the velocity across the constraints at every step, hence order 1 (0.96 ..
 * 0.99 measured). Extra work over the index-2 form: one back-substitution (the start velocity
 * made consistent, G_n v = s'(t), with the factors), the joints evaluated at the stage
 * point, and four products with G. s' and s'' of driven rows from s at t, t + dt/2, t + dt.
 * Measured (tests/core/test_mechanism.c): order 2.00 .. 2.04 on a free pendulum in both
 * forms, 2.07 .. 2.23 on a free slider-crank (self-convergence), 1e-9 rad / 3e-12 m from
 * the closed form on the driven four-bar / slider-crank over 60 s.
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
