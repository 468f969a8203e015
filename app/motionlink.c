/* app/motionlink.c - the motion feed's thread. */
#include "motionlink.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt/clock.h"
#include "rt/policy.h"

/* [s] the heartbeat's timeout when it is not watched: a status or an RTVH counter not newer
 * than the last one taken is refused as stale until a send has found the last one taken older
 * than the timeout (a platform that restarted numbers its statuses, or counts its heartbeats,
 * anew); watched, the timeout is heartbeat_s and that send is the one that tells the state
 * machine "heartbeat lost" */
#define RESYNC_S 1.0

int app_motion_init(struct app_motionlink *k, const struct vd_run_motion *cfg, struct vd_loop *L,
                    int tap, double g, FILE *errf)
{
    const struct vd_motion_sm_cfg sc = {
        .engage_s = cfg->engage_s,
        .park_s = cfg->park_s,
        .stale_s = cfg->stale_s,
        .lim = {.f = cfg->lim_f, .w = cfg->lim_w, .dw = cfg->lim_dw, .angle = cfg->lim_angle},
    };
    struct sockaddr_storage ss;
    socklen_t len;
    int rc;

    memset(k, 0, sizeof(*k));
    k->out.sock = -1;
    k->ctl_fd = -1;
    k->ctl_file.lock_fd = -1;
    k->cfg = *cfg;
    k->L = L;
    k->tap = tap;
    k->period_ns = L->cfg.policy.period_ns;
    k->every = (int)llround(1e9 / ((double)k->period_ns * cfg->rate_hz));
    if (L->nout < L->nsig + VD_CUE_N) {
        fprintf(errf, "rtvd run: motion: the loop computes no cues\n");
        return -1;
    }
    if (k->every < 1) {
        /* a loop slower than the send rate: one datagram per cycle, said plainly */
        k->every = 1;
        k->cfg.rate_hz = (int)llround(1e9 / (double)k->period_ns);
        fprintf(errf,
                "rtvd run: note: motion feed at %d Hz, not %d Hz: one datagram per loop period "
                "(%g us)\n",
                k->cfg.rate_hz, cfg->rate_hz, (double)k->period_ns * 1e-3);
    }
    if (vd_udp_parse_any(cfg->dest, &ss, &len) ||
        (rc = vd_udpout_open_any(&k->out, &ss, len, cfg->ttl))) {
        fprintf(errf, "rtvd run: motion feed to %s: cannot open: %s\n", cfg->dest,
                strerror(EINVAL));
        return -1;
    }
    vd_udp_format(k->dest_text, sizeof(k->dest_text), &ss);
    if (vd_motion_decim_init(
            &k->dec, cfg->decimation == VD_RUN_MOTION_LOWPASS ? VD_MDEC_LOWPASS : VD_MDEC_AVERAGE,
            VD_CUE_N, 1e9 / (double)k->period_ns, 1e9 / ((double)k->period_ns * k->every)) ||
        vd_mailbox_init(&k->tm, sizeof(struct vd_tm_motion))) {
        fprintf(errf, "rtvd run: motion: set-up failed\n");
        vd_udpout_close(&k->out);
        return -1;
    }
    vd_motion_sm_init(&k->sm, &sc, g);
    if (cfg->pose) {
        const struct vd_washout_cfg wc = {
            .k_f = cfg->wo_k_f,
            .k_w = cfg->wo_k_w,
            .wn = cfg->wo_wn,
            .zeta = cfg->wo_zeta,
            .wb = cfg->wo_wb,
            .wl = cfg->wo_wl,
            .zeta_l = cfg->wo_zeta_l,
            .tilt_rate = cfg->wo_tilt_rate,
            .wr = cfg->wo_wr,
            .g = g,
        };

        if (vd_washout_init(&k->wo, &wc, (double)(k->period_ns * k->every) * 1e-9)) {
            fprintf(errf, "rtvd run: motion: washout parameters refused\n");
            vd_udpout_close(&k->out);
            vd_mailbox_free(&k->tm);
            return -1;
        }
    }
    k->msg.type = cfg->pose ? VD_MTYPE_POSE : VD_MTYPE_CUE;
    k->msg.rate_hz = (uint16_t)k->cfg.rate_hz;
    k->msg.outsim_id = cfg->outsim_id;
    k->st.rate_hz = k->cfg.rate_hz;
    k->st.state_name = vd_motion_state_name[0];
    k->st.reason_name = vd_motion_reason_name[0];
    k->first_fault = -1;
    k->first_fault_state = -1;
    k->moog = cfg->format == VD_MFMT_MOOG_MDA;
    k->handshake = k->moog && cfg->heartbeat_s > 0;
    k->pre_fault_state = -1;
    k->st.platform = k->moog;
    k->st.platform_state = -1;
    k->st.platform_state_name = "";
    /* at most APP_MOTION_TRAJ - 1 points over a fade (park_s at the send rate) */
    k->traj_every = (int)ceil(cfg->park_s * k->cfg.rate_hz / (APP_MOTION_TRAJ - 2));
    if (k->traj_every < 1)
        k->traj_every = 1;
    if (cfg->control[0] && (k->ctl_fd = app_opc_open(cfg->control, &k->ctl_file, errf)) < 0) {
        vd_udpout_close(&k->out);
        vd_mailbox_free(&k->tm);
        return -1;
    }
    if (k->ctl_fd >= 0) {
        k->st.op_cmd_name = app_opc_cmd_name;
        k->st.op_why_name = app_opc_why_name;
        k->st.op_pending = "none";
    }
    k->up = true;
    /* a first status (the telemetry's first datagram has the motion object too) */
    memcpy(vd_mailbox_back(&k->tm), &k->st, sizeof(k->st));
    vd_mailbox_publish(&k->tm);
    return 0;
}

