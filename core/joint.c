/* core/joint.c - ideal joints as rows of five primitives: joint.h. With w the global angular
 * velocity of a side, a its lever (marker - CoM), p' = v + w x a and e' = w x e for a
 * marker axis, each primitive's g' = c_v1 . v1 + c_w1 . w1 + c_v2 . v2 + c_w2 . w2 and, as
 * w = A omega, the row over (v, omega) of a body is (c_v, A^T c_w). gamma collects the terms
 * of g'' that do not contain v' or omega' (w' = A omega' exactly, as w x w = 0). */
#include "joint.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinematics.h"

#include "vdmath.h"

/* wrap an angle to (-pi, pi] */
static double wrap_pi(double a)
{
    return a - 2.0 * M_PI * floor((a + M_PI) / (2.0 * M_PI));
}

/* the kinematics of one joint's two markers */
struct jkin {
    int b1, b2;
    const double *A1, *A2;     /* rotations (NULL: ground) */
    const double *a1, *a2;     /* levers CoM -> marker, global */
    const double *w1, *w2;     /* global angular velocities */
    const double *R1, *R2;     /* marker axes, row-major (column c = axis c), in d->mR */
    double d[3], dd[3];        /* p_i - p_j and its rate */
    double l2[3];              /* p_i - x2 = d + a2 */
    double cen[3];             /* w1 x (w1 x a1) - w2 x (w2 x a2): d'' without v' */
    bool g_only;               /* the values only (vd_joint_g): no rows, no velocities, and R1,
                                * R2 not formed (jaxis computes the axes a row reads) */
    double ma1[3], ma2[3];     /* g_only: the levers (a1, a2 point here) */
    const double *rot1, *rot2; /* g_only: the markers' axes in their bodies */
};

/* axis c of a row-major rotation */
static inline __attribute__((always_inline)) void axis(double e[3], const double R[9], int c)
{
    e[0] = R[c];
    e[1] = R[3 + c];
    e[2] = R[6 + c];
}

/* axis c of side 1 or 2's marker: R's column, or with g_only that column of A rot
 * computed alone by vdu_mat3_mul's expression (the same value, bit for bit) */
static inline __attribute__((always_inline)) void jaxis(double e[3], const struct jkin *k, int side,
                                                        int c)
{
    const double *A = side == 1 ? k->A1 : k->A2, *B = side == 1 ? k->rot1 : k->rot2;

    if (!k->g_only) {
        axis(e, side == 1 ? k->R1 : k->R2, c);
        return;
    }
    if (!A) {
        axis(e, B, c);
        return;
    }
    for (int i = 0; i < 3; i++)
        e[i] = A[3 * i] * B[c] + A[3 * i + 1] * B[3 + c] + A[3 * i + 2] * B[6 + c];
}

/* w x (w x a) */
static inline __attribute__((always_inline)) void cen_acc(double out[3], const double w[3],
                                                          const double a[3])
{
    double t[3];

    vdu_cross3(t, w, a);
    vdu_cross3(out, w, t);
}

/* store row r: value g, global coefficients (cv1, cw1, cv2, cw2) and gamma */
static inline __attribute__((always_inline)) void
put_row(const struct jkin *k, struct vd_data *d, int r, double g, const double cv1[3],
        const double cw1[3], const double cv2[3], const double cw2[3], double gam, bool want_gam)
{
    double *G = d->jG + 12 * (size_t)r;

    d->jg[r] = g;
    if (k->g_only)
        return;
    if (want_gam)
        d->jgam[r] = gam;
    /* every entry written once (a memset of the 12 first became a string instruction per
     * row: measured ~0.5 us of the HMMWV's 162 rows) */
    if (k->b1 != VD_GROUND) {
        memcpy(G, cv1, 3 * sizeof(double));
        vdu_mat3t_vec(G + 3, k->A1, cw1);
    } else {
        for (int c = 0; c < 6; c++)
            G[c] = 0.0;
    }
    if (k->b2 != VD_GROUND) {
        memcpy(G + 6, cv2, 3 * sizeof(double));
        vdu_mat3t_vec(G + 9, k->A2, cw2);
    } else {
        for (int c = 6; c < 12; c++)
            G[c] = 0.0;
    }
}

