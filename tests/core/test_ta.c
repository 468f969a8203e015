/* tests/core/test_ta.c - the TA form (core/ta.h) of config/vehicles/hmmwv_ce.yaml: 55 tree
 * coordinates and 40 cut rows.
 *   1. counts; at random tree states with large rotations (chassis yaw, roll +-3 rad, pitch
 *      +-1.2, knuckles +-1 rad on their ball joints, wheels +-3 rad): every joint the tree
 *      holds is closed at the placed bodies (the joint model's own rows), the cut rows equal
 *      the joint model's rows of the cut joints, G = dg/dq K and gamma = (d/dt G) u against
 *      central differences;
 *   2. the tree's Jacobians df/dq K, df/du (the universal nodes' closures, the spherical
 *      nodes) against central differences;
 *   3. the ISO 3888 double lane change (dlc_iso3888.yaml with this vehicle, closed-loop
 *      driver, 20 m/s), 2 s (into the first lane change) in the CE, TA and FA forms: the
 *      trajectories agree within the bound derived from step halving (below); the cut
 *      rows stay <= 1e-8 with the projection (printed without, for contrast); TA and CE
 *      with LSRT2 the same way;
 *   4. the observed orders of the TA step, LIE and LSRT2 (as test_ce item 6);
 *   5. solver.project both: the velocity projection's rows to LU's rounding bound, G(q+) u+
 *      to that plus the simplified step's contraction.
 * `test_ta --halving` re-measures the step-halving figures quoted in 3. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "config/model_yaml.h"
#include "config/scenario.h"
#include "core/ce.h"
#include "core/data.h"
#include "core/joint.h"
#include "core/kinematics.h"
#include "core/model.h"
#include "core/step.h"
#include "core/ta.h"
#include "core/vdmath.h"
#include "step_order.h"
/* after the core headers: lapacke.h brings complex.h's I */
#include "../bblu_bound.h"
#include "../kkt_ref.h"
#include "../lu_bound.h"

#define VEH "config/vehicles/hmmwv_ce.yaml"
#define SCN "config/scenarios/dlc_iso3888.yaml"

static uint64_t rs = 0x9E3779B97F4A7C15ULL;
static double rnd(double lo, double hi)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return lo + (hi - lo) * (double)(rs >> 11) / 9007199254740992.0;
}

/* a random tree state: large rotations where the node allows them */
static void rnd_state(const struct vd_tree *t, double *q, double *u)
{
    for (int in = 0; in < t->nnode; in++) {
        const struct vd_tree_node *n = &t->node[in];
        const int o = n->off;

        for (int k = 0; k < n->nd; k++) {
            q[o + k] = rnd(-1.0, 1.0);
            u[o + k] = rnd(-3.0, 3.0);
        }
        if (n->type == VD_TREE_FREE) {
            q[o] = rnd(-5, 5), q[o + 1] = rnd(-5, 5), q[o + 2] = rnd(0, 2);
            q[o + 3] = rnd(-3, 3), q[o + 4] = rnd(-1.2, 1.2), q[o + 5] = rnd(-3, 3);
        } else if (n->type == VD_TREE_PRISMATIC) {
            q[o] = rnd(-0.1, 0.1);
        } else if (n->type == VD_TREE_REVOLUTE && t->body[n->b0].mass > 50.0) {
            q[o] = rnd(-3, 3); /* a wheel */
        }
    }
}

/* g at q (cut rows into g) */
static void g_at(const struct vd_ta *ta, struct vd_ta_data *tad, const double *q, const double *u,
                 double *g)
{
    vd_tree_kin(ta->tree, tad->td, q, u);
    vd_ta_cuts(ta, tad, 0);
    memcpy(g, tad->g, (size_t)ta->m * sizeof(double));
}

/* (G u) at q */
static void gu_at(const struct vd_ta *ta, struct vd_ta_data *tad, const double *q, const double *u,
                  double *y)
{
    const int N = ta->tree->n, mc = ta->m;

    vd_tree_kin(ta->tree, tad->td, q, u);
    vd_ta_cuts(ta, tad, 0);
    for (int r = 0; r < mc; r++) {
        y[r] = 0.0;
        for (int c = 0; c < N; c++)
            y[r] += tad->G[r + mc * c] * u[c];
    }
}

/* the points q +- eps qd of a central difference along qd = K w, the coordinates' rate for the
 * velocities w */
static void q_pm(const struct vd_tree *t, const double *q, const double *w, double eps, double *qd,
                 double *qp, double *qm)
{
    vd_tree_qdot(t, q, w, qd);
    for (int i = 0; i < t->n; i++) {
        qp[i] = q[i] + eps * qd[i];
        qm[i] = q[i] - eps * qd[i];
    }
}

/* the tree's generalized forces f at (q, u) with gravity g3 and the accelerations qdd */
static void f_at(const struct vd_ta *ta, struct vd_ta_data *tad, const double *q, const double *u,
                 const double g3[3], const double *qdd, double *f)
{
    vd_tree_kin(ta->tree, tad->td, q, u);
    vd_tree_forces(ta->tree, tad->td, g3, NULL, qdd);
    memcpy(f, tad->td->f, (size_t)ta->tree->n * sizeof(double));
}

