/* core/step.c - LIE and LSRT2 steps on the dense LAPACK path. */
#include "step.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "eval.h"
#include "linalg.h"
#include "vdmath.h"

static int64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int vd_solver_warmup(const struct vd_model *m, struct vd_data *d)
{
    /* one BLAS thread, checked: a threaded OpenBLAS would spin up workers in the RT loop */
    if (vd_blas_init(NULL, 0))
        return -EPERM;
    return vd_lapack_warmup(m->nq, d->S, d->ipiv, d->h);
}

void vd_assemble_dense(const struct vd_model *m, struct vd_data *d, double cm, double c1, double c2)
{
    const size_t nq = (size_t)m->nq;
    double *S = d->S;

    memset(S, 0, nq * nq * sizeof(double));
    for (int i = 0; i < m->nbody; i++) {
        for (int k = m->blk_rowptr[i]; k < m->blk_rowptr[i + 1]; k++) {
            const int j = m->blk_col[k];
            const double *P = d->Jp + 36 * k, *V = d->Jvb + 36 * k, *A = d->Alin + 9 * j;

            for (int c = 0; c < 6; c++) {
                double *col = S + nq * (size_t)(6 * j + c) + 6 * i;

                for (int rr = 0; rr < 6; rr++) {
                    double jrk = VD_B6(P, rr, c);

                    if (c >= 3)
                        jrk = VD_B6(P, rr, 3) * A[c - 3] + VD_B6(P, rr, 4) * A[3 + c - 3] +
                              VD_B6(P, rr, 5) * A[6 + c - 3];
                    col[rr] = -c1 * VD_B6(V, rr, c) - c2 * jrk;
                }
            }
        }
        /* mass and inertia on the diagonal */
        {
            const struct vd_body *b = &m->body[i];
            double *Sd = S + (size_t)(6 * i) * (nq + 1);

            for (int k = 0; k < 3; k++)
                Sd[(size_t)k * (nq + 1)] += cm * b->mass;
            for (int rr = 0; rr < 3; rr++)
                for (int c = 0; c < 3; c++)
                    Sd[(size_t)(3 + rr) + nq * (size_t)(3 + c)] += cm * b->inertia[3 * rr + c];
        }
    }
}

/* K_lin x for the angle rows: rdot-like map with frozen Ei */
static void klin_mul(const struct vd_model *m, const struct vd_data *d, const double *x, double *y)
{
    vd_kdot(m, d->Eilin, x, y);
}

static bool all_finite(const double *x, int n)
{
    double s = 0.0;

    for (int i = 0; i < n; i++)
        s += x[i];
    return isfinite(s);
}

static void stage_u(struct vd_data *d, double t, double *u, int nu)
{
    if (d->input_fn)
        d->input_fn(d->input_ctx, t, u);
    else
        memcpy(u, d->u, (size_t)nu * sizeof(double));
}

