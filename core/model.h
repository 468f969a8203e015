/* core/model.h - the immutable multibody model: rigid bodies, markers, characteristic curves,
 * bushings, point-to-point elements, inputs, gravity and solver options, plus the 6x6 block
 * pattern of the Jacobians that the topology implies.
 *
 * Coordinates (LSRT2 suspension paper, eq. 1): per body r = (x, y, z, az, ay', ax'') with the
 * Cardan z-y'-x'' sequence, v = (global linear velocity, body-frame angular velocity). The
 * translational coordinates and velocities refer to the body's centre of mass (body axes), so
 * the mass matrix is constant and block diagonal; the reference frame the user configures is
 * kept for input and output only.
 *
 * vd_model_new/add_ and finalize/free: init only, may allocate. After vd_model_finalize() the
 * model is frozen; everything on the RT path takes `const struct vd_model *`. */
#ifndef VD_CORE_MODEL_H
#define VD_CORE_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "blocklu.h"

#define VD_NAME_MAX 48
#define VD_GROUND   (-1) /* body index of the inertial frame */

enum vd_curve_kind {
    VD_CURVE_NONE = 0, /* y = 0 */
    VD_CURVE_LINEAR,   /* y = k x */
    VD_CURVE_TABLE,    /* table, interpolated; linear extrapolation with the end slopes */
};

enum vd_interp {
    VD_INTERP_PCHIP = 0, /* monotone cubic Hermite (Fritsch-Carlson): C1, no overshoot */
    VD_INTERP_LINEAR,    /* piecewise linear */
};

/* a characteristic curve y(x); table points live in the model's point pool */
struct vd_curve {
    int kind;   /* enum vd_curve_kind */
    int interp; /* enum vd_interp (tables) */
    double k;   /* [y/x] slope of VD_CURVE_LINEAR */
    int n;      /* table points */
    int off;    /* first point in vd_model.cx/cy/cm */
};

/* a curve as the builder takes it (the table is copied) */
struct vd_curve_spec {
    int kind;
    int interp;
    double k;
    int n;
    const double *x; /* (n) strictly increasing */
    const double *y; /* (n) */
};

struct vd_body {
    char name[VD_NAME_MAX];
    double mass;       /* [kg] */
    double inertia[9]; /* [kg m^2] about the CoM, body axes, row-major */
    double com[3];     /* [m] CoM in the body reference frame */
    double pose0[6];   /* [m, rad] initial reference frame: x y z az ay ax */
    double vel0[6];    /* [m/s, rad/s] initial CoM velocity (global), body-frame omega */
};

struct vd_marker {
    char name[VD_NAME_MAX];
    int body;      /* body index or VD_GROUND */
    double pos[3]; /* [m] in the body reference frame (ground: global) */
    double rot[9]; /* marker axes in body axes, row-major (marker -> body) */
    double s[3];   /* [m] derived: position relative to the CoM, body axes */
};

/* how a bushing measures the relative rotation of marker i in marker j's axes */
enum vd_rot_mode {
    VD_ROT_VECTOR = 0, /* rotation vector of Rj^T Ri: isotropic, |theta| < pi */
    VD_ROT_CARDAN,     /* Rj^T Ri = Rz(rz) Ry(ry) Rx(rx): rx unbounded (unwrapped, e.g. a
                          wheel or pinion spinning about marker j's x axis), |ry| < 90 deg */
};

/* what drives a bushing component besides its curves */
enum vd_act {
    VD_ACT_NONE = 0,
    VD_ACT_FORCE,    /* F_k += gain * u: a force/torque pair (drive torque, EPS motor) */
    VD_ACT_SERVO,    /* the stiffness curve acts on q_k - gain * u (prescribed angle/travel) */
    VD_ACT_FRICTION, /* stick-slip friction: the stiffness and damping form the sticking
                        spring, the force is limited to |gain * u| (a brake); the spring's
                        anchor moves while sliding, so a held brake does not creep */
};