static void checks_static(struct vd_model *m)
{
    const struct vd_ta *ta = m->ta;
    const struct vd_tree *t = ta->tree;
    struct vd_data *d = vd_data_new(m);
    struct vd_ta_data *tad = d->ta;
    const int N = t->n, mc = ta->m;
    static double q[64], u[64], qp[64], qm[64], e[64], qd[64], gp[64], gm[64], G[64 * 64], gam[64],
        f0[64], fp[64], fm[64], Jq[64 * 64], Ju[64 * 64], qdd[64];

    CHECK(N == 55 && mc == 40 && t->nbody == 33,
          "TA HMMWV: %d coordinates (55), %d cut rows (40), %d bodies", N, mc, t->nbody);
    /* at the design pose: the cuts closed (the joint model's design pose satisfies them to
     * the hardpoints' rounding, 1e-15 m) */
    vd_ta_init(m, ta, tad, d);
    g_at(ta, tad, tad->q, tad->u, gp);
    {
        double w = 0.0;

        for (int r = 0; r < mc; r++)
            w = fmax(w, fabs(gp[r]));
        /* positions of O(3 m) from a few products: 1e2 u x 3 m */
        CHECK_TOL(w, 1e2 * 2.2e-16 * 3.0, "cut rows at the design pose %.3g", w);
    }
    for (int trial = 0; trial < 8; trial++) {
        double wt = 0.0, wc = 0.0, wG = 0.0, wg = 0.0, gmax = 0.0;
        const double eps = 1e-6;

        rnd_state(t, q, u);
        memcpy(tad->q, q, (size_t)N * sizeof(double));
        memcpy(tad->u, u, (size_t)N * sizeof(double));
        CHECK(vd_ta_place(m, ta, tad, d) == 0, "trial %d: place", trial);
        /* the joint model's rows at the placed bodies */
        vd_kinematics(m, d, d->r, d->v);
        vd_joint_eval(m, d, d->u, false);
        vd_tree_kin(t, tad->td, q, u);
        vd_ta_cuts(ta, tad, 0);
        for (int j = 0; j < m->njoint; j++) {
            int cut = -1;

            for (int k = 0; k < ta->npcut; k++)
                if (ta->pcut[k].joint == j)
                    cut = k;
            for (int r = m->joint_row[j]; r < m->joint_row[j + 1]; r++) {
                if (cut < 0)
                    wt = fmax(wt, fabs(d->jg[r]));
                else
                    wc = fmax(wc, fabs(d->jg[r] - tad->g[3 * cut + r - m->joint_row[j]]));
            }
        }
        /* both are positions of O(5 m) through chains of <= 4 rotations: 1e2 u x 5 m */
        CHECK_TOL(wt, 1e2 * 2.2e-16 * 5.0, "trial %d: tree joints closed at random states %.3g",
                  trial, wt);
        CHECK_TOL(wc, 1e2 * 2.2e-16 * 5.0, "trial %d: cut rows = the joint model's %.3g", trial,
                  wc);
        /* G against central differences along q' = K e_k: g is a point difference of O(5 m)
         * whose third derivative along a unit rate is O(|lever|) = 5 m: truncation
         * eps^2/6 x 5 = 8e-13, rounding u 5 / eps = 1.1e-9: tol 1e-8 */
        memcpy(G, tad->G, (size_t)(mc * N) * sizeof(double));
        memset(e, 0, sizeof(e));
        for (int k = 0; k < N; k++) {
            e[k] = 1.0;
            q_pm(t, q, e, eps, qd, qp, qm);
            e[k] = 0.0;
            g_at(ta, tad, qp, u, gp);
            g_at(ta, tad, qm, u, gm);
            for (int r = 0; r < mc; r++) {
                wG = fmax(wG, fabs(G[r + mc * k] - (gp[r] - gm[r]) / (2 * eps)));
                gmax = fmax(gmax, fabs(G[r + mc * k]));
            }
        }
        CHECK_TOL(wG, 1e-8, "trial %d: G vs central differences %.3g (|G| %.3g)", trial, wG, gmax);
        /* gamma = d/dt (G u) at fixed u along q' = K u: G u = O(|u| 5 m) = 1e2 (|u| <= 3 on 55
         * coordinates, summed), third derivative O(|u|^3) larger: truncation eps^2/6 x 3e3
         * = 5e-10, rounding u 1e2 / eps = 2.2e-8: tol 1e-7 */
        vd_tree_kin(t, tad->td, q, u);
        {
            const double z3[3] = {0, 0, 0};

            vd_tree_forces(t, tad->td, z3, NULL, NULL);
        }
        vd_ta_cuts(ta, tad, 1);
        memcpy(gam, tad->gam, (size_t)mc * sizeof(double));
        q_pm(t, q, u, eps, qd, qp, qm);
        gu_at(ta, tad, qp, u, gp);
        gu_at(ta, tad, qm, u, gm);
        for (int r = 0; r < mc; r++)
            wg = fmax(wg, fabs(gam[r] - (gp[r] - gm[r]) / (2 * eps)));
        CHECK_TOL(wg, 1e-7, "trial %d: gamma vs central differences %.3g", trial, wg);
        printf("trial %d: tree joints %.2g, cuts vs joint rows %.2g, G %.2g (|G| %.3g), gamma "
               "%.2g\n",
               trial, wt, wc, wG, gmax, wg);

        /* 2. the tree's Jacobians with gravity and velocity products (no applied forces), at
         * q'' != 0: f = O(3e4 N m) (the chassis' weight on levers, inertia forces of 2 t at
         * rates of 3), rounding u 3e4 x 10 / eps = 7e-5, truncation eps^2/6 |f'''| <=
         * 1e-12 x 3e4 x 3^3 = 1e-6: tol 1e-3 (1 + 1e-6 |J|) */
        if (trial < 3) {
            const double g3[3] = {0, 0, -9.81};
            double wq = 0.0, wu = 0.0, jmax = 0.0;

            for (int i = 0; i < N; i++)
                qdd[i] = rnd(-2, 2);
            vd_tree_kin(t, tad->td, q, u);
            vd_tree_jac(t, tad->td, g3, NULL, NULL, qdd);
            memcpy(Jq, tad->td->Jq, (size_t)(N * N) * sizeof(double));
            memcpy(Ju, tad->td->Ju, (size_t)(N * N) * sizeof(double));
            for (int k = 0; k < N * N; k++)
                jmax = fmax(jmax, fmax(fabs(Jq[k]), fabs(Ju[k])));
            for (int k = 0; k < N; k++) {
                double up[64], um[64];

                e[k] = 1.0;
                q_pm(t, q, e, eps, qd, qp, qm);
                e[k] = 0.0;
                f_at(ta, tad, qp, u, g3, qdd, fp);
                f_at(ta, tad, qm, u, g3, qdd, fm);
                for (int i = 0; i < N; i++)
                    wq = fmax(wq, fabs(Jq[i + N * k] - (fp[i] - fm[i]) / (2 * eps)));
                memcpy(up, u, (size_t)N * sizeof(double));
                memcpy(um, u, (size_t)N * sizeof(double));
                up[k] += eps;
                um[k] -= eps;
                f_at(ta, tad, q, up, g3, qdd, fp);
                f_at(ta, tad, q, um, g3, qdd, fm);
                for (int i = 0; i < N; i++)
                    wu = fmax(wu, fabs(Ju[i + N * k] - (fp[i] - fm[i]) / (2 * eps)));
            }
            (void)f0;
            CHECK_TOL(wq, 1e-3 * (1.0 + 1e-6 * jmax), "trial %d: df/dq K vs central %.3g", trial,
                      wq);
            CHECK_TOL(wu, 1e-3 * (1.0 + 1e-6 * jmax), "trial %d: df/du vs central %.3g", trial, wu);
            printf("trial %d: tree Jacobians vs central: df/dq K %.2g, df/du %.2g (|J| %.3g)\n",
                   trial, wq, wu, jmax);
        }
    }
    vd_data_free(d);
}

