/* tests/core/test_nlcorner.c - the multilink and McPherson constraint embedding
 * (core/nlcorner.h) against the ideal-joint (FA) models: the McPherson front and the multilink
 * rear of tests/core/mp_ml_ce.yaml (both on the chassis) and the sedan's rear multilink
 * (config/vehicles/sedan_joints.yaml, on its subframe), over the coordinate's whole range:
 *   0. the proof of the fixed Newton count holds (Kantorovich h <= 1/2, bound <= 1e-13) and
 *      the closure's residual at the fixed count is at rounding;
 *   1. the ideal-joint model's constraints at the embedded poses: g = 0, G v = 0 for the
 *      velocities of the motion columns, G v' + gamma = 0 for the acceleration term;
 *   2. the poses equal the ideal-joint model's own solution (Newton's method on its
 *      constraints with the coordinate held: the McPherson's lower arm, the multilink's wheel
 *      centre height as one more row, from a start 1 mm / 1 mrad away) to 1e-9: toe, camber,
 *      wheel centre (travel), every body position and rotation;
 *   3. the kinematic rates: the wheel centre's velocity and acceleration per unit coordinate
 *      rate and the toe and camber rates from the closure against the ideal-joint model's
 *      own (G v = 0, G v' = -gamma with the coordinate's rate given) to 1e-9;
 *   4. ds/dq and d kappa/dq (the implicit-function-theorem passes) against central
 *      differences of s and kappa.
 * Then (5.) the CE form of mp_ml_ce.yaml (14 coordinates) against its FA form on a short
 * trajectory. Tolerances are derived beside each check. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "config/model_yaml.h"
#include "core/ce.h"
#include "core/data.h"
#include "core/joint.h"
#include "core/kinematics.h"
#include "core/model.h"
#include "core/nlcorner.h"
#include "core/step.h"
#include "core/vdmath.h"
#include "ce_checks.h"
#include "fa_corner.h"

/* the model's r, v, v' of the corner's bodies from the closure at (q, qd), the parent at its
 * initial pose and at rest (test_dwcorner's placement) */
static int place(const struct vd_model *m, struct vd_data *d, const struct vd_nlc *c, int par,
                 double q, double qd, struct vd_tree_rel *rel, double *acc)
{
    double Ac[9], xc[3], t[3];
    const double qv[1] = {q}, qdv[1] = {qd};
    int rc;

    vd_data_reset(m, d);
    memset(acc, 0, (size_t)m->nq * sizeof(double));
    vdu_cardan_zyx(Ac, d->r[6 * par + 3], d->r[6 * par + 4], d->r[6 * par + 5]);
    memcpy(xc, d->r + 6 * par, sizeof(xc));
    rc = vd_nlc_closure(c, qv, qdv, rel);
    if (rc)
        return rc;
    for (int k = 0; k < c->nb; k++) {
        const struct vd_tree_rel *r = &rel[k];
        double A[9], w[3], vO[3], vc[3], al[3], aO[3], ac[3], t2[3], *rb = d->r + 6 * c->mb[k];
        double *vb = d->v + 6 * c->mb[k], *ab = acc + 6 * c->mb[k];

        vdu_mat3_mul(A, Ac, r->A);
        vdu_mat3_vec(t, Ac, r->x);
        vdu_add3(rb, xc, t);
        vdu_cardan_from_mat(rb + 3, A);
        /* parent-frame spatial vectors at the parent's CoM; the parent at rest */
        vdu_mat3_vec(w, Ac, r->s);
        vdu_scale3(w, qd, w);
        vdu_mat3_vec(vO, Ac, r->s + 3);
        vdu_scale3(vO, qd, vO);
        vdu_cross3(vc, w, t);
        vdu_add3(vc, vO, vc);
        memcpy(vb, vc, sizeof(vc));
        vdu_mat3t_vec(vb + 3, A, w);
        /* a_CoM = a_O + alpha x x + omega x v_CoM, omega_b' = A^T alpha */
        vdu_mat3_vec(al, Ac, r->kappa);
        vdu_mat3_vec(aO, Ac, r->kappa + 3);
        vdu_cross3(t2, al, t);
        vdu_add3(ac, aO, t2);
        vdu_cross3(t2, w, vc);
        vdu_add3(ac, ac, t2);
        memcpy(ab, ac, sizeof(ac));
        vdu_mat3t_vec(ab + 3, A, al);
    }
    return 0;
}

