/* core/candesc.h - the one description of a CAN mapping, as plain data: the buses (DBC file
 * and transport), the received and sent messages with their cycle times, phases, timeouts
 * and AUTOSAR E2E, and the mapped signals with units, ranges and safe values. config/can_map.c
 * fills it from a mapping file (schema and located errors there, config/can_map.h); io/canmap.h
 * resolves it against the parsed DBCs (vd_canmap_new) and app/canlink.c opens its buses from
 * it. A field is added here, read in config/can_map.c and used in io/ (or app/): nothing
 * copies it in between.
 *
 * Data only (no code): it sits in core/ because core/ is the one layer that both config/
 * (which fills it) and io/ (which consumes it) may include; it names no io/ or config/ type.
 * Owns nothing: the loader that filled it frees it (vd_cfg_canmap_free). */
#ifndef VD_CORE_CANDESC_H
#define VD_CORE_CANDESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VD_CANDESC_PATH_MAX 1024
#define VD_CANDESC_NAME_MAX 64   /* DBC message and signal names */
#define VD_CANDESC_SIG_MAX  128  /* model input / output signal names */
#define VD_CANDESC_UNSET    (-1) /* an integer key not given: the consumer's default */

/* the end of the bus a description was loaded for */
enum vd_candesc_role {
    VD_CANDESC_TARGET = 0, /* rtvd: receives rx messages, sends tx messages */
    VD_CANDESC_ECU,        /* the virtual ECU: receives tx messages, sends rx messages */
};
/* transport of a bus (app_can_bus_cfg turns it into io/can.h's enum vd_can_kind) */
enum vd_candesc_kind { VD_CANDESC_SOCKETCAN = 0, VD_CANDESC_UDP };
/* bus-off recovery (into io/can.h's enum vd_can_restart likewise) */
enum vd_candesc_restart {
    VD_CANDESC_RESTART_AUTO = 0,
    VD_CANDESC_RESTART_MANUAL,
    VD_CANDESC_RESTART_NONE
};
/* directions are the target's: rx = ECU -> rtvd (drive model inputs), tx = rtvd -> ECU */
enum vd_candesc_dir { VD_CANDESC_RX = 0, VD_CANDESC_TX };
/* what a received signal holds on timeout or a rejected value */
enum vd_candesc_safe { VD_CANDESC_SAFE_VALUE = 0, VD_CANDESC_SAFE_HOLD };
enum vd_candesc_profile {
    VD_CANDESC_E2E_NONE = 0,
    VD_CANDESC_E2E_P01,
    VD_CANDESC_E2E_P02,
    VD_CANDESC_E2E_P05
};
/* E2E profile 1 Data ID modes: io/e2e.h's enum vd_e2e_p01_mode (a static assertion in
 * io/canmap_build.c keeps them equal) */
enum vd_candesc_p01_mode {
    VD_CANDESC_P01_BOTH = 0,
    VD_CANDESC_P01_ALT,
    VD_CANDESC_P01_LOW,
    VD_CANDESC_P01_NIBBLE
};

/* one bus; integers VD_CANDESC_UNSET and empty strings mean "not given" (the transport's
 * default, vd_can_cfg_init); booleans given as -1 (unset), 0 or 1 */
struct vd_candesc_bus {
    char name[32];
    char dbc_path[VD_CANDESC_PATH_MAX]; /* as opened (relative paths resolved) */
    char *dbc_text;                     /* (dbc_len) the DBC file's bytes, not NUL-terminated */
    size_t dbc_len;                     /* [bytes] */
    int kind;                           /* enum vd_candesc_kind */
    bool fd;
    int32_t rcvbuf, sndbuf; /* [byte] */
    int32_t tx_wait_us;     /* [us] */
    /* socketcan */
    char ifname[16];
    int configure;                                          /* -1, 0, 1 */
    int32_t bitrate, sample_point, dbitrate, dsample_point; /* [bit/s], [1/1000] */
    int32_t txqueuelen;                                     /* [frames] */
    int restart;                                            /* enum vd_candesc_restart */
    int32_t restart_ms, restart_holdoff_ms, state_poll_ms;  /* [ms] */
    int loopback, recv_own;                                 /* -1, 0, 1 */
    /* udp (for the ECU role, local and remote are swapped at load) */
    char local_host[64];
    int32_t local_port;
    char remote_host[64];
    int32_t remote_port;
    int32_t udp_max_payload; /* [byte] */
    int udp_any_source;      /* -1, 0, 1 */
    int line, col;           /* 1-based position of the bus entry */
};

