/* core/ce_step.c - the CE form's placement of the model's bodies and its linearly implicit
 * step in tree coordinates (ce.h). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "ce.h"
#include "eval.h"
#include "vdmath.h"

/* ---- stepping --------------------------------------------------------------------------- */

static int64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts); /* vDSO: no syscall */
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int vd_ce_place(const struct vd_model *m, const struct vd_ce *ce, struct vd_ce_data *cd,
                struct vd_data *d)
{
    const struct vd_tree *t = ce->tree;

    cd->placed = 0;
    cd->nplace++;
    if (vd_tree_kin(t, cd->td, cd->q, cd->u))
        return -EDOM;
    for (int b = 0; b < t->nbody; b++) {
        const int mb = ce->tb_model[b];

        vd_tree_body_state(cd->td, b, d->r + 6 * mb, d->v + 6 * mb);
    }
    /* the root keeps its own (unwrapped) angles */
    memcpy(d->r + 6 * ce->tb_model[0] + 3, cd->q + 3, 3 * sizeof(double));
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

/* b = A^-1 b with the factors of lu() */
static void lu_solve(int n, const double *A, const int *piv, double *b)
{
    for (int k = 0; k < n; k++) {
        const double s = b[piv[k]];

        b[piv[k]] = b[k];
        b[k] = s;
        for (int i = k + 1; i < n; i++)
            b[i] -= A[i + n * k] * b[k];
    }
    for (int k = n - 1; k >= 0; k--) {
        for (int j = k + 1; j < n; j++)
            b[k] -= A[k + n * j] * b[j];
        b[k] /= A[k + n * k];
    }
}

/* Jb (6 x n, column-major): the (dx, dpi) of tree body tb per unit of each coordinate: the
 * columns of every node on its path to the root (global Plücker at the origin) carried to
 * its CoM */
static void body_jac(const struct vd_tree *t, const struct vd_tree_data *td, int tb, double *Jb)
{
    const double *x = td->x + 3 * tb;

    memset(Jb, 0, (size_t)(6 * t->n) * sizeof(double));
    for (int p = tb; p >= 0;) {
        const struct vd_tree_node *n = &t->node[t->body[p].node];
        const double *S = td->S + 6 * VD_TREE_MAXD * p;

        for (int j = 0; j < n->nd; j++) {
            double *c = Jb + 6 * (n->off + j), w[3];

            vdu_cross3(w, S + 6 * j, x);
            vdu_add3(c, S + 6 * j + 3, w);
            memcpy(c + 3, S + 6 * j, 3 * sizeof(double));
        }
        p = n->parent;
    }
}

int vd_ce_step(const struct vd_model *m, const struct vd_ce *ce, struct vd_ce_data *cd,
               struct vd_data *d)
{
    const struct vd_tree *t = ce->tree;
    struct vd_tree_data *td = cd->td;
    const int N = t->n, nz = m->nz;
    const double dt = m->opt.dt, h2 = dt * dt;
    const double zero3[3] = {0, 0, 0};
    const struct vd_tree_ext ext = {m->nblk, cd->row, cd->col, d->Jp, d->Jvb};
    int64_t t0 = now_ns(), t1;
    int rc;

