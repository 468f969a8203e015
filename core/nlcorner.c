/* core/nlcorner.c - the multilink and McPherson loop closures: fixed Newton iterations on the
 * knuckle's pose, derivatives by the implicit function theorem in truncated Taylor arithmetic
 * (nlcorner.h, taylor.h, tskin.h). */
#include "nlcorner.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "spatial.h"
#include "treeform.h"
#include "tskin.h"
#include "vdmath.h"

typedef struct vd_ts ts;

/* ---- rotations, the 6x6 solve ----------------------------------------------------------- */

/* R = exp([p]x) */
static void rexp(double R[9], const double p[3])
{
    const double th = sqrt(vdu_dot3(p, p));
    double a[3];

    if (!(th > 0.0)) {
        vdu_mat3_eye(R);
        return;
    }
    vdu_scale3(a, 1.0 / th, p);
    vd_tf_axrot(R, a, th);
}

/* p = log(R) as a rotation vector (|p| < pi) */
static void rlog(double p[3], const double R[9])
{
    const double v[3] = {0.5 * (R[7] - R[5]), 0.5 * (R[2] - R[6]), 0.5 * (R[3] - R[1])};
    const double s = sqrt(vdu_dot3(v, v)), th = atan2(s, 0.5 * (R[0] + R[4] + R[8] - 1.0));

    vdu_scale3(p, s > 1e-300 ? th / s : 1.0, v);
}

/* LU with partial pivoting of the 6x6 column-major A in place; 0 or -1 (singular) */
static int lu6(double *A, int *piv)
{
    for (int k = 0; k < 6; k++) {
        int p = k;

        for (int i = k + 1; i < 6; i++)
            if (fabs(A[i + 6 * k]) > fabs(A[p + 6 * k]))
                p = i;
        piv[k] = p;
        if (!(fabs(A[p + 6 * k]) > 0.0) || !isfinite(A[p + 6 * k]))
            return -1;
        if (p != k)
            for (int j = 0; j < 6; j++) {
                const double s = A[k + 6 * j];

                A[k + 6 * j] = A[p + 6 * j];
                A[p + 6 * j] = s;
            }
        for (int i = k + 1; i < 6; i++) {
            const double l = A[i + 6 * k] / A[k + 6 * k];

            A[i + 6 * k] = l;
            for (int j = k + 1; j < 6; j++)
                A[i + 6 * j] -= l * A[k + 6 * j];
        }
    }
    return 0;
}

/* b = A^-1 b with the factors of lu6 */
static void lu6_solve(const double *A, const int *piv, double *b)
{
    /* the row exchanges first: lu swapped whole rows, the multipliers with them */
    for (int k = 0; k < 6; k++) {
        const double s = b[piv[k]];

        b[piv[k]] = b[k];
        b[k] = s;
    }
    for (int k = 0; k < 6; k++)
        for (int i = k + 1; i < 6; i++)
            b[i] -= A[i + 6 * k] * b[k];
    for (int k = 5; k >= 0; k--) {
        for (int j = k + 1; j < 6; j++)
            b[k] -= A[k + 6 * j] * b[j];
        b[k] /= A[k + 6 * k];
    }
}

/* ---- the loop equations in doubles (Newton) --------------------------------------------- */

/* a knuckle point of the design pose p at the pose (t, Q): P = Q (p - g) + g + t, Qr = Q (p - g) */
static void kpt(const struct vd_nlc *c, const double t[3], const double Q[9], const double p[3],
                double P[3], double Qr[3])
{
    double r[3];

    vdu_sub3(r, p, c->x0[0]);
    vdu_mat3_vec(Qr, Q, r);
    for (int i = 0; i < 3; i++)
        P[i] = Qr[i] + c->x0[0][i] + t[i];
}

/* row r of J (column-major 6x6): lin . dt + ang . dth */
static void jrow(double *J, int r, const double lin[3], const double ang[3])
{
    for (int i = 0; i < 3; i++) {
        J[r + 6 * i] = lin[i];
        J[r + 6 * (3 + i)] = ang[i];
    }
}

/* F(y, q) and (J non-NULL) its Jacobian in the increments (dt, dth) (nlcorner.h) */
static void res_jac(const struct vd_nlc *c, double q, double s, const double t[3],
                    const double Q[9], double F[6], double *J)
{
    double P[3], Qr[3], d[3], a[3], l[3];
    int r = 0;

    for (int k = 0; k < c->nlink; k++, r++) {
        const struct vd_nlc_link *lk = &c->link[k];

        kpt(c, t, Q, lk->o, P, Qr);
        if (k == c->rack_link) /* the inner joint on the rack: c + s rd */
            for (int i = 0; i < 3; i++)
                d[i] = P[i] - (lk->c[i] + s * c->rd[i]);
        else
            vdu_sub3(d, P, lk->c);
        F[r] = (vdu_dot3(d, d) - lk->L * lk->L) / (2.0 * lk->L);
        if (J) {
            vdu_scale3(l, 1.0 / lk->L, d);
            vdu_cross3(a, Qr, l);
            jrow(J, r, l, a);
        }
    }
    if (c->kind == VD_NLC_MCPHERSON) {
        double R[9], B[3], e[3], N[3], T[3];

        /* the ball joint on the lower arm turned by q */
        vd_tf_axrot(R, c->al, q);
        vdu_sub3(d, c->bl, c->cl);
        vdu_mat3_vec(B, R, d);
        vdu_add3(B, B, c->cl);
        kpt(c, t, Q, c->bl, P, Qr);
        for (int i = 0; i < 3; i++, r++) {
            F[r] = P[i] - B[i];
            if (J) {
                memset(e, 0, sizeof(e));
                e[i] = 1.0;
                vdu_cross3(a, Qr, e);
                jrow(J, r, e, a);
            }
        }
        /* the strut line through the top mount */
        kpt(c, t, Q, c->lp, P, Qr);
        vdu_sub3(T, c->top, P);
        for (int i = 0; i < 2; i++, r++) {
            vdu_mat3_vec(N, Q, i ? c->ln2 : c->ln1);
            F[r] = vdu_dot3(N, T);
            if (J) {
                for (int k = 0; k < 3; k++)
                    d[k] = c->top[k] - c->x0[0][k] - t[k];
                vdu_cross3(a, N, d);
                vdu_scale3(l, -1.0, N);
                jrow(J, r, l, a);
            }
        }
    } else {
        /* the wheel centre's height */
        kpt(c, t, Q, c->wc, P, Qr);
        vdu_sub3(d, P, c->wc);
        F[r] = vdu_dot3(c->hz, d) - q;
        if (J) {
            vdu_cross3(a, Qr, c->hz);
            jrow(J, r, c->hz, a);
        }
    }
}

