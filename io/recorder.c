/* io/recorder.c - recording rows to CSV and MDF4 files with rotation. */
#include "recorder.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CSV_BUF (256 * 1024)
#define CSV_ROW 64 /* [bytes] room per value in the buffer before a flush */

/* the rows whole in the file among the first n bytes of the buffer (its lines less the
 * header's) */
static uint64_t csv_lines(const struct vd_recorder *r, size_t n)
{
    uint64_t k = 0;

    for (const char *p = r->csv, *e = r->csv + n; p < e && (p = memchr(p, '\n', (size_t)(e - p)));
         p++)
        k++;
    return k - (r->csv_head && k > 0);
}

static int csv_flush(struct vd_recorder *r)
{
    size_t off = 0;

    while (off < r->csv_len && !r->csv_err) {
        const ssize_t n = write(r->csv_fd, r->csv + off, r->csv_len - off);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            r->csv_err = n < 0 ? -errno : -EIO;
        else
            off += (size_t)n;
    }
    if (r->csv_err && !r->err)
        r->err = r->csv_err;
    r->csv_rows_done += csv_lines(r, off);
    r->csv_bytes_done += off;
    r->csv_len = 0;
    r->csv_head = false;
    return r->csv_err;
}

/* rows_written, bytes_written from the formats' counts */
static void written(struct vd_recorder *r)
{
    const int fm = r->cfg.formats;
    const uint64_t mr = r->mdf_rows_done + (r->mdf_open ? r->mdf.rows_written : 0);
    const uint64_t mb = r->mdf_bytes_done + (r->mdf_open ? r->mdf.bytes_written : 0);

    if (!(fm & VD_REC_MDF4))
        r->rows_written = r->csv_rows_done;
    else if (!(fm & VD_REC_CSV))
        r->rows_written = mr;
    else
        r->rows_written = mr < r->csv_rows_done ? mr : r->csv_rows_done;
    r->bytes_written = r->csv_bytes_done + mb;
}

static void csv_str(struct vd_recorder *r, const char *s)
{
    const size_t n = strlen(s);

    memcpy(r->csv + r->csv_len, s, n);
    r->csv_len += n;
}

static void csv_u64(struct vd_recorder *r, uint64_t v)
{
    char tmp[24];
    int n = 0;

    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n > 0)
        r->csv[r->csv_len++] = tmp[--n];
}

/* 10 significant digits, as rtvd sim's CSV (io/record.h) */
static void csv_f64(struct vd_recorder *r, double v)
{
    const int n = snprintf(r->csv + r->csv_len, CSV_ROW, "%.10g", v);

    if (n > 0 && n < CSV_ROW)
        r->csv_len += (size_t)n;
}

