/* rt/telemetry.c - telemetry thread: messages, records, status line, UDP status. */
#include "telemetry.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "rt/clock.h"

#define TRACE_BUF (256 * 1024)

const int32_t vd_tm_hist_le_us[VD_TM_HIST_N - 1] = {
    5,   10,  15,  20,  30,  40,  50,   60,   80,   100,  125,  150,  200,
    250, 300, 400, 500, 600, 800, 1000, 1250, 1500, 2000, 3000, 5000, 10000};

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

    struct utsname u;

    memset(tm, 0, sizeof(*tm));
    atomic_init(&tm->finish, 0);
    tm->cfg = *cfg;
    tm->loop = loop;
    tm->trace_fd = -1;
    tm->exec_min_ns = tm->turn_min_ns = -1;
    tm->ser_step = 1;
    tm->pid = (int)getpid();
    if (!uname(&u))
        snprintf(tm->host, sizeof(tm->host), "%s", u.nodename);
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

/* start a log line of syslog priority prio (4 warning, 6 info); clears a '\r' status line */
static void say_begin(struct vd_telemetry *tm, struct fmt *f, int prio)
{
    static const char *const tag[8] = {"<0>", "<1>", "<2>", "<3>", "<4>", "<5>", "<6>", "<7>"};

    f_init(f, tm->line, sizeof(tm->line) - 1);
    if (tm->line_open && tm->cfg.log_fd == tm->cfg.status_fd) {
        f_str(f, "\r\033[K");
        tm->line_open = false;
    }
    if (tm->cfg.syslog_prefix)
        f_str(f, tag[prio & 7]);
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
        say_begin(tm, &f, r.code == VD_LOG_START || r.code == VD_LOG_STOP ? 6 : 4);
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

static void hist_add(struct vd_tm_hist *h, int64_t ns)
{
    int i = 0;

    while (i < VD_TM_HIST_N - 1 && ns > (int64_t)vd_tm_hist_le_us[i] * 1000)
        i++;
    h->n[i]++;
    h->count++;
    h->sum_ns += ns;
}

static int32_t clamp_us(int64_t ns)
{
    const int64_t v = ns / 1000;

    return v > INT32_MAX ? INT32_MAX : v < 0 ? 0 : (int32_t)v;
}

/* the record into the series of this tick: value j holds the maximum over its k cycles;
 * when the cycles outgrow the buffer, pairs merge and k doubles */
static void series_add(struct vd_telemetry *tm, const struct vd_cycle_rec *r)
{
    uint64_t j;

    if (tm->ser_n == 0) {
        tm->ser_first = r->cycle;
        tm->ser_step = 1;
    }
    if (r->cycle < tm->ser_first)
        return;
    for (;;) {
        j = (r->cycle - tm->ser_first) / (uint64_t)tm->ser_step;
        if (j < VD_TM_SERIES_MAX)
            break;
        for (int i = 0; i < VD_TM_SERIES_MAX / 2; i++) {
            const int a = 2 * i, b = 2 * i + 1 < tm->ser_n ? 2 * i + 1 : 2 * i;

            tm->ser_turn_us[i] =
                tm->ser_turn_us[a] > tm->ser_turn_us[b] ? tm->ser_turn_us[a] : tm->ser_turn_us[b];
            tm->ser_lat_us[i] =
                tm->ser_lat_us[a] > tm->ser_lat_us[b] ? tm->ser_lat_us[a] : tm->ser_lat_us[b];
        }
        tm->ser_n = (tm->ser_n + 1) / 2;
        tm->ser_step *= 2;
    }
    while ((uint64_t)tm->ser_n <= j) {
        tm->ser_turn_us[tm->ser_n] = -1;
        tm->ser_lat_us[tm->ser_n] = -1;
        tm->ser_n++;
    }
    if (clamp_us(r->turnaround_ns) > tm->ser_turn_us[j])
        tm->ser_turn_us[j] = clamp_us(r->turnaround_ns);
    if (clamp_us(r->latency_ns) > tm->ser_lat_us[j])
        tm->ser_lat_us[j] = clamp_us(r->latency_ns);
}

/* statistics, histograms, series and overrun events of one record */
static void record_stats(struct vd_telemetry *tm, const struct vd_cycle_rec *r)
{
    tm->last = *r;
    if (tm->exec_min_ns < 0 || r->exec_ns < tm->exec_min_ns)
        tm->exec_min_ns = r->exec_ns;
    if (tm->turn_min_ns < 0 || r->turnaround_ns < tm->turn_min_ns)
        tm->turn_min_ns = r->turnaround_ns;
    tm->exec_sum_ns += r->exec_ns;
    tm->turn_sum_ns += r->turnaround_ns;
    if (!(r->flags & VD_CYC_FROZEN)) {
        for (int s = 0; s < VD_STAGE_COUNT; s++) {
            tm->stage_sum_ns[s] += r->stage_ns[s];
            if (r->stage_ns[s] > tm->stage_max_ns[s])
                tm->stage_max_ns[s] = r->stage_ns[s];
        }
        tm->stage_count++;
    }
    hist_add(&tm->h_lat, r->latency_ns);
    hist_add(&tm->h_exec, r->exec_ns);
    hist_add(&tm->h_turn, r->turnaround_ns);
    series_add(tm, r);
    if (r->flags & VD_CYC_OVERRUN) {
        tm->events++;
        if (tm->nev < VD_TM_EVENTS_MAX) {
            struct vd_tm_event *e = &tm->ev[tm->nev++];

            e->cycle = r->cycle;
            e->turnaround_ns = r->turnaround_ns;
            e->overrun_ns = r->turnaround_ns - tm->loop->cfg.policy.period_ns;
            e->flags = r->flags;
        } else {
            tm->ev_lost++;
        }
    }
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
        record_stats(tm, &r);
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

/* the length of the well-formed UTF-8 sequence at s, 1 to 4 bytes; 0: none begins there
 * (RFC 3629: no overlong form, no surrogate, nothing above U+10FFFF). Reads no byte past a
 * NUL: a NUL is no continuation byte */
static int utf8_seq(const unsigned char *s)
{
    unsigned char lo = 0x80, hi = 0xBF;
    int n;

    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF) {
        n = 2;
    } else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
        n = 3;
        lo = s[0] == 0xE0 ? 0xA0 : 0x80; /* overlong below */
        hi = s[0] == 0xED ? 0x9F : 0xBF; /* surrogates above */
    } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
        n = 4;
        lo = s[0] == 0xF0 ? 0x90 : 0x80; /* overlong below */
        hi = s[0] == 0xF4 ? 0x8F : 0xBF; /* beyond U+10FFFF above */
    } else {
        return 0; /* a continuation byte, C0, C1 (overlong) or F5..FF */
    }
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (int i = 2; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    return n;
}

