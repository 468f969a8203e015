/* core/linalg.c - LAPACKE/OpenBLAS wrappers. */
#include "linalg.h"

#include <errno.h>
#include <lapacke.h>
#include <stdio.h>
#include <string.h>

/* OpenBLAS extensions (cblas.h of every Debian variant declares them; declared here so the
 * build does not depend on which variant's include directory is installed) */
extern void openblas_set_num_threads(int num_threads);
extern int openblas_get_num_threads(void);
extern int openblas_get_parallel(void);
extern char *openblas_get_config(void);

int vd_blas_parallel(void)
{
    return openblas_get_parallel();
}

int vd_blas_threads(void)
{
    return openblas_get_num_threads();
}

const char *vd_blas_config(void)
{
    return openblas_get_config();
}

int vd_blas_init(char *info, size_t len)
{
    static const char *const kind[] = {"sequential", "pthreads", "OpenMP"};
    int par = openblas_get_parallel();

    openblas_set_num_threads(1);
    if (info && len)
        snprintf(info, len, "%s (%s, %d thread%s)", openblas_get_config(),
                 par >= 0 && par <= 2 ? kind[par] : "unknown", openblas_get_num_threads(),
                 openblas_get_num_threads() == 1 ? "" : "s");
    return openblas_get_num_threads() == 1 ? 0 : -EPERM;
}

int vd_lu_factor(int n, double *A, int *ipiv)
{
    return (int)LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, A, n, ipiv);
}

int vd_lu_solve(int n, const double *LU, const int *ipiv, double *b, int nrhs)
{
    return (int)LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', n, nrhs, LU, n, ipiv, b, n);
}

int vd_lu_factor_rect(int rows, int cols, double *A, int lda, int *ipiv)
{
    return (int)LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, rows, cols, A, lda, ipiv);
}

int vd_lu_solve_ex(char trans, int n, const double *LU, int lda, const int *ipiv, double *b,
                   int nrhs, int ldb)
{
    return (int)LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, trans, n, nrhs, LU, lda, ipiv, b, ldb);
}

int vd_lapack_warmup(int n, double *A, int *ipiv, double *b)
{
    int info;

    memset(A, 0, (size_t)n * (size_t)n * sizeof(double));
    for (int i = 0; i < n; i++) {
        A[(size_t)i * ((size_t)n + 1)] = 1.0;
        b[i] = 1.0;
    }
    info = vd_lu_factor(n, A, ipiv);
    if (info)
        return -EIO;
    return vd_lu_solve(n, A, ipiv, b, 1) ? -EIO : 0;
}
