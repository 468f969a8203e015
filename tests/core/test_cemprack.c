/* tests/core/test_cemprack.c - the CE form's steered McPherson axle on a rack (core/nlcorner.h
 * "On a rack", core/ce_rack.c) on tests/core/mprack_ce.yaml (tests/core/mp_ml_ce.yaml with the
 * sedan's rack_pinion steering, the McPherson tie rods on the rack; 16 coordinates in CE):
 *   0. the proof of the fixed Newton count over the arm's and the rack's ranges (nlcorner.h)
 *      and the fixed count's residual over that rectangle;
 *   1. the kinematic curves: toe, camber and the wheel centre's height against the lower arm
 *      angle (wheel travel) and the rack travel, from the closure, equal the ideal-joint (FA)
 *      model's own solution (Newton's method on the corner's joints with the arm's angle and
 *      the rack held, from a start 1 mm / 1 mrad away) to a derived bound; the steering
 *      geometry's sanity (the overall ratio at the centre, the wheel angle at the end stops);
 *   2. at states away from the design pose the placed bodies satisfy every joint (g = 0,
 *      G v = 0, G v' + gamma = 0), the bushings' locked translations and the gear's error
 *      vanish (test_cerack's part 1);
 *   3. the rack closure's ds/dq and d kappa/dq against central differences;
 *   4. CE against FA over 0.5 s steering from rest (test_cerack's part 3);
 *   5. a multilink's tie rod on a (virtual) rack: the proof and the derivatives.
 * Tolerances derived beside each check. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "config/model_yaml.h"
#include "core/ce.h"
#include "core/data.h"
#include "core/eval.h"
#include "core/joint.h"
#include "core/kinematics.h"
#include "core/model.h"
#include "core/step.h"
#include "core/vdmath.h"

#define NMAX 48

/* solve the n x n system A x = b (column-major, partial pivoting) in place */
static int gauss(int n, double *A, double *b)
{
    for (int k = 0; k < n; k++) {
        int p = k;

        for (int i = k + 1; i < n; i++)
            if (fabs(A[i + n * k]) > fabs(A[p + n * k]))
                p = i;
        if (A[p + n * k] == 0.0)
            return -1;
        for (int j = 0; j < n; j++) {
            double t = A[k + n * j];

            A[k + n * j] = A[p + n * j];
            A[p + n * j] = t;
        }
        {
            double t = b[k];

            b[k] = b[p];
            b[p] = t;
        }
        for (int i = k + 1; i < n; i++) {
            const double f = A[i + n * k] / A[k + n * k];

            for (int j = k; j < n; j++)
                A[i + n * j] -= f * A[k + n * j];
            b[i] -= f * b[k];
        }
    }
    for (int k = n - 1; k >= 0; k--) {
        for (int j = k + 1; j < n; j++)
            b[k] -= A[k + n * j] * b[j];
        b[k] /= A[k + n * k];
    }
    return 0;
}

/* 1. the corner's kinematics against the ideal-joint model's: the corner's joint rows (but the
 * lower arm's pivot, held) solved by Newton's method for its knuckle, tie rod and piston rod,
 * the rack's body at the travel s (the rows' rack side held) */
struct fa {
    const struct vd_nlc *c;
    int nrow, row[NMAX];
    int nbv, bd[8];
    double Ap[9], xp[3];
};

static void fa_setup(struct fa *f, const struct vd_model *m, const struct vd_data *d,
                     const struct vd_nlc *c, const char *prefix, int par)
{
    const size_t n = strlen(prefix);
    char nm[2 * VD_NAME_MAX];
    int hold;

    memset(f, 0, sizeof(*f));
    f->c = c;
    snprintf(nm, sizeof(nm), "%s.lca_pivot", prefix);
    hold = vd_model_find_joint(m, nm);
    for (int k = 0; k < c->nb; k++)
        if (k != 1)
            f->bd[f->nbv++] = c->mb[k];
    for (int j = 0; j < m->njoint; j++) {
        int mine = 0;

        if (strncmp(m->joint[j].name, prefix, n) || m->joint[j].name[n] != '.' || j == hold)
            continue;
        for (int k = 0; k < c->nb; k++)
            mine |= m->marker[m->joint[j].mk[0]].body == c->mb[k];
        if (!mine)
            continue;
        for (int r = m->joint_row[j]; r < m->joint_row[j + 1] && f->nrow < NMAX; r++)
            f->row[f->nrow++] = r;
    }
    vdu_cardan_zyx(f->Ap, d->r[6 * par + 3], d->r[6 * par + 4], d->r[6 * par + 5]);
    memcpy(f->xp, d->r + 6 * par, sizeof(f->xp));
}

