/* core/tree_jac.c - df/dq K and df/du of the tree's f with each direction's work restricted
 * to what it moves, the free root's rigid directions in one sweep (tree_jac.h). The
 * recursions are those of core/tree.c's tangent() term by term (same order of operations),
 * without the terms that are zero for the direction. */
#include "tree_jac.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blocklu.h" /* VD_CLONES */
#include "spatial.h"
#include "tree_impl.h"
#include "vdmath.h"

/* four doubles, one lane per rigid direction (GCC vector extensions, as core/bushing.c: two
 * SSE2 registers or one AVX register); every lane computes the scalar code's operations in
 * its order, so that the results are bitwise those of one direction at a time */
typedef double v4d __attribute__((vector_size(4 * sizeof(double))));

struct vd_tree_jplan {
    int nblk;
    int *row, *col;      /* (nblk) the blocks' tree bodies */
    unsigned char *bnz;  /* (nblk) of this call's blocks: bit 0 Jp, bit 1 Jv has a non-zero entry
                            (a block without one adds exact zeros: skipped) */
    int *dnode;          /* (n) the node of each coordinate */
    int *act_ptr, *act;  /* per coordinate: its node's bodies it moves (vd_tree_set_dmask) and
                            their descendants, ascending */
    int *blk_ptr, *blk;  /* per coordinate: the blocks whose column body is in act, ascending */
    int *tch_ptr, *tch;  /* per coordinate: act, those blocks' rows and their ancestors,
                            descending */
    unsigned char *tact; /* per tch entry: the body is in act */
    int rigid;           /* node 0 is a free root on body 0: the batched rigid directions */
    unsigned char *inr;  /* (nbody) the body is in the root's subtree (the root's directions
                            move it; not: a second free node's, on the ground) */
    int outside;         /* some body is not (inr 0) */
    double *IV, *Ia;     /* (6 nbody) I V, I a of the state */
    double *Sq, *Xk;     /* (6 nbody) S q' of the body's node, X_p kappa (embedded) */
    double *Er;          /* (27 nbody) x - x_root, v_CoM - v_root (the first 6 used) */
    double *H9;          /* (72 nbody) the twelve rigid directions' dh (root_rigid) */
    v4d *G9;             /* (24 nbody) their spatial forces: [component 6][group 4] */
    v4d *Jl;             /* (4 n) their columns of Jq, Ju per row: [row][group 4] */
    void *gmem;          /* G9, Jl and the batches' lane work (32-byte aligned) */
    /* the other coordinates' directions four at a time (pass4): lanes 0, 1 the pos
     * directions of two coordinates, 2, 3 their vel directions */
    int nbat;
    int *bk;              /* (4 nbat) each lane's coordinate, -1: unused */
    int *bact_ptr, *bact; /* per batch: the union of its coordinates' act, ascending */
    unsigned char *bpin;  /* per bact entry: its parent is in that union */
    int *bblk_ptr, *bblk; /* per batch: the blocks whose column body is in the union */
    int *btch_ptr, *btch; /* per batch: the union, those blocks' rows, their ancestors,
                             descending */
    unsigned char *btact; /* per btch entry: in the union */
    v4d *LD, *LdS, *LdV, *Lda, *Ldh, *LdF; /* lane work per body: 6, 6 VD_TREE_MAXD, 6, 6,
                                              18 (dh, then the perturbation e), 6 */
    v4d *Ldf;                              /* (n) the lanes' df */
    v4d *bdq; /* (2 n nbat) per batch and coordinate c: the lanes' dq_c, du_c (1 or 0) */
};

/* ---- plan --------------------------------------------------------------------------------- */

void vd_tree_jplan_free(struct vd_tree_jplan *p)
{
    if (!p)
        return;
    free(p->row);
    free(p->tact);
    free(p->IV);
    free(p->gmem);
    free(p->bk);
    free(p->bpin);
    free(p->bnz);
    free(p->inr);
    free(p);
}

/* the lists of one direction (or batch) whose moved bodies are marked in `in` (and in tc):
 * the blocks whose column body moves (appended to blk at *nk), then into tc their row bodies
 * and every ancestor of a marked body; the marked bodies, descending, appended to tch with
 * tact = moved (at *nt) */
static void touched(const struct vd_tree *t, int nblk, const int *row, const int *col,
                    const unsigned char *in, unsigned char *tc, int *blk, int *nk, int *tch,
                    unsigned char *tact, int *nt)
{
    const int nb = t->nbody;

    for (int e = 0; e < nblk; e++)
        if (in[col[e]]) {
            blk[(*nk)++] = e;
            tc[row[e]] = 1;
        }
    for (int b = nb - 1; b >= 0; b--) {
        const int pa = t->node[t->body[b].node].parent;

        if (tc[b] && pa >= 0)
            tc[pa] = 1;
    }
    for (int b = nb - 1; b >= 0; b--)
        if (tc[b]) {
            tact[*nt] = in[b];
            tch[(*nt)++] = b;
        }
}

