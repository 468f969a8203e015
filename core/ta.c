/* core/ta.c - the TA form of a joint vehicle: the tree with its cut joints from the model,
 * the cut rows in tree coordinates and the consistent start (ta.h); the steps are in
 * ta_step.c. */
#include "ta.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linalg.h"
#include "treeform.h"
#include "vdmath.h"

/* ---- building --------------------------------------------------------------------------- */

/* marker k's position and axis c (0 x, 1 y, 2 z) in the CoM frame of model body p at the
 * initial state */
static void mk_in(const struct vd_model *m, int k, int p, double pos[3], int c, double ax[3])
{
    const struct vd_marker *mk = &m->marker[k];
    double A[9], x[3], Ap[9], xp[3], t[3], e[3] = {mk->rot[c], mk->rot[3 + c], mk->rot[6 + c]};

    vd_tf_com_pose(m, mk->body, A, x);
    vd_tf_com_pose(m, p, Ap, xp);
    vdu_mat3_vec(t, A, mk->s);
    vdu_add3(t, t, x);
    vdu_sub3(t, t, xp);
    vdu_mat3t_vec(pos, Ap, t);
    if (ax) {
        vdu_mat3_vec(t, A, e);
        vdu_mat3t_vec(ax, Ap, t);
    }
}

struct builder {
    const struct vd_model *m;
    struct vd_ta *ta;
    unsigned char *used; /* (njoint) joints the tree holds */
    int ntb;
    char *err;
    size_t errlen;
};

/* model body mb on a new node of type nd->type hanging on model body mp */
static int add_node(struct builder *B, struct vd_tree_node *nd, int mb, int mp)
{
    struct vd_tree_body tb;
    struct vd_ta *ta = B->ta;

    if (mb < 0 || ta->model_tb[mb] >= 0 || mp < 0 || ta->model_tb[mp] < 0) {
        snprintf(B->err, B->errlen,
                 "formulation ta: body %s missing, twice in the tree or on "
                 "a body not yet in it",
                 mb >= 0 ? B->m->body[mb].name : "?");
        return -EINVAL;
    }
    nd->parent = ta->model_tb[mp];
    vd_tf_tbody(B->m, mb, mp, &tb);
    if (vd_tree_add(ta->tree, nd, &tb, 1) < 0) {
        snprintf(B->err, B->errlen, "formulation ta: node of body %s rejected",
                 B->m->body[mb].name);
        return -EINVAL;
    }
    ta->model_tb[mb] = B->ntb;
    ta->tb_model[B->ntb++] = mb;
    return 0;
}

/* a named joint of the corner prefix of the given type; its index or -EINVAL */
static int corner_joint(struct builder *B, const char *prefix, const char *what, int type)
{
    char name[2 * VD_NAME_MAX];
    int j;

    snprintf(name, sizeof(name), "%s.%s", prefix, what);
    j = vd_model_find_joint(B->m, name);
    if (j < 0 || B->m->joint[j].type != type) {
        snprintf(B->err, B->errlen, "formulation ta: no %s joint %s", what, name);
        return -EINVAL;
    }
    return j;
}

static int mk_body(const struct vd_model *m, int k)
{
    return m->marker[k].body;
}

/* model body b is the root or welded to it (a fixed node on the root) */
static bool on_root(const struct vd_ta *ta, int b)
{
    const struct vd_tree *t = ta->tree;
    int tb, nd;

    if (b < 0 || ta->model_tb[b] < 0)
        return false;
    tb = ta->model_tb[b];
    nd = t->body[tb].node;
    return tb == 0 || (t->node[nd].type == VD_TREE_FIXED && t->node[nd].parent == 0);
}

/* model body mb on a revolute about axis c of marker k (on the parent mp) */
static int add_revolute(struct builder *B, int mb, int mp, int k, int c)
{
    struct vd_tree_node n;

    memset(&n, 0, sizeof(n));
    n.type = VD_TREE_REVOLUTE;
    mk_in(B->m, k, mp, n.point, c, n.axis);
    return add_node(B, &n, mb, mp);
}

/* model body mb on a universal at point c (mp's frame): about a1 (mp's axes), then about a2
 * (fixed in mb; mp's axes at the design pose) */
static int add_universal(struct builder *B, int mb, int mp, const double c[3], const double a1[3],
                         const double a2[3])
{
    struct vd_ta *ta = B->ta;
    struct vd_ta_univ *un = &ta->univ[ta->nuniv];
    struct vd_tree_node n;
    struct vd_tree_body tb;
    double l1 = sqrt(vdu_dot3(a1, a1)), l2 = sqrt(vdu_dot3(a2, a2));

    if (!(l1 > 0.0 && l2 > 0.0) || fabs(vdu_dot3(a1, a2)) > 1e-9 * l1 * l2) {
        snprintf(B->err, B->errlen, "formulation ta: %s: universal joint axes not normal",
                 B->m->body[mb].name);
        return -EINVAL;
    }
    vdu_scale3(un->a1, 1.0 / l1, a1);
    vdu_scale3(un->a2, 1.0 / l2, a2);
    memcpy(un->c, c, sizeof(un->c));
    vd_tf_tbody(B->m, mb, mp, &tb);
    memcpy(un->A0, tb.A0, sizeof(un->A0));
    memcpy(un->x0, tb.x0, sizeof(un->x0));
    memset(&n, 0, sizeof(n));
    n.type = VD_TREE_EMBEDDED;
    n.nd = 2;
    n.fn = vd_ta_univ_closure;
    n.ctx = un;
    ta->nuniv++;
    return add_node(B, &n, mb, mp);
}

