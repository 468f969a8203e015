/* core/ce_step.c - the CE form's placement of the model's bodies and its linearly implicit
 * step in tree coordinates (ce.h). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "ce.h"
#include "eval.h"
#include "kinematics.h"
#include "step.h"
#include "treeform.h"
#include "vdmath.h"

/* ---- stepping --------------------------------------------------------------------------- */

/* the model's r, v and td's kinematics at the tree state (q, u), for the Jacobians (jac) or
 * for M and f only (the closures' ds, dkappa skipped: vd_tree_kin_mf); 0 or -EDOM */
static int place_at(const struct vd_ce *ce, struct vd_ce_data *cd, struct vd_data *d,
                    const double *q, const double *u, bool jac)
{
    const struct vd_tree *t = ce->tree;

    cd->placed = 0;
    cd->nplace++;
    if (jac ? vd_tree_kin(t, cd->td, q, u) : vd_tree_kin_mf(t, cd->td, q, u))
        return -EDOM;
    for (int b = 0; b < t->nbody; b++) {
        const int mb = ce->tb_model[b];

        vd_tree_body_state(cd->td, b, d->r + 6 * mb, d->v + 6 * mb);
    }
    /* the root and any other free body keep their own (unwrapped) angles */
    for (int in = 0; in < t->nnode; in++)
        if (t->node[in].type == VD_TREE_FREE)
            memcpy(d->r + 6 * ce->tb_model[t->node[in].b0] + 3, q + t->node[in].off + 3,
                   3 * sizeof(double));
    return 0;
}

int vd_ce_place(const struct vd_model *m, const struct vd_ce *ce, struct vd_ce_data *cd,
                struct vd_data *d)
{
    const struct vd_tree *t = ce->tree;

    if (place_at(ce, cd, d, cd->q, cd->u, true))
        return -EDOM;
    memcpy(cd->qp, cd->q, (size_t)t->n * sizeof(double));
    memcpy(cd->up, cd->u, (size_t)t->n * sizeof(double));
    cd->placed = 1;
    (void)m;
    return 0;
}

/* the bodies are placed at the tree state (q, u): by the end of the last step, unless the
 * state changed since (a caller's write to q or u, a reset, vd_ce_init) */
static bool placed_at(const struct vd_ce *ce, const struct vd_ce_data *cd)
{
    const size_t n = (size_t)ce->tree->n * sizeof(double);

    return cd->placed && !memcmp(cd->qp, cd->q, n) && !memcmp(cd->up, cd->u, n);
}

/* LU with partial pivoting of the n x n column-major A in place; 0 or -1 (singular) */
static int lu(int n, double *A, int *piv)
{
    for (int k = 0; k < n; k++) {
        int p = k;

        for (int i = k + 1; i < n; i++)
            if (fabs(A[i + n * k]) > fabs(A[p + n * k]))
                p = i;
        piv[k] = p;
        if (!(A[p + n * k] != 0.0))
            return -1;
        if (p != k)
            for (int j = 0; j < n; j++) {
                const double s = A[k + n * j];

                A[k + n * j] = A[p + n * j];
                A[p + n * j] = s;
            }
        for (int i = k + 1; i < n; i++) {
            const double l = A[i + n * k] / A[k + n * k];

            A[i + n * k] = l;
            for (int j = k + 1; j < n; j++)
                A[i + n * j] -= l * A[k + n * j];
        }
    }
    return 0;
}

/* Cholesky factor L (lower, in place; the upper triangle untouched) of the symmetric
 * positive definite n x n column-major A (the mass matrix: half an LU's work, no pivoting);
 * 0 or -1 (not positive definite) */
static int chol(int n, double *A)
{
    for (int j = 0; j < n; j++) {
        double s = A[j + n * j];

        for (int k = 0; k < j; k++)
            s -= A[j + n * k] * A[j + n * k];
        if (!(s > 0.0))
            return -1;
        s = sqrt(s);
        A[j + n * j] = s;
        for (int i = j + 1; i < n; i++) {
            double v = A[i + n * j];

            for (int k = 0; k < j; k++)
                v -= A[i + n * k] * A[j + n * k];
            A[i + n * j] = v / s;
        }
    }
    return 0;
}

/* b = A^-1 b = L^-T L^-1 b with the factor of chol() */
static void chol_solve(int n, const double *L, double *b)
{
    for (int i = 0; i < n; i++) {
        double s = b[i];

        for (int k = 0; k < i; k++)
            s -= L[i + n * k] * b[k];
        b[i] = s / L[i + n * i];
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = b[i];

        for (int k = i + 1; k < n; k++)
            s -= L[k + n * i] * b[k];
        b[i] = s / L[i + n * i];
    }
}