static double fa_newton(const struct fa *f, const struct vd_model *m, struct vd_data *d)
{
    static double Gs[NMAX * NMAX], rhs[NMAX];
    const int n = 6 * f->nbv;
    double step = 1.0;

    for (int it = 0; it < 30 && step > 1e-15; it++) {
        vd_kinematics(m, d, d->r, d->v);
        vd_joint_eval(m, d, d->u, false);
        memset(Gs, 0, sizeof(Gs));
        for (int i = 0; i < f->nrow; i++) {
            const int row = f->row[i];

            rhs[i] = -d->jg[row];
            for (int sd = 0; sd < 2; sd++) {
                const int b = m->jrow_body[2 * row + sd];

                for (int k = 0; k < f->nbv; k++)
                    if (b == f->bd[k])
                        for (int e = 0; e < 6; e++)
                            Gs[i + n * (6 * k + e)] += d->jG[12 * row + 6 * sd + e];
            }
        }
        if (f->nrow != n || gauss(n, Gs, rhs))
            return INFINITY;
        step = 0.0;
        for (int k = 0; k < f->nbv; k++) {
            double *r = d->r + 6 * f->bd[k], Ei[9], da[3];

            vd_cardan_Einv(Ei, r[4], r[5]);
            vdu_mat3_vec(da, Ei, rhs + 6 * k + 3);
            for (int i = 0; i < 3; i++) {
                r[i] += rhs[6 * k + i];
                r[3 + i] += da[i];
            }
            for (int i = 0; i < 6; i++)
                step = fmax(step, fabs(rhs[6 * k + i]));
        }
    }
    return step;
}

/* toe (heading of the knuckle's x axis) and camber (tilt of its y axis) from the design pose
 * in the parent frame, and the wheel centre's height there from its design position */
static void kc(const struct fa *f, const double *r, double *toe, double *cam, double *wz)
{
    const double *rk = r + 6 * f->c->mb[0];
    double A[9], B[9], t[3], s[3], P[3], x[3];

    vdu_cardan_zyx(A, rk[3], rk[4], rk[5]);
    vdu_mat3t_mul(B, f->Ap, A);
    vdu_mat3_mult(A, B, f->c->A0[0]);
    *toe = atan2(A[3], A[0]);
    *cam = asin(A[7]);
    vdu_sub3(t, f->c->wc, f->c->x0[0]);
    vdu_mat3t_vec(s, f->c->A0[0], t);
    vdu_cardan_zyx(A, rk[3], rk[4], rk[5]);
    vdu_mat3_vec(t, A, s);
    vdu_add3(P, rk, t);
    vdu_sub3(t, P, f->xp);
    vdu_mat3t_vec(x, f->Ap, t);
    *wz = x[2] - f->c->wc[2];
}

/* the corner's bodies placed by the closure at (q, s) and the rack translated by s, the
 * chassis at its initial pose */
static int place(const struct vd_model *m, struct vd_data *d, const struct vd_ce *ce, int side,
                 int par, double q, double s)
{
    static struct vd_tree_rel rel[VD_NLC_MAXB];
    const struct vd_nlc *c = ce->rack.nlc[side];
    const double q3[3] = {side ? 0.0 : q, side ? q : 0.0, s}, qd3[3] = {0, 0, 0};
    double Ac[9], xc[3], t[3], dg[3];
    int rc;

    vd_data_reset(m, d);
    vdu_cardan_zyx(Ac, d->r[6 * par + 3], d->r[6 * par + 4], d->r[6 * par + 5]);
    memcpy(xc, d->r + 6 * par, sizeof(xc));
    rc = vd_nlc_closure_in3(c, side, q3, qd3, 0, rel);
    if (rc)
        return rc;
    for (int k = 0; k < c->nb; k++) {
        double A[9], *rb = d->r + 6 * c->mb[k];

        vdu_mat3_mul(A, Ac, rel[k].A);
        vdu_mat3_vec(t, Ac, rel[k].x);
        vdu_add3(rb, xc, t);
        vdu_cardan_from_mat(rb + 3, A);
    }
    vdu_mat3_vec(dg, Ac, ce->rack.d);
    for (int i = 0; i < 3; i++)
        d->r[6 * ce->rack.body[0] + i] += s * dg[i];
    return 0;
}

