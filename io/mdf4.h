/* io/mdf4.h - a streaming writer of ASAM MDF 4.10 files (the format CANape, asammdf and the
 * automotive measurement tools open): one data group with one channel group of fixed-length
 * records, a float64 time master channel and n channels of 8 bytes each (IEEE 754 float64 or
 * unsigned 64-bit integer, little endian), names and units in TX blocks. Written from the
 * ASAM MDF 4.1 block definitions (block header: id, reserved, length, link count; links; data):
 *
 *   ID  (64 B)  "UnFinMF " while streaming (flags: cycle count and DT length to update),
 *               "MDF     " once closed; version "4.10", program "rtvd"
 *   HD  start time [ns since 1970, UTC], links to the DG, the FH and a comment (MD)
 *   FH  file history (MD <FHcomment> with the tool id, vendor and version)
 *   DG  record id size 0 -> CG (cycle count, record bytes) -> CN chain (master first)
 *   DT  the records, appended as they come; the last block of the file
 *
 * Every block starts 8-byte aligned. Closing patches the CG's cycle count, the DT's length and
 * the ID block; a file that was not closed (a crash) still opens in tools that read
 * unfinalized MDF (the records up to the last write are there). Buffered: one write(2) per
 * 64 KiB. Owns the file descriptor and its buffer.
 * vd_mdf4_open/close: init/exit (allocate, open). vd_mdf4_row: no allocation; write(2) when
 * the buffer is full (a non-RT thread's). */
#ifndef VD_IO_MDF4_H
#define VD_IO_MDF4_H

#include <stddef.h>
#include <stdint.h>

enum vd_mdf4_type {
    VD_MDF4_F64 = 0, /* IEEE 754 double, little endian (cn_data_type 4) */
    VD_MDF4_U64,     /* unsigned 64-bit integer, little endian (cn_data_type 0) */
};

struct vd_mdf4_chan {
    const char *name;
    const char *unit; /* "" or NULL: none */
    int type;         /* enum vd_mdf4_type */
};

struct vd_mdf4 {
    int fd;
    uint32_t rec_bytes; /* 8 (time) + 8 per channel */
    uint64_t cg_off;    /* file offsets of the blocks patched at close */
    uint64_t dt_off;
    uint64_t rows;          /* records taken (buffered ones included) */
    uint64_t bytes;         /* file size so far, buffered bytes included */
    uint64_t rows_written;  /* records whole in the file (write(2) took all their bytes) */
    uint64_t bytes_written; /* bytes write(2) took */
    unsigned char *buf;     /* (cap) */
    size_t len, cap;
    int err; /* first error (-errno), sticky */
};

/* init-time */
/* create path (truncated) with nch channels after the time master "time" [s]; start_ns: the
 * HD start time [ns since the epoch, UTC]; comment: the HD comment (plain text, may be NULL);
 * tool_version: the FH's. 0 or -errno */
int vd_mdf4_open(struct vd_mdf4 *w, const char *path, const struct vd_mdf4_chan *ch, int nch,
                 int64_t start_ns, const char *comment, const char *tool_version);
/* flush, patch the cycle count and the DT length to the records whole in the file (after a
 * write error too: the file stays readable, with what reached it), fsync, then the ID block
 * (finalized) and fsync again; 0 or the first error (-errno) */
int vd_mdf4_close(struct vd_mdf4 *w);

/* a non-RT thread's */
/* one record: t [s] and nch 8-byte values (double or uint64_t as declared, in order) */
int vd_mdf4_row(struct vd_mdf4 *w, double t, const uint64_t *bits);

#endif /* VD_IO_MDF4_H */
