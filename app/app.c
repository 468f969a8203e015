/* app/app.c - the shared pieces of the subcommands declared in app/app.h: model loading,
 * option parsing and signal selection. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sched.h>

#include "app.h"
#include "config/ranges.h"
#include "config/run_yaml.h"
#include "config/scenario.h"
#include "core/csblock.h"
#include "rt/check.h"
#include "core/ce.h"
#include "core/ta.h"
#include "core/csolve.h"
#include "core/statics.h"

void app_solver_opts_init(struct app_solver_opts *o)
{
    o->method = -1;
    o->stage2 = -1;
    o->dt = 0.0;
    o->relin = 0;
    o->constraints = -1;
    o->project = -1;
    o->formulation = -1;
    o->linear = -1;
    o->allow_cvode = false;
    o->cvode = false;
    o->ida = false;
    o->vehicle = NULL;
}

int app_parse_double(const char *s, double *out)
{
    char *end;

    errno = 0;
    *out = strtod(s, &end);
    return (errno || end == s || *end || !isfinite(*out)) ? -1 : 0;
}

int app_parse_long(const char *s, long *out)
{
    char *end;

    errno = 0;
    *out = strtol(s, &end, 10);
    return (errno || end == s || *end) ? -1 : 0;
}

int app_parse_cpu(const char *s, bool allow_none, int *cpu)
{
    long v;

    if (!strcmp(s, "auto"))
        *cpu = VD_RUN_CPU_AUTO;
    else if (allow_none && !strcmp(s, "none"))
        *cpu = VD_RUN_CPU_NONE;
    else if (!app_parse_long(s, &v) && v >= 0 && v < 1024)
        *cpu = (int)v;
    else
        return -1;
    return 0;
}

bool app_pinnable_cpus(const char *root, cpu_set_t *allowed)
{
    uint64_t set[16];

    CPU_ZERO(allowed);
    if (vd_rt_cpuset(root, set) > 0) {
        for (int c = 0; c < 1024 && c < CPU_SETSIZE; c++)
            if ((set[c / 64] >> (c % 64)) & 1u)
                CPU_SET((size_t)c, allowed);
        return true;
    }
    if (strcmp(root, "/"))
        return false;
    sched_getaffinity(0, sizeof(*allowed), allowed);
    return true;
}

int app_resolve_cpu(int cpu)
{
    cpu_set_t allowed;

    if (cpu != VD_RUN_CPU_AUTO)
        return cpu;
    CPU_ZERO(&allowed);
    app_pinnable_cpus("/", &allowed);
    return vd_rt_auto_cpu("/", &allowed, sizeof(allowed));
}

int app_parse_solver(struct app_solver_opts *o, const char *opt, const char *val)
{
    double x;
    long k;

    if (!strcmp(opt, "solver")) {
        o->cvode = !strcmp(val, "cvode");
        o->ida = !strcmp(val, "ida");
        if (!strcmp(val, "lie"))
            o->method = VD_METHOD_LIE;
        else if (!strcmp(val, "lsrt2"))
            o->method = VD_METHOD_LSRT2;
        else if (!o->cvode && !o->ida)
            goto bad;
        if ((o->cvode || o->ida) && !o->allow_cvode) {
            fprintf(stderr,
                    "rtvd: --solver %s is a validation reference of `rtvd sim` "
                    "only, never in the real-time path\n",
                    val);
            return -1;
        }
    } else if (!strcmp(opt, "stage2")) {
        if (!strcmp(val, "linearized"))
            o->stage2 = VD_STAGE2_LINEARIZED;
        else if (!strcmp(val, "nonlinear"))
            o->stage2 = VD_STAGE2_NONLINEAR;
        else
            goto bad;
    } else if (!strcmp(opt, "dt")) {
        const double rng[2] = {VD_RNG_DT};

        if (app_parse_double(val, &x) || !(x >= rng[0] && x <= rng[1])) {
            fprintf(stderr, "rtvd: invalid value '%s' for --dt: the step must be in [%g, %g] s\n",
                    val, rng[0], rng[1]);
            return -1;
        }
        o->dt = x;
    } else if (!strcmp(opt, "constraints")) {
        if (!strcmp(val, "index2"))
            o->constraints = VD_CONSTRAINTS_INDEX2;
        else if (!strcmp(val, "nullspace"))
            o->constraints = VD_CONSTRAINTS_NULLSPACE;
        else
            goto bad;
    } else if (!strcmp(opt, "project")) {
        if (!strcmp(val, "none"))
            o->project = VD_PROJECT_NONE;
        else if (!strcmp(val, "positions"))
            o->project = VD_PROJECT_POSITIONS;
        else if (!strcmp(val, "both"))
            o->project = VD_PROJECT_BOTH;
        else
            goto bad;
    } else if (!strcmp(opt, "formulation")) {
        if (!strcmp(val, "fa"))
            o->formulation = VD_FORM_FA;
        else if (!strcmp(val, "ce"))
            o->formulation = VD_FORM_CE;
        else if (!strcmp(val, "ta"))
            o->formulation = VD_FORM_TA;
        else
            goto bad;
    } else if (!strcmp(opt, "linear")) {
        if (!strcmp(val, "dense"))
            o->linear = VD_LINEAR_DENSE;
        else if (!strcmp(val, "structured"))
            o->linear = VD_LINEAR_STRUCTURED;
        else
            goto bad;
    } else if (!strcmp(opt, "relin")) {
        if (app_parse_long(val, &k) || k < 1 || k > 1000000)
            goto bad;
        o->relin = (int)k;
    } else {
        goto bad;
    }
    return 0;
bad:
    fprintf(stderr, "rtvd: invalid value '%s' for --%s\n", val, opt);
    return -1;
}

int app_load_model(const char *path, const struct app_solver_opts *o, struct app_model *am)
{
    memset(am, 0, sizeof(*am));
    if (path && vd_cfg_is_scenario(path)) {
        snprintf(am->path, sizeof(am->path), "%s", path);
        am->scn = vd_cfg_load_scenario(path, o->vehicle, stderr);
        if (am->scn) {
            am->m = am->scn->m;
            am->src = am->scn->src;
        }
    } else if (o->vehicle) {
        fprintf(stderr,
                "rtvd: --vehicle replaces a scenario's vehicle; %s is not a scenario "
                "(no top-level `scenario:` key)\n",
                path ? path : "the embedded model");
        return -1;
    } else if (path) {
        snprintf(am->path, sizeof(am->path), "%s", path);
        am->m = vd_cfg_load_model(path, &am->src, stderr);
    } else {
        snprintf(am->path, sizeof(am->path), "%s", APP_DEFAULT_MODEL);
        am->m = vd_cfg_load_model(am->path, &am->src, stderr);
    }
    if (!am->m)
        return -1;
    /* the model is frozen, but its solver options are plain settings read at each step */
    if (o->method >= 0)
        am->m->opt.method = o->method;
    if (o->stage2 >= 0)
        am->m->opt.stage2 = o->stage2;
    if (o->dt > 0.0)
        am->m->opt.dt = o->dt;
    if (o->relin > 0)
        am->m->opt.relin = o->relin;
    if (app_apply_constraints(o, am->m)) {
        app_free_model(am);
        return -1;
    }
    return 0;
}

