/* core/tire_env.h - the effective road under a tyre that envelops short obstacles: the
 * tandem model with elliptical cams of MF-Swift (A.J.C. Schmeitz, "A semi-empirical
 * three-dimensional model of the pneumatic tyre rolling over arbitrarily uneven road
 * surfaces", PhD thesis, TU Delft 2004, ch. 4; A.J.C. Schmeitz, I.J.M. Besselink, S.T.H.
 * Jansen, "TNO MF-SWIFT", Vehicle System Dynamics 45 suppl. (2007) 121-137; H.B. Pacejka,
 * Tire and Vehicle Dynamics, 3rd ed. 2012, §10.2). Owns nothing.
 * vd_tire_env_init: init only. vd_tire_env_road: RT-safe, no allocation, fixed operation
 * count (the number of road samples is fixed at init).
 *
 * Geometry (in the vertical plane through the wheel centre along its heading h, the
 * horizontal projection of the wheel's forward axis; s is the distance along h):
 * - The cam is the lower half of the super-ellipse (x/ae)^ce + (z/be)^ce = 1, ae = ELLIPS_LENGTH
 *   R0, be = ELLIPS_HEIGHT R0, ce = ELLIPS_ORDER. Its height above its lowest point at
 *   distance xi from it is off(xi) = be (1 - (1 - |xi/ae|^ce)^(1/ce)).
 * - The road is sampled on a grid fixed to the road along the line (s_k = k ds, ds the road
 *   increment) and is linear between the samples. A cam at s_cam rests on it:
 *     z_cam(s_cam) = max over s of [w(s) - off(s - s_cam)],
 *   the maximum taken over the grid points and, inside a road segment of slope g whose ends
 *   bracket the tangent point (off'(xi) = g), at that point, in closed form:
 *     max_xi [g xi - off(xi)] = ((|g| ae)^ce' + be^ce')^(1/ce') - be,  ce' = ce/(ce - 1)
 *   (the support function of the super-ellipse: the dual norm). The cam spans |xi| <= 0.99 ae
 *   (off there is 0.84 be for ce = 1.8: obstacles that high meet the rim first).
 * - Two cams a tandem base ls = ELLIPS_SHIFT a apart (a the half contact length at FNOMIN,
 *   a = R0 (Q_RA2 rho/R0 + Q_RA1 sqrt(rho/R0)), rho = FNOMIN/kz, MF 6.1's contact length):
 *     effective slope  tan(beta) = (z_f - z_r)/ls,  effective curvature  (z_f' - z_r')/ls,
 *     effective height  w_e = (z_f + z_r)/2 - rise(tan beta),
 *   rise(g) = ((|g| ae)^ce' + be^ce')^(1/ce') - be being how far a cam rests above a plane of
 *   slope g (so that on any plane w_e is the plane's height under the wheel centre).
 * - Derivatives: by the envelope theorem z_cam' = off'(s_k - s_cam) at a maximizing grid point
 *   and g inside a segment; across the line, the road's own lateral gradient at the maximizing
 *   point(s); rise'(g) = xi*(g), the tangent point. The gradient of w_e is therefore exact
 *   (but at the switches of the maximizing point, where it has kinks); the slope's dependence on
 * the heading is not carried (the roads vary along x). On a plane the effective road is the plane
 * (height exact; the slope exact). */
#ifndef VD_CORE_TIRE_ENV_H
#define VD_CORE_TIRE_ENV_H

#include "model.h"

/* init-time */
/* fill e from the ellipse factors (ELLIPS_LENGTH, _HEIGHT, _ORDER, _SHIFT), the road increment
 * ds [m] and the tyre (R0, vertical stiffness kz, FNOMIN, Q_RA1, Q_RA2); 0, or -EINVAL with
 * the reason in err (a factor out of range, more than VD_ENV_NMAX road samples) */
int vd_tire_env_init(struct vd_tire_env *e, double length, double height, double order,
                     double shift, double ds, double r0, double kz, double fnomin, double qra1,
                     double qra2, char *err, size_t errlen);

/* RT-safe */
/* effective road at the horizontal position c (x, y) for heading h (unit, horizontal): its
 * height (returned), grad = d w_e/d(x, y), slope = the effective plane's gradient (the tandem
 * slope along h, the lateral one across it), rate = d((z_f + z_r)/2)/d(x, y) and *curv =
 * d tan(beta)/ds. The tyre's deflection is (c_z - w_e) cos(beta) ~ c_z - (z_f + z_r)/2 to
 * second order in beta, so its rate (the vertical damping's) follows `rate`: the two
 * second-order terms change fast with the slope where a cam first meets an edge, and
 * cancel in the deflection but not in grad alone. Equal to grad on planes. */
double vd_tire_env_road(const struct vd_model *m, const struct vd_tire_env *e, const double c[2],
                        const double h[2], double grad[2], double slope[2], double rate[2],
                        double *curv);

#endif /* VD_CORE_TIRE_ENV_H */
