/* io/motion.h - the motion-platform feed's pure parts: the datagram formats (the rtvd feed and
 * the vendor adapters, encoders of one message record, and their decoders for `rtvd motion`),
 * the decimation of the 1 kHz cues to the send rate without aliasing, and the motion state
 * machine with its bounded-jerk fades. No sockets, threads or clocks here (app/motionlink.h
 * runs them); every function is RT-safe (no allocation, fixed work) except where marked.
 * Owns nothing.
 *
 * Formats (byte by byte in the README, "The motion feed"):
 *   VD_MFMT_RTVD      the rtvd feed, little-endian: 40-byte header (magic "RTVM", version,
 *                     type, sequence, flags, model time, send time, state, reason, rate,
 *                     fade), the payload (CUE: the VD_CUE_N cues of core/cue.h as f64; POSE:
 *                     the washout's 18 pose values as f64), CRC-32 (ISO-HDLC) of the rest;
 *   VD_MFMT_MOOG_MDA  Moog MBC "MDA" command mode (message 102), big-endian, as Moog's own
 *                     sample code builds it (header, motion command word, status-response
 *                     word, MDA record, special-effects terminator); aerospace axes; the
 *                     MBC answers with status messages (vd_moog_status_*, below);
 *   VD_MFMT_OUTSIM    Live for Speed "OutSim" (OutSimPack, 64 bytes or 68 with an id),
 *                     little-endian, LFS world axes (the format BeamNG, SimTools, FlyPT Mover
 *                     and most low-cost platform tools read). */
#ifndef VD_IO_MOTION_H
#define VD_IO_MOTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cue.h"

enum vd_motion_fmt { VD_MFMT_RTVD = 0, VD_MFMT_MOOG_MDA, VD_MFMT_OUTSIM, VD_MFMT_COUNT };

#define VD_MOTION_MAGIC        "RTVM"
#define VD_MOTION_VERSION      1
#define VD_MOTION_HDR          40 /* [bytes] rtvd header */
#define VD_MOTION_NPOSE        18 /* surge sway heave roll pitch yaw, their rates, accelerations */
#define VD_MOTION_CUE_BYTES    (VD_MOTION_HDR + 8 * VD_CUE_N + 4)        /* 252 */
#define VD_MOTION_POSE_BYTES   (VD_MOTION_HDR + 8 * VD_MOTION_NPOSE + 4) /* 188 */
#define VD_MOTION_MOOG_BYTES   80
#define VD_MOTION_OUTSIM_BYTES 64 /* + 4 with an id */
#define VD_MOTION_MAX_BYTES    256
#define VD_MOTION_HB_MAGIC     "RTVH" /* the heartbeat a platform (or rtvd motion) sends back */
#define VD_MOTION_HB_BYTES     16

enum vd_motion_type { VD_MTYPE_CUE = 1, VD_MTYPE_POSE = 2 };

