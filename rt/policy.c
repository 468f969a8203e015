/* rt/policy.c - overrun accounting and policies (definitions in policy.h). */
#include "policy.h"

void vd_policy_start(struct vd_policy_state *s, int64_t t0)
{
    *s = (struct vd_policy_state){
        .t0 = t0,
        .next_release = t0,
        .max_overrun_cycle = -1,
        .first_overrun_cycle = -1,
        .freeze_cycle = -1,
        .stop_cycle = -1,
    };
}

/* pending releases: #{ j >= 1 : r + j P < c } */
static uint64_t pending(int64_t period, int64_t release, int64_t done)
{
    if (done <= release + period)
        return 0;
    return (uint64_t)((done - release - 1) / period);
}

static void stop(struct vd_policy_state *s, int reason, int64_t period)
{
    /* pending releases are never executed */
    s->skipped += s->queued;
    s->next_release += (int64_t)s->queued * period;
    s->queued = 0;
    s->state = VD_STATE_STOPPED;
    s->reason = reason;
    s->stop_cycle = (int64_t)s->cycles - 1;
}

int vd_policy_account(const struct vd_policy_cfg *cfg, struct vd_policy_state *s, int64_t release,
                      int64_t done)
{
    const int64_t P = cfg->period_ns;
    const uint64_t k = s->cycles++;
    const uint64_t m = pending(P, release, done);
    const bool grace = k < cfg->grace_cycles;
    int recovery = VD_REALIGN_SKIP; /* or VD_REALIGN_DELAY, or -1: queue (catch up) */
    bool give_up = false;

    if (s->state == VD_STATE_FROZEN)
        s->frozen_cycles++;
    s->queued = 0;
    if (m == 0) {
        if (!grace)
            s->consecutive = 0;
        s->next_release = release + P;
        return s->state;
    }

    /* an overrun: counters */
    if (grace) {
        s->grace_overruns++;
    } else {
        const int64_t len = done - (release + P);

        s->overruns++;
        if (++s->consecutive > s->max_consecutive)
            s->max_consecutive = s->consecutive;
        if (len > s->max_overrun_ns) {
            s->max_overrun_ns = len;
            s->max_overrun_cycle = (int64_t)k;
        }
        if (!s->latched) {
            s->latched = true;
            s->first_overrun_cycle = (int64_t)k;
        }
    }

    /* recovery mode and the give-up decision (none while frozen or in grace) */
    switch (cfg->kind) {
    case VD_OVR_STOP:
        give_up = true;
        break;
    case VD_OVR_SKIP:
        break;
    case VD_OVR_DELAY:
        recovery = VD_REALIGN_DELAY;
        break;
    case VD_OVR_QUEUE:
        recovery = -1;
        if (m > s->max_queued)
            s->max_queued = m;
        give_up = m > cfg->queue_depth;
        break;
    case VD_OVR_ALLOW:
        recovery = cfg->allow_realign;
        give_up = cfg->allow_mode == VD_ALLOW_CONSECUTIVE ? s->consecutive > cfg->allow_count
                                                          : s->overruns > cfg->allow_count;
        break;
    }
    if (s->state == VD_STATE_FROZEN || grace) {
        give_up = false;
        if (s->state == VD_STATE_FROZEN || recovery < 0)
            recovery = VD_REALIGN_SKIP;
    }

    if (recovery == VD_REALIGN_DELAY) {
        s->next_release = done;
        s->shift_ns += done - (release + P);
    } else if (recovery < 0) {
        s->next_release = release + P;
        s->queued = m;
    } else {
        s->next_release = release + (int64_t)(m + 1) * P;
        s->skipped += m;
    }

    if (give_up) {
        if (cfg->kind == VD_OVR_ALLOW && cfg->allow_then == VD_ALLOW_THEN_FREEZE) {
            s->state = VD_STATE_FROZEN;
            s->freeze_cycle = (int64_t)k;
        } else {
            stop(s,
                 cfg->kind == VD_OVR_QUEUE   ? VD_STOP_QUEUE_FULL
                 : cfg->kind == VD_OVR_ALLOW ? VD_STOP_ALLOW
                                             : VD_STOP_OVERRUN,
                 P);
        }
    }
    return s->state;
}

void vd_policy_end(const struct vd_policy_cfg *cfg, struct vd_policy_state *s, int64_t t_end)
{
    const int64_t P = cfg->period_ns, base = s->t0 + s->shift_ns;
    /* first grid point at or after t_end */
    const int64_t last = base + (t_end - base + P - 1) / P * P;
    uint64_t excess;

    if (t_end <= base || s->next_release <= last)
        return;
    excess = (uint64_t)((s->next_release - last) / P);
    if (excess > s->skipped)
        excess = s->skipped;
    s->skipped -= excess;
    s->next_release -= (int64_t)excess * P;
}

void vd_policy_stop(const struct vd_policy_cfg *cfg, struct vd_policy_state *s, int reason)
{
    if (s->state == VD_STATE_STOPPED)
        return;
    stop(s, reason, cfg->period_ns);
}

int64_t vd_policy_elapsed_periods(const struct vd_policy_cfg *cfg, const struct vd_policy_state *s)
{
    return (s->next_release - s->t0 - s->shift_ns) / cfg->period_ns;
}

const char *vd_policy_name(int kind)
{
    static const char *const n[] = {"stop", "skip", "delay", "queue", "allow"};

    return kind >= 0 && kind <= VD_OVR_ALLOW ? n[kind] : "?";
}

const char *vd_state_name(int state)
{
    static const char *const n[] = {"running", "frozen", "stopped"};

    return state >= 0 && state <= VD_STATE_STOPPED ? n[state] : "?";
}

const char *vd_stop_reason_name(int reason)
{
    static const char *const n[] = {"none",       "duration",       "request",   "overrun",
                                    "queue_full", "allow_exceeded", "step_error"};

    return reason >= 0 && reason <= VD_STOP_STEP_ERROR ? n[reason] : "?";
}
