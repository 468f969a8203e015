/* core/tree_jac.h - the Jacobians df/dq K and df/du of core/tree.h's f (the same results as
 * vd_tree_jac, which stays the reference) with the work of each direction restricted to what
 * it moves. Owns a plan built once from the tree and the pattern of the applied forces'
 * Jacobian blocks, and its scratch.
 *   - a direction of a node's coordinate (pos: q' = K e_k; vel: u = e_k) runs the
 *     tangent-linear recursion (tree.h) over the node's bodies that it moves (all, or those
 *     whose dmask has it: vd_tree_set_dmask) and their descendants only,
 *     the blocks whose column body is among them, and the backward sums over those bodies,
 *     the rows of those blocks and their ancestors (lists built once, no scans);
 *   - a vel direction has no displacement (D = 0, dS = 0): its recursion drops those terms;
 *   - with a free root, the other coordinates' directions run four at a time: two
 *     coordinates (each paired with the one whose moved bodies overlap its own most: a
 *     node's coordinate and a descendant's), pos and vel, as the lanes of one recursion over
 *     the union of their lists (tree.c's tangent() with each lane's unit dq or du; what one
 *     direction alone drops is an exact zero in its lane, so that every lane's results are
 *     bitwise those of the direction alone but for the sign of a zero);
 *   - the free root's translations (pos and vel) and rotations (pos) are rigid motions of the
 *     root's subtree (a second free node on the ground and its bodies stay: only their
 *     applied forces change, through the blocks whose column body moves): the inertial
 *     forces are invariant under a translation and a Galilean boost, and under a rotation
 *     only change by the rotated representation of the root's global translation rows and by
 *     the uniform acceleration q''_trans - g held fixed instead of turning with the tree
 *     (dL = -dpi x (q''_trans - g) on every body); what is left is the applied forces'
 *     change: the blocks times each body's rigid perturbation, the global forces held fixed
 *     (F x dpi relative to the turned frame), summed over subtrees and
 *     projected on the motion columns. The root's angular velocity changes every body's
 *     velocity by the same twist: the recursion's sums along the paths in closed form (the
 *     inertial terms' change per body from its velocity relative to the root's). The twelve
 *     directions share one sweep of the blocks; their per-body work runs on four-lane vectors
 *     (GCC vector extensions, AVX2 where the CPU has it: VD_CLONES), three lanes for the
 *     three axes of each kind, every lane in the scalar code's order of operations (the
 *     results bitwise those of one direction at a time).
 * vd_tree_jplan_new/free: init only (allocate). vd_tree_jac_fast: RT-safe, no allocation. */
#ifndef VD_CORE_TREE_JAC_H
#define VD_CORE_TREE_JAC_H

#include "tree.h"

struct vd_tree_jplan;

/* init-time (may allocate) */
/* the plan of tree t for applied-force blocks (row[e], col[e]), e < nblk (tree bodies); NULL
 * when out of memory or a block names no body of t */
struct vd_tree_jplan *vd_tree_jplan_new(const struct vd_tree *t, int nblk, const int *row,
                                        const int *col);
void vd_tree_jplan_free(struct vd_tree_jplan *p);

/* RT-safe */
/* td->Jq, td->Ju as vd_tree_jac(t, td, g, h, ext, qdd) (ext's pattern that of the plan, or
 * NULL); after vd_tree_kin, leaves td->F and td->f of vd_tree_forces(g, h, qdd). A
 * vd_tree_forces with the same h pointer since that vd_tree_kin saves it work (tree.h's
 * vd_tree_forces_again): h's contents must then be those of that call */
void vd_tree_jac_fast(const struct vd_tree *t, struct vd_tree_data *td, struct vd_tree_jplan *p,
                      const double g[3], const double *h, const struct vd_tree_ext *ext,
                      const double *qdd);

#endif /* VD_CORE_TREE_JAC_H */
