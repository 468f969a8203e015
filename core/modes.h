/* core/modes.h - the vibration modes of a model about its current state (a static
 * equilibrium): the analytic linearization the solvers use, as the first-order system
 *   q' = v,   M v' = (Jr K) q + Jv v + Jz z,   z' = Gq q + Gv v + Gz z
 * in the body perturbation coordinates q (CoM displacement, global; small rotation, body
 * axes; q' = v at rest, minus omega x phi for a turning body) with the tyre carcass states z,
 * solved as the generalized eigenproblem A y = lambda B y, B = diag(I, M, I), by LAPACK's dggev.
 * Each eigenvalue pair gets its undamped frequency |lambda| / 2 pi, damping ratio -Re lambda /
 * |lambda| and a name from its dominant coordinates (mass-weighted displacement of the bodies,
 * grouped by the template prefix of their names: the chassis' bounce, pitch, roll, ...; a corner's
 * wheel hop, spin, steer; the steering; an axle's two corners together, in phase or not).
 * With joints (m->nc > 0) the pencil is reduced to the constraint manifold: q = R s, v = R s'
 * with R an orthonormal basis of the null space of G, and the constraint forces' geometric
 * stiffness -d(G^T lambda)/dq added (modes.c, reduce); the modes are those of the f = nq - nc
 * free coordinates, their vectors given in the full coordinates.
 * Init/analysis only: allocates, O(n^3); never on the RT path. */
#ifndef VD_CORE_MODES_H
#define VD_CORE_MODES_H

#include "data.h"
#include "model.h"

enum vd_mode_kind {
    VD_MODE_OSC = 0, /* a complex pair: an oscillation */
    VD_MODE_REAL,    /* a real negative eigenvalue: an overdamped (relaxing) motion */
    VD_MODE_ZERO,    /* |lambda| below the zero threshold: no stiffness (rigid-body motion) */
    VD_MODE_UNSTABLE /* Re lambda > 0 beyond round-off: the equilibrium is unstable */
};

struct vd_mode {
    int kind;           /* enum vd_mode_kind */
    double re, im;      /* [1/s] eigenvalue (im >= 0: one of each complex pair) */
    double freq;        /* [Hz] |lambda| / 2 pi: the undamped natural frequency */
    double zeta;        /* [-] -re / |lambda| (1 for a real mode) */
    int body;           /* body with the largest share of the mass-weighted displacement */
    int coord;          /* its dominant coordinate: 0..2 x y z (global), 3..5 rotation about the
                           body's x y z */
    double share;       /* [-] that body's share of the whole */
    double group_share; /* [-] share of the body's group (name prefix before the first '.') */
    double rigid_share; /* [-] share of the coordinates a vehicle on tyres may move in without
                           stiffness: every body's x, y and yaw, the spin of wheels and shafts */
    double tire_share;  /* [-] share of the tyres' horizontal carcass stiffness in |lambda|^2
                           (its sensitivity to that stiffness): > 0.5, a motion on the tyres
                           rather than on the suspension */
    double zshare; /* [-] share of the tyre states (|z|^2 weighted by the tyre rate / |lambda|^2
                      is not comparable: the plain fraction of |z|^2 in |y|^2) */
    struct {
        int body, coord; /* as above */
        double share;    /* [-] */
    } top[4];            /* the four largest body coordinates, largest first */
    char name[64];       /* "body bounce", "wheel hop front_l", "wheel hop front (in phase)", ... */
};

/* The modes of m about the state in d (r, v, z, u): at rest a static equilibrium, or a
 * steady motion (the linearization about it; a body turning at omega adds phi' = -omega x
 * phi, so a rolling wheel's spin angle is a cyclic coordinate). Fills
 * out[0..max-1] sorted by frequency (zero modes first) and returns their number (<= max;
 * eigenvalues with im < 0 are the conjugates of those listed and left out), or -ENOMEM,
 * -EDOM (an evaluation failed) or -ERANGE (LAPACK did not converge). zero_hz: eigenvalues
 * with |lambda| / 2 pi below it are VD_MODE_ZERO. undamped: without Jv (dampers, bushing and
 * tyre damping, gyroscopic terms): the undamped natural frequencies sqrt(k / m) / 2 pi that
 * the ride literature quotes; with heavy, non-proportional damping (a damper that nearly locks
 * a suspension) the damped |lambda| lies between them and those of the locked system. */
int vd_modes(const struct vd_model *m, struct vd_data *d, double zero_hz, bool undamped,
             struct vd_mode *out, int max);

/* The coordinate names of vd_mode.coord for a body ("x", "y", "z", "rx", "ry", "rz") */
const char *vd_mode_coord_name(int coord);

#endif /* VD_CORE_MODES_H */
