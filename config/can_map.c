/* config/can_map.c - CAN mapping schema: key tables (unit, range), buses and their transport,
 * rx/tx messages with E2E and signals, all reported at the offending node; the DBC files are
 * read into memory for io/dbc.h. */
#include "can_map.h"
#include "config/vfs.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "config/loader.h"
#include "config/ydoc.h"

#define REQ      VD_YK_REQUIRED
#define LO_OPEN  VD_YK_LO_OPEN
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

#define MAX_BUS 8
#define MAX_MSG 256 /* per direction */
#define MAX_SIG 64  /* per message */

/* --- schema: one table per mapping; unit and valid range of each number --------------- */

enum { TOP_NAME, TOP_TFACTOR, TOP_STRICT, TOP_BUSES, TOP_RX, TOP_TX, TOP_N };
static const struct vd_ykey top_keys[TOP_N] = {
    [TOP_NAME] = VD_YKEY("name", 0, NULL),
    [TOP_TFACTOR] = VD_YKEY_RANGE("timeout_factor", LO_OPEN, "cycles", 1.0, 100.0),
    [TOP_STRICT] = VD_YKEY("strict_dbc", 0, NULL), /* DBC defects are errors (VD_DBC_STRICT) */
    [TOP_BUSES] = VD_YKEY("buses", REQ, NULL),     /* sequence, 1..8 */
    [TOP_RX] = VD_YKEY("rx", 0, NULL),             /* sequence of messages ECU -> rtvd */
    [TOP_TX] = VD_YKEY("tx", 0, NULL),             /* sequence of messages rtvd -> ECU */
};

enum { BUS_NAME, BUS_DBC, BUS_FD, BUS_RCVBUF, BUS_SNDBUF, BUS_TXWAIT, BUS_UDP, BUS_SCAN, BUS_N };
static const struct vd_ykey bus_keys[BUS_N] = {
    [BUS_NAME] = VD_YKEY("name", REQ, NULL),
    [BUS_DBC] = VD_YKEY("dbc", REQ, NULL), /* path relative to the mapping file */
    [BUS_FD] = VD_YKEY("fd", 0, NULL),
    [BUS_RCVBUF] = VD_YKEY_RANGE("rcvbuf", 0, "byte", 0, 1 << 30),
    [BUS_SNDBUF] = VD_YKEY_RANGE("sndbuf", 0, "byte", 0, 1 << 30),
    [BUS_TXWAIT] = VD_YKEY_RANGE("tx_wait_us", 0, "us", 0, 1e7),
    [BUS_UDP] = VD_YKEY("udp", 0, NULL),
    [BUS_SCAN] = VD_YKEY("socketcan", 0, NULL),
};

enum { UDP_LOCAL, UDP_REMOTE, UDP_PAYLOAD, UDP_ANY, UDP_N };
static const struct vd_ykey udp_keys[UDP_N] = {
    [UDP_LOCAL] = VD_YKEY("local", REQ, NULL),   /* HOST:PORT */
    [UDP_REMOTE] = VD_YKEY("remote", REQ, NULL), /* HOST:PORT */
    [UDP_PAYLOAD] = VD_YKEY_RANGE("max_payload", 0, "byte", 75, 65507),
    [UDP_ANY] = VD_YKEY("any_source", 0, NULL),
};

enum {
    SC_IF,
    SC_CONF,
    SC_BITRATE,
    SC_SP,
    SC_DBITRATE,
    SC_DSP,
    SC_TXQ,
    SC_RESTART,
    SC_RESTART_MS,
    SC_HOLDOFF,
    SC_POLL,
    SC_LOOPBACK,
    SC_RECVOWN,
    SC_N
};
static const struct vd_ykey scan_keys[SC_N] = {
    [SC_IF] = VD_YKEY("interface", REQ, NULL), /* at most 15 characters (IFNAMSIZ) */
    [SC_CONF] = VD_YKEY("configure", 0, NULL),
    [SC_BITRATE] = VD_YKEY_RANGE("bitrate", 0, "bit/s", 0, 1e6),
    [SC_SP] = VD_YKEY_RANGE("sample_point", 0, "1/1000", 0, 999),
    [SC_DBITRATE] = VD_YKEY_RANGE("data_bitrate", 0, "bit/s", 0, 16e6),
    [SC_DSP] = VD_YKEY_RANGE("data_sample_point", 0, "1/1000", 0, 999),
    [SC_TXQ] = VD_YKEY_RANGE("txqueuelen", 0, "frames", -1, 1e6),
    [SC_RESTART] = VD_YKEY("restart", 0, NULL),
    [SC_RESTART_MS] = VD_YKEY_RANGE("restart_ms", 0, "ms", 0, 1e6),
    [SC_HOLDOFF] = VD_YKEY_RANGE("restart_holdoff_ms", 0, "ms", 0, 1e6),
    [SC_POLL] = VD_YKEY_RANGE("state_poll_ms", 0, "ms", 0, 1e6),
    [SC_LOOPBACK] = VD_YKEY("loopback", 0, NULL),
    [SC_RECVOWN] = VD_YKEY("recv_own", 0, NULL),
};
static const char *const restart_names[] = {
    [VD_CANDESC_RESTART_AUTO] = "auto",
    [VD_CANDESC_RESTART_MANUAL] = "manual",
    [VD_CANDESC_RESTART_NONE] = "none",
};

