/* rt/sdnotify.c - sd_notify(3) protocol without libsystemd. */
#include "sdnotify.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *proc_env(const char *name)
{
    return getenv(name);
}

/* a decimal without sign, whole string; -1 if malformed */
static long long parse_u(const char *s)
{
    long long v = 0;

    if (!s || !*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (LLONG_MAX - 9) / 10)
            return -1;
        v = v * 10 + (*s - '0');
    }
    return v;
}

int vd_sdnotify_open(struct vd_sdnotify *n, const char *(*env)(const char *name))
{
    const char *sock, *wd, *wpid;
    size_t len;

    memset(n, 0, sizeof(*n));
    n->fd = -1;
    if (!env)
        env = proc_env;
    sock = env("NOTIFY_SOCKET");
    if (!sock || !*sock)
        return 0;
    /* a path or an abstract name ('@' stands for the leading NUL) */
    len = strlen(sock);
    if ((sock[0] != '/' && sock[0] != '@') || len < 2 || len >= sizeof(n->addr.sun_path))
        return -EINVAL;
    n->addr.sun_family = AF_UNIX;
    memcpy(n->addr.sun_path, sock, len);
    if (sock[0] == '@')
        n->addr.sun_path[0] = '\0';
    n->addr_len =
        (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + (sock[0] == '/' ? 1 : 0));
    /* the watchdog: ours unless WATCHDOG_PID names another process */
    wd = env("WATCHDOG_USEC");
    wpid = env("WATCHDOG_PID");
    if (wd && *wd) {
        const long long us = parse_u(wd);
        const long long pid = wpid && *wpid ? parse_u(wpid) : (long long)getpid();

        if (us <= 0 || pid <= 0)
            return -EINVAL;
        if (pid == (long long)getpid())
            n->watchdog_ns = us * 1000;
    }
    n->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (n->fd < 0) {
        n->watchdog_ns = 0;
        return -errno;
    }
    return 0;
}

void vd_sdnotify_close(struct vd_sdnotify *n)
{
    if (n->fd >= 0)
        close(n->fd);
    n->fd = -1;
}

int vd_sdnotify_send(struct vd_sdnotify *n, const char *msg, size_t len)
{
    ssize_t r;

    if (!vd_sdnotify_enabled(n))
        return 0;
    r = sendto(n->fd, msg, len, MSG_NOSIGNAL | MSG_DONTWAIT, (const struct sockaddr *)&n->addr,
               n->addr_len);
    if (r == (ssize_t)len) {
        atomic_fetch_add_explicit(&n->sent, 1, memory_order_relaxed);
        return 0;
    }
    atomic_fetch_add_explicit(&n->errors, 1, memory_order_relaxed);
    return r < 0 ? -errno : -EMSGSIZE;
}

bool vd_journal_stream(int fd)
{
    const char *js = getenv("JOURNAL_STREAM");
    unsigned long long dev, ino;
    struct stat st;
    char end;

    if (!js || sscanf(js, "%llu:%llu%c", &dev, &ino, &end) != 2 || fstat(fd, &st))
        return false;
    return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}
