/* rt/clock.h - monotonic time as int64 nanoseconds; struct timespec only at syscall
 * boundaries. All functions RT-safe (clock_gettime is served by the vDSO). */
#ifndef VD_RT_CLOCK_H
#define VD_RT_CLOCK_H

#include <stdint.h>
#include <time.h>

#define VD_NS_PER_S 1000000000LL

/* CLOCK_MONOTONIC now [ns] */
int64_t vd_clock_now(void);
struct timespec vd_ns_to_timespec(int64_t ns);
int64_t vd_timespec_to_ns(const struct timespec *ts);

#endif /* VD_RT_CLOCK_H */
