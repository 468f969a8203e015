/* app/canlink.h - the CAN I/O of `rtvd run` (the target end) and the pieces it shares with
 * the virtual ECU (app/ecu.h): a mapping file (config/can_map.h) loaded for a role, resolved
 * into the runtime map (io/canmap.h) and its buses opened (io/can.h) with each bus's
 * settings copied from the mapping; and the CAN thread that glues the transports and the
 * mapping to the loop's mailboxes (rt/loop.h). config/ and io/ may not include each other,
 * so this glue lives in app/.
 *
 * The CAN thread (one for all buses of a mapping; its life cycle and loop are the slot thread
 * of app/slots.h, which the virtual ECU uses too): SCHED_FIFO at its own priority below the
 * loop's (best effort without privileges, like the loop), optionally pinned. It sleeps in
 * poll() on the bus sockets and a timerfd that ticks every 1 ms on an absolute
 * CLOCK_MONOTONIC grid (slot s at t0 + s ms; t0 = the loop's first release + tx_offset_ns,
 * so that a slot sees the outputs of the cycle released just before it). Never spins.
 *   - frames received -> vd_canmap_rx -> the loop's input snapshot (per model input a value
 *     and a valid flag; the mapped inputs are valid with their value, or their safe value on
 *     timeout or a rejected value; unmapped inputs stay with the scenario), published after
 *     every batch and every slot;
 *   - every slot: RX timeouts (vd_canmap_rx_check_timeouts), then the frames due in that slot
 *     (vd_canmap_tx_due, phases from the mapping) from the newest output snapshot (a tap of
 *     the loop), sent with vd_can_send_many; slots the thread woke up too late for are
 *     served late (counted) up to APP_CAN_CATCHUP of them, the rest skipped (counted);
 *   - every 5 slots vd_can_service on each bus; every 10 slots a struct vd_tm_can status for
 *     the telemetry thread (rt/telemetry.h).
 * The loop never touches a socket: it only reads the input mailbox and writes its outputs.
 *
 * Init/exit (may allocate, print): app_can_side_*, app_canlink_new/start/stop/free and the
 * reports. The thread: no allocation, no stdio, non-blocking syscalls and poll(). Counters
 * belong to the thread until app_canlink_stop; the status mailbox may be read meanwhile. */
#ifndef VD_APP_CANLINK_H
#define VD_APP_CANLINK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "config/can_map.h"
#include "config/run_yaml.h"
#include "io/can.h"
#include "io/canmap.h"
#include "io/dbc.h"
#include "rt/loop.h"
#include "rt/mailbox.h"
#include "rt/sched.h"
#include "app/slots.h"
#include "rt/telemetry.h"

#define APP_CAN_MAX_BUS 8
#define APP_CAN_RXMAX   64                /* frames per vd_can_recv call */
#define APP_CAN_TXMAX   256               /* frames per slot and bus */
#define APP_CAN_CATCHUP APP_SLOTS_CATCHUP /* late slots served per wake-up (app/slots.h) */
#define APP_CAN_MS      APP_SLOTS_MS      /* [ns] a slot */

/* a mapping loaded for one role: the config, its DBCs, the map and the buses */
struct app_can_side {
    struct vd_candesc *cfg;
    struct vd_dbc *dbc[APP_CAN_MAX_BUS];
    struct vd_canmap *map;
    int role; /* enum vd_canmap_role */
    int nbus;
    struct vd_can_cfg bcfg[APP_CAN_MAX_BUS]; /* as opened */
    struct vd_can_bus *bus[APP_CAN_MAX_BUS];
};

/* init-time (may allocate, print) */
/* load the mapping at path for role (enum vd_canmap_role), parse its DBCs and resolve the
 * map (both sides bound to the mapping's own names); port > 0 replaces the ports of every
 * udp bus (bus i: the target binds port + 2i and sends to port + 2i + 1, the ECU the
 * reverse). 0 or -1 with located diagnostics on errf. */
int app_can_side_load(struct app_can_side *s, const char *path, int role, int port, FILE *errf);
/* the same with flags: APP_CAN_STRICT_DBC reads the DBCs strictly whatever the mapping's
 * strict_dbc says (`--strict`: their defects that keep the meaning are errors, io/dbc.h) */
#define APP_CAN_STRICT_DBC 1u
int app_can_side_load_opts(struct app_can_side *s, const char *path, int role, int port,
                           unsigned flags, FILE *errf);
/* open every bus (settings: the mapping's over the transport's defaults); 0 or -1 */
int app_can_side_open(struct app_can_side *s, FILE *errf);
/* close the buses, free the map, DBCs and config; s zeroed */
void app_can_side_free(struct app_can_side *s);
/* a bus of the mapping as a transport configuration (defaults for what it does not say) */
void app_can_bus_cfg(const struct vd_candesc_bus *b, struct vd_can_cfg *out);
/* the output signals the side's map sends (the target's tx signals), appended to the run's
 * output list (c->out_sig, c->out_name, c->noutput) unless already there; 0 or -1 (a located
 * error for a name that is not a signal of the model) */
