/* core/ta_step.c - the TA form's placement of the model's bodies and its constrained LIE and
 * LSRT2 steps in tree coordinates with the projections (ta.h). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "eval.h"
#include "kinematics.h"
#include "linalg.h"
#include "step.h"
#include "ta.h"
#include "treeform.h"
#include "vdmath.h"

/* ---- stepping --------------------------------------------------------------------------- */

/* the model's r, v and td's kinematics at the tree state (q, u); 0 or -EDOM */
static int place_at(const struct vd_ta *ta, struct vd_ta_data *tad, struct vd_data *d,
                    const double *q, const double *u)
{
    const struct vd_tree *t = ta->tree;

    if (vd_tree_kin(t, tad->td, q, u))
        return -EDOM;
    for (int b = 0; b < t->nbody; b++) {
        const int mb = ta->tb_model[b];

        vd_tree_body_state(tad->td, b, d->r + 6 * mb, d->v + 6 * mb);
    }
    /* the root keeps its own (unwrapped) angles */
    memcpy(d->r + 6 * ta->tb_model[0] + 3, q + 3, 3 * sizeof(double));
    return 0;
}

int vd_ta_place(const struct vd_model *m, const struct vd_ta *ta, struct vd_ta_data *tad,
                struct vd_data *d)
{
    (void)m;
    return place_at(ta, tad, d, tad->q, tad->u);
}

/* y = G x (the cut rows in tad->G) */
static void g_mul(const struct vd_ta *ta, const struct vd_ta_data *tad, const double *x, double *y)
{
    const int N = ta->tree->n, mc = ta->m;

    for (int r = 0; r < mc; r++) {
        double s = 0.0;

        for (int c = 0; c < N; c++)
            s += tad->G[r + mc * c] * x[c];
        y[r] = s;
    }
}

/* the augmented system's LU: dense (LAPACK, the reference) or, with solver.linear
 * structured, the bordered block LU of its clusters (ta.h, core/bblu.h); 0 or not */
static int ta_factor(const struct vd_model *m, const struct vd_ta *ta, struct vd_ta_data *tad)
{
    const int NA = ta->tree->n + ta->m;

    if (m->opt.linear == VD_LINEAR_STRUCTURED)
        return vd_bblu_factor(&ta->lu, tad->K, tad->F, tad->piv);
    return vd_lu_factor(NA, tad->K, tad->piv);
}

/* x = K^-1 x with the factors of ta_factor */
static void ta_solve(const struct vd_model *m, const struct vd_ta *ta, struct vd_ta_data *tad,
                     double *x)
{
    const int NA = ta->tree->n + ta->m;

    if (m->opt.linear == VD_LINEAR_STRUCTURED)
        vd_bblu_solve(&ta->lu, tad->F, tad->piv, x, tad->fw);
    else
        vd_lu_solve(NA, tad->K, tad->piv, x, 1);
}

/* a velocity correction with the step's factors: [S G_n^T; G_n 0] (du; nu) = (0; -G x), x +=
 * du (numerics.md §2.2, the simplified Newton step of the velocities; G the rows in tad->G:
 * those of q_n at the step's start, of q+ after the position projection, G_n in the factors
 * either way); returns max |G x| before the correction */
static double correct_u(const struct vd_model *m, const struct vd_ta *ta, struct vd_ta_data *tad,
                        double *x)
{
    const int N = ta->tree->n, mc = ta->m;
    double w = 0.0;

    memset(tad->rhs, 0, (size_t)N * sizeof(double));
    g_mul(ta, tad, x, tad->rhs + N);
    for (int r = 0; r < mc; r++) {
        w = fmax(w, fabs(tad->rhs[N + r]));
        tad->rhs[N + r] = -tad->rhs[N + r];
    }
    ta_solve(m, ta, tad, tad->rhs);
    for (int i = 0; i < N; i++)
        x[i] += tad->rhs[i];
    return w;
}

/* one LSRT2 stage (numerics.md §1.5, the W-form, as ce_step.c's) with the cut rows at
 * acceleration level on the step's factors [S G_n^T; G_n 0] (S with the tyre states condensed,
 * c1 = dt gamma):
 *   S dv + G_n^T l = Mphi + Jq w + Ju sv + Jzt (sz + c1 dz),   G_n dv = cr,
 *   (1 - c1 Gz) dz = g + Gq w + Gu (sv + c1 dv) + Gz sz,   w = K^-1 (sr + c1 p)
 * (sv, sz NULL: zero); dv, dz the stage's slopes, l in tad->rhs + n. 0 or -EDOM */
