/* app/motionlink.h - the motion-platform feed of `rtvd run`: one thread beside the loop that
 * takes every cycle's cues (appended to the loop's output snapshots, rt/loop.h cfg.cue) from
 * its own output tap, decimates them to the send rate without aliasing (io/motion.h), runs
 * the motion state machine (engage, park, fade to neutral with bounded jerk on any fault) and
 * sends one datagram per send period in the configured format (io/motion.h) over UDP
 * (io/udpout.h: IPv4/IPv6, unicast or multicast). It also watches an optional heartbeat from
 * the platform on the same socket (a unicast feed's from the destination's address only, RTVH
 * from its port too; any other sender's datagrams counted in wrong_source and not read
 * further; io/MOTION_DATAGRAMS.md, "Who may answer the feed"): RTVH datagrams, or with format
 * moog_mda the Moog MBC's status messages (io/motion.h vd_moog_status_decode), whose machine
 * state and latched fault words it keeps and whose fault states and bits park the feed (reason
 * "platform fault"; io/MOTION_DATAGRAMS.md says which and why); with the heartbeat watched it
 * commands ENGAGE with neutral cues until the MBC reports ENGAGED before the cues fade in (the
 * engage handshake), for at most engage_timeout_s (then the feed parks: "engage timeout", latched).
 * RESET (the MBC's fault reset) only as the run file says (reset: at_start): faults the MBC
 * reports before the first ENGAGE are reset once, for at most APP_MOTION_RESET_S, before the
 * handshake; a fault during the run is never reset and nothing re-engages within a run
 * (io/MOTION_DATAGRAMS.md says why). Malformed status datagrams are rejected and counted by
 * reason, never used. The loop never touches the socket.
 *
 * The thread: SCHED_FIFO at its own priority below the CAN thread's (best effort without
 * privileges, like the loop), optionally pinned; it sleeps with clock_nanosleep(TIMER_ABSTIME)
 * to a 1 ms grid (one slot per loop period) offset from the loop's releases, never spins.
 * Per slot: the newest output snapshot (missed cycles counted), the heartbeat socket drained;
 * every rate-th slot: decimated cues -> state machine -> encode -> one non-blocking sendto;
 * the send's lateness against its slot goes into a 1 us histogram (the send jitter). After
 * the loop's final snapshot it keeps sending while it parks, then neutral until stopped.
 *
 * Init/exit (may allocate, print): app_motion_*; the thread: no allocation, no stdio. */
#ifndef VD_APP_MOTIONLINK_H
#define VD_APP_MOTIONLINK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "config/run_yaml.h"
#include "core/cue.h"
#include "io/motion.h"
#include "io/udpout.h"
#include "io/washout.h"
#include "app/motionctl.h"
#include "rt/loop.h"
#include "rt/mailbox.h"
#include "rt/sched.h"
#include "rt/telemetry.h"

#define APP_MOTION_HIST_US 2000 /* send lateness histogram range, 1 us buckets */
#define APP_MOTION_TRAJ    512  /* fade trajectory points kept for the report */
#define APP_MOTION_RESET_S 2.0  /* [s] reset at start: the MBC must clear its faults this soon */
#define APP_MOTION_HB_FROM 8    /* multicast: the RTVH senders whose counters are kept */

/* multicast: one sender of RTVH heartbeats (a receiver of the group) and its counter */
struct app_motion_hb_from {
    struct sockaddr_storage addr; /* its address and port */
    uint64_t last;                /* the counter of its last RTVH taken (or restarted at) */
    int64_t at_ns;                /* [ns] the slot of that */
};

struct app_motionlink {
    struct vd_run_motion cfg; /* as loaded (config/run_yaml.h) */
    struct vd_loop *L;        /* borrowed */
    int tap;
    int64_t period_ns; /* the loop's period: one slot */
    int every;         /* slots per send (loop rate / send rate) */
    int64_t t0;        /* [ns] slot 0 */
    struct vd_udpout out;
    char dest_text[96];
    struct vd_motion_decim dec;
    struct vd_motion_sm sm;
    struct vd_washout wo; /* cfg.pose: the platform pose from the faded cues */
    struct vd_mailbox tm; /* struct vd_tm_motion, for the telemetry thread */
    struct vd_tm_motion st;
    struct vd_thread thread;
    bool up, started;
    _Atomic int stop;
    _Atomic int done; /* parked or in fault and neutral: the fade is over */

