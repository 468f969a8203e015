/* tests/core/test_bblu.c - the bordered block LU (core/bblu.h):
 *   1. random bordered block diagonal systems shaped as the TA form's (core/ta.h): each
 *      cluster a KKT block [S G^T; G 0] (S dominated by its diagonal, as a mass-dominated
 *      iteration matrix at dt = 1 ms, G of full row rank), the border six coordinates coupled
 *      to every cluster, the clusters' indices interleaved in the matrix; the solve against a
 *      long-double refined reference within Higham's bound for the factors actually used
 *      (tests/bblu_bound.h); no border; one cluster only;
 *      clusters touching random parts of a border that has rows of its own (a zero
 *      diagonal, as the steering's cut rows);
 *   2. the entries between clusters, and between a cluster and the border it does not touch,
 *      are never read (NaN there changes nothing);
 *   3. a singular cluster block is reported with its cluster, bad plans with a reason. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bblu_bound.h"
#include "../check.h"
#include "../kkt_ref.h"
#include "../lu_bound.h"
#include "core/bblu.h"

/* a random system: cluster sizes ns[c] coordinates + nr[c] rows, nb border indices (the last
 * nbr of them rows: a zero diagonal, as the TA form's cut rows on the steering), the indices
 * shuffled; cl (n) gets each index's cluster. With touch (ncl x n), each cluster touches a
 * random part of the border (each index with probability 1/2, at least one) and is zero at
 * the rest. Returns A (n x n), NaN where it is zero by structure between clusters (and
 * between a cluster and the border it does not touch) when nan_off */
static double *make(int ncl, const int *ns, const int *nr, int nb, int nbr, int *cl, int *n_out,
                    int nan_off, unsigned char *touch)
{
    int n = nb, k = 0;
    int *kind, *perm;
    double *A;

    for (int c = 0; c < ncl; c++)
        n += ns[c] + nr[c];
    kind = malloc((size_t)n * sizeof(int)); /* 0 coordinate, 1 row */
    perm = malloc((size_t)n * sizeof(int));
    A = calloc((size_t)n * (size_t)n, sizeof(double));
    for (int c = 0; c < ncl; c++)
        for (int i = 0; i < ns[c] + nr[c]; i++, k++) {
            cl[k] = c;
            kind[k] = i >= ns[c];
        }
    for (int b = 0; k < n; k++, b++) {
        cl[k] = -1;
        kind[k] = b >= nb - nbr;
    }
    /* shuffle (Fisher-Yates) */
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        const int j = (int)vt_uniform(0.0, i + 1 - 1e-9), t = perm[i];

        perm[i] = perm[j];
        perm[j] = t;
    }
    {
        int *c2 = malloc((size_t)n * sizeof(int)), *k2 = malloc((size_t)n * sizeof(int));

        for (int i = 0; i < n; i++) {
            c2[perm[i]] = cl[i];
            k2[perm[i]] = kind[i];
        }
        memcpy(cl, c2, (size_t)n * sizeof(int));
        memcpy(kind, k2, (size_t)n * sizeof(int));
        free(c2);
        free(k2);
    }
    if (touch) {
        memset(touch, 0, (size_t)ncl * (size_t)n);
        for (int c = 0; c < ncl; c++) {
            int any = 0;

            for (int i = 0; i < n; i++)
                if (cl[i] < 0 && vt_uniform(0.0, 1.0) < 0.5)
                    any = touch[(size_t)c * (size_t)n + (size_t)i] = 1;
            for (int i = 0; i < n && !any && nb; i++)
                if (cl[i] < 0)
                    any = touch[(size_t)c * (size_t)n + (size_t)i] = 1;
        }
    }
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            const int ci = cl[i], cj = cl[j];
            const int same = ci == cj ||
                             (ci < 0 && (!touch || touch[(size_t)cj * (size_t)n + (size_t)i])) ||
                             (cj < 0 && (!touch || touch[(size_t)ci * (size_t)n + (size_t)j]));
            double *a = A + (size_t)i + (size_t)n * (size_t)j;

            if (!same) {
                *a = nan_off ? NAN : 0.0;
                continue;
            }
            if (kind[i] && kind[j])
                *a = 0.0; /* the rows' zero block */
            else if (kind[i] || kind[j])
                *a = vt_uniform(-1.0, 1.0); /* G, G^T (random: full rank) */
            else
                *a = i == j ? vt_uniform(50.0, 1500.0) : vt_uniform(-5.0, 5.0);
        }
    /* G^T = G's transpose (where both are there by structure) */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            if (kind[i] && !kind[j] && !isnan(A[(size_t)i + (size_t)n * (size_t)j]) &&
                !isnan(A[(size_t)j + (size_t)n * (size_t)i]))
                A[(size_t)j + (size_t)n * (size_t)i] = A[(size_t)i + (size_t)n * (size_t)j];
    free(kind);
    free(perm);
    *n_out = n;
    return A;
}