static int stage_solve(const struct vd_model *m, const struct vd_ta *ta, struct vd_ta_data *tad,
                       struct vd_data *d, double c1, const double *Mphi, const double *w,
                       const double *sv, const double *sz, const double *g, const double *cr,
                       double *dv, double *dz)
{
    const int N = ta->tree->n, mc = ta->m;
    double *x = tad->rhs;

    vd_tf_stage_rhs(m, tad->td, d, N, tad->Gq, tad->Gu, tad->Dz, tad->Jzt, c1, Mphi, w, sv, sz, g,
                    tad->rz, x);
    memcpy(x + N, cr, (size_t)mc * sizeof(double));
    ta_solve(m, ta, tad, x);
    for (int i = 0; i < N; i++) {
        if (!isfinite(x[i])) {
            d->warn[VD_WARN_NONFINITE]++;
            return -EDOM;
        }
        dv[i] = x[i];
    }
    vd_tf_tyre_dz(m, N, tad->Gq, tad->Gu, tad->Dz, tad->rz, c1, dv, dz);
    return 0;
}

/* LSRT2 after the factorization (ta.h): the start velocity onto G_n u = 0, stage 1 at (q_n,
 * u_n), stage 2 at (qa, ua, za, t + c2 dt) with the joint model evaluated at the bodies placed
 * there, M, f, G and gamma there, then the update into q (q~ before the projection), u, z */
static int step_lsrt2(const struct vd_model *m, const struct vd_ta *ta, struct vd_ta_data *tad,
                      struct vd_data *d, double c1)
{
    const struct vd_tree *t = ta->tree;
    struct vd_tree_data *td = tad->td;
    const int N = t->n, mc = ta->m, nz = m->nz;
    const double dt = m->opt.dt, zero3[3] = {0, 0, 0};
    double *x = tad->rhs;
    int rc;

