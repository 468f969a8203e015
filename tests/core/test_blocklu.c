/* tests/core/test_blocklu.c - the structured solve (core/blocklu.h):
 *  - the 6x6 kernels against LAPACK/BLAS and against plain loops;
 *  - ordering: clusters are the components of the body graph without the root, each one
 *    contiguous in the order, the root last, no fill across clusters; on the sedan the
 *    expected clusters (engine, front axle with steering, rear axle with its subframe);
 *  - symbolic and numeric factorization of random block patterns (trees with extra links
 *    around a hub): the product of the block factors reproduces S, every block the symbolic
 *    step reserved is assembled or filled in, and the solve agrees with LAPACK's;
 *  - accuracy on the parked sedan against an iteratively refined solution;
 *  - equivalence: on every shipped model, vehicle, rig and scenario, one step of the
 *    structured path and one step of the dense path from the same state (the dense
 *    trajectory, state and inputs copied before each step) give the same step within the
 *    error bound of the solves (step_bound: the dense LU's condition estimate of that step
 *    times the unit roundoff, tests/lu_bound.h), LIE and LSRT2 in both stage-2 forms,
 * relinearization every step and every 3 steps. 200 steps each: the structure (order, slots, update
 * list) is fixed at init and every step runs all of it, whatever the state; the steps only vary the
 * values, and the first 200 ms of a scenario hold its most varied ones (settling from the design
 * pose or the statics, the driver's first actions, tyres spinning up), while the worst differences
 * seen came at the first step. Longer: `test_blocklu --steps N`. Every tolerance is an error bound
 * evaluated on the case (see each check), so the test holds for any BLAS kernel
 * (tests/blas_kernels.sh runs it on each the CPU can execute). `test_blocklu --bench` times the
 * kernels against LAPACK/BLAS instead (no checks);
 * `--steps N --file F` compares one file; `--blas` prints the OpenBLAS configuration (the
 * kernel in use); VT_DEBUG=tol prints the steps worse than tol. */
#include <glob.h>
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "build_util.h"
#include "check.h"
#include "lu_bound.h"
#include "config/model_yaml.h"
#include "config/scenario.h"
#include "core/blocklu.h"
#include "core/data.h"
#include "core/eval.h"
#include "core/linalg.h"
#include "core/model.h"
#include "core/step.h"

/* BLAS (Fortran interface of OpenBLAS) */
extern void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                   const double *alpha, const double *a, const int *lda, const double *b,
                   const int *ldb, const double *beta, double *c, const int *ldc);
extern void dgemv_(const char *t, const int *m, const int *n, const double *alpha, const double *a,
                   const int *lda, const double *x, const int *incx, const double *beta, double *y,
                   const int *incy);

static void rand_mat(double *A, int n, double lo, double hi)
{
    for (int i = 0; i < n; i++)
        A[i] = vt_uniform(lo, hi);
}

static double max_abs_diff(const double *a, const double *b, size_t n)
{
    double e = 0.0;

    for (size_t i = 0; i < n; i++)
        e = fmax(e, fabs(a[i] - b[i]));
    return e;
}

static double max_abs(const double *a, size_t n)
{
    double e = 0.0;

    for (size_t i = 0; i < n; i++)
        e = fmax(e, fabs(a[i]));
    return e;
}

/* ---- kernels ----------------------------------------------------------------------- */

/* C = |A| |B| (6x6, column-major) */
static void absmul6(double C[36], const double A[36], const double B[36])
{
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            double s = 0.0;

            for (int q = 0; q < 6; q++)
                s += fabs(A[i + 6 * q]) * fabs(B[q + 6 * j]);
            C[i + 6 * j] = s;
        }
}

/* G = P |L| |U| from packed 6x6 LU factors (unit L below the diagonal) and 0-based
 * sequential pivots (A = P L U, P = P_0 ... P_5): the matrix of the backward error bound */
static void lu6_absprod(double G[36], const double LU[36], const int piv[6])
{
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            double s = 0.0;

            for (int q = 0; q <= (i < j ? i : j); q++)
                s += (q == i ? 1.0 : fabs(LU[i + 6 * q])) * fabs(LU[q + 6 * j]);
            G[i + 6 * j] = s;
        }
    for (int k = 5; k >= 0; k--)
        for (int j = 0; j < 6; j++) {
            const double t = G[k + 6 * j];

            G[k + 6 * j] = G[piv[k] + 6 * j];
            G[piv[k] + 6 * j] = t;
        }
}

/* the worst of |x_i - y_i| / t_i */
static double worst_ratio(const double *x, const double *y, const double *t, size_t n)
{
    double w = 0.0;

    for (size_t i = 0; i < n; i++)
        w = fmax(w, fabs(x[i] - y[i]) / t[i]);
    return w;
}

/* The kernels' tolerances are their rounding error bounds (Higham, Accuracy and Stability of
 * Numerical Algorithms, 2nd ed.), evaluated per entry with the operands of the case, so they
 * hold for any order of operations (any BLAS kernel, FMA or not):
 *  - an inner product of k terms: |fl(s) - s| <= gamma_k sum |terms| (Lemma 3.1, eq. 3.5);
 *  - LU with partial pivoting: P L^ U^ = A + dA, |dA| <= gamma_n |L^| |U^| (Thm 9.3), and a
 *    solve (A + dA) x^ = b with |dA| <= gamma_3n P |L^| |U^| (Thm 9.4). vdu_lu6 multiplies by
 *    the rounded reciprocal of the pivot instead of dividing, one more rounding for the
 *    multipliers and for each row of the U solve: gamma_{n+1} and gamma_{3n+2}. */