/* the predictor: the table interpolated linearly at q (bilinearly at (q, s) on a rack; clamped
 * to its range) */
static void predict(const struct vd_nlc *c, double q, double sr, double t[3], double Q[9])
{
    const double s = (q - c->qmin) / c->hq;
    int i = (int)floor(s);
    double w, p[3];

    i = i < 0 ? 0 : (i >= VD_NLC_NTAB ? VD_NLC_NTAB - 1 : i);
    w = s - i;
    if (c->ns) {
        /* on a rack: linear in q, quadratic in s through the nearest node and its neighbours
         * (Lagrange; the steering's curvature in s made a linear one's error 1e-4) */
        const double sj = (sr - c->smin) / c->hs;
        int j = (int)floor(sj + 0.5);
        double u, l[3], y[6];

        j = j < 1 ? 1 : (j >= c->ns ? c->ns - 1 : j);
        u = sj - j;
        l[0] = 0.5 * u * (u - 1.0);
        l[1] = 1.0 - u * u;
        l[2] = 0.5 * u * (u + 1.0);
        for (int k = 0; k < 6; k++) {
            y[k] = 0.0;
            for (int a = 0; a < 3; a++)
                y[k] +=
                    l[a] * ((1.0 - w) * c->tab[i][j - 1 + a][k] + w * c->tab[i + 1][j - 1 + a][k]);
        }
        memcpy(t, y, 3 * sizeof(double));
        rexp(Q, y + 3);
        return;
    }
    for (int k = 0; k < 3; k++) {
        t[k] = (1.0 - w) * c->tab[i][0][k] + w * c->tab[i + 1][0][k];
        p[k] = (1.0 - w) * c->tab[i][0][3 + k] + w * c->tab[i + 1][0][3 + k];
    }
    rexp(Q, p);
}

/* Newton step: y <- y - J^-1 F with the factors in J, piv */
static void nstep(const double *J, const int *piv, double *F, double t[3], double Q[9])
{
    double R[9], Qn[9], dth[3];

    for (int i = 0; i < 6; i++)
        F[i] = -F[i];
    lu6_solve(J, piv, F);
    for (int i = 0; i < 3; i++) {
        t[i] += F[i];
        dth[i] = F[3 + i];
    }
    rexp(R, dth);
    vdu_mat3_mul(Qn, R, Q);
    memcpy(Q, Qn, sizeof(Qn));
}

/* iters Newton iterations from (t, Q), then F and the factored J at the last iterate;
 * 0 or -EDOM (a singular J); *res = max |F| there */
static int newton(const struct vd_nlc *c, double q, double s, int iters, double t[3], double Q[9],
                  double F[6], double J[36], int piv[6], double *res)
{
    for (int k = 0; k < iters; k++) {
        res_jac(c, q, s, t, Q, F, J);
        if (lu6(J, piv))
            return -EDOM;
        nstep(J, piv, F, t, Q);
    }
    res_jac(c, q, s, t, Q, F, J);
    *res = 0.0;
    for (int i = 0; i < 6; i++)
        *res = fmax(*res, fabs(F[i]));
    if (!isfinite(*res) || lu6(J, piv))
        return -EDOM;
    return 0;
}

static int solve_fixed(const struct vd_nlc *c, double q, double s, double t[3], double Q[9],
                       double F[6], double J[36], int piv[6], double *res)
{
    if (!(q >= c->qmin && q <= c->qmax) || (c->ns && !(s >= c->smin && s <= c->smax)))
        return -EDOM; /* outside the range the iteration count is proven on */
    predict(c, q, s, t, Q);
    if (newton(c, q, s, VD_NLC_NEWTON, t, Q, F, J, piv, res) || !(*res <= VD_NLC_RTOL))
        return -EDOM;
    return 0;
}

int vd_nlc_solve2(const struct vd_nlc *c, double q, double s, double t[3], double Q[9], double *res)
{
    double F[6], J[36];
    int piv[6];

    *res = INFINITY;
    return solve_fixed(c, q, s, t, Q, F, J, piv, res);
}

int vd_nlc_solve(const struct vd_nlc *c, double q, double t[3], double Q[9], double *res)
{
    return vd_nlc_solve2(c, q, 0.0, t, Q, res);
}

/* ---- the same in Taylor arithmetic (the implicit function theorem) ---------------------- */

/* P = exp([th]x) Q (p - g) + g + t as series */
static void kpt_ts(const struct vd_nlc *c, const ts t[3], const ts th[3], const double Q[9],
                   const double p[3], ts P[3])
{
    double r[3], w[3];

    vdu_sub3(r, p, c->x0[0]);
    vdu_mat3_vec(w, Q, r);
    vdu_tsk_expv(P, th, w);
    for (int i = 0; i < 3; i++)
        P[i] = vdu_ts_add(P[i], vdu_ts_add(t[i], vdu_ts_const(c->x0[0][i])));
}

/* the inner joint of link k: constant, or c + s rd on the rack */
static void inner_ts(const struct vd_nlc *c, int k, ts s, ts cc[3])
{
    vdu_tsk_const3(cc, c->link[k].c);
    if (k == c->rack_link)
        for (int i = 0; i < 3; i++)
            cc[i] = vdu_ts_add(cc[i], vdu_ts_scale(c->rd[i], s));
}

