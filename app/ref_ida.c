/* app/ref_ida.c - the DAE reference solver on SUNDIALS IDA (see ref_ida.h). */
#include "ref_ida.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ida/ida.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sundials/sundials_types.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include "app/ref_common.h"
#include "core/eval.h"
#include "core/joint.h"
#include "core/linalg.h"
#include "core/step.h"
#include "core/vdmath.h"
#include "rt/clock.h"

#define DT_SP  1e-5 /* [s] central difference of s' */
#define DT_SPP 1e-3 /* [s] central difference of s'' */

/* offsets of the blocks of y */
struct lay {
    int nq, nz, nc, oV, oZ, oL, oM, N, Nc; /* Nc: the ODE part, CVODE's dimension */
};

static struct lay layout(const struct vd_model *m)
{
    struct lay l;

    l.nq = m->nq;
    l.nz = m->nz;
    l.nc = m->nc;
    l.oV = l.nq;
    l.oZ = 2 * l.nq;
    l.Nc = l.oL = 2 * l.nq + l.nz;
    l.oM = l.oL + l.nc;
    l.N = l.oM + l.nc;
    return l;
}

int app_ida_dim(const struct vd_model *m)
{
    return layout(m).N;
}

/* the work array: CVODE's work, its dense Jacobian (Nc x Nc; outside app_ida_jac the ODE
 * right-hand side f, Nc, lives there), G dense (nc x nq), 3 vectors of nq, G M^-1 G^T
 * (nc x nc), its pivots, 6 vectors of nc, 2 input vectors */
size_t app_ida_nwork(const struct vd_model *m)
{
    const struct lay l = layout(m);
    const size_t nq = (size_t)l.nq, nc = (size_t)l.nc, Nc = (size_t)l.Nc;

    return app_cvode_nwork(m) + Nc * Nc + nc * nq + 3 * nq + nc * nc + nc + 6 * nc +
           2 * (size_t)m->ninput + 8;
}

struct wk {
    double *cv, *Jc, *Gd, *x, *y, *w, *A, *s0, *s1, *c, *lam, *e, *e2, *ua, *ub;
    int *piv;
};

/* the next n doubles of the work array at *p */
static double *take(double **p, size_t n)
{
    double *res = *p;

    *p += n;
    return res;
}

static struct wk carve(const struct vd_model *m, double *work)
{
    const struct lay l = layout(m);
    const size_t nq = (size_t)l.nq, nc = (size_t)l.nc, Nc = (size_t)l.Nc;
    struct wk w;
    double *p = work;

    w.cv = take(&p, app_cvode_nwork(m));
    w.Jc = take(&p, Nc * Nc);
    w.Gd = take(&p, nc * nq);
    w.x = take(&p, nq);
    w.y = take(&p, nq);
    w.w = take(&p, nq);
    w.A = take(&p, nc * nc);
    w.piv = (int *)take(&p, nc); /* nc ints fit in nc doubles */
    w.s0 = take(&p, nc);
    w.s1 = take(&p, nc);
    w.c = take(&p, nc);
    w.lam = take(&p, nc);
    w.e = take(&p, nc);
    w.e2 = take(&p, nc);
    w.ua = take(&p, (size_t)m->ninput);
    w.ub = p;
    return w;
}

static bool has_driven(const struct vd_model *m)
{
    for (int e = 0; e < m->njoint; e++)
        if (m->joint[e].type == VD_JOINT_DRIVEN_TRANSLATION ||
            m->joint[e].type == VD_JOINT_DRIVEN_ROTATION)
            return true;
    return false;
}

/* s at the three times t0 + k h (k = 0, 1, 2) into w->s0, w->s1, out */
static void s_three(const struct vd_model *m, struct vd_data *d, double t0, double h, double *out,
                    struct wk *w)
{
    vd_input_fn fn = app_ref_trial_fn(d);
    double *s[3] = {w->s0, w->s1, out};

    for (int k = 0; k < 3; k++) {
        memcpy(w->ua, d->u, (size_t)m->ninput * sizeof(double));
        fn(d->input_ctx, t0 + k * h, w->ua);
        vd_joint_target(m, w->ua, s[k]);
    }
}

/* s'(t) (k = 1) or s''(t) (k = 2) of the driven rows into out (nc; 0 for the others) by
 * differences of the inputs in time, central, or one-sided (second-order for s') where
 * [t - h, t + h] is not inside [lo, hi] (a segment between input jumps, or the start);
 * without an input function the inputs are held: 0 */
