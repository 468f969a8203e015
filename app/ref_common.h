/* app/ref_common.h - what the SUNDIALS references share (app/ref_cvode.c, app/ref_ida.c;
 * defined in app/ref_common.c): the run's allocations, the inputs of trial evaluations, the
 * output grid, the input-jump segments, the sparse Jacobian's fill, the commit of an accepted
 * state, the messages of failed SUNDIALS calls. app_ref_scan_jumps and app_cvode_input_bodies
 * are in ref_cvode.h. Not real-time (allocates). */
#ifndef VD_APP_REF_COMMON_H
#define VD_APP_REF_COMMON_H

#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_nvector.h>
#include <sundials/sundials_types.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <stdbool.h>

#include "core/model.h"
#include "ref_cvode.h"

/* the input function of trial evaluations: d->input_peek (a closed-loop driver's commands
 * from the accepted state, its own state untouched), else d->input_fn (NULL: none) */
vd_input_fn app_ref_trial_fn(const struct vd_data *d);
/* the inputs at time t of a trial evaluation into d->u (app_ref_trial_fn; none: d->u held) */
void app_ref_inputs_at(struct vd_data *d, double t);

/* the ODE part of a state y = [r; v; z] (2 nq + nz) into d->r, d->v, d->z, and back */
void app_ref_ode_to_data(const struct vd_model *m, struct vd_data *d, const double *y);
void app_ref_ode_from_data(const struct vd_model *m, const struct vd_data *d, double *y);
/* the absolute tolerance of component i of y = [r; v; z] for atol that of r: atol on r,
 * APP_CVODE_ATOL_V atol on v, APP_CVODE_ATOL_Z atol on z */
double app_ref_atol(const struct vd_model *m, int i, double atol);

/* res = M^-1 x for the 6 rows of body b: x / m (translation), I^-1 x (rotation) */
void app_ref_minv_body(const struct vd_model *m, int b, double res[6], const double x[6]);
/* the CSC matrix J (n x n, room for nnz) from the run's pattern (colptr, rowval) and the
 * dense Jacobian jd (column-major, n x n): SUNDIALS zeroes the index arrays along with the
 * values, so they are set on every call */
void app_ref_csc_fill(SUNMatrix J, sunindextype n, sunindextype nnz, const sunindextype *colptr,
                      const sunindextype *rowval, const double *jd);

/* the input-jump segments of a run (see "input jumps" in ref_cvode.c): the solver integrates
 * up to `end` and restarts there; the inputs are evaluated inside [tu_min, tu_max], the
 * segment's side of its jumps */
struct app_ref_segs {
    const struct app_jump *jump;
    int n, i;              /* jumps, the next one */
    double eps, t_end;     /* [s] */
    double tu_min, tu_max; /* [s] input time window of the current segment */
    double end;            /* [s] where the current segment ends */
};

/* the first segment from t0; a jump (nearly) at t0 applies from the start */
void app_ref_segs_start(struct app_ref_segs *s, const struct app_jump *jump, int n, double t0,
                        double t_end, double eps);
/* at an accepted time tcur: true when tcur ends a segment before t_end (the solver then
 * restarts), with s moved to the next segment */
bool app_ref_segs_next(struct app_ref_segs *s, double tcur);
/* the time the inputs are evaluated at for a solver's t */
double app_ref_segs_tu(const struct app_ref_segs *s, double t);

/* a run's arguments: 0, or -EINVAL with a message (`rtvd: <who>: bad arguments`) for an
 * output step that is not positive or an end before t0 or not finite; a tolerance <= 0 is set
 * to its default */
int app_ref_check_args(const char *who, double t0, double t_end, double dt_out, double *rtol,
                       double *atol, double rtol_default, double atol_default);

/* what the shared run needs of one SUNDIALS integrator (one constant per reference) */
struct app_ref_solver {
    const char *who;               /* "cvode" | "ida": the messages' prefix */
    int warning;                   /* CV_WARNING | IDA_WARNING: a warning's code */
    char *(*flag_name)(long flag); /* CVodeGetReturnFlagName | IDAGetReturnFlagName (allocs) */
    int (*flag_errno)(int flag);   /* the integrator's return flag -> -errno */
    /* d's state (r, v, z, ...) from the integrator's y */
    void (*to_data)(const struct vd_model *m, struct vd_data *d, const double *y);
};

