/* core/csblock.h - the structured solve of a model with joints (issue 13, item 3(d)): the
 * augmented system [S G^T; G 0] of the index2 form by the block LU of core/blocklu.h along
 * the topology, so corners are still eliminated before the chassis.
 *
 * Multiplier nodes: the joints are grouped by body pair (joints between the same two bodies
 * share a node while their rows fit in 6), each group one node of the block graph, adjacent
 * to its bodies: its rows couple the same bodies as the bushings they replace. A node's 6x6
 * blocks are (n, a) = the rows over body a's (v, omega), (a, n) its transpose, and the
 * diagonal (n, n) = 0 on the rows, 1 on the padding rows (whose G rows are zero, so their
 * multipliers are 0 and they never mix with the others). The order (blocklu.h): a cluster's
 * bodies and nodes by minimum degree, a node only after its bodies but the root; the pivot
 * of a node is then -G S~^-1 G^T of the eliminated part, nonsingular when the cluster's
 * joints are not redundant with the root held fixed. For joints between bodies that holds
 * whenever the whole model's joints are not redundant (the constraints are invariant under a
 * rigid motion of all bodies, so a combination of rows that vanishes on the cluster's bodies
 * vanishes on the root too; vd_csb_analyze checks it at the initial state all the same);
 * with joints to ground (mechanisms) the ground is the root: no body is held back, and the
 * condition is that the model's joints are not redundant (vd_joint_check).
 *
 * vd_csb_analyze: init only (allocates). vd_csb_factor/solve/correct: RT-safe, fixed
 * operation count, no allocation, no LAPACK. */
#ifndef VD_CORE_CSBLOCK_H
#define VD_CORE_CSBLOCK_H

#include <stddef.h>

#include "data.h"
#include "model.h"

/* init-time (allocates) */
/* m->blk_slot for every model; with joints on the structured path the multiplier nodes and
 * the block LU of the augmented pattern (replacing m->blu). Needs the frozen model (it
 * evaluates G at the initial state); vd_model_finalize calls it, and a caller that changes
 * opt.linear or opt.constraints of a finalized model calls it again before vd_data_new.
 * The nullspace form uses the same nodes, root and clusters (its per-cluster null spaces,
 * core/csnull.h, analysed here too). 0, or -EINVAL / -ENOMEM with a one-line reason. */
int vd_csb_analyze(struct vd_model *m, char *err, size_t errlen);

/* RT-safe */
/* G into the multiplier nodes' blocks of d->F (S assembled by vd_assemble_blocks), then the
 * block LU; 0 or 1 + the position of the first singular pivot block */
int vd_csb_factor(const struct vd_model *m, struct vd_data *d);
/* S a + G^T l = x, G a = c: a into x (nq), l into c (nc) */
void vd_csb_solve(const struct vd_model *m, struct vd_data *d, double *x, double *c);
/* the correction G ds = c with S ds + G^T l = 0 (vd_cs_correct): ds (nq), the multipliers
 * not returned; as vd_csb_solve with x = 0, bit for bit, skipping the structural zeros of
 * its forward pass (vd_blu_solve_kkt0) */
void vd_csb_correct(const struct vd_model *m, struct vd_data *d, const double *c, double *ds);

#endif /* VD_CORE_CSBLOCK_H */
