/* tests/core/test_dwcorner.c - the double-wishbone constraint embedding (core/dwcorner.h)
 * against the ideal-joint HMMWV (config/vehicles/hmmwv_joints.yaml, the FA form), on the
 * front-left (travel and rack), front-right and rear-left (travel) corners, over the travel
 * range:
 *   1. the ideal-joint model's constraints at the embedded poses: g = 0, G v = 0 for the
 *      velocities of the motion columns, G v' + gamma = 0 for the accelerations of the
 *      acceleration term (rtvd's own rows, core/joint.c);
 *   2. the poses equal the ideal-joint model's own solution (Newton's method on its
 *      constraints with the lower arm held, from a start 1 mm / 1 mrad away) to 1e-9: toe and
 *      camber of the knuckle, every body position;
 *   3. ds/dq and d kappa/dq (the Taylor passes) against central differences of s and kappa;
 *   4. the wheel rate vs travel (the coil spring's, at the wheel centre), the spring's motion
 *      ratio dL/dz and the strut's: from the closure's motion columns and acceleration term
 *      against the ideal-joint model's own velocities and accelerations (G v = 0 and
 *      G v' = -gamma solved with the lower arm's rate given, at Newton's poses) to 1e-9.
 *   5. the closure for M and f only (rel mf_only: what LSRT2's stage point needs) gives the
 *      full closure's poses, motion columns and acceleration term bit for bit;
 *   6. two coordinates: the arms' and the strut's columns of the second coordinate are exactly
 *      zero (what the steered axles' dmask declares) and vd_dwc_closure_in3 writes the
 *      closure's columns into a three-coordinate node bit for bit.
 * Tolerances are derived beside each check. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "config/model_yaml.h"
#include "core/data.h"
#include "core/dwcorner.h"
#include "core/joint.h"
#include "core/kinematics.h"
#include "core/model.h"
#include "core/vdmath.h"
#include "ce_checks.h"

/* the model's r, v, v' for the corner's bodies from the closure at (q, qd), parent (the
 * chassis) at its initial pose and at rest; the rack mount (if any) translated by s */
static void place(const struct vd_model *m, struct vd_data *d, const struct vd_dwc *c,
                  const int *body, int ch, int mount, const double *q, const double *qd,
                  struct vd_tree_rel *rel, double *acc)
{
    double Ac[9], xc[3], t[3];

    vd_data_reset(m, d);
    memset(acc, 0, (size_t)m->nq * sizeof(double));
    vdu_cardan_zyx(Ac, d->r[6 * ch + 3], d->r[6 * ch + 4], d->r[6 * ch + 5]);
    memcpy(xc, d->r + 6 * ch, sizeof(xc));
    vd_dwc_closure(c, q, qd, rel);
    for (int k = 0; k < VD_DWC_NB; k++) {
        const struct vd_tree_rel *r = &rel[k];
        double A[9], V[6] = {0}, w[3], vO[3], vc[3], al[3], aO[3], ac[3], *rb = d->r + 6 * body[k];
        double *vb = d->v + 6 * body[k], *ab = acc + 6 * body[k];

        vdu_mat3_mul(A, Ac, r->A);
        vdu_mat3_vec(t, Ac, r->x);
        vdu_add3(rb, xc, t);
        vdu_cardan_from_mat(rb + 3, A);
        for (int j = 0; j < c->nd; j++)
            for (int i = 0; i < 6; i++)
                V[i] += r->s[6 * j + i] * qd[j];
        /* parent-frame spatial vectors at the chassis CoM: the chassis is at rest, so the
         * global ones are its rotation of them (the lever xc adds nothing to v_CoM) */
        vdu_mat3_vec(w, Ac, V);
        vdu_mat3_vec(vO, Ac, V + 3);
        vdu_mat3_vec(t, Ac, r->x);
        vdu_cross3(vc, w, t); /* omega x (x - xc) */
        vdu_add3(vc, vO, vc);
        memcpy(vb, vc, sizeof(vc));
        vdu_mat3t_vec(vb + 3, A, w);
        /* a_CoM = a_O + alpha x x + omega x v_CoM (at the chassis CoM), omega_b' = A^T alpha */
        vdu_mat3_vec(al, Ac, r->kappa);
        vdu_mat3_vec(aO, Ac, r->kappa + 3);
        vdu_mat3_vec(t, Ac, r->x);
        {
            double t2[3];

            vdu_cross3(t2, al, t);
            vdu_add3(ac, aO, t2);
            vdu_cross3(t2, w, vc);
            vdu_add3(ac, ac, t2);
        }
        memcpy(ab, ac, sizeof(ac));
        vdu_mat3t_vec(ab + 3, A, al);
    }
    if (mount >= 0 && c->nd > 1) {
        vdu_mat3_vec(t, Ac, c->rack);
        for (int i = 0; i < 3; i++) {
            d->r[6 * mount + i] += t[i] * q[1];
            d->v[6 * mount + i] = t[i] * qd[1];
        }
    }
}

