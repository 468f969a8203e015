/* core/joint.h - ideal joints: kinematic constraints g(r, t) = 0 between two markers, their
 * velocity Jacobian G = g_r K (the constraint rows in the velocity coordinates v = (global
 * linear velocity, body-frame angular velocity)) and the acceleration term gamma = (d/dt G) v
 * at fixed v, so that g'' = G v' + gamma (numerics.md §2.2).
 *
 * Every joint is a list of rows, each one of five primitives of the markers i (body 1) and
 * j (body 2), with d = p_i - p_j and the marker axes x, y, z:
 *   point k:      g = e_k . d                     (3 rows: the markers coincide)
 *   perp(a, b):   g = a_i . b_j                   (axis a of marker i normal to axis b of j)
 *   offset(b):    g = b_j . d                     (d normal to axis b of marker j)
 *   distance:     g = (d . d - L^2) / (2 L)       (|d| = L; smooth at d = 0)
 *   angle:        g = wrap(atan2(y_j . x_i, x_j . x_i) - s)   (rotation about z_j)
 * and a driven translation is offset(z) - s, s = offset + gain u[input]. The joints:
 *   spherical 3: point;  revolute 5 (about z): point, perp(x, z), perp(y, z);
 *   universal 4: point, perp(x, y) (the cross of x_i and y_j);  cylindrical 4 (along and
 *   about z): perp(x, z), perp(y, z), offset(x), offset(y);  prismatic 5 (along z):
 *   cylindrical, perp(x, y);  fixed 6: point, perp(x, z), perp(y, z), perp(x, y);
 *   orientation 3 (the markers' axes parallel, translations free: a body that may only
 *   translate): perp(x, z), perp(y, z), perp(x, y);  distance 1;  driven 1 (translation along z_j
 * or rotation about z_j, of marker i relative to marker j; combine it with the prismatic or
 * revolute joint it drives). Rows are stored per row as 12 coefficients: 6 of body 1 (v, omega
 * body) then 6 of body 2 (zeros where a side is ground). All RT-safe: no allocation, fixed work per
 * row. */
#ifndef VD_CORE_JOINT_H
#define VD_CORE_JOINT_H

#include <stdbool.h>

#include "data.h"
#include "model.h"

/* init-time (allocates) */
/* the rank of G at the model's initial state: 0, or -EINVAL with err naming the joint whose
 * row is a combination of earlier rows and the joints of those rows (redundant constraints,
 * e.g. a planar four-bar of four revolutes) and *bad = that joint's index (else -1); called
 * by vd_model_finalize */
int vd_joint_check(const struct vd_model *m, int *bad, char *err, size_t errlen);

/* RT-safe */
/* constraint values into d->jg, rows into d->jG, acceleration terms into d->jgam (if gam),
 * from the marker kinematics of the last vd_kinematics and the inputs u */
void vd_joint_eval(const struct vd_model *m, struct vd_data *d, const double *u, bool gam);
/* the constraint values only (d->jg; d->jG, d->jgam and the marker arrays are left as they
 * were) at positions r, with the body rotations d->A of r (vd_kinematics_pos): the
 * projection */
void vd_joint_g(const struct vd_model *m, struct vd_data *d, const double *r, const double *u);
/* the value s of the driven coordinate of every row (0 for rows that are not driven), at
 * inputs u: the constraint of a driven row is g = c(r) - s */
void vd_joint_target(const struct vd_model *m, const double *u, double *s);
/* y = G x (y: nc, x: nq), with the rows of the last vd_joint_eval */
void vd_joint_G_mul(const struct vd_model *m, const struct vd_data *d, const double *x, double *y);
/* y += G^T l (y: nq, l: nc) */
void vd_joint_Gt_mul_add(const struct vd_model *m, const struct vd_data *d, const double *l,
                         double *y);
/* G into a dense column-major nc x nq array with leading dimension ld (zeros elsewhere) */
void vd_joint_G_dense(const struct vd_model *m, const struct vd_data *d, double *G, int ld);
/* max |g| of the last vd_joint_eval [m or rad] */
double vd_joint_residual(const struct vd_model *m, const struct vd_data *d);

#endif /* VD_CORE_JOINT_H */
