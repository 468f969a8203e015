/* tests/core/test_tree.c - relative coordinates on a spanning tree (core/tree.h): a free root,
 * revolute and prismatic chains, and embedded nodes (a closure moving two bodies at once on
 * one coordinate, one body on two coordinates, screw motions nonlinear in them, with a
 * revolute child) and a spherical node (Cardan angles up to 1.2 rad: large rotations) at
 * random states:
 *   1. one free body: M = diag(m 1, I), f = (m g; -omega x I omega) (Newton-Euler);
 *   2. CRBA's M against the columns of the recursive Newton-Euler in q'' (two algorithms);
 *   3. the power identity u^T C(q, u) = 1/2 u^T (d/dt M) u (the velocity-product terms,
 *      embedded acceleration terms included, are those of the kinetic energy of M);
 *   4. the gravity forces against the derivative of the potential energy;
 *   5. the tangent-linear Jacobians df/dq K and df/du, at a q'' != 0 and with state-dependent
 *      applied forces, against central differences;
 *   6. the spherical node: its centre shared, its relative rotation and angular velocity;
 *   7. the restricted Jacobians of core/tree_jac.h (lists per direction, the free root's rigid
 *      directions by invariance) against those of 5. (the reference recursion), and on a
 *      tree whose free node is not node 0 (the general recursion for every node type).
 * Tolerances are derived beside each check. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "core/kinematics.h"
#include "core/tree.h"
#include "core/tree_jac.h"
#include "core/vdmath.h"

/* ---- an embedded test closure: every body turns about a fixed axis a through c by
 * phi(th) and slides along it (d = a) by tau(th), phi and tau smooth nonlinear functions of
 * nd = 1 or 2 coordinates with derivatives to the third order ------------------------------ */

struct tclosure {
    int nd, nb;
    double a[2][3], c[2][3], dvec[2][3], A0[2][9], x0[2][3];
    double al[2], be[2], ga[2], de[2], ep[2], ze[2]; /* per body */
};

/* phi = th0 + al sin th0 + be th1^2 + ga th0 th1; tau = de th1 + ep th0^2 + ze cos th1
 * (th1 = 0 when nd = 1): value, gradient (2), Hessian (2x2), third derivatives (2x2x2) */
static void scal(const struct tclosure *tc, int k, const double *th, int which, double *v,
                 double g[2], double H[4], double T[8])
{
    const double t0 = th[0], t1 = tc->nd > 1 ? th[1] : 0.0;

    memset(g, 0, 2 * sizeof(double));
    memset(H, 0, 4 * sizeof(double));
    memset(T, 0, 8 * sizeof(double));
    if (which == 0) {
        *v = t0 + tc->al[k] * sin(t0) + tc->be[k] * t1 * t1 + tc->ga[k] * t0 * t1;
        g[0] = 1.0 + tc->al[k] * cos(t0) + tc->ga[k] * t1;
        g[1] = 2.0 * tc->be[k] * t1 + tc->ga[k] * t0;
        H[0] = -tc->al[k] * sin(t0);
        H[1] = H[2] = tc->ga[k];
        H[3] = 2.0 * tc->be[k];
        T[0] = -tc->al[k] * cos(t0);
    } else {
        *v = tc->de[k] * t1 + tc->ep[k] * t0 * t0 + tc->ze[k] * cos(t1);
        g[0] = 2.0 * tc->ep[k] * t0;
        g[1] = tc->de[k] - tc->ze[k] * sin(t1);
        H[0] = 2.0 * tc->ep[k];
        H[3] = -tc->ze[k] * cos(t1);
        T[7] = tc->ze[k] * sin(t1);
    }
}

static void axis_rot(double R[9], const double a[3], double q)
{
    const double c = cos(q), s = sin(q), v = 1.0 - c;

    R[0] = c + a[0] * a[0] * v;
    R[1] = a[0] * a[1] * v - a[2] * s;
    R[2] = a[0] * a[2] * v + a[1] * s;
    R[3] = a[1] * a[0] * v + a[2] * s;
    R[4] = c + a[1] * a[1] * v;
    R[5] = a[1] * a[2] * v - a[0] * s;
    R[6] = a[2] * a[0] * v - a[1] * s;
    R[7] = a[2] * a[1] * v + a[0] * s;
    R[8] = c + a[2] * a[2] * v;
}

