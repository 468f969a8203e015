/* app/monitor.c - the monitor's state: status datagrams checked and applied, alarms, views.
 * JSON through jansson (Debian libjansson-dev): a well-kept parser with depth limits and
 * exact error codes for input from the network, where a hand-written one would be the risk. */
#include "monitor.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const reject_name[APP_MON_NREJECT] = {
    [APP_MON_TOO_BIG] = "too_big",
    [APP_MON_TRUNCATED] = "truncated",
    [APP_MON_NOT_JSON] = "not_json",
    [APP_MON_NOT_STATUS] = "not_status",
    [APP_MON_BAD_VERSION] = "bad_version",
    [APP_MON_BAD_FIELD] = "bad_field",
    [APP_MON_UNKNOWN_SENDER] = "unknown_sender",
    [APP_MON_TOO_MANY_TARGETS] = "too_many_targets",
    [APP_MON_STALE] = "stale",
};

static const char *const stage_name[4] = {"linearize", "assemble", "factor", "stages"};

const char *app_monitor_reject_name(int reason)
{
    return reason >= 0 && reason < APP_MON_NREJECT ? reject_name[reason] : "?";
}

void app_monitor_cfg_default(struct app_monitor_cfg *c)
{
    memset(c, 0, sizeof(*c));
    c->silence_s = 2.0;
}

int app_monitor_parse_allow(const char *s, struct app_mon_allow *a)
{
    char host[64];
    const char *slash = strchr(s, '/');
    size_t n = slash ? (size_t)(slash - s) : strlen(s);
    struct in_addr ia;
    long len = 32;

    if (n == 0 || n >= sizeof(host))
        return -EINVAL;
    memcpy(host, s, n);
    host[n] = '\0';
    if (!strcmp(host, "localhost"))
        strcpy(host, "127.0.0.1");
    if (inet_pton(AF_INET, host, &ia) != 1)
        return -EINVAL;
    if (slash) {
        char *end;

        errno = 0;
        len = strtol(slash + 1, &end, 10);
        if (errno || end == slash + 1 || *end || len < 0 || len > 32)
            return -EINVAL;
    }
    a->mask = len == 0 ? 0 : 0xffffffffu << (32 - len);
    a->addr = ntohl(ia.s_addr) & a->mask;
    return 0;
}

int app_monitor_init(struct app_monitor *mon, const struct app_monitor_cfg *cfg)
{
    memset(mon, 0, sizeof(*mon));
    mon->cfg = *cfg;
    for (int i = 0; i < APP_MON_MAX_TARGETS; i++) {
        struct app_mon_target *t = &mon->t[i];

        t->s_cycle = calloc(APP_MON_SERIES, sizeof(*t->s_cycle));
        t->s_turn = calloc(APP_MON_SERIES, sizeof(*t->s_turn));
        t->s_lat = calloc(APP_MON_SERIES, sizeof(*t->s_lat));
        if (!t->s_cycle || !t->s_turn || !t->s_lat) {
            app_monitor_free(mon);
            return -ENOMEM;
        }
    }
    return 0;
}

void app_monitor_free(struct app_monitor *mon)
{
    for (int i = 0; i < APP_MON_MAX_TARGETS; i++) {
        struct app_mon_target *t = &mon->t[i];

        json_decref(t->last);
        free(t->s_cycle);
        free(t->s_turn);
        free(t->s_lat);
        t->last = NULL;
        t->s_cycle = NULL;
        t->s_turn = t->s_lat = NULL;
    }
}

int app_monitor_ntargets(const struct app_monitor *mon)
{
    int n = 0;

    for (int i = 0; i < APP_MON_MAX_TARGETS; i++)
        n += mon->t[i].used;
    return n;
}

int app_monitor_nended(const struct app_monitor *mon)
{
    int n = 0;

    for (int i = 0; i < APP_MON_MAX_TARGETS; i++)
        n += mon->t[i].used && mon->t[i].ended;
    return n;
}

/* --- checking a datagram ------------------------------------------------------------------ */

/* a non-negative integer member; absent: *ok unchanged and def */
static uint64_t ju64(json_t *o, const char *k, uint64_t def, bool *ok)
{
    json_t *v = json_object_get(o, k);

    if (!v)
        return def;
    if (!json_is_integer(v) || json_integer_value(v) < 0) {
        *ok = false;
        return def;
    }
    return (uint64_t)json_integer_value(v);
}

/* a finite number member */
static double jnum(json_t *o, const char *k, double def, bool *ok)
{
    json_t *v = json_object_get(o, k);

    if (!v)
        return def;
    if (!json_is_number(v) || !isfinite(json_number_value(v))) {
        *ok = false;
        return def;
    }
    return json_number_value(v);
}

static double num(json_t *o, const char *k)
{
    bool ok = true;

    return jnum(o, k, 0.0, &ok);
}

static json_t *jobj(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);

    return json_is_object(v) ? v : NULL;
}

static const char *jstr(json_t *o, const char *k, const char *def)
{
    json_t *v = json_object_get(o, k);

    return json_is_string(v) ? json_string_value(v) : def;
}

/* an array of n integers in [0, max] (null allowed where nulls) */
static bool int_array(json_t *a, size_t n, json_int_t max, bool nulls)
{
    size_t i;
    json_t *v;

    if (!json_is_array(a) || json_array_size(a) != n)
        return false;
    json_array_foreach(a, i, v)
    {
        if (json_is_null(v) && nulls)
            continue;
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max)
            return false;
    }
    return true;
}

/* no control character in s: C0, DEL or C1 (U+0080..U+009F: 0xC2 0x80..0x9F in UTF-8) */
static bool text_clean(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f || (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F))
            return false;
    return true;
}

/* every key and string of j clean (the terminal view prints them as they come) */
static bool json_clean(json_t *j)
{
    const char *k;
    json_t *v;
    size_t i;

    if (json_is_string(j))
        return text_clean(json_string_value(j));
    if (json_is_object(j)) {
        json_object_foreach(j, k, v)
        {
            if (!text_clean(k) || !json_clean(v))
                return false;
        }
    }
    if (json_is_array(j)) {
        json_array_foreach(j, i, v)
        {
            if (!json_clean(v))
                return false;
        }
    }
    return true;
}

/* the control characters of s (text_clean) as '?': a rejected datagram's bytes, quoted by the
 * JSON parser's message, shown on the terminal */
