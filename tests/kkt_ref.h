/* tests/kkt_ref.h - the joints' structured-solve tests' references (test_csblock, test_csnull):
 * a joint model loaded on the structured path, its dense and structured data, the model
 * linearized and factored at its state with the dense augmented matrix, and a solve refined in
 * long double with its buffers. Include in one translation unit. */
#ifndef VD_TESTS_KKT_REF_H
#define VD_TESTS_KKT_REF_H

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "config/model_yaml.h"
#include "config/sources.h"
#include "core/csblock.h"
#include "core/csolve.h"
#include "core/data.h"
#include "core/eval.h"
#include "core/joint.h"
#include "core/model.h"
#include "core/solve.h"
#include "core/step.h"

/* the joint model at path (its signals into *src) in the constraint form `constraints` on the
 * structured path, analyzed (both checked); NULL when it does not load */
static inline struct vd_model *kkt_load(const char *path, struct vd_source **src, int constraints)
{
    struct vd_model *m = vd_cfg_load_model(path, src, NULL);
    char err[256] = "";

    if (!m)
        m = vd_cfg_load_model(path, src, stderr);
    CHECK(m != NULL, "load %s", path);
    if (!m)
        return NULL;
    m->opt.constraints = constraints;
    m->opt.linear = VD_LINEAR_STRUCTURED;
    CHECK(vd_csb_analyze(m, err, sizeof(err)) == 0, "%s: analyze: %s", path, err);
    return m;
}

/* dd on the dense path and ds on the structured one (m->opt.linear left structured), dd's
 * inputs from src; either NULL when it could not be allocated */
static inline void kkt_data_pair(struct vd_model *m, struct vd_source *src, struct vd_data **dd,
                                 struct vd_data **ds)
{
    m->opt.linear = VD_LINEAR_DENSE;
    *dd = vd_data_new(m);
    m->opt.linear = VD_LINEAR_STRUCTURED;
    *ds = vd_data_new(m);
    if (*dd) {
        (*dd)->input_fn = vd_source_eval;
        (*dd)->input_ctx = src;
    }
}

/* one step of dd on the dense path (checked), m->opt.linear left structured */
static inline void kkt_dense_step(struct vd_model *m, struct vd_data *dd, const char *path, int k)
{
    m->opt.linear = VD_LINEAR_DENSE;
    CHECK(vd_step(m, dd) == 0, "%s: dense step %d", path, k);
    m->opt.linear = VD_LINEAR_STRUCTURED;
}

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

/* the dense reference at one state, n = nq + nc: the augmented matrix A (n x n), its LU and
 * pivots, the forces h (n), the element states' rates g = z' (nz), a right-hand side b, its
 * refined solution xr, a solution under test xs and the refinement's residual res (n each) */
struct kkt_ref {
    double *A, *LU, *h, *g, *b, *xr, *xs, *res;
    lapack_int *ipiv;
};

static inline void kkt_ref_alloc(struct kkt_ref *r, const struct vd_model *m)
{
    const size_t N = (size_t)(m->nq + m->nc);

    r->A = malloc(N * N * sizeof(double));
    r->LU = malloc(N * N * sizeof(double));
    r->h = malloc(N * sizeof(double));
    r->g = calloc((size_t)m->nz + 1, sizeof(double));
    r->b = malloc(N * sizeof(double));
    r->xr = malloc(N * sizeof(double));
    r->xs = malloc(N * sizeof(double));
    r->res = malloc(N * sizeof(double));
    r->ipiv = malloc(N * sizeof(lapack_int));
}

static inline void kkt_ref_free(struct kkt_ref *r)
{
    free(r->A);
    free(r->LU);
    free(r->h);
    free(r->g);
    free(r->b);
    free(r->xr);
    free(r->xs);
    free(r->res);
    free(r->ipiv);
}

/* r->A's LU into r->LU and r->ipiv (checked) */
static inline void kkt_ref_factor(struct kkt_ref *r, int n, const char *path)
{
    memcpy(r->LU, r->A, (size_t)n * (size_t)n * sizeof(double));
    CHECK(LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, r->LU, n, r->ipiv) == 0, "%s: getrf", path);
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