/* the universal joint j (marker i on the child, j on the parent: x_i normal to y_j) */
static int add_ujoint(struct builder *B, int j)
{
    const struct vd_joint *jt = &B->m->joint[j];
    const int mb = mk_body(B->m, jt->mk[0]), mp = mk_body(B->m, jt->mk[1]);
    double c[3], a1[3], a2[3], t[3];

    mk_in(B->m, jt->mk[1], mp, c, 1, a1);
    mk_in(B->m, jt->mk[0], mp, t, 0, a2);
    B->used[j] = 1;
    return add_universal(B, mb, mp, c, a1, a2);
}

/* a double-wishbone corner (its joints <prefix>.*) and its wheel */
static int add_corner(struct builder *B, const char *prefix)
{
    const struct vd_model *m = B->m;
    const int jl = corner_joint(B, prefix, "lca_pivot", VD_JOINT_REVOLUTE);
    const int ju = corner_joint(B, prefix, "uca_pivot", VD_JOINT_REVOLUTE);
    const int jb = corner_joint(B, prefix, "lca_ball", VD_JOINT_SPHERICAL);
    const int jti = corner_joint(B, prefix, "tierod_inner", VD_JOINT_UNIVERSAL);
    const int jst = corner_joint(B, prefix, "strut_top", VD_JOINT_UNIVERSAL);
    const int jg = corner_joint(B, prefix, "strut_guide", VD_JOINT_PRISMATIC);
    char name[2 * VD_NAME_MAX];
    struct vd_tree_node n;
    int br, kn, lca;

    if (jl < 0 || ju < 0 || jb < 0 || jti < 0 || jst < 0 || jg < 0)
        return -EINVAL;
    /* arms on their pivots (the joints' z axes, on the parent's marker) */
    for (int s = 0; s < 2; s++) {
        const struct vd_joint *jt = &m->joint[s ? ju : jl];

        if (add_revolute(B, mk_body(m, jt->mk[0]), mk_body(m, jt->mk[1]), jt->mk[1], 2))
            return -EINVAL;
        B->used[s ? ju : jl] = 1;
    }
    /* the knuckle on the lower arm's ball joint */
    kn = mk_body(m, m->joint[jb].mk[0]);
    lca = mk_body(m, m->joint[jb].mk[1]);
    memset(&n, 0, sizeof(n));
    n.type = VD_TREE_SPHERICAL;
    mk_in(m, m->joint[jb].mk[1], lca, n.point, 0, NULL);
    if (add_node(B, &n, kn, lca))
        return -EINVAL;
    B->used[jb] = 1;
    /* the wheel about its bearing's spin axis (x of the knuckle-side marker) */
    snprintf(name, sizeof(name), "%s.bearing", prefix);
    br = vd_model_find_bushing(m, name);
    if (br < 0 || mk_body(m, m->bush[br].mk[1]) != kn) {
        snprintf(B->err, B->errlen, "formulation ta: no wheel bearing %s on the knuckle", name);
        return -EINVAL;
    }
    if (add_revolute(B, mk_body(m, m->bush[br].mk[0]), kn, m->bush[br].mk[1], 0))
        return -EINVAL;
    /* the strut: piston rod on its top universal, damper tube sliding on it (z of the rod's
     * marker) */
    if (add_ujoint(B, jst))
        return -EINVAL;
    memset(&n, 0, sizeof(n));
    n.type = VD_TREE_PRISMATIC;
    {
        double p[3];
        const int rod = mk_body(m, m->joint[jg].mk[1]);

        mk_in(m, m->joint[jg].mk[1], rod, p, 2, n.axis);
        if (add_node(B, &n, mk_body(m, m->joint[jg].mk[0]), rod))
            return -EINVAL;
    }
    B->used[jg] = 1;
    /* the tie rod on its mount */
    return add_ujoint(B, jti);
}

/* the steering's connection `name`: the bushing of that name (its markers, axis x), else the
 * ideal joint `jname` of `connection: joints` (axis z for a revolute), marked as held by the
 * tree unless `cut`; mk[2] the markers; 0 or -1 if neither exists */
static int steer_conn(struct builder *B, const char *name, const char *jname, bool cut, int mk[2],
                      int *col)
{
    const struct vd_model *m = B->m;
    char nm[2 * VD_NAME_MAX];
    int e;

    snprintf(nm, sizeof(nm), "steering.%s", name);
    e = vd_model_find_bushing(m, nm);
    *col = 0;
    if (e >= 0) {
        mk[0] = m->bush[e].mk[0];
        mk[1] = m->bush[e].mk[1];
        return 0;
    }
    snprintf(nm, sizeof(nm), "steering.%s", jname);
    e = vd_model_find_joint(m, nm);
    if (e < 0)
        return -1;
    mk[0] = m->joint[e].mk[0];
    mk[1] = m->joint[e].mk[1];
    *col = m->joint[e].type == VD_JOINT_REVOLUTE ? 2 : 0;
    if (!cut)
        B->used[e] = 1;
    return 0;
}

/* the pitman_arm steering: arms and wheel on their bearings, the link on the pitman arm;
 * the idler joint and the box as cuts. On its elastic bearings (the bushings' axes and
 * centres) or on ideal joints (`connection: joints`: the idler arm's revolute, the link's
 * universal; its ball joint on the idler arm is then the model's own joint, cut like the
 * suspensions'). 0 (also when the steering is absent or welded) */
