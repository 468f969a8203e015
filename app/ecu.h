/* app/ecu.h - the virtual ECU: the other end of rtvd's CAN bus, from the same mapping file
 * read mirrored (role ecu: it receives the target's tx messages and sends its rx messages,
 * with the same DBC, cycle times, phases and E2E). `rtvd ecu` runs it as a process of its
 * own (app/cmd_ecu.c); `rtvd run` can run it in-process as a thread (run file can.ecu).
 *
 * The controller (per 1 ms slot, from the received signals only, in the ECU's own time since
 * its start):
 *   - speed: PI on the vehicle speed (imu.lvx or chassis.vx received, else the mean wheel
 *     speed x wheel_radius) to a target speed schedule, as per-wheel drive torques on the
 *     drive inputs and brake torques on the brake inputs (the scenario driver's law: below
 *     hold_speed with a zero target the brakes rise to max_brake and hold); without a valid
 *     speed: no drive torque, full brakes;
 *   - path: pure pursuit on the position dead-reckoned from the speed and the yaw rate
 *     (imu.wz or chassis.wz), from the start pose, along the path points, into the
 *     steering-wheel angle (steering ratio, wheelbase, look-ahead = max(preview_min,
 *     preview_time x speed));
 *   - EPS (when the mapping sends steering.eps_torque and receives steering.torsion_bar.mx):
 *     assist = gain x v0 / (v0 + |v|) x driver torque (the torsion-bar torque with ISO sign),
 *     low-pass filtered (tau) against the torsion-bar resonance, limited to eps_max;
 *   - fixed values (`set`) replace any command.
 * Fault injection on a schedule of windows (ECU time; a window ends after its duration or its
 * count of events): the io/canmap.h faults (silent, bad CRC, stale or jumping counters,
 * out-of-range and NaN values, wrong length) on a message, and raw injection: bursts (each
 * frame sent factor times), floods (the message at factor x its rate: stale copies of its
 * last frame in between, which E2E receivers see as REPEATED), frames with identifiers no
 * one receives, and malformed cannelloni datagrams (udp: too short, bad version, bad op code)
 * sent from the bus's own socket. Every injected event is counted per fault entry.
 *
 * The controller is in app/ecu.c (its pure pursuit and speed schedule are core/driver.h's),
 * the fault injection in app/ecu_fault.c, the thread is the slot thread of app/slots.h.
 *
 * Threads: app_ecu_new/start/stop/free and the reports at init/exit (allocate, print); the
 * ECU thread: no allocation, no stdio, poll() on its buses and a 1 ms timerfd. */
#ifndef VD_APP_ECU_H
#define VD_APP_ECU_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "app/canlink.h"
#include "app/slots.h"
#include "config/run_yaml.h"
#include "core/driver.h"

#define APP_ECU_MAX_PATH  1024
#define APP_ECU_MAX_SET   16
#define APP_ECU_MAX_WHEEL 8
#define APP_ECU_NAME      64

/* one fault window; kinds: enum vd_run_fault_kind (config/run_yaml.h) */
struct app_ecu_fault {
    int kind;
    char message[APP_ECU_NAME]; /* DBC message ("" for unknown_id, bad_datagram) */
    double at;                  /* [s] ECU time */
    double duration;            /* [s] < 0: none */
    int64_t count;              /* [events] 0: none */
    int factor;
    const char *file; /* where it was written, for errors (NULL: the command line) */
    int line, col;
    /* resolved / state (the ECU thread's) */
    int msg; /* map message index, -1: none */
    bool active, done;
    uint64_t injected;   /* events: frames faulted, suppressed, burst; copies; datagrams */
    uint64_t frames;     /* extra frames or datagrams sent for it (burst, flood, ids, datagrams) */
    uint64_t nan_values; /* nan: signal values sent as NaN (float signals) */
    uint64_t invalid_values; /* nan: ... as the DBC's invalid-value pattern (integer signals) */
    uint64_t range_values;   /* out_of_range: signal values sent outside their range */
    double t_on, t_off;      /* [s] ECU time it was active (t_off < 0: still) */
};

/* the controller's settings */
struct app_ecu_ctl {
    int nv; /* target speed [m/s] over ECU time [s], linear, held outside */
    double vt[VD_RUN_MAX_SPEED], vv[VD_RUN_MAX_SPEED];
    double kp, ki;      /* [N m per m/s], [N m per m] per wheel */
    double max_drive;   /* [N m] per driven wheel */
    double max_brake;   /* [N m] per braked wheel */
    double hold_speed;  /* [m/s] */
    int ndrive, nbrake; /* inputs driven (names) */
    char drive[APP_ECU_MAX_WHEEL][APP_ECU_NAME], brake[APP_ECU_MAX_WHEEL][APP_ECU_NAME];
    char steer[APP_ECU_NAME]; /* steering-wheel angle input; "": none */
    int npath;
    double px[APP_ECU_MAX_PATH], py[APP_ECU_MAX_PATH]; /* [m] path points */
    double steer_ratio, wheelbase, preview_time, preview_min, max_steer;
    double x0, y0, psi0; /* [m, m, rad] start pose of the dead reckoning */
    double wheel_radius; /* [m] speed from wheel spin when no speed signal is mapped */
    double eps_gain;     /* [-] assist per driver torque at standstill; 0: off */
    double eps_v0;       /* [m/s] assist halves at this speed */
    double eps_max;      /* [N m] */
    double eps_tau;      /* [s] low-pass time constant */
};

