/* rt/telemetry.h - the non-RT telemetry thread beside the loop: it drains the loop's log ring
 * (formats and prints the messages), drains the per-cycle record ring (counts the records,
 * checks their sequence, optionally writes them to a CSV trace), and at rate_hz takes the
 * loop's status snapshot to redraw a cyclictest-like status line and format a JSON status
 * datagram, which a sink sends (io/udpout.h: UDP to a monitor). It never touches the loop's
 * own state and shares no lock with it. Formatting goes through fixed buffers and write(2):
 * no allocation after init.
 * Owns: the trace fd and its buffer, the thread. Borrows: the sink.
 * vd_telemetry_init/start/join/free: init/exit only. The thread itself: no allocation. */
#ifndef VD_RT_TELEMETRY_H
#define VD_RT_TELEMETRY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "rt/loop.h"
#include "rt/sched.h"
#include "rt/sdnotify.h"

/* CAN link status, published by the CAN I/O thread through a mailbox (cfg.can) and read by
 * the telemetry thread each tick: plain counters, no I/O types (rt does not depend on io).
 * All counts are monotonic from the link's start unless marked "now". */
#define VD_TM_CAN_MAX_IN 64
struct vd_tm_can {
    uint64_t seq;         /* publications */
    uint64_t rx_frames;   /* frames received from the buses and given to the mapping */
    uint64_t rx_used;     /* accepted */
    uint64_t rx_rejected; /* wrong length or E2E status ERROR, REPEATED, WRONG_SEQUENCE */
    uint64_t rx_ignored;  /* unknown identifiers, error and RTR frames */
    uint64_t e2e_ok, e2e_lost, e2e_error, e2e_repeated, e2e_wrong_seq; /* E2E check results */
    uint64_t values_rejected;      /* signal values out of range or NaN (safe value used) */
    uint64_t timeouts, recoveries; /* RX timeout events and their ends */
    uint64_t tx_frames;            /* frames handed to the transport */
    uint64_t drops;        /* frames or datagrams lost anywhere: TX dropped, refused or failed,
                              kernel RX overflow, malformed datagrams, sequence gaps */
    uint64_t slots;        /* 1 ms TX slots served */
    uint64_t late_slots;   /* slots served late or not at all (the thread woke up after the
                            * next one, or began after the first) */
    uint32_t timed_out;    /* inputs in timeout now */
    uint32_t invalid;      /* inputs whose last value was rejected, now */
    uint64_t timeout_mask; /* bit i: input i of cfg.can_names in timeout now */
    int32_t bus_state;     /* worst bus state now (values of enum vd_can_bus_state, io/can.h:
                              0 error-active .. 3 bus-off, 6 unknown) */
    int32_t pad;
};

#define VD_TM_OP_CMDS 5  /* the operator's commands counted (app/motionctl.h APP_OPC_N) */
#define VD_TM_OP_WHY  13 /* its refusal reasons + 1 (APP_OPW_N) */

/* motion feed status, published by the motion thread (app/motionlink.h) through a mailbox
 * (cfg.motion) and read by the telemetry thread each tick; monotonic counts from its start */