static int add_steering(struct builder *B)
{
    const struct vd_model *m = B->m;
    struct vd_ta *ta = B->ta;
    static const char *const bn[4] = {"steering.pitman_arm", "steering.idler_arm", "steering.link",
                                      "steering.steering_wheel"};
    int body[4], bpb, bcb, cp = -1, root = ta->tb_model[0], mib[2], mpl[2], mil[2], cib, cpl, cil;
    int bad;
    double c[3], a1[3], pl[3], il[3], t[3], a2[3];

    for (int b = 0; b < 4; b++) {
        body[b] = vd_model_find_body(m, bn[b]);
        if (body[b] < 0 || ta->model_tb[body[b]] >= 0)
            return 0; /* none, or welded */
    }
    /* the column and pitman bearings are bushings either way (rate-less beside the revolutes
     * of `connection: joints`, carrying the box coupler); their revolutes are held */
    bpb = vd_model_find_bushing(m, "steering.pitman_bearing");
    bcb = vd_model_find_bushing(m, "steering.column_bearing");
    bad = steer_conn(B, "idler_bearing", "idler_pivot", false, mib, &cib) |
          steer_conn(B, "pitman_link", "pitman_link", false, mpl, &cpl) |
          steer_conn(B, "idler_link", "idler_link", true, mil, &cil);
    for (int k = 0; k < m->njoint; k++)
        if (!strcmp(m->joint[k].name, "steering.pitman_bearing_pivot") ||
            !strcmp(m->joint[k].name, "steering.column_bearing_pivot"))
            B->used[k] = 1;
    for (int k = 0; k < m->ncoupler; k++)
        if (m->coupler[k].bush[0] == bpb && m->coupler[k].bush[1] == bcb)
            cp = k;
    if (bpb < 0 || bad || bcb < 0 || cp < 0 || !(fabs(m->coupler[cp].ratio) > 0.0) ||
        mk_body(m, mpl[0]) != body[2] || mk_body(m, mpl[1]) != body[0] ||
        mk_body(m, mil[0]) != body[2] || mk_body(m, mil[1]) != body[1]) {
        snprintf(B->err, B->errlen,
                 "formulation ta: the pitman_arm steering's bearings, link joints or box are "
                 "missing");
        return -EINVAL;
    }
    if (add_revolute(B, body[0], root, m->bush[bpb].mk[1], 0) ||
        add_revolute(B, body[1], root, mib[1], cib) ||
        add_revolute(B, body[3], root, m->bush[bcb].mk[1], 0))
        return -EINVAL;
    /* the link on the pitman arm: about the arm's axis, then about the normal of that axis and
     * the link's joint-to-joint line (so that the link cannot spin about that line) */
    mk_in(m, mpl[1], body[0], c, 0, NULL);
    mk_in(m, m->bush[bpb].mk[1], body[0], t, 0, a1);
    mk_in(m, mpl[0], body[0], pl, 0, NULL);
    mk_in(m, mil[0], body[0], il, 0, NULL);
    vdu_sub3(t, il, pl);
    vdu_cross3(a2, a1, t);
    if (add_universal(B, body[2], body[0], c, a1, a2))
        return -EINVAL;
    /* cuts: the link's idler joint (the bushing's centre; an ideal ball joint is cut with
     * the model's other unheld joints below), the box */
    if (vd_model_find_bushing(m, "steering.idler_link") >= 0) {
        struct vd_ta_pcut *pc = &ta->pcut[ta->npcut++];

        pc->b1 = ta->model_tb[body[2]];
        pc->b2 = ta->model_tb[body[1]];
        memcpy(pc->s1, m->marker[mil[0]].s, sizeof(pc->s1));
        memcpy(pc->s2, m->marker[mil[1]].s, sizeof(pc->s2));
        pc->joint = -1;
    }
    ta->gear = 1;
    ta->gear_c0 = ta->tree->node[ta->tree->body[ta->model_tb[body[3]]].node].off;
    ta->gear_c1 = ta->tree->node[ta->tree->body[ta->model_tb[body[0]]].node].off;
    ta->gear_ratio = 1.0 / m->coupler[cp].ratio;
    return 0;
}

/* ---- the structured solve's clusters (ta.h) ------------------------------------------- */

/* the node below the root whose subtree holds tree body b, from the first node with
 * coordinates on b's path (nodes without, e.g. welded bodies, move with their parent);
 * -1: b moves with the root */
static int top_node(const struct vd_tree *t, int b)
{
    int d = t->body[b].node, top = -1;

    while (d != 0 && t->node[d].parent >= 0) {
        if (t->node[d].nd > 0)
            top = d;
        d = t->body[t->node[d].parent].node;
    }
    return top;
}

static int uf_find(int *up, int a)
{
    while (up[a] != a)
        a = up[a] = up[up[a]];
    return a;
}

static void uf_join(int *up, int a, int b)
{
    if (a >= 0 && b >= 0)
        up[uf_find(up, a)] = uf_find(up, b);
}

/* the node below the root whose subtree holds coordinate k (as top_node) */
static int coord_top(const struct vd_tree *t, int k)
{
    for (int d = 0; d < t->nnode; d++)
        if (k >= t->node[d].off && k < t->node[d].off + t->node[d].nd)
            return top_node(t, t->node[d].b0);
    return -1;
}

/* ta->cl, ta->ncl, ta->touch and the plan ta->lu. Entry (i, k) of [S G^T; G 0] can be nonzero
 * only where coordinates i and k lie on one path from the root (M, the inertial terms of the
 * Jacobians), where a force element's Jacobian block links bodies their nodes move (the
 * model's block pattern: bushings, springs, dampers, inputs; a tyre acts on one body), or
 * where a cut row or the steering box's row reaches the coordinates. The subtrees below the
 * root are linked by those; a subtree without which its linked group falls apart into parts
 * that carry a tyre each (a hub: the steering's pitman arm with the link and the tie rods,
 * between the front corners) goes into the border with the root's coordinates and with
 * every row that reaches it, and the other subtrees joined by their links are the clusters
 * (a corner, with its rows; the idler arm; the steering wheel). A cluster touches the root's
 * coordinates, the coordinates of the hubs it is linked to and the border's rows that reach its
 * bodies */
