/* tests/config/test_signals.c - the sensor signals of markers (core/signal.h): accelerations
 * a = dv/dt of the marker point, the accelerometer's specific force R^T (a - g) and the
 * gyro's rates in marker axes.
 * - a vehicle at rest in its static equilibrium: a = 0, the accelerometer reads g upwards
 *   (|f| = 9.81, f along the marker's up axis);
 * - the sedan cornering in the ISO lane change at 20 m/s: a against central differences
 *   of the marker velocity over steps of 1e-5 s, the gyro against the chassis' body rates,
 *   and the accelerometer against R^T (a - g), the acceleration without gravity against R^T a;
 * - the road-wheel steer angles <tyre>.steer: 0 at the design pose, the static toe mirrored
 *   left and right, and turning with the steering wheel;
 * - the joints' <joint>.residual on the four-bar: at its design pose (angles given to 1e-14
 *   deg) every residual is at rounding level; the crank moved by 1 mm along x opens its
 *   pivot (a point row: g = 1 mm exactly) and the coupler rod (|d| changes by the 1 mm
 *   projected on the rod, to first order), and leaves the rocker's pivot closed; after a
 *   step, the residuals are what the next step sees at its start (d->cres). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "config/model_yaml.h"
#include "config/scenario.h"
#include "core/data.h"
#include "core/signal.h"
#include "core/step.h"
#include "core/vdmath.h"

static struct vd_signal sig(const struct vd_model *m, const char *name)
{
    struct vd_signal s = {0};

    CHECK(vd_signal_resolve(m, name, &s) == 0, "resolve %s", name);
    return s;
}

static void read3(const struct vd_model *m, const struct vd_data *d, const char *mk, const char *c3,
                  double out[3])
{
    for (int i = 0; i < 3; i++) {
        char name[64];
        struct vd_signal s;

        snprintf(name, sizeof(name), "%s.%s%c", mk, c3, "xyz"[i]);
        s = sig(m, name);
        out[i] = vd_signal_value(m, d, &s);
    }
}

static void test_rest(const char *vehicle, const char *what)
{
    struct vd_scenario *s =
        vd_cfg_load_scenario("config/scenarios/rest_flat.yaml", vehicle, stderr);
    struct vd_data *d;
    double a[3], f[3], w[3], la[3];
    char err[160];

    CHECK(s != NULL, "%s: load", what);
    if (!s)
        return;
    d = vd_data_new(s->m);
    CHECK(vd_scenario_start(s, d, err, sizeof(err)) == 0, "%s: start: %s", what, err);
    CHECK(vd_outputs(s->m, d) == 0, "%s: outputs", what);
    read3(s->m, d, "imu", "a", a);
    read3(s->m, d, "imu", "f", f);
    read3(s->m, d, "imu", "w", w);
    read3(s->m, d, "imu", "la", la);
    printf("  %-6s at rest: imu a (%.2g %.2g %.2g) m/s^2, f (%.4g %.4g %.4g) m/s^2\n", what, a[0],
           a[1], a[2], f[0], f[1], f[2]);
    /* the statics stops at 1e-3 N on bodies of >= 0.3 kg: a <= ~3e-3 m/s^2 on the lightest
     * body; the chassis' share of it is far smaller; 1e-3 m/s^2 = 1e-4 g */
    for (int i = 0; i < 3; i++) {
        CHECK_TOL(fabs(a[i]), 1e-3, "%s: a[%d] = %g at rest", what, i, a[i]);
        CHECK_TOL(fabs(la[i]), 1e-3, "%s: la[%d] = %g at rest", what, i, la[i]);
    }
    {
        /* the static toe: the same on both sides, mirrored. A wrong sign on either side
         * makes |tl + tr| = |tl| + |tr|; the vehicles' own asymmetry (steering column and
         * Pitman arm on the left, the engine) is 0.6 % (sedan) and 4.5 % (HMMWV) of that:
         * half of it tells the two apart by a factor of 10 either way */
        struct vd_signal sl = sig(s->m, "front_l.tire.steer"), sr = sig(s->m, "front_r.tire.steer");
        double tl = vd_signal_value(s->m, d, &sl), tr = vd_signal_value(s->m, d, &sr);

        printf("  %-6s static toe: front_l %.5f front_r %.5f rad\n", what, tl, tr);
        CHECK_TOL(fabs(tl + tr), 0.5 * (fabs(tl) + fabs(tr)), "%s: front toe mirrored", what);
    }
    /* the sensor axes are the chassis' (level within the pitch of the statics) */
    CHECK_NEAR(sqrt(vdu_dot3(f, f)), 9.81, 1e-3, "|f| at rest = g");
    CHECK(f[2] > 9.7, "%s: f points up the marker z axis (%g)", what, f[2]);
    /* the statics leaves v = 0 exactly; the first outputs read it: 1e-9 rad/s only catches
     * a rate that does not come from v */
    CHECK_TOL(sqrt(vdu_dot3(w, w)), 1e-9, "%s: gyro at rest", what);
    vd_data_free(d);
    vd_cfg_scenario_free(s);
}