/* the most bytes a string's JSON form takes between its quotes (the monitor keeps 255 bytes
 * of a name, app/monitor.h): a longer one is cut at a character boundary, so a long path
 * cannot push the datagram beyond its buffer */
#define JSON_STR_MAX 255

/* a JSON string that is valid UTF-8 whatever v holds (a run file's path is bytes, not
 * necessarily UTF-8), and that the monitor takes: quotes and backslashes escaped, each byte
 * that begins no well-formed UTF-8 sequence and each control character (C0, DEL, C1: the
 * monitor refuses a string with one, app/monitor.c) as U+FFFD; at most JSON_STR_MAX bytes */
static void json_str(struct fmt *f, const char *v)
{
    const unsigned char *p = (const unsigned char *)(v ? v : "");
    size_t out = 0;

    f_str(f, "\"");
    while (*p && f->p < f->end) {
        const int n = utf8_seq(p);
        /* the code point of a 1- or 2-byte sequence (the control characters are there) */
        const unsigned c = n == 2 ? (p[0] & 0x1Fu) << 6 | (p[1] & 0x3Fu) : (unsigned)p[0];
        char piece[5] = {0};

        if (n == 0 || (n <= 2 && (c < 0x20 || (c >= 0x7F && c <= 0x9F))))
            memcpy(piece, "\xEF\xBF\xBD", 3);
        else if (c == '"' || c == '\\')
            memcpy(piece, c == '"' ? "\\\"" : "\\\\", 2);
        else
            memcpy(piece, p, (size_t)n);
        if (out + strlen(piece) > JSON_STR_MAX)
            break;
        out += strlen(piece);
        f_str(f, piece);
        p += n ? n : 1;
    }
    f_str(f, "\"");
}

