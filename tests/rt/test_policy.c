/* tests/rt/test_policy.c - the overrun policies as a pure state machine (rt/policy.h): a
 * simulated task with given execution times on a 1 ms grid; each policy's decisions and
 * every counter are checked exactly, the boundary cases of "overrun" and "pending", and the
 * bookkeeping invariant cycles + skipped = elapsed periods on random sequences. */
#include <string.h>

#include "check.h"
#include "rt/policy.h"

#define MS 1000000LL
#define US 1000LL

/* run n cycles: cycle k starts at max(release, previous completion) and takes exec[k]
 * (base otherwise); stops early when the policy stops. Returns the cycles run. */
struct sim {
    struct vd_policy_cfg cfg;
    struct vd_policy_state s;
    int64_t release[256], done[256];
    int invariant_fail;
};

static void sim_init(struct sim *x, int kind)
{
    memset(x, 0, sizeof(*x));
    x->cfg.kind = kind;
    x->cfg.period_ns = 1 * MS;
    vd_policy_start(&x->s, 1000 * MS);
}

static int sim_run(struct sim *x, int n, const int64_t *exec_at, int nexec)
{
    int64_t prev_done = 0;
    int k;

    for (k = 0; k < n && x->s.state != VD_STATE_STOPPED; k++) {
        const int64_t r = x->s.next_release;
        int64_t e = 100 * US, start = r > prev_done ? r : prev_done;

        for (int i = 0; i + 1 < nexec; i += 2)
            if (exec_at[i] == k)
                e = exec_at[i + 1];
        x->release[k] = r;
        x->done[k] = start + e;
        prev_done = x->done[k];
        vd_policy_account(&x->cfg, &x->s, r, x->done[k]);
        if ((int64_t)(x->s.cycles + x->s.skipped) != vd_policy_elapsed_periods(&x->cfg, &x->s))
            x->invariant_fail++;
    }
    return k;
}

#define CHECK_U(a, b, what)                                                                        \
    CHECK((uint64_t)(a) == (uint64_t)(b), "%s: %llu != %llu", what, (unsigned long long)(a),       \
          (unsigned long long)(b))
#define CHECK_I(a, b, what)                                                                        \
    CHECK((int64_t)(a) == (int64_t)(b), "%s: %lld != %lld", what, (long long)(a), (long long)(b))

static void boundaries(void)
{
    struct vd_policy_cfg c = {.kind = VD_OVR_SKIP, .period_ns = MS};
    struct vd_policy_state s;

    /* done exactly at the deadline: no overrun */
    vd_policy_start(&s, 0);
    vd_policy_account(&c, &s, 0, MS);
    CHECK(s.overruns == 0 && s.next_release == MS && s.skipped == 0, "done == deadline");
    /* one ns later: overrun, one pending release (r + P) */
    vd_policy_start(&s, 0);
    vd_policy_account(&c, &s, 0, MS + 1);
    CHECK(s.overruns == 1 && s.skipped == 1 && s.next_release == 2 * MS, "deadline + 1 ns");
    CHECK_I(s.max_overrun_ns, 1, "overrun length");
    /* done exactly on the second release after: still one pending */
    vd_policy_start(&s, 0);
    vd_policy_account(&c, &s, 0, 2 * MS);
    CHECK(s.skipped == 1 && s.next_release == 2 * MS, "done == r + 2P");
    vd_policy_start(&s, 0);
    vd_policy_account(&c, &s, 0, 2 * MS + 1);
    CHECK(s.skipped == 2 && s.next_release == 3 * MS, "done == r + 2P + 1");
}

static void stop(void)
{
    static const int64_t ex[] = {5, 2500 * US};
    struct sim x;
    int n;

    sim_init(&x, VD_OVR_STOP);
    n = sim_run(&x, 50, ex, 2);
    CHECK(n == 6, "stop: ran %d cycles", n);
    CHECK(x.s.state == VD_STATE_STOPPED && x.s.reason == VD_STOP_OVERRUN, "stop: state");
    CHECK_U(x.s.cycles, 6, "stop: cycles");
    CHECK_U(x.s.overruns, 1, "stop: overruns");
    CHECK_U(x.s.skipped, 2, "stop: skipped (2 pending dropped)");
    CHECK_I(x.s.max_overrun_ns, 1500 * US, "stop: max overrun");
    CHECK_I(x.s.max_overrun_cycle, 5, "stop: max overrun cycle");
    CHECK_I(x.s.first_overrun_cycle, 5, "stop: first overrun");
    CHECK(x.s.latched, "stop: latched");
    CHECK_I(x.s.stop_cycle, 5, "stop: stop cycle");
    CHECK_U(x.s.max_consecutive, 1, "stop: consecutive");
    CHECK_I(vd_policy_elapsed_periods(&x.cfg, &x.s), 8, "stop: elapsed");
    CHECK(x.invariant_fail == 0, "stop: invariant");
}

