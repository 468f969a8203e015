/* app/run_session.h - one `rtvd run`, in phases. cmd_run.c parses the options into
 * struct run_opts and calls the phases in order:
 *   run_session_setup    memory, the start state, CAN, the loop, the CAN/motion/recording
 *                        links and the telemetry, in cyclictest's order (rt/);
 *   run_session_announce what will run, on stdout;
 *   run_session_start    signals, the loop thread, then the other threads;
 *   run_session_finish   waits for the loop to stop, stops the threads in order
 *                        (run_session.c);
 *   run_session_summary  the summary on stdout, the exit status;
 *   run_session_reports  the report files (run_summary.c);
 *   run_session_free     whatever the set-up got to.
 * Init-time and end-of-run code only: the RT loop is rt/loop.c. */
#ifndef VD_APP_RUN_SESSION_H
#define VD_APP_RUN_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "app/app.h"
#include "app/canlink.h"
#include "app/ecu.h"
#include "app/motionlink.h"
#include "app/recording.h"
#include "config/run_yaml.h"
#include "core/cue.h"
#include "core/data.h"
#include "io/udpout.h"
#include "rt/check.h"
#include "rt/loop.h"
#include "rt/report.h"
#include "rt/sdnotify.h"
#include "rt/telemetry.h"

#define RUN_MAX_INJECT   32
#define RUN_EXIT_OVERRUN 3

/* --inject-delay: busy-wait on chosen cycles (the loop thread) */
struct run_inject {
    int n;
    uint64_t cycle[RUN_MAX_INJECT];
    int64_t ns[RUN_MAX_INJECT];
};

/* the command line; unset fields keep the run file's values */
struct run_opts {
    double duration; /* < 0: config */
    int period_us, priority, grace, hist_us;
    int cpu; /* VD_RUN_CPU_*, >= 0, or -3: config */
    const char *policy, *udp, *dir, *prefix;
    const char *record; /* --record FILE|off */
    int record_format;  /* --record-format: enum vd_run_record_format, 0: the run file's */
    double rate_hz;
    bool no_mlock, no_dma, trace, quiet;
    bool marker;             /* --trace-marker */
    const char *marker_path; /* NULL: the tracefs (or debugfs) marker */
    struct run_inject inject;
    int linear;                 /* -1: the model's */
    const char *can;            /* mapping or "off"; NULL: the run file's */
    int can_priority, can_port; /* -1: the run file's */
    int ecu;                    /* -1: the run file's, 0 off, 1 on */
    int nfault;                 /* --ecu-fault */
    struct app_ecu_fault fault[VD_RUN_MAX_FAULTS];
    bool strict_dbc;           /* --strict */
    const char *motion;        /* --motion DEST|off; NULL: the run file's */
    int motion_format;         /* -1: the run file's */
    int motion_rate;           /* 0: the run file's */
    double motion_hb;          /* < 0: the run file's */
    const char *motion_ctl;    /* --motion-control PATH|off; NULL: the run file's */
    const char *vehicle;       /* --vehicle: replaces the scenario's vehicle */
    struct app_solver_opts so; /* --constraints, --project (models with joints) */
};

/* CAN: the target link and the in-process ECU */
struct run_can {
    struct app_can_side side;
    struct app_canlink link;
    struct app_ecu ecu;
    bool side_up, link_up, ecu_up, link_started, ecu_started;
    const char **out_names; /* (noutput) the loop's signal names */
    const char **in_names;  /* (ninput) the model's input names, for the telemetry */
};

/* how far the set-up got: run_session_free undoes that much */
enum run_level {
    RUN_NONE,
    RUN_CFG,       /* the configuration loaded */
    RUN_DATA,      /* the model's data, the CAN mapping and buses, the trace marker */
    RUN_LOOP,      /* the loop, the links, the recording, the status socket */
    RUN_TELEMETRY, /* the telemetry, cpu_dma_latency, the signal handlers */
};

struct run_session {
    const struct run_opts *o;
    enum run_level level;
    struct vd_run_cfg *c;
    struct vd_data *d;
    struct vd_loop L;
    struct vd_loop_cfg lc;
    struct vd_telemetry tm;
    struct vd_telemetry_cfg tc;
    struct vd_udpout uo;
    struct vd_rt_mem mem;
    struct vd_report_meta meta;
    char blas[256], why[768], ptext[96], trace[1100], cmdline[2048];
    int cpu, dma_fd, dma_errno, marker_fd;
    vd_input_fn scen_fn;
    void *scen_ctx;
    bool tm_up;
    struct run_can cn;
    struct vd_sdnotify sdn;
    struct app_motionlink *mk; /* the motion feed (large: on the heap) */
    struct vd_cue_point cue;
    bool mk_started;
    struct app_recording recd;
    bool rec_up, rec_started;
    int rec_rc;
    int *rec_idx;
    const char **rec_names;
    char rec_path[VD_RUN_PATH_MAX + 80];
};

/* s zeroed and its configuration c loaded with the options applied (level RUN_CFG);
 * cmdline set. 0 or -1 (diagnostics printed) */
int run_session_setup(struct run_session *s);
void run_session_announce(struct run_session *s);
/* 0, or -1: the loop thread did not start */
int run_session_start(struct run_session *s);
void run_session_finish(struct run_session *s);
/* the exit status: 0, 1 (step errors, a recording write error) or RUN_EXIT_OVERRUN */
int run_session_summary(struct run_session *s);
/* the status after writing the reports (1 if they could not be written) */
int run_session_reports(struct run_session *s, int status);
void run_session_free(struct run_session *s);

#endif /* VD_APP_RUN_SESSION_H */