static void test_kernels(void)
{
    const double g_lu = vt_gamma(7.0), g_solve = vt_gamma(20.0), g_dot = vt_gamma(7.0);
    double r_lu = 0.0, r_rd = 0.0, r_solve = 0.0, r_res = 0.0, r_inv = 0.0, r_gemm = 0.0;
    double r_gemv_sub = 0.0;
    int pivots = 0;

    for (int trial = 0; trial < 2000; trial++) {
        double A[36], LU[36], LA[36], B[36], X[36], XL[36], C[36], C0[36], rd[6], y[6], y0[6];
        double G[36], T[36], T2[36];
        int piv[6];
        lapack_int ipiv[6];

        rand_mat(A, 36, -1.0, 1.0);
        /* pivoting cases: zero or tiny leading entries, scaled rows (masses vs inertias) */
        if (trial % 4 == 1)
            A[0] = 0.0;
        if (trial % 4 == 2)
            for (int j = 0; j < 6; j++)
                for (int i = 0; i < 3; i++)
                    A[i + 6 * j] *= 1e3;
        if (trial % 4 == 3)
            A[7] = 1e-14;
        memcpy(LU, A, sizeof(A));
        memcpy(LA, A, sizeof(A));
        CHECK(vdu_lu6(LU, piv, rd) == 0, "lu6 trial %d singular", trial);
        CHECK(LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, 6, 6, LA, 6, ipiv) == 0, "dgetrf");
        /* same pivots as LAPACK (first largest |entry|; random entries have no near ties) */
        for (int k = 0; k < 6; k++)
            pivots += piv[k] != ipiv[k] - 1;
        /* backward error of vdu_lu6: |P L U - A| <= gamma_{n+1} P |L| |U|, the product
         * formed in long double (its own rounding 2^-64 relative: negligible) */
        lu6_absprod(G, LU, piv);
        {
            long double P[36];

            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 6; j++) {
                    long double acc = 0.0L;

                    for (int q = 0; q <= (i < j ? i : j); q++)
                        acc += (q == i ? 1.0L : (long double)LU[i + 6 * q]) *
                               (long double)LU[q + 6 * j];
                    P[i + 6 * j] = acc;
                }
            for (int k = 5; k >= 0; k--)
                for (int j = 0; j < 6; j++) {
                    const long double t = P[k + 6 * j];

                    P[k + 6 * j] = P[piv[k] + 6 * j];
                    P[piv[k] + 6 * j] = t;
                }
            for (int q = 0; q < 36; q++)
                r_lu = fmax(r_lu, (double)fabsl(P[q] - (long double)A[q]) / (g_lu * G[q]));
        }
        /* reciprocal pivots: fl(fl(1/p) p) - 1 carries two roundings: <= gamma_2 */
        for (int k = 0; k < 6; k++)
            r_rd = fmax(r_rd, fabs(rd[k] * LU[7 * k] - 1.0) / vt_gamma(2.0));
        /* solve with 6 right-hand sides against dgetrs: both backward stable (Thm 9.4),
         * ||x^ - x||_inf <= gamma_3n c ||x^||_inf per column (tests/lu_bound.h) */
        rand_mat(B, 36, -1.0, 1.0);
        memcpy(X, B, sizeof(B));
        memcpy(XL, B, sizeof(B));
        vdu_lu6_solve(LU, piv, rd, X, 6);
        LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', 6, 6, LA, 6, ipiv, XL, 6);
        {
            const double c = vt_lu_cond(6, LA, ipiv);

            for (int j = 0; j < 6; j++) {
                const double nx = fmax(max_abs(X + 6 * j, 6), max_abs(XL + 6 * j, 6));

                r_solve = fmax(r_solve, max_abs_diff(X + 6 * j, XL + 6 * j, 6) /
                                            ((g_solve + vt_gamma(18.0)) * c * nx));
            }
        }
        /* residual B - A X^ = dA X^: |.| <= gamma_{3n+2} G |X^|, plus the rounding of
         * forming it (7-term inner products) */
        memcpy(C, B, sizeof(B));
        vdu_gemm6_sub(C, A, X);
        absmul6(T, G, X);
        absmul6(T2, A, X);
        for (int q = 0; q < 36; q++)
            r_res = fmax(r_res, fabs(C[q]) / (g_solve * T[q] + g_dot * (fabs(B[q]) + T2[q])));
        /* inverse from the factors, column by column a solve with e_j: |A X^ - I| <=
         * gamma_{3n+2} G |X^| + gamma_6 |A| |X^| (the product) */
        {
            double Xi[36], I6[36] = {0}, xb[6], tol[6];

            vdu_inv6(Xi, LU, piv, rd);
            vdu_gemm6(C, A, Xi);
            for (int k = 0; k < 6; k++)
                I6[7 * k] = 1.0;
            absmul6(T, G, Xi);
            absmul6(T2, A, Xi);
            for (int q = 0; q < 36; q++)
                T[q] = g_solve * T[q] + vt_gamma(7.0) * T2[q];
            r_inv = fmax(r_inv, worst_ratio(C, I6, T, 36));
            /* X^ b against the solve of b: both within gamma_{3n+2} |A^-1| G |x| of A^-1 b
             * (|X^| stands in for |A^-1|, a first-order bound: hence the factor 2), plus the
             * product's gamma_6 |X^| |b| */
            vdu_gemv6(y, Xi, B);
            for (int i = 0; i < 6; i++) {
                double sx = 0.0, sb = 0.0, sxb = 0.0;

                for (int q = 0; q < 6; q++) {
                    double gx = 0.0, gb = 0.0;

                    for (int p = 0; p < 6; p++) {
                        gx += G[q + 6 * p] * fabs(X[p]);
                        gb += G[q + 6 * p] * fabs(B[p]);
                    }
                    sx += fabs(Xi[i + 6 * q]) * gx;
                    sb += fabs(Xi[i + 6 * q]) * gb;
                    sxb += fabs(Xi[i + 6 * q]) * fabs(B[q]);
                }
                tol[i] = 2.0 * g_solve * (sx + sb) + vt_gamma(6.0) * sxb;
                xb[i] = X[i];
            }
            r_inv = fmax(r_inv, worst_ratio(y, xb, tol, 6));
        }
        /* C -= A B against dgemm: each within gamma_7 (|C| + |A| |B|) of the exact result */
        rand_mat(C, 36, -1.0, 1.0);
        memcpy(C0, C, sizeof(C));
        absmul6(T, A, B);
        for (int q = 0; q < 36; q++)
            T[q] = 2.0 * g_dot * (fabs(C0[q]) + T[q]);
        vdu_gemm6_sub(C, A, B);
        {
            const int n = 6;
            const double mone = -1.0, one = 1.0;

            dgemm_("N", "N", &n, &n, &n, &mone, A, &n, B, &n, &one, C0, &n);
        }
        r_gemm = fmax(r_gemm, worst_ratio(C, C0, T, 36));
        /* y -= A x against plain loops: the same bound */
        rand_mat(y, 6, -1.0, 1.0);
        memcpy(y0, y, sizeof(y));
        vdu_gemv6_sub(y, A, B);
        for (int i = 0; i < 6; i++) {
            double s = y0[i], t = fabs(y0[i]);

            for (int p = 0; p < 6; p++) {
                s -= A[i + 6 * p] * B[p];
                t += fabs(A[i + 6 * p] * B[p]);
            }
            r_gemv_sub = fmax(r_gemv_sub, fabs(s - y[i]) / (2.0 * g_dot * t));
        }
    }
    CHECK(pivots == 0, "lu6 vs dgetrf: %d pivots differ", pivots);
    CHECK_TOL(r_lu, 1.0, "lu6 backward error: %.3g of its bound", r_lu);
    CHECK_TOL(r_rd, 1.0, "lu6 reciprocal pivots: %.3g of the bound", r_rd);
    CHECK_TOL(r_solve, 1.0, "lu6_solve vs dgetrs: %.3g of the bound", r_solve);
    CHECK_TOL(r_res, 1.0, "lu6_solve residual: %.3g of the bound", r_res);
    CHECK_TOL(r_inv, 1.0, "inv6: %.3g of the bound", r_inv);
    CHECK_TOL(r_gemm, 1.0, "gemm6_sub vs dgemm: %.3g of the bound", r_gemm);
    CHECK_TOL(r_gemv_sub, 1.0, "gemv6_sub vs loops: %.3g of the bound", r_gemv_sub);
    printf("  kernels: 2000 random 6x6 cases against dgetrf/dgetrs/dgemm; worst error/bound: "
           "lu %.2g, solve %.2g, residual %.2g, inverse %.2g, gemm %.2g, gemv %.2g\n",
           r_lu, r_solve, r_res, r_inv, r_gemm, r_gemv_sub);
    /* a singular block is reported with its column */
    {
        double A[36] = {0}, rd[6];
        int piv[6];

        for (int k = 0; k < 6; k++)
            A[7 * k] = 1.0;
        A[7 * 4] = 0.0;
        CHECK(vdu_lu6(A, piv, rd) == 5, "singular column 4 reported as 5");
    }
}