/* the column (a p; c x a p + d t) */
static void col(double s[6], const struct tclosure *tc, int k, double p, double t)
{
    for (int i = 0; i < 3; i++)
        s[i] = tc->a[k][i] * p;
    vdu_cross3(s + 3, tc->c[k], s);
    for (int i = 0; i < 3; i++)
        s[3 + i] += tc->dvec[k][i] * t;
}

static int tclose(const void *ctx, const double *q, const double *qd, struct vd_tree_rel *rel)
{
    const struct tclosure *tc = ctx;
    const int nd = tc->nd;

    for (int k = 0; k < tc->nb; k++) {
        struct vd_tree_rel *r = &rel[k];
        double p, gp[2], Hp[4], Tp[8], t, gt[2], Ht[4], Tt[8], R[9], dx[3], y[3];
        double pdd = 0.0, tdd = 0.0;

        scal(tc, k, q, 0, &p, gp, Hp, Tp);
        scal(tc, k, q, 1, &t, gt, Ht, Tt);
        axis_rot(R, tc->a[k], p);
        vdu_mat3_mul(r->A, R, tc->A0[k]);
        vdu_sub3(dx, tc->x0[k], tc->c[k]);
        vdu_mat3_vec(y, R, dx);
        for (int i = 0; i < 3; i++)
            r->x[i] = tc->c[k][i] + y[i] + tc->dvec[k][i] * t;
        for (int j = 0; j < nd; j++) {
            col(r->s + 6 * j, tc, k, gp[j], gt[j]);
            for (int m = 0; m < nd; m++) {
                col(r->ds + 6 * (j + nd * m), tc, k, Hp[j + 2 * m], Ht[j + 2 * m]);
                pdd += Hp[j + 2 * m] * qd[j] * qd[m];
                tdd += Ht[j + 2 * m] * qd[j] * qd[m];
            }
        }
        col(r->kappa, tc, k, pdd, tdd);
        for (int m = 0; m < nd; m++) {
            double P = 0.0, Q = 0.0;

            for (int i = 0; i < nd; i++)
                for (int j = 0; j < nd; j++) {
                    P += Tp[i + 2 * j + 4 * m] * qd[i] * qd[j];
                    Q += Tt[i + 2 * j + 4 * m] * qd[i] * qd[j];
                }
            col(r->dkappa + 6 * m, tc, k, P, Q);
        }
    }
    return 0;
}

/* ---- random helpers --------------------------------------------------------------------- */

static uint64_t rs = 0x2545F4914F6CDD1DULL;
static double rnd(double lo, double hi)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return lo + (hi - lo) * (double)(rs >> 11) / 9007199254740992.0;
}

static void rnd_unit(double a[3])
{
    double l;

    do {
        for (int i = 0; i < 3; i++)
            a[i] = rnd(-1, 1);
        l = sqrt(vdu_dot3(a, a));
    } while (l < 0.2);
    vdu_scale3(a, 1.0 / l, a);
}

static void rnd_rot(double R[9])
{
    vdu_cardan_zyx(R, rnd(-3, 3), rnd(-1.2, 1.2), rnd(-3, 3));
}

static void rnd_body(struct vd_tree_body *b)
{
    double R[9], D[9] = {0}, T[9];
    double d0 = rnd(0.2, 2), d1 = rnd(0.2, 2), d2 = rnd(0.2, 2);

    memset(b, 0, sizeof(*b));
    b->mass = rnd(1, 50);
    /* principal moments obeying the triangle inequality, random axes */
    D[0] = d1 + d2, D[4] = d0 + d2, D[8] = d0 + d1;
    rnd_rot(R);
    vdu_mat3_mul(T, R, D);
    vdu_mat3_mult(b->inertia, T, R);
    rnd_rot(b->A0);
    for (int i = 0; i < 3; i++)
        b->x0[i] = rnd(-1, 1);
}

/* ---- the test tree ---------------------------------------------------------------------- */

static struct tclosure tc1, tc2;

static struct vd_tree *build(void)
{
    struct vd_tree *t = vd_tree_new();
    struct vd_tree_node n;
    struct vd_tree_body b[2];

