/* core/csblock.c - the structured solve of a model with joints: csblock.h. */
#include "csblock.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocklu.h"
#include "csnull.h"
#include "joint.h"
#include "kinematics.h"
#include "solve.h"

/* a row is independent of the earlier ones when its remainder after the Gram-Schmidt
 * projection exceeds this fraction of its norm (as VD_JOINT_RANK_TOL in joint.c: rows of
 * independent joints stay O(1) apart at a generic state, a dependency leaves ~1e-15) */
#define CSB_RANK_TOL 1e-8

/* ---- init: nodes, root, augmented pattern ------------------------------------------- */

/* group the joints into nodes by body pair (<= 6 rows each): jnode_row, jnode_body */
static int build_nodes(struct vd_model *m)
{
    int *cnt, nn = 0;

    m->jnode_row = malloc(6 * ((size_t)m->nc + 1) * sizeof(int));
    m->jnode_body = malloc(2 * ((size_t)m->nc + 1) * sizeof(int));
    m->jnode_slot = malloc(5 * ((size_t)m->nc + 1) * sizeof(int));
    cnt = calloc((size_t)m->nc + 1, sizeof(int));
    if (!m->jnode_row || !m->jnode_body || !m->jnode_slot || !cnt) {
        free(cnt);
        return -ENOMEM;
    }
    for (int e = 0; e < m->njoint; e++) {
        const int r0 = m->joint_row[e], k = m->joint_row[e + 1] - r0;
        int a = m->jrow_body[2 * r0], b = m->jrow_body[2 * r0 + 1], n;

        if (a == VD_GROUND) {
            a = b;
            b = VD_GROUND;
        }
        for (n = 0; n < nn; n++)
            if (cnt[n] + k <= 6 && ((m->jnode_body[2 * n] == a && m->jnode_body[2 * n + 1] == b) ||
                                    (m->jnode_body[2 * n] == b && m->jnode_body[2 * n + 1] == a)))
                break;
        if (n == nn) {
            m->jnode_body[2 * n] = a;
            m->jnode_body[2 * n + 1] = b;
            for (int i = 0; i < 6; i++)
                m->jnode_row[6 * n + i] = -1;
            nn++;
        }
        for (int i = 0; i < k; i++)
            m->jnode_row[6 * n + cnt[n]++] = r0 + i;
    }
    m->njnode = nn;
    free(cnt);
    return 0;
}

/* m->jk_body, m->jk_mk: the bodies that carry a joint's marker and the joints' markers, in
 * ascending order (the projection's kinematics, core/cstep.c) */
static int joint_markers(struct vd_model *m)
{
    unsigned char *mk = calloc((size_t)m->nmarker + 1, 1), *bd = calloc((size_t)m->nbody + 1, 1);

    free(m->jk_body);
    free(m->jk_mk);
    m->jk_body = malloc(((size_t)m->nbody + 1) * sizeof(int));
    m->jk_mk = malloc(((size_t)m->nmarker + 1) * sizeof(int));
    m->njk_body = m->njk_mk = 0;
    if (!mk || !bd || !m->jk_body || !m->jk_mk) {
        free(mk);
        free(bd);
        return -ENOMEM;
    }
    for (int e = 0; e < m->njoint; e++)
        for (int s = 0; s < 2; s++) {
            const int k = m->joint[e].mk[s], b = m->marker[k].body;

            mk[k] = 1;
            if (b != VD_GROUND)
                bd[b] = 1;
        }
    for (int b = 0; b < m->nbody; b++)
        if (bd[b])
            m->jk_body[m->njk_body++] = b;
    for (int k = 0; k < m->nmarker; k++)
        if (mk[k])
            m->jk_mk[m->njk_mk++] = k;
    free(mk);
    free(bd);
    return 0;
}

/* do the rows of the nodes that reach a body other than root, restricted to the columns of
 * the bodies other than root, have full rank at the state of d (G evaluated)? */