/* point k: g = e_k . d; c_v1 = e_k, c_w1 = a1 x e_k, c_v2 = -e_k, c_w2 = -(a2 x e_k);
 * gamma = e_k . cen */
static inline __attribute__((always_inline)) void row_point(const struct jkin *k, struct vd_data *d,
                                                            int r, int c, bool gam)
{
    double e[3] = {0, 0, 0}, cw1[3], cw2[3], cv2[3];

    e[c] = 1.0;
    vdu_cross3(cw1, k->a1, e);
    vdu_cross3(cw2, k->a2, e);
    vdu_scale3(cw2, -1.0, cw2);
    vdu_scale3(cv2, -1.0, e);
    put_row(k, d, r, k->d[c], e, cw1, cv2, cw2, gam ? k->cen[c] : 0.0, gam);
}

/* perp(a_i, b_j): g = a . b; with n = a x b, g' = n . (w1 - w2);
 * gamma = ((w1 x a) x b + a x (w2 x b)) . (w1 - w2) */
static inline __attribute__((always_inline)) void row_perp(const struct jkin *k, struct vd_data *d,
                                                           int r, int ca, int cb, bool gam)
{
    static const double zero[3];
    double a[3], b[3], n[3], nm[3], gm = 0.0;

    jaxis(a, k, 1, ca);
    jaxis(b, k, 2, cb);
    vdu_cross3(n, a, b);
    vdu_scale3(nm, -1.0, n);
    if (gam) {
        double wa[3], wb[3], t1[3], t2[3], dw[3];

        vdu_cross3(wa, k->w1, a);
        vdu_cross3(wb, k->w2, b);
        vdu_cross3(t1, wa, b);
        vdu_cross3(t2, a, wb);
        vdu_sub3(dw, k->w1, k->w2);
        gm = vdu_dot3(t1, dw) + vdu_dot3(t2, dw);
    }
    put_row(k, d, r, vdu_dot3(a, b), zero, n, zero, nm, gm, gam);
}

/* offset(b_j) - s: g = b . d - s; c_v1 = b, c_w1 = a1 x b, c_v2 = -b, c_w2 = b x l2;
 * gamma = (w2 x (w2 x b)) . d + 2 (w2 x b) . d' + b . cen */
static inline __attribute__((always_inline)) void
row_offset(const struct jkin *k, struct vd_data *d, int r, int cb, double s, bool gam)
{
    double b[3], cw1[3], cw2[3], bm[3], gm = 0.0;

    jaxis(b, k, 2, cb);
    vdu_cross3(cw1, k->a1, b);
    vdu_cross3(cw2, b, k->l2);
    vdu_scale3(bm, -1.0, b);
    if (gam) {
        double wb[3], wwb[3];

        vdu_cross3(wb, k->w2, b);
        vdu_cross3(wwb, k->w2, wb);
        gm = vdu_dot3(wwb, k->d) + 2.0 * vdu_dot3(wb, k->dd) + vdu_dot3(b, k->cen);
    }
    put_row(k, d, r, vdu_dot3(b, k->d) - s, b, cw1, bm, cw2, gm, gam);
}

/* distance: g = (d . d - L^2) / (2 L); g' = d . d' / L: c_v1 = d / L, c_w1 = a1 x d / L,
 * c_v2 = -d / L, c_w2 = -(a2 x d) / L; gamma = (d' . d' + d . cen) / L */
static inline __attribute__((always_inline)) void
row_distance(const struct jkin *k, struct vd_data *d, int r, double L, bool gam)
{
    double cv1[3], cw1[3], cv2[3], cw2[3], gm = 0.0;

    vdu_scale3(cv1, 1.0 / L, k->d);
    vdu_cross3(cw1, k->a1, cv1);
    vdu_scale3(cv2, -1.0, cv1);
    vdu_cross3(cw2, cv1, k->a2);
    if (gam)
        gm = (vdu_dot3(k->dd, k->dd) + vdu_dot3(k->d, k->cen)) / L;
    put_row(k, d, r, (vdu_dot3(k->d, k->d) - L * L) / (2.0 * L), cv1, cw1, cv2, cw2, gm, gam);
}

