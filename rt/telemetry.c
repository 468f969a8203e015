/* rt/telemetry.c - telemetry thread: messages, records, status line, UDP status. */
#include "telemetry.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rt/clock.h"

#define TRACE_BUF (256 * 1024)

void vd_telemetry_cfg_default(struct vd_telemetry_cfg *c)
{
    memset(c, 0, sizeof(*c));
    c->rate_hz = 10.0;
    c->status_fd = -1;
    c->log_fd = -1;
    c->overrun_log_max = 10;
}

int vd_telemetry_init(struct vd_telemetry *tm, struct vd_loop *loop,
                      const struct vd_telemetry_cfg *cfg)
{
    int rc;

    memset(tm, 0, sizeof(*tm));
    tm->cfg = *cfg;
    tm->loop = loop;
    tm->trace_fd = -1;
    if (!(cfg->rate_hz > 0.0 && cfg->rate_hz <= 1000.0))
        return -EINVAL;
    if (cfg->trace_path) {
        static const char header[] = "cycle,release_ns,latency_ns,exec_ns,turnaround_ns,"
                                     "linearize_ns,assemble_ns,factor_ns,stages_ns,flags,"
                                     "skipped\n";

        tm->trace_buf = malloc(TRACE_BUF);
        if (!tm->trace_buf) {
            rc = -ENOMEM;
            goto out_close;
        }
        memset(tm->trace_buf, 0, TRACE_BUF);
        tm->trace_cap = TRACE_BUF;
        tm->trace_fd = open(cfg->trace_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (tm->trace_fd < 0) {
            rc = -errno;
            goto out_close;
        }
        if (write(tm->trace_fd, header, sizeof(header) - 1) != (ssize_t)(sizeof(header) - 1)) {
            rc = -EIO;
            goto out_close;
        }
    }
    return 0;

out_close:
    vd_telemetry_free(tm);
    return rc;
}

void vd_telemetry_free(struct vd_telemetry *tm)
{
    vd_rt_thread_join(&tm->thread);
    if (tm->trace_fd >= 0)
        close(tm->trace_fd);
    free(tm->trace_buf);
    tm->trace_fd = -1;
    tm->trace_buf = NULL;
}

/* --- the thread ------------------------------------------------------------------------ */

/* Formatting without stdio: glibc's printf family may allocate (its positional path grows a
 * scratch buffer with malloc), so every line this thread produces is built with these. */
struct fmt {
    char *p, *end; /* end: last usable byte (one kept for the terminating NUL) */
};

static void f_init(struct fmt *f, char *buf, size_t size)
{
    f->p = buf;
    f->end = buf + size - 1;
}

static size_t f_len(const struct fmt *f, const char *buf)
{
    *f->p = '\0';
    return (size_t)(f->p - buf);
}

static void f_str(struct fmt *f, const char *s)
{
    while (*s && f->p < f->end)
        *f->p++ = *s++;
}

/* v right-aligned in width characters */
static void f_i64(struct fmt *f, int64_t v, int width)
{
    char tmp[24];
    int n = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        tmp[n++] = '-';
    for (int i = n; i < width && f->p < f->end; i++)
        *f->p++ = ' ';
    while (n > 0 && f->p < f->end)
        *f->p++ = tmp[--n];
}

static void f_u64(struct fmt *f, uint64_t v, int width)
{
    char tmp[24];
    int n = 0;

    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (int i = n; i < width && f->p < f->end; i++)
        *f->p++ = ' ';
    while (n > 0 && f->p < f->end)
        *f->p++ = tmp[--n];
}

/* v with `decimals` digits after the point (|v| < 9e18 / 10^decimals) */
static void f_fix(struct fmt *f, double v, int decimals)
{
    int64_t scale = 1, q;

    for (int i = 0; i < decimals; i++)
        scale *= 10;
    if (v < 0) {
        f_str(f, "-");
        v = -v;
    }
    q = (int64_t)(v * (double)scale + 0.5);
    f_i64(f, q / scale, 0);
    if (decimals > 0) {
        int64_t r = q % scale;

        f_str(f, ".");
        for (int64_t d = scale / 10; d > 0; d /= 10) {
            char c = (char)('0' + r / d % 10);

            if (f->p < f->end)
                *f->p++ = c;
        }
    }
}

static void put(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

/* start a log line; clears a '\r' status line first */
static void say_begin(struct vd_telemetry *tm, struct fmt *f)
{
    f_init(f, tm->line, sizeof(tm->line) - 1);
    if (tm->line_open && tm->cfg.log_fd == tm->cfg.status_fd) {
        f_str(f, "\r\033[K");
        tm->line_open = false;
    }
    f_str(f, "rtvd: ");
}

static void say_end(struct vd_telemetry *tm, struct fmt *f)
{
    size_t n = f_len(f, tm->line);

    tm->line[n++] = '\n';
    if (tm->cfg.log_fd >= 0)
        put(tm->cfg.log_fd, tm->line, n);
}

static void drain_logs(struct vd_telemetry *tm)
{
    struct vd_log_rec r;
    struct fmt f;

    while (vd_ring_pop(&tm->loop->log, &r)) {
        tm->logs++;
        if ((r.code == VD_LOG_OVERRUN || r.code == VD_LOG_GRACE_OVERRUN) &&
            tm->overrun_logs++ >= (uint64_t)tm->cfg.overrun_log_max) {
            tm->overruns_suppressed++;
            continue;
        }
        say_begin(tm, &f);
        switch (r.code) {
        case VD_LOG_START:
            f_str(&f, "first release, period ");
            f_i64(&f, r.a / 1000, 0);
            f_str(&f, " us");
            break;
        case VD_LOG_OVERRUN:
        case VD_LOG_GRACE_OVERRUN:
            f_str(&f, "overrun in cycle ");
            f_u64(&f, r.cycle, 0);
            f_str(&f, r.code == VD_LOG_GRACE_OVERRUN ? " (startup grace)" : "");
            f_str(&f, ": done ");
            f_fix(&f, (double)r.a * 1e-3, 1);
            f_str(&f, " us after the deadline, ");
            f_i64(&f, r.b, 0);
            f_str(&f, r.b == 1 ? " release missed" : " releases missed");
            break;
        case VD_LOG_FREEZE:
            f_str(&f, "model frozen in cycle ");
            f_u64(&f, r.cycle, 0);
            f_str(&f, " after ");
            f_i64(&f, r.a, 0);
            f_str(&f, " overruns (");
            f_i64(&f, r.b, 0);
            f_str(&f, " consecutive); outputs held");
            break;
        case VD_LOG_STOP:
            f_str(&f, "loop stopped after ");
            f_u64(&f, r.cycle, 0);
            f_str(&f, " cycles: ");
            f_str(&f, vd_stop_reason_name((int)r.a));
            break;
        case VD_LOG_STEP_ERROR:
            f_str(&f, "step failed in cycle ");
            f_u64(&f, r.cycle, 0);
            f_str(&f, ": errno ");
            f_i64(&f, -r.a, 0);
            f_str(&f, " (non-finite forces or singular iteration matrix); safe stop");
            break;
        default:
            f_str(&f, "log code ");
            f_i64(&f, r.code, 0);
        }
        say_end(tm, &f);
    }
}

static void trace_flush(struct vd_telemetry *tm)
{
    size_t off = 0;

    while (off < tm->trace_len) {
        ssize_t w = write(tm->trace_fd, tm->trace_buf + off, tm->trace_len - off);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            tm->trace_errors++;
            break;
        }
        off += (size_t)w;
    }
    tm->trace_len = 0;
}

static void drain_records(struct vd_telemetry *tm)
{
    struct vd_cycle_rec r;
    struct fmt f;

    while (vd_ring_pop(&tm->loop->rec, &r)) {
        if (r.cycle > tm->next_cycle)
            tm->record_gaps += r.cycle - tm->next_cycle;
        tm->next_cycle = r.cycle + 1;
        tm->records++;
        if (tm->trace_fd < 0)
            continue;
        if (tm->trace_cap - tm->trace_len < 256)
            trace_flush(tm);
        f_init(&f, tm->trace_buf + tm->trace_len, tm->trace_cap - tm->trace_len);
        f_u64(&f, r.cycle, 0);
        f_str(&f, ",");
        f_i64(&f, r.release_ns, 0);
        f_str(&f, ",");
        f_i64(&f, r.latency_ns, 0);
        f_str(&f, ",");
        f_i64(&f, r.exec_ns, 0);
        f_str(&f, ",");
        f_i64(&f, r.turnaround_ns, 0);
        for (int s = 0; s < VD_STAGE_COUNT; s++) {
            f_str(&f, ",");
            f_i64(&f, r.stage_ns[s], 0);
        }
        f_str(&f, ",");
        f_u64(&f, r.flags, 0);
        f_str(&f, ",");
        f_u64(&f, r.skipped, 0);
        f_str(&f, "\n");
        tm->trace_len += f_len(&f, tm->trace_buf + tm->trace_len);
    }
}

static int64_t us(int64_t ns)
{
    return ns / 1000;
}

static void json_u64(struct fmt *f, const char *key, uint64_t v)
{
    f_str(f, ", \"");
    f_str(f, key);
    f_str(f, "\": ");
    f_u64(f, v, 0);
}

static void json_i64(struct fmt *f, const char *key, int64_t v)
{
    f_str(f, ", \"");
    f_str(f, key);
    f_str(f, "\": ");
    f_i64(f, v, 0);
}

static void status(struct vd_telemetry *tm, bool final)
{
    const struct vd_loop *L = tm->loop;
    const struct vd_loop_status *s = vd_loop_status(tm->loop, NULL);
    const bool refresh = tm->cfg.status_refresh;
    const uint64_t every = (uint64_t)(tm->cfg.rate_hz + 0.5);
    const struct vd_tm_can *can = NULL;
    struct fmt f;
    size_t n;

    if (!s)
        return;
    if (tm->cfg.can) {
        bool fresh;

        can = vd_mailbox_read(tm->cfg.can, &fresh);
        if (fresh)
            tm->can_status++;
    }
    /* the cyclictest line (T: P: I: C: Min: Act: Avg: Max:), then turnaround, overruns and
     * skipped releases; refreshed in place on a terminal, else one line a second */
    if (tm->cfg.status_fd >= 0 &&
        (final || (s->cycles > 0 && (refresh || tm->ticks % every == 0)))) {
        f_init(&f, tm->line, sizeof(tm->line) - 1);
        f_str(&f, refresh ? "\rT: 0 (" : "T: 0 (");
        f_i64(&f, L->sched.tid, 5);
        f_str(&f, ") P:");
        f_i64(&f, L->sched.priority, 2);
        f_str(&f, " I:");
        f_i64(&f, us(L->cfg.policy.period_ns), 0);
        f_str(&f, " C:");
        f_u64(&f, s->cycles, 7);
        f_str(&f, " Min:");
        f_i64(&f, us(s->lat_min_ns), 7);
        f_str(&f, " Act:");
        f_i64(&f, us(s->lat_act_ns), 5);
        f_str(&f, " Avg:");
        f_i64(&f, us(s->lat_avg_ns), 5);
        f_str(&f, " Max:");
        f_i64(&f, us(s->lat_max_ns), 8);
        f_str(&f, " Turn:");
        f_i64(&f, us(s->turn_max_ns), 8);
        f_str(&f, " Ovr:");
        f_u64(&f, s->overruns, 0);
        f_str(&f, " Skip:");
        f_u64(&f, s->skipped, 0);
        if (can) {
            f_str(&f, " CAN rx:");
            f_u64(&f, can->rx_used, 0);
            f_str(&f, " tx:");
            f_u64(&f, can->tx_frames, 0);
            f_str(&f, " rej:");
            f_u64(&f, can->rx_rejected + can->values_rejected, 0);
            f_str(&f, " to:");
            f_u64(&f, can->timed_out, 0);
        }
        if (s->state != VD_STATE_RUNNING) {
            f_str(&f, " [");
            f_str(&f, vd_state_name(s->state));
            f_str(&f, "]");
        }
        n = f_len(&f, tm->line);
        if (!refresh || final)
            tm->line[n++] = '\n';
        put(tm->cfg.status_fd, tm->line, n);
        tm->line_open = refresh && !final;
        tm->status_lines++;
    }
    /* the datagram: one JSON object */
    if (tm->cfg.send) {
        f_init(&f, tm->line, sizeof(tm->line));
        f_str(&f, "{\"rtvd_status\": 1");
        json_u64(&f, "seq", tm->datagrams);
        json_u64(&f, "cycles", s->cycles);
        f_str(&f, ", \"t_model\": ");
        f_fix(&f, s->t_model, 4);
        f_str(&f, ", \"state\": \"");
        f_str(&f, vd_state_name(s->state));
        f_str(&f, final ? "\", \"final\": true" : "\", \"final\": false");
        json_i64(&f, "lat_min_us", us(s->lat_min_ns));
        json_i64(&f, "lat_act_us", us(s->lat_act_ns));
        json_i64(&f, "lat_avg_us", us(s->lat_avg_ns));
        json_i64(&f, "lat_max_us", us(s->lat_max_ns));
        json_i64(&f, "exec_max_us", us(s->exec_max_ns));
        json_i64(&f, "turnaround_max_us", us(s->turn_max_ns));
        json_u64(&f, "overruns", s->overruns);
        json_u64(&f, "grace_overruns", s->grace_overruns);
        json_u64(&f, "max_consecutive", s->max_consecutive);
        json_i64(&f, "max_overrun_us", us(s->max_overrun_ns));
        json_u64(&f, "skipped", s->skipped);
        f_str(&f, s->latched ? ", \"latched\": true" : ", \"latched\": false");
        json_u64(&f, "step_errors", s->step_errors);
        json_u64(&f, "ring_dropped", s->rec_dropped);
        if (can) {
            int first = 1;

            f_str(&f, ", \"can\": {\"seq\": ");
            f_u64(&f, can->seq, 0);
            json_u64(&f, "rx_frames", can->rx_frames);
            json_u64(&f, "rx_used", can->rx_used);
            json_u64(&f, "rx_rejected", can->rx_rejected);
            json_u64(&f, "rx_ignored", can->rx_ignored);
            json_u64(&f, "e2e_ok", can->e2e_ok);
            json_u64(&f, "e2e_ok_some_lost", can->e2e_lost);
            json_u64(&f, "e2e_error", can->e2e_error);
            json_u64(&f, "e2e_repeated", can->e2e_repeated);
            json_u64(&f, "e2e_wrong_sequence", can->e2e_wrong_seq);
            json_u64(&f, "values_rejected", can->values_rejected);
            json_u64(&f, "timeouts", can->timeouts);
            json_u64(&f, "recoveries", can->recoveries);
            json_u64(&f, "tx_frames", can->tx_frames);
            json_u64(&f, "drops", can->drops);
            json_u64(&f, "slots", can->slots);
            json_u64(&f, "late_slots", can->late_slots);
            json_u64(&f, "invalid", can->invalid);
            json_i64(&f, "bus_state", can->bus_state);
            f_str(&f, ", \"timed_out\": [");
            for (int i = 0; i < tm->cfg.ncan_names && i < VD_TM_CAN_MAX_IN; i++)
                if (can->timeout_mask & (1ull << i)) {
                    f_str(&f, first ? "\"" : ", \"");
                    f_str(&f, tm->cfg.can_names[i]);
                    f_str(&f, "\"");
                    first = 0;
                }
            f_str(&f, "]}");
        }
        f_str(&f, "}");
        n = f_len(&f, tm->line);
        if (tm->cfg.send(tm->cfg.send_ctx, tm->line, n) == 0)
            tm->datagrams++;
        else
            tm->send_errors++;
    }
}

static void *telemetry_thread(void *arg)
{
    struct vd_telemetry *tm = arg;
    const int64_t period = (int64_t)(1e9 / tm->cfg.rate_hz);
    int64_t next = vd_clock_now() + period;

    for (;;) {
        /* read the flag first: everything the loop published before it is drained below */
        const bool done = vd_loop_done(tm->loop);
        struct timespec ts;
        int64_t now;

        drain_logs(tm);
        drain_records(tm);
        if (done)
            break;
        status(tm, false);
        tm->ticks++;
        ts = vd_ns_to_timespec(next);
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
        now = vd_clock_now();
        next += period;
        if (next < now)
            next = now + period;
    }
    status(tm, true);
    if (tm->overruns_suppressed) {
        struct fmt f;

        say_begin(tm, &f);
        f_u64(&f, tm->overruns_suppressed, 0);
        f_str(&f, " further overrun messages not shown");
        say_end(tm, &f);
    }
    if (tm->trace_fd >= 0)
        trace_flush(tm);
    return NULL;
}

int vd_telemetry_start(struct vd_telemetry *tm)
{
    const struct vd_thread_spec spec = {
        .name = "vd-telemetry",
        .cpu = -1,
        .priority = 0,
        .stack_size = 256 * 1024,
        .fn = telemetry_thread,
        .arg = tm,
    };

    return vd_rt_thread_create(&tm->thread, &spec);
}

int vd_telemetry_join(struct vd_telemetry *tm)
{
    return vd_rt_thread_join(&tm->thread);
}
