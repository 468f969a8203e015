/* core/tree.c - relative coordinates on a spanning tree: kinematics, CRBA, RNEA and the
 * tangent-linear RNEA (tree.h). Spatial vectors (omega; v_O) and forces (n_O; F) in global
 * axes at the global origin; spatial.h has their algebra (RBDA eqs. 2.31, 2.32). */
#include "tree.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kinematics.h"
#include "spatial.h"
#include "tree_impl.h"
#include "vdmath.h"

/* ---- spatial helpers ------------------------------------------------------------------ */

/* res = a element by element (not memcpy: a just computed in scalars would go through the
 * stack, and its wider reloads stall on the scalar stores) */
static inline void put6(double *res, const double a[6])
{
    res[0] = a[0];
    res[1] = a[1];
    res[2] = a[2];
    res[3] = a[3];
    res[4] = a[4];
    res[5] = a[5];
}

/* rotation by angle q about the unit axis a (Rodrigues), row-major */
static void axis_rot(double R[9], const double a[3], double q)
{
    const double c = cos(q), s = sin(q), v = 1.0 - c;

    R[0] = c + a[0] * a[0] * v;
    R[1] = a[0] * a[1] * v - a[2] * s;
    R[2] = a[0] * a[2] * v + a[1] * s;
    R[3] = a[1] * a[0] * v + a[2] * s;
    R[4] = c + a[1] * a[1] * v;
    R[5] = a[1] * a[2] * v - a[0] * s;
    R[6] = a[2] * a[0] * v - a[1] * s;
    R[7] = a[2] * a[1] * v + a[0] * s;
    R[8] = c + a[2] * a[2] * v;
}

/* spatial inertia at the origin, global axes: [[Ic - m X X, m X], [-m X, m 1]], X = [x]x */
static void spatial_inertia(double I[36], double m, const double Ib[9], const double A[9],
                            const double x[3])
{
    double T[9], Ic[9], X[9], XX[9];

    vdu_mat3_mul(T, A, Ib);
    vdu_mat3_mult(Ic, T, A);
    vdu_skew(X, x);
    vdu_mat3_mul(XX, X, X);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            VD_B6(I, i, j) = Ic[3 * i + j] - m * XX[3 * i + j];
            VD_B6(I, i, j + 3) = m * X[3 * i + j];
            VD_B6(I, i + 3, j) = -m * X[3 * i + j];
            VD_B6(I, i + 3, j + 3) = i == j ? m : 0.0;
        }
}

/* ---- building ------------------------------------------------------------------------- */

struct vd_tree *vd_tree_new(void)
{
    return calloc(1, sizeof(struct vd_tree));
}

void vd_tree_free(struct vd_tree *t)
{
    if (!t)
        return;
    free(t->node);
    free(t->body);
    free(t);
}

int vd_tree_add_embedded(struct vd_tree *t, int parent, int nd, vd_tree_closure_fn fn,
                         const void *ctx, const struct vd_tree_body *b, int nb)
{
    struct vd_tree_node n;

    memset(&n, 0, sizeof(n));
    n.type = VD_TREE_EMBEDDED;
    n.parent = parent;
    n.nd = nd;
    n.fn = fn;
    n.ctx = ctx;
    return vd_tree_add(t, &n, b, nb);
}

int vd_tree_set_dmask(struct vd_tree *t, int b, unsigned mask)
{
    const struct vd_tree_node *n;

    if (b < 0 || b >= t->nbody)
        return -EINVAL;
    n = &t->node[t->body[b].node];
    if (n->type != VD_TREE_EMBEDDED || (mask >> n->nd) != 0)
        return -EINVAL;
    t->body[b].dmask = mask;
    return 0;
}

