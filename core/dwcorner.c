/* core/dwcorner.c - the double-wishbone loop closure in closed form, in truncated Taylor
 * arithmetic (dwcorner.h, taylor.h). */
#include "dwcorner.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "spatial.h"
#include "taylor.h"
#include "taypoly.h"
#include "tskin.h"
#include "vdmath.h"

typedef struct vd_ts ts;

/* closure2 reads the polynomials of a body as rows of doubles */
_Static_assert(sizeof(struct vd_tp) == VD_TP_N * sizeof(double), "vd_tp is its coefficients");
_Static_assert(sizeof(struct vd_tq) == VD_TQ_N * sizeof(double), "vd_tq is its coefficients");

/* ---- the poses as polynomials of the coordinates (core/dwcorner_solve.h, taypoly.h):
 * solve_tu one coordinate to degree 3, solve_tq two to degree 2 (no third derivatives: M and
 * f only), solve_tp two to degree 3 ---------------------------------------------------------- */

#define TS         struct vd_tu
#define TSF(op)    vdu_tu_##op
#define DWC_SUFFIX tu
#include "dwcorner_solve.h"
#undef TS
#undef TSF
#undef DWC_SUFFIX
#define TS         struct vd_tq
#define TSF(op)    vdu_tq_##op
#define DWC_SUFFIX tq
#include "dwcorner_solve.h"
#undef TS
#undef TSF
#undef DWC_SUFFIX
#define DWC_ONLY_B
#define TS         struct vd_tp
#define TSF(op)    vdu_tp_##op
#define DWC_SUFFIX tp
#include "dwcorner_solve.h"
#undef TS
#undef TSF
#undef DWC_SUFFIX
#undef DWC_ONLY_B

/* a polynomial in the travel d0 alone as one in (d0, d1) (its d1 terms zero): the coefficients
 * of 1, d0, d0^2, d0^3 of solve_a in vd_tu are those vd_tp's arithmetic computes
 * from the same operands, operation for operation (taypoly.h: each mul and fn coefficient is
 * the same sum in the same order); its d1 terms, zero there too, only lose the signs of zero */
static struct vd_tp tu_tp(struct vd_tu a)
{
    struct vd_tp r = {{a.c[0], a.c[1], 0.0, a.c[2], 0.0, 0.0, a.c[3], 0.0, 0.0, 0.0}};

    return r;
}

/* the bodies solve_a places */
static const int dwc_qa[4] = {VD_DWC_LCA, VD_DWC_UCA, VD_DWC_TUBE, VD_DWC_ROD};

/* the q0 part of a two-coordinate corner (solve_a) in the one-coordinate arithmetic; b: Bl, u1,
 * f1, f2 */
static int solve_a1(const struct vd_dwc *c, double q0, struct vd_tu U[VD_DWC_NB][9],
                    struct vd_tu Z[VD_DWC_NB][3], struct vd_tu b[4][3])
{
    struct vd_tu Q = vdu_tu_const(q0);

    Q.c[1] = 1.0;
    return solve_a_tu(c, Q, U, Z, b[0], b[1], b[2], b[3]);
}

/* vdu_tsk_vee()'s w += s 0.5 vee(P Q^T - Q P^T) for plain row-major matrices (the same
 * operations in the same order) */
static inline void vee9(double w[3], const double P[9], const double Q[9], double s)
{
    /* M = P Q^T: only its six off-diagonal entries are read */
#define VD_VEE9_M(i, j)                                                                            \
    (P[3 * (i)] * Q[3 * (j)] + P[3 * (i) + 1] * Q[3 * (j) + 1] + P[3 * (i) + 2] * Q[3 * (j) + 2])
    const double m01 = VD_VEE9_M(0, 1), m02 = VD_VEE9_M(0, 2), m10 = VD_VEE9_M(1, 0);
    const double m12 = VD_VEE9_M(1, 2), m20 = VD_VEE9_M(2, 0), m21 = VD_VEE9_M(2, 1);
#undef VD_VEE9_M

    w[0] += s * 0.5 * (m21 - m12);
    w[1] += s * 0.5 * (m02 - m20);
    w[2] += s * 0.5 * (m10 - m01);
}

/* vdu_tsk_extract()'s dV for the line v = e_j, w = e_k of a body's polynomials R (9), X (3): with
 * the coefficient indices t (d_j), e (d_k), te (the mixed second one, times f) */
