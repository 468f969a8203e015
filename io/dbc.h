/* io/dbc.h - CAN database (Vector DBC) parser and signal pack/unpack. Owns the messages,
 * signals, value tables, comments and node names of one parsed file: a few arrays and a
 * string arena allocated by vd_dbc_load/parse and released by vd_dbc_free; nothing changes
 * afterwards.
 *
 * Bit numbering (hil-conventions.md §5): bit b of a frame is bit b%8 of byte b/8 ("sawtooth").
 * Intel (@1) signals name their LSB as start bit and grow upwards; Motorola (@0) signals
 * name their MSB and continue in the next byte's bit 7. Raw values are the size-bit field
 * (two's complement for signed signals, IEEE-754 bits for float32/float64 signals);
 * physical = raw * factor + offset.
 *
 * vd_dbc_load/parse/free: init only, allocate, read the file, report to a FILE*
 * (io/dbc_parse.c). vd_dbc_find_*, vd_dbc_get/set_raw, vd_dbc_decode/encode: RT-safe (no
 * allocation, no syscalls, no stdio, bounded loops; io/dbc.c). */
#ifndef VD_IO_DBC_H
#define VD_IO_DBC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define VD_DBC_MAX_LEN 64 /* [byte] longest frame (CAN FD) */

enum vd_dbc_order {
    VD_DBC_MOTOROLA = 0, /* @0: big endian, start bit = MSB */
    VD_DBC_INTEL = 1,    /* @1: little endian, start bit = LSB */
};

enum vd_dbc_vtype {
    VD_DBC_INT = 0,     /* integer, signed or unsigned */
    VD_DBC_FLOAT32 = 1, /* SIG_VALTYPE_ 1: IEEE single, size 32 */
    VD_DBC_FLOAT64 = 2, /* SIG_VALTYPE_ 2: IEEE double, size 64 */
};

enum vd_dbc_mux {
    VD_DBC_PLAIN = 0,  /* always present */
    VD_DBC_MUX_SWITCH, /* "M": the message's multiplexor */
    VD_DBC_MUXED,      /* "m<n>": present only when the switch's raw value is mux_val */
};

/* VAL_ entry: raw value and its text */
struct vd_dbc_val {
    int64_t raw;
    const char *text;
};

struct vd_dbc_sig {
    const char *name;
    const char *unit;              /* "" when none */
    const char *comment;           /* CM_ SG_ text, NULL when none */
    int nrx;                       /* receivers as written (Vector__XXX kept) */
    const char *const *rx;         /* (nrx) node names */
    double factor, offset;         /* phys = raw * factor + offset; factor != 0 */
    double min, max;               /* [phys] range, enforced only when min < max */
    uint16_t start;                /* DBC start bit: LSB (Intel) or MSB (Motorola) */
    uint16_t lsb;                  /* sawtooth bit number of the LSB (= start for Intel) */
    uint8_t size;                  /* [bit] 1..64 (32 or 64 for float signals) */
    uint8_t order;                 /* enum vd_dbc_order */
    uint8_t vtype;                 /* enum vd_dbc_vtype */
    uint8_t mux;                   /* enum vd_dbc_mux */
    bool is_signed;                /* "-": two's complement */
    bool overlaps;                 /* shares bits with a signal that is in the same frame */
    uint32_t mux_val;              /* switch value, VD_DBC_MUXED only */
    int nval;                      /* VAL_ entries, in file order */
    const struct vd_dbc_val *vals; /* (nval) */
    int line;                      /* source line of the SG_ */
    /* derived by the parser for pack/unpack */
    uint16_t pos;          /* Intel: LSB as 8*byte + bit; Motorola: MSB as 8*byte + 7 - bit */
    uint8_t byte_lo;       /* first byte touched */
    uint8_t byte_hi;       /* last byte touched; frames need byte_hi + 1 bytes */
    double raw_lo, raw_hi; /* integer signals: representable raw range [raw_lo, raw_hi) */
    double tol;            /* [phys] slack for the [min, max] check (rounding of decimals) */
};

struct vd_dbc_msg {
    const char *name;
    const char *transmitter;       /* BO_ transmitter as written, "Vector__XXX" for none */
    int ntx;                       /* transmitters: BO_ one, then BO_TX_BU_ additions */
    const char *const *tx;         /* (ntx) node names */
    const char *comment;           /* CM_ BO_ text, NULL when none */
    uint32_t id;                   /* 11- or 29-bit identifier, without the DBC bit 31 */
    bool ext;                      /* 29-bit frame (bit 31 set in the BO_ id) */
    bool fd;                       /* CAN FD: VFrameFormat *_FD or length > 8 */
    bool ext_mux;                  /* extended multiplexing seen (treated as plain) */
    uint8_t len;                   /* [byte] frame length from BO_, 0..64 */
    int32_t cycle_ms;              /* [ms] GenMsgCycleTime or its default; 0 = none */
    int nsig;                      /* signals, in file order */
    const struct vd_dbc_sig *sigs; /* (nsig) */
    const struct vd_dbc_sig *mux;  /* multiplexor switch, NULL when none */
    int line;                      /* source line of the BO_ */
};

