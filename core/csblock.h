/* core/csblock.h - the structured solve of a model with joints (issue 13, item 3(d)): the
 * augmented system [S G^T; G 0] of the index2 form by the block LU of core/blocklu.h along
 * the topology, so corners are still eliminated before the chassis.
 *
 * Multiplier nodes: the joints are grouped by body pair (joints between the same two bodies
 * share a node while their rows fit in 6), each group one node of the block graph, adjacent
 * to its bodies: its rows couple the same bodies as the bushings they replace. A node's 6x6
 * blocks are (n, a) = the rows over body a's (v, omega), (a, n) its transpose, and the
 * diagonal (n, n) = 0 on the rows, 1 on the padding rows (whose G rows are zero, so their
 * multipliers are 0 and they never mix with the others).
 *
 * The order of the index2 form: leaf-first (Baraff 1996, "Linear-time dynamics using Lagrange
 * multipliers"), generalized to the closed loops of a suspension. Inside each cluster (the
 * components without the root, as before) minimum degree on the block graph, where a body
 * is always eligible and a multiplier node as soon as its pivot is nonsingular (below): for
 * a tree of bodies and joints that is Baraff's order (a leaf body, then its joint's node, then
 * the parent body, every step of degree <= 2: no fill), and a loop costs one fill edge per
 * element of its closing path instead of waiting for all its bodies (the HMMWV 446 block
 * updates and 146 fill blocks instead of 524 / 174, the sedan 718 / 232 instead of 1540 /
 * 400). The nullspace form keeps the earlier order (every node after all its bodies but the
 * root): core/csnull.h builds its per-cluster null spaces on it.
 *
 * Why every pivot is nonsingular. Eliminating in order, the pivot at position k is
 * nonsingular iff the leading principal part up to k is (the pivot's determinant is the ratio
 * of the two leading minors). That part is, up to a symmetric permutation, the KKT matrix
 * [S_EE G_E^T; G_E 0] of the eliminated bodies E and the eliminated nodes' rows restricted to
 * E's columns (the root and the ground held). (1) S_EE: the body blocks of S = M - c1 Jv -
 * c2 Jr K have a positive definite symmetric part (M SPD, the stiffness and damping parts
 * congruences of positive semi-definite ones, the rest small: core/blocklu.h), and so does
 * every principal part of S. (2) If sym(S_EE) is positive definite, [S_EE G_E^T; G_E 0] is
 * nonsingular iff G_E has full row rank: from S x + G^T y = 0, G x = 0 follows x^T S x =
 * -(G x)^T y = 0, so x = 0, then G^T y = 0 and y = 0 iff G_E^T has no null space. So a body
 * pivot is always nonsingular (adding columns keeps G_E's rank), and a node may follow when
 * its rows and the eliminated ones are independent on the eliminated bodies' columns. For a
 * tree that holds structurally: a joint's rows are independent on either body's columns alone
 * (the constraints depend on the relative pose only, so the rows over body b are those over
 * body a times the rigid transformation between them: the same rank), and in leaf-first
 * order G_E is block triangular with those blocks on its diagonal. A loop-closing node needs
 * the bodies of its loop: vd_csb_analyze admits a node only when the rows are independent
 * with a margin (CSB_ORDER_TOL, csblock.c) at the initial state, the same kind of check as the
 * redundancy check at load (vd_joint_check: the model's rows independent; root_valid below:
 * each cluster's rows independent with the root held). That check guarantees full rank at
 * the load pose; along a run the rank of a prefix can only drop where its sub-mechanism (the
 * eliminated bodies moving with the others held) passes a singular configuration, which a
 * suspension within its travel does not (test_csblock checks the prefixes' singular values,
 * the smallest sigma_min / sigma_max over the prefixes is 0.03 on the HMMWV, 0.016 on the
 * sedan, and the solve against LAPACK at states along the runs). Partial pivoting is still needed
 * inside the 6x6 pivot blocks: a body block mixes rows of masses and of inertias, a node's Schur
 * complement -G S~^-1 G^T rows of positions (unit) and of angles (lever arms); between blocks none
 * is needed for nonsingularity (above), and the growth of the block elimination is what
 * test_csblock's error bound, from the factors of this order, measures against LAPACK.
 * The root is the chassis when each cluster's rows are independent with it held (root_valid,
 * which follows from the model's non-redundancy for joints between bodies: the constraints
 * are invariant under a rigid motion of all bodies); with joints to ground (mechanisms) the
 * ground, the clusters the components of the whole graph.
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
