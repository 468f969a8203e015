/* core/blocklu.c - block-sparse LU with 6x6 blocks: ordering, symbolic factorization and
 * the numeric kernels (file comment of blocklu.h). */
#include "blocklu.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- 6x6 kernels ---------------------------------------------------------------------- */

static inline __attribute__((always_inline)) int k_lu6(double A[36], int piv[6], double rdiag[6])
{
#pragma GCC unroll 6
    for (int k = 0; k < 6; k++) {
        int p = k;
        double mx = fabs(A[k + 6 * k]), r;
#pragma GCC unroll 6

        for (int i = k + 1; i < 6; i++) {
            const double a = fabs(A[i + 6 * k]);

            if (a > mx) {
                mx = a;
                p = i;
            }
        }
        piv[k] = p;
        if (mx == 0.0)
            return k + 1;
        if (p != k)
#pragma GCC unroll 6
            for (int j = 0; j < 6; j++) {
                const double t = A[k + 6 * j];

                A[k + 6 * j] = A[p + 6 * j];
                A[p + 6 * j] = t;
            }
        r = 1.0 / A[k + 6 * k];
        rdiag[k] = r;
#pragma GCC unroll 6
        for (int i = k + 1; i < 6; i++)
            A[i + 6 * k] *= r;
#pragma GCC unroll 6
        for (int j = k + 1; j < 6; j++) {
            const double akj = A[k + 6 * j];
#pragma GCC unroll 6

            for (int i = k + 1; i < 6; i++)
                A[i + 6 * j] -= A[i + 6 * k] * akj;
        }
    }
    return 0;
}

/* b = A^-1 b for one column */
static inline void lu6_solve1(const double *restrict LU, const int piv[6], const double rdiag[6],
                              double *restrict b)
{
#pragma GCC unroll 6
    for (int k = 0; k < 6; k++) {
        const int p = piv[k];
        const double t = b[k];

        b[k] = b[p];
        b[p] = t;
    }
    /* forward: unit lower triangle */
#pragma GCC unroll 6
    for (int k = 0; k < 5; k++) {
        const double bk = b[k];
#pragma GCC unroll 6

        for (int i = k + 1; i < 6; i++)
            b[i] -= LU[i + 6 * k] * bk;
    }
    /* backward: upper triangle, diagonal by its reciprocal */
#pragma GCC unroll 6
    for (int k = 5; k >= 0; k--) {
        const double bk = b[k] * rdiag[k];

        b[k] = bk;
#pragma GCC unroll 6
        for (int i = 0; i < k; i++)
            b[i] -= LU[i + 6 * k] * bk;
    }
}

void vdu_lu6_solve(const double LU[36], const int piv[6], const double rdiag[6], double *B,
                   int nrhs)
{
#pragma GCC unroll 6
    for (int c = 0; c < nrhs; c++)
        lu6_solve1(LU, piv, rdiag, B + 6 * c);
}

static inline __attribute__((always_inline)) void k_inv6(double X[36], const double LU[36],
                                                         const int piv[6], const double rdiag[6])
{
    double T[6][6]; /* row-major: the row operations run along contiguous rows */
    int perm[6] = {0, 1, 2, 3, 4, 5};

    /* T = P I */
#pragma GCC unroll 6
    for (int k = 0; k < 6; k++) {
        const int t = perm[k];

        perm[k] = perm[piv[k]];
        perm[piv[k]] = t;
    }
#pragma GCC unroll 6
    for (int i = 0; i < 6; i++)
#pragma GCC unroll 6
        for (int c = 0; c < 6; c++)
            T[i][c] = perm[i] == c ? 1.0 : 0.0;
            /* forward with the unit lower triangle, all six columns at once */
#pragma GCC unroll 6
    for (int k = 0; k < 5; k++)
#pragma GCC unroll 6
        for (int i = k + 1; i < 6; i++) {
            const double l = LU[i + 6 * k];
#pragma GCC unroll 6

            for (int c = 0; c < 6; c++)
                T[i][c] -= l * T[k][c];
        }
        /* backward with the upper triangle */
#pragma GCC unroll 6
    for (int k = 5; k >= 0; k--) {
#pragma GCC unroll 6
        for (int c = 0; c < 6; c++)
            T[k][c] *= rdiag[k];
#pragma GCC unroll 6
        for (int i = 0; i < k; i++) {
            const double u = LU[i + 6 * k];
#pragma GCC unroll 6

            for (int c = 0; c < 6; c++)
                T[i][c] -= u * T[k][c];
        }
    }
#pragma GCC unroll 6
    for (int i = 0; i < 6; i++)
#pragma GCC unroll 6
        for (int c = 0; c < 6; c++)
            X[i + 6 * c] = T[i][c];
}

static inline __attribute__((always_inline)) void
k_gemm6(double *restrict C, const double *restrict A, const double *restrict B)
{
    for (int j = 0; j < 6; j++) {
        double acc[6] = {0, 0, 0, 0, 0, 0};

        for (int p = 0; p < 6; p++) {
            const double b = B[p + 6 * j];

            for (int i = 0; i < 6; i++)
                acc[i] += A[i + 6 * p] * b;
        }
        for (int i = 0; i < 6; i++)
            C[i + 6 * j] = acc[i];
    }
}

/* B = A B in place, column by column (no copy of B through memcpy: a string instruction
 * with a fixed start-up cost per block) */
static inline __attribute__((always_inline)) void k_gemm6_left(double *restrict B,
                                                               const double *restrict A)
{
    for (int j = 0; j < 6; j++) {
        double acc[6] = {0, 0, 0, 0, 0, 0}, b[6];

        for (int p = 0; p < 6; p++)
            b[p] = B[p + 6 * j];
        for (int p = 0; p < 6; p++)
            for (int i = 0; i < 6; i++)
                acc[i] += A[i + 6 * p] * b[p];
        for (int i = 0; i < 6; i++)
            B[i + 6 * j] = acc[i];
    }
}

static inline __attribute__((always_inline)) void
k_gemv6(double *restrict y, const double *restrict A, const double *restrict x)
{
    double acc[6] = {0, 0, 0, 0, 0, 0};

    for (int p = 0; p < 6; p++) {
        const double b = x[p];

        for (int i = 0; i < 6; i++)
            acc[i] += A[i + 6 * p] * b;
    }
    for (int i = 0; i < 6; i++)
        y[i] = acc[i];
}

