/* core/eval.c - kinematics, force elements and their analytic Jacobians (chain rule).
 *
 * Notation (numerics.md §5): body i has CoM x_i, rotation A_i, body angular velocity
 * omega_i, global w_i = A_i omega_i. A marker with CoM offset s sits at p = x + a, a = A s,
 * with axes R = A C and velocity p' = v + w x a. Perturbations per body: delta x, delta pi
 * (global small rotation, delta A = skew(delta pi) A), delta v, delta omega (body). Then
 *   delta a  = -skew(a) delta pi
 *   delta p' = skew(a x w) delta pi + delta v - skew(a) A delta omega
 *   delta w  = -skew(w) delta pi + A delta omega
 * A two-marker element produces a global force f and torque tau on body 2 (the negatives on
 * body 1) with derivatives w.r.t. the 12 position columns [x1 pi1 x2 pi2] and the 12
 * velocity columns [v1 omega1 v2 omega2]; assemble_side() turns them into h and the 6x6
 * blocks of Jp and Jv. */
#include "eval.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "elem.h"
#include "tire.h"
#include "vdmath.h"

/* wrap an angle to (-pi, pi] */
static double wrap_pi(double a)
{
    return a - 2.0 * M_PI * floor((a + M_PI) / (2.0 * M_PI));
}

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

