/* app/ecu_fault.c - the virtual ECU's fault injection (app/ecu_fault.h): --fault specs, the
 * windows resolved against the mapping, opened and closed on ECU time, and the frames of a
 * slot with the faults applied (io/canmap.h faults, bursts, floods, unknown ids, malformed
 * datagrams), every injected event counted per fault entry. */
#include "ecu.h"
#include "ecu_fault.h"

#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static int parse_num(const char *s, size_t n, double *out)
{
    char buf[64], *end;

    if (n == 0 || n >= sizeof(buf))
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    *out = strtod(buf, &end);
    return errno || *end || !isfinite(*out) ? -1 : 0;
}

int app_ecu_parse_fault(const char *spec, struct app_ecu_fault *f)
{
    const char *at = strchr(spec, '@'), *star = strrchr(spec, '*'), *colon;
    const char *head_end = at ? at : (star ? star : spec + strlen(spec));
    char kind[32];
    double v;
    size_t n;

    memset(f, 0, sizeof(*f));
    f->duration = -1.0;
    f->msg = -1;
    /* KIND[:MESSAGE] */
    colon = memchr(spec, ':', (size_t)(head_end - spec));
    n = (size_t)((colon ? colon : head_end) - spec);
    if (n == 0 || n >= sizeof(kind))
        return -1;
    memcpy(kind, spec, n);
    kind[n] = '\0';
    f->kind = vd_run_fault_kind(kind);
    if (f->kind < 0)
        return -1;
    if (colon) {
        n = (size_t)(head_end - colon - 1);
        if (n == 0 || n >= sizeof(f->message))
            return -1;
        memcpy(f->message, colon + 1, n);
        f->message[n] = '\0';
    }
    f->factor = f->kind == VD_RUN_FAULT_BURST || f->kind == VD_RUN_FAULT_FLOOD ? 10 : 1;
    /* *FACTOR at the end */
    if (star) {
        if (star < head_end || parse_num(star + 1, strlen(star + 1), &v) || v < 1 || v > 1000 ||
            v != floor(v))
            return -1;
        f->factor = (int)v;
    }
    /* @AT[+DURATION|xCOUNT] */
    if (at) {
        const char *end = star ? star : at + strlen(at);
        const char *plus = memchr(at, '+', (size_t)(end - at)),
                   *x = memchr(at, 'x', (size_t)(end - at));
        const char *sep = plus ? plus : x;

        if (parse_num(at + 1, (size_t)((sep ? sep : end) - at - 1), &f->at) || f->at < 0)
            return -1;
        if (plus && parse_num(plus + 1, (size_t)(end - plus - 1), &f->duration))
            return -1;
        if (plus && f->duration < 0)
            return -1;
        if (x) {
            if (parse_num(x + 1, (size_t)(end - x - 1), &v) || v < 1 || v > 1e9 || v != floor(v))
                return -1;
            f->count = (int64_t)v;
        }
        if (plus && x)
            return -1;
    }
    if ((f->kind == VD_RUN_FAULT_UNKNOWN_ID || f->kind == VD_RUN_FAULT_BAD_DATAGRAM) ==
        (f->message[0] != '\0'))
        return -1;
    if (f->kind == VD_RUN_FAULT_FLOOD && f->factor < 2)
        return -1;
    return 0;
}

static void fault_error(FILE *errf, const struct app_ecu_fault *f, const char *fmt, const char *arg)
{
    if (!errf)
        return;
    if (f->file)
        fprintf(errf, "%s:%d:%d: error: can.ecu.faults: ", f->file, f->line, f->col);
    else
        fprintf(errf, "rtvd ecu: error: --fault %s: ", vd_run_fault_name(f->kind));
    fprintf(errf, fmt, arg);
    fputc('\n', errf);
}

static unsigned canmap_bits(int kind)
{
    switch (kind) {
    case VD_RUN_FAULT_SILENT:
        return VD_CANMAP_FAULT_SILENT;
    case VD_RUN_FAULT_BAD_CRC:
        return VD_CANMAP_FAULT_BAD_CRC;
    case VD_RUN_FAULT_STALE_COUNTER:
        return VD_CANMAP_FAULT_REPEAT_COUNTER;
    case VD_RUN_FAULT_JUMP_COUNTER:
        return VD_CANMAP_FAULT_JUMP_COUNTER;
    case VD_RUN_FAULT_OUT_OF_RANGE:
        return VD_CANMAP_FAULT_OUT_OF_RANGE;
    case VD_RUN_FAULT_NAN:
        return VD_CANMAP_FAULT_NAN;
    case VD_RUN_FAULT_WRONG_LENGTH:
        return VD_CANMAP_FAULT_SHORT;
    default:
        return 0;
    }
}

