/* app/cmd_motion.c - rtvd motion: the platform's end of the motion feed, for tests and bench
 * commissioning. Receives the datagrams of any format (io/motion.h), checks them as a platform
 * would (sequence gaps and reordering, late arrivals, cues beyond the limits, jerk of the
 * specific force), optionally answers with a heartbeat, prints a line a second and a summary,
 * and records every datagram to CSV (which `rtvd plot` draws). With --format moog_mda it acts
 * as a Moog MBC would (a small state machine: STANDBY, ENGAGED on ENGAGE commands, SETTLING
 * and STANDBY on DISENGAGE, a latched hostComm fault when the commands stop, RESET clearing the
 * latched faults: FAULT -> STANDBY) and answers every command with a status message (io/motion.h
 * vd_moog_status_encode); faults and states can be injected at given times, malformed status
 * datagrams sent, and ENGAGE ignored, to test the host's reaction. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "app/app.h"
#include "io/motion.h"
#include "io/udpout.h"
#include "rt/clock.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rtvd motion [ADDR:PORT] [--duration S] [--heartbeat HZ] [--csv FILE]\n"
            "                   [--max-jerk J] [--late-factor X] [--json FILE] [--quiet]\n"
            "                   [--exit-when-parked] [--exit-when-silent S] [--strict]\n"
            "                   [--format FMT] [--moog-fault W:B@S]... [--moog-state NAME@S]\n"
            "                   [--moog-timeout S] [--moog-bad-every N] [--moog-never-engage]\n"
            "                   [--moog-status-lag S]\n"
            "\n"
            "The other end of rtvd run's motion feed (motion: section): receives its datagrams\n"
            "on ADDR:PORT (default 127.0.0.1:4950; [v6]:port for IPv6; a multicast group is\n"
            "joined), in any format (rtvd, moog_mda, outsim: told apart by magic and length),\n"
            "and checks them as a platform would:\n"
            "  sequence gaps (datagrams lost) and reordered or repeated ones (rtvd, moog_mda;\n"
            "  outsim: its time going back only), late arrivals (an interval above\n"
            "  --late-factor x the sender's period, default 1.5; not outsim), cues beyond\n"
            "  the limits (io/motion.h defaults: |f| - g 30 m/s^2, |w| 3 rad/s, |dw| 50\n"
            "  rad/s^2, roll/pitch 30 deg; a pose: a value not finite) and the specific\n"
            "  force's jerk |df/dt| above --max-jerk (default 50 m/s^3). A reordered or\n"
            "  repeated datagram is counted and not otherwise used (no MBC command).\n"
            "It prints a line a second and a summary; the counts go to --json FILE.\n"
            "\n"
            "  --heartbeat HZ      answer the sender with heartbeat datagrams (RTVH) at HZ,\n"
            "                      from the port it listens on, the counter +1 per one sent\n"
            "  --csv FILE          every datagram: t (since the first: send time, else\n"
            "                      arrival), t_model, seq,\n"
            "                      state, reason, fade, the cues and\n"
            "                      the pose (a POSE feed: the washout's output; else 0)\n"
            "                      (plot them with rtvd plot FILE --signals fx,fz,pitch)\n"
            "  --duration S        stop after S seconds (default: SIGINT/SIGTERM)\n"
            "  --exit-when-parked  stop after 10 datagrams parked or in fault, neutral\n"
            "  --exit-when-silent S  stop when nothing came for S seconds (after the first)\n"
            "  --strict            exit status 4 when a datagram was lost, late, beyond a\n"
            "                      limit or too jerky\n"
            "  --format FMT        accept only FMT (rtvd, moog_mda, outsim; others counted as\n"
            "                      not a feed datagram). moog_mda: act as a Moog MBC and answer\n"
            "                      each command with a status message (io/MOTION_DATAGRAMS.md):\n"
            "                      STANDBY until ENGAGE commands come, then ENGAGED; DISENGAGE:\n"
            "                      SETTLING for 0.5 s, then STANDBY; no command for\n"
            "                      --moog-timeout S (default 0.2): fault word 1 bit 0 (hostComm)\n"
            "                      latched, state FAULT2; while no commands come, a status at\n"
            "                      the host's last update rate. RESET clears the latched\n"
            "                      fault words; a fault state (FAULT1-3) becomes STANDBY\n"
            "  --moog-fault W:B@S  latch fault word W (1-3) bit B (0-31) S seconds after the\n"
            "                      first command (state FAULT2); up to 8, e.g. 2:6@1.5 is\n"
            "                      HostCommandRangeExceeded at 1.5 s\n"
            "  --moog-state NAME@S report machine state NAME (powerup idle standby engaged\n"
            "                      settling fault1 fault2 fault3 disabled inhibited frozen)\n"
            "                      from S seconds after the first command on (held: RESET\n"
            "                      does not clear it, as a cause that persists)\n"
            "  --moog-bad-every N  make every N-th status datagram malformed, in turn: a wrong\n"
            "                      length field, an undefined machine state, an unknown\n"
            "                      feedback tag, a NaN feedback value, message id 202, cut short\n"
            "  --moog-never-engage ignore ENGAGE: stay in STANDBY (a platform that will not\n"
            "                      engage, for the host's engage timeout)\n"
            "  --moog-status-lag S report the machine state S seconds late (0 .. 10): the\n"
            "                      status says what the MBC was S ago (a slow MBC, a long\n"
            "                      path): a host must not take a stale ENGAGED or STANDBY for\n"
            "                      the present (the machine state only: the fault words\n"
            "                      come as they are)\n");
}

#define MOOG_MAX_FAULTS 8

/* the Moog-like platform of --format moog_mda */
struct moog_sim {
    bool on;
    struct vd_moog_status st;
    double timeout_s;
    int nfault;
    struct {
        int word, bit;
        double at;
        bool done;
    } fault[MOOG_MAX_FAULTS];
    int force_state; /* -1: none */
    double force_at;
    long bad_every;
    bool never_engage;     /* ENGAGE ignored */
    uint64_t resets_clear; /* RESET commands that cleared a fault */
    bool any_cmd;
    int64_t t_first, t_last_cmd, t_settle, next_idle;
    uint64_t sent, bad_sent, send_errors, cmds[8];
    uint64_t ncmd;            /* commands received */
    int64_t fault_cmd;        /* commands received when a fault was first reported; -1 none */
    int64_t disengage_cmd;    /* the first DISENGAGE after it (its index); -1 none */
    double fault_s;           /* [s] since the first command, the first fault */
    uint64_t standby_motion;  /* commands with motion (not neutral) while still in STANDBY */
    uint64_t settling_motion; /* ... while SETTLING after a DISENGAGE */
    double lag_s;             /* --moog-status-lag: the state reported this late */
    int nh;                   /* the state's history (changes, oldest first), for the lag */
    int64_t h_t[32];
    uint8_t h_s[32];
    uint32_t seq;
};

