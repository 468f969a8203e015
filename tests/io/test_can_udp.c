/* tests/io/test_can_udp.c - the udp (cannelloni v2) backend of io/can.h end to end on
 * loopback, and the codec byte for byte:
 *  - cannelloni v2 vectors written by hand from doc/udp_format.md and parser.cpp of
 *    mguentner/cannelloni (classic, EFF, RTR, FD with BRS/ESI, error frame, empty frame,
 *    several frames in one datagram), round trips, the encoder's capacity limit;
 *  - the checker on every malformed datagram: short header, wrong version, ACK/NACK op code,
 *    count larger / smaller than the frames, trailing bytes, classic len > 8, FD len > 64 or
 *    not an FD length, FD on a classic bus, RTR with FD, 11-bit id with high bits, bad error
 *    frame, truncated id / flags / data; 200000 mutated datagrams never crash and nothing
 *    accepted decodes into an invalid frame;
 *  - two endpoints: classic and FD frames, EFF/RTR, time stamps, batching into datagrams of
 *    at most udp_max_payload (datagram count computed independently), delivery across
 *    partial reads, a 935-frame datagram, sequence gaps / reordering / resync, malformed
 *    datagrams rejected with their counters while good ones still pass, foreign senders,
 *    filters, the error mask and bus state from error frames, FD on a classic bus, invalid
 *    TX frames, no remote, the TX policy under injected EAGAIN/ENOBUFS/ENETDOWN (drop at once,
 *    bounded wait with retry), kernel receive overflow (SO_RXQ_OVFL + SO_MEMINFO: received +
 *    dropped = sent exactly), recv timeouts, several buses polled from one thread, a sender
 *    and a receiver thread with a third reading the counters, config errors;
 *  - every counter checked exactly; no allocation in send/recv/service. */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "io/test_can_common.h"

/* ---- allocation counter: tests/noalloc.h, counting while `armed` --------------------------- */
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#include "noalloc.h"
#define ALLOC_COUNTING 1
#else
#include <stdatomic.h>
static atomic_int armed;
static atomic_long calls;
#define ALLOC_COUNTING 0
#endif

/* ---- helpers ----------------------------------------------------------------------------------
 */

static char err[512];

/* a free UDP port on 127.0.0.1 (bound, read, released), none handed out twice */
static uint16_t free_port(void)
{
    static uint16_t given[64];
    static int ngiven;

    for (;;) {
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t l = sizeof(a);
        int fd = socket(AF_INET, SOCK_DGRAM, 0), i;
        uint16_t p;

        bind(fd, (struct sockaddr *)&a, sizeof(a));
        getsockname(fd, (struct sockaddr *)&a, &l);
        close(fd);
        p = ntohs(a.sin_port);
        for (i = 0; i < ngiven && given[i] != p; i++)
            ;
        if (i == ngiven) {
            given[ngiven++ % 64] = p;
            return p;
        }
    }
}

static struct vd_can_cfg udp_cfg(const char *name, uint16_t lport, uint16_t rport, bool fd)
{
    struct vd_can_cfg c;

    vd_can_cfg_init(&c, VD_CAN_UDP);
    snprintf(c.name, sizeof(c.name), "%s", name);
    c.local_port = lport;
    c.remote_port = rport;
    c.fd = fd;
    return c;
}

static struct vd_can_bus *must_open(const struct vd_can_cfg *c)
{
    struct vd_can_bus *b = NULL;
    int r = vd_can_open(c, &b, err, sizeof(err));

    CHECK(r == 0 && b, "open %s: %d %s", c->name, r, err);
    if (r)
        exit(1);
    return b;
}

/* a plain UDP socket on 127.0.0.1 standing in for a peer */
static int raw_sock(uint16_t *port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t l = sizeof(a);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);

    bind(fd, (struct sockaddr *)&a, sizeof(a));
    getsockname(fd, (struct sockaddr *)&a, &l);
    *port = ntohs(a.sin_port);
    return fd;
}

static void raw_send(int fd, uint16_t to, const void *buf, size_t len)
{
    struct sockaddr_in a = {
        .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK), .sin_port = htons(to)};
    ssize_t r = sendto(fd, buf, len, 0, (struct sockaddr *)&a, sizeof(a));

    CHECK(r == (ssize_t)len, "raw send of %zu bytes: %zd (%s)", len, r, strerror(errno));
}

/* receives until n frames arrived or 2 s passed */
/* ---- codec vectors ------------------------------------------------------------------------ */

struct vec {
    struct vd_can_frame f;
    const char *hex; /* the frame's bytes in a datagram (after the header) */
};

static uint8_t seqbytes[64];

static void init_vectors(struct vec *v, int *nv)
{
    int n = 0;

    for (int i = 0; i < 64; i++)
        seqbytes[i] = (uint8_t)(i + 1);
    /* classic 11-bit 0x123, 2 bytes */
    v[n].f = mkframe(0x123, 0, 2, 0);
    v[n].f.data[0] = 0x11;
    v[n].f.data[1] = 0x22;
    v[n++].hex = "00000123 02 1122";
    /* 29-bit 0x12345678 (EFF flag 0x80000000 in can_id), 8 bytes */
    v[n].f = mkframe(0x12345678, VD_CANF_EFF, 8, 0);
    memcpy(v[n].f.data, seqbytes, 8);
    v[n++].hex = "92345678 08 0102030405060708";
    /* RTR 0x7FF requesting 4 bytes: len 4, no data section */
    v[n].f = mkframe(0x7FF, VD_CANF_RTR, 4, 0);
    v[n++].hex = "400007FF 04";
    /* RTR extended 0x1 len 0 */
    v[n].f = mkframe(0x1, VD_CANF_RTR | VD_CANF_EFF, 0, 0);
    v[n++].hex = "C0000001 00";
    /* FD 0x100, 12 bytes, BRS: len 0x80|12, flags 0x01 */
    v[n].f = mkframe(0x100, VD_CANF_FD | VD_CANF_BRS, 12, 0);
    memcpy(v[n].f.data, seqbytes, 12);
    v[n++].hex = "00000100 8C 01 0102030405060708090A0B0C";
    /* FD extended 0x1ABCDEF0, 64 bytes, BRS+ESI */
    v[n].f = mkframe(0x1ABCDEF0, VD_CANF_FD | VD_CANF_EFF | VD_CANF_BRS | VD_CANF_ESI, 64, 0);
    memcpy(v[n].f.data, seqbytes, 64);
    v[n++].hex = "9ABCDEF0 C0 03 0102030405060708090A0B0C0D0E0F10"
                 "1112131415161718191A1B1C1D1E1F20"
                 "2122232425262728292A2B2C2D2E2F30"
                 "3132333435363738393A3B3C3D3E3F40";
    /* FD without BRS, 0 bytes */
    v[n].f = mkframe(0x7, VD_CANF_FD, 0, 0);
    v[n++].hex = "00000007 80 00";
    /* error frame: bus-off class 0x40 (ERR flag 0x20000000), CAN_ERR_DLC 8 */
    v[n].f = mkframe(0x40, VD_CANF_ERR, 8, 0);
    memset(v[n].f.data, 0, 8);
    v[n++].hex = "20000040 08 0000000000000000";
    /* classic id 0, empty */
    v[n].f = mkframe(0x0, 0, 0, 0);
    v[n++].hex = "00000000 00";
    *nv = n;
}

