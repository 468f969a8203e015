/* tests/kkt_ref.h - the joints' structured-solve tests' references (test_csblock, test_csnull):
 * a joint model linearized and factored at its state, with the dense augmented matrix, and a
 * solve refined in long double. Include in one translation unit. */
#ifndef VD_TESTS_KKT_REF_H
#define VD_TESTS_KKT_REF_H

#include <lapacke.h>
#include <string.h>

#include "core/csolve.h"
#include "core/data.h"
#include "core/eval.h"
#include "core/joint.h"
#include "core/model.h"
#include "core/solve.h"

/* linearize d at its state with c1 = dt (LIE), assemble by m->opt.linear and factor; h gets
 * the forces. With A (n x n, n = nq + nc), also the dense augmented matrix [S G^T; G 0]
 * before the factorization (d dense) */
static inline int linearize(const struct vd_model *m, struct vd_data *d, double *h, double *g,
                            double *A)
{
    const int nq = m->nq, nc = m->nc, n = nq + nc;
    const double c1 = m->opt.dt;

    if (vd_eval_ex(m, d, d->r, d->v, d->z, d->u, h, g, true, false))
        return -1;
    vd_joint_eval(m, d, d->u, false);
    vd_cs_assemble(m, d, 1.0, c1, c1 * c1);
    vd_z_linearize(m, d, c1, c1 * c1);
    if (A) {
        for (int c = 0; c < nq; c++)
            memcpy(A + (size_t)n * (size_t)c, d->S + (size_t)n * (size_t)c,
                   (size_t)nq * sizeof(double));
        vd_joint_G_dense(m, d, A + nq, n);
        for (int c = 0; c < nq; c++)
            for (int r = 0; r < nc; r++)
                A[(size_t)c + (size_t)n * (size_t)(nq + r)] =
                    A[(size_t)(nq + r) + (size_t)n * (size_t)c];
        for (int c = nq; c < n; c++)
            memset(A + (size_t)nq + (size_t)n * (size_t)c, 0, (size_t)nc * sizeof(double));
    }
    return vd_cs_factor(m, d);
}

/* x = A^-1 b by the LU refined three times with long double residuals */
static inline void refined(int n, const double *A, const double *LU, const lapack_int *ipiv,
                           const double *b, double *x, double *res)
{
    const size_t N = (size_t)n;

    memcpy(x, b, N * sizeof(double));
    LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', n, 1, LU, n, ipiv, x, n);
    for (int it = 0; it < 3; it++) {
        for (size_t i = 0; i < N; i++) {
            long double acc = b[i];

            for (size_t j = 0; j < N; j++)
                acc -= (long double)A[i + N * j] * x[j];
            res[i] = (double)acc;
        }
        LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', n, 1, LU, n, ipiv, res, n);
        for (size_t i = 0; i < N; i++)
            x[i] += res[i];
    }
}

#endif /* VD_TESTS_KKT_REF_H */