int vd_tree_add(struct vd_tree *t, const struct vd_tree_node *nd, const struct vd_tree_body *b,
                int nb)
{
    struct vd_tree_node n = *nd;

    if (nb < 1 || n.parent < -1 || n.parent >= t->nbody)
        return -EINVAL;
    switch (n.type) {
    case VD_TREE_FREE:
        if (n.parent != -1 || nb != 1)
            return -EINVAL;
        n.nd = 6;
        break;
    case VD_TREE_REVOLUTE:
    case VD_TREE_PRISMATIC: {
        const double l = sqrt(vdu_dot3(n.axis, n.axis));

        if (nb != 1 || !(fabs(l - 1.0) < 1e-9))
            return -EINVAL;
        n.nd = 1;
        break;
    }
    case VD_TREE_FIXED:
        if (nb != 1)
            return -EINVAL;
        n.nd = 0;
        break;
    case VD_TREE_SPHERICAL:
        if (nb != 1)
            return -EINVAL;
        n.nd = 3;
        break;
    case VD_TREE_EMBEDDED:
        if (!n.fn || n.nd < 1 || n.nd > VD_TREE_MAXD)
            return -EINVAL;
        break;
    default:
        return -EINVAL;
    }
    if (t->nnode == t->cap_node) {
        int c = t->cap_node ? 2 * t->cap_node : 8;
        void *p = realloc(t->node, (size_t)c * sizeof(*t->node));

        if (!p)
            return -ENOMEM;
        t->node = p;
        t->cap_node = c;
    }
    if (t->nbody + nb > t->cap_body) {
        int c = t->cap_body ? 2 * t->cap_body : 16;
        void *p;

        while (c < t->nbody + nb)
            c *= 2;
        p = realloc(t->body, (size_t)c * sizeof(*t->body));
        if (!p)
            return -ENOMEM;
        t->body = p;
        t->cap_body = c;
    }
    for (int k = 0; k < nb; k++) {
        if (!(b[k].mass > 0.0))
            return -EINVAL;
        t->body[t->nbody + k] = b[k];
        t->body[t->nbody + k].node = t->nnode;
        t->body[t->nbody + k].dmask = 0;
    }
    n.off = t->n;
    n.b0 = t->nbody;
    n.nb = nb;
    t->node[t->nnode] = n;
    t->nbody += nb;
    t->n += n.nd;
    return t->nnode++;
}

struct vd_tree_data *vd_tree_data_new(const struct vd_tree *t)
{
    const size_t nb = (size_t)t->nbody, n = (size_t)t->n;
    const size_t nd = 9 * nb + 3 * nb + 6 * VD_TREE_MAXD * nb + 6 * nb * 2 + 36 * nb * 2 +
                      6 * nb * 4 + 6 * nb + 6 * VD_TREE_MAXD * nb + 6 * nb * 4 + 18 * nb + 2 * n +
                      3 * n * n + n;
    struct vd_tree_data *td = calloc(1, sizeof(*td));
    double *p;

    if (!td)
        return NULL;
    td->rel = calloc(nb, sizeof(*td->rel));
    td->act = calloc(nb, 1);
    p = calloc(nd, sizeof(double));
    if (!td->rel || !td->act || !p) {
        free(td->rel);
        free(td->act);
        free(p);
        free(td);
        return NULL;
    }
    td->A = p, p += 9 * nb;
    td->x = p, p += 3 * nb;
    td->S = p, p += 6 * VD_TREE_MAXD * nb;
    td->V = p, p += 6 * nb;
    td->c = p, p += 6 * nb;
    td->I = p, p += 36 * nb;
    td->Ic = p, p += 36 * nb;
    td->a = p, p += 6 * nb;
    td->F = p, p += 6 * nb;
    td->fx = p, p += 6 * nb;
    td->fv = p, p += 6 * nb;
    td->dD = p, p += 6 * nb;
    td->dS = p, p += 6 * VD_TREE_MAXD * nb;
    td->dV = p, p += 6 * nb;
    td->dc = p, p += 6 * nb;
    td->da = p, p += 6 * nb;
    td->dF = p, p += 6 * nb;
    td->dh = p, p += 18 * nb;
    td->e = p, p += n;
    td->ez = p, p += n;
    td->M = p, p += n * n;
    td->Jq = p, p += n * n;
    td->Ju = p, p += n * n;
    td->f = p;
    td->fgen = ~0u; /* no vd_tree_forces yet */
    return td;
}

void vd_tree_data_free(struct vd_tree_data *td)
{
    if (!td)
        return;
    free(td->A);
    free(td->rel);
    free(td->act);
    free(td);
}

/* ---- kinematics ----------------------------------------------------------------------- */

