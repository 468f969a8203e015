/* io/can.c - CAN transport: config, dispatch to the backends, the TX policy, receive-side
 * bookkeeping (kernel drops, time stamps, error frames, bus state, filters) and the counters.
 * The backends are can_socketcan.c and can_udp.c. */
#include <errno.h>
#include <fcntl.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <linux/sock_diag.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/can_priv.h"

/* ---- small helpers ------------------------------------------------------------------------- */

int64_t vd_can_mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t real_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static const char *where(const struct vd_can_bus *b, char *buf, size_t sz)
{
    if (b->cfg.kind == VD_CAN_SOCKETCAN)
        snprintf(buf, sz, "socketcan %s", b->cfg.ifname);
    else
        snprintf(buf, sz, "udp %s:%u", b->cfg.local_host[0] ? b->cfg.local_host : "*",
                 (unsigned)b->cfg.local_port);
    return buf;
}

int vd_can_errf(int r, char *err, size_t errsz, const struct vd_can_bus *b, const char *fmt, ...)
{
    char w[128];
    int k;
    va_list ap;

    if (!err || !errsz)
        return r;
    k = snprintf(err, errsz, "can bus '%s' (%s): ", b->cfg.name, where(b, w, sizeof(w)));
    if (k < 0 || (size_t)k >= errsz)
        return r;
    va_start(ap, fmt);
    vsnprintf(err + k, errsz - (size_t)k, fmt, ap);
    va_end(ap);
    return r;
}

const char *vd_can_kind_name(enum vd_can_kind kind)
{
    switch (kind) {
    case VD_CAN_SOCKETCAN:
        return "socketcan";
    case VD_CAN_UDP:
        return "udp";
    }
    return "?";
}

const char *vd_can_state_name(enum vd_can_bus_state st)
{
    static const char *const names[] = {"ERROR-ACTIVE", "ERROR-WARNING", "ERROR-PASSIVE", "BUS-OFF",
                                        "STOPPED",      "SLEEPING",      "UNKNOWN"};

    if ((unsigned)st < sizeof(names) / sizeof(names[0]))
        return names[st];
    return "?";
}

/* ---- frames --------------------------------------------------------------------------------- */

static bool fd_len_ok(unsigned len)
{
    return len <= 8 || len == 12 || len == 16 || len == 20 || len == 24 || len == 32 || len == 48 ||
           len == 64;
}

bool vd_can_frame_valid(const struct vd_can_frame *f, bool fd_ok)
{
    unsigned fl = f->flags;

    if (fl & ~(unsigned)(VD_CANF_EFF | VD_CANF_RTR | VD_CANF_FD | VD_CANF_BRS | VD_CANF_ESI |
                         VD_CANF_ERR))
        return false;
    if (fl & VD_CANF_ERR) /* id = error classes, 8 data bytes, nothing else */
        return !(fl & ~(unsigned)VD_CANF_ERR) && !(f->id & ~VD_CAN_EFF_MASK) && f->len == 8;
    if (f->id & ~((fl & VD_CANF_EFF) ? VD_CAN_EFF_MASK : VD_CAN_SFF_MASK))
        return false;
    if (fl & VD_CANF_FD)
        return fd_ok && !(fl & VD_CANF_RTR) && fd_len_ok(f->len);
    return !(fl & (VD_CANF_BRS | VD_CANF_ESI)) && f->len <= 8;
}

/* ---- cannelloni v2 codec ------------------------------------------------------------------- */

#define CNL_EFF 0x80000000u
#define CNL_RTR 0x40000000u
#define CNL_ERR 0x20000000u
#define CNL_FD  0x80u
#define CNL_BRS 0x01u
#define CNL_ESI 0x02u

static size_t cnl_frame_size(const struct vd_can_frame *f)
{
    return 5 + ((f->flags & VD_CANF_FD) ? 1u : 0u) + ((f->flags & VD_CANF_RTR) ? 0u : f->len);
}

