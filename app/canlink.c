/* app/canlink.c - the CAN sides (mapping, DBCs, buses) and the CAN thread of `rtvd run`. */
#include "canlink.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "canglue.h"
#include "rt/clock.h"

/* --- the mapping: config -> runtime ------------------------------------------------------- */

void app_can_locate(FILE *errf, const struct vd_candesc *c, int line, int col)
{
    if (errf)
        fprintf(errf, "%s:%d:%d: error: ", c->file, line, col);
}

void app_can_bus_cfg(const struct vd_candesc_bus *b, struct vd_can_cfg *o)
{
    vd_can_cfg_init(o, b->kind == VD_CANDESC_UDP ? VD_CAN_UDP : VD_CAN_SOCKETCAN);
    snprintf(o->name, sizeof(o->name), "%s", b->name);
    o->fd = b->fd;
    if (b->rcvbuf != VD_CANDESC_UNSET)
        o->rcvbuf = b->rcvbuf;
    if (b->sndbuf != VD_CANDESC_UNSET)
        o->sndbuf = b->sndbuf;
    if (b->tx_wait_us != VD_CANDESC_UNSET)
        o->tx_wait_us = b->tx_wait_us;
    if (b->kind == VD_CANDESC_UDP) {
        if (b->local_host[0])
            snprintf(o->local_host, sizeof(o->local_host), "%s", b->local_host);
        if (b->local_port != VD_CANDESC_UNSET)
            o->local_port = (uint16_t)b->local_port;
        if (b->remote_host[0])
            snprintf(o->remote_host, sizeof(o->remote_host), "%s", b->remote_host);
        if (b->remote_port != VD_CANDESC_UNSET)
            o->remote_port = (uint16_t)b->remote_port;
        if (b->udp_max_payload != VD_CANDESC_UNSET)
            o->udp_max_payload = (uint32_t)b->udp_max_payload;
        if (b->udp_any_source >= 0)
            o->udp_any_source = b->udp_any_source;
        return;
    }
    if (b->ifname[0])
        snprintf(o->ifname, sizeof(o->ifname), "%s", b->ifname);
    if (b->configure >= 0)
        o->configure = b->configure;
    if (b->bitrate != VD_CANDESC_UNSET)
        o->bitrate = (uint32_t)b->bitrate;
    if (b->sample_point != VD_CANDESC_UNSET)
        o->sample_point = (uint32_t)b->sample_point;
    if (b->dbitrate != VD_CANDESC_UNSET)
        o->dbitrate = (uint32_t)b->dbitrate;
    if (b->dsample_point != VD_CANDESC_UNSET)
        o->dsample_point = (uint32_t)b->dsample_point;
    if (b->txqueuelen != VD_CANDESC_UNSET)
        o->txqueuelen = b->txqueuelen;
    o->restart = b->restart == VD_CANDESC_RESTART_MANUAL ? VD_CAN_RESTART_MANUAL
                 : b->restart == VD_CANDESC_RESTART_NONE ? VD_CAN_RESTART_NONE
                                                         : VD_CAN_RESTART_AUTO;
    if (b->restart_ms != VD_CANDESC_UNSET)
        o->restart_ms = (uint32_t)b->restart_ms;
    if (b->restart_holdoff_ms != VD_CANDESC_UNSET)
        o->restart_holdoff_ms = (uint32_t)b->restart_holdoff_ms;
    if (b->state_poll_ms != VD_CANDESC_UNSET)
        o->state_poll_ms = (uint32_t)b->state_poll_ms;
    if (b->loopback >= 0)
        o->loopback = b->loopback;
    if (b->recv_own >= 0)
        o->recv_own = b->recv_own;
}

int app_can_side_load(struct app_can_side *s, const char *path, int role, int port, FILE *errf)
{
    return app_can_side_load_opts(s, path, role, port, 0, errf);
}

