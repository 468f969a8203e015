/* tests/app/test_cvode.c - the CVODE reference solver (app/ref_cvode.h):
 *  - its right-hand side is the RK4 reference's f (tests/core/ref_rk4.h), to rounding;
 *  - the Jacobian handed to CVODE, block by block (d(K v)/dr, K, M^-1 Jr, M^-1 Jv, M^-1 Jz,
 *    Gp diag(I, T), Gv, Gz), against central differences of f at random states of a rig with
 *    large rotations, a tumbling body and a rolling tyre;
 *  - a damped oscillator against its analytic solution, on the exact output grid;
 *  - the rolling tyre rig (relaxation states, a spinning Cardan bearing that unwraps through
 *    the commits) against RK4 with a tiny step;
 *  - the quarter car (config/models/quarter_car.yaml, 3 s: the drop from its pose and the
 *    payload step at 2 s, found as an input jump) against LSRT2 at dt = 0.1 ms and 0.2 ms:
 *    the difference is LSRT2's error and scales with dt^2;
 *  - convergence: halving rtol shrinks the difference to a tight-tolerance run;
 *  - the sparse pattern handed to KLU holds every non-zero of the Jacobian;
 *  - a closed-loop driver (the sedan in hil_default): its feedback in the Jacobian against
 *    central differences, and the run against LSRT2 at two step sizes. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app/ref_cvode.h"
#include "check.h"
#include "config/model_yaml.h"
#include "config/scenario.h"
#include "core/build_util.h"
#include "core/data.h"
#include "core/eval.h"
#include "core/ref_rk4.h"
#include "core/signal.h"
#include "core/step.h"
#include "core/tire.h"
#include "core/tire_mf.h"
#include "tire_passenger.h"

/* ---- damped oscillator ----------------------------------------------------------------- */

struct osc {
    double wn, zeta, wd, z0, dt_out;
    double ez, ev; /* max |error| of z [m] and z' [m/s] */
    long n;        /* outputs seen */
    long off_grid; /* outputs whose t is not n dt_out */
};

static int osc_out(void *ctx, const struct vd_model *m, struct vd_data *d)
{
    struct osc *o = ctx;
    const double t = d->t, e = exp(-o->zeta * o->wn * t);
    const double x = e * o->z0 * (cos(o->wd * t) + o->zeta * o->wn / o->wd * sin(o->wd * t));
    const double xd = -e * o->z0 * o->wn * o->wn / o->wd * sin(o->wd * t);

    (void)m;
    o->off_grid += t != (double)o->n * o->dt_out;
    o->ez = fmax(o->ez, fabs(d->r[2] - x));
    o->ev = fmax(o->ev, fabs(d->v[2] - xd));
    o->n++;
    return 0;
}

static int stop_out(void *ctx, const struct vd_model *m, struct vd_data *d)
{
    (void)ctx, (void)m;
    return d->t >= 0.5 ? 7 : 0;
}

/* the body of tests/core/test_step.c: z on k, c; the other directions stiff, at rest */
static struct vd_model *oscillator(double mass, double k, double c)
{
    struct vd_model *m = vd_model_new("oscillator");
    struct vd_bushing b;
    char err[256];
    int body, kb, kg;

    m->gravity[2] = 0.0;
    body = bu_body(m, "mass", mass, 0.1, 0.1, 0.1, NULL);
    kb = bu_marker(m, "mb", body, 0, 0, 0, NULL);
    kg = bu_marker(m, "mg", VD_GROUND, 0, 0, 0, NULL);
    memset(&b, 0, sizeof(b));
    snprintf(b.name, sizeof(b.name), "spring");
    b.mk[0] = kb;
    b.mk[1] = kg;
    for (int i = 0; i < 6; i++)
        b.stiff[i] = bu_linear(m, i < 2 ? 1e6 : (i == 2 ? k : 1e3));
    b.damp[2] = bu_linear(m, c);
    vd_model_add_bushing(m, &b);
    CHECK(vd_model_finalize(m, err, sizeof(err)) == 0, "finalize: %s", err);
    return m;
}

