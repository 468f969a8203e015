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
    fprintf(f,
            "usage: rtvd modes [MODEL.yaml | SCENARIO.yaml] [options]\n"
            "\n"
            "The vibration modes of a model (default: the embedded quarter car) or a scenario's\n"
            "vehicle at rest at its static equilibrium: the analytic linearization the solvers\n"
            "use (bodies, bushings, springs, dampers, tyres with their carcass states), the\n"
            "generalized eigenproblem solved by LAPACK (dggev). Per mode: the undamped\n"
            "natural frequency, the damping ratio and a name from the dominant coordinates\n"
            "(body bounce / pitch / roll, wheel hop / spin / steer per corner or axle,\n"
            "steering, ...), with the body that moves most and its share.\n"
            "\n"
            "  --vehicle FILE.yaml  a scenario with this vehicle instead of its own\n"
            "  --max-hz F           list the modes up to F Hz (default 40; 0: all)\n"
            "  --all                also the overdamped (real) modes\n"
            "  --detail             per mode the four body coordinates that move most\n"
            "  --check              check the vehicle's ride modes against the physical ranges\n"
            "                       (see README, \"Vehicle modes\"): exit status 1 when one\n"
            "                       is outside or a motion other than those of a vehicle on\n"
            "                       its tyres has no stiffness\n"
            "  --help               this text\n"
            "\n"
            "Exit status 0, 1 (a check failed, or no equilibrium), 2 (usage).\n");
}

struct modes_opts {
    double max_hz;
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
    printf("  %-3s %9s %7s  %-36s %-28s %s\n", "#", "f [Hz]", "zeta", "mode", "dominant body",
           "share");
    for (int i = 0, k = 0; i < n; i++) {
        char dom[80];

        if (md[i].kind == VD_MODE_REAL && !o->all)
            continue;
        if (o->max_hz > 0.0 && md[i].freq > o->max_hz && md[i].kind != VD_MODE_ZERO)
            continue;
        snprintf(dom, sizeof(dom), "%.20s %s", m->body[md[i].body].name,
                 vd_mode_coord_name(md[i].coord));
        printf("  %-3d %9.3f %7.3f  %-36s %-28s %3.0f %%%s%s\n", ++k, md[i].freq, md[i].zeta,
               md[i].name, dom, 100.0 * md[i].group_share, md[i].kind ? "  " : "",
               kind_name(md[i].kind));
        if (o->detail) {
            printf("        ");
            printf(" [tyre states %.0f%%]", 100.0 * md[i].zshare);
            for (int t = 0; t < 4 && md[i].top[t].share > 0.0; t++)
                printf(" %s %s %.0f%%", m->body[md[i].top[t].body].name,
                       vd_mode_coord_name(md[i].top[t].coord), 100.0 * md[i].top[t].share);
            printf("\n");
        }
    }
}

/* The ranges of --check (README, "Vehicle modes"):
 * - body bounce, pitch and roll 0.8-3 Hz: passenger cars ride at 1-1.5 Hz, sports cars up to
 *   2-2.5 Hz (Milliken & Milliken, Race Car Vehicle Dynamics, SAE 1995, ch. 16; Gillespie,
 *   Fundamentals of Vehicle Dynamics, SAE 1992, ch. 5), with a margin for off-road trucks;
 * - wheel hop 8-20 Hz with a damping ratio >= 0.1: the unsprung mass on tyre plus suspension
 *   rate, 10-15 Hz for cars (Gillespie ch. 5; Dixon, The Shock Absorber Handbook, 2007);
 * - no unstable mode, and below 0.5 Hz (under every ride mode) only the fore-aft rolling of a
 *   vehicle on free wheels. Returns the number of violations (printed). */
