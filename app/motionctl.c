/* app/motionctl.c - the operator's control channel of the motion feed (app/motionctl.h). */
#include "motionctl.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "motionlink.h"

_Static_assert(APP_OPC_N == VD_TM_OP_CMDS && APP_OPW_N == VD_TM_OP_WHY,
               "the status datagram's operator counters (rt/telemetry.h)");

const char *const app_opc_cmd_name[APP_OPC_N] = {"park", "reset", "engage", "status", "other"};
const char *const app_opc_why_name[APP_OPW_N] = {
    "-",     "malformed", "unknown", "not_engaged", "not_parked", "busy",    "no_platform",
    "fault", "run_ended", "loop",    "heartbeat",   "settling",   "no_fault"};

static const char *const cmd_word[APP_OPC_OTHER] = {"PARK", "RESET", "ENGAGE", "STATUS"};

int app_opc_parse(const uint8_t *b, size_t len, int *cmd)
{
    size_t n = len;

    *cmd = APP_OPC_OTHER;
    if (n > 0 && b[n - 1] == '\n')
        n--;
    if (n == 0 || len > APP_OPC_REQ_MAX)
        return APP_OPW_MALFORMED;
    for (size_t i = 0; i < n; i++)
        if (!((b[i] >= 'A' && b[i] <= 'Z') || (b[i] >= 'a' && b[i] <= 'z')))
            return APP_OPW_MALFORMED;
    for (int c = 0; c < APP_OPC_OTHER; c++) {
        size_t i;

        if (strlen(cmd_word[c]) != n)
            continue;
        for (i = 0; i < n && (b[i] & ~0x20) == cmd_word[c][i]; i++)
            ;
        if (i == n) {
            *cmd = c;
            return APP_OPW_OK;
        }
    }
    return APP_OPW_UNKNOWN;
}

