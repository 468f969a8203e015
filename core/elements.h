/* core/elements.h - internal to core: the force elements other than bushings and tyres:
 * point-to-point springs, dampers and stops, input forces and torques at markers, and the
 * body terms (gravity, gyroscopic). Forces into h, Jacobian blocks into d->Jp, d->Jvb,
 * d->Ju (elem.h). All RT-safe: no allocation, fixed work per element. */
#ifndef VD_CORE_ELEMENTS_H
#define VD_CORE_ELEMENTS_H

#include <stdbool.h>

#include "data.h"
#include "model.h"

/* RT-safe */
/* gravity of every body: h_t += m g (vd_body_terms_eval without the gyroscopic terms) */
void vd_body_gravity_eval(const struct vd_model *m, double *h);
/* gravity and gyroscopic terms of every body: h_t += m g, h_r -= omega x (I omega) */
void vd_body_terms_eval(const struct vd_model *m, struct vd_data *d, const double *v, double *h,
                        bool jac);
/* point-to-point element e (results into d->p2p_out) */
void vd_p2p_eval(const struct vd_model *m, struct vd_data *d, int e, double *h, bool jac);
/* force or torque input j (not the actuator inputs, which act through bushings) */
void vd_input_eval(const struct vd_model *m, struct vd_data *d, int j, const double *u, double *h,
                   bool jac);

#endif /* VD_CORE_ELEMENTS_H */