/* angle of x_i about z_j - s: with c = x_j . x_i, s = y_j . x_i, rho = c^2 + s^2,
 * pa = x_i x y_j, pb = x_i x x_j: c' = (w1 - w2) . pb, s' = (w1 - w2) . pa, so
 * g' = n . (w1 - w2), n = (c pa - s pb) / rho (= z_j when x_i is in the x_j y_j plane);
 * gamma = n' . (w1 - w2), n' = (c' pa + c pa' - s' pb - s pb' - n rho') / rho */
static inline __attribute__((always_inline)) void row_angle(const struct jkin *k, struct vd_data *d,
                                                            int r, double s0, bool gam)
{
    static const double zero[3];
    double xi[3], xj[3], yj[3], pa[3], pb[3], n[3], nm[3], c, s, rho, gm = 0.0;

    jaxis(xi, k, 1, 0);
    jaxis(xj, k, 2, 0);
    jaxis(yj, k, 2, 1);
    c = vdu_dot3(xj, xi);
    s = vdu_dot3(yj, xi);
    rho = c * c + s * s;
    vdu_cross3(pa, xi, yj);
    vdu_cross3(pb, xi, xj);
    for (int i = 0; i < 3; i++)
        n[i] = (c * pa[i] - s * pb[i]) / rho;
    vdu_scale3(nm, -1.0, n);
    if (gam) {
        double dw[3], wxi[3], wyj[3], wxj[3], t[3], dpa[3], dpb[3], cd, sd, rd, dn[3];

        vdu_sub3(dw, k->w1, k->w2);
        cd = vdu_dot3(dw, pb);
        sd = vdu_dot3(dw, pa);
        rd = 2.0 * (c * cd + s * sd);
        vdu_cross3(wxi, k->w1, xi);
        vdu_cross3(wyj, k->w2, yj);
        vdu_cross3(wxj, k->w2, xj);
        vdu_cross3(dpa, wxi, yj);
        vdu_cross3(t, xi, wyj);
        vdu_add3(dpa, dpa, t);
        vdu_cross3(dpb, wxi, xj);
        vdu_cross3(t, xi, wxj);
        vdu_add3(dpb, dpb, t);
        for (int i = 0; i < 3; i++)
            dn[i] = (cd * pa[i] + c * dpa[i] - sd * pb[i] - s * dpb[i] - n[i] * rd) / rho;
        gm = vdu_dot3(dn, dw);
    }
    put_row(k, d, r, wrap_pi(atan2(s, c) - s0), zero, n, zero, nm, gm, gam);
}

/* the position and lever of marker k from the body rotations in d->A and the positions r
 * (as vd_kinematics computes them); its axes: jaxis */
static inline __attribute__((always_inline)) void marker_pose(const struct vd_model *m,
                                                              const struct vd_data *d,
                                                              const double *r, int k, double p[3],
                                                              double a[3])
{
    const struct vd_marker *mk = &m->marker[k];
    const int b = mk->body;

    if (b == VD_GROUND) {
        memcpy(p, mk->pos, 3 * sizeof(double));
        memset(a, 0, 3 * sizeof(double));
        return;
    }
    vdu_mat3_vec(a, d->A + 9 * b, mk->s);
    vdu_add3(p, r + 6 * b, a);
}

/* the values only: the two markers' poses at r from d->A */
static inline __attribute__((always_inline)) void
joint_kin_pos(const struct vd_model *m, const struct vd_data *d, const double *r,
              const struct vd_joint *jt, struct jkin *k)
{
    double p1[3], p2[3];

    k->b1 = m->marker[jt->mk[0]].body;
    k->b2 = m->marker[jt->mk[1]].body;
    k->A1 = k->b1 != VD_GROUND ? d->A + 9 * k->b1 : NULL;
    k->A2 = k->b2 != VD_GROUND ? d->A + 9 * k->b2 : NULL;
    marker_pose(m, d, r, jt->mk[0], p1, k->ma1);
    marker_pose(m, d, r, jt->mk[1], p2, k->ma2);
    k->rot1 = m->marker[jt->mk[0]].rot;
    k->rot2 = m->marker[jt->mk[1]].rot;
    k->R1 = k->R2 = NULL;
    k->a1 = k->ma1;
    k->a2 = k->ma2;
    k->w1 = k->w2 = NULL;
    vdu_sub3(k->d, p1, p2);
    vdu_add3(k->l2, k->d, k->a2);
}