int app_can_side_load_opts(struct app_can_side *s, const char *path, int role, int port,
                           unsigned flags, FILE *errf)
{
    memset(s, 0, sizeof(*s));
    s->role = role;
    s->cfg =
        vd_cfg_load_canmap(path, role == VD_CANMAP_ECU ? VD_CANDESC_ECU : VD_CANDESC_TARGET, errf);
    if (!s->cfg)
        return -1;
    /* the command line's --strict over the file's strict_dbc */
    if (flags & APP_CAN_STRICT_DBC)
        s->cfg->strict_dbc = true;
    if (s->cfg->nbus > APP_CAN_MAX_BUS) {
        if (errf)
            fprintf(errf, "%s: error: %d buses, at most %d\n", s->cfg->file, s->cfg->nbus,
                    APP_CAN_MAX_BUS);
        goto fail;
    }
    s->nbus = s->cfg->nbus;
    for (int i = 0; i < s->nbus; i++) {
        app_can_bus_cfg(&s->cfg->bus[i], &s->bcfg[i]);
        if (port > 0 && s->bcfg[i].kind == VD_CAN_UDP) {
            const int tp = port + 2 * i, ep = port + 2 * i + 1;

            if (ep > 65535) {
                if (errf)
                    fprintf(errf, "%s: error: port %d + %d buses beyond 65535\n", s->cfg->file,
                            port, s->nbus);
                goto fail;
            }
            s->bcfg[i].local_port = (uint16_t)(role == VD_CANMAP_ECU ? ep : tp);
            s->bcfg[i].remote_port = (uint16_t)(role == VD_CANMAP_ECU ? tp : ep);
        }
    }
    s->map = app_canmap_build(s->cfg, s->dbc, errf);
    if (!s->map)
        goto fail;
    return 0;
fail:
    app_can_side_free(s);
    return -1;
}

int app_can_side_open(struct app_can_side *s, FILE *errf)
{
    for (int i = 0; i < s->nbus; i++) {
        char err[256];
        int rc = vd_can_open(&s->bcfg[i], &s->bus[i], err, sizeof(err));

        if (rc) {
            if (errf)
                fprintf(errf, "%s: error: %s%s\n", s->cfg->file, err,
                        rc == -EAFNOSUPPORT ? " (this kernel has no SocketCAN: use a udp bus)"
                        : rc == -EADDRINUSE ? " (another rtvd run or rtvd ecu on these ports? "
                                              "--can-port / --port choose others)"
                                            : "");
            for (int k = 0; k < i; k++) {
                vd_can_close(s->bus[k]);
                s->bus[k] = NULL;
            }
            return -1;
        }
    }
    return 0;
}

void app_can_side_free(struct app_can_side *s)
{
    for (int i = 0; i < APP_CAN_MAX_BUS; i++)
        vd_can_close(s->bus[i]);
    vd_canmap_free(s->map);
    for (int i = 0; s->cfg && i < s->cfg->nbus && i < APP_CAN_MAX_BUS; i++)
        vd_dbc_free(s->dbc[i]);
    vd_cfg_canmap_free(s->cfg);
    memset(s, 0, sizeof(*s));
}

int app_can_nmsg(const struct app_can_side *s, bool sent)
{
    int n = 0;

    for (int i = 0; i < vd_canmap_nmsg(s->map); i++) {
        struct vd_canmap_msg_info mi;

        vd_canmap_msg_info(s->map, i, &mi);
        n += mi.sent == sent;
    }
    return n;
}

void app_can_tm_fill(const struct app_can_side *s, struct vd_tm_can *tm)
{
    struct vd_canmap_rx_stats rx;
    struct vd_canmap_tx_stats tx;
    const uint8_t *st = vd_canmap_rx_status(s->map);
    const int nrx = vd_canmap_rx_count(s->map);
    int worst = -1;

    vd_canmap_rx_stats(s->map, &rx);
    vd_canmap_tx_stats(s->map, &tx);
    tm->rx_frames = rx.frames;
    tm->rx_used = rx.used;
    tm->rx_rejected = rx.bad_len + rx.e2e_rejected;
    tm->rx_ignored = rx.unknown + rx.other;
    tm->e2e_ok = rx.e2e[VD_E2E_OK];
    tm->e2e_lost = rx.e2e[VD_E2E_OK_SOME_LOST];
    tm->e2e_error = rx.e2e[VD_E2E_ERROR];
    tm->e2e_repeated = rx.e2e[VD_E2E_REPEATED];
    tm->e2e_wrong_seq = rx.e2e[VD_E2E_WRONG_SEQUENCE];
    tm->values_rejected = rx.out_of_range + rx.nan + rx.invalid_value;
    tm->timeouts = rx.timeouts;
    tm->recoveries = rx.recoveries;
    tm->timed_out = rx.timed_out;
    tm->invalid = rx.invalid;
    tm->tx_frames = 0;
    tm->drops = tx.dropped;
    tm->timeout_mask = 0;
    for (int i = 0; i < nrx && i < VD_TM_CAN_MAX_IN; i++)
        if (st[i] & VD_CANMAP_ST_TIMEOUT)
            tm->timeout_mask |= 1ull << i;
    for (int b = 0; b < s->nbus; b++) {
        struct vd_can_stats cs;
        int bs;

        if (!s->bus[b])
            continue;
        vd_can_stats(s->bus[b], &cs);
        tm->tx_frames += cs.tx_frames;
        tm->drops += cs.tx_dropped + cs.tx_invalid + cs.tx_errors + cs.rx_overflow +
                     cs.rx_malformed + cs.udp_seq_lost + cs.rx_errors;
        bs = (int)vd_can_bus_state(s->bus[b]);
        if (bs <= VD_CAN_STATE_BUS_OFF && bs > worst)
            worst = bs;
    }
    tm->bus_state = worst < 0 ? VD_CAN_STATE_UNKNOWN : worst;
}