/* one linear solve of the corner's rows for the unknown bodies' x (6 each): G x = rhs - G_held
 * x_held; rhs from gam (accelerations: -gamma) or 0; the height row's right-hand side hr */
static int fa_lin(const struct vt_fa *f, const struct vd_model *m, struct vd_data *d,
                  const double *xh, const double *gam, double hr, double hgam, double *x)
{
    static double Gs[VT_FA_NMAX * VT_FA_NMAX];
    const int n = 6 * f->nbv;
    int nr = 0;

    memset(Gs, 0, sizeof(Gs));
    for (int i = 0; i < f->nrow; i++, nr++) {
        const int row = f->row[i];

        x[nr] = gam ? -gam[row] : 0.0;
        for (int sd = 0; sd < 2; sd++) {
            const int b = m->jrow_body[2 * row + sd];
            const double *g = d->jG + 12 * row + 6 * sd;

            if (f->hold >= 0 && b == f->c->mb[f->hold])
                for (int k = 0; k < 6; k++)
                    x[nr] -= g[k] * xh[k];
            for (int k = 0; k < f->nbv; k++)
                if (b == f->bd[k])
                    for (int e = 0; e < 6; e++)
                        Gs[nr + n * (6 * k + e)] += g[e];
        }
    }
    if (f->hold < 0) {
        double G[6], gm;

        vt_fa_height_row(f, d, 0.0, G, &gm);
        x[nr] = hr - (gam ? hgam : 0.0);
        for (int e = 0; e < 6; e++)
            Gs[nr + n * e] = G[e]; /* bd[0] is the knuckle */
        (void)gm;
        nr++;
    }
    if (nr != n)
        return -1;
    return vt_gauss(n, Gs, x);
}

/* a knuckle point's velocity and acceleration (global) from the body's v and v' */
static void wc_rates(const struct vt_fa *f, const double *r, const double *v, const double *a,
                     double pv[3], double pa[3])
{
    const int k = f->c->mb[0];
    double A[9], t[3], u[3], w2[3];

    vdu_cardan_zyx(A, r[6 * k + 3], r[6 * k + 4], r[6 * k + 5]);
    vdu_cross3(t, v + 6 * k + 3, f->s_wc);
    vdu_mat3_vec(u, A, t);
    vdu_add3(pv, v + 6 * k, u);
    vdu_cross3(w2, v + 6 * k + 3, t);
    vdu_cross3(u, a + 6 * k + 3, f->s_wc);
    vdu_add3(u, u, w2);
    vdu_mat3_vec(t, A, u);
    vdu_add3(pa, a + 6 * k, t);
}