/* gam: with d', cen (what only the acceleration terms read) */
static inline __attribute__((always_inline)) void joint_kin(const struct vd_model *m,
                                                            const struct vd_data *d,
                                                            const struct vd_joint *jt,
                                                            struct jkin *k, bool gam)
{
    const int i = jt->mk[0], j = jt->mk[1];
    double c2[3];

    k->b1 = m->marker[i].body;
    k->b2 = m->marker[j].body;
    k->A1 = k->b1 != VD_GROUND ? d->A + 9 * k->b1 : NULL;
    k->A2 = k->b2 != VD_GROUND ? d->A + 9 * k->b2 : NULL;
    k->a1 = d->ma + 3 * i;
    k->a2 = d->ma + 3 * j;
    k->w1 = d->mw + 3 * i;
    k->w2 = d->mw + 3 * j;
    k->R1 = d->mR + 9 * (size_t)i;
    k->R2 = d->mR + 9 * (size_t)j;
    vdu_sub3(k->d, d->mp + 3 * i, d->mp + 3 * j);
    vdu_add3(k->l2, k->d, k->a2);
    if (!gam)
        return;
    vdu_sub3(k->dd, d->mpd + 3 * i, d->mpd + 3 * j);
    cen_acc(k->cen, k->w1, k->a1);
    cen_acc(c2, k->w2, k->a2);
    vdu_sub3(k->cen, k->cen, c2);
}

static double driven_value(const struct vd_joint *jt, const double *u)
{
    return jt->offset + (jt->input >= 0 ? jt->gain * u[jt->input] : 0.0);
}

/* r: the values only, the markers' poses from r and d->A; NULL: from the marker arrays.
 * g_only: r_pos given. Inlined with constant gam and g_only (the three instances below), so that
 * what a caller does not ask for (the rows, gamma) is not computed; the values asked for are
 * computed by the same operations in every instance */
static inline __attribute__((always_inline)) void joint_eval(const struct vd_model *m,
                                                             struct vd_data *d, const double *u,
                                                             bool gam, const double *r_pos,
                                                             const bool g_only)
{
    for (int e = 0; e < m->njoint; e++) {
        const struct vd_joint *jt = &m->joint[e];
        int r = m->joint_row[e];
        struct jkin k;

        k.g_only = g_only;
        if (g_only)
            joint_kin_pos(m, d, r_pos, jt, &k);
        else
            joint_kin(m, d, jt, &k, gam);
        switch (jt->type) {
        case VD_JOINT_SPHERICAL:
        case VD_JOINT_REVOLUTE:
        case VD_JOINT_UNIVERSAL:
        case VD_JOINT_FIXED:
            for (int c = 0; c < 3; c++)
                row_point(&k, d, r++, c, gam);
            if (jt->type == VD_JOINT_UNIVERSAL) {
                row_perp(&k, d, r++, 0, 1, gam);
            } else if (jt->type != VD_JOINT_SPHERICAL) {
                row_perp(&k, d, r++, 0, 2, gam);
                row_perp(&k, d, r++, 1, 2, gam);
                if (jt->type == VD_JOINT_FIXED)
                    row_perp(&k, d, r++, 0, 1, gam);
            }
            break;
        case VD_JOINT_CYLINDRICAL:
        case VD_JOINT_PRISMATIC:
            row_perp(&k, d, r++, 0, 2, gam);
            row_perp(&k, d, r++, 1, 2, gam);
            row_offset(&k, d, r++, 0, 0.0, gam);
            row_offset(&k, d, r++, 1, 0.0, gam);
            if (jt->type == VD_JOINT_PRISMATIC)
                row_perp(&k, d, r++, 0, 1, gam);
            break;
        case VD_JOINT_ORIENTATION:
            row_perp(&k, d, r++, 0, 2, gam);
            row_perp(&k, d, r++, 1, 2, gam);
            row_perp(&k, d, r++, 0, 1, gam);
            break;
        case VD_JOINT_DISTANCE:
            row_distance(&k, d, r, jt->length, gam);
            break;
        case VD_JOINT_DRIVEN_TRANSLATION:
            row_offset(&k, d, r, 2, driven_value(jt, u), gam);
            break;
        case VD_JOINT_DRIVEN_ROTATION:
            row_angle(&k, d, r, driven_value(jt, u), gam);
            break;
        default:
            break;
        }
    }
}

