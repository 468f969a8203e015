/* tests/rt/noalloc_preload.c - an LD_PRELOAD library for an unmodified `rtvd run`: counts
 * calls to malloc & co. in every thread of the process, and the minor page faults of the
 * process, in a time window: [VD_NOALLOC_ARM_S, VD_NOALLOC_ARM_S + VD_NOALLOC_SPAN_S)
 * seconds after the file VD_NOALLOC_ARM_FILE appears (the test's service-manager end of
 * $NOTIFY_SOCKET creates it on rtvd's READY=1: init done, the threads running), or after
 * start without VD_NOALLOC_ARM_FILE. Counting from READY rather than from start keeps the
 * window out of init however long a loaded machine takes for it (a model's statics, the CE
 * closures' tables). It also counts, in the same window, the locks the real-time threads
 * (vd-loop, vd-can, vd-ecu, vd-motion: the loop, the CAN thread, the in-process ECU and the
 * motion feed, by their names) take or wait for: pthread_mutex_lock/trylock/timedlock/clocklock,
 * pthread_rwlock_rdlock/wrlock/tryrdlock/trywrlock/timedrdlock/timedwrlock/clockrdlock/
 * clockwrlock, pthread_cond_wait/timedwait/clockwait, sem_wait/trywait/timedwait/clockwait,
 * C11's mtx_lock/timedlock/trylock and cnd_wait/timedwait, pthread_spin_lock/trylock and
 * pthread_barrier_wait (the LOCKS list below), the calls
 * any library (OpenBLAS, LAPACKE, libc's exported entry points) makes through the PLT; glibc's
 * internal locks (stdio's, malloc's) are not seen, the allocations are. At the end of the
 * window it writes "calls=N minflt=M rt_locks=L span_s=S" to VD_NOALLOC_OUT; nothing if the
 * file never appears within 60 s. A helper thread started from the constructor keeps the time;
 * it sleeps, polls the file with access(2) every 10 ms, and formats without stdio. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

#include "noalloc.h"

static long arm_s = 2, span_s = 10;
static const char *out, *arm_file;

/* ---- locks in the real-time threads ---------------------------------------------------- */
static atomic_long rt_locks;

/* the calling thread is one of rtvd's real-time threads (its name, prctl: no allocation) */
static int rt_thread(void)
{
    static const char *const rt[] = {"vd-loop", "vd-can", "vd-ecu", "vd-motion"};
    char name[16] = {0};

    if (prctl(PR_GET_NAME, name, 0, 0, 0))
        return 0;
    for (unsigned i = 0; i < sizeof(rt) / sizeof(rt[0]); i++)
        if (!strcmp(name, rt[i]))
            return 1;
    return 0;
}

static inline void count_lock(void)
{
    if (atomic_load_explicit(&armed, memory_order_relaxed) && rt_thread())
        atomic_fetch_add_explicit(&rt_locks, 1, memory_order_relaxed);
}

/* the lock and wait entry points counted: return type, name, parameters, arguments. glibc
 * 2.36 has them all (the clock* ones since 2.30, C11's mtx_* and cnd_* in libc since 2.34); an
 * entry point the C library lacks is never called through this definition (nothing links to
 * it) and, if a program resolves it anyway, answers ENOSYS: its prototype here is the
 * header's, so nothing of the build depends on the library having it */