static void test_codec(void)
{
    struct vec v[16];
    int nv, used;
    uint8_t buf[2048], exp[2048];
    struct vd_can_frame fr[16], d;
    size_t len, el, off;
    uint16_t count;
    uint8_t seq;
    char s1[300], s2[300];

    init_vectors(v, &nv);
    /* each frame alone, sequence number 7 */
    for (int i = 0; i < nv; i++) {
        el = unhex("02 00 07 0001", exp, sizeof(exp));
        el += unhex(v[i].hex, exp + el, sizeof(exp) - el);
        CHECK(vd_can_frame_valid(&v[i].f, true), "vector %d valid", i);
        len = vd_can_cnl_encode(buf, sizeof(buf), 7, &v[i].f, 1, &used);
        CHECK(used == 1 && len == el && !memcmp(buf, exp, el), "vector %d: %zu bytes vs %zu", i,
              len, el);
        CHECK(vd_can_cnl_check(buf, len, true, &count, &seq) == VD_CNL_OK && count == 1 && seq == 7,
              "vector %d checks", i);
        off = VD_CNL_HEADER_SIZE;
        vd_can_cnl_decode(buf, &off, &d);
        frame_str(&v[i].f, s1, sizeof(s1));
        frame_str(&d, s2, sizeof(s2));
        CHECK(frame_eq(&d, &v[i].f) && off == len && d.t_ns == 0, "vector %d round trip: %s vs %s",
              i, s1, s2);
    }
    /* all of them in one datagram, sequence 0xFE, count 9 */
    el = unhex("02 00 FE 0009", exp, sizeof(exp));
    for (int i = 0; i < nv; i++) {
        el += unhex(v[i].hex, exp + el, sizeof(exp) - el);
        fr[i] = v[i].f;
    }
    CHECK(nv == 9, "9 vectors");
    len = vd_can_cnl_encode(buf, sizeof(buf), 0xFE, fr, nv, &used);
    CHECK(used == nv && len == el && !memcmp(buf, exp, el), "batch: %zu bytes vs %zu", len, el);
    CHECK(vd_can_cnl_check(buf, len, true, &count, &seq) == VD_CNL_OK && count == nv && seq == 0xFE,
          "batch checks");
    off = VD_CNL_HEADER_SIZE;
    for (int i = 0; i < nv; i++) {
        vd_can_cnl_decode(buf, &off, &d);
        CHECK(frame_eq(&d, &fr[i]), "batch frame %d", i);
    }
    CHECK(off == len, "batch decoded to its end");
    /* capacity: header + frames 0 and 1 (12 + 13 bytes... 7 + 13) exactly; one byte less
     * drops frame 1 */
    len = vd_can_cnl_encode(buf, 5 + 7 + 13, 1, fr, nv, &used);
    CHECK(used == 2 && len == 25 && buf[4] == 2, "cap 25: %d frames, %zu bytes", used, len);
    len = vd_can_cnl_encode(buf, 5 + 7 + 12, 1, fr, nv, &used);
    CHECK(used == 1 && len == 12 && buf[4] == 1, "cap 24: %d frames, %zu bytes", used, len);
    len = vd_can_cnl_encode(buf, 4, 1, fr, nv, &used);
    CHECK(used == 0 && len == 0, "cap below the header");
    /* the empty datagram is well-formed (cannelloni ignores it) */
    el = unhex("02 00 05 0000", exp, sizeof(exp));
    CHECK(vd_can_cnl_check(exp, el, true, &count, &seq) == VD_CNL_OK && count == 0 && seq == 5,
          "empty datagram");
}

/* a malformed datagram: hex, fd allowed, the expected error */
struct bad {
    const char *hex;
    bool fd_ok;
    enum vd_can_cnl_error e;
    const char *what;
};

static const struct bad bad_dgrams[] = {
    {"", true, VD_CNL_SHORT, "empty"},
    {"02", true, VD_CNL_SHORT, "1 byte"},
    {"02 00 00 00", true, VD_CNL_SHORT, "4-byte header"},
    {"01 00 00 0000", true, VD_CNL_VERSION_BAD, "version 1"},
    {"03 00 00 0001 00000123 01 AA", true, VD_CNL_VERSION_BAD, "version 3"},
    {"02 01 00 0000", true, VD_CNL_OPCODE, "op code ACK"},
    {"02 02 00 0000", true, VD_CNL_OPCODE, "op code NACK"},
    {"02 00 00 0002 00000123 01 AA", true, VD_CNL_TRUNCATED, "count 2, one frame"},
    {"02 00 00 FFFF", true, VD_CNL_TRUNCATED, "count 65535, no frames"},
    {"02 00 00 0001 00000123 01 AA 00000124 01 BB", true, VD_CNL_TRAILING, "count 1, two frames"},
    {"02 00 00 0001 00000123 01 AA 00", true, VD_CNL_TRAILING, "one trailing byte"},
    {"02 00 00 0000 00", true, VD_CNL_TRAILING, "count 0 and a byte"},
    {"02 00 00 0001 00000123 09 010203040506070809", true, VD_CNL_FRAME, "classic len 9"},
    {"02 00 00 0001 00000123 7F", true, VD_CNL_FRAME, "classic len 127"},
    {"02 00 00 0001 00000123 C1 00", true, VD_CNL_FRAME, "FD len 65"},
    {"02 00 00 0001 00000123 89 00 010203040506070809", true, VD_CNL_FRAME, "FD len 9"},
    {"02 00 00 0001 00000123 8D 00 0102030405060708090A0B0C0D", true, VD_CNL_FRAME, "FD len 13"},
    {"02 00 00 0001 00000123 81 00 01", false, VD_CNL_FRAME, "FD on a classic bus"},
    {"02 00 00 0001 40000123 81 00", true, VD_CNL_FRAME, "RTR with FD"},
    {"02 00 00 0001 00000800 00", true, VD_CNL_FRAME, "11-bit id 0x800"},
    {"02 00 00 0001 1FFFFFFF 00", true, VD_CNL_FRAME, "11-bit id with 29 bits"},
    {"02 00 00 0001 20000040 07 00000000000000", true, VD_CNL_FRAME, "error frame len 7"},
    {"02 00 00 0001 60000040 08", true, VD_CNL_FRAME, "error frame with RTR"},
    {"02 00 00 0001 000001", true, VD_CNL_TRUNCATED, "id cut"},
    {"02 00 00 0001 00000123", true, VD_CNL_TRUNCATED, "len missing"},
    {"02 00 00 0001 00000123 88", true, VD_CNL_TRUNCATED, "FD flags missing"},
    {"02 00 00 0001 00000123 08 01020304", true, VD_CNL_TRUNCATED, "data cut"},
    {"02 00 00 0001 00000123 8C 01 0102030405060708090A0B", true, VD_CNL_TRUNCATED, "FD data cut"},
};
#define NBAD ((int)(sizeof(bad_dgrams) / sizeof(bad_dgrams[0])))

