/* rt/sched.c - memory locking, latency target, RT thread creation. */
#include "sched.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SANITIZER_STACK (8u << 20) /* [bytes] */

bool vd_rt_sanitizer_build(void)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    return true;
#else
    return false;
#endif
}

void vd_rt_memory_setup(bool lock, size_t prefault, struct vd_rt_mem *out)
{
    memset(out, 0, sizeof(*out));
    out->sanitizer = vd_rt_sanitizer_build();

    /* freed memory stays in the heap: no mmap'ed chunks, no trimming, one arena (threads
     * created later would otherwise mmap an arena of their own at their first malloc) */
    out->malloc_tuned = mallopt(M_MMAP_MAX, 0) == 1 && mallopt(M_TRIM_THRESHOLD, -1) == 1 &&
                        mallopt(M_ARENA_MAX, 1) == 1;

    /* lock: every page mapped now and later is resident and populated at map time. Not
     * under sanitizers: their terabytes of shadow mappings cannot be locked */
    if (lock && !out->sanitizer) {
        if (mlockall(MCL_CURRENT | MCL_FUTURE) == 0)
            out->locked = true;
        else
            out->lock_errno = errno;
    }

    /* grow the heap once and touch it; with trimming off it stays ours after free() */
    if (prefault) {
        volatile unsigned char *p = malloc(prefault);

        if (p) {
            long page = sysconf(_SC_PAGESIZE);

            for (size_t i = 0; i < prefault; i += (size_t)page)
                p[i] = 0;
            free((void *)p);
            out->prefaulted = prefault;
        }
    }
}

int vd_rt_dma_latency_hold(int32_t us)
{
    int fd = open("/dev/cpu_dma_latency", O_RDWR | O_CLOEXEC);

    if (fd < 0)
        return -errno;
    if (write(fd, &us, sizeof(us)) != (ssize_t)sizeof(us)) {
        int e = errno ? errno : EIO;

        close(fd);
        return -e;
    }
    return fd;
}

void vd_rt_dma_latency_release(int fd)
{
    if (fd >= 0)
        close(fd);
}

static int try_create(struct vd_thread *t, const struct vd_thread_spec *spec, bool fifo, bool pin)
{
    pthread_attr_t attr;
    int rc;

    rc = pthread_attr_init(&attr);
    if (rc)
        return rc;
    rc = pthread_attr_setstack(&attr, t->stack, t->stack_size);
    if (!rc && fifo) {
        struct sched_param sp = {.sched_priority = spec->priority};

        rc = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
        if (!rc)
            rc = pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
        if (!rc)
            rc = pthread_attr_setschedparam(&attr, &sp);
    } else if (!rc) {
        struct sched_param sp = {.sched_priority = 0};

        /* explicit SCHED_OTHER: do not inherit a creator's RT policy */
        rc = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
        if (!rc)
            rc = pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
        if (!rc)
            rc = pthread_attr_setschedparam(&attr, &sp);
    }
    if (!rc && pin) {
        cpu_set_t set;

        CPU_ZERO(&set);
        CPU_SET((size_t)spec->cpu, &set);
        rc = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
    }
    if (!rc)
        rc = pthread_create(&t->tid, &attr, spec->fn, spec->arg);
    pthread_attr_destroy(&attr);
    return rc;
}

int vd_rt_thread_create(struct vd_thread *t, const struct vd_thread_spec *spec)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    bool fifo = spec->priority > 0, pin = spec->cpu >= 0;
    sigset_t all, old;
    unsigned char *map;
    int rc;

    memset(t, 0, sizeof(*t));
    if (pin && spec->cpu >= CPU_SETSIZE)
        return -EINVAL;
    t->stack_size = (spec->stack_size + page - 1) / page * page;
    if (t->stack_size < (size_t)PTHREAD_STACK_MIN)
        t->stack_size = (size_t)PTHREAD_STACK_MIN;
    /* sanitizers keep their per-thread state at the top of a user-supplied stack */
    if (vd_rt_sanitizer_build() && t->stack_size < SANITIZER_STACK)
        t->stack_size = SANITIZER_STACK;
    /* own stack: guard page below, every page touched now (cyclictest prefaults its stacks) */
    map = mmap(NULL, t->stack_size + page, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (map == MAP_FAILED)
        return -errno;
    mprotect(map, page, PROT_NONE);
    t->stack = map + page;
    memset(t->stack, 0, t->stack_size);

    /* the new thread starts with every signal blocked: signals go to the main thread */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (;;) {
        rc = try_create(t, spec, fifo, pin);
        if (rc == EPERM && fifo) {
            t->fifo_errno = rc;
            fifo = false;
            continue;
        }
        if (rc == EINVAL && pin) {
            t->pin_errno = rc;
            pin = false;
            continue;
        }
        break;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        munmap(map, t->stack_size + page);
        t->stack = NULL;
        return -rc;
    }
    t->fifo = fifo;
    t->pinned = pin;
    t->running = true;
    if (spec->name)
        pthread_setname_np(t->tid, spec->name);
    return 0;
}

int vd_rt_thread_join(struct vd_thread *t)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    int rc = 0;

    if (t->running) {
        rc = -pthread_join(t->tid, NULL);
        t->running = false;
    }
    if (t->stack) {
        munmap((unsigned char *)t->stack - page, t->stack_size + page);
        t->stack = NULL;
    }
    return rc;
}

const char *vd_sched_policy_name(int policy)
{
    switch (policy) {
    case SCHED_OTHER:
        return "SCHED_OTHER";
    case SCHED_FIFO:
        return "SCHED_FIFO";
    case SCHED_RR:
        return "SCHED_RR";
    case SCHED_BATCH:
        return "SCHED_BATCH";
    case SCHED_IDLE:
        return "SCHED_IDLE";
    default:
        return "SCHED_?";
    }
}

int vd_cpulist_format(char *buf, size_t size, const void *cpuset, size_t setsize)
{
    const cpu_set_t *set = cpuset;
    const int max = (int)(setsize * 8);
    size_t at = 0;
    int n = 0;

    if (size)
        buf[0] = '\0';
    for (int c = 0; c < max; c++) {
        int e = c;

        if (!CPU_ISSET_S((size_t)c, setsize, set))
            continue;
        while (e + 1 < max && CPU_ISSET_S((size_t)e + 1, setsize, set))
            e++;
        n += e - c + 1;
        if (at < size) {
            int w = e > c ? snprintf(buf + at, size - at, "%s%d-%d", at ? "," : "", c, e)
                          : snprintf(buf + at, size - at, "%s%d", at ? "," : "", c);

            at += w > 0 ? (size_t)w : 0;
        }
        c = e;
    }
    return n;
}

void vd_rt_sched_info(struct vd_sched_info *si)
{
    struct sched_param sp;
    cpu_set_t set;

    memset(si, 0, sizeof(*si));
    si->tid = gettid();
    if (pthread_getschedparam(pthread_self(), &si->policy, &sp) == 0)
        si->priority = sp.sched_priority;
    si->cpu = sched_getcpu();
    CPU_ZERO(&set);
    if (pthread_getaffinity_np(pthread_self(), sizeof(set), &set) == 0)
        si->naffinity = vd_cpulist_format(si->affinity, sizeof(si->affinity), &set, sizeof(set));
}