void vd_joint_eval(const struct vd_model *m, struct vd_data *d, const double *u, bool gam)
{
    if (gam)
        joint_eval(m, d, u, true, NULL, false);
    else
        joint_eval(m, d, u, false, NULL, false);
}

void vd_joint_g(const struct vd_model *m, struct vd_data *d, const double *r, const double *u)
{
    joint_eval(m, d, u, false, r, true);
}

void vd_joint_target(const struct vd_model *m, const double *u, double *s)
{
    memset(s, 0, (size_t)m->nc * sizeof(double));
    for (int e = 0; e < m->njoint; e++) {
        const struct vd_joint *jt = &m->joint[e];

        if (jt->type == VD_JOINT_DRIVEN_TRANSLATION || jt->type == VD_JOINT_DRIVEN_ROTATION)
            s[m->joint_row[e]] = driven_value(jt, u);
    }
}

void vd_joint_G_mul(const struct vd_model *m, const struct vd_data *d, const double *x, double *y)
{
    for (int r = 0; r < m->nc; r++) {
        const double *G = d->jG + 12 * (size_t)r;
        const int b1 = m->jrow_body[2 * r], b2 = m->jrow_body[2 * r + 1];
        double acc = 0.0;

        if (b1 != VD_GROUND)
            for (int c = 0; c < 6; c++)
                acc += G[c] * x[6 * b1 + c];
        if (b2 != VD_GROUND)
            for (int c = 0; c < 6; c++)
                acc += G[6 + c] * x[6 * b2 + c];
        y[r] = acc;
    }
}

void vd_joint_Gt_mul_add(const struct vd_model *m, const struct vd_data *d, const double *l,
                         double *y)
{
    for (int r = 0; r < m->nc; r++) {
        const double *G = d->jG + 12 * (size_t)r;
        const int b1 = m->jrow_body[2 * r], b2 = m->jrow_body[2 * r + 1];

        if (b1 != VD_GROUND)
            for (int c = 0; c < 6; c++)
                y[6 * b1 + c] += G[c] * l[r];
        if (b2 != VD_GROUND)
            for (int c = 0; c < 6; c++)
                y[6 * b2 + c] += G[6 + c] * l[r];
    }
}

void vd_joint_G_dense(const struct vd_model *m, const struct vd_data *d, double *G, int ld)
{
    for (int c = 0; c < m->nq; c++)
        memset(G + (size_t)ld * (size_t)c, 0, (size_t)m->nc * sizeof(double));
    for (int r = 0; r < m->nc; r++) {
        const double *Gr = d->jG + 12 * (size_t)r;
        const int b[2] = {m->jrow_body[2 * r], m->jrow_body[2 * r + 1]};

        /* the two sides are distinct bodies (vd_model_add_joint) */
        for (int s = 0; s < 2; s++)
            if (b[s] != VD_GROUND)
                for (int c = 0; c < 6; c++)
                    G[(size_t)r + (size_t)ld * (size_t)(6 * b[s] + c)] += Gr[6 * s + c];
    }
}

double vd_joint_residual(const struct vd_model *m, const struct vd_data *d)
{
    double mx = 0.0;

    /* fmax(mx, |g|) without the library call (GCC keeps fmax a call for its NaN and signed
     * zero rules): mx is never NaN and |g| >= +0, so a NaN |g| keeps mx as fmax does and the
     * rest is the larger value, bit for bit */
    for (int r = 0; r < m->nc; r++) {
        const double a = fabs(d->jg[r]);

        if (a > mx)
            mx = a;
    }
    return mx;
}

/* ---- redundancy (init-time) ------------------------------------------------------------
 * Modified Gram-Schmidt over the rows in order, with the combination of original rows that
 * forms each basis vector (T, q_k = sum_j T_kj G_j): a row whose remainder is below
 * VD_JOINT_RANK_TOL of its norm depends on the earlier rows; its coefficients over them name
 * the joints involved. Rows of independent joints stay O(1) apart at a generic state; a
 * dependency leaves a remainder of rounding size (~1e-15), so 1e-8 separates them with a
 * wide margin both ways. */
#define VD_JOINT_RANK_TOL 1e-8

