/* rt/loop.h - the real-time loop: one thread that steps the model on an absolute
 * CLOCK_MONOTONIC grid, measures itself as cyclictest and HIL platforms do, and applies the
 * overrun policy (rt/policy.h). Per cycle (DESIGN.md §1):
 *   1. clock_nanosleep(TIMER_ABSTIME) to the release r; wake-up latency = wake - r;
 *   2. take the newest input snapshot (values with a valid flag per model input; inputs not
 *      provided come from the scenario function, or the initial inputs);
 *   3. vd_step (skipped while frozen);
 *   4. vd_outputs + the selected signals into an output snapshot, published to every tap;
 *   5. done = now: execution = done - wake, turnaround = done - r; histograms, counters,
 *      a record into the cycle ring, the policy's decision, a status snapshot.
 * The loop thread calls no stdio, no malloc and no blocking syscall after its warm-up; other
 * threads talk to it only through the mailboxes and rings below (no shared lock).
 * Owns: the input/output/status mailboxes, the cycle and log rings, the histograms, the
 * thread and its stack. Borrows: the model, the data, the scenario and the signal list.
 *
 * vd_loop_init/start/join/free: init/exit only (allocate, create threads). Other threads:
 * vd_loop_input_back/publish (one producer), vd_loop_output (one reader per tap),
 * vd_loop_status, vd_loop_request_stop (async-signal-safe), vd_loop_done: RT-safe.
 * Histograms, policy state and counters belong to the loop thread until vd_loop_join. */
#ifndef VD_RT_LOOP_H
#define VD_RT_LOOP_H

#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/cue.h"
#include "core/data.h"
#include "core/model.h"
#include "core/signal.h"
#include "rt/hist.h"
#include "rt/mailbox.h"
#include "rt/policy.h"
#include "rt/ring.h"
#include "rt/sched.h"
#include "rt/tracemark.h"

#define VD_LOOP_MAX_TAPS 4

struct vd_loop_cfg {
    struct vd_policy_cfg policy; /* overrun policy and the period */
    int64_t duration_ns;         /* [ns] from the first release; 0: until stopped */
    int cpu;                     /* CPU of the loop thread; -1: not pinned */
    int priority;                /* SCHED_FIFO priority 1..99; 0: SCHED_OTHER */
    int hist_us;                 /* [us] histogram range, 1 us buckets */
    int rec_order;               /* log2 capacity of the cycle ring [records] */
    int log_order;               /* log2 capacity of the log ring [records] */
    int ntaps;                   /* output snapshot readers, 1..VD_LOOP_MAX_TAPS */
    size_t stack_size;           /* [bytes] loop thread stack, prefaulted */
    int64_t start_lead_ns;       /* [ns] first release this long after the warm-up */
    int marker_fd; /* rt/tracemark.h: one line per overrun into it; -1: none (borrowed) */
    /* full-rate recording: per cycle a struct vd_rec_head and the values of the outputs
     * rec_sig[0, rec_nsig) (indices into the signal list) into the ring `recording` of
     * 2^rec_ring_order records, for a non-RT thread to write (app/recording.h) */
    bool record;
    int rec_nsig;
    const int *rec_sig; /* (rec_nsig) borrowed until vd_loop_init returns */
    int rec_ring_order;
    /* motion cues (core/cue.h) at this point appended to every output snapshot: values
     * [nsig, nsig + VD_CUE_N) of the snapshots (and of the recording's indices); NULL: none
     * (borrowed for the loop's life) */
    const struct vd_cue_point *cue;
    /* tests only: called on the loop thread right after the step of every cycle */
    void (*hook)(void *ctx, uint64_t cycle);
    void *hook_ctx;
};

/* an input or output snapshot: n values, then n valid flags (uint8_t) */
struct vd_snapshot {
    uint64_t seq;     /* producer's counter; outputs: the cycle */
    int64_t stamp_ns; /* [ns] CLOCK_MONOTONIC when written; outputs: the release */
    double t;         /* [s] outputs: model time of the values */
    uint32_t flags;   /* outputs: enum vd_snap_flags */
    int32_t n;        /* values */
    double value[];   /* (n) [SI] */
};
enum vd_snap_flags {
    VD_SNAP_FROZEN = 1u << 0,     /* the model is frozen: values held */
    VD_SNAP_OVERRUN = 1u << 1,    /* the latched overrun flag */
    VD_SNAP_FINAL = 1u << 2,      /* the loop has stopped */
    VD_SNAP_STEP_ERROR = 1u << 3, /* this cycle's step failed (values held) */
};
/* the final snapshot carries the stop reason (enum vd_stop_reason) in bits 8..15 */
#define VD_SNAP_REASON_SHIFT 8