size_t vd_can_cnl_put(uint8_t *buf, size_t cap, const struct vd_can_frame *f)
{
    size_t off = 0;
    uint32_t id = f->id;

    if (cnl_frame_size(f) > cap)
        return 0;
    if (f->flags & VD_CANF_EFF)
        id |= CNL_EFF;
    if (f->flags & VD_CANF_RTR)
        id |= CNL_RTR;
    if (f->flags & VD_CANF_ERR)
        id |= CNL_ERR;
    buf[off++] = (uint8_t)(id >> 24);
    buf[off++] = (uint8_t)(id >> 16);
    buf[off++] = (uint8_t)(id >> 8);
    buf[off++] = (uint8_t)id;
    if (f->flags & VD_CANF_FD) {
        buf[off++] = (uint8_t)(f->len | CNL_FD);
        buf[off++] = (uint8_t)(((f->flags & VD_CANF_BRS) ? CNL_BRS : 0u) |
                               ((f->flags & VD_CANF_ESI) ? CNL_ESI : 0u));
    } else {
        buf[off++] = f->len;
    }
    if (!(f->flags & VD_CANF_RTR)) {
        memcpy(buf + off, f->data, f->len);
        off += f->len;
    }
    return off;
}

void vd_can_cnl_header(uint8_t *buf, uint8_t seq, uint16_t count)
{
    buf[0] = VD_CNL_VERSION;
    buf[1] = VD_CNL_OP_DATA;
    buf[2] = seq;
    buf[3] = (uint8_t)(count >> 8);
    buf[4] = (uint8_t)count;
}

