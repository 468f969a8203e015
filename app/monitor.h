/* app/monitor.h - the state of `rtvd monitor`: what it learnt from the status datagrams of one
 * or several targets (`rtvd run`, rt/telemetry.h), the datagrams it rejected and why, and the
 * alarms it raised; and three views of it: the terminal block, the Prometheus text exposition
 * (/metrics) and the JSON the web page draws (/api/status). A process of its own (DESIGN §6:
 * a browser or a scraper never touches a target's threads); nothing here is real-time.
 * Owns: the targets, their bounded histories (per-cycle series, overrun events, CAN counters,
 * alarms) and the newest datagram of each. Not thread-safe: one thread feeds and renders.
 *
 * The status datagram (version 2; version 1 carries only the flat fields marked v1), one JSON
 * object per telemetry tick (rate_hz, 10 Hz by default), at most 16 KiB:
 *   rtvd_status      2 (the version)                                          v1: 1
 *   seq              datagrams sent before this one by the target             v1
 *   target           the run file (its path as UTF-8: a byte that begins no well-formed
 *                    UTF-8 sequence and a control character as U+FFFD, at most 255 bytes,
 *                    cut at a character); host: uname nodename (the same); pid, tid (loop
 *                    thread), priority
 *   period_us        the loop period [us]
 *   cycles           cycles executed                                          v1
 *   t_model          [s] model time                                           v1
 *   state            running | frozen | stopped; final: the last datagram     v1
 *   lat_{min,act,avg,max}_us, exec_max_us, turnaround_max_us  [us] integers   v1
 *   overruns, grace_overruns, max_consecutive, max_overrun_us, skipped, latched,
 *   step_errors, ring_dropped                                                 v1
 *   latency_us, execution_us, turnaround_us   {min, act, avg, max} [us]: wake-up latency (all
 *                    cycles, from the loop), execution and turnaround (min and avg over the
 *                    records received, max from the loop; act: the newest cycle)
 *   stages_us        {linearize|assemble|factor|stages: {act, avg, max}} [us], stepped cycles
 *   overrun          {total (after the grace), grace, consecutive (now), max_consecutive,
 *                    max_us (longest overrun: completion - deadline), max_cycle, first_cycle
 *                    (-1: none), latched, skipped (releases), frozen_cycles}
 *   records          {received, dropped (the loop's ring was full), gaps, overruns (records
 *                    flagged as overrun, grace included)}
 *   recording        (when rtvd run records) {pushed, dropped}: records into the recording
 *                    ring and those dropped because it was full (app/recording.h)
 *   trace_marker     (with --trace-marker) {writes, errors}
 *   events           [{cycle, overrun_us, turnaround_us, grace}] the overruns since the last
 *                    datagram (at most 32; events_lost counts the rest since the start)
 *   series           {first_cycle, step, n, turnaround_us[n], latency_us[n]}: the cycles since
 *                    the last datagram, value j = max over cycles first_cycle + j step ..
 *                    + step - 1 [us, integer 0 .. 2147483647: int32, the sender clamps to
 *                    it]; null: no record
 *   hist             {le_us[26], latency|execution|turnaround: {count, sum_us, n[27]}}: counts
 *                    of samples v with le[i-1] < v <= le[i] (the last: above 10 ms), from the
 *                    start (cumulative: a lost datagram loses nothing); count = the sum of
 *                    the 27 (the last included: /metrics' +Inf bucket), else a bad field
 *   can              (with CAN) {seq, rx_frames, rx_used, rx_rejected, rx_ignored, e2e_ok,
 *                    e2e_ok_some_lost, e2e_error, e2e_repeated, e2e_wrong_sequence,
 *                    values_rejected, timeouts, recoveries, tx_frames, drops, slots,
 *                    late_slots, invalid, bus_state (0 error-active .. 3 bus-off, 6 unknown),
 *                    timed_out [input names]}
 *   motion           (with a motion feed) an object: its numeric and boolean members are
 *                    shown as they come, a member "fault" (string, or true) raises an alarm;
 *                    /metrics exports the members below only (no name from the network);
 *                    operator.commands' names must be [a-z_]{1,24} (label values). rtvd
 *                    run's feed (app/motionlink.h) sends {state, reason, fault (the reason
 *                    of a fault, else ""), seq, sent, send_errors, samples, missed_cycles,
 *                    rejected, faults, engage_timeouts,
 *                    heartbeats, foreign, wrong_source, hb_stale, late_sends, late_max_us,
 *                    rate_hz, fade_pct, and with
 *                    format moog_mda platform {state, state_code, fault1, fault2, fault3,
 *                    status, rejected, resets}, and with an operator control channel
 *                    operator {pending, commands {park|reset|engage|status|other: {accepted,
 *                    refused}}, refused {malformed, unknown, not_engaged, not_parked, busy,
 *                    no_platform, fault, run_ended, loop, heartbeat, settling, no_fault},
 *                    parks, reengagements,
 *                    resets_acked, resets_failed, resets_cut, engage_timeouts}: the
 *                    "operator:" line,
 *                    events (not alarms) when parks, resets_acked or reengagements grow,
 *                    rtvd_motion_operator_commands_total{cmd,result} and _parks_total,
 *                    _reengagements_total, _resets_acked_total, _resets_failed_total,
 *                    _resets_cut_total}
 * Rejected, each counted by reason: longer than the receive buffer (truncated: its true length,
 * from MSG_TRUNC, beyond the bytes held; UDP cuts nothing else), longer than 16 KiB (too_big),
 * not JSON (not_json: a whole datagram the parser refuses, an early end included), not an rtvd
 * status object, a version newer than 2, a required field missing, of the wrong type,
 * negative, not finite or out of its range (a series value above 2147483647, a histogram count
 * not the sum of its buckets; the optional blocks checked in version 1 too), a sender outside
 * --allow, a new sender when 16 targets are live (one that ended or fell silent gives up its
 * slot, the longest ago first), a sequence number not after the last one (duplicate or
 * reordered). */
