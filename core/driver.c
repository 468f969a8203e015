/* core/driver.c - speed and path controllers of the scenario driver. */
#include "driver.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vdmath.h"

void vd_driver_init(struct vd_driver *dr, const struct vd_model *m, struct vd_data *d, int chassis)
{
    memset(dr, 0, sizeof(*dr));
    dr->m = m;
    dr->d = d;
    dr->chassis = chassis;
    /* ~1800 kg car, 2 driven wheels of 0.33 m: 1 (m/s^2)/(m/s) needs 300 N m per wheel */
    dr->kp = 300.0;
    dr->ki = 60.0;
    dr->max_drive = 1500.0;
    dr->max_brake = 3000.0;
    dr->hold_speed = 0.3;
    dr->steer_ratio = 15.0;
    dr->wheelbase = 2.8;
    dr->preview_time = 0.8;
    dr->preview_min = 5.0;
    dr->max_steer = 8.0;
    dr->steer_in = -1;
}

int vd_driver_set_speed(struct vd_driver *dr, const double *t, const double *v, int n)
{
    double *vt, *vv;

    if (n < 1)
        return -EINVAL;
    vt = malloc((size_t)n * sizeof(double));
    vv = malloc((size_t)n * sizeof(double));
    if (!vt || !vv) {
        free(vt);
        free(vv);
        return -ENOMEM;
    }
    memcpy(vt, t, (size_t)n * sizeof(double));
    memcpy(vv, v, (size_t)n * sizeof(double));
    free(dr->vt);
    free(dr->vv);
    dr->vt = vt;
    dr->vv = vv;
    dr->nv = n;
    return 0;
}

int vd_driver_set_path(struct vd_driver *dr, const double *x, const double *y, int n)
{
    double *px, *py, *ps;

    if (n < 2)
        return -EINVAL;
    px = malloc((size_t)n * sizeof(double));
    py = malloc((size_t)n * sizeof(double));
    ps = malloc((size_t)n * sizeof(double));
    if (!px || !py || !ps) {
        free(px);
        free(py);
        free(ps);
        return -ENOMEM;
    }
    memcpy(px, x, (size_t)n * sizeof(double));
    memcpy(py, y, (size_t)n * sizeof(double));
    ps[0] = 0.0;
    for (int i = 1; i < n; i++) {
        const double ds = hypot(px[i] - px[i - 1], py[i] - py[i - 1]);

        if (!(ds > 0.0)) {
            free(px);
            free(py);
            free(ps);
            return -EINVAL;
        }
        ps[i] = ps[i - 1] + ds;
    }
    free(dr->px);
    free(dr->py);
    free(dr->ps);
    dr->px = px;
    dr->py = py;
    dr->ps = ps;
    dr->npath = n;
    dr->i_near = 0;
    return 0;
}

void vd_driver_free(struct vd_driver *dr)
{
    free(dr->vt);
    free(dr->vv);
    free(dr->px);
    free(dr->py);
    free(dr->ps);
    dr->vt = dr->vv = dr->px = dr->py = dr->ps = NULL;
    dr->nv = dr->npath = 0;
}

int vd_driver_iso3888_1(struct vd_driver *dr, double x0, double w)
{
    /* ISO 3888-1: entry lane (15 m), offset 30 m, side lane (25 m), offset 25 m, exit lane
     * (15 m) and a run-out; the side lane is displaced by 3.5 m (centre lines, for lane
     * widths 1.1 w + 0.25 and 1.2 w + 0.25 the centre offset is ~3.5 m for cars) */
    const double sec[6] = {15.0, 30.0, 25.0, 25.0, 15.0, 40.0};
    const double off = 3.5 + 0.0 * w;
    double x = x0, *px, *py;
    int n = 0, cap = 1, rc;

    for (int s = 0; s < 6; s++)
        cap += (int)(sec[s] / 0.5);
    px = malloc((size_t)cap * sizeof(double));
    py = malloc((size_t)cap * sizeof(double));
    if (!px || !py) {
        free(px);
        free(py);
        return -ENOMEM;
    }
    for (int s = 0; s < 6; s++) {
        const int np = (int)(sec[s] / 0.5);

        for (int k = 0; k < np; k++) {
            const double f = (double)k / np;
            double y;

            if (s == 1)
                y = off * 0.5 * (1.0 - cos(M_PI * f));
            else if (s == 2)
                y = off;
            else if (s == 3)
                y = off * 0.5 * (1.0 + cos(M_PI * f));
            else
                y = 0.0;
            px[n] = x + f * sec[s];
            py[n] = y;
            n++;
        }
        x += sec[s];
    }
    px[n] = x;
    py[n] = 0.0;
    rc = vd_driver_set_path(dr, px, py, n + 1);
    free(px);
    free(py);
    return rc;
}

