/* tests/core/test_tire.c - the tyre element: analytic Jacobians of h and of the relaxation
 * equations z' = g (w.r.t. r, v and z) against central differences on flat and inclined
 * roads, driving, braking, cornering, reversing, mirrored and airborne; the relaxation
 * lengths against tire_mf's; steady rolling reaches the MF forces; a standing tyre is a
 * spring (no creep); TMeasy's camber force and bore torque have the physical signs on both
 * sides. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "build_util.h"
#include "check.h"
#include "core/data.h"
#include "core/eval.h"
#include "core/step.h"
#include "core/tire.h"
#include "core/tire_env.h"
#include "core/tire_mf.h"
#include "config/tir.h"
#include "config/tmeasy.h"
#include "ref_rk4.h"
#include "tire_passenger.h"

static int use_env;         /* build the tyres with enveloping contact (core/tire_env.h) */
static const char *use_tir; /* the tyre's .tir file instead of passenger() */
static const char *use_tm;  /* a TMeasy file (config/tmeasy.h) instead of MF */
static double tm_r0;        /* [m] its unloaded radius */

/* one wheel body carrying a tyre; its marker x axis (spin axis) points to +y */
static struct vd_model *wheel_model_ex(double grade, int mirror, bool loaded)
{
    static const double pose[6] = {0, 0, 0.36, 1.5707963267948966, 0, 0};
    struct vd_model *m = vd_model_new("wheel");
    struct vd_mf_params p;
    struct vd_tire t;
    char err[256];
    int b, k;

    if (use_tir)
        CHECK(vd_tir_load(use_tir, &p, stderr) == 0, "load %s", use_tir);
    else
        passenger(&p);
    b = bu_body(m, "wheel", 25.0, 1.2, 0.8, 0.8, pose);
    k = bu_marker(m, "centre", b, 0, 0, 0, NULL);
    memset(&t, 0, sizeof(t));
    snprintf(t.name, sizeof(t.name), "tyre");
    t.marker = k;
    t.mf = vd_model_add_mf(m, &p);
    t.r0 = p.unloaded_radius;
    if (use_tm) {
        struct vd_tm_params tp;

        CHECK(vd_tmeasy_load(use_tm, &tp, stderr) == 0, "load %s", use_tm);
        t.model = VD_TIRE_TMEASY;
        t.mf = vd_model_add_tm(m, &tp);
        t.r0 = tm_r0 = tp.r0;
    }
    t.kz = 2e5;
    t.cz = 500;
    t.c_low = 3000;
    t.v_low = 1.0;
    t.mirror = mirror;
    if (use_tir && p.fittyp >= 61)
        t.pressure = 2.2e5; /* off the files' nominal 2.6 bar: the pressure terms count */
    if (use_env)
        CHECK(vd_tire_env_init(&t.env, 1.0, 1.0, 1.8, 0.8, 0.01, t.r0, t.kz, p.fnomin, 0.60147,
                               0.81974, err, sizeof(err)) == 0,
              "env: %s", err);
    CHECK(vd_model_add_tire(m, &t) >= 0, "add tyre");
    if (loaded) {
        /* the corner's share of a vehicle: 3000 N pressing the wheel centre down */
        struct vd_input in;

        memset(&in, 0, sizeof(in));
        snprintf(in.name, sizeof(in.name), "load");
        in.marker = k;
        in.kind = VD_INPUT_FORCE;
        in.dir[2] = -1.0;
        vd_model_add_input(m, &in);
    }
    m->road.grade[0] = grade;
    CHECK(vd_model_finalize(m, err, sizeof(err)) == 0, "finalize: %s", err);
    return m;
}

static struct vd_model *wheel_model(double grade, int mirror)
{
    return wheel_model_ex(grade, mirror, false);
}

/* wheel bearing: stiff in translation, tilt and steer, free spin about marker x */
static void fill_bearing(struct vd_model *m, struct vd_bushing *b, int kw, int kh)
{
    memset(b, 0, sizeof(*b));
    snprintf(b->name, sizeof(b->name), "bearing");
    b->mk[0] = kw;
    b->mk[1] = kh;
    b->rot_mode = VD_ROT_CARDAN;
    for (int k = 0; k < 3; k++) {
        b->stiff[k] = bu_linear(m, 1e7);
        b->damp[k] = bu_linear(m, 1e4);
    }
    for (int k = 4; k < 6; k++) {
        b->stiff[k] = bu_linear(m, 1e6);
        b->damp[k] = bu_linear(m, 1e3);
    }
}