struct vd_tree_jplan *vd_tree_jplan_new(const struct vd_tree *t, int nblk, const int *row,
                                        const int *col)
{
    const int nb = t->nbody, nn = t->nnode, n = t->n;
    struct vd_tree_jplan *p = calloc(1, sizeof(*p));
    unsigned char *in = calloc((size_t)nb + 1, 1), *tc = calloc((size_t)nb + 1, 1), *paired = NULL;
    int *ip;
    double *dp;
    int na = 0, nk = 0, nt = 0;

    if (!p || !in || !tc || nblk < 0)
        goto out_free;
    p->nblk = nblk;
    ip = calloc(2 * (size_t)nblk + (size_t)n + 3 * ((size_t)n + 1) + (size_t)n * (size_t)nb * 2 +
                    (size_t)n * (size_t)nblk + 1,
                sizeof(int));
    p->row = ip;
    p->tact = calloc((size_t)n * (size_t)nb + 1, 1);
    p->bnz = calloc((size_t)nblk + 1, 1);
    dp = calloc(24 * (size_t)nb + 27 * (size_t)nb + 72 * (size_t)nb, sizeof(double));
    p->IV = dp;
    p->gmem = aligned_alloc(sizeof(v4d), (24 * (size_t)nb + 4 * (size_t)n +
                                          (42 + 6 * VD_TREE_MAXD) * (size_t)nb + (size_t)n +
                                          2 * (size_t)n * (size_t)n) *
                                             sizeof(v4d));
    if (!ip || !p->tact || !p->bnz || !dp || !p->gmem)
        goto out_free;
    p->G9 = p->gmem;
    p->Jl = p->G9 + 24 * nb;
    p->LD = p->Jl + 4 * n;
    p->LdS = p->LD + 6 * nb;
    p->LdV = p->LdS + 6 * VD_TREE_MAXD * nb;
    p->Lda = p->LdV + 6 * nb;
    p->Ldh = p->Lda + 6 * nb;
    p->LdF = p->Ldh + 18 * nb;
    p->Ldf = p->LdF + 6 * nb;
    p->bdq = p->Ldf + n;
    p->col = ip + nblk;
    p->dnode = p->col + nblk;
    p->act_ptr = p->dnode + n;
    p->blk_ptr = p->act_ptr + n + 1;
    p->tch_ptr = p->blk_ptr + n + 1;
    p->act = p->tch_ptr + n + 1;
    p->tch = p->act + (size_t)n * (size_t)nb;
    p->blk = p->tch + (size_t)n * (size_t)nb;
    p->Ia = dp + 6 * nb;
    p->Sq = dp + 12 * nb;
    p->Xk = dp + 18 * nb;
    p->Er = dp + 24 * nb;
    p->H9 = p->Er + 27 * nb;
    for (int e = 0; e < nblk; e++) {
        if (row[e] < 0 || row[e] >= nb || col[e] < 0 || col[e] >= nb)
            goto out_free;
        p->row[e] = row[e];
        p->col[e] = col[e];
    }
    for (int d = 0; d < nn; d++)
        for (int k = t->node[d].off; k < t->node[d].off + t->node[d].nd; k++)
            p->dnode[k] = d;
    for (int k = 0; k < n; k++) {
        const int d = p->dnode[k], jk = k - t->node[d].off;

        p->act_ptr[k] = na;
        p->blk_ptr[k] = nk;
        p->tch_ptr[k] = nt;
        memset(in, 0, (size_t)nb);
        memset(tc, 0, (size_t)nb);
        /* the bodies the coordinate moves (parents come first): its node's (those whose
         * dmask has it) and their descendants */
        for (int b = 0; b < nb; b++) {
            const int pa = t->node[t->body[b].node].parent;
            const unsigned dm = t->body[b].dmask;

            if ((t->body[b].node == d && (!dm || (dm >> jk & 1u))) || (pa >= 0 && in[pa])) {
                in[b] = tc[b] = 1;
                p->act[na++] = b;
            }
        }
        /* the blocks that see them, their rows, and every ancestor of what has a force */
        touched(t, nblk, row, col, in, tc, p->blk, &nk, p->tch, p->tact, &nt);
    }
    p->act_ptr[n] = na;
    p->blk_ptr[n] = nk;
    p->tch_ptr[n] = nt;
    /* the root's rigid-motion sweep (root_rigid) moves the root's subtree with the root; a
     * second free node on the ground (a body on bushings alone, ce.c's add_free) and its
     * subtree stay: root_rigid takes only their applied forces' change (the blocks whose
     * column body moves), their coordinates take their own passes (vd_tree_jac's recursion) */
    p->rigid =
        nn > 0 && t->node[0].type == VD_TREE_FREE && t->node[0].parent == -1 && t->node[0].b0 == 0;
    p->inr = calloc((size_t)nb + 1, 1);
    if (!p->inr)
        goto out_free;
    for (int b = 0; b < nb; b++) { /* bodies are numbered parent first */
        const int pa = t->node[t->body[b].node].parent;

        p->inr[b] = (unsigned char)(b == 0 || (pa >= 0 && p->inr[pa]));
        p->outside |= !p->inr[b];
    }
    /* the batches: with a free root, every other coordinate whose node is not free, in
     * pairs (paired: taken) */
    p->bk = calloc(4 * (size_t)n + 1 + 3 * ((size_t)n + 1) + 2 * (size_t)n * (size_t)nb +
                       (size_t)n * (size_t)nblk + 1,
                   sizeof(int));
    p->bpin = calloc(2 * (size_t)n * (size_t)nb + 1, 1);
    paired = calloc((size_t)n + 1, 1);
    if (!p->bk || !p->bpin || !paired)
        goto out_free;
    p->bact_ptr = p->bk + 4 * n;
    p->bblk_ptr = p->bact_ptr + n + 1;
    p->btch_ptr = p->bblk_ptr + n + 1;
    p->bact = p->btch_ptr + n + 1;
    p->btch = p->bact + (size_t)n * (size_t)nb;
    p->bblk = p->btch + (size_t)n * (size_t)nb;
    p->btact = p->bpin + (size_t)n * (size_t)nb;
    na = nk = nt = 0;
    for (int k = 0; p->rigid && k < n; k++) {
        int kk[2] = {k, -1}, m, best = -1, bun = 0;

        /* k with the coordinate whose bodies overlap its own most (a node's coordinate and
         * one of its descendants'), the fewest bodies in the union on a tie */
        if (t->node[p->dnode[k]].type == VD_TREE_FREE || paired[k])
            continue;
        for (int k2 = k + 1; k2 < n; k2++) {
            int ov = 0, un;

            if (t->node[p->dnode[k2]].type == VD_TREE_FREE || paired[k2])
                continue;
            memset(in, 0, (size_t)nb);
            for (int i = p->act_ptr[k]; i < p->act_ptr[k + 1]; i++)
                in[p->act[i]] = 1;
            for (int i = p->act_ptr[k2]; i < p->act_ptr[k2 + 1]; i++)
                ov += in[p->act[i]];
            un = (p->act_ptr[k + 1] - p->act_ptr[k]) + (p->act_ptr[k2 + 1] - p->act_ptr[k2]) - ov;
            if (kk[1] < 0 || ov > best || (ov == best && un < bun)) {
                kk[1] = k2;
                best = ov;
                bun = un;
            }
        }
        paired[k] = 1;
        if (kk[1] >= 0)
            paired[kk[1]] = 1;
        m = kk[1] >= 0 ? 2 : 1;
        p->bk[4 * p->nbat] = p->bk[4 * p->nbat + 2] = kk[0];
        p->bk[4 * p->nbat + 1] = p->bk[4 * p->nbat + 3] = kk[1];
        p->bact_ptr[p->nbat] = na;
        p->bblk_ptr[p->nbat] = nk;
        p->btch_ptr[p->nbat] = nt;
        memset(in, 0, (size_t)nb);
        memset(tc, 0, (size_t)nb);
        for (int l = 0; l < m; l++)
            for (int i = p->act_ptr[kk[l]]; i < p->act_ptr[kk[l] + 1]; i++)
                in[p->act[i]] = tc[p->act[i]] = 1;
        for (int b = 0; b < nb; b++)
            if (in[b]) {
                const int pa = t->node[t->body[b].node].parent;

                p->bpin[na] = (unsigned char)(pa >= 0 && in[pa]);
                p->bact[na++] = b;
            }
        touched(t, nblk, row, col, in, tc, p->bblk, &nk, p->btch, p->btact, &nt);
        for (int c = 0; c < n; c++)
            for (int l = 0; l < 4; l++) {
                const int kq = p->bk[4 * p->nbat + l];

                p->bdq[2 * (n * p->nbat + c)][l] = l < 2 && kq == c ? 1.0 : 0.0;
                p->bdq[2 * (n * p->nbat + c) + 1][l] = l >= 2 && kq == c ? 1.0 : 0.0;
            }
        p->nbat++;
    }
    p->bact_ptr[p->nbat] = na;
    p->bblk_ptr[p->nbat] = nk;
    p->btch_ptr[p->nbat] = nt;
    free(in);
    free(tc);
    free(paired);
    return p;
out_free:
    free(in);
    free(tc);
    free(paired);
    vd_tree_jplan_free(p);
    return NULL;
}

/* res = I x for a rigid body's spatial inertia at the origin (tree.c's spatial_inertia:
 * [[Io, m [c]x], [-m [c]x, m 1]], c its CoM): (Io w + m c x v; m v - m c x w), 24 products
 * instead of the full 6x6's 36 */
static inline void imul(double res[6], const double I[36], const double x[6])
{
    const double mc[3] = {VD_B6(I, 2, 4), VD_B6(I, 0, 5), VD_B6(I, 1, 3)}, m = VD_B6(I, 3, 3);
    double t[3];

    for (int i = 0; i < 3; i++)
        res[i] = VD_B6(I, i, 0) * x[0] + VD_B6(I, i, 1) * x[1] + VD_B6(I, i, 2) * x[2];
    vdu_cross3(t, mc, x + 3);
    vdu_add3(res, res, t);
    vdu_cross3(t, mc, x);
    for (int i = 0; i < 3; i++)
        res[3 + i] = m * x[3 + i] - t[i];
}

/* ---- one direction ------------------------------------------------------------------------ */

/* the derivative of f along coordinate k: pos (q' = K e_k, u fixed) or vel (u = e_k) into
 * df (n); tree.c's tangent() over the plan's lists */