static void publish(struct app_motionlink *k)
{
    struct vd_tm_motion *s = &k->st;

    s->seq++;
    s->sent = k->sent;
    s->send_errors = k->send_errors;
    s->samples = k->samples;
    s->missed = k->missed;
    s->rejected = k->sm.rejected;
    s->faults = 0;
    for (int r = VD_MRS_OVERRUN_STOP; r < VD_MRS_COUNT; r++)
        if (r != VD_MRS_OPERATOR) /* the operator's parks are no faults */
            s->faults += k->sm.faults[r];
    s->heartbeats = k->heartbeats;
    s->engage_timeouts = k->sm.faults[VD_MRS_ENGAGE_TIMEOUT];
    s->foreign = k->foreign;
    s->wrong_source = k->wrong_source;
    s->hb_stale = k->hb_stale;
    s->late = k->late;
    s->late_max_ns = k->late_max_ns;
    s->state = k->sm.state;
    s->reason = k->sm.reason;
    s->state_name = vd_motion_state_name[k->sm.state];
    s->reason_name = vd_motion_reason_name[k->sm.reason];
    s->fade = (float)k->sm.fade.s;
    if (k->moog) {
        s->platform_state = k->ms_any ? k->ms.machine_state : -1;
        s->platform_state_name = k->ms_any ? vd_moog_state_name(k->ms.machine_state) : "";
        memcpy(s->platform_fault, k->ms.fault, sizeof(s->platform_fault));
        s->status_rx = k->st_ok;
        s->status_rejected = k->st_rejected;
        s->resets = k->reset_sent + k->op_reset_sent;
    }
    s->reason_not_fault = k->sm.reason == VD_MRS_OPERATOR;
    if (k->ctl_fd >= 0) {
        s->op_cmd_name = app_opc_cmd_name;
        s->op_why_name = app_opc_why_name;
        memcpy(s->op_cmd, k->op_cmd, sizeof(s->op_cmd));
        memcpy(s->op_why, k->op_why, sizeof(s->op_why));
        s->op_parks = k->op_parks;
        s->op_reengages = k->op_reengages;
        s->op_resets_acked = k->op_resets_acked;
        s->op_resets_failed = k->op_resets_failed;
        s->op_resets_cut = k->op_resets_cut;
        s->op_engage_timeouts = k->op_engage_timeouts;
        s->op_pending = k->op_reset ? "reset" : k->op_engage ? "engage" : "none";
    }
    memcpy(vd_mailbox_back(&k->tm), s, sizeof(*s));
    vd_mailbox_publish(&k->tm);
}

/* the newest output snapshot of the loop: cues into the decimator, flags kept */
static void take(struct app_motionlink *k, int64_t now)
{
    bool fresh = false;
    const struct vd_snapshot *s = vd_loop_output(k->L, k->tap, &fresh);

    if (!s || !fresh)
        return;
    k->last_fresh_ns = now;
    k->t_model = s->t;
    if (s->flags & VD_SNAP_FINAL) {
        const int why = (int)(s->flags >> VD_SNAP_REASON_SHIFT) & 0xff;

        /* its seq is the number of cycles: the ones after the last taken were missed */
        if (!k->final_seen && s->seq > (k->any_cycle ? k->last_cycle + 1 : 0))
            k->missed += s->seq - (k->any_cycle ? k->last_cycle + 1 : 0);
        k->final_seen = true;
        k->stop_kind = why == VD_STOP_OVERRUN || why == VD_STOP_QUEUE_FULL ||
                               why == VD_STOP_ALLOW || why == VD_STOP_STEP_ERROR
                           ? VD_MRS_OVERRUN_STOP
                           : VD_MRS_STOP;
        if (why == VD_STOP_STEP_ERROR)
            k->step_error = true;
        return; /* the final snapshot repeats the last cycle's values */
    }
    /* every cycle is taken or counted missed (also those before the thread's first slot) */
    if (s->seq > (k->any_cycle ? k->last_cycle + 1 : 0))
        k->missed += s->seq - (k->any_cycle ? k->last_cycle + 1 : 0);
    k->last_cycle = s->seq;
    k->any_cycle = true;
    k->samples++;
    k->frozen = (s->flags & VD_SNAP_FROZEN) != 0;
    k->overrun = (s->flags & VD_SNAP_OVERRUN) != 0;
    if (s->flags & VD_SNAP_STEP_ERROR)
        k->step_error = true;
    if (k->frozen)
        return; /* held values: nothing new to filter */
    vd_motion_decim_add(&k->dec, s->value + k->L->nsig);
}

/* reset at start applies: the run file asks for it, the handshake runs, and nothing was
 * engaged yet (no ENGAGE commanded, the state machine off); a failed reset is not retried */
static bool reset_phase(const struct app_motionlink *k)
{
    return k->handshake && k->cfg.reset == VD_RUN_MOTION_RESET_AT_START && k->engage_tries == 0 &&
           k->sm.state == VD_MST_OFF && !k->reset_failed;
}

/* a platform fault latched (the feed parks on its next send) */
static void latch_fault(struct app_motionlink *k, int state, int64_t slot)
{
    if (k->platform_fault)
        return;
    k->platform_fault = true;
    if (k->first_fault_state >= 0)
        return; /* again after an operator's RESET: the first is kept for the report */
    k->first_fault_state = state;
    k->st_fault_ns = slot; /* slot times, as the park's */
    k->st_fault_send = k->sends;
}

/* [s] the heartbeat's timeout: heartbeat_s watched, else RESYNC_S */
static double hb_timeout_s(const struct app_motionlink *k)
{
    return k->cfg.heartbeat_s > 0 ? k->cfg.heartbeat_s : RESYNC_S;
}

