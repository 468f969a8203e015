/* io/canmap_build.c - CAN signal mapping, init-time: resolution of a description against its
 * DBCs (units, ranges, E2E layouts, multiplex groups, located errors), send phase spreading,
 * frame templates, the receive dispatch table and the binding of names. Allocates and
 * prints; the RT-safe receive and send paths are in io/canmap.c. */
#include "canmap.h"
#include "canmap_priv.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* --- units ----------------------------------------------------------------------------- */

static const struct {
    const char *unit; /* normalized spelling */
    double factor;    /* to SI */
} units[] = {
    {"", 1.0},
    {"-", 1.0},
    {"1", 1.0},
    {"rad", 1.0},
    {"rad/s", 1.0},
    {"rad/s2", 1.0},
    {"rad/s^2", 1.0},
    {"m", 1.0},
    {"m/s", 1.0},
    {"m/s2", 1.0},
    {"m/s^2", 1.0},
    {"N", 1.0},
    {"Nm", 1.0},
    {"s", 1.0},
    {"Pa", 1.0},
    {"kg", 1.0},
    {"mm", 1e-3},
    {"cm", 1e-2},
    {"km/h", 1.0 / 3.6},
    {"kph", 1.0 / 3.6},
    {"mm/s", 1e-3},
    {"ms", 1e-3},
    {"kN", 1e3},
    {"kNm", 1e3},
    {"bar", 1e5},
    {"kPa", 1e3},
    {"%", 1e-2},
    {"g", 9.80665},
    {"deg", M_PI / 180},
    {"°", M_PI / 180},
    {"deg/s", M_PI / 180},
    {"°/s", M_PI / 180},
    {"deg/s2", M_PI / 180},
    {"rpm", 2 * M_PI / 60},
    {"1/min", 2 * M_PI / 60},
    {"\xb0", M_PI / 180},
    {"\xb0/s", M_PI / 180}, /* Latin-1 degree sign, as DBCs often are */
};

/* spaces, '*' and '.' dropped ("N m", "N*m", "N.m" -> "Nm") */
static void unit_norm(char *out, size_t size, const char *u)
{
    size_t n = 0;

    for (; *u && n + 1 < size; u++)
        if (*u != ' ' && *u != '*' && *u != '.')
            out[n++] = *u;
    out[n] = '\0';
}

bool vd_canmap_unit_factor(const char *unit, double *factor)
{
    char buf[32];

    if (strlen(unit) >= sizeof(buf))
        return false;
    unit_norm(buf, sizeof(buf), unit);
    for (int i = 0; i < COUNT(units); i++)
        if (!strcmp(buf, units[i].unit)) {
            *factor = units[i].factor;
            return true;
        }
    return false;
}

/* --- diagnostics ------------------------------------------------------------------------- */

struct build {
    const struct vd_candesc *d;
    const struct vd_dbc *const *dbc; /* (d->nbus) */
    struct vd_canmap *map;
    FILE *errf;
    int nerr;
};

static void __attribute__((format(printf, 4, 5)))
err_at(struct build *b, int line, int col, const char *fmt, ...)
{
    va_list ap;

    b->nerr++;
    if (!b->errf)
        return;
    fprintf(b->errf, "%s:%d:%d: error: ", b->d->file[0] ? b->d->file : "<can map>", line, col);
    va_start(ap, fmt);
    vfprintf(b->errf, fmt, ap);
    va_end(ap);
    fputc('\n', b->errf);
}

static const char *dir_name(int dir)
{
    return dir == VD_CANMAP_RX ? "rx" : "tx";
}

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);

    if (p)
        memcpy(p, s, n);
    return p;
}

/* --- ranges ------------------------------------------------------------------------------ */

/* [lo, hi] the raw field of s can hold, in DBC units */
static void representable(const struct vd_dbc_sig *s, double *lo, double *hi)
{
    double a, b;

    if (s->vtype != VD_DBC_INT) {
        *lo = -INFINITY;
        *hi = INFINITY;
        return;
    }
    a = s->raw_lo * s->factor + s->offset;
    b = (s->raw_hi - 1.0) * s->factor + s->offset;
    *lo = fmin(a, b);
    *hi = fmax(a, b);
}

/* the DBC's [min, max] (with its rounding slack) or, when not given, what the field holds */
static void dbc_range(const struct vd_dbc_sig *s, double *lo, double *hi)
{
    if (s->min < s->max) {
        *lo = s->min - s->tol;
        *hi = s->max + s->tol;
    } else {
        representable(s, lo, hi);
    }
}

/* bit mask of the field of s in a len-byte frame */
static void sig_mask(uint8_t *mask, const struct vd_dbc_sig *s)
{
    vd_dbc_set_raw(mask, s, s->size >= 64 ? ~0ull : (1ull << s->size) - 1);
}

static void bits_mask(uint8_t *mask, int off, int nbits)
{
    for (int b = off; b < off + nbits; b++)
        mask[b / 8] |= (uint8_t)(1u << (b % 8));
}

static bool overlap(const uint8_t *a, const uint8_t *b, int len)
{
    for (int i = 0; i < len; i++)
        if (a[i] & b[i])
            return true;
    return false;
}

