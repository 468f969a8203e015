/* core/nlcorner.h - constraint embedding of a corner whose loops have no closed form (issue 14):
 * the ideal-joint multilink (the LIE paper's: five links, each on a universal joint inboard
 * and a ball joint on the knuckle, the strut on the trailing link) and the McPherson
 * (Chrono's MacPhersonStrut: the lower arm on a revolute and a ball joint, the piston rod on
 * a universal joint at the top mount and a cylindrical joint in the knuckle, the tie rod on a
 * universal and a ball joint), each one embedded tree node (core/tree.h) of one coordinate:
 *   multilink   the wheel centre's height above its design position along the parent's z
 *               (the knuckle point; no link is a natural "arm")     [m]
 *   mcpherson   the lower arm's angle about its pivot axis (as core/dwcorner.h)  [rad]
 *
 * The loop equations: the knuckle's pose y = (t, Q) (the displacement of its design CoM g
 * and its rotation from the design pose: a knuckle point p of the design pose is at
 * P(p) = Q (p - g) + g + t) satisfies six scalar equations F(y, q) = 0, in metres:
 *   link l (outer ball at o_l, inner joint at c_l, length L_l):  (|P(o_l) - c_l|^2 - L^2) / 2L
 *   multilink coordinate:                                        z . (P(w) - w) - q
 *   McPherson ball on the arm:     P(b) - B(q),  B(q) = c + Rot(a, q) (b - c)     (3 rows)
 *   McPherson strut line through the top mount T (the cylindrical joint's axis is a line of
 *   the knuckle; the piston rod turns about T on its universal joint, so the line must pass
 *   through T):  (Q n_i) . (T - P(l)),  n_1, n_2 normal to the line's direction d at l (2)
 * (multilink: 5 links + the coordinate; McPherson: 3 + 2 + the tie rod). Their Jacobian in
 * the increments (dt, dth) of y (Q <- exp([dth]x) Q) is analytic: a point moves by
 * dt + dth x Q (p - g), so a link row is ((P - c) / L, (Q (p - g)) x (P - c) / L), the
 * coordinate row (z, Q (w - g) x z), the ball rows (e_i, Q (b - g) x e_i) and the line rows
 * (-N_i, N_i x (T - g - t)), N_i = Q n_i. Everything else follows the knuckle in closed form:
 * each link's axis from its two ends, its spin from the universal joint (its cross axis x
 * normal to the mount's y: x = +-(y_j x z) / |y_j x z|, the design pose's branch), the piston
 * rod along the knuckle's line (McPherson) or from the top mount to the trailing link's strut
 * point (multilink: the damper tube slides on it), the McPherson's lower arm by its angle.
 *
 * Positions: a FIXED number VD_NLC_NEWTON of Newton iterations from a predictor, the knuckle
 * pose tabulated over the coordinate's range at init (VD_NLC_NTAB intervals, linear in t and
 * in the rotation vector of Q), then the residual at the last iterate: above VD_NLC_RTOL the
 * closure fails with -EDOM (the state is rejected and counted as the double wishbone's), as it
 * does outside the tabulated range (the range the iteration count is proven on).
 *
 * Why the fixed count suffices (vd_nlc_init proves it per corner, or refuses the corner): the
 * Newton-Kantorovich theorem (Kantorovich & Akilov, Functional Analysis, 1982, ch. XVIII; the
 * form of Dennis & Schnabel, Numerical Methods for Unconstrained Optimization, 1996, Thm.
 * 5.3.1 / Ortega & Rheinboldt 12.6.2): with beta >= |J(y0)^-1|, eta >= |J(y0)^-1 F(y0)| (the
 * first step from the predictor) and gamma a Lipschitz constant of J near y0, h = beta gamma
 * eta <= 1/2 gives convergence and |y_k - y*| <= 2^(1-k) (2h)^(2^k - 1) eta. gamma bounds the
 * rows' second derivatives in (t, th) (a link row: (3 + 4 sqrt3 rho + 9 rho^2) / L + 9 rho, rho
 * the lever |p - g| of its knuckle point; a ball or coordinate row: 9 rho; a line row:
 * 12 + 9 (|T - P(l)| + rho_l), infinity norms). vd_nlc_init takes beta and eta at
 * 8 points of every table interval (the predictor's error is largest mid-interval) and requires
 * h <= 1/2 and the bound after VD_NLC_NEWTON iterations <= VD_NLC_EBOUND. It also measures the
 * quadratic rate |y_{k+1} - y*| / |y_k - y*|^2 on the same points (c->cq: far below the
 * theorem's beta gamma / 2). The theorem's constants are sampled, not bounded between the
 * samples by interval arithmetic: the residual check at run time is the guard behind it.
 *
 * Derivatives: the implicit function theorem with the factorization of J at the converged
 * pose (not Taylor arithmetic through the iterations: that would carry six series through
 * every iteration, converging the derivative coefficients only as the iteration converges,
 * while the theorem needs the one factorization the residual check already has). Along a
 * series q(t, e) (core/taylor.h: coefficients 1, t, t^2, e, t e, t^2 e) the knuckle's series
 * y(t, e) has, for each monomial m of degree k, J y_m = -[F(y_<k, q)]_m: F evaluated in Taylor
 * arithmetic with the coefficients of degree < k known and those of degree k zero (the
 * rotation as exp([th]x) Q0 with th a series without constant term, exact at this order).
 * Three evaluations (degrees 1, 2, 3) and five back-substitutions give the knuckle's pose
 * series; the other bodies follow in the same arithmetic, and their motion columns s, ds/dq,
 * kappa and d kappa/dq come out as core/dwcorner.h's (core/tskin.h), exactly to rounding.
 *
 * On a rack (vd_nlc_on_rack; core/ce_rack.c, the McPherson or multilink steered axle): the tie
 * rod's inner joint rides on a rack_pinion's rack, c = c0 + s rd, s the rack's travel along its
 * unit direction rd. F(y, q, s) gains s as an input of the tie rod's row only ((|P(o) - c0 - s
 * rd|^2 - L^2) / 2L); its Jacobian in y is unchanged, so the derivatives in s come from the same
 * factorization: along series q(t, e), s(t, e) in both coordinates (the mixed passes of
 * vd_nlc_closure_in3: (q', e_0), (q', e_1) for s_0, s_1, kappa, d kappa/dq; (e_j, e_k), j <= k,
 * for ds_j/dq_k, without the t^2 e coefficient; ds_1/dq_0 = ds_0/dq_1 - s_1 x s_0, the motion
 * columns' integrability, as core/dwcorner.c) the knuckle's series is the implicit function
 * theorem's as above, exact to rounding. Cost (rtvd bench, tests/core/mprack_ce.yaml, LIE):
 * 60 us median per step against mp_ml_ce.yaml's 36 us with the McPhersons on the chassis. The
 * predictor is tabulated over the rectangle [qmin, qmax] x [-smax, smax] (VD_NLC_NTAB x VD_NLC_NS
 * cells, by continuation from the design pose), linear in q and quadratic in s (a linear one's
 * error, 3e-4 at the steering's extremes, let h reach 0.15 and the bound after three iterations
 * 2e-8); the proof samples 8 x 4 points per cell with the same Kantorovich h and bound (the
 * McPherson of tests/core/mprack_ce.yaml on +-0.09 m of rack and +-0.4 rad of arm: h 0.025,
 * bound 1.4e-14 with VD_NLC_NEWTON, test_cemprack;
 * the multilink of tests/core/mlrack_ce.yaml on +-0.09 m of rack and +-0.15 m of travel: h 0.031,
 * bound 9.6e-14, test_cemlrack). gamma is unchanged: s shifts c, not the rows'
 * second derivatives in y. What the proof does not cover: states outside the rectangle (the closure
 * fails with -EDOM, the step is rejected and counted) and, as above, the constants between the
 * samples (the residual check is the guard).
 *
 * vd_nlc_kind, vd_nlc_from_model, vd_nlc_tree_add: init only. vd_nlc_closure, vd_nlc_coord:
 * RT-safe (no allocation; fixed work: VD_NLC_NEWTON + 1 factorizations of a 6x6, three
 * residuals and one placement in Taylor arithmetic). */
