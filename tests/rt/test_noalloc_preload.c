/* tests/rt/test_noalloc_preload.c PRELOAD - the interposer of noalloc_rtvd_run.sh
 * (tests/rt/noalloc_preload.c) counts what it must, so that its zeros there mean something:
 * this program re-executes itself with PRELOAD in LD_PRELOAD, arms the window through the arm
 * file (VD_NOALLOC_ARM_S 0, span 3 s) with its two threads already started, and then, inside
 * the window, a thread named vd-loop (one of rtvd's real-time threads) calls each of the
 * interposer's 27 lock and wait entry points once (pthread_mutex_lock/trylock/timedlock/
 * clocklock, the eight pthread_rwlock_*lock, pthread_cond_wait/timedwait/clockwait,
 * sem_wait/trywait/timedwait/clockwait, C11 mtx_lock/timedlock/trylock and cnd_wait/timedwait,
 * pthread_spin_lock/trylock, pthread_barrier_wait), each checked for its result, while a thread
 * named vd-telemetry (not real-time) takes 14 locks of the same kinds (signalling the two
 * condition waits, the barrier's other party) and makes 3 allocator calls (malloc, realloc,
 * free). Both threads also call read, poll, nanosleep, write, a trace-marker line's write and
 * syscall(SYS_getpid); vd-loop waits with clock_nanosleep only. The window's line must then
 * read calls=3, rt_locks=27, rt_sys=5 with rt_sys_seen=read,poll,nanosleep,write,syscall,
 * rt_marker=1 and rt_wait >= 1 exactly: the real-time thread's locks counted, each once, the
 * other thread's not, its allocations counted; the loop thread's syscalls counted, the allowed
 * two (its period wait, a marker's write) apart, the other thread's not. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/syscall.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER, mu2 = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_spinlock_t spin;
static pthread_barrier_t bar;
static sem_t sem;
static mtx_t cmu;
static cnd_t ccv;
static atomic_int go, done, quit, waiting, cwaiting;
static int signaled, csignaled; /* under mu, under cmu */
static void *volatile keep;

/* the entry points the vd-loop thread calls once each: the interposer's LOCKS list */
enum { RT_LOCKS = 27 };

static void sleep_ms(long ms)
{
    const struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};

    nanosleep(&t, NULL);
}