static void s_deriv(const struct vd_model *m, struct vd_data *d, double t, double lo, double hi,
                    int k, double *out, struct wk *w)
{
    const double h = k == 1 ? DT_SP : DT_SPP;

    memset(out, 0, (size_t)m->nc * sizeof(double));
    if (!app_ref_trial_fn(d) || !has_driven(m))
        return;
    if (t - h >= lo && t + h <= hi) {
        s_three(m, d, t - h, h, out, w); /* s0 = s(t - h), s1 = s(t), out = s(t + h) */
        for (int r = 0; r < m->nc; r++)
            out[r] = k == 1 ? (out[r] - w->s0[r]) / (2.0 * h)
                            : (out[r] - 2.0 * w->s1[r] + w->s0[r]) / (h * h);
        return;
    }
    /* one-sided, toward the inside of the segment */
    const double hs = t - h < lo ? h : -h;

    s_three(m, d, t, hs, out, w); /* s(t), s(t + hs), s(t + 2 hs) */
    for (int r = 0; r < m->nc; r++)
        out[r] = k == 1 ? (-3.0 * w->s0[r] + 4.0 * w->s1[r] - out[r]) / (2.0 * hs)
                        : (w->s0[r] - 2.0 * w->s1[r] + out[r]) / (hs * hs);
}

static void minv(const struct vd_model *m, double *res, const double *x)
{
    for (int b = 0; b < m->nbody; b++)
        app_ref_minv_body(m, b, res + 6 * b, x + 6 * b);
}

/* f = the ODE right-hand side [K v; M^-1 h; g] (Nc) at (t, y), inputs into d->u, joints
 * evaluated (with gamma if gam) at the same kinematics */
static int rhs_f(const struct vd_model *m, struct vd_data *d, double t, const double *y, double *f,
                 struct wk *w, bool gam)
{
    if (app_cvode_rhs(m, d, t, y, f, w->cv))
        return -EDOM;
    vd_joint_eval(m, d, d->u, gam);
    return 0;
}

int app_ida_res(const struct vd_model *m, struct vd_data *d, double t, double t_lo, double t_hi,
                const double *y, const double *yp, double *res, double *work)
{
    const struct lay l = layout(m);
    struct wk w = carve(m, work);
    double *f = w.Jc; /* Nc doubles of the Jacobian's space */
    const double *lam = y + l.oL, *mu = y + l.oM;

    if (rhs_f(m, d, t, y, f, &w, false))
        return -EDOM;
    /* s'(t): the inputs at other times into scratch (d->u, the kinematics and the joints of
     * this evaluation stay; a closed-loop driver sees this trial state) */
    s_deriv(m, d, t, t_lo, t_hi, 1, w.c, &w);
    /* r rows: r' - K (v + G^T mu) */
    memset(w.x, 0, (size_t)l.nq * sizeof(double));
    vd_joint_Gt_mul_add(m, d, mu, w.x);
    vd_kdot(m, d->Ei, w.x, w.y);
    for (int i = 0; i < l.nq; i++)
        res[i] = yp[i] - f[i] - w.y[i];
    /* v rows: v' - M^-1 (h - G^T lambda) */
    memset(w.x, 0, (size_t)l.nq * sizeof(double));
    vd_joint_Gt_mul_add(m, d, lam, w.x);
    minv(m, w.y, w.x);
    for (int i = 0; i < l.nq; i++)
        res[l.oV + i] = yp[l.oV + i] - f[l.oV + i] + w.y[i];
    /* z rows: z' - g */
    for (int i = 0; i < l.nz; i++)
        res[l.oZ + i] = yp[l.oZ + i] - f[l.oZ + i];
    /* G v - s', g */
    vd_joint_G_mul(m, d, y + l.oV, res + l.oL);
    for (int r = 0; r < l.nc; r++) {
        res[l.oL + r] -= w.c[r];
        res[l.oM + r] = d->jg[r];
    }
    return 0;
}

/* G into w->Gd (nc x nq, column-major) from the last joint evaluation */
static void g_dense(const struct vd_model *m, const struct vd_data *d, struct wk *w)
{
    memset(w->Gd, 0, (size_t)m->nc * (size_t)m->nq * sizeof(double));
    vd_joint_G_dense(m, d, w->Gd, m->nc);
}

