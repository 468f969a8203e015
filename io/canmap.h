/* io/canmap.h - CAN signal mapping: DBC signals of received frames into a table of model input
 * values, model output values into the DBC signals of transmitted frames, with unit
 * conversion, range and NaN checks, RX timeouts with safe values, per-message cycle times and
 * send phases, and AUTOSAR E2E (io/e2e.h) generated on TX and checked on RX. Pure logic: no
 * sockets, no threads, no clocks (the caller passes the time). Owns the resolved mapping, the
 * E2E states, the received-value table, frame templates and every counter; borrows the DBCs
 * (io/dbc.h), which must outlive it.
 *
 * Directions are written from the target's point of view: "rx" messages go ECU -> rtvd and
 * drive model inputs, "tx" messages go rtvd -> ECU and carry model output signals. A map
 * built with role VD_CANMAP_ECU plays the other end from the same description (the virtual
 * ECU): it sends the rx messages from a table of input values and receives the tx messages
 * into a table of output values. Everything below holds for both roles with "rx"/"tx" read
 * as "messages this role receives/sends".
 *
 * Values. The value tables are indexed by a bound list of names per side (vd_canmap_bind):
 * side INPUTS = model input names (e.g. the model's inputs in model order, so the received
 * table is the loop's input snapshot: per input a value and a valid flag), side OUTPUTS =
 * output signal names (the loop's output snapshot). Conversion per mapped signal:
 *     model = phys * unit_factor * scale + offset        (phys: DBC physical value)
 * and its inverse on send. unit_factor converts the signal's DBC unit to SI (deg -> rad,
 * km/h -> m/s, rpm -> rad/s, g -> m/s^2, ...; vd_canmap_unit_factor).
 *
 * Receiving (vd_canmap_rx): a frame whose (bus, id, ext) is not a received message is
 * ignored and counted (unknown); error and RTR frames likewise (other); a length other than
 * the DBC length is rejected (bad_len); with E2E, the profile check runs and a frame whose
 * status is ERROR, REPEATED or WRONG_SEQUENCE is rejected (counted per status). Of an
 * accepted frame every mapped signal present (multiplexed signals only when selected) is
 * decoded, NaN/Inf-checked and range-checked in DBC units (default range: the DBC's
 * [min, max]), converted and checked finite; a failing signal is not used: its entry gets
 * its safe value (a number, or hold = keep the last good value) and the INVALID status,
 * and the cause is counted. A good value clears INVALID and TIMEOUT (a recovery).
 * Timeouts (vd_canmap_rx_check_timeouts): a signal without a good value for longer than
 * its message's timeout (default k x cycle time, x the number of multiplex groups for a
 * multiplexed signal) gets its safe value and the TIMEOUT status, counted once per event.
 * Until its first good value an entry holds its safe value (hold: 0) with status NODATA.
 * The valid flag of a mapped entry is 1 from vd_canmap_start on (the value, good or safe,
 * is to be used); unmapped entries stay 0.
 *
 * Sending (vd_canmap_tx_due): in 1 ms slot s a message with cycle c and phase p is due when
 * s mod c = p. Phases not given are spread per bus at build time: messages are placed in
 * order of cycle, each at the phase that least loads the busiest slot it would use. A
 * frame starts from a template (unmapped signals: 0 clamped into their range; constants:
 * their value); each mapped signal is converted, a NaN/Inf value replaced by the last value
 * sent (counted), the value clamped into its range (DBC range intersected with what the raw
 * field can hold; counted) and encoded; a multiplexed message sends its groups in turn; E2E
 * protection writes counter and CRC last.
 *
 * Threads: rx, check_timeouts and the rx_* accessors touch only receive state; tx_due and
 * set_fault only send state; so one thread may receive while another sends. Counters of a
 * direction are read (vd_canmap_rx_stats/tx_stats, msg/sig stats) on that direction's
 * thread, or after it stopped.
 *
 * vd_canmap_new/bind/free/report*: init only (allocate, print; io/canmap_build.c,
 * io/canmap_report.c). Everything else: RT-safe (no allocation, no syscalls, no stdio; work
 * bounded by the frame's message; io/canmap.c). */
#ifndef VD_IO_CANMAP_H
#define VD_IO_CANMAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/candesc.h"
#include "io/can_frame.h"
#include "io/dbc.h"
#include "io/e2e.h"