static int clusters(const struct vd_model *m, struct vd_ta *ta, char *err, size_t errlen)
{
    const struct vd_tree *t = ta->tree;
    const int n = t->n, na = n + ta->m, nn = t->nnode;
    const size_t NN = (size_t)nn, NA = (size_t)na;
    int *up = malloc((NN + 1) * sizeof(int)), *id = malloc((NN + 1) * sizeof(int));
    int *rt = malloc(2 * NA * sizeof(int) + 1); /* per index: its subtrees (rows: two) */
    unsigned char *adj = calloc(NN * NN + 1, 1), *hub = calloc(NN + 1, 1);
    unsigned char *tyre = calloc(NN + 1, 1), *seen = calloc(NN + 1, 1);
    int *stack = malloc((NN + 1) * sizeof(int)), rc = -ENOMEM;

    ta->cl = malloc((NA + 1) * sizeof(int));
    if (!up || !id || !rt || !adj || !hub || !tyre || !seen || !stack || !ta->cl)
        goto out;
    /* each index's subtrees: a coordinate its node's; a cut row its two bodies'; the box's
     * row its two coordinates' */
    for (int k = 0; k < n; k++)
        rt[2 * k] = rt[2 * k + 1] = coord_top(t, k);
    for (int k = 0; k < ta->npcut; k++)
        for (int i = 0; i < 3; i++) {
            rt[2 * (n + 3 * k + i)] = top_node(t, ta->pcut[k].b1);
            rt[2 * (n + 3 * k + i) + 1] = top_node(t, ta->pcut[k].b2);
        }
    if (ta->gear) {
        rt[2 * (na - 1)] = coord_top(t, ta->gear_c0);
        rt[2 * (na - 1) + 1] = coord_top(t, ta->gear_c1);
    }
    /* the links */
    for (int i = 0; i < m->nbody; i++)
        for (int e = m->blk_rowptr[i]; e < m->blk_rowptr[i + 1]; e++) {
            const int a = top_node(t, ta->model_tb[i]);
            const int b = top_node(t, ta->model_tb[m->blk_col[e]]);

            if (a >= 0 && b >= 0 && a != b)
                adj[(size_t)a * NN + (size_t)b] = adj[(size_t)b * NN + (size_t)a] = 1;
        }
    for (int k = n; k < na; k++) {
        const int a = rt[2 * k], b = rt[2 * k + 1];

        if (a >= 0 && b >= 0 && a != b)
            adj[(size_t)a * NN + (size_t)b] = adj[(size_t)b * NN + (size_t)a] = 1;
    }
    /* hubs: subtrees without which their linked group falls apart into two or more parts
     * that each carry a tyre (the steering between the front corners; inside a corner no
     * subtree separates two tyres) */
    for (int k = 0; k < m->ntire; k++) {
        const int d = top_node(t, ta->model_tb[m->marker[m->tire[k].marker].body]);

        if (d >= 0)
            tyre[d] = 1;
    }
    for (int d = 0; d < nn; d++) {
        int parts = 0;

        memset(seen, 0, NN);
        seen[d] = 1;
        for (int s0 = 0; s0 < nn; s0++) {
            int top = 0, has = 0;

            if (seen[s0] || !adj[(size_t)d * NN + (size_t)s0])
                continue;
            /* the part reached from a neighbour of d without d */
            stack[top++] = s0;
            seen[s0] = 1;
            while (top > 0) {
                const int a = stack[--top];

                has |= tyre[a];
                for (int b = 0; b < nn; b++)
                    if (!seen[b] && adj[(size_t)a * NN + (size_t)b]) {
                        seen[b] = 1;
                        stack[top++] = b;
                    }
            }
            parts += has;
        }
        hub[d] = parts >= 2;
        up[d] = d;
        id[d] = -1;
    }
    for (int a = 0; a < nn; a++)
        for (int b = 0; b < nn; b++)
            if (adj[(size_t)a * NN + (size_t)b] && !hub[a] && !hub[b])
                uf_join(up, a, b);
    /* an index is in the border when a subtree of it is the root or a hub */
    ta->ncl = 0;
    for (int k = 0; k < na; k++) {
        const int a = rt[2 * k], b = rt[2 * k + 1];

        ta->cl[k] = -1;
        if (a < 0 || b < 0 || hub[a] || hub[b]) {
            /* a row between a cluster's body and the root belongs to the cluster */
            const int c =
                k >= n && (a < 0) != (b < 0) && !hub[a < 0 ? b : a] ? (a < 0 ? b : a) : -1;

            if (c < 0)
                continue;
            if (id[uf_find(up, c)] < 0)
                id[uf_find(up, c)] = ta->ncl++;
            ta->cl[k] = id[uf_find(up, c)];
            continue;
        }
        if (id[uf_find(up, a)] < 0)
            id[uf_find(up, a)] = ta->ncl++;
        ta->cl[k] = id[uf_find(up, a)];
    }
    ta->touch = calloc((size_t)ta->ncl * NA + 1, 1);
    if (!ta->touch)
        goto out;
    for (int c = 0; c < ta->ncl; c++)
        for (int k = 0; k < na; k++) {
            const int a = rt[2 * k], b = rt[2 * k + 1];
            int hit = 0;

            if (ta->cl[k] >= 0)
                continue;
            if (k < n && a < 0) {
                hit = 1; /* the root's coordinates */
            } else {
                /* a hub's coordinate: its links to the cluster; a row: the cluster's bodies */
                for (int d = 0; d < nn && !hit; d++) {
                    if (id[uf_find(up, d)] != c || hub[d])
                        continue;
                    if (k < n)
                        hit = adj[(size_t)d * NN + (size_t)a];
                    else
                        hit = a == d || b == d;
                }
            }
            ta->touch[(size_t)c * NA + (size_t)k] = (unsigned char)hit;
        }
    rc = vd_bblu_plan(&ta->lu, na, ta->cl, ta->ncl, ta->touch, err, errlen);
out:
    if (rc == -ENOMEM)
        snprintf(err, errlen, "formulation ta: out of memory");
    free(up);
    free(id);
    free(rt);
    free(adj);
    free(hub);
    free(tyre);
    free(seen);
    free(stack);
    return rc;
}

