/* app/cmd_ecu.c - rtvd ecu: the virtual ECU (app/ecu.h) as a process of its own, on the
 * other end of the bus of an `rtvd run` (or of a real bench's target). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "app/ecu.h"
#include "config/run_yaml.h"
#include "config/vfs.h"
#include "rt/clock.h"
#include "rt/sched.h"

static void ecu_usage(FILE *f)
{
    fprintf(
        f, "usage: rtvd ecu [MAPPING.yaml | RUN.yaml] [options]\n"
           "\n"
           "The virtual ECU: the other end of rtvd's CAN bus, from the same mapping file and DBC\n"
           "read mirrored (it sends the mapping's rx messages and receives its tx messages, at\n"
           "their cycle times and phases, with E2E). A run file (a `can:` section) gives the\n"
           "mapping, its scenario's driver (target speed schedule, path, drive and brake inputs,\n"
           "steering geometry, start pose) and its can.ecu settings and faults; a mapping alone\n"
           "gets the defaults: 0 -> 10 m/s from 1 s to 6 s along a straight line. Without an\n"
           "argument: the embedded default run, <embedded>/config/runs/default.yaml (the\n"
           "counterpart of `rtvd run --no-ecu`).\n"
           "\n"
           "The controller works on the received signals only, in the ECU's time since its\n"
           "start: PI speed control on the vehicle speed (imu.lvx, else chassis.vx, else the\n"
           "wheel speeds) into per-wheel drive and brake torques (below 0.3 m/s with a zero\n"
           "target the brakes hold; without a valid speed: no drive, full brakes); pure pursuit\n"
           "on the position dead-reckoned from speed and yaw rate (imu.wz) into the steering-\n"
           "wheel angle; an EPS assist torque (gain x 10/(10 + v) x the torsion-bar torque,\n"
           "low-passed 0.1 s, within 30 N m) when the mapping sends steering.eps_torque.\n"
           "\n"
           "  --duration S        run S seconds; 0: until SIGINT/SIGTERM (default 0)\n"
           "  --port N            udp buses: the ECU binds N+1 and sends to N (+2 per bus),\n"
           "                      as `rtvd run --can-port N`; default: the mapping's ports\n"
           "  --priority N        SCHED_FIFO priority of the ECU thread, 0: SCHED_OTHER (60)\n"
           "  --cpu N|none        CPU of the ECU thread (default none)\n"
           "  --speed V|T:V,...   target speed [m/s]: constant, or a schedule over time [s]\n"
           "  --straight          follow a straight line along the start heading, not the\n"
           "                      scenario's path\n"
           "  --eps-gain K        EPS assist gain at standstill, 0: no assist (default 1)\n"
           "  --set NAME=VALUE    a fixed command for an input the mapping sends, in model\n"
           "                      units (N m, rad), replacing the controller's (repeatable)\n"
           "  --strict            read the mapping's DBCs strictly: the defects read with a\n"
           "                      warning (an id above 0x7FF without the extended flag, a CM_\n"
           "                      without ';', a name starting with a digit, signals sharing\n"
           "                      bits) are errors\n"
           "  --fault SPEC        inject a fault (repeatable); SPEC is\n"
           "                      KIND[:MESSAGE][@AT[+DURATION|xCOUNT]][*FACTOR]:\n"
           "                        AT [s] ECU time the window opens (0), DURATION [s] its\n"
           "                        length or COUNT the events it injects (neither: to the end)\n"
           "                      KIND, on MESSAGE (one the ECU sends):\n"
           "                        silent        the message is not sent (events: frames not\n"
           "                                      sent)\n"
           "                        bad_crc       the E2E CRC inverted\n"
           "                        stale_counter the E2E counter not advanced (REPEATED)\n"
           "                        jump_counter  the E2E counter jumps past max_delta_counter\n"
           "                        out_of_range  the mapped integer signals at their largest raw\n"
           "                                      value\n"
           "                        nan           the mapped float signals NaN\n"
           "                        wrong_length  the frame one byte short (DLC)\n"
           "                        burst         each frame FACTOR times back to back (10)\n"
           "                        flood         the message at FACTOR x its rate (10): stale\n"
           "                                      copies of its last frame (events: copies)\n"
           "                      and without MESSAGE:\n"
           "                        unknown_id    FACTOR frames per 1 ms with identifiers no one\n"
           "                                      receives (1)\n"
           "                        bad_datagram  one malformed cannelloni datagram per 1 ms\n"
           "                                      (udp: too short, bad version, bad op code)\n"
           "                      e.g. --fault silent:ECU_WheelTorques@5+0.5\n"
           "                           --fault bad_crc:ECU_BrakeTorques@2x3\n"
           "                           --fault flood:ECU_Steering@3+1*10\n"
           "  --report FILE.json  the counters as JSON at exit\n"
           "  --quiet             no status line every second\n"
           "  --help              this text\n"
           "\n"
           "At exit (duration, SIGINT/SIGTERM) it prints its counters: frames sent and received,\n"
           "E2E results and timeouts of what it received, transport counters, and per fault\n"
           "window the events injected. Exit status: 0 done; 1 a configuration or set-up error;\n"
           "2 usage.\n");
}

/* a mapping file has a top-level `buses:`; anything else is taken for a run file */
static bool is_mapping(const char *path)
{
    FILE *f = vd_cfg_fopen(path, "r");
    char line[512];
    bool yes = false;

    if (!f)
        return false;
    while (!yes && fgets(line, sizeof(line), f))
        yes = !strncmp(line, "buses:", 6);
    fclose(f);
    return yes;
}

