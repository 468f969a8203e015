/* core/dwcorner.h - constraint embedding of a double-wishbone corner (issue 14): the closed
 * loops of lower arm, upper arm, knuckle, tie rod and strut (damper tube and piston rod)
 * aggregated into one embedded tree node (core/tree.h) whose coordinates are the lower arm's
 * angle about its pivot axis (wheel travel) and, optionally, the travel of the tie rod's
 * inner joint along a fixed direction of the parent (rack position).
 *
 * The topology is the ideal-joint double wishbone of the templates (`connection: joints`,
 * Chrono's): each arm on a revolute to the parent and a ball joint to the knuckle, the tie
 * rod on a universal joint inboard and a ball joint on the knuckle, the piston rod on a
 * universal joint to the parent, the damper tube on a ball joint on the lower arm and a
 * prismatic joint on the rod. Its loop closure in closed form (no iteration), in the
 * parent's frame, from the lower arm angle th and the rack travel s:
 *   1. lower arm: rotation by th about its axis; its ball joint B_l and strut point follow;
 *   2. upper arm angle phi: its ball joint B_u on a circle must lie at the knuckle's fixed
 *      distance |B_u - B_l| from B_l: A cos phi + B sin phi = C, so
 *      phi = atan2(B, A) + sigma acos(C / sqrt(A^2 + B^2)), sigma the branch of the design
 *      pose (the two branches meet only where the arms are aligned: C^2 = A^2 + B^2);
 *   3. knuckle: the kingpin axis B_l B_u is known; the tie rod's outer joint T_o turns on a
 *      circle about it and must lie at the tie rod's length from the inner joint T_i(s):
 *      the same equation in the angle psi about the kingpin;
 *   4. tie rod and strut: the direction of each is known (T_o - T_i, top - bottom); the
 *      universal joint keeps the body's cross axis x_i normal to the mount's y_j and to the
 *      rod axis: x_i = +-(y_j x z) / |y_j x z|, y_i = z x x_i;
 *   5. the tube slides on the rod: same axes, its ball joint at the lower arm's strut point.
 * Every step is arithmetic, sqrt, atan2, acos, sin and cos: written once in truncated Taylor
 * arithmetic (core/dwcorner_solve.h), the same code gives the poses, the motion columns s, their
 * derivatives ds/dq, the acceleration term kappa and d kappa/dq exactly (to rounding): one
 * evaluation in core/taypoly.h's polynomials (one coordinate: a cubic; two: cubics in both,
 * or, when the tree asks for M and f only (rel mf_only), quadratics without ds and d kappa),
 * restricted to the lines core/taylor.h's series passes would have followed. Two coordinates:
 * steps 1, 2, 5 and the kingpin frame depend on the travel alone, so they are one coordinate's
 * cubics lifted into two (the same numbers, operation for operation), the arms' and the strut's
 * columns of the second coordinate are zero, and each line coefficient is computed once.
 * The closure fails (-EDOM, the state is rejected) where an acos argument leaves [-1, 1]:
 * the arms or the tie rod would have to stretch.
 *
 * vd_dwc_from_model: init only. vd_dwc_closure: RT-safe (fixed work: one pass). */
#ifndef VD_CORE_DWCORNER_H
#define VD_CORE_DWCORNER_H

#include <stddef.h>

#include "model.h"
#include "tree.h"

enum {
    VD_DWC_LCA = 0,
    VD_DWC_UCA,
    VD_DWC_KNUCKLE,
    VD_DWC_TIEROD,
    VD_DWC_TUBE,
    VD_DWC_ROD,
    VD_DWC_NB
};

/* the corner's geometry in the parent body's frame (axes of the parent, origin at its CoM) at
 * the design pose, and the bodies' design poses; the derived constants after them */