/* {"min": , "act": , "avg": , "max": } in us with one decimal */
static void json_stat(struct fmt *f, const char *key, int64_t min, int64_t act, int64_t avg,
                      int64_t max)
{
    f_str(f, ", \"");
    f_str(f, key);
    f_str(f, "\": {\"min\": ");
    f_fix(f, (double)min * 1e-3, 1);
    f_str(f, ", \"act\": ");
    f_fix(f, (double)act * 1e-3, 1);
    f_str(f, ", \"avg\": ");
    f_fix(f, (double)avg * 1e-3, 1);
    f_str(f, ", \"max\": ");
    f_fix(f, (double)max * 1e-3, 1);
    f_str(f, "}");
}

static void json_hist(struct fmt *f, const char *key, const struct vd_tm_hist *h)
{
    f_str(f, ", \"");
    f_str(f, key);
    f_str(f, "\": {\"count\": ");
    f_u64(f, h->count, 0);
    f_str(f, ", \"sum_us\": ");
    f_fix(f, (double)h->sum_ns * 1e-3, 1);
    f_str(f, ", \"n\": [");
    for (int i = 0; i < VD_TM_HIST_N; i++) {
        f_str(f, i ? ", " : "");
        f_u64(f, h->n[i], 0);
    }
    f_str(f, "]}");
}

static void json_series(struct fmt *f, const char *key, const int32_t *v, int n)
{
    f_str(f, ", \"");
    f_str(f, key);
    f_str(f, "\": [");
    for (int i = 0; i < n; i++) {
        f_str(f, i ? "," : "");
        if (v[i] < 0)
            f_str(f, "null");
        else
            f_i64(f, v[i], 0);
    }
    f_str(f, "]");
}

static void json_can(struct vd_telemetry *tm, struct fmt *f, const struct vd_tm_can *can)
{
    int first = 1;

    f_str(f, ", \"can\": {\"seq\": ");
    f_u64(f, can->seq, 0);
    json_u64(f, "rx_frames", can->rx_frames);
    json_u64(f, "rx_used", can->rx_used);
    json_u64(f, "rx_rejected", can->rx_rejected);
    json_u64(f, "rx_ignored", can->rx_ignored);
    json_u64(f, "e2e_ok", can->e2e_ok);
    json_u64(f, "e2e_ok_some_lost", can->e2e_lost);
    json_u64(f, "e2e_error", can->e2e_error);
    json_u64(f, "e2e_repeated", can->e2e_repeated);
    json_u64(f, "e2e_wrong_sequence", can->e2e_wrong_seq);
    json_u64(f, "values_rejected", can->values_rejected);
    json_u64(f, "timeouts", can->timeouts);
    json_u64(f, "recoveries", can->recoveries);
    json_u64(f, "tx_frames", can->tx_frames);
    json_u64(f, "drops", can->drops);
    json_u64(f, "slots", can->slots);
    json_u64(f, "late_slots", can->late_slots);
    json_u64(f, "invalid", can->invalid);
    json_i64(f, "bus_state", can->bus_state);
    f_str(f, ", \"timed_out\": [");
    for (int i = 0; i < tm->cfg.ncan_names && i < VD_TM_CAN_MAX_IN; i++)
        if (can->timeout_mask & (1ull << i)) {
            f_str(f, first ? "" : ", ");
            json_str(f, tm->cfg.can_names[i]);
            first = 0;
        }
    f_str(f, "]}");
}

