/* io/canmap.c - CAN signal mapping, RT-safe: the receive path (length, E2E, decode, range,
 * NaN, safe values, timeouts), the send path (convert, clamp, encode, E2E, faults), queries
 * and counters. The map is built by io/canmap_build.c and reported by io/canmap_report.c. */
#include "canmap.h"
#include "canmap_priv.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* --- queries ----------------------------------------------------------------------------- */

int vd_canmap_role(const struct vd_canmap *map)
{
    return map->role;
}

int vd_canmap_nmsg(const struct vd_canmap *map)
{
    return map->nmsg;
}

void vd_canmap_msg_info(const struct vd_canmap *map, int i, struct vd_canmap_msg_info *out)
{
    const struct cm_msg *cm = &map->msg[i];

    *out = (struct vd_canmap_msg_info){
        .name = cm->m->name,
        .id = cm->m->id,
        .ext = cm->m->ext,
        .fd = cm->m->fd,
        .len = cm->m->len,
        .bus = cm->bus,
        .dir = cm->dir,
        .sent = cm->send,
        .cycle_ms = cm->cycle_ms,
        .phase_ms = cm->phase_ms,
        .timeout_ns = cm->timeout_ns,
        .e2e = cm->profile,
        .nsig = cm->nsig,
    };
}

int vd_canmap_find_msg(const struct vd_canmap *map, const char *name)
{
    for (int i = 0; i < map->nmsg; i++)
        if (!strcmp(map->msg[i].m->name, name))
            return i;
    return -1;
}

int vd_canmap_msg_nsig(const struct vd_canmap *map, int msg)
{
    return map->msg[msg].nsig;
}

const char *vd_canmap_sig_name(const struct vd_canmap *map, int msg, int k)
{
    return map->sig[map->msg[msg].sig0 + k].s->name;
}

const struct vd_canmap_sig_stats *vd_canmap_sig_stats(const struct vd_canmap *map, int msg, int k)
{
    return &map->sig[map->msg[msg].sig0 + k].st;
}

const struct vd_canmap_msg_stats *vd_canmap_msg_stats(const struct vd_canmap *map, int msg)
{
    return &map->msg[msg].st;
}

/* --- run time: common -------------------------------------------------------------------- */

static void e2e_init(struct cm_msg *cm)
{
    switch (cm->profile) {
    case VD_CANMAP_E2E_P01:
        vd_e2e_p01_tx_init(&cm->etx);
        vd_e2e_p01_rx_init(&cm->erx);
        break;
    case VD_CANMAP_E2E_P02:
        vd_e2e_p02_tx_init(&cm->etx);
        vd_e2e_p02_rx_init(&cm->erx);
        break;
    case VD_CANMAP_E2E_P05:
        vd_e2e_p05_tx_init(&cm->etx);
        vd_e2e_p05_rx_init(&cm->erx);
        break;
    default:
        break;
    }
    cm->etx_before = cm->etx;
    cm->sent_any = false;
    cm->rx_any = false;
}

/* a receiving entry's signal: the map's signals that write the received table */
static bool receives(const struct vd_canmap *map, const struct cm_sig *cs)
{
    return cs->name && cs->slot >= 0 && cs->side == map->rxside;
}

void vd_canmap_start(struct vd_canmap *map, int64_t now_ns)
{
    const int n = map->nname[map->rxside];

    for (int j = 0; j < n; j++) {
        map->rx_value[j] = 0.0;
        map->rx_valid[j] = 0;
        map->rx_status[j] = 0;
    }
    for (int i = 0; i < map->nsig; i++) {
        struct cm_sig *cs = &map->sig[i];

        cs->last_ns = now_ns;
        if (!receives(map, cs))
            continue;
        map->rx_value[cs->slot] = cs->safe == VD_CANMAP_SAFE_VALUE ? cs->safe_value : 0.0;
        map->rx_valid[cs->slot] = 1;
        map->rx_status[cs->slot] = VD_CANMAP_ST_NODATA;
    }
    for (int i = 0; i < map->nmsg; i++) {
        struct cm_msg *cm = &map->msg[i];

        e2e_init(cm);
        cm->next_group = 0;
        cm->st.last_ns = 0;
        /* the clamp range's 0 is the first "last value" of a sent signal */
        for (int k = 0; k < cm->nsig; k++) {
            struct cm_sig *cs = &map->sig[cm->sig0 + k];

            cs->last_phys = cm_clamp(0.0, cs->lo, cs->hi);
        }
    }
}

