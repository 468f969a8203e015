/* tests/core/test_driver.c - the scenario driver (core/driver.h) as a function of the state
 * it reads (one body's r and v in a bare data object):
 *  - vd_driver_peek gives the commands of vd_driver_inputs without touching the controller
 *    state (the speed error's integral, the time of the last update, the nearest path
 *    point), which vd_driver_inputs advances;
 *  - the speed schedule and the path as long as given (no fixed caps);
 *  - stopping: the brake command is continuous in the speed where the hold begins (|v| =
 *    hold_speed with a zero target), and two evaluations of the same state at the same time
 *    give the same command (the integral used to be reset on entering the hold, so the
 *    second evaluation jumped by ki x integral: a chattering mode switch that stopped the
 *    CVODE reference at the end of config/scenarios/hil_default.yaml). */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "core/data.h"
#include "core/driver.h"

enum { IN_DRIVE, IN_BRAKE, IN_STEER, NIN };

static void setup(struct vd_driver *dr, struct vd_data *d, double *r, double *v)
{
    memset(d, 0, sizeof(*d));
    memset(r, 0, 6 * sizeof(double));
    memset(v, 0, 6 * sizeof(double));
    d->r = r;
    d->v = v;
    vd_driver_init(dr, NULL, d, 0);
    dr->speed_on = true;
    /* 1 m/s until 1 s, then 0 */
    CHECK(vd_driver_set_speed(dr, (const double[]){1.0, 1.0 + 1e-9}, (const double[]){1.0, 0.0},
                              2) == 0,
          "speed");
    dr->ndrive = dr->nbrake = 1;
    dr->drive_in[0] = IN_DRIVE;
    dr->brake_in[0] = IN_BRAKE;
    dr->path_on = true;
    dr->steer_in = IN_STEER;
    {
        double x[50], y[50];

        for (int i = 0; i < 50; i++) {
            x[i] = i;
            y[i] = 0.01 * i * i;
        }
        CHECK(vd_driver_set_path(dr, x, y, 50) == 0, "path");
    }
}

static void cmd(void (*fn)(void *, double, double *), struct vd_driver *dr, double t, double *u)
{
    memset(u, 0, NIN * sizeof(double));
    fn(dr, t, u);
}

/* the speed schedule and the path are as long as they are given (a speed table was capped
 * at 32 points, a path at 1024); repeated points and too short ones are refused */
static void test_sizes(void)
{
    struct vd_driver dr;
    struct vd_data d;
    double r[6], v[6], t[500], vs[500], x[5000], y[5000], u[NIN];

    setup(&dr, &d, r, v);
    for (int i = 0; i < 500; i++) {
        t[i] = 0.1 * i;
        vs[i] = i % 2 ? 10.0 : 5.0;
    }
    CHECK(vd_driver_set_speed(&dr, t, vs, 500) == 0 && dr.nv == 500, "500 speed points");
    /* at t = 49.85 s, halfway between points 498 (5 m/s) and 499 (10 m/s): 7.5 m/s */
    v[0] = 7.4;
    cmd(vd_driver_peek, &dr, 49.85, u);
    CHECK(u[IN_DRIVE] > 0.0 && u[IN_BRAKE] == 0.0, "drive towards 7.5 m/s: %g", u[IN_DRIVE]);
    v[0] = 7.6;
    cmd(vd_driver_peek, &dr, 49.85, u);
    CHECK(u[IN_DRIVE] == 0.0 && u[IN_BRAKE] > 0.0, "brake towards 7.5 m/s: %g", u[IN_BRAKE]);
    for (int i = 0; i < 5000; i++) {
        x[i] = i;
        y[i] = 0.0;
    }
    CHECK(vd_driver_set_path(&dr, x, y, 5000) == 0 && dr.npath == 5000 && dr.ps[4999] == 4999.0,
          "5000 path points");
    CHECK(vd_driver_set_path(&dr, x, y, 1) == -EINVAL, "one point");
    x[1] = x[0];
    CHECK(vd_driver_set_path(&dr, x, y, 3) == -EINVAL, "a repeated point");
    CHECK(vd_driver_set_speed(&dr, t, vs, 0) == -EINVAL, "no speed point");
    vd_driver_free(&dr);
    CHECK(!dr.vt && !dr.px && dr.nv == 0 && dr.npath == 0, "freed");
}

