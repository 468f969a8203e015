/* app/cmd_monitor.c - rtvd monitor: receives the status datagrams of one or several targets
 * (rtvd run, rt/telemetry.h) and shows them live in the terminal (plain ANSI, works over ssh),
 * and with --http serves a web page with live charts, its data (/api/status) and Prometheus
 * metrics (/metrics). One thread: poll(2)-style select over the UDP sockets and the HTTP
 * server's sockets. A process of its own: nothing here touches a target's threads.
 * HTTP through libmicrohttpd (Debian libmicrohttpd-dev): a small, security-maintained C
 * server whose external-select mode lets this single thread serve it beside the sockets, with
 * no lock and no thread of its own. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "app/monitor.h"
#include "io/udpout.h"

#define MAX_LISTEN 8
/* HTTP connections served at once, and of them from one client address when bound elsewhere
 * than loopback */
#define HTTP_CONN_MAX    64
#define HTTP_CONN_PER_IP 32
/* [bytes] the receive buffer: any UDP payload over IPv4 (at most 65507 bytes) fits, so a
 * datagram over 16 KiB is read whole and counted as too_big; recvfrom's MSG_TRUNC gives the
 * true length of a longer one (truncated) */
#define RECV_MAX 65536

extern const unsigned char app_monitor_page[];
extern const size_t app_monitor_page_len;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rtvd monitor [ADDR:PORT ...] [options]\n"
            "\n"
            "Receive the status datagrams of one or several rtvd targets and show them live:\n"
            "per target the cyclictest line, wake-up / execution / turnaround min, avg, max,\n"
            "the core's stage times, overruns (total, consecutive, longest, latched), the CAN\n"
            "counters (and a motion feed's when present), with an alarm on a new overrun, a\n"
            "CAN timeout, a step error or a target that went silent. ADDR:PORT are the UDP\n"
            "addresses to listen on (default 127.0.0.1:9870, where rtvd run sends by default;\n"
            "0.0.0.0:9870 for targets on other machines, with their telemetry.udp pointing\n"
            "here). Targets are told apart by their sender address.\n"
            "\n"
            "  --http ADDR:PORT|PORT  serve the web view (live charts) at /, its data at\n"
            "                        /api/status and Prometheus metrics at /metrics; a bare\n"
            "                        PORT binds 127.0.0.1 (0.0.0.0:PORT to expose it);\n"
            "                        at most 64 connections at once (more are closed), and\n"
            "                        bound elsewhere than loopback at most 32 of them from\n"
            "                        one client address (on loopback all come from 127.0.0.1)\n"
            "  --allow ADDR[/LEN]    accept datagrams only from these senders (repeatable);\n"
            "                        others are counted as unknown_sender\n"
            "  --silence S           a target is silent after S seconds without a datagram\n"
            "                        (default 2)\n"
            "  --interval S          terminal refresh (default 0.5 s on a terminal, else a\n"
            "                        block every 1 s)\n"
            "  --plain               no colours and no redrawing, even on a terminal\n"
            "  --quiet               no terminal view (a server for the web view and metrics)\n"
            "  --duration S          exit after S seconds (default: until SIGINT/SIGTERM)\n"
            "  --exit-when-done      exit once every target seen has sent its final datagram\n"
            "  --help                this text\n"
            "\n"
            "Rejected datagrams, counted by reason and never applied: too_big (over 16 KiB),\n"
            "truncated (longer than the 64 KiB receive buffer: none over IPv4), not_json (a\n"
            "whole datagram that does not parse, an early end included), not a status, of a newer\n"
            "version, bad fields, unknown senders, too many targets, stale sequence numbers.\n"
            "Exit status: 0, or 1 when a socket cannot be opened, 2 usage.\n");
}

static double now_s(clockid_t clk)
{
    struct timespec ts;

    clock_gettime(clk, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct mon_ctx {
    struct app_monitor mon;
    int points; /* default per-cycle values in /api/status */
};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code, const char *type, void *buf,
                             size_t len, enum MHD_ResponseMemoryMode mode)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, buf, mode);
    enum MHD_Result rc;

    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    rc = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    return rc;
}

