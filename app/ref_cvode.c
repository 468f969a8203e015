/* app/ref_cvode.c - the validation reference solver on SUNDIALS CVODE (see ref_cvode.h). */
#include "ref_cvode.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_config.h>
#include <sundials/sundials_context.h>
#include <sundials/sundials_types.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include "app/ref_common.h"
#include "core/eval.h"
#include "core/step.h"
#include "core/vdmath.h"
#include "rt/clock.h"

const char *app_cvode_version(void)
{
    return SUNDIALS_VERSION;
}

int app_cvode_dim(const struct vd_model *m)
{
    return 2 * m->nq + m->nz;
}

size_t app_cvode_nwork(const struct vd_model *m)
{
    const size_t nq = (size_t)m->nq, nu = (size_t)m->ninput;

    /* h (nq), g (nz), dense Jr and Jv (nq x nq each), Ju (nq x nu), w (nq), 3 input vectors */
    return nq + (size_t)m->nz + 2 * nq * nq + nq * nu + nq + 3 * nu;
}

int app_cvode_rhs(const struct vd_model *m, struct vd_data *d, double t, const double *y,
                  double *ydot, double *work)
{
    const int nq = m->nq;
    const double *r = y, *v = y + nq, *z = y + 2 * nq;
    double *h = work;

    /* a closed-loop driver reads the state in d: the trial state */
    if (d->input_peek)
        app_ref_ode_to_data(m, d, y);
    app_ref_inputs_at(d, t);
    if (vd_eval_ex(m, d, r, v, z, d->u, h, ydot + 2 * nq, false, false))
        return -EDOM;
    /* r' = K(r) v with the Ei of this evaluation */
    vd_kdot(m, d->Ei, v, ydot);
    /* v' = M^-1 h */
    for (int b = 0; b < m->nbody; b++)
        app_ref_minv_body(m, b, ydot + nq + 6 * b, h + 6 * b);
    return 0;
}

/* d(Ei(ay, ax) omega)/d(ay, ax) (3x2, row-major) for one body. With p = sx w1 + cx w2,
 * q = cx w1 - sx w2 (vd_cardan_Einv):
 *   az' = p / cy            -> (p sy / cy^2, q / cy)
 *   ay' = q                 -> (0, -p)
 *   ax' = w0 + p sy / cy    -> (p / cy^2, q sy / cy)
 * az does not enter K, so its column is zero. */
static void dkv_dangles(double D[6], double ay, double ax, const double w[3])
{
    const double cy = cos(ay), sy = sin(ay), cx = cos(ax), sx = sin(ax), ic = 1.0 / cy;
    const double p = sx * w[1] + cx * w[2], q = cx * w[1] - sx * w[2];

    D[0] = p * sy * ic * ic;
    D[1] = q * ic;
    D[2] = 0.0;
    D[3] = -p;
    D[4] = p * ic * ic;
    D[5] = q * sy * ic;
}

