/* tests/app/test_models.c - the shipped example models through the YAML loader: the
 * quarter car (config/models/quarter_car.yaml) finds its static equilibrium, its tyre carries
 * the weight, and 10 s of LIE and LSRT2 from there do not drift. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "config/model_yaml.h"
#include "core/data.h"
#include "core/eval.h"
#include "core/linalg.h"
#include "core/signal.h"
#include "core/statics.h"
#include "core/step.h"

static double signal(const struct vd_model *m, struct vd_data *d, const char *name)
{
    struct vd_signal s;

    CHECK(vd_signal_resolve(m, name, &s) == 0, "signal %s", name);
    CHECK(vd_outputs(m, d) == 0, "outputs");
    return vd_signal_value(m, d, &s);
}

static void quarter_car(int method, int stage2)
{
    struct vd_source *src = NULL;
    struct vd_model *m = vd_cfg_load_model("config/models/quarter_car.yaml", &src, stderr);
    struct vd_data *d;
    double weight = 0.0, *r0, drift = 0.0, tyre;
    int it, fails = 0;

    CHECK(m != NULL, "quarter car loads");
    if (!m)
        return;
    m->opt.method = method;
    m->opt.stage2 = stage2;
    d = vd_data_new(m);
    CHECK(vd_solver_warmup(m, d) == 0, "warm-up");
    for (int b = 0; b < m->nbody; b++)
        weight += m->body[b].mass * 9.81;
    /* u = 0 (the payload step comes at t = 2 s): equilibrium to 1e-6 N */
    it = vd_equilibrate(m, d, 50, 1e-6);
    CHECK(it >= 0 && it < 50, "equilibrium: %d", it);
    /* the chassis guide is free in z, so the tyre carries all of the weight. tyre.force acts
     * along the p2p line from the road marker to the wheel centre, which the wheel's lateral
     * shift at rest inclines by ~1e-3 rad: the weight is its vertical part, force cos(angle),
     * (1 - cos) ~ 5e-7 relative less than the force; 1e-6 of the weight covers that and the
     * 1e-6 N residual (2.4e-10 relative) */
    tyre = signal(m, d, "tyre.force");
    CHECK_TOL(fabs(tyre - weight), 1e-6 * weight, "tyre force %.9g vs weight %.9g", tyre, weight);
    r0 = malloc((size_t)m->nq * sizeof(double));
    memcpy(r0, d->r, (size_t)m->nq * sizeof(double));
    /* at h = 0, v = 0 both methods have an exact fixed point: any motion is rounding. A
     * residual force of 1e-6 N against the softest support (wheel rate ~2e4 N/m) moves
     * 5e-11 m; 1e-9 m / 1e-9 rad leaves room for rounding over 10,000 steps */
    for (int s = 0; s < 10000; s++) {
        fails += vd_step(m, d) != 0;
        for (int i = 0; i < m->nq; i++)
            drift = fmax(drift, fabs(d->r[i] - r0[i]));
    }
    printf("quarter car %s%s: equilibrium in %d iterations, tyre %.3f N = weight %.3f N, "
           "drift over 10 s %.3g\n",
           method ? "LSRT2" : "LIE", method && stage2 ? " (W-form)" : "", it, tyre, weight, drift);
    CHECK(fails == 0, "%d failed steps", fails);
    CHECK_TOL(drift, 1e-9, "drift from the static equilibrium %.3g", drift);
    free(r0);
    vd_data_free(d);
    vd_source_free(src);
    vd_model_free(m);
}

/* the payload step of the model's input signal: the tyre then carries 1000 N more */
static void payload_step(void)
{
    struct vd_source *src = NULL;
    struct vd_model *m = vd_cfg_load_model("config/models/quarter_car.yaml", &src, stderr);
    struct vd_data *d;
    double weight = 0.0, tyre;

    CHECK(m != NULL, "quarter car loads");
    if (!m)
        return;
    d = vd_data_new(m);
    for (int b = 0; b < m->nbody; b++)
        weight += m->body[b].mass * 9.81;
    d->input_fn = vd_source_eval;
    d->input_ctx = src;
    for (int s = 0; s < 8000; s++)
        vd_step(m, d);
    vd_source_eval(src, d->t, d->u);
    tyre = signal(m, d, "tyre.force");
    /* 6 s after the step the strut damper (zeta ~ 0.7, body mode ~1.5 Hz: the transient
     * decays as exp(-0.7 2 pi 1.5 6) = 1e-17) has settled far below 0.1 N; what is left is
     * the integrator's steady state, exact at a fixed point */
    CHECK_TOL(fabs(tyre - weight - 1000.0), 0.1, "tyre force after the payload step %.4f",
              tyre - weight);
    /* the input signal's value, copied: exact up to the interpolation's rounding */
    CHECK_TOL(fabs(signal(m, d, "payload.u") - 1000.0), 1e-12, "payload input");
    vd_data_free(d);
    vd_source_free(src);
    vd_model_free(m);
}

int main(void)
{
    char info[256];

    vd_blas_init(info, sizeof(info));
    quarter_car(VD_METHOD_LIE, VD_STAGE2_LINEARIZED);
    quarter_car(VD_METHOD_LSRT2, VD_STAGE2_LINEARIZED);
    quarter_car(VD_METHOD_LSRT2, VD_STAGE2_NONLINEAR);
    payload_step();
    return vt_report("test_models");
}