#define VD_CANMAP_DEFAULT   VD_CANDESC_UNSET /* an integer field not given: derived */
#define VD_CANMAP_MAX_GROUP 16               /* multiplex groups per message */

/* the enums of the description (core/candesc.h), under this module's names */
enum vd_canmap_role {
    VD_CANMAP_TARGET = VD_CANDESC_TARGET, /* rtvd: receives rx messages, sends tx messages */
    VD_CANMAP_ECU = VD_CANDESC_ECU, /* the virtual ECU: receives tx messages, sends rx messages */
};

enum vd_canmap_dir {
    VD_CANMAP_RX = VD_CANDESC_RX, /* ECU -> rtvd: signals drive model inputs */
    VD_CANMAP_TX = VD_CANDESC_TX, /* rtvd -> ECU: signals carry model output signals */
};

enum vd_canmap_side {
    VD_CANMAP_INPUTS = 0, /* model input names (rx messages' signals) */
    VD_CANMAP_OUTPUTS,    /* output signal names (tx messages' signals) */
};

enum vd_canmap_safe {
    VD_CANMAP_SAFE_VALUE = VD_CANDESC_SAFE_VALUE, /* the safe value */
    VD_CANMAP_SAFE_HOLD = VD_CANDESC_SAFE_HOLD,   /* the last good value */
};

enum vd_canmap_e2e_profile {
    VD_CANMAP_E2E_NONE = VD_CANDESC_E2E_NONE,
    VD_CANMAP_E2E_P01 = VD_CANDESC_E2E_P01,
    VD_CANMAP_E2E_P02 = VD_CANDESC_E2E_P02,
    VD_CANMAP_E2E_P05 = VD_CANDESC_E2E_P05,
};

/* status bits of a received entry */
enum vd_canmap_status {
    VD_CANMAP_ST_NODATA = 1u << 0,  /* no good value since vd_canmap_start */
    VD_CANMAP_ST_TIMEOUT = 1u << 1, /* timed out: safe value */
    VD_CANMAP_ST_INVALID = 1u << 2, /* the last value received was rejected: safe value */
};

/* outcome of vd_canmap_rx */
enum vd_canmap_rx_result {
    VD_CANMAP_RX_USED = 0, /* accepted (some signals may still have been rejected) */
    VD_CANMAP_RX_UNKNOWN,  /* not a message this role receives on this bus */
    VD_CANMAP_RX_OTHER,    /* error or RTR frame */
    VD_CANMAP_RX_BAD_LEN,  /* length differs from the DBC's */
    VD_CANMAP_RX_E2E,      /* E2E status ERROR, REPEATED or WRONG_SEQUENCE */
};

/* fault injection on sent messages (the virtual ECU; tests) */
enum vd_canmap_fault {
    VD_CANMAP_FAULT_SILENT = 1u << 0,         /* not sent (counted as suppressed) */
    VD_CANMAP_FAULT_BAD_CRC = 1u << 1,        /* CRC inverted after protection */
    VD_CANMAP_FAULT_REPEAT_COUNTER = 1u << 2, /* E2E counter not advanced */
    VD_CANMAP_FAULT_JUMP_COUNTER = 1u << 3,   /* counter advanced by max_delta_counter + 1 */
    VD_CANMAP_FAULT_OUT_OF_RANGE = 1u << 4,   /* mapped integer signals: largest raw value */
    VD_CANMAP_FAULT_NAN = 1u << 5,            /* mapped float signals: NaN; mapped integer
                                                 signals with an invalid-value pattern in the
                                                 DBC (VAL_ "Invalid", "SNA", ...): that value */
    VD_CANMAP_FAULT_SHORT = 1u << 6,          /* frame one byte shorter than the DBC's */
};

/* ---- counters ------------------------------------------------------------------------------ */

struct vd_canmap_sig_stats {
    uint64_t updates;       /* rx: good values used; tx: values sent */
    uint64_t out_of_range;  /* rx: rejected, outside the range */
    uint64_t nan;           /* rx: rejected, NaN/Inf; tx: replaced by the last value */
    uint64_t clamped;       /* tx: clamped into the range */
    uint64_t timeouts;      /* rx: timeout events */
    uint64_t recoveries;    /* rx: good value after a timeout */
    uint64_t invalid_value; /* rx: rejected, the DBC's invalid-value pattern (VAL_ "SNA") */
};