int app_cvode_jac(const struct vd_model *m, struct vd_data *d, double t, const double *y, double *J,
                  double *work)
{
    const int nq = m->nq, N = app_cvode_dim(m);
    const size_t ld = (size_t)N, nqs = (size_t)nq;
    const double *r = y, *v = y + nq, *z = y + 2 * nq;
    double *h = work, *g = h + nq, *Jr = g + m->nz, *Jv = Jr + nqs * nqs;
    double *Ju = Jv + nqs * nqs;

    if (d->input_peek)
        app_ref_ode_to_data(m, d, y);
    app_ref_inputs_at(d, t);
    if (vd_eval_ex(m, d, r, v, z, d->u, h, g, true, false))
        return -EDOM;
    vd_jac_dense(m, d, Jr, Jv, d->input_peek ? Ju : NULL);
    memset(J, 0, ld * ld * sizeof(double));
#define JE(i, j) J[(size_t)(i) + ld * (size_t)(j)]

    /* r rows: d(K v)/dr (angle rows, ay and ax columns) and K (eq. 1 of the paper) */
    for (int b = 0; b < m->nbody; b++) {
        const int o = 6 * b;
        const double *Ei = d->Ei + 9 * b;
        double D[6];

        for (int k = 0; k < 3; k++)
            JE(o + k, nq + o + k) = 1.0;
        for (int a = 0; a < 3; a++)
            for (int c = 0; c < 3; c++)
                JE(o + 3 + a, nq + o + 3 + c) = Ei[3 * a + c];
        dkv_dangles(D, r[o + 4], r[o + 5], v + o + 3);
        for (int a = 0; a < 3; a++) {
            JE(o + 3 + a, o + 4) = D[2 * a];
            JE(o + 3 + a, o + 5) = D[2 * a + 1];
        }
    }

    /* v rows: M^-1 [Jr Jv], column by column (Jr, Jv column-major nq x nq) */
    for (int j = 0; j < nq; j++) {
        const double *cr = Jr + nqs * (size_t)j, *cv = Jv + nqs * (size_t)j;

        for (int b = 0; b < m->nbody; b++) {
            double x[6];

            app_ref_minv_body(m, b, x, cr + 6 * b);
            for (int k = 0; k < 6; k++)
                JE(nq + 6 * b + k, j) = x[k];
            app_ref_minv_body(m, b, x, cv + 6 * b);
            for (int k = 0; k < 6; k++)
                JE(nq + 6 * b + k, nq + j) = x[k];
        }
    }

    /* tyre couplings: M^-1 Jz into the wheel's v rows, Gp diag(I, T), Gv, Gz into z rows */
    for (int e = 0; e < m->ntire; e++) {
        const int b = m->marker[m->tire[e].marker].body, zo = 2 * nq + m->tire[e].zoff;
        const double *Jz = d->Jz + 12 * e, *Gp = d->Gp + 12 * e, *Gv = d->Gv + 12 * e;
        const double *Gz = d->Gz + 4 * e, *T;

        if (b < 0)
            continue;
        T = d->Tlin + 9 * b;
        for (int c = 0; c < 2; c++) {
            double x[6];

            app_ref_minv_body(m, b, x, Jz + 6 * c);
            for (int k = 0; k < 6; k++)
                JE(nq + 6 * b + k, zo + c) = x[k];
        }
        for (int i = 0; i < 2; i++) {
            const double *gp = Gp + 6 * i;

            for (int k = 0; k < 3; k++)
                JE(zo + i, 6 * b + k) = gp[k];
            /* dg/dangles = dg/dpi T */
            for (int c = 0; c < 3; c++)
                JE(zo + i, 6 * b + 3 + c) = gp[3] * T[c] + gp[4] * T[3 + c] + gp[5] * T[6 + c];
            for (int k = 0; k < 6; k++)
                JE(zo + i, nq + 6 * b + k) = Gv[6 * i + k];
            for (int c = 0; c < 2; c++)
                JE(zo + i, zo + c) = Gz[2 * i + c];
        }
    }

    /* a closed-loop driver: its commands depend on the state, M^-1 Ju du/dy in the v rows.
     * du/dy by central differences of d->input_peek (no model evaluation: cheap) over every
     * r and v coordinate; the columns where u does not move get nothing */
    if (d->input_peek && m->ninput > 0) {
        const int nu = m->ninput;
        double *w = Ju + nqs * (size_t)nu, *u0 = w + nq, *up = u0 + nu, *um = up + nu;

        memcpy(u0, d->u, (size_t)nu * sizeof(double));
        for (int j = 0; j < 2 * nq; j++) {
            double *x = j < nq ? d->r + j : d->v + j - nq, x0 = *x, du = 0.0;
            const double hx = 1e-6 * (1.0 + fabs(x0));

            *x = x0 + hx;
            memcpy(up, u0, (size_t)nu * sizeof(double));
            d->input_peek(d->input_ctx, t, up);
            *x = x0 - hx;
            memcpy(um, u0, (size_t)nu * sizeof(double));
            d->input_peek(d->input_ctx, t, um);
            *x = x0;
            for (int k = 0; k < nu; k++) {
                up[k] = (up[k] - um[k]) / (2.0 * hx);
                du = fmax(du, fabs(up[k]));
            }
            if (!(du > 0.0))
                continue;
            /* w = Ju du/dy_j, then M^-1 w into column j */
            memset(w, 0, nqs * sizeof(double));
            for (int k = 0; k < nu; k++)
                if (up[k] != 0.0)
                    for (int i = 0; i < nq; i++)
                        w[i] += Ju[(size_t)i + nqs * (size_t)k] * up[k];
            for (int b = 0; b < m->nbody; b++) {
                double x6[6];

                app_ref_minv_body(m, b, x6, w + 6 * b);
                for (int k = 0; k < 6; k++)
                    JE(nq + 6 * b + k, j) += x6[k];
            }
        }
        memcpy(d->u, u0, (size_t)nu * sizeof(double));
    }
#undef JE
    return 0;
}

