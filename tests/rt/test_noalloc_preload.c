/* tests/rt/test_noalloc_preload.c PRELOAD - the interposer of noalloc_rtvd_run.sh
 * (tests/rt/noalloc_preload.c) counts what it must, so that its zeros there mean something:
 * this program re-executes itself with PRELOAD in LD_PRELOAD, arms the window through the arm
 * file (VD_NOALLOC_ARM_S 0, span 3 s) with its two threads already started, and then, inside
 * the window, a thread named vd-loop (one of rtvd's real-time threads) locks a mutex 5 times,
 * try-locks it once and waits on a posted semaphore once, while a thread named vd-telemetry
 * (not real-time) locks the same mutex 7 times and makes 3 allocator calls (malloc, realloc,
 * free). The window's line must then read calls=3 and rt_locks=7 exactly: the real-time
 * thread's locks counted, the other thread's not, its allocations counted. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static sem_t sem;
static atomic_int go, done, quit;
static void *volatile keep;

static void sleep_ms(long ms)
{
    const struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};

    nanosleep(&t, NULL);
}

static void wait_for(atomic_int *flag)
{
    while (!atomic_load(flag))
        sleep_ms(1);
}

static void *rt_thread(void *arg)
{
    (void)arg;
    wait_for(&go);
    for (int i = 0; i < 5; i++) {
        pthread_mutex_lock(&mu);
        pthread_mutex_unlock(&mu);
    }
    if (pthread_mutex_trylock(&mu) == 0)
        pthread_mutex_unlock(&mu);
    sem_wait(&sem);
    atomic_fetch_add(&done, 1);
    wait_for(&quit); /* a thread's exit frees its malloc caches: after the window */
    return NULL;
}

static void *other_thread(void *arg)
{
    void *p;

    (void)arg;
    wait_for(&go);
    for (int i = 0; i < 7; i++) {
        pthread_mutex_lock(&mu);
        pthread_mutex_unlock(&mu);
    }
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
    char line[128] = {0};
    long calls = -1, minflt = -1, locks = -1, span = -1;
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
    /* the threads first (their stacks and TLS are allocations), then the window */
    sem_init(&sem, 0, 1);
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
    if (sscanf(line, "calls=%ld minflt=%ld rt_locks=%ld span_s=%ld", &calls, &minflt, &locks,
               &span) != 4 ||
        calls != 3 || locks != 7 || span != 3) {
        fprintf(stderr,
                "FAIL: want calls=3 (the other thread's malloc, realloc, free) and rt_locks=7 "
                "(vd-loop's 5 locks, 1 trylock, 1 sem_wait; vd-telemetry's 7 not counted)\n");
        return 1;
    }
    printf("test_noalloc_preload: passed\n");
    return 0;
}