struct vd_tm_motion {
    uint64_t seq;          /* publications */
    uint64_t sent;         /* datagrams sent */
    uint64_t send_errors;  /* sendto failures (the datagram is lost, counted) */
    uint64_t samples;      /* loop outputs taken (one per cycle when on time) */
    uint64_t missed;       /* loop cycles whose output the thread never saw */
    uint64_t rejected;     /* send periods whose cues were NaN or beyond a limit */
    uint64_t faults;       /* fault events (the first one parks the platform) */
    uint64_t heartbeats;   /* platform heartbeats taken (RTVH; moog_mda: its statuses) */
    uint64_t foreign;      /* datagrams from the platform that are no heartbeat (RTVH) */
    uint64_t late;         /* sends later than 100 us after their time */
    int64_t late_max_ns;   /* [ns] latest send after its time */
    int32_t state, reason; /* enum vd_motion_state, enum vd_motion_reason (io/motion.h) */
    float fade;            /* [-] 0 neutral .. 1 live */
    int32_t rate_hz;
    const char *state_name; /* static strings of io/motion.c */
    const char *reason_name;
    /* the platform's own status (format moog_mda: the Moog MBC's status messages) */
    int32_t platform;                /* 1: the feed reads the platform's status */
    int32_t platform_state;          /* the MBC's encodedMachineState; -1 none received yet */
    uint32_t platform_fault[3];      /* its latched fault words, as last reported */
    uint64_t status_rx;              /* status messages accepted */
    uint64_t status_rejected;        /* status datagrams rejected (malformed, counted) */
    uint64_t resets;                 /* datagrams with its fault reset (RESET) sent: sendto
                                      * sent them (at start and the operator's) */
    uint64_t engage_timeouts;        /* no ENGAGED within the engage timeout (the first
                                      * handshake and each operator ENGAGE) */
    const char *platform_state_name; /* static string of io/motion.c ("" none yet) */
    int32_t reason_not_fault;        /* 1: reason is no fault (the operator's park) */
    /* the operator's control channel (app/motionctl.h); op_cmd_name NULL: none. Appended: a
     * monitor of before reads the datagram as ever */
    const char *const *op_cmd_name;    /* VD_TM_OP_CMDS static names: park reset engage ... */
    const char *const *op_why_name;    /* VD_TM_OP_WHY static names, [0] accepted (unused) */
    uint64_t op_cmd[VD_TM_OP_CMDS][2]; /* requests by command: [0] accepted, [1] refused */
    uint64_t op_why[VD_TM_OP_WHY];     /* refused by reason */
    uint64_t op_parks, op_reengages, op_resets_acked, op_resets_failed, op_engage_timeouts;
    uint64_t op_resets_cut; /* RESETs cut short by the run's end */
    const char *op_pending; /* static: "none", "reset", "engage" */
    uint64_t wrong_source;  /* datagrams from another sender than the platform, not read */
    uint64_t hb_stale;      /* RTVH heartbeats refused: a counter not above the last taken */
};

/* The status datagram's coarse histograms (for a monitor's charts and Prometheus): bucket i
 * counts the samples v with le[i-1] < v <= le[i] [us] (Prometheus' "le" buckets), the last
 * bucket those above the last edge. Cumulative from the start, so a lost datagram loses
 * nothing. The datagram's fields: app/monitor.h (the reader) documents every one. */
#define VD_TM_STATUS_VERSION 2
#define VD_TM_HIST_N         27 /* buckets, the last one unbounded */
extern const int32_t vd_tm_hist_le_us[VD_TM_HIST_N - 1];
#define VD_TM_SERIES_MAX 256 /* per-cycle values per datagram; more cycles: max of k cycles */
#define VD_TM_EVENTS_MAX 32  /* overrun events per datagram; more are counted as lost */
#define VD_TM_DGRAM_MAX  16384

struct vd_tm_hist {
    uint64_t n[VD_TM_HIST_N];
    uint64_t count;
    int64_t sum_ns; /* [ns] */
};

/* an overrun seen in the records */
struct vd_tm_event {
    uint64_t cycle;
    int64_t overrun_ns;    /* [ns] completion - deadline */
    int64_t turnaround_ns; /* [ns] */
    uint32_t flags;        /* enum vd_cycle_flags */
};

struct vd_telemetry_cfg {
    double rate_hz;      /* [Hz] status line and datagram rate, (0, 1000] */
    int status_fd;       /* live status line; -1: none */
    bool status_refresh; /* redraw one line with '\r' (a terminal); else a line per second */
    int log_fd;          /* log messages; -1: none */
    /* status datagrams: send(send_ctx, datagram, length) once per tick, 0 or -errno, from
     * the telemetry thread (RT-safe: no allocation, no blocking); NULL: none */
    int (*send)(void *ctx, const void *buf, size_t len);
    void *send_ctx;
    const char *trace_path; /* per-cycle CSV trace; NULL: none */
    int overrun_log_max;    /* overrun messages printed one by one; later ones are counted */
    /* CAN link status (struct vd_tm_can) from the CAN thread; NULL: no CAN. The status line
     * gains "CAN rx: tx: rej: to:", the datagram a "can" object naming the inputs in
     * timeout from can_names[0, ncan_names) (borrowed, at most VD_TM_CAN_MAX_IN) */
    struct vd_mailbox *can;
    const char *const *can_names;
    int ncan_names;
    const char *name; /* the datagram's "target" (the run file); NULL: "" (borrowed) */
    /* the service manager (rt/sdnotify.h, borrowed): on a tick where the loop's cycle count
     * advanced and at least watchdog_ns/4 after the last one, "WATCHDOG=1" with a STATUS=
     * line (cycles, overruns, worst turnaround, skipped releases). The loop's heartbeat is
     * judged and fed here, never on the loop thread: a stalled loop stops the pings and the
     * service manager acts. NULL or not under a service manager: none */
    struct vd_sdnotify *notify;
    /* log lines start with a syslog priority "<N>" (sd-daemon(3)): journald files overruns
     * as warnings; set when stderr is the journal ($JOURNAL_STREAM) */
    bool syslog_prefix;
    /* motion feed status (struct vd_tm_motion); NULL: no feed. The status line gains
     * "MOT <state> tx: flt:", the datagram a "motion" object */
    struct vd_mailbox *motion;
};

