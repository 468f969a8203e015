/* core/statics.h - static equilibrium h(r, 0, u) = 0 by Newton's method on the analytic
 * Jacobian (Jr K, dense LU). Init only: iterates a data-dependent number of times. */
#ifndef VD_CORE_STATICS_H
#define VD_CORE_STATICS_H

#include "data.h"
#include "model.h"

/* Move d->r to the static equilibrium for the inputs d->u, with v = 0 and the element states
 * z held. Newton on (lambda M - Jr K), lambda = 10 1/s^2: directions without static
 * stiffness (a vehicle's x, y, yaw, wheel spin) stay put when nothing pushes them. Iterates
 * until the largest generalized force is below tol [N, N m] or maxit iterations. Returns the number
 * of iterations (>= 0), -EDOM (NaN or singular: a body without static support) or
 * -ERANGE (no convergence). On success d->v = 0; the linearization is dropped. With joints
 * (m->nc > 0) the Newton system is the augmented one [lambda M - Jr K, G^T; G, 0] in the form
 * of opt.constraints: the residual is h - G^T mu (mu: the reactions) and the joints are
 * closed to |g| <= 1e-10. */
int vd_equilibrate(const struct vd_model *m, struct vd_data *d, int maxit, double tol);

#endif /* VD_CORE_STATICS_H */