/* the corner's joints: the rows [r0, r1) of the joints named prefix.* */
static void corner_rows(const struct vd_model *m, const char *prefix, int *r0, int *r1)
{
    const size_t n = strlen(prefix);

    *r0 = -1;
    *r1 = -1;
    for (int j = 0; j < m->njoint; j++)
        if (!strncmp(m->joint[j].name, prefix, n) && m->joint[j].name[n] == '.') {
            if (*r0 < 0)
                *r0 = m->joint_row[j];
            *r1 = m->joint_row[j + 1];
        }
}

/* Newton's method on the ideal-joint constraints of the corner's rows except the lower arm
 * pivot's, over the five other bodies (30 rows, 30 unknowns), positions updated along
 * r' = K v; returns the last step's norm */
static double fa_newton(const struct vd_model *m, struct vd_data *d, const int *body, int r0,
                        int r1, int l0, int l1)
{
    static double Gs[30 * 30], rhs[30];
    const double *u = d->u;
    double step = 1.0;

    for (int it = 0; it < 30 && step > 1e-15; it++) {
        int n = 0;

        vd_kinematics(m, d, d->r, d->v);
        vd_joint_eval(m, d, u, false);
        memset(Gs, 0, sizeof(Gs));
        for (int row = r0; row < r1; row++) {
            if (row >= l0 && row < l1)
                continue; /* the lower arm's pivot: the arm is held */
            rhs[n] = -d->jg[row];
            for (int s = 0; s < 2; s++) {
                const int b = m->jrow_body[2 * row + s];

                for (int k = 1; k < VD_DWC_NB; k++)
                    if (b == body[k])
                        for (int c = 0; c < 6; c++)
                            Gs[n + 30 * (6 * (k - 1) + c)] += d->jG[12 * row + 6 * s + c];
            }
            if (++n > 30)
                return INFINITY;
        }
        if (n != 30 || vt_gauss(30, Gs, rhs))
            return INFINITY;
        step = 0.0;
        for (int k = 1; k < VD_DWC_NB; k++) {
            double *r = d->r + 6 * body[k], Ei[9], da[3];

            vd_cardan_Einv(Ei, r[4], r[5]);
            vdu_mat3_vec(da, Ei, rhs + 6 * (k - 1) + 3);
            for (int i = 0; i < 3; i++) {
                r[i] += rhs[6 * (k - 1) + i];
                r[3 + i] += da[i];
            }
            for (int i = 0; i < 6; i++)
                step = fmax(step, fabs(rhs[6 * (k - 1) + i]));
        }
    }
    return step;
}

/* the velocities (gam NULL) or accelerations of the corner's bodies but the lower arm from the
 * ideal-joint model's rows (the last vd_joint_eval): G x = 0, or G x = -gamma, with the lower
 * arm's xl given (its pivot rows [l0, l1) left out), the chassis and the rack at rest; x (6
 * per body, body[1..]) or -1 */
static int fa_rates(const struct vd_model *m, const struct vd_data *d, const int *body, int r0,
                    int r1, int l0, int l1, const double *xl, const double *gam, double *x)
{
    static double Gs[30 * 30];
    int n = 0;

    memset(Gs, 0, sizeof(Gs));
    for (int row = r0; row < r1; row++) {
        if (row >= l0 && row < l1)
            continue;
        if (n >= 30)
            return -1;
        x[n] = gam ? -gam[row] : 0.0;
        for (int sd = 0; sd < 2; sd++) {
            const int b = m->jrow_body[2 * row + sd];
            const double *g = d->jG + 12 * row + 6 * sd;

            if (b == body[0])
                for (int c = 0; c < 6; c++)
                    x[n] -= g[c] * xl[c];
            for (int k = 1; k < VD_DWC_NB; k++)
                if (b == body[k])
                    for (int c = 0; c < 6; c++)
                        Gs[n + 30 * (6 * (k - 1) + c)] += g[c];
        }
        n++;
    }
    return n == 30 ? vt_gauss(30, Gs, x) : -1;
}