/* a Moog MBC's status datagram: accepted (the heartbeat; state and fault words kept, a fault
 * latched) or rejected by reason and otherwise ignored */
static void moog_status(struct app_motionlink *k, size_t n, int64_t slot)
{
    struct vd_moog_status st;
    int bad = vd_moog_status_decode(k->rx, n, &st);

    /* a status not newer than the last one taken (late, reordered or repeated on the way) is
     * not the platform's present state: refused, unless a send has recorded the heartbeat's
     * absence since the last one taken (hb_resync): an MBC that restarted counts anew */
    if (!bad && k->ms_any && (int32_t)(st.seq - k->ms.seq) <= 0 && !k->hb_resync)
        bad = VD_MOOG_BAD_STALE;
    if (bad) {
        k->st_rejected++;
        k->st_bad[bad]++;
        return;
    }
    if (k->ms_any && st.seq != k->ms.seq + 1 && (int32_t)(st.seq - k->ms.seq) > 1)
        k->st_gaps += st.seq - k->ms.seq - 1;
    k->ms = st;
    k->ms_any = true;
    k->st_ok++;
    k->heartbeats++;
    k->last_hb_ns = slot;
    k->hb_resync = false;
    for (int i = 0; i < 3; i++)
        k->fault_seen[i] |= st.fault[i];
    if (k->reset_tries > 0 && !k->reset_acked && reset_phase(k) && !vd_moog_status_fault(&st))
        k->reset_acked = true; /* the reset at start's; not a later (operator's) RESET's */
    if (k->op_reset && k->op_reset_tries > k->op_reset_tries0 && !vd_moog_status_fault(&st)) {
        /* the operator's RESET acknowledged: rtvd's latch clears (ENGAGE may follow) */
        k->op_reset = false;
        k->op_resets_acked++;
        k->platform_fault = false;
    }
    if (vd_moog_status_fault(&st) && reset_phase(k)) {
        /* reported before the first ENGAGE, with reset at start: send_one resets it */
        if (k->pre_fault_state < 0)
            k->pre_fault_state = st.machine_state;
        for (int i = 0; i < 3; i++)
            k->pre_fault[i] |= st.fault[i];
        return;
    }
    if (vd_moog_status_fault(&st))
        latch_fault(k, st.machine_state, slot);
}

/* the datagram's sender may answer the feed: to a unicast destination only the platform, its
 * address and (RTVH) its port; the Moog MBC's status from any port of its address (Moog's
 * sample host sends to the MBC's port and reads its statuses from anyone: the port they come
 * from is not given); to a multicast group anyone, there being no one address to check
 * (io/MOTION_DATAGRAMS.md, "Who may answer the feed") */
static bool from_platform(const struct app_motionlink *k, const struct sockaddr_storage *from)
{
    return k->out.multicast || vd_udp_same_addr(from, &k->out.dest_any, !k->moog);
}

/* multicast: the entry of the RTVH sender `from` (*known: it was there), else a free one or,
 * with every one in use, the one heard from least recently, forgotten for `from` */
static struct app_motion_hb_from *hb_sender(struct app_motionlink *k,
                                            const struct sockaddr_storage *from, bool *known)
{
    struct app_motion_hb_from *e = &k->hb_from[0];

    *known = false;
    for (int i = 0; i < k->hb_nfrom; i++)
        if (vd_udp_same_addr(from, &k->hb_from[i].addr, true)) {
            *known = true;
            return &k->hb_from[i];
        }
    if (k->hb_nfrom < APP_MOTION_HB_FROM)
        e = &k->hb_from[k->hb_nfrom++];
    else
        for (int i = 1; i < APP_MOTION_HB_FROM; i++)
            if (k->hb_from[i].at_ns < e->at_ns)
                e = &k->hb_from[i];
    e->addr = *from;
    return e;
}

/* an RTVH with counter `count` from `from`, read in slot `slot`: a heartbeat (true) or stale.
 * Unicast: the counter above the last one taken (hb_last), or any once a send has recorded
 * the heartbeat's absence (hb_resync: a platform that restarted). Multicast, every receiver
 * of the group answering from its own address: the same against that sender's own last
 * counter (a receiver that counts lower than another is no stale one), a sender not heard
 * yet taken; and a sender silent for longer than the timeout while others kept the feed
 * alive restarts its count at this counter, not a heartbeat itself (a copy of its old one
 * must refresh nothing): its next one above it is (io/MOTION_DATAGRAMS.md) */
static bool rtvh_fresh(struct app_motionlink *k, const struct sockaddr_storage *from,
                       uint64_t count, int64_t slot)
{
    struct app_motion_hb_from *e;
    bool known;

    if (!k->out.multicast) {
        if (k->heartbeats > 0 && count <= k->hb_last && !k->hb_resync)
            return false;
        k->hb_last = count;
        return true;
    }
    e = hb_sender(k, from, &known);
    if (known && count <= e->last && !k->hb_resync) {
        if ((double)(slot - e->at_ns) * 1e-9 > hb_timeout_s(k)) {
            e->last = count;
            e->at_ns = slot;
        }
        return false;
    }
    e->last = count;
    e->at_ns = slot;
    return true;
}

/* the platform's datagrams waiting on the feed's socket, taken in slot `slot` (the time the
 * heartbeats taken are stamped with: the heartbeat watch compares slot times) */
