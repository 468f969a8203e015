/* io/canmap_priv.h - internal to io/canmap*.c: the resolved map that io/canmap_build.c builds
 * (init-time), io/canmap.c runs (RT-safe) and io/canmap_report.c prints (exit-time). */
#ifndef VD_IO_CANMAP_PRIV_H
#define VD_IO_CANMAP_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "canmap.h"
#include "e2e.h"

#define COUNT(a)  ((int)(sizeof(a) / sizeof((a)[0])))
#define NS_PER_MS 1000000LL
#define MAX_HYPER 60000 /* [ms] longest hyperperiod the phase spreading simulates */

struct cm_sig {
    const struct vd_dbc_sig *s;
    char *name;    /* model input / output signal, NULL: constant */
    int side;      /* enum vd_canmap_side of name */
    int slot;      /* index in the bound names of side, -1: none */
    int group;     /* multiplex group index, -1: plain */
    double k, off; /* model = phys * k + off */
    double lo, hi; /* [DBC unit] accepted (receiving) / clamp (sending) range */
    int safe;      /* enum vd_canmap_safe */
    double safe_value;
    bool constant;
    double value;         /* constant [DBC unit] */
    bool has_invalid;     /* the DBC names an invalid / not-available raw value (VAL_) */
    uint64_t invalid_raw; /* that raw value (the field's bits) */
    int64_t timeout_ns;   /* [ns] 0: none */
    int64_t last_ns;      /* receiving: last good value */
    double last_phys;     /* sending: last value sent [DBC unit] */
    int line, col;
    struct vd_canmap_sig_stats st;
};

struct cm_msg {
    const struct vd_dbc_msg *m;
    int bus, dir, idx; /* idx: position among the messages of its direction */
    bool send;         /* this role sends it */
    int cycle_ms, phase_ms;
    int64_t timeout_ns;
    int profile; /* enum vd_canmap_e2e_profile */
    struct vd_e2e_p01_cfg p01;
    struct vd_e2e_p02_cfg p02;
    struct vd_e2e_p05_cfg p05;
    const struct vd_dbc_sig *crc_sig, *counter_sig;
    struct vd_e2e_tx etx, etx_before; /* etx_before: state before the last protection */
    bool sent_any;
    bool rx_any; /* a frame passed the E2E CRC check since the start */
    struct vd_e2e_rx erx;
    int sig0, nsig; /* its signals in map->sig */
    int ngroup;     /* multiplex groups (0: not multiplexed) */
    uint32_t group_val[VD_CANMAP_MAX_GROUP];
    unsigned next_group;
    uint8_t *tmpl; /* (max(ngroup, 1) len) frame templates */
    unsigned fault;
    int line, col;
    struct vd_canmap_msg_stats st;
};

struct vd_canmap {
    int role;
    char *file;
    int nbus;
    char **busname;
    int nmsg;
    struct cm_msg *msg;
    int nsig;
    struct cm_sig *sig;
    /* receive dispatch: keys (bus, ext, id) of the received messages, sorted */
    int nrx;
    uint64_t *rx_key;
    int *rx_msg;
    /* bound names per side */
    int nname[2];
    char **names[2];
    int rxside; /* side the received table belongs to */
    double *rx_value;
    uint8_t *rx_valid, *rx_status;
    struct vd_canmap_rx_stats rx;
    struct vd_canmap_tx_stats tx;
    uint64_t tx_errors; /* encode failures (none expected: values are clamped first) */
};

/* receive dispatch key of (bus, ext, id) */
static inline uint64_t cm_rx_key(int bus, bool ext, uint32_t id)
{
    return ((uint64_t)(unsigned)bus << 33) | ((uint64_t)ext << 32) | id;
}

/* v limited to [lo, hi] */
static inline double cm_clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

#endif /* VD_IO_CANMAP_PRIV_H */
