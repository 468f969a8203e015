/* app/cmd_run.c - rtvd run: the model in real time. Loads the run configuration (file or the
 * embedded default), sets up memory, the loop thread and the telemetry thread in
 * cyclictest's order (rt/), runs until the duration elapses, the overrun policy stops the
 * run or SIGINT/SIGTERM arrives, then prints a summary and writes the reports. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "config/tir.h"
#include "app/canlink.h"
#include "app/motionlink.h"
#include "core/cue.h"
#include "app/ecu.h"
#include "app/recording.h"
#include "config/run_yaml.h"
#include "io/udpout.h"
#include "core/csblock.h"
#include "core/data.h"
#include "core/linalg.h"
#include "rt/check.h"
#include "rt/clock.h"
#include "rt/loop.h"
#include "rt/report.h"
#include "rt/sched.h"
#include "rt/sdnotify.h"
#include "rt/telemetry.h"
#include "rt/tracemark.h"

#define PREFAULT_HEAP (8u << 20) /* [bytes] */
#define MAX_INJECT    32
#define EXIT_OVERRUN  3
#define CAN_LEAD_NS   50000000LL /* [ns] first release after the warm-up, CAN threads up */
#define CAN_TX_OFFSET 500000LL   /* [ns] TX slots half a millisecond after the releases */

static void run_usage(FILE *f)
{
    fprintf(f,
            "usage: rtvd run [CONFIG.yaml] [options]\n"
            "\n"
            "Run a vehicle in real time: one SCHED_FIFO loop thread on its CPU steps the model\n"
            "every period on an absolute CLOCK_MONOTONIC grid, measures wake-up latency,\n"
            "execution and turnaround time, and applies the overrun policy. Runs until the\n"
            "duration elapses, the policy stops it, or SIGINT/SIGTERM (a clean stop). Prints a\n"
            "cyclictest-like status line while running and a summary at the end; writes\n"
            "cyclictest-format histograms and a JSON report. CONFIG (a run file, schema in\n"
            "config/run_yaml.h) names a scenario (vehicle, road, initial state, inputs, driver)\n"
            "or a bare model; inputs marked valid on the loop's input snapshot (the ECU side)\n"
            "replace the scenario's. Without CONFIG it runs the embedded default,\n"
            "<embedded>/config/runs/default.yaml: the sedan in the default HIL scenario\n"
            "(config/scenarios/hil_default.yaml: statics, then the driver) for 20 s at 1 kHz.\n"
            "Without RT privileges the same code runs with best-effort timing, said plainly.\n"
            "\n"
            "With a can: section (or --can) a CAN thread beside the loop exchanges the mapped\n"
            "signals with an ECU over SocketCAN or UDP (cannelloni): received commands (wheel\n"
            "torques, steering) replace the scenario's inputs, the model's outputs (wheel\n"
            "speeds, yaw rate, ...) go out at their cycle times with E2E; RX timeouts apply\n"
            "the mapping's safe values. The embedded default closes this loop with a virtual\n"
            "ECU in-process (the code of `rtvd ecu`) over udp on loopback (ports 20000/20001).\n"
            "\n"
            "With a motion: section (or --motion) a motion thread sends the vehicle's motion\n"
            "cues at the motion reference point (the driver's head) to a motion platform:\n"
            "UDP datagrams at a steady rate, decimated without aliasing, that fade in at the\n"
            "start and fade to neutral with bounded jerk at the end or on any fault.\n"
            "\n"
            "  --duration S          run length [s] from the first release; 0: until a signal\n"
            "                        (default: the run file's, else the scenario's)\n"
            "  --period-us N         loop period [us]\n"
            "  --cpu N|auto|none     CPU of the loop thread\n"
            "  --priority N          SCHED_FIFO priority 1..99; 0: SCHED_OTHER\n"
            "  --policy P            stop | skip | delay | queue:N |\n"
            "                        allow:N[:total|consecutive][:stop|freeze][:skip|delay]\n"
            "  --grace N             start-up cycles whose overruns are tolerated\n"
            "  --histogram-us N      histogram range [us] (1 us buckets)\n"
            "  --no-mlock            do not lock memory\n"
            "  --no-dma-latency      do not hold /dev/cpu_dma_latency\n"
            "  --udp HOST:PORT|off   status datagrams (default 127.0.0.1:9870)\n"
            "  --rate-hz F           status line and datagram rate\n"
            "  --report-dir DIR      where the reports go (default out)\n"
            "  --prefix NAME         report file prefix (default rtvd)\n"
            "  --trace               also write <prefix>-cycles.csv, one line per cycle\n"
            "  --trace-marker[=PATH] on each overrun the loop thread writes one line into\n"
            "                        ftrace's trace_marker (default\n"
            "                        /sys/kernel/tracing/trace_marker; a FIFO or file works\n"
            "                        too): capture it with trace-cmd or rtla (README)\n"
            "  --quiet               no live status line\n"
            "  --record FILE|off     record every cycle (cycle record and outputs) from a\n"
            "                        non-RT thread to FILE.mf4 (ASAM MDF 4.10) and/or\n"
            "                        FILE.csv; FILE.mf4 or FILE.csv choose the format\n"
            "                        (the run file's record: section has the details)\n"
            "  --record-format mdf4|csv|both\n"
            "  --linear dense|structured\n"
            "                        the linear solve of the step (default: the model's)\n"
            "  --can MAPPING.yaml|off  the CAN mapping (replaces the run file's can.mapping);\n"
            "                        off: no CAN I/O\n"
            "  --can-priority N      SCHED_FIFO priority of the CAN thread (default 70)\n"
            "  --can-port N          udp buses: rtvd binds N (+2 per bus), the ECU N+1\n"
            "  --ecu, --no-ecu       run (or not) the virtual ECU in-process\n"
            "  --ecu-fault SPEC      inject a fault from the in-process ECU (repeatable):\n"
            "                        KIND[:MESSAGE][@AT[+DURATION|xCOUNT]][*FACTOR], see\n"
            "                        rtvd ecu --help\n"
            "  --strict              read the mapping's DBCs strictly: the defects read with a\n"
            "                        warning (an id above 0x7FF without the extended flag, a\n"
            "                        CM_ without ';', a name starting with a digit, signals\n"
            "                        sharing bits) are errors\n"
            "  --motion DEST|off     the motion-platform feed to DEST (a.b.c.d:port or\n"
            "                        [v6]:port, multicast too), or none (default: the run\n"
            "                        file's motion: section; the embedded default feeds\n"
            "                        127.0.0.1:4950, where rtvd motion listens)\n"
            "  --motion-format F     rtvd | moog_mda | outsim (README \"The motion feed\")\n"
            "  --motion-rate HZ      1000 | 500 | 250 | 100\n"
            "  --motion-heartbeat S  park the feed when the platform's heartbeat is S s late\n"
            "  --inject-delay C:US[,C:US...]\n"
            "                        testing: busy-wait US microseconds after the step of\n"
            "                        cycle C (to exercise the overrun policies)\n"
            "  --verbose             notes of the tyre files (defaults applied, keys ignored),\n"
            "                        once per file\n"
            "  --help                this text\n"
            "\n"
            "Under systemd (Type=notify, $NOTIFY_SOCKET): READY=1 once the threads run,\n"
            "WATCHDOG=1 with a STATUS= line from the telemetry thread while the loop's cycle\n"
            "count advances (WatchdogSec= at least 4 telemetry periods), STOPPING=1 when the\n"
            "loop has stopped; with stderr on the journal the loop's messages carry syslog\n"
            "priorities (overruns are warnings).\n"
            "\n"
            "Exit status: 0 the run ended (duration or signal); 3 the overrun policy stopped or\n"
            "froze the run; 1 a configuration, set-up or step error; 2 usage.\n");
}