/* --- E2E resolution ---------------------------------------------------------------------- */

static const struct vd_dbc_sig *e2e_sig(struct build *b, const struct vd_candesc_msg *dm,
                                        const char *where, const struct vd_dbc_msg *m,
                                        const char *name, const char *what)
{
    const struct vd_dbc_sig *s;

    if (!name)
        return NULL;
    s = vd_dbc_find_sig(m, name);
    if (!s)
        err_at(b, dm->line, dm->col, "%s: e2e.%s: the DBC message has no signal '%s'", where, what,
               name);
    else if (s->mux == VD_DBC_MUXED)
        err_at(b, dm->line, dm->col, "%s: e2e.%s: '%s' is multiplexed", where, what, name);
    return s;
}

/* offset taken from a signal (and checked against an explicit one) */
static int e2e_offset(struct build *b, const struct vd_candesc_msg *dm, const char *where,
                      const struct vd_dbc_sig *s, int given, int size, int align, bool intel,
                      int def, const char *what)
{
    if (!s)
        return given == VD_CANMAP_DEFAULT ? def : given;
    if (s->size != size || s->lsb % align || (intel && s->order != VD_DBC_INTEL && size > 8)) {
        err_at(b, dm->line, dm->col,
               "%s: e2e: %s signal '%s' must be %d bits%s starting on a %d-bit boundary "
               "(it is %d bits at bit %d%s)",
               where, what, s->name, size, intel && size > 8 ? ", Intel (@1)," : "", align, s->size,
               s->lsb, s->order == VD_DBC_INTEL ? "" : ", Motorola");
        return def;
    }
    if (given != VD_CANMAP_DEFAULT && given != s->lsb)
        err_at(b, dm->line, dm->col, "%s: e2e: %s offset %d but signal '%s' is at bit %d", where,
               what, given, s->name, s->lsb);
    return s->lsb;
}

/* the description's P01 modes are io/e2e.h's */
_Static_assert((int)VD_CANDESC_P01_BOTH == (int)VD_E2E_P01_BOTH &&
                   (int)VD_CANDESC_P01_ALT == (int)VD_E2E_P01_ALT &&
                   (int)VD_CANDESC_P01_LOW == (int)VD_E2E_P01_LOW &&
                   (int)VD_CANDESC_P01_NIBBLE == (int)VD_E2E_P01_NIBBLE,
               "P01 modes");

static void resolve_e2e(struct build *b, const struct vd_candesc_msg *dm, const char *where,
                        struct cm_msg *cm)
{
    const struct vd_candesc_e2e *e = &dm->e2e;
    const struct vd_dbc_msg *m = cm->m;
    const int bits = 8 * m->len;
    const int dl = e->data_length == VD_CANMAP_DEFAULT ? bits : e->data_length;
    const int mdc = e->max_delta_counter == VD_CANMAP_DEFAULT ? 2 : e->max_delta_counter;
    int rc = 0;

    cm->profile = e->profile;
    if (e->profile == VD_CANMAP_E2E_NONE)
        return;
    cm->crc_sig = e2e_sig(b, dm, where, m, e->crc[0] ? e->crc : NULL, "crc");
    cm->counter_sig = e2e_sig(b, dm, where, m, e->counter[0] ? e->counter : NULL, "counter");
    if (dl > bits) {
        err_at(b, dm->line, dm->col, "%s: e2e.data_length %d bits exceeds the frame (%d)", where,
               dl, bits);
        return;
    }
    switch (e->profile) {
    case VD_CANMAP_E2E_P01:
        cm->p01 = (struct vd_e2e_p01_cfg){
            .data_length = (uint16_t)dl,
            .data_id = (uint16_t)e->data_id,
            .mode = (uint8_t)e->mode,
            .crc_offset = (uint16_t)e2e_offset(b, dm, where, cm->crc_sig, e->crc_offset, 8, 8,
                                               false, 0, "CRC"),
            .counter_offset = (uint16_t)e2e_offset(b, dm, where, cm->counter_sig, e->counter_offset,
                                                   4, 4, false, 8, "counter"),
            .nibble_offset =
                (uint16_t)(e->nibble_offset == VD_CANMAP_DEFAULT ? 12 : e->nibble_offset),
            .max_delta_counter = (uint8_t)mdc,
        };
        rc = mdc < 1 || mdc > 14 ? -EINVAL : vd_e2e_p01_validate(&cm->p01);
        break;
    case VD_CANMAP_E2E_P02:
        cm->p02.data_length = (uint16_t)dl;
        memcpy(cm->p02.data_id_list, e->data_id_list, 16);
        cm->p02.max_delta_counter = (uint8_t)mdc;
        if (e2e_offset(b, dm, where, cm->crc_sig, VD_CANMAP_DEFAULT, 8, 8, false, 0, "CRC") ||
            e2e_offset(b, dm, where, cm->counter_sig, VD_CANMAP_DEFAULT, 4, 4, false, 8,
                       "counter") != 8)
            err_at(b, dm->line, dm->col,
                   "%s: e2e: P02 has its CRC in byte 0 and its counter in the low nibble of "
                   "byte 1 (bits 0 and 8)",
                   where);
        rc = mdc < 1 || mdc > 15 ? -EINVAL : vd_e2e_p02_validate(&cm->p02);
        break;
    case VD_CANMAP_E2E_P05: {
        const int off = e2e_offset(b, dm, where, cm->crc_sig, e->offset, 16, 8, true, 0, "CRC");

        cm->p05 = (struct vd_e2e_p05_cfg){
            .offset = (uint16_t)off,
            .data_length = (uint16_t)dl,
            .data_id = (uint16_t)e->data_id,
            .max_delta_counter = (uint8_t)mdc,
        };
        if (cm->counter_sig && (cm->counter_sig->size != 8 || cm->counter_sig->lsb != off + 16))
            err_at(b, dm->line, dm->col,
                   "%s: e2e: P05 counter signal '%s' must be 8 bits at bit %d (the byte after "
                   "the CRC)",
                   where, cm->counter_sig->name, off + 16);
        rc = mdc < 1 || mdc > 255 ? -EINVAL : vd_e2e_p05_validate(&cm->p05);
        break;
    }
    default:
        err_at(b, dm->line, dm->col, "%s: e2e: unknown profile %d", where, e->profile);
        return;
    }
    if (rc)
        err_at(b, dm->line, dm->col,
               "%s: e2e: the profile's layout does not fit the frame (data_length %d bits, "
               "offsets, max_delta_counter %d)",
               where, dl, mdc);
}