static void text_safe(char *s)
{
    for (unsigned char *p = (unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            *p = '?';
        else if (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F)
            p[0] = p[1] = '?';
}

/* s (valid UTF-8 but for its end) without a character its buffer cut in half */
static void utf8_cut(char *s)
{
    size_t n = strlen(s), k = n;

    while (k > 0 && ((unsigned char)s[k - 1] & 0xC0) == 0x80)
        k--; /* continuation bytes */
    if (k > 0 && ((unsigned char)s[k - 1] & 0xC0) == 0xC0) {
        const unsigned char c = (unsigned char)s[k - 1];
        const size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;

        if (n - (k - 1) < need)
            s[k - 1] = '\0';
    }
}

/* every field the monitor uses, with its type and range; true: usable */
static bool check_fields(json_t *d, int version, char *why, size_t size)
{
    static const char *const need_u64[] = {"seq",          "cycles",         "overruns",
                                           "skipped",      "grace_overruns", "max_consecutive",
                                           "ring_dropped", "step_errors"};
    static const char *const need_num[] = {"t_model",       "lat_min_us",  "lat_avg_us",
                                           "lat_max_us",    "exec_max_us", "turnaround_max_us",
                                           "max_overrun_us"};
    bool ok = true;
    json_t *o, *v;
    size_t i;

#define BAD(...)                                                                                   \
    do {                                                                                           \
        snprintf(why, size, __VA_ARGS__);                                                          \
        return false;                                                                              \
    } while (0)
    if (!json_clean(d))
        BAD("a control character in a string or a key");
    for (i = 0; i < sizeof(need_u64) / sizeof(need_u64[0]); i++)
        if (!json_is_integer(json_object_get(d, need_u64[i])) ||
            json_integer_value(json_object_get(d, need_u64[i])) < 0)
            BAD("%s: missing or not a non-negative integer", need_u64[i]);
    for (i = 0; i < sizeof(need_num) / sizeof(need_num[0]); i++) {
        v = json_object_get(d, need_num[i]);
        if (!json_is_number(v) || !isfinite(json_number_value(v)))
            BAD("%s: missing or not a finite number", need_num[i]);
    }
    if (!json_is_string(json_object_get(d, "state")))
        BAD("state: missing or not a string");
    if (!json_is_boolean(json_object_get(d, "final")) ||
        !json_is_boolean(json_object_get(d, "latched")))
        BAD("final, latched: missing or not booleans");
    /* the fields version 2 requires; the optional blocks below are checked in every version
     * (a version-1 datagram with a version-2 block gets it checked before it is used) */
    if (version >= 2 && (!json_is_string(json_object_get(d, "target")) ||
                         !json_is_string(json_object_get(d, "host"))))
        BAD("target, host: missing or not strings");
    if (version >= 2 && (ju64(d, "pid", 0, &ok) == 0 || ju64(d, "period_us", 0, &ok) == 0 || !ok))
        BAD("pid, period_us: missing or not positive integers");
    for (i = 0; i < 3 && version >= 2; i++) {
        static const char *const q[3] = {"latency_us", "execution_us", "turnaround_us"};

        o = jobj(d, q[i]);
        if (!o)
            BAD("%s: missing or not an object", q[i]);
        jnum(o, "min", 0, &ok);
        jnum(o, "act", 0, &ok);
        jnum(o, "avg", 0, &ok);
        jnum(o, "max", 0, &ok);
        if (!ok)
            BAD("%s: min, act, avg, max must be finite numbers", q[i]);
    }
    if ((o = json_object_get(d, "stages_us"))) {
        if (!json_is_object(o))
            BAD("stages_us: not an object");
        for (i = 0; i < 4; i++) {
            json_t *st = jobj(o, stage_name[i]);

            if (st) {
                jnum(st, "avg", 0, &ok);
                jnum(st, "max", 0, &ok);
            }
        }
        if (!ok)
            BAD("stages_us: not finite numbers");
    }
    o = jobj(d, "overrun");
    if (!o && version >= 2)
        BAD("overrun: missing or not an object");
    if (o) {
        ju64(o, "total", 0, &ok);
        ju64(o, "grace", 0, &ok);
        ju64(o, "consecutive", 0, &ok);
        ju64(o, "max_consecutive", 0, &ok);
        jnum(o, "max_us", 0, &ok);
        if (!ok || !json_is_integer(json_object_get(o, "first_cycle")) ||
            !json_is_integer(json_object_get(o, "max_cycle")))
            BAD("overrun: counters must be non-negative integers");
    }
    if ((v = json_object_get(d, "events"))) {
        json_t *e;

        if (!json_is_array(v) || json_array_size(v) > 1024)
            BAD("events: not an array (of at most 1024)");
        json_array_foreach(v, i, e)
        {
            if (!json_is_object(e) || !json_is_integer(json_object_get(e, "cycle")) ||
                json_integer_value(json_object_get(e, "cycle")) < 0)
                BAD("events[%zu]: no cycle", i);
            jnum(e, "overrun_us", 0, &ok);
            jnum(e, "turnaround_us", 0, &ok);
            if (!ok)
                BAD("events[%zu]: lengths not finite", i);
        }
    }
    if ((o = json_object_get(d, "series"))) {
        uint64_t n, step;

        if (!json_is_object(o))
            BAD("series: not an object");
        n = ju64(o, "n", 0, &ok);
        step = ju64(o, "step", 0, &ok);
        ju64(o, "first_cycle", 0, &ok);
        if (!ok || step < 1 || n > 100000)
            BAD("series: n, step, first_cycle not non-negative integers (step >= 1)");
        /* kept as int32_t (the sender clamps its values to that range) */
        if (!int_array(json_object_get(o, "turnaround_us"), (size_t)n, INT32_MAX, true) ||
            !int_array(json_object_get(o, "latency_us"), (size_t)n, INT32_MAX, true))
            BAD("series: turnaround_us[n], latency_us[n] not integers in [0, %" PRId32 "] or null",
                INT32_MAX);
    }
    if ((o = json_object_get(d, "hist"))) {
        static const char *const q[3] = {"latency", "execution", "turnaround"};
        json_t *le = json_object_get(o, "le_us");

        if (!json_is_object(o) || !int_array(le, APP_MON_HIST_N - 1, INT64_MAX, false))
            BAD("hist.le_us: not %d edges", APP_MON_HIST_N - 1);
        for (i = 1; i < APP_MON_HIST_N - 1; i++)
            if (json_integer_value(json_array_get(le, i)) <=
                json_integer_value(json_array_get(le, i - 1)))
                BAD("hist.le_us: edges not increasing");
        for (i = 0; i < 3; i++) {
            json_t *h = jobj(o, q[i]), *nb;
            uint64_t count, sum = 0;
            size_t b;

            if (!h || !int_array(json_object_get(h, "n"), APP_MON_HIST_N, INT64_MAX, false))
                BAD("hist.%s: not %d counts", q[i], APP_MON_HIST_N);
            count = ju64(h, "count", 0, &ok);
            jnum(h, "sum_us", 0, &ok);
            if (!ok || !json_object_get(h, "count"))
                BAD("hist.%s: count or sum_us bad", q[i]);
            /* every sample is in one bucket, the last (above the last edge) included: count
             * is their sum (stopped once above count: the sum cannot wrap) */
            json_array_foreach(json_object_get(h, "n"), b, nb)
            {
                sum += (uint64_t)json_integer_value(nb);
                if (sum > count)
                    break;
            }
            if (sum != count)
                BAD("hist.%s: count %" PRIu64 " is not the sum of its buckets", q[i], count);
        }
    }
    if ((o = json_object_get(d, "can"))) {
        const char *k;

        if (!json_is_object(o))
            BAD("can: not an object");
        json_object_foreach(o, k, v)
        {
            if (!strcmp(k, "timed_out")) {
                if (!json_is_array(v))
                    BAD("can.timed_out: not an array");
            } else if (!strcmp(k, "bus_state")) {
                if (!json_is_integer(v))
                    BAD("can.bus_state: not an integer");
            } else if (!json_is_integer(v) || json_integer_value(v) < 0) {
                BAD("can.%s: not a non-negative integer", k);
            }
        }
    }
    if ((o = json_object_get(d, "motion")) && !json_is_object(o))
        BAD("motion: not an object");
    if ((o = jobj(d, "motion"))) {
        /* the members /metrics exports as counters: non-negative integers where present (a
         * counter that goes down or below zero is no counter) */
        static const char *const mo[] = {
            "seq",          "sent",     "send_errors",     "samples",    "missed_cycles",
            "rejected",     "faults",   "engage_timeouts", "heartbeats", "foreign",
            "wrong_source", "hb_stale", "late_sends"};
        static const char *const pl[] = {"fault1", "fault2",   "fault3",
                                         "status", "rejected", "resets"};
        static const char *const op[] = {"parks", "reengagements", "resets_acked", "resets_failed",
                                         "resets_cut"};

        for (i = 0; i < sizeof(mo) / sizeof(mo[0]); i++)
            ju64(o, mo[i], 0, &ok);
        for (i = 0; i < sizeof(pl) / sizeof(pl[0]); i++)
            ju64(jobj(o, "platform"), pl[i], 0, &ok);
        for (i = 0; i < sizeof(op) / sizeof(op[0]); i++)
            ju64(jobj(o, "operator"), op[i], 0, &ok);
        if (!ok)
            BAD("motion: a counter not a non-negative integer");
    }
    if ((o = json_object_get(jobj(jobj(d, "motion"), "operator"), "commands"))) {
        /* their names become label values on /metrics: a command's name, [a-z_]{1,24} */
        const char *k;

        if (!json_is_object(o))
            BAD("motion.operator.commands: not an object");
        json_object_foreach(o, k, v)
        {
            size_t n = strlen(k);

            if (n < 1 || n > 24 || strspn(k, "abcdefghijklmnopqrstuvwxyz_") != n)
                BAD("motion.operator.commands: a command name not [a-z_]{1,24}");
            ju64(v, "accepted", 0, &ok);
            ju64(v, "refused", 0, &ok);
            if (!json_is_object(v) || !ok)
                BAD("motion.operator.commands.%s: accepted, refused not non-negative integers", k);
        }
    }
    if ((o = json_object_get(d, "recording")) &&
        (!json_is_object(o) || (ju64(o, "pushed", 0, &ok), ju64(o, "dropped", 0, &ok), !ok)))
        BAD("recording: pushed, dropped must be non-negative integers");
#undef BAD
    return true;
}

/* --- applying it -------------------------------------------------------------------------- */

static void alarm(struct app_mon_target *t, int level, double mono, double wall, const char *fmt,
                  ...) __attribute__((format(printf, 5, 6)));
static void alarm(struct app_mon_target *t, int level, double mono, double wall, const char *fmt,
                  ...)
{
    struct app_mon_alarm *a = &t->alarm[t->al_head];
    va_list ap;

    a->mono = mono;
    a->wall = wall;
    a->level = level;
    va_start(ap, fmt);
    vsnprintf(a->text, sizeof(a->text), fmt, ap);
    va_end(ap);
    utf8_cut(a->text);
    t->al_head = (t->al_head + 1) % APP_MON_ALARMS;
    if (t->al_n < APP_MON_ALARMS)
        t->al_n++;
    t->alarms++;
}

static bool addr_allowed(const struct app_monitor *mon, const struct sockaddr_in *from)
{
    const uint32_t a = ntohl(from->sin_addr.s_addr);

    if (mon->cfg.nallow == 0)
        return true;
    for (int i = 0; i < mon->cfg.nallow; i++)
        if ((a & mon->cfg.allow[i].mask) == mon->cfg.allow[i].addr)
            return true;
    return false;
}

static void target_reset(struct app_mon_target *t, const struct sockaddr_in *from)
{
    uint64_t *sc = t->s_cycle;
    int32_t *st = t->s_turn, *sl = t->s_lat;

    json_decref(t->last);
    memset(t, 0, sizeof(*t));
    t->s_cycle = sc;
    t->s_turn = st;
    t->s_lat = sl;
    t->used = true;
    t->from = *from;
    t->bus_state = -1;
    inet_ntop(AF_INET, &from->sin_addr, t->addr, sizeof(t->addr));
    snprintf(t->addr + strlen(t->addr), sizeof(t->addr) - strlen(t->addr), ":%u",
             (unsigned)ntohs(from->sin_port));
}

/* the target of this sender: known, a free slot, or one that ended or went silent longest ago */
static struct app_mon_target *target_for(struct app_monitor *mon, const struct sockaddr_in *from)
{
    struct app_mon_target *free_t = NULL, *old = NULL;

    for (int i = 0; i < APP_MON_MAX_TARGETS; i++) {
        struct app_mon_target *t = &mon->t[i];

        if (t->used && t->from.sin_addr.s_addr == from->sin_addr.s_addr &&
            t->from.sin_port == from->sin_port)
            return t;
        if (!t->used && !free_t)
            free_t = t;
        if (t->used && (t->ended || t->silent) && (!old || t->last_mono < old->last_mono))
            old = t;
    }
    if (!free_t && old)
        free_t = old;
    if (free_t)
        target_reset(free_t, from);
    return free_t;
}

static void series_push(struct app_mon_target *t, uint64_t cycle, int32_t turn, int32_t lat)
{
    t->s_cycle[t->s_head] = cycle;
    t->s_turn[t->s_head] = turn;
    t->s_lat[t->s_head] = lat;
    t->s_head = (t->s_head + 1) % APP_MON_SERIES;
    if (t->s_n < APP_MON_SERIES)
        t->s_n++;
}

static void hist_from(struct app_mon_hist *h, json_t *o)
{
    json_t *n = json_object_get(o, "n");

    for (int i = 0; i < APP_MON_HIST_N; i++)
        h->n[i] = (uint64_t)json_integer_value(json_array_get(n, (size_t)i));
    h->count = (uint64_t)json_integer_value(json_object_get(o, "count"));
    h->sum_us = json_number_value(json_object_get(o, "sum_us"));
}

static void apply(struct app_mon_target *t, json_t *d, int version, double mono, double wall)
{
    bool ok = true;
    const uint64_t seq = ju64(d, "seq", 0, &ok);
    const uint64_t overruns = ju64(d, "overruns", 0, &ok);
    const uint64_t grace = ju64(d, "grace_overruns", 0, &ok);
    const uint64_t step_errors = ju64(d, "step_errors", 0, &ok);
    const bool final = json_is_true(json_object_get(d, "final"));
    const bool latched = json_is_true(json_object_get(d, "latched"));
    json_t *o, *v;
    size_t i;

    if (t->datagrams) {
        if (seq > t->seq + 1)
            t->lost += seq - t->seq - 1;
        t->interval =
            t->interval > 0 ? 0.8 * t->interval + 0.2 * (mono - t->last_mono) : mono - t->last_mono;
    } else {
        t->first_mono = mono;
        alarm(t, APP_MON_INFO, mono, wall, "first datagram (seq %" PRIu64 ", %s)", seq,
              jstr(d, "state", "?"));
    }
    if (t->silent)
        alarm(t, APP_MON_INFO, mono, wall, "back after %.1f s of silence", mono - t->last_mono);
    t->silent = false;
    t->seq = seq;
    t->datagrams++;
    t->last_mono = mono;
    t->version = version;
    snprintf(t->name, sizeof(t->name), "%s", jstr(d, "target", "(version 1)"));
    snprintf(t->host, sizeof(t->host), "%s", jstr(d, "host", ""));
    utf8_cut(t->name);
    utf8_cut(t->host);
    t->pid = (long)ju64(d, "pid", 0, &ok);
    t->period_us = (double)ju64(d, "period_us", 0, &ok);

    /* overruns: one alarm per datagram that brings new ones, with the newest event */
    if (overruns + grace > t->overruns + t->grace) {
        json_t *ev = json_object_get(d, "events");
        json_t *e = json_array_size(ev) ? json_array_get(ev, json_array_size(ev) - 1) : NULL;

        if (e)
            alarm(t, APP_MON_ALARM, mono, wall,
                  "overrun: %" PRIu64 " new (total %" PRIu64 ", grace %" PRIu64 "); cycle %" PRId64
                  " +%.1f us (turnaround %.1f us)%s",
                  overruns + grace - t->overruns - t->grace, overruns, grace,
                  (int64_t)json_integer_value(json_object_get(e, "cycle")), num(e, "overrun_us"),
                  num(e, "turnaround_us"), latched && !t->latched ? "; overrun flag latched" : "");
        else
            alarm(t, APP_MON_ALARM, mono, wall,
                  "overrun: %" PRIu64 " new (total %" PRIu64 ", grace %" PRIu64 "); max %.1f us",
                  overruns + grace - t->overruns - t->grace, overruns, grace,
                  num(d, "max_overrun_us"));
    }
    t->overruns = overruns;
    t->grace = grace;
    t->latched = latched;
    if (step_errors > t->step_errors)
        alarm(t, APP_MON_ALARM, mono, wall, "step error: %" PRIu64 " (the run stops safely)",
              step_errors);
    t->step_errors = step_errors;
    if ((o = json_object_get(d, "events"))) {
        json_array_foreach(o, i, v)
        {
            struct app_mon_event *e = &t->ev[t->ev_head];

            e->cycle = (uint64_t)json_integer_value(json_object_get(v, "cycle"));
            e->overrun_us = num(v, "overrun_us");
            e->turnaround_us = num(v, "turnaround_us");
            e->grace = json_is_true(json_object_get(v, "grace"));
            t->ev_head = (t->ev_head + 1) % APP_MON_EVENTS;
            if (t->ev_n < APP_MON_EVENTS)
                t->ev_n++;
            t->events++;
        }
    }
    if (ju64(d, "events_lost", 0, &ok) > t->events_lost) {
        t->events_lost = ju64(d, "events_lost", 0, &ok);
        alarm(t, APP_MON_WARN, mono, wall,
              "%" PRIu64 " overrun events not reported (more than 32 in one datagram)",
              t->events_lost);
    }
    if ((o = jobj(d, "recording")) && ju64(o, "dropped", 0, &ok) > t->rec_dropped) {
        alarm(t, APP_MON_WARN, mono, wall,
              "recording: %" PRIu64 " records dropped (the ring was full: the disk is slower "
              "than the loop)",
              ju64(o, "dropped", 0, &ok) - t->rec_dropped);
        t->rec_dropped = ju64(o, "dropped", 0, &ok);
    }
    if ((o = jobj(d, "series"))) {
        const uint64_t c0 = ju64(o, "first_cycle", 0, &ok), step = ju64(o, "step", 1, &ok);
        json_t *tu = json_object_get(o, "turnaround_us"), *la = json_object_get(o, "latency_us");

        for (i = 0; i < json_array_size(tu); i++) {
            json_t *a = json_array_get(tu, i), *b = json_array_get(la, i);

            if (json_is_integer(a))
                series_push(t, c0 + i * step, (int32_t)json_integer_value(a),
                            json_is_integer(b) ? (int32_t)json_integer_value(b) : -1);
        }
    }
    if ((o = jobj(d, "hist"))) {
        json_t *le = json_object_get(o, "le_us");

        for (i = 0; i < APP_MON_HIST_N - 1; i++)
            t->le_us[i] = (double)json_integer_value(json_array_get(le, i));
        hist_from(&t->h_lat, json_object_get(o, "latency"));
        hist_from(&t->h_exec, json_object_get(o, "execution"));
        hist_from(&t->h_turn, json_object_get(o, "turnaround"));
        t->has_hist = true;
    }
    if ((o = jobj(d, "can"))) {
        struct app_mon_canpt *p = &t->can[t->can_head];
        const uint64_t timeouts = ju64(o, "timeouts", 0, &ok), drops = ju64(o, "drops", 0, &ok);
        const uint64_t rejected =
            ju64(o, "rx_rejected", 0, &ok) + ju64(o, "values_rejected", 0, &ok);
        const int bus = (int)json_integer_value(json_object_get(o, "bus_state"));

        p->mono = mono;
        p->rx_used = ju64(o, "rx_used", 0, &ok);
        p->tx_frames = ju64(o, "tx_frames", 0, &ok);
        p->rejected = rejected;
        p->timeouts = timeouts;
        p->drops = drops;
        t->can_head = (t->can_head + 1) % APP_MON_CANHIST;
        if (t->can_n < APP_MON_CANHIST)
            t->can_n++;
        if (timeouts > t->can_timeouts) {
            char names[120] = "";
            json_t *n;

            json_array_foreach(json_object_get(o, "timed_out"), i, n)
            {
                if (json_is_string(n) &&
                    strlen(names) + strlen(json_string_value(n)) + 2 < sizeof(names))
                    snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
                             *names ? " " : "", json_string_value(n));
            }
            alarm(t, APP_MON_ALARM, mono, wall,
                  "CAN timeout: %" PRIu64 " new (total %" PRIu64 "); in timeout now: %s",
                  timeouts - t->can_timeouts, timeouts, *names ? names : "none");
        }
        if (drops > t->can_drops)
            alarm(t, APP_MON_WARN, mono, wall, "CAN: %" PRIu64 " frames or datagrams dropped",
                  drops - t->can_drops);
        if (rejected > t->can_rejected)
            alarm(t, APP_MON_WARN, mono, wall, "CAN: %" PRIu64 " frames or values rejected",
                  rejected - t->can_rejected);
        if (bus != t->bus_state && bus >= 1 && bus <= 4)
            alarm(t, bus >= 2 ? APP_MON_ALARM : APP_MON_WARN, mono, wall, "CAN bus state %s",
                  bus == 1   ? "error-warning"
                  : bus == 2 ? "error-passive"
                  : bus == 3 ? "bus-off"
                             : "stopped");
        t->can_timeouts = timeouts;
        t->can_drops = drops;
        t->can_rejected = rejected;
        t->bus_state = bus;
    }
    if ((o = jobj(d, "motion"))) {
        json_t *f = json_object_get(o, "fault"), *op;
        char fault[64] = "";

        if (json_is_string(f)) {
            snprintf(fault, sizeof(fault), "%s", json_string_value(f));
            utf8_cut(fault);
        } else if (json_is_true(f))
            snprintf(fault, sizeof(fault), "fault");
        if (*fault && strcmp(fault, t->motion_fault))
            alarm(t, APP_MON_ALARM, mono, wall, "motion: %s", fault);
        snprintf(t->motion_fault, sizeof(t->motion_fault), "%s", fault);
        /* the operator's commands that moved the platform (motion.operator): events, not
         * alarms (the operator meant them) */
        if ((op = jobj(o, "operator"))) {
            bool ook = true;
            const uint64_t parks = ju64(op, "parks", 0, &ook),
                           reng = ju64(op, "reengagements", 0, &ook),
                           rst = ju64(op, "resets_acked", 0, &ook);

            if (ook && parks > t->op_parks)
                alarm(t, APP_MON_INFO, mono, wall, "motion: parked by the operator");
            if (ook && rst > t->op_resets)
                alarm(t, APP_MON_INFO, mono, wall, "motion: platform fault reset by the operator");
            if (ook && reng > t->op_reengages)
                alarm(t, APP_MON_INFO, mono, wall, "motion: engaged again by the operator");
            if (ook) {
                t->op_parks = parks;
                t->op_reengages = reng;
                t->op_resets = rst;
            }
        }
    }
    if (final && !t->ended)
        alarm(t, APP_MON_INFO, mono, wall, "run ended: %s after %" PRIu64 " cycles",
              jstr(d, "state", "?"), ju64(d, "cycles", 0, &ok));
    t->ended = final;
    json_decref(t->last);
    t->last = json_incref(d);
}

int app_monitor_feed(struct app_monitor *mon, const char *buf, size_t cap, size_t len,
                     const struct sockaddr_in *from, double mono, double wall)
{
    struct app_mon_target *t;
    json_error_t err;
    json_t *d = NULL, *ver;
    int reason, version = 0;
    char why[160] = "";
    char addr[32];

    mon->received++;
    inet_ntop(AF_INET, &from->sin_addr, addr, sizeof(addr));
    if (!addr_allowed(mon, from)) {
        reason = APP_MON_UNKNOWN_SENDER;
        snprintf(why, sizeof(why), "not in --allow");
        goto reject;
    }
    /* by what happened to the datagram, not by where the parser stopped: UDP delivers a
     * datagram whole or not at all, only a receive buffer shorter than it cuts it */
    if (len > cap) {
        reason = APP_MON_TRUNCATED;
        snprintf(why, sizeof(why), "%zu bytes, cut to the %zu of the receive buffer", len, cap);
        goto reject;
    }
    if (len > APP_MON_DGRAM_MAX) {
        reason = APP_MON_TOO_BIG;
        snprintf(why, sizeof(why), "%zu bytes (at most %d)", len, APP_MON_DGRAM_MAX);
        goto reject;
    }
    d = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err);
    if (!d) {
        reason = APP_MON_NOT_JSON;
        snprintf(why, sizeof(why), "%.120s at byte %d", err.text, err.position);
        goto reject;
    }
    ver = json_object_get(d, "rtvd_status");
    if (!json_is_object(d) || !json_is_integer(ver)) {
        reason = APP_MON_NOT_STATUS;
        snprintf(why, sizeof(why), "no \"rtvd_status\" version");
        goto reject;
    }
    if (json_integer_value(ver) < 1 || json_integer_value(ver) > 2) {
        reason = APP_MON_BAD_VERSION;
        snprintf(why, sizeof(why), "version %" PRId64 " (this monitor reads 1 and 2)",
                 (int64_t)json_integer_value(ver));
        goto reject;
    }
    version = (int)json_integer_value(ver);
    if (!check_fields(d, version, why, sizeof(why))) {
        reason = APP_MON_BAD_FIELD;
        goto reject;
    }
    t = target_for(mon, from);
    if (!t) {
        reason = APP_MON_TOO_MANY_TARGETS;
        snprintf(why, sizeof(why), "%d targets known", APP_MON_MAX_TARGETS);
        goto reject;
    }
    {
        bool ok = true;
        const uint64_t seq = ju64(d, "seq", 0, &ok);
        const long pid = (long)ju64(d, "pid", 0, &ok);

        /* the same address with another process behind it: a new run */
        if (t->datagrams && pid != t->pid) {
            target_reset(t, from);
        } else if (t->datagrams && seq <= t->seq) {
            reason = APP_MON_STALE;
            snprintf(why, sizeof(why), "seq %" PRIu64 " after %" PRIu64, seq, t->seq);
            goto reject;
        }
    }
    apply(t, d, version, mono, wall);
    json_decref(d);
    mon->accepted++;
    return 0;

reject:
    json_decref(d);
    mon->rejected[reason]++;
    snprintf(mon->last_reject, sizeof(mon->last_reject), "%s from %s:%u: %.120s",
             reject_name[reason], addr, (unsigned)ntohs(from->sin_port), why);
    utf8_cut(mon->last_reject);
    text_safe(mon->last_reject);
    return 1 + reason;
}