/* --- test hook: busy-wait on chosen cycles (the loop thread) ------------------------------ */

struct inject {
    int n;
    uint64_t cycle[MAX_INJECT];
    int64_t ns[MAX_INJECT];
};

static void inject_hook(void *ctx, uint64_t cycle)
{
    const struct inject *in = ctx;

    for (int i = 0; i < in->n; i++)
        if (in->cycle[i] == cycle) {
            const int64_t until = vd_clock_now() + in->ns[i];

            while (vd_clock_now() < until)
                ;
        }
}

static int parse_inject(struct inject *in, const char *s)
{
    char buf[1024], *save = NULL, *tok;

    if (strlen(s) >= sizeof(buf))
        return -1;
    strcpy(buf, s);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        long c;
        double us;
        char *colon = strchr(tok, ':');

        if (!colon || in->n >= MAX_INJECT)
            return -1;
        *colon = '\0';
        if (app_parse_long(tok, &c) || c < 0 || app_parse_double(colon + 1, &us) || us < 0)
            return -1;
        in->cycle[in->n] = (uint64_t)c;
        in->ns[in->n] = (int64_t)(us * 1e3);
        in->n++;
    }
    return 0;
}

/* --- signals ------------------------------------------------------------------------------ */

static struct vd_loop *volatile g_loop;

static void on_signal(int sig)
{
    struct sigaction dfl = {.sa_handler = SIG_DFL};

    if (g_loop)
        vd_loop_request_stop(g_loop);
    /* a second one terminates */
    sigaction(sig, &dfl, NULL);
}

/* --- options ------------------------------------------------------------------------------ */

struct run_opts {
    double duration; /* < 0: config */
    int period_us, priority, grace, hist_us;
    int cpu; /* VD_RUN_CPU_*, >= 0, or -3: config */
    const char *policy, *udp, *dir, *prefix;
    const char *record; /* --record FILE|off */
    int record_format;  /* --record-format: enum vd_run_record_format, 0: the run file's */
    double rate_hz;
    bool no_mlock, no_dma, trace, quiet;
    bool marker;             /* --trace-marker */
    const char *marker_path; /* NULL: the tracefs (or debugfs) marker */
    struct inject inject;
    int linear;                 /* -1: the model's */
    const char *can;            /* mapping or "off"; NULL: the run file's */
    int can_priority, can_port; /* -1: the run file's */
    int ecu;                    /* -1: the run file's, 0 off, 1 on */
    int nfault;                 /* --ecu-fault */
    struct app_ecu_fault fault[VD_RUN_MAX_FAULTS];
    bool strict_dbc;    /* --strict */
    const char *motion; /* --motion DEST|off; NULL: the run file's */
    int motion_format;  /* -1: the run file's */
    int motion_rate;    /* 0: the run file's */
    double motion_hb;   /* < 0: the run file's */
};

static int apply_opts(struct vd_run_cfg *c, const struct run_opts *o)
{
    if (o->duration >= 0)
        c->duration = o->duration;
    if (o->period_us > 0)
        c->rt.period_us = o->period_us;
    if (o->priority >= 0)
        c->rt.priority = o->priority;
    if (o->cpu != -3)
        c->rt.cpu = o->cpu;
    if (o->grace >= 0)
        c->rt.grace_cycles = o->grace;
    if (o->hist_us > 0)
        c->rt.histogram_us = o->hist_us;
    if (o->policy && vd_run_parse_policy(&c->rt, o->policy)) {
        fprintf(stderr, "rtvd run: invalid --policy '%s'\n", o->policy);
        return -1;
    }
    if (o->no_mlock)
        c->rt.lock_memory = false;
    if (o->no_dma)
        c->rt.dma_latency = false;
    if (o->udp) {
        struct sockaddr_in a;

        if (!strcmp(o->udp, "off")) {
            c->telemetry.udp_on = false;
        } else if (vd_udp_parse(o->udp, &a) == 0) {
            c->telemetry.udp_on = true;
            snprintf(c->telemetry.udp, sizeof(c->telemetry.udp), "%s", o->udp);
        } else {
            fprintf(stderr, "rtvd run: invalid --udp '%s' (IPV4:PORT or off)\n", o->udp);
            return -1;
        }
    }
    if (o->rate_hz > 0)
        c->telemetry.rate_hz = o->rate_hz;
    if (o->dir)
        snprintf(c->reports.dir, sizeof(c->reports.dir), "%s", o->dir);
    if (o->prefix)
        snprintf(c->reports.prefix, sizeof(c->reports.prefix), "%s", o->prefix);
    if (o->trace)
        c->reports.trace = true;
    if (o->can && !strcmp(o->can, "off")) {
        c->can.on = false;
    } else if (o->can) {
        c->can.on = true;
        snprintf(c->can.mapping, sizeof(c->can.mapping), "%s", o->can);
    }
    if (o->can_priority >= 0)
        c->can.priority = o->can_priority;
    if (o->can_port >= 0)
        c->can.port = o->can_port;
    if (o->ecu >= 0)
        c->can.ecu.enable = o->ecu;
    if (o->linear >= 0) {
        char err[256];

        c->m->opt.linear = o->linear; /* before vd_data_new, which sizes for it */
        if (vd_csb_analyze(c->m, err, sizeof(err))) {
            fprintf(stderr, "rtvd run: %s: %s\n", c->m->name, err);
            return -1;
        }
        if (o->linear == VD_LINEAR_STRUCTURED && c->m->opt.linear != o->linear)
            fprintf(stderr,
                    "rtvd run: note: %s: the nullspace form runs on the dense path only "
                    "(--linear structured ignored)\n",
                    c->m->name);
    }
    if (o->record && !strcmp(o->record, "off")) {
        c->record.on = false;
    } else if (o->record) {
        const size_t n = strlen(o->record);
        const bool mf4 = n > 4 && !strcmp(o->record + n - 4, ".mf4"),
                   csv = n > 4 && !strcmp(o->record + n - 4, ".csv");

        c->record.on = true;
        snprintf(c->record.file, sizeof(c->record.file), "%.*s", (int)(mf4 || csv ? n - 4 : n),
                 o->record);
        if (mf4 || csv)
            c->record.format = mf4 ? VD_RUN_RECORD_MDF4 : VD_RUN_RECORD_CSV;
    }
    if (o->record_format)
        c->record.format = o->record_format;
    if (o->motion && !strcmp(o->motion, "off")) {
        c->motion.on = false;
    } else if (o->motion) {
        struct sockaddr_storage ss;
        socklen_t len;

        if (vd_udp_parse_any(o->motion, &ss, &len)) {
            fprintf(stderr, "rtvd run: invalid --motion '%s' (IPV4:PORT, [IPV6]:PORT or off)\n",
                    o->motion);
            return -1;
        }
        c->motion.on = true;
        snprintf(c->motion.dest, sizeof(c->motion.dest), "%s", o->motion);
        if (c->motion.mrp_body < 0 && vd_run_motion_default_mrp(c)) {
            fprintf(stderr,
                    "rtvd run: --motion: model %s has no marker driver_head and no body "
                    "chassis (give motion.mrp in a run file)\n",
                    c->m->name);
            return -1;
        }
    }
    if (o->motion_format >= 0)
        c->motion.format = o->motion_format;
    if (o->motion_rate > 0)
        c->motion.rate_hz = o->motion_rate;
    if (o->motion_hb >= 0)
        c->motion.heartbeat_s = o->motion_hb;
    return 0;
}