static void json_motion(struct fmt *f, const struct vd_tm_motion *mo)
{
    f_str(f, ", \"motion\": {\"state\": ");
    json_str(f, mo->state_name ? mo->state_name : "");
    f_str(f, ", \"reason\": ");
    json_str(f, mo->reason_name ? mo->reason_name : "");
    /* a fault names itself (the monitor raises an alarm on a new one); a normal stop does not */
    f_str(f, ", \"fault\": ");
    json_str(f, mo->reason > 1 && !mo->reason_not_fault && mo->reason_name ? mo->reason_name : "");
    json_u64(f, "seq", mo->seq);
    json_u64(f, "sent", mo->sent);
    json_u64(f, "send_errors", mo->send_errors);
    json_u64(f, "samples", mo->samples);
    json_u64(f, "missed_cycles", mo->missed);
    json_u64(f, "rejected", mo->rejected);
    json_u64(f, "faults", mo->faults);
    json_u64(f, "engage_timeouts", mo->engage_timeouts);
    json_u64(f, "heartbeats", mo->heartbeats);
    json_u64(f, "foreign", mo->foreign);
    json_u64(f, "wrong_source", mo->wrong_source);
    json_u64(f, "hb_stale", mo->hb_stale);
    json_u64(f, "late_sends", mo->late);
    json_i64(f, "late_max_us", mo->late_max_ns / 1000);
    json_i64(f, "rate_hz", mo->rate_hz);
    json_i64(f, "fade_pct", (int64_t)(mo->fade * 100.0f + 0.5f));
    if (mo->platform) {
        /* the platform's own report (a Moog MBC's status messages) */
        f_str(f, ", \"platform\": {\"state\": ");
        json_str(f, mo->platform_state_name ? mo->platform_state_name : "");
        json_i64(f, "state_code", mo->platform_state);
        json_u64(f, "fault1", mo->platform_fault[0]);
        json_u64(f, "fault2", mo->platform_fault[1]);
        json_u64(f, "fault3", mo->platform_fault[2]);
        json_u64(f, "status", mo->status_rx);
        json_u64(f, "rejected", mo->status_rejected);
        json_u64(f, "resets", mo->resets);
        f_str(f, "}");
    }
    if (mo->op_cmd_name && mo->op_why_name) {
        /* the operator's control channel: requests by command and result, refusals by reason,
         * what came of them */
        f_str(f, ", \"operator\": {\"pending\": ");
        json_str(f, mo->op_pending ? mo->op_pending : "");
        f_str(f, ", \"commands\": {");
        for (int c = 0; c < VD_TM_OP_CMDS; c++) {
            f_str(f, c ? ", " : "");
            json_str(f, mo->op_cmd_name[c]);
            f_str(f, ": {\"accepted\": ");
            f_u64(f, mo->op_cmd[c][0], 0);
            f_str(f, ", \"refused\": ");
            f_u64(f, mo->op_cmd[c][1], 0);
            f_str(f, "}");
        }
        f_str(f, "}, \"refused\": {");
        for (int w = 1; w < VD_TM_OP_WHY; w++) {
            f_str(f, w > 1 ? ", " : "");
            json_str(f, mo->op_why_name[w]);
            f_str(f, ": ");
            f_u64(f, mo->op_why[w], 0);
        }
        f_str(f, "}");
        json_u64(f, "parks", mo->op_parks);
        json_u64(f, "reengagements", mo->op_reengages);
        json_u64(f, "resets_acked", mo->op_resets_acked);
        json_u64(f, "resets_failed", mo->op_resets_failed);
        json_u64(f, "resets_cut", mo->op_resets_cut);
        json_u64(f, "engage_timeouts", mo->op_engage_timeouts);
        f_str(f, "}");
    }
    f_str(f, "}");
}

/* the status datagram (version 2; every field: app/monitor.h) into tm->dgram; its length, or
 * 0 when it did not fit */