void app_cvode_input_bodies(const struct vd_model *m, struct vd_data *d, double t, bool *flags,
                            double *work)
{
    const int nu = m->ninput;
    double *u0 = work, *u1 = work + nu;

    memset(flags, 0, (size_t)m->nbody * sizeof(bool));
    if (!d->input_peek || nu == 0)
        return;
    memset(u0, 0, (size_t)nu * sizeof(double));
    d->input_peek(d->input_ctx, t, u0);
    for (int j = 0; j < 2 * m->nq; j++) {
        double *x = j < m->nq ? d->r + j : d->v + j - m->nq, x0 = *x;
        const int b = (j % m->nq) / 6;

        for (int s = -1; s <= 1; s += 2) {
            *x = x0 + s * 1e-6 * (1.0 + fabs(x0));
            memset(u1, 0, (size_t)nu * sizeof(double));
            d->input_peek(d->input_ctx, t, u1);
            for (int k = 0; k < nu; k++)
                flags[b] |= u1[k] != u0[k];
        }
        *x = x0;
    }
}

/* ---- sparsity ---------------------------------------------------------------------------
 * The structural non-zeros of df/dy (see ref_cvode.h), column by column (CSC): the r rows
 * couple each body only to itself (d(K v)/dr and K: its 6x6 diagonal blocks, whole, which
 * also holds the diagonal that I - gamma J needs); the v rows follow the model's block
 * pattern (m->blk_*: body j's coordinates enter body i's forces) in the r and v columns,
 * and a tyre's two states in its wheel's rows; a tyre's z rows see its wheel's r and v and
 * its own states; with a closed-loop driver, every v row in the columns of the bodies it
 * reads. Built once per run; app_cvode_jac never writes outside it (test_cvode). */
int app_cvode_pattern(const struct vd_model *m, const bool *inbody, long *colptr, long *rowval)
{
    const int nq = m->nq, N = app_cvode_dim(m);
    const int nb = m->nbody;
    unsigned char *mask = calloc((size_t)N * (size_t)N, 1);
    long nnz = 0;

    if (!mask)
        return -ENOMEM;
#define MK(i, j) mask[(size_t)(i) + (size_t)N * (size_t)(j)]
    for (int b = 0; b < nb; b++)
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) {
                MK(6 * b + i, 6 * b + j) = 1;      /* r rows, r columns */
                MK(6 * b + i, nq + 6 * b + j) = 1; /* r rows, v columns */
            }
    for (int b = 0; b < nb; b++)
        for (int k = m->blk_rowptr[b]; k < m->blk_rowptr[b + 1]; k++) {
            const int c = m->blk_col[k];

            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 6; j++) {
                    MK(nq + 6 * b + i, 6 * c + j) = 1;
                    MK(nq + 6 * b + i, nq + 6 * c + j) = 1;
                }
        }
    for (int e = 0; e < m->ntire; e++) {
        const int b = m->marker[m->tire[e].marker].body, zo = 2 * nq + m->tire[e].zoff;

        for (int i = 0; i < 2; i++) {
            for (int c = 0; c < 2; c++)
                MK(zo + i, zo + c) = 1;
            if (b < 0)
                continue;
            for (int k = 0; k < 6; k++) {
                MK(nq + 6 * b + k, zo + i) = 1;
                MK(zo + i, 6 * b + k) = 1;
                MK(zo + i, nq + 6 * b + k) = 1;
            }
        }
    }
    /* a closed-loop driver's feedback: every v row in the r and v columns of the bodies it
     * reads (inbody) */
    for (int c = 0; inbody && c < nb; c++)
        if (inbody[c])
            for (int i = nq; i < 2 * nq; i++)
                for (int j = 0; j < 6; j++) {
                    MK(i, 6 * c + j) = 1;
                    MK(i, nq + 6 * c + j) = 1;
                }
    for (int i = 0; i < N; i++)
        MK(i, i) = 1;
    for (int j = 0; j < N; j++) {
        if (colptr)
            colptr[j] = nnz;
        for (int i = 0; i < N; i++)
            if (MK(i, j)) {
                if (rowval)
                    rowval[nnz] = i;
                nnz++;
            }
    }
    if (colptr)
        colptr[N] = nnz;