struct vd_telemetry {
    struct vd_telemetry_cfg cfg;
    struct vd_loop *loop;
    struct vd_thread thread;
    int trace_fd;    /* -1: no trace */
    char *trace_buf; /* (trace_cap) */
    size_t trace_len, trace_cap;
    char line[2048]; /* formatting buffer */
    char dgram[VD_TM_DGRAM_MAX];
    char host[72]; /* uname nodename */
    int pid;

    /* statistics of the records received, since the start */
    struct vd_cycle_rec last;                                   /* the newest */
    int64_t exec_min_ns, turn_min_ns, exec_sum_ns, turn_sum_ns; /* [ns] */
    int64_t stage_sum_ns[VD_STAGE_COUNT], stage_max_ns[VD_STAGE_COUNT];
    uint64_t stage_count; /* records of stepped cycles */
    struct vd_tm_hist h_lat, h_exec, h_turn;
    /* since the last datagram: the per-cycle series (value j covers cycles ser_first + j k ..
     * + (j + 1) k - 1, k = ser_step, the maximum of them; -1: no record) and the overruns */
    uint64_t ser_first;
    int ser_n, ser_step;
    int32_t ser_turn_us[VD_TM_SERIES_MAX], ser_lat_us[VD_TM_SERIES_MAX];
    struct vd_tm_event ev[VD_TM_EVENTS_MAX];
    int nev;
    uint64_t ev_lost;       /* events not sent (more than VD_TM_EVENTS_MAX in one tick) */
    uint64_t events;        /* overrun records seen */
    uint64_t format_errors; /* datagrams too long for the buffer (not sent) */

    /* the thread's counters; read after vd_telemetry_join */
    uint64_t records;             /* cycle records received */
    uint64_t record_gaps;         /* cycles missing in the record sequence (ring drops) */
    uint64_t next_cycle;          /* expected next record */
    uint64_t logs;                /* log records received */
    uint64_t overrun_logs;        /* overrun messages received */
    uint64_t overruns_suppressed; /* overrun messages not printed */
    uint64_t status_lines;        /* status lines written */
    uint64_t datagrams;           /* status datagrams sent */
    uint64_t send_errors;         /* sink failures */
    uint64_t trace_errors;        /* short or failed trace writes */
    uint64_t ticks;
    uint64_t can_status;        /* CAN status snapshots taken */
    uint64_t motion_status;     /* motion status snapshots taken */
    uint64_t watchdog_pings;    /* WATCHDOG=1 sent */
    uint64_t watchdog_withheld; /* ticks due for a ping without a new cycle (loop stalled) */
    uint64_t watchdog_cycles;   /* the loop's cycle count at the last ping */
    int64_t watchdog_last_ns;   /* [ns] CLOCK_MONOTONIC of the last ping; 0: none */
    char notify_buf[256];
    bool line_open; /* a '\r' status line is on screen */
    /* set by vd_telemetry_join: the final status waits for it after the loop ended, so that
     * it carries the counters of threads stopped in between (the CAN link's last status) */
    _Atomic int finish;
};

/* init-time (may allocate) */
void vd_telemetry_cfg_default(struct vd_telemetry_cfg *c);
/* trace file created with its header; 0 or -errno */
int vd_telemetry_init(struct vd_telemetry *tm, struct vd_loop *loop,
                      const struct vd_telemetry_cfg *cfg);
/* start the thread (SCHED_OTHER, not pinned); call after vd_loop_start. 0 or -errno */
int vd_telemetry_start(struct vd_telemetry *tm);
/* wait until the loop is done and everything is drained and printed; the final status (line
 * and datagram) is sent only now, so stop the threads whose counters it reports (the CAN
 * link) before calling this; 0 or -errno */
int vd_telemetry_join(struct vd_telemetry *tm);
void vd_telemetry_free(struct vd_telemetry *tm);

#endif /* VD_RT_TELEMETRY_H */