static void res_ts(const struct vd_nlc *c, ts q, ts sr, const ts t[3], const ts th[3],
                   const double Q[9], ts F[6])
{
    ts P[3], d[3], cc[3];
    int r = 0;

    for (int k = 0; k < c->nlink; k++, r++) {
        const struct vd_nlc_link *lk = &c->link[k];

        kpt_ts(c, t, th, Q, lk->o, P);
        inner_ts(c, k, sr, cc);
        for (int i = 0; i < 3; i++)
            d[i] = vdu_ts_sub(P[i], cc[i]);
        F[r] = vdu_ts_scale(1.0 / (2.0 * lk->L),
                            vdu_ts_sub(vdu_ts_dot3(d, d), vdu_ts_const(lk->L * lk->L)));
    }
    if (c->kind == VD_NLC_MCPHERSON) {
        ts R[9], B[3], N[3], cl[3];
        double b[3], n[3];

        vdu_tsk_rot(R, c->al, q);
        vdu_tsk_const3(cl, c->cl);
        vdu_tsk_place(B, cl, R, c->bl, c->cl);
        kpt_ts(c, t, th, Q, c->bl, P);
        for (int i = 0; i < 3; i++, r++)
            F[r] = vdu_ts_sub(P[i], B[i]);
        kpt_ts(c, t, th, Q, c->lp, P);
        for (int i = 0; i < 3; i++)
            d[i] = vdu_ts_sub(vdu_ts_const(c->top[i]), P[i]);
        for (int i = 0; i < 2; i++, r++) {
            memcpy(b, i ? c->ln2 : c->ln1, sizeof(b));
            vdu_mat3_vec(n, Q, b);
            vdu_tsk_expv(N, th, n);
            F[r] = vdu_ts_dot3(N, d);
        }
    } else {
        ts hz[3];

        kpt_ts(c, t, th, Q, c->wc, P);
        for (int i = 0; i < 3; i++)
            d[i] = vdu_ts_sub(P[i], vdu_ts_const(c->wc[i]));
        vdu_tsk_const3(hz, c->hz);
        F[r] = vdu_ts_sub(vdu_ts_dot3(hz, d), q);
    }
}

/* a link's (or rod's) frame from its axis z (unit series): x = sig (y_j x z) / |y_j x z|,
 * y = z x x, Q = F F0^T */
static void ujoint_frame(ts Qf[9], const ts z[3], const double yj[3], double sig,
                         const double F0[9])
{
    ts x[3], y[3], yc[3];

    vdu_tsk_const3(yc, yj);
    vdu_ts_cross3(x, yc, z);
    vdu_ts_normalize3(x, x);
    for (int i = 0; i < 3; i++)
        x[i] = vdu_ts_scale(sig, x[i]);
    vdu_ts_cross3(y, z, x);
    vdu_tsk_frame(Qf, x, y, z, F0);
}

/* the poses of every body of the node as series, from the knuckle's (t, th about Q) */
static void place_ts(const struct vd_nlc *c, ts q, ts sr, const ts t[3], const ts th[3],
                     const double Q[9], ts R[VD_NLC_MAXB][9], ts X[VD_NLC_MAXB][3])
{
    double M[9], col[3];
    ts v[3], z[3], cc[3], Ql[VD_NLC_MAXL][9], Qs[9], top[3];

    /* knuckle: R = exp([th]x) Q A0, X = g + t */
    vdu_mat3_mul(M, Q, c->A0[0]);
    for (int j = 0; j < 3; j++) {
        col[0] = M[j], col[1] = M[3 + j], col[2] = M[6 + j];
        vdu_tsk_expv(v, th, col);
        for (int i = 0; i < 3; i++)
            R[0][3 * i + j] = v[i];
    }
    for (int i = 0; i < 3; i++)
        X[0][i] = vdu_ts_add(t[i], vdu_ts_const(c->x0[0][i]));
    /* links: the axis between their ends, the spin from the universal joint */
    for (int k = 0; k < c->nlink; k++) {
        const struct vd_nlc_link *lk = &c->link[k];
        ts O[3];

        kpt_ts(c, t, th, Q, lk->o, O);
        inner_ts(c, k, sr, cc);
        for (int i = 0; i < 3; i++)
            v[i] = vdu_ts_sub(O[i], cc[i]);
        vdu_ts_normalize3(z, v);
        ujoint_frame(Ql[k], z, lk->uy, lk->sig, lk->F0);
        vdu_tsk_mm(R[lk->body], Ql[k], c->A0[lk->body]);
        vdu_tsk_place(X[lk->body], cc, Ql[k], c->x0[lk->body], lk->c);
    }
    vdu_tsk_const3(top, c->top);
    if (c->kind == VD_NLC_MCPHERSON) {
        ts Rl[9];

        /* the lower arm by its angle; the piston rod along the knuckle's strut line */
        vdu_tsk_rot(Rl, c->al, q);
        vdu_tsk_const3(cc, c->cl);
        vdu_tsk_mm(R[1], Rl, c->A0[1]);
        vdu_tsk_place(X[1], cc, Rl, c->x0[1], c->cl);
        vdu_mat3_vec(col, Q, c->ld);
        vdu_tsk_expv(z, th, col);
        ujoint_frame(Qs, z, c->st_y, c->sig_st, c->F0st);
        vdu_tsk_mm(R[c->rod], Qs, c->A0[c->rod]);
        vdu_tsk_place(X[c->rod], top, Qs, c->x0[c->rod], c->top);
    } else {
        const struct vd_nlc_link *ls = &c->link[c->strut_link];
        ts Bs[3];

        /* the strut from the top mount to the trailing link's strut point; the tube slides
         * on the rod */
        vdu_tsk_const3(cc, ls->c);
        vdu_tsk_place(Bs, cc, Ql[c->strut_link], c->bot, ls->c);
        for (int i = 0; i < 3; i++)
            v[i] = vdu_ts_sub(top[i], Bs[i]);
        vdu_ts_normalize3(z, v);
        ujoint_frame(Qs, z, c->st_y, c->sig_st, c->F0st);
        vdu_tsk_mm(R[c->rod], Qs, c->A0[c->rod]);
        vdu_tsk_place(X[c->rod], top, Qs, c->x0[c->rod], c->top);
        vdu_tsk_mm(R[c->tube], Qs, c->A0[c->tube]);
        vdu_tsk_place(X[c->tube], Bs, Qs, c->x0[c->tube], c->bot);
    }
}

/* the poses of the node's bodies as series along (q, s)(t, e): the knuckle's series degree by
 * degree (the implicit function theorem with the factors of J at the converged pose (t, Q)),
 * J y_m = -[F]_m, then the other bodies in closed form. ndeg 3: every coefficient; 2: not the
 * t^2 e one (a pass for ds/dq only: vdu_tsk_extract's dV reads 1, t, e, t e) */