static void test_check(void)
{
    uint8_t buf[256];
    uint16_t count = 77;
    uint8_t seq = 77;

    for (int i = 0; i < NBAD; i++) {
        size_t n = unhex(bad_dgrams[i].hex, buf, sizeof(buf));
        enum vd_can_cnl_error e = vd_can_cnl_check(buf, n, bad_dgrams[i].fd_ok, &count, &seq);

        CHECK(e == bad_dgrams[i].e, "%s: error %d, expected %d", bad_dgrams[i].what, (int)e,
              (int)bad_dgrams[i].e);
    }
    CHECK(count == 77 && seq == 77, "a rejected datagram sets nothing");
    /* the same frames well-formed pass: FD len 64 and 12, 29-bit ids, RTR len 8 */
    {
        size_t n = unhex("02 00 09 0003 9FFFFFFF 08 01020304050607FF 40000123 08 "
                         "00000123 8C 00 0102030405060708090A0B0C",
                         buf, sizeof(buf));

        CHECK(vd_can_cnl_check(buf, n, true, &count, &seq) == VD_CNL_OK && count == 3 && seq == 9,
              "well-formed mixed datagram");
    }
    /* fuzz: mutations of a valid datagram never crash; whatever is accepted decodes into
     * valid frames filling exactly the datagram */
    {
        struct vec v[16];
        struct vd_can_frame fr[16];
        uint8_t good[2048], m[2048];
        int nv, used, accepted = 0, rejected = 0, bad = 0;
        size_t gl;

        init_vectors(v, &nv);
        for (int i = 0; i < nv; i++)
            fr[i] = v[i].f;
        gl = vd_can_cnl_encode(good, sizeof(good), 3, fr, nv, &used);
        for (int it = 0; it < 200000; it++) {
            size_t ml = gl;
            int flips = 1 + (int)vt_uniform(0, 4);
            bool fd_ok = it & 1;

            memcpy(m, good, gl);
            for (int k = 0; k < flips; k++) {
                size_t pos = (size_t)vt_uniform(0, (double)gl);

                m[pos] = (uint8_t)(m[pos] ^ (1u << (int)vt_uniform(0, 8)));
            }
            if (it % 7 == 0) /* and cut or extend */
                ml = (size_t)vt_uniform(0, (double)gl + 8);
            if (vd_can_cnl_check(m, ml, fd_ok, &count, &seq) == VD_CNL_OK) {
                size_t off = VD_CNL_HEADER_SIZE;

                accepted++;
                for (unsigned k = 0; k < count; k++) {
                    struct vd_can_frame d;

                    vd_can_cnl_decode(m, &off, &d);
                    bad += !vd_can_frame_valid(&d, fd_ok);
                }
                bad += off != ml;
            } else {
                rejected++;
            }
        }
        CHECK(bad == 0, "fuzz: %d accepted datagrams decoded into invalid frames", bad);
        CHECK(accepted > 1000 && rejected > 1000, "fuzz exercised both: %d accepted, %d rejected",
              accepted, rejected);
        printf("fuzz: 200000 mutated datagrams, %d accepted (all frames valid), %d rejected\n",
               accepted, rejected);
    }
}

/* ---- end to end -------------------------------------------------------------------------------
 */

static void test_pair(void)
{
    uint16_t pa = free_port(), pb = free_port();
    struct vd_can_cfg ca = udp_cfg("A", pa, pb, true), cb = udp_cfg("B", pb, pa, true);
    struct vd_can_bus *a = must_open(&ca), *b = must_open(&cb);
    struct vd_can_frame tx[8], rx[8];
    int n;

    CHECK(vd_can_local_port(a) == pa && vd_can_local_port(b) == pb, "bound ports");
    CHECK(strstr(vd_can_describe(a), "udp (cannelloni v2)") != NULL, "describe: %s",
          vd_can_describe(a));
    printf("%s\n", vd_can_describe(a));
    n = roundtrip8(a, b, 8, tx, rx);
    {
        STATS(a, sa);
        STATS(b, sb);
        char line[1024];

        CHECK(sa.tx_frames == 8 && sa.tx_datagrams == 8 && sa.tx_dropped == 0 &&
                  sa.tx_invalid == 0 && sa.tx_errors == 0,
              "A tx counters");
        CHECK(sb.rx_frames == 8 && sb.rx_datagrams == 8 && sb.rx_malformed == 0 &&
                  sb.udp_seq_lost == 0 && sb.udp_seq_reorder == 0 && sb.rx_overflow == 0 &&
                  sb.rx_foreign == 0 && sb.rx_filtered == 0,
              "B rx counters");
        vd_can_stats_format(&sb, line, sizeof(line));
        CHECK(!strcmp(line, "rx_frames=8 rx_datagrams=8"), "stats line '%s'", line);
    }

    /* batching: 200 frames of mixed sizes; datagram count from the sizes alone */
    {
        struct vd_can_frame many[200], got[200];
        size_t fill = 5;
        int dgrams = 1, ok = 1;

        for (int i = 0; i < 200; i++) {
            unsigned k = (unsigned)i % 4;

            many[i] = k == 0   ? mkframe((uint32_t)i, 0, (unsigned)i % 9, (unsigned)i)
                      : k == 1 ? mkframe(0x10000u + (uint32_t)i, VD_CANF_EFF, 8, (unsigned)i)
                      : k == 2 ? mkframe((uint32_t)i, VD_CANF_FD | VD_CANF_BRS, 64, (unsigned)i)
                               : mkframe((uint32_t)i, VD_CANF_RTR, 8, 0);
        }
        for (int i = 0; i < 200; i++) {
            size_t sz = 5 + ((many[i].flags & VD_CANF_FD) ? 1u : 0u) +
                        ((many[i].flags & VD_CANF_RTR) ? 0u : many[i].len);

            if (fill + sz > 1472) {
                dgrams++;
                fill = 5;
            }
            fill += sz;
        }
        CHECK(vd_can_send_many(a, many, 200) == 200, "send_many 200");
        /* read 7 at a time: datagrams are delivered across calls */
        n = recv_n(b, got, 200, 7, 2000);
        CHECK(n == 200, "received %d of 200", n);
        for (int i = 0; i < n; i++)
            ok &= frame_eq(&many[i], &got[i]);
        CHECK(ok, "batched frames in order and intact");
        STATS(a, sa);
        STATS(b, sb);
        CHECK(sa.tx_frames == 208 && sa.tx_datagrams == 8 + (uint64_t)dgrams,
              "A: %llu frames in %llu datagrams, expected %d datagrams for the batch",
              (unsigned long long)sa.tx_frames, (unsigned long long)sa.tx_datagrams, dgrams);
        CHECK(sb.rx_datagrams == 8 + (uint64_t)dgrams && sb.rx_frames == 208 &&
                  sb.udp_seq_lost == 0,
              "B: %llu datagrams", (unsigned long long)sb.rx_datagrams);
        CHECK(!vd_can_rx_pending(b), "nothing pending");
        printf("batching: 200 frames (50 classic, 50 EFF, 50 FD-64, 50 RTR) in %d datagrams of "
               "<= 1472 bytes\n",
               dgrams);
    }

    /* recv: no frame within the timeout returns 0 */
    {
        int64_t s = now_ns();

        n = vd_can_recv(b, rx, 8, 30);
        CHECK(n == 0 && now_ns() - s >= 25000000, "timeout: %d after %lld ns", n,
              (long long)(now_ns() - s));
        CHECK(vd_can_recv(b, rx, 8, 0) == 0, "no wait");
        CHECK(vd_can_recv(b, rx, 0, 0) == -EINVAL, "max 0");
    }

    /* no allocation in send, send_many, recv, service */
    {
        struct vd_can_frame many[40], got[64];
        int sent = 0, recvd = 0;

        for (int i = 0; i < 40; i++)
            many[i] = mkframe((uint32_t)i, (i & 1) ? VD_CANF_FD : 0, 8, (unsigned)i);
        calls = 0;
        armed = 1;
        for (int it = 0; it < 200; it++) {
            sent += vd_can_send(a, &many[it % 40]) == 0;
            sent += vd_can_send_many(a, many, 40);
            for (int k = 0; k < 10 && recvd < sent; k++)
                recvd += vd_can_recv(b, got, 64, 100);
            vd_can_service(b, now_ns());
        }
        armed = 0;
        CHECK(sent == 200 * 41 && recvd == sent, "noalloc loop: %d sent, %d received", sent, recvd);
        CHECK(!ALLOC_COUNTING || calls == 0, "%ld allocations in send/recv/service", (long)calls);
    }
    vd_can_close(a);
    vd_can_close(b);
}