static atomic_int fails; /* both threads */
#define WANT(call, ok)                                                                             \
    do {                                                                                           \
        const int r_ = (call);                                                                     \
        if (!(ok)) {                                                                               \
            fprintf(stderr, "FAIL: %s returned %d\n", #call, r_);                                  \
            fails++;                                                                               \
        }                                                                                          \
    } while (0)

static void wait_for(atomic_int *flag)
{
    while (!atomic_load(flag))
        sleep_ms(1);
}

/* the vd-loop thread's wait: clock_nanosleep, the loop's own (allowed) blocking call, where
 * nanosleep would be counted */
static void loop_wait_for(atomic_int *flag)
{
    const struct timespec t = {0, 1000000L};

    while (!atomic_load(flag))
        clock_nanosleep(CLOCK_MONOTONIC, 0, &t, NULL);
}

static int null_fd = -1; /* /dev/null, opened before the window */

/* the syscalls both threads make in the window: read, poll, nanosleep, a plain write, a
 * trace-marker line's write and the raw syscall wrapper. In vd-loop all but the marker's
 * write are counted (rt_sys=5, rt_marker=1); in vd-telemetry none is */
static void syscalls(void)
{
    static const char mark[] = "rtvd: overrun cycle=1 turnaround_us=1200\n";
    struct pollfd pf = {.fd = null_fd, .events = POLLIN};
    char c;

    WANT((int)read(null_fd, &c, 1), r_ == 0);
    WANT(poll(&pf, 1, 0), r_ == 1);
    WANT(nanosleep(&(struct timespec){0, 1000}, NULL), r_ == 0);
    WANT((int)write(null_fd, "x", 1), r_ == 1);
    WANT((int)write(null_fd, mark, sizeof(mark) - 1), r_ == (int)sizeof(mark) - 1);
    WANT((int)syscall(SYS_getpid), r_ == getpid());
}

/* now on clock c plus ms milliseconds (0: now, a time that has passed when the call looks) */
static struct timespec at(clockid_t c, long ms)
{
    struct timespec t;

    clock_gettime(c, &t);
    t.tv_nsec += ms * 1000000L;
    t.tv_sec += t.tv_nsec / 1000000000L;
    t.tv_nsec %= 1000000000L;
    return t;
}

/* every entry point of the interposer's LOCKS list exactly once (RT_LOCKS calls), none of
 * them blocking for long: the waits time out at once (an absolute time already passed) or are
 * answered by the other thread (cond_wait, cnd_wait, barrier_wait) */
static void *rt_thread(void *arg)
{
    (void)arg;
    loop_wait_for(&go);
    syscalls();
    /* mutexes: lock (held for the three condition waits), trylock, timedlock, clocklock */
    WANT(pthread_mutex_lock(&mu), r_ == 0);
    WANT(pthread_cond_timedwait(&cv, &mu, &(struct timespec){0}), r_ == ETIMEDOUT);
    WANT(pthread_cond_clockwait(&cv, &mu, CLOCK_MONOTONIC, &(struct timespec){0}), r_ == ETIMEDOUT);
    atomic_store(&waiting, 1); /* the other thread signals once it holds mu: we wait */
    WANT(signaled ? 0 : pthread_cond_wait(&cv, &mu), r_ == 0 && signaled);
    pthread_mutex_unlock(&mu);
    WANT(pthread_mutex_trylock(&mu2), r_ == 0);
    pthread_mutex_unlock(&mu2);
    {
        const struct timespec t = at(CLOCK_REALTIME, 1000);
        WANT(pthread_mutex_timedlock(&mu2, &t), r_ == 0);
    }
    pthread_mutex_unlock(&mu2);
    {
        const struct timespec t = at(CLOCK_MONOTONIC, 1000);
        WANT(pthread_mutex_clocklock(&mu2, CLOCK_MONOTONIC, &t), r_ == 0);
    }
    pthread_mutex_unlock(&mu2);
    /* read-write locks: all eight */
    {
        const struct timespec r = at(CLOCK_REALTIME, 1000), m = at(CLOCK_MONOTONIC, 1000);
        WANT(pthread_rwlock_rdlock(&rw), r_ == 0);
        pthread_rwlock_unlock(&rw);
        WANT(pthread_rwlock_wrlock(&rw), r_ == 0);
        pthread_rwlock_unlock(&rw);
        WANT(pthread_rwlock_tryrdlock(&rw), r_ == 0);
        pthread_rwlock_unlock(&rw);
        WANT(pthread_rwlock_trywrlock(&rw), r_ == 0);
        pthread_rwlock_unlock(&rw);
        WANT(pthread_rwlock_timedrdlock(&rw, &r), r_ == 0);
        pthread_rwlock_unlock(&rw);
        WANT(pthread_rwlock_timedwrlock(&rw, &r), r_ == 0);
        pthread_rwlock_unlock(&rw);
        WANT(pthread_rwlock_clockrdlock(&rw, CLOCK_MONOTONIC, &m), r_ == 0);
        pthread_rwlock_unlock(&rw);
        WANT(pthread_rwlock_clockwrlock(&rw, CLOCK_MONOTONIC, &m), r_ == 0);
        pthread_rwlock_unlock(&rw);
    }
    /* the semaphore, posted 4 times: wait, trywait, timedwait, clockwait */
    {
        const struct timespec r = at(CLOCK_REALTIME, 1000), m = at(CLOCK_MONOTONIC, 1000);
        WANT(sem_wait(&sem), r_ == 0);
        WANT(sem_trywait(&sem), r_ == 0);
        WANT(sem_timedwait(&sem, &r), r_ == 0);
        WANT(sem_clockwait(&sem, CLOCK_MONOTONIC, &m), r_ == 0);
    }
    /* C11: mtx_lock (held for the two condition waits), cnd_timedwait, cnd_wait, then
     * mtx_trylock and mtx_timedlock */
    WANT(mtx_lock(&cmu), r_ == thrd_success);
    WANT(cnd_timedwait(&ccv, &cmu, &(struct timespec){0}), r_ == thrd_timedout);
    atomic_store(&cwaiting, 1);
    WANT(csignaled ? thrd_success : cnd_wait(&ccv, &cmu), r_ == thrd_success && csignaled);
    mtx_unlock(&cmu);
    WANT(mtx_trylock(&cmu), r_ == thrd_success);
    mtx_unlock(&cmu);
    {
        const struct timespec r = at(CLOCK_REALTIME, 1000);
        WANT(mtx_timedlock(&cmu, &r), r_ == thrd_success);
    }
    mtx_unlock(&cmu);
    /* spin lock, spin trylock, and the barrier the other thread waits at too */
    WANT(pthread_spin_lock(&spin), r_ == 0);
    pthread_spin_unlock(&spin);
    WANT(pthread_spin_trylock(&spin), r_ == 0);
    pthread_spin_unlock(&spin);
    WANT(pthread_barrier_wait(&bar), r_ == 0 || r_ == PTHREAD_BARRIER_SERIAL_THREAD);
    atomic_fetch_add(&done, 1);
    loop_wait_for(&quit); /* a thread's exit frees its malloc caches: after the window */
    return NULL;
}

/* not real-time: its locks are not counted (7 mutex locks, the signals of the two condition
 * waits with their locks, a semaphore wait, a read-write lock, a C11 trylock, a spin lock, the
 * barrier), its 3 allocator calls are */
static void *other_thread(void *arg)
{
    void *p;

    (void)arg;
    wait_for(&go);
    syscalls();
    for (int i = 0; i < 7; i++) {
        pthread_mutex_lock(&mu2);
        pthread_mutex_unlock(&mu2);
    }
    wait_for(&waiting);
    pthread_mutex_lock(&mu); /* the vd-loop thread is in pthread_cond_wait */
    signaled = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
    wait_for(&cwaiting);
    mtx_lock(&cmu); /* the vd-loop thread is in cnd_wait */
    csignaled = 1;
    cnd_signal(&ccv);
    mtx_unlock(&cmu);
    sem_wait(&sem);
    pthread_rwlock_rdlock(&rw);
    pthread_rwlock_unlock(&rw);
    if (mtx_trylock(&cmu) == thrd_success)
        mtx_unlock(&cmu);
    pthread_spin_lock(&spin);
    pthread_spin_unlock(&spin);
    pthread_barrier_wait(&bar);
    p = malloc(64);
    p = realloc(p, 128);
    keep = p;
    free(p);
    atomic_fetch_add(&done, 1);
    wait_for(&quit);
    return NULL;
}

int main(int argc, char **argv)
{
    static char out[64], arm[64];
    pthread_t a, b;
    char line[512] = {0};
    long calls = -1, minflt = -1, locks = -1, span = -1, sys = -1, wait = -1, marker = -1;
    char seen[64] = {0};
    FILE *f;
    int fd;

    if (!getenv("VD_NOALLOC_OUT")) {
        /* the first run: the environment, then the same program with the interposer */
        if (argc < 2) {
            fprintf(stderr, "usage: test_noalloc_preload PRELOAD\n");
            return 2;
        }
        snprintf(out, sizeof(out), "/tmp/vd_preload_%ld.out", (long)getpid());
        snprintf(arm, sizeof(arm), "/tmp/vd_preload_%ld.arm", (long)getpid());
        setenv("LD_PRELOAD", argv[1], 1);
        setenv("VD_NOALLOC_OUT", out, 1);
        setenv("VD_NOALLOC_ARM_FILE", arm, 1);
        setenv("VD_NOALLOC_ARM_S", "0", 1);
        setenv("VD_NOALLOC_SPAN_S", "3", 1);
        execv("/proc/self/exe", argv);
        perror("test_noalloc_preload: exec");
        return 2;
    }
    null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null_fd < 0)
        return 2;
    /* the threads first (their stacks and TLS are allocations), then the window */
    sem_init(&sem, 0, 5); /* 4 for the vd-loop thread, 1 for the other */
    pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
    pthread_barrier_init(&bar, NULL, 2);
    if (mtx_init(&cmu, mtx_timed) != thrd_success || cnd_init(&ccv) != thrd_success)
        return 2;
    if (pthread_create(&a, NULL, rt_thread, NULL) || pthread_create(&b, NULL, other_thread, NULL))
        return 2;
    pthread_setname_np(a, "vd-loop");
    pthread_setname_np(b, "vd-telemetry");
    snprintf(arm, sizeof(arm), "%s", getenv("VD_NOALLOC_ARM_FILE"));
    snprintf(out, sizeof(out), "%s", getenv("VD_NOALLOC_OUT"));
    fd = creat(arm, 0644);
    if (fd < 0)
        return 2;
    close(fd);
    /* the interposer polls the file every 10 ms and arms at once (ARM_S 0): the work 0.5 s
     * into the 3 s window, the line read 4 s after the file appeared (margins for a loaded
     * machine's scheduling, not timings) */
    sleep_ms(500);
    atomic_store(&go, 1);
    while (atomic_load(&done) < 2)
        sleep_ms(1);
    sleep_ms(3500);
    atomic_store(&quit, 1);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    unlink(arm);
    f = fopen(out, "r");
    if (!f || !fgets(line, sizeof(line), f)) {
        fprintf(stderr, "FAIL: the interposer wrote no line to %s\n", out);
        return 1;
    }
    fclose(f);
    unlink(out);
    printf("interposer: %s", line);
    if (sscanf(line,
               "calls=%ld minflt=%ld rt_locks=%ld rt_sys=%ld span_s=%ld rt_sys_seen=%63s "
               "rt_wait=%ld rt_marker=%ld",
               &calls, &minflt, &locks, &sys, &span, seen, &wait, &marker) != 8 ||
        calls != 3 || locks != RT_LOCKS || span != 3) {
        fprintf(stderr,
                "FAIL: want calls=3 (the other thread's malloc, realloc, free) and rt_locks=%d "
                "(vd-loop's call of each of the interposer's entry points; vd-telemetry's 14 "
                "not counted)\n",
                RT_LOCKS);
        return 1;
    }
    /* the loop thread's read, poll, nanosleep, plain write and syscall counted, in the
     * interposer's order; its marker write and its clock_nanosleep waits (at least the one
     * for the end) counted apart; none of vd-telemetry's */
    if (sys != 5 || strcmp(seen, "read,poll,nanosleep,write,syscall") || marker != 1 || wait < 1) {
        fprintf(stderr,
                "FAIL: want rt_sys=5 rt_sys_seen=read,poll,nanosleep,write,syscall (vd-loop's; "
                "vd-telemetry's same calls not counted), rt_marker=1 and rt_wait >= 1 (the "
                "allowed calls apart)\n");
        return 1;
    }
    if (fails) {
        fprintf(stderr, "FAIL: %d calls of the vd-loop thread did not do what they must\n", fails);
        return 1;
    }
    printf("test_noalloc_preload: passed\n");
    return 0;
}