/* the state machine's states (the datagram's state byte) */
enum vd_motion_state {
    VD_MST_OFF = 0,  /* nothing sent yet: no output from the loop */
    VD_MST_ENGAGING, /* cues fading in from neutral */
    VD_MST_ENGAGED,  /* cues as computed */
    VD_MST_PARKING,  /* fading to neutral (reason says why) */
    VD_MST_PARKED,   /* neutral, after a normal stop */
    VD_MST_FAULT,    /* neutral, latched after a fault */
    VD_MST_COUNT
};
/* why the feed parks (the datagram's reason byte); the first reason is kept */
enum vd_motion_reason {
    VD_MRS_NONE = 0,
    VD_MRS_STOP,           /* the run ended: duration, SIGINT/SIGTERM */
    VD_MRS_OVERRUN_STOP,   /* the overrun policy stopped the loop */
    VD_MRS_FREEZE,         /* the overrun policy froze the model */
    VD_MRS_STEP_ERROR,     /* a step failed */
    VD_MRS_NAN,            /* a cue was NaN or infinite */
    VD_MRS_LIMIT,          /* a cue beyond its limit */
    VD_MRS_HEARTBEAT,      /* the platform's heartbeat timed out */
    VD_MRS_STALE,          /* the loop published nothing for too long */
    VD_MRS_PLATFORM,       /* the platform reports a fault (Moog: a fault state or fault bit) */
    VD_MRS_ENGAGE_TIMEOUT, /* the platform did not report ENGAGED within the engage timeout */
    VD_MRS_OPERATOR,       /* the operator commanded PARK (app/motionctl.h): ends parked, not
                            * in fault */
    VD_MRS_COUNT
};
/* the datagram's flags */
enum vd_motion_flags {
    VD_MFL_RUNNING = 1u << 0, /* the model steps */
    VD_MFL_FROZEN = 1u << 1,  /* the model is frozen */
    VD_MFL_FADING = 1u << 2,  /* a fade is in progress */
    VD_MFL_OVERRUN = 1u << 3, /* the loop's overrun flag is latched */
    VD_MFL_LIVE = 1u << 4,    /* the cues follow the model (not a held or neutral value) */
    VD_MFL_FAULT = 1u << 5,   /* parking or parked for a fault */
    VD_MFL_HB_OK = 1u << 6,   /* heartbeat watched and seen within its timeout */
    VD_MFL_FINAL = 1u << 7,   /* the loop has stopped */
    VD_MFL_RESET = 1u << 8,   /* the host commands the platform's fault reset (Moog: RESET) */
};
#define VD_MFL_ALL ((1u << 9) - 1u) /* the defined bits (a datagram with others is refused) */
extern const char *const vd_motion_state_name[VD_MST_COUNT];
extern const char *const vd_motion_reason_name[VD_MRS_COUNT];
extern const char *const vd_motion_fmt_name[VD_MFMT_COUNT];

/* one message, as every format carries (a part of) it */
struct vd_motion_msg {
    int type;                     /* enum vd_motion_type */
    uint32_t seq;                 /* per datagram, from 0, wraps */
    uint32_t flags;               /* enum vd_motion_flags */
    uint8_t state;                /* enum vd_motion_state */
    uint8_t reason;               /* enum vd_motion_reason */
    uint16_t rate_hz;             /* [Hz] send rate */
    float fade;                   /* [-] 0 neutral .. 1 the cues as computed */
    double t_model;               /* [s] model time of the (last) cue sample */
    int64_t t_send_ns;            /* [ns] sender's CLOCK_MONOTONIC at send */
    bool reset;                   /* command the platform's fault reset (Moog MCW 3 RESET
                                   * instead of what the state says; rtvd: flag RESET) */
    double cue[VD_CUE_N];         /* SI, core/cue.h order */
    double pose[VD_MOTION_NPOSE]; /* POSE: m, rad; m/s, rad/s; m/s^2, rad/s^2 */
    int32_t outsim_id;            /* OutSim: appended when nonzero */
};

/* CRC-32/ISO-HDLC (zlib's crc32) of buf[0, n) */
uint32_t vd_crc32(const void *buf, size_t n);
/* encode in fmt into buf (cap >= VD_MOTION_MAX_BYTES); the length, or -EINVAL (a POSE message
 * in a format without poses) */
int vd_motion_encode(int fmt, const struct vd_motion_msg *msg, uint8_t *buf, size_t cap);
/* decode a datagram of any format (told apart by magic, length and message id) into *msg
 * (the fields the format carries; the rest 0); the format, or -EINVAL (unknown, cut short,
 * bad CRC, newer version) */
int vd_motion_decode(const uint8_t *buf, size_t len, struct vd_motion_msg *msg);
/* heartbeat datagram: "RTVH", u32 version 1, u64 the sender's counter (little-endian; +1 per
 * heartbeat: the receiver takes only a counter above the last one it took, app/motionlink.c) */
int vd_motion_heartbeat_encode(uint64_t count, uint8_t *buf, size_t cap);
/* a heartbeat datagram: true and its counter into *count (may be NULL); false otherwise */
bool vd_motion_heartbeat_decode(const uint8_t *buf, size_t len, uint64_t *count);

