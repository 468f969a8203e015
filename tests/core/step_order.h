/* tests/core/step_order.h - the observed order of a vehicle's steps, shared by test_ce (item 6)
 * and test_ta (item 4): the four hubs driven, a tree state x = (q, u, z) in and out of a run,
 * and the error against a reference at dt = 2, 1, 0.5, 0.25 ms fitted by its log-log slope.
 * The bands the slopes must meet and their derivations stay with each caller. Static
 * functions: include it in one test file. */
#ifndef VT_STEP_ORDER_H
#define VT_STEP_ORDER_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "core/data.h"
#include "core/model.h"

/* the same drive torque tq [N m] on each of the four hubs' inputs */
static inline void vt_drive_hubs(const struct vd_model *m, struct vd_data *d, double tq)
{
    const char *dn[4] = {"front_l.drive", "front_r.drive", "rear_l.drive", "rear_r.drive"};

    for (int k = 0; k < 4; k++)
        d->u[vd_model_find_input(m, dn[k])] = tq;
}

/* q, u (n each) and z (nz) from the state x = (q, u, z) */
static inline void vt_state_in(const double *x, int n, int nz, double *q, double *u, double *z)
{
    memcpy(q, x, (size_t)n * sizeof(double));
    memcpy(u, x + n, (size_t)n * sizeof(double));
    memcpy(z, x + 2 * n, (size_t)nz * sizeof(double));
}

/* the state x = (q, u, z) of q, u (n each) and z (nz) */
static inline void vt_state_out(double *x, int n, int nz, const double *q, const double *u,
                                const double *z)
{
    memcpy(x, q, (size_t)n * sizeof(double));
    memcpy(x + n, u, (size_t)n * sizeof(double));
    memcpy(x + 2 * n, z, (size_t)nz * sizeof(double));
}

/* The observed order of `method`: run(ctx, method, dt, x) puts the state reached at step dt
 * into x (0, or the failed step's code: checked) for dt = 2, 1, 0.5, 0.25 ms; the error is
 * max |x - xr| over its first n entries, printed per point after "<form> LIE  :" or
 * "<form> LSRT2:"; returned and printed: the least-squares slope of ln e over ln dt */
static double vt_observed_order(const char *form, int method,
                                int (*run)(void *ctx, int method, double dt, double *x), void *ctx,
                                int n, const double *xr, double *x)
{
    double sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0, p;
    const int npt = 4;

    printf("%s %s:", form, method == VD_METHOD_LIE ? "LIE  " : "LSRT2");
    for (int i = 0; i < npt; i++) {
        const double dt = 2e-3 / pow(2.0, i);
        double e = 0.0;
        const int rc = run(ctx, method, dt, x);

        CHECK(rc == 0, "order run dt %g: %d", dt, rc);
        for (int k = 0; k < n; k++)
            e = fmax(e, fabs(x[k] - xr[k]));
        printf(" %.3e@%gms", e, dt * 1e3);
        sx += log(dt);
        sy += log(e);
        sxx += log(dt) * log(dt);
        sxy += log(dt) * log(e);
    }
    p = (npt * sxy - sx * sy) / (npt * sxx - sx * sx);
    printf("  observed order %.2f\n", p);
    return p;
}

#endif /* VT_STEP_ORDER_H */