struct vd_ta *vd_ta_build(const struct vd_model *m, const char *weld, char *err, size_t errlen)
{
    struct vd_ta *ta = calloc(1, sizeof(*ta));
    struct builder B = {.m = m, .ta = ta, .err = err, .errlen = errlen};
    struct vd_tree_node n;
    struct vd_tree_body tb;
    int root;

    if (!ta)
        goto out_nomem;
    ta->tree = vd_tree_new();
    ta->tb_model = malloc((size_t)m->nbody * sizeof(int));
    ta->model_tb = malloc((size_t)m->nbody * sizeof(int));
    ta->univ = calloc((size_t)m->njoint + 1, sizeof(*ta->univ));
    ta->pcut = calloc((size_t)m->njoint + 1, sizeof(*ta->pcut));
    B.used = calloc((size_t)m->njoint + 1, 1);
    if (!ta->tree || !ta->tb_model || !ta->model_tb || !ta->univ || !ta->pcut || !B.used)
        goto out_nomem;
    for (int b = 0; b < m->nbody; b++)
        ta->model_tb[b] = -1;
    root = m->opt.root[0] ? vd_model_find_body(m, m->opt.root) : vd_model_find_body(m, "chassis");
    if (root < 0) {
        snprintf(err, errlen, "formulation ta: no root body (solver.root or chassis)");
        goto out_free;
    }
    memset(&n, 0, sizeof(n));
    n.type = VD_TREE_FREE;
    n.parent = -1;
    vd_tf_tbody(m, root, root, &tb);
    if (vd_tree_add(ta->tree, &n, &tb, 1) < 0)
        goto out_nomem;
    ta->model_tb[root] = 0;
    ta->tb_model[B.ntb++] = root;
    if (weld && weld[0])
        for (int b = 0; b < m->nbody; b++)
            if (b != root && vd_model_weld_match(weld, m->body[b].name)) {
                memset(&n, 0, sizeof(n));
                n.type = VD_TREE_FIXED;
                if (add_node(&B, &n, b, root))
                    goto out_free;
                ta->nweld++;
            }
    if (add_steering(&B))
        goto out_free;
    for (int j = 0; j < m->njoint; j++) {
        const char *nm = m->joint[j].name, *dot = strrchr(nm, '.');
        char prefix[VD_NAME_MAX];

        if (!dot || strcmp(dot, ".lca_pivot"))
            continue;
        snprintf(prefix, sizeof(prefix), "%.*s", (int)(dot - nm), nm);
        if (add_corner(&B, prefix))
            goto out_free;
    }
    for (int b = 0; b < m->nbody; b++)
        if (ta->model_tb[b] < 0) {
            snprintf(err, errlen,
                     "formulation ta: body %s is neither the root, a double wishbone's (with "
                     "connection: joints), a wheel, the pitman_arm steering's nor welded",
                     m->body[b].name);
            goto out_free;
        }
    /* every joint the tree does not hold is a cut: ball joints only; a joint between two
     * bodies on the root's rigid group (the root and the welded bodies, e.g. a steering on
     * ideal joints welded with solver.weld) is held by the weld at the design pose */
    for (int j = 0; j < m->njoint; j++) {
        const struct vd_joint *jt = &m->joint[j];
        struct vd_ta_pcut *pc;
        const int b1 = mk_body(m, jt->mk[0]), b2 = mk_body(m, jt->mk[1]);

        if (B.used[j] || (on_root(ta, b1) && on_root(ta, b2)))
            continue;
        if (jt->type != VD_JOINT_SPHERICAL || b1 < 0 || b2 < 0) {
            snprintf(err, errlen,
                     "formulation ta: joint %s closes a loop and is not a ball joint between "
                     "two bodies (only those are cut)",
                     jt->name);
            goto out_free;
        }
        pc = &ta->pcut[ta->npcut++];
        pc->b1 = ta->model_tb[b1];
        pc->b2 = ta->model_tb[b2];
        memcpy(pc->s1, m->marker[jt->mk[0]].s, sizeof(pc->s1));
        memcpy(pc->s2, m->marker[jt->mk[1]].s, sizeof(pc->s2));
        pc->joint = j;
    }
    ta->m = 3 * ta->npcut + ta->gear;
    if (clusters(m, ta, err, errlen))
        goto out_free;
    free(B.used);
    return ta;
out_nomem:
    snprintf(err, errlen, "formulation ta: out of memory");
out_free:
    free(B.used);
    vd_ta_free(ta);
    return NULL;
}

void vd_ta_free(struct vd_ta *ta)
{
    if (!ta)
        return;
    vd_bblu_free(&ta->lu);
    free(ta->cl);
    free(ta->touch);
    vd_tree_free(ta->tree);
    free(ta->tb_model);
    free(ta->model_tb);
    free(ta->univ);
    free(ta->pcut);
    free(ta);
}

struct vd_ta_data *vd_ta_data_new(const struct vd_model *m, const struct vd_ta *ta)
{
    const size_t n = (size_t)ta->tree->n, nb = (size_t)ta->tree->nbody, nt = (size_t)m->ntire;
    const size_t mc = (size_t)ta->m, na = n + mc;
    struct vd_ta_data *tad = calloc(1, sizeof(*tad));
    double *p;

