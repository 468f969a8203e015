/* tests/config/test_vehicle.c - the shipped full vehicles (config/vehicles/) as a whole:
 * sizes the issue asks for, left/right mirror symmetry of what the templates built, the
 * analytic Jacobian of the complete sedan and HMMWV (all bodies, bushings, P2P elements,
 * couplers, inputs and the tyres with their relaxation states) against central differences,
 * static equilibrium (tyre loads carry the weight), a parked vehicle that stays parked on
 * flat ground and one that its brakes hold on a 10 % slope, braking to a stop without
 * chatter, reversing from rest. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "config/model_yaml.h"
#include "config/scenario.h"
#include "core/data.h"
#include "core/eval.h"
#include "core/model.h"
#include "core/modes.h"
#include "core/statics.h"
#include "core/step.h"
#include "core/tire.h"
#include "core/vdmath.h"

#define FD_STEP 1e-6

static struct vd_model *load(const char *path, struct vd_source **src)
{
    struct vd_model *m = vd_cfg_load_model(path, src, stderr);

    CHECK(m != NULL, "load %s", path);
    return m;
}

/* ---- sizes and symmetry ------------------------------------------------------------- */

/* "front_l.uca" -> "front_r.uca" (first "_l." only); false when the name has none */
static bool mirror_name(char *out, size_t size, const char *name)
{
    const char *p = strstr(name, "_l.");

    if (!p)
        return false;
    snprintf(out, size, "%.*s_r.%s", (int)(p - name), name, p + 3);
    return true;
}

static void test_symmetry(const struct vd_model *m, const char *what)
{
    int pairs = 0, bl = 0, br = 0;

    for (int b = 0; b < m->nbody; b++) {
        const struct vd_body *l = &m->body[b];
        char rn[2 * VD_NAME_MAX];
        int j;

        if (!mirror_name(rn, sizeof(rn), l->name))
            continue;
        j = vd_model_find_body(m, rn);
        CHECK(j >= 0, "%s: %s has no mirror %s", what, l->name, rn);
        if (j < 0)
            continue;
        pairs++;
        /* the templates mirror hardpoints exactly (y -> -y): equal up to rounding */
        CHECK_NEAR(m->body[j].mass, l->mass, 1e-12, l->name);
        CHECK_NEAR(m->body[j].pose0[0], l->pose0[0], 1e-12, l->name);
        CHECK_NEAR(m->body[j].pose0[1], -l->pose0[1], 1e-12, l->name);
        CHECK_NEAR(m->body[j].pose0[2], l->pose0[2], 1e-12, l->name);
        CHECK_NEAR(m->body[j].inertia[0], l->inertia[0], 1e-9 * l->inertia[0], l->name);
        CHECK_NEAR(m->body[j].inertia[4], l->inertia[4], 1e-9 * l->inertia[4], l->name);
        CHECK_NEAR(m->body[j].inertia[8], l->inertia[8], 1e-9 * l->inertia[8], l->name);
    }
    for (int e = 0; e < m->nbush; e++) {
        bl += strstr(m->bush[e].name, "_l.") != NULL;
        br += strstr(m->bush[e].name, "_r.") != NULL;
    }
    printf("  %-8s %d mirrored body pairs, bushings left %d right %d\n", what, pairs, bl, br);
    CHECK(pairs >= 8, "%s: only %d mirrored body pairs", what, pairs);
    CHECK(bl == br && bl > 0, "%s: bushings left %d right %d", what, bl, br);
}

static void test_sizes(void)
{
    struct vd_source *src;
    struct vd_model *m = load("config/vehicles/sedan.yaml", &src);
    static const char *const inputs[] = {
        "steering.angle", "steering.driver_torque", "steering.eps_torque",
        "front_l.drive",  "front_r.drive",          "front_l.brake",
        "front_r.brake",  "rear_l.brake",           "rear_r.brake",
    };

    if (!m)
        return;
    printf("  sedan: %d bodies, %d DOF, %d bushings, %d tyres\n", m->nbody, m->nq, m->nbush,
           m->ntire);
    CHECK(m->nbody >= 50, "sedan bodies %d", m->nbody);
    CHECK(m->nq >= 300, "sedan DOF %d", m->nq);
    CHECK(m->ntire == 4 && m->nz == 8, "sedan tyres %d, z states %d", m->ntire, m->nz);
    for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++)
        CHECK(vd_model_find_input(m, inputs[i]) >= 0, "sedan input %s", inputs[i]);
    CHECK(vd_model_find_body(m, "rear.subframe") >= 0, "sedan: multilink subframe");
    CHECK(vd_model_find_body(m, "front_arb_l.half") >= 0, "sedan: front anti-roll bar");
    CHECK(vd_model_find_body(m, "rear_arb_l.half") >= 0, "sedan: rear anti-roll bar");
    CHECK(vd_model_find_body(m, "steering.rack") >= 0, "sedan: rack");
    test_symmetry(m, "sedan");
    vd_source_free(src);
    vd_model_free(m);

    m = load("config/vehicles/hmmwv.yaml", &src);
    if (!m)
        return;
    printf("  hmmwv: %d bodies, %d DOF, %d bushings, %d tyres\n", m->nbody, m->nq, m->nbush,
           m->ntire);
    CHECK(m->ntire == 4, "hmmwv tyres %d", m->ntire);
    CHECK(vd_model_find_body(m, "steering.pitman_arm") >= 0, "hmmwv: Pitman arm");
    CHECK(vd_model_find_body(m, "rear_l.uca") >= 0, "hmmwv: double wishbone rear");
    test_symmetry(m, "hmmwv");
    vd_source_free(src);
    vd_model_free(m);
}

