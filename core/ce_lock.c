/* core/ce_lock.c - the force elements the CE form holds locked (ce.h: vd_ce_find_locked): the
 * elements whose generalized force in the tree coordinates is zero, so that the CE step's
 * evaluations leave them out (vd_eval_skip's bu, cp, pp). FA and TA integrate the joint model's
 * elements as they are; only the CE step's equations change, at the closures' error level.
 *
 * The argument (virtual work). An element whose coordinates c (a bushing's six components, a
 * coupler's error g = q_a - ratio q_b, a point-to-point element's length L) the tree moves
 * with no coordinate, dc/dq K = 0 for every tree coordinate at every state, has constant
 * c: its force F(c, c') = F(c, 0) is constant and its generalized force sum_k F_k dc_k/dq K is
 * zero, and so is every derivative of it (the linearly implicit step's Jacobian blocks project
 * to J^T (dF/dc) (dc/dq) = 0 and dJ^T/dq F: dc/dq vanishes identically). A bushing whose six
 * rates all vanish joins two bodies the tree moves rigidly together (no relative twist): its
 * force pair is internal to one rigid body, whatever its deflection. A bushing with every
 * curve zero and no actuation (a rate-free bushing that only carries a coupler) has F = 0
 * identically: dropped with its coupler (exactly, not at closure level).
 *
 * The proof, at init, for each candidate: (1) structural: every body of the element belongs
 * to one tree node or to that node's parent (through welds), where the closure or the weld holds
 * the joint exactly; (2) numeric: the element's coordinate rates per unit rate of every tree
 * coordinate, computed as the evaluation computes them (vd_bushing_coords, the markers'
 * velocities), at VD_CE_LOCK_NS states sampled over the coordinates' ranges, at most
 * VD_CE_LOCK_TOL. A bushing whose rotation is not held (a rate about a free axis: a wheel
 * bearing's spin) keeps all its components: its locked ones carry only the closure error's
 * force (the bearings' ~1e-6 N). Init-time only (allocates). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bushing.h"
#include "ce.h"
#include "data.h"
#include "kinematics.h"

#define VD_CE_LOCK_NS 5
/* [m/s, rad/s per unit coordinate rate] a locked coordinate's rate: the closures hold the
 * joints at the velocity level to G v <= 6.4e-14 over their sweeps (tests/core/test_dwcorner,
 * test_cerack, test_nlcorner: NUMERICS.md), so a locked element's rates are below ~1e-13 per
 * unit rate (lever arms below 1 m); a coordinate the tree moves does so at >= 1e-3 per unit rate
 * over the sampled ranges (a wheel travel of 0.08 rad moves a mount by centimetres). 1e-9 sits
 * four orders above the first and six below the second */
#define VD_CE_LOCK_TOL 1e-9
/* the gap's upper edge is VD_CE_LOCK_LIVE (ce.h): a structural candidate whose rate lies in
 * (VD_CE_LOCK_TOL, VD_CE_LOCK_LIVE) is neither proven locked nor clearly moved (an order below
 * the >= 1e-3 above), so the argument's separation does not hold for this model: nothing is
 * dropped by the proof (vd_ce.lock_proven false), the step evaluates every element */

/* the tree node a tree body moves with (welds followed to their parent); -1: the ground */
static int grp(const struct vd_tree *t, int tb)
{
    while (tb >= 0 && t->node[t->body[tb].node].type == VD_TREE_FIXED)
        tb = t->node[t->body[tb].node].parent;
    return tb >= 0 ? t->body[tb].node : -1;
}

/* (1): the model bodies mb[0 .. nb) all in one node or its parent's group */
static bool structural(const struct vd_ce *ce, const int *mb, int nb)
{
    const struct vd_tree *t = ce->tree;
    int g[4];

    for (int i = 0; i < nb; i++)
        g[i] = mb[i] >= 0 ? grp(t, ce->model_tb[mb[i]]) : -1;
    for (int i = 0; i < nb; i++) {
        const int nd = g[i], par = nd >= 0 ? t->node[nd].parent : -1;
        const int pg = par >= 0 ? grp(t, par) : -1;
        bool all = nd >= 0;

        for (int k = 0; k < nb && all; k++)
            all = g[k] == nd || g[k] == pg;
        if (all)
            return true;
    }
    return false;
}

static bool zero_curve(const struct vd_curve *c)
{
    return c->kind == VD_CURVE_NONE || (c->kind == VD_CURVE_LINEAR && c->k == 0.0);
}