/* one endpoint C fed by a raw socket standing in for its remote */
static void test_crafted(void)
{
    uint16_t pr, pc = free_port(), pf;
    int r = raw_sock(&pr), foreign = raw_sock(&pf);
    struct vd_can_cfg cc = udp_cfg("C", pc, pr, true);
    struct vd_can_bus *c;
    struct vd_can_frame rx[1000];
    uint8_t buf[65536];
    size_t n;
    uint64_t mal_by[VD_CNL_TRAILING + 1] = {0};
    int got;

    cc.err_mask = VD_CAN_ERR_BUSOFF | VD_CAN_ERR_CRTL | VD_CAN_ERR_RESTARTED;
    c = must_open(&cc);

    /* sequence numbers: 0 1 2 5 (2 lost) 6 3 (behind) 7; 100 (92 lost); 0 1 2 (behind x3:
     * resync at the third) 3 */
    {
        static const int seqs[] = {0, 1, 2, 5, 6, 3, 7, 100, 0, 1, 2, 3};
        struct vd_can_frame f = mkframe(0x55, 0, 1, 0);
        int used;

        for (int i = 0; i < 12; i++) {
            n = vd_can_cnl_encode(buf, sizeof(buf), (uint8_t)seqs[i], &f, 1, &used);
            raw_send(r, pc, buf, n);
        }
        got = recv_n(c, rx, 12, 64, 2000);
        CHECK(got == 12, "sequence datagrams: %d of 12", got);
        STATS(c, s);
        CHECK(s.udp_seq_lost == 2 + 92 && s.udp_seq_reorder == 1 + 3 && s.rx_datagrams == 12,
              "seq: lost %llu (2 + 92), behind %llu (1 + 3)", (unsigned long long)s.udp_seq_lost,
              (unsigned long long)s.udp_seq_reorder);
        /* after the resync at seq 2, seq 3 was in order: next is 4 */
        n = vd_can_cnl_encode(buf, sizeof(buf), 4, &f, 1, &used);
        raw_send(r, pc, buf, n);
        got = recv_n(c, rx, 1, 64, 2000);
        vd_can_stats(c, &s);
        CHECK(got == 1 && s.udp_seq_lost == 94 && s.udp_seq_reorder == 4, "in sequence again");
    }

    /* every malformed datagram rejected and counted by reason; sequence numbers 5.. in order
     * where the header is good, so no datagram is counted lost besides */
    {
        struct vd_can_stats s0, s;
        int seq = 5, good = 0;

        vd_can_stats(c, &s0);
        for (int i = 0; i < NBAD; i++) {
            if (!bad_dgrams[i].fd_ok) /* C allows FD: this case is on a classic bus below */
                continue;
            n = unhex(bad_dgrams[i].hex, buf, sizeof(buf));
            if (n >= 5 && buf[0] == 2 && buf[1] == 0)
                buf[2] = (uint8_t)seq++;
            raw_send(r, pc, buf, n);
            mal_by[bad_dgrams[i].e]++;
            /* a good datagram after each bad one still passes */
            n = unhex("02 00 00 0001 00000321 02 BEEF", buf, sizeof(buf));
            buf[2] = (uint8_t)seq++;
            raw_send(r, pc, buf, n);
            good++;
        }
        got = recv_n(c, rx, good, 64, 2000);
        CHECK(got == good, "good datagrams between the bad ones: %d of %d", got, good);
        for (int i = 0; i < got; i++)
            CHECK(rx[i].id == 0x321 && rx[i].len == 2 && rx[i].data[0] == 0xBE, "good frame %d", i);
        /* give the kernel's queue a moment to be read through */
        CHECK(vd_can_recv(c, rx, 8, 50) == 0, "nothing else delivered");
        vd_can_stats(c, &s);
        CHECK(s.rx_mal_short - s0.rx_mal_short == mal_by[VD_CNL_SHORT], "short %llu",
              (unsigned long long)(s.rx_mal_short - s0.rx_mal_short));
        CHECK(s.rx_mal_version - s0.rx_mal_version == mal_by[VD_CNL_VERSION_BAD], "version");
        CHECK(s.rx_mal_opcode - s0.rx_mal_opcode == mal_by[VD_CNL_OPCODE], "opcode");
        CHECK(s.rx_mal_frame - s0.rx_mal_frame == mal_by[VD_CNL_FRAME], "frame %llu vs %llu",
              (unsigned long long)(s.rx_mal_frame - s0.rx_mal_frame),
              (unsigned long long)mal_by[VD_CNL_FRAME]);
        CHECK(s.rx_mal_truncated - s0.rx_mal_truncated == mal_by[VD_CNL_TRUNCATED], "truncated");
        CHECK(s.rx_mal_trailing - s0.rx_mal_trailing == mal_by[VD_CNL_TRAILING], "trailing");
        CHECK(s.rx_malformed - s0.rx_malformed == (uint64_t)(NBAD - 1), "malformed total %llu",
              (unsigned long long)(s.rx_malformed - s0.rx_malformed));
        CHECK(s.rx_frames - s0.rx_frames == (uint64_t)good &&
                  s.rx_datagrams - s0.rx_datagrams == (uint64_t)good,
              "only the good ones delivered");
        CHECK(s.udp_seq_lost == s0.udp_seq_lost && s.udp_seq_reorder == s0.udp_seq_reorder,
              "malformed datagrams with a good header keep the sequence");
        printf("malformed: %d kinds rejected (short %llu, version %llu, opcode %llu, frame %llu, "
               "truncated %llu, trailing %llu), %d good datagrams between them delivered\n",
               NBAD - 1, (unsigned long long)mal_by[VD_CNL_SHORT],
               (unsigned long long)mal_by[VD_CNL_VERSION_BAD],
               (unsigned long long)mal_by[VD_CNL_OPCODE], (unsigned long long)mal_by[VD_CNL_FRAME],
               (unsigned long long)mal_by[VD_CNL_TRUNCATED],
               (unsigned long long)mal_by[VD_CNL_TRAILING], good);
    }

    /* a 935-frame datagram of 65455 bytes (FD, 64 bytes each), read 1000 at most */
    {
        static struct vd_can_frame big[935];
        int used, ok = 1;
        size_t len;

        for (int i = 0; i < 935; i++)
            big[i] = mkframe((uint32_t)i & 0x7FF, VD_CANF_FD | VD_CANF_BRS, 64, (unsigned)i);
        len = vd_can_cnl_encode(buf, sizeof(buf), 0, big, 935, &used);
        CHECK(used == 935 && len == 5 + 935 * 70, "big datagram %zu bytes", len);
        raw_send(r, pc, buf, len);
        got = recv_n(c, rx, 935, 1000, 2000);
        for (int i = 0; i < got; i++)
            ok &= frame_eq(&rx[i], &big[i]);
        CHECK(got == 935 && ok, "big datagram: %d frames", got);
    }

    /* a sender other than the remote: counted, not delivered */
    {
        struct vd_can_frame f = mkframe(0x99, 0, 1, 0);
        int used;
        STATS(c, s0);

        n = vd_can_cnl_encode(buf, sizeof(buf), 0, &f, 1, &used);
        raw_send(foreign, pc, buf, n);
        CHECK(vd_can_recv(c, rx, 8, 50) == 0, "foreign datagram not delivered");
        STATS(c, s);
        CHECK(s.rx_foreign - s0.rx_foreign == 1 && s.rx_frames == s0.rx_frames, "foreign counted");
    }

    /* error frames over UDP: the mask in software, classes counted, the state followed */
    {
        struct vd_can_frame e[6];
        int used;
        STATS(c, s0);

        e[0] = mkframe(VD_CAN_ERR_LOSTARB, VD_CANF_ERR, 8, 0); /* not in C's mask */
        memset(e[0].data, 0, 8);
        e[1] = e[0];
        e[1].id = VD_CAN_ERR_CRTL;
        e[1].data[1] = 0x08; /* TX warning */
        e[2] = e[1];
        e[2].data[1] = 0x20 | 0x01; /* TX passive + RX overflow */
        e[3] = e[0];
        e[3].id = VD_CAN_ERR_BUSOFF;
        e[4] = e[0];
        e[4].id = VD_CAN_ERR_RESTARTED;
        e[5] = mkframe(0x42, 0, 1, 0);
        CHECK(vd_can_bus_state(c) == VD_CAN_STATE_UNKNOWN, "udp state unknown at first");
        n = vd_can_cnl_encode(buf, sizeof(buf), 0, e, 4, &used);
        raw_send(r, pc, buf, n);
        got = recv_n(c, rx, 1, 8, 2000);
        CHECK(got == 0 && vd_can_bus_state(c) == VD_CAN_STATE_BUS_OFF,
              "error frames not delivered; bus-off: %s", vd_can_state_name(vd_can_bus_state(c)));
        STATS(c, s);
        CHECK(s.rx_filtered - s0.rx_filtered == 1 && s.err_frames - s0.err_frames == 3 &&
                  s.err_crtl - s0.err_crtl == 2 && s.err_busoff - s0.err_busoff == 1 &&
                  s.err_lostarb == s0.err_lostarb && s.error_warning - s0.error_warning == 1 &&
                  s.error_passive - s0.error_passive == 1 && s.bus_off - s0.bus_off == 1 &&
                  s.ctrl_rx_overflow - s0.ctrl_rx_overflow == 1,
              "error classes and state entries");
        n = vd_can_cnl_encode(buf, sizeof(buf), 1, e + 4, 2, &used);
        raw_send(r, pc, buf, n);
        got = recv_n(c, rx, 1, 8, 2000);
        CHECK(got == 1 && rx[0].id == 0x42 && vd_can_bus_state(c) == VD_CAN_STATE_ERROR_ACTIVE,
              "restarted: error-active, data frame delivered");
        vd_can_stats(c, &s);
        CHECK(s.err_restarted - s0.err_restarted == 1 && s.bus_off - s0.bus_off == 1,
              "restart counted once");
    }
    vd_can_close(c);

    /* a classic bus: an FD frame makes the datagram malformed; rx_err_frames delivers them */
    {
        uint16_t pd = free_port();
        struct vd_can_cfg cd = udp_cfg("D", pd, pr, false);
        struct vd_can_bus *d;
        struct vd_can_frame f[2];
        int used;

        cd.rx_err_frames = true;
        d = must_open(&cd);
        n = unhex("02 00 00 0001 00000123 81 00 01", buf, sizeof(buf));
        raw_send(r, pd, buf, n);
        f[0] = mkframe(VD_CAN_ERR_BUSOFF, VD_CANF_ERR, 8, 0);
        f[1] = mkframe(0x5, 0, 2, 9);
        n = vd_can_cnl_encode(buf, sizeof(buf), 1, f, 2, &used);
        raw_send(r, pd, buf, n);
        got = recv_n(d, rx, 2, 8, 2000);
        CHECK(got == 2 && frame_eq(&rx[0], &f[0]) && frame_eq(&rx[1], &f[1]),
              "error frame delivered with rx_err_frames");
        STATS(d, s);
        CHECK(s.rx_mal_frame == 1 && s.rx_malformed == 1 && s.rx_frames == 2 && s.err_frames == 1 &&
                  s.bus_off == 1,
              "classic bus counters");
        vd_can_close(d);
    }
    close(r);
    close(foreign);
}