static void corner_prefix(const struct vd_model *m, const struct vd_nlc *c, char *p, size_t n)
{
    const char *kn = m->body[c->mb[0]].name, *dot = strrchr(kn, '.');

    snprintf(p, n, "%.*s", dot ? (int)(dot - kn) : 0, kn);
}

static void curves(const struct vd_model *m, struct vd_data *d, const struct vd_ce *ce)
{
    const int par = vd_model_find_body(m, "chassis");
    double wt = 0.0, wc = 0.0, wz = 0.0, maxstep = 0.0, beta = 0.0;
    int nf = 0;

    for (int side = 0; side < 2; side++) {
        const struct vd_nlc *c = ce->rack.nlc[side];
        char prefix[VD_NAME_MAX];
        struct fa f;

        corner_prefix(m, c, prefix, sizeof(prefix));
        vd_data_reset(m, d);
        fa_setup(&f, m, d, c, prefix, par);
        beta = fmax(beta, c->beta);
        for (int iq = -6; iq <= 6; iq++)
            for (int is = -6; is <= 6; is++) {
                const double q = 0.35 * iq / 6.0, s = 0.085 * is / 6.0;
                double t0, c0, z0, t1, c1, z1;

                if (place(m, d, ce, side, par, q, s)) {
                    nf++;
                    continue;
                }
                kc(&f, d->r, &t0, &c0, &z0);
                /* the ideal-joint model's own solution from 1 mm / 1 mrad away */
                for (int k = 0; k < f.nbv; k++)
                    for (int i = 0; i < 6; i++)
                        d->r[6 * f.bd[k] + i] += 1e-3 * sin(1.3 * (6 * k + i) + iq + 0.7 * is);
                maxstep = fmax(maxstep, fa_newton(&f, m, d));
                kc(&f, d->r, &t1, &c1, &z1);
                wt = fmax(wt, fabs(t1 - t0));
                wc = fmax(wc, fabs(c1 - c0));
                wz = fmax(wz, fabs(z1 - z0));
            }
    }
    CHECK(nf == 0, "the closure over arm +-0.35 rad x rack +-0.085 m (%d failed)", nf);
    CHECK(maxstep < 1e-12, "the ideal-joint Newton converged (last step %.3g)", maxstep);
    /* the closure's pose error: at most |J^-1| (beta, the proof's largest, about 24 m/m) times
     * its residual (the run-time check: <= VD_NLC_RTOL 1e-11), 2.4e-10 m or rad, plus the
     * ideal-joint solve's rounding (its rows' condition times u: 1e-13): 1e-9 for toe, camber
     * (rad) and the height (m) */
    CHECK_TOL(wt, 1e-9, "toe CE vs FA %.3g rad (beta %.3g)", wt, beta);
    CHECK_TOL(wc, 1e-9, "camber CE vs FA %.3g rad", wc);
    CHECK_TOL(wz, 1e-9, "wheel centre height CE vs FA %.3g m", wz);
    printf("curves (arm +-0.35 rad x rack +-0.085 m, both sides): toe %.2g, camber %.2g, "
           "wheel centre %.2g against the ideal-joint model\n",
           wt, wc, wz);
    {
        /* the steering geometry at the design travel: toe against the rack's travel */
        const struct vd_nlc *c = ce->rack.nlc[0];
        const double e = 1e-4;
        char prefix[VD_NAME_MAX];
        struct fa f;
        double tp, tm, cm, z, t75p, t75m, ratio;

        corner_prefix(m, c, prefix, sizeof(prefix));
        vd_data_reset(m, d);
        fa_setup(&f, m, d, c, prefix, par);
        place(m, d, ce, 0, par, 0.0, e);
        kc(&f, d->r, &tp, &cm, &z);
        place(m, d, ce, 0, par, 0.0, -e);
        kc(&f, d->r, &tm, &cm, &z);
        place(m, d, ce, 0, par, 0.0, 0.075);
        kc(&f, d->r, &t75p, &cm, &z);
        place(m, d, ce, 0, par, 0.0, -0.075);
        kc(&f, d->r, &t75m, &cm, &z);
        /* the overall ratio at the centre: the pinion's angle (the steering wheel's: the two
         * Cardan joints' ratios about 1 at the centre) per road wheel angle,
         * (1 / gear ratio) / (d toe / ds) */
        ratio = (1.0 / ce->rack.ratio) / fabs((tp - tm) / (2 * e));
        printf("steering: overall ratio %.1f:1 at the centre; the left wheel at %.1f / %.1f deg "
               "at the rack's end stops +-0.075 m\n",
               ratio, t75p * 180 / M_PI, t75m * 180 / M_PI);
        /* sanity, not tuning: passenger cars' overall ratios lie between 12 and 20 (sedan.yaml:
         * 16.5), the road wheel at the stops between 25 and 45 deg */
        CHECK(ratio > 12.0 && ratio < 20.0, "overall steering ratio %.1f in (12, 20)", ratio);
        CHECK(fabs(t75p) > 25 * M_PI / 180 && fabs(t75m) > 25 * M_PI / 180 &&
                  fabs(t75p) < 45 * M_PI / 180 && fabs(t75m) < 45 * M_PI / 180,
              "wheel angle at the stops %.1f / %.1f deg", t75p * 180 / M_PI, t75m * 180 / M_PI);
    }
}