static enum MHD_Result on_http(void *cls, struct MHD_Connection *c, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_size, void **req)
{
    struct mon_ctx *ctx = cls;
    static const char not_found[] = "not found\n", bad_method[] = "only GET\n";
    const double mono = now_s(CLOCK_MONOTONIC);
    size_t len = 0;
    char *s;

    (void)version;
    (void)upload;
    (void)req;
    ctx->mon.http_requests++;
    if (strcmp(method, "GET") && strcmp(method, "HEAD"))
        return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", (void *)bad_method,
                     sizeof(bad_method) - 1, MHD_RESPMEM_PERSISTENT);
    if (*upload_size)
        return MHD_NO;
    if (!strcmp(url, "/") || !strcmp(url, "/index.html"))
        return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", (void *)app_monitor_page,
                     app_monitor_page_len, MHD_RESPMEM_PERSISTENT);
    if (!strcmp(url, "/metrics")) {
        s = app_monitor_metrics(&ctx->mon, mono, &len);
        return s ? reply(c, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", s, len,
                         MHD_RESPMEM_MUST_FREE)
                 : MHD_NO;
    }
    if (!strcmp(url, "/api/status")) {
        const char *p = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "points");
        long points = ctx->points;

        if (p && (app_parse_long(p, &points) || points < 0 || points > APP_MON_SERIES))
            points = ctx->points;
        s = app_monitor_json(&ctx->mon, mono, (int)points, &len);
        return s ? reply(c, MHD_HTTP_OK, "application/json", s, len, MHD_RESPMEM_MUST_FREE)
                 : MHD_NO;
    }
    return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", (void *)not_found, sizeof(not_found) - 1,
                 MHD_RESPMEM_PERSISTENT);
}

/* "ADDR:PORT" or "PORT" (127.0.0.1); port 0: any free one */
static int parse_http(const char *s, struct sockaddr_in *a)
{
    char buf[80];
    long port;

    if (!strchr(s, ':')) {
        if (app_parse_long(s, &port) || port < 0 || port > 65535)
            return -1;
        snprintf(buf, sizeof(buf), "127.0.0.1:%ld", port);
        s = buf;
    }
    if (!strcmp(strrchr(s, ':'), ":0")) {
        /* vd_udp_parse wants a port >= 1 */
        snprintf(buf, sizeof(buf), "%.*s:1", (int)(strrchr(s, ':') - s), s);
        if (vd_udp_parse(buf, a))
            return -1;
        a->sin_port = 0;
        return 0;
    }
    return vd_udp_parse(s, a) ? -1 : 0;
}

static void draw(struct mon_ctx *ctx, bool tty, bool color, const char *listen)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);

    if (!f)
        return;
    if (tty)
        fputs("\033[H", f);
    app_monitor_text(&ctx->mon, f, color, now_s(CLOCK_MONOTONIC), listen);
    if (tty) {
        /* clear what is left of each line and below: redraw without flicker */
        fclose(f);
        f = NULL;
        for (char *p = s; *p; p++) {
            if (*p == '\n')
                fputs("\033[K", stdout);
            fputc(*p, stdout);
        }
        fputs("\033[J", stdout);
    } else {
        fputs("--\n", f);
        fclose(f);
        f = NULL;
        fwrite(s, 1, n, stdout);
    }
    fflush(stdout);
    free(s);
}

