/* tests/app/test_motion_feed.c - the motion feed's start-up handshake with a Moog MBC through
 * the feed itself (app/motionlink.c: take, heartbeat, send_one), slot by slot
 * (app_motion_slot) instead of on its thread, so that which datagram goes out in which send
 * period does not depend on the scheduler: the loop's output tap is a real mailbox the test
 * publishes cue snapshots into, the MBC is a UDP socket of the test on loopback that answers
 * with status datagrams (io/motion.h vd_moog_status_encode) and decodes every command the
 * feed sends (vd_motion_decode). The same start-ups as test_motion_start, which checks the
 * decision (app_motion_start_engage) alone; here the feed's own wiring must produce them:
 * NULL before the MBC's first status and the loop's first cues, ENGAGE with neutral cues in
 * every datagram from the first on until the state machine takes the cues, never a NULL in
 * between (CI's case under ASan: ENGAGED reported in a send period without new cues). The
 * thread, its timing and the emulated MBC as a process: moog_status_test.sh. */
#include <arpa/inet.h>
#include <math.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "app/motionlink.h"
#include "check.h"
#include "motion_startups.h"

#define PERIOD_NS 1000000 /* the loop's 1 kHz */
#define G         9.80665

struct mbc {
    int fd;
    struct sockaddr_in self, feed;
    uint32_t seq;
};

/* the feed's settings as `rtvd run` defaults them (config/run_yaml.c defaults()), with the
 * MBC's status watched (heartbeat_s > 0: the handshake) and reset never */
static void feed_cfg(struct vd_run_motion *c, const struct mbc *b)
{
    memset(c, 0, sizeof(*c));
    c->on = true;
    snprintf(c->dest, sizeof(c->dest), "127.0.0.1:%u", (unsigned)ntohs(b->self.sin_port));
    c->format = VD_RUN_MOTION_MOOG_MDA;
    c->rate_hz = 500;
    c->decimation = VD_RUN_MOTION_LOWPASS;
    c->engage_s = 2.0;
    c->park_s = 2.0;
    c->stale_s = 0.05;
    c->heartbeat_s = 0.5;
    c->engage_timeout_s = 20.0;
    c->reset = VD_RUN_MOTION_RESET_NEVER;
    c->lim_f = 30.0;
    c->lim_w = 3.0;
    c->lim_dw = 50.0;
    c->lim_angle = 30.0 * M_PI / 180.0;
    c->cpu = VD_RUN_CPU_NONE;
    c->ttl = 1;
}

/* one status datagram from the MBC to the feed's socket, and wait until it is there (poll
 * does not take it: the feed's heartbeat() does, in the next slot) */
static void mbc_status(struct mbc *b, int state, int feed_fd)
{
    struct vd_moog_status st = {
        .seq = ++b->seq,
        .msg_id = VD_MOOG_STATUS_ID,
        .machine_state = (uint8_t)state,
        .motion_mode = 3, /* MDA */
        .update_rate = 500,
    };
    uint8_t buf[VD_MOOG_STATUS_MAX];
    const int n = vd_moog_status_encode(&st, buf, sizeof(buf));
    struct pollfd p = {.fd = feed_fd, .events = POLLIN};

    CHECK(n > 0, "status encoded: %d", n);
    CHECK(sendto(b->fd, buf, (size_t)n, 0, (const struct sockaddr *)&b->feed, sizeof(b->feed)) == n,
          "status sent");
    CHECK(poll(&p, 1, 2000) == 1, "the status reached the feed's socket");
}

/* the feed's datagram of a send period, decoded: 'N' MCW NULL, 'E' ENGAGE before the state
 * machine took the cues (the handshake's, neutral cues), 'S' ENGAGE with the state machine on
 * (its fade-in), '?' anything else */
static char mbc_command(struct mbc *b, const struct app_motionlink *k)
{
    uint8_t buf[VD_MOTION_MAX_BYTES + 16];
    struct vd_motion_msg msg;
    struct pollfd p = {.fd = b->fd, .events = POLLIN};
    ssize_t n;

    if (poll(&p, 1, 2000) != 1)
        return '-';
    n = recv(b->fd, buf, sizeof(buf), 0);
    if (n <= 0 || vd_motion_decode(buf, (size_t)n, &msg) != VD_MFMT_MOOG_MDA || msg.reset)
        return '?';
    if (msg.state == VD_MST_OFF)
        return 'N';
    if (msg.state != VD_MST_ENGAGED)
        return '?';
    return k->sm.state == VD_MST_OFF ? 'E' : 'S';
}

/* one start-up, a send period (2 slots at 500 Hz) per entry: st[i] the status the MBC sends
 * before period i (0 none, 1 STANDBY, 2 ENGAGED), have[i] whether the loop publishes cues in
 * its slots; want[i] the command the MBC must get */