/* bytes/bits the E2E protection writes */
static void e2e_mask(const struct cm_msg *cm, uint8_t *mask)
{
    switch (cm->profile) {
    case VD_CANMAP_E2E_P01:
        bits_mask(mask, cm->p01.crc_offset, 8);
        bits_mask(mask, cm->p01.counter_offset, 4);
        if (cm->p01.mode == VD_E2E_P01_NIBBLE)
            bits_mask(mask, cm->p01.nibble_offset, 4);
        break;
    case VD_CANMAP_E2E_P02:
        bits_mask(mask, 0, 12);
        break;
    case VD_CANMAP_E2E_P05:
        bits_mask(mask, cm->p05.offset, 24);
        break;
    default:
        break;
    }
}

/* --- signals ----------------------------------------------------------------------------- */

static int group_of(const struct cm_msg *cm, const struct vd_dbc_sig *s)
{
    if (s->mux != VD_DBC_MUXED)
        return -1;
    for (int g = 0; g < cm->ngroup; g++)
        if (cm->group_val[g] == s->mux_val)
            return g;
    return -1;
}

/* a VAL_ text that names an invalid or not-available value: "Invalid", "SNA", "Signal not
 * available", "N/A", "Init/Invalid", ... (case-insensitive) */
static bool invalid_text(const char *t)
{
    char low[64];
    size_t n = 0;

    for (; t[n] && n + 1 < sizeof(low); n++)
        low[n] = (char)(t[n] >= 'A' && t[n] <= 'Z' ? t[n] - 'A' + 'a' : t[n]);
    low[n] = '\0';
    return strstr(low, "invalid") || strstr(low, "not available") || !strcmp(low, "sna") ||
           !strncmp(low, "sna ", 4) || !strcmp(low, "n/a") || !strcmp(low, "na");
}

/* the DBC's invalid-value pattern of an integer signal: a VAL_ text naming the value invalid
 * or not available; the receiver rejects it, the fault injector sends it */
static void invalid_pattern(struct cm_sig *cs)
{
    const struct vd_dbc_sig *s = cs->s;

    for (int v = 0; s->vtype == VD_DBC_INT && v < s->nval; v++)
        if (invalid_text(s->vals[v].text)) {
            cs->has_invalid = true;
            cs->invalid_raw =
                (uint64_t)s->vals[v].raw & (s->size >= 64 ? ~0ull : (1ull << s->size) - 1);
            break;
        }
}

static void resolve_sig(struct build *b, const struct vd_candesc_msg *dm, struct cm_msg *cm, int k,
                        struct cm_sig *cs)
{
    const struct vd_candesc_sig *dsig = b->d->sig + dm->sig0;
    const struct vd_candesc_sig *ds = &dsig[k];
    const struct vd_dbc_msg *m = cm->m;
    const struct vd_dbc_sig *s = vd_dbc_find_sig(m, ds->signal);
    const char *dn = dir_name(dm->dir);
    double f = 1.0, flo, fhi;
    char path[64];