size_t vd_can_cnl_encode(uint8_t *buf, size_t cap, uint8_t seq, const struct vd_can_frame *f, int n,
                         int *used)
{
    size_t off = VD_CNL_HEADER_SIZE;
    int k = 0;

    *used = 0;
    if (cap < VD_CNL_HEADER_SIZE)
        return 0;
    for (; k < n && k < 0xffff; k++) {
        size_t l = vd_can_cnl_put(buf + off, cap - off, &f[k]);

        if (!l)
            break;
        off += l;
    }
    vd_can_cnl_header(buf, seq, (uint16_t)k);
    *used = k;
    return off;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

enum vd_can_cnl_error vd_can_cnl_check(const uint8_t *buf, size_t len, bool fd_ok, uint16_t *count,
                                       uint8_t *seq)
{
    size_t off = VD_CNL_HEADER_SIZE;
    unsigned n;

    if (len < VD_CNL_HEADER_SIZE)
        return VD_CNL_SHORT;
    if (buf[0] != VD_CNL_VERSION)
        return VD_CNL_VERSION_BAD;
    if (buf[1] != VD_CNL_OP_DATA)
        return VD_CNL_OPCODE;
    n = (unsigned)buf[3] << 8 | buf[4];
    for (unsigned i = 0; i < n; i++) {
        uint32_t id;
        unsigned lb, dl;
        bool fd;

        if (off + 5 > len)
            return VD_CNL_TRUNCATED;
        id = be32(buf + off);
        lb = buf[off + 4];
        off += 5;
        fd = lb & CNL_FD;
        dl = lb & ~CNL_FD;
        if (fd) {
            if (off + 1 > len)
                return VD_CNL_TRUNCATED;
            off++; /* flags: BRS, ESI used; others (FDF) ignored */
        }
        if (id & CNL_ERR) {
            if ((id & CNL_RTR) || fd || dl != 8)
                return VD_CNL_FRAME;
        } else {
            if (!(id & CNL_EFF) && (id & ~(CNL_RTR | VD_CAN_SFF_MASK)))
                return VD_CNL_FRAME;
            if (fd ? (!fd_ok || (id & CNL_RTR) || !fd_len_ok(dl)) : dl > 8)
                return VD_CNL_FRAME;
        }
        if (!(id & CNL_RTR)) {
            if (off + dl > len)
                return VD_CNL_TRUNCATED;
            off += dl;
        }
    }
    if (off != len)
        return VD_CNL_TRAILING;
    *count = (uint16_t)n;
    *seq = buf[2];
    return VD_CNL_OK;
}

void vd_can_cnl_decode(const uint8_t *buf, size_t *off, struct vd_can_frame *f)
{
    size_t o = *off;
    uint32_t id = be32(buf + o);
    unsigned lb = buf[o + 4];

    o += 5;
    memset(f, 0, sizeof(*f));
    f->len = (uint8_t)(lb & ~CNL_FD);
    if (id & CNL_ERR) {
        f->flags = VD_CANF_ERR;
        f->id = id & VD_CAN_EFF_MASK;
    } else {
        f->flags =
            (uint8_t)(((id & CNL_EFF) ? VD_CANF_EFF : 0u) | ((id & CNL_RTR) ? VD_CANF_RTR : 0u));
        f->id = id & ((id & CNL_EFF) ? VD_CAN_EFF_MASK : VD_CAN_SFF_MASK);
    }
    if (lb & CNL_FD) {
        unsigned fl = buf[o++];

        f->flags = (uint8_t)(f->flags | VD_CANF_FD | ((fl & CNL_BRS) ? VD_CANF_BRS : 0u) |
                             ((fl & CNL_ESI) ? VD_CANF_ESI : 0u));
    }
    if (!(id & CNL_RTR)) {
        memcpy(f->data, buf + o, f->len);
        o += f->len;
    }
    *off = o;
}

/* ---- config ---------------------------------------------------------------------------------- */

void vd_can_cfg_init(struct vd_can_cfg *cfg, enum vd_can_kind kind)
{
    memset(cfg, 0, sizeof(*cfg));
    snprintf(cfg->name, sizeof(cfg->name), "can");
    cfg->kind = kind;
    snprintf(cfg->ifname, sizeof(cfg->ifname), "vcan0");
    cfg->txqueuelen = -1;
    cfg->restart = VD_CAN_RESTART_AUTO;
    cfg->restart_ms = 100;
    cfg->restart_holdoff_ms = 1000;
    cfg->state_poll_ms = 100;
    cfg->err_mask = VD_CAN_ERR_DEFAULT;
    cfg->loopback = true;
    cfg->tstamp = VD_CAN_TSTAMP_SOFTWARE;
    snprintf(cfg->local_host, sizeof(cfg->local_host), "127.0.0.1");
    cfg->local_port = 20000;
    snprintf(cfg->remote_host, sizeof(cfg->remote_host), "127.0.0.1");
    cfg->remote_port = 20001;
    cfg->udp_max_payload = 1472;
}

int vd_can_parse_hostport(const char *s, char *host, size_t hostsz, uint16_t *port, char *err,
                          size_t errsz)
{
    const char *colon, *h = s, *p;
    size_t hl;
    char *end;
    unsigned long v;

    if (s[0] == '[') { /* [v6]:port */
        const char *rb = strchr(s, ']');

        if (!rb || rb[1] != ':') {
            snprintf(err, errsz, "'%s': expected [address]:port", s);
            return -EINVAL;
        }
        h = s + 1;
        hl = (size_t)(rb - h);
        p = rb + 2;
    } else {
        colon = strrchr(s, ':');
        if (!colon) {
            snprintf(err, errsz, "'%s': expected host:port", s);
            return -EINVAL;
        }
        if (strchr(s, ':') != colon) {
            snprintf(err, errsz, "'%s': an IPv6 address goes in brackets: [address]:port", s);
            return -EINVAL;
        }
        hl = (size_t)(colon - s);
        p = colon + 1;
    }
    if (hl >= hostsz) {
        snprintf(err, errsz, "'%s': host longer than %zu characters", s, hostsz - 1);
        return -EINVAL;
    }
    errno = 0;
    v = strtoul(p, &end, 10);
    if (!*p || *end || errno || v > 65535 || *p == '-' || *p == '+') {
        snprintf(err, errsz, "'%s': port '%s' is not an integer in [0, 65535]", s, p);
        return -EINVAL;
    }
    memcpy(host, h, hl);
    host[hl] = 0;
    *port = (uint16_t)v;
    return 0;
}

static int check_str(const char *s, size_t sz)
{
    return memchr(s, 0, sz) ? 0 : -1;
}

static int cfg_check(const struct vd_can_bus *b, char *err, size_t errsz)
{
    const struct vd_can_cfg *c = &b->cfg;

#define BAD(...) vd_can_errf(-EINVAL, err, errsz, b, __VA_ARGS__)
    if (c->kind != VD_CAN_SOCKETCAN && c->kind != VD_CAN_UDP)
        return BAD("kind %d is neither socketcan (%d) nor udp (%d)", (int)c->kind, VD_CAN_SOCKETCAN,
                   VD_CAN_UDP);
    if (c->rcvbuf < 0 || c->sndbuf < 0)
        return BAD("rcvbuf %d / sndbuf %d: must be >= 0 bytes (0: kernel default)", c->rcvbuf,
                   c->sndbuf);
    if (c->tx_wait_us < 0 || c->tx_wait_us > 1000000)
        return BAD("tx_wait_us %d out of range [0, 1000000] us", c->tx_wait_us);
    if (c->nfilters < 0 || c->nfilters > VD_CAN_MAX_FILTERS)
        return BAD("%d filters: out of range [0, %d]", c->nfilters, VD_CAN_MAX_FILTERS);
    for (int i = 0; i < c->nfilters; i++) {
        uint32_t m = c->filters[i].ext ? VD_CAN_EFF_MASK : VD_CAN_SFF_MASK;

        if ((c->filters[i].id | c->filters[i].mask) & ~m)
            return BAD("filters[%d]: id 0x%x / mask 0x%x beyond the %s identifier bits 0x%x", i,
                       c->filters[i].id, c->filters[i].mask,
                       c->filters[i].ext ? "29-bit" : "11-bit", m);
    }
    if (c->err_mask & ~0x3ffu)
        return BAD("err_mask 0x%x has bits beyond the error classes 0x3ff", c->err_mask);
    if ((unsigned)c->tstamp > VD_CAN_TSTAMP_HARDWARE)
        return BAD("tstamp %d unknown", (int)c->tstamp);
    if (c->kind == VD_CAN_SOCKETCAN) {
        if (!c->ifname[0])
            return BAD("no interface name");
        if ((unsigned)c->restart > VD_CAN_RESTART_NONE)
            return BAD("restart %d unknown", (int)c->restart);
        if (c->bitrate && (c->bitrate < 1000 || c->bitrate > 1000000))
            return BAD("bitrate %u out of range [1000, 1000000] bit/s", c->bitrate);
        if (c->dbitrate && (!c->fd || c->dbitrate < c->bitrate || c->dbitrate > 16000000))
            return BAD("dbitrate %u: needs fd and a value in [bitrate, 16000000] bit/s",
                       c->dbitrate);
        if (c->sample_point > 999 || c->dsample_point > 999)
            return BAD("sample point %u / %u out of range [0, 999] (1/1000)", c->sample_point,
                       c->dsample_point);
        if (c->txqueuelen < -1)
            return BAD("txqueuelen %d: must be >= 0 frames (-1: leave)", c->txqueuelen);
    } else {
        if (c->udp_max_payload < VD_CNL_HEADER_SIZE + 6 + 64 || c->udp_max_payload > 65507)
            return BAD("udp_max_payload %u out of range [75, 65507] bytes", c->udp_max_payload);
    }
#undef BAD
    return 0;
}

/* ---- open / close ------------------------------------------------------------------------- */

int vd_can_open(const struct vd_can_cfg *cfg, struct vd_can_bus **out, char *err, size_t errsz)
{
    struct vd_can_bus *b;
    int r;

    *out = NULL;
    if (err && errsz)
        err[0] = 0;
    b = calloc(1, sizeof(*b));
    if (!b) {
        snprintf(err, errsz, "can bus: out of memory");
        return -ENOMEM;
    }
    b->cfg = *cfg;
    b->fd = -1;
    b->rx_seq_next = -1;
    atomic_init(&b->state, VD_CAN_STATE_UNKNOWN);
    for (int i = 0; i < VD_CS_N; i++)
        atomic_init(&b->st[i], 0);
    if (check_str(cfg->name, sizeof(cfg->name)) || check_str(cfg->ifname, sizeof(cfg->ifname)) ||
        check_str(cfg->local_host, sizeof(cfg->local_host)) ||
        check_str(cfg->remote_host, sizeof(cfg->remote_host))) {
        snprintf(err, errsz, "can bus: a name in the config is not NUL-terminated");
        free(b);
        return -EINVAL;
    }
    if (!cfg->name[0])
        snprintf(b->cfg.name, sizeof(b->cfg.name), "can");
    r = cfg_check(b, err, errsz);
    if (!r)
        r = cfg->kind == VD_CAN_SOCKETCAN ? vd_can_sc_open(b, err, errsz)
                                          : vd_can_udp_open(b, err, errsz);
    if (r) {
        vd_can_close(b);
        return r;
    }
    *out = b;
    return 0;
}

void vd_can_close(struct vd_can_bus *bus)
{
    if (!bus)
        return;
    if (bus->cfg.kind == VD_CAN_SOCKETCAN)
        vd_can_sc_close(bus);
    else
        vd_can_udp_close(bus);
    if (bus->fd >= 0)
        close(bus->fd);
    free(bus);
}

const char *vd_can_describe(const struct vd_can_bus *bus)
{
    return bus->desc;
}

int vd_can_poll_fd(const struct vd_can_bus *bus)
{
    return bus->fd;
}

bool vd_can_rx_pending(const struct vd_can_bus *bus)
{
    return bus->rx_left > 0;
}

uint16_t vd_can_local_port(const struct vd_can_bus *bus)
{
    return bus->local_port;
}

/* ---- socket set-up shared by the backends -------------------------------------------------- */

int vd_can_sock_common(struct vd_can_bus *b, char *err, size_t errsz)
{
    int one = 1, fl;

    if (b->cfg.rcvbuf > 0 &&
        setsockopt(b->fd, SOL_SOCKET, SO_RCVBUFFORCE, &b->cfg.rcvbuf, sizeof(int)) < 0 &&
        setsockopt(b->fd, SOL_SOCKET, SO_RCVBUF, &b->cfg.rcvbuf, sizeof(int)) < 0)
        return vd_can_errf(-errno, err, errsz, b, "setsockopt(SO_RCVBUF, %d): %s", b->cfg.rcvbuf,
                           strerror(errno));
    if (b->cfg.sndbuf > 0 &&
        setsockopt(b->fd, SOL_SOCKET, SO_SNDBUF, &b->cfg.sndbuf, sizeof(int)) < 0)
        return vd_can_errf(-errno, err, errsz, b, "setsockopt(SO_SNDBUF, %d): %s", b->cfg.sndbuf,
                           strerror(errno));
    if (setsockopt(b->fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one)) < 0)
        return vd_can_errf(-errno, err, errsz, b, "setsockopt(SO_RXQ_OVFL): %s", strerror(errno));
    if (b->cfg.tstamp == VD_CAN_TSTAMP_SOFTWARE &&
        setsockopt(b->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) < 0)
        return vd_can_errf(-errno, err, errsz, b, "setsockopt(SO_TIMESTAMPNS): %s",
                           strerror(errno));
    if (b->cfg.tstamp == VD_CAN_TSTAMP_HARDWARE) {
        int ts = SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_RX_SOFTWARE |
                 SOF_TIMESTAMPING_RX_HARDWARE | SOF_TIMESTAMPING_RAW_HARDWARE;

        if (setsockopt(b->fd, SOL_SOCKET, SO_TIMESTAMPING, &ts, sizeof(ts)) < 0)
            return vd_can_errf(-errno, err, errsz, b, "setsockopt(SO_TIMESTAMPING): %s",
                               strerror(errno));
    }
    fl = fcntl(b->fd, F_GETFL);
    if (fl < 0 || fcntl(b->fd, F_SETFL, fl | O_NONBLOCK) < 0)
        return vd_can_errf(-errno, err, errsz, b, "fcntl(O_NONBLOCK): %s", strerror(errno));
    return 0;
}

