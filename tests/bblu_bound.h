/* tests/bblu_bound.h - the forward error bound of a solve with core/bblu.h's factors, as
 * tests/lu_bound.h gives LAPACK's: the bordered block LU is, in the permuted order (the
 * clusters, then the border), a plain LU  P^T A' = L U  whose pivots stay inside the blocks,
 * and its solve is forward and back substitution with those factors (bblu.h). Higham, Thm 9.4
 * holds for any computed LU factors, whatever the pivot order: (A' + dA) x^ = b with
 * |dA| <= gamma_3n P |L^| |U^|, so
 *     ||x^ - x||_inf / ||x^||_inf <= gamma_3n || |A'^-1| P |L^| |U^| ||_inf = gamma_3n c.
 * vt_bblu_cond computes c from the factors (L^, U^ assembled from the blocks) and A'^-1
 * (LAPACK's inverse, accurate to kappa u, which is << 1 for these matrices, so c is exact to
 * a few percent; the bound's constant 3n already covers far more than that). */
#ifndef VD_TESTS_BBLU_BOUND_H
#define VD_TESTS_BBLU_BOUND_H

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/bblu.h"

/* c of the factors F, piv of A (n x n, column-major) by plan p; -1 on failure */
static inline double vt_bblu_cond(const struct vd_bblu *p, const double *A, const double *F,
                                  const int *piv)
{
    const int n = p->n, nb = p->nb, b0 = n - nb;
    const size_t N = (size_t)n;
    int *ord = malloc(N * sizeof(int));
    double *L = calloc(N * N, sizeof(double)), *U = calloc(N * N, sizeof(double));
    double *Ai = malloc(N * N * sizeof(double)), *y = calloc(N, sizeof(double));
    double *g = calloc(N, sizeof(double)), c = -1.0;
    lapack_int *ip = malloc(N * sizeof(lapack_int));

    if (!ord || !L || !U || !Ai || !y || !g || !ip)
        goto out;
    memcpy(ord, p->idx, (size_t)b0 * sizeof(int));
    memcpy(ord + b0, p->bidx, (size_t)nb * sizeof(int));
    for (int c0 = 0; c0 < p->ncl; c0++) {
        const int s0 = p->ptr[c0], nc = p->ptr[c0 + 1] - s0;
        const int *bs = p->bsub + p->bptr[c0], nbc = p->bptr[c0 + 1] - p->bptr[c0];
        const size_t NC = (size_t)nc;
        const double *blk = F + p->off[c0], *Ub = blk + NC * NC, *Lb = Ub + NC * (size_t)nbc;

        for (int j = 0; j < nc; j++) {
            for (int i = 0; i < nc; i++) {
                const double v = blk[(size_t)i + NC * (size_t)j];

                if (i > j)
                    L[(size_t)(s0 + i) + N * (size_t)(s0 + j)] = v;
                else
                    U[(size_t)(s0 + i) + N * (size_t)(s0 + j)] = v;
            }
            L[(size_t)(s0 + j) * (N + 1)] = 1.0;
            for (int a = 0; a < nbc; a++)
                L[(size_t)(b0 + bs[a]) + N * (size_t)(s0 + j)] =
                    Lb[(size_t)a + (size_t)nbc * (size_t)j];
        }
        for (int b = 0; b < nbc; b++)
            for (int i = 0; i < nc; i++)
                U[(size_t)(s0 + i) + N * (size_t)(b0 + bs[b])] = Ub[(size_t)i + NC * (size_t)b];
    }
    for (int j = 0; j < nb; j++) {
        const double *H = F + p->off[p->ncl];

        for (int i = 0; i < nb; i++) {
            const double v = H[i + nb * j];

            if (i > j)
                L[(size_t)(b0 + i) + N * (size_t)(b0 + j)] = v;
            else
                U[(size_t)(b0 + i) + N * (size_t)(b0 + j)] = v;
        }
        L[(size_t)(b0 + j) * (N + 1)] = 1.0;
    }
    /* g = P |L| |U| e, P of each block's pivots (getrf's: row k swapped with piv[k]) */
    for (size_t j = 0; j < N; j++)
        for (size_t i = 0; i < N; i++)
            y[i] += fabs(U[i + N * j]);
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < N; j++)
            g[i] += fabs(L[i + N * j]) * y[j];
    for (int c0 = 0; c0 <= p->ncl; c0++) {
        const int s0 = c0 < p->ncl ? p->ptr[c0] : b0;
        const int nc = c0 < p->ncl ? p->ptr[c0 + 1] - s0 : nb;

        for (int k = nc - 1; k >= 0; k--) {
            const int q = s0 + piv[s0 + k] - 1;
            const double t = g[s0 + k];

            g[s0 + k] = g[q];
            g[q] = t;
        }
    }
    /* A'^-1, then c = max_i sum_j |A'^-1|_ij g_j */
    for (size_t j = 0; j < N; j++)
        for (size_t i = 0; i < N; i++)
            Ai[i + N * j] = A[(size_t)ord[i] + N * (size_t)ord[j]];
    if (LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, Ai, n, ip) ||
        LAPACKE_dgetri(LAPACK_COL_MAJOR, n, Ai, n, ip))
        goto out;
    c = 0.0;
    for (size_t i = 0; i < N; i++) {
        double s = 0.0;

        for (size_t j = 0; j < N; j++)
            s += fabs(Ai[i + N * j]) * g[j];
        c = fmax(c, s);
    }
out:
    free(ord);
    free(L);
    free(U);
    free(Ai);
    free(y);
    free(g);
    free(ip);
    return c;
}

#endif /* VD_TESTS_BBLU_BOUND_H */