static void ds_line(const struct vd_tp R[9], const struct vd_tp X[3], int t, int e, int te,
                    double f, double dV[6])
{
    double R0[9], Rt[9], Re[9], Rte[9], x[3], xe[3], xte[3], wt[3] = {0}, dwt[3] = {0};
    double t1[3], t2[3];

    for (int i = 0; i < 9; i++) {
        R0[i] = R[i].c[0];
        Rt[i] = R[i].c[t];
        Re[i] = R[i].c[e];
        Rte[i] = f * R[i].c[te];
    }
    for (int i = 0; i < 3; i++) {
        x[i] = X[i].c[0];
        xe[i] = X[i].c[e];
        xte[i] = f * X[i].c[te];
    }
    vee9(wt, Rt, R0, 1.0);
    vee9(dwt, Rte, R0, 1.0);
    vee9(dwt, Rt, Re, 1.0);
    memcpy(dV, dwt, sizeof(dwt));
    vdu_cross3(t1, dwt, x);
    vdu_cross3(t2, wt, xe);
    for (int i = 0; i < 3; i++)
        dV[3 + i] = xte[i] - t1[i] - t2[i];
}

/* ---- a two-coordinate corner's columns: what vdu_tsk_extract() reads off the series of the
 * lines d = q' t + e_m e (taylor.h's 1, t, t^2, e, t e, t^2 e; vdu_tp_line()'s and
 * vdu_tq_line()'s operations on the coefficients p), each coefficient computed once: those of
 * 1, t, t^2 (the pose, omega, alpha, kappa) are the same on both lines, and the motion
 * derivative dV of a line is not read (ds comes from ds_line) ------------------------------ */

/* a body along q' t: the rotation's and the CoM's coefficients of 1, t, t^2 (R0, RT, RTT; x,
 * xd, xdd = 2 x the t^2 one), omega and alpha (vdu_tsk_extract()'s wt, al) and kappa */
struct dwc_bv {
    double R0[9], RT[9], RTT[9], x[3], xd[3], xdd[3], wt[3], al[3], ka[6];
};

/* the coefficients of t and t^2 of vdu_tp_line() (and vdu_tq_line()) of the polynomial p */
static inline void line_v(const double *p, const double v[2], double *t, double *tt)
{
    *t = p[1] * v[0] + p[2] * v[1];
    *tt = p[3] * v[0] * v[0] + p[4] * v[0] * v[1] + p[5] * v[1] * v[1];
}

/* those of e, t e, t^2 e of vdu_tp_line() (deg3 0: only e, as vdu_tq_line()) */
static inline void line_w(const double *p, int deg3, const double v[2], const double w[2],
                          double *e, double *te, double *tte)
{
    *e = p[1] * w[0] + p[2] * w[1];
    if (!deg3)
        return;
    *te = 2.0 * p[3] * v[0] * w[0] + p[4] * (v[0] * w[1] + v[1] * w[0]) + 2.0 * p[5] * v[1] * w[1];
    *tte = 3.0 * p[6] * v[0] * v[0] * w[0] +
           p[7] * (v[0] * v[0] * w[1] + 2.0 * v[0] * v[1] * w[0]) +
           p[8] * (2.0 * v[0] * v[1] * w[1] + v[1] * v[1] * w[0]) + 3.0 * p[9] * v[1] * v[1] * w[1];
}

/* the body's line quantities from its polynomials' coefficients (R: 9 of stride n doubles, X: 3) */
static void body_v(const double *R, const double *X, int n, const double v[2], struct dwc_bv *b)
{
    double t1[3], t2[3];

    for (int i = 0; i < 9; i++) {
        b->R0[i] = R[n * i];
        line_v(R + n * i, v, &b->RT[i], &b->RTT[i]);
    }
    for (int i = 0; i < 3; i++) {
        double tt;

        b->x[i] = X[n * i];
        line_v(X + n * i, v, &b->xd[i], &tt);
        b->xdd[i] = 2.0 * tt;
    }
    memset(b->wt, 0, sizeof(b->wt));
    memset(b->al, 0, sizeof(b->al));
    vee9(b->wt, b->RT, b->R0, 1.0);
    vee9(b->al, b->RTT, b->R0, 2.0);
    /* kappa = (alpha; x'' - alpha x x - omega x x') */
    memcpy(b->ka, b->al, sizeof(b->al));
    vdu_cross3(t1, b->al, b->x);
    vdu_cross3(t2, b->wt, b->xd);
    for (int i = 0; i < 3; i++)
        b->ka[3 + i] = b->xdd[i] - t1[i] - t2[i];
}