static void series(const struct vd_nlc *c, ts qs, ts ss, const double t[3], const double Q[9],
                   const double J[36], const int piv[6], int ndeg, ts R[VD_NLC_MAXB][9],
                   ts X[VD_NLC_MAXB][3])
{
    static const int mono[3][2] = {{VD_TS_T, VD_TS_E}, {VD_TS_TT, VD_TS_TE}, {VD_TS_TTE, -1}};
    double b[6];
    ts tt[3], th[3], Fs[6];

    for (int i = 0; i < 3; i++) {
        tt[i] = vdu_ts_const(t[i]);
        th[i] = vdu_ts_const(0.0);
    }
    for (int deg = 0; deg < ndeg; deg++) {
        res_ts(c, qs, ss, tt, th, Q, Fs);
        for (int k = 0; k < 2 && mono[deg][k] >= 0; k++) {
            const int mo = mono[deg][k];

            for (int i = 0; i < 6; i++)
                b[i] = -Fs[i].c[mo];
            lu6_solve(J, piv, b);
            for (int i = 0; i < 3; i++) {
                tt[i].c[mo] = b[i];
                th[i].c[mo] = b[3 + i];
            }
        }
    }
    place_ts(c, qs, ss, tt, th, Q, R, X);
}

int vd_nlc_closure(const void *ctx, const double *q, const double *qd, struct vd_tree_rel *rel)
{
    const struct vd_nlc *c = ctx;
    const double s2 = qd[0] * qd[0];
    double t[3], Q[9], F[6], J[36], res, sw[6], dV[6], ka[6], dka[6];
    int piv[6];
    ts qs, R[VD_NLC_MAXB][9], X[VD_NLC_MAXB][3];

    if (solve_fixed(c, q[0], 0.0, t, Q, F, J, piv, &res))
        return -EDOM;
    /* one coordinate: along v = e = e_0 at unit speed (kappa scales with q'^2, as
     * dwcorner's) */
    qs = vdu_ts_const(q[0]);
    qs.c[VD_TS_T] = 1.0;
    qs.c[VD_TS_E] = 1.0;
    series(c, qs, vdu_ts_const(0.0), t, Q, J, piv, 3, R, X);
    for (int k = 0; k < c->nb; k++) {
        struct vd_tree_rel *r = &rel[k];

        vdu_tsk_extract(R[k], X[k], sw, dV, ka, dka);
        memcpy(r->s, sw, sizeof(sw));
        memcpy(r->ds, dV, sizeof(dV));
        for (int i = 0; i < 6; i++) {
            r->kappa[i] = s2 * ka[i];
            r->dkappa[i] = s2 * dka[i];
        }
        for (int i = 0; i < 9; i++)
            r->A[i] = R[k][i].c[VD_TS_1];
        for (int i = 0; i < 3; i++)
            r->x[i] = X[k][i].c[VD_TS_1];
    }
    return 0;
}

int vd_nlc_closure_in3(const struct vd_nlc *c, int side, const double q[3], const double qd[3],
                       int mf_only, struct vd_tree_rel *rel)
{
    /* the passes (v: t, w: e) over the corner's (q, s): (q', e_0) and (q', e_1) give s_0,
     * s_1, kappa and d kappa/dq_0,1; (e_j, e_k), j <= k, d s_j/dq_k (vdu_tsk_extract's dV);
     * d s_1/dq_0 from the integrability of the motion columns, ds_1/dq_0 = ds_0/dq_1 - s_1 x s_0
     * (as core/dwcorner.c's) */
    static const double ev[2][2] = {{1.0, 0.0}, {0.0, 1.0}};
    const int map[2] = {side, 2};
    const double v2[2] = {qd[side], qd[2]};
    double t[3], Q[9], F[6], J[36], res, sw[6], dV[6], ka[6], dka[6];
    int piv[6];
    ts qs, ss, R[VD_NLC_MAXB][9], X[VD_NLC_MAXB][3];

    if (solve_fixed(c, q[side], q[2], t, Q, F, J, piv, &res))
        return -EDOM;
    for (int k = 0; k < c->nb; k++) {
        memset(rel[k].s, 0, 18 * sizeof(double));
        memset(rel[k].ds, 0, 54 * sizeof(double));
        memset(rel[k].dkappa, 0, 18 * sizeof(double));
    }
    for (int p = 0; p < (mf_only ? 2 : 5); p++) {
        /* p 0, 1: v = q', w = e_p; p 2, 3, 4: v = e_j, w = e_k: (0, 0), (0, 1), (1, 1) */
        const int j = p < 2 ? -1 : (p == 4 ? 1 : 0), kk = p < 2 ? p : (p == 2 ? 0 : 1);
        const double *v = j < 0 ? v2 : ev[j], *w = ev[kk];

        qs = vdu_ts_const(q[side]);
        ss = vdu_ts_const(q[2]);
        qs.c[VD_TS_T] = v[0];
        qs.c[VD_TS_E] = w[0];
        ss.c[VD_TS_T] = v[1];
        ss.c[VD_TS_E] = w[1];
        series(c, qs, ss, t, Q, J, piv, j < 0 ? 3 : 2, R, X);
        for (int b = 0; b < c->nb; b++) {
            struct vd_tree_rel *r = &rel[b];

            vdu_tsk_extract(R[b], X[b], sw, dV, ka, dka);
            if (j < 0) {
                memcpy(r->s + 6 * map[kk], sw, sizeof(sw));
                memcpy(r->dkappa + 6 * map[kk], dka, sizeof(dka));
                if (kk == 0) {
                    memcpy(r->kappa, ka, sizeof(ka));
                    for (int i = 0; i < 9; i++)
                        r->A[i] = R[b][i].c[VD_TS_1];
                    for (int i = 0; i < 3; i++)
                        r->x[i] = X[b][i].c[VD_TS_1];
                }
            } else {
                memcpy(r->ds + 6 * (map[j] + 3 * map[kk]), dV, sizeof(dV));
            }
        }
    }
    for (int b = 0; b < c->nb && !mf_only; b++) {
        struct vd_tree_rel *r = &rel[b];
        double *ds = r->ds + 6 * (map[1] + 3 * map[0]), t6[6];

        vdu_crm(t6, r->s + 6 * map[1], r->s + 6 * map[0]);
        for (int i = 0; i < 6; i++)
            ds[i] = r->ds[6 * (map[0] + 3 * map[1]) + i] - t6[i];
    }
    return 0;
}