    snprintf(path, sizeof(path), "%s[%d].signals[%d]", dn, cm->idx, k);
    cs->line = ds->line;
    cs->col = ds->col;
    cs->slot = -1;
    cs->side = dm->dir == VD_CANMAP_RX ? VD_CANMAP_INPUTS : VD_CANMAP_OUTPUTS;
    if (!s) {
        err_at(b, ds->line, ds->col, "%s: DBC message %s has no signal '%s'", path, m->name,
               ds->signal);
        return;
    }
    cs->s = s;
    if (s == cm->crc_sig || s == cm->counter_sig) {
        err_at(b, ds->line, ds->col, "%s: '%s' is the E2E %s, written and checked by the map", path,
               s->name, s == cm->crc_sig ? "CRC" : "counter");
        return;
    }
    if (cm->send && s->overlaps) {
        err_at(b, ds->line, ds->col,
               "%s: signal '%s' shares bits with another signal of %s in the DBC: it cannot be "
               "sent (fix the DBC's layout)",
               path, s->name, m->name);
        return;
    }
    if (s->mux == VD_DBC_MUX_SWITCH) {
        err_at(b, ds->line, ds->col,
               "%s: '%s' is the multiplexor; the map sends the groups in turn", path, s->name);
        return;
    }
    for (int j = 0; j < k; j++)
        if (!strcmp(dsig[j].signal, ds->signal))
            err_at(b, ds->line, ds->col, "%s: signal '%s' is mapped twice in this message", path,
                   ds->signal);
    /* unit: the mapping's, checked against the DBC's; else the DBC's, which must be known */
    if (ds->has_unit) {
        double fd;

        if (!vd_canmap_unit_factor(ds->unit, &f)) {
            err_at(b, ds->line, ds->col,
                   "%s: unknown unit '%s' (known: deg deg/s rad rad/s rpm km/h m/s m/s2 g mm m "
                   "N kN Nm kNm bar %% ...)",
                   path, ds->unit);
            return;
        }
        if (s->unit[0] && vd_canmap_unit_factor(s->unit, &fd) && fabs(fd - f) > 1e-12 * fabs(f))
            err_at(b, ds->line, ds->col, "%s: unit '%s' but the DBC gives '%s' for %s", path,
                   ds->unit, s->unit, s->name);
    } else if (!vd_canmap_unit_factor(s->unit, &f)) {
        err_at(b, ds->line, ds->col,
               "%s: the DBC unit '%s' of %s is not known: give unit: (e.g. deg, rpm, km/h) or "
               "unit: \"\" and scale:",
               path, s->unit, s->name);
        return;
    }
    if (!(ds->scale != 0.0) || !isfinite(ds->scale) || !isfinite(ds->offset)) {
        err_at(b, ds->line, ds->col, "%s: scale must be finite and non-zero, offset finite", path);
        return;
    }
    cs->k = f * ds->scale;
    cs->off = ds->offset;
    /* range in DBC units */
    representable(s, &flo, &fhi);
    if (ds->has_range) {
        if (!(ds->range[0] < ds->range[1])) {
            err_at(b, ds->line, ds->col, "%s: range [%g, %g] is empty", path, ds->range[0],
                   ds->range[1]);
            return;
        }
        cs->lo = ds->range[0];
        cs->hi = ds->range[1];
    } else {
        dbc_range(s, &cs->lo, &cs->hi);
    }
    /* a sender can only write what the field holds */
    if (cs->lo < flo)
        cs->lo = flo;
    if (cs->hi > fhi)
        cs->hi = fhi;
    if (!(cs->lo <= cs->hi)) {
        err_at(b, ds->line, ds->col, "%s: range does not intersect what %s can hold [%g, %g]", path,
               s->name, flo, fhi);
        return;
    }
    cs->safe = ds->safe;
    cs->safe_value = ds->safe_value;
    if (ds->safe == VD_CANMAP_SAFE_VALUE && !isfinite(ds->safe_value))
        err_at(b, ds->line, ds->col, "%s: safe value must be finite", path);
    cs->constant = ds->has_value;
    cs->value = ds->value;
    invalid_pattern(cs);
    if (ds->has_value && ds->name[0])
        err_at(b, ds->line, ds->col, "%s: a constant (value) has no model signal", path);
    else if (!ds->has_value && !ds->name[0])
        err_at(b, ds->line, ds->col, "%s: give the model %s or a constant value", path,
               dm->dir == VD_CANMAP_RX ? "input" : "output");
    if (ds->has_value && !(ds->value >= cs->lo && ds->value <= cs->hi))
        err_at(b, ds->line, ds->col, "%s: value %g outside [%g, %g]", path, ds->value, cs->lo,
               cs->hi);
    if (ds->name[0]) {
        cs->name = dupstr(ds->name);
        if (!cs->name)
            b->nerr++;
    }
    cs->group = group_of(cm, s);
    cs->timeout_ns = cm->timeout_ns * (cs->group >= 0 ? cm->ngroup : 1);
}

/* --- messages ---------------------------------------------------------------------------- */