/* tests/lu_bound.h's estimate of c = || |A^-1| P |L| |U| ||_inf against c computed from
 * the explicit inverse (LAPACK's dgetri, whose own error is a few gamma_n kappa: far below
 * the factor checked) on random matrices, rows scaled over six orders of magnitude in half
 * of them: Hager-Higham's estimate is a lower bound (the norm of the matrix applied to one
 * vector) and, in Higham's experiments (Accuracy and Stability, ch. 15.3), rarely below a
 * third of the norm; 1e-10 allows for the rounding of the two computations */
static void test_lu_cond(void)
{
    double worst_low = 1.0, worst_high = 0.0;

    for (int trial = 0; trial < 200; trial++) {
        const int n = 6 + trial % 40;
        const size_t N = (size_t)n;
        double *A = malloc(N * N * sizeof(double)), *X = malloc(N * N * sizeof(double));
        double *G = calloc(N * N, sizeof(double)), *w = malloc(64 * N * sizeof(double)), c = 0.0;
        lapack_int *ipiv = malloc(N * sizeof(lapack_int));

        rand_mat(A, n * n, -1.0, 1.0);
        if (trial % 2)
            for (size_t i = 0; i < N; i++)
                for (size_t j = 0; j < N; j++)
                    A[i + N * j] *= pow(10.0, (double)(i % 7) - 3.0);
        LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, A, n, ipiv);
        memcpy(X, A, N * N * sizeof(double));
        LAPACKE_dgetri_work(LAPACK_COL_MAJOR, n, X, n, ipiv, w, 64 * n);
        /* G = P |L| |U|, then c = max_i sum_j |X_ij| (G e)_j */
        for (size_t i = 0; i < N; i++)
            for (size_t j = 0; j < N; j++)
                for (size_t q = 0; q <= (i < j ? i : j); q++)
                    G[i + N * j] += (q == i ? 1.0 : fabs(A[i + N * q])) * fabs(A[q + N * j]);
        for (int k = n - 1; k >= 0; k--)
            for (size_t j = 0; j < N; j++) {
                const size_t p = (size_t)ipiv[k] - 1;
                const double t = G[(size_t)k + N * j];

                G[(size_t)k + N * j] = G[p + N * j];
                G[p + N * j] = t;
            }
        for (size_t i = 0; i < N; i++) {
            double r = 0.0;

            for (size_t j = 0; j < N; j++) {
                double ge = 0.0;

                for (size_t q = 0; q < N; q++)
                    ge += G[j + N * q];
                r += fabs(X[i + N * j]) * ge;
            }
            c = fmax(c, r);
        }
        {
            const double est = vt_lu_cond(n, A, ipiv);

            worst_low = fmin(worst_low, est / c);
            worst_high = fmax(worst_high, est / c);
        }
        free(A);
        free(X);
        free(G);
        free(w);
        free(ipiv);
    }
    CHECK(worst_high <= 1.0 + 1e-10, "lu_cond above the exact value: %.6g", worst_high);
    CHECK(worst_low >= 1.0 / 3.0, "lu_cond below a third of the exact value: %.3g", worst_low);
    printf("  condition estimate (tests/lu_bound.h): 200 random matrices, estimate / exact in "
           "[%.3g, %.3g]\n",
           worst_low, worst_high);
}

/* ---- random block patterns -------------------------------------------------------- */

/* a symmetric block pattern over nb bodies: a random tree, extra links, and a hub (body
 * `hub`) linked to every k-th body; CSR with sorted columns and the diagonal */
static void rand_pattern(int nb, int hub, int extra, int *rowptr, int *col, int *nblk)
{
    unsigned char *adj = calloc((size_t)nb * (size_t)nb, 1);
    int k = 0;

    for (int i = 0; i < nb; i++)
        adj[i * nb + i] = 1;
    for (int i = 1; i < nb; i++) {
        int p = (int)vt_uniform(0.0, (double)i);

        adj[i * nb + p] = adj[p * nb + i] = 1;
    }
    for (int e = 0; e < extra; e++) {
        int a = (int)vt_uniform(0.0, (double)nb), b = (int)vt_uniform(0.0, (double)nb);

        adj[a * nb + b] = adj[b * nb + a] = 1;
    }
    for (int i = 0; i < nb; i += 3)
        adj[hub * nb + i] = adj[i * nb + hub] = 1;
    for (int i = 0; i < nb; i++) {
        rowptr[i] = k;
        for (int j = 0; j < nb; j++)
            if (adj[i * nb + j])
                col[k++] = j;
    }
    rowptr[nb] = k;
    *nblk = k;
    free(adj);
}

/* a clusters check for any analyzed structure: root last, clusters contiguous and
 * closed (no pattern link between two clusters), each connected */
static void check_clusters(const struct vd_blu *s, const int *rowptr, const int *col,
                           const char *what)
{
    int bad = 0;
    int *clu = calloc((size_t)s->nb, sizeof(int));

    CHECK(s->perm[s->nb - 1] == s->root && s->pos[s->root] == s->nb - 1, "%s: root last", what);
    CHECK(s->cluster_ptr[0] == 0 && s->cluster_ptr[s->ncluster] == s->nb - 1,
          "%s: clusters cover all but the root", what);
    for (int c = 0; c < s->ncluster; c++)
        for (int k = s->cluster_ptr[c]; k < s->cluster_ptr[c + 1]; k++)
            clu[s->perm[k]] = c;
    clu[s->root] = -1;
    for (int i = 0; i < s->nb; i++)
        for (int k = rowptr[i]; k < rowptr[i + 1]; k++) {
            const int j = col[k];

            if (i != s->root && j != s->root && clu[i] != clu[j])
                bad++;
        }
    CHECK(bad == 0, "%s: %d links between clusters", what, bad);
    /* U(k) of a cluster body holds only its cluster and the root: no fill across */
    for (int k = 0; k < s->nb - 1; k++)
        for (int e = s->up_ptr[k]; e < s->up_ptr[k + 1]; e++) {
            const int j = s->up_col[e];

            if (j != s->nb - 1 && clu[s->perm[j]] != clu[s->perm[k]])
                bad++;
        }
    CHECK(bad == 0, "%s: fill across clusters", what);
    free(clu);
}