/* one reference run: the solver callbacks' user data and everything the run allocates */
#define APP_REF_NVEC 5
struct app_ref_run {
    const struct vd_model *m;
    struct vd_data *d;
    const struct app_ref_solver *sv;
    app_cvode_out_fn out_fn;       /* the caller's output (may be NULL) */
    void *ctx;                     /* its context */
    double *work;                  /* the solver's scratch */
    double *jd;                    /* (n x n) the dense Jacobian, gathered into the pattern */
    double *saved;                 /* (7 nbush) discrete element states around an output */
    sunindextype n, nnz;           /* dimension, structural non-zeros */
    sunindextype *colptr, *rowval; /* (n + 1), (nnz): the pattern of the run */
    struct app_jump *jumps;        /* app_ref_scan_jumps */
    struct app_ref_segs seg;       /* the input-jump segments */
    SUNContext sun;
    N_Vector vec[APP_REF_NVEC]; /* vec[0] the state, the others clones of it */
    SUNMatrix A;                /* (n x n, nnz) CSC */
    SUNLinearSolver LS;         /* KLU on A */
};

/* "rtvd: <who>: out of memory (N = <n>)"; -ENOMEM */
int app_ref_nomem(const struct app_ref_run *r);
/* the solver's error handler (CVodeSetErrHandlerFn, IDASetErrHandlerFn; user: the run):
 * "rtvd: <who>: warning|error: <module>: <fn>: <msg>" */
void app_ref_err_handler(int code, const char *module, const char *fn, char *msg, void *user);
/* a failed SUNDIALS call: "rtvd: <who>: <call> failed: <flag name> (<flag>)"; -errno */
int app_ref_fail(const struct app_ref_run *r, const char *call, int flag);
/* a failed step at t: "rtvd: <who>: integration stopped at t = ...: <flag name> (<flag>)";
 * -errno */
int app_ref_stopped(const struct app_ref_run *r, double t, int flag);
/* a SUNDIALS call inside a run function: a negative flag sets rc (app_ref_fail) and jumps to
 * the function's out_free label */
#define APP_REF_CALL(r, call)                                                                      \
    do {                                                                                           \
        int flag_ = (call);                                                                        \
        if (flag_ < 0) {                                                                           \
            rc = app_ref_fail((r), #call, flag_);                                                  \
            goto out_free;                                                                         \
        }                                                                                          \
    } while (0)

/* r's SUNDIALS context and work (nwork doubles), jd and saved; 0 or -ENOMEM (message
 * printed). r->m, d, sv, out_fn, ctx and n set by the caller. */
int app_ref_run_alloc(struct app_ref_run *r, size_t nwork);
/* vec[0] (n) and nvec - 1 clones, then A (n x n, r->nnz from the pattern the caller built
 * into colptr, rowval when pattern_rc == 0) and KLU on it; 0 or -ENOMEM (message printed) */
int app_ref_run_linsol(struct app_ref_run *r, int nvec, int pattern_rc);
/* free what r holds, the integrator's own memory already freed (SUNDIALS' order: the
 * context last) */
void app_ref_run_free(struct app_ref_run *r);
/* the input jumps of r's run from t0 to t_end (app_ref_scan_jumps at the finer of dt_out and
 * the model's step) into r->jumps, their number into *njump, and its first segment into
 * r->seg; 0 or -ENOMEM (message printed) */
int app_ref_run_jumps(struct app_ref_run *r, double t0, double t_end, double dt_out, double eps,
                      int *njump);

/* the output grid k dt_out (k integer) of a run to t_end */
struct app_ref_grid {
    long k;
    double dt, eps, t_end; /* [s] */
};

/* the grid from t0: true, with *tk = t0's grid time, when t0 is itself a grid point (within
 * eps, not past t_end); that point is then taken */
bool app_ref_grid_start(struct app_ref_grid *g, double t0, double t_end, double dt, double eps,
                        double *tk);
/* the next grid point inside a step that ended at tcur: true with its time *tk and where to
 * interpolate, *tq = min(tk, tcur) (the last point may exceed t_end by the rounding of
 * k dt); the point is taken */
bool app_ref_grid_next(struct app_ref_grid *g, double tcur, double *tk, double *tq);

/* one output at grid time t of the solver's (interpolated) y: d's state (r->sv->to_data), the
 * inputs at t (app_ref_inputs_at), vd_outputs, r->out_fn, counted in *outputs when it
 * succeeds; the discrete element states vd_outputs commits are put back from r->saved, so the
 * grid does not change the solution */
int app_ref_output(struct app_ref_run *r, double t, const double *y, long *outputs);
/* the accepted state y at t: d's state (r->sv->to_data), d->t, the inputs at t (d->input_fn,
 * which also advances a driver's state to t), the discrete element states committed
 * (vd_eval_ex); 0, or -EDOM with a message (at the initial state or at an accepted t) */
int app_ref_commit(struct app_ref_run *r, double t, const double *y, bool initial);

#endif /* VD_APP_REF_COMMON_H */
