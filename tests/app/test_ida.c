/* tests/app/test_ida.c - the IDA reference of models with joints (app/ref_ida.h):
 *  - the residual at the consistent start values is zero (to rounding), and the Jacobian
 *    dF/dy + cj dF/dy' matches central differences of F block by block at states where the
 *    terms it leaves out vanish (lambda = mu = 0, v = 0: d(G^T lambda)/dr, d(K G^T mu)/dr
 *    and d(G v)/dr are zero there), with large rotations;
 *  - the driven four-bar and slider-crank against their closed-form motion;
 *  - a free pendulum with a torque step against RK4: the jump found, IDA restarted there
 *    from consistent values;
 *  - the constrained LIE (core/cstep.h) converging to the IDA trajectory on hmmwv_joints as
 *    dt is halved, the observed order from the differences. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "app/ref_ida.h"
#include "config/model_yaml.h"
#include "core/data.h"
#include "core/joint.h"
#include "core/model.h"
#include "core/source.h"
#include "core/statics.h"
#include "core/step.h"

#define FD_STEP 1e-6

static struct vd_model *load(const char *path, struct vd_source **src)
{
    struct vd_model *m = vd_cfg_load_model(path, src, stderr);

    CHECK(m != NULL, "load %s", path);
    return m;
}

/* the Jacobian against central differences of F, per block of y = [r v z lambda mu] */
static void test_jacobian(const char *path)
{
    static const char *const nm[5] = {"r", "v", "z", "lam", "mu"};
    struct vd_source *src = NULL;
    struct vd_model *m = load(path, &src);
    struct vd_data *d;
    int N, nq, nz, nc;
    double *y, *yp, *f0, *fp, *fm, *J, *work, err[5][5] = {{0}}, scale[5][5] = {{0}}, res0 = 0.0;
    double fscale = 0.0, fbig[5] = {0};
    unsigned char *mask = NULL;
    long outside = 0;

    if (!m)
        return;
    d = vd_data_new(m);
    d->input_fn = vd_source_eval;
    d->input_ctx = src;
    N = app_ida_dim(m), nq = m->nq, nz = m->nz, nc = m->nc;
    y = calloc((size_t)N, sizeof(double));
    yp = calloc((size_t)N, sizeof(double));
    f0 = calloc((size_t)N, sizeof(double));
    fp = calloc((size_t)N, sizeof(double));
    fm = calloc((size_t)N, sizeof(double));
    J = calloc((size_t)N * (size_t)N, sizeof(double));
    work = calloc(app_ida_nwork(m), sizeof(double));
#define GRP(i)                                                                                     \
    ((i) < nq ? 0 : (i) < 2 * nq ? 1 : (i) < 2 * nq + nz ? 2 : (i) < 2 * nq + nz + nc ? 3 : 4)
    /* the consistent start: F = 0 up to rounding of its terms */
    CHECK(app_ida_consistent(m, d, 0.0, 0.0, INFINITY, y, yp, work) == 0, "%s: consistent start",
          path);
    CHECK(app_ida_res(m, d, 0.0, 0.0, INFINITY, y, yp, f0, work) == 0, "res");
    for (int i = 0; i < N; i++) {
        res0 = fmax(res0, fabs(f0[i]));
        fscale = fmax(fscale, fabs(yp[i]));
    }
    printf("%s: N = %d, consistent start: max |F| %.3g (max |y'| %.3g)\n", path, N, res0, fscale);
    /* F's terms are y' (up to fscale) and g, G v - s' (projected to ~1e-14 of 1 m): rounding
     * of sums of a few terms of size fscale, 1e-12 of it with a margin of 100 for the
     * accumulated projections (the position projection stops at |g| <= 1e-14) */
    CHECK_TOL(res0, 1e-12 * (1.0 + fscale), "%s: F at the consistent start %.3g", path, res0);
    /* three states with large rotations, v = lambda = mu = 0 (see the header) */
    for (int trial = 0; trial < 3; trial++) {
        for (int i = 0; i < nq; i++)
            y[i] = d->r[i] + (i % 6 >= 3 ? 0.4 * sin(1.3 * i + trial) : 0.02 * cos(i + trial));
        memset(y + nq, 0, ((size_t)N - (size_t)nq) * sizeof(double));
        for (int i = 0; i < nz; i++)
            y[2 * nq + i] = 1e-3 * sin(i + trial);
        memset(yp, 0, (size_t)N * sizeof(double));
        {
            const double cj = 250.0 * (trial + 1);

            CHECK(app_ida_jac(m, d, 0.3, cj, y, J, work) == 0, "jac");
            if (!mask)
                mask = app_ida_mask(m, NULL);
            CHECK(mask != NULL, "app_ida_mask");
            for (size_t i = 0; mask && i < (size_t)N * (size_t)N; i++)
                outside += J[i] != 0.0 && !mask[i];
            for (int k = 0; k < N; k++) {
                const double y0 = y[k], p0 = yp[k];

                y[k] = y0 + FD_STEP;
                yp[k] = p0 + cj * FD_STEP;
                app_ida_res(m, d, 0.3, 0.0, INFINITY, y, yp, fp, work);
                y[k] = y0 - FD_STEP;
                yp[k] = p0 - cj * FD_STEP;
                app_ida_res(m, d, 0.3, 0.0, INFINITY, y, yp, fm, work);
                y[k] = y0;
                yp[k] = p0;
                for (int i = 0; i < N; i++) {
                    const double fd = (fp[i] - fm[i]) / (2 * FD_STEP), an = J[i + N * k];

                    err[GRP(i)][GRP(k)] = fmax(err[GRP(i)][GRP(k)], fabs(fd - an));
                    scale[GRP(i)][GRP(k)] = fmax(scale[GRP(i)][GRP(k)], fabs(an));
                    fbig[GRP(i)] = fmax(fbig[GRP(i)], fmax(fabs(fp[i]), fabs(fm[i])));
                }
            }
        }
    }
#undef GRP
    for (int i = 0; i < 5; i++) {
        printf("  %-3s rows:", nm[i]);
        for (int k = 0; k < 5; k++)
            printf(" d/d%s %8.2g (err %8.2g)", nm[k], scale[i][k], err[i][k]);
        printf("\n");
    }
    /* central differences with 1e-6 steps of smooth functions: the truncation ~1e-12 |F'''|,
     * ~1e-8 relative to the block's size (1e-6 with a margin), and the rounding of F's
     * rows, 2^-52 |F| / 1e-6 (x 10: F sums a few terms), large on a vehicle whose stiff
     * bushings and tyres give |F| ~ 1e7 at the perturbed states; a wrong or missing term
     * is O(1) of its block */
    for (int i = 0; i < 5; i++)
        for (int k = 0; k < 5; k++)
            CHECK_TOL(err[i][k], 1e-6 * scale[i][k] + 10.0 * 0x1p-52 * fbig[i] / FD_STEP + 1e-8,
                      "%s: block d%s/d%s: err %.3g of %.3g (|F| %.3g)", path, nm[i], nm[k],
                      err[i][k], scale[i][k], fbig[i]);
    /* the sparse pattern IDA's KLU solver gets holds every non-zero */
    CHECK(outside == 0, "%s: %ld Jacobian entries outside app_ida_mask", path, outside);
    free(mask);
    free(y), free(yp), free(f0), free(fp), free(fm), free(J), free(work);
    vd_data_free(d);
    vd_source_free(src);
    vd_model_free(m);
}