static bool root_valid(const struct vd_model *m, const struct vd_data *d, int root, double *Q)
{
    const int nq = m->nq;
    int nk = 0;

    for (int n = 0; n < m->njnode; n++) {
        const int a = m->jnode_body[2 * n], b = m->jnode_body[2 * n + 1];

        if (a == root && (b == root || b == VD_GROUND))
            continue; /* a tail node: pivoted after the root */
        for (int i = 0; i < 6 && m->jnode_row[6 * n + i] >= 0; i++) {
            const int r = m->jnode_row[6 * n + i];
            double *q = Q + (size_t)nq * (size_t)nk, n0 = 0.0, n1 = 0.0;

            memset(q, 0, (size_t)nq * sizeof(double));
            for (int s = 0; s < 2; s++) {
                const int bb = m->jrow_body[2 * r + s];

                if (bb != VD_GROUND && bb != root)
                    for (int c = 0; c < 6; c++)
                        q[6 * bb + c] += d->jG[12 * (size_t)r + (size_t)(6 * s + c)];
            }
            for (int i2 = 0; i2 < nq; i2++)
                n0 += q[i2] * q[i2];
            for (int pass = 0; pass < 2; pass++) /* twice: reorthogonalization */
                for (int k = 0; k < nk; k++) {
                    const double *qk = Q + (size_t)nq * (size_t)k;
                    double t = 0.0;

                    for (int i2 = 0; i2 < nq; i2++)
                        t += qk[i2] * q[i2];
                    for (int i2 = 0; i2 < nq; i2++)
                        q[i2] -= t * qk[i2];
                }
            for (int i2 = 0; i2 < nq; i2++)
                n1 += q[i2] * q[i2];
            if (n0 == 0.0 || sqrt(n1) <= CSB_RANK_TOL * sqrt(n0))
                return false;
            for (int i2 = 0; i2 < nq; i2++)
                q[i2] /= sqrt(n1);
            nk++;
        }
    }
    return true;
}

/* ---- the elimination order of the index2 form ---------------------------------------- */

/* A multiplier node joins the order once the rows of the nodes eliminated so far with it,
 * restricted to the columns of the bodies eliminated so far, are independent (csblock.h):
 * each row's remainder after the projection on the earlier ones must exceed this fraction of
 * the row's whole norm. Independent rows of a mechanism at a regular pose stay O(1e-2 .. 1)
 * apart (lever arms of centimetres to metres against unit translation entries), dependent
 * ones leave ~1e-15; 1e-3 keeps the order away from near-singular pivots (the pivot of a node
 * admitted at a remainder eps has a condition number ~1/eps^2 of the body blocks'). */
#define CSB_ORDER_TOL 1e-3

struct order_ctx {
    const struct vd_model *m;
    const struct vd_data *d;
    int root;
    int *bcl;     /* (nbody) cluster of each body (components without the root), -1: the root */
    int *loc;     /* (nbody) index of each body among its cluster's (Q's columns 6 loc .. +5) */
    int ncol;     /* columns of Q: 6 x the bodies of cluster qcl */
    double *Q;    /* (nc x nq) orthonormal rows of the eliminated nodes of cluster qcl */
    int nqrow;    /* rows in Q */
    int qcl, qel; /* Q holds cluster qcl with qel nodes eliminated (-1: nothing) */
};

static int node_cluster(const struct order_ctx *o, int n)
{
    const int a = o->m->jnode_body[2 * n], b = o->m->jnode_body[2 * n + 1];

    return a != o->root ? o->bcl[a] : b != VD_GROUND && b != o->root ? o->bcl[b] : -1;
}

/* orthonormalize row r of G restricted to the eliminated bodies (pos) of cluster c against
 * Q's rows and append it; false if its remainder is below CSB_ORDER_TOL of its norm */