int app_ecu_faults_resolve(struct app_ecu *e, FILE *errf)
{
    const struct vd_canmap *map = e->side.map;
    int bad = 0;

    for (int i = 0; i < e->cfg.nfault; i++) {
        struct app_ecu_fault *f = &e->cfg.fault[i];

        f->msg = -1;
        f->active = f->done = false;
        f->injected = f->frames = 0;
        f->t_on = f->t_off = -1.0;
        if (f->message[0]) {
            struct vd_canmap_msg_info mi;

            f->msg = vd_canmap_find_msg(map, f->message);
            if (f->msg >= 0)
                vd_canmap_msg_info(map, f->msg, &mi);
            if (f->msg < 0 || !mi.sent) {
                fault_error(errf, f, "no message '%s' that the ECU sends in this mapping",
                            f->message);
                bad = 1;
            } else if (canmap_bits(f->kind) &&
                       !(vd_canmap_fault_effective(map, f->msg) & canmap_bits(f->kind))) {
                /* a fault that would change nothing is refused, never counted as injected */
                fault_error(errf, f, "%s",
                            f->kind == VD_RUN_FAULT_NAN
                                ? "the message has no mapped float signal to carry a NaN and no "
                                  "mapped integer signal with an invalid-value pattern in the DBC "
                                  "(VAL_ \"Invalid\", \"SNA\", ...): it would change nothing"
                            : f->kind == VD_RUN_FAULT_OUT_OF_RANGE
                                ? "no mapped integer signal of the message can hold a value "
                                  "outside its range"
                            : f->kind == VD_RUN_FAULT_WRONG_LENGTH
                                ? "the message has no data to shorten"
                                : "the message has no E2E protection (no CRC or counter to "
                                  "falsify)");
                bad = 1;
            }
        }
        if (f->kind == VD_RUN_FAULT_BAD_DATAGRAM && e->side.bcfg[0].kind != VD_CAN_UDP) {
            fault_error(errf, f, "%s needs a udp bus (the first bus is socketcan)", "bad_datagram");
            bad = 1;
        }
    }
    return bad ? -1 : 0;
}

/* identifiers no message of the mapping uses on bus 0: standard 0x7F0.., extended */
void app_ecu_faults_pick_ids(struct app_ecu *e)
{
    const int nmsg = vd_canmap_nmsg(e->side.map);
    int n = 0;

    for (uint32_t id = 0x7F0; id <= 0x7FF && n < 3; id++) {
        bool used = false;

        for (int i = 0; i < nmsg; i++) {
            struct vd_canmap_msg_info mi;

            vd_canmap_msg_info(e->side.map, i, &mi);
            used |= !mi.ext && mi.id == id;
        }
        if (!used)
            e->unknown_ids[n++] = id;
    }
    e->unknown_ids[3] = 0x1ABCDE00u; /* sent as an extended id */
}