#define FD_STEP 1e-6

struct errs {
    double e, s;
};

static void acc(struct errs *x, double fd, double an)
{
    x->e = fmax(x->e, fabs(fd - an));
    x->s = fmax(x->s, fabs(an));
}

/* central differences of (h, g) w.r.t. r, v, z against Jr, Jv, Jz, Gr, Gv, Gz */
static void fd_tire(const struct vd_model *m, struct vd_data *d, const char *what)
{
    const int n = m->nq, nz = m->nz;
    double r[6], v[6], z[2], hp[6], hm[6], gp[2], gm[2], h0[6], g0[2], *Jr, *Jv;
    const double *Gp = d->Gp, *Gv = d->Gv, *Gz = d->Gz, *Jz = d->Jz;
    struct errs eh = {0, 0}, eg = {0, 0}, ehz = {0, 0};

    memcpy(r, d->r, sizeof(r));
    memcpy(v, d->v, sizeof(v));
    memcpy(z, d->z, sizeof(z));
    Jr = calloc(36, sizeof(double));
    Jv = calloc(36, sizeof(double));
    CHECK(vd_eval_ex(m, d, r, v, z, d->u, h0, g0, true, false) == 0, "%s: eval", what);
    vd_jac_dense(m, d, Jr, Jv, NULL);
    for (int k = 0; k < n + n + nz; k++) {
        double *x = k < n ? r + k : (k < 2 * n ? v + k - n : z + k - 2 * n), x0 = *x;

        *x = x0 + FD_STEP;
        vd_eval_ex(m, d, r, v, z, d->u, hp, gp, false, false);
        *x = x0 - FD_STEP;
        vd_eval_ex(m, d, r, v, z, d->u, hm, gm, false, false);
        *x = x0;
        for (int i = 0; i < n; i++) {
            const double fd = (hp[i] - hm[i]) / (2 * FD_STEP);

            if (k < n)
                acc(&eh, fd, Jr[i + n * k]);
            else if (k < 2 * n)
                acc(&eh, fd, Jv[i + n * (k - n)]);
            else
                acc(&ehz, fd, Jz[i + 6 * (k - 2 * n)]);
        }
        for (int i = 0; i < nz; i++) {
            const double fd = (gp[i] - gm[i]) / (2 * FD_STEP);
            double an;

            if (k < n) {
                /* Gr = Gp diag(I, T) */
                const double *T = d->Tlin;
                an = k < 3 ? Gp[6 * i + k]
                           : Gp[6 * i + 3] * T[k - 3] + Gp[6 * i + 4] * T[3 + k - 3] +
                                 Gp[6 * i + 5] * T[6 + k - 3];
            } else if (k < 2 * n) {
                an = Gv[6 * i + k - n];
            } else {
                an = Gz[2 * i + k - 2 * n];
            }
            acc(&eg, fd, an);
        }
    }
    /* the tolerance reasoning of test_eval.c: central differences with step 1e-6 on forces
     * |h| <= 1e4 N whose third derivatives are the Magic Formula's (|h'''| <= C_F / x0^2 with
     * slip stiffnesses <= 1e5 N and slip scales >= 1e-2): truncation 1e-12 / 6 1e9 = 1.7e-4,
     * rounding 1.1e-16 1e4 / 1e-6 = 1.1e-6 absolute, both below 1e-8 of |J| (>= 1e4 N/m or
     * N s/m); 1e-6 relative keeps a factor 100 to that and a factor 100 below a missing
     * chain-rule term (>= 1e-4). The absolute 1e-6 covers the rounding where |J| is small
     * (dh/dz of an unloaded tyre); for g (the relaxation states' rates, |g| <= 1e2), the
     * rounding is 1.1e-16 1e2 / 1e-6 = 1.1e-8 absolute, hence 1e-9 plus the relative term */
    printf("  %-36s |J| %9.3g err %9.3g  |Jz| %9.3g err %9.3g  |G| %9.3g err %9.3g\n", what, eh.s,
           eh.e, ehz.s, ehz.e, eg.s, eg.e);
    CHECK(eh.s > 0 && eg.s > 0, "%s: a Jacobian is zero", what);
    CHECK_TOL(eh.e, 1e-6 * eh.s + 1e-6, "%s: dh/d(r,v) err %.3g of %.3g", what, eh.e, eh.s);
    CHECK_TOL(ehz.e, 1e-6 * ehz.s + 1e-6, "%s: dh/dz err %.3g of %.3g", what, ehz.e, ehz.s);
    CHECK_TOL(eg.e, 1e-6 * eg.s + 1e-9, "%s: dg err %.3g of %.3g", what, eg.e, eg.s);
    free(Jr);
    free(Jv);
}