VD_CLONES static void pass(const struct vd_tree *t, struct vd_tree_data *td,
                           const struct vd_tree_jplan *P, const double *h,
                           const struct vd_tree_ext *ext, const double *qdd, int k, int pos,
                           double *df)
{
    static const double zero[6] = {0, 0, 0, 0, 0, 0};
    const int dn = P->dnode[k], jk = k - t->node[dn].off;
    const int *act = P->act + P->act_ptr[k], nact = P->act_ptr[k + 1] - P->act_ptr[k];
    const int *tch = P->tch + P->tch_ptr[k], ntch = P->tch_ptr[k + 1] - P->tch_ptr[k];
    const unsigned char *tact = P->tact + P->tch_ptr[k];
    const double *u = td->u;

    /* forward: the kinematic tangents of the moved bodies */
    for (int ia = 0; ia < nact; ia++) {
        const int b = act[ia];
        const struct vd_tree_node *n = &t->node[t->body[b].node];
        const int p = n->parent, o = n->off, nd = n->nd, own = t->body[b].node == dn;
        const double *S = td->S + 6 * VD_TREE_MAXD * b;
        double *D = td->dD + 6 * b, *dS = td->dS + 6 * VD_TREE_MAXD * b, *dV = td->dV + 6 * b;
        double *dc = td->dc + 6 * b, *da = td->da + 6 * b, *e = td->dh + 18 * b + 6;
        const double *x = td->x + 3 * b, *A = td->A + 9 * b, *V = td->V + 6 * b;
        double t3[3];

        if (n->type == VD_TREE_FREE) {
            double w[3], dw[3], dul[3] = {0, 0, 0};

            vdu_mat3_vec(w, A, u + o + 3);
            if (pos) {
                /* D = S_k; rotation columns body-fixed: dS_j = D x S_j */
                memcpy(D, S + 6 * jk, 6 * sizeof(double));
                memset(dS, 0, 18 * sizeof(double));
                for (int j = 3; j < 6; j++)
                    vdu_crm(dS + 6 * j, D, S + 6 * j);
                for (int i = 0; i < 6; i++) {
                    double s = 0.0;

                    for (int j = 0; j < 6; j++)
                        s += dS[6 * j + i] * u[o + j];
                    dV[i] = s;
                }
                vdu_cross3(dw, D, w);
            } else {
                memset(D, 0, 6 * sizeof(double));
                memcpy(dV, S + 6 * jk, 6 * sizeof(double));
                memset(dw, 0, sizeof(dw));
                if (jk >= 3) {
                    const double ek[3] = {A[jk - 3], A[3 + jk - 3], A[6 + jk - 3]};

                    memcpy(dw, ek, sizeof(dw));
                } else {
                    dul[jk] = 1.0;
                }
            }
            /* c = (0; v_CoM x w): dc = (0; dv x w + v x dw) */
            memset(dc, 0, 3 * sizeof(double));
            vdu_cross3(dc + 3, dul, w);
            vdu_cross3(t3, u + o, dw);
            vdu_add3(dc + 3, dc + 3, t3);
            memcpy(da, dc, 6 * sizeof(double));
            if (pos && qdd)
                for (int j = 3; j < 6; j++)
                    for (int i = 0; i < 6; i++)
                        da[i] += dS[6 * j + i] * qdd[o + j];
        } else {
            const struct vd_tree_rel *r = &td->rel[b];
            const double *Ap = p >= 0 ? td->A + 9 * p : NULL, *xp = p >= 0 ? td->x + 3 * p : NULL;
            const double *Vp = p >= 0 ? td->V + 6 * p : zero;
            const double *Dp = own ? zero : td->dD + 6 * p;
            const double *dVp = own ? zero : td->dV + 6 * p;
            const double *dap = own ? zero : td->da + 6 * p;
            const double *Sq = P->Sq + 6 * b;
            double dSq[6] = {0, 0, 0, 0, 0, 0}, t6[6];
            const int emb = vd_tree_moving_columns(n);

            if (pos) {
                for (int i = 0; i < 6; i++)
                    D[i] = own ? Dp[i] + S[6 * jk + i] : Dp[i];
                for (int j = 0; j < nd; j++) {
                    /* dS_j = D_p x S_j + X_p (ds_j/dq_k) */
                    if (own)
                        memset(dS + 6 * j, 0, 6 * sizeof(double));
                    else
                        vdu_crm(dS + 6 * j, Dp, S + 6 * j);
                    if (own && emb) {
                        vdu_xform6(t6, Ap, xp, r->ds + 6 * (j + nd * jk));
                        vdu_add6(dS + 6 * j, t6);
                    }
                    for (int i = 0; i < 6; i++)
                        dSq[i] += dS[6 * j + i] * u[o + j];
                }
                /* dv = dv_p + dS q';  dc = dv_p x S q' + v_p x dS q' + D_p x X_p kappa +
                 * X_p dkappa */
                for (int i = 0; i < 6; i++)
                    dV[i] = dVp[i] + dSq[i];
                if (own)
                    memset(dc, 0, 6 * sizeof(double));
                else
                    vdu_crm(dc, dVp, Sq);
                vdu_crm(t6, Vp, dSq);
                vdu_add6(dc, t6);
                if (emb) {
                    if (!own) {
                        vdu_crm(t6, Dp, P->Xk + 6 * b);
                        vdu_add6(dc, t6);
                    } else {
                        vdu_xform6(t6, Ap, xp, r->dkappa + 6 * jk);
                        vdu_add6(dc, t6);
                    }
                }
                for (int i = 0; i < 6; i++)
                    da[i] = dap[i] + dc[i];
                if (qdd)
                    for (int j = 0; j < nd; j++)
                        for (int i = 0; i < 6; i++)
                            da[i] += dS[6 * j + i] * qdd[o + j];
            } else {
                /* no displacement: dv = dv_p + S_k; dc = dv_p x S q' + v_p x S_k + X_p dkappa/dq'_k
                 */
                memset(D, 0, 6 * sizeof(double));
                if (own)
                    memcpy(dSq, S + 6 * jk, sizeof(dSq));
                for (int i = 0; i < 6; i++)
                    dV[i] = dVp[i] + dSq[i];
                if (own) {
                    vdu_crm(dc, Vp, dSq);
                } else {
                    vdu_crm(dc, dVp, Sq);
                }
                if (emb && own) {
                    double k6[6] = {0, 0, 0, 0, 0, 0};

                    /* d kappa / dq'_k = sum_j (ds_k/dq_j + ds_j/dq_k) q'_j */
                    for (int j = 0; j < nd; j++)
                        for (int i = 0; i < 6; i++)
                            k6[i] += (r->ds[6 * (jk + nd * j) + i] * u[o + j] +
                                      r->ds[6 * (j + nd * jk) + i] * u[o + j]);
                    vdu_xform6(t6, Ap, xp, k6);
                    vdu_add6(dc, t6);
                }
                for (int i = 0; i < 6; i++)
                    da[i] = dap[i] + dc[i];
            }
        }
        /* the body's perturbation in rtvd's coordinates: (dx, dpi, dv_CoM, domega_body) */
        if (pos) {
            vd_tree_perturbation(e, x, A, V, D, dV);
        } else {
            memset(e, 0, 6 * sizeof(double));
            vdu_cross3(t3, dV, x);
            vdu_add3(e + 6, dV + 3, t3);
            vdu_mat3t_vec(e + 9, A, dV);
        }
    }

    /* the applied forces' change: the blocks whose column body moved */
    for (int it = 0; it < ntch; it++)
        memset(td->dh + 18 * tch[it], 0, 6 * sizeof(double));
    if (ext) {
        const int *blk = P->blk + P->blk_ptr[k], nblk = P->blk_ptr[k + 1] - P->blk_ptr[k];

        for (int ib = 0; ib < nblk; ib++) {
            const int kb = blk[ib];
            const double *Jp = ext->Jp + 36 * kb, *Jv = ext->Jv + 36 * kb;
            const double *e = td->dh + 18 * ext->col[kb] + 6;
            double *y = td->dh + 18 * ext->row[kb], ev[12], acc[6];

            /* (local copies: y and e share td->dh, which would keep every partial sum in
             * memory; the same operations in the same order) */
            memcpy(ev, e, sizeof(ev));
            memcpy(acc, y, sizeof(acc));
            if (pos)
                for (int j = 0; j < 6; j++)
                    for (int i = 0; i < 6; i++)
                        acc[i] += Jp[i + 6 * j] * ev[j] + Jv[i + 6 * j] * ev[6 + j];
            else
                for (int j = 0; j < 6; j++)
                    for (int i = 0; i < 6; i++)
                        acc[i] += Jv[i + 6 * j] * ev[6 + j];
            memcpy(y, acc, sizeof(acc));
        }
    }

    /* backward: df_b = d(I a) + d(v x* I v) - d f_applied, on the bodies with a force */
    for (int it = 0; it < ntch; it++) {
        const int b = tch[it];
        const double *I = td->I + 36 * b, *D = td->dD + 6 * b, *V = td->V + 6 * b;
        const double *a = td->a + 6 * b, *dV = td->dV + 6 * b, *da = td->da + 6 * b;
        const double *iv = P->IV + 6 * b;
        double *dF = td->dF + 6 * b, t6[6], div[6];

        if (!tact[it]) {
            memset(dF, 0, 6 * sizeof(double));
        } else if (pos) {
            vd_tree_dforce(dF, I, D, V, dV, a, da, P->Ia + 6 * b, iv, imul);
        } else {
            /* D = 0: d(I a) = I da, d(v x* I v) = dv x* I v + v x* I dv */
            imul(dF, I, da);
            vdu_crf(t6, dV, iv);
            vdu_add6(dF, t6);
            imul(div, I, dV);
            vdu_crf(t6, V, div);
            vdu_add6(dF, t6);
        }
        if (h) {
            /* d(A tau + x x F; F) = (dpi x A tau + A dtau + dx x F + x x dF; dF) */
            const double *e = td->dh + 18 * b + 6, *dh = td->dh + 18 * b, *hb = h + 6 * b;
            double g6[6];

            vd_tree_dapplied(g6, td->x + 3 * b, td->A + 9 * b, hb, dh, e, tact[it] && pos);
            for (int i = 0; i < 6; i++)
                dF[i] -= g6[i];
        }
    }
    for (int it = 0; it < ntch; it++) {
        const int b = tch[it], p = t->node[t->body[b].node].parent;

        if (p >= 0)
            vdu_add6(td->dF + 6 * p, td->dF + 6 * b);
    }
    memset(df, 0, (size_t)t->n * sizeof(double));
    for (int it = ntch - 1; it >= 0; it--) {
        const int b = tch[it];
        const struct vd_tree_node *n = &t->node[t->body[b].node];
        const double *S = td->S + 6 * VD_TREE_MAXD * b, *dS = td->dS + 6 * VD_TREE_MAXD * b;

        for (int j = 0; j < n->nd; j++)
            if (vd_tree_moves(t, b, j)) /* else S_j, dS_j are zeros */
                df[n->off + j] -= (pos && tact[it] ? vdu_dot6(dS + 6 * j, td->F + 6 * b) : 0.0) +
                                  vdu_dot6(S + 6 * j, td->dF + 6 * b);
    }
}

