/* tests/io/test_recorder.c - what the recorder (io/recorder.h) and the MDF4 writer
 * (io/mdf4.h) count when the disk fills: the file size limited with RLIMIT_FSIZE (write(2)
 * then takes part of a buffer and fails with EFBIG on the rest, as a full disk does with
 * ENOSPC), the counters must say what reached the file, not what was handed over:
 * - MDF4: rows_written = the records whole in the file (a cut one not), bytes_written = the
 *   file's size, the file finalized with that cycle count and DT length, the first error
 *   (-EFBIG, not a generic -EIO) returned by close;
 * - MDF4 on /dev/full: open fails with -ENOSPC and leaves no descriptor or buffer behind;
 * - the recorder, CSV and both formats: rows_written = the rows whole in every format's file
 *   (the CSV's complete lines less its header), bytes_written = the files' sizes, rows_lost =
 *   rows taken - rows_written after close;
 * - size rotation with both formats: each format's own size decides (their sum did). */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "io/mdf4.h"
#include "io/recorder.h"

static const struct vd_mdf4_chan one[1] = {{"x", "m", VD_MDF4_F64}};

static long file_size(const char *path)
{
    struct stat st;

    return stat(path, &st) ? -1 : (long)st.st_size;
}

static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;

    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

/* the complete lines of a file, and its size */
static long lines(const char *path)
{
    FILE *f = fopen(path, "rb");
    long n = 0;
    int c;

    if (!f)
        return -1;
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

static void limit_size(rlim_t bytes)
{
    const struct rlimit rl = {bytes, RLIM_INFINITY};

    setrlimit(RLIMIT_FSIZE, &rl);
}

static void row_bits(long i, uint64_t *bits)
{
    const double v = (double)i * 0.5;

    memcpy(bits, &v, 8);
}

static void mdf4_full(const char *tmp)
{
    struct vd_mdf4 w;
    uint64_t bits, data0;
    const long cut = 7; /* bytes of one more record: a record cut by the limit */
    unsigned char b[8];
    long fails = 0, sz;
    FILE *f;

    /* the blocks before the records: from an unlimited file first */
    CHECK(vd_mdf4_open(&w, tmp, one, 1, 0, NULL, NULL) == 0, "open");
    data0 = w.dt_off + 24;
    CHECK(w.bytes_written == data0 && w.rows_written == 0, "header written: %llu of %llu",
          (unsigned long long)w.bytes_written, (unsigned long long)data0);
    CHECK(vd_mdf4_close(&w) == 0, "close");

    limit_size(data0 + 1000 * 16 + (rlim_t)cut);
    CHECK(vd_mdf4_open(&w, tmp, one, 1, 0, NULL, NULL) == 0, "open under the limit");
    for (long i = 0; i < 20000; i++) {
        row_bits(i, &bits);
        fails += vd_mdf4_row(&w, (double)i, &bits) != 0;
    }
    CHECK(w.err == -EFBIG, "the write error kept: %d", w.err);
    CHECK(fails > 0 && w.rows == 20000 - (uint64_t)fails, "rows taken %llu, refused %ld",
          (unsigned long long)w.rows, fails);
    CHECK(vd_mdf4_close(&w) == -EFBIG, "close returns the first error");
    limit_size(RLIM_INFINITY);
    sz = file_size(tmp);
    CHECK(sz == (long)(data0 + 1000 * 16 + (uint64_t)cut), "file size %ld", sz);
    CHECK(w.bytes_written == (uint64_t)sz, "bytes_written %llu = the file's size",
          (unsigned long long)w.bytes_written);
    CHECK(w.rows_written == 1000, "rows_written %llu: the whole records only",
          (unsigned long long)w.rows_written);
    f = fopen(tmp, "rb");
    if (f) {
        uint64_t cycles = 0, dtlen = 0;
        unsigned char id[8], flags[2];

        CHECK(fread(id, 1, 8, f) == 8 && !memcmp(id, "MDF     ", 8), "finalized ID");
        CHECK(fseek(f, 60, SEEK_SET) == 0 && fread(flags, 1, 2, f) == 2 && !flags[0] && !flags[1],
              "unfinished flags cleared");
        CHECK(fseek(f, (long)w.cg_off + 80, SEEK_SET) == 0 && fread(b, 1, 8, f) == 8, "CG");
        memcpy(&cycles, b, 8);
        CHECK(fseek(f, (long)w.dt_off + 8, SEEK_SET) == 0 && fread(b, 1, 8, f) == 8, "DT");
        memcpy(&dtlen, b, 8);
        CHECK(cycles == 1000 && dtlen == 24 + 1000 * 16, "cycle count %llu, DT length %llu",
              (unsigned long long)cycles, (unsigned long long)dtlen);
        fclose(f);
    }

    /* a device that is always full: nothing left open */
    {
        const int n0 = open_fds();

        CHECK(vd_mdf4_open(&w, "/dev/full", one, 1, 0, NULL, NULL) == -ENOSPC, "/dev/full");
        CHECK(w.fd == -1 && w.buf == NULL && open_fds() == n0, "no descriptor or buffer left");
    }
}

static void recorder_full(const char *dir, int formats)
{
    char path[512], csv[560], mf4[560];
    struct vd_recorder r;
    const struct vd_recorder_cfg cfg = {.path = path, .formats = formats, .nch = 1, .ch = one};
    long fails = 0;
    uint64_t bits;

    snprintf(path, sizeof(path), "%s/rec%d", dir, formats);
    snprintf(csv, sizeof(csv), "%s.csv", path);
    snprintf(mf4, sizeof(mf4), "%s.mf4", path);
    /* 200 kB: the CSV's first 256 KiB buffer is cut (rows of 2 to 14 bytes here: the 40000
     * rows need 2 flushes), the MDF4's fourth 64 KiB one (16 bytes a record); with both, the
     * MDF4 fails first and the CSV buffer is still written at close (an error in one format
     * does not drop the other's rows) */
    limit_size(200000);
    CHECK(vd_recorder_open(&r, &cfg) == 0, "open (formats %d)", formats);
    for (long i = 0; i < 40000; i++) {
        row_bits(i, &bits);
        fails += vd_recorder_row(&r, (double)i, &bits) != 0;
    }
    CHECK(vd_recorder_close(&r) == -EFBIG, "close: -EFBIG (%d)", r.err);
    limit_size(RLIM_INFINITY);
    CHECK(fails > 0 && r.rows == 40000, "rows taken %llu, %ld refused after the error",
          (unsigned long long)r.rows, fails);
    {
        const long csv_rows = formats & VD_REC_CSV ? lines(csv) - 1 : -1;
        const long mdf_bytes = formats & VD_REC_MDF4 ? file_size(mf4) : 0;
        const long csv_bytes = formats & VD_REC_CSV ? file_size(csv) : 0;
        struct vd_mdf4 probe;
        long mdf_rows = -1, want;

        if (formats & VD_REC_MDF4) {
            /* the records whole in the MDF4 file: from its size, less the blocks before them
             * (those of an empty file of the same channels) */
            char p2[600];

            snprintf(p2, sizeof(p2), "%s/probe.mf4", dir);
            if (vd_mdf4_open(&probe, p2, one, 1, 0, NULL, NULL) == 0) {
                mdf_rows = (mdf_bytes - (long)(probe.dt_off + 24)) / 16;
                vd_mdf4_close(&probe);
            }
            unlink(p2);
        }
        want = csv_rows < 0 ? mdf_rows : mdf_rows < 0 || csv_rows < mdf_rows ? csv_rows : mdf_rows;
        CHECK(want > 0 && r.rows_written == (uint64_t)want,
              "rows_written %llu: the rows whole in every file (csv %ld, mdf4 %ld)",
              (unsigned long long)r.rows_written, csv_rows, mdf_rows);
        CHECK(r.bytes_written == (uint64_t)(csv_bytes + mdf_bytes),
              "bytes_written %llu = the files' sizes %ld", (unsigned long long)r.bytes_written,
              csv_bytes + mdf_bytes);
        CHECK(r.rows_lost == r.rows - r.rows_written, "rows_lost %llu",
              (unsigned long long)r.rows_lost);
    }
    unlink(csv);
    unlink(mf4);
}

static void rotation_both(const char *dir)
{
    char path[512], name[600];
    struct vd_recorder r;
    const uint64_t limit = 20000;
    const struct vd_recorder_cfg cfg = {.path = path,
                                        .formats = VD_REC_CSV | VD_REC_MDF4,
                                        .nch = 1,
                                        .ch = one,
                                        .rotate_bytes = limit};
    uint64_t bits, total = 0;
    int nfile;

    snprintf(path, sizeof(path), "%s/rot", dir);
    CHECK(vd_recorder_open(&r, &cfg) == 0, "open");
    for (long i = 0; i < 5000; i++) {
        row_bits(i, &bits);
        CHECK(vd_recorder_row(&r, (double)i * 1e-3, &bits) == 0, "row %ld", i);
    }
    CHECK(vd_recorder_close(&r) == 0 && r.rows_written == 5000 && r.rows_lost == 0, "close");
    nfile = r.index;
    CHECK(nfile >= 3, "%d rotations", nfile);
    for (int i = 1; i <= nfile; i++) {
        long s[2];

        for (int k = 0; k < 2; k++) {
            snprintf(name, sizeof(name), "%s-%04d.%s", path, i, k ? "mf4" : "csv");
            s[k] = file_size(name);
            total += (uint64_t)s[k];
            /* closed before the row that starts at limit or beyond: below limit + one row
             * (a CSV row here is at most 2 x 10 digits, sign, exponent, comma, newline: < 64) */
            CHECK(s[k] > 0 && (uint64_t)s[k] < limit + (k ? 16 : 64), "%s: %ld bytes", name, s[k]);
            unlink(name);
        }
        CHECK(i == nfile || (uint64_t)(s[0] > s[1] ? s[0] : s[1]) >= limit,
              "file %d closed at %ld / %ld bytes, before %llu", i, s[0], s[1],
              (unsigned long long)limit);
    }
    CHECK(total == r.bytes_written, "bytes_written %llu = the files' %llu",
          (unsigned long long)r.bytes_written, (unsigned long long)total);
}

int main(void)
{
    char dir[] = "/tmp/test_recorder.XXXXXX", tmp[600];

    signal(SIGXFSZ, SIG_IGN); /* (beyond RLIMIT_FSIZE: EFBIG, not the signal) */
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(tmp, sizeof(tmp), "%s/w.mf4", dir);
    mdf4_full(tmp);
    unlink(tmp);
    recorder_full(dir, VD_REC_CSV);
    recorder_full(dir, VD_REC_MDF4);
    recorder_full(dir, VD_REC_CSV | VD_REC_MDF4);
    rotation_both(dir);
    rmdir(dir);
    return vt_report("test_recorder");
}