int app_ida_jac(const struct vd_model *m, struct vd_data *d, double t, double cj, const double *y,
                double *J, double *work)
{
    const struct lay l = layout(m);
    const size_t ld = (size_t)l.N, ldc = (size_t)l.Nc, nc = (size_t)l.nc;
    struct wk w = carve(m, work);

    if (app_cvode_jac(m, d, t, y, w.Jc, w.cv))
        return -EDOM;
    vd_joint_eval(m, d, d->u, false);
    g_dense(m, d, &w);
    memset(J, 0, ld * ld * sizeof(double));
#define JE(i, j) J[(size_t)(i) + ld * (size_t)(j)]
#define GE(r, c) w.Gd[(size_t)(r) + nc * (size_t)(c)]
    /* the ODE block: cj I - df/dy */
    for (int j = 0; j < l.Nc; j++) {
        for (int i = 0; i < l.Nc; i++)
            JE(i, j) = -w.Jc[(size_t)i + ldc * (size_t)j];
        JE(j, j) += cj;
    }
    for (int r = 0; r < l.nc; r++) {
        /* column r of G^T: -K G^T (mu), M^-1 G^T (lambda) */
        for (int i = 0; i < l.nq; i++)
            w.x[i] = GE(r, i);
        vd_kdot(m, d->Ei, w.x, w.y);
        minv(m, w.w, w.x);
        for (int i = 0; i < l.nq; i++) {
            JE(i, l.oM + r) = -w.y[i];
            JE(l.oV + i, l.oL + r) = w.w[i];
            JE(l.oL + r, l.oV + i) = w.x[i]; /* G (velocity rows) */
        }
        /* g_r = G K^-1: the angle columns through E = Ei^-1 of each body */
        for (int b = 0; b < m->nbody; b++) {
            double Einv[9];

            for (int k = 0; k < 3; k++)
                JE(l.oM + r, 6 * b + k) = GE(r, 6 * b + k);
            vdu_mat3_inv(Einv, d->Ei + 9 * b);
            for (int c = 0; c < 3; c++) {
                double s = 0.0;

                for (int a = 0; a < 3; a++)
                    s += GE(r, 6 * b + 3 + a) * Einv[3 * a + c];
                JE(l.oM + r, 6 * b + 3 + c) = s;
            }
        }
    }
#undef GE
#undef JE
    return 0;
}

/* the LU of A = G M^-1 G^T (nc x nc) into w->A, w->piv; 0 or > 0 (singular) */
static int factor_gmg(const struct vd_model *m, struct wk *w)
{
    const int nq = m->nq, nc = m->nc;
    const size_t ncs = (size_t)nc;

    for (int c = 0; c < nc; c++) {
        for (int i = 0; i < nq; i++)
            w->x[i] = w->Gd[(size_t)c + ncs * (size_t)i];
        minv(m, w->y, w->x);
        for (int r = 0; r < nc; r++) {
            double s = 0.0;

            for (int i = 0; i < nq; i++)
                s += w->Gd[(size_t)r + ncs * (size_t)i] * w->y[i];
            w->A[(size_t)r + ncs * (size_t)c] = s;
        }
    }
    return vd_lu_factor(nc, w->A, w->piv);
}

/* x (nq) += M^-1 G^T lam */
static void add_minv_gt(const struct vd_model *m, const struct vd_data *d, const double *lam,
                        double *x, struct wk *w)
{
    memset(w->w, 0, (size_t)m->nq * sizeof(double));
    vd_joint_Gt_mul_add(m, d, lam, w->w);
    minv(m, w->y, w->w);
    for (int i = 0; i < m->nq; i++)
        x[i] += w->y[i];
}