/* dense S (n x n, body order) from the blocks; block (i, j) of pattern block k is Bk */
static void test_random_pattern(int nb, int extra, int trial)
{
    const int n = 6 * nb;
    int *rowptr = calloc((size_t)nb + 1, sizeof(int)),
        *col = calloc((size_t)nb * (size_t)nb, sizeof(int));
    int nblk, hub = trial % nb, rc;
    struct vd_blu s;
    char err[128], what[64];
    double *S, *F, *Lt, *Ut, *x, *xd, *b;
    lapack_int *ipiv;

    snprintf(what, sizeof(what), "random pattern %d (%d blocks)", trial, nb);
    rand_pattern(nb, hub, extra, rowptr, col, &nblk);
    rc = vd_blu_analyze(&s, nb, rowptr, col, hub, err, sizeof(err));
    CHECK(rc == 0, "%s: analyze: %s", what, err);
    if (rc)
        goto out;
    check_clusters(&s, rowptr, col, what);
    S = calloc((size_t)n * (size_t)n, sizeof(double));
    F = calloc(36 * (size_t)s.nslot, sizeof(double));
    Lt = calloc((size_t)n * (size_t)n, sizeof(double));
    Ut = calloc((size_t)n * (size_t)n, sizeof(double));
    x = calloc((size_t)n, sizeof(double));
    xd = calloc((size_t)n, sizeof(double));
    b = calloc((size_t)n, sizeof(double));
    ipiv = calloc((size_t)n, sizeof(lapack_int));
    /* values: an M-like diagonal (rows scaled as masses and inertias) plus coupling blocks
     * whose symmetric part keeps S positive definite (diagonally dominant) */
    for (int f = 0; f < s.nslot; f++)
        for (int q = 0; q < 36; q++)
            F[36 * f + q] = 1e300; /* must be overwritten or zeroed */
    for (int f = 0; f < s.nfill; f++)
        memset(F + 36 * s.fill_slot[f], 0, 36 * sizeof(double));
    for (int i = 0; i < nb; i++)
        for (int k = rowptr[i]; k < rowptr[i + 1]; k++) {
            const int j = col[k];
            double B[36];

            rand_mat(B, 36, -1.0, 1.0);
            if (i == j)
                for (int q = 0; q < 6; q++)
                    B[7 * q] += (q < 3 ? 40.0 : 10.0) * (double)(rowptr[i + 1] - rowptr[i]);
            memcpy(F + 36 * s.pat_slot[k], B, sizeof(B));
            for (int c = 0; c < 6; c++)
                for (int r = 0; r < 6; r++)
                    S[(size_t)(6 * i + r) + (size_t)n * (size_t)(6 * j + c)] = B[r + 6 * c];
        }
    {
        int unset = 0;

        for (int f = 0; f < 36 * s.nslot; f++)
            unset += F[f] == 1e300;
        CHECK(unset == 0, "%s: %d entries never assembled", what, unset);
    }
    rc = vd_blu_factor(&s, F);
    CHECK(rc == 0, "%s: factor %d", what, rc);
    /* every fill slot the symbolic step predicted does fill in (none is superfluous) */
    {
        int empty = 0;

        for (int f = 0; f < s.nfill; f++)
            empty += max_abs(F + 36 * s.fill_slot[f], 36) == 0.0;
        CHECK(empty == 0, "%s: %d predicted fill blocks stay zero", what, empty);
    }
    /* L~ (block lower, D_k = P^T L U on the diagonal, S_ik below) and U~ (unit block upper,
     * W_kj) in elimination order; their product must be P S P^T with P the order. The
     * tolerance: block LU is backward stable for these (block diagonally dominant) matrices,
     * P S P^T + dS = L~ U~ with |dS| <= gamma_n |L~| |U~| to first order (Demmel, Higham and
     * Schreiber, Stability of block LU factorization, 1995, Thm 4.1; each entry is formed by
     * at most n multiply-adds); the slot holds D_k^-1 (an inverse by solves: relative error
     * <= gamma_20 kappa_k, Higham ch. 14), inverted back here with LAPACK (another gamma_20
     * kappa_k^2 after the first is amplified), which moves the block row k of the product by
     * at most 2 gamma_20 (kappa_k + kappa_k^2) ||D_k|| max(1, ||U~_k*||), kappa_k = the
     * infinity-norm condition number of D_k (dgecon) */
    double tol_d = 0.0;

    for (int k = 0; k < nb; k++) {
        double Dk[36], work[64], rcond = 0.0, dnorm = 0.0, unorm = 1.0;
        lapack_int ip6[6], iw6[6];

        memcpy(Dk, F + 36 * s.diag_slot[k], sizeof(Dk));
        LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, 6, 6, Dk, 6, ip6);
        LAPACKE_dgetri_work(LAPACK_COL_MAJOR, 6, Dk, 6, ip6, work, 64);
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) {
                Lt[(size_t)(6 * k + i) + (size_t)n * (size_t)(6 * k + j)] = Dk[i + 6 * j];
                Ut[(size_t)(6 * k + i) + (size_t)n * (size_t)(6 * k + j)] = i == j;
            }
        for (int i = 0; i < 6; i++) {
            double r = 0.0;

            for (int j = 0; j < 6; j++)
                r += fabs(Dk[i + 6 * j]);
            dnorm = fmax(dnorm, r);
        }
        for (int e = s.up_ptr[k]; e < s.up_ptr[k + 1]; e++) {
            const int j = s.up_col[e];

            for (int r = 0; r < 6; r++)
                for (int c = 0; c < 6; c++) {
                    Lt[(size_t)(6 * j + r) + (size_t)n * (size_t)(6 * k + c)] =
                        F[36 * s.l_slot[e] + r + 6 * c];
                    Ut[(size_t)(6 * k + r) + (size_t)n * (size_t)(6 * j + c)] =
                        F[36 * s.u_slot[e] + r + 6 * c];
                }
        }
        for (int r = 0; r < 6; r++) {
            double row = 0.0;

            for (int c = 0; c < n; c++)
                row += fabs(Ut[(size_t)(6 * k + r) + (size_t)n * (size_t)c]);
            unorm = fmax(unorm, row);
        }
        LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, 6, 6, memcpy(work, Dk, sizeof(Dk)), 6, ip6);
        LAPACKE_dgecon_work(LAPACK_COL_MAJOR, 'I', 6, work, 6, dnorm, &rcond, work + 36, iw6);
        {
            const double kap = 1.0 / rcond;

            tol_d = fmax(tol_d, 2.0 * vt_gamma(20.0) * (kap + kap * kap) * dnorm * unorm);
        }
    }
    {
        double r_lu = 0.0;

        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double acc = 0.0, aacc = 0.0;
                const double sij = S[(size_t)(6 * s.perm[i / 6] + i % 6) +
                                     (size_t)n * (size_t)(6 * s.perm[j / 6] + j % 6)];

                for (int q = 0; q < n; q++) {
                    const double l = Lt[(size_t)i + (size_t)n * (size_t)q];
                    const double u = Ut[(size_t)q + (size_t)n * (size_t)j];

                    acc += l * u;
                    aacc += fabs(l * u);
                }
                /* the product formed here rounds like the factorization: 2 gamma_n */
                r_lu = fmax(r_lu, fabs(acc - sij) / (2.0 * vt_gamma(n) * aacc + tol_d));
            }
        CHECK_TOL(r_lu, 1.0, "%s: |L U - S| at %.3g of its bound", what, r_lu);
    }
    /* solve against LAPACK: both backward stable, each within gamma_3n c ||x||_inf of the
     * exact solution (tests/lu_bound.h; c from LAPACK's factors, the structured solve's own
     * error measured below that bound in test_accuracy) */
    rand_mat(b, n, -1.0, 1.0);
    memcpy(x, b, (size_t)n * sizeof(double));
    memcpy(xd, b, (size_t)n * sizeof(double));
    vd_blu_solve(&s, F, x);
    LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, S, n, ipiv);
    LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', n, 1, S, n, ipiv, xd, n);
    {
        const double tol =
            2.0 * vt_gamma(3.0 * n) * vt_lu_cond(n, S, ipiv) * max_abs(xd, (size_t)n);

        CHECK_TOL(max_abs_diff(x, xd, (size_t)n), tol, "%s: solve %.3g (bound %.3g)", what,
                  max_abs_diff(x, xd, (size_t)n), tol);
    }
    free(S);
    free(F);
    free(Lt);
    free(Ut);
    free(x);
    free(xd);
    free(b);
    free(ipiv);
    vd_blu_free(&s);
out:
    free(rowptr);
    free(col);
}

/* ---- the sedan's order ---------------------------------------------------------------- */

