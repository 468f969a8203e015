/* core/ce.h - the minimal-coordinate (CE) form of a vehicle with ideal-joint double wishbones
 * (issue 14): a spanning tree (core/tree.h) built from the joint model (the FA form, every
 * body free and every joint a constraint): the root body free (6), each double-wishbone
 * corner embedded on its wheel travel (core/dwcorner.h), each wheel on a revolute about its
 * bearing's spin axis, the bodies named by `weld` welded to the root, and a pitman_arm
 * steering on a parallelogram with the two corners whose tie rods hang on its link as one
 * node (both travels and the arm angle; the link translates, so the corners' closure only
 * shifts the tie rods' inner joints). Each multilink and McPherson corner on a node of its
 * own (core/nlcorner.h: fixed Newton iterations); a rack_pinion steering with the two corners
 * (double wishbones, McPhersons or multilinks: vd_nlc_on_rack)
 * on its rack as one node (both travels and the rack's travel, core/ce_rack.c), its steering
 * wheel on a revolute; bodies only bushings hold (anti-roll bars) on a revolute about a
 * bearing to the root or a spherical node at a bushing on another tree body. The force
 * elements, tyres, road, inputs and outputs stay the joint model's: each step places the
 * model's bodies from the tree state and evaluates the model's own h, Jacobian blocks and
 * tyre states (core/eval.h: vd_eval_sel, with the kinematics of the force elements' markers
 * only; the joints' markers in d keep those of the last full evaluation, vd_outputs), then projects
 * them onto the tree coordinates by the recursive algorithms of core/tree.h. The joints'
 * constraints hold by construction (no drift, no multipliers); the model's bushings between bodies
 * the tree moves rigidly together (the wheel bearings' locked components) see no deflection and
 * pass only their free ones.
 *
 * The step: linearly implicit Euler on M(q) u' = f(q, u, z), q' = K(q) u, z' = g(q, u, z)
 * (numerics.md §2.1 with the tyre states condensed per tyre as core/step.c does), with the
 * exact Jacobians df/dq K, df/du (core/tree_jac.h, the tangent RNEA at the current q'') and the
 * tyre blocks mapped through each body's tree Jacobian: [M - h Ju - h^2 Jq - h Jz Dz (h Gu + h^2
 * Gq)] du = h f + h^2 Jq u + h Jz Dz (h g + h^2 Gq u) dz = Dz (h g + h^2 Gq u + (h Gu + h^2 Gq)
 * du),  Dz = (1 - h Gz)^-1 u+ = u + du,  q+ = q + h K(q) u+,  z+ = z + dz. Or LSRT2 (numerics.md
 * §1.5, the W-form; VD_LSRT2_* of core/step.h): the same matrix with c1 = h gamma in place of h;
 * stage i solves S dv_i = Mphi_i + Jq w_i + Ju sv_i + Jz (sz_i + c1 dz_i), (1 - c1 Gz) dz_i = g_i +
 * Gq w_i + Gu (sv_i + c1 dv_i) + Gz sz_i,   w_i = K^-1 (sr_i + c1 p_i) with Mphi_1 = f, p_1 = K u,
 * stage 2 at qa = q + h a21 dr1, ua = u + h a21 dv1, za, t + c2 h (the bodies placed there, the
 * joint model evaluated there, Mphi_2 = M M(qa)^-1 f(qa, ua), p_2 = K(qa) ua + K sv_2), s_2 = h g21
 * (dr1, dv1, dz1), dr_i = p_i + c1 K dv_i, and q+ = q + h (b1 dr1 + b2 dr2), u+, z+ likewise.
 *
 * vd_ce_build/free, vd_ce_data_new/free: init only. vd_ce_step, vd_ce_place: RT-safe. */
#ifndef VD_CORE_CE_H
#define VD_CORE_CE_H

#include <stddef.h>

#include "data.h"
#include "dwcorner.h"
#include "model.h"
#include "nlcorner.h"
#include "tree.h"
#include "tree_jac.h"

#define VD_CE_MAXCORNER 8

/* the steered axle's node (pitman_arm steering on a parallelogram of arms): coordinates the
 * two corners' travels and the pitman arm's angle; bodies the two corners' (VD_DWC order),
 * then pitman arm, idler arm, link, steering wheel. Geometry in the root frame */
struct vd_ce_axle {
    const struct vd_dwc *corner[2]; /* nd 2: travel, arm angle (the link swings) */
    double pa[3], pc[3];            /* pitman arm axis, a point of it */
    double ia[3], ic[3];            /* idler arm axis, a point of it */
    double sa[3], sc[3];            /* steering wheel (column) axis, a point of it */
    double arm[3];                  /* [m] pitman arm vector, pivot to link joint */
    double sw_ratio;                /* steering wheel angle per arm angle (1 / box ratio) */
    double A0[4][9], x0[4][3];      /* design poses of the four steering bodies */
    int body[4];                    /* their model bodies */
};