/* the compared quantities at the end of a run */
enum { Y, YAW, ROLL, VY, WZ, STEER, NOUT };
static const char *const out_name[NOUT] = {"chassis y [m]",    "yaw [rad]",
                                           "roll [rad]",       "lateral velocity [m/s]",
                                           "yaw rate [rad/s]", "steering command [rad]"};

/* 2 s of the double lane change in form `form` at step dt; out[NOUT]; the max |cut rows| over
 * the run (TA), or d->cres (FA), into *drift. 0 or -1 */
static int ref_jac;                    /* TA: 1 the reference Jacobians (vd_tree_jac) */
static int dlc_method = VD_METHOD_LIE; /* the integrator of run_dlc */

static int run_dlc(int form, double dt, int project, double out[NOUT], double *drift)
{
    struct vd_scenario *scn = vd_cfg_load_scenario(SCN, VEH, stderr);
    struct vd_model *m;
    struct vd_data *d;
    char err[256];
    int ch, steer, rc = 0;
    const long n = lround(2.0 / dt);

    if (!scn)
        return -1;
    m = scn->m;
    m->opt.dt = dt;
    m->opt.method = dlc_method;
    if (form == VD_FORM_FA)
        m->opt.linear = VD_LINEAR_DENSE;
    m->opt.project = project;
    if (vd_model_set_formulation(m, form, err, sizeof(err))) {
        fprintf(stderr, "%s\n", err);
        vd_cfg_scenario_free(scn);
        return -1;
    }
    d = vd_data_new(m);
    if (d && d->ta)
        d->ta->ref_jac = ref_jac;
    if (!d || vd_scenario_start(scn, d, err, sizeof(err))) {
        fprintf(stderr, "start: %s\n", err);
        vd_data_free(d);
        vd_cfg_scenario_free(scn);
        return -1;
    }
    ch = vd_model_find_body(m, "chassis");
    steer = vd_model_find_input(m, "steering.angle");
    *drift = 0.0;
    for (long k = 0; k < n && !rc; k++) {
        rc = vd_step(m, d);
        if (!rc && form == VD_FORM_TA) {
            /* the cut rows at the placed q+ (vd_ta_place left its kinematics) */
            vd_ta_cuts(m->ta, d->ta, 0);
            for (int r = 0; r < m->ta->m; r++)
                *drift = fmax(*drift, fabs(d->ta->g[r]));
        } else if (!rc && form == VD_FORM_FA) {
            *drift = fmax(*drift, d->cres);
        }
    }
    {
        const double *r = d->r + 6 * ch, *v = d->v + 6 * ch;
        double A[9], vg[3], w[3];

        vdu_cardan_zyx(A, r[3], r[4], r[5]);
        vdu_mat3_vec(w, A, v + 3);
        memcpy(vg, v, sizeof(vg));
        out[Y] = r[1];
        out[YAW] = r[3];
        out[ROLL] = r[5];
        out[VY] = -sin(r[3]) * vg[0] + cos(r[3]) * vg[1]; /* in the heading frame */
        out[WZ] = w[2];
        static double uin[64];

        memcpy(uin, d->u, (size_t)m->ninput * sizeof(double));
        if (d->input_peek)
            d->input_peek(d->input_ctx, d->t, uin);
        out[STEER] = steer >= 0 ? uin[steer] : 0.0;
    }
    /* the inverse kinematics: vd_ta_init (as after a reset) makes the stepped state
     * consistent (g = 0 to rounding, and G u = 0: the index-2 step holds G(q_n) u+ = 0, not
     * G(q+) u+); the tree state of the bodies placed from that state must be that state
     * again: each node's relative rotation, travel and rates (wheel angles modulo 2 pi), the
     * Newton steps moving it by rounding only; the angles' recovery from products of O(1)
     * rotations, 1e2 u, the rates through E^-1 (|E^-1| <= 1 / cos 20 deg) times |u| <= 60:
     * tol 1e-11 rad, m and 1e-11 x 60 rad/s, m/s */
    if (!rc && form == VD_FORM_TA) {
        const int N = m->ta->tree->n;
        static double q0[64], u0[64];
        double wq = 0.0, wu = 0.0;

        vd_ta_init(m, m->ta, d->ta, d);
        memcpy(q0, d->ta->q, (size_t)N * sizeof(double));
        memcpy(u0, d->ta->u, (size_t)N * sizeof(double));
        vd_ta_place(m, m->ta, d->ta, d);
        vd_ta_init(m, m->ta, d->ta, d);
        for (int i = 0; i < N; i++) {
            wq = fmax(wq, fabs(remainder(d->ta->q[i] - q0[i], 2.0 * M_PI)));
            wu = fmax(wu, fabs(d->ta->u[i] - u0[i]));
        }
        CHECK_TOL(wq, 1e-11, "TA: tree state from the placed bodies, q: %.3g", wq);
        CHECK_TOL(wu, 6e-10, "TA: tree state from the placed bodies, u: %.3g", wu);
        printf("TA: tree state from its placed bodies: q %.3g, u %.3g\n", wq, wu);
    }
    vd_data_free(d);
    vd_cfg_scenario_free(scn);
    return rc ? -1 : 0;
}

/* the forms the lane change compares, in run_dlc's `form` */
static const int dlc_form[3] = {VD_FORM_CE, VD_FORM_TA, VD_FORM_FA};
static const char *const dlc_fname[3] = {"CE", "TA", "FA"};

/* the lane change in the first nf forms of dlc_form, the positions projected, at dt = 1 ms
 * (x[0][f], drift[0][f]) and with halving at 0.5 ms too (x[1][f], drift[1][f]) with
 * dlc_method; each run checked by the running ok (tag after the form's name: " LSRT2" or
 * ""), which is returned */
