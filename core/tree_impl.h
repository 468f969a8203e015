/* core/tree_impl.h - pieces of the tangent-linear RNEA that core/tree.c's tangent() and
 * core/tree_jac.c's pass() share, each with the operations in the order both had them.
 * Internal to those two files; RT-safe, no state. */
#ifndef VD_CORE_TREE_IMPL_H
#define VD_CORE_TREE_IMPL_H

#include <string.h>

#include "spatial.h"
#include "tree.h"
#include "vdmath.h"

/* nodes whose columns depend on their own coordinates (ds/dq, kappa in their rel) */
static inline int vd_tree_moving_columns(const struct vd_tree_node *n)
{
    return n->type == VD_TREE_EMBEDDED || n->type == VD_TREE_SPHERICAL;
}

/* a body's perturbation in rtvd's coordinates, e = (dx, dpi, dv_CoM, domega_body), from its
 * spatial displacement D and velocity change dV (x, A, V: the body's CoM, axes, velocity) */
static inline void vd_tree_perturbation(double e[12], const double x[3], const double A[9],
                                        const double V[6], const double D[6], const double dV[6])
{
    double t3[3], t4[3];

    vdu_cross3(t3, x, D);
    vdu_sub3(e, D + 3, t3);               /* dx = D_lin - x x dpi */
    memcpy(e + 3, D, 3 * sizeof(double)); /* dpi */
    vdu_cross3(t3, dV, x);                /* dv_CoM = dv_O + domega x x + omega x dx */
    vdu_add3(e + 6, dV + 3, t3);
    vdu_cross3(t3, V, e);
    vdu_add3(e + 6, e + 6, t3);
    vdu_cross3(t3, D, V); /* domega_b = A^T (domega - dpi x omega) */
    vdu_sub3(t4, dV, t3);
    vdu_mat3t_vec(e + 9, A, t4);
}

/* the change of a body's applied spatial force (A tau + x x F; F) at the origin, from the
 * change dh = (dF, dtau) of its h = (F, tau) and its perturbation e:
 * (dpi x A tau + A dtau + dx x F + x x dF; dF); moved 0: the direction does not displace the
 * body (e's dx, dpi zero), (A dtau + x x dF; dF) */
static inline void vd_tree_dapplied(double g6[6], const double x[3], const double A[9],
                                    const double hb[6], const double dh[6], const double e[6],
                                    int moved)
{
    double t3[3], At[3];

    if (moved) {
        vdu_mat3_vec(At, A, hb + 3);
        vdu_cross3(g6, e + 3, At);
        vdu_mat3_vec(t3, A, dh + 3);
        vdu_add3(g6, g6, t3);
        vdu_cross3(t3, e, hb);
        vdu_add3(g6, g6, t3);
    } else {
        vdu_mat3_vec(g6, A, dh + 3);
    }
    vdu_cross3(t3, x, dh);
    vdu_add3(g6, g6, t3);
    memcpy(g6 + 3, dh, 3 * sizeof(double));
}

/* the change of I w for a body displaced by D (its inertia moves with it) and w changing by
 * dw: D x* (I w) - I (D x w) + I dw, Iw = I w given; mul the product by I (tree.c the full
 * 6x6, tree_jac.c the rigid body's 24-product form: their own roundings) */
static inline void vd_tree_dIw(double r[6], const double I[36], const double D[6],
                               const double w[6], const double Iw[6], const double dw[6],
                               void (*mul)(double *, const double *, const double *))
{
    double t6[6], t7[6];

    vdu_crf(r, D, Iw);
    vdu_crm(t6, D, w);
    mul(t7, I, t6);
    for (int i = 0; i < 6; i++)
        r[i] -= t7[i];
    mul(t7, I, dw);
    vdu_add6(r, t7);
}

/* the change of a body's inertial force I a + v x* I v along a direction that displaces it
 * by D, a, v changing by da, dV: d(I a) + dv x* I v + v x* d(I v); Ia = I a, iv = I V given,
 * mul as vd_tree_dIw's */
static inline void vd_tree_dforce(double dF[6], const double I[36], const double D[6],
                                  const double V[6], const double dV[6], const double a[6],
                                  const double da[6], const double Ia[6], const double iv[6],
                                  void (*mul)(double *, const double *, const double *))
{
    double t6[6], div[6];

    vd_tree_dIw(dF, I, D, a, Ia, da, mul);
    vdu_crf(t6, dV, iv);
    vdu_add6(dF, t6);
    vd_tree_dIw(div, I, D, V, iv, dV, mul);
    vdu_crf(t6, V, div);
    vdu_add6(dF, t6);
}

#endif /* VD_CORE_TREE_IMPL_H */