/* ---- Jacobian of the whole vehicle ---------------------------------------------------- */

/* analytic d(h, g)/d(r, v, z), dense (nq + nz) x (2 nq + nz), column-major, from the blocks
 * of a jac evaluation: vd_jac_dense for the bodies, the tyres' Jz, Gp, Gv, Gz */
static void analytic(const struct vd_model *m, struct vd_data *d, double *J)
{
    const size_t n = (size_t)m->nq, nz = (size_t)m->nz, nr = n + nz;
    double *Jr = calloc(n * n, sizeof(double));
    double *Jv = calloc(n * n, sizeof(double));

    vd_jac_dense(m, d, Jr, Jv, NULL);
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < n; i++) {
            J[i + nr * k] = Jr[i + n * k];
            J[i + nr * (n + k)] = Jv[i + n * k];
        }
    for (int t = 0; t < m->ntire; t++) {
        const size_t b = (size_t)m->marker[m->tire[t].marker].body;
        const size_t zo = (size_t)m->tire[t].zoff;
        const double *Gp = d->Gp + 12 * t, *Gv = d->Gv + 12 * t, *Gz = d->Gz + 4 * t;
        const double *Jz = d->Jz + 12 * t, *T = d->Tlin + 9 * b;

        for (size_t j = 0; j < 2; j++) {
            for (size_t i = 0; i < 6; i++)
                J[6 * b + i + nr * (2 * n + zo + j)] = Jz[6 * j + i];
            for (size_t c = 0; c < 6; c++) {
                /* Gr = Gp diag(I, T) */
                const double gr = c < 3 ? Gp[6 * j + c]
                                        : Gp[6 * j + 3] * T[c - 3] + Gp[6 * j + 4] * T[c] +
                                              Gp[6 * j + 5] * T[c + 3];

                J[n + zo + j + nr * (6 * b + c)] = gr;
                J[n + zo + j + nr * (n + 6 * b + c)] = Gv[6 * j + c];
            }
            for (size_t c = 0; c < 2; c++)
                J[n + zo + j + nr * (2 * n + zo + c)] = Gz[2 * j + c];
        }
    }
    free(Jr);
    free(Jv);
}

/* block index of row i / column k: 6 per body, 2 per tyre (columns: r, v, z) */
static size_t row_block(const struct vd_model *m, size_t i)
{
    const size_t n = (size_t)m->nq;

    return i < n ? i / 6 : (size_t)m->nbody + (i - n) / 2;
}

static size_t col_block(const struct vd_model *m, size_t k)
{
    const size_t n = (size_t)m->nq;

    return k < 2 * n ? k / 6 : 2 * (size_t)m->nbody + (k - 2 * n) / 2;
}

/* central differences over every r, v, z; the error of each 6x6 (or 6x2, 2x6) block is
 * compared with that block's own magnitude, so a missing term in a soft element is not
 * hidden by a stiff bushing elsewhere in the column. FD of smooth forces at step 1e-6 is
 * accurate to ~1e-8 relative (truncation step^2/6 |h'''|, test_eval.c's estimate); the bound
 * 1e-5 of the block (plus 1e-8 of the row's largest entry, for the rounding of h itself:
 * |h| ~ 1e4 N, u 1e4 / 1e-6 = 1e-6 absolute, relative to the row's >= 1e2 entries, and 1e-6
 * absolute for rows of blocks that are 0, where only that rounding remains) catches any
 * dropped chain-rule term, which is >= 1e-3 of its block. */
static void fd_vehicle(const struct vd_model *m, struct vd_data *d, const char *what)
{
    const size_t n = (size_t)m->nq, nz = (size_t)m->nz, nr = n + nz, nc = 2 * n + nz;
    const size_t nbr = (size_t)(m->nbody + m->ntire), nbc = (size_t)(2 * m->nbody + m->ntire);
    double *J = calloc(nr * nc, sizeof(double)), *F = calloc(nr * nc, sizeof(double));
    double *x = malloc(nc * sizeof(double)), *hp = malloc(nr * sizeof(double));
    double *hm = malloc(nr * sizeof(double)), *rowmax = calloc(nr, sizeof(double));
    double *bs = calloc(nbr * nbc, sizeof(double)), *be = calloc(nbr * nbc, sizeof(double));
    double worst = 0.0, worst_s = 0.0, worst_ratio = 0.0;
    int bad = 0;

    CHECK(vd_eval_ex(m, d, d->r, d->v, d->z, d->u, hp, hp + n, true, false) == 0, "%s: eval", what);
    analytic(m, d, J);
    memcpy(x, d->r, n * sizeof(double));
    memcpy(x + n, d->v, n * sizeof(double));
    memcpy(x + 2 * n, d->z, nz * sizeof(double));
    for (size_t k = 0; k < nc; k++) {
        const double x0 = x[k];

        x[k] = x0 + FD_STEP;
        vd_eval_ex(m, d, x, x + n, x + 2 * n, d->u, hp, hp + n, false, false);
        x[k] = x0 - FD_STEP;
        vd_eval_ex(m, d, x, x + n, x + 2 * n, d->u, hm, hm + n, false, false);
        x[k] = x0;
        for (size_t i = 0; i < nr; i++)
            F[i + nr * k] = (hp[i] - hm[i]) / (2 * FD_STEP);
    }
    for (size_t k = 0; k < nc; k++)
        for (size_t i = 0; i < nr; i++) {
            const size_t ix = i + nr * k, bx = row_block(m, i) + nbr * col_block(m, k);

            bs[bx] = fmax(bs[bx], fabs(J[ix]));
            be[bx] = fmax(be[bx], fabs(F[ix] - J[ix]));
            rowmax[i] = fmax(rowmax[i], fabs(J[ix]));
        }
    for (size_t k = 0; k < nc; k++)
        for (size_t i = 0; i < nr; i++) {
            const size_t ix = i + nr * k;
            const double s = bs[row_block(m, i) + nbr * col_block(m, k)];
            const double e = fabs(F[ix] - J[ix]), tol = 1e-5 * s + 1e-8 * rowmax[i] + 1e-6;

            worst_ratio = fmax(worst_ratio, e / tol);
            if (e > tol) {
                if (bad < 10)
                    fprintf(stderr, "  %s: J[%zu][%zu] fd %.9g analytic %.9g (block max %.3g)\n",
                            what, i, k, F[ix], J[ix], s);
                bad++;
            }
            if (s > 0.0 && e / s > worst) {
                worst = e / s;
                worst_s = s;
            }
        }
    printf("  %-30s %zu x %zu: worst block-relative error %.2g (block max %.3g)\n", what, nr, nc,
           worst, worst_s);
    CHECK(bad == 0, "%s: %d Jacobian entries off", what, bad);
    CHECK_TOL(worst_ratio, 1.0, "%s: worst entry at %.3g of its tolerance", what, worst_ratio);
    free(J);
    free(F);
    free(x);
    free(hp);
    free(hm);
    free(rowmax);
    free(bs);
    free(be);
}

