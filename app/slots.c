/* app/slots.c - the 1 ms slot thread of the CAN thread and the virtual ECU (app/slots.h). */
#include "slots.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "rt/clock.h"

int app_slots_init(struct app_slots *s, const char *name, int cpu, int priority,
                   struct vd_can_bus *const *bus, int nbus, const struct app_slots_ops *ops,
                   void *ctx)
{
    memset(s, 0, sizeof(*s));
    s->name = name;
    s->cpu = cpu;
    s->priority = priority;
    s->bus = bus;
    s->nbus = nbus;
    s->ops = *ops;
    s->ctx = ctx;
    atomic_init(&s->quiet, 0);
    atomic_init(&s->stop, 0);
    if (nbus < 0 || nbus > APP_SLOTS_MAX_BUS) {
        s->tfd = -1;
        return -EINVAL;
    }
    s->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    return s->tfd < 0 ? -errno : 0;
}

/* the timer armed for the first slot at or after now on the grid t0 + s ms */
static void arm(struct app_slots *s, int64_t now)
{
    struct itimerspec its;

    if (s->t0 < now)
        s->next_slot = (uint64_t)((now - s->t0 + APP_SLOTS_MS - 1) / APP_SLOTS_MS);
    else
        s->next_slot = 0;
    s->st.unserved_at_start = s->next_slot; /* nothing was sent for these: counted */
    its.it_value = vd_ns_to_timespec(s->t0 + (int64_t)s->next_slot * APP_SLOTS_MS);
    its.it_interval = vd_ns_to_timespec(APP_SLOTS_MS);
    timerfd_settime(s->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void *slot_thread(void *arg)
{
    struct app_slots *s = arg;
    struct pollfd pfd[APP_SLOTS_MAX_BUS + 1];
    const int nbus = s->nbus;

    vd_rt_sched_info(&s->sched);
    for (int b = 0; b < nbus; b++)
        pfd[b] = (struct pollfd){.fd = vd_can_poll_fd(s->bus[b]), .events = POLLIN};
    pfd[nbus] = (struct pollfd){.fd = s->tfd, .events = POLLIN};
    arm(s, vd_clock_now());
    for (;;) {
        const bool stopping = atomic_load_explicit(&s->stop, memory_order_acquire);
        int64_t now;
        uint64_t exp = 0;

        if (!stopping) {
            const int r = poll(pfd, (nfds_t)nbus + 1, 100);

            s->st.wakeups++;
            if (r < 0 && errno != EINTR)
                break;
        }
        now = vd_clock_now();
        /* receive; on a timer wake-up every bus, so that ops.tick's timeout checks at now see
         * the frames that came between poll()'s return and now as well */
        for (int b = 0; b < nbus; b++)
            if (stopping || (pfd[nbus].revents & POLLIN) || (pfd[b].revents & POLLIN) ||
                vd_can_rx_pending(s->bus[b]))
                s->ops.rx(s->ctx, b, now);
        if (s->ops.rx_end)
            s->ops.rx_end(s->ctx, now);
        if (stopping) {
            /* a hold-up since the last timer read (the thread's last slot) is counted too */
            if (read(s->tfd, &exp, sizeof(exp)) == sizeof(exp) && exp > 1)
                s->st.late_slots += exp - 1;
            break;
        }
        /* the slots due */
        if ((pfd[nbus].revents & POLLIN) && read(s->tfd, &exp, sizeof(exp)) == sizeof(exp) &&
            exp > 0) {
            uint64_t first = s->next_slot, n = exp;

            s->next_slot += exp;
            if (exp > 1)
                s->st.late_slots += exp - 1;
            if (n > APP_SLOTS_CATCHUP) {
                s->st.skipped_slots += n - APP_SLOTS_CATCHUP;
                first += n - APP_SLOTS_CATCHUP;
                n = APP_SLOTS_CATCHUP;
            }
            s->ops.tick(s->ctx, now, atomic_load_explicit(&s->quiet, memory_order_acquire));
            for (uint64_t sl = first; sl < first + n; sl++) {
                s->st.slots++;
                s->ops.slot(s->ctx, sl, now);
            }
        }
    }
    if (s->ops.exit)
        s->ops.exit(s->ctx);
    return NULL;
}

int app_slots_start(struct app_slots *s, int64_t t0)
{
    const struct vd_thread_spec spec = {
        .name = s->name,
        .cpu = s->cpu,
        .priority = s->priority,
        .stack_size = 256 * 1024,
        .fn = slot_thread,
        .arg = s,
    };
    int rc;

    s->t0 = t0;
    rc = vd_rt_thread_create(&s->thread, &spec);
    s->started = rc == 0;
    return rc;
}

void app_slots_quiesce(struct app_slots *s)
{
    atomic_store_explicit(&s->quiet, 1, memory_order_release);
}

void app_slots_stop(struct app_slots *s)
{
    atomic_store_explicit(&s->stop, 1, memory_order_release);
    if (s->started)
        vd_rt_thread_join(&s->thread);
    s->started = false;
}

void app_slots_free(struct app_slots *s)
{
    app_slots_stop(s);
    if (s->tfd >= 0)
        close(s->tfd);
    s->tfd = -1;
}