/* ---- TX policy ---------------------------------------------------------------------------- */

int vd_can_xmit(struct vd_can_bus *b, const void *buf, size_t len, const struct sockaddr *to,
                socklen_t tolen)
{
    int64_t deadline = 0;

    for (;;) {
        ssize_t n = sendto(b->fd, buf, len, MSG_DONTWAIT, to, tolen);
        int e = errno;
        int64_t now;

        if (n == (ssize_t)len)
            return 0;
        if (n >= 0)
            return -EMSGSIZE; /* a datagram socket sends all or nothing */
        if (e == EINTR)
            continue;
        if (e != ENOBUFS && e != EAGAIN)
            return -e;
        if (b->cfg.tx_wait_us <= 0)
            return -EAGAIN;
        now = vd_can_mono_ns();
        if (!deadline)
            deadline = now + (int64_t)b->cfg.tx_wait_us * 1000;
        if (now >= deadline)
            return -EAGAIN;
        vd_can_count(b, VD_CS_tx_retries, 1);
        if (e == EAGAIN) {
            /* socket buffer full: POLLOUT says when there is room */
            struct pollfd p = {.fd = b->fd, .events = POLLOUT};
            struct timespec ts = {.tv_sec = (deadline - now) / 1000000000,
                                  .tv_nsec = (deadline - now) % 1000000000};

            ppoll(&p, 1, &ts, NULL);
        } else {
            /* interface queue full (ENOBUFS): POLLOUT does not track it, so back off a
             * little (as cangen -p), bounded by the deadline */
            int64_t d = deadline - now < 100000 ? deadline - now : 100000;
            struct timespec ts = {.tv_sec = 0, .tv_nsec = d};

            nanosleep(&ts, NULL);
        }
    }
}

