/* app/cmd_motion.c - rtvd motion: the platform's end of the motion feed, for tests and bench
 * commissioning. Receives the datagrams of any format (io/motion.h), checks them as a platform
 * would (sequence gaps and reordering, late arrivals, cues beyond the limits, jerk of the
 * specific force), optionally answers with a heartbeat, prints a line a second and a summary,
 * and records every datagram to CSV (which `rtvd plot` draws). */
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

static volatile sig_atomic_t g_stop;

static void on_signal(int sig)
{
    (void)sig;
    g_stop = 1;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rtvd motion [ADDR:PORT] [--duration S] [--heartbeat HZ] [--csv FILE]\n"
            "                   [--max-jerk J] [--late-factor X] [--json FILE] [--quiet]\n"
            "                   [--exit-when-parked] [--exit-when-silent S] [--strict]\n"
            "\n"
            "The other end of rtvd run's motion feed (motion: section): receives its datagrams\n"
            "on ADDR:PORT (default 127.0.0.1:4950; [v6]:port for IPv6; a multicast group is\n"
            "joined), in any format (rtvd, moog_mda, outsim: told apart by magic and length),\n"
            "and checks them as a platform would:\n"
            "  sequence gaps (datagrams lost) and reordered or repeated ones (rtvd, moog_mda;\n"
            "  outsim: by its time field), late arrivals (an interval above --late-factor x the\n"
            "  sender's period, default 1.5), cues beyond the limits (io/motion.h defaults:\n"
            "  |f| - g 30 m/s^2, |w| 3 rad/s, |dw| 50 rad/s^2, roll/pitch 30 deg) and the\n"
            "  specific force's jerk |df/dt| above --max-jerk (default 50 m/s^3).\n"
            "It prints a line a second and a summary; the counts go to --json FILE.\n"
            "\n"
            "  --heartbeat HZ      answer the sender with heartbeat datagrams (RTVH) at HZ\n"
            "  --csv FILE          every datagram: t (since the first: send time, else\n"
            "                      arrival), t_model, seq,\n"
            "                      state, reason, fade, the cues and\n"
            "                      the pose (a POSE feed: the washout's output; else 0)\n"
            "                      (plot them with rtvd plot FILE --signals fx,fz,pitch)\n"
            "  --duration S        stop after S seconds (default: SIGINT/SIGTERM)\n"
            "  --exit-when-parked  stop after 10 datagrams parked or in fault, neutral\n"
            "  --exit-when-silent S  stop when nothing came for S seconds (after the first)\n"
            "  --strict            exit status 4 when a datagram was lost, late, beyond a\n"
            "                      limit or too jerky\n");
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
    struct sigaction sa = {.sa_handler = on_signal};

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
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    memset(&r, 0, sizeof(r));
    r.fmt = -1;
    memset(&from, 0, sizeof(from));
    t0 = vd_clock_now();
    next_line = t0 + 1000000000LL;
    next_hb = t0;
    if (!quiet)
        printf("rtvd motion: listening on %s\n", addr);
    while (!g_stop) {
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
        if (poll(&pfd, 1, 10) <= 0)
            continue;
        {
            uint8_t b[2048];
            struct sockaddr_storage fr;
            socklen_t fl = sizeof(fr);
            const ssize_t n = recvfrom(sock, b, sizeof(b), 0, (struct sockaddr *)&fr, &fl);
            const int64_t rx = vd_clock_now();
            struct vd_motion_msg m;
            int fmt;

            if (n <= 0)
                continue;
            fmt = vd_motion_decode(b, (size_t)n, &m);
            if (fmt < 0) {
                r.bad++;
                continue;
            }
            from = fr;
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
            if (r.any) {
                const double period = m.rate_hz ? 1.0 / m.rate_hz : 0.0;
                const double iv = (double)(rx - r.last_rx) * 1e-9;
                /* the time between the two datagrams as sent: the sequence step x period */
                double dt = period * (double)(int32_t)(m.seq - r.last_seq);

                if (fmt == VD_MFMT_OUTSIM) {
                    /* no sequence: gaps from the time field (ms) */
                    dt = m.t_model - r.last_t;
                } else if (m.seq != r.last_seq + 1) {
                    if ((int32_t)(m.seq - r.last_seq) > 1)
                        r.gaps += m.seq - r.last_seq - 1;
                    else
                        r.reordered++;
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
            if (vd_motion_check(&lim, m.cue, 9.81) != VD_MRS_NONE)
                r.limit++;
            r.any = true;
            r.last_seq = m.seq;
            r.last_t = m.t_model;
            r.last_rx = rx;
            memcpy(r.last_f, m.cue + VD_CUE_FX, sizeof(r.last_f));
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
                ", \"interval_max_ms\": %.4f, \"state\": \"%s\", \"reason\": \"%s\"}\n",
                r.n, r.by_fmt[0], r.by_fmt[1], r.by_fmt[2], r.bad, r.gaps, r.reordered, r.late,
                r.limit, r.jerk_max, r.jerky, r.hb_sent, r.iv_max * 1e3,
                vd_motion_state_name[r.state < VD_MST_COUNT ? r.state : 0],
                vd_motion_reason_name[r.reason < VD_MRS_COUNT ? r.reason : 0]);
        fclose(f);
    }
    if (strict && (r.gaps || r.late || r.limit || r.jerky || r.reordered))
        status = 4;
    return status;
}