/* C = (first ? 0 : C) - A B: the first update of a fill slot starts from zero instead of
 * reading the slot (the same operations as on a zeroed slot, bit for bit) */
static inline __attribute__((always_inline)) void
k_gemm6_subf(double *restrict C, const double *restrict A, const double *restrict B, int first)
{
    for (int j = 0; j < 6; j++) {
        double c[6];

        for (int i = 0; i < 6; i++)
            c[i] = first ? 0.0 : C[i + 6 * j];
        for (int p = 0; p < 6; p++) {
            const double b = B[p + 6 * j];

            for (int i = 0; i < 6; i++)
                c[i] -= A[i + 6 * p] * b;
        }
        for (int i = 0; i < 6; i++)
            C[i + 6 * j] = c[i];
    }
}

static inline __attribute__((always_inline)) void
k_gemm6_sub(double *restrict C, const double *restrict A, const double *restrict B)
{
    for (int j = 0; j < 6; j++)
        for (int p = 0; p < 6; p++) {
            const double b = B[p + 6 * j];

            for (int i = 0; i < 6; i++)
                C[i + 6 * j] -= A[i + 6 * p] * b;
        }
}

static inline __attribute__((always_inline)) void
k_gemv6_sub(double *restrict y, const double *restrict A, const double *restrict x)
{
    for (int p = 0; p < 6; p++) {
        const double b = x[p];

        for (int i = 0; i < 6; i++)
            y[i] -= A[i + 6 * p] * b;
    }
}

/* the same products on the leading rows x np x nj corner of the 6x6 blocks (rows 2, 4 or 6:
 * whole vector registers), in the same order of operations as the 6x6 kernels; rows and np
 * are compile-time constants in every instance (dispatched below), so a column stays in
 * registers as in the 6x6 kernels */
#define K_SUB_V(R, NP)                                                                             \
    for (int j = 0; j < nj; j++) {                                                                 \
        double c[R];                                                                               \
                                                                                                   \
        for (int i = 0; i < (R); i++)                                                              \
            c[i] = first ? 0.0 : C[i + 6 * j];                                                     \
        for (int p = 0; p < (NP); p++) {                                                           \
            const double b = B[p + 6 * j];                                                         \
                                                                                                   \
            for (int i = 0; i < (R); i++)                                                          \
                c[i] -= A[i + 6 * p] * b;                                                          \
        }                                                                                          \
        for (int i = 0; i < (R); i++)                                                              \
            C[i + 6 * j] = c[i];                                                                   \
    }

#define K_LEFT_V(R, NP)                                                                            \
    for (int j = 0; j < nj; j++) {                                                                 \
        double acc[R], b[NP];                                                                      \
                                                                                                   \
        for (int i = 0; i < (R); i++)                                                              \
            acc[i] = 0.0;                                                                          \
        for (int p = 0; p < (NP); p++)                                                             \
            b[p] = B[p + 6 * j];                                                                   \
        for (int p = 0; p < (NP); p++)                                                             \
            for (int i = 0; i < (R); i++)                                                          \
                acc[i] += A[i + 6 * p] * b[p];                                                     \
        for (int i = 0; i < (R); i++)                                                              \
            B[i + 6 * j] = acc[i];                                                                 \
    }

/* one instance per (rows, np): rows 2, 4, 6; np 1..6 */
#define K_DISPATCH(K)                                                                              \
    switch (nr * 8 + np) {                                                                         \
    case 17:                                                                                       \
        K(2, 1) break;                                                                             \
    case 18:                                                                                       \
        K(2, 2) break;                                                                             \
    case 19:                                                                                       \
        K(2, 3) break;                                                                             \
    case 20:                                                                                       \
        K(2, 4) break;                                                                             \
    case 21:                                                                                       \
        K(2, 5) break;                                                                             \
    case 22:                                                                                       \
        K(2, 6) break;                                                                             \
    case 33:                                                                                       \
        K(4, 1) break;                                                                             \
    case 34:                                                                                       \
        K(4, 2) break;                                                                             \
    case 35:                                                                                       \
        K(4, 3) break;                                                                             \
    case 36:                                                                                       \
        K(4, 4) break;                                                                             \
    case 37:                                                                                       \
        K(4, 5) break;                                                                             \
    case 38:                                                                                       \
        K(4, 6) break;                                                                             \
    case 49:                                                                                       \
        K(6, 1) break;                                                                             \
    case 50:                                                                                       \
        K(6, 2) break;                                                                             \
    case 51:                                                                                       \
        K(6, 3) break;                                                                             \
    case 52:                                                                                       \
        K(6, 4) break;                                                                             \
    case 53:                                                                                       \
        K(6, 5) break;                                                                             \
    default:                                                                                       \
        K(6, 6) break;                                                                             \
    }

/* the same as K_SUB_V(R, 6) for an A of vd_blu_set_unit's form: the translation columns'
 * terms A_ip b_p (p < 3) are exact zeros but for p = i < 3, so they reduce to one product
 * of the diagonal td = (A_00, A_11, A_22, 0) with rows 0..3 of b (a vector register's lanes;
 * rows 4 and 5 have none), in the same place of each sum (before the rotation columns'
 * terms) */
#define K_SUB_T_COL(R, C0)                                                                         \
    {                                                                                              \
        double c[R];                                                                               \
                                                                                                   \
        for (int i = 0; i < (R); i++)                                                              \
            c[i] = (C0);                                                                           \
        for (int i = 0; i < 4; i++)                                                                \
            c[i] -= td[i] * B[i + 6 * j];                                                          \
        for (int p = 3; p < 6; p++) {                                                              \
            const double b = B[p + 6 * j];                                                         \
                                                                                                   \
            for (int i = 0; i < (R); i++)                                                          \
                c[i] -= A[i + 6 * p] * b;                                                          \
        }                                                                                          \
        for (int i = 0; i < (R); i++)                                                              \
            C[i + 6 * j] = c[i];                                                                   \
    }

#define K_SUB_T(R)                                                                                 \
    {                                                                                              \
        const double td[4] = {A[0], A[7], A[14], 0.0};                                             \
                                                                                                   \
        if (first)                                                                                 \
            for (int j = 0; j < nj; j++)                                                           \
                K_SUB_T_COL(R, 0.0)                                                                \
        else                                                                                       \
            for (int j = 0; j < nj; j++)                                                           \
                K_SUB_T_COL(R, C[i + 6 * j])                                                       \
    }