/* the relative kinematics of a revolute or prismatic node's body (s constant: ds, kappa 0) */
static void simple_rel(const struct vd_tree_node *n, const struct vd_tree_body *b, double q,
                       struct vd_tree_rel *r)
{
    if (n->type == VD_TREE_REVOLUTE) {
        double R[9], d[3], t[3];

        axis_rot(R, n->axis, q);
        vdu_mat3_mul(r->A, R, b->A0);
        vdu_sub3(d, b->x0, n->point);
        vdu_mat3_vec(t, R, d);
        vdu_add3(r->x, n->point, t);
        memcpy(r->s, n->axis, 3 * sizeof(double));
        vdu_cross3(r->s + 3, n->point, n->axis); /* v_O = omega x (O - c) = c x a */
    } else { /* prismatic; fixed with q = 0 (its column is never read) */
        memcpy(r->A, b->A0, 9 * sizeof(double));
        for (int k = 0; k < 3; k++)
            r->x[k] = b->x0[k] + n->axis[k] * q;
        memset(r->s, 0, 3 * sizeof(double));
        memcpy(r->s + 3, n->axis, 3 * sizeof(double));
    }
}

/* spherical: A = R A0, x = c + R (x0 - c), R = Rz(q0) Ry(q1) Rx(q2); the angular velocity
 * per unit q' (parent axes) w0 = e_z, w1 = Rz e_y, w2 = Rz Ry e_x, columns (w_j; c x w_j);
 * dw1/dq0 = e_z x w1, dw2/dq0 = e_z x w2, dw2/dq1 = w1 x w2 (the others 0), so that
 * kappa = sum_jk ds_j/dq_k q'_k q'_j and its derivatives by the same cross products */
static void spherical_rel(const struct vd_tree_node *n, const struct vd_tree_body *b,
                          const double *q, const double *qd, struct vd_tree_rel *r)
{
    const double *c = n->point, ez[3] = {0, 0, 1};
    double R[9], d[3], t[3], w[3][3], dw[3][3][3] = {{{0}}}, kw[3], dkw[3][3] = {{0}};
    double a[3], e[3];

    vdu_cardan_zyx(R, q[0], q[1], q[2]);
    vdu_mat3_mul(r->A, R, b->A0);
    vdu_sub3(d, b->x0, c);
    vdu_mat3_vec(t, R, d);
    vdu_add3(r->x, c, t);
    memcpy(w[0], ez, sizeof(ez));
    w[1][0] = -sin(q[0]), w[1][1] = cos(q[0]), w[1][2] = 0.0;
    w[2][0] = R[0], w[2][1] = R[3], w[2][2] = R[6];
    vdu_cross3(dw[1][0], ez, w[1]); /* dw[j][k] = dw_j/dq_k */
    vdu_cross3(dw[2][0], ez, w[2]);
    vdu_cross3(dw[2][1], w[1], w[2]);
    /* kw = sum_jk dw_j/dq_k q'_k q'_j */
    for (int i = 0; i < 3; i++)
        kw[i] = qd[1] * qd[0] * dw[1][0][i] + qd[2] * (qd[0] * dw[2][0][i] + qd[1] * dw[2][1][i]);
    /* d kw/dq0 = q'1 q'0 ez x dw1/dq0 + q'2 (q'0 ez x dw2/dq0 + q'1 (dw1/dq0 x w2 + w1 x
     * dw2/dq0)); d kw/dq1 = q'2 (q'0 ez x dw2/dq1 + q'1 w1 x dw2/dq1) */
    vdu_cross3(a, ez, dw[1][0]);
    vdu_cross3(e, ez, dw[2][0]);
    for (int i = 0; i < 3; i++)
        dkw[0][i] = qd[1] * qd[0] * a[i] + qd[2] * qd[0] * e[i];
    vdu_cross3(a, dw[1][0], w[2]);
    vdu_cross3(e, w[1], dw[2][0]);
    for (int i = 0; i < 3; i++)
        dkw[0][i] += qd[2] * qd[1] * (a[i] + e[i]);
    vdu_cross3(a, ez, dw[2][1]);
    vdu_cross3(e, w[1], dw[2][1]);
    for (int i = 0; i < 3; i++)
        dkw[1][i] = qd[2] * (qd[0] * a[i] + qd[1] * e[i]);
    /* motion vectors (w; c x w) */
    for (int j = 0; j < 3; j++) {
        memcpy(r->s + 6 * j, w[j], 3 * sizeof(double));
        vdu_cross3(r->s + 6 * j + 3, c, w[j]);
        for (int k = 0; k < 3; k++) {
            double *ds = r->ds + 6 * (j + 3 * k);

            memcpy(ds, dw[j][k], 3 * sizeof(double));
            vdu_cross3(ds + 3, c, dw[j][k]);
        }
        memcpy(r->dkappa + 6 * j, dkw[j], 3 * sizeof(double));
        vdu_cross3(r->dkappa + 6 * j + 3, c, dkw[j]);
    }
    memcpy(r->kappa, kw, sizeof(kw));
    vdu_cross3(r->kappa + 3, c, kw);
}