static void test_oscillator(void)
{
    const double mass = 10.0, k = 4e4, zeta = 0.05, c = 2.0 * zeta * sqrt(k * mass);
    struct vd_model *m = oscillator(mass, k, c);
    struct vd_data *d = vd_data_new(m);
    struct app_cvode_stats st;
    struct osc o[2];
    int rc;

    /* default tolerances, and rtol 1e-10, atol 1e-12 */
    for (int q = 0; q < 2; q++) {
        memset(&o[q], 0, sizeof(o[q]));
        o[q].zeta = zeta;
        o[q].z0 = 0.01;
        o[q].dt_out = 1e-3;
        o[q].wn = sqrt(k / mass);
        o[q].wd = o[q].wn * sqrt(1.0 - zeta * zeta);
        vd_data_reset(m, d);
        d->r[2] = o[q].z0;
        rc = app_cvode_run(m, d, 1.0, o[q].dt_out, q ? 1e-10 : 0.0, q ? 1e-12 : 0.0, osc_out, &o[q],
                           &st);
        CHECK(rc == 0, "oscillator: app_cvode_run %d", rc);
        printf("oscillator (wn %.1f rad/s, 1 s) %s: max error z %.3g m (%.2g of z0), z' %.3g "
               "m/s; %ld steps, %ld f, %ld J, %ld LU, %.1f ms\n",
               o[q].wn, q ? "rtol 1e-10" : "default", o[q].ez, o[q].ez / o[q].z0, o[q].ev, st.steps,
               st.rhs_evals, st.jac_evals, st.lin_setups, (double)st.wall_ns * 1e-6);
        /* the grid: t_k = k dt_out exactly, 0 and 1 s included */
        CHECK(o[q].n == 1001 && st.outputs == 1001, "oscillator outputs %ld / %ld", o[q].n,
              st.outputs);
        CHECK(o[q].off_grid == 0, "%ld outputs off the grid", o[q].off_grid);
        CHECK(d->t == 1.0, "final time %.17g", d->t);
        CHECK(st.steps > 0 && st.rhs_evals > st.steps && st.jac_evals > 0 && st.wall_ns > 0,
              "statistics");
    }
    /* BDF's global error over 10 periods is ~100x the local tolerance, which atol sets for
     * this 1 cm oscillation: default atol 1e-10 m -> ~1e-8 m (allow 3e-6 z0); at atol
     * 1e-12, rtol 1e-10 the analytic solution is met to 1e-7 of z0. The velocity (amplitude
     * wn z0 = 0.63 m/s) likewise. */
    CHECK_TOL(o[0].ez, 3e-6 * o[0].z0, "default: z error %.3g", o[0].ez);
    CHECK_TOL(o[0].ev, 3e-6 * o[0].wn * o[0].z0, "default: z' error %.3g", o[0].ev);
    CHECK_TOL(o[1].ez, 1e-7 * o[1].z0, "tight: z error %.3g > 1e-7 z0", o[1].ez);
    CHECK_TOL(o[1].ev, 1e-7 * o[1].wn * o[1].z0, "tight: z' error %.3g", o[1].ev);
    CHECK(o[1].ez * 10.0 <= o[0].ez, "tolerance 100x tighter: error %.3g -> %.3g", o[0].ez,
          o[1].ez);

    /* an output function's non-zero return stops the run and is returned */
    vd_data_reset(m, d);
    d->r[2] = 0.01;
    rc = app_cvode_run(m, d, 1.0, 0.1, 0.0, 0.0, stop_out, NULL, &st);
    /* the output grid point 0.5 s = 5 x 0.1 s, the time reached exactly up to the rounding
     * of the grid's sum (a few ulp) */
    CHECK(rc == 7 && fabs(d->t - 0.5) < 1e-12, "stop from out_fn: rc %d at t %g", rc, d->t);
    /* bad arguments */
    CHECK(app_cvode_run(m, d, 0.0, 0.1, 0.0, 0.0, NULL, NULL, NULL) == -EINVAL, "t_end < t");
    CHECK(app_cvode_run(m, d, 1.0, 0.0, 0.0, 0.0, NULL, NULL, NULL) == -EINVAL, "dt_out 0");
    vd_data_free(d);
    vd_model_free(m);
}

/* ---- a rig with large rotations and a tyre --------------------------------------------- */

enum { RIG_WHEEL = 0, RIG_CARRIAGE, RIG_TUMBLER };

/* the flat-track tyre tester of tests/core/test_tire.c (wheel on a Cardan bearing, free
 * spin, on a 300 kg carriage guided laterally and in rotation) plus a tumbling body with an
 * asymmetric inertia hanging on a spring-damper from the carriage */
static struct vd_model *rig(void)
{
    static const double pw[6] = {0, 0, 0.36, 1.5707963267948966, 0, 0};
    static const double pc[6] = {0, 0, 0.36, 0, 0, 0};
    static const double pt[6] = {0.2, 0.1, 1.0, 0, 0, 0};
    static const double hub[3] = {1.5707963267948966, 0.05, 0};
    struct vd_model *m = vd_model_new("rig");
    struct vd_mf_params p;
    struct vd_bushing b;
    struct vd_tire t;
    struct vd_p2p s;
    char err[256];
    int w, car, tum, kw, kh, kc, kg, ka, kt;

    passenger(&p);
    w = bu_body(m, "wheel", 25.0, 1.2, 0.8, 0.8, pw);
    car = bu_body(m, "carriage", 300.0, 20.0, 25.0, 30.0, pc);
    tum = bu_body(m, "tumbler", 5.0, 0.08, 0.12, 0.15, pt);
    kw = bu_marker(m, "wheel_c", w, 0, 0, 0, NULL);
    kh = bu_marker(m, "hub", car, 0, 0, 0, hub);
    kc = bu_marker(m, "guide_c", car, 0, 0, 0, NULL);
    kg = bu_marker(m, "guide_g", VD_GROUND, 0, 0, 0.36, NULL);
    ka = bu_marker(m, "anchor", car, 0.2, 0.1, 0.6, NULL);
    kt = bu_marker(m, "tumbler_top", tum, 0.03, -0.02, 0.1, NULL);

    memset(&t, 0, sizeof(t));
    snprintf(t.name, sizeof(t.name), "tyre");
    t.marker = kw;
    t.mf = vd_model_add_mf(m, &p);
    t.r0 = p.unloaded_radius;
    t.kz = 2e5;
    t.cz = 500;
    t.c_low = 3000;
    t.v_low = 1.0;
    CHECK(vd_model_add_tire(m, &t) >= 0, "add tyre");