    if (!tad)
        return NULL;
    tad->td = vd_tree_data_new(ta->tree);
    p = calloc(5 * n + 6 * nb + 2 * na + n * n + na * na + mc * n + 2 * mc + 3 * n + 6 * n +
                   6 * n * nt + 4 * nt + (size_t)m->nz + (size_t)m->ninput + (size_t)m->nq +
                   11 * n + mc + 4 * (size_t)m->nz + 2 * nt,
               sizeof(double));
    tad->piv = calloc(na, sizeof(int));
    tad->F = calloc(ta->lu.nf + na, sizeof(double));
    tad->fw = tad->F ? tad->F + ta->lu.nf : NULL;
    tad->row = calloc((size_t)m->nblk + 1, sizeof(int));
    tad->col = calloc((size_t)m->nblk + 1, sizeof(int));
    if (!tad->td || !p || !tad->piv || !tad->F || !tad->row || !tad->col) {
        free(p);
        vd_ta_data_free(tad);
        return NULL;
    }
    tad->q = p, p += n;
    tad->u = p, p += n;
    tad->qt = p, p += n;
    tad->qd = p, p += n;
    tad->acc = p, p += n;
    tad->h = p, p += 6 * nb;
    tad->f = p, p += na;
    tad->rhs = p, p += na;
    tad->S = p, p += n * n;
    tad->K = p, p += na * na;
    tad->G = p, p += mc * n;
    tad->g = p, p += mc;
    tad->gam = p, p += mc;
    tad->Jp = p, p += 3 * n;
    tad->Jb = p, p += 6 * n;
    tad->Jzt = p, p += 2 * n * nt;
    tad->Gq = p, p += 2 * n * nt;
    tad->Gu = p, p += 2 * n * nt;
    tad->Dz = p, p += 4 * nt;
    tad->gz = p, p += (size_t)m->nz;
    tad->uin = p, p += (size_t)m->ninput;
    tad->dv1 = p, p += n;
    tad->dv2 = p, p += n;
    tad->dr1 = p, p += n;
    tad->qa = p, p += n;
    tad->ua = p, p += n;
    tad->sr = p, p += n;
    tad->sv = p, p += n;
    tad->p2 = p, p += n;
    tad->wq = p, p += n;
    tad->mdv = p, p += n;
    tad->gtl = p, p += n;
    tad->gdv = p, p += mc;
    tad->dz1 = p, p += (size_t)m->nz;
    tad->dz2 = p, p += (size_t)m->nz;
    tad->za = p, p += (size_t)m->nz;
    tad->sz = p, p += (size_t)m->nz;
    tad->rz = p, p += 2 * nt;
    tad->hm = p;
    for (int i = 0; i < m->nbody; i++)
        for (int e = m->blk_rowptr[i]; e < m->blk_rowptr[i + 1]; e++) {
            tad->row[e] = ta->model_tb[i];
            tad->col[e] = ta->model_tb[m->blk_col[e]];
        }
    tad->jp = vd_tree_jplan_new(ta->tree, m->nblk, tad->row, tad->col);
    if (!tad->jp) {
        vd_ta_data_free(tad);
        return NULL;
    }
    /* LAPACK's first call maps its buffers: here, not in the first step */
    if (vd_lapack_warmup((int)na, tad->K, tad->piv, tad->rhs)) {
        vd_ta_data_free(tad);
        return NULL;
    }
    return tad;
}

void vd_ta_data_free(struct vd_ta_data *tad)
{
    if (!tad)
        return;
    vd_tree_data_free(tad->td);
    vd_tree_jplan_free(tad->jp);
    free(tad->q);
    free(tad->piv);
    free(tad->F);
    free(tad->row);
    free(tad->col);
    free(tad);
}

/* ---- the universal node ----------------------------------------------------------------- */

/* R = Rot(a1, q0) Rot(a2, q1); w0 = a1, w1 = Rot(a1, q0) a2 (parent axes); dw1/dq0 = a1 x w1,
 * kappa = q'0 q'1 a1 x w1, d kappa/dq0 = q'0 q'1 a1 x (a1 x w1); columns (w; c x w) */
int vd_ta_univ_closure(const void *ctx, const double *q, const double *qd, struct vd_tree_rel *rel)
{
    const struct vd_ta_univ *un = ctx;
    double R1[9], R2[9], R[9], w1[3], dw[3], ddw[3], d[3], t[3], k[3], dk[3];
    const double qq = qd[0] * qd[1];

    vd_tf_axrot(R1, un->a1, q[0]);
    vd_tf_axrot(R2, un->a2, q[1]);
    vdu_mat3_mul(R, R1, R2);
    vdu_mat3_mul(rel->A, R, un->A0);
    vdu_sub3(d, un->x0, un->c);
    vdu_mat3_vec(t, R, d);
    vdu_add3(rel->x, un->c, t);
    vdu_mat3_vec(w1, R1, un->a2);
    vdu_cross3(dw, un->a1, w1);
    vdu_cross3(ddw, un->a1, dw);
    memset(rel->ds, 0, 4 * 6 * sizeof(double));
    memset(rel->dkappa, 0, 2 * 6 * sizeof(double));
    memcpy(rel->s, un->a1, 3 * sizeof(double));
    vdu_cross3(rel->s + 3, un->c, un->a1);
    memcpy(rel->s + 6, w1, 3 * sizeof(double));
    vdu_cross3(rel->s + 9, un->c, w1);
    /* ds_1/dq_0 at [6 (1 + 2 0)] */
    memcpy(rel->ds + 6, dw, 3 * sizeof(double));
    vdu_cross3(rel->ds + 9, un->c, dw);
    vdu_scale3(k, qq, dw);
    memcpy(rel->kappa, k, sizeof(k));
    vdu_cross3(rel->kappa + 3, un->c, k);
    vdu_scale3(dk, qq, ddw);
    memcpy(rel->dkappa, dk, sizeof(dk));
    vdu_cross3(rel->dkappa + 3, un->c, dk);
    return 0;
}

/* ---- cut rows --------------------------------------------------------------------------- */

/* Jp (3 x n, column-major): the velocity of the point p (global) fixed on tree body tb per
 * unit of each coordinate: S_lin + S_ang x p over the nodes on its path */
static void point_jac(const struct vd_tree *t, const struct vd_tree_data *td, int tb,
                      const double p[3], double *Jp)
{
    memset(Jp, 0, (size_t)(3 * t->n) * sizeof(double));
    for (int b = tb; b >= 0;) {
        const struct vd_tree_node *n = &t->node[t->body[b].node];
        const double *S = td->S + 6 * VD_TREE_MAXD * b;

        for (int j = 0; j < n->nd; j++) {
            double *c = Jp + 3 * (n->off + j), w[3];

            vdu_cross3(w, S + 6 * j, p);
            vdu_add3(c, S + 6 * j + 3, w);
        }
        b = n->parent;
    }
}

