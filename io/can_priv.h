/* io/can_priv.h - internals of io/can.c shared by its backends (can_socketcan.c, can_udp.c).
 * Not for use outside io/can*.c. */
#ifndef VD_IO_CAN_PRIV_H
#define VD_IO_CAN_PRIV_H

#include <stdatomic.h>
#include <sys/socket.h>

#include "io/can.h"

enum vd_can_stat_id {
#define VD_CAN_STAT_ID(n, c) VD_CS_##n,
    VD_CAN_STATS(VD_CAN_STAT_ID)
#undef VD_CAN_STAT_ID
        VD_CS_N
};

struct vd_can_bus {
    struct vd_can_cfg cfg;
    int fd;
    _Atomic uint64_t st[VD_CS_N]; /* counters, enum vd_can_stat_id */
    _Atomic int state;            /* enum vd_can_bus_state as tracked */
    uint32_t drops_seen;          /* last cumulative kernel drop count (SO_RXQ_OVFL) */
    char desc[512];               /* vd_can_describe */

    /* socketcan */
    int ifindex;
    bool is_virtual;
    char link_kind[16];
    int64_t busoff_since_ns; /* receiving thread: when BUS-OFF was entered; 0 not in it */
    int64_t next_restart_ns; /* MANUAL: next attempt */
    int64_t next_poll_ns;

    /* udp */
    struct sockaddr_storage remote;
    socklen_t remote_len; /* 0: no remote (receive only) */
    uint16_t local_port;
    uint8_t *txbuf;        /* udp_max_payload bytes */
    uint8_t *rxbuf;        /* VD_CAN_UDP_RXBUF bytes */
    size_t rx_len, rx_off; /* the checked datagram being delivered */
    uint16_t rx_left;      /* its frames not yet delivered */
    int64_t rx_t_ns;       /* its receive time */
    uint8_t tx_seq;
    int tx_last_err;   /* -errno of the last datagram not sent */
    int rx_seq_next;   /* expected sequence number; -1 before the first datagram */
    int rx_seq_behind; /* consecutive datagrams behind the sequence */
};

#define VD_CAN_UDP_RXBUF 65536

static inline void vd_can_count(struct vd_can_bus *b, enum vd_can_stat_id id, uint64_t n)
{
    atomic_fetch_add_explicit(&b->st[id], n, memory_order_relaxed);
}

int64_t vd_can_mono_ns(void);
/* "can bus 'name' (where): " + the message into err; returns r */
int vd_can_errf(int r, char *err, size_t errsz, const struct vd_can_bus *b, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* sends buf with the bus's TX policy: 0 sent, -EAGAIN no room in time, other -errno */
int vd_can_xmit(struct vd_can_bus *b, const void *buf, size_t len, const struct sockaddr *to,
                socklen_t tolen);
/* common socket options: SO_RCVBUF(FORCE), SO_SNDBUF, SO_RXQ_OVFL, time stamps, O_NONBLOCK */
int vd_can_sock_common(struct vd_can_bus *b, char *err, size_t errsz);
/* ancillary data of a received message: kernel drops (SO_RXQ_OVFL) and the receive time */
int64_t vd_can_rx_cmsg(struct vd_can_bus *b, struct msghdr *msg);
/* the kernel's cumulative drop count reached v: counts the increase */
void vd_can_drops_update(struct vd_can_bus *b, uint32_t v);
/* a received frame: error frames counted and tracked, filters applied. true: deliver it */
bool vd_can_rx_accept(struct vd_can_bus *b, const struct vd_can_frame *f);
/* the tracked state becomes st; entries into WARNING/PASSIVE/BUS-OFF are counted */
void vd_can_set_state(struct vd_can_bus *b, enum vd_can_bus_state st);

/* backends */
int vd_can_sc_open(struct vd_can_bus *b, char *err, size_t errsz);
void vd_can_sc_close(struct vd_can_bus *b);
int vd_can_sc_send(struct vd_can_bus *b, const struct vd_can_frame *f);
int vd_can_sc_recv_some(struct vd_can_bus *b, struct vd_can_frame *out, int max);
int vd_can_sc_state(struct vd_can_bus *b, struct vd_can_state *out);
int vd_can_sc_service(struct vd_can_bus *b, int64_t now_ns);

int vd_can_udp_open(struct vd_can_bus *b, char *err, size_t errsz);
void vd_can_udp_close(struct vd_can_bus *b);
int vd_can_udp_send_many(struct vd_can_bus *b, const struct vd_can_frame *f, int n);
int vd_can_udp_recv_some(struct vd_can_bus *b, struct vd_can_frame *out, int max);

#endif /* VD_IO_CAN_PRIV_H */
