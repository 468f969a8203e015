/* config/run_yaml.c - run schema: key tables (unit, range), the scenario or model it names,
 * the output signals resolved against that model, all reported at the offending node. */
#include "run_yaml.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>

#include "config/loader.h"
#include "config/vfs.h"
#include "config/ydoc.h"

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* --- schema: one table per mapping; unit and valid range of each number --------------- */

enum {
    TOP_SCENARIO,
    TOP_MODEL,
    TOP_DURATION,
    TOP_OUTPUTS,
    TOP_RT,
    TOP_TELEMETRY,
    TOP_REPORTS,
    TOP_CAN,
    TOP_RECORD,
    TOP_MOTION,
    TOP_N
};
static const struct vd_ykey top_keys[TOP_N] = {
    [TOP_SCENARIO] = VD_YKEY("scenario", 0, NULL), /* path relative to the run file */
    [TOP_MODEL] = VD_YKEY("model", 0, NULL),       /* path relative to the run file */
    [TOP_DURATION] = VD_YKEY_RANGE("duration", 0, "s", 0.0, 1e7),
    [TOP_OUTPUTS] = VD_YKEY("outputs", 0, NULL), /* sequence of signal names */
    [TOP_RT] = VD_YKEY("rt", 0, NULL),
    [TOP_TELEMETRY] = VD_YKEY("telemetry", 0, NULL),
    [TOP_REPORTS] = VD_YKEY("reports", 0, NULL),
    [TOP_CAN] = VD_YKEY("can", 0, NULL),
    [TOP_RECORD] = VD_YKEY("record", 0, NULL),
    [TOP_MOTION] = VD_YKEY("motion", 0, NULL),
};

enum {
    MO_DEST,
    MO_FORMAT,
    MO_RATE,
    MO_DECIM,
    MO_MRP,
    MO_ENGAGE,
    MO_PARK,
    MO_STALE,
    MO_HB,
    MO_LIMITS,
    MO_PRIO,
    MO_CPU,
    MO_TTL,
    MO_OUTSIM_ID,
    MO_OUTPUT,
    MO_WASHOUT,
    MO_ENGAGE_TIMEOUT,
    MO_RESET,
    MO_CONTROL,
    MO_N
};
static const struct vd_ykey motion_keys[MO_N] = {
    [MO_DEST] = VD_YKEY("dest", 0, NULL), /* address:port | off */
    [MO_FORMAT] = VD_YKEY("format", 0, NULL),
    [MO_RATE] = VD_YKEY_RANGE("rate_hz", 0, "Hz", 100, 1000), /* 1000 | 500 | 250 | 100 */
    [MO_DECIM] = VD_YKEY("decimation", 0, NULL),
    [MO_MRP] = VD_YKEY("mrp", 0, NULL),
    [MO_ENGAGE] = VD_YKEY_RANGE("engage_s", 0, "s", 0, 60),
    [MO_PARK] = VD_YKEY_RANGE("park_s", 0, "s", 0.05, 60),
    [MO_STALE] = VD_YKEY_RANGE("stale_ms", 0, "ms", 2, 10000),
    [MO_HB] = VD_YKEY_RANGE("heartbeat_s", 0, "s", 0, 60),
    [MO_LIMITS] = VD_YKEY("limits", 0, NULL),
    [MO_PRIO] = VD_YKEY_RANGE("priority", 0, "", 0, 99),
    [MO_CPU] = VD_YKEY_RANGE("cpu", 0, "", 0, 1023), /* or none */
    [MO_TTL] = VD_YKEY_RANGE("ttl", 0, "", 1, 255),
    [MO_OUTSIM_ID] = VD_YKEY_RANGE("outsim_id", 0, "", -2147483647.0, 2147483647.0),
    [MO_OUTPUT] = VD_YKEY("output", 0, NULL), /* cues | pose */
    [MO_WASHOUT] = VD_YKEY("washout", 0, NULL),
    [MO_ENGAGE_TIMEOUT] = VD_YKEY_RANGE("engage_timeout_s", 0, "s", 1, 600),
    [MO_RESET] = VD_YKEY("reset", 0, NULL),     /* never | at_start */
    [MO_CONTROL] = VD_YKEY("control", 0, NULL), /* the operator's Unix socket path | off */
};
static const char *const motion_resets[] = {"never", "at_start"};
static const char *const motion_outputs[] = {"cues", "pose"};

enum { WO_KF, WO_KW, WO_WN, WO_ZETA, WO_WB, WO_WL, WO_ZETA_L, WO_TILT, WO_WR, WO_N };
static const struct vd_ykey washout_keys[WO_N] = {
    [WO_KF] = VD_YKEY_RANGE("k_f", 0, "", 0, 2),
    [WO_KW] = VD_YKEY_RANGE("k_w", 0, "", 0, 2),
    [WO_WN] = VD_YKEY_RANGE("wn", VD_YK_LO_OPEN, "rad/s", 0, 100),
    [WO_ZETA] = VD_YKEY_RANGE("zeta", VD_YK_LO_OPEN, "", 0, 10),
    [WO_WB] = VD_YKEY_RANGE("wb", VD_YK_LO_OPEN, "rad/s", 0, 100),
    [WO_WL] = VD_YKEY_RANGE("wl", VD_YK_LO_OPEN, "rad/s", 0, 100),
    [WO_ZETA_L] = VD_YKEY_RANGE("zeta_l", VD_YK_LO_OPEN, "", 0, 10),
    [WO_TILT] = VD_YKEY_RANGE("tilt_rate", VD_YK_LO_OPEN, "deg/s", 0, 90),
    [WO_WR] = VD_YKEY_RANGE("wr", VD_YK_LO_OPEN, "rad/s", 0, 100),
};
static const char *const motion_formats[] = {"rtvd", "moog_mda", "outsim"};
static const char *const motion_decims[] = {"average", "lowpass"};

enum { MRP_MARKER, MRP_BODY, MRP_POS, MRP_AXES, MRP_N };
static const struct vd_ykey mrp_keys[MRP_N] = {
    [MRP_MARKER] = VD_YKEY("marker", 0, NULL),
    [MRP_BODY] = VD_YKEY("body", 0, NULL),
    [MRP_POS] = VD_YKEY_RANGE("position", 0, "m", -100, 100),
    [MRP_AXES] = VD_YKEY_RANGE("axes", 0, "deg", -180, 180),
};

enum { LIM_F, LIM_W, LIM_DW, LIM_ANGLE, LIM_N };
static const struct vd_ykey limit_keys[LIM_N] = {
    [LIM_F] = VD_YKEY_RANGE("f", VD_YK_LO_OPEN, "m/s^2", 0, 1000),
    [LIM_W] = VD_YKEY_RANGE("w", VD_YK_LO_OPEN, "rad/s", 0, 100),
    [LIM_DW] = VD_YKEY_RANGE("dw", VD_YK_LO_OPEN, "rad/s^2", 0, 10000),
    [LIM_ANGLE] = VD_YKEY_RANGE("angle", VD_YK_LO_OPEN, "deg", 0, 90),
};

