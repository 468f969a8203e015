/* io/dbc.c - DBC lookups and signal pack/unpack (RT-safe: no allocation, no syscalls, no
 * stdio, bounded loops). The init-time parser is io/dbc_parse.c. */
#include "dbc.h"
#include "dbc_priv.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* ---- lookups (RT-safe) ----------------------------------------------------------------------- */

const struct vd_dbc_msg *vd_dbc_find_msg(const struct vd_dbc *db, const char *name)
{
    for (int i = 0; i < db->nmsg; i++)
        if (!strcmp(db->msgs[i].name, name))
            return &db->msgs[i];
    return NULL;
}

const struct vd_dbc_msg *vd_dbc_find_id(const struct vd_dbc *db, uint32_t id, bool ext)
{
    uint32_t key = (id & 0x1FFFFFFFu) | (uint32_t)ext << 31;
    int lo = 0, hi = db->nmsg - 1;

    if (!ext && id > 0x7FFu)
        return NULL;
    if (ext && id > 0x1FFFFFFFu)
        return NULL;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;

        if (db->idx_[mid].key == key)
            return &db->msgs[db->idx_[mid].msg];
        if (db->idx_[mid].key < key)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

const struct vd_dbc_sig *vd_dbc_find_sig(const struct vd_dbc_msg *msg, const char *name)
{
    for (int i = 0; i < msg->nsig; i++)
        if (!strcmp(msg->sigs[i].name, name))
            return &msg->sigs[i];
    return NULL;
}

const char *vd_dbc_val_text(const struct vd_dbc_sig *s, int64_t raw)
{
    for (int i = 0; i < s->nval; i++)
        if (s->vals[i].raw == raw)
            return s->vals[i].text;
    return NULL;
}

/* ---- pack / unpack (RT-safe) ----------------------------------------------------------------- */

uint64_t vd_dbc_get_raw(const uint8_t *data, const struct vd_dbc_sig *s)
{
    uint64_t v = 0;
    int left = s->size, bit = s->pos;

    if (s->order == VD_DBC_INTEL) {
        /* LSB first: chunks from bit (bit % 8) of each byte upwards */
        int shift = 0;

        while (left > 0) {
            int off = bit & 7, n = 8 - off < left ? 8 - off : left;
            uint64_t chunk = (uint64_t)(data[bit >> 3] >> off) & ((1u << n) - 1);

            v |= chunk << shift;
            shift += n;
            bit += n;
            left -= n;
        }
    } else {
        /* MSB first: chunks from bit (7 - bit % 8) of each byte downwards */
        while (left > 0) {
            int off = bit & 7, n = 8 - off < left ? 8 - off : left;
            uint64_t chunk = (uint64_t)(data[bit >> 3] >> (8 - off - n)) & ((1u << n) - 1);

            v = v << n | chunk;
            bit += n;
            left -= n;
        }
    }
    return v;
}

int64_t vd_dbc_get_int(const uint8_t *data, const struct vd_dbc_sig *s)
{
    uint64_t v = vd_dbc_get_raw(data, s);

    if (s->is_signed && s->size < 64 && (v >> (s->size - 1)) & 1)
        v |= ~0ull << s->size;
    return (int64_t)v;
}

void vd_dbc_set_raw(uint8_t *data, const struct vd_dbc_sig *s, uint64_t raw)
{
    int left = s->size, bit = s->pos;

    if (s->order == VD_DBC_INTEL) {
        while (left > 0) {
            int off = bit & 7, n = 8 - off < left ? 8 - off : left;
            unsigned mask = ((1u << n) - 1) << off;
            uint8_t *b = &data[bit >> 3];

            *b = (uint8_t)((*b & ~mask) | (((unsigned)raw << off) & mask));
            raw >>= n;
            bit += n;
            left -= n;
        }
    } else {
        while (left > 0) {
            int off = bit & 7, n = 8 - off < left ? 8 - off : left;
            int sh = 8 - off - n;
            unsigned mask = ((1u << n) - 1) << sh;
            unsigned chunk = (unsigned)(raw >> (left - n)) & ((1u << n) - 1);
            uint8_t *b = &data[bit >> 3];

            *b = (uint8_t)((*b & ~mask) | (chunk << sh));
            bit += n;
            left -= n;
        }
    }
}

static bool fits(int len, const struct vd_dbc_sig *s)
{
    return len > s->byte_hi;
}

int vd_dbc_decode(const uint8_t *data, int len, const struct vd_dbc_msg *m,
                  const struct vd_dbc_sig *s, double *phys)
{
    uint64_t raw;
    double v;

    if (!fits(len, s))
        return -EINVAL;
    if (s->mux == VD_DBC_MUXED) {
        if (!m || !m->mux || !fits(len, m->mux))
            return -EINVAL;
        if (vd_dbc_get_raw(data, m->mux) != s->mux_val)
            return -ENOENT;
    }
    raw = vd_dbc_get_raw(data, s);
    switch (s->vtype) {
    case VD_DBC_FLOAT32: {
        uint32_t u = (uint32_t)raw;
        float f;

        memcpy(&f, &u, sizeof(f));
        v = f;
        break;
    }
    case VD_DBC_FLOAT64:
        memcpy(&v, &raw, sizeof(v));
        break;
    default:
        v = s->is_signed ? (double)vd_dbc_get_int(data, s) : (double)raw;
        break;
    }
    v = v * s->factor + s->offset;
    if (!isfinite(v))
        return -EDOM;
    *phys = v;
    if (s->min < s->max && (v < s->min - s->tol || v > s->max + s->tol))
        return -ERANGE;
    return 0;
}

int vd_dbc_encode(uint8_t *data, int len, const struct vd_dbc_msg *m, const struct vd_dbc_sig *s,
                  double phys)
{
    uint64_t raw;
    double x;

    if (!fits(len, s))
        return -EINVAL;
    if (s->mux == VD_DBC_MUXED && (!m || !m->mux || !fits(len, m->mux)))
        return -EINVAL;
    /* writing a signal that shares bits with another changes that one too */
    if (s->overlaps)
        return -EBUSY;
    if (!isfinite(phys))
        return -EDOM;
    if (s->min < s->max && (phys < s->min - s->tol || phys > s->max + s->tol))
        return -ERANGE;
    x = (phys - s->offset) / s->factor;
    switch (s->vtype) {
    case VD_DBC_FLOAT32: {
        float f = (float)x;
        uint32_t u;

        if (!isfinite(f))
            return -ERANGE;
        memcpy(&u, &f, sizeof(u));
        raw = u;
        break;
    }
    case VD_DBC_FLOAT64:
        if (!isfinite(x))
            return -ERANGE;
        memcpy(&raw, &x, sizeof(raw));
        break;
    default:
        x = round(x);
        if (!(x >= s->raw_lo && x < s->raw_hi))
            return -ERANGE;
        raw = s->is_signed ? (uint64_t)(int64_t)x : (uint64_t)x;
        break;
    }
    if (s->mux == VD_DBC_MUXED) {
        /* the switch must still select the signal once it is written (a DBC whose signal
         * overlaps its multiplexor is refused at load; this holds for any other) */
        uint8_t f[VD_DBC_MAX_LEN];

        memcpy(f, data, (size_t)len);
        vd_dbc_set_raw(f, m->mux, s->mux_val);
        vd_dbc_set_raw(f, s, raw);
        if (vd_dbc_get_raw(f, m->mux) != s->mux_val)
            return -EBUSY;
        memcpy(data, f, (size_t)len);
        return 0;
    }
    vd_dbc_set_raw(data, s, raw);
    return 0;
}
