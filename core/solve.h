/* core/solve.h - the linear algebra of one linearly implicit step: assembly of the iteration
 * matrix S = cm M - c1 Jv - c2 Jr K (dense column-major into d->S, or the blocks d->F of the
 * structured solve along the topology), its factorization (LAPACK LU or the block LU, the
 * corner clusters optionally on a second thread), the solve, and the condensation of the
 * element states z (tyre relaxation) into the velocity system. Owns nothing: everything
 * lives in d. Init-time: vd_solver_warmup. Everything else RT-safe: fixed operation count,
 * no allocation, no syscalls. */
#ifndef VD_CORE_SOLVE_H
#define VD_CORE_SOLVE_H

#include "data.h"
#include "model.h"

/* init-time */
/* force and check one BLAS thread (-EPERM if that fails), then, on the dense path, warm
 * LAPACK for the model's size on the calling thread (uses d->S); 0 or -errno */
int vd_solver_warmup(const struct vd_model *m, struct vd_data *d);

/* RT-safe */
/* S = cm M - c1 Jv - c2 Jr K into d->S (dense, column-major, leading dimension nq + nc: the
 * rows and columns of the joints zero) from the Jacobian blocks of the
 * last linearization (Jr K = Jp diag(I, Alin)) */
void vd_assemble_dense(const struct vd_model *m, struct vd_data *d, double cm, double c1,
                       double c2);
/* the same into the blocks d->F of the structured solve (m->blu): every pattern block
 * written, the fill slots left as they are (the factorization's first update of each writes
 * it, core/blocklu.h); no nq x nq array is touched */
void vd_assemble_blocks(const struct vd_model *m, struct vd_data *d, double cm, double c1,
                        double c2);
/* factor the assembled matrix by m->opt.linear; 0, or > 0: a singular pivot (block) */
int vd_solve_factor(const struct vd_model *m, struct vd_data *d);
/* x = S^-1 x with the factors of vd_solve_factor */
void vd_solve_apply(const struct vd_model *m, struct vd_data *d, double *x);

/* element states z: per tyre on body b, k_z = Dzi (rz + C k_v,b) with Dz = I - c1 Gz,
 * C = c1 Gv + c2 Gr K; the v-system gets S_bb -= c1 Jz Dzi C (condensed: the states never
 * enter the global matrix) */
/* at a linearization: Dzi, Cz and the condensation into the assembled matrix */
void vd_z_linearize(const struct vd_model *m, struct vd_data *d, double c1, double c2);
/* rz += s (Gr pr + Gv pv + Gz pz), pr in r coordinates (Tlin); pr, pv, pz may be NULL */
void vd_z_g_mul_add(const struct vd_model *m, const struct vd_data *d, double s, const double *pr,
                    const double *pv, const double *pz, double *rz);
/* y_v += s Jz x_z */
void vd_z_jz_mul_add(const struct vd_model *m, const struct vd_data *d, double s, const double *xz,
                     double *y);
/* one stage solve: rv (rhs of the v rows, incl. c1 Jr p) and rz (rhs of the z rows, incl.
 * c1 Gr p) in, k_v in rv and k_z in rz out; with joints (m->nc > 0) also rc (nc), the rhs of
 * G k_v = rc in, the multipliers out (core/csolve.h); else rc is not used (NULL) */
void vd_stage_solve(const struct vd_model *m, struct vd_data *d, double c1, double *rv, double *rz,
                    double *rc);

#endif /* VD_CORE_SOLVE_H */