/* the body's motion column along w = e_m (sw) and, with deg3, d kappa/dq_m (dka), as
 * vdu_tsk_extract() on the line (q', e_m) */
static void body_w(const double *R, const double *X, int n, int deg3, const double v[2],
                   const double w[2], const struct dwc_bv *b, double sw[6], double dka[6])
{
    double RE[9], RTE[9], RTTE[9], xe[3], xte[3], xdde[3], we[3] = {0}, dwt[3] = {0};
    double dal[3] = {0}, t1[3], t2[3];

    for (int i = 0; i < 9; i++)
        line_w(R + n * i, deg3, v, w, &RE[i], &RTE[i], &RTTE[i]);
    for (int i = 0; i < 3; i++) {
        double tte = 0.0;

        line_w(X + n * i, deg3, v, w, &xe[i], &xte[i], &tte);
        xdde[i] = 2.0 * tte;
    }
    /* s_w = (omega_e; x_e - omega_e x x) */
    vee9(we, RE, b->R0, 1.0);
    memcpy(sw, we, sizeof(we));
    vdu_cross3(t1, we, b->x);
    vdu_sub3(sw + 3, xe, t1);
    if (!deg3)
        return;
    vee9(dwt, RTE, b->R0, 1.0);
    vee9(dwt, b->RT, RE, 1.0);
    vee9(dal, RTTE, b->R0, 2.0);
    vee9(dal, b->RTT, RE, 2.0);
    /* d kappa/de */
    memcpy(dka, dal, sizeof(dal));
    for (int i = 0; i < 3; i++)
        dka[3 + i] = xdde[i];
    vdu_cross3(t1, dal, b->x);
    vdu_cross3(t2, b->al, xe);
    for (int i = 0; i < 3; i++)
        dka[3 + i] -= t1[i] + t2[i];
    vdu_cross3(t1, dwt, b->xd);
    vdu_cross3(t2, b->wt, xte);
    for (int i = 0; i < 3; i++)
        dka[3 + i] -= t1[i] + t2[i];
}

/* a two-coordinate corner's closure written into the columns map[0], map[1] of nc (2 or 3)
 * coordinates of rel (the others' columns zeroed); deriv 0: M and f only (no ds, d kappa) */