/* b = A^-1 b with the factors of lu() */
static void lu_solve(int n, const double *A, const int *piv, double *b)
{
    /* the row exchanges first: lu swapped whole rows, the multipliers with them */
    for (int k = 0; k < n; k++) {
        const double s = b[piv[k]];

        b[piv[k]] = b[k];
        b[k] = s;
    }
    for (int k = 0; k < n; k++)
        for (int i = k + 1; i < n; i++)
            b[i] -= A[i + n * k] * b[k];
    for (int k = n - 1; k >= 0; k--) {
        for (int j = k + 1; j < n; j++)
            b[k] -= A[k + n * j] * b[j];
        b[k] /= A[k + n * k];
    }
}

/* one stage of LSRT2 (numerics.md §1.5, the W-form) in tree coordinates with the matrix S of
 * this step (factored, tyre states condensed with c1 = dt gamma):
 *   S dv = Mphi + Jq w + Ju sv + Jzt (sz + c1 dz),
 *   (1 - c1 Gz) dz = g + Gq w + Gu (sv + c1 dv) + Gz sz,   w = K^-1 (sr + c1 p)
 * (sv, sz NULL: zero); dv, dz the stage's slopes. 0 or -EDOM (not finite) */
static int stage_solve(const struct vd_model *m, const struct vd_ce *ce, struct vd_ce_data *cd,
                       struct vd_data *d, double c1, const double *Mphi, const double *w,
                       const double *sv, const double *sz, const double *g, double *dv, double *dz)
{
    const int N = ce->tree->n;

    vd_tf_stage_rhs(m, cd->td, d, N, cd->Gq, cd->Gu, cd->Dz, cd->Jzt, c1, Mphi, w, sv, sz, g,
                    cd->rz, dv);
    lu_solve(N, cd->S, cd->piv, dv);
    for (int i = 0; i < N; i++)
        if (!isfinite(dv[i])) {
            d->warn[VD_WARN_NONFINITE]++;
            return -EDOM;
        }
    vd_tf_tyre_dz(m, N, cd->Gq, cd->Gu, cd->Dz, cd->rz, c1, dv, dz);
    return 0;
}

/* LSRT2 after the factorization (stage 1 linearized at the step's start, its M in td->M):
 * stage 1, stage 2 at (qa, ua, za, t + c2 dt) with the joint model evaluated at the bodies
 * placed there and M(qa) for its u slope, then the update */
static int step_lsrt2(const struct vd_model *m, const struct vd_ce *ce, struct vd_ce_data *cd,
                      struct vd_data *d, double c1)
{
    const struct vd_tree *t = ce->tree;
    struct vd_tree_data *td = cd->td;
    const int N = t->n, nz = m->nz;
    const double dt = m->opt.dt, zero3[3] = {0, 0, 0};
    const struct vd_eval_skip skip = {ce->mk, ce->nmk, ce->bd, ce->nbd, true,   true,
                                      ce->bu, ce->nbu, ce->cp, ce->ncp, ce->pp, ce->npp};
    int rc;