/* ---- the driven mechanisms against their closed form ---------------------------------- */

struct mech_out {
    bool fourbar;
    double err, gmax;
    long n;
};

static int mech_out(void *ctx, const struct vd_model *m, struct vd_data *d)
{
    struct mech_out *o = ctx;
    const double a = M_PI / 2 + 2 * M_PI * d->t;

    (void)m;
    if (o->fourbar) {
        const double px = 0.1 * cos(a) - 0.3, py = 0.1 * sin(a), e = hypot(px, py);
        const double want = atan2(py, px) - acos((0.04 + e * e - 0.0625) / (2 * 0.2 * e));

        o->err = fmax(o->err, fabs(remainder(d->r[6 + 3] - want, 2 * M_PI)));
    } else {
        o->err = fmax(o->err, fabs(d->r[6] - (0.1 * cos(a) + sqrt(0.09 - 0.01 * sin(a) * sin(a)))));
    }
    o->n++;
    return 0;
}

static void test_driven(const char *path, bool fourbar, double rtol)
{
    const double T = 2.0;
    struct vd_source *src = NULL;
    struct vd_model *m = load(path, &src);
    struct vd_data *d;
    struct app_ida_stats st;
    struct mech_out o = {.fourbar = fourbar};
    int rc;

    if (!m)
        return;
    d = vd_data_new(m);
    d->input_fn = vd_source_eval;
    d->input_ctx = src;
    rc = app_ida_run(m, d, T, 1e-3, rtol, 0.0, mech_out, &o, &st);
    CHECK(rc == 0 && o.n == 2001, "%s: app_ida_run %d, %ld outputs", path, rc, o.n);
    printf("%s, IDA rtol %g, %g s: closed-form error %.3g, max |g| %.3g, max |G v - s'| %.3g; "
           "%ld steps (order %d), %ld F, %ld J, %ld Newton iterations, %ld error-test failures\n",
           path, rtol, T, o.err, st.gmax, st.gvmax, st.steps, st.last_order, st.res_evals,
           st.jac_evals, st.newton_iters, st.err_fails);
    /* the mechanisms have no degree of freedom left: the positions are the constraints'
     * solution, held by Newton to its test on the weighted norm of r, i.e. to ~rtol |r| +
     * atol (|r| <= 2 pi T + pi/2 = 14 rad for the crank angle); the closed-form error is that
     * times the condition of the position map (<= 10 away from the toggle positions, as in
     * tests/core/test_mechanism.c), and the interpolation to the grid (IDAGetDky) is as
     * accurate as the steps: 10 * (14 rtol + 1e-10) */
    CHECK_TOL(o.err, 10.0 * (14.0 * rtol + APP_IDA_ATOL),
              "%s: IDA error against the closed form %.3g", path, o.err);
    CHECK_TOL(st.gmax, 14.0 * rtol + APP_IDA_ATOL, "%s: IDA max |g| %.3g", path, st.gmax);
    vd_data_free(d);
    vd_source_free(src);
    vd_model_free(m);
}