static int closure2(const struct vd_dwc *c, const double *q, const double *qd, int deriv, int nc,
                    const int map[2], struct vd_tree_rel *rel)
{
    const int other = nc == 3 ? 3 - map[0] - map[1] : -1; /* the column neither fills */
    struct dwc_bv bv;
    struct vd_tu U[VD_DWC_NB][9], Z[VD_DWC_NB][3], bu[4][3];

    if (!deriv) {
        /* M and f only (vd_tree_kin_mf): poses, s and kappa from second-degree polynomials */
        struct vd_tq Qq[2], PQ[VD_DWC_NB][9], YQ[VD_DWC_NB][3];

        for (int j = 0; j < 2; j++) {
            Qq[j] = vdu_tq_const(q[j]);
            Qq[j].c[1 + j] = 1.0;
        }
        if (solve_tq(c, Qq, PQ, YQ))
            return -EDOM;
        for (int b = 0; b < VD_DWC_NB; b++) {
            struct vd_tree_rel *r = &rel[b];
            const int nm = vd_dwc_q1_moves(b) ? 2 : 1; /* as below */

            body_v((const double *)PQ[b], (const double *)YQ[b], VD_TQ_N, qd, &bv);
            if (nm == 1)
                memset(r->s + 6 * map[1], 0, 6 * sizeof(double));
            for (int m = 0; m < nm; m++) {
                const double w[2] = {m == 0 ? 1.0 : 0.0, m == 1 ? 1.0 : 0.0};

                body_w((const double *)PQ[b], (const double *)YQ[b], VD_TQ_N, 0, qd, w, &bv,
                       r->s + 6 * map[m], NULL);
            }
            if (other >= 0)
                memset(r->s + 6 * other, 0, 6 * sizeof(double));
            memcpy(r->kappa, bv.ka, sizeof(bv.ka));
            memcpy(r->A, bv.R0, sizeof(r->A));
            memcpy(r->x, bv.x, sizeof(r->x));
        }
        return 0;
    }
    {
        /* the poses once as polynomials of (q0 + d0, q1 + d1) to the third degree */
        struct vd_tp Qp[2], P[VD_DWC_NB][9], Y[VD_DWC_NB][3], bp[4][3];

        for (int j = 0; j < 2; j++) {
            Qp[j] = vdu_tp_const(q[j]);
            Qp[j].c[1 + j] = 1.0;
        }
        if (solve_a1(c, q[0], U, Z, bu))
            return -EDOM;
        for (int k = 0; k < 4; k++) {
            for (int i = 0; i < 9; i++)
                P[dwc_qa[k]][i] = tu_tp(U[dwc_qa[k]][i]);
            for (int i = 0; i < 3; i++) {
                Y[dwc_qa[k]][i] = tu_tp(Z[dwc_qa[k]][i]);
                bp[k][i] = tu_tp(bu[k][i]);
            }
        }
        if (solve_b_tp(c, Qp, bp[0], bp[1], bp[2], bp[3], P, Y))
            return -EDOM;
        for (int b = 0; b < VD_DWC_NB; b++) {
            struct vd_tree_rel *r = &rel[b];
            /* the bodies solve_a placed do not move with q1: their columns of q1 are zero */
            const int nm = vd_dwc_q1_moves(b) ? 2 : 1;

            /* along v = q' with e = e_m: s_m, kappa, d kappa/dq_m */
            body_v((const double *)P[b], (const double *)Y[b], VD_TP_N, qd, &bv);
            if (nm == 1) {
                memset(r->s + 6 * map[1], 0, 6 * sizeof(double));
                memset(r->dkappa + 6 * map[1], 0, 6 * sizeof(double));
                for (int j = 0; j < 2; j++)
                    for (int k = 0; k < 2; k++)
                        if (j + k)
                            memset(r->ds + 6 * (map[j] + nc * map[k]), 0, 6 * sizeof(double));
            }
            for (int m = 0; m < nm; m++) {
                const double w[2] = {m == 0 ? 1.0 : 0.0, m == 1 ? 1.0 : 0.0};

                body_w((const double *)P[b], (const double *)Y[b], VD_TP_N, 1, qd, w, &bv,
                       r->s + 6 * map[m], r->dkappa + 6 * map[m]);
            }
            memcpy(r->kappa, bv.ka, sizeof(bv.ka));
            memcpy(r->A, bv.R0, sizeof(r->A));
            memcpy(r->x, bv.x, sizeof(r->x));
            /* along v = e_j with e = e_k (j <= k): ds_j/dq_k (only vdu_tsk_extract()'s dV, from
             * the coefficients that line would pick: exactly its numbers); the others from the
             * integrability of the motion columns: ds_j/dq_k - ds_k/dq_j = s_k x s_j */
            for (int j = 0; j < nm; j++)
                for (int k = j; k < nm; k++) {
                    /* the t e coefficient of the line: 2 x the d_j^2 one, or the d0 d1 one */
                    const int te = j == k ? 3 + 2 * j : 4;
                    const double f = j == k ? 2.0 : 1.0;

                    ds_line(P[b], Y[b], 1 + j, 1 + k, te, f, r->ds + 6 * (map[j] + nc * map[k]));
                }
            if (nm == 2) {
                double *ds = r->ds + 6 * (map[1] + nc * map[0]), t6[6];

                vdu_crm(t6, r->s + 6 * map[1], r->s + 6 * map[0]);
                for (int i = 0; i < 6; i++)
                    ds[i] = r->ds[6 * (map[0] + nc * map[1]) + i] - t6[i];
            }
            if (other >= 0) {
                memset(r->s + 6 * other, 0, 6 * sizeof(double));
                memset(r->dkappa + 6 * other, 0, 6 * sizeof(double));
                for (int j = 0; j < 3; j++) {
                    memset(r->ds + 6 * (other + 3 * j), 0, 6 * sizeof(double));
                    memset(r->ds + 6 * (j + 3 * other), 0, 6 * sizeof(double));
                }
            }
        }
    }
    return 0;
}

