/* tests/io/test_can_common.h - helpers of the CAN transport tests (test_can_udp.c,
 * test_can_socketcan.c): frame builders and comparison, a hex dump comparison, receiving n
 * frames, the eight-frame round trip both run, the stats macro, and a sendto
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

#include "check.h"
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

#define STATS(b, s)                                                                                \
    struct vd_can_stats s;                                                                         \
    vd_can_stats(b, &s)

/* frames from b until n arrived or ms passed, at most chunk per vd_can_recv (each waiting up
 * to 50 ms); the count */
static inline int recv_n(struct vd_can_bus *b, struct vd_can_frame *out, int n, int chunk, int ms)
{
    int got = 0;
    const int64_t end = now_ns() + (int64_t)ms * 1000000;

    while (got < n && now_ns() < end) {
        const int r = vd_can_recv(b, out + got, chunk < n - got ? chunk : n - got, 50);

        if (r < 0)
            break;
        got += r;
    }
    return got;
}

/* eight frames of every kind (classic data, extended, RTR standard and extended, FD with BRS,
 * FD extended at 64 bytes with ESI, FD at id 0, classic empty) sent on a, received on b
 * (recv_n in chunks of chunk, 2 s at most): tx the frames, rx what arrived, each equal to the one
 * sent and stamped within 1 ms of the send/receive window (the kernel's CLOCK_REALTIME stamp mapped
 * to CLOCK_MONOTONIC: the two clocks are read a few us apart for the mapping); the count received
 */
static inline int roundtrip8(struct vd_can_bus *a, struct vd_can_bus *b, int chunk,
                             struct vd_can_frame tx[8], struct vd_can_frame rx[8])
{
    int64_t t0, t1;
    int n;

    tx[0] = mkframe(0x123, 0, 8, 1);
    tx[1] = mkframe(0x18DAF110, VD_CANF_EFF, 3, 2);
    tx[2] = mkframe(0x321, VD_CANF_RTR, 6, 0);
    tx[3] = mkframe(0x1FFFFFFF, VD_CANF_EFF | VD_CANF_RTR, 0, 0);
    tx[4] = mkframe(0x100, VD_CANF_FD | VD_CANF_BRS, 16, 3);
    tx[5] = mkframe(0x1000, VD_CANF_FD | VD_CANF_EFF | VD_CANF_ESI, 64, 4);
    tx[6] = mkframe(0x0, VD_CANF_FD, 5, 5);
    tx[7] = mkframe(0x7FF, 0, 0, 0);
    t0 = now_ns();
    for (int i = 0; i < 8; i++)
        CHECK(vd_can_send(a, &tx[i]) == 0, "send %d", i);
    n = recv_n(b, rx, 8, chunk, 2000);
    t1 = now_ns();
    CHECK(n == 8, "received %d of 8", n);
    for (int i = 0; i < n; i++) {
        char s1[300], s2[300];

        frame_str(&tx[i], s1, sizeof(s1));
        frame_str(&rx[i], s2, sizeof(s2));
        CHECK(frame_eq(&tx[i], &rx[i]), "frame %d: sent %s, received %s", i, s1, s2);
        CHECK(rx[i].t_ns > t0 - 1000000 && rx[i].t_ns < t1 + 1000000,
              "frame %d stamp %lld in [%lld, %lld]", i, (long long)rx[i].t_ns, (long long)t0,
              (long long)t1);
    }
    return n;
}

#endif /* VD_TESTS_IO_TEST_CAN_COMMON_H */