    /* 0: free root (body 0) */
    memset(&n, 0, sizeof(n));
    rnd_body(&b[0]);
    b[0].mass = 800.0;
    n.type = VD_TREE_FREE;
    n.parent = -1;
    vd_tree_add(t, &n, b, 1);
    /* 1: revolute on 0 (body 1), 2: prismatic on 1 (body 2), 3: revolute on 2 (body 3) */
    for (int k = 0; k < 3; k++) {
        memset(&n, 0, sizeof(n));
        n.type = k == 1 ? VD_TREE_PRISMATIC : VD_TREE_REVOLUTE;
        n.parent = k;
        rnd_unit(n.axis);
        for (int i = 0; i < 3; i++)
            n.point[i] = rnd(-1, 1);
        rnd_body(&b[0]);
        vd_tree_add(t, &n, b, 1);
    }
    /* 4: embedded on 0, one coordinate moving bodies 4 and 5 */
    tc1.nd = 1;
    tc1.nb = 2;
    tc2.nd = 2;
    tc2.nb = 1;
    for (int pass = 0; pass < 2; pass++) {
        struct tclosure *tc = pass ? &tc2 : &tc1;

        for (int k = 0; k < tc->nb; k++) {
            rnd_unit(tc->a[k]);
            memcpy(tc->dvec[k], tc->a[k], sizeof(tc->a[k])); /* a screw: the axis stays put */
            for (int i = 0; i < 3; i++) {
                tc->c[k][i] = rnd(-1, 1);
                tc->x0[k][i] = rnd(-1, 1);
            }
            rnd_rot(tc->A0[k]);
            tc->al[k] = rnd(-0.5, 0.5);
            tc->be[k] = rnd(-0.5, 0.5);
            tc->ga[k] = rnd(-0.5, 0.5);
            tc->de[k] = rnd(-0.5, 0.5);
            tc->ep[k] = rnd(-0.5, 0.5);
            tc->ze[k] = rnd(-0.5, 0.5);
        }
    }
    memset(&n, 0, sizeof(n));
    n.type = VD_TREE_EMBEDDED;
    n.parent = 0;
    n.nd = 1;
    n.fn = tclose;
    n.ctx = &tc1;
    rnd_body(&b[0]);
    rnd_body(&b[1]);
    vd_tree_add(t, &n, b, 2);
    /* 5: revolute on body 5 (a wheel on a knuckle): body 6 */
    memset(&n, 0, sizeof(n));
    n.type = VD_TREE_REVOLUTE;
    n.parent = 5;
    rnd_unit(n.axis);
    rnd_body(&b[0]);
    vd_tree_add(t, &n, b, 1);
    /* 6: embedded on 1 with two coordinates: body 7 */
    memset(&n, 0, sizeof(n));
    n.type = VD_TREE_EMBEDDED;
    n.parent = 1;
    n.nd = 2;
    n.fn = tclose;
    n.ctx = &tc2;
    rnd_body(&b[0]);
    vd_tree_add(t, &n, b, 1);
    /* 7: spherical on body 3 (a knuckle on its arm, at the end of a chain): body 8 */
    memset(&n, 0, sizeof(n));
    n.type = VD_TREE_SPHERICAL;
    n.parent = 3;
    for (int i = 0; i < 3; i++)
        n.point[i] = rnd(-1, 1);
    rnd_body(&b[0]);
    vd_tree_add(t, &n, b, 1);
    return t;
}

/* applied forces of a test law and their blocks: per body F = -k (x - x0) - c v_CoM,
 * tau_body = A^T w0 - ct omega_body; bodies 0 and 6 coupled by a spring k2 */
#define KS 300.0
#define CS 20.0
#define CT 3.0
#define K2 500.0
static const double W0[3] = {4.0, -7.0, 2.5};