    /* guide: free in x and z */
    memset(&b, 0, sizeof(b));
    snprintf(b.name, sizeof(b.name), "guide");
    b.mk[0] = kc;
    b.mk[1] = kg;
    b.stiff[1] = bu_linear(m, 1e6);
    b.damp[1] = bu_linear(m, 1e4);
    for (int k = 3; k < 6; k++) {
        b.stiff[k] = bu_linear(m, 1e6);
        b.damp[k] = bu_linear(m, 1e3);
    }
    vd_model_add_bushing(m, &b);
    /* bearing: stiff but for the spin about marker x (Cardan mode: rx unwrapped) */
    memset(&b, 0, sizeof(b));
    snprintf(b.name, sizeof(b.name), "bearing");
    b.mk[0] = kw;
    b.mk[1] = kh;
    b.rot_mode = VD_ROT_CARDAN;
    for (int k = 0; k < 3; k++) {
        b.stiff[k] = bu_linear(m, 1e7);
        b.damp[k] = bu_linear(m, 1e4);
    }
    for (int k = 4; k < 6; k++) {
        b.stiff[k] = bu_linear(m, 1e6);
        b.damp[k] = bu_linear(m, 1e3);
    }
    vd_model_add_bushing(m, &b);
    /* the tumbler's hanger */
    memset(&s, 0, sizeof(s));
    snprintf(s.name, sizeof(s.name), "hanger");
    s.mk[0] = ka;
    s.mk[1] = kt;
    s.has_spring = s.has_damper = true;
    s.free_length = 0.35;
    s.spring = bu_linear(m, 2e4);
    s.damper = bu_linear(m, 30.0);
    vd_model_add_p2p(m, &s);
    CHECK(vd_model_finalize(m, err, sizeof(err)) == 0, "finalize: %s", err);
    CHECK(m->nq == 18 && m->nz == 2, "rig size %d %d", m->nq, m->nz);
    return m;
}

/* a random state: the wheel rolling and slipping in contact, the carriage and the tumbler
 * at large angles (|ay| up to 1.3 rad: tan ay = 3.6 in K) and fast rotations */
static void rig_random(struct vd_data *d)
{
    double *r = d->r, *v = d->v;
    const double vx = 15.0 + vt_uniform(-0.5, 0.5);

    r[2] = 0.376 - 0.02 + vt_uniform(-0.005, 0.005);
    r[3] = 1.5707963267948966 + vt_uniform(-0.1, 0.1);
    r[4] = vt_uniform(-0.05, 0.05);
    r[5] = vt_uniform(-3, 3);
    v[0] = vx;
    v[1] = vt_uniform(-1, 1);
    v[2] = vt_uniform(-0.3, 0.3);
    v[3] = vx / 0.37 * 1.05 + vt_uniform(-0.5, 0.5);
    v[4] = vt_uniform(-1, 1);
    v[5] = vt_uniform(-1, 1);
    for (int k = 0; k < 3; k++) {
        r[6 + k] += vt_uniform(-0.01, 0.01);
        r[6 + 3 + k] = vt_uniform(-0.5, 0.5);
        v[6 + k] = vt_uniform(-1, 1);
        v[6 + 3 + k] = vt_uniform(-2, 2);
        r[12 + k] += vt_uniform(-0.1, 0.1);
        r[12 + 3 + k] = k == 1 ? vt_uniform(-1.3, 1.3) : vt_uniform(-3, 3);
        v[12 + k] = vt_uniform(-1, 1);
        v[12 + 3 + k] = vt_uniform(-5, 5);
    }
    d->z[0] = vt_uniform(-0.02, 0.02);
    d->z[1] = vt_uniform(-0.02, 0.02);
}

static void pack(const struct vd_model *m, const struct vd_data *d, double *y)
{
    memcpy(y, d->r, (size_t)m->nq * sizeof(double));
    memcpy(y + m->nq, d->v, (size_t)m->nq * sizeof(double));
    memcpy(y + 2 * m->nq, d->z, (size_t)m->nz * sizeof(double));
}

#define FD_STEP 1e-6

/* the structural pattern of app_cvode_pattern as an N x N mask (NULL on failure) */
static unsigned char *pattern_mask(const struct vd_model *m, const bool *inbody)
{
    const int N = app_cvode_dim(m), nnz = app_cvode_pattern(m, inbody, NULL, NULL);
    long *cp = malloc((size_t)(N + 1) * sizeof(long));
    long *rv = nnz > 0 ? malloc((size_t)nnz * sizeof(long)) : NULL;
    unsigned char *mask = calloc((size_t)N * (size_t)N, 1);

    if (!cp || !rv || !mask || app_cvode_pattern(m, inbody, cp, rv) != nnz) {
        free(mask);
        mask = NULL;
    } else {
        for (int j = 0; j < N; j++)
            for (long k = cp[j]; k < cp[j + 1]; k++)
                mask[(size_t)rv[k] + (size_t)N * (size_t)j] = 1;
    }
    free(cp);
    free(rv);
    return mask;
}

