/* app/ref_cvode.h - the validation reference solver: the model equations of core/eval.h
 *   r' = K(r) v,  M v' = h(r, v, z, u(t)),  z' = g(r, v, z, u(t))
 * integrated by SUNDIALS CVODE (BDF, variable order 1..5, variable step, Newton with the
 * sparse direct solver KLU on the analytic Jacobian), as Simpack's SODASRT and ode23tb were in the
 * LSRT2 suspension paper. Owns its SUNDIALS context, vectors, matrix and linear solver for the
 * duration of one app_cvode_run call. Not real-time: allocates, prints diagnostics, takes
 * as long as the tolerances demand. Never in the RT path (app only; core/rt/io do not link
 * SUNDIALS).
 *
 * State y = [r (nq); v (nq); z (nz)], N = 2 nq + nz. Jacobian df/dy (column-major N x N):
 *   [ d(K v)/dr        K            0      ]
 *   [ M^-1 Jr          M^-1 Jv      M^-1 Jz]
 *   [ Gp diag(I, T)    Gv           Gz     ]
 * with Jr, Jv, Jz, Gp, Gv, Gz from vd_eval_ex (jac) and d(K v)/dr derived from the Cardan
 * kinematics (vd_cardan_Einv; see app_cvode_jac). Inputs depend on t only: no Ju term.
 *
 * Discrete element states (unwrapped angles d->bush_phi, friction anchors d->bush_anchor)
 * are committed once per accepted CVODE step, at its end (CV_ONE_STEP); every other
 * evaluation leaves them alone, so the right-hand side is one smooth function within a step.
 * Outputs are interpolated (CVodeGetDky) to the grid and do not change the integration.
 * Jumps of the inputs (load steps) are located before the run by sampling d->input_fn every
 * min(dt_out, opt.dt) and bisecting; the integration stops at each, and BDF restarts there
 * with the inputs after the jump (see app_ref_scan_jumps). No step is longer than
 * m->opt.dt, so an excitation the fixed-step solvers see (a road obstacle passed at speed,
 * a short smooth pulse) cannot fall between two steps when the model rests near equilibrium.
 *
 * Tolerances (CVODE's weighted RMS norm, per component |e_i| <~ rtol |y_i| + atol_i):
 *   rtol 1e-8; atol 1e-10 m and 1e-10 rad on r (bushing deflections are differences of
 *   positions: 1e-10 m on a 1e7 N/m bushing is 1e-3 N), 1e-9 m/s and rad/s on v (a velocity
 *   error e_v shows as a position error e_v / omega, and the slowest modes of interest, the
 *   body modes, have omega ~ 10 rad/s), 1e-11 m on the tyre carcass deflections z. Measured
 *   on the quarter car (3 s, drop and payload step) against rtol 1e-12: 1e-10 m on chassis.z,
 *   2e-4 N on strut.force, 6e-10 rad on the arms; atol is what limits it. */
#ifndef VD_APP_REF_CVODE_H
#define VD_APP_REF_CVODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/data.h"
#include "core/model.h"

#define APP_CVODE_RTOL   1e-8  /* default relative tolerance */
#define APP_CVODE_ATOL   1e-10 /* default absolute tolerance of r [m, rad] */
#define APP_CVODE_ATOL_V 10.0  /* atol of v [m/s, rad/s] = APP_CVODE_ATOL_V [1/s] * atol */
#define APP_CVODE_ATOL_Z 0.1   /* atol of z [m] = APP_CVODE_ATOL_Z * atol */
#define APP_CVODE_MAXORD 5

struct app_cvode_stats {
    long steps;        /* accepted internal steps */
    long rhs_evals;    /* right-hand side evaluations (f) */
    long jac_evals;    /* analytic Jacobian evaluations */
    long lin_setups;   /* Newton matrix factorizations (M = I - gamma J) */
    long newton_iters; /* Newton iterations */
    long newton_fails; /* Newton convergence failures */
    long err_fails;    /* local error test failures */
    long outputs;      /* grid points delivered to out_fn */
    int jumps;         /* input jumps found (d->input_fn), each a segment end */
    int restarts;      /* BDF restarts at input jumps (CVodeReInit) */
    int last_order;    /* BDF order of the last step */
    double last_h;     /* [s] last step size */
    int64_t wall_ns;   /* [ns] wall time of the whole run */
};