enum {
    RT_PERIOD,
    RT_CPU,
    RT_PRIO,
    RT_POLICY,
    RT_QUEUE,
    RT_ALLOW,
    RT_GRACE,
    RT_HIST,
    RT_LOCK,
    RT_DMA,
    RT_N
};
static const struct vd_ykey rt_keys[RT_N] = {
    [RT_PERIOD] = VD_YKEY_RANGE("period_us", 0, "us", 50, 1e6),
    [RT_CPU] = VD_YKEY_RANGE("cpu", 0, "", 0, 1023), /* or auto | none */
    [RT_PRIO] = VD_YKEY_RANGE("priority", 0, "", 0, 99),
    [RT_POLICY] = VD_YKEY("policy", 0, NULL),
    [RT_QUEUE] = VD_YKEY_RANGE("queue_depth", 0, "releases", 1, 1e6),
    [RT_ALLOW] = VD_YKEY("allow", 0, NULL),
    [RT_GRACE] = VD_YKEY_RANGE("grace_cycles", 0, "cycles", 0, 1e9),
    [RT_HIST] = VD_YKEY_RANGE("histogram_us", 0, "us", 1, 1e6),
    [RT_LOCK] = VD_YKEY("lock_memory", 0, NULL),
    [RT_DMA] = VD_YKEY("dma_latency", 0, NULL),
};
static const char *const policy_names[] = {
    [VD_RUN_POLICY_STOP] = "stop",   [VD_RUN_POLICY_SKIP] = "skip",
    [VD_RUN_POLICY_DELAY] = "delay", [VD_RUN_POLICY_QUEUE] = "queue",
    [VD_RUN_POLICY_ALLOW] = "allow",
};
static const char *const cpu_words[] = {"auto", "none"};

enum { AL_COUNT, AL_MODE, AL_THEN, AL_REALIGN, AL_N };
static const struct vd_ykey allow_keys[AL_N] = {
    [AL_COUNT] = VD_YKEY_RANGE("count", VD_YK_REQUIRED, "overruns", 0, 1e9),
    [AL_MODE] = VD_YKEY("mode", 0, NULL),
    [AL_THEN] = VD_YKEY("then", 0, NULL),
    [AL_REALIGN] = VD_YKEY("realign", 0, NULL),
};
static const char *const mode_names[] = {
    [VD_RUN_ALLOW_TOTAL] = "total", [VD_RUN_ALLOW_CONSECUTIVE] = "consecutive"};
static const char *const then_names[] = {
    [VD_RUN_THEN_STOP] = "stop", [VD_RUN_THEN_FREEZE] = "freeze"};
static const char *const realign_names[] = {
    [VD_RUN_REALIGN_SKIP] = "skip", [VD_RUN_REALIGN_DELAY] = "delay"};

enum { TM_UDP, TM_RATE, TM_N };
static const struct vd_ykey telemetry_keys[TM_N] = {
    [TM_UDP] = VD_YKEY("udp", 0, NULL), /* "a.b.c.d:port" | off */
    [TM_RATE] = VD_YKEY_RANGE("rate_hz", VD_YK_LO_OPEN, "Hz", 0, 1000),
};

enum { REP_DIR, REP_PREFIX, REP_TRACE, REP_N };
static const struct vd_ykey reports_keys[REP_N] = {
    [REP_DIR] = VD_YKEY("dir", 0, NULL),
    [REP_PREFIX] = VD_YKEY("prefix", 0, NULL), /* [A-Za-z0-9_.-]+ */
    [REP_TRACE] = VD_YKEY("trace", 0, NULL),
};

enum { REC_FILE, REC_FORMAT, REC_SIGNALS, REC_ROTATE_MB, REC_ROTATE_S, REC_BUFFER, REC_N };
static const struct vd_ykey record_keys[REC_N] = {
    [REC_FILE] = VD_YKEY("file", 0, NULL),
    [REC_FORMAT] = VD_YKEY("format", 0, NULL), /* mdf4 | csv | both */
    [REC_SIGNALS] = VD_YKEY("signals", 0, NULL),
    [REC_ROTATE_MB] = VD_YKEY_RANGE("rotate_mb", 0, "MiB", 0, 1e6),
    [REC_ROTATE_S] = VD_YKEY_RANGE("rotate_s", 0, "s", 0, 1e7),
    [REC_BUFFER] = VD_YKEY_RANGE("buffer", 0, "records", 16, 1048576),
};
static const char *const record_formats[] = {"csv", "mdf4", "both"};

enum { CAN_MAPPING, CAN_ROLE, CAN_PRIO, CAN_CPU, CAN_PORT, CAN_ECU, CAN_N };
static const struct vd_ykey can_keys[CAN_N] = {
    [CAN_MAPPING] = VD_YKEY("mapping", VD_YK_REQUIRED, NULL), /* relative to the run file */
    [CAN_ROLE] = VD_YKEY("role", 0, NULL),                    /* target */
    [CAN_PRIO] = VD_YKEY_RANGE("priority", 0, "", 0, 99),
    [CAN_CPU] = VD_YKEY_RANGE("cpu", 0, "", 0, 1023), /* or none */
    [CAN_PORT] = VD_YKEY_RANGE("port", 0, "", 0, 65000),
    [CAN_ECU] = VD_YKEY("ecu", 0, NULL),
};
static const char *const role_names[] = {"target"};
static const char *const none_word[] = {"none"};

enum { ECU_ENABLE, ECU_PRIO, ECU_SPEED, ECU_EPS, ECU_FAULTS, ECU_N };
static const struct vd_ykey ecu_keys[ECU_N] = {
    [ECU_ENABLE] = VD_YKEY("enable", 0, NULL),
    [ECU_PRIO] = VD_YKEY_RANGE("priority", 0, "", 0, 99),
    [ECU_SPEED] = VD_YKEY_RANGE("speed", 0, "s, m/s", -1e6, 1e6), /* [[t, v], ...] */
    [ECU_EPS] = VD_YKEY_RANGE("eps_gain", 0, "", 0, 10),
    [ECU_FAULTS] = VD_YKEY("faults", 0, NULL),
};

enum { FLT_FAULT, FLT_MESSAGE, FLT_AT, FLT_DURATION, FLT_COUNT, FLT_FACTOR, FLT_N };
static const struct vd_ykey fault_keys[FLT_N] = {
    [FLT_FAULT] = VD_YKEY("fault", VD_YK_REQUIRED, NULL),
    [FLT_MESSAGE] = VD_YKEY("message", 0, NULL),
    [FLT_AT] = VD_YKEY_RANGE("at", 0, "s", 0, 1e6),
    [FLT_DURATION] = VD_YKEY_RANGE("duration", 0, "s", 0, 1e6),
    [FLT_COUNT] = VD_YKEY_RANGE("count", 0, "events", 1, 1e9),
    [FLT_FACTOR] = VD_YKEY_RANGE("factor", 0, "", 1, 1000),
};
static const char *const fault_names[VD_RUN_FAULT_N] = {
    [VD_RUN_FAULT_SILENT] = "silent",
    [VD_RUN_FAULT_BAD_CRC] = "bad_crc",
    [VD_RUN_FAULT_STALE_COUNTER] = "stale_counter",
    [VD_RUN_FAULT_JUMP_COUNTER] = "jump_counter",
    [VD_RUN_FAULT_OUT_OF_RANGE] = "out_of_range",
    [VD_RUN_FAULT_NAN] = "nan",
    [VD_RUN_FAULT_WRONG_LENGTH] = "wrong_length",
    [VD_RUN_FAULT_BURST] = "burst",
    [VD_RUN_FAULT_FLOOD] = "flood",
    [VD_RUN_FAULT_UNKNOWN_ID] = "unknown_id",
    [VD_RUN_FAULT_BAD_DATAGRAM] = "bad_datagram",
};

/* booleans: index % 2 is the value */
static const char *const bool_names[] = {"false", "true", "no", "yes", "off", "on"};

/* --- helpers ----------------------------------------------------------------------------- */