int vd_joint_check(const struct vd_model *m, int *bad, char *err, size_t errlen)
{
    const int nq = m->nq, nc = m->nc;
    struct vd_data *d;
    double *G, *Q, *T, *c, *u;
    int nk = 0, rc = 0;

    *bad = -1;
    if (!nc)
        return 0;
    d = vd_data_new(m);
    G = calloc((size_t)nc * (size_t)nq, sizeof(double));
    Q = calloc((size_t)nc * (size_t)nq, sizeof(double));
    T = calloc((size_t)nc * (size_t)nc, sizeof(double));
    c = calloc((size_t)nc, sizeof(double));
    u = calloc((size_t)m->ninput + 1, sizeof(double));
    if (!d || !G || !Q || !T || !c || !u) {
        snprintf(err, errlen, "out of memory");
        rc = -ENOMEM;
        goto out_free;
    }
    vd_kinematics(m, d, d->r, d->v);
    vd_joint_eval(m, d, u, false);
    /* rows of G, row-major here (row r at G + nq r) */
    for (int r = 0; r < nc; r++)
        for (int s = 0; s < 2; s++) {
            const int b = m->jrow_body[2 * r + s];

            if (b != VD_GROUND)
                for (int k = 0; k < 6; k++)
                    G[(size_t)nq * (size_t)r + (size_t)(6 * b + k)] +=
                        d->jG[12 * (size_t)r + (size_t)(6 * s + k)];
        }
    for (int r = 0; r < nc; r++) {
        const double *g = G + (size_t)nq * (size_t)r;
        double *q = Q + (size_t)nq * (size_t)nk, *t = T + (size_t)nc * (size_t)nk;
        double n0 = 0.0, n1 = 0.0;

        memcpy(q, g, (size_t)nq * sizeof(double));
        memset(t, 0, (size_t)nc * sizeof(double));
        t[r] = 1.0;
        for (int i = 0; i < nq; i++)
            n0 += g[i] * g[i];
        for (int pass = 0; pass < 2; pass++) /* twice: reorthogonalization */
            for (int k = 0; k < nk; k++) {
                const double *qk = Q + (size_t)nq * (size_t)k, *tk = T + (size_t)nc * (size_t)k;
                double a = 0.0;

                for (int i = 0; i < nq; i++)
                    a += qk[i] * q[i];
                for (int i = 0; i < nq; i++)
                    q[i] -= a * qk[i];
                for (int j = 0; j < nc; j++)
                    t[j] -= a * tk[j];
            }
        for (int i = 0; i < nq; i++)
            n1 += q[i] * q[i];
        if (n0 == 0.0 || sqrt(n1) <= VD_JOINT_RANK_TOL * sqrt(n0)) {
            /* g_r = sum_j (-t_j / t_r) g_j: the joints with a coefficient name the loop */
            const int e = m->jrow_joint[r];
            size_t at;

            at = (size_t)snprintf(
                err, errlen, "joint %s: redundant constraints (row %d of its %d depends on ",
                m->joint[e].name, r - m->joint_row[e] + 1, m->joint_row[e + 1] - m->joint_row[e]);
            if (n0 == 0.0 && at < errlen) {
                at += (size_t)snprintf(err + at, errlen - at, "nothing: it constrains nothing");
            } else {
                int last = -1, named = 0;

                for (int j = 0; j < r && at < errlen; j++) {
                    const int ej = m->jrow_joint[j];

                    if (fabs(t[j]) > 1e-6 && ej != last && ej != e) {
                        at += (size_t)snprintf(err + at, errlen - at, "%s%s", named ? ", " : "",
                                               m->joint[ej].name);
                        last = ej;
                        named++;
                    }
                }
                if (!named && at < errlen)
                    at += (size_t)snprintf(err + at, errlen - at, "its own other rows");
            }
            if (at < errlen)
                snprintf(err + at, errlen - at,
                         "): remove a rotation from one of them (a spherical for a revolute) "
                         "or use a bushing");
            *bad = e;
            rc = -EINVAL;
            goto out_free;
        }
        for (int i = 0; i < nq; i++)
            q[i] /= sqrt(n1);
        for (int j = 0; j < nc; j++)
            t[j] /= sqrt(n1);
        nk++;
    }
out_free:
    free(u);
    free(c);
    free(T);
    free(Q);
    free(G);
    vd_data_free(d);
    return rc;
}
