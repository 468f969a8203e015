/* core/ce_rack.c - the CE form's rack-and-pinion steered axle (ce.h): the two double wishbones
 * whose tie rods hang on the rack, the rack, the pinion, the intermediate shaft and the column
 * on one node of three coordinates (both travels, the rack's travel s). The rack translates
 * along its guide; the gear is rigid (the coupler steering.gear's ratio: the pinion turns by
 * s / ratio about its bearing's axis); the intermediate shaft and the column follow through
 * the two Cardan joints in closed form: a Cardan joint keeps the cross pin x_i of one shaft
 * normal to the pin y_j of the next, (R_i x_i) . (Rot(a, phi) y_j) = 0 with y_j normal to the
 * next shaft's axis a, so tan phi = -(u . y_j) / (u . (a x y_j)), u = R_i x_i: the shaft's
 * angle from the pinion's, the column's from the shaft's (the universal joints' angle
 * ratio, 1.13 at the centre for the sedan's 29 deg bend). Written in Taylor arithmetic
 * (core/tskin.h) in the rack travel alone, the steering bodies' motion columns, ds/dq, kappa
 * and d kappa/dq are exact. The steering wheel is not in the node: it turns on its own
 * revolute (the torsion bar between it and the column is a force element). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ce.h"
#include "treeform.h"
#include "tskin.h"
#include "vdmath.h"

typedef struct vd_ts ts;

/* a marker's position and axis k in the root frame (Ar, xr: the root's CoM pose) */
static void mk_root(const struct vd_model *m, int k, const double Ar[9], const double xr[3],
                    double pos[3], int axis, double ax[3])
{
    const struct vd_marker *mk = &m->marker[k];
    double A[9], x[3], t[3];

    vd_tf_com_pose(m, mk->body, A, x);
    vdu_mat3_vec(t, A, mk->s);
    vdu_add3(t, t, x);
    vdu_sub3(t, t, xr);
    vdu_mat3t_vec(pos, Ar, t);
    if (ax) {
        const double e[3] = {mk->rot[axis], mk->rot[3 + axis], mk->rot[6 + axis]};

        vdu_mat3_vec(t, A, e);
        vdu_mat3t_vec(ax, Ar, t);
    }
}

static void unit(double r[3], const double a[3])
{
    vdu_scale3(r, 1.0 / sqrt(vdu_dot3(a, a)), a);
}