/* non-zeros of the dense J (N x N) outside the mask */
static long count_outside(const unsigned char *mask, const double *J, int N)
{
    long n = 0;

    for (size_t i = 0; mask && i < (size_t)N * (size_t)N; i++)
        n += J[i] != 0.0 && !mask[i];
    return n;
}

static void test_jacobian(void)
{
    static const char *const rows[] = {"r", "v", "z"};
    struct vd_model *m = rig();
    struct vd_data *d = vd_data_new(m);
    const int N = app_cvode_dim(m), nq = m->nq;
    double *y = malloc((size_t)N * sizeof(double)), *f0 = malloc((size_t)N * sizeof(double));
    double *fp = malloc((size_t)N * sizeof(double)), *fm = malloc((size_t)N * sizeof(double));
    double *J = malloc((size_t)N * (size_t)N * sizeof(double));
    double *work = malloc(app_cvode_nwork(m) * sizeof(double));
    double err[3][3] = {{0}}, scale[3][3] = {{0}}, dkv = 0.0, dkv_err = 0.0, fdiff = 0.0;
    unsigned char *pat = pattern_mask(m, NULL);
    long outside = 0;

    /* the row and column groups of y = [r v z] */
#define GRP(i) ((i) < nq ? 0 : ((i) < 2 * nq ? 1 : 2))
    for (int trial = 0; trial < 8; trial++) {
        vd_data_reset(m, d);
        rig_random(d);
        pack(m, d, y);
        /* an accepted state: the bearing's unwrapped spin is committed here */
        CHECK(vd_eval_ex(m, d, d->r, d->v, d->z, d->u, d->h, d->g, false, true) == 0, "commit");
        CHECK(app_cvode_rhs(m, d, 0.0, y, f0, work) == 0, "rhs");
        CHECK(d->tire_out[VD_TO_FZ] > 1000.0, "tyre loaded: Fz %g", d->tire_out[VD_TO_FZ]);
        /* f is the RK4 reference's f */
        rk4_f(m, d, 0.0, y, fp);
        for (int i = 0; i < N; i++)
            fdiff = fmax(fdiff, fabs(fp[i] - f0[i]));
        CHECK(app_cvode_jac(m, d, 0.0, y, J, work) == 0, "jac");
        outside += count_outside(pat, J, N);
        for (int k = 0; k < N; k++) {
            const double y0 = y[k];

            y[k] = y0 + FD_STEP;
            app_cvode_rhs(m, d, 0.0, y, fp, work);
            y[k] = y0 - FD_STEP;
            app_cvode_rhs(m, d, 0.0, y, fm, work);
            y[k] = y0;
            for (int i = 0; i < N; i++) {
                const double fd = (fp[i] - fm[i]) / (2 * FD_STEP), an = J[i + N * k];
                const int gi = GRP(i), gk = GRP(k);

                err[gi][gk] = fmax(err[gi][gk], fabs(fd - an));
                scale[gi][gk] = fmax(scale[gi][gk], fabs(an));
                /* d(K v)/dr: the r rows, r columns */
                if (gi == 0 && gk == 0) {
                    dkv = fmax(dkv, fabs(an));
                    dkv_err = fmax(dkv_err, fabs(fd - an));
                }
            }
        }
    }
#undef GRP
    printf("jacobian (rig, 8 random states, N = %d): |f - f_rk4| %.3g; d(Kv)/dr |J| %.3g err "
           "%.3g\n",
           N, fdiff, dkv, dkv_err);
    for (int i = 0; i < 3; i++) {
        printf("  %s rows:", rows[i]);
        for (int k = 0; k < 3; k++)
            printf("  d/d%s |J| %9.3g err %9.3g", rows[k], scale[i][k], err[i][k]);
        printf("\n");
    }
    /* the same equations as ref_rk4.h's f, which divides by the mass where this multiplies
     * by its inverse: rounding (1e-16 of |f|, up to 1e5 here); 1e-6 is far below any wrong
     * term and far above rounding */
    CHECK_TOL(fdiff, 1e-6, "f differs from the RK4 reference's f by %.3g", fdiff);
    /* tolerance as tests/core/test_tire.c: central differences with 1e-6 steps are good to
     * ~1e-8 relative for these smooth forces; a missing or wrong chain-rule term is >= 1e-4
     * of its block. Every block that must be non-zero is: r-r is d(K v)/dr (large angles
     * and ~40 rad/s of spin), z-z is Gz. The r-z block is structurally 0 */
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) {
            const bool zero = i == 0 && k == 2;

            CHECK(zero ? scale[i][k] == 0.0 && err[i][k] == 0.0 : scale[i][k] > 0.0,
                  "block %s/%s: |J| %.3g", rows[i], rows[k], scale[i][k]);
            CHECK_TOL(err[i][k], 1e-6 * scale[i][k] + 1e-9, "block d%s/d%s: err %.3g of %.3g",
                      rows[i], rows[k], err[i][k], scale[i][k]);
        }
    CHECK(dkv > 1.0, "d(Kv)/dr exercised: %.3g", dkv);
    /* the sparse pattern CVODE's KLU solver gets holds every non-zero */
    CHECK(pat && outside == 0, "%ld Jacobian entries outside app_cvode_pattern", outside);
    free(pat);
    free(y), free(f0), free(fp), free(fm), free(J), free(work);
    vd_data_free(d);
    vd_model_free(m);
}