uint64_t vd_fnv1a64(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;

    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

const char *vd_run_policy_name(int policy)
{
    return policy >= 0 && policy < COUNT(policy_names) ? policy_names[policy] : "?";
}

const char *vd_run_fault_name(int kind)
{
    return kind >= 0 && kind < VD_RUN_FAULT_N ? fault_names[kind] : "?";
}

int vd_run_fault_kind(const char *name)
{
    for (int i = 0; i < VD_RUN_FAULT_N; i++)
        if (!strcmp(name, fault_names[i]))
            return i;
    return -1;
}

static void read_bool(struct vd_ydoc *y, const yaml_node_t *node, const char *parent,
                      const struct vd_ykey *k, bool *out)
{
    int i;

    if (node && !vd_ydoc_enum(y, node, parent, k, bool_names, COUNT(bool_names), &i))
        *out = i % 2;
}

static bool prefix_ok(const char *s)
{
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '.' || *s == '-'))
            return false;
    return true;
}

/* "a.b.c.d:port" or "localhost:port" */
static bool udp_ok(const char *s)
{
    const char *colon = strrchr(s, ':');
    char host[64], *end;
    struct in_addr a;
    long port;

    if (!colon || colon == s || (size_t)(colon - s) >= sizeof(host))
        return false;
    memcpy(host, s, (size_t)(colon - s));
    host[colon - s] = '\0';
    errno = 0;
    port = strtol(colon + 1, &end, 10);
    if (errno || end == colon + 1 || *end || port < 1 || port > 65535)
        return false;
    return !strcmp(host, "localhost") || inet_pton(AF_INET, host, &a) == 1;
}

static void defaults(struct vd_run_cfg *c)
{
    c->duration = 0.0;
    c->rt = (struct vd_run_rt){
        .period_us = 1000,
        .cpu = VD_RUN_CPU_AUTO,
        .priority = 80,
        .policy = VD_RUN_POLICY_STOP,
        .queue_depth = 1,
        .allow_count = 0,
        .allow_mode = VD_RUN_ALLOW_TOTAL,
        .allow_then = VD_RUN_THEN_STOP,
        .allow_realign = VD_RUN_REALIGN_SKIP,
        .grace_cycles = 0,
        .histogram_us = 1000,
        .lock_memory = true,
        .dma_latency = true,
    };
    c->telemetry.udp_on = true;
    snprintf(c->telemetry.udp, sizeof(c->telemetry.udp), "127.0.0.1:9870");
    c->telemetry.rate_hz = 10.0;
    snprintf(c->reports.dir, sizeof(c->reports.dir), "out");
    snprintf(c->reports.prefix, sizeof(c->reports.prefix), "rtvd");
    c->reports.trace = false;
    c->record.format = VD_RUN_RECORD_MDF4;
    c->record.all = true;
    c->record.buffer = 16384;
    c->motion.on = false;
    c->motion.format = VD_RUN_MOTION_RTVD;
    c->motion.rate_hz = 500;
    c->motion.decimation = VD_RUN_MOTION_LOWPASS;
    c->motion.mrp_body = -1;
    c->motion.engage_s = 2.0;
    c->motion.park_s = 2.0;
    c->motion.stale_s = 0.05;
    c->motion.heartbeat_s = 0.0;
    /* a Moog MBC rises from its settled position to neutral and settles in a few seconds: 20 s
     * is several times that, and short enough that a platform that will not engage is named
     * while the operator still waits for it */
    c->motion.engage_timeout_s = 20.0;
    c->motion.reset = VD_RUN_MOTION_RESET_NEVER;
    c->motion.lim_f = 30.0;
    c->motion.lim_w = 3.0;
    c->motion.lim_dw = 50.0;
    c->motion.lim_angle = 30.0 * M_PI / 180.0;
    c->motion.priority = 65;
    c->motion.cpu = VD_RUN_CPU_NONE;
    c->motion.ttl = 1;
    c->motion.pose = false; /* the washout's defaults: io/washout.h */
    c->motion.wo_k_f = 0.5;
    c->motion.wo_k_w = 0.5;
    c->motion.wo_wn = 2.5;
    c->motion.wo_zeta = 1.0;
    c->motion.wo_wb = 0.5;
    c->motion.wo_wl = 5.0;
    c->motion.wo_zeta_l = 1.0;
    c->motion.wo_tilt_rate = 3.0 * M_PI / 180.0;
    c->motion.wo_wr = 2.5;
    c->can.on = false;
    c->can.priority = 70;
    c->can.cpu = VD_RUN_CPU_NONE;
    c->can.port = 0;
    c->can.ecu.enable = false;
    c->can.ecu.priority = 60;
    c->can.ecu.eps_gain = -1.0;
}

/* --- sections ---------------------------------------------------------------------------- */

static void load_rt(struct vd_ydoc *y, const yaml_node_t *node, struct vd_run_rt *rt)
{
    yaml_node_t *v[RT_N];

    if (!node)
        return;
    vd_ydoc_map(y, node, "rt", rt_keys, RT_N, v);
    vd_ydoc_int(y, v[RT_PERIOD], "rt", &rt_keys[RT_PERIOD], &rt->period_us);
    if (v[RT_CPU]) {
        double x;

        if (vd_ydoc_scalar_number(v[RT_CPU], &x)) {
            vd_ydoc_int(y, v[RT_CPU], "rt", &rt_keys[RT_CPU], &rt->cpu);
        } else {
            int w;

            if (!vd_ydoc_enum(y, v[RT_CPU], "rt", &rt_keys[RT_CPU], cpu_words, 2, &w))
                rt->cpu = w == 0 ? VD_RUN_CPU_AUTO : VD_RUN_CPU_NONE;
        }
    }
    vd_ydoc_int(y, v[RT_PRIO], "rt", &rt_keys[RT_PRIO], &rt->priority);
    vd_ydoc_enum(y, v[RT_POLICY], "rt", &rt_keys[RT_POLICY], policy_names, COUNT(policy_names),
                 &rt->policy);
    if (v[RT_QUEUE] && rt->policy != VD_RUN_POLICY_QUEUE)
        vd_ydoc_error(y, v[RT_QUEUE], "rt.queue_depth: only used with policy: queue");
    vd_ydoc_int(y, v[RT_QUEUE], "rt", &rt_keys[RT_QUEUE], &rt->queue_depth);
    if (v[RT_ALLOW] && rt->policy != VD_RUN_POLICY_ALLOW)
        vd_ydoc_error(y, v[RT_ALLOW], "rt.allow: only used with policy: allow");
    if (!v[RT_ALLOW] && rt->policy == VD_RUN_POLICY_ALLOW && v[RT_POLICY])
        vd_ydoc_error(y, v[RT_POLICY],
                      "rt.allow: required with policy: allow (count, mode, "
                      "then, realign)");
    if (v[RT_ALLOW]) {
        yaml_node_t *a[AL_N];

        vd_ydoc_map(y, v[RT_ALLOW], "rt.allow", allow_keys, AL_N, a);
        vd_ydoc_int(y, a[AL_COUNT], "rt.allow", &allow_keys[AL_COUNT], &rt->allow_count);
        vd_ydoc_enum(y, a[AL_MODE], "rt.allow", &allow_keys[AL_MODE], mode_names, COUNT(mode_names),
                     &rt->allow_mode);
        vd_ydoc_enum(y, a[AL_THEN], "rt.allow", &allow_keys[AL_THEN], then_names, COUNT(then_names),
                     &rt->allow_then);
        vd_ydoc_enum(y, a[AL_REALIGN], "rt.allow", &allow_keys[AL_REALIGN], realign_names,
                     COUNT(realign_names), &rt->allow_realign);
    }
    vd_ydoc_int(y, v[RT_GRACE], "rt", &rt_keys[RT_GRACE], &rt->grace_cycles);
    vd_ydoc_int(y, v[RT_HIST], "rt", &rt_keys[RT_HIST], &rt->histogram_us);
    read_bool(y, v[RT_LOCK], "rt", &rt_keys[RT_LOCK], &rt->lock_memory);
    read_bool(y, v[RT_DMA], "rt", &rt_keys[RT_DMA], &rt->dma_latency);
}