#ifndef VD_APP_MONITOR_H
#define VD_APP_MONITOR_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define APP_MON_MAX_TARGETS 16
#define APP_MON_MAX_ALLOW   16
#define APP_MON_SERIES      20000 /* per-cycle values kept per target (20 s at 1 kHz) */
#define APP_MON_EVENTS      256   /* overrun events kept per target */
#define APP_MON_CANHIST     600   /* CAN counter samples kept per target (60 s at 10 Hz) */
#define APP_MON_ALARMS      32    /* alarms kept per target */
#define APP_MON_DGRAM_MAX   16384 /* [bytes] the protocol's largest datagram */
#define APP_MON_HIST_N      27

enum app_mon_reject {
    APP_MON_TOO_BIG = 0,
    APP_MON_TRUNCATED,
    APP_MON_NOT_JSON,
    APP_MON_NOT_STATUS,
    APP_MON_BAD_VERSION,
    APP_MON_BAD_FIELD,
    APP_MON_UNKNOWN_SENDER,
    APP_MON_TOO_MANY_TARGETS,
    APP_MON_STALE,
    APP_MON_NREJECT
};

enum app_mon_level { APP_MON_INFO = 0, APP_MON_WARN, APP_MON_ALARM };

struct app_mon_alarm {
    double wall; /* [s] CLOCK_REALTIME when raised */
    double mono; /* [s] CLOCK_MONOTONIC when raised */
    int level;   /* enum app_mon_level */
    char text[200];
};

struct app_mon_event {
    uint64_t cycle;
    double overrun_us, turnaround_us;
    bool grace;
};

struct app_mon_canpt {
    double mono; /* [s] */
    uint64_t rx_used, tx_frames, rejected, timeouts, drops;
};

struct app_mon_hist {
    uint64_t n[APP_MON_HIST_N];
    uint64_t count;
    double sum_us;
};