static void law(const struct vd_tree *t, const struct vd_tree_data *td, double *h, int *row,
                int *colb, double *Jp, double *Jv, int *nblk)
{
    int e = 0;

    for (int b = 0; b < t->nbody; b++) {
        double r[6], v[6], at[3];
        const double *A = td->A + 9 * b;

        vd_tree_body_state(td, b, r, v);
        vdu_mat3t_vec(at, A, W0);
        for (int i = 0; i < 3; i++) {
            h[6 * b + i] = -KS * (r[i] - 0.1 * b) - CS * v[i];
            h[6 * b + 3 + i] = at[i] - CT * v[3 + i];
        }
        if (Jp) {
            double Wx[9], B[9];

            row[e] = colb[e] = b;
            memset(Jp + 36 * e, 0, 36 * sizeof(double));
            memset(Jv + 36 * e, 0, 36 * sizeof(double));
            vdu_skew(Wx, W0);
            vdu_mat3t_mul(B, A, Wx); /* d(A^T w0)/dpi = A^T [w0]x */
            for (int i = 0; i < 3; i++) {
                VD_B6(Jp + 36 * e, i, i) = -KS - ((b == 0 || b == 6) ? K2 : 0.0);
                VD_B6(Jv + 36 * e, i, i) = -CS;
                VD_B6(Jv + 36 * e, i + 3, i + 3) = -CT;
                for (int j = 0; j < 3; j++)
                    VD_B6(Jp + 36 * e, i + 3, j + 3) = B[3 * i + j];
            }
            e++;
        }
    }
    for (int i = 0; i < 3; i++) {
        const double d = td->x[i] - td->x[18 + i];

        h[i] -= K2 * d;
        h[36 + i] += K2 * d;
    }
    if (Jp) {
        for (int s = 0; s < 2; s++) {
            row[e] = s ? 6 : 0;
            colb[e] = s ? 0 : 6;
            memset(Jp + 36 * e, 0, 36 * sizeof(double));
            memset(Jv + 36 * e, 0, 36 * sizeof(double));
            for (int i = 0; i < 3; i++)
                VD_B6(Jp + 36 * e, i, i) = K2;
            e++;
        }
        *nblk = e;
    }
}

static const double G[3] = {0.3, -0.2, -9.81};

/* f at (q, u) with the test law, gravity and qdd */
static void f_at(const struct vd_tree *t, struct vd_tree_data *td, const double *q, const double *u,
                 const double *qdd, double *h, double *f)
{
    vd_tree_kin(t, td, q, u);
    law(t, td, h, NULL, NULL, NULL, NULL, NULL);
    vd_tree_forces(t, td, G, h, qdd);
    memcpy(f, td->f, (size_t)t->n * sizeof(double));
}

static void rnd_state(const struct vd_tree *t, double *q, double *u)
{
    for (int k = 0; k < t->n; k++) {
        q[k] = rnd(-1.2, 1.2);
        u[k] = rnd(-2, 2);
    }
    q[4] = rnd(-1.2, 1.2); /* pitch away from +-90 deg (the spherical's q[13] as well) */
}

/* q + e K dir_k (the direction along which df/dq K is a derivative) */
static void q_step(const struct vd_tree *t, const double *q, int k, double e, double *qo)
{
    memcpy(qo, q, (size_t)t->n * sizeof(double));
    if (k >= 3 && k < 6) {
        double Ei[9];

        vd_cardan_Einv(Ei, q[4], q[5]);
        for (int i = 0; i < 3; i++)
            qo[3 + i] += e * Ei[3 * i + (k - 3)];
    } else {
        qo[k] += e;
    }
}

/* max |J_fast - J_ref| over Jq and Ju against a rounding bound. Both evaluate the same
 * derivative with different association (the rigid root's directions by the invariances of
 * tree_jac.h instead of the recursion, whose representation terms D x* F then cancel): each
 * is within gamma_m sum|terms| of the exact value, m <= 64 operations deep per term. The
 * terms are spatial forces at the global origin and their products with the motion columns:
 * each at most Fs = max_b |F_b| (1 + |x_b|) (1 + |u| + |q''|) (the subtree forces, their
 * moment arm and the velocity / acceleration factors a tangent multiplies them by), at most
 * 64 nbody of them per entry (the recursion's terms per body): tol = 2 x 64 u x 64 nbody Fs */
static void fast_vs_ref(const struct vd_tree *t, struct vd_tree_data *td, const double *h,
                        const struct vd_tree_ext *ext, const double *qdd, const double *Jq,
                        const double *Ju, int trial)
{
    const int N = t->n;
    struct vd_tree_jplan *P = vd_tree_jplan_new(t, ext->nblk, ext->row, ext->col);
    double w = 0.0, fs = 0.0, xs = 0.0, us = 0.0;

    CHECK(P != NULL, "trial %d: Jacobian plan", trial);
    if (!P)
        return;
    vd_tree_jac_fast(t, td, P, G, h, ext, qdd);
    for (int k = 0; k < N * N; k++)
        w = fmax(w, fmax(fabs(td->Jq[k] - Jq[k]), fabs(td->Ju[k] - Ju[k])));
    for (int b = 0; b < t->nbody; b++)
        for (int i = 0; i < 6; i++) {
            fs = fmax(fs, fabs(td->F[6 * b + i]));
            if (i < 3)
                xs = fmax(xs, fabs(td->x[3 * b + i]));
        }
    for (int k = 0; k < N; k++)
        us = fmax(us, fabs(td->u[k]) + fabs(qdd[k]));
    {
        const double tol = 2.0 * 64.0 * 2.2e-16 * 64.0 * t->nbody * fs * (1.0 + xs) * (1.0 + us);

        CHECK_TOL(w, tol, "trial %d: restricted Jacobians vs the reference: %.3g (tol %.3g)", trial,
                  w, tol);
        if (trial == 0 || trial == 100)
            printf("restricted Jacobians vs the reference%s: %.3g (tol %.3g)\n",
                   trial ? " (general path)" : "", w, tol);
    }
    vd_tree_jplan_free(P);
}

