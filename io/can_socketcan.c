/* io/can_socketcan.c - the socketcan backend of io/can.h: one CAN_RAW socket per bus, set up
 * as can-utils' candump/cangen do (bind to the ifindex, FD frames after checking the MTU,
 * filters, error filter, SO_RXQ_OVFL, receive buffer, time stamps, non-blocking send).
 * libsocketcan configures the interface (bitrate, restart-ms, start/stop) and reads the
 * controller's state, error counters and statistics; what libsocketcan 0.0.12 cannot do (the
 * link type and kind, the FD data bit timing) is one rtnetlink request here. Virtual
 * interfaces (vcan, vxcan) have no controller: bit timing, FD mode, restart-ms and state
 * reads are skipped on them, and a MANUAL restart there is simulated. */
#include <errno.h>
#include <net/if.h> /* before the linux/ headers (linux/libc-compat.h) */
#include <libsocketcan.h>
#include <linux/can.h>
#include <linux/can/error.h>
#include <linux/can/netlink.h>
#include <linux/can/raw.h>
#include <linux/if_arp.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "io/can_priv.h"

_Static_assert(VD_CAN_ERR_TX_TIMEOUT == CAN_ERR_TX_TIMEOUT &&
                   VD_CAN_ERR_LOSTARB == CAN_ERR_LOSTARB && VD_CAN_ERR_CRTL == CAN_ERR_CRTL &&
                   VD_CAN_ERR_PROT == CAN_ERR_PROT && VD_CAN_ERR_TRX == CAN_ERR_TRX &&
                   VD_CAN_ERR_ACK == CAN_ERR_ACK && VD_CAN_ERR_BUSOFF == CAN_ERR_BUSOFF &&
                   VD_CAN_ERR_BUSERROR == CAN_ERR_BUSERROR &&
                   VD_CAN_ERR_RESTARTED == CAN_ERR_RESTARTED,
               "VD_CAN_ERR_* follow linux/can/error.h");
_Static_assert((int)VD_CAN_STATE_ERROR_ACTIVE == (int)CAN_STATE_ERROR_ACTIVE &&
                   (int)VD_CAN_STATE_ERROR_PASSIVE == (int)CAN_STATE_ERROR_PASSIVE &&
                   (int)VD_CAN_STATE_BUS_OFF == (int)CAN_STATE_BUS_OFF &&
                   (int)VD_CAN_STATE_SLEEPING == (int)CAN_STATE_SLEEPING,
               "vd_can_bus_state follows enum can_state");

/* ---- rtnetlink: link type, flags, MTU and kind; FD mode and data bit timing ---------------- */

struct link_info {
    unsigned type;  /* ARPHRD_* */
    unsigned flags; /* IFF_* */
    unsigned mtu;
    char kind[16]; /* IFLA_INFO_KIND, "" if none */
};

#define NL_BUF 16384

static const struct rtattr *nl_find(const void *start, size_t len, unsigned type)
{
    size_t off = 0;

    while (off + sizeof(struct rtattr) <= len) {
        const struct rtattr *a = (const void *)((const char *)start + off);

        if (a->rta_len < sizeof(struct rtattr) || off + a->rta_len > len)
            return NULL;
        if ((a->rta_type & NLA_TYPE_MASK) == type)
            return a;
        off += RTA_ALIGN(a->rta_len);
    }
    return NULL;
}

static struct rtattr *nl_put(struct nlmsghdr *n, size_t cap, unsigned type, const void *data,
                             size_t len)
{
    size_t off = NLMSG_ALIGN(n->nlmsg_len);
    struct rtattr *a;

    if (off + RTA_ALIGN(RTA_LENGTH(len)) > cap)
        return NULL;
    a = (struct rtattr *)((char *)n + off);
    a->rta_type = (unsigned short)type;
    a->rta_len = (unsigned short)RTA_LENGTH(len);
    if (len)
        memcpy(RTA_DATA(a), data, len);
    n->nlmsg_len = (uint32_t)(off + RTA_ALIGN(RTA_LENGTH(len)));
    return a;
}