/* the message index of a received key, or -1 (binary search) */
static int find_rx(const struct vd_canmap *map, uint64_t key)
{
    int lo = 0, hi = map->nrx;

    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;

        if (map->rx_key[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < map->nrx && map->rx_key[lo] == key ? map->rx_msg[lo] : -1;
}

/* --- run time: receiving ----------------------------------------------------------------- */

static bool e2e_rejects(enum vd_e2e_status st)
{
    return st == VD_E2E_ERROR || st == VD_E2E_REPEATED || st == VD_E2E_WRONG_SEQUENCE;
}

/* a rejected value: the safe value (hold: unchanged) and INVALID */
static void reject(struct vd_canmap *map, struct cm_sig *cs)
{
    if (cs->safe == VD_CANMAP_SAFE_VALUE)
        map->rx_value[cs->slot] = cs->safe_value;
    map->rx_status[cs->slot] |= VD_CANMAP_ST_INVALID;
}

int vd_canmap_rx(struct vd_canmap *map, int bus, const struct vd_can_frame *f, int64_t now_ns)
{
    struct cm_msg *cm;
    enum vd_e2e_status st = VD_E2E_OK;
    int i;

    map->rx.frames++;
    if (f->flags & (VD_CANF_ERR | VD_CANF_RTR)) {
        map->rx.other++;
        return VD_CANMAP_RX_OTHER;
    }
    i = find_rx(map, cm_rx_key(bus, (f->flags & VD_CANF_EFF) != 0, f->id));
    if (i < 0) {
        map->rx.unknown++;
        return VD_CANMAP_RX_UNKNOWN;
    }
    cm = &map->msg[i];
    cm->st.frames++;
    if (f->len != cm->m->len) {
        cm->st.bad_len++;
        map->rx.bad_len++;
        return VD_CANMAP_RX_BAD_LEN;
    }
    switch (cm->profile) {
    case VD_CANMAP_E2E_P01:
        st = vd_e2e_p01_check(&cm->p01, &cm->erx, f->data, f->len);
        break;
    case VD_CANMAP_E2E_P02:
        st = vd_e2e_p02_check(&cm->p02, &cm->erx, f->data, f->len);
        break;
    case VD_CANMAP_E2E_P05:
        st = vd_e2e_p05_check(&cm->p05, &cm->erx, f->data, f->len);
        break;
    default:
        break;
    }
    if (cm->profile != VD_CANMAP_E2E_NONE) {
        /* the first frame since the start with a good CRC is taken as it comes (AUTOSAR's
         * WaitForFirstData, P01/P02 status INITIAL): a receiver that starts after its sender
         * takes the sender's counter over instead of rejecting the first frame as REPEATED or
         * WRONG_SEQUENCE; the check above already took the counter */
        if (!cm->rx_any && (st == VD_E2E_REPEATED || st == VD_E2E_WRONG_SEQUENCE))
            st = VD_E2E_OK;
        if (st != VD_E2E_ERROR)
            cm->rx_any = true;
        cm->st.e2e[st]++;
        map->rx.e2e[st]++;
        if (e2e_rejects(st)) {
            cm->st.e2e_rejected++;
            map->rx.e2e_rejected++;
            return VD_CANMAP_RX_E2E;
        }
    }
    cm->st.used++;
    cm->st.last_ns = now_ns;
    map->rx.used++;
    for (int k = 0; k < cm->nsig; k++) {
        struct cm_sig *cs = &map->sig[cm->sig0 + k];
        double phys, v;
        int rc;

        if (!receives(map, cs))
            continue;
        rc = vd_dbc_decode(f->data, f->len, cm->m, cs->s, &phys);
        if (rc == -ENOENT)
            continue; /* multiplexed: another group */
        if (rc == -EINVAL)
            continue; /* cannot happen: the length equals the DBC's, whose signals fit */
        if (rc == -EDOM) {
            cs->st.nan++;
            map->rx.nan++;
            reject(map, cs);
            continue;
        }
        if (cs->has_invalid && vd_dbc_get_raw(f->data, cs->s) == cs->invalid_raw) {
            cs->st.invalid_value++;
            map->rx.invalid_value++;
            reject(map, cs);
            continue;
        }
        /* 0, or -ERANGE (outside the DBC's range, phys written): the mapping's range decides */
        if (!(phys >= cs->lo && phys <= cs->hi)) {
            cs->st.out_of_range++;
            map->rx.out_of_range++;
            reject(map, cs);
            continue;
        }
        v = phys * cs->k + cs->off;
        if (!isfinite(v)) {
            cs->st.nan++;
            map->rx.nan++;
            reject(map, cs);
            continue;
        }
        if (map->rx_status[cs->slot] & VD_CANMAP_ST_TIMEOUT) {
            cs->st.recoveries++;
            map->rx.recoveries++;
        }
        map->rx_value[cs->slot] = v;
        map->rx_status[cs->slot] = 0;
        cs->last_ns = now_ns;
        cs->st.updates++;
        map->rx.updates++;
    }
    return VD_CANMAP_RX_USED;
}

int vd_canmap_rx_check_timeouts(struct vd_canmap *map, int64_t now_ns)
{
    int n = 0;

    for (int i = 0; i < map->nsig; i++) {
        struct cm_sig *cs = &map->sig[i];

        if (!receives(map, cs) || cs->timeout_ns <= 0 ||
            (map->rx_status[cs->slot] & VD_CANMAP_ST_TIMEOUT) ||
            now_ns - cs->last_ns <= cs->timeout_ns)
            continue;
        if (cs->safe == VD_CANMAP_SAFE_VALUE)
            map->rx_value[cs->slot] = cs->safe_value;
        map->rx_status[cs->slot] |= VD_CANMAP_ST_TIMEOUT;
        cs->st.timeouts++;
        map->rx.timeouts++;
        n++;
    }
    return n;
}

int vd_canmap_rx_count(const struct vd_canmap *map)
{
    return map->nname[map->rxside];
}

const double *vd_canmap_rx_values(const struct vd_canmap *map)
{
    return map->rx_value;
}

const uint8_t *vd_canmap_rx_valid(const struct vd_canmap *map)
{
    return map->rx_valid;
}

const uint8_t *vd_canmap_rx_status(const struct vd_canmap *map)
{
    return map->rx_status;
}

void vd_canmap_rx_fill(const struct vd_canmap *map, double *value, uint8_t *valid, int n)
{
    const int nb = map->nname[map->rxside];

    for (int j = 0; j < n; j++) {
        value[j] = j < nb ? map->rx_value[j] : 0.0;
        valid[j] = j < nb ? map->rx_valid[j] : 0;
    }
}

/* --- run time: sending ------------------------------------------------------------------- */

static uint8_t counter_modulus(int profile)
{
    return profile == VD_CANMAP_E2E_P01 ? 15 : profile == VD_CANMAP_E2E_P02 ? 16 : 0;
}

static void protect(struct cm_msg *cm, uint8_t *data, int len)
{
    const struct vd_e2e_tx before = cm->etx;
    int mdc = 0;

    if (cm->profile == VD_CANMAP_E2E_NONE)
        return;
    if ((cm->fault & VD_CANMAP_FAULT_REPEAT_COUNTER) && cm->sent_any)
        cm->etx = cm->etx_before; /* the previous frame's counter again */
    else
        cm->etx_before = before;
    if (cm->fault & VD_CANMAP_FAULT_JUMP_COUNTER) {
        const uint8_t mod = counter_modulus(cm->profile);

        mdc = cm->profile == VD_CANMAP_E2E_P01   ? cm->p01.max_delta_counter
              : cm->profile == VD_CANMAP_E2E_P02 ? cm->p02.max_delta_counter
                                                 : cm->p05.max_delta_counter;
        cm->etx.counter = (uint8_t)(mod ? (cm->etx.counter + mdc) % mod : cm->etx.counter + mdc);
    }
    switch (cm->profile) {
    case VD_CANMAP_E2E_P01:
        vd_e2e_p01_protect(&cm->p01, &cm->etx, data, len);
        if (cm->fault & VD_CANMAP_FAULT_BAD_CRC)
            data[cm->p01.crc_offset / 8] ^= 0xFF;
        break;
    case VD_CANMAP_E2E_P02:
        vd_e2e_p02_protect(&cm->p02, &cm->etx, data, len);
        if (cm->fault & VD_CANMAP_FAULT_BAD_CRC)
            data[0] ^= 0xFF;
        break;
    case VD_CANMAP_E2E_P05:
        vd_e2e_p05_protect(&cm->p05, &cm->etx, data, len);
        if (cm->fault & VD_CANMAP_FAULT_BAD_CRC)
            data[cm->p05.offset / 8] ^= 0xFF;
        break;
    default:
        break;
    }
    cm->sent_any = true;
}

/* the largest raw value of an integer field, NaN for a float field */
/* the value faults on one signal, counted as what they wrote; the fault bits that acted */
static unsigned fault_value(struct cm_msg *cm, uint8_t *data, const struct cm_sig *cs)
{
    const struct vd_dbc_sig *s = cs->s;
    const unsigned faults = cm->fault;
    unsigned did = 0;

    if ((faults & VD_CANMAP_FAULT_OUT_OF_RANGE) && s->vtype == VD_DBC_INT) {
        const uint64_t raw = s->is_signed ? (1ull << (s->size - 1)) - 1
                                          : (s->size >= 64 ? ~0ull : (1ull << s->size) - 1);
        const double phys =
            (s->is_signed ? (double)(int64_t)raw : (double)raw) * s->factor + s->offset;

        vd_dbc_set_raw(data, s, raw);
        if (phys < cs->lo || phys > cs->hi) {
            cm->st.fault_range++;
            did |= VD_CANMAP_FAULT_OUT_OF_RANGE;
        }
    }
    if (faults & VD_CANMAP_FAULT_NAN) {
        if (s->vtype == VD_DBC_FLOAT32 || s->vtype == VD_DBC_FLOAT64) {
            vd_dbc_set_raw(data, s,
                           s->vtype == VD_DBC_FLOAT32 ? 0x7FC00000ull : 0x7FF8000000000000ull);
            cm->st.fault_nan++;
            did |= VD_CANMAP_FAULT_NAN;
        } else if (cs->has_invalid) {
            /* what a real ECU sends for a value it does not have */
            vd_dbc_set_raw(data, s, cs->invalid_raw);
            cm->st.fault_invalid++;
            did |= VD_CANMAP_FAULT_NAN;
        }
    }
    return did;
}

static void build_frame(struct vd_canmap *map, struct cm_msg *cm, const double *values,
                        struct vd_can_frame *f)
{
    const struct vd_dbc_msg *m = cm->m;
    const int g = cm->ngroup ? (int)(cm->next_group % (unsigned)cm->ngroup) : 0;

    memset(f, 0, sizeof(*f));
    f->id = m->id;
    f->flags = (uint8_t)((m->ext ? VD_CANF_EFF : 0) | (m->fd ? VD_CANF_FD : 0));
    f->len = m->len;
    memcpy(f->data, cm->tmpl + (size_t)g * m->len, m->len);
    if (cm->ngroup)
        cm->next_group++;
    unsigned did = 0;

    for (int k = 0; k < cm->nsig; k++) {
        struct cm_sig *cs = &map->sig[cm->sig0 + k];
        double phys, c;

        if (cs->constant || cs->slot < 0 || (cs->group >= 0 && cs->group != g))
            continue;
        phys = (values[cs->slot] - cs->off) / cs->k;
        if (!isfinite(phys)) {
            cs->st.nan++;
            map->tx.nan++;
            phys = cs->last_phys;
        }
        c = cm_clamp(phys, cs->lo, cs->hi);
        if (c != phys) {
            cs->st.clamped++;
            map->tx.clamped++;
        }
        if (vd_dbc_encode(f->data, f->len, m, cs->s, c))
            map->tx_errors++;
        else
            cs->last_phys = c;
        cs->st.updates++;
        if (cm->fault & (VD_CANMAP_FAULT_OUT_OF_RANGE | VD_CANMAP_FAULT_NAN))
            did |= fault_value(cm, f->data, cs);
    }
    cm->st.fault_frames_nan += (did & VD_CANMAP_FAULT_NAN) != 0;
    cm->st.fault_frames_range += (did & VD_CANMAP_FAULT_OUT_OF_RANGE) != 0;
    protect(cm, f->data, f->len);
    if ((cm->fault & VD_CANMAP_FAULT_SHORT) && f->len > 0)
        f->len--;
}

int vd_canmap_tx_due(struct vd_canmap *map, int bus, uint64_t slot_ms, const double *values,
                     struct vd_can_frame *out, int max)
{
    int n = 0;

    for (int i = 0; i < map->nmsg; i++) {
        struct cm_msg *cm = &map->msg[i];

        if (!cm->send || cm->bus != bus ||
            slot_ms % (uint64_t)cm->cycle_ms != (uint64_t)cm->phase_ms)
            continue;
        if (cm->fault & VD_CANMAP_FAULT_SILENT) {
            cm->st.suppressed++;
            map->tx.suppressed++;
            continue;
        }
        if (n >= max) {
            cm->st.dropped++;
            map->tx.dropped++;
            continue;
        }
        build_frame(map, cm, values, &out[n++]);
        cm->st.frames++;
        map->tx.frames++;
    }
    return n;
}

unsigned vd_canmap_fault_effective(const struct vd_canmap *map, int msg)
{
    const struct cm_msg *cm;
    unsigned ok = VD_CANMAP_FAULT_SILENT;

    if (msg < 0 || msg >= map->nmsg)
        return 0;
    cm = &map->msg[msg];
    if (cm->m->len > 0)
        ok |= VD_CANMAP_FAULT_SHORT;
    if (cm->profile != VD_CANMAP_E2E_NONE)
        ok |=
            VD_CANMAP_FAULT_BAD_CRC | VD_CANMAP_FAULT_REPEAT_COUNTER | VD_CANMAP_FAULT_JUMP_COUNTER;
    for (int k = 0; k < cm->nsig; k++) {
        const struct cm_sig *cs = &map->sig[cm->sig0 + k];
        const struct vd_dbc_sig *s = cs->s;

        if (cs->constant || cs->slot < 0)
            continue;
        if (s->vtype != VD_DBC_INT || cs->has_invalid)
            ok |= VD_CANMAP_FAULT_NAN;
        if (s->vtype == VD_DBC_INT) {
            /* the raw value fault_value writes, outside the range the receiver accepts */
            const double raw =
                s->is_signed ? ldexp(1.0, s->size - 1) - 1.0 : ldexp(1.0, s->size) - 1.0;
            const double phys = raw * s->factor + s->offset;

            if (phys < cs->lo || phys > cs->hi)
                ok |= VD_CANMAP_FAULT_OUT_OF_RANGE;
        }
    }
    return ok;
}

void vd_canmap_set_fault(struct vd_canmap *map, int msg, unsigned faults)
{
    if (msg >= 0 && msg < map->nmsg)
        map->msg[msg].fault = faults;
}

/* --- counters ---------------------------------------------------------------------------- */

void vd_canmap_rx_stats(const struct vd_canmap *map, struct vd_canmap_rx_stats *out)
{
    const int n = map->nname[map->rxside];

    *out = map->rx;
    out->timed_out = 0;
    out->invalid = 0;
    for (int j = 0; j < n; j++) {
        out->timed_out += (map->rx_status[j] & VD_CANMAP_ST_TIMEOUT) != 0;
        out->invalid += (map->rx_status[j] & VD_CANMAP_ST_INVALID) != 0;
    }
}

void vd_canmap_tx_stats(const struct vd_canmap *map, struct vd_canmap_tx_stats *out)
{
    *out = map->tx;
    out->errors = map->tx_errors;
}