/* --- Moog MBC status (MBC -> host, message 200/201) -------------------------------------
 * What a Moog MBC answers the host with (A.1 of shared/references/motion-monitor-joints-
 * deploy.md; the structures of Moog's sample host code, `SCCInterface.h`, class
 * MBC2SCC_MB_STAT_RESPONSE_MSG_TYPE, and its receive loop in `MBC_Interface.cpp`): the 4 x u32
 * header (packetLength = the bytes after the header, sequence, checksum, message id), the
 * machine-response word, the discrete-I/O word, three latched fault words, then a chain of
 * optional feedback records, each announced by a u32 tag (OPT_STATUS_DATA_*) and the chain
 * ended by tag 0: 1 DOF (6 f32), 2 actuator lengths (6 f32), 3 drive data (u32 count + 6 x 10
 * f32), 4 platform acceleration (3 f32). Every 32-bit word big-endian on the wire.
 *
 * Bit order (how it was established): the sample is a Windows/MSVC program (WSAStartup,
 * CreateThread, a .vcxproj) on x86; it converts every 32-bit word of a received datagram with
 * ntohl (SwapSCCBytes(..., TO_HOST_ORDER)) and then overlays the bit-field unions. MSVC
 * allocates bit-fields from the least significant bit of their unsigned int, so after the
 * byte swap the first-declared field is the low bits of the big-endian word: encodedMachineState
 * bits 0-3, motionMode 4-5, feedbackMode 6-7, MiscellaneousOptions 8-15, updateRate 16-31. The
 * fault words' own comments number their bits the same way (hostComm "//0" ... rth "//31";
 * HostCommandRangeExceeded "//6"), and the host's STAT_RESP word that rtvd already sends puts
 * updateRate in bits 16-31 by the same rule. */
#define VD_MOOG_STATUS_ID    200 /* MBC2SCC_STAT_RESPONSE_MSG_ID */
#define VD_MOOG_STATUS_ID_MB 201 /* "MB Status Response Message (201)" */
#define VD_MOOG_STATUS_BYTES 40  /* header + 5 words + the chain's end tag, no feedback */
#define VD_MOOG_STATUS_MAX   360 /* with every feedback record once: 40 + 28 + 28 + 248 + 16 */

/* encodedMachineState */
enum vd_moog_state {
    VD_MOOG_POWERUP = 0,
    VD_MOOG_IDLE = 1,
    VD_MOOG_STANDBY = 2,
    VD_MOOG_ENGAGED = 3,
    VD_MOOG_SETTLING = 4,
    VD_MOOG_FAULT1 = 8,
    VD_MOOG_FAULT2 = 9,
    VD_MOOG_FAULT3 = 10,
    VD_MOOG_DISABLED = 11,
    VD_MOOG_INHIBITED = 12,
    VD_MOOG_FROZEN = 13,
};
/* the latched fault bits rtvd names (word, bit); every bit of the three words parks the feed */
#define VD_MOOG_F1_HOST_COMM      (1u << 0) /* word 1: host communication lost */
#define VD_MOOG_F2_RANGE_EXCEEDED (1u << 6) /* word 2: HostCommandRangeExceeded */
#define VD_MOOG_F2_ESTOP          (1u << 16)
#define VD_MOOG_F3_ACCELERATION   (1u << 0) /* word 3 */
#define VD_MOOG_F3_VELOCITY       (1u << 1)
#define VD_MOOG_F3_EXTEND_LIMIT   (1u << 3)
#define VD_MOOG_F3_RETRACT_LIMIT  (1u << 4)

/* the optional feedback records present */
enum vd_moog_opt {
    VD_MOOG_OPT_DOF = 1u << 1,
    VD_MOOG_OPT_LENGTH = 1u << 2,
    VD_MOOG_OPT_DATA = 1u << 3,
    VD_MOOG_OPT_ACC = 1u << 4,
};