struct vd_canmap_msg_stats {
    uint64_t frames;              /* rx: frames with this id; tx: frames produced */
    uint64_t used;                /* rx: frames accepted */
    uint64_t bad_len;             /* rx: wrong length */
    uint64_t e2e[VD_E2E_NSTATUS]; /* rx: E2E check results */
    uint64_t e2e_rejected;        /* rx: not used for their E2E status */
    uint64_t dropped;             /* tx: due but no room in the caller's array */
    uint64_t suppressed;          /* tx: not sent (fault injection) */
    /* tx fault injection, what it wrote: signal values NaN, the DBC's invalid-value pattern,
     * out of range; frames that carried at least one NaN or invalid value, one out of range */
    uint64_t fault_nan, fault_invalid, fault_range;
    uint64_t fault_frames_nan, fault_frames_range;
    int64_t last_ns; /* rx: last frame accepted [ns]; 0: none */
};

struct vd_canmap_rx_stats {
    uint64_t frames;       /* passed to vd_canmap_rx */
    uint64_t unknown;      /* ignored: not received by this role on that bus */
    uint64_t other;        /* ignored: error or RTR frames */
    uint64_t bad_len;      /* rejected: length */
    uint64_t e2e_rejected; /* rejected: E2E ERROR, REPEATED, WRONG_SEQUENCE */
    uint64_t used;         /* accepted; frames = unknown + other + bad_len + e2e_rejected + used */
    uint64_t e2e[VD_E2E_NSTATUS]; /* E2E statuses of all checks */
    uint64_t updates;             /* signal values used */
    uint64_t out_of_range;        /* signal values rejected: range */
    uint64_t nan;                 /* signal values rejected: NaN/Inf */
    uint64_t invalid_value;       /* signal values rejected: the DBC's invalid-value pattern */
    uint64_t timeouts;            /* timeout events */
    uint64_t recoveries;          /* timeouts ended by a good value */
    uint32_t timed_out;           /* entries in timeout now */
    uint32_t invalid;             /* entries whose last value was rejected, now */
};

struct vd_canmap_tx_stats {
    uint64_t frames;     /* produced */
    uint64_t clamped;    /* signal values clamped */
    uint64_t nan;        /* signal values NaN/Inf, last value sent instead */
    uint64_t dropped;    /* due but no room in the caller's array */
    uint64_t suppressed; /* fault injection: not sent */
    uint64_t errors;     /* values not encoded (none expected: they are clamped first) */
};

/* a message as resolved (for reports and the transport set-up) */
struct vd_canmap_msg_info {
    const char *name; /* DBC name */
    uint32_t id;
    bool ext, fd;
    uint8_t len; /* [byte] */
    int bus;
    int dir;                /* enum vd_canmap_dir as written */
    bool sent;              /* this role sends it (else receives it) */
    int cycle_ms, phase_ms; /* [ms] */
    int64_t timeout_ns;     /* [ns] 0: none */
    int e2e;                /* enum vd_canmap_e2e_profile */
    int nsig;               /* mapped signals (constants included) */
};

struct vd_canmap;

/* init-time (may allocate) */

/* resolve a description (core/candesc.h, as config/can_map.h loads it) against its DBCs,
 * dbc[0, d->nbus) (parsed by the caller; they must outlive the map), for the role it was
 * loaded for (d->role). Errors name the mapping's file:line:col and what is wrong (unknown
 * message or signal, unit mismatch, bad E2E layout, an input driven twice, ...) and go to
 * errf (may be NULL). Both sides are bound to the mapping's own name lists (see
 * vd_canmap_bind). NULL on error. */
struct vd_canmap *vd_canmap_new(const struct vd_candesc *d, const struct vd_dbc *const *dbc,
                                FILE *errf);
void vd_canmap_free(struct vd_canmap *map);
/* index the value table of side (enum vd_canmap_side) by names[0, n): every mapped signal
 * of that side must find its name there (else a located error, -ENOENT); names NULL: the
 * mapping's own list, in order of first use. The received table is reset (call
 * vd_canmap_start afterwards). 0, -ENOENT or -ENOMEM */
