/* app/cmd_sim.c - rtvd sim: integrate a model as fast as possible and write time series,
 * with the model's linearly implicit method or a reference: CVODE (app/ref_cvode.h) for
 * models with bushings, IDA (app/ref_ida.h) for models with joints. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "config/ranges.h"
#include "config/tir.h"
#include "config/scenario.h"
#include "core/data.h"
#include "core/linalg.h"
#include "core/joint.h"
#include "core/kinematics.h"
#include "core/step.h"
#include "io/record.h"
#include "ref_cvode.h"
#include "ref_ida.h"
#include "rt/clock.h"

#define SIM_TABLE_COLS 6

static void sim_usage(FILE *f)
{
    fprintf(
        f, "usage: rtvd sim [MODEL.yaml | SCENARIO.yaml] [options]\n"
           "\n"
           "Integrate MODEL (default: the embedded quarter car, config/models/quarter_car.yaml)\n"
           "as fast as possible. Inputs follow the `signal:` of each input in the model.\n"
           "A scenario file (config/scenarios/) brings its vehicle, road, initial state,\n"
           "input signals, closed-loop driver, duration and recorded signals.\n"
           "\n"
           "  --vehicle FILE.yaml       run the scenario with this vehicle instead of its own\n"
           "  --solver lie|lsrt2|cvode|ida\n"
           "                            integrator (default: the model's solver.method);\n"
           "                            cvode: the validation reference, SUNDIALS CVODE BDF\n"
           "                            (orders 1-5, analytic Jacobian, sparse LU (KLU),\n"
           "                            error-controlled steps), interpolated to the --dt\n"
           "                            grid; a closed-loop driver acts on the accepted\n"
           "                            states; slow. ida: the same for a model with ideal\n"
           "                            joints (SUNDIALS IDA on the stabilized index-2\n"
           "                            system: position and velocity constraints both\n"
           "                            held, multipliers out of the error test)\n"
           "  --stage2 linearized|nonlinear\n"
           "                            LSRT2 second stage: linearized forces (default) or\n"
           "                            the W-form with forces at the stage point\n"
           "  --dt S                    step [s], (0, 0.1] (default: solver.dt); cvode, ida:\n"
           "                            the output grid and the longest step\n"
           "  --relin K                 refresh the linearization every K steps\n"
           "  --constraints index2|nullspace\n"
           "                            models with joints: the augmented index-2 system or\n"
           "                            the null-space form (default: solver.constraints)\n"
           "  --project none|positions|both\n"
           "                            models with joints: the projection after each step\n"
           "                            (default: solver.project; none: the constraints\n"
           "                            drift, for comparison only)\n"
           "  --formulation fa|ce|ta    models with ideal joints: the model form (default:\n"
           "                            solver.formulation): fa every body free and every\n"
           "                            joint a constraint; ce minimal coordinates with the\n"
           "                            double wishbones, multilinks and McPhersons\n"
           "                            embedded; ta a tree over every body\n"
           "                            with the loops' ball joints cut as constraints\n"
           "                            (ce and ta: LIE or LSRT2)\n"
           "  --linear dense|structured linear solve of the step (default: solver.linear;\n"
           "                            ta: structured is the bordered block LU of its\n"
           "                            clusters, core/bblu.h)\n"
           "  --rtol X                  cvode, ida: relative tolerance (default 1e-8)\n"
           "  --atol X                  cvode, ida: absolute tolerance of positions [m] and\n"
           "                            angles [rad] (default 1e-10); velocities get 10 X,\n"
           "                            tyre states X/10\n"
           "  --duration S              simulated time [s] (default: the scenario's, else 10)\n"
           "  --static                  start from the static equilibrium (Newton)\n"
           "  --out FILE.csv            write the signals every --every steps (- = stdout)\n"
           "  --every N                 record every N-th step (default 1)\n"
           "  --signals a,b,...         signals to record (default: the scenario's outputs,\n"
           "                            else the pose of every body);\n"
           "                            names are <element>.<component>\n"
           "  --list-signals            print every signal name of the model and exit\n"
           "  --verbose                 notes of the tyre files (defaults applied, keys ignored),\n"
           "                            once per file\n"
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

/* a scenario's recorded signals, comma-joined */
static char *scenario_signals(const struct vd_scenario *scn)
{
    size_t len = 1, at = 0;
    char *s;

    for (int i = 0; i < scn->nout; i++)
        len += strlen(scn->out[i]) + 1;
    s = malloc(len);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (int i = 0; i < scn->nout; i++)
        at += (size_t)snprintf(s + at, len - at, "%s%s", i ? "," : "", scn->out[i]);
    return s;
}