struct app_mon_target {
    bool used;
    struct sockaddr_in from;
    char addr[32];  /* "a.b.c.d:port" of the sender */
    char name[256]; /* the datagram's target (the run file) */
    char host[72];
    long pid;
    void *last; /* json_t *: the newest datagram */
    int version;
    double first_mono, last_mono; /* [s] receive times */
    double interval;              /* [s] between datagrams, smoothed */
    uint64_t datagrams, lost, seq;
    bool silent, ended;
    /* previous counters, for the alarms */
    uint64_t overruns, grace, step_errors, can_timeouts, can_drops, can_rejected, events_lost;
    uint64_t rec_dropped;
    bool latched;
    int bus_state;
    char motion_fault[64];
    uint64_t op_parks, op_reengages, op_resets; /* motion.operator's, as last seen */
    double period_us;
    /* histories (rings) */
    uint64_t *s_cycle; /* (APP_MON_SERIES) */
    int32_t *s_turn, *s_lat;
    size_t s_head, s_n;
    struct app_mon_event ev[APP_MON_EVENTS];
    size_t ev_head, ev_n;
    uint64_t events; /* overrun events received */
    struct app_mon_canpt can[APP_MON_CANHIST];
    size_t can_head, can_n;
    struct app_mon_alarm alarm[APP_MON_ALARMS];
    size_t al_head, al_n;
    uint64_t alarms; /* raised */
    double le_us[APP_MON_HIST_N - 1];
    struct app_mon_hist h_lat, h_exec, h_turn;
    bool has_hist;
};

struct app_mon_allow {
    uint32_t addr, mask; /* host order */
};

struct app_monitor_cfg {
    double silence_s; /* [s] a target is silent after this long without a datagram */
    int nallow;       /* senders accepted; 0: any */
    struct app_mon_allow allow[APP_MON_MAX_ALLOW];
};

struct app_monitor {
    struct app_monitor_cfg cfg;
    struct app_mon_target t[APP_MON_MAX_TARGETS];
    uint64_t received; /* datagrams */
    uint64_t accepted;
    uint64_t rejected[APP_MON_NREJECT];
    uint64_t http_requests;
    char last_reject[200]; /* the newest rejection, said plainly */
};

/* init-time (allocates) */
void app_monitor_cfg_default(struct app_monitor_cfg *c);
/* "a.b.c.d" or "a.b.c.d/len" into an allow entry; 0 or -EINVAL */
int app_monitor_parse_allow(const char *s, struct app_mon_allow *a);
int app_monitor_init(struct app_monitor *mon, const struct app_monitor_cfg *cfg);
void app_monitor_free(struct app_monitor *mon);

/* one datagram of `len` bytes (its true length: len may exceed the bytes in buf, cap: then it
 * is truncated) from `from`, received at mono/wall [s]. 0: accepted; else 1 + enum
 * app_mon_reject (counted) */
int app_monitor_feed(struct app_monitor *mon, const char *buf, size_t cap, size_t len,
                     const struct sockaddr_in *from, double mono, double wall);
/* silence and its end; call a few times a second */
void app_monitor_tick(struct app_monitor *mon, double mono, double wall);
/* targets known, and those that ended (sent their final datagram) */
int app_monitor_ntargets(const struct app_monitor *mon);
int app_monitor_nended(const struct app_monitor *mon);
const char *app_monitor_reject_name(int reason);

/* views: the terminal block (ANSI colours when color), Prometheus text format 0.0.4, the
 * JSON of /api/status (the newest `points` per-cycle values per target). The strings are
 * malloc'ed (NULL: out of memory), *len their length */
void app_monitor_text(const struct app_monitor *mon, FILE *f, bool color, double mono,
                      const char *listen);
char *app_monitor_metrics(const struct app_monitor *mon, double mono, size_t *len);
char *app_monitor_json(const struct app_monitor *mon, double mono, int points, size_t *len);

#endif /* VD_APP_MONITOR_H */