int vd_canmap_bind(struct vd_canmap *map, int side, const char *const *names, int n, FILE *errf);
/* the bound names of side: count, and name i */
int vd_canmap_nnames(const struct vd_canmap *map, int side);
const char *vd_canmap_name(const struct vd_canmap *map, int side, int i);
/* SI factor of a unit ("deg" -> pi/180); false if unknown. Spaces, '*' and '.' between
 * letters are ignored ("N m" = "Nm" = "N*m") */
bool vd_canmap_unit_factor(const char *unit, double *factor);
/* counters as text (one line per message, then nonzero signal counters) */
void vd_canmap_report(const struct vd_canmap *map, FILE *f);
/* counters as one JSON object (no trailing newline) */
void vd_canmap_report_json(const struct vd_canmap *map, FILE *f);

/* RT-safe */

int vd_canmap_role(const struct vd_canmap *map);
int vd_canmap_nmsg(const struct vd_canmap *map);
void vd_canmap_msg_info(const struct vd_canmap *map, int i, struct vd_canmap_msg_info *out);
/* message index of a DBC name, or -1 */
int vd_canmap_find_msg(const struct vd_canmap *map, const char *name);
/* reset receive and send state to "just started" at now_ns: received entries at their safe
 * values with NODATA, timeouts counted from now, E2E states initial, group rotation 0.
 * Counters are kept. */
void vd_canmap_start(struct vd_canmap *map, int64_t now_ns);

/* receive one frame from bus at now_ns [ns, CLOCK_MONOTONIC]: enum vd_canmap_rx_result */
int vd_canmap_rx(struct vd_canmap *map, int bus, const struct vd_can_frame *f, int64_t now_ns);
/* apply timeouts at now_ns; the number of entries that timed out in this call */
int vd_canmap_rx_check_timeouts(struct vd_canmap *map, int64_t now_ns);
/* the received table, indexed by the bound names of the receiving side (INPUTS for the
 * target, OUTPUTS for the ECU): values [SI], valid flags and enum vd_canmap_status bits */
int vd_canmap_rx_count(const struct vd_canmap *map);
const double *vd_canmap_rx_values(const struct vd_canmap *map);
const uint8_t *vd_canmap_rx_valid(const struct vd_canmap *map);
const uint8_t *vd_canmap_rx_status(const struct vd_canmap *map);
/* copy the received table into a snapshot's n values and n valid flags (n: the caller's
 * table size; entries beyond the bound count get valid 0) */
void vd_canmap_rx_fill(const struct vd_canmap *map, double *value, uint8_t *valid, int n);

/* the frames due on bus in slot slot_ms [ms since start], from values (indexed by the bound
 * names of the sending side: OUTPUTS for the target, INPUTS for the ECU), into out[0, max);
 * returns the count. Frames that do not fit are counted as dropped. */
int vd_canmap_tx_due(struct vd_canmap *map, int bus, uint64_t slot_ms, const double *values,
                     struct vd_can_frame *out, int max);
/* the faults (enum vd_canmap_fault bits) that act on message msg when it is sent: silent;
 * short unless it has no data; the E2E ones when it has E2E; NaN when a mapped signal is a
 * float or an integer with an invalid-value pattern; out of range when a mapped integer signal's
 * largest raw value is outside the range its receiver accepts. A fault outside this mask would
 * change nothing in the frame. */
unsigned vd_canmap_fault_effective(const struct vd_canmap *map, int msg);
/* faults (enum vd_canmap_fault bits) applied to message msg from its next send on */
void vd_canmap_set_fault(struct vd_canmap *map, int msg, unsigned faults);

/* counters */
void vd_canmap_rx_stats(const struct vd_canmap *map, struct vd_canmap_rx_stats *out);
void vd_canmap_tx_stats(const struct vd_canmap *map, struct vd_canmap_tx_stats *out);
const struct vd_canmap_msg_stats *vd_canmap_msg_stats(const struct vd_canmap *map, int msg);
/* signals of message msg as mapped: count, DBC name, counters */
int vd_canmap_msg_nsig(const struct vd_canmap *map, int msg);
const char *vd_canmap_sig_name(const struct vd_canmap *map, int msg, int k);
const struct vd_canmap_sig_stats *vd_canmap_sig_stats(const struct vd_canmap *map, int msg, int k);

#endif /* VD_IO_CANMAP_H */
