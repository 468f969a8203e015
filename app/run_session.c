/* app/run_session.c - one `rtvd run`: set-up in cyclictest's order (rt/), the threads
 * started and stopped in order, the teardown (app/run_session.h). */
#include <errno.h>
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
#include "app/git_rev.h" /* VD_GIT_REV, generated at build time */
#include "app/run_session.h"
#include "core/linalg.h"
#include "rt/clock.h"
#include "rt/sched.h"
#include "rt/tracemark.h"

#define PREFAULT_HEAP (8u << 20) /* [bytes] */
#define CAN_LEAD_NS   50000000LL /* [ns] first release after the warm-up, CAN threads up */
#define CAN_TX_OFFSET 500000LL   /* [ns] TX slots half a millisecond after the releases */

/* --- test hook: busy-wait on chosen cycles (the loop thread) ------------------------------ */

static void inject_hook(void *ctx, uint64_t cycle)
{
    const struct run_inject *in = ctx;

    for (int i = 0; i < in->n; i++)
        if (in->cycle[i] == cycle) {
            const int64_t until = vd_clock_now() + in->ns[i];

            while (vd_clock_now() < until)
                ;
        }
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

/* --- CAN: the target link and the in-process ECU ----------------------------------------- */

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

/* --- set-up ------------------------------------------------------------------------------- */

/* 1. memory: malloc tuning, mlockall, heap prefault (before the big allocations); the data,
 * the start state and the input function: a scenario's initial state (statics first unless
 * it says otherwise), signals and driver, else the model's signals; the CAN mapping (its
 * outputs join the output snapshot), buses, the in-process ECU */
static int setup_model(struct run_session *s)
{
    struct vd_run_cfg *c = s->c;

    s->cpu = app_resolve_cpu(c->rt.cpu);
    policy_text(s->ptext, sizeof(s->ptext), &c->rt);
    vd_rt_memory_setup(c->rt.lock_memory, PREFAULT_HEAP, &s->mem);
    if (vd_blas_init(s->blas, sizeof(s->blas)))
        fprintf(stderr, "rtvd run: warning: BLAS runs more than one thread: %s\n", s->blas);
    s->d = vd_data_new(c->m);
    if (!s->d) {
        fprintf(stderr, "rtvd run: out of memory\n");
        return -1;
    }
    s->level = RUN_DATA;
    if (c->scn) {
        char err[200];
        const int rc = vd_scenario_start(c->scn, s->d, err, sizeof(err));

        if (rc) {
            fprintf(stderr, "rtvd run: %s: %s\n", c->scenario_path, err);
            return -1;
        }
        s->scen_fn = s->d->input_fn;
        s->scen_ctx = s->d->input_ctx;
    } else {
        s->scen_fn = vd_source_eval;
        s->scen_ctx = c->src;
        s->scen_fn(s->scen_ctx, 0.0, s->d->u);
    }
    if (c->m->opt.dt * 1e6 < c->rt.period_us - 0.5 || c->m->opt.dt * 1e6 > c->rt.period_us + 0.5)
        fprintf(stderr,
                "rtvd run: note: model step %g s != period %d us: model time runs at %.3g x "
                "real time\n",
                c->m->opt.dt, c->rt.period_us, c->m->opt.dt * 1e6 / c->rt.period_us);
    if (c->can.on && can_setup(&s->cn, c, s->o))
        return -1;
    return 0;
}

/* 2a. the loop's configuration: the motion cue point, the test hook, the trace marker, the
 * recorded signals; then the loop, all its buffers allocated and touched */
static int setup_loop(struct run_session *s)
{
    struct vd_run_cfg *c = s->c;
    struct vd_loop_cfg *lc = &s->lc;
    int rc;

    loop_cfg_from(lc, c, s->cpu);
    if (c->motion.on) {
        char err[160];

        if (vd_cue_point_init(c->m, &s->cue, c->motion.mrp_body, c->motion.mrp_pos,
                              c->motion.mrp_rpy, err, sizeof(err))) {
            fprintf(stderr, "rtvd run: motion: %s\n", err);
            return -1;
        }
        lc->cue = &s->cue;
        lc->ntaps = 2; /* tap 0: CAN, tap 1: the motion feed */
        if (!c->can.on)
            lc->start_lead_ns = CAN_LEAD_NS;
    }
    if (c->can.on)
        lc->start_lead_ns = CAN_LEAD_NS;
    if (s->o->inject.n) {
        lc->hook = inject_hook;
        lc->hook_ctx = (void *)&s->o->inject;
    }
    if (s->o->marker) {
        s->marker_fd = vd_tracemark_open(s->o->marker_path);
        if (s->marker_fd < 0) {
            fprintf(stderr,
                    "rtvd run: --trace-marker: cannot open %s: %s (is tracefs mounted? mount -t "
                    "tracefs nodev /sys/kernel/tracing)\n",
                    s->o->marker_path ? s->o->marker_path : VD_TRACEMARK_DEFAULT,
                    strerror(-s->marker_fd));
            return -1;
        }
        lc->marker_fd = s->marker_fd;
    }
    if (c->record.on) {
        /* every output (the CAN ones too), or the run file's record.signals */
        s->rec_idx = calloc((size_t)c->noutput + 1, sizeof(*s->rec_idx));
        s->rec_names = calloc((size_t)c->noutput + 1, sizeof(*s->rec_names));
        if (!s->rec_idx || !s->rec_names)
            return -1;
        lc->rec_nsig = c->record.all ? c->noutput : c->record.nsig;
        for (int i = 0; i < lc->rec_nsig; i++) {
            s->rec_idx[i] = c->record.all ? i : c->record.sig[i];
            s->rec_names[i] = c->out_name[s->rec_idx[i]];
        }
        lc->record = true;
        lc->rec_sig = s->rec_idx;
        lc->rec_ring_order = 4;
        while ((1 << lc->rec_ring_order) < c->record.buffer)
            lc->rec_ring_order++;
    }
    rc = vd_loop_init(&s->L, lc, c->m, s->d, s->scen_fn, s->scen_ctx, c->out_sig, c->noutput);
    if (rc) {
        fprintf(stderr, "rtvd run: loop set-up failed: %s\n", strerror(-rc));
        return -1;
    }
    s->level = RUN_LOOP;
    return 0;
}

/* 2b. the recording to a file, by a non-RT thread */
static int setup_recording(struct run_session *s)
{
    struct vd_run_cfg *c = s->c;
    const struct app_recording_cfg rcfg = {
        .path = s->rec_path,
        .formats = c->record.format,
        .rotate_mb = c->record.rotate_mb,
        .rotate_s = c->record.rotate_s,
        .names = s->rec_names,
        .comment = s->cmdline,
        .version = VD_VERSION " (git " VD_GIT_REV ")",
    };
    char rec_dir[sizeof(s->rec_path)], *slash;
    int rc;

    if (*c->record.file)
        snprintf(s->rec_path, sizeof(s->rec_path), "%s", c->record.file);
    else
        snprintf(s->rec_path, sizeof(s->rec_path), "%s/%s-record", c->reports.dir,
                 c->reports.prefix);
    /* its directory, as the reports' */
    snprintf(rec_dir, sizeof(rec_dir), "%s", s->rec_path);
    slash = strrchr(rec_dir, '/');
    if (slash && slash != rec_dir) {
        *slash = '\0';
        if ((rc = vd_mkdir_p(rec_dir))) {
            fprintf(stderr, "rtvd run: recording: cannot create %s: %s\n", rec_dir, strerror(-rc));
            return -1;
        }
    }
    rc = app_recording_init(&s->recd, &s->L, &rcfg);
    if (rc) {
        fprintf(stderr, "rtvd run: recording to %s: %s\n", s->rec_path, strerror(-rc));
        return -1;
    }
    s->rec_up = true;
    return 0;
}

/* 2c. the CAN link and the motion feed on the loop's taps, the recording */
static int setup_links(struct run_session *s)
{
    struct vd_run_cfg *c = s->c;

    if (c->can.on) {
        const struct app_canlink_cfg kc = {
            .priority = c->can.priority,
            .cpu = c->can.cpu,
            .tap = 0,
            .tx_offset_ns = CAN_TX_OFFSET,
        };

        if (app_canlink_init(&s->cn.link, &s->cn.side, &s->L, c->m, s->cn.out_names, c->noutput,
                             &kc, stderr))
            return -1;
        s->cn.link_up = true;
    }
    if (c->motion.on) {
        s->mk = calloc(1, sizeof(*s->mk));
        if (!s->mk || app_motion_init(s->mk, &c->motion, &s->L, 1, -c->m->gravity[2], stderr)) {
            free(s->mk);
            s->mk = NULL;
            return -1;
        }
    }
    if (c->record.on && setup_recording(s))
        return -1;
    return 0;
}

/* 2d. the telemetry: status line and datagrams, the cycle trace, systemd; 3. then
 * /dev/cpu_dma_latency at 0 while running */
static int setup_telemetry(struct run_session *s)
{
    struct vd_run_cfg *c = s->c;
    struct vd_telemetry_cfg *tc = &s->tc;
    int rc;

    vd_telemetry_cfg_default(tc);
    if (s->cn.link_up) {
        tc->can = &s->cn.link.tm;
        tc->can_names = s->cn.in_names;
        tc->ncan_names = c->m->ninput;
    }
    if (s->mk)
        tc->motion = &s->mk->tm;
    tc->rate_hz = c->telemetry.rate_hz;
    tc->name = c->name;
    tc->status_fd = s->o->quiet ? -1 : STDERR_FILENO;
    tc->status_refresh = isatty(STDERR_FILENO);
    tc->log_fd = STDERR_FILENO;
    if (c->telemetry.udp_on) {
        struct sockaddr_in dest;

        rc = vd_udp_parse(c->telemetry.udp, &dest);
        if (!rc)
            rc = vd_udpout_open(&s->uo, &dest);
        if (rc) {
            fprintf(stderr, "rtvd run: status datagrams to %s: %s\n", c->telemetry.udp,
                    strerror(-rc));
            return -1;
        }
        tc->send = vd_udpout_sink;
        tc->send_ctx = &s->uo;
    }
    if (c->reports.trace) {
        if ((rc = vd_mkdir_p(c->reports.dir))) {
            fprintf(stderr, "rtvd run: cannot create %s: %s\n", c->reports.dir, strerror(-rc));
            return -1;
        }
        snprintf(s->trace, sizeof(s->trace), "%s/%s-cycles.csv", c->reports.dir, c->reports.prefix);
        tc->trace_path = s->trace;
    }
    /* under systemd (Type=notify): READY once running, the watchdog fed by the telemetry
     * thread, journald priorities on the loop's messages */
    rc = vd_sdnotify_open(&s->sdn, NULL);
    if (rc) {
        fprintf(stderr, "rtvd run: $NOTIFY_SOCKET / $WATCHDOG_USEC: %s\n", strerror(-rc));
        return -1;
    }
    if (s->sdn.watchdog_ns > 0 && s->sdn.watchdog_ns < (int64_t)(4e9 / tc->rate_hz)) {
        fprintf(stderr,
                "rtvd run: the watchdog interval (WatchdogSec=, %.3f s) must be at least 4 "
                "telemetry periods (telemetry.rate_hz %g): raise one of them\n",
                (double)s->sdn.watchdog_ns * 1e-9, tc->rate_hz);
        return -1;
    }
    tc->notify = &s->sdn;
    tc->syslog_prefix = vd_journal_stream(STDERR_FILENO);
    rc = vd_telemetry_init(&s->tm, &s->L, tc);
    if (rc) {
        fprintf(stderr, "rtvd run: telemetry set-up failed: %s\n", strerror(-rc));
        return -1;
    }
    s->level = RUN_TELEMETRY;

    if (c->rt.dma_latency) {
        s->dma_fd = vd_rt_dma_latency_hold(0);
        if (s->dma_fd < 0) {
            s->dma_errno = -s->dma_fd;
            s->dma_fd = -1;
        }
    }
    return 0;
}

int run_session_setup(struct run_session *s)
{
    s->uo.sock = -1;
    s->sdn.fd = -1;
    s->dma_fd = -1;
    s->marker_fd = -1;
    if (setup_model(s) || setup_loop(s) || setup_links(s) || setup_telemetry(s))
        return -1;
    return 0;
}

void run_session_announce(struct run_session *s)
{
    const struct vd_run_cfg *c = s->c;
    const struct run_can *cn = &s->cn;

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
    app_describe_joints(c->m, "rtvd run: ", stdout);
    if (cn->side_up) {
        printf("rtvd run: CAN %s (%s), role target, %d rx and %d tx messages:\n",
               cn->side.cfg->name, cn->side.cfg->file, app_can_nmsg(&cn->side, false),
               app_can_nmsg(&cn->side, true));
        for (int b = 0; b < cn->side.nbus; b++)
            printf("rtvd run:   %s\n", vd_can_describe(cn->side.bus[b]));
        if (cn->ecu_up)
            printf(
                "rtvd run: virtual ECU in-process (rtvd ecu): speed control, path following%s%s; "
                "%d fault windows\n",
                cn->ecu.c_eps >= 0 && cn->ecu.cfg.ctl.eps_gain > 0 ? ", EPS assist" : "",
                cn->ecu.nd ? "" : " (no drive inputs mapped)", cn->ecu.cfg.nfault);
        else
            printf("rtvd run: no ECU in-process: the ECU is on the bus (rtvd ecu, a bench)\n");
    }
    if (s->mk)
        app_motion_describe(s->mk, stdout);
    if (c->duration > 0)
        printf("rtvd run: period %d us, policy %s, %g s (%.0f periods), %d outputs, reports in "
               "%s/\n",
               c->rt.period_us, s->ptext, c->duration, c->duration * 1e6 / c->rt.period_us,
               c->noutput, c->reports.dir);
    else
        printf("rtvd run: period %d us, policy %s, until SIGINT/SIGTERM, %d outputs, reports in "
               "%s/\n",
               c->rt.period_us, s->ptext, c->noutput, c->reports.dir);
    fflush(stdout);
}

/* what was obtained, and plainly whether timing is best effort */
static void setup_verdict(struct run_session *s)
{
    const struct vd_run_cfg *c = s->c;
    const struct vd_loop *L = &s->L;
    char *why = s->why;
    const size_t n = sizeof(s->why);

    if (s->lc.priority > 0 && L->sched.policy != SCHED_FIFO)
        cat(why, n, "no SCHED_FIFO (%s)",
            L->thread.fifo_errno ? strerror(L->thread.fifo_errno) : "refused");
    if (s->lc.priority == 0)
        cat(why, n, "SCHED_OTHER requested (priority 0)");
    if (c->rt.lock_memory && !s->mem.locked)
        cat(why, n, "memory not locked (%s)",
            s->mem.sanitizer ? "sanitizer build" : strerror(s->mem.lock_errno));
    if (!c->rt.lock_memory)
        cat(why, n, "memory locking disabled");
    if (s->cpu >= 0 && !L->thread.pinned)
        cat(why, n, "not pinned to cpu%d (%s)", s->cpu, strerror(L->thread.pin_errno));
    if (c->rt.dma_latency && s->dma_fd < 0)
        cat(why, n, "no /dev/cpu_dma_latency (%s)", strerror(s->dma_errno));
    if (!vd_rt_kernel("/"))
        cat(why, n, "kernel is not PREEMPT_RT");
    printf("rtvd run: loop thread %d: %s priority %d on cpu %d (affinity %s); memory %s; "
           "cpu_dma_latency %s\n",
           (int)L->sched.tid, vd_sched_policy_name(L->sched.policy), L->sched.priority,
           L->sched.cpu, L->sched.affinity, s->mem.locked ? "locked" : "not locked",
           s->dma_fd >= 0 ? "held at 0 us" : "not held");
    if (*why)
        printf("rtvd run: WARNING: timing is best effort: %s\n", why);
    fflush(stdout);
}

/* 4. signals, then the threads: SCHED_FIFO + affinity, warm-up on the loop thread; the CAN
 * thread and the in-process ECU, the motion feed, the recording: time 0 = the first
 * release */
int run_session_start(struct run_session *s)
{
    struct sigaction sa = {.sa_handler = on_signal};
    struct run_can *cn = &s->cn;
    struct vd_loop *L = &s->L;
    int rc;

    g_loop = L;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    clock_gettime(CLOCK_REALTIME, &s->meta.start_utc);
    s->meta.start_mono = vd_clock_now();
    rc = vd_loop_start(L);
    if (rc) {
        fprintf(stderr, "rtvd run: loop thread failed to start: %s\n", strerror(-rc));
        return -1;
    }
    setup_verdict(s);

    if (cn->link_up) {
        rc = app_canlink_start(&cn->link, L->t_first_release);
        if (rc) {
            fprintf(stderr, "rtvd run: CAN thread failed to start: %s\n", strerror(-rc));
            vd_loop_request_stop(L);
        }
        cn->link_started = rc == 0;
    }
    if (cn->ecu_up && cn->link_started) {
        rc = app_ecu_start(&cn->ecu, L->t_first_release);
        if (rc) {
            fprintf(stderr, "rtvd run: ECU thread failed to start: %s\n", strerror(-rc));
            vd_loop_request_stop(L);
        }
        cn->ecu_started = rc == 0;
    }
    if (s->mk) {
        rc = app_motion_start(s->mk, L->t_first_release);
        if (rc) {
            fprintf(stderr, "rtvd run: motion thread failed to start: %s\n", strerror(-rc));
            vd_loop_request_stop(L);
        }
        s->mk_started = rc == 0;
    }
    if (s->rec_up) {
        rc = app_recording_start(&s->recd);
        if (rc) {
            fprintf(stderr, "rtvd run: recording thread failed to start: %s\n", strerror(-rc));
            vd_loop_request_stop(L);
        }
        s->rec_started = rc == 0;
    }
    rc = vd_telemetry_start(&s->tm);
    if (rc)
        fprintf(stderr, "rtvd run: warning: no telemetry thread: %s\n", strerror(-rc));
    s->tm_up = rc == 0;
    if (vd_sdnotify_enabled(&s->sdn)) {
        char msg[160];
        const int n = snprintf(msg, sizeof(msg), "READY=1\nSTATUS=running %s on cpu %d%s",
                               s->c->name, L->sched.cpu, *s->why ? " (best effort)" : "");

        vd_sdnotify_send(&s->sdn, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
    }
    return 0;
}

/* 5. run: the main thread only waits (signals arrive here); then the threads stop */
void run_session_finish(struct run_session *s)
{
    static const char stopping[] = "STOPPING=1\nSTATUS=stopping: writing the reports";
    struct run_can *cn = &s->cn;

    vd_loop_join(&s->L);
    vd_sdnotify_send(&s->sdn, stopping, sizeof(stopping) - 1);
    /* the end of the run is not a bus fault: timeouts off, then the ECU, then the link
     * (which drains what the ECU sent last) */
    if (cn->ecu_started)
        app_ecu_quiesce(&cn->ecu);
    if (cn->link_started)
        app_canlink_quiesce(&cn->link);
    if (cn->ecu_started)
        app_ecu_stop(&cn->ecu);
    if (cn->link_started)
        app_canlink_stop(&cn->link);
    /* the motion feed parks (fades to neutral while it keeps sending), then stops */
    if (s->mk_started) {
        const double park = s->c->motion.park_s + 1.0;

        if (!app_motion_wait_parked(s->mk, park))
            fprintf(stderr, "rtvd run: motion feed: not parked %.1f s after the end\n", park);
        else /* the parked state sent for 0.2 s more, so the platform sees it */
            nanosleep(&(struct timespec){0, 200000000}, NULL);
        app_motion_stop(s->mk);
    }
    if (s->tm_up)
        vd_telemetry_join(&s->tm);
    if (s->rec_started)
        s->rec_rc = app_recording_join(&s->recd);
    clock_gettime(CLOCK_REALTIME, &s->meta.end_utc);
    s->meta.end_mono = vd_clock_now();
    g_loop = NULL;
}

void run_session_free(struct run_session *s)
{
    if (s->level >= RUN_TELEMETRY) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        g_loop = NULL;
        vd_rt_dma_latency_release(s->dma_fd);
        vd_telemetry_free(&s->tm);
    }
    if (s->level >= RUN_LOOP) {
        vd_sdnotify_close(&s->sdn);
        if (s->rec_up)
            app_recording_free(&s->recd);
        vd_udpout_close(&s->uo);
        if (s->cn.ecu_up)
            app_ecu_stop(&s->cn.ecu);
        if (s->cn.link_up)
            app_canlink_stop(&s->cn.link);
        if (s->mk) {
            app_motion_free(s->mk);
            free(s->mk);
            s->mk = NULL;
        }
        vd_loop_free(&s->L);
    }
    if (s->level >= RUN_DATA) {
        free(s->rec_idx);
        free(s->rec_names);
        vd_tracemark_close(s->marker_fd);
        can_free(&s->cn);
        vd_data_free(s->d);
    }
    if (s->level >= RUN_CFG)
        vd_cfg_run_free(s->c);
    s->level = RUN_NONE;
}