/* ---- the coordinate of a model state ---------------------------------------------------- */

void vd_nlc_coord(const struct vd_nlc *c, const struct vd_model *m, const struct vd_data *d,
                  int parent, double *q, double *qd)
{
    const double *rp = d->r + 6 * parent, *vp = d->v + 6 * parent;
    double Ap[9], Ab[9], T[9], R[9], t[3], u[3], w[3];

    (void)m;
    vdu_cardan_zyx(Ap, rp[3], rp[4], rp[5]);
    if (c->kind == VD_NLC_MCPHERSON) {
        const double *rb = d->r + 6 * c->mb[1], *vb = d->v + 6 * c->mb[1];
        double wb[3], wp[3], ag[3];

        /* the lower arm's angle about its pivot: Ap^T Ab A0^T = Rot(a, q) */
        vdu_cardan_zyx(Ab, rb[3], rb[4], rb[5]);
        vdu_mat3t_mul(T, Ap, Ab);
        vdu_mat3_mult(R, T, c->A0[1]);
        *q = vd_tf_axis_angle(R, c->al);
        vdu_mat3_vec(wb, Ab, vb + 3);
        vdu_mat3_vec(wp, Ap, vp + 3);
        vdu_mat3_vec(ag, Ap, c->al);
        *qd = vdu_dot3(wb, ag) - vdu_dot3(wp, ag);
        return;
    }
    {
        const double *rk = d->r + 6 * c->mb[0], *vk = d->v + 6 * c->mb[0];
        double s[3], P[3], vP[3], x[3];

        /* the wheel centre as a knuckle point s (body axes, from its CoM) */
        vdu_sub3(t, c->wc, c->x0[0]);
        vdu_mat3t_vec(s, c->A0[0], t);
        vdu_cardan_zyx(Ab, rk[3], rk[4], rk[5]);
        vdu_mat3_vec(t, Ab, s);
        vdu_add3(P, rk, t);
        vdu_cross3(u, vk + 3, s);
        vdu_mat3_vec(w, Ab, u);
        vdu_add3(vP, vk, w);
        /* in the parent's frame: x = Ap^T (P - xp), x' = Ap^T (vP - vp) - omega_p x x */
        vdu_sub3(t, P, rp);
        vdu_mat3t_vec(x, Ap, t);
        vdu_sub3(t, vP, vp);
        vdu_mat3t_vec(u, Ap, t);
        vdu_cross3(w, vp + 3, x);
        vdu_sub3(u, u, w);
        vdu_sub3(t, x, c->wc);
        *q = vdu_dot3(c->hz, t);
        *qd = vdu_dot3(c->hz, u);
    }
}

/* ---- building --------------------------------------------------------------------------- */

/* a marker's position and axis k (k < 0: none) in the parent frame (Ap, xp: its CoM pose) */
static void mk_in(const struct vd_model *m, int k, const double Ap[9], const double xp[3],
                  double pos[3], int axis, double ax[3])
{
    const struct vd_marker *mk = &m->marker[k];
    double A[9], x[3], g[3], t[3];

    if (mk->body == VD_GROUND) {
        vdu_mat3_eye(A);
        memset(x, 0, sizeof(x));
        memcpy(g, mk->pos, sizeof(g));
    } else {
        vd_tf_com_pose(m, mk->body, A, x);
        vdu_mat3_vec(t, A, mk->s);
        vdu_add3(g, x, t);
    }
    vdu_sub3(t, g, xp);
    vdu_mat3t_vec(pos, Ap, t);
    if (axis >= 0) {
        const double e[3] = {mk->rot[axis], mk->rot[3 + axis], mk->rot[6 + axis]};

        vdu_mat3_vec(t, A, e);
        vdu_mat3t_vec(ax, Ap, t);
    }
}

static int find(const struct vd_model *m, const char *prefix, const char *nm, int type)
{
    char name[4 * VD_NAME_MAX];
    int j;

    snprintf(name, sizeof(name), "%s.%s", prefix, nm);
    j = vd_model_find_joint(m, name);
    return j >= 0 && m->joint[j].type == type ? j : -1;
}

int vd_nlc_kind(const struct vd_model *m, const char *prefix)
{
    if (find(m, prefix, "strut_guide", VD_JOINT_CYLINDRICAL) >= 0 &&
        find(m, prefix, "lca_pivot", VD_JOINT_REVOLUTE) >= 0)
        return VD_NLC_MCPHERSON;
    if (find(m, prefix, "trailing_inner", VD_JOINT_UNIVERSAL) >= 0 &&
        find(m, prefix, "upper_front_inner", VD_JOINT_UNIVERSAL) >= 0)
        return VD_NLC_MULTILINK;
    return VD_NLC_NONE;
}

/* a universal joint's design frame for an axis z: x of the body's marker xm normal to z and
 * to the mount's y ym; 0 or -1 */
static int uframe(const double z[3], const double xm[3], const double ym[3], double *sig,
                  double F0[9])
{
    double x[3], y[3];

    vdu_cross3(x, ym, z);
    if (sqrt(vdu_dot3(x, x)) < 1e-6 || fabs(vdu_dot3(xm, z)) > 1e-9 ||
        fabs(vdu_dot3(xm, ym)) > 1e-9)
        return -1;
    vdu_unit3(x, x);
    *sig = vdu_dot3(x, xm) > 0.0 ? 1.0 : -1.0;
    vdu_scale3(x, *sig, x);
    vdu_cross3(y, z, x);
    vdu_mat3_cols(F0, x, y, z);
    return 0;
}

static void add_mount(struct vd_nlc *c, const struct vd_model *m, int mk)
{
    const int b = m->marker[mk].body;

    for (int i = 0; i < c->nmount; i++)
        if (c->mount[i] == b)
            return;
    c->mount[c->nmount++] = b;
}

/* converge (t, Q) at (q, s) from where it is until the residual stops falling; 0 or -1 */
static int converge(const struct vd_nlc *c, double q, double s, double t[3], double Q[9])
{
    double F[6], J[36], res;
    int piv[6];

    for (int it = 0; it < 40; it++) {
        if (newton(c, q, s, 0, t, Q, F, J, piv, &res))
            return -1;
        if (res < 1e-15)
            break;
        nstep(J, piv, F, t, Q);
    }
    return res < 1e-13 ? 0 : -1;
}

