/* core/ce.c - the CE form of a joint vehicle: the tree from the model, the placement of the
 * model's bodies and the linearly implicit Euler step in tree coordinates (ce.h). */
#include "ce.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"
#include "kinematics.h"
#include "vdmath.h"

/* ---- building --------------------------------------------------------------------------- */

/* the CoM pose of body b at the model's initial state */
static void com_pose(const struct vd_model *m, int b, double A[9], double x[3])
{
    const double *p = m->body[b].pose0;
    double t[3];

    vdu_cardan_zyx(A, p[3], p[4], p[5]);
    vdu_mat3_vec(t, A, m->body[b].com);
    vdu_add3(x, p, t);
}

/* mass properties of model body b; A0, x0 relative to the CoM frame of model body p */
static void tbody(const struct vd_model *m, int b, int p, struct vd_tree_body *tb)
{
    double Ab[9], xb[3], Ap[9], xp[3], t[3];

    memset(tb, 0, sizeof(*tb));
    tb->mass = m->body[b].mass;
    memcpy(tb->inertia, m->body[b].inertia, sizeof(tb->inertia));
    com_pose(m, b, Ab, xb);
    com_pose(m, p, Ap, xp);
    vdu_mat3t_mul(tb->A0, Ap, Ab);
    vdu_sub3(t, xb, xp);
    vdu_mat3t_vec(tb->x0, Ap, t);
}

static int add_body(struct vd_ce *ce, int mb, int *ntb)
{
    if (ce->model_tb[mb] >= 0)
        return -EINVAL;
    ce->model_tb[mb] = *ntb;
    ce->tb_model[(*ntb)++] = mb;
    return 0;
}

struct vd_ce *vd_ce_build(const struct vd_model *m, const char *weld, char *err, size_t errlen)
{
    struct vd_ce *ce = calloc(1, sizeof(*ce));
    struct vd_tree_node n;
    struct vd_tree_body tb[VD_DWC_NB];
    int root, ntb = 0;
    char name[2 * VD_NAME_MAX];

