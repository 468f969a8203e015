/* io/recorder.h - full-rate recording files: rows of a time master and n channels to CSV
 * and/or ASAM MDF 4.10 (io/mdf4.h), rotated by size or by time. The rows come from a non-RT
 * thread (app/recording.h drains the loop's recording ring into it); this module only writes.
 * Files: <path>.csv / <path>.mf4, or with rotation <path>-0001.csv, -0002, ... each a complete
 * file (the MDF4 ones finalized at rotation), a new one when either format's file has
 * rotate_bytes or its time is up. After a write error (a full disk) the files keep what
 * reached them (the MDF4 finalized with the records whole in it), and the rows not in them
 * are counted as lost, not written. Memory: one 256 KiB CSV buffer and the MDF4
 * writer's 64 KiB, allocated at open; nothing grows.
 * Owns its files and buffers.
 * vd_recorder_open/close: init/exit. vd_recorder_row: no allocation; write(2) when a buffer is
 * full, and open/close at a rotation (a non-RT thread's). */
#ifndef VD_IO_RECORDER_H
#define VD_IO_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/mdf4.h"

#define VD_REC_CSV  1
#define VD_REC_MDF4 2
#define VD_REC_PATH 1024

struct vd_recorder_cfg {
    const char *path;              /* file name without extension */
    int formats;                   /* VD_REC_CSV | VD_REC_MDF4 */
    int nch;                       /* channels after the time master */
    const struct vd_mdf4_chan *ch; /* (nch) names, units, types (borrowed) */
    uint64_t rotate_bytes;         /* a new file once one is this large; 0: never */
    double rotate_s;               /* [s] a new file after this much time; 0: never */
    int64_t start_ns;              /* [ns since the epoch, UTC] time 0 of the master */
    const char *comment, *version; /* MDF4 HD comment, FH tool version */
};

struct vd_recorder {
    struct vd_recorder_cfg cfg;
    struct vd_mdf4 mdf;
    bool mdf_open;
    int csv_fd;
    char *csv; /* (csv_cap) */
    size_t csv_len, csv_cap;
    int index;                              /* current file number, from 1 */
    double file_t0;                         /* [s] master time of the file's first row */
    uint64_t file_rows, file_csv, file_mdf; /* the current files: rows, each format's bytes
                                               (buffered ones included) */
    uint64_t rows;                          /* rows taken since open */
    uint64_t files;                         /* files opened (each format's counted) */
    int err; /* first error (-errno), sticky: rows are then dropped */
    /* what reached the files (write(2) took it), as of the last write: */
    uint64_t rows_written;  /* rows whole in every format's file */
    uint64_t bytes_written; /* bytes in all the files, headers included */
    uint64_t rows_lost;     /* after close: rows taken but not written (rows - rows_written) */
    /* (internal) */
    uint64_t csv_rows_done, csv_bytes_done, mdf_rows_done, mdf_bytes_done;
    bool csv_head; /* the CSV buffer starts with the header line (not a row) */
    int csv_err;   /* the CSV file's first error (its buffer is written after the MDF4's) */
    char name_csv[VD_REC_PATH], name_mdf[VD_REC_PATH]; /* the current files */
};

/* init-time: create the first file(s); 0 or -errno */
int vd_recorder_open(struct vd_recorder *r, const struct vd_recorder_cfg *cfg);
/* exit: flush and close (MDF4 finalized); 0 or the first error */
int vd_recorder_close(struct vd_recorder *r);
/* a non-RT thread's: one row, t [s] and nch 8-byte values (double or uint64_t as declared) */
int vd_recorder_row(struct vd_recorder *r, double t, const uint64_t *bits);

#endif /* VD_IO_RECORDER_H */