/* AUTOSAR E2E of a message; integers VD_CANDESC_UNSET: derived as said */
struct vd_candesc_e2e {
    int profile;                       /* enum vd_candesc_profile */
    int data_id;                       /* P01, P05: 0..0xFFFF (P01 nibble mode: 0..0xFFF) */
    uint8_t data_id_list[16];          /* P02: the Data ID per counter value */
    int mode;                          /* P01: enum vd_candesc_p01_mode */
    char counter[VD_CANDESC_NAME_MAX]; /* DBC signal holding the counter, "": none */
    char crc[VD_CANDESC_NAME_MAX];     /* DBC signal holding the CRC, "": none */
    int crc_offset, counter_offset;    /* [bit] P01; UNSET: the signals', else 0 and 8 */
    int nibble_offset;                 /* [bit] P01 nibble mode; UNSET: 12 */
    int offset;                        /* [bit] P05 header; UNSET: the CRC signal's, else 0 */
    int data_length;                   /* [bit] protected length; UNSET: the whole frame */
    int max_delta_counter;             /* UNSET: 2 */
};

/* a mapped DBC signal */
struct vd_candesc_sig {
    char signal[VD_CANDESC_NAME_MAX]; /* DBC signal */
    char name[VD_CANDESC_SIG_MAX];    /* model input (rx) / output signal (tx); "": constant */
    char unit[32];                    /* the DBC unit the mapping expects (has_unit) */
    bool has_unit;                    /* else: the DBC signal's unit */
    double scale, offset;             /* model = phys * unit_factor * scale + offset */
    bool has_range;                   /* else: the DBC's [min, max] */
    double range[2];                  /* [DBC unit] accepted (rx) / clamp (tx) range */
    int safe;                         /* enum vd_candesc_safe, for the receiving side */
    double safe_value;                /* [model unit] */
    bool has_value;                   /* a constant: the sender writes value, the receiver
                                         ignores it */
    double value;                     /* [DBC unit] */
    int line, col;                    /* 1-based source position of the entry */
};

/* a mapped message */
struct vd_candesc_msg {
    int dir;                           /* enum vd_candesc_dir */
    int bus;                           /* index in buses */
    char message[VD_CANDESC_NAME_MAX]; /* DBC message name; "": by id */
    uint32_t id;                       /* by id: identifier */
    bool ext;                          /* by id: 29-bit */
    int cycle_ms;                      /* [ms] UNSET: the DBC's GenMsgCycleTime */
    int phase_ms;                      /* [ms] 0..cycle-1; UNSET: spread (io/canmap.h) */
    int timeout_ms;                    /* [ms] 0: none; UNSET: timeout_factor x cycle */
    struct vd_candesc_e2e e2e;
    int sig0, nsig; /* its signals: sig[sig0, sig0 + nsig) */
    int line, col;
};

struct vd_candesc {
    char file[VD_CANDESC_PATH_MAX]; /* the mapping file as opened, for messages */
    char name[64];                  /* `name`, else the file name without directory/extension */
    int role;                       /* enum vd_candesc_role it was loaded for */
    double timeout_factor;          /* default RX timeout in cycle times, > 1 */
    bool strict_dbc; /* the DBCs' defects that do not change the meaning are errors (io/dbc.h
                        VD_DBC_STRICT), not warnings */
    int nbus;
    struct vd_candesc_bus *bus; /* (nbus) */
    int nmsg;
    struct vd_candesc_msg *msg; /* (nmsg) rx entries, then tx entries, each in file order */
    int nsig;
    struct vd_candesc_sig *sig; /* (nsig) */
};

#endif /* VD_CORE_CANDESC_H */
