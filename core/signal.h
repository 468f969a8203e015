/* core/signal.h - named output signals: body coordinates and velocities, bushing and p2p
 * results, marker positions, velocities, accelerations and sensor readings, inputs, tyres,
 * couplers, joints' constraint residuals. Names are "<element>.<component>";
 * element names may contain dots, so the component is what follows the last dot.
 * vd_signal_resolve/list: init only. vd_signal_value: RT-safe (reads d; call vd_outputs()
 * first so that element results belong to the current state). */
#ifndef VD_CORE_SIGNAL_H
#define VD_CORE_SIGNAL_H

#include <stddef.h>

#include "data.h"
#include "model.h"

enum vd_sig_kind {
    VD_SIG_BODY = 0, /* x y z [m] reference frame origin; az ay ax [rad]; vx vy vz [m/s] CoM;
                        wx wy wz [rad/s] body axes */
    VD_SIG_BUSHING,  /* fx fy fz [N], mx my mz [N m], dx dy dz [m], rx ry rz [rad]: marker j axes */
    VD_SIG_P2P,      /* force [N] (compression > 0), length [m], rate [m/s] */
    VD_SIG_MARKER,   /* px py pz [m], vx vy vz [m/s], ax ay az [m/s^2], global; sensor:
                        fx fy fz [m/s^2] specific force (accelerometer), wx wy wz [rad/s]
                        (gyro), lvx lvy lvz [m/s] velocity, lax lay laz [m/s^2]
                        acceleration without gravity, in marker axes */
    VD_SIG_INPUT,    /* u */
    VD_SIG_TIRE,     /* fx fy fz [N] mz my [N m] kappa alpha gamma vx vsx vsy omega rho
                        deflection px py: enum vd_tire_out (core/tire.h); steer [rad]
                        road-wheel steer angle, to the chassis (left > 0) */
    VD_SIG_COUPLER,  /* force [N or N m], error (coupling error g) */
    VD_SIG_JOINT,    /* residual [m or rad]: max |g| over the joint's constraint rows at the
                        state of the last vd_outputs (the drift that the projection bounds) */
};

struct vd_signal {
    int kind;  /* enum vd_sig_kind */
    int index; /* element index */
    int comp;  /* component */
    int ref;   /* reference body of a relative signal (tyre steer: the chassis), -1 none */
};

/* init-time */
/* 0, or -ENOENT (unknown element or component) */
int vd_signal_resolve(const struct vd_model *m, const char *name, struct vd_signal *s);
/* call fn for every signal name of the model; returns the count */
int vd_signal_list(const struct vd_model *m, void (*fn)(void *ctx, const char *name), void *ctx);

/* RT-safe */
double vd_signal_value(const struct vd_model *m, const struct vd_data *d,
                       const struct vd_signal *s);

#endif /* VD_CORE_SIGNAL_H */