/* rolling from near the static deflection: 0.3 s, the wheel turns 8 rad (> pi: the
 * bearing's rx unwraps through the commits), the tyre states relax, the tumbler swings */
static void rig_rolling(struct vd_data *d)
{
    d->r[4] = 0.05;
    d->r[2] = 0.376 - 0.0155;
    d->r[6 + 2] = 0.376 - 0.0155;
    d->v[0] = d->v[6] = 10.0;
    d->v[12] = 10.0;
    d->v[1] = 0.4;
    d->v[3] = 10.0 / 0.37 * 1.03;
}

static int final_out(void *ctx, const struct vd_model *m, struct vd_data *d)
{
    (void)ctx, (void)m, (void)d;
    return 0;
}

static void test_rolling(void)
{
    const double T = 0.3;
    struct vd_model *m = rig();
    struct vd_data *ref = vd_data_new(m), *d = vd_data_new(m);
    struct app_cvode_stats st;
    double er = 0.0, ez = 0.0, zs = 0.0, rs = 0.0, phi;
    int rc;

    rig_rolling(ref);
    rig_rolling(d);
    /* RK4 at 2 us: the stiffest modes (bearing 1e7 N/m on 25 kg: 630 rad/s; wheel slip
     * ~800 1/s) have h lambda < 2e-3, error ~(h lambda)^4 / 120, far below 1e-9 */
    rk4_run(m, ref, T, 150000);
    rc = app_cvode_run(m, d, T, T, 0.0, 0.0, final_out, NULL, &st);
    CHECK(rc == 0, "rolling: app_cvode_run %d", rc);
    for (int k = 0; k < m->nq; k++) {
        er = fmax(er, fabs(d->r[k] - ref->r[k]));
        rs = fmax(rs, fabs(ref->r[k]));
    }
    for (int k = 0; k < m->nz; k++) {
        ez = fmax(ez, fabs(d->z[k] - ref->z[k]));
        zs = fmax(zs, fabs(ref->z[k]));
    }
    phi = d->bush_phi[1];
    printf("rolling rig 0.3 s: CVODE vs RK4 2 us: r %.3g (|r| %.3g), z %.3g (|z| %.3g); bearing "
           "spin %.3f rad; %ld steps, %ld f, %ld J, %.1f ms\n",
           er, rs, ez, zs, phi, st.steps, st.rhs_evals, st.jac_evals, (double)st.wall_ns * 1e-6);
    /* r reaches 3 m and 8 rad, so rtol |r| = 8e-8 is the local tolerance of the largest
     * components, and BDF's global error is a few times that: allow 1e-7 of max |r| */
    CHECK_TOL(er, 1e-7 * rs, "rolling: r differs from RK4 by %.3g (max |r| %.3g)", er, rs);
    /* tyre states (slip deflections ~1e-3 m): atol 1e-11 per step, BDF's global error a few
     * hundred times that over the run: 1e-8 */
    CHECK(zs > 1e-4, "rolling: tyre states exercised (|z| %.3g)", zs);
    CHECK_TOL(ez, 1e-8, "rolling: tyre states differ by %.3g (|z| %.3g)", ez, zs);
    /* the spin passed pi: without the commits rx would have wrapped */
    CHECK(fabs(phi) > 3.5, "bearing spin unwrapped: %.3f rad", phi);
    vd_data_free(ref);
    vd_data_free(d);
    vd_model_free(m);
}

/* ---- the quarter car ------------------------------------------------------------------ */

#define QC_T    3.0
#define QC_DT   1e-3 /* [s] comparison grid */
#define QC_NOUT 3001

struct qc_trace {
    struct vd_signal sig[2]; /* chassis.z, strut.force */
    double *val[2];          /* (QC_NOUT) */
    long n;
};

static int qc_out(void *ctx, const struct vd_model *m, struct vd_data *d)
{
    struct qc_trace *q = ctx;

    if (q->n >= QC_NOUT)
        return -1;
    for (int i = 0; i < 2; i++)
        q->val[i][q->n] = vd_signal_value(m, d, &q->sig[i]);
    q->n++;
    return 0;
}

static struct vd_model *qc_load(struct vd_source **src)
{
    struct vd_model *m = vd_cfg_load_model("config/models/quarter_car.yaml", src, stderr);

    CHECK(m != NULL, "quarter car loads");
    return m;
}

static void qc_trace_init(const struct vd_model *m, struct qc_trace *q)
{
    CHECK(vd_signal_resolve(m, "chassis.z", &q->sig[0]) == 0, "chassis.z");
    CHECK(vd_signal_resolve(m, "strut.force", &q->sig[1]) == 0, "strut.force");
    for (int i = 0; i < 2; i++)
        q->val[i] = calloc(QC_NOUT, sizeof(double));
    q->n = 0;
}

static void qc_trace_free(struct qc_trace *q)
{
    free(q->val[0]);
    free(q->val[1]);
}

/* a fresh start from the model's pose (drops into its equilibrium, payload step at 2 s) */
static struct vd_data *qc_data(const struct vd_model *m, struct vd_source *src)
{
    struct vd_data *d = vd_data_new(m);

