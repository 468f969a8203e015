/* app/cmd_sim.c - rtvd sim: integrate a model as fast as possible and write time series. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "core/data.h"
#include "core/linalg.h"
#include "core/statics.h"
#include "core/step.h"
#include "io/record.h"
#include "rt/clock.h"

#define SIM_TABLE_COLS 6

static void sim_usage(FILE *f)
{
    fprintf(f,
            "usage: rtvd sim [MODEL.yaml] [options]\n"
            "\n"
            "Integrate MODEL (default: the embedded quarter car, config/models/quarter_car.yaml)\n"
            "as fast as possible. Inputs follow the `signal:` of each input in the model.\n"
            "\n"
            "  --solver lie|lsrt2        integrator (default: the model's solver.method)\n"
            "  --stage2 linearized|nonlinear\n"
            "                            LSRT2 second stage: linearized forces (default) or\n"
            "                            the W-form with forces at the stage point\n"
            "  --dt S                    step [s], (0, 0.1] (default: solver.dt)\n"
            "  --relin K                 refresh the linearization every K steps\n"
            "  --duration S              simulated time [s] (default 10)\n"
            "  --static                  start from the static equilibrium (Newton)\n"
            "  --out FILE.csv            write the signals every --every steps (- = stdout)\n"
            "  --every N                 record every N-th step (default 1)\n"
            "  --signals a,b,...         signals to record (default: pose of every body);\n"
            "                            names are <element>.<component>\n"
            "  --list-signals            print every signal name of the model and exit\n"
            "  --help                    this text\n"
            "\n"
            "Without --out the first 6 signals are printed at 11 instants. Exit status 0, or 1\n"
            "if the model does not load or a step fails (NaN, singular matrix).\n");
}

static void print_name(void *ctx, const char *name)
{
    (void)ctx;
    puts(name);
}

/* default selection: the reference-frame pose of every body */
static char *default_signals(const struct vd_model *m)
{
    static const char *const c[] = {"x", "y", "z", "az", "ay", "ax"};
    size_t len = 1, at = 0;
    char *s;

    for (int b = 0; b < m->nbody; b++)
        len += 6 * (strlen(m->body[b].name) + 5);
    s = malloc(len);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (int b = 0; b < m->nbody; b++)
        for (int k = 0; k < 6; k++)
            at +=
                (size_t)snprintf(s + at, len - at, "%s%s.%s", at ? "," : "", m->body[b].name, c[k]);
    return s;
}

