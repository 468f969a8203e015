/* rt/tracemark.c - overrun markers into ftrace's trace_marker. */
#include "tracemark.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int vd_tracemark_open(const char *path)
{
    int fd;

    if (path)
        fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    else if ((fd = open(VD_TRACEMARK_DEFAULT, O_WRONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
        fd = open(VD_TRACEMARK_DEBUGFS, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

void vd_tracemark_close(int fd)
{
    if (fd >= 0)
        close(fd);
}

static char *put_str(char *p, const char *s)
{
    while (*s)
        *p++ = *s++;
    return p;
}

static char *put_i64(char *p, int64_t v)
{
    char tmp[24];
    int n = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *p++ = '-';
    while (n > 0)
        *p++ = tmp[--n];
    return p;
}

size_t vd_tracemark_line(char *buf, uint64_t cycle, int64_t turnaround_ns, int64_t overrun_ns,
                         int64_t latency_ns, int64_t missed, int grace)
{
    char *p = buf;

    /* at most 40 + 5 x 20 digits + 7 < VD_TRACEMARK_LINE_MAX */
    p = put_str(p, "rtvd: overrun cycle=");
    p = put_i64(p, (int64_t)(cycle & INT64_MAX));
    p = put_str(p, " turnaround_ns=");
    p = put_i64(p, turnaround_ns);
    p = put_str(p, " overrun_ns=");
    p = put_i64(p, overrun_ns);
    p = put_str(p, " latency_ns=");
    p = put_i64(p, latency_ns);
    p = put_str(p, " missed=");
    p = put_i64(p, missed);
    if (grace)
        p = put_str(p, " grace");
    *p++ = '\n';
    return (size_t)(p - buf);
}

int vd_tracemark_write(int fd, const char *buf, size_t n)
{
    const ssize_t w = write(fd, buf, n);

    if (w == (ssize_t)n)
        return 0;
    return w < 0 ? -errno : -EIO;
}