    d->input_fn = vd_source_eval;
    d->input_ctx = src;
    vd_source_eval(src, 0.0, d->u);
    return d;
}

static int qc_cvode(struct vd_model *m, struct vd_source *src, double rtol, double atol,
                    double hmax, struct qc_trace *q, struct app_cvode_stats *st)
{
    struct vd_data *d;
    int rc;

    /* the model's dt bounds CVODE's step */
    m->opt.dt = hmax;
    d = qc_data(m, src);
    qc_trace_init(m, q);
    rc = app_cvode_run(m, d, QC_T, QC_DT, rtol, atol, qc_out, q, st);
    CHECK(rc == 0 && q->n == QC_NOUT, "quarter car cvode rtol %g: rc %d, %ld outputs", rtol, rc,
          q->n);
    vd_data_free(d);
    return rc;
}

static void qc_lsrt2(struct vd_model *m, struct vd_source *src, double dt, struct qc_trace *q)
{
    struct vd_data *d;
    const long every = lround(QC_DT / dt), n = lround(QC_T / dt);
    int fails = 0;

    m->opt.method = VD_METHOD_LSRT2;
    m->opt.stage2 = VD_STAGE2_LINEARIZED;
    m->opt.dt = dt;
    m->opt.relin = 1;
    d = qc_data(m, src);
    CHECK(vd_solver_warmup(m, d) == 0, "warm-up");
    qc_trace_init(m, q);
    for (long s = 0; s <= n; s++) {
        if (s % every == 0) {
            vd_source_eval(src, d->t, d->u);
            fails += vd_outputs(m, d) != 0;
            qc_out(q, m, d);
        }
        if (s < n)
            fails += vd_step(m, d) != 0;
    }
    CHECK(fails == 0 && q->n == QC_NOUT, "lsrt2 dt %g: %d failures, %ld outputs", dt, fails, q->n);
    vd_data_free(d);
}

/* max |a - b| over the trace from output k0 on, per signal */
static void qc_diff_from(const struct qc_trace *a, const struct qc_trace *b, long k0, double e[2])
{
    for (int i = 0; i < 2; i++) {
        e[i] = 0.0;
        for (long k = k0; k < QC_NOUT; k++)
            e[i] = fmax(e[i], fabs(a->val[i][k] - b->val[i][k]));
    }
}

static void qc_diff(const struct qc_trace *a, const struct qc_trace *b, double e[2])
{
    qc_diff_from(a, b, 0, e);
}

#define QC_NHALF 7