static inline __attribute__((always_inline)) void k_gemm_sub_t(double *restrict C,
                                                               const double *restrict A,
                                                               const double *restrict B, int nr,
                                                               int nj, int first)
{
    if (nr == 4)
        K_SUB_T(4)
    else
        K_SUB_T(6)
}

/* B = D^-1 B in place (6 rows, nj columns) for a B of vd_blu_set_unit's form, the transpose
 * of a node's rows on the body (rows 0..2: column c < 3 b_cc e_c, the other columns zero in
 * them): K_LEFT_V(6, 6)'s sums, whose terms of the translation rows are exact zeros but for
 * p = c < 3, so they start from D^-1's column c times b_cc (0 + x = x) */
static inline __attribute__((always_inline)) void k_left_t(double *restrict B,
                                                           const double *restrict A, int nj)
{
    for (int j = 0; j < nj; j++) {
        double acc[6], b[3];

        for (int p = 0; p < 3; p++)
            b[p] = B[3 + p + 6 * j];
        if (j < 3) {
            const double bj = B[j + 6 * j];

            for (int i = 0; i < 6; i++)
                acc[i] = A[i + 6 * j] * bj;
        } else {
            for (int i = 0; i < 6; i++)
                acc[i] = 0.0;
        }
        for (int p = 0; p < 3; p++)
            for (int i = 0; i < 6; i++)
                acc[i] += A[i + 6 * (3 + p)] * b[p];
        for (int i = 0; i < 6; i++)
            B[i + 6 * j] = acc[i];
    }
}

static inline __attribute__((always_inline)) void k_gemm_sub_v(double *restrict C,
                                                               const double *restrict A,
                                                               const double *restrict B, int nr,
                                                               int np, int nj, int first)
{
    K_DISPATCH(K_SUB_V)
}

/* B = A B in place on the leading np rows (nr computed) and nj columns */
static inline __attribute__((always_inline)) void
k_left_v(double *restrict B, const double *restrict A, int nr, int np, int nj)
{
    K_DISPATCH(K_LEFT_V)
}

/* rows computed for a node of n real rows: whole vector registers */
static inline int rows_v(int n)
{
    return n <= 2 ? 2 : n <= 4 ? 4 : 6;
}

/* D = D^-1 in place for a multiplier node of n < 6 real rows, its padding the unit diagonal
 * (zeros off it): the LU with partial pivoting and the inverse of k_lu6 / k_inv6 on the
 * leading n x n block only, the same operations in the same order on every real entry (the
 * padded rows never win a pivot search (|0| > max is false), their multipliers and updates
 * never reach a real entry but as +-0 terms), then the padding's exact identity. 0, or
 * k + 1 when the pivot of column k is zero, as k_lu6. */
static inline __attribute__((always_inline)) int k_luinv_n(double D[36], const int n)
{
    double T[6][6];
    int piv[6], perm[6] = {0, 1, 2, 3, 4, 5};
    double rdiag[6];

#pragma GCC unroll 6
    for (int k = 0; k < n; k++) {
        int p = k;
        double mx = fabs(D[k + 6 * k]), r;
#pragma GCC unroll 6

        for (int i = k + 1; i < n; i++) {
            const double a = fabs(D[i + 6 * k]);

            if (a > mx) {
                mx = a;
                p = i;
            }
        }
        piv[k] = p;
        if (mx == 0.0)
            return k + 1;
        if (p != k)
#pragma GCC unroll 6
            for (int j = 0; j < n; j++) {
                const double t = D[k + 6 * j];

                D[k + 6 * j] = D[p + 6 * j];
                D[p + 6 * j] = t;
            }
        r = 1.0 / D[k + 6 * k];
        rdiag[k] = r;
#pragma GCC unroll 6
        for (int i = k + 1; i < n; i++)
            D[i + 6 * k] *= r;
#pragma GCC unroll 6
        for (int j = k + 1; j < n; j++) {
            const double akj = D[k + 6 * j];
#pragma GCC unroll 6

            for (int i = k + 1; i < n; i++)
                D[i + 6 * j] -= D[i + 6 * k] * akj;
        }
    }
#pragma GCC unroll 6
    for (int k = 0; k < n; k++) {
        const int t = perm[k];

        perm[k] = perm[piv[k]];
        perm[piv[k]] = t;
    }
#pragma GCC unroll 6
    for (int i = 0; i < n; i++)
#pragma GCC unroll 6
        for (int c = 0; c < n; c++)
            T[i][c] = perm[i] == c ? 1.0 : 0.0;
#pragma GCC unroll 6
    for (int k = 0; k < n - 1; k++)
#pragma GCC unroll 6
        for (int i = k + 1; i < n; i++) {
            const double l = D[i + 6 * k];
#pragma GCC unroll 6

            for (int c = 0; c < n; c++)
                T[i][c] -= l * T[k][c];
        }
#pragma GCC unroll 6
    for (int k = n - 1; k >= 0; k--) {
#pragma GCC unroll 6
        for (int c = 0; c < n; c++)
            T[k][c] *= rdiag[k];
#pragma GCC unroll 6
        for (int i = 0; i < k; i++) {
            const double u = D[i + 6 * k];
#pragma GCC unroll 6

            for (int c = 0; c < n; c++)
                T[i][c] -= u * T[k][c];
        }
    }
#pragma GCC unroll 6
    for (int c = 0; c < 6; c++)
#pragma GCC unroll 6
        for (int i = 0; i < 6; i++)
            D[i + 6 * c] = i < n && c < n ? T[i][c] : i == c ? 1.0 : 0.0;
    return 0;
}

/* D = D^-1 in place for a multiplier node of n < 6 real rows: k_luinv_n, out of line so
 * that the 6x6 path of factor_range keeps its code */
static inline __attribute__((always_inline)) int pivot_small(double D[36], int n)
{
    switch (n) {
    case 1:
        return k_luinv_n(D, 1);
    case 2:
        return k_luinv_n(D, 2);
    case 3:
        return k_luinv_n(D, 3);
    case 4:
        return k_luinv_n(D, 4);
    default:
        return k_luinv_n(D, 5);
    }
}

/* A body's diagonal block without any element on it is [m I 0; 0 J] exactly (the mass and
 * the rotational inertia with its gyroscopic term: no force couples or Jacobian fills the
 * rest). For such a block the pivoted LU and the inverse of k_lu6 / k_inv6 are those of
 * k_luinv_n on J with the three masses' reciprocals: the translation columns pivot on their
 * own diagonal (|0| > m is false), their multipliers and the U entries beyond them are exact
 * zeros, so every operation they add to J's entries is x - (+-0) = x (the sign of an exact
 * zero aside), and J's rows pivot among themselves in the same order. is_bd: the structure
 * (exact zeros off the diagonal of the translation part and in the coupling blocks), checked
 * at every factorization (the branch only selects the shorter path to the same numbers; a
 * block that is not of this form takes the 6x6 one). */
