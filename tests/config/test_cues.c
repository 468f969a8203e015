/* tests/config/test_cues.c - the motion cues at the motion reference point (core/cue.h):
 * - the parked sedan and HMMWV: f = +g up the MRP's z axis, no rotation, no angular
 *   acceleration, velocity 0, the wheels' vertical accelerations 0, the road at 0;
 * - steady cornering (config/scenarios/steady_circle.yaml): f_y = v r plus the lateral
 *   component of gravity the rolled axes see;
 * - braking (config/scenarios/accel_brake.yaml) with the car pitching: every cue against
 *   central differences of the cues logged along the trajectory (steps of 1e-5 s):
 *   attitude -> angular velocity (Cardan rates), angular velocity -> angular acceleration,
 *   velocity -> specific force (transport theorem in the rotating MRP axes), position ->
 *   velocity; the wheel channels against the wheel-centre marker signals;
 * - an MRP at the IMU marker with the IMU's axes equals the IMU's signals (core/signal.h),
 *   and rotated MRP axes rotate every vector. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "config/scenario.h"
#include "core/cue.h"
#include "core/data.h"
#include "core/signal.h"
#include "core/step.h"
#include "core/vdmath.h"

static double sigval(const struct vd_model *m, const struct vd_data *d, const char *name)
{
    struct vd_signal s;

    if (vd_signal_resolve(m, name, &s)) {
        CHECK(0, "resolve %s", name);
        return NAN;
    }
    return vd_signal_value(m, d, &s);
}

static struct vd_scenario *start(const char *path, const char *vehicle, struct vd_data **d)
{
    struct vd_scenario *s = vd_cfg_load_scenario(path, vehicle, stderr);
    char err[160];

    CHECK(s != NULL, "load %s", path);
    if (!s)
        return NULL;
    *d = vd_data_new(s->m);
    CHECK(vd_scenario_start(s, *d, err, sizeof(err)) == 0, "%s: start: %s", path, err);
    return s;
}

static void mrp_at(const struct vd_model *m, const char *marker, struct vd_cue_point *p)
{
    const int k = vd_model_find_marker(m, marker);
    const double zero[3] = {0, 0, 0};
    char err[120];

    CHECK(k >= 0, "marker %s", marker);
    CHECK(vd_cue_point_init(m, p, m->marker[k].body, m->marker[k].pos, zero, err, sizeof(err)) == 0,
          "mrp: %s", err);
}

static void test_parked(const char *vehicle, const char *what)
{
    struct vd_data *d = NULL;
    struct vd_scenario *s = start("config/scenarios/rest_flat.yaml", vehicle, &d);
    struct vd_cue_point p;
    double c[VD_CUE_N];

    if (!s)
        return;
    mrp_at(s->m, "driver_head", &p);
    CHECK(vd_outputs(s->m, d) == 0, "outputs");
    vd_cues(s->m, d, &p, c);
    printf("  %-6s parked: f (%.3g %.3g %.5g) m/s^2, w %.2g rad/s, dw %.2g rad/s^2, head at z "
           "%.3f m\n",
           what, c[VD_CUE_FX], c[VD_CUE_FY], c[VD_CUE_FZ],
           sqrt(vdu_dot3(c + VD_CUE_WX, c + VD_CUE_WX)),
           sqrt(vdu_dot3(c + VD_CUE_DWX, c + VD_CUE_DWX)), c[VD_CUE_PZ]);
    /* the statics stops at 1e-3 N and N m (config/README.md): on the chassis (>= 1000 kg,
     * inertia >= 500 kg m^2) that leaves < 1e-6 m/s^2 and < 2e-6 rad/s^2, at a lever of
     * ~2 m < 1e-5 m/s^2: f is g seen in the MRP axes, which the statics leaves pitched
     * (the sedan by ~1 deg), f = g (-sin(pitch), cos(pitch) sin(roll), cos(pitch) cos(roll))
     * within 1e-3 m/s^2 */
    {
        const double th = c[VD_CUE_PITCH], ph = c[VD_CUE_ROLL];
        const double fg[3] = {-9.81 * sin(th), 9.81 * cos(th) * sin(ph), 9.81 * cos(th) * cos(ph)};

        for (int i = 0; i < 3; i++)
            CHECK_NEAR(c[VD_CUE_FX + i], fg[i], 1e-3, "f = g in the MRP axes");
        CHECK(fabs(th) < 0.05 && fabs(ph) < 0.01, "%s: nearly level", what);
    }
    /* the statics leaves v = 0 exactly: rates and velocities are exact zeros but for the
     * rounding of R^T 0 */
    CHECK_TOL(sqrt(vdu_dot3(c + VD_CUE_WX, c + VD_CUE_WX)), 1e-12, "%s: w = 0", what);
    CHECK_TOL(sqrt(vdu_dot3(c + VD_CUE_VX, c + VD_CUE_VX)), 1e-12, "%s: v = 0", what);
    CHECK_TOL(sqrt(vdu_dot3(c + VD_CUE_DWX, c + VD_CUE_DWX)), 1e-5, "%s: dw = 0", what);
    /* wheels: 1e-3 N on a 15-40 kg wheel: < 1e-4 m/s^2; a flat road at z = 0 */
    for (int i = 0; i < VD_CUE_NWHEEL; i++) {
        CHECK_TOL(fabs(c[VD_CUE_WHEEL_AZ + i]), 1e-3, "%s: wheel %d az", what, i);
        CHECK_TOL(fabs(c[VD_CUE_ROAD_Z + i]), 0.0, "%s: road %d", what, i);
    }
    vd_data_free(d);
    vd_cfg_scenario_free(s);
}

