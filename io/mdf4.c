/* io/mdf4.c - ASAM MDF 4.10 streaming writer. */
#include "mdf4.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUF_MIN (64 * 1024)

/* block sizes [bytes]: header 24 + 8 per link + data */
#define HDR    24
#define ID_LEN 64
#define HD_LEN (HDR + 6 * 8 + 32)
#define FH_LEN (HDR + 2 * 8 + 16)
#define DG_LEN (HDR + 4 * 8 + 8)
#define CG_LEN (HDR + 6 * 8 + 32)
#define CN_LEN (HDR + 8 * 8 + 72)
#define UNFIN  0x0005 /* id_unfin_flags: CG cycle counters (bit 0), last DT length (bit 2) */

static uint64_t pad8(uint64_t n)
{
    return (n + 7) & ~(uint64_t)7;
}

/* a TX or MD block holding s (zero-terminated, zero-padded to 8 bytes) */
static uint64_t text_len(const char *s)
{
    return HDR + pad8(strlen(s) + 1);
}

struct out {
    unsigned char *p; /* at the next byte */
};

static void put_le(struct out *o, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        *o->p++ = (unsigned char)(v >> (8 * i));
}

static void put_bytes(struct out *o, const void *s, size_t n)
{
    memcpy(o->p, s, n);
    o->p += n;
}

static void put_zero(struct out *o, size_t n)
{
    memset(o->p, 0, n);
    o->p += n;
}

static void put_f64(struct out *o, double v)
{
    uint64_t u;

    memcpy(&u, &v, sizeof(u));
    put_le(o, u, 8);
}

static void header(struct out *o, const char *id, uint64_t len, uint64_t nlinks)
{
    put_bytes(o, id, 4);
    put_le(o, 0, 4);
    put_le(o, len, 8);
    put_le(o, nlinks, 8);
}

static void text(struct out *o, const char *id, const char *s)
{
    const uint64_t len = text_len(s);

    header(o, id, len, 0);
    put_bytes(o, s, strlen(s));
    put_zero(o, len - HDR - strlen(s));
}

/* XML-escape s into a fixed buffer (comments are short) */
static void xml_escape(char *out, size_t size, const char *s)
{
    size_t n = 0;

    for (; s && *s && n + 7 < size; s++) {
        const char *e = *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '&' ? "&amp;" : NULL;

        if (e) {
            memcpy(out + n, e, strlen(e));
            n += strlen(e);
        } else {
            out[n++] = *s;
        }
    }
    out[n] = '\0';
}

/* write the buffer; the records whole in the file counted from the bytes written (after the
 * blocks up to the DT's header; a partial write leaves a record cut, not counted) */
static int flush(struct vd_mdf4 *w)
{
    size_t off = 0;

    while (off < w->len && !w->err) {
        const ssize_t n = write(w->fd, w->buf + off, w->len - off);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            w->err = n < 0 ? -errno : -EIO;
        else
            off += (size_t)n;
    }
    w->bytes_written += off;
    w->len = 0;
    if (w->bytes_written >= w->dt_off + HDR && w->rec_bytes) {
        const uint64_t whole = (w->bytes_written - w->dt_off - HDR) / w->rec_bytes;

        w->rows_written = whole < w->rows ? whole : w->rows;
    }
    return w->err;
}