/* the scenario's vehicle at its start state, disturbed: every body moves a little, turns
 * and spins, the tyre states take random values, inputs are on */
static void test_jacobian(const char *scenario, const char *vehicle, const char *what)
{
    struct vd_scenario *s = vd_cfg_load_scenario(scenario, vehicle, stderr);
    struct vd_data *d;
    char err[160];

    CHECK(s != NULL, "load %s", scenario);
    if (!s)
        return;
    d = vd_data_new(s->m);
    CHECK(vd_scenario_start(s, d, err, sizeof(err)) == 0, "%s: start: %s", what, err);
    for (int i = 0; i < s->m->nq; i++) {
        d->r[i] += vt_uniform(-2e-3, 2e-3);
        d->v[i] += vt_uniform(-0.2, 0.2);
    }
    for (int i = 0; i < s->m->nz; i++)
        d->z[i] = vt_uniform(-0.01, 0.01);
    for (int j = 0; j < s->m->ninput; j++)
        d->u[j] = vt_uniform(-100, 100);
    fd_vehicle(s->m, d, what);
    vd_data_free(d);
    vd_cfg_scenario_free(s);
}

/* ---- statics and standstill ----------------------------------------------------------- */

static void test_statics(const char *path, const char *what)
{
    struct vd_source *src;
    struct vd_model *m = load(path, &src);
    struct vd_data *d;
    double mass = 0.0, fz = 0.0;
    int it;

    if (!m)
        return;
    d = vd_data_new(m);
    it = vd_equilibrate(m, d, 200, 1e-3);
    CHECK(it >= 0, "%s: statics %d", what, it);
    vd_outputs(m, d);
    for (int b = 0; b < m->nbody; b++)
        mass += m->body[b].mass;
    for (int t = 0; t < m->ntire; t++)
        fz += d->tire_out[VD_TIRE_NOUT * t + VD_TO_FZ];
    /* on flat ground the road normal is vertical: sum Fz = m g (issue: within 0.1 %) */
    printf("  %-8s statics in %d iterations: sum Fz %.3f N, m g %.3f N (%.2g %%)\n", what, it, fz,
           -mass * m->gravity[2], 100.0 * (fz / (-mass * m->gravity[2]) - 1.0));
    /* the 0.1 %; the statics stops at a residual of 1e-3 N (6e-8 of the weight), so
     * what this judges is the tyre and road model, not convergence */
    CHECK(fabs(fz / (-mass * m->gravity[2]) - 1.0) < 1e-3, "%s: sum Fz %g vs m g %g", what, fz,
          -mass * m->gravity[2]);
    vd_data_free(d);
    vd_source_free(src);
    vd_model_free(m);
}

/* parked on flat ground, no brakes: after 5 s the chassis has moved less than 0.1 mm and
 * moves slower than 0.1 mm/s (a creep of 1 mm/s, what MF's zero-slip forces produced before
 * they were faded out at standstill, fails this by a factor 10) */
static void test_rest(void)
{
    struct vd_scenario *s = vd_cfg_load_scenario("config/scenarios/rest_flat.yaml", NULL, stderr);
    struct vd_data *d;
    double x0[3], dx = 0.0, vmax = 0.0;
    char err[160];
    int ch;

    CHECK(s != NULL, "load rest_flat");
    if (!s)
        return;
    d = vd_data_new(s->m);
    CHECK(vd_scenario_start(s, d, err, sizeof(err)) == 0, "rest: start: %s", err);
    ch = vd_model_find_body(s->m, "chassis");
    memcpy(x0, d->r + 6 * ch, sizeof(x0));
    for (int k = 0; k < 5000; k++)
        if (vd_step(s->m, d) != 0) {
            CHECK(0, "rest: step %d failed", k);
            break;
        }
    for (int i = 0; i < 2; i++) {
        dx = fmax(dx, fabs(d->r[6 * ch + i] - x0[i]));
        vmax = fmax(vmax, fabs(d->v[6 * ch + i]));
    }
    printf("  parked 5 s: chassis moved %.3g m, speed %.3g m/s\n", dx, vmax);
    /* physical bounds, not rounding: a parked car that creeps 0.1 mm in 5 s (a tyre's
     * zero-slip shift forces not faded out at standstill did 10x that) fails */
    CHECK(dx < 1e-4, "rest: chassis moved %g m", dx);
    CHECK(vmax < 1e-4, "rest: chassis speed %g m/s", vmax);
    vd_data_free(d);
    vd_cfg_scenario_free(s);
}