#undef MK
    free(mask);
    return nnz > INT32_MAX ? -ERANGE : (int)nnz;
}

/* ---- input jumps --------------------------------------------------------------------
 * A step in an input (a load step, a brake applied) is a jump of f. A multistep method that
 * steps across it carries the jump in its history and recovers only through error-test
 * failures at the tolerance level, so the jumps are located first and BDF restarts at each
 * (segments [hi_k, lo_k+1], inputs evaluated inside each). The inputs are sampled every
 * min(dt_out, opt.dt); an interval whose inputs change is bisected toward the half that
 * changes more: a smooth change halves with the interval, a jump keeps its size, and ends up
 * bracketed by adjacent doubles [lo, hi] (u(lo) before, u(hi) after). Not found: the smaller
 * of two jumps within one sampling interval, and jumps below half the smooth change over one
 * interval; those are left to the error control. Kinks (ramps, linear tables) are not jumps. */

/* max_i |b_i - a_i| */
static double du_inf(const double *a, const double *b, int n)
{
    double x = 0.0;

    for (int i = 0; i < n; i++)
        x = fmax(x, fabs(b[i] - a[i]));
    return x;
}

/* a jump of the inputs in (a, b] given u(a), u(b); w: 3 ninput scratch */
static bool jump_in(struct vd_data *d, int nu, double a, double b, const double *u_a,
                    const double *u_b, double *w, struct app_jump *j)
{
    double *ua = w, *ub = w + nu, *um = w + 2 * nu, du, tiny = 0.0;

    memcpy(ua, u_a, (size_t)nu * sizeof(double));
    memcpy(ub, u_b, (size_t)nu * sizeof(double));
    du = du_inf(ua, ub, nu);
    /* below 1e-9 of the inputs' size: rounding of the signal, not a jump */
    for (int i = 0; i < nu; i++)
        tiny = fmax(tiny, 1e-9 * fmax(fabs(ua[i]), fabs(ub[i])));
    tiny = fmax(tiny, 1e-12);
    if (!(du > tiny))
        return false;
    for (;;) {
        const double mid = a + 0.5 * (b - a);
        double d1, d2;

        if (mid <= a || mid >= b)
            break;
        app_ref_trial_fn(d)(d->input_ctx, mid, um);
        d1 = du_inf(ua, um, nu);
        d2 = du_inf(um, ub, nu);
        if (fmax(d1, d2) < 0.75 * du)
            return false; /* both halves shrank: smooth */
        if (d1 >= d2) {
            b = mid;
            memcpy(ub, um, (size_t)nu * sizeof(double));
            du = d1;
        } else {
            a = mid;
            memcpy(ua, um, (size_t)nu * sizeof(double));
            du = d2;
        }
    }
    if (!(du > tiny))
        return false;
    j->lo = a;
    j->hi = b;
    return true;
}