    if (!ce)
        goto out_nomem;
    ce->tree = vd_tree_new();
    ce->tb_model = malloc((size_t)m->nbody * sizeof(int));
    ce->model_tb = malloc((size_t)m->nbody * sizeof(int));
    if (!ce->tree || !ce->tb_model || !ce->model_tb)
        goto out_nomem;
    for (int b = 0; b < m->nbody; b++)
        ce->model_tb[b] = -1;
    root = m->opt.root[0] ? vd_model_find_body(m, m->opt.root) : vd_model_find_body(m, "chassis");
    if (root < 0) {
        snprintf(err, errlen, "formulation ce: no root body (solver.root or chassis)");
        goto out_free;
    }
    /* the root: free */
    memset(&n, 0, sizeof(n));
    n.type = VD_TREE_FREE;
    n.parent = -1;
    tbody(m, root, root, &tb[0]);
    vd_tree_add(ce->tree, &n, tb, 1);
    add_body(ce, root, &ntb);
    /* welded bodies */
    if (weld && weld[0])
        for (int b = 0; b < m->nbody; b++)
            if (b != root && !strncmp(m->body[b].name, weld, strlen(weld))) {
                memset(&n, 0, sizeof(n));
                n.type = VD_TREE_FIXED;
                n.parent = 0;
                tbody(m, b, root, &tb[0]);
                if (vd_tree_add(ce->tree, &n, tb, 1) < 0)
                    goto out_nomem;
                add_body(ce, b, &ntb);
                ce->nweld++;
            }
    /* corners: every joint <prefix>.lca_pivot */
    for (int j = 0; j < m->njoint; j++) {
        const char *nm = m->joint[j].name, *dot = strrchr(nm, '.');
        struct vd_dwc *c;
        int body[VD_DWC_NB], tr, mount, kn, wh, br;

        if (!dot || strcmp(dot, ".lca_pivot"))
            continue;
        if (ce->ncorner == VD_CE_MAXCORNER) {
            snprintf(err, errlen, "formulation ce: more than %d corners", VD_CE_MAXCORNER);
            goto out_free;
        }
        c = &ce->corner[ce->ncorner];
        snprintf(ce->corner_name[ce->ncorner], VD_NAME_MAX, "%.*s", (int)(dot - nm), nm);
        if (vd_dwc_from_model(c, m, ce->corner_name[ce->ncorner], root, NULL, body, err, errlen))
            goto out_free;
        /* the tie rod's mount must move with the root */
        snprintf(name, sizeof(name), "%s.tierod_inner", ce->corner_name[ce->ncorner]);
        tr = vd_model_find_joint(m, name);
        mount = m->marker[m->joint[tr].mk[1]].body;
        if (mount != root &&
            (mount < 0 || ce->model_tb[mount] < 0 ||
             ce->tree->node[ce->tree->body[ce->model_tb[mount]].node].type != VD_TREE_FIXED)) {
            snprintf(err, errlen,
                     "formulation ce: %s: the tie rod hangs on %s, which moves against the "
                     "root (a steering node is not built yet: weld the steering)",
                     ce->corner_name[ce->ncorner], mount >= 0 ? m->body[mount].name : "ground");
            goto out_free;
        }
        memset(&n, 0, sizeof(n));
        n.type = VD_TREE_EMBEDDED;
        n.parent = 0;
        n.nd = c->nd;
        n.fn = vd_dwc_closure;
        n.ctx = c;
        for (int k = 0; k < VD_DWC_NB; k++)
            tbody(m, body[k], root, &tb[k]);
        if (vd_tree_add(ce->tree, &n, tb, VD_DWC_NB) < 0)
            goto out_nomem;
        for (int k = 0; k < VD_DWC_NB; k++)
            if (add_body(ce, body[k], &ntb)) {
                snprintf(err, errlen, "formulation ce: body %s in two corners",
                         m->body[body[k]].name);
                goto out_free;
            }
        /* the wheel: a revolute on the knuckle about the bearing's spin axis (x of its
         * knuckle-side marker, the Cardan bushing's unbounded rx) */
        kn = body[VD_DWC_KNUCKLE];
        snprintf(name, sizeof(name), "%s.bearing", ce->corner_name[ce->ncorner]);
        br = vd_model_find_bushing(m, name);
        if (br < 0 || m->marker[m->bush[br].mk[1]].body != kn) {
            snprintf(err, errlen, "formulation ce: no wheel bearing %s on the knuckle", name);
            goto out_free;
        }
        wh = m->marker[m->bush[br].mk[0]].body;
        {
            const struct vd_marker *mk = &m->marker[m->bush[br].mk[1]];

            memset(&n, 0, sizeof(n));
            n.type = VD_TREE_REVOLUTE;
            n.parent = ce->model_tb[kn];
            n.axis[0] = mk->rot[0];
            n.axis[1] = mk->rot[3];
            n.axis[2] = mk->rot[6];
            memcpy(n.point, mk->s, sizeof(n.point));
        }
        tbody(m, wh, kn, &tb[0]);
        if (vd_tree_add(ce->tree, &n, tb, 1) < 0 || add_body(ce, wh, &ntb)) {
            snprintf(err, errlen, "formulation ce: wheel %s", m->body[wh].name);
            goto out_free;
        }
        ce->ncorner++;
    }
    for (int b = 0; b < m->nbody; b++)
        if (ce->model_tb[b] < 0) {
            snprintf(err, errlen,
                     "formulation ce: body %s is neither the root, a double wishbone's (with "
                     "connection: joints), a wheel nor welded",
                     m->body[b].name);
            goto out_free;
        }
    return ce;
out_nomem:
    snprintf(err, errlen, "formulation ce: out of memory");
out_free:
    vd_ce_free(ce);
    return NULL;
}

void vd_ce_free(struct vd_ce *ce)
{
    if (!ce)
        return;
    vd_tree_free(ce->tree);
    free(ce->tb_model);
    free(ce->model_tb);
    free(ce);
}

struct vd_ce_data *vd_ce_data_new(const struct vd_model *m, const struct vd_ce *ce)
{
    const size_t n = (size_t)ce->tree->n, nb = (size_t)ce->tree->nbody, nt = (size_t)m->ntire;
    struct vd_ce_data *cd = calloc(1, sizeof(*cd));
    double *p;