static int parse_opts(int argc, char **argv, struct run_opts *o, const char **config)
{
    static const struct option lopts[] = {{"duration", required_argument, 0, 'T'},
                                          {"period-us", required_argument, 0, 'P'},
                                          {"cpu", required_argument, 0, 'c'},
                                          {"priority", required_argument, 0, 'p'},
                                          {"policy", required_argument, 0, 'o'},
                                          {"grace", required_argument, 0, 'g'},
                                          {"histogram-us", required_argument, 0, 'H'},
                                          {"no-mlock", no_argument, 0, 'M'},
                                          {"no-dma-latency", no_argument, 0, 'D'},
                                          {"udp", required_argument, 0, 'u'},
                                          {"rate-hz", required_argument, 0, 'r'},
                                          {"report-dir", required_argument, 0, 'R'},
                                          {"prefix", required_argument, 0, 'x'},
                                          {"trace", no_argument, 0, 't'},
                                          {"trace-marker", optional_argument, 0, 'K'},
                                          {"record", required_argument, 0, 'Z'},
                                          {"record-format", required_argument, 0, 'z'},
                                          {"quiet", no_argument, 0, 'q'},
                                          {"inject-delay", required_argument, 0, 'I'},
                                          {"linear", required_argument, 0, 'L'},
                                          {"can", required_argument, 0, 'C'},
                                          {"can-priority", required_argument, 0, 'Y'},
                                          {"can-port", required_argument, 0, 'O'},
                                          {"ecu", no_argument, 0, 'E'},
                                          {"no-ecu", no_argument, 0, 'N'},
                                          {"ecu-fault", required_argument, 0, 'F'},
                                          {"strict", no_argument, 0, 'W'},
                                          {"verbose", no_argument, 0, 'V'},
                                          {"motion", required_argument, 0, 1001},
                                          {"motion-format", required_argument, 0, 1002},
                                          {"motion-rate", required_argument, 0, 1003},
                                          {"motion-heartbeat", required_argument, 0, 1004},
                                          {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
    long v;
    int ch;

    memset(o, 0, sizeof(*o));
    o->duration = -1.0;
    o->period_us = o->priority = o->grace = o->hist_us = -1;
    o->cpu = -3;
    o->linear = o->can_priority = o->can_port = o->ecu = o->motion_format = -1;
    o->motion_hb = -1.0;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "hq", lopts, NULL)) != -1) {
        switch (ch) {
        case 'T':
            if (app_parse_double(optarg, &o->duration) || o->duration < 0 || o->duration > 1e7)
                goto bad;
            break;
        case 'P':
            if (app_parse_long(optarg, &v) || v < 50 || v > 1000000)
                goto bad;
            o->period_us = (int)v;
            break;
        case 'c':
            if (app_parse_cpu(optarg, true, &o->cpu))
                goto bad;
            break;
        case 'p':
            if (app_parse_long(optarg, &v) || v < 0 || v > 99)
                goto bad;
            o->priority = (int)v;
            break;
        case 'o':
            o->policy = optarg;
            break;
        case 'g':
            if (app_parse_long(optarg, &v) || v < 0 || v > 1000000000L)
                goto bad;
            o->grace = (int)v;
            break;
        case 'H':
            if (app_parse_long(optarg, &v) || v < 1 || v > VD_HIST_MAX_US)
                goto bad;
            o->hist_us = (int)v;
            break;
        case 'M':
            o->no_mlock = true;
            break;
        case 'D':
            o->no_dma = true;
            break;
        case 'u':
            o->udp = optarg;
            break;
        case 'r':
            if (app_parse_double(optarg, &o->rate_hz) || !(o->rate_hz > 0 && o->rate_hz <= 1000))
                goto bad;
            break;
        case 'R':
            o->dir = optarg;
            break;
        case 'x':
            o->prefix = optarg;
            break;
        case 't':
            o->trace = true;
            break;
        case 'Z':
            o->record = optarg;
            break;
        case 'z':
            if (!strcmp(optarg, "mdf4"))
                o->record_format = VD_RUN_RECORD_MDF4;
            else if (!strcmp(optarg, "csv"))
                o->record_format = VD_RUN_RECORD_CSV;
            else if (!strcmp(optarg, "both"))
                o->record_format = VD_RUN_RECORD_BOTH;
            else
                goto bad;
            break;
        case 'K':
            o->marker = true;
            o->marker_path = optarg;
            break;
        case 'q':
            o->quiet = true;
            break;
        case 'I':
            if (parse_inject(&o->inject, optarg))
                goto bad;
            break;
        case 'L':
            if (!strcmp(optarg, "dense"))
                o->linear = VD_LINEAR_DENSE;
            else if (!strcmp(optarg, "structured"))
                o->linear = VD_LINEAR_STRUCTURED;
            else
                goto bad;
            break;
        case 'C':
            o->can = optarg;
            break;
        case 1001:
            o->motion = optarg;
            break;
        case 1002:
            o->motion_format = !strcmp(optarg, "rtvd")       ? VD_RUN_MOTION_RTVD
                               : !strcmp(optarg, "moog_mda") ? VD_RUN_MOTION_MOOG_MDA
                               : !strcmp(optarg, "outsim")   ? VD_RUN_MOTION_OUTSIM
                                                             : -2;
            if (o->motion_format == -2)
                goto bad;
            break;
        case 1003:
            if (app_parse_long(optarg, &v) || (v != 1000 && v != 500 && v != 250 && v != 100))
                goto bad;
            o->motion_rate = (int)v;
            break;
        case 1004:
            if (app_parse_double(optarg, &o->motion_hb) || o->motion_hb < 0 || o->motion_hb > 60)
                goto bad;
            break;
        case 'Y':
            if (app_parse_long(optarg, &v) || v < 0 || v > 99)
                goto bad;
            o->can_priority = (int)v;
            break;
        case 'O':
            if (app_parse_long(optarg, &v) || v < 1 || v > 65000)
                goto bad;
            o->can_port = (int)v;
            break;
        case 'E':
            o->ecu = 1;
            break;
        case 'N':
            o->ecu = 0;
            break;
        case 'F':
            if (o->nfault >= VD_RUN_MAX_FAULTS || app_ecu_parse_fault(optarg, &o->fault[o->nfault]))
                goto bad;
            o->nfault++;
            break;
        case 'W':
            o->strict_dbc = true;
            break;
        case 'V':
            vd_tir_notes_to(stderr);
            break;
        case 'h':
            run_usage(stdout);
            return 1;
        default:
            run_usage(stderr);
            return 2;
        }
    }
    if (argc - optind > 1) {
        run_usage(stderr);
        return 2;
    }
    *config = optind < argc ? argv[optind] : NULL;
    return 0;