int app_ida_consistent(const struct vd_model *m, struct vd_data *d, double t, double t_lo,
                       double t_hi, double *y, double *yp, double *work)
{
    const struct lay l = layout(m);
    struct wk w = carve(m, work);
    double *f = w.Jc, *r = y, *v = y + l.oV;
    int it;

    app_ref_ode_from_data(m, d, y);
    memset(y + l.oL, 0, 2 * (size_t)l.nc * sizeof(double));
    /* positions onto g = 0: Gauss-Newton, the M-weighted least change in the velocity
     * coordinates, G ds = -g, ds = M^-1 G^T (G M^-1 G^T)^-1 (-g), r += K ds */
    for (it = 0; it < 20; it++) {
        double gm = 0.0, rmax = 0.0;

        if (rhs_f(m, d, t, y, f, &w, false))
            return -EDOM;
        for (int k = 0; k < l.nc; k++)
            gm = fmax(gm, fabs(d->jg[k]));
        for (int i = 0; i < l.nq; i++)
            rmax = fmax(rmax, fabs(r[i]));
        /* converged to the rounding of g, differences of positions of up to |r| */
        if (gm <= 1e-14 + 64.0 * 0x1p-52 * rmax)
            break;
        g_dense(m, d, &w);
        if (factor_gmg(m, &w))
            return -EDOM;
        for (int k = 0; k < l.nc; k++)
            w.lam[k] = -d->jg[k];
        vd_lu_solve(l.nc, w.A, w.piv, w.lam, 1);
        memset(w.x, 0, (size_t)l.nq * sizeof(double));
        add_minv_gt(m, d, w.lam, w.x, &w);
        vd_kdot(m, d->Ei, w.x, w.y);
        for (int i = 0; i < l.nq; i++)
            r[i] += w.y[i];
    }
    if (it == 20)
        return -ERANGE;
    /* velocities onto G v = s' (M-weighted least change) */
    g_dense(m, d, &w);
    if (factor_gmg(m, &w))
        return -EDOM;
    s_deriv(m, d, t, t_lo, t_hi, 1, w.c, &w);
    vd_joint_G_mul(m, d, v, w.e);
    for (int k = 0; k < l.nc; k++)
        w.lam[k] = w.c[k] - w.e[k];
    vd_lu_solve(l.nc, w.A, w.piv, w.lam, 1);
    add_minv_gt(m, d, w.lam, v, &w);
    /* lambda, v' from [M G^T; G 0] [a; lambda] = [h; s'' - gamma]:
     * (G M^-1 G^T) lambda = G M^-1 h - s'' + gamma, a = M^-1 (h - G^T lambda) */
    s_deriv(m, d, t, t_lo, t_hi, 2, w.e2, &w);
    if (rhs_f(m, d, t, y, f, &w, true))
        return -EDOM;
    vd_joint_G_mul(m, d, f + l.oV, w.lam);
    for (int k = 0; k < l.nc; k++)
        w.lam[k] += d->jgam[k] - w.e2[k];
    vd_lu_solve(l.nc, w.A, w.piv, w.lam, 1);
    memcpy(y + l.oL, w.lam, (size_t)l.nc * sizeof(double));
    memcpy(yp, f, (size_t)l.Nc * sizeof(double));
    for (int k = 0; k < l.nc; k++)
        w.lam[k] = -w.lam[k];
    add_minv_gt(m, d, w.lam, yp + l.oV, &w);
    memset(yp + l.oL, 0, 2 * (size_t)l.nc * sizeof(double));
    for (int i = 0; i < l.N; i++)
        if (!isfinite(y[i]) || !isfinite(yp[i]))
            return -EDOM;
    return 0;
}

/* ---- IDA glue -------------------------------------------------------------------------- */

static int ida_res(sunrealtype t, N_Vector yy, N_Vector yp, N_Vector rr, void *user)
{
    struct app_ref_run *c = user;

    return app_ida_res(c->m, c->d, app_ref_segs_tu(&c->seg, t), c->seg.tu_min, c->seg.tu_max,
                       N_VGetArrayPointer(yy), N_VGetArrayPointer(yp), N_VGetArrayPointer(rr),
                       c->work)
               ? 1
               : 0;
}

static int ida_jac(sunrealtype t, sunrealtype cj, N_Vector yy, N_Vector yp, N_Vector rr,
                   SUNMatrix J, void *user, N_Vector t1, N_Vector t2, N_Vector t3)
{
    struct app_ref_run *c = user;
    (void)yp, (void)rr, (void)t1, (void)t2, (void)t3;
    if (SUNSparseMatrix_Rows(J) != c->n || SUNSparseMatrix_SparseType(J) != CSC_MAT ||
        SUNSparseMatrix_NNZ(J) < c->nnz)
        return -1;
    if (app_ida_jac(c->m, c->d, app_ref_segs_tu(&c->seg, t), cj, N_VGetArrayPointer(yy), c->jd,
                    c->work))
        return 1;
    app_ref_csc_fill(J, c->n, c->nnz, c->colptr, c->rowval, c->jd);
    return 0;
}