struct vd_moog_status {
    uint32_t seq;          /* packetSequenceCount */
    uint32_t msg_id;       /* 200 or 201 */
    uint8_t machine_state; /* enum vd_moog_state (4 bits) */
    uint8_t motion_mode;   /* 0 maintenance, 1 DOF, 2 LENGTH, 3 MDA (2 bits) */
    uint8_t feedback_mode; /* 2 bits */
    uint8_t misc;          /* MiscellaneousOptions (8 bits) */
    uint16_t update_rate;  /* [Hz] */
    uint32_t discrete_io;  /* bit 0 maintenance mode, 1 base at home, 2 e-stop input, ... */
    uint32_t fault[3];     /* latched fault words 1..3 */
    uint32_t opt;          /* enum vd_moog_opt: the feedback records present */
    float dof[6];          /* roll pitch yaw longitudinal lateral heave feedback */
    float length[6];       /* actuator lengths A..F */
    uint32_t drives;       /* the drive-data record's count (its values are not kept) */
    float acc[3];          /* platform acceleration x y z */
};

/* why a status datagram was rejected (counted by reason) */
enum vd_moog_bad {
    VD_MOOG_OK = 0,
    VD_MOOG_BAD_SHORT,  /* shorter than a status message (or not whole 32-bit words) */
    VD_MOOG_BAD_ID,     /* message id not 200/201 (not a status message) */
    VD_MOOG_BAD_LENGTH, /* packetLength is not the datagram's length after the header */
    VD_MOOG_BAD_STATE,  /* encodedMachineState not one the ICD defines */
    VD_MOOG_BAD_OPT,    /* the feedback chain: unknown or repeated tag, cut short, no end */
    VD_MOOG_BAD_VALUE,  /* a feedback value not finite, a drive count beyond 10 */
    VD_MOOG_BAD_STALE,  /* (the feed's, not the decoder's) not newer than the last status taken:
                           late, reordered or repeated on the way (app/motionlink.c) */
    VD_MOOG_BAD_COUNT
};
extern const char *const vd_moog_bad_name[VD_MOOG_BAD_COUNT];

/* "powerup", "idle", ... "frozen"; "?" for an undefined code */
const char *vd_moog_state_name(int state);
/* decode a status datagram into *st: VD_MOOG_OK, or why it is refused (then *st is zeroed and
 * must not be used). RT-safe */
int vd_moog_status_decode(const uint8_t *buf, size_t len, struct vd_moog_status *st);
/* encode *st (the records named in st->opt, in tag order) into buf; the length, or -EINVAL
 * (cap < VD_MOOG_STATUS_MAX). For the platform end (rtvd motion) and the tests */
int vd_moog_status_encode(const struct vd_moog_status *st, uint8_t *buf, size_t cap);
/* the status reports a fault: a fault state (FAULT1-3, DISABLED, INHIBITED) or any latched
 * fault bit */
bool vd_moog_status_fault(const struct vd_moog_status *st);

/* --- decimation: 1 kHz cues -> one value per send period, without aliasing --------------- */
enum vd_motion_decim_mode {
    VD_MDEC_AVERAGE = 0, /* the mean of the period's samples (a box filter) */
    VD_MDEC_LOWPASS,     /* 2nd-order Butterworth at rate/4, then the mean */
};
struct vd_motion_decim {
    int mode;
    int nch;               /* channels filtered (<= VD_CUE_N) */
    double b[3], a[3];     /* biquad coefficients (a[0] = 1) */
    double z[VD_CUE_N][2]; /* biquad states (direct form II transposed) */
    double acc[VD_CUE_N];  /* sums of the period */
    int n;                 /* samples summed */
    bool primed;           /* the biquad states hold the first sample's steady state */
};
/* init-time: fs_hz the sample rate, rate_hz the send rate; 0 or -EINVAL */
int vd_motion_decim_init(struct vd_motion_decim *d, int mode, int nch, double fs_hz,
                         double rate_hz);
/* add one sample x (nch) */
void vd_motion_decim_add(struct vd_motion_decim *d, const double *x);
/* the period's value into out (nch) and start the next period; false when no sample came */
bool vd_motion_decim_take(struct vd_motion_decim *d, double *out);

/* --- fades: quintic from (s, s', s'') to (target, 0, 0) in T: continuous to the second
 * derivative across interruptions, so the faded cues' jerk stays bounded ------------------- */