static void load_telemetry(struct vd_ydoc *y, const yaml_node_t *node, struct vd_run_telemetry *t)
{
    yaml_node_t *v[TM_N];
    char buf[64];

    if (!node)
        return;
    vd_ydoc_map(y, node, "telemetry", telemetry_keys, TM_N, v);
    if (v[TM_UDP] &&
        !vd_ydoc_string(y, v[TM_UDP], "telemetry", &telemetry_keys[TM_UDP], buf, sizeof(buf))) {
        if (!strcmp(buf, "off") || !strcmp(buf, "false") || !strcmp(buf, "no")) {
            t->udp_on = false;
        } else if (udp_ok(buf)) {
            t->udp_on = true;
            snprintf(t->udp, sizeof(t->udp), "%s", buf);
        } else {
            vd_ydoc_error(y, v[TM_UDP],
                          "telemetry.udp: '%s' is not IPV4:PORT (e.g. 127.0.0.1:9870) or off", buf);
        }
    }
    vd_ydoc_number(y, v[TM_RATE], "telemetry", &telemetry_keys[TM_RATE], &t->rate_hz);
}

static void load_reports(struct vd_ydoc *y, const yaml_node_t *node, struct vd_run_reports *r)
{
    yaml_node_t *v[REP_N];

    if (!node)
        return;
    vd_ydoc_map(y, node, "reports", reports_keys, REP_N, v);
    vd_ydoc_string(y, v[REP_DIR], "reports", &reports_keys[REP_DIR], r->dir, sizeof(r->dir));
    if (v[REP_PREFIX] &&
        !vd_ydoc_string(y, v[REP_PREFIX], "reports", &reports_keys[REP_PREFIX], r->prefix,
                        sizeof(r->prefix)) &&
        !prefix_ok(r->prefix))
        vd_ydoc_error(y, v[REP_PREFIX],
                      "reports.prefix: '%s' may only contain letters, digits, '_', '.', '-'",
                      r->prefix);
    read_bool(y, v[REP_TRACE], "reports", &reports_keys[REP_TRACE], &r->trace);
}

/* the hash continues over a 0xff byte and the text of a file */
static void hash_file(struct vd_run_cfg *c, const char *text, size_t len)
{
    c->hash = vd_fnv1a64(c->hash, "\xff", 1);
    c->hash = vd_fnv1a64(c->hash, text, len);
}

/* path relative to basedir into out (absolute and embedded paths as given; embedded ones
 * normalized); 0 or -ENAMETOOLONG */
static int resolve(char *out, size_t size, const char *basedir, const char *rel)
{
    char tmp[VD_RUN_PATH_MAX];

    if (rel[0] == '/' || vd_cfg_is_embedded(rel) || !basedir || !*basedir) {
        if ((size_t)snprintf(tmp, sizeof(tmp), "%s", rel) >= sizeof(tmp))
            return -ENAMETOOLONG;
    } else if ((size_t)snprintf(tmp, sizeof(tmp), "%s/%s", basedir, rel) >= sizeof(tmp)) {
        return -ENAMETOOLONG;
    }
    if (vd_cfg_is_embedded(tmp))
        return vd_cfg_path_normalize(out, size, tmp);
    if ((size_t)snprintf(out, size, "%s", tmp) >= size)
        return -ENAMETOOLONG;
    return 0;
}

static void load_faults(struct vd_ydoc *y, const yaml_node_t *node, struct vd_run_ecu *e)
{
    int n;

    if (vd_ydoc_seq(y, node, "can.ecu.faults", 0, &n))
        return;
    if (n > VD_RUN_MAX_FAULTS) {
        vd_ydoc_error(y, node, "can.ecu.faults: %d entries, at most %d", n, VD_RUN_MAX_FAULTS);
        return;
    }
    for (int i = 0; i < n; i++) {
        yaml_node_t *it = vd_ydoc_item(y, node, i), *v[FLT_N];
        struct vd_run_fault *f = &e->fault[e->nfault++];
        char path[VD_YPATH_MAX], kind[32];

        vd_ypath_index(path, "can.ecu.faults", i);
        memset(f, 0, sizeof(*f));
        f->duration = -1.0;
        f->line = (int)it->start_mark.line + 1;
        f->col = (int)it->start_mark.column + 1;
        if (vd_ydoc_map(y, it, path, fault_keys, FLT_N, v))
            continue;
        if (!vd_ydoc_string(y, v[FLT_FAULT], path, &fault_keys[FLT_FAULT], kind, sizeof(kind))) {
            f->kind = vd_run_fault_kind(kind);
            if (f->kind < 0)
                vd_ydoc_error(y, v[FLT_FAULT],
                              "%s.fault: unknown fault '%s' (silent, bad_crc, stale_counter, "
                              "jump_counter, out_of_range, nan, wrong_length, burst, flood, "
                              "unknown_id, bad_datagram)",
                              path, kind);
        }
        vd_ydoc_string(y, v[FLT_MESSAGE], path, &fault_keys[FLT_MESSAGE], f->message,
                       sizeof(f->message));
        if (f->kind >= 0 && f->kind != VD_RUN_FAULT_UNKNOWN_ID &&
            f->kind != VD_RUN_FAULT_BAD_DATAGRAM && !v[FLT_MESSAGE])
            vd_ydoc_error(y, it, "%s.message: required for fault %s", path,
                          vd_run_fault_name(f->kind));
        if (v[FLT_MESSAGE] &&
            (f->kind == VD_RUN_FAULT_UNKNOWN_ID || f->kind == VD_RUN_FAULT_BAD_DATAGRAM))
            vd_ydoc_error(y, v[FLT_MESSAGE], "%s.message: not used by fault %s", path,
                          vd_run_fault_name(f->kind));
        vd_ydoc_number(y, v[FLT_AT], path, &fault_keys[FLT_AT], &f->at);
        vd_ydoc_number(y, v[FLT_DURATION], path, &fault_keys[FLT_DURATION], &f->duration);
        vd_ydoc_int(y, v[FLT_COUNT], path, &fault_keys[FLT_COUNT], &f->count);
        if (v[FLT_DURATION] && v[FLT_COUNT])
            vd_ydoc_error(y, v[FLT_COUNT], "%s: give duration or count, not both", path);
        f->factor = f->kind == VD_RUN_FAULT_BURST || f->kind == VD_RUN_FAULT_FLOOD ? 10 : 1;
        vd_ydoc_int(y, v[FLT_FACTOR], path, &fault_keys[FLT_FACTOR], &f->factor);
        if (v[FLT_FACTOR] && f->kind != VD_RUN_FAULT_BURST && f->kind != VD_RUN_FAULT_FLOOD &&
            f->kind != VD_RUN_FAULT_UNKNOWN_ID)
            vd_ydoc_error(y, v[FLT_FACTOR], "%s.factor: only used by burst, flood, unknown_id",
                          path);
        if (f->kind == VD_RUN_FAULT_FLOOD && f->factor < 2)
            vd_ydoc_error(y, v[FLT_FACTOR], "%s.factor: a flood needs 2 or more", path);
    }
}