static inline __attribute__((always_inline)) int is_bd(const double D[36])
{
    int nz = 0;

    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 6; i++) {
            nz |= i != j && D[i + 6 * j] != 0.0;      /* translation columns */
            nz |= i < 3 && D[i + 6 * (j + 3)] != 0.0; /* rotation columns, translation rows */
        }
    return !nz;
}

/* D = D^-1 in place for a block of is_bd: 0, or k + 1 at a zero pivot in column k (k_lu6) */
static inline __attribute__((always_inline)) int k_luinv_bd(double D[36])
{
    double J[36];
    int rc;

    for (int k = 0; k < 3; k++)
        if (D[k + 6 * k] == 0.0)
            return k + 1;
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
            J[i + 6 * j] = D[3 + i + 6 * (3 + j)];
    rc = k_luinv_n(J, 3);
    if (rc)
        return 3 + rc;
    for (int j = 0; j < 3; j++) {
        for (int i = 0; i < 6; i++)
            D[i + 6 * j] = i == j ? 1.0 / D[j + 6 * j] : 0.0;
        for (int i = 0; i < 6; i++)
            D[i + 6 * (3 + j)] = i < 3 ? 0.0 : J[i - 3 + 6 * j];
    }
    return 0;
}

/* B = D^-1 B on nj columns for D^-1 of k_luinv_bd: the translation rows by their reciprocal,
 * the rotation rows by J^-1, the same sums as k_left_v's 6x6 products without their exact
 * zero terms */
static inline __attribute__((always_inline)) void k_left_bd(double *restrict B,
                                                            const double *restrict D, int nj)
{
    for (int j = 0; j < nj; j++) {
        double *b = B + 6 * j, r[3];

        for (int i = 0; i < 3; i++)
            r[i] = b[3 + i];
        for (int i = 0; i < 3; i++)
            b[i] = D[i + 6 * i] * b[i];
        for (int i = 0; i < 3; i++) {
            double acc = 0.0;

            for (int p = 0; p < 3; p++)
                acc += D[3 + i + 6 * (3 + p)] * r[p];
            b[3 + i] = acc;
        }
    }
}

/* the public kernels (tests, benchmarks) */
int vdu_lu6(double A[36], int piv[6], double rdiag[6])
{
    return k_lu6(A, piv, rdiag);
}

void vdu_inv6(double X[36], const double LU[36], const int piv[6], const double rdiag[6])
{
    k_inv6(X, LU, piv, rdiag);
}

void vdu_gemm6(double *restrict C, const double *restrict A, const double *restrict B)
{
    k_gemm6(C, A, B);
}

void vdu_gemv6(double *restrict y, const double *restrict A, const double *restrict x)
{
    k_gemv6(y, A, x);
}

void vdu_gemm6_sub(double *restrict C, const double *restrict A, const double *restrict B)
{
    k_gemm6_sub(C, A, B);
}

void vdu_gemv6_sub(double *restrict y, const double *restrict A, const double *restrict x)
{
    k_gemv6_sub(y, A, x);
}

/* ---- numeric factorization and solve ------------------------------------------------- */

/* eliminate positions [k0, k1); with acc, the updates of block slot rslot (the root's
 * diagonal) go to acc instead */
static inline __attribute__((always_inline)) int
factor_range(const struct vd_blu *s, double *F, int k0, int k1, double *acc, int rslot)
{
    for (int k = k0; k < k1; k++) {
        double *D = F + 36 * (size_t)s->diag_slot[k], rd[6];
        int piv[6];

        /* D_k^-1 from its pivoted LU, both in place of D_k (k_inv6 reads all of the LU
         * before it writes the inverse); a multiplier node of fewer than six rows on its
         * real rows only (pivot_small) */
        int bd = 0;

        if (s->sz && s->sz[k] < 6) {
            if (pivot_small(D, s->sz[k]))
                return k + 1;
        } else if (s->sz && is_bd(D)) {
            /* a body without elements (k_luinv_bd): the KKT patterns' bodies joined by joints
             * only */
            bd = 1;
            if (k_luinv_bd(D))
                return k + 1;
        } else {
            if (k_lu6(D, piv, rd))
                return k + 1;
            k_inv6(D, D, piv, rd);
        }
        if (!s->sz) {
            /* W_kj = D_k^-1 S_kj in place */
            for (int e = s->up_ptr[k]; e < s->up_ptr[k + 1]; e++)
                k_gemm6_left(F + 36 * (size_t)s->u_slot[e], D);
            /* S_ij -= S_ik W_kj */
            for (int u = s->upd_ptr[k]; u < s->upd_ptr[k + 1]; u++) {
                const int *t = s->upd + 3 * u;
                double *C = acc && t[2] == rslot ? acc : F + 36 * (size_t)t[2];

                k_gemm6_subf(C, F + 36 * (size_t)t[0], F + 36 * (size_t)t[1], s->upd_first[u]);
            }
            continue;
        }
        /* the same on the real sizes (vd_blu_set_sizes) */
        for (int e = s->up_ptr[k]; e < s->up_ptr[k + 1]; e++)
            if (bd)
                k_left_bd(F + 36 * (size_t)s->u_slot[e], D, s->sz[s->up_col[e]]);
            else if (s->w_t && s->w_t[e])
                k_left_t(F + 36 * (size_t)s->u_slot[e], D, s->sz[s->up_col[e]]);
            else
                k_left_v(F + 36 * (size_t)s->u_slot[e], D, rows_v(s->sz[k]), s->sz[k],
                         s->sz[s->up_col[e]]);
        for (int u = s->upd_ptr[k]; u < s->upd_ptr[k + 1]; u++) {
            const int *t = s->upd + 3 * u;
            const unsigned char *dm = s->upd_dim + 3 * u;
            double *C = acc && t[2] == rslot ? acc : F + 36 * (size_t)t[2];

            if (s->upd_t && s->upd_t[u])
                k_gemm_sub_t(C, F + 36 * (size_t)t[0], F + 36 * (size_t)t[1], dm[0], dm[2],
                             s->upd_first[u]);
            else
                k_gemm_sub_v(C, F + 36 * (size_t)t[0], F + 36 * (size_t)t[1], dm[0], dm[1], dm[2],
                             s->upd_first[u]);
        }
    }
    return 0;
}

