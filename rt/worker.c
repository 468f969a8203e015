/* rt/worker.c - the second thread of the structured factorization (rt/worker.h). */
#include "worker.h"

#include <errno.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void futex_wait(_Atomic uint32_t *word, uint32_t seen)
{
    /* returns at once (EAGAIN) when the word moved on since it was read */
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* wait until *word != seen; returns the new value */
static uint32_t wait_change(const struct vd_worker *w, _Atomic uint32_t *word, uint32_t seen)
{
    uint32_t v;

    while ((v = atomic_load_explicit(word, memory_order_acquire)) == seen) {
        if (w->mode == VD_WORKER_FUTEX)
            futex_wait(word, seen);
        else
            cpu_relax();
    }
    return v;
}

static void *worker_main(void *arg)
{
    struct vd_worker *w = arg;
    uint32_t seen = 0;

    for (;;) {
        seen = wait_change(w, &w->posted, seen);
        if (atomic_load_explicit(&w->stop, memory_order_relaxed))
            break;
        w->fn(w->arg);
        atomic_store_explicit(&w->done, seen, memory_order_release);
        if (w->mode == VD_WORKER_FUTEX)
            futex_wake(&w->done);
    }
    return NULL;
}

int vd_worker_start(struct vd_worker *w, int mode, int cpu, int priority)
{
    const struct vd_thread_spec spec = {
        .name = "rtvd-worker",
        .cpu = cpu,
        .priority = priority,
        .stack_size = 256 * 1024,
        .fn = worker_main,
        .arg = w,
    };

    memset(w, 0, sizeof(*w));
    if (mode != VD_WORKER_FUTEX && mode != VD_WORKER_SPIN)
        return -EINVAL;
    w->mode = mode;
    atomic_init(&w->posted, 0);
    atomic_init(&w->done, 0);
    atomic_init(&w->stop, 0);
    return vd_rt_thread_create(&w->th, &spec);
}

void vd_worker_stop(struct vd_worker *w)
{
    if (!w->th.running)
        return;
    atomic_store_explicit(&w->stop, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&w->posted, 1, memory_order_release);
    futex_wake(&w->posted);
    vd_rt_thread_join(&w->th);
}

void vd_worker_post(void *ctx, void (*fn)(void *arg), void *arg)
{
    struct vd_worker *w = ctx;

    w->fn = fn;
    w->arg = arg;
    atomic_fetch_add_explicit(&w->posted, 1, memory_order_release);
    if (w->mode == VD_WORKER_FUTEX)
        futex_wake(&w->posted);
}

void vd_worker_wait(void *ctx)
{
    struct vd_worker *w = ctx;
    const uint32_t want = atomic_load_explicit(&w->posted, memory_order_relaxed);
    uint32_t d = atomic_load_explicit(&w->done, memory_order_acquire);

    while (d != want)
        d = wait_change(w, &w->done, d);
}