    /* the thread's; read after app_motion_stop */
    struct vd_motion_msg msg;
    uint8_t buf[VD_MOTION_MAX_BYTES];
    double cue[VD_CUE_N], outc[VD_CUE_N];
    uint64_t slots, samples, missed, sends, sent, send_errors, late;
    uint64_t heartbeats;   /* the platform's heartbeats taken (RTVH; moog_mda: its statuses) */
    uint64_t hb_last;      /* the counter of the last RTVH taken (unicast) */
    uint64_t hb_stale;     /* RTVH refused: the counter not above hb_last (multicast: above
                            * its sender's last; repeated, reordered, replayed) and no resync
                            * due (moog_mda: st_bad stale) */
    bool hb_resync;        /* a send found the last heartbeat taken older than the timeout
                            * (heartbeat_s; RESYNC_S not watched), after the slot drained the
                            * socket; watched, the state machine got "heartbeat lost" on it.
                            * Until the next heartbeat taken, a counter (moog_mda: a status
                            * number) not above the last one is taken again: a restart */
    uint64_t foreign;      /* datagrams from the platform that are no RTVH heartbeat (not
                            * moog_mda: there they are statuses rejected, st_bad) */
    uint64_t wrong_source; /* datagrams from another sender than the platform (unicast: another
                            * address, RTVH another port), not read further */
    /* multicast: the last RTVH counter per sender, hb_nfrom of them in use */
    struct app_motion_hb_from hb_from[APP_MOTION_HB_FROM];
    int hb_nfrom;
    uint64_t last_cycle;
    bool any_cycle, final_seen, frozen, step_error, overrun;
    int stop_kind;
    int64_t last_hb_ns, last_fresh_ns;
    double t_model;                        /* [s] model time of the newest snapshot taken */
    uint64_t hist[APP_MOTION_HIST_US + 1]; /* send lateness [us]; the last bucket beyond */
    int64_t late_max_ns, late_sum_ns;
    /* the fade trajectory: f_x, f_z and the fade of every send from the first park (for the
     * report: what the platform got) */
    int ntraj, traj_every;
    float traj[APP_MOTION_TRAJ][4]; /* t since the park [s], fade, f_x, f_z */
    int64_t park_t0_ns;
    uint64_t park_send;
    int first_fault; /* enum vd_motion_reason of the first park */

    /* format moog_mda: the MBC's status messages (the platform's heartbeat in that format) */
    bool moog;
    struct vd_moog_status ms; /* the last accepted status */
    bool ms_any;              /* one was accepted */
    bool platform_fault;      /* a fault state or bit was reported (latched) */
    uint32_t fault_seen[3];   /* every fault bit reported during the run (OR) */
    int first_fault_state;    /* machine state of the first fault report, or -1 */
    int64_t st_fault_ns;      /* [ns] when the first fault report was accepted */
    uint64_t st_fault_send;   /* datagrams sent by then */
    uint64_t engage_tries;    /* datagrams commanding ENGAGE with neutral cues in the start-up
                               * handshake (waiting for ENGAGED, then for the loop's first
                               * cues), sendto's outcome aside: the handshake's clock */
    uint64_t engage_sent;     /* ... of them sent (sendto succeeded) */
    bool handshake;           /* moog with the heartbeat watched: the handshake */
    int64_t engage_t0_ns;     /* [ns] slot of the first ENGAGE of the handshake */
    bool engage_timed_out;    /* not ENGAGED within cfg.engage_timeout_s (latched until an
                               * operator's ENGAGE begins a new handshake) */
    bool start_timed_out;     /* ... the start-up handshake's (kept for the report) */
    /* reset at start (cfg.reset at_start): RESET commanded for faults reported before the
     * first ENGAGE */
    uint64_t reset_tries;  /* datagrams commanding RESET, sendto's outcome aside (the reset's
                            * logic: its start, acknowledged only after one) */
    uint64_t reset_sent;   /* ... of them sent (sendto succeeded) */
    int64_t reset_t0_ns;   /* [ns] slot of the first */
    bool reset_acked;      /* the MBC reported no fault after a RESET */
    bool reset_failed;     /* ... not within APP_MOTION_RESET_S: the fault latched */
    uint32_t pre_fault[3]; /* the fault words reported before the first ENGAGE (OR) */
    int pre_fault_state;   /* machine state of the first such report, or -1 */
    uint64_t st_ok, st_rejected, st_gaps; /* accepted, rejected, sequence gaps */
    uint64_t st_bad[VD_MOOG_BAD_COUNT];   /* rejected by reason */
    uint8_t rx[VD_MOOG_STATUS_MAX + 4];   /* receive buffer: a longer datagram shows as such */