static bool order_add_row(struct order_ctx *o, int r, const int *pos, double tol)
{
    const struct vd_model *m = o->m;
    const int nq = o->ncol;
    double *q = o->Q + (size_t)nq * (size_t)o->nqrow, n0 = 0.0, n1 = 0.0;

    memset(q, 0, (size_t)nq * sizeof(double));
    for (int s = 0; s < 2; s++) {
        const int bb = m->jrow_body[2 * r + s];

        for (int c = 0; c < 6; c++) {
            const double g = o->d->jG[12 * (size_t)r + (size_t)(6 * s + c)];

            n0 += g * g;
            if (bb != VD_GROUND && bb != o->root && pos[bb] >= 0)
                q[6 * o->loc[bb] + c] += g;
        }
    }
    for (int pass = 0; pass < 2; pass++) /* twice: reorthogonalization */
        for (int k = 0; k < o->nqrow; k++) {
            const double *qk = o->Q + (size_t)nq * (size_t)k;
            double t = 0.0;

            for (int i = 0; i < nq; i++)
                t += qk[i] * q[i];
            for (int i = 0; i < nq; i++)
                q[i] -= t * qk[i];
        }
    for (int i = 0; i < nq; i++)
        n1 += q[i] * q[i];
    if (n0 == 0.0 || sqrt(n1) <= tol * sqrt(n0))
        return false;
    for (int i = 0; i < nq; i++)
        q[i] /= sqrt(n1);
    o->nqrow++;
    return true;
}

/* vd_blu_pick: may node n follow (the rows of its cluster's eliminated nodes and its own,
 * on the columns of the eliminated bodies, independent)? */
static int order_eligible(void *ctx, int node, const int *pos)
{
    struct order_ctx *o = ctx;
    const struct vd_model *m = o->m;
    const int nb = m->nbody, n = node - nb, c = node_cluster(o, n);
    int nel = 0, left = 0, q0;
    bool ok = true;

    for (int i = 0; i < nb + m->njnode; i++)
        nel += pos[i] >= 0;
    for (int b = 0; b < nb; b++)
        left += o->bcl[b] == c && pos[b] < 0;
    if (!left)
        return 1; /* the whole cluster: independent by root_valid / vd_joint_check */
    if (c != o->qcl || nel != o->qel) {
        o->nqrow = 0;
        o->ncol = 0;
        for (int b = 0; b < nb; b++)
            if (o->bcl[b] == c)
                o->loc[b] = o->ncol++;
        o->ncol *= 6;
        for (int k = 0; k < m->njnode; k++)
            if (pos[nb + k] >= 0 && node_cluster(o, k) == c)
                for (int i = 0; i < 6 && m->jnode_row[6 * k + i] >= 0; i++)
                    order_add_row(o, m->jnode_row[6 * k + i], pos, 0.0);
        o->qcl = c;
        o->qel = nel;
    }
    q0 = o->nqrow;
    for (int i = 0; i < 6 && m->jnode_row[6 * n + i] >= 0 && ok; i++)
        ok = order_add_row(o, m->jnode_row[6 * n + i], pos, CSB_ORDER_TOL);
    o->nqrow = q0;
    return ok;
}

/* the augmented pattern (CSR over nbody + njnode nodes, columns sorted) and the index of
 * every body pattern block in it (aug) */
static int aug_pattern(const struct vd_model *m, int **rowptr_out, int **col_out, int *aug)
{
    const int nb = m->nbody, nn = m->njnode, N = nb + nn;
    int *rowptr = calloc((size_t)N + 1, sizeof(int));
    int *col = calloc((size_t)m->nblk + 5 * (size_t)nn + 1, sizeof(int));
    int k = 0;

    if (!rowptr || !col) {
        free(rowptr);
        free(col);
        return -ENOMEM;
    }
    for (int i = 0; i < nb; i++) {
        rowptr[i] = k;
        for (int e = m->blk_rowptr[i]; e < m->blk_rowptr[i + 1]; e++) {
            aug[e] = k;
            col[k++] = m->blk_col[e];
        }
        for (int n = 0; n < nn; n++)
            if (m->jnode_body[2 * n] == i || m->jnode_body[2 * n + 1] == i)
                col[k++] = nb + n;
    }
    for (int n = 0; n < nn; n++) {
        const int a = m->jnode_body[2 * n], b = m->jnode_body[2 * n + 1];

        rowptr[nb + n] = k;
        if (b != VD_GROUND && b < a) {
            col[k++] = b;
            col[k++] = a;
        } else {
            col[k++] = a;
            if (b != VD_GROUND)
                col[k++] = b;
        }
        col[k++] = nb + n;
    }
    rowptr[N] = k;
    *rowptr_out = rowptr;
    *col_out = col;
    return 0;
}