void vd_cardan_Einv(double Ei[9], double ay, double ax)
{
    const double cy = cos(ay), sy = sin(ay), cx = cos(ax), sx = sin(ax);
    const double ic = 1.0 / cy;

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

void vd_body_kinematics(const struct vd_model *m, struct vd_data *d, const double *r,
                        const double *v)
{
    for (int b = 0; b < m->nbody; b++) {
        const double *rb = r + 6 * b, *vb = v + 6 * b;
        const double cz = cos(rb[3]), sz = sin(rb[3]), cy = cos(rb[4]), sy = sin(rb[4]);
        const double cx = cos(rb[5]), sx = sin(rb[5]), ic = 1.0 / cy;
        double *A = d->A + 9 * b, *Ei = d->Ei + 9 * b, *T = d->T + 9 * b;

        /* one sine and cosine per angle: A = Rz Ry Rx (vdu_cardan_zyx), Ei (vd_cardan_Einv),
         * T = A E = [e_z, Rz e_y, Rz Ry e_x] (global axes of the three angle rates) */
        A[0] = cz * cy;
        A[1] = cz * sy * sx - sz * cx;
        A[2] = cz * sy * cx + sz * sx;
        A[3] = sz * cy;
        A[4] = sz * sy * sx + cz * cx;
        A[5] = sz * sy * cx - cz * sx;
        A[6] = -sy;
        A[7] = cy * sx;
        A[8] = cy * cx;
        Ei[0] = 0.0;
        Ei[1] = sx * ic;
        Ei[2] = cx * ic;
        Ei[3] = 0.0;
        Ei[4] = cx;
        Ei[5] = -sx;
        Ei[6] = 1.0;
        Ei[7] = sx * sy * ic;
        Ei[8] = cx * sy * ic;
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
}

void vd_body_kinematics_ei(const struct vd_model *m, struct vd_data *d, const double *r)
{
    for (int b = 0; b < m->nbody; b++) {
        const double *rb = r + 6 * b;
        const double cy = cos(rb[4]), sy = sin(rb[4]), cx = cos(rb[5]), sx = sin(rb[5]);
        const double ic = 1.0 / cy;
        double *Ei = d->Ei + 9 * b;

        /* as vd_body_kinematics */
        Ei[0] = 0.0;
        Ei[1] = sx * ic;
        Ei[2] = cx * ic;
        Ei[3] = 0.0;
        Ei[4] = cx;
        Ei[5] = -sx;
        Ei[6] = 1.0;
        Ei[7] = sx * sy * ic;
        Ei[8] = cx * sy * ic;
        if (fabs(rb[4]) > 85.0 * M_PI / 180.0)
            d->warn[VD_WARN_CARDAN]++;
    }
}

void vd_kinematics(const struct vd_model *m, struct vd_data *d, const double *r, const double *v)
{
    vd_body_kinematics(m, d, r, v);
    for (int k = 0; k < m->nmarker; k++) {
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
            continue;
        }
        vdu_mat3_vec(a, d->A + 9 * b, mk->s);
        vdu_add3(p, r + 6 * b, a);
        vdu_mat3_mul(R, d->A + 9 * b, mk->rot);
        memcpy(w, d->wg + 3 * b, 3 * sizeof(double));
        vdu_cross3(pd, w, a);
        vdu_add3(pd, pd, v + 6 * b);
    }
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

/* ---- bushings ------------------------------------------------------------------------ */

/* the rotation coordinates theta of bushing e from Rrel = Rj^T Ri, and Jinv:
 * delta theta = Jinv R2^T (delta pi1 - delta pi2) */
static void bushing_rot(const struct vd_model *m, struct vd_data *d, int e, const double Rrel[9],
                        bool commit, double th[3], double Jinv[9])
{
    if (m->bush[e].rot_mode == VD_ROT_CARDAN) {
        /* Rrel = Rz Ry Rx: delta(angles) = E^-1 Rrel^T delta eps; rx unwrapped against the
         * last committed value so that a spinning wheel or pinion counts its turns */
        double ang[3], Ei[9], M[9], ref = d->bush_phi[e];

        vdu_cardan_from_mat(ang, Rrel);
        vd_cardan_Einv(Ei, ang[1], ang[2]);
        vdu_mat3_mult(M, Ei, Rrel);
        th[0] = ref + wrap_pi(ang[2] - ref);
        th[1] = ang[1];
        th[2] = ang[0];
        for (int j = 0; j < 3; j++) {
            Jinv[j] = M[6 + j];
            Jinv[3 + j] = M[3 + j];
            Jinv[6 + j] = M[j];
        }
        if (commit)
            d->bush_phi[e] = th[0];
    } else {
        vd_rotvec(th, Jinv, Rrel);
    }
}

/* component coordinates q (d, theta) and rates q' (d', relative angular velocity) of a
 * bushing in marker j's axes, and what its force application and its Jacobian rows need
 * (the coupler; bushing_group computes the same in vectors) */
struct bkin {
    int b1, b2;
    double Del[3];  /* p1 - p2 */
    double l2[3];   /* lever of body 2: p1 - x2 */
    double R2[9];   /* marker j axes */
    double uu[3];   /* p1' - p2' - w2 x Del */
    double Jinv[9]; /* delta theta = Jinv R2^T (delta pi1 - delta pi2) */
    double q[6], qd[6];
};

static void bushing_kin(const struct vd_model *m, struct vd_data *d, int e, bool commit,
                        struct bkin *k)
{
    const struct vd_bushing *bu = &m->bush[e];
    const int i1 = bu->mk[0], i2 = bu->mk[1];
    const double *R1 = d->mR + 9 * i1, *R2 = d->mR + 9 * i2;
    const double *w1 = d->mw + 3 * i1, *w2 = d->mw + 3 * i2;
    double uu[3], w2xD[3], wr[3], Jinv[9], Rrel[9];

    k->b1 = m->marker[i1].body;
    k->b2 = m->marker[i2].body;
    memcpy(k->R2, R2, sizeof(k->R2));
    vdu_sub3(k->Del, d->mp + 3 * i1, d->mp + 3 * i2);
    vdu_add3(k->l2, k->Del, d->ma + 3 * i2);
    vdu_mat3t_vec(k->q, R2, k->Del);
    vdu_mat3t_mul(Rrel, R2, R1);
    bushing_rot(m, d, e, Rrel, commit, k->q + 3, Jinv);
    memcpy(k->Jinv, Jinv, sizeof(Jinv));
    vdu_cross3(w2xD, w2, k->Del);
    for (int i = 0; i < 3; i++)
        uu[i] = d->mpd[3 * i1 + i] - d->mpd[3 * i2 + i] - w2xD[i];
    memcpy(k->uu, uu, sizeof(uu));
    vdu_mat3t_vec(k->qd, R2, uu);
    vdu_sub3(wr, w1, w2);
    vdu_mat3t_vec(k->qd + 3, R2, wr);
}

/* component forces F (marker j axes) into h: -R2 F on body 1 at p1, +R2 F on body 2 at p1 */
static void bushing_apply(struct vd_data *d, const struct vd_model *m, int e, const struct bkin *k,
                          const double F[6], double *h)
{
    const int i1 = m->bush[e].mk[0];
    double fG[3], tG[3];
    struct side sd[2];

    vdu_mat3_vec(fG, k->R2, F);
    vdu_mat3_vec(tG, k->R2, F + 3);
    sd[0] = (struct side){k->b1, NULL, 0, -1.0, d->ma + 3 * i1, NULL};
    sd[1] = (struct side){k->b2, NULL, 1, 1.0, k->l2, NULL};
    for (int s = 0; s < 2; s++)
        if (sd[s].body != VD_GROUND)
            assemble_side(d, h, false, 2, &sd[s], fG, tG, dzero, dzero, dzero, dzero);
}

/* vd_curve_eval with the linear laws (most bushing components) inline */
static inline double curve(const struct vd_model *m, const struct vd_curve *c, double x, double *dy)
{
    if (c->kind == VD_CURVE_LINEAR) {
        *dy = c->k;
        return c->k * x;
    }
    return vd_curve_eval(m, c, x, dy);
}

/* the law of each component: F = stiff(q) + damp(q') plus actuation; kt, ct: dF/dq, dF/dq';
 * dFdu: dF/du of the driving input */
static void bushing_law(const struct vd_model *m, struct vd_data *d, int e, const struct bkin *k,
                        const double *u, bool commit, double F[6], double kt[6], double ct[6],
                        double dFdu[6])
{
    const struct vd_bushing *bu = &m->bush[e];

    for (int c = 0; c < 6; c++) {
        const int act = bu->act[c];
        const double ua = act ? bu->act_gain[c] * u[bu->act_input[c]] : 0.0;
        double x = k->q[c], s1, s2, fd;

        dFdu[c] = 0.0;
        fd = curve(m, &bu->damp[c], k->qd[c], &s2);
        ct[c] = s2;
        if (act == VD_ACT_FRICTION) {
            /* sticking spring about the anchor, force limited to |ua| */
            const double ks = bu->stiff[c].k, cap = fabs(ua);
            double *anchor = d->bush_anchor + 6 * e + c;
            const double ft = ks * (x - *anchor) + fd;

            if (fabs(ft) <= cap) {
                F[c] = ft;
                kt[c] = ks;
            } else {
                const double sg = ft > 0.0 ? 1.0 : -1.0;

                F[c] = sg * cap;
                kt[c] = ct[c] = 0.0;
                dFdu[c] = sg * (ua >= 0.0 ? 1.0 : -1.0) * bu->act_gain[c];
                if (commit && ks > 0.0) /* slide: the spring alone carries the limit */
                    *anchor = x - sg * cap / ks;
            }
            continue;
        }
        if (act == VD_ACT_SERVO)
            x -= ua;
        F[c] = curve(m, &bu->stiff[c], x, &s1) + fd;
        kt[c] = s1;
        if (act == VD_ACT_SERVO)
            dFdu[c] = -s1 * bu->act_gain[c];
        else if (act == VD_ACT_FORCE) {
            F[c] += ua;
            dFdu[c] = bu->act_gain[c];
        }
    }
}

/* dh/du of actuated component c (dF_c/du = dFdu) into the input Jacobian entries of the
 * bushing's bodies: -R2 e_c on body 1 at p1, +R2 e_c on body 2 at p1 */
static void bushing_ju(const struct vd_model *m, struct vd_data *d, int e, const struct bkin *k,
                       int c, double dFdu)
{
    const int i1 = m->bush[e].mk[0];
    double fG[3] = {0, 0, 0}, tG[3] = {0, 0, 0};

    for (int i = 0; i < 3; i++)
        (c < 3 ? fG : tG)[i] = k->R2[3 * i + c % 3] * dFdu;
    for (int sd = 0; sd < 2; sd++) {
        const int at = m->bush_ju[12 * e + 2 * c + sd];
        const double sigma = sd ? 1.0 : -1.0, *l = sd ? k->l2 : d->ma + 3 * i1;
        const double *A = d->A + 9 * (sd ? k->b2 : k->b1);
        double lf[3], mom[3], hr[3], *out;

        if (at < 0)
            continue;
        out = d->Ju + 6 * at;
        vdu_cross3(lf, l, fG);
        for (int i = 0; i < 3; i++) {
            out[i] += sigma * fG[i];
            mom[i] = sigma * (tG[i] + lf[i]);
        }
        vdu_mat3t_vec(hr, A, mom);
        vdu_add3(out + 3, out + 3, hr);
    }
}

/* ---- bushing Jacobian in 3x3 blocks ----
 * The same derivatives as bushing_kin + bushing_apply (the generic path the couplers use),
 * written out per 3x3 block so that no zero block is multiplied. Columns per body: X
 * (delta x), P (delta pi), V (delta v), O (delta omega); every term depends on the
 * translations only through x1 - x2 (and v1 - v2), so the columns of body 2 are minus
 * those of body 1 there. With M [s] = rows m_i x s, in marker j's axes:
 *   q_d   X R2^T          P1 -R2^T [a1]          P2 R2^T [l2]
 *   q_th                  P1 Jt = Jinv R2^T      P2 -Jt
 *   q'_d  X -R2^T [w2]    P1 R2^T ([a1] [w1] + [w2 - w1] [a1])    P2 R2^T ([u] - [l2] [w2])
 *   q'_th                 P1 -R2^T [w1]          P2 R2^T [w1]
 *   q'_d  V R2^T          O1 -R2^T [a1] A1       O2 R2^T [l2] A2
 *   q'_th                 O1 R2^T A1             O2 -R2^T A2
 * dF = Kt dq + Ct dq', and f = R2 F_d, tau = R2 F_th with delta(R2 F) = R2 dF - [R2 F]
 * delta pi2, so the global derivatives need only Kg = R2 Kt_d R2^T, Cg = R2 Ct_d R2^T,
 * Cth = R2 Ct_th R2^T and Kth = R2 Kt_th Jinv R2^T:
 *   f:   X Kg - Cg [w2]   P1 -Kg [a1] + Cg [a1] [w1] + Cg [w2 - w1] [a1]
 *        P2 Kg [l2] + Cg [u] - Cg [l2] [w2] - [f]   V Cg   O1 -Cg [a1] A1   O2 Cg [l2] A2
 *   tau: P1 Kth - Cth [w1]   P2 -(P1) - [tau]   O1 Cth A1   O2 -Cth A2
 * Body 1 gets -f at a1 and -tau, body 2 +f at l2 = p1 - x2 and +tau (file comment), with
 * delta(A^T m) = A^T delta m + A^T [m] delta pi. */

#define VD_AI static inline __attribute__((always_inline))

/* out = M [s] (row i = m_i x s), 3x3 row-major */
VD_AI void m3_skew(double out[9], const double M[9], const double s[3])
{
    for (int i = 0; i < 3; i++) {
        const double *r = M + 3 * i;

        out[3 * i] = r[1] * s[2] - r[2] * s[1];
        out[3 * i + 1] = r[2] * s[0] - r[0] * s[2];
        out[3 * i + 2] = r[0] * s[1] - r[1] * s[0];
    }
}

/* ---- bushings four at a time ----
 * bushing_group() evaluates four bushings at once on vectors whose lanes are bushings (GCC
 * vector extensions: 4 doubles, two SSE2 registers or one AVX register): kinematics, laws,
 * forces and the block formulas above, in the order of operations of the one-bushing code
 * (bushing_kin, bushing_law, bushing_apply), then adds each lane's forces to h and its
 * blocks into Jp and Jv. A lane whose side is ground computes with a zero lever and rate and
 * an identity rotation there, and that side is not added. Lanes past the last bushing repeat
 * the group's first bushing and are not added. */
#define VL 4
typedef double vdv __attribute__((vector_size(VL * sizeof(double))));

VD_AI void vm3_skew(vdv out[9], const vdv M[9], const vdv s[3])
{
    for (int i = 0; i < 3; i++) {
        const vdv *r = M + 3 * i;

        out[3 * i] = r[1] * s[2] - r[2] * s[1];
        out[3 * i + 1] = r[2] * s[0] - r[0] * s[2];
        out[3 * i + 2] = r[0] * s[1] - r[1] * s[0];
    }
}

VD_AI void vskew_m3(vdv out[9], const vdv s[3], const vdv M[9])
{
    for (int j = 0; j < 3; j++) {
        out[j] = s[1] * M[6 + j] - s[2] * M[3 + j];
        out[3 + j] = s[2] * M[j] - s[0] * M[6 + j];
        out[6 + j] = s[0] * M[3 + j] - s[1] * M[j];
    }
}

VD_AI void vm3_mul(vdv out[9], const vdv A[9], const vdv B[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            out[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

VD_AI void vm3t_mul(vdv out[9], const vdv A[9], const vdv B[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            out[3 * i + j] = A[i] * B[j] + A[3 + i] * B[3 + j] + A[6 + i] * B[6 + j];
}

/* A B^T */
VD_AI void vm3_mult(vdv out[9], const vdv A[9], const vdv B[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            out[3 * i + j] =
                A[3 * i] * B[3 * j] + A[3 * i + 1] * B[3 * j + 1] + A[3 * i + 2] * B[3 * j + 2];
}

VD_AI void vm3_rdrt(vdv out[9], const vdv R[9], const vdv k[3])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j <= i; j++) {
            const vdv v = R[3 * i] * k[0] * R[3 * j] + R[3 * i + 1] * k[1] * R[3 * j + 1] +
                          R[3 * i + 2] * k[2] * R[3 * j + 2];

            out[3 * i + j] = v;
            out[3 * j + i] = v;
        }
}

VD_AI void vskew(vdv out[9], const vdv a[3])
{
    const vdv z = {0};

    out[0] = z;
    out[1] = -a[2];
    out[2] = a[1];
    out[3] = a[2];
    out[4] = z;
    out[5] = -a[0];
    out[6] = -a[1];
    out[7] = a[0];
    out[8] = z;
}

VD_AI void vcross(vdv out[3], const vdv a[3], const vdv b[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* results of one group, by lane at the end: [matrix][entry] */
enum {
    GR_FX = 0, /* translation rows, shared by the blocks */
    GR_FP1,
    GR_FP2,
    GR_CG,
    GR_FO1,
    GR_FO2,
    GR_WX1, /* rotation rows, body 1: X (J11 -, J12 +), P1 (J11 +), P2 (J12 -) */
    GR_WP11,
    GR_WP21,
    GR_WV1, /* V (V11 -, V12 +), O1 (V11 -), O2 (V12 -) */
    GR_WO11,
    GR_WO21,
    GR_WX2, /* body 2: X (J22 -, J21 +), P2 (J22 +), P1 (J21 +) */
    GR_WP22,
    GR_WP12,
    GR_WV2, /* V (V22 -, V21 +), O2 (V22 +), O1 (V21 +) */
    GR_WO22,
    GR_WO12,
    GR_N
};

/* vd_rotvec of a group's rotation-vector bushings at once, where Shepperd's first branch
 * applies (trace largest: rotations below 90 degrees, all a bushing sees), with vd_rotvec's
 * operations in its order (sqrt and atan2 lane by lane): the same bits. Returns the lanes
 * (bits) it computed; the others (Cardan mode, other branches) are the caller's. */
static unsigned rotvec_group(const struct vd_model *m, int e0, int n, const vdv R[9], vdv th[3],
                             vdv Jinv[9])
{
    vdv tr, t, q[4], nn, ang, sc, phi, c2a, c2b, c2, S[9], S2[9];
    unsigned done = 0;

    tr = R[0] + R[4] + R[8];
    for (int l = 0; l < VL; l++) {
        if (m->bush[e0 + (l < n ? l : 0)].rot_mode == VD_ROT_VECTOR && tr[l] > R[0][l] &&
            tr[l] > R[4][l] && tr[l] > R[8][l])
            done |= 1u << l;
        t[l] = done >> l & 1u ? sqrt(1.0 + tr[l]) * 2.0 : 1.0;
    }
    if (!done)
        return 0;
    q[0] = 0.25 * t;
    q[1] = (R[7] - R[5]) / t;
    q[2] = (R[2] - R[6]) / t;
    q[3] = (R[3] - R[1]) / t;
    tr = q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    for (int l = 0; l < VL; l++) {
        nn[l] = sqrt(tr[l]);
        ang[l] = done >> l & 1u ? 2.0 * atan2(nn[l], q[0][l]) : 0.0;
    }
    {
        const vdv sa = ang / nn, sb = 2.0 / q[0];

        for (int l = 0; l < VL; l++)
            sc[l] = nn[l] > 1e-12 ? sa[l] : sb[l];
    }
    for (int i = 0; i < 3; i++)
        th[i] = sc * q[1 + i];
    phi = ang;
    c2a = 1.0 / 12.0 + phi * phi / 720.0;
    c2b = 1.0 / (phi * phi) - q[0] / (2.0 * phi * nn);
    for (int l = 0; l < VL; l++)
        c2[l] = phi[l] < 1e-4 ? c2a[l] : c2b[l];
    vskew(S, th);
    vm3_mul(S2, S, S);
    for (int i = 0; i < 9; i++)
        Jinv[i] = -0.5 * S[i] + c2 * S2[i];
    Jinv[0] += 1.0;
    Jinv[4] += 1.0;
    Jinv[8] += 1.0;
    return done;
}

/* four bushings e0 .. e0 + n - 1 (n <= VL), in vectors whose lanes are the bushings: the
 * operations of bushing_kin, bushing_law and bushing_apply in the same order (so the same
 * bits as one bushing at a time), the rotation coordinates (bushing_rot) and the laws of
 * bushings that are not plain (model.h: tables, actuation) lane by lane. The forces enter h
 * in element order. With jac, the Jacobian blocks follow from the same vectors. */
VD_CLONES static void bushing_group(const struct vd_model *m, struct vd_data *d, int e0, int n,
                                    const double *u, double *h, bool jac, bool commit)
{
    static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    vdv R2[9], Jinv[9], a1[3], w1[3], w2[3], l2[3], uu[3], A1[9], A2[9], kt[6], ct[6], F[6];
    vdv fG[3], tG[3], Sf[9], St[9], Sfa[9], Kg[9], Cth[9], Kth[9], P[9], Jt[9];
    vdv TP1[9], TP2[9], TO1[9], TO2[9];
    vdv tmp[9], tmp2[9], Ca[9], Cl[9], dw[3], m1[3], m2[3], Sm[9];
    vdv R[GR_N][9];
    /* the translation-row results are computed in place */
    vdv *const FX = R[GR_FX], *const FP1 = R[GR_FP1], *const FP2 = R[GR_FP2];
    vdv *const Cg = R[GR_CG], *const FO1 = R[GR_FO1], *const FO2 = R[GR_FO2];

    {
        vdv R1[9], p1[3], p2[3], pd1[3], pd2[3], a2[3], Del[3], q[6], qd[6], Rrel[9], wx[3];
        vdv wr[3], lf[3], mom1[3], mom2[3], hr1[3], hr2[3];

        /* gather the marker kinematics and the linear laws; lanes past n repeat lane 0 and
         * are never added */
        for (int l = 0; l < VL; l++) {
            const int e = e0 + (l < n ? l : 0);
            const int i1 = m->bush[e].mk[0], i2 = m->bush[e].mk[1];
            const int b1 = m->marker[i1].body, b2 = m->marker[i2].body;
            const double *pA1 = b1 != VD_GROUND ? d->A + 9 * b1 : I3;
            const double *pA2 = b2 != VD_GROUND ? d->A + 9 * b2 : I3;
            const double *kc = m->bush_kc + 12 * e;

            for (int i = 0; i < 9; i++) {
                R1[i][l] = d->mR[9 * i1 + i];
                R2[i][l] = d->mR[9 * i2 + i];
                A1[i][l] = pA1[i];
                A2[i][l] = pA2[i];
            }
            for (int i = 0; i < 3; i++) {
                p1[i][l] = d->mp[3 * i1 + i];
                p2[i][l] = d->mp[3 * i2 + i];
                pd1[i][l] = d->mpd[3 * i1 + i];
                pd2[i][l] = d->mpd[3 * i2 + i];
                a1[i][l] = d->ma[3 * i1 + i];
                a2[i][l] = d->ma[3 * i2 + i];
                w1[i][l] = d->mw[3 * i1 + i];
                w2[i][l] = d->mw[3 * i2 + i];
            }
            for (int i = 0; i < 6; i++) {
                kt[i][l] = kc[i];
                ct[i][l] = kc[6 + i];
            }
        }
        /* bushing_kin: d = R2^T (p1 - p2), theta of R2^T R1, rates */
        for (int i = 0; i < 3; i++) {
            Del[i] = p1[i] - p2[i];
            l2[i] = Del[i] + a2[i];
        }
        for (int i = 0; i < 3; i++)
            q[i] = R2[i] * Del[0] + R2[3 + i] * Del[1] + R2[6 + i] * Del[2];
        vm3t_mul(Rrel, R2, R1);
        {
            const unsigned done = rotvec_group(m, e0, n, Rrel, q + 3, Jinv);

            for (int l = 0; l < VL; l++) {
                double Rl[9], th[3], Jl[9];

                if (done >> l & 1u)
                    continue;
                if (l >= n) { /* as lane 0 (its commit done) */
                    for (int i = 0; i < 3; i++)
                        q[3 + i][l] = q[3 + i][0];
                    for (int i = 0; i < 9; i++)
                        Jinv[i][l] = Jinv[i][0];
                    continue;
                }
                for (int i = 0; i < 9; i++)
                    Rl[i] = Rrel[i][l];
                bushing_rot(m, d, e0 + l, Rl, commit, th, Jl);
                for (int i = 0; i < 3; i++)
                    q[3 + i][l] = th[i];
                for (int i = 0; i < 9; i++)
                    Jinv[i][l] = Jl[i];
            }
        }
        vcross(wx, w2, Del);
        for (int i = 0; i < 3; i++) {
            uu[i] = pd1[i] - pd2[i] - wx[i];
            wr[i] = w1[i] - w2[i];
        }
        for (int i = 0; i < 3; i++) {
            qd[i] = R2[i] * uu[0] + R2[3 + i] * uu[1] + R2[6 + i] * uu[2];
            qd[3 + i] = R2[i] * wr[0] + R2[3 + i] * wr[1] + R2[6 + i] * wr[2];
        }
        /* bushing_law: linear F = k q + c q' in all lanes, then the other laws by lane */
        for (int c = 0; c < 6; c++)
            F[c] = kt[c] * q[c] + ct[c] * qd[c];
        for (int l = 0; l < VL; l++) {
            const int e = e0 + (l < n ? l : 0);
            double Fl[6], ktl[6], ctl[6], dFdu[6];
            struct bkin k;

            if (m->bush_plain[e])
                continue;
            if (l >= n) { /* as lane 0 */
                for (int c = 0; c < 6; c++) {
                    F[c][l] = F[c][0];
                    kt[c][l] = kt[c][0];
                    ct[c][l] = ct[c][0];
                }
                continue;
            }
            for (int c = 0; c < 6; c++) {
                k.q[c] = q[c][l];
                k.qd[c] = qd[c][l];
            }
            bushing_law(m, d, e, &k, u, commit, Fl, ktl, ctl, dFdu);
            for (int c = 0; c < 6; c++) {
                F[c][l] = Fl[c];
                kt[c][l] = ktl[c];
                ct[c][l] = ctl[c];
            }
            if (!jac)
                continue;
            /* dh/du for the actuated components */
            k.b1 = m->marker[m->bush[e].mk[0]].body;
            k.b2 = m->marker[m->bush[e].mk[1]].body;
            for (int i = 0; i < 9; i++)
                k.R2[i] = R2[i][l];
            for (int i = 0; i < 3; i++)
                k.l2[i] = l2[i][l];
            for (int c = 0; c < 6; c++)
                if (m->bush[e].act[c] != VD_ACT_NONE && dFdu[c] != 0.0)
                    bushing_ju(m, d, e, &k, c, dFdu[c]);
        }
        /* bushing_apply: -f at p1 on body 1, +f on body 2 (lever l2 = p1 - x2) */
        for (int i = 0; i < 3; i++) {
            fG[i] = R2[3 * i] * F[0] + R2[3 * i + 1] * F[1] + R2[3 * i + 2] * F[2];
            tG[i] = R2[3 * i] * F[3] + R2[3 * i + 1] * F[4] + R2[3 * i + 2] * F[5];
        }
        vcross(lf, a1, fG);
        for (int i = 0; i < 3; i++)
            mom1[i] = -1.0 * (tG[i] + lf[i]);
        vcross(lf, l2, fG);
        for (int i = 0; i < 3; i++)
            mom2[i] = 1.0 * (tG[i] + lf[i]);
        for (int i = 0; i < 3; i++) {
            hr1[i] = A1[i] * mom1[0] + A1[3 + i] * mom1[1] + A1[6 + i] * mom1[2];
            hr2[i] = A2[i] * mom2[0] + A2[3 + i] * mom2[1] + A2[6 + i] * mom2[2];
        }
        /* into h in element order, and the element outputs */
        for (int l = 0; l < n; l++) {
            const int e = e0 + l;
            const int b1 = m->marker[m->bush[e].mk[0]].body;
            const int b2 = m->marker[m->bush[e].mk[1]].body;
            double *out = d->bush_out + 12 * e;

            for (int c = 0; c < 6; c++) {
                out[c] = F[c][l];
                out[6 + c] = q[c][l];
            }
            if (b1 != VD_GROUND) {
                double *hb = h + 6 * b1;

                for (int i = 0; i < 3; i++)
                    hb[i] += -1.0 * fG[i][l];
                for (int i = 0; i < 3; i++)
                    hb[3 + i] = hb[3 + i] + hr1[i][l];
            }
            if (b2 != VD_GROUND) {
                double *hb = h + 6 * b2;

                for (int i = 0; i < 3; i++)
                    hb[i] += 1.0 * fG[i][l];
                for (int i = 0; i < 3; i++)
                    hb[3 + i] = hb[3 + i] + hr2[i][l];
            }
        }
    }
    if (!jac)
        return;
    /* f = R2 F_d, tau = R2 F_th; Kg, Cg, Cth, Kth */
    for (int i = 0; i < 3; i++) {
        fG[i] = R2[3 * i] * F[0] + R2[3 * i + 1] * F[1] + R2[3 * i + 2] * F[2];
        tG[i] = R2[3 * i] * F[3] + R2[3 * i + 1] * F[4] + R2[3 * i + 2] * F[5];
    }
    vskew(Sf, fG);
    vskew(St, tG);
    vm3_skew(Sfa, Sf, a1);
    vm3_rdrt(Kg, R2, kt);
    vm3_rdrt(Cg, R2, ct);
    vm3_rdrt(Cth, R2, ct + 3);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            P[3 * i + j] = R2[3 * i + j] * kt[3 + j];
    vm3_mult(Jt, Jinv, R2);
    vm3_mul(Kth, P, Jt);
    vm3_skew(tmp, Cg, w2);
    vm3_skew(tmp2, Cth, w1);
    for (int i = 0; i < 9; i++) {
        FX[i] = Kg[i] - tmp[i];
        TP1[i] = Kth[i] - tmp2[i];
    }
    /* side 1 columns */
    for (int i = 0; i < 3; i++)
        dw[i] = w2[i] - w1[i];
    vm3_skew(Ca, Cg, a1);
    vm3_skew(FP1, Ca, w1);
    vm3_skew(tmp, Cg, dw);
    vm3_skew(tmp2, tmp, a1);
    vm3_skew(tmp, Kg, a1);
    for (int i = 0; i < 9; i++)
        FP1[i] += tmp2[i] - tmp[i];
    vm3_mul(FO1, Ca, A1);
    for (int i = 0; i < 9; i++)
        FO1[i] = -FO1[i];
    vm3_mul(TO1, Cth, A1);
    /* side 2 columns */
    vm3_skew(Cl, Cg, l2);
    vm3_skew(FP2, Kg, l2);
    vm3_skew(tmp, Cg, uu);
    vm3_skew(tmp2, Cl, w2);
    for (int i = 0; i < 9; i++) {
        FP2[i] += tmp[i] - tmp2[i] - Sf[i];
        TP2[i] = -TP1[i] - St[i];
    }
    vm3_mul(FO2, Cl, A2);
    vm3_mul(TO2, Cth, A2);
    for (int i = 0; i < 9; i++)
        TO2[i] = -TO2[i];
    /* body 1 rotation rows; m1 = -(tau + a1 x f) */
    vcross(m1, a1, fG);
    for (int i = 0; i < 3; i++)
        m1[i] = -(m1[i] + tG[i]);
    vskew(Sm, m1);
    vskew_m3(tmp, a1, FX);
    vm3t_mul(R[GR_WX1], A1, tmp);
    vskew_m3(tmp, a1, FP1);
    for (int i = 0; i < 9; i++)
        tmp[i] = Sm[i] - TP1[i] - tmp[i] - Sfa[i];
    vm3t_mul(R[GR_WP11], A1, tmp);
    vskew_m3(tmp, a1, FP2);
    for (int i = 0; i < 9; i++)
        tmp[i] += TP2[i];
    vm3t_mul(R[GR_WP21], A1, tmp);
    vskew_m3(tmp, a1, Cg);
    vm3t_mul(R[GR_WV1], A1, tmp);
    vskew_m3(tmp, a1, FO1);
    for (int i = 0; i < 9; i++)
        tmp[i] += TO1[i];
    vm3t_mul(R[GR_WO11], A1, tmp);
    vskew_m3(tmp, a1, FO2);
    for (int i = 0; i < 9; i++)
        tmp[i] += TO2[i];
    vm3t_mul(R[GR_WO21], A1, tmp);
    /* body 2 rotation rows; m2 = tau + l2 x f */
    vcross(m2, l2, fG);
    for (int i = 0; i < 3; i++)
        m2[i] += tG[i];
    vskew(Sm, m2);
    vskew_m3(tmp, l2, FX);
    for (int i = 0; i < 9; i++)
        tmp[i] -= Sf[i];
    vm3t_mul(R[GR_WX2], A2, tmp);
    vskew_m3(tmp, l2, FP2);
    for (int i = 0; i < 9; i++)
        tmp[i] += TP2[i] + Sm[i];
    vm3t_mul(R[GR_WP22], A2, tmp);
    vskew_m3(tmp, l2, FP1);
    for (int i = 0; i < 9; i++)
        tmp[i] += TP1[i] + Sfa[i];
    vm3t_mul(R[GR_WP12], A2, tmp);
    vskew_m3(tmp, l2, Cg);
    vm3t_mul(R[GR_WV2], A2, tmp);
    vskew_m3(tmp, l2, FO2);
    for (int i = 0; i < 9; i++)
        tmp[i] += TO2[i];
    vm3t_mul(R[GR_WO22], A2, tmp);
    vskew_m3(tmp, l2, FO1);
    for (int i = 0; i < 9; i++)
        tmp[i] += TO1[i];
    vm3t_mul(R[GR_WO12], A2, tmp);
    /* scatter: block (rows r0, cols c0) += or -= matrix q of lane l */
    for (int l = 0; l < n; l++) {
        const int e = e0 + l, *blk = m->bush_blk + 4 * e;
        double *J11 = blk[0] >= 0 ? d->Jp + 36 * blk[0] : NULL;
        double *J12 = blk[1] >= 0 ? d->Jp + 36 * blk[1] : NULL;
        double *J21 = blk[2] >= 0 ? d->Jp + 36 * blk[2] : NULL;
        double *J22 = blk[3] >= 0 ? d->Jp + 36 * blk[3] : NULL;
        double *V11 = blk[0] >= 0 ? d->Jvb + 36 * blk[0] : NULL;
        double *V12 = blk[1] >= 0 ? d->Jvb + 36 * blk[1] : NULL;
        double *V21 = blk[2] >= 0 ? d->Jvb + 36 * blk[2] : NULL;
        double *V22 = blk[3] >= 0 ? d->Jvb + 36 * blk[3] : NULL;

#define PUT(B, r0, c0, op, q)                                                                      \
    for (int j = 0; j < 3; j++)                                                                    \
        for (int i = 0; i < 3; i++)                                                                \
    VD_B6(B, (r0) + i, (c0) + j) op R[q][3 * i + j][l]
        if (J11) {
            PUT(J11, 0, 0, -=, GR_FX);
            PUT(J11, 3, 0, -=, GR_WX1);
            PUT(J11, 0, 3, -=, GR_FP1);
            PUT(J11, 3, 3, +=, GR_WP11);
            PUT(V11, 0, 0, -=, GR_CG);
            PUT(V11, 3, 0, -=, GR_WV1);
            PUT(V11, 0, 3, -=, GR_FO1);
            PUT(V11, 3, 3, -=, GR_WO11);
        }
        if (J12) {
            PUT(J12, 0, 0, +=, GR_FX);
            PUT(J12, 3, 0, +=, GR_WX1);
            PUT(J12, 0, 3, -=, GR_FP2);
            PUT(J12, 3, 3, -=, GR_WP21);
            PUT(V12, 0, 0, +=, GR_CG);
            PUT(V12, 3, 0, +=, GR_WV1);
            PUT(V12, 0, 3, -=, GR_FO2);
            PUT(V12, 3, 3, -=, GR_WO21);
        }
        if (J22) {
            PUT(J22, 0, 0, -=, GR_FX);
            PUT(J22, 3, 0, -=, GR_WX2);
            PUT(J22, 0, 3, +=, GR_FP2);
            PUT(J22, 3, 3, +=, GR_WP22);
            PUT(V22, 0, 0, -=, GR_CG);
            PUT(V22, 3, 0, -=, GR_WV2);
            PUT(V22, 0, 3, +=, GR_FO2);
            PUT(V22, 3, 3, +=, GR_WO22);
        }
        if (J21) {
            PUT(J21, 0, 0, +=, GR_FX);
            PUT(J21, 3, 0, +=, GR_WX2);
            PUT(J21, 0, 3, +=, GR_FP1);
            PUT(J21, 3, 3, +=, GR_WP12);
            PUT(V21, 0, 0, +=, GR_CG);
            PUT(V21, 3, 0, +=, GR_WV2);
            PUT(V21, 0, 3, +=, GR_FO1);
            PUT(V21, 3, 3, +=, GR_WO12);
        }
#undef PUT
    }
}

/* rows of dq_c and dq'_c of bushing component c over the columns of the bushing's two bodies
 * (side s = 0, 1; 6 columns each: x then pi for positions, v then omega for velocities),
 * from the 3x3 block table above: Dp = dq_c / d(x, pi), Dr = dq'_c / d(x, pi), Dv = dq'_c /
 * d(v, omega). r = R2 e_c is the component's axis, [s] the skew matrix of s, and a row
 * vector times [s] is (r x s)^T. */
static void comp_rows(const struct vd_model *m, const struct vd_data *d, int e,
                      const struct bkin *k, int c, double Dp[2][6], double Dr[2][6],
                      double Dv[2][6])
{
    const int i1 = m->bush[e].mk[0], i2 = m->bush[e].mk[1], i = c % 3;
    const double *a1 = d->ma + 3 * i1, *w1 = d->mw + 3 * i1, *w2 = d->mw + 3 * i2;
    const double *A1 = k->b1 != VD_GROUND ? d->A + 9 * k->b1 : NULL;
    const double *A2 = k->b2 != VD_GROUND ? d->A + 9 * k->b2 : NULL;
    const double rt[3] = {k->R2[i], k->R2[3 + i], k->R2[6 + i]};
    double t[3], t2[3], dw[3];

    memset(Dp, 0, 2 * 6 * sizeof(double));
    memset(Dr, 0, 2 * 6 * sizeof(double));
    memset(Dv, 0, 2 * 6 * sizeof(double));
    if (c < 3) {
        /* q_d: X R2^T, P1 -R2^T [a1], P2 R2^T [l2] */
        for (int j = 0; j < 3; j++) {
            Dp[0][j] = rt[j];
            Dp[1][j] = -rt[j];
            Dv[0][j] = rt[j];
            Dv[1][j] = -rt[j];
        }
        vdu_cross3(t, rt, a1);
        for (int j = 0; j < 3; j++)
            Dp[0][3 + j] = -t[j];
        if (A1) /* O1 -R2^T [a1] A1 */
            for (int j = 0; j < 3; j++)
                Dv[0][3 + j] = -(t[0] * A1[j] + t[1] * A1[3 + j] + t[2] * A1[6 + j]);
        /* q'_d, P1: R2^T ([a1] [w1] + [w2 - w1] [a1]) */
        vdu_cross3(t2, t, w1);
        vdu_sub3(dw, w2, w1);
        vdu_cross3(t, rt, dw);
        vdu_cross3(dw, t, a1);
        for (int j = 0; j < 3; j++)
            Dr[0][3 + j] = t2[j] + dw[j];
        vdu_cross3(t, rt, k->l2);
        for (int j = 0; j < 3; j++)
            Dp[1][3 + j] = t[j];
        if (A2) /* O2 R2^T [l2] A2 */
            for (int j = 0; j < 3; j++)
                Dv[1][3 + j] = t[0] * A2[j] + t[1] * A2[3 + j] + t[2] * A2[6 + j];
        /* P2: R2^T ([u] - [l2] [w2]) */
        vdu_cross3(t2, t, w2);
        vdu_cross3(t, rt, k->uu);
        for (int j = 0; j < 3; j++)
            Dr[1][3 + j] = t[j] - t2[j];
        /* X: -R2^T [w2] for body 1, + for body 2 */
        vdu_cross3(t, rt, w2);
        for (int j = 0; j < 3; j++) {
            Dr[0][j] = -t[j];
            Dr[1][j] = t[j];
        }
    } else {
        /* q_th: P1 Jt = Jinv R2^T, P2 -Jt; q'_th: P1 -R2^T [w1], P2 R2^T [w1], O1 R2^T A1,
         * O2 -R2^T A2 */
        for (int j = 0; j < 3; j++) {
            const double jt = k->Jinv[3 * i] * k->R2[3 * j] +
                              k->Jinv[3 * i + 1] * k->R2[3 * j + 1] +
                              k->Jinv[3 * i + 2] * k->R2[3 * j + 2];

            Dp[0][3 + j] = jt;
            Dp[1][3 + j] = -jt;
        }
        vdu_cross3(t, rt, w1);
        for (int j = 0; j < 3; j++) {
            Dr[0][3 + j] = -t[j];
            Dr[1][3 + j] = t[j];
        }
        for (int j = 0; j < 3; j++) {
            if (A1)
                Dv[0][3 + j] = rt[0] * A1[j] + rt[1] * A1[3 + j] + rt[2] * A1[6 + j];
            if (A2)
                Dv[1][3 + j] = -(rt[0] * A2[j] + rt[1] * A2[3 + j] + rt[2] * A2[6 + j]);
        }
    }
}

/* dh / dF of a unit force in bushing component c: -R2 e_c on body 1 at p1, +R2 e_c on body 2
 * (6 rows per side, translation then rotation rows in body axes) */
static void comp_dir(const struct vd_model *m, const struct vd_data *d, int e, const struct bkin *k,
                     int c, double w[2][6])
{
    const int i1 = m->bush[e].mk[0];
    const double u[3] = {k->R2[c % 3], k->R2[3 + c % 3], k->R2[6 + c % 3]};
    const double *lev[2] = {d->ma + 3 * i1, k->l2};
    const int body[2] = {k->b1, k->b2};

    for (int sd = 0; sd < 2; sd++) {
        const double sg = sd ? 1.0 : -1.0;
        double mom[3];

        memset(w[sd], 0, 6 * sizeof(double));
        if (body[sd] == VD_GROUND)
            continue;
        if (c < 3) {
            vdu_cross3(mom, lev[sd], u);
            for (int j = 0; j < 3; j++) {
                w[sd][j] = sg * u[j];
                mom[j] *= sg;
            }
        } else {
            for (int j = 0; j < 3; j++)
                mom[j] = sg * u[j];
        }
        vdu_mat3t_vec(w[sd] + 3, d->A + 9 * body[sd], mom);
    }
}

/* the position Jacobian of a bushing's component forces F held fixed (what the rotation of
 * R2 and of the levers does to them): the block formulas above with Kt = Ct = 0, into the
 * blocks blk[4] = 11, 12, 21, 22 of the bushing's sides */
static void const_force_jac(const struct vd_model *m, struct vd_data *d, int e,
                            const struct bkin *k, const double F[6], const int blk[4])
{
    const double *a1 = d->ma + 3 * m->bush[e].mk[0];
    double f[3], tau[3], Sf[9], St[9], Sfa[9], Sm[9], m1[3], m2[3], T[9], T2[9], Q[9];
    const bool g1 = k->b1 == VD_GROUND, g2 = k->b2 == VD_GROUND;
    const double *A1 = g1 ? NULL : d->A + 9 * k->b1, *A2 = g2 ? NULL : d->A + 9 * k->b2;
    double *J11 = blk[0] >= 0 ? d->Jp + 36 * blk[0] : NULL;
    double *J12 = blk[1] >= 0 ? d->Jp + 36 * blk[1] : NULL;
    double *J21 = blk[2] >= 0 ? d->Jp + 36 * blk[2] : NULL;
    double *J22 = blk[3] >= 0 ? d->Jp + 36 * blk[3] : NULL;

    vdu_mat3_vec(f, k->R2, F);
    vdu_mat3_vec(tau, k->R2, F + 3);
    vdu_skew(Sf, f);
    vdu_skew(St, tau);
    vdu_skew(T, a1);
    vdu_mat3_mul(Sfa, Sf, T); /* [f] [a1] */
    vdu_cross3(m1, a1, f);
    vdu_cross3(m2, k->l2, f);
    for (int i = 0; i < 3; i++) {
        m1[i] = -(m1[i] + tau[i]);
        m2[i] += tau[i];
    }
    if (J11) { /* rotation rows, pi1: A1^T ([m1] - [f] [a1]) */
        vdu_skew(Sm, m1);
        for (int i = 0; i < 9; i++)
            T[i] = Sm[i] - Sfa[i];
        vdu_mat3t_mul(Q, A1, T);
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < 3; r++)
                VD_B6(J11, 3 + r, 3 + c) += Q[3 * r + c];
    }
    if (J12) { /* translation rows, pi2: [f]; rotation rows, pi2: A1^T ([a1] [f] + [tau]) */
        vdu_skew(T2, a1);
        vdu_mat3_mul(T, T2, Sf);
        for (int i = 0; i < 9; i++)
            T[i] += St[i];
        vdu_mat3t_mul(Q, A1, T);
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < 3; r++) {
                VD_B6(J12, r, 3 + c) += Sf[3 * r + c];
                VD_B6(J12, 3 + r, 3 + c) += Q[3 * r + c];
            }
    }
    if (J22 || J21) { /* A2^T [f]: rotation rows, x columns: J22 +, J21 - */
        vdu_mat3t_mul(Q, A2, Sf);
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < 3; r++) {
                if (J22)
                    VD_B6(J22, 3 + r, c) += Q[3 * r + c];
                if (J21)
                    VD_B6(J21, 3 + r, c) -= Q[3 * r + c];
            }
    }
    if (J22) { /* translation rows, pi2: -[f]; rotation rows: A2^T ([m2] - [l2] [f] - [tau]) */
        vdu_skew(T2, k->l2);
        vdu_mat3_mul(T, T2, Sf);
        vdu_skew(Sm, m2);
        for (int i = 0; i < 9; i++)
            T[i] = Sm[i] - T[i] - St[i];
        vdu_mat3t_mul(Q, A2, T);
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < 3; r++) {
                VD_B6(J22, r, 3 + c) -= Sf[3 * r + c];
                VD_B6(J22, 3 + r, 3 + c) += Q[3 * r + c];
            }
    }
    if (J21) { /* rotation rows, pi1: A2^T [f] [a1] */
        vdu_mat3t_mul(Q, A2, Sfa);
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < 3; r++)
                VD_B6(J21, 3 + r, 3 + c) += Q[3 * r + c];
    }
}

static void coupler(const struct vd_model *m, struct vd_data *d, int e, double *h, bool jac)
{
    const struct vd_coupler *c = &m->coupler[e];
    const int ca = c->comp[0], cb = c->comp[1];
    const double ratio = c->ratio;
    double g, gd, F, s1, s2, FA[6] = {0}, FB[6] = {0};
    struct bkin ka, kb;

    /* the bushings have committed their unwrapped angles already in this evaluation */
    bushing_kin(m, d, c->bush[0], false, &ka);
    bushing_kin(m, d, c->bush[1], false, &kb);
    g = ka.q[ca] - ratio * kb.q[cb];
    gd = ka.qd[ca] - ratio * kb.qd[cb];
    F = vd_curve_eval(m, &c->stiff, g, &s1) + vd_curve_eval(m, &c->damp, gd, &s2);
    FA[ca] = F;
    FB[cb] = -ratio * F;
    d->cpl_out[2 * e] = F;
    d->cpl_out[2 * e + 1] = g;
    bushing_apply(d, m, c->bush[0], &ka, FA, h);
    bushing_apply(d, m, c->bush[1], &kb, FB, h);
    if (jac) {
        /* dh = w_s (s1 dg + s2 dg') over the sides s = a1 a2 b1 b2 and the column groups of
         * the same bodies, g = q_a,ca - ratio q_b,cb; then each bushing's force rotating with
         * its bodies */
        const int *cb16 = m->cpl_blk + 16 * e;
        double Dp[4][6], Dr[2][6], Dv[4][6], w[4][6], P[4][6], V[4][6];
        const int bb[2] = {c->bush[0], c->bush[1]};
        const struct bkin *kk[2] = {&ka, &kb};

        for (int x = 0; x < 2; x++) {
            const double sc = x ? -ratio : 1.0;

            comp_rows(m, d, bb[x], kk[x], x ? cb : ca, Dp + 2 * x, Dr, Dv + 2 * x);
            for (int sd = 0; sd < 2; sd++)
                for (int j = 0; j < 6; j++) {
                    P[2 * x + sd][j] = sc * (s1 * Dp[2 * x + sd][j] + s2 * Dr[sd][j]);
                    V[2 * x + sd][j] = sc * s2 * Dv[2 * x + sd][j];
                }
            comp_dir(m, d, bb[x], kk[x], x ? cb : ca, w + 2 * x);
            for (int sd = 0; sd < 2; sd++)
                for (int j = 0; j < 6; j++)
                    w[2 * x + sd][j] *= sc;
        }
        for (int sr = 0; sr < 4; sr++)
            for (int gc = 0; gc < 4; gc++) {
                const int id = cb16[4 * sr + gc];
                double *Bp, *Bv;

                if (id < 0)
                    continue;
                Bp = d->Jp + 36 * id;
                Bv = d->Jvb + 36 * id;
                for (int cc = 0; cc < 6; cc++)
                    for (int r = 0; r < 6; r++) {
                        VD_B6(Bp, r, cc) += w[sr][r] * P[gc][cc];
                        VD_B6(Bv, r, cc) += w[sr][r] * V[gc][cc];
                    }
            }
        {
            const int blka[4] = {cb16[0], cb16[1], cb16[4], cb16[5]};
            const int blkb[4] = {cb16[10], cb16[11], cb16[14], cb16[15]};

            const_force_jac(m, d, bb[0], &ka, FA, blka);
            const_force_jac(m, d, bb[1], &kb, FB, blkb);
        }
    }
}

/* ---- point-to-point elements --------------------------------------------------------- */

/* Jacobian blocks of a p2p element in 3x3 form. With Delta = p1 - p2 = L e, P = (I - e e^T)
 * / L, v = p1' - p2', L' = e . v, f = -Fc e on body 2 at a2 and -f on body 1 at a1:
 *   delta f = G delta Delta + g (e . delta v),  G = -(F_L e e^T + F_L' e (P v)^T + Fc P),
 *   g = -F_L' e; delta Delta = dx1 - [a1] dpi1 - dx2 + [a2] dpi2; the position part of
 *   delta v is [a1 x w1] dpi1 - [a2 x w2] dpi2, its velocity part dv1 - [a1] A1 domega1 - dv2
 *   + [a2] A2 domega2, and e^T [s] = (e x s)^T.
 * Body b (sigma = -1 for body 1, +1 for body 2) gets h_t = sigma f, h_r = sigma A^T [a] f:
 *   delta h_r = A^T [a] sigma delta f + A^T (sigma [f] [a] + [m]) dpi_b, m = sigma a x f. */
static void p2p_jac(const struct vd_model *m, struct vd_data *d, int e, const double eu[3],
                    double L, const double wv[3], double Fc, double FL, double FLd,
                    const double fG[3])
{
    const struct vd_p2p *p = &m->p2p[e];
    const int *blk = m->p2p_blk + 4 * e;
    const int mk[2] = {p->mk[0], p->mk[1]};
    const int body[2] = {m->marker[mk[0]].body, m->marker[mk[1]].body};
    double Pm[9], Pv[3], G[9], g[3], GX[2][9], r[2][3], ea[2][3];
    double Sf[9];

    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            Pm[3 * i + j] = ((i == j ? 1.0 : 0.0) - eu[i] * eu[j]) / L;
    vdu_mat3_vec(Pv, Pm, wv);
    for (int i = 0; i < 3; i++) {
        g[i] = -FLd * eu[i];
        for (int j = 0; j < 3; j++)
            G[3 * i + j] = -(FL * eu[i] * eu[j] + FLd * eu[i] * Pv[j] + Fc * Pm[3 * i + j]);
    }
    vdu_skew(Sf, fG);
    /* per side: GX = dDelta/dpi part G [a] (sign below), r = e x (a x w), ea = e x a */
    for (int sd = 0; sd < 2; sd++) {
        const double *a = d->ma + 3 * mk[sd], *w = d->mw + 3 * mk[sd];
        double aw[3];

        m3_skew(GX[sd], G, a);
        vdu_cross3(aw, a, w);
        vdu_cross3(r[sd], eu, aw);
        vdu_cross3(ea[sd], eu, a);
    }
    for (int sd = 0; sd < 2; sd++) {
        const double sigma = sd ? 1.0 : -1.0, *a = d->ma + 3 * mk[sd];
        const double *A;
        double Ba[9], Bg[3], mb[3], Sm[9], tmp[9], W[9];

        if (body[sd] == VD_GROUND)
            continue;
        A = d->A + 9 * body[sd];
        /* Ba = sigma A^T [a]; Bg = Ba g */
        vdu_skew(tmp, a);
        vdu_mat3t_mul(Ba, A, tmp);
        for (int i = 0; i < 9; i++)
            Ba[i] *= sigma;
        vdu_mat3_vec(Bg, Ba, g);
        vdu_cross3(mb, a, fG);
        vdu_scale3(mb, sigma, mb);
        vdu_skew(Sm, mb);
        for (int cs = 0; cs < 2; cs++) {
            const int bk = blk[2 * sd + cs];
            double *J, *V, colX[9], colP[9], rowO[3], rowV[3];
            const double sc = cs ? -1.0 : 1.0; /* x2 = -x1 */
            const double *Ac;

            if (bk < 0)
                continue;
            J = d->Jp + 36 * bk;
            V = d->Jvb + 36 * bk;
            Ac = d->A + 9 * body[cs];
            /* delta f per column group of body cs: X sc G; P: -sc G [a_cs] + sc g r_cs^T */
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) {
                    colX[3 * i + j] = sc * G[3 * i + j];
                    colP[3 * i + j] = sc * (-GX[cs][3 * i + j] + g[i] * r[cs][j]);
                }
            /* velocities: e . dv = sc (dv - [a] A domega) -> rows sc e^T, -sc (A^T (e x a))^T */
            vdu_mat3t_vec(rowO, Ac, ea[cs]);
            for (int j = 0; j < 3; j++) {
                rowV[j] = sc * eu[j];
                rowO[j] = -sc * rowO[j];
            }
            /* translation rows: sigma delta f */
            for (int j = 0; j < 3; j++)
                for (int i = 0; i < 3; i++) {
                    VD_B6(J, i, j) += sigma * colX[3 * i + j];
                    VD_B6(J, i, 3 + j) += sigma * colP[3 * i + j];
                    VD_B6(V, i, j) += sigma * g[i] * rowV[j];
                    VD_B6(V, i, 3 + j) += sigma * g[i] * rowO[j];
                }
            /* rotation rows: Ba delta f (+ own: A^T (sigma [f] [a] + [m]) dpi) */
            vdu_mat3_mul(W, Ba, colX);
            vdu_mat3_mul(tmp, Ba, colP);
            if (cs == sd) {
                double Sfa[9], own[9];

                m3_skew(Sfa, Sf, a);
                for (int i = 0; i < 9; i++)
                    Sfa[i] = sigma * Sfa[i] + Sm[i];
                vdu_mat3t_mul(own, A, Sfa);
                for (int i = 0; i < 9; i++)
                    tmp[i] += own[i];
            }
            for (int j = 0; j < 3; j++)
                for (int i = 0; i < 3; i++) {
                    VD_B6(J, 3 + i, j) += W[3 * i + j];
                    VD_B6(J, 3 + i, 3 + j) += tmp[3 * i + j];
                    VD_B6(V, 3 + i, j) += Bg[i] * rowV[j];
                    VD_B6(V, 3 + i, 3 + j) += Bg[i] * rowO[j];
                }
        }
    }
}

static void p2p(const struct vd_model *m, struct vd_data *d, int e, double *h, bool jac)
{
    static const double zero3[3];
    const struct vd_p2p *p = &m->p2p[e];
    const int i1 = p->mk[0], i2 = p->mk[1];
    double Dl_[3], L, eu[3], wv[3], Ld, Fc = 0.0, FL = 0.0, FLd = 0.0, s, fG[3];
    double *out = d->p2p_out + 3 * e;
    const int b1 = m->marker[i1].body, b2 = m->marker[i2].body;

    vdu_sub3(Dl_, d->mp + 3 * i1, d->mp + 3 * i2);
    L = sqrt(vdu_dot3(Dl_, Dl_));
    if (L < 1e-9) {
        d->warn[VD_WARN_DEGENERATE]++;
        L = 1e-9;
    }
    vdu_scale3(eu, 1.0 / L, Dl_);
    vdu_sub3(wv, d->mpd + 3 * i1, d->mpd + 3 * i2);
    Ld = vdu_dot3(eu, wv);
    /* compression-positive force and its partials w.r.t. L and L' */
    if (p->has_spring) {
        Fc += vd_curve_eval(m, &p->spring, p->free_length - L, &s) + p->preload;
        FL -= s;
    }
    if (p->has_damper) {
        Fc += vd_curve_eval(m, &p->damper, -Ld, &s);
        FLd -= s;
    }
    if (p->has_bump && L < p->bump_length) {
        Fc += vd_curve_eval(m, &p->bump, p->bump_length - L, &s);
        FL -= s;
    }
    if (p->has_rebound && L > p->rebound_length) {
        Fc -= vd_curve_eval(m, &p->rebound, L - p->rebound_length, &s);
        FL -= s;
    }
    out[0] = Fc;
    out[1] = L;
    out[2] = Ld;
    /* compression pushes p1 along +e: body 2 gets f = -Fc e, body 1 gets +Fc e */
    vdu_scale3(fG, -Fc, eu);
    if (jac)
        p2p_jac(m, d, e, eu, L, wv, Fc, FL, FLd, fG);
    {
        const int blk0[2] = {-1, -1};
        struct side sd[2];

        sd[0] = (struct side){b1, blk0, 0, -1.0, d->ma + 3 * i1, &dzero};
        sd[1] = (struct side){b2, blk0, 1, 1.0, d->ma + 3 * i2, &dzero};
        for (int k = 0; k < 2; k++)
            if (sd[k].body != VD_GROUND)
                assemble_side(d, h, false, 2, &sd[k], fG, zero3, dzero, dzero, dzero, dzero);
    }
}

/* ---- inputs at markers --------------------------------------------------------------- */

static void input(const struct vd_model *m, struct vd_data *d, int j, const double *u, double *h,
                  bool jac)
{
    const struct vd_input *in = &m->input[j];
    const int k = in->marker, b = m->marker[k].body;
    const double *A = d->A + 9 * b, *a = d->ma + 3 * k;
    const bool force = in->kind == VD_INPUT_FORCE;
    const int blk[2] = {m->blk_diag[b], -1};
    double dg[3], f[3] = {0, 0, 0}, tau[3] = {0, 0, 0}, mom[3], *Ju;
    struct side sd = {b, blk, 0, 1.0, a, &dzero};
    dmat DfP, DtP, Dl;

    if (in->frame == VD_FRAME_MARKER)
        vdu_mat3_vec(dg, d->mR + 9 * k, in->dir);
    else
        memcpy(dg, in->dir, sizeof(dg));
    vdu_scale3(force ? f : tau, u[j], dg);
    if (!jac) {
        assemble_side(d, h, false, 2, &sd, f, tau, dzero, dzero, dzero, dzero);
        return;
    }
    /* dh/du_j: force [dg; A^T (a x dg)], torque [0; A^T dg] */
    Ju = d->Ju + 6 * (size_t)m->ju_ptr[j];
    if (force) {
        memcpy(Ju, dg, sizeof(dg));
        vdu_cross3(mom, a, dg);
    } else {
        memcpy(mom, dg, sizeof(dg));
    }
    vdu_mat3t_vec(Ju + 3, A, mom);
    /* the lever rotates with the body; a marker-fixed direction does too:
     * delta dg = -skew(dg) delta pi */
    memset(DfP, 0, sizeof(DfP));
    memset(DtP, 0, sizeof(DtP));
    memset(Dl, 0, sizeof(Dl));
    if (in->frame == VD_FRAME_MARKER) {
        double S[9];

        vdu_skew(S, force ? f : tau);
        put3(force ? DfP : DtP, 3, S, -1.0);
    }
    {
        double Sa[9];

        vdu_skew(Sa, a);
        put3(Dl, 3, Sa, -1.0);
    }
    sd.Dl = (const dmat *)&Dl;
    assemble_side(d, h, true, 2, &sd, f, tau, DfP, DtP, dzero, dzero);
}

/* gravity and gyroscopic terms: h_t += m g, h_r -= omega x (I omega) */
static void body_terms(const struct vd_model *m, struct vd_data *d, const double *v, double *h,
                       bool jac)
{
    for (int b = 0; b < m->nbody; b++) {
        const struct vd_body *bd = &m->body[b];
        const double *w = v + 6 * b + 3;
        double Iw[3], g[3], *hb = h + 6 * b;

        for (int i = 0; i < 3; i++)
            hb[i] += bd->mass * m->gravity[i];
        vdu_mat3_vec(Iw, bd->inertia, w);
        vdu_cross3(g, w, Iw);
        vdu_sub3(hb + 3, hb + 3, g);
        if (jac) {
            /* d(w x Iw)/dw = skew(w) I - skew(Iw) */
            double Sw[9], SI[9], SIw[9], *B = d->Jvb + 36 * m->blk_diag[b];

            vdu_skew(Sw, w);
            vdu_mat3_mul(SI, Sw, bd->inertia);
            vdu_skew(SIw, Iw);
            for (int i = 0; i < 3; i++)
                for (int jj = 0; jj < 3; jj++)
                    VD_B6(B, 3 + i, 3 + jj) -= SI[3 * i + jj] - SIw[3 * i + jj];
        }
    }
}

int vd_eval_ex(const struct vd_model *m, struct vd_data *d, const double *r, const double *v,
               const double *z, const double *u, double *h, double *g, bool jac, bool commit)
{
    double sum = 0.0;

    vd_kinematics(m, d, r, v);
    memset(h, 0, (size_t)m->nq * sizeof(double));
    if (jac) {
        memset(d->Jp, 0, 36 * (size_t)m->nblk * sizeof(double));
        memset(d->Jvb, 0, 36 * (size_t)m->nblk * sizeof(double));
        memset(d->Ju, 0, 6 * (size_t)m->nju * sizeof(double));
    }
    body_terms(m, d, v, h, jac);
    for (int e = 0; e < m->nbush; e += VL)
        bushing_group(m, d, e, m->nbush - e < VL ? m->nbush - e : VL, u, h, jac, commit);
    for (int e = 0; e < m->ncoupler; e++)
        coupler(m, d, e, h, jac);
    for (int e = 0; e < m->np2p; e++)
        p2p(m, d, e, h, jac);
    for (int j = 0; j < m->ninput; j++)
        if (m->input[j].kind != VD_INPUT_ACTUATOR)
            input(m, d, j, u, h, jac);
    for (int t = 0; t < m->ntire; t++)
        vd_tire_eval(m, d, t, z, h, g, jac);
    /* NaN/Inf anywhere makes the sum non-finite: one check at the stage boundary */
    for (int i = 0; i < m->nq; i++)
        sum += h[i];
    for (int i = 0; i < m->nz; i++)
        sum += g[i];
    if (!isfinite(sum)) {
        d->warn[VD_WARN_NONFINITE]++;
        return -EDOM;
    }
    if (jac) {
        size_t n9 = 9 * (size_t)m->nbody * sizeof(double);

        memcpy(d->Alin, d->A, n9);
        memcpy(d->Eilin, d->Ei, n9);
        memcpy(d->Tlin, d->T, n9);
    }
    return 0;
}

int vd_eval(const struct vd_model *m, struct vd_data *d, const double *r, const double *v,
            const double *u, double *h, bool jac)
{
    return vd_eval_ex(m, d, r, v, d->z, u, h, d->g, jac, false);
}

/* y_i += sum_j B_ij x_j (+ C_ij w_j when C) over the block pattern */
VD_CLONES static void blocks_mul_add(const struct vd_model *m, const double *B, const double *x,
                                     const double *C, const double *w, double *y)
{
    for (int i = 0; i < m->nbody; i++) {
        double acc[6] = {0, 0, 0, 0, 0, 0}, *yi = y + 6 * i;

        for (int k = m->blk_rowptr[i]; k < m->blk_rowptr[i + 1]; k++) {
            const double *Bk = B + 36 * k, *xj = x + 6 * m->blk_col[k];

            for (int c = 0; c < 6; c++) {
                const double xc = xj[c];

                for (int rr = 0; rr < 6; rr++)
                    acc[rr] += Bk[rr + 6 * c] * xc;
            }
            if (C) {
                const double *Ck = C + 36 * k, *wj = w + 6 * m->blk_col[k];

                for (int c = 0; c < 6; c++) {
                    const double wc = wj[c];

                    for (int rr = 0; rr < 6; rr++)
                        acc[rr] += Ck[rr + 6 * c] * wc;
                }
            }
        }
        for (int rr = 0; rr < 6; rr++)
            yi[rr] += acc[rr];
    }
}

void vd_jr_mul_add(const struct vd_model *m, const struct vd_data *d, const double *x, double *y,
                   double *work)
{
    /* z_j = [x_j(0:3); Tlin_j x_j(3:6)], y_i += sum_j Jp_ij z_j */
    for (int b = 0; b < m->nbody; b++) {
        memcpy(work + 6 * b, x + 6 * b, 3 * sizeof(double));
        vdu_mat3_vec(work + 6 * b + 3, d->Tlin + 9 * b, x + 6 * b + 3);
    }
    blocks_mul_add(m, d->Jp, work, NULL, NULL, y);
}

void vd_jv_mul_add(const struct vd_model *m, const struct vd_data *d, const double *x, double *y)
{
    blocks_mul_add(m, d->Jvb, x, NULL, NULL, y);
}

void vd_jrv_mul_add(const struct vd_model *m, const struct vd_data *d, const double *xr,
                    const double *xv, double *y, double *work)
{
    for (int b = 0; b < m->nbody; b++) {
        memcpy(work + 6 * b, xr + 6 * b, 3 * sizeof(double));
        vdu_mat3_vec(work + 6 * b + 3, d->Tlin + 9 * b, xr + 6 * b + 3);
    }
    blocks_mul_add(m, d->Jp, work, d->Jvb, xv, y);
}

void vd_jac_dense(const struct vd_model *m, const struct vd_data *d, double *Jr, double *Jv,
                  double *Ju)
{
    const size_t nq = (size_t)m->nq;

    if (Jr)
        memset(Jr, 0, nq * nq * sizeof(double));
    if (Jv)
        memset(Jv, 0, nq * nq * sizeof(double));
    for (int i = 0; i < m->nbody; i++)
        for (int k = m->blk_rowptr[i]; k < m->blk_rowptr[i + 1]; k++) {
            const int j = m->blk_col[k];
            const double *P = d->Jp + 36 * k, *V = d->Jvb + 36 * k, *T = d->Tlin + 9 * j;

            for (int c = 0; c < 6; c++)
                for (int rr = 0; rr < 6; rr++) {
                    size_t at = (size_t)(6 * i + rr) + nq * (size_t)(6 * j + c);
                    double jr = VD_B6(P, rr, c);

                    if (c >= 3) /* angle column: Jp(:, pi) T(:, c-3) */
                        jr = VD_B6(P, rr, 3) * T[c - 3] + VD_B6(P, rr, 4) * T[3 + c - 3] +
                             VD_B6(P, rr, 5) * T[6 + c - 3];
                    if (Jr)
                        Jr[at] = jr;
                    if (Jv)
                        Jv[at] = VD_B6(V, rr, c);
                }
        }
    if (Ju) {
        memset(Ju, 0, nq * (size_t)m->ninput * sizeof(double));
        for (int j = 0; j < m->ninput; j++)
            for (int e = m->ju_ptr[j]; e < m->ju_ptr[j + 1]; e++)
                memcpy(Ju + nq * (size_t)j + 6 * (size_t)m->ju_body[e], d->Ju + 6 * e,
                       6 * sizeof(double));
    }
}

void vd_ju_mul_add(const struct vd_model *m, const struct vd_data *d, const double *u1,
                   const double *u0, double *y)
{
    for (int j = 0; j < m->ninput; j++) {
        const double du = u1[j] - u0[j];

        for (int e = m->ju_ptr[j]; e < m->ju_ptr[j + 1]; e++) {
            const double *col = d->Ju + 6 * e;
            double *yb = y + 6 * m->ju_body[e];

            for (int i = 0; i < 6; i++)
                yb[i] += col[i] * du;
        }
    }
}
