/* tests/io/test_washout.c - the classical washout (io/washout.h):
 * - the translational filter against its analytic transfer function: a heave sine through
 *   the whole washout (no tilt, no rotation) comes out with the amplitude of the continuous
 *   filter at the Tustin-warped frequency;
 * - a step of f_x: the tilt reaches -asin(k f / g) without ever turning faster than its rate
 *   limit, and the surge returns to 0 (no drift of the washed-out position);
 * - a constant yaw rate: the yaw settles at k w / wr (no drift);
 * - asin saturation (f beyond g) gives finite angles. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "io/washout.h"

static void test_sine(double hz, double rate)
{
    struct vd_washout_cfg c;
    struct vd_washout w;
    const double h = 1.0 / rate, om = 2 * M_PI * hz, A = 1.0;
    const int per = (int)llround(rate / hz), nset = (int)(60.0 * rate);
    double f[3] = {0, 0, 9.81}, wv[3] = {0, 0, 0}, pose[18], sa = 0, ca = 0, amp, ref;

    vd_washout_cfg_default(&c);
    CHECK(vd_washout_init(&w, &c, h) == 0, "init");
    for (int k = 0; k < nset + 10 * per; k++) {
        f[2] = 9.81 + A * sin(om * k * h);
        vd_washout_step(&w, f, wv, pose);
        if (k >= nset) { /* 10 whole periods: the discrete Fourier coefficient at om */
            sa += pose[2] * sin(om * k * h);
            ca += pose[2] * cos(om * k * h);
        }
    }
    amp = 2.0 * sqrt(sa * sa + ca * ca) / (10 * per);
    /* Tustin maps the analytic response at (2/h) tan(om h / 2) to om; the scale k_f */
    ref = c.k_f * A * vd_washout_tr_gain(&w, 2.0 / h * tan(om * h / 2));
    printf("  heave sine %.2f Hz at %.0f Hz: amplitude %.9f m, analytic %.9f m\n", hz, rate, amp,
           ref);
    /* after 60 s the slowest pole (wb = 0.5 rad/s) has decayed to e^-30 = 1e-13 of the
     * start; rounding over 3e4 steps of a stable filter ~1e-12: 1e-9 relative */
    CHECK_TOL(fabs(amp - ref), 1e-9 * ref, "heave amplitude vs the transfer function");
    CHECK(fabs(pose[0]) < 1e-12 && fabs(pose[3]) < 1e-12, "no surge, no roll");
}

static void test_step(void)
{
    struct vd_washout_cfg c;
    struct vd_washout w;
    const double rate = 500, h = 1.0 / rate, fx = 2.0;
    double f[3] = {fx, 0, 9.81}, wv[3] = {0, 0, 0}, pose[18], prev = 0, rmax = 0, xmax = 0;
    double target;

    vd_washout_cfg_default(&c);
    vd_washout_init(&w, &c, h);
    target = -asin(c.k_f * fx / c.g);
    for (int k = 0; k < (int)(60 * rate); k++) {
        vd_washout_step(&w, f, wv, pose);
        rmax = fmax(rmax, fabs(w.tilt[1] - prev) / h);
        prev = w.tilt[1];
        xmax = fmax(xmax, fabs(pose[0]));
    }
    printf("  f_x step %.1f m/s^2: tilt %.4f deg (target %.4f), tilt rate max %.4f deg/s "
           "(limit %.1f), surge peak %.4f m, at 60 s %.2g m; %lu steps rate-limited\n",
           fx, w.tilt[1] * 180 / M_PI, target * 180 / M_PI, rmax * 180 / M_PI,
           c.tilt_rate * 180 / M_PI, xmax, pose[0], w.rate_limited);
    /* the clamp is exact: a difference of two rate-limited values, rounding 1e-16 rad over
     * h = 2e-3 s: 1e-13 rad/s */
    CHECK_TOL(fmax(rmax - c.tilt_rate, 0.0), 1e-12, "tilt rate within its limit");
    CHECK(w.rate_limited > 100, "the limit acted");
    /* settled: the low-pass (5 rad/s, critically damped) and the 2 s of rate-limited travel
     * are over by 10 s: e^-250 left; 1e-9 rad for rounding */
    CHECK_NEAR(w.tilt[1], target, 1e-9, "steady tilt = -asin(k f / g)");
    /* x = s / D(s) a has a zero at s = 0: after 60 s at the slowest pole 0.5 rad/s, e^-25 of
     * a peak < 1 m: 1e-10 m; 1e-9 m */
    CHECK_TOL(fabs(pose[0]), 1e-9, "no drift of the surge: %g m", pose[0]);
    CHECK(xmax > 0.01 && xmax < 1.0, "a surge cue happened, within 1 m: %g", xmax);
}

static void test_yaw(void)
{
    struct vd_washout_cfg c;
    struct vd_washout w;
    const double h = 1.0 / 500;
    double f[3] = {0, 0, 9.81}, wv[3] = {0, 0, 0.3}, pose[18];

    vd_washout_cfg_default(&c);
    vd_washout_init(&w, &c, h);
    for (int k = 0; k < 30 * 500; k++)
        vd_washout_step(&w, f, wv, pose);
    /* 1 / (s + wr) of a constant rate k w: k w / wr; after 30 s e^-75 left */
    CHECK_NEAR(pose[5], c.k_w * 0.3 / c.wr, 1e-12, "yaw settles, no drift");
    /* saturation: f_y beyond g */
    f[1] = 50.0;
    for (int k = 0; k < 5000; k++)
        vd_washout_step(&w, f, wv, pose);
    CHECK(isfinite(pose[3]) && fabs(w.tilt[0]) <= M_PI / 2 + 1e-12, "asin clamped: roll %g",
          pose[3]);
}

int main(void)
{
    struct vd_washout w;
    struct vd_washout_cfg c;

    vd_washout_cfg_default(&c);
    c.wb = 0;
    CHECK(vd_washout_init(&w, &c, 0.002) == -22, "a zero frequency refused");
    test_sine(1.0, 500);
    test_sine(0.2, 250);
    test_step();
    test_yaw();
    return vt_report("test_washout");
}