/* the cluster of every body: the components of the graph of bodies and joints without the
 * root (-1) and the ground; NULL: out of memory */
static int *body_clusters(const struct vd_model *m, int root)
{
    const int nb = m->nbody;
    int *cl = malloc((size_t)nb * sizeof(int)), *stack = malloc((size_t)nb * sizeof(int));
    int ncl = 0;

    if (!cl || !stack) {
        free(cl);
        free(stack);
        return NULL;
    }
    for (int i = 0; i < nb; i++)
        cl[i] = -1;
    for (int i = 0; i < nb; i++) {
        int top = 0;

        if (i == root || cl[i] >= 0)
            continue;
        cl[i] = ncl;
        stack[top++] = i;
        while (top > 0) {
            const int a = stack[--top];

            for (int e = m->blk_rowptr[a]; e < m->blk_rowptr[a + 1]; e++) {
                const int b = m->blk_col[e];

                if (b != root && cl[b] < 0) {
                    cl[b] = ncl;
                    stack[top++] = b;
                }
            }
            for (int n = 0; n < m->njnode; n++) {
                const int p = m->jnode_body[2 * n], q = m->jnode_body[2 * n + 1];
                const int b = p == a ? q : q == a ? p : -1;

                if (b >= 0 && b != root && cl[b] < 0) {
                    cl[b] = ncl;
                    stack[top++] = b;
                }
            }
        }
        ncl++;
    }
    free(stack);
    return cl;
}

/* the translation part of joint row r on either body: 0..2 a point row's +-e_k (k), -1 zero
 * (perp, angle), -2 any other (offset, distance): core/joint.c */
static int row_translation(const struct vd_model *m, int r)
{
    const int e = m->jrow_joint[r], li = r - m->joint_row[e];

    switch (m->joint[e].type) {
    case VD_JOINT_SPHERICAL:
    case VD_JOINT_REVOLUTE:
    case VD_JOINT_UNIVERSAL:
    case VD_JOINT_FIXED:
        return li < 3 ? li : -1;
    case VD_JOINT_CYLINDRICAL:
    case VD_JOINT_PRISMATIC:
        return li < 2 || li == 4 ? -1 : -2;
    case VD_JOINT_ORIENTATION:
    case VD_JOINT_DRIVEN_ROTATION:
        return -1;
    default:
        return -2;
    }
}

/* the slots of vd_blu_set_unit: a node's rows on each of its bodies when its rows 0..2 are
 * point rows k = 0, 1, 2 and the others have no translation part (the same on both bodies:
 * +-e_k); 0 or -ENOMEM */
static int unit_slots(struct vd_model *m)
{
    unsigned char *unit = calloc((size_t)m->blu.nslot + 1, 1);
    int rc;

    if (!unit)
        return -ENOMEM;
    for (int n = 0; n < m->njnode; n++) {
        const int *sl = m->jnode_slot + 5 * n;
        bool ok = true;

        for (int i = 0; i < 6 && m->jnode_row[6 * n + i] >= 0; i++)
            ok = ok && row_translation(m, m->jnode_row[6 * n + i]) == (i < 3 ? i : -1);
        ok = ok && m->jnode_row[6 * n + 2] >= 0;
        if (ok) {
            unit[sl[1]] = unit[sl[2]] = 1;
            if (sl[3] >= 0)
                unit[sl[3]] = unit[sl[4]] = 1;
        }
    }
    rc = vd_blu_set_unit(&m->blu, unit);
    free(unit);
    return rc;
}