static void nl_end(struct nlmsghdr *n, struct rtattr *a)
{
    a->rta_len = (unsigned short)((char *)n + n->nlmsg_len - (char *)a);
}

/* sends req and reads one answer into resp; 0, or -errno (an NLMSG_ERROR's too) */
static int nl_talk(struct nlmsghdr *req, struct nlmsghdr *resp, size_t respsz)
{
    struct sockaddr_nl to = {.nl_family = AF_NETLINK};
    struct timeval tv = {.tv_sec = 2};
    int fd, r = 0;
    ssize_t n;

    fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0)
        return -errno;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    req->nlmsg_seq = 1;
    if (sendto(fd, req, req->nlmsg_len, 0, (struct sockaddr *)&to, sizeof(to)) < 0) {
        r = -errno;
        goto out_close;
    }
    n = recv(fd, resp, respsz, 0);
    if (n < 0) {
        r = -errno;
        goto out_close;
    }
    if ((size_t)n < sizeof(*resp) || resp->nlmsg_len > (size_t)n) {
        r = -EIO;
        goto out_close;
    }
    if (resp->nlmsg_type == NLMSG_ERROR) {
        const struct nlmsgerr *e = NLMSG_DATA(resp);

        r = resp->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) ? e->error : -EIO;
    }
out_close:
    close(fd);
    return r;
}

static int link_info(int ifindex, struct link_info *li)
{
    struct {
        struct nlmsghdr n;
        struct ifinfomsg i;
    } req;
    struct nlmsghdr *resp;
    const struct ifinfomsg *ifi;
    const struct rtattr *a, *k;
    const char *attrs;
    size_t alen;
    int r;

    memset(li, 0, sizeof(*li));
    memset(&req, 0, sizeof(req));
    req.n.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
    req.n.nlmsg_type = RTM_GETLINK;
    req.n.nlmsg_flags = NLM_F_REQUEST;
    req.i.ifi_family = AF_UNSPEC;
    req.i.ifi_index = ifindex;
    resp = malloc(NL_BUF);
    if (!resp)
        return -ENOMEM;
    r = nl_talk(&req.n, resp, NL_BUF);
    if (r)
        goto out_free;
    if (resp->nlmsg_type != RTM_NEWLINK ||
        resp->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifinfomsg))) {
        r = -EIO;
        goto out_free;
    }
    ifi = NLMSG_DATA(resp);
    li->type = ifi->ifi_type;
    li->flags = ifi->ifi_flags;
    attrs = (const char *)ifi + NLMSG_ALIGN(sizeof(*ifi));
    alen = resp->nlmsg_len - NLMSG_LENGTH(NLMSG_ALIGN(sizeof(*ifi)));
    a = nl_find(attrs, alen, IFLA_MTU);
    if (a && a->rta_len >= RTA_LENGTH(4))
        memcpy(&li->mtu, RTA_DATA(a), 4);
    a = nl_find(attrs, alen, IFLA_LINKINFO);
    if (a) {
        k = nl_find(RTA_DATA(a), a->rta_len - RTA_LENGTH(0), IFLA_INFO_KIND);
        if (k) {
            size_t l = k->rta_len - RTA_LENGTH(0);

            l = l < sizeof(li->kind) - 1 ? l : sizeof(li->kind) - 1;
            memcpy(li->kind, RTA_DATA(k), l);
            li->kind[l] = 0;
        }
    }
out_free:
    free(resp);
    return r;
}

/* CAN FD mode on/off and, if dbitrate, the data-phase bit timing (ip link set .. type can
 * fd on dbitrate ..): libsocketcan 0.0.12 has no setter for the latter */