VD_CLONES int vd_blu_factor(const struct vd_blu *s, double *F)
{
    return factor_range(s, F, 0, s->nb, NULL, -1);
}

VD_CLONES int vd_blu_factor_part(const struct vd_blu *s, double *F, int part, double acc[36])
{
    const int c0 = part ? s->split : 0, c1 = part ? s->ncluster : s->split;

    memset(acc, 0, 36 * sizeof(double));
    return factor_range(s, F, s->cluster_ptr[c0], s->cluster_ptr[c1], acc,
                        s->root >= 0 ? s->diag_slot[s->cluster_ptr[s->ncluster]] : -1);
}

VD_CLONES int vd_blu_factor_root(const struct vd_blu *s, double *F, const double acc0[36],
                                 const double acc1[36])
{
    if (s->root >= 0) {
        double *D = F + 36 * (size_t)s->diag_slot[s->cluster_ptr[s->ncluster]];

        for (int i = 0; i < 36; i++)
            D[i] += acc0[i] + acc1[i];
    }
    return factor_range(s, F, s->cluster_ptr[s->ncluster], s->nb, NULL, -1);
}

/* y = A x and y -= A x on the leading n columns of A (6 rows): a multiplier node of n < 6
 * real rows has exact zeros in the padded entries of x (its padding rows of the right-hand
 * side, of S and of the factors are zero, those of D^-1 the identity's), so the skipped terms
 * are +-0 and the real entries are those of the 6-column products (the sign of an exact zero
 * aside); the padded entries of the solution are never read */
static inline __attribute__((always_inline)) void
k_gemv_n(double *restrict y, const double *restrict A, const double *restrict x, int n)
{
    double acc[6] = {0, 0, 0, 0, 0, 0};

    for (int p = 0; p < n; p++) {
        const double b = x[p];

        for (int i = 0; i < 6; i++)
            acc[i] += A[i + 6 * p] * b;
    }
    for (int i = 0; i < 6; i++)
        y[i] = acc[i];
}

static inline __attribute__((always_inline)) void
k_gemv_sub_n(double *restrict y, const double *restrict A, const double *restrict x, int n)
{
    for (int p = 0; p < n; p++) {
        const double b = x[p];

        for (int i = 0; i < 6; i++)
            y[i] -= A[i + 6 * p] * b;
    }
}

/* vd_blu_solve and vd_blu_solve_kkt0 on the real sizes (s->sz): the columns of a node's
 * blocks beyond its real rows are skipped (k_gemv_n); kkt0: skip the forward steps of
 * fwd_zero */
static inline __attribute__((always_inline)) void solve_sized(const struct vd_blu *s,
                                                              const double *F, double *x, int kkt0)
{
    for (int k = 0; k < s->nb; k++) {
        double *xk = x + 6 * s->perm[k], b[6];
        const int n = s->sz[k];

        if (kkt0 && s->fwd_zero[k])
            continue;
        memcpy(b, xk, sizeof(b));
        k_gemv_n(xk, F + 36 * (size_t)s->diag_slot[k], b, n);
        for (int e = s->up_ptr[k]; e < s->up_ptr[k + 1]; e++)
            k_gemv_sub_n(x + 6 * s->perm[s->up_col[e]], F + 36 * (size_t)s->l_slot[e], xk, n);
    }
    /* backward: x_k = y_k - sum_j W_kj x_j, x_k held in registers over its subtractions (the
     * same subtractions in the same order as k_gemv_sub_n's: no store and reload of x_k
     * between the blocks of its row) */
    for (int k = s->nb - 1; k >= 0; k--) {
        double *xk = x + 6 * s->perm[k], y[6];

        for (int i = 0; i < 6; i++)
            y[i] = xk[i];
        for (int e = s->up_ptr[k]; e < s->up_ptr[k + 1]; e++) {
            const double *A = F + 36 * (size_t)s->u_slot[e];
            const double *b = x + 6 * s->perm[s->up_col[e]];
            const int n = s->sz[s->up_col[e]];

            for (int p = 0; p < n; p++) {
                const double bp = b[p];

                for (int i = 0; i < 6; i++)
                    y[i] -= A[i + 6 * p] * bp;
            }
        }
        for (int i = 0; i < 6; i++)
            xk[i] = y[i];
    }
}

VD_CLONES void vd_blu_solve(const struct vd_blu *s, const double *F, double *x)
{
    if (s->sz) {
        solve_sized(s, F, x, 0);
        return;
    }
    /* forward: y_k = D_k^-1 b_k, b_j -= S_jk y_k */
    for (int k = 0; k < s->nb; k++) {
        double *xk = x + 6 * s->perm[k], b[6];

        memcpy(b, xk, sizeof(b));
        k_gemv6(xk, F + 36 * (size_t)s->diag_slot[k], b);
        for (int e = s->up_ptr[k]; e < s->up_ptr[k + 1]; e++)
            k_gemv6_sub(x + 6 * s->perm[s->up_col[e]], F + 36 * (size_t)s->l_slot[e], xk);
    }
    /* backward: x_k = y_k - sum_j W_kj x_j */
    for (int k = s->nb - 1; k >= 0; k--) {
        double *xk = x + 6 * s->perm[k];

        for (int e = s->up_ptr[k]; e < s->up_ptr[k + 1]; e++)
            k_gemv6_sub(xk, F + 36 * (size_t)s->u_slot[e], x + 6 * s->perm[s->up_col[e]]);
    }
}

/* the same with the body entries of x zero on entry (a KKT right-hand side [0; c], the
 * projection's correction): the forward step of a position whose b_k is still zero (a body
 * not reached by a nonzero position before it, fwd_zero) is skipped, y_k = D_k^-1 0 = +0 and
 * b_j - S_jk 0 = b_j exactly; the backward pass is vd_blu_solve's */