static void test_sedan_order(void)
{
    struct vd_model *m = vd_cfg_load_model("config/vehicles/sedan.yaml", NULL, NULL);
    const struct vd_blu *s;
    int rear = 0, front = 0;

    CHECK(m != NULL, "load sedan");
    if (!m)
        return;
    s = &m->blu;
    check_clusters(s, m->blk_rowptr, m->blk_col, "sedan");
    CHECK(!strcmp(m->body[s->root].name, "chassis"), "sedan root %s", m->body[s->root].name);
    /* engine on its mounts, the front axle (corners, steering, anti-roll bar, drive
     * shafts) and the rear axle (subframe, corners, anti-roll bar) */
    CHECK(s->ncluster == 3, "sedan clusters %d", s->ncluster);
    for (int c = 0; c < s->ncluster; c++) {
        const char *first = m->body[s->perm[s->cluster_ptr[c]]].name;
        bool has_sub = false, has_rack = false;

        for (int k = s->cluster_ptr[c]; k < s->cluster_ptr[c + 1]; k++) {
            has_sub |= !strcmp(m->body[s->perm[k]].name, "rear.subframe");
            has_rack |= !strcmp(m->body[s->perm[k]].name, "steering.rack");
        }
        rear += has_sub;
        front += has_rack;
        (void)first;
    }
    CHECK(rear == 1 && front == 1, "sedan: front and rear axle clusters");
    printf("  sedan: %d clusters, %d blocks stored (%d fill), %d block updates, %ld flop per "
           "factorization, %ld per solve\n",
           s->ncluster, s->nslot, s->nfill, s->nupd, s->flops_factor, s->flops_solve);
    vd_model_free(m);
}

/* ---- dense vs structured on the shipped files --------------------------------------- */

/* input replay: the dense step's input calls are recorded and the structured step gets
 * the same values in the same order (a driver has state of its own) */
#define REC_MAX 8
struct rec {
    vd_input_fn fn;
    void *ctx;
    int n, at, nu;
    double t[REC_MAX], u[REC_MAX][64];
    bool mismatch;
};

static void rec_fn(void *ctx, double t, double *u)
{
    struct rec *r = ctx;

    if (r->fn)
        r->fn(r->ctx, t, u);
    if (r->n < REC_MAX) {
        r->t[r->n] = t;
        memcpy(r->u[r->n], u, (size_t)r->nu * sizeof(double));
        r->n++;
    }
}

static void replay_fn(void *ctx, double t, double *u)
{
    struct rec *r = ctx;

    if (r->at >= r->n || r->t[r->at] != t) {
        r->mismatch = true;
        return;
    }
    memcpy(u, r->u[r->at], (size_t)r->nu * sizeof(double));
    r->at++;
}

static void copy_state(const struct vd_model *m, struct vd_data *dst, const struct vd_data *src)
{
    memcpy(dst->r, src->r, (size_t)m->nq * sizeof(double));
    memcpy(dst->v, src->v, (size_t)m->nq * sizeof(double));
    memcpy(dst->z, src->z, (size_t)m->nz * sizeof(double));
    memcpy(dst->u, src->u, (size_t)m->ninput * sizeof(double));
    memcpy(dst->bush_phi, src->bush_phi, (size_t)m->nbush * sizeof(double));
    memcpy(dst->bush_anchor, src->bush_anchor, 6 * (size_t)m->nbush * sizeof(double));
    dst->t = src->t;
    dst->nstep = src->nstep;
    dst->lin_age = src->lin_age;
}

/* normwise relative difference of two step results x1, y1 from x0: relative to the larger
 * of the result and the increment (velocities, tyre deflections: the step result itself;
 * near rest, where the result is about 0, its change over the step) */
static double rel_diff(const double *x0, const double *x1, const double *y1, int n, bool incr_only)
{
    double num = 0.0, den = 0.0;

    for (int i = 0; i < n; i++) {
        double dif = fabs(x1[i] - y1[i]);

        /* relative to the increment: both results were rounded to a double next to x0 when
         * the increment was added, which alone can put them one unit in the last place of x0
         * apart (a parked car's coordinates of ~1 m move ~1e-6 m in a step: one ulp is then
         * 2e-10 of the increment); that rounding of the result is not a difference of the
         * solves */
        if (incr_only)
            dif = fmax(0.0, dif - (nextafter(fabs(x0[i]), INFINITY) - fabs(x0[i])));
        num = fmax(num, dif);
        den = fmax(den, fabs(x1[i] - x0[i]));
        if (!incr_only)
            den = fmax(den, fabs(x1[i]));
    }
    return den > 0.0 ? num / den : num;
}

/* The bound of the difference of one dense and one structured step from the same state,
 * relative as rel_diff measures it. Each solve of S x = b is within gamma_3n c ||x||_inf of
 * the exact solution (tests/lu_bound.h; c of the dense factors the step used; the structured
 * solve meets the same bound, test_accuracy), so the two solutions differ by at most
 * 2 gamma_3n c ||x||. LIE: v+ = v + dt x, so the velocity difference relative to the
 * increment is that bound; the coordinates r+ = r + dt K v+ carry the same relative
 * difference through the kinematic matrix K (identity for translations, the Cardan map for
 * rotations, well conditioned away from +-90 deg pitch). LSRT2 (two solves with the same
 * factors): the second right-hand side takes the first stage's result through
 * (b21 / gamma) (S^-1 M - I) (b21 = a21 + g21), of size about 1 + rho(S^-1 M) <= 2 for the
 * dissipative, L-stable linearization (a spectral estimate, not a norm bound): the stage-1
 * difference arrives about 2 b21 / gamma = 0.71 times in stage 2, counted as 1.41. 4 u more
 * for the rounding of the result (v + dt x, K v+) that the two paths need not share. */
static double step_bound(const struct vd_model *m, double cond)
{
    const double one = 2.0 * vt_gamma(3.0 * (double)m->nq) * cond;
    const double b21 = VD_LSRT2_A21 + VD_LSRT2_G21;

    if (m->opt.method == VD_METHOD_LSRT2)
        return one * (1.0 + 2.0 * fabs(b21) / VD_LSRT2_GAMMA) + 4.0 * VT_U;
    return one + 4.0 * VT_U;
}

/* worst relative step difference over `steps` steps of one method on model m whose dense
 * data dd has been started (a scenario or the model's signals), as a ratio to the step's
 * error bound (see step_bound); *worst_diff gets the worst difference itself and *worst_cond
 * the largest condition number c of the dense factors */
