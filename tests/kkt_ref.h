/* tests/kkt_ref.h - the joints' structured-solve tests' references (test_csblock, test_csnull):
 * a joint model linearized and factored at its state, with the dense augmented matrix, and a
 * solve refined in long double. Include in one translation unit. */
#ifndef VD_TESTS_KKT_REF_H
#define VD_TESTS_KKT_REF_H

#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "config/sources.h"
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

/* the two paths at one point: dd's state, bushing states and its inputs evaluated at dd->t
 * copied into ds, then dd linearized and factored on the dense path (A: its augmented matrix)
 * and ds on the structured one (m->opt.linear left structured) */
static inline void kkt_linearize_pair(struct vd_model *m, struct vd_source *src, struct vd_data *dd,
                                      struct vd_data *ds, double *h, double *g, double *A,
                                      const char *path, int k)
{
    const size_t nq = (size_t)m->nq;

    memcpy(ds->r, dd->r, nq * sizeof(double));
    memcpy(ds->v, dd->v, nq * sizeof(double));
    memcpy(ds->z, dd->z, (size_t)m->nz * sizeof(double));
    vd_source_eval(src, dd->t, dd->u);
    memcpy(ds->u, dd->u, (size_t)m->ninput * sizeof(double));
    memcpy(ds->bush_phi, dd->bush_phi, (size_t)m->nbush * sizeof(double));
    memcpy(ds->bush_anchor, dd->bush_anchor, 6 * (size_t)m->nbush * sizeof(double));
    m->opt.linear = VD_LINEAR_DENSE;
    CHECK(linearize(m, dd, h, g, A) == 0, "%s step %d: dense factor", path, k);
    m->opt.linear = VD_LINEAR_STRUCTURED;
    CHECK(linearize(m, ds, h, g, NULL) == 0, "%s step %d: structured factor", path, k);
}

/* the constraint rows of a LIE step's right-hand side: -G v / dt (nc) */
static inline void kkt_velocity_rows(const struct vd_model *m, struct vd_data *d, double *c)
{
    vd_joint_G_mul(m, d, d->v, c);
    for (int r = 0; r < m->nc; r++)
        c[r] *= -1.0 / m->opt.dt;
}

/* normwise relative error of y against the reference x (n) */
static inline double nerr(const double *y, const double *x, int n)
{
    double e = 0.0, nx = 0.0;

    for (int i = 0; i < n; i++) {
        e = fmax(e, fabs(y[i] - x[i]));
        nx = fmax(nx, fabs(x[i]));
    }
    return nx > 0.0 ? e / nx : e;
}

#endif /* VD_TESTS_KKT_REF_H */