void app_describe_joints(const struct vd_model *m, const char *prefix, FILE *f)
{
    if (!m->njoint)
        return;
    if (m->ta) {
        /* the TA form: the tree holds its joints, the cut ones are constraint rows */
        fprintf(f,
                "%sformulation ta: %d tree coordinates (%d nodes) and %d cut-joint rows (%d ball "
                "joints%s), %d degrees of freedom; %s in tree coordinates, %s of the (%d + %d) "
                "system, %s\n",
                prefix, m->ta->tree->n, m->ta->tree->nnode, m->ta->m, m->ta->npcut,
                m->ta->gear ? ", the steering box" : "", m->ta->tree->n - m->ta->m,
                m->opt.method == VD_METHOD_LSRT2 ? "LSRT2 (W-form, cut rows at acceleration level)"
                                                 : "LIE (index2)",
                m->opt.linear == VD_LINEAR_STRUCTURED ? "bordered block LU (clusters onto the root)"
                                                      : "dense LAPACK LU",
                m->ta->tree->n, m->ta->m,
                m->opt.project == VD_PROJECT_NONE        ? "no projection"
                : m->opt.project == VD_PROJECT_POSITIONS ? "positions projected"
                                                         : "positions and velocities projected");
        return;
    }
    if (m->ce) {
        /* the CE form: the joints hold by construction, the solver steps the tree */
        fprintf(f,
                "%sformulation ce: %d coordinates (%d tree nodes, %d embedded corners%s%s), the "
                "%d joints (%d rows) hold by construction; %s in tree coordinates, LU of M "
                "and of S (%d)\n",
                prefix, m->ce->tree->n, m->ce->tree->nnode, m->ce->ncorner + m->ce->nnlc,
                m->ce->nnlc ? " (multilink/McPherson by fixed Newton iterations)" : "",
                m->ce->has_axle || m->ce->has_rack ? ", a steered axle" : "", m->njoint, m->nc,
                m->opt.method == VD_METHOD_LSRT2 ? "LSRT2 (W-form)" : "LIE", m->ce->tree->n);
        if (m->ce->lock_proven)
            fprintf(f,
                    "%sformulation ce: locked elements left out of the step: %d bushings (%d of "
                    "them rate-free, no force), %d couplers, %d point-to-point elements (no tree "
                    "coordinate moves them: their rates <= %.1e per unit rate, the moving ones "
                    ">= %.1e, core/ce_lock.c)\n",
                    prefix, m->ce->nlock_bush, m->ce->nfree_bush, m->ce->nlock_cpl,
                    m->ce->nlock_p2p, m->ce->lock_rate, m->ce->live_rate);
        else
            fprintf(f,
                    "%sformulation ce: the locked-element proof did not hold (a sample outside a "
                    "closure's range or a rate in its gap, core/ce_lock.c): every element "
                    "evaluated but %d rate-free bushings (no force)\n",
                    prefix, m->ce->nfree_bush);
        return;
    }
    fprintf(f, "%sjoints: %d with %d constraint rows (%d degrees of freedom), %s form, %s, %s\n",
            prefix, m->njoint, m->nc, m->nq - m->nc,
            m->opt.constraints == VD_CONSTRAINTS_NULLSPACE ? "nullspace" : "index2",
            m->opt.project == VD_PROJECT_NONE        ? "no projection"
            : m->opt.project == VD_PROJECT_POSITIONS ? "positions projected"
                                                     : "positions and velocities projected",
            !vd_cs_structured(m) ? "dense solve"
            : m->opt.constraints == VD_CONSTRAINTS_NULLSPACE
                ? "structured solve (per-cluster null spaces)"
                : "structured solve (block KKT)");
}

