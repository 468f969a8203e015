/* core/treeform.h - what the two tree forms of a joint vehicle (CE, core/ce.h; TA, core/ta.h)
 * share: the model's bodies as tree bodies, rotations about an axis, a tree body's Jacobian
 * and the tyre states condensed onto the tree coordinates. Init-time helpers (vd_tf_com_pose,
 * vd_tf_tbody) and RT-safe ones (the rest: no allocation, fixed work). */
#ifndef VD_CORE_TREEFORM_H
#define VD_CORE_TREEFORM_H

#include <stdbool.h>
#include <stdint.h>

#include "data.h"
#include "model.h"
#include "tree.h"

/* the CoM pose of model body b at the model's initial state: rotation A (body -> global,
 * row-major), position x */
void vd_tf_com_pose(const struct vd_model *m, int b, double A[9], double x[3]);
/* model body b's mass properties as a tree body, A0, x0 relative to the CoM frame of model
 * body p */
void vd_tf_tbody(const struct vd_model *m, int b, int p, struct vd_tree_body *tb);
/* rotation by angle ang about the unit axis a (Rodrigues), row-major */
void vd_tf_axrot(double R[9], const double a[3], double ang);
/* the angle of the rotation R (row-major) about the unit axis a (R = Rot(a, angle)) */
double vd_tf_axis_angle(const double R[9], const double a[3]);
/* Jb (6 x n, column-major): the (dx, dpi) of tree body tb per unit of each coordinate: the
 * columns of every node on its path to the root (global Plücker at the origin) carried to
 * its CoM */
void vd_tf_body_jac(const struct vd_tree *t, const struct vd_tree_data *td, int tb, double *Jb);
/* the tyre states of d (the model's Jz, Gp, Gv, Gz of its last evaluation) condensed per tyre
 * onto the n tree coordinates (ce.h's form): for tyre k on tree body model_tb[its body],
 * Jzt (n x 2) = df/dz, Gq, Gu (2 x n) = dg/dq K, dg/du, Dz = (1 - c1 Gz)^-1, and
 * S -= c1 Jzt Dz (c1 Gu + c1^2 Gq). With rhs (the LIE, c1 = h): rhs += h Jzt Dz (h g +
 * h^2 Gq u) for the tree velocities u and the tyre-state rates gz. Jzt, Gq, Gu: (2 n ntire),
 * Dz (4 ntire), Jb (6 n) work. 0, or -EDOM where 1 - c1 Gz is singular */
int vd_tf_tyres(const struct vd_model *m, const struct vd_tree *t, const struct vd_tree_data *td,
                const int *model_tb, const struct vd_data *d, double c1, const double *u,
                const double *gz, double *S, double *rhs, double *Jb, double *Jzt, double *Gq,
                double *Gu, double *Dz);
/* the model's applied forces hm (model order) into h in tree order (model_tb) without the
 * gyroscopic terms (the tree's recursion has its own velocity products; gravity stays in h);
 * with blk also their block out of d->Jvb (the Jacobian blocks' diagonal) */
void vd_tf_tree_h(const struct vd_model *m, const int *model_tb, const double *hm, double *h,
                  struct vd_data *d, bool blk);
/* hm (model order, evaluated without the gyroscopic terms: vd_eval_skip's no_gyro) into h in
 * tree order: vd_tf_tree_h's result but for the rounding of its - g + g */
void vd_tf_tree_h_perm(const struct vd_model *m, const int *model_tb, const double *hm, double *h);
/* y = K(q)^-1 x: the free root's angle rows from Cardan rates to body angular velocity (every
 * other node has q' = u) */
void vd_tf_kinv(const struct vd_tree *t, const double *q, const double *x, double *y);
/* the tyre states' slopes after a stage's dv (N tree coordinates), with vd_tf_tyres's
 * condensation: dz = Dz (rz + (c1 Gu + c1^2 Gq) dv) per tyre, into dz at each tyre's zoff */
void vd_tf_tyre_dz(const struct vd_model *m, int N, const double *Gq, const double *Gu,
                   const double *Dz, const double *rz, double c1, const double *dv, double *dz);
/* a stage's right-hand side in the N tree coordinates with vd_tf_tyres's condensation
 * (c1 = dt gamma): x = Mphi + Jq w + Ju sv + Jzt (sz + c1 Dz rz) with rz = g + Gq w + Gu sv +
 * Gz sz per tyre (kept in rz, 2 ntire, for vd_tf_tyre_dz); Jq, Ju (N x N) of td, Gz of d;
 * sv, sz NULL: zero */
void vd_tf_stage_rhs(const struct vd_model *m, const struct vd_tree_data *td,
                     const struct vd_data *d, int N, const double *Gq, const double *Gu,
                     const double *Dz, const double *Jzt, double c1, const double *Mphi,
                     const double *w, const double *sv, const double *sz, const double *g,
                     double *rz, double *x);
/* the LIE's tyre states after its solve du (N tree coordinates, step dt): z += Dz (dt gz +
 * dt^2 Gq u + (dt Gu + dt^2 Gq) du) per tyre, u the velocities at the step's start */
void vd_tf_lie_dz(const struct vd_model *m, int N, const double *Gq, const double *Gu,
                  const double *Dz, double dt, const double *u, const double *du, const double *gz,
                  double *z);
/* CLOCK_MONOTONIC in ns (the vDSO: no syscall), for the stage profile */
int64_t vd_tf_now_ns(void);

#endif /* VD_CORE_TREEFORM_H */