#ifndef VD_CORE_NLCORNER_H
#define VD_CORE_NLCORNER_H

#include <stddef.h>

#include "data.h"
#include "model.h"
#include "tree.h"

enum { VD_NLC_NONE = 0, VD_NLC_MCPHERSON, VD_NLC_MULTILINK };

#define VD_NLC_MAXB   8     /* bodies of a node: knuckle, five links, damper tube, piston rod */
#define VD_NLC_MAXL   5     /* links */
#define VD_NLC_NTAB   64    /* predictor table intervals over the coordinate's range */
#define VD_NLC_NS     16    /* and over the rack's travel (a corner on a rack) */
#define VD_NLC_NEWTON 3     /* Newton iterations (the bound: vd_nlc_init) */
#define VD_NLC_EBOUND 1e-13 /* [m, rad] the pose error the iterations must be proven below */
#define VD_NLC_RTOL   1e-11 /* [m] the residual above which the closure fails (-EDOM) */

/* a link: universal joint at c (on the parent), ball joint at the knuckle point o */
struct vd_nlc_link {
    int body;          /* its slot in the node's bodies */
    double c[3], o[3]; /* [m] inner joint, outer joint at the design pose (parent frame) */
    double L;          /* [m] length */
    double uy[3];      /* the universal joint's y axis on the mount (parent frame, fixed) */
    double F0[9];      /* design frame (x, y, z columns, z along the link) */
    double sig;        /* branch of the cross axis */
};