static void test_jacobians(void)
{
    static const char *const names[] = {"rolling, driving",
                                        "braking, cornering",
                                        "reversing",
                                        "near standstill",
                                        "grade 10 %",
                                        "mirrored",
                                        "airborne",
                                        "mirrored, near standstill",
                                        "enveloping, grade 10 %",
                                        "enveloping, flat, cornering",
                                        "MF 6.1, cornering",
                                        "MF 6.2, braking, grade 10 %",
                                        "TMeasy, braking, cornering",
                                        "TMeasy, near standstill",
                                        "TMeasy, mirrored, reversing, grade 10 %"};
    /* enveloping contact on planes: the effective road is the plane, its gradient exact, so
     * the Jacobian is as exact as the point contact's */
    /* the MF 6.x files: relaxation lengths |K / C| and the A48 rolling resistance */
    /* TMeasy (the sedan's Chrono file): its own curves, relaxation lengths and rolling
     * resistance through the same element */
    for (int c = 0; c < 15; c++) {
        struct vd_model *m;
        struct vd_data *d;

        use_env = c == 8 || c == 9;
        use_tir = c == 10   ? "config/tires/suv_255_55R20_mf61.tir"
                  : c == 11 ? "config/tires/suv_255_55R20_mf62.tir"
                            : NULL;
        use_tm = c >= 12 ? "config/tires/passenger_245_40R18_tmeasy.json" : NULL;
        m = wheel_model(c == 4 || c == 8 || c == 11 || c == 14 ? 0.1 : 0.0,
                        c == 5 || c == 7 || c == 14);
        d = vd_data_new(m);

        for (int trial = 0; trial < 3; trial++) {
            const double vx =
                c == 2 || c == 14 ? -8.0 : (c == 3 || c == 7 || c == 13 ? 0.05 : 15.0);
            char what[96];

            vd_data_reset(m, d);
            d->r[2] = (c == 4 || c == 8 || c == 11 || c == 14 ? 0.1 * d->r[0] : 0.0) + 0.376 -
                      0.02 + vt_uniform(-0.005, 0.005);
            if (c >= 12)
                d->r[2] += tm_r0 - 0.376; /* the same 20 mm deflection on the smaller tyre */
            if (c == 6)
                d->r[2] += 0.05;
            d->r[3] += vt_uniform(-0.1, 0.1);   /* heading */
            d->r[4] += vt_uniform(-0.05, 0.05); /* camber: pitch of the wheel frame */
            d->r[5] += vt_uniform(-3, 3);       /* spin angle: anything */
            d->v[0] = vx + vt_uniform(-0.5, 0.5);
            d->v[1] = vt_uniform(-1, 1);
            d->v[2] = vt_uniform(-0.3, 0.3);
            /* body x axis = spin axis: omega_x = rolling speed / radius (+/- slip) */
            d->v[3] = vx / 0.37 * (c == 1 || c == 9 || c == 11 || c == 12 ? 0.8 : 1.05) +
                      vt_uniform(-0.5, 0.5);
            d->v[4] = vt_uniform(-1, 1);
            d->v[5] = vt_uniform(-1, 1);
            d->z[0] = vt_uniform(-0.02, 0.02);
            d->z[1] = vt_uniform(-0.02, 0.02);
            snprintf(what, sizeof(what), "tyre %s %d", names[c], trial);
            fd_tire(m, d, what);
            if (c == 6)
                CHECK(d->tire_out[VD_TO_FZ] == 0.0, "airborne Fz %g", d->tire_out[VD_TO_FZ]);
            else
                CHECK(d->tire_out[VD_TO_FZ] > 1000.0, "loaded Fz %g", d->tire_out[VD_TO_FZ]);
        }
        vd_data_free(d);
        vd_model_free(m);
    }
    use_env = 0;
    use_tir = NULL;
    use_tm = NULL;
}