/* [per unit rate] the locked-element proof's gap edge: an element the tree moves moves at more
 * than this per unit coordinate rate (core/ce_lock.c) */
#define VD_CE_LOCK_LIVE 1e-4

/* the rack_pinion steered axle's node (core/ce_rack.c): coordinates the two corners' travels
 * and the rack's travel s; bodies the two corners' (VD_DWC order, or core/nlcorner.h's), then
 * rack, pinion, intermediate shaft, column. Geometry in the root frame */
#define VD_CE_RACK_SMAX 0.09 /* [m] the rack travel a McPherson/multilink on it is proven over */
struct vd_ce_rack {
    const struct vd_dwc *corner[2]; /* nd 2: travel, rack travel along d */
    const struct vd_nlc *nlc[2];    /* or McPherson/multilink corners (vd_nlc_on_rack) */
    int off[3];                     /* first body of each corner, of the steering, in the node */
    double d[3];                    /* the rack's unit travel direction */
    double ratio;                   /* [m/rad] rack travel per pinion radian (the gear) */
    double pa[3], pc[3];            /* pinion axis (the gear's rx), a point of it */
    double ia[3], ic[3];            /* intermediate shaft axis, a point of it */
    double ca[3], cc[3];            /* column axis, a point of it */
    double nl[3], yl[3], sl;        /* lower Cardan: pinion's pin, shaft's pin, branch */
    double nu[3], yu[3], su;        /* upper Cardan: shaft's pin, column's pin, branch */
    double A0[4][9], x0[4][3];      /* design poses of rack, pinion, shaft, column */
    int body[4];                    /* their model bodies */
};

struct vd_ce {
    struct vd_tree *tree;
    int ncorner;
    struct vd_dwc corner[VD_CE_MAXCORNER];
    char corner_name[VD_CE_MAXCORNER][VD_NAME_MAX];
    int corner_body[VD_CE_MAXCORNER][VD_DWC_NB]; /* model bodies of each corner */
    int corner_mount[VD_CE_MAXCORNER];           /* the model body its tie rod hangs on */
    int has_axle;                                /* a steered axle node (axle) */
    int has_rack;                                /* a rack_pinion steered axle node (rack) */
    struct vd_ce_rack rack;
    int nnlc; /* multilink and McPherson corners (core/nlcorner.h), each its own node */
    struct vd_nlc nlc[VD_CE_MAXCORNER];
    struct vd_ce_axle axle;
    int nweld;     /* bodies welded to the root */
    int nfree;     /* bodies free on their own node besides the root (on bushings only) */
    int *tb_model; /* (tree nbody) the model body of each tree body */
    int *model_tb; /* (model nbody) the tree body of each model body */
    int nmk;       /* the markers the force elements read (vd_eval_markers): the step's */
    int *mk;       /* evaluations compute no other marker's kinematics (the joints') */
    int nbd;       /* the bodies of those markers (vd_eval_bodies): the step's evaluations */
    int *bd;       /* compute no other body's kinematics (those that carry only joints) */
    /* the force elements the step evaluates: all but those the tree holds locked (core/ce_lock.c:
     * no coordinate moves their coordinates, so their generalized force is zero) */
    int nbu, *bu;                         /* bushings, increasing */
    int ncp, *cp;                         /* couplers */
    int npp, *pp;                         /* point-to-point elements */
    int nlock_bush, nlock_cpl, nlock_p2p; /* the ones left out */
    int nfree_bush;   /* of nlock_bush: rate-free (no curve, no actuation: F = 0 exactly), left
                         out with their coupler whether or not the proof ran */
    bool lock_proven; /* the proof ran: every sample inside the closures' ranges and every
                         candidate's rate outside the gap (ce_lock.c); false: nothing locked */
    double lock_rate; /* the largest coordinate rate per unit tree rate among them (the proof's) */
    double live_rate; /* the smallest of the structural candidates that move (kept), INFINITY:
                         none; >= the gap's upper edge whenever lock_proven */
};