enum {
    MSG_MESSAGE,
    MSG_ID,
    MSG_EXT,
    MSG_BUS,
    MSG_CYCLE,
    MSG_PHASE,
    MSG_TIMEOUT,
    MSG_E2E,
    MSG_SIGS,
    MSG_N
};
static const struct vd_ykey msg_keys[MSG_N] = {
    [MSG_MESSAGE] = VD_YKEY("message", 0, NULL), /* DBC message name */
    [MSG_ID] = VD_YKEY("id", 0, NULL),           /* or its identifier (decimal or 0x hex) */
    [MSG_EXT] = VD_YKEY("extended", 0, NULL),    /* with id: a 29-bit identifier */
    [MSG_BUS] = VD_YKEY("bus", 0, NULL),         /* bus name; required with several buses */
    [MSG_CYCLE] = VD_YKEY_RANGE("cycle_ms", 0, "ms", 1, 100000),
    [MSG_PHASE] = VD_YKEY_RANGE("phase_ms", 0, "ms", 0, 99999),
    [MSG_TIMEOUT] = VD_YKEY_RANGE("timeout_ms", 0, "ms", 0, 1e6),
    [MSG_E2E] = VD_YKEY("e2e", 0, NULL),
    [MSG_SIGS] = VD_YKEY("signals", REQ, NULL), /* sequence, 1..64 */
};

enum {
    E2E_PROFILE,
    E2E_DATA_ID,
    E2E_ID_LIST,
    E2E_MODE,
    E2E_COUNTER,
    E2E_CRC,
    E2E_CRC_OFF,
    E2E_CNT_OFF,
    E2E_NIB_OFF,
    E2E_OFFSET,
    E2E_LENGTH,
    E2E_MAXDELTA,
    E2E_N
};
static const struct vd_ykey e2e_keys[E2E_N] = {
    [E2E_PROFILE] = VD_YKEY("profile", REQ, NULL),
    [E2E_DATA_ID] = VD_YKEY("data_id", 0, NULL),      /* 0..0xFFFF */
    [E2E_ID_LIST] = VD_YKEY("data_id_list", 0, NULL), /* P02: 16 values 0..0xFF */
    [E2E_MODE] = VD_YKEY("mode", 0, NULL),
    [E2E_COUNTER] = VD_YKEY("counter", 0, NULL), /* DBC signal */
    [E2E_CRC] = VD_YKEY("crc", 0, NULL),         /* DBC signal */
    [E2E_CRC_OFF] = VD_YKEY_RANGE("crc_offset", 0, "bit", 0, 504),
    [E2E_CNT_OFF] = VD_YKEY_RANGE("counter_offset", 0, "bit", 0, 508),
    [E2E_NIB_OFF] = VD_YKEY_RANGE("nibble_offset", 0, "bit", 0, 508),
    [E2E_OFFSET] = VD_YKEY_RANGE("offset", 0, "bit", 0, 488),
    [E2E_LENGTH] = VD_YKEY_RANGE("data_length", 0, "bit", 16, 512),
    [E2E_MAXDELTA] = VD_YKEY_RANGE("max_delta_counter", 0, "counts", 1, 255),
};
static const char *const profile_names[] = {[VD_CANDESC_E2E_NONE] = "none",
                                            [VD_CANDESC_E2E_P01] = "P01",
                                            [VD_CANDESC_E2E_P02] = "P02",
                                            [VD_CANDESC_E2E_P05] = "P05"};
static const char *const mode_names[] = {[VD_CANDESC_P01_BOTH] = "both",
                                         [VD_CANDESC_P01_ALT] = "alt",
                                         [VD_CANDESC_P01_LOW] = "low",
                                         [VD_CANDESC_P01_NIBBLE] = "nibble"};

enum {
    SIG_SIGNAL,
    SIG_INPUT,
    SIG_OUTPUT,
    SIG_VALUE,
    SIG_UNIT,
    SIG_SCALE,
    SIG_OFFSET,
    SIG_RANGE,
    SIG_SAFE,
    SIG_N
};
static const struct vd_ykey sig_keys[SIG_N] = {
    [SIG_SIGNAL] = VD_YKEY("signal", REQ, NULL), /* DBC signal */
    [SIG_INPUT] = VD_YKEY("input", 0, NULL),     /* rx: model input name */
    [SIG_OUTPUT] = VD_YKEY("output", 0, NULL),   /* tx: output signal name */
    [SIG_VALUE] = VD_YKEY("value", 0, "DBC unit"),
    [SIG_UNIT] = VD_YKEY("unit", 0, NULL),
    [SIG_SCALE] = VD_YKEY("scale", 0, "model unit per SI DBC unit"),
    [SIG_OFFSET] = VD_YKEY("offset", 0, "model unit"),
    [SIG_RANGE] = VD_YKEY("range", 0, "DBC unit"),
    [SIG_SAFE] = VD_YKEY("safe", 0, "model unit"), /* a number or hold */
};

/* booleans: index % 2 is the value */
static const char *const bool_names[] = {"false", "true", "no", "yes", "off", "on"};

/* --- helpers ----------------------------------------------------------------------------- */

struct ld {
    struct vd_ydoc *y;
    struct vd_candesc *c;
    const char *basedir;
    int role;
    int sig_cap;
};

static void pos(const yaml_node_t *n, int *line, int *col)
{
    *line = n ? (int)n->start_mark.line + 1 : 1;
    *col = n ? (int)n->start_mark.column + 1 : 1;
}

