/* io/udpout.h - UDP out: one unconnected UDP socket that sends datagrams to one destination:
 * the status datagrams to a monitor (rtvd monitor, app/monitor.h; IPv4) and the motion feed
 * (app/motionlink.h; IPv4 or IPv6, unicast or multicast). The socket binds to the loopback
 * address when the destination is one (the data stays on this machine), else to any address.
 * Sends never block (MSG_DONTWAIT); a datagram is sent whole or counted as an error.
 * Owns the socket and its counters.
 * vd_udp_parse, vd_udp_parse_any, vd_udpout_open, vd_udpout_open_any, vd_udpout_close: init only.
 * vd_udpout_send/recv: RT-safe (no allocation, one non-blocking sendto/recvfrom), from one thread
 * at a time; vd_udp_same_addr: RT-safe (pure). */
#ifndef VD_IO_UDPOUT_H
#define VD_IO_UDPOUT_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

struct vd_udpout {
    int sock;                         /* -1: closed */
    struct sockaddr_in dest;          /* where the datagrams go (IPv4 opens) */
    struct sockaddr_in bound;         /* the local address of the socket (IPv4 opens) */
    struct sockaddr_storage dest_any; /* where the datagrams go (every open) */
    socklen_t dest_len;
    bool multicast;  /* the destination is a multicast group */
    uint64_t sent;   /* datagrams sent whole */
    uint64_t errors; /* sendto failed or sent less than the datagram */
    int last_errno;  /* of the last failure, 0: none */
};

/* init-time */
/* "a.b.c.d:port" or "localhost:port" into *out; 0 or -EINVAL */
int vd_udp_parse(const char *s, struct sockaddr_in *out);
/* socket bound as above; 0 or -errno (u->sock is -1 then) */
int vd_udpout_open(struct vd_udpout *u, const struct sockaddr_in *dest);
/* "a.b.c.d:port", "[v6addr]:port", "localhost:port" into *out (numeric addresses only: no
 * name service at run time); 0 or -EINVAL */
int vd_udp_parse_any(const char *s, struct sockaddr_storage *out, socklen_t *len);
/* a socket of the destination's family; a multicast destination gets the hop limit ttl
 * (1..255) and multicast loopback on (a receiver on this host sees the group too).
 * 0 or -errno (u->sock is -1 then) */
int vd_udpout_open_any(struct vd_udpout *u, const struct sockaddr_storage *dest, socklen_t len,
                       int ttl);
void vd_udpout_close(struct vd_udpout *u);
/* "a.b.c.d:port" / "[v6]:port" of an address */
void vd_udp_format(char *buf, size_t size, const struct sockaddr_storage *a);

/* RT-safe */
/* send buf[0, len) as one datagram; 0 or -errno (counted) */
int vd_udpout_send(struct vd_udpout *u, const void *buf, size_t len);
/* a datagram that arrived on the socket (a platform's heartbeat): its length (0: an empty
 * datagram, to be counted as malformed), -EAGAIN when none is waiting, or -errno; from (may
 * be NULL) gets the sender */
ssize_t vd_udpout_recv(struct vd_udpout *u, void *buf, size_t cap, struct sockaddr_storage *from);
/* a is b: the same family and address (IPv4, or IPv6 without its scope), and with port the
 * same port too: a datagram's sender against the destination (app/motionlink.c: only the
 * platform may answer a unicast feed). An IPv4-mapped address ([::ffff:a.b.c.d]) is an IPv6
 * one, the same only as itself: a socket reports one family (an IPv6 socket fed on a mapped
 * address reports the platform mapped). Other families: never the same (tests/io/test_udpout) */
bool vd_udp_same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b,
                      bool port);
/* the same with the vd_udpout as an opaque context (a sink for rt/telemetry.h) */
int vd_udpout_sink(void *u, const void *buf, size_t len);

#endif /* VD_IO_UDPOUT_H */