int app_ref_scan_jumps(const struct vd_model *m, struct vd_data *d, double t0, double t_end,
                       double h, struct app_jump **out)
{
    const int nu = m->ninput;
    double *u0, *u1, *w;
    struct app_jump *js = NULL;
    int n = 0, cap = 0;
    long ns;

    *out = NULL;
    if (!d->input_fn || nu == 0 || !(t_end > t0))
        return 0;
    /* at most 1e7 samples */
    h = fmax(h, (t_end - t0) * 1e-7);
    ns = (long)ceil((t_end - t0) / h);
    u0 = malloc(5 * (size_t)nu * sizeof(double));
    if (!u0)
        return -ENOMEM;
    u1 = u0 + nu;
    w = u1 + nu;
    app_ref_trial_fn(d)(d->input_ctx, t0, u0);
    for (long i = 1; i <= ns; i++) {
        const double a = t0 + (double)(i - 1) * h, b = i == ns ? t_end : t0 + (double)i * h;
        struct app_jump j;

        app_ref_trial_fn(d)(d->input_ctx, b, u1);
        if (jump_in(d, nu, a, b, u0, u1, w, &j)) {
            if (n == cap) {
                struct app_jump *nj = realloc(js, (size_t)(cap = cap ? 2 * cap : 8) * sizeof(*js));

                if (!nj) {
                    free(js);
                    free(u0);
                    return -ENOMEM;
                }
                js = nj;
            }
            js[n++] = j;
        }
        memcpy(u0, u1, (size_t)nu * sizeof(double));
    }
    free(u0);
    *out = js;
    return n;
}

/* ---- CVODE glue ---------------------------------------------------------------------- */

static int cv_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user)
{
    struct app_ref_run *c = user;

    /* > 0: recoverable, CVODE retries with a smaller step */
    return app_cvode_rhs(c->m, c->d, app_ref_segs_tu(&c->seg, t), N_VGetArrayPointer(y),
                         N_VGetArrayPointer(ydot), c->work)
               ? 1
               : 0;
}

static int cv_jac(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *user, N_Vector t1,
                  N_Vector t2, N_Vector t3)
{
    struct app_ref_run *c = user;
    (void)fy, (void)t1, (void)t2, (void)t3;
    /* compressed-sparse-column, the pattern of this run (CVODE zeroes the index arrays
     * along with the values, so they are set on every call) */
    if (SUNSparseMatrix_Rows(J) != c->n || SUNSparseMatrix_Columns(J) != c->n ||
        SUNSparseMatrix_SparseType(J) != CSC_MAT || SUNSparseMatrix_NNZ(J) < c->nnz)
        return -1;
    if (app_cvode_jac(c->m, c->d, app_ref_segs_tu(&c->seg, t), N_VGetArrayPointer(y), c->jd,
                      c->work))
        return 1;
    app_ref_csc_fill(J, c->n, c->nnz, c->colptr, c->rowval, c->jd);
    return 0;
}

/* the pattern of the run into c (sunindextype arrays), for the inputs at (t, d's state);
 * 0 or -ENOMEM */
static int cv_pattern(struct app_ref_run *c, double t)
{
    const int N = (int)c->n;
    long *cp = malloc((size_t)(N + 1) * sizeof(long)), *rv = NULL;
    bool *inb = calloc((size_t)c->m->nbody, sizeof(bool));
    int nnz = -ENOMEM;

    if (!cp || !inb)
        goto out;
    app_cvode_input_bodies(c->m, c->d, t, inb, c->work);
    nnz = app_cvode_pattern(c->m, inb, cp, NULL);

    if (nnz < 0)
        goto out;
    rv = malloc((size_t)nnz * sizeof(long));
    c->colptr = malloc((size_t)(N + 1) * sizeof(sunindextype));
    c->rowval = malloc((size_t)nnz * sizeof(sunindextype));
    if (!rv || !c->colptr || !c->rowval) {
        nnz = -ENOMEM;
        goto out;
    }
    app_cvode_pattern(c->m, inb, cp, rv);
    for (int j = 0; j <= N; j++)
        c->colptr[j] = (sunindextype)cp[j];
    for (int k = 0; k < nnz; k++)
        c->rowval[k] = (sunindextype)rv[k];
    c->nnz = nnz;
out:
    free(cp);
    free(rv);
    free(inb);
    return nnz < 0 ? nnz : 0;
}