    /* the operator's control channel (cfg.control; app/motionctl.h) */
    int ctl_fd; /* -1: none */
    struct app_opc_file ctl_file;
    uint64_t op_cmd[APP_OPC_N][2]; /* requests by command: [0] accepted, [1] refused */
    uint64_t op_why[APP_OPW_N];    /* refused by reason */
    uint64_t op_reply_errors;      /* replies not sent (no sender address, a full queue) */
    uint64_t op_parks;             /* PARK accepted (the feed parked by the operator) */
    uint64_t op_reengages;         /* engagements after an operator's ENGAGE (fade-ins begun) */
    uint64_t op_resets_acked;      /* operator RESETs the MBC acknowledged (no fault) */
    uint64_t op_resets_failed;     /* ... that it did not within APP_MOTION_RESET_S */
    uint64_t op_resets_cut;        /* ... cut short by the run's end (neither acknowledged nor
                                    * out of time: the fault stays latched) */
    uint64_t op_engage_timeouts;   /* operator ENGAGEs not ENGAGED within engage_timeout_s */
    uint64_t op_engage_aborted;    /* ... ended by a fault, a PARK or the run's end */
    uint64_t op_reset_tries;       /* datagrams commanding RESET for the operator (all his
                                    * RESETs), sendto's outcome aside */
    uint64_t op_reset_tries0;      /* ... before the pending RESET (its own: the difference) */
    uint64_t op_reset_sent;        /* ... of them sent (sendto succeeded) */
    uint64_t op_engage_tries;      /* datagrams commanding ENGAGE with neutral cues for the
                                    * operator, sendto's outcome aside */
    uint64_t op_engage_sent;       /* ... of them sent (sendto succeeded) */
    bool op_reset;                 /* an operator's RESET pending */
    bool op_engage;                /* an operator's ENGAGE waiting for ENGAGED (moog, watched) */
    int64_t op_reset_t0, op_engage_t0; /* [ns] slot of its acceptance */
    uint64_t op_engage_st0; /* st_ok when its first ENGAGE datagram went out (UINT64_MAX before):
                             * only a later status's ENGAGED counts */
    uint64_t parked_st;     /* st_ok when the feed was last seen not parked (the park's end) */
    bool op_hold;           /* an ENGAGE that went out was cancelled by PARK: the MBC may have
                             * engaged, its status may lag: ENGAGE refused (settling) until
                             * engage_timeout_s after the cancel, then a STANDBY after that */
    int64_t op_hold_t0;     /* [ns] slot of that cancel */
    uint8_t ctl_rx[APP_OPC_REQ_MAX + 4];
    char ctl_tx[APP_OPC_REPLY_MAX];
};

/* the start-up handshake (moog_mda, the MBC's status watched), datagram by datagram while the
 * state machine is still off (sm_state VD_MST_OFF: it has not taken the loop's cues yet): true
 * when it commands ENGAGE with neutral cues, false when NULL (or what the state machine says).
 * NULL until the MBC's first status (ms_any: a fault latched before the run is seen before
 * anything is commanded) and the loop's first cues (have: new cues this send period); from the
 * first ENGAGE on (engage_tries: the number commanded) ENGAGE in every datagram until the state
 * machine takes the cues, including a send period without new cues after the MBC reported
 * ENGAGED (mbc_engaged: a NULL there breaks the ENGAGE run the MBC was answering). An MBC
 * ENGAGED before anything was sent gets NULL until the first cues. RESET (at start or the
 * operator's) and the operator's ENGAGE are decided before this (send_one) */
static inline bool app_motion_start_engage(bool handshake, int sm_state, bool ms_any,
                                           bool mbc_engaged, bool have, uint64_t engage_tries)
{
    if (!handshake || sm_state != VD_MST_OFF || !ms_any)
        return false;
    return engage_tries > 0 || (have && !mbc_engaged);
}

/* init-time: the socket (destination from cfg), the decimator, the state machine (g [m/s^2]
 * the magnitude of gravity, the neutral f_z); the
 * thread reads the loop's output tap `tap` whose snapshots carry the cues at [nsig, nsig +
 * VD_CUE_N). 0 or -1 with a message on errf */
int app_motion_init(struct app_motionlink *k, const struct vd_run_motion *cfg, struct vd_loop *L,
                    int tap, double g, FILE *errf);
/* start the thread; slot 0 at first_release + 0.6 period. 0 or -errno */
int app_motion_start(struct app_motionlink *k, int64_t first_release);
/* the thread's work in slot sl (at t0 + sl period, the time the platform's datagrams taken in
 * it are stamped with; now: the clock when it woke, for the loop's freshness): the newest
 * output snapshot, the platform's datagrams, the operator's requests, and every rate-th slot
 * one datagram. The thread calls it after each wake-up; a test may call it slot by slot
 * instead of starting the thread (then it sets t0, last_hb_ns and last_fresh_ns as the thread
 * does). RT-safe */
void app_motion_slot(struct app_motionlink *k, uint64_t sl, int64_t now);
/* wait until the feed has parked (the loop ended) or timeout_s passed; true if parked */
bool app_motion_wait_parked(struct app_motionlink *k, double timeout_s);
void app_motion_stop(struct app_motionlink *k);
void app_motion_free(struct app_motionlink *k);
/* one line describing the feed */
void app_motion_describe(const struct app_motionlink *k, FILE *f);
/* summary lines, the report's JSON object */
void app_motion_summary(const struct app_motionlink *k, FILE *f, const char *indent);
void app_motion_json(const struct app_motionlink *k, FILE *f);
/* send lateness percentile [us] from the histogram (p in [0, 1]) */
double app_motion_late_pct(const struct app_motionlink *k, double p);

#endif /* VD_APP_MOTIONLINK_H */