static void heartbeat(struct app_motionlink *k, int64_t slot)
{
    struct sockaddr_storage from;
    uint64_t count;
    ssize_t n;

    /* every datagram waiting (8 at most per slot), an empty one too: from another sender than
     * the platform (wrong_source, not read further), a short status, or not a heartbeat
     * (foreign) */
    for (int i = 0; i < 8; i++) {
        memset(&from, 0, sizeof(from));
        if ((n = vd_udpout_recv(&k->out, k->rx, sizeof(k->rx), &from)) < 0)
            break;
        if (!from_platform(k, &from)) {
            k->wrong_source++;
        } else if (k->moog) {
            moog_status(k, (size_t)n, slot);
        } else if (vd_motion_heartbeat_decode(k->rx, (size_t)n, &count)) {
            /* an RTVH whose counter is not above the last one taken (repeated, reordered,
             * replayed) is no sign of life now: counted, the watch not refreshed */
            if (!rtvh_fresh(k, &from, count, slot)) {
                k->hb_stale++;
                continue;
            }
            k->heartbeats++;
            k->last_hb_ns = slot;
            k->hb_resync = false;
        } else {
            k->foreign++;
        }
    }
}

static void send_one(struct app_motionlink *k, int64_t slot_time)
{
    struct vd_motion_in in = {0};
    const double dt = (double)(k->period_ns * k->every) * 1e-9;
    const bool have = vd_motion_decim_take(&k->dec, k->cue);
    uint64_t *cmd_sent = NULL; /* the sent count of the command this datagram carries */
    int64_t now;
    uint32_t flags;
    int n;

    /* reset at start: faults the MBC reported before the first ENGAGE (latched before this
     * run) are reset, RESET commanded with neutral cues until it reports none, for at most
     * APP_MOTION_RESET_S; then the fault latches as any other */
    bool resetting = false;

    if (reset_phase(k) && k->ms_any && vd_moog_status_fault(&k->ms)) {
        if (k->reset_tries == 0)
            k->reset_t0_ns = slot_time;
        if ((double)(slot_time - k->reset_t0_ns) * 1e-9 > APP_MOTION_RESET_S) {
            k->reset_failed = true;
            latch_fault(k, k->ms.machine_state, slot_time);
        } else {
            resetting = true;
        }
    }

    /* Moog with the platform watched: the engage handshake (A.3 of the reference: wait for
     * the state, never assume it). ENGAGE is commanded with neutral cues until the MBC
     * reports ENGAGED (NULL before its first status); only then does the state machine take
     * the cues and fade them in (ENGAGE goes on until it has: app_motion_start_engage; the
     * loop-silent watch applies in between, in.stale_armed). The MBC must get there within
     * engage_timeout_s of the first ENGAGE (slot times: the count of ENGAGE sent is floor(timeout /
     * send period) + 1 however the thread is scheduled) */
    const bool wait_engage = k->handshake && k->sm.state == VD_MST_OFF &&
                             !(k->ms_any && k->ms.machine_state == VD_MOOG_ENGAGED);

    /* the operator's RESET (app/motionctl.h): RESET with neutral cues until the MBC reports
     * no fault (moog_status acknowledges it), for at most APP_MOTION_RESET_S; then the fault
     * stays latched */
    bool op_resetting = false, op_waiting = false;

    if (k->op_reset) {
        if ((double)(slot_time - k->op_reset_t0) * 1e-9 > APP_MOTION_RESET_S) {
            /* not acknowledged within APP_MOTION_RESET_S */
            k->op_reset = false;
            k->op_resets_failed++;
        } else if (k->final_seen) {
            /* cut short by the run's end: the MBC never reported the fault gone, nor had it
             * its APP_MOTION_RESET_S */
            k->op_reset = false;
            k->op_resets_cut++;
        } else {
            op_resetting = true;
        }
    }
    /* the operator's ENGAGE (moog_mda watched): the engage handshake again, from parked; the
     * state machine fades in once the MBC reports ENGAGED */
    if (k->op_engage) {
        const bool lost = k->cfg.heartbeat_s > 0 &&
                          (double)(slot_time - k->last_hb_ns) * 1e-9 > k->cfg.heartbeat_s;

        if (k->final_seen || k->platform_fault || lost || !k->ms_any ||
            vd_moog_status_fault(&k->ms)) {
            k->op_engage = false;
            k->op_engage_aborted++;
        } else if (k->ms.machine_state == VD_MOOG_ENGAGED && k->st_ok > k->op_engage_st0) {
            /* ENGAGED in a status received after the first ENGAGE went out */
            k->op_engage = false;
            if (vd_motion_sm_engage(&k->sm))
                k->op_reengages++;
        } else if ((double)(slot_time - k->op_engage_t0) * 1e-9 > k->cfg.engage_timeout_s) {
            k->op_engage = false;
            k->op_engage_timeouts++;
            vd_motion_sm_fault(&k->sm, VD_MRS_ENGAGE_TIMEOUT);
        } else {
            op_waiting = true;
        }
    }

    if (wait_engage && !resetting && k->engage_tries > 0 &&
        (double)(slot_time - k->engage_t0_ns) * 1e-9 > k->cfg.engage_timeout_s)
        k->engage_timed_out = k->start_timed_out = true;
    in.engage_timeout = k->engage_timed_out;
    /* the cues only once the MBC reported ENGAGED (the handshake) and no fault is being reset
     * (an MBC that reports ENGAGED with a fault latched is reset first, never faded in) */
    in.cue = have && !wait_engage && !resetting ? k->cue : NULL;
    in.frozen = k->frozen;
    in.step_error = k->step_error;
    in.overrun_latched = k->overrun;
    in.final = k->final_seen;
    in.stop_kind = k->stop_kind;
    in.since_fresh_s = (double)(slot_time - k->last_fresh_ns) * 1e-9;
    /* the heartbeat's absence, in slot times, after this slot drained the socket: watched,
     * "heartbeat lost" for the state machine. Recorded here (hb_resync) before a lower or
     * repeated counter or status number may be taken again (a platform that restarted): a
     * copy of an old heartbeat cannot take the loss's place in the slot that finds it */
    {
        const double gap_s = (double)(slot_time - k->last_hb_ns) * 1e-9;

        in.heartbeat_lost = k->cfg.heartbeat_s > 0 && gap_s > k->cfg.heartbeat_s;
        if (gap_s > hb_timeout_s(k))
            k->hb_resync = true;
    }
    in.platform_fault = k->platform_fault;
    /* the handshake's end: the MBC ENGAGED, ENGAGE still commanded until the cues come (a
     * loop that falls silent here must not leave the MBC commanded forever) */
    in.stale_armed =
        k->handshake && k->sm.state == VD_MST_OFF && k->engage_tries > 0 && !wait_engage;
    k->step_error = false;
    flags = vd_motion_sm_step(&k->sm, &in, dt, k->outc);
    /* the park's end, in statuses received: an operator's ENGAGE waits for a later STANDBY */
    if (!((k->sm.state == VD_MST_PARKED || k->sm.state == VD_MST_FAULT) && !k->sm.fade.moving))
        k->parked_st = k->st_ok;
    /* a cancelled ENGAGE's hold: over engage_timeout_s after the cancel; the statuses from then
     * on decide (settled) */
    if (k->op_hold && (double)(slot_time - k->op_hold_t0) * 1e-9 > k->cfg.engage_timeout_s) {
        k->op_hold = false;
        k->parked_st = k->st_ok;
    }
    if (k->cfg.heartbeat_s > 0 && !in.heartbeat_lost)
        flags |= VD_MFL_HB_OK;
    if (k->first_fault < 0 && k->sm.state == VD_MST_PARKING) {
        k->first_fault = k->sm.reason;
        k->park_t0_ns = slot_time;
        k->park_send = k->sends;
    }
    memcpy(k->msg.cue, k->outc, sizeof(k->msg.cue));
    if (k->cfg.pose)
        vd_washout_step(&k->wo, k->outc + VD_CUE_FX, k->outc + VD_CUE_WX, k->msg.pose);
    k->msg.seq = (uint32_t)k->sends;
    k->msg.flags = flags;
    k->msg.state = (uint8_t)k->sm.state;
    k->msg.reset = (resetting && k->sm.state == VD_MST_OFF) || op_resetting;
    /* the commands are counted twice: as commanded here (the reset's and the handshake's
     * logic), as sent once sendto sent the datagram (cmd_sent, below: what the platform may
     * have got) */
    if (k->msg.reset) {
        k->msg.flags |= VD_MFL_RESET;
        if (op_resetting) {
            k->op_reset_tries++;
            cmd_sent = &k->op_reset_sent;
        } else {
            k->reset_tries++;
            cmd_sent = &k->reset_sent;
        }
    } else if (op_waiting) {
        k->msg.state = VD_MST_ENGAGING; /* MCW ENGAGE with the neutral cues of the parked feed */
        k->op_engage_tries++;
        cmd_sent = &k->op_engage_sent;
        if (k->op_engage_st0 == UINT64_MAX)
            k->op_engage_st0 = k->st_ok;
    } else if (app_motion_start_engage(k->handshake, k->sm.state, k->ms_any,
                                       k->ms.machine_state == VD_MOOG_ENGAGED, have,
                                       k->engage_tries)) {
        /* the start-up handshake (app_motion_start_engage): ENGAGE in every datagram from the
         * first on, the cues neutral, whether or not the loop's came this period */
        k->msg.state = VD_MST_ENGAGING; /* the encoder's MCW ENGAGE; the cues are neutral */
        if (k->engage_tries++ == 0)
            k->engage_t0_ns = slot_time;
        cmd_sent = &k->engage_sent;
    }
    k->msg.reason = (uint8_t)k->sm.reason;
    k->msg.fade = (float)k->sm.fade.s;
    k->msg.t_model = k->t_model; /* of the newest cycle of the period */
    now = vd_clock_now();
    k->msg.t_send_ns = now;
    n = vd_motion_encode(k->cfg.format, &k->msg, k->buf, sizeof(k->buf));
    k->sends++;
    if (n > 0 && vd_udpout_send(&k->out, k->buf, (size_t)n) == 0) {
        k->sent++;
        if (cmd_sent)
            (*cmd_sent)++;
    } else {
        k->send_errors++;
    }
    /* lateness of the send against its slot: the send jitter */
    {
        const int64_t late = now - slot_time;
        const int64_t us = late / 1000;

        k->hist[us < 0 ? 0 : us > APP_MOTION_HIST_US ? APP_MOTION_HIST_US : us]++;
        if (late > k->late_max_ns)
            k->late_max_ns = late;
        k->late_sum_ns += late;
        if (late > 100000)
            k->late++;
    }
    /* the fade after the first park, every traj_every-th datagram and its end */
    if (k->first_fault >= 0 && k->ntraj < APP_MOTION_TRAJ &&
        ((k->sm.fade.moving && (k->sends - k->park_send) % (uint64_t)k->traj_every == 0) ||
         (!k->sm.fade.moving && (k->ntraj == 0 || k->traj[k->ntraj - 1][1] != 0.0f)))) {
        float *tr = k->traj[k->ntraj++];

        tr[0] = (float)((double)(slot_time - k->park_t0_ns) * 1e-9);
        tr[1] = (float)k->sm.fade.s;
        tr[2] = (float)k->outc[VD_CUE_FX];
        tr[3] = (float)k->outc[VD_CUE_FZ];
    }
}