/* ---- a free pendulum with a torque step: the restart at an input jump ------------------ */

/* the four-bar's crank alone about A (z axis), gravity -y, 0.2 N m about z from t = 0.1 s:
 * I_A th'' = -m g l cos(th) + tau(t) */
static const char pend_yaml[] =
    "model: {name: pendulum, gravity: [0, -9.81, 0]}\n"
    "solver: {method: lie, dt: 0.001}\n"
    "bodies:\n"
    "  - {name: crank, mass: 0.5, inertia: [1e-4, 5e-4, 5e-4],\n"
    "     com: [0.05, 0, 0], orientation: [30, 0, 0]}\n"
    "markers:\n"
    "  - {name: g_a, body: ground, position: [0, 0, 0]}\n"
    "  - {name: crank_a, body: crank, position: [0, 0, 0]}\n"
    "inputs:\n"
    "  - {name: tau, marker: crank_a, type: torque, direction: [0, 0, 1],\n"
    "     signal: {step: {time: 0.1, before: 0, after: 0.2}}}\n"
    "joints:\n"
    "  - {name: pivot, type: revolute, markers: [crank_a, g_a]}\n";

/* RK4 with h = 1e-5 s (error ~1e-12 rad), the step landing on the jump */
static double pend_ref(double T)
{
    const double I = 5e-4 + 0.5 * 0.05 * 0.05, k = 0.5 * 9.81 * 0.05 / I, h = 1e-5;
    double th = M_PI / 6, w = 0.0;
    const long n = lround(T / h);

    for (long i = 0; i < n; i++) {
        const double tau = (double)i * h >= 0.1 - 1e-12 ? 0.2 / I : 0.0;
        const double k1t = w, k1w = -k * cos(th) + tau;
        const double k2t = w + 0.5 * h * k1w, k2w = -k * cos(th + 0.5 * h * k1t) + tau;
        const double k3t = w + 0.5 * h * k2w, k3w = -k * cos(th + 0.5 * h * k2t) + tau;
        const double k4t = w + h * k3w, k4w = -k * cos(th + h * k3t) + tau;

        th += h / 6 * (k1t + 2 * k2t + 2 * k3t + k4t);
        w += h / 6 * (k1w + 2 * k2w + 2 * k3w + k4w);
    }
    return th;
}

