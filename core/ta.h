/* core/ta.h - the tree-augmented (TA) form of a vehicle with ideal-joint double wishbones
 * (issue 14): every body of the joint model on a spanning tree in relative coordinates
 * (core/tree.h), the joints that close the loops cut and kept as constraints g(q) = 0,
 * stepped by the constrained linearly implicit Euler method in tree coordinates.
 *
 * The tree (the same bodies, joints, force elements, tyres and outputs as the CE form,
 * core/ce.h, so that CE and TA integrate the same ODE):
 *   root (chassis)          free (6)
 *   per double wishbone     lower and upper arm: revolutes about their pivot axes (1 + 1);
 *                           knuckle: spherical on the lower arm at its ball joint (3);
 *                           wheel: revolute about its bearing's spin axis (1);
 *                           piston rod: universal on the parent at the strut top (2);
 *                           damper tube: prismatic on the rod (1);
 *                           tie rod: universal on its mount (the root or the steering
 *                           link) at the inner joint (2)                              = 11
 *   pitman_arm steering     pitman arm, idler arm, steering wheel: revolutes about their
 *                           bearings' axes (3); link: universal on the pitman arm at their
 *                           joint (2), its axes the pitman axis and the normal of the pitman
 *                           axis and the link's joint-to-joint line (Chrono's z / x)  = 5
 *   `solver.weld` bodies    fixed on the root (0)
 * The HMMWV: 6 + 4 x 11 + 5 = 55 coordinates. Cut joints, each 3 rows g = p_i - p_j:
 * the upper ball joint, the tie rod's outer ball joint and the strut's bottom ball joint of
 * every corner, the steering link on the idler arm (its bushing's centre); and 1 linear row
 * for the steering box, q_wheel - q_pitman / ratio = 0: 4 x 9 + 4 = 40 rows, 15 degrees of
 * freedom (the ROAMS paper's TA HMMWV: 45 + 30, without strut bodies and steering).
 * The universal joints are embedded nodes with the closure of this file (two revolutes in
 * series); every other node is core/tree.h's own.
 *
 * Cut rows in tree coordinates: a point p fixed on tree body b moves with
 * p' = sum over the nodes on b's path of (S_lin + S_ang x p) q'_node (S: global Plücker
 * columns at the origin), so G = dg/dq K = J_p1 - J_p2; with the bias accelerations a of the
 * tree at q'' = 0 (spatial, at the origin) p'' = a_lin + a_ang x p + w x p' + J_p q'', so
 * gamma = (a_lin + a_ang x p + w x p')_1 - (...)_2 and g'' = G q'' + gamma.
 *
 * The LIE step (numerics.md §2.2, index-2 form): with S and the right-hand side of the CE
 * step (ce.h: M - h Ju - h^2 Jq and the tyre states condensed per tyre; the Jacobians of
 * f - M q'' at the previous step's q'' (0 after a reset): the constrained acceleration,
 * where ce.h uses M^-1 f; by core/tree_jac.h's restricted recursion, vd_tree_jac with
 * ref_jac)
 *   [S  G^T] [du]   [h f + h^2 Jq u + tyre terms]
 *   [G  0  ] [mu] = [-G u                        ]   => G(q_n) u_{n+1} = 0
 *   u+ = u + du,  q~ = q + h K(q) u+,
 * then one simplified Newton step of the positions with the same factors (solver.project
 * positions or both; none: no projection, the rows drift, for comparison only):
 *   [S G^T; G 0] [ds; nu] = [0; -g(q~)],  q+ = q~ + K(q~) ds
 * and with both one of the velocities onto the rows at q+, the same factors (G(q_n) in them):
 *   [S G^T; G 0] [dv; nu] = [0; -G(q+) u+],  u+ += dv
 * which leaves G(q+) u+ = (G(q+) - G(q_n)) dv: the simplified Newton step's contraction,
 * O(dt |u'|) times the residual before it (the LIE's G(q_n) u+ = 0 is O(dt) off G(q+) u+ = 0).
 *
 * LSRT2 (m->opt.method lsrt2): cstep.h's constrained W-form in tree coordinates, both stages
 * with the cut rows at acceleration level (index 1) on the same factors [S G_n^T; G_n 0], S =
 * M - c1 Ju - c1^2 Jq (c1 = dt gamma, the tyre states condensed), the stages of ce.h's LSRT2
 * (numerics.md §1.5, RMID):
 *   start   u onto G_n u = 0 with the factors (f and the tyre rates follow to first order;
 *           whatever solver.project says: the stages hold G a = -gamma, which keeps a
 *           velocity defect as it is, so none leaves the positions' drift only)
 *   stage 1 [S G_n^T; G_n 0] [dv1; l1] = [f_n + Jq c1 u + tyre terms; -gamma_n]
 *   stage 2 at (qa, ua, za) = (q, u, z) + dt a21 (dr1, dv1, dz1), t + c2 dt, the bodies placed
 *           there, M_2, f_2, G_2, gamma_2 evaluated there:
 *           [S G_n^T; G_n 0] [dv2; l2] = [f_2 - (M_2 - M_n) dv1 - (G_2 - G_n)^T l1 + Jq w +
 *           Ju sv + tyre terms; -gamma_2 - (G_2 - G_n) dv1]
 *   update  q~ = q + dt dr2, u+ = u + dt dv2, z+ = z + dt dz2 (b1 = 0, b2 = 1), then the
 *           projection above.
 * The stage-2 rows are the exact stage acceleration's (M_2 a2 + G_2^T l2 = f_2, G_2 a2 =
 * -gamma_2) written in the step's M_n, G_n with dv1, l1 for a2, l2: M_2 - M_n, G_2 - G_n,
 * a2 - dv1 and l2 - l1 are all O(dt), an O(dt^2) error in the stage, O(dt^3) per step, so the
 * method is a W-method of order 2 on the underlying ODE and the projection keeps that order
 * (cstep.h, Hairer & Wanner II §VII.2). Observed (test_ta item 4, HMMWV, 0.1 s, dt 2 ..
 * 0.25 ms): LIE 1.00, LSRT2 2.01. Extra work over the LIE: two more back-substitutions
 * (the start velocity's, the second stage's: four with the projection), one placement,
 * evaluation, CRBA and cut rows at the stage point; no second LU.
 * Dense LU (LAPACK getrf/getrs, column-major, work arrays owned here) of the (n + m)
 * system: 95 x 95 for the HMMWV. Fixed operation count, no allocation after
 * vd_ta_data_new.
 *
 * vd_ta_build/free, vd_ta_data_new/free: init only. Everything else RT-safe. */