/* bushing e has F = 0 identically: every curve zero, no actuation */
static bool rate_free(const struct vd_model *m, int e)
{
    const struct vd_bushing *b = &m->bush[e];

    for (int c = 0; c < 6; c++)
        if (!zero_curve(&b->stiff[c]) || !zero_curve(&b->damp[c]) || b->act[c] != VD_ACT_NONE)
            return false;
    return true;
}

/* the sampled tree state s (coordinates over their ranges, no two coordinates in step) */
static void sample_q(const struct vd_tree *t, int s, double *q)
{
    static const double pat[VD_CE_LOCK_NS] = {0.0, 1.0, -0.5, 0.5, -1.0};

    for (int in = 0; in < t->nnode; in++) {
        const struct vd_tree_node *nd = &t->node[in];

        for (int k = 0; k < nd->nd; k++) {
            const double f = pat[(s + nd->off + k) % VD_CE_LOCK_NS];
            double sc;

            switch (nd->type) {
            case VD_TREE_FREE: /* a pose away from the axes' alignment */
                sc = k < 3 ? 0.3 : 0.2;
                break;
            case VD_TREE_REVOLUTE: /* a wheel's or a bar's angle */
                sc = 1.0;
                break;
            case VD_TREE_PRISMATIC:
                sc = 0.05;
                break;
            case VD_TREE_SPHERICAL: /* a drop link's or a knuckle's swing */
                sc = 0.1;
                break;
            default: /* embedded: an arm angle (rad, +-0.08 ~ +-4 cm of wheel travel), a
                        wheel centre's height or a rack's travel (m), inside the closures'
                        proven ranges (+-0.24 rad, +-0.15 m, +-0.09 m) */
                sc = 0.08;
                break;
            }
            q[nd->off + k] = f * sc;
        }
    }
}

/* a coupler or point-to-point element e with its largest rate r: left out (counted in *nlock,
 * the proof's largest rate kept) when it is a candidate (structural, the proof ran) at or below
 * the tolerance, else kept in keep[*nkeep] (a candidate's rate then the moving side's bound) */
static void sort_elem(struct vd_ce *ce, bool cand, double r, int e, int *nlock, int *keep,
                      int *nkeep)
{
    if (cand && r <= VD_CE_LOCK_TOL) {
        (*nlock)++;
        ce->lock_rate = fmax(ce->lock_rate, r);
    } else {
        keep[(*nkeep)++] = e;
        if (cand)
            ce->live_rate = fmin(ce->live_rate, r);
    }
}