/* slot of pattern entry (i, j) */
static int pat_slot_of(const struct vd_blu *s, const int *rowptr, const int *col, int i, int j)
{
    for (int k = rowptr[i]; k < rowptr[i + 1]; k++)
        if (col[k] == j)
            return s->pat_slot[k];
    return -1;
}

int vd_csb_analyze(struct vd_model *m, char *err, size_t errlen)
{
    const int nb = m->nbody;
    struct vd_data *d = NULL;
    struct vd_blu s;
    int *rowptr = NULL, *col = NULL, *aug = NULL;
    double *Q = NULL, *u = NULL;
    int rc = -ENOMEM, root = -1;

    /* again after a change of opt.linear or opt.constraints: from the bodies' pattern */
    free(m->blk_slot);
    free(m->jnode_row);
    free(m->jnode_body);
    free(m->jnode_slot);
    m->blk_slot = m->jnode_row = m->jnode_body = m->jnode_slot = NULL;
    m->njnode = 0;
    vd_csn_free(m->csn);
    m->csn = NULL;
    if (joint_markers(m))
        goto out_oom;
    if (m->blu.nb != m->nbody) {
        /* (the dense path uses none of it: any body may be its root) */
        rc = vd_blu_analyze(&s, m->nbody, m->blk_rowptr, m->blk_col,
                            m->blu.root >= 0 ? m->blu.root : 0, err, errlen);
        if (rc)
            return rc;
        vd_blu_free(&m->blu);
        m->blu = s;
    }
    m->blk_slot = malloc(((size_t)m->nblk + 1) * sizeof(int));
    if (!m->blk_slot)
        goto out_oom;
    if (!m->nc || m->opt.linear != VD_LINEAR_STRUCTURED) {
        memcpy(m->blk_slot, m->blu.pat_slot, (size_t)m->nblk * sizeof(int));
        return 0;
    }
    if (build_nodes(m))
        goto out_oom;
    /* the root: the chosen one (solver.root, the chassis, the body of most blocks) if the
     * clusters' joints are not redundant with it held fixed, which holds when no joint
     * reaches the ground (csblock.h) and is checked here all the same; else none: the
     * ground is the root (a mechanism), the clusters are the components of the whole graph
     * and the condition is that the model's joints are not redundant (vd_joint_check) */
    d = vd_data_new(m);
    Q = malloc((size_t)m->nc * (size_t)m->nq * sizeof(double));
    u = calloc((size_t)m->ninput + 1, sizeof(double));
    aug = malloc(((size_t)m->nblk + 1) * sizeof(int));
    if (!d || !Q || !u || !aug)
        goto out_oom;
    vd_kinematics(m, d, d->r, d->v);
    vd_joint_eval(m, d, u, false);
    root = m->blu.root;
    for (int r = 0; r < m->nc; r++)
        if (m->jrow_body[2 * r] == VD_GROUND || m->jrow_body[2 * r + 1] == VD_GROUND)
            root = -1;
    if (root >= 0 && !root_valid(m, d, root, Q))
        root = -1;
    if (aug_pattern(m, &rowptr, &col, aug))
        goto out_oom;
    {
        struct order_ctx o = {.m = m, .d = d, .root = root, .Q = Q, .qcl = -1, .qel = -1};
        struct vd_blu_pick pick = {.eligible = order_eligible, .ctx = &o};
        const bool leaf = m->opt.constraints == VD_CONSTRAINTS_INDEX2;

        o.bcl = leaf ? body_clusters(m, root) : NULL;
        o.loc = malloc((size_t)nb * sizeof(int));
        if ((leaf && !o.bcl) || !o.loc) {
            free(o.bcl);
            free(o.loc);
            goto out_oom;
        }
        rc = vd_blu_analyze_kkt(&s, nb + m->njnode, rowptr, col, root, nb, leaf ? &pick : NULL, err,
                                errlen);
        free(o.bcl);
        free(o.loc);
    }
    if (rc)
        goto out_free;
    {
        /* the multiplier nodes' real rows: the factorization skips their padding */
        int *size = malloc(((size_t)nb + (size_t)m->njnode) * sizeof(int));

        if (!size) {
            vd_blu_free(&s);
            goto out_oom;
        }
        for (int b = 0; b < nb; b++)
            size[b] = 6;
        for (int n = 0; n < m->njnode; n++) {
            size[nb + n] = 0;
            for (int i = 0; i < 6; i++)
                size[nb + n] += m->jnode_row[6 * n + i] >= 0;
        }
        rc = vd_blu_set_sizes(&s, size);
        free(size);
        if (rc) {
            vd_blu_free(&s);
            goto out_oom;
        }
    }
    vd_blu_free(&m->blu);
    m->blu = s;
    for (int k = 0; k < m->nblk; k++)
        m->blk_slot[k] = m->blu.pat_slot[aug[k]];
    for (int n = 0; n < m->njnode; n++) {
        const int a = m->jnode_body[2 * n], b = m->jnode_body[2 * n + 1], N = nb + n;
        int *sl = m->jnode_slot + 5 * n;

        sl[0] = pat_slot_of(&m->blu, rowptr, col, N, N);
        sl[1] = pat_slot_of(&m->blu, rowptr, col, N, a);
        sl[2] = pat_slot_of(&m->blu, rowptr, col, a, N);
        sl[3] = b == VD_GROUND ? -1 : pat_slot_of(&m->blu, rowptr, col, N, b);
        sl[4] = b == VD_GROUND ? -1 : pat_slot_of(&m->blu, rowptr, col, b, N);
    }
    if (unit_slots(m))
        goto out_oom;
    /* the nullspace form: per-cluster null spaces on the same clusters (core/csnull.h) */
    rc = m->opt.constraints == VD_CONSTRAINTS_NULLSPACE ? vd_csn_analyze(m, err, errlen) : 0;
    goto out_free;
out_oom:
    snprintf(err, errlen, "out of memory");
    rc = -ENOMEM;
out_free:
    vd_data_free(d);
    free(Q);
    free(u);
    free(aug);
    free(rowptr);
    free(col);
    return rc;
}