static void resolve_msg(struct build *b, int i, int idx)
{
    const struct vd_candesc_msg *dm = &b->d->msg[i];
    struct vd_canmap *map = b->map;
    struct cm_msg *cm = &map->msg[i];
    const char *dn = dir_name(dm->dir);
    const struct vd_dbc *db;
    uint8_t emask[VD_CAN_MAX_DLEN] = {0};
    char where[96];

    cm->dir = dm->dir;
    cm->bus = dm->bus;
    cm->idx = idx;
    cm->line = dm->line;
    cm->col = dm->col;
    cm->send = (dm->dir == VD_CANMAP_TX) == (map->role == VD_CANMAP_TARGET);
    if (dm->dir != VD_CANMAP_RX && dm->dir != VD_CANMAP_TX) {
        err_at(b, dm->line, dm->col, "message %d: unknown direction %d", i, dm->dir);
        return;
    }
    if (dm->bus < 0 || dm->bus >= b->d->nbus) {
        err_at(b, dm->line, dm->col, "%s[%d]: bus index %d out of range", dn, idx, dm->bus);
        return;
    }
    db = b->dbc[dm->bus];
    cm->m = dm->message[0] ? vd_dbc_find_msg(db, dm->message) : vd_dbc_find_id(db, dm->id, dm->ext);
    if (!cm->m) {
        if (dm->message[0])
            err_at(b, dm->line, dm->col, "%s[%d]: no message '%s' in the DBC %s", dn, idx,
                   dm->message, db->name);
        else
            err_at(b, dm->line, dm->col, "%s[%d]: no message with id 0x%X%s in the DBC %s", dn, idx,
                   (unsigned)dm->id, dm->ext ? " (extended)" : "", db->name);
        return;
    }
    for (int j = 0; j < i; j++)
        if (map->msg[j].m == cm->m && map->msg[j].bus == cm->bus)
            err_at(b, dm->line, dm->col, "%s[%d]: message %s is already mapped (line %d)", dn, idx,
                   cm->m->name, map->msg[j].line);
    if (cm->m->len > VD_CAN_MAX_DLEN) {
        err_at(b, dm->line, dm->col, "%s[%d]: %s is longer than a CAN FD frame", dn, idx,
               cm->m->name);
        return;
    }
    /* an FD frame on a classic bus is dropped at every send (the transport's tx_invalid) */
    if (cm->m->fd && !b->d->bus[dm->bus].fd) {
        err_at(b, dm->line, dm->col,
               "%s[%d]: %s is a CAN FD message (%u bytes%s) but bus '%s' is classic: give the bus "
               "fd: true",
               dn, idx, cm->m->name, (unsigned)cm->m->len,
               cm->m->len <= 8 ? ", VFrameFormat FD" : "", b->d->bus[dm->bus].name);
        return;
    }
    /* cycle, phase, timeout */
    cm->cycle_ms = dm->cycle_ms == VD_CANMAP_DEFAULT ? cm->m->cycle_ms : dm->cycle_ms;
    if (cm->cycle_ms <= 0) {
        err_at(b, dm->line, dm->col,
               "%s[%d] (%s): no cycle time: give cycle_ms or a GenMsgCycleTime in the DBC", dn, idx,
               cm->m->name);
        return;
    }
    cm->phase_ms = dm->phase_ms;
    if (dm->phase_ms != VD_CANMAP_DEFAULT && (dm->phase_ms < 0 || dm->phase_ms >= cm->cycle_ms))
        err_at(b, dm->line, dm->col, "%s[%d] (%s): phase_ms %d must be in [0, %d)", dn, idx,
               cm->m->name, dm->phase_ms, cm->cycle_ms);
    if (dm->timeout_ms == VD_CANMAP_DEFAULT)
        cm->timeout_ns = llround(b->d->timeout_factor * cm->cycle_ms * (double)NS_PER_MS);
    else if (dm->timeout_ms >= 0)
        cm->timeout_ns = (int64_t)dm->timeout_ms * NS_PER_MS;
    else
        err_at(b, dm->line, dm->col, "%s[%d]: timeout_ms must be >= 0", dn, idx);
    /* multiplex groups: the switch values of the DBC's multiplexed signals, ascending */
    for (int s = 0; s < cm->m->nsig; s++) {
        const struct vd_dbc_sig *ds = &cm->m->sigs[s];
        int g = 0;

        if (ds->mux != VD_DBC_MUXED)
            continue;
        while (g < cm->ngroup && cm->group_val[g] < ds->mux_val)
            g++;
        if (g < cm->ngroup && cm->group_val[g] == ds->mux_val)
            continue;
        if (cm->ngroup == VD_CANMAP_MAX_GROUP) {
            err_at(b, dm->line, dm->col, "%s[%d] (%s): more than %d multiplex groups", dn, idx,
                   cm->m->name, VD_CANMAP_MAX_GROUP);
            break;
        }
        memmove(&cm->group_val[g + 1], &cm->group_val[g],
                (size_t)(cm->ngroup - g) * sizeof(cm->group_val[0]));
        cm->group_val[g] = ds->mux_val;
        cm->ngroup++;
    }
    snprintf(where, sizeof(where), "%s[%d] (%s)", dn, idx, cm->m->name);
    resolve_e2e(b, dm, where, cm);
    e2e_mask(cm, emask);
    /* signals */
    if (dm->nsig < 1)
        err_at(b, dm->line, dm->col, "%s[%d] (%s): no signals", dn, idx, cm->m->name);
    cm->sig0 = map->nsig;
    cm->nsig = dm->nsig;
    for (int k = 0; k < dm->nsig; k++) {
        struct cm_sig *cs = &map->sig[map->nsig++];
        uint8_t smask[VD_CAN_MAX_DLEN] = {0};

        resolve_sig(b, dm, cm, k, cs);
        if (!cs->s)
            continue;
        sig_mask(smask, cs->s);
        if (overlap(smask, emask, cm->m->len))
            err_at(b, cs->line, cs->col,
                   "%s[%d].signals[%d]: '%s' overlaps the bits E2E protection writes", dn, idx, k,
                   cs->s->name);
    }
}