static int check_modes(const struct vd_model *m, const struct vd_mode *md, int n)
{
    int bad = 0, hop = 0;

    for (int i = 0; i < n; i++) {
        const struct vd_mode *x = &md[i];
        const char *why = NULL;

        if (x->kind == VD_MODE_UNSTABLE)
            why = "unstable";
        else if ((x->kind == VD_MODE_ZERO || x->freq < 0.5) && strcmp(x->name, "body fore-aft"))
            why = "no or near-zero stiffness (only the fore-aft rolling may have none)";
        else if (x->kind == VD_MODE_OSC &&
                 (!strcmp(x->name, "body bounce") || !strcmp(x->name, "body pitch") ||
                  !strcmp(x->name, "body roll")) &&
                 (x->freq < 0.8 || x->freq > 3.0))
            why = "outside 0.8-3 Hz";
        else if (x->kind == VD_MODE_OSC && !strncmp(x->name, "wheel hop", 9)) {
            hop++;
            if (x->freq < 8.0 || x->freq > 20.0)
                why = "outside 8-20 Hz";
            else if (x->zeta < 0.1)
                why = "damping ratio below 0.1";
        }
        if (why) {
            printf("check: FAIL %s %.3f Hz zeta %.3f (%s %s): %s\n", x->name, x->freq, x->zeta,
                   m->body[x->body].name, vd_mode_coord_name(x->coord), why);
            bad++;
        }
    }
    if (m->ntire > 0 && hop < m->ntire / 2) {
        printf("check: FAIL %d oscillating wheel hop modes, at least %d expected\n", hop,
               m->ntire / 2);
        bad++;
    }
    printf("check: %s (%d violation%s)\n", bad ? "FAIL" : "PASS", bad, bad == 1 ? "" : "s");
    return bad;
}

int cmd_modes(int argc, char **argv)
{
    static const struct option lopts[] = {{"vehicle", required_argument, 0, 'v'},
                                          {"max-hz", required_argument, 0, 'f'},
                                          {"all", no_argument, 0, 'a'},
                                          {"check", no_argument, 0, 'c'},
                                          {"detail", no_argument, 0, 'd'},
                                          {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
    struct modes_opts o = {.max_hz = 40.0};
    struct app_solver_opts so;
    struct app_model am;
    struct vd_data *d = NULL;
    struct vd_mode *md = NULL;
    char blas[160];
    int c, n, it, rc = 1;

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
    if (app_load_model(optind < argc ? argv[optind] : NULL, &so, &am))
        return 1;
    if (vd_blas_init(blas, sizeof(blas)))
        fprintf(stderr, "rtvd modes: warning: BLAS runs more than one thread: %s\n", blas);
    d = vd_data_new(am.m);
    md = calloc((size_t)(2 * am.m->nq + am.m->nz), sizeof(*md));
    if (!d || !md || vd_solver_warmup(am.m, d)) {
        fprintf(stderr, "rtvd modes: out of memory\n");
        goto out;
    }
    /* the start state (a scenario's pose and inputs at t = 0), then at rest: v = 0 and the
     * static equilibrium for those inputs */
    if (app_start(&am, d, true, stderr))
        goto out;
    it = vd_equilibrate(am.m, d, 100, 1e-6);
    if (it < 0) {
        fprintf(stderr, "rtvd modes: %s: no static equilibrium at rest (%d)\n", am.path, it);
        goto out;
    }
    n = vd_modes(am.m, d, ZERO_HZ, md, 2 * am.m->nq + am.m->nz);
    if (n < 0) {
        fprintf(stderr, "rtvd modes: %s: eigenproblem failed (%d)\n", am.path, n);
        goto out;
    }
    printf("modes of %s (%s) at rest: %d bodies, %d DOF, %d tyre states\n", am.m->name, am.path,
           am.m->nbody, am.m->nq, am.m->nz);
    print_table(am.m, md, n, &o);
    rc = o.check && check_modes(am.m, md, n) ? 1 : 0;
out:
    free(md);
    vd_data_free(d);
    app_free_model(&am);
    return rc;
}