/* the predictor table by continuation from the design pose, along q at the rack's centre
 * (column j0), then along s from each node; 0 or the failing node q index + 1 (*bj its s
 * index) */
static int tabulate(struct vd_nlc *c, int *bj)
{
    const int mid = VD_NLC_NTAB / 2, j0 = c->ns / 2;

    *bj = j0;
    for (int dir = -1; dir <= 1; dir += 2) {
        double t[3] = {0, 0, 0}, Q[9];

        vdu_mat3_eye(Q);
        for (int i = mid; i >= 0 && i <= VD_NLC_NTAB; i += dir) {
            const double q = c->qmin + i * c->hq;

            /* from the neighbour's solution */
            if (converge(c, q, c->smin + j0 * c->hs, t, Q))
                return i + 1;
            memcpy(c->tab[i][j0], t, sizeof(t));
            rlog(c->tab[i][j0] + 3, Q);
        }
    }
    for (int i = 0; i <= VD_NLC_NTAB && c->ns; i++)
        for (int dir = -1; dir <= 1; dir += 2) {
            double t[3], Q[9];

            memcpy(t, c->tab[i][j0], sizeof(t));
            rexp(Q, c->tab[i][j0] + 3);
            for (int j = j0 + dir; j >= 0 && j <= c->ns; j += dir) {
                if (converge(c, c->qmin + i * c->hq, c->smin + j * c->hs, t, Q)) {
                    *bj = j;
                    return i + 1;
                }
                memcpy(c->tab[i][j], t, sizeof(t));
                rlog(c->tab[i][j] + 3, Q);
            }
        }
    return 0;
}

/* the pose error |y - y*| (m, rad) */
static double perr(const double t[3], const double Q[9], const double ts_[3], const double Qs[9])
{
    double D[9], p[3], e = 0.0;

    vdu_mat3_mult(D, Q, Qs);
    rlog(p, D);
    for (int i = 0; i < 3; i++)
        e = fmax(e, fmax(fabs(t[i] - ts_[i]), fabs(p[i])));
    return e;
}

/* gamma: the rows' second-derivative bounds (nlcorner.h) */
static double gamma_bound(const struct vd_nlc *c)
{
    double g = 0.0, r[3];

    for (int k = 0; k < c->nlink; k++) {
        const struct vd_nlc_link *lk = &c->link[k];
        double rho;

        vdu_sub3(r, lk->o, c->x0[0]);
        rho = sqrt(vdu_dot3(r, r));
        g = fmax(g, (3.0 + 4.0 * sqrt(3.0) * rho + 9.0 * rho * rho) / lk->L + 9.0 * rho);
    }
    if (c->kind == VD_NLC_MCPHERSON) {
        double rl, tl;

        vdu_sub3(r, c->bl, c->x0[0]);
        g = fmax(g, 9.0 * sqrt(vdu_dot3(r, r)));
        vdu_sub3(r, c->lp, c->x0[0]);
        rl = sqrt(vdu_dot3(r, r));
        vdu_sub3(r, c->top, c->lp);
        tl = sqrt(vdu_dot3(r, r));
        /* |T - P(l)| grows by at most the travel: 0.2 m of margin */
        g = fmax(g, 12.0 + 9.0 * (tl + 0.2 + rl));
    } else {
        vdu_sub3(r, c->wc, c->x0[0]);
        g = fmax(g, 9.0 * sqrt(vdu_dot3(r, r)));
    }
    return g;
}

/* the proof of VD_NLC_NEWTON over the range (nlcorner.h): Kantorovich's h and bound at 8
 * points per table interval (on a rack: 8 x 4 per table cell), and the measured quadratic
 * rate */
static void prove(struct vd_nlc *c)
{
    c->gamma = gamma_bound(c);
    c->kh = c->kbound = c->cq = c->eps0 = c->beta = 0.0;
    for (int i = 0; i < VD_NLC_NTAB; i++)
        for (int sp = 0; sp < 8 * (c->ns ? 4 * c->ns : 1); sp++) {
            const int s = sp % 8, js = sp / 8;
            const double q = c->qmin + (i + (s + 0.5) / 8.0) * c->hq;
            const double sr = c->ns ? c->smin + (js / 4 + (js % 4 + 0.5) / 4.0) * c->hs : 0.0;
            double t[3], Q[9], tr[3], Qr[9], F[6], J[36], b[6], res, beta = 0.0, eta = 0.0;
            double e[VD_NLC_NEWTON + 1], h;
            int piv[6];

            /* the solution: Newton to convergence from the predictor */
            predict(c, q, sr, tr, Qr);
            if (newton(c, q, sr, 12, tr, Qr, F, J, piv, &res)) {
                c->kh = INFINITY;
                return;
            }
            /* beta = |J(y0)^-1|, eta = |J(y0)^-1 F(y0)| at the predictor */
            predict(c, q, sr, t, Q);
            res_jac(c, q, sr, t, Q, F, J);
            if (lu6(J, piv)) {
                c->kh = INFINITY;
                return;
            }
            {
                double rs[6] = {0};

                for (int k = 0; k < 6; k++) {
                    memset(b, 0, sizeof(b));
                    b[k] = 1.0;
                    lu6_solve(J, piv, b);
                    for (int r = 0; r < 6; r++)
                        rs[r] += fabs(b[r]);
                }
                for (int r = 0; r < 6; r++)
                    beta = fmax(beta, rs[r]);
            }
            memcpy(b, F, sizeof(b));
            lu6_solve(J, piv, b);
            for (int r = 0; r < 6; r++)
                eta = fmax(eta, fabs(b[r]));
            h = beta * c->gamma * eta;
            c->kh = fmax(c->kh, h);
            c->beta = fmax(c->beta, beta);
            c->kbound = fmax(c->kbound, pow(2.0, 1 - VD_NLC_NEWTON) *
                                            pow(2.0 * h, pow(2.0, VD_NLC_NEWTON) - 1.0) * eta);
            /* the fixed iterations' errors */
            e[0] = perr(t, Q, tr, Qr);
            c->eps0 = fmax(c->eps0, e[0]);
            for (int k = 0; k < VD_NLC_NEWTON; k++) {
                res_jac(c, q, sr, t, Q, F, J);
                if (lu6(J, piv)) {
                    c->kh = INFINITY;
                    return;
                }
                nstep(J, piv, F, t, Q);
                e[k + 1] = perr(t, Q, tr, Qr);
                if (e[k] > 1e-9 && e[k + 1] > 1e-14)
                    c->cq = fmax(c->cq, e[k + 1] / (e[k] * e[k]));
            }
        }
}