/* --- outputs ---------------------------------------------------------------------------- */

int app_can_add_outputs(struct vd_run_cfg *c, const struct app_can_side *s, FILE *errf)
{
    const int n = vd_canmap_nnames(s->map, VD_CANMAP_OUTPUTS);
    struct vd_signal *sig = realloc(c->out_sig, (size_t)(c->noutput + n + 1) * sizeof(*sig));
    char(*name)[VD_SIGNAME_MAX];

    if (!sig)
        return -1;
    c->out_sig = sig;
    name = realloc(c->out_name, (size_t)(c->noutput + n + 1) * sizeof(*name));
    if (!name)
        return -1;
    c->out_name = name;
    for (int i = 0; i < n; i++) {
        const char *nm = vd_canmap_name(s->map, VD_CANMAP_OUTPUTS, i);
        bool have = false;

        for (int k = 0; k < c->noutput && !have; k++)
            have = !strcmp(c->out_name[k], nm);
        if (have)
            continue;
        if (strlen(nm) >= VD_SIGNAME_MAX || vd_signal_resolve(c->m, nm, &c->out_sig[c->noutput])) {
            for (int k = 0; k < s->cfg->nsig; k++)
                if (!strcmp(s->cfg->sig[k].name, nm)) {
                    app_can_locate(errf, s->cfg, s->cfg->sig[k].line, s->cfg->sig[k].col);
                    break;
                }
            fprintf(errf,
                    "output '%s' is not a signal of model %s (rtvd sim --list-signals prints "
                    "them; --can MAPPING.yaml names a mapping for this vehicle, e.g. "
                    "config/can/hmmwv.yaml for the HMMWV's forms, --can off runs without CAN)\n",
                    nm, c->m->name);
            return -1;
        }
        snprintf(c->out_name[c->noutput], VD_SIGNAME_MAX, "%s", nm);
        c->noutput++;
    }
    return 0;
}

/* --- the link --------------------------------------------------------------------------- */

static void *zalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);

    if (p)
        memset(p, 0, (n ? n : 1) * size); /* touch now */
    return p;
}

static void publish_inputs(struct app_canlink *k, int64_t now)
{
    struct vd_snapshot *s = vd_loop_input_back(k->L);

    vd_canmap_rx_fill(k->side->map, s->value, vd_snapshot_valid(s), s->n);
    s->seq = ++k->st.inputs_published;
    s->stamp_ns = now;
    s->t = 0.0;
    s->flags = 0;
    vd_loop_input_publish(k->L);
}

/* the thread's callbacks (app/slots.h), below */
static void link_rx(void *ctx, int b, int64_t now);
static void link_rx_end(void *ctx, int64_t now);
static void link_tick(void *ctx, int64_t now, bool quiet);
static void link_slot(void *ctx, uint64_t sl, int64_t now);
static void link_exit(void *ctx);

