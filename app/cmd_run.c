/* app/cmd_run.c - rtvd run: the model in real time. Parses the options over the run
 * configuration (file or the embedded default) and runs the phases of app/run_session.h:
 * memory, the loop thread and the telemetry thread set up in cyclictest's order (rt/), the
 * run until the duration elapses, the overrun policy stops it or SIGINT/SIGTERM arrives,
 * then the summary and the reports. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "app/run_session.h"
#include "config/tir.h"
#include "core/csblock.h"

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
            "start and fade to neutral with bounded jerk at the end or on any fault. With\n"
            "motion.control (or --motion-control) an operator parks, resets and engages the\n"
            "platform again during the run: rtvd control PATH park|reset|engage.\n"
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
            "  --vehicle FILE.yaml   run the scenario with this vehicle instead of its own\n"
            "                        (e.g. config/vehicles/sedan_joints.yaml in the default\n"
            "                        HIL scenario; the CAN loop and the rest unchanged)\n"
            "  --constraints index2|nullspace\n"
            "                        models with joints: the form of the constrained step\n"
            "                        (default: solver.constraints)\n"
            "  --project none|positions|both\n"
            "                        models with joints: the projection after each step\n"
            "                        (default: solver.project)\n"
            "  --formulation fa|ce|ta\n"
            "                        models with ideal joints: the model form (default:\n"
            "                        solver.formulation; ce and ta: LIE or LSRT2)\n"
            "  --solver lie|lsrt2    the integrator (default: the model's solver.method)\n"
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
            "  --motion-heartbeat S  park the feed when the platform's heartbeat is S s late.\n"
            "                        To a unicast DEST only DEST may answer: RTVH from its\n"
            "                        address and port, Moog statuses from its address; any\n"
            "                        other sender is counted as wrong_source, not taken (a\n"
            "                        platform answering from another address, e.g. a\n"
            "                        listener bound to any address fed on 127.0.0.2 that\n"
            "                        answers from 127.0.0.1, is no heartbeat: the feed\n"
            "                        parks). To a multicast DEST any sender may, each\n"
            "                        one's RTVH counter its own. An RTVH counter not above\n"
            "                        the last one taken is no heartbeat (hb_stale) until\n"
            "                        the feed has parked for the heartbeat's loss\n"
            "                        (io/MOTION_DATAGRAMS.md)\n"
            "  --motion-control PATH|off\n"
            "                        the operator's control channel (motion.control): a Unix\n"
            "                        datagram socket (mode 0600) taking PARK, RESET, ENGAGE,\n"
            "                        STATUS during the run (rtvd control PATH ...); off: none\n"
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

/* --- options ------------------------------------------------------------------------------ */

static int parse_inject(struct run_inject *in, const char *s)
{
    char buf[1024], *save = NULL, *tok;

    if (strlen(s) >= sizeof(buf))
        return -1;
    strcpy(buf, s);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        long c;
        double us;
        char *colon = strchr(tok, ':');

        if (!colon || in->n >= RUN_MAX_INJECT)
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
    if (o->linear >= 0)
        c->m->opt.linear = o->linear; /* before vd_data_new, which sizes for it */
    if (o->so.method >= 0)
        c->m->opt.method = o->so.method; /* before the form, which checks it */
    /* before vd_data_new too; the structured solve analysed again for both */
    if (app_apply_constraints(&o->so, c->m))
        return -1;
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
    if (o->motion_ctl) {
        if (!strcmp(o->motion_ctl, "off")) {
            c->motion.control[0] = '\0';
        } else if (o->motion_ctl[0] != '/' || strlen(o->motion_ctl) >= sizeof(c->motion.control)) {
            fprintf(stderr,
                    "rtvd run: --motion-control '%s': an absolute path shorter than %zu bytes, "
                    "or off\n",
                    o->motion_ctl, sizeof(c->motion.control));
            return -1;
        } else {
            snprintf(c->motion.control, sizeof(c->motion.control), "%s", o->motion_ctl);
        }
    }
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
                                          {"vehicle", required_argument, 0, 1005},
                                          {"constraints", required_argument, 0, 1006},
                                          {"project", required_argument, 0, 1007},
                                          {"formulation", required_argument, 0, 1008},
                                          {"solver", required_argument, 0, 1009},
                                          {"motion-control", required_argument, 0, 1010},
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
    app_solver_opts_init(&o->so);
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
            if (app_parse_solver(&o->so, "linear", optarg))
                goto bad;
            o->linear = o->so.linear;
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
        case 1005:
            o->vehicle = optarg;
            break;
        case 1006:
        case 1007:
        case 1008:
        case 1009:
            if (app_parse_solver(&o->so,
                                 ch == 1006   ? "constraints"
                                 : ch == 1007 ? "project"
                                 : ch == 1008 ? "formulation"
                                              : "solver",
                                 optarg))
                return 2;
            break;
        case 1010:
            o->motion_ctl = optarg;
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

/* --- the command -------------------------------------------------------------------------- */

int cmd_run(int argc, char **argv)
{
    struct run_opts o;
    const char *config = NULL;
    struct run_session *s;
    int rc, status = 1;

    rc = parse_opts(argc, argv, &o, &config);
    if (rc)
        return rc == 1 ? 0 : rc;
    s = calloc(1, sizeof(*s));
    if (!s) {
        fprintf(stderr, "rtvd run: out of memory\n");
        return 1;
    }
    s->o = &o;
    snprintf(s->cmdline, sizeof(s->cmdline), "rtvd");
    for (int i = 0; i < argc; i++)
        snprintf(s->cmdline + strlen(s->cmdline), sizeof(s->cmdline) - strlen(s->cmdline), " %s",
                 argv[i]);

    /* configuration: file or the embedded default, then the command line */
    s->c = vd_cfg_load_run_vehicle(config ? config : APP_DEFAULT_RUN, APP_DEFAULT_SCENARIO,
                                   o.vehicle, stderr);
    if (!s->c) {
        free(s);
        return 1;
    }
    s->level = RUN_CFG;
    if (apply_opts(s->c, &o)) {
        run_session_free(s);
        free(s);
        return 2;
    }
    if (!run_session_setup(s)) {
        run_session_announce(s);
        if (!run_session_start(s)) {
            run_session_finish(s);
            status = run_session_summary(s);
            status = run_session_reports(s, status);
        }
    }
    run_session_free(s);
    free(s);
    return status;
}