/* a point s (body axes, from the CoM) of a body with pose r, velocity v (global CoM velocity,
 * body angular velocity) and acceleration a (their rates): position, velocity, acceleration */
static void point_kin(const double *r, const double *v, const double *a, const double *s, double *p,
                      double *pv, double *pa)
{
    double A[9], t[3], u[3], w2[3];

    vdu_cardan_zyx(A, r[3], r[4], r[5]);
    vdu_mat3_vec(t, A, s);
    vdu_add3(p, r, t);
    vdu_cross3(t, v + 3, s); /* omega x s */
    vdu_mat3_vec(u, A, t);
    vdu_add3(pv, v, u);
    vdu_cross3(w2, v + 3, t); /* omega x (omega x s) */
    vdu_cross3(u, a + 3, s);  /* alpha x s */
    vdu_add3(u, u, w2);
    vdu_mat3_vec(t, A, u);
    vdu_add3(pa, a, t);
}

/* the length of the line between two points and its first two rates */
static void line_rates(const double *p1, const double *v1, const double *a1, const double *p2,
                       const double *v2, const double *a2, double *L, double *Ld, double *Ldd)
{
    double dp[3], dv[3], da[3], e[3];

    vdu_sub3(dp, p1, p2);
    vdu_sub3(dv, v1, v2);
    vdu_sub3(da, a1, a2);
    *L = sqrt(vdu_dot3(dp, dp));
    for (int i = 0; i < 3; i++)
        e[i] = dp[i] / *L;
    *Ld = vdu_dot3(e, dv);
    /* L'' = e . dp'' + (|dp'|^2 - (e . dp')^2) / L */
    *Ldd = vdu_dot3(e, da) + (vdu_dot3(dv, dv) - *Ld * *Ld) / *L;
}

/* the corner's kinematic curves at one travel from r, v, a (the model's layout, the lower arm
 * at unit rate): wheel-centre height z' z'' (a knuckle point), the coil spring's and the
 * strut's lengths with their rates, and the wheel rate of the coil spring [N/m] */
struct kc_point {
    double z, zq, zqq, L, Lq, Lqq, Ls, Lsq, Lsqq, rate;
};

static int kc_eval(const struct vd_model *m, const double *r, const double *v, const double *a,
                   int kn, const double *s_wc, int isp, int ist, struct kc_point *k)
{
    double p[3][3], pv[3][3], pa[3][3], L[2], Lq[2], Lqq[2];
    const int ip[2] = {isp, ist};

    point_kin(r + 6 * kn, v + 6 * kn, a + 6 * kn, s_wc, p[0], pv[0], pa[0]);
    k->z = p[0][2];
    k->zq = pv[0][2];
    k->zqq = pa[0][2];
    for (int e = 0; e < 2; e++) {
        for (int j = 0; j < 2; j++) {
            const struct vd_marker *mk = &m->marker[m->p2p[ip[e]].mk[j]];

            if (mk->body < 0)
                return -1;
            point_kin(r + 6 * mk->body, v + 6 * mk->body, a + 6 * mk->body, mk->s, p[1 + j],
                      pv[1 + j], pa[1 + j]);
        }
        line_rates(p[1], pv[1], pa[1], p[2], pv[2], pa[2], &L[e], &Lq[e], &Lqq[e]);
    }
    k->L = L[0], k->Lq = Lq[0], k->Lqq = Lqq[0];
    k->Ls = L[1], k->Lsq = Lq[1], k->Lsqq = Lqq[1];
    {
        /* F(L) = preload + spring(L0 - L) (compression > 0); by virtual work the wheel carries
         * F_w = -F dL/dz, so K_w = dF_w/dz = spring'(x) (dL/dz)^2 - F d2L/dz2, with
         * dL/dz = L'/z' and d2L/dz2 = (L'' z' - L' z'') / z'^3 (rates per lower-arm angle) */
        const struct vd_p2p *sp = &m->p2p[isp];
        double ks, F = sp->preload + vd_curve_eval(m, &sp->spring, sp->free_length - k->L, &ks);
        const double Lz = k->Lq / k->zq, Lzz = (k->Lqq * k->zq - k->Lq * k->zqq) / pow(k->zq, 3);

        k->rate = ks * Lz * Lz - F * Lzz;
    }
    return 0;
}