/* one record per cycle, loop -> telemetry (64 bytes) */
struct vd_cycle_rec {
    uint64_t cycle;
    int64_t release_ns;               /* [ns] scheduled release, CLOCK_MONOTONIC */
    int64_t latency_ns;               /* [ns] wake - release */
    int64_t exec_ns;                  /* [ns] done - wake */
    int64_t turnaround_ns;            /* [ns] done - release */
    int32_t stage_ns[VD_STAGE_COUNT]; /* [ns] core stages of the step (0: not run) */
    uint32_t flags;                   /* enum vd_cycle_flags */
    uint32_t skipped;                 /* releases dropped after this cycle */
};
enum vd_cycle_flags {
    VD_CYC_OVERRUN = 1u << 0,     /* completed after its deadline */
    VD_CYC_GRACE = 1u << 1,       /* within the startup grace */
    VD_CYC_FROZEN = 1u << 2,      /* the model was not stepped */
    VD_CYC_STEP_ERROR = 1u << 3,  /* vd_step failed */
    VD_CYC_INPUT_FRESH = 1u << 4, /* a new input snapshot was taken */
};

/* one record of the recording ring: the cycle's record, the model time after the step, then
 * cfg.rec_nsig doubles (the recorded outputs, held while frozen) */
struct vd_rec_head {
    struct vd_cycle_rec c;
    double t; /* [s] */
};

/* log messages, loop -> telemetry; the telemetry thread formats them */
enum vd_log_code {
    VD_LOG_START = 0, /* a = period [ns] */
    VD_LOG_OVERRUN,   /* a = overrun length [ns], b = pending releases */
    VD_LOG_GRACE_OVERRUN,
    VD_LOG_FREEZE,     /* a = overruns, b = consecutive */
    VD_LOG_STOP,       /* a = enum vd_stop_reason */
    VD_LOG_STEP_ERROR, /* a = -errno */
};
struct vd_log_rec {
    uint64_t cycle;
    int64_t t_ns; /* [ns] CLOCK_MONOTONIC */
    int32_t code; /* enum vd_log_code */
    int32_t pad;
    int64_t a, b;
};

/* live status, loop -> telemetry, published every cycle */
struct vd_loop_status {
    uint64_t cycles, overruns, grace_overruns, skipped, max_consecutive, frozen_cycles;
    uint64_t step_errors, rec_dropped, log_dropped;
    uint64_t consecutive;                           /* current run of overruns (after grace) */
    int64_t first_overrun_cycle, max_overrun_cycle; /* -1: none */
    uint64_t marker_writes, marker_errors;          /* trace markers written, failed */
    int64_t lat_min_ns, lat_act_ns, lat_avg_ns, lat_max_ns; /* [ns] wake-up latency */
    int64_t exec_max_ns, turn_max_ns, max_overrun_ns;       /* [ns] */
    int64_t release_ns;                                     /* [ns] last release */
    double t_model;                                         /* [s] */
    int32_t state, reason; /* enum vd_run_state, enum vd_stop_reason */
    int32_t latched, final;
};

enum vd_loop_phase { VD_PHASE_INIT = 0, VD_PHASE_READY, VD_PHASE_RUNNING, VD_PHASE_DONE };

struct vd_loop {
    struct vd_loop_cfg cfg;
    const struct vd_model *m;
    struct vd_data *d;
    vd_input_fn scen_fn; /* scenario inputs (RT-safe), or NULL: the initial d->u held */
    void *scen_ctx;
    const struct vd_signal *sig; /* (nsig) published outputs */
    int nsig;
    int nout; /* values per output snapshot: nsig, + VD_CUE_N with cfg.cue */

