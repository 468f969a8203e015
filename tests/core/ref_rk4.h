/* tests/core/ref_rk4.h - independent reference integrator for the core tests: classic RK4
 * on r' = K(r) v, v' = M^-1 h(r, v, u) with a tiny step, evaluated through vd_eval only
 * (no linearization, no LU): shares the model equations, not the integrator. */
#ifndef VD_TESTS_REF_RK4_H
#define VD_TESTS_REF_RK4_H

#include <stdlib.h>
#include <string.h>

#include "core/data.h"
#include "core/eval.h"
#include "core/model.h"
#include "core/vdmath.h"

/* y' = f(y), y = [r; v; z] (2 nq + nz) */
static inline void rk4_f(const struct vd_model *m, struct vd_data *d, double t, const double *y,
                         double *f)
{
    const int nq = m->nq;
    double *h = f + nq;

    if (d->input_fn)
        d->input_fn(d->input_ctx, t, d->u);
    vd_eval_ex(m, d, y, y + nq, y + 2 * nq, d->u, h, f + 2 * nq, false, false);
    vd_kdot(m, d->Ei, y + nq, f);
    for (int b = 0; b < m->nbody; b++) {
        double w[3];

        for (int k = 0; k < 3; k++)
            h[6 * b + k] /= m->body[b].mass;
        vdu_mat3_vec(w, m->minv_inertia + 9 * b, h + 6 * b + 3);
        memcpy(h + 6 * b + 3, w, sizeof(w));
    }
}

/* integrate d->r, d->v over T with n RK4 steps (in place) */
static inline void rk4_run(const struct vd_model *m, struct vd_data *d, double T, long n)
{
    const int N = 2 * m->nq + m->nz;
    double *y = malloc(5 * (size_t)N * sizeof(double));
    double *k1 = y + N, *k2 = k1 + N, *k3 = k2 + N, *k4 = k3 + N, *yt;
    const double dt = T / (double)n;

    yt = malloc((size_t)N * sizeof(double));
    memcpy(y, d->r, (size_t)m->nq * sizeof(double));
    memcpy(y + m->nq, d->v, (size_t)m->nq * sizeof(double));
    memcpy(y + 2 * m->nq, d->z, (size_t)m->nz * sizeof(double));
    for (long s = 0; s < n; s++) {
        const double t = d->t + (double)s * dt;

        rk4_f(m, d, t, y, k1);
        for (int i = 0; i < N; i++)
            yt[i] = y[i] + 0.5 * dt * k1[i];
        rk4_f(m, d, t + 0.5 * dt, yt, k2);
        for (int i = 0; i < N; i++)
            yt[i] = y[i] + 0.5 * dt * k2[i];
        rk4_f(m, d, t + 0.5 * dt, yt, k3);
        for (int i = 0; i < N; i++)
            yt[i] = y[i] + dt * k3[i];
        rk4_f(m, d, t + dt, yt, k4);
        for (int i = 0; i < N; i++)
            y[i] += dt / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    }
    memcpy(d->r, y, (size_t)m->nq * sizeof(double));
    memcpy(d->v, y + m->nq, (size_t)m->nq * sizeof(double));
    memcpy(d->z, y + 2 * m->nq, (size_t)m->nz * sizeof(double));
    d->t += T;
    free(y);
    free(yt);
}

#endif /* VD_TESTS_REF_RK4_H */
