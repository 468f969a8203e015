/* core/tskin.h - rigid-body kinematics in truncated Taylor arithmetic (core/taylor.h): vectors
 * and rotations of series, placing a body from a rotation series, and reading a body's
 * relative motion (motion column, its derivative, the acceleration term and its derivative)
 * off its pose series. The loop closures of the embedded corners use them (core/nlcorner.c;
 * core/dwcorner.c carries its own copies of the same operations).
 * Header-only, RT-safe: no allocation, fixed work. */
#ifndef VD_CORE_TSKIN_H
#define VD_CORE_TSKIN_H

#include <string.h>

#include "taylor.h"
#include "vdmath.h"

/* r = a (constant vector) */
static inline void vdu_tsk_const3(struct vd_ts r[3], const double a[3])
{
    for (int i = 0; i < 3; i++)
        r[i] = vdu_ts_const(a[i]);
}

/* r = R v (R series, v constant) */
static inline void vdu_tsk_mv(struct vd_ts r[3], const struct vd_ts R[9], const double v[3])
{
    for (int i = 0; i < 3; i++)
        r[i] =
            vdu_ts_add(vdu_ts_add(vdu_ts_scale(v[0], R[3 * i]), vdu_ts_scale(v[1], R[3 * i + 1])),
                       vdu_ts_scale(v[2], R[3 * i + 2]));
}

