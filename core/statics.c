/* core/statics.c - static equilibrium by Newton's method. */
#include "statics.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "csolve.h"
#include "eval.h"
#include "joint.h"
#include "step.h"
#include "vdmath.h"

static double max_abs(const double *x, int n)
{
    double mx = 0.0;

    for (int i = 0; i < n; i++)
        mx = fmax(mx, fabs(x[i]));
    return mx;
}

/* with joints: Newton on [lambda M - Jr K, G^T; G, 0] [dq; mu] = [h; -g] (core/csolve.h),
 * converged when max |h - G^T mu| <= tol with mu of the previous iteration (the reactions)
 * and max |g| <= 1e-10 m or rad */
static int equilibrate_joints(const struct vd_model *m, struct vd_data *d, int maxit, double tol)
{
    const int nq = m->nq, nc = m->nc;
    const size_t mark = vd_arena_mark(d);
    double *h = vd_arena_doubles(d, (size_t)nq), *dr = vd_arena_doubles(d, (size_t)nq);
    double *mu = vd_arena_doubles(d, (size_t)nc), *c = vd_arena_doubles(d, (size_t)nc);
    double *gt = vd_arena_doubles(d, (size_t)nq);
    int it, rc = -ERANGE;

    if (!h || !dr || !mu || !c || !gt) {
        vd_arena_release(d, mark);
        return -ENOMEM;
    }
    memset(d->v, 0, (size_t)nq * sizeof(double));
    memset(mu, 0, (size_t)nc * sizeof(double));
    for (it = 0; it <= maxit; it++) {
        double res, scale;

        if (vd_eval(m, d, d->r, d->v, d->u, h, true)) {
            rc = -EDOM;
            break;
        }
        vd_joint_eval(m, d, d->u, false);
        memset(gt, 0, (size_t)nq * sizeof(double));
        vd_joint_Gt_mul_add(m, d, mu, gt);
        for (int i = 0; i < nq; i++)
            gt[i] = h[i] - gt[i];
        res = max_abs(gt, nq);
        if (res <= tol && vd_joint_residual(m, d) <= 1e-10) {
            rc = it;
            break;
        }
        if (it == maxit)
            break;
        if (!d->S && !vd_cs_structured(m)) {
            rc = -EINVAL;
            break;
        }
        vd_cs_assemble(m, d, 10.0, 0.0, 1.0);
        if (vd_cs_factor(m, d)) {
            rc = -EDOM;
            break;
        }
        for (int k = 0; k < nc; k++)
            c[k] = -d->jg[k];
        vd_cs_solve(m, d, h, c);
        memcpy(mu, c, (size_t)nc * sizeof(double));
        vd_kdot(m, d->Ei, h, dr);
        scale = fmax(max_abs(dr, nq) / 0.05, 1.0);
        for (int i = 0; i < nq; i++)
            d->r[i] += dr[i] / scale;
    }
    d->lin_age = -1;
    d->gu_ratio_sel = 0.0; /* the nullspace form selects its coordinates again */
    vd_arena_release(d, mark);
    return rc;
}

int vd_equilibrate(const struct vd_model *m, struct vd_data *d, int maxit, double tol)
{
    const int nq = m->nq;
    const size_t mark = vd_arena_mark(d);
    double *h = vd_arena_doubles(d, (size_t)nq), *dr = vd_arena_doubles(d, (size_t)nq);
    int it, rc = -ERANGE;

    if (m->nc) {
        vd_arena_release(d, mark);
        return equilibrate_joints(m, d, maxit, tol);
    }
    if (!h || !dr)
        return -ENOMEM;
    memset(d->v, 0, (size_t)nq * sizeof(double));
    for (it = 0; it <= maxit; it++) {
        double res, scale;

        if (vd_eval(m, d, d->r, d->v, d->u, h, true)) {
            rc = -EDOM;
            break;
        }
        res = max_abs(h, nq);
        if (res <= tol) {
            rc = it;
            break;
        }
        if (it == maxit)
            break;
        /* (lambda M - Jr K) dq = h, then r += K dq. The small mass term (lambda = 10 1/s^2,
         * far below the bushing and tyre rates) keeps free directions regular: a vehicle
         * on its tyres has no static stiffness in x, y, yaw or wheel spin, and h is 0 there */
        if (m->opt.linear == VD_LINEAR_DENSE) {
            if (!d->S) {
                rc = -EINVAL;
                break;
            }
            vd_assemble_dense(m, d, 10.0, 0.0, 1.0);
        } else {
            vd_assemble_blocks(m, d, 10.0, 0.0, 1.0);
        }
        if (vd_solve_factor(m, d)) {
            rc = -EDOM;
            break;
        }
        vd_solve_apply(m, d, h);
        vd_kdot(m, d->Ei, h, dr);
        /* limit the step to 5 cm / 0.2 rad: Newton from far away on progressive curves */
        scale = fmax(max_abs(dr, nq) / 0.05, 1.0);
        for (int i = 0; i < nq; i++)
            d->r[i] += dr[i] / scale;
    }
    d->lin_age = -1;
    vd_arena_release(d, mark);
    return rc;
}