/* the body accelerations (CoM global, omega' body) of the tree's spatial accelerations td->a */
static void body_acc(const struct vd_ce *ce, const struct vd_tree_data *td, double *acc)
{
    for (int tb = 0; tb < ce->tree->nbody; tb++) {
        const int b = ce->tb_model[tb];
        const double *a = td->a + 6 * tb, *V = td->V + 6 * tb, *x = td->x + 3 * tb;
        const double *A = td->A + 9 * tb;
        double vc[3], ac[3], t1[3];

        /* a_CoM = a_O + alpha x x + omega x v_CoM, omega_b' = A^T alpha */
        vdu_cross3(t1, V, x);
        vdu_add3(vc, V + 3, t1);
        vdu_cross3(t1, a, x);
        vdu_add3(ac, a + 3, t1);
        vdu_cross3(t1, V, vc);
        vdu_add3(ac, ac, t1);
        memcpy(acc + 6 * b, ac, sizeof(ac));
        vdu_mat3t_vec(acc + 6 * b + 3, A, a);
    }
}

static void placements(const struct vd_model *m, struct vd_data *d, const struct vd_ce *ce,
                       struct vd_ce_data *cd)
{
    static double Gv[1024], Ga[1024], acc[6 * 64], qdd[64];
    const double z3[3] = {0, 0, 0};
    const int N = ce->tree->n;
    double wg = 0.0, wgv = 0.0, wga = 0.0, wb = 0.0, wc = 0.0;
    const int guide = vd_model_find_bushing(m, "steering.rack_guide");