static void skip(void)
{
    /* 2.5 ms at 5 (2 pending), 1.2 ms at 9 (1), 1.5 ms at 12, 13, 14 (1 each) */
    static const int64_t ex[] = {5,         2500 * US, 9,         1200 * US, 12,
                                 1500 * US, 13,        1500 * US, 14,        1500 * US};
    struct sim x;

    sim_init(&x, VD_OVR_SKIP);
    CHECK(sim_run(&x, 20, ex, 10) == 20, "skip: runs on");
    CHECK(x.s.state == VD_STATE_RUNNING, "skip: running");
    CHECK_U(x.s.overruns, 5, "skip: overruns");
    CHECK_U(x.s.skipped, 2 + 1 + 3, "skip: skipped");
    CHECK_U(x.s.max_consecutive, 3, "skip: max consecutive");
    CHECK_U(x.s.consecutive, 0, "skip: consecutive now");
    CHECK_I(x.s.max_overrun_ns, 1500 * US, "skip: max overrun");
    CHECK_I(x.s.max_overrun_cycle, 5, "skip: first of the longest");
    CHECK_I(x.s.first_overrun_cycle, 5, "skip: first overrun");
    /* realigned on the grid: cycle 6 is released 3 periods after cycle 5 */
    CHECK_I(x.release[6] - x.release[5], 3 * MS, "skip: realign");
    CHECK_I((x.release[19] - x.s.t0) % MS, 0, "skip: stays on the grid");
    CHECK_I(vd_policy_elapsed_periods(&x.cfg, &x.s), 26, "skip: elapsed");
    CHECK(x.invariant_fail == 0, "skip: invariant");
}

static void delay(void)
{
    static const int64_t ex[] = {5, 2500 * US, 8, 1100 * US};
    struct sim x;

    sim_init(&x, VD_OVR_DELAY);
    CHECK(sim_run(&x, 12, ex, 4) == 12, "delay: runs on");
    CHECK_U(x.s.overruns, 2, "delay: overruns");
    CHECK_U(x.s.skipped, 0, "delay: nothing skipped");
    CHECK_I(x.release[6], x.done[5], "delay: next release = completion");
    CHECK_I(x.release[7] - x.release[6], MS, "delay: period kept after the shift");
    CHECK_I(x.s.shift_ns, 1500 * US + 100 * US, "delay: total shift");
    CHECK_I(vd_policy_elapsed_periods(&x.cfg, &x.s), 12, "delay: elapsed = cycles");
    CHECK(x.invariant_fail == 0, "delay: invariant");
}

static void queue(void)
{
    static const int64_t ex[] = {5, 2500 * US};
    struct sim x;

    /* queue(2): 2 pending fit, the two queued instances run back to back */
    sim_init(&x, VD_OVR_QUEUE);
    x.cfg.queue_depth = 2;
    CHECK(sim_run(&x, 12, ex, 2) == 12, "queue(2): runs on");
    CHECK_I(x.release[6], x.release[5] + MS, "queue: grid kept");
    CHECK_I(x.done[6], x.done[5] + 100 * US, "queue: catch-up starts at once");
    CHECK_U(x.s.overruns, 2, "queue: cycles 5 and 6 overran");
    CHECK_U(x.s.max_consecutive, 2, "queue: consecutive");
    CHECK_U(x.s.max_queued, 2, "queue: deepest queue");
    CHECK_U(x.s.queued, 0, "queue: drained");
    CHECK_U(x.s.skipped, 0, "queue: nothing skipped");
    CHECK_I(x.s.max_overrun_ns, 1500 * US, "queue: max overrun");
    CHECK_I(vd_policy_elapsed_periods(&x.cfg, &x.s), 12, "queue: elapsed");
    CHECK(x.invariant_fail == 0, "queue(2): invariant");

    /* queue(1): 2 pending do not fit: stop, the pending releases are dropped */
    sim_init(&x, VD_OVR_QUEUE);
    x.cfg.queue_depth = 1;
    CHECK(sim_run(&x, 12, ex, 2) == 6, "queue(1): stops");
    CHECK(x.s.reason == VD_STOP_QUEUE_FULL, "queue(1): reason");
    CHECK_U(x.s.skipped, 2, "queue(1): pending dropped");
    CHECK_U(x.s.max_queued, 2, "queue(1): max queued");
    CHECK_I(vd_policy_elapsed_periods(&x.cfg, &x.s), 8, "queue(1): elapsed");
    CHECK(x.invariant_fail == 0, "queue(1): invariant");

    /* an outside stop while releases are queued drops them too */
    sim_init(&x, VD_OVR_QUEUE);
    x.cfg.queue_depth = 5;
    {
        static const int64_t ex3[] = {2, 3500 * US};

        sim_run(&x, 3, ex3, 2);
    }
    CHECK_U(x.s.queued, 3, "queued before the stop");
    vd_policy_stop(&x.cfg, &x.s, VD_STOP_REQUEST);
    CHECK(x.s.state == VD_STATE_STOPPED && x.s.reason == VD_STOP_REQUEST, "request stop");
    CHECK_U(x.s.skipped, 3, "queued dropped at the stop");
    CHECK_I(vd_policy_elapsed_periods(&x.cfg, &x.s), 6, "elapsed after the stop");
}