int cmd_monitor(int argc, char **argv)
{
    static const struct option lopts[] = {
        {"http", required_argument, 0, 'H'},     {"allow", required_argument, 0, 'a'},
        {"silence", required_argument, 0, 's'},  {"interval", required_argument, 0, 'i'},
        {"plain", no_argument, 0, 'p'},          {"quiet", no_argument, 0, 'q'},
        {"duration", required_argument, 0, 'd'}, {"exit-when-done", no_argument, 0, 'x'},
        {"help", no_argument, 0, 'h'},           {0, 0, 0, 0}};
    struct app_monitor_cfg cfg;
    struct mon_ctx *ctx = NULL;
    struct sockaddr_in http_addr;
    const char *http = NULL;
    double interval = -1.0, duration = 0.0;
    bool plain = false, quiet = false, when_done = false;
    int fd[MAX_LISTEN], nfd = 0, ch, status = 1;
    char listen[MAX_LISTEN * 24] = "";
    struct MHD_Daemon *mhd = NULL;
    char *buf = NULL;

    app_monitor_cfg_default(&cfg);
    optind = 1;
    while ((ch = getopt_long(argc, argv, "hq", lopts, NULL)) != -1) {
        switch (ch) {
        case 'H':
            http = optarg;
            if (parse_http(optarg, &http_addr))
                goto bad;
            break;
        case 'a':
            if (cfg.nallow >= APP_MON_MAX_ALLOW ||
                app_monitor_parse_allow(optarg, &cfg.allow[cfg.nallow]))
                goto bad;
            cfg.nallow++;
            break;
        case 's':
            if (app_parse_double(optarg, &cfg.silence_s) || cfg.silence_s <= 0)
                goto bad;
            break;
        case 'i':
            if (app_parse_double(optarg, &interval) || interval < 0.05)
                goto bad;
            break;
        case 'p':
            plain = true;
            break;
        case 'q':
            quiet = true;
            break;
        case 'd':
            if (app_parse_double(optarg, &duration) || duration < 0)
                goto bad;
            break;
        case 'x':
            when_done = true;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (argc - optind > MAX_LISTEN) {
        fprintf(stderr, "rtvd monitor: at most %d addresses to listen on\n", MAX_LISTEN);
        return 2;
    }

    ctx = calloc(1, sizeof(*ctx));
    buf = malloc(RECV_MAX);
    if (!ctx || !buf || app_monitor_init(&ctx->mon, &cfg)) {
        fprintf(stderr, "rtvd monitor: out of memory\n");
        free(ctx);
        free(buf);
        return 1;
    }
    ctx->points = 5000;
    for (int i = optind; i < argc || (i == optind && argc == optind); i++) {
        const char *spec = i < argc ? argv[i] : "127.0.0.1:9870";
        struct sockaddr_in a;
        socklen_t alen = sizeof(a);
        const int rcvbuf = 1 << 20;

        if (vd_udp_parse(spec, &a)) {
            fprintf(stderr, "rtvd monitor: '%s' is not IPV4:PORT\n", spec);
            status = 2;
            goto out;
        }
        fd[nfd] = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd[nfd] < 0 || bind(fd[nfd], (struct sockaddr *)&a, sizeof(a)) ||
            getsockname(fd[nfd], (struct sockaddr *)&a, &alen)) {
            fprintf(stderr, "rtvd monitor: cannot listen on %s: %s\n", spec, strerror(errno));
            if (fd[nfd] >= 0)
                close(fd[nfd]);
            goto out;
        }
        setsockopt(fd[nfd], SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
        nfd++;
        snprintf(listen + strlen(listen), sizeof(listen) - strlen(listen), "%s%s",
                 *listen ? ", " : "", spec);
    }
    if (http) {
        /* bound to loopback, every client (each browser tab, a local Prometheus) comes from
         * 127.0.0.1: a per-address limit would only refuse them. Bound elsewhere, no one
         * address may take every connection. MHD: 0 is no per-address limit */
        const bool loopback = (ntohl(http_addr.sin_addr.s_addr) >> 24) == 127;
        const unsigned per_ip = loopback ? 0u : HTTP_CONN_PER_IP;

        mhd = MHD_start_daemon(MHD_USE_ERROR_LOG, ntohs(http_addr.sin_port), NULL, NULL, on_http,
                               ctx, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&http_addr,
                               MHD_OPTION_CONNECTION_LIMIT, (unsigned)HTTP_CONN_MAX,
                               MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip,
                               MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10, MHD_OPTION_END);
        if (!mhd) {
            fprintf(stderr, "rtvd monitor: cannot serve HTTP on %s\n", http);
            goto out;
        }
        {
            const union MHD_DaemonInfo *di = MHD_get_daemon_info(mhd, MHD_DAEMON_INFO_BIND_PORT);
            char host[INET_ADDRSTRLEN];

            inet_ntop(AF_INET, &http_addr.sin_addr, host, sizeof(host));
            fprintf(stderr,
                    "rtvd monitor: web view http://%s:%u/ (data /api/status, Prometheus "
                    "/metrics)\n",
                    host, di ? (unsigned)di->port : (unsigned)ntohs(http_addr.sin_port));
        }
    }
    fprintf(stderr, "rtvd monitor: listening for status datagrams on %s\n", listen);

    app_stop_on_signals();
    {
        const bool tty = !plain && !quiet && isatty(STDOUT_FILENO);
        const double t0 = now_s(CLOCK_MONOTONIC);
        double next_draw = t0, next_tick = t0;

        if (interval < 0)
            interval = tty ? 0.5 : 1.0;
        if (tty)
            fputs("\033[2J", stdout);
        while (!app_stop) {
            fd_set rs, ws, es;
            int maxfd = -1;
            MHD_UNSIGNED_LONG_LONG to_ms = 100;
            struct timeval tv;
            double mono = now_s(CLOCK_MONOTONIC);

            if (duration > 0 && mono - t0 >= duration)
                break;
            if (when_done && app_monitor_ntargets(&ctx->mon) > 0 &&
                app_monitor_nended(&ctx->mon) == app_monitor_ntargets(&ctx->mon))
                break;
            FD_ZERO(&rs);
            FD_ZERO(&ws);
            FD_ZERO(&es);
            for (int i = 0; i < nfd; i++) {
                FD_SET(fd[i], &rs);
                if (fd[i] > maxfd)
                    maxfd = fd[i];
            }
            if (mhd) {
                MHD_UNSIGNED_LONG_LONG t;

                MHD_get_fdset(mhd, &rs, &ws, &es, &maxfd);
                if (MHD_get_timeout(mhd, &t) == MHD_YES && t < to_ms)
                    to_ms = t;
            }
            tv.tv_sec = 0;
            tv.tv_usec = (suseconds_t)(to_ms * 1000);
            if (select(maxfd + 1, &rs, &ws, &es, &tv) < 0 && errno != EINTR)
                break;
            mono = now_s(CLOCK_MONOTONIC);
            for (int i = 0; i < nfd; i++) {
                /* a bounded number per round, so that HTTP stays served under a flood */
                for (int k = 0; k < 4096 && FD_ISSET(fd[i], &rs); k++) {
                    struct sockaddr_in from;
                    socklen_t flen = sizeof(from);
                    const ssize_t n =
                        recvfrom(fd[i], buf, RECV_MAX, MSG_TRUNC, (struct sockaddr *)&from, &flen);

                    if (n < 0)
                        break;
                    app_monitor_feed(&ctx->mon, buf, RECV_MAX, (size_t)n, &from, mono,
                                     now_s(CLOCK_REALTIME));
                }
            }
            if (mhd)
                MHD_run_from_select(mhd, &rs, &ws, &es);
            if (mono >= next_tick) {
                app_monitor_tick(&ctx->mon, mono, now_s(CLOCK_REALTIME));
                next_tick = mono + 0.1;
            }
            if (!quiet && mono >= next_draw) {
                draw(ctx, tty, tty, listen);
                next_draw = mono + interval;
            }
        }
        if (!quiet)
            draw(ctx, false, false, listen);
    }
    {
        uint64_t rej = 0;

        for (int r = 0; r < APP_MON_NREJECT; r++)
            rej += ctx->mon.rejected[r];
        fprintf(stderr,
                "rtvd monitor: %" PRIu64 " datagrams, %" PRIu64 " accepted, %" PRIu64
                " rejected; %d targets (%d ended); %" PRIu64 " HTTP requests\n",
                ctx->mon.received, ctx->mon.accepted, rej, app_monitor_ntargets(&ctx->mon),
                app_monitor_nended(&ctx->mon), ctx->mon.http_requests);
    }
    status = 0;
out:
    if (mhd)
        MHD_stop_daemon(mhd);
    for (int i = 0; i < nfd; i++)
        close(fd[i]);
    app_monitor_free(&ctx->mon);
    free(ctx);
    free(buf);
    return status;
bad:
    fprintf(stderr, "rtvd monitor: invalid option value '%s' (see rtvd monitor --help)\n", optarg);
    return 2;
}