int app_ecu_faults_remote(struct app_ecu *e, int b)
{
    const struct vd_can_cfg *c = &e->side.bcfg[b];
    struct addrinfo hints = {.ai_socktype = SOCK_DGRAM, .ai_flags = AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    char port[16];
    int rc;

    if (c->kind != VD_CAN_UDP || !c->remote_host[0] || !c->remote_port)
        return 0;
    snprintf(port, sizeof(port), "%u", (unsigned)c->remote_port);
    rc = getaddrinfo(c->remote_host, port, &hints, &res);
    if (rc || !res)
        return -1;
    memcpy(&e->remote[b], res->ai_addr, res->ai_addrlen);
    e->remote_len[b] = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

static bool fault_left(const struct app_ecu_fault *f)
{
    return f->count == 0 || f->injected < (uint64_t)f->count;
}

/* events still allowed in this slot, at most want */
static uint64_t fault_quota(const struct app_ecu_fault *f, uint64_t want)
{
    uint64_t left;

    if (f->count == 0)
        return want;
    left = f->injected >= (uint64_t)f->count ? 0 : (uint64_t)f->count - f->injected;
    return want < left ? want : left;
}

/* open and close the windows at ECU time t; set the map's fault bits */
void app_ecu_faults_update(struct app_ecu *e, double t)
{
    const int nmsg = vd_canmap_nmsg(e->side.map);

    for (int i = 0; i < e->cfg.nfault; i++) {
        struct app_ecu_fault *f = &e->cfg.fault[i];

        if (!f->active && !f->done && t >= f->at - 1e-9) {
            f->active = true;
            f->t_on = t;
        }
        if (f->active &&
            ((f->duration >= 0 && t >= f->at + f->duration - 1e-9) || !fault_left(f))) {
            f->active = false;
            f->done = true;
            f->t_off = t;
        }
    }
    for (int m = 0; m < nmsg; m++) {
        unsigned b = 0;

        for (int i = 0; i < e->cfg.nfault; i++)
            if (e->cfg.fault[i].active && e->cfg.fault[i].msg == m)
                b |= canmap_bits(e->cfg.fault[i].kind);
        if (b != e->bits[m]) {
            vd_canmap_set_fault(e->side.map, m, b);
            e->bits[m] = b;
        }
    }
}

static int frame_msg(const struct app_ecu *e, int bus, const struct vd_can_frame *f)
{
    const int nmsg = vd_canmap_nmsg(e->side.map);

    for (int i = 0; i < nmsg; i++) {
        struct vd_canmap_msg_info mi;

        vd_canmap_msg_info(e->side.map, i, &mi);
        if (mi.sent && mi.bus == bus && mi.id == f->id && mi.ext == !!(f->flags & VD_CANF_EFF))
            return i;
    }
    return -1;
}

/* a malformed cannelloni datagram (kinds in turn: too short, version 1, op code ACK) from the
 * bus's own socket to the target */
static void bad_datagram(struct app_ecu *e, int b)
{
    uint8_t buf[16];
    size_t len;
    const uint64_t k = e->garbage_seq++;

    memset(buf, 0, sizeof(buf));
    switch (k % 3) {
    case 0: /* 3 bytes: shorter than the header */
        buf[0] = VD_CNL_VERSION;
        len = 3;
        break;
    case 1: /* version 1 */
        buf[0] = 1;
        buf[1] = VD_CNL_OP_DATA;
        buf[4] = 1;
        buf[8] = 0x42;
        buf[9] = 1;
        len = 11;
        break;
    default: /* op code 1 (ACK) */
        buf[0] = VD_CNL_VERSION;
        buf[1] = 1;
        len = 5;
        break;
    }
    if (e->remote_len[b] &&
        sendto(vd_can_poll_fd(e->side.bus[b]), buf, len, MSG_DONTWAIT,
               (const struct sockaddr *)&e->remote[b], e->remote_len[b]) == (ssize_t)len)
        e->st.raw_datagrams++;
    else
        e->st.raw_errors++;
}

/* the frames of slot sl on bus b, with the faults applied, sent */
/* the faults that act inside the map (silent, nan, out_of_range), counted from the map's
 * counters against their values st0[] before the send: as the frames they changed (a
 * multiplexed message's group without such a signal is not one), and the values apart */
static void count_map_faults(struct app_ecu *e, const struct vd_canmap_msg_stats *st0)
{
    const struct vd_canmap *map = e->side.map;

    for (int i = 0; i < e->cfg.nfault; i++) {
        struct app_ecu_fault *f = &e->cfg.fault[i];
        const struct vd_canmap_msg_stats *st;

        if (!f->active || f->msg < 0)
            continue;
        st = vd_canmap_msg_stats(map, f->msg);
        if (f->kind == VD_RUN_FAULT_SILENT) {
            f->injected += st->suppressed - st0[i].suppressed;
        } else if (f->kind == VD_RUN_FAULT_NAN) {
            f->injected += st->fault_frames_nan - st0[i].fault_frames_nan;
            f->nan_values += st->fault_nan - st0[i].fault_nan;
            f->invalid_values += st->fault_invalid - st0[i].fault_invalid;
        } else if (f->kind == VD_RUN_FAULT_OUT_OF_RANGE) {
            f->injected += st->fault_frames_range - st0[i].fault_frames_range;
            f->range_values += st->fault_range - st0[i].fault_range;
        }
    }
}

void app_ecu_send_slot(struct app_ecu *e, int b, uint64_t sl)
{
    struct vd_canmap *map = e->side.map;
    struct vd_can_frame due[64];
    struct vd_canmap_msg_stats st0[VD_RUN_MAX_FAULTS];
    int n, m = 0;

    /* the map's counters before the send, for the faults that act inside it */
    for (int i = 0; i < e->cfg.nfault; i++) {
        const struct app_ecu_fault *f = &e->cfg.fault[i];

        if (f->active && f->msg >= 0)
            st0[i] = *vd_canmap_msg_stats(map, f->msg);
    }
    n = vd_canmap_tx_due(map, b, sl, e->cmd, due, 64);
    count_map_faults(e, st0);
    for (int j = 0; j < n && m < APP_CAN_TXMAX; j++) {
        const int mi = frame_msg(e, b, &due[j]);

        e->txbuf[m++] = due[j];
        if (mi < 0)
            continue;
        e->last[mi] = due[j];
        e->has_last[mi] = 1;
        for (int i = 0; i < e->cfg.nfault; i++) {
            struct app_ecu_fault *f = &e->cfg.fault[i];

            if (!f->active || f->msg != mi)
                continue;
            if (canmap_bits(f->kind) && f->kind != VD_RUN_FAULT_SILENT &&
                f->kind != VD_RUN_FAULT_NAN && f->kind != VD_RUN_FAULT_OUT_OF_RANGE) {
                f->injected++;
            } else if (f->kind == VD_RUN_FAULT_BURST && fault_quota(f, 1)) {
                f->injected++;
                for (int c = 1; c < f->factor && m < APP_CAN_TXMAX; c++) {
                    e->txbuf[m++] = due[j];
                    f->frames++;
                }
            }
        }
    }
    /* floods: stale copies of the message's last frame, factor x its rate in all */
    for (int i = 0; i < e->cfg.nfault; i++) {
        struct app_ecu_fault *f = &e->cfg.fault[i];
        struct vd_canmap_msg_info mi;
        uint64_t k, c;

        if (!f->active || f->kind != VD_RUN_FAULT_FLOOD || f->msg < 0 || !e->has_last[f->msg])
            continue;
        vd_canmap_msg_info(map, f->msg, &mi);
        if (mi.bus != b || mi.cycle_ms <= 0)
            continue;
        k = sl - (uint64_t)llround(f->t_on * 1000.0);
        c = ((k + 1) * (uint64_t)(f->factor - 1)) / (uint64_t)mi.cycle_ms -
            (k * (uint64_t)(f->factor - 1)) / (uint64_t)mi.cycle_ms;
        c = fault_quota(f, c);
        for (uint64_t q = 0; q < c && m < APP_CAN_TXMAX; q++) {
            e->txbuf[m++] = e->last[f->msg];
            f->injected++;
            f->frames++;
        }
    }
    /* frames no one receives, and malformed datagrams (bus 0) */
    for (int i = 0; b == 0 && i < e->cfg.nfault; i++) {
        struct app_ecu_fault *f = &e->cfg.fault[i];

        if (!f->active)
            continue;
        if (f->kind == VD_RUN_FAULT_UNKNOWN_ID) {
            const uint64_t c = fault_quota(f, (uint64_t)f->factor);

            for (uint64_t q = 0; q < c && m < APP_CAN_TXMAX; q++) {
                struct vd_can_frame *g = &e->txbuf[m++];
                const uint64_t x = f->frames++;

                memset(g, 0, sizeof(*g));
                g->id = e->unknown_ids[x % 4];
                g->flags = x % 4 == 3 ? VD_CANF_EFF : 0;
                g->len = (uint8_t)(x % 9);
                for (int d = 0; d < g->len; d++)
                    g->data[d] = (uint8_t)(x * 7 + (uint64_t)d);
                f->injected++;
            }
        } else if (f->kind == VD_RUN_FAULT_BAD_DATAGRAM && fault_quota(f, 1)) {
            bad_datagram(e, 0);
            f->injected++;
            f->frames++;
        }
    }
    if (m > 0) {
        e->st.tx_offered += (uint64_t)m;
        e->st.tx_sent += (uint64_t)vd_can_send_many(e->side.bus[b], e->txbuf, m);
    }
}