    /* the start velocity onto G_n u = 0 with the factors: the stages hold G a = -gamma, which
     * keeps a velocity defect as it is. f and the tyre-state rates follow to first order in
     * the change du (Ju, Gu): exact for a running step's consistent states, where du is of
     * the last step's velocity residual */
    tad->vres_start = correct_u(m, ta, tad, tad->u);
    for (int i = 0; i < N; i++) {
        double s = 0.0;

        for (int k = 0; k < N; k++)
            s += td->Ju[i + N * k] * x[k];
        tad->f[i] += s;
    }
    for (int k = 0; k < m->ntire; k++) {
        const double *Gu = tad->Gu + 2 * N * k;
        const int zo = m->tire[k].zoff;

        for (int r = 0; r < 2; r++)
            for (int c = 0; c < N; c++)
                tad->gz[zo + r] += Gu[r + 2 * c] * x[c];
    }
    /* stage 1: p1 = K u, w = K^-1 (c1 p1) = c1 u; G_n a = -gamma_n */
    for (int i = 0; i < N; i++)
        tad->wq[i] = c1 * tad->u[i];
    for (int r = 0; r < mc; r++)
        tad->gdv[r] = -tad->gam[r];
    rc = stage_solve(m, ta, tad, d, c1, tad->f, tad->wq, NULL, NULL, tad->gz, tad->gdv, tad->dv1,
                     tad->dz1);
    if (rc)
        return rc;
    /* what stage 2 needs of the step's M_n, G_n: M_n dv1, G_n^T l1, G_n dv1 */
    memset(tad->gtl, 0, (size_t)N * sizeof(double));
    for (int c = 0; c < N; c++) {
        double s = 0.0, sm = 0.0;

        for (int r = 0; r < mc; r++)
            s += tad->G[r + mc * c] * x[N + r];
        tad->gtl[c] = s;
        for (int k = 0; k < N; k++)
            sm += td->M[c + N * k] * tad->dv1[k];
        tad->mdv[c] = sm;
    }
    g_mul(ta, tad, tad->dv1, tad->gdv);
    /* dr1 = K (u + c1 dv1); the stage-2 arguments and the g21 couplings */
    for (int i = 0; i < N; i++)
        tad->p2[i] = tad->u[i] + c1 * tad->dv1[i];
    vd_tree_qdot(t, tad->q, tad->p2, tad->dr1);
    for (int i = 0; i < N; i++) {
        tad->qa[i] = tad->q[i] + dt * VD_LSRT2_A21 * tad->dr1[i];
        tad->ua[i] = tad->u[i] + dt * VD_LSRT2_A21 * tad->dv1[i];
        tad->sr[i] = dt * VD_LSRT2_G21 * tad->dr1[i];
        tad->sv[i] = dt * VD_LSRT2_G21 * tad->dv1[i];
    }
    for (int i = 0; i < nz; i++) {
        tad->za[i] = d->z[i] + dt * VD_LSRT2_A21 * tad->dz1[i];
        tad->sz[i] = dt * VD_LSRT2_G21 * tad->dz1[i];
    }
    /* stage 2: the joint model at the bodies placed at (qa, ua), its inputs at t + c2 dt */
    if (d->input_fn)
        d->input_fn(d->input_ctx, d->t + VD_LSRT2_C2 * dt, tad->uin);
    if (place_at(ta, tad, d, tad->qa, tad->ua)) {
        d->warn[VD_WARN_NONFINITE]++;
        return -EDOM;
    }
    rc = vd_eval_ex(m, d, d->r, d->v, tad->za, tad->uin, tad->hm, tad->gz, false, false);
    if (rc)
        return rc;
    vd_tf_tree_h(m, ta->model_tb, tad->hm, tad->h, d, false);
    vd_tree_crba(t, td);
    vd_tree_forces(t, td, zero3, tad->h, NULL);
    vd_ta_cuts(ta, tad, 1); /* G_2, gamma_2 (the factors keep G_n) */
    /* the exact stage acceleration a2 solves M_2 a2 + G_2^T l2 = f_2, G_2 a2 = -gamma_2; in the
     * step's rows M_n a2 + G_n^T l2 = f_2 - (M_2 - M_n) a2 - (G_2 - G_n)^T l2 and G_n a2 =
     * -gamma_2 - (G_2 - G_n) a2, with dv1, l1 for a2, l2 (cstep.h's argument: M_2 - M_n and
     * G_2 - G_n are O(dt), dv1 - a2 and l1 - l2 too: O(dt^2) in the stage, O(dt^3) per step) */
    for (int i = 0; i < N; i++) {
        double s = td->f[i] + tad->mdv[i] + tad->gtl[i];

        for (int k = 0; k < N; k++)
            s -= td->M[i + N * k] * tad->dv1[k];
        for (int r = 0; r < mc; r++)
            s -= tad->G[r + mc * i] * x[N + r];
        tad->f[i] = s;
    }
    g_mul(ta, tad, tad->dv1, tad->wq);
    for (int r = 0; r < mc; r++)
        tad->gdv[r] -= tad->gam[r] + tad->wq[r];
    /* p2 = K(qa) ua + K sv;  w = K^-1 (sr + c1 p2) */
    vd_tree_qdot(t, tad->qa, tad->ua, tad->p2);
    vd_tree_qdot(t, tad->q, tad->sv, tad->wq);
    for (int i = 0; i < N; i++) {
        tad->p2[i] += tad->wq[i];
        tad->qd[i] = tad->sr[i] + c1 * tad->p2[i];
    }
    vd_tf_kinv(t, tad->q, tad->qd, tad->wq);
    rc = stage_solve(m, ta, tad, d, c1, tad->f, tad->wq, tad->sv, tad->sz, tad->gz, tad->gdv,
                     tad->dv2, tad->dz2);
    if (rc)
        return rc;
    /* dr2 = p2 + c1 K dv2; the new state (q~ before the projection) */
    vd_tree_qdot(t, tad->q, tad->dv2, tad->qd);
    for (int i = 0; i < N; i++) {
        const double dr2 = tad->p2[i] + c1 * tad->qd[i];

        tad->q[i] += dt * (VD_LSRT2_B1 * tad->dr1[i] + VD_LSRT2_B2 * dr2);
        tad->u[i] += dt * (VD_LSRT2_B1 * tad->dv1[i] + VD_LSRT2_B2 * tad->dv2[i]);
        tad->acc[i] = VD_LSRT2_B1 * tad->dv1[i] + VD_LSRT2_B2 * tad->dv2[i];
    }
    for (int i = 0; i < nz; i++)
        d->z[i] += dt * (VD_LSRT2_B1 * tad->dz1[i] + VD_LSRT2_B2 * tad->dz2[i]);
    return 0;
}

