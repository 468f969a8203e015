/* app/cmd_bench.c - rtvd bench: time every step with CLOCK_MONOTONIC after a warm-up and
 * report the distribution, the stage profile and the linear-algebra work (a benchmark: no
 * pass/fail on timings). */
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "app.h"
#include "app/git_rev.h" /* VD_GIT_REV, generated at build time */
#include "config/tir.h"
#include "core/ce.h"
#include "core/ta.h"
#include "core/csblock.h"
#include "core/csnull.h"
#include "core/cue.h"
#include "core/data.h"
#include "core/linalg.h"
#include "core/step.h"
#include "core/tire.h"
#include "config/run_yaml.h"
#include "rt/clock.h"
#include "rt/tracemark.h"
#include "rt/sched.h"
#include "rt/worker.h"

static void bench_usage(FILE *f)
{
    fprintf(
        f, "usage: rtvd bench [MODEL.yaml] [options]\n"
           "\n"
           "Time every step of MODEL (default: the embedded quarter car; a scenario file\n"
           "starts as `rtvd sim` would) with CLOCK_MONOTONIC after a warm-up, and print the\n"
           "distribution (min, median, p90, p99, p99.9, max), the real-time factor\n"
           "rtf = median step time / dt, the stage profile (linearize, assemble, factor,\n"
           "stages inside the step; outputs, timed apart: the vd_outputs() call of an RT\n"
           "cycle; cues: the motion cues at the driver's head that rtvd run's loop adds with\n"
           "a motion feed) and the linear-algebra work per step.\n"
           "A benchmark: timings are reported, never judged.\n"
           "\n"
           "  --solver lie|lsrt2        integrator (default: the model's solver.method)\n"
           "  --stage2 linearized|nonlinear   LSRT2 second stage (default linearized)\n"
           "  --dt S                    step [s] (default: solver.dt)\n"
           "  --relin K                 refresh the linearization every K steps\n"
           "  --constraints index2|nullspace\n"
           "                            models with joints: the augmented index-2 system or\n"
           "                            the null-space form (default: solver.constraints)\n"
           "  --project none|positions|both\n"
           "                            models with joints: the projection after each step\n"
           "                            (default: solver.project; none: the constraints\n"
           "                            drift, for comparison only)\n"
           "  --vehicle FILE.yaml       a scenario with this vehicle instead of its own\n"
           "  --formulation fa|ce|ta    models with ideal joints: the model form (default:\n"
           "                            solver.formulation): fa every body free and every\n"
           "                            joint a constraint; ce minimal coordinates with the\n"
           "                            double wishbones, multilinks and McPhersons\n"
           "                            embedded; ta a tree over every body\n"
           "                            with the loops' ball joints cut as constraints\n"
           "                            (ce and ta: LIE or LSRT2)\n"
           "  --linear dense|structured linear solve (default: the model's solver.linear)\n"
           "  --steps N                 timed steps (default 5000)\n"
           "  --warmup N                untimed steps first (default 200)\n"
           "  --json FILE               also write the results as JSON (- = stdout)\n"
           "  --cpu N|auto|none         pin the stepping thread to CPU N (auto: the highest\n"
           "                            isolated CPU, else the highest allowed one, as\n"
           "                            `rtvd run`; default none: not pinned); the output\n"
           "                            says where the timed steps ran\n"
           "  --worker off|futex|spin   structured factorization on two threads: this one\n"
           "                            (pinned to CPU 0) and a worker on CPU 1 that takes\n"
           "                            half of the clusters each step, woken by a futex or\n"
           "                            polling (rt/worker.h; default off: one thread, as\n"
           "                            `rtvd run` steps); with joints the index2 form only\n"
           "  --trace-marker[=PATH]     instead: time N (--steps) writes of an overrun\n"
           "                            marker line into ftrace's trace_marker (default\n"
           "                            /sys/kernel/tracing/trace_marker) or PATH, as the\n"
           "                            loop thread of `rtvd run --trace-marker` writes it\n"
           "  --verbose                 notes of the tyre files (defaults applied, keys ignored),\n"
           "                            once per file\n"
           "  --help                    this text\n"
           "\n"
           "The scaling series (axle rig, sedan, 3- and 4-axle trucks, dense and structured)\n"
           "is config/bench/scaling.py; instruction counts per step, config/bench/callgrind.sh.\n");
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

/* the cost of one overrun marker (rt/tracemark.h): n timed writes of the loop's line after
 * 100 untimed ones; the distribution printed as the step times are */
static int bench_marker(const char *path, long n)
{
    const int fd = vd_tracemark_open(path);
    int64_t *t = calloc((size_t)n, sizeof(*t));
    char line[VD_TRACEMARK_LINE_MAX];
    long errors = 0;

    if (fd < 0 || !t) {
        fprintf(stderr, "rtvd bench: --trace-marker: cannot open %s: %s\n",
                path ? path : VD_TRACEMARK_DEFAULT, fd < 0 ? strerror(-fd) : "out of memory");
        vd_tracemark_close(fd);
        free(t);
        return 1;
    }
    for (long i = -100; i < n; i++) {
        const size_t len =
            vd_tracemark_line(line, (uint64_t)(i + 100), 1234567, 234567, 12345, 1, 0);
        const int64_t t0 = vd_clock_now();
        const int rc = vd_tracemark_write(fd, line, len);
        const int64_t t1 = vd_clock_now();

        errors += rc != 0;
        if (i >= 0)
            t[i] = t1 - t0;
    }
    qsort(t, (size_t)n, sizeof(*t), cmp_i64);
    printf("trace marker: %ld writes of a %zu-byte overrun line to %s (%ld failed)\n", n,
           vd_tracemark_line(line, 1000000, 1234567, 234567, 12345, 1, 0),
           path ? path : "trace_marker", errors);
    printf("write time [us]  min %9.2f   p50 %9.2f   p90 %9.2f   p99 %9.2f   p99.9 %9.2f   max "
           "%9.2f\n",
           (double)t[0] * 1e-3, pct_us(t, n, 50), pct_us(t, n, 90), pct_us(t, n, 99),
           pct_us(t, n, 99.9), (double)t[n - 1] * 1e-3);
    vd_tracemark_close(fd);
    free(t);
    return errors ? 1 : 0;
}

/* the step stages of core/data.h, then the outputs call, then the motion cues (core/cue.h)
 * that rtvd run's loop adds with a motion feed */
#define NSTAGE (VD_STAGE_COUNT + 2)
static const char *const stage_names[NSTAGE] = {"linearize", "assemble", "factor",
                                                "stages",    "outputs",  "cues"};

/* linear-algebra flop per step (multiplications and additions) of the factorization, amortized
 * over relin steps, and of the solves (one per stage) */
static double flops_per_step_ex(const struct vd_model *m, const struct vd_data *d, double *fac_out,
                                double *sol_out)
{
    const double n = m->nq, nsolve = m->opt.method == VD_METHOD_LSRT2 ? 2.0 : 1.0;
    double fac, sol;

    if (m->ce) {
        /* the CE form (core/ce_step.c), relinearized every step: LU of M (q'' for the
         * Jacobians) and of the iteration matrix, LSRT2 also of M at the stage point; a solve
         * with M, one with S per stage (LSRT2: and one with M at the stage point) */
        const double c = m->ce->tree->n, lsrt2 = m->opt.method == VD_METHOD_LSRT2;

        fac = (2.0 + lsrt2) * (2.0 / 3.0 * c * c * c);
        sol = 2.0 * c * c;
        if (fac_out)
            *fac_out = fac;
        if (sol_out)
            *sol_out = (2.0 + 2.0 * lsrt2) * sol;
        return fac + (2.0 + 2.0 * lsrt2) * sol;
    }
    if (m->ta) {
        /* the TA form: LU of the augmented (n + m) system (dense, or the bordered block LU of
         * its clusters), solved twice (the step, the projection) */
        const double a = m->ta->tree->n + m->ta->m;
        const bool bb = m->opt.linear == VD_LINEAR_STRUCTURED;

        fac = bb ? (double)m->ta->lu.flops_factor : 2.0 / 3.0 * a * a * a;
        sol = (m->opt.project == VD_PROJECT_NONE ? 1.0 : 2.0) *
              (bb ? (double)m->ta->lu.flops_solve : 2.0 * a * a);
        if (fac_out)
            *fac_out = fac;
        if (sol_out)
            *sol_out = sol;
        return fac + sol;
    }
    if (m->opt.linear == VD_LINEAR_STRUCTURED && m->csn) {
        /* the nullspace form per cluster: with the partitions of the last selection */
        vd_csn_flops(m, d, &fac, &sol);
    } else if (m->opt.linear == VD_LINEAR_STRUCTURED) {
        fac = (double)m->blu.flops_factor; /* with joints: of the augmented system */
        sol = (double)m->blu.flops_solve;
    } else if (m->nc && m->opt.constraints == VD_CONSTRAINTS_NULLSPACE) {
        /* Gu's LU, X = -Gu^-1 Gw, S R, R^T S R, its LU; the solve: two Gu solves, S a_p,
         * R^T, the f x f solve, R a_z, S a */
        const double c = m->nc, f = m->nq - m->nc;

        fac = 2.0 / 3.0 * c * c * c + 2.0 * c * c * f + 2.0 * n * c * f + 2.0 * f * f * c +
              2.0 / 3.0 * f * f * f;
        sol = 4.0 * c * c + 4.0 * n * n + 4.0 * n * f + 2.0 * f * f;
    } else if (m->nc) {
        const double a = n + m->nc; /* the augmented system */

        fac = 2.0 / 3.0 * a * a * a;
        sol = 2.0 * a * a;
    } else {
        fac = 2.0 / 3.0 * n * n * n; /* getrf */
        sol = 2.0 * n * n;           /* getrs, one right-hand side */
    }
    if (fac_out)
        *fac_out = fac;
    if (sol_out)
        *sol_out = sol;
    return fac / m->opt.relin + nsolve * sol;
}

static double flops_per_step(const struct vd_model *m, const struct vd_data *d)
{
    return flops_per_step_ex(m, d, NULL, NULL);
}

/* the measured part, on a thread of its own (rt/sched.h: own prefaulted stack, the CPU
 * affinity asked for), so that pinning it is the same set-up `rtvd run` gives its loop */
struct bench_job {
    const struct vd_model *m;
    struct vd_data *d;
    const struct vd_cue_point *cue; /* the MRP the cues are timed at */
    long steps, warmup;
    int64_t *t, **st;
    int rc;                  /* 0, or -1 with the message printed */
    struct vd_sched_info si; /* the thread's scheduling at its start */
    cpu_set_t used;          /* CPUs the timed steps ran on (sched_getcpu after each) */
    double cue_sink;         /* keeps the timed cue computation from being optimized away */
    long migrations;         /* changes of CPU between timed steps */
};

static void *bench_thread(void *arg)
{
    struct bench_job *j = arg;
    const struct vd_model *m = j->m;
    int last = -1;

    vd_rt_sched_info(&j->si);
    CPU_ZERO(&j->used);
    for (long s = 0; s < j->warmup; s++)
        if (vd_step(m, j->d) || vd_outputs(m, j->d)) {
            fprintf(stderr, "rtvd bench: warm-up step %ld failed\n", s);
            j->rc = -1;
            return NULL;
        }
    for (long s = 0; s < j->steps; s++) {
        int64_t a = vd_clock_now(), b;
        int r = vd_step(m, j->d), c;

        b = vd_clock_now();
        if (r || vd_outputs(m, j->d)) {
            fprintf(stderr, "rtvd bench: step %ld failed\n", s);
            j->rc = -1;
            return NULL;
        }
        j->t[s] = b - a;
        for (int k = 0; k < VD_STAGE_COUNT; k++)
            j->st[k][s] = j->d->stage_ns[k];
        j->st[VD_STAGE_COUNT][s] = j->d->outputs_ns;
        {
            /* the cues as the loop computes them after vd_outputs */
            double cues[VD_CUE_N];
            const int64_t c0 = vd_clock_now();

            vd_cues(m, j->d, j->cue, cues);
            j->st[VD_STAGE_COUNT + 1][s] = vd_clock_now() - c0;
            j->cue_sink += cues[s % VD_CUE_N];
        }
        /* outside the timed part: where this step ran (vDSO, no system call) */
        c = sched_getcpu();
        if (c >= 0 && c < CPU_SETSIZE)
            CPU_SET((size_t)c, &j->used);
        j->migrations += last >= 0 && c != last;
        last = c;
    }
    j->rc = 0;
    return NULL;
}

/* the cost of each tyre: vd_tire_eval with its Jacobian, timed in batches of TYRE_BATCH calls
 * at the state the run ended in (after the timed steps: it adds into d's Jacobian blocks), the
 * batch times' median and p99 per call [us] into p50[t], p99[t] */
#define TYRE_BATCH     20
#define VD_BENCH_TYRES 32 /* tyres timed one by one at most */
#define TYRE_RUNS      250
static int bench_tyres(const struct vd_model *m, struct vd_data *d, double *p50, double *p99)
{
    double *h = calloc((size_t)m->nq, sizeof(double)),
           *g = calloc((size_t)m->nz + 1, sizeof(double));
    int64_t *b = calloc(TYRE_RUNS, sizeof(int64_t));

    if (!h || !g || !b) {
        free(h);
        free(g);
        free(b);
        return -1;
    }
    for (int t = 0; t < m->ntire; t++) {
        for (int r = 0; r < TYRE_RUNS; r++) {
            const int64_t a = vd_clock_now();

            for (int k = 0; k < TYRE_BATCH; k++)
                vd_tire_eval(m, d, t, d->z, h, g, true);
            b[r] = vd_clock_now() - a;
        }
        qsort(b, TYRE_RUNS, sizeof(*b), cmp_i64);
        p50[t] = pct_us(b, TYRE_RUNS, 50.0) / TYRE_BATCH;
        p99[t] = pct_us(b, TYRE_RUNS, 99.0) / TYRE_BATCH;
    }
    free(h);
    free(g);
    free(b);
    return 0;
}

/* the tyre model and contact of tyre t, for the bench's table */
static void tyre_kind(const struct vd_model *m, int t, char *buf, size_t n)
{
    const struct vd_tire *ty = &m->tire[t];

    snprintf(buf, n, "%s, %s", vd_tire_model_name(m, t),
             ty->env.on ? "enveloping" : "point contact");
}

int cmd_bench(int argc, char **argv)
{
    static const struct option lopts[] = {{"solver", required_argument, 0, 's'},
                                          {"stage2", required_argument, 0, '2'},
                                          {"dt", required_argument, 0, 'd'},
                                          {"relin", required_argument, 0, 'k'},
                                          {"constraints", required_argument, 0, 'C'},
                                          {"project", required_argument, 0, 'P'},
                                          {"formulation", required_argument, 0, 'F'},
                                          {"vehicle", required_argument, 0, 'v'},
                                          {"steps", required_argument, 0, 'n'},
                                          {"warmup", required_argument, 0, 'w'},
                                          {"json", required_argument, 0, 'j'},
                                          {"linear", required_argument, 0, 'l'},
                                          {"worker", required_argument, 0, 'W'},
                                          {"cpu", required_argument, 0, 'c'},
                                          {"trace-marker", optional_argument, 0, 'K'},
                                          {"verbose", no_argument, 0, 'V'},
                                          {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
    static struct vd_worker worker;
    struct app_solver_opts so;
    struct app_model am;
    struct vd_data *d = NULL;
    long steps = 5000, warmup = 200;
    const char *json = NULL;
    int64_t *t = NULL, *st[NSTAGE] = {0};
    double stage_p50[NSTAGE], stage_p99[NSTAGE], stage_max[NSTAGE];
    double tyre_p50[VD_BENCH_TYRES], tyre_p99[VD_BENCH_TYRES];
    int c, rc = 1, linear = -1, wmode = -1, cpu = VD_RUN_CPU_NONE;
    bool marker = false;
    const char *marker_path = NULL;
    char blas[256], used[128] = "";
    struct bench_job job = {0};
    struct vd_cue_point cue;
    struct vd_thread th = {0};

    app_solver_opts_init(&so);
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
        switch (c) {
        case 's':
        case '2':
        case 'd':
        case 'k':
        case 'C':
        case 'P':
        case 'F':
            if (app_parse_solver(&so,
                                 c == 's'   ? "solver"
                                 : c == '2' ? "stage2"
                                 : c == 'd' ? "dt"
                                 : c == 'C' ? "constraints"
                                 : c == 'P' ? "project"
                                 : c == 'F' ? "formulation"
                                            : "relin",
                                 optarg))
                return 2;
            break;
        case 'v':
            so.vehicle = optarg;
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
            if (app_parse_solver(&so, "linear", optarg))
                return 2;
            linear = so.linear;
            break;
        case 'W':
            if (!strcmp(optarg, "off")) {
                wmode = -1;
            } else if (!strcmp(optarg, "futex")) {
                wmode = VD_WORKER_FUTEX;
            } else if (!strcmp(optarg, "spin")) {
                wmode = VD_WORKER_SPIN;
            } else {
                fprintf(stderr, "rtvd bench: invalid --worker '%s' (off|futex|spin)\n", optarg);
                return 2;
            }
            break;
        case 'K':
            marker = true;
            marker_path = optarg;
            break;
        case 'c':
            if (app_parse_cpu(optarg, true, &cpu)) {
                fprintf(stderr, "rtvd bench: invalid --cpu '%s' (N|auto|none)\n", optarg);
                return 2;
            }
            break;
        case 'V':
            vd_tir_notes_to(stderr);
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
    if (marker)
        return bench_marker(marker_path, steps);
    if (app_load_model(optind < argc ? argv[optind] : NULL, &so, &am))
        return 1;
    if (linear >= 0) {
        am.m->opt.linear = linear;            /* before vd_data_new, which sizes for it */
        if (app_apply_constraints(&so, am.m)) /* the structured solve of the joints again */
            goto out;
    }
    if (vd_blas_init(blas, sizeof(blas)))
        fprintf(stderr, "rtvd bench: warning: BLAS runs more than one thread: %s\n", blas);
    t = calloc((size_t)steps, sizeof(*t));
    for (int k = 0; k < NSTAGE; k++)
        st[k] = calloc((size_t)steps, sizeof(int64_t));
    d = vd_data_new(am.m);
    if (!t || !d || !st[NSTAGE - 1]) {
        fprintf(stderr, "rtvd bench: out of memory\n");
        goto out;
    }
    if (vd_solver_warmup(am.m, d)) {
        fprintf(stderr, "rtvd bench: solver warm-up failed\n");
        goto out;
    }
    cpu = app_resolve_cpu(cpu);
    if (cpu >= 0) {
        cpu_set_t allowed;

        CPU_ZERO(&allowed);
        if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0 && cpu < CPU_SETSIZE &&
            !CPU_ISSET((size_t)cpu, &allowed)) {
            fprintf(stderr, "rtvd bench: cpu %d is not among the CPUs this process may use\n", cpu);
            goto out;
        }
    }
    if (wmode >= 0) {
        if (am.m->opt.linear != VD_LINEAR_STRUCTURED || am.m->blu.ncluster < 2 || am.m->csn) {
            fprintf(stderr, "rtvd bench: --worker needs the structured solve and 2 clusters (with "
                            "joints: the index2 form)\n");
            goto out;
        }
        /* the stepping thread on CPU 0, the worker on CPU 1 */
        if (cpu != VD_RUN_CPU_NONE && cpu != 0) {
            fprintf(stderr, "rtvd bench: --worker steps on CPU 0 (--cpu 0 or none)\n");
            goto out;
        }
        cpu = 0;
        if (vd_worker_start(&worker, wmode, 1, 0) || !worker.th.pinned) {
            fprintf(stderr, "rtvd bench: --worker needs CPUs 0 and 1\n");
            goto out;
        }
        d->par = (struct vd_par){vd_worker_post, vd_worker_wait, &worker};
    }
    /* the start state and inputs as `rtvd sim` has them (a scenario's driver too) */
    if (app_start(&am, d, false, stderr))
        goto out;
    {
        /* the MRP of rtvd run's default: the marker driver_head, else the chassis' (or the
         * first body's) CoM */
        const int mk = vd_model_find_marker(am.m, "driver_head");
        const int ch = vd_model_find_body(am.m, "chassis");
        const double zero[3] = {0, 0, 0};
        char err[120];
        int b = mk >= 0 && am.m->marker[mk].body >= 0 ? am.m->marker[mk].body : ch >= 0 ? ch : 0;

        if (vd_cue_point_init(am.m, &cue, b,
                              mk >= 0 && am.m->marker[mk].body >= 0 ? am.m->marker[mk].pos
                                                                    : am.m->body[b].com,
                              zero, err, sizeof(err))) {
            fprintf(stderr, "rtvd bench: cues: %s\n", err);
            goto out;
        }
    }
    job = (struct bench_job){.m = am.m,
                             .d = d,
                             .cue = &cue,
                             .steps = steps,
                             .warmup = warmup,
                             .t = t,
                             .st = st,
                             .rc = -1};
    {
        const struct vd_thread_spec spec = {.name = "rtvd-bench",
                                            .cpu = cpu,
                                            .priority = 0,
                                            .stack_size = 512 * 1024,
                                            .fn = bench_thread,
                                            .arg = &job};
        int e = vd_rt_thread_create(&th, &spec);

        if (e) {
            fprintf(stderr, "rtvd bench: cannot create the bench thread: %s\n", strerror(-e));
            goto out;
        }
        vd_rt_thread_join(&th);
    }
    if (job.rc)
        goto out;
    if (cpu >= 0 && !th.pinned) {
        fprintf(stderr, "rtvd bench: cannot pin to cpu %d: %s\n", cpu, strerror(th.pin_errno));
        goto out;
    }
    vd_cpulist_format(used, sizeof(used), &job.used, sizeof(job.used));
    qsort(t, (size_t)steps, sizeof(*t), cmp_i64);
    for (int k = 0; k < NSTAGE; k++) {
        qsort(st[k], (size_t)steps, sizeof(int64_t), cmp_i64);
        stage_p50[k] = pct_us(st[k], steps, 50.0);
        stage_p99[k] = pct_us(st[k], steps, 99.0);
        stage_max[k] = (double)st[k][steps - 1] * 1e-3;
    }
    {
        const struct vd_model *m = am.m;
        const bool dense = m->opt.linear == VD_LINEAR_DENSE;
        const double mn = (double)t[0] * 1e-3, p50 = pct_us(t, steps, 50.0);
        const double p90 = pct_us(t, steps, 90.0), p99 = pct_us(t, steps, 99.0);
        const double p999 = pct_us(t, steps, 99.9), mx = (double)t[steps - 1] * 1e-3;
        const double rtf = p50 * 1e-6 / m->opt.dt, flops = flops_per_step(m, d);
        const int dof = m->ce ? m->ce->tree->n : m->ta ? m->ta->tree->n : m->nq;
        struct utsname un;

        uname(&un);
        printf("model %s: %d bodies, %d %s (+%d element states), solver %s, dt %g s, relin %d, "
               "%ld steps after %ld warm-up\n",
               m->name, m->nbody, dof, m->ce || m->ta ? "tree coordinates" : "DOF", m->nz,
               app_method_name(m), m->opt.dt, m->opt.relin, steps, warmup);
        if (m->ce)
            printf("linear solve: CE form (minimal coordinates, the %d joint rows embedded), "
                   "n = %d: hand-written dense LU with partial pivoting of the n x n iteration "
                   "matrix and of M (q''), core/ce_step.c; locked elements left out: %d "
                   "bushings, %d couplers, %d point-to-point (core/ce_lock.c)\n",
                   m->nc, dof, m->ce->nlock_bush, m->ce->nlock_cpl, m->ce->nlock_p2p);
        else if (m->ta) /* its linear solve is in the description */
            app_describe_joints(m, "", stdout);
        else if (dense && m->nc && m->opt.constraints == VD_CONSTRAINTS_NULLSPACE)
            printf(
                "linear solve: dense, joints, nullspace form: %d constraint rows, LU of Gu (%d), "
                "reduced system (%d); BLAS: %s\n",
                m->nc, m->nc, m->nq - m->nc, blas);
        else if (dense && m->nc)
            printf("linear solve: joints, index2 form: dense LAPACK LU of the augmented system, "
                   "n = %d + %d; BLAS: %s\n",
                   m->nq, m->nc, blas);
        else if (dense)
            printf("linear solve: dense LAPACK LU, n = %d; BLAS: %s\n", m->nq, blas);
        else if (m->csn) {
            const struct vd_csn *cs = m->csn;

            printf("linear solve: structured, joints, nullspace form: per-cluster null spaces "
                   "(coordinate partitioning of each cluster's rows, LU of its Gu, R_c and the "
                   "root coupling T_c), root %s, %d clusters (bodies/rows/free:",
                   cs->root >= 0 ? m->body[cs->root].name : "ground", cs->ncl);
            for (int k = 0; k < cs->ncl; k++)
                printf(" %d/%d/%d", cs->cl_ptr[k + 1] - cs->cl_ptr[k], cs->mr[k], cs->f[k]);
            printf("), reduced arrow system of %d (cluster blocks eliminated into the root's %d), "
                   "re-selection below %g x the pivot ratio at selection (%llu selections in "
                   "the run)\n",
                   m->nq - m->nc, cs->n0, m->opt.reselect, (unsigned long long)d->nselect);
        } else if (m->nc)
            printf("linear solve: structured, joints, index2 form: augmented system of %d bodies "
                   "and %d multiplier nodes (%d rows), root %s, %d clusters, %d of %d 6x6 blocks "
                   "stored (%d fill), %d block updates\n",
                   m->nbody, m->njnode, m->nc,
                   m->blu.root >= 0 ? m->body[m->blu.root].name : "ground", m->blu.ncluster,
                   m->blu.nslot, m->blu.nb * m->blu.nb, m->blu.nfill, m->blu.nupd);
        else
            printf("linear solve: structured, root %s, %d clusters, %d of %d 6x6 blocks stored "
                   "(%d fill), %d block updates\n",
                   m->body[m->blu.root].name, m->blu.ncluster, m->blu.nslot, m->nbody * m->nbody,
                   m->blu.nfill, m->blu.nupd);
        if (wmode >= 0)
            printf("worker: %s, factorization on CPU 0 (clusters 0..%d, %ld flop) and CPU 1 "
                   "(clusters %d..%d, %ld flop), then the root\n",
                   wmode == VD_WORKER_FUTEX ? "futex" : "spin", m->blu.split - 1,
                   m->blu.flops_part[0], m->blu.split, m->blu.ncluster - 1, m->blu.flops_part[1]);
        if (cpu >= 0)
            printf("cpu: pinned to cpu %d (affinity %s); the timed steps ran on cpu %s\n", cpu,
                   job.si.affinity, used);
        else
            printf("cpu: not pinned (affinity %s); the timed steps ran on cpus %s, %ld "
                   "migrations\n",
                   job.si.affinity, used, job.migrations);
        {
            double fac, sol;

            flops_per_step_ex(m, d, &fac, &sol);
            printf("linear-algebra work: %.0f flop per step (factorization %.0f, solve %.0f)\n",
                   flops, fac, sol);
        }
        printf("step time [us]   min %9.2f   p50 %9.2f   p90 %9.2f   p99 %9.2f   p99.9 %9.2f   "
               "max %9.2f\n",
               mn, p50, p90, p99, p999, mx);
        printf("real-time factor (p50 / dt) %.4f\n", rtf);
        printf("stage profile [us]     p50       p99       max   (share of the p50 step)\n");
        for (int k = 0; k < NSTAGE; k++)
            printf("  %-12s %9.2f %9.2f %9.2f   %5.1f %%%s\n", stage_names[k], stage_p50[k],
                   stage_p99[k], stage_max[k], 100.0 * stage_p50[k] / p50,
                   k == VD_STAGE_COUNT       ? "  (vd_outputs, after the step)"
                   : k == VD_STAGE_COUNT + 1 ? "  (motion cues at the MRP, after vd_outputs)"
                                             : "");
        if (m->ntire > 0 && m->ntire <= VD_BENCH_TYRES) {
            if (bench_tyres(m, d, tyre_p50, tyre_p99)) {
                fprintf(stderr, "rtvd bench: out of memory\n");
                goto out;
            }
            printf("tyres [us per evaluation with its Jacobian]   p50       p99\n");
            for (int ty = 0; ty < m->ntire; ty++) {
                char kind[64];

                tyre_kind(m, ty, kind, sizeof(kind));
                printf("  %-16s %9.2f %9.2f   (%s)\n", m->tire[ty].name, tyre_p50[ty], tyre_p99[ty],
                       kind);
            }
        }
        if (json) {
            FILE *f = strcmp(json, "-") ? fopen(json, "w") : stdout;

            if (!f) {
                fprintf(stderr, "rtvd bench: cannot write %s\n", json);
                goto out;
            }
            fprintf(f,
                    "{\n  \"model\": \"%s\",\n  \"solver\": \"%s\",\n  \"bodies\": %d,\n"
                    "  \"dof\": %d,\n  \"element_states\": %d,\n  \"steps\": %ld,\n"
                    "  \"warmup\": %ld,\n  \"dt_s\": %.9g,\n  \"relin\": %d,\n"
                    "  \"min_us\": %.3f,\n  \"p50_us\": %.3f,\n  \"p90_us\": %.3f,\n"
                    "  \"p99_us\": %.3f,\n  \"p999_us\": %.3f,\n  \"max_us\": %.3f,\n"
                    "  \"rtf\": %.6f,\n",
                    m->name, app_method_name(m), m->nbody, dof, m->nz, steps, warmup, m->opt.dt,
                    m->opt.relin, mn, p50, p90, p99, p999, mx, rtf);
            for (int q = 0; q < 3; q++) {
                const double *v = q == 0 ? stage_p50 : q == 1 ? stage_p99 : stage_max;

                fprintf(f, "  \"stage_%s_us\": {", q == 0 ? "p50" : q == 1 ? "p99" : "max");
                for (int k = 0; k < NSTAGE; k++)
                    fprintf(f, "%s\"%s\": %.3f", k ? ", " : "", stage_names[k], v[k]);
                fprintf(f, "},\n");
            }
            fprintf(f,
                    "  \"linear\": \"%s\",\n  \"worker\": \"%s\",\n"
                    "  \"flops_per_step\": %.0f,\n",
                    m->ce   ? "ce_dense"
                    : m->ta ? "ta_dense"
                    : dense ? "dense"
                            : "structured",
                    wmode < 0                  ? "off"
                    : wmode == VD_WORKER_FUTEX ? "futex"
                                               : "spin",
                    flops);
            /* the model form: coordinates and constraint rows the step integrates */
            fprintf(f,
                    "  \"formulation\": {\"form\": \"%s\", \"coordinates\": %d, \"rows\": "
                    "%d},\n",
                    m->ta   ? "ta"
                    : m->ce ? "ce"
                            : "fa",
                    m->ta   ? m->ta->tree->n
                    : m->ce ? m->ce->tree->n
                            : m->nq,
                    m->ta   ? m->ta->m
                    : m->ce ? 0
                            : m->nc);
            if (m->ce)
                fprintf(f,
                        "  \"ce\": {\"coordinates\": %d, \"nodes\": %d, \"corners\": %d, "
                        "\"steered_axle\": %s, \"joints_embedded\": %d, \"rows_embedded\": "
                        "%d},\n",
                        dof, m->ce->tree->nnode, m->ce->ncorner, m->ce->has_axle ? "true" : "false",
                        m->njoint, m->nc);
            else if (m->nc)
                fprintf(f,
                        "  \"joints\": {\"joints\": %d, \"rows\": %d, \"form\": \"%s\", "
                        "\"project\": \"%s\"},\n",
                        m->njoint, m->nc,
                        m->opt.constraints == VD_CONSTRAINTS_NULLSPACE ? "nullspace" : "index2",
                        m->opt.project == VD_PROJECT_NONE        ? "none"
                        : m->opt.project == VD_PROJECT_POSITIONS ? "positions"
                                                                 : "both");
            if (!dense && !m->ce)
                fprintf(f,
                        "  \"structured\": {\"root\": \"%s\", \"clusters\": %d, \"blocks\": %d, "
                        "\"fill\": %d, \"updates\": %d, \"flops_factor\": %ld, "
                        "\"flops_solve\": %ld},\n",
                        m->blu.root >= 0 ? m->body[m->blu.root].name : "ground", m->blu.ncluster,
                        m->blu.nslot, m->blu.nfill, m->blu.nupd, m->blu.flops_factor,
                        m->blu.flops_solve);
            fprintf(f,
                    "  \"cpu\": %d,\n  \"affinity\": \"%s\",\n  \"cpus_used\": \"%s\",\n"
                    "  \"migrations\": %ld,\n",
                    cpu >= 0 ? cpu : -1, job.si.affinity, used, job.migrations);
            if (m->ntire > 0 && m->ntire <= VD_BENCH_TYRES) {
                fprintf(f, "  \"tyres\": [");
                for (int ty = 0; ty < m->ntire; ty++) {
                    char kind[64];

                    tyre_kind(m, ty, kind, sizeof(kind));
                    fprintf(f,
                            "%s{\"name\": \"%s\", \"kind\": \"%s\", \"p50_us\": %.3f, "
                            "\"p99_us\": %.3f}",
                            ty ? ", " : "", m->tire[ty].name, kind, tyre_p50[ty], tyre_p99[ty]);
                }
                fprintf(f, "],\n");
            }
            fprintf(f,
                    "  \"blas\": \"%s\",\n  \"version\": \"%s\",\n  \"git\": \"%s\",\n"
                    "  \"host\": \"%s %s %s\"\n}\n",
                    blas, VD_VERSION, VD_GIT_REV, un.sysname, un.release, un.machine);
            if (f != stdout && fclose(f)) {
                fprintf(stderr, "rtvd bench: write error on %s\n", json);
                goto out;
            }
        }
    }
    rc = 0;
out:
    vd_worker_stop(&worker);
    vd_data_free(d);
    free(t);
    for (int k = 0; k < NSTAGE; k++)
        free(st[k]);
    app_free_model(&am);
    return rc;
}
