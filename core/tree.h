/* core/tree.h - a multibody model in relative (joint) coordinates on a spanning tree: the
 * minimal-coordinate form (DESIGN.md §2). Owns the tree description (nodes, bodies, mass
 * properties) and its work arrays; knows nothing of force elements: the caller hands in the
 * bodies' applied forces h (rtvd's body convention: force at the CoM in global axes, torque
 * in body axes) and their Jacobian blocks in rtvd's body perturbation coordinates (core/eval.h),
 * and gets back M(q) and f(q, u) of M u' = f with q' = K(q) u, and the Jacobians of f.
 *
 * Nodes (joints of the tree), each hanging on a parent body (or the ground):
 *   free        6 coordinates: CoM position (global), Cardan z-y'-x'' angles; velocities u =
 *               (CoM velocity, global axes; angular velocity, body axes) as rtvd's bodies;
 *               ground parent only (the root: a chassis)
 *   revolute    1: angle about an axis fixed in the parent, through a point of the parent
 *   prismatic   1: travel along an axis fixed in the parent
 *   fixed       0: welded to the parent at its design pose
 *   spherical   3: a ball joint at a point of the parent: Cardan z-y'-x'' angles of the
 *               body's rotation relative to its design pose, about the parent's axes
 *               (A = Rz(q0) Ry(q1) Rx(q2) A0, the CoM turning about the point), u = q'.
 *               Regular while |q1| < 90 deg; a knuckle on its lower arm (steering on q0
 *               about the parent's z, the arm's swing on q2) keeps q1 within a few
 *               degrees. Chosen over a rotation vector for the free root's convention
 *               and its closed-form columns (e_z, Rz e_y, Rz Ry e_x) and their
 *               derivatives (cross products), which the rotation vector's dexp lacks
 *   embedded    nd <= VD_TREE_MAXD coordinates moving nb bodies at once (constraint
 *               embedding, Jain's aggregated body): a closure function gives each body's
 *               pose relative to the parent, its relative velocity columns s(q), their
 *               derivatives ds/dq and the relative acceleration term kappa = (d/dt s) q'
 *               (a double-wishbone corner: core/dwcorner.h)
 * A node's bodies all hang on the node's parent body; bodies are numbered parent first.
 *
 * Spatial algebra (Featherstone, "Rigid Body Dynamics Algorithms", Springer 2008; RBDA):
 * every spatial vector is in global axes at the global origin (Plücker, angular part first),
 * so that velocities of a chain add (v_i = v_parent + S_i q'_i, RBDA Table 5.1 without
 * the transforms) and the
 * composite inertias of the composite-rigid-body algorithm add without transforms.
 *   M:   composite-rigid-body algorithm (RBDA §6.2, Table 6.2), O(bodies x depth);
 *   f:   recursive Newton-Euler (RBDA §5.3, Table 5.1) with q'' = 0, O(bodies):
 *        f = Q_applied - C(q, u) - gravity;
 *   Jacobians df/dq K and df/du: the tangent-linear recursive Newton-Euler (forward-mode
 *        derivative of every recursion variable along one direction, O(bodies) per
 *        direction), optionally at a given q'' so that they are the Jacobians of
 *        f - M(q) q'' (what a linearly implicit step needs: d(M^-1 f)/dq = M^-1 (df/dq -
 *        dM/dq q'')).
 * Why CRBA and not the articulated-body algorithm: the linearly implicit step factors
 * [M - h df/du - h^2 df/dq K] itself, so it needs M explicitly (ABA never forms it), and the
 * vehicle tree is shallow (depth 3: chassis, corner, wheel), where CRBA's O(n d) is O(n).
 *
 * vd_tree_new/add/finalize/free, vd_tree_data_new/free: init only, may allocate. Everything
 * else is RT-safe: no allocation, no syscalls, fixed work per body. */
#ifndef VD_CORE_TREE_H
#define VD_CORE_TREE_H

#include <stddef.h>

#define VD_TREE_MAXD 6 /* coordinates of one node at most */

enum vd_tree_type {
    VD_TREE_FREE = 0,
    VD_TREE_REVOLUTE,
    VD_TREE_PRISMATIC,
    VD_TREE_EMBEDDED,
    VD_TREE_FIXED,     /* 0 coordinates: the body welded to the parent (A0, x0) */
    VD_TREE_SPHERICAL, /* 3: Cardan angles relative to the design pose about point */
};

/* relative kinematics of one body of an embedded node, in the parent body's axes at the
 * parent's CoM (the parent held fixed); q' is the node's velocity */
