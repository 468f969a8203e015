/* app/cmd_control.c - `rtvd control`: the operator's end of the motion feed's control channel
 * (app/motionctl.h): one command datagram to a running `rtvd run`'s socket, its reply printed;
 * with --wait the STATUS polled until the state the command leads to is reached (or is not). */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "motionctl.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rtvd control SOCKET park|reset|engage|status [--wait] [--timeout S]\n"
            "\n"
            "Commands a running `rtvd run`'s motion feed through its operator control channel,\n"
            "the Unix datagram socket the run file names (motion.control, or rtvd run\n"
            "--motion-control PATH; mode 0600: run this as the same user, or root). Prints the\n"
            "reply: ACCEPTED or REFUSED with why=<reason>, then the feed's state (README \"The\n"
            "motion feed\", io/MOTION_DATAGRAMS.md \"The operator's control channel\"):\n"
            "  park     engaging or engaged: fade the cues to neutral (bounded jerk), then park\n"
            "           (Moog: DISENGAGE), reason \"operator park\"\n"
            "  reset    moog_mda with the MBC's status watched, parked or in fault, a fault\n"
            "           latched or reported (else refused, no_fault): RESET with neutral\n"
            "           cues until the MBC reports no fault (at most 2 s); clears rtvd's fault\n"
            "           latch\n"
            "  engage   parked or in fault, no fault latched or reported, the model running,\n"
            "           the heartbeat heard (Moog: a status since the park reported STANDBY\n"
            "           or IDLE, settled=yes, and engage_timeout_s past a cancelled ENGAGE;\n"
            "           ENGAGE with neutral cues until a status after it reports ENGAGED)\n"
            "           then fade the cues in\n"
            "  status   the state; acts on nothing\n"
            "\n"
            "  --wait       after ACCEPTED, poll the state until the command's end: parked (park;\n"
            "               a watched MBC: and STANDBY or IDLE reported after it, settled=yes;\n"
            "               an MBC that never reports it: not reached at --timeout),\n"
            "               the RESET acknowledged or not (reset), engaged or not (engage);\n"
            "               print the last status line\n"
            "  --timeout S  give up waiting after S seconds (default 30; a reply: 2 s)\n"
            "  --help       this text\n"
            "\n"
            "Exit status: 0 accepted (with --wait: and the state reached), 1 refused (or not\n"
            "reached), 2 usage or no answer from the socket.\n");
}

struct link {
    int fd;
};

/* one request, its reply into buf (NUL-terminated); 0, or -1 with a message */
static int ask(struct link *l, const char *word, char *buf, size_t cap, int timeout_ms)
{
    struct pollfd p = {.fd = l->fd, .events = POLLIN};
    ssize_t n;

    if (send(l->fd, word, strlen(word), 0) < 0) {
        fprintf(stderr, "rtvd control: send: %s\n", strerror(errno));
        return -1;
    }
    if (poll(&p, 1, timeout_ms) <= 0) {
        fprintf(stderr, "rtvd control: no reply within %d ms\n", timeout_ms);
        return -1;
    }
    n = recv(l->fd, buf, cap - 1, 0);
    if (n < 0) {
        fprintf(stderr, "rtvd control: recv: %s\n", strerror(errno));
        return -1;
    }
    buf[n] = 0;
    return 0;
}

/* the value of " key=" in a reply into out ("" none) */
static void field(const char *r, const char *key, char *out, size_t cap)
{
    char pat[40];
    const char *p;
    size_t n = 0;

    snprintf(pat, sizeof(pat), " %s=", key);
    out[0] = 0;
    if (!(p = strstr(r, pat)))
        return;
    for (p += strlen(pat); *p && *p != ' ' && *p != '\n' && n + 1 < cap; p++)
        out[n++] = *p;
    out[n] = 0;
}

