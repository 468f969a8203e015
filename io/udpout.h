/* io/udpout.h - telemetry out: one unconnected UDP socket that sends status datagrams to a
 * monitor (rtvd monitor, app/monitor.h). The socket binds to 127.0.0.1 when the destination
 * is a loopback address (status stays on this machine), else to any address. Sends never
 * block (MSG_DONTWAIT); a datagram is sent whole or counted as an error.
 * Owns the socket and its counters.
 * vd_udp_parse, vd_udpout_open/close: init only. vd_udpout_send: RT-safe (no allocation,
 * one non-blocking sendto), from one thread at a time. */
#ifndef VD_IO_UDPOUT_H
#define VD_IO_UDPOUT_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

struct vd_udpout {
    int sock;                 /* -1: closed */
    struct sockaddr_in dest;  /* where the datagrams go */
    struct sockaddr_in bound; /* the local address of the socket */
    uint64_t sent;            /* datagrams sent whole */
    uint64_t errors;          /* sendto failed or sent less than the datagram */
    int last_errno;           /* of the last failure, 0: none */
};

/* init-time */
/* "a.b.c.d:port" or "localhost:port" into *out; 0 or -EINVAL */
int vd_udp_parse(const char *s, struct sockaddr_in *out);
/* socket bound as above; 0 or -errno (u->sock is -1 then) */
int vd_udpout_open(struct vd_udpout *u, const struct sockaddr_in *dest);
void vd_udpout_close(struct vd_udpout *u);

/* RT-safe */
/* send buf[0, len) as one datagram; 0 or -errno (counted) */
int vd_udpout_send(struct vd_udpout *u, const void *buf, size_t len);
/* the same with the vd_udpout as an opaque context (a sink for rt/telemetry.h) */
int vd_udpout_sink(void *u, const void *buf, size_t len);

#endif /* VD_IO_UDPOUT_H */