double vd_driver_target_speed(const struct vd_driver *dr, double t)
{
    int i;

    if (dr->nv == 0)
        return 0.0;
    if (t <= dr->vt[0])
        return dr->vv[0];
    for (i = 1; i < dr->nv; i++)
        if (t < dr->vt[i])
            return dr->vv[i - 1] +
                   (dr->vv[i] - dr->vv[i - 1]) * (t - dr->vt[i - 1]) / (dr->vt[i] - dr->vt[i - 1]);
    return dr->vv[dr->nv - 1];
}

double vd_driver_steer(struct vd_driver *dr, double x, double y, double psi, double v, bool update)
{
    const double ld = fmax(dr->preview_min, dr->preview_time * fabs(v));
    double best = hypot(dr->px[dr->i_near] - x, dr->py[dr->i_near] - y);
    double dx, dy, xl, yl, alpha, delta;
    int i = dr->i_near, j;

    /* nearest point: walk forward while it gets closer (bounded by the path) */
    while (i + 1 < dr->npath) {
        const double dn = hypot(dr->px[i + 1] - x, dr->py[i + 1] - y);

        if (dn > best)
            break;
        best = dn;
        i++;
    }
    if (update)
        dr->i_near = i;
    for (j = i; j + 1 < dr->npath && dr->ps[j] - dr->ps[i] < ld; j++)
        ;
    dx = dr->px[j] - x;
    dy = dr->py[j] - y;
    /* past the end the path goes on straight along its last segment */
    if (j == dr->npath - 1 && dr->ps[j] - dr->ps[i] < ld) {
        const double ex = dr->px[j] - dr->px[j - 1], ey = dr->py[j] - dr->py[j - 1];
        const double el = hypot(ex, ey);
        double rest = ld - (dr->ps[j] - dr->ps[i]);

        /* already beyond the end: aim ld ahead of the vehicle's projection */
        if (i == j && el > 0.0)
            rest += fmax(0.0, (-dx * ex - dy * ey) / el);
        if (el > 0.0) {
            dx += rest * ex / el;
            dy += rest * ey / el;
        }
    }
    xl = cos(psi) * dx + sin(psi) * dy;
    yl = -sin(psi) * dx + cos(psi) * dy;
    alpha = atan2(yl, xl);
    delta = atan(2.0 * dr->wheelbase * sin(alpha) / ld);
    return fmax(-dr->max_steer, fmin(dr->max_steer, dr->steer_ratio * delta));
}

/* u = base signals + the commands at t; update: advance the controller state (the speed
 * error's integral, the nearest path point) to t, else leave it as it is */
static void driver_eval(struct vd_driver *dr, double t, double *u, bool update)
{
    const struct vd_data *d = dr->d;
    const double *r = d->r + 6 * dr->chassis, *vel = d->v + 6 * dr->chassis;
    double A[9], head[3], v, psi;

    if (dr->base)
        dr->base(dr->base_ctx, t, u);
    vdu_cardan_zyx(A, r[3], r[4], r[5]);
    head[0] = A[0];
    head[1] = A[3];
    head[2] = A[6];
    v = vdu_dot3(vel, head);
    psi = atan2(A[3], A[0]);

    if (dr->speed_on) {
        const double vt = vd_driver_target_speed(dr, t), e = vt - v;
        double dt = t - dr->t_last;

        if (dt < 0.0)
            dt = 0.0;
        if (update)
            dr->t_last = t;
        if (vt <= 0.01 && fabs(v) < dr->hold_speed) {
            /* stopping: the brake rises to max_brake as the speed goes to 0 and then holds
             * (a step to max_brake at hold_speed would jerk the car). The integral is frozen
             * and its share fades with the speed, so the command is continuous where the
             * hold begins (a reset there made the brake jump and the mode chatter) */
            const double w = fabs(v) / dr->hold_speed, hold = dr->max_brake * (1.0 - w);
            const double b =
                fmax(hold, fmin(fmax(-(dr->kp * e + dr->ki * w * dr->integ), 0.0), dr->max_brake));

            for (int i = 0; i < dr->nbrake; i++)
                u[dr->brake_in[i]] += b;
        } else {
            const double T = dr->kp * e + dr->ki * (dr->integ + e * dt);

            /* integrate unless saturated in the same direction (anti-windup) */
            if (update && !((T > dr->max_drive && e > 0.0) || (T < -dr->max_brake && e < 0.0)))
                dr->integ += e * dt;
            if (T >= 0.0) {
                for (int i = 0; i < dr->ndrive; i++)
                    u[dr->drive_in[i]] += fmin(T, dr->max_drive);
            } else {
                for (int i = 0; i < dr->nbrake; i++)
                    u[dr->brake_in[i]] += fmin(-T, dr->max_brake);
            }
        }
    }
    if (dr->path_on && dr->npath >= 2 && dr->steer_in >= 0)
        u[dr->steer_in] += vd_driver_steer(dr, r[0], r[1], psi, v, update);
}

void vd_driver_inputs(void *ctx, double t, double *u)
{
    driver_eval(ctx, t, u, true);
}

void vd_driver_peek(void *ctx, double t, double *u)
{
    driver_eval(ctx, t, u, false);
}