unsigned char *app_ida_mask(const struct vd_model *m, const bool *inbody)
{
    const struct lay l = layout(m);
    const size_t N = (size_t)l.N;
    unsigned char *mask = calloc(N * N, 1);
    long *cp = malloc((size_t)(l.Nc + 1) * sizeof(long)), *rv = NULL;
    int cnt;

    if (!mask || !cp)
        goto fail;
    cnt = app_cvode_pattern(m, inbody, cp, NULL);
    if (cnt < 0 || !(rv = malloc((size_t)cnt * sizeof(long))))
        goto fail;
    app_cvode_pattern(m, inbody, cp, rv);
#define MK(i, j) mask[(size_t)(i) + N * (size_t)(j)]
    for (int j = 0; j < l.Nc; j++)
        for (long k = cp[j]; k < cp[j + 1]; k++)
            MK(rv[k], j) = 1;
    for (int r = 0; r < l.nc; r++)
        for (int s = 0; s < 2; s++) {
            const int b = m->jrow_body[2 * r + s];

            if (b == VD_GROUND)
                continue;
            for (int k = 0; k < 6; k++) {
                MK(6 * b + k, l.oM + r) = 1;        /* -K G^T */
                MK(l.oV + 6 * b + k, l.oL + r) = 1; /* M^-1 G^T */
                MK(l.oL + r, l.oV + 6 * b + k) = 1; /* G */
                MK(l.oM + r, 6 * b + k) = 1;        /* g_r */
            }
        }
    for (int i = 0; i < l.N; i++)
        MK(i, i) = 1;
#undef MK
    free(cp);
    free(rv);
    return mask;
fail:
    free(mask);
    free(cp);
    free(rv);
    return NULL;
}

/* the pattern of the run (app_ida_mask for the inputs at (t, d's state)) in CSC into c;
 * 0 or -ENOMEM */
static int ida_pattern(struct app_ref_run *c, double t)
{
    const size_t N = (size_t)c->n;
    bool *inb = calloc((size_t)c->m->nbody, sizeof(bool));
    unsigned char *mask = NULL;
    long nnz = 0;
    int rc = -ENOMEM;

    if (!inb)
        goto out;
    app_cvode_input_bodies(c->m, c->d, t, inb, c->work);
    mask = app_ida_mask(c->m, inb);
    if (!mask)
        goto out;
    for (size_t i = 0; i < N * N; i++)
        nnz += mask[i];
    c->colptr = malloc((N + 1) * sizeof(sunindextype));
    c->rowval = malloc((size_t)nnz * sizeof(sunindextype));
    if (!c->colptr || !c->rowval)
        goto out;
    nnz = 0;
    for (size_t j = 0; j < N; j++) {
        c->colptr[j] = (sunindextype)nnz;
        for (size_t i = 0; i < N; i++)
            if (mask[i + N * j])
                c->rowval[nnz++] = (sunindextype)i;
    }
    c->colptr[N] = (sunindextype)nnz;
    c->nnz = (sunindextype)nnz;
    rc = 0;
out:
    free(mask);
    free(inb);
    return rc;
}

static int ida_errno(int flag)
{
    switch (flag) {
    case IDA_MEM_FAIL:
        return -ENOMEM;
    case IDA_RES_FAIL:
    case IDA_REP_RES_ERR:
    case IDA_FIRST_RES_FAIL:
        return -EDOM;
    case IDA_TOO_MUCH_WORK:
    case IDA_TOO_MUCH_ACC:
    case IDA_ERR_FAIL:
    case IDA_CONV_FAIL:
    case IDA_LSETUP_FAIL:
    case IDA_LSOLVE_FAIL:
    case IDA_NLS_FAIL:
    case IDA_CONSTR_FAIL:
        return -ERANGE;
    default:
        return -EINVAL;
    }
}

/* d's state from y: r, v, z and the multipliers */
static void state_to_data(const struct vd_model *m, struct vd_data *d, const double *y)
{
    const struct lay l = layout(m);

    app_ref_ode_to_data(m, d, y);
    memcpy(d->jlam, y + l.oL, (size_t)l.nc * sizeof(double));
}

/* the accepted state y at t: commit the discrete element states (app_ref_commit, messages
 * on failure), the constraint residuals into st */