/* six-component bushing between marker i (body 1) and marker j (body 2). Deflection
 * d = Rj^T (p_i - p_j) and the rotation (see vd_rot_mode) are the component coordinates
 * q (x y z rx ry rz), all in marker j's axes; their rates are d' and the relative angular
 * velocity Rj^T (w_i - w_j). Component k: F_k = stiff[k](q_k) + damp[k](q_k') (+ actuation).
 * Force -Rj F[0:3] and torque -Rj F[3:6] act on body 1 at p_i, the opposite on body 2 at
 * the same point. */
struct vd_bushing {
    char name[VD_NAME_MAX];
    int mk[2];                /* markers i, j */
    struct vd_curve stiff[6]; /* x y z: [N] vs [m]; rx ry rz: [N m] vs [rad] */
    struct vd_curve damp[6];  /* x y z: [N] vs [m/s]; rx ry rz: [N m] vs [rad/s] */
    int rot_mode;             /* enum vd_rot_mode */
    int act[6];               /* enum vd_act per component */
    int act_input[6];         /* input index driving the component (VD_ACT_*) */
    double act_gain[6];       /* [N or N m or m or rad per unit of u] */
};

/* a gear or coupling between two bushing components (rack travel and pinion rotation, a
 * steering box): g = q_a - ratio * q_b, F = stiff(g) + damp(g'); the component force F
 * acts on bushing a's component and -ratio F on bushing b's (virtual work). */
struct vd_coupler {
    char name[VD_NAME_MAX];
    int bush[2];           /* bushings a, b */
    int comp[2];           /* components 0..5 (x y z rx ry rz) */
    double ratio;          /* [q_a units per q_b unit] */
    struct vd_curve stiff; /* [N or N m] vs g */
    struct vd_curve damp;  /* vs g' */
};

/* point-to-point element along the line between markers i and j. Sign convention: force
 * F > 0 is compression (pushes the markers apart); x = compression = L0 - L. */
struct vd_p2p {
    char name[VD_NAME_MAX];
    int mk[2];
    bool has_spring, has_damper, has_bump, has_rebound;
    double free_length;      /* [m] L0 of the spring */
    double preload;          /* [N] compression force at L = L0 */
    struct vd_curve spring;  /* [N] vs compression [m] */
    struct vd_curve damper;  /* [N] vs compression rate -L' [m/s] */
    double bump_length;      /* [m] bump stop engages for L < bump_length */
    struct vd_curve bump;    /* [N] vs penetration [m], progressive */
    double rebound_length;   /* [m] rebound stop engages for L > rebound_length */
    struct vd_curve rebound; /* [N] vs penetration [m], progressive */
};

enum vd_input_kind {
    VD_INPUT_FORCE = 0, /* force u dir at the marker */
    VD_INPUT_TORQUE,    /* torque u dir on the marker's body */
    VD_INPUT_ACTUATOR,  /* no load of its own: drives bushing components (enum vd_act) */
};
enum vd_frame { VD_FRAME_GLOBAL = 0, VD_FRAME_MARKER };

/* input j: a force or torque u[j] * dir applied at a marker (dir in global or marker axes),
 * or an actuator signal that bushing components refer to */
struct vd_input {
    char name[VD_NAME_MAX];
    int marker; /* -1 for VD_INPUT_ACTUATOR */
    int kind;   /* enum vd_input_kind */
    int frame;  /* enum vd_frame */
    double dir[3];
};

/* ideal joints (core/joint.h): kinematic constraints between marker i (body 1) and marker
 * j (body 2); rows per type in joint.h */
enum vd_joint_type {
    VD_JOINT_SPHERICAL = 0,      /* 3 rows: the markers coincide */
    VD_JOINT_REVOLUTE,           /* 5: rotation about the common z axis */
    VD_JOINT_UNIVERSAL,          /* 4: rotations about x of marker i and y of marker j */
    VD_JOINT_CYLINDRICAL,        /* 4: translation along and rotation about z of marker j */
    VD_JOINT_PRISMATIC,          /* 5: translation along z of marker j */
    VD_JOINT_FIXED,              /* 6 */
    VD_JOINT_DISTANCE,           /* 1: |p_i - p_j| = length (a rod with spherical ends) */
    VD_JOINT_DRIVEN_TRANSLATION, /* 1: z_j . (p_i - p_j) = offset + gain u[input] */
    VD_JOINT_DRIVEN_ROTATION,    /* 1: angle of x_i about z_j = offset + gain u[input] */
    VD_JOINT_ORIENTATION,        /* 3: the markers' axes stay parallel (translations free) */
    VD_JOINT_NTYPE
};