static void test_filters_and_tx(void)
{
    uint16_t pa = free_port(), pb = free_port();
    struct vd_can_cfg ca = udp_cfg("A", pa, pb, false), cb = udp_cfg("B", pb, pa, true);
    struct vd_can_bus *a, *b;
    struct vd_can_frame rx[16], f[8];
    int got;

    ca.tx_err_frames = false;
    cb.nfilters = 2;
    cb.filters[0] = (struct vd_can_filter){.id = 0x100, .mask = 0x7F0, .ext = false};
    cb.filters[1] = (struct vd_can_filter){.id = 0x18DAF100, .mask = 0x1FFFFF00, .ext = true};
    a = must_open(&ca);
    b = must_open(&cb);

    /* filters: 0x100..0x10F standard, 0x18DAF1xx extended; the same numbers in the other
     * format do not pass */
    f[0] = mkframe(0x105, 0, 1, 0);
    f[1] = mkframe(0x110, 0, 1, 0);
    f[2] = mkframe(0x18DAF1AA, VD_CANF_EFF, 1, 0);
    f[3] = mkframe(0x18DAF2AA, VD_CANF_EFF, 1, 0);
    f[4] = mkframe(0x105, VD_CANF_EFF, 1, 0);
    f[5] = mkframe(0x10F, VD_CANF_RTR, 2, 0);
    CHECK(vd_can_send_many(a, f, 6) == 6, "send 6");
    got = recv_n(b, rx, 3, 16, 2000);
    CHECK(vd_can_recv(b, rx + got, 8, 50) == 0, "nothing beyond the filters");
    CHECK(got == 3 && rx[0].id == 0x105 && rx[1].id == 0x18DAF1AA && rx[2].id == 0x10F,
          "filtered: %d frames", got);
    {
        STATS(b, s);
        CHECK(s.rx_filtered == 3 && s.rx_frames == 3, "rx_filtered %llu",
              (unsigned long long)s.rx_filtered);
    }

    /* invalid frames refused one by one, the others still sent */
    {
        struct vd_can_frame bad[8];
        STATS(a, s0);

        bad[0] = mkframe(0x800, 0, 1, 0);                       /* 11-bit id too large */
        bad[1] = mkframe(0x20000000, VD_CANF_EFF, 1, 0);        /* 29-bit id too large */
        bad[2] = mkframe(0x1, 0, 9, 0);                         /* classic len 9 */
        bad[3] = mkframe(0x1, VD_CANF_FD, 8, 0);                /* FD on a classic bus */
        bad[4] = mkframe(0x1, VD_CANF_BRS, 1, 0);               /* BRS without FD */
        bad[5] = mkframe(VD_CAN_ERR_BUSOFF, VD_CANF_ERR, 8, 0); /* no tx_err_frames */
        bad[6] = mkframe(0x2, 0, 2, 0);                         /* fine */
        bad[7] = mkframe(0x1, 0x80, 1, 0);                      /* unknown flag */
        for (int i = 0; i < 8; i++)
            if (i != 6)
                CHECK(vd_can_send(a, &bad[i]) == -EINVAL, "bad frame %d refused", i);
        CHECK(vd_can_send_many(a, bad, 8) == 1, "send_many sends the good one");
        STATS(a, s);
        CHECK(s.tx_invalid - s0.tx_invalid == 14 && s.tx_frames - s0.tx_frames == 1 &&
                  s.tx_datagrams - s0.tx_datagrams == 1,
              "tx_invalid %llu", (unsigned long long)(s.tx_invalid - s0.tx_invalid));
    }
    {
        struct vd_can_frame fd = mkframe(0x1, VD_CANF_FD, 12, 0), ok = mkframe(0x2, 0, 1, 0);

        CHECK(vd_can_frame_valid(&fd, true) && !vd_can_frame_valid(&fd, false), "fd_ok");
        fd.len = 13;
        CHECK(!vd_can_frame_valid(&fd, true), "FD len 13");
        ok.flags = VD_CANF_RTR | VD_CANF_FD;
        CHECK(!vd_can_frame_valid(&ok, true), "RTR with FD");
    }

    /* TX policy under injected errors */
    {
        struct vd_can_frame x = mkframe(0x7, 0, 1, 0), batch[30];
        int64_t s;
        STATS(a, s0);

        /* drop at once (tx_wait_us 0) */
        fault_n = 1;
        fault_errno = ENOBUFS;
        CHECK(vd_can_send(a, &x) == -EAGAIN, "ENOBUFS: dropped");
        fault_n = 1;
        fault_errno = EAGAIN;
        CHECK(vd_can_send(a, &x) == -EAGAIN, "EAGAIN: dropped");
        /* a whole datagram of 30 frames dropped */
        for (int i = 0; i < 30; i++)
            batch[i] = mkframe((uint32_t)i, 0, 8, (unsigned)i);
        fault_n = 1;
        CHECK(vd_can_send_many(a, batch, 30) == 0, "batch dropped");
        /* other errors */
        fault_n = 1;
        fault_errno = ENETDOWN;
        CHECK(vd_can_send(a, &x) == -ENETDOWN, "ENETDOWN: lost");
        STATS(a, s1);
        CHECK(s1.tx_dropped - s0.tx_dropped == 32 && s1.tx_errors - s0.tx_errors == 1 &&
                  s1.tx_frames == s0.tx_frames && s1.tx_retries == s0.tx_retries &&
                  s1.tx_datagrams == s0.tx_datagrams,
              "dropped 32, errors 1");
        vd_can_close(a);

        /* bounded wait: one EAGAIN then room (POLLOUT), two ENOBUFS then a retry each (a
         * generous bound, so a slow machine still retries in time) */
        ca.tx_wait_us = 500000;
        a = must_open(&ca);
        fault_n = 1;
        fault_errno = EAGAIN;
        CHECK(vd_can_send(a, &x) == 0, "EAGAIN then sent");
        fault_n = 2;
        fault_errno = ENOBUFS;
        CHECK(vd_can_send(a, &x) == 0, "ENOBUFS twice then sent");
        STATS(a, s2);
        CHECK(s2.tx_retries == 3 && s2.tx_frames == 2 && s2.tx_dropped == 0, "retries %llu",
              (unsigned long long)s2.tx_retries);
        /* no room for good: given up after the bound (5 ms; 1 s is far beyond any
         * scheduling delay, the point is that it returns) */
        vd_can_close(a);
        ca.tx_wait_us = 5000;
        a = must_open(&ca);
        fault_n = 1000000;
        fault_errno = ENOBUFS;
        s = now_ns();
        CHECK(vd_can_send(a, &x) == -EAGAIN, "gave up");
        s = now_ns() - s;
        fault_n = 0;
        STATS(a, s3);
        CHECK(s >= 5000000 && s < 1000000000, "waited %lld ns for a 5 ms bound", (long long)s);
        CHECK(s3.tx_dropped == 1 && s3.tx_retries >= 1 && s3.tx_retries <= 50 + 1,
              "bounded retries %llu (100 us back-off: at most 51)",
              (unsigned long long)s3.tx_retries);
        printf("tx policy: drop at once (32 dropped, 1 ENETDOWN), wait: EAGAIN/ENOBUFS "
               "retried (3 retries), persistent ENOBUFS given up after %.1f ms with %llu "
               "retries\n",
               (double)s / 1e6, (unsigned long long)s3.tx_retries);
    }
    /* B receives what A sent (drain), then no remote: send is an error */
    while (vd_can_recv(b, rx, 16, 20) > 0)
        ;
    vd_can_close(a);
    vd_can_close(b);
    {
        uint16_t p = free_port();
        struct vd_can_cfg co = udp_cfg("rxonly", p, 0, false);
        struct vd_can_bus *o = must_open(&co);
        struct vd_can_frame x = mkframe(0x7, 0, 1, 0);

        CHECK(vd_can_send(o, &x) == -EDESTADDRREQ, "no remote");
        STATS(o, s);
        CHECK(s.tx_errors == 1 && s.tx_frames == 0, "no remote counted");
        CHECK(strstr(vd_can_describe(o), "receive only") != NULL, "describe: receive only");
        vd_can_close(o);
    }
}