/* 10 % slope, brakes held (config/scenarios/slope_hold.yaml): after the scenario's 5 s of
 * settling (the tyre carcasses take up the downhill force) the chassis moves less than
 * 1 mm over the next 60 s (the bound) */
static void test_slope(void)
{
    struct vd_scenario *s = vd_cfg_load_scenario("config/scenarios/slope_hold.yaml", NULL, stderr);
    struct vd_data *d;
    double x5[3], drift = 0.0;
    char err[160];
    long n5, n65;
    int ch;

    CHECK(s != NULL, "load slope_hold");
    if (!s)
        return;
    d = vd_data_new(s->m);
    CHECK(vd_scenario_start(s, d, err, sizeof(err)) == 0, "slope: start: %s", err);
    ch = vd_model_find_body(s->m, "chassis");
    n5 = lround(5.0 / s->m->opt.dt);
    n65 = lround(s->duration / s->m->opt.dt);
    CHECK(n65 - n5 == lround(60.0 / s->m->opt.dt), "slope: scenario lasts %g s", s->duration);
    for (long k = 0; k < n65; k++) {
        if (k == n5)
            memcpy(x5, d->r + 6 * ch, sizeof(x5));
        if (vd_step(s->m, d) != 0) {
            CHECK(0, "slope: step %ld failed", k);
            break;
        }
    }
    drift = sqrt((d->r[6 * ch] - x5[0]) * (d->r[6 * ch] - x5[0]) +
                 (d->r[6 * ch + 1] - x5[1]) * (d->r[6 * ch + 1] - x5[1]) +
                 (d->r[6 * ch + 2] - x5[2]) * (d->r[6 * ch + 2] - x5[2]));
    printf("  10 %% slope, brakes held: drift over 60 s %.3g m\n", drift);
    CHECK(drift < 1e-3, "slope: drift %g m over 60 s", drift);
    vd_data_free(d);
    vd_cfg_scenario_free(s);
}

/* config/scenarios/accel_brake.yaml: the driver accelerates to 20 m/s and brakes to a stop
 * at 13 s, then holds. Checked: the speed is reached, the vehicle stops and stays stopped
 * (last second: moved < 5 mm, |vx| < 1 cm/s) and the front wheel's spin rate crosses zero
 * at most 20 times in the last 2 s: the fore-aft rocking after a stop is a 2-3 Hz mode
 * (~12 crossings while it decays); a stick-slip limit cycle of brake or tyre would cross
 * at the step rate (hundreds). */
static void test_accel_brake(void)
{
    struct vd_scenario *s = vd_cfg_load_scenario("config/scenarios/accel_brake.yaml", NULL, stderr);
    struct vd_data *d;
    double vmax = 0.0, w_prev = 0.0, x15 = 0.0;
    char err[160];
    long n;
    int ch, fw, flips = 0;

    CHECK(s != NULL, "load accel_brake");
    if (!s)
        return;
    d = vd_data_new(s->m);
    CHECK(vd_scenario_start(s, d, err, sizeof(err)) == 0, "accel_brake: start: %s", err);
    ch = vd_model_find_body(s->m, "chassis");
    fw = vd_model_find_body(s->m, "front_l.wheel");
    n = lround(s->duration / s->m->opt.dt);
    for (long k = 0; k < n; k++) {
        const double w = d->v[6 * fw + 3];

        vmax = fmax(vmax, d->v[6 * ch]);
        if (d->t >= s->duration - 2.0) {
            flips += w * w_prev < 0.0;
            w_prev = w;
        }
        if (k == n - lround(1.0 / s->m->opt.dt))
            x15 = d->r[6 * ch];
        if (vd_step(s->m, d) != 0) {
            CHECK(0, "accel_brake: step %ld failed", k);
            break;
        }
    }
    printf("  accel/brake: top speed %.2f m/s, final vx %.2g m/s, last second %.3g m, "
           "%d spin reversals in the last 2 s\n",
           vmax, d->v[6 * ch], d->r[6 * ch] - x15, flips);
    /* the scenario's targets (20 m/s, then a stop): a closed-loop driver's bounds, not
     * rounding; 1 cm/s and 5 mm in the last second are a car standing on its brakes */
    CHECK(vmax > 19.0, "accel_brake: top speed %g", vmax);
    CHECK(fabs(d->v[6 * ch]) < 0.01, "accel_brake: final vx %g", d->v[6 * ch]);
    CHECK(fabs(d->r[6 * ch] - x15) < 5e-3, "accel_brake: moved %g m in the last second",
          d->r[6 * ch] - x15);
    CHECK(flips <= 20, "accel_brake: %d spin reversals in 2 s (chatter)", flips);
    vd_data_free(d);
    vd_cfg_scenario_free(s);
}

/* reversing from rest: -150 N m on each front wheel for 3 s. The car rolls backwards from
 * the start without ever rolling forwards (no chatter or stick-slip of the tyres through
 * standstill; the driven wheels do ring on their tyres' torsional compliance after the
 * torque step, a ~20 Hz mode, which is physics) and is past -0.3 m/s at the end
 * (300 N m / 0.31 m ~ 970 N on ~1740 kg, minus resistances: ~0.5 m/s^2) */