struct vd_motion_fader {
    double s, v, a; /* [-], [1/s], [1/s^2] now */
    double c[6];    /* polynomial in tau = time since the start */
    double t, T;    /* [s] since the start, duration */
    double target;
    bool moving;
};
void vd_motion_fader_set(struct vd_motion_fader *f, double s);
void vd_motion_fader_start(struct vd_motion_fader *f, double target, double T);
/* advance by dt [s]; true while moving */
bool vd_motion_fader_step(struct vd_motion_fader *f, double dt);

/* --- the state machine -------------------------------------------------------------------- */
struct vd_motion_limits {
    double f;     /* [m/s^2] |f_x|, |f_y|, |f_z - g| */
    double w;     /* [rad/s] |w_i| */
    double dw;    /* [rad/s^2] |dw_i| */
    double angle; /* [rad] |roll|, |pitch| */
};
struct vd_motion_sm_cfg {
    double engage_s; /* [s] fade-in */
    double park_s;   /* [s] fade to neutral */
    double stale_s;  /* [s] no new loop output for this long: fault */
    struct vd_motion_limits lim;
};
/* the inputs of one tick */
struct vd_motion_in {
    const double *cue; /* (VD_CUE_N) the decimated cues of the period; NULL: none came */
    bool frozen, step_error, overrun_latched, final;
    int stop_kind; /* with final: VD_MRS_STOP or VD_MRS_OVERRUN_STOP */
    bool heartbeat_lost;
    bool platform_fault;  /* the platform reports a fault (vd_moog_status_fault) */
    bool engage_timeout;  /* the platform did not report ENGAGED in time (the handshake) */
    double since_fresh_s; /* [s] since the last fresh loop output */
    bool stale_armed;     /* the loop-silent watch before the first good cue (off: it starts
                           * with it): the Moog handshake's end, the MBC ENGAGED and waiting for
                           * the cues; a silent loop there latches (nothing to fade) */
};
struct vd_motion_sm {
    struct vd_motion_sm_cfg cfg;
    int state, reason;
    struct vd_motion_fader fade;
    double src[VD_CUE_N];          /* the cues faded: live, or held at the last good value */
    double neutral[VD_CUE_N];      /* f = (0, 0, g), all else 0; yaw and position held */
    bool live;                     /* src follows the model */
    bool any;                      /* a good cue was seen */
    uint64_t faults[VD_MRS_COUNT]; /* events by reason (the first one latches the state) */
    uint64_t rejected;             /* cue periods refused (NaN or beyond a limit) */
    uint64_t ticks;
    uint64_t engages; /* engagements begun (the first and every operator's ENGAGE) */
};
void vd_motion_sm_init(struct vd_motion_sm *sm, const struct vd_motion_sm_cfg *cfg, double g);
/* one tick of dt [s]: out (VD_CUE_N) the cues to send (neutral before the first one); the
 * flags of the datagram (enum vd_motion_flags, without HB_OK) */
uint32_t vd_motion_sm_step(struct vd_motion_sm *sm, const struct vd_motion_in *in, double dt,
                           double *out);
/* a check of a cue record against the limits: VD_MRS_NONE, VD_MRS_NAN or VD_MRS_LIMIT */
int vd_motion_check(const struct vd_motion_limits *lim, const double *cue, double g);
/* the state is final (parked or fault) and the fade is over */
bool vd_motion_sm_done(const struct vd_motion_sm *sm);
/* the operator's commands (app/motionctl.h decides whether they are in state; these only act):
 * park: engaging or engaged -> parking (reason VD_MRS_OPERATOR, the fade to neutral with the
 * bounded jerk of every park), ending parked; off -> parked at once (nothing to fade). false
 * (nothing done) in any other state */
bool vd_motion_sm_park(struct vd_motion_sm *sm);
/* engage again: parked or in fault with the fade over -> engaging (reason cleared, the cues
 * live again, fading in from neutral over engage_s); false (nothing done) otherwise */
bool vd_motion_sm_engage(struct vd_motion_sm *sm);
/* a fault while parked or waiting to engage again (the engage timeout of an operator's ENGAGE,
 * a platform fault): parked or in fault (the fade over) -> fault with this reason, counted;
 * false (nothing done) otherwise */
bool vd_motion_sm_fault(struct vd_motion_sm *sm, int reason);

#endif /* VD_IO_MOTION_H */
