/* app/ref_ida.h - the validation reference of models with ideal joints: the constrained
 * equations of core/joint.h and core/eval.h integrated by SUNDIALS IDA (variable-order,
 * variable-step BDF on F(t, y, y') = 0, Newton with the sparse direct solver KLU on the
 * analytic Jacobian), as app/ref_cvode.h is for models with bushings only. Owns its SUNDIALS
 * context, vectors, matrix and linear solver for the duration of one app_ida_run call. Not
 * real-time: allocates, prints diagnostics. Never in the RT path (app only).
 *
 * Formulation: the stabilized index-2 system of Gear, Gupta and Leimkuhler (GGL, J. Comput.
 * Appl. Math. 12-13 (1985) 77-90; Brenan, Campbell & Petzold, "Numerical Solution of
 * Initial-Value Problems in DAEs", SIAM 1996, ch. 6), in rtvd's velocity coordinates:
 *   r' = K(r) (v + G^T mu)                  (mu = 0 on the exact solution)
 *   v' = M^-1 (h(r, v, z, u) - G^T lambda)
 *   z' = g(r, v, z, u)                       (tyre states)
 *   0  = G(r) v - s'(t)                      (velocity constraint: index 2 in lambda)
 *   0  = g(r, t)                             (position constraint: index 2 in mu)
 * with G = g_r K (core/joint.h), s the driven coordinates. Why this form: both constraint
 * levels hold along the reference at the Newton tolerance, so its drift is nil (an index-1
 * form with the acceleration constraint drifts quadratically in time, and Baumgarte's terms
 * change the solution by an amount that depends on their tuning), and it keeps the Hessenberg
 * index-2 structure for which BDF converges with its order in the differential variables
 * when the multipliers are kept out of the local error test (Brenan, Campbell & Petzold,
 * §3.2; SUNDIALS IDA guide, IDASetSuppressAlg: encouraged for index-2 systems). IDA
 * is written for index 1; here lambda and mu are marked algebraic (IDASetId) and suppressed
 * in the error test, and the consistent initial values are computed here (IDACalcIC needs
 * index 1): r as given (a Gauss-Newton projection onto g = 0 if needed), v projected onto
 * G v = s' (M-weighted), lambda and v' from [M G^T; G 0] [v'; lambda] = [h; s'' - gamma],
 * mu = 0. The same at every input jump, where IDA restarts (see app_ref_scan_jumps). A kink
 * of a driven signal (a jump of s', so of the consistent velocities) is no input jump: IDA
 * passes it by reducing its steps (the four-bar's crank stopped dead: 50 error-test
 * failures, |g| <= 3e-10).
 *
 * State y = [r (nq); v (nq); z (nz); lambda (nc); mu (nc)]. Jacobian dF/dy + cj dF/dy':
 * the (r, v, z) block is cj I - df/dy of the CVODE reference (app_cvode_jac: d(K v)/dr, K,
 * M^-1 Jr, M^-1 Jv, the tyre blocks), plus -K G^T (mu columns), M^-1 G^T (lambda columns),
 * G (velocity-constraint rows, v columns) and g_r = G K^-1 (position rows). Left out: the
 * derivatives of G^T lambda, G^T mu and G v with respect to r (second derivatives of the
 * constraints; the first vanishes with mu, the others are O(h) against the terms kept in
 * the Newton matrix): Newton converges, a little slower.
 *
 * Tolerances: rtol 1e-8; atol as the CVODE reference on r, v, z (1e-10 m and rad on r,
 * 1e-9 on v, 1e-11 m on z); lambda and mu are out of the error test, and their atol (1e3 N
 * or N m, 1 m/s) keeps them out of Newton's convergence test too (IDA weighs every component
 * there): in an index-2 system the multipliers' Newton increments carry the rounding of the
 * other components times 1/h^2 (lambda) and 1/h (mu), 1e3 N at h = 1e-10 s, and with
 * tight weights Newton never converges in IDA's first, tiny steps (measured: failure at
 * t = 2e-10 s with 1e-3 N). Newton is judged on r, v and z; the multipliers follow from them. s'
 * and s'' of driven rows by central differences of the input signals in time (1e-5 s and 1e-3 s:
 * truncation and rounding below 1e-9 of s' for signals of up to 1e3 rad or m; a closed-loop
 * driver's dependence of s on the state is not differentiated). */