static void allow(void)
{
    struct sim x;

    /* allow(2) total, then stop: the third overrun stops */
    {
        static const int64_t ex[] = {3, 1500 * US, 7, 1500 * US, 11, 1500 * US};

        sim_init(&x, VD_OVR_ALLOW);
        x.cfg.allow_count = 2;
        CHECK(sim_run(&x, 30, ex, 6) == 12, "allow(2): stops at cycle 11");
        CHECK(x.s.reason == VD_STOP_ALLOW, "allow(2): reason");
        CHECK_U(x.s.overruns, 3, "allow(2): overruns");
        CHECK_U(x.s.skipped, 3, "allow(2): skip realign");
        CHECK_I(x.s.stop_cycle, 11, "allow(2): stop cycle");
        CHECK(x.invariant_fail == 0, "allow(2): invariant");
    }
    /* allow(1) consecutive, then freeze: single overruns pass, two in a row freeze */
    {
        static const int64_t ex[] = {3, 1500 * US, 7, 1500 * US, 8, 1500 * US, 12, 1500 * US};

        sim_init(&x, VD_OVR_ALLOW);
        x.cfg.allow_count = 1;
        x.cfg.allow_mode = VD_ALLOW_CONSECUTIVE;
        x.cfg.allow_then = VD_ALLOW_THEN_FREEZE;
        CHECK(sim_run(&x, 20, ex, 8) == 20, "allow(1, consecutive, freeze): runs on frozen");
        CHECK(x.s.state == VD_STATE_FROZEN, "frozen");
        CHECK_I(x.s.freeze_cycle, 8, "freeze cycle");
        CHECK_U(x.s.frozen_cycles, 11, "frozen cycles 9..19");
        CHECK_U(x.s.overruns, 4, "overruns still counted while frozen");
        CHECK_U(x.s.max_consecutive, 2, "max consecutive");
        CHECK_U(x.s.skipped, 4, "frozen runs keep the grid (skip)");
        CHECK(x.s.reason == VD_STOP_NONE, "no stop");
        vd_policy_stop(&x.cfg, &x.s, VD_STOP_DURATION);
        CHECK(x.s.state == VD_STATE_STOPPED && x.s.freeze_cycle == 8, "freeze stays recorded");
        CHECK(x.invariant_fail == 0, "allow freeze: invariant");
    }
    /* allow with delay realign */
    {
        static const int64_t ex[] = {4, 2200 * US};

        sim_init(&x, VD_OVR_ALLOW);
        x.cfg.allow_count = 5;
        x.cfg.allow_realign = VD_REALIGN_DELAY;
        sim_run(&x, 8, ex, 2);
        CHECK_I(x.s.shift_ns, 1200 * US, "allow delay: shift");
        CHECK_U(x.s.skipped, 0, "allow delay: no skip");
        CHECK(x.invariant_fail == 0, "allow delay: invariant");
    }
    /* allow(0) is stop */
    {
        static const int64_t ex[] = {2, 1500 * US};

        sim_init(&x, VD_OVR_ALLOW);
        CHECK(sim_run(&x, 10, ex, 2) == 3 && x.s.reason == VD_STOP_ALLOW, "allow(0)");
    }
}