static void test_peek(void)
{
    struct vd_driver dr;
    struct vd_data d;
    double r[6], v[6], u1[NIN], u2[NIN];

    setup(&dr, &d, r, v);
    r[0] = 10.3; /* between path points: the nearest point must move from 0 to 10 */
    v[0] = 0.5;
    cmd(vd_driver_inputs, &dr, 0.0, u1);
    cmd(vd_driver_peek, &dr, 0.2, u1);
    CHECK(dr.integ == 0.0 && dr.t_last == 0.0 && dr.i_near == 10,
          "peek changed the state: "
          "integ %g, t_last %g, i_near %d",
          dr.integ, dr.t_last, dr.i_near);
    cmd(vd_driver_inputs, &dr, 0.2, u2);
    for (int k = 0; k < NIN; k++)
        CHECK(u1[k] == u2[k], "peek and inputs differ in input %d: %g %g", k, u1[k], u2[k]);
    /* the integral of the speed error: 0.5 m/s over 0.2 s, one product (exact here) */
    CHECK_NEAR(dr.integ, 0.1, 1e-15, "integral advanced by inputs");
    CHECK(dr.t_last == 0.2, "t_last %g", dr.t_last);
    CHECK(u1[IN_DRIVE] > 0.0 && u1[IN_STEER] != 0.0, "drive %g, steer %g", u1[IN_DRIVE],
          u1[IN_STEER]);
    vd_driver_free(&dr);
}

static void test_hold(void)
{
    struct vd_driver dr;
    struct vd_data d;
    double r[6], v[6], ua[NIN], ub[NIN], uc[NIN];
    const double eps = 1e-9;

    setup(&dr, &d, r, v);
    dr.path_on = false;
    dr.integ = -2.0; /* braking: a negative integral from the deceleration */
    dr.t_last = 2.0;
    /* just above and just below the hold speed, target 0 */
    v[0] = dr.hold_speed + eps;
    cmd(vd_driver_peek, &dr, 2.0, ua);
    v[0] = dr.hold_speed - eps;
    cmd(vd_driver_peek, &dr, 2.0, ub);
    /* continuous: the commands differ by what eps moves them (kp eps; the hold's rise
     * max_brake eps / hold_speed), far below 1e-3 N m */
    CHECK(ua[IN_BRAKE] > 0.0, "braking above the hold speed: %g", ua[IN_BRAKE]);
    CHECK_TOL(fabs(ua[IN_BRAKE] - ub[IN_BRAKE]), 1e-3, "brake %g above, %g below the hold speed",
              ua[IN_BRAKE], ub[IN_BRAKE]);
    /* two evaluations of the same state at the same time: the same command */
    cmd(vd_driver_inputs, &dr, 2.0, ub);
    cmd(vd_driver_inputs, &dr, 2.0, uc);
    CHECK(ub[IN_BRAKE] == uc[IN_BRAKE], "the same state twice: brake %g then %g", ub[IN_BRAKE],
          uc[IN_BRAKE]);
    /* at rest: the full brake */
    v[0] = 0.0;
    cmd(vd_driver_inputs, &dr, 3.0, ua);
    CHECK(ua[IN_BRAKE] == dr.max_brake, "at rest: brake %g of %g", ua[IN_BRAKE], dr.max_brake);
    vd_driver_free(&dr);
}

int main(void)
{
    test_peek();
    test_hold();
    test_sizes();
    return vt_report("test_driver");
}