static double compare_steps(struct vd_model *m, struct vd_data *dd, struct vd_data *ds, int steps,
                            int *fails, double *worst_diff, double *worst_cond)
{
    const size_t nq = (size_t)m->nq, nz = (size_t)m->nz;
    double worst = 0.0, cond = 0.0, *r0 = calloc(nq, sizeof(double));
    double *v0 = calloc(nq, sizeof(double));
    double *z0 = calloc(nz + 1, sizeof(double));
    struct rec rec = {.fn = dd->input_fn, .ctx = dd->input_ctx, .nu = m->ninput};

    if (m->ninput > 64)
        abort();
    for (int k = 0; k < steps; k++) {
        int rd, rs;

        copy_state(m, ds, dd);
        memcpy(r0, dd->r, nq * sizeof(double));
        memcpy(v0, dd->v, nq * sizeof(double));
        memcpy(z0, dd->z, nz * sizeof(double));
        rec.n = rec.at = 0;
        dd->input_fn = rec_fn;
        dd->input_ctx = &rec;
        ds->input_fn = replay_fn;
        ds->input_ctx = &rec;
        m->opt.linear = VD_LINEAR_DENSE;
        rd = vd_step(m, dd);
        m->opt.linear = VD_LINEAR_STRUCTURED;
        rs = vd_step(m, ds);
        dd->input_fn = rec.fn;
        dd->input_ctx = rec.ctx;
        if (rd || rs || rec.mismatch) {
            (*fails)++;
            break;
        }
        /* the dense step factored S anew (lin_age 1 after a relinearizing step): the bound
         * of the factors it used */
        if (dd->lin_age == 1) {
            cond = vt_lu_cond(m->nq, dd->S, dd->ipiv);
            *worst_cond = fmax(*worst_cond, cond);
        }
        {
            /* coordinates relative to their change over the step (absolute positions tens of
             * metres down the road would hide any difference) */
            double wr = rel_diff(r0, dd->r, ds->r, m->nq, true);
            double wv = rel_diff(v0, dd->v, ds->v, m->nq, false);
            double wz = nz ? rel_diff(z0, dd->z, ds->z, m->nz, false) : 0.0;

            if (getenv("VT_DEBUG") && fmax(wr, fmax(wv, wz)) > atof(getenv("VT_DEBUG"))) {
                double num = 0, den = 0;
                int at = 0;

                for (int i = 0; i < m->nq; i++) {
                    if (fabs(dd->v[i] - ds->v[i]) > num) {
                        num = fabs(dd->v[i] - ds->v[i]);
                        at = i;
                    }
                    den = fmax(den, fabs(dd->v[i] - v0[i]));
                }
                printf("\n    step %d: r %.3g v %.3g z %.3g: v num %.3g at %d (%s) den %.3g\n", k,
                       wr, wv, wz, num, at, m->body[at / 6].name, den);
                for (int i = 0; i < m->nq; i++)
                    if (fabs(dd->v[i] - ds->v[i]) > 1e-3 * fabs(dd->v[i] - v0[i]) + 1e-14)
                        printf("    v[%d] (%s.%d) %.17g %.17g dv %.3g\n", i, m->body[i / 6].name,
                               i % 6, dd->v[i], ds->v[i], dd->v[i] - v0[i]);
            }
            *worst_diff = fmax(*worst_diff, fmax(wr, fmax(wv, wz)));
            worst = fmax(worst, fmax(wr, fmax(wv, wz)) / step_bound(m, cond));
        }
    }
    free(r0);
    free(v0);
    free(z0);
    return worst;
}

/* one shipped file: every method; returns the worst difference */
static void test_file(const char *path, int steps)
{
    static const struct {
        int method, stage2, relin;
        const char *name;
    } cases[] = {
        {VD_METHOD_LIE, VD_STAGE2_LINEARIZED, 1, "lie"},
        {VD_METHOD_LSRT2, VD_STAGE2_LINEARIZED, 1, "lsrt2"},
        {VD_METHOD_LSRT2, VD_STAGE2_NONLINEAR, 1, "lsrt2-w"},
        {VD_METHOD_LSRT2, VD_STAGE2_LINEARIZED, 3, "lsrt2/3"},
    };
    double worst_all = 0.0;

    printf("  %-40s", path);
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        struct vd_scenario *scn = NULL;
        struct vd_source *src = NULL;
        struct vd_model *m;
        struct vd_data *dd = NULL, *ds = NULL;
        int fails = 0;
        double w, wd = 0.0, wc = 0.0;
        char err[256];

        /* quiet loads (the tyre files' notes); again with diagnostics on failure */
        if (vd_cfg_is_scenario(path)) {
            scn = vd_cfg_load_scenario(path, NULL, NULL);
            if (!scn)
                scn = vd_cfg_load_scenario(path, NULL, stderr);
            m = scn ? scn->m : NULL;
        } else {
            m = vd_cfg_load_model(path, &src, NULL);
            if (!m)
                m = vd_cfg_load_model(path, &src, stderr);
        }
        CHECK(m != NULL, "load %s", path);
        if (!m)
            return;
        if (m->njoint) {
            /* ideal joints: the structured solve of the augmented system is compared with the
             * dense one solve by solve, each against a refined solution within its own error
             * bound, in tests/core/test_csblock.c (a step-level comparison here would need
             * the block elimination's bound, a dense O(n^3) replay, at every step) */
            printf(" joints: test_csblock\n");
            if (scn)
                vd_cfg_scenario_free(scn);
            else
                vd_model_free(m);
            vd_source_free(src);
            return;
        }
        m->opt.method = cases[c].method;
        m->opt.stage2 = cases[c].stage2;
        m->opt.relin = cases[c].relin;
        m->opt.linear = VD_LINEAR_DENSE;
        dd = vd_data_new(m);
        m->opt.linear = VD_LINEAR_STRUCTURED;
        ds = vd_data_new(m);
        CHECK(dd && ds && dd->S && !ds->S, "%s: data", path);
        if (scn) {
            /* a scenario whose static equilibrium is not found (a scenario problem, reported
             * by its own tests) still compares the steps from its design pose */
            if (vd_scenario_start(scn, dd, err, sizeof(err))) {
                printf(" [no statics: design pose]");
                scn->statics = false;
                vd_data_reset(m, dd);
                CHECK(vd_scenario_start(scn, dd, err, sizeof(err)) == 0, "%s: start: %s", path,
                      err);
            }
        } else {
            dd->input_fn = vd_source_eval;
            dd->input_ctx = src;
        }
        w = compare_steps(m, dd, ds, steps, &fails, &wd, &wc);
        CHECK(fails == 0, "%s %s: a step failed", path, cases[c].name);
        /* w: the worst step difference as a ratio to its bound (step_bound) */
        CHECK_TOL(w, 1.0,
                  "%s %s: dense vs structured step differs by %.3g of its bound (%.3g "
                  "relative, condition c up to %.3g)",
                  path, cases[c].name, w, wd, wc);
        printf(" %s %.1e (%.2g)", cases[c].name, wd, w);
        worst_all = fmax(worst_all, w);
        vd_data_free(dd);
        vd_data_free(ds);
        if (scn)
            vd_cfg_scenario_free(scn);
        else {
            vd_source_free(src);
            vd_model_free(m);
        }
    }
    printf("\n");
}

/* ---- accuracy against an iteratively refined solution ------------------------------ */

/* S x = h at the start state of the slope-hold scenario (the sedan parked on 10 %, where
 * the increments are smallest and the light bodies' rows weigh most), LIE and LSRT2: the
 * structured solve against a dense LU solution refined in long double residuals */