int vd_ce_find_locked(const struct vd_model *m, struct vd_ce *ce)
{
    const int n = ce->tree->n, nbu = m->nbush, ncp = m->ncoupler, npp = m->np2p;
    struct vd_data *d = vd_data_new(m);
    struct vd_ce_data *cd = vd_ce_data_new(m, ce);
    double *rb = calloc((size_t)nbu + (size_t)ncp + (size_t)npp + 1, sizeof(double));
    double *rc = rb + nbu, *rp = rc + ncp;
    bool *cand = calloc((size_t)nbu + (size_t)ncp + (size_t)npp + 1, sizeof(bool));
    bool *cb = cand, *cc = cand + nbu, *cpp = cc + ncp, proven = true;
    int rc_ = 0;

    ce->bu = malloc(((size_t)nbu + 1) * sizeof(int));
    ce->cp = malloc(((size_t)ncp + 1) * sizeof(int));
    ce->pp = malloc(((size_t)npp + 1) * sizeof(int));
    if (!d || !cd || !rb || !cand || !ce->bu || !ce->cp || !ce->pp) {
        rc_ = -ENOMEM;
        goto out;
    }
    /* candidates by (1) */
    for (int e = 0; e < nbu; e++) {
        const int mb[2] = {m->marker[m->bush[e].mk[0]].body, m->marker[m->bush[e].mk[1]].body};

        cb[e] = structural(ce, mb, 2);
    }
    for (int e = 0; e < ncp; e++) {
        const struct vd_coupler *c = &m->coupler[e];
        const int mb[4] = {
            m->marker[m->bush[c->bush[0]].mk[0]].body, m->marker[m->bush[c->bush[0]].mk[1]].body,
            m->marker[m->bush[c->bush[1]].mk[0]].body, m->marker[m->bush[c->bush[1]].mk[1]].body};

        cc[e] = structural(ce, mb, 4);
    }
    for (int e = 0; e < npp; e++) {
        const int mb[2] = {m->marker[m->p2p[e].mk[0]].body, m->marker[m->p2p[e].mk[1]].body};

        cpp[e] = structural(ce, mb, 2);
    }
    /* (2): the rates per unit rate of each coordinate at the sampled states */
    for (int s = 0; s < VD_CE_LOCK_NS && proven; s++)
        for (int j = 0; j < n && proven; j++) {
            sample_q(ce->tree, s, cd->q);
            memset(cd->u, 0, (size_t)n * sizeof(double));
            cd->u[j] = 1.0;
            if (vd_ce_place(m, ce, cd, d)) {
                proven = false; /* a sample outside a closure's range: nothing is dropped */
                break;
            }
            vd_kinematics(m, d, d->r, d->v);
            for (int e = 0; e < nbu; e++)
                if (cb[e]) {
                    double q[6], qd[6];

                    vd_bushing_coords(m, d, e, q, qd);
                    for (int k = 0; k < 6; k++)
                        rb[e] = fmax(rb[e], fabs(qd[k]));
                }
            for (int e = 0; e < ncp; e++)
                if (cc[e]) {
                    const struct vd_coupler *c = &m->coupler[e];
                    double qa[6], qda[6], qb[6], qdb[6];

                    vd_bushing_coords(m, d, c->bush[0], qa, qda);
                    vd_bushing_coords(m, d, c->bush[1], qb, qdb);
                    rc[e] = fmax(rc[e], fabs(qda[c->comp[0]] - c->ratio * qdb[c->comp[1]]));
                }
            for (int e = 0; e < npp; e++)
                if (cpp[e]) {
                    const int i1 = m->p2p[e].mk[0], i2 = m->p2p[e].mk[1];
                    double dl[3], w[3], L;

                    for (int k = 0; k < 3; k++) {
                        dl[k] = d->mp[3 * i1 + k] - d->mp[3 * i2 + k];
                        w[k] = d->mpd[3 * i1 + k] - d->mpd[3 * i2 + k];
                    }
                    L = sqrt(dl[0] * dl[0] + dl[1] * dl[1] + dl[2] * dl[2]);
                    rp[e] =
                        fmax(rp[e], L > 0.0 ? fabs(dl[0] * w[0] + dl[1] * w[1] + dl[2] * w[2]) / L
                                            : INFINITY);
                }
        }
    /* the separation the argument needs: every structural candidate's rate on one side of
     * the gap (VD_CE_LOCK_TOL, VD_CE_LOCK_LIVE) */
    for (int e = 0; e < nbu && proven; e++)
        proven = !(cb[e] && rb[e] > VD_CE_LOCK_TOL && rb[e] < VD_CE_LOCK_LIVE);
    for (int e = 0; e < ncp && proven; e++)
        proven = !(cc[e] && rc[e] > VD_CE_LOCK_TOL && rc[e] < VD_CE_LOCK_LIVE);
    for (int e = 0; e < npp && proven; e++)
        proven = !(cpp[e] && rp[e] > VD_CE_LOCK_TOL && rp[e] < VD_CE_LOCK_LIVE);
    /* the kept lists: a coupler stays unless proven locked; its bushings stay with it; a
     * bushing goes when proven locked, or rate-free with no kept coupler on it */
    ce->ncp = ce->nbu = ce->npp = 0;
    ce->nlock_bush = ce->nlock_cpl = ce->nlock_p2p = ce->nfree_bush = 0;
    ce->lock_proven = proven;
    ce->lock_rate = 0.0;
    ce->live_rate = INFINITY;
    for (int e = 0; e < ncp; e++)
        sort_elem(ce, proven && cc[e], rc[e], e, &ce->nlock_cpl, ce->cp, &ce->ncp);
    for (int e = 0; e < nbu; e++) {
        bool used = false, drop;
        const bool locked = proven && cb[e] && rb[e] <= VD_CE_LOCK_TOL;

        for (int i = 0; i < ce->ncp && !used; i++)
            used = m->coupler[ce->cp[i]].bush[0] == e || m->coupler[ce->cp[i]].bush[1] == e;
        drop = !used && (locked || rate_free(m, e));
        if (drop && locked)
            ce->lock_rate = fmax(ce->lock_rate, rb[e]);
        /* the moved candidates only (a locked one kept for a live coupler is not one) */
        if (proven && cb[e] && !locked)
            ce->live_rate = fmin(ce->live_rate, rb[e]);
        if (drop) {
            ce->nlock_bush++;
            ce->nfree_bush += !locked;
        } else
            ce->bu[ce->nbu++] = e;
    }
    for (int e = 0; e < npp; e++)
        sort_elem(ce, proven && cpp[e], rp[e], e, &ce->nlock_p2p, ce->pp, &ce->npp);
out:
    free(rb);
    free(cand);
    vd_ce_data_free(cd);
    vd_data_free(d);
    return rc_;
}