/* CVODE return flags -> -errno */
static int cv_errno(int flag)
{
    switch (flag) {
    case CV_MEM_FAIL:
        return -ENOMEM;
    case CV_RHSFUNC_FAIL:
    case CV_FIRST_RHSFUNC_ERR:
    case CV_REPTD_RHSFUNC_ERR:
    case CV_UNREC_RHSFUNC_ERR:
        return -EDOM;
    case CV_TOO_MUCH_WORK:
    case CV_TOO_MUCH_ACC:
    case CV_ERR_FAILURE:
    case CV_CONV_FAILURE:
    case CV_LSETUP_FAIL:
    case CV_LSOLVE_FAIL:
    case CV_NLS_FAIL:
        return -ERANGE;
    default:
        return -EINVAL;
    }
}

/* what app/ref_common.c needs of CVODE */
static const struct app_ref_solver cv_solver = {.who = "cvode",
                                                .warning = CV_WARNING,
                                                .flag_name = CVodeGetReturnFlagName,
                                                .flag_errno = cv_errno,
                                                .to_data = app_ref_ode_to_data};

/* add the counters of the current CVODE run (they restart at CVodeReInit) to st */
static void add_stats(void *mem, struct app_cvode_stats *st)
{
    long int x;
    sunrealtype h;
    int q;

    if (!mem)
        return;
    /* the getters fail only on a NULL memory block, ruled out above */
    if (CVodeGetNumSteps(mem, &x) == CV_SUCCESS)
        st->steps += x;
    if (CVodeGetNumRhsEvals(mem, &x) == CV_SUCCESS)
        st->rhs_evals += x;
    if (CVodeGetNumJacEvals(mem, &x) == CV_SUCCESS)
        st->jac_evals += x;
    if (CVodeGetNumLinSolvSetups(mem, &x) == CV_SUCCESS)
        st->lin_setups += x;
    if (CVodeGetNumNonlinSolvIters(mem, &x) == CV_SUCCESS)
        st->newton_iters += x;
    if (CVodeGetNumNonlinSolvConvFails(mem, &x) == CV_SUCCESS)
        st->newton_fails += x;
    if (CVodeGetNumErrTestFails(mem, &x) == CV_SUCCESS)
        st->err_fails += x;
    if (CVodeGetLastOrder(mem, &q) == CV_SUCCESS)
        st->last_order = q;
    if (CVodeGetLastStep(mem, &h) == CV_SUCCESS)
        st->last_h = h;
}

int app_cvode_run(const struct vd_model *m, struct vd_data *d, double t_end, double dt_out,
                  double rtol, double atol, app_cvode_out_fn out_fn, void *ctx,
                  struct app_cvode_stats *st)
{
    const int N = app_cvode_dim(m);
    const double t0 = d->t, eps = 1e-9 * dt_out;
    const int64_t w0 = vd_clock_now();
    struct app_cvode_stats local;
    struct app_ref_run c = {.m = m, .d = d, .sv = &cv_solver, .out_fn = out_fn, .ctx = ctx, .n = N};
    struct app_ref_grid grid;
    N_Vector y, yk, atolv;
    void *mem = NULL;
    double *yv, *ykv, *av, tcur = t0, tk, tq;
    int rc = 0;
    bool counted = false; /* the counters of the current CVODE run are in st */

    if (!st)
        st = &local;
    memset(st, 0, sizeof(*st));
    if (m->nc > 0) {
        fprintf(stderr, "rtvd: cvode: the model has ideal joints: its reference is IDA "
                        "(--solver ida, app/ref_ida.h)\n");
        return -EINVAL;
    }
    rc = app_ref_check_args("cvode", t0, t_end, dt_out, &rtol, &atol, APP_CVODE_RTOL,
                            APP_CVODE_ATOL);
    if (rc)
        return rc;

