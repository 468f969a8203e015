/* app/motionctl.h - the operator's control channel into `rtvd run`'s motion feed: PARK, RESET,
 * ENGAGE (and STATUS) during a running session, the model, the CAN bus and the ECUs running on.
 *
 * The channel is local and opt-in (commanding a platform to move is a safety matter): a Unix
 * datagram socket at the path the run file names (motion.control, an absolute path; absent or
 * off: no channel), created mode 0600 (only the user rtvd runs as, and root, may command the
 * platform; the directory it lives in is the second gate: deploy/ gives the service its own
 * RuntimeDirectory), refused if the path is anything but a stale socket of a run that died,
 * removed at exit. The motion thread (app/motionlink.h) drains it with non-blocking calls in
 * every slot, beside the platform's status; the loop never touches it.
 *
 * Requests (one datagram, ASCII, 1..32 bytes): a command word, case-insensitive, optionally
 * followed by one "\n": PARK, RESET, ENGAGE, STATUS. Anything else is refused: bytes other
 * than letters, empty or longer ("malformed"), a word that is no command ("unknown").
 * Every request gets one reply datagram (to a sender with an address: `rtvd control` binds an
 * abstract one) of one ASCII line:
 *   ACCEPTED|REFUSED <CMD> why=<key> state=<feed state> reason=<why it parked> fade_pct=<0..100>
 *   pending=none|reset|engage platform=<MBC state>|- latched=0|1 heartbeat=ok|lost|-
 *   parks=<n> reengages=<n> resets_acked=<n> resets_failed=<n> engage_timeouts=<n>\n
 * (spaces in names as '_'; <CMD> "-" when malformed); why is "-" when accepted, else one of
 * app_opc_why_name. The counters are the operator's (parks commanded, engagements after
 * the first, RESETs acknowledged or not within APP_MOTION_RESET_S, ENGAGEs the platform did not
 * answer in engage_timeout_s) so a client sees what came of its command.
 *
 * Semantics (io/MOTION_DATAGRAMS.md "The operator's control channel"; the decisions are
 * app_motion_control's, app/motionctl.c):
 *   PARK    engaging or engaged: the feed's park (quintic fade to neutral, bounded jerk), then
 *           parked with reason "operator park" (Moog: DISENGAGE); while the engage handshake
 *           waits (off, or an operator's ENGAGE pending): the wait ends, parked. Else refused.
 *   RESET   moog_mda with the MBC's status watched (heartbeat_s > 0) only; parked or in fault,
 *           the fade over, nothing pending: RESET with neutral cues until the MBC reports no
 *           fault (then rtvd's latch clears), at most APP_MOTION_RESET_S (then the fault stays
 *           latched, counted). Other formats: refused "no_platform" (no platform faults).
 *   ENGAGE  parked or in fault, the fade over, nothing pending, the loop running (not frozen,
 *           not silent, not ended), the heartbeat (if watched) seen; moog_mda with the status
 *           watched also: the MBC's status known, reporting no fault, and rtvd's fault latch
 *           cleared by a RESET: then the engage handshake (ENGAGE with neutral cues until the
 *           MBC reports ENGAGED, at most engage_timeout_s: else "engage timeout", latched)
 *           and the fade-in; other formats (and moog_mda unwatched): the fade-in at once.
 *   STATUS  always accepted; acts on nothing.
 * rtvd itself still never resets or re-engages: only these commands do.
 *
 * This file: the protocol (parse, the names) and the socket (init/exit: may allocate,
 * print); app_motion_control is the motion thread's (no allocation, no stdio, non-blocking
 * calls only). */
#ifndef VD_APP_MOTIONCTL_H
#define VD_APP_MOTIONCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

enum app_opc_cmd {
    APP_OPC_PARK = 0,
    APP_OPC_RESET,
    APP_OPC_ENGAGE,
    APP_OPC_STATUS,
    APP_OPC_OTHER,
    APP_OPC_N
};
/* why a command was refused (APP_OPW_OK: accepted) */
enum app_opc_why {
    APP_OPW_OK = 0,
    APP_OPW_MALFORMED,   /* not 1..32 letters (+ one "\n") */
    APP_OPW_UNKNOWN,     /* a word that is no command */
    APP_OPW_NOT_ENGAGED, /* PARK: not engaging, engaged or waiting to engage */
    APP_OPW_NOT_PARKED,  /* RESET, ENGAGE: not parked or in fault, or still fading */
    APP_OPW_BUSY,        /* RESET, ENGAGE: a RESET or an ENGAGE is pending */
    APP_OPW_NO_PLATFORM, /* RESET: no platform status read (not moog_mda, or heartbeat_s 0);
                          * ENGAGE (moog_mda watched): no MBC status received yet */
    APP_OPW_FAULT,       /* ENGAGE: the MBC reports a fault, or rtvd's latch wants a RESET */
    APP_OPW_RUN_ENDED,   /* the loop has stopped: the feed parks for good */
    APP_OPW_LOOP,        /* ENGAGE: the model frozen or its output silent */
    APP_OPW_HEARTBEAT,   /* ENGAGE: the platform's heartbeat is lost, or never came */
    APP_OPW_SETTLING,    /* ENGAGE (moog_mda watched): no status since the park completed has
                          * reported the MBC in STANDBY (it may still be ENGAGED or SETTLING) */
    APP_OPW_NO_FAULT,    /* RESET: neither the MBC nor rtvd's latch holds a fault */
    APP_OPW_N
};
extern const char *const app_opc_cmd_name[APP_OPC_N]; /* "park", ... "other" */
extern const char *const app_opc_why_name[APP_OPW_N]; /* "-", "malformed", ... */

#define APP_OPC_REQ_MAX   32  /* [bytes] a request, at most */
#define APP_OPC_REPLY_MAX 320 /* [bytes] a reply, at most */

/* a request datagram: APP_OPW_OK with *cmd, or APP_OPW_MALFORMED / APP_OPW_UNKNOWN (then *cmd
 * APP_OPC_OTHER). RT-safe */
int app_opc_parse(const uint8_t *buf, size_t len, int *cmd);

/* the socket file's identity and the lock that makes it this run's (app_opc_open) */
struct app_opc_file {
    dev_t dev;
    ino_t ino;
    int lock_fd; /* PATH.lock, flock()ed exclusively while the socket is ours; -1 none */
};
/* the socket at path (mode 0600, non-blocking). First PATH.lock (a regular file, 0600, created
 * if need be and never removed: removing a lock file races with a run that has it open) is
 * locked with flock(LOCK_EX | LOCK_NB): a second run on the same path fails here, whatever the
 * timing. Then a stale socket (nobody bound) is replaced, anything else at path refused; the
 * socket is bound with umask 0177 (created 0600, nothing follows a link) and checked with
 * lstat: a socket, mode 0600, our euid. The fd, or -1 with a message on errf */
int app_opc_open(const char *path, struct app_opc_file *f, FILE *errf);
/* close fd, remove path if it is still the file app_opc_open created, release the lock */
void app_opc_close(int fd, const char *path, struct app_opc_file *f);

struct app_motionlink;
/* the motion thread, every slot (slot: its time [ns]): drain the control socket (at most 8
 * requests), decide, act on the state machine, reply, count */
void app_motion_control(struct app_motionlink *k, int64_t slot);

#endif /* VD_APP_MOTIONCTL_H */
