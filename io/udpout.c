/* io/udpout.c - status datagrams over UDP. */
#include "udpout.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int vd_udp_parse(const char *s, struct sockaddr_in *out)
{
    char host[64];
    const char *colon = strrchr(s, ':');
    char *end;
    long port;
    size_t n;

    memset(out, 0, sizeof(*out));
    if (!colon || colon == s)
        return -EINVAL;
    n = (size_t)(colon - s);
    if (n >= sizeof(host))
        return -EINVAL;
    memcpy(host, s, n);
    host[n] = '\0';
    errno = 0;
    port = strtol(colon + 1, &end, 10);
    if (errno || end == colon + 1 || *end || port < 1 || port > 65535)
        return -EINVAL;
    out->sin_family = AF_INET;
    out->sin_port = htons((uint16_t)port);
    if (!strcmp(host, "localhost"))
        strcpy(host, "127.0.0.1");
    return inet_pton(AF_INET, host, &out->sin_addr) == 1 ? 0 : -EINVAL;
}

int vd_udpout_open(struct vd_udpout *u, const struct sockaddr_in *dest)
{
    struct sockaddr_in local = {.sin_family = AF_INET};
    socklen_t len = sizeof(u->bound);
    const bool loopback = (ntohl(dest->sin_addr.s_addr) >> 24) == 127;
    int rc;

    memset(u, 0, sizeof(*u));
    u->dest = *dest;
    memcpy(&u->dest_any, dest, sizeof(*dest));
    u->dest_len = sizeof(*dest);
    /* status stays on this machine unless a non-loopback destination is configured */
    local.sin_addr.s_addr = htonl(loopback ? INADDR_LOOPBACK : INADDR_ANY);
    u->sock = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (u->sock < 0)
        return -errno;
    if (bind(u->sock, (const struct sockaddr *)&local, sizeof(local)) ||
        getsockname(u->sock, (struct sockaddr *)&u->bound, &len)) {
        rc = -errno;
        close(u->sock);
        u->sock = -1;
        return rc;
    }
    return 0;
}

void vd_udpout_close(struct vd_udpout *u)
{
    if (u->sock >= 0)
        close(u->sock);
    u->sock = -1;
}

int vd_udpout_send(struct vd_udpout *u, const void *buf, size_t len)
{
    ssize_t n;

    if (u->sock < 0)
        return -EBADF;
    n = sendto(u->sock, buf, len, MSG_DONTWAIT, (const struct sockaddr *)&u->dest_any, u->dest_len);
    if (n == (ssize_t)len) {
        u->sent++;
        return 0;
    }
    u->errors++;
    u->last_errno = n < 0 ? errno : EMSGSIZE;
    return -u->last_errno;
}

int vd_udpout_sink(void *u, const void *buf, size_t len)
{
    return vd_udpout_send(u, buf, len);
}

int vd_udp_parse_any(const char *s, struct sockaddr_storage *out, socklen_t *len)
{
    char host[64];
    const char *colon = strrchr(s, ':'), *h = s;
    char *end;
    long port;
    size_t n;

    memset(out, 0, sizeof(*out));
    if (!colon || colon == s)
        return -EINVAL;
    n = (size_t)(colon - s);
    if (*s == '[') { /* [v6]:port */
        if (n < 3 || s[n - 1] != ']')
            return -EINVAL;
        h = s + 1;
        n -= 2;
    }
    if (n >= sizeof(host))
        return -EINVAL;
    memcpy(host, h, n);
    host[n] = '\0';
    errno = 0;
    port = strtol(colon + 1, &end, 10);
    if (errno || end == colon + 1 || *end || port < 1 || port > 65535)
        return -EINVAL;
    if (!strcmp(host, "localhost"))
        strcpy(host, "127.0.0.1");
    if (h == s) {
        struct sockaddr_in *a = (struct sockaddr_in *)out;

        a->sin_family = AF_INET;
        a->sin_port = htons((uint16_t)port);
        *len = sizeof(*a);
        return inet_pton(AF_INET, host, &a->sin_addr) == 1 ? 0 : -EINVAL;
    } else {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)out;

        a->sin6_family = AF_INET6;
        a->sin6_port = htons((uint16_t)port);
        *len = sizeof(*a);
        return inet_pton(AF_INET6, host, &a->sin6_addr) == 1 ? 0 : -EINVAL;
    }
}