static void test_cornering(void)
{
    struct vd_scenario *s = vd_cfg_load_scenario("config/scenarios/dlc_iso3888.yaml", NULL, stderr);
    struct vd_data *d;
    double v[3][3], a[3], f[3], w[3], la[3], R[9], wb[3], worst = 0.0, amag;
    const double h = 1e-5;
    char err[160];
    int ch, imu;

    CHECK(s != NULL, "load dlc");
    if (!s)
        return;
    d = vd_data_new(s->m);
    CHECK(vd_scenario_start(s, d, err, sizeof(err)) == 0, "dlc start: %s", err);
    /* 2.6 s into the lane change: steering, rolling, yawing */
    for (int k = 0; k < 2600; k++)
        if (vd_step(s->m, d)) {
            CHECK(0, "dlc step %d", k);
            break;
        }
    ch = vd_model_find_body(s->m, "chassis");
    imu = vd_model_find_marker(s->m, "imu");
    /* three states h apart: v at t - h, t, t + h (the step from t - h is taken first) */
    s->m->opt.dt = h;
    for (int k = 0; k < 3; k++) {
        CHECK(vd_outputs(s->m, d) == 0, "outputs");
        read3(s->m, d, "imu", "v", v[k]);
        if (k == 1) {
            read3(s->m, d, "imu", "a", a);
            read3(s->m, d, "imu", "f", f);
            read3(s->m, d, "imu", "w", w);
            read3(s->m, d, "imu", "la", la);
            memcpy(R, d->mR + 9 * imu, sizeof(R));
            memcpy(wb, d->v + 6 * ch + 3, sizeof(wb));
        }
        if (k < 2)
            CHECK(vd_step(s->m, d) == 0, "small step");
    }
    amag = sqrt(vdu_dot3(a, a));
    for (int i = 0; i < 3; i++) {
        const double fd = (v[2][i] - v[0][i]) / (2.0 * h);

        worst = fmax(worst, fabs(fd - a[i]));
    }
    printf("  sedan in the lane change: imu a (%.3f %.3f %.3f) m/s^2, |a - FD| %.2g\n", a[0], a[1],
           a[2], worst);
    /* central difference of the integrated velocity over 2e-5 s: truncation h^2/6 |v'''|
     * (second derivatives of the acceleration, up to ~1e5 m/s^4 through the bushings:
     * 2e-6 m/s^2) plus LSRT2's local error over two steps of h divided by 2h (order 2:
     * C h^3 / h, same size) and rounding u |v| / h = 1e-16 20 / 1e-5 = 2e-10. 1e-3 of |a|
     * + 1e-3 m/s^2 is far above these and far below a wrong frame or a missing term
     * (centripetal w x v: ~|a|) */
    CHECK(amag > 1.0, "cornering: |a| = %g", amag);
    CHECK_TOL(worst, 1e-3 * amag + 1e-3, "imu a vs FD: %g", worst);
    /* gyro = chassis body rates (the marker's axes are the chassis'); accelerometer: the same
     * numbers rotated by the same matrix, a few ulp of rates ~1 rad/s and of accelerations
     * ~10 m/s^2 (3-term products, gamma_3 10 = 7e-15): 1e-12 */
    for (int i = 0; i < 3; i++) {
        double fr[3], g3[3], lr[3];

        for (int j = 0; j < 3; j++)
            g3[j] = a[j] - s->m->gravity[j];
        vdu_mat3t_vec(fr, R, g3);
        vdu_mat3t_vec(lr, R, a);
        CHECK_NEAR(la[i], lr[i], 1e-12, "acceleration without gravity = R^T a");
        CHECK_NEAR(w[i], wb[i], 1e-12, "gyro = chassis body rate");
        CHECK_NEAR(f[i], fr[i], 1e-12, "accelerometer = R^T (a - g)");
    }
    vd_data_free(d);
    vd_cfg_scenario_free(s);
}

/* the steer angles at the design pose (no statics: the wheels' spin axes are the mount's y
 * axis, exactly) and with the steering wheel turned left at rest */