void app_motion_slot(struct app_motionlink *k, uint64_t sl, int64_t now)
{
    const int64_t t = k->t0 + (int64_t)sl * k->period_ns;

    k->slots++;
    take(k, now);
    heartbeat(k, t);
    app_motion_control(k, t);
    if ((sl + 1) % (uint64_t)k->every == 0) {
        send_one(k, t);
        /* parked or in fault with the fade over, no operator's ENGAGE or RESET pending (0 from
         * an accepted one on: app_motion_control) */
        atomic_store_explicit(&k->done, vd_motion_sm_done(&k->sm) && !k->op_engage && !k->op_reset,
                              memory_order_release);
        if ((k->sends % 10) == 0 || k->sm.fade.moving)
            publish(k);
    }
}

static void *motion_thread(void *arg)
{
    struct app_motionlink *k = arg;

    k->last_hb_ns = k->last_fresh_ns = k->t0;
    for (uint64_t sl = 0;; sl++) {
        struct timespec ts = vd_ns_to_timespec(k->t0 + (int64_t)sl * k->period_ns);

        if (atomic_load_explicit(&k->stop, memory_order_acquire))
            break;
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
        /* a thread that woke more than a slot late serves the slots it missed at once */
        app_motion_slot(k, sl, vd_clock_now());
    }
    publish(k);
    return NULL;
}