/* the frame template of group g: plain and group-g signals at their constant or at 0 clamped
 * into their range; the switch at the group's value; E2E fields 0 */
static void make_template(struct vd_canmap *map, struct cm_msg *cm, int g, uint8_t *data)
{
    const struct vd_dbc_msg *m = cm->m;

    memset(data, 0, m->len);
    if (cm->ngroup && m->mux)
        vd_dbc_set_raw(data, m->mux, cm->group_val[g]);
    for (int s = 0; s < m->nsig; s++) {
        const struct vd_dbc_sig *ds = &m->sigs[s];
        double lo, hi, v = 0.0;

        if (ds == m->mux || ds == cm->crc_sig || ds == cm->counter_sig)
            continue;
        if (ds->mux == VD_DBC_MUXED && (!cm->ngroup || ds->mux_val != cm->group_val[g]))
            continue;
        dbc_range(ds, &lo, &hi);
        for (int k = 0; k < cm->nsig; k++) {
            const struct cm_sig *cs = &map->sig[cm->sig0 + k];

            if (cs->s == ds) {
                lo = cs->lo;
                hi = cs->hi;
                if (cs->constant)
                    v = cs->value;
            }
        }
        {
            double rlo, rhi;

            representable(ds, &rlo, &rhi);
            lo = fmax(lo, rlo);
            hi = fmin(hi, rhi);
        }
        vd_dbc_encode(data, m->len, m, ds, cm_clamp(v, lo, hi));
    }
}

/* --- send phases ------------------------------------------------------------------------- */

static long gcd(long a, long b)
{
    while (b) {
        long t = a % b;

        a = b;
        b = t;
    }
    return a;
}

/* phases of the messages of one bus and direction that have none: in order of cycle (then
 * as written), each at the phase whose slots are least loaded (busiest slot first, then the
 * total), over the hyperperiod; when that is too long, message i of a cycle gets phase i */
static int spread(struct vd_canmap *map, int bus, int dir)
{
    long hyper = 1;
    int *occ, n = 0;

    for (int i = 0; i < map->nmsg; i++) {
        const struct cm_msg *cm = &map->msg[i];

        if (cm->bus != bus || cm->dir != dir || !cm->m || cm->cycle_ms <= 0)
            continue;
        n++;
        if (hyper <= MAX_HYPER)
            hyper = hyper / gcd(hyper, cm->cycle_ms) * cm->cycle_ms;
    }
    if (!n)
        return 0;
    if (hyper > MAX_HYPER) {
        int k = 0;

        for (int i = 0; i < map->nmsg; i++) {
            struct cm_msg *cm = &map->msg[i];

            if (cm->bus == bus && cm->dir == dir && cm->m && cm->cycle_ms > 0 &&
                cm->phase_ms == VD_CANMAP_DEFAULT)
                cm->phase_ms = k++ % cm->cycle_ms;
        }
        return 0;
    }
    occ = calloc((size_t)hyper, sizeof(*occ));
    if (!occ)
        return -ENOMEM;
    /* given phases first */
    for (int i = 0; i < map->nmsg; i++) {
        const struct cm_msg *cm = &map->msg[i];

        if (cm->bus == bus && cm->dir == dir && cm->m && cm->cycle_ms > 0 &&
            cm->phase_ms != VD_CANMAP_DEFAULT)
            for (long t = cm->phase_ms; t < hyper; t += cm->cycle_ms)
                occ[t]++;
    }
    for (;;) {
        struct cm_msg *best = NULL;
        int bp = 0;
        long bmax = 0, bsum = 0;

        /* the next message: shortest cycle, then first written */
        for (int i = 0; i < map->nmsg; i++) {
            struct cm_msg *cm = &map->msg[i];

            if (cm->bus == bus && cm->dir == dir && cm->m && cm->cycle_ms > 0 &&
                cm->phase_ms == VD_CANMAP_DEFAULT && (!best || cm->cycle_ms < best->cycle_ms))
                best = cm;
        }
        if (!best)
            break;
        for (int p = 0; p < best->cycle_ms; p++) {
            long mx = 0, sum = 0;

            for (long t = p; t < hyper; t += best->cycle_ms) {
                mx = occ[t] > mx ? occ[t] : mx;
                sum += occ[t];
            }
            if (p == 0 || mx < bmax || (mx == bmax && sum < bsum)) {
                bp = p;
                bmax = mx;
                bsum = sum;
            }
        }
        best->phase_ms = bp;
        for (long t = bp; t < hyper; t += best->cycle_ms)
            occ[t]++;
    }
    free(occ);
    return 0;
}