static void corner(const struct vd_model *m, struct vd_data *d, const char *prefix,
                   const double *rack)
{
    struct vd_dwc c;
    int body[VD_DWC_NB], r0, r1;
    const int ch = vd_model_find_body(m, "chassis");
    const int mount = rack ? vd_model_find_body(m, "steering.link") : -1;
    char err[200];
    static struct vd_tree_rel rel[VD_DWC_NB], rp[VD_DWC_NB], rm[VD_DWC_NB];
    int nmf = 0, nmf_same = 0, n3 = 0, n3_same = 0;
    static double acc[6 * 64], rce[6 * 64];
    double wg = 0.0, wgv = 0.0, wga = 0.0, wpos = 0.0, wang = 0.0, wds = 0.0, wdk = 0.0;
    double toe_range[2] = {INFINITY, -INFINITY}, cam_range[2] = {INFINITY, -INFINITY};
    int ok = vd_dwc_from_model(&c, m, prefix, ch, rack, body, err, sizeof(err));
    double wrate = 0.0, wmr = 0.0, wsmr = 0.0, kmax = 0.0, rate_range[2] = {INFINITY, -INFINITY};
    double s_wc[3];
    int isp, ist, lpiv;

    CHECK(ok == 0, "%s: %s", prefix, ok ? err : "");
    if (ok)
        return;
    corner_rows(m, prefix, &r0, &r1);
    {
        /* the wheel centre as a point of the knuckle (its marker is on the wheel), the coil
         * spring and the strut, the lower arm's pivot rows */
        char nm[2 * VD_NAME_MAX];
        const int kn = body[VD_DWC_KNUCKLE];
        int wc;
        double A[9], t[3], p0[3];

        vd_data_reset(m, d);
        snprintf(nm, sizeof(nm), "%s.wheel_center", prefix);
        wc = vd_model_find_marker(m, nm);
        snprintf(nm, sizeof(nm), "%s.spring", prefix);
        isp = vd_model_find_p2p(m, nm);
        snprintf(nm, sizeof(nm), "%s.strut", prefix);
        ist = vd_model_find_p2p(m, nm);
        snprintf(nm, sizeof(nm), "%s.lca_pivot", prefix);
        lpiv = vd_model_find_joint(m, nm);
        CHECK(wc >= 0 && isp >= 0 && ist >= 0 && lpiv >= 0,
              "%s: wheel_center, spring, strut, lca_pivot found", prefix);
        if (wc < 0 || isp < 0 || ist < 0 || lpiv < 0)
            return;
        vdu_cardan_zyx(A, d->r[6 * m->marker[wc].body + 3], d->r[6 * m->marker[wc].body + 4],
                       d->r[6 * m->marker[wc].body + 5]);
        vdu_mat3_vec(t, A, m->marker[wc].s);
        vdu_add3(p0, d->r + 6 * m->marker[wc].body, t);
        vdu_cardan_zyx(A, d->r[6 * kn + 3], d->r[6 * kn + 4], d->r[6 * kn + 5]);
        vdu_sub3(t, p0, d->r + 6 * kn);
        vdu_mat3t_vec(s_wc, A, t);
    }
    CHECK(r1 - r0 == 35, "%s: 35 joint rows (%d)", prefix, r1 - r0);
    for (int step = -8; step <= 8; step++) {
        /* lower arm -0.24 .. 0.24 rad (wheel travel about -+0.13 m, the stops' range) */
        double q[2] = {0.03 * step, rack ? 0.0025 * step * (step % 3 - 1) : 0.0};
        double qd[2] = {1.5 - 0.1 * step, rack ? 0.2 + 0.05 * step : 0.0};
        double gv[256], ga[256];

        place(m, d, &c, body, ch, mount, q, qd, rel, acc);
        vd_kinematics(m, d, d->r, d->v);
        vd_joint_eval(m, d, d->u, true);
        vd_joint_G_mul(m, d, d->v, gv);
        vd_joint_G_mul(m, d, acc, ga);
        for (int row = r0; row < r1; row++) {
            wg = fmax(wg, fabs(d->jg[row]));
            wgv = fmax(wgv, fabs(gv[row]));
            wga = fmax(wga, fabs(ga[row] + d->jgam[row]));
        }
        /* 2. the ideal-joint model's own solution, from 1 mm / 1 mrad off the embedded one */
        memcpy(rce, d->r, (size_t)m->nq * sizeof(double));
        for (int k = 1; k < VD_DWC_NB; k++)
            for (int i = 0; i < 6; i++)
                d->r[6 * body[k] + i] += 1e-3 * ((i + k) % 2 ? 1.0 : -1.0);
        {
            char jn[2 * VD_NAME_MAX];
            int jl;
            double st;

            snprintf(jn, sizeof(jn), "%s.lca_pivot", prefix);
            jl = vd_model_find_joint(m, jn);
            st = fa_newton(m, d, body, r0, r1, m->joint_row[jl], m->joint_row[jl + 1]);

            CHECK(st < 1e-12, "%s: Newton on the joints converged (last step %.3g)", prefix, st);
        }
        for (int k = 1; k < VD_DWC_NB; k++) {
            double A1[9], A2[9];
            const double *a = rce + 6 * body[k], *b = d->r + 6 * body[k];

            for (int i = 0; i < 3; i++)
                wpos = fmax(wpos, fabs(a[i] - b[i]));
            vdu_cardan_zyx(A1, a[3], a[4], a[5]);
            vdu_cardan_zyx(A2, b[3], b[4], b[5]);
            for (int i = 0; i < 9; i++)
                wang = fmax(wang, fabs(A1[i] - A2[i]));
            if (k == VD_DWC_KNUCKLE) {
                /* toe: heading of the knuckle's x axis; camber: its lateral axis' tilt */
                const double toe1 = atan2(A1[3], A1[0]), toe2 = atan2(A2[3], A2[0]);
                const double cam1 = asin(A1[7]), cam2 = asin(A2[7]);

                wang = fmax(wang, fmax(fabs(toe1 - toe2), fabs(cam1 - cam2)));
                toe_range[0] = fmin(toe_range[0], toe1);
                toe_range[1] = fmax(toe_range[1], toe1);
                cam_range[0] = fmin(cam_range[0], cam1);
                cam_range[1] = fmax(cam_range[1], cam1);
            }
        }
        /* 4. the kinematic curves: CE's from the closure at a unit lower-arm rate (rack held),
         * the ideal-joint model's from its own rows at Newton's poses: G v = 0 and then
         * G v' = -gamma(v) for the other five bodies with the lower arm's rate and
         * acceleration given (the coordinate: a rotation about its pivot, the same in both) */
        {
            static double rnw[6 * 64], vj[6 * 64], aj[6 * 64], xs[30];
            const double qd1[2] = {1.0, 0.0};
            struct kc_point kce, kfa;
            const int l0 = m->joint_row[lpiv], l1 = m->joint_row[lpiv + 1];
            int rc;

            memcpy(rnw, d->r, (size_t)m->nq * sizeof(double));
            place(m, d, &c, body, ch, mount, q, qd1, rel, acc);
            rc = kc_eval(m, d->r, d->v, acc, body[VD_DWC_KNUCKLE], s_wc, isp, ist, &kce);
            memset(vj, 0, sizeof(vj));
            memset(aj, 0, sizeof(aj));
            memcpy(vj + 6 * body[0], d->v + 6 * body[0], 6 * sizeof(double));
            memcpy(aj + 6 * body[0], acc + 6 * body[0], 6 * sizeof(double));
            memcpy(d->r, rnw, (size_t)m->nq * sizeof(double));
            memcpy(d->v, vj, (size_t)m->nq * sizeof(double));
            vd_kinematics(m, d, d->r, d->v);
            vd_joint_eval(m, d, d->u, false);
            rc |= fa_rates(m, d, body, r0, r1, l0, l1, vj + 6 * body[0], NULL, xs);
            for (int k = 1; k < VD_DWC_NB; k++)
                memcpy(vj + 6 * body[k], xs + 6 * (k - 1), 6 * sizeof(double));
            memcpy(d->v, vj, (size_t)m->nq * sizeof(double));
            vd_kinematics(m, d, d->r, d->v);
            vd_joint_eval(m, d, d->u, true);
            rc |= fa_rates(m, d, body, r0, r1, l0, l1, aj + 6 * body[0], d->jgam, xs);
            for (int k = 1; k < VD_DWC_NB; k++)
                memcpy(aj + 6 * body[k], xs + 6 * (k - 1), 6 * sizeof(double));
            rc |= kc_eval(m, rnw, vj, aj, body[VD_DWC_KNUCKLE], s_wc, isp, ist, &kfa);
            CHECK(rc == 0, "%s: the kinematic curves evaluated", prefix);
            wrate = fmax(wrate, fabs(kce.rate - kfa.rate));
            kmax = fmax(kmax, fabs(kfa.rate));
            wmr = fmax(wmr, fabs(kce.Lq / kce.zq - kfa.Lq / kfa.zq));
            wsmr = fmax(wsmr, fabs(kce.Lsq / kce.zq - kfa.Lsq / kfa.zq));
            rate_range[0] = fmin(rate_range[0], kfa.rate);
            rate_range[1] = fmax(rate_range[1], kfa.rate);
            vd_dwc_closure(&c, q, qd, rel); /* 3. compares the closure at qd */
            /* 5. the closure for M and f only (mf_only, vd_tree_kin_mf: for two coordinates
             * second-degree polynomials, no ds, d kappa): the pose, s and kappa are the full
             * closure's bit for bit (the same operations on the coefficients up to degree 2) */
            {
                static struct vd_tree_rel rl[VD_DWC_NB];
                int same = 1;

                rl[0].mf_only = 1;
                CHECK(vd_dwc_closure(&c, q, qd, rl) == 0, "%s: the closure for M and f", prefix);
                for (int k = 0; k < VD_DWC_NB; k++)
                    same &= !memcmp(rl[k].A, rel[k].A, sizeof(rl[k].A)) &&
                            !memcmp(rl[k].x, rel[k].x, sizeof(rl[k].x)) &&
                            !memcmp(rl[k].s, rel[k].s, (size_t)(6 * c.nd) * sizeof(double)) &&
                            !memcmp(rl[k].kappa, rel[k].kappa, sizeof(rl[k].kappa));
                nmf++;
                nmf_same += same;
            }
            /* 6. two coordinates: the bodies the second one does not move (the arms and the
             * strut, !vd_dwc_q1_moves: the steered axles' dmask skips them for it) have exactly
             * zero columns of it; and vd_dwc_closure_in3 writes the closure's columns bit for
             * bit into a three-coordinate node's (the other travel's zero), both requests */
            if (c.nd == 2)
                for (int side = 0; side < 2; side++)
                    for (int mf = 0; mf < 2; mf++) {
                        static struct vd_tree_rel r3[VD_DWC_NB], r2[VD_DWC_NB];
                        const double q3[3] = {side ? 0.0 : q[0], side ? q[0] : 0.0, q[1]};
                        const double qd3[3] = {side ? 0.0 : qd[0], side ? qd[0] : 0.0, qd[1]};
                        const int map[2] = {side, 2};
                        int same = 1;

                        r2[0].mf_only = mf;
                        same &= vd_dwc_closure(&c, q, qd, r2) == 0;
                        same &= vd_dwc_closure_in3(&c, side, q3, qd3, mf, r3) == 0;
                        for (int k = 0; k < VD_DWC_NB; k++) {
                            const struct vd_tree_rel *a = &r2[k], *b = &r3[k];
                            static const double z6[6];

                            same &= !memcmp(a->A, b->A, sizeof(a->A)) &&
                                    !memcmp(a->x, b->x, sizeof(a->x)) &&
                                    !memcmp(a->kappa, b->kappa, sizeof(a->kappa)) &&
                                    !memcmp(b->s + 6 * (1 - side), z6, sizeof(z6));
                            for (int j = 0; j < 2; j++) {
                                same &= !memcmp(a->s + 6 * j, b->s + 6 * map[j], sizeof(z6));
                                if (!vd_dwc_q1_moves(k) && j == 1)
                                    same &= !memcmp(a->s + 6 * j, z6, sizeof(z6));
                                if (mf)
                                    continue;
                                same &=
                                    !memcmp(a->dkappa + 6 * j, b->dkappa + 6 * map[j], sizeof(z6));
                                if (!vd_dwc_q1_moves(k) && j == 1)
                                    same &= !memcmp(a->dkappa + 6 * j, z6, sizeof(z6));
                                for (int i = 0; i < 2; i++) {
                                    same &= !memcmp(a->ds + 6 * (j + 2 * i),
                                                    b->ds + 6 * (map[j] + 3 * map[i]), sizeof(z6));
                                    if (!vd_dwc_q1_moves(k) && i + j > 0)
                                        same &= !memcmp(a->ds + 6 * (j + 2 * i), z6, sizeof(z6));
                                }
                            }
                            for (int j = 0; j < 3 && !mf; j++)
                                same &= !memcmp(b->ds + 6 * ((1 - side) + 3 * j), z6, sizeof(z6)) &&
                                        !memcmp(b->ds + 6 * (j + 3 * (1 - side)), z6, sizeof(z6)) &&
                                        !memcmp(b->dkappa + 6 * (1 - side), z6, sizeof(z6));
                        }
                        n3++;
                        n3_same += same;
                    }
        }
        /* 3. ds/dq_k and d kappa/dq_k against central differences of s and kappa, step
         * e = 1e-6 rad (m): truncation e^2/6 |s'''|; s''' grows as the tie rod and the
         * steering arm approach alignment (1 / sin^3 of their angle, >= 0.3 here) and with
         * the rack per metre of travel (steering arm 0.15 m: 1 / 0.15^3 = 300 per m^3): at
         * most 1e4, so 2e-9; rounding u |s| / e = 2.2e-16 x 3 / 1e-6 = 7e-10; kappa the
         * same times |q'|^2 <= 2.3 and one more derivative (another factor 30): tol 1e-7
         * for both (a wrong or missing term is >= 1e-2) */
        for (int k = 0; k < c.nd; k++) {
            double qp[2] = {q[0], q[1]}, qm[2] = {q[0], q[1]};
            const double e = 1e-6;

            qp[k] += e;
            qm[k] -= e;
            vd_dwc_closure(&c, qp, qd, rp);
            vd_dwc_closure(&c, qm, qd, rm);
            for (int b = 0; b < VD_DWC_NB; b++)
                for (int i = 0; i < 6; i++) {
                    for (int j = 0; j < c.nd; j++)
                        wds = fmax(wds, fabs(rel[b].ds[6 * (j + c.nd * k) + i] -
                                             (rp[b].s[6 * j + i] - rm[b].s[6 * j + i]) / (2 * e)));
                    wdk = fmax(wdk, fabs(rel[b].dkappa[6 * k + i] -
                                         (rp[b].kappa[i] - rm[b].kappa[i]) / (2 * e)));
                }
        }
    }
    /* 1. the rows are of size |d| <= 1 m, |G v| <= 10 m/s, |G v' + gamma| <= 100 m/s^2; the
     * closed form computes every pose from a handful of operations on O(1) numbers, each
     * with a relative rounding error u, amplified by the arms' motion ratios (<= 10) and the
     * condition of the two circle intersections (1 / sin of the angle between the circles,
     * >= 0.1 here): 1e3 u relative, so 1e-12 m for g, 1e-11 for G v, 1e-10 for the
     * accelerations (a missing term of gamma is >= 1e-3) */
    CHECK(nmf > 0 && nmf_same == nmf,
          "%s: the closure for M and f equals the full one's pose, s, kappa bit for bit at %d of "
          "%d states",
          prefix, nmf_same, nmf);
    CHECK(n3_same == n3 && (c.nd == 1 || n3 > 0),
          "%s: the columns of the arms and the strut for the second coordinate exactly zero, "
          "and vd_dwc_closure_in3 the closure's columns bit for bit, at %d of %d states",
          prefix, n3_same, n3);
    CHECK_TOL(wg, 1e-12, "%s: max |g| at the embedded poses %.3g", prefix, wg);
    CHECK_TOL(wgv, 1e-11, "%s: max |G v| for the motion columns %.3g", prefix, wgv);
    CHECK_TOL(wga, 1e-10, "%s: max |G v' + gamma| for the acceleration term %.3g", prefix, wga);
    /* 2. Newton's solution is the ideal-joint model's to its residual g <= 1e-15 over the
     * smallest singular value of the corner's 30x30 G (>= 1e-2: the motion ratios), and the
     * embedded one by 1. within 1e-12 / 1e-2 = 1e-10: 1e-9 as the issue asks */
    CHECK_TOL(wpos, 1e-9, "%s: body positions vs the ideal-joint solution %.3g m", prefix, wpos);
    CHECK_TOL(wang, 1e-9, "%s: rotations, toe, camber vs the ideal-joint solution %.3g", prefix,
              wang);
    /* 4. the motion ratios dL/dz = L'/z' and the wheel rate spring'(x) (L'/z')^2 - F (L'' z' -
     * L' z'') / z'^3 take the first and second rates of points of the bodies; the joint
     * model's solve them from its rows with the residuals of 1. and G's smallest singular
     * value (>= 1e-2, see 2.): 1e-10 / 1e-2 = 1e-8 m/s^2 at most in the accelerations, far
     * less in the velocities (1e-11 / 1e-2). The ratios are O(1) over z' >= 0.1 m/rad (a
     * 0.5 m arm at <= 0.24 rad): 1e-9 absolute, as the 1e-9. The wheel rate: spring'
     * <= 3.3e5 N/m (the curve's end slope) times the ratio's error (2 x 1e-9 x 1) plus F
     * (<= 4e4 N) times d2L/dz2's (1e-8 / z'^3 <= 1e-5 1/m), so 0.4 N/m absolute, 1e-9 of
     * the wheel rate's scale of 4e5 N/m: checked relative to the largest wheel rate of the
     * sweep at 1e-9 */
    CHECK_TOL(wmr, 1e-9, "%s: spring motion ratio dL/dz vs the ideal-joint model %.3g", prefix,
              wmr);
    CHECK_TOL(wsmr, 1e-9, "%s: strut motion ratio vs the ideal-joint model %.3g", prefix, wsmr);
    CHECK_TOL(wrate / kmax, 1e-9, "%s: wheel rate vs the ideal-joint model %.3g N/m (of %.4g)",
              prefix, wrate, kmax);
    CHECK_TOL(wds, 1e-7, "%s: ds/dq vs central differences %.3g", prefix, wds);
    CHECK_TOL(wdk, 1e-7, "%s: d kappa/dq vs central differences %.3g", prefix, wdk);
    printf("%s: travel -0.24..0.24 rad%s: toe %.4f..%.4f deg, camber %.4f..%.4f deg; max |g| %.2g "
           "m, |G v| %.2g, |G v' + gamma| %.2g; vs Newton on the joints %.2g m, %.2g; ds %.2g, "
           "dkappa %.2g; wheel rate %.0f..%.0f N/m, vs the joints %.2g N/m, motion ratios %.2g / "
           "%.2g\n",
           prefix, rack ? " with rack" : "", toe_range[0] * 180 / M_PI, toe_range[1] * 180 / M_PI,
           cam_range[0] * 180 / M_PI, cam_range[1] * 180 / M_PI, wg, wgv, wga, wpos, wang, wds, wdk,
           rate_range[0], rate_range[1], wrate, wmr, wsmr);
}

int main(void)
{
    struct vd_model *m = vd_cfg_load_model("config/vehicles/hmmwv_joints.yaml", NULL, stderr);
    struct vd_data *d;
    const double rack[3] = {0.0, 1.0, 0.0};

    CHECK(m != NULL, "load hmmwv_joints.yaml");
    if (!m)
        return vt_report("test_dwcorner");
    d = vd_data_new(m);
    corner(m, d, "front_l", rack);
    corner(m, d, "front_r", NULL);
    corner(m, d, "rear_l", NULL);
    corner(m, d, "rear_r", NULL);
    vd_data_free(d);
    vd_model_free(m);
    return vt_report("test_dwcorner");
}