static void run(const char *what, const int *st, const bool *have, const char *want, int n)
{
    struct vd_loop L;
    struct app_motionlink k;
    struct vd_run_motion cfg;
    struct mbc b = {.fd = socket(AF_INET, SOCK_DGRAM, 0)};
    socklen_t len = sizeof(b.self);
    uint64_t sl = 0, cyc = 0, nE = 0;
    char got[64];

    CHECK(n < (int)sizeof(got), "%s: scenario length", what);
    b.self.sin_family = AF_INET;
    b.self.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(b.fd >= 0 && bind(b.fd, (struct sockaddr *)&b.self, sizeof(b.self)) == 0 &&
              getsockname(b.fd, (struct sockaddr *)&b.self, &len) == 0,
          "%s: the MBC's socket", what);
    /* the loop as the feed sees it: its period and one output tap of cues (rt/loop.h) */
    memset(&L, 0, sizeof(L));
    L.cfg.policy.period_ns = PERIOD_NS;
    L.nsig = 0;
    L.nout = VD_CUE_N;
    CHECK(vd_mailbox_init(&L.out[0], vd_snapshot_size(L.nout)) == 0, "%s: the tap", what);
    feed_cfg(&cfg, &b);
    CHECK(app_motion_init(&k, &cfg, &L, 0, G, stderr) == 0, "%s: app_motion_init", what);
    CHECK(k.handshake && k.every == 2, "%s: handshake %d, %d slots per send", what, k.handshake,
          k.every);
    len = sizeof(b.feed);
    CHECK(getsockname(k.out.sock, (struct sockaddr *)&b.feed, &len) == 0, "%s: the feed's address",
          what);
    /* as the thread begins (motion_thread) */
    k.t0 = (int64_t)1000000000;
    k.last_hb_ns = k.last_fresh_ns = k.t0;
    for (int i = 0; i < n; i++) {
        if (st[i])
            mbc_status(&b, st[i] == 2 ? VD_MOOG_ENGAGED : VD_MOOG_STANDBY, k.out.sock);
        for (int s = 0; s < k.every; s++, sl++) {
            const int64_t now = k.t0 + (int64_t)sl * PERIOD_NS;

            if (have[i]) {
                /* the loop's cycle: neutral cues (at rest, level: f_z = g) */
                struct vd_snapshot *o = vd_mailbox_back(&L.out[0]);

                o->seq = cyc++;
                o->stamp_ns = now;
                o->t = (double)cyc * 1e-3;
                o->flags = 0;
                o->n = L.nout;
                memset(o->value, 0, (size_t)L.nout * sizeof(double));
                o->value[VD_CUE_FZ] = G;
                vd_mailbox_publish(&L.out[0]);
            }
            app_motion_slot(&k, sl, now);
        }
        got[i] = mbc_command(&b, &k);
        nE += got[i] == 'E';
    }
    got[n] = '\0';
    CHECK(!strncmp(got, want, (size_t)n), "%s: the MBC got %s, want %.*s", what, got, n, want);
    /* what the counters say happened: every datagram sent and received, the handshake's
     * ENGAGEs counted as the MBC saw them, no status rejected */
    CHECK(k.sends == (uint64_t)n && k.sent == (uint64_t)n && k.send_errors == 0,
          "%s: sends %llu sent %llu errors %llu", what, (unsigned long long)k.sends,
          (unsigned long long)k.sent, (unsigned long long)k.send_errors);
    CHECK(k.engage_tries == nE && k.engage_sent == nE,
          "%s: engage_tries %llu, engage_sent %llu, the MBC got %llu handshake ENGAGEs", what,
          (unsigned long long)k.engage_tries, (unsigned long long)k.engage_sent,
          (unsigned long long)nE);
    CHECK(k.st_rejected == 0 && k.st_ok == b.seq, "%s: statuses %llu accepted of %u, %llu rejected",
          what, (unsigned long long)k.st_ok, b.seq, (unsigned long long)k.st_rejected);
    app_motion_free(&k);
    vd_mailbox_free(&L.out[0]);
    close(b.fd);
}

/* a status not newer than the last one taken (late, reordered, repeated) is refused as stale
 * and does not change the platform's state the feed acts on; a newer one is taken; after the
 * heartbeat timeout (0.5 s) without a status, a lower number is taken (an MBC that restarted) */
static void t_stale(void)
{
    struct vd_loop L;
    struct app_motionlink k;
    struct vd_run_motion cfg;
    struct mbc b = {.fd = socket(AF_INET, SOCK_DGRAM, 0)};
    socklen_t len = sizeof(b.self);
    uint64_t sl = 0;
    /* each: the number the MBC gives, its state, the time it arrives [ms after the start];
     * then what the feed has: statuses taken, stale ones, the state it holds */
    static const struct {
        uint32_t seq;
        int state, at_ms;
        uint64_t ok, stale;
        int held;
    } step[] = {{5, VD_MOOG_STANDBY, 2, 1, 0, VD_MOOG_STANDBY},
                {4, VD_MOOG_ENGAGED, 4, 1, 1, VD_MOOG_STANDBY}, /* late */
                {5, VD_MOOG_ENGAGED, 6, 1, 2, VD_MOOG_STANDBY}, /* repeated */
                {6, VD_MOOG_ENGAGED, 8, 2, 2, VD_MOOG_ENGAGED},
                {2, VD_MOOG_STANDBY, 10, 2, 3, VD_MOOG_ENGAGED},   /* within the timeout */
                {1, VD_MOOG_STANDBY, 600, 3, 3, VD_MOOG_STANDBY}}; /* 0.59 s later: anew */

    b.self.sin_family = AF_INET;
    b.self.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(b.fd >= 0 && bind(b.fd, (struct sockaddr *)&b.self, sizeof(b.self)) == 0 &&
              getsockname(b.fd, (struct sockaddr *)&b.self, &len) == 0,
          "stale: the MBC's socket");
    memset(&L, 0, sizeof(L));
    L.cfg.policy.period_ns = PERIOD_NS;
    L.nout = VD_CUE_N;
    CHECK(vd_mailbox_init(&L.out[0], vd_snapshot_size(L.nout)) == 0, "stale: the tap");
    feed_cfg(&cfg, &b);
    CHECK(app_motion_init(&k, &cfg, &L, 0, G, stderr) == 0, "stale: app_motion_init");
    len = sizeof(b.feed);
    CHECK(getsockname(k.out.sock, (struct sockaddr *)&b.feed, &len) == 0, "stale: the address");
    k.t0 = (int64_t)1000000000;
    k.last_hb_ns = k.last_fresh_ns = k.t0;
    for (size_t i = 0; i < sizeof(step) / sizeof(step[0]); i++) {
        /* the slots before the arrival, then the status and the slot that takes it */
        for (; (int64_t)sl * PERIOD_NS < (int64_t)step[i].at_ms * 1000000; sl++)
            app_motion_slot(&k, sl, k.t0 + (int64_t)sl * PERIOD_NS);
        b.seq = step[i].seq - 1; /* mbc_status numbers it ++seq */
        mbc_status(&b, step[i].state, k.out.sock);
        app_motion_slot(&k, sl, k.t0 + (int64_t)sl * PERIOD_NS);
        sl++;
        CHECK(k.st_ok == step[i].ok && k.st_bad[VD_MOOG_BAD_STALE] == step[i].stale &&
                  k.st_rejected == step[i].stale && k.ms.machine_state == step[i].held,
              "stale, status %zu (seq %u): taken %llu, stale %llu, rejected %llu, state %d", i,
              step[i].seq, (unsigned long long)k.st_ok,
              (unsigned long long)k.st_bad[VD_MOOG_BAD_STALE], (unsigned long long)k.st_rejected,
              k.ms.machine_state);
        while (recv(b.fd, (char[256]){0}, 256, MSG_DONTWAIT) > 0)
            ; /* the feed's commands: not looked at here */
    }
    CHECK(!strcmp(vd_moog_bad_name[VD_MOOG_BAD_STALE], "stale"), "the reason's name");
    /* an empty datagram: a short status, counted (recv's 0 is not "nothing waiting") */
    {
        struct pollfd p = {.fd = k.out.sock, .events = POLLIN};

        CHECK(sendto(b.fd, "", 0, 0, (const struct sockaddr *)&b.feed, sizeof(b.feed)) == 0 &&
                  poll(&p, 1, 2000) == 1,
              "an empty datagram sent");
        app_motion_slot(&k, sl, k.t0 + (int64_t)sl * PERIOD_NS);
        sl++;
        app_motion_slot(&k, sl, k.t0 + (int64_t)sl * PERIOD_NS);
        CHECK(k.st_bad[VD_MOOG_BAD_SHORT] == 1 && k.st_rejected == 4,
              "the empty datagram rejected as short: %llu, rejected %llu",
              (unsigned long long)k.st_bad[VD_MOOG_BAD_SHORT], (unsigned long long)k.st_rejected);
    }
    app_motion_free(&k);
    vd_mailbox_free(&L.out[0]);
    close(b.fd);
}

