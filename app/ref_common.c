/* app/ref_common.c - what the SUNDIALS references share (see ref_common.h). */
#include "ref_common.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_klu.h>

#include "core/eval.h"
#include "core/step.h"
#include "core/vdmath.h"

vd_input_fn app_ref_trial_fn(const struct vd_data *d)
{
    return d->input_peek ? d->input_peek : d->input_fn;
}

void app_ref_inputs_at(struct vd_data *d, double t)
{
    vd_input_fn fn = app_ref_trial_fn(d);

    if (fn)
        fn(d->input_ctx, t, d->u);
}

void app_ref_ode_to_data(const struct vd_model *m, struct vd_data *d, const double *y)
{
    memcpy(d->r, y, (size_t)m->nq * sizeof(double));
    memcpy(d->v, y + m->nq, (size_t)m->nq * sizeof(double));
    memcpy(d->z, y + 2 * m->nq, (size_t)m->nz * sizeof(double));
}

void app_ref_ode_from_data(const struct vd_model *m, const struct vd_data *d, double *y)
{
    memcpy(y, d->r, (size_t)m->nq * sizeof(double));
    memcpy(y + m->nq, d->v, (size_t)m->nq * sizeof(double));
    memcpy(y + 2 * m->nq, d->z, (size_t)m->nz * sizeof(double));
}

double app_ref_atol(const struct vd_model *m, int i, double atol)
{
    return i < m->nq ? atol : (i < 2 * m->nq ? APP_CVODE_ATOL_V * atol : APP_CVODE_ATOL_Z * atol);
}

void app_ref_minv_body(const struct vd_model *m, int b, double res[6], const double x[6])
{
    const double im = 1.0 / m->body[b].mass;

    res[0] = im * x[0];
    res[1] = im * x[1];
    res[2] = im * x[2];
    vdu_mat3_vec(res + 3, m->minv_inertia + 9 * b, x + 3);
}

void app_ref_csc_fill(SUNMatrix J, sunindextype n, sunindextype nnz, const sunindextype *colptr,
                      const sunindextype *rowval, const double *jd)
{
    sunindextype *cp = SUNSparseMatrix_IndexPointers(J), *rv = SUNSparseMatrix_IndexValues(J);
    double *x = SUNSparseMatrix_Data(J);

    memcpy(cp, colptr, (size_t)(n + 1) * sizeof(*cp));
    memcpy(rv, rowval, (size_t)nnz * sizeof(*rv));
    for (sunindextype j = 0; j < n; j++)
        for (sunindextype k = cp[j]; k < cp[j + 1]; k++)
            x[k] = jd[(size_t)rv[k] + (size_t)n * (size_t)j];
}

void app_ref_segs_start(struct app_ref_segs *s, const struct app_jump *jump, int n, double t0,
                        double t_end, double eps)
{
    *s = (struct app_ref_segs){.jump = jump, .n = n, .eps = eps, .t_end = t_end};
    s->tu_min = t0;
    s->tu_max = INFINITY;
    while (s->i < n && jump[s->i].lo - t0 <= eps)
        s->tu_min = jump[s->i++].hi;
    s->end = s->i < n ? jump[s->i].hi : t_end;
    if (s->i < n)
        s->tu_max = jump[s->i].lo;
}

bool app_ref_segs_next(struct app_ref_segs *s, double tcur)
{
    if (!(tcur >= s->end && tcur < s->t_end))
        return false;
    s->tu_min = s->jump[s->i++].hi;
    while (s->i < s->n && s->jump[s->i].lo - tcur <= s->eps)
        s->tu_min = s->jump[s->i++].hi;
    s->end = s->i < s->n ? s->jump[s->i].hi : s->t_end;
    s->tu_max = s->i < s->n ? s->jump[s->i].lo : INFINITY;
    return true;
}

double app_ref_segs_tu(const struct app_ref_segs *s, double t)
{
    return fmin(fmax(t, s->tu_min), s->tu_max);
}

int app_ref_check_args(const char *who, double t0, double t_end, double dt_out, double *rtol,
                       double *atol, double rtol_default, double atol_default)
{
    if (!(dt_out > 0.0) || !(t_end >= t0) || !isfinite(t_end)) {
        fprintf(stderr, "rtvd: %s: bad arguments (t %g .. %g, dt_out %g)\n", who, t0, t_end,
                dt_out);
        return -EINVAL;
    }
    if (*rtol <= 0.0)
        *rtol = rtol_default;
    if (*atol <= 0.0)
        *atol = atol_default;
    return 0;
}

int app_ref_run_jumps(struct app_ref_run *r, double t0, double t_end, double dt_out, double eps,
                      int *njump)
{
    const struct vd_model *m = r->m;
    const int n = app_ref_scan_jumps(m, r->d, t0, t_end,
                                     m->opt.dt > 0.0 ? fmin(dt_out, m->opt.dt) : dt_out, &r->jumps);

    if (n < 0) {
        fprintf(stderr, "rtvd: %s: out of memory\n", r->sv->who);
        return n;
    }
    app_ref_segs_start(&r->seg, r->jumps, n, t0, t_end, eps);
    *njump = n;
    return 0;
}

int app_ref_nomem(const struct app_ref_run *r)
{
    fprintf(stderr, "rtvd: %s: out of memory (N = %ld)\n", r->sv->who, (long)r->n);
    return -ENOMEM;
}

void app_ref_err_handler(int code, const char *module, const char *fn, char *msg, void *user)
{
    const struct app_ref_run *r = user;

    fprintf(stderr, "rtvd: %s: %s: %s: %s: %s\n", r->sv->who,
            code == r->sv->warning ? "warning" : "error", module, fn, msg);
}