int app_motion_start(struct app_motionlink *k, int64_t first_release)
{
    const struct vd_thread_spec spec = {
        .name = "vd-motion",
        .cpu = k->cfg.cpu,
        .priority = k->cfg.priority,
        .stack_size = 256 * 1024,
        .fn = motion_thread,
        .arg = k,
    };
    int rc;

    k->t0 = first_release + k->period_ns * 6 / 10;
    rc = vd_rt_thread_create(&k->thread, &spec);
    k->started = rc == 0;
    return rc;
}

bool app_motion_wait_parked(struct app_motionlink *k, double timeout_s)
{
    const int64_t end = vd_clock_now() + (int64_t)(timeout_s * 1e9);

    while (k->started && !atomic_load_explicit(&k->done, memory_order_acquire)) {
        const struct timespec ts = {0, 5000000};

        if (vd_clock_now() > end)
            return false;
        nanosleep(&ts, NULL);
    }
    return true;
}

void app_motion_stop(struct app_motionlink *k)
{
    atomic_store_explicit(&k->stop, 1, memory_order_release);
    if (k->started)
        vd_rt_thread_join(&k->thread);
    k->started = false;
}

void app_motion_free(struct app_motionlink *k)
{
    if (!k->up)
        return;
    app_motion_stop(k);
    vd_udpout_close(&k->out);
    app_opc_close(k->ctl_fd, k->cfg.control, &k->ctl_file);
    k->ctl_fd = -1;
    vd_mailbox_free(&k->tm);
    k->up = false;
}

static const char *const fmt_text[] = {"rtvd (little-endian, README)", "Moog MDA (big-endian)",
                                       "LFS OutSim"};

void app_motion_describe(const struct app_motionlink *k, FILE *f)
{
    fprintf(f,
            "rtvd run: motion feed %s%s to %s%s at %d Hz (%s), MRP %s at (%.3f, %.3f, %.3f) m; "
            "engage %.2g s, park %.2g s, heartbeat %s%s\n",
            fmt_text[k->cfg.format], k->cfg.pose ? " POSE (classical washout)" : "", k->dest_text,
            k->out.multicast ? " (multicast)" : "", k->cfg.rate_hz,
            k->cfg.decimation == VD_RUN_MOTION_LOWPASS ? "low-pass + average" : "average",
            k->cfg.mrp_what, k->cfg.mrp_pos[0], k->cfg.mrp_pos[1], k->cfg.mrp_pos[2],
            k->cfg.engage_s, k->cfg.park_s, k->cfg.heartbeat_s > 0 ? "watched" : "not watched",
            k->moog ? " (the MBC's status messages; its faults park the feed)" : "");
    if (k->handshake)
        fprintf(f,
                "rtvd run: motion feed: engage handshake (ENGAGE with neutral cues until the MBC "
                "reports ENGAGED, at most %g s), fault reset %s\n",
                k->cfg.engage_timeout_s,
                k->cfg.reset == VD_RUN_MOTION_RESET_AT_START
                    ? "at start (faults reported before the first ENGAGE, once)"
                    : "never (clearing the MBC's faults is the operator's, at the MBC)");
    if (k->ctl_fd >= 0)
        fprintf(f,
                "rtvd run: motion feed: operator control channel %s (Unix datagrams, mode 0600): "
                "PARK, %sENGAGE, STATUS (rtvd control %s ...)\n",
                k->cfg.control, k->handshake ? "RESET, " : "", k->cfg.control);
}

double app_motion_late_pct(const struct app_motionlink *k, double p)
{
    uint64_t n = 0, want, acc = 0;

    for (int i = 0; i <= APP_MOTION_HIST_US; i++)
        n += k->hist[i];
    if (!n)
        return 0.0;
    want = (uint64_t)ceil(p * (double)n);
    if (want < 1)
        want = 1;
    for (int i = 0; i <= APP_MOTION_HIST_US; i++) {
        acc += k->hist[i];
        if (acc >= want)
            return i;
    }
    return APP_MOTION_HIST_US;
}