/* a UDP socket on loopback at ip:port (0: any free port), its address in *self */
static int udp_at(const char *ip, uint16_t port, struct sockaddr_in *self)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    socklen_t len = sizeof(*self);

    memset(self, 0, sizeof(*self));
    self->sin_family = AF_INET;
    self->sin_port = htons(port);
    inet_pton(AF_INET, ip, &self->sin_addr);
    CHECK(fd >= 0 && bind(fd, (struct sockaddr *)self, sizeof(*self)) == 0 &&
              getsockname(fd, (struct sockaddr *)self, &len) == 0,
          "a socket at %s:%u", ip, (unsigned)port);
    return fd;
}

/* buf[0, n) from fd to the feed's socket, and wait until it is there */
static void to_feed(int fd, const void *buf, size_t n, const struct sockaddr_in *feed, int feed_fd)
{
    struct pollfd p = {.fd = feed_fd, .events = POLLIN};

    CHECK(sendto(fd, buf, n, 0, (const struct sockaddr *)feed, sizeof(*feed)) == (ssize_t)n &&
              poll(&p, 1, 2000) == 1,
          "a datagram to the feed");
}

/* one slot without a send (an even one at 2 slots per send: the feed reads its socket), the
 * next such slot in *sl; the slot's time */
static int64_t read_slot(struct app_motionlink *k, uint64_t *sl)
{
    const int64_t now = k->t0 + (int64_t)*sl * PERIOD_NS;

    CHECK(k->every == 2 && *sl % 2 == 0, "a slot without a send");
    app_motion_slot(k, *sl, now);
    *sl += 2;
    return now;
}

/* a Moog status (state, fault word 2) numbered seq, encoded into buf; its length */
static size_t status_bytes(uint8_t *buf, uint32_t seq, int state, uint32_t fault2)
{
    const struct vd_moog_status st = {
        .seq = seq,
        .msg_id = VD_MOOG_STATUS_ID,
        .machine_state = (uint8_t)state,
        .motion_mode = 3,
        .update_rate = 500,
        .fault = {0, fault2, 0},
    };
    const int n = vd_moog_status_encode(&st, buf, VD_MOOG_STATUS_MAX);

    CHECK(n > 0, "status encoded: %d", n);
    return n > 0 ? (size_t)n : 0;
}

/* the feed started as motion_thread begins it: app_motion_init, the feed's bound address
 * into *feed (what: the message's prefix), the thread's start time; app_motion_init's value */
static int feed_start(struct app_motionlink *k, const struct vd_run_motion *cfg, struct vd_loop *L,
                      struct sockaddr_in *feed, const char *what)
{
    const int rc = app_motion_init(k, cfg, L, 0, G, stderr);

    if (rc == 0) {
        socklen_t len = sizeof(*feed);

        CHECK(getsockname(k->out.sock, (struct sockaddr *)feed, &len) == 0,
              "the feed's address (%s)", what);
    }
    k->t0 = (int64_t)1000000000;
    k->last_hb_ns = k->last_fresh_ns = k->t0;
    return rc;
}

/* who may answer the feed (io/MOTION_DATAGRAMS.md, "Who may answer the feed"): to a unicast
 * destination the platform only, any other sender counted in wrong_source and not read
 * further (a status from it neither parks the feed nor is its heartbeat); Moog: any port of the
 * platform's address, RTVH: its address and port; to a multicast group anyone. Only slots
 * without a send (even ones at 2 slots per send): nothing goes out, the datagrams are all the
 * feed reads. 127.0.0.2 is another loopback address (lo holds 127.0.0.0/8) */
