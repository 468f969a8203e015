/* core/kinematics.c - body and marker kinematics (kinematics.h); the perturbation notation
 * of the element Jacobians is in elem.h. */
#include "kinematics.h"

#include <math.h>
#include <string.h>

#include "vdmath.h"

void vd_cardan_E(double E[9], double ay, double ax)
{
    const double cy = cos(ay), sy = sin(ay), cx = cos(ax), sx = sin(ax);

    E[0] = -sy;
    E[1] = 0.0;
    E[2] = 1.0;
    E[3] = cy * sx;
    E[4] = cx;
    E[5] = 0.0;
    E[6] = cy * cx;
    E[7] = -sx;
    E[8] = 0.0;
}

/* E^-1 from the sines and cosines of the Cardan angles (ic = 1 / cos ay) */
static inline void einv_cs(double Ei[9], double sy, double cx, double sx, double ic)
{
    Ei[0] = 0.0;
    Ei[1] = sx * ic;
    Ei[2] = cx * ic;
    Ei[3] = 0.0;
    Ei[4] = cx;
    Ei[5] = -sx;
    Ei[6] = 1.0;
    Ei[7] = sx * sy * ic;
    Ei[8] = cx * sy * ic;
}

void vd_cardan_Einv(double Ei[9], double ay, double ax)
{
    const double cy = cos(ay), sy = sin(ay), cx = cos(ax), sx = sin(ax);
    const double ic = 1.0 / cy;

    einv_cs(Ei, sy, cx, sx, ic);
}

void vd_rotvec(double th[3], double Jinv[9], const double R[9])
{
    double q[4], n, ang, s, phi, c2, S[9], S2[9];
    const double tr = R[0] + R[4] + R[8];

    /* quaternion (Shepperd), w >= 0 */
    if (tr > R[0] && tr > R[4] && tr > R[8]) {
        double t = sqrt(1.0 + tr) * 2.0;
        q[0] = 0.25 * t;
        q[1] = (R[7] - R[5]) / t;
        q[2] = (R[2] - R[6]) / t;
        q[3] = (R[3] - R[1]) / t;
    } else if (R[0] > R[4] && R[0] > R[8]) {
        double t = sqrt(1.0 + R[0] - R[4] - R[8]) * 2.0;
        q[0] = (R[7] - R[5]) / t;
        q[1] = 0.25 * t;
        q[2] = (R[1] + R[3]) / t;
        q[3] = (R[2] + R[6]) / t;
    } else if (R[4] > R[8]) {
        double t = sqrt(1.0 + R[4] - R[0] - R[8]) * 2.0;
        q[0] = (R[2] - R[6]) / t;
        q[1] = (R[1] + R[3]) / t;
        q[2] = 0.25 * t;
        q[3] = (R[5] + R[7]) / t;
    } else {
        double t = sqrt(1.0 + R[8] - R[0] - R[4]) * 2.0;
        q[0] = (R[3] - R[1]) / t;
        q[1] = (R[2] + R[6]) / t;
        q[2] = (R[5] + R[7]) / t;
        q[3] = 0.25 * t;
    }
    if (q[0] < 0.0)
        for (int i = 0; i < 4; i++)
            q[i] = -q[i];
    n = sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    ang = 2.0 * atan2(n, q[0]);
    s = n > 1e-12 ? ang / n : 2.0 / q[0];
    th[0] = s * q[1];
    th[1] = s * q[2];
    th[2] = s * q[3];

    /* J_l^-1 = I - skew(th)/2 + c2 skew(th)^2, c2 = 1/phi^2 - (1 + cos phi)/(2 phi sin phi);
     * with the unit quaternion, 1 + cos phi = 2 w^2 and sin phi = 2 w n: no sin/cos call */
    phi = ang;
    if (phi < 1e-4)
        c2 = 1.0 / 12.0 + phi * phi / 720.0;
    else
        c2 = 1.0 / (phi * phi) - q[0] / (2.0 * phi * n);
    vdu_skew(S, th);
    vdu_mat3_mul(S2, S, S);
    for (int i = 0; i < 9; i++)
        Jinv[i] = -0.5 * S[i] + c2 * S2[i];
    Jinv[0] += 1.0;
    Jinv[4] += 1.0;
    Jinv[8] += 1.0;
}