int vd_dwc_closure(const void *ctx, const double *q, const double *qd, struct vd_tree_rel *rel)
{
    const struct vd_dwc *c = ctx;
    static const int map[2] = {0, 1};

    if (c->nd == 1) {
        /* one coordinate: the polynomial along v = e = e_0 gives s, ds/dq and, the path being
         * the same at any speed, kappa and d kappa/dq at unit speed: times q'^2 */
        const double s2 = qd[0] * qd[0];
        /* Q[1] is never read with one coordinate (solve_b's swing needs nd 2); it is there so
         * that no compiler sees q[1] outside the array */
        struct vd_tu Q[2], U[VD_DWC_NB][9], Z[VD_DWC_NB][3];
        ts R[9], X[3];
        double sw[6], dV[6], ka[6], dka[6];

        Q[0] = vdu_tu_const(q[0]);
        Q[0].c[1] = 1.0;
        Q[1] = vdu_tu_const(0.0);
        if (solve_tu(c, Q, U, Z))
            return -EDOM;
        for (int b = 0; b < VD_DWC_NB; b++) {
            struct vd_tree_rel *r = &rel[b];

            for (int i = 0; i < 9; i++)
                R[i] = vdu_tu_line(&U[b][i]);
            for (int i = 0; i < 3; i++)
                X[i] = vdu_tu_line(&Z[b][i]);
            vdu_tsk_extract(R, X, sw, dV, ka, dka);
            memcpy(r->s, sw, sizeof(sw));
            memcpy(r->ds, dV, sizeof(dV));
            for (int i = 0; i < 6; i++) {
                r->kappa[i] = s2 * ka[i];
                r->dkappa[i] = s2 * dka[i];
            }
            for (int i = 0; i < 9; i++)
                r->A[i] = R[i].c[VD_TS_1];
            for (int i = 0; i < 3; i++)
                r->x[i] = X[i].c[VD_TS_1];
        }
        return 0;
    }
    return closure2(c, q, qd, !rel[0].mf_only, 2, map, rel);
}

/* ---- building --------------------------------------------------------------------------- */

static double wrap(double a)
{
    return a - 2.0 * M_PI * floor((a + M_PI) / (2.0 * M_PI));
}

/* the branch of A cos x + B sin x = C nearest x = 0 */
static int branch(double *sig, double A, double B, double C, double *x0)
{
    const double rho = sqrt(A * A + B * B), u = C / rho;
    double xp, xm;

    if (!(fabs(u) < 1.0))
        return -EINVAL;
    xp = wrap(atan2(B, A) + acos(u));
    xm = wrap(atan2(B, A) - acos(u));
    *sig = fabs(xp) <= fabs(xm) ? 1.0 : -1.0;
    *x0 = *sig > 0 ? xp : xm;
    return 0;
}