static void corner(const struct vd_model *m, struct vd_data *d, const char *prefix,
                   const char *parent)
{
    static struct vd_nlc c;
    static struct vd_tree_rel rel[VD_NLC_MAXB], rp[VD_NLC_MAXB], rm[VD_NLC_MAXB];
    static double acc[6 * 128], rce[6 * 128], vce[6 * 128], vj[6 * 128], aj[6 * 128],
        xs[VT_FA_NMAX];
    const int par = vd_model_find_body(m, parent);
    char err[256];
    int ok = vd_nlc_from_model(&c, m, prefix, par, err, sizeof(err));
    struct vt_fa f;
    double wg = 0.0, wgv = 0.0, wga = 0.0, wpos = 0.0, wang = 0.0, wkc = 0.0, wrate = 0.0;
    double wds = 0.0, wdk = 0.0, wres = 0.0, toe_r[2] = {INFINITY, -INFINITY};
    double cam_r[2] = {INFINITY, -INFINITY}, z_r[2] = {INFINITY, -INFINITY};

    CHECK(ok == 0, "%s: %s", prefix, ok ? err : "built");
    if (ok)
        return;
    vd_data_reset(m, d);
    vt_fa_setup(&f, m, d, &c, prefix, par);
    CHECK(6 * f.nbv == f.nrow + (f.hold < 0), "%s: %d rows + %d for %d unknowns", prefix, f.nrow,
          f.hold < 0, 6 * f.nbv);
    /* 0. the proof: Kantorovich's h and bound over the range, the measured rate */
    CHECK(c.kh <= 0.5 && c.kbound <= VD_NLC_EBOUND, "%s: Kantorovich h %.3g, bound %.3g", prefix,
          c.kh, c.kbound);
    printf("%s (%s on %s): range %.3g .. %.3g %s, predictor error <= %.2g, beta <= %.3g, gamma "
           "%.3g, Kantorovich h <= %.3g, bound after %d iterations %.2g, measured rate %.3g\n",
           prefix, c.kind == VD_NLC_MCPHERSON ? "McPherson" : "multilink", parent, c.qmin, c.qmax,
           c.kind == VD_NLC_MCPHERSON ? "rad" : "m", c.eps0, c.beta, c.gamma, c.kh, VD_NLC_NEWTON,
           c.kbound, c.cq);
    for (int step = -12; step <= 12; step++) {
        const double q = c.qmax * step / 12.5, qd = 1.5 - 0.1 * step;
        double gv[1024], ga[1024], t[3], Q[9], res;

        /* 0. the fixed count's residual */
        CHECK(vd_nlc_solve(&c, q, t, Q, &res) == 0, "%s q %.3g: solve", prefix, q);
        wres = fmax(wres, res);
        /* 1. the rows at the embedded poses, velocities and accelerations */
        if (place(m, d, &c, par, q, qd, rel, acc)) {
            CHECK(0, "%s q %.3g: closure", prefix, q);
            continue;
        }
        vd_kinematics(m, d, d->r, d->v);
        vd_joint_eval(m, d, d->u, true);
        vd_joint_G_mul(m, d, d->v, gv);
        vd_joint_G_mul(m, d, acc, ga);
        for (int i = 0; i < f.nrow; i++) {
            const int row = f.row[i];

            wg = fmax(wg, fabs(d->jg[row]));
            wgv = fmax(wgv, fabs(gv[row]));
            wga = fmax(wga, fabs(ga[row] + d->jgam[row]));
        }
        if (f.hold < 0) {
            /* the coordinate itself: height q, rate qd, no acceleration */
            double G[6], gm, h = vt_fa_height_row(&f, d, q, G, &gm), hv = 0.0, ha = gm;

            for (int e = 0; e < 6; e++) {
                hv += G[e] * d->v[6 * c.mb[0] + e];
                ha += G[e] * acc[6 * c.mb[0] + e];
            }
            wg = fmax(wg, fabs(h));
            wgv = fmax(wgv, fabs(hv - qd));
            wga = fmax(wga, fabs(ha));
        }
        /* 2. the ideal-joint model's own solution, from 1 mm / 1 mrad off the embedded one */
        memcpy(rce, d->r, (size_t)m->nq * sizeof(double));
        for (int k = 0; k < f.nbv; k++)
            for (int i = 0; i < 6; i++)
                d->r[6 * f.bd[k] + i] += 1e-3 * ((i + k) % 2 ? 1.0 : -1.0);
        {
            const double st = vt_fa_newton(&f, m, d, q);

            CHECK(st < 1e-12, "%s q %.3g: Newton on the joints converged (last step %.3g)", prefix,
                  q, st);
        }
        for (int k = 0; k < c.nb; k++) {
            double A1[9], A2[9];
            const double *a = rce + 6 * c.mb[k], *b = d->r + 6 * c.mb[k];

            for (int i = 0; i < 3; i++)
                wpos = fmax(wpos, fabs(a[i] - b[i]));
            vdu_cardan_zyx(A1, a[3], a[4], a[5]);
            vdu_cardan_zyx(A2, b[3], b[4], b[5]);
            for (int i = 0; i < 9; i++)
                wang = fmax(wang, fabs(A1[i] - A2[i]));
        }
        {
            double toe1, cam1, wc1[3], toe2, cam2, wc2[3];

            vt_fa_kc(&f, rce, &toe1, &cam1, wc1);
            vt_fa_kc(&f, d->r, &toe2, &cam2, wc2);
            wkc = fmax(wkc, fmax(fabs(toe1 - toe2), fabs(cam1 - cam2)));
            for (int i = 0; i < 3; i++)
                wkc = fmax(wkc, fabs(wc1[i] - wc2[i]));
            toe_r[0] = fmin(toe_r[0], toe1), toe_r[1] = fmax(toe_r[1], toe1);
            cam_r[0] = fmin(cam_r[0], cam1), cam_r[1] = fmax(cam_r[1], cam1);
            z_r[0] = fmin(z_r[0], wc1[2] - c.wc[2]), z_r[1] = fmax(z_r[1], wc1[2] - c.wc[2]);
        }
        /* 3. the rates at a unit coordinate rate: CE's from the closure, the ideal-joint
         * model's from its rows at Newton's poses (G v = 0, then G v' = -gamma) with the held
         * arm's motion (McPherson) or the height's rate 1 (multilink) given */
        {
            static double rnw[6 * 128];
            double pv1[3], pa1[3], pv2[3], pa2[3], xh[6] = {0}, ah[6] = {0};
            int rc;

            memcpy(rnw, d->r, (size_t)m->nq * sizeof(double));
            rc = place(m, d, &c, par, q, 1.0, rel, acc);
            memcpy(vce, d->v, (size_t)m->nq * sizeof(double));
            wc_rates(&f, d->r, d->v, acc, pv1, pa1);
            if (f.hold >= 0) {
                memcpy(xh, d->v + 6 * c.mb[f.hold], sizeof(xh));
                memcpy(ah, acc + 6 * c.mb[f.hold], sizeof(ah));
            }
            memset(vj, 0, sizeof(vj));
            memset(aj, 0, sizeof(aj));
            if (f.hold >= 0) {
                memcpy(vj + 6 * c.mb[f.hold], xh, sizeof(xh));
                memcpy(aj + 6 * c.mb[f.hold], ah, sizeof(ah));
            }
            memcpy(d->r, rnw, (size_t)m->nq * sizeof(double));
            memcpy(d->v, vj, (size_t)m->nq * sizeof(double));
            vd_kinematics(m, d, d->r, d->v);
            vd_joint_eval(m, d, d->u, false);
            rc |= fa_lin(&f, m, d, xh, NULL, 1.0, 0.0, xs);
            for (int k = 0; k < f.nbv; k++)
                memcpy(vj + 6 * f.bd[k], xs + 6 * k, 6 * sizeof(double));
            memcpy(d->v, vj, (size_t)m->nq * sizeof(double));
            vd_kinematics(m, d, d->r, d->v);
            vd_joint_eval(m, d, d->u, true);
            {
                double G[6], gm;

                vt_fa_height_row(&f, d, q, G, &gm);
                rc |= fa_lin(&f, m, d, ah, d->jgam, 0.0, gm, xs);
            }
            for (int k = 0; k < f.nbv; k++)
                memcpy(aj + 6 * f.bd[k], xs + 6 * k, 6 * sizeof(double));
            wc_rates(&f, rnw, vj, aj, pv2, pa2);
            CHECK(rc == 0, "%s q %.3g: the ideal-joint rates solved", prefix, q);
            for (int i = 0; i < 3; i++)
                wrate = fmax(wrate, fmax(fabs(pv1[i] - pv2[i]), fabs(pa1[i] - pa2[i])));
            /* the knuckle's angular velocity: the toe and camber rates */
            for (int i = 3; i < 6; i++)
                wrate = fmax(wrate, fabs(vce[6 * c.mb[0] + i] - vj[6 * c.mb[0] + i]));
        }
        /* 4. ds/dq and d kappa/dq against central differences, step e = 1e-6 (m or rad):
         * truncation e^2/6 |s'''| with |s'''| <= 1e3 (the links' 1 / L^3 at L >= 0.1 m: 1e3
         * per m^3, or per rad^3 at the arm's 0.4 m), 1.7e-10; rounding u |s| / e with |s|
         * <= 10 (a 0.1 m lever per m of travel): 2.2e-9; kappa = q'^2 x (s' terms): the
         * same times |q'|^2 <= 7.3 and one more derivative (x 10 per m, the levers): 1e-6 for
         * both (a wrong or missing term is >= 1e-2) */
        {
            const double e = 1e-6;
            const double qp[1] = {q + e}, qm[1] = {q - e}, qdv[1] = {qd}, qv[1] = {q};

            vd_nlc_closure(&c, qv, qdv, rel);
            vd_nlc_closure(&c, qp, qdv, rp);
            vd_nlc_closure(&c, qm, qdv, rm);
            for (int b = 0; b < c.nb; b++)
                for (int i = 0; i < 6; i++) {
                    wds = fmax(wds, fabs(rel[b].ds[i] - (rp[b].s[i] - rm[b].s[i]) / (2 * e)));
                    wdk = fmax(
                        wdk, fabs(rel[b].dkappa[i] - (rp[b].kappa[i] - rm[b].kappa[i]) / (2 * e)));
                }
        }
    }
    /* 0. the residual after the fixed iterations: the proven pose error 1e-13 times |J| <= 2
     * (unit rows, levers <= 1 m) plus the rounding of O(1) m quantities, 1e-15: 1e-12 */
    CHECK_TOL(wres, 1e-12, "%s: residual after %d iterations %.3g m", prefix, VD_NLC_NEWTON, wres);
    /* 1. rows of size 1 m, 10 m/s, 100 m/s^2: the poses carry the residual's 1e-12 through
     * the closed-form placement of the links (motion ratios <= 10): 1e-11 m, and the rates the
     * same relative error: 1e-10 m/s, 1e-9 m/s^2 (a missing term of gamma is >= 1e-3) */
    CHECK_TOL(wg, 1e-11, "%s: max |g| at the embedded poses %.3g", prefix, wg);
    CHECK_TOL(wgv, 1e-10, "%s: max |G v| for the motion columns %.3g", prefix, wgv);
    CHECK_TOL(wga, 1e-9, "%s: max |G v' + gamma| for the acceleration term %.3g", prefix, wga);
    /* 2. Newton's solution is the ideal-joint model's to its residual (<= 1e-15) over the
     * smallest singular value of the corner's G (>= 1e-2: the link and arm lengths of 0.1 m and
     * more, the motion ratios), and the embedded one by 1. within 1e-11 / 1e-2 = 1e-9: the
     * issue's 1e-9 */
    CHECK_TOL(wpos, 1e-9, "%s: body positions vs the ideal-joint solution %.3g m", prefix, wpos);
    CHECK_TOL(wang, 1e-9, "%s: rotations vs the ideal-joint solution %.3g", prefix, wang);
    CHECK_TOL(wkc, 1e-9, "%s: toe, camber, wheel centre vs the ideal-joint solution %.3g", prefix,
              wkc);
    /* 3. the rates solved from the rows with the residuals of 1. over G's smallest singular
     * value (1e-2): 1e-10 / 1e-2 = 1e-8 for the accelerations, 1e-9 for the velocities' 1e-11;
     * at O(1) rates: 1e-8 absolute */
    CHECK_TOL(wrate, 1e-8,
              "%s: wheel centre velocity, acceleration, toe and camber rates vs the "
              "ideal-joint model %.3g",
              prefix, wrate);
    CHECK_TOL(wds, 1e-6, "%s: ds/dq vs central differences %.3g", prefix, wds);
    CHECK_TOL(wdk, 1e-6, "%s: d kappa/dq vs central differences %.3g", prefix, wdk);
    printf("%s: toe %.4f..%.4f deg, camber %.4f..%.4f deg, wheel travel %.4f..%.4f m; residual "
           "%.2g m; max |g| %.2g, |G v| %.2g, |G v' + gamma| %.2g; vs Newton on the joints %.2g m, "
           "%.2g, toe/camber/wheel centre %.2g; rates %.2g; ds %.2g, dkappa %.2g\n",
           prefix, toe_r[0] * 180 / M_PI, toe_r[1] * 180 / M_PI, cam_r[0] * 180 / M_PI,
           cam_r[1] * 180 / M_PI, z_r[0], z_r[1], wres, wg, wgv, wga, wpos, wang, wkc, wrate, wds,
           wdk);
}