static int dlc_forms(int nf, int halving, const char *tag, double x[2][3][NOUT], double drift[2][3],
                     int ok)
{
    for (int h = 0; h < (halving ? 2 : 1); h++)
        for (int f = 0; f < nf; f++) {
            ok &= run_dlc(dlc_form[f], h ? 5e-4 : 1e-3, VD_PROJECT_POSITIONS, x[h][f],
                          &drift[h][f]) == 0;
            CHECK(ok, "%s%s: 2 s of the lane change at dt %g", dlc_fname[f], tag, h ? 5e-4 : 1e-3);
        }
    return ok;
}

/* the first nf forms' outputs at 2 s, x[f] */
static void dlc_print(int nf, const char *tag, double x[3][NOUT])
{
    for (int f = 0; f < nf; f++) {
        printf("%s%s at 2 s:", dlc_fname[f], tag);
        for (int k = 0; k < NOUT; k++)
            printf(" %s %.9g", out_name[k], x[f][k]);
        printf("\n");
    }
}

/* `test_ta --halving`: per output, |X(dt) - X(dt/2)| of each of the first nf forms, then each
 * form's difference to CE at dt and at dt/2 (a line's prefix: tag) */
static void dlc_print_halving(int nf, const char *tag, double x[2][3][NOUT])
{
    for (int k = 0; k < NOUT; k++) {
        printf("%s%-24s", tag, out_name[k]);
        for (int f = 0; f < nf; f++)
            printf("%s|%s(dt)-%s(dt/2)| %.3g", f ? "  " : " ", dlc_fname[f], dlc_fname[f],
                   fabs(x[0][f][k] - x[1][f][k]));
        for (int f = 1; f < nf; f++)
            printf("  %s-CE %.3g / %.3g", dlc_fname[f], x[0][f][k] - x[0][0][k],
                   x[1][f][k] - x[1][0][k]);
        printf("\n");
    }
}

/* the state x = (q, u, z) of the TA form at T after driving with a constant 400 N m on every
 * hub (constant inputs: their sampling adds no error of its own) from x0, or (x0 NULL) from
 * the design pose rolling at 10 m/s (chassis and wheels: G u = 0 holds, the cuts do not see
 * a rigid motion nor the wheels' spin); method, dt and projection as given */
static int ta_drive_to(struct vd_model *m, struct vd_data *d, int method, int project, double dt,
                       double T, const double *x0, double *x)
{
    const struct vd_ta *ta = m->ta;
    struct vd_ta_data *tad = d->ta;
    const int N = ta->tree->n;
    const long n = lround(T / dt);
    int rc = 0;

    m->opt.method = method;
    m->opt.project = project;
    m->opt.dt = dt;
    vd_data_reset(m, d);
    vd_ta_init(m, ta, tad, d);
    vt_drive_hubs(m, d, 400.0);
    if (x0) {
        vt_state_in(x0, N, m->nz, tad->q, tad->u, d->z);
    } else {
        tad->u[0] = 10.0;
        for (int in = 0; in < ta->tree->nnode; in++) {
            const struct vd_tree_node *nd = &ta->tree->node[in];

            if (nd->type == VD_TREE_REVOLUTE && ta->tree->body[nd->b0].mass > 50.0)
                tad->u[nd->off] = 10.0 / 0.47; /* a wheel, 0.47 m radius */
        }
    }
    for (long k = 0; k < n && !rc; k++)
        rc = vd_ta_step(m, ta, tad, d);
    vt_state_out(x, N, m->nz, tad->q, tad->u, d->z);
    return rc;
}

/* ta_drive_to for vt_observed_order: from x0 over T, the positions projected */
struct order_run {
    struct vd_model *m;
    struct vd_data *d;
    double T;
    const double *x0;
};

static int order_drive(void *ctx, int method, double dt, double *x)
{
    const struct order_run *r = ctx;

    return ta_drive_to(r->m, r->d, method, VD_PROJECT_POSITIONS, dt, r->T, r->x0, x);
}

/* 4. the observed order of the TA steps (LIE 1, LSRT2 2, as test_ce item 6 measures CE's):
 * the error after T = 0.1 s of the tree state (q, u; m, rad, m/s, rad/s) for dt = 2, 1, 0.5,
 * 0.25 ms against LSRT2 at dt = 1/32 ms, from the state 0.1 s after the design pose rolling
 * at 10 m/s (past the initial layer of the wheels' slip modes, ~0.6 ms), the positions
 * projected after every step (the method's order is that of the underlying ODE: Hairer &
 * Wanner II §VII.2; cstep.h); the observed order p_obs is the log-log least-squares slope.
 * The band, from the error expansion of a one-step method of order p:
 *   e(dt) = C dt^p (1 + rho dt + O(dt^2)) + e_ref,
 * ln e = ln C + p ln dt + ln(1 + rho dt): the slope of the last term over x = ln dt at dt_i
 * = 2, 1, 0.5, 0.25 ms (x_i - mean = ln 2 (1.5, 0.5, -0.5, -1.5), sum of squares 5 ln^2 2)
 * is ~ rho sum (x_i - mean) dt_i / (5 ln^2 2) = rho 2.875 ms / (5 ln 2) = 0.83 ms rho. In the
 * asymptotic range the next term is at most half the leading one at the coarsest step,
 * |rho| 2 ms <= 1/2: |p_obs - p| <= 0.21; the reference's own error (LSRT2, (1/8)^2 = 1/64 of
 * the finest LSRT2 point's) moves the slope by < 0.03 more: p_obs in p +- 0.25 (an order-1
 * defect in LSRT2 gives a slope near 1, outside). The errors per halving are printed: their
 * ratios show the expansion's regime (4 for order 2) */