/* ---- send / receive ----------------------------------------------------------------------- */

int vd_can_send(struct vd_can_bus *bus, const struct vd_can_frame *f)
{
    if (!vd_can_frame_valid(f, bus->cfg.fd) ||
        ((f->flags & VD_CANF_ERR) && !bus->cfg.tx_err_frames)) {
        vd_can_count(bus, VD_CS_tx_invalid, 1);
        return -EINVAL;
    }
    if (bus->cfg.kind == VD_CAN_SOCKETCAN)
        return vd_can_sc_send(bus, f);
    return vd_can_udp_send_many(bus, f, 1) == 1 ? 0 : bus->tx_last_err;
}

int vd_can_send_many(struct vd_can_bus *bus, const struct vd_can_frame *f, int n)
{
    int sent = 0;

    if (n <= 0)
        return 0;
    if (bus->cfg.kind == VD_CAN_UDP)
        return vd_can_udp_send_many(bus, f, n);
    for (int i = 0; i < n; i++)
        sent += vd_can_send(bus, &f[i]) == 0;
    return sent;
}

int vd_can_recv(struct vd_can_bus *bus, struct vd_can_frame *out, int max, int timeout_ms)
{
    int64_t deadline = 0;

    if (max <= 0)
        return -EINVAL;
    if (timeout_ms > 0)
        deadline = vd_can_mono_ns() + (int64_t)timeout_ms * 1000000;
    for (;;) {
        struct pollfd p = {.fd = bus->fd, .events = POLLIN};
        struct timespec ts, *tp = NULL;
        int n = bus->cfg.kind == VD_CAN_SOCKETCAN ? vd_can_sc_recv_some(bus, out, max)
                                                  : vd_can_udp_recv_some(bus, out, max);

        if (n != 0 || timeout_ms == 0)
            return n;
        if (timeout_ms > 0) {
            int64_t left = deadline - vd_can_mono_ns();

            if (left <= 0)
                return 0;
            ts.tv_sec = left / 1000000000;
            ts.tv_nsec = left % 1000000000;
            tp = &ts;
        }
        n = ppoll(&p, 1, tp, NULL);
        if (n < 0) {
            if (errno == EINTR)
                return -EINTR;
            vd_can_count(bus, VD_CS_rx_errors, 1);
            return -errno;
        }
        if (n == 0)
            return 0;
    }
}