    for (int trial = 0; trial < 6; trial++) {
        vd_data_reset(m, d);
        vd_ce_init(m, ce, cd, d);
        cd->q[2] += 0.01 * trial;
        cd->q[3] += 0.3 * trial;
        cd->q[4] += 0.02 * trial;
        cd->q[5] -= 0.03 * trial;
        for (int k = 0; k < N; k++) {
            cd->u[k] = 0.7 * sin(1.7 * k + trial);
            qdd[k] = 3.0 * cos(0.9 * k + 2.0 * trial);
        }
        for (int in = 1; in < ce->tree->nnode; in++) {
            const struct vd_tree_node *n = &ce->tree->node[in];

            for (int k = n->off; k < n->off + n->nd; k++) {
                if (n->type == VD_TREE_REVOLUTE)
                    cd->q[k] = 2.0 * sin(3.0 * k + trial); /* wheel spin, steering wheel */
                else if (n->ctx == &ce->rack && k - n->off == 2)
                    /* rack [m]: the pinion within +-pi of the design pose (the bushing that
                     * carries its angle counts turns from the last committed one: a jump
                     * past pi from the reset state would count one turn less; the
                     * trajectories of 3. turn it past pi continuously) */
                    cd->q[k] = 0.025 * sin(1.1 * trial + 0.3);
                else if (n->ctx == &ce->rack)
                    cd->q[k] = 0.3 * sin(2.1 * k + trial); /* McPherson lower arm [rad] */
                else
                    cd->q[k] = 0.09 * sin(2.1 * k + trial); /* multilink height [m] */
            }
        }
        CHECK(vd_ce_place(m, ce, cd, d) == 0, "trial %d: placed", trial);
        vd_kinematics(m, d, d->r, d->v);
        vd_joint_eval(m, d, d->u, true);
        vd_joint_G_mul(m, d, d->v, Gv);
        for (int r = 0; r < m->nc; r++) {
            wg = fmax(wg, fabs(d->jg[r]));
            wgv = fmax(wgv, fabs(Gv[r]));
        }
        vd_eval_ex(m, d, d->r, d->v, d->z, d->u, cd->hm, cd->gz, false, false);
        for (int b = 0; b < m->nbush; b++)
            for (int i = b == guide ? 7 : 6; i < 9; i++) /* the rack guide's x: the travel */
                if (!strstr(m->bush[b].name, "droplink_bottom")) /* elastic in CE too */
                    wb = fmax(wb, fabs(d->bush_out[12 * b + i]));
        for (int k = 0; k < m->ncoupler; k++)
            wc = fmax(wc, fabs(d->cpl_out[2 * k + 1]));
        /* accelerations of an arbitrary q'': the acceleration rows hold for any */
        vd_tree_kin(ce->tree, cd->td, cd->q, cd->u);
        vd_tree_forces(ce->tree, cd->td, z3, NULL, qdd);
        memset(acc, 0, sizeof(acc));
        body_acc(ce, cd->td, acc);
        vd_joint_G_mul(m, d, acc, Ga);
        for (int r = 0; r < m->nc; r++)
            wga = fmax(wga, fabs(Ga[r] + d->jgam[r]));
    }
    /* rows of size 1 m, 1 m/s (3 proven Newton iterations: pose error <= 1e-13 by the proof,
     * the residual checked <= VD_NLC_RTOL 1e-11 at run time), 1e-11 and 1e-10; the accelerations at
     * |q''| <= 3, |u| <= 0.7: 1e-9 (a missing term of kappa is >= 1e-3); the bushings'
     * translations and the gear's error are differences of O(1) m positions: 1e-11 */
    CHECK_TOL(wg, 1e-11, "joints at the placed bodies: max |g| %.3g", wg);
    CHECK_TOL(wgv, 1e-10, "max |G v| %.3g", wgv);
    CHECK_TOL(wga, 1e-9, "max |G v' + gamma| %.3g", wga);
    CHECK_TOL(wb, 1e-11, "bushing translations %.3g m", wb);
    CHECK_TOL(wc, 1e-11, "coupler errors (the gear) %.3g", wc);
    printf("placements: |g| %.2g, |G v| %.2g, |G v' + gamma| %.2g, bushings %.2g, gear %.2g\n", wg,
           wgv, wga, wb, wc);
}

/* 3. the rack closure's derivatives (the McPherson corners' mixed passes in (q, s) and the
 * steering chain) against central differences, step e = 1e-6 (rad, m), relative to the largest
 * entry, as test_cerack's: truncation e^2/6 |s'''| / |s'| <= 2.3e-9 (the column's 118 rad per
 * m of rack dominates; the knuckle turns by about 5 rad per m of rack); rounding u |s| / (e |s'|)
 * plus the closure's: each placement from a pose within 1e-13 of the exact one (the proof's
 * bound), 1e-13 / e = 1e-7 relative to s' of order 1: 1e-6 relative (a wrong term is
 * >= 1e-2) */
static void derivatives(const struct vd_ce *ce)
{
    static struct vd_tree_rel r0[2 * VD_NLC_MAXB + 4], rp[2 * VD_NLC_MAXB + 4],
        rm[2 * VD_NLC_MAXB + 4];
    const int nb = ce->rack.off[2] + 4;
    double wds = 0.0, wdk = 0.0, sds = 0.0, sdk = 0.0;

    for (int trial = 0; trial < 5; trial++) {
        const double q[3] = {0.2 * sin(trial), -0.25 * cos(trial), 0.07 * sin(1.3 * trial + 0.2)};
        const double qd[3] = {0.5, -0.3, 0.8 - 0.2 * trial};

        CHECK(vd_ce_rack_closure(&ce->rack, q, qd, r0) == 0, "rack closure %d", trial);
        for (int k = 0; k < 3; k++) {
            const double e = 1e-6;
            double qp[3] = {q[0], q[1], q[2]}, qm[3] = {q[0], q[1], q[2]};

            qp[k] += e;
            qm[k] -= e;
            vd_ce_rack_closure(&ce->rack, qp, qd, rp);
            vd_ce_rack_closure(&ce->rack, qm, qd, rm);
            for (int b = 0; b < nb; b++)
                for (int i = 0; i < 6; i++) {
                    sdk = fmax(sdk, fabs(r0[b].dkappa[6 * k + i]));
                    for (int j = 0; j < 3; j++) {
                        sds = fmax(sds, fabs(r0[b].ds[6 * (j + 3 * k) + i]));
                        wds = fmax(wds, fabs(r0[b].ds[6 * (j + 3 * k) + i] -
                                             (rp[b].s[6 * j + i] - rm[b].s[6 * j + i]) / (2 * e)));
                    }
                    wdk = fmax(wdk, fabs(r0[b].dkappa[6 * k + i] -
                                         (rp[b].kappa[i] - rm[b].kappa[i]) / (2 * e)));
                }
        }
    }
    CHECK_TOL(wds / sds, 1e-6, "rack closure ds/dq vs central differences %.3g (of %.3g)", wds,
              sds);
    CHECK_TOL(wdk / sdk, 1e-6, "rack closure d kappa/dq vs central differences %.3g (of %.3g)", wdk,
              sdk);
    printf("rack closure: ds %.2g of %.3g, dkappa %.2g of %.3g against central differences\n", wds,
           sds, wdk, sdk);
}