int vd_step(const struct vd_model *m, struct vd_data *d)
{
    const int nq = m->nq, nu = m->ninput;
    const double dt = m->opt.dt;
    const bool lsrt2 = m->opt.method == VD_METHOD_LSRT2;
    const double g = lsrt2 ? VD_LSRT2_GAMMA : 1.0;
    const size_t mark = vd_arena_mark(d);
    const bool relin = d->lin_age < 0 || d->lin_age >= m->opt.relin;
    double *u = vd_arena_doubles(d, (size_t)nu), *h = vd_arena_doubles(d, (size_t)nq);
    double *dv1 = vd_arena_doubles(d, (size_t)nq), *dr1 = vd_arena_doubles(d, (size_t)nq);
    double *p = vd_arena_doubles(d, (size_t)nq), *rhs = vd_arena_doubles(d, (size_t)nq);
    double *wk = vd_arena_doubles(d, (size_t)nq), *tmp = vd_arena_doubles(d, (size_t)nq);
    double *rn = vd_arena_doubles(d, (size_t)nq), *vn = vd_arena_doubles(d, (size_t)nq);
    int64_t t0, t1;
    int rc = 0;

    if (!u || !h || !dv1 || !dr1 || !p || !rhs || !wk || !tmp || !rn || !vn) {
        rc = -ENOMEM;
        goto out_release;
    }
    memset(d->stage_ns, 0, sizeof(d->stage_ns));

    /* stage 1 evaluation at (r, v, u(t)); the linearization shares it */
    t0 = now_ns();
    stage_u(d, d->t, u, nu);
    rc = vd_eval_ex(m, d, d->r, d->v, u, h, relin, true);
    if (rc)
        goto out_release;
    t1 = now_ns();
    d->stage_ns[relin ? VD_STAGE_LINEARIZE : VD_STAGE_STAGES] += t1 - t0;
    if (relin) {
        const double c = dt * g;

        vd_assemble_dense(m, d, 1.0, c, c * c);
        t0 = now_ns();
        d->stage_ns[VD_STAGE_ASSEMBLE] += t0 - t1;
        d->last_info = vd_lu_factor(nq, d->S, d->ipiv);
        t1 = now_ns();
        d->stage_ns[VD_STAGE_FACTOR] += t1 - t0;
        if (d->last_info) {
            d->warn[VD_WARN_SINGULAR]++;
            d->lin_age = -1;
            rc = -EDOM;
            goto out_release;
        }
        d->lin_age = 0;
    }

    /* p = K(r) v with the current kinematics */
    vd_kdot(m, d->Ei, d->v, p);
    if (!lsrt2) {
        /* LIE: S a = h + dt Jr K(r) v ; v+ = v + dt a ; r+ = r + dt K(r) v+ */
        memcpy(rhs, h, (size_t)nq * sizeof(double));
        vdu_scale_n(tmp, dt, p, nq);
        vd_jr_mul_add(m, d, tmp, rhs, wk);
        vd_lu_solve(nq, d->S, d->ipiv, rhs, 1);
        for (int i = 0; i < nq; i++)
            vn[i] = d->v[i] + dt * rhs[i];
        vd_kdot(m, d->Ei, vn, tmp);
        for (int i = 0; i < nq; i++)
            rn[i] = d->r[i] + dt * tmp[i];
    } else {
        double *dv2 = rhs, *ra = tmp;

        /* stage 1: S dv1 = h1 + Jr (dt g p1) ; dr1 = p1 + dt g K_lin dv1 */
        memcpy(dv1, h, (size_t)nq * sizeof(double));
        vdu_scale_n(rn, dt * g, p, nq);
        vd_jr_mul_add(m, d, rn, dv1, wk);
        vd_lu_solve(nq, d->S, d->ipiv, dv1, 1);
        klin_mul(m, d, dv1, dr1);
        for (int i = 0; i < nq; i++)
            dr1[i] = p[i] + dt * g * dr1[i];
        /* stage 2 arguments: ra = r + dt a21 dr1, va = v + dt a21 dv1 */
        for (int i = 0; i < nq; i++) {
            ra[i] = d->r[i] + dt * VD_LSRT2_A21 * dr1[i];
            vn[i] = d->v[i] + dt * VD_LSRT2_A21 * dv1[i];
        }
        if (m->opt.stage2 == VD_STAGE2_NONLINEAR) {
            /* W-form (numerics.md §1.5): h and K evaluated at the stage point */
            stage_u(d, d->t + VD_LSRT2_C2 * dt, u, nu);
            rc = vd_eval(m, d, ra, vn, u, h, false);
            if (rc)
                goto out_release;
            /* p2 = K(ra) va + K_lin sv, sv = dt g21 dv1 ; sr = dt g21 dr1 */
            vd_kdot(m, d->Ei, vn, p);
            for (int i = 0; i < nq; i++)
                vn[i] = dt * VD_LSRT2_G21 * dv1[i]; /* sv */
            klin_mul(m, d, vn, rn);
            for (int i = 0; i < nq; i++)
                p[i] += rn[i];
            /* S dv2 = h2 + Jr (sr + dt g p2) + Jv sv */
            memcpy(dv2, h, (size_t)nq * sizeof(double));
            for (int i = 0; i < nq; i++)
                rn[i] = dt * VD_LSRT2_G21 * dr1[i] + dt * g * p[i];
            vd_jr_mul_add(m, d, rn, dv2, wk);
            vd_jv_mul_add(m, d, vn, dv2);
        } else {
            /* linearized stage (paper eq. 15) with the kinematics kept nonlinear:
             * h(ra, va) ~ h1 + Jr (ra - r) + Jv (va - v) + Ju (u2 - u1), so
             * S dv2 = h1 + Jr (dt b21 dr1 + dt g p2) + Jv (dt b21 dv1) + Ju du,
             * b21 = a21 + g21, p2 = K(ra) va + K_lin sv */
            const double b21 = VD_LSRT2_A21 + VD_LSRT2_G21;

            vd_body_kinematics(m, d, ra, vn);
            vd_kdot(m, d->Ei, vn, p);
            for (int i = 0; i < nq; i++)
                vn[i] = dt * VD_LSRT2_G21 * dv1[i]; /* sv */
            klin_mul(m, d, vn, rn);
            for (int i = 0; i < nq; i++)
                p[i] += rn[i];
            memcpy(dv2, h, (size_t)nq * sizeof(double));
            for (int i = 0; i < nq; i++) {
                rn[i] = dt * b21 * dr1[i] + dt * g * p[i];
                vn[i] = dt * b21 * dv1[i];
            }
            vd_jr_mul_add(m, d, rn, dv2, wk);
            vd_jv_mul_add(m, d, vn, dv2);
            if (d->input_fn) {
                double *u2 = vd_arena_doubles(d, (size_t)nu);

                if (!u2) {
                    rc = -ENOMEM;
                    goto out_release;
                }
                stage_u(d, d->t + VD_LSRT2_C2 * dt, u2, nu);
                vd_ju_mul_add(m, d, u2, u, dv2);
            }
        }
        vd_lu_solve(nq, d->S, d->ipiv, dv2, 1);
        /* dr2 = p2 + dt g K_lin dv2 ; r+ = r + dt (b1 dr1 + b2 dr2) */
        klin_mul(m, d, dv2, rn);
        for (int i = 0; i < nq; i++) {
            double dr2 = p[i] + dt * g * rn[i];

            rn[i] = d->r[i] + dt * (VD_LSRT2_B1 * dr1[i] + VD_LSRT2_B2 * dr2);
            vn[i] = d->v[i] + dt * (VD_LSRT2_B1 * dv1[i] + VD_LSRT2_B2 * dv2[i]);
        }
    }
    if (!all_finite(rn, nq) || !all_finite(vn, nq)) {
        d->warn[VD_WARN_NONFINITE]++;
        rc = -EDOM;
        goto out_release;
    }
    memcpy(d->r, rn, (size_t)nq * sizeof(double));
    memcpy(d->v, vn, (size_t)nq * sizeof(double));
    d->nstep++;
    d->t = (double)d->nstep * dt;
    d->lin_age++;
    d->stage_ns[VD_STAGE_STAGES] += now_ns() - t1;
out_release:
    vd_arena_release(d, mark);
    return rc;
}

int vd_outputs(const struct vd_model *m, struct vd_data *d)
{
    const size_t mark = vd_arena_mark(d);
    double *h = vd_arena_doubles(d, (size_t)m->nq);
    int rc;

    if (!h)
        return -ENOMEM;
    rc = vd_eval_ex(m, d, d->r, d->v, d->u, h, false, true);
    vd_arena_release(d, mark);
    return rc;
}
