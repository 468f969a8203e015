/* core/cue.h - motion cues at a motion reference point (MRP): a point and a set of axes fixed
 * on one body (the chassis), by default the driver's head. From the state and the forces of
 * the last vd_outputs (d->h), analytically, as the marker sensors of core/signal.h:
 *   a_P   = h_lin / m + alpha x l + w x (w x l)     (l = CoM -> MRP, global)
 *   f     = R^T (a_P - g)                            specific force, MRP axes (+g up at rest)
 *   w_m   = R^T w,  dw_m = R^T alpha                 (alpha = A I^-1 h_rot, h_rot holding -w x I w)
 *   v_m   = R^T (v + w x l)
 * with R = A Rm the MRP axes in global axes (A the body's, Rm the MRP's in body axes), the
 * attitude as Cardan z-y'-x'' angles of R (yaw continuous with the body's unwrapped az), and
 * per wheel the vertical acceleration of the wheel centre (global z, gravity not included)
 * and the road height under the tyre's contact point (road feel / rumble channels).
 * Owns nothing. vd_cue_point_init: init only. vd_cues: RT-safe (fixed work: two 3x3 solves'
 * worth of products and four wheel points; no allocation, no branches on the state). */
#ifndef VD_CORE_CUE_H
#define VD_CORE_CUE_H

#include <stddef.h>

#include "data.h"
#include "model.h"

#define VD_CUE_NWHEEL 4

/* the cue channels, in this order everywhere (the stream, the recording, the plots) */
enum vd_cue_ch {
    VD_CUE_FX = 0, /* [m/s^2] specific force, MRP axes (x forward, y left, z up) */
    VD_CUE_FY,
    VD_CUE_FZ,
    VD_CUE_WX, /* [rad/s] angular velocity, MRP axes */
    VD_CUE_WY,
    VD_CUE_WZ,
    VD_CUE_DWX, /* [rad/s^2] angular acceleration, MRP axes */
    VD_CUE_DWY,
    VD_CUE_DWZ,
    VD_CUE_ROLL, /* [rad] Cardan z-y'-x'' angles of the MRP axes: roll (x''), pitch (y'), */
    VD_CUE_PITCH,
    VD_CUE_YAW, /* yaw (z), unwrapped */
    VD_CUE_VX,  /* [m/s] velocity of the MRP, MRP axes */
    VD_CUE_VY,
    VD_CUE_VZ,
    VD_CUE_PX, /* [m] position of the MRP, global */
    VD_CUE_PY,
    VD_CUE_PZ,
    VD_CUE_WHEEL_AZ, /* [m/s^2] (4) vertical acceleration of wheel centres FL FR RL RR */
    VD_CUE_ROAD_Z = VD_CUE_WHEEL_AZ + VD_CUE_NWHEEL, /* [m] (4) road height under them */
    VD_CUE_N = VD_CUE_ROAD_Z + VD_CUE_NWHEEL
};

/* channel names ("fx", ..., "wheel_az0", "road_z3") and units */
extern const char *const vd_cue_name[VD_CUE_N];
extern const char *const vd_cue_unit[VD_CUE_N];

struct vd_cue_point {
    int body;      /* body the MRP is fixed on */
    double pos[3]; /* [m] MRP in the body's reference frame (as marker positions) */
    double s[3];   /* [m] derived: CoM -> MRP, body axes */
    double rot[9]; /* MRP axes in body axes (MRP -> body), row-major */
    int nwheel;    /* tyres feeding the wheel channels (the rest read 0) */
    int tire[VD_CUE_NWHEEL];
};

/* init-time */
/* an MRP on body `body` at pos (body reference frame) with axes rotated by the Cardan angles
 * rpy = (roll, pitch, yaw) [rad] from the body's; the wheel channels from the model's first
 * four tyres (their order in the model: front left, front right, rear left, rear right on the
 * shipped vehicles). 0 or -EINVAL with the reason in err. */
int vd_cue_point_init(const struct vd_model *m, struct vd_cue_point *p, int body,
                      const double pos[3], const double rpy[3], char *err, size_t errlen);

/* RT-safe */
/* the cues of the state of d (call vd_outputs first: d->h, the kinematics and the tyre
 * outputs must belong to it) into out (VD_CUE_N) */
void vd_cues(const struct vd_model *m, const struct vd_data *d, const struct vd_cue_point *p,
             double *out);

#endif /* VD_CORE_CUE_H */