static void read_bool(struct vd_ydoc *y, const yaml_node_t *node, const char *parent,
                      const struct vd_ykey *k, bool *out)
{
    int i;

    if (node && !vd_ydoc_enum(y, node, parent, k, bool_names, COUNT(bool_names), &i))
        *out = i % 2;
}

/* a boolean into -1 (absent), 0 or 1 */
static void read_tri(struct vd_ydoc *y, const yaml_node_t *node, const char *parent,
                     const struct vd_ykey *k, int *out)
{
    bool b = false;

    if (!node)
        return;
    read_bool(y, node, parent, k, &b);
    *out = b;
}

static void read_i32(struct vd_ydoc *y, const yaml_node_t *node, const char *parent,
                     const struct vd_ykey *k, int32_t *out)
{
    int v;

    if (node && !vd_ydoc_int(y, node, parent, k, &v))
        *out = v;
}

static const char *text_of(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

/* an unsigned integer, decimal or 0x hex, in [0, max] */
static int read_uint(struct vd_ydoc *y, const yaml_node_t *node, const char *path,
                     unsigned long max, unsigned long *out)
{
    const char *s;
    char *end;
    unsigned long v;
    int base = 10;

    if (node->type != YAML_SCALAR_NODE || node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
        !node->data.scalar.length) {
        vd_ydoc_error(y, node, "%s: expected an integer (decimal or 0x hex)", path);
        return -EINVAL;
    }
    s = text_of(node);
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    errno = 0;
    v = strtoul(s, &end, base);
    if (!*s || *end || errno || *s == '-' || *s == '+' || *s == ' ') {
        vd_ydoc_error(y, node, "%s: '%s' is not an integer (decimal or 0x hex)", path,
                      text_of(node));
        return -EINVAL;
    }
    if (v > max) {
        vd_ydoc_error(y, node, "%s: %s must be <= 0x%lX (%lu)", path, text_of(node), max, max);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

static bool name_ok(const char *s)
{
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '.' || *s == '-'))
            return false;
    return true;
}

/* "host:port" or "[v6]:port" into host and port (1..65535); false if malformed */
static bool hostport(const char *s, char *host, size_t hsize, int32_t *port)
{
    const char *colon = strrchr(s, ':'), *h = s;
    size_t hl;
    char *end;
    long p;

    if (!colon)
        return false;
    hl = (size_t)(colon - s);
    if (s[0] == '[') {
        if (hl < 2 || s[hl - 1] != ']')
            return false;
        h = s + 1;
        hl -= 2;
    } else if (memchr(s, ':', hl)) {
        return false; /* a bare IPv6 address needs brackets */
    }
    if (hl >= hsize)
        return false;
    errno = 0;
    p = strtol(colon + 1, &end, 10);
    if (errno || end == colon + 1 || *end || p < 1 || p > 65535)
        return false;
    memcpy(host, h, hl);
    host[hl] = '\0';
    *port = (int32_t)p;
    return true;
}

/* a path relative to basedir (absolute ones as given); 0 or -ENAMETOOLONG */
static int resolve(char *out, size_t size, const char *basedir, const char *rel)
{
    int n;

    if (rel[0] == '/' || !basedir || !*basedir)
        n = snprintf(out, size, "%s", rel);
    else
        n = snprintf(out, size, "%s/%s", basedir, rel);
    return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* --- buses ------------------------------------------------------------------------------- */

static void load_udp(struct ld *L, const yaml_node_t *node, const char *path,
                     struct vd_candesc_bus *b)
{
    struct vd_ydoc *y = L->y;
    yaml_node_t *v[UDP_N];
    char buf[96], p[VD_YPATH_MAX];

    vd_ypath(p, path, "udp");
    vd_ydoc_map(y, node, p, udp_keys, UDP_N, v);
    for (int k = UDP_LOCAL; k <= UDP_REMOTE; k++) {
        char *host = k == UDP_LOCAL ? b->local_host : b->remote_host;
        int32_t *port = k == UDP_LOCAL ? &b->local_port : &b->remote_port;

        if (!v[k] || vd_ydoc_string(y, v[k], p, &udp_keys[k], buf, sizeof(buf)))
            continue;
        if (!hostport(buf, host, sizeof(b->local_host), port))
            vd_ydoc_error(y, v[k], "%s.%s: '%s' is not HOST:PORT (e.g. 127.0.0.1:20000)", p,
                          udp_keys[k].key, buf);
    }
    read_i32(y, v[UDP_PAYLOAD], p, &udp_keys[UDP_PAYLOAD], &b->udp_max_payload);
    read_tri(y, v[UDP_ANY], p, &udp_keys[UDP_ANY], &b->udp_any_source);
    /* the ECU is the other end: it binds the target's remote and sends to its local */
    if (L->role == VD_CANDESC_ECU) {
        char host[sizeof(b->local_host)];
        int32_t port = b->local_port;

        memcpy(host, b->local_host, sizeof(host));
        memcpy(b->local_host, b->remote_host, sizeof(host));
        b->local_port = b->remote_port;
        memcpy(b->remote_host, host, sizeof(host));
        b->remote_port = port;
    }
}

static void load_socketcan(struct ld *L, const yaml_node_t *node, const char *path,
                           struct vd_candesc_bus *b)
{
    struct vd_ydoc *y = L->y;
    yaml_node_t *v[SC_N];
    char p[VD_YPATH_MAX];

    vd_ypath(p, path, "socketcan");
    vd_ydoc_map(y, node, p, scan_keys, SC_N, v);
    vd_ydoc_string(y, v[SC_IF], p, &scan_keys[SC_IF], b->ifname, sizeof(b->ifname));
    read_tri(y, v[SC_CONF], p, &scan_keys[SC_CONF], &b->configure);
    read_i32(y, v[SC_BITRATE], p, &scan_keys[SC_BITRATE], &b->bitrate);
    read_i32(y, v[SC_SP], p, &scan_keys[SC_SP], &b->sample_point);
    read_i32(y, v[SC_DBITRATE], p, &scan_keys[SC_DBITRATE], &b->dbitrate);
    read_i32(y, v[SC_DSP], p, &scan_keys[SC_DSP], &b->dsample_point);
    read_i32(y, v[SC_TXQ], p, &scan_keys[SC_TXQ], &b->txqueuelen);
    vd_ydoc_enum(y, v[SC_RESTART], p, &scan_keys[SC_RESTART], restart_names, COUNT(restart_names),
                 &b->restart);
    read_i32(y, v[SC_RESTART_MS], p, &scan_keys[SC_RESTART_MS], &b->restart_ms);
    read_i32(y, v[SC_HOLDOFF], p, &scan_keys[SC_HOLDOFF], &b->restart_holdoff_ms);
    read_i32(y, v[SC_POLL], p, &scan_keys[SC_POLL], &b->state_poll_ms);
    read_tri(y, v[SC_LOOPBACK], p, &scan_keys[SC_LOOPBACK], &b->loopback);
    read_tri(y, v[SC_RECVOWN], p, &scan_keys[SC_RECVOWN], &b->recv_own);
    if ((v[SC_DBITRATE] || v[SC_DSP]) && !b->fd)
        vd_ydoc_error(y, v[SC_DBITRATE] ? v[SC_DBITRATE] : v[SC_DSP],
                      "%s: the data phase needs fd: true on the bus", p);
}

static int load_bus(struct ld *L, const yaml_node_t *node, int i)
{
    struct vd_ydoc *y = L->y;
    struct vd_candesc_bus *b = &L->c->bus[i];
    yaml_node_t *v[BUS_N];
    char path[VD_YPATH_MAX], rel[VD_CANDESC_PATH_MAX];
    int rc;

    *b = (struct vd_candesc_bus){
        .kind = VD_CANDESC_UDP,
        .rcvbuf = VD_CANDESC_UNSET,
        .sndbuf = VD_CANDESC_UNSET,
        .tx_wait_us = VD_CANDESC_UNSET,
        .configure = -1,
        .bitrate = VD_CANDESC_UNSET,
        .sample_point = VD_CANDESC_UNSET,
        .dbitrate = VD_CANDESC_UNSET,
        .dsample_point = VD_CANDESC_UNSET,
        .txqueuelen = VD_CANDESC_UNSET,
        .restart = VD_CANDESC_UNSET,
        .restart_ms = VD_CANDESC_UNSET,
        .restart_holdoff_ms = VD_CANDESC_UNSET,
        .state_poll_ms = VD_CANDESC_UNSET,
        .loopback = -1,
        .recv_own = -1,
        .local_port = VD_CANDESC_UNSET,
        .remote_port = VD_CANDESC_UNSET,
        .udp_max_payload = VD_CANDESC_UNSET,
        .udp_any_source = -1,
    };
    pos(node, &b->line, &b->col);
    vd_ypath_index(path, "buses", i);
    if (vd_ydoc_map(y, node, path, bus_keys, BUS_N, v) && !v[BUS_NAME])
        return 0;
    if (v[BUS_NAME] &&
        !vd_ydoc_string(y, v[BUS_NAME], path, &bus_keys[BUS_NAME], b->name, sizeof(b->name))) {
        if (!name_ok(b->name))
            vd_ydoc_error(y, v[BUS_NAME],
                          "%s.name: '%s' may only contain letters, digits, '_', '.', '-'", path,
                          b->name);
        for (int j = 0; j < i; j++)
            if (!strcmp(L->c->bus[j].name, b->name))
                vd_ydoc_error(y, v[BUS_NAME], "%s.name: duplicate bus name '%s' (line %d)", path,
                              b->name, L->c->bus[j].line);
    }
    read_bool(y, v[BUS_FD], path, &bus_keys[BUS_FD], &b->fd);
    read_i32(y, v[BUS_RCVBUF], path, &bus_keys[BUS_RCVBUF], &b->rcvbuf);
    read_i32(y, v[BUS_SNDBUF], path, &bus_keys[BUS_SNDBUF], &b->sndbuf);
    read_i32(y, v[BUS_TXWAIT], path, &bus_keys[BUS_TXWAIT], &b->tx_wait_us);
    if (v[BUS_UDP] && v[BUS_SCAN]) {
        vd_ydoc_error(y, v[BUS_SCAN], "%s: give one transport, udp or socketcan, not both", path);
    } else if (v[BUS_UDP]) {
        b->kind = VD_CANDESC_UDP;
        load_udp(L, v[BUS_UDP], path, b);
    } else if (v[BUS_SCAN]) {
        b->kind = VD_CANDESC_SOCKETCAN;
        load_socketcan(L, v[BUS_SCAN], path, b);
    } else {
        vd_ydoc_error(y, node,
                      "%s: missing transport: give udp: {local, remote} or socketcan: "
                      "{interface}",
                      path);
    }
    /* the DBC file, read now (io/dbc.h parses it) */
    if (!v[BUS_DBC] || vd_ydoc_string(y, v[BUS_DBC], path, &bus_keys[BUS_DBC], rel, sizeof(rel)))
        return 0;
    if (resolve(b->dbc_path, sizeof(b->dbc_path), L->basedir, rel)) {
        vd_ydoc_error(y, v[BUS_DBC], "%s.dbc: path too long", path);
        return 0;
    }
    rc = vd_cfg_read(b->dbc_path, &b->dbc_text, &b->dbc_len);
    if (rc == -ENOMEM)
        return rc;
    if (rc)
        vd_ydoc_error(y, v[BUS_DBC], "%s.dbc: cannot read '%s': %s", path, b->dbc_path,
                      vd_cfg_strerror(rc));
    return 0;
}

/* --- messages ---------------------------------------------------------------------------- */

static void load_e2e(struct ld *L, const yaml_node_t *node, const char *parent,
                     struct vd_candesc_e2e *e)
{
    struct vd_ydoc *y = L->y;
    yaml_node_t *v[E2E_N];
    char path[VD_YPATH_MAX], p[VD_YPATH_MAX];
    unsigned long u;

    vd_ypath(path, parent, "e2e");
    if (vd_ydoc_map(y, node, path, e2e_keys, E2E_N, v) && !v[E2E_PROFILE])
        return;
    if (vd_ydoc_enum(y, v[E2E_PROFILE], path, &e2e_keys[E2E_PROFILE], profile_names + 1,
                     COUNT(profile_names) - 1, &e->profile))
        return;
    e->profile++; /* "none" is not written */
    /* keys that belong to other profiles */
    {
        static const struct {
            int key;
            unsigned profiles; /* bit p: used by profile p */
        } use[] = {
            {E2E_DATA_ID, 1u << VD_CANDESC_E2E_P01 | 1u << VD_CANDESC_E2E_P05},
            {E2E_ID_LIST, 1u << VD_CANDESC_E2E_P02},
            {E2E_MODE, 1u << VD_CANDESC_E2E_P01},
            {E2E_CRC_OFF, 1u << VD_CANDESC_E2E_P01},
            {E2E_CNT_OFF, 1u << VD_CANDESC_E2E_P01},
            {E2E_NIB_OFF, 1u << VD_CANDESC_E2E_P01},
            {E2E_OFFSET, 1u << VD_CANDESC_E2E_P05},
        };

        for (int i = 0; i < COUNT(use); i++)
            if (v[use[i].key] && !(use[i].profiles & (1u << e->profile)))
                vd_ydoc_error(y, v[use[i].key], "%s.%s: not used by profile %s", path,
                              e2e_keys[use[i].key].key, profile_names[e->profile]);
    }
    if (e->profile != VD_CANDESC_E2E_P02 && !v[E2E_DATA_ID])
        vd_ydoc_error(y, node, "%s: missing required key 'data_id' (profile %s)", path,
                      profile_names[e->profile]);
    if (e->profile == VD_CANDESC_E2E_P02 && !v[E2E_ID_LIST])
        vd_ydoc_error(y, node, "%s: missing required key 'data_id_list' (16 values, profile P02)",
                      path);
    vd_ypath(p, path, "data_id");
    if (v[E2E_DATA_ID] && !read_uint(y, v[E2E_DATA_ID], p, 0xFFFF, &u))
        e->data_id = (int)u;
    if (v[E2E_ID_LIST]) {
        int n = 0;

        vd_ypath(p, path, "data_id_list");
        if (!vd_ydoc_seq(y, v[E2E_ID_LIST], p, 16, &n)) {
            if (n != 16)
                vd_ydoc_error(y, v[E2E_ID_LIST], "%s: expected 16 values, got %d", p, n);
            for (int i = 0; i < n && i < 16; i++) {
                char ip[VD_YPATH_MAX];

                vd_ypath_index(ip, p, i);
                if (!read_uint(y, vd_ydoc_item(y, v[E2E_ID_LIST], i), ip, 0xFF, &u))
                    e->data_id_list[i] = (uint8_t)u;
            }
        }
    }
    vd_ydoc_enum(y, v[E2E_MODE], path, &e2e_keys[E2E_MODE], mode_names, COUNT(mode_names),
                 &e->mode);
    if (v[E2E_DATA_ID] && e->mode == VD_CANDESC_P01_NIBBLE && e->data_id > 0xFFF)
        vd_ydoc_error(y, v[E2E_DATA_ID], "%s.data_id: nibble mode takes at most 0xFFF", path);
    vd_ydoc_string(y, v[E2E_COUNTER], path, &e2e_keys[E2E_COUNTER], e->counter, sizeof(e->counter));
    vd_ydoc_string(y, v[E2E_CRC], path, &e2e_keys[E2E_CRC], e->crc, sizeof(e->crc));
    vd_ydoc_int(y, v[E2E_CRC_OFF], path, &e2e_keys[E2E_CRC_OFF], &e->crc_offset);
    vd_ydoc_int(y, v[E2E_CNT_OFF], path, &e2e_keys[E2E_CNT_OFF], &e->counter_offset);
    vd_ydoc_int(y, v[E2E_NIB_OFF], path, &e2e_keys[E2E_NIB_OFF], &e->nibble_offset);
    vd_ydoc_int(y, v[E2E_OFFSET], path, &e2e_keys[E2E_OFFSET], &e->offset);
    if (!vd_ydoc_int(y, v[E2E_LENGTH], path, &e2e_keys[E2E_LENGTH], &e->data_length) &&
        v[E2E_LENGTH] && e->data_length % 8)
        vd_ydoc_error(y, v[E2E_LENGTH], "%s.data_length: %d is not a multiple of 8", path,
                      e->data_length);
    vd_ydoc_int(y, v[E2E_MAXDELTA], path, &e2e_keys[E2E_MAXDELTA], &e->max_delta_counter);
    if (v[E2E_MAXDELTA]) {
        const int lim = e->profile == VD_CANDESC_E2E_P01   ? 14
                        : e->profile == VD_CANDESC_E2E_P02 ? 15
                                                           : 255;

        if (e->max_delta_counter > lim)
            vd_ydoc_error(y, v[E2E_MAXDELTA], "%s.max_delta_counter: %d exceeds %d (profile %s)",
                          path, e->max_delta_counter, lim, profile_names[e->profile]);
    }
}

static int load_sig(struct ld *L, const yaml_node_t *node, const char *parent, int dir, int k)
{
    struct vd_ydoc *y = L->y;
    struct vd_candesc_sig *s;
    yaml_node_t *v[SIG_N];
    char path[VD_YPATH_MAX];
    const int model_key = dir == VD_CANDESC_RX ? SIG_INPUT : SIG_OUTPUT;
    const int other_key = dir == VD_CANDESC_RX ? SIG_OUTPUT : SIG_INPUT;

    if (L->c->nsig == L->sig_cap) {
        int cap = L->sig_cap ? 2 * L->sig_cap : 32;
        struct vd_candesc_sig *p = realloc(L->c->sig, (size_t)cap * sizeof(*p));

        if (!p)
            return -ENOMEM;
        L->c->sig = p;
        L->sig_cap = cap;
    }
    s = &L->c->sig[L->c->nsig++];
    *s = (struct vd_candesc_sig){
        .scale = 1.0,
        .safe = dir == VD_CANDESC_RX ? VD_CANDESC_SAFE_VALUE : VD_CANDESC_SAFE_HOLD,
    };
    pos(node, &s->line, &s->col);
    vd_ypath_index(path, parent, k);
    if (vd_ydoc_map(y, node, path, sig_keys, SIG_N, v) && !v[SIG_SIGNAL])
        return 0;
    vd_ydoc_string(y, v[SIG_SIGNAL], path, &sig_keys[SIG_SIGNAL], s->signal, sizeof(s->signal));
    if (v[other_key])
        vd_ydoc_error(y, v[other_key], "%s.%s: %s signals name an `%s`", path,
                      sig_keys[other_key].key, dir == VD_CANDESC_RX ? "rx" : "tx",
                      sig_keys[model_key].key);
    vd_ydoc_string(y, v[model_key], path, &sig_keys[model_key], s->name, sizeof(s->name));
    if (v[SIG_VALUE]) {
        s->has_value = !vd_ydoc_number(y, v[SIG_VALUE], path, &sig_keys[SIG_VALUE], &s->value);
        if (v[model_key])
            vd_ydoc_error(y, v[SIG_VALUE], "%s.value: a constant has no %s", path,
                          sig_keys[model_key].key);
        for (int kk = SIG_UNIT; kk <= SIG_SAFE; kk++)
            if (v[kk] && kk != SIG_RANGE)
                vd_ydoc_error(y, v[kk], "%s.%s: not used by a constant (value)", path,
                              sig_keys[kk].key);
    } else if (!v[model_key] && !v[other_key]) {
        vd_ydoc_error(y, node, "%s: missing required key '%s' (or a constant value)", path,
                      sig_keys[model_key].key);
    }
    if (v[SIG_UNIT]) {
        /* "" is a unit too: dimensionless */
        if (v[SIG_UNIT]->type == YAML_SCALAR_NODE && !v[SIG_UNIT]->data.scalar.length &&
            v[SIG_UNIT]->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
            s->has_unit = true;
        else
            s->has_unit = !vd_ydoc_string(y, v[SIG_UNIT], path, &sig_keys[SIG_UNIT], s->unit,
                                          sizeof(s->unit));
    }
    vd_ydoc_number(y, v[SIG_SCALE], path, &sig_keys[SIG_SCALE], &s->scale);
    if (v[SIG_SCALE] && s->scale == 0.0)
        vd_ydoc_error(y, v[SIG_SCALE], "%s.scale: must not be 0", path);
    vd_ydoc_number(y, v[SIG_OFFSET], path, &sig_keys[SIG_OFFSET], &s->offset);
    if (v[SIG_RANGE] &&
        !vd_ydoc_vec(y, v[SIG_RANGE], path, &sig_keys[SIG_RANGE], 2, 2, s->range, NULL)) {
        s->has_range = true;
        if (!(s->range[0] < s->range[1]))
            vd_ydoc_error(y, v[SIG_RANGE], "%s.range: [%g, %g] must have lo < hi", path,
                          s->range[0], s->range[1]);
    }
    if (v[SIG_SAFE]) {
        double x;

        if (v[SIG_SAFE]->type == YAML_SCALAR_NODE && !strcmp(text_of(v[SIG_SAFE]), "hold"))
            s->safe = VD_CANDESC_SAFE_HOLD;
        else if (vd_ydoc_scalar_number(v[SIG_SAFE], &x))
            s->safe = vd_ydoc_number(y, v[SIG_SAFE], path, &sig_keys[SIG_SAFE], &s->safe_value)
                          ? s->safe
                          : VD_CANDESC_SAFE_VALUE;
        else
            vd_ydoc_error(y, v[SIG_SAFE], "%s.safe: expected a number or hold", path);
    }
    return 0;
}

static int load_msg(struct ld *L, const yaml_node_t *node, int dir, int i)
{
    struct vd_ydoc *y = L->y;
    struct vd_candesc_msg *m = &L->c->msg[L->c->nmsg++];
    yaml_node_t *v[MSG_N];
    char path[VD_YPATH_MAX], sp[VD_YPATH_MAX];
    int n = 0, rc;

    *m = (struct vd_candesc_msg){
        .dir = dir,
        .cycle_ms = VD_CANDESC_UNSET,
        .phase_ms = VD_CANDESC_UNSET,
        .timeout_ms = VD_CANDESC_UNSET,
        .e2e = {.profile = VD_CANDESC_E2E_NONE,
                .crc_offset = VD_CANDESC_UNSET,
                .counter_offset = VD_CANDESC_UNSET,
                .nibble_offset = VD_CANDESC_UNSET,
                .offset = VD_CANDESC_UNSET,
                .data_length = VD_CANDESC_UNSET,
                .max_delta_counter = VD_CANDESC_UNSET},
        .sig0 = L->c->nsig,
    };
    pos(node, &m->line, &m->col);
    vd_ypath_index(path, dir == VD_CANDESC_RX ? "rx" : "tx", i);
    if (vd_ydoc_map(y, node, path, msg_keys, MSG_N, v) && !v[MSG_SIGS])
        return 0;
    /* the message: by name or by id */
    if (v[MSG_MESSAGE] && v[MSG_ID])
        vd_ydoc_error(y, v[MSG_ID], "%s: give message or id, not both", path);
    else if (!v[MSG_MESSAGE] && !v[MSG_ID])
        vd_ydoc_error(y, node, "%s: missing required key 'message' (a DBC name) or 'id'", path);
    vd_ydoc_string(y, v[MSG_MESSAGE], path, &msg_keys[MSG_MESSAGE], m->message, sizeof(m->message));
    read_bool(y, v[MSG_EXT], path, &msg_keys[MSG_EXT], &m->ext);
    if (v[MSG_EXT] && !v[MSG_ID])
        vd_ydoc_error(y, v[MSG_EXT], "%s.extended: only used with id", path);
    if (v[MSG_ID]) {
        unsigned long u;

        vd_ypath(sp, path, "id");
        if (!read_uint(y, v[MSG_ID], sp, m->ext ? 0x1FFFFFFFul : 0x7FFul, &u))
            m->id = (uint32_t)u;
    }
    /* the bus: by name; the only one when there is one */
    if (v[MSG_BUS]) {
        char name[32];

        m->bus = -1;
        if (!vd_ydoc_string(y, v[MSG_BUS], path, &msg_keys[MSG_BUS], name, sizeof(name))) {
            for (int b = 0; b < L->c->nbus; b++)
                if (!strcmp(L->c->bus[b].name, name))
                    m->bus = b;
            if (m->bus < 0)
                vd_ydoc_error(y, v[MSG_BUS], "%s.bus: no bus named '%s'", path, name);
        }
        if (m->bus < 0)
            m->bus = 0;
    } else if (L->c->nbus > 1) {
        vd_ydoc_error(y, node, "%s: missing required key 'bus' (there are %d buses)", path,
                      L->c->nbus);
    }
    vd_ydoc_int(y, v[MSG_CYCLE], path, &msg_keys[MSG_CYCLE], &m->cycle_ms);
    vd_ydoc_int(y, v[MSG_PHASE], path, &msg_keys[MSG_PHASE], &m->phase_ms);
    if (v[MSG_PHASE] && m->cycle_ms != VD_CANDESC_UNSET && m->phase_ms >= m->cycle_ms)
        vd_ydoc_error(y, v[MSG_PHASE], "%s.phase_ms: %d must be < cycle_ms %d", path, m->phase_ms,
                      m->cycle_ms);
    vd_ydoc_int(y, v[MSG_TIMEOUT], path, &msg_keys[MSG_TIMEOUT], &m->timeout_ms);
    if (v[MSG_E2E])
        load_e2e(L, v[MSG_E2E], path, &m->e2e);
    /* signals */
    vd_ypath(sp, path, "signals");
    if (!v[MSG_SIGS] || vd_ydoc_seq(y, v[MSG_SIGS], sp, 1, &n))
        return 0;
    if (n > MAX_SIG) {
        vd_ydoc_error(y, v[MSG_SIGS], "%s: %d signals, at most %d", sp, n, MAX_SIG);
        n = MAX_SIG;
    }
    for (int k = 0; k < n; k++) {
        rc = load_sig(L, vd_ydoc_item(y, v[MSG_SIGS], k), sp, dir, k);
        if (rc)
            return rc;
    }
    m->nsig = L->c->nsig - m->sig0;
    return 0;
}

/* --- entry points ------------------------------------------------------------------------ */

void vd_cfg_canmap_free(struct vd_candesc *c)
{
    if (!c)
        return;
    for (int i = 0; c->bus && i < c->nbus; i++)
        free(c->bus[i].dbc_text);
    free(c->bus);
    free(c->msg);
    free(c->sig);
    free(c);
}

static int load_doc(struct ld *L, yaml_node_t *root)
{
    struct vd_ydoc *y = L->y;
    struct vd_candesc *c = L->c;
    yaml_node_t *top[TOP_N];
    int nb = 0, nrx = 0, ntx = 0, rc;

    if (vd_ydoc_map(y, root, "", top_keys, TOP_N, top) && !top[TOP_BUSES])
        return 0;
    vd_ydoc_string(y, top[TOP_NAME], "", &top_keys[TOP_NAME], c->name, sizeof(c->name));
    vd_ydoc_number(y, top[TOP_TFACTOR], "", &top_keys[TOP_TFACTOR], &c->timeout_factor);
    read_bool(y, top[TOP_STRICT], "", &top_keys[TOP_STRICT], &c->strict_dbc);
    if (vd_ydoc_seq(y, top[TOP_BUSES], "buses", 1, &nb))
        return 0;
    if (nb > MAX_BUS) {
        vd_ydoc_error(y, top[TOP_BUSES], "buses: %d buses, at most %d", nb, MAX_BUS);
        nb = MAX_BUS;
    }
    if (top[TOP_RX] && vd_ydoc_seq(y, top[TOP_RX], "rx", 0, &nrx))
        nrx = 0;
    if (top[TOP_TX] && vd_ydoc_seq(y, top[TOP_TX], "tx", 0, &ntx))
        ntx = 0;
    if (nrx > MAX_MSG || ntx > MAX_MSG) {
        vd_ydoc_error(y, top[nrx > MAX_MSG ? TOP_RX : TOP_TX], "%s: more than %d messages",
                      nrx > MAX_MSG ? "rx" : "tx", MAX_MSG);
        nrx = nrx > MAX_MSG ? MAX_MSG : nrx;
        ntx = ntx > MAX_MSG ? MAX_MSG : ntx;
    }
    if (!nrx && !ntx)
        vd_ydoc_error(y, root, "no messages: give rx and/or tx");
    c->bus = calloc((size_t)nb, sizeof(*c->bus));
    c->msg = calloc((size_t)(nrx + ntx) + 1, sizeof(*c->msg));
    if (!c->bus || !c->msg)
        return -ENOMEM;
    c->nbus = nb;
    for (int i = 0; i < nb; i++) {
        rc = load_bus(L, vd_ydoc_item(y, top[TOP_BUSES], i), i);
        if (rc)
            return rc;
    }
    for (int i = 0; i < nrx; i++) {
        rc = load_msg(L, vd_ydoc_item(y, top[TOP_RX], i), VD_CANDESC_RX, i);
        if (rc)
            return rc;
    }
    for (int i = 0; i < ntx; i++) {
        rc = load_msg(L, vd_ydoc_item(y, top[TOP_TX], i), VD_CANDESC_TX, i);
        if (rc)
            return rc;
    }
    return 0;
}

struct vd_candesc *vd_cfg_load_canmap_mem(const char *name, const char *text, size_t len,
                                          const char *basedir, int role, FILE *errf)
{
    struct vd_candesc *c = calloc(1, sizeof(*c));
    struct ld L = {.basedir = basedir, .role = role};
    yaml_node_t *root = NULL;
    bool ok = false;

    if (!c)
        goto out_nomem;
    L.c = c;
    c->role = role;
    c->timeout_factor = 3.0;
    snprintf(c->file, sizeof(c->file), "%s", name);
    {
        const char *base = strrchr(name, '/'), *dot;
        size_t n;

        base = base ? base + 1 : name;
        dot = strrchr(base, '.');
        n = dot ? (size_t)(dot - base) : strlen(base);
        snprintf(c->name, sizeof(c->name), "%.*s", (int)(n < sizeof(c->name) ? n : 63), base);
    }
    L.y = vd_ydoc_new(name, text, len);
    if (!L.y)
        goto out_nomem;
    if (role != VD_CANDESC_TARGET && role != VD_CANDESC_ECU)
        vd_ydoc_error_mark(L.y, (yaml_mark_t){0, 0, 0}, "internal: unknown role %d", role);
    else if (vd_ydoc_parse(L.y) == 0)
        root = vd_ydoc_root(L.y);
    if (root && !vd_ydoc_errors(L.y) && load_doc(&L, root))
        goto out_nomem;
    ok = root && !vd_ydoc_errors(L.y);
    if (errf && vd_ydoc_errors(L.y))
        vd_ydoc_print(L.y, errf);
    vd_ydoc_free(L.y);
    if (!ok) {
        vd_cfg_canmap_free(c);
        return NULL;
    }
    return c;

out_nomem:
    if (errf)
        fprintf(errf, "%s: error: out of memory\n", name);
    vd_ydoc_free(L.y);
    vd_cfg_canmap_free(c);
    return NULL;
}

struct vd_candesc *vd_cfg_load_canmap(const char *path, int role, FILE *errf)
{
    struct vd_candesc *c;
    char dir[VD_CANDESC_PATH_MAX];
    char *text = NULL;
    size_t len = 0;
    int rc;

    rc = vd_cfg_read_or_say(path, &text, &len, errf);
    if (rc)
        return NULL;
    c = vd_cfg_load_canmap_mem(path, text, len, vd_cfg_dirname(dir, sizeof(dir), path), role, errf);
    free(text);
    return c;
}
