/* rt/sdnotify.h - the service manager's notification protocol (systemd's sd_notify(3)),
 * spoken directly: one AF_UNIX datagram of "KEY=VALUE\n..." to $NOTIFY_SOCKET (a path, or
 * '@' for the abstract namespace). The protocol is documented and stable (sd_notify(3),
 * "Interface Portability and Stability"); speaking it here, rather than linking libsystemd,
 * keeps the send a single sendto(2) on a socket opened at init: no allocation, no lock, no
 * environment lookup after init, so the telemetry thread can feed the watchdog while the
 * loop runs. Outside systemd (no $NOTIFY_SOCKET) every call is a no-op returning 0.
 * Owns: the socket. vd_sdnotify_open/close: init/exit only. vd_sdnotify_send: RT-safe
 * (non-blocking sendto), but called from non-RT threads only (never the loop thread). */
#ifndef VD_RT_SDNOTIFY_H
#define VD_RT_SDNOTIFY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

struct vd_sdnotify {
    int fd;                  /* -1: not under a service manager */
    struct sockaddr_un addr; /* $NOTIFY_SOCKET */
    socklen_t addr_len;
    int64_t watchdog_ns; /* [ns] $WATCHDOG_USEC when $WATCHDOG_PID is unset or ours; 0: none */
    _Atomic uint64_t sent, errors; /* datagrams sent, failed sends (any thread) */
};

/* init-time (may allocate) */
/* read $NOTIFY_SOCKET, $WATCHDOG_USEC and $WATCHDOG_PID (from env: NULL = the process's
 * environment, else a getenv-like lookup for tests) and open the socket. 0, or -errno for a
 * malformed variable or a socket that cannot be made (n->fd stays -1, calls are no-ops) */
int vd_sdnotify_open(struct vd_sdnotify *n, const char *(*env)(const char *name));
void vd_sdnotify_close(struct vd_sdnotify *n);
/* true if fd is the journal's stream ($JOURNAL_STREAM = "device:inode" of fd, systemd.exec(5)):
 * then log lines may carry a "<N>" syslog priority prefix */
bool vd_journal_stream(int fd);

/* RT-safe */
static inline bool vd_sdnotify_enabled(const struct vd_sdnotify *n)
{
    return n && n->fd >= 0;
}
/* send msg (len bytes, "READY=1", "WATCHDOG=1\nSTATUS=...", ...); 0 (also when disabled) or
 * -errno (counted) */
int vd_sdnotify_send(struct vd_sdnotify *n, const char *msg, size_t len);

#endif /* VD_RT_SDNOTIFY_H */
