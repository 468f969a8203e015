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
#include <math.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
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
    CHECK(k.engage_wait == nE, "%s: engage_wait %llu, the MBC got %llu handshake ENGAGEs", what,
          (unsigned long long)k.engage_wait, (unsigned long long)nE);
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

int main(void)
{
    t_stale();
    for (int c = 0; c < VT_NSTARTUP; c++)
        run(vt_startups[c].what, vt_startups[c].st, vt_startups[c].have, vt_startups[c].want,
            vt_startups[c].n);
    return vt_report("test_motion_feed");
}