static void grace(void)
{
    static const int64_t ex[] = {2, 2500 * US, 4, 1500 * US, 7, 1200 * US};
    struct sim x;

    sim_init(&x, VD_OVR_STOP);
    x.cfg.grace_cycles = 5;
    CHECK(sim_run(&x, 20, ex, 6) == 8, "grace: stop only at cycle 7");
    CHECK_U(x.s.grace_overruns, 2, "grace overruns");
    CHECK_U(x.s.overruns, 1, "overruns after grace");
    CHECK_I(x.s.first_overrun_cycle, 7, "first overrun after grace");
    CHECK_U(x.s.max_consecutive, 1, "consecutive ignores grace");
    CHECK_I(x.s.max_overrun_ns, 200 * US, "max overrun ignores grace");
    CHECK_U(x.s.skipped, 2 + 1 + 1, "grace overruns realign (skip)");
    CHECK(x.invariant_fail == 0, "grace: invariant");

    /* queue in grace realigns by skipping, never stops */
    sim_init(&x, VD_OVR_QUEUE);
    x.cfg.grace_cycles = 5;
    x.cfg.queue_depth = 1;
    {
        static const int64_t ex2[] = {1, 3500 * US};

        CHECK(sim_run(&x, 10, ex2, 2) == 10, "queue grace: runs on");
    }
    CHECK_U(x.s.skipped, 3, "queue grace: skipped");
    CHECK_U(x.s.max_queued, 3, "queue grace: depth seen");
    CHECK(!x.s.latched, "grace does not latch");
}

/* a run that ends at t_end: skips past it are not counted */
static void end(void)
{
    static const int64_t ex[] = {9, 3500 * US};
    struct sim x;

    /* 10 periods; the last cycle (9) overruns by 2.5 ms: 3 pending releases, all at or
     * after t_end = t0 + 10 ms: the run keeps exactly 10 elapsed periods */
    sim_init(&x, VD_OVR_SKIP);
    sim_run(&x, 10, ex, 2);
    CHECK_U(x.s.skipped, 3, "before the end");
    vd_policy_end(&x.cfg, &x.s, x.s.t0 + 10 * MS);
    CHECK_U(x.s.skipped, 0, "skips at or after t_end trimmed");
    CHECK_I(vd_policy_elapsed_periods(&x.cfg, &x.s), 10, "elapsed = duration / P");
    /* the end inside the jump: only the releases from t_end on are trimmed */
    sim_init(&x, VD_OVR_SKIP);
    sim_run(&x, 10, ex, 2);
    vd_policy_end(&x.cfg, &x.s, x.s.t0 + 11 * MS + 1);
    CHECK_U(x.s.skipped, 2, "end between grid points: ceil");
    CHECK_I(vd_policy_elapsed_periods(&x.cfg, &x.s), 12, "elapsed = ceil(D / P)");
    /* nothing beyond: unchanged */
    sim_init(&x, VD_OVR_SKIP);
    sim_run(&x, 10, ex, 2);
    vd_policy_end(&x.cfg, &x.s, x.s.t0 + 20 * MS);
    CHECK_U(x.s.skipped, 3, "end after the next release: unchanged");
}

/* random execution times: the invariant under every policy */
static void invariant(void)
{
    static const int kinds[] = {VD_OVR_SKIP, VD_OVR_DELAY, VD_OVR_QUEUE, VD_OVR_ALLOW};
    int fails = 0;

    for (int t = 0; t < 4; t++) {
        for (int rep = 0; rep < 50; rep++) {
            struct sim x;
            int64_t ex[64];

            sim_init(&x, kinds[t]);
            x.cfg.queue_depth = 4;
            x.cfg.allow_count = 10;
            x.cfg.allow_then = VD_ALLOW_THEN_FREEZE;
            x.cfg.grace_cycles = (uint64_t)(rep % 3);
            for (int i = 0; i < 32; i++) {
                ex[2 * i] = (int64_t)vt_uniform(0, 200);
                ex[2 * i + 1] = (int64_t)vt_uniform(0, 3.5 * MS);
            }
            sim_run(&x, 200, ex, 64);
            vd_policy_stop(&x.cfg, &x.s, VD_STOP_REQUEST);
            fails += x.invariant_fail;
            fails += (int64_t)(x.s.cycles + x.s.skipped) != vd_policy_elapsed_periods(&x.cfg, &x.s);
            fails += x.s.overruns + x.s.grace_overruns > x.s.cycles;
            fails += x.s.max_consecutive > x.s.overruns;
        }
    }
    CHECK(fails == 0, "random sequences: %d invariant violations", fails);
}

int main(void)
{
    boundaries();
    stop();
    skip();
    delay();
    queue();
    allow();
    grace();
    end();
    invariant();
    CHECK(!strcmp(vd_policy_name(VD_OVR_QUEUE), "queue") &&
              !strcmp(vd_stop_reason_name(VD_STOP_ALLOW), "allow_exceeded"),
          "names");
    return vt_report("test_policy");
}