int vd_dwc_init(struct vd_dwc *c, char *err, size_t errlen)
{
    double r[3], t[3], w[3], u1[3], f1[3], f2[3], z[3], x[3], y[3], A, B, C, x0;

    if (c->nd < 1 || c->nd > 2) {
        snprintf(err, errlen, "double wishbone: nd %d (1 or 2)", c->nd);
        return -EINVAL;
    }
    vdu_unit3(c->al, c->al);
    vdu_unit3(c->au, c->au);
    if (c->nd > 1 && !c->swing)
        vdu_unit3(c->rack, c->rack);
    if (c->nd > 1 && c->swing)
        vdu_unit3(c->swing_a, c->swing_a);
    /* upper ball joint circle */
    vdu_sub3(r, c->bu, c->cu);
    vdu_scale3(t, vdu_dot3(r, c->au), c->au);
    vdu_add3(c->u_par, c->cu, t);
    vdu_sub3(c->u_perp, r, t);
    vdu_cross3(c->u_e2, c->au, c->u_perp);
    vdu_sub3(t, c->bu, c->bl);
    c->l_ku = sqrt(vdu_dot3(t, t));
    vdu_sub3(w, c->u_par, c->bl);
    A = 2.0 * vdu_dot3(w, c->u_perp);
    B = 2.0 * vdu_dot3(w, c->u_e2);
    C = c->l_ku * c->l_ku - vdu_dot3(c->u_perp, c->u_perp) - vdu_dot3(w, w);
    if (branch(&c->sig_u, A, B, C, &x0) || fabs(x0) > 1e-9) {
        snprintf(err, errlen, "double wishbone: the upper arm does not close at the design pose");
        return -EINVAL;
    }
    /* tie rod circle about the kingpin */
    vdu_unit3(u1, t);
    vdu_sub3(r, c->to, c->bl);
    c->k_alpha = vdu_dot3(r, u1);
    vdu_scale3(t, c->k_alpha, u1);
    vdu_sub3(c->k_m0, r, t);
    c->k_rho = sqrt(vdu_dot3(c->k_m0, c->k_m0));
    vdu_sub3(t, c->to, c->ti);
    c->l_tr = sqrt(vdu_dot3(t, t));
    vdu_unit3(f1, c->k_m0);
    vdu_cross3(f2, u1, f1);
    vdu_scale3(t, c->k_alpha, u1);
    vdu_add3(w, c->bl, t);
    vdu_sub3(w, w, c->ti);
    A = 2.0 * c->k_rho * vdu_dot3(w, f1);
    B = 2.0 * c->k_rho * vdu_dot3(w, f2);
    C = c->l_tr * c->l_tr - c->k_rho * c->k_rho - vdu_dot3(w, w);
    if (branch(&c->sig_k, A, B, C, &x0) || fabs(x0) > 1e-9) {
        snprintf(err, errlen, "double wishbone: the tie rod does not close at the design pose");
        return -EINVAL;
    }
    vdu_mat3_cols(c->F0k, u1, f1, f2);
    /* universal joints: design frames (x, y, z) of the rod's markers, z along the rod */
    for (int s = 0; s < 2; s++) {
        const double *xm = s ? c->st_x : c->tr_x, *ym = s ? c->st_y : c->tr_y;
        double *sig = s ? &c->sig_st : &c->sig_tr, *F0 = s ? c->F0st : c->F0tr;

        if (s)
            vdu_sub3(t, c->top, c->bot);
        else
            vdu_sub3(t, c->to, c->ti);
        vdu_unit3(z, t);
        vdu_cross3(x, ym, z);
        if (sqrt(vdu_dot3(x, x)) < 1e-6 || fabs(vdu_dot3(xm, z)) > 1e-9 ||
            fabs(vdu_dot3(xm, ym)) > 1e-9) {
            snprintf(err, errlen,
                     "double wishbone: the %s universal joint's axes are not "
                     "normal to the %s at the design pose",
                     s ? "strut" : "tie rod", s ? "strut" : "tie rod");
            return -EINVAL;
        }
        vdu_unit3(x, x);
        *sig = vdu_dot3(x, xm) > 0.0 ? 1.0 : -1.0;
        vdu_scale3(x, *sig, x);
        vdu_cross3(y, z, x);
        vdu_mat3_cols(F0, x, y, z);
    }
    return 0;
}

/* global pose of body b at the model's initial state: rotation and reference point */
static void body_pose(const struct vd_model *m, int b, double A[9], double p[3])
{
    const double *ps = m->body[b].pose0;

    vdu_cardan_zyx(A, ps[3], ps[4], ps[5]);
    memcpy(p, ps, 3 * sizeof(double));
}

/* a marker's position and axis k (k < 0: none) in the parent frame (Ap, xp: parent CoM) */
static void mk_in(const struct vd_model *m, int k, const double Ap[9], const double xp[3],
                  double pos[3], int axis, double ax[3])
{
    const struct vd_marker *mk = &m->marker[k];
    double A[9], p[3], g[3], t[3];

    if (mk->body == VD_GROUND) {
        vdu_mat3_eye(A);
        memset(p, 0, sizeof(p));
    } else {
        body_pose(m, mk->body, A, p);
    }
    vdu_mat3_vec(t, A, mk->pos);
    vdu_add3(g, p, t);
    vdu_sub3(t, g, xp);
    vdu_mat3t_vec(pos, Ap, t);
    if (axis >= 0) {
        const double e[3] = {mk->rot[axis], mk->rot[3 + axis], mk->rot[6 + axis]};

        vdu_mat3_vec(t, A, e);
        vdu_mat3t_vec(ax, Ap, t);
    }
}

