/* tests/io/test_can_stamp.c - the receive time of a frame from its ancillary data
 * (io/can.c vd_can_rx_cmsg, both backends): a kernel CLOCK_REALTIME stamp mapped to
 * CLOCK_MONOTONIC, a hardware stamp used only where it agrees with the software stamp of the
 * same frame (VD_CAN_HW_STAMP_TOL_NS), the counters saying which was used, and SO_RXQ_OVFL's
 * drop count. The messages are built here as the kernel lays them out (cmsg(3)), so the
 * hardware path runs on a machine without a time-stamping CAN controller. */
#include <time.h> /* struct timespec, before linux/errqueue.h uses it */

#include <linux/errqueue.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "check.h"
#include "io/can_priv.h"

static int64_t now(clockid_t c)
{
    struct timespec ts;

    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static struct timespec ts_of(int64_t ns)
{
    return (struct timespec){.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
}

/* a received message's control data: SCM_TIMESTAMPING with software stamp sw and hardware
 * stamp hw (0: absent, as the kernel leaves it), or SCM_TIMESTAMPNS (ns != 0), and
 * SO_RXQ_OVFL (ovfl >= 0) */
struct ctl {
    union {
        char buf[CMSG_SPACE(sizeof(struct scm_timestamping)) + CMSG_SPACE(sizeof(uint32_t))];
        struct cmsghdr align;
    } u;
    struct msghdr msg;
};

/* the next SOL_SOCKET control message of c: type, n bytes from p */
static void put(struct ctl *c, struct cmsghdr **h, size_t *len, int type, const void *p, size_t n)
{
    (*h)->cmsg_level = SOL_SOCKET;
    (*h)->cmsg_type = type;
    (*h)->cmsg_len = CMSG_LEN(n);
    memcpy(CMSG_DATA(*h), p, n);
    *len += CMSG_SPACE(n);
    *h = CMSG_NXTHDR(&c->msg, *h);
}

static struct msghdr *build(struct ctl *c, int64_t sw, int64_t hw, int64_t ns, long ovfl)
{
    struct cmsghdr *h;
    size_t len = 0;

    memset(c, 0, sizeof(*c));
    c->msg.msg_control = c->u.buf;
    c->msg.msg_controllen = sizeof(c->u.buf);
    h = CMSG_FIRSTHDR(&c->msg);
    if (sw || hw) {
        struct scm_timestamping t = {0};

        if (sw)
            t.ts[0] = ts_of(sw);
        if (hw)
            t.ts[2] = ts_of(hw);
        put(c, &h, &len, SCM_TIMESTAMPING, &t, sizeof(t));
    } else if (ns) {
        struct timespec t = ts_of(ns);

        put(c, &h, &len, SCM_TIMESTAMPNS, &t, sizeof(t));
    }
    if (ovfl >= 0) {
        uint32_t v = (uint32_t)ovfl;

        put(c, &h, &len, SO_RXQ_OVFL, &v, sizeof(v));
    }
    c->msg.msg_controllen = len;
    return &c->msg;
}

static uint64_t st(struct vd_can_bus *b, enum vd_can_stat_id id)
{
    return atomic_load(&b->st[id]);
}

/* one frame through vd_can_rx_cmsg: its software stamp `age` before the call, in
 * SCM_TIMESTAMPNS (ts_ns) or SCM_TIMESTAMPING with a hardware stamp hw_d after it (hw); the
 * mapped time checked where it must land, `land` ns after the software stamp's instant (hw_d
 * where the hardware stamp is used, else 0). The bound, for a software stamp:
 * t = stamp - (real - mid), mid the midpoint of the two monotonic readings around the
 * realtime one. With realtime a constant offset from monotonic (not stepped during the test;
 * NTP's slew, 500 ppm at most, moves it by far less than the interval below) the stamp read
 * at monotonic m_r is dated t = m_r - age - e, |e| <= half the interval between the two
 * readings in the call. b0 is read before the stamp's realtime reading and b1 after the
 * call, so m_r and both readings lie in [b0, b1]: b0 - age - (b1 - b0) / 2 <= t <= b1 - age +
 * (b1 - b0) / 2. The checks use the whole interval (b1 - b0) each side: no tolerance beyond
 * the readings themselves. */
static void mapped(struct vd_can_bus *b, bool ts_ns, bool hw, int64_t hw_d, int64_t land,
                   const char *what)
{
    const int64_t age = 3000000; /* [ns] */
    struct ctl c;
    int64_t b0, b1, r, t;

    b0 = now(CLOCK_MONOTONIC);
    r = now(CLOCK_REALTIME) - age;
    t = vd_can_rx_cmsg(b, ts_ns ? build(&c, 0, 0, r, -1) : build(&c, r, hw ? r + hw_d : 0, 0, -1));
    b1 = now(CLOCK_MONOTONIC);
    CHECK(t >= b0 - age + land - (b1 - b0) && t <= b1 - age + land + (b1 - b0),
          "%s: %lld ns before the call", what, (long long)(b1 - t));
}

int main(void)
{
    struct vd_can_bus b;
    struct ctl c;
    const int64_t age = 3000000, off = 3600LL * 1000000000; /* [ns] 3 ms; an hour */
    int64_t b0, b1, t, r;

    memset(&b, 0, sizeof(b));

    /* software stamp (SO_TIMESTAMPNS): mapped, no hardware counted */
    mapped(&b, true, false, 0, 0, "SCM_TIMESTAMPNS mapped");
    CHECK(st(&b, VD_CS_rx_hw_stamps) == 0 && st(&b, VD_CS_rx_hw_stamps_off) == 0,
          "no hardware stamp counted");

    /* a hardware stamp 1 ms before the software one: used */
    mapped(&b, false, true, -1000000, -1000000, "hardware stamp used");
    CHECK(st(&b, VD_CS_rx_hw_stamps) == 1 && st(&b, VD_CS_rx_hw_stamps_off) == 0,
          "hardware stamp counted: %llu used, %llu off",
          (unsigned long long)st(&b, VD_CS_rx_hw_stamps),
          (unsigned long long)st(&b, VD_CS_rx_hw_stamps_off));

    /* at the tolerance either way: still used; one ns beyond: the software one */
    r = now(CLOCK_REALTIME) - age - 2 * VD_CAN_HW_STAMP_TOL_NS;
    vd_can_rx_cmsg(&b, build(&c, r, r + VD_CAN_HW_STAMP_TOL_NS, 0, -1));
    vd_can_rx_cmsg(&b, build(&c, r, r - VD_CAN_HW_STAMP_TOL_NS, 0, -1));
    CHECK(st(&b, VD_CS_rx_hw_stamps) == 3 && st(&b, VD_CS_rx_hw_stamps_off) == 0,
          "at the tolerance: used");
    vd_can_rx_cmsg(&b, build(&c, r, r + VD_CAN_HW_STAMP_TOL_NS + 1, 0, -1));
    vd_can_rx_cmsg(&b, build(&c, r, r - VD_CAN_HW_STAMP_TOL_NS - 1, 0, -1));
    CHECK(st(&b, VD_CS_rx_hw_stamps) == 3 && st(&b, VD_CS_rx_hw_stamps_off) == 2,
          "beyond the tolerance: not used, counted");

    /* a controller clock an hour off (another time base): the software stamp, counted; an
     * hour ahead would otherwise be clamped to the call, an hour behind time the frame out */
    mapped(&b, false, true, -off, 0, "an hour behind: the software stamp");
    CHECK(st(&b, VD_CS_rx_hw_stamps_off) == 3, "an hour behind: counted");
    mapped(&b, false, true, off, 0, "an hour ahead: the software stamp");
    CHECK(st(&b, VD_CS_rx_hw_stamps_off) == 4 && st(&b, VD_CS_rx_hw_stamps) == 3,
          "an hour ahead: counted");

    /* only the software stamp in SCM_TIMESTAMPING (the driver gives no hardware one) */
    mapped(&b, false, false, 0, 0, "software stamp of SCM_TIMESTAMPING");
    CHECK(st(&b, VD_CS_rx_hw_stamps) == 3 && st(&b, VD_CS_rx_hw_stamps_off) == 4,
          "no hardware stamp: nothing counted");

    /* only a hardware stamp (a driver that gives no software one): nothing to compare it
     * with, used as it is (the bound as mapped()'s, 1 ms earlier) */
    b0 = now(CLOCK_MONOTONIC);
    r = now(CLOCK_REALTIME) - age;
    t = vd_can_rx_cmsg(&b, build(&c, 0, r - 1000000, 0, -1));
    b1 = now(CLOCK_MONOTONIC);
    CHECK(t >= b0 - age - 1000000 - (b1 - b0) && t <= b1 - age - 1000000 + (b1 - b0),
          "hardware stamp alone: %lld ns before the call", (long long)(b1 - t));
    CHECK(st(&b, VD_CS_rx_hw_stamps) == 4 && st(&b, VD_CS_rx_hw_stamps_off) == 4,
          "hardware stamp alone: counted as used");

    /* a stamp in the future (realtime stepped back after it): never after the call */
    r = now(CLOCK_REALTIME) + off;
    t = vd_can_rx_cmsg(&b, build(&c, 0, 0, r, -1));
    b1 = now(CLOCK_MONOTONIC);
    CHECK(t <= b1, "a stamp from the future clamped to the call: %lld ns after it",
          (long long)(t - b1));

    /* no stamp: the monotonic clock at the call */
    b0 = now(CLOCK_MONOTONIC);
    t = vd_can_rx_cmsg(&b, build(&c, 0, 0, 0, -1));
    b1 = now(CLOCK_MONOTONIC);
    CHECK(t >= b0 && t <= b1, "no stamp: the time of the call");

    /* SO_RXQ_OVFL: cumulative, the increase counted, an older value no decrease */
    vd_can_rx_cmsg(&b, build(&c, 0, 0, 0, 5));
    vd_can_rx_cmsg(&b, build(&c, 0, 0, 0, 7));
    vd_can_rx_cmsg(&b, build(&c, 0, 0, 0, 6));
    CHECK(st(&b, VD_CS_rx_overflow) == 7, "kernel drops: %llu, want 7",
          (unsigned long long)st(&b, VD_CS_rx_overflow));
    return vt_report("test_can_stamp");
}
