/* tests/io/test_can_common.h - helpers of the CAN transport tests (test_can_udp.c,
 * test_can_socketcan.c): frame builders and comparison, a hex dump comparison, and a sendto
 * wrapper (linked with -Wl,--wrap=sendto) that injects EAGAIN/ENOBUFS/other errors into the
 * transport's sends so the drop and wait policies are tested deterministically. */
#ifndef VD_TESTS_IO_TEST_CAN_COMMON_H
#define VD_TESTS_IO_TEST_CAN_COMMON_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "io/can.h"

/* ---- sendto fault injection: the next fault_n sends fail with fault_errno ------------------ */
static int fault_n, fault_errno, fault_calls;

ssize_t __real_sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *to,
                      socklen_t tolen);
ssize_t __wrap_sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *to,
                      socklen_t tolen);
ssize_t __wrap_sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *to,
                      socklen_t tolen)
{
    if (fault_n > 0) {
        fault_n--;
        fault_calls++;
        errno = fault_errno;
        return -1;
    }
    return __real_sendto(fd, buf, len, flags, to, tolen);
}

static inline int64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline struct vd_can_frame mkframe(uint32_t id, unsigned flags, unsigned len, unsigned seed)
{
    struct vd_can_frame f;

    memset(&f, 0, sizeof(f));
    f.id = id;
    f.flags = (uint8_t)flags;
    f.len = (uint8_t)len;
    if (!(flags & VD_CANF_RTR))
        for (unsigned i = 0; i < len; i++)
            f.data[i] = (uint8_t)(seed * 31u + i * 7u + 1u);
    return f;
}

/* same id, len, flags and payload (RTR frames carry none) */
static inline bool frame_eq(const struct vd_can_frame *a, const struct vd_can_frame *b)
{
    return a->id == b->id && a->len == b->len && a->flags == b->flags &&
           ((a->flags & VD_CANF_RTR) || !memcmp(a->data, b->data, a->len));
}

static inline void frame_str(const struct vd_can_frame *f, char *buf, size_t sz)
{
    int k = snprintf(buf, sz, "%s%x%s[%u]%s", (f->flags & VD_CANF_ERR) ? "ERR:" : "", f->id,
                     (f->flags & VD_CANF_EFF) ? "x" : "", f->len,
                     (f->flags & VD_CANF_FD) ? "fd" : ((f->flags & VD_CANF_RTR) ? "rtr" : ""));

    for (unsigned i = 0; !(f->flags & VD_CANF_RTR) && i < f->len && k > 0 && (size_t)k < sz; i++)
        k += snprintf(buf + k, sz - (size_t)k, " %02x", f->data[i]);
}

/* hex string (spaces ignored) into bytes; returns the count */
static inline size_t unhex(const char *s, uint8_t *out, size_t cap)
{
    size_t n = 0;

    while (*s && n < cap) {
        unsigned v;

        if (*s == ' ') {
            s++;
            continue;
        }
        if (sscanf(s, "%2x", &v) != 1)
            break;
        out[n++] = (uint8_t)v;
        s += 2;
    }
    return n;
}

#endif /* VD_TESTS_IO_TEST_CAN_COMMON_H */