/* --- receive dispatch -------------------------------------------------------------------- */

static int build_dispatch(struct vd_canmap *map)
{
    int n = 0;

    map->rx_key = calloc((size_t)map->nmsg + 1, sizeof(*map->rx_key));
    map->rx_msg = calloc((size_t)map->nmsg + 1, sizeof(*map->rx_msg));
    if (!map->rx_key || !map->rx_msg)
        return -ENOMEM;
    /* insertion sort: a handful of messages, init only */
    for (int i = 0; i < map->nmsg; i++) {
        const struct cm_msg *cm = &map->msg[i];
        uint64_t key;
        int j;

        if (cm->send)
            continue;
        key = cm_rx_key(cm->bus, cm->m->ext, cm->m->id);
        for (j = n; j > 0 && map->rx_key[j - 1] > key; j--) {
            map->rx_key[j] = map->rx_key[j - 1];
            map->rx_msg[j] = map->rx_msg[j - 1];
        }
        map->rx_key[j] = key;
        map->rx_msg[j] = i;
        n++;
    }
    map->nrx = n;
    return 0;
}

/* --- construction ------------------------------------------------------------------------ */

void vd_canmap_free(struct vd_canmap *map)
{
    if (!map)
        return;
    for (int i = 0; i < map->nsig; i++)
        free(map->sig[i].name);
    for (int i = 0; map->msg && i < map->nmsg; i++)
        free(map->msg[i].tmpl);
    for (int i = 0; map->busname && i < map->nbus; i++)
        free(map->busname[i]);
    for (int side = 0; side < 2; side++) {
        for (int i = 0; map->names[side] && i < map->nname[side]; i++)
            free(map->names[side][i]);
        free(map->names[side]);
    }
    free(map->busname);
    free(map->msg);
    free(map->sig);
    free(map->rx_key);
    free(map->rx_msg);
    free(map->rx_value);
    free(map->rx_valid);
    free(map->rx_status);
    free(map->file);
    free(map);
}

struct vd_canmap *vd_canmap_new(const struct vd_candesc *d, const struct vd_dbc *const *dbc,
                                FILE *errf)
{
    struct vd_canmap *map = calloc(1, sizeof(*map));
    struct build b = {.d = d, .dbc = dbc, .map = map, .errf = errf};
    const int role = d->role;
    int total = 0, nidx[2] = {0, 0};

    if (!map)
        goto out_nomem;
    map->role = role;
    map->rxside = role == VD_CANMAP_TARGET ? VD_CANMAP_INPUTS : VD_CANMAP_OUTPUTS;
    map->file = dupstr(d->file[0] ? d->file : "<can map>");
    if (!map->file)
        goto out_nomem;
    if (role != VD_CANMAP_TARGET && role != VD_CANMAP_ECU)
        err_at(&b, 1, 1, "unknown role %d", role);
    if (!(d->timeout_factor > 1.0) || !isfinite(d->timeout_factor))
        err_at(&b, 1, 1, "timeout_factor %g must be > 1", d->timeout_factor);
    if (d->nbus < 1 || d->nmsg < 1)
        err_at(&b, 1, 1, "a mapping needs a bus and a message (%d buses, %d messages)", d->nbus,
               d->nmsg);
    if (b.nerr)
        goto out_fail;
    map->nbus = d->nbus;
    map->busname = calloc((size_t)d->nbus, sizeof(*map->busname));
    if (!map->busname)
        goto out_nomem;
    for (int i = 0; i < d->nbus; i++) {
        map->busname[i] = dupstr(d->bus[i].name);
        if (!map->busname[i])
            goto out_nomem;
        if (!dbc[i])
            err_at(&b, d->bus[i].line, d->bus[i].col, "buses[%d]: no DBC", i);
    }
    if (b.nerr)
        goto out_fail;
    for (int i = 0; i < d->nmsg; i++)
        total += d->msg[i].nsig > 0 ? d->msg[i].nsig : 0;
    map->nmsg = d->nmsg;
    map->msg = calloc((size_t)d->nmsg, sizeof(*map->msg));
    map->sig = calloc((size_t)total + 1, sizeof(*map->sig));
    if (!map->msg || !map->sig)
        goto out_nomem;
    for (int i = 0; i < d->nmsg; i++) {
        const int dir = d->msg[i].dir == VD_CANMAP_TX;

        resolve_msg(&b, i, nidx[dir]++);
    }
    /* an input is driven by one signal */
    for (int i = 0; i < map->nsig; i++) {
        const struct cm_sig *a = &map->sig[i];

        if (!a->name || a->side != VD_CANMAP_INPUTS)
            continue;
        for (int j = 0; j < i; j++)
            if (map->sig[j].name && map->sig[j].side == VD_CANMAP_INPUTS &&
                !strcmp(map->sig[j].name, a->name)) {
                err_at(&b, a->line, a->col, "input '%s' is already driven by %s (line %d)", a->name,
                       map->sig[j].s ? map->sig[j].s->name : "?", map->sig[j].line);
                break;
            }
    }
    if (b.nerr)
        goto out_fail;
    for (int bus = 0; bus < map->nbus; bus++)
        for (int dir = 0; dir < 2; dir++)
            if (spread(map, bus, dir))
                goto out_nomem;
    for (int i = 0; i < map->nmsg; i++) {
        struct cm_msg *cm = &map->msg[i];
        const int ng = cm->ngroup ? cm->ngroup : 1;

        cm->tmpl = calloc((size_t)ng, cm->m->len ? cm->m->len : 1);
        if (!cm->tmpl)
            goto out_nomem;
        for (int g = 0; g < ng; g++)
            make_template(map, cm, g, cm->tmpl + (size_t)g * cm->m->len);
    }
    if (build_dispatch(map))
        goto out_nomem;
    if (vd_canmap_bind(map, VD_CANMAP_INPUTS, NULL, 0, errf) ||
        vd_canmap_bind(map, VD_CANMAP_OUTPUTS, NULL, 0, errf))
        goto out_nomem;
    vd_canmap_start(map, 0);
    return map;

out_nomem:
    if (errf)
        fprintf(errf, "%s: error: out of memory\n", d->file[0] ? d->file : "<can map>");
out_fail:
    vd_canmap_free(map);
    return NULL;
}

