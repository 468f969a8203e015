/* tests/core/test_modes.c - core/modes.h on a case with a closed-form answer: one rigid body
 * (mass 2 kg, principal inertias 0.1, 0.2, 0.3 kg m^2) held at its centre of mass by a
 * bushing to ground, with a stiffness and a damping per component and no gravity. Its six
 * motions are uncoupled single-degree-of-freedom oscillators: omega = sqrt(k / m), zeta = c /
 * (2 sqrt(k m)), and |lambda| of the damped pair is omega exactly. Checked: the six
 * frequencies and damping ratios of the damped solve, the undamped solve (zeta 0, the same
 * omega), the names from the dominant coordinate, no tyre share, nothing without stiffness. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "config/model_yaml.h"
#include "core/data.h"
#include "core/modes.h"
#include "core/statics.h"
#include "core/step.h"
#include "core/vdmath.h"

static const double mass = 2.0, inertia[3] = {0.1, 0.2, 0.3};
static const double k[6] = {2e4, 4.5e4, 8e4, 100.0, 300.0, 700.0}; /* [N/m], [N m/rad] */
static const double c[6] = {40.0, 30.0, 200.0, 0.2, 0.5, 1.0};     /* [N s/m], [N m s/rad] */
static const char *const names[6] = {"b fore-aft", "b lateral", "b bounce",
                                     "b roll",     "b pitch",   "b yaw"};

/* orient: the body turned by Cardan angles [az, ay, ax] (deg) at its start, the ground marker
 * with it (the bushing's axes are the body's): the same oscillators, seen through K(r) = Ei */
static struct vd_model *load(const double orient[3])
{
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    static const char *const comp[6] = {"x", "y", "z", "rx", "ry", "rz"};
    char path[256];
    struct vd_model *m;
    FILE *f;

    snprintf(path, sizeof(path), "%s/rtvd-test-modes-%d.yaml", dir, (int)getpid());
    f = fopen(path, "w");
    if (!f)
        return NULL;
    fprintf(f,
            "model: {name: sdof6, gravity: [0, 0, 0]}\n"
            "bodies:\n  - {name: b, mass: %g, inertia: [%g, %g, %g], position: [0, 0, 1], "
            "orientation: [%g, %g, %g]}\n"
            "markers:\n  - {name: g, body: ground, position: [0, 0, 1], orientation: [%g, %g, "
            "%g]}\n"
            "  - {name: c, body: b, position: [0, 0, 0]}\n"
            "bushings:\n  - name: mount\n    markers: [c, g]\n",
            mass, inertia[0], inertia[1], inertia[2], orient[0], orient[1], orient[2], orient[0],
            orient[1], orient[2]);
    for (int i = 0; i < 6; i++)
        fprintf(f, "    %s: {stiffness: %g, damping: %g}\n", comp[i], k[i], c[i]);
    fclose(f);
    m = vd_cfg_load_model(path, NULL, stderr);
    unlink(path);
    return m;
}

static void check_set(const struct vd_mode *md, int n, bool undamped, bool named)
{
    const char *what = undamped ? "undamped" : "damped";

    CHECK(n == 6, "%s: 6 modes (%d)", what, n);
    for (int i = 0; i < 6; i++) {
        const double in = i < 3 ? mass : inertia[i - 3];
        const double w = sqrt(k[i] / in), z = undamped ? 0.0 : c[i] / (2.0 * sqrt(k[i] * in));
        int j = -1;

        /* turned: the translations point along the body's axes; match by frequency */
        for (int q = 0; q < n; q++)
            if (named ? !strcmp(md[q].name, names[i])
                      : fabs(md[q].freq * 2.0 * M_PI - w) < 1e-6 * w)
                j = q;
        CHECK(j >= 0, "%s: a mode named '%s'", what, names[i]);
        if (j < 0)
            continue;
        /* QZ is backward stable: the eigenvalues are exact for a pencil within n eps |A|
         * (|A| <= 4e4 1/s^2 here, n = 12); the condition number of these 2x2 pencils is
         * below 1 + omega^2 / |lambda| <= 300, so |dlambda| <= 12 * 2.2e-16 * 4e4 * 300 =
         * 3e-8 1/s against |lambda| >= 18 1/s: 2e-9 relative. 1e-8 holds it */
        CHECK_TOL(fabs(md[j].freq * 2.0 * M_PI - w) / w, 1e-8, "%s %s: f %.9g Hz vs %.9g", what,
                  names[i], md[j].freq, w / (2.0 * M_PI));
        CHECK_TOL(fabs(md[j].zeta - z), 1e-8, "%s %s: zeta %.9g vs %.9g", what, names[i],
                  md[j].zeta, z);
        CHECK(md[j].kind == VD_MODE_OSC, "%s %s: an oscillation", what, names[i]);
        if (named)
            CHECK(md[j].share > 0.999, "%s %s: one coordinate (%g)", what, names[i], md[j].share);
        CHECK(md[j].tire_share == 0.0, "%s %s: no tyres", what, names[i]);
    }
}