struct vd_dwc {
    int nd;                     /* 1: travel only (tie rod on the parent); 2: travel and rack */
    double al[3], cl[3], bl[3]; /* lower arm: unit pivot axis, a point of it, ball joint */
    double au[3], cu[3], bu[3]; /* upper arm: the same */
    double ti[3], to[3];        /* tie rod: inner (on the mount), outer (on the knuckle) */
    double tr_x[3], tr_y[3];    /* tie rod universal joint: x of the rod's marker, y of the
                                   mount's (the mount translates: y fixed in the parent) */
    double rack[3];             /* nd 2: unit direction the inner joint travels along */
    int swing;                  /* nd 2, 1: the mount translates by (Rot(swing_a, q1) - 1) arm
                                   instead (a link on a parallelogram of arms, q1 their angle) */
    double swing_a[3], swing_arm[3]; /* unit axis of the arms; an arm's vector (pivot to link) */
    double top[3], bot[3];           /* strut: top (parent) and bottom (lower arm) joints */
    double st_x[3], st_y[3];         /* strut universal joint: x of the rod's marker, y of the
                                        parent's */
    double A0[VD_DWC_NB][9];         /* design rotations body -> parent */
    double x0[VD_DWC_NB][3];         /* [m] design CoM positions in the parent frame */
    /* derived (vd_dwc_init) */
    double u_par[3], u_perp[3], u_e2[3], l_ku; /* upper ball circle; ball-to-ball distance */
    double k_alpha, k_rho, k_m0[3], l_tr;      /* tie rod circle about the kingpin */
    double sig_u, sig_k, sig_tr, sig_st;       /* branches of the design pose */
    double F0k[9], F0tr[9], F0st[9];           /* design frames (columns) */
};

/* init-time */
/* fill c from the corner `prefix` (e.g. "front_l") of a model built with connection: joints:
 * its joints <prefix>.lca_pivot, .uca_pivot, .lca_ball, .uca_ball, .tierod_inner,
 * .tierod_outer, .strut_top, .strut_bottom, .strut_guide and bodies <prefix>.lca, .uca,
 * .knuckle, .tierod, .damper_tube, .piston_rod, at the model's initial pose, relative to the
 * body `parent`; rack: NULL (nd 1) or the inner joint's travel direction in the parent's
 * axes. body[] gets the model's body indices in the closure's order (VD_DWC_*).
 * 0, or -EINVAL with the reason in err */
int vd_dwc_from_model(struct vd_dwc *c, const struct vd_model *m, const char *prefix, int parent,
                      const double *rack, int body[VD_DWC_NB], char *err, size_t errlen);
/* derive the constants and the branches from the design pose; 0 or -EINVAL */
int vd_dwc_init(struct vd_dwc *c, char *err, size_t errlen);

/* 1 when the second coordinate (rack travel, arm angle) moves body b (VD_DWC_*) of a
 * two-coordinate corner: the knuckle and the tie rod; the arms and the strut follow the travel
 * alone (their columns of it are zero: the nodes' vd_tree_set_dmask) */
static inline int vd_dwc_q1_moves(int b)
{
    return b == VD_DWC_KNUCKLE || b == VD_DWC_TIEROD;
}

/* RT-safe */
/* the tree closure (vd_tree_closure_fn): ctx is a const struct vd_dwc *; rel[0 .. 6) */
int vd_dwc_closure(const void *ctx, const double *q, const double *qd, struct vd_tree_rel *rel);
/* a two-coordinate corner (travel, shared coordinate) inside a three-coordinate node whose
 * coordinates are (travel 0, travel 1, shared): the closure at (q[side], q[2]), its columns
 * moved to coordinates side and 2 of rel (VD_DWC_NB bodies); with rel[0].mf_only (the tree
 * asks for M and f only) ds and d kappa are neither computed nor written (the other
 * travel's columns are zero). 0 or -EDOM */
int vd_dwc_closure_in3(const struct vd_dwc *c, int side, const double q[3], const double qd[3],
                       int mf_only, struct vd_tree_rel *rel);

#endif /* VD_CORE_DWCORNER_H */