#ifndef VD_CORE_TA_H
#define VD_CORE_TA_H

#include <stddef.h>

#include "bblu.h"
#include "data.h"
#include "model.h"
#include "tree.h"
#include "tree_jac.h"

/* a universal joint as an embedded node: q0 about a1 (fixed in the parent), then q1 about
 * a2 (fixed in the body, a2 at q = 0 normal to a1); parent axes, parent CoM origin */
struct vd_ta_univ {
    double a1[3], a2[3], c[3]; /* unit axes; [m] the centre */
    double A0[9], x0[3];       /* the body's design pose */
};

/* 3 rows: the point s1 of tree body b1 coincides with s2 of b2 (body axes, from the CoM) */
struct vd_ta_pcut {
    int b1, b2;
    double s1[3], s2[3];
    int joint; /* the model joint cut (-1: a bushing's centre) */
};

struct vd_ta {
    struct vd_tree *tree;
    int nuniv;
    struct vd_ta_univ *univ; /* (model njoint + 1), the universal nodes' closures */
    int npcut;
    struct vd_ta_pcut *pcut; /* (model njoint + 1) */
    int gear;                /* 1: the steering box row q[gear_c0] - gear_ratio q[gear_c1] */
    int gear_c0, gear_c1;
    double gear_ratio;
    int m;         /* cut rows: 3 npcut + gear */
    int nweld;     /* bodies welded to the root */
    int *tb_model; /* (tree nbody) the model body of each tree body */
    int *model_tb; /* (model nbody) the tree body of each model body */
    /* the structured solve (solver.linear structured): the augmented system's indices (n
     * coordinates, then m rows) in clusters that share no entry, around a border (core/bblu.h):
     * the root's coordinates and the hubs (subtrees linked to two or more others: the
     * steering's pitman arm, link and tie rods) with every row that reaches a hub; the
     * clusters the other subtrees, joined by their links (force elements' blocks, cuts, the
     * steering box), with their rows (ta.c, clusters()). The HMMWV: each corner, the idler
     * arm, the steering wheel around a border of 6 + 7 coordinates and 10 rows */
    int *cl; /* (n + m) cluster of each index, -1: the border */
    int ncl;
    unsigned char *touch; /* (ncl (n + m)) the border indices each cluster touches */
    struct vd_bblu lu;
};