static int commit(struct app_ref_run *c, double t, const double *y, bool initial,
                  struct app_ida_stats *st, struct wk *w)
{
    const struct vd_model *m = c->m;
    struct vd_data *d = c->d;
    int rc = app_ref_commit(c, t, y, initial);

    if (rc)
        return rc;
    vd_joint_eval(m, d, d->u, false);
    d->cres = vd_joint_residual(m, d);
    st->gmax = fmax(st->gmax, d->cres);
    s_deriv(m, d, t, c->seg.tu_min, c->seg.tu_max, 1, w->c, w);
    vd_joint_G_mul(m, d, d->v, w->e);
    for (int k = 0; k < m->nc; k++)
        st->gvmax = fmax(st->gvmax, fabs(w->e[k] - w->c[k]));
    return 0;
}

/* what app/ref_common.c needs of IDA */
static const struct app_ref_solver ida_solver = {.who = "ida",
                                                 .warning = IDA_WARNING,
                                                 .flag_name = IDAGetReturnFlagName,
                                                 .flag_errno = ida_errno,
                                                 .to_data = state_to_data};

static void add_stats(void *mem, struct app_ida_stats *st)
{
    long int x;
    sunrealtype h;
    int q;

    if (!mem)
        return;
    if (IDAGetNumSteps(mem, &x) == IDA_SUCCESS)
        st->steps += x;
    if (IDAGetNumResEvals(mem, &x) == IDA_SUCCESS)
        st->res_evals += x;
    if (IDAGetNumJacEvals(mem, &x) == IDA_SUCCESS)
        st->jac_evals += x;
    if (IDAGetNumLinSolvSetups(mem, &x) == IDA_SUCCESS)
        st->lin_setups += x;
    if (IDAGetNumNonlinSolvIters(mem, &x) == IDA_SUCCESS)
        st->newton_iters += x;
    if (IDAGetNumNonlinSolvConvFails(mem, &x) == IDA_SUCCESS)
        st->newton_fails += x;
    if (IDAGetNumErrTestFails(mem, &x) == IDA_SUCCESS)
        st->err_fails += x;
    if (IDAGetLastOrder(mem, &q) == IDA_SUCCESS)
        st->last_order = q;
    if (IDAGetLastStep(mem, &h) == IDA_SUCCESS)
        st->last_h = h;
}

/* consistent values at t into y, yp (messages on failure) */
static int start_values(const struct vd_model *m, struct vd_data *d, const struct app_ref_run *c,
                        double t, double *y, double *yp, double *work)
{
    int rc = app_ida_consistent(m, d, t, c->seg.tu_min, c->seg.tu_max, y, yp, work);

    if (rc == -ERANGE)
        fprintf(stderr,
                "rtvd: ida: the positions at t = %g s do not converge onto the "
                "constraints\n",
                t);
    else if (rc)
        fprintf(stderr,
                "rtvd: ida: no consistent start at t = %g s (non-finite forces or "
                "dependent constraints)\n",
                t);
    return rc;
}

int app_ida_run(const struct vd_model *m, struct vd_data *d, double t_end, double dt_out,
                double rtol, double atol, app_cvode_out_fn out_fn, void *ctx,
                struct app_ida_stats *st)
{
    const struct lay l = layout(m);
    const double t0 = d->t, eps = 1e-9 * dt_out;
    const int64_t w0 = vd_clock_now();
    struct app_ida_stats local;
    struct app_ref_run c = {
        .m = m, .d = d, .sv = &ida_solver, .out_fn = out_fn, .ctx = ctx, .n = l.N};
    struct app_ref_grid grid;
    N_Vector y, yp, yk, atolv, id;
    void *mem = NULL;
    double *yv, *ypv, *ykv, tcur = t0, tk, tq;
    struct wk w;
    int rc = 0;
    bool counted = false;

    if (!st)
        st = &local;
    memset(st, 0, sizeof(*st));
    if (m->nc <= 0) {
        fprintf(stderr, "rtvd: ida: the model has no joints (use the CVODE reference)\n");
        return -EINVAL;
    }
    rc = app_ref_check_args("ida", t0, t_end, dt_out, &rtol, &atol, APP_IDA_RTOL, APP_IDA_ATOL);
    if (rc)
        return rc;

