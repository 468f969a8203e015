/* tests/core/ce_checks.h - checks shared by the CE corner tests (test_cerack, test_cemprack,
 * test_cemlrack, test_nlcorner, test_dwcorner): a dense solve for the ideal-joint reference
 * poses and the pieces of their Newton iteration, a corner on a rack placed by its closure,
 * the rack closure's derivatives against central differences, and CE against FA steering from rest
 * with the step-size bound of test_nlcorner part 5. Static functions: include it in one test file.
 * The tolerances' derivations stay beside each caller (their numbers are the model's). */
#ifndef VT_CE_CHECKS_H
#define VT_CE_CHECKS_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "config/model_yaml.h"
#include "core/ce.h"
#include "core/data.h"
#include "core/dwcorner.h"
#include "core/nlcorner.h"
#include "core/eval.h"
#include "core/joint.h"
#include "core/kinematics.h"
#include "core/step.h"
#include "core/vdmath.h"

/* solve the n x n system A x = b (column-major, partial pivoting) in place; 0 or -1 */
static inline int vt_gauss(int n, double *A, double *b)
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

/* the Newton matrix's rows of the joint rows row[0..nrow) into Gs (n x n, column-major,
 * zeroed by the caller) and -g into rhs: the rows' coefficients on the unknown bodies bd[0..nbv)
 * (6 columns each, in that order), the other bodies held */
static inline void vt_rows_into(const struct vd_model *m, const struct vd_data *d, const int *row,
                                int nrow, const int *bd, int nbv, int n, double *Gs, double *rhs)
{
    for (int i = 0; i < nrow; i++) {
        rhs[i] = -d->jg[row[i]];
        for (int sd = 0; sd < 2; sd++) {
            const int b = m->jrow_body[2 * row[i] + sd];

            for (int k = 0; k < nbv; k++)
                if (b == bd[k])
                    for (int e = 0; e < 6; e++)
                        Gs[i + n * (6 * k + e)] += d->jG[12 * row[i] + 6 * sd + e];
        }
    }
}

/* the Newton step x (6 per unknown body: translation, rotation in global axes) added to the
 * bodies bd[0..nbv)'s coordinates (the rotation through the Cardan angles' E^-1); |x|_inf */
static inline double vt_bodies_step(struct vd_data *d, const int *bd, int nbv, const double *x)
{
    double step = 0.0;

    for (int k = 0; k < nbv; k++) {
        double *r = d->r + 6 * bd[k], Ei[9], da[3];

        vd_cardan_Einv(Ei, r[4], r[5]);
        vdu_mat3_vec(da, Ei, x + 6 * k + 3);
        for (int i = 0; i < 3; i++) {
            r[i] += x[6 * k + i];
            r[3 + i] += da[i];
        }
        for (int i = 0; i < 6; i++)
            step = fmax(step, fabs(x[6 * k + i]));
    }
    return step;
}

/* the bodies of the rack's corner `side` placed by its closure at (q, s) and the rack
 * translated by s, the chassis (par) at d's reset pose; the closure's return code */
static inline int vt_rack_place(const struct vd_model *m, struct vd_data *d, const struct vd_ce *ce,
                                int side, int par, double q, double s)
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

/* a corner on the rack (side s): the proof of its fixed Newton count over the rectangle
 * (init refuses the corner otherwise; checked here for the record, with the caller's own
 * conditions `more`) and the fixed count's residual over the rectangle, off the proof's
 * sample points */
