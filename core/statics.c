/* core/statics.c - static equilibrium by Newton's method. */
#include "statics.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "eval.h"
#include "step.h"
#include "vdmath.h"

static double max_abs(const double *x, int n)
{
    double mx = 0.0;

    for (int i = 0; i < n; i++)
        mx = fmax(mx, fabs(x[i]));
    return mx;
}

int vd_equilibrate(const struct vd_model *m, struct vd_data *d, int maxit, double tol)
{
    const int nq = m->nq;
    const size_t mark = vd_arena_mark(d);
    double *h = vd_arena_doubles(d, (size_t)nq), *dr = vd_arena_doubles(d, (size_t)nq);
    int it, rc = -ERANGE;

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