static void load_ecu(struct vd_ydoc *y, const yaml_node_t *node, struct vd_run_ecu *e)
{
    yaml_node_t *v[ECU_N];

    if (!node)
        return;
    vd_ydoc_map(y, node, "can.ecu", ecu_keys, ECU_N, v);
    read_bool(y, v[ECU_ENABLE], "can.ecu", &ecu_keys[ECU_ENABLE], &e->enable);
    vd_ydoc_int(y, v[ECU_PRIO], "can.ecu", &ecu_keys[ECU_PRIO], &e->priority);
    if (v[ECU_SPEED]) {
        double *t = NULL, *sv = NULL;
        int n = 0;

        if (!vd_ydoc_table(y, v[ECU_SPEED], "can.ecu", &ecu_keys[ECU_SPEED], 1, &t, &sv, &n)) {
            if (n > VD_RUN_MAX_SPEED)
                vd_ydoc_error(y, v[ECU_SPEED], "can.ecu.speed: %d points, at most %d", n,
                              VD_RUN_MAX_SPEED);
            for (int i = 0; i < n && i < VD_RUN_MAX_SPEED; i++) {
                if (t[i] < 0 || sv[i] < -100 || sv[i] > 100)
                    vd_ydoc_error(y, v[ECU_SPEED],
                                  "can.ecu.speed: point %d: time >= 0 s and speed in "
                                  "[-100, 100] m/s",
                                  i);
                e->speed_t[i] = t[i];
                e->speed_v[i] = sv[i];
            }
            e->nspeed = n < VD_RUN_MAX_SPEED ? n : VD_RUN_MAX_SPEED;
        }
        free(t);
        free(sv);
    }
    vd_ydoc_number(y, v[ECU_EPS], "can.ecu", &ecu_keys[ECU_EPS], &e->eps_gain);
    if (v[ECU_FAULTS])
        load_faults(y, v[ECU_FAULTS], e);
}

/* the can: section; the mapping path resolved against the run file, its text hashed */
static void load_can(struct vd_ydoc *y, const yaml_node_t *node, const char *basedir,
                     struct vd_run_cfg *c)
{
    yaml_node_t *v[CAN_N];
    char rel[VD_RUN_PATH_MAX];
    int role;

    if (!node)
        return;
    c->can.on = true;
    vd_ydoc_map(y, node, "can", can_keys, CAN_N, v);
    if (v[CAN_MAPPING] &&
        !vd_ydoc_string(y, v[CAN_MAPPING], "can", &can_keys[CAN_MAPPING], rel, sizeof(rel))) {
        char *text = NULL;
        size_t len = 0;
        int rc;

        if (resolve(c->can.mapping, sizeof(c->can.mapping), basedir, rel))
            vd_ydoc_error(y, v[CAN_MAPPING], "can.mapping: path too long");
        else if ((rc = vd_cfg_read(c->can.mapping, &text, &len)))
            vd_ydoc_error(y, v[CAN_MAPPING], "can.mapping: cannot read '%s': %s", c->can.mapping,
                          vd_cfg_strerror(rc));
        else
            hash_file(c, text, len);
        free(text);
    }
    vd_ydoc_enum(y, v[CAN_ROLE], "can", &can_keys[CAN_ROLE], role_names, COUNT(role_names), &role);
    vd_ydoc_int(y, v[CAN_PRIO], "can", &can_keys[CAN_PRIO], &c->can.priority);
    if (v[CAN_CPU]) {
        double x;
        int w;

        if (vd_ydoc_scalar_number(v[CAN_CPU], &x))
            vd_ydoc_int(y, v[CAN_CPU], "can", &can_keys[CAN_CPU], &c->can.cpu);
        else if (!vd_ydoc_enum(y, v[CAN_CPU], "can", &can_keys[CAN_CPU], none_word, 1, &w))
            c->can.cpu = VD_RUN_CPU_NONE;
    }
    vd_ydoc_int(y, v[CAN_PORT], "can", &can_keys[CAN_PORT], &c->can.port);
    load_ecu(y, v[CAN_ECU], &c->can.ecu);
}

/* what the run steps: a scenario (scn) or a model file, named at node (key `key`) or, with
 * node NULL, the default file def; located errors at node (or the file start) */
static void load_source(struct vd_ydoc *y, const yaml_node_t *node, int key, const char *basedir,
                        const char *def, const char *vehicle, struct vd_run_cfg *c, FILE *errf)
{
    const yaml_mark_t start = {0, 0, 0};
    char rel[VD_RUN_PATH_MAX], path[VD_RUN_PATH_MAX];
    const char *what;
    char *text = NULL;
    size_t len = 0;
    bool scn;
    int rc;

    if (node) {
        if (vd_ydoc_string(y, node, "", &top_keys[key], rel, sizeof(rel)))
            return;
        if (resolve(path, sizeof(path), basedir, rel)) {
            vd_ydoc_error(y, node, "%s: path too long", top_keys[key].key);
            return;
        }
    } else if (def) {
        snprintf(path, sizeof(path), "%s", def);
    } else {
        vd_ydoc_error_mark(y, start, "scenario or model: missing (this program has no default)");
        return;
    }
    rc = vd_cfg_read(path, &text, &len);
    if (rc) {
        if (node)
            vd_ydoc_error(y, node, "%s: cannot read '%s': %s", top_keys[key].key, path,
                          vd_cfg_strerror(rc));
        else
            vd_ydoc_error_mark(y, start, "the default '%s' cannot be read: %s", path,
                               vd_cfg_strerror(rc));
        return;
    }
    hash_file(c, text, len);
    scn = vd_cfg_is_scenario(path);
    what = scn ? "scenario" : "model";
    if (node && key == TOP_MODEL && scn)
        vd_ydoc_error(y, node,
                      "model: '%s' is a scenario file (top-level `scenario:`); use "
                      "scenario: instead",
                      path);
    else if (node && key == TOP_SCENARIO && !scn)
        vd_ydoc_error(y, node,
                      "scenario: '%s' is not a scenario file (no top-level "
                      "`scenario:`); a bare model goes under model:",
                      path);
    else if (!scn && vehicle) {
        if (node)
            vd_ydoc_error(y, node,
                          "%s: '%s' is a bare model: a vehicle given with the run (--vehicle "
                          "%s) replaces a scenario's vehicle",
                          top_keys[key].key, path, vehicle);
        else
            vd_ydoc_error_mark(y, start,
                               "the default model '%s' is not a scenario: --vehicle %s "
                               "replaces a scenario's vehicle",
                               path, vehicle);
    } else if (scn) {
        snprintf(c->scenario_path, sizeof(c->scenario_path), "%s", path);
        c->scn = vd_cfg_load_scenario(path, vehicle, errf);
        if (c->scn) {
            char *vtext = NULL;
            size_t vlen = 0;

            c->m = c->scn->m;
            c->src = c->scn->src;
            snprintf(c->model_path, sizeof(c->model_path), "%s", c->scn->vehicle);
            if (!vd_cfg_read(c->scn->vehicle, &vtext, &vlen))
                hash_file(c, vtext, vlen);
            free(vtext);
        }
    } else {
        snprintf(c->model_path, sizeof(c->model_path), "%s", path);
        c->m = vd_cfg_load_model_mem(path, text, len, &c->src, errf);
    }
    free(text);
    if (vd_ydoc_errors(y) || c->m)
        return;
    if (node)
        vd_ydoc_error(y, node, "%s: '%s' does not load (errors above)", what, path);
    else
        vd_ydoc_error_mark(y, start, "the default %s '%s' does not load (errors above)", what,
                           path);
}

static int add_output(struct vd_run_cfg *c, const char *name)
{
    if ((size_t)snprintf(c->out_name[c->noutput], VD_SIGNAME_MAX, "%s", name) >= VD_SIGNAME_MAX)
        return -ENAMETOOLONG;
    if (vd_signal_resolve(c->m, name, &c->out_sig[c->noutput]))
        return -ENOENT;
    c->noutput++;
    return 0;
}

