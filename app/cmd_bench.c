/* app/cmd_bench.c - rtvd bench: time every step with CLOCK_MONOTONIC after a warm-up and
 * report the distribution (a benchmark: no pass/fail on timings). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "app.h"
#include "core/data.h"
#include "core/linalg.h"
#include "core/step.h"
#include "rt/clock.h"

static void bench_usage(FILE *f)
{
    fprintf(f,
            "usage: rtvd bench [MODEL.yaml] [options]\n"
            "\n"
            "Time every step of MODEL (default: the embedded quarter car) with CLOCK_MONOTONIC\n"
            "after a warm-up, and print the distribution (min, median, p99, p99.9, max) and the\n"
            "real-time factor rtf = median step time / dt, plus the median of each stage.\n"
            "A benchmark: timings are reported, never judged.\n"
            "\n"
            "  --solver lie|lsrt2        integrator (default: the model's solver.method)\n"
            "  --stage2 linearized|nonlinear   LSRT2 second stage (default linearized)\n"
            "  --dt S                    step [s] (default: solver.dt)\n"
            "  --relin K                 refresh the linearization every K steps\n"
            "  --linear dense|structured linear solve (default: the model's solver.linear)\n"
            "  --steps N                 timed steps (default 5000)\n"
            "  --warmup N                untimed steps first (default 200)\n"
            "  --json FILE               also write the results as JSON (- = stdout)\n"
            "  --help                    this text\n");
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

/* nearest-rank percentile of a sorted array */
static double pct_us(const int64_t *sorted, long n, double p)
{
    long k = (long)(p / 100.0 * (double)n + 0.999999) - 1;

    if (k < 0)
        k = 0;
    if (k >= n)
        k = n - 1;
    return (double)sorted[k] * 1e-3;
}

static const char *const stage_names[VD_STAGE_COUNT] = {"linearize", "assemble", "factor",
                                                        "stages"};