int app_canlink_init(struct app_canlink *k, struct app_can_side *side, struct vd_loop *L,
                     const struct vd_model *m, const char *const *out_names, int nout,
                     const struct app_canlink_cfg *cfg, FILE *errf)
{
    const char **in_names = NULL;
    const int nmsg = vd_canmap_nmsg(side->map);
    int rc = -1;

    memset(k, 0, sizeof(*k));
    k->side = side;
    k->L = L;
    k->cfg = *cfg;
    k->m = m;
    k->nout = nout;
    k->out_names = out_names;
    k->slots.tfd = -1;
    /* the received table is the loop's input snapshot: model inputs in model order; the sent
     * values are the loop's output snapshot */
    in_names = calloc((size_t)m->ninput + 1, sizeof(*in_names));
    if (!in_names)
        goto out;
    for (int i = 0; i < m->ninput; i++)
        in_names[i] = m->input[i].name;
    if (vd_canmap_bind(side->map, VD_CANMAP_INPUTS, in_names, m->ninput, errf) ||
        vd_canmap_bind(side->map, VD_CANMAP_OUTPUTS, out_names, nout, errf))
        goto out;
    k->rxbuf = zalloc(APP_CAN_RXMAX, sizeof(*k->rxbuf));
    k->txbuf = zalloc(APP_CAN_TXMAX, sizeof(*k->txbuf));
    k->txlast = zalloc((size_t)nmsg, sizeof(*k->txlast));
    if (!k->rxbuf || !k->txbuf || !k->txlast)
        goto out_nomem;
    for (int i = 0; i < nmsg; i++) {
        k->txlast[i].value = zalloc((size_t)nout, sizeof(double));
        if (!k->txlast[i].value)
            goto out_nomem;
    }
    if (vd_mailbox_init(&k->tm, sizeof(struct vd_tm_can)))
        goto out_nomem;
    {
        static const struct app_slots_ops ops = {.rx = link_rx,
                                                 .rx_end = link_rx_end,
                                                 .tick = link_tick,
                                                 .slot = link_slot,
                                                 .exit = link_exit};
        const int e = app_slots_init(&k->slots, "vd-can", cfg->cpu, cfg->priority, side->bus,
                                     side->nbus, &ops, k);

        if (e) {
            if (errf)
                fprintf(errf, "rtvd run: timerfd_create: %s\n", strerror(-e));
            goto out;
        }
    }
    /* every mapped input valid at its safe value before the loop starts */
    vd_canmap_start(side->map, vd_clock_now());
    publish_inputs(k, vd_clock_now());
    rc = 0;
    goto out;
out_nomem:
    if (errf)
        fprintf(errf, "rtvd run: out of memory\n");
out:
    free(in_names);
    if (rc)
        app_canlink_free(k);
    return rc;
}

/* the message a frame the target sent belongs to, or -1 */
static int sent_msg(const struct app_canlink *k, int bus, const struct vd_can_frame *f)
{
    const int nmsg = vd_canmap_nmsg(k->side->map);

    for (int i = 0; i < nmsg; i++) {
        struct vd_canmap_msg_info mi;

        vd_canmap_msg_info(k->side->map, i, &mi);
        if (mi.sent && mi.bus == bus && mi.id == f->id && mi.ext == !!(f->flags & VD_CANF_EFF))
            return i;
    }
    return -1;
}

/* receive what bus b holds: every frame to the map */
static void link_rx(void *ctx, int b, int64_t now)
{
    struct app_canlink *k = ctx;
    struct app_can_side *s = k->side;

    /* bounded per wake-up: a flood cannot keep the thread from its slots */
    for (int round = 0; round < 16; round++) {
        const int n = vd_can_recv(s->bus[b], k->rxbuf, APP_CAN_RXMAX, 0);

        if (n < 0) {
            k->st.rx_errors++;
            return;
        }
        if (n == 0)
            return;
        k->st.rx_batches++;
        k->st.rx_frames += (uint64_t)n;
        for (int i = 0; i < n; i++)
            vd_canmap_rx(s->map, b, &k->rxbuf[i], k->rxbuf[i].t_ns > 0 ? k->rxbuf[i].t_ns : now);
        k->rx_any = true;
        if (n < APP_CAN_RXMAX && !vd_can_rx_pending(s->bus[b]))
            return;
    }
}

/* after a receive pass: the inputs to the loop */
static void link_rx_end(void *ctx, int64_t now)
{
    struct app_canlink *k = ctx;

    if (k->rx_any)
        publish_inputs(k, now);
    k->rx_any = false;
}