int vd_canmap_bind(struct vd_canmap *map, int side, const char *const *names, int n, FILE *errf)
{
    char **list = NULL;
    int cnt = 0, nerr = 0;

    if (side != VD_CANMAP_INPUTS && side != VD_CANMAP_OUTPUTS)
        return -EINVAL;
    if (names) {
        list = calloc((size_t)n + 1, sizeof(*list));
        if (!list)
            return -ENOMEM;
        for (cnt = 0; cnt < n; cnt++) {
            list[cnt] = dupstr(names[cnt]);
            if (!list[cnt])
                goto out_nomem;
        }
    } else {
        /* the mapping's own names, in order of first use */
        list = calloc((size_t)map->nsig + 1, sizeof(*list));
        if (!list)
            return -ENOMEM;
        for (int i = 0; i < map->nsig; i++) {
            const struct cm_sig *cs = &map->sig[i];
            bool seen = false;

            if (!cs->name || cs->side != side)
                continue;
            for (int j = 0; j < cnt && !seen; j++)
                seen = !strcmp(list[j], cs->name);
            if (seen)
                continue;
            list[cnt] = dupstr(cs->name);
            if (!list[cnt])
                goto out_nomem;
            cnt++;
        }
    }
    /* every mapped name of the side must be there */
    for (int i = 0; i < map->nsig; i++) {
        struct cm_sig *cs = &map->sig[i];
        int slot = -1;

        if (!cs->name || cs->side != side)
            continue;
        for (int j = 0; j < cnt && slot < 0; j++)
            if (!strcmp(list[j], cs->name))
                slot = j;
        if (slot < 0) {
            nerr++;
            if (errf)
                fprintf(errf,
                        "%s:%d:%d: error: %s '%s' (signal %s) is not among the %d %s names "
                        "bound\n",
                        map->file, cs->line, cs->col, side == VD_CANMAP_INPUTS ? "input" : "output",
                        cs->name, cs->s ? cs->s->name : "?", cnt,
                        side == VD_CANMAP_INPUTS ? "model input" : "output signal");
        }
    }
    if (nerr) {
        for (int j = 0; j < cnt; j++)
            free(list[j]);
        free(list);
        return -ENOENT;
    }
    for (int i = 0; i < map->nsig; i++) {
        struct cm_sig *cs = &map->sig[i];

        if (!cs->name || cs->side != side)
            continue;
        for (int j = 0; j < cnt; j++)
            if (!strcmp(list[j], cs->name)) {
                cs->slot = j;
                break;
            }
    }
    for (int j = 0; map->names[side] && j < map->nname[side]; j++)
        free(map->names[side][j]);
    free(map->names[side]);
    map->names[side] = list;
    map->nname[side] = cnt;
    if (side == map->rxside) {
        double *v = calloc((size_t)cnt + 1, sizeof(*v));
        uint8_t *valid = calloc((size_t)cnt + 1, 1), *st = calloc((size_t)cnt + 1, 1);

        if (!v || !valid || !st) {
            free(v);
            free(valid);
            free(st);
            return -ENOMEM;
        }
        free(map->rx_value);
        free(map->rx_valid);
        free(map->rx_status);
        map->rx_value = v;
        map->rx_valid = valid;
        map->rx_status = st;
        vd_canmap_start(map, 0);
    }
    return 0;

out_nomem:
    for (int j = 0; j < cnt; j++)
        free(list[j]);
    free(list);
    return -ENOMEM;
}

int vd_canmap_nnames(const struct vd_canmap *map, int side)
{
    return side == VD_CANMAP_INPUTS || side == VD_CANMAP_OUTPUTS ? map->nname[side] : 0;
}

const char *vd_canmap_name(const struct vd_canmap *map, int side, int i)
{
    if ((side != VD_CANMAP_INPUTS && side != VD_CANMAP_OUTPUTS) || i < 0 || i >= map->nname[side])
        return NULL;
    return map->names[side][i];
}