struct vd_joint {
    char name[VD_NAME_MAX];
    int type;      /* enum vd_joint_type */
    int mk[2];     /* markers i, j */
    double length; /* [m] distance joints (> 0) */
    int input;     /* driven joints: actuator input index, or -1 (offset only) */
    double gain;   /* [m or rad per unit of u] driven joints */
    double offset; /* [m or rad] driven joints: the coordinate at u = 0 */
};

/* road: a plane with grade, obstacles and per-track height profiles, and a friction scale */
enum vd_obstacle_kind {
    VD_OBST_SQUARE = 0, /* plateau of height h and length L; edges rounded over `edge`
                           (raised cosine), the enveloping of a real tyre over a step */
    VD_OBST_HALFSINE,   /* h sin(pi s / L) for 0 <= s <= L */
    VD_OBST_RAMP,       /* rises to h over L and stays there */
};

struct vd_obstacle {
    int kind;            /* enum vd_obstacle_kind */
    double x0;           /* [m] start along global x */
    double length;       /* [m] */
    double height;       /* [m] */
    double edge;         /* [m] rounding length of square edges */
    double y_min, y_max; /* [m] lateral extent (global y) */
};

#define VD_ROAD_MAX_OBST 16

struct vd_road {
    double z0;       /* [m] height at the origin */
    double grade[2]; /* [-] dz/dx, dz/dy of the base plane (10 % slope: 0.1) */
    double mu;       /* [-] friction scale applied to the tyres' own (1 = as measured) */
    int nobst;
    struct vd_obstacle obst[VD_ROAD_MAX_OBST];
    int nprof;          /* profile points (core/road.h: the two tracks, blended across y) */
    int prof_off;       /* first point in vd_model.cx (x) / cy (left z) / cm (right z) */
    double track_y;     /* [m] global y midway between the left and right tracks */
    double track_width; /* [m] lateral distance of the tracks (0: switch at track_y) */
};

enum vd_method { VD_METHOD_LIE = 0, VD_METHOD_LSRT2 };
/* how the iteration matrix is factored and solved */
enum vd_linear {
    VD_LINEAR_DENSE = 0,  /* LAPACK LU of the dense nq x nq matrix: the reference */
    VD_LINEAR_STRUCTURED, /* block-sparse LU along the topology (core/blocklu.h) */
};

/* how LSRT2's second stage evaluates the forces */
enum vd_stage2 {
    VD_STAGE2_LINEARIZED = 0, /* h1 + J (stage - start): paper eq. 15; kinematics nonlinear */
    VD_STAGE2_NONLINEAR,      /* h(stage point): the W-form of numerics.md §1.5 */
};

/* how a model with joints is integrated (solver.constraints) */
enum vd_constraints {
    VD_CONSTRAINTS_INDEX2 = 0, /* augmented (nq + nc) system, velocity constraint at t + dt */
    VD_CONSTRAINTS_NULLSPACE,  /* coordinate partitioning: R = P [-Gu^-1 Gw; I], f x f system */
};
/* the projection after a step of a model with joints (solver.project) */
enum vd_project {
    VD_PROJECT_NONE = 0,  /* none: the constraints drift (for contrast only) */
    VD_PROJECT_POSITIONS, /* one simplified Newton step of the positions onto g = 0 */
    VD_PROJECT_BOTH,      /* and of the velocities onto G v = s' */
};