/* a flat-track tyre tester: a 300 kg carriage guided laterally and in roll/pitch/yaw
 * (free in x and z) carries the wheel on a bearing (Cardan bushing, free spin), cambered
 * 3 deg and slipping 3 % and sideways; the relaxation states, the wheel spin and the
 * carriage converge together at the method's order (LIE 1, LSRT2 2) against RK4 */
static struct vd_model *tester(void)
{
    static const double pc[6] = {0, 0, 0.36, 0, 0, 0};
    struct vd_model *m = wheel_model(0.0, 0);
    struct vd_bushing b;
    char err[256];
    int car, kc, kg, kw, kb;

    m->frozen = false; /* rebuilt below: free the pattern of the wheel-only model */
    free(m->blk_rowptr), free(m->blk_col), free(m->blk_diag), free(m->bush_blk);
    free(m->p2p_blk), free(m->cpl_blk), free(m->minv_inertia);
    m->blk_rowptr = m->blk_col = m->blk_diag = m->bush_blk = m->p2p_blk = m->cpl_blk = NULL;
    m->minv_inertia = NULL;
    car = bu_body(m, "carriage", 300.0, 20.0, 20.0, 20.0, pc);
    kc = bu_marker(m, "guide_c", car, 0, 0, 0, NULL);
    kg = bu_marker(m, "guide_g", VD_GROUND, 0, 0, 0.36, NULL);
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
    /* bearing: marker x axes along the axle (+y), cambered 3 deg on the carriage */
    {
        const double ang[3] = {1.5707963267948966, 0.05, 0};

        kb = bu_marker(m, "hub", car, 0, 0, 0, ang);
        kw = bu_marker(m, "wheel_c", 0, 0, 0, 0, NULL);
    }
    fill_bearing(m, &b, kw, kb);
    vd_model_add_bushing(m, &b);
    CHECK(vd_model_finalize(m, err, sizeof(err)) == 0, "finalize: %s", err);
    return m;
}

static void rolling_init(struct vd_data *d)
{
    d->r[4] = 0.05;           /* wheel cambered with the hub */
    d->r[2] = 0.376 - 0.0155; /* near the static deflection under 3.2 kN */
    d->r[6 + 2] = 0.376 - 0.0155;
    d->v[0] = d->v[6] = 10.0;
    d->v[1] = 0.4;
    d->v[3] = 10.0 / 0.37 * 1.03;
}

static double slope_of(const double *dt, const double *e, int n)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;

    for (int i = 0; i < n; i++) {
        double x = log(dt[i]), y = log(e[i]);
        sx += x, sy += y, sxx += x * x, sxy += x * y;
    }
    return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

static void test_order(void)
{
    const double T = 0.3;
    struct vd_model *m = tester();
    struct vd_data *ref = vd_data_new(m);
    double yref[26];

    rolling_init(ref);
    /* reference: RK4 at 2 us (stiffest: the wheel-spin/slip mode, C_Fkappa R^2/(I Vx) ~ 800
     * 1/s, and the tyre vertical mode ~90 rad/s: error far below the finest integrator
     * error). dt = 0.25 ms .. 16 us: the asymptotic range of LIE for an 800 1/s mode. */
    rk4_run(m, ref, T, 150000);
    memcpy(yref, ref->r, 12 * sizeof(double));
    memcpy(yref + 24, ref->z, 2 * sizeof(double));
    for (int v = 0; v < 3; v++) {
        double dts[5], es[5], p;

        for (int i = 0; i < 5; i++) {
            struct vd_data *d;
            long n;
            int fails = 0;
            double e = 0.0;

            m->opt.method = v ? VD_METHOD_LSRT2 : VD_METHOD_LIE;
            m->opt.stage2 = v == 2 ? VD_STAGE2_NONLINEAR : VD_STAGE2_LINEARIZED;
            m->opt.dt = 2.5e-4 / pow(2.0, i);
            d = vd_data_new(m);
            rolling_init(d);
            n = lround(T / m->opt.dt);
            for (long s = 0; s < n; s++)
                fails += vd_step(m, d) != 0;
            CHECK(fails == 0, "rolling wheel: %d failed steps", fails);
            for (int k = 0; k < 12; k++)
                e = fmax(e, fabs(d->r[k] - yref[k]));
            for (int k = 0; k < 2; k++)
                e = fmax(e, fabs(d->z[k] - yref[24 + k]));
            dts[i] = m->opt.dt;
            es[i] = e;
            vd_data_free(d);
        }
        p = slope_of(dts, es, 5);
        printf("rolling wheel %-22s:",
               v == 0 ? "LIE" : (v == 1 ? "LSRT2 (lin. stage 2)" : "LSRT2 (W-form)"));
        for (int i = 0; i < 5; i++)
            printf(" %.2e", es[i]);
        printf("  order %.2f\n", p);
        /* the order bands of test_step.c (the method's order with the pre-asymptotic bend) */
        if (v == 0)
            CHECK(p > 0.85 && p < 1.2, "LIE order with tyre states %.2f", p);
        else
            CHECK(p > 1.8 && p < 2.35, "LSRT2 order with tyre states %.2f", p);
    }
    vd_data_free(ref);
    vd_model_free(m);
}