static void test_steer(void)
{
    struct vd_scenario *s = vd_cfg_load_scenario("config/scenarios/rest_flat.yaml", NULL, stderr);
    static const char *const t[4] = {"front_l", "front_r", "rear_l", "rear_r"};
    struct vd_data *d;
    double st0[4];
    char err[160];
    int in;

    CHECK(s != NULL, "load rest_flat");
    if (!s)
        return;
    d = vd_data_new(s->m);
    s->statics = false;
    CHECK(vd_scenario_start(s, d, err, sizeof(err)) == 0, "start at the design pose: %s", err);
    CHECK(vd_outputs(s->m, d) == 0, "outputs");
    for (int i = 0; i < 4; i++) {
        char name[64];
        struct vd_signal sg;

        snprintf(name, sizeof(name), "%s.tire.steer", t[i]);
        sg = sig(s->m, name);
        st0[i] = vd_signal_value(s->m, d, &sg);
        /* atan2(-0, 1) of the exact axes: 0 up to the rounding of the pose's rotation
         * matrices (a few ulp) */
        CHECK_TOL(fabs(st0[i]), 1e-15, "%s steer at the design pose", t[i]);
    }
    /* the steering wheel 0.5 rad to the left, held: both front wheels steer left */
    in = vd_model_find_input(s->m, "steering.angle");
    CHECK(in >= 0, "steering.angle");
    s->statics = true;
    CHECK(vd_scenario_start(s, d, err, sizeof(err)) == 0, "start at rest: %s", err);
    vd_outputs(s->m, d);
    for (int i = 0; i < 2; i++) {
        struct vd_signal sg = sig(s->m, i ? "front_r.tire.steer" : "front_l.tire.steer");

        st0[i] = vd_signal_value(s->m, d, &sg);
    }
    d->input_fn = NULL;
    for (int k = 0; k < 1000 && in >= 0; k++) {
        d->u[in] = 0.5 * fmin(1.0, k / 500.0);
        if (vd_step(s->m, d))
            break;
    }
    vd_outputs(s->m, d);
    for (int i = 0; i < 2; i++) {
        struct vd_signal sg = sig(s->m, i ? "front_r.tire.steer" : "front_l.tire.steer");
        double st = vd_signal_value(s->m, d, &sg);

        printf("  sedan steering wheel 0.5 rad left at rest: %s steer %+.5f rad\n", t[i],
               st - st0[i]);
        CHECK(st - st0[i] > 1e-3, "%s steers left", t[i]);
    }
    vd_data_free(d);
    vd_cfg_scenario_free(s);
}

static void test_joint_residual(void)
{
    struct vd_source *src = NULL;
    struct vd_model *m = vd_cfg_load_model("config/mechanisms/fourbar.yaml", &src, stderr);
    struct vd_data *d;
    const char *const names[4] = {"crank_pivot.residual", "rocker_pivot.residual",
                                  "coupler.residual", "crank_drive.residual"};
    struct vd_signal s[4];
    double g[4], gmax = 0.0;

    CHECK(m != NULL, "load the four-bar");
    if (!m)
        return;
    d = vd_data_new(m);
    d->input_fn = vd_source_eval;
    d->input_ctx = src;
    for (int k = 0; k < 4; k++)
        s[k] = sig(m, names[k]);
    CHECK(vd_outputs(m, d) == 0, "four-bar outputs");
    /* the design pose: positions of O(0.3 m) from angles with 1e-16 relative rounding */
    for (int k = 0; k < 4; k++) {
        g[k] = vd_signal_value(m, d, &s[k]);
        CHECK_TOL(g[k], 1e-14, "design pose: %s %.3g", names[k], g[k]);
    }
    d->r[0] += 1e-3; /* the crank's reference point (at A) 1 mm along x */
    CHECK(vd_outputs(m, d) == 0, "four-bar outputs");
    for (int k = 0; k < 4; k++)
        g[k] = vd_signal_value(m, d, &s[k]);
    /* the pivot's point row reads the offset itself, to rounding (1e-16 x 0.3 m) */
    CHECK_TOL(fabs(g[0] - 1e-3), 1e-15, "crank pivot opened by 1 mm: %.17g", g[0]);
    CHECK_TOL(g[1], 1e-14, "rocker pivot stays closed: %.3g", g[1]);
    /* the rod: (|d|^2 - L^2) / (2 L) with d = C - B moved by -1 mm along x: the rod's x
     * direction cosine times 1 mm, plus the second-order term (1e-3)^2 / (2 L) = 2e-6 */
    {
        const double cx = 0.3 + 0.2 * cos(109.34940784594394 * M_PI / 180),
                     cy = 0.2 * sin(109.34940784594394 * M_PI / 180), bx = 0.0, by = 0.1;
        const double dx = cx - (bx + 1e-3), dy = cy - by;
        const double want = fabs((dx * dx + dy * dy - 0.0625) / 0.5);

        CHECK_TOL(fabs(g[2] - want), 1e-12, "coupler: %.12g, want %.12g", g[2], want);
    }
    d->r[0] -= 1e-3;
    /* a step, then the residual the next step sees at its start */
    CHECK(vd_step(m, d) == 0, "four-bar step");
    CHECK(vd_outputs(m, d) == 0, "four-bar outputs");
    for (int k = 0; k < 4; k++)
        gmax = fmax(gmax, vd_signal_value(m, d, &s[k]));
    CHECK(vd_step(m, d) == 0, "four-bar step");
    CHECK(gmax == d->cres, "residual signals %.17g, the step's start %.17g", gmax, d->cres);
    vd_data_free(d);
    vd_source_free(src);
    vd_model_free(m);
}

int main(void)
{
    test_joint_residual();
    test_rest(NULL, "sedan");
    test_rest("config/vehicles/hmmwv.yaml", "hmmwv");
    test_cornering();
    test_steer();
    return vt_report("test_signals");
}