int vd_nlc_from_model(struct vd_nlc *c, const struct vd_model *m, const char *prefix, int parent,
                      char *err, size_t errlen)
{
    static const char *const ml_links[VD_NLC_MAXL] = {"upper_front", "upper_back", "lateral",
                                                      "trailing", "tierod"};
    double Ap[9], xp[3], t[3], dummy[3], xm[3];
    char name[2 * VD_NAME_MAX];
    int jt, jg, bad;

    memset(c, 0, sizeof(*c));
    c->rack_link = -1;
    c->hs = 1.0; /* off a rack: one column at s = 0 */
    c->kind = vd_nlc_kind(m, prefix);
    if (!c->kind || parent < 0 || parent >= m->nbody) {
        snprintf(err, errlen, "%s: neither a multilink nor a McPherson with connection: joints",
                 prefix);
        return -EINVAL;
    }
    vd_tf_com_pose(m, parent, Ap, xp);
    /* bodies: knuckle, then the kind's */
    {
        static const char *const mp_b[] = {"knuckle", "lca", "tierod", "piston_rod"};
        static const char *const ml_b[] = {"knuckle",  "upper_front", "upper_back",  "lateral",
                                           "trailing", "tierod",      "damper_tube", "piston_rod"};
        const char *const *bn = c->kind == VD_NLC_MCPHERSON ? mp_b : ml_b;

        c->nb = c->kind == VD_NLC_MCPHERSON ? 4 : 8;
        for (int b = 0; b < c->nb; b++) {
            double A[9], x[3];

            snprintf(name, sizeof(name), "%s.%s", prefix, bn[b]);
            c->mb[b] = vd_model_find_body(m, name);
            if (c->mb[b] < 0) {
                snprintf(err, errlen, "%s: no body %s", prefix, name);
                return -EINVAL;
            }
            vd_tf_com_pose(m, c->mb[b], A, x);
            vdu_mat3t_mul(c->A0[b], Ap, A);
            vdu_sub3(t, x, xp);
            vdu_mat3t_vec(c->x0[b], Ap, t);
        }
        c->rod = c->nb - 1;
        c->tube = c->kind == VD_NLC_MCPHERSON ? -1 : 6;
    }
    /* links: universal inboard (x of the link's marker, y of the mount's), ball outboard */
    c->nlink = c->kind == VD_NLC_MCPHERSON ? 1 : VD_NLC_MAXL;
    for (int k = 0; k < c->nlink; k++) {
        struct vd_nlc_link *lk = &c->link[k];
        const char *ln = c->kind == VD_NLC_MCPHERSON ? "tierod" : ml_links[k];
        double z[3];
        int ji, jo;

        snprintf(name, sizeof(name), "%s_inner", ln);
        ji = find(m, prefix, name, VD_JOINT_UNIVERSAL);
        snprintf(name, sizeof(name), "%s_outer", ln);
        jo = find(m, prefix, name, VD_JOINT_SPHERICAL);
        if (ji < 0 || jo < 0) {
            snprintf(err, errlen, "%s: no universal %s.%s_inner and spherical %s_outer", prefix,
                     prefix, ln, ln);
            return -EINVAL;
        }
        lk->body = c->kind == VD_NLC_MCPHERSON ? 2 : 1 + k;
        if (m->marker[m->joint[ji].mk[0]].body != c->mb[lk->body] ||
            m->marker[m->joint[jo].mk[0]].body != c->mb[0]) {
            snprintf(err, errlen, "%s: link %s does not join the mount and the knuckle", prefix,
                     ln);
            return -EINVAL;
        }
        mk_in(m, m->joint[ji].mk[0], Ap, xp, lk->c, 0, xm);
        mk_in(m, m->joint[ji].mk[1], Ap, xp, dummy, 1, lk->uy);
        mk_in(m, m->joint[jo].mk[0], Ap, xp, lk->o, -1, dummy);
        add_mount(c, m, m->joint[ji].mk[1]);
        vdu_sub3(t, lk->o, lk->c);
        lk->L = sqrt(vdu_dot3(t, t));
        vdu_unit3(z, t);
        if (uframe(z, xm, lk->uy, &lk->sig, lk->F0)) {
            snprintf(err, errlen, "%s: the %s's universal joint axes are not normal to the link",
                     prefix, ln);
            return -EINVAL;
        }
    }
    /* the strut's universal joint at the top mount */
    jt = find(m, prefix, "strut_top", VD_JOINT_UNIVERSAL);
    if (jt < 0 || m->marker[m->joint[jt].mk[0]].body != c->mb[c->rod]) {
        snprintf(err, errlen, "%s: no universal joint %s.strut_top on the piston rod", prefix,
                 prefix);
        return -EINVAL;
    }
    mk_in(m, m->joint[jt].mk[0], Ap, xp, c->top, 0, xm);
    mk_in(m, m->joint[jt].mk[1], Ap, xp, dummy, 1, c->st_y);
    add_mount(c, m, m->joint[jt].mk[1]);
    if (c->kind == VD_NLC_MCPHERSON) {
        const int jp = find(m, prefix, "lca_pivot", VD_JOINT_REVOLUTE);
        const int jb = find(m, prefix, "lca_ball", VD_JOINT_SPHERICAL);
        double r[3];

        jg = find(m, prefix, "strut_guide", VD_JOINT_CYLINDRICAL);
        if (jb < 0 || m->marker[m->joint[jb].mk[0]].body != c->mb[0] ||
            m->marker[m->joint[jp].mk[0]].body != c->mb[1] ||
            m->marker[m->joint[jg].mk[0]].body != c->mb[0]) {
            snprintf(err, errlen,
                     "%s: the McPherson needs lca_pivot (arm), lca_ball and strut_guide (knuckle)",
                     prefix);
            return -EINVAL;
        }
        mk_in(m, m->joint[jp].mk[1], Ap, xp, c->cl, 2, c->al);
        add_mount(c, m, m->joint[jp].mk[1]);
        vdu_unit3(c->al, c->al);
        mk_in(m, m->joint[jb].mk[0], Ap, xp, c->bl, -1, dummy);
        mk_in(m, m->joint[jg].mk[0], Ap, xp, c->lp, 2, c->ld);
        vdu_unit3(c->ld, c->ld);
        /* the top mount on the knuckle's strut line */
        vdu_sub3(t, c->top, c->lp);
        vdu_cross3(r, t, c->ld);
        if (sqrt(vdu_dot3(r, r)) > 1e-9) {
            snprintf(err, errlen, "%s: the strut top is %.3g m off the knuckle's strut axis",
                     prefix, sqrt(vdu_dot3(r, r)));
            return -EINVAL;
        }
        r[0] = fabs(c->ld[0]) < 0.9 ? 1.0 : 0.0;
        r[1] = 1.0 - r[0];
        r[2] = 0.0;
        vdu_cross3(t, c->ld, r);
        vdu_unit3(c->ln1, t);
        vdu_cross3(c->ln2, c->ld, c->ln1);
        if (uframe(c->ld, xm, c->st_y, &c->sig_st, c->F0st)) {
            snprintf(err, errlen, "%s: the strut's universal joint axes are not normal to it",
                     prefix);
            return -EINVAL;
        }
        c->qmin = -0.4, c->qmax = 0.4; /* [rad] the arm's angle */
    } else {
        const int jb = find(m, prefix, "strut_bottom", VD_JOINT_SPHERICAL);
        double z[3];

        jg = find(m, prefix, "strut_guide", VD_JOINT_PRISMATIC);
        c->strut_link = -1;
        if (jb >= 0)
            for (int k = 0; k < c->nlink; k++)
                if (m->marker[m->joint[jb].mk[1]].body == c->mb[c->link[k].body])
                    c->strut_link = k;
        if (jb < 0 || jg < 0 || c->strut_link < 0 ||
            m->marker[m->joint[jb].mk[0]].body != c->mb[c->tube]) {
            snprintf(err, errlen,
                     "%s: the multilink's strut needs strut_bottom (tube on a link) and "
                     "strut_guide (prismatic)",
                     prefix);
            return -EINVAL;
        }
        mk_in(m, m->joint[jb].mk[0], Ap, xp, c->bot, -1, dummy);
        vdu_sub3(t, c->top, c->bot);
        vdu_unit3(z, t);
        if (uframe(z, xm, c->st_y, &c->sig_st, c->F0st)) {
            snprintf(err, errlen, "%s: the strut's universal joint axes are not normal to it",
                     prefix);
            return -EINVAL;
        }
        c->hz[2] = 1.0; /* the coordinate: the wheel centre's height along the parent's z */
        c->qmin = -0.15, c->qmax = 0.15; /* [m] the wheel centre's travel */
    }
    {
        /* the wheel centre (a knuckle point at the design pose) */
        int wcm;

        snprintf(name, sizeof(name), "%s.wheel_center", prefix);
        wcm = vd_model_find_marker(m, name);
        if (wcm < 0) {
            snprintf(err, errlen, "%s: no marker %s", prefix, name);
            return -EINVAL;
        }
        mk_in(m, wcm, Ap, xp, c->wc, -1, dummy);
    }
    c->hq = (c->qmax - c->qmin) / VD_NLC_NTAB;
    bad = tabulate(c, &jt); /* jt: the s index, 0 here */
    if (bad) {
        snprintf(err, errlen,
                 "%s: the %s's loops do not close at %s %.3g %s (a link would have to "
                 "stretch): not embedded",
                 prefix, c->kind == VD_NLC_MCPHERSON ? "McPherson" : "multilink",
                 c->kind == VD_NLC_MCPHERSON ? "lower arm angle" : "wheel travel",
                 c->qmin + (bad - 1) * c->hq, c->kind == VD_NLC_MCPHERSON ? "rad" : "m");
        return -EINVAL;
    }
    prove(c);
    if (!(c->kh <= 0.5 && c->kbound <= VD_NLC_EBOUND)) {
        snprintf(err, errlen,
                 "%s: %d Newton iterations are not proven over the range (Kantorovich h %.3g, "
                 "bound %.3g): not embedded",
                 prefix, VD_NLC_NEWTON, c->kh, c->kbound);
        return -EINVAL;
    }
    return 0;
}