bad:
    fprintf(stderr, "rtvd run: invalid option value '%s' (see rtvd run --help)\n", optarg);
    return 2;
}

/* --- set-up helpers ----------------------------------------------------------------------- */

static void loop_cfg_from(struct vd_loop_cfg *lc, const struct vd_run_cfg *c, int cpu)
{
    static const int kind[] = {[VD_RUN_POLICY_STOP] = VD_OVR_STOP,
                               [VD_RUN_POLICY_SKIP] = VD_OVR_SKIP,
                               [VD_RUN_POLICY_DELAY] = VD_OVR_DELAY,
                               [VD_RUN_POLICY_QUEUE] = VD_OVR_QUEUE,
                               [VD_RUN_POLICY_ALLOW] = VD_OVR_ALLOW};

    vd_loop_cfg_default(lc);
    lc->policy.kind = kind[c->rt.policy];
    lc->policy.period_ns = (int64_t)c->rt.period_us * 1000;
    lc->policy.queue_depth = (uint64_t)c->rt.queue_depth;
    lc->policy.allow_count = (uint64_t)c->rt.allow_count;
    lc->policy.allow_mode =
        c->rt.allow_mode == VD_RUN_ALLOW_CONSECUTIVE ? VD_ALLOW_CONSECUTIVE : VD_ALLOW_TOTAL;
    lc->policy.allow_then =
        c->rt.allow_then == VD_RUN_THEN_FREEZE ? VD_ALLOW_THEN_FREEZE : VD_ALLOW_THEN_STOP;
    lc->policy.allow_realign =
        c->rt.allow_realign == VD_RUN_REALIGN_DELAY ? VD_REALIGN_DELAY : VD_REALIGN_SKIP;
    lc->policy.grace_cycles = (uint64_t)c->rt.grace_cycles;
    lc->duration_ns = (int64_t)(c->duration * 1e9 + 0.5);
    lc->cpu = cpu;
    lc->priority = c->rt.priority;
    lc->hist_us = c->rt.histogram_us;
}

static void policy_text(char *buf, size_t size, const struct vd_run_rt *rt)
{
    static const char *const mode[] = {"total", "consecutive"}, *const then[] = {"stop", "freeze"},
                             *const realign[] = {"skip", "delay"};

    if (rt->policy == VD_RUN_POLICY_QUEUE)
        snprintf(buf, size, "queue:%d", rt->queue_depth);
    else if (rt->policy == VD_RUN_POLICY_ALLOW)
        snprintf(buf, size, "allow:%d:%s:%s:%s", rt->allow_count, mode[rt->allow_mode],
                 then[rt->allow_then], realign[rt->allow_realign]);
    else
        snprintf(buf, size, "%s", vd_run_policy_name(rt->policy));
}

