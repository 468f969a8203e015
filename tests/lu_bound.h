/* tests/lu_bound.h - error bounds for tests that compare linear solves: the forward error
 * bound of a solve with LAPACK's LU with partial pivoting (dgetrf/dgetrs), computed from the
 * factors actually used, so a tolerance follows from the matrix and not from the margin one
 * machine or one BLAS kernel happened to show.
 *
 * Higham, Accuracy and Stability of Numerical Algorithms (2nd ed.), Thm 9.4: the computed
 * solution of A x = b from computed factors P L^ U^ = A satisfies (A + dA) x^ = b with
 * |dA| <= gamma_3n P |L^| |U^|, gamma_k = k u / (1 - k u), u = 2^-53 (componentwise, for
 * any order of the inner products, hence any BLAS kernel). So
 *     |x^ - x| <= gamma_3n |A^-1| P |L^| |U^| |x^|  and
 *     ||x^ - x||_inf / ||x^||_inf <= gamma_3n || |A^-1| P |L^| |U^| ||_inf = gamma_3n c,
 * c = || A^-1 diag(g) ||_inf with g = P |L^| |U^| e (e = ones). c is a Skeel-type condition
 * number (it does not change when rows are scaled, as the 0.3 kg and 1365 kg bodies' rows of
 * a vehicle are) that includes the growth of the factors. vt_lu_cond estimates it with
 * LAPACK's dlacn2 (Hager-Higham, the estimator of dgecon and of dgerfs' FERR) as the 1-norm
 * of diag(g) A^-T, two solves with the factors per iteration; the estimate is a lower bound
 * of c, almost always within a factor 3 (Higham, ch. 15), so a tolerance of gamma_3n c already
 * holds the worst case constant 3n where rounding errors of a solve grow like sqrt(3n). */
#ifndef VD_TESTS_LU_BOUND_H
#define VD_TESTS_LU_BOUND_H

#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>

/* unit roundoff of IEEE double */
#define VT_U (DBL_EPSILON / 2.0)

/* gamma_k = k u / (1 - k u) (Higham, Lemma 3.1) */
static inline double vt_gamma(double k)
{
    return k * VT_U / (1.0 - k * VT_U);
}

/* c = || |A^-1| P |L| |U| ||_inf from dgetrf's factors LU (n x n, column-major) and pivots;
 * returns -1 when the estimator fails (allocation) */
static inline double vt_lu_cond(int n, const double *LU, const lapack_int *ipiv)
{
    const size_t N = (size_t)n;
    double *g = calloc(N, sizeof(double)), *y = calloc(N, sizeof(double));
    double *v = calloc(N, sizeof(double)), *x = calloc(N, sizeof(double)), est = 0.0;
    lapack_int *isgn = calloc(N, sizeof(lapack_int)), kase = 0, isave[3] = {0, 0, 0};

    if (!g || !y || !v || !x || !isgn) {
        est = -1.0;
        goto out;
    }
    /* y = |U| e (row sums of the upper triangle), g = |L| y (L unit lower) */
    for (size_t j = 0; j < N; j++)
        for (size_t i = 0; i <= j; i++)
            y[i] += fabs(LU[i + N * j]);
    for (size_t i = 0; i < N; i++) {
        double s = y[i];

        for (size_t j = 0; j < i; j++)
            s += fabs(LU[i + N * j]) * y[j];
        g[i] = s;
    }
    /* g = P g: A = P L U with P = P_1 ... P_n, P_k swapping rows k and ipiv(k) */
    for (int k = n - 1; k >= 0; k--) {
        const size_t p = (size_t)ipiv[k] - 1;
        const double t = g[k];

        g[k] = g[p];
        g[p] = t;
    }
    /* ||A^-1 diag(g)||_inf = ||diag(g) A^-T||_1: B = diag(g) A^-T, B^T = A^-1 diag(g) */
    for (;;) {
        LAPACKE_dlacn2_work(n, v, x, isgn, &est, &kase, isave);
        if (!kase)
            break;
        if (kase == 1) {
            LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'T', n, 1, LU, n, ipiv, x, n);
            for (size_t i = 0; i < N; i++)
                x[i] *= g[i];
        } else {
            for (size_t i = 0; i < N; i++)
                x[i] *= g[i];
            LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', n, 1, LU, n, ipiv, x, n);
        }
    }
out:
    free(g);
    free(y);
    free(v);
    free(x);
    free(isgn);
    return est;
}

#endif /* VD_TESTS_LU_BOUND_H */