void app_monitor_tick(struct app_monitor *mon, double mono, double wall)
{
    for (int i = 0; i < APP_MON_MAX_TARGETS; i++) {
        struct app_mon_target *t = &mon->t[i];

        if (!t->used || t->ended || t->silent)
            continue;
        if (mono - t->last_mono > mon->cfg.silence_s) {
            t->silent = true;
            alarm(t, APP_MON_ALARM, mono, wall,
                  "target silent: no datagram for %.1f s (last seq %" PRIu64 ", not final)",
                  mono - t->last_mono, t->seq);
        }
    }
}

/* --- the terminal ------------------------------------------------------------------------- */

#define RED    "\033[1;31m"
#define YELLOW "\033[33m"
#define GREEN  "\033[32m"
#define BOLD   "\033[1m"
#define REV    "\033[7;1;31m"
#define OFF    "\033[0m"

static const char *bus_name(int s)
{
    static const char *const n[] = {"error-active", "error-warning", "error-passive", "bus-off",
                                    "stopped",      "sleeping",      "unknown"};

    return s >= 0 && s <= 6 ? n[s] : "?";
}

static void stat_row(FILE *f, const char *what, json_t *o)
{
    fprintf(f, "  %-12s %9.1f %9.1f %9.1f %9.1f\n", what, num(o, "min"), num(o, "avg"),
            num(o, "max"), num(o, "act"));
}

