/* rt/clock.c - int64 ns monotonic time. */
#include "clock.h"

int64_t vd_clock_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return vd_timespec_to_ns(&ts);
}

struct timespec vd_ns_to_timespec(int64_t ns)
{
    struct timespec ts;

    ts.tv_sec = (time_t)(ns / VD_NS_PER_S);
    ts.tv_nsec = (long)(ns % VD_NS_PER_S);
    return ts;
}

int64_t vd_timespec_to_ns(const struct timespec *ts)
{
    return (int64_t)ts->tv_sec * VD_NS_PER_S + ts->tv_nsec;
}