static void run(const double orient[3], bool named)
{
    struct vd_model *m = load(orient);
    struct vd_data *d;
    struct vd_mode md[12];
    int n;

    CHECK(m != NULL, "load the model");
    if (!m)
        return;
    d = vd_data_new(m);
    CHECK(d && vd_solver_warmup(m, d) == 0, "data");
    n = vd_modes(m, d, 0.01, false, md, 12);
    check_set(md, n, false, named);
    for (int i = 0; i < n; i++)
        printf("  [%g %g %g] %-12s %9.4f Hz zeta %.5f\n", orient[0], orient[1], orient[2],
               md[i].name, md[i].freq, md[i].zeta);
    n = vd_modes(m, d, 0.01, true, md, 12);
    check_set(md, n, true, named);
    vd_data_free(d);
    vd_model_free(m);
}

/* ---- a model with joints: the modes on the constraint manifold (core/modes.h) -----------
 * A physical pendulum on a revolute about a tilted axis e (the ground marker's z, Cardan
 * 20 60 0 deg), the body turned by (30, 20, 10) deg, its CoM off the axis: the static Newton
 * brings it onto the joint and lets it hang in the plane of e and g, and its one mode is
 *   omega^2 = m |g - (g.e) e| l / I_e,   I_e = e_b^T I e_b + m l^2
 * (l the CoM's distance from the axis, e_b = A^T e in body axes). In the model's Cartesian
 * coordinates gravity is a constant force: the whole stiffness is the constraint force's
 * geometric term, which the reduction adds by central differences (step 1e-6: error
 * O(1e-12) relative), and the equilibrium's tolerance (1e-10 here) moves l by less than
 * 1e-9 relative: agreement to 1e-7 relative. One oscillation; nothing else (the other five
 * coordinates are constrained). A slow pendulum (0.12 Hz): the static Newton of
 * core/statics.c has no geometric term in its matrix lambda M - Jr K (lambda = 10 1/s^2) and
 * converges only while that stiffness stays below lambda M (omega^2 < 10 1/s^2) */
static const char pend_yaml[] =
    "model: {name: pendulum, gravity: [0, 0, -9.81]}\n"
    "solver: {method: lie, dt: 0.001}\n"
    "bodies:\n"
    "  - {name: bob, mass: 2.0, inertia: [0.5, 1.0, 1.5, 0.05, -0.1, 0.15],\n"
    "     com: [0.05, -0.02, 0.08], position: [0.1, 0.2, 0.3], orientation: [30, 20, 10]}\n"
    "markers:\n"
    "  - {name: g_a, body: ground, position: [0.1, 0.2, 0.3], orientation: [20, 60, 0]}\n"
    "  - {name: bob_a, body: bob, position: [0, 0, 0]}\n"
    "joints:\n"
    "  - {name: pivot, type: revolute, markers: [bob_a, g_a]}\n";

static void run_pendulum(void)
{
    struct vd_model *m =
        vd_cfg_load_model_mem("pendulum", pend_yaml, strlen(pend_yaml), NULL, stderr);
    struct vd_data *d;
    struct vd_mode md[12];
    const double p0[3] = {0.1, 0.2, 0.3}, *g;
    double e[3], cm[3], eb[3], Ie = 0.0, l2, gp[3], w;
    int n, it, osc = 0, kk = -1;

    CHECK(m != NULL, "pendulum: load");
    if (!m)
        return;
    d = vd_data_new(m);
    it = vd_equilibrate(m, d, 1000, 1e-10);
    CHECK(it >= 0, "pendulum: static equilibrium (%d)", it);
    n = vd_modes(m, d, 0.01, true, md, 12);
    g = m->gravity;
    /* e: z of the ground marker; c: the CoM relative to the axis point */
    e[0] = m->marker[0].rot[2];
    e[1] = m->marker[0].rot[5];
    e[2] = m->marker[0].rot[8];
    for (int i = 0; i < 3; i++)
        cm[i] = d->r[i] - p0[i];
    l2 = vdu_dot3(cm, cm) - vdu_dot3(cm, e) * vdu_dot3(cm, e);
    vdu_mat3t_vec(eb, d->A, e);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            Ie += eb[i] * m->body[0].inertia[3 * i + j] * eb[j];
    Ie += m->body[0].mass * l2;
    for (int i = 0; i < 3; i++)
        gp[i] = g[i] - vdu_dot3(g, e) * e[i];
    w = sqrt(m->body[0].mass * sqrt(vdu_dot3(gp, gp)) * sqrt(l2) / Ie);
    for (int i = 0; i < n; i++)
        if (md[i].kind == VD_MODE_OSC) {
            osc++;
            kk = i;
        }
    CHECK(n == 1 && osc == 1, "pendulum: %d modes, %d oscillations, expected one", n, osc);
    if (kk >= 0) {
        printf("  pendulum on a tilted revolute: %.9f Hz, closed form %.9f Hz\n", md[kk].freq,
               w / (2.0 * M_PI));
        CHECK_TOL(fabs(md[kk].freq * 2.0 * M_PI - w) / w, 1e-7, "pendulum: f %.9g vs %.9g Hz",
                  md[kk].freq, w / (2.0 * M_PI));
    }
    vd_data_free(d);
    vd_model_free(m);
}

int main(void)
{
    run_pendulum();
    run((const double[3]){0, 0, 0}, true);
    run((const double[3]){30, 20, 10}, false);
    return vt_report("test_modes");
}
