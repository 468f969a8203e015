/* app/slots.h - the 1 ms slot thread that the target's CAN thread (app/canlink.c) and the
 * virtual ECU (app/ecu.c) share: its life cycle (timerfd, SCHED_FIFO thread, quiesce, stop,
 * join) and its loop. The thread sleeps in poll() on its buses' sockets and a timerfd that
 * ticks every 1 ms on an absolute CLOCK_MONOTONIC grid (slot s at t0 + s ms); never spins.
 * Per wake-up, in this order:
 *   - every bus with frames (POLLIN, or frames the transport holds already), and every bus
 *     when the timer expired -> ops.rx (a non-blocking receive: frames up to the wake-up's
 *     clock reading `now` are in, so that ops.tick never judges a timeout on a frame that came
 *     after poll() returned); ops.rx_end after that pass;
 *   - when the timer expired: ops.tick once, then ops.slot for each slot due: slots the thread
 *     woke up too late for are served late (counted) up to APP_SLOTS_CATCHUP of them, the rest
 *     skipped (counted); slots before a thread that began after t0 are not served (counted);
 * and on app_slots_stop one last receive pass (every bus) and ops.exit.
 *
 * app_slots_init/start/quiesce/stop/free: init/exit (may allocate, block). The callbacks run on
 * the thread: no allocation, no stdio, non-blocking syscalls. The counters belong to the
 * thread until app_slots_stop. */
#ifndef VD_APP_SLOTS_H
#define VD_APP_SLOTS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "io/can.h"
#include "rt/sched.h"

#define APP_SLOTS_MAX_BUS 8
#define APP_SLOTS_CATCHUP 50        /* late slots served at most per wake-up; beyond: skipped */
#define APP_SLOTS_MS      1000000LL /* [ns] a slot */

struct app_slots_ops {
    void (*rx)(void *ctx, int bus, int64_t now);         /* receive what bus holds */
    void (*rx_end)(void *ctx, int64_t now);              /* after a receive pass; NULL: none */
    void (*tick)(void *ctx, int64_t now, bool quiet);    /* the timer fired; quiet: quiesced */
    void (*slot)(void *ctx, uint64_t slot, int64_t now); /* serve slot [ms since t0] */
    void (*exit)(void *ctx);                             /* the thread's last act; NULL: none */
};

struct app_slots_stats {
    uint64_t wakeups;           /* poll() returns */
    uint64_t slots;             /* 1 ms slots served */
    uint64_t late_slots;        /* slot boundaries passed before the thread read its timer: the
                                 * expirations - 1 of each read (the skipped slots included; the
                                 * stop reads it once more) */
    uint64_t skipped_slots;     /* not served (more than APP_SLOTS_CATCHUP behind) */
    uint64_t unserved_at_start; /* slots before the thread's first: it began after t0 */
};

struct app_slots {
    /* the settings (app_slots_init) */
    const char *name; /* thread name, <= 15 characters */
    int cpu;          /* -1: not pinned */
    int priority;     /* SCHED_FIFO 1..99; 0: SCHED_OTHER */
    int nbus;
    struct vd_can_bus *const *bus; /* (nbus) borrowed, opened */
    struct app_slots_ops ops;
    void *ctx;
    /* state */
    int tfd;            /* timerfd */
    int64_t t0;         /* [ns] slot 0 */
    uint64_t next_slot; /* next slot to serve */
    struct vd_thread thread;
    struct vd_sched_info sched; /* what the thread obtained */
    struct app_slots_stats st;
    _Atomic int quiet; /* ops.tick is told: e.g. no more timeout checks (end of run) */
    _Atomic int stop;
    bool started;
};

/* init-time */
/* settings into s and its timerfd created; 0 or -errno (s can be freed either way) */
int app_slots_init(struct app_slots *s, const char *name, int cpu, int priority,
                   struct vd_can_bus *const *bus, int nbus, const struct app_slots_ops *ops,
                   void *ctx);
/* start the thread with slot 0 at t0 [ns, CLOCK_MONOTONIC] (the first slot it serves: the
 * first at or after its start); 0 or -errno */
int app_slots_start(struct app_slots *s, int64_t t0);
/* ops.tick sees quiet from now on */
void app_slots_quiesce(struct app_slots *s);
/* the thread drains its buses, calls ops.exit and is joined */
void app_slots_stop(struct app_slots *s);
/* stop, close the timerfd */
void app_slots_free(struct app_slots *s);

#endif /* VD_APP_SLOTS_H */
