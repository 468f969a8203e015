/* tests/core/test_ce.c - the CE form of the joint HMMWV (core/ce.h): hmmwv_joints.yaml with hub
 * drives instead of the half shafts, three ways: the steering welded to the chassis (chassis 6
 * + 4 wheel travels + 4 wheel spins = 14 coordinates), the steered axle's node from the
 * steering on its elastic bearings (15) and from the steering on ideal joints (15,
 * `connection: joints`, as hmmwv_ce.yaml); each:
 *   1. the placement satisfies every joint of the joint model: g = 0 and G v = 0;
 *   2. the CE equations are the joint model's Newton-Euler equations projected: with the
 *      body accelerations of q'' = M^-1 f, J^T (M_b v' - h) = 0 for the joint model's own
 *      h (gyroscopic terms included) and body mass matrices, and G v' + gamma = 0;
 *   3. driving: 2 s of LIE steps with 400 N m on each hub from rest on the flat: finite, the
 *      joints closed to rounding throughout, and the speed that Newton's law gives for the
 *      net drive force (within the tyres' slip and rolling resistance). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
#include "ce_checks.h"
#include "step_order.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *s;
    long n;

    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    s = calloc((size_t)n + 1, 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    fclose(f);
    return s;
}

/* hmmwv_joints.yaml with `drive: hub`, without its driveline section and with the steering
 * on elastic joints, or with steer_joints on its ideal joints (as the joint model and
 * hmmwv_ce.yaml have it) */
static struct vd_model *load(bool steer_joints)
{
    char *s = slurp("config/vehicles/hmmwv_joints.yaml"), *p;
    struct vd_model *m;

    if (!s)
        return NULL;
    while ((p = strstr(s, "drive: shaft")))
        memcpy(p, "drive: hub  ", 12);
    /* the steering on its elastic joints (the steered axle reads them) */
    p = strstr(s, "type: pitman_arm\n  connection: joints\n");
    if (p && !steer_joints)
        memcpy(p + 17, "                    ", 20);
    p = strstr(s, "\ndriveline:"); /* the file's last section */
    if (p)
        p[1] = '\0';
    m = vd_cfg_load_model_mem("config/vehicles/hmmwv_ce_test.yaml", s, strlen(s), NULL, stderr);
    free(s);
    return m;
}

