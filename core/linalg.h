/* core/linalg.h - dense LU of the iteration matrix through LAPACKE_dgetrf_work/dgetrs_work
 * (column-major, caller-owned pivots: the row-major and high-level LAPACKE paths allocate)
 * and the OpenBLAS set-up: one thread, checked; every routine warmed up once at init (its
 * first call maps OpenBLAS's 128 MiB buffer).
 * vd_blas_init, vd_lapack_warmup: init only. vd_lu_factor/solve: RT-safe after warm-up. */
#ifndef VD_CORE_LINALG_H
#define VD_CORE_LINALG_H

#include <stddef.h>

/* init-time */
/* force OpenBLAS to one thread and check it took; describe the build in info.
 * 0, or -EPERM when more than one BLAS thread remains. Idempotent. */
int vd_blas_init(char *info, size_t len);
/* OpenBLAS build: 0 sequential, 1 pthreads, 2 OpenMP (openblas_get_parallel) */
int vd_blas_parallel(void);
int vd_blas_threads(void);
const char *vd_blas_config(void);
/* factor and solve an n x n identity in A (n*n) with b (n): maps LAPACK's buffers */
int vd_lapack_warmup(int n, double *A, int *ipiv, double *b);

/* RT-safe */
/* LU with partial pivoting in place. 0, or the LAPACK info (> 0: singular pivot) */
int vd_lu_factor(int n, double *A, int *ipiv);
/* solve with the factors, nrhs right-hand sides in b (n x nrhs, column-major) */
int vd_lu_solve(int n, const double *LU, const int *ipiv, double *b, int nrhs);
/* LU with partial (row) pivoting of the rows x cols matrix A (leading dimension lda) */
int vd_lu_factor_rect(int rows, int cols, double *A, int lda, int *ipiv);
/* solve A x = b (trans 'N') or A^T x = b ('T') with the factors of an n x n matrix of
 * leading dimension lda; b is n x nrhs with leading dimension ldb */
int vd_lu_solve_ex(char trans, int n, const double *LU, int lda, const int *ipiv, double *b,
                   int nrhs, int ldb);

#endif /* VD_CORE_LINALG_H */