static void t_source(void)
{
    struct vd_loop L;
    struct app_motionlink k;
    struct vd_run_motion cfg;
    struct mbc b;
    struct sockaddr_in x1a, x2a;
    uint8_t buf[VD_MOOG_STATUS_MAX];
    uint64_t sl = 0;
    int64_t t;
    int x1, x2;

    memset(&L, 0, sizeof(L));
    L.cfg.policy.period_ns = PERIOD_NS;
    L.nout = VD_CUE_N;
    CHECK(vd_mailbox_init(&L.out[0], vd_snapshot_size(L.nout)) == 0, "source: the tap");

    /* Moog: the MBC at 127.0.0.1:P; x1 at 127.0.0.2:P (another address), x2 at 127.0.0.1:Q
     * (the MBC's address, another port) */
    b.fd = udp_at("127.0.0.1", 0, &b.self);
    x1 = udp_at("127.0.0.2", ntohs(b.self.sin_port), &x1a);
    x2 = udp_at("127.0.0.1", 0, &x2a);
    feed_cfg(&cfg, &b);
    CHECK(feed_start(&k, &cfg, &L, &b.feed, "source") == 0, "source: app_motion_init");
    /* another address: a STANDBY, a fault report (FAULT2, HostCommandRangeExceeded), an
     * empty datagram: none is a status, none latches a fault */
    to_feed(x1, buf, status_bytes(buf, 1, VD_MOOG_STANDBY, 0), &b.feed, k.out.sock);
    read_slot(&k, &sl);
    to_feed(x1, buf, status_bytes(buf, 2, VD_MOOG_FAULT2, VD_MOOG_F2_RANGE_EXCEEDED), &b.feed,
            k.out.sock);
    read_slot(&k, &sl);
    to_feed(x1, "", 0, &b.feed, k.out.sock);
    read_slot(&k, &sl);
    CHECK(k.wrong_source == 3 && k.st_ok == 0 && k.st_rejected == 0 && k.heartbeats == 0 &&
              !k.ms_any && !k.platform_fault && k.last_hb_ns == k.t0 && k.foreign == 0,
          "moog, another address: wrong_source %llu, status %llu, rejected %llu, heartbeats "
          "%llu, fault %d",
          (unsigned long long)k.wrong_source, (unsigned long long)k.st_ok,
          (unsigned long long)k.st_rejected, (unsigned long long)k.heartbeats, k.platform_fault);
    /* the MBC's address from another port, then the MBC's own socket: both statuses */
    to_feed(x2, buf, status_bytes(buf, 3, VD_MOOG_STANDBY, 0), &b.feed, k.out.sock);
    read_slot(&k, &sl);
    to_feed(b.fd, buf, status_bytes(buf, 4, VD_MOOG_STANDBY, 0), &b.feed, k.out.sock);
    t = read_slot(&k, &sl);
    CHECK(k.wrong_source == 3 && k.st_ok == 2 && k.heartbeats == 2 && k.ms.seq == 4 &&
              k.last_hb_ns == t,
          "moog, the MBC's address: wrong_source %llu, status %llu, heartbeats %llu",
          (unsigned long long)k.wrong_source, (unsigned long long)k.st_ok,
          (unsigned long long)k.heartbeats);
    app_motion_free(&k);

    /* the rtvd format, heartbeats watched: RTVH from the platform's address and port only */
    cfg.format = VD_RUN_MOTION_RTVD;
    CHECK(feed_start(&k, &cfg, &L, &b.feed, "source: rtvd") == 0, "source: rtvd app_motion_init");
    sl = 0;
    vd_motion_heartbeat_encode(1, buf, sizeof(buf));
    to_feed(x1, buf, VD_MOTION_HB_BYTES, &b.feed, k.out.sock);
    read_slot(&k, &sl);
    vd_motion_heartbeat_encode(2, buf, sizeof(buf));
    to_feed(x2, buf, VD_MOTION_HB_BYTES, &b.feed, k.out.sock);
    read_slot(&k, &sl);
    to_feed(x2, "junk", 4, &b.feed, k.out.sock);
    read_slot(&k, &sl);
    CHECK(k.wrong_source == 3 && k.heartbeats == 0 && k.foreign == 0 && k.last_hb_ns == k.t0,
          "rtvd, another address or port: wrong_source %llu, heartbeats %llu, foreign %llu",
          (unsigned long long)k.wrong_source, (unsigned long long)k.heartbeats,
          (unsigned long long)k.foreign);
    vd_motion_heartbeat_encode(3, buf, sizeof(buf));
    to_feed(b.fd, buf, VD_MOTION_HB_BYTES, &b.feed, k.out.sock);
    t = read_slot(&k, &sl);
    to_feed(b.fd, "junk", 4, &b.feed, k.out.sock);
    read_slot(&k, &sl);
    CHECK(k.wrong_source == 3 && k.heartbeats == 1 && k.foreign == 1 && k.last_hb_ns == t,
          "rtvd, the platform: wrong_source %llu, heartbeats %llu, foreign %llu",
          (unsigned long long)k.wrong_source, (unsigned long long)k.heartbeats,
          (unsigned long long)k.foreign);
    app_motion_free(&k);

    /* a multicast group: no one address to check, anyone's heartbeat is taken (the feed's
     * socket is bound to any address: the test reaches it on 127.0.0.1) */
    snprintf(cfg.dest, sizeof(cfg.dest), "239.255.0.43:%u", (unsigned)ntohs(b.self.sin_port));
    CHECK(feed_start(&k, &cfg, &L, &b.feed, "source: multicast") == 0 && k.out.multicast,
          "source: multicast app_motion_init");
    b.feed.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sl = 0;
    vd_motion_heartbeat_encode(1, buf, sizeof(buf));
    to_feed(x1, buf, VD_MOTION_HB_BYTES, &b.feed, k.out.sock);
    read_slot(&k, &sl);
    CHECK(k.wrong_source == 0 && k.heartbeats == 1, "multicast: wrong_source %llu, heartbeats %llu",
          (unsigned long long)k.wrong_source, (unsigned long long)k.heartbeats);
    app_motion_free(&k);

    vd_mailbox_free(&L.out[0]);
    close(x1);
    close(x2);
    close(b.fd);
}

/* the RTVH heartbeat's counter (io/MOTION_DATAGRAMS.md): one not above the last one taken
 * (repeated, reordered, replayed) is refused (hb_stale) and does not refresh the watch, so a
 * replay of one heartbeat cannot hold off "heartbeat lost"; after the heartbeat timeout
 * (0.5 s) without a heartbeat taken, a lower counter is taken (a platform that restarted), the
 * park it caused staying latched. Every slot runs, sends too (drained, not looked at) */
static void t_hb_seq(void)
{
    struct vd_loop L;
    struct app_motionlink k;
    struct vd_run_motion cfg;
    struct mbc b;
    uint8_t buf[VD_MOTION_HB_BYTES];
    uint64_t sl = 0;
    int64_t taken = 0;
    /* each: the counter, its arrival [ms after the start]; then what the feed has: heartbeats
     * taken, refused as stale */
    static const struct {
        uint64_t count;
        int at_ms;
        uint64_t ok, stale;
    } step[] = {{5, 2, 1, 0},   {4, 4, 1, 1},   /* older */
                {5, 6, 1, 2},   {6, 8, 2, 2},   /* repeated; newer */
                {2, 10, 2, 3},  {6, 100, 2, 4}, /* within the timeout; the last one replayed */
                {6, 200, 2, 5}, {6, 300, 2, 6}, {6, 400, 2, 7},
                {6, 500, 2, 8}, {1, 600, 3, 8}}; /* 0.59 s after the last one taken: anew */

    memset(&L, 0, sizeof(L));
    L.cfg.policy.period_ns = PERIOD_NS;
    L.nout = VD_CUE_N;
    CHECK(vd_mailbox_init(&L.out[0], vd_snapshot_size(L.nout)) == 0, "hb: the tap");
    b.fd = udp_at("127.0.0.1", 0, &b.self);
    feed_cfg(&cfg, &b);
    cfg.format = VD_RUN_MOTION_RTVD;
    CHECK(feed_start(&k, &cfg, &L, &b.feed, "hb") == 0, "hb: app_motion_init");
    for (size_t i = 0; i < sizeof(step) / sizeof(step[0]); i++) {
        const bool newer = step[i].ok > k.heartbeats;
        int64_t now;

        /* the slots before the arrival, then the heartbeat and the slot that takes it */
        for (; (int64_t)sl * PERIOD_NS < (int64_t)step[i].at_ms * 1000000; sl++)
            app_motion_slot(&k, sl, k.t0 + (int64_t)sl * PERIOD_NS);
        vd_motion_heartbeat_encode(step[i].count, buf, sizeof(buf));
        to_feed(b.fd, buf, sizeof(buf), &b.feed, k.out.sock);
        now = k.t0 + (int64_t)sl * PERIOD_NS;
        app_motion_slot(&k, sl, now);
        sl++;
        if (newer)
            taken = now;
        CHECK(k.heartbeats == step[i].ok && k.hb_stale == step[i].stale && k.last_hb_ns == taken &&
                  k.wrong_source == 0 && k.foreign == 0,
              "hb %zu (counter %llu at %d ms): taken %llu, stale %llu, watch at %lld ms", i,
              (unsigned long long)step[i].count, step[i].at_ms, (unsigned long long)k.heartbeats,
              (unsigned long long)k.hb_stale, (long long)((k.last_hb_ns - k.t0) / 1000000));
        /* the replays do not hold the watch: lost 0.5 s after the last one taken (at 8 ms) */
        if (step[i].at_ms == 500)
            CHECK(k.sm.faults[VD_MRS_HEARTBEAT] == 0, "hb: not lost at 500 ms");
        if (step[i].at_ms == 600)
            CHECK(k.sm.state == VD_MST_FAULT && k.sm.reason == VD_MRS_HEARTBEAT &&
                      k.sm.faults[VD_MRS_HEARTBEAT] == 1,
                  "hb: lost despite the replays, latched after the restart: %s after %s",
                  vd_motion_state_name[k.sm.state], vd_motion_reason_name[k.sm.reason]);
        while (recv(b.fd, (char[512]){0}, 512, MSG_DONTWAIT) > 0)
            ; /* the feed's datagrams: not looked at here */
    }
    app_motion_free(&k);
    vd_mailbox_free(&L.out[0]);
    close(b.fd);
}