/* called at every output grid point with d->t, d->r, d->v, d->z, d->u set to the
 * interpolated state and the element results of vd_outputs() in d; a non-zero return
 * stops the integration and is returned by app_cvode_run */
typedef int (*app_cvode_out_fn)(void *ctx, const struct vd_model *m, struct vd_data *d);

/* init-time (may allocate, not RT-safe) */
/* Integrate from d's state (d->t, d->r, d->v, d->z) to t_end. d->input_fn (or, if NULL,
 * the held d->u) gives the inputs at the time of each evaluation. out_fn (may be NULL) is
 * called at t_k = k dt_out for every k with d->t <= t_k <= t_end (within 1e-9 dt_out).
 * rtol <= 0: APP_CVODE_RTOL; atol <= 0: APP_CVODE_ATOL, the tolerance of r [m, rad] (v and z
 * get the fixed multiples above). st (may be NULL) receives the statistics, also on error.
 * On return d holds the state at t_end (or where it stopped). 0, out_fn's non-zero return,
 * or -errno with a message on stderr: -EINVAL (arguments; a model with joints: see
 * app/ref_ida.h), -ENOMEM, -EDOM (non-finite
 * forces that step reduction cannot avoid), -ERANGE (CVODE gave up: too much work, error
 * or convergence test failures at the minimum step). */
int app_cvode_run(const struct vd_model *m, struct vd_data *d, double t_end, double dt_out,
                  double rtol, double atol, app_cvode_out_fn out_fn, void *ctx,
                  struct app_cvode_stats *st);

/* a jump of the inputs: u(lo) before, u(hi) after, lo and hi adjacent doubles [s] */
struct app_jump {
    double lo, hi;
};
/* the jumps of d->input_fn in (t0, t_end], sampled every h (see "input jumps" in
 * ref_cvode.c; d->input_peek is used if set), into *out (malloc'ed, sorted, the caller frees);
 * count or -ENOMEM. Shared with the IDA reference (app/ref_ida.h) */
int app_ref_scan_jumps(const struct vd_model *m, struct vd_data *d, double t0, double t_end,
                       double h, struct app_jump **out);
/* the bodies whose coordinates move the inputs of d->input_peek at (t, d's state): flags
 * (nbody) set where a relative change of 1e-6 in any of the body's r or v changes u; none
 * without d->input_peek. work: 2 ninput. (A closed-loop driver reads its vehicle's chassis.) */
void app_cvode_input_bodies(const struct vd_model *m, struct vd_data *d, double t, bool *flags,
                            double *work);

/* the SUNDIALS version linked, e.g. "6.4.1" */
const char *app_cvode_version(void);

/* the pieces handed to CVODE, exposed for the tests. N = app_cvode_dim(m); work holds
 * app_cvode_nwork(m) doubles. Neither commits discrete element states. */
int app_cvode_dim(const struct vd_model *m);
size_t app_cvode_nwork(const struct vd_model *m);
/* ydot = f(t, y); 0 or -EDOM */
int app_cvode_rhs(const struct vd_model *m, struct vd_data *d, double t, const double *y,
                  double *ydot, double *work);
/* J = df/dy (t, y), column-major N x N; 0 or -EDOM */
int app_cvode_jac(const struct vd_model *m, struct vd_data *d, double t, const double *y, double *J,
                  double *work);
/* the structural non-zeros of df/dy in compressed-sparse-column form: colptr (N + 1),
 * rowval (the count) sorted by row within each column, the diagonal included; either may be
 * NULL (counting only). inbody (nbody, may be NULL): the bodies whose r and v a closed-loop
 * driver reads (every v row gets their columns). The count, or -ENOMEM */
int app_cvode_pattern(const struct vd_model *m, const bool *inbody, long *colptr, long *rowval);

#endif /* VD_APP_REF_CVODE_H */