static void test_reverse(void)
{
    struct vd_scenario *s = vd_cfg_load_scenario("config/scenarios/rest_flat.yaml", NULL, stderr);
    struct vd_data *d;
    char err[160];
    int ch, jl, jr, forward = 0;
    double vmax = -INFINITY;

    CHECK(s != NULL, "load rest_flat");
    if (!s)
        return;
    d = vd_data_new(s->m);
    CHECK(vd_scenario_start(s, d, err, sizeof(err)) == 0, "reverse: start: %s", err);
    ch = vd_model_find_body(s->m, "chassis");
    jl = vd_model_find_input(s->m, "front_l.drive");
    jr = vd_model_find_input(s->m, "front_r.drive");
    d->input_fn = NULL; /* held inputs */
    d->u[jl] = d->u[jr] = -150.0;
    for (long k = 0; k < lround(3.0 / s->m->opt.dt); k++) {
        if (vd_step(s->m, d) != 0) {
            CHECK(0, "reverse: step %ld failed", k);
            break;
        }
        /* rolling forwards: 1 mm/s (the step's reaction torque winds the suspension up and
         * moves the chassis CoM forwards at < 0.1 mm/s for a few steps; that is not it) */
        forward += d->v[6 * ch] > 1e-3;
        vmax = fmax(vmax, d->v[6 * ch]);
    }
    printf("  reversing 3 s: vx %.3f m/s, largest forward speed %.2g m/s\n", d->v[6 * ch], vmax);
    CHECK(d->v[6 * ch] < -0.3, "reverse: vx %g", d->v[6 * ch]);
    CHECK(forward == 0, "reverse: %d steps rolling forwards (max %g m/s)", forward, vmax);
    vd_data_free(d);
    vd_cfg_scenario_free(s);
}

/* vehicle file with steering `mode: torque`, written next to a link to config/tires (the
 * vehicle's tyre paths are relative); path into out. 0 or -1 */
static int torque_mode_copy(const char *vehicle, const char *dir, char *out, size_t size)
{
    char cwd[512], link[600], src[600];
    FILE *f = fopen(vehicle, "r"), *g;
    char line[1024];

    if (!f || !getcwd(cwd, sizeof(cwd)))
        return -1;
    snprintf(src, sizeof(src), "%s/config/tires", cwd);
    snprintf(link, sizeof(link), "%s/tires", dir);
    if (access(link, F_OK) != 0 && symlink(src, link) != 0) {
        fclose(f);
        return -1;
    }
    snprintf(out, size, "%s/vehicles", dir);
    mkdir(out, 0700);
    snprintf(out, size, "%s/vehicles/%s", dir, strrchr(vehicle, '/') + 1);
    g = fopen(out, "w");
    if (!g) {
        fclose(f);
        return -1;
    }
    while (fgets(line, sizeof(line), f)) {
        const char *p = strstr(line, "mode: angle");

        if (p)
            fprintf(g, "%.*smode: torque%s", (int)(p - line), line, p + strlen("mode: angle"));
        else
            fputs(line, g);
    }
    fclose(f);
    fclose(g);
    return 0;
}

/* ISO 8855 signs: a positive steering-wheel angle (mode angle), a positive driver torque
 * and a positive EPS torque (mode torque) turn the vehicle left: yaw rate > 0 after 1 s at
 * 20 m/s. Inputs: 0.3 rad (~17 deg at the wheel), 5 N m (a light hand) */
static void test_steering_signs(const char *vehicle, const char *what)
{
    static const char *const in[] = {"steering.angle", "steering.driver_torque",
                                     "steering.eps_torque"};
    static const double val[] = {0.3, 5.0, 5.0};
    char dir[] = "/tmp/rtvd-steer-XXXXXX", tv[700];

    if (!mkdtemp(dir) || torque_mode_copy(vehicle, dir, tv, sizeof(tv))) {
        CHECK(0, "%s: temporary torque-mode copy", what);
        return;
    }
    for (int k = 0; k < 3; k++) {
        struct vd_scenario *s = vd_cfg_load_scenario("config/scenarios/dlc_iso3888.yaml",
                                                     k == 0 ? vehicle : tv, stderr);
        struct vd_data *d;
        char err[160];
        int j, ch;

        CHECK(s != NULL, "%s: load", what);
        if (!s)
            continue;
        j = vd_model_find_input(s->m, in[k]);
        if (j < 0) {
            /* the HMMWV has no EPS */
            CHECK(k == 2 && strstr(vehicle, "hmmwv"), "%s: no input %s", what, in[k]);
            vd_cfg_scenario_free(s);
            continue;
        }
        d = vd_data_new(s->m);
        CHECK(vd_scenario_start(s, d, err, sizeof(err)) == 0, "%s: start: %s", what, err);
        ch = vd_model_find_body(s->m, "chassis");
        d->input_fn = NULL; /* held inputs: no driver */
        memset(d->u, 0, (size_t)s->m->ninput * sizeof(double));
        d->u[j] = val[k];
        for (int i = 0; i < 1000; i++)
            if (vd_step(s->m, d) != 0) {
                CHECK(0, "%s: step", what);
                break;
            }
        {
            /* yaw rate: body z rate of the (nearly level) chassis */
            const double wz = d->v[6 * ch + 5];

            printf("  %-6s %-22s %+5.1f: yaw rate after 1 s %+.4f rad/s\n", what, in[k], val[k],
                   wz);
            CHECK(wz > 1e-3, "%s: %s > 0 turns right (yaw rate %g)", what, in[k], wz);
        }
        vd_data_free(d);
        vd_cfg_scenario_free(s);
    }
    unlink(tv);
    snprintf(tv, sizeof(tv), "%s/vehicles", dir);
    rmdir(tv);
    snprintf(tv, sizeof(tv), "%s/tires", dir);
    unlink(tv);
    rmdir(dir);
}