    double *base_u;       /* (ninput) d->u at init */
    double *in_u;         /* (ninput) last input snapshot taken */
    uint8_t *in_valid;    /* (ninput) */
    double *out_val;      /* (nout) last computed outputs and cues (held while frozen) */
    double *save_rv;      /* (2 nq) state saved around the warm-up step */
    struct vd_mailbox in; /* struct vd_snapshot, producer -> loop */
    struct vd_mailbox out[VD_LOOP_MAX_TAPS]; /* struct vd_snapshot, loop -> tap reader */
    struct vd_mailbox status;                /* struct vd_loop_status, loop -> telemetry */
    struct vd_ring rec;                      /* struct vd_cycle_rec */
    struct vd_ring log;                      /* struct vd_log_rec */
    struct vd_ring recording;                /* struct vd_rec_head + values (cfg.record) */
    int *rec_sig;                            /* (cfg.rec_nsig) copy of cfg.rec_sig */
    unsigned char *rec_buf;                  /* one recording record, assembled */

    /* the loop thread's; read after vd_loop_join */
    struct vd_hist h_lat, h_exec, h_turn;   /* wake-up latency, execution, turnaround */
    struct vd_hist h_stage[VD_STAGE_COUNT]; /* per core stage, stepped cycles */
    struct vd_policy_state pol;
    uint64_t step_errors;
    uint64_t inputs_taken;                  /* fresh input snapshots used */
    uint64_t marker_writes, marker_errors;  /* trace markers (cfg.marker_fd) */
    char marker_buf[VD_TRACEMARK_LINE_MAX]; /* one marker line */
    int last_step_rc;
    int warmup_rc;
    int64_t t_first_release, t_last_done; /* [ns] CLOCK_MONOTONIC */
    struct vd_sched_info sched;           /* what the loop thread obtained */
    struct vd_loop_status st;             /* running copy of the status */

    struct vd_thread thread;
    sem_t ready;
    bool ready_init; /* sem_init done */
    _Atomic int stop_req;
    _Atomic int phase; /* enum vd_loop_phase */
};

/* init-time (may allocate) */
void vd_loop_cfg_default(struct vd_loop_cfg *c);
/* check cfg, allocate and prefault every buffer. d->input_fn is taken over by the loop.
 * 0, -EINVAL (bad cfg), -ENOMEM */
int vd_loop_init(struct vd_loop *L, const struct vd_loop_cfg *cfg, const struct vd_model *m,
                 struct vd_data *d, vd_input_fn scen_fn, void *scen_ctx,
                 const struct vd_signal *sig, int nsig);
/* create the loop thread (rt/sched.h: SCHED_FIFO, affinity, own stack), let it warm up the
 * solver (vd_solver_warmup + one dry step, state restored) and wait for that; the first
 * release follows start_lead_ns later. 0, or -errno (thread or warm-up failure; the thread
 * is joined then) */
int vd_loop_start(struct vd_loop *L);
/* wait for the loop thread to end; 0 or -errno */
int vd_loop_join(struct vd_loop *L);
void vd_loop_free(struct vd_loop *L);
/* bytes of a snapshot with n values (L->nout for the output snapshots) */
size_t vd_snapshot_size(int n);
/* bytes of one record of the recording ring */
size_t vd_loop_record_size(const struct vd_loop *L);

/* RT-safe, any thread */
/* ask the loop to stop at its next release; async-signal-safe */
void vd_loop_request_stop(struct vd_loop *L);
/* the loop thread has finished (its last status and records are published) */
bool vd_loop_done(struct vd_loop *L);
/* valid flags of a snapshot */
uint8_t *vd_snapshot_valid(struct vd_snapshot *s);
const uint8_t *vd_snapshot_valid_c(const struct vd_snapshot *s);
/* producer of inputs (one thread): fill every value and flag of the returned snapshot
 * (n = m->ninput), then publish */
struct vd_snapshot *vd_loop_input_back(struct vd_loop *L);
void vd_loop_input_publish(struct vd_loop *L);
/* reader of tap i (one thread per tap): newest output snapshot or NULL */
const struct vd_snapshot *vd_loop_output(struct vd_loop *L, int tap, bool *fresh);
/* reader of the status (one thread): newest status or NULL */
const struct vd_loop_status *vd_loop_status(struct vd_loop *L, bool *fresh);

#endif /* VD_RT_LOOP_H */
