/* core/driver.h - a simple closed-loop driver for scenarios: PI speed control on the driven
 * wheels' drive torques and the brakes, and pure-pursuit path following on the steering
 * angle. It adds to the scenario's open-loop input signals. Owns its path and controller
 * state; the model and data it reads are the caller's.
 * vd_driver_init/path: init only. vd_driver_inputs, vd_driver_peek: RT-safe (no allocation,
 * bounded work), usable as d->input_fn and d->input_peek. */
#ifndef VD_CORE_DRIVER_H
#define VD_CORE_DRIVER_H

#include <stdbool.h>

#include "data.h"
#include "model.h"

#define VD_DRIVER_MAX_IN 8 /* drive or brake inputs */

struct vd_driver {
    /* configuration */
    const struct vd_model *m;
    struct vd_data *d;
    vd_input_fn base; /* open-loop signals of the scenario (may be NULL) */
    void *base_ctx;
    int chassis;       /* body whose speed, position and heading are controlled */
    bool speed_on;     /* speed control */
    int nv;            /* speed schedule: target [m/s] linear in time [s], held outside */
    double *vt, *vv;   /* (nv) [s], [m/s]: vd_driver_set_speed */
    double kp, ki;     /* [N m per (m/s)], [N m per m]: wheel torque per speed error */
    double max_drive;  /* [N m] per driven wheel */
    double max_brake;  /* [N m] per braked wheel (brake capacity) */
    double hold_speed; /* [m/s] below this with a zero target the brakes hold */
    int ndrive, nbrake;
    int drive_in[VD_DRIVER_MAX_IN], brake_in[VD_DRIVER_MAX_IN];
    bool path_on;        /* path following */
    int steer_in;        /* steering-wheel angle input [rad] */
    double steer_ratio;  /* steering-wheel angle per road-wheel angle [-] */
    double wheelbase;    /* [m] */
    double preview_time; /* [s] look-ahead time, look-ahead = max(preview_min, time v) */
    double preview_min;  /* [m] */
    double max_steer;    /* [rad] steering-wheel angle limit */
    int npath;
    double *px, *py, *ps; /* (npath) [m] points and their arc lengths: vd_driver_set_path */

    /* state (updated by vd_driver_inputs) */
    double integ;  /* [m] integral of the speed error */
    double t_last; /* [s] */
    int i_near;    /* path point nearest the vehicle */
};

/* init-time (may allocate) */
/* defaults: controller off, gains for a passenger car, no speed schedule or path */
void vd_driver_init(struct vd_driver *dr, const struct vd_model *m, struct vd_data *d, int chassis);
/* the speed schedule: n >= 1 points, sized to n (copied); 0, -EINVAL or -ENOMEM */
int vd_driver_set_speed(struct vd_driver *dr, const double *t, const double *v, int n);
/* the path: n >= 2 points (copied) and their arc lengths; 0, -EINVAL (< 2 points, a repeated
 * point) or -ENOMEM */
int vd_driver_set_path(struct vd_driver *dr, const double *x, const double *y, int n);
/* ISO 3888-1 double lane change centre line for a vehicle of width w [m] from x0 [m], as
 * path points; lateral offset 3.5 m, sections 15/30/25/25/15 m, cosine transitions */
int vd_driver_iso3888_1(struct vd_driver *dr, double x0, double w);
/* release the schedule and the path */
void vd_driver_free(struct vd_driver *dr);

/* RT-safe */
/* the speed schedule's target at t [s]: linear between its points, held outside; 0 without
 * a schedule [m/s] */
double vd_driver_target_speed(const struct vd_driver *dr, double t);
/* pure pursuit: the steering-wheel angle [rad] (limited to max_steer) that steers a vehicle at
 * (x, y) [m] heading psi [rad] with speed v [m/s] onto the path (npath >= 2): the nearest path
 * point searched forward from i_near, the goal point the look-ahead max(preview_min,
 * preview_time |v|) further along the path (past its end, along its last segment),
 * delta = atan(2 wheelbase sin(alpha) / look-ahead) times steer_ratio. update: i_near advances
 * to the nearest point. Reads only the path and the steering settings of dr: the scenario
 * driver calls it on the chassis pose, the virtual ECU (app/ecu.c) on its dead-reckoned one. */
double vd_driver_steer(struct vd_driver *dr, double x, double y, double psi, double v, bool update);
/* u = base signals + the controller's commands at time t from the state in d (vd_input_fn);
 * advances the controller state to t: the fixed-step solvers call it once per stage */
void vd_driver_inputs(void *ctx, double t, double *u);
/* the same commands without touching the controller state (vd_input_fn): for a solver that
 * evaluates trial steps (the CVODE reference) and advances the state with vd_driver_inputs
 * only at the times it accepts */
void vd_driver_peek(void *ctx, double t, double *u);

#endif /* VD_CORE_DRIVER_H */