/* ---- four directions at once --------------------------------------------------------------- */

/* spatial.h's helpers on lanes: the same operations in the same order on every lane */
static inline void v_cross(v4d r[3], const v4d a[3], const v4d b[3])
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

/* r[i] = x[i] on every lane */
static inline void v_bc(v4d *r, const double *x, int n)
{
    for (int i = 0; i < n; i++) {
        const v4d s = {x[i], x[i], x[i], x[i]};

        r[i] = s;
    }
}

static inline void v_crm(v4d r[6], const v4d v[6], const v4d m[6])
{
    v4d t[3];

    v_cross(r, v, m);
    v_cross(r + 3, v, m + 3);
    v_cross(t, v + 3, m);
    for (int i = 0; i < 3; i++)
        r[3 + i] = r[3 + i] + t[i];
}

static inline void v_crf(v4d r[6], const v4d v[6], const v4d f[6])
{
    v4d t[3];

    v_cross(r, v, f);
    v_cross(t, v + 3, f + 3);
    for (int i = 0; i < 3; i++)
        r[i] = r[i] + t[i];
    v_cross(r + 3, v, f + 3);
}

/* imul's operations (a rigid body's spatial inertia times x) */
static inline void v_imul(v4d r[6], const double I[36], const v4d x[6])
{
    const double mc[3] = {VD_B6(I, 2, 4), VD_B6(I, 0, 5), VD_B6(I, 1, 3)}, m = VD_B6(I, 3, 3);
    v4d mcv[3], t[3];

    v_bc(mcv, mc, 3);
    for (int i = 0; i < 3; i++)
        r[i] = VD_B6(I, i, 0) * x[0] + VD_B6(I, i, 1) * x[1] + VD_B6(I, i, 2) * x[2];
    v_cross(t, mcv, x + 3);
    for (int i = 0; i < 3; i++)
        r[i] = r[i] + t[i];
    v_cross(t, mcv, x);
    for (int i = 0; i < 3; i++)
        r[3 + i] = m * x[3 + i] - t[i];
}

static inline void v_mat3_vec(v4d r[3], const double A[9], const v4d x[3])
{
    for (int i = 0; i < 3; i++)
        r[i] = A[3 * i] * x[0] + A[3 * i + 1] * x[1] + A[3 * i + 2] * x[2];
}

/* vdu_xform6 on lanes (A NULL: the identity) */
static inline void v_xform(v4d r[6], const double *A, const double *x, const v4d s[6])
{
    v4d t[3], xv[3];

    if (!A) {
        memcpy(r, s, 6 * sizeof(v4d));
        return;
    }
    v_bc(xv, x, 3);
    v_mat3_vec(r, A, s);
    v_mat3_vec(r + 3, A, s + 3);
    v_cross(t, xv, r);
    for (int i = 0; i < 3; i++)
        r[3 + i] = r[3 + i] + t[i];
}

/* tree_impl.h's vd_tree_dIw on lanes: D x* (I w) - I (D x w) + I dw */
static inline void v_dIw(v4d r[6], const double I[36], const v4d D[6], const v4d w[6],
                         const v4d Iw[6], const v4d dw[6])
{
    v4d t6[6], t7[6];

    v_crf(r, D, Iw);
    v_crm(t6, D, w);
    v_imul(t7, I, t6);
    for (int i = 0; i < 6; i++)
        r[i] -= t7[i];
    v_imul(t7, I, dw);
    for (int i = 0; i < 6; i++)
        r[i] += t7[i];
}

/* (GCC 12 at -O3 takes the lanes of the local v4d arrays that v_bc fills for "maybe used
 * uninitialized"; every array below, in pass4 and root_rigid, is written whole before it is
 * read) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
/* the four directions of batch ib (lanes: pos of its two coordinates, then their vel) into
 * their columns of Jq, Ju: tree.c's tangent() with the direction's (dq, du) in the lanes, over
 * the union of the batch's lists. Per lane this is pass()'s arithmetic: the terms pass() drops
 * are exact zeros here (D = 0, dS = 0 for vel, du = 0 for pos, every tangent 0 on a body the
 * lane does not move), and adding them changes no sum but the sign of a zero */