static void orders(struct vd_model *m, double *pout)
{
    struct vd_data *d = vd_data_new(m);
    const int N = m->ta->tree->n, method0 = m->opt.method, project0 = m->opt.project;
    const double T = 0.1, dt0 = m->opt.dt;
    static double x0[256], xr[256], x[256];
    int rc;

    CHECK(d != NULL && d->ta != NULL, "orders: data");
    if (!d || !d->ta) {
        vd_data_free(d);
        return;
    }
    rc = ta_drive_to(m, d, VD_METHOD_LSRT2, VD_PROJECT_POSITIONS, 1.0 / 32000.0, T, NULL, x0);
    rc |= ta_drive_to(m, d, VD_METHOD_LSRT2, VD_PROJECT_POSITIONS, 1.0 / 32000.0, T, x0, xr);
    CHECK(rc == 0, "order reference: %d", rc);
    for (int method = VD_METHOD_LIE; method <= VD_METHOD_LSRT2; method++) {
        struct order_run r = {m, d, T, x0};
        const double p = vt_observed_order("TA", method, order_drive, &r, 2 * N, xr, x);

        pout[method] = p;
        if (method == VD_METHOD_LIE)
            CHECK(fabs(p - 1.0) <= 0.25, "TA LIE observed order %.2f", p);
        else
            CHECK(fabs(p - 2.0) <= 0.25, "TA LSRT2 observed order %.2f", p);
    }
    m->opt.method = method0;
    m->opt.project = project0;
    m->opt.dt = dt0;
    vd_data_free(d);
}

/* 5. solver.project both: the velocities onto the cut rows at the projected positions, G(q+)
 * u = 0, by one simplified Newton step with the step's factors of [S G_n^T; G_n 0] (ta.h):
 * the solve (du; nu) of [S G_n^T; G_n 0] (du; nu) = (0; -G+ u~), u+ = u~ + du. Checked on 1 s
 * of the lane change (closed-loop driver, 20 m/s), every 50th step, LIE and LSRT2:
 *  (i) the velocity rows of that solve hold to LU's rounding bound (Higham, Accuracy and
 *      Stability, Thm 9.4: the computed x solves (A + dA) x = b with |dA| <= gamma_3n |L||U|,
 *      so |A x - b| <= gamma_3n P^T |L||U| |x|, evaluated from the factors left in tad->K),
 *      plus the rounding of this test's own products with G (gamma_n |G| |x| each):
 *        |G_n du + G+ u~| <= gamma_3N P^T |L||U| |(du, nu)| + gamma_n (|G_n||du| + |G+||u~|);
 * (ii) at q+ what is left is the step's change of G times the correction:
 *        G+ u+ = G+ u~ + G_n du + (G+ - G_n) du,
 *      |G+ u+| <= (i)'s bound + ||G+ - G_n||_inf |du| + gamma_n |G+| |u+|.
 * G v = 0 thus holds to rounding in the factored rows G_n and to the contraction of one
 * simplified step (O(dt |q'|) times G+ u~) at q+; the same run with the positions projected
 * only is printed for contrast (its G+ u+ is the LIE's O(dt) velocity defect, or LSRT2's
 * drift that the next step's start correction removes) */
static void velocity_projection(int method)
{
    struct vd_model *m;
    struct vd_data *d;
    char err[256];
    static double Gn[64 * 64], ut[64], y[256], w[256];
    const double eps = 0x1p-53;
    double worst[2] = {0, 0}, after = 0.0, before = 0.0, pos_only = 0.0;

    for (int pass = 0; pass < 2; pass++) {
        struct vd_scenario *scn = vd_cfg_load_scenario(SCN, VEH, stderr);

        CHECK(scn != NULL, "velocity projection: scenario");
        if (!scn)
            return;
        m = scn->m;
        m->opt.method = method;
        m->opt.project = pass ? VD_PROJECT_POSITIONS : VD_PROJECT_BOTH;
        CHECK(vd_model_set_formulation(m, VD_FORM_TA, err, sizeof(err)) == 0, "ta: %s", err);
        d = vd_data_new(m);
        CHECK(d && !vd_scenario_start(scn, d, err, sizeof(err)), "start");
        if (!d) {
            vd_cfg_scenario_free(scn);
            return;
        }
        for (int k = 0; k < 1000; k++) {
            const struct vd_ta *ta = m->ta;
            struct vd_ta_data *tad = d->ta;
            const int N = ta->tree->n, mc = ta->m, NA = N + mc, check = k % 50 == 49;
            const double g3 = 3.0 * NA * eps / (1.0 - 3.0 * NA * eps);
            const double gn = NA * eps / (1.0 - NA * eps);
            double ra = 0.0;

            if (check && pass == 0 && tad->synced) {
                /* G_n: the cut rows at the step's start */
                vd_tree_kin(ta->tree, tad->td, tad->q, tad->u);
                vd_ta_cuts(ta, tad, 0);
                memcpy(Gn, tad->G, (size_t)(mc * N) * sizeof(double));
            }
            CHECK(vd_step(m, d) == 0, "step %d", k);
            /* G+ at the placed q+ (the kinematics vd_ta_place left) */
            vd_ta_cuts(ta, tad, 0);
            for (int r = 0; r < mc; r++) {
                double s = 0.0;

                for (int c = 0; c < N; c++)
                    s += tad->G[r + mc * c] * tad->u[c];
                ra = fmax(ra, fabs(s));
            }
            if (pass) {
                pos_only = fmax(pos_only, ra);
                continue;
            }
            after = fmax(after, ra);
            before = fmax(before, tad->vres_pre);
            if (!check || k < 50)
                continue;
            {
                const double *x = tad->rhs, *LU = tad->K; /* (du; nu), the step's factors */
                double bi[64], bii = 0.0, dgn = 0.0, dun = 0.0;

                for (int c = 0; c < N; c++) {
                    ut[c] = tad->u[c] - x[c];
                    dun = fmax(dun, fabs(x[c]));
                }
                /* y = |U| |x|, w = |L| y (unit lower), then P^T w */
                for (int i = 0; i < NA; i++) {
                    double s = 0.0;

                    for (int j = i; j < NA; j++)
                        s += fabs(LU[i + NA * j]) * fabs(x[j]);
                    y[i] = s;
                }
                for (int i = 0; i < NA; i++) {
                    double s = y[i];

                    for (int j = 0; j < i; j++)
                        s += fabs(LU[i + NA * j]) * y[j];
                    w[i] = s;
                }
                for (int i = NA - 1; i >= 0; i--) {
                    const int p = tad->piv[i] - 1;
                    const double t = w[i];

                    w[i] = w[p];
                    w[p] = t;
                }
                for (int r = 0; r < mc; r++) {
                    double res = 0.0, a1 = 0.0, gpu = 0.0, dg = 0.0;

                    for (int c = 0; c < N; c++) {
                        res += Gn[r + mc * c] * x[c] + tad->G[r + mc * c] * ut[c];
                        a1 += fabs(Gn[r + mc * c]) * fabs(x[c]) +
                              fabs(tad->G[r + mc * c]) * fabs(ut[c]);
                        gpu += fabs(tad->G[r + mc * c]) * fabs(tad->u[c]);
                        dg += fabs(tad->G[r + mc * c] - Gn[r + mc * c]);
                    }
                    bi[r] = g3 * w[N + r] + gn * a1;
                    worst[0] = fmax(worst[0], fabs(res) / bi[r]);
                    CHECK_TOL(fabs(res), bi[r], "%s step %d row %d: G_n du + G+ u~ = %.3g",
                              method == VD_METHOD_LIE ? "LIE" : "LSRT2", k, r, res);
                    bii = fmax(bii, bi[r] + gn * gpu);
                    dgn = fmax(dgn, dg);
                }
                bii += dgn * dun;
                worst[1] = fmax(worst[1], ra / bii);
                CHECK_TOL(ra, bii, "%s step %d: |G(q+) u+| %.3g",
                          method == VD_METHOD_LIE ? "LIE" : "LSRT2", k, ra);
            }
        }
        vd_data_free(d);
        vd_cfg_scenario_free(scn);
    }
    printf("TA %s, project both over 1 s: |G(q+) u| before the velocity projection %.3g, after "
           "%.3g (positions only: %.3g); worst share of the bounds (i) %.3g, (ii) %.3g\n",
           method == VD_METHOD_LIE ? "LIE" : "LSRT2", before, after, pos_only, worst[0], worst[1]);
    CHECK(after < before, "the velocity projection reduces |G(q+) u|: %.3g -> %.3g", before, after);
}