#define NSIG 12
#define NSMP 51
/* the chassis pose and velocities every 10 ms over T from rest at the design pose: the front
 * wheels driven with 300 N m each, the steering wheel at 3 rad (step: the pinion turns 3.4
 * rad, past the wrap of its bushing's angle), LIE at dt */
static int trajectory(struct vd_model *m, struct vd_data *d, double dt, double T,
                      double y[NSMP][NSIG])
{
    const long n = lround(T / dt), every = lround(0.01 / dt);
    const int ch = vd_model_find_body(m, "chassis");

    m->opt.dt = dt;
    vd_data_reset(m, d);
    d->u[vd_model_find_input(m, "front_l.drive")] = 300.0;
    d->u[vd_model_find_input(m, "front_r.drive")] = 300.0;
    d->u[vd_model_find_input(m, "steering.angle")] = 3.0; /* the pinion past pi */
    if (m->ce)
        vd_ce_init(m, m->ce, d->ce, d);
    for (long s = 0; s <= n; s++) {
        if (s % every == 0 && s / every < NSMP) {
            memcpy(y[s / every], d->r + 6 * ch, 6 * sizeof(double));
            memcpy(y[s / every] + 6, d->v + 6 * ch, 6 * sizeof(double));
        }
        if (s < n && vd_step(m, d))
            return (int)s + 1;
    }
    return 0;
}

static double sup(const double a[NSMP][NSIG], const double b[NSMP][NSIG], int i)
{
    double w = 0.0;

    for (int k = 0; k < NSMP; k++)
        w = fmax(w, fabs(a[k][i] - b[k][i]));
    return w;
}

/* 4. CE against FA: |CE - FA| at 1 ms <= M + e_CE(1 ms) + e_FA(1 ms), the step errors
 * predicted from the 0.5 ms runs against the 0.125 ms reference (first order: e(h) = 2 x 8/7
 * m(h/2), times 1.5 for the O(h^2) remainder and 1.125 for the reference's own error; test_nlcorner
 * part 5), M the forms' difference at 0.125 ms (FA's elastic gear coupler 2e7 N/m and wheel
 * bearings against CE's rigid ones) */
static void ce_vs_fa(const char *path)
{
    static double yc[3][NSMP][NSIG], yf[3][NSMP][NSIG];
    static const char *const sn[NSIG] = {"x",  "y",  "z",  "az", "ay", "ax",
                                         "vx", "vy", "vz", "wx", "wy", "wz"};
    const double dts[3] = {1e-3, 0.5e-3, 0.125e-3};
    char err[256];

    for (int form = 0; form < 2; form++) {
        struct vd_model *m = vd_cfg_load_model(path, NULL, stderr);
        struct vd_data *d;

        CHECK(m != NULL &&
                  !vd_model_set_formulation(m, form ? VD_FORM_FA : VD_FORM_CE, err, sizeof(err)),
              "%s as %s", path, form ? "fa" : "ce");
        if (!m)
            return;
        d = vd_data_new(m);
        for (int i = 0; i < 3; i++) {
            const int rc = trajectory(m, d, dts[i], 0.5, form ? yf[i] : yc[i]);

            CHECK(rc == 0, "%s at %g ms: every step taken (failed at %d)", form ? "FA" : "CE",
                  dts[i] * 1e3, rc);
        }
        vd_data_free(d);
        vd_model_free(m);
    }
    printf("CE vs FA steering from rest over 0.5 s: |CE - FA| 1 ms / M / e_CE 1 ms / e_FA 1 ms\n");
    for (int i = 0; i < NSIG; i++) {
        const double dh = sup(yc[0], yf[0], i), M = sup(yc[2], yf[2], i);
        const double ec = 8.0 / 7.0 * sup(yc[0], yc[2], i), ef = 8.0 / 7.0 * sup(yf[0], yf[2], i);
        const double pred =
            1.5 * 2.0 * 8.0 / 7.0 * (sup(yc[1], yc[2], i) + sup(yf[1], yf[2], i)) * 1.125 + 1e-11;

        CHECK_TOL(dh, M + pred, "%s: |CE - FA| at 1 ms %.3g <= M %.3g + predicted %.3g", sn[i], dh,
                  M, pred);
        printf("  %-2s %.3e / %.3e / %.3e / %.3e\n", sn[i], dh, M, ec, ef);
    }
}