static void send_slot(struct app_canlink *k, uint64_t slot, const struct vd_snapshot *o)
{
    struct app_can_side *s = k->side;

    for (int b = 0; b < s->nbus; b++) {
        const int n = vd_canmap_tx_due(s->map, b, slot, o->value, k->txbuf, APP_CAN_TXMAX);

        if (n <= 0)
            continue;
        for (int i = 0; i < n; i++) {
            const int mi = sent_msg(k, b, &k->txbuf[i]);

            if (mi >= 0) {
                struct app_canlink_txlast *tl = &k->txlast[mi];

                tl->any = true;
                tl->cycle = o->seq;
                tl->t = o->t;
                tl->slot = slot;
                memcpy(tl->value, o->value, (size_t)k->nout * sizeof(double));
            }
        }
        k->st.tx_offered += (uint64_t)n;
        k->st.tx_sent += (uint64_t)vd_can_send_many(s->bus[b], k->txbuf, n);
    }
}

static void publish_status(struct app_canlink *k)
{
    struct vd_tm_can *tm = vd_mailbox_back(&k->tm);

    app_can_tm_fill(k->side, tm);
    tm->seq = ++k->st.status_published;
    tm->slots = k->slots.st.slots;
    tm->late_slots = k->slots.st.late_slots + k->slots.st.unserved_at_start;
    vd_mailbox_publish(&k->tm);
}

/* the timer: the newest outputs, timeouts, the inputs to the loop */
static void link_tick(void *ctx, int64_t now, bool quiet)
{
    struct app_canlink *k = ctx;
    bool fresh;
    const struct vd_snapshot *o = vd_loop_output(k->L, k->cfg.tap, &fresh);

    if (o)
        k->out = o;
    if (fresh)
        k->st.outputs_taken++;
    if (!quiet)
        vd_canmap_rx_check_timeouts(k->side->map, now);
    publish_inputs(k, now);
}

/* a slot: the frames due, the transports' service, the status */
static void link_slot(void *ctx, uint64_t sl, int64_t now)
{
    struct app_canlink *k = ctx;
    struct app_can_side *s = k->side;

    if (!k->out) {
        k->st.tx_no_output++;
        return;
    }
    send_slot(k, sl, k->out);
    if (sl % 5 == 0) {
        for (int b = 0; b < s->nbus; b++)
            vd_can_service(s->bus[b], now);
        k->st.services++;
    }
    if (sl % 10 == 0)
        publish_status(k);
}

static void link_exit(void *ctx)
{
    publish_status(ctx);
}

int app_canlink_start(struct app_canlink *k, int64_t first_release)
{
    const int64_t now = vd_clock_now();

    /* timeouts count from the first release (the ECU's time 0 in-process), or from now */
    vd_canmap_start(k->side->map, first_release > now ? first_release : now);
    return app_slots_start(&k->slots, first_release + k->cfg.tx_offset_ns);
}

void app_canlink_quiesce(struct app_canlink *k)
{
    app_slots_quiesce(&k->slots);
}

void app_canlink_stop(struct app_canlink *k)
{
    app_slots_stop(&k->slots);
}

void app_canlink_free(struct app_canlink *k)
{
    const int nmsg = k->side && k->side->map ? vd_canmap_nmsg(k->side->map) : 0;

    app_slots_free(&k->slots);
    vd_mailbox_free(&k->tm);
    for (int i = 0; k->txlast && i < nmsg; i++)
        free(k->txlast[i].value);
    free(k->txlast);
    free(k->rxbuf);
    free(k->txbuf);
    k->txlast = NULL;
    k->rxbuf = k->txbuf = NULL;
}

/* --- reports ------------------------------------------------------------------------------ */

static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        if ((unsigned char)*s >= 0x20)
            fputc(*s, f);
    }
    fputc('"', f);
}

static void jnum(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.9g", v);
    else
        fputs("null", f);
}

static const char *status_name(uint8_t st)
{
    if (st & VD_CANMAP_ST_TIMEOUT)
        return "timeout";
    if (st & VD_CANMAP_ST_INVALID)
        return "invalid";
    if (st & VD_CANMAP_ST_NODATA)
        return "nodata";
    return "ok";
}