VD_CLONES static void pass4(const struct vd_tree *t, struct vd_tree_data *td,
                            const struct vd_tree_jplan *P, const double *h,
                            const struct vd_tree_ext *ext, const double *qdd, int ib)
{
    static const v4d z6[6];
    static const double zero6[6];
    const int N = t->n, *kl = P->bk + 4 * ib;
    const int *act = P->bact + P->bact_ptr[ib], nact = P->bact_ptr[ib + 1] - P->bact_ptr[ib];
    const unsigned char *pin = P->bpin + P->bact_ptr[ib];
    const int *tch = P->btch + P->btch_ptr[ib], ntch = P->btch_ptr[ib + 1] - P->btch_ptr[ib];
    const unsigned char *tact = P->btact + P->btch_ptr[ib];
    const double *u = td->u;

    /* forward: the kinematic tangents of the moved bodies */
    for (int ia = 0; ia < nact; ia++) {
        const int b = act[ia];
        const struct vd_tree_node *n = &t->node[t->body[b].node];
        const int p = n->parent, o = n->off, nd = n->nd, emb = vd_tree_moving_columns(n);
        const double *S = td->S + 6 * VD_TREE_MAXD * b;
        const struct vd_tree_rel *r = &td->rel[b];
        const double *Ap = p >= 0 ? td->A + 9 * p : NULL, *xp = p >= 0 ? td->x + 3 * p : NULL;
        const v4d *Dp = pin[ia] ? P->LD + 6 * p : z6, *dVp = pin[ia] ? P->LdV + 6 * p : z6;
        const v4d *dap = pin[ia] ? P->Lda + 6 * p : z6;
        v4d *D = P->LD + 6 * b, *dS = P->LdS + 6 * VD_TREE_MAXD * b, *dV = P->LdV + 6 * b;
        v4d *da = P->Lda + 6 * b, *e = P->Ldh + 18 * b + 6;
        v4d DQ[VD_TREE_MAXD], DU[VD_TREE_MAXD], Vp[6], Sq[6], dSq[6], dc[6], t6[6], Sj[6];
        v4d x[3], V[6], t3[3], t4[3];

        int jl[4];

        for (int l = 0; l < 4; l++)
            jl[l] = kl[l] >= o && kl[l] < o + nd ? kl[l] - o : -1;
        for (int j = 0; j < nd; j++) {
            DQ[j] = P->bdq[2 * (N * ib + o + j)];
            DU[j] = P->bdq[2 * (N * ib + o + j) + 1];
        }
        if (p >= 0)
            v_bc(Vp, td->V + 6 * p, 6);
        else
            memcpy(Vp, z6, sizeof(Vp));
        v_bc(Sq, P->Sq + 6 * b, 6);
        for (int i = 0; i < 6; i++) {
            D[i] = Dp[i];
            dSq[i] = z6[0];
        }
        for (int j = 0; j < nd; j++) {
            v_bc(Sj, S + 6 * j, 6);
            for (int i = 0; i < 6; i++)
                D[i] += Sj[i] * DQ[j];
            /* dS_j = D_p x S_j + X_p (ds_j/dq dq) (a parent no lane moves: D_p = 0) */
            if (pin[ia])
                v_crm(dS + 6 * j, Dp, Sj);
            else
                for (int i = 0; i < 6; i++)
                    dS[6 * j + i] = z6[0];
            if (emb) {
                v4d ds[6];

                /* sum_k ds_j/dq_k dq_k: a lane's dq is a unit vector or zero */
                const double *d0 = jl[0] >= 0 ? r->ds + 6 * (j + nd * jl[0]) : zero6;
                const double *d1 = jl[1] >= 0 ? r->ds + 6 * (j + nd * jl[1]) : zero6;

                for (int i = 0; i < 6; i++)
                    ds[i] = (v4d){d0[i], d1[i], 0.0, 0.0};
                v_xform(t6, Ap, xp, ds);
                for (int i = 0; i < 6; i++)
                    dS[6 * j + i] += t6[i];
            }
            for (int i = 0; i < 6; i++)
                dSq[i] += dS[6 * j + i] * u[o + j] + Sj[i] * DU[j];
        }
        /* dv = dv_p + dS q' + S dq' */
        for (int i = 0; i < 6; i++)
            dV[i] = dVp[i] + dSq[i];
        /* dc = dv_p x S q' + v_p x (dS q' + S dq') + D_p x X_p kappa + X_p dkappa (the
         * parent's terms zero when no lane moves it) */
        v_crm(t6, Vp, dSq);
        if (pin[ia]) {
            v_crm(dc, dVp, Sq);
            for (int i = 0; i < 6; i++)
                dc[i] += t6[i];
        } else {
            for (int i = 0; i < 6; i++)
                dc[i] = z6[0] + t6[i];
        }
        if (emb) {
            v4d Xk[6], k6[6];

            if (pin[ia]) {
                v_bc(Xk, P->Xk + 6 * b, 6);
                v_crm(t6, Dp, Xk);
                for (int i = 0; i < 6; i++)
                    dc[i] += t6[i];
            }
            for (int i = 0; i < 6; i++)
                k6[i] = z6[0];
            /* d kappa/dq dq + d kappa/dq' dq' of a lane's unit direction */
            for (int l = 0; l < 4; l++) {
                const int k = jl[l];
                double sk[6];

                if (k < 0)
                    continue;
                if (l < 2) {
                    for (int i = 0; i < 6; i++)
                        k6[i][l] = r->dkappa[6 * k + i];
                    continue;
                }
                /* (per component the sum over j in that order; the components side by side) */
                for (int i = 0; i < 6; i++)
                    sk[i] = 0.0;
                for (int j = 0; j < nd; j++) {
                    const double uj = u[o + j], *d1 = r->ds + 6 * (k + nd * j);
                    const double *d2 = r->ds + 6 * (j + nd * k);

                    for (int i = 0; i < 6; i++)
                        sk[i] += (d1[i] * uj + d2[i] * uj);
                }
                for (int i = 0; i < 6; i++)
                    k6[i][l] = sk[i];
            }
            v_xform(t6, Ap, xp, k6);
            for (int i = 0; i < 6; i++)
                dc[i] += t6[i];
        }
        for (int i = 0; i < 6; i++)
            da[i] = dap[i] + dc[i];
        if (qdd)
            for (int j = 0; j < nd; j++)
                for (int i = 0; i < 6; i++)
                    da[i] += dS[6 * j + i] * qdd[o + j];
        /* the body's perturbation in rtvd's coordinates: (dx, dpi, dv_CoM, domega_body) */
        v_bc(x, td->x + 3 * b, 3);
        v_bc(V, td->V + 6 * b, 6);
        v_cross(t3, x, D);
        for (int i = 0; i < 3; i++) {
            e[i] = D[3 + i] - t3[i]; /* dx = D_lin - x x dpi */
            e[3 + i] = D[i];         /* dpi */
        }
        v_cross(t3, dV, x); /* dv_CoM = dv_O + domega x x + omega x dx */
        for (int i = 0; i < 3; i++)
            e[6 + i] = dV[3 + i] + t3[i];
        v_cross(t3, V, e);
        for (int i = 0; i < 3; i++)
            e[6 + i] = e[6 + i] + t3[i];
        v_cross(t3, D, V); /* domega_b = A^T (domega - dpi x omega) */
        for (int i = 0; i < 3; i++)
            t4[i] = dV[i] - t3[i];
        {
            const double *A = td->A + 9 * b;

            for (int i = 0; i < 3; i++)
                e[9 + i] = A[i] * t4[0] + A[3 + i] * t4[1] + A[6 + i] * t4[2];
        }
    }

    /* the applied forces' change: the blocks whose column body moved */
    for (int it = 0; it < ntch; it++) {
        v4d *y = P->Ldh + 18 * tch[it];

        y[0] = y[1] = y[2] = y[3] = y[4] = y[5] = z6[0]; /* (not memset's rep stos) */
    }
    if (ext) {
        const int *blk = P->bblk + P->bblk_ptr[ib], nblk = P->bblk_ptr[ib + 1] - P->bblk_ptr[ib];

        for (int ibk = 0; ibk < nblk; ibk++) {
            const int kb = blk[ibk], nz = P->bnz[kb];
            const double *Jp = ext->Jp + 36 * kb, *Jv = ext->Jv + 36 * kb;
            const v4d *e = P->Ldh + 18 * ext->col[kb] + 6;
            v4d *y = P->Ldh + 18 * ext->row[kb], acc[6];

            if (!nz)
                continue; /* adds zeros */
            /* (the sum in registers: y and e never overlap, but share P->Ldh; vector moves
             * where memcpy of the lanes took rep movs) */
            for (int i = 0; i < 6; i++)
                acc[i] = y[i];
            if (nz == 3) {
                for (int j = 0; j < 6; j++) {
                    const v4d ep = e[j], evl = e[6 + j];

                    for (int i = 0; i < 6; i++)
                        acc[i] += Jp[i + 6 * j] * ep + Jv[i + 6 * j] * evl;
                }
            } else {
                /* one of the two zero: its products are zeros */
                const double *J = nz == 1 ? Jp : Jv;
                const v4d *ej = nz == 1 ? e : e + 6;

                for (int j = 0; j < 6; j++) {
                    const v4d el = ej[j];

                    for (int i = 0; i < 6; i++)
                        acc[i] += J[i + 6 * j] * el;
                }
            }
            for (int i = 0; i < 6; i++)
                y[i] = acc[i];
        }
    }

    /* backward: df_b = d(I a) + d(v x* I v) - d f_applied, on the bodies with a force */
    for (int it = 0; it < ntch; it++) {
        const int b = tch[it];
        const double *I = td->I + 36 * b;
        const v4d *D = P->LD + 6 * b, *dV = P->LdV + 6 * b, *da = P->Lda + 6 * b;
        v4d *dF = P->LdF + 6 * b, t6[6], div[6], V[6], a[6], Ia[6], iv[6];

        if (!tact[it]) {
            dF[0] = dF[1] = dF[2] = dF[3] = dF[4] = dF[5] = z6[0];
        } else {
            v_bc(V, td->V + 6 * b, 6);
            v_bc(a, td->a + 6 * b, 6);
            v_bc(Ia, P->Ia + 6 * b, 6);
            v_bc(iv, P->IV + 6 * b, 6);
            /* d(I a) + dv x* I v + v x* d(I v) (tree_impl.h's vd_tree_dforce) */
            v_dIw(dF, I, D, a, Ia, da);
            v_crf(t6, dV, iv);
            for (int i = 0; i < 6; i++)
                dF[i] += t6[i];
            v_dIw(div, I, D, V, iv, dV);
            v_crf(t6, V, div);
            for (int i = 0; i < 6; i++)
                dF[i] += t6[i];
        }
        if (h) {
            /* d(A tau + x x F; F) = (dpi x A tau + A dtau + dx x F + x x dF; dF) */
            const v4d *e = P->Ldh + 18 * b + 6, *dh = P->Ldh + 18 * b;
            const double *A = td->A + 9 * b;
            v4d g6[6], t3[3], x[3];

            if (tact[it]) {
                double At[3];
                v4d Atv[3], hb[3];

                vdu_mat3_vec(At, A, h + 6 * b + 3);
                v_bc(Atv, At, 3);
                v_bc(hb, h + 6 * b, 3);
                v_cross(g6, e + 3, Atv);
                v_mat3_vec(t3, A, dh + 3);
                for (int i = 0; i < 3; i++)
                    g6[i] += t3[i];
                v_cross(t3, e, hb);
                for (int i = 0; i < 3; i++)
                    g6[i] += t3[i];
            } else {
                v_mat3_vec(g6, A, dh + 3);
            }
            v_bc(x, td->x + 3 * b, 3);
            v_cross(t3, x, dh);
            for (int i = 0; i < 3; i++) {
                g6[i] += t3[i];
                g6[3 + i] = dh[i];
            }
            for (int i = 0; i < 6; i++)
                dF[i] -= g6[i];
        }
    }
    for (int it = 0; it < ntch; it++) {
        const int b = tch[it], p = t->node[t->body[b].node].parent;

        if (p >= 0)
            for (int i = 0; i < 6; i++)
                P->LdF[6 * p + i] += P->LdF[6 * b + i];
    }
    memset(P->Ldf, 0, (size_t)N * sizeof(v4d));
    for (int it = ntch - 1; it >= 0; it--) {
        const int b = tch[it];
        const struct vd_tree_node *n = &t->node[t->body[b].node];
        const double *S = td->S + 6 * VD_TREE_MAXD * b, *F = td->F + 6 * b;
        const v4d *dS = P->LdS + 6 * VD_TREE_MAXD * b, *dF = P->LdF + 6 * b;

        for (int j = 0; j < n->nd; j++) {
            const double *s = S + 6 * j;
            const v4d *ds = dS + 6 * j;
            const v4d sdf = s[0] * dF[0] + s[1] * dF[1] + s[2] * dF[2] + s[3] * dF[3] +
                            s[4] * dF[4] + s[5] * dF[5];

            if (!vd_tree_moves(t, b, j)) /* S_j, dS_j are zeros */
                continue;
            if (tact[it])
                P->Ldf[n->off + j] -= ds[0] * F[0] + ds[1] * F[1] + ds[2] * F[2] + ds[3] * F[3] +
                                      ds[4] * F[4] + ds[5] * F[5] + sdf;
            else
                P->Ldf[n->off + j] -= 0.0 + sdf;
        }
    }
    for (int l = 0; l < 4; l++) {
        double *df;

        if (kl[l] < 0)
            continue;
        df = (l < 2 ? td->Jq : td->Ju) + N * kl[l];
        for (int i = 0; i < N; i++)
            df[i] = P->Ldf[i][l];
    }
}