static void target_text(const struct app_mon_target *t, int idx, FILE *f, bool color, double mono)
{
    json_t *d = t->last, *o;
    const char *c_on = color ? BOLD : "", *c_off = color ? OFF : "";
    const bool bad = t->silent || json_integer_value(json_object_get(d, "overruns")) > 0;
    const char *state = jstr(d, "state", "?");
    bool ok = true;

    fprintf(f,
            "%s== [%d] %s%s  %s pid %ld  from %s  %s%s%s  t %.2f s  seq %" PRIu64 " (%" PRIu64
            " lost)  last %.1f s ago\n",
            c_on, idx, t->name, c_off, t->host, t->pid, t->addr,
            color ? (t->silent ? REV
                     : bad     ? YELLOW
                               : GREEN)
                  : "",
            t->silent  ? "SILENT"
            : t->ended ? "ended"
                       : state,
            color ? OFF : "", num(d, "t_model"), t->seq, t->lost, mono - t->last_mono);
    if (t->ended && strcmp(state, "stopped"))
        fprintf(f, "  final state: %s\n", state);
    /* cyclictest's line */
    fprintf(f,
            "  T: 0 (%5" PRIu64 ") P:%2" PRIu64 " I:%" PRIu64 " C:%7" PRIu64 " Min:%7.0f Act:%5.0f "
            "Avg:%5.0f Max:%8.0f\n",
            ju64(d, "tid", 0, &ok), ju64(d, "priority", 0, &ok), ju64(d, "period_us", 0, &ok),
            ju64(d, "cycles", 0, &ok), floor(num(d, "lat_min_us")), floor(num(d, "lat_act_us")),
            floor(num(d, "lat_avg_us")), floor(num(d, "lat_max_us")));
    if (jobj(d, "latency_us")) {
        fprintf(f, "  %-12s %9s %9s %9s %9s   [us]\n", "", "min", "avg", "max", "act");
        stat_row(f, "wake-up", jobj(d, "latency_us"));
        stat_row(f, "execution", jobj(d, "execution_us"));
        stat_row(f, "turnaround", jobj(d, "turnaround_us"));
    } else {
        fprintf(f, "  execution max %.0f us, turnaround max %.0f us (version 1)\n",
                num(d, "exec_max_us"), num(d, "turnaround_max_us"));
    }
    if ((o = jobj(d, "stages_us"))) {
        fprintf(f, "  stages avg/max [us]:");
        for (int s = 0; s < 4; s++) {
            json_t *st = jobj(o, stage_name[s]);

            if (st)
                fprintf(f, " %s %.1f/%.1f", stage_name[s], num(st, "avg"), num(st, "max"));
        }
        fputc('\n', f);
    }
    o = jobj(d, "overrun");
    {
        const uint64_t total = ju64(d, "overruns", 0, &ok);
        const bool latched = json_is_true(json_object_get(d, "latched"));

        fprintf(f,
                "  %soverruns %" PRIu64 "%s (grace %" PRIu64 ")  consecutive %" PRIu64
                "  max consecutive %" PRIu64 "  max %.1f us",
                color && total ? RED : "", total, color && total ? OFF : "",
                ju64(d, "grace_overruns", 0, &ok), o ? ju64(o, "consecutive", 0, &ok) : 0,
                ju64(d, "max_consecutive", 0, &ok), num(d, "max_overrun_us"));
        if (o && json_integer_value(json_object_get(o, "max_cycle")) >= 0)
            fprintf(f, " in cycle %" PRId64,
                    (int64_t)json_integer_value(json_object_get(o, "max_cycle")));
        fprintf(f, "  %s%s%s", color && latched ? REV : "", latched ? "LATCHED" : "not latched",
                color && latched ? OFF : "");
        if (o && json_integer_value(json_object_get(o, "first_cycle")) >= 0)
            fprintf(f, " (first in cycle %" PRId64 ")",
                    (int64_t)json_integer_value(json_object_get(o, "first_cycle")));
        fprintf(f, "  skipped %" PRIu64 "\n", ju64(d, "skipped", 0, &ok));
    }
    if ((o = jobj(d, "records")))
        fprintf(f,
                "  records %" PRIu64 " received, %" PRIu64 " dropped; overrun events %" PRIu64
                " (%" PRIu64 " not reported); step errors %" PRIu64 "\n",
                ju64(o, "received", 0, &ok), ju64(o, "dropped", 0, &ok), t->events, t->events_lost,
                ju64(d, "step_errors", 0, &ok));
    if ((o = jobj(d, "recording")))
        fprintf(f, "  recording %" PRIu64 " records, %s%" PRIu64 " dropped%s (the ring was full)\n",
                ju64(o, "pushed", 0, &ok), color && ju64(o, "dropped", 0, &ok) ? RED : "",
                ju64(o, "dropped", 0, &ok), color && ju64(o, "dropped", 0, &ok) ? OFF : "");
    if ((o = jobj(d, "trace_marker")))
        fprintf(f, "  trace markers %" PRIu64 " written, %" PRIu64 " failed\n",
                ju64(o, "writes", 0, &ok), ju64(o, "errors", 0, &ok));
    if ((o = jobj(d, "can"))) {
        const uint64_t rej = ju64(o, "rx_rejected", 0, &ok) + ju64(o, "values_rejected", 0, &ok);
        const uint64_t to = ju64(o, "timeouts", 0, &ok);
        const size_t nto = json_array_size(json_object_get(o, "timed_out"));

        fprintf(f,
                "  CAN rx %" PRIu64 " used %" PRIu64 " %srejected %" PRIu64 "%s ignored %" PRIu64
                "  E2E ok %" PRIu64 " lost %" PRIu64 " error %" PRIu64 "  tx %" PRIu64 "\n",
                ju64(o, "rx_frames", 0, &ok), ju64(o, "rx_used", 0, &ok),
                color && rej ? YELLOW : "", rej, color && rej ? OFF : "",
                ju64(o, "rx_ignored", 0, &ok), ju64(o, "e2e_ok", 0, &ok),
                ju64(o, "e2e_ok_some_lost", 0, &ok), ju64(o, "e2e_error", 0, &ok),
                ju64(o, "tx_frames", 0, &ok));
        fprintf(f,
                "      %stimeouts %" PRIu64 "%s (recovered %" PRIu64 ", %zu inputs in timeout now)"
                "  drops %" PRIu64 "  late slots %" PRIu64 "  bus %s\n",
                color && (to || nto) ? RED : "", to, color && (to || nto) ? OFF : "",
                ju64(o, "recoveries", 0, &ok), nto, ju64(o, "drops", 0, &ok),
                ju64(o, "late_slots", 0, &ok),
                bus_name((int)json_integer_value(json_object_get(o, "bus_state"))));
    }
    if ((o = jobj(d, "motion"))) {
        const char *k;
        json_t *v, *pl = jobj(o, "platform"), *op;

        fprintf(f, "  motion:");
        json_object_foreach(o, k, v)
        {
            if (json_is_number(v))
                fprintf(f, " %s %.6g", k, json_number_value(v));
            else if (json_is_boolean(v))
                fprintf(f, " %s %s", k, json_is_true(v) ? "yes" : "no");
            else if (json_is_string(v))
                fprintf(f, " %s %s", k, json_string_value(v));
        }
        fputc('\n', f);
        if (pl) {
            bool pok = true;

            fprintf(f,
                    "  platform: state %s, fault words 0x%08" PRIx64 " 0x%08" PRIx64 " 0x%08" PRIx64
                    ", status %" PRIu64 ", rejected %" PRIu64 ", RESET sent %" PRIu64 "\n",
                    *jstr(pl, "state", "") ? jstr(pl, "state", "") : "none yet",
                    ju64(pl, "fault1", 0, &pok), ju64(pl, "fault2", 0, &pok),
                    ju64(pl, "fault3", 0, &pok), ju64(pl, "status", 0, &pok),
                    ju64(pl, "rejected", 0, &pok), ju64(pl, "resets", 0, &pok));
        }
        if ((op = jobj(o, "operator"))) {
            /* the operator's control channel (app/motionctl.h) */
            json_t *cm = jobj(op, "commands"), *rf = jobj(op, "refused");
            bool pok = true;

            fprintf(f, "  operator: pending %s, commands", jstr(op, "pending", "?"));
            json_object_foreach(cm, k, v)
            {
                fprintf(f, " %s %" PRIu64 "/%" PRIu64, k, ju64(v, "accepted", 0, &pok),
                        ju64(v, "refused", 0, &pok));
            }
            fprintf(f, " (accepted/refused); refused:");
            json_object_foreach(rf, k, v)
            {
                if (json_integer_value(v) > 0)
                    fprintf(f, " %s %" PRId64, k, (int64_t)json_integer_value(v));
            }
            /* resets_cut: "-" from a target of before (its cut RESETs are in failed) */
            char cut[24] = "-";

            if (json_object_get(op, "resets_cut"))
                snprintf(cut, sizeof(cut), "%" PRIu64, ju64(op, "resets_cut", 0, &pok));
            fprintf(f,
                    "; parks %" PRIu64 ", re-engagements %" PRIu64 ", RESET acked %" PRIu64
                    " failed %" PRIu64 " cut %s, engage timeouts %" PRIu64 "\n",
                    ju64(op, "parks", 0, &pok), ju64(op, "reengagements", 0, &pok),
                    ju64(op, "resets_acked", 0, &pok), ju64(op, "resets_failed", 0, &pok), cut,
                    ju64(op, "engage_timeouts", 0, &pok));
        }
    }
    /* the newest alarms: fresh ones (10 s) highlighted */
    for (size_t k = 0, shown = 0; k < t->al_n && shown < 4; k++) {
        const struct app_mon_alarm *a =
            &t->alarm[(t->al_head + APP_MON_ALARMS - 1 - k) % APP_MON_ALARMS];
        const bool fresh = mono - a->mono < 10.0;
        char ts[16];
        struct tm tm;
        const time_t w = (time_t)a->wall;

        if (a->level == APP_MON_INFO && !fresh)
            continue;
        localtime_r(&w, &tm);
        strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
        fprintf(f, "  %s%s %s %s%s\n",
                color ? (a->level == APP_MON_ALARM  ? (fresh ? REV : RED)
                         : a->level == APP_MON_WARN ? YELLOW
                                                    : "")
                      : "",
                a->level == APP_MON_ALARM  ? "ALARM"
                : a->level == APP_MON_WARN ? "warn "
                                           : "info ",
                ts, a->text, color ? OFF : "");
        shown++;
    }
}

