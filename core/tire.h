/* core/tire.h - the tyre element: single contact point on the road (core/model.h vd_road),
 * Magic Formula forces (core/tire_mf.h) with first-order relaxation, low-speed carcass
 * damping and rolling resistance, applied to the wheel body; analytic Jacobians w.r.t. the
 * wheel's coordinates and the two relaxation states.
 *
 * Contact geometry (wheel centre c, spin axis a = marker x axis, road normal n at (c_x, c_y)):
 *   e_x = a x n / |a x n| (heading in the road plane), e_y = n x e_x, e_r = a x e_x (down in
 *   the wheel plane); loaded radius rho = (c_z - z_road) n_z / |a x n| (distance from c to
 *   the road plane along e_r); contact point P = c + rho e_r; deflection = r0 - rho.
 *   Fz = max(0, kz deflection - cz n_z dH/dt), H = c_z - z_road.
 *   Inclination gamma = asin(a . n) (ISO: right-hand rotation about e_x).
 * Slip (contact point velocity ~ wheel-centre velocity c'): Vx = c'.e_x, Vsy = c'.e_y,
 *   Omega = w . a, effective rolling radius Re = (2 r0 + rho)/3 (deflection / 3),
 *   Vsx = Vx - Omega Re.
 * Relaxation (Pacejka 2006 §7.2, single contact point): carcass deflections u, w with
 *   u' = Vsx - |Vx|~ u / sigma_kappa,  w' = Vsy - |Vx|~ w / sigma_alpha,
 *   kappa' = -u / sigma_kappa, alpha' = atan(w / sigma_alpha) (steady: kappa, alpha of MF).
 *   |Vx|~ = Vx^2 / sqrt(Vx^2 + eps^2) is smooth and exactly 0 at standstill, so a standing
 *   tyre is a spring (no creep) and holds its deflection.
 * Forces: Fx = MF_x - c_low w(Vx) Vsx, Fy = MF_y - c_low w(Vx) Vsy, w = 1/(1 + (Vx/v_low)^2)
 *   (carcass damping that matters only near standstill); Mz from MF faded out at standstill
 *   (x Vx^2 / (Vx^2 + v_low^2): MF's trail and residual torque belong to a rolling tyre);
 *   TMeasy (core/tire_tmeasy.h) also gets gamma, Omega, Re and the turning rate wn = w . n
 *   for its camber force and bore torque; the bore torque is not faded (at rest it is what
 *   resists steering);
 *   My rolling resistance (PAC2002 QSY1..4, faded to 0 at standstill). Force F = Fx e_x + Fy e_y +
 * Fz n and torque Mz n + My a act on the wheel body at P. Jacobian simplification: the road is
 * locally a plane for the derivatives (its curvature terms are dropped); exact on planes and
 * grades, a W-method approximation on bumps. RT-safe. */
#ifndef VD_CORE_TIRE_H
#define VD_CORE_TIRE_H

#include <stdbool.h>

#include "data.h"
#include "model.h"

/* per-tyre results in d->tire_out */
enum vd_tire_out {
    VD_TO_FX = 0, /* [N] longitudinal force (contact frame) */
    VD_TO_FY,     /* [N] lateral force */
    VD_TO_FZ,     /* [N] vertical load */
    VD_TO_MZ,     /* [N m] aligning moment */
    VD_TO_MY,     /* [N m] rolling resistance moment */
    VD_TO_KAPPA,  /* [-] transient longitudinal slip */
    VD_TO_ALPHA,  /* [rad] transient slip angle */
    VD_TO_GAMMA,  /* [rad] inclination */
    VD_TO_VX,     /* [m/s] forward speed of the wheel centre in the road plane */
    VD_TO_VSX,    /* [m/s] longitudinal slip velocity */
    VD_TO_VSY,    /* [m/s] lateral slip velocity */
    VD_TO_OMEGA,  /* [rad/s] wheel spin rate */
    VD_TO_RHO,    /* [m] loaded radius */
    VD_TO_DEFL,   /* [m] vertical deflection */
    VD_TO_PX,     /* [m] contact point x */
    VD_TO_PY,     /* [m] contact point y */
    VD_TO_ROADZ,  /* [m] road height under the wheel centre (enveloping: the effective one) */
    VD_TO_ROADSL, /* [-] road slope along the heading (enveloping: the tandem slope tan beta) */
    VD_TIRE_NOUT
};

/* [m/s] smoothing of |Vx| in the relaxation equations: |Vx|~ = Vx^2 / sqrt(Vx^2 + eps^2) is
 * within 1 % of |Vx| above 7 eps; much larger values leave rolling at a few mm/s without
 * relaxation (the carcass then acts as a spring to the ground and the car oscillates) */
#define VD_TIRE_VEPS 0.005

/* evaluate tyre t at the kinematics of d and the states z: adds its generalized forces to h
 * and writes z' into g (rows zoff, zoff+1); with jac also the wheel's diagonal Jacobian
 * blocks and d->Jz, d->Gp, d->Gv, d->Gz of the tyre */
void vd_tire_eval(const struct vd_model *m, struct vd_data *d, int t, const double *z, double *h,
                  double *g, bool jac);

/* the force model of tyre t, for messages: "MF 5.2" */
const char *vd_tire_model_name(const struct vd_model *m, int t);

#endif /* VD_CORE_TIRE_H */