static int load_outputs(struct vd_ydoc *y, const yaml_node_t *node, struct vd_run_cfg *c)
{
    static const char *const pose[] = {"x", "y", "z", "az", "ay", "ax"};
    const bool scn_out = !node && c->scn && c->scn->nout > 0;
    int n = scn_out ? c->scn->nout : 6 * c->m->nbody;

    if (node && vd_ydoc_seq(y, node, "outputs", 0, &n))
        return 0;
    c->out_sig = calloc((size_t)(n ? n : 1), sizeof(*c->out_sig));
    c->out_name = calloc((size_t)(n ? n : 1), sizeof(*c->out_name));
    if (!c->out_sig || !c->out_name)
        return -ENOMEM;
    /* the scenario's (checked by its loader) */
    if (scn_out) {
        for (int i = 0; i < n; i++)
            if (add_output(c, c->scn->out[i]))
                vd_ydoc_error_mark(y, (yaml_mark_t){0, 0, 0},
                                   "outputs: the scenario's signal '%s' does not resolve",
                                   c->scn->out[i]);
        return 0;
    }
    if (!node) {
        char name[VD_SIGNAME_MAX];

        for (int b = 0; b < c->m->nbody; b++)
            for (int k = 0; k < 6; k++) {
                snprintf(name, sizeof(name), "%s.%s", c->m->body[b].name, pose[k]);
                add_output(c, name);
            }
        return 0;
    }
    for (int i = 0; i < n; i++) {
        yaml_node_t *it = vd_ydoc_item(y, node, i);
        char path[VD_YPATH_MAX], name[VD_SIGNAME_MAX];
        int rc;

        vd_ypath_index(path, "outputs", i);
        if (vd_ydoc_string(y, it, path, NULL, name, sizeof(name)))
            continue;
        rc = add_output(c, name);
        if (rc == -ENOENT)
            vd_ydoc_error(y, it,
                          "%s: unknown signal '%s' of model %s (names are <element>.<component>; "
                          "rtvd sim --list-signals prints them)",
                          path, name, c->m->name);
        else if (rc)
            vd_ydoc_error(y, it, "%s: name too long", path);
    }
    return 0;
}

/* record: (after the outputs: its signals are found among them or added to them) */
static int load_record(struct vd_ydoc *y, const yaml_node_t *node, struct vd_run_cfg *c)
{
    struct vd_run_record *r = &c->record;
    yaml_node_t *v[REC_N];
    int n = 0, fmt = 0;

    if (!node)
        return 0;
    r->on = true;
    vd_ydoc_map(y, node, "record", record_keys, REC_N, v);
    vd_ydoc_string(y, v[REC_FILE], "record", &record_keys[REC_FILE], r->file, sizeof(r->file));
    if (!vd_ydoc_enum(y, v[REC_FORMAT], "record", &record_keys[REC_FORMAT], record_formats,
                      COUNT(record_formats), &fmt) &&
        v[REC_FORMAT])
        r->format = fmt + 1; /* csv 1, mdf4 2, both 3 */
    vd_ydoc_number(y, v[REC_ROTATE_MB], "record", &record_keys[REC_ROTATE_MB], &r->rotate_mb);
    vd_ydoc_number(y, v[REC_ROTATE_S], "record", &record_keys[REC_ROTATE_S], &r->rotate_s);
    vd_ydoc_int(y, v[REC_BUFFER], "record", &record_keys[REC_BUFFER], &r->buffer);
    if (!v[REC_SIGNALS] || vd_ydoc_seq(y, v[REC_SIGNALS], "record.signals", 0, &n))
        return 0;
    r->all = false;
    r->sig = calloc((size_t)(n ? n : 1), sizeof(*r->sig));
    if (!r->sig || !c->m)
        return r->sig ? 0 : -ENOMEM;
    for (int i = 0; i < n; i++) {
        yaml_node_t *it = vd_ydoc_item(y, v[REC_SIGNALS], i);
        char path[VD_YPATH_MAX], name[VD_SIGNAME_MAX];
        int k = 0;

        vd_ypath_index(path, "record.signals", i);
        if (vd_ydoc_string(y, it, path, NULL, name, sizeof(name)))
            continue;
        while (k < c->noutput && strcmp(c->out_name[k], name))
            k++;
        if (k == c->noutput) {
            struct vd_signal *sig = realloc(c->out_sig, (size_t)(k + 1) * sizeof(*sig));
            char(*nm)[VD_SIGNAME_MAX];

            if (!sig)
                return -ENOMEM;
            c->out_sig = sig;
            nm = realloc(c->out_name, (size_t)(k + 1) * sizeof(*nm));
            if (!nm)
                return -ENOMEM;
            c->out_name = nm;
            if (add_output(c, name)) {
                vd_ydoc_error(y, it,
                              "%s: unknown signal '%s' of model %s (rtvd sim --list-signals "
                              "prints them)",
                              path, name, c->m->name);
                continue;
            }
        }
        r->sig[r->nsig++] = k;
    }
    return 0;
}