VD_CLONES void vd_blu_solve_kkt0(const struct vd_blu *s, const double *F, double *x)
{
    if (s->sz) {
        solve_sized(s, F, x, 1);
        return;
    }
    for (int k = 0; k < s->nb; k++) {
        double *xk = x + 6 * s->perm[k], b[6];

        if (s->fwd_zero[k])
            continue;
        memcpy(b, xk, sizeof(b));
        k_gemv6(xk, F + 36 * (size_t)s->diag_slot[k], b);
        for (int e = s->up_ptr[k]; e < s->up_ptr[k + 1]; e++)
            k_gemv6_sub(x + 6 * s->perm[s->up_col[e]], F + 36 * (size_t)s->l_slot[e], xk);
    }
    for (int k = s->nb - 1; k >= 0; k--) {
        double *xk = x + 6 * s->perm[k];

        for (int e = s->up_ptr[k]; e < s->up_ptr[k + 1]; e++)
            k_gemv6_sub(xk, F + 36 * (size_t)s->u_slot[e], x + 6 * s->perm[s->up_col[e]]);
    }
}

/* ---- ordering and symbolic factorization --------------------------------------------- */

void vd_blu_free(struct vd_blu *s)
{
    if (!s)
        return;
    free(s->cluster_ptr);
    free(s->perm);
    free(s->pos);
    free(s->up_ptr);
    free(s->up_col);
    free(s->u_slot);
    free(s->l_slot);
    free(s->diag_slot);
    free(s->pat_slot);
    free(s->fill_slot);
    free(s->upd_ptr);
    free(s->upd);
    free(s->upd_first);
    free(s->sz);
    free(s->upd_dim);
    free(s->fwd_zero);
    free(s->upd_t);
    free(s->w_t);
    memset(s, 0, sizeof(*s));
}

/* slot of block (i, j) (positions) in the filled pattern, -1 if absent */
static int slot_of(const struct vd_blu *s, int i, int j)
{
    const int a = i < j ? i : j, b = i < j ? j : i;

    if (i == j)
        return s->diag_slot[i];
    for (int e = s->up_ptr[a]; e < s->up_ptr[a + 1]; e++)
        if (s->up_col[e] == b)
            return i < j ? s->u_slot[e] : s->l_slot[e];
    return -1;
}

/* [flop] elimination of position k in the factorization */
static long pos_flops(const struct vd_blu *s, int k)
{
    const long n = s->up_ptr[k + 1] - s->up_ptr[k];

    return 527 + 432L * n + 432L * n * n;
}

static int cmp_int(const void *a, const void *b)
{
    const int x = *(const int *)a, y = *(const int *)b;

    return (x > y) - (x < y);
}

/* eliminate node `best` in the graph adj: its remaining neighbours become a clique (fill) */
static void eliminate(struct vd_blu *s, unsigned char *adj, int *deg, int best)
{
    const int nb = s->nb;

    for (int a = 0; a < nb; a++) {
        if (!adj[best * nb + a] || s->pos[a] >= 0)
            continue;
        for (int b = 0; b < nb; b++)
            if (b != a && adj[best * nb + b] && s->pos[b] < 0 && !adj[a * nb + b]) {
                adj[a * nb + b] = adj[b * nb + a] = 1;
                deg[a]++;
                deg[b]++;
            }
    }
    for (int a = 0; a < nb; a++)
        if (adj[best * nb + a] && s->pos[a] < 0)
            deg[a]--;
}

/* clusters (components without the root, numbered by their lowest node) and the minimum-
 * degree order inside each; fills adj (nb x nb, nodes) with the fill-in of the order.
 * Multiplier nodes (>= s->nbody): one is eligible once every body of it (in the pattern
 * rowptr/col) but the root is eliminated (rem counts those left); the ones whose bodies are
 * all the root (the tail) are eliminated after the root, in index order */
static int order(struct vd_blu *s, unsigned char *adj, const int *rowptr, const int *col, int *cl,
                 int *deg, int *stack, int *rem, const struct vd_blu_pick *pick)
{
    const int nb = s->nb;
    int ncl = 0, npos = 0;

    for (int i = 0; i < nb; i++) {
        cl[i] = -1;
        rem[i] = 0;
        if (i >= s->nbody)
            for (int k = rowptr[i]; k < rowptr[i + 1]; k++)
                rem[i] += col[k] < s->nbody && col[k] != s->root;
    }
    for (int i = 0; i < nb; i++) {
        int top = 0;

        if (i == s->root || cl[i] >= 0 || (i >= s->nbody && rem[i] == 0))
            continue;
        cl[i] = ncl;
        stack[top++] = i;
        while (top > 0) {
            const int a = stack[--top];

            for (int b = 0; b < nb; b++)
                if (adj[a * nb + b] && b != s->root && cl[b] < 0) {
                    cl[b] = ncl;
                    stack[top++] = b;
                }
        }
        ncl++;
    }
    s->ncluster = ncl;
    s->cluster_ptr = calloc((size_t)ncl + 1, sizeof(int));
    if (!s->cluster_ptr)
        return -ENOMEM;
    for (int i = 0; i < nb; i++) {
        deg[i] = 0;
        for (int j = 0; j < nb; j++)
            deg[i] += adj[i * nb + j];
    }
    /* minimum degree (ties: lowest node index) in the elimination graph among the eligible
     * nodes; the root's adjacency counts towards the degree (it is the cost), the root itself
     * is never picked */
    for (int c = 0; c < ncl; c++) {
        s->cluster_ptr[c] = npos;
        for (;;) {
            int best = -1;

            for (int i = 0; i < nb; i++)
                if (cl[i] == c && s->pos[i] < 0 && (best < 0 || deg[i] < deg[best]) &&
                    (i < s->nbody || (pick ? pick->eligible(pick->ctx, i, s->pos) : rem[i] == 0)))
                    best = i;
            if (best < 0)
                break;
            s->pos[best] = npos;
            s->perm[npos++] = best;
            if (best < s->nbody)
                for (int k = rowptr[best]; k < rowptr[best + 1]; k++)
                    if (col[k] >= s->nbody)
                        rem[col[k]]--;
            eliminate(s, adj, deg, best);
        }
    }
    s->cluster_ptr[ncl] = npos;
    if (s->root >= 0) {
        s->pos[s->root] = npos;
        s->perm[npos++] = s->root;
        eliminate(s, adj, deg, s->root);
    }
    for (int i = s->nbody; i < nb; i++)
        if (s->pos[i] < 0 && cl[i] < 0) {
            s->pos[i] = npos;
            s->perm[npos++] = i;
            eliminate(s, adj, deg, i);
        }
    return npos == nb ? 0 : -EINVAL;
}

int vd_blu_analyze(struct vd_blu *s, int nb, const int *rowptr, const int *col, int root, char *err,
                   size_t errlen)
{
    return vd_blu_analyze_kkt(s, nb, rowptr, col, root, nb, NULL, err, errlen);
}