int app_apply_constraints(const struct app_solver_opts *o, struct vd_model *m)
{
    char err[256];

    if (o->constraints >= 0)
        m->opt.constraints = o->constraints;
    if (o->linear >= 0)
        m->opt.linear = o->linear;
    if (o->project >= 0)
        m->opt.project = o->project;
    /* the model form: its tree built (or dropped) now, before any data object */
    if (o->formulation >= 0 && vd_model_set_formulation(m, o->formulation, err, sizeof(err))) {
        fprintf(stderr, "rtvd: %s: --formulation: %s\n", m->name, err);
        return -1;
    }
    /* the structured solve of the joints follows opt.linear and opt.constraints */
    if (vd_csb_analyze(m, err, sizeof(err))) {
        fprintf(stderr, "rtvd: %s: %s\n", m->name, err);
        return -1;
    }
    return 0;
}

void app_free_model(struct app_model *am)
{
    if (am->scn) {
        vd_cfg_scenario_free(am->scn);
    } else {
        vd_source_free(am->src);
        vd_model_free(am->m);
    }
    memset(am, 0, sizeof(*am));
}

int app_start(struct app_model *am, struct vd_data *d, bool statics, FILE *info)
{
    if (am->scn) {
        char err[200];
        int rc;

        if (statics)
            am->scn->statics = true;
        rc = vd_scenario_start(am->scn, d, err, sizeof(err));
        if (rc) {
            fprintf(stderr, "rtvd: %s: %s\n", am->path, err);
            return -1;
        }
        fprintf(info, "scenario %s: vehicle %s, %s%s, initial speed %g m/s\n", am->scn->name,
                am->scn->vehicle, am->scn->statics ? "static equilibrium first" : "design pose",
                am->scn->has_driver ? ", closed-loop driver" : "", am->scn->speed0);
        return 0;
    }
    d->input_fn = vd_source_eval;
    d->input_ctx = am->src;
    vd_source_eval(am->src, 0.0, d->u);
    if (statics) {
        int it = vd_equilibrate(am->m, d, 100, 1e-6);

        if (it < 0) {
            fprintf(stderr, "rtvd: no static equilibrium found (%d)\n", it);
            return -1;
        }
        fprintf(info, "static equilibrium after %d Newton iterations\n", it);
    }
    return 0;
}

const char *app_method_name(const struct vd_model *m)
{
    if (m->opt.method == VD_METHOD_LIE)
        return "lie";
    return m->opt.stage2 == VD_STAGE2_NONLINEAR ? "lsrt2 (W-form)" : "lsrt2";
}

int app_resolve_signals(const struct vd_model *m, const char *list, struct vd_signal **sig,
                        char ***names, int *n)
{
    char *copy = strdup(list), *save = NULL, *tok;
    int cap = 1;

    for (const char *p = list; *p; p++)
        cap += *p == ',';
    *sig = calloc((size_t)cap, sizeof(**sig));
    *names = calloc((size_t)cap, sizeof(**names));
    *n = 0;
    if (!copy || !*sig || !*names)
        goto fail;
    for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ')
            tok++;
        if (!*tok)
            continue;
        if (vd_signal_resolve(m, tok, &(*sig)[*n])) {
            fprintf(stderr,
                    "rtvd: unknown signal '%s' (see --list-signals; names are "
                    "<element>.<component>)\n",
                    tok);
            goto fail;
        }
        (*names)[*n] = strdup(tok);
        (*n)++;
    }
    free(copy);
    if (*n == 0) {
        fprintf(stderr, "rtvd: no signals selected\n");
        return -1;
    }
    return 0;
fail:
    free(copy);
    app_free_signals(*sig, *names, *n);
    *sig = NULL;
    *names = NULL;
    return -1;
}

void app_free_signals(struct vd_signal *sig, char **names, int n)
{
    if (names)
        for (int i = 0; i < n; i++)
            free(names[i]);
    free(names);
    free(sig);
}

volatile sig_atomic_t app_stop;

static void on_stop_signal(int sig)
{
    (void)sig;
    app_stop = 1;
}

void app_stop_on_signals(void)
{
    struct sigaction sa = {.sa_handler = on_stop_signal};

    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}