void app_motion_summary(const struct app_motionlink *k, FILE *f, const char *in)
{
    fprintf(f,
            "%smotion feed to %s: %" PRIu64 " datagrams sent (%" PRIu64
            " send errors), state %s%s%s"
            "; %" PRIu64 " cycles taken, %" PRIu64 " missed; %" PRIu64
            " cue periods rejected, %" PRIu64 " heartbeats (%" PRIu64 " stale), %" PRIu64
            " foreign datagrams, %" PRIu64 " from a wrong source\n",
            in, k->dest_text, k->sent, k->send_errors, vd_motion_state_name[k->sm.state],
            k->sm.reason ? " after " : "", vd_motion_reason_name[k->sm.reason], k->samples,
            k->missed, k->sm.rejected, k->heartbeats, k->hb_stale, k->foreign, k->wrong_source);
    fprintf(f,
            "%s  send jitter (lateness after the slot) [us]: p50 %.0f p99 %.0f max %.1f; %" PRIu64
            " sends later than 100 us\n",
            in, app_motion_late_pct(k, 0.5), app_motion_late_pct(k, 0.99),
            (double)k->late_max_ns * 1e-3, k->late);
    if (k->moog) {
        fprintf(f,
                "%s  platform (Moog MBC status): state %s, fault words 0x%08" PRIx32 " 0x%08" PRIx32
                " 0x%08" PRIx32 " (reported during the run: 0x%08" PRIx32 " 0x%08" PRIx32
                " 0x%08" PRIx32 "); %" PRIu64 " status messages, %" PRIu64 " rejected",
                in, k->ms_any ? vd_moog_state_name(k->ms.machine_state) : "none received",
                k->ms.fault[0], k->ms.fault[1], k->ms.fault[2], k->fault_seen[0], k->fault_seen[1],
                k->fault_seen[2], k->st_ok, k->st_rejected);
        for (int b = 1; b < VD_MOOG_BAD_COUNT; b++)
            if (k->st_bad[b])
                fprintf(f, " (%" PRIu64 " %s)", k->st_bad[b], vd_moog_bad_name[b]);
        fprintf(f, ", %" PRIu64 " sequence gaps\n", k->st_gaps);
    }
    if (k->handshake)
        fprintf(f,
                "%s  engage handshake: %" PRIu64 " ENGAGE with neutral cues sent of %" PRIu64
                " commanded (timeout %g s%s); fault reset %s: %" PRIu64 " RESET sent of %" PRIu64
                " commanded%s\n",
                in, k->engage_sent, k->engage_tries, k->cfg.engage_timeout_s,
                k->start_timed_out ? ": timed out" : "",
                k->cfg.reset == VD_RUN_MOTION_RESET_AT_START ? "at start" : "never", k->reset_sent,
                k->reset_tries,
                k->reset_failed  ? ", not acknowledged: the fault latched"
                : k->reset_acked ? ", acknowledged"
                                 : "");
    if (k->ctl_fd >= 0) {
        uint64_t acc = 0, ref = 0;

        for (int c = 0; c < APP_OPC_N; c++)
            acc += k->op_cmd[c][0], ref += k->op_cmd[c][1];
        fprintf(f,
                "%s  operator commands: %" PRIu64 " received, %" PRIu64 " accepted (park %" PRIu64
                ", reset %" PRIu64 ", engage %" PRIu64 ", status %" PRIu64 "), %" PRIu64 " refused",
                in, acc + ref, acc, k->op_cmd[APP_OPC_PARK][0], k->op_cmd[APP_OPC_RESET][0],
                k->op_cmd[APP_OPC_ENGAGE][0], k->op_cmd[APP_OPC_STATUS][0], ref);
        for (int w = 1; w < APP_OPW_N; w++)
            if (k->op_why[w])
                fprintf(f, " (%" PRIu64 " %s)", k->op_why[w], app_opc_why_name[w]);
        fprintf(f,
                "; %" PRIu64 " operator parks, %" PRIu64 " re-engagements; RESET %" PRIu64
                " acknowledged, %" PRIu64 " not, %" PRIu64 " cut short by the run's end; %" PRIu64
                " engage timeouts\n",
                k->op_parks, k->op_reengages, k->op_resets_acked, k->op_resets_failed,
                k->op_resets_cut, k->op_engage_timeouts);
    }
}