void app_monitor_text(const struct app_monitor *mon, FILE *f, bool color, double mono,
                      const char *listen)
{
    uint64_t rej = 0;
    int idx = 0;

    for (int r = 0; r < APP_MON_NREJECT; r++)
        rej += mon->rejected[r];
    fprintf(f,
            "rtvd monitor on %s: %d target%s; datagrams %" PRIu64 " accepted, %s%" PRIu64
            " rejected%s",
            listen, app_monitor_ntargets(mon), app_monitor_ntargets(mon) == 1 ? "" : "s",
            mon->accepted, color && rej ? YELLOW : "", rej, color && rej ? OFF : "");
    if (rej) {
        const char *sep = " (";

        for (int r = 0; r < APP_MON_NREJECT; r++)
            if (mon->rejected[r]) {
                fprintf(f, "%s%s %" PRIu64, sep, reject_name[r], mon->rejected[r]);
                sep = ", ";
            }
        fputc(')', f);
    }
    fputc('\n', f);
    if (rej)
        fprintf(f, "  last rejected: %s\n", mon->last_reject);
    if (!app_monitor_ntargets(mon))
        fprintf(f, "  waiting for status datagrams (rtvd run sends them to 127.0.0.1:9870 by "
                   "default; telemetry.udp / --udp)\n");
    for (int i = 0; i < APP_MON_MAX_TARGETS; i++)
        if (mon->t[i].used)
            target_text(&mon->t[i], ++idx, f, color, mono);
}

/* --- Prometheus --------------------------------------------------------------------------- */

struct mbuf {
    FILE *f;
    char *s;
    size_t n;
};

/* label values escaped as the text format wants (backslash, quote, newline) */
static void label_esc(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            fprintf(f, "\\%c", *s);
        else if (*s == '\n')
            fputs("\\n", f);
        else
            fputc(*s, f);
    }
}

static void labels(FILE *f, const struct app_mon_target *t, const char *extra)
{
    fputs("{target=\"", f);
    label_esc(f, t->name);
    fputs("\",host=\"", f);
    label_esc(f, t->host);
    fprintf(f, "\",sender=\"%s\"%s%s}", t->addr, extra ? "," : "", extra ? extra : "");
}