static void test_jump(void)
{
    const double T = 0.3, ref = pend_ref(T);
    struct vd_source *src = NULL;
    struct vd_model *m =
        vd_cfg_load_model_mem("pendulum", pend_yaml, strlen(pend_yaml), &src, stderr);
    struct vd_data *d;
    struct app_ida_stats st;
    int rc;

    CHECK(m != NULL, "load the pendulum");
    if (!m)
        return;
    d = vd_data_new(m);
    d->input_fn = vd_source_eval;
    d->input_ctx = src;
    rc = app_ida_run(m, d, T, T, 1e-10, 0.0, NULL, NULL, &st);
    printf("pendulum with a torque step at 0.1 s, IDA rtol 1e-10: %d jump(s), angle %.12f vs "
           "RK4 %.12f (error %.3g), max |g| %.3g, %ld steps, %ld error-test failures\n",
           st.jumps, d->r[3], ref, d->r[3] - ref, st.gmax, st.steps, st.err_fails);
    CHECK(rc == 0 && st.jumps == 1, "pendulum: app_ida_run %d, %d jumps", rc, st.jumps);
    /* IDA holds the weighted RMS norm of each step's local error to 1: a component's local
     * error is at most sqrt(n) (rtol |y_i| + atol_i), n = 12 differential components, with
     * |th| <= 2; on this non-stiff pendulum (|d f / d th| T ~ 1) the global error is at most
     * their sum over the steps. The RK4 reference is good to 1e-12 */
    CHECK_TOL(fabs(d->r[3] - ref), (double)st.steps * sqrt(12.0) * (1e-10 * 2.0 + APP_IDA_ATOL),
              "pendulum: IDA %.12f vs RK4 %.12f", d->r[3], ref);
    vd_data_free(d);
    vd_source_free(src);
    vd_model_free(m);
}

/* ---- the constrained LIE and LSRT2 converging to IDA on the HMMWV with joints ---------- */

#define HM_PATH "config/vehicles/hmmwv_joints.yaml"
#define HM_T    0.2 /* [s] */

/* the HMMWV with joints at rest (static equilibrium), 400 N m at every wheel from t = 0 */
static struct vd_data *hm_start(struct vd_model *m)
{
    static const char *const drive[4] = {"front_l.drive", "front_r.drive", "rear_l.drive",
                                         "rear_r.drive"};
    struct vd_data *d = vd_data_new(m);
    int it = vd_equilibrate(m, d, 200, 1e-3);

    CHECK(it >= 0, "%s: static equilibrium (%d)", HM_PATH, it);
    for (int k = 0; k < 4; k++) {
        const int j = vd_model_find_input(m, drive[k]);

        CHECK(j >= 0, "input %s", drive[k]);
        if (j >= 0)
            d->u[j] = 400.0;
    }
    return d;
}

/* r at HM_T into out (nq): the model's method at step dt, or IDA (method < 0) at rtol */
static void hm_run(int method, double dt, double rtol, double *out)
{
    struct vd_model *m = vd_cfg_load_model(HM_PATH, NULL, stderr);
    struct vd_data *d;

    CHECK(m != NULL, "load %s", HM_PATH);
    if (!m)
        return;
    d = hm_start(m);
    if (method < 0) {
        struct app_ida_stats st;
        int rc = app_ida_run(m, d, HM_T, HM_T, rtol, 0.0, NULL, NULL, &st);

        CHECK(rc == 0, "hmmwv_joints IDA rtol %g: %d", rtol, rc);
        printf("hmmwv_joints IDA rtol %g: %ld steps (order %d), %ld F, %ld J, %ld Newton "
               "iterations (%ld failed), %ld error-test failures, max |g| %.3g, %.2f s\n",
               rtol, st.steps, st.last_order, st.res_evals, st.jac_evals, st.newton_iters,
               st.newton_fails, st.err_fails, st.gmax, (double)st.wall_ns * 1e-9);
    } else {
        m->opt.method = method;
        m->opt.dt = dt;
        for (long s = 0; s < lround(HM_T / dt); s++)
            if (vd_step(m, d)) {
                CHECK(0, "hmmwv_joints: step %ld failed", s);
                break;
            }
    }
    memcpy(out, d->r, (size_t)m->nq * sizeof(double));
    vd_data_free(d);
    vd_model_free(m);
}