/* ---- RT: assembly of the node blocks, factor, solve -------------------------------- */

/* the node blocks with their padding (the 6x6 path, m->blu.sz NULL: test_csblock's
 * reference): every entry written, the padding rows zero and (n, n) the unit diagonal */
static void node_blocks_padded(const struct vd_model *m, struct vd_data *d, int n)
{
    const int *sl = m->jnode_slot + 5 * n, *row = m->jnode_row + 6 * n;
    const int a = m->jnode_body[2 * n];
    double *D = d->F + 36 * (size_t)sl[0];
    double *B[4];

    memset(D, 0, 36 * sizeof(double));
    for (int q = 0; q < 4; q++)
        B[q] = sl[1 + q] >= 0 ? d->F + 36 * (size_t)sl[1 + q] : NULL;
    for (int i = 0; i < 6; i++) {
        const int r = row[i];
        const double *g;
        int sa;

        if (r < 0) {
            D[i + 6 * i] = 1.0; /* padding: multiplier 0 */
            for (int c = 0; c < 6; c++) {
                B[0][i + 6 * c] = 0.0;
                B[1][c + 6 * i] = 0.0;
                if (B[2]) {
                    B[2][i + 6 * c] = 0.0;
                    B[3][c + 6 * i] = 0.0;
                }
            }
            continue;
        }
        g = d->jG + 12 * (size_t)r;
        sa = m->jrow_body[2 * r] == a ? 0 : 1; /* the side of body a in the row */
        for (int c = 0; c < 6; c++) {
            B[0][i + 6 * c] = g[6 * sa + c];
            B[1][c + 6 * i] = g[6 * sa + c];
            if (B[2]) {
                B[2][i + 6 * c] = g[6 * (1 - sa) + c];
                B[3][c + 6 * i] = g[6 * (1 - sa) + c];
            }
        }
    }
}