/* ---- receive-side bookkeeping ------------------------------------------------------------- */

void vd_can_drops_update(struct vd_can_bus *b, uint32_t v)
{
    uint32_t d = v - b->drops_seen;

    /* cumulative and monotonic; an older value (a message queued before a later read) is
     * not a decrease */
    if (d && d < 0x80000000u) {
        vd_can_count(b, VD_CS_rx_overflow, d);
        b->drops_seen = v;
    }
}

int64_t vd_can_rx_cmsg(struct vd_can_bus *b, struct msghdr *msg)
{
    int64_t stamp = 0, hw = 0;

    for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
        if (c->cmsg_level != SOL_SOCKET)
            continue;
        if (c->cmsg_type == SO_RXQ_OVFL && c->cmsg_len >= CMSG_LEN(sizeof(uint32_t))) {
            uint32_t v;

            memcpy(&v, CMSG_DATA(c), sizeof(v));
            vd_can_drops_update(b, v);
        } else if (c->cmsg_type == SCM_TIMESTAMPNS &&
                   c->cmsg_len >= CMSG_LEN(sizeof(struct timespec))) {
            struct timespec ts;

            memcpy(&ts, CMSG_DATA(c), sizeof(ts));
            stamp = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
        } else if (c->cmsg_type == SCM_TIMESTAMPING &&
                   c->cmsg_len >= CMSG_LEN(sizeof(struct scm_timestamping))) {
            struct scm_timestamping ts;

            memcpy(&ts, CMSG_DATA(c), sizeof(ts));
            if (ts.ts[2].tv_sec || ts.ts[2].tv_nsec)
                hw = (int64_t)ts.ts[2].tv_sec * 1000000000 + ts.ts[2].tv_nsec;
            if (ts.ts[0].tv_sec || ts.ts[0].tv_nsec)
                stamp = (int64_t)ts.ts[0].tv_sec * 1000000000 + ts.ts[0].tv_nsec;
        }
    }
    if (hw) {
        /* the hardware stamp where it agrees with the software one (both requested): a
         * controller clock in another time base would date the frame seconds or years off */
        if (!stamp ||
            (hw - stamp <= VD_CAN_HW_STAMP_TOL_NS && stamp - hw <= VD_CAN_HW_STAMP_TOL_NS)) {
            stamp = hw;
            vd_can_count(b, VD_CS_rx_hw_stamps, 1);
        } else {
            vd_can_count(b, VD_CS_rx_hw_stamps_off, 1);
        }
    }
    if (stamp) {
        /* CLOCK_REALTIME stamp to CLOCK_MONOTONIC: the realtime reading bracketed by two
         * monotonic ones, so that a thread held up between the readings shifts the offset by
         * half the hold-up at most instead of all of it */
        const int64_t m0 = vd_can_mono_ns(), real = real_ns(), m1 = vd_can_mono_ns();
        const int64_t t = stamp - (real - (m0 + (m1 - m0) / 2));

        return t < m1 ? t : m1; /* never after it was read (a realtime step back) */
    }
    return vd_can_mono_ns();
}

