/* app/app.h - shared pieces of the rtvd subcommands: model loading (file or the embedded
 * default), solver option overrides, signal selection. Init-time code only. */
#ifndef VD_APP_APP_H
#define VD_APP_APP_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "config/model_yaml.h"
#include "core/model.h"
#include "core/data.h"
#include "core/signal.h"

struct vd_scenario;

/* embedded files (config/vfs.h; main registers the table): what runs without arguments */
#define APP_DEFAULT_MODEL    "<embedded>/config/models/quarter_car.yaml"    /* sim, bench */
#define APP_DEFAULT_RUN      "<embedded>/config/runs/default.yaml"          /* run, check */
#define APP_DEFAULT_SCENARIO "<embedded>/config/scenarios/hil_default.yaml" /* a run file's */

/* solver options given on the command line; unset fields keep the model's values */
struct app_solver_opts {
    int method;      /* -1: keep */
    int stage2;      /* -1: keep */
    double dt;       /* <= 0: keep */
    int relin;       /* <= 0: keep */
    int constraints; /* enum vd_constraints, -1: keep (models with joints) */
    int project;     /* enum vd_project, -1: keep (models with joints) */
    int formulation; /* enum vd_formulation, -1: keep (solver.formulation) */
    int linear;      /* enum vd_linear, -1: keep (solver.linear; rtvd sim's --linear) */
    /* --solver cvode | ida: the SUNDIALS reference solvers (app/ref_cvode.h for bushing
     * models, app/ref_ida.h for models with joints), accepted only where the subcommand sets
     * allow_cvode (rtvd sim); the model's method stays as it is */
    bool allow_cvode;
    bool cvode;
    bool ida;
    /* --vehicle FILE: replaces a scenario's vehicle (NULL: the scenario's own) */
    const char *vehicle;
};

struct app_model {
    struct vd_model *m;
    struct vd_source *src;
    struct vd_scenario *scn; /* a scenario file (owns m and src), else NULL */
    char path[256];          /* file, or "<embedded>/config/..." */
};

/* load MODEL.yaml, or the embedded default when path is NULL; apply overrides. 0 or -1
 * (diagnostics already printed to stderr) */
int app_load_model(const char *path, const struct app_solver_opts *o, struct app_model *am);
void app_free_model(struct app_model *am);
/* put d into the start state and install the inputs: a scenario's initial state, driver and
 * signals (vd_scenario_start; statics forces its static equilibrium), else the model's
 * signals and, with statics, the static equilibrium. Prints what it did to info; 0 or -1 */
int app_start(struct app_model *am, struct vd_data *d, bool statics, FILE *info);
void app_solver_opts_init(struct app_solver_opts *o);
/* parse one solver option (--solver, --stage2, --dt, --relin, --constraints, --project,
 * --formulation, --linear)
 * value; 0 or -1 with a message */
int app_parse_solver(struct app_solver_opts *o, const char *opt, const char *val);
/* split "a,b,c" into resolved signals (n is set); 0 or -1 with a message */
int app_resolve_signals(const struct vd_model *m, const char *list, struct vd_signal **sig,
                        char ***names, int *n);
void app_free_signals(struct vd_signal *sig, char **names, int n);
const char *app_method_name(const struct vd_model *m);
/* --constraints, --project and --formulation on a model (a no-op for fields left at -1; the
 * form after opt.method is final: the tree forms need lie), then the structured solve of its
 * joints analysed again for them and for opt.linear (vd_csb_analyze); 0, or -1 with the
 * reason on stderr. Call it after any change of opt.linear too, before vd_data_new. */
int app_apply_constraints(const struct app_solver_opts *o, struct vd_model *m);
/* one line on a model's joints (count, rows, form, projection) after prefix; nothing without */
void app_describe_joints(const struct vd_model *m, const char *prefix, FILE *f);
/* a CPU option: N (0..1023), auto (VD_RUN_CPU_AUTO), none (VD_RUN_CPU_NONE, if allowed);
 * 0 or -1 */
int app_parse_cpu(const char *s, bool allow_none, int *cpu);
/* VD_RUN_CPU_AUTO -> the CPU rt/check.h's vd_rt_auto_cpu picks among the allowed ones (the
 * highest isolated, else the highest); anything else unchanged */
int app_resolve_cpu(int cpu);
/* the CPUs a thread may be pinned to (rt/check.h vd_rt_cpuset: the cgroup's cpuset, not the
 * inherited affinity), else the affinity (root "/" only); false: unknown (a fake root) */
bool app_pinnable_cpus(const char *root, cpu_set_t *allowed);
/* strict number parsing: 0 or -1 */
int app_parse_double(const char *s, double *out);
int app_parse_long(const char *s, long *out);

int cmd_sim(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_modes(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_ecu(int argc, char **argv);
int cmd_monitor(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_motion(int argc, char **argv);
int cmd_control(int argc, char **argv);

/* set by SIGINT or SIGTERM once app_stop_on_signals has run: the long-running commands
 * (ecu, monitor, motion) poll it and end their run as if its duration were over */
extern volatile sig_atomic_t app_stop;
/* SIGINT and SIGTERM set app_stop (sigaction, no SA_RESTART: a blocking call returns EINTR) */
void app_stop_on_signals(void);

#endif /* VD_APP_APP_H */
