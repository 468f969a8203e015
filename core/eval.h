/* core/eval.h - the right-hand side of M v' = h(r, v, u), r' = K(r) v and its analytic
 * linearization (LSRT2 suspension paper, Sect. 4): body kinematics, marker kinematics,
 * force elements, body surface forces by the chain rule, gyroscopic, gravity and input
 * forces. Jacobians are produced as 6x6 blocks in body perturbation coordinates:
 *   Jp  = dh/d(x, pi)   (pi: small global rotation),  Jr = Jp * diag(I, T),  T = A E
 *   Jvb = dh/d(v, omega_body) = Jv
 *   Jr K = Jp * diag(I, A)   (K = diag(I, E^-1))
 * The stage runner is eval.c; the stages are kinematics.c, bushing.c, elements.c, tire.c.
 * All functions here are RT-safe: no allocation, no syscalls, fixed work per element. */
#ifndef VD_CORE_EVAL_H
#define VD_CORE_EVAL_H

#include <stdbool.h>

#include "data.h"
#include "kinematics.h" /* the kinematics stage; its declarations used to be here */
#include "model.h"

/* h(r, v, z, u) into h (nq) with z = d->z, z' into d->g; with jac also d->Jp, d->Jvb,
 * d->Ju (the model's input pattern) and the tyre blocks (d->Jz, Gp, Gv, Gz). Kinematics and element
 * results are left in d. 0, or -EDOM when a force, h or z' is not finite (counted). */
int vd_eval(const struct vd_model *m, struct vd_data *d, const double *r, const double *v,
            const double *u, double *h, bool jac);

/* the same, with commit: the evaluation is at an accepted state (the start of a step, or
 * outputs) and updates the discrete element states (unwrapped angles, friction anchors) */
int vd_eval_ex(const struct vd_model *m, struct vd_data *d, const double *r, const double *v,
               const double *z, const double *u, double *h, double *g, bool jac, bool commit);

/* what vd_eval_sel may leave out for a caller that reads h, g and the Jacobian blocks only
 * (the CE step, core/ce.h): the results it does compute are vd_eval_ex's, bit for bit (but
 * for no_gyro's sums, which lack those terms) */
struct vd_eval_skip {
    const int *mk; /* the markers whose kinematics are evaluated (every force element's, */
    int nmk;       /* vd_eval_markers): the others' are left as they were */
    const int *bd; /* the bodies whose kinematics are evaluated (those of mk: vd_eval_bodies), */
    int nbd;       /* NULL: every body's; the others' are left as they were */
    bool no_lin;   /* with jac: A, Ei, T not copied into Alin, Eilin, Tlin (what the products
                      below and vd_jac_dense read: the last copies stay) */
    bool no_gyro;  /* the bodies' gyroscopic terms -omega x (I omega) and their blocks left out
                      of h and Jvb (gravity stays): a tree form's recursion has its own
                      velocity products (h then differs from vd_eval_ex's by those terms) */
    const int *bu; /* the bushings evaluated, increasing (NULL: every one); the others' outputs */
    int nbu;       /* and discrete states are left as they were */
    const int *cp; /* the couplers evaluated (NULL: every one; a coupler's bushings must be */
    int ncp;       /* among bu) */
    const int *pp; /* the point-to-point elements evaluated (NULL: every one) */
    int npp;
};

/* vd_eval_ex, leaving out what skip says (NULL: nothing, vd_eval_ex) */
int vd_eval_sel(const struct vd_model *m, struct vd_data *d, const double *r, const double *v,
                const double *z, const double *u, double *h, double *g, bool jac, bool commit,
                const struct vd_eval_skip *skip);

/* init-time: the markers the force elements read (bushings, point-to-point elements, inputs at
 * markers, tyres: not the joints'), each once in increasing order, into mk (nmarker); their
 * count */
int vd_eval_markers(const struct vd_model *m, int *mk);
/* the same for the bushings bu[0 .. nbu) and point-to-point elements pp[0 .. npp) only (NULL:
 * the first nbu, npp), with the inputs and tyres (the CE step's, core/ce.h) */
int vd_eval_markers_sel(const struct vd_model *m, const int *bu, int nbu, const int *pp, int npp,
                        int *mk);
/* init-time: the bodies of the markers mk[0 .. nmk) (not the ground), each once in increasing
 * order, into bd (nbody); their count. The couplers act through their bushings' markers */
int vd_eval_bodies(const struct vd_model *m, const int *mk, int nmk, int *bd);

/* y += Jr x (x in r coordinates), with the blocks of d and the frozen Tlin */
void vd_jr_mul_add(const struct vd_model *m, const struct vd_data *d, const double *x, double *y,
                   double *work);
/* y += Jv x */
void vd_jv_mul_add(const struct vd_model *m, const struct vd_data *d, const double *x, double *y);
/* y += Jr xr + Jv xv in one pass over the blocks (work: nq) */
void vd_jrv_mul_add(const struct vd_model *m, const struct vd_data *d, const double *xr,
                    const double *xv, double *y, double *work);

/* y += Ju (u1 - u0) */
void vd_ju_mul_add(const struct vd_model *m, const struct vd_data *d, const double *u1,
                   const double *u0, double *y);

/* init-time/test helpers (no allocation, but O(nq^2)): dense Jr, Jv (nq x nq) and
 * Ju (nq x ninput), column-major, from the blocks of the last jac evaluation and the
 * kinematics stored with it (Tlin). Any of the outputs may be NULL. */
void vd_jac_dense(const struct vd_model *m, const struct vd_data *d, double *Jr, double *Jv,
                  double *Ju);

#endif /* VD_CORE_EVAL_H */