/* 6. the structured solve (solver.linear structured, core/bblu.h) on 2 s of the lane change
 * (LIE, positions projected): every 200 steps, (a) the assembled [S G^T; G 0] has exact zeros
 * between the clusters ta.h derives from the tree, the force elements' blocks and the cuts,
 * and between each cluster and the border indices it does not touch (the factorization never
 * reads them: a nonzero there would be lost); (b) a solve with the
 * step's factors against the long-double refined reference, within Higham's bound for the
 * factors used (tests/bblu_bound.h: gamma_3n c + 2u); (c) the cut rows stay <= 1e-8 */
static void structured_solve(void)
{
    struct vd_scenario *scn = vd_cfg_load_scenario(SCN, VEH, stderr);
    struct vd_model *m;
    struct vd_data *d = NULL;
    char err[256];
    double drift = 0.0;
    int nz_off = 0, rc = 0;

    CHECK(scn != NULL, "structured: load");
    if (!scn)
        return;
    m = scn->m;
    m->opt.method = VD_METHOD_LIE;
    m->opt.project = VD_PROJECT_POSITIONS;
    m->opt.linear = VD_LINEAR_STRUCTURED;
    CHECK(vd_model_set_formulation(m, VD_FORM_TA, err, sizeof(err)) == 0, "structured: %s", err);
    d = vd_data_new(m);
    CHECK(d && vd_scenario_start(scn, d, err, sizeof(err)) == 0, "structured: start %s", err);
    if (!d || !m->ta)
        goto out;
    {
        const struct vd_ta *ta = m->ta;
        const int n = ta->tree->n + ta->m;
        const size_t N = (size_t)n;

        /* the four corners, the idler arm, the steering wheel; the border the chassis' 6
         * coordinates, the steering hub's 7 (pitman arm 1, link 2, tie rods 2 x 2) and the 10
         * rows that reach it (the box, the link on the idler, the two tie rods' outer joints) */
        CHECK(ta->ncl == 6 && ta->lu.nb == 23, "structured: %d clusters, border %d (6, 23)",
              ta->ncl, ta->lu.nb);
        for (long k = 0; k < 2000 && !rc; k++) {
            rc = vd_step(m, d);
            CHECK(rc == 0, "structured: step %ld", k);
            vd_ta_cuts(ta, d->ta, 0);
            for (int r = 0; r < ta->m; r++)
                drift = fmax(drift, fabs(d->ta->g[r]));
            if (rc || k % 200 != 0)
                continue;
            /* the step's K (the bordered LU reads it, it does not overwrite it) */
            vd_ta_step(m, ta, d->ta, d);
            for (size_t j = 0; j < N; j++)
                for (size_t i = 0; i < N; i++) {
                    const int ci = ta->cl[i], cj = ta->cl[j];
                    const int zero = (ci >= 0 && cj >= 0 && ci != cj) ||
                                     (ci < 0 && cj >= 0 && !ta->touch[(size_t)cj * N + i]) ||
                                     (cj < 0 && ci >= 0 && !ta->touch[(size_t)ci * N + j]);

                    nz_off += zero && d->ta->K[i + N * j] != 0.0;
                }
            {
                double *b = malloc(N * sizeof(double)), *x = malloc(N * sizeof(double));
                double *xr = malloc(N * sizeof(double)), *r = malloc(N * sizeof(double));
                double *LU = malloc(N * N * sizeof(double)), *w = malloc(N * sizeof(double));
                lapack_int *ip = malloc(N * sizeof(lapack_int));
                double e = 0.0, nx = 0.0, c;

                for (size_t i = 0; i < N; i++)
                    b[i] = x[i] = rnd(-1.0, 1.0);
                vd_bblu_solve(&ta->lu, d->ta->F, d->ta->piv, x, w);
                memcpy(LU, d->ta->K, N * N * sizeof(double));
                CHECK(LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, LU, n, ip) == 0, "getrf");
                refined(n, d->ta->K, LU, ip, b, xr, r);
                for (size_t i = 0; i < N; i++) {
                    e = fmax(e, fabs(x[i] - xr[i]));
                    nx = fmax(nx, fabs(x[i]));
                }
                c = vt_bblu_cond(&ta->lu, d->ta->K, d->ta->F, d->ta->piv);
                CHECK_TOL(e / nx, vt_gamma(3.0 * n) * c + 2.0 * VT_U,
                          "structured: step %ld, solve error %.3g (c %.3g)", k, e / nx, c);
                if (k == 1000)
                    printf("structured TA solve at 1 s: error %.3g, bound %.3g\n", e / nx,
                           vt_gamma(3.0 * n) * c + 2.0 * VT_U);
                free(b);
                free(x);
                free(xr);
                free(r);
                free(LU);
                free(w);
                free(ip);
            }
        }
        CHECK(nz_off == 0, "structured: %d entries the bordered LU never reads are not zero",
              nz_off);
        CHECK(drift <= 1e-8, "structured: cut rows %.3g > 1e-8", drift);
        printf("structured TA: 2 s of the lane change, cut rows <= %.3g\n", drift);
    }
