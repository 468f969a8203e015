/* core/ce.c - the CE form of a joint vehicle: the tree from the model, the steered axle's
 * closure and the tree state of a model state (ce.h); the placement and the steps are in
 * ce_step.c. */
#include "ce.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"
#include "kinematics.h"
#include "treeform.h"
#include "vdmath.h"

/* ---- building --------------------------------------------------------------------------- */

static int add_body(struct vd_ce *ce, int mb, int *ntb)
{
    if (ce->model_tb[mb] >= 0)
        return -EINVAL;
    ce->model_tb[mb] = *ntb;
    ce->tb_model[(*ntb)++] = mb;
    return 0;
}

/* the wheel of corner k: a revolute on the knuckle about the bearing's spin axis (x of its
 * knuckle-side marker, the Cardan bushing's unbounded rx) */
static int add_wheel(struct vd_ce *ce, const struct vd_model *m, const char *corner, int kn,
                     int *ntb, char *err, size_t errlen)
{
    struct vd_tree_node n;
    struct vd_tree_body tb;
    char name[2 * VD_NAME_MAX];
    int br, wh;

    snprintf(name, sizeof(name), "%s.bearing", corner);
    br = vd_model_find_bushing(m, name);
    if (br < 0 || m->marker[m->bush[br].mk[1]].body != kn) {
        snprintf(err, errlen, "formulation ce: no wheel bearing %s on the knuckle", name);
        return -EINVAL;
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
    vd_tf_tbody(m, wh, kn, &tb);
    if (vd_tree_add(ce->tree, &n, &tb, 1) < 0 || add_body(ce, wh, ntb)) {
        snprintf(err, errlen, "formulation ce: wheel %s", m->body[wh].name);
        return -EINVAL;
    }
    return 0;
}

/* corner k on its own node (travel only), and its wheel */
static int add_corner(struct vd_ce *ce, const struct vd_model *m, int root, int k, int *ntb,
                      char *err, size_t errlen)
{
    struct vd_tree_body tb[VD_DWC_NB];

    for (int b = 0; b < VD_DWC_NB; b++)
        vd_tf_tbody(m, ce->corner_body[k][b], root, &tb[b]);
    if (vd_tree_add_embedded(ce->tree, 0, 1, vd_dwc_closure, &ce->corner[k], tb, VD_DWC_NB) < 0)
        return -ENOMEM;
    for (int b = 0; b < VD_DWC_NB; b++)
        if (add_body(ce, ce->corner_body[k][b], ntb)) {
            snprintf(err, errlen, "formulation ce: body %s in two corners",
                     m->body[ce->corner_body[k][b]].name);
            return -EINVAL;
        }
    return add_wheel(ce, m, ce->corner_name[k], ce->corner_body[k][VD_DWC_KNUCKLE], ntb, err,
                     errlen);
}

static int build_rack_nlc(struct vd_ce *ce, const struct vd_model *m, int root, const int kn[2],
                          int *ntb, char *err, size_t errlen);

/* the multilink and McPherson corners (core/nlcorner.h): each on a node of its own, its wheel
 * on a revolute; their inner joints on the root or on welded bodies, or (two corners) their tie
 * rods on a rack_pinion's rack: build_rack_nlc */
static int add_nlcs(struct vd_ce *ce, const struct vd_model *m, int root, int *ntb, char *err,
                    size_t errlen)
{
    int kn[2], nr = 0;

    for (int j = 0; j < m->njoint; j++) {
        const char *nm = m->joint[j].name, *dot = strrchr(nm, '.');
        char pre[VD_NAME_MAX], e[200];
        struct vd_nlc *c;
        int tm;

        if (!dot || strcmp(dot, ".tierod_outer"))
            continue;
        snprintf(pre, sizeof(pre), "%.*s", (int)(dot - nm), nm);
        if (!vd_nlc_kind(m, pre))
            continue;
        if (ce->nnlc == VD_CE_MAXCORNER) {
            snprintf(err, errlen, "formulation ce: more than %d corners", VD_CE_MAXCORNER);
            return -EINVAL;
        }
        c = &ce->nlc[ce->nnlc++];
        if (vd_nlc_from_model(c, m, pre, root, e, sizeof(e))) {
            snprintf(err, errlen, "formulation ce: %s", e);
            return -EINVAL;
        }
        /* the tie rod's mount: on the rack, the rack's node takes the corner */
        snprintf(e, sizeof(e), "%s.tierod_inner", pre);
        tm = vd_model_find_joint(m, e);
        tm = tm >= 0 ? m->marker[m->joint[tm].mk[1]].body : -1;
        if (tm >= 0 && strcmp(m->body[tm].name, "steering.rack"))
            tm = -1;
        for (int i = 0; i < c->nmount; i++) {
            const int b = c->mount[i];

            if (b != root && b != tm &&
                !(b >= 0 && ce->model_tb[b] >= 0 &&
                  ce->tree->node[ce->tree->body[ce->model_tb[b]].node].type == VD_TREE_FIXED)) {
                snprintf(err, errlen,
                         "formulation ce: %s: its joints hang on %s, which is neither the root, "
                         "welded (solver.weld) nor (the tie rod) a rack_pinion's rack",
                         pre, b >= 0 ? m->body[b].name : "the ground");
                return -EINVAL;
            }
        }
        if (tm >= 0) {
            if (nr == 2) {
                snprintf(err, errlen, "formulation ce: more than two corners on the rack");
                return -EINVAL;
            }
            kn[nr++] = ce->nnlc - 1;
            continue;
        }
        if (vd_nlc_tree_add(c, m, root, ce->tree) < 0)
            return -ENOMEM;
        for (int b = 0; b < c->nb; b++)
            if (add_body(ce, c->mb[b], ntb)) {
                snprintf(err, errlen, "formulation ce: body %s in two corners",
                         m->body[c->mb[b]].name);
                return -EINVAL;
            }
        if (add_wheel(ce, m, pre, c->mb[0], ntb, err, errlen))
            return -EINVAL;
    }
    if (nr == 1) {
        snprintf(err, errlen, "formulation ce: one corner on the rack (two needed)");
        return -EINVAL;
    }
    return nr ? build_rack_nlc(ce, m, root, kn, ntb, err, errlen) : 0;
}

/* a marker's position and axis x in the root frame (root CoM pose Ar, xr) */
static void mk_root_col(const struct vd_model *m, int k, int col, const double Ar[9],
                        const double xr[3], double pos[3], double ax[3])
{
    const struct vd_marker *mk = &m->marker[k];
    double A[9], x[3], t[3], e[3] = {mk->rot[col], mk->rot[3 + col], mk->rot[6 + col]};

    vd_tf_com_pose(m, mk->body, A, x);
    vdu_mat3_vec(t, A, mk->s);
    vdu_add3(t, t, x);
    vdu_sub3(t, t, xr);
    vdu_mat3t_vec(pos, Ar, t);
    if (ax) {
        vdu_mat3_vec(t, A, e);
        vdu_mat3t_vec(ax, Ar, t);
    }
}

/* marker k's position and x axis in the root's frame (design pose) */
static void mk_root(const struct vd_model *m, int k, const double Ar[9], const double xr[3],
                    double pos[3], double ax[3])
{
    mk_root_col(m, k, 0, Ar, xr, pos, ax);
}

/* the steering's connection `name` (without "steering."): the bushing of that name, else
 * the ideal joint `jname` (`connection: joints`); the marker of side `side` (0: the moving
 * body's, 1: the mount's) and, for a revolute joint, its axis is z (bushing: x). -1 if
 * neither exists */
static int steer_marker(const struct vd_model *m, const char *name, const char *jname, int side,
                        int *axis_col)
{
    char nm[2 * VD_NAME_MAX];
    int e;

    snprintf(nm, sizeof(nm), "steering.%s", name);
    e = vd_model_find_bushing(m, nm);
    *axis_col = 0;
    if (e >= 0)
        return m->bush[e].mk[side];
    snprintf(nm, sizeof(nm), "steering.%s", jname);
    e = vd_model_find_joint(m, nm);
    if (e < 0)
        return -1;
    *axis_col = m->joint[e].type == VD_JOINT_REVOLUTE ? 2 : 0;
    return m->joint[e].mk[side];
}

/* what moves which body of a steered axle's node nd (its closure's columns: the corners' two,
 * VD_DWC_NB bodies each, then the steering's; the shared coordinate 2): a corner's knuckle and
 * tie rod on its travel and the shared coordinate, its arms and strut on its travel alone
 * (vd_dwc_q1_moves), the steering on the shared coordinate only */
static void set_axle_dmask(struct vd_tree *t, int nd)
{
    const struct vd_tree_node *n = &t->node[nd];

    for (int b = 0; b < n->nb; b++)
        vd_tree_set_dmask(t, n->b0 + b,
                          b < 2 * VD_DWC_NB
                              ? (1u << (b / VD_DWC_NB)) | (vd_dwc_q1_moves(b % VD_DWC_NB) ? 4u : 0u)
                              : 4u);
}

/* a steered axle's node (build_rack, build_axle): the corners ks' bodies and the four
 * steering bodies body (tb, in that order) on one embedded node of three coordinates
 * (closure fn on ctx), what moves which body (set_axle_dmask), then their model bodies and
 * the corners' wheels */
static int add_axle_node(struct vd_ce *ce, const struct vd_model *m, const int ks[2],
                         const int body[4], vd_tree_closure_fn fn, void *ctx,
                         const struct vd_tree_body *tb, int *ntb, char *err, size_t errlen)
{
    const int nd = vd_tree_add_embedded(ce->tree, 0, 3, fn, ctx, tb, 2 * VD_DWC_NB + 4);

    if (nd < 0)
        return -ENOMEM;
    set_axle_dmask(ce->tree, nd);
    for (int s = 0; s < 2; s++)
        for (int b = 0; b < VD_DWC_NB; b++)
            if (add_body(ce, ce->corner_body[ks[s]][b], ntb))
                return -EINVAL;
    for (int b = 0; b < 4; b++)
        if (add_body(ce, body[b], ntb))
            return -EINVAL;
    for (int s = 0; s < 2; s++)
        if (add_wheel(ce, m, ce->corner_name[ks[s]], ce->corner_body[ks[s]][VD_DWC_KNUCKLE], ntb,
                      err, errlen))
            return -EINVAL;
    return 0;
}

/* the rack_pinion steered axle (core/ce_rack.c): the corners ks whose tie rods hang on the
 * rack, the rack, pinion, intermediate shaft and column on one node of three coordinates */
static int build_rack(struct vd_ce *ce, const struct vd_model *m, int root, const int ks[2],
                      int *ntb, char *err, size_t errlen)
{
    struct vd_ce_rack *r = &ce->rack;
    struct vd_tree_body tb[2 * VD_DWC_NB + 4];
    int rc;

    if (ce->has_rack) {
        snprintf(err, errlen, "formulation ce: two axles on the rack");
        return -EINVAL;
    }
    if (vd_ce_rack_init(r, m, root, err, errlen))
        return -EINVAL;
    for (int s = 0; s < 3; s++)
        r->off[s] = VD_DWC_NB * s;
    for (int s = 0; s < 2; s++) {
        struct vd_dwc *c = &ce->corner[ks[s]];

        c->nd = 2;
        c->swing = 0;
        memcpy(c->rack, r->d, sizeof(c->rack));
        if (vd_dwc_init(c, err, errlen))
            return -EINVAL;
        r->corner[s] = c;
        for (int b = 0; b < VD_DWC_NB; b++)
            vd_tf_tbody(m, ce->corner_body[ks[s]][b], root, &tb[VD_DWC_NB * s + b]);
    }
    for (int b = 0; b < 4; b++)
        vd_tf_tbody(m, r->body[b], root, &tb[2 * VD_DWC_NB + b]);
    rc = add_axle_node(ce, m, ks, r->body, vd_ce_rack_closure, r, tb, ntb, err, errlen);
    if (rc)
        return rc;
    ce->has_rack = 1;
    return 0;
}

/* the rack_pinion steered axle of two McPherson or multilink corners (core/nlcorner.h, on the
 * rack by vd_nlc_on_rack): the corners kn (ce->nlc), rack, pinion, intermediate shaft and
 * column on one node of three coordinates, as build_rack's */
static int build_rack_nlc(struct vd_ce *ce, const struct vd_model *m, int root, const int kn[2],
                          int *ntb, char *err, size_t errlen)
{
    struct vd_ce_rack *r = &ce->rack;
    struct vd_tree_body tb[2 * VD_NLC_MAXB + 4];
    char e[200];
    int nd;

    if (ce->has_rack) {
        snprintf(err, errlen, "formulation ce: two axles on the rack");
        return -EINVAL;
    }
    if (vd_ce_rack_init(r, m, root, err, errlen))
        return -EINVAL;
    r->off[0] = 0;
    for (int s = 0; s < 2; s++) {
        struct vd_nlc *c = &ce->nlc[kn[s]];

        if (vd_nlc_on_rack(c, r->d, VD_CE_RACK_SMAX, e, sizeof(e))) {
            snprintf(err, errlen, "formulation ce: %s: %s", m->body[c->mb[0]].name, e);
            return -EINVAL;
        }
        r->nlc[s] = c;
        r->off[s + 1] = r->off[s] + c->nb;
        for (int b = 0; b < c->nb; b++)
            vd_tf_tbody(m, c->mb[b], root, &tb[r->off[s] + b]);
    }
    for (int b = 0; b < 4; b++)
        vd_tf_tbody(m, r->body[b], root, &tb[r->off[2] + b]);
    nd = vd_tree_add_embedded(ce->tree, 0, 3, vd_ce_rack_closure, r, tb, r->off[2] + 4);
    if (nd < 0)
        return -ENOMEM;
    /* what moves what: a corner's bodies its coordinate and the rack's travel (the knuckle
     * steers), but the McPherson's lower arm (slot 1) turns by its angle alone; the steering
     * on the rack's travel only */
    for (int s = 0; s < 2; s++)
        for (int b = 0; b < r->nlc[s]->nb; b++)
            vd_tree_set_dmask(ce->tree, ce->tree->node[nd].b0 + r->off[s] + b,
                              (1u << s) |
                                  (r->nlc[s]->kind == VD_NLC_MCPHERSON && b == 1 ? 0u : 4u));
    for (int b = 0; b < 4; b++)
        vd_tree_set_dmask(ce->tree, ce->tree->node[nd].b0 + r->off[2] + b, 4u);
    for (int s = 0; s < 2; s++)
        for (int b = 0; b < r->nlc[s]->nb; b++)
            if (add_body(ce, r->nlc[s]->mb[b], ntb)) {
                snprintf(err, errlen, "formulation ce: body %s in two corners",
                         m->body[r->nlc[s]->mb[b]].name);
                return -EINVAL;
            }
    for (int b = 0; b < 4; b++)
        if (add_body(ce, r->body[b], ntb))
            return -EINVAL;
    ce->has_rack = 1;
    for (int s = 0; s < 2; s++) {
        const char *kn_name = m->body[r->nlc[s]->mb[0]].name, *dot = strrchr(kn_name, '.');
        char pre[VD_NAME_MAX];

        snprintf(pre, sizeof(pre), "%.*s", dot ? (int)(dot - kn_name) : 0, kn_name);
        if (add_wheel(ce, m, pre, r->nlc[s]->mb[0], ntb, err, errlen))
            return -EINVAL;
    }
    return 0;
}

/* a body held to the root by one ideal revolute and no other joint (the rack_pinion's steering
 * wheel: the torsion bar to the column is a force element) on a revolute node */
static int add_revolutes(struct vd_ce *ce, const struct vd_model *m, int root, int *ntb)
{
    for (int j = 0; j < m->njoint; j++) {
        const struct vd_marker *mi = &m->marker[m->joint[j].mk[0]];
        const struct vd_marker *mj = &m->marker[m->joint[j].mk[1]];
        struct vd_tree_node n;
        struct vd_tree_body tb;
        int other = 0;

        if (m->joint[j].type != VD_JOINT_REVOLUTE || mj->body != root || mi->body < 0 ||
            ce->model_tb[mi->body] >= 0)
            continue;
        for (int k = 0; k < m->njoint; k++)
            other |= k != j && (m->marker[m->joint[k].mk[0]].body == mi->body ||
                                m->marker[m->joint[k].mk[1]].body == mi->body);
        if (other)
            continue;
        memset(&n, 0, sizeof(n));
        n.type = VD_TREE_REVOLUTE;
        n.parent = 0;
        /* the axis: z of the root's marker, in the root's CoM frame */
        memcpy(n.point, mj->s, sizeof(n.point));
        n.axis[0] = mj->rot[2], n.axis[1] = mj->rot[5], n.axis[2] = mj->rot[8];
        vd_tf_tbody(m, mi->body, root, &tb);
        if (vd_tree_add(ce->tree, &n, &tb, 1) < 0 || add_body(ce, mi->body, ntb))
            return -EINVAL;
    }
    return 0;
}

/* a bushing that is a bearing: stiff in every component but its free rx (a half shaft's inner
 * tripod, free in plunge and bending, is not) */
static bool bearing(const struct vd_model *m, const struct vd_bushing *bu)
{
    for (int i = 0; i < 6; i++) {
        double k = 0.0;

        if (i == 3)
            continue;
        vd_curve_eval(m, &bu->stiff[i], 0.0, &k);
        if (!(k > 0.0))
            return false;
    }
    return true;
}

/* bodies the joints leave free that bushings hold (the anti-roll bars): one on a Cardan bushing
 * to the root (a bearing: its x the free spin) on a revolute about that x; then one on a
 * bushing to a tree body other than the root (a drop link on a bar's arm) on a spherical node
 * at that bushing; repeated until no body is added. The bushings' components the node locks
 * see no deflection (their rates are lost: a model difference to FA, as the wheel bearings') */
static int add_bushed(struct vd_ce *ce, const struct vd_model *m, int root, int *ntb)
{
    for (int pass = 0; pass < 2; pass++)
        for (int e = 0; e < m->nbush; e++) {
            const struct vd_bushing *bu = &m->bush[e];
            const int b0 = m->marker[bu->mk[0]].body, b1 = m->marker[bu->mk[1]].body;
            struct vd_tree_node n;
            struct vd_tree_body tb;

            for (int s = 0; s < 2; s++) {
                const int b = s ? b1 : b0, p = s ? b0 : b1;
                const struct vd_marker *mp = &m->marker[bu->mk[s ? 0 : 1]];
                int other = 0;

                if (b < 0 || p < 0 || ce->model_tb[b] >= 0 || ce->model_tb[p] < 0)
                    continue;
                if (pass == 0 && (p != root || bu->rot_mode != VD_ROT_CARDAN || !bearing(m, bu)))
                    continue;
                if (pass == 1 && p == root)
                    continue;
                for (int k = 0; k < m->njoint; k++)
                    other |= m->marker[m->joint[k].mk[0]].body == b ||
                             m->marker[m->joint[k].mk[1]].body == b;
                if (other)
                    continue; /* an ideal joint holds it: not this rule's */
                memset(&n, 0, sizeof(n));
                n.type = pass ? VD_TREE_SPHERICAL : VD_TREE_REVOLUTE;
                n.parent = ce->model_tb[p];
                n.nd = pass ? 3 : 1;
                memcpy(n.point, mp->s, sizeof(n.point));
                n.axis[0] = mp->rot[0], n.axis[1] = mp->rot[3], n.axis[2] = mp->rot[6];
                vd_tf_tbody(m, b, p, &tb);
                if (vd_tree_add(ce->tree, &n, &tb, 1) < 0 || add_body(ce, b, ntb))
                    return -EINVAL;
                break;
            }
        }
    return 0;
}

/* bodies that only bushings hold and no other rule placed (an engine or a subframe on its
 * rubber mounts, not welded): each free on its own 6 coordinates (a second free node on the
 * ground: CoM position and Cardan angles, global), its mounts force elements whose Jacobian
 * blocks couple it to the tree bodies they hang on. A body that an ideal joint holds is not
 * this rule's (a corner's links on a subframe: the corner's closure would need the subframe's
 * pose relative to the root) */
static int add_free(struct vd_ce *ce, const struct vd_model *m, int root, int *ntb)
{
    for (int b = 0; b < m->nbody; b++) {
        struct vd_tree_node n;
        struct vd_tree_body tb;
        int bushed = 0, joint = 0;

        if (ce->model_tb[b] >= 0)
            continue;
        for (int e = 0; e < m->nbush; e++) {
            const int b0 = m->marker[m->bush[e].mk[0]].body, b1 = m->marker[m->bush[e].mk[1]].body;

            bushed |= (b0 == b && b1 >= 0 && ce->model_tb[b1] >= 0) ||
                      (b1 == b && b0 >= 0 && ce->model_tb[b0] >= 0);
        }
        for (int k = 0; k < m->njoint; k++)
            joint |=
                m->marker[m->joint[k].mk[0]].body == b || m->marker[m->joint[k].mk[1]].body == b;
        if (!bushed || joint)
            continue;
        memset(&n, 0, sizeof(n));
        n.type = VD_TREE_FREE;
        n.parent = -1;
        vd_tf_tbody(m, b, root, &tb);
        if (vd_tree_add(ce->tree, &n, &tb, 1) < 0 || add_body(ce, b, ntb))
            return -EINVAL;
        ce->nfree++;
    }
    return 0;
}

/* the steered axle: the corners whose tie rods hang on the pitman_arm steering's link, and
 * the steering (pitman arm, idler arm, link, steering wheel) on one node of three
 * coordinates: both travels and the pitman arm's angle. The arms must form a parallelogram
 * (parallel axes, equal arm vectors: Chrono's HMMWV), so that the link translates */
static int build_axle(struct vd_ce *ce, const struct vd_model *m, int root, int *ntb, char *err,
                      size_t errlen)
{
    struct vd_ce_axle *ax = &ce->axle;
    static const char *const bn[4] = {"steering.pitman_arm", "steering.idler_arm", "steering.link",
                                      "steering.steering_wheel"};
    int ks[2], n2 = 0, bpb, bcb, cp = -1, mib, mpl, mil, cib, cpl, cil, rc;
    double Ar[9], xr[3], pl[3], il[3], ip[3], t[3];
    struct vd_tree_body tb[2 * VD_DWC_NB + 4];

    for (int k = 0; k < ce->ncorner; k++)
        if (ce->model_tb[ce->corner_body[k][0]] < 0) {
            if (n2 == 2) {
                snprintf(err, errlen, "formulation ce: more than two corners on the link");
                return -EINVAL;
            }
            ks[n2++] = k;
        }
    if (n2 == 0)
        return 0;
    if (n2 != 2) {
        snprintf(err, errlen, "formulation ce: one corner on the steering link (two needed)");
        return -EINVAL;
    }
    if (!strcmp(m->body[ce->corner_mount[ks[0]]].name, "steering.rack"))
        return build_rack(ce, m, root, ks, ntb, err, errlen);
    for (int b = 0; b < 4; b++) {
        ax->body[b] = vd_model_find_body(m, bn[b]);
        if (ax->body[b] < 0 || ce->model_tb[ax->body[b]] >= 0) {
            snprintf(err, errlen,
                     "formulation ce: the steered axle needs %s (pitman_arm, not "
                     "welded)",
                     bn[b]);
            return -EINVAL;
        }
    }
    /* the column and pitman bearings are bushings in both connections (with `joints`
     * rate-less ones beside the revolutes, carrying the box coupler); the idler arm's
     * bearing and the link's two joints are bushings or ideal joints */
    bpb = vd_model_find_bushing(m, "steering.pitman_bearing");
    bcb = vd_model_find_bushing(m, "steering.column_bearing");
    mib = steer_marker(m, "idler_bearing", "idler_pivot", 1, &cib);
    mpl = steer_marker(m, "pitman_link", "pitman_link", 0, &cpl);
    mil = steer_marker(m, "idler_link", "idler_link", 0, &cil);
    for (int k = 0; k < m->ncoupler; k++)
        if (m->coupler[k].bush[0] == bpb && m->coupler[k].bush[1] == bcb)
            cp = k;
    if (bpb < 0 || mib < 0 || bcb < 0 || mpl < 0 || mil < 0 || cp < 0 ||
        !(fabs(m->coupler[cp].ratio) > 0.0)) {
        snprintf(err, errlen,
                 "formulation ce: the pitman_arm steering's bearings, link joints "
                 "or box are missing");
        return -EINVAL;
    }
    vd_tf_com_pose(m, root, Ar, xr);
    mk_root(m, m->bush[bpb].mk[1], Ar, xr, ax->pc, ax->pa);
    mk_root_col(m, mib, cib, Ar, xr, ax->ic, ax->ia);
    mk_root(m, m->bush[bcb].mk[1], Ar, xr, ax->sc, ax->sa);
    mk_root(m, mpl, Ar, xr, pl, NULL);
    mk_root(m, mil, Ar, xr, il, NULL);
    vdu_sub3(ax->arm, pl, ax->pc);
    vdu_sub3(ip, il, ax->ic);
    vdu_sub3(t, ax->pa, ax->ia);
    if (sqrt(vdu_dot3(t, t)) > 1e-9 ||
        fabs(vdu_dot3(ax->arm, ax->pa) - vdu_dot3(ip, ax->pa)) > 1e-9) {
        snprintf(err, errlen,
                 "formulation ce: the pitman and idler arms are not a "
                 "parallelogram (the link would turn): not embedded");
        return -EINVAL;
    }
    {
        /* the arm vectors' components normal to the axis must match too */
        double a1[3], a2[3];

        vdu_cross3(a1, ax->pa, ax->arm);
        vdu_cross3(a2, ax->pa, ip);
        vdu_sub3(t, a1, a2);
        if (sqrt(vdu_dot3(t, t)) > 1e-9) {
            snprintf(err, errlen,
                     "formulation ce: the pitman and idler arms differ: not "
                     "embedded");
            return -EINVAL;
        }
    }
    ax->sw_ratio = 1.0 / m->coupler[cp].ratio;
    for (int b = 0; b < 4; b++) {
        vd_tf_tbody(m, ax->body[b], root, &tb[2 * VD_DWC_NB + b]);
        memcpy(ax->A0[b], tb[2 * VD_DWC_NB + b].A0, sizeof(ax->A0[b]));
        memcpy(ax->x0[b], tb[2 * VD_DWC_NB + b].x0, sizeof(ax->x0[b]));
    }
    for (int s = 0; s < 2; s++) {
        struct vd_dwc *c = &ce->corner[ks[s]];

        c->nd = 2;
        c->swing = 1;
        memcpy(c->swing_a, ax->pa, sizeof(c->swing_a));
        memcpy(c->swing_arm, ax->arm, sizeof(c->swing_arm));
        if (vd_dwc_init(c, err, errlen))
            return -EINVAL;
        ax->corner[s] = c;
        for (int b = 0; b < VD_DWC_NB; b++)
            vd_tf_tbody(m, ce->corner_body[ks[s]][b], root, &tb[VD_DWC_NB * s + b]);
    }
    rc = add_axle_node(ce, m, ks, ax->body, vd_ce_axle_closure, ax, tb, ntb, err, errlen);
    if (rc)
        return rc;
    ce->has_axle = 1;
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
    ce->mk = malloc(((size_t)m->nmarker + 1) * sizeof(int));
    ce->bd = malloc(((size_t)m->nbody + 1) * sizeof(int));
    if (!ce->tree || !ce->tb_model || !ce->model_tb || !ce->mk || !ce->bd)
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
    vd_tf_tbody(m, root, root, &tb[0]);
    vd_tree_add(ce->tree, &n, tb, 1);
    add_body(ce, root, &ntb);
    /* welded bodies */
    if (weld && weld[0])
        for (int b = 0; b < m->nbody; b++)
            if (b != root && vd_model_weld_match(weld, m->body[b].name)) {
                memset(&n, 0, sizeof(n));
                n.type = VD_TREE_FIXED;
                n.parent = 0;
                vd_tf_tbody(m, b, root, &tb[0]);
                if (vd_tree_add(ce->tree, &n, tb, 1) < 0)
                    goto out_nomem;
                add_body(ce, b, &ntb);
                ce->nweld++;
            }
    /* corners: every joint <prefix>.lca_pivot; those whose tie rods hang on the steering
     * link go into the steered axle's node */
    for (int j = 0; j < m->njoint; j++) {
        const char *nm = m->joint[j].name, *dot = strrchr(nm, '.');
        struct vd_dwc *c;
        int body[VD_DWC_NB], tr, mount;

        if (!dot || strcmp(dot, ".lca_pivot"))
            continue;
        snprintf(name, sizeof(name), "%.*s", (int)(dot - nm), nm);
        if (vd_nlc_kind(m, name)) /* a McPherson: add_nlcs */
            continue;
        if (ce->ncorner == VD_CE_MAXCORNER) {
            snprintf(err, errlen, "formulation ce: more than %d corners", VD_CE_MAXCORNER);
            goto out_free;
        }
        c = &ce->corner[ce->ncorner];
        snprintf(ce->corner_name[ce->ncorner], VD_NAME_MAX, "%.*s", (int)(dot - nm), nm);
        if (vd_dwc_from_model(c, m, ce->corner_name[ce->ncorner], root, NULL, body, err, errlen))
            goto out_free;
        memcpy(ce->corner_body[ce->ncorner], body, sizeof(body));
        snprintf(name, sizeof(name), "%s.tierod_inner", ce->corner_name[ce->ncorner]);
        tr = vd_model_find_joint(m, name);
        mount = m->marker[m->joint[tr].mk[1]].body;
        ce->corner_mount[ce->ncorner] = mount;
        ce->ncorner++;
        if (mount == root ||
            (mount >= 0 && ce->model_tb[mount] >= 0 &&
             ce->tree->node[ce->tree->body[ce->model_tb[mount]].node].type == VD_TREE_FIXED)) {
            if (add_corner(ce, m, root, ce->ncorner - 1, &ntb, err, errlen))
                goto out_free;
        } else if (mount < 0 || (strcmp(m->body[mount].name, "steering.link") &&
                                 strcmp(m->body[mount].name, "steering.rack"))) {
            snprintf(err, errlen,
                     "formulation ce: %s: the tie rod hangs on %s, which is neither the root, "
                     "the link of a pitman_arm steering nor a rack_pinion's rack",
                     ce->corner_name[ce->ncorner - 1], mount >= 0 ? m->body[mount].name : "ground");
            goto out_free;
        }
    }
    if (add_nlcs(ce, m, root, &ntb, err, errlen) || build_axle(ce, m, root, &ntb, err, errlen) ||
        add_revolutes(ce, m, root, &ntb) || add_bushed(ce, m, root, &ntb) ||
        add_free(ce, m, root, &ntb))
        goto out_free;
    for (int b = 0; b < m->nbody; b++)
        if (ce->model_tb[b] < 0) {
            snprintf(err, errlen,
                     "formulation ce: body %s is neither the root, a double wishbone's, a "
                     "multilink's or a McPherson's (with connection: joints), a wheel, welded "
                     "nor held by bushings alone",
                     m->body[b].name);
            goto out_free;
        }
    /* the elements the tree holds locked are left out of the step's evaluations, and the
     * markers and bodies only they read with them */
    if (vd_ce_find_locked(m, ce))
        goto out_nomem;
    ce->nmk = vd_eval_markers_sel(m, ce->bu, ce->nbu, ce->pp, ce->npp, ce->mk);
    ce->nbd = vd_eval_bodies(m, ce->mk, ce->nmk, ce->bd);
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
    free(ce->mk);
    free(ce->bd);
    free(ce->bu);
    free(ce->cp);
    free(ce->pp);
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
    p = calloc(n * n + 10 * n + 4 * (size_t)m->nz + 2 * nt + 7 * n + 6 * nb + 2 * n * n + 6 * n +
                   6 * n * nt + 4 * nt + (size_t)m->nz + (size_t)m->ninput + (size_t)m->nq,
               sizeof(double));
    cd->piv = calloc(2 * n, sizeof(int));
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
    cd->qp = p, p += n;
    cd->up = p, p += n;
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
    cd->hm = p, p += (size_t)m->nq;
    cd->Mn = p, p += n * n;
    cd->dv1 = p, p += n;
    cd->dr1 = p, p += n;
    cd->qa = p, p += n;
    cd->ua = p, p += n;
    cd->sv = p, p += n;
    cd->sr = p, p += n;
    cd->p2 = p, p += n;
    cd->wq = p, p += n;
    cd->mphi = p, p += n;
    cd->dv2 = p, p += n;
    cd->dz1 = p, p += (size_t)m->nz;
    cd->za = p, p += (size_t)m->nz;
    cd->sz = p, p += (size_t)m->nz;
    cd->dz2 = p, p += (size_t)m->nz;
    cd->rz = p;
    cd->rhs = cd->qdd; /* reused after q'' is consumed by the Jacobians */
    for (int i = 0; i < m->nbody; i++)
        for (int e = m->blk_rowptr[i]; e < m->blk_rowptr[i + 1]; e++) {
            cd->row[e] = ce->model_tb[i];
            cd->col[e] = ce->model_tb[m->blk_col[e]];
        }
    cd->jp = vd_tree_jplan_new(ce->tree, m->nblk, cd->row, cd->col);
    if (!cd->jp) {
        vd_ce_data_free(cd);
        return NULL;
    }
    return cd;
}

void vd_ce_data_free(struct vd_ce_data *cd)
{
    if (!cd)
        return;
    vd_tree_data_free(cd->td);
    vd_tree_jplan_free(cd->jp);
    free(cd->q);
    free(cd->piv);
    free(cd->row);
    free(cd->col);
    free(cd);
}

/* ---- the steered axle ---------------------------------------------------------------- */

/* a body turning by ang about the axis a through c: pose from its design (A0, x0); its column
 * r (a; c x a) in coordinate k of nd (the others zero; ds, kappa 0: s is constant) */
static void turning(struct vd_tree_rel *r, const double a[3], const double c[3], double ang,
                    double rate, const double A0[9], const double x0[3], int k, int nd)
{
    double R[9], d[3], t[3];

    vd_tf_axrot(R, a, ang);
    vdu_mat3_mul(r->A, R, A0);
    vdu_sub3(d, x0, c);
    vdu_mat3_vec(t, R, d);
    vdu_add3(r->x, c, t);
    memset(r->s, 0, (size_t)(6 * nd) * sizeof(double));
    memset(r->ds, 0, (size_t)(6 * nd * nd) * sizeof(double));
    memset(r->kappa, 0, sizeof(r->kappa));
    memset(r->dkappa, 0, (size_t)(6 * nd) * sizeof(double));
    vdu_scale3(r->s + 6 * k, rate, a);
    vdu_cross3(r->s + 6 * k + 3, c, r->s + 6 * k);
}

int vd_ce_axle_closure(const void *ctx, const double *q, const double *qd, struct vd_tree_rel *rel)
{
    const struct vd_ce_axle *ax = ctx;
    const double d = q[2], dd = qd[2];
    const int mf_only = rel[0].mf_only;

    /* the corners on (travel, arm angle): their 2-coordinate columns into 3 */
    for (int s = 0; s < 2; s++)
        if (vd_dwc_closure_in3(ax->corner[s], s, q, qd, mf_only, &rel[VD_DWC_NB * s]))
            return -EDOM;
    /* pitman arm, idler arm: turning by d; steering wheel by d / box ratio */
    turning(&rel[2 * VD_DWC_NB], ax->pa, ax->pc, d, 1.0, ax->A0[0], ax->x0[0], 2, 3);
    turning(&rel[2 * VD_DWC_NB + 1], ax->ia, ax->ic, d, 1.0, ax->A0[1], ax->x0[1], 2, 3);
    turning(&rel[2 * VD_DWC_NB + 3], ax->sa, ax->sc, ax->sw_ratio * d, ax->sw_ratio, ax->A0[3],
            ax->x0[3], 2, 3);
    /* the link translates with the pitman arm's joint: x = x0 + (R - 1) arm;
     * s = (0; a x R arm), ds/dd = (0; a x (a x R arm)), kappa = ds/dd dd^2 */
    {
        struct vd_tree_rel *r = &rel[2 * VD_DWC_NB + 2];
        double R[9], ra[3], v1[3], v2[3], v3[3];

        vd_tf_axrot(R, ax->pa, d);
        vdu_mat3_vec(ra, R, ax->arm);
        vdu_cross3(v1, ax->pa, ra);
        vdu_cross3(v2, ax->pa, v1);
        vdu_cross3(v3, ax->pa, v2);
        memcpy(r->A, ax->A0[2], sizeof(r->A));
        for (int i = 0; i < 3; i++)
            r->x[i] = ax->x0[2][i] + ra[i] - ax->arm[i];
        memset(r->s, 0, 18 * sizeof(double));
        memset(r->ds, 0, 54 * sizeof(double));
        memset(r->kappa, 0, sizeof(r->kappa));
        memset(r->dkappa, 0, 18 * sizeof(double));
        memcpy(r->s + 6 * 2 + 3, v1, sizeof(v1));
        memcpy(r->ds + 6 * (2 + 3 * 2) + 3, v2, sizeof(v2));
        vdu_scale3(r->kappa + 3, dd * dd, v2);
        vdu_scale3(r->dkappa + 6 * 2 + 3, dd * dd, v3);
    }
    return 0;
}

/* ---- state ------------------------------------------------------------------------------ */

/* angle and rate of model body b relative to model body p about the axis a (p's axes), whose
 * relative rotation at the design pose was A0 */
static void rel_angle(const struct vd_data *d, int b, int p, const double A0[9], const double a[3],
                      double *q, double *qd)
{
    double Ab[9], Ap[9], T[9], R[9], wb[3], wp[3], ag[3];

    vdu_cardan_zyx(Ab, d->r[6 * b + 3], d->r[6 * b + 4], d->r[6 * b + 5]);
    vdu_cardan_zyx(Ap, d->r[6 * p + 3], d->r[6 * p + 4], d->r[6 * p + 5]);
    vdu_mat3t_mul(T, Ap, Ab); /* Ap^T Ab */
    vdu_mat3_mult(R, T, A0);  /* Ap^T Ab A0^T */
    *q = vd_tf_axis_angle(R, a);
    vdu_mat3_vec(wb, Ab, d->v + 6 * b + 3);
    vdu_mat3_vec(wp, Ap, d->v + 6 * p + 3);
    vdu_mat3_vec(ag, Ap, a);
    *qd = vdu_dot3(wb, ag) - vdu_dot3(wp, ag);
}

/* the Cardan angles q (z-y'-x'' about the parent's axes, from the design pose A0) of model body
 * b relative to model body p and their rates: omega_rel = e_z q0' + Rz e_y q1' + Rz Ry e_x q2'
 * (core/tree.h's spherical node) */
static void spherical_state(const struct vd_data *d, int b, int p, const double A0[9], double *q,
                            double *qd)
{
    double Ab[9], Ap[9], T[9], R[9], wb[3], wp[3], w[3], W[9], c[3][3], det;

    vdu_cardan_zyx(Ab, d->r[6 * b + 3], d->r[6 * b + 4], d->r[6 * b + 5]);
    vdu_cardan_zyx(Ap, d->r[6 * p + 3], d->r[6 * p + 4], d->r[6 * p + 5]);
    vdu_mat3t_mul(T, Ap, Ab);
    vdu_mat3_mult(R, T, A0);
    vdu_cardan_from_mat(q, R);
    vdu_mat3_vec(wb, T, d->v + 6 * b + 3); /* Ap^T Ab omega_b */
    memcpy(wp, d->v + 6 * p + 3, sizeof(wp));
    vdu_sub3(w, wb, wp);
    /* columns e_z, Rz e_y, Rz Ry e_x; solve by Cramer's rule */
    vdu_cardan_zyx(T, q[0], q[1], q[2]);
    W[0] = 0.0, W[3] = 0.0, W[6] = 1.0;
    W[1] = -sin(q[0]), W[4] = cos(q[0]), W[7] = 0.0;
    W[2] = T[0], W[5] = T[3], W[8] = T[6];
    for (int j = 0; j < 3; j++)
        c[j][0] = W[j], c[j][1] = W[3 + j], c[j][2] = W[6 + j];
    vdu_cross3(T, c[1], c[2]);
    det = vdu_dot3(c[0], T);
    qd[0] = vdu_dot3(w, T) / det;
    vdu_cross3(T, w, c[2]);
    qd[1] = vdu_dot3(c[0], T) / det;
    vdu_cross3(T, c[1], w);
    qd[2] = vdu_dot3(c[0], T) / det;
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
        } else if (n->type == VD_TREE_EMBEDDED && n->ctx == &ce->axle) {
            const struct vd_ce_axle *ax = &ce->axle;
            const int rb = ce->tb_model[n->parent];

            for (int s = 0; s < 2; s++)
                rel_angle(d, ce->tb_model[n->b0 + VD_DWC_NB * s], rb, ax->corner[s]->A0[VD_DWC_LCA],
                          ax->corner[s]->al, cd->q + n->off + s, cd->u + n->off + s);
            rel_angle(d, ax->body[0], rb, ax->A0[0], ax->pa, cd->q + n->off + 2,
                      cd->u + n->off + 2);
        } else if (n->type == VD_TREE_EMBEDDED && n->ctx == &ce->rack) {
            const struct vd_ce_rack *r = &ce->rack;
            const int rb = ce->tb_model[n->parent];

            for (int s = 0; s < 2; s++)
                if (r->nlc[s])
                    vd_nlc_coord(r->nlc[s], m, d, rb, cd->q + n->off + s, cd->u + n->off + s);
                else
                    rel_angle(d, ce->tb_model[n->b0 + VD_DWC_NB * s], rb,
                              r->corner[s]->A0[VD_DWC_LCA], r->corner[s]->al, cd->q + n->off + s,
                              cd->u + n->off + s);
            vd_ce_rack_coord(r, d, rb, cd->q + n->off + 2, cd->u + n->off + 2);
        } else if (n->type == VD_TREE_EMBEDDED && n->fn == vd_nlc_closure) {
            vd_nlc_coord(n->ctx, m, d, ce->tb_model[n->parent], cd->q + n->off, cd->u + n->off);
        } else if (n->type == VD_TREE_EMBEDDED) {
            const struct vd_dwc *dw = n->ctx;

            rel_angle(d, mb, ce->tb_model[n->parent], dw->A0[VD_DWC_LCA], dw->al, cd->q + n->off,
                      cd->u + n->off);
        } else if (n->type == VD_TREE_SPHERICAL) {
            spherical_state(d, mb, ce->tb_model[n->parent], t->body[n->b0].A0, cd->q + n->off,
                            cd->u + n->off);
        } else if (n->type == VD_TREE_REVOLUTE) {
            rel_angle(d, mb, ce->tb_model[n->parent], t->body[n->b0].A0, n->axis, cd->q + n->off,
                      cd->u + n->off);
        }
    }
    cd->synced = 1;
    cd->placed = 0;
    (void)m;
}
