/* app/cmd_modes.c - rtvd modes: the vibration modes of a model or a scenario's vehicle at its
 * static equilibrium (core/modes.h), as a table, with --check the physical ranges every
 * shipped vehicle must keep. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "config/scenario.h"
#include "core/data.h"
#include "core/linalg.h"
#include "core/modes.h"
#include "core/statics.h"
#include "core/step.h"

/* below this an eigenvalue is a motion without stiffness [Hz]: round-off of the QZ on the
 * vehicles puts those at |lambda| ~ 1e-6 1/s, the slowest restrained motion (a car on its
 * tyres' carcass springs) is above 0.3 Hz */
#define ZERO_HZ 0.01

static void modes_usage(FILE *f)
{
    fprintf(
        f, "usage: rtvd modes [MODEL.yaml | SCENARIO.yaml] [options]\n"
           "\n"
           "The vibration modes of a model (default: the embedded quarter car) or a scenario's\n"
           "vehicle at rest at its static equilibrium: the analytic linearization the solvers\n"
           "use (bodies, bushings, springs, dampers, tyres with their carcass states), the\n"
           "generalized eigenproblem solved by LAPACK (dggev). Per mode: the undamped\n"
           "natural frequency, the damping ratio and a name from the dominant coordinates\n"
           "(body bounce / pitch / roll, wheel hop / spin / steer per corner or axle,\n"
           "steering, ...), with the body that moves most and its share. A model with\n"
           "ideal joints is linearized on its constraint manifold (the null space of the\n"
           "constraint Jacobian, with the joints' geometric stiffness): the modes of its\n"
           "free coordinates.\n"
           "\n"
           "  --vehicle FILE.yaml  a scenario with this vehicle instead of its own\n"
           "  --max-hz F           list the modes up to F Hz (default 40; 0: all)\n"
           "  --all                also the overdamped (real) modes\n"
           "  --detail             per mode the four body coordinates that move most\n"
           "  --at T               not at rest: run the scenario (its driver, inputs) or the\n"
           "                       model T seconds from its start and linearize about that\n"
           "                       state (a vehicle rolling at speed: the modes with the\n"
           "                       tyres' slip forces instead of their grip at rest); only\n"
           "                       the damped modes (the slip forces are velocity terms)\n"
           "  --check              at rest: check the ride modes against physical ranges (README,\n"
           "                       \"Vehicle modes\"): undamped body bounce, pitch, roll\n"
           "                       0.8-3 Hz, wheel hop 8-20 Hz with a damping ratio >= 0.1,\n"
           "                       nothing unstable, at most one eigenvalue without\n"
           "                       stiffness per tyre carcass state plus free rolling, and\n"
           "                       below 0.5 Hz only the motions of a vehicle on tyres;\n"
           "                       exit status 1 otherwise\n"
           "  --help               this text\n"
           "\n"
           "Exit status 0, 1 (a check failed, or no equilibrium), 2 (usage).\n");
}

struct modes_opts {
    double max_hz;
    double at; /* [s] < 0: at rest */
    bool all, check, detail;
};

static const char *kind_name(int k)
{
    switch (k) {
    case VD_MODE_OSC:
        return "";
    case VD_MODE_REAL:
        return "overdamped";
    case VD_MODE_ZERO:
        return "no stiffness";
    default:
        return "UNSTABLE";
    }
}

static void print_table(const struct vd_model *m, const struct vd_mode *md, int n,
                        const struct modes_opts *o)
{
    printf("  %-3s %9s %7s %6s  %-36s %-28s %s\n", "#", "f [Hz]", "zeta", "tyres", "mode",
           "dominant body", "share");
    for (int i = 0, k = 0; i < n; i++) {
        char dom[80];

        if (md[i].kind == VD_MODE_REAL && !o->all)
            continue;
        if (o->max_hz > 0.0 && md[i].freq > o->max_hz && md[i].kind != VD_MODE_ZERO)
            continue;
        snprintf(dom, sizeof(dom), "%.20s %s", m->body[md[i].body].name,
                 vd_mode_coord_name(md[i].coord));
        printf("  %-3d %9.3f %7.3f %5.0f%%  %-36s %-28s %3.0f %%%s%s\n", ++k, md[i].freq,
               md[i].zeta, 100.0 * md[i].tire_share, md[i].name, dom, 100.0 * md[i].group_share,
               md[i].kind ? "  " : "", kind_name(md[i].kind));
        if (o->detail) {
            printf("        ");
            printf(" [tyre states %.0f%%, rigid %.0f%%]", 100.0 * md[i].zshare,
                   100.0 * md[i].rigid_share);
            for (int t = 0; t < 4 && md[i].top[t].share > 0.0; t++)
                printf(" %s %s %.0f%%", m->body[md[i].top[t].body].name,
                       vd_mode_coord_name(md[i].top[t].coord), 100.0 * md[i].top[t].share);
            printf("\n");
        }
    }
}

