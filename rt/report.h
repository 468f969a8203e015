/* rt/report.h - the reports of a run, written at exit: one cyclictest-format histogram file
 * per measured quantity (wake-up latency, execution, turnaround: `cyclictest -h` text, so
 * the files compare 1:1 with cyclictest's) and a JSON run report (what ran, where, how it
 * was set up, every counter, the final output values, the CAN section the caller writes,
 * per-stage statistics and all histograms).
 * Owns nothing. Exit-time only (files, stdio, may allocate). */
#ifndef VD_RT_REPORT_H
#define VD_RT_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "rt/loop.h"
#include "rt/sched.h"
#include "rt/telemetry.h"

/* what the caller knows about the run besides the loop and the telemetry */
struct vd_report_meta {
    const char *command_line;
    const char *version, *git_rev;
    const char *config_name;   /* the run file as opened */
    uint64_t config_hash;      /* FNV-1a 64 of the run file, the scenario and model text */
    const char *scenario_path; /* NULL: none */
    const char *model_path, *model_name, *method;
    double dt; /* [s] model step */
    int dof;   /* coordinates */
    const char *blas;
    const char *policy_text; /* e.g. "allow:10:consecutive:freeze:skip" */
    int cpu_requested;       /* -1: not pinned */
    int priority_requested;
    double duration; /* [s] requested, 0: until stopped */
    bool lock_requested, dma_requested;
    const struct vd_rt_mem *mem;
    int dma_fd;    /* >= 0: held */
    int dma_errno; /* why not */
    bool best_effort;
    const char *best_effort_why;        /* "; "-separated reasons */
    const char *udp_dest;               /* NULL: off */
    struct timespec start_utc, end_utc; /* CLOCK_REALTIME */
    int64_t start_mono, end_mono;       /* [ns] CLOCK_MONOTONIC */
    int exit_status;
    const char *const *out_names; /* (nout) published signals */
    int nout;
    /* the CAN section: writes one JSON object (the report puts it under "can"); NULL: the
     * report says "can": null */
    void (*can_json)(void *ctx, FILE *f);
    void *can_ctx;
    /* the motion feed's section, likewise under "motion" (NULL: null) */
    void (*motion_json)(void *ctx, FILE *f);
    void *motion_ctx;
    /* the recording's files, likewise under "recording" (NULL: null) */
    void (*recording_json)(void *ctx, FILE *f);
    void *recording_ctx;
};

/* file names: <dir>/<prefix>-report.json, -latency.hist, -execution.hist, -turnaround.hist */
#define VD_REPORT_NFILES 4
struct vd_report_files {
    char path[VD_REPORT_NFILES][1100];
};

/* exit-time */
/* create dir (and its parents) if needed and write every file; names in *files.
 * 0 or -errno (the first failure; the other files are still attempted) */
int vd_report_write(const char *dir, const char *prefix, struct vd_loop *L,
                    const struct vd_telemetry *tm, const struct vd_report_meta *meta,
                    struct vd_report_files *files);
/* mkdir -p; 0 or -errno */
int vd_mkdir_p(const char *dir);

#endif /* VD_RT_REPORT_H */
