/* io/udpout.c - status datagrams over UDP. */
#include "udpout.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
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
    n = sendto(u->sock, buf, len, MSG_DONTWAIT, (const struct sockaddr *)&u->dest, sizeof(u->dest));
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