int vd_ce_rack_init(struct vd_ce_rack *r, const struct vd_model *m, int root, char *err,
                    size_t errlen)
{
    static const char *const bn[4] = {"steering.rack", "steering.pinion",
                                      "steering.intermediate_shaft", "steering.column"};
    const int bg = vd_model_find_bushing(m, "steering.rack_guide");
    const int bp = vd_model_find_bushing(m, "steering.pinion_bearing");
    const int jl = vd_model_find_joint(m, "steering.ujoint_lower");
    const int ju = vd_model_find_joint(m, "steering.ujoint_upper");
    const int jc = vd_model_find_joint(m, "steering.column_bearing_pivot");
    const int js = vd_model_find_joint(m, "steering.rack_slide");
    double Ar[9], xr[3], t[3], pl[3], pu[3], dummy[3];
    int cp = -1;

    memset(r->A0, 0, sizeof(r->A0));
    for (int k = 0; k < m->ncoupler; k++)
        if (m->coupler[k].bush[0] == bg && m->coupler[k].bush[1] == bp &&
            m->coupler[k].comp[0] == 0 && m->coupler[k].comp[1] == 3)
            cp = k;
    if (bg < 0 || bp < 0 || cp < 0 || jl < 0 || ju < 0 || jc < 0 || js < 0 ||
        m->joint[jl].type != VD_JOINT_UNIVERSAL || m->joint[ju].type != VD_JOINT_UNIVERSAL ||
        !(fabs(m->coupler[cp].ratio) > 0.0)) {
        snprintf(err, errlen,
                 "formulation ce: the rack_pinion steering needs connection: joints (its "
                 "rack_slide, column_bearing_pivot, two Cardan joints and the gear)");
        return -EINVAL;
    }
    for (int b = 0; b < 4; b++) {
        double A[9], x[3];

        r->body[b] = vd_model_find_body(m, bn[b]);
        if (r->body[b] < 0) {
            snprintf(err, errlen, "formulation ce: no body %s", bn[b]);
            return -EINVAL;
        }
        vd_tf_com_pose(m, r->body[b], A, x);
        vd_tf_com_pose(m, root, Ar, xr);
        vdu_mat3t_mul(r->A0[b], Ar, A);
        vdu_sub3(t, x, xr);
        vdu_mat3t_vec(r->x0[b], Ar, t);
    }
    r->ratio = m->coupler[cp].ratio;
    /* the rack's travel and the pinion's turn: the coupler's components (x, rx of the mount
     * side markers) */
    mk_root(m, m->bush[bg].mk[1], Ar, xr, dummy, 0, r->d);
    mk_root(m, m->bush[bp].mk[1], Ar, xr, r->pc, 0, r->pa);
    unit(r->d, r->d);
    unit(r->pa, r->pa);
    {
        double sa[3];

        mk_root(m, m->joint[js].mk[1], Ar, xr, dummy, 2, sa);
        vdu_cross3(t, sa, r->d);
        if (sqrt(vdu_dot3(t, t)) > 1e-9) {
            snprintf(err, errlen,
                     "formulation ce: the rack slides across its guide's coordinate: not embedded");
            return -EINVAL;
        }
    }
    /* the Cardan joints: the pins (x of marker i, y of marker j) and the centres; the shaft
     * turns about the line through them, the column about its bearing */
    mk_root(m, m->joint[jl].mk[0], Ar, xr, pl, 0, r->nl);
    mk_root(m, m->joint[jl].mk[1], Ar, xr, dummy, 1, r->yl);
    mk_root(m, m->joint[ju].mk[0], Ar, xr, pu, 0, r->nu);
    mk_root(m, m->joint[ju].mk[1], Ar, xr, dummy, 1, r->yu);
    mk_root(m, m->joint[jc].mk[1], Ar, xr, r->cc, 2, r->ca);
    unit(r->ca, r->ca);
    vdu_sub3(t, pl, pu);
    unit(r->ia, t);
    memcpy(r->ic, pu, sizeof(r->ic));
    if (fabs(vdu_dot3(r->yl, r->ia)) > 1e-9 || fabs(vdu_dot3(r->yu, r->ca)) > 1e-9 ||
        fabs(vdu_dot3(r->nl, r->yl)) > 1e-9 || fabs(vdu_dot3(r->nu, r->yu)) > 1e-9) {
        snprintf(err, errlen,
                 "formulation ce: the steering's Cardan pins are not normal to their shafts");
        return -EINVAL;
    }
    {
        double a[3];

        vdu_cross3(a, r->ia, r->yl);
        r->sl = vdu_dot3(r->nl, a) > 0.0 ? 1.0 : -1.0;
        vdu_cross3(a, r->ca, r->yu);
        r->su = vdu_dot3(r->nu, a) > 0.0 ? 1.0 : -1.0;
    }
    return 0;
}

/* the angle phi about the unit axis a that keeps u normal to Rot(a, phi) y (y normal to a),
 * the branch through 0 at the design pose (sg) */
static ts cardan(const ts u[3], const double a[3], const double y[3], double sg)
{
    ts yc[3], ay[3];
    double t[3];

    vdu_tsk_const3(yc, y);
    vdu_cross3(t, a, y);
    vdu_tsk_const3(ay, t);
    return vdu_ts_atan2(vdu_ts_scale(-sg, vdu_ts_dot3(u, yc)),
                        vdu_ts_scale(sg, vdu_ts_dot3(u, ay)));
}

/* a body turning by R about the point c: R A0, c + R (x0 - c) */
static void turn(ts R[9], ts X[3], const ts Rb[9], const double c[3], const double A0[9],
                 const double x0[3])
{
    ts cc[3];

    vdu_tsk_const3(cc, c);
    vdu_tsk_mm(R, Rb, A0);
    vdu_tsk_place(X, cc, Rb, x0, c);
}