    /* SUNDIALS objects, KLU as the CVODE reference (app/ref_common.h) */
    rc = app_ref_run_alloc(&c, app_ida_nwork(m));
    if (rc == 0)
        rc = app_ref_run_linsol(&c, 5, ida_pattern(&c, t0));
    if (rc == 0 && !(mem = IDACreate(c.sun)))
        rc = app_ref_nomem(&c);
    if (rc)
        goto out_free;
    y = c.vec[0];
    yp = c.vec[1];
    yk = c.vec[2];
    atolv = c.vec[3];
    id = c.vec[4];
    w = carve(m, c.work);
    yv = N_VGetArrayPointer(y);
    ypv = N_VGetArrayPointer(yp);
    ykv = N_VGetArrayPointer(yk);
    {
        double *av = N_VGetArrayPointer(atolv), *iv = N_VGetArrayPointer(id);

        for (int i = 0; i < l.N; i++) {
            iv[i] = i < l.oL ? 1.0 : 0.0;
            av[i] = i < l.oL   ? app_ref_atol(m, i, atol)
                    : i < l.oM ? APP_IDA_ATOL_LAM
                               : APP_IDA_ATOL_MU;
        }
    }

    /* input jumps: segment ends (as the CVODE reference) */
    rc = app_ref_run_jumps(&c, t0, t_end, dt_out, eps, &st->jumps);
    if (rc)
        goto out_free;

    /* consistent start, committed */
    rc = start_values(m, d, &c, t0, yv, ypv, c.work);
    if (rc)
        goto out_free;
    rc = commit(&c, t0, yv, true, st, &w);
    if (rc)
        goto out_free;

    APP_REF_CALL(&c, IDASetErrHandlerFn(mem, app_ref_err_handler, &c));
    APP_REF_CALL(&c, IDAInit(mem, ida_res, t0, y, yp));
    APP_REF_CALL(&c, IDASVtolerances(mem, rtol, atolv));
    APP_REF_CALL(&c, IDASetUserData(mem, &c));
    APP_REF_CALL(&c, IDASetId(mem, id));
    APP_REF_CALL(&c, IDASetSuppressAlg(mem, SUNTRUE));
    APP_REF_CALL(&c, IDASetLinearSolver(mem, c.LS, c.A));
    APP_REF_CALL(&c, IDASetJacFn(mem, ida_jac));
    APP_REF_CALL(&c, IDASetMaxOrd(mem, APP_IDA_MAXORD));
    if (m->opt.dt > 0.0)
        APP_REF_CALL(&c, IDASetMaxStep(mem, m->opt.dt));
    if (c.seg.end > t0)
        APP_REF_CALL(&c, IDASetStopTime(mem, c.seg.end));

    if (app_ref_grid_start(&grid, t0, t_end, dt_out, eps, &tk)) {
        rc = app_ref_output(&c, tk, yv, &st->outputs);
        if (rc)
            goto out_free;
    }

    while (tcur < t_end) {
        double tret = tcur;
        int flag = IDASolve(mem, c.seg.end, &tret, y, yp, IDA_ONE_STEP);

        if (flag < 0) {
            rc = app_ref_stopped(&c, tcur, flag);
            goto out_free;
        }
        tcur = tret;
        while (app_ref_grid_next(&grid, tcur, &tk, &tq)) {
            APP_REF_CALL(&c, IDAGetDky(mem, tq, 0, yk));
            rc = app_ref_output(&c, tk, ykv, &st->outputs);
            if (rc)
                goto out_free;
        }
        rc = commit(&c, tcur, yv, false, st, &w);
        if (rc)
            goto out_free;
        d->nstep++;
        /* at an input jump: consistent values with the inputs after it, restart */
        if (app_ref_segs_next(&c.seg, tcur)) {
            add_stats(mem, st);
            counted = true;
            rc = start_values(m, d, &c, app_ref_segs_tu(&c.seg, tcur), yv, ypv, c.work);
            if (rc)
                goto out_free;
            APP_REF_CALL(&c, IDAReInit(mem, tcur, y, yp));
            counted = false;
            APP_REF_CALL(&c, IDASetStopTime(mem, c.seg.end));
        }
    }

out_free:
    if (!counted)
        add_stats(mem, st);
    st->wall_ns = vd_clock_now() - w0;
    IDAFree(&mem);
    app_ref_run_free(&c);
    return rc;
}
