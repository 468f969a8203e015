/* rt/worker.h - a second thread that runs one posted job at a time for the calling thread:
 * the measurement behind DESIGN's optional second-core worker (issue 4, item 4). The structured
 * factorization hands it half of the clusters each step through struct vd_par (core/data.h);
 * `rtvd bench --worker futex|spin` times that against the one-thread step.
 * Hand-off: the poster publishes the job with a release store of a sequence number; the worker
 * takes it with an acquire load, runs it and publishes its completion the same way. The two
 * waits are the modes:
 *   VD_WORKER_FUTEX  the worker sleeps in FUTEX_WAIT between jobs (spin-free) and the poster
 *                    wakes it with FUTEX_WAKE; the poster waits for completion in FUTEX_WAIT.
 *   VD_WORKER_SPIN   both sides poll the sequence numbers (no syscall, but a busy core).
 * Neither fits the RT loop's rules (DESIGN.md, STYLE.md: no blocking syscall, never
 * busy-wait), which is why `rtvd run` does not use the worker; the bench shows what each
 * would gain or cost.
 * vd_worker_start/stop: init/exit-time. vd_worker_post/wait: no allocation, no locks. */
#ifndef VD_RT_WORKER_H
#define VD_RT_WORKER_H

#include <stdatomic.h>
#include <stdint.h>

#include "ring.h" /* VD_CACHELINE */
#include "sched.h"

enum vd_worker_mode { VD_WORKER_FUTEX, VD_WORKER_SPIN };

struct vd_worker {
    int mode;
    struct vd_thread th;
    char pad0[VD_CACHELINE];
    _Atomic uint32_t posted; /* poster: jobs posted (futex word of the worker) */
    void (*fn)(void *arg);   /* the job, valid from the release store of posted */
    void *arg;
    _Atomic int stop;
    char pad1[VD_CACHELINE];
    _Atomic uint32_t done; /* worker: jobs finished (futex word of the poster) */
    char pad2[VD_CACHELINE];
};

/* init-time */
/* start the worker thread on cpu (-1: not pinned) with SCHED_FIFO priority (0: SCHED_OTHER;
 * refused priorities and affinities fall back as vd_rt_thread_create does). 0 or -errno. */
int vd_worker_start(struct vd_worker *w, int mode, int cpu, int priority);
/* stop and join; safe on a worker that did not start */
void vd_worker_stop(struct vd_worker *w);

/* RT-side (one poster thread) */
/* run fn(arg) on the worker; one job at a time: vd_worker_wait before the next post */
void vd_worker_post(void *w, void (*fn)(void *arg), void *arg);
/* until the posted job has finished */
void vd_worker_wait(void *w);

#endif /* VD_RT_WORKER_H */