/* kernel receive overflow: a small receive buffer flooded; received + dropped = sent */
static void test_overflow(void)
{
    uint16_t pr, pe = free_port();
    int r = raw_sock(&pr);
    struct vd_can_cfg ce = udp_cfg("E", pe, pr, false);
    struct vd_can_bus *e;
    struct vd_can_frame f = mkframe(0x1, 0, 8, 0), rx[64];
    uint8_t buf[64];
    int used, got = 0, k;
    size_t n;

    ce.rcvbuf = 4096; /* the kernel doubles it; a few datagrams fit */
    e = must_open(&ce);
    for (int i = 0; i < 500; i++) {
        n = vd_can_cnl_encode(buf, sizeof(buf), (uint8_t)i, &f, 1, &used);
        raw_send(r, pe, buf, n);
    }
    while ((k = vd_can_recv(e, rx, 64, 50)) > 0)
        got += k;
    /* the drops came after the last queued datagram: the next one carries the count in its
     * SO_RXQ_OVFL message; vd_can_service (SO_MEMINFO) agrees and adds nothing */
    {
        STATS(e, s0);

        CHECK(s0.rx_overflow == 0, "no drop reported before a message carries it: %llu",
              (unsigned long long)s0.rx_overflow);
    }
    n = vd_can_cnl_encode(buf, sizeof(buf), 0, &f, 1, &used);
    raw_send(r, pe, buf, n);
    got += recv_n(e, rx, 1, 64, 2000);
    {
        STATS(e, s1);

        CHECK(s1.rx_overflow > 0 && s1.rx_overflow + (uint64_t)got == 501,
              "SO_RXQ_OVFL: %d received + %llu dropped = 501", got,
              (unsigned long long)s1.rx_overflow);
    }
    vd_can_service(e, now_ns());
    STATS(e, s);
    CHECK(s.rx_overflow > 0 && s.rx_overflow + (uint64_t)got == 501,
          "overflow: %d received + %llu dropped = 501", got, (unsigned long long)s.rx_overflow);
    /* the gaps the drops made in the sequence are also seen there */
    CHECK(s.udp_seq_lost <= s.rx_overflow, "seq lost %llu <= dropped %llu",
          (unsigned long long)s.udp_seq_lost, (unsigned long long)s.rx_overflow);
    printf("overflow: 500 + 1 datagrams into a %d-byte buffer: %d received, %llu dropped "
           "(SO_RXQ_OVFL, SO_MEMINFO agrees), %llu seen as sequence gaps\n",
           ce.rcvbuf, got, (unsigned long long)s.rx_overflow, (unsigned long long)s.udp_seq_lost);
    vd_can_close(e);
    close(r);
}