void vd_ta_cuts(const struct vd_ta *ta, struct vd_ta_data *tad, int gam)
{
    const struct vd_tree *t = ta->tree;
    const struct vd_tree_data *td = tad->td;
    const int N = t->n, mc = ta->m;

    memset(tad->G, 0, (size_t)(mc * N) * sizeof(double));
    for (int k = 0; k < ta->npcut; k++) {
        const struct vd_ta_pcut *pc = &ta->pcut[k];
        double p[2][3], acc[2][3];

        for (int s = 0; s < 2; s++) {
            const int b = s ? pc->b2 : pc->b1;
            const double *A = td->A + 9 * b, *V = td->V + 6 * b, *a = td->a + 6 * b;
            double t3[3], vp[3];

            vdu_mat3_vec(t3, A, s ? pc->s2 : pc->s1);
            vdu_add3(p[s], td->x + 3 * b, t3);
            point_jac(t, td, b, p[s], tad->Jp);
            for (int c = 0; c < N; c++)
                for (int i = 0; i < 3; i++)
                    tad->G[(3 * k + i) + mc * c] += (s ? -1.0 : 1.0) * tad->Jp[3 * c + i];
            if (gam) {
                /* p'' at q'' = 0: a_lin + a_ang x p + w x p', p' = v_O + w x p */
                vdu_cross3(t3, V, p[s]);
                vdu_add3(vp, V + 3, t3);
                vdu_cross3(t3, a, p[s]);
                vdu_add3(acc[s], a + 3, t3);
                vdu_cross3(t3, V, vp);
                vdu_add3(acc[s], acc[s], t3);
            }
        }
        for (int i = 0; i < 3; i++) {
            tad->g[3 * k + i] = p[0][i] - p[1][i];
            if (gam)
                tad->gam[3 * k + i] = acc[0][i] - acc[1][i];
        }
    }
    if (ta->gear) {
        const int r = 3 * ta->npcut;

        tad->g[r] = td->q[ta->gear_c0] - ta->gear_ratio * td->q[ta->gear_c1];
        tad->G[r + mc * ta->gear_c0] = 1.0;
        tad->G[r + mc * ta->gear_c1] = -ta->gear_ratio;
        if (gam)
            tad->gam[r] = 0.0;
    }
}

double vd_ta_cut_values(const struct vd_ta *ta, struct vd_ta_data *tad)
{
    const struct vd_tree_data *td = tad->td;
    double w = 0.0;

    for (int k = 0; k < ta->npcut; k++) {
        const struct vd_ta_pcut *pc = &ta->pcut[k];
        double p1[3], p2[3];

        vdu_mat3_vec(p1, td->A + 9 * pc->b1, pc->s1);
        vdu_add3(p1, p1, td->x + 3 * pc->b1);
        vdu_mat3_vec(p2, td->A + 9 * pc->b2, pc->s2);
        vdu_add3(p2, p2, td->x + 3 * pc->b2);
        for (int i = 0; i < 3; i++) {
            tad->g[3 * k + i] = p1[i] - p2[i];
            w = fmax(w, fabs(tad->g[3 * k + i]));
        }
    }
    if (ta->gear) {
        const int r = 3 * ta->npcut;

        tad->g[r] = td->q[ta->gear_c0] - ta->gear_ratio * td->q[ta->gear_c1];
        w = fmax(w, fabs(tad->g[r]));
    }
    return w;
}

/* ---- state ------------------------------------------------------------------------------ */

/* a consistent start: VD_TA_INIT_NEWTON minimum-norm Newton steps of the positions onto
 * g = 0, [1 G^T; G 0] (dq; mu) = (0; -g), q += K dq, then the velocities onto G u = 0 the
 * same way. The model's state may miss the cuts by an elastic joint's deflection (a
 * scenario's statics on the FA model deflects the steering link's bushings by ~0.1 mm):
 * Newton's quadratic convergence takes 1e-4 m to rounding in 3 steps (1e-4 -> ~1e-8 ->
 * ~1e-16 with curvatures of O(1 / 0.1 m)). Fixed work; 0 or -EDOM */
#define VD_TA_INIT_NEWTON 3

static int consistent(const struct vd_ta *ta, struct vd_ta_data *tad)
{
    const struct vd_tree *t = ta->tree;
    const int N = t->n, mc = ta->m, NA = N + mc;

    for (int it = 0; it <= VD_TA_INIT_NEWTON; it++) {
        if (vd_tree_kin(t, tad->td, tad->q, tad->u))
            return -EDOM;
        vd_ta_cuts(ta, tad, 0);
        memset(tad->K, 0, (size_t)NA * (size_t)NA * sizeof(double));
        for (int c = 0; c < N; c++) {
            tad->K[(size_t)c * (size_t)(NA + 1)] = 1.0;
            for (int r = 0; r < mc; r++) {
                tad->K[(size_t)(N + r) + (size_t)NA * (size_t)c] = tad->G[r + mc * c];
                tad->K[(size_t)c + (size_t)NA * (size_t)(N + r)] = tad->G[r + mc * c];
            }
        }
        if (vd_lu_factor(NA, tad->K, tad->piv))
            return -EDOM;
        memset(tad->rhs, 0, (size_t)NA * sizeof(double));
        if (it < VD_TA_INIT_NEWTON) {
            for (int r = 0; r < mc; r++)
                tad->rhs[N + r] = -tad->g[r];
            vd_lu_solve(NA, tad->K, tad->piv, tad->rhs, 1);
            vd_tree_qdot(t, tad->q, tad->rhs, tad->qd);
            for (int i = 0; i < N; i++)
                tad->q[i] += tad->qd[i];
        } else {
            for (int r = 0; r < mc; r++)
                for (int c = 0; c < N; c++)
                    tad->rhs[N + r] -= tad->G[r + mc * c] * tad->u[c];
            vd_lu_solve(NA, tad->K, tad->piv, tad->rhs, 1);
            for (int i = 0; i < N; i++)
                tad->u[i] += tad->rhs[i];
        }
    }
    return 0;
}

