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
 * internal locks (stdio's, malloc's) are not seen, the allocations are. And the loop
 * thread's (vd-loop's) syscalls through the PLT that can block or that it has no business
 * making: rt_sys (the SYSCALLS list and write, open, openat, ioctl, syscall below; the allowed
 * ones, clock_nanosleep and a trace-marker line's write, apart). At the end of the window it
 * writes "calls=N minflt=M rt_locks=L rt_sys=Y span_s=S rt_sys_seen=NAMES|- rt_wait=W
 * rt_marker=K" to VD_NOALLOC_OUT; nothing if the file never appears within 60 s. A helper thread
 * started from the constructor keeps the time; it sleeps, polls the file with access(2) every 10
 * ms, and formats without stdio. */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
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

/* ---- syscalls of the loop thread ---------------------------------------------------------
 * The loop thread (vd-loop) only: the CAN thread (vd-can), the in-process ECU (vd-ecu) and the
 * motion feed (vd-motion) are I/O threads that block in recvmmsg/poll/sendto by design; the
 * loop hands them data through lock-free mailboxes and rings. Counted here: the calls of the libc
 * wrappers of syscalls that can block, or that the loop has no business making after init,
 * made through the PLT by the loop thread inside the window. Allowed, counted apart:
 *   clock_nanosleep  the loop's period wait (TIMER_ABSTIME, CLOCK_MONOTONIC): the design's one
 *                    blocking call (rt/loop.c), reported as rt_wait=N;
 *   write of a trace-marker line (the buffer begins "rtvd: overrun cycle=", rt/tracemark.c):
 *                    --trace-marker's one write(2) on an overrun, a cycle already late, to
 *                    tracefs's trace_marker (copied into the ftrace ring buffer, no wait) or in
 *                    the test to a FIFO or file; reported as rt_marker=N. Any other write
 *                    counts. */
static atomic_long rt_sys, rt_wait, rt_marker;
static atomic_ulong rt_sys_seen; /* bit i: SYSCALLS' i-th entry point was called */

/* the calling thread is the loop thread */
static int loop_thread(void)
{
    char name[16] = {0};

    return !prctl(PR_GET_NAME, name, 0, 0, 0) && !strcmp(name, "vd-loop");
}

static inline int count_sys(unsigned bit)
{
    if (atomic_load_explicit(&armed, memory_order_relaxed) && loop_thread()) {
        atomic_fetch_add_explicit(&rt_sys, 1, memory_order_relaxed);
        atomic_fetch_or_explicit(&rt_sys_seen, 1ul << bit, memory_order_relaxed);
        return 1;
    }
    return 0;
}

/* the wrappers counted (fixed arguments); open, openat, ioctl and syscall (variadic) below */
#define SYSCALLS(X)                                                                                \
    X(ssize_t, read, (int fd, void *b, size_t n), (fd, b, n))                                      \
    X(ssize_t, pread, (int fd, void *b, size_t n, off_t o), (fd, b, n, o))                         \
    X(ssize_t, pread64, (int fd, void *b, size_t n, off64_t o), (fd, b, n, o))                     \
    X(ssize_t, pwrite, (int fd, const void *b, size_t n, off_t o), (fd, b, n, o))                  \
    X(ssize_t, pwrite64, (int fd, const void *b, size_t n, off64_t o), (fd, b, n, o))              \
    X(ssize_t, readv, (int fd, const struct iovec *v, int n), (fd, v, n))                          \
    X(ssize_t, writev, (int fd, const struct iovec *v, int n), (fd, v, n))                         \
    X(ssize_t, recv, (int fd, void *b, size_t n, int f), (fd, b, n, f))                            \
    X(ssize_t, recvfrom,                                                                           \
      (int fd, void *restrict b, size_t n, int f, struct sockaddr *restrict a,                     \
       socklen_t *restrict l),                                                                     \
      (fd, b, n, f, a, l))                                                                         \
    X(ssize_t, recvmsg, (int fd, struct msghdr *m, int f), (fd, m, f))                             \
    X(int, recvmmsg, (int fd, struct mmsghdr *m, unsigned n, int f, struct timespec *t),           \
      (fd, m, n, f, t))                                                                            \
    X(ssize_t, send, (int fd, const void *b, size_t n, int f), (fd, b, n, f))                      \
    X(ssize_t, sendto,                                                                             \
      (int fd, const void *b, size_t n, int f, const struct sockaddr *a, socklen_t l),             \
      (fd, b, n, f, a, l))                                                                         \
    X(ssize_t, sendmsg, (int fd, const struct msghdr *m, int f), (fd, m, f))                       \
    X(int, sendmmsg, (int fd, struct mmsghdr *m, unsigned n, int f), (fd, m, n, f))                \
    X(int, poll, (struct pollfd * p, nfds_t n, int t), (p, n, t))                                  \
    X(int, ppoll, (struct pollfd * p, nfds_t n, const struct timespec *t, const sigset_t *s),      \
      (p, n, t, s))                                                                                \
    X(int, select, (int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *t), (n, r, w, e, t))   \
    X(int, pselect,                                                                                \
      (int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *t, const sigset_t *s),       \
      (n, r, w, e, t, s))                                                                          \
    X(int, epoll_wait, (int e, struct epoll_event *v, int n, int t), (e, v, n, t))                 \
    X(int, epoll_pwait, (int e, struct epoll_event *v, int n, int t, const sigset_t *s),           \
      (e, v, n, t, s))                                                                             \
    X(int, nanosleep, (const struct timespec *r, struct timespec *m), (r, m))                      \
    X(int, usleep, (useconds_t u), (u))                                                            \
    X(unsigned, sleep, (unsigned s), (s))                                                          \
    X(int, close, (int fd), (fd))                                                                  \
    X(int, fsync, (int fd), (fd))                                                                  \
    X(int, fdatasync, (int fd), (fd))

/* their names, and the variadic ones' bits after them */
#define SYS_NAME(ret, name, params, args) #name,
static const char *const sys_names[] = {
    SYSCALLS(SYS_NAME) "write", "open", "open64", "openat", "openat64", "ioctl", "syscall"};
enum {
#define SYS_BIT(ret, name, params, args) BIT_##name,
    SYSCALLS(SYS_BIT) BIT_write,
    BIT_open,
    BIT_open64,
    BIT_openat,
    BIT_openat64,
    BIT_ioctl,
    BIT_syscall,
    N_SYS
};
_Static_assert(N_SYS <= 64, "rt_sys_seen holds 64 bits");
_Static_assert(sizeof(sys_names) / sizeof(sys_names[0]) == N_SYS, "a name per bit");

#define DEFINE_SYS(ret, name, params, args)                                                        \
    static ret(*real_##name) params;                                                               \
    ret name params                                                                                \
    {                                                                                              \
        count_sys(BIT_##name);                                                                     \
        NEXT(name);                                                                                \
        if (!real_##name) {                                                                        \
            errno = ENOSYS;                                                                        \
            return (ret)-1;                                                                        \
        }                                                                                          \
        return real_##name args;                                                                   \
    }
SYSCALLS(DEFINE_SYS)

static ssize_t (*real_write)(int, const void *, size_t);
ssize_t write(int fd, const void *b, size_t n)
{
    static const char marker[] = "rtvd: overrun cycle=";

    if (atomic_load_explicit(&armed, memory_order_relaxed) && loop_thread()) {
        if (n >= sizeof(marker) - 1 && !memcmp(b, marker, sizeof(marker) - 1))
            atomic_fetch_add_explicit(&rt_marker, 1, memory_order_relaxed);
        else
            count_sys(BIT_write);
    }
    NEXT(write);
    return real_write(fd, b, n);
}

static int (*real_clock_nanosleep)(clockid_t, int, const struct timespec *, struct timespec *);
int clock_nanosleep(clockid_t c, int f, const struct timespec *r, struct timespec *m)
{
    if (atomic_load_explicit(&armed, memory_order_relaxed) && loop_thread())
        atomic_fetch_add_explicit(&rt_wait, 1, memory_order_relaxed);
    NEXT(clock_nanosleep);
    return real_clock_nanosleep(c, f, r, m);
}

/* open's and openat's mode is there when the flags create a file */
#define MODE(flags, ap, mode)                                                                      \
    do {                                                                                           \
        if ((flags) & (O_CREAT | O_TMPFILE)) {                                                     \
            va_start(ap, flags);                                                                   \
            mode = va_arg(ap, mode_t);                                                             \
            va_end(ap);                                                                            \
        }                                                                                          \
    } while (0)
#define DEFINE_OPEN(name, params, args)                                                            \
    static int(*real_##name) params;                                                               \
    int name params                                                                                \
    {                                                                                              \
        va_list ap;                                                                                \
        mode_t mode = 0;                                                                           \
                                                                                                   \
        MODE(flags, ap, mode);                                                                     \
        count_sys(BIT_##name);                                                                     \
        NEXT(name);                                                                                \
        return real_##name args;                                                                   \
    }
DEFINE_OPEN(open, (const char *path, int flags, ...), (path, flags, mode))
DEFINE_OPEN(open64, (const char *path, int flags, ...), (path, flags, mode))
DEFINE_OPEN(openat, (int dir, const char *path, int flags, ...), (dir, path, flags, mode))
DEFINE_OPEN(openat64, (int dir, const char *path, int flags, ...), (dir, path, flags, mode))

static int (*real_ioctl)(int, unsigned long, void *);
int ioctl(int fd, unsigned long req, ...)
{
    va_list ap;
    void *arg;

    va_start(ap, req);
    arg = va_arg(ap, void *);
    va_end(ap);
    count_sys(BIT_ioctl);
    NEXT(ioctl);
    return real_ioctl(fd, req, arg);
}

/* the raw wrapper (a futex, say): six arguments forwarded, what the kernel takes at most */
static long (*real_syscall)(long, ...);
long syscall(long nr, ...)
{
    va_list ap;
    long a[6];

    va_start(ap, nr);
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    count_sys(BIT_syscall);
    NEXT(syscall);
    return real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static void resolve_sys(void)
{
    SYSCALLS(RESOLVE)
    NEXT(write);
    NEXT(clock_nanosleep);
    NEXT(open);
    NEXT(open64);
    NEXT(openat);
    NEXT(openat64);
    NEXT(ioctl);
    NEXT(syscall);
}

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
    char line[512], *p = line;
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
    atomic_store(&rt_sys, 0);
    atomic_store(&rt_sys_seen, 0);
    atomic_store(&rt_wait, 0);
    atomic_store(&rt_marker, 0);
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
    memcpy(p, " rt_sys=", 8);
    p = put_num(p + 8, atomic_load(&rt_sys));
    memcpy(p, " span_s=", 8);
    p = put_num(p + 8, span_s);
    memcpy(p, " rt_sys_seen=", 13);
    p += 13;
    {
        const unsigned long seen = atomic_load(&rt_sys_seen);
        int first = 1;

        for (unsigned i = 0; i < N_SYS; i++)
            if (seen & (1ul << i)) {
                const size_t n = strlen(sys_names[i]);

                if (!first)
                    *p++ = ',';
                memcpy(p, sys_names[i], n);
                p += n;
                first = 0;
            }
        if (first)
            *p++ = '-';
    }
    memcpy(p, " rt_wait=", 9);
    p = put_num(p + 9, atomic_load(&rt_wait));
    memcpy(p, " rt_marker=", 11);
    p = put_num(p + 11, atomic_load(&rt_marker));
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
    resolve_sys();
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