/* 7b. the restricted Jacobians' general path for every node type: a tree whose node 0 is a
 * revolute on the ground, so that the free node (node 1, a second root) runs the recursion
 * instead of the rigid-root shortcut, with a revolute-prismatic-revolute chain and the
 * two-body embedded node on it; against the reference recursion at random states, the
 * bound of fast_vs_ref (the general path does the reference's operations in its order minus
 * exact zeros, the inertia products by the rigid body's structure: equal to rounding) */
static void general_path(void)
{
    struct vd_tree *t = vd_tree_new();
    struct vd_tree_data *td;
    struct vd_tree_node n;
    struct vd_tree_body b[2];
    double q[32], u[32], qdd[32], h[6 * 16], Jp[36 * 32], Jv[36 * 32];
    static double Jq[32 * 32], Ju[32 * 32];
    int row[32], colb[32], nblk;

    memset(&n, 0, sizeof(n));
    n.type = VD_TREE_REVOLUTE; /* node 0: body 0 on the ground */
    n.parent = -1;
    rnd_unit(n.axis);
    for (int i = 0; i < 3; i++)
        n.point[i] = rnd(-1, 1);
    rnd_body(&b[0]);
    vd_tree_add(t, &n, b, 1);
    memset(&n, 0, sizeof(n));
    n.type = VD_TREE_FREE; /* node 1: body 1 */
    n.parent = -1;
    rnd_body(&b[0]);
    vd_tree_add(t, &n, b, 1);
    for (int k = 0; k < 3; k++) { /* bodies 2, 3, 4 */
        memset(&n, 0, sizeof(n));
        n.type = k == 1 ? VD_TREE_PRISMATIC : VD_TREE_REVOLUTE;
        n.parent = 1 + k;
        rnd_unit(n.axis);
        for (int i = 0; i < 3; i++)
            n.point[i] = rnd(-1, 1);
        rnd_body(&b[0]);
        vd_tree_add(t, &n, b, 1);
    }
    memset(&n, 0, sizeof(n));
    n.type = VD_TREE_EMBEDDED; /* bodies 5, 6 on body 1 */
    n.parent = 1;
    n.nd = 1;
    n.fn = tclose;
    n.ctx = &tc1;
    rnd_body(&b[0]);
    rnd_body(&b[1]);
    vd_tree_add(t, &n, b, 2);
    td = vd_tree_data_new(t);
    CHECK(td && t->nbody == 7 && t->n == 1 + 6 + 3 + 1, "general-path tree: n %d", t->n);
    for (int trial = 0; trial < 5 && td; trial++) {
        const int N = t->n;
        struct vd_tree_ext ext;

        rnd_state(t, q, u);
        for (int k = 0; k < N; k++)
            qdd[k] = rnd(-3, 3);
        vd_tree_kin(t, td, q, u);
        law(t, td, h, row, colb, Jp, Jv, &nblk);
        ext = (struct vd_tree_ext){nblk, row, colb, Jp, Jv};
        vd_tree_jac(t, td, G, h, &ext, qdd);
        memcpy(Jq, td->Jq, (size_t)(N * N) * sizeof(double));
        memcpy(Ju, td->Ju, (size_t)(N * N) * sizeof(double));
        fast_vs_ref(t, td, h, &ext, qdd, Jq, Ju, 100 + trial);
    }
    vd_tree_data_free(td);
    vd_tree_free(t);
}