/* 5. the trajectory of the chassis (pose and velocities, sampled every 10 ms; columns
 * x y z az ay ax vx vy vz wx wy wz) over T from the design pose at rest, the car dropping onto
 * its springs, the wheels driven unevenly (400, 200, 300, 100 N m: it pitches, rolls and
 * yaws), by the CE form (ce non-NULL) or the FA form, LIE at dt; 0 or the failing step + 1 */
#define NSIG 12
#define NSMP 51
static int trajectory(struct vd_model *m, struct vd_data *d, const struct vd_ce *ce,
                      struct vd_ce_data *cd, double dt, double T, double y[NSMP][NSIG])
{
    static const char *const dn[4] = {"front_l.drive", "front_r.drive", "rear_l.drive",
                                      "rear_r.drive"};
    static const double tq[4] = {400.0, 200.0, 300.0, 100.0};
    const long n = lround(T / dt), every = lround(0.01 / dt);
    const int ch = vd_model_find_body(m, "chassis");

    m->opt.dt = dt;
    m->opt.method = VD_METHOD_LIE;
    vd_data_reset(m, d);
    for (int k = 0; k < 4; k++)
        d->u[vd_model_find_input(m, dn[k])] = tq[k];
    if (ce)
        vd_ce_init(m, ce, cd, d);
    for (long s = 0; s <= n; s++) {
        if (s % every == 0 && s / every < NSMP) {
            memcpy(y[s / every], d->r + 6 * ch, 6 * sizeof(double));
            memcpy(y[s / every] + 6, d->v + 6 * ch, 6 * sizeof(double));
        }
        if (s < n && (ce ? vd_ce_step(m, ce, cd, d) : vd_step(m, d)))
            return (int)s + 1;
    }
    return 0;
}