    memset(d->stage_ns, 0, sizeof(d->stage_ns));
    /* the LIE only: a method changed after the build (rtvd --solver lsrt2) is refused here,
     * not stepped as something else */
    if (m->opt.method != VD_METHOD_LIE)
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
    rc = vd_eval_ex(m, d, d->r, d->v, d->z, cd->uin, cd->hm, cd->gz, true, true);
    if (rc)
        return rc;
    /* the tree's recursion has its own velocity products: take the gyroscopic terms (and
     * their block) out of h; gravity stays in h */
    for (int b = 0; b < m->nbody; b++) {
        const struct vd_body *bd = &m->body[b];
        const double *w = d->v + 6 * b + 3;
        double Iw[3], g[3], Sw[9], SI[9], SIw[9], *B = d->Jvb + 36 * m->blk_diag[b];
        double *hb = cd->h + 6 * ce->model_tb[b];

        vdu_mat3_vec(Iw, bd->inertia, w);
        vdu_cross3(g, w, Iw);
        memcpy(hb, cd->hm + 6 * b, 6 * sizeof(double));
        vdu_add3(hb + 3, hb + 3, g);
        vdu_skew(Sw, w);
        vdu_mat3_mul(SI, Sw, bd->inertia);
        vdu_skew(SIw, Iw);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                VD_B6(B, 3 + i, 3 + j) += SI[3 * i + j] - SIw[3 * i + j];
    }
    /* M, f, q'' = M^-1 f, and the Jacobians of f - M q'' */
    vd_tree_crba(t, td);
    vd_tree_forces(t, td, zero3, cd->h, NULL);
    memcpy(cd->f, td->f, (size_t)N * sizeof(double));
    memcpy(cd->Ml, td->M, (size_t)(N * N) * sizeof(double));
    if (lu(N, cd->Ml, cd->piv)) {
        d->warn[VD_WARN_SINGULAR]++;
        return -EDOM;
    }
    memcpy(cd->qdd, cd->f, (size_t)N * sizeof(double));
    lu_solve(N, cd->Ml, cd->piv, cd->qdd);
    if (cd->ref_jac)
        vd_tree_jac(t, td, zero3, cd->h, &ext, cd->qdd);
    else
        vd_tree_jac_fast(t, td, cd->jp, zero3, cd->h, &ext, cd->qdd);
    t1 = now_ns();
    d->stage_ns[VD_STAGE_LINEARIZE] = t1 - t0; /* placement, h and blocks, M, f, Jacobians */
    t0 = t1;
    /* S = M - h Ju - h^2 Jq;  rhs = h f + h^2 Jq u */
    for (int k = 0; k < N * N; k++)
        cd->S[k] = td->M[k] - dt * td->Ju[k] - h2 * td->Jq[k];
    for (int i = 0; i < N; i++) {
        double s = 0.0;

        for (int k = 0; k < N; k++)
            s += td->Jq[i + N * k] * cd->u[k];
        cd->rhs[i] = dt * cd->f[i] + h2 * s;
    }
    /* tyre states, condensed per tyre: C = h Gu + h^2 Gq (2 x N), Dz = (1 - h Gz)^-1 */
    for (int k = 0; k < m->ntire; k++) {
        const int tb = ce->model_tb[m->marker[m->tire[k].marker].body];
        const double *A = td->A + 9 * tb, *Jz = d->Jz + 12 * k, *Gp = d->Gp + 12 * k;
        const double *Gv = d->Gv + 12 * k, *Gz = d->Gz + 4 * k;
        double *Jzt = cd->Jzt + 2 * N * k, *Gq = cd->Gq + 2 * N * k, *Gu = cd->Gu + 2 * N * k;
        double *Dz = cd->Dz + 4 * k, D[4], det, rz[2], y[2];
        const int zo = m->tire[k].zoff;

        body_jac(t, td, tb, cd->Jb);
        for (int c = 0; c < N; c++) {
            const double *jp = cd->Jb + 6 * c;
            double jv[6];

            memcpy(jv, jp, 3 * sizeof(double));
            vdu_mat3t_vec(jv + 3, A, jp + 3); /* omega_body = A^T dpi */
            for (int r = 0; r < 2; r++) {
                double gq = 0.0, gu = 0.0;

                for (int i = 0; i < 6; i++) {
                    gq += Gp[6 * r + i] * jp[i];
                    gu += Gv[6 * r + i] * jv[i];
                }
                Gq[r + 2 * c] = gq;
                Gu[r + 2 * c] = gu;
                Jzt[c + N * r] = 0.0;
                for (int i = 0; i < 6; i++)
                    Jzt[c + N * r] += jv[i] * Jz[i + 6 * r];
            }
        }
        D[0] = 1.0 - dt * Gz[0];
        D[1] = -dt * Gz[1];
        D[2] = -dt * Gz[2];
        D[3] = 1.0 - dt * Gz[3];
        det = D[0] * D[3] - D[1] * D[2];
        if (!(fabs(det) > 0.0)) {
            d->warn[VD_WARN_SINGULAR]++;
            return -EDOM;
        }
        Dz[0] = D[3] / det;
        Dz[1] = -D[1] / det;
        Dz[2] = -D[2] / det;
        Dz[3] = D[0] / det;
        /* rz = h g + h^2 Gq u */
        for (int r = 0; r < 2; r++) {
            double s = 0.0;

            for (int c = 0; c < N; c++)
                s += Gq[r + 2 * c] * cd->u[c];
            rz[r] = dt * cd->gz[zo + r] + h2 * s;
        }
        y[0] = Dz[0] * rz[0] + Dz[1] * rz[1];
        y[1] = Dz[2] * rz[0] + Dz[3] * rz[1];
        for (int i = 0; i < N; i++)
            cd->rhs[i] += dt * (Jzt[i] * y[0] + Jzt[i + N] * y[1]);
        /* S -= h Jzt Dz C */
        for (int c = 0; c < N; c++) {
            const double c0 = dt * Gu[2 * c] + h2 * Gq[2 * c];
            const double c1 = dt * Gu[1 + 2 * c] + h2 * Gq[1 + 2 * c];
            const double e0 = Dz[0] * c0 + Dz[1] * c1, e1 = Dz[2] * c0 + Dz[3] * c1;

            for (int i = 0; i < N; i++)
                cd->S[i + N * c] -= dt * (Jzt[i] * e0 + Jzt[i + N] * e1);
        }
    }
    t1 = now_ns();
    d->stage_ns[VD_STAGE_ASSEMBLE] = t1 - t0;
    t0 = t1;
    if (lu(N, cd->S, cd->piv)) {
        d->warn[VD_WARN_SINGULAR]++;
        return -EDOM;
    }
    t1 = now_ns();
    d->stage_ns[VD_STAGE_FACTOR] = t1 - t0;
    t0 = t1;
    memcpy(cd->du, cd->rhs, (size_t)N * sizeof(double));
    lu_solve(N, cd->S, cd->piv, cd->du);
    for (int i = 0; i < N; i++)
        if (!isfinite(cd->du[i])) {
            d->warn[VD_WARN_NONFINITE]++;
            return -EDOM;
        }
    /* dz = Dz (rz + C du), then the new state */
    for (int k = 0; k < m->ntire; k++) {
        const double *Gq = cd->Gq + 2 * N * k, *Gu = cd->Gu + 2 * N * k, *Dz = cd->Dz + 4 * k;
        const int zo = m->tire[k].zoff;
        double rz[2];

        for (int r = 0; r < 2; r++) {
            double s = 0.0;

            for (int c = 0; c < N; c++)
                s += h2 * Gq[r + 2 * c] * cd->u[c] +
                     (dt * Gu[r + 2 * c] + h2 * Gq[r + 2 * c]) * cd->du[c];
            rz[r] = dt * cd->gz[zo + r] + s;
        }
        d->z[zo] += Dz[0] * rz[0] + Dz[1] * rz[1];
        d->z[zo + 1] += Dz[2] * rz[0] + Dz[3] * rz[1];
    }
    (void)nz;
    for (int i = 0; i < N; i++)
        cd->u[i] += cd->du[i];
    vd_tree_qdot(t, cd->q, cd->u, cd->f);
    for (int i = 0; i < N; i++)
        cd->q[i] += dt * cd->f[i];
    d->nstep++;
    d->t = (double)d->nstep * dt;
    rc = vd_ce_place(m, ce, cd, d);
    d->stage_ns[VD_STAGE_STAGES] = now_ns() - t0;
    return rc;
}