/* body b's A, Ei, T, angular velocity and the anchor of vd_kinematics_pos at (r, v) */
static inline void body_kinematics(struct vd_data *d, const double *r, const double *v, int b)
{
    const double *rb = r + 6 * b, *vb = v + 6 * b;
    const double cz = cos(rb[3]), sz = sin(rb[3]), cy = cos(rb[4]), sy = sin(rb[4]);
    const double cx = cos(rb[5]), sx = sin(rb[5]), ic = 1.0 / cy;
    double *A = d->A + 9 * b, *Ei = d->Ei + 9 * b, *T = d->T + 9 * b;
    double *sc = d->bsc + 6 * b, *ang = d->bang + 3 * b;

    /* the anchor of vd_kinematics_pos */
    ang[0] = rb[3];
    ang[1] = rb[4];
    ang[2] = rb[5];
    sc[0] = cz;
    sc[1] = sz;
    sc[2] = cy;
    sc[3] = sy;
    sc[4] = cx;
    sc[5] = sx;

    /* one sine and cosine per angle: A = Rz Ry Rx (vdu_cardan_zyx), Ei (vd_cardan_Einv),
     * T = A E = [e_z, Rz e_y, Rz Ry e_x] (global axes of the three angle rates) */
    vdu_cardan_zyx_cs(A, cz, sz, cy, sy, cx, sx);
    einv_cs(Ei, sy, cx, sx, ic);
    T[0] = 0.0;
    T[1] = -sz;
    T[2] = cz * cy;
    T[3] = 0.0;
    T[4] = cz;
    T[5] = sz * cy;
    T[6] = 1.0;
    T[7] = 0.0;
    T[8] = -sy;
    vdu_mat3_vec(d->wg + 3 * b, A, vb + 3);
    if (fabs(rb[4]) > 85.0 * M_PI / 180.0)
        d->warn[VD_WARN_CARDAN]++;
}

void vd_body_kinematics(const struct vd_model *m, struct vd_data *d, const double *r,
                        const double *v)
{
    d->kin_ok = 0;
    for (int b = 0; b < m->nbody; b++)
        body_kinematics(d, r, v, b);
}

void vd_body_kinematics_ei(const struct vd_model *m, struct vd_data *d, const double *r)
{
    d->kin_ok = 0;
    for (int b = 0; b < m->nbody; b++) {
        const double *rb = r + 6 * b;
        const double cy = cos(rb[4]), sy = sin(rb[4]), cx = cos(rb[5]), sx = sin(rb[5]);
        const double ic = 1.0 / cy;
        double *Ei = d->Ei + 9 * b;

        einv_cs(Ei, sy, cx, sx, ic); /* as vd_body_kinematics */
        if (fabs(rb[4]) > 85.0 * M_PI / 180.0)
            d->warn[VD_WARN_CARDAN]++;
    }
}

/* marker k's position, axes, velocity, angular velocity and arm from its body's kinematics */
static inline void marker_kinematics(const struct vd_model *m, struct vd_data *d, const double *r,
                                     const double *v, int k)
{
    const struct vd_marker *mk = &m->marker[k];
    double *p = d->mp + 3 * k, *R = d->mR + 9 * k, *pd = d->mpd + 3 * k;
    double *w = d->mw + 3 * k, *a = d->ma + 3 * k;
    int b = mk->body;

    if (b == VD_GROUND) {
        memcpy(p, mk->pos, 3 * sizeof(double));
        memcpy(R, mk->rot, 9 * sizeof(double));
        memset(pd, 0, 3 * sizeof(double));
        memset(w, 0, 3 * sizeof(double));
        memset(a, 0, 3 * sizeof(double));
        return;
    }
    vdu_mat3_vec(a, d->A + 9 * b, mk->s);
    vdu_add3(p, r + 6 * b, a);
    vdu_mat3_mul(R, d->A + 9 * b, mk->rot);
    memcpy(w, d->wg + 3 * b, 3 * sizeof(double));
    vdu_cross3(pd, w, a);
    vdu_add3(pd, pd, v + 6 * b);
}

void vd_kinematics(const struct vd_model *m, struct vd_data *d, const double *r, const double *v)
{
    const size_t nq = (size_t)m->nq * sizeof(double);

    /* the same state as the last full evaluation, nothing written since: the same values */
    if (d->kin_ok && !memcmp(d->kin_r, r, nq) && !memcmp(d->kin_v, v, nq))
        return;
    vd_body_kinematics(m, d, r, v);
    for (int k = 0; k < m->nmarker; k++)
        marker_kinematics(m, d, r, v, k);
    memcpy(d->kin_r, r, nq);
    memcpy(d->kin_v, v, nq);
    d->kin_ok = 1;
}

void vd_kinematics_sel(const struct vd_model *m, struct vd_data *d, const double *r,
                       const double *v, const int *mk, int nmk, const int *bd, int nbd)
{
    const size_t nq = (size_t)m->nq * sizeof(double);

    /* a full evaluation of the same state has the selected markers too */
    if (d->kin_ok && !memcmp(d->kin_r, r, nq) && !memcmp(d->kin_v, v, nq))
        return;
    if (bd) {
        d->kin_ok = 0; /* not every body's, not every marker's */
        for (int i = 0; i < nbd; i++)
            body_kinematics(d, r, v, bd[i]);
    } else {
        vd_body_kinematics(m, d, r, v); /* kin_ok 0: not every marker's */
    }
    for (int i = 0; i < nmk; i++)
        marker_kinematics(m, d, r, v, mk[i]);
}