static int nl_set_fd(int ifindex, bool fd, uint32_t dbitrate, uint32_t dsp)
{
    struct {
        struct nlmsghdr n;
        struct ifinfomsg i;
        char attrs[512];
    } req;
    struct {
        struct nlmsghdr n;
        char buf[1024];
    } resp;
    struct can_ctrlmode cm = {.mask = CAN_CTRLMODE_FD, .flags = fd ? CAN_CTRLMODE_FD : 0};
    struct can_bittiming bt = {.bitrate = dbitrate, .sample_point = dsp};
    struct rtattr *li, *data;

    memset(&req, 0, sizeof(req));
    req.n.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
    req.n.nlmsg_type = RTM_NEWLINK;
    req.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
    req.i.ifi_family = AF_UNSPEC;
    req.i.ifi_index = ifindex;
    li = nl_put(&req.n, sizeof(req), IFLA_LINKINFO, NULL, 0);
    nl_put(&req.n, sizeof(req), IFLA_INFO_KIND, "can", 3);
    data = nl_put(&req.n, sizeof(req), IFLA_INFO_DATA, NULL, 0);
    nl_put(&req.n, sizeof(req), IFLA_CAN_CTRLMODE, &cm, sizeof(cm));
    if (fd && dbitrate)
        nl_put(&req.n, sizeof(req), IFLA_CAN_DATA_BITTIMING, &bt, sizeof(bt));
    nl_end(&req.n, data);
    nl_end(&req.n, li);
    return nl_talk(&req.n, &resp.n, sizeof(resp));
}

static int ifreq_ioctl(int fd, const char *ifname, unsigned long req, struct ifreq *ifr)
{
    snprintf(ifr->ifr_name, sizeof(ifr->ifr_name), "%s", ifname);
    return ioctl(fd, req, ifr) < 0 ? -errno : 0;
}

/* libsocketcan returns -1; the netlink answer's errno if it set one */
static int sc_err(void)
{
    return errno ? -errno : -EIO;
}

/* the interface as configured: bit timing, FD, restart-ms and queue length (needs
 * CAP_NET_ADMIN); notes what was done or skipped into note */
static int configure(struct vd_can_bus *b, const struct link_info *li, char *note, size_t nsz,
                     char *err, size_t errsz)
{
    const struct vd_can_cfg *c = &b->cfg;
    const char *ifn = c->ifname;
    struct ifreq ifr;
    size_t k = 0;
    int r;

#define NOTE(...)                                                                                  \
    do {                                                                                           \
        int w_ = snprintf(note + k, nsz - k, __VA_ARGS__);                                         \
        k = w_ < 0 ? k : (k + (size_t)w_ < nsz ? k + (size_t)w_ : nsz - 1);                        \
    } while (0)
    note[0] = 0;
    if (b->is_virtual) {
        /* no controller: only the MTU (FD) and the queue length mean anything */
        if (c->fd && li->mtu != CANFD_MTU) {
            memset(&ifr, 0, sizeof(ifr));
            ifr.ifr_mtu = CANFD_MTU;
            r = ifreq_ioctl(b->fd, ifn, SIOCSIFMTU, &ifr);
            if (r)
                return vd_can_errf(r, err, errsz, b, "setting MTU %d for FD: %s", (int)CANFD_MTU,
                                   strerror(-r));
            NOTE("mtu %d, ", (int)CANFD_MTU);
        }
        NOTE("bit timing/FD mode/restart-ms skipped (%s has no controller)", li->kind);
    } else {
        errno = 0;
        if (can_do_stop(ifn) < 0) {
            r = sc_err();
            return vd_can_errf(r, err, errsz, b, "can_do_stop: %s (needs CAP_NET_ADMIN)",
                               strerror(-r));
        }
        if (c->bitrate) {
            errno = 0;
            if ((c->sample_point ? can_set_bitrate_samplepoint(ifn, c->bitrate, c->sample_point)
                                 : can_set_bitrate(ifn, c->bitrate)) < 0) {
                r = sc_err();
                return vd_can_errf(r, err, errsz, b, "can_set_bitrate(%u, sample point %u): %s",
                                   c->bitrate, c->sample_point, strerror(-r));
            }
            NOTE("bitrate %u, ", c->bitrate);
        }
        r = nl_set_fd(b->ifindex, c->fd, c->dbitrate, c->dsample_point);
        if (r && (c->fd || r != -EOPNOTSUPP))
            return vd_can_errf(r, err, errsz, b, "FD mode %s, dbitrate %u: %s",
                               c->fd ? "on" : "off", c->dbitrate, strerror(-r));
        NOTE("fd %s", c->fd ? "on" : "off");
        if (c->fd && c->dbitrate)
            NOTE(" dbitrate %u", c->dbitrate);
        errno = 0;
        if (can_set_restart_ms(ifn, c->restart == VD_CAN_RESTART_AUTO ? c->restart_ms : 0) < 0) {
            r = sc_err();
            return vd_can_errf(r, err, errsz, b, "can_set_restart_ms: %s", strerror(-r));
        }
        NOTE(", restart-ms %u", c->restart == VD_CAN_RESTART_AUTO ? (unsigned)c->restart_ms : 0u);
    }
    if (c->txqueuelen >= 0) {
        memset(&ifr, 0, sizeof(ifr));
        ifr.ifr_qlen = c->txqueuelen;
        r = ifreq_ioctl(b->fd, ifn, SIOCSIFTXQLEN, &ifr);
        if (r)
            return vd_can_errf(r, err, errsz, b, "txqueuelen %d: %s", c->txqueuelen, strerror(-r));
        NOTE(", txqueuelen %d", c->txqueuelen);
    }
    if (!b->is_virtual) {
        errno = 0;
        if (can_do_start(ifn) < 0) {
            r = sc_err();
            return vd_can_errf(r, err, errsz, b, "can_do_start: %s%s", strerror(-r),
                               c->fd && !c->dbitrate ? " (FD needs a data bitrate: dbitrate)" : "");
        }
    } else if (!(li->flags & IFF_UP)) {
        memset(&ifr, 0, sizeof(ifr));
        r = ifreq_ioctl(b->fd, ifn, SIOCGIFFLAGS, &ifr);
        ifr.ifr_flags = (short)(ifr.ifr_flags | IFF_UP);
        if (!r)
            r = ifreq_ioctl(b->fd, ifn, SIOCSIFFLAGS, &ifr);
        if (r)
            return vd_can_errf(r, err, errsz, b, "setting the interface up: %s", strerror(-r));
        NOTE(", up");
    }
#undef NOTE
    return 0;
}