/* the model form (solver.formulation) */
enum vd_formulation {
    VD_FORM_FA = 0, /* every body free, every joint a constraint (the model as built) */
    VD_FORM_CE,     /* minimal coordinates: a tree with the double wishbones embedded (ce.h) */
    VD_FORM_TA,     /* a tree over every body, the loops' joints cut as constraints (ta.h) */
};

struct vd_solver_opts {
    int formulation;        /* enum vd_formulation */
    char weld[VD_NAME_MAX]; /* ce, ta: comma-separated body-name prefixes welded to the root */
    int method;             /* enum vd_method */
    int constraints;        /* enum vd_constraints (models with joints) */
    int project;            /* enum vd_project (models with joints) */
    double reselect;        /* nullspace: re-select the independent coordinates when the pivot
                               ratio of Gu falls below reselect x its value at the selection */
    int stage2;             /* enum vd_stage2 (LSRT2) */
    double dt;              /* [s] step */
    int relin;              /* refresh the linearization every relin steps (>= 1) */
    int linear;             /* enum vd_linear; may change after finalize only before vd_data_new */
    char root[VD_NAME_MAX]; /* body the structured solve eliminates last; "" = the body
                               named "chassis", else the one with the most neighbours */
};

/* the effective road of an enveloping tyre (core/tire_env.h): tandem elliptical cams */
#define VD_ENV_NTAB 128 /* intervals of the cam's height table over |xi| <= 0.99 ae */
#define VD_ENV_NMAX 256 /* road samples per evaluation at most */

struct vd_tire_env {
    int on;                         /* 0: point contact (the road under the wheel centre) */
    double ae, be, ce;              /* [m], [m], [-] cam semi-axes and exponent */
    double ls;                      /* [m] tandem base */
    double ds;                      /* [m] road increment (grid spacing along the heading) */
    double xmax;                    /* [m] half-length of the cam used, 0.99 ae */
    int ns;                         /* road samples per evaluation: fixed */
    double off[VD_ENV_NTAB + 1][2]; /* off(xi), off'(xi) [m], [-] at xi = j xmax / NTAB */
};

/* tyre on a wheel body: single contact point on the road with Magic Formula forces and
 * first-order relaxation (two states: longitudinal and lateral carcass deflection) */
struct vd_mf_params;
struct vd_tm_params;

/* the force model of a tyre */
enum vd_tire_model {
    VD_TIRE_MF = 0,     /* Magic Formula 5.2 / 6.1 / 6.2 (core/tire_mf.h) */
    VD_TIRE_TMEASY = 1, /* TMeasy (core/tire_tmeasy.h) */
};

struct vd_tire {
    char name[VD_NAME_MAX];
    int marker;    /* wheel centre on the wheel body, x axis = spin axis pointing left */
    int model;     /* enum vd_tire_model: the force model (0: Magic Formula, the default) */
    int mf;        /* index into vd_model.mf (MF) or vd_model.tm (TMeasy) */
    double r0;     /* [m] unloaded radius */
    double kz, cz; /* [N/m], [N s/m] vertical stiffness and damping */
    double c_low;  /* [N s/m] carcass damping at standstill at FNOMIN, faded out above v_low */
    double v_low;  /* [m/s] */
    int mirror;    /* mounted mirrored to the measurement (TYRESIDE): alpha, gamma, Fy, Mz
                      change sign */
    int zoff;      /* first of the 2 relaxation states in the state vector z (finalize) */
    struct vd_tire_env env; /* road contact: point (env.on = 0) or enveloping */
    double pressure;        /* [Pa] inflation pressure (MF 6.x); 0: the file's INFLPRES */
};