int vd_nlc_on_rack(struct vd_nlc *c, const double rd[3], double smax, char *err, size_t errlen)
{
    int bad, bj;

    c->rack_link = c->kind == VD_NLC_MCPHERSON ? 0 : VD_NLC_MAXL - 1; /* the tie rod */
    memcpy(c->rd, rd, sizeof(c->rd));
    c->ns = VD_NLC_NS;
    c->smin = -smax;
    c->smax = smax;
    c->hs = 2.0 * smax / VD_NLC_NS;
    bad = tabulate(c, &bj);
    if (bad) {
        snprintf(err, errlen,
                 "the %s's loops do not close at %s %.3g %s and rack travel %.3g m (a link "
                 "would have to stretch): not embedded",
                 c->kind == VD_NLC_MCPHERSON ? "McPherson" : "multilink",
                 c->kind == VD_NLC_MCPHERSON ? "lower arm angle" : "wheel travel",
                 c->qmin + (bad - 1) * c->hq, c->kind == VD_NLC_MCPHERSON ? "rad" : "m",
                 c->smin + bj * c->hs);
        return -EINVAL;
    }
    prove(c);
    if (!(c->kh <= 0.5 && c->kbound <= VD_NLC_EBOUND)) {
        snprintf(err, errlen,
                 "%d Newton iterations are not proven over the range and the rack's +-%.3g m "
                 "(Kantorovich h %.3g, bound %.3g): not embedded",
                 VD_NLC_NEWTON, smax, c->kh, c->kbound);
        return -EINVAL;
    }
    return 0;
}

int vd_nlc_tree_add(const struct vd_nlc *c, const struct vd_model *m, int root, struct vd_tree *t)
{
    struct vd_tree_body tb[VD_NLC_MAXB];

    for (int b = 0; b < c->nb; b++)
        vd_tf_tbody(m, c->mb[b], root, &tb[b]);
    return vd_tree_add_embedded(t, 0, 1, vd_nlc_closure, c, tb, c->nb);
}