/* the cues at three states h apart around the current one (index 1 the centre) */
static void three(struct vd_scenario *s, struct vd_data *d, const struct vd_cue_point *p, double h,
                  double c[3][VD_CUE_N])
{
    /* the model time is nstep dt: keep it continuous across the change of step */
    d->nstep = llround(d->t / h);
    s->m->opt.dt = h;
    for (int k = 0; k < 3; k++) {
        CHECK(vd_outputs(s->m, d) == 0, "outputs");
        vd_cues(s->m, d, p, c[k]);
        if (k < 2)
            CHECK(vd_step(s->m, d) == 0, "small step");
    }
}

static void test_cornering(void)
{
    struct vd_data *d = NULL;
    struct vd_scenario *s = start("config/scenarios/steady_circle.yaml", NULL, &d);
    struct vd_cue_point p;
    double c[3][VD_CUE_N], dv, vr, grav, err;
    const double h = 1e-5;

    if (!s)
        return;
    mrp_at(s->m, "driver_head", &p);
    for (int k = 0; k < 5500; k++)
        if (vd_step(s->m, d)) {
            CHECK(0, "circle step %d", k);
            break;
        }
    three(s, d, &p, h, c);
    /* in the MRP axes (rotating with w): a = dv/dt + w x v, so
     * f_y = dv_y/dt + (w_z v_x - w_x v_z) + g cos(pitch) sin(roll) */
    dv = (c[2][VD_CUE_VY] - c[0][VD_CUE_VY]) / (2 * h);
    vr = c[1][VD_CUE_VX] * c[1][VD_CUE_WZ];
    grav = 9.81 * cos(c[1][VD_CUE_PITCH]) * sin(c[1][VD_CUE_ROLL]);
    err = fabs(c[1][VD_CUE_FY] - vr - grav);
    printf("  steady circle at %.2f m/s: r %.4f rad/s, f_y %.4f m/s^2, v r %.4f, g sin(roll) "
           "%.4f, dv_y/dt %.2g, v_z w_x %.2g\n",
           c[1][VD_CUE_VX], c[1][VD_CUE_WZ], c[1][VD_CUE_FY], vr, grav, dv,
           c[1][VD_CUE_VZ] * c[1][VD_CUE_WX]);
    CHECK(vr > 2.0, "cornering: v r = %g m/s^2", vr);
    /* steady: what is left of f_y - v r - g sin(roll) are dv_y/dt and v_z w_x, measured
     * (the FD of dv_y/dt is good to h^2 |v'''| ~ 1e-10 m/s^2, C h^2 for LSRT2 likewise);
     * the steady state itself: both < 2 % of v r after 5.5 s of the circle */
    CHECK_TOL(err, fabs(dv) + fabs(c[1][VD_CUE_VZ] * c[1][VD_CUE_WX]) + 1e-6, "f_y = v r: %g", err);
    CHECK_TOL(fabs(dv) + fabs(c[1][VD_CUE_VZ] * c[1][VD_CUE_WX]), 0.02 * vr, "steady state");
    vd_data_free(d);
    vd_cfg_scenario_free(s);
}