static int parse_speed(const char *s, struct app_ecu_ctl *c)
{
    char buf[1024], *save = NULL, *tok;
    double v;

    if (!app_parse_double(s, &v)) {
        c->nv = 1;
        c->vt[0] = 0.0;
        c->vv[0] = v;
        return fabs(v) <= 100 ? 0 : -1;
    }
    if (strlen(s) >= sizeof(buf))
        return -1;
    strcpy(buf, s);
    c->nv = 0;
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(tok, ':');
        double t;

        if (!colon || c->nv >= VD_RUN_MAX_SPEED)
            return -1;
        *colon = '\0';
        if (app_parse_double(tok, &t) || app_parse_double(colon + 1, &v) || t < 0 ||
            fabs(v) > 100 || (c->nv && t <= c->vt[c->nv - 1]))
            return -1;
        c->vt[c->nv] = t;
        c->vv[c->nv] = v;
        c->nv++;
    }
    return c->nv ? 0 : -1;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};

    nanosleep(&ts, NULL);
}

int cmd_ecu(int argc, char **argv)
{
    static const struct option lopts[] = {
        {"duration", required_argument, 0, 'T'}, {"port", required_argument, 0, 'P'},
        {"priority", required_argument, 0, 'p'}, {"cpu", required_argument, 0, 'c'},
        {"speed", required_argument, 0, 's'},    {"straight", no_argument, 0, 'S'},
        {"eps-gain", required_argument, 0, 'e'}, {"set", required_argument, 0, 'x'},
        {"fault", required_argument, 0, 'f'},    {"report", required_argument, 0, 'R'},
        {"strict", no_argument, 0, 'W'},         {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},           {0, 0, 0, 0}};
    struct app_ecu_cfg *cfg = calloc(1, sizeof(*cfg));
    struct app_ecu_fault *cli = calloc(VD_RUN_MAX_FAULTS, sizeof(*cli));
    struct app_ecu *e = calloc(1, sizeof(*e));
    struct vd_run_cfg *run = NULL;
    const char *path, *mapping, *report = NULL, *speed = NULL;
    double duration = 0.0, eps_gain = -1.0;
    int port = -1, prio = -1, cpu = -2, ncli = 0, status = 1, ch;
    bool straight = false, quiet = false, strict = false;
    long v;
    struct {
        char name[APP_ECU_NAME];
        double value;
    } set[APP_ECU_MAX_SET];
    int nset = 0;
    int64_t t0;
    bool inited = false;

    if (!cfg || !cli || !e) {
        fprintf(stderr, "rtvd ecu: out of memory\n");
        goto out;
    }
    optind = 1;
    while ((ch = getopt_long(argc, argv, "hq", lopts, NULL)) != -1) {
        switch (ch) {
        case 'T':
            if (app_parse_double(optarg, &duration) || duration < 0 || duration > 1e7)
                goto bad;
            break;
        case 'P':
            if (app_parse_long(optarg, &v) || v < 1 || v > 65000)
                goto bad;
            port = (int)v;
            break;
        case 'p':
            if (app_parse_long(optarg, &v) || v < 0 || v > 99)
                goto bad;
            prio = (int)v;
            break;
        case 'c':
            if (!strcmp(optarg, "none"))
                cpu = -1;
            else if (!app_parse_long(optarg, &v) && v >= 0 && v < 1024)
                cpu = (int)v;
            else
                goto bad;
            break;
        case 's':
            speed = optarg;
            break;
        case 'S':
            straight = true;
            break;
        case 'e':
            if (app_parse_double(optarg, &eps_gain) || eps_gain < 0 || eps_gain > 10)
                goto bad;
            break;
        case 'x': {
            const char *eq = strchr(optarg, '=');

            if (!eq || eq == optarg || (size_t)(eq - optarg) >= APP_ECU_NAME ||
                nset >= APP_ECU_MAX_SET || app_parse_double(eq + 1, &set[nset].value))
                goto bad;
            memcpy(set[nset].name, optarg, (size_t)(eq - optarg));
            set[nset].name[eq - optarg] = '\0';
            nset++;
            break;
        }
        case 'f':
            if (ncli >= VD_RUN_MAX_FAULTS || app_ecu_parse_fault(optarg, &cli[ncli]))
                goto bad;
            ncli++;
            break;
        case 'R':
            report = optarg;
            break;
        case 'q':
            quiet = true;
            break;
        case 'W':
            strict = true;
            break;
        case 'h':
            ecu_usage(stdout);
            status = 0;
            goto out;
        default:
            ecu_usage(stderr);
            status = 2;
            goto out;
        }
    }
    if (argc - optind > 1) {
        ecu_usage(stderr);
        status = 2;
        goto out;
    }
    path = optind < argc ? argv[optind] : APP_DEFAULT_RUN;

    /* the mapping and the controller: a mapping alone, or a run file's */
    app_ecu_cfg_default(cfg);
    if (is_mapping(path)) {
        mapping = path;
    } else {
        run = vd_cfg_load_run(path, APP_DEFAULT_SCENARIO, stderr);
        if (!run)
            goto out;
        if (!run->can.on) {
            fprintf(stderr, "rtvd ecu: %s has no can: section (its CAN mapping)\n", path);
            goto out;
        }
        if (run->scn && app_ecu_ctl_from_scenario(&cfg->ctl, run->scn, stderr))
            goto out;
        app_ecu_cfg_from_run(cfg, &run->can, run->name);
        cfg->priority = 60;
        mapping = run->can.mapping;
    }
    if (port > 0)
        cfg->port = port;
    cfg->strict_dbc = strict;
    if (prio >= 0)
        cfg->priority = prio;
    if (cpu != -2)
        cfg->cpu = cpu;
    if (speed && parse_speed(speed, &cfg->ctl)) {
        fprintf(stderr, "rtvd ecu: invalid --speed '%s' (V or T:V,T:V,... with T increasing)\n",
                speed);
        status = 2;
        goto out;
    }
    if (straight) {
        cfg->ctl.npath = 2;
        cfg->ctl.px[0] = cfg->ctl.x0 - 1000.0 * cos(cfg->ctl.psi0);
        cfg->ctl.py[0] = cfg->ctl.y0 - 1000.0 * sin(cfg->ctl.psi0);
        cfg->ctl.px[1] = cfg->ctl.x0 + 100000.0 * cos(cfg->ctl.psi0);
        cfg->ctl.py[1] = cfg->ctl.y0 + 100000.0 * sin(cfg->ctl.psi0);
    }
    if (eps_gain >= 0)
        cfg->ctl.eps_gain = eps_gain;
    for (int i = 0; i < nset; i++) {
        memcpy(cfg->set_name[i], set[i].name, APP_ECU_NAME);
        cfg->set_value[i] = set[i].value;
    }
    cfg->nset = nset;
    for (int i = 0; i < ncli && cfg->nfault < VD_RUN_MAX_FAULTS; i++)
        cfg->fault[cfg->nfault++] = cli[i];

    /* memory as the target's (no allocation in the ECU thread either), buses, thread */
    {
        struct vd_rt_mem mem;

        vd_rt_memory_setup(true, 1u << 20, &mem);
    }
    inited = true;
    if (app_ecu_init(e, mapping, cfg, stderr))
        goto out;
    printf("rtvd ecu: %s (%s), role ecu: sends %d messages, receives %d\n", e->side.cfg->name,
           e->side.cfg->file, app_can_nmsg(&e->side, true), app_can_nmsg(&e->side, false));
    for (int b = 0; b < e->side.nbus; b++)
        printf("rtvd ecu:   %s\n", vd_can_describe(e->side.bus[b]));
    printf("rtvd ecu: speed control on %d drive and %d brake inputs%s%s%s; %d fixed commands, "
           "%d fault windows; %s\n",
           e->nd, e->nb, e->c_steer >= 0 ? ", path following" : "",
           e->c_eps >= 0 && cfg->ctl.eps_gain > 0 ? ", EPS assist" : "",
           e->i_vx < 0 && e->nomega == 0 ? " (no speed signal received!)" : "", cfg->nset,
           cfg->nfault, duration > 0 ? "running" : "running until SIGINT/SIGTERM");
    fflush(stdout);
    app_stop_on_signals();
    t0 = vd_clock_now() + APP_CAN_MS;
    if ((status = app_ecu_start(e, t0))) {
        fprintf(stderr, "rtvd ecu: thread: %s\n", strerror(-status));
        status = 1;
        goto out;
    }
    for (int tick = 1; !app_stop; tick++) {
        const double t = (double)(vd_clock_now() - t0) * 1e-9;

        if (duration > 0 && t >= duration)
            break;
        sleep_ms(duration > 0 && duration - t < 0.1 ? (int)((duration - t) * 1000) + 1 : 100);
        if (!quiet && tick % 10 == 0) {
            /* counters of the transports (atomics) and the controller's last values */
            struct vd_can_stats cs;
            uint64_t rx = 0, tx = 0;

            for (int b = 0; b < e->side.nbus; b++) {
                vd_can_stats(e->side.bus[b], &cs);
                rx += cs.rx_frames;
                tx += cs.tx_frames;
            }
            fprintf(stderr, "rtvd ecu: t %.1f s: tx %" PRIu64 " rx %" PRIu64 " frames\n", t, tx,
                    rx);
        }
    }
    app_ecu_quiesce(e);
    app_ecu_stop(e);
    printf("rtvd ecu: stopped after %.3f s (%s)\n", (double)(vd_clock_now() - t0) * 1e-9,
           app_stop ? "signal" : "duration");
    app_ecu_summary(e, stdout, "  ");
    {
        char buf[2048];

        for (int b = 0; b < e->side.nbus; b++) {
            struct vd_can_stats cs;

            vd_can_stats(e->side.bus[b], &cs);
            vd_can_stats_format(&cs, buf, sizeof(buf));
            printf("  bus %s: %s\n", e->side.bcfg[b].name, buf);
        }
    }
    status = 0;
    if (report) {
        FILE *f = fopen(report, "w");

        if (!f) {
            fprintf(stderr, "rtvd ecu: cannot write %s: %s\n", report, strerror(errno));
            status = 1;
        } else {
            app_ecu_json(e, f);
            fputc('\n', f);
            if (fclose(f))
                status = 1;
        }
    }
    goto out;
bad:
    fprintf(stderr, "rtvd ecu: invalid option value '%s' (see rtvd ecu --help)\n", optarg);
    status = 2;
out:
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (inited)
        app_ecu_free(e);
    vd_cfg_run_free(run);
    free(e);
    free(cli);
    free(cfg);
    return status;
}