static void head(FILE *f, const char *name, const char *type, const char *help)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

typedef double (*getter)(const struct app_mon_target *t, json_t *d);

/* the datagram has the object at path ("motion" or "motion.platform") */
static bool has(json_t *d, const char *path)
{
    const char *dot = strchr(path, '.');
    char head[32];

    if (!dot)
        return json_object_get(d, path) != NULL;
    if ((size_t)(dot - path) >= sizeof(head))
        return false;
    memcpy(head, path, (size_t)(dot - path));
    head[dot - path] = 0;
    d = json_object_get(d, head);
    return json_is_object(d) && has(d, dot + 1);
}

/* a metric family of one value per target: the value from the target's newest datagram,
 * shown for the targets whose datagram has the object need (NULL: every target) */
struct fam {
    const char *name, *type, *help;
    getter get;
    const char *need;
};

/* the families fam[0..n-1] in order, each with its HELP and TYPE lines before its first
 * sample and none when no target has a sample */
static void families(FILE *f, const struct app_monitor *mon, const struct fam *fam, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        const struct fam *m = &fam[k];
        bool any = false;

        for (int i = 0; i < APP_MON_MAX_TARGETS; i++) {
            const struct app_mon_target *t = &mon->t[i];

            if (!t->used || (m->need && !has(t->last, m->need)))
                continue;
            if (!any)
                head(f, m->name, m->type, m->help);
            any = true;
            fputs(m->name, f);
            labels(f, t, NULL);
            fprintf(f, " %.17g\n", m->get(t, t->last));
        }
    }
}

#define GET(fn, expr)                                                                              \
    static double fn(const struct app_mon_target *t, json_t *d)                                    \
    {                                                                                              \
        (void)t;                                                                                   \
        (void)d;                                                                                   \
        return (expr);                                                                             \
    }
#define SUB(o, k) num(jobj(d, o), k)
GET(g_cycles, num(d, "cycles"))
GET(g_tmodel, num(d, "t_model"))
GET(g_period, t->period_us * 1e-6)
GET(g_overruns, num(d, "overruns"))
GET(g_grace, num(d, "grace_overruns"))
GET(g_consec, SUB("overrun", "consecutive"))
GET(g_maxconsec, num(d, "max_consecutive"))
GET(g_maxovr, num(d, "max_overrun_us") * 1e-6)
GET(g_latched, json_is_true(json_object_get(d, "latched")))
GET(g_skipped, num(d, "skipped"))
GET(g_frozen, SUB("overrun", "frozen_cycles"))
GET(g_steperr, num(d, "step_errors"))
GET(g_recdrop, num(d, "ring_dropped"))
GET(g_running, !strcmp(jstr(d, "state", ""), "running") && !t->silent)
GET(g_datagrams, (double)t->datagrams)
GET(g_lost, (double)t->lost)
GET(g_alarms, (double)t->alarms)
GET(g_lat_min, SUB("latency_us", "min") * 1e-6)
GET(g_lat_avg, SUB("latency_us", "avg") * 1e-6)
GET(g_lat_max, SUB("latency_us", "max") * 1e-6)
GET(g_exe_min, SUB("execution_us", "min") * 1e-6)
GET(g_exe_avg, SUB("execution_us", "avg") * 1e-6)
GET(g_exe_max, SUB("execution_us", "max") * 1e-6)
GET(g_tur_min, SUB("turnaround_us", "min") * 1e-6)
GET(g_tur_avg, SUB("turnaround_us", "avg") * 1e-6)
GET(g_tur_max, SUB("turnaround_us", "max") * 1e-6)
GET(g_can_rx, SUB("can", "rx_frames"))
GET(g_can_used, SUB("can", "rx_used"))
GET(g_can_rej, SUB("can", "rx_rejected"))
GET(g_can_ign, SUB("can", "rx_ignored"))
GET(g_can_vrej, SUB("can", "values_rejected"))
GET(g_can_to, SUB("can", "timeouts"))
GET(g_can_rec, SUB("can", "recoveries"))
GET(g_can_tx, SUB("can", "tx_frames"))
GET(g_can_drops, SUB("can", "drops"))
GET(g_can_late, SUB("can", "late_slots"))
GET(g_can_now, (double)json_array_size(json_object_get(jobj(d, "can"), "timed_out")))
GET(g_can_bus, SUB("can", "bus_state"))
GET(g_rec_pushed, SUB("recording", "pushed"))
GET(g_rec_dropped, SUB("recording", "dropped"))
GET(g_mo_sent, SUB("motion", "sent"))
GET(g_mo_send_err, SUB("motion", "send_errors"))
GET(g_mo_samples, SUB("motion", "samples"))
GET(g_mo_missed, SUB("motion", "missed_cycles"))
GET(g_mo_rejected, SUB("motion", "rejected"))
GET(g_mo_faults, SUB("motion", "faults"))
GET(g_mo_engage_to, SUB("motion", "engage_timeouts"))
GET(g_mo_hb, SUB("motion", "heartbeats"))
GET(g_mo_foreign, SUB("motion", "foreign"))
GET(g_mo_wrong_src, SUB("motion", "wrong_source"))
GET(g_mo_hb_stale, SUB("motion", "hb_stale"))
GET(g_mo_late, SUB("motion", "late_sends"))
GET(g_mo_late_max, SUB("motion", "late_max_us") * 1e-6)
GET(g_mo_rate, SUB("motion", "rate_hz"))
GET(g_mo_fade, SUB("motion", "fade_pct") * 0.01)
#define PLAT(k) num(jobj(jobj(d, "motion"), "platform"), k)
GET(g_pl_state, PLAT("state_code"))
GET(g_pl_f1, PLAT("fault1"))
GET(g_pl_f2, PLAT("fault2"))
GET(g_pl_f3, PLAT("fault3"))
GET(g_pl_status, PLAT("status"))
GET(g_pl_rejected, PLAT("rejected"))
GET(g_pl_resets, PLAT("resets"))
#define OPER(k) num(jobj(jobj(d, "motion"), "operator"), k)
GET(g_op_parks, OPER("parks"))
GET(g_op_reeng, OPER("reengagements"))
GET(g_op_racked, OPER("resets_acked"))
GET(g_op_rfailed, OPER("resets_failed"))
GET(g_op_rcut, OPER("resets_cut"))
GET(g_marks, SUB("trace_marker", "writes"))

static void hist_family(FILE *f, const struct app_monitor *mon, const char *name, const char *help,
                        int which)
{
    bool any = false;

    for (int i = 0; i < APP_MON_MAX_TARGETS; i++) {
        const struct app_mon_target *t = &mon->t[i];
        const struct app_mon_hist *h = which == 0   ? &t->h_lat
                                       : which == 1 ? &t->h_exec
                                                    : &t->h_turn;
        uint64_t cum = 0;
        char le[64];

        if (!t->used || !t->has_hist)
            continue;
        if (!any)
            head(f, name, "histogram", help);
        any = true;
        for (int b = 0; b < APP_MON_HIST_N; b++) {
            cum += h->n[b];
            if (b < APP_MON_HIST_N - 1)
                snprintf(le, sizeof(le), "le=\"%.9g\"", t->le_us[b] * 1e-6);
            else
                snprintf(le, sizeof(le), "le=\"+Inf\"");
            fprintf(f, "%s_bucket", name);
            labels(f, t, le);
            fprintf(f, " %" PRIu64 "\n", cum);
        }
        fprintf(f, "%s_sum", name);
        labels(f, t, NULL);
        fprintf(f, " %.9g\n%s_count", h->sum_us * 1e-6, name);
        labels(f, t, NULL);
        fprintf(f, " %" PRIu64 "\n", h->count);
    }
}

/* the loop's own families */
static const struct fam loop_fams[] = {
    {"rtvd_running", "gauge", "1 while the loop runs (state running).", g_running, NULL},
    {"rtvd_datagrams_total", "counter", "Datagrams accepted from the target.", g_datagrams, NULL},
    {"rtvd_datagrams_lost_total", "counter",
     "Sequence numbers skipped: datagrams lost on the way or rejected here "
     "(rtvd_monitor_datagrams_rejected_total).",
     g_lost, NULL},
    {"rtvd_alarms_total", "counter", "Alarms, warnings and notes raised.", g_alarms, NULL},
    {"rtvd_cycles_total", "counter", "Loop cycles executed.", g_cycles, NULL},
    {"rtvd_model_time_seconds", "gauge", "Model time.", g_tmodel, NULL},
    {"rtvd_period_seconds", "gauge", "Loop period.", g_period, "period_us"},
    {"rtvd_overruns_total", "counter",
     "Cycles completed after their deadline (after the start-up grace).", g_overruns, NULL},
    {"rtvd_grace_overruns_total", "counter", "Overruns within the start-up grace.", g_grace, NULL},
    {"rtvd_overrun_consecutive", "gauge", "Current run of consecutive overruns.", g_consec,
     "overrun"},
    {"rtvd_overrun_consecutive_max", "gauge", "Longest run of consecutive overruns.", g_maxconsec,
     NULL},
    {"rtvd_overrun_max_seconds", "gauge", "Longest overrun: completion - deadline.", g_maxovr,
     NULL},
    {"rtvd_overrun_latched", "gauge", "1 once an overrun happened.", g_latched, NULL},
    {"rtvd_skipped_releases_total", "counter", "Releases never executed (overrun policy).",
     g_skipped, NULL},
    {"rtvd_frozen_cycles_total", "counter", "Cycles with the model frozen.", g_frozen, "overrun"},
    {"rtvd_step_errors_total", "counter", "Failed model steps.", g_steperr, NULL},
    {"rtvd_cycle_records_dropped_total", "counter", "Cycle records the loop's ring could not take.",
     g_recdrop, NULL},
    {"rtvd_wakeup_latency_min_seconds", "gauge", "Smallest wake-up latency.", g_lat_min,
     "latency_us"},
    {"rtvd_wakeup_latency_avg_seconds", "gauge", "Mean wake-up latency.", g_lat_avg, "latency_us"},
    {"rtvd_wakeup_latency_max_seconds", "gauge", "Largest wake-up latency.", g_lat_max,
     "latency_us"},
    {"rtvd_execution_min_seconds", "gauge", "Smallest execution time.", g_exe_min, "execution_us"},
    {"rtvd_execution_avg_seconds", "gauge", "Mean execution time.", g_exe_avg, "execution_us"},
    {"rtvd_execution_max_seconds", "gauge", "Largest execution time.", g_exe_max, "execution_us"},
    {"rtvd_turnaround_min_seconds", "gauge", "Smallest turnaround time.", g_tur_min,
     "turnaround_us"},
    {"rtvd_turnaround_avg_seconds", "gauge", "Mean turnaround time.", g_tur_avg, "turnaround_us"},
    {"rtvd_turnaround_max_seconds", "gauge", "Largest turnaround time.", g_tur_max,
     "turnaround_us"},
};