/* cos and sin of a + e from those of a (c, s) for |e| <= VD_NEAR_MAX: the Taylor series of
 * sin e and cos e - 1 to e^13 and e^14, whose remainders are below e^15 / 15! <= 7e-22 at
 * |e| = 0.25, far under the rounding of their values; then cos(a + e) = c + (c (cos e - 1) -
 * s sin e) and sin(a + e) = s + (s (cos e - 1) + c sin e): each within 3 u of the exact
 * value (the sum of the rounded terms, |c| + |s| <= sqrt 2), against libm's 0.5 u */
#define VD_NEAR_MAX 0.25
typedef double vd_v2 __attribute__((vector_size(2 * sizeof(double))));

static inline void sincos_near(double c, double s, double e, double *cn, double *sn)
{
    /* the two nested series side by side, lane 0 sin e / e, lane 1 (cos e - 1) / (-e^2 / 2),
     * from the innermost factor out:
     *   se = e (1 - e2/6 (1 - e2/20 (1 - e2/42 (1 - e2/72 (1 - e2/110 (1 - e2/156))))))
     *   cm = -e2/2 (1 - e2/12 (1 - e2/30 (1 - e2/56 (1 - e2/90 (1 - e2/132 (1 - e2/182))))))
     * each lane by the same IEEE operations as the scalar expressions (a division is
     * correctly rounded in either form): the same values, with half the divisions issued
     * (they bound the projection's kinematics) */
    const double e2 = e * e;
    const vd_v2 x = {e2, e2}, one = {1.0, 1.0};
    vd_v2 t = one - x / (vd_v2){156.0, 182.0};

    t = one - x / (vd_v2){110.0, 132.0} * t;
    t = one - x / (vd_v2){72.0, 90.0} * t;
    t = one - x / (vd_v2){42.0, 56.0} * t;
    t = one - x / (vd_v2){20.0, 30.0} * t;
    t = one - x / (vd_v2){6.0, 12.0} * t;
    {
        const double se = e * t[0], cm = -e2 / 2.0 * t[1];

        *cn = c + (c * cm - s * se);
        *sn = s + (s * cm + c * se);
    }
}

static inline void sincos_from(const double *ang, const double *sc, double a, int k, double *c,
                               double *s)
{
    const double e = a - ang[k];

    if (fabs(e) <= VD_NEAR_MAX) {
        sincos_near(sc[2 * k], sc[2 * k + 1], e, c, s);
    } else {
        *c = cos(a);
        *s = sin(a);
    }
}

static inline void body_pos(struct vd_data *d, const double *r, int b)
{
    const double *rb = r + 6 * b, *ang = d->bang + 3 * b, *sc = d->bsc + 6 * b;
    double cz, sz, cy, sy, cx, sx, *A = d->A + 9 * b;

    sincos_from(ang, sc, rb[3], 0, &cz, &sz);
    sincos_from(ang, sc, rb[4], 1, &cy, &sy);
    sincos_from(ang, sc, rb[5], 2, &cx, &sx);
    vdu_cardan_zyx_cs(A, cz, sz, cy, sy, cx, sx); /* as vd_body_kinematics */
}

static inline void marker_pos(const struct vd_model *m, struct vd_data *d, const double *r, int k)
{
    const struct vd_marker *mk = &m->marker[k];
    double *p = d->mp + 3 * k, *R = d->mR + 9 * k, *a = d->ma + 3 * k;
    int b = mk->body;

    if (b == VD_GROUND) {
        memcpy(p, mk->pos, 3 * sizeof(double));
        memcpy(R, mk->rot, 9 * sizeof(double));
        memset(a, 0, 3 * sizeof(double));
        return;
    }
    vdu_mat3_vec(a, d->A + 9 * b, mk->s);
    vdu_add3(p, r + 6 * b, a);
    vdu_mat3_mul(R, d->A + 9 * b, mk->rot);
}

void vd_kinematics_pos(const struct vd_model *m, struct vd_data *d, const double *r, bool markers)
{
    d->kin_ok = 0;
    for (int b = 0; b < m->nbody; b++)
        body_pos(d, r, b);
    for (int k = 0; markers && k < m->nmarker; k++)
        marker_pos(m, d, r, k);
}

void vd_kinematics_pos_sel(const struct vd_model *m, struct vd_data *d, const double *r,
                           const int *bd, int nbd, const int *mk, int nmk)
{
    d->kin_ok = 0;
    for (int i = 0; i < nbd; i++)
        body_pos(d, r, bd[i]);
    for (int i = 0; i < nmk; i++)
        marker_pos(m, d, r, mk[i]);
}

void vd_kdot(const struct vd_model *m, const double *Ei, const double *v, double *rdot)
{
    for (int b = 0; b < m->nbody; b++) {
        const double *vb = v + 6 * b;
        double *rd = rdot + 6 * b;

        rd[0] = vb[0];
        rd[1] = vb[1];
        rd[2] = vb[2];
        vdu_mat3_vec(rd + 3, Ei + 9 * b, vb + 3);
    }
}