/* The ranges of --check (README, "Vehicle modes"), on the undamped natural frequencies
 * sqrt(k / m) / 2 pi (the damping terms Jv left out), which is what the ride literature
 * quotes, and on the damping ratios of the damped modes:
 * - body bounce, pitch and roll 0.8-3 Hz (the suspension's: a mode with more than half of its
 *   stiffness in the tyres' horizontal carcass springs is the vehicle rocking on its tyres, "on
 *   tyres", which the ride models, tyres as vertical springs, do not have): passenger cars
 *   ride at 1-1.5 Hz, sports cars up to 2-2.5 Hz (Milliken & Milliken, Race Car Vehicle
 *   Dynamics, SAE 1995, ch. 16; Gillespie, Fundamentals of Vehicle Dynamics, SAE 1992, ch. 5),
 *   with a margin for off-road trucks;
 * - wheel hop 8-20 Hz, one mode per tyre: the unsprung mass on tyre plus suspension rate,
 *   10-15 Hz for cars (Gillespie ch. 5); damping ratio of the damped wheel hop >= 0.1 (wheel
 *   hop damped within a cycle or two);
 * - no unstable mode; eigenvalues without stiffness (below 0.01 Hz): at most one per tyre
 *   carcass state (at rest z' depends on the velocities only, so each state and the contact
 *   displacement it integrates are one coordinate twice: a zero eigenvalue each) and two for
 *   the free rolling of the vehicle. They are counted, not named: their eigenvalue is
 *   defective, and a vector of a defective cluster is determined only to about eps^(1/k)
 *   (the naming would depend on the BLAS kernel). A motion below 0.5 Hz (under every ride
 *   mode) with a simple eigenvalue must be at least 99 % in the x, y and yaw of the bodies
 *   and the spin of the wheels and shafts, or in the tyre carcass states. Returns the number
 *   of violations (printed). */
static void violation(const struct vd_model *m, const struct vd_mode *x, const char *what,
                      const char *why, int *bad)
{
    printf("check: FAIL %s %s %.3f Hz zeta %.3f (%s %s): %s\n", what, x->name, x->freq, x->zeta,
           m->body[x->body].name, vd_mode_coord_name(x->coord), why);
    (*bad)++;
}

static bool ride_mode(const char *name)
{
    return !strcmp(name, "body bounce") || !strcmp(name, "body pitch") ||
           !strcmp(name, "body roll");
}

static int check_modes(const struct vd_model *m, const struct vd_mode *md, int n,
                       const struct vd_mode *mu, int nu)
{
    int bad = 0, hop = 0, nzero = 0;

    /* the damped modes: stability, motions without stiffness, the damping of wheel hop */
    for (int i = 0; i < n; i++) {
        const struct vd_mode *x = &md[i];

        if (x->kind == VD_MODE_UNSTABLE)
            violation(m, x, "mode", "unstable", &bad);
        else if (x->kind == VD_MODE_ZERO)
            nzero++;
        else if (x->freq < 0.5 && x->zshare < 0.5 && x->rigid_share < 0.99)
            violation(m, x, "mode",
                      "near-zero stiffness in a motion a vehicle on tyres does not have", &bad);
        else if (x->kind == VD_MODE_OSC && !strncmp(x->name, "wheel hop", 9) && x->zeta < 0.1)
            violation(m, x, "mode", "damping ratio below 0.1", &bad);
    }
    /* the undamped natural frequencies: the ride modes and wheel hop */
    for (int i = 0; i < nu; i++) {
        const struct vd_mode *x = &mu[i];

        if (x->kind != VD_MODE_OSC)
            continue;
        if (ride_mode(x->name) && (x->freq < 0.8 || x->freq > 3.0))
            violation(m, x, "undamped", "outside 0.8-3 Hz", &bad);
        if (!strncmp(x->name, "wheel hop", 9)) {
            hop++;
            if (x->freq < 8.0 || x->freq > 20.0)
                violation(m, x, "undamped", "outside 8-20 Hz", &bad);
        }
    }
    if (nzero > m->nz + 2) {
        printf("check: FAIL %d eigenvalues without stiffness: at most %d expected (one per tyre "
               "carcass state, two for free rolling)\n",
               nzero, m->nz + 2);
        bad++;
    }
    if (hop < m->ntire) {
        printf("check: FAIL %d undamped wheel hop modes, one per tyre (%d) expected\n", hop,
               m->ntire);
        bad++;
    }
    printf("check: %s (%d violation%s)\n", bad ? "FAIL" : "PASS", bad, bad == 1 ? "" : "s");
    return bad;
}