/* CAN, recording and trace marker families, the motion feed's and the platform's */
static const struct fam io_fams[] = {
    {"rtvd_can_rx_frames_total", "counter", "CAN frames received.", g_can_rx, "can"},
    {"rtvd_can_rx_used_total", "counter", "CAN frames accepted.", g_can_used, "can"},
    {"rtvd_can_rx_rejected_total", "counter", "CAN frames rejected (length, E2E).", g_can_rej,
     "can"},
    {"rtvd_can_rx_ignored_total", "counter",
     "CAN frames ignored (unknown ids, error and RTR frames).", g_can_ign, "can"},
    {"rtvd_can_values_rejected_total", "counter", "Signal values out of range or NaN.", g_can_vrej,
     "can"},
    {"rtvd_can_timeouts_total", "counter", "RX timeouts.", g_can_to, "can"},
    {"rtvd_can_recoveries_total", "counter", "Ends of RX timeouts.", g_can_rec, "can"},
    {"rtvd_can_tx_frames_total", "counter", "CAN frames sent.", g_can_tx, "can"},
    {"rtvd_can_drops_total", "counter", "CAN frames or datagrams lost.", g_can_drops, "can"},
    {"rtvd_can_late_slots_total", "counter", "CAN TX slots served late or not at all.", g_can_late,
     "can"},
    {"rtvd_can_inputs_timed_out", "gauge", "Mapped inputs in timeout now.", g_can_now, "can"},
    {"rtvd_can_bus_state", "gauge",
     "Worst bus state (0 error-active, 1 warning, 2 passive, 3 bus-off, 6 unknown).", g_can_bus,
     "can"},
    {"rtvd_recording_records_total", "counter", "Records pushed into the recording ring.",
     g_rec_pushed, "recording"},
    {"rtvd_recording_dropped_total", "counter",
     "Records the recording ring could not take (the writer fell behind).", g_rec_dropped,
     "recording"},
    {"rtvd_trace_markers_total", "counter", "Overrun markers written to ftrace.", g_marks,
     "trace_marker"},
    /* the motion feed (the datagram's "motion" object, present when the target feeds one) */
    {"rtvd_motion_datagrams_sent_total", "counter", "Motion datagrams sent to the platform.",
     g_mo_sent, "motion"},
    {"rtvd_motion_send_errors_total", "counter",
     "Motion datagrams sendto failed on (lost, counted).", g_mo_send_err, "motion"},
    {"rtvd_motion_samples_total", "counter",
     "Loop outputs the motion thread took (one per cycle when on time).", g_mo_samples, "motion"},
    {"rtvd_motion_missed_cycles_total", "counter",
     "Loop cycles whose output the motion thread never saw.", g_mo_missed, "motion"},
    {"rtvd_motion_rejected_cues_total", "counter",
     "Send periods whose cues were non-finite or beyond a limit (not sent as such).", g_mo_rejected,
     "motion"},
    {"rtvd_motion_faults_total", "counter",
     "Motion fault events (the first one parks the platform).", g_mo_faults, "motion"},
    {"rtvd_motion_engage_timeouts_total", "counter",
     "The platform did not report ENGAGED within the engage timeout (the feed parked).",
     g_mo_engage_to, "motion.engage_timeouts"},
    {"rtvd_motion_heartbeats_total", "counter",
     "Heartbeats taken from the platform (RTVH; moog_mda: its status messages).", g_mo_hb,
     "motion"},
    {"rtvd_motion_foreign_datagrams_total", "counter",
     "Datagrams from the platform that are no heartbeat (RTVH), not used.", g_mo_foreign, "motion"},
    {"rtvd_motion_wrong_source_datagrams_total", "counter",
     "Datagrams on the feed's socket from another sender than the platform, not used.",
     g_mo_wrong_src, "motion.wrong_source"}, /* not from a target of before */
    {"rtvd_motion_heartbeats_stale_total", "counter",
     "Heartbeats (RTVH) refused: a counter not above the last one taken (repeated, reordered, "
     "replayed).",
     g_mo_hb_stale, "motion.hb_stale"}, /* not from a target of before */
    {"rtvd_motion_late_sends_total", "counter",
     "Motion datagrams sent more than 100 us after their time.", g_mo_late, "motion"},
    {"rtvd_motion_late_max_seconds", "gauge", "Latest motion datagram after its time.",
     g_mo_late_max, "motion"},
    {"rtvd_motion_rate_hertz", "gauge", "Motion datagram rate.", g_mo_rate, "motion"},
    {"rtvd_motion_fade_ratio", "gauge",
     "Cue fade: 0 neutral (parked), 1 the vehicle's cues (engaged).", g_mo_fade, "motion"},
    /* the platform's own status (a Moog MBC's status messages, format moog_mda) */
    {"rtvd_motion_platform_state", "gauge",
     "The platform's machine state (Moog encodedMachineState: 2 standby, 3 engaged, 8-10 fault1-3, "
     "11 disabled, 12 inhibited, 13 frozen; -1 none received).",
     g_pl_state, "motion.platform"},
    {"rtvd_motion_platform_fault_word1", "gauge",
     "The platform's latched fault word 1 as last reported (bit 0 hostComm).", g_pl_f1,
     "motion.platform"},
    {"rtvd_motion_platform_fault_word2", "gauge",
     "The platform's latched fault word 2 (bit 6 HostCommandRangeExceeded, 16 e-stop).", g_pl_f2,
     "motion.platform"},
    {"rtvd_motion_platform_fault_word3", "gauge",
     "The platform's latched fault word 3 (bits 0 acceleration, 1 velocity, 3 extend limit, 4 "
     "retract limit).",
     g_pl_f3, "motion.platform"},
    {"rtvd_motion_platform_status_total", "counter",
     "Status messages accepted from the platform (its heartbeat).", g_pl_status, "motion.platform"},
    {"rtvd_motion_platform_status_rejected_total", "counter",
     "Malformed status datagrams from the platform, rejected.", g_pl_rejected, "motion.platform"},
    {"rtvd_motion_platform_resets_total", "counter",
     "Datagrams with the platform's fault reset (RESET) sent (run file motion.reset, the "
     "operator's RESET).",
     g_pl_resets, "motion.platform.resets"},
};

/* the operator's control channel (motion.operator: the run has one) */
static const struct fam operator_fams[] = {
    {"rtvd_motion_operator_parks_total", "counter",
     "Operator PARKs accepted (the feed parked by the operator).", g_op_parks, "motion.operator"},
    {"rtvd_motion_operator_reengagements_total", "counter",
     "Engagements after an operator's ENGAGE (fade-ins begun).", g_op_reeng, "motion.operator"},
    {"rtvd_motion_operator_resets_acked_total", "counter",
     "Operator RESETs the platform acknowledged (no fault reported).", g_op_racked,
     "motion.operator"},
    {"rtvd_motion_operator_resets_failed_total", "counter",
     "Operator RESETs not acknowledged within 2 s (the fault stays latched).", g_op_rfailed,
     "motion.operator"},
    {"rtvd_motion_operator_resets_cut_total", "counter",
     "Operator RESETs cut short by the run's end, neither acknowledged nor out of time (the fault "
     "stays latched).",
     g_op_rcut, "motion.operator.resets_cut"}, /* not from a target of before */
};

