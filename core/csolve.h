/* core/csolve.h - the linear algebra of a model with joints (numerics.md §2.2), after
 * vd_cs_assemble (S) and vd_joint_eval (G). On the structured path (opt.linear structured)
 * the index2 form's augmented system by the block LU along the topology (core/csblock.h),
 * the nullspace form by per-cluster null spaces on the same clusters (core/csnull.h).
 * On the dense path (S with leading dimension nq + nc):
 *   index2:    the augmented system [S G^T; G 0], one LU of size nq + nc;
 *   nullspace: coordinate partitioning G P = [Gu Gw] by an LU of G^T with row pivoting
 *              (Wehage-Haug), R = P [-Gu^-1 Gw; I], the reduced (nq - nc) system R^T S R;
 *              the independent coordinates are re-selected when the pivot ratio of Gu
 *              (min / max |u_kk| of its LU) falls below opt.reselect x its value at the last
 *              selection (each selection counted in d->nselect).
 * All RT-safe: fixed operation count per step (a re-selection adds one LU of G^T), no
 * allocation, LAPACK only through the _work routines. */
#ifndef VD_CORE_CSOLVE_H
#define VD_CORE_CSOLVE_H

#include <stdbool.h>

#include "data.h"
#include "model.h"

/* RT-safe */
/* the structured path: opt.linear structured, analysed (vd_csb_analyze) for the form in
 * opt.constraints; else the dense one, which needs d->S (data made for opt.linear dense) */
bool vd_cs_structured(const struct vd_model *m);
/* S = cm M - c1 Jv - c2 Jr K by opt.linear: vd_assemble_dense or vd_assemble_blocks */
void vd_cs_assemble(const struct vd_model *m, struct vd_data *d, double cm, double c1, double c2);
/* factor for the current S and G; 0, or > 0: singular (the constraints are redundant or
 * the matrix is singular) */
int vd_cs_factor(const struct vd_model *m, struct vd_data *d);
/* S a + G^T l = x, G a = c: a into x (nq), l into c (nc) */
void vd_cs_solve(const struct vd_model *m, struct vd_data *d, double *x, double *c);
/* a correction ds (nq) with G ds = c and no load: the same system with x = 0 (index2: the
 * S-weighted least change; nullspace: on the dependent coordinates only) */
void vd_cs_correct(const struct vd_model *m, struct vd_data *d, const double *c, double *ds);

#endif /* VD_CORE_CSOLVE_H */
