/* core/data.h - everything that changes while a model runs: state, inputs, kinematics,
 * forces, Jacobian blocks, the iteration matrix and its factorization, stage vectors,
 * element results, stage timers and warning counters. One allocation at init, sized from
 * the model, nothing grows afterwards. Per-step temporaries come from a scratch arena
 * (mark / alloc / release) whose size is fixed at init and whose high-water mark is kept.
 *
 * vd_data_new/free/reset: init only, may allocate. vd_arena_*: RT-safe. */
#ifndef VD_CORE_DATA_H
#define VD_CORE_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

struct vd_ce_data;
struct vd_ta_data;

enum vd_stage {
    VD_STAGE_LINEARIZE = 0, /* kinematics, forces and analytic Jacobians */
    VD_STAGE_ASSEMBLE,      /* iteration matrix S = M - dt g Jv - (dt g)^2 Jr K */
    VD_STAGE_FACTOR,        /* LU of S */
    VD_STAGE_STAGES,        /* stage right-hand sides, further h evaluations, solves */
    VD_STAGE_COUNT
};

enum vd_warn {
    VD_WARN_NONFINITE = 0, /* NaN/Inf in forces or the new state: step rejected */
    VD_WARN_SINGULAR,      /* iteration matrix singular: step rejected */
    VD_WARN_DEGENERATE,    /* p2p element with (near) zero length */
    VD_WARN_CARDAN,        /* |ay'| above 85 deg: near the Cardan singularity */
    VD_WARN_ARENA,         /* scratch arena exhausted: step rejected */
    VD_WARN_COUNT
};

/* optional time-dependent inputs: fill u (ninput) for time t [s]; must be RT-safe */
typedef void (*vd_input_fn)(void *ctx, double t, double *u);

/* an optional second thread for the structured factorization (rt/worker.h): post(ctx, fn,
 * arg) runs fn(arg) there, wait(ctx) returns once it has; post NULL (the default): all on
 * the calling thread */
struct vd_par {
    void (*post)(void *ctx, void (*fn)(void *arg), void *arg);
    void (*wait)(void *ctx);
    void *ctx;
};

struct vd_data {
    double t;      /* [s] time of the state */
    int64_t nstep; /* steps taken */

    double *r; /* [m, rad] (nq) coordinates: CoM position, Cardan z-y'-x'' */
    double *v; /* [m/s, rad/s] (nq) CoM velocity (global), angular velocity (body) */
    double *u; /* [N, N m] (ninput) inputs, held over a step unless input_fn is set */
    double *z; /* (nz) first-order element states: tyre carcass deflections [m] */
    double *g; /* (nz) z' of the last evaluation */
    double *h; /* [N, N m] (nq) generalized forces of the last vd_outputs */
    vd_input_fn input_fn;
    void *input_ctx;
    /* input_fn without side effects (same ctx), for a solver that evaluates trial states and
     * calls input_fn only at the times it accepts (the CVODE reference); NULL: input_fn has
     * none (plain signals) */
    vd_input_fn input_peek;

    /* body kinematics of the last evaluation (nbody each) */
    double *A;    /* (9 nbody) rotation body -> global, row-major */
    double *Ei;   /* (9 nbody) angle rates = Ei * omega (inverse of E) */
    double *T;    /* (9 nbody) delta pi (global) = T * delta angles */
    double *wg;   /* [rad/s] (3 nbody) angular velocity, global axes */
    double *bang; /* [rad] (3 nbody) the Cardan angles (z, y, x) of the last vd_body_kinematics */
    double *bsc;  /* (6 nbody) their cosines and sines: cz sz cy sy cx sx (libm) */
    /* the (r, v) these kinematics (A .. wg, bang, bsc and the markers') are of: vd_kinematics
     * at the same (r, v) keeps them (the outputs after a step and the next step's evaluation
     * see the same state); kin_ok 0 once anything else wrote them (vd_kinematics_pos,
     * vd_body_kinematics_ei) */
    double *kin_r, *kin_v; /* (nq) */
    int kin_ok;
    /* marker kinematics of the last evaluation (nmarker each) */
    double *mp;  /* [m] (3 nmarker) position */
    double *mR;  /* (9 nmarker) marker axes -> global */
    double *mpd; /* [m/s] (3 nmarker) velocity */
    double *mw;  /* [rad/s] (3 nmarker) angular velocity, global */
    double *ma;  /* [m] (3 nmarker) lever CoM -> marker, global */

    /* linearization: Jacobian blocks in body perturbation coordinates (delta x, delta pi
     * global; delta v global, delta omega body), column-major 6x6, block pattern of m */
    double *Jp;    /* (36 nblk) dh/d(x, pi) */
    double *Jvb;   /* (36 nblk) dh/d(v, omega) = Jv */
    double *Ju;    /* (6 nju) dh_b/du_j per entry of the model's input pattern (ju_ptr) */
    double *Alin;  /* (9 nbody) A at the linearization point */
    double *Eilin; /* (9 nbody) Ei at the linearization point: K_lin */
    double *Tlin;  /* (9 nbody) T at the linearization point: Jr = Jp diag(I, Tlin) */
    int lin_age;   /* steps since the last linearization, -1 before the first */
    /* element states: z' = g(r, v, z), coupled to one body b per tyre (column-major 6x2,
     * row-major 2x6): Jz = dh_b/dz, Gp = dg/d(x, pi)_b, Gv = dg/d(v, omega)_b, Gz = dg/dz */
    double *Jz;  /* (12 ntire) */
    double *Gp;  /* (12 ntire) */
    double *Gv;  /* (12 ntire) */
    double *Gz;  /* (4 ntire) */
    double *Dzi; /* (4 ntire) (I - dt g Gz)^-1 of the last linearization */
    double *Cz;  /* (12 ntire) dt g Gv + (dt g)^2 Gr K of the last linearization */