/* the LIE's solve after the factorization: du, the tyre states, u+ = u + du, q~ = q + h K(q)
 * u+ */
static int step_lie(const struct vd_model *m, const struct vd_ta *ta, struct vd_ta_data *tad,
                    struct vd_data *d)
{
    const struct vd_tree *t = ta->tree;
    const int N = t->n;
    const double dt = m->opt.dt;
    double *du = tad->rhs;

    ta_solve(m, ta, tad, du);
    for (int i = 0; i < N; i++)
        if (!isfinite(du[i])) {
            d->warn[VD_WARN_NONFINITE]++;
            return -EDOM;
        }
    /* dz = Dz (rz + C du) */
    vd_tf_lie_dz(m, N, tad->Gq, tad->Gu, tad->Dz, dt, tad->u, du, tad->gz, d->z);
    for (int i = 0; i < N; i++) {
        tad->u[i] += du[i];
        tad->acc[i] = du[i] / dt;
    }
    vd_tree_qdot(t, tad->q, tad->u, tad->qd);
    for (int i = 0; i < N; i++)
        tad->q[i] += dt * tad->qd[i];
    return 0;
}

int vd_ta_step(const struct vd_model *m, const struct vd_ta *ta, struct vd_ta_data *tad,
               struct vd_data *d)
{
    const struct vd_tree *t = ta->tree;
    struct vd_tree_data *td = tad->td;
    const int N = t->n, mc = ta->m, NA = N + mc;
    const bool lsrt2 = m->opt.method == VD_METHOD_LSRT2;
    const double dt = m->opt.dt, h2 = dt * dt;
    const double c1 = lsrt2 ? dt * VD_LSRT2_GAMMA : dt, c12 = c1 * c1;
    const double zero3[3] = {0, 0, 0};
    const struct vd_tree_ext ext = {m->nblk, tad->row, tad->col, d->Jp, d->Jvb};
    int64_t t0 = vd_tf_now_ns(), t1;
    int rc;