int vd_dwc_from_model(struct vd_dwc *c, const struct vd_model *m, const char *prefix, int parent,
                      const double *rack, int body[VD_DWC_NB], char *err, size_t errlen)
{
    static const char *const bn[VD_DWC_NB] = {"lca",    "uca",         "knuckle",
                                              "tierod", "damper_tube", "piston_rod"};
    static const char *const jn[9] = {"lca_pivot", "uca_pivot",    "lca_ball",
                                      "uca_ball",  "tierod_inner", "tierod_outer",
                                      "strut_top", "strut_bottom", "strut_guide"};
    static const int jt[9] = {VD_JOINT_REVOLUTE,  VD_JOINT_REVOLUTE,  VD_JOINT_SPHERICAL,
                              VD_JOINT_SPHERICAL, VD_JOINT_UNIVERSAL, VD_JOINT_SPHERICAL,
                              VD_JOINT_UNIVERSAL, VD_JOINT_SPHERICAL, VD_JOINT_PRISMATIC};
    int j[9];
    double Ap[9], xp[3], t[3], dummy[3];
    char name[2 * VD_NAME_MAX];

    memset(c, 0, sizeof(*c));
    c->nd = rack ? 2 : 1;
    if (rack)
        memcpy(c->rack, rack, sizeof(c->rack));
    if (parent < 0 || parent >= m->nbody) {
        snprintf(err, errlen, "double wishbone %s: no parent body", prefix);
        return -EINVAL;
    }
    body_pose(m, parent, Ap, xp);
    vdu_mat3_vec(t, Ap, m->body[parent].com);
    vdu_add3(xp, xp, t);
    for (int k = 0; k < 9; k++) {
        snprintf(name, sizeof(name), "%s.%s", prefix, jn[k]);
        j[k] = vd_model_find_joint(m, name);
        if (j[k] < 0 || m->joint[j[k]].type != jt[k]) {
            snprintf(err, errlen, "double wishbone %s: no %s joint %s (connection: joints?)",
                     prefix, k < 2 ? "revolute" : "matching", name);
            return -EINVAL;
        }
    }
    for (int b = 0; b < VD_DWC_NB; b++) {
        double A[9], p[3];

        snprintf(name, sizeof(name), "%s.%s", prefix, bn[b]);
        body[b] = vd_model_find_body(m, name);
        if (body[b] < 0) {
            snprintf(err, errlen, "double wishbone %s: no body %s", prefix, name);
            return -EINVAL;
        }
        body_pose(m, body[b], A, p);
        vdu_mat3t_mul(c->A0[b], Ap, A);
        vdu_mat3_vec(t, A, m->body[body[b]].com);
        vdu_add3(p, p, t);
        vdu_sub3(t, p, xp);
        vdu_mat3t_vec(c->x0[b], Ap, t);
    }
    /* marker j of each joint is on the parent side (arms, mount), marker i on the child */
    mk_in(m, m->joint[j[0]].mk[1], Ap, xp, c->cl, 2, c->al);
    mk_in(m, m->joint[j[1]].mk[1], Ap, xp, c->cu, 2, c->au);
    mk_in(m, m->joint[j[2]].mk[0], Ap, xp, c->bl, -1, dummy);
    mk_in(m, m->joint[j[3]].mk[0], Ap, xp, c->bu, -1, dummy);
    mk_in(m, m->joint[j[4]].mk[0], Ap, xp, c->ti, 0, c->tr_x);
    mk_in(m, m->joint[j[4]].mk[1], Ap, xp, dummy, 1, c->tr_y);
    mk_in(m, m->joint[j[5]].mk[0], Ap, xp, c->to, -1, dummy);
    mk_in(m, m->joint[j[6]].mk[0], Ap, xp, c->top, 0, c->st_x);
    mk_in(m, m->joint[j[6]].mk[1], Ap, xp, dummy, 1, c->st_y);
    mk_in(m, m->joint[j[7]].mk[0], Ap, xp, c->bot, -1, dummy);
    return vd_dwc_init(c, err, errlen);
}

int vd_dwc_closure_in3(const struct vd_dwc *c, int side, const double q[3], const double qd[3],
                       int mf_only, struct vd_tree_rel *rel)
{
    const double qc[2] = {q[side], q[2]}, qdc[2] = {qd[side], qd[2]};
    const int map[2] = {side, 2};

    return closure2(c, qc, qdc, !mf_only, 3, map, rel);
}