int vd_csb_factor(const struct vd_model *m, struct vd_data *d)
{
    const unsigned char *sz = m->blu.sz;

    for (int n = 0; n < m->njnode; n++) {
        const int *sl = m->jnode_slot + 5 * n, *row = m->jnode_row + 6 * n;
        const int a = m->jnode_body[2 * n], k = sz ? sz[m->blu.pos[m->nbody + n]] : 6;
        double *D = d->F + 36 * (size_t)sl[0];
        double *B[4];

        if (!sz) {
            node_blocks_padded(m, d, n);
            continue;
        }
        /* on the real sizes (vd_blu_set_sizes): the factorization and the solves read only
         * the k real rows and columns of a node's blocks into real entries (the padded ones
         * reach padded entries only, core/blocklu.c), so only those are written: the (n, n)
         * block's k real columns zero (whole columns of 6: fixed-size stores, not a string
         * instruction per column; the padded rows of the real columns are zero in the
         * factors anyway, and the pivot writes its padding's identity itself) and the rows
         * of G */
        for (int c = 0; c < k; c++)
            for (int i = 0; i < 6; i++)
                D[i + 6 * c] = 0.0;
        for (int q = 0; q < 4; q++)
            B[q] = sl[1 + q] >= 0 ? d->F + 36 * (size_t)sl[1 + q] : NULL;
        for (int i = 0; i < k; i++) {
            const int r = row[i];
            const double *g = d->jG + 12 * (size_t)r;
            const int sa = m->jrow_body[2 * r] == a ? 0 : 1; /* the side of body a */

            for (int c = 0; c < 6; c++) {
                B[0][i + 6 * c] = g[6 * sa + c];
                B[1][c + 6 * i] = g[6 * sa + c];
            }
            if (B[2])
                for (int c = 0; c < 6; c++) {
                    B[2][i + 6 * c] = g[6 * (1 - sa) + c];
                    B[3][c + 6 * i] = g[6 * (1 - sa) + c];
                }
        }
    }
    return vd_solve_factor(m, d);
}

void vd_csb_solve(const struct vd_model *m, struct vd_data *d, double *x, double *c)
{
    const int nq = m->nq;
    double *y = d->kx;

    memcpy(y, x, (size_t)nq * sizeof(double));
    for (int n = 0; n < m->njnode; n++)
        for (int i = 0; i < 6; i++) {
            const int r = m->jnode_row[6 * n + i];

            y[nq + 6 * n + i] = r >= 0 ? c[r] : 0.0;
        }
    vd_blu_solve(&m->blu, d->F, y);
    memcpy(x, y, (size_t)nq * sizeof(double));
    for (int n = 0; n < m->njnode; n++)
        for (int i = 0; i < 6; i++) {
            const int r = m->jnode_row[6 * n + i];

            if (r >= 0)
                c[r] = y[nq + 6 * n + i];
        }
}

void vd_csb_correct(const struct vd_model *m, struct vd_data *d, const double *c, double *ds)
{
    const int nq = m->nq;
    double *y = d->kx;

    memset(y, 0, (size_t)nq * sizeof(double));
    for (int n = 0; n < m->njnode; n++)
        for (int i = 0; i < 6; i++) {
            const int r = m->jnode_row[6 * n + i];

            y[nq + 6 * n + i] = r >= 0 ? c[r] : 0.0;
        }
    vd_blu_solve_kkt0(&m->blu, d->F, y);
    memcpy(ds, y, (size_t)nq * sizeof(double));
}