static int moog_state_code(const char *s)
{
    for (int i = 0; i < 16; i++)
        if (!strcmp(vd_moog_state_name(i), s))
            return i;
    return -1;
}

/* W:B@S */
static int parse_moog_fault(struct moog_sim *m, const char *s)
{
    char *end;
    long w, b;
    double at;

    if (m->nfault == MOOG_MAX_FAULTS)
        return -1;
    w = strtol(s, &end, 10);
    if (*end != ':' || w < 1 || w > 3)
        return -1;
    b = strtol(end + 1, &end, 10);
    if (*end != '@' || b < 0 || b > 31 || app_parse_double(end + 1, &at) || at < 0)
        return -1;
    m->fault[m->nfault].word = (int)w;
    m->fault[m->nfault].bit = (int)b;
    m->fault[m->nfault].at = at;
    m->nfault++;
    return 0;
}

/* the platform's clock: faults and forced states due, the host gone silent, settling over */
static void moog_tick(struct moog_sim *m, int64_t now, bool idle)
{
    const double t = (double)(now - m->t_first) * 1e-9;

    if (!m->any_cmd)
        return;
    for (int i = 0; i < m->nfault; i++)
        if (!m->fault[i].done && t >= m->fault[i].at) {
            m->fault[i].done = true;
            m->st.fault[m->fault[i].word - 1] |= 1u << m->fault[i].bit;
        }
    /* hostComm only when nothing is queued (idle): a receiver that was not scheduled for a
     * while must not blame the host for its own delay */
    if (idle && (double)(now - m->t_last_cmd) * 1e-9 > m->timeout_s)
        m->st.fault[0] |= VD_MOOG_F1_HOST_COMM;
    if (m->st.machine_state == VD_MOOG_SETTLING && now >= m->t_settle)
        m->st.machine_state = VD_MOOG_STANDBY;
    if (m->st.fault[0] | m->st.fault[1] | m->st.fault[2])
        m->st.machine_state = VD_MOOG_FAULT2;
    if (m->force_state >= 0 && t >= m->force_at)
        m->st.machine_state = (uint8_t)m->force_state;
    m->st.discrete_io = m->st.machine_state == VD_MOOG_STANDBY ? 0x2u : 0u; /* base at home */
    if (m->fault_cmd < 0 && vd_moog_status_fault(&m->st)) {
        m->fault_cmd = (int64_t)m->ncmd;
        m->fault_s = t;
    }
}