    if (!cd)
        return NULL;
    cd->td = vd_tree_data_new(ce->tree);
    p = calloc(5 * n + 6 * nb + 2 * n * n + 6 * n + 6 * n * nt + 4 * nt + (size_t)m->nz +
                   (size_t)m->ninput + (size_t)m->nq,
               sizeof(double));
    cd->piv = calloc(n, sizeof(int));
    cd->row = calloc((size_t)m->nblk + 1, sizeof(int));
    cd->col = calloc((size_t)m->nblk + 1, sizeof(int));
    if (!cd->td || !p || !cd->piv || !cd->row || !cd->col) {
        free(p);
        vd_ce_data_free(cd);
        return NULL;
    }
    cd->q = p, p += n;
    cd->u = p, p += n;
    cd->f = p, p += n;
    cd->qdd = p, p += n;
    cd->du = p, p += n;
    cd->h = p, p += 6 * nb;
    cd->S = p, p += n * n;
    cd->Ml = p, p += n * n;
    cd->Jb = p, p += 6 * n;
    cd->Jzt = p, p += 2 * n * nt;
    cd->Gq = p, p += 2 * n * nt;
    cd->Gu = p, p += 2 * n * nt;
    cd->Dz = p, p += 4 * nt;
    cd->gz = p, p += (size_t)m->nz;
    cd->uin = p, p += (size_t)m->ninput;
    cd->hm = p;
    cd->rhs = cd->qdd; /* reused after q'' is consumed by the Jacobians */
    for (int i = 0; i < m->nbody; i++)
        for (int e = m->blk_rowptr[i]; e < m->blk_rowptr[i + 1]; e++) {
            cd->row[e] = ce->model_tb[i];
            cd->col[e] = ce->model_tb[m->blk_col[e]];
        }
    return cd;
}

void vd_ce_data_free(struct vd_ce_data *cd)
{
    if (!cd)
        return;
    vd_tree_data_free(cd->td);
    free(cd->q);
    free(cd->piv);
    free(cd->row);
    free(cd->col);
    free(cd);
}

void vd_ce_init(const struct vd_model *m, const struct vd_ce *ce, struct vd_ce_data *cd,
                const struct vd_data *d)
{
    const struct vd_tree *t = ce->tree;

    memset(cd->q, 0, (size_t)t->n * sizeof(double));
    memset(cd->u, 0, (size_t)t->n * sizeof(double));
    for (int in = 0; in < t->nnode; in++) {
        const struct vd_tree_node *n = &t->node[in];
        const int mb = ce->tb_model[n->b0];

        if (n->type == VD_TREE_FREE) {
            memcpy(cd->q + n->off, d->r + 6 * mb, 6 * sizeof(double));
            memcpy(cd->u + n->off, d->v + 6 * mb, 6 * sizeof(double));
        } else if (n->type == VD_TREE_REVOLUTE) {
            /* spin rate: (omega_wheel - omega_parent) . axis, global */
            const int pb = ce->tb_model[n->parent];
            double Aw[9], Ap[9], ww[3], wp[3], a[3];

            vdu_cardan_zyx(Aw, d->r[6 * mb + 3], d->r[6 * mb + 4], d->r[6 * mb + 5]);
            vdu_cardan_zyx(Ap, d->r[6 * pb + 3], d->r[6 * pb + 4], d->r[6 * pb + 5]);
            vdu_mat3_vec(ww, Aw, d->v + 6 * mb + 3);
            vdu_mat3_vec(wp, Ap, d->v + 6 * pb + 3);
            vdu_mat3_vec(a, Ap, n->axis);
            cd->u[n->off] = vdu_dot3(ww, a) - vdu_dot3(wp, a);
        }
    }
    (void)m;
}

/* ---- stepping --------------------------------------------------------------------------- */

int vd_ce_place(const struct vd_model *m, const struct vd_ce *ce, struct vd_ce_data *cd,
                struct vd_data *d)
{
    const struct vd_tree *t = ce->tree;

    if (vd_tree_kin(t, cd->td, cd->q, cd->u))
        return -EDOM;
    for (int b = 0; b < t->nbody; b++) {
        const int mb = ce->tb_model[b];

        vd_tree_body_state(cd->td, b, d->r + 6 * mb, d->v + 6 * mb);
    }
    /* the root keeps its own (unwrapped) angles */
    memcpy(d->r + 6 * ce->tb_model[0] + 3, cd->q + 3, 3 * sizeof(double));
    (void)m;
    return 0;
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
    int rc;

    memset(d->stage_ns, 0, sizeof(d->stage_ns));
    /* evaluation of the joint model at the placed bodies */
    if (d->input_fn)
        d->input_fn(d->input_ctx, d->t, cd->uin);
    else
        memcpy(cd->uin, d->u, (size_t)m->ninput * sizeof(double));
    if (vd_ce_place(m, ce, cd, d)) {
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
    vd_tree_jac(t, td, zero3, cd->h, &ext, cd->qdd);
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
    if (lu(N, cd->S, cd->piv)) {
        d->warn[VD_WARN_SINGULAR]++;
        return -EDOM;
    }
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
    return vd_ce_place(m, ce, cd, d);
}