struct vd_tree_rel {
    double A[9];                                /* rotation body -> parent, row-major */
    double x[3];                                /* [m] CoM in the parent frame */
    double s[6 * VD_TREE_MAXD];                 /* column j: (omega; v at the parent's CoM)
                                                   per unit q'_j, column-major 6 x nd */
    double ds[6 * VD_TREE_MAXD * VD_TREE_MAXD]; /* ds_j/dq_k at [6 (j + nd k)] */
    double kappa[6];                            /* (d/dt s) q' at fixed q' */
    double dkappa[6 * VD_TREE_MAXD];            /* d kappa/dq_k at fixed q' (column k) */
    int mf_only; /* in, the node's first body: 1 when vd_tree_kin_mf calls (ds, dkappa not
                    read: a closure may skip them), 0 from vd_tree_kin (and a zeroed rel); a
                    closure may ignore it */
};

/* the closure of an embedded node: fill rel[0 .. nb) for coordinates q and rates qd (nd
 * each); 0, or -EDOM when the loop cannot close (the state is then rejected) */
typedef int (*vd_tree_closure_fn)(const void *ctx, const double *q, const double *qd,
                                  struct vd_tree_rel *rel);

struct vd_tree_node {
    int type;              /* enum vd_tree_type */
    int parent;            /* parent body, -1: ground */
    int nd;                /* coordinates */
    int off;               /* first coordinate in q and u (equal counts per node) */
    int b0, nb;            /* its bodies b0 .. b0 + nb - 1 */
    double axis[3];        /* revolute, prismatic: unit axis in the parent's axes */
    double point[3];       /* revolute: a point of the axis; spherical: the centre; parent
                              frame (m, from its CoM) */
    vd_tree_closure_fn fn; /* embedded */
    const void *ctx;       /* embedded: the closure's data (immutable while stepping) */
};

struct vd_tree_body {
    int node;
    double mass;       /* [kg] */
    double inertia[9]; /* [kg m^2] about the CoM, body axes, row-major */
    double A0[9];      /* revolute, prismatic, fixed, spherical: rotation body -> parent at q = 0 */
    double x0[3];   /* revolute, prismatic, fixed, spherical: [m] CoM in the parent frame, q = 0 */
    unsigned dmask; /* embedded: bit j set when its node's coordinate j moves it (its columns s_j,
                       ds/dq_j, ds_j/dq, d kappa/dq_j not all zero by construction); 0: every
                       one. vd_tree_add sets 0, vd_tree_set_dmask declares it; the Jacobians
                       (tree_jac.h) skip a body for the coordinates that do not move it */
};

struct vd_tree {
    int nnode, nbody, n; /* n: coordinates (= velocities) */
    struct vd_tree_node *node;
    struct vd_tree_body *body;
    int cap_node, cap_body;
};

/* the applied forces' Jacobian blocks (rtvd's body perturbation coordinates, core/eval.h):
 * block e couples tree body row[e] (forces) to tree body col[e] (motion); 6x6 column-major:
 * Jp = dh/d(dx, dpi global), Jv = dh/d(v CoM global, omega body) */
struct vd_tree_ext {
    int nblk;
    const int *row, *col;
    const double *Jp, *Jv; /* (36 nblk) */
};

/* work and results; one allocation */
struct vd_tree_data {
    /* per body: kinematics of the last vd_tree_kin */
    double *A;  /* (9 nbody) rotation body -> global */
    double *x;  /* [m] (3 nbody) CoM, global */
    double *S;  /* (6 VD_TREE_MAXD nbody) motion columns of its node, global Plücker */
    double *V;  /* (6 nbody) spatial velocity (omega; velocity of the point at the origin) */
    double *c;  /* (6 nbody) velocity-product acceleration of its node */
    double *I;  /* (36 nbody) spatial inertia at the origin, global axes */
    double *Ic; /* (36 nbody) composite inertia (CRBA) */
    double *a;  /* (6 nbody) acceleration (bias + S q'' + gravity) of vd_tree_forces */
    double *F;  /* (6 nbody) subtree force of vd_tree_forces */
    double *fx; /* (6 nbody) applied force as a spatial force */
    double *fv; /* (6 nbody) v x* I v of vd_tree_forces */
    struct vd_tree_rel *rel; /* (nbody) embedded nodes' closures */
    /* tangents along one direction */
    double *dD, *dS, *dV, *dc, *da, *dF, *dh;
    double *e, *ez;      /* (n) work: a unit direction, zeros */
    unsigned char *act;  /* (nbody) the bodies a tangent direction moves */
    double *M;           /* (n n) column-major, vd_tree_crba */
    double *f;           /* (n) vd_tree_forces */
    double *Jq;          /* (n n) df/dq K (column k: along q' = K e_k), vd_tree_jac */
    double *Ju;          /* (n n) df/du */
    const double *q, *u; /* of the last vd_tree_kin */
    unsigned kgen;       /* counts vd_tree_kin calls */
    unsigned fgen;       /* kgen of the last vd_tree_forces (fx, fv hold its h's) */
    const double *fh;    /* its h */
};

