/* rt/policy.h - overrun accounting and the overrun policies (hil-conventions.md §1), as a
 * pure state machine: given each cycle's scheduled release and completion time it keeps
 * every counter and decides the next release, freeze or stop. No clock, no thread: the loop
 * feeds it measured times, the tests feed it synthetic ones.
 *
 * Definitions (P = period; cycle k is released at r_k and completes at c_k):
 * - deadline d_k = r_k + P. Cycle k overruns iff c_k > d_k; its overrun length is c_k - d_k.
 * - pending releases m_k = #{ j >= 1 : r_k + j P < c_k } (grid releases that passed while
 *   cycle k was released but not done); m_k >= 1 iff cycle k overran.
 * - recovery after an overrun:
 *     skip  - drop the m_k pending releases, realign: r_{k+1} = r_k + (m_k + 1) P;
 *             skipped += m_k (the grid stays; model time falls behind by m_k steps).
 *     delay - shift the grid: r_{k+1} = c_k; shift += c_k - d_k (nothing dropped).
 *     queue - catch up: r_{k+1} = r_k + P (already past, runs at once); queued = m_k.
 * - policies: stop (default): stop at the first overrun. skip, delay: recover for ever.
 *   queue(n): catch up while m_k <= n, stop when m_k > n (queue full). allow(n): recover
 *   (skip or delay) while overruns <= n (mode total) or consecutive <= n (mode consecutive),
 *   then stop or freeze. A frozen run keeps its release grid (skip recovery), the model is
 *   not stepped any more and no further decision is taken.
 * - grace: overruns of cycles k < grace_cycles count only in grace_overruns (recovered with
 *   the policy's recovery; skip for stop and queue), never in the other overrun counters and
 *   never lead to a stop or freeze.
 * - whenever the run stops, pending releases are dropped (skipped += m), so that always
 *   cycles + skipped = elapsed periods = (next_release - t0 - shift_ns) / P.
 * - a run of duration D ends at t_end = t0 + D: releases at or after t_end were never due,
 *   so a skip that jumps past t_end is trimmed (vd_policy_end); with skip recovery the run
 *   then has exactly ceil(D / P) elapsed periods.
 * RT-safe: everything here (no allocation, no syscalls). */
#ifndef VD_RT_POLICY_H
#define VD_RT_POLICY_H

#include <stdbool.h>
#include <stdint.h>

enum vd_ovr_policy {
    VD_OVR_STOP = 0, /* error stop at the first overrun (dSPACE, SLRT default) */
    VD_OVR_SKIP,     /* drop missed releases, stay on the grid */
    VD_OVR_DELAY,    /* run late, shift the grid (SLRT with overloads allowed) */
    VD_OVR_QUEUE,    /* catch up up to queue_depth pending releases, then stop (dSPACE) */
    VD_OVR_ALLOW,    /* tolerate allow_count overruns, then stop or freeze (SLRT, Trick) */
};
enum vd_allow_mode { VD_ALLOW_TOTAL = 0, VD_ALLOW_CONSECUTIVE };
enum vd_allow_then { VD_ALLOW_THEN_STOP = 0, VD_ALLOW_THEN_FREEZE };
enum vd_realign { VD_REALIGN_SKIP = 0, VD_REALIGN_DELAY };

struct vd_policy_cfg {
    int kind;              /* enum vd_ovr_policy */
    int64_t period_ns;     /* [ns] P > 0 */
    uint64_t queue_depth;  /* queue: pending releases tolerated */
    uint64_t allow_count;  /* allow: overruns tolerated */
    int allow_mode;        /* enum vd_allow_mode */
    int allow_then;        /* enum vd_allow_then */
    int allow_realign;     /* enum vd_realign: recovery of allowed overruns */
    uint64_t grace_cycles; /* first cycles whose overruns are tolerated */
};

enum vd_run_state { VD_STATE_RUNNING = 0, VD_STATE_FROZEN, VD_STATE_STOPPED };
enum vd_stop_reason {
    VD_STOP_NONE = 0,
    VD_STOP_DURATION,   /* the configured duration elapsed */
    VD_STOP_REQUEST,    /* vd_loop_request_stop (SIGINT, SIGTERM) */
    VD_STOP_OVERRUN,    /* policy stop */
    VD_STOP_QUEUE_FULL, /* policy queue(n): more than n pending releases */
    VD_STOP_ALLOW,      /* policy allow(n) ... then stop */
    VD_STOP_STEP_ERROR, /* the core step failed (non-finite, singular): safe stop */
};

struct vd_policy_state {
    int64_t t0;           /* [ns] first release */
    int64_t next_release; /* [ns] release of the next cycle */
    int state;            /* enum vd_run_state */
    int reason;           /* enum vd_stop_reason */
    uint64_t cycles;      /* cycles executed (frozen ones included) */
    uint64_t overruns;    /* cycles k >= grace that overran */
    uint64_t grace_overruns;
    uint64_t consecutive;        /* current run of consecutive overruns (after grace) */
    uint64_t max_consecutive;    /* longest such run */
    int64_t max_overrun_ns;      /* [ns] longest c_k - d_k after grace (0: none) */
    int64_t max_overrun_cycle;   /* cycle of it, -1: none */
    int64_t first_overrun_cycle; /* -1: none */
    bool latched;                /* set at the first overrun after grace, never cleared */
    uint64_t skipped;            /* releases never executed */
    int64_t shift_ns;            /* [ns] total grid shift by delay recovery */
    uint64_t queued;             /* queue: pending releases after the last cycle */
    uint64_t max_queued;         /* queue: largest m_k seen */
    uint64_t frozen_cycles;      /* cycles run while frozen */
    int64_t freeze_cycle;        /* cycle that froze the run, -1: none */
    int64_t stop_cycle;          /* last cycle executed when stopped, -1: none */
};

/* RT-safe */
void vd_policy_start(struct vd_policy_state *s, int64_t t0);
/* account cycle s->cycles, released at `release`, completed at `done` [ns]; update the
 * counters, s->next_release and s->state; returns s->state */
int vd_policy_account(const struct vd_policy_cfg *cfg, struct vd_policy_state *s, int64_t release,
                      int64_t done);
/* the run ends at t_end: skipped releases at or after t_end are not counted; call after
 * vd_policy_account when next_release >= t_end */
void vd_policy_end(const struct vd_policy_cfg *cfg, struct vd_policy_state *s, int64_t t_end);
/* stop for an outside reason (duration, request, step error); drops queued releases */
void vd_policy_stop(const struct vd_policy_cfg *cfg, struct vd_policy_state *s, int reason);
/* (next_release - t0 - shift_ns) / P: cycles + skipped at every step */
int64_t vd_policy_elapsed_periods(const struct vd_policy_cfg *cfg, const struct vd_policy_state *s);

/* names for reports and messages */
const char *vd_policy_name(int kind);
const char *vd_state_name(int state);
const char *vd_stop_reason_name(int reason);

#endif /* VD_RT_POLICY_H */