int vd_blu_analyze_kkt(struct vd_blu *s, int nb, const int *rowptr, const int *col, int root,
                       int nbody, const struct vd_blu_pick *pick, char *err, size_t errlen)
{
    unsigned char *adj = NULL;
    int *cl = NULL, *deg = NULL, *stack = NULL, *rem = NULL, rc = -ENOMEM, next = 0;
    unsigned char *used = NULL;

    memset(s, 0, sizeof(*s));
    s->nb = nb;
    s->nbody = nbody;
    s->root = root;
    s->npat = rowptr[nb];
    if (nb < 1 || root < (nbody < nb ? -1 : 0) || root >= nbody || nbody > nb) {
        snprintf(err, errlen, "block LU: %d blocks (%d bodies), root %d", nb, nbody, root);
        return -EINVAL;
    }
    adj = calloc((size_t)nb * (size_t)nb, 1);
    cl = calloc((size_t)nb, sizeof(int));
    deg = calloc((size_t)nb, sizeof(int));
    stack = calloc((size_t)nb, sizeof(int));
    rem = calloc((size_t)nb, sizeof(int));
    s->perm = calloc((size_t)nb, sizeof(int));
    s->pos = calloc((size_t)nb, sizeof(int));
    s->up_ptr = calloc((size_t)nb + 1, sizeof(int));
    s->diag_slot = calloc((size_t)nb, sizeof(int));
    s->upd_ptr = calloc((size_t)nb + 1, sizeof(int));
    s->pat_slot = calloc((size_t)s->npat + 1, sizeof(int));
    if (!adj || !cl || !deg || !stack || !rem || !s->perm || !s->pos || !s->up_ptr ||
        !s->diag_slot || !s->upd_ptr || !s->pat_slot)
        goto out_free;
    for (int i = 0; i < nb; i++) {
        s->pos[i] = -1;
        for (int k = rowptr[i]; k < rowptr[i + 1]; k++)
            if (col[k] != i)
                adj[i * nb + col[k]] = 1;
    }
    for (int i = 0; i < nb; i++)
        for (int j = 0; j < nb; j++)
            if (adj[i * nb + j] != adj[j * nb + i]) {
                snprintf(err, errlen, "block LU: pattern not symmetric at (%d, %d)", i, j);
                rc = -EINVAL;
                goto out_free;
            }
    rc = order(s, adj, rowptr, col, cl, deg, stack, rem, pick);
    if (rc) {
        snprintf(err, errlen, rc == -ENOMEM ? "out of memory" : "block LU: ordering failed");
        goto out_free;
    }
    /* filled rows: U(k) = positions j > k adjacent in the filled graph */
    for (int k = 0; k < nb; k++) {
        const int bk = s->perm[k];

        s->up_ptr[k + 1] = s->up_ptr[k];
        for (int b = 0; b < nb; b++)
            if (adj[bk * nb + b] && s->pos[b] > k)
                s->up_ptr[k + 1]++;
    }
    s->nup = s->up_ptr[nb];
    s->nslot = nb + 2 * s->nup;
    s->up_col = calloc((size_t)s->nup + 1, sizeof(int));
    s->u_slot = calloc((size_t)s->nup + 1, sizeof(int));
    s->l_slot = calloc((size_t)s->nup + 1, sizeof(int));
    used = calloc((size_t)s->nslot, 1);
    if (!s->up_col || !s->u_slot || !s->l_slot || !used) {
        rc = -ENOMEM;
        goto out_free;
    }
    for (int k = 0; k < nb; k++) {
        const int bk = s->perm[k];
        int e = s->up_ptr[k];

        for (int b = 0; b < nb; b++)
            if (adj[bk * nb + b] && s->pos[b] > k)
                s->up_col[e++] = s->pos[b];
        qsort(s->up_col + s->up_ptr[k], (size_t)(e - s->up_ptr[k]), sizeof(int), cmp_int);
        /* slots in the order the factorization visits them: D_k, its row, its column */
        s->diag_slot[k] = next++;
        for (e = s->up_ptr[k]; e < s->up_ptr[k + 1]; e++)
            s->u_slot[e] = next++;
        for (e = s->up_ptr[k]; e < s->up_ptr[k + 1]; e++)
            s->l_slot[e] = next++;
    }
    /* the model's blocks and the fill */
    for (int i = 0; i < nb; i++)
        for (int k = rowptr[i]; k < rowptr[i + 1]; k++) {
            s->pat_slot[k] = slot_of(s, s->pos[i], s->pos[col[k]]);
            if (s->pat_slot[k] < 0) {
                snprintf(err, errlen, "block LU: block (%d, %d) lost", i, col[k]);
                rc = -EINVAL;
                goto out_free;
            }
            used[s->pat_slot[k]] = 1;
        }
    for (int k = 0; k < s->nslot; k++)
        s->nfill += !used[k];
    s->fill_slot = calloc((size_t)s->nfill + 1, sizeof(int));
    if (!s->fill_slot) {
        rc = -ENOMEM;
        goto out_free;
    }
    s->nfill = 0;
    for (int k = 0; k < s->nslot; k++)
        if (!used[k])
            s->fill_slot[s->nfill++] = k;
    /* updates S_ij -= S_ik W_kj for i, j in U(k) */
    for (int k = 0; k < nb; k++) {
        const int n = s->up_ptr[k + 1] - s->up_ptr[k];

        s->upd_ptr[k + 1] = s->upd_ptr[k] + n * n;
    }
    s->nupd = s->upd_ptr[nb];
    s->upd = calloc(3 * (size_t)s->nupd + 1, sizeof(int));
    s->upd_first = calloc((size_t)s->nupd + 1, 1);
    if (!s->upd || !s->upd_first) {
        rc = -ENOMEM;
        goto out_free;
    }
    s->flops_factor = 0;
    s->flops_solve = 0;
    for (int k = 0; k < nb; k++) {
        const int e0 = s->up_ptr[k], e1 = s->up_ptr[k + 1];
        int *t = s->upd + 3 * s->upd_ptr[k];

        for (int ei = e0; ei < e1; ei++)
            for (int ej = e0; ej < e1; ej++) {
                t[0] = s->l_slot[ei];
                t[1] = s->u_slot[ej];
                t[2] = slot_of(s, s->up_col[ei], s->up_col[ej]);
                if (t[2] < 0) {
                    snprintf(err, errlen, "block LU: fill block (%d, %d) missing", s->up_col[ei],
                             s->up_col[ej]);
                    rc = -EINVAL;
                    goto out_free;
                }
                t += 3;
            }
        /* LU 125 + 6 reciprocals, inverse from it 6 x 66, W = D^-1 S 432 each, update 432
         * each; solve: 72 + 2 x 72 per off-diagonal block */
        s->flops_factor += pos_flops(s, k);
        s->flops_solve += 72 + 144L * (e1 - e0);
    }
    /* the first update of each fill slot, in the factorization's order (k ascending, then
     * the list): it starts the slot from zero, so assembly need not clear the fill */
    for (int u = 0; u < s->nupd; u++) {
        const int c = s->upd[3 * u + 2];

        s->upd_first[u] = !used[c];
        used[c] = 1;
    }
    /* two parts of whole clusters for vd_blu_factor_part, as even in flops as a cut in
     * elimination order allows */
    {
        long best = -1, done = 0, total = 0, fl[2] = {0, 0};

        for (int k = 0; k < s->cluster_ptr[s->ncluster]; k++)
            total += pos_flops(s, k);
        s->split = 0;
        for (int c = 0; c <= s->ncluster; c++) {
            const long worst = done > total - done ? done : total - done;

            if (best < 0 || worst < best) {
                best = worst;
                s->split = c;
            }
            if (c < s->ncluster)
                for (int k = s->cluster_ptr[c]; k < s->cluster_ptr[c + 1]; k++)
                    done += pos_flops(s, k);
        }
        for (int k = 0; k < s->cluster_ptr[s->ncluster]; k++)
            fl[k >= s->cluster_ptr[s->split]] += pos_flops(s, k);
        s->flops_part[0] = fl[0];
        s->flops_part[1] = fl[1];
    }
    /* forward steps of vd_blu_solve_kkt0 on structural zeros: a body position is zero until
     * a position with a nonzero right-hand side (a multiplier node, or a position it reached)
     * updates it */
    s->fwd_zero = malloc((size_t)nb);
    if (!s->fwd_zero) {
        rc = -ENOMEM;
        goto out_free;
    }
    for (int k = 0; k < nb; k++)
        s->fwd_zero[k] = s->perm[k] < nbody;
    for (int k = 0; k < nb; k++)
        if (!s->fwd_zero[k])
            for (int e = s->up_ptr[k]; e < s->up_ptr[k + 1]; e++)
                s->fwd_zero[s->up_col[e]] = 0;
    rc = 0;
out_free:
    free(adj);
    free(cl);
    free(deg);
    free(stack);
    free(rem);
    free(used);
    if (rc)
        vd_blu_free(s);
    return rc;
}

