/* tests/rt/test_sdnotify.c - the service manager's notification protocol (rt/sdnotify.h)
 * against real AF_UNIX datagram sockets: a path and an abstract name, the message bytes as
 * sent, $WATCHDOG_USEC / $WATCHDOG_PID, malformed variables, no service manager (no-ops),
 * a receiver that is gone (a counted error, never a block), $JOURNAL_STREAM. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "check.h"
#include "rt/sdnotify.h"

static const char *e_sock, *e_wd, *e_pid;

static const char *env(const char *name)
{
    if (!strcmp(name, "NOTIFY_SOCKET"))
        return e_sock;
    if (!strcmp(name, "WATCHDOG_USEC"))
        return e_wd;
    if (!strcmp(name, "WATCHDOG_PID"))
        return e_pid;
    return NULL;
}

/* a receiver bound to name (a path, or '@' + an abstract name) */
static int receiver(const char *name)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    const size_t len = strlen(name);
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);

    memcpy(a.sun_path, name, len);
    if (name[0] == '@')
        a.sun_path[0] = '\0';
    else
        unlink(name);
    if (bind(fd, (struct sockaddr *)&a,
             (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + (name[0] == '/'))) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static void roundtrip(const char *name)
{
    static const char msg[] = "READY=1\nSTATUS=running <embedded>/config/runs/default.yaml";
    struct vd_sdnotify n;
    char buf[256];
    int rx = receiver(name);
    ssize_t r;

    CHECK(rx >= 0, "%s: receiver: %s", name, strerror(errno));
    e_sock = name;
    e_wd = e_pid = NULL;
    CHECK(vd_sdnotify_open(&n, env) == 0 && vd_sdnotify_enabled(&n), "%s: open", name);
    CHECK(n.watchdog_ns == 0, "%s: no watchdog without WATCHDOG_USEC", name);
    CHECK(vd_sdnotify_send(&n, msg, sizeof(msg) - 1) == 0, "%s: send", name);
    r = recv(rx, buf, sizeof(buf), 0);
    CHECK(r == (ssize_t)(sizeof(msg) - 1) && !memcmp(buf, msg, sizeof(msg) - 1),
          "%s: the bytes as sent (%zd)", name, r);
    CHECK(n.sent == 1 && n.errors == 0, "%s: counters", name);
    /* the receiver gone: an error, counted, returned at once */
    close(rx);
    if (name[0] == '/')
        unlink(name);
    CHECK(vd_sdnotify_send(&n, msg, sizeof(msg) - 1) < 0 && n.errors == 1,
          "%s: a vanished receiver is an error", name);
    vd_sdnotify_close(&n);
    CHECK(!vd_sdnotify_enabled(&n), "%s: closed", name);
}

int main(void)
{
    struct vd_sdnotify n;
    char path[64], pid[32], other[32], js[64];
    struct stat st;
    int fd;

    /* a path and an abstract socket */
    snprintf(path, sizeof(path), "/tmp/vd-test-notify-%d", (int)getpid());
    roundtrip(path);
    snprintf(path, sizeof(path), "@vd-test-notify-%d", (int)getpid());
    roundtrip(path);

    /* no service manager: disabled, every send a no-op that succeeds */
    e_sock = NULL;
    CHECK(vd_sdnotify_open(&n, env) == 0 && !vd_sdnotify_enabled(&n) && n.watchdog_ns == 0,
          "no NOTIFY_SOCKET");
    CHECK(vd_sdnotify_send(&n, "READY=1", 7) == 0 && n.sent == 0, "no-op send");
    vd_sdnotify_close(&n);

    /* the watchdog: ours (no WATCHDOG_PID, or our pid), or another process's */
    snprintf(pid, sizeof(pid), "%d", (int)getpid());
    snprintf(other, sizeof(other), "%d", (int)getpid() + 1);
    e_sock = path;
    e_wd = "2000000";
    e_pid = NULL;
    CHECK(vd_sdnotify_open(&n, env) == 0 && n.watchdog_ns == 2000000000LL, "WATCHDOG_USEC");
    vd_sdnotify_close(&n);
    e_pid = pid;
    CHECK(vd_sdnotify_open(&n, env) == 0 && n.watchdog_ns == 2000000000LL, "WATCHDOG_PID ours");
    vd_sdnotify_close(&n);
    e_pid = other;
    CHECK(vd_sdnotify_open(&n, env) == 0 && n.watchdog_ns == 0, "WATCHDOG_PID not ours");
    vd_sdnotify_close(&n);

    /* malformed: refused with -EINVAL and nothing sent */
    {
        static const char *const bad_sock[] = {"relative/path", "@", "/", ""};
        static const char *const bad_wd[] = {"0", "-5", "12x", "99999999999999999999999"};
        char longp[200];

        memset(longp, 'a', sizeof(longp) - 1);
        longp[0] = '/';
        longp[sizeof(longp) - 1] = '\0';
        e_wd = e_pid = NULL;
        for (int i = 0; i < 3; i++) {
            e_sock = bad_sock[i];
            CHECK(vd_sdnotify_open(&n, env) == -EINVAL && !vd_sdnotify_enabled(&n),
                  "NOTIFY_SOCKET '%s'", bad_sock[i]);
        }
        e_sock = bad_sock[3];
        CHECK(vd_sdnotify_open(&n, env) == 0 && !vd_sdnotify_enabled(&n), "empty NOTIFY_SOCKET");
        e_sock = longp;
        CHECK(vd_sdnotify_open(&n, env) == -EINVAL, "a path longer than sun_path");
        e_sock = path;
        for (int i = 0; i < 4; i++) {
            e_wd = bad_wd[i];
            CHECK(vd_sdnotify_open(&n, env) == -EINVAL && !vd_sdnotify_enabled(&n),
                  "WATCHDOG_USEC '%s'", bad_wd[i]);
        }
        e_wd = "1000000";
        e_pid = "abc";
        CHECK(vd_sdnotify_open(&n, env) == -EINVAL, "WATCHDOG_PID 'abc'");
    }

    /* $JOURNAL_STREAM names fd's device and inode */
    fd = open("/dev/null", O_WRONLY);
    CHECK(fd >= 0 && fstat(fd, &st) == 0, "stat");
    snprintf(js, sizeof(js), "%llu:%llu", (unsigned long long)st.st_dev,
             (unsigned long long)st.st_ino);
    setenv("JOURNAL_STREAM", js, 1);
    CHECK(vd_journal_stream(fd), "JOURNAL_STREAM matches");
    CHECK(!vd_journal_stream(STDIN_FILENO) || isatty(STDIN_FILENO) == 0,
          "stdin is not /dev/null's stream");
    snprintf(js, sizeof(js), "%llu:%llu", (unsigned long long)st.st_dev,
             (unsigned long long)st.st_ino + 1);
    setenv("JOURNAL_STREAM", js, 1);
    CHECK(!vd_journal_stream(fd), "another inode");
    setenv("JOURNAL_STREAM", "garbage", 1);
    CHECK(!vd_journal_stream(fd), "malformed");
    unsetenv("JOURNAL_STREAM");
    CHECK(!vd_journal_stream(fd), "unset");
    close(fd);
    return vt_report("test_sdnotify");
}