/* several buses served from one thread with poll() */
static void test_poll_many(void)
{
    uint16_t p[4];
    struct vd_can_bus *b[4];
    struct vd_can_frame f, rx[8];
    int got[4] = {0, 0, 0, 0};
    int64_t end;

    for (int i = 0; i < 4; i++)
        p[i] = free_port();
    for (int i = 0; i < 4; i++) { /* 0 <-> 1, 2 <-> 3 */
        struct vd_can_cfg c = udp_cfg("P", p[i], p[i ^ 1], false);

        b[i] = must_open(&c);
    }
    for (int i = 0; i < 4; i++) {
        f = mkframe((uint32_t)i, 0, 1, 0);
        for (int k = 0; k < 5 * (i + 1); k++)
            vd_can_send(b[i], &f);
    }
    end = now_ns() + 2000000000;
    while ((got[0] < 10 || got[1] < 5 || got[2] < 20 || got[3] < 15) && now_ns() < end) {
        struct pollfd pf[4];

        for (int i = 0; i < 4; i++)
            pf[i] = (struct pollfd){.fd = vd_can_poll_fd(b[i]), .events = POLLIN};
        if (poll(pf, 4, 100) <= 0)
            continue;
        for (int i = 0; i < 4; i++)
            if ((pf[i].revents & POLLIN) || vd_can_rx_pending(b[i])) {
                int k = vd_can_recv(b[i], rx, 8, 0);

                for (int j = 0; j < k; j++)
                    CHECK(rx[j].id == (uint32_t)(i ^ 1), "bus %d got a frame from its peer", i);
                got[i] += k > 0 ? k : 0;
            }
    }
    CHECK(got[0] == 10 && got[1] == 5 && got[2] == 20 && got[3] == 15,
          "polled: %d %d %d %d of 10 5 20 15", got[0], got[1], got[2], got[3]);
    for (int i = 0; i < 4; i++)
        vd_can_close(b[i]);
}

/* a sender thread, the receiving main thread, and a reader of the counters */
struct thr {
    struct vd_can_bus *a, *b;
    _Atomic int stop;
    uint64_t reads;
};

static void *sender(void *p)
{
    struct thr *t = p;
    struct vd_can_frame f[10];

    for (int i = 0; i < 10; i++)
        f[i] = mkframe((uint32_t)i, 0, 8, (unsigned)i);
    for (int i = 0; i < 1000; i++)
        vd_can_send_many(t->a, f, (i % 10) + 1);
    return NULL;
}

static void *reader(void *p)
{
    struct thr *t = p;

    while (!atomic_load(&t->stop)) {
        struct vd_can_stats s;

        vd_can_stats(t->b, &s);
        vd_can_stats(t->a, &s);
        t->reads++;
    }
    return NULL;
}