struct app_ecu_cfg {
    int port;        /* udp port override (app_can_side_load); 0: the mapping's */
    int priority;    /* SCHED_FIFO of the ECU thread; 0: SCHED_OTHER */
    int cpu;         /* -1: not pinned */
    bool strict_dbc; /* --strict: the DBCs' defects that keep the meaning are errors */
    struct app_ecu_ctl ctl;
    int nset; /* fixed commands */
    char set_name[APP_ECU_MAX_SET][APP_ECU_NAME];
    double set_value[APP_ECU_MAX_SET]; /* [model unit] */
    int nfault;
    struct app_ecu_fault fault[VD_RUN_MAX_FAULTS];
};

/* the thread's counters (its wake-ups and slots: struct app_slots_stats) */
struct app_ecu_stats {
    uint64_t rx_frames, rx_errors;
    uint64_t tx_offered, tx_sent;       /* frames given to the transport, handed to the kernel */
    uint64_t raw_datagrams, raw_errors; /* malformed datagrams sent, sendto failures */
    uint64_t no_speed_slots;            /* slots without a valid speed (fail-safe commands) */
};

struct app_ecu {
    struct app_can_side side; /* role ecu, opened */
    struct app_ecu_cfg cfg;
    /* received (the target's outputs) and sent (its inputs) table entries; -1: not mapped */
    int i_vx, i_wz, i_tb, nomega, i_omega[APP_ECU_MAX_WHEEL];
    int c_steer, c_eps, nd, nb, c_drive[APP_ECU_MAX_WHEEL], c_brake[APP_ECU_MAX_WHEEL];
    int ncmd;
    double *cmd;         /* (ncmd) commands, indexed by the map's input names */
    uint8_t *fix;        /* (ncmd) set by cfg.set */
    struct vd_driver pp; /* speed schedule and pure pursuit (path, steering geometry) */
    struct vd_can_frame *rxbuf, *txbuf; /* (APP_CAN_RXMAX), (APP_CAN_TXMAX) */
    struct vd_can_frame *last;          /* (nmsg) last frame sent per message */
    uint8_t *has_last;                  /* (nmsg) */
    unsigned *bits;                     /* (nmsg) canmap fault bits set now */
    struct sockaddr_storage remote[APP_CAN_MAX_BUS];
    socklen_t remote_len[APP_CAN_MAX_BUS];
    uint32_t unknown_ids[4]; /* standard ids no message uses on bus 0, then extended */
    /* controller state */
    double integ, x, y, psi, eps_f, v, v_target;
    bool have_pose;
    uint64_t garbage_seq;
    struct app_ecu_stats st;
    struct app_slots slots; /* the ECU thread (app/slots.h), slot 0 at ECU time 0 */
};

/* init-time */
/* controller defaults: 0 -> 10 m/s from 1 s to 6 s, straight along x from the origin,
 * passenger-car gains, EPS gain 1 */
void app_ecu_ctl_default(struct app_ecu_ctl *c);
void app_ecu_cfg_default(struct app_ecu_cfg *c);
/* the controller from a scenario's driver (speed schedule, gains, drive/brake/steering
 * inputs, path, steering geometry) and its vehicle's start pose; 0, or -E2BIG with a message
 * on errf when the schedule or the path is longer than the controller's tables */
int app_ecu_ctl_from_scenario(struct app_ecu_ctl *c, const struct vd_scenario *s, FILE *errf);
/* the run file's can.ecu settings (speed, eps_gain, faults; file: the run file's name) */
void app_ecu_cfg_from_run(struct app_ecu_cfg *c, const struct vd_run_can *rc, const char *file);
/* parse a --fault spec KIND[:MESSAGE][@AT][+DURATION|xCOUNT][*FACTOR] into f; 0 or -1 */
int app_ecu_parse_fault(const char *spec, struct app_ecu_fault *f);
/* load the mapping for role ecu, open its buses, resolve names and faults (errors located
 * in the mapping or the run file). 0 or -1 */
int app_ecu_init(struct app_ecu *e, const char *mapping, const struct app_ecu_cfg *cfg, FILE *errf);
/* start the thread: ECU time 0 and the map's timeouts from t_start [ns, CLOCK_MONOTONIC]
 * (e.g. the loop's first release); 0 or -errno */
int app_ecu_start(struct app_ecu *e, int64_t t_start);
void app_ecu_quiesce(struct app_ecu *e); /* no more RX timeout checks */
void app_ecu_stop(struct app_ecu *e);    /* the thread drains its sockets and exits */
void app_ecu_free(struct app_ecu *e);

/* exit-time */
void app_ecu_json(const struct app_ecu *e, FILE *f);
/* counters as text lines starting with indent */
void app_ecu_summary(const struct app_ecu *e, FILE *f, const char *indent);

#endif /* VD_APP_ECU_H */