void app_can_buses_json(const struct app_can_side *s, FILE *f)
{
    fputc('[', f);
    for (int b = 0; b < s->nbus; b++) {
        struct vd_can_stats cs;

        vd_can_stats(s->bus[b], &cs);
        fprintf(f, "%s{\"name\": ", b ? ", " : "");
        jstr(f, s->bcfg[b].name);
        fprintf(f, ", \"kind\": \"%s\", \"describe\": ", vd_can_kind_name(s->bcfg[b].kind));
        jstr(f, vd_can_describe(s->bus[b]));
        fprintf(f, ", \"state\": \"%s\", \"stats\": {",
                vd_can_state_name(vd_can_bus_state(s->bus[b])));
        {
            int first = 1;
#define VD_J(n, c)                                                                                 \
    fprintf(f, "%s\"%s\": %" PRIu64, first ? "" : ", ", #n, cs.n);                                 \
    first = 0;
            VD_CAN_STATS(VD_J)
#undef VD_J
        }
        fprintf(f, "}}");
    }
    fputc(']', f);
}

void app_canlink_json(const struct app_canlink *k, FILE *f)
{
    const struct app_can_side *s = k->side;
    const struct app_canlink_stats *st = &k->st;
    const int nmsg = vd_canmap_nmsg(s->map), nrx = vd_canmap_rx_count(s->map);
    const double *v = vd_canmap_rx_values(s->map);
    const uint8_t *valid = vd_canmap_rx_valid(s->map), *sts = vd_canmap_rx_status(s->map);
    int first = 1;

    fprintf(f, "{\"mapping\": ");
    jstr(f, s->cfg->file);
    fprintf(f, ", \"name\": ");
    jstr(f, s->cfg->name);
    fprintf(f,
            ", \"role\": \"target\", \"thread\": {\"tid\": %d, \"policy\": \"%s\", \"priority\": "
            "%d, \"cpu\": %d, \"affinity\": ",
            (int)k->slots.sched.tid, vd_sched_policy_name(k->slots.sched.policy),
            k->slots.sched.priority, k->slots.sched.cpu);
    jstr(f, k->slots.sched.affinity);
    fprintf(f,
            ", \"fifo_requested\": %s, \"fifo_error\": ", k->cfg.priority > 0 ? "true" : "false");
    if (k->slots.thread.fifo_errno)
        jstr(f, strerror(k->slots.thread.fifo_errno));
    else
        fputs("null", f);
    fprintf(f,
            "}, \"counters\": {\"wakeups\": %" PRIu64 ", \"slots\": %" PRIu64
            ", \"late_slots\": %" PRIu64 ", \"skipped_slots\": %" PRIu64
            ", \"unserved_at_start\": %" PRIu64 ", \"tx_no_output\": %" PRIu64
            ", \"outputs_taken\": %" PRIu64 ", \"inputs_published\": %" PRIu64
            ", \"rx_frames\": %" PRIu64 ", \"rx_batches\": %" PRIu64 ", \"rx_errors\": %" PRIu64
            ", \"tx_offered\": %" PRIu64 ", \"tx_sent\": %" PRIu64 ", \"services\": %" PRIu64
            ", \"status_published\": %" PRIu64 "}, \"buses\": ",
            k->slots.st.wakeups, k->slots.st.slots, k->slots.st.late_slots,
            k->slots.st.skipped_slots, k->slots.st.unserved_at_start, st->tx_no_output,
            st->outputs_taken, st->inputs_published, st->rx_frames, st->rx_batches, st->rx_errors,
            st->tx_offered, st->tx_sent, st->services, st->status_published);
    app_can_buses_json(s, f);
    fprintf(f, ", \"map\": ");
    vd_canmap_report_json(s->map, f);
    fprintf(f, ", \"inputs\": [");
    for (int i = 0; i < nrx; i++) {
        if (!valid[i])
            continue;
        fprintf(f, "%s{\"name\": ", first ? "" : ", ");
        jstr(f, vd_canmap_name(s->map, VD_CANMAP_INPUTS, i));
        fprintf(f, ", \"status\": \"%s\", \"value\": ", status_name(sts[i]));
        jnum(f, v[i]);
        fputc('}', f);
        first = 0;
    }
    fprintf(f, "], \"tx_last\": {");
    first = 1;
    for (int i = 0; i < nmsg; i++) {
        struct vd_canmap_msg_info mi;
        const struct app_canlink_txlast *tl = &k->txlast[i];

        vd_canmap_msg_info(s->map, i, &mi);
        if (!mi.sent || !tl->any)
            continue;
        /* the values the message carries: its mapped output signals */
        fprintf(f, "%s\n    ", first ? "" : ",");
        jstr(f, mi.name);
        fprintf(f, ": {\"cycle\": %" PRIu64 ", \"t\": %.9g, \"slot\": %" PRIu64 ", \"values\": {",
                tl->cycle, tl->t, tl->slot);
        {
            int fv = 1;

            for (int m = 0; m < s->cfg->nmsg; m++) {
                const struct vd_candesc_msg *cm = &s->cfg->msg[m];

                if (cm->dir != VD_CANDESC_TX || strcmp(cm->message, mi.name))
                    continue;
                for (int j = cm->sig0; j < cm->sig0 + cm->nsig; j++) {
                    const char *nm = s->cfg->sig[j].name;

                    if (!nm[0])
                        continue;
                    for (int o = 0; o < k->nout; o++)
                        if (!strcmp(k->out_names[o], nm)) {
                            fprintf(f, "%s", fv ? "" : ", ");
                            jstr(f, nm);
                            fputs(": ", f);
                            jnum(f, tl->value[o]);
                            fv = 0;
                            break;
                        }
                }
            }
        }
        fputs("}}", f);
        first = 0;
    }
    fputs("}}", f);
}

void app_canlink_summary(const struct app_canlink *k, FILE *f, const char *in)
{
    const struct app_can_side *s = k->side;
    struct vd_canmap_rx_stats rx;
    struct vd_canmap_tx_stats tx;
    struct vd_tm_can tm;

    vd_canmap_rx_stats(s->map, &rx);
    vd_canmap_tx_stats(s->map, &tx);
    app_can_tm_fill(s, &tm);
    fprintf(f,
            "%sCAN %s (%s): rx %" PRIu64 " frames, %" PRIu64 " used; E2E ok %" PRIu64
            ", ok-some-lost %" PRIu64 ", error %" PRIu64 ", repeated %" PRIu64
            ", wrong-sequence %" PRIu64 "; rejected: %" PRIu64 " bad length, %" PRIu64
            " out of range, %" PRIu64 " NaN, %" PRIu64 " invalid values; %" PRIu64 " unknown ids\n",
            in, s->cfg->name, s->cfg->file, rx.frames, rx.used, rx.e2e[VD_E2E_OK],
            rx.e2e[VD_E2E_OK_SOME_LOST], rx.e2e[VD_E2E_ERROR], rx.e2e[VD_E2E_REPEATED],
            rx.e2e[VD_E2E_WRONG_SEQUENCE], rx.bad_len, rx.out_of_range, rx.nan, rx.invalid_value,
            rx.unknown + rx.other);
    fprintf(f,
            "%s  timeouts %" PRIu64 " (recovered %" PRIu64 ", %u inputs in timeout at the end); "
            "tx %" PRIu64 " frames (%" PRIu64 " clamped values); drops %" PRIu64 "; slots %" PRIu64
            " (%" PRIu64 " late, %" PRIu64 " skipped, %" PRIu64
            " before the thread began), %" PRIu64 " input snapshots\n",
            in, rx.timeouts, rx.recoveries, rx.timed_out, tm.tx_frames, tx.clamped, tm.drops,
            k->slots.st.slots, k->slots.st.late_slots, k->slots.st.skipped_slots,
            k->slots.st.unserved_at_start, k->st.inputs_published);
    {
        /* what the model got from the bus at the end: the mapped inputs */
        const int nrx = vd_canmap_rx_count(s->map);
        const double *v = vd_canmap_rx_values(s->map);
        const uint8_t *valid = vd_canmap_rx_valid(s->map), *sts = vd_canmap_rx_status(s->map);
        int n = 0;

        fprintf(f, "%s  inputs from CAN at the end [model units]:", in);
        for (int i = 0; i < nrx; i++) {
            if (!valid[i])
                continue;
            fprintf(f, "%s %s %.4g%s%s", n ? "," : "", vd_canmap_name(s->map, VD_CANMAP_INPUTS, i),
                    v[i], sts[i] ? " " : "", sts[i] ? status_name(sts[i]) : "");
            n++;
        }
        fprintf(f, "\n");
    }
    for (int b = 0; b < s->nbus; b++) {
        struct vd_can_stats cs;
        char buf[1024];

        vd_can_stats(s->bus[b], &cs);
        vd_can_stats_format(&cs, buf, sizeof(buf));
        fprintf(f, "%s  bus %s (%s): %s\n", in, s->bcfg[b].name, vd_can_kind_name(s->bcfg[b].kind),
                buf);
    }
    fprintf(f, "%s  CAN thread %d: %s priority %d on cpu %d (affinity %s)\n", in,
            (int)k->slots.sched.tid, vd_sched_policy_name(k->slots.sched.policy),
            k->slots.sched.priority, k->slots.sched.cpu, k->slots.sched.affinity);
}