    memset(d->stage_ns, 0, sizeof(d->stage_ns));
    /* LIE or LSRT2: another method is refused here, not stepped as something else */
    if (!lsrt2 && m->opt.method != VD_METHOD_LIE)
        return -ENOTSUP;
    if (!tad->synced)
        vd_ta_init(m, ta, tad, d);
    if (d->input_fn)
        d->input_fn(d->input_ctx, d->t, tad->uin);
    else
        memcpy(tad->uin, d->u, (size_t)m->ninput * sizeof(double));
    if (vd_ta_place(m, ta, tad, d)) {
        d->warn[VD_WARN_NONFINITE]++;
        return -EDOM;
    }
    rc = vd_eval_ex(m, d, d->r, d->v, d->z, tad->uin, tad->hm, tad->gz, true, true);
    if (rc)
        return rc;
    /* the gyroscopic terms (and their block) out of h: the recursion has its own */
    vd_tf_tree_h(m, ta->model_tb, tad->hm, tad->h, d, true);
    /* M, f, the cut rows at q_n (LSRT2: with gamma, from the bias accelerations of
     * vd_tree_forces), the Jacobians of f - M q'' at the last step's q'' */
    vd_tree_crba(t, td);
    vd_tree_forces(t, td, zero3, tad->h, NULL);
    memcpy(tad->f, td->f, (size_t)N * sizeof(double));
    vd_ta_cuts(ta, tad, lsrt2);
    if (tad->ref_jac)
        vd_tree_jac(t, td, zero3, tad->h, &ext, tad->acc);
    else
        vd_tree_jac_fast(t, td, tad->jp, zero3, tad->h, &ext, tad->acc);
    t1 = vd_tf_now_ns();
    d->stage_ns[VD_STAGE_LINEARIZE] = t1 - t0;
    t0 = t1;
    /* S = M - c1 Ju - c1^2 Jq (c1 = h for the LIE, h gamma for LSRT2); the LIE's rhs = h f +
     * h^2 Jq u (+ the tyres' terms) */
    for (int k = 0; k < N * N; k++)
        tad->S[k] = td->M[k] - c1 * td->Ju[k] - c12 * td->Jq[k];
    for (int i = 0; i < N && !lsrt2; i++) {
        double s = 0.0;

        for (int k = 0; k < N; k++)
            s += td->Jq[i + N * k] * tad->u[k];
        tad->rhs[i] = dt * tad->f[i] + h2 * s;
    }
    if (vd_tf_tyres(m, t, td, ta->model_tb, d, c1, tad->u, tad->gz, tad->S, lsrt2 ? NULL : tad->rhs,
                    tad->Jb, tad->Jzt, tad->Gq, tad->Gu, tad->Dz)) {
        d->warn[VD_WARN_SINGULAR]++;
        return -EDOM;
    }
    /* [S G^T; G 0]; the LIE's right-hand side (rhs; -G u) */
    for (int c = 0; c < N; c++) {
        double *Kc = tad->K + (size_t)NA * (size_t)c;

        memcpy(Kc, tad->S + N * c, (size_t)N * sizeof(double));
        for (int r = 0; r < mc; r++) {
            Kc[N + r] = tad->G[r + mc * c];
            tad->K[(size_t)c + (size_t)NA * (size_t)(N + r)] = tad->G[r + mc * c];
        }
    }
    for (int c = N; c < NA; c++)
        memset(tad->K + (size_t)NA * (size_t)c + N, 0, (size_t)mc * sizeof(double));
    if (!lsrt2) {
        g_mul(ta, tad, tad->u, tad->rhs + N);
        for (int r = 0; r < mc; r++)
            tad->rhs[N + r] = -tad->rhs[N + r];
    }
    t1 = vd_tf_now_ns();
    d->stage_ns[VD_STAGE_ASSEMBLE] = t1 - t0;
    t0 = t1;
    if (ta_factor(m, ta, tad)) {
        d->warn[VD_WARN_SINGULAR]++;
        return -EDOM;
    }
    t1 = vd_tf_now_ns();
    d->stage_ns[VD_STAGE_FACTOR] = t1 - t0;
    t0 = t1;
    rc = lsrt2 ? step_lsrt2(m, ta, tad, d, c1) : step_lie(m, ta, tad, d);
    if (rc)
        return rc;
    /* the projection: [S G^T; G 0] (ds; nu) = (0; -g(q~)), q+ = q~ + K(q~) ds */
    if (vd_tree_kin(t, td, tad->q, tad->u)) {
        d->warn[VD_WARN_NONFINITE]++;
        return -EDOM;
    }
    tad->gres_pre = vd_ta_cut_values(ta, tad); /* G stays that of q_n, in the factors */
    tad->vres_pre = 0.0;
    if (m->opt.project != VD_PROJECT_NONE) {
        memset(tad->rhs, 0, (size_t)N * sizeof(double));
        for (int r = 0; r < mc; r++)
            tad->rhs[N + r] = -tad->g[r];
        ta_solve(m, ta, tad, tad->rhs);
        vd_tree_qdot(t, tad->q, tad->rhs, tad->qd);
        for (int i = 0; i < N; i++)
            tad->q[i] += tad->qd[i];
    }
    /* both: the velocities onto G(q+) u = 0, the same factors (G_n in them) */
    if (m->opt.project == VD_PROJECT_BOTH) {
        if (vd_tree_kin(t, td, tad->q, tad->u)) {
            d->warn[VD_WARN_NONFINITE]++;
            return -EDOM;
        }
        vd_ta_cuts(ta, tad, 0);
        tad->vres_pre = correct_u(m, ta, tad, tad->u);
    }
    d->nstep++;
    d->t = (double)d->nstep * dt;
    rc = vd_ta_place(m, ta, tad, d);
    if (!rc)
        d->cres = vd_ta_cut_values(ta, tad); /* as a joint model's: after the projection */
    d->stage_ns[VD_STAGE_STAGES] = vd_tf_now_ns() - t0;
    return rc;
}