static void test_quarter_car(void)
{
    struct vd_source *src = NULL;
    struct vd_model *m = qc_load(&src);
    struct qc_trace ref, tight, l1, l2, q[QC_NHALF];
    struct app_cvode_stats st;
    double e1[2], e2[2], e1s[2], et[2], eq[QC_NHALF][2], rt[QC_NHALF], zr = 0.0, fr = 0.0;
    const long k_tr = lround(0.1 / QC_DT);

    if (!m)
        return;
    /* the reference at the default tolerances, and a tight one */
    qc_cvode(m, src, 0.0, 0.0, QC_DT, &ref, &st);
    printf("quarter car 3 s, cvode (default): %ld steps (order %d, last h %.3g s), %ld f, %ld J, "
           "%ld LU, %ld Newton fails, %ld error-test fails, %d input jumps, %.3f s wall\n",
           st.steps, st.last_order, st.last_h, st.rhs_evals, st.jac_evals, st.lin_setups,
           st.newton_fails, st.err_fails, st.jumps, (double)st.wall_ns * 1e-9);
    /* the payload step at 2 s is found and BDF restarts there */
    CHECK(st.jumps == 1 && st.restarts == 1, "payload step: %d jumps, %d restarts", st.jumps,
          st.restarts);
    qc_cvode(m, src, 1e-11, 1e-12, QC_DT, &tight, &st);
    printf("quarter car 3 s, cvode (rtol 1e-11): %ld steps, %.3f s wall\n", st.steps,
           (double)st.wall_ns * 1e-9);
    for (long k = 0; k < QC_NOUT; k++) {
        zr = fmax(zr, fabs(ref.val[0][k] - ref.val[0][0]));
        fr = fmax(fr, fabs(ref.val[1][k]));
    }
    qc_diff(&ref, &tight, et);

    /* LSRT2 at 0.1 and 0.2 ms against the reference; after the start transient and overall */
    qc_lsrt2(m, src, 1e-4, &l1);
    qc_lsrt2(m, src, 2e-4, &l2);
    qc_diff(&l1, &ref, e1);
    qc_diff(&l2, &ref, e2);
    qc_diff_from(&l1, &ref, k_tr, e1s);
    printf("quarter car: chassis.z travel %.4f m, |strut.force| %.1f N; cvode default vs rtol "
           "1e-11: %.3g m, %.3g N\n",
           zr, fr, et[0], et[1]);
    printf("  LSRT2 - cvode: dt 0.1 ms %.3g m, %.3g N (after 0.1 s: %.3g m, %.3g N); dt 0.2 ms "
           "%.3g m, %.3g N (ratio %.2f, %.2f)\n",
           e1[0], e1[1], e1s[0], e1s[1], e2[0], e2[1], e2[0] / e1[0], e2[1] / e1[1]);
    /* the reference is 10x below LSRT2's error at 0.1 ms, so the comparison measures LSRT2 */
    CHECK(et[0] <= 0.1 * e1s[0] && et[1] <= 0.1 * e1s[1], "cvode default vs tight: %.3g m, %.3g N",
          et[0], et[1]);
    /* LSRT2 at 0.1 ms is O(1e-6) of the motion (6 cm of travel, 9.4 kN of strut force) once
     * the start transient is over: the model starts at its configured pose, off equilibrium;
     * the strut force drops by 3 kN in the first millisecond, where LSRT2's error is 2e-4
     * (the 1.7 N above: 0.1 ms resolves that drop in 10 steps), and the fast modes it
     * excites ring for ~0.1 s. Bounds: 2e-6 of the scale after 0.1 s (the payload step
     * included), 1e-3 overall */
    CHECK_TOL(e1s[0], 2e-6 * zr, "chassis.z: LSRT2 0.1 ms vs cvode %.3g m", e1s[0]);
    CHECK_TOL(e1s[1], 2e-6 * fr, "strut.force: LSRT2 0.1 ms vs cvode %.3g N", e1s[1]);
    CHECK(e1[0] <= 1e-3 * zr && e1[1] <= 1e-3 * fr, "LSRT2 0.1 ms overall: %.3g m, %.3g N", e1[0],
          e1[1]);
    /* and it is LSRT2's error: order 2, 4x per halving of dt (3..5.5 leaves room for the
     * start transient and the payload step, each resolved by a few steps) */
    for (int i = 0; i < 2; i++)
        CHECK(e2[i] / e1[i] > 3.0 && e2[i] / e1[i] < 5.5, "LSRT2 ratio %.2f (signal %d)",
              e2[i] / e1[i], i);

    /* convergence: halving rtol (atol = rtol / 10 [m]) from 1e-5 six times shrinks the
     * difference to the tight run. The step bound (opt.dt) is lifted to 0.1 s here, so that
     * the error control alone sets the steps. strut.force, which sums the errors of the whole
     * linkage, drops with every halving; chassis.z alone is near atol and noisy per halving. Over
     * the six, BDF's error (not strictly proportional to the tolerance: order and step
     * change with it) must shrink >= 16x of the nominal 64x in strut.force, >= 10x in
     * chassis.z */
    printf("  cvode vs tight, halving rtol:");
    for (int j = 0; j < QC_NHALF; j++) {
        rt[j] = 1e-5 / pow(2.0, j);
        qc_cvode(m, src, rt[j], 0.1 * rt[j], 0.1, &q[j], &st);
        qc_diff(&q[j], &tight, eq[j]);
        printf(" %.3g: %.3g m %.3g N (%ld steps);", rt[j], eq[j][0], eq[j][1], st.steps);
    }
    printf("\n");
    for (int j = 1; j < QC_NHALF; j++)
        CHECK(eq[j][1] < eq[j - 1][1], "rtol %.3g -> %.3g: strut.force %.3g -> %.3g", rt[j - 1],
              rt[j], eq[j - 1][1], eq[j][1]);
    CHECK(eq[QC_NHALF - 1][1] * 16.0 <= eq[0][1], "six halvings: strut.force %.3g -> %.3g",
          eq[0][1], eq[QC_NHALF - 1][1]);
    CHECK(eq[QC_NHALF - 1][0] * 10.0 <= eq[0][0], "six halvings: chassis.z %.3g -> %.3g", eq[0][0],
          eq[QC_NHALF - 1][0]);
    for (int j = 0; j < QC_NHALF; j++)
        qc_trace_free(&q[j]);
    qc_trace_free(&ref);
    qc_trace_free(&tight);
    qc_trace_free(&l1);
    qc_trace_free(&l2);
    vd_source_free(src);
    vd_model_free(m);
}

/* ---- a closed-loop driver ---------------------------------------------------------------
 * The sedan in config/scenarios/hil_default.yaml (statics, held by the driver's brakes, then
 * the PI speed control and pure pursuit from 1 s): the driver's commands depend on the
 * state, so df/dy has M^-1 Ju du/dy in the v rows of the chassis columns. At a state 1.5 s
 * in (accelerating, steering), the Jacobian CVODE gets against central differences of its
 * f (which reads the trial state through d->input_peek), and its pattern; then the run from
 * the start to 1.5 s against LSRT2 at 0.2 and 0.1 ms. */
/* the scenario started (statics, driver) and stepped with its solver to time T; NULL if it
 * could not start */
static struct vd_data *lsrt2_to(struct vd_scenario *s, double T)
{
    struct vd_data *d = vd_data_new(s->m);
    char err[256] = "";

    CHECK(d && vd_scenario_start(s, d, err, sizeof(err)) == 0, "start: %s", err);
    for (long k = 0; d && k < lround(T / s->m->opt.dt); k++)
        if (vd_step(s->m, d)) {
            CHECK(0, "LSRT2 step %ld", k);
            break;
        }
    return d;
}