static void test_accuracy(void)
{
    struct vd_scenario *scn = vd_cfg_load_scenario("config/scenarios/slope_hold.yaml", NULL, NULL);
    struct vd_model *m = scn ? scn->m : NULL;
    struct vd_data *d;
    char err[256];

    CHECK(m != NULL, "load slope_hold");
    if (!m)
        return;
    m->opt.linear = VD_LINEAR_DENSE;
    d = vd_data_new(m);
    CHECK(d && vd_scenario_start(scn, d, err, sizeof(err)) == 0, "start: %s", err);
    for (int meth = 0; meth < 2 && d; meth++) {
        const size_t n = (size_t)m->nq;
        const double c1 = m->opt.dt * (meth ? VD_LSRT2_GAMMA : 1.0);
        double *h = calloc(n, sizeof(double)), *S0 = malloc(n * n * sizeof(double));
        double *xd = malloc(n * sizeof(double)), *xs = malloc(n * sizeof(double));
        double *xr = malloc(n * sizeof(double)), *rr = malloc(n * sizeof(double));
        double ed = 0.0, es = 0.0, nx = 0.0;
        lapack_int *ipiv = malloc(n * sizeof(lapack_int));

        vd_eval(m, d, d->r, d->v, d->u, h, true);
        vd_assemble_dense(m, d, 1.0, c1, c1 * c1);
        memcpy(S0, d->S, n * n * sizeof(double));
        vd_assemble_blocks(m, d, 1.0, c1, c1 * c1);
        CHECK(vd_blu_factor(&m->blu, d->F) == 0, "factor");
        LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, (int)n, (int)n, d->S, (int)n, ipiv);
        memcpy(xd, h, n * sizeof(double));
        LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', (int)n, 1, d->S, (int)n, ipiv, xd, (int)n);
        memcpy(xs, h, n * sizeof(double));
        vd_blu_solve(&m->blu, d->F, xs);
        memcpy(xr, xd, n * sizeof(double));
        for (int it = 0; it < 3; it++) {
            for (size_t i = 0; i < n; i++) {
                long double acc = h[i];

                for (size_t j = 0; j < n; j++)
                    acc -= (long double)S0[i + n * j] * xr[j];
                rr[i] = (double)acc;
            }
            LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', (int)n, 1, d->S, (int)n, ipiv, rr, (int)n);
            for (size_t i = 0; i < n; i++)
                xr[i] += rr[i];
        }
        for (size_t i = 0; i < n; i++) {
            nx = fmax(nx, fabs(xr[i]));
            ed = fmax(ed, fabs(xd[i] - xr[i]));
            es = fmax(es, fabs(xs[i] - xr[i]));
        }
        /* the bound of the dense LU's solve, gamma_3n c (tests/lu_bound.h), is what the
         * comparisons of the two paths rely on for both: the dense solve must meet it
         * (Thm 9.4) and so must the structured one. The reference xr: three steps of
         * refinement with residuals in long double (64-bit mantissa) converge to about u
         * relative (Higham, Thm 12.2, as gamma_3n c < 1/2 here): 2u added for its error */
        const double bound =
            vt_gamma(3.0 * (double)n) * vt_lu_cond((int)n, d->S, ipiv) + 2.0 * VT_U;

        printf("  accuracy, slope hold start, %s: normwise error dense LU %.2g, structured %.2g; "
               "bound gamma_3n c %.2g\n",
               meth ? "LSRT2" : "LIE", ed / nx, es / nx, bound);
        CHECK_TOL(ed / nx, bound, "dense solve error %.3g, bound %.3g", ed / nx, bound);
        CHECK_TOL(es / nx, bound, "structured solve error %.3g, bound %.3g", es / nx, bound);
        free(h);
        free(S0);
        free(xd);
        free(xs);
        free(xr);
        free(rr);
        free(ipiv);
    }
    vd_data_free(d);
    vd_cfg_scenario_free(scn);
}

static void test_shipped(int steps)
{
    static const char *const pats[] = {"config/models/*.yaml", "config/vehicles/*.yaml",
                                       "config/rigs/*.yaml", "config/scenarios/*.yaml"};

    printf("  dense vs structured, %d steps each, worst relative step difference:\n", steps);
    for (size_t p = 0; p < sizeof(pats) / sizeof(pats[0]); p++) {
        glob_t g;

        if (glob(pats[p], 0, NULL, &g)) {
            CHECK(0, "no files match %s", pats[p]);
            continue;
        }
        for (size_t i = 0; i < g.gl_pathc; i++)
            test_file(g.gl_pathv[i], steps);
        globfree(&g);
    }
}

/* ---- kernel timings (--bench) ------------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile double sink;

static void bench(void)
{
    enum { N = 64, REP = 20000 };
    static double A[N][36], B[N][36], C[N][36], rd[N][6], y[N][6];
    static int piv[N][6];
    static lapack_int ipiv[N][6];
    const int n6 = 6, one_i = 1;
    const double one = 1.0, mone = -1.0;
    double t;

    for (int i = 0; i < N; i++) {
        rand_mat(A[i], 36, -1, 1);
        rand_mat(B[i], 36, -1, 1);
        rand_mat(C[i], 36, -1, 1);
        for (int k = 0; k < 6; k++)
            A[i][7 * k] += 10.0;
    }
    printf("6x6 kernels, ns per call (%d calls over %d blocks):\n", N * REP, N);
#define TIME(label, stmt)                                                                          \
    do {                                                                                           \
        t = now_s();                                                                               \
        for (int r = 0; r < REP; r++)                                                              \
            for (int i = 0; i < N; i++) {                                                          \
                stmt;                                                                              \
            }                                                                                      \
        printf("  %-36s %8.1f\n", label, (now_s() - t) * 1e9 / (double)(N * REP));                 \
    } while (0)
    TIME("vdu_gemm6_sub  C -= A B", vdu_gemm6_sub(C[i], A[i], B[(i + 1) % N]));
    TIME("dgemm_         C -= A B",
         dgemm_("N", "N", &n6, &n6, &n6, &mone, A[i], &n6, B[(i + 1) % N], &n6, &one, C[i], &n6));
    TIME("vdu_gemv6_sub  y -= A x", vdu_gemv6_sub(y[i], A[i], B[(i + 1) % N]));
    TIME("dgemv_         y -= A x",
         dgemv_("N", &n6, &n6, &mone, A[i], &n6, B[(i + 1) % N], &one_i, &one, y[i], &one_i));
    TIME("vdu_lu6 (copy + LU)", (memcpy(C[i], A[i], sizeof(A[i])), vdu_lu6(C[i], piv[i], rd[i])));
    TIME("dgetrf  (copy + LU)", (memcpy(B[i], A[i], sizeof(A[i])),
                                 LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, 6, 6, B[i], 6, ipiv[i])));
    TIME("vdu_gemm6      C = A B", vdu_gemm6(C[i], A[i], B[(i + 1) % N]));
    TIME("vdu_gemv6      y = A x", vdu_gemv6(y[i], A[i], B[(i + 1) % N]));
    TIME("vdu_inv6       X = A^-1 (from LU)", vdu_inv6(B[(i + 1) % N], C[i], piv[i], rd[i]));
    TIME("vdu_lu6_solve  6 rhs", vdu_lu6_solve(C[i], piv[i], rd[i], A[(i + 1) % N], 6));
    TIME("dgetrs         6 rhs",
         LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', 6, 6, B[i], 6, ipiv[i], A[(i + 1) % N], 6));
    TIME("vdu_lu6_solve  1 rhs", vdu_lu6_solve(C[i], piv[i], rd[i], y[i], 1));
    TIME("dgetrs         1 rhs",
         LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', 6, 1, B[i], 6, ipiv[i], y[i], 6));
#undef TIME
    sink = C[0][0] + y[0][0];
}

/* the two-part factorization (vd_blu_factor_part x 2 + vd_blu_factor_root, what the optional
 * worker thread runs) against vd_blu_factor on the sedan's assembled iteration matrix, and
 * the split: whole clusters, the flops add up, the parts as even as a cut allows */