int app_can_add_outputs(struct vd_run_cfg *c, const struct app_can_side *s, FILE *errf);
/* messages of the side's map this role sends (sent true) or receives */
int app_can_nmsg(const struct app_can_side *s, bool sent);
/* print "file:line:col: error: " for an entry of the mapping file */
void app_can_locate(FILE *errf, const struct vd_candesc *c, int line, int col);

struct app_canlink_cfg {
    int priority;         /* SCHED_FIFO 1..99; 0: SCHED_OTHER */
    int cpu;              /* -1: not pinned */
    int tap;              /* the loop's output tap the thread reads */
    int64_t tx_offset_ns; /* [ns] slot grid = first release + this (mod 1 ms) */
};

/* the thread's counters (its wake-ups and slots: struct app_slots_stats) */
struct app_canlink_stats {
    uint64_t tx_no_output;     /* slots before the loop's first output snapshot: nothing sent */
    uint64_t outputs_taken;    /* fresh output snapshots read */
    uint64_t inputs_published; /* input snapshots published to the loop */
    uint64_t rx_frames;        /* frames received from the transports */
    uint64_t rx_batches;       /* vd_can_recv calls that returned frames */
    uint64_t rx_errors;        /* vd_can_recv errors */
    uint64_t tx_offered;       /* frames given to vd_can_send_many */
    uint64_t tx_sent;          /* ... handed to the kernel */
    uint64_t services;         /* vd_can_service calls */
    uint64_t status_published; /* struct vd_tm_can published */
};

/* the last frame of each message sent: from which output snapshot, with which values */
struct app_canlink_txlast {
    bool any;
    uint64_t cycle; /* output snapshot's cycle */
    double t;       /* [s] its model time */
    uint64_t slot;
    double *value; /* (nout) the snapshot's values */
};

struct app_canlink {
    struct app_can_side *side; /* borrowed; opened */
    struct vd_loop *L;
    struct app_canlink_cfg cfg;
    const struct vd_model *m;
    int nout;
    const char *const *out_names;      /* (nout) borrowed: the loop's signal names */
    struct vd_can_frame *rxbuf;        /* (APP_CAN_RXMAX) */
    struct vd_can_frame *txbuf;        /* (APP_CAN_TXMAX) */
    struct app_canlink_txlast *txlast; /* (nmsg) */
    struct vd_mailbox tm;              /* struct vd_tm_can -> telemetry */
    struct app_slots slots;            /* the thread (slot 0 = first release + tx_offset_ns) */
    const struct vd_snapshot *out;     /* the thread's newest output snapshot, NULL: none yet */
    bool rx_any;                       /* frames received in this pass */
    struct app_canlink_stats st;
};

/* bind the map's sides to the model's inputs (model order) and the loop's output names,
 * allocate and touch every buffer, and publish a first input snapshot (every mapped input
 * valid at its safe value) so that the loop's warm-up and first cycles see it. The side
 * must be opened; L initialized (not started). 0 or -1 (located errors on errf) */
int app_canlink_init(struct app_canlink *k, struct app_can_side *side, struct vd_loop *L,
                     const struct vd_model *m, const char *const *out_names, int nout,
                     const struct app_canlink_cfg *cfg, FILE *errf);
/* start the thread: the map's state starts now, the slot grid at first_release +
 * tx_offset_ns. 0 or -errno */
int app_canlink_start(struct app_canlink *k, int64_t first_release);
/* end of run: no more RX timeout checks (so that stopping the other end is not a fault) */
void app_canlink_quiesce(struct app_canlink *k);
/* stop: the thread drains what the sockets hold, publishes a last status and exits */
void app_canlink_stop(struct app_canlink *k);
void app_canlink_free(struct app_canlink *k);

/* exit-time reports */
/* the link as one JSON object (no trailing newline): thread, counters, buses with every
 * transport counter, the map (vd_canmap_report_json), the mapped inputs with their status,
 * and the last frame of each sent message with the output values it carried */
void app_canlink_json(const struct app_canlink *k, FILE *f);
/* summary lines for the end of `rtvd run`, each starting with indent */
void app_canlink_summary(const struct app_canlink *k, FILE *f, const char *indent);

/* the buses of a side with every transport counter, as a JSON array */
void app_can_buses_json(const struct app_can_side *s, FILE *f);

/* any thread: a struct vd_tm_can from a side's counters (RX counters of the map belong to
 * its receiving thread: call there or after it stopped) */
void app_can_tm_fill(const struct app_can_side *s, struct vd_tm_can *tm);

#endif /* VD_APP_CANLINK_H */