/* r = R A (A constant) */
static inline void vdu_tsk_mm(struct vd_ts r[9], const struct vd_ts R[9], const double A[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r[3 * i + j] = vdu_ts_add(
                vdu_ts_add(vdu_ts_scale(A[j], R[3 * i]), vdu_ts_scale(A[3 + j], R[3 * i + 1])),
                vdu_ts_scale(A[6 + j], R[3 * i + 2]));
}

/* R = I + sin(ang) [a]x + (1 - cos(ang)) [a]x^2 (Rodrigues, a a constant unit axis) */
static inline void vdu_tsk_rot(struct vd_ts R[9], const double a[3], struct vd_ts ang)
{
    double K[9], K2[9];
    const struct vd_ts s = vdu_ts_sin(ang), omc = vdu_ts_sub(vdu_ts_const(1.0), vdu_ts_cos(ang));

    vdu_skew(K, a);
    vdu_mat3_mul(K2, K, K);
    for (int i = 0; i < 9; i++) {
        R[i] = vdu_ts_add(vdu_ts_scale(K[i], s), vdu_ts_scale(K2[i], omc));
        R[i].c[0] += (i % 4 == 0) ? 1.0 : 0.0;
    }
}

/* r = exp([th]x) w for a rotation-vector series th without constant term (th^4 = 0 in this
 * truncation, so the exponential's series ends at its cubic term exactly) */
static inline void vdu_tsk_expv(struct vd_ts r[3], const struct vd_ts th[3], const double w[3])
{
    struct vd_ts a[3], b[3], c[3], wc[3];

    vdu_tsk_const3(wc, w);
    vdu_ts_cross3(a, th, wc);
    vdu_ts_cross3(b, th, a);
    vdu_ts_cross3(c, th, b);
    for (int i = 0; i < 3; i++)
        r[i] = vdu_ts_add(vdu_ts_add(wc[i], a[i]),
                          vdu_ts_add(vdu_ts_scale(0.5, b[i]), vdu_ts_scale(1.0 / 6.0, c[i])));
}

/* Q = F F0^T: the rotation from the design pose of a frame F (columns a, b, c) that was F0
 * (row-major) there */
static inline void vdu_tsk_frame(struct vd_ts Q[9], const struct vd_ts a[3],
                                 const struct vd_ts b[3], const struct vd_ts c[3],
                                 const double F0[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            Q[3 * i + j] = vdu_ts_add(
                vdu_ts_add(vdu_ts_scale(F0[3 * j], a[i]), vdu_ts_scale(F0[3 * j + 1], b[i])),
                vdu_ts_scale(F0[3 * j + 2], c[i]));
}

/* X = p + R (x0 - p0) */
static inline void vdu_tsk_place(struct vd_ts X[3], const struct vd_ts p[3],
                                 const struct vd_ts R[9], const double x0[3], const double p0[3])
{
    double d[3];
    struct vd_ts t[3];

    vdu_sub3(d, x0, p0);
    vdu_tsk_mv(t, R, d);
    for (int i = 0; i < 3; i++)
        X[i] = vdu_ts_add(p[i], t[i]);
}

/* w += s vee(antisymmetric part of P Q^T), P, Q: coefficients k, l of R and S */
static inline void vdu_tsk_vee(double w[3], const struct vd_ts R[9], int k, const struct vd_ts S[9],
                               int l, double s)
{
    double M[9];

    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            M[3 * i + j] = R[3 * i].c[k] * S[3 * j].c[l] + R[3 * i + 1].c[k] * S[3 * j + 1].c[l] +
                           R[3 * i + 2].c[k] * S[3 * j + 2].c[l];
    w[0] += s * 0.5 * (M[7] - M[5]);
    w[1] += s * 0.5 * (M[2] - M[6]);
    w[2] += s * 0.5 * (M[3] - M[1]);
}

/* what one pass along (v: t, w: e) gives for one body of pose (R, X), spatial vectors at the
 * parent's CoM: sw = the motion column along w; dV = d/de of the velocity along v; ka = the
 * acceleration term along v; dka = its derivative along w */
static inline void vdu_tsk_extract(const struct vd_ts R[9], const struct vd_ts X[3], double sw[6],
                                   double dV[6], double ka[6], double dka[6])
{
    double x[3], xd[3], xdd[3], xe[3], xte[3], xdde[3], wt[3] = {0}, we[3] = {0}, dwt[3] = {0};
    double al[3] = {0}, dal[3] = {0}, t1[3], t2[3];

    for (int i = 0; i < 3; i++) {
        x[i] = X[i].c[VD_TS_1];
        xd[i] = X[i].c[VD_TS_T];
        xdd[i] = 2.0 * X[i].c[VD_TS_TT];
        xe[i] = X[i].c[VD_TS_E];
        xte[i] = X[i].c[VD_TS_TE];
        xdde[i] = 2.0 * X[i].c[VD_TS_TTE];
    }
    /* omega = vee(R' R^T), alpha = vee(R'' R^T) (R' R'^T is symmetric) */
    vdu_tsk_vee(wt, R, VD_TS_T, R, VD_TS_1, 1.0);
    vdu_tsk_vee(we, R, VD_TS_E, R, VD_TS_1, 1.0);
    vdu_tsk_vee(dwt, R, VD_TS_TE, R, VD_TS_1, 1.0);
    vdu_tsk_vee(dwt, R, VD_TS_T, R, VD_TS_E, 1.0);
    vdu_tsk_vee(al, R, VD_TS_TT, R, VD_TS_1, 2.0);
    vdu_tsk_vee(dal, R, VD_TS_TTE, R, VD_TS_1, 2.0);
    vdu_tsk_vee(dal, R, VD_TS_TT, R, VD_TS_E, 2.0);
    /* s_w = (omega_e; x_e - omega_e x x) */
    memcpy(sw, we, sizeof(we));
    vdu_cross3(t1, we, x);
    vdu_sub3(sw + 3, xe, t1);
    /* d/de (omega_t; x' - omega_t x x) */
    memcpy(dV, dwt, sizeof(dwt));
    vdu_cross3(t1, dwt, x);
    vdu_cross3(t2, wt, xe);
    for (int i = 0; i < 3; i++)
        dV[3 + i] = xte[i] - t1[i] - t2[i];
    /* kappa = (alpha; x'' - alpha x x - omega x x') and its derivative */
    memcpy(ka, al, sizeof(al));
    vdu_cross3(t1, al, x);
    vdu_cross3(t2, wt, xd);
    for (int i = 0; i < 3; i++)
        ka[3 + i] = xdd[i] - t1[i] - t2[i];
    memcpy(dka, dal, sizeof(dal));
    for (int i = 0; i < 3; i++)
        dka[3 + i] = xdde[i];
    vdu_cross3(t1, dal, x);
    vdu_cross3(t2, al, xe);
    for (int i = 0; i < 3; i++)
        dka[3 + i] -= t1[i] + t2[i];
    vdu_cross3(t1, dwt, xd);
    vdu_cross3(t2, wt, xte);
    for (int i = 0; i < 3; i++)
        dka[3 + i] -= t1[i] + t2[i];
}

#endif /* VD_CORE_TSKIN_H */