/* one slot of t_hold: the loop's neutral cues published, the slot run, the feed's datagram
 * (if it sent one) drained */
static void hold_slot(struct app_motionlink *k, struct vd_loop *L, struct mbc *b, uint64_t sl)
{
    const int64_t now = k->t0 + (int64_t)sl * PERIOD_NS;
    struct vd_snapshot *o = vd_mailbox_back(&L->out[0]);

    o->seq = sl;
    o->stamp_ns = now;
    o->t = (double)(sl + 1) * 1e-3;
    o->flags = 0;
    o->n = L->nout;
    memset(o->value, 0, (size_t)L->nout * sizeof(double));
    o->value[VD_CUE_FZ] = G;
    vd_mailbox_publish(&L->out[0]);
    app_motion_slot(k, sl, now);
    while (recv(b->fd, (char[512]){0}, 512, MSG_DONTWAIT) > 0)
        ; /* the feed's datagrams: not looked at here */
}

/* a heartbeat taken again after a restart cannot hold off "heartbeat lost": the platform
 * (RTVH, or moog_mda its statuses, ENGAGED) answers in slots 0..last with numbers 1..last + 1,
 * then, from its own address pair before every slot up to 1299, a copy of its last one
 * (restart false) or a number 0 (restart true: it restarts in every slot). heartbeat_s 0.5 s,
 * a send in every odd slot. The heartbeat is lost 0.5 s after slot `last`: slot 600 is the
 * first past it, the first send past it is 601 whatever the parity of `last` (last 99: slot
 * 600 reads its copy, 601 sends; last 100: slot 601 reads its copy and sends at once). The
 * feed parks there, once (heartbeat lost); the datagram of the next slot (602) is taken as the
 * restart, the watch refreshed at 602; lost again at send 1103 (602 + 501; no second park:
 * the feed is parking), taken again at 1104. So taken: last + 1 + 2; refused as stale: the
 * other 1297 - last of the 1299 - last after `last` */
static void hold(const char *what, int format, bool restart, int last)
{
    static struct vd_loop L;
    static struct app_motionlink k;
    struct vd_run_motion cfg;
    struct mbc b;
    uint8_t buf[VD_MOOG_STATUS_MAX];
    const uint64_t ok = (uint64_t)last + 3, stale = 1297 - (uint64_t)last;
    uint64_t taken, refused;

    memset(&L, 0, sizeof(L));
    L.cfg.policy.period_ns = PERIOD_NS;
    L.nout = VD_CUE_N;
    CHECK(vd_mailbox_init(&L.out[0], vd_snapshot_size(L.nout)) == 0, "%s: the tap", what);
    b.fd = udp_at("127.0.0.1", 0, &b.self);
    feed_cfg(&cfg, &b);
    cfg.format = format;
    cfg.park_s = 0.02; /* over before the end: the feed ends in fault */
    CHECK(feed_start(&k, &cfg, &L, &b.feed, what) == 0 && k.every == 2, "%s: app_motion_init",
          what);
    for (int sl = 0; sl < 1300; sl++) {
        const uint32_t n = sl <= last ? (uint32_t)sl + 1 : restart ? 0 : (uint32_t)last + 1;
        size_t len;

        if (format == VD_RUN_MOTION_MOOG_MDA)
            len = status_bytes(buf, n, VD_MOOG_ENGAGED, 0);
        else
            len = (size_t)vd_motion_heartbeat_encode(n, buf, sizeof(buf));
        to_feed(b.fd, buf, len, &b.feed, k.out.sock);
        hold_slot(&k, &L, &b, (uint64_t)sl);
        if (sl == 600)
            CHECK((k.sm.state == VD_MST_ENGAGING || k.sm.state == VD_MST_ENGAGED) &&
                      k.sm.faults[VD_MRS_HEARTBEAT] == 0,
                  "%s: engaged until slot 600: %s", what, vd_motion_state_name[k.sm.state]);
    }
    taken = format == VD_RUN_MOTION_MOOG_MDA ? k.st_ok : k.heartbeats;
    refused = format == VD_RUN_MOTION_MOOG_MDA ? k.st_bad[VD_MOOG_BAD_STALE] : k.hb_stale;
    CHECK(k.sm.state == VD_MST_FAULT && k.sm.reason == VD_MRS_HEARTBEAT &&
              k.first_fault == VD_MRS_HEARTBEAT && k.sm.faults[VD_MRS_HEARTBEAT] == 1 &&
              k.park_t0_ns == k.t0 + 601 * PERIOD_NS,
          "%s: %s after %s, %llu heartbeat-lost parks, the first at slot %lld", what,
          vd_motion_state_name[k.sm.state], vd_motion_reason_name[k.sm.reason],
          (unsigned long long)k.sm.faults[VD_MRS_HEARTBEAT],
          (long long)((k.park_t0_ns - k.t0) / PERIOD_NS));
    CHECK(taken == ok && refused == stale && k.heartbeats == ok &&
              k.last_hb_ns == k.t0 + 1104 * PERIOD_NS && k.wrong_source == 0 && k.foreign == 0,
          "%s: taken %llu (want %llu), stale %llu (want %llu), the watch at slot %lld", what,
          (unsigned long long)taken, (unsigned long long)ok, (unsigned long long)refused,
          (unsigned long long)stale, (long long)((k.last_hb_ns - k.t0) / PERIOD_NS));
    app_motion_free(&k);
    vd_mailbox_free(&L.out[0]);
    close(b.fd);
}