static void cat(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cat(char *buf, size_t size, const char *fmt, ...)
{
    const size_t n = strlen(buf);
    va_list ap;

    if (n + 1 >= size)
        return;
    if (n)
        snprintf(buf + n, size - n, "; ");
    va_start(ap, fmt);
    vsnprintf(buf + strlen(buf), size - strlen(buf), fmt, ap);
    va_end(ap);
}

static void print_hist_line(const char *what, const struct vd_hist *h)
{
    printf("  %-16s min %6.1f  avg %6.1f  max %8.1f   (%" PRIu64 " samples, %" PRIu64
           " beyond the %d us histogram)\n",
           what, (double)h->min_ns * 1e-3,
           h->count ? (double)h->sum_ns / (double)h->count * 1e-3 : 0.0, (double)h->max_ns * 1e-3,
           h->count, h->overflow, h->nbucket);
}

/* --- CAN: the target link and the in-process ECU ----------------------------------------- */

struct run_can {
    struct app_can_side side;
    struct app_canlink link;
    struct app_ecu ecu;
    bool side_up, link_up, ecu_up, link_started, ecu_started;
    const char **out_names; /* (noutput) the loop's signal names */
    const char **in_names;  /* (ninput) the model's input names, for the telemetry */
};

static void motion_json(void *ctx, FILE *f)
{
    app_motion_json(ctx, f);
}

static void can_json(void *ctx, FILE *f)
{
    const struct run_can *cn = ctx;

    fputs("{\"target\": ", f);
    app_canlink_json(&cn->link, f);
    fputs(",\n    \"ecu\": ", f);
    if (cn->ecu_up)
        app_ecu_json(&cn->ecu, f);
    else
        fputs("null", f);
    fputc('}', f);
}

static void can_free(struct run_can *cn)
{
    if (cn->ecu_up)
        app_ecu_free(&cn->ecu);
    if (cn->link_up)
        app_canlink_free(&cn->link);
    if (cn->side_up)
        app_can_side_free(&cn->side);
    free(cn->out_names);
    free(cn->in_names);
    memset(cn, 0, sizeof(*cn));
}

/* the mapping for the target (its outputs joined to the run's), the buses opened, and the
 * in-process ECU when asked for; 0 or -1 (diagnostics printed) */
static int can_setup(struct run_can *cn, struct vd_run_cfg *c, const struct run_opts *o)
{
    if (app_can_side_load_opts(&cn->side, c->can.mapping, VD_CANMAP_TARGET, c->can.port,
                               o->strict_dbc ? APP_CAN_STRICT_DBC : 0, stderr))
        return -1;
    cn->side_up = true;
    if (app_can_add_outputs(c, &cn->side, stderr))
        return -1;
    for (int b = 0; b < cn->side.cfg->nbus; b++) {
        c->hash = vd_fnv1a64(c->hash, "\xff", 1);
        c->hash = vd_fnv1a64(c->hash, cn->side.cfg->bus[b].dbc_text, cn->side.cfg->bus[b].dbc_len);
    }
    if (app_can_side_open(&cn->side, stderr))
        return -1;
    cn->out_names = calloc((size_t)c->noutput + 1, sizeof(*cn->out_names));
    cn->in_names = calloc((size_t)c->m->ninput + 1, sizeof(*cn->in_names));
    if (!cn->out_names || !cn->in_names)
        return -1;
    for (int i = 0; i < c->noutput; i++)
        cn->out_names[i] = c->out_name[i];
    for (int i = 0; i < c->m->ninput; i++)
        cn->in_names[i] = c->m->input[i].name;
    if (c->can.ecu.enable) {
        struct app_ecu_cfg *ec = calloc(1, sizeof(*ec));
        int rc;

        if (!ec)
            return -1;
        app_ecu_cfg_default(ec);
        if (c->scn && app_ecu_ctl_from_scenario(&ec->ctl, c->scn, stderr)) {
            free(ec);
            return -1;
        }
        app_ecu_cfg_from_run(ec, &c->can, c->name);
        ec->strict_dbc = o->strict_dbc;
        for (int i = 0; i < o->nfault && ec->nfault < VD_RUN_MAX_FAULTS; i++)
            ec->fault[ec->nfault++] = o->fault[i];
        rc = app_ecu_init(&cn->ecu, c->can.mapping, ec, stderr);
        free(ec);
        if (rc)
            return -1;
        cn->ecu_up = true;
    } else if (o->nfault) {
        fprintf(stderr, "rtvd run: --ecu-fault needs the in-process ECU (--ecu)\n");
        return -1;
    }
    return 0;
}

/* --- the command -------------------------------------------------------------------------- */

int cmd_run(int argc, char **argv)
{
    static const char *const stage[VD_STAGE_COUNT] = {"linearize", "assemble", "factor", "stages"};
    struct run_opts o;
    const char *config = NULL;
    struct vd_run_cfg *c = NULL;
    struct vd_data *d = NULL;
    struct vd_loop L;
    struct vd_telemetry tm;
    struct vd_loop_cfg lc;
    struct vd_telemetry_cfg tc;
    struct vd_udpout uo = {.sock = -1};
    struct vd_rt_mem mem;
    struct vd_report_meta meta;
    struct vd_report_files files;
    struct sigaction sa = {.sa_handler = on_signal};
    char blas[256], why[768] = "", ptext[96], trace[1100], cmdline[2048] = "rtvd";
    int rc, cpu, dma_fd = -1, dma_errno = 0, status = 1, marker_fd = -1, rec_rc = 0;
    struct app_recording recd;
    bool rec_up = false, rec_started = false;
    int *rec_idx = NULL;
    const char **rec_names = NULL;
    char rec_path[VD_RUN_PATH_MAX + 80];
    vd_input_fn scen_fn;
    void *scen_ctx;
    bool tm_up = false;
    struct run_can cn;
    struct vd_sdnotify sdn = {.fd = -1};
    struct app_motionlink *mk = NULL; /* the motion feed (large: on the heap) */
    struct vd_cue_point cue;
    bool mk_started = false;

    memset(&cn, 0, sizeof(cn));
    rc = parse_opts(argc, argv, &o, &config);
    if (rc)
        return rc == 1 ? 0 : rc;
    for (int i = 0; i < argc; i++)
        snprintf(cmdline + strlen(cmdline), sizeof(cmdline) - strlen(cmdline), " %s", argv[i]);

    /* configuration: file or the embedded default, then the command line */
    c = vd_cfg_load_run(config ? config : APP_DEFAULT_RUN, APP_DEFAULT_SCENARIO, stderr);
    if (!c)
        return 1;
    if (apply_opts(c, &o)) {
        vd_cfg_run_free(c);
        return 2;
    }
    cpu = app_resolve_cpu(c->rt.cpu);
    policy_text(ptext, sizeof(ptext), &c->rt);

    /* 1. memory: malloc tuning, mlockall, heap prefault (before the big allocations) */
    vd_rt_memory_setup(c->rt.lock_memory, PREFAULT_HEAP, &mem);
    if (vd_blas_init(blas, sizeof(blas)))
        fprintf(stderr, "rtvd run: warning: BLAS runs more than one thread: %s\n", blas);
    d = vd_data_new(c->m);
    if (!d) {
        fprintf(stderr, "rtvd run: out of memory\n");
        goto out_cfg;
    }
    /* the start state and the input function: a scenario's initial state (statics first
     * unless it says otherwise), signals and driver, else the model's signals */
    if (c->scn) {
        char err[200];

        rc = vd_scenario_start(c->scn, d, err, sizeof(err));
        if (rc) {
            fprintf(stderr, "rtvd run: %s: %s\n", c->scenario_path, err);
            goto out_data;
        }
        scen_fn = d->input_fn;
        scen_ctx = d->input_ctx;
    } else {
        scen_fn = vd_source_eval;
        scen_ctx = c->src;
        scen_fn(scen_ctx, 0.0, d->u);
    }
    if (c->m->opt.dt * 1e6 < c->rt.period_us - 0.5 || c->m->opt.dt * 1e6 > c->rt.period_us + 0.5)
        fprintf(stderr,
                "rtvd run: note: model step %g s != period %d us: model time runs at %.3g x "
                "real time\n",
                c->m->opt.dt, c->rt.period_us, c->m->opt.dt * 1e6 / c->rt.period_us);

    /* the CAN mapping (its outputs join the output snapshot), buses, the in-process ECU */
    if (c->can.on && can_setup(&cn, c, &o))
        goto out_data;

    /* 2. the loop, the CAN link and the telemetry, all buffers allocated and touched */
    loop_cfg_from(&lc, c, cpu);
    if (c->motion.on) {
        char err[160];

        if (vd_cue_point_init(c->m, &cue, c->motion.mrp_body, c->motion.mrp_pos, c->motion.mrp_rpy,
                              err, sizeof(err))) {
            fprintf(stderr, "rtvd run: motion: %s\n", err);
            goto out_data;
        }
        lc.cue = &cue;
        lc.ntaps = 2; /* tap 0: CAN, tap 1: the motion feed */
        if (!c->can.on)
            lc.start_lead_ns = CAN_LEAD_NS;
    }
    if (c->can.on)
        lc.start_lead_ns = CAN_LEAD_NS;
    if (o.inject.n) {
        lc.hook = inject_hook;
        lc.hook_ctx = &o.inject;
    }
    if (o.marker) {
        marker_fd = vd_tracemark_open(o.marker_path);
        if (marker_fd < 0) {
            fprintf(stderr,
                    "rtvd run: --trace-marker: cannot open %s: %s (is tracefs mounted? mount -t "
                    "tracefs nodev /sys/kernel/tracing)\n",
                    o.marker_path ? o.marker_path : VD_TRACEMARK_DEFAULT, strerror(-marker_fd));
            goto out_data;
        }
        lc.marker_fd = marker_fd;
    }
    if (c->record.on) {
        /* every output (the CAN ones too), or the run file's record.signals */
        rec_idx = calloc((size_t)c->noutput + 1, sizeof(*rec_idx));
        rec_names = calloc((size_t)c->noutput + 1, sizeof(*rec_names));
        if (!rec_idx || !rec_names)
            goto out_data;
        lc.rec_nsig = c->record.all ? c->noutput : c->record.nsig;
        for (int i = 0; i < lc.rec_nsig; i++) {
            rec_idx[i] = c->record.all ? i : c->record.sig[i];
            rec_names[i] = c->out_name[rec_idx[i]];
        }
        lc.record = true;
        lc.rec_sig = rec_idx;
        lc.rec_ring_order = 4;
        while ((1 << lc.rec_ring_order) < c->record.buffer)
            lc.rec_ring_order++;
    }
    rc = vd_loop_init(&L, &lc, c->m, d, scen_fn, scen_ctx, c->out_sig, c->noutput);
    if (rc) {
        fprintf(stderr, "rtvd run: loop set-up failed: %s\n", strerror(-rc));
        goto out_data;
    }
    if (c->can.on) {
        const struct app_canlink_cfg kc = {
            .priority = c->can.priority,
            .cpu = c->can.cpu,
            .tap = 0,
            .tx_offset_ns = CAN_TX_OFFSET,
        };

        if (app_canlink_init(&cn.link, &cn.side, &L, c->m, cn.out_names, c->noutput, &kc, stderr))
            goto out_loop;
        cn.link_up = true;
    }
    if (c->motion.on) {
        mk = calloc(1, sizeof(*mk));
        if (!mk || app_motion_init(mk, &c->motion, &L, 1, -c->m->gravity[2], stderr)) {
            free(mk);
            mk = NULL;
            goto out_loop;
        }
    }
    if (c->record.on) {
        const struct app_recording_cfg rcfg = {
            .path = rec_path,
            .formats = c->record.format,
            .rotate_mb = c->record.rotate_mb,
            .rotate_s = c->record.rotate_s,
            .names = rec_names,
            .comment = cmdline,
            .version = VD_VERSION " (git " VD_GIT_REV ")",
        };

        char rec_dir[sizeof(rec_path)], *slash;

        if (*c->record.file)
            snprintf(rec_path, sizeof(rec_path), "%s", c->record.file);
        else
            snprintf(rec_path, sizeof(rec_path), "%s/%s-record", c->reports.dir, c->reports.prefix);
        /* its directory, as the reports' */
        snprintf(rec_dir, sizeof(rec_dir), "%s", rec_path);
        slash = strrchr(rec_dir, '/');
        if (slash && slash != rec_dir) {
            *slash = '\0';
            if ((rc = vd_mkdir_p(rec_dir))) {
                fprintf(stderr, "rtvd run: recording: cannot create %s: %s\n", rec_dir,
                        strerror(-rc));
                goto out_loop;
            }
        }
        rc = app_recording_init(&recd, &L, &rcfg);
        if (rc) {
            fprintf(stderr, "rtvd run: recording to %s: %s\n", rec_path, strerror(-rc));
            goto out_loop;
        }
        rec_up = true;
    }
    vd_telemetry_cfg_default(&tc);
    if (cn.link_up) {
        tc.can = &cn.link.tm;
        tc.can_names = cn.in_names;
        tc.ncan_names = c->m->ninput;
    }
    if (mk)
        tc.motion = &mk->tm;
    tc.rate_hz = c->telemetry.rate_hz;
    tc.name = c->name;
    tc.status_fd = o.quiet ? -1 : STDERR_FILENO;
    tc.status_refresh = isatty(STDERR_FILENO);
    tc.log_fd = STDERR_FILENO;
    if (c->telemetry.udp_on) {
        struct sockaddr_in dest;

        rc = vd_udp_parse(c->telemetry.udp, &dest);
        if (!rc)
            rc = vd_udpout_open(&uo, &dest);
        if (rc) {
            fprintf(stderr, "rtvd run: status datagrams to %s: %s\n", c->telemetry.udp,
                    strerror(-rc));
            goto out_loop;
        }
        tc.send = vd_udpout_sink;
        tc.send_ctx = &uo;
    }
    if (c->reports.trace) {
        if ((rc = vd_mkdir_p(c->reports.dir))) {
            fprintf(stderr, "rtvd run: cannot create %s: %s\n", c->reports.dir, strerror(-rc));
            goto out_loop;
        }
        snprintf(trace, sizeof(trace), "%s/%s-cycles.csv", c->reports.dir, c->reports.prefix);
        tc.trace_path = trace;
    }
    /* under systemd (Type=notify): READY once running, the watchdog fed by the telemetry
     * thread, journald priorities on the loop's messages */
    rc = vd_sdnotify_open(&sdn, NULL);
    if (rc) {
        fprintf(stderr, "rtvd run: $NOTIFY_SOCKET / $WATCHDOG_USEC: %s\n", strerror(-rc));
        goto out_loop;
    }
    if (sdn.watchdog_ns > 0 && sdn.watchdog_ns < (int64_t)(4e9 / tc.rate_hz)) {
        fprintf(stderr,
                "rtvd run: the watchdog interval (WatchdogSec=, %.3f s) must be at least 4 "
                "telemetry periods (telemetry.rate_hz %g): raise one of them\n",
                (double)sdn.watchdog_ns * 1e-9, tc.rate_hz);
        goto out_loop;
    }
    tc.notify = &sdn;
    tc.syslog_prefix = vd_journal_stream(STDERR_FILENO);
    rc = vd_telemetry_init(&tm, &L, &tc);
    if (rc) {
        fprintf(stderr, "rtvd run: telemetry set-up failed: %s\n", strerror(-rc));
        goto out_loop;
    }

    /* 3. /dev/cpu_dma_latency at 0 while running */
    if (c->rt.dma_latency) {
        dma_fd = vd_rt_dma_latency_hold(0);
        if (dma_fd < 0) {
            dma_errno = -dma_fd;
            dma_fd = -1;
        }
    }

    if (c->scn) {
        printf("rtvd run: %s: scenario %s (%s), %s%s\n", c->name, c->scn->name, c->scenario_path,
               c->scn->statics ? "static equilibrium first" : "design pose",
               c->scn->has_driver ? ", closed-loop driver" : "");
        printf("rtvd run: vehicle %s (%s), %d DOF, %s, dt %g s\n", c->m->name, c->model_path,
               c->m->nq, app_method_name(c->m), c->m->opt.dt);
    } else {
        printf("rtvd run: %s: model %s (%s), %d DOF, %s, dt %g s\n", c->name, c->m->name,
               c->model_path, c->m->nq, app_method_name(c->m), c->m->opt.dt);
    }
    if (cn.side_up) {
        printf("rtvd run: CAN %s (%s), role target, %d rx and %d tx messages:\n", cn.side.cfg->name,
               cn.side.cfg->file, app_can_nmsg(&cn.side, false), app_can_nmsg(&cn.side, true));
        for (int b = 0; b < cn.side.nbus; b++)
            printf("rtvd run:   %s\n", vd_can_describe(cn.side.bus[b]));
        if (cn.ecu_up)
            printf(
                "rtvd run: virtual ECU in-process (rtvd ecu): speed control, path following%s%s; "
                "%d fault windows\n",
                cn.ecu.c_eps >= 0 && cn.ecu.cfg.ctl.eps_gain > 0 ? ", EPS assist" : "",
                cn.ecu.nd ? "" : " (no drive inputs mapped)", cn.ecu.cfg.nfault);
        else
            printf("rtvd run: no ECU in-process: the ECU is on the bus (rtvd ecu, a bench)\n");
    }
    if (mk)
        app_motion_describe(mk, stdout);
    if (c->duration > 0)
        printf("rtvd run: period %d us, policy %s, %g s (%.0f periods), %d outputs, reports in "
               "%s/\n",
               c->rt.period_us, ptext, c->duration, c->duration * 1e6 / c->rt.period_us, c->noutput,
               c->reports.dir);
    else
        printf("rtvd run: period %d us, policy %s, until SIGINT/SIGTERM, %d outputs, reports in "
               "%s/\n",
               c->rt.period_us, ptext, c->noutput, c->reports.dir);
    fflush(stdout);

    /* 4. signals, then the threads: SCHED_FIFO + affinity, warm-up on the loop thread */
    g_loop = &L;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    clock_gettime(CLOCK_REALTIME, &meta.start_utc);
    meta.start_mono = vd_clock_now();
    rc = vd_loop_start(&L);
    if (rc) {
        fprintf(stderr, "rtvd run: loop thread failed to start: %s\n", strerror(-rc));
        goto out_signals;
    }

    /* what was obtained, and plainly whether timing is best effort */
    if (lc.priority > 0 && L.sched.policy != SCHED_FIFO)
        cat(why, sizeof(why), "no SCHED_FIFO (%s)",
            L.thread.fifo_errno ? strerror(L.thread.fifo_errno) : "refused");
    if (lc.priority == 0)
        cat(why, sizeof(why), "SCHED_OTHER requested (priority 0)");
    if (c->rt.lock_memory && !mem.locked)
        cat(why, sizeof(why), "memory not locked (%s)",
            mem.sanitizer ? "sanitizer build" : strerror(mem.lock_errno));
    if (!c->rt.lock_memory)
        cat(why, sizeof(why), "memory locking disabled");
    if (cpu >= 0 && !L.thread.pinned)
        cat(why, sizeof(why), "not pinned to cpu%d (%s)", cpu, strerror(L.thread.pin_errno));
    if (c->rt.dma_latency && dma_fd < 0)
        cat(why, sizeof(why), "no /dev/cpu_dma_latency (%s)", strerror(dma_errno));
    if (!vd_rt_kernel("/"))
        cat(why, sizeof(why), "kernel is not PREEMPT_RT");
    printf("rtvd run: loop thread %d: %s priority %d on cpu %d (affinity %s); memory %s; "
           "cpu_dma_latency %s\n",
           (int)L.sched.tid, vd_sched_policy_name(L.sched.policy), L.sched.priority, L.sched.cpu,
           L.sched.affinity, mem.locked ? "locked" : "not locked",
           dma_fd >= 0 ? "held at 0 us" : "not held");
    if (*why)
        printf("rtvd run: WARNING: timing is best effort: %s\n", why);
    fflush(stdout);

    /* the CAN thread and the in-process ECU, time 0 = the first release */
    if (cn.link_up) {
        rc = app_canlink_start(&cn.link, L.t_first_release);
        if (rc) {
            fprintf(stderr, "rtvd run: CAN thread failed to start: %s\n", strerror(-rc));
            vd_loop_request_stop(&L);
        }
        cn.link_started = rc == 0;
    }
    if (cn.ecu_up && cn.link_started) {
        rc = app_ecu_start(&cn.ecu, L.t_first_release);
        if (rc) {
            fprintf(stderr, "rtvd run: ECU thread failed to start: %s\n", strerror(-rc));
            vd_loop_request_stop(&L);
        }
        cn.ecu_started = rc == 0;
    }

    if (mk) {
        rc = app_motion_start(mk, L.t_first_release);
        if (rc) {
            fprintf(stderr, "rtvd run: motion thread failed to start: %s\n", strerror(-rc));
            vd_loop_request_stop(&L);
        }
        mk_started = rc == 0;
    }
    if (rec_up) {
        rc = app_recording_start(&recd);
        if (rc) {
            fprintf(stderr, "rtvd run: recording thread failed to start: %s\n", strerror(-rc));
            vd_loop_request_stop(&L);
        }
        rec_started = rc == 0;
    }
    rc = vd_telemetry_start(&tm);
    if (rc)
        fprintf(stderr, "rtvd run: warning: no telemetry thread: %s\n", strerror(-rc));
    tm_up = rc == 0;
    if (vd_sdnotify_enabled(&sdn)) {
        char msg[160];
        const int n = snprintf(msg, sizeof(msg), "READY=1\nSTATUS=running %s on cpu %d%s", c->name,
                               L.sched.cpu, *why ? " (best effort)" : "");

        vd_sdnotify_send(&sdn, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
    }

    /* 5. run: the main thread only waits (signals arrive here) */
    vd_loop_join(&L);
    {
        static const char stopping[] = "STOPPING=1\nSTATUS=stopping: writing the reports";

        vd_sdnotify_send(&sdn, stopping, sizeof(stopping) - 1);
    }
    /* the end of the run is not a bus fault: timeouts off, then the ECU, then the link
     * (which drains what the ECU sent last) */
    if (cn.ecu_started)
        app_ecu_quiesce(&cn.ecu);
    if (cn.link_started)
        app_canlink_quiesce(&cn.link);
    if (cn.ecu_started)
        app_ecu_stop(&cn.ecu);
    if (cn.link_started)
        app_canlink_stop(&cn.link);
    /* the motion feed parks (fades to neutral while it keeps sending), then stops */
    if (mk_started) {
        if (!app_motion_wait_parked(mk, c->motion.park_s + 1.0))
            fprintf(stderr, "rtvd run: motion feed: not parked %.1f s after the end\n",
                    c->motion.park_s + 1.0);
        else /* the parked state sent for 0.2 s more, so the platform sees it */
            nanosleep(&(struct timespec){0, 200000000}, NULL);
        app_motion_stop(mk);
    }
    if (tm_up)
        vd_telemetry_join(&tm);
    if (rec_started)
        rec_rc = app_recording_join(&recd);
    clock_gettime(CLOCK_REALTIME, &meta.end_utc);
    meta.end_mono = vd_clock_now();
    g_loop = NULL;

    /* 6. summary */
    if (L.step_errors)
        status = 1;
    else if (L.pol.freeze_cycle >= 0 || L.pol.reason == VD_STOP_OVERRUN ||
             L.pol.reason == VD_STOP_QUEUE_FULL || L.pol.reason == VD_STOP_ALLOW)
        status = EXIT_OVERRUN;
    else
        status = 0;
    printf("rtvd run: summary (stop reason %s%s)\n", vd_stop_reason_name(L.pol.reason),
           L.pol.freeze_cycle >= 0 ? ", the model froze" : "");
    printf("  cycles %" PRIu64 ", skipped releases %" PRIu64 ", elapsed periods %" PRId64
           " of %d us; model time %.3f s\n",
           L.pol.cycles, L.pol.skipped, vd_policy_elapsed_periods(&lc.policy, &L.pol),
           c->rt.period_us, d->t);
    {
        /* one step per elapsed period is on time; skipped releases and frozen cycles are
         * steps not taken, so the model falls behind */
        const double due = (double)vd_policy_elapsed_periods(&lc.policy, &L.pol) * c->m->opt.dt;

        if (due > 0.0 && d->t < 0.99 * due)
            printf("  the model fell behind: model time %.3f s of %.3f s due (%.0f %%)\n", d->t,
                   due, 100.0 * d->t / due);
    }
    print_hist_line("wake-up [us]", &L.h_lat);
    print_hist_line("execution [us]", &L.h_exec);
    print_hist_line("turnaround [us]", &L.h_turn);
    printf("  stages [us]     ");
    for (int s = 0; s < VD_STAGE_COUNT; s++)
        printf(" %s %.1f/%.1f", stage[s],
               L.h_stage[s].count ? (double)L.h_stage[s].sum_ns / (double)L.h_stage[s].count * 1e-3
                                  : 0.0,
               (double)L.h_stage[s].max_ns * 1e-3);
    printf("   (avg/max)\n");
    printf("  overruns %" PRIu64 " (+%" PRIu64 " in the %d-cycle grace), max consecutive %" PRIu64
           ", max overrun %.1f us, latched %s, first overrun cycle %" PRId64 "\n",
           L.pol.overruns, L.pol.grace_overruns, c->rt.grace_cycles, L.pol.max_consecutive,
           (double)L.pol.max_overrun_ns * 1e-3, L.pol.latched ? "yes" : "no",
           L.pol.first_overrun_cycle);
    if (L.pol.frozen_cycles || L.pol.shift_ns || L.pol.max_queued || L.step_errors)
        printf("  frozen cycles %" PRIu64 ", grid shift %.1f us, max queued %" PRIu64
               ", step errors %" PRIu64 "\n",
               L.pol.frozen_cycles, (double)L.pol.shift_ns * 1e-3, L.pol.max_queued, L.step_errors);
    printf("  cycle records %" PRIu64 " received, %" PRIu64 " dropped; status datagrams %" PRIu64
           "%s%s\n",
           tm.records, vd_ring_dropped(&L.rec), tm.datagrams, tc.send ? " to " : " (udp off)",
           tc.send ? c->telemetry.udp : "");
    if (rec_started) {
        printf("  recording: %" PRIu64 " records written (%" PRIu64
               " dropped: the ring was full; %" PRIu64 " missing), %d channels, %" PRIu64
               " bytes in %" PRIu64 " file%s: %s%s%s%s%s\n",
               recd.records, vd_ring_dropped(&L.recording), recd.gaps, recd.nch + 1, recd.rec.bytes,
               recd.rec.files, recd.rec.files == 1 ? "" : "s",
               recd.rec.cfg.formats & VD_REC_MDF4 ? recd.rec.name_mdf : "",
               recd.rec.cfg.formats == (VD_REC_MDF4 | VD_REC_CSV) ? " " : "",
               recd.rec.cfg.formats & VD_REC_CSV ? recd.rec.name_csv : "",
               recd.rec.index > 1 ? " (the last)" : "", rec_rc ? " WRITE ERROR" : "");
        if (rec_rc) {
            printf("  recording: %s (%" PRIu64 " records not written)\n", strerror(-rec_rc),
                   recd.rec.rows_lost);
            if (!status)
                status = 1;
        }
    }
    if (marker_fd >= 0)
        printf("  trace markers: %" PRIu64 " written, %" PRIu64 " failed (%s)\n", L.marker_writes,
               L.marker_errors, o.marker_path ? o.marker_path : "trace_marker");
    if (cn.link_started) {
        app_canlink_summary(&cn.link, stdout, "  ");
        if (cn.ecu_started)
            app_ecu_summary(&cn.ecu, stdout, "  ");
    }
    if (mk_started)
        app_motion_summary(mk, stdout, "  ");
    if (*why)
        printf("  set-up: best effort (%s)\n", why);
    else
        printf("  set-up: real time (SCHED_FIFO %d on cpu %d, memory locked, cpu_dma_latency 0, "
               "PREEMPT_RT)\n",
               L.sched.priority, L.sched.cpu);

    /* 7. reports */
    memset(&files, 0, sizeof(files));
    {
        const char **out = calloc((size_t)c->noutput + 1, sizeof(*out));

        for (int i = 0; out && i < c->noutput; i++)
            out[i] = c->out_name[i];
        meta.command_line = cmdline;
        meta.version = VD_VERSION;
        meta.git_rev = VD_GIT_REV;
        meta.config_name = c->name;
        meta.config_hash = c->hash;
        meta.scenario_path = c->scn ? c->scenario_path : NULL;
        meta.model_path = c->model_path;
        meta.model_name = c->m->name;
        meta.method = app_method_name(c->m);
        meta.dt = c->m->opt.dt;
        meta.dof = c->m->nq;
        meta.blas = blas;
        meta.policy_text = ptext;
        meta.cpu_requested = cpu;
        meta.priority_requested = c->rt.priority;
        meta.duration = c->duration;
        meta.lock_requested = c->rt.lock_memory;
        meta.dma_requested = c->rt.dma_latency;
        meta.mem = &mem;
        meta.dma_fd = dma_fd;
        meta.dma_errno = dma_errno;
        meta.best_effort = *why != '\0';
        meta.best_effort_why = why;
        meta.udp_dest = tc.send ? c->telemetry.udp : NULL;
        meta.exit_status = status;
        meta.out_names = out;
        meta.nout = out ? c->noutput : 0;
        meta.can_json = cn.link_started ? can_json : NULL;
        meta.can_ctx = &cn;
        meta.motion_json = mk_started ? motion_json : NULL;
        meta.motion_ctx = mk;
        rc = vd_report_write(c->reports.dir, c->reports.prefix, &L, tm_up ? &tm : NULL, &meta,
                             &files);
        free(out);
    }
    if (rc) {
        fprintf(stderr, "rtvd run: cannot write the reports in %s: %s\n", c->reports.dir,
                strerror(-rc));
        if (!status)
            status = 1;
    } else {
        printf("  reports: %s %s %s %s%s%s\n", files.path[0], files.path[1], files.path[2],
               files.path[3], c->reports.trace ? " " : "", c->reports.trace ? trace : "");
    }

out_signals:
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    g_loop = NULL;
    vd_rt_dma_latency_release(dma_fd);
    vd_telemetry_free(&tm);
out_loop:
    vd_sdnotify_close(&sdn);
    if (rec_up)
        app_recording_free(&recd);
    vd_udpout_close(&uo);
    if (cn.ecu_up)
        app_ecu_stop(&cn.ecu);
    if (cn.link_up)
        app_canlink_stop(&cn.link);
    if (mk) {
        app_motion_free(mk);
        free(mk);
    }
    vd_loop_free(&L);
out_data:
    free(rec_idx);
    free(rec_names);
    vd_tracemark_close(marker_fd);
    can_free(&cn);
    vd_data_free(d);
out_cfg:
    vd_cfg_run_free(c);
    return status;
}