    /* dense linear-algebra path (opt.linear dense; NULL otherwise) */
    double *S; /* (nq * nq) iteration matrix, then its LU factors, column-major */
    int *ipiv; /* (nq) pivots */
    /* structured path (core/blocklu.h): the blocks of S at the slots of m->blu, then its
     * block LU factors */
    double *F;             /* (36 nslot) column-major 6x6 blocks */
    struct vd_par par;     /* second thread for half of the clusters (none: post NULL) */
    double par_acc[2][36]; /* the two parts' updates of the root block (vd_blu_factor_part) */

    /* ideal joints (core/joint.h), nc rows; the dense matrix S above is then (nq + nc)^2
     * with leading dimension nq + nc (index2: the augmented system [S G^T; G 0]) */
    double *jg;        /* [m or rad] (nc) constraint values of the last vd_joint_eval */
    double *jG;        /* (12 nc) constraint rows over the (v, omega) of the two bodies */
    double *jgam;      /* [m/s^2 or rad/s^2] (nc) gamma = (d/dt G) v */
    double *jlam;      /* [N or N m] (nc) multipliers (constraint reactions) of the last step;
                          NaN after a LIE step of the structured nullspace form, which
                          does not compute them (nothing reads them there: lam_skip) */
    bool lam_skip;     /* the caller of the next constrained solves reads no multipliers:
                          the structured nullspace solve (core/csnull.h) skips them and
                          leaves c as it was */
    double *js0, *js1; /* (nc) driven coordinates at the start and the end of the step */
    double *kx;        /* (max(nq + nc, 6 blu.nb)) work of the constrained solve */
    double *kw;        /* (max(nq + nc, 6 blu.nb)) work */
    double *kz;        /* (max(nq + nc, 6 blu.nb)) work */
    /* nullspace form: coordinate partitioning of G (numerics.md §2.2) */
    double *Gd;      /* (nc nq) dense G (leading dimension nc), then the selection's LU of G^T */
    int *jperm;      /* (nq) coordinates, dependent first (nc), then independent (nq - nc) */
    double *Gu;      /* (nc nc) the dependent columns of G, then their LU */
    int *gpiv;       /* (nq) pivots (of G^T at a selection, of Gu at every step) */
    double *Rm;      /* (nq (nq - nc)) R = P [-Gu^-1 Gw; I] */
    double *SR;      /* (nq (nq - nc)) S R */
    double *Rr;      /* ((nq - nc)^2) R^T S R, then its LU */
    int *rpiv;       /* (nq - nc) */
    double gu_ratio; /* min / max |pivot| of the LU of Gu at the last step */
    double gu_ratio_sel; /* the same at the last selection */
    uint64_t nselect;    /* selections of the independent coordinates (the first included; on
                            the structured path one per cluster selected) */
    /* nullspace form on the structured path (core/csnull.h; NULL otherwise) */
    double *csx;        /* (m->csn->nx) per cluster: Gu^T's LU, Y, S Y, the reduced block; shared */
    int *csi;           /* (m->csn->ni) per cluster: the partition and the sparsity patterns */
    unsigned char *csb; /* (m->csn->nb) work of a selection */
    double cres;        /* [m or rad] max |g| after the last step (after the projection) */

    /* the CE form's tree state and work (core/ce.h; NULL unless m->ce) */
    struct vd_ce_data *ce;
    /* the TA form's tree state and work (core/ta.h; NULL unless m->ta) */
    struct vd_ta_data *ta;

    /* discrete element states, committed at the start of each step (at an accepted state) */
    double *bush_phi;    /* [rad] (nbush) unwrapped rx of Cardan-mode bushings */
    double *bush_anchor; /* (6 nbush) anchors of friction components */

    /* element results of the last evaluation */
    double *bush_out; /* (12 nbush) F[3] [N], M[3] [N m], d[3] [m], rotation[3] [rad] */
    double *p2p_out;  /* (3 np2p) force [N] (compression > 0), length [m], rate [m/s] */
    double *cpl_out;  /* (2 ncoupler) force [N or N m], coupling error g */
    double *tire_out; /* (VD_TIRE_NOUT ntire) see core/tire.h */

    int64_t stage_ns[VD_STAGE_COUNT]; /* [ns] last step */
    int64_t outputs_ns;               /* [ns] last vd_outputs() */
    uint64_t warn[VD_WARN_COUNT];
    int last_info; /* LAPACK info of the last factorization */

    /* scratch arena */
    unsigned char *arena;
    size_t arena_size, arena_used, arena_hwm; /* [bytes] */
};

/* init-time (may allocate) */
/* one allocation sized from the (frozen) model; state set from the model's initial pose */
struct vd_data *vd_data_new(const struct vd_model *m);
void vd_data_free(struct vd_data *d);
/* initial state from the model, inputs zero, linearization dropped, counters kept */
void vd_data_reset(const struct vd_model *m, struct vd_data *d);

/* RT-safe */
size_t vd_arena_mark(const struct vd_data *d);
void vd_arena_release(struct vd_data *d, size_t mark);
/* n doubles, 64-byte aligned, or NULL (counted in VD_WARN_ARENA) when the arena is full */
double *vd_arena_doubles(struct vd_data *d, size_t n);

/* reference-frame pose of body b (what the user configured): x y z az ay ax */
void vd_body_pose(const struct vd_model *m, const struct vd_data *d, int b, double pose[6]);

#endif /* VD_CORE_DATA_H */