    /* stage 1: p1 = K u, w = K^-1 (c1 p1) = c1 u */
    for (int i = 0; i < N; i++)
        cd->wq[i] = c1 * cd->u[i];
    rc = stage_solve(m, ce, cd, d, c1, cd->f, cd->wq, NULL, NULL, cd->gz, cd->dv1, cd->dz1);
    if (rc)
        return rc;
    /* dr1 = K (u + c1 dv1); the stage-2 arguments and the g21 couplings */
    for (int i = 0; i < N; i++)
        cd->p2[i] = cd->u[i] + c1 * cd->dv1[i];
    vd_tree_qdot(t, cd->q, cd->p2, cd->dr1);
    for (int i = 0; i < N; i++) {
        cd->qa[i] = cd->q[i] + dt * VD_LSRT2_A21 * cd->dr1[i];
        cd->ua[i] = cd->u[i] + dt * VD_LSRT2_A21 * cd->dv1[i];
        cd->sr[i] = dt * VD_LSRT2_G21 * cd->dr1[i];
        cd->sv[i] = dt * VD_LSRT2_G21 * cd->dv1[i];
    }
    for (int i = 0; i < nz; i++) {
        cd->za[i] = d->z[i] + dt * VD_LSRT2_A21 * cd->dz1[i];
        cd->sz[i] = dt * VD_LSRT2_G21 * cd->dz1[i];
    }
    memcpy(cd->Mn, td->M, (size_t)(N * N) * sizeof(double));
    /* stage 2: the joint model at the bodies placed at (qa, ua), its inputs at t + c2 dt */
    if (d->input_fn)
        d->input_fn(d->input_ctx, d->t + VD_LSRT2_C2 * dt, cd->uin);
    rc = place_at(ce, cd, d, cd->qa, cd->ua, false); /* M(qa), f(qa, ua) only */
    if (rc) {
        d->warn[VD_WARN_NONFINITE]++;
        return rc;
    }
    rc = vd_eval_sel(m, d, d->r, d->v, cd->za, cd->uin, cd->hm, cd->gz, false, false, &skip);
    if (rc)
        return rc;
    vd_tf_tree_h_perm(m, ce->model_tb, cd->hm, cd->h);
    vd_tree_crba(t, td);
    vd_tree_forces(t, td, zero3, cd->h, NULL);
    memcpy(cd->Ml, td->M, (size_t)(N * N) * sizeof(double));
    if (chol(N, cd->Ml)) {
        d->warn[VD_WARN_SINGULAR]++;
        return -EDOM;
    }
    /* M_n M(qa)^-1 f(qa, ua): the u slope in the rows of the step's matrix */
    memcpy(cd->dv2, td->f, (size_t)N * sizeof(double));
    chol_solve(N, cd->Ml, cd->dv2);
    for (int i = 0; i < N; i++) {
        double s = 0.0;

        for (int k = 0; k < N; k++)
            s += cd->Mn[i + N * k] * cd->dv2[k];
        cd->mphi[i] = s;
    }
    /* p2 = K(qa) ua + K sv;  w = K^-1 (sr + c1 p2) */
    vd_tree_qdot(t, cd->qa, cd->ua, cd->p2);
    vd_tree_qdot(t, cd->q, cd->sv, cd->wq);
    for (int i = 0; i < N; i++) {
        cd->p2[i] += cd->wq[i];
        cd->du[i] = cd->sr[i] + c1 * cd->p2[i];
    }
    vd_tf_kinv(t, cd->q, cd->du, cd->wq);
    rc = stage_solve(m, ce, cd, d, c1, cd->mphi, cd->wq, cd->sv, cd->sz, cd->gz, cd->dv2, cd->dz2);
    if (rc)
        return rc;
    /* dr2 = p2 + c1 K dv2; the new state */
    vd_tree_qdot(t, cd->q, cd->dv2, cd->du);
    for (int i = 0; i < N; i++) {
        const double dr2 = cd->p2[i] + c1 * cd->du[i];

        cd->q[i] += dt * (VD_LSRT2_B1 * cd->dr1[i] + VD_LSRT2_B2 * dr2);
        cd->u[i] += dt * (VD_LSRT2_B1 * cd->dv1[i] + VD_LSRT2_B2 * cd->dv2[i]);
    }
    for (int i = 0; i < nz; i++)
        d->z[i] += dt * (VD_LSRT2_B1 * cd->dz1[i] + VD_LSRT2_B2 * cd->dz2[i]);
    return 0;
}

int vd_ce_step(const struct vd_model *m, const struct vd_ce *ce, struct vd_ce_data *cd,
               struct vd_data *d)
{
    const struct vd_tree *t = ce->tree;
    struct vd_tree_data *td = cd->td;
    const int N = t->n, nz = m->nz;
    const bool lsrt2 = m->opt.method == VD_METHOD_LSRT2;
    const double dt = m->opt.dt, h2 = dt * dt;
    const double c1 = lsrt2 ? dt * VD_LSRT2_GAMMA : dt, c12 = c1 * c1;
    const double zero3[3] = {0, 0, 0};
    const struct vd_tree_ext ext = {m->nblk, cd->row, cd->col, d->Jp, d->Jvb};
    /* the joint model's h, g and blocks: not its joints' markers (the step reads no joint) nor
     * the bodies that carry only joints, not the kinematics' copies for the model's own
     * Jacobian products, not the gyroscopic terms (the tree's recursion has its own) */
    const struct vd_eval_skip skip = {ce->mk, ce->nmk, ce->bd, ce->nbd, true,   true,
                                      ce->bu, ce->nbu, ce->cp, ce->ncp, ce->pp, ce->npp};
    int64_t t0 = vd_tf_now_ns(), t1;
    int rc;