/* ---- the free root's rigid directions ----------------------------------------------------- */

/* root_rigid's rows of Bp and Bv for the rotation axis j (j1 = j + 1, j2 = j + 2 mod 3) of one
 * block, added into the row body's H */
static inline void rot_rows(double *restrict H, const double *restrict Jp,
                            const double *restrict Jv, const double A[9], const double rx[3],
                            const double rv[3], int j, int j1, int j2)
{
    for (int i = 0; i < 6; i++) {
        const double a = Jp[i + 6 * j1] * rx[j2] - Jp[i + 6 * j2] * rx[j1];
        const double b = Jv[i + 6 * j1] * rv[j2] - Jv[i + 6 * j2] * rv[j1];
        const double c = Jv[i + 6 * j1] * rx[j2] - Jv[i + 6 * j2] * rx[j1];

        H[36 + i + 6 * j] += Jp[i + 6 * (3 + j)] - a - b;
        H[54 + i + 6 * j] +=
            A[3 * j] * Jv[i + 18] + A[3 * j + 1] * Jv[i + 24] + A[3 * j + 2] * Jv[i + 30] - c;
    }
}

/* rot_rows of a block whose Jv is zero: Bp's rows without the Jv terms, Bv's none */
static inline void rot_rows_p(double *restrict H, const double *restrict Jp, const double rx[3],
                              int j, int j1, int j2)
{
    for (int i = 0; i < 6; i++) {
        const double a = Jp[i + 6 * j1] * rx[j2] - Jp[i + 6 * j2] * rx[j1];

        H[36 + i + 6 * j] += Jp[i + 6 * (3 + j)] - a;
    }
}

/* Jq columns 0..5 (translations, rotations: q' = K e_k) and Ju columns 0..5 (the CoM
 * velocity, the angular velocity) of a free root on body 0, as rigid motions of the whole
 * tree (tree_jac.h). The twelve directions d: 0..2 translation (pos), 3..5 translation (vel),
 * 6..8 rotation (pos), 9..11 angular velocity (vel): every body's velocity changes by the
 * same twist T_j = (dpi_j; x_r x dpi_j), its acceleration by a_r' + T_j x (V - V_r) with the
 * root's a_r' = (0; v_r x dpi_j) (the recursion's sum of T_j x S q' along the path) */