int cmd_bench(int argc, char **argv)
{
    static const struct option lopts[] = {
        {"solver", required_argument, 0, 's'}, {"stage2", required_argument, 0, '2'},
        {"dt", required_argument, 0, 'd'},     {"relin", required_argument, 0, 'k'},
        {"steps", required_argument, 0, 'n'},  {"warmup", required_argument, 0, 'w'},
        {"json", required_argument, 0, 'j'},   {"linear", required_argument, 0, 'l'},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
    struct app_solver_opts so;
    struct app_model am;
    struct vd_data *d = NULL;
    long steps = 5000, warmup = 200;
    const char *json = NULL;
    int64_t *t = NULL, *st[VD_STAGE_COUNT] = {0};
    double stage_p50[VD_STAGE_COUNT];
    int c, rc = 1, linear = -1;
    char blas[256];

    app_solver_opts_init(&so);
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
        switch (c) {
        case 's':
        case '2':
        case 'd':
        case 'k':
            if (app_parse_solver(&so,
                                 c == 's'   ? "solver"
                                 : c == '2' ? "stage2"
                                 : c == 'd' ? "dt"
                                            : "relin",
                                 optarg))
                return 2;
            break;
        case 'n':
        case 'w': {
            long v;

            if (app_parse_long(optarg, &v) || v < (c == 'n' ? 1 : 0) || v > 100000000) {
                fprintf(stderr, "rtvd bench: invalid --%s '%s'\n", c == 'n' ? "steps" : "warmup",
                        optarg);
                return 2;
            }
            *(c == 'n' ? &steps : &warmup) = v;
            break;
        }
        case 'j':
            json = optarg;
            break;
        case 'l':
            if (!strcmp(optarg, "dense")) {
                linear = VD_LINEAR_DENSE;
            } else if (!strcmp(optarg, "structured")) {
                linear = VD_LINEAR_STRUCTURED;
            } else {
                fprintf(stderr, "rtvd bench: invalid --linear '%s' (dense|structured)\n", optarg);
                return 2;
            }
            break;
        case 'h':
            bench_usage(stdout);
            return 0;
        default:
            bench_usage(stderr);
            return 2;
        }
    }
    if (argc - optind > 1) {
        bench_usage(stderr);
        return 2;
    }
    if (app_load_model(optind < argc ? argv[optind] : NULL, &so, &am))
        return 1;
    if (linear >= 0)
        am.m->opt.linear = linear; /* before vd_data_new, which sizes for it */
    if (vd_blas_init(blas, sizeof(blas)))
        fprintf(stderr, "rtvd bench: warning: BLAS runs more than one thread: %s\n", blas);
    t = calloc((size_t)steps, sizeof(*t));
    for (int k = 0; k < VD_STAGE_COUNT; k++)
        st[k] = calloc((size_t)steps, sizeof(int64_t));
    d = vd_data_new(am.m);
    if (!t || !d || !st[VD_STAGE_COUNT - 1] || vd_solver_warmup(am.m, d)) {
        fprintf(stderr, "rtvd bench: out of memory\n");
        goto out;
    }
    d->input_fn = vd_cfg_sources_eval;
    d->input_ctx = am.src;
    for (long s = 0; s < warmup; s++)
        if (vd_step(am.m, d)) {
            fprintf(stderr, "rtvd bench: warm-up step %ld failed\n", s);
            goto out;
        }
    for (long s = 0; s < steps; s++) {
        int64_t a = vd_clock_now(), b;
        int r = vd_step(am.m, d);

        b = vd_clock_now();
        if (r) {
            fprintf(stderr, "rtvd bench: step %ld failed\n", s);
            goto out;
        }
        t[s] = b - a;
        for (int k = 0; k < VD_STAGE_COUNT; k++)
            st[k][s] = d->stage_ns[k];
    }
    qsort(t, (size_t)steps, sizeof(*t), cmp_i64);
    for (int k = 0; k < VD_STAGE_COUNT; k++) {
        qsort(st[k], (size_t)steps, sizeof(int64_t), cmp_i64);
        stage_p50[k] = pct_us(st[k], steps, 50.0);
    }
    {
        const double mn = (double)t[0] * 1e-3, p50 = pct_us(t, steps, 50.0);
        const double p99 = pct_us(t, steps, 99.0), p999 = pct_us(t, steps, 99.9);
        const double mx = (double)t[steps - 1] * 1e-3, rtf = p50 * 1e-6 / am.m->opt.dt;
        struct utsname un;

        uname(&un);
        printf("model %s: %d DOF, solver %s, dt %g s, relin %d, %ld steps after %ld warm-up\n",
               am.m->name, am.m->nq, app_method_name(am.m), am.m->opt.dt, am.m->opt.relin, steps,
               warmup);
        printf("BLAS: %s\n", blas);
        printf("step time [us]   min %9.2f   p50 %9.2f   p99 %9.2f   p99.9 %9.2f   max %9.2f\n", mn,
               p50, p99, p999, mx);
        printf("real-time factor (p50 / dt) %.4f\n", rtf);
        printf("stage medians [us]:");
        for (int k = 0; k < VD_STAGE_COUNT; k++)
            printf("  %s %.2f", stage_names[k], stage_p50[k]);
        printf("\n");
        if (json) {
            FILE *f = strcmp(json, "-") ? fopen(json, "w") : stdout;

            if (!f) {
                fprintf(stderr, "rtvd bench: cannot write %s\n", json);
                goto out;
            }
            fprintf(f,
                    "{\n  \"model\": \"%s\",\n  \"solver\": \"%s\",\n  \"dof\": %d,\n"
                    "  \"steps\": %ld,\n  \"warmup\": %ld,\n  \"dt_s\": %.9g,\n"
                    "  \"relin\": %d,\n  \"min_us\": %.3f,\n  \"p50_us\": %.3f,\n"
                    "  \"p99_us\": %.3f,\n  \"p999_us\": %.3f,\n  \"max_us\": %.3f,\n"
                    "  \"rtf\": %.6f,\n  \"stage_p50_us\": {",
                    am.m->name, app_method_name(am.m), am.m->nq, steps, warmup, am.m->opt.dt,
                    am.m->opt.relin, mn, p50, p99, p999, mx, rtf);
            for (int k = 0; k < VD_STAGE_COUNT; k++)
                fprintf(f, "%s\"%s\": %.3f", k ? ", " : "", stage_names[k], stage_p50[k]);
            fprintf(f,
                    "},\n  \"linear\": \"dense\",\n  \"blas\": \"%s\",\n"
                    "  \"version\": \"%s\",\n  \"git\": \"%s\",\n  \"host\": \"%s %s %s\"\n}\n",
                    blas, VD_VERSION, VD_GIT_REV, un.sysname, un.release, un.machine);
            if (f != stdout && fclose(f)) {
                fprintf(stderr, "rtvd bench: write error on %s\n", json);
                goto out;
            }
        }
    }
    rc = 0;
out:
    vd_data_free(d);
    free(t);
    for (int k = 0; k < VD_STAGE_COUNT; k++)
        free(st[k]);
    app_free_model(&am);
    return rc;
}