int cmd_sim(int argc, char **argv)
{
    static const struct option lopts[] = {
        {"solver", required_argument, 0, 's'},   {"stage2", required_argument, 0, '2'},
        {"dt", required_argument, 0, 'd'},       {"relin", required_argument, 0, 'k'},
        {"duration", required_argument, 0, 'T'}, {"out", required_argument, 0, 'o'},
        {"every", required_argument, 0, 'e'},    {"signals", required_argument, 0, 'S'},
        {"list-signals", no_argument, 0, 'L'},   {"static", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},           {0, 0, 0, 0}};
    struct app_solver_opts so;
    struct app_model am;
    struct vd_data *d = NULL;
    struct vd_signal *sig = NULL;
    char **names = NULL, *deflist = NULL;
    const char *out = NULL, *siglist = NULL;
    double duration = 10.0, *vals = NULL;
    long every = 1, nsteps, s;
    int nsig = 0, c, rc = 1, list = 0, statics = 0;
    struct vd_record rec = {0};
    FILE *info;
    int64_t t0, t1;
    char blas[256];

    app_solver_opts_init(&so);
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (app_parse_solver(&so, "solver", optarg))
                return 2;
            break;
        case '2':
            if (app_parse_solver(&so, "stage2", optarg))
                return 2;
            break;
        case 'd':
            if (app_parse_solver(&so, "dt", optarg))
                return 2;
            break;
        case 'k':
            if (app_parse_solver(&so, "relin", optarg))
                return 2;
            break;
        case 'T':
            if (app_parse_double(optarg, &duration) || !(duration > 0.0)) {
                fprintf(stderr, "rtvd sim: invalid --duration '%s'\n", optarg);
                return 2;
            }
            break;
        case 'o':
            out = optarg;
            break;
        case 'e':
            if (app_parse_long(optarg, &every) || every < 1) {
                fprintf(stderr, "rtvd sim: invalid --every '%s'\n", optarg);
                return 2;
            }
            break;
        case 'S':
            siglist = optarg;
            break;
        case 'L':
            list = 1;
            break;
        case 'q':
            statics = 1;
            break;
        case 'h':
            sim_usage(stdout);
            return 0;
        default:
            sim_usage(stderr);
            return 2;
        }
    }
    if (argc - optind > 1) {
        sim_usage(stderr);
        return 2;
    }
    /* CSV on stdout: the human-readable lines go to stderr */
    info = out && !strcmp(out, "-") ? stderr : stdout;
    if (app_load_model(optind < argc ? argv[optind] : NULL, &so, &am))
        return 1;
    if (list) {
        vd_signal_list(am.m, print_name, NULL);
        rc = 0;
        goto out_model;
    }
    if (vd_blas_init(blas, sizeof(blas)))
        fprintf(stderr, "rtvd sim: warning: BLAS runs more than one thread: %s\n", blas);
    if (!siglist)
        siglist = deflist = default_signals(am.m);
    if (!siglist || app_resolve_signals(am.m, siglist, &sig, &names, &nsig))
        goto out_model;
    vals = calloc((size_t)nsig, sizeof(double));
    d = vd_data_new(am.m);
    if (!vals || !d || vd_solver_warmup(am.m, d)) {
        fprintf(stderr, "rtvd sim: out of memory\n");
        goto out_data;
    }
    d->input_fn = vd_cfg_sources_eval;
    d->input_ctx = am.src;
    vd_cfg_sources_eval(am.src, 0.0, d->u);
    if (statics) {
        int it = vd_equilibrate(am.m, d, 100, 1e-6);

        if (it < 0) {
            fprintf(stderr, "rtvd sim: no static equilibrium found (%d)\n", it);
            goto out_data;
        }
        fprintf(info, "static equilibrium after %d Newton iterations\n", it);
    }
    nsteps = lround(duration / am.m->opt.dt);
    fprintf(info, "model %s (%s): %d bodies, %d DOF, %d bushings, %d p2p, %d inputs\n", am.m->name,
            am.path, am.m->nbody, am.m->nq, am.m->nbush, am.m->np2p, am.m->ninput);
    fprintf(info, "solver %s, dt %g s, relinearize every %d step%s, %ld steps (%g s)\n",
            app_method_name(am.m), am.m->opt.dt, am.m->opt.relin, am.m->opt.relin > 1 ? "s" : "",
            nsteps, (double)nsteps * am.m->opt.dt);
    if (out && vd_record_open(&rec, out, nsig, (const char *const *)names)) {
        fprintf(stderr, "rtvd sim: cannot write %s\n", out);
        goto out_data;
    }
    if (!out) {
        /* the table shows the first columns; --out records them all */
        printf("%10s", "t [s]");
        for (int i = 0; i < nsig && i < SIM_TABLE_COLS; i++)
            printf(" %14.14s", names[i]);
        printf(nsig > SIM_TABLE_COLS ? "   (+%d more with --out)\n" : "\n", nsig - SIM_TABLE_COLS);
    }
    t0 = vd_clock_now();
    for (s = 0; s <= nsteps; s++) {
        bool rec_now = out && s % every == 0;
        bool print_now = !out && (s % (nsteps / 10 ? nsteps / 10 : 1) == 0 || s == nsteps);

        if (rec_now || print_now) {
            vd_cfg_sources_eval(am.src, d->t, d->u);
            if (vd_outputs(am.m, d)) {
                fprintf(stderr, "rtvd sim: non-finite forces at t = %g s\n", d->t);
                goto out_rec;
            }
            for (int i = 0; i < nsig; i++)
                vals[i] = vd_signal_value(am.m, d, &sig[i]);
            if (rec_now && vd_record_row(&rec, d->t, vals)) {
                fprintf(stderr, "rtvd sim: write error on %s\n", out);
                goto out_rec;
            }
            if (print_now) {
                printf("%10.4f", d->t);
                for (int i = 0; i < nsig && i < SIM_TABLE_COLS; i++)
                    printf(" %14.6g", vals[i]);
                printf("\n");
            }
        }
        if (s == nsteps)
            break;
        if (vd_step(am.m, d)) {
            fprintf(stderr,
                    "rtvd sim: step %ld failed at t = %g s (non-finite %llu, singular %llu)\n", s,
                    d->t, (unsigned long long)d->warn[VD_WARN_NONFINITE],
                    (unsigned long long)d->warn[VD_WARN_SINGULAR]);
            goto out_rec;
        }
    }
    t1 = vd_clock_now();
    {
        double wall = (double)(t1 - t0) * 1e-9, sim = (double)nsteps * am.m->opt.dt;

        fprintf(info,
                "done: %ld steps, %.3f s simulated in %.3f s wall (real-time factor %.4f, "
                "%.1f us/step incl. output)\n",
                nsteps, sim, wall, wall / sim, wall / (double)(nsteps ? nsteps : 1) * 1e6);
    }
    if (d->warn[VD_WARN_CARDAN] || d->warn[VD_WARN_DEGENERATE])
        fprintf(info, "warnings: %llu near-singular Cardan evaluations, %llu degenerate p2p\n",
                (unsigned long long)d->warn[VD_WARN_CARDAN],
                (unsigned long long)d->warn[VD_WARN_DEGENERATE]);
    rc = 0;
out_rec:
    if (out && vd_record_close(&rec)) {
        fprintf(stderr, "rtvd sim: write error on %s\n", out);
        rc = 1;
    }
out_data:
    vd_data_free(d);
    free(vals);
    app_free_signals(sig, names, nsig);
    free(deflist);
out_model:
    app_free_model(&am);
    return rc;
}