static int kin(const struct vd_tree *t, struct vd_tree_data *td, const double *q, const double *u,
               int mf_only)
{
    td->q = q;
    td->u = u;
    td->kgen++;
    for (int in = 0; in < t->nnode; in++) {
        const struct vd_tree_node *n = &t->node[in];
        const double *qn = q + n->off, *un = u + n->off;

        if (n->type == VD_TREE_FREE) {
            const int b = n->b0;
            double *A = td->A + 9 * b, *x = td->x + 3 * b, *S = td->S + 6 * VD_TREE_MAXD * b;
            double w[3], *c = td->c + 6 * b;

            vdu_cardan_zyx(A, qn[3], qn[4], qn[5]);
            memcpy(x, qn, 3 * sizeof(double));
            memset(S, 0, 36 * sizeof(double));
            for (int k = 0; k < 3; k++) {
                double *col = S + 6 * (3 + k);

                S[6 * k + 3 + k] = 1.0;
                col[0] = A[k], col[1] = A[3 + k], col[2] = A[6 + k];
                vdu_cross3(col + 3, x, col);
            }
            for (int i = 0; i < 6; i++) {
                double s = 0.0;

                for (int j = 0; j < 6; j++)
                    s += S[i + 6 * j] * un[j];
                td->V[6 * b + i] = s;
            }
            /* c = d/dt (S) u at fixed u = (0; v_CoM x omega) */
            vdu_mat3_vec(w, A, un + 3);
            memset(c, 0, 3 * sizeof(double));
            vdu_cross3(c + 3, un, w);
            continue;
        }
        if (n->type == VD_TREE_EMBEDDED) {
            td->rel[n->b0].mf_only = mf_only;
            if (n->fn(n->ctx, qn, un, td->rel + n->b0))
                return -EDOM;
        } else if (n->type == VD_TREE_SPHERICAL) {
            spherical_rel(n, &t->body[n->b0], qn, un, td->rel + n->b0);
        } else {
            simple_rel(n, &t->body[n->b0], n->nd ? qn[0] : 0.0, td->rel + n->b0);
        }
        for (int b = n->b0; b < n->b0 + n->nb; b++) {
            const struct vd_tree_rel *r = &td->rel[b];
            const int p = n->parent;
            const double *Ap = p >= 0 ? td->A + 9 * p : NULL, *xp = p >= 0 ? td->x + 3 * p : NULL;
            const double *Vp = p >= 0 ? td->V + 6 * p : NULL;
            double *S = td->S + 6 * VD_TREE_MAXD * b, *V = td->V + 6 * b, *c = td->c + 6 * b;
            double Sq[6] = {0}, t6[6];

            if (Ap) {
                double t3[3];

                vdu_mat3_mul(td->A + 9 * b, Ap, r->A);
                vdu_mat3_vec(t3, Ap, r->x);
                vdu_add3(td->x + 3 * b, xp, t3);
            } else {
                memcpy(td->A + 9 * b, r->A, 9 * sizeof(double));
                memcpy(td->x + 3 * b, r->x, 3 * sizeof(double));
            }
            for (int j = 0; j < n->nd; j++) {
                double sj[6]; /* (S q' from the registers, not from S just stored) */

                vdu_xform6(sj, Ap, xp, r->s + 6 * j);
                put6(S + 6 * j, sj);
                for (int i = 0; i < 6; i++)
                    Sq[i] += sj[i] * un[j];
            }
            /* v = v_p + S q';  c = v_p x (S q') + X_p kappa */
            vdu_xform6(c, Ap, xp, r->kappa);
            if (Vp) {
                for (int i = 0; i < 6; i++)
                    V[i] = Vp[i] + Sq[i];
                vdu_crm(t6, Vp, Sq);
                vdu_add6(c, t6);
            } else {
                memcpy(V, Sq, sizeof(Sq));
            }
        }
    }
    for (int b = 0; b < t->nbody; b++)
        spatial_inertia(td->I + 36 * b, t->body[b].mass, t->body[b].inertia, td->A + 9 * b,
                        td->x + 3 * b);
    return 0;
}

int vd_tree_kin(const struct vd_tree *t, struct vd_tree_data *td, const double *q, const double *u)
{
    return kin(t, td, q, u, 0);
}

