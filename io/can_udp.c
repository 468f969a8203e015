/* io/can_udp.c - the udp backend of io/can.h: CAN frames in cannelloni v2 datagrams
 * (mguentner/cannelloni doc/udp_format.md, written from the format description). One
 * unconnected UDP socket bound to the local address; datagrams go to the remote; only the
 * remote's are accepted unless udp_any_source. Every datagram is checked whole before any of
 * its frames is delivered; sequence numbers are followed and gaps counted. */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "io/can_priv.h"

static int resolve(struct vd_can_bus *b, const char *host, uint16_t port, int family, bool passive,
                   struct sockaddr_storage *sa, socklen_t *salen, char *err, size_t errsz)
{
    struct addrinfo hints, *res;
    char ps[8];
    int r;

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = family;
    hints.ai_socktype = SOCK_DGRAM;
    hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
    snprintf(ps, sizeof(ps), "%u", (unsigned)port);
    r = getaddrinfo(host[0] ? host : NULL, ps, &hints, &res);
    if (r)
        return vd_can_errf(-EADDRNOTAVAIL, err, errsz, b, "cannot resolve '%s' port %u: %s", host,
                           (unsigned)port, gai_strerror(r));
    memcpy(sa, res->ai_addr, res->ai_addrlen);
    *salen = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

static bool same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
    if (a->ss_family != b->ss_family)
        return false;
    if (a->ss_family == AF_INET) {
        const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;

        return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
    }
    if (a->ss_family == AF_INET6) {
        const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;

        return x->sin6_port == y->sin6_port &&
               !memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr));
    }
    return false;
}

int vd_can_udp_open(struct vd_can_bus *b, char *err, size_t errsz)
{
    const struct vd_can_cfg *c = &b->cfg;
    struct sockaddr_storage la;
    socklen_t lal;
    char rs[96] = "none (receive only)";
    int r, rb = 0, sb = 0;
    socklen_t ol = sizeof(int);

    r = resolve(b, c->local_host, c->local_port, AF_UNSPEC, true, &la, &lal, err, errsz);
    if (r)
        return r;
    b->fd = socket(la.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (b->fd < 0)
        return vd_can_errf(-errno, err, errsz, b, "socket(UDP): %s", strerror(errno));
    r = vd_can_sock_common(b, err, errsz);
    if (r)
        return r;
    if (bind(b->fd, (struct sockaddr *)&la, lal) < 0)
        return vd_can_errf(-errno, err, errsz, b, "bind: %s", strerror(errno));
    lal = sizeof(la);
    if (getsockname(b->fd, (struct sockaddr *)&la, &lal) < 0)
        return vd_can_errf(-errno, err, errsz, b, "getsockname: %s", strerror(errno));
    b->local_port = ntohs(la.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&la)->sin6_port
                                                   : ((struct sockaddr_in *)&la)->sin_port);
    if (c->remote_host[0] && c->remote_port) {
        r = resolve(b, c->remote_host, c->remote_port, la.ss_family, false, &b->remote,
                    &b->remote_len, err, errsz);
        if (r)
            return r;
        snprintf(rs, sizeof(rs), "%s:%u", c->remote_host, (unsigned)c->remote_port);
    }
    b->txbuf = malloc(c->udp_max_payload);
    b->rxbuf = malloc(VD_CAN_UDP_RXBUF);
    if (!b->txbuf || !b->rxbuf)
        return vd_can_errf(-ENOMEM, err, errsz, b, "out of memory");
    /* touch the buffers now, not in the I/O thread */
    memset(b->txbuf, 0, c->udp_max_payload);
    memset(b->rxbuf, 0, VD_CAN_UDP_RXBUF);
    getsockopt(b->fd, SOL_SOCKET, SO_RCVBUF, &rb, &ol);
    ol = sizeof(int);
    getsockopt(b->fd, SOL_SOCKET, SO_SNDBUF, &sb, &ol);
    snprintf(b->desc, sizeof(b->desc),
             "can bus '%s': udp (cannelloni v2) %s:%u -> %s, %s, max payload %u B, rcvbuf %d, "
             "sndbuf %d, tx wait %d us, %d filters, %s sources",
             c->name, c->local_host[0] ? c->local_host : "*", (unsigned)b->local_port, rs,
             c->fd ? "classic+FD" : "classic", c->udp_max_payload, rb, sb, c->tx_wait_us,
             c->nfilters, c->udp_any_source ? "any" : "remote-only");
    return 0;
}

void vd_can_udp_close(struct vd_can_bus *b)
{
    free(b->txbuf);
    free(b->rxbuf);
}

/* sends the datagram in txbuf carrying nf frames; counts them */
static int send_dgram(struct vd_can_bus *b, size_t len, int nf)
{
    int r;

    if (!b->remote_len) {
        r = -EDESTADDRREQ;
    } else {
        r = vd_can_xmit(b, b->txbuf, len, (struct sockaddr *)&b->remote, b->remote_len);
        if (!r) {
            vd_can_count(b, VD_CS_tx_frames, (uint64_t)nf);
            vd_can_count(b, VD_CS_tx_datagrams, 1);
            b->tx_seq++;
            return 0;
        }
    }
    vd_can_count(b, r == -EAGAIN ? VD_CS_tx_dropped : VD_CS_tx_errors, (uint64_t)nf);
    b->tx_last_err = r;
    return r;
}