static void test_two_parts(void)
{
    struct vd_model *m = vd_cfg_load_model("config/vehicles/sedan.yaml", NULL, NULL);
    const struct vd_blu *s;
    struct vd_data *d;
    double *F2 = NULL, acc[2][36], worst = 0.0, scale = 0.0, srr[36], tol = 0.0;
    long root_flops, biggest = 0;
    const double c1 = 1e-3 * VD_LSRT2_GAMMA;

    CHECK(m != NULL, "load sedan");
    if (!m)
        return;
    s = &m->blu;
    d = vd_data_new(m);
    CHECK(d != NULL, "data");
    if (!d)
        goto out_model;
    CHECK(s->split >= 1 && s->split < s->ncluster, "split %d of %d clusters", s->split,
          s->ncluster);
    root_flops = 527; /* the root's own elimination: no blocks after it */
    CHECK(s->flops_part[0] + s->flops_part[1] + root_flops == s->flops_factor,
          "part flops %ld + %ld + %ld vs %ld", s->flops_part[0], s->flops_part[1], root_flops,
          s->flops_factor);
    for (int c = 0; c < s->ncluster; c++) {
        long f = 0;

        for (int k = s->cluster_ptr[c]; k < s->cluster_ptr[c + 1]; k++) {
            const long n = s->up_ptr[k + 1] - s->up_ptr[k];

            f += 527 + 432 * n + 432 * n * n;
        }
        biggest = f > biggest ? f : biggest;
    }
    /* a cut of whole clusters can be off the middle by at most the biggest cluster */
    CHECK(labs(s->flops_part[0] - s->flops_part[1]) <= biggest, "parts %ld / %ld, biggest %ld",
          s->flops_part[0], s->flops_part[1], biggest);
    CHECK(vd_eval(m, d, d->r, d->v, d->u, d->h, true) == 0, "linearize");
    vd_assemble_blocks(m, d, 1.0, c1, c1 * c1);
    F2 = malloc(36 * (size_t)s->nslot * sizeof(double));
    CHECK(F2 != NULL, "alloc");
    if (!F2)
        goto out_data;
    memcpy(F2, d->F, 36 * (size_t)s->nslot * sizeof(double));
    memcpy(srr, d->F + 36 * (size_t)s->diag_slot[s->nb - 1], sizeof(srr));
    CHECK(vd_blu_factor(s, d->F) == 0, "one-thread factorization");
    CHECK(vd_blu_factor_part(s, F2, 1, acc[1]) == 0, "part 1");
    CHECK(vd_blu_factor_part(s, F2, 0, acc[0]) == 0, "part 0");
    CHECK(vd_blu_factor_root(s, F2, acc[0], acc[1]) == 0, "root");
    /* the parts run the one-thread code on the same blocks: every slot but the root's
     * diagonal is bitwise the same */
    {
        int other = 0;

        for (int f = 0; f < s->nslot; f++)
            if (f != s->diag_slot[s->nb - 1])
                other +=
                    memcmp(d->F + 36 * (size_t)f, F2 + 36 * (size_t)f, 36 * sizeof(double)) != 0;
        CHECK(other == 0, "two parts vs one thread: %d blocks besides the root's differ", other);
    }
    for (size_t i = 0; i < 36 * (size_t)s->nslot; i++) {
        worst = fmax(worst, fabs(d->F[i] - F2[i]));
        scale = fmax(scale, fabs(d->F[i]));
    }
    /* the same operations but the order of the additions into the root block D_r = S_rr -
     * sum_k S_rk W_kr: each entry a sum of N = 6 (updates + 1) products, so the two D_r
     * differ by at most 2 gamma_N (|S_rr| + sum_k |S_rk| |W_kr|) (Higham, eq. 3.5); the slot
     * holds D_r^-1, which moves by ||D_r^-1||^2 ||dD_r|| (first order), plus the rounding of
     * the two inversions, 2 gamma_20 kappa_r ||D_r^-1|| (Higham ch. 14) */
    {
        const double *Dri = d->F + 36 * (size_t)s->diag_slot[s->nb - 1];
        double sabs[36], ninv = 0.0, nsum = 0.0, kap, work[36];
        lapack_int ip6[6];
        int nupd = 0;

        for (int q = 0; q < 36; q++)
            sabs[q] = fabs(srr[q]);
        for (int k = 0; k < s->nb - 1; k++)
            for (int e = s->up_ptr[k]; e < s->up_ptr[k + 1]; e++)
                if (s->up_col[e] == s->nb - 1) {
                    const double *L = d->F + 36 * (size_t)s->l_slot[e];
                    const double *W = d->F + 36 * (size_t)s->u_slot[e];
                    double T[36];

                    absmul6(T, L, W);
                    for (int q = 0; q < 36; q++)
                        sabs[q] += T[q];
                    nupd++;
                }
        for (int i = 0; i < 6; i++) {
            double ri = 0.0, rs = 0.0;

            for (int j = 0; j < 6; j++) {
                ri += fabs(Dri[i + 6 * j]);
                rs += sabs[i + 6 * j];
            }
            ninv = fmax(ninv, ri);
            nsum = fmax(nsum, rs);
        }
        /* kappa_r = ||D_r|| ||D_r^-1||, D_r from the stored inverse */
        memcpy(work, Dri, sizeof(work));
        LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, 6, 6, work, 6, ip6);
        {
            double w2[64];

            LAPACKE_dgetri_work(LAPACK_COL_MAJOR, 6, work, 6, ip6, w2, 64);
        }
        kap = 0.0;
        for (int i = 0; i < 6; i++) {
            double r = 0.0;

            for (int j = 0; j < 6; j++)
                r += fabs(work[i + 6 * j]);
            kap = fmax(kap, r);
        }
        kap *= ninv;
        tol = 2.0 * vt_gamma(6.0 * (nupd + 1)) * nsum * ninv * ninv +
              2.0 * vt_gamma(20.0) * kap * ninv;
    }
    CHECK_TOL(worst, tol, "two parts vs one thread: %.3g (bound %.3g)", worst, tol);
    printf("  two parts: clusters 0..%d (%ld flop) and %d..%d (%ld flop), root %ld; "
           "factors equal to %.1e relative (%.2g of the bound)\n",
           s->split - 1, s->flops_part[0], s->split, s->ncluster - 1, s->flops_part[1], root_flops,
           worst / scale, worst / tol);
    free(F2);
out_data:
    vd_data_free(d);
out_model:
    vd_model_free(m);
}

int main(int argc, char **argv)
{
    int steps = 200;

    if (argc > 1 && !strcmp(argv[1], "--blas")) {
        printf("%s\n", vd_blas_config());
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--bench")) {
        vd_blas_init(NULL, 0);
        bench();
        return 0;
    }
    if (argc > 2 && !strcmp(argv[1], "--steps"))
        steps = atoi(argv[2]);
    if (argc > 4 && !strcmp(argv[3], "--file")) {
        test_file(argv[4], steps);
        return vt_report("test_blocklu");
    }
    CHECK(vd_blas_init(NULL, 0) == 0, "one BLAS thread");
    test_kernels();
    test_lu_cond();
    for (int t = 0; t < 40; t++)
        test_random_pattern(2 + t, t % 7, t);
    printf("  random block patterns: 40 (2..41 blocks), L U = S and solve vs LAPACK\n");
    test_sedan_order();
    test_two_parts();
    test_accuracy();
    test_shipped(steps);
    return vt_report("test_blocklu");
}