static void t_hold(void)
{
    for (int last = 99; last <= 100; last++) {
        hold("hold, rtvd, copies", VD_RUN_MOTION_RTVD, false, last);
        hold("hold, rtvd, restarts", VD_RUN_MOTION_RTVD, true, last);
        hold("hold, moog, copies", VD_RUN_MOTION_MOOG_MDA, false, last);
        hold("hold, moog, restarts", VD_RUN_MOTION_MOOG_MDA, true, last);
    }
}

/* an RTVH heartbeat numbered count from fd to the feed */
static void hb_to(int fd, uint64_t count, const struct sockaddr_in *feed, int feed_fd)
{
    uint8_t buf[VD_MOTION_HB_BYTES];

    vd_motion_heartbeat_encode(count, buf, sizeof(buf));
    to_feed(fd, buf, sizeof(buf), feed, feed_fd);
}

/* a multicast feed answered by two receivers of the group, A (127.0.0.2, counting from 1000)
 * and B (127.0.0.3, from 1): each one's counter is checked against its own last one
 * (io/MOTION_DATAGRAMS.md, "Who may answer the feed"), heartbeat_s 0.5 s, a send in every odd
 * slot. Slots 0-199: A in even slots, B in odd ones, all 200 taken; 200-1399: B in every
 * slot (1200 taken), A stopped, a copy of its last one every 10th slot up to 600 (41 stale):
 * no park; 1400-1402: A back, restarted at 0 (silent 1.2 s: 0 restarts its count, stale; 1
 * and 2 taken) and B (3 taken); 1403-2199: B stopped too, a copy of A's last in every slot:
 * lost at send 1903 (1402 + 501), one park, the copy of 1904 taken as the restart, the other
 * 796 stale */
static void t_mcast(void)
{
    static struct vd_loop L;
    static struct app_motionlink k;
    struct vd_run_motion cfg;
    struct mbc b;
    struct sockaddr_in aa, ba;
    int a, bb;
    uint64_t sl = 0;

    memset(&L, 0, sizeof(L));
    L.cfg.policy.period_ns = PERIOD_NS;
    L.nout = VD_CUE_N;
    CHECK(vd_mailbox_init(&L.out[0], vd_snapshot_size(L.nout)) == 0, "mcast: the tap");
    b.fd = udp_at("127.0.0.1", 0, &b.self);
    a = udp_at("127.0.0.2", 0, &aa);
    bb = udp_at("127.0.0.3", 0, &ba);
    feed_cfg(&cfg, &b);
    cfg.format = VD_RUN_MOTION_RTVD;
    cfg.park_s = 0.02;
    snprintf(cfg.dest, sizeof(cfg.dest), "239.255.0.43:%u", (unsigned)ntohs(b.self.sin_port));
    CHECK(feed_start(&k, &cfg, &L, &b.feed, "mcast") == 0 && k.out.multicast && k.every == 2,
          "mcast: app_motion_init");
    b.feed.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (; sl < 200; sl++) {
        if (sl % 2 == 0)
            hb_to(a, 1000 + sl / 2, &b.feed, k.out.sock);
        else
            hb_to(bb, 1 + sl / 2, &b.feed, k.out.sock);
        hold_slot(&k, &L, &b, sl);
    }
    CHECK(k.heartbeats == 200 && k.hb_stale == 0 && k.hb_nfrom == 2,
          "mcast, both: taken %llu, stale %llu, senders %d", (unsigned long long)k.heartbeats,
          (unsigned long long)k.hb_stale, k.hb_nfrom);
    for (; sl < 1400; sl++) {
        hb_to(bb, sl - 99, &b.feed, k.out.sock);
        if (sl <= 600 && sl % 10 == 0)
            hb_to(a, 1099, &b.feed, k.out.sock);
        hold_slot(&k, &L, &b, sl);
    }
    CHECK(k.heartbeats == 1400 && k.hb_stale == 41 && k.sm.faults[VD_MRS_HEARTBEAT] == 0 &&
              k.first_fault < 0 && k.sm.state == VD_MST_ENGAGING &&
              k.last_hb_ns == k.t0 + 1399 * PERIOD_NS,
          "mcast, B alone: taken %llu, stale %llu, %llu heartbeat-lost parks, %s",
          (unsigned long long)k.heartbeats, (unsigned long long)k.hb_stale,
          (unsigned long long)k.sm.faults[VD_MRS_HEARTBEAT], vd_motion_state_name[k.sm.state]);
    for (; sl < 1403; sl++) {
        hb_to(a, sl - 1400, &b.feed, k.out.sock);
        hb_to(bb, sl - 99, &b.feed, k.out.sock);
        hold_slot(&k, &L, &b, sl);
    }
    CHECK(k.heartbeats == 1405 && k.hb_stale == 42 && k.sm.faults[VD_MRS_HEARTBEAT] == 0,
          "mcast, A restarted: taken %llu, stale %llu", (unsigned long long)k.heartbeats,
          (unsigned long long)k.hb_stale);
    for (; sl < 2200; sl++) {
        hb_to(a, 2, &b.feed, k.out.sock);
        hold_slot(&k, &L, &b, sl);
    }
    CHECK(k.heartbeats == 1406 && k.hb_stale == 838 && k.sm.state == VD_MST_FAULT &&
              k.sm.reason == VD_MRS_HEARTBEAT && k.sm.faults[VD_MRS_HEARTBEAT] == 1 &&
              k.park_t0_ns == k.t0 + 1903 * PERIOD_NS && k.last_hb_ns == k.t0 + 1904 * PERIOD_NS &&
              k.wrong_source == 0 && k.foreign == 0,
          "mcast, none: taken %llu, stale %llu, %s after %s, %llu heartbeat-lost parks, the "
          "first at slot %lld, the watch at %lld",
          (unsigned long long)k.heartbeats, (unsigned long long)k.hb_stale,
          vd_motion_state_name[k.sm.state], vd_motion_reason_name[k.sm.reason],
          (unsigned long long)k.sm.faults[VD_MRS_HEARTBEAT],
          (long long)((k.park_t0_ns - k.t0) / PERIOD_NS),
          (long long)((k.last_hb_ns - k.t0) / PERIOD_NS));
    app_motion_free(&k);
    vd_mailbox_free(&L.out[0]);
    close(a);
    close(bb);
    close(b.fd);
}