static void check_solve(const char *what, int ncl, const int *ns, const int *nr, int nb, int nbr,
                        int sub)
{
    int cl[512], n;
    static unsigned char touch[8 * 512];
    double *A = make(ncl, ns, nr, nb, nbr, cl, &n, 0, sub ? touch : NULL), *An = NULL;
    struct vd_bblu p;
    char err[160];
    const size_t N = (size_t)n;

    CHECK(vd_bblu_plan(&p, n, cl, ncl, sub ? touch : NULL, err, sizeof(err)) == 0, "%s: plan: %s",
          what, err);
    double *F = malloc(p.nf * sizeof(double)), *w = malloc(N * sizeof(double));
    double *b = malloc(N * sizeof(double)), *x = malloc(N * sizeof(double));
    double *xr = malloc(N * sizeof(double)), *x2 = malloc(N * sizeof(double));
    int *piv = malloc(N * sizeof(int));

    CHECK(p.nb == nb && p.ncl == ncl, "%s: %d border, %d clusters", what, p.nb, p.ncl);
    CHECK(vd_bblu_factor(&p, A, F, piv) == 0, "%s: factor", what);
    for (int rep = 0; rep < 3; rep++) {
        double e = 0.0, nx = 0.0, c;

        for (size_t i = 0; i < N; i++)
            b[i] = vt_uniform(-1.0, 1.0) * (rep + 1);
        memcpy(x, b, N * sizeof(double));
        vd_bblu_solve(&p, F, piv, x, w);
        {
            double *LU = malloc(N * N * sizeof(double)), *r = malloc(N * sizeof(double));
            lapack_int *ip = malloc(N * sizeof(lapack_int));

            memcpy(LU, A, N * N * sizeof(double));
            CHECK(LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, LU, n, ip) == 0, "%s: getrf", what);
            refined(n, A, LU, ip, b, xr, r);
            free(LU);
            free(r);
            free(ip);
        }
        for (size_t i = 0; i < N; i++) {
            e = fmax(e, fabs(x[i] - xr[i]));
            nx = fmax(nx, fabs(x[i]));
        }
        c = vt_bblu_cond(&p, A, F, piv);
        CHECK(c > 0.0, "%s: condition", what);
        /* Higham Thm 9.4 with the factors used (tests/bblu_bound.h), plus 2u for the refined
         * reference (Higham Thm 12.2) */
        CHECK_TOL(e / nx, vt_gamma(3.0 * n) * c + 2.0 * VT_U, "%s: forward error %.3g (c %.3g)",
                  what, e / nx, c);
        if (rep == 0)
            printf("  %s: n %d, error %.3g, bound %.3g\n", what, n, e / nx,
                   vt_gamma(3.0 * n) * c + 2.0 * VT_U);
    }
    /* the entries between clusters (and between a cluster and the border it does not touch)
     * are never read: NaN there, the same factors and solve */
    An = malloc(N * N * sizeof(double));
    memcpy(An, A, N * N * sizeof(double));
    for (size_t j = 0; j < N; j++)
        for (size_t i = 0; i < N; i++) {
            const int ci = cl[i], cj = cl[j];

            if ((ci >= 0 && cj >= 0 && ci != cj) ||
                (sub && ci < 0 && cj >= 0 && !touch[(size_t)cj * N + i]) ||
                (sub && cj < 0 && ci >= 0 && !touch[(size_t)ci * N + j]))
                An[i + N * j] = NAN;
        }
    {
        double *F2 = malloc(p.nf * sizeof(double));
        int *piv2 = malloc(N * sizeof(int)), same = 1;

        CHECK(vd_bblu_factor(&p, An, F2, piv2) == 0, "%s: factor with NaN between clusters", what);
        memcpy(x2, b, N * sizeof(double));
        vd_bblu_solve(&p, F2, piv2, x2, w);
        memcpy(x, b, N * sizeof(double));
        vd_bblu_solve(&p, F, piv, x, w);
        for (size_t i = 0; i < N; i++)
            same &= x[i] == x2[i];
        CHECK(same, "%s: the entries between clusters changed the solve", what);
        free(F2);
        free(piv2);
    }
    vd_bblu_free(&p);
    free(A);
    free(An);
    free(F);
    free(w);
    free(b);
    free(x);
    free(xr);
    free(x2);
    free(piv);
}