/* open the current file(s): <path>[-NNNN].csv / .mf4 */
static int open_files(struct vd_recorder *r)
{
    const struct vd_recorder_cfg *c = &r->cfg;
    const bool rotating = c->rotate_bytes > 0 || c->rotate_s > 0;
    char stem[VD_REC_PATH];
    int rc;

    if (rotating)
        snprintf(stem, sizeof(stem), "%.1000s-%04d", c->path, r->index);
    else
        snprintf(stem, sizeof(stem), "%.1000s", c->path);
    r->file_rows = r->file_csv = r->file_mdf = 0;
    if (c->formats & VD_REC_CSV) {
        snprintf(r->name_csv, sizeof(r->name_csv), "%.1010s.csv", stem);
        r->csv_fd = open(r->name_csv, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (r->csv_fd < 0)
            return r->err = -errno;
        r->csv_len = 0;
        csv_str(r, "time");
        for (int i = 0; i < c->nch; i++) {
            csv_str(r, ",");
            csv_str(r, c->ch[i].name);
        }
        csv_str(r, "\n");
        r->csv_head = true;
        r->file_csv = r->csv_len;
        r->files++;
    }
    if (c->formats & VD_REC_MDF4) {
        snprintf(r->name_mdf, sizeof(r->name_mdf), "%.1010s.mf4", stem);
        rc = vd_mdf4_open(&r->mdf, r->name_mdf, c->ch, c->nch, c->start_ns, c->comment, c->version);
        if (rc)
            return r->err = rc;
        r->mdf_open = true;
        r->file_mdf = r->mdf.bytes;
        r->files++;
    }
    return 0;
}

static int close_files(struct vd_recorder *r)
{
    if (r->csv_fd >= 0) {
        csv_flush(r);
        if (fsync(r->csv_fd) && !r->err)
            r->err = -errno;
        if (close(r->csv_fd) && !r->err)
            r->err = -errno;
        r->csv_fd = -1;
    }
    if (r->mdf_open) {
        const int rc = vd_mdf4_close(&r->mdf);

        if (rc && !r->err)
            r->err = rc;
        r->mdf_rows_done += r->mdf.rows_written;
        r->mdf_bytes_done += r->mdf.bytes_written;
        r->mdf_open = false;
    }
    written(r);
    return r->err;
}

int vd_recorder_open(struct vd_recorder *r, const struct vd_recorder_cfg *cfg)
{
    memset(r, 0, sizeof(*r));
    r->cfg = *cfg;
    r->csv_fd = -1;
    r->index = 1;
    if (!cfg->path || !(cfg->formats & (VD_REC_CSV | VD_REC_MDF4)) || cfg->nch < 0 ||
        (size_t)cfg->nch * CSV_ROW + 4096 > CSV_BUF || cfg->rotate_s < 0)
        return -EINVAL;
    if (cfg->formats & VD_REC_CSV) {
        r->csv = malloc(CSV_BUF);
        if (!r->csv)
            return -ENOMEM;
        memset(r->csv, 0, CSV_BUF); /* touch the pages now */
        r->csv_cap = CSV_BUF;
    }
    if (open_files(r)) {
        const int rc = r->err;

        close_files(r);
        free(r->csv);
        r->csv = NULL;
        return rc;
    }
    return 0;
}

int vd_recorder_close(struct vd_recorder *r)
{
    close_files(r);
    r->rows_lost = r->rows - r->rows_written;
    free(r->csv);
    r->csv = NULL;
    return r->err;
}

int vd_recorder_row(struct vd_recorder *r, double t, const uint64_t *bits)
{
    const struct vd_recorder_cfg *c = &r->cfg;

    r->rows++;
    if (r->err)
        return r->err;
    /* rotation: a full file, or its time is up (checked before the row: it starts the next) */
    if (r->file_rows > 0 &&
        ((c->rotate_bytes && (r->file_csv >= c->rotate_bytes || r->file_mdf >= c->rotate_bytes)) ||
         (c->rotate_s > 0 && t - r->file_t0 >= c->rotate_s))) {
        close_files(r);
        r->index++;
        if (!r->err)
            open_files(r);
        if (r->err)
            return r->err;
    }
    if (r->file_rows == 0)
        r->file_t0 = t;
    if (c->formats & VD_REC_CSV) {
        size_t before;

        if (r->csv_cap - r->csv_len < (size_t)(c->nch + 1) * CSV_ROW && csv_flush(r))
            return r->err;
        before = r->csv_len;
        csv_f64(r, t);
        for (int i = 0; i < c->nch; i++) {
            csv_str(r, ",");
            if (c->ch[i].type == VD_MDF4_U64) {
                csv_u64(r, bits[i]);
            } else {
                double v;

                memcpy(&v, &bits[i], sizeof(v));
                csv_f64(r, v);
            }
        }
        csv_str(r, "\n");
        r->file_csv += r->csv_len - before;
    }
    if (c->formats & VD_REC_MDF4) {
        if (vd_mdf4_row(&r->mdf, t, bits)) {
            r->err = r->mdf.err;
            written(r);
            return r->err;
        }
        r->file_mdf += r->mdf.rec_bytes;
    }
    r->file_rows++;
    written(r);
    return 0;
}