/* a platform that answers from another address than the one it is fed on is no platform
 * (io/MOTION_DATAGRAMS.md, "Who may answer the feed"): fed on 127.0.0.2:P, a listener bound
 * to any address at P answers each datagram to its sender with an RTVH heartbeat (counter +1),
 * and the kernel sends that from 127.0.0.1 (the source it picks towards the feed's 127.0.0.1),
 * not from 127.0.0.2; so all 300 answers to the sends of slots 1..599 are wrong_source, none a
 * heartbeat, and the watched feed parks with heartbeat lost at send 501, the first more than
 * 0.5 s after slot 0 */
static void t_any_listener(void)
{
    static struct vd_loop L;
    static struct app_motionlink k;
    struct vd_run_motion cfg;
    struct mbc b;
    struct sockaddr_in any;
    uint64_t count = 0;
    int lfd;

    memset(&L, 0, sizeof(L));
    L.cfg.policy.period_ns = PERIOD_NS;
    L.nout = VD_CUE_N;
    CHECK(vd_mailbox_init(&L.out[0], vd_snapshot_size(L.nout)) == 0, "any: the tap");
    lfd = udp_at("0.0.0.0", 0, &any);
    b.fd = udp_at("127.0.0.1", 0, &b.self); /* unused: hold_slot drains it */
    feed_cfg(&cfg, &b);
    cfg.format = VD_RUN_MOTION_RTVD;
    cfg.park_s = 0.02;
    snprintf(cfg.dest, sizeof(cfg.dest), "127.0.0.2:%u", (unsigned)ntohs(any.sin_port));
    CHECK(app_motion_init(&k, &cfg, &L, 0, G, stderr) == 0 && k.every == 2, "any: init");
    k.t0 = (int64_t)1000000000;
    k.last_hb_ns = k.last_fresh_ns = k.t0;
    for (uint64_t sl = 0; sl <= 600; sl++) {
        hold_slot(&k, &L, &b, sl);
        if (sl % 2 == 1 && sl < 600) {
            /* the listener: the feed's datagram, answered to its sender */
            struct sockaddr_in from;
            socklen_t fl = sizeof(from);
            uint8_t buf[VD_MOTION_MAX_BYTES + 16];
            struct pollfd p = {.fd = lfd, .events = POLLIN};

            CHECK(poll(&p, 1, 2000) == 1 &&
                      recvfrom(lfd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl) > 0,
                  "any: the feed's datagram at slot %llu", (unsigned long long)sl);
            hb_to(lfd, ++count, &from, k.out.sock);
        }
    }
    CHECK(count == 300 && k.wrong_source == 300 && k.heartbeats == 0 && k.hb_stale == 0 &&
              k.foreign == 0,
          "any: %llu answers, wrong_source %llu, heartbeats %llu", (unsigned long long)count,
          (unsigned long long)k.wrong_source, (unsigned long long)k.heartbeats);
    CHECK(k.sm.state == VD_MST_FAULT && k.sm.reason == VD_MRS_HEARTBEAT &&
              k.sm.faults[VD_MRS_HEARTBEAT] == 1 && k.park_t0_ns == k.t0 + 501 * PERIOD_NS,
          "any: %s after %s, parked at slot %lld", vd_motion_state_name[k.sm.state],
          vd_motion_reason_name[k.sm.reason], (long long)((k.park_t0_ns - k.t0) / PERIOD_NS));
    app_motion_free(&k);
    vd_mailbox_free(&L.out[0]);
    close(lfd);
    close(b.fd);
}

/* the feed, the loop's tap and the MBC of t_sent */
struct rig {
    struct vd_loop L;
    struct app_motionlink k;
    struct mbc b;
    uint64_t sl, cyc;
};

/* one send period (2 slots, the loop's neutral cues in each); fail: sendto refuses the
 * datagram (no destination address: EINVAL), as a full socket buffer or a route gone would.
 * What the MBC got: 'R' RESET, 'E' ENGAGE, 'D' DISENGAGE, 'N' NULL, '-' nothing, '?' other */
static char period(struct rig *r, bool fail)
{
    const socklen_t dl = r->k.out.dest_len;
    uint8_t buf[VD_MOTION_MAX_BYTES + 16];
    struct vd_motion_msg msg;
    struct pollfd p = {.fd = r->b.fd, .events = POLLIN};
    ssize_t n;

    if (fail)
        r->k.out.dest_len = 0;
    for (int s = 0; s < r->k.every; s++, r->sl++) {
        const int64_t now = r->k.t0 + (int64_t)r->sl * PERIOD_NS;
        struct vd_snapshot *o = vd_mailbox_back(&r->L.out[0]);

        o->seq = r->cyc++;
        o->stamp_ns = now;
        o->t = (double)r->cyc * 1e-3;
        o->flags = 0;
        o->n = r->L.nout;
        memset(o->value, 0, (size_t)r->L.nout * sizeof(double));
        o->value[VD_CUE_FZ] = G;
        vd_mailbox_publish(&r->L.out[0]);
        app_motion_slot(&r->k, r->sl, now);
    }
    r->k.out.dest_len = dl;
    /* a refused send must not have reached the MBC: nothing waits (loopback delivers within
     * sendto), so no wait then */
    if (poll(&p, 1, fail ? 0 : 2000) != 1)
        return '-';
    n = recv(r->b.fd, buf, sizeof(buf), 0);
    if (n <= 0 || vd_motion_decode(buf, (size_t)n, &msg) != VD_MFMT_MOOG_MDA)
        return '?';
    return msg.reset                     ? 'R'
           : msg.state == VD_MST_ENGAGED ? 'E'
           : msg.state == VD_MST_PARKED  ? 'D'
           : msg.state == VD_MST_OFF     ? 'N'
                                         : '?';
}

/* periods by a script: '-' a refused send, anything else a sent one; what the MBC got */
static void periods(struct rig *r, const char *script, char *got)
{
    for (; *script; script++)
        *got++ = period(r, *script == '-');
    *got = '\0';
}

/* a status from the MBC (the next number), state and fault word 2 */
static void status(struct rig *r, int state, uint32_t fault2)
{
    uint8_t buf[VD_MOOG_STATUS_MAX];

    to_feed(r->b.fd, buf, status_bytes(buf, ++r->b.seq, state, fault2), &r->b.feed, r->k.out.sock);
}

/* an operator's request on the control channel (app/motionctl.h), read in the next slot */
static void request(const char *path, const char *cmd)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

    snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
    CHECK(fd >= 0 && sendto(fd, cmd, strlen(cmd), 0, (struct sockaddr *)&a, sizeof(a)) ==
                         (ssize_t)strlen(cmd),
          "request %s", cmd);
    if (fd >= 0)
        close(fd);
}

