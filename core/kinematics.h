/* core/kinematics.h - body and marker kinematics: rotation matrices A = Rz Ry Rx of the Cardan
 * angles, the angle-rate maps E, E^-1 and T = A E, global angular velocities, marker
 * positions, axes and velocities, and r' = K(r) v. Owns nothing: results go into d (A, Ei,
 * T, wg and the marker arrays). All RT-safe: no allocation, no syscalls. */
#ifndef VD_CORE_KINEMATICS_H
#define VD_CORE_KINEMATICS_H

#include <stdbool.h>

#include "data.h"
#include "model.h"

/* RT-safe */
/* kinematics only: d->A, d->Ei, d->T, d->wg and the marker arrays for (r, v); nothing to do
 * when they are already those of (r, v) (d->kin_r, kin_v, kin_ok: the outputs after a step
 * and the next step evaluate the same state; the comparison costs 2 nq doubles, the
 * evaluation 3 sines and cosines per body). The Cardan warning counts evaluated states. */
void vd_kinematics(const struct vd_model *m, struct vd_data *d, const double *r, const double *v);

/* the same with the kinematics of the markers mk[0 .. nmk) only and, with bd, of the bodies
 * bd[0 .. nbd) only (their bodies: vd_eval_bodies; NULL: every body); the others are left as
 * they were: what the force elements read when the caller needs no other marker (the CE step,
 * core/ce.h: the joints' markers and the bodies that carry only joints are not evaluated
 * there); the same numbers, bit for bit */
void vd_kinematics_sel(const struct vd_model *m, struct vd_data *d, const double *r,
                       const double *v, const int *mk, int nmk, const int *bd, int nbd);

/* positions only: d->A and, with markers, the markers' mp, mR, ma at r (Ei, T, wg and the
 * velocities are left as they were); each angle's cosine and sine continue those of the last
 * vd_body_kinematics by a series in the difference (within 3 u of libm's; libm beyond a
 * quarter radian), so it costs no libm call near a full evaluation (the projection after a
 * step); the anchor stays that of the last full evaluation, nothing accumulates */
void vd_kinematics_pos(const struct vd_model *m, struct vd_data *d, const double *r, bool markers);
/* the same for the bodies bd[0 .. nbd) and the markers mk[0 .. nmk) only (the others left as
 * they were; the markers' bodies among bd): the same numbers, bit for bit */
void vd_kinematics_pos_sel(const struct vd_model *m, struct vd_data *d, const double *r,
                           const int *bd, int nbd, const int *mk, int nmk);

/* body kinematics only (A, Ei, T, wg): what K(r) needs */
void vd_body_kinematics(const struct vd_model *m, struct vd_data *d, const double *r,
                        const double *v);

/* Ei only (what K(r) needs; d->A, d->T, d->wg are left as they were) */
void vd_body_kinematics_ei(const struct vd_model *m, struct vd_data *d, const double *r);

/* rdot = K(r) v with the Ei of the last kinematics evaluation */
void vd_kdot(const struct vd_model *m, const double *Ei, const double *v, double *rdot);

/* body kinematic helpers (exposed for the tests) */
void vd_cardan_E(double E[9], double ay, double ax);     /* omega_body = E * angle rates */
void vd_cardan_Einv(double Ei[9], double ay, double ax); /* angle rates = Ei * omega_body */
/* rotation vector theta of R and the inverse left Jacobian J_l^-1(theta) */
void vd_rotvec(double th[3], double Jinv[9], const double R[9]);

#endif /* VD_CORE_KINEMATICS_H */