/* 5. a multilink's tie rod on a rack (vd_nlc_on_rack with rack_link the tie rod, link 5): no
 * template builds one (`tierod_mount` is ignored by multilink), so the rear corner of
 * mp_ml_ce.yaml with a virtual rack along the chassis' y over +-0.02 m (a rear-steer actuator's
 * travel): the proof over the rectangle and the closure's ds/dq and d kappa/dq in both
 * coordinates against central differences (the tolerance as part 3's: 1e-6 relative) */
static void multilink_on_rack(void)
{
    static struct vd_nlc c;
    static struct vd_tree_rel r0[VD_NLC_MAXB], rp[VD_NLC_MAXB], rm[VD_NLC_MAXB];
    const double rd[3] = {0.0, 1.0, 0.0};
    struct vd_model *m = vd_cfg_load_model("tests/core/mp_ml_ce.yaml", NULL, stderr);
    double wds = 0.0, wdk = 0.0, sds = 0.0, sdk = 0.0, wr = 0.0, t[3], Q[9], res;
    char err[256];
    int rc;

    CHECK(m != NULL, "load mp_ml_ce.yaml");
    if (!m)
        return;
    rc = vd_nlc_from_model(&c, m, "rear_l", vd_model_find_body(m, "chassis"), err, sizeof(err));
    CHECK(rc == 0, "rear_l: %s", rc ? err : "multilink");
    rc = rc ? rc : vd_nlc_on_rack(&c, rd, 0.02, err, sizeof(err));
    CHECK(rc == 0 && c.rack_link == VD_NLC_MAXL - 1, "rear_l on a rack: %s", rc ? err : "proven");
    if (rc) {
        vd_model_free(m);
        return;
    }
    printf("multilink on a rack (+-0.02 m): h %.3g, bound %.3g\n", c.kh, c.kbound);
    for (int i = 0; i <= 20; i++)
        for (int j = 0; j <= 10; j++) {
            CHECK(vd_nlc_solve2(&c, c.qmin + (c.qmax - c.qmin) * i / 20.0,
                                c.smin + (c.smax - c.smin) * j / 10.0, t, Q, &res) == 0,
                  "multilink solve %d %d", i, j);
            wr = fmax(wr, res);
        }
    /* as main's: 1e-13 */
    CHECK_TOL(wr, 1e-13, "multilink on a rack: residual %.3g", wr);
    for (int trial = 0; trial < 5; trial++) {
        const double q[3] = {0.1 * sin(trial), 0.0, 0.015 * cos(1.3 * trial)};
        const double qd[3] = {0.4 - 0.1 * trial, 0.0, 0.05 * trial - 0.1};

        CHECK(vd_nlc_closure_in3(&c, 0, q, qd, 0, r0) == 0, "multilink closure %d", trial);
        for (int k = 0; k < 3; k += 2) {
            const double e = 1e-6;
            double qp[3] = {q[0], q[1], q[2]}, qm[3] = {q[0], q[1], q[2]};

            qp[k] += e;
            qm[k] -= e;
            vd_nlc_closure_in3(&c, 0, qp, qd, 0, rp);
            vd_nlc_closure_in3(&c, 0, qm, qd, 0, rm);
            for (int b = 0; b < c.nb; b++)
                for (int i = 0; i < 6; i++) {
                    sdk = fmax(sdk, fabs(r0[b].dkappa[6 * k + i]));
                    wdk = fmax(wdk, fabs(r0[b].dkappa[6 * k + i] -
                                         (rp[b].kappa[i] - rm[b].kappa[i]) / (2 * e)));
                    for (int j = 0; j < 3; j += 2) {
                        sds = fmax(sds, fabs(r0[b].ds[6 * (j + 3 * k) + i]));
                        wds = fmax(wds, fabs(r0[b].ds[6 * (j + 3 * k) + i] -
                                             (rp[b].s[6 * j + i] - rm[b].s[6 * j + i]) / (2 * e)));
                    }
                }
        }
    }
    CHECK_TOL(wds / sds, 1e-6, "multilink on a rack: ds/dq vs central differences %.3g (of %.3g)",
              wds, sds);
    CHECK_TOL(wdk / sdk, 1e-6,
              "multilink on a rack: d kappa/dq vs central differences %.3g (of %.3g)", wdk, sdk);
    printf("multilink on a rack: ds %.2g of %.3g, dkappa %.2g of %.3g against central "
           "differences\n",
           wds, sds, wdk, sdk);
    vd_model_free(m);
}