/* the report's JSON object and the summary hold each of the strings in want[] */
static void exported(const struct app_motionlink *k, const char *const *want, int n)
{
    char *txt = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&txt, &len);

    CHECK(f != NULL, "memstream");
    if (!f)
        return;
    app_motion_json(k, f);
    app_motion_summary(k, f, "");
    fclose(f);
    for (int i = 0; i < n; i++)
        CHECK(txt && strstr(txt, want[i]), "exported: %s not in\n%s", want[i], txt ? txt : "");
    free(txt);
}

/* RESET and ENGAGE counted as sent only once sendto sent them: at start (reset at_start) and
 * in the handshake, then the operator's (a fault, RESET and ENGAGE through the control
 * channel), some of each refused by sendto. The tries (the reset's and the handshake's logic)
 * count every datagram that commanded one; the sent counts equal what the MBC got, and the
 * report, the summary and the status datagram (motion.platform.resets) export the sent ones */
static void t_sent(void)
{
    static struct rig r; /* a feed is large: not on the stack */
    struct vd_run_motion cfg;
    char path[64], lock[72], got[64];
    int i;

    memset(&r, 0, sizeof(r));
    snprintf(path, sizeof(path), "/tmp/test_motion_feed.%d.sock", (int)getpid());
    snprintf(lock, sizeof(lock), "%s.lock", path);
    r.L.cfg.policy.period_ns = PERIOD_NS;
    r.L.nout = VD_CUE_N;
    CHECK(vd_mailbox_init(&r.L.out[0], vd_snapshot_size(r.L.nout)) == 0, "sent: the tap");
    r.b.fd = udp_at("127.0.0.1", 0, &r.b.self);
    feed_cfg(&cfg, &r.b);
    cfg.reset = VD_RUN_MOTION_RESET_AT_START;
    cfg.park_s = 0.02; /* a short park: 10 datagrams */
    snprintf(cfg.control, sizeof(cfg.control), "%s", path);
    CHECK(feed_start(&r.k, &cfg, &r.L, &r.b.feed, "sent") == 0 && r.k.ctl_fd >= 0,
          "sent: app_motion_init");

    /* at start: a fault latched before the run (HostCommandRangeExceeded): RESET, 3 refused
     * and 2 sent; the MBC clears it: ENGAGE with neutral cues, 2 refused and 1 sent; ENGAGED:
     * the state machine's fade-in (ENGAGE, not the handshake's) */
    status(&r, VD_MOOG_FAULT2, VD_MOOG_F2_RANGE_EXCEEDED);
    periods(&r, "---RR", got);
    status(&r, VD_MOOG_STANDBY, 0);
    periods(&r, "--E", got + 5);
    status(&r, VD_MOOG_ENGAGED, 0);
    periods(&r, "E", got + 8);
    CHECK(!strcmp(got, "---RR--EE"), "sent: at start the MBC got %s", got);
    CHECK(r.k.reset_tries == 5 && r.k.reset_sent == 2 && r.k.reset_acked && r.k.engage_tries == 3 &&
              r.k.engage_sent == 1 && r.k.send_errors == 5 && r.k.sent == 4 && r.k.sends == 9,
          "sent: RESET %llu of %llu, ENGAGE %llu of %llu, %llu send errors",
          (unsigned long long)r.k.reset_sent, (unsigned long long)r.k.reset_tries,
          (unsigned long long)r.k.engage_sent, (unsigned long long)r.k.engage_tries,
          (unsigned long long)r.k.send_errors);
    CHECK(r.k.st.resets == 2, "sent: the status datagram's resets %llu",
          (unsigned long long)r.k.st.resets);
    {
        static const char *const want[] = {
            "\"engage_wait_sends\": 1, \"engage_wait_tries\": 3,",
            "\"reset_sends\": 2, \"reset_tries\": 5,",
            "engage handshake: 1 ENGAGE with neutral cues sent of 3 commanded (timeout 20 s); "
            "fault reset at start: 2 RESET sent of 5 commanded, acknowledged\n"};

        exported(&r.k, want, 3);
    }

    /* a fault during the run: the feed parks (ENGAGE while fading, then DISENGAGE) */
    status(&r, VD_MOOG_FAULT2, VD_MOOG_F2_RANGE_EXCEEDED);
    for (i = 0; i < 40 && !vd_motion_sm_done(&r.k.sm); i++)
        period(&r, false);
    CHECK(vd_motion_sm_done(&r.k.sm) && r.k.sm.reason == VD_MRS_PLATFORM, "sent: parked: %s",
          vd_motion_reason_name[r.k.sm.reason]);
    /* the operator's RESET: 2 refused, 1 sent; the MBC clears the fault: DISENGAGE again */
    request(path, "RESET");
    periods(&r, "--R", got);
    status(&r, VD_MOOG_STANDBY, 0);
    periods(&r, "D", got + 3);
    /* the operator's ENGAGE: 1 refused, 1 sent; ENGAGED: the state machine's fade-in */
    request(path, "ENGAGE");
    periods(&r, "-E", got + 4);
    status(&r, VD_MOOG_ENGAGED, 0);
    periods(&r, "E", got + 6);
    CHECK(!strcmp(got, "--RD-EE"), "sent: the operator's, the MBC got %s", got);
    CHECK(r.k.op_resets_acked == 1 && r.k.op_reengages == 1 && r.k.op_reset_tries == 3 &&
              r.k.op_reset_sent == 1 && r.k.op_engage_tries == 2 && r.k.op_engage_sent == 1 &&
              r.k.reset_sent == 2 && r.k.engage_sent == 1,
          "sent: the operator's RESET %llu of %llu, ENGAGE %llu of %llu",
          (unsigned long long)r.k.op_reset_sent, (unsigned long long)r.k.op_reset_tries,
          (unsigned long long)r.k.op_engage_sent, (unsigned long long)r.k.op_engage_tries);
    CHECK(r.k.st.resets == 3, "sent: the status datagram's resets %llu (2 at start, 1 operator)",
          (unsigned long long)r.k.st.resets);
    {
        static const char *const want[] = {
            "\"resets_acked\": 1, \"resets_failed\": 0, \"resets_cut\": 0, \"reset_sends\": 1, "
            "\"reset_tries\": 3, \"engage_sends\": 1, \"engage_tries\": 2,"};

        exported(&r.k, want, 1);
    }
    app_motion_free(&r.k);
    vd_mailbox_free(&r.L.out[0]);
    close(r.b.fd);
    unlink(lock);
}

int main(void)
{
    t_sent();
    t_source();
    t_hb_seq();
    t_hold();
    t_mcast();
    t_any_listener();
    t_stale();
    for (int c = 0; c < VT_NSTARTUP; c++)
        run(vt_startups[c].what, vt_startups[c].st, vt_startups[c].have, vt_startups[c].want,
            vt_startups[c].n);
    return vt_report("test_motion_feed");
}