static long fieldl(const char *r, const char *key)
{
    char v[32];

    field(r, key, v, sizeof(v));
    return strtol(v, NULL, 10);
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int cmd_control(int argc, char **argv)
{
    static const struct option lo[] = {{"wait", no_argument, 0, 'w'},
                                       {"timeout", required_argument, 0, 't'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    static const char *const words[] = {"park", "reset", "engage", "status"};
    static const char *const upper[] = {"PARK", "RESET", "ENGAGE", "STATUS"};
    bool wait = false;
    double timeout = 30.0;
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    struct link l;
    char r[APP_OPC_REPLY_MAX + 1], st[32], pend[16], settled[8];
    int ch, cmd = -1, rc;
    long acked0;

    optind = 1;
    while ((ch = getopt_long(argc, argv, "wt:h", lo, NULL)) != -1) {
        switch (ch) {
        case 'w':
            wait = true;
            break;
        case 't':
            if (app_parse_double(optarg, &timeout) || !(timeout > 0) || timeout > 3600) {
                fprintf(stderr, "rtvd control: --timeout %s: seconds, 0 .. 3600\n", optarg);
                return 2;
            }
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (argc - optind != 2) {
        usage(stderr);
        return 2;
    }
    for (int i = 0; i < 4; i++)
        if (!strcmp(argv[optind + 1], words[i]))
            cmd = i;
    if (cmd < 0) {
        fprintf(stderr, "rtvd control: %s: not a command (park, reset, engage or status)\n",
                argv[optind + 1]);
        return 2;
    }
    if (strlen(argv[optind]) >= sizeof(a.sun_path)) {
        fprintf(stderr,
                "rtvd control: %s: a path of %zu bytes; a Unix socket's path has at most %zu\n",
                argv[optind], strlen(argv[optind]), sizeof(a.sun_path) - 1);
        return 2;
    }
    memcpy(a.sun_path, argv[optind], strlen(argv[optind]) + 1);
    l.fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    /* an abstract address of its own (autobind: the family alone), so the reply finds it and
     * no file is left behind; connected, so only the run's socket can answer */
    {
        struct sockaddr_un me = {.sun_family = AF_UNIX};

        if (l.fd < 0 || bind(l.fd, (struct sockaddr *)&me, sizeof(sa_family_t)) ||
            connect(l.fd, (struct sockaddr *)&a, sizeof(a))) {
            fprintf(stderr, "rtvd control: %s: %s\n", argv[optind], strerror(errno));
            if (l.fd >= 0)
                close(l.fd);
            return 2;
        }
    }
    rc = ask(&l, upper[cmd], r, sizeof(r), 2000);
    if (rc) {
        close(l.fd);
        return 2;
    }
    fputs(r, stdout);
    if (strncmp(r, "ACCEPTED", 8)) {
        close(l.fd);
        return 1;
    }
    if (!wait || cmd == APP_OPC_STATUS) {
        close(l.fd);
        return 0;
    }
    acked0 = fieldl(r, "resets_acked");
    {
        const double end = now_s() + timeout;
        const struct timespec tick = {0, 20000000};
        int reached = -1; /* -1 waiting, 0 not reached, 1 reached */

        while (reached < 0) {
            if (now_s() > end) {
                fprintf(stderr, "rtvd control: --wait: not reached within %g s\n", timeout);
                reached = 0;
                break;
            }
            nanosleep(&tick, NULL);
            if (ask(&l, "STATUS", r, sizeof(r), 2000)) {
                close(l.fd);
                return 2;
            }
            field(r, "state", st, sizeof(st));
            field(r, "pending", pend, sizeof(pend));
            field(r, "settled", settled, sizeof(settled));
            if (!strcmp(st, "-") || !strcmp(pend, "-"))
                continue;
            switch (cmd) {
            case APP_OPC_PARK:
                /* a watched MBC (settled yes|no): parked once it reports STANDBY after the
                 * park (ENGAGE is refused before) */
                if (!strcmp(pend, "none") && !strcmp(st, "fault"))
                    reached = 0;
                else if (!strcmp(pend, "none") && !strcmp(st, "parked") && strcmp(settled, "no"))
                    reached = 1;
                break;
            case APP_OPC_RESET:
                if (strcmp(pend, "reset"))
                    reached = fieldl(r, "resets_acked") > acked0;
                break;
            default: /* engage */
                if (!strcmp(st, "engaged"))
                    reached = 1;
                else if (!strcmp(pend, "none") && strcmp(st, "engaging"))
                    reached = 0;
                break;
            }
        }
        printf("%s", r);
        printf("rtvd control: %s: %s\n", words[cmd],
               reached ? "reached" : "NOT reached (the status line above says where it is)");
        close(l.fd);
        return reached ? 0 : 1;
    }
}