struct vd_dbc {
    const char *name;              /* file name used in diagnostics */
    const char *version;           /* VERSION string, "" when none */
    int nmsg;                      /* messages, in file order */
    const struct vd_dbc_msg *msgs; /* (nmsg) */
    int nsig;                      /* signals of all messages */
    int nnode;                     /* BU_ node names */
    const char *const *nodes;      /* (nnode) */
    const char *const *node_cm;    /* (nnode) CM_ BU_ text per node, NULL when none */
    int nval;                      /* VAL_ entries of all signals */
    int ncomment;                  /* CM_ texts stored (global, node, message, signal) */
    int nnote;                     /* constructs read and ignored, each reported as a note */
    int nwarn;                     /* defects read the obvious way, each reported as a warning */
    const char *comment;           /* global CM_, NULL when none */
    /* private */
    struct vd_dbc_msg *msg_;
    struct vd_dbc_sig *sig_;
    struct vd_dbc_val *val_;
    struct vd_dbc_idx *idx_; /* (nmsg) sorted by (id, ext) */
    void *arena_;            /* string and pointer-array chunks */
};

/* codes returned by decode/encode besides 0 */
/* -EINVAL: frame shorter than the signal needs; -ENOENT: multiplexed signal not selected;
 * -ERANGE: out of [min, max] or not representable; -EDOM: NaN or infinite value */

/* init-time (may allocate) */

#define VD_DBC_MAX_FILE (64u << 20) /* [bytes] the largest DBC file read (real ones: ~2 MB) */

/* defects that do not change the meaning (an id above 0x7FF without the extended flag: read
 * as a 29-bit id; a CM_ without its ';'; a name starting with a digit: read as that name) are
 * located warnings (nwarn) by default, errors with this flag; what changes the meaning (a
 * signal outside its frame, a length no CAN frame has, ...) is always an error */
#define VD_DBC_STRICT 1u

/* read and parse a file: a regular file of at most VD_DBC_MAX_FILE bytes. Errors
 * "path:LINE: error: ..." (and notes) go to errf (may be NULL). NULL on error (errno:
 * ENOENT/EACCES/... for the file, EISDIR a directory, ENODEV not a regular file, EFBIG too
 * large, EINVAL for its content). */
struct vd_dbc *vd_dbc_load(const char *path, FILE *errf);
/* parse text[0..len) (need not be NUL-terminated); name is used in diagnostics */
struct vd_dbc *vd_dbc_parse(const char *name, const char *text, size_t len, FILE *errf);
/* the same with flags (VD_DBC_STRICT); vd_dbc_load/parse: flags 0 */
struct vd_dbc *vd_dbc_load_opts(const char *path, unsigned flags, FILE *errf);
struct vd_dbc *vd_dbc_parse_opts(const char *name, const char *text, size_t len, unsigned flags,
                                 FILE *errf);
void vd_dbc_free(struct vd_dbc *db);

/* RT-safe */

/* message by name (linear) or by identifier (binary search); NULL when absent */
const struct vd_dbc_msg *vd_dbc_find_msg(const struct vd_dbc *db, const char *name);
const struct vd_dbc_msg *vd_dbc_find_id(const struct vd_dbc *db, uint32_t id, bool ext);
const struct vd_dbc_sig *vd_dbc_find_sig(const struct vd_dbc_msg *msg, const char *name);
/* VAL_ text of a raw value, NULL when none */
const char *vd_dbc_val_text(const struct vd_dbc_sig *s, int64_t raw);

/* raw field of s: zero-extended bits; data holds at least s->byte_hi + 1 bytes */
uint64_t vd_dbc_get_raw(const uint8_t *data, const struct vd_dbc_sig *s);
/* raw field sign-extended when s->is_signed */
int64_t vd_dbc_get_int(const uint8_t *data, const struct vd_dbc_sig *s);
/* write the low s->size bits of raw; other bits of data are kept */
void vd_dbc_set_raw(uint8_t *data, const struct vd_dbc_sig *s, uint64_t raw);

/* physical value of s in a frame of len bytes. 0; -ERANGE (outside [min, max], *phys still
 * written); -ENOENT (multiplexed and the switch selects another group); -EINVAL (frame too
 * short); -EDOM (float signal holding NaN/Inf, *phys not written). */
int vd_dbc_decode(const uint8_t *data, int len, const struct vd_dbc_msg *m,
                  const struct vd_dbc_sig *s, double *phys);
/* write phys into s, rounded to the nearest raw value; a multiplexed signal also writes its
 * switch value. 0; -ERANGE (outside [min, max] or raw not representable); -EDOM (NaN/Inf);
 * -EINVAL (frame too short); -EBUSY (s shares bits with another signal of the frame,
 * s->overlaps, or a multiplexed signal's bits would change its own switch value). Nothing is
 * written on error. */
int vd_dbc_encode(uint8_t *data, int len, const struct vd_dbc_msg *m, const struct vd_dbc_sig *s,
                  double phys);

#endif /* VD_IO_DBC_H */