/* the corner's geometry in the parent's frame (axes of the parent, origin at its CoM) at the
 * design pose; the bodies' design poses; the predictor table and the proof's constants */
struct vd_nlc {
    int kind; /* VD_NLC_* */
    int nb;   /* bodies; slot 0 the knuckle */
    int nlink;
    struct vd_nlc_link link[VD_NLC_MAXL];
    double A0[VD_NLC_MAXB][9]; /* design rotations body -> parent */
    double x0[VD_NLC_MAXB][3]; /* [m] design CoM positions in the parent frame */
    int mb[VD_NLC_MAXB];       /* the model's bodies */
    /* McPherson: lower arm (slot 1) axis a through c, its ball joint b; the knuckle's strut
     * line (point lp, direction ld, normals ln1, ln2) */
    double al[3], cl[3], bl[3], lp[3], ld[3], ln1[3], ln2[3];
    /* strut: piston rod (slot rod) on a universal joint at top (mount y st_y), the damper tube
     * (slot tube, multilink) on a ball joint at bot on link strut_link */
    int rod, tube, strut_link;
    double top[3], bot[3], st_y[3], F0st[9], sig_st;
    /* the wheel centre w; the multilink's coordinate: its height along z */
    double wc[3], hz[3];
    /* on a rack (vd_nlc_on_rack): the link rack_link's inner joint at c + s rd, s the rack's
     * travel in [smin, smax] (ns intervals of hs); rack_link -1, ns 0: on the parent */
    int rack_link, ns;
    double rd[3], smin, smax, hs;
    /* predictor: nodes q = qmin + i hq, s = smin + j hs, knuckle (t, rotation vector of Q) at
     * tab[i][j] (j = 0 only off a rack) */
    double qmin, qmax, hq;
    double tab[VD_NLC_NTAB + 1][VD_NLC_NS + 1][6];
    /* the proof (vd_nlc_init) over the range: max h = beta gamma eta, the error bound after
     * VD_NLC_NEWTON iterations, the measured quadratic rate, the predictor's largest error */
    double kh, kbound, cq, eps0, beta, gamma;
    int nmount;
    int mount[2 * VD_NLC_MAXL + 2]; /* model bodies the corner's inner joints are on */
};

/* init-time */
/* the embedded kind of the corner `prefix` of a model built with connection: joints
 * (VD_NLC_NONE: not one of these; a double wishbone is core/dwcorner.h's) */
int vd_nlc_kind(const struct vd_model *m, const char *prefix);
/* fill c from the corner at the model's initial pose relative to the body `parent`, tabulate
 * the predictor and prove the iteration count over the range; 0, or -EINVAL with the reason
 * in err (a missing joint, a loop that does not close within the range, a proof that fails) */
int vd_nlc_from_model(struct vd_nlc *c, const struct vd_model *m, const char *prefix, int parent,
                      char *err, size_t errlen);
/* put the corner's tie rod on a rack (core/ce_rack.c) translating along the unit rd (parent
 * frame) by s in [-smax, smax]: re-tabulate the predictor over (q, s) and prove the iteration
 * count over that rectangle; 0, or -EINVAL with the reason in err */
int vd_nlc_on_rack(struct vd_nlc *c, const double rd[3], double smax, char *err, size_t errlen);
/* add the corner's node (embedded, on tree body 0, its bodies with root's frame as parent's);
 * the node index or -errno */
int vd_nlc_tree_add(const struct vd_nlc *c, const struct vd_model *m, int root, struct vd_tree *t);

/* RT-safe */
/* the tree closure (vd_tree_closure_fn): ctx is a const struct vd_nlc *; rel[0 .. nb) */
int vd_nlc_closure(const void *ctx, const double *q, const double *qd, struct vd_tree_rel *rel);
/* a corner on a rack: the closure of its coordinate q[side] and the rack's travel q[2] into
 * the columns side and 2 of a three-coordinate node (the other corner's column zero);
 * mf_only: ds and d kappa not needed (vd_tree_rel) */
int vd_nlc_closure_in3(const struct vd_nlc *c, int side, const double q[3], const double qd[3],
                       int mf_only, struct vd_tree_rel *rel);
/* the coordinate and its rate of the model state d relative to the model body parent (the
 * lower arm's angle, or the wheel centre's height); exact where d satisfies the joints */
void vd_nlc_coord(const struct vd_nlc *c, const struct vd_model *m, const struct vd_data *d,
                  int parent, double *q, double *qd);
/* the knuckle's pose (displacement t of its design CoM, rotation Q from the design pose, both
 * in the parent frame) at coordinate q by the fixed iterations; 0 or -EDOM (for the tests) */
int vd_nlc_solve(const struct vd_nlc *c, double q, double t[3], double Q[9], double *res);
/* the same on a rack at travel s */
int vd_nlc_solve2(const struct vd_nlc *c, double q, double s, double t[3], double Q[9],
                  double *res);

#endif /* VD_CORE_NLCORNER_H */