struct vd_model {
    char name[VD_NAME_MAX];
    double gravity[3]; /* [m/s^2] */
    struct vd_road road;
    struct vd_solver_opts opt;
    int nbody, nmarker, nbush, np2p, ninput, ncoupler, ntire, nmf, ntm, njoint;
    int nc;                     /* constraint rows of the joints (finalize) */
    int nz;                     /* first-order element states (2 per tyre) */
    int nq;                     /* 6 nbody: size of r, v and h */
    struct vd_body *body;       /* (nbody) */
    struct vd_marker *marker;   /* (nmarker) */
    struct vd_bushing *bush;    /* (nbush) */
    struct vd_p2p *p2p;         /* (np2p) */
    struct vd_input *input;     /* (ninput) */
    struct vd_coupler *coupler; /* (ncoupler) */
    struct vd_tire *tire;       /* (ntire) */
    struct vd_joint *joint;     /* (njoint) */
    int *joint_row;             /* (njoint + 1) first row of each joint (finalize) */
    int *jrow_body;             /* (2 nc) the bodies of each row: body 1, body 2 (finalize) */
    int *jrow_joint;            /* (nc) the joint of each row (finalize) */
    struct vd_mf_params *mf;    /* (nmf) tyre parameter sets */
    struct vd_tm_params *tm;    /* (ntm) TMeasy parameter sets */
    double *minv_inertia;       /* (9 nbody) inverse inertia, for diagnostics */
    double *cx, *cy, *cm;       /* curve point pool: x, y, slope (ncpt) */
    int ncpt;

    /* block pattern (finalize): 6x6 blocks (i, j) where body j's coordinates enter body i's
     * forces; CSR by block row, columns sorted, the diagonal always present */
    int nblk;
    int *blk_rowptr; /* (nbody + 1) */
    int *blk_col;    /* (nblk) */
    int *blk_diag;   /* (nbody) block id of (i, i) */
    int *bush_blk;   /* (4 nbush) ids of blocks 11, 12, 21, 22; -1 where a side is ground */
    int *p2p_blk;    /* (4 np2p) likewise */
    int *cpl_blk;    /* (16 ncoupler) sides (a1 a2 b1 b2) x column groups (a1 a2 b1 b2) */
    /* plain bushings (finalize): every component's law linear or none, no actuation; their
     * laws are evaluated four bushings at a time (core/bushing.c), the others' one by one */
    unsigned char *bush_plain; /* (nbush) 1 if plain */
    /* (12 nbush) linear stiffness [N/m, N m/rad] x y z rx ry rz, then damping [N s/m,
     * N m s/rad]; 0 for a component without a linear law */
    double *bush_kc;

    /* input Jacobian pattern (finalize): input j moves the bodies ju_body[ju_ptr[j] ..
     * ju_ptr[j+1]); entry e holds the 6 rows dh_b/du_j of body ju_body[e] */
    int nju;
    int *ju_ptr;  /* (ninput + 1) */
    int *ju_body; /* (nju) */
    int *bush_ju; /* (12 nbush) entries of component c, side s at [12 e + 2 c + s]; -1 none */

    /* structured solve (finalize): elimination order and symbolic block LU of the pattern;
     * with joints on the structured path (core/csblock.h) the pattern of the augmented
     * system: the bodies, then one multiplier node per group of joint rows */
    struct vd_blu blu;
    int *blk_slot;   /* (nblk) the slot in d->F of each pattern block */
    int njnode;      /* multiplier nodes (0 on the dense path) */
    int *jnode_row;  /* (6 njnode) the constraint rows of node n, -1 = a padding row */
    int *jnode_body; /* (2 njnode) its bodies a, b (b may be VD_GROUND) */
    int *jnode_slot; /* (5 njnode) slots of (n, n), (n, a), (a, n), (n, b), (b, n); -1: ground */
    /* what the projection after a constrained step reads (vd_csb_analyze): the bodies that
     * carry a joint's marker and the joints' markers */
    int njk_body, *jk_body; /* (njk_body) ascending */
    int njk_mk, *jk_mk;     /* (njk_mk) ascending */
    /* the nullspace form on the structured path: its clusters' symbolic part (core/csnull.h;
     * NULL otherwise) */
    struct vd_csn *csn;
    /* the CE form (finalize, opt.formulation ce): the tree and its closures (core/ce.h) */
    struct vd_ce *ce;
    /* the TA form (finalize, opt.formulation ta): the tree and its cut joints (core/ta.h) */
    struct vd_ta *ta;