int main(void)
{
    const char *path = "tests/core/mprack_ce.yaml";
    struct vd_model *m = vd_cfg_load_model(path, NULL, stderr);
    struct vd_data *d;
    struct vd_ce_data *cd;
    char err[256];

    CHECK(m != NULL && !vd_model_set_formulation(m, VD_FORM_CE, err, sizeof(err)) && m->ce,
          "load %s as ce", path);
    if (!m || !m->ce)
        return vt_report("test_cemprack");
    CHECK(m->ce->tree->n == 16 && m->ce->has_rack && m->ce->nnlc == 4 && m->ce->ncorner == 0 &&
              m->ce->rack.nlc[0] && m->ce->rack.nlc[1],
          "16 coordinates (%d): the rack node of two McPhersons, two multilinks", m->ce->tree->n);
    for (int s = 0; s < 2; s++) {
        const struct vd_nlc *c = m->ce->rack.nlc[s];
        double wr = 0.0, t[3], Q[9], res;
        int nf = 0;

        /* the proof (init refuses the corner otherwise; here for the record) */
        CHECK(c->kh <= 0.5 && c->kbound <= VD_NLC_EBOUND && c->ns == VD_NLC_NS,
              "corner %d: Kantorovich h %.3g, bound %.3g over the rack", s, c->kh, c->kbound);
        printf("proof corner %d: h %.3g, bound after %d iterations %.3g, beta %.3g, gamma %.3g, "
               "predictor error %.3g, measured rate %.3g\n",
               s, c->kh, VD_NLC_NEWTON, c->kbound, c->beta, c->gamma, c->eps0, c->cq);
        /* the fixed count's residual over the rectangle (off the proof's sample points) */
        for (int i = 0; i <= 40; i++)
            for (int j = 0; j <= 30; j++) {
                if (vd_nlc_solve2(c, c->qmin + (c->qmax - c->qmin) * i / 40.0,
                                  c->smin + (c->smax - c->smin) * j / 30.0, t, Q, &res))
                    nf++;
                wr = fmax(wr, res);
            }
        CHECK(nf == 0, "corner %d: solved everywhere on the rectangle (%d failed)", s, nf);
        /* rows in metres of O(1) evaluated in doubles: rounding 1e-15; the pose error after the
         * fixed count (the proof's bound 1e-13) through the rows' gradients (at most about 1):
         * 1e-13 */
        CHECK_TOL(wr, 1e-13, "corner %d: residual after %d iterations %.3g", s, VD_NLC_NEWTON, wr);
    }
    d = vd_data_new(m);
    cd = vd_ce_data_new(m, m->ce);
    curves(m, d, m->ce);
    placements(m, d, m->ce, cd);
    derivatives(m->ce);
    {
        /* past the proven rectangle: refused (the state is rejected), not extrapolated */
        static struct vd_tree_rel rel[2 * VD_NLC_MAXB + 4];
        const double q[3] = {0.0, 0.0, 1.01 * VD_CE_RACK_SMAX}, qd[3] = {0, 0, 0};

        CHECK(vd_ce_rack_closure(&m->ce->rack, q, qd, rel) == -EDOM,
              "rack travel past the proven range: -EDOM");
    }
    vd_ce_data_free(cd);
    vd_data_free(d);
    vd_model_free(m);
    ce_vs_fa(path);
    multilink_on_rack();
    return vt_report("test_cemprack");
}