int vd_udpout_open_any(struct vd_udpout *u, const struct sockaddr_storage *dest, socklen_t len,
                       int ttl)
{
    struct sockaddr_storage local;
    socklen_t llen;
    bool loopback, mc;
    int rc, on = 1;

    if (dest->ss_family == AF_INET && len == sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *d4 = (const struct sockaddr_in *)dest;
        const unsigned char t = (unsigned char)ttl, one = 1;

        if (ttl < 1 || ttl > 255)
            return -EINVAL;
        if ((rc = vd_udpout_open(u, d4)))
            return rc;
        u->multicast = IN_MULTICAST(ntohl(d4->sin_addr.s_addr));
        if (u->multicast && (setsockopt(u->sock, IPPROTO_IP, IP_MULTICAST_TTL, &t, 1) ||
                             setsockopt(u->sock, IPPROTO_IP, IP_MULTICAST_LOOP, &one, 1))) {
            rc = -errno;
            vd_udpout_close(u);
            return rc;
        }
        return 0;
    }
    if (dest->ss_family != AF_INET6 || len != sizeof(struct sockaddr_in6) || ttl < 1 || ttl > 255)
        return -EINVAL;
    memset(u, 0, sizeof(*u));
    memcpy(&u->dest_any, dest, len);
    u->dest_len = len;
    {
        const struct sockaddr_in6 *d6 = (const struct sockaddr_in6 *)dest;
        struct sockaddr_in6 *l6 = (struct sockaddr_in6 *)&local;

        loopback = IN6_IS_ADDR_LOOPBACK(&d6->sin6_addr);
        mc = IN6_IS_ADDR_MULTICAST(&d6->sin6_addr);
        memset(&local, 0, sizeof(local));
        l6->sin6_family = AF_INET6;
        l6->sin6_addr = loopback ? in6addr_loopback : in6addr_any;
        llen = sizeof(*l6);
    }
    u->multicast = mc;
    u->sock = socket(AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (u->sock < 0)
        return -errno;
    if (bind(u->sock, (const struct sockaddr *)&local, llen) ||
        (mc && (setsockopt(u->sock, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, &ttl, sizeof(ttl)) ||
                setsockopt(u->sock, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, &on, sizeof(on))))) {
        rc = -errno;
        close(u->sock);
        u->sock = -1;
        return rc;
    }
    return 0;
}

void vd_udp_format(char *buf, size_t size, const struct sockaddr_storage *a)
{
    char host[INET6_ADDRSTRLEN] = "?";

    if (a->ss_family == AF_INET6) {
        const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)a;

        inet_ntop(AF_INET6, &a6->sin6_addr, host, sizeof(host));
        snprintf(buf, size, "[%s]:%u", host, ntohs(a6->sin6_port));
    } else {
        const struct sockaddr_in *a4 = (const struct sockaddr_in *)a;

        inet_ntop(AF_INET, &a4->sin_addr, host, sizeof(host));
        snprintf(buf, size, "%s:%u", host, ntohs(a4->sin_port));
    }
}

ssize_t vd_udpout_recv(struct vd_udpout *u, void *buf, size_t cap, struct sockaddr_storage *from)
{
    socklen_t fl = sizeof(*from);
    ssize_t n;

    if (u->sock < 0)
        return -EBADF;
    n = recvfrom(u->sock, buf, cap, MSG_DONTWAIT, (struct sockaddr *)from, from ? &fl : NULL);
    if (n < 0)
        return -errno; /* -EAGAIN (EWOULDBLOCK): none waiting */
    return n;
}

bool vd_udp_same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b, bool port)
{
    if (a->ss_family != b->ss_family)
        return false;
    if (a->ss_family == AF_INET) {
        const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;

        return x->sin_addr.s_addr == y->sin_addr.s_addr && (!port || x->sin_port == y->sin_port);
    }
    if (a->ss_family == AF_INET6) {
        const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;

        return !memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr)) &&
               (!port || x->sin6_port == y->sin6_port);
    }
    return false;
}