struct vd_ta_data {
    struct vd_tree_data *td;
    double *q, *u;              /* (n) the tree state */
    double *qt, *qd;            /* (n) work: positions before the projection, K(q) x */
    double *acc;                /* (n) q'' of the last step (the Jacobians' linearization point) */
    double *h;                  /* (6 tree nbody) applied forces in tree body order */
    double *f, *rhs;            /* (n + m); after a step with project both, rhs holds that
                                   step's velocity projection (du; nu) */
    double *S;                  /* (n n) iteration matrix */
    double *K;                  /* (n + m)^2 the augmented matrix, then its LU */
    double *G;                  /* (m n) column-major cut rows */
    double *g, *gam;            /* (m) cut values [m, rad] and acceleration terms */
    double *Jp;                 /* (3 n) work: a point's Jacobian */
    double *Jb;                 /* (6 n) work: a body's (dx, dpi) per coordinate */
    double *Jzt, *Gq, *Gu, *Dz; /* tyre blocks as in ce.h */
    double *gz, *uin, *hm;
    /* LSRT2 (ta.h's step): the stage slopes and arguments */
    double *dv1, *dv2, *dr1;     /* (n) stage slopes of u, q */
    double *qa, *ua, *sr, *sv;   /* (n) stage-2 point and its g21 couplings */
    double *p2, *wq, *mdv, *gtl; /* (n) K(qa) ua + K sv, K^-1 (sr + c1 p2), M_n dv1, G_n^T l1 */
    double *gdv;                 /* (m) G_n dv1 */
    double *dz1, *dz2, *za, *sz; /* (nz) tyre-state slopes, stage point, coupling */
    double *rz;                  /* (2 ntire) work */
    int *piv;                    /* (n + m) */
    double *F, *fw;              /* structured solve: factors (ta->lu.nf), work (n + m) */
    int *row, *col;              /* (nblk) the model's block pattern in tree bodies */
    struct vd_tree_jplan *jp;    /* the fast Jacobians' plan (core/tree_jac.h) */
    int ref_jac;       /* 1: the Jacobians by vd_tree_jac (the reference, for the tests), else
                          vd_tree_jac_fast */
    int synced;        /* 0: take q, u from the model's r, v at the next step */
    double gres_pre;   /* [m] max |g| of the last step before its projection */
    double vres_pre;   /* [m/s] max |G(q+) u| of the last step before its velocity projection
                          (solver.project both; else 0) */
    double vres_start; /* [m/s] LSRT2: max |G(q_n) u_n| corrected at the step's start */
};

/* init-time (may allocate) */
/* the TA tree and cuts of a model with ideal-joint double wishbones (and a pitman_arm
 * steering on bushings, as ce.h); weld as vd_ce_build. NULL with the reason in err */
struct vd_ta *vd_ta_build(const struct vd_model *m, const char *weld, char *err, size_t errlen);
void vd_ta_free(struct vd_ta *ta);
struct vd_ta_data *vd_ta_data_new(const struct vd_model *m, const struct vd_ta *ta);
void vd_ta_data_free(struct vd_ta_data *tad);

/* RT-safe */
/* the tree state of the model's state in d (relative rotations and rates of every node's
 * body, exact where d satisfies the joints: a reset, a scenario's start, statics), then made
 * consistent with the cuts (3 minimum-norm Newton steps of q onto g = 0, u onto G u = 0:
 * the model's state may miss them by an elastic steering joint's deflection). Fixed work
 * (4 LU of the augmented system): it runs in the first step after a reset */
void vd_ta_init(const struct vd_model *m, const struct vd_ta *ta, struct vd_ta_data *tad,
                const struct vd_data *d);
/* the universal node's closure (vd_tree_closure_fn, ctx: const struct vd_ta_univ *) */
int vd_ta_univ_closure(const void *ctx, const double *q, const double *qd, struct vd_tree_rel *rel);
/* the cut rows at the kinematics of the last vd_tree_kin (tad->td): g into tad->g, G into
 * tad->G; with gam, gamma into tad->gam, which needs the bias accelerations of
 * vd_tree_forces(g = 0, qdd = NULL) of the same state in tad->td->a */
void vd_ta_cuts(const struct vd_ta *ta, struct vd_ta_data *tad, int gam);
/* the cut rows' values g (into tad->g, as vd_ta_cuts without G) at the kinematics of the last
 * vd_tree_kin; returns max |g| [m, rad] */
double vd_ta_cut_values(const struct vd_ta *ta, struct vd_ta_data *tad);
/* the model's r, v from the tree state (q, u); 0 or -EDOM */
int vd_ta_place(const struct vd_model *m, const struct vd_ta *ta, struct vd_ta_data *tad,
                struct vd_data *d);
/* one LIE or LSRT2 step of m->opt.dt; 0 or -errno, -ENOTSUP for another method. d->cres:
 * max |g| of the cut rows after the step (after the projection) [m, rad] */
int vd_ta_step(const struct vd_model *m, const struct vd_ta *ta, struct vd_ta_data *tad,
               struct vd_data *d);

#endif /* VD_CORE_TA_H */