static void test_threads(void)
{
    uint16_t pa = free_port(), pb = free_port();
    struct vd_can_cfg ca = udp_cfg("A", pa, pb, false), cb = udp_cfg("B", pb, pa, false);
    struct thr t = {.stop = 0};
    pthread_t ts, tr;
    struct vd_can_frame rx[64];
    int64_t end;
    uint64_t got = 0;

    cb.rcvbuf = 4 << 20;
    ca.tx_wait_us = 10000;
    t.a = must_open(&ca);
    t.b = must_open(&cb);
    pthread_create(&tr, NULL, reader, &t);
    pthread_create(&ts, NULL, sender, &t);
    end = now_ns() + 5000000000;
    while (got < 5500 && now_ns() < end) {
        int k = vd_can_recv(t.b, rx, 64, 100);

        got += k > 0 ? (uint64_t)k : 0;
        vd_can_service(t.b, now_ns());
    }
    pthread_join(ts, NULL);
    while (vd_can_recv(t.b, rx, 64, 50) > 0)
        ;
    vd_can_service(t.b, now_ns());
    atomic_store(&t.stop, 1);
    pthread_join(tr, NULL);
    {
        STATS(t.a, sa);
        STATS(t.b, sb);

        /* 1000 datagrams of 1..10 frames: 5500 frames; every frame accounted for on both
         * sides (a dropped datagram's frames are counted dropped at A or overflowed at B) */
        CHECK(sa.tx_frames + sa.tx_dropped == 5500 && sa.tx_datagrams <= 1000,
              "A: %llu sent + %llu dropped", (unsigned long long)sa.tx_frames,
              (unsigned long long)sa.tx_dropped);
        CHECK(sb.rx_datagrams + sb.rx_overflow == sa.tx_datagrams,
              "B: %llu datagrams + %llu overflowed = %llu sent",
              (unsigned long long)sb.rx_datagrams, (unsigned long long)sb.rx_overflow,
              (unsigned long long)sa.tx_datagrams);
        CHECK(sb.rx_overflow || sb.rx_frames == sa.tx_frames, "B frames %llu",
              (unsigned long long)sb.rx_frames);
        printf("threads: %llu frames in %llu datagrams sent, %llu received, %llu counter reads "
               "meanwhile\n",
               (unsigned long long)sa.tx_frames, (unsigned long long)sa.tx_datagrams,
               (unsigned long long)sb.rx_frames, (unsigned long long)t.reads);
    }
    vd_can_close(t.a);
    vd_can_close(t.b);
}

static void test_config(void)
{
    struct vd_can_cfg c;
    struct vd_can_bus *b = (struct vd_can_bus *)1;
    char host[64];
    uint16_t port = 0;
    int r;

    /* host:port */
    CHECK(vd_can_parse_hostport("127.0.0.1:20000", host, sizeof(host), &port, err, sizeof(err)) ==
                  0 &&
              !strcmp(host, "127.0.0.1") && port == 20000,
          "host:port");
    CHECK(vd_can_parse_hostport("[::1]:9", host, sizeof(host), &port, err, sizeof(err)) == 0 &&
              !strcmp(host, "::1") && port == 9,
          "[v6]:port");
    CHECK(vd_can_parse_hostport(":5", host, sizeof(host), &port, err, sizeof(err)) == 0 &&
              !host[0] && port == 5,
          ":port");
    CHECK(vd_can_parse_hostport("ecu.local:65535", host, sizeof(host), &port, err, sizeof(err)) ==
                  0 &&
              port == 65535,
          "name:65535");
    static const char *const bad[] = {"127.0.0.1", "h:65536", "h:",    "h:-1",
                                      "h:1x",      "::1:5",   "[::1]5"};
    for (int i = 0; i < 7; i++) {
        err[0] = 0;
        CHECK(vd_can_parse_hostport(bad[i], host, sizeof(host), &port, err, sizeof(err)) ==
                      -EINVAL &&
                  strstr(err, bad[i]),
              "'%s' refused: %s", bad[i], err);
    }

    /* config errors name the bus, the backend and the field */
#define BADCFG(kind, stmt, needle)                                                                 \
    do {                                                                                           \
        vd_can_cfg_init(&c, kind);                                                                 \
        snprintf(c.name, sizeof(c.name), "chassis");                                               \
        stmt;                                                                                      \
        r = vd_can_open(&c, &b, err, sizeof(err));                                                 \
        CHECK(r == -EINVAL && b == NULL && strstr(err, "can bus 'chassis'") &&                     \
                  strstr(err, needle),                                                             \
              "%s: %d '%s'", #stmt, r, err);                                                       \
    } while (0)
    BADCFG(VD_CAN_UDP, c.udp_max_payload = 74, "udp_max_payload 74");
    BADCFG(VD_CAN_UDP, c.udp_max_payload = 65508, "udp_max_payload");
    BADCFG(VD_CAN_UDP, c.tx_wait_us = -1, "tx_wait_us");
    BADCFG(VD_CAN_UDP, c.rcvbuf = -5, "rcvbuf");
    BADCFG(VD_CAN_UDP, c.err_mask = 0x400, "err_mask 0x400");
    BADCFG(VD_CAN_UDP, (c.nfilters = 1, c.filters[0].id = 0x800), "filters[0]");
    BADCFG(VD_CAN_UDP, c.nfilters = VD_CAN_MAX_FILTERS + 1, "filters");
    BADCFG(VD_CAN_UDP, c.kind = (enum vd_can_kind)7, "kind 7");
    BADCFG(VD_CAN_SOCKETCAN, c.ifname[0] = 0, "no interface name");
    BADCFG(VD_CAN_SOCKETCAN, c.bitrate = 2000000, "bitrate 2000000");
    BADCFG(VD_CAN_SOCKETCAN, c.dbitrate = 2000000, "dbitrate 2000000: needs fd");
    BADCFG(VD_CAN_SOCKETCAN, c.sample_point = 1000, "sample point");
    BADCFG(VD_CAN_SOCKETCAN, c.restart = (enum vd_can_restart)9, "restart 9");
    BADCFG(VD_CAN_SOCKETCAN, c.txqueuelen = -2, "txqueuelen");
#undef BADCFG
    /* an address that does not resolve, a port taken */
    vd_can_cfg_init(&c, VD_CAN_UDP);
    snprintf(c.local_host, sizeof(c.local_host), "no-such-host.invalid");
    r = vd_can_open(&c, &b, err, sizeof(err));
    CHECK(r < 0 && b == NULL && strstr(err, "cannot resolve 'no-such-host.invalid'"), "'%s'", err);
    {
        uint16_t pr;
        int fd = raw_sock(&pr);

        vd_can_cfg_init(&c, VD_CAN_UDP);
        c.local_port = pr;
        r = vd_can_open(&c, &b, err, sizeof(err));
        CHECK(r == -EADDRINUSE && strstr(err, "bind: Address already in use"), "'%s'", err);
        close(fd);
    }
    vd_can_close(NULL);
    /* names */
    CHECK(!strcmp(vd_can_kind_name(VD_CAN_UDP), "udp") &&
              !strcmp(vd_can_state_name(VD_CAN_STATE_ERROR_PASSIVE), "ERROR-PASSIVE") &&
              !strcmp(vd_can_state_name(VD_CAN_STATE_BUS_OFF), "BUS-OFF"),
          "names");
    /* state of a udp bus */
    {
        struct vd_can_state st;
        struct vd_can_bus *u;

        vd_can_cfg_init(&c, VD_CAN_UDP);
        c.local_port = 0;
        u = must_open(&c);
        CHECK(vd_can_state(u, &st) == 0 && !strcmp(st.kind, "udp") && !st.state_read &&
                  st.state == VD_CAN_STATE_UNKNOWN,
              "udp state");
        vd_can_close(u);
    }
}

int main(void)
{
    test_codec();
    test_check();
    test_pair();
    test_crafted();
    test_filters_and_tx();
    test_overflow();
    test_poll_many();
    test_threads();
    test_config();
    return vt_report("test_can_udp");
}