static void check_errors(void)
{
    struct vd_bblu p;
    char err[160];
    int cl[8] = {0, 0, 1, 1, -1, -1, 0, 1};
    const int ns[2] = {3, 2}, nr[2] = {1, 1};
    int n, cl2[16];
    double *A;

    cl[3] = 3;
    CHECK(vd_bblu_plan(&p, 8, cl, 2, NULL, err, sizeof(err)) == -EINVAL && strstr(err, "cluster 3"),
          "cluster out of range refused: %s", err);
    cl[3] = 0;
    cl[2] = cl[7] = 0;
    CHECK(vd_bblu_plan(&p, 8, cl, 2, NULL, err, sizeof(err)) == -EINVAL && strstr(err, "empty"),
          "empty cluster refused: %s", err);
    /* a singular cluster block: cluster 1's coordinates' columns made zero */
    A = make(2, ns, nr, 2, 0, cl2, &n, 0, NULL);
    CHECK(vd_bblu_plan(&p, n, cl2, 2, NULL, err, sizeof(err)) == 0, "plan: %s", err);
    {
        double *F = malloc(p.nf * sizeof(double));
        int *piv = malloc((size_t)n * sizeof(int));

        for (int j = 0; j < n; j++)
            if (cl2[j] == 1)
                for (int i = 0; i < n; i++)
                    A[(size_t)i + (size_t)n * (size_t)j] = 0.0;
        CHECK(vd_bblu_factor(&p, A, F, piv) == 2, "singular cluster 1 reported as 2");
        free(F);
        free(piv);
    }
    vd_bblu_free(&p);
    free(A);
}

int main(void)
{
    /* the HMMWV TA form's shape: front axle with steering 27 + 22, rears 11 + 9, border 6 */
    const int ns[3] = {27, 11, 11}, nr[3] = {22, 9, 9};
    const int ns1[1] = {12}, nr1[1] = {5};
    const int ns4[4] = {5, 8, 3, 10}, nr4[4] = {2, 3, 1, 4};
    const int ns6[6] = {9, 9, 11, 11, 1, 1}, nr6[6] = {6, 6, 9, 9, 0, 0};

    check_solve("TA-shaped (3 clusters, border 6)", 3, ns, nr, 6, 0, 0);
    check_solve("4 clusters, no border", 4, ns4, nr4, 0, 0, 0);
    check_solve("1 cluster, border 6", 1, ns1, nr1, 6, 0, 0);
    /* the corners onto the chassis and the steering: six clusters, each on a part of a border
     * of 13 coordinates and 10 rows */
    check_solve("6 clusters on parts of a border of 23 (10 rows)", 6, ns6, nr6, 23, 10, 1);
    check_solve("4 clusters on parts of a border of 6", 4, ns4, nr4, 6, 0, 1);
    check_errors();
    return vt_report("test_bblu");
}