    memset(d->stage_ns, 0, sizeof(d->stage_ns));
    /* LIE or LSRT2: another method is refused here, not stepped as something else */
    if (!lsrt2 && m->opt.method != VD_METHOD_LIE)
        return -ENOTSUP;
    if (!cd->synced)
        vd_ce_init(m, ce, cd, d);
    /* evaluation of the joint model at the placed bodies */
    if (d->input_fn)
        d->input_fn(d->input_ctx, d->t, cd->uin);
    else
        memcpy(cd->uin, d->u, (size_t)m->ninput * sizeof(double));
    /* the bodies at the step's start: placed at the end of the last step (the same q, u:
     * the same closures and kinematics, bit for bit), else now */
    if (!placed_at(ce, cd) && vd_ce_place(m, ce, cd, d)) {
        d->warn[VD_WARN_NONFINITE]++;
        return -EDOM;
    }
    rc = vd_eval_sel(m, d, d->r, d->v, d->z, cd->uin, cd->hm, cd->gz, true, true, &skip);
    if (rc)
        return rc;
    vd_tf_tree_h_perm(m, ce->model_tb, cd->hm, cd->h);
    /* M, f, q'' = M^-1 f, and the Jacobians of f - M q'' */
    vd_tree_crba(t, td);
    vd_tree_forces(t, td, zero3, cd->h, NULL);
    memcpy(cd->f, td->f, (size_t)N * sizeof(double));
    memcpy(cd->Ml, td->M, (size_t)(N * N) * sizeof(double));
    if (chol(N, cd->Ml)) { /* M: symmetric positive definite */
        d->warn[VD_WARN_SINGULAR]++;
        return -EDOM;
    }
    memcpy(cd->qdd, cd->f, (size_t)N * sizeof(double));
    chol_solve(N, cd->Ml, cd->qdd);
    if (cd->ref_jac)
        vd_tree_jac(t, td, zero3, cd->h, &ext, cd->qdd);
    else
        vd_tree_jac_fast(t, td, cd->jp, zero3, cd->h, &ext, cd->qdd);
    t1 = vd_tf_now_ns();
    d->stage_ns[VD_STAGE_LINEARIZE] = t1 - t0; /* placement, h and blocks, M, f, Jacobians */
    t0 = t1;
    /* S = M - c1 Ju - c1^2 Jq (c1 = h for the LIE, h gamma for LSRT2);
     * the LIE's rhs = h f + h^2 Jq u */
    for (int k = 0; k < N * N; k++)
        cd->S[k] = td->M[k] - c1 * td->Ju[k] - c12 * td->Jq[k];
    for (int i = 0; i < N && !lsrt2; i++) {
        double s = 0.0;

        for (int k = 0; k < N; k++)
            s += td->Jq[i + N * k] * cd->u[k];
        cd->rhs[i] = dt * cd->f[i] + h2 * s;
    }
    /* tyre states, condensed per tyre: C = c1 Gu + c1^2 Gq (2 x N), Dz = (1 - c1 Gz)^-1;
     * the LIE's rhs += h Jzt Dz (h g + h^2 Gq u) */
    if (vd_tf_tyres(m, t, td, ce->model_tb, d, c1, cd->u, cd->gz, cd->S, lsrt2 ? NULL : cd->rhs,
                    cd->Jb, cd->Jzt, cd->Gq, cd->Gu, cd->Dz)) {
        d->warn[VD_WARN_SINGULAR]++;
        return -EDOM;
    }
    t1 = vd_tf_now_ns();
    d->stage_ns[VD_STAGE_ASSEMBLE] = t1 - t0;
    t0 = t1;
    if (lu(N, cd->S, cd->piv)) {
        d->warn[VD_WARN_SINGULAR]++;
        return -EDOM;
    }
    t1 = vd_tf_now_ns();
    d->stage_ns[VD_STAGE_FACTOR] = t1 - t0;
    t0 = t1;
    if (lsrt2) {
        rc = step_lsrt2(m, ce, cd, d, c1);
        if (rc)
            return rc;
        goto out_advance;
    }
    memcpy(cd->du, cd->rhs, (size_t)N * sizeof(double));
    lu_solve(N, cd->S, cd->piv, cd->du);
    for (int i = 0; i < N; i++)
        if (!isfinite(cd->du[i])) {
            d->warn[VD_WARN_NONFINITE]++;
            return -EDOM;
        }
    /* dz = Dz (rz + C du), then the new state */
    vd_tf_lie_dz(m, N, cd->Gq, cd->Gu, cd->Dz, dt, cd->u, cd->du, cd->gz, d->z);
    (void)nz;
    for (int i = 0; i < N; i++)
        cd->u[i] += cd->du[i];
    vd_tree_qdot(t, cd->q, cd->u, cd->f);
    for (int i = 0; i < N; i++)
        cd->q[i] += dt * cd->f[i];
out_advance:
    d->nstep++;
    d->t = (double)d->nstep * dt;
    rc = vd_ce_place(m, ce, cd, d);
    if (rc)
        d->warn[VD_WARN_NONFINITE]++; /* a loop that cannot close at the new state */
    d->stage_ns[VD_STAGE_STAGES] = vd_tf_now_ns() - t0;
    return rc;
}