/* ---- open / close ------------------------------------------------------------------------- */

int vd_can_sc_open(struct vd_can_bus *b, char *err, size_t errsz)
{
    const struct vd_can_cfg *c = &b->cfg;
    struct can_filter flt[VD_CAN_MAX_FILTERS];
    struct sockaddr_can addr;
    struct link_info li;
    char note[160] = "no";
    can_err_mask_t em = c->err_mask;
    int one = 1, lo = c->loopback, own = c->recv_own, r, rb = 0, sb = 0;
    socklen_t ol = sizeof(int);

    b->fd = socket(PF_CAN, SOCK_RAW | SOCK_CLOEXEC, CAN_RAW);
    if (b->fd < 0) {
        r = -errno;
        return vd_can_errf(r, err, errsz, b, "socket(PF_CAN, SOCK_RAW, CAN_RAW): %s%s",
                           strerror(-r),
                           r == -EAFNOSUPPORT || r == -EPROTONOSUPPORT
                               ? ": this kernel has no CAN_RAW (modprobe can-raw)"
                               : "");
    }
    b->ifindex = (int)if_nametoindex(c->ifname);
    if (!b->ifindex)
        return vd_can_errf(-ENODEV, err, errsz, b,
                           "no interface %s (virtual: ip link add dev %s type vcan && ip link "
                           "set up %s)",
                           c->ifname, c->ifname, c->ifname);
    r = link_info(b->ifindex, &li);
    if (r)
        return vd_can_errf(r, err, errsz, b, "reading the link (rtnetlink): %s", strerror(-r));
    if (li.type != ARPHRD_CAN)
        return vd_can_errf(-EINVAL, err, errsz, b, "not a CAN interface (link type %u, kind '%s')",
                           li.type, li.kind);
    snprintf(b->link_kind, sizeof(b->link_kind), "%s", li.kind[0] ? li.kind : "?");
    b->is_virtual = !strcmp(li.kind, "vcan") || !strcmp(li.kind, "vxcan");
    if (c->configure) {
        r = configure(b, &li, note, sizeof(note), err, errsz);
        if (r)
            return r;
        r = link_info(b->ifindex, &li);
        if (r)
            return vd_can_errf(r, err, errsz, b, "reading the link (rtnetlink): %s", strerror(-r));
    }
    if (!(li.flags & IFF_UP))
        return vd_can_errf(-ENETDOWN, err, errsz, b,
                           "interface is down (ip link set up %s, or configure)", c->ifname);
    if (c->fd && li.mtu != CANFD_MTU)
        return vd_can_errf(-EINVAL, err, errsz, b,
                           "MTU %u: not in CAN FD mode (ip link set %s mtu 72 for vcan, type "
                           "can fd on ... for a controller; or configure)",
                           li.mtu, c->ifname);

    /* filters: exact format (EFF flag in the mask), RTR and data frames alike */
    for (int i = 0; i < c->nfilters; i++) {
        flt[i].can_id = c->filters[i].id | (c->filters[i].ext ? CAN_EFF_FLAG : 0);
        flt[i].can_mask = c->filters[i].mask | CAN_EFF_FLAG;
    }
    if (c->nfilters && setsockopt(b->fd, SOL_CAN_RAW, CAN_RAW_FILTER, flt,
                                  (socklen_t)((size_t)c->nfilters * sizeof(flt[0]))) < 0)
        return vd_can_errf(-errno, err, errsz, b, "setsockopt(CAN_RAW_FILTER): %s",
                           strerror(errno));
    if (setsockopt(b->fd, SOL_CAN_RAW, CAN_RAW_ERR_FILTER, &em, sizeof(em)) < 0)
        return vd_can_errf(-errno, err, errsz, b, "setsockopt(CAN_RAW_ERR_FILTER, 0x%x): %s", em,
                           strerror(errno));
    if (setsockopt(b->fd, SOL_CAN_RAW, CAN_RAW_LOOPBACK, &lo, sizeof(lo)) < 0 ||
        setsockopt(b->fd, SOL_CAN_RAW, CAN_RAW_RECV_OWN_MSGS, &own, sizeof(own)) < 0)
        return vd_can_errf(-errno, err, errsz, b, "setsockopt(CAN_RAW_LOOPBACK/RECV_OWN_MSGS): %s",
                           strerror(errno));
    if (c->fd && setsockopt(b->fd, SOL_CAN_RAW, CAN_RAW_FD_FRAMES, &one, sizeof(one)) < 0) {
        r = -errno;
        return vd_can_errf(r, err, errsz, b, "setsockopt(CAN_RAW_FD_FRAMES): %s%s", strerror(-r),
                           r == -ENOPROTOOPT ? ": this kernel has no CAN FD" : "");
    }
    r = vd_can_sock_common(b, err, errsz);
    if (r)
        return r;
    memset(&addr, 0, sizeof(addr));
    addr.can_family = AF_CAN;
    addr.can_ifindex = b->ifindex;
    if (bind(b->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
        return vd_can_errf(-errno, err, errsz, b, "bind: %s", strerror(errno));

    /* the controller's state to start from */
    if (!b->is_virtual && !strcmp(b->link_kind, "can")) {
        int st;

        if (can_get_state(c->ifname, &st) == 0 && st >= 0 && st <= CAN_STATE_SLEEPING)
            vd_can_set_state(b, (enum vd_can_bus_state)st);
    }
    getsockopt(b->fd, SOL_SOCKET, SO_RCVBUF, &rb, &ol);
    ol = sizeof(int);
    getsockopt(b->fd, SOL_SOCKET, SO_SNDBUF, &sb, &ol);
    snprintf(b->desc, sizeof(b->desc),
             "can bus '%s': socketcan %s (%s%s), mtu %u, %s, rcvbuf %d, sndbuf %d, err mask "
             "0x%x, loopback %s, own %s, stamps %s, tx wait %d us, %d filters; configured: %s",
             c->name, c->ifname, b->link_kind, b->is_virtual ? ", virtual" : "", li.mtu,
             c->fd ? "classic+FD" : "classic", rb, sb, c->err_mask, c->loopback ? "on" : "off",
             c->recv_own ? "on" : "off",
             c->tstamp == VD_CAN_TSTAMP_NONE       ? "none"
             : c->tstamp == VD_CAN_TSTAMP_SOFTWARE ? "software"
                                                   : "hardware",
             c->tx_wait_us, c->nfilters, note);
    return 0;
}

void vd_can_sc_close(struct vd_can_bus *b)
{
    (void)b;
}

/* ---- send / receive ------------------------------------------------------------------------ */

int vd_can_sc_send(struct vd_can_bus *b, const struct vd_can_frame *f)
{
    struct canfd_frame cf;
    size_t mtu = (f->flags & VD_CANF_FD) ? CANFD_MTU : CAN_MTU;
    int r;

    memset(&cf, 0, sizeof(cf));
    cf.can_id = f->id;
    if (f->flags & VD_CANF_EFF)
        cf.can_id |= CAN_EFF_FLAG;
    if (f->flags & VD_CANF_RTR)
        cf.can_id |= CAN_RTR_FLAG;
    if (f->flags & VD_CANF_ERR)
        cf.can_id |= CAN_ERR_FLAG;
    cf.len = f->len;
    if (f->flags & VD_CANF_FD)
        cf.flags = (uint8_t)(((f->flags & VD_CANF_BRS) ? CANFD_BRS : 0) |
                             ((f->flags & VD_CANF_ESI) ? CANFD_ESI : 0));
    if (!(f->flags & VD_CANF_RTR))
        memcpy(cf.data, f->data, f->len);
    r = vd_can_xmit(b, &cf, mtu, NULL, 0);
    if (!r)
        vd_can_count(b, VD_CS_tx_frames, 1);
    else
        vd_can_count(b, r == -EAGAIN ? VD_CS_tx_dropped : VD_CS_tx_errors, 1);
    return r;
}

int vd_can_sc_recv_some(struct vd_can_bus *b, struct vd_can_frame *out, int max)
{
    int n = 0;

    while (n < max) {
        struct canfd_frame cf;
        struct iovec iov = {.iov_base = &cf, .iov_len = sizeof(cf)};
        union {
            char buf[CMSG_SPACE(sizeof(struct timespec) * 3) + CMSG_SPACE(sizeof(uint32_t)) + 64];
            struct cmsghdr align;
        } ctrl;
        struct msghdr msg = {.msg_iov = &iov,
                             .msg_iovlen = 1,
                             .msg_control = ctrl.buf,
                             .msg_controllen = sizeof(ctrl.buf)};
        struct vd_can_frame *f = &out[n];
        ssize_t r = recvmsg(b->fd, &msg, MSG_DONTWAIT);
        int64_t t;

        if (r < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            if (errno == EINTR)
                continue;
            vd_can_count(b, VD_CS_rx_errors, 1);
            return n ? n : -errno;
        }
        t = vd_can_rx_cmsg(b, &msg);
        if ((r != CAN_MTU && r != CANFD_MTU) || (r == CAN_MTU && cf.len > CAN_MAX_DLEN) ||
            cf.len > CANFD_MAX_DLEN) {
            vd_can_count(b, VD_CS_rx_malformed, 1);
            continue;
        }
        memset(f, 0, offsetof(struct vd_can_frame, data));
        f->t_ns = t;
        f->len = cf.len;
        if (cf.can_id & CAN_ERR_FLAG) {
            f->flags = VD_CANF_ERR;
            f->id = cf.can_id & CAN_ERR_MASK;
        } else {
            f->flags = (uint8_t)(((cf.can_id & CAN_EFF_FLAG) ? VD_CANF_EFF : 0) |
                                 ((cf.can_id & CAN_RTR_FLAG) ? VD_CANF_RTR : 0));
            f->id = cf.can_id & ((cf.can_id & CAN_EFF_FLAG) ? CAN_EFF_MASK : CAN_SFF_MASK);
        }
        if (r == CANFD_MTU)
            f->flags =
                (uint8_t)(f->flags | VD_CANF_FD | ((cf.flags & CANFD_BRS) ? VD_CANF_BRS : 0) |
                          ((cf.flags & CANFD_ESI) ? VD_CANF_ESI : 0));
        if (f->flags & VD_CANF_RTR)
            memset(f->data, 0, sizeof(f->data));
        else
            memcpy(f->data, cf.data, f->len);
        if (msg.msg_flags & MSG_CONFIRM)
            vd_can_count(b, VD_CS_rx_own, 1);
        n += vd_can_rx_accept(b, f);
    }
    return n;
}

/* ---- state ---------------------------------------------------------------------------------- */

static bool has_controller(const struct vd_can_bus *b)
{
    return !b->is_virtual && !strcmp(b->link_kind, "can");
}

int vd_can_sc_service(struct vd_can_bus *b, int64_t now_ns)
{
    const struct vd_can_cfg *c = &b->cfg;

    if (has_controller(b) && c->state_poll_ms && now_ns >= b->next_poll_ns) {
        int st;

        if (can_get_state(c->ifname, &st) == 0 && st >= 0 && st <= CAN_STATE_SLEEPING)
            vd_can_set_state(b, (enum vd_can_bus_state)st);
        vd_can_count(b, VD_CS_state_polls, 1);
        b->next_poll_ns = now_ns + (int64_t)c->state_poll_ms * 1000000;
    }
    if (c->restart == VD_CAN_RESTART_MANUAL && vd_can_bus_state(b) == VD_CAN_STATE_BUS_OFF) {
        if (!b->next_restart_ns)
            b->next_restart_ns = b->busoff_since_ns + (int64_t)c->restart_holdoff_ms * 1000000;
        if (now_ns >= b->next_restart_ns) {
            /* a virtual interface has nothing to restart: the bus-off was injected */
            if (!has_controller(b) || can_do_restart(c->ifname) == 0) {
                vd_can_count(b, VD_CS_restarts, 1);
                vd_can_set_state(b, VD_CAN_STATE_ERROR_ACTIVE);
            } else {
                vd_can_count(b, VD_CS_restart_failures, 1);
                b->next_restart_ns = now_ns + (int64_t)c->restart_holdoff_ms * 1000000;
            }
        }
    }
    return 0;
}

int vd_can_sc_state(struct vd_can_bus *b, struct vd_can_state *out)
{
    const char *ifn = b->cfg.ifname;
    struct can_berr_counter bc;
    struct can_device_stats ds;
    struct can_bittiming bt;
    struct rtnl_link_stats64 ls;
    uint32_t rms;
    int st;

    snprintf(out->kind, sizeof(out->kind), "%s", b->link_kind);
    out->is_virtual = b->is_virtual;
    if (!has_controller(b))
        return 0;
    if (can_get_state(ifn, &st) == 0 && st >= 0 && st <= CAN_STATE_SLEEPING) {
        out->state = (enum vd_can_bus_state)st;
        out->state_read = true;
    }
    if (can_get_berr_counter(ifn, &bc) == 0) {
        out->berr_valid = true;
        out->txerr = bc.txerr;
        out->rxerr = bc.rxerr;
    }
    if (can_get_device_stats(ifn, &ds) == 0) {
        out->dev_valid = true;
        out->bus_error = ds.bus_error;
        out->error_warning = ds.error_warning;
        out->error_passive = ds.error_passive;
        out->bus_off = ds.bus_off;
        out->arbitration_lost = ds.arbitration_lost;
        out->restarts = ds.restarts;
    }
    if (can_get_bittiming(ifn, &bt) == 0) {
        out->bittiming_valid = true;
        out->bitrate = bt.bitrate;
        out->sample_point = bt.sample_point;
    }
    if (can_get_restart_ms(ifn, &rms) == 0) {
        out->restart_ms_valid = true;
        out->restart_ms = rms;
    }
    if (can_get_link_stats(ifn, &ls) == 0) {
        out->link_valid = true;
        out->link_rx_packets = ls.rx_packets;
        out->link_tx_packets = ls.tx_packets;
        out->link_rx_dropped = ls.rx_dropped;
        out->link_tx_dropped = ls.tx_dropped;
        out->link_rx_errors = ls.rx_errors;
        out->link_tx_errors = ls.tx_errors;
    }
    return 0;
}