void app_motion_json(const struct app_motionlink *k, FILE *f)
{
    fprintf(f,
            "{\"dest\": \"%s\", \"format\": \"%s\", \"rate_hz\": %d, \"decimation\": \"%s\", "
            "\"mrp\": \"%s\", \"mrp_position_m\": [%.4f, %.4f, %.4f],\n"
            "    \"state\": \"%s\", \"reason\": \"%s\", \"sent\": %" PRIu64
            ", \"send_errors\": %" PRIu64 ", \"samples\": %" PRIu64 ", \"missed_cycles\": %" PRIu64
            ", \"rejected\": %" PRIu64 ", \"heartbeats\": %" PRIu64 ", \"foreign\": %" PRIu64
            ", \"wrong_source\": %" PRIu64 ", \"hb_stale\": %" PRIu64 ",\n    \"faults\": {",
            k->dest_text, vd_motion_fmt_name[k->cfg.format], k->cfg.rate_hz,
            k->cfg.decimation == VD_RUN_MOTION_LOWPASS ? "lowpass" : "average", k->cfg.mrp_what,
            k->cfg.mrp_pos[0], k->cfg.mrp_pos[1], k->cfg.mrp_pos[2],
            vd_motion_state_name[k->sm.state], vd_motion_reason_name[k->sm.reason], k->sent,
            k->send_errors, k->samples, k->missed, k->sm.rejected, k->heartbeats, k->foreign,
            k->wrong_source, k->hb_stale);
    for (int r = 1; r < VD_MRS_COUNT; r++)
        fprintf(f, "%s\"%s\": %" PRIu64, r > 1 ? ", " : "", vd_motion_reason_name[r],
                k->sm.faults[r]);
    fprintf(f,
            "},\n    \"send_late_us\": {\"p50\": %.0f, \"p99\": %.0f, \"max\": %.1f, "
            "\"mean\": %.1f, \"over_100us\": %" PRIu64 "},\n    \"fade\": [",
            app_motion_late_pct(k, 0.5), app_motion_late_pct(k, 0.99),
            (double)k->late_max_ns * 1e-3,
            k->sends ? (double)k->late_sum_ns / (double)k->sends * 1e-3 : 0.0, k->late);
    for (int i = 0; i < k->ntraj; i++)
        fprintf(f, "%s[%.9g, %.9g, %.9g, %.9g]", i ? ", " : "", k->traj[i][0], k->traj[i][1],
                k->traj[i][2], k->traj[i][3]);
    fputs("]", f);
    if (k->moog) {
        /* the park the platform's fault caused: the datagrams sent between the fault report
         * and the park's first one (0: the thread drains the socket in every slot before it
         * sends, and the state machine takes the fault on that send), and the time from the
         * slot of the report to the slot of the park (under one send period) */
        const bool park_here = k->platform_fault && k->first_fault == VD_MRS_PLATFORM;

        fprintf(f,
                ",\n    \"platform\": {\"state\": \"%s\", \"state_code\": %d, \"motion_mode\": %d, "
                "\"update_rate_hz\": %d, \"discrete_io\": %" PRIu32 ", \"fault_words\": [%" PRIu32
                ", %" PRIu32 ", %" PRIu32 "], \"fault_words_seen\": [%" PRIu32 ", %" PRIu32
                ", %" PRIu32 "], \"fault\": %s, \"first_fault_state\": \"%s\", "
                "\"fault_to_park_sends\": %" PRId64 ", \"fault_to_park_ms\": %.3f, "
                "\"engage_wait_sends\": %" PRIu64 ", \"engage_wait_tries\": %" PRIu64
                ", \"engage_timeout_s\": %g, "
                "\"engage_timed_out\": %s, \"reset\": \"%s\", \"reset_sends\": %" PRIu64
                ", \"reset_tries\": %" PRIu64
                ", \"reset_acked\": %s, \"reset_failed\": %s, \"fault_words_before_engage\": "
                "[%" PRIu32 ", %" PRIu32 ", %" PRIu32 "], \"fault_state_before_engage\": \"%s\", "
                "\"status\": %" PRIu64 ", \"gaps\": %" PRIu64 ", \"rejected_total\": %" PRIu64
                ", \"rejected\": {",
                k->ms_any ? vd_moog_state_name(k->ms.machine_state) : "",
                k->ms_any ? k->ms.machine_state : -1, k->ms.motion_mode, k->ms.update_rate,
                k->ms.discrete_io, k->ms.fault[0], k->ms.fault[1], k->ms.fault[2], k->fault_seen[0],
                k->fault_seen[1], k->fault_seen[2], k->platform_fault ? "true" : "false",
                k->first_fault_state >= 0 ? vd_moog_state_name(k->first_fault_state) : "",
                park_here ? (int64_t)(k->park_send - k->st_fault_send) : (int64_t)-1,
                park_here ? (double)(k->park_t0_ns - k->st_fault_ns) * 1e-6 : -1.0, k->engage_sent,
                k->engage_tries, k->handshake ? k->cfg.engage_timeout_s : 0.0,
                k->start_timed_out ? "true" : "false",
                k->cfg.reset == VD_RUN_MOTION_RESET_AT_START ? "at_start" : "never", k->reset_sent,
                k->reset_tries, k->reset_acked ? "true" : "false",
                k->reset_failed ? "true" : "false", k->pre_fault[0], k->pre_fault[1],
                k->pre_fault[2],
                k->pre_fault_state >= 0 ? vd_moog_state_name(k->pre_fault_state) : "", k->st_ok,
                k->st_gaps, k->st_rejected);
        for (int b = 1; b < VD_MOOG_BAD_COUNT; b++)
            fprintf(f, "%s\"%s\": %" PRIu64, b > 1 ? ", " : "", vd_moog_bad_name[b], k->st_bad[b]);
        fputs("}}", f);
    }
    if (k->ctl_fd >= 0) {
        /* the operator's control channel (app/motionctl.h): requests by command and result,
         * refused by reason, and what came of them */
        fprintf(f, ",\n    \"operator\": {\"control\": \"%s\", \"commands\": {", k->cfg.control);
        for (int c = 0; c < APP_OPC_N; c++)
            fprintf(f, "%s\"%s\": {\"accepted\": %" PRIu64 ", \"refused\": %" PRIu64 "}",
                    c ? ", " : "", app_opc_cmd_name[c], k->op_cmd[c][0], k->op_cmd[c][1]);
        fputs("}, \"refused\": {", f);
        for (int w = 1; w < APP_OPW_N; w++)
            fprintf(f, "%s\"%s\": %" PRIu64, w > 1 ? ", " : "", app_opc_why_name[w], k->op_why[w]);
        fprintf(f,
                "}, \"reply_errors\": %" PRIu64 ", \"parks\": %" PRIu64
                ", \"reengagements\": %" PRIu64 ", \"engages_begun\": %" PRIu64
                ", \"resets_acked\": %" PRIu64 ", \"resets_failed\": %" PRIu64
                ", \"resets_cut\": %" PRIu64 ", \"reset_sends\": %" PRIu64
                ", \"reset_tries\": %" PRIu64 ", \"engage_sends\": %" PRIu64
                ", \"engage_tries\": %" PRIu64 ", \"engage_timeouts\": %" PRIu64
                ", \"engages_aborted\": %" PRIu64 "}",
                k->op_reply_errors, k->op_parks, k->op_reengages, k->sm.engages, k->op_resets_acked,
                k->op_resets_failed, k->op_resets_cut, k->op_reset_sent, k->op_reset_tries,
                k->op_engage_sent, k->op_engage_tries, k->op_engage_timeouts, k->op_engage_aborted);
    }
    fputs("}", f);
}