int cmd_modes(int argc, char **argv)
{
    static const struct option lopts[] = {
        {"vehicle", required_argument, 0, 'v'}, {"max-hz", required_argument, 0, 'f'},
        {"all", no_argument, 0, 'a'},           {"check", no_argument, 0, 'c'},
        {"detail", no_argument, 0, 'd'},        {"at", required_argument, 0, 't'},

        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    struct modes_opts o = {.max_hz = 40.0, .at = -1.0};
    struct app_solver_opts so;
    struct app_model am;
    struct vd_data *d = NULL;
    struct vd_mode *md = NULL, *mu = NULL;
    char blas[160];
    int c, n, nu, it, rc = 1;

    app_solver_opts_init(&so);
    while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
        switch (c) {
        case 'v':
            so.vehicle = optarg;
            break;
        case 'f':
            if (app_parse_double(optarg, &o.max_hz) || !(o.max_hz >= 0.0) || o.max_hz > 1e6) {
                fprintf(stderr, "rtvd modes: --max-hz: '%s' is not a frequency in [0, 1e6]\n",
                        optarg);
                return 2;
            }
            break;
        case 'a':
            o.all = true;
            break;
        case 'c':
            o.check = true;
            break;
        case 'd':
            o.detail = true;
            break;
        case 't':
            if (app_parse_double(optarg, &o.at) || !(o.at >= 0.0) || o.at > 3600.0) {
                fprintf(stderr, "rtvd modes: --at: '%s' is not a time in [0, 3600] s\n", optarg);
                return 2;
            }
            break;
        case 'h':
            modes_usage(stdout);
            return 0;
        default:
            modes_usage(stderr);
            return 2;
        }
    }
    if (optind + 1 < argc) {
        modes_usage(stderr);
        return 2;
    }
    if (o.check && o.at >= 0.0) {
        /* at speed the tyres' forces depend on the velocities (slip): without Jv there is no
         * undamped system to compare with the ride literature's frequencies */
        fprintf(stderr, "rtvd modes: --check applies to the modes at rest, not with --at\n");
        return 2;
    }
    if (app_load_model(optind < argc ? argv[optind] : NULL, &so, &am))
        return 1;
    if (vd_blas_init(blas, sizeof(blas)))
        fprintf(stderr, "rtvd modes: warning: BLAS runs more than one thread: %s\n", blas);
    d = vd_data_new(am.m);
    md = calloc((size_t)(2 * am.m->nq + am.m->nz), sizeof(*md));
    mu = calloc((size_t)(2 * am.m->nq + am.m->nz), sizeof(*mu));
    if (!d || !md || !mu || vd_solver_warmup(am.m, d)) {
        fprintf(stderr, "rtvd modes: out of memory\n");
        goto out;
    }
    /* the start state (a scenario's pose and inputs at t = 0), then at rest: v = 0 and the
     * static equilibrium for those inputs; or the state T seconds later */
    if (app_start(&am, d, true, stderr))
        goto out;
    if (o.at < 0.0) {
        memset(d->v, 0, (size_t)am.m->nq * sizeof(double));
        it = vd_equilibrate(am.m, d, 100, 1e-6);
        if (it < 0) {
            fprintf(stderr, "rtvd modes: %s: no static equilibrium at rest (%d)\n", am.path, it);
            goto out;
        }
    } else {
        long steps = lround(o.at / am.m->opt.dt);

        for (long k = 0; k < steps; k++) {
            if (vd_step(am.m, d)) {
                fprintf(stderr, "rtvd modes: %s: step %ld failed\n", am.path, k);
                goto out;
            }
        }
    }
    n = vd_modes(am.m, d, ZERO_HZ, false, md, 2 * am.m->nq + am.m->nz);
    nu = n < 0 || o.at >= 0.0 ? 0 : vd_modes(am.m, d, ZERO_HZ, true, mu, 2 * am.m->nq + am.m->nz);
    if (n < 0 || nu < 0) {
        fprintf(stderr, "rtvd modes: %s: eigenproblem failed (%d)\n", am.path, n < 0 ? n : nu);
        goto out;
    }
    if (o.at < 0.0)
        printf("modes of %s (%s) at rest: %d bodies, %d DOF, %d tyre states\n", am.m->name, am.path,
               am.m->nbody, am.m->nq, am.m->nz);
    if (am.m->nc > 0)
        printf("joints: %d constraint rows, the modes of the %d free coordinates\n", am.m->nc,
               am.m->nq - am.m->nc);
    else
        printf("modes of %s (%s) at t = %g s, chassis speed %.2f m/s: %d bodies, %d DOF, %d "
               "tyre states\n",
               am.m->name, am.path, d->t, hypot(d->v[0], d->v[1]), am.m->nbody, am.m->nq, am.m->nz);
    print_table(am.m, md, n, &o);
    if (o.at < 0.0)
        printf("undamped natural frequencies (without the damping terms Jv), ride modes and "
               "wheel hop:\n");
    for (int i = 0; i < nu; i++)
        if (mu[i].kind == VD_MODE_OSC &&
            (!strncmp(mu[i].name, "body ", 5) || !strncmp(mu[i].name, "wheel hop", 9)))
            printf("  %9.3f Hz %5.0f%%  %s\n", mu[i].freq, 100.0 * mu[i].tire_share, mu[i].name);
    rc = o.check && check_modes(am.m, md, n, mu, nu) ? 1 : 0;
out:
    free(mu);
    free(md);
    vd_data_free(d);
    app_free_model(&am);
    return rc;
}