    bool frozen;
    int err_joint; /* after a failed vd_model_finalize: the joint its error is about, or -1 */
    int cap_body, cap_marker, cap_bush, cap_p2p, cap_input, cap_cpt, cap_cpl, cap_tire, cap_mf,
        cap_tm, cap_joint; /* builder */
};

/* init-time (may allocate) */
struct vd_model *vd_model_new(const char *name);
void vd_model_free(struct vd_model *m);
/* each add returns the new index, or -errno (-EINVAL on bad arguments, -ENOMEM) */
int vd_model_add_body(struct vd_model *m, const struct vd_body *b);
int vd_model_add_marker(struct vd_model *m, const struct vd_marker *mk);
int vd_model_add_bushing(struct vd_model *m, const struct vd_bushing *b);
int vd_model_add_p2p(struct vd_model *m, const struct vd_p2p *p);
int vd_model_add_input(struct vd_model *m, const struct vd_input *in);
int vd_model_add_coupler(struct vd_model *m, const struct vd_coupler *c);
int vd_model_add_joint(struct vd_model *m, const struct vd_joint *j);
/* copy a tyre parameter set; index or -errno */
int vd_model_add_mf(struct vd_model *m, const struct vd_mf_params *p);
int vd_model_add_tm(struct vd_model *m, const struct vd_tm_params *p);
int vd_model_add_tire(struct vd_model *m, const struct vd_tire *t);
/* room for n more points in the point pool (cx, cy, cm) of curves and road profiles; 0 or
 * -ENOMEM (the builder's, for core/curve.c and core/road.c) */
int vd_model_reserve_points(struct vd_model *m, int n);
/* road height profile per track (copied): x strictly increasing; 0 or -errno */
int vd_model_set_profile(struct vd_model *m, int n, const double *x, const double *zl,
                         const double *zr, double track_y, double track_width, char *err,
                         size_t errlen);
/* copy a curve spec into the model's pool and fill *out; 0 or -errno; err gets the reason */
int vd_model_add_curve(struct vd_model *m, const struct vd_curve_spec *spec, bool monotone,
                       struct vd_curve *out, char *err, size_t errlen);
/* check everything, derive CoM-relative marker offsets and the block pattern, freeze.
 * 0 or -EINVAL with a one-line reason in err. */
int vd_model_finalize(struct vd_model *m, char *err, size_t errlen);
/* the model form of a finalized model (enum vd_formulation): builds the CE or TA tree (or
 * none: fa) and sets opt.formulation; vd_model_finalize calls it, `rtvd --formulation` again
 * before vd_data_new. 0, or -EINVAL with the reason in err (the form is then fa) */
int vd_model_set_formulation(struct vd_model *m, int form, char *err, size_t errlen);

/* lookups by name: index or -1 (ground is "ground" for bodies) */
int vd_model_find_body(const struct vd_model *m, const char *name);
/* solver.weld: a comma-separated list of body-name prefixes; true if name starts with one */
bool vd_model_weld_match(const char *weld, const char *name);
int vd_model_find_marker(const struct vd_model *m, const char *name);
int vd_model_find_bushing(const struct vd_model *m, const char *name);
int vd_model_find_p2p(const struct vd_model *m, const char *name);
int vd_model_find_input(const struct vd_model *m, const char *name);
int vd_model_find_coupler(const struct vd_model *m, const char *name);
int vd_model_find_tire(const struct vd_model *m, const char *name);
int vd_model_find_joint(const struct vd_model *m, const char *name);
/* constraint rows of a joint type */
int vd_joint_rows(int type);

/* checks shared with the config loader */
bool vd_inertia_valid(
    const double inertia[9]); /* symmetric positive definite, triangle inequality */

/* RT-safe */
/* y = curve(x), *dy = dy/dx */
double vd_curve_eval(const struct vd_model *m, const struct vd_curve *c, double x, double *dy);
/* block id of (i, j), or -1 when the pair is not in the pattern */
int vd_model_block(const struct vd_model *m, int i, int j);

#endif /* VD_CORE_MODEL_H */