/* max over the samples and signals of |a - b| (per signal into w) */
static double sup(const double a[NSMP][NSIG], const double b[NSMP][NSIG], double w[NSIG])
{
    double e = 0.0;

    for (int i = 0; i < NSIG; i++) {
        w[i] = 0.0;
        for (int k = 0; k < NSMP; k++)
            w[i] = fmax(w[i], fabs(a[k][i] - b[k][i]));
        e = fmax(e, w[i]);
    }
    return e;
}

/* CE against FA at dt = h, h/2 and the reference h/8 (tests/validation/ce.md section 1's
 * argument): LIE is first order, e(h) = C h + O(h^2); against the reference at h/8 the
 * measured difference is m(h) = C (h - h/8), so m(h) / m(h/2) = 7/3 and the true error is
 * e(h) = 8/7 m(h). The forms differ by their step errors and the difference M of their exact
 * solutions (FA's wheels turn in elastic bearings, CE's on revolutes; M ~ |CE - FA| at h/8):
 *     |CE_h - FA_h| <= M + e_CE(h) + e_FA(h),
 * with e(h) predicted from the runs at h/2 alone, e(h) = 2 x 8/7 m(h/2), times 1.5 for the
 * O(h^2) remainder (observed orders 0.6 .. 1.6 allowed, joints.md) and 1 + 1/8 for the
 * references' own errors; rounding n u |y| <= 4000 x 2.2e-16 x 10 = 1e-11 is added */