/* ---- ideal joints in the templates (connection: joints) ---------------------------------- */

/* the joint named name exists and is of type type */
static void want_joint(const struct vd_model *m, const char *name, int type, const char *what)
{
    int j = -1;

    for (int i = 0; i < m->njoint; i++)
        if (!strcmp(m->joint[i].name, name))
            j = i;
    CHECK(j >= 0 && m->joint[j].type == type, "%s: joint %s of type %d (found %d, type %d)", what,
          name, type, j, j >= 0 ? m->joint[j].type : -1);
}

/* axis c (global) of marker k at the initial pose */
static void marker_axis(const struct vd_model *m, int k, int c, double e[3])
{
    const struct vd_marker *mk = &m->marker[k];
    double R[9], loc[3] = {mk->rot[c], mk->rot[3 + c], mk->rot[6 + c]};

    if (mk->body == VD_GROUND) {
        memcpy(e, loc, sizeof(loc));
        return;
    }
    vdu_cardan_zyx(R, m->body[mk->body].pose0[3], m->body[mk->body].pose0[4],
                   m->body[mk->body].pose0[5]);
    vdu_mat3_vec(e, R, loc);
}

static double joint_axis_dot(const struct vd_model *m, const char *name, int side, int c,
                             const double dir[3])
{
    double e[3];

    for (int i = 0; i < m->njoint; i++)
        if (!strcmp(m->joint[i].name, name)) {
            marker_axis(m, m->joint[i].mk[side], c, e);
            return vdu_dot3(e, dir) / sqrt(vdu_dot3(dir, dir));
        }
    return NAN;
}

/* text with the first occurrence of each line a followed by line b (a fresh allocation) */
static char *insert_after(const char *text, const char *a, const char *b)
{
    char *out = malloc(strlen(text) + 64 * strlen(b) + 1), *o = out;
    const char *p = text;

    for (const char *q; (q = strstr(p, a));) {
        memcpy(o, p, (size_t)(q - p) + strlen(a));
        o += (q - p) + (long)strlen(a);
        strcpy(o, b);
        o += strlen(b);
        p = q + strlen(a);
    }
    strcpy(o, p);
    return out;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char *t = calloc(1, 1 << 20);
    size_t n = f ? fread(t, 1, (1 << 20) - 1, f) : 0;

    if (f)
        fclose(f);
    t[n] = '\0';
    return t;
}

/* the undamped roll frequency at rest [Hz], NAN if none */
static double roll_hz(const struct vd_model *m)
{
    struct vd_data *d = vd_data_new(m);
    const int max = 2 * m->nq + m->nz;
    struct vd_mode *md = calloc((size_t)max, sizeof(*md));
    double f = NAN;
    int n;

    if (vd_equilibrate(m, d, 100, 1e-6) >= 0) {
        n = vd_modes(m, d, 0.01, true, md, max);
        for (int i = 0; i < n; i++)
            if (!strcmp(md[i].name, "body roll") && md[i].kind == VD_MODE_OSC)
                f = md[i].freq;
    }
    free(md);
    vd_data_free(d);
    return f;
}

/* a McPherson corner pair on a rig (mount: ground), hardpoints of the dw rig with the strut
 * on the knuckle */
static const char mcpherson_yaml[] =
    "model: {name: mcp, gravity: [0, 0, -9.81]}\n"
    "solver: {method: lie, dt: 0.001}\n"
    "suspensions:\n"
    "  - name: axle\n"
    "    type: mcpherson\n"
    "    connection: joints\n"
    "    mount: ground\n"
    "    location: [0, 0, 0.45]\n"
    "    hardpoints:\n"
    "      lca_front: [0.200, 0.420, -0.270]\n"
    "      lca_back: [-0.200, 0.470, -0.265]\n"
    "      lca_outer: [0.000, 0.770, -0.320]\n"
    "      tierod_inner: [-0.200, 0.420, -0.120]\n"
    "      tierod_outer: [-0.150, 0.770, -0.120]\n"
    "      strut_top: [-0.040, 0.520, 0.230]\n"
    "      strut_bottom: [0.000, 0.680, 0.020]\n"
    "      wheel_center: [0.000, 0.7979, -0.1199]\n"
    "    bodies:\n"
    "      knuckle: {mass: 10.0, inertia: [0.08, 0.06, 0.05]}\n"
    "      lca: {mass: 4.5, inertia: [0.040, 0.030, 0.065]}\n"
    "      tierod: {mass: 1.0, inertia: [0.010, 0.0005, 0.010]}\n"
    "      piston_rod: {mass: 1.0, inertia: [0.005, 0.005, 0.0002]}\n"
    "      wheel: {mass: 24.7, inertia: [0.6, 1.0, 0.6]}\n"
    "    spring: {stiffness: 30000, free_length: 0.35}\n"
    "    damper: {damping: 3000}\n"
    "    rebound_stop: {length: 0.30, stiffness: [[0, 0], [0.01, 3000], [0.02, 12000]]}\n";

