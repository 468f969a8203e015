/* tests/app/test_slots.c - the 1 ms slot thread (app/slots.c) that the CAN thread and the
 * virtual ECU share, on its own with a receive-only udp bus on loopback:
 *   - a thread that begins after its t0 counts the slots before its first as unserved_at_start,
 *     and its first served slot is exactly that number (the slots it never served are counted,
 *     not lost: test_canlink's silence case tells a late start from a quiet machine by them);
 *   - one that begins before its t0 serves slot 0 first and counts none;
 *   - every timer tick follows a receive pass over every bus at the same clock reading, even
 *     with no datagram pending: the timeout checks in ops.tick see every frame that came
 *     before `now` (app/slots.h);
 *   - the slot numbers it serves are consecutive apart from the skipped ones it counts.
 * Nothing is judged on time: the checks hold for any scheduling (the wait for the slots has
 * a 10 s limit only so that a hung thread cannot hang the test). */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "app/slots.h"
#include "check.h"
#include "io/can.h"
#include "rt/clock.h"

struct obs {
    int64_t rx_now[APP_SLOTS_MAX_BUS];  /* the last receive pass's clock reading, per bus */
    uint64_t ticks, ticks_without_rx;   /* ticks; ticks not preceded by a pass at their now */
    uint64_t first, next, served, gaps; /* slots: first, expected next, served, jumps */
    int nbus;
    _Atomic int exited;
    _Atomic uint64_t nserved; /* the main thread waits on it */
};

static void on_rx(void *ctx, int b, int64_t now)
{
    struct obs *o = ctx;

    o->rx_now[b] = now; /* nothing to take: the bus is receive-only and nobody sends */
}

static void on_tick(void *ctx, int64_t now, bool quiet)
{
    struct obs *o = ctx;

    (void)quiet;
    o->ticks++;
    for (int b = 0; b < o->nbus; b++)
        if (o->rx_now[b] != now) {
            o->ticks_without_rx++;
            break;
        }
}

static void on_slot(void *ctx, uint64_t sl, int64_t now)
{
    struct obs *o = ctx;

    (void)now;
    if (o->served == 0)
        o->first = sl;
    else if (sl != o->next)
        o->gaps += sl - o->next;
    o->next = sl + 1;
    o->served++;
    atomic_fetch_add(&o->nserved, 1);
}

static void on_exit_(void *ctx)
{
    struct obs *o = ctx;

    atomic_store(&o->exited, 1);
}

static void sleep_ms(int ms)
{
    const struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

    nanosleep(&ts, NULL);
}

/* one run: t0 = now + lead_ms (negative: in the past), until the thread has served `want`
 * slots (a new thread took up to ~115 ms to its first slot under TSan: no fixed sleep) */
static void run(const char *name, int lead_ms, uint64_t want, struct vd_can_bus *bus)
{
    const struct app_slots_ops ops = {
        .rx = on_rx, .tick = on_tick, .slot = on_slot, .exit = on_exit_};
    struct vd_can_bus *const buses[1] = {bus};
    struct app_slots s;
    struct obs o;
    int64_t t_start;

    memset(&o, 0, sizeof(o));
    o.nbus = 1;
    CHECK(app_slots_init(&s, "vt_slots", -1, 0, buses, 1, &ops, &o) == 0, "%s: init", name);
    t_start = vd_clock_now();
    CHECK(app_slots_start(&s, t_start + (int64_t)lead_ms * 1000000) == 0, "%s: start", name);
    for (int i = 0; i < 10000 && atomic_load(&o.nserved) < want; i++)
        sleep_ms(1);
    app_slots_stop(&s);
    printf("%s: t0 %+d ms: %" PRIu64 " slots served from slot %" PRIu64 ", %" PRIu64
           " late, %" PRIu64 " skipped, %" PRIu64 " unserved at the start; %" PRIu64 " ticks\n",
           name, lead_ms, s.st.slots, o.first, s.st.late_slots, s.st.skipped_slots,
           s.st.unserved_at_start, o.ticks);
    CHECK(atomic_load(&o.exited) == 1, "%s: ops.exit ran", name);
    CHECK(o.served == s.st.slots && o.served >= want,
          "%s: slots counted as served: %" PRIu64 " (callbacks %" PRIu64 ", waited for %" PRIu64
          ")",
          name, s.st.slots, o.served, want);
    /* the first slot armed is the count of those before it (slot 0 for a thread that began
     * before t0, unless the machine held the new thread up for lead_ms: then the count says
     * so); a thread held up more than APP_SLOTS_CATCHUP slots before its first timer read
     * skips some (counted) before it serves one; after that, slot numbers are consecutive but
     * for the skipped: every slot number below the last is served, unserved or skipped */
    CHECK(o.first >= s.st.unserved_at_start &&
              (o.first - s.st.unserved_at_start) + o.gaps == s.st.skipped_slots,
          "%s: first slot %" PRIu64 ", %" PRIu64 " unserved at the start, %" PRIu64
          " numbers jumped after it, %" PRIu64 " counted skipped",
          name, o.first, s.st.unserved_at_start, o.gaps, s.st.skipped_slots);
    if (lead_ms < 0)
        /* it began at least -lead_ms after t0 (t_start precedes the thread's clock reading) */
        CHECK(s.st.unserved_at_start >= (uint64_t)-lead_ms,
              "%s: began after t0: %" PRIu64 " counted unserved (>= %d)", name,
              s.st.unserved_at_start, -lead_ms);
    CHECK(o.ticks > 0 && o.ticks_without_rx == 0,
          "%s: every tick after a receive pass of every bus at its now: %" PRIu64 " of %" PRIu64
          " without",
          name, o.ticks_without_rx, o.ticks);
    app_slots_free(&s);
}

int main(void)
{
    struct vd_can_cfg cfg;
    struct vd_can_bus *bus = NULL;
    char err[256];

    /* a receive-only udp bus on a free loopback port: nothing ever arrives, so no receive pass
     * is for a datagram (POLLIN) */
    vd_can_cfg_init(&cfg, VD_CAN_UDP);
    cfg.local_port = 0;
    cfg.remote_port = 0;
    CHECK(vd_can_open(&cfg, &bus, err, sizeof(err)) == 0, "udp bus: %s", err);
    if (!bus)
        return vt_report("test_slots");
    run("late start", -30, 40, bus);
    run("start ahead", 20, 40, bus);
    vd_can_close(bus);
    return vt_report("test_slots");
}