void vd_ta_init(const struct vd_model *m, const struct vd_ta *ta, struct vd_ta_data *tad,
                const struct vd_data *d)
{
    const struct vd_tree *t = ta->tree;

    memset(tad->q, 0, (size_t)t->n * sizeof(double));
    memset(tad->u, 0, (size_t)t->n * sizeof(double));
    memset(tad->acc, 0, (size_t)t->n * sizeof(double));
    for (int in = 0; in < t->nnode; in++) {
        const struct vd_tree_node *n = &t->node[in];
        const int mb = ta->tb_model[n->b0], o = n->off;
        const struct vd_tree_body *tb = &t->body[n->b0];
        double Ab[9], Ap[9], xb[3], xp[3], T[9], R[9], wr[3], wb[3], wp[3], dx[3], dv[3], t3[3];
        int mp;

        if (n->type == VD_TREE_FREE) {
            memcpy(tad->q + o, d->r + 6 * mb, 6 * sizeof(double));
            memcpy(tad->u + o, d->v + 6 * mb, 6 * sizeof(double));
            continue;
        }
        if (n->type == VD_TREE_FIXED)
            continue;
        mp = ta->tb_model[n->parent];
        /* the body's rotation and CoM relative to the parent's (parent axes) */
        vdu_cardan_zyx(Ab, d->r[6 * mb + 3], d->r[6 * mb + 4], d->r[6 * mb + 5]);
        vdu_cardan_zyx(Ap, d->r[6 * mp + 3], d->r[6 * mp + 4], d->r[6 * mp + 5]);
        vdu_mat3t_mul(T, Ap, Ab);
        vdu_mat3_vec(wb, Ab, d->v + 6 * mb + 3);
        vdu_mat3_vec(wp, Ap, d->v + 6 * mp + 3);
        vdu_sub3(t3, wb, wp);
        vdu_mat3t_vec(wr, Ap, t3); /* relative angular velocity, parent axes */
        memcpy(xb, d->r + 6 * mb, sizeof(xb));
        memcpy(xp, d->r + 6 * mp, sizeof(xp));
        vdu_sub3(t3, xb, xp);
        vdu_mat3t_vec(dx, Ap, t3); /* CoM in the parent frame */
        {
            double wx[3];

            vdu_cross3(wx, wp, t3); /* wp x (xb - xp) */
            vdu_sub3(dv, d->v + 6 * mb, d->v + 6 * mp);
            vdu_sub3(dv, dv, wx);
        }
        vdu_mat3t_vec(t3, Ap, dv);
        memcpy(dv, t3, sizeof(dv)); /* its velocity relative to the parent frame */
        if (n->type == VD_TREE_REVOLUTE) {
            vdu_mat3_mult(R, T, tb->A0);
            tad->q[o] = vd_tf_axis_angle(R, n->axis);
            tad->u[o] = vdu_dot3(wr, n->axis);
        } else if (n->type == VD_TREE_PRISMATIC) {
            vdu_sub3(t3, dx, tb->x0);
            tad->q[o] = vdu_dot3(t3, n->axis);
            tad->u[o] = vdu_dot3(dv, n->axis);
        } else if (n->type == VD_TREE_SPHERICAL) {
            double ang[3], w1[3], w2[3], E[9], det;

            vdu_mat3_mult(R, T, tb->A0);
            vdu_cardan_from_mat(ang, R);
            memcpy(tad->q + o, ang, sizeof(ang));
            /* wr = e_z q'0 + w1 q'1 + w2 q'2: Cramer on the columns */
            w1[0] = -sin(ang[0]), w1[1] = cos(ang[0]), w1[2] = 0.0;
            w2[0] = cos(ang[0]) * cos(ang[1]);
            w2[1] = sin(ang[0]) * cos(ang[1]);
            w2[2] = -sin(ang[1]);
            E[0] = 0.0, E[1] = w1[0], E[2] = w2[0];
            E[3] = 0.0, E[4] = w1[1], E[5] = w2[1];
            E[6] = 1.0, E[7] = w1[2], E[8] = w2[2];
            det = cos(ang[1]); /* e_z . (w1 x w2) */
            if (fabs(det) > 1e-12) {
                double Ei[9];

                vdu_mat3_inv(Ei, E);
                vdu_mat3_vec(tad->u + o, Ei, wr);
            }
        } else if (n->type == VD_TREE_EMBEDDED) {
            const struct vd_ta_univ *un = n->ctx;
            double v[3], R1[9], R2[9], w1[3];

            /* R T A0^T = Rot(a1, q0) Rot(a2, q1): q0 from the image of a2 about a1 */
            vdu_mat3_mult(R, T, un->A0);
            vdu_mat3_vec(v, R, un->a2);
            vdu_cross3(t3, un->a2, v);
            tad->q[o] = atan2(vdu_dot3(un->a1, t3), vdu_dot3(un->a2, v));
            vd_tf_axrot(R1, un->a1, tad->q[o]);
            vdu_mat3t_mul(R2, R1, R);
            tad->q[o + 1] = vd_tf_axis_angle(R2, un->a2);
            vdu_mat3_vec(w1, R1, un->a2);
            tad->u[o] = vdu_dot3(wr, un->a1);
            tad->u[o + 1] = vdu_dot3(wr, w1);
        }
    }
    tad->synced = 1;
    consistent(ta, tad); /* a failure shows as the cuts' residual at the first step */
    (void)m;
}