/* PATH.lock locked exclusively: its fd, or -1 with a message */
static int opc_lock(const char *path, FILE *errf)
{
    char lp[sizeof(((struct sockaddr_un *)0)->sun_path) + 8];
    int fd;

    snprintf(lp, sizeof(lp), "%s.lock", path);
    fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        fprintf(errf, "rtvd run: motion.control %s: its lock file %s: %s\n", path, lp,
                strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB)) {
        if (errno == EWOULDBLOCK)
            fprintf(errf,
                    "rtvd run: motion.control %s: in use: another rtvd run holds its lock %s\n",
                    path, lp);
        else
            fprintf(errf, "rtvd run: motion.control %s: lock %s: %s\n", path, lp, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

int app_opc_open(const char *path, struct app_opc_file *f, FILE *errf)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    struct stat st;
    mode_t old;
    int fd, rc;

    f->lock_fd = -1;
    if (path[0] != '/' || strlen(path) >= sizeof(a.sun_path)) {
        fprintf(errf,
                "rtvd run: motion.control '%s': an absolute path of at most %zu bytes (a Unix "
                "socket's limit; this one has %zu)\n",
                path, sizeof(a.sun_path) - 1, strlen(path));
        return -1;
    }
    memcpy(a.sun_path, path, strlen(path) + 1);
    if ((f->lock_fd = opc_lock(path, errf)) < 0)
        return -1;
    if (lstat(path, &st) == 0) {
        int probe;

        if (!S_ISSOCK(st.st_mode)) {
            fprintf(errf, "rtvd run: motion.control %s: exists and is not a socket\n", path);
            goto fail;
        }
        /* a socket: someone's (not an rtvd run: that would hold the lock; refused) or stale (a
         * run that died: removed) */
        probe = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (probe < 0)
            goto fail;
        rc = connect(probe, (struct sockaddr *)&a, sizeof(a));
        if (rc == 0 || errno != ECONNREFUSED) {
            fprintf(errf, "rtvd run: motion.control %s: %s\n", path,
                    rc == 0 ? "in use (bound by another process)" : strerror(errno));
            close(probe);
            goto fail;
        }
        close(probe);
        if (unlink(path)) {
            fprintf(errf, "rtvd run: motion.control %s: stale socket: %s\n", path, strerror(errno));
            goto fail;
        }
    }
    fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        fprintf(errf, "rtvd run: motion.control: socket: %s\n", strerror(errno));
        goto fail;
    }
    /* created 0600 by the umask at bind (no moment with wider permissions; the threads that
     * could create files concurrently are not started yet). No chmod after it: a chmod by path
     * follows a link put there in between; the lstat checks what bind made instead */
    old = umask(0177);
    rc = bind(fd, (struct sockaddr *)&a, sizeof(a));
    umask(old);
    if (rc || lstat(path, &st)) {
        fprintf(errf, "rtvd run: motion.control %s: %s\n", path, strerror(errno));
        close(fd);
        goto fail;
    }
    if (!S_ISSOCK(st.st_mode) || (st.st_mode & 07777) != 0600 || st.st_uid != geteuid()) {
        fprintf(errf,
                "rtvd run: motion.control %s: not the socket bound (mode %o, uid %u; a socket "
                "of mode 600 owned by uid %u expected)\n",
                path, (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid, (unsigned)geteuid());
        close(fd);
        goto fail;
    }
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    return fd;
fail:
    close(f->lock_fd);
    f->lock_fd = -1;
    return -1;
}

void app_opc_close(int fd, const char *path, struct app_opc_file *f)
{
    struct stat st;

    if (fd < 0)
        return;
    close(fd);
    if (lstat(path, &st) == 0 && st.st_dev == f->dev && st.st_ino == f->ino)
        unlink(path);
    if (f->lock_fd >= 0) /* the lock file stays (see app_opc_open) */
        close(f->lock_fd);
    f->lock_fd = -1;
}

/* --- the motion thread's part: no allocation, no stdio ----------------------------------- */

struct txt {
    char *p;
    size_t n, cap;
};

/* s appended; with name, its spaces as '_' (one token) */
static void put_(struct txt *t, const char *s, bool name)
{
    for (; *s && t->n + 1 < t->cap; s++)
        t->p[t->n++] = name && *s == ' ' ? '_' : *s;
    t->p[t->n] = 0;
}
static void put(struct txt *t, const char *s)
{
    put_(t, s, false);
}
static void kv(struct txt *t, const char *key, const char *val)
{
    if (t->n + 1 < t->cap)
        t->p[t->n++] = ' ';
    for (; *key && t->n + 1 < t->cap; key++)
        t->p[t->n++] = *key;
    put_(t, val[0] ? val : "-", true);
}
static void kvu(struct txt *t, const char *key, uint64_t v)
{
    char d[24];
    int i = (int)sizeof(d) - 1;

    d[i] = 0;
    do {
        d[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v && i > 0);
    kv(t, key, d + i);
}

static bool hb_lost(const struct app_motionlink *k, int64_t slot)
{
    return k->cfg.heartbeat_s > 0 && (double)(slot - k->last_hb_ns) * 1e-9 > k->cfg.heartbeat_s;
}

static bool parked(const struct app_motionlink *k)
{
    return (k->sm.state == VD_MST_PARKED || k->sm.state == VD_MST_FAULT) && !k->sm.fade.moving;
}

/* moog_mda watched: a status received after the feed's park completed reports the MBC in
 * STANDBY or IDLE (ready to engage). The last status alone is not enough: the one cached when
 * the park ended may predate the DISENGAGE (still ENGAGED), and an MBC settles before STANDBY.
 * After a PARK that cancelled an ENGAGE already sent (op_hold), not before engage_timeout_s has
 * passed: a lagging status can say STANDBY while the MBC has engaged on that ENGAGE */
static bool settled(const struct app_motionlink *k)
{
    return !k->op_hold && k->ms_any && k->st_ok > k->parked_st &&
           (k->ms.machine_state == VD_MOOG_STANDBY || k->ms.machine_state == VD_MOOG_IDLE);
}

/* the decision: APP_OPW_OK (and done) or why not */
static int decide(struct app_motionlink *k, int cmd, int64_t slot)
{
    const bool watched = k->handshake; /* moog_mda with the MBC's status read */

    if (cmd == APP_OPC_STATUS)
        return APP_OPW_OK;
    if (k->final_seen)
        return APP_OPW_RUN_ENDED;
    switch (cmd) {
    case APP_OPC_PARK:
        if (k->op_engage) {
            /* the operator's ENGAGE still waiting for ENGAGED: it ends (counted as an ENGAGE
             * aborted; the feed never left its park, so this is no operator park) */
            k->op_engage = false;
            k->op_engage_aborted++;
            k->parked_st = k->st_ok; /* the MBC may have engaged meanwhile: STANDBY again first */
            if (k->op_engage_st0 != UINT64_MAX) { /* an ENGAGE went out: see op_hold */
                k->op_hold = true;
                k->op_hold_t0 = slot;
            }
            return APP_OPW_OK;
        }
        {
            const bool starting = k->handshake && k->sm.state == VD_MST_OFF && k->engage_tries > 0;

            if (!vd_motion_sm_park(&k->sm))
                return APP_OPW_NOT_ENGAGED;
            k->op_parks++;
            if (starting) {
                /* the start-up handshake's ENGAGE went out: the MBC may have engaged on it
                 * while a lagging status says STANDBY; the same hold as a cancelled operator's
                 * ENGAGE (op_hold) */
                k->parked_st = k->st_ok;
                k->op_hold = true;
                k->op_hold_t0 = slot;
            }
        }
        return APP_OPW_OK;
    case APP_OPC_RESET:
        if (!watched)
            return APP_OPW_NO_PLATFORM;
        if (!parked(k))
            return APP_OPW_NOT_PARKED;
        if (k->op_reset || k->op_engage)
            return APP_OPW_BUSY;
        if (!k->platform_fault && !(k->ms_any && vd_moog_status_fault(&k->ms)))
            return APP_OPW_NO_FAULT;
        k->op_reset = true;
        k->op_reset_t0 = slot;
        k->op_reset_tries0 = k->op_reset_tries; /* its datagrams: those after */
        return APP_OPW_OK;
    case APP_OPC_ENGAGE:
        if (!parked(k))
            return APP_OPW_NOT_PARKED;
        if (k->op_reset || k->op_engage)
            return APP_OPW_BUSY;
        if (k->frozen || !k->any_cycle || (double)(slot - k->last_fresh_ns) * 1e-9 > k->cfg.stale_s)
            return APP_OPW_LOOP;
        /* a watched heartbeat that never came is no heartbeat */
        if (k->cfg.heartbeat_s > 0 && (k->heartbeats == 0 || hb_lost(k, slot)))
            return APP_OPW_HEARTBEAT;
        if (watched) {
            if (!k->ms_any)
                return APP_OPW_NO_PLATFORM;
            if (k->platform_fault || vd_moog_status_fault(&k->ms))
                return APP_OPW_FAULT;
            if (!settled(k))
                return APP_OPW_SETTLING;
            /* the handshake: ENGAGE with neutral cues until the MBC reports ENGAGED (send_one) */
            k->op_engage = true;
            k->op_engage_t0 = slot;
            k->op_engage_st0 = UINT64_MAX; /* set at its first ENGAGE datagram (send_one) */
            k->engage_timed_out = false;   /* a new handshake */
            return APP_OPW_OK;
        }
        k->engage_timed_out = false;
        if (!vd_motion_sm_engage(&k->sm))
            return APP_OPW_NOT_PARKED;
        k->op_reengages++;
        return APP_OPW_OK;
    default:
        return APP_OPW_UNKNOWN;
    }
}

static void reply(struct app_motionlink *k, int cmd, int why, const struct sockaddr_un *to,
                  socklen_t tolen, int64_t slot)
{
    struct txt t = {k->ctl_tx, 0, sizeof(k->ctl_tx)};
    const double fade = k->sm.fade.s;

    put(&t, why == APP_OPW_OK ? "ACCEPTED " : "REFUSED ");
    put(&t, cmd < APP_OPC_OTHER ? cmd_word[cmd] : "-");
    kv(&t, "why=", app_opc_why_name[why]);
    kv(&t, "state=", vd_motion_state_name[k->sm.state]);
    kv(&t, "reason=", vd_motion_reason_name[k->sm.reason]);
    kvu(&t, "fade_pct=", (uint64_t)(fade <= 0 ? 0 : fade >= 1 ? 100 : fade * 100.0 + 0.5));
    kv(&t, "pending=", k->op_reset ? "reset" : k->op_engage ? "engage" : "none");
    kv(&t, "platform=", k->handshake && k->ms_any ? vd_moog_state_name(k->ms.machine_state) : "-");
    kv(&t, "settled=", !k->handshake ? "-" : settled(k) ? "yes" : "no");
    kvu(&t, "latched=", k->platform_fault);
    kv(&t, "heartbeat=", k->cfg.heartbeat_s > 0 ? (hb_lost(k, slot) ? "lost" : "ok") : "-");
    kvu(&t, "parks=", k->op_parks);
    kvu(&t, "reengages=", k->op_reengages);
    kvu(&t, "resets_acked=", k->op_resets_acked);
    kvu(&t, "resets_failed=", k->op_resets_failed);
    kvu(&t, "engage_timeouts=", k->op_engage_timeouts);
    put(&t, "\n");
    /* a sender without an address (not bound) gets nothing: counted */
    if (tolen <= (socklen_t)offsetof(struct sockaddr_un, sun_path) ||
        sendto(k->ctl_fd, t.p, t.n, MSG_DONTWAIT | MSG_NOSIGNAL, (const struct sockaddr *)to,
               tolen) != (ssize_t)t.n)
        k->op_reply_errors++;
}

void app_motion_control(struct app_motionlink *k, int64_t slot)
{
    if (k->ctl_fd < 0)
        return;
    for (int i = 0; i < 8; i++) {
        struct sockaddr_un from;
        socklen_t fl = sizeof(from);
        const ssize_t n = recvfrom(k->ctl_fd, k->ctl_rx, sizeof(k->ctl_rx), MSG_DONTWAIT,
                                   (struct sockaddr *)&from, &fl);
        int cmd, why;

        if (n < 0)
            break; /* EAGAIN: drained (other errors: the next slot tries again) */
        why = app_opc_parse(k->ctl_rx, (size_t)n, &cmd);
        if (why == APP_OPW_OK)
            why = decide(k, cmd, slot);
        if (why == APP_OPW_OK && (cmd == APP_OPC_ENGAGE || cmd == APP_OPC_RESET))
            /* not parked for good from here: the end of the run waits for the park again
             * (the next send recomputes it) */
            atomic_store_explicit(&k->done, false, memory_order_release);
        k->op_cmd[cmd][why != APP_OPW_OK]++;
        if (why != APP_OPW_OK)
            k->op_why[why]++;
        reply(k, cmd, why, &from, fl, slot);
    }
}