out:
    vd_data_free(d);
    vd_cfg_scenario_free(scn);
}

int main(int argc, char **argv)
{
    struct vd_model *m = vd_cfg_load_model(VEH, NULL, stderr);
    char err[256];

    (void)argc;
    (void)argv;
    CHECK(m != NULL, "load %s", VEH);
    if (!m)
        return vt_report("test_ta");
    CHECK(vd_model_set_formulation(m, VD_FORM_TA, err, sizeof(err)) == 0 && m->ta, "ta: %s",
          m->ta ? "built" : err);
    if (m->ta)
        checks_static(m);
    /* the steering welded to the chassis: 50 coordinates, the corners' 36 rows (14 DOF) */
    snprintf(m->opt.weld, sizeof(m->opt.weld), "steering.");
    CHECK(vd_model_set_formulation(m, VD_FORM_TA, err, sizeof(err)) == 0 && m->ta &&
              m->ta->tree->n == 50 && m->ta->m == 36 && m->ta->nweld == 4,
          "ta with the steering welded: %d + %d", m->ta ? m->ta->tree->n : -1,
          m->ta ? m->ta->m : -1);
    m->opt.weld[0] = '\0';
    CHECK(vd_model_set_formulation(m, VD_FORM_TA, err, sizeof(err)) == 0 && m->ta, "ta: %s",
          m->ta ? "built" : err);
    if (m->ta) {
        double p[2];

        orders(m, p);
    }
    velocity_projection(VD_METHOD_LIE);
    velocity_projection(VD_METHOD_LSRT2);
    vd_model_free(m);
    structured_solve();

    /* the same vehicle with the steering on its elastic joints (without `connection: joints`:
     * the idler arm's and the link's bushings, their rate-less directions held by the tree's
     * revolute and universal): the same 55 coordinates and 40 rows, and every static check
     * above */
    {
        FILE *f = fopen(VEH, "rb");
        static char txt[1 << 16];
        size_t n = f ? fread(txt, 1, sizeof(txt) - 1, f) : 0;
        const char *key = "  type: pitman_arm\n  connection: joints\n";
        char *p = n ? strstr(txt, key) : NULL;
        struct vd_model *me = NULL;

        if (f)
            fclose(f);
        CHECK(p != NULL && n < sizeof(txt) - 1, "read %s (its steering on ideal joints)", VEH);
        if (p) {
            const size_t at = (size_t)(p - txt) + strlen("  type: pitman_arm\n");
            const size_t cut = strlen("  connection: joints\n");

            txt[n] = '\0';
            memmove(txt + at, txt + at + cut, n - at - cut + 1);
            me = vd_cfg_load_model_mem("config/vehicles/hmmwv_ce_steering_elastic.yaml", txt,
                                       strlen(txt), NULL, stderr);
        }
        CHECK(me != NULL && vd_model_find_joint(me, "steering.idler_pivot") < 0,
              "load %s with the steering on elastic joints", VEH);
        if (me) {
            CHECK(vd_model_set_formulation(me, VD_FORM_TA, err, sizeof(err)) == 0 && me->ta &&
                      me->ta->tree->n == 55 && me->ta->m == 40,
                  "ta, steering on elastic joints: %s", me->ta ? "built" : err);
            if (me->ta)
                checks_static(me);
            vd_model_free(me);
        }
    }

    /* 3. the forms on the double lane change */
    {
        const int halving = argc > 1 && !strcmp(argv[1], "--halving");
        double x[2][3][NOUT], drift[2][3], dnone = 0.0, xn[NOUT], xr[NOUT], dref = 0.0;
        int ok = dlc_forms(3, halving, "", x, drift, 1);

        ok &= run_dlc(VD_FORM_TA, 1e-3, VD_PROJECT_NONE, xn, &dnone) == 0;
        CHECK(ok, "TA without projection: 2 s");
        ref_jac = 1;
        ok &= run_dlc(VD_FORM_TA, 1e-3, VD_PROJECT_POSITIONS, xr, &dref) == 0;
        ref_jac = 0;
        CHECK(ok, "TA with the reference Jacobians: 2 s");
        if (!ok)
            return vt_report("test_ta");
        dlc_print(3, "", x[0]);
        if (halving)
            dlc_print_halving(3, "", x);
        printf("cut rows over the run: TA projected %.3g, without projection %.3g; FA's joints "
               "%.3g\n",
               drift[0][1], dnone, drift[0][2]);
        /* the fast Jacobians (core/tree_jac.h: restricted recursions, the root's rigid
         * directions in closed form) against the reference recursion on the TA tree (its
         * spherical, universal and prismatic nodes): the same sums in another order, so the
         * Jacobians differ by rounding (1e-13 relative); it enters each step through S as a
         * relative perturbation of du of that size, 1e-13 x |du| <= 1e-13 x 1 per step,
         * accumulated over 2000 steps of a stable closed loop: 2e-10, x 100 for the closed
         * loop's transient amplification: tol 2e-8 (m, rad, m/s, rad/s) */
        {
            double w = 0.0;

            for (int k = 0; k < NOUT; k++)
                w = fmax(w, fabs(xr[k] - x[0][1][k]));
            CHECK_TOL(w, 2e-8, "TA: fast vs reference Jacobians over 2 s %.3g", w);
            printf("TA: fast vs reference Jacobians over 2 s: %.3g\n", w);
        }
        /* The bounds, from step halving (`test_ta --halving`, this file at its commit):
         * CE and TA are two LIE discretizations (order 1) of the same ODE (the same bodies,
         * joints, elements and tyres; TA's start made consistent with its cuts), so
         * |TA - CE| <= e_TA + e_CE, each global error by Richardson for order 1,
         * e(dt) = 2 |X(dt) - X(dt/2)|, times 2 for the O(dt^2) remainder that estimate leaves.
         * FA integrates a different ODE: its steering box is elastic (the coupler's 2e5 N m/rad)
         * and its wheel bearings are stiff bushings, where CE and TA are rigid:
         * FA - CE = delta + (e_FA - e_CE) with a model difference delta that does not change
         * with dt, extrapolated from the halving: delta = 2 D(dt/2) - D(dt). So
         * |FA - CE| <= |delta| + 2 (e_FA + e_CE). Measured |X(dt) - X(dt/2)| at 2 s (CE, TA,
         * FA) and delta:
         *   chassis y      9.26e-5  9.27e-5  3.69e-5  -1.36e-3 m
         *   yaw            2.17e-5  2.17e-5  5.01e-5  -4.18e-4 rad
         *   roll           5.33e-6  5.56e-6  9.3e-6   -3.18e-5 rad
         *   lateral vel.   2.95e-4  2.94e-4  6.1e-4    2.75e-3 m/s
         *   yaw rate       1.33e-4  1.33e-4  2.04e-4  -1.14e-3 rad/s
         *   steering cmd   1.12e-4  1.11e-4  3.78e-4   4.27e-3 rad
         * (the steering on ideal joints, as the file has it since 2026-11-27; with its elastic
         * bearings and link joints before, delta was 4-7 times larger.)
         * (TA - CE measured: 3.5e-7 m, 1.1e-7 rad, 4.6e-7 rad, 9.9e-7 m/s, 2.2e-7 rad/s, 1.2e-6
         * rad: 95-4800x below its bound, the two forms' errors being nearly the same) */
        {
            static const double hce[NOUT] = {9.26e-5, 2.17e-5, 5.33e-6, 2.95e-4, 1.33e-4, 1.12e-4};
            static const double hta[NOUT] = {9.27e-5, 2.17e-5, 5.56e-6, 2.94e-4, 1.33e-4, 1.11e-4};
            static const double hfa[NOUT] = {3.69e-5, 5.01e-5, 9.3e-6, 6.1e-4, 2.04e-4, 3.78e-4};
            static const double dm[NOUT] = {1.36e-3, 4.18e-4, 3.18e-5, 2.75e-3, 1.14e-3, 4.27e-3};

            for (int k = 0; k < NOUT; k++) {
                const double eta = 2.0 * (2.0 * hce[k] + 2.0 * hta[k]);
                const double efa = dm[k] + 2.0 * (2.0 * hce[k] + 2.0 * hfa[k]);

                CHECK_TOL(fabs(x[0][1][k] - x[0][0][k]), eta, "TA - CE, %s: %.3g", out_name[k],
                          x[0][1][k] - x[0][0][k]);
                CHECK_TOL(fabs(x[0][2][k] - x[0][0][k]), efa, "FA - CE, %s: %.3g", out_name[k],
                          x[0][2][k] - x[0][0][k]);
            }
        }
        /* the projection's residual: one simplified Newton step with the step's factors leaves
         * g = O(|dG| |ds|) = O(dt |u| |g(q~)|) <= 1e-3 x 1 x 1e-9 (the LIE's per-step error of the
         * cut rows, printed as pre-projection below 3e-10 here): the 1e-8 is met with
         * margin; without the projection the rows drift at O(dt^2) per step */
        CHECK_TOL(drift[0][1], 1e-8, "TA: cut rows with the projection, max over 2 s %.3g",
                  drift[0][1]);
        CHECK(dnone > 10.0 * drift[0][1],
              "TA without projection drifts (%.3g) above the projected run (%.3g)", dnone,
              drift[0][1]);
        /* LSRT2: TA against CE on the same 2 s (both W-form LSRT2 of the same ODE) */
        {
            double y[2][3][NOUT], dr[2][3];

            dlc_method = VD_METHOD_LSRT2;
            ok = dlc_forms(2, halving, " LSRT2", y, dr, ok);
            dlc_method = VD_METHOD_LIE;
            if (!ok)
                return vt_report("test_ta");
            dlc_print(2, " LSRT2", y[0]);
            if (halving)
                dlc_print_halving(2, "LSRT2 ", y);
            printf("LSRT2 cut rows over the run: TA projected %.3g\n", dr[0][1]);
            /* The bound as for the LIE above: |TA - CE| <= e_TA + e_CE with each global error
             * estimated from step halving as for order 1, e(dt) <= 2 |X(dt) - X(dt/2)|, times
             * 2 for the remainder. Order 1 and not LSRT2's 2 (whose Richardson estimate,
             * |X(dt) - X(dt/2)| / 3, is smaller, so the order-1 one bounds it too): the
             * closed-loop driver holds its command over the step (a zero-order hold, first
             * order, joints.md), so the runs' differences halve with dt whatever the
             * integrator. Measured |X(dt) - X(dt/2)| at 2 s, CE and TA (`test_ta --halving`):
             *   chassis y 1.29e-4 m, yaw 2.86e-5 rad, roll 1.98e-6 rad, lateral velocity
             *   1.95e-4 m/s, yaw rate 2.32e-5 rad/s, steering command 3.16e-4 rad (the two
             *   forms equal to 3 digits);
             * TA - CE measured: 1.8e-6 m, 3.3e-7, 8.3e-9 rad, 1.0e-6 m/s, 1.9e-7 rad/s, 1.5e-6
             * rad (the start's steering-link correction, as the LIE's) */
            {
                static const double hl[NOUT] = {1.29e-4, 2.86e-5, 1.98e-6,
                                                1.95e-4, 2.32e-5, 3.16e-4};

                for (int k = 0; k < NOUT; k++)
                    CHECK_TOL(fabs(y[0][1][k] - y[0][0][k]), 2.0 * (4.0 * hl[k]),
                              "LSRT2 TA - CE, %s: %.3g", out_name[k], y[0][1][k] - y[0][0][k]);
            }
            /* the projection's residual as the LIE's (same argument, same 1e-8) */
            CHECK_TOL(dr[0][1], 1e-8, "TA LSRT2: cut rows with the projection, max over 2 s %.3g",
                      dr[0][1]);
        }
    }
    return vt_report("test_ta");
}
