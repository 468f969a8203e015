/* io/washout.h - classical washout (Reid and Nahon's UTIAS structure) for platforms that take
 * poses, not cues: from the specific force f and the angular velocity w at the MRP (the cue
 * record of core/cue.h) to a platform pose (surge, sway, heave, roll, pitch, yaw) with its
 * rates and accelerations. A pure filter: no I/O, fixed work, RT-safe after init.
 *   translational: a = R(beta) k_f f + g (gravity as the tilted platform sees it), then per
 *     axis the 3rd-order high-pass s^3 / ((s^2 + 2 zeta wn s + wn^2)(s + wb)) twice
 *     integrated, i.e. x = s / ((s^2 + 2 zeta wn s + wn^2)(s + wb)) a: a step of f leaves no
 *     displacement (a zero at s = 0), so the platform never drifts;
 *   tilt coordination: f_x, f_y (scaled) through the low-pass wl^2 / (s^2 + 2 zeta_l wl s +
 *     wl^2), then pitch = -asin(f_x / g), roll = asin(f_y / g) (ISO: pitch + nose down),
 *     the argument clamped to [-1, 1], each angle rate-limited (the perception threshold);
 *   rotational: the Cardan rates of k_w w through the high-pass s / (s + wr), integrated
 *     (1 / (s + wr) of the rates: returns to 0); roll and pitch = tilt + rotational.
 * Every linear filter is the continuous one discretized by the bilinear (Tustin) transform
 * at the send period (no prewarping: the discrete response at w is the analytic one at
 * (2/h) tan(w h / 2)). Defaults: the JAXA set (wn 2.5 rad/s, zeta 1, wl 5 rad/s, zeta_l 1,
 * wr 2.5 rad/s) with wb 0.5 rad/s for the third order, scales 0.5, tilt rate 3 deg/s.
 * Owns nothing. vd_washout_init: init; vd_washout_step: RT-safe. */
#ifndef VD_IO_WASHOUT_H
#define VD_IO_WASHOUT_H

#include <stdbool.h>

struct vd_washout_cfg {
    double k_f, k_w;     /* [-] scales of the specific force and the angular velocity */
    double wn, zeta, wb; /* [rad/s], [-], [rad/s] translational high-pass */
    double wl, zeta_l;   /* [rad/s], [-] tilt low-pass */
    double tilt_rate;    /* [rad/s] tilt rate limit */
    double wr;           /* [rad/s] rotational high-pass */
    double g;            /* [m/s^2] */
};

/* a 3rd-order SISO filter as Tustin-discretized state space: z+ = Ad z + Bd (u + u_prev) */
struct vd_washout_ss {
    double Ad[9], Bd[3];
    double z[3];
    double u_prev;
};

struct vd_washout {
    struct vd_washout_cfg cfg;
    double h;                    /* [s] step */
    double d[3];                 /* denominator s^3 + d2 s^2 + d1 s + d0 of the HP */
    struct vd_washout_ss tr[3];  /* translational, per axis */
    double lp_b[3], lp_a[3];     /* tilt low-pass biquad */
    double lp_z[2][2];           /* its states (f_x, f_y) */
    double tilt[2];              /* [rad] rate-limited tilt roll, pitch */
    double rot[3], rate_prev[3]; /* [rad] rotational channel angles, last Cardan rates */
    double pose_prev[6], vel_prev[6];
    bool primed;
    unsigned long rate_limited; /* steps in which the tilt rate limit acted */
};

void vd_washout_cfg_default(struct vd_washout_cfg *c);
/* 0 or -EINVAL (a parameter out of range: positive frequencies, damping > 0, h > 0) */
int vd_washout_init(struct vd_washout *w, const struct vd_washout_cfg *c, double h);
/* one step: f [m/s^2], w [rad/s] in MRP axes; pose (18): surge sway heave [m], roll pitch yaw
 * [rad], their rates, their accelerations */
void vd_washout_step(struct vd_washout *w, const double f[3], const double wv[3], double *pose);
/* the translational filter's analytic response at angular frequency om from a to x: the
 * magnitude (for the tests) */
double vd_washout_tr_gain(const struct vd_washout *w, double om);

#endif /* VD_IO_WASHOUT_H */