static size_t format_datagram(struct vd_telemetry *tm, const struct vd_loop_status *s,
                              const struct vd_tm_can *can, const struct vd_tm_motion *mo,
                              bool final)
{
    static const char *const stage[VD_STAGE_COUNT] = {"linearize", "assemble", "factor", "stages"};
    const uint64_t nrec = tm->records ? tm->records : 1;
    const uint64_t nstep = tm->stage_count ? tm->stage_count : 1;
    struct fmt f;
    size_t n;

    f_init(&f, tm->dgram, sizeof(tm->dgram));
    f_str(&f, "{\"rtvd_status\": ");
    f_i64(&f, VD_TM_STATUS_VERSION, 0);
    json_u64(&f, "seq", tm->datagrams);
    f_str(&f, ", \"target\": ");
    json_str(&f, tm->cfg.name ? tm->cfg.name : "");
    f_str(&f, ", \"host\": ");
    json_str(&f, tm->host);
    json_i64(&f, "pid", tm->pid);
    json_i64(&f, "tid", tm->loop->sched.tid);
    json_i64(&f, "priority", tm->loop->sched.priority);
    json_i64(&f, "period_us", us(tm->loop->cfg.policy.period_ns));
    json_u64(&f, "cycles", s->cycles);
    f_str(&f, ", \"t_model\": ");
    f_fix(&f, s->t_model, 4);
    f_str(&f, ", \"state\": \"");
    f_str(&f, vd_state_name(s->state));
    f_str(&f, final ? "\", \"final\": true" : "\", \"final\": false");
    /* version 1's flat fields, unchanged */
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
    /* version 2: min/act/avg/max per quantity, stages, overrun block, records */
    json_stat(&f, "latency_us", s->lat_min_ns, s->lat_act_ns, s->lat_avg_ns, s->lat_max_ns);
    json_stat(&f, "execution_us", tm->exec_min_ns < 0 ? 0 : tm->exec_min_ns, tm->last.exec_ns,
              tm->exec_sum_ns / (int64_t)nrec, s->exec_max_ns);
    json_stat(&f, "turnaround_us", tm->turn_min_ns < 0 ? 0 : tm->turn_min_ns,
              tm->last.turnaround_ns, tm->turn_sum_ns / (int64_t)nrec, s->turn_max_ns);
    f_str(&f, ", \"stages_us\": {");
    for (int i = 0; i < VD_STAGE_COUNT; i++) {
        f_str(&f, i ? ", \"" : "\"");
        f_str(&f, stage[i]);
        f_str(&f, "\": {\"act\": ");
        f_fix(&f, (double)tm->last.stage_ns[i] * 1e-3, 1);
        f_str(&f, ", \"avg\": ");
        f_fix(&f, (double)tm->stage_sum_ns[i] / (double)nstep * 1e-3, 1);
        f_str(&f, ", \"max\": ");
        f_fix(&f, (double)tm->stage_max_ns[i] * 1e-3, 1);
        f_str(&f, "}");
    }
    f_str(&f, "}, \"overrun\": {\"total\": ");
    f_u64(&f, s->overruns, 0);
    json_u64(&f, "grace", s->grace_overruns);
    json_u64(&f, "consecutive", s->consecutive);
    json_u64(&f, "max_consecutive", s->max_consecutive);
    f_str(&f, ", \"max_us\": ");
    f_fix(&f, (double)s->max_overrun_ns * 1e-3, 1);
    json_i64(&f, "max_cycle", s->max_overrun_cycle);
    json_i64(&f, "first_cycle", s->first_overrun_cycle);
    f_str(&f, s->latched ? ", \"latched\": true" : ", \"latched\": false");
    json_u64(&f, "skipped", s->skipped);
    json_u64(&f, "frozen_cycles", s->frozen_cycles);
    f_str(&f, "}, \"records\": {\"received\": ");
    f_u64(&f, tm->records, 0);
    json_u64(&f, "dropped", s->rec_dropped);
    json_u64(&f, "gaps", tm->record_gaps);
    json_u64(&f, "overruns", tm->events);
    if (tm->loop->cfg.record) {
        f_str(&f, "}, \"recording\": {\"pushed\": ");
        f_u64(&f, vd_ring_pushed(&tm->loop->recording), 0);
        json_u64(&f, "dropped", vd_ring_dropped(&tm->loop->recording));
    }
    if (tm->loop->cfg.marker_fd >= 0) {
        f_str(&f, "}, \"trace_marker\": {\"writes\": ");
        f_u64(&f, s->marker_writes, 0);
        json_u64(&f, "errors", s->marker_errors);
    }
    f_str(&f, "}, \"events\": [");
    for (int i = 0; i < tm->nev; i++) {
        const struct vd_tm_event *e = &tm->ev[i];

        f_str(&f, i ? ", {\"cycle\": " : "{\"cycle\": ");
        f_u64(&f, e->cycle, 0);
        f_str(&f, ", \"overrun_us\": ");
        f_fix(&f, (double)e->overrun_ns * 1e-3, 1);
        f_str(&f, ", \"turnaround_us\": ");
        f_fix(&f, (double)e->turnaround_ns * 1e-3, 1);
        f_str(&f, e->flags & VD_CYC_GRACE ? ", \"grace\": true}" : ", \"grace\": false}");
    }
    f_str(&f, "]");
    json_u64(&f, "events_lost", tm->ev_lost);
    f_str(&f, ", \"series\": {\"first_cycle\": ");
    f_u64(&f, tm->ser_first, 0);
    json_i64(&f, "step", tm->ser_step);
    json_i64(&f, "n", tm->ser_n);
    json_series(&f, "turnaround_us", tm->ser_turn_us, tm->ser_n);
    json_series(&f, "latency_us", tm->ser_lat_us, tm->ser_n);
    f_str(&f, "}, \"hist\": {\"le_us\": [");
    for (int i = 0; i < VD_TM_HIST_N - 1; i++) {
        f_str(&f, i ? ", " : "");
        f_i64(&f, vd_tm_hist_le_us[i], 0);
    }
    f_str(&f, "]");
    json_hist(&f, "latency", &tm->h_lat);
    json_hist(&f, "execution", &tm->h_exec);
    json_hist(&f, "turnaround", &tm->h_turn);
    f_str(&f, "}");
    if (can)
        json_can(tm, &f, can);
    if (mo)
        json_motion(&f, mo);
    f_str(&f, "}");
    n = f_len(&f, tm->dgram);
    /* a full buffer means something was cut: not sent */
    return f.p >= f.end ? 0 : n;
}