char *app_monitor_metrics(const struct app_monitor *mon, double mono, size_t *len)
{
    struct mbuf b = {0};
    FILE *f = open_memstream(&b.s, &b.n);

    if (!f)
        return NULL;
    head(f, "rtvd_monitor_datagrams_received_total", "counter",
         "Status datagrams received by this monitor.");
    fprintf(f, "rtvd_monitor_datagrams_received_total %" PRIu64 "\n", mon->received);
    head(f, "rtvd_monitor_datagrams_accepted_total", "counter",
         "Status datagrams checked and applied.");
    fprintf(f, "rtvd_monitor_datagrams_accepted_total %" PRIu64 "\n", mon->accepted);
    head(f, "rtvd_monitor_datagrams_rejected_total", "counter",
         "Status datagrams rejected, by reason.");
    for (int r = 0; r < APP_MON_NREJECT; r++)
        fprintf(f, "rtvd_monitor_datagrams_rejected_total{reason=\"%s\"} %" PRIu64 "\n",
                reject_name[r], mon->rejected[r]);
    head(f, "rtvd_monitor_targets", "gauge", "Targets known to this monitor.");
    fprintf(f, "rtvd_monitor_targets %d\n", app_monitor_ntargets(mon));

    head(f, "rtvd_up", "gauge", "1 while the target sends (not silent, not ended), else 0.");
    for (int i = 0; i < APP_MON_MAX_TARGETS; i++)
        if (mon->t[i].used) {
            fputs("rtvd_up", f);
            labels(f, &mon->t[i], NULL);
            fprintf(f, " %d\n", !mon->t[i].silent && !mon->t[i].ended);
        }
    head(f, "rtvd_last_datagram_age_seconds", "gauge", "Time since the newest datagram.");
    for (int i = 0; i < APP_MON_MAX_TARGETS; i++)
        if (mon->t[i].used) {
            fputs("rtvd_last_datagram_age_seconds", f);
            labels(f, &mon->t[i], NULL);
            fprintf(f, " %.3f\n", mono - mon->t[i].last_mono);
        }
    families(f, mon, loop_fams, sizeof(loop_fams) / sizeof(loop_fams[0]));
    {
        static const char *const name[2] = {"rtvd_stage_avg_seconds", "rtvd_stage_max_seconds"};
        static const char *const key[2] = {"avg", "max"};

        for (int k = 0; k < 2; k++) {
            bool any = false;

            for (int i = 0; i < APP_MON_MAX_TARGETS; i++) {
                const struct app_mon_target *t = &mon->t[i];
                json_t *st = jobj(t->last, "stages_us");

                if (!t->used || !st)
                    continue;
                if (!any)
                    head(f, name[k], "gauge",
                         k ? "Largest time of a core stage of the step."
                           : "Mean time of a core stage of the step.");
                any = true;
                for (int s = 0; s < 4; s++) {
                    char extra[48];

                    snprintf(extra, sizeof(extra), "stage=\"%s\"", stage_name[s]);
                    fputs(name[k], f);
                    labels(f, t, extra);
                    fprintf(f, " %.9g\n", num(jobj(st, stage_name[s]), key[k]) * 1e-6);
                }
            }
        }
    }
    hist_family(f, mon, "rtvd_wakeup_latency_seconds",
                "Wake-up latency (actual - scheduled release) of the cycles.", 0);
    hist_family(f, mon, "rtvd_execution_seconds", "Execution time (wake-up to outputs).", 1);
    hist_family(f, mon, "rtvd_turnaround_seconds",
                "Turnaround time (scheduled release to outputs).", 2);
    families(f, mon, io_fams, sizeof(io_fams) / sizeof(io_fams[0]));
    /* the operator's control channel (motion.operator: the run has one) */
    {
        static const char *const name = "rtvd_motion_operator_commands_total";
        static const char *const res[2] = {"accepted", "refused"};
        bool any = false;

        for (int i = 0; i < APP_MON_MAX_TARGETS; i++) {
            const struct app_mon_target *t = &mon->t[i];
            json_t *cm = jobj(jobj(jobj(t->last, "motion"), "operator"), "commands"), *v;
            const char *k;

            if (!t->used || !cm)
                continue;
            if (!any)
                head(f, name, "counter",
                     "Operator commands to the motion feed (rtvd control) by command and result.");
            any = true;
            json_object_foreach(cm, k, v)
            {
                for (int r = 0; r < 2; r++) {
                    char extra[64];

                    snprintf(extra, sizeof(extra), "cmd=\"%s\",result=\"%s\"", k, res[r]);
                    fputs(name, f);
                    labels(f, t, extra);
                    fprintf(f, " %.17g\n", num(v, res[r]));
                }
            }
        }
    }
    families(f, mon, operator_fams, sizeof(operator_fams) / sizeof(operator_fams[0]));
    if (fclose(f))
        return NULL;
    *len = b.n;
    return b.s;
}

/* --- the page's data ---------------------------------------------------------------------- */

static json_t *u64_array(const uint64_t *v, size_t n)
{
    json_t *a = json_array();

    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_integer((json_int_t)v[i]));
    return a;
}

char *app_monitor_json(const struct app_monitor *mon, double mono, int points, size_t *len)
{
    json_t *root = json_object(), *targets = json_array(), *rej = json_object();
    char *s;

    json_object_set_new(root, "received", json_integer((json_int_t)mon->received));
    json_object_set_new(root, "accepted", json_integer((json_int_t)mon->accepted));
    for (int r = 0; r < APP_MON_NREJECT; r++)
        json_object_set_new(rej, reject_name[r], json_integer((json_int_t)mon->rejected[r]));
    json_object_set_new(root, "rejected", rej);
    json_object_set_new(root, "last_reject", json_string(mon->last_reject));
    for (int i = 0; i < APP_MON_MAX_TARGETS; i++) {
        const struct app_mon_target *t = &mon->t[i];
        json_t *o, *a, *b, *c;
        size_t n, k;

        if (!t->used)
            continue;
        o = json_object();
        json_object_set_new(o, "sender", json_string(t->addr));
        json_object_set_new(o, "name", json_string(t->name));
        json_object_set_new(o, "host", json_string(t->host));
        json_object_set_new(o, "pid", json_integer(t->pid));
        json_object_set_new(o, "silent", json_boolean(t->silent));
        json_object_set_new(o, "ended", json_boolean(t->ended));
        json_object_set_new(o, "age_s", json_real(mono - t->last_mono));
        json_object_set_new(o, "datagrams", json_integer((json_int_t)t->datagrams));
        json_object_set_new(o, "lost", json_integer((json_int_t)t->lost));
        json_object_set_new(o, "events_total", json_integer((json_int_t)t->events));
        json_object_set_new(o, "status", json_incref(t->last));
        /* the newest per-cycle values */
        n = t->s_n < (size_t)points ? t->s_n : (size_t)points;
        a = json_array();
        b = json_array();
        c = json_array();
        for (k = 0; k < n; k++) {
            const size_t j = (t->s_head + APP_MON_SERIES - n + k) % APP_MON_SERIES;

            json_array_append_new(a, json_integer((json_int_t)t->s_cycle[j]));
            json_array_append_new(b, json_integer(t->s_turn[j]));
            json_array_append_new(c, t->s_lat[j] < 0 ? json_null() : json_integer(t->s_lat[j]));
        }
        json_object_set_new(
            o, "series",
            json_pack("{s:o, s:o, s:o}", "cycle", a, "turnaround_us", b, "latency_us", c));
        a = json_array();
        for (k = 0; k < t->ev_n; k++) {
            const struct app_mon_event *e =
                &t->ev[(t->ev_head + APP_MON_EVENTS - t->ev_n + k) % APP_MON_EVENTS];

            json_array_append_new(
                a, json_pack("{s:I, s:f, s:f, s:b}", "cycle", (json_int_t)e->cycle, "overrun_us",
                             e->overrun_us, "turnaround_us", e->turnaround_us, "grace", e->grace));
        }
        json_object_set_new(o, "events", a);
        {
            json_t *ct = json_array(), *c1 = json_array(), *c2 = json_array(), *c3 = json_array(),
                   *c4 = json_array(), *c5 = json_array();

            for (k = 0; k < t->can_n; k++) {
                const struct app_mon_canpt *p =
                    &t->can[(t->can_head + APP_MON_CANHIST - t->can_n + k) % APP_MON_CANHIST];

                json_array_append_new(ct, json_real(p->mono - mono));
                json_array_append_new(c1, json_integer((json_int_t)p->rx_used));
                json_array_append_new(c2, json_integer((json_int_t)p->tx_frames));
                json_array_append_new(c3, json_integer((json_int_t)p->rejected));
                json_array_append_new(c4, json_integer((json_int_t)p->timeouts));
                json_array_append_new(c5, json_integer((json_int_t)p->drops));
            }
            json_object_set_new(o, "can",
                                json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "t_s", ct, "rx_used",
                                          c1, "tx_frames", c2, "rejected", c3, "timeouts", c4,
                                          "drops", c5));
        }
        a = json_array();
        for (k = 0; k < t->al_n; k++) {
            const struct app_mon_alarm *al =
                &t->alarm[(t->al_head + APP_MON_ALARMS - t->al_n + k) % APP_MON_ALARMS];

            json_array_append_new(a, json_pack("{s:f, s:f, s:s, s:s}", "wall", al->wall, "age_s",
                                               mono - al->mono, "level",
                                               al->level == APP_MON_ALARM  ? "alarm"
                                               : al->level == APP_MON_WARN ? "warn"
                                                                           : "info",
                                               "text", al->text));
        }
        json_object_set_new(o, "alarms", a);
        if (t->has_hist) {
            json_t *le = json_array();

            for (k = 0; k < APP_MON_HIST_N - 1; k++)
                json_array_append_new(le, json_real(t->le_us[k]));
            json_object_set_new(o, "hist",
                                json_pack("{s:o, s:o, s:o, s:o}", "le_us", le, "latency",
                                          u64_array(t->h_lat.n, APP_MON_HIST_N), "execution",
                                          u64_array(t->h_exec.n, APP_MON_HIST_N), "turnaround",
                                          u64_array(t->h_turn.n, APP_MON_HIST_N)));
        }
        json_array_append_new(targets, o);
    }
    json_object_set_new(root, "targets", targets);
    s = json_dumps(root, JSON_COMPACT);
    json_decref(root);
    if (s)
        *len = strlen(s);
    return s;
}