int vd_can_udp_send_many(struct vd_can_bus *b, const struct vd_can_frame *f, int n)
{
    const struct vd_can_cfg *c = &b->cfg;
    int i = 0, sent = 0;

    while (i < n) {
        int nf = 0;
        size_t len = VD_CNL_HEADER_SIZE;

        /* as many valid frames as fit, in order; invalid ones counted and skipped */
        while (i < n && nf < 0xffff) {
            size_t l;

            if (!vd_can_frame_valid(&f[i], c->fd) ||
                ((f[i].flags & VD_CANF_ERR) && !c->tx_err_frames)) {
                vd_can_count(b, VD_CS_tx_invalid, 1);
                b->tx_last_err = -EINVAL;
                i++;
                continue;
            }
            l = vd_can_cnl_put(b->txbuf + len, c->udp_max_payload - len, &f[i]);
            if (!l)
                break;
            len += l;
            nf++;
            i++;
        }
        if (!nf) {
            if (i < n) { /* cannot happen: udp_max_payload >= 75 fits the largest frame */
                vd_can_count(b, VD_CS_tx_invalid, 1);
                b->tx_last_err = -EMSGSIZE;
                i++;
            }
            continue;
        }
        vd_can_cnl_header(b->txbuf, b->tx_seq, (uint16_t)nf);
        if (!send_dgram(b, len, nf))
            sent += nf;
    }
    return sent;
}

/* sequence numbers: gap 1..127 = datagrams lost; otherwise late, duplicated or a restarted
 * peer: counted apart, and after 3 such in a row the sequence is taken up afresh */
static void seq_track(struct vd_can_bus *b, uint8_t seq)
{
    static const int resync_after = 3;
    unsigned gap;

    if (b->rx_seq_next < 0) {
        b->rx_seq_next = (seq + 1) & 0xff;
        return;
    }
    gap = (unsigned)(seq - b->rx_seq_next) & 0xffu;
    if (gap == 0) {
        b->rx_seq_next = (seq + 1) & 0xff;
        b->rx_seq_behind = 0;
    } else if (gap < 128) {
        vd_can_count(b, VD_CS_udp_seq_lost, gap);
        b->rx_seq_next = (seq + 1) & 0xff;
        b->rx_seq_behind = 0;
    } else {
        vd_can_count(b, VD_CS_udp_seq_reorder, 1);
        if (++b->rx_seq_behind >= resync_after) {
            b->rx_seq_next = (seq + 1) & 0xff;
            b->rx_seq_behind = 0;
        }
    }
}

static const enum vd_can_stat_id mal_stat[] = {
    [VD_CNL_SHORT] = VD_CS_rx_mal_short,         [VD_CNL_VERSION_BAD] = VD_CS_rx_mal_version,
    [VD_CNL_OPCODE] = VD_CS_rx_mal_opcode,       [VD_CNL_FRAME] = VD_CS_rx_mal_frame,
    [VD_CNL_TRUNCATED] = VD_CS_rx_mal_truncated, [VD_CNL_TRAILING] = VD_CS_rx_mal_trailing,
};

int vd_can_udp_recv_some(struct vd_can_bus *b, struct vd_can_frame *out, int max)
{
    int n = 0;

    while (n < max) {
        struct sockaddr_storage src;
        struct iovec iov = {.iov_base = b->rxbuf, .iov_len = VD_CAN_UDP_RXBUF};
        union {
            char buf[256];
            struct cmsghdr align;
        } ctrl;
        struct msghdr msg = {.msg_name = &src,
                             .msg_namelen = sizeof(src),
                             .msg_iov = &iov,
                             .msg_iovlen = 1,
                             .msg_control = ctrl.buf,
                             .msg_controllen = sizeof(ctrl.buf)};
        enum vd_can_cnl_error e;
        uint16_t count;
        uint8_t seq;
        ssize_t r;
        int64_t t;

        /* frames left of the current datagram first */
        if (b->rx_left) {
            vd_can_cnl_decode(b->rxbuf, &b->rx_off, &out[n]);
            out[n].t_ns = b->rx_t_ns;
            b->rx_left--;
            n += vd_can_rx_accept(b, &out[n]);
            continue;
        }
        r = recvmsg(b->fd, &msg, MSG_DONTWAIT);
        if (r < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            if (errno == EINTR)
                continue;
            vd_can_count(b, VD_CS_rx_errors, 1);
            return n ? n : -errno;
        }
        t = vd_can_rx_cmsg(b, &msg);
        if (b->remote_len && !b->cfg.udp_any_source && !same_addr(&src, &b->remote)) {
            vd_can_count(b, VD_CS_rx_foreign, 1);
            continue;
        }
        if (msg.msg_flags & MSG_TRUNC) {
            vd_can_count(b, VD_CS_rx_malformed, 1);
            vd_can_count(b, VD_CS_rx_mal_oversize, 1);
            continue;
        }
        /* a datagram with a good header counts in the sequence even if a frame is bad, so
         * a malformed datagram is not also counted as lost */
        if (r >= VD_CNL_HEADER_SIZE && b->rxbuf[0] == VD_CNL_VERSION &&
            b->rxbuf[1] == VD_CNL_OP_DATA)
            seq_track(b, b->rxbuf[2]);
        e = vd_can_cnl_check(b->rxbuf, (size_t)r, b->cfg.fd, &count, &seq);
        if (e != VD_CNL_OK) {
            vd_can_count(b, VD_CS_rx_malformed, 1);
            vd_can_count(b, mal_stat[e], 1);
            continue;
        }
        vd_can_count(b, VD_CS_rx_datagrams, 1);
        b->rx_off = VD_CNL_HEADER_SIZE;
        b->rx_left = count;
        b->rx_t_ns = t;
    }
    return n;
}