/* does coordinate j of its node move body b (dmask)? A body's columns S_j, dS_j of a
 * coordinate that does not move it are exact zeros: the recursions skip their products */
static inline int vd_tree_moves(const struct vd_tree *t, int b, int j)
{
    const unsigned m = t->body[b].dmask;

    return !m || (m >> j & 1u);
}

/* init-time (may allocate) */
struct vd_tree *vd_tree_new(void);
void vd_tree_free(struct vd_tree *t);
/* add a node with nb bodies (their mass properties in b[0 .. nb), A0/x0 for revolute and
 * prismatic); returns the node index or -errno (-EINVAL: bad parent, axis, type, count) */
int vd_tree_add(struct vd_tree *t, const struct vd_tree_node *nd, const struct vd_tree_body *b,
                int nb);
/* vd_tree_add of an embedded node of nd coordinates on body parent, its closure fn on ctx */
int vd_tree_add_embedded(struct vd_tree *t, int parent, int nd, vd_tree_closure_fn fn,
                         const void *ctx, const struct vd_tree_body *b, int nb);
/* declare the coordinates of its embedded node that move body b (struct vd_tree_body's dmask);
 * 0 or -EINVAL (no such body, not an embedded node's, or bits beyond its coordinates) */
int vd_tree_set_dmask(struct vd_tree *t, int b, unsigned mask);
struct vd_tree_data *vd_tree_data_new(const struct vd_tree *t);
void vd_tree_data_free(struct vd_tree_data *td);

/* RT-safe */
/* kinematics at (q, u): poses, motion columns, velocities, velocity-product accelerations,
 * spatial inertias; 0 or -EDOM (a closure failed) */
int vd_tree_kin(const struct vd_tree *t, struct vd_tree_data *td, const double *q, const double *u);
/* the same for M and f only (vd_tree_crba, vd_tree_forces; not the Jacobians, which read the
 * closures' ds and dkappa): an embedded node's closure may skip them (rel mf_only 1) */
int vd_tree_kin_mf(const struct vd_tree *t, struct vd_tree_data *td, const double *q,
                   const double *u);
/* M into td->M (CRBA), after vd_tree_kin */
void vd_tree_crba(const struct vd_tree *t, struct vd_tree_data *td);
/* f = Q(h) - C - gravity terms - M qdd into td->f (RNEA), after vd_tree_kin; h (6 nbody):
 * applied forces (F global, torque body axes; NULL: none); qdd NULL: 0 */
void vd_tree_forces(const struct vd_tree *t, struct vd_tree_data *td, const double g[3],
                    const double *h, const double *qdd);
/* vd_tree_forces(t, td, g, h, qdd) again with the applied forces h of the last vd_tree_forces
 * at the same kinematics, h unchanged since (its spatial forces and v x* I v kept in td->fx,
 * td->fv: the same numbers, bit for bit); when the last call was at other kinematics or
 * another h, the full vd_tree_forces */
void vd_tree_forces_again(const struct vd_tree *t, struct vd_tree_data *td, const double g[3],
                          const double *h, const double *qdd);
/* td->Jq = d f/dq K and td->Ju = d f/du of vd_tree_forces at the same arguments, with the
 * applied forces' blocks ext (NULL: h does not depend on the state) */
void vd_tree_jac(const struct vd_tree *t, struct vd_tree_data *td, const double g[3],
                 const double *h, const struct vd_tree_ext *ext, const double *qdd);
/* q' = K(q) u */
void vd_tree_qdot(const struct vd_tree *t, const double *q, const double *u, double *qd);
/* body b in rtvd's coordinates after vd_tree_kin: r = (CoM, Cardan angles, principal
 * values), v = (CoM velocity global, omega body) */
void vd_tree_body_state(const struct vd_tree_data *td, int b, double r[6], double v[6]);

#endif /* VD_CORE_TREE_H */