/* an MDA command that asks for motion: any value but the yaw not 0 (neutral: attitude, rates
 * and accelerations exactly 0) */
static bool mda_moving(const uint8_t *b)
{
    for (int i = 0; i < 12; i++) {
        const uint8_t *p = b + 28 + 4 * i;

        if (i != 2 && ((p[0] & 0x7F) | p[1] | p[2] | p[3]))
            return true;
    }
    return false;
}

/* one command (MDA, its motion command word and update rate; moving: it asks for motion) */
static void moog_command(struct moog_sim *m, uint32_t mcw, int rate_hz, bool moving, int64_t now)
{
    /* a host that waits for ENGAGED sends only neutral commands before (A.3) */
    if (moving && m->st.machine_state == VD_MOOG_STANDBY)
        m->standby_motion++;
    if (moving && m->st.machine_state == VD_MOOG_SETTLING)
        m->settling_motion++;
    if (!m->any_cmd) {
        m->any_cmd = true;
        m->t_first = now;
    }
    m->t_last_cmd = now;
    m->ncmd++;
    if (mcw == 2 && m->fault_cmd >= 0 && m->disengage_cmd < 0)
        m->disengage_cmd = (int64_t)m->ncmd;
    m->st.update_rate = (uint16_t)rate_hz;
    m->st.motion_mode = 3; /* MDA */
    m->cmds[mcw < 8 ? mcw : 7]++;
    switch (mcw) {
    case 1: /* ENGAGE */
        if (m->st.machine_state == VD_MOOG_STANDBY && !m->never_engage)
            m->st.machine_state = VD_MOOG_ENGAGED;
        break;
    case 2: /* DISENGAGE */
        if (m->st.machine_state == VD_MOOG_ENGAGED) {
            m->st.machine_state = VD_MOOG_SETTLING;
            m->t_settle = now + 500000000LL;
        }
        break;
    case 3: /* RESET: the latched faults cleared */
        if (vd_moog_status_fault(&m->st))
            m->resets_clear++;
        memset(m->st.fault, 0, sizeof(m->st.fault));
        if (m->st.machine_state >= VD_MOOG_FAULT1 && m->st.machine_state <= VD_MOOG_FAULT3)
            m->st.machine_state = VD_MOOG_STANDBY;
        break;
    default:
        break;
    }
    moog_tick(m, now, false);
}

/* a status datagram to the host (every bad_every-th malformed, in turn) */
static void moog_send(struct moog_sim *m, int sock, const struct sockaddr_storage *to)
{
    const int64_t now = vd_clock_now();
    struct vd_moog_status rep = m->st;
    uint8_t b[VD_MOOG_STATUS_MAX];
    bool bad;
    int n;

    /* the state's changes (at the sends that saw them), the oldest dropped when full; the
     * state reported: the newest change at least lag_s old (the oldest kept, if none is) */
    if (m->nh == 0 || m->h_s[m->nh - 1] != m->st.machine_state) {
        if (m->nh == 32) {
            memmove(m->h_t, m->h_t + 1, sizeof(m->h_t[0]) * 31);
            memmove(m->h_s, m->h_s + 1, sizeof(m->h_s[0]) * 31);
            m->nh--;
        }
        m->h_t[m->nh] = now;
        m->h_s[m->nh++] = m->st.machine_state;
    }
    if (m->lag_s > 0) {
        int i = m->nh - 1;

        while (i > 0 && (double)(now - m->h_t[i]) * 1e-9 < m->lag_s)
            i--;
        rep.machine_state = m->h_s[i];
    }
    m->st.seq = m->seq++;
    rep.seq = m->st.seq;
    n = vd_moog_status_encode(&rep, b, sizeof(b));
    /* malformed on purpose: every bad_every-th status (broken below, counted once sent) */
    bad = m->bad_every > 0 && m->seq % (uint32_t)m->bad_every == 0;
    if (bad) {
        switch ((m->seq / (uint32_t)m->bad_every) % 6) {
        case 0: /* length field */
            b[3] ^= 4;
            break;
        case 1: /* machine state 5 */
            b[19] = (uint8_t)((b[19] & 0xF0) | 5);
            break;
        case 2: /* unknown feedback tag */
            b[39] = 9;
            break;
        case 3: /* a platform-acceleration record holding a NaN */
            b[39] = 4;
            b[40] = 0x7F, b[41] = 0xC0, b[42] = 0, b[43] = 0;
            memset(b + 44, 0, 12);
            n += 16;
            b[3] = (uint8_t)(n - 16);
            break;
        case 4: /* id 202 */
            b[15] = 202;
            break;
        default: /* cut short */
            n -= 8;
            break;
        }
    }
    if (sendto(sock, b, (size_t)n, MSG_DONTWAIT, (const struct sockaddr *)to,
               to->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                         : sizeof(struct sockaddr_in)) == n) {
        m->sent++;
        m->bad_sent += bad; /* malformed on purpose, and sent */
    } else {
        m->send_errors++;
    }
}