int vd_blu_set_sizes(struct vd_blu *s, const int *size)
{
    long fac = 0;

    free(s->sz);
    free(s->upd_dim);
    s->sz = malloc((size_t)s->nb);
    s->upd_dim = malloc(3 * (size_t)s->nupd + 1);
    if (!s->sz || !s->upd_dim) {
        free(s->sz);
        free(s->upd_dim);
        s->sz = s->upd_dim = NULL;
        return -ENOMEM;
    }
    for (int k = 0; k < s->nb; k++) {
        const int n = size[s->perm[k]];

        s->sz[k] = (unsigned char)(n < 1 ? 1 : n > 6 ? 6 : n);
    }
    /* flops as pos_flops on the real sizes: the pivot's LU (sum over m < s_k of m + 2 m^2),
     * s_k reciprocals and the inverse from them (2 s_k^2 (s_k - 1) + s_k^2) on its s_k real
     * rows (k_luinv_n; 527 for a body), W_kj rows_v(s_k) x s_k x s_j, each update rows_v(s_i)
     * x s_k x s_j. The solve keeps the 6x6 products (a 6x6 product per block costs less than
     * choosing a smaller one: measured) */
    for (int k = 0; k < s->nb; k++) {
        const int e0 = s->up_ptr[k], e1 = s->up_ptr[k + 1], sk = s->sz[k];
        unsigned char *dm = s->upd_dim + 3 * (size_t)s->upd_ptr[k];

        fac += (long)((sk - 1) * sk / 2 + (sk - 1) * sk * (2 * sk - 1) / 3 + sk + sk * sk +
                      2 * sk * sk * (sk - 1));
        for (int ej = e0; ej < e1; ej++)
            fac += 2L * rows_v(sk) * sk * s->sz[s->up_col[ej]];
        for (int ei = e0; ei < e1; ei++)
            for (int ej = e0; ej < e1; ej++) {
                const int si = s->sz[s->up_col[ei]], sj = s->sz[s->up_col[ej]];

                dm[0] = (unsigned char)rows_v(si);
                dm[1] = (unsigned char)sk;
                dm[2] = (unsigned char)sj;
                fac += 2L * rows_v(si) * sk * sj;
                dm += 3;
            }
    }
    s->flops_factor = fac;
    return 0;
}

int vd_blu_set_unit(struct vd_blu *s, const unsigned char *unit)
{
    unsigned char *target = calloc((size_t)s->nslot + 1, 1);

    free(s->upd_t);
    free(s->w_t);
    s->upd_t = calloc((size_t)s->nupd + 1, 1);
    s->w_t = calloc((size_t)s->nup + 1, 1);
    if (!s->upd_t || !s->w_t || !target) {
        free(s->upd_t);
        free(s->w_t);
        free(target);
        s->upd_t = s->w_t = NULL;
        return -ENOMEM;
    }
    /* A is as assembled when no update writes its slot; the pivot a body (six columns of A) */
    for (int u = 0; u < s->nupd; u++)
        target[s->upd[3 * u + 2]] = 1;
    for (int k = 0; k < s->nb; k++)
        for (int u = s->upd_ptr[k]; u < s->upd_ptr[k + 1]; u++) {
            const int a = s->upd[3 * u];
            const int nr = s->upd_dim ? s->upd_dim[3 * u] : 6;

            s->upd_t[u] = (unsigned char)(s->perm[k] < s->nbody && s->sz && s->sz[k] == 6 &&
                                          unit[a] && !target[a] && (nr == 4 || nr == 6));
        }
    for (int k = 0; k < s->nb; k++)
        for (int e = s->up_ptr[k]; e < s->up_ptr[k + 1]; e++)
            s->w_t[e] = (unsigned char)(s->perm[k] < s->nbody && s->sz && s->sz[k] == 6 &&
                                        unit[s->u_slot[e]] && !target[s->u_slot[e]]);
    free(target);
    return 0;
}
