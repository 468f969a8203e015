/* rt/sched.h - process and thread set-up for real time, in cyclictest's order: glibc malloc
 * tuned so that freed memory stays mapped, mlockall(MCL_CURRENT | MCL_FUTURE), heap and
 * stacks prefaulted, threads created with an explicit SCHED_FIFO priority and CPU affinity
 * on a stack of our own, /dev/cpu_dma_latency held at 0 while running. Every step reports
 * what it obtained instead of failing: without privileges the same code runs with SCHED_OTHER
 * and unlocked memory, and the caller says plainly that timing is best effort.
 * Everything here is init/exit-time (syscalls, may allocate), except vd_rt_sched_info,
 * which a thread calls on itself once at its start. */
#ifndef VD_RT_SCHED_H
#define VD_RT_SCHED_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* what vd_rt_memory_setup obtained */
struct vd_rt_mem {
    bool malloc_tuned; /* M_MMAP_MAX = 0, M_TRIM_THRESHOLD = -1, M_ARENA_MAX = 1 */
    bool locked;       /* mlockall(MCL_CURRENT | MCL_FUTURE) succeeded */
    int lock_errno;    /* why not (0: not asked, or locked) */
    bool sanitizer;    /* ASan/TSan build: locking skipped (shadow memory is huge) */
    size_t prefaulted; /* [bytes] heap touched and kept */
};

/* a thread to create */
struct vd_thread_spec {
    const char *name; /* <= 15 characters (pthread_setname_np) */
    int cpu;          /* -1: not pinned */
    int priority;     /* SCHED_FIFO priority 1..99; 0: SCHED_OTHER */
    size_t stack_size;
    void *(*fn)(void *arg);
    void *arg;
};

/* a created thread: what was asked for and what pthread_create accepted */
struct vd_thread {
    pthread_t tid;
    bool running;
    void *stack;       /* mmap'ed, guard page below, prefaulted */
    size_t stack_size; /* [bytes] without the guard page */
    bool fifo;         /* created with SCHED_FIFO */
    bool pinned;       /* created with the CPU affinity */
    int fifo_errno;    /* why SCHED_FIFO was refused (0: ok or not asked) */
    int pin_errno;     /* why the affinity was refused */
};

/* scheduling of the calling thread, as the kernel reports it */
struct vd_sched_info {
    pid_t tid;
    int policy;         /* SCHED_OTHER, SCHED_FIFO, ... */
    int priority;       /* sched_priority */
    int cpu;            /* CPU it runs on now (sched_getcpu) */
    char affinity[128]; /* allowed CPUs as a list, e.g. "1" or "0-3" */
    int naffinity;      /* number of allowed CPUs */
};

/* init-time */
/* tune malloc, mlockall when lock is set, prefault prefault bytes of heap; never fails */
void vd_rt_memory_setup(bool lock, size_t prefault, struct vd_rt_mem *out);
/* open /dev/cpu_dma_latency and write the 32-bit target [us]; the fd (keep it open while
 * running), or -errno */
int vd_rt_dma_latency_hold(int32_t us);
void vd_rt_dma_latency_release(int fd);
/* create a thread: its own prefaulted stack, all signals blocked in it, explicit SCHED_FIFO
 * and affinity as asked. If the kernel refuses SCHED_FIFO (EPERM) it retries with
 * SCHED_OTHER, and if it refuses the affinity (EINVAL) without pinning, recording why in t.
 * 0, or -errno when no thread could be created at all. */
int vd_rt_thread_create(struct vd_thread *t, const struct vd_thread_spec *spec);
/* join and unmap the stack; 0 or -errno */
int vd_rt_thread_join(struct vd_thread *t);
/* true in an ASan or TSan build */
bool vd_rt_sanitizer_build(void);
/* human-readable policy name: "SCHED_FIFO", "SCHED_OTHER", ... */
const char *vd_sched_policy_name(int policy);
/* "1,3-5" from a CPU set; returns the number of CPUs */
int vd_cpulist_format(char *buf, size_t size, const void *cpuset, size_t setsize);

/* called by a thread on itself (once, before its RT work) */
void vd_rt_sched_info(struct vd_sched_info *si);

#endif /* VD_RT_SCHED_H */