static void test_driver(void)
{
    struct vd_scenario *s = vd_cfg_load_scenario("config/scenarios/hil_default.yaml", NULL, NULL);
    struct vd_model *m = s ? s->m : NULL;
    struct vd_data *d = NULL;
    char err[256];
    const double T = 1.5;
    double x_cv[2] = {0, 0}, x_l[2][2], e[2];
    int ch;

    CHECK(m != NULL, "load hil_default");
    if (!m)
        return;
    ch = vd_model_find_body(m, "chassis");
    /* the Jacobian at 1.5 s */
    d = lsrt2_to(s, T);
    if (d) {
        const int N = app_cvode_dim(m), nq = m->nq;
        double *y = malloc((size_t)N * sizeof(double)), *fp = malloc((size_t)N * sizeof(double));
        double *fm = malloc((size_t)N * sizeof(double));
        double *J = malloc((size_t)N * (size_t)N * sizeof(double));
        double *work = malloc(app_cvode_nwork(m) * sizeof(double)), ef = 0.0, sf = 0.0;
        bool *inb = calloc((size_t)m->nbody, sizeof(bool));
        unsigned char *pat;

        inb[ch] = true;
        pat = pattern_mask(m, inb);
        pack(m, d, y);
        CHECK(d->input_peek != NULL, "the scenario's driver peeks");
        CHECK(app_cvode_jac(m, d, d->t, y, J, work) == 0, "jac");
        CHECK(pat && count_outside(pat, J, N) == 0, "driver feedback inside the pattern");
        /* the chassis columns, every v row: where the feedback lands */
        for (int c = 0; c < 12; c++) {
            const int k = (c < 6 ? 0 : nq) + 6 * ch + c % 6;
            const double y0 = y[k];

            y[k] = y0 + FD_STEP;
            app_cvode_rhs(m, d, d->t, y, fp, work);
            y[k] = y0 - FD_STEP;
            app_cvode_rhs(m, d, d->t, y, fm, work);
            y[k] = y0;
            for (int i = nq; i < 2 * nq; i++) {
                const double fd = (fp[i] - fm[i]) / (2 * FD_STEP),
                             an = J[(size_t)i + (size_t)N * (size_t)k];

                ef = fmax(ef, fabs(fd - an));
                sf = fmax(sf, fabs(an));
            }
        }
        printf("closed-loop driver (sedan, hil_default at %.1f s): v rows x chassis columns |J| "
               "%.3g, err %.3g\n",
               T, sf, ef);
        /* test_jacobian's tolerance: central differences with 1e-6 steps are good to ~1e-8
         * of smooth forces (the driver law is smooth away from its clamps and mode changes,
         * which this state is not near); a missing feedback term is O(|J|) */
        CHECK(sf > 0.0, "chassis columns non-zero");
        CHECK_TOL(ef, 1e-6 * sf + 1e-9, "driver feedback: err %.3g of %.3g", ef, sf);
        free(y), free(fp), free(fm), free(J), free(work), free(inb), free(pat);
    }
    vd_data_free(d);
    /* CVODE from the start to 1.5 s against LSRT2: the fixed-step driver reads the state at
     * each step's start, a hold of one step (first order in dt) on top of LSRT2's second
     * order, so the difference must shrink 2x to 4x as dt halves (the reference is the
     * limit; 1.6 and 5 allow the two orders' mix) and be small: the hold delays the
     * commands by dt/2 on average, which with accelerations ~1 m/s^2 puts the speeds ~a dt/2
     * = 5e-5 m/s apart at 0.1 ms; 1e-3 m and m/s leave a factor 20 for the steering's share
     * and LSRT2's own error */
    d = vd_data_new(m);
    CHECK(d && vd_scenario_start(s, d, err, sizeof(err)) == 0, "start: %s", err);
    if (d) {
        struct app_cvode_stats st;
        int rc = app_cvode_run(m, d, T, 0.01, 0.0, 0.0, NULL, NULL, &st);

        CHECK(rc == 0, "cvode closed-loop run: %d", rc);
        x_cv[0] = d->r[6 * ch];
        x_cv[1] = d->v[6 * ch];
        printf("  cvode to %.1f s: %ld steps, %.3f s wall; chassis x %.6f m, vx %.6f m/s\n", T,
               st.steps, (double)st.wall_ns * 1e-9, x_cv[0], x_cv[1]);
    }
    vd_data_free(d);
    for (int q = 0; q < 2; q++) {
        m->opt.dt = q ? 1e-4 : 2e-4;
        d = lsrt2_to(s, T);
        x_l[q][0] = d ? d->r[6 * ch] : NAN;
        x_l[q][1] = d ? d->v[6 * ch] : NAN;
        e[q] = fmax(fabs(x_l[q][0] - x_cv[0]), fabs(x_l[q][1] - x_cv[1]));
        vd_data_free(d);
    }
    printf("  LSRT2 vs cvode: %.3g at 0.2 ms, %.3g at 0.1 ms (ratio %.2f)\n", e[0], e[1],
           e[0] / e[1]);
    CHECK_TOL(e[1], 1e-3, "LSRT2 0.1 ms vs cvode with the driver: %.3g", e[1]);
    CHECK(e[0] / e[1] > 1.6 && e[0] / e[1] < 5.0, "difference ratio for dt/2: %.2f", e[0] / e[1]);
    vd_cfg_scenario_free(s);
}

int main(void)
{
    test_oscillator();
    test_jacobian();
    test_rolling();
    test_quarter_car();
    test_driver();
    return vt_report("test_cvode");
}