static void status(struct vd_telemetry *tm, bool final)
{
    const struct vd_loop *L = tm->loop;
    const struct vd_loop_status *s = vd_loop_status(tm->loop, NULL);
    const bool refresh = tm->cfg.status_refresh;
    const uint64_t every = (uint64_t)(tm->cfg.rate_hz + 0.5);
    const struct vd_tm_can *can = NULL;
    const struct vd_tm_motion *mo = NULL;
    struct fmt f;
    size_t n;

    if (!s)
        return;
    if (tm->cfg.motion) {
        bool fresh;

        mo = vd_mailbox_read(tm->cfg.motion, &fresh);
        if (fresh)
            tm->motion_status++;
    }
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
        if (mo) {
            f_str(&f, " MOT ");
            f_str(&f, mo->state_name ? mo->state_name : "?");
            f_str(&f, " tx:");
            f_u64(&f, mo->sent, 0);
            f_str(&f, " flt:");
            f_u64(&f, mo->faults, 0);
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
    /* the datagram: one JSON object; never sent cut short */
    if (tm->cfg.send) {
        n = format_datagram(tm, s, can, mo, final);
        if (n == 0)
            tm->format_errors++;
        else if (tm->cfg.send(tm->cfg.send_ctx, tm->dgram, n) == 0)
            tm->datagrams++;
        else
            tm->send_errors++;
        tm->ser_n = 0;
        tm->nev = 0;
    }
}

/* the service manager's watchdog: fed only when the loop made progress since the last ping */
static void watchdog(struct vd_telemetry *tm)
{
    struct vd_sdnotify *n = tm->cfg.notify;
    const struct vd_loop_status *s;
    const int64_t now = vd_clock_now();
    struct fmt f;

    if (!vd_sdnotify_enabled(n) || n->watchdog_ns <= 0 ||
        (tm->watchdog_last_ns && now - tm->watchdog_last_ns < n->watchdog_ns / 4))
        return;
    s = vd_loop_status(tm->loop, NULL);
    if (!s || s->cycles <= tm->watchdog_cycles) {
        tm->watchdog_withheld++;
        return;
    }
    f_init(&f, tm->notify_buf, sizeof(tm->notify_buf) - 1);
    f_str(&f, "WATCHDOG=1\nSTATUS=cycle ");
    f_u64(&f, s->cycles, 0);
    f_str(&f, ", overruns ");
    f_u64(&f, s->overruns, 0);
    f_str(&f, ", skipped ");
    f_u64(&f, s->skipped, 0);
    f_str(&f, ", max turnaround ");
    f_i64(&f, us(s->turn_max_ns), 0);
    f_str(&f, " us, model time ");
    f_fix(&f, s->t_model, 1);
    f_str(&f, " s");
    if (vd_sdnotify_send(n, tm->notify_buf, f_len(&f, tm->notify_buf)) == 0) {
        tm->watchdog_pings++;
        tm->watchdog_cycles = s->cycles;
        tm->watchdog_last_ns = now;
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
        watchdog(tm);
        tm->ticks++;
        ts = vd_ns_to_timespec(next);
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
        now = vd_clock_now();
        next += period;
        if (next < now)
            next = now + period;
    }
    /* the loop ended: the final status waits for vd_telemetry_join, called once the threads
     * it reports on (the CAN link) have stopped and published their last counters */
    while (!atomic_load_explicit(&tm->finish, memory_order_acquire)) {
        const struct timespec ms = {0, 1000000};

        nanosleep(&ms, NULL);
    }
    drain_logs(tm);
    status(tm, true);
    if (tm->overruns_suppressed) {
        struct fmt f;

        say_begin(tm, &f, 4);
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
    atomic_store_explicit(&tm->finish, 1, memory_order_release);
    return vd_rt_thread_join(&tm->thread);
}