struct vd_ce_data {
    struct vd_tree_data *td;
    double *q, *u;    /* (n) the tree state: coordinates, velocities */
    double *h;        /* (6 tree nbody) applied forces in tree body order */
    double *f, *qdd;  /* (n) */
    double *S;        /* (n n) iteration matrix, then its LU */
    double *Ml;       /* (n n) Cholesky factor of M (for q''; of M(qa) in LSRT2's stage 2) */
    double *rhs, *du; /* (n) */
    double *Jb;       /* (6 n) work: a body's (dx, dpi) per coordinate */
    double *Jzt;      /* (n 2 ntire) df/dz */
    double *Gq, *Gu;  /* (2 n ntire) dg/dq K, dg/du */
    double *Dz;       /* (4 ntire) (1 - h Gz)^-1 */
    double *gz, *uin; /* (nz), (ninput) */
    double *hm;       /* [N, N m] (nq) the model's h */
    int *piv;         /* (n) pivots of S */
    int *row, *col;   /* (nblk) the model's block pattern in tree bodies */
    double *qp, *up;  /* (n) the tree state of the last vd_ce_place */
    /* LSRT2 (numerics.md §1.5 in tree coordinates): stage slopes and arguments */
    double *Mn;         /* (n n) M at the step's start */
    double *dv1, *dr1;  /* (n) stage 1's u and q slopes */
    double *qa, *ua;    /* (n) stage 2's arguments */
    double *sv, *sr;    /* (n) dt g21 dv1, dt g21 dr1 */
    double *p2, *wq;    /* (n) K(qa) ua + K sv; the q-direction of the Jacobian terms */
    double *mphi, *dv2; /* (n) M_n M(qa)^-1 f(qa, ua), stage 2's u slope */
    double *dz1, *za;   /* (nz) stage 1's z slope, stage 2's z argument */
    double *sz, *dz2;   /* (nz) dt g21 dz1, stage 2's z slope */
    double *rz;         /* (2 ntire) a stage's condensed tyre right-hand sides */
    int synced;         /* 0: take q, u from the model's r, v at the next step (after a reset or
                           a scenario's start, which set them) */
    int placed;         /* 1: td's kinematics and the model's r, v are those of qp, up */
    int ref_jac;        /* 1: the Jacobians by vd_tree_jac (the reference, for the tests), else
                           vd_tree_jac_fast */
    struct vd_tree_jplan *jp; /* the fast Jacobians' plan (the model's block pattern) */
    long nplace;              /* placements done (vd_tree_kin with the closures), for the tests */
};

/* init-time (may allocate) */
/* the locked elements of ce's tree (core/ce_lock.c): fills bu, cp, pp and the nlock counts;
 * 0 or -ENOMEM */
int vd_ce_find_locked(const struct vd_model *m, struct vd_ce *ce);
/* the CE tree of a model with ideal-joint double wishbones; weld: a body-name prefix whose
 * bodies are welded to the root (e.g. "steering." for a locked steering), or NULL. Every
 * other body must be a corner's, a wheel or the root. NULL with the reason in err */
struct vd_ce *vd_ce_build(const struct vd_model *m, const char *weld, char *err, size_t errlen);
void vd_ce_free(struct vd_ce *ce);
struct vd_ce_data *vd_ce_data_new(const struct vd_model *m, const struct vd_ce *ce);
void vd_ce_data_free(struct vd_ce_data *cd);
/* the tree state of the model's state in d: the root's r, v; each embedded corner's travel
 * from its lower arm's rotation about the pivot axis relative to the root and the rate from
 * their relative angular velocity; each wheel's angle and rate from its rotation relative to
 * the knuckle about the spin axis. Exact where d satisfies the joints (vd_data_reset, a
 * scenario's start, statics); RT-safe */
void vd_ce_init(const struct vd_model *m, const struct vd_ce *ce, struct vd_ce_data *cd,
                const struct vd_data *d);

/* the rack_pinion steered axle's geometry from the model (core/ce_rack.c): 0 or -EINVAL */
int vd_ce_rack_init(struct vd_ce_rack *r, const struct vd_model *m, int root, char *err,
                    size_t errlen);

/* RT-safe */
/* the rack_pinion steered axle's closure (vd_tree_closure_fn, ctx: const struct vd_ce_rack *) */
int vd_ce_rack_closure(const void *ctx, const double *q, const double *qd, struct vd_tree_rel *rel);
/* the rack's travel and rate of the model state d relative to the root */
void vd_ce_rack_coord(const struct vd_ce_rack *r, const struct vd_data *d, int root, double *s,
                      double *sd);
/* the steered axle's closure (vd_tree_closure_fn, ctx: const struct vd_ce_axle *) */
int vd_ce_axle_closure(const void *ctx, const double *q, const double *qd, struct vd_tree_rel *rel);
/* the model's r, v (d->r, d->v) from the tree state; 0 or -EDOM (a loop cannot close) */
int vd_ce_place(const struct vd_model *m, const struct vd_ce *ce, struct vd_ce_data *cd,
                struct vd_data *d);
/* one LIE or LSRT2 step of m->opt.dt: cd->q, cd->u, d->z, d->t and the model's r, v; 0 or
 * -errno, the state unchanged on error (-ENOTSUP: m->opt.method is neither). The model's r, v are
 * outputs of the tree state: the step starts from the placement the last one ended with while q, u
 * are those it placed (a write to d->r, d->v takes effect through vd_data_reset / vd_ce_init) */
int vd_ce_step(const struct vd_model *m, const struct vd_ce *ce, struct vd_ce_data *cd,
               struct vd_data *d);

#endif /* VD_CORE_CE_H */