#define LOCKS(X)                                                                                   \
    X(int, pthread_mutex_lock, (pthread_mutex_t * m), (m))                                         \
    X(int, pthread_mutex_trylock, (pthread_mutex_t * m), (m))                                      \
    X(int, pthread_mutex_timedlock, (pthread_mutex_t * m, const struct timespec *t), (m, t))       \
    X(int, pthread_mutex_clocklock, (pthread_mutex_t * m, clockid_t c, const struct timespec *t),  \
      (m, c, t))                                                                                   \
    X(int, pthread_rwlock_rdlock, (pthread_rwlock_t * l), (l))                                     \
    X(int, pthread_rwlock_wrlock, (pthread_rwlock_t * l), (l))                                     \
    X(int, pthread_rwlock_tryrdlock, (pthread_rwlock_t * l), (l))                                  \
    X(int, pthread_rwlock_trywrlock, (pthread_rwlock_t * l), (l))                                  \
    X(int, pthread_rwlock_timedrdlock, (pthread_rwlock_t * l, const struct timespec *t), (l, t))   \
    X(int, pthread_rwlock_timedwrlock, (pthread_rwlock_t * l, const struct timespec *t), (l, t))   \
    X(int, pthread_rwlock_clockrdlock,                                                             \
      (pthread_rwlock_t * l, clockid_t c, const struct timespec *t), (l, c, t))                    \
    X(int, pthread_rwlock_clockwrlock,                                                             \
      (pthread_rwlock_t * l, clockid_t c, const struct timespec *t), (l, c, t))                    \
    X(int, pthread_cond_wait, (pthread_cond_t * c, pthread_mutex_t * m), (c, m))                   \
    X(int, pthread_cond_timedwait,                                                                 \
      (pthread_cond_t * c, pthread_mutex_t * m, const struct timespec *t), (c, m, t))              \
    X(int, pthread_cond_clockwait,                                                                 \
      (pthread_cond_t * c, pthread_mutex_t * m, clockid_t k, const struct timespec *t),            \
      (c, m, k, t))                                                                                \
    X(int, sem_wait, (sem_t * s), (s))                                                             \
    X(int, sem_trywait, (sem_t * s), (s))                                                          \
    X(int, sem_timedwait, (sem_t * s, const struct timespec *t), (s, t))                           \
    X(int, sem_clockwait, (sem_t * s, clockid_t c, const struct timespec *t), (s, c, t))           \
    X(int, mtx_lock, (mtx_t * m), (m))                                                             \
    X(int, mtx_timedlock, (mtx_t *restrict m, const struct timespec *restrict t), (m, t))          \
    X(int, mtx_trylock, (mtx_t * m), (m))                                                          \
    X(int, cnd_wait, (cnd_t * c, mtx_t * m), (c, m))                                               \
    X(int, cnd_timedwait,                                                                          \
      (cnd_t *restrict c, mtx_t *restrict m, const struct timespec *restrict t), (c, m, t))        \
    X(int, pthread_spin_lock, (pthread_spinlock_t * l), (l))                                       \
    X(int, pthread_spin_trylock, (pthread_spinlock_t * l), (l))                                    \
    X(int, pthread_barrier_wait, (pthread_barrier_t * b), (b))

/* the next object's sym into real_<name> when not resolved yet: the constructor resolves
 * them all (dlsym may allocate: never while armed), a library's constructor may lock before */
#define NEXT(name)                                                                                 \
    do {                                                                                           \
        if (!real_##name)                                                                          \
            real_##name = (__typeof__(real_##name))dlsym(RTLD_NEXT, #name);                        \
    } while (0)
#define DEFINE(ret, name, params, args)                                                            \
    static ret(*real_##name) params;                                                               \
    ret name params                                                                                \
    {                                                                                              \
        count_lock();                                                                              \
        NEXT(name);                                                                                \
        if (!real_##name)                                                                          \
            return ENOSYS; /* not in this C library */                                             \
        return real_##name args;                                                                   \
    }
#define RESOLVE(ret, name, params, args) NEXT(name);
LOCKS(DEFINE)

static char *put_num(char *p, long v)
{
    char tmp[24];
    int n = 0;

    if (v < 0) {
        *p++ = '-';
        v = -v;
    }
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

static void *timer(void *arg)
{
    struct timespec t;
    long f0, f1, c;
    char line[128], *p = line;
    int fd;

    (void)arg;
    if (arm_file) {
        const struct timespec poll = {.tv_nsec = 10000000};
        int n = 0;

        while (access(arm_file, F_OK) != 0) {
            if (++n > 6000)
                return NULL; /* no READY in 60 s: no result, the test fails */
            clock_nanosleep(CLOCK_MONOTONIC, 0, &poll, NULL);
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_sec += arm_s;
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
    f0 = minflt();
    atomic_store(&calls, 0);
    atomic_store(&rt_locks, 0);
    atomic_store(&armed, 1);
    t.tv_sec += span_s;
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
    atomic_store(&armed, 0);
    f1 = minflt();
    c = atomic_load(&calls);
    memcpy(p, "calls=", 6);
    p = put_num(p + 6, c);
    memcpy(p, " minflt=", 8);
    p = put_num(p + 8, f1 - f0);
    memcpy(p, " rt_locks=", 10);
    p = put_num(p + 10, atomic_load(&rt_locks));
    memcpy(p, " span_s=", 8);
    p = put_num(p + 8, span_s);
    *p++ = '\n';
    fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
        if (write(fd, line, (size_t)(p - line)) < 0)
            c = -1;
        close(fd);
    }
    return NULL;
}

__attribute__((constructor)) static void start(void)
{
    const char *a = getenv("VD_NOALLOC_ARM_S"), *s = getenv("VD_NOALLOC_SPAN_S");
    pthread_attr_t attr;
    pthread_t t;

    LOCKS(RESOLVE)
    out = getenv("VD_NOALLOC_OUT");
    if (!out)
        return;
    arm_file = getenv("VD_NOALLOC_ARM_FILE");
    if (a)
        arm_s = atol(a);
    if (s)
        span_s = atol(s);
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_create(&t, &attr, timer, NULL);
    pthread_attr_destroy(&attr);
}