int vd_tree_kin_mf(const struct vd_tree *t, struct vd_tree_data *td, const double *q,
                   const double *u)
{
    return kin(t, td, q, u, 1);
}

void vd_tree_body_state(const struct vd_tree_data *td, int b, double r[6], double v[6])
{
    const double *V = td->V + 6 * b, *x = td->x + 3 * b, *A = td->A + 9 * b;
    double t[3];

    memcpy(r, x, 3 * sizeof(double));
    vdu_cardan_from_mat(r + 3, A);
    vdu_cross3(t, V, x); /* v_CoM = v_O + omega x x */
    vdu_add3(v, V + 3, t);
    vdu_mat3t_vec(v + 3, A, V);
}

void vd_tree_qdot(const struct vd_tree *t, const double *q, const double *u, double *qd)
{
    for (int in = 0; in < t->nnode; in++) {
        const struct vd_tree_node *n = &t->node[in];
        const int o = n->off;

        if (n->type == VD_TREE_FREE) {
            double Ei[9];

            vd_cardan_Einv(Ei, q[o + 4], q[o + 5]);
            memcpy(qd + o, u + o, 3 * sizeof(double));
            vdu_mat3_vec(qd + o + 3, Ei, u + o + 3);
        } else {
            memcpy(qd + o, u + o, (size_t)n->nd * sizeof(double));
        }
    }
}

/* ---- CRBA ------------------------------------------------------------------------------- */

void vd_tree_crba(const struct vd_tree *t, struct vd_tree_data *td)
{
    const int N = t->n;

    memcpy(td->Ic, td->I, (size_t)(36 * t->nbody) * sizeof(double));
    for (int b = t->nbody - 1; b >= 0; b--) {
        const int p = t->node[t->body[b].node].parent;

        if (p >= 0)
            for (int k = 0; k < 36; k++)
                td->Ic[36 * p + k] += td->Ic[36 * b + k];
    }
    memset(td->M, 0, (size_t)(N * N) * sizeof(double));
    for (int in = 0; in < t->nnode; in++) {
        const struct vd_tree_node *n = &t->node[in];
        double Fn[6 * VD_TREE_MAXD] = {0};
        int p;

        /* F = sum_b Ic_b S_b, M_nn = sum_b S_b^T Ic_b S_b (RBDA Table 6.2) */
        for (int b = n->b0; b < n->b0 + n->nb; b++) {
            const double *S = td->S + 6 * VD_TREE_MAXD * b;

            /* (the columns of coordinates that do not move b are zeros: skipped) */
            for (int j = 0; j < n->nd; j++) {
                double y[6];

                if (!vd_tree_moves(t, b, j))
                    continue;
                vdu_mul6(y, td->Ic + 36 * b, S + 6 * j);
                vdu_add6(Fn + 6 * j, y);
                for (int i = 0; i < n->nd; i++)
                    if (vd_tree_moves(t, b, i))
                        td->M[(n->off + i) + N * (n->off + j)] += vdu_dot6(S + 6 * i, y);
            }
        }
        /* up the tree: M_jn = S_p^T F for the body p each ancestor node moves */
        for (p = n->parent; p >= 0; p = t->node[t->body[p].node].parent) {
            const struct vd_tree_node *a = &t->node[t->body[p].node];
            const double *S = td->S + 6 * VD_TREE_MAXD * p;

            for (int i = 0; i < a->nd; i++)
                for (int j = 0; j < n->nd; j++) {
                    const double v = vdu_dot6(S + 6 * i, Fn + 6 * j);

                    td->M[(a->off + i) + N * (n->off + j)] = v;
                    td->M[(n->off + j) + N * (a->off + i)] = v;
                }
        }
    }
}

/* ---- RNEA ------------------------------------------------------------------------------- */

/* the applied force of body b as a spatial force: (A tau + x x F; F) */
static void applied(const struct vd_tree_data *td, int b, const double *h, double f[6])
{
    double t[3];

    if (!h) {
        memset(f, 0, 6 * sizeof(double));
        return;
    }
    vdu_mat3_vec(f, td->A + 9 * b, h + 6 * b + 3);
    vdu_cross3(t, td->x + 3 * b, h + 6 * b);
    vdu_add3(f, f, t);
    memcpy(f + 3, h + 6 * b, 3 * sizeof(double));
}

/* vd_tree_forces; keep: v x* I v and the applied forces from td->fv, td->fx (kept by a call
 * at the same kinematics and h) */