static void test_joint_templates(void)
{
    struct vd_source *src = NULL;
    struct vd_model *m;

    /* hmmwv_joints: 37 bodies, 222 coordinates, 162 rows. By hand: chassis 6; each corner's
     * knuckle, arms, tie rod, tube and rod (36 coordinates) against 35 rows (revolute 5 +
     * ball 3 twice, universal 4 + ball 3 for the tie rod, universal 4 + ball 3 + prismatic 5
     * for the strut): the travel, 1, and the wheel on its bearing bushing, 6: 4 x 7; the
     * steering's wheel, Pitman arm, idler arm and link (24) against 22 rows (three revolutes,
     * a universal, a ball joint): 2, the steering wheel and the arm coupled by the elastic
     * box; four half shafts on bushings, 24: 6 + 28 + 2 + 24 = 60 */
    m = load("config/vehicles/hmmwv_joints.yaml", &src);
    if (m) {
        const double ex[3] = {1, 0, 0}, ez[3] = {0, 0, 1};

        printf("  hmmwv_joints: %d coordinates, %d rows, %d DOF\n", m->nq, m->nc, m->nq - m->nc);
        CHECK(m->nq == 222 && m->nc == 162, "hmmwv_joints: %d coordinates, %d rows", m->nq, m->nc);
        want_joint(m, "steering.column_bearing_pivot", VD_JOINT_REVOLUTE, "hmmwv_joints");
        want_joint(m, "steering.pitman_bearing_pivot", VD_JOINT_REVOLUTE, "hmmwv_joints");
        want_joint(m, "steering.idler_pivot", VD_JOINT_REVOLUTE, "hmmwv_joints");
        want_joint(m, "steering.pitman_link", VD_JOINT_UNIVERSAL, "hmmwv_joints");
        want_joint(m, "steering.idler_link", VD_JOINT_SPHERICAL, "hmmwv_joints");
        /* Chrono's cross (HMMWV_PitmanArm.json): the link's pin along x (marker i's x), the
         * arm's along z (marker j's y); the chassis is level at t0, so exactly */
        CHECK_NEAR(joint_axis_dot(m, "steering.pitman_link", 0, 0, ex), 1.0, 1e-12,
                   "pitman_link: link pin along x");
        CHECK_NEAR(joint_axis_dot(m, "steering.pitman_link", 1, 1, ez), 1.0, 1e-12,
                   "pitman_link: arm pin along z");
        CHECK(vd_model_find_bushing(m, "steering.pitman_bearing") >= 0 && m->ncoupler == 1,
              "hmmwv_joints: the box couples the rate-free pitman_bearing");
        vd_model_free(m);
        vd_source_free(src);
    }
    /* sedan_joints: 50 bodies, 300 coordinates, 191 rows. By hand: chassis and engine 12;
     * front corners 2 x 7 (as the HMMWV's); subframe 6; rear corners: knuckle, five links,
     * tube and rod (48) against 47 rows (five links at 7, the strut 12), the travel and the
     * wheel, 2 x 7; steering: wheel, column, intermediate shaft, pinion, rack (30) against 27
     * rows (two revolutes 10, two Cardan joints 8, a cylindrical 4, a prismatic 5): 3, the
     * steering wheel, the column (torsion bar) and the rack (elastic gear); two anti-roll bars
     * on bushings, 48; two half shafts 12: 12 + 14 + 6 + 14 + 3 + 48 + 12 = 109 */
    m = load("config/vehicles/sedan_joints.yaml", &src);
    if (m) {
        const int ish = vd_model_find_body(m, "steering.intermediate_shaft");
        int wb = vd_model_find_bushing(m, "steering.wheel_bearing");

        printf("  sedan_joints: %d coordinates, %d rows, %d DOF\n", m->nq, m->nc, m->nq - m->nc);
        CHECK(m->nq == 300 && m->nc == 191, "sedan_joints: %d coordinates, %d rows", m->nq, m->nc);
        want_joint(m, "steering.wheel_bearing_pivot", VD_JOINT_REVOLUTE, "sedan_joints");
        want_joint(m, "steering.column_bearing_pivot", VD_JOINT_REVOLUTE, "sedan_joints");
        want_joint(m, "steering.pinion_bearing_pivot", VD_JOINT_CYLINDRICAL, "sedan_joints");
        want_joint(m, "steering.ujoint_upper", VD_JOINT_UNIVERSAL, "sedan_joints");
        want_joint(m, "steering.ujoint_lower", VD_JOINT_UNIVERSAL, "sedan_joints");
        want_joint(m, "steering.rack_slide", VD_JOINT_PRISMATIC, "sedan_joints");
        /* the Cardan joint's pins: marker i's x normal to the intermediate shaft, whose CoM
         * lies midway between its joints (the marker's lever is along the shaft) */
        for (int i = 0; i < m->njoint && ish >= 0; i++)
            if (!strcmp(m->joint[i].name, "steering.ujoint_upper")) {
                double a[3], ax[3], R[9];

                marker_axis(m, m->joint[i].mk[0], 0, a);
                vdu_cardan_zyx(R, m->body[ish].pose0[3], m->body[ish].pose0[4],
                               m->body[ish].pose0[5]);
                vdu_mat3_vec(ax, R, m->marker[m->joint[i].mk[0]].pos);
                CHECK_NEAR(vdu_dot3(a, ax) / sqrt(vdu_dot3(ax, ax)), 0.0, 1e-12,
                           "ujoint_upper: the shaft's pin normal to the shaft");
            }
        /* the rate-free bushing beside the revolute carries the servo, nothing else */
        CHECK(wb >= 0, "sedan_joints: steering.wheel_bearing");
        if (wb >= 0) {
            double dy;

            CHECK(vd_curve_eval(m, &m->bush[wb].stiff[1], 0.01, &dy) == 0.0 &&
                      vd_curve_eval(m, &m->bush[wb].stiff[4], 0.01, &dy) == 0.0,
                  "steering.wheel_bearing: no radial or conical rate beside the joint");
            CHECK(m->bush[wb].act[3] == VD_ACT_SERVO, "steering.wheel_bearing: the servo");
        }
        vd_model_free(m);
        vd_source_free(src);
    }
    /* the anti-roll bars with ideal joints: 0 DOF each (halves 1 each, drop links -1 each),
     * so 109 - 48 = 61; the roll stiffens to the bars' full rate, which sedan_joints' bar
     * bushings soften: the undamped roll lies between the twin's (bar bushings as given) and
     * above it, and the bar bushings made 100 times stiffer come within 10 % of the gap to it
     * (the bushing rates' share of the compliance falls as 1/k) */
    {
        char *t = slurp("config/vehicles/sedan_joints.yaml"), *tj, *ts;
        const char *stiff = "    bushings: {bearing: {radial: 5.0e8, axial: 1.0e8, conical: "
                            "1.0e6}, ball_joint: {radial: 5.0e8, axial: 5.0e8}}\n";
        struct vd_model *mj, *ms, *mb;
        double fj = NAN, fs = NAN, fb = NAN;

        tj = insert_after(t, "    attach: front.lca\n", "    connection: joints\n");
        free(t);
        t = insert_after(tj, "    attach: rear.lateral\n", "    connection: joints\n");
        free(tj);
        tj = t;
        t = slurp("config/vehicles/sedan_joints.yaml");
        ts = insert_after(t, "    attach: front.lca\n", stiff);
        free(t);
        t = insert_after(ts, "    attach: rear.lateral\n", stiff);
        free(ts);
        ts = t;
        mj = vd_cfg_load_model_mem("config/vehicles/sedan_arbj.yaml", tj, strlen(tj), NULL, stderr);
        ms = vd_cfg_load_model_mem("config/vehicles/sedan_arbs.yaml", ts, strlen(ts), NULL, stderr);
        mb = vd_cfg_load_model("config/vehicles/sedan_joints.yaml", NULL, stderr);
        CHECK(mj && ms && mb, "sedan_joints with joint / stiff anti-roll bars: load");
        if (mj && ms && mb) {
            want_joint(mj, "front_arb_l.bearing", VD_JOINT_REVOLUTE, "arb joints");
            want_joint(mj, "rear_arb_r.droplink_top", VD_JOINT_UNIVERSAL, "arb joints");
            want_joint(mj, "rear_arb_r.droplink_bottom", VD_JOINT_SPHERICAL, "arb joints");
            CHECK(mj->nq - mj->nc == 61, "arb joints: %d DOF, expected 61", mj->nq - mj->nc);
            fj = roll_hz(mj);
            fs = roll_hz(ms);
            fb = roll_hz(mb);
            printf("  sedan_joints undamped roll: bar bushings %.3f Hz, x100 %.3f Hz, bar "
                   "joints %.3f Hz\n",
                   fb, fs, fj);
            CHECK(fj > fs && fs > fb && fj - fs < 0.1 * (fj - fb),
                  "roll: bar bushings %.3f, x100 %.3f, joints %.3f Hz", fb, fs, fj);
        }
        vd_model_free(mj);
        vd_model_free(ms);
        vd_model_free(mb);
        free(tj);
        free(ts);
    }
    /* McPherson with joints on a rig: knuckle, arm, tie rod, rod (24) against 23 rows
     * (revolute 5 + ball 3, universal 4 + ball 3, the strut's universal 4 + cylindrical 4):
     * the travel, and the wheel on its bushing: 7 per side; it settles on its rebound stops
     * and stays on the constraints (drift after 0.3 s <= 1e-8, the projection's bound,
     * tests/core/test_mechanism.c) */
    m = vd_cfg_load_model_mem("mcp", mcpherson_yaml, strlen(mcpherson_yaml), &src, stderr);
    CHECK(m != NULL, "McPherson with joints: load");
    if (m) {
        struct vd_data *d = vd_data_new(m);
        double drift = 0.0;

        CHECK(m->nq == 60 && m->nc == 46, "McPherson: %d coordinates, %d rows", m->nq, m->nc);
        want_joint(m, "axle_l.strut_guide", VD_JOINT_CYLINDRICAL, "McPherson");
        want_joint(m, "axle_r.strut_top", VD_JOINT_UNIVERSAL, "McPherson");
        want_joint(m, "axle_l.lca_pivot", VD_JOINT_REVOLUTE, "McPherson");
        for (int i = 0; i < 300; i++) {
            if (vd_step(m, d)) {
                CHECK(0, "McPherson: step %d", i);
                break;
            }
            drift = fmax(drift, d->cres);
        }
        CHECK_TOL(drift, 1e-8, "McPherson: drift %.3g", drift);
        vd_data_free(d);
        vd_model_free(m);
        vd_source_free(src);
    }
}

int main(void)
{
    test_sizes();
    test_joint_templates();
    test_steering_signs("config/vehicles/sedan.yaml", "sedan");
    test_steering_signs("config/vehicles/hmmwv.yaml", "hmmwv");
    /* the steering templates with ideal joints: the same signs through the rate-free
     * bushings that carry the servo, the driver and EPS torques, the box and the gear */
    test_steering_signs("config/vehicles/sedan_joints.yaml", "sedan_joints");
    test_steering_signs("config/vehicles/hmmwv_joints.yaml", "hmmwv_joints");
    test_jacobian("config/scenarios/dlc_iso3888.yaml", NULL, "sedan at 20 m/s, disturbed");
    test_jacobian("config/scenarios/rest_flat.yaml", NULL, "sedan at rest, disturbed");
    test_jacobian("config/scenarios/dlc_iso3888.yaml", "config/vehicles/hmmwv.yaml",
                  "hmmwv at 20 m/s, disturbed");
    test_statics("config/vehicles/sedan.yaml", "sedan");
    test_statics("config/vehicles/hmmwv.yaml", "hmmwv");
    test_rest();
    test_slope();
    test_accel_brake();
    test_reverse();
    return vt_report("test_vehicle");
}