/* motion: (after the model: the MRP is resolved against it) */
static void load_motion(struct vd_ydoc *y, const yaml_node_t *node, struct vd_run_cfg *c)
{
    struct vd_run_motion *mo = &c->motion;
    yaml_node_t *v[MO_N];
    char dest[96];
    int k;

    if (!node)
        return;
    mo->on = true;
    snprintf(mo->dest, sizeof(mo->dest), "127.0.0.1:4950");
    vd_ydoc_map(y, node, "motion", motion_keys, MO_N, v);
    if (v[MO_DEST] &&
        !vd_ydoc_string(y, v[MO_DEST], "motion", &motion_keys[MO_DEST], dest, sizeof(dest))) {
        if (!strcmp(dest, "off")) {
            mo->on = false;
        } else {
            struct sockaddr_storage ss;
            socklen_t len;
            const char *colon = strrchr(dest, ':');
            char host[64];
            bool ok = false;

            /* the syntax of io/udpout.h vd_udp_parse_any (config does not use io) */
            if (colon && colon != dest && (size_t)(colon - dest) < sizeof(host)) {
                long port = strtol(colon + 1, NULL, 10);

                memcpy(host, dest, (size_t)(colon - dest));
                host[colon - dest] = '\0';
                memset(&ss, 0, sizeof(ss));
                len = 0;
                if (host[0] == '[' && host[strlen(host) - 1] == ']') {
                    host[strlen(host) - 1] = '\0';
                    ok = inet_pton(AF_INET6, host + 1, &((struct sockaddr_in6 *)&ss)->sin6_addr) ==
                         1;
                } else {
                    ok = !strcmp(host, "localhost") ||
                         inet_pton(AF_INET, host, &((struct sockaddr_in *)&ss)->sin_addr) == 1;
                }
                ok = ok && port >= 1 && port <= 65535;
                (void)len;
            }
            if (!ok)
                vd_ydoc_error(y, v[MO_DEST],
                              "motion.dest: '%s' is not a numeric address:port ([v6]:port for "
                              "IPv6) or off",
                              dest);
            snprintf(mo->dest, sizeof(mo->dest), "%s", dest);
        }
    }
    vd_ydoc_enum(y, v[MO_FORMAT], "motion", &motion_keys[MO_FORMAT], motion_formats,
                 COUNT(motion_formats), &mo->format);
    if (!vd_ydoc_int(y, v[MO_RATE], "motion", &motion_keys[MO_RATE], &mo->rate_hz) && v[MO_RATE] &&
        mo->rate_hz != 1000 && mo->rate_hz != 500 && mo->rate_hz != 250 && mo->rate_hz != 100)
        vd_ydoc_error(y, v[MO_RATE], "motion.rate_hz: %d: one of 1000, 500, 250, 100", mo->rate_hz);
    vd_ydoc_enum(y, v[MO_DECIM], "motion", &motion_keys[MO_DECIM], motion_decims,
                 COUNT(motion_decims), &mo->decimation);
    vd_ydoc_number(y, v[MO_ENGAGE], "motion", &motion_keys[MO_ENGAGE], &mo->engage_s);
    vd_ydoc_number(y, v[MO_PARK], "motion", &motion_keys[MO_PARK], &mo->park_s);
    if (v[MO_STALE]) {
        double ms = 50;

        if (!vd_ydoc_number(y, v[MO_STALE], "motion", &motion_keys[MO_STALE], &ms))
            mo->stale_s = ms * 1e-3;
    }
    vd_ydoc_number(y, v[MO_HB], "motion", &motion_keys[MO_HB], &mo->heartbeat_s);
    vd_ydoc_number(y, v[MO_ENGAGE_TIMEOUT], "motion", &motion_keys[MO_ENGAGE_TIMEOUT],
                   &mo->engage_timeout_s);
    vd_ydoc_enum(y, v[MO_RESET], "motion", &motion_keys[MO_RESET], motion_resets,
                 COUNT(motion_resets), &mo->reset);
    if (v[MO_CONTROL] && !vd_ydoc_string(y, v[MO_CONTROL], "motion", &motion_keys[MO_CONTROL],
                                         mo->control, sizeof(mo->control))) {
        /* an absolute path (a relative one would depend on the directory rtvd was started
         * in; the operator's client must find it), or off */
        if (!strcmp(mo->control, "off"))
            mo->control[0] = '\0';
        else if (mo->control[0] != '/')
            vd_ydoc_error(y, v[MO_CONTROL],
                          "motion.control: '%s': an absolute path of a Unix socket (at most %zu "
                          "bytes) or off",
                          mo->control, sizeof(mo->control) - 1);
    }
    vd_ydoc_int(y, v[MO_PRIO], "motion", &motion_keys[MO_PRIO], &mo->priority);
    if (v[MO_CPU]) {
        double x;
        int w;

        if (vd_ydoc_scalar_number(v[MO_CPU], &x))
            vd_ydoc_int(y, v[MO_CPU], "motion", &motion_keys[MO_CPU], &mo->cpu);
        else if (!vd_ydoc_enum(y, v[MO_CPU], "motion", &motion_keys[MO_CPU], none_word, 1, &w))
            mo->cpu = VD_RUN_CPU_NONE;
    }
    vd_ydoc_int(y, v[MO_TTL], "motion", &motion_keys[MO_TTL], &mo->ttl);
    vd_ydoc_int(y, v[MO_OUTSIM_ID], "motion", &motion_keys[MO_OUTSIM_ID], &mo->outsim_id);
    if (v[MO_LIMITS]) {
        yaml_node_t *l[LIM_N];
        double deg = mo->lim_angle * 180.0 / M_PI;

        vd_ydoc_map(y, v[MO_LIMITS], "motion.limits", limit_keys, LIM_N, l);
        vd_ydoc_number(y, l[LIM_F], "motion.limits", &limit_keys[LIM_F], &mo->lim_f);
        vd_ydoc_number(y, l[LIM_W], "motion.limits", &limit_keys[LIM_W], &mo->lim_w);
        vd_ydoc_number(y, l[LIM_DW], "motion.limits", &limit_keys[LIM_DW], &mo->lim_dw);
        if (!vd_ydoc_number(y, l[LIM_ANGLE], "motion.limits", &limit_keys[LIM_ANGLE], &deg))
            mo->lim_angle = deg * M_PI / 180.0;
    }
    {
        int out = 0;

        if (!vd_ydoc_enum(y, v[MO_OUTPUT], "motion", &motion_keys[MO_OUTPUT], motion_outputs,
                          COUNT(motion_outputs), &out) &&
            v[MO_OUTPUT]) {
            mo->pose = out == 1;
            if (mo->pose && mo->format != VD_RUN_MOTION_RTVD)
                vd_ydoc_error(y, v[MO_OUTPUT],
                              "motion.output: pose needs format rtvd (%s carries cues only)",
                              motion_formats[mo->format]);
        }
    }
    if (v[MO_WASHOUT]) {
        yaml_node_t *w[WO_N];
        double *dst[WO_N] = {&mo->wo_k_f,    &mo->wo_k_w,       &mo->wo_wn,
                             &mo->wo_zeta,   &mo->wo_wb,        &mo->wo_wl,
                             &mo->wo_zeta_l, &mo->wo_tilt_rate, &mo->wo_wr};
        double deg = mo->wo_tilt_rate * 180.0 / M_PI;

        vd_ydoc_map(y, v[MO_WASHOUT], "motion.washout", washout_keys, WO_N, w);
        for (int i = 0; i < WO_N; i++)
            if (i != WO_TILT)
                vd_ydoc_number(y, w[i], "motion.washout", &washout_keys[i], dst[i]);
        if (!vd_ydoc_number(y, w[WO_TILT], "motion.washout", &washout_keys[WO_TILT], &deg))
            mo->wo_tilt_rate = deg * M_PI / 180.0;
    }
    /* the motion reference point, resolved against the model */
    if (!c->m)
        return;
    if (v[MO_MRP]) {
        yaml_node_t *r[MRP_N];
        char name[VD_NAME_MAX];
        double axes[3] = {0, 0, 0};

        vd_ydoc_map(y, v[MO_MRP], "motion.mrp", mrp_keys, MRP_N, r);
        if (r[MRP_MARKER] && (r[MRP_BODY] || r[MRP_POS]))
            vd_ydoc_error(y, r[MRP_BODY] ? r[MRP_BODY] : r[MRP_POS],
                          "motion.mrp: a marker, or a body and a position, not both");
        else if (r[MRP_MARKER]) {
            if (!vd_ydoc_string(y, r[MRP_MARKER], "motion.mrp", &mrp_keys[MRP_MARKER], name,
                                sizeof(name))) {
                k = vd_model_find_marker(c->m, name);
                if (k < 0 || c->m->marker[k].body < 0)
                    vd_ydoc_error(y, r[MRP_MARKER],
                                  "motion.mrp.marker: '%s' is not a marker on a body of model %s",
                                  name, c->m->name);
                else {
                    mo->mrp_body = c->m->marker[k].body;
                    memcpy(mo->mrp_pos, c->m->marker[k].pos, sizeof(mo->mrp_pos));
                    snprintf(mo->mrp_what, sizeof(mo->mrp_what), "marker %s", name);
                }
            }
        } else if (r[MRP_BODY]) {
            if (!vd_ydoc_string(y, r[MRP_BODY], "motion.mrp", &mrp_keys[MRP_BODY], name,
                                sizeof(name))) {
                k = vd_model_find_body(c->m, name);
                if (k < 0)
                    vd_ydoc_error(y, r[MRP_BODY], "motion.mrp.body: '%s' is not a body of model %s",
                                  name, c->m->name);
                else {
                    mo->mrp_body = k;
                    memcpy(mo->mrp_pos, c->m->body[k].com, sizeof(mo->mrp_pos));
                    snprintf(mo->mrp_what, sizeof(mo->mrp_what), "body %s", name);
                }
            }
            vd_ydoc_vec(y, r[MRP_POS], "motion.mrp", &mrp_keys[MRP_POS], 3, 3, mo->mrp_pos, NULL);
        } else {
            vd_ydoc_error(y, v[MO_MRP], "motion.mrp: give a marker, or a body (and a position)");
        }
        if (!vd_ydoc_vec(y, r[MRP_AXES], "motion.mrp", &mrp_keys[MRP_AXES], 3, 3, axes, NULL))
            for (int i = 0; i < 3; i++)
                mo->mrp_rpy[i] = axes[i] * M_PI / 180.0;
        return;
    }
    if (vd_run_motion_default_mrp(c))
        vd_ydoc_error(y, node,
                      "motion: model %s has no marker driver_head and no body chassis: give "
                      "motion.mrp",
                      c->m->name);
}