int vd_ce_rack_closure(const void *ctx, const double *q, const double *qd, struct vd_tree_rel *rel)
{
    const struct vd_ce_rack *r = ctx;
    const double s2 = qd[2] * qd[2];
    ts s, Rp[9], Ri[9], Rc[9], u[3], R[4][9], X[4][3], ph;

    /* the corners on (travel, rack travel): their 2-coordinate columns into 3 (the tree's
     * mf_only request passed on) */
    for (int k = 0; k < 2; k++)
        if (r->nlc[k] ? vd_nlc_closure_in3(r->nlc[k], k, q, qd, rel[0].mf_only, &rel[r->off[k]])
                      : vd_dwc_closure_in3(r->corner[k], k, q, qd, rel[0].mf_only, &rel[r->off[k]]))
            return -EDOM;
    /* the steering chain in the rack travel alone, at unit rate (kappa scales with s'^2):
     * rack, pinion, intermediate shaft, column */
    s = vdu_ts_const(q[2]);
    s.c[VD_TS_T] = 1.0;
    s.c[VD_TS_E] = 1.0;
    for (int i = 0; i < 9; i++)
        R[0][i] = vdu_ts_const(r->A0[0][i]);
    for (int i = 0; i < 3; i++)
        X[0][i] = vdu_ts_add(vdu_ts_const(r->x0[0][i]), vdu_ts_scale(r->d[i], s));
    vdu_tsk_rot(Rp, r->pa, vdu_ts_scale(1.0 / r->ratio, s));
    turn(R[1], X[1], Rp, r->pc, r->A0[1], r->x0[1]);
    vdu_tsk_mv(u, Rp, r->nl);
    ph = cardan(u, r->ia, r->yl, r->sl);
    vdu_tsk_rot(Ri, r->ia, ph);
    turn(R[2], X[2], Ri, r->ic, r->A0[2], r->x0[2]);
    vdu_tsk_mv(u, Ri, r->nu);
    ph = cardan(u, r->ca, r->yu, r->su);
    vdu_tsk_rot(Rc, r->ca, ph);
    turn(R[3], X[3], Rc, r->cc, r->A0[3], r->x0[3]);
    for (int b = 0; b < 4; b++) {
        struct vd_tree_rel *o = &rel[r->off[2] + b];
        double sw[6], dV[6], ka[6], dka[6];

        vdu_tsk_extract(R[b], X[b], sw, dV, ka, dka);
        memset(o->s, 0, 18 * sizeof(double));
        memset(o->ds, 0, 54 * sizeof(double));
        memset(o->dkappa, 0, 18 * sizeof(double));
        memcpy(o->s + 12, sw, sizeof(sw));
        memcpy(o->ds + 6 * (2 + 3 * 2), dV, sizeof(dV));
        for (int i = 0; i < 6; i++) {
            o->kappa[i] = s2 * ka[i];
            o->dkappa[12 + i] = s2 * dka[i];
        }
        for (int i = 0; i < 9; i++)
            o->A[i] = R[b][i].c[VD_TS_1];
        for (int i = 0; i < 3; i++)
            o->x[i] = X[b][i].c[VD_TS_1];
    }
    return 0;
}

void vd_ce_rack_coord(const struct vd_ce_rack *r, const struct vd_data *d, int root, double *s,
                      double *sd)
{
    const double *rp = d->r + 6 * root, *vp = d->v + 6 * root;
    const double *rk = d->r + 6 * r->body[0], *vk = d->v + 6 * r->body[0];
    double Ap[9], t[3], x[3], u[3], w[3];

    /* the rack's CoM in the root's frame: x = Ap^T (x_r - x_p), x' = Ap^T (v_r - v_p) - w x x */
    vdu_cardan_zyx(Ap, rp[3], rp[4], rp[5]);
    vdu_sub3(t, rk, rp);
    vdu_mat3t_vec(x, Ap, t);
    vdu_sub3(t, vk, vp);
    vdu_mat3t_vec(u, Ap, t);
    vdu_cross3(w, vp + 3, x);
    vdu_sub3(u, u, w);
    vdu_sub3(t, x, r->x0[0]);
    *s = vdu_dot3(r->d, t);
    *sd = vdu_dot3(r->d, u);
}