VD_CLONES static void root_rigid(const struct vd_tree *t, struct vd_tree_data *td,
                                 struct vd_tree_jplan *P, const double g[3], const double *h,
                                 const struct vd_tree_ext *ext, const double *qdd)
{
    const int nb = t->nbody, N = t->n;
    const double *xr = td->x, *Ar = td->A, *vr = td->u;
    double L[3], dpi[3][3];

    /* the uniform linear acceleration q''_trans - g, and the rotations dpi_j = A e_j */
    for (int i = 0; i < 3; i++) {
        L[i] = (qdd ? qdd[i] : 0.0) - g[i];
        for (int j = 0; j < 3; j++)
            dpi[j][i] = Ar[3 * i + j];
    }
    /* each body under rotation j about the root's CoM with the root's CoM velocity held:
     * dx = dpi x (x - x_r), dv_CoM = dpi x (v - v_r), dpi, domega_body = 0; kept: x - x_r,
     * v - v_r (Er's first six) */
    for (int b = 0; b < nb; b++) {
        const double *x = td->x + 3 * b, *V = td->V + 6 * b;
        double *Er = P->Er + 27 * b, v[3];

        vdu_cross3(v, V, x);
        vdu_add3(v, v, V + 3);
        vdu_sub3(Er, x, xr);
        vdu_sub3(Er + 3, v, vr);
    }
    /* dh of the twelve directions in one sweep of the blocks (6 x 12 per body, column-major).
     * The rotations' (linear in dpi_j) are summed per row body as 6 x 3 matrices and applied
     * to the three dpi_j once per body: with rx = x - x_r, rv = v - v_r of the column body,
     *   rotation:          Jp0 (dpi x rx) + Jp3 dpi + Jv0 (dpi x rv) = Bp dpi,
     *                      row i of Bp = Jp3_i - Jp0_i x rx - Jv0_i x rv;
     *   angular velocity:  Jv0 (dpi x rx) + Jv3 A^T dpi = Bv dpi (the CoM moves by dpi x rx,
     *                      the body-axes angular velocity by A^T dpi),
     *                      row i of Bv = A Jv3_i - Jv0_i x rx
     * (Jp0_i, Jp3_i: row i of the block's first and last three columns; rows of B stored
     * column-major in H's rotation slots until the sweep ends; the cross products written
     * out per component, vdu_cross3's operations, so that the rows vectorize) */
    memset(P->H9, 0, 72 * (size_t)nb * sizeof(double));
    if (ext)
        for (int k = 0; k < ext->nblk; k++) {
            const double *restrict Jp = ext->Jp + 36 * k, *restrict Jv = ext->Jv + 36 * k;
            const double *Er = P->Er + 27 * ext->col[k], *Ac = td->A + 9 * ext->col[k];
            const double rx[3] = {Er[0], Er[1], Er[2]}, rv[3] = {Er[3], Er[4], Er[5]};
            double A[9], *restrict H = P->H9 + 72 * ext->row[k];

            if (P->outside && !P->inr[ext->col[k]])
                continue; /* the column body stays: no perturbation */
            if (P->bnz[k] == 1) {
                /* Jv = 0: only Jp's terms (Jv's are zeros) */
                for (int i = 0; i < 18; i++)
                    H[i] += Jp[i];
                rot_rows_p(H, Jp, rx, 0, 1, 2);
                rot_rows_p(H, Jp, rx, 1, 2, 0);
                rot_rows_p(H, Jp, rx, 2, 0, 1);
                continue;
            }
            if (!P->bnz[k])
                continue; /* adds zeros */
            memcpy(A, Ac, sizeof(A));
            for (int i = 0; i < 18; i++) {
                H[i] += Jp[i];
                H[18 + i] += Jv[i];
            }
            /* (j written out: constant j1, j2, so that the rows' loops vectorize) */
            rot_rows(H, Jp, Jv, A, rx, rv, 0, 1, 2);
            rot_rows(H, Jp, Jv, A, rx, rv, 1, 2, 0);
            rot_rows(H, Jp, Jv, A, rx, rv, 2, 0, 1);
        }
    /* per body the twelve directions as four groups of three lanes (lane 3 unused): 0 the
     * translations (pos), 1 the CoM velocity, 2 the rotations, 3 the angular velocity; dp[k]
     * holds component k of dpi_0..2, T[c] component c of the root's columns T_0..2 */
    v4d dp[3], T[6];
    for (int k = 0; k < 3; k++)
        dp[k] = (v4d){dpi[0][k], dpi[1][k], dpi[2][k], 0.0};
    for (int c = 0; c < 6; c++)
        T[c] = (v4d){td->S[18 + c], td->S[24 + c], td->S[30 + c], 0.0};
    /* the material change of each body's spatial force: the applied forces' (A dtau + x x dF;
     * dF); under rotation also the global force held fixed in the turned frame (F x dpi at
     * x) and the uniform acceleration held fixed: -I (0; -dpi x L) */
    for (int b = 0; b < nb; b++) {
        const double *xb = td->x + 3 * b, *Ab = td->A + 9 * b;
        const double *restrict I = td->I + 36 * b; /* (read in place: a copy took rep movs) */
        const double *Vb = td->V + 6 * b, *IVb = P->IV + 6 * b;
        const double *restrict H = P->H9 + 72 * b;
        double x[3], A[9], V[6], iv[6], W[6];
        v4d Ht[6][4], (*restrict G)[4] = (v4d(*)[4])(P->G9 + 24 * b);

        memcpy(x, xb, sizeof(x));
        memcpy(A, Ab, sizeof(A));
        memcpy(V, Vb, sizeof(V));
        memcpy(iv, IVb, sizeof(iv));
        for (int i = 0; i < 6; i++) {
            W[i] = V[i] - td->V[i];
            Ht[i][0] = (v4d){H[i], H[i + 6], H[i + 12], 0.0};
            Ht[i][1] = (v4d){H[18 + i], H[24 + i], H[30 + i], 0.0};
            if (ext) {
                Ht[i][2] = H[36 + i] * dp[0] + H[42 + i] * dp[1] + H[48 + i] * dp[2];
                Ht[i][3] = H[54 + i] * dp[0] + H[60 + i] * dp[1] + H[66 + i] * dp[2];
            } else {
                Ht[i][2] = Ht[i][3] = (v4d){0.0, 0.0, 0.0, 0.0};
            }
        }
        for (int gr = 0; gr < 4; gr++)
            for (int c = 0; c < 3; c++) {
                const int c1 = (c + 1) % 3, c2 = (c + 2) % 3;

                G[c][gr] = A[3 * c] * Ht[3][gr] + A[3 * c + 1] * Ht[4][gr] +
                           A[3 * c + 2] * Ht[5][gr] + (x[c1] * Ht[c2][gr] - x[c2] * Ht[c1][gr]);
                G[3 + c][gr] = Ht[c][gr];
            }
        if (P->outside && !P->inr[b])
            continue; /* a body the root's directions do not move: its applied forces' change
                         only (its frame, velocity and acceleration stay) */
        /* rotations */
        {
            v4d dL[3];

            if (h) {
                const double hb[3] = {h[6 * b], h[6 * b + 1], h[6 * b + 2]};
                v4d Fx[3];

                for (int c = 0; c < 3; c++) {
                    const int c1 = (c + 1) % 3, c2 = (c + 2) % 3;

                    Fx[c] = hb[c1] * dp[c2] - hb[c2] * dp[c1];
                }
                for (int c = 0; c < 3; c++) {
                    const int c1 = (c + 1) % 3, c2 = (c + 2) % 3;

                    G[c][2] += x[c1] * Fx[c2] - x[c2] * Fx[c1];
                    G[3 + c][2] += Fx[c];
                }
            }
            for (int c = 0; c < 3; c++) {
                const int c1 = (c + 1) % 3, c2 = (c + 2) % 3;

                dL[c] = L[c1] * dp[c2] - L[c2] * dp[c1]; /* -dpi x L */
            }
            for (int i = 0; i < 6; i++)
                G[i][2] -= I[i + 18] * dL[0] + I[i + 24] * dL[1] + I[i + 30] * dL[2];
        }
        /* angular velocity j: minus d(I a) + d(v x* I v) = I da + T x* I v + v x* I T, with
         * da = (0; v_r x dpi) + T x (V - V_r) (imul, crm, crf written out per lane) */
        {
            v4d da[6], y[6], it[6];

            for (int c = 0; c < 3; c++) {
                const int c1 = (c + 1) % 3, c2 = (c + 2) % 3;

                /* crm(T, W): (Tw x Ww; Tw x Wv + Tv x Ww) */
                da[c] = 0.0 + (T[c1] * W[c2] - T[c2] * W[c1]);
                da[3 + c] =
                    (vr[c1] * dp[c2] - vr[c2] * dp[c1]) + ((T[c1] * W[3 + c2] - T[c2] * W[3 + c1]) +
                                                           (T[3 + c1] * W[c2] - T[3 + c2] * W[c1]));
            }
            v_imul(y, I, da); /* y = I da */
            /* y += T x* I v: (Tw x ivw + Tv x ivv; Tw x ivv) */
            for (int c = 0; c < 3; c++) {
                const int c1 = (c + 1) % 3, c2 = (c + 2) % 3;

                y[c] += (T[c1] * iv[c2] - T[c2] * iv[c1]) +
                        (T[3 + c1] * iv[3 + c2] - T[3 + c2] * iv[3 + c1]);
                y[3 + c] += T[c1] * iv[3 + c2] - T[c2] * iv[3 + c1];
            }
            v_imul(it, I, T); /* it = I T */
            /* y += V x* it */
            for (int c = 0; c < 3; c++) {
                const int c1 = (c + 1) % 3, c2 = (c + 2) % 3;

                y[c] += (V[c1] * it[c2] - V[c2] * it[c1]) +
                        (V[3 + c1] * it[3 + c2] - V[3 + c2] * it[3 + c1]);
                y[3 + c] += V[c1] * it[3 + c2] - V[c2] * it[3 + c1];
            }
            for (int i = 0; i < 6; i++)
                G[i][3] -= y[i];
        }
    }
    /* subtree sums, then the projections on every node's motion columns */
    for (int b = nb - 1; b > 0; b--) {
        const int p = t->node[t->body[b].node].parent;
        v4d *restrict Gp = P->G9 + 24 * (p >= 0 ? p : 0);
        const v4d *restrict G = P->G9 + 24 * b;

        if (p < 0)
            continue; /* a second free node's subtree ends at its body */
        for (int i = 0; i < 24; i++)
            Gp[i] += G[i];
    }
    memset(P->Jl, 0, 4 * (size_t)N * sizeof(v4d));
    for (int b = 0; b < nb; b++) {
        const struct vd_tree_node *n = &t->node[t->body[b].node];
        const double *S = td->S + 6 * VD_TREE_MAXD * b;
        const v4d(*restrict G)[4] = (const v4d(*)[4])(P->G9 + 24 * b);

        for (int j = 0; j < n->nd; j++) {
            const double *s = S + 6 * j;
            v4d *restrict J = P->Jl + 4 * (n->off + j);

            if (!vd_tree_moves(t, b, j))
                continue;
            for (int gr = 0; gr < 4; gr++)
                J[gr] += s[0] * G[0][gr] + s[1] * G[1][gr] + s[2] * G[2][gr] + s[3] * G[3][gr] +
                         s[4] * G[4][gr] + s[5] * G[5][gr];
        }
    }
    for (int r = 0; r < N; r++) {
        const v4d *J = P->Jl + 4 * r;

        for (int d = 0; d < 3; d++) {
            td->Jq[r + N * d] = J[0][d];
            td->Ju[r + N * d] = J[1][d];
            td->Jq[r + N * (3 + d)] = J[2][d];
            td->Ju[r + N * (3 + d)] = J[3][d];
        }
    }
    /* the root's translation rows are global: they turn with the tree (dpi x f_trans) */
    for (int j = 0; j < 3; j++) {
        double t3[3];

        vdu_cross3(t3, dpi[j], td->f);
        vdu_add3(td->Jq + N * (3 + j), td->Jq + N * (3 + j), t3);
    }
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/* ---- all directions ----------------------------------------------------------------------- */

typedef long long v4l __attribute__((vector_size(4 * sizeof(long long))));

/* nz[k]: bit 0 when Jp's block k has an entry != 0 (NaN included), bit 1 Jv's; four entries
 * per compare */
VD_CLONES static void block_nz(unsigned char *nz, int nblk, const double *Jp, const double *Jv)
{
    const v4d z = {0.0, 0.0, 0.0, 0.0};

    for (int k = 0; k < nblk; k++) {
        v4l mp = {0, 0, 0, 0}, mv = {0, 0, 0, 0};
        long long sp = 0, sv = 0;

        for (int i = 0; i < 36; i += 4) {
            v4d a, b;

            memcpy(&a, Jp + 36 * k + i, sizeof(a));
            memcpy(&b, Jv + 36 * k + i, sizeof(b));
            mp |= a != z;
            mv |= b != z;
        }
        for (int l = 0; l < 4; l++) {
            sp |= mp[l];
            sv |= mv[l];
        }
        nz[k] = (unsigned char)((sp ? 1 : 0) | (sv ? 2 : 0));
    }
}

void vd_tree_jac_fast(const struct vd_tree *t, struct vd_tree_data *td, struct vd_tree_jplan *P,
                      const double g[3], const double *h, const struct vd_tree_ext *ext,
                      const double *qdd)
{
    const int N = t->n;

    /* which blocks have a non-zero entry (a force element's block can be zero at a state, a
     * body's with only its gyroscopic terms is: the tree form leaves those out) */
    if (ext)
        block_nz(P->bnz, P->nblk, ext->Jp, ext->Jv);
    /* the subtree forces F of this state (the caller's vd_tree_forces(g, h, NULL) at this state
     * leaves v x* I v and the applied forces for it), and the products every direction
     * reads */
    vd_tree_forces_again(t, td, g, h, qdd);
    for (int b = 0; b < t->nbody; b++) {
        const struct vd_tree_node *n = &t->node[t->body[b].node];
        const double *S = td->S + 6 * VD_TREE_MAXD * b;
        double *Sq = P->Sq + 6 * b;

        imul(P->IV + 6 * b, td->I + 36 * b, td->V + 6 * b);
        imul(P->Ia + 6 * b, td->I + 36 * b, td->a + 6 * b);
        memset(Sq, 0, 6 * sizeof(double));
        for (int j = 0; j < n->nd; j++)
            for (int i = 0; i < 6; i++)
                Sq[i] += S[6 * j + i] * td->u[n->off + j];
        if (vd_tree_moving_columns(n)) {
            const int p = n->parent;

            vdu_xform6(P->Xk + 6 * b, p >= 0 ? td->A + 9 * p : NULL, p >= 0 ? td->x + 3 * p : NULL,
                       td->rel[b].kappa);
        }
    }
    for (int ib = 0; ib < P->nbat; ib++)
        pass4(t, td, P, h, ext, qdd, ib);
    for (int k = 0; k < N; k++) {
        if (P->rigid && (k < 6 || t->node[P->dnode[k]].type != VD_TREE_FREE))
            continue; /* root_rigid's, pass4's */
        pass(t, td, P, h, ext, qdd, k, 1, td->Jq + N * k);
        pass(t, td, P, h, ext, qdd, k, 0, td->Ju + N * k);
    }
    if (P->rigid)
        root_rigid(t, td, P, g, h, ext, qdd);
}