int vd_mdf4_open(struct vd_mdf4 *w, const char *path, const struct vd_mdf4_chan *ch, int nch,
                 int64_t start_ns, const char *comment, const char *tool_version)
{
    static const struct vd_mdf4_chan master = {"time", "s", VD_MDF4_F64};
    char hd_xml[1200], fh_xml[1200], esc[1024];
    uint64_t off, hd_md, fh, fh_md, dg, cg, *cn, *cn_name, *cn_unit, meta;
    struct out o;
    int n = nch + 1;

    memset(w, 0, sizeof(*w));
    w->fd = -1;
    if (nch < 0 || nch > 100000)
        return -EINVAL;
    xml_escape(esc, sizeof(esc), comment ? comment : "");
    snprintf(hd_xml, sizeof(hd_xml), "<HDcomment><TX>%s</TX></HDcomment>", esc);
    xml_escape(esc, sizeof(esc), tool_version ? tool_version : "");
    snprintf(fh_xml, sizeof(fh_xml),
             "<FHcomment><TX>created</TX><tool_id>rtvd</tool_id><tool_vendor>rtvd</tool_vendor>"
             "<tool_version>%s</tool_version></FHcomment>",
             esc);
    cn = calloc((size_t)n * 3, sizeof(*cn));
    if (!cn)
        return -ENOMEM;
    cn_name = cn + n;
    cn_unit = cn + 2 * n;

    /* pass 1: where each block goes */
    off = ID_LEN + HD_LEN;
    hd_md = off;
    off += text_len(hd_xml);
    fh = off;
    off += FH_LEN;
    fh_md = off;
    off += text_len(fh_xml);
    dg = off;
    off += DG_LEN;
    cg = off;
    off += CG_LEN;
    for (int i = 0; i < n; i++) {
        const struct vd_mdf4_chan *c = i ? &ch[i - 1] : &master;

        cn[i] = off;
        off += CN_LEN;
        cn_name[i] = off;
        off += text_len(c->name ? c->name : "");
        cn_unit[i] = 0;
        if (c->unit && *c->unit) {
            cn_unit[i] = off;
            off += text_len(c->unit);
        }
    }
    meta = off;
    w->cg_off = cg;
    w->dt_off = meta;
    w->rec_bytes = (uint32_t)(8 * n);
    w->cap = pad8(meta + HDR) > BUF_MIN ? pad8(meta + HDR) : BUF_MIN;
    w->buf = calloc(1, w->cap);
    if (!w->buf) {
        free(cn);
        return -ENOMEM;
    }

    /* pass 2: the blocks */
    o.p = w->buf;
    put_bytes(&o, "UnFinMF 4.10    rtvd    ", 24);
    put_le(&o, 0, 4);
    put_le(&o, 410, 2);
    put_zero(&o, 30);
    put_le(&o, UNFIN, 2);
    put_le(&o, 0, 2);
    /* HD: dg_first, fh_first, ch_first, at_first, ev_first, md_comment */
    header(&o, "##HD", HD_LEN, 6);
    put_le(&o, dg, 8);
    put_le(&o, fh, 8);
    put_le(&o, 0, 8);
    put_le(&o, 0, 8);
    put_le(&o, 0, 8);
    put_le(&o, hd_md, 8);
    put_le(&o, (uint64_t)start_ns, 8);
    put_le(&o, 0, 2); /* tz offset [min] */
    put_le(&o, 0, 2); /* dst offset [min] */
    put_le(&o, 0, 1); /* time flags: UTC, offsets not valid */
    put_le(&o, 0, 1); /* time class: local PC reference time */
    put_le(&o, 0, 1); /* flags: start angle and distance not valid */
    put_le(&o, 0, 1);
    put_f64(&o, 0.0);
    put_f64(&o, 0.0);
    text(&o, "##MD", hd_xml);
    /* FH: fh_next, md_comment; time, tz, dst, flags, reserved */
    header(&o, "##FH", FH_LEN, 2);
    put_le(&o, 0, 8);
    put_le(&o, fh_md, 8);
    put_le(&o, (uint64_t)start_ns, 8);
    put_le(&o, 0, 2);
    put_le(&o, 0, 2);
    put_le(&o, 0, 1);
    put_zero(&o, 3);
    text(&o, "##MD", fh_xml);
    /* DG: dg_next, cg_first, data, md_comment; rec_id_size 0 */
    header(&o, "##DG", DG_LEN, 4);
    put_le(&o, 0, 8);
    put_le(&o, cg, 8);
    put_le(&o, meta, 8);
    put_le(&o, 0, 8);
    put_le(&o, 0, 1);
    put_zero(&o, 7);
    /* CG: cg_next, cn_first, tx_acq_name, si_acq_source, sr_first, md_comment; record id,
     * cycle count (patched at close), flags, path separator, reserved, data bytes, inval bytes */
    header(&o, "##CG", CG_LEN, 6);
    put_le(&o, 0, 8);
    put_le(&o, cn[0], 8);
    put_zero(&o, 4 * 8);
    put_le(&o, 0, 8);
    put_le(&o, 0, 8);
    put_le(&o, 0, 2);
    put_le(&o, 0, 2);
    put_zero(&o, 4);
    put_le(&o, w->rec_bytes, 4);
    put_le(&o, 0, 4);
    for (int i = 0; i < n; i++) {
        const struct vd_mdf4_chan *c = i ? &ch[i - 1] : &master;

        /* CN: cn_next, composition, tx_name, si_source, cc_conversion, data, md_unit,
         * md_comment; type, sync type, data type, bit offset, byte offset, bit count, flags,
         * inval bit pos, precision, reserved, attachment count, 6 ranges and limits */
        header(&o, "##CN", CN_LEN, 8);
        put_le(&o, i + 1 < n ? cn[i + 1] : 0, 8);
        put_le(&o, 0, 8);
        put_le(&o, cn_name[i], 8);
        put_le(&o, 0, 8);
        put_le(&o, 0, 8);
        put_le(&o, 0, 8);
        put_le(&o, cn_unit[i], 8);
        put_le(&o, 0, 8);
        put_le(&o, i ? 0 : 2, 1); /* cn_type: fixed-length data, 2 = master */
        put_le(&o, i ? 0 : 1, 1); /* cn_sync_type: 1 = time for the master */
        put_le(&o, c->type == VD_MDF4_U64 ? 0 : 4, 1);
        put_le(&o, 0, 1);
        put_le(&o, (uint64_t)(8 * i), 4);
        put_le(&o, 64, 4);
        put_le(&o, 0, 4);
        put_le(&o, 0, 4);
        put_le(&o, 0, 1);
        put_le(&o, 0, 1);
        put_le(&o, 0, 2);
        for (int k = 0; k < 6; k++)
            put_f64(&o, 0.0);
        text(&o, "##TX", c->name ? c->name : "");
        if (cn_unit[i])
            text(&o, "##TX", c->unit);
    }
    /* DT: its length is patched at close */
    header(&o, "##DT", HDR, 0);
    free(cn);
    w->len = (size_t)(o.p - w->buf);
    w->bytes = w->len;
    w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->fd < 0 || flush(w)) {
        /* (not open for the caller: nothing left behind) */
        const int rc = w->fd < 0 ? -errno : w->err;

        if (w->fd >= 0)
            close(w->fd);
        w->fd = -1;
        free(w->buf);
        w->buf = NULL;
        return rc;
    }
    return 0;
}