/* what the rows of one run go to: --out every --every steps, or 11 table lines */
struct sim_out {
    double gmax; /* [m or rad] largest constraint residual at a step's start (joints) */
    const char *out;
    struct vd_record *rec;
    const struct vd_signal *sig;
    double *vals;
    int nsig;
    double dt;
    long every, nsteps, pstep;
};

/* the rows due at step s */
static void sim_due(const struct sim_out *o, long s, bool *rec, bool *print)
{
    *rec = o->out && s % o->every == 0;
    *print = !o->out && (s % o->pstep == 0 || s == o->nsteps);
}

/* write the due rows from the element results in d; 0 or -1 with a message */
static int sim_row(struct sim_out *o, const struct vd_model *m, const struct vd_data *d, bool rec,
                   bool print)
{
    for (int i = 0; i < o->nsig; i++)
        o->vals[i] = vd_signal_value(m, d, &o->sig[i]);
    if (rec && vd_record_row(o->rec, d->t, o->vals)) {
        fprintf(stderr, "rtvd sim: write error on %s\n", o->out);
        return -1;
    }
    if (print) {
        printf("%10.4f", d->t);
        for (int i = 0; i < o->nsig && i < SIM_TABLE_COLS; i++)
            printf(" %14.6g", o->vals[i]);
        printf("\n");
    }
    return 0;
}

/* the model's method: nsteps fixed steps, rows evaluated where due */
static int sim_fixed(struct sim_out *o, const struct vd_model *m, struct vd_data *d, FILE *info)
{
    int64_t t0, t1;

    t0 = vd_clock_now();
    for (long s = 0; s <= o->nsteps; s++) {
        bool rec_now, print_now;

        sim_due(o, s, &rec_now, &print_now);
        if (rec_now || print_now) {
            if (d->input_fn)
                d->input_fn(d->input_ctx, d->t, d->u);
            if (vd_outputs(m, d)) {
                fprintf(stderr, "rtvd sim: non-finite forces at t = %g s\n", d->t);
                return -1;
            }
            if (sim_row(o, m, d, rec_now, print_now))
                return -1;
        }
        if (s == o->nsteps)
            break;
        if (vd_step(m, d)) {
            fprintf(stderr,
                    "rtvd sim: step %ld failed at t = %g s (non-finite %llu, singular %llu)\n", s,
                    d->t, (unsigned long long)d->warn[VD_WARN_NONFINITE],
                    (unsigned long long)d->warn[VD_WARN_SINGULAR]);
            return -1;
        }
        if (m->ce && m->njoint) {
            /* the CE form has no residual of its own: the joint model's constraints at the
             * bodies its step placed (the FA rows, zero by construction up to rounding) */
            vd_kinematics(m, d, d->r, d->v);
            vd_joint_eval(m, d, d->u, false);
            d->cres = vd_joint_residual(m, d);
        }
        if (d->cres > o->gmax)
            o->gmax = d->cres;
    }
    t1 = vd_clock_now();
    {
        double wall = (double)(t1 - t0) * 1e-9, sim = (double)o->nsteps * m->opt.dt;

        fprintf(info,
                "done: %ld steps, %.3f s simulated in %.3f s wall (real-time factor %.4f, "
                "%.1f us/step incl. output)\n",
                o->nsteps, sim, wall, wall / sim, wall / (double)(o->nsteps ? o->nsteps : 1) * 1e6);
    }
    return 0;
}