static int cmp_d(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* --bench: step time distributions of the CE form (fast Jacobians, then the reference
 * recursion's) and the joint (FA) form of the same vehicle in one run, driving at 4 x 400 N m
 * (not a test: no checks) */
static void bench(struct vd_model *m, struct vd_data *d, const struct vd_ce *ce,
                  struct vd_ce_data *cd, int nsteps)
{
    static double tc[20000], tr[20000], tf[20000];
    static const char *const name[3] = {"CE (tree, fast Jacobians)", "CE (reference Jacobians)",
                                        "FA (joint model, index2, dense)"};

    for (int form = 0; form < (getenv("VD_BENCH_CE_ONLY") ? 2 : 3); form++) {
        double *ts = form == 2 ? tf : form ? tr : tc;

        cd->ref_jac = form == 1;
        vd_data_reset(m, d);
        vd_ce_init(m, ce, cd, d);
        vt_drive_hubs(m, d, 400.0);
        for (int s = 0; s < nsteps + 200; s++) {
            struct timespec a, b;

            clock_gettime(CLOCK_MONOTONIC, &a);
            if (form == 2 ? vd_step(m, d) : vd_ce_step(m, ce, cd, d))
                break;
            clock_gettime(CLOCK_MONOTONIC, &b);
            if (s >= 200)
                ts[s - 200] =
                    1e6 * (double)(b.tv_sec - a.tv_sec) + 1e-3 * (double)(b.tv_nsec - a.tv_nsec);
        }
        qsort(ts, (size_t)nsteps, sizeof(double), cmp_d);
        printf("%s: %d steps, step time [us] min %.2f p50 %.2f p99 %.2f max %.2f\n", name[form],
               nsteps, ts[0], ts[nsteps / 2], ts[nsteps * 99 / 100], ts[nsteps - 1]);
    }
    cd->ref_jac = 0;
    printf("CE reference : fast = %.2f (medians)\n", tr[nsteps / 2] / tc[nsteps / 2]);
    if (!getenv("VD_BENCH_CE_ONLY"))
        printf("FA : CE = %.1f (medians)\n", tf[nsteps / 2] / tc[nsteps / 2]);
}

/* 4. the step reuses the placement of the previous step's end: 200 driven steps with it and
 * with every start re-placed (cd->placed cleared) end in the same state bit for bit (the same
 * q, u give the same closures and kinematics), with one placement per step instead of two */
static void placement_reuse(struct vd_model *m, struct vd_data *d, const struct vd_ce *ce,
                            struct vd_ce_data *cd)
{
    const int N = ce->tree->n, nstep = 200;
    const int in = vd_model_find_input(m, "front_l.drive");
    static double q0[64], u0[64], z0[64];
    long np[2] = {0, 0};
    int rc = 0;

    for (int run = 0; run < 2; run++) {
        vd_data_reset(m, d);
        vd_ce_init(m, ce, cd, d);
        cd->nplace = 0;
        for (int s = 0; s < nstep && !rc; s++) {
            if (in >= 0)
                d->u[in] = 400.0;
            if (run)
                cd->placed = 0;
            rc = vd_ce_step(m, ce, cd, d);
        }
        np[run] = cd->nplace;
        if (run == 0) {
            memcpy(q0, cd->q, (size_t)N * sizeof(double));
            memcpy(u0, cd->u, (size_t)N * sizeof(double));
            memcpy(z0, d->z, (size_t)m->nz * sizeof(double));
        }
    }
    CHECK(rc == 0, "placement reuse: %d steps", nstep);
    CHECK(!memcmp(q0, cd->q, (size_t)N * sizeof(double)) &&
              !memcmp(u0, cd->u, (size_t)N * sizeof(double)) &&
              !memcmp(z0, d->z, (size_t)m->nz * sizeof(double)),
          "placement reused: the same state bit for bit as placed twice per step");
    CHECK(np[0] == nstep + 1 && np[1] == 2 * nstep,
          "placements: %ld reused (want %d), %ld re-placed (want %d)", np[0], nstep + 1, np[1],
          2 * nstep);
}

/* 5. one step's M, f (= f - M q'' at the step's q''), Jq, Ju with the fast Jacobians
 * (core/tree_jac.h) against the reference recursion (vd_tree_jac, cd->ref_jac) from the same
 * state, at driven states away from the design pose. The rounding bound of test_tree item 6:
 * both are within gamma_m sum|terms| of the exact derivative, m <= 64 operations per term,
 * at most 64 nbody terms per entry, each at most Fs (1 + |x|) (1 + |u| + |q''|) with Fs the
 * largest subtree spatial force: tol = 2 x 64 u x 64 nbody Fs (1 + |x|) (1 + |u| + |q''|).
 * M comes from the same CRBA on the same placement: equal bit for bit. And the bodies' dmask
 * (the steered axle's: a corner's travel does not move the other corner nor the steering):
 * the fast Jacobians of a plan built with every dmask cleared equal the masked plan's bit for
 * bit (the skipped bodies' tangents are exact zeros) */
static void fast_vs_ref(struct vd_model *m, struct vd_data *d, const struct vd_ce *ce,
                        struct vd_ce_data *cd)
{
    const int N = ce->tree->n, nb = ce->tree->nbody;
    struct vd_tree_data *td = cd->td;
    struct vd_tree *tw = ce->tree; /* the test's own tree: its masks cleared for one plan */
    struct vd_tree_jplan *jp_mask = cd->jp, *jp_all;
    static double q0[64], u0[64], z0[64], M[64 * 64], f[64], Jq[64 * 64], Ju[64 * 64];
    static unsigned dm[256];
    const int in = vd_model_find_input(m, "rear_l.drive");
    int nmask = 0;

    for (int b = 0; b < nb && b < 256; b++) {
        dm[b] = tw->body[b].dmask;
        nmask += dm[b] != 0;
        tw->body[b].dmask = 0;
    }
    jp_all = vd_tree_jplan_new(tw, m->nblk, cd->row, cd->col);
    for (int b = 0; b < nb && b < 256; b++)
        tw->body[b].dmask = dm[b];
    CHECK(nb <= 256 && jp_all && (nmask > 0) == (ce->has_axle != 0),
          "a plan without the masks (%d masked bodies, steered axle %d)", nmask, ce->has_axle);

    vd_data_reset(m, d);
    vd_ce_init(m, ce, cd, d);
    for (int s = 0; s < 300; s++) {
        int rc[2];

        if (in >= 0)
            d->u[in] = 600.0;
        if (s % 100 != 99) {
            vd_ce_step(m, ce, cd, d);
            continue;
        }
        vt_ce_ref_and_fast(m, ce, cd, d, td, s, q0, u0, z0, M, f, Jq, Ju, rc);
        CHECK(rc[0] == 0 && rc[1] == 0, "step %d: reference and fast steps", s);
        if (jp_all) {
            static double Jqm[64 * 64], Jum[64 * 64];
            int neq;

            memcpy(Jqm, td->Jq, (size_t)(N * N) * sizeof(double));
            memcpy(Jum, td->Ju, (size_t)(N * N) * sizeof(double));
            memcpy(cd->q, q0, (size_t)N * sizeof(double));
            memcpy(cd->u, u0, (size_t)N * sizeof(double));
            memcpy(d->z, z0, (size_t)m->nz * sizeof(double));
            d->nstep = s;
            cd->jp = jp_all;
            rc[0] = vd_ce_step(m, ce, cd, d);
            cd->jp = jp_mask;
            neq = !memcmp(Jqm, td->Jq, (size_t)(N * N) * sizeof(double)) &&
                  !memcmp(Jum, td->Ju, (size_t)(N * N) * sizeof(double));
            CHECK(rc[0] == 0 && neq, "step %d: the masked plan's Jacobians as the unmasked's", s);
        }
        vt_ce_fast_vs_ref(ce, cd, td, s, u0, M, f, Jq, Ju, "", true);
    }
    vd_tree_jplan_free(jp_all);
}

/* the state x = (q, u, z) at T after driving with a constant 400 N m on every hub (constant
 * inputs: their sampling adds no error of its own) from x0, or (x0 NULL) from the design
 * pose rolling at 10 m/s; method and dt as given */
static int drive_to(struct vd_model *m, struct vd_data *d, const struct vd_ce *ce,
                    struct vd_ce_data *cd, int method, double dt, double T, const double *x0,
                    double *x)
{
    const int N = ce->tree->n;
    const long n = lround(T / dt);
    int rc = 0;

    m->opt.method = method;
    m->opt.dt = dt;
    vd_data_reset(m, d);
    vd_ce_init(m, ce, cd, d);
    vt_drive_hubs(m, d, 400.0);
    if (x0) {
        vt_state_in(x0, N, m->nz, cd->q, cd->u, d->z);
    } else {
        /* rolling at 10 m/s (the wheels at 10 m/s over a 0.47 m radius) */
        cd->u[0] = 10.0;
        for (int in = 0; in < ce->tree->nnode; in++)
            if (ce->tree->node[in].type == VD_TREE_REVOLUTE)
                cd->u[ce->tree->node[in].off] = 10.0 / 0.47;
    }
    for (long s = 0; s < n && !rc; s++)
        rc = vd_ce_step(m, ce, cd, d);
    vt_state_out(x, N, m->nz, cd->q, cd->u, d->z);
    return rc;
}

/* drive_to for vt_observed_order: from x0 over T */
struct order_run {
    struct vd_model *m;
    struct vd_data *d;
    const struct vd_ce *ce;
    struct vd_ce_data *cd;
    double T;
    const double *x0;
};

static int order_drive(void *ctx, int method, double dt, double *x)
{
    const struct order_run *r = ctx;

    return drive_to(r->m, r->d, r->ce, r->cd, method, dt, r->T, r->x0, x);
}

/* 6. the observed order of the CE steps (LIE 1, LSRT2 2): the error after T = 0.1 s of the
 * tree state (q, u; m, rad, m/s, rad/s) for dt = 2, 1, 0.5, 0.25 ms against LSRT2 at
 * dt = 1/32 ms (its own error 1/64 of the finest LSRT2 point's, so it bends the slope by
 * < 0.03), all from the state 0.1 s after the design pose rolling at 10 m/s (the initial
 * layer of the wheels' stiff slip modes, time constant ~0.6 ms, is over: a one-step method
 * keeps its order on the smooth solution); the observed order is the log-log least-squares
 * slope. The bands are test_step's: they allow the pre-asymptotic bend of the coarsest points
 * and nothing more (an order-1 defect in LSRT2 gives a slope near 1) */
static void orders(struct vd_model *m, struct vd_data *d, const struct vd_ce *ce,
                   struct vd_ce_data *cd)
{
    const int N = ce->tree->n, method0 = m->opt.method;
    const double T = 0.1, dt0 = m->opt.dt;
    static double x0[128], xr[128], x[128];
    int rc = drive_to(m, d, ce, cd, VD_METHOD_LSRT2, 1.0 / 32000.0, T, NULL, x0);

    rc |= drive_to(m, d, ce, cd, VD_METHOD_LSRT2, 1.0 / 32000.0, T, x0, xr);
    CHECK(rc == 0, "order reference: %d", rc);
    for (int method = VD_METHOD_LIE; method <= VD_METHOD_LSRT2; method++) {
        struct order_run r = {m, d, ce, cd, T, x0};
        const double p = vt_observed_order("CE", method, order_drive, &r, 2 * N, xr, x);

        if (method == VD_METHOD_LIE)
            CHECK(p > 0.85 && p < 1.2, "CE LIE observed order %.2f", p);
        else
            CHECK(p > 1.8 && p < 2.35, "CE LSRT2 observed order %.2f", p);
    }
    m->opt.method = method0;
    m->opt.dt = dt0;
}

int main(int argc, char **argv)
{
    struct vd_model *m = load(false);
    struct vd_data *d;
    struct vd_ce *ce;
    struct vd_ce_data *cd;
    char err[256];
    static double Gv[1024], Ga[1024], acc[1024];

    CHECK(m != NULL, "load the hub-drive joint HMMWV");
    if (!m)
        return vt_report("test_ce");
    d = vd_data_new(m);
    /* pass 0: the steering welded (14 coordinates); pass 1: the steered axle's node (15);
     * pass 2: the same from the steering on ideal joints (`connection: joints`: revolutes
     * at the bearings, a universal and a ball joint on the link; every check below then
     * covers the steering's joints too) */
    for (int pass = 0; pass < 3; pass++) {
        const int nexp = pass ? 15 : 14;

        if (pass == 2) {
            vd_data_free(d);
            vd_model_free(m);
            m = load(true);
            CHECK(m != NULL && vd_model_find_joint(m, "steering.idler_pivot") >= 0,
                  "load the hub-drive joint HMMWV with the steering on ideal joints");
            if (!m)
                return vt_report("test_ce");
            d = vd_data_new(m);
        }

        ce = vd_ce_build(m, pass ? NULL : "steering.", err, sizeof(err));
        CHECK(ce != NULL, "build: %s", ce ? "" : err);
        if (!ce)
            return vt_report("test_ce");
        CHECK(ce->tree->n == nexp && ce->ncorner == 4 && ce->has_axle == (pass > 0),
              "%d coordinates (%d), 4 corners (%d)", nexp, ce->tree->n, ce->ncorner);
        cd = vd_ce_data_new(m, ce);
        vd_ce_init(m, ce, cd, d);
        if (argc > 1 && !strcmp(argv[1], "--bench")) {
            bench(m, d, ce, cd, 3000);
            if (pass == 2)
                return 0;
            vd_ce_data_free(cd);
            vd_ce_free(ce);
            continue;
        }

        /* 1. and 2. at a few states away from the design pose */
        for (int trial = 0; trial < 4; trial++) {
            double wg = 0.0, wgv = 0.0, wq = 0.0, wga = 0.0, fmax_ = 0.0;
            const int N = ce->tree->n;

            vd_ce_init(m, ce, cd, d);
            cd->q[2] += 0.01 * trial;
            cd->q[3] += 0.3 * trial; /* yaw */
            cd->q[4] += 0.02 * trial;
            cd->q[5] -= 0.03 * trial;
            for (int k = 0; k < N; k++)
                cd->u[k] = 0.5 * sin(1.7 * k + trial);
            for (int in = 1; in < ce->tree->nnode; in++) {
                const struct vd_tree_node *n = &ce->tree->node[in];

                for (int k = n->off; k < n->off + n->nd; k++)
                    cd->q[k] = n->type == VD_TREE_REVOLUTE ? 3.0 * trial      /* wheel spin angle */
                               : k - n->off == 2 ? 0.1 * sin(1.3 * k + trial) /* arm angle */
                                                 : 0.15 * sin(2.1 * k + trial); /* travel */
            }
            CHECK(vd_ce_place(m, ce, cd, d) == 0, "trial %d: place", trial);
            vd_kinematics(m, d, d->r, d->v);
            vd_joint_eval(m, d, d->u, true);
            vd_joint_G_mul(m, d, d->v, Gv);
            for (int r = 0; r < m->nc; r++) {
                wg = fmax(wg, fabs(d->jg[r]));
                wgv = fmax(wgv, fabs(Gv[r]));
            }
            /* rows of size 1 m and 1 m/s, poses from a handful of O(1) operations: 1e-13, 1e-12 */
            CHECK_TOL(wg, 1e-13, "trial %d: joints at the placed bodies: max |g| %.3g", trial, wg);
            CHECK_TOL(wgv, 1e-12, "trial %d: max |G v| %.3g", trial, wgv);

            /* 2. q'' from the CE equations; body accelerations; the joint model's residual */
            {
                const double z3[3] = {0, 0, 0};
                struct vd_tree_data *td = cd->td;
                static double hm[1024], hb[1024], Q[64];

                vd_eval_ex(m, d, d->r, d->v, d->z, d->u, hm, cd->gz, false, false);
                /* every bushing's deflection (translations) and every coupler's error at the
                 * placed bodies: the wheel bearings, hub drives, the steering's bearings, link
                 * joints and box move only in their free components */
                {
                    double wb = 0.0, wc = 0.0;

                    for (int b = 0; b < m->nbush; b++)
                        for (int i = 6; i < 9; i++)
                            wb = fmax(wb, fabs(d->bush_out[12 * b + i]));
                    for (int k = 0; k < m->ncoupler; k++)
                        wc = fmax(wc, fabs(d->cpl_out[2 * k + 1]));
                    /* positions of O(1) m from a handful of operations: 1e-13 m, 1e-13 rad */
                    CHECK_TOL(wb, 1e-13, "pass %d trial %d: bushing deflections %.3g m", pass,
                              trial, wb);
                    CHECK_TOL(wc, 1e-13, "pass %d trial %d: coupler errors %.3g", pass, trial, wc);
                }
                /* the locked elements (core/ce_lock.c) carry no generalized force: the tree
                 * forces of h with every element and of h with the step's elements only differ
                 * by rounding. Their size: the coupler's error <= 1e-13 (above) and rate
                 * <= 1e-15 x |u| give at most 2e5 N m/rad x 1e-13 + 69 x 1e-15 = 2e-8 N m,
                 * times the box ratio 20 on the wheel's coordinate: 4e-7; the two recursions'
                 * rounding on forces up to 5e5 N (|f| below) over ~30 bodies: 30 x 5e5 u =
                 * 3e-9. 1e-6 bounds both; a live element's force is >= 1 N */
                {
                    static double hk[1024], f1[64], hb1[1024], hb2[1024];
                    const struct vd_eval_skip sk = {ce->mk, ce->nmk, ce->bd, ce->nbd,
                                                    false,  false,   ce->bu, ce->nbu,
                                                    ce->cp, ce->ncp, ce->pp, ce->npp};
                    double wl = 0.0;

                    vd_eval_sel(m, d, d->r, d->v, d->z, d->u, hk, cd->gz, false, false, &sk);
                    for (int b = 0; b < m->nbody; b++) {
                        memcpy(hb1 + 6 * ce->model_tb[b], hm + 6 * b, 6 * sizeof(double));
                        memcpy(hb2 + 6 * ce->model_tb[b], hk + 6 * b, 6 * sizeof(double));
                    }
                    vd_tree_kin(ce->tree, td, cd->q, cd->u);
                    vd_tree_forces(ce->tree, td, z3, hb1, NULL);
                    memcpy(f1, td->f, (size_t)N * sizeof(double));
                    vd_tree_forces(ce->tree, td, z3, hb2, NULL);
                    for (int k = 0; k < N; k++)
                        wl = fmax(wl, fabs(f1[k] - td->f[k]));
                    /* welded steering: its five bushings on the chassis join bodies welded to
                     * it; every pass: the box coupler (the closure turns the steering wheel
                     * with the pitman arm by the box ratio); on ideal joints the pitman arm's
                     * rate-free bearing, which only carries the box */
                    CHECK(ce->nlock_bush == (pass == 0 ? 5 : pass == 2) && ce->nlock_cpl == 1 &&
                              ce->nlock_p2p == 0,
                          "pass %d: locked %d bushings, %d couplers, %d point-to-point", pass,
                          ce->nlock_bush, ce->nlock_cpl, ce->nlock_p2p);
                    /* the proof's separation (ce_lock.c): the locked rates at rounding
                     * (<= VD_CE_LOCK_TOL), every moving candidate (the wheel bearings' spin,
                     * ~1 per unit rate) above the gap */
                    CHECK(ce->lock_proven && ce->live_rate >= VD_CE_LOCK_LIVE,
                          "pass %d: locked-element proof ran %d, smallest moving rate %.3g", pass,
                          ce->lock_proven, ce->live_rate);
                    CHECK_TOL(wl, 1e-6,
                              "pass %d trial %d: generalized force of the %d locked elements %.3g",
                              pass, trial, ce->nlock_bush + ce->nlock_cpl + ce->nlock_p2p, wl);
                    if (trial == 0)
                        printf("pass %d: %d bushings, %d couplers locked (rates <= %.2g per unit "
                               "rate); their generalized force %.2g\n",
                               pass, ce->nlock_bush, ce->nlock_cpl, ce->lock_rate, wl);
                }
                /* h without the gyroscopic terms, in tree order (as vd_ce_step) */
                for (int b = 0; b < m->nbody; b++) {
                    const double *w = d->v + 6 * b + 3;
                    double Iw[3], g[3], *x = hb + 6 * ce->model_tb[b];

                    vdu_mat3_vec(Iw, m->body[b].inertia, w);
                    vdu_cross3(g, w, Iw);
                    memcpy(x, hm + 6 * b, 6 * sizeof(double));
                    vdu_add3(x + 3, x + 3, g);
                }
                vd_tree_kin(ce->tree, td, cd->q, cd->u);
                vd_tree_crba(ce->tree, td);
                vd_tree_forces(ce->tree, td, z3, hb, NULL);
                for (int k = 0; k < N; k++)
                    fmax_ = fmax(fmax_, fabs(td->f[k]));
                {
                    /* q'' = M^-1 f by Gauss-Jordan on a copy */
                    static double A[64 * 64];
                    double *x = cd->qdd;

                    memcpy(A, td->M, (size_t)(N * N) * sizeof(double));
                    memcpy(x, td->f, (size_t)N * sizeof(double));
                    for (int k = 0; k < N; k++) {
                        const double pv = A[k + N * k];

                        for (int i = 0; i < N; i++) {
                            double l;

                            if (i == k)
                                continue;
                            l = A[i + N * k] / pv;
                            for (int j = k; j < N; j++)
                                A[i + N * j] -= l * A[k + N * j];
                            x[i] -= l * x[k];
                        }
                    }
                    for (int k = 0; k < N; k++)
                        x[k] /= A[k + N * k];
                }
                vd_tree_forces(ce->tree, td, z3, hb, cd->qdd); /* td->a: spatial accelerations */
                memset(Q, 0, sizeof(Q));
                vt_body_acc(ce, td, acc); /* CoM global, omega' body */
                for (int tb = 0; tb < ce->tree->nbody; tb++) {
                    const int b = ce->tb_model[tb];
                    const double *x = td->x + 3 * tb, *A = td->A + 9 * tb;
                    double t1[3], res[6], Iw[3];
                    const struct vd_body *bd = &m->body[b];

                    /* M_b v' - h (the joint model's h, gyroscopic terms included) */
                    for (int i = 0; i < 3; i++)
                        res[i] = bd->mass * acc[6 * b + i] - hm[6 * b + i];
                    vdu_mat3_vec(Iw, bd->inertia, acc + 6 * b + 3);
                    for (int i = 0; i < 3; i++)
                        res[3 + i] = Iw[i] - hm[6 * b + 3 + i];
                    /* Q += Jvel^T res over the path's columns */
                    for (int p = tb; p >= 0;) {
                        const struct vd_tree_node *n = &ce->tree->node[ce->tree->body[p].node];
                        const double *S = td->S + 6 * VD_TREE_MAXD * p;

                        for (int j = 0; j < n->nd; j++) {
                            double dx[3], wb[3];

                            vdu_cross3(t1, S + 6 * j, x);
                            vdu_add3(dx, S + 6 * j + 3, t1);
                            vdu_mat3t_vec(wb, A, S + 6 * j);
                            Q[n->off + j] += vdu_dot3(dx, res) + vdu_dot3(wb, res + 3);
                        }
                        p = n->parent;
                    }
                }
                for (int k = 0; k < N; k++)
                    wq = fmax(wq, fabs(Q[k]));
                vd_joint_G_mul(m, d, acc, Ga);
                for (int r = 0; r < m->nc; r++)
                    wga = fmax(wga, fabs(Ga[r] + d->jgam[r]));
            }
            /* the forces are up to 3e4 N (the chassis weight) on levers of 2 m, summed over 30
             * bodies and solved through M (condition <= 1e5: 2500 kg chassis, 0.002 kg m^2 tie
             * rods): 1e5 x 30 x u x 6e4 = 4e-5 N; the accelerations' joint rows 1e5 u x 1e2 */
            CHECK_TOL(wq, 1e-4, "trial %d: J^T (M v' - h) %.3g (|f| %.3g)", trial, wq, fmax_);
            CHECK_TOL(wga, 1e-9, "trial %d: G v' + gamma %.3g", trial, wga);
            printf("trial %d: |g| %.2g, |G v| %.2g, |J^T (M v' - h)| %.2g N (|f| %.3g), |G v' + "
                   "gamma| "
                   "%.2g\n",
                   trial, wg, wgv, wq, fmax_, wga);
        }

        /* 3. driving from rest on the flat */
        {
            const int nd = 4;
            int drive[4], ok = 1, nan = 0;
            double wres = 0.0, v2;
            const char *dn[4] = {"front_l.drive", "front_r.drive", "rear_l.drive", "rear_r.drive"};

            vd_data_reset(m, d);
            vd_ce_init(m, ce, cd, d);
            for (int k = 0; k < nd; k++) {
                drive[k] = vd_model_find_input(m, dn[k]);
                CHECK(drive[k] >= 0, "input %s", dn[k]);
                if (drive[k] < 0)
                    ok = 0;
            }
            const int steer = vd_model_find_input(m, "steering.angle");
            double yaw = 0.0;

            for (int s = 0; ok && s < 2000; s++) {
                for (int k = 0; k < nd; k++)
                    d->u[drive[k]] = 400.0;
                if (steer >= 0)
                    d->u[steer] = s < 1000 ? 0.0 : 1.0; /* 1 rad at the steering wheel from 1 s */
                if (vd_ce_step(m, ce, cd, d)) {
                    nan = 1;
                    break;
                }
                if (s % 100 == 99) {
                    vd_kinematics(m, d, d->r, d->v);
                    vd_joint_eval(m, d, d->u, false);
                    wres = fmax(wres, vd_joint_residual(m, d));
                }
            }
            v2 = cd->u[0];
            yaw = cd->u[5];
            CHECK(!nan, "2 s of CE steps without a rejected step");
            CHECK_TOL(wres, 1e-12, "joints closed by construction while driving: max |g| %.3g",
                      wres);
            /* 1600 N m / 0.47 m = 3.4 kN on 2680 kg: 1.27 m/s^2, 2.5 m/s after 2 s; slip, rolling
             * resistance and the wheels' inertia take less than 25 % */
            CHECK(v2 > 1.9 && v2 < 2.6, "speed after 2 s of 4 x 400 N m: %.3f m/s", v2);
            if (pass) {
                /* steady low-speed cornering (a_y 0.1 m/s^2): the kinematic yaw rate v delta / L,
                 * delta = 1 rad / 22.3 (the HMMWV's overall ratio, README), L = 3.378 m; the tyres'
                 * slip angles and the transient 1 s after the step stay within 40 % of it */
                const double want = v2 * (1.0 / 22.3) / 3.378;

                CHECK(yaw > 0.6 * want && yaw < 1.4 * want,
                      "steered: yaw rate %.4f rad/s, kinematic %.4f", yaw, want);
            }
            printf("CE HMMWV (%d coordinates%s): 2 s at 4 x 400 N m%s: %.3f m/s, yaw rate %.4f "
                   "rad/s, max |g| %.2g\n",
                   nexp, pass == 2 ? ", steering on ideal joints" : "",
                   pass ? ", 1 rad steering from 1 s" : "", v2, yaw, wres);
        }
        placement_reuse(m, d, ce, cd);
        fast_vs_ref(m, d, ce, cd);
        orders(m, d, ce, cd);
        vd_ce_data_free(cd);
        vd_ce_free(ce);
    }
    vd_data_free(d);
    vd_model_free(m);
    return vt_report("test_ce");
}