int main(void)
{
    struct vd_tree *t = build();
    struct vd_tree_data *td = vd_tree_data_new(t);
    const int N = t->n;
    double q[32], u[32], qdd[32], h[6 * 16], f0[32], fp[32], fm[32], qp[32], qm[32];
    double Jp[36 * 32], Jv[36 * 32], Mp[32 * 32], Mm[32 * 32], M0[32 * 32];
    int row[32], colb[32], nblk;

    CHECK(t && td && N == 6 + 1 + 1 + 1 + 1 + 1 + 2 + 3 && t->nbody == 9,
          "tree built: n %d, %d bodies", N, t ? t->nbody : -1);

    /* 1. one free body against Newton-Euler */
    {
        struct vd_tree *t1 = vd_tree_new();
        struct vd_tree_node n = {.type = VD_TREE_FREE, .parent = -1};
        struct vd_tree_body b;
        struct vd_tree_data *d1;
        double q1[6], u1[6], A[9], Iw[3], gy[3], err = 0.0;

        rnd_body(&b);
        vd_tree_add(t1, &n, &b, 1);
        d1 = vd_tree_data_new(t1);
        for (int k = 0; k < 6; k++) {
            q1[k] = rnd(-1, 1);
            u1[k] = rnd(-3, 3);
        }
        vd_tree_kin(t1, d1, q1, u1);
        vd_tree_crba(t1, d1);
        vd_tree_forces(t1, d1, G, NULL, NULL);
        vdu_cardan_zyx(A, q1[3], q1[4], q1[5]);
        vdu_mat3_vec(Iw, b.inertia, u1 + 3);
        vdu_cross3(gy, u1 + 3, Iw);
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) {
                double want = i < 3 ? (i == j ? b.mass : 0.0)
                                    : (j < 3 ? 0.0 : b.inertia[3 * (i - 3) + (j - 3)]);

                err = fmax(err, fabs(d1->M[i + 6 * j] - want));
            }
        for (int i = 0; i < 3; i++) {
            err = fmax(err, fabs(d1->f[i] - b.mass * G[i]));
            err = fmax(err, fabs(d1->f[3 + i] + gy[i]));
        }
        /* a handful of products of O(m |x|^2, |I| |w|^2) = O(1e2): 1e3 u bounds them */
        CHECK_TOL(err, 1e3 * 2.3e-16 * 1e2, "free body vs Newton-Euler: %.3g", err);
        vd_tree_data_free(d1);
        vd_tree_free(t1);
    }

    for (int trial = 0; trial < 20; trial++) {
        double mmax = 0.0, err, jmax;

        rnd_state(t, q, u);
        for (int k = 0; k < N; k++)
            qdd[k] = rnd(-3, 3);
        vd_tree_kin(t, td, q, u);
        vd_tree_crba(t, td);
        memcpy(M0, td->M, (size_t)(N * N) * sizeof(double));
        for (int k = 0; k < N * N; k++)
            mmax = fmax(mmax, fabs(M0[k]));

        /* 6. the spherical node (7, body 8 on body 3, coordinates 12..14): the centre is the
         * same point of both bodies, the relative rotation is Rz Ry Rx A0 and the relative
         * angular velocity Ap (e_z q'0 + Rz e_y q'1 + Rz Ry e_x q'2); products of O(1)
         * numbers: 1e2 u */
        {
            const struct vd_tree_node *n = &t->node[7];
            const double *Ap = td->A + 9 * 3, *Ab = td->A + 9 * 8, *qs = q + n->off;
            double pc[3], pb[3], tmp[3], R[9], Rr[9], Rw[9], wr[3], wl[3], werr = 0.0;
            const double *up = u + n->off;

            CHECK(n->type == VD_TREE_SPHERICAL && n->nd == 3 && n->b0 == 8, "spherical node");
            /* the centre from the parent: xp + Ap c; from the child: xb + Ab A0^T (c - x0) */
            vdu_mat3_vec(pc, Ap, n->point);
            vdu_add3(pc, pc, td->x + 9);
            vdu_sub3(tmp, n->point, t->body[8].x0);
            vdu_mat3t_vec(pb, t->body[8].A0, tmp);
            vdu_mat3_vec(tmp, Ab, pb);
            vdu_add3(pb, tmp, td->x + 24);
            for (int i = 0; i < 3; i++)
                werr = fmax(werr, fabs(pc[i] - pb[i]));
            vdu_cardan_zyx(R, qs[0], qs[1], qs[2]);
            vdu_mat3_mul(Rw, R, t->body[8].A0);
            vdu_mat3t_mul(Rr, Ap, Ab);
            for (int i = 0; i < 9; i++)
                werr = fmax(werr, fabs(Rr[i] - Rw[i]));
            wl[0] = -sin(qs[0]) * up[1] + R[0] * up[2];
            wl[1] = cos(qs[0]) * up[1] + R[3] * up[2];
            wl[2] = up[0] + R[6] * up[2];
            vdu_mat3_vec(wr, Ap, wl);
            for (int i = 0; i < 3; i++)
                werr = fmax(werr, fabs(td->V[48 + i] - td->V[18 + i] - wr[i]));
            CHECK_TOL(werr, 1e2 * 2.2e-16 * 10, "trial %d: spherical pose and rates %.3g", trial,
                      werr);
        }

        /* 2. CRBA vs RNEA columns: f(q'' = e_k) - f(0) = -M e_k exactly in exact arithmetic
         * (RNEA is linear in q''); each entry is a sum over at most 8 bodies of products of
         * 6x6 inertias and columns, rounding <= 64 u |M|max per product chain: 1e-13 |M|max */
        err = 0.0;
        for (int k = 0; k < N; k++) {
            memset(qdd, 0, (size_t)N * sizeof(double));
            vd_tree_forces(t, td, G, NULL, qdd);
            memcpy(fm, td->f, (size_t)N * sizeof(double));
            qdd[k] = 1.0;
            vd_tree_forces(t, td, G, NULL, qdd);
            for (int i = 0; i < N; i++)
                err = fmax(err, fabs(fm[i] - td->f[i] - M0[i + N * k]));
        }
        CHECK_TOL(err, 1e-13 * mmax, "trial %d: CRBA vs RNEA columns: %.3g (|M| %.3g)", trial, err,
                  mmax);
        err = 0.0;
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                err = fmax(err, fabs(M0[i + N * j] - M0[j + N * i]));
        /* the two triangles come from different sums of the same products: 1e-13 |M|max */
        CHECK_TOL(err, 1e-13 * mmax, "trial %d: M symmetric: %.3g", trial, err);

        /* 3. u^T C = 1/2 u^T Mdot u with C = -f(g = 0, h = 0, q'' = 0) and Mdot by central
         * differences along q' = K u, step e = 1e-6: truncation e^2/6 |M'''| (|q'| <= 6,
         * |M'''| <= 6^3 |M|max through the angles' sines): 4e-11 |M|max; rounding
         * u |M|max / e = 2.2e-10 |M|max; times |u|^2 <= 13 x 4 (u^T . u): tol 2e-8 |M|max */
        {
            const double z3[3] = {0, 0, 0}, e = 1e-6;
            double qd[32], uC = 0.0, uMu = 0.0;

            vd_tree_forces(t, td, z3, NULL, NULL);
            for (int i = 0; i < N; i++)
                uC -= u[i] * td->f[i];
            vd_tree_qdot(t, q, u, qd);
            for (int i = 0; i < N; i++) {
                qp[i] = q[i] + e * qd[i];
                qm[i] = q[i] - e * qd[i];
            }
            vd_tree_kin(t, td, qp, u);
            vd_tree_crba(t, td);
            memcpy(Mp, td->M, (size_t)(N * N) * sizeof(double));
            vd_tree_kin(t, td, qm, u);
            vd_tree_crba(t, td);
            memcpy(Mm, td->M, (size_t)(N * N) * sizeof(double));
            for (int i = 0; i < N; i++)
                for (int j = 0; j < N; j++)
                    uMu += u[i] * (Mp[i + N * j] - Mm[i + N * j]) / (2 * e) * u[j];
            CHECK_TOL(fabs(uC - 0.5 * uMu), 2e-8 * mmax,
                      "trial %d: power identity u^T C %.9g vs 1/2 u^T Mdot u %.9g", trial, uC,
                      0.5 * uMu);
            vd_tree_kin(t, td, q, u);
        }

        /* 4. gravity: f(u = 0, h = 0) = -dV/dq K, V = -sum m g . x; central differences,
         * e = 1e-6: V is a sum of m |g| |x| <= 800 x 10 x 5 = 4e4 J terms: rounding
         * u 4e4 / e = 1e-5, truncation e^2/6 |V'''| <= 1e-12 x 4e4 x 8 = 3e-7: tol 2e-5 */
        {
            double uz[32] = {0}, vp, vm, worst = 0.0;
            const double e = 1e-6;

            vd_tree_kin(t, td, q, uz);
            vd_tree_forces(t, td, G, NULL, NULL);
            memcpy(f0, td->f, (size_t)N * sizeof(double));
            for (int k = 0; k < N; k++) {
                q_step(t, q, k, e, qp);
                q_step(t, q, k, -e, qm);
                vp = vm = 0.0;
                vd_tree_kin(t, td, qp, uz);
                for (int b = 0; b < t->nbody; b++)
                    vp -= t->body[b].mass * vdu_dot3(G, td->x + 3 * b);
                vd_tree_kin(t, td, qm, uz);
                for (int b = 0; b < t->nbody; b++)
                    vm -= t->body[b].mass * vdu_dot3(G, td->x + 3 * b);
                worst = fmax(worst, fabs(f0[k] + (vp - vm) / (2 * e)));
            }
            CHECK_TOL(worst, 2e-5, "trial %d: gravity vs -dV/dq: %.3g", trial, worst);
        }

        /* 5. the Jacobians at q'' != 0 with the test law against central differences,
         * e = 1e-6 along q' = K e_k and u + e e_k: f is a sum of forces <= 2e4 N (springs of
         * 800 N/m over 5 m, M q'' <= 1e3 x 3 ...) and their moments, rounding
         * u |f| / e <= 2.2e-16 x 2e4 x 10 / 1e-6 = 4.4e-5; truncation e^2/6 |f'''| with
         * |f'''| <= (1 + |u| + |q''|)^3 |f| = 6^3 x 2e5: 7e-6. tol 1e-4 (1 + 1e-6 |J|max)
         * (a missing term is of the size of a spring or an inertia force, >= 1e-1) */
        for (int k = 0; k < N; k++)
            qdd[k] = rnd(-3, 3);
        vd_tree_kin(t, td, q, u);
        law(t, td, h, row, colb, Jp, Jv, &nblk);
        {
            struct vd_tree_ext ext = {nblk, row, colb, Jp, Jv};
            double wq = 0.0, wu = 0.0, up[32], um[32];
            const double e = 1e-6;
            static double Jq[32 * 32], Ju[32 * 32];

            vd_tree_jac(t, td, G, h, &ext, qdd);
            memcpy(Jq, td->Jq, (size_t)(N * N) * sizeof(double));
            memcpy(Ju, td->Ju, (size_t)(N * N) * sizeof(double));
            jmax = 0.0;
            for (int k = 0; k < N * N; k++)
                jmax = fmax(jmax, fmax(fabs(Jq[k]), fabs(Ju[k])));
            for (int k = 0; k < N; k++) {
                q_step(t, q, k, e, qp);
                q_step(t, q, k, -e, qm);
                f_at(t, td, qp, u, qdd, h, fp);
                f_at(t, td, qm, u, qdd, h, fm);
                for (int i = 0; i < N; i++)
                    wq = fmax(wq, fabs(Jq[i + N * k] - (fp[i] - fm[i]) / (2 * e)));
                memcpy(up, u, (size_t)N * sizeof(double));
                memcpy(um, u, (size_t)N * sizeof(double));
                up[k] += e;
                um[k] -= e;
                f_at(t, td, q, up, qdd, h, fp);
                f_at(t, td, q, um, qdd, h, fm);
                for (int i = 0; i < N; i++)
                    wu = fmax(wu, fabs(Ju[i + N * k] - (fp[i] - fm[i]) / (2 * e)));
            }
            CHECK_TOL(wq, 1e-4 * (1.0 + 1e-6 * jmax), "trial %d: df/dq K vs central: %.3g", trial,
                      wq);
            CHECK_TOL(wu, 1e-4 * (1.0 + 1e-6 * jmax), "trial %d: df/du vs central: %.3g", trial,
                      wu);
            /* 7. the restricted and rigid-root Jacobians (core/tree_jac.h) against these */
            vd_tree_kin(t, td, q, u);
            law(t, td, h, row, colb, Jp, Jv, &nblk); /* h at (q, u) again */
            fast_vs_ref(t, td, h, &ext, qdd, Jq, Ju, trial);
        }
    }
    vd_tree_data_free(td);
    vd_tree_free(t);
    general_path();
    return vt_report("test_tree");
}