int vd_mdf4_row(struct vd_mdf4 *w, double t, const uint64_t *bits)
{
    struct out o;

    if (w->err)
        return w->err;
    if (w->cap - w->len < w->rec_bytes && flush(w))
        return w->err;
    o.p = w->buf + w->len;
    put_f64(&o, t);
    for (uint32_t i = 1; i < w->rec_bytes / 8; i++)
        put_le(&o, bits[i - 1], 8);
    w->len += w->rec_bytes;
    w->rows++;
    w->bytes += w->rec_bytes;
    return 0;
}

/* the first error kept: -errno, or -EIO for a short write without one */
static void fail(struct vd_mdf4 *w, ssize_t n)
{
    if (!w->err)
        w->err = n < 0 && errno ? -errno : -EIO;
}

/* write b (n bytes) at offset off, over bytes already in the file (after a write error too:
 * it needs no new room) */
static void put_at(struct vd_mdf4 *w, uint64_t off, const void *b, int n)
{
    const ssize_t r = pwrite(w->fd, b, (size_t)n, (off_t)off);

    if (r != n)
        fail(w, r);
}

/* write v (n bytes, little endian) at offset off */
static void patch(struct vd_mdf4 *w, uint64_t off, uint64_t v, int n)
{
    unsigned char b[8];
    struct out o = {b};

    put_le(&o, v, n);
    put_at(w, off, b, n);
}

static void sync_file(struct vd_mdf4 *w)
{
    if (fsync(w->fd) < 0)
        fail(w, -1);
}

int vd_mdf4_close(struct vd_mdf4 *w)
{
    if (w->fd < 0)
        return w->err;
    flush(w);
    if (w->bytes_written >= w->dt_off + HDR) {
        /* the records in the file, then (once they are on disk) the ID that says finalized:
         * a crash in between leaves an unfinalized file, never a finalized one that lies */
        patch(w, w->cg_off + HDR + 6 * 8 + 8, w->rows_written, 8);                  /* cycles */
        patch(w, w->dt_off + 8, HDR + w->rows_written * (uint64_t)w->rec_bytes, 8); /* DT len */
        sync_file(w);
        patch(w, 60, 0, 2); /* id_unfin_flags: finalized */
        put_at(w, 0, "MDF     ", 8);
        sync_file(w);
    }
    if (close(w->fd))
        fail(w, -1);
    w->fd = -1;
    free(w->buf);
    w->buf = NULL;
    return w->err;
}