static double max_diff(const double *a, const double *b, int n)
{
    double e = 0.0;

    for (int i = 0; i < n; i++)
        e = fmax(e, fabs(a[i] - b[i]));
    return e;
}

static void test_hmmwv(void)
{
    struct vd_model *m = vd_cfg_load_model(HM_PATH, NULL, stderr);
    const int nq = m ? m->nq : 0;
    double *ref = calloc((size_t)nq, sizeof(double)), *ref2 = calloc((size_t)nq, sizeof(double));
    double *x = calloc((size_t)nq, sizeof(double)), e[2][4], eref;
    static const int meth[2] = {VD_METHOD_LIE, VD_METHOD_LSRT2};

    CHECK(m != NULL, "load %s", HM_PATH);
    if (!m)
        goto out;
    hm_run(-1, 0.0, 1e-10, ref);
    hm_run(-1, 0.0, 1e-8, ref2);
    eref = max_diff(ref, ref2, nq);
    printf("hmmwv_joints %g s: IDA rtol 1e-8 vs 1e-10: %.3g (m, rad)\n", HM_T, eref);
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < 4; i++) {
            hm_run(meth[k], 2e-3 / (1 << i), 0.0, x);
            e[k][i] = max_diff(x, ref, nq);
        }
        printf("hmmwv_joints %s vs IDA: max |r - r_IDA| %.3g (dt 2 ms), %.3g, %.3g, %.3g "
               "(0.25 ms): observed order %.2f, %.2f, %.2f\n",
               k ? "LSRT2" : "LIE", e[k][0], e[k][1], e[k][2], e[k][3], log2(e[k][0] / e[k][1]),
               log2(e[k][1] / e[k][2]), log2(e[k][2] / e[k][3]));
        /* the observed order from each halving is p + O(dt) (the next error term changes
         * by a factor 2 between two runs): LIE 0.8 .. 1.3, LSRT2 1.7 .. 2.3, the bands of
         * tests/core/test_mechanism.c */
        for (int i = 0; i < 3; i++) {
            const double p = log2(e[k][i] / e[k][i + 1]);

            if (k)
                CHECK(p > 1.7 && p < 2.3, "hmmwv_joints LSRT2 vs IDA: observed order %.2f", p);
            else
                CHECK(p > 0.8 && p < 1.3, "hmmwv_joints LIE vs IDA: observed order %.2f", p);
        }
    }
    /* the reference's own error: BDF's global error scales with the tolerance, so the
     * rtol 1e-10 reference is off by ~eref / 100 (eref: its distance to the rtol 1e-8 run);
     * credit it only eref / 10. An error eps in the reference moves each difference above by
     * at most eps, so an observed order log2(e_i / e_i+1) by at most 2 eps / (e_min ln 2).
     * Holding that to 0.02 (a fifteenth of the +-0.3 order bands): eref / 10 <= 0.02 ln2 / 2
     * e_min, eref <= 0.069 e_min */
    CHECK_TOL(eref, 0.069 * fmin(e[0][3], e[1][3]),
              "hmmwv_joints: IDA reference error %.3g against the methods' %.3g", eref,
              fmin(e[0][3], e[1][3]));
out:
    free(ref), free(ref2), free(x);
    vd_model_free(m);
}

int main(void)
{
    test_jacobian("config/mechanisms/fourbar.yaml");
    test_jacobian("config/mechanisms/slider_crank.yaml");
    test_jacobian("config/vehicles/hmmwv_joints.yaml");
    for (int k = 0; k < 2; k++) {
        test_driven(k ? "config/mechanisms/slider_crank.yaml" : "config/mechanisms/fourbar.yaml",
                    k == 0, APP_IDA_RTOL);
        test_driven(k ? "config/mechanisms/slider_crank.yaml" : "config/mechanisms/fourbar.yaml",
                    k == 0, 1e-10);
    }
    test_jump();
    test_hmmwv();
    return vt_report("test_ida");
}