static void forces(const struct vd_tree *t, struct vd_tree_data *td, const double g[3],
                   const double *h, const double *qdd, int keep)
{
    const double a0[6] = {0, 0, 0, -g[0], -g[1], -g[2]};

    for (int b = 0; b < t->nbody; b++) {
        const struct vd_tree_node *n = &t->node[t->body[b].node];
        const double *ap = n->parent >= 0 ? td->a + 6 * n->parent : a0;
        const double *S = td->S + 6 * VD_TREE_MAXD * b;
        const double *I = td->I + 36 * b, *V = td->V + 6 * b;
        double a[6], y[6], iv[6], f[6], fx[6];

        /* (a, f, fx local: they share td's block with the inputs, which would keep every
         * partial result in memory; the same operations in the same order) */
        /* a = a_p + S q'' + c;  f = I a + v x* I v - f_applied */
        for (int i = 0; i < 6; i++)
            a[i] = ap[i] + td->c[6 * b + i];
        if (qdd)
            for (int j = 0; j < n->nd; j++)
                for (int i = 0; i < 6; i++)
                    a[i] += S[6 * j + i] * qdd[n->off + j];
        vdu_mul6(f, I, a);
        if (keep) {
            memcpy(y, td->fv + 6 * b, sizeof(y));
            memcpy(fx, td->fx + 6 * b, sizeof(fx));
        } else {
            vdu_mul6(iv, I, V);
            vdu_crf(y, V, iv);
            applied(td, b, h, fx);
        }
        vdu_add6(f, y);
        for (int i = 0; i < 6; i++)
            f[i] -= fx[i];
        put6(td->a + 6 * b, a);
        put6(td->F + 6 * b, f);
        put6(td->fx + 6 * b, fx);
        put6(td->fv + 6 * b, y);
    }
    for (int b = t->nbody - 1; b >= 0; b--) {
        const int p = t->node[t->body[b].node].parent;

        if (p >= 0)
            vdu_add6(td->F + 6 * p, td->F + 6 * b);
    }
    memset(td->f, 0, (size_t)t->n * sizeof(double));
    for (int b = 0; b < t->nbody; b++) {
        const struct vd_tree_node *n = &t->node[t->body[b].node];

        for (int j = 0; j < n->nd; j++)
            if (vd_tree_moves(t, b, j))
                td->f[n->off + j] -= vdu_dot6(td->S + 6 * VD_TREE_MAXD * b + 6 * j, td->F + 6 * b);
    }
    td->fgen = td->kgen;
    td->fh = h;
}

void vd_tree_forces(const struct vd_tree *t, struct vd_tree_data *td, const double g[3],
                    const double *h, const double *qdd)
{
    forces(t, td, g, h, qdd, 0);
}

void vd_tree_forces_again(const struct vd_tree *t, struct vd_tree_data *td, const double g[3],
                          const double *h, const double *qdd)
{
    forces(t, td, g, h, qdd, td->fgen == td->kgen && td->fh == h);
}

/* ---- tangent-linear RNEA ---------------------------------------------------------------- */

/* the derivative of f along the direction (dq velocity-like, du) into df (n); the recursion
 * variables of vd_tree_kin / vd_tree_forces must be those of the same state */