/* the TMeasy camber force and bore torque through the element, on both sides (mirror): a
 * wheel rolling at 15 m/s without slip (relaxation states 0), cambered 3 deg top-outward
 * (outward: +y for the unmirrored left-hand tyre, -y for the mirrored right-hand one), is
 * pushed outward, the side its top leans to; parked (no spin, no travel), turning about the
 * vertical at 0.5 rad/s, its bore torque opposes the turning. */
static void test_plausible(void)
{
    use_tm = "config/tires/passenger_245_40R18_tmeasy.json";
    for (int mirror = 0; mirror < 2; mirror++) {
        struct vd_model *m = wheel_model(0.0, mirror);
        struct vd_data *d = vd_data_new(m);
        const int b = m->marker[m->tire[0].marker].body;
        const double yout = mirror ? -1.0 : 1.0;
        double *h = calloc((size_t)m->nq, sizeof(double)),
               *g = calloc((size_t)m->nz, sizeof(double));
        double gam, fy, mz;

        /* cambered: choose the sign of the frame's tilt that leans the top outward (gamma
         * yout < 0: ISO inclination is right-hand about the heading +x) */
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            vd_data_reset(m, d);
            d->r[2] = tm_r0 - 0.02;
            d->r[4] += sgn * 0.0524;
            d->v[0] = 15.0;
            d->v[3] = 15.0 / (tm_r0 - 0.007); /* spin: rolling forward (re = r0 - defl / 3) */
            vd_eval_ex(m, d, d->r, d->v, d->z, d->u, h, g, false, false);
            if (d->tire_out[VD_TO_GAMMA] * yout < 0.0)
                break;
        }
        gam = d->tire_out[VD_TO_GAMMA];
        fy = d->tire_out[VD_TO_FY];
        printf("  TMeasy %s: camber %.2f deg top-outward, rolling 15 m/s: Fy %.1f N (Fz %.0f N)\n",
               mirror ? "mirrored" : "unmirrored", gam * 180 / M_PI, fy, d->tire_out[VD_TO_FZ]);
        CHECK(gam * yout < 0.0 && fabs(gam) > 0.05, "camber not set: %g", gam);
        CHECK(fy * yout > 0.0, "mirror %d: a wheel cambered top-outward pulls inward (Fy %g)",
              mirror, fy);
        /* parked, turning about the vertical: body angular velocity A^T (0, 0, 0.5) */
        vd_data_reset(m, d);
        d->r[2] = tm_r0 - 0.02;
        vd_eval_ex(m, d, d->r, d->v, d->z, d->u, h, g, false, false);
        for (int j = 0; j < 3; j++)
            d->v[3 + j] = d->A[9 * b + 6 + j] * 0.5;
        vd_eval_ex(m, d, d->r, d->v, d->z, d->u, h, g, false, false);
        mz = d->tire_out[VD_TO_MZ];
        printf("  TMeasy %s: parked, turning at +0.5 rad/s about z: Mz %.1f N m\n",
               mirror ? "mirrored" : "unmirrored", mz);
        CHECK(mz < -50.0, "mirror %d: parked bore torque %g N m does not oppose the turning",
              mirror, mz);
        free(h);
        free(g);
        vd_data_free(d);
        vd_model_free(m);
    }
    use_tm = NULL;
}

int main(void)
{
    test_jacobians();
    test_plausible();
    test_order();
    return vt_report("test_tire");
}
