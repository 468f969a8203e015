/* core/elem.h - internal to core: the building blocks of force elements. Derivative rows
 * w.r.t. the perturbation coordinates of up to VD_NG bodies (column groups of 6: [x pi] for
 * positions, [v omega] for velocities) and assemble_side(), which turns a global
 * force/torque and its derivatives into generalized forces and the 6x6 Jacobian blocks of
 * one body. All RT-safe.
 *
 * Notation (numerics.md §5): body i has CoM x_i, rotation A_i, body angular velocity
 * omega_i, global w_i = A_i omega_i. A marker with CoM offset s sits at p = x + a, a = A s,
 * with axes R = A C and velocity p' = v + w x a. Perturbations per body: delta x, delta pi
 * (global small rotation, delta A = skew(delta pi) A), delta v, delta omega (body). Then
 *   delta a  = -skew(a) delta pi
 *   delta p' = skew(a x w) delta pi + delta v - skew(a) A delta omega
 *   delta w  = -skew(w) delta pi + A delta omega
 * A two-marker element produces a global force f and torque tau on body 2 (the negatives on
 * body 1) with derivatives w.r.t. the 12 position columns [x1 pi1 x2 pi2] and the 12
 * velocity columns [v1 omega1 v2 omega2]; assemble_side() turns them into h and the 6x6
 * blocks of Jp and Jv. */
#ifndef VD_CORE_ELEM_H
#define VD_CORE_ELEM_H

#include <stdbool.h>
#include <string.h>

#include "data.h"
#include "model.h"
#include "vdmath.h"

/* derivative rows w.r.t. the perturbation coordinates of up to VD_NG bodies (column
 * groups of 6: [x pi] for positions, [v omega] for velocities); an element uses ng groups */
#define VD_NG 2
#define NC    (6 * VD_NG)
typedef double dmat[3][NC];

#define VD_AI static inline __attribute__((always_inline))

/* out = M [s] (row i = m_i x s), 3x3 row-major */
VD_AI void m3_skew(double out[9], const double M[9], const double s[3])
{
    for (int i = 0; i < 3; i++) {
        const double *r = M + 3 * i;

        out[3 * i] = r[1] * s[2] - r[2] * s[1];
        out[3 * i + 1] = r[2] * s[0] - r[0] * s[2];
        out[3 * i + 2] = r[0] * s[1] - r[1] * s[0];
    }
}

/* D[:, c..c+2] += s * M */
static inline void put3(dmat D, int c, const double M[9], double s)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            D[i][c + j] += s * M[3 * i + j];
}

/* out = M D (first nc columns) */
static inline void mul_3(dmat out, const double M[9], const dmat D, int nc)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < nc; j++)
            out[i][j] = M[3 * i] * D[0][j] + M[3 * i + 1] * D[1][j] + M[3 * i + 2] * D[2][j];
}

/* out += M D */
static inline void mul_add_3(dmat out, const double M[9], const dmat D, int nc)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < nc; j++)
            out[i][j] += M[3 * i] * D[0][j] + M[3 * i + 1] * D[1][j] + M[3 * i + 2] * D[2][j];
}

/* out = M^T D */
static inline void mult_3(dmat out, const double M[9], const dmat D, int nc)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < nc; j++)
            out[i][j] = M[i] * D[0][j] + M[3 + i] * D[1][j] + M[6 + i] * D[2][j];
}

/* add a 6 x nc derivative (rows: 3 from Dt, 3 from Dr) into the blocks of a row body */
static inline void scatter(double *J, const int *blk, int ng, const dmat Dt, const dmat Dr)
{
    for (int g = 0; g < ng; g++) {
        double *B;

        if (blk[g] < 0)
            continue;
        B = J + 36 * blk[g];
        for (int j = 0; j < 6; j++)
            for (int i = 0; i < 3; i++) {
                VD_B6(B, i, j) += Dt[i][6 * g + j];
                VD_B6(B, 3 + i, j) += Dr[i][6 * g + j];
            }
    }
}

/* one side of an element: body `body` gets sigma * (f, tau) at lever l from its CoM.
 * own: column group of this body; blk: block ids (body, group body) for the ng groups */
struct side {
    int body;
    const int *blk;
    int own;
    double sigma;
    const double *l;
    const dmat *Dl;
};

static const dmat dzero;

static inline void assemble_side(struct vd_data *d, double *h, bool jac, int ng,
                                 const struct side *s, const double f[3], const double tau[3],
                                 const dmat DfP, const dmat DtP, const dmat DfV, const dmat DtV)
{
    const double *A = d->A + 9 * s->body;
    const int nc = 6 * ng;
    double mom[3], lf[3], hr[3];
    double *hb = h + 6 * s->body;

    vdu_cross3(lf, s->l, f);
    for (int i = 0; i < 3; i++) {
        mom[i] = s->sigma * (tau[i] + lf[i]);
        hb[i] += s->sigma * f[i];
    }
    vdu_mat3t_vec(hr, A, mom);
    vdu_add3(hb + 3, hb + 3, hr);
    if (!jac)
        return;
    {
        dmat Dt, Dm, Dr;
        double L[9], F[9], Mm[9], AtMm[9];

        vdu_skew(L, s->l);
        vdu_skew(F, f);
        vdu_skew(Mm, mom);
        /* positions: Dm = sigma (DtP + skew(l) DfP - skew(f) Dl) */
        for (int i = 0; i < 3; i++)
            memcpy(Dm[i], DtP[i], (size_t)nc * sizeof(double));
        mul_add_3(Dm, L, DfP, nc);
        mul_3(Dt, F, *s->Dl, nc);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < nc; j++) {
                Dm[i][j] = s->sigma * (Dm[i][j] - Dt[i][j]);
                Dt[i][j] = s->sigma * DfP[i][j];
            }
        mult_3(Dr, A, Dm, nc);
        vdu_mat3t_mul(AtMm, A, Mm); /* delta(A^T) m = A^T skew(m) delta pi */
        put3(Dr, 6 * s->own + 3, AtMm, 1.0);
        scatter(d->Jp, s->blk, ng, Dt, Dr);
        /* velocities: Dm = sigma (DtV + skew(l) DfV) */
        for (int i = 0; i < 3; i++)
            memcpy(Dm[i], DtV[i], (size_t)nc * sizeof(double));
        mul_add_3(Dm, L, DfV, nc);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < nc; j++) {
                Dm[i][j] *= s->sigma;
                Dt[i][j] = s->sigma * DfV[i][j];
            }
        mult_3(Dr, A, Dm, nc);
        scatter(d->Jvb, s->blk, ng, Dt, Dr);
    }
}

#endif /* VD_CORE_ELEM_H */