#ifndef VD_APP_REF_IDA_H
#define VD_APP_REF_IDA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/data.h"
#include "core/model.h"
#include "ref_cvode.h"

#define APP_IDA_RTOL     APP_CVODE_RTOL /* default relative tolerance */
#define APP_IDA_ATOL     APP_CVODE_ATOL /* default atol of r [m, rad]; v, z as CVODE's */
#define APP_IDA_ATOL_LAM 1e3            /* [N, N m] lambda: Newton weights only */
#define APP_IDA_ATOL_MU  1.0            /* [m/s, rad/s] mu: Newton weights only */
#define APP_IDA_MAXORD   5

struct app_ida_stats {
    long steps;        /* accepted internal steps */
    long res_evals;    /* residual evaluations (F) */
    long jac_evals;    /* analytic Jacobian evaluations */
    long lin_setups;   /* Newton matrix factorizations */
    long newton_iters; /* Newton iterations */
    long newton_fails; /* Newton convergence failures */
    long err_fails;    /* local error test failures */
    long outputs;      /* grid points delivered to out_fn */
    int jumps;         /* input jumps found, each a restart with consistent values */
    int last_order;    /* BDF order of the last step */
    double last_h;     /* [s] last step size */
    double gmax;       /* [m or rad] max |g| at the accepted steps */
    double gvmax;      /* [m/s or rad/s] max |G v - s'| at the accepted steps */
    int64_t wall_ns;   /* [ns] wall time of the whole run */
};

/* init-time (may allocate, not RT-safe) */
/* Integrate a model with joints (m->nc > 0) from d's state (d->t, d->r, d->v, d->z) to t_end,
 * as app_cvode_run: inputs from d->input_fn (or the held d->u), out_fn (may be NULL) at
 * t_k = k dt_out with d's state interpolated and d->jlam the multipliers, rtol/atol <= 0 for
 * the defaults, st (may be NULL) also on error. d's positions must satisfy the constraints
 * to about 1e-6 (a projection makes them exact); the velocities are projected. 0, out_fn's
 * non-zero return, or -errno with a message on stderr: -EINVAL (arguments, no joints),
 * -ENOMEM, -EDOM (non-finite forces, singular constraints), -ERANGE (IDA gave up). */
int app_ida_run(const struct vd_model *m, struct vd_data *d, double t_end, double dt_out,
                double rtol, double atol, app_cvode_out_fn out_fn, void *ctx,
                struct app_ida_stats *st);

/* the pieces handed to IDA, exposed for the tests. N = app_ida_dim(m); work holds
 * app_ida_nwork(m) doubles. None commits discrete element states. */
int app_ida_dim(const struct vd_model *m);
size_t app_ida_nwork(const struct vd_model *m);
/* res = F(t, y, yp); the inputs are not sampled outside [t_lo, t_hi] (the segment between
 * input jumps: s' one-sided near its ends); 0 or -EDOM */
int app_ida_res(const struct vd_model *m, struct vd_data *d, double t, double t_lo, double t_hi,
                const double *y, const double *yp, double *res, double *work);
/* J = dF/dy + cj dF/dy' (t, y), column-major N x N, the terms of the header; 0 or -EDOM */
int app_ida_jac(const struct vd_model *m, struct vd_data *d, double t, double cj, const double *y,
                double *J, double *work);
/* the structural non-zeros of app_ida_jac as an N x N column-major mask (malloc'ed; NULL:
 * out of memory): CVODE's pattern (app_cvode_pattern, inbody as there, may be NULL) for
 * the (r, v, z) block, the constraint blocks of each row's two bodies, the diagonal */
unsigned char *app_ida_mask(const struct vd_model *m, const bool *inbody);
/* consistent y, yp at t from d's r, v, z (see the header); 0, -EDOM (non-finite forces,
 * singular G M^-1 G^T) or -ERANGE (positions not projected onto g = 0 in 20 iterations) */
int app_ida_consistent(const struct vd_model *m, struct vd_data *d, double t, double t_lo,
                       double t_hi, double *y, double *yp, double *work);

#endif /* VD_APP_REF_IDA_H */
