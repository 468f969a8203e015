/* tests/rt/noalloc_preload.c - an LD_PRELOAD library for an unmodified `rtvd run`: counts
 * calls to malloc & co. in every thread of the process, and the minor page faults of the
 * process, in a time window: [VD_NOALLOC_ARM_S, VD_NOALLOC_ARM_S + VD_NOALLOC_SPAN_S)
 * seconds after the file VD_NOALLOC_ARM_FILE appears (the test's service-manager end of
 * $NOTIFY_SOCKET creates it on rtvd's READY=1: init done, the threads running), or after
 * start without VD_NOALLOC_ARM_FILE. Counting from READY rather than from start keeps the
 * window out of init however long a loaded machine takes for it (a model's statics, the CE
 * closures' tables). At the end of the window it writes "calls=N minflt=M span_s=S" to
 * VD_NOALLOC_OUT; nothing if the file never appears within 60 s. A helper thread started from
 * the constructor keeps the time; it sleeps, polls the file with access(2) every 10 ms, and
 * formats without stdio. */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "noalloc.h"

static long arm_s = 2, span_s = 10;
static const char *out, *arm_file;

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