    /* SUNDIALS objects (app/ref_common.h); Newton's linear systems by KLU (sparse LU: the
     * vehicles' df/dy has ~5 % non-zeros; SUNDIALS' dense LU of the whole matrix took 90 % of
     * the run) */
    rc = app_ref_run_alloc(&c, app_cvode_nwork(m));
    if (rc == 0)
        rc = app_ref_run_linsol(&c, 3, cv_pattern(&c, t0));
    if (rc == 0 && !(mem = CVodeCreate(CV_BDF, c.sun)))
        rc = app_ref_nomem(&c);
    if (rc)
        goto out_free;
    y = c.vec[0];
    yk = c.vec[1];
    atolv = c.vec[2];
    yv = N_VGetArrayPointer(y);
    ykv = N_VGetArrayPointer(yk);
    av = N_VGetArrayPointer(atolv);

    /* y0 = [r; v; z]; per-component absolute tolerances */
    app_ref_ode_from_data(m, d, yv);
    for (int i = 0; i < N; i++)
        av[i] = app_ref_atol(m, i, atol);

    /* the initial state is accepted: commit its discrete element states */
    rc = app_ref_commit(&c, t0, yv, true);
    if (rc)
        goto out_free;

    APP_REF_CALL(&c, CVodeSetErrHandlerFn(mem, app_ref_err_handler, &c));
    APP_REF_CALL(&c, CVodeInit(mem, cv_rhs, t0, y));
    APP_REF_CALL(&c, CVodeSVtolerances(mem, rtol, atolv));
    APP_REF_CALL(&c, CVodeSetUserData(mem, &c));
    APP_REF_CALL(&c, CVodeSetLinearSolver(mem, c.LS, c.A));
    APP_REF_CALL(&c, CVodeSetJacFn(mem, cv_jac));
    APP_REF_CALL(&c, CVodeSetMaxOrd(mem, APP_CVODE_MAXORD));
    /* no step longer than the fixed-step solvers': what they see (an obstacle passed at
     * speed, a short smooth pulse) cannot fall between two CVODE steps near equilibrium */
    if (m->opt.dt > 0.0)
        APP_REF_CALL(&c, CVodeSetMaxStep(mem, m->opt.dt));

    /* input jumps: segment ends; one that is (nearly) at the start applies from the start */
    rc = app_ref_run_jumps(&c, t0, t_end, dt_out, eps, &st->jumps);
    if (rc)
        goto out_free;
    if (c.seg.end > t0)
        APP_REF_CALL(&c, CVodeSetStopTime(mem, c.seg.end));

    /* a grid point at the start is the initial state itself */
    if (app_ref_grid_start(&grid, t0, t_end, dt_out, eps, &tk)) {
        rc = app_ref_output(&c, tk, yv, &st->outputs);
        if (rc)
            goto out_free;
    }

    while (tcur < t_end) {
        double tret = tcur;
        int flag = CVode(mem, c.seg.end, y, &tret, CV_ONE_STEP);

        if (flag < 0) {
            rc = app_ref_stopped(&c, tcur, flag);
            goto out_free;
        }
        tcur = tret;
        /* grid points inside this step, interpolated; the last one may exceed t_end by
         * rounding of k dt_out */
        while (app_ref_grid_next(&grid, tcur, &tk, &tq)) {
            APP_REF_CALL(&c, CVodeGetDky(mem, tq, 0, yk));
            rc = app_ref_output(&c, tk, ykv, &st->outputs);
            if (rc)
                goto out_free;
        }
        /* the step is accepted: commit at its end */
        rc = app_ref_commit(&c, tcur, yv, false);
        if (rc)
            goto out_free;
        d->nstep++;
        /* at an input jump: restart BDF from the state there, inputs after the jump */
        if (app_ref_segs_next(&c.seg, tcur)) {
            st->restarts++;
            add_stats(mem, st);
            counted = true;
            APP_REF_CALL(&c, CVodeReInit(mem, tcur, y));
            counted = false;
            APP_REF_CALL(&c, CVodeSetStopTime(mem, c.seg.end));
        }
    }

out_free:
    if (!counted)
        add_stats(mem, st);
    st->wall_ns = vd_clock_now() - w0;
    CVodeFree(&mem);
    app_ref_run_free(&c);
    return rc;
}