/* app_cvode_run's output: d is at a grid point t = s dt with its element results */
static int sim_cvode_out(void *ctx, const struct vd_model *m, struct vd_data *d)
{
    struct sim_out *o = ctx;
    bool rec, print;

    sim_due(o, lround(d->t / o->dt), &rec, &print);
    return (rec || print) ? sim_row(o, m, d, rec, print) : 0;
}

/* CVODE's output grid: a coarser one where it holds every due row; else every step */
static double sim_cvode_grid(const struct sim_out *o)
{
    if (o->out)
        return (double)o->every * o->dt;
    if (o->nsteps % o->pstep == 0)
        return (double)o->pstep * o->dt;
    return o->dt;
}

static void sim_cvode_info(const struct sim_out *o, double rtol, double atol, FILE *info)
{
    fprintf(
        info,
        "solver cvode (SUNDIALS %s: BDF orders 1-%d, Newton on the analytic Jacobian, "
        "sparse LU (KLU)), rtol %g, atol %g m, rad (v %g, z %g), steps <= %g s, output every %g s "
        "to %g s\n",
        app_cvode_version(), APP_CVODE_MAXORD, rtol, atol, APP_CVODE_ATOL_V * atol,
        APP_CVODE_ATOL_Z * atol, o->dt, sim_cvode_grid(o), (double)o->nsteps * o->dt);
}

static void sim_ida_info(const struct sim_out *o, double rtol, double atol, FILE *info)
{
    fprintf(info,
            "solver ida (SUNDIALS %s: BDF orders 1-%d on the stabilized index-2 system (GGL), "
            "Newton on the analytic Jacobian, sparse LU (KLU)), rtol %g, atol %g m, rad (v %g, "
            "z %g; multipliers out of the error test), steps <= %g s, output every %g s to %g s\n",
            app_cvode_version(), APP_IDA_MAXORD, rtol, atol, APP_CVODE_ATOL_V * atol,
            APP_CVODE_ATOL_Z * atol, o->dt, sim_cvode_grid(o), (double)o->nsteps * o->dt);
}

/* the DAE reference path: IDA over [0, nsteps dt], output on the grid of the due rows */
static int sim_ida(struct sim_out *o, const struct vd_model *m, struct vd_data *d, double rtol,
                   double atol, FILE *info)
{
    const double t_end = (double)o->nsteps * o->dt;
    struct app_ida_stats st;
    int rc;

    rc = app_ida_run(m, d, t_end, sim_cvode_grid(o), rtol, atol, sim_cvode_out, o, &st);
    if (rc) {
        fprintf(stderr, "rtvd sim: ida failed at t = %g s (%d)\n", d->t, rc);
        return -1;
    }
    o->gmax = st.gmax;
    fprintf(info,
            "done: %.3f s simulated in %.3f s wall: %ld steps (last order %d, h %.3g s), "
            "%ld F, %ld Jacobians, %ld LU, %ld Newton iterations (%ld failed), %ld error-test "
            "failures, %d input jumps (restarts)\n",
            t_end, (double)st.wall_ns * 1e-9, st.steps, st.last_order, st.last_h, st.res_evals,
            st.jac_evals, st.lin_setups, st.newton_iters, st.newton_fails, st.err_fails, st.jumps);
    fprintf(info, "joints: max |g| %.3g, max |G v - s'| %.3g over the accepted steps\n", st.gmax,
            st.gvmax);
    return 0;
}

/* the reference path: CVODE over [0, nsteps dt], output on the grid of the due rows */
static int sim_cvode(struct sim_out *o, const struct vd_model *m, struct vd_data *d, double rtol,
                     double atol, FILE *info)
{
    const double t_end = (double)o->nsteps * o->dt;
    struct app_cvode_stats st;
    int rc;

    rc = app_cvode_run(m, d, t_end, sim_cvode_grid(o), rtol, atol, sim_cvode_out, o, &st);
    if (rc) {
        fprintf(stderr, "rtvd sim: cvode failed at t = %g s (%d)\n", d->t, rc);
        return -1;
    }
    fprintf(info,
            "done: %.3f s simulated in %.3f s wall: %ld steps (last order %d, h %.3g s), "
            "%ld f, %ld Jacobians, %ld LU, %ld Newton iterations (%ld failed), %ld error-test "
            "failures, %d input jumps (restarts)\n",
            t_end, (double)st.wall_ns * 1e-9, st.steps, st.last_order, st.last_h, st.rhs_evals,
            st.jac_evals, st.lin_setups, st.newton_iters, st.newton_fails, st.err_fails, st.jumps);
    return 0;
}