void vd_can_set_state(struct vd_can_bus *b, enum vd_can_bus_state st)
{
    int old = atomic_exchange_explicit(&b->state, (int)st, memory_order_relaxed);

    if (old == (int)st)
        return;
    if (st == VD_CAN_STATE_ERROR_WARNING)
        vd_can_count(b, VD_CS_error_warning, 1);
    else if (st == VD_CAN_STATE_ERROR_PASSIVE)
        vd_can_count(b, VD_CS_error_passive, 1);
    if (st == VD_CAN_STATE_BUS_OFF) {
        vd_can_count(b, VD_CS_bus_off, 1);
        b->busoff_since_ns = vd_can_mono_ns();
        b->next_restart_ns = 0;
    } else {
        b->busoff_since_ns = 0;
    }
}

/* error frame: classes counted, state followed (linux/can/error.h data[1] bits) */
static void err_frame(struct vd_can_bus *b, const struct vd_can_frame *f)
{
    uint32_t cls = f->id;
    uint8_t d1 = f->data[1];

    vd_can_count(b, VD_CS_err_frames, 1);
    for (int i = 0; i < VD_CAN_ERR_NCLASS; i++)
        if (cls & (1u << i))
            vd_can_count(b, (enum vd_can_stat_id)(VD_CS_err_tx_timeout + i), 1);
    if (cls & VD_CAN_ERR_CRTL) {
        if (d1 & 0x01)
            vd_can_count(b, VD_CS_ctrl_rx_overflow, 1);
        if (d1 & 0x02)
            vd_can_count(b, VD_CS_ctrl_tx_overflow, 1);
    }
    if (cls & VD_CAN_ERR_BUSOFF) {
        vd_can_set_state(b, VD_CAN_STATE_BUS_OFF);
    } else if (cls & VD_CAN_ERR_CRTL) {
        if (d1 & (0x10 | 0x20))
            vd_can_set_state(b, VD_CAN_STATE_ERROR_PASSIVE);
        else if (d1 & (0x04 | 0x08))
            vd_can_set_state(b, VD_CAN_STATE_ERROR_WARNING);
        else if (d1 & 0x40)
            vd_can_set_state(b, VD_CAN_STATE_ERROR_ACTIVE);
    } else if (cls & VD_CAN_ERR_RESTARTED) {
        vd_can_set_state(b, VD_CAN_STATE_ERROR_ACTIVE);
    }
}