static void test_braking(void)
{
    struct vd_data *d = NULL;
    struct vd_scenario *s = start("config/scenarios/accel_brake.yaml", NULL, &d);
    struct vd_cue_point p, pi;
    double c[3][VD_CUE_N], e_att = 0, e_w = 0, e_f = 0, e_p = 0, mag_w = 0, mag_dw = 0, mag_f = 0;
    const double h = 1e-5;
    const double *m1;
    int imu;

    if (!s)
        return;
    mrp_at(s->m, "driver_head", &p);
    /* 10.5 s: braking from 20 m/s since 9 s, the body pitched forward */
    for (int k = 0; k < 10500; k++)
        if (vd_step(s->m, d)) {
            CHECK(0, "braking step %d", k);
            break;
        }
    three(s, d, &p, h, c);
    m1 = c[1];
    {
        const double cr = cos(m1[VD_CUE_ROLL]), sr = sin(m1[VD_CUE_ROLL]);
        const double cp = cos(m1[VD_CUE_PITCH]), tp = tan(m1[VD_CUE_PITCH]);
        /* Cardan z-y'-x'' rates from the angular velocity in the rotated axes */
        const double rate[3] = {m1[VD_CUE_WX] + (sr * m1[VD_CUE_WY] + cr * m1[VD_CUE_WZ]) * tp,
                                cr * m1[VD_CUE_WY] - sr * m1[VD_CUE_WZ],
                                (sr * m1[VD_CUE_WY] + cr * m1[VD_CUE_WZ]) / cp};
        double wxv[3], gm[3], R[9], g[3] = {0, 0, -9.81}, fd[3];

        for (int i = 0; i < 3; i++) {
            const double fda = (c[2][VD_CUE_ROLL + i] - c[0][VD_CUE_ROLL + i]) / (2 * h);

            e_att = fmax(e_att, fabs(fda - rate[i]));
            mag_w = fmax(mag_w, fabs(rate[i]));
            fd[i] = (c[2][VD_CUE_WX + i] - c[0][VD_CUE_WX + i]) / (2 * h);
            e_w = fmax(e_w, fabs(fd[i] - m1[VD_CUE_DWX + i]));
            mag_dw = fmax(mag_dw, fabs(m1[VD_CUE_DWX + i]));
        }
        /* f = dv/dt + w x v - R^T g in the MRP axes */
        vdu_cross3(wxv, m1 + VD_CUE_WX, m1 + VD_CUE_VX);
        vdu_cardan_zyx(R, m1[VD_CUE_YAW], m1[VD_CUE_PITCH], m1[VD_CUE_ROLL]);
        vdu_mat3t_vec(gm, R, g);
        for (int i = 0; i < 3; i++) {
            const double dv = (c[2][VD_CUE_VX + i] - c[0][VD_CUE_VX + i]) / (2 * h);
            const double dp = (c[2][VD_CUE_PX + i] - c[0][VD_CUE_PX + i]) / (2 * h);
            double vg[3];

            e_f = fmax(e_f, fabs(dv + wxv[i] - gm[i] - m1[VD_CUE_FX + i]));
            mag_f = fmax(mag_f, fabs(m1[VD_CUE_FX + i]));
            vdu_mat3_vec(vg, R, m1 + VD_CUE_VX);
            e_p = fmax(e_p, fabs(dp - vg[i]));
        }
        printf("  braking at %.2f m/s: f (%.3f %.3f %.3f) m/s^2, pitch %.3f deg, pitch rate "
               "%.4f rad/s, dw_y %.3f rad/s^2\n",
               m1[VD_CUE_VX], m1[VD_CUE_FX], m1[VD_CUE_FY], m1[VD_CUE_FZ],
               m1[VD_CUE_PITCH] * 180 / M_PI, rate[1], m1[VD_CUE_DWY]);
        printf("  vs central differences: attitude rates %.2g, angular acceleration %.2g, "
               "specific force %.2g, position %.2g\n",
               e_att, e_w, e_f, e_p);
    }
    CHECK(m1[VD_CUE_FX] < -3.0, "braking: f_x = %g", m1[VD_CUE_FX]);
    CHECK(fabs(m1[VD_CUE_PITCH]) > 1e-3, "the body pitches: %g rad", m1[VD_CUE_PITCH]);
    /* central differences over 2h = 2e-5 s: truncation h^2/6 |x'''| (rates: the third
     * derivative of the angles ~ |dw| / 1e-2 s at most through the suspension's ~15 Hz
     * modes: < 1e-6; accelerations: the bushings' ~1e5 m/s^4 jerk rates as in
     * test_signals: 2e-6 m/s^2) plus LSRT2's local error C h^3 / 2h of the same size,
     * plus rounding u |x| / h = 1e-16 * 20 / 1e-5 = 2e-10. A missing term (w x v ~ 0.1 m/s^2
     * at the head, the Cardan coupling ~ pitch x rate, the lever alpha x l) or a wrong frame
     * is of the size of the signal: 1e-3 of the signal + 1e-5 lies between */
    CHECK_TOL(e_att, 1e-3 * mag_w + 1e-5, "attitude rates vs FD: %g", e_att);
    CHECK_TOL(e_w, 1e-3 * mag_dw + 1e-5, "angular acceleration vs FD: %g", e_w);
    CHECK_TOL(e_f, 1e-3 * mag_f + 1e-5, "specific force vs FD: %g", e_f);
    CHECK_TOL(e_p, 1e-3 * 20 + 1e-5, "position vs FD: %g", e_p);

    /* the MRP at the IMU with its axes gives the IMU's signals: the same products in
     * another order, a few ulp of values ~10: 1e-12 */
    imu = vd_model_find_marker(s->m, "imu");
    mrp_at(s->m, "imu", &pi);
    CHECK(vd_outputs(s->m, d) == 0, "outputs");
    {
        double ci[VD_CUE_N];
        static const char *const f[3] = {"imu.fx", "imu.fy", "imu.fz"};
        static const char *const w[3] = {"imu.wx", "imu.wy", "imu.wz"};
        static const char *const v[3] = {"imu.lvx", "imu.lvy", "imu.lvz"};
        static const char *const pp[3] = {"imu.px", "imu.py", "imu.pz"};

        (void)imu;
        vd_cues(s->m, d, &pi, ci);
        for (int i = 0; i < 3; i++) {
            CHECK_NEAR(ci[VD_CUE_FX + i], sigval(s->m, d, f[i]), 1e-12, "f = imu.f");
            CHECK_NEAR(ci[VD_CUE_WX + i], sigval(s->m, d, w[i]), 1e-12, "w = imu.w");
            CHECK_NEAR(ci[VD_CUE_VX + i], sigval(s->m, d, v[i]), 1e-12, "v = imu.lv");
            CHECK_NEAR(ci[VD_CUE_PX + i], sigval(s->m, d, pp[i]), 1e-12, "p = imu.p");
        }
        /* the wheel channels: the wheel-centre markers' global z accelerations */
        for (int i = 0; i < VD_CUE_NWHEEL; i++) {
            char name[VD_NAME_MAX + 8];

            snprintf(name, sizeof(name), "%s.az", s->m->marker[s->m->tire[i].marker].name);
            CHECK_NEAR(ci[VD_CUE_WHEEL_AZ + i], sigval(s->m, d, name), 1e-12, "wheel az");
        }
        /* rotated MRP axes (yaw 90 deg: x' = y, y' = -x): vectors rotate, |f| stays */
        {
            struct vd_cue_point pr = pi;
            double cr[VD_CUE_N];
            char err[80];
            const double rpy[3] = {0, 0, M_PI / 2};

            CHECK(vd_cue_point_init(s->m, &pr, pi.body, pi.pos, rpy, err, sizeof(err)) == 0,
                  "rotated");
            vd_cues(s->m, d, &pr, cr);
            CHECK_NEAR(cr[VD_CUE_FX], ci[VD_CUE_FY], 1e-12, "rotated f_x = f_y");
            CHECK_NEAR(cr[VD_CUE_FY], -ci[VD_CUE_FX], 1e-12, "rotated f_y = -f_x");
            CHECK_NEAR(cr[VD_CUE_WZ], ci[VD_CUE_WZ], 1e-12, "rotated w_z");
            {
                /* the attitude: Rz Ry Rx of the rotated angles = that of the IMU's times
                 * Rz(90 deg) (matrix entries ~1, ~10 flops each: 1e-14) */
                double A1[9], A2[9], Rz[9], A3[9];

                vdu_cardan_zyx(A1, cr[VD_CUE_YAW], cr[VD_CUE_PITCH], cr[VD_CUE_ROLL]);
                vdu_cardan_zyx(A2, ci[VD_CUE_YAW], ci[VD_CUE_PITCH], ci[VD_CUE_ROLL]);
                vdu_cardan_zyx(Rz, M_PI / 2, 0, 0);
                vdu_mat3_mul(A3, A2, Rz);
                for (int i = 0; i < 9; i++)
                    CHECK_NEAR(A1[i], A3[i], 1e-14, "rotated attitude");
            }
        }
    }
    vd_data_free(d);
    vd_cfg_scenario_free(s);
}

static void test_init_errors(void)
{
    struct vd_data *d = NULL;
    struct vd_scenario *s = start("config/scenarios/rest_flat.yaml", NULL, &d);
    struct vd_cue_point p;
    const double pos[3] = {0, 0, 0}, bad[3] = {0, NAN, 0}, big[3] = {4.0, 0, 0};
    char err[120];

    if (!s)
        return;
    CHECK(vd_cue_point_init(s->m, &p, -1, pos, pos, err, sizeof(err)) != 0, "no body");
    CHECK(vd_cue_point_init(s->m, &p, 0, bad, pos, err, sizeof(err)) != 0, "NaN position");
    CHECK(vd_cue_point_init(s->m, &p, 0, pos, big, err, sizeof(err)) != 0, "angle > 180 deg");
    CHECK(vd_cue_point_init(s->m, &p, 0, pos, pos, err, sizeof(err)) == 0 && p.nwheel == 4,
          "4 wheels");
    vd_data_free(d);
    vd_cfg_scenario_free(s);
}

int main(void)
{
    test_parked(NULL, "sedan");
    test_parked("config/vehicles/hmmwv.yaml", "hmmwv");
    test_cornering();
    test_braking();
    test_init_errors();
    return vt_report("test_cues");
}