static void tangent(const struct vd_tree *t, struct vd_tree_data *td, const double *h,
                    const struct vd_tree_ext *ext, const double *qdd, const double *dq,
                    const double *du, int dn, double *df)
{
    const double *u = td->u;

    for (int b = 0; b < t->nbody; b++) {
        const struct vd_tree_node *n = &t->node[t->body[b].node];
        const int p = n->parent, o = n->off;
        const double *S = td->S + 6 * VD_TREE_MAXD * b;
        double *D = td->dD + 6 * b, *dS = td->dS + 6 * VD_TREE_MAXD * b, *dV = td->dV + 6 * b;
        double *dc = td->dc + 6 * b, *da = td->da + 6 * b;

        /* only the direction's node and the bodies below it move: the others' kinematic
         * tangents are zero */
        td->act[b] = (unsigned char)(t->body[b].node == dn || (p >= 0 && td->act[p]));
        if (!td->act[b]) {
            memset(D, 0, 6 * sizeof(double));
            memset(dV, 0, 6 * sizeof(double));
            memset(dc, 0, 6 * sizeof(double));
            memset(da, 0, 6 * sizeof(double));
            memset(dS, 0, (size_t)(6 * n->nd) * sizeof(double));
            continue;
        }

        if (n->type == VD_TREE_FREE) {
            const double *A = td->A + 9 * b;
            double w[3], dw[3], t3[3];

            /* D = S dq; the translation columns are constant, the rotation columns body-fixed */
            memset(D, 0, 6 * sizeof(double));
            for (int j = 0; j < 6; j++)
                for (int i = 0; i < 6; i++)
                    D[i] += S[6 * j + i] * dq[o + j];
            memset(dS, 0, 18 * sizeof(double));
            for (int j = 3; j < 6; j++)
                vdu_crm(dS + 6 * j, D, S + 6 * j);
            for (int i = 0; i < 6; i++) {
                double s = 0.0;

                for (int j = 0; j < 6; j++)
                    s += dS[6 * j + i] * u[o + j] + S[6 * j + i] * du[o + j];
                dV[i] = s;
            }
            /* c = (0; v_CoM x w), w = A omega: dw = dpi x w + A domega */
            vdu_mat3_vec(w, A, u + o + 3);
            vdu_cross3(dw, D, w);
            vdu_mat3_vec(t3, A, du + o + 3);
            vdu_add3(dw, dw, t3);
            memset(dc, 0, 3 * sizeof(double));
            vdu_cross3(dc + 3, du + o, w);
            vdu_cross3(t3, u + o, dw);
            vdu_add3(dc + 3, dc + 3, t3);
            memcpy(da, dc, 6 * sizeof(double));
        } else {
            const struct vd_tree_rel *r = &td->rel[b];
            const double *Ap = p >= 0 ? td->A + 9 * p : NULL, *xp = p >= 0 ? td->x + 3 * p : NULL;
            const double zero[6] = {0};
            const double *Dp = p >= 0 ? td->dD + 6 * p : zero;
            const double *Vp = p >= 0 ? td->V + 6 * p : zero;
            const double *dVp = p >= 0 ? td->dV + 6 * p : zero;
            const double *dap = p >= 0 ? td->da + 6 * p : zero;
            double Sq[6] = {0}, dSq[6] = {0}, t6[6], k6[6], Xk[6];
            const int nd = n->nd;

            for (int i = 0; i < 6; i++)
                D[i] = Dp[i];
            for (int j = 0; j < nd; j++) {
                double ds[6] = {0};

                for (int i = 0; i < 6; i++)
                    D[i] += S[6 * j + i] * dq[o + j];
                /* dS_j = D_p x S_j + X_p (ds_j/dq dq) */
                vdu_crm(dS + 6 * j, Dp, S + 6 * j);
                if (vd_tree_moving_columns(n)) {
                    for (int k = 0; k < nd; k++)
                        for (int i = 0; i < 6; i++)
                            ds[i] += r->ds[6 * (j + nd * k) + i] * dq[o + k];
                    vdu_xform6(t6, Ap, xp, ds);
                    vdu_add6(dS + 6 * j, t6);
                }
                for (int i = 0; i < 6; i++) {
                    Sq[i] += S[6 * j + i] * u[o + j];
                    dSq[i] += dS[6 * j + i] * u[o + j] + S[6 * j + i] * du[o + j];
                }
            }
            /* dv = dv_p + dS q' + S dq' */
            for (int i = 0; i < 6; i++)
                dV[i] = dVp[i] + dSq[i];
            /* dc = dv_p x S q' + v_p x (dS q' + S dq') + D_p x X_p kappa + X_p dkappa */
            vdu_crm(dc, dVp, Sq);
            vdu_crm(t6, Vp, dSq);
            vdu_add6(dc, t6);
            if (vd_tree_moving_columns(n)) {
                vdu_xform6(Xk, Ap, xp, r->kappa);
                vdu_crm(t6, Dp, Xk);
                vdu_add6(dc, t6);
                memset(k6, 0, sizeof(k6));
                for (int k = 0; k < nd; k++) {
                    for (int i = 0; i < 6; i++)
                        k6[i] += r->dkappa[6 * k + i] * dq[o + k];
                    /* d kappa / dq'_m = sum_k ds_m/dq_k q'_k + sum_j ds_j/dq_m q'_j */
                    for (int j = 0; j < nd; j++)
                        for (int i = 0; i < 6; i++)
                            k6[i] += (r->ds[6 * (k + nd * j) + i] * u[o + j] +
                                      r->ds[6 * (j + nd * k) + i] * u[o + j]) *
                                     du[o + k];
                }
                vdu_xform6(t6, Ap, xp, k6);
                vdu_add6(dc, t6);
            }
            /* da = da_p + dS q'' + dc */
            for (int i = 0; i < 6; i++)
                da[i] = dap[i] + dc[i];
        }
        if (qdd)
            for (int j = 0; j < n->nd; j++)
                for (int i = 0; i < 6; i++)
                    da[i] += dS[6 * j + i] * qdd[o + j];
    }

    /* the perturbation of every body in rtvd's coordinates: (dx, dpi, dv_CoM, domega_body) */
    for (int b = 0; b < t->nbody; b++) {
        memset(td->dh + 18 * b, 0, 6 * sizeof(double));
        if (!td->act[b])
            continue;
        const double *D = td->dD + 6 * b, *V = td->V + 6 * b, *dV = td->dV + 6 * b;

        vd_tree_perturbation(td->dh + 18 * b + 6, td->x + 3 * b, td->A + 9 * b, V, D, dV);
    }
    if (ext)
        for (int k = 0; k < ext->nblk; k++) {
            if (!td->act[ext->col[k]])
                continue;
            const double *Jp = ext->Jp + 36 * k, *Jv = ext->Jv + 36 * k;
            const double *e = td->dh + 18 * ext->col[k] + 6;
            double *y = td->dh + 18 * ext->row[k];

            for (int j = 0; j < 6; j++)
                for (int i = 0; i < 6; i++)
                    y[i] += Jp[i + 6 * j] * e[j] + Jv[i + 6 * j] * e[6 + j];
        }

    /* backward: df_b = d(I a) + d(v x* I v) - d f_applied */
    for (int b = t->nbody - 1; b >= 0; b--) {
        const double *I = td->I + 36 * b, *D = td->dD + 6 * b, *V = td->V + 6 * b;
        const double *a = td->a + 6 * b, *dV = td->dV + 6 * b, *da = td->da + 6 * b;
        double *dF = td->dF + 6 * b, y[6], iv[6];
        const int p = t->node[t->body[b].node].parent;

        memset(dF, 0, 6 * sizeof(double));
        if (!td->act[b])
            goto applied_only;
        vdu_mul6(y, I, a);
        vdu_mul6(iv, I, V);
        vd_tree_dforce(dF, I, D, V, dV, a, da, y, iv, vdu_mul6);
    applied_only:
        if (h) {
            /* d(A tau + x x F; F) = (dpi x A tau + A dtau + dx x F + x x dF; dF) */
            const double *e = td->dh + 18 * b + 6, *dh = td->dh + 18 * b, *hb = h + 6 * b;
            double g6[6];

            vd_tree_dapplied(g6, td->x + 3 * b, td->A + 9 * b, hb, dh, e, 1);
            for (int i = 0; i < 6; i++)
                dF[i] -= g6[i];
        }
        (void)p;
    }
    for (int b = t->nbody - 1; b >= 0; b--) {
        const int p = t->node[t->body[b].node].parent;

        if (p >= 0)
            vdu_add6(td->dF + 6 * p, td->dF + 6 * b);
    }
    memset(df, 0, (size_t)t->n * sizeof(double));
    for (int b = 0; b < t->nbody; b++) {
        const struct vd_tree_node *n = &t->node[t->body[b].node];
        const double *S = td->S + 6 * VD_TREE_MAXD * b, *dS = td->dS + 6 * VD_TREE_MAXD * b;

        for (int j = 0; j < n->nd; j++)
            df[n->off + j] -=
                vdu_dot6(dS + 6 * j, td->F + 6 * b) + vdu_dot6(S + 6 * j, td->dF + 6 * b);
    }
}

void vd_tree_jac(const struct vd_tree *t, struct vd_tree_data *td, const double g[3],
                 const double *h, const struct vd_tree_ext *ext, const double *qdd)
{
    const int N = t->n;
    double *e = td->e, *z = td->ez;

    /* the subtree forces F of this state (tangent() reads them) */
    vd_tree_forces(t, td, g, h, qdd);
    memset(e, 0, (size_t)N * sizeof(double));
    memset(z, 0, (size_t)N * sizeof(double));
    for (int k = 0; k < N; k++) {
        int dn = 0;

        while (!(t->node[dn].off <= k && k < t->node[dn].off + t->node[dn].nd))
            dn++;
        e[k] = 1.0;
        tangent(t, td, h, ext, qdd, e, z, dn, td->Jq + N * k);
        tangent(t, td, h, ext, qdd, z, e, dn, td->Ju + N * k);
        e[k] = 0.0;
    }
}
