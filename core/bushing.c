/* core/bushing.c - bushings (the four-lane kernel and its scalar twin side by side) and
 * couplers: bushing.h. The perturbation notation is in elem.h. */
#include "bushing.h"

#include <math.h>
#include <string.h>

#include "elem.h"
#include "kinematics.h"
#include "vdmath.h"

/* wrap an angle to (-pi, pi] */
static double wrap_pi(double a)
{
    return a - 2.0 * M_PI * floor((a + M_PI) / (2.0 * M_PI));
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

/* ---- bushings four at a time ----
 * bushing_group() evaluates four bushings at once on vectors whose lanes are bushings (GCC
 * vector extensions: 4 doubles, two SSE2 registers or one AVX register): kinematics, laws,
 * forces and the block formulas above, in the order of operations of the one-bushing code
 * (bushing_kin, bushing_law, bushing_apply), then adds each lane's forces to h and its
 * blocks into Jp and Jv. A lane whose side is ground computes with a zero lever and rate and
 * an identity rotation there, and that side is not added. Lanes past the last bushing repeat
 * the group's first bushing and are not added. */
#define VL VD_BUSHING_LANES
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
static unsigned rotvec_group(const struct vd_model *m, const int *ix, int n, const vdv R[9],
                             vdv th[3], vdv Jinv[9])
{
    vdv tr, t, q[4], nn, ang, sc, phi, c2a, c2b, c2, S[9], S2[9];
    unsigned done = 0;

    tr = R[0] + R[4] + R[8];
    for (int l = 0; l < VL; l++) {
        if (m->bush[ix[l < n ? l : 0]].rot_mode == VD_ROT_VECTOR && tr[l] > R[0][l] &&
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

/* four bushings ix[0 .. n) (n <= VL), in vectors whose lanes are the bushings: the
 * operations of bushing_kin, bushing_law and bushing_apply in the same order (so the same
 * bits as one bushing at a time), the rotation coordinates (bushing_rot) and the laws of
 * bushings that are not plain (model.h: tables, actuation) lane by lane. The forces enter h
 * in element order. With jac, the Jacobian blocks follow from the same vectors. */
VD_CLONES void vd_bushing_group_eval_ix(const struct vd_model *m, struct vd_data *d, const int *ix,
                                        int n, const double *u, double *h, bool jac, bool commit)
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
            const int e = ix[l < n ? l : 0];
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
            const unsigned done = rotvec_group(m, ix, n, Rrel, q + 3, Jinv);

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
                bushing_rot(m, d, ix[l], Rl, commit, th, Jl);
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
            const int e = ix[l < n ? l : 0];
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
            const int e = ix[l];
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
        const int e = ix[l], *blk = m->bush_blk + 4 * e;
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

void vd_bushing_group_eval(const struct vd_model *m, struct vd_data *d, int e0, int n,
                           const double *u, double *h, bool jac, bool commit)
{
    int ix[VL];

    for (int l = 0; l < VL; l++)
        ix[l] = e0 + (l < n ? l : 0);
    vd_bushing_group_eval_ix(m, d, ix, n, u, h, jac, commit);
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

void vd_coupler_eval(const struct vd_model *m, struct vd_data *d, int e, double *h, bool jac)
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

void vd_bushing_coords(const struct vd_model *m, struct vd_data *d, int e, double q[6],
                       double qd[6])
{
    struct bkin k;

    bushing_kin(m, d, e, false, &k);
    memcpy(q, k.q, sizeof(k.q));
    memcpy(qd, k.qd, sizeof(k.qd));
}