bool vd_can_rx_accept(struct vd_can_bus *b, const struct vd_can_frame *f)
{
    const struct vd_can_cfg *c = &b->cfg;

    if (f->flags & VD_CANF_ERR) {
        if (!(f->id & c->err_mask)) { /* udp: the error mask in software */
            vd_can_count(b, VD_CS_rx_filtered, 1);
            return false;
        }
        err_frame(b, f);
        if (!c->rx_err_frames)
            return false;
    } else if (c->nfilters > 0) {
        bool ext = f->flags & VD_CANF_EFF;
        int i;

        for (i = 0; i < c->nfilters; i++)
            if (c->filters[i].ext == ext && !((f->id ^ c->filters[i].id) & c->filters[i].mask))
                break;
        if (i == c->nfilters) {
            vd_can_count(b, VD_CS_rx_filtered, 1);
            return false;
        }
    }
    vd_can_count(b, VD_CS_rx_frames, 1);
    return true;
}

/* ---- state and counters --------------------------------------------------------------------- */

int vd_can_service(struct vd_can_bus *bus, int64_t now_ns)
{
    uint32_t mi[SK_MEMINFO_VARS];
    socklen_t l = sizeof(mi);

    /* kernel drops not yet reported by a message's SO_RXQ_OVFL (no message after them) */
    if (getsockopt(bus->fd, SOL_SOCKET, SO_MEMINFO, mi, &l) == 0 &&
        l > SK_MEMINFO_DROPS * sizeof(uint32_t))
        vd_can_drops_update(bus, mi[SK_MEMINFO_DROPS]);
    if (bus->cfg.kind == VD_CAN_SOCKETCAN)
        return vd_can_sc_service(bus, now_ns);
    return 0;
}

int vd_can_state(struct vd_can_bus *bus, struct vd_can_state *out)
{
    memset(out, 0, sizeof(*out));
    out->state = vd_can_bus_state(bus);
    if (bus->cfg.kind == VD_CAN_SOCKETCAN)
        return vd_can_sc_state(bus, out);
    snprintf(out->kind, sizeof(out->kind), "udp");
    return 0;
}

enum vd_can_bus_state vd_can_bus_state(const struct vd_can_bus *bus)
{
    return (enum vd_can_bus_state)atomic_load_explicit(&bus->state, memory_order_relaxed);
}

void vd_can_stats(const struct vd_can_bus *bus, struct vd_can_stats *out)
{
    /* the const bus's atomics: relaxed loads */
    struct vd_can_bus *b = (struct vd_can_bus *)(uintptr_t)bus;

#define VD_CAN_STAT_LOAD(n, c)                                                                     \
    out->n = atomic_load_explicit(&b->st[VD_CS_##n], memory_order_relaxed);
    VD_CAN_STATS(VD_CAN_STAT_LOAD)
#undef VD_CAN_STAT_LOAD
}

size_t vd_can_stats_format(const struct vd_can_stats *s, char *buf, size_t sz)
{
    size_t k = 0;

    if (!sz)
        return 0;
    buf[0] = 0;
#define VD_CAN_STAT_FMT(n, c)                                                                      \
    if (s->n && k < sz) {                                                                          \
        int w =                                                                                    \
            snprintf(buf + k, sz - k, "%s%s=%llu", k ? " " : "", #n, (unsigned long long)s->n);    \
        k = w < 0 ? k : (k + (size_t)w < sz ? k + (size_t)w : sz - 1);                             \
    }
    VD_CAN_STATS(VD_CAN_STAT_FMT)
#undef VD_CAN_STAT_FMT
    return k;
}