int vd_run_motion_default_mrp(struct vd_run_cfg *c)
{
    struct vd_run_motion *mo = &c->motion;
    int k;

    if ((k = vd_model_find_marker(c->m, "driver_head")) >= 0 && c->m->marker[k].body >= 0) {
        mo->mrp_body = c->m->marker[k].body;
        memcpy(mo->mrp_pos, c->m->marker[k].pos, sizeof(mo->mrp_pos));
        snprintf(mo->mrp_what, sizeof(mo->mrp_what), "marker driver_head");
    } else if ((k = vd_model_find_body(c->m, "chassis")) >= 0) {
        mo->mrp_body = k;
        memcpy(mo->mrp_pos, c->m->body[k].com, sizeof(mo->mrp_pos));
        snprintf(mo->mrp_what, sizeof(mo->mrp_what), "body chassis (its CoM)");
    } else {
        return -ENOENT;
    }
    return 0;
}

/* --- entry points ------------------------------------------------------------------------ */

static struct vd_run_cfg *load_run_mem(const char *name, const char *text, size_t len,
                                       const char *basedir, const char *def, const char *vehicle,
                                       FILE *errf)
{
    struct vd_run_cfg *c = calloc(1, sizeof(*c));
    yaml_node_t *root = NULL, *top[TOP_N];
    struct vd_ydoc *y = NULL;
    bool ok = false;

    if (!c)
        goto out_nomem;
    defaults(c);
    snprintf(c->name, sizeof(c->name), "%s", name);
    c->hash = vd_fnv1a64(VD_FNV_OFFSET, text, len);
    y = vd_ydoc_new(name, text, len);
    if (!y)
        goto out_nomem;
    for (int k = 0; k < TOP_N; k++)
        top[k] = NULL;
    /* an empty file is all defaults */
    if (len > 0 && vd_ydoc_parse(y) == 0)
        root = vd_ydoc_root(y);
    if (len > 0 && !vd_ydoc_errors(y) && root &&
        !(root->type == YAML_SCALAR_NODE && !root->data.scalar.length))
        vd_ydoc_map(y, root, "", top_keys, TOP_N, top);
    if (vd_ydoc_errors(y))
        goto out_print;
    vd_ydoc_number(y, top[TOP_DURATION], "", &top_keys[TOP_DURATION], &c->duration);
    load_rt(y, top[TOP_RT], &c->rt);
    load_telemetry(y, top[TOP_TELEMETRY], &c->telemetry);
    load_reports(y, top[TOP_REPORTS], &c->reports);
    load_can(y, top[TOP_CAN], basedir, c);
    if (top[TOP_SCENARIO] && top[TOP_MODEL])
        vd_ydoc_error(y,
                      top[TOP_SCENARIO]->start_mark.index > top[TOP_MODEL]->start_mark.index
                          ? top[TOP_SCENARIO]
                          : top[TOP_MODEL],
                      "scenario and model: give one of them, not both (a scenario names its "
                      "vehicle)");
    else if (top[TOP_SCENARIO])
        load_source(y, top[TOP_SCENARIO], TOP_SCENARIO, basedir, def, vehicle, c, errf);
    else
        load_source(y, top[TOP_MODEL], TOP_MODEL, basedir, def, vehicle, c, errf);
    /* the scenario's duration unless the run file gives one */
    if (c->scn && !top[TOP_DURATION])
        c->duration = c->scn->duration;
    if (c->m && load_outputs(y, top[TOP_OUTPUTS], c))
        goto out_nomem;
    if (c->m && !vd_ydoc_errors(y) && load_record(y, top[TOP_RECORD], c))
        goto out_nomem;
    load_motion(y, top[TOP_MOTION], c);
    ok = !vd_ydoc_errors(y) && c->m;

out_print:
    if (errf && vd_ydoc_errors(y))
        vd_ydoc_print(y, errf);
    vd_ydoc_free(y);
    if (!ok) {
        vd_cfg_run_free(c);
        return NULL;
    }
    return c;

out_nomem:
    if (errf)
        fprintf(errf, "%s: error: out of memory\n", name);
    vd_ydoc_free(y);
    vd_cfg_run_free(c);
    return NULL;
}

struct vd_run_cfg *vd_cfg_load_run_mem(const char *name, const char *text, size_t len,
                                       const char *basedir, const char *def, FILE *errf)
{
    return load_run_mem(name, text, len, basedir, def, NULL, errf);
}

struct vd_run_cfg *vd_cfg_load_run(const char *path, const char *def, FILE *errf)
{
    return vd_cfg_load_run_vehicle(path, def, NULL, errf);
}

struct vd_run_cfg *vd_cfg_load_run_vehicle(const char *path, const char *def, const char *vehicle,
                                           FILE *errf)
{
    struct vd_run_cfg *c;
    char dir[VD_RUN_PATH_MAX];
    char *text = NULL;
    size_t len = 0;
    int rc;

    if (!path)
        return load_run_mem("<defaults>", "", 0, NULL, def, vehicle, errf);
    rc = vd_cfg_read_or_say(path, &text, &len, errf);
    if (rc)
        return NULL;
    c = load_run_mem(path, text, len, vd_cfg_dirname(dir, sizeof(dir), path), def, vehicle, errf);
    free(text);
    return c;
}

void vd_cfg_run_free(struct vd_run_cfg *c)
{
    if (!c)
        return;
    if (c->scn) {
        vd_cfg_scenario_free(c->scn); /* its model and signals too */
    } else {
        vd_source_free(c->src);
        vd_model_free(c->m);
    }
    free(c->out_sig);
    free(c->record.sig);
    free(c->out_name);
    free(c);
}

int vd_run_parse_policy(struct vd_run_rt *rt, const char *s)
{
    char buf[96], *save = NULL, *tok, *end;
    struct vd_run_rt r = *rt;
    int field = 0;
    long n;

    if (strlen(s) >= sizeof(buf))
        return -EINVAL;
    strcpy(buf, s);
    tok = strtok_r(buf, ":", &save);
    if (!tok)
        return -EINVAL;
    r.policy = -1;
    for (int i = 0; i < COUNT(policy_names); i++)
        if (!strcmp(tok, policy_names[i]))
            r.policy = i;
    if (r.policy < 0)
        return -EINVAL;
    while ((tok = strtok_r(NULL, ":", &save))) {
        field++;
        if (field == 1 && (r.policy == VD_RUN_POLICY_QUEUE || r.policy == VD_RUN_POLICY_ALLOW)) {
            errno = 0;
            n = strtol(tok, &end, 10);
            if (errno || end == tok || *end || n < (r.policy == VD_RUN_POLICY_QUEUE) ||
                n > 1000000000L)
                return -EINVAL;
            if (r.policy == VD_RUN_POLICY_QUEUE)
                r.queue_depth = (int)n;
            else
                r.allow_count = (int)n;
        } else if (r.policy == VD_RUN_POLICY_ALLOW && field > 1) {
            if (!strcmp(tok, "total"))
                r.allow_mode = VD_RUN_ALLOW_TOTAL;
            else if (!strcmp(tok, "consecutive"))
                r.allow_mode = VD_RUN_ALLOW_CONSECUTIVE;
            else if (!strcmp(tok, "stop"))
                r.allow_then = VD_RUN_THEN_STOP;
            else if (!strcmp(tok, "freeze"))
                r.allow_then = VD_RUN_THEN_FREEZE;
            else if (!strcmp(tok, "skip"))
                r.allow_realign = VD_RUN_REALIGN_SKIP;
            else if (!strcmp(tok, "delay"))
                r.allow_realign = VD_RUN_REALIGN_DELAY;
            else
                return -EINVAL;
        } else {
            return -EINVAL;
        }
    }
    if (r.policy == VD_RUN_POLICY_ALLOW && field < 1)
        return -EINVAL; /* allow needs its count */
    *rt = r;
    return 0;
}