/* "rtvd: <who>: <what>: <flag name> (<flag>)"; the flag as -errno */
static int flag_msg(const struct app_ref_run *r, const char *what, int flag)
{
    char *s = r->sv->flag_name(flag);

    fprintf(stderr, "rtvd: %s: %s: %s (%d)\n", r->sv->who, what, s ? s : "?", flag);
    free(s);
    return r->sv->flag_errno(flag);
}

int app_ref_fail(const struct app_ref_run *r, const char *call, int flag)
{
    char what[512];

    snprintf(what, sizeof(what), "%s failed", call);
    return flag_msg(r, what, flag);
}

int app_ref_stopped(const struct app_ref_run *r, double t, int flag)
{
    char what[64];

    snprintf(what, sizeof(what), "integration stopped at t = %.9g s", t);
    return flag_msg(r, what, flag);
}

int app_ref_run_alloc(struct app_ref_run *r, size_t nwork)
{
    const size_t n = (size_t)r->n, nb = (size_t)(r->m->nbush ? r->m->nbush : 1);

    if (SUNContext_Create(NULL, &r->sun)) {
        r->sun = NULL;
        fprintf(stderr, "rtvd: %s: SUNContext_Create failed\n", r->sv->who);
        return -ENOMEM;
    }
    r->work = malloc(nwork * sizeof(double));
    r->jd = malloc(n * n * sizeof(double));
    r->saved = malloc(7 * nb * sizeof(double));
    if (!r->work || !r->jd || !r->saved)
        return app_ref_nomem(r);
    return 0;
}

int app_ref_run_linsol(struct app_ref_run *r, int nvec, int pattern_rc)
{
    bool ok = nvec >= 1 && nvec <= APP_REF_NVEC;

    if (ok && (r->vec[0] = N_VNew_Serial(r->n, r->sun)) == NULL)
        ok = false;
    for (int i = 1; ok && i < nvec; i++)
        ok = (r->vec[i] = N_VClone(r->vec[0])) != NULL;
    if (ok && pattern_rc == 0)
        r->A = SUNSparseMatrix(r->n, r->n, r->nnz, CSC_MAT, r->sun);
    if (ok && r->A)
        r->LS = SUNLinSol_KLU(r->vec[0], r->A, r->sun);
    if (!ok || !r->A || !r->LS)
        return app_ref_nomem(r);
    return 0;
}

void app_ref_run_free(struct app_ref_run *r)
{
    if (r->LS && SUNLinSolFree(r->LS))
        fprintf(stderr, "rtvd: %s: SUNLinSolFree failed\n", r->sv->who);
    if (r->A)
        SUNMatDestroy(r->A);
    for (int i = APP_REF_NVEC - 1; i >= 0; i--)
        if (r->vec[i])
            N_VDestroy(r->vec[i]);
    free(r->jumps);
    free(r->saved);
    free(r->work);
    free(r->jd);
    free(r->colptr);
    free(r->rowval);
    if (r->sun && SUNContext_Free(&r->sun))
        fprintf(stderr, "rtvd: %s: SUNContext_Free failed\n", r->sv->who);
    *r = (struct app_ref_run){.sv = r->sv};
}

bool app_ref_grid_start(struct app_ref_grid *g, double t0, double t_end, double dt, double eps,
                        double *tk)
{
    *g = (struct app_ref_grid){
        .k = (long)ceil((t0 - eps) / dt), .dt = dt, .eps = eps, .t_end = t_end};
    *tk = (double)g->k * dt;
    if (!(*tk <= t0 + eps && *tk <= t_end + eps))
        return false;
    g->k++;
    return true;
}

bool app_ref_grid_next(struct app_ref_grid *g, double tcur, double *tk, double *tq)
{
    *tk = (double)g->k * g->dt;
    *tq = fmin(*tk, tcur);
    if (*tk > tcur + (tcur >= g->t_end ? g->eps : 0.0))
        return false;
    g->k++;
    return true;
}

int app_ref_output(struct app_ref_run *r, double t, const double *y, long *outputs)
{
    const struct vd_model *m = r->m;
    struct vd_data *d = r->d;
    const size_t nb = (size_t)m->nbush;
    int rc;

    r->sv->to_data(m, d, y);
    memcpy(r->saved, d->bush_phi, nb * sizeof(double));
    memcpy(r->saved + nb, d->bush_anchor, 6 * nb * sizeof(double));
    d->t = t;
    app_ref_inputs_at(d, t);
    rc = vd_outputs(m, d);
    if (rc)
        fprintf(stderr, "rtvd: %s: non-finite forces at the output t = %.9g s\n", r->sv->who, t);
    else if (r->out_fn)
        rc = r->out_fn(r->ctx, m, d);
    if (!rc)
        (*outputs)++;
    memcpy(d->bush_phi, r->saved, nb * sizeof(double));
    memcpy(d->bush_anchor, r->saved + nb, 6 * nb * sizeof(double));
    return rc;
}

int app_ref_commit(struct app_ref_run *r, double t, const double *y, bool initial)
{
    const struct vd_model *m = r->m;
    struct vd_data *d = r->d;

    r->sv->to_data(m, d, y);
    d->t = t;
    if (d->input_fn)
        d->input_fn(d->input_ctx, t, d->u);
    if (!vd_eval_ex(m, d, d->r, d->v, d->z, d->u, d->h, d->g, false, true))
        return 0;
    if (initial)
        fprintf(stderr, "rtvd: %s: non-finite forces at the initial state (t = %g s)\n", r->sv->who,
                t);
    else
        fprintf(stderr, "rtvd: %s: non-finite forces at the accepted t = %.9g s\n", r->sv->who, t);
    return -EDOM;
}