static inline void vt_rack_proof(const struct vd_nlc *c, int s, bool more)
{
    double wr = 0.0, t[3], Q[9], res;
    int nf = 0;

    CHECK(c->kh <= 0.5 && c->kbound <= VD_NLC_EBOUND && c->ns == VD_NLC_NS && more,
          "corner %d: Kantorovich h %.3g, bound %.3g over the rack", s, c->kh, c->kbound);
    printf("proof corner %d: h %.3g, bound after %d iterations %.3g, beta %.3g, gamma %.3g, "
           "predictor error %.3g, measured rate %.3g\n",
           s, c->kh, VD_NLC_NEWTON, c->kbound, c->beta, c->gamma, c->eps0, c->cq);
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

/* step s of the CE form twice from the same state, saved into q0, u0, z0 (the tree's n
 * coordinates and velocities, d's nz element states), first with the reference Jacobians
 * (cd->ref_jac), then with the fast ones: the reference pass's M, f, Jq, Ju (n x n) into the
 * caller's arrays, the fast pass's left in td; both steps' return codes into rc */
static inline void vt_ce_ref_and_fast(const struct vd_model *m, const struct vd_ce *ce,
                                      struct vd_ce_data *cd, struct vd_data *d,
                                      const struct vd_tree_data *td, int s, double *q0, double *u0,
                                      double *z0, double *M, double *f, double *Jq, double *Ju,
                                      int rc[2])
{
    const int N = ce->tree->n;

    memcpy(q0, cd->q, (size_t)N * sizeof(double));
    memcpy(u0, cd->u, (size_t)N * sizeof(double));
    memcpy(z0, d->z, (size_t)m->nz * sizeof(double));
    for (int pass = 0; pass < 2; pass++) {
        memcpy(cd->q, q0, (size_t)N * sizeof(double));
        memcpy(cd->u, u0, (size_t)N * sizeof(double));
        memcpy(d->z, z0, (size_t)m->nz * sizeof(double));
        d->nstep = s;
        cd->ref_jac = !pass;
        rc[pass] = vd_ce_step(m, ce, cd, d);
        if (!pass) {
            memcpy(M, td->M, (size_t)(N * N) * sizeof(double));
            memcpy(f, td->f, (size_t)N * sizeof(double));
            memcpy(Jq, td->Jq, (size_t)(N * N) * sizeof(double));
            memcpy(Ju, td->Ju, (size_t)(N * N) * sizeof(double));
        }
    }
    cd->ref_jac = 0;
}

/* after vt_ce_ref_and_fast at step s: the fast pass's M, f (in td) equal the reference's
 * (M, f) bit for bit, and its Jq, Ju within the rounding bound of test_tree item 6: both
 * within gamma_m sum|terms| of the exact derivative, m <= 64 operations per term, at most
 * 64 nbody terms per entry, each at most Fs (1 + |x|) (1 + |u| + |q''|) with Fs the largest
 * subtree spatial force: tol = 2 x 64 u x 64 nbody Fs (1 + |x|) (1 + |u| + |q''|). Printed
 * as "<who>step s: ..." (with the force scale if `scale`) */
static inline void vt_ce_fast_vs_ref(const struct vd_ce *ce, const struct vd_ce_data *cd,
                                     const struct vd_tree_data *td, int s, const double *u0,
                                     const double *M, const double *f, const double *Jq,
                                     const double *Ju, const char *who, bool scale)
{
    const int N = ce->tree->n, nb = ce->tree->nbody;
    double wm = 0.0, wf = 0.0, wj = 0.0, fs = 0.0, xs = 0.0, us = 0.0, tol;

    for (int k = 0; k < N * N; k++) {
        wm = fmax(wm, fabs(td->M[k] - M[k]));
        wj = fmax(wj, fmax(fabs(td->Jq[k] - Jq[k]), fabs(td->Ju[k] - Ju[k])));
    }
    for (int k = 0; k < N; k++) {
        wf = fmax(wf, fabs(td->f[k] - f[k]));
        us = fmax(us, fabs(u0[k]) + fabs(cd->qdd[k]));
    }
    for (int b = 0; b < nb; b++)
        for (int i = 0; i < 6; i++) {
            fs = fmax(fs, fabs(td->F[6 * b + i]));
            if (i < 3)
                xs = fmax(xs, fabs(td->x[3 * b + i]));
        }
    tol = 2.0 * 64.0 * 2.2e-16 * 64.0 * nb * fs * (1.0 + xs) * (1.0 + us);
    CHECK(wm == 0.0 && wf == 0.0, "step %d: M, f of the fast path as the reference's: %.3g, %.3g",
          s, wm, wf);
    CHECK_TOL(wj, tol, "step %d: fast Jq, Ju vs the reference: %.3g (tol %.3g)", s, wj, tol);
    if (scale)
        printf("%sstep %d: fast Jacobians vs the reference %.3g (tol %.3g, |J| scale %.3g)\n", who,
               s, wj, tol, fs);
    else
        printf("%sstep %d: fast Jacobians vs the reference %.3g (tol %.3g)\n", who, s, wj, tol);
}

/* the corner's name prefix ("front.left") from its knuckle's body name, into p (n bytes) */
static inline void vt_corner_prefix(const struct vd_model *m, const struct vd_nlc *c, char *p,
                                    size_t n)
{
    const char *kn = m->body[c->mb[0]].name, *dot = strrchr(kn, '.');

    snprintf(p, n, "%.*s", dot ? (int)(dot - kn) : 0, kn);
}

/* the rack closure's ds/dq and d kappa/dq of its first nb bodies against central differences
 * at five states q = amp . (sin t, -cos t, sin(1.3 t + 0.2)), step e = 1e-6 (rad, m), relative
 * to the largest entry: the bound 1e-6 the callers derive (truncation e^2/6 |s'''| / |s'| and
 * rounding u |s| / (e |s'|), the closure's own error over e) */
#define VT_RACK_NB (2 * (VD_NLC_MAXB > VD_DWC_NB ? VD_NLC_MAXB : VD_DWC_NB) + 4)
static inline void vt_rack_derivatives(const struct vd_ce *ce, int nb, const double amp[3])
{
    static struct vd_tree_rel r0[VT_RACK_NB], rp[VT_RACK_NB], rm[VT_RACK_NB];
    double wds = 0.0, wdk = 0.0, sds = 0.0, sdk = 0.0;

    for (int trial = 0; trial < 5; trial++) {
        const double q[3] = {amp[0] * sin(trial), -amp[1] * cos(trial),
                             amp[2] * sin(1.3 * trial + 0.2)};
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
static inline int vt_rack_trajectory(struct vd_model *m, struct vd_data *d, double dt, double T,
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

static inline double vt_sup(const double a[NSMP][NSIG], const double b[NSMP][NSIG], int i)
{
    double w = 0.0;

    for (int k = 0; k < NSMP; k++)
        w = fmax(w, fabs(a[k][i] - b[k][i]));
    return w;
}

/* 4. CE against FA: |CE - FA| at h <= M + e_CE(h) + e_FA(h), the step errors predicted from
 * the h/2 runs against the h/8 reference (first order: e(h) = 2 x 8/7 m(h/2), times 1.5 for the
 * O(h^2) remainder and 1.125 for the reference's own error; test_nlcorner part 5), M the forms'
 * difference at h/8 (FA's elastic gear coupler 2e7 N/m and wheel bearings against CE's rigid
 * ones). h: 1 ms, or smaller where a caller measured that 1 ms is not yet in the first-order
 * regime the prediction assumes (test_cemlrack) */
static inline void vt_rack_ce_vs_fa(const char *path, double h)
{
    static double yc[3][NSMP][NSIG], yf[3][NSMP][NSIG];
    static const char *const sn[NSIG] = {"x",  "y",  "z",  "az", "ay", "ax",
                                         "vx", "vy", "vz", "wx", "wy", "wz"};
    const double dts[3] = {h, 0.5 * h, 0.125 * h};
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
            const int rc = vt_rack_trajectory(m, d, dts[i], 0.5, form ? yf[i] : yc[i]);

            CHECK(rc == 0, "%s at %g ms: every step taken (failed at %d)", form ? "FA" : "CE",
                  dts[i] * 1e3, rc);
        }
        vd_data_free(d);
        vd_model_free(m);
    }
    printf("CE vs FA steering from rest over 0.5 s at h = %g ms: |CE - FA| at h / M / e_CE(h) / "
           "e_FA(h)\n",
           h * 1e3);
    for (int i = 0; i < NSIG; i++) {
        const double dh = vt_sup(yc[0], yf[0], i), M = vt_sup(yc[2], yf[2], i);
        const double ec = 8.0 / 7.0 * vt_sup(yc[0], yc[2], i),
                     ef = 8.0 / 7.0 * vt_sup(yf[0], yf[2], i);
        const double pred =
            1.5 * 2.0 * 8.0 / 7.0 * (vt_sup(yc[1], yc[2], i) + vt_sup(yf[1], yf[2], i)) * 1.125 +
            1e-11;

        CHECK_TOL(dh, M + pred, "%s: |CE - FA| at h %.3g <= M %.3g + predicted %.3g", sn[i], dh, M,
                  pred);
        printf("  %-2s %.3e / %.3e / %.3e / %.3e\n", sn[i], dh, M, ec, ef);
    }
}

/* the body accelerations (CoM global, omega' body) of the tree's spatial accelerations td->a */
static inline void vt_body_acc(const struct vd_ce *ce, const struct vd_tree_data *td, double *acc)
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

/* bushing b holds a body free on its own node besides the root (an engine on its mounts):
 * elastic in CE */
static inline bool vt_on_free(const struct vd_model *m, const struct vd_ce *ce, int b)
{
    for (int s = 0; s < 2; s++) {
        const int mb = m->marker[m->bush[b].mk[s]].body;
        const int tb = mb >= 0 ? ce->model_tb[mb] : -1;
        const int nd = tb >= 0 ? ce->tree->body[tb].node : 0;

        if (nd > 0 && ce->tree->node[nd].type == VD_TREE_FREE)
            return true;
    }
    return false;
}

/* the rack node's placements at six states away from the design pose (travels, rack, lower arms
 * by arm [rad], steering wheel, chassis pose and velocities): every joint of the joint model
 * (g = 0, G v = 0), every bushing's translation and the gear coupler's error vanish, and the
 * tree's accelerations satisfy the joints' acceleration rows (G v' + gamma = 0) */
static inline void vt_rack_placements(const struct vd_model *m, struct vd_data *d,
                                      const struct vd_ce *ce, struct vd_ce_data *cd, double arm)
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

            if (n->type == VD_TREE_FREE)
                continue; /* a body on bushings alone (the engine): where vd_ce_init put it */
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
                    cd->q[k] = arm * sin(2.1 * k + trial); /* lower arm [rad] */
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
                if (!strstr(m->bush[b].name, "droplink_bottom") && /* elastic in CE too */
                    !strstr(m->bush[b].name, "shaft_inner") &&     /* so are a shaft's tripods */
                    !vt_on_free(m, ce, b))                         /* and the mounts */
                    wb = fmax(wb, fabs(d->bush_out[12 * b + i]));
        for (int k = 0; k < m->ncoupler; k++)
            wc = fmax(wc, fabs(d->cpl_out[2 * k + 1]));
        /* accelerations of an arbitrary q'': the acceleration rows hold for any */
        vd_tree_kin(ce->tree, cd->td, cd->q, cd->u);
        vd_tree_forces(ce->tree, cd->td, z3, NULL, qdd);
        memset(acc, 0, sizeof(acc));
        vt_body_acc(ce, cd->td, acc);
        vd_joint_G_mul(m, d, acc, Ga);
        for (int r = 0; r < m->nc; r++)
            wga = fmax(wga, fabs(Ga[r] + d->jgam[r]));
    }
    /* rows of size 1 m, 1 m/s (the closures' closed forms, or 3 proven Newton iterations: pose
     * error <= 1e-13 by the proof, the residual checked <= VD_NLC_RTOL 1e-11 at run time),
     * 1e-11 and 1e-10; the accelerations at
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

#endif