struct rx {
    uint64_t n, bad, by_fmt[VD_MFMT_COUNT], gaps, reordered, late, limit, jerky;
    uint64_t hb_sent;
    bool any;
    uint32_t last_seq;
    double last_t, last_f[3], jerk_max, gap_max_ms, iv_sum, iv_max;
    int64_t last_rx, t_first_rx;
    int fmt, state, reason;
    uint64_t parked_n;
    double latency_sum_us, latency_max_us;
    uint64_t latency_n;
};

int cmd_motion(int argc, char **argv)
{
    static const struct option opts[] = {
        {"duration", required_argument, 0, 'd'},
        {"heartbeat", required_argument, 0, 'H'},
        {"csv", required_argument, 0, 'c'},
        {"max-jerk", required_argument, 0, 'j'},
        {"late-factor", required_argument, 0, 'l'},
        {"json", required_argument, 0, 'J'},
        {"quiet", no_argument, 0, 'q'},
        {"exit-when-parked", no_argument, 0, 'p'},
        {"strict", no_argument, 0, 's'},
        {"help", no_argument, 0, 'h'},
        {"exit-when-silent", required_argument, 0, 'S'},
        {"format", required_argument, 0, 'F'},
        {"moog-fault", required_argument, 0, 1001},
        {"moog-state", required_argument, 0, 1002},
        {"moog-timeout", required_argument, 0, 1003},
        {"moog-bad-every", required_argument, 0, 1004},
        {"moog-never-engage", no_argument, 0, 1005},
        {"moog-status-lag", required_argument, 0, 1006},
        {0, 0, 0, 0},
    };
    const struct vd_motion_limits lim = {.f = 30, .w = 3, .dw = 50, .angle = 30 * M_PI / 180};
    const char *addr = "127.0.0.1:4950", *csv = NULL, *json = NULL;
    double duration = 0, hb_hz = 0, max_jerk = 50, late_factor = 1.5, silent = 0;
    bool quiet = false, until_parked = false, strict = false;
    struct sockaddr_storage ss, from;
    socklen_t len;
    struct rx r;
    FILE *cf = NULL;
    int sock, c, status = 0;
    int64_t t0, next_line, next_hb;
    struct moog_sim moog = {
        .timeout_s = 0.2, .force_state = -1, .fault_cmd = -1, .disengage_cmd = -1};
    int only_fmt = -1;

    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd':
            if (app_parse_double(optarg, &duration) || duration < 0)
                return usage(stderr), 2;
            break;
        case 'H':
            if (app_parse_double(optarg, &hb_hz) || hb_hz < 0 || hb_hz > 1000)
                return usage(stderr), 2;
            break;
        case 'c':
            csv = optarg;
            break;
        case 'j':
            if (app_parse_double(optarg, &max_jerk) || !(max_jerk > 0))
                return usage(stderr), 2;
            break;
        case 'l':
            if (app_parse_double(optarg, &late_factor) || !(late_factor > 1))
                return usage(stderr), 2;
            break;
        case 'J':
            json = optarg;
            break;
        case 'S':
            if (app_parse_double(optarg, &silent) || !(silent > 0))
                return usage(stderr), 2;
            break;
        case 'q':
            quiet = true;
            break;
        case 'F':
            for (only_fmt = 0; only_fmt < VD_MFMT_COUNT; only_fmt++)
                if (!strcmp(optarg, vd_motion_fmt_name[only_fmt]))
                    break;
            if (only_fmt == VD_MFMT_COUNT) {
                fprintf(stderr, "rtvd motion: --format %s: one of rtvd, moog_mda, outsim\n",
                        optarg);
                return 2;
            }
            break;
        case 1001:
            if (parse_moog_fault(&moog, optarg)) {
                fprintf(stderr,
                        "rtvd motion: --moog-fault %s: WORD:BIT@SECONDS, word 1-3, "
                        "bit 0-31, at most 8\n",
                        optarg);
                return 2;
            }
            break;
        case 1002: {
            const char *at = strchr(optarg, '@');
            char name[16];

            if (!at || at - optarg >= (long)sizeof(name)) {
                fprintf(stderr, "rtvd motion: --moog-state %s: NAME@SECONDS\n", optarg);
                return 2;
            }
            memcpy(name, optarg, (size_t)(at - optarg));
            name[at - optarg] = 0;
            moog.force_state = moog_state_code(name);
            if (moog.force_state < 0 || app_parse_double(at + 1, &moog.force_at) ||
                moog.force_at < 0) {
                fprintf(stderr, "rtvd motion: --moog-state %s: unknown state or time\n", optarg);
                return 2;
            }
            break;
        }
        case 1003:
            if (app_parse_double(optarg, &moog.timeout_s) || !(moog.timeout_s > 0))
                return usage(stderr), 2;
            break;
        case 1004:
            if (app_parse_long(optarg, &moog.bad_every) || moog.bad_every < 2)
                return usage(stderr), 2;
            break;
        case 1005:
            moog.never_engage = true;
            break;
        case 1006:
            if (app_parse_double(optarg, &moog.lag_s) || !(moog.lag_s >= 0) || moog.lag_s > 10)
                return usage(stderr), 2;
            break;
        case 'p':
            until_parked = true;
            break;
        case 's':
            strict = true;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc)
        addr = argv[optind++];
    if ((moog.nfault || moog.force_state >= 0 || moog.bad_every || moog.never_engage ||
         moog.lag_s > 0) &&
        only_fmt != VD_MFMT_MOOG_MDA) {
        fprintf(stderr, "rtvd motion: the --moog-* options need --format moog_mda\n");
        return 2;
    }
    moog.on = only_fmt == VD_MFMT_MOOG_MDA;
    moog.st.machine_state = VD_MOOG_STANDBY;
    moog.st.discrete_io = 0x2; /* base at home */
    if (optind < argc || vd_udp_parse_any(addr, &ss, &len)) {
        fprintf(stderr, "rtvd motion: bad address '%s' (a.b.c.d:port or [v6]:port)\n", addr);
        return 2;
    }
    sock = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    {
        /* a platform's buffer: 4 MiB (forced where allowed), so that a receiver that is not
         * scheduled for a while loses nothing of a 1 kHz feed */
        int one = 1, big = 4 << 20;

        if (sock >= 0) {
            setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
            if (setsockopt(sock, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)))
                setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
        }
    }
    if (sock < 0 || bind(sock, (struct sockaddr *)&ss, len)) {
        fprintf(stderr, "rtvd motion: cannot bind %s: %s\n", addr, strerror(errno));
        if (sock >= 0)
            close(sock);
        return 1;
    }
    /* a multicast group: join it on any interface */
    if (ss.ss_family == AF_INET &&
        IN_MULTICAST(ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr))) {
        struct ip_mreq mr = {.imr_multiaddr = ((struct sockaddr_in *)&ss)->sin_addr};

        setsockopt(sock, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mr, sizeof(mr));
    } else if (ss.ss_family == AF_INET6 &&
               IN6_IS_ADDR_MULTICAST(&((struct sockaddr_in6 *)&ss)->sin6_addr)) {
        struct ipv6_mreq mr = {.ipv6mr_multiaddr = ((struct sockaddr_in6 *)&ss)->sin6_addr};

        setsockopt(sock, IPPROTO_IPV6, IPV6_JOIN_GROUP, &mr, sizeof(mr));
    }
    if (csv) {
        cf = fopen(csv, "w");
        if (!cf) {
            fprintf(stderr, "rtvd motion: cannot create %s: %s\n", csv, strerror(errno));
            close(sock);
            return 1;
        }
        static const char *const pn[VD_MOTION_NPOSE] = {
            "surge",   "sway",   "heave",   "p_roll", "p_pitch", "p_yaw",
            "v_surge", "v_sway", "v_heave", "v_roll", "v_pitch", "v_yaw",
            "a_surge", "a_sway", "a_heave", "a_roll", "a_pitch", "a_yaw"};

        fputs("t,t_model,seq,state,reason,fade", cf);
        for (int i = 0; i < VD_CUE_N; i++)
            fprintf(cf, ",%s", vd_cue_name[i]);
        for (int i = 0; i < VD_MOTION_NPOSE; i++)
            fprintf(cf, ",%s", pn[i]);
        fputc('\n', cf);
    }
    app_stop_on_signals();
    memset(&r, 0, sizeof(r));
    r.fmt = -1;
    memset(&from, 0, sizeof(from));
    t0 = vd_clock_now();
    next_line = t0 + 1000000000LL;
    next_hb = t0;
    if (!quiet) {
        printf("rtvd motion: listening on %s\n", addr);
        fflush(stdout); /* at once, also into a file: the line says the socket is bound */
    }
    while (!app_stop) {
        struct pollfd pfd = {.fd = sock, .events = POLLIN};
        const int64_t now = vd_clock_now();

        if (duration > 0 && now - t0 > (int64_t)(duration * 1e9))
            break;
        if (until_parked && r.parked_n >= 10)
            break;
        if (silent > 0 && r.any && (double)(now - r.last_rx) * 1e-9 > silent)
            break;
        /* heartbeat to the last sender */
        if (hb_hz > 0 && r.any && now >= next_hb) {
            uint8_t hb[VD_MOTION_HB_BYTES];
            const int n = vd_motion_heartbeat_encode(r.hb_sent, hb, sizeof(hb));

            if (sendto(sock, hb, (size_t)n, MSG_DONTWAIT, (struct sockaddr *)&from,
                       from.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                                  : sizeof(struct sockaddr_in)) == n)
                r.hb_sent++;
            next_hb = now + (int64_t)(1e9 / hb_hz);
        }
        if (!quiet && now >= next_line) {
            printf("rtvd motion: %" PRIu64 " datagrams (%s) %s%s%s; gaps %" PRIu64
                   ", reordered %" PRIu64 ", late %" PRIu64 ", beyond limits %" PRIu64
                   ", jerk max %.1f m/s^3 (%" PRIu64 " above %.0f)\n",
                   r.n, r.fmt >= 0 ? vd_motion_fmt_name[r.fmt] : "-",
                   vd_motion_state_name[r.state < VD_MST_COUNT ? r.state : 0],
                   r.reason ? " after " : "",
                   vd_motion_reason_name[r.reason < VD_MRS_COUNT ? r.reason : 0], r.gaps,
                   r.reordered, r.late, r.limit, r.jerk_max, r.jerky, max_jerk);
            fflush(stdout);
            next_line += 1000000000LL;
        }
        if (poll(&pfd, 1, moog.on ? 2 : 10) <= 0) {
            if (moog.on && moog.any_cmd) {
                /* nothing queued: the platform's clock, and a status at the host's rate while
                 * the commands stay away (so that a host still listening sees hostComm) */
                const int64_t t = vd_clock_now();

                moog_tick(&moog, t, true);
                if (t >= moog.next_idle && (double)(t - moog.t_last_cmd) * 1e-9 > moog.timeout_s) {
                    moog_send(&moog, sock, &from);
                    moog.next_idle =
                        t + (int64_t)(1e9 / (moog.st.update_rate ? moog.st.update_rate : 100));
                }
            }
            continue;
        }
        {
            uint8_t b[2048];
            struct sockaddr_storage fr;
            socklen_t fl = sizeof(fr);
            const ssize_t n = recvfrom(sock, b, sizeof(b), 0, (struct sockaddr *)&fr, &fl);
            const int64_t rx = vd_clock_now();
            struct vd_motion_msg m;
            bool newer;
            int fmt;

            if (n < 0)
                continue;
            if (n == 0) { /* an empty datagram: malformed */
                r.bad++;
                continue;
            }
            fmt = vd_motion_decode(b, (size_t)n, &m);
            if (fmt < 0 || (only_fmt >= 0 && fmt != only_fmt)) {
                r.bad++;
                continue;
            }
            from = fr;
            /* newer than the last one taken: by its sequence number, OutSim by its time field
             * (a late, reordered or repeated datagram is counted and otherwise not used: it
             * neither commands the emulated MBC nor becomes the reference of the next) */
            newer = !r.any || (fmt == VD_MFMT_OUTSIM ? m.t_model >= r.last_t
                                                     : (int32_t)(m.seq - r.last_seq) > 0);
            if (moog.on && newer) {
                /* the motion command word, as sent (decode maps it to a state) */
                const uint32_t mcw =
                    (uint32_t)b[16] << 24 | (uint32_t)b[17] << 16 | (uint32_t)b[18] << 8 | b[19];

                moog_command(&moog, mcw, m.rate_hz, mda_moving(b), rx);
                moog_send(&moog, sock, &from);
                moog.next_idle = rx + (int64_t)(1e9 / (m.rate_hz ? m.rate_hz : 100));
            }
            r.n++;
            r.by_fmt[fmt]++;
            r.fmt = fmt;
            r.state = m.state;
            r.reason = m.reason;
            if ((m.state == VD_MST_PARKED || m.state == VD_MST_FAULT) && m.fade == 0.0f)
                r.parked_n++;
            if (fmt == VD_MFMT_RTVD && m.t_send_ns > 0) {
                /* same host: CLOCK_MONOTONIC shared */
                const double us = (double)(rx - m.t_send_ns) * 1e-3;

                if (us >= 0 && us < 1e6) {
                    r.latency_sum_us += us;
                    r.latency_n++;
                    r.latency_max_us = fmax(r.latency_max_us, us);
                }
            }
            if (r.any && !newer) {
                r.reordered++;
            } else if (r.any) {
                const double period = m.rate_hz ? 1.0 / m.rate_hz : 0.0;
                const double iv = (double)(rx - r.last_rx) * 1e-9;
                /* the time between the two datagrams as sent: the sequence step x period */
                double dt = period * (double)(int32_t)(m.seq - r.last_seq);

                if (fmt == VD_MFMT_OUTSIM) {
                    /* no sequence and no rate: the model's time (it advances unevenly when the
                     * loop skips cycles and stands while parked), so no gaps or lateness from
                     * it; a time going back is a reordered datagram (above) */
                    dt = m.t_model - r.last_t;
                } else if (m.seq != r.last_seq + 1) {
                    r.gaps += m.seq - r.last_seq - 1;
                }
                if (period > 0 && iv > late_factor * period)
                    r.late++;
                r.iv_max = fmax(r.iv_max, iv);
                r.iv_sum += iv;
                if (dt > 0) {
                    double j = 0;

                    for (int i = 0; i < 3; i++)
                        j = fmax(j, fabs(m.cue[VD_CUE_FX + i] - r.last_f[i]) / dt);
                    r.jerk_max = fmax(r.jerk_max, j);
                    if (j > max_jerk)
                        r.jerky++;
                }
            }
            if (m.type == VD_MTYPE_POSE) {
                /* a washout's pose: no limits of its own here, but every value finite */
                bool finite = true;

                for (int i = 0; i < VD_MOTION_NPOSE; i++)
                    finite = finite && isfinite(m.pose[i]);
                r.limit += !finite;
            } else if (vd_motion_check(&lim, m.cue, 9.81) != VD_MRS_NONE) {
                r.limit++;
            }
            r.last_rx = rx;
            if (newer) {
                r.any = true;
                r.last_seq = m.seq;
                r.last_t = m.t_model;
                memcpy(r.last_f, m.cue + VD_CUE_FX, sizeof(r.last_f));
            }
            if (cf) {
                /* t: since the first datagram, by the sender's clock where the format has it
                 * (rtvd), else by arrival: monotonic also while parked, when the model time
                 * stands still */
                const int64_t tt = m.t_send_ns > 0 ? m.t_send_ns : rx;

                if (!r.t_first_rx)
                    r.t_first_rx = tt;
                fprintf(cf, "%.6f,%.6f,%" PRIu32 ",%d,%d,%.4f", (double)(tt - r.t_first_rx) * 1e-9,
                        m.t_model, m.seq, m.state, m.reason, (double)m.fade);
                for (int i = 0; i < VD_CUE_N; i++)
                    fprintf(cf, ",%.9g", m.cue[i]);
                for (int i = 0; i < VD_MOTION_NPOSE; i++)
                    fprintf(cf, ",%.9g", m.pose[i]);
                fputc('\n', cf);
            }
        }
    }
    close(sock);
    if (cf)
        fclose(cf);
    printf("rtvd motion: summary: %" PRIu64 " datagrams (rtvd %" PRIu64 ", moog_mda %" PRIu64
           ", outsim %" PRIu64 "), %" PRIu64 " not a feed datagram; last state %s%s%s\n",
           r.n, r.by_fmt[0], r.by_fmt[1], r.by_fmt[2], r.bad,
           vd_motion_state_name[r.state < VD_MST_COUNT ? r.state : 0], r.reason ? " after " : "",
           vd_motion_reason_name[r.reason < VD_MRS_COUNT ? r.reason : 0]);
    printf("  sequence gaps %" PRIu64 ", reordered %" PRIu64 ", late %" PRIu64
           " (interval max %.2f ms, mean %.3f ms), beyond limits %" PRIu64
           ", jerk max %.1f m/s^3 (%" PRIu64 " above %.0f), heartbeats sent %" PRIu64 "\n",
           r.gaps, r.reordered, r.late, r.iv_max * 1e3,
           r.n > 1 ? r.iv_sum / (double)(r.n - 1) * 1e3 : 0.0, r.limit, r.jerk_max, r.jerky,
           max_jerk, r.hb_sent);
    if (r.latency_n)
        printf("  send-to-receive latency (same host) mean %.1f us, max %.1f us\n",
               r.latency_sum_us / (double)r.latency_n, r.latency_max_us);
    if (moog.on)
        printf("  Moog platform: state %s, fault words 0x%08" PRIx32 " 0x%08" PRIx32 " 0x%08" PRIx32
               "; %" PRIu64 " status messages sent (%" PRIu64 " malformed on purpose, %" PRIu64
               " send errors); commands: %" PRIu64 " null, %" PRIu64 " engage, %" PRIu64
               " disengage, %" PRIu64 " reset\n",
               vd_moog_state_name(moog.st.machine_state), moog.st.fault[0], moog.st.fault[1],
               moog.st.fault[2], moog.sent, moog.bad_sent, moog.send_errors, moog.cmds[0],
               moog.cmds[1], moog.cmds[2], moog.cmds[3]);
    if (json) {
        FILE *f = fopen(json, "w");

        if (!f) {
            fprintf(stderr, "rtvd motion: cannot create %s: %s\n", json, strerror(errno));
            return 1;
        }
        fprintf(f,
                "{\"datagrams\": %" PRIu64 ", \"rtvd\": %" PRIu64 ", \"moog_mda\": %" PRIu64
                ", \"outsim\": %" PRIu64 ", \"bad\": %" PRIu64 ", \"gaps\": %" PRIu64
                ", \"reordered\": %" PRIu64 ", \"late\": %" PRIu64 ", \"beyond_limits\": %" PRIu64
                ", \"jerk_max\": %.6g, \"jerky\": %" PRIu64 ", \"heartbeats_sent\": %" PRIu64
                ", \"interval_max_ms\": %.4f, \"state\": \"%s\", \"reason\": \"%s\"",
                r.n, r.by_fmt[0], r.by_fmt[1], r.by_fmt[2], r.bad, r.gaps, r.reordered, r.late,
                r.limit, r.jerk_max, r.jerky, r.hb_sent, r.iv_max * 1e3,
                vd_motion_state_name[r.state < VD_MST_COUNT ? r.state : 0],
                vd_motion_reason_name[r.reason < VD_MRS_COUNT ? r.reason : 0]);
        if (moog.on)
            fprintf(
                f,
                ", \"moog\": {\"state\": \"%s\", \"fault_words\": [%" PRIu32 ", %" PRIu32
                ", %" PRIu32 "], \"status_sent\": %" PRIu64 ", \"bad_sent\": %" PRIu64
                ", \"send_errors\": %" PRIu64 ", \"engage\": %" PRIu64 ", \"disengage\": %" PRIu64
                ", \"commands\": %" PRIu64 ", \"fault_at_command\": %" PRId64 ", \"fault_s\": %.4f"
                ", \"first_disengage_after_fault\": %" PRId64 ", \"motion_in_standby\": %" PRIu64
                ", \"motion_in_settling\": %" PRIu64 ", \"reset\": %" PRIu64
                ", \"resets_cleared\": %" PRIu64 ", \"never_engage\": %s}",
                vd_moog_state_name(moog.st.machine_state), moog.st.fault[0], moog.st.fault[1],
                moog.st.fault[2], moog.sent, moog.bad_sent, moog.send_errors, moog.cmds[1],
                moog.cmds[2], moog.ncmd, moog.fault_cmd, moog.fault_s, moog.disengage_cmd,
                moog.standby_motion, moog.settling_motion, moog.cmds[3], moog.resets_clear,
                moog.never_engage ? "true" : "false");
        fputs("}\n", f);
        fclose(f);
    }
    if (strict && (r.gaps || r.late || r.limit || r.jerky || r.reordered))
        status = 4;
    return status;
}