int cmd_sim(int argc, char **argv)
{
    static const struct option lopts[] = {{"solver", required_argument, 0, 's'},
                                          {"stage2", required_argument, 0, '2'},
                                          {"dt", required_argument, 0, 'd'},
                                          {"relin", required_argument, 0, 'k'},
                                          {"duration", required_argument, 0, 'T'},
                                          {"out", required_argument, 0, 'o'},
                                          {"every", required_argument, 0, 'e'},
                                          {"signals", required_argument, 0, 'S'},
                                          {"list-signals", no_argument, 0, 'L'},
                                          {"static", no_argument, 0, 'q'},
                                          {"rtol", required_argument, 0, 'r'},
                                          {"atol", required_argument, 0, 'a'},
                                          {"vehicle", required_argument, 0, 'V'},
                                          {"verbose", no_argument, 0, 'N'},
                                          {"constraints", required_argument, 0, 'C'},
                                          {"project", required_argument, 0, 'P'},
                                          {"formulation", required_argument, 0, 'F'},
                                          {"linear", required_argument, 0, 'y'},
                                          {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
    struct app_solver_opts so;
    struct app_model am;
    struct vd_data *d = NULL;
    struct vd_signal *sig = NULL;
    char **names = NULL, *deflist = NULL;
    const char *out = NULL, *siglist = NULL;
    double duration = 0.0, *vals = NULL, rtol = 0.0, atol = 0.0;
    long every = 1, nsteps;
    int nsig = 0, c, rc = 1, list = 0, statics = 0;
    struct vd_record rec = {0};
    struct sim_out rows;
    FILE *info;
    char blas[256];

    app_solver_opts_init(&so);
    so.allow_cvode = true;
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
        case 'C':
            if (app_parse_solver(&so, "constraints", optarg))
                return 2;
            break;
        case 'P':
            if (app_parse_solver(&so, "project", optarg))
                return 2;
            break;
        case 'F':
            if (app_parse_solver(&so, "formulation", optarg))
                return 2;
            break;
        case 'y':
            if (app_parse_solver(&so, "linear", optarg))
                return 2;
            break;
        case 'T':
            if (app_parse_double(optarg, &duration) || !(duration > 0.0) ||
                duration > (double[]){VD_RNG_DURATION}[1]) {
                fprintf(stderr, "rtvd sim: invalid --duration '%s' (0 < S <= %g s)\n", optarg,
                        (double[]){VD_RNG_DURATION}[1]);
                return 2;
            }
            break;
        case 'o':
            out = optarg;
            break;
        case 'V':
            so.vehicle = optarg;
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
        case 'r':
        case 'a': {
            double *x = c == 'r' ? &rtol : &atol;

            if (app_parse_double(optarg, x) || !(*x > 0.0 && *x < 1.0)) {
                fprintf(stderr, "rtvd sim: invalid --%s '%s'\n", c == 'r' ? "rtol" : "atol",
                        optarg);
                return 2;
            }
            break;
        }
        case 'N':
            vd_tir_notes_to(stderr);
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
    if ((rtol > 0.0 || atol > 0.0) && !so.cvode && !so.ida) {
        fprintf(stderr, "rtvd sim: --rtol and --atol need --solver cvode or ida\n");
        return 2;
    }
    rtol = rtol > 0.0 ? rtol : APP_CVODE_RTOL;
    atol = atol > 0.0 ? atol : APP_CVODE_ATOL;
    /* CSV on stdout: the human-readable lines go to stderr */
    info = out && !strcmp(out, "-") ? stderr : stdout;
    if (app_load_model(optind < argc ? argv[optind] : NULL, &so, &am))
        return 1;
    if (list) {
        vd_signal_list(am.m, print_name, NULL);
        rc = 0;
        goto out_model;
    }
    /* each reference for its kind of model */
    if (so.cvode && am.m->nc > 0) {
        fprintf(stderr, "rtvd sim: %s has ideal joints: its reference is --solver ida\n", am.path);
        goto out_model;
    }
    if (so.ida && am.m->nc == 0) {
        fprintf(stderr, "rtvd sim: %s has no ideal joints: its reference is --solver cvode\n",
                am.path);
        goto out_model;
    }
    if (vd_blas_init(blas, sizeof(blas)))
        fprintf(stderr, "rtvd sim: warning: BLAS runs more than one thread: %s\n", blas);
    if (!siglist && am.scn && am.scn->nout > 0)
        siglist = deflist = scenario_signals(am.scn);
    if (!siglist)
        siglist = deflist = default_signals(am.m);
    if (!(duration > 0.0))
        duration = am.scn && am.scn->duration > 0.0 ? am.scn->duration : 10.0;
    if (!siglist || app_resolve_signals(am.m, siglist, &sig, &names, &nsig))
        goto out_model;
    vals = calloc((size_t)nsig, sizeof(double));
    d = vd_data_new(am.m);
    if (!vals || !d || vd_solver_warmup(am.m, d)) {
        fprintf(stderr, "rtvd sim: out of memory\n");
        goto out_data;
    }
    if (app_start(&am, d, statics, info))
        goto out_data;
    /* the steps the duration asks for: dt >= 1 us and duration <= 1e7 s keep the count far
     * inside a long; a duration shorter than half a step asks for nothing a step can give */
    nsteps = lround(duration / am.m->opt.dt);
    if (nsteps < 1) {
        fprintf(stderr, "rtvd sim: a duration of %g s is shorter than half a step of %g s\n",
                duration, am.m->opt.dt);
        goto out_data;
    }
    rows = (struct sim_out){.out = out,
                            .rec = &rec,
                            .sig = sig,
                            .vals = vals,
                            .nsig = nsig,
                            .dt = am.m->opt.dt,
                            .every = every,
                            .nsteps = nsteps,
                            .pstep = nsteps / 10 ? nsteps / 10 : 1};
    fprintf(info, "model %s (%s): %d bodies, %d DOF, %d bushings, %d p2p, %d inputs\n", am.m->name,
            am.path, am.m->nbody, am.m->nq, am.m->nbush, am.m->np2p, am.m->ninput);
    if (so.ida) /* the reference holds g = 0 and G v = s' itself: no form, no projection */
        fprintf(info, "joints: %d with %d constraint rows (%d degrees of freedom), held by IDA\n",
                am.m->njoint, am.m->nc, am.m->nq - am.m->nc);
    else
        app_describe_joints(am.m, "", info);
    if (so.cvode)
        sim_cvode_info(&rows, rtol, atol, info);
    else if (so.ida)
        sim_ida_info(&rows, rtol, atol, info);
    else
        fprintf(info, "solver %s, dt %g s, relinearize every %d step%s, %ld steps (%g s)\n",
                app_method_name(am.m), am.m->opt.dt, am.m->opt.relin,
                am.m->opt.relin > 1 ? "s" : "", nsteps, (double)nsteps * am.m->opt.dt);
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
    if (so.cvode ? sim_cvode(&rows, am.m, d, rtol, atol, info)
        : so.ida ? sim_ida(&rows, am.m, d, rtol, atol, info)
                 : sim_fixed(&rows, am.m, d, info))
        goto out_rec;
    if (am.m->njoint && !so.cvode && !so.ida) {
        double g;

        vd_outputs(am.m, d); /* the joints' values at the final state */
        vd_joint_eval(am.m, d, d->u, false);
        g = vd_joint_residual(am.m, d);
        fprintf(info, "joints: max |g| %.3g over the run, %.3g at the end", rows.gmax, g);
        if (am.m->opt.constraints == VD_CONSTRAINTS_NULLSPACE)
            fprintf(info, ", %llu selections of the independent coordinates (pivot ratio %.3g)",
                    (unsigned long long)d->nselect, d->gu_ratio);
        fprintf(info, "\n");
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