static void ce_vs_fa(struct vd_model *m, struct vd_data *d)
{
    static double yc[3][NSMP][NSIG], yf[3][NSMP][NSIG];
    static const char *const sn[NSIG] = {"x",  "y",  "z",  "az", "ay", "ax",
                                         "vx", "vy", "vz", "wx", "wy", "wz"};
    const double h = 1e-3, T = 0.5, dts[3] = {h, h / 2, h / 8};
    const int method0 = m->opt.method;
    const double dt0 = m->opt.dt;
    char err[256];
    struct vd_ce *ce = vd_ce_build(m, NULL, err, sizeof(err));
    struct vd_ce_data *cd;
    double mc1[NSIG], mc2[NSIG], mf1[NSIG], mf2[NSIG], M[NSIG], dh[NSIG];
    int rc = 0;
    double ratio_c = 0.0, ratio_f = 0.0;

    CHECK(ce != NULL, "mp_ml_ce in CE: %s", ce ? "built" : err);
    if (!ce)
        return;
    CHECK(ce->tree->n == 14 && ce->nnlc == 4, "14 coordinates (%d), 4 embedded corners (%d)",
          ce->tree->n, ce->nnlc);
    cd = vd_ce_data_new(m, ce);
    /* a state the loops cannot close at (a wheel 0.2 m up: past the multilink's proven range,
     * where the closure refuses) is rejected and counted, not stepped */
    {
        const struct vd_tree_node *n = NULL;
        uint64_t w0;
        int rc2;

        for (int in = 0; in < ce->tree->nnode; in++)
            if (ce->tree->node[in].ctx == &ce->nlc[ce->nnlc - 1])
                n = &ce->tree->node[in];
        vd_data_reset(m, d);
        vd_ce_init(m, ce, cd, d);
        w0 = d->warn[VD_WARN_NONFINITE];
        cd->q[n->off] = 0.2;
        rc2 = vd_ce_step(m, ce, cd, d);
        CHECK(rc2 == -EDOM && d->warn[VD_WARN_NONFINITE] == w0 + 1,
              "a corner past its range: the step rejected (%d) and counted (%llu)", rc2,
              (unsigned long long)(d->warn[VD_WARN_NONFINITE] - w0));
        cd->q[n->off] = ce->nlc[ce->nnlc - 1].qmax * 0.99;
        CHECK(vd_ce_place(m, ce, cd, d) == 0, "within the range: placed");
    }
    for (int i = 0; i < 3; i++) {
        const int a = trajectory(m, d, ce, cd, dts[i], T, yc[i]);
        const int b = trajectory(m, d, NULL, NULL, dts[i], T, yf[i]);

        CHECK(a == 0 && b == 0, "dt %g: CE and FA ran (failed steps %d, %d)", dts[i], a, b);
        rc |= a | b;
    }
    if (!rc) {
        sup(yc[0], yc[2], mc1);
        sup(yc[1], yc[2], mc2);
        sup(yf[0], yf[2], mf1);
        sup(yf[1], yf[2], mf2);
        sup(yc[2], yf[2], M);
        sup(yc[0], yf[0], dh);
        for (int i = 0; i < NSIG; i++) {
            const double pred = 1.5 * 2.0 * 8.0 / 7.0 * (mc2[i] + mf2[i]) * 1.125 + 1e-11;

            CHECK_TOL(dh[i], M[i] + pred,
                      "%s: |CE - FA| at 1 ms %.3g <= M %.3g + predicted step errors %.3g", sn[i],
                      dh[i], M[i], pred);
        }
        /* first order: the ratios of the signals that move (z, ay, vz: the drop and pitch) */
        for (int k = 0; k < 3; k++) {
            const int i = k == 0 ? 2 : (k == 1 ? 4 : 8);

            ratio_c = fmax(ratio_c, mc1[i] / mc2[i]);
            ratio_f = fmax(ratio_f, mf1[i] / mf2[i]);
            CHECK(mc1[i] / mc2[i] > 7.0 / 3.0 / 1.5 && mc1[i] / mc2[i] < 7.0 / 3.0 * 1.5,
                  "CE %s: m(h) / m(h/2) = %.3f (7/3 for first order)", sn[i], mc1[i] / mc2[i]);
            CHECK(mf1[i] / mf2[i] > 7.0 / 3.0 / 1.5 && mf1[i] / mf2[i] < 7.0 / 3.0 * 1.5,
                  "FA %s: m(h) / m(h/2) = %.3f (7/3 for first order)", sn[i], mf1[i] / mf2[i]);
        }
        printf("CE vs FA over %.1f s (sup over 10 ms samples), per signal: |CE - FA| 1 ms / M "
               "(1/8 ms) / e_CE 1 ms / e_FA 1 ms:\n",
               T);
        for (int i = 0; i < NSIG; i++)
            printf("  %-2s %.3e / %.3e / %.3e / %.3e\n", sn[i], dh[i], M[i], 8.0 / 7.0 * mc1[i],
                   8.0 / 7.0 * mf1[i]);
    }
    vd_ce_data_free(cd);
    vd_ce_free(ce);
    m->opt.method = method0;
    m->opt.dt = dt0;
}

int main(void)
{
    struct vd_model *m = vd_cfg_load_model("tests/core/mp_ml_ce.yaml", NULL, stderr);
    struct vd_data *d;

    CHECK(m != NULL, "load tests/core/mp_ml_ce.yaml");
    if (!m)
        return vt_report("test_nlcorner");
    d = vd_data_new(m);
    corner(m, d, "front_l", "chassis");
    corner(m, d, "front_r", "chassis");
    corner(m, d, "rear_l", "chassis");
    corner(m, d, "rear_r", "chassis");
    ce_vs_fa(m, d);
    vd_data_free(d);
    vd_model_free(m);
    m = vd_cfg_load_model("config/vehicles/sedan_joints.yaml", NULL, stderr);
    CHECK(m != NULL, "load sedan_joints.yaml");
    if (m) {
        d = vd_data_new(m);
        corner(m, d, "rear_l", "rear.subframe");
        corner(m, d, "rear_r", "rear.subframe");
        vd_data_free(d);
        vd_model_free(m);
    }
    return vt_report("test_nlcorner");
}
