/* config/run_yaml.h - run configuration of `rtvd run` / `rtvd check`: which scenario (or bare
 * model) to run in real time, for how long, which signals to publish, and how the loop, its
 * telemetry and its reports are set up. The loader also loads the scenario or model and
 * resolves the output signals, so every mistake is reported against the run file with a
 * located error. Owns the loaded scenario or model, its input signals and the resolved
 * output list.
 * init only: allocates, reads files, prints diagnostics.
 *
 * Schema (all keys optional; unknown keys, duplicates, wrong types and values out of range
 * are errors, reported as  run.yaml:LINE:COL: error: PATH: MESSAGE  with a caret):
 *
 *   scenario: ../scenarios/hil_default.yaml   # a scenario file (config/scenario.h),
 *                          # relative to this file: its vehicle, road, initial state (statics
 *                          # first unless it says otherwise), input signals and driver
 *   model: ../models/quarter_car.yaml   # or a bare model file, driven by its own input
 *                          # signals; at most one of scenario and model; neither: the
 *                          # caller's default (rtvd: <embedded>/config/scenarios/hil_default.yaml)
 *   duration: 10           # [s] >= 0, run length from the first release; 0: until SIGINT/TERM;
 *                          # omitted: the scenario's duration, else 0
 *   outputs: [chassis.z, strut.force]   # signals of the output snapshot (core/signal.h
 *                          # names); omitted: the scenario's outputs, else x y z az ay ax of
 *                          # every body
 *   rt:
 *     period_us: 1000      # [us] 50 .. 1e6, the loop period
 *     cpu: auto            # CPU of the loop thread: an integer, auto (the highest isolated
 *                          # CPU, else the highest allowed one) or none (not pinned)
 *     priority: 80         # SCHED_FIFO priority 1..99; 0: SCHED_OTHER
 *     policy: stop         # overrun policy: stop | skip | delay | queue | allow
 *     queue_depth: 1       # queue only: pending releases tolerated, 1 .. 1e6
 *     allow:               # allow only (then required):
 *       count: 10          #   overruns tolerated, 0 .. 1e9
 *       mode: total        #   total | consecutive: what count limits
 *       then: stop         #   stop | freeze: when count is exceeded
 *       realign: skip      #   skip | delay: how an allowed overrun is recovered
 *     grace_cycles: 0      # [cycles] 0 .. 1e9, startup cycles whose overruns are tolerated
 *     histogram_us: 1000   # [us] 1 .. 1e6, histogram range (1 us buckets)
 *     lock_memory: true    # mlockall + malloc tuning
 *     dma_latency: true    # hold /dev/cpu_dma_latency at 0 us while running
 *   telemetry:
 *     udp: 127.0.0.1:9870  # status datagrams to IPv4:port (the socket binds to loopback for
 *                          # a loopback destination, else to any address); off: none
 *     rate_hz: 10          # [Hz] (0, 1000], status line and datagram rate
 *   reports:
 *     dir: out             # directory of the reports (relative to the current directory)
 *     prefix: rtvd         # file names: <prefix>-report.json, <prefix>-latency.hist,
 *                          # <prefix>-execution.hist, <prefix>-turnaround.hist
 *     trace: false         # also <prefix>-cycles.csv, one line per cycle
 *   record:                # full-rate recording (absent: none): every cycle's record and the
 *                          # chosen outputs, written by a non-RT thread (app/recording.h)
 *     file: out/rtvd-record  # file name without extension (relative to the current
 *                          # directory); default <reports.dir>/<reports.prefix>-record
 *     format: mdf4         # mdf4 | csv | both: ASAM MDF 4.10 (.mf4) and/or CSV (.csv)
 *     signals: [chassis.vx]  # signals recorded beside the cycle records (added to the
 *                          # outputs when not among them); omitted: all outputs; []: none
 *     rotate_mb: 0         # [MiB] 0 .. 1e6, a new file once one is this large; 0: never
 *     rotate_s: 0          # [s] 0 .. 1e7, a new file after this long; 0: never
 *     buffer: 16384        # [records] 16 .. 1048576, the ring between the loop and the
 *                          # writer (rounded up to a power of two): 16 s at 1 kHz
 *   can:                   # CAN I/O (absent: none): a thread beside the loop exchanges the
 *                          # mapped signals with an ECU (app/canlink.h)
 *     mapping: ../can/sedan.yaml   # required: the CAN mapping (config/can_map.h), relative
 *                          # to this file; its rx signals drive model inputs, its tx signals
 *                          # carry output signals (added to the output snapshot)
 *     role: target         # the only role of `rtvd run` (the ECU end is `rtvd ecu`)
 *     priority: 70         # SCHED_FIFO priority 1..99 of the CAN thread (below the loop's);
 *                          # 0: SCHED_OTHER
 *     cpu: none            # CPU of the CAN thread: an integer, or none (not pinned)
 *     port: 0              # udp buses: 1..65534 replaces the mapping's ports (bus i: rtvd
 *                          # binds port + 2i, the ECU port + 2i + 1); 0: the mapping's
 *     ecu:                 # the virtual ECU in-process (a thread of rtvd run, the same code
 *                          # as `rtvd ecu`), on the other end of the same bus
 *       enable: false      # run it
 *       priority: 60       # SCHED_FIFO priority of the ECU thread, 0: SCHED_OTHER
 *       speed: [[0, 0], [1, 0], [7, 15]]  # target speed [m/s] over the ECU's time [s],
 *                          # linear in between, held outside; default: the scenario
 *                          # driver's schedule, else [[0, 0], [1, 0], [6, 10]]
 *       eps_gain: 1.0      # EPS assist: torque per torsion-bar torque at standstill [-],
 *                          # 0 .. 10; 0: no assist
 *       faults:            # fault injection schedule, 0..32 entries:
 *         - fault: bad_crc # silent | bad_crc | stale_counter | jump_counter | out_of_range |
 *                          # nan | wrong_length | burst | flood | unknown_id | bad_datagram
 *           message: ECU_WheelTorques   # a message the ECU sends (required but for
 *                          # unknown_id and bad_datagram)
 *           at: 5          # [s] 0 .. 1e6, start, in the ECU's time
 *           duration: 0.5  # [s] 0 .. 1e6, window length; or
 *           count: 3       # [events] 1 .. 1e9: frames faulted (silent: suppressed; burst:
 *                          # frames burst; flood: extra copies; unknown_id: frames;
 *                          # bad_datagram: datagrams); neither: until the end
 *           factor: 10     # burst: copies of each frame, flood: rate multiple, unknown_id:
 *                          # frames per 1 ms slot, 1 .. 1000 [10, 10, 1]
 *
 *   motion:                # the motion-platform feed (absent: none; app/motionlink.h)
 *     dest: 127.0.0.1:4950 # "a.b.c.d:port", "[v6]:port" (unicast or multicast); off: none
 *     format: rtvd         # rtvd | moog_mda | outsim (io/motion.h; README "The motion feed")
 *     rate_hz: 500         # send rate: 1000 | 500 | 250 | 100
 *     decimation: lowpass  # average | lowpass (2nd-order Butterworth at rate/4, then average)
 *     mrp:                 # the motion reference point: a marker (its position, the body's
 *       marker: driver_head  # axes), or a body and a position in its reference frame with
 *       # body: chassis    # axes rotated by [roll, pitch, yaw] deg; default: the marker
 *       # position: [0, 0.4, 0.95]  # driver_head, else the chassis' CoM
 *       # axes: [0, 0, 0]
 *     engage_s: 2          # [s] 0 .. 60, fade-in from neutral
 *     park_s: 2            # [s] 0.05 .. 60, fade to neutral on a stop or a fault
 *     stale_ms: 50         # [ms] 2 .. 10000, no loop output for this long: fault
 *     heartbeat_s: 0       # [s] 0 .. 60, the platform's heartbeat timeout; 0: not watched
 *     engage_timeout_s: 20 # [s] 1 .. 600, moog_mda with heartbeat_s: the MBC must report
 *                          # ENGAGED this long after the first ENGAGE, else the feed parks
 *                          # ("engage timeout", latched)
 *     reset: never         # never | at_start: the MBC's fault reset (moog_mda with
 *                          # heartbeat_s). never: rtvd never sends RESET; at_start: faults
 *                          # the MBC reports before the first ENGAGE (latched before this
 *                          # run) are reset once before the engage handshake; a fault
 *                          # during the run is never reset (io/MOTION_DATAGRAMS.md)
 *     control: off         # an absolute path: the operator's control channel, a Unix
 *                          # datagram socket (mode 0600) taking PARK, RESET, ENGAGE, STATUS
 *                          # (`rtvd control`, app/motionctl.h); off (the default): none
 *     limits: {f: 30, w: 3, dw: 50, angle: 30}  # |f| - g [m/s^2], |w| [rad/s], |dw|
 *                          # [rad/s^2], |roll|, |pitch| [deg]: beyond is a fault
 *     priority: 65         # SCHED_FIFO priority 0..99 of the motion thread (below CAN's)
 *     cpu: none            # an integer, or none
 *     ttl: 1               # multicast hop limit 1..255
 *     outsim_id: 0         # outsim: the optional id appended (0: none)
 *     output: cues         # cues | pose: the cues, or the platform pose of the classical
 *                          # washout (io/washout.h; format rtvd only, datagram type POSE)
 *     washout: {k_f: 0.5, k_w: 0.5, wn: 2.5, zeta: 1, wb: 0.5, wl: 5, zeta_l: 1,
 *               tilt_rate: 3, wr: 2.5}   # scales [-], [rad/s], [-], tilt rate [deg/s]
 *
 * Booleans are true/false (also yes/no, on/off). The policies are defined in rt/policy.h.
 * Paths may name embedded files ("<embedded>/config/...", config/vfs.h); a run file that is
 * itself embedded resolves its relative paths among the embedded files.
 * Inputs at run time: the scenario's (or the model's) input function gives every input;
 * the valid values of the loop's input snapshot (the ECU/CAN side) replace theirs: with
 * `can:`, every input the mapping drives (its value, or its safe value on timeout or a
 * rejected value), the scenario keeping the others.
 * The fault names and windows are checked here; the messages against the mapping when the
 * ECU is set up (app/ecu.h), with errors at this file's line and column. */
#ifndef VD_CONFIG_RUN_YAML_H
#define VD_CONFIG_RUN_YAML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config/model_yaml.h"
#include "config/scenario.h"
#include "core/model.h"
#include "core/signal.h"

#define VD_RUN_CPU_NONE (-1)
#define VD_RUN_CPU_AUTO (-2)
#define VD_RUN_PATH_MAX 1024
#define VD_SIGNAME_MAX  (2 * VD_NAME_MAX)

/* same order as enum vd_ovr_policy (rt/policy.h); config does not depend on rt */
enum vd_run_policy {
    VD_RUN_POLICY_STOP = 0,
    VD_RUN_POLICY_SKIP,
    VD_RUN_POLICY_DELAY,
    VD_RUN_POLICY_QUEUE,
    VD_RUN_POLICY_ALLOW
};
enum vd_run_allow_mode { VD_RUN_ALLOW_TOTAL = 0, VD_RUN_ALLOW_CONSECUTIVE };
enum vd_run_allow_then { VD_RUN_THEN_STOP = 0, VD_RUN_THEN_FREEZE };
enum vd_run_realign { VD_RUN_REALIGN_SKIP = 0, VD_RUN_REALIGN_DELAY };

struct vd_run_rt {
    int period_us;     /* [us] */
    int cpu;           /* >= 0, VD_RUN_CPU_AUTO or VD_RUN_CPU_NONE */
    int priority;      /* 0..99 */
    int policy;        /* enum vd_run_policy */
    int queue_depth;   /* queue */
    int allow_count;   /* allow */
    int allow_mode;    /* enum vd_run_allow_mode */
    int allow_then;    /* enum vd_run_allow_then */
    int allow_realign; /* enum vd_run_realign */
    int grace_cycles;  /* [cycles] */
    int histogram_us;  /* [us] */
    bool lock_memory;
    bool dma_latency;
};

struct vd_run_telemetry {
    bool udp_on;    /* send status datagrams */
    char udp[64];   /* "a.b.c.d:port" */
    double rate_hz; /* [Hz] */
};

struct vd_run_reports {
    char dir[VD_RUN_PATH_MAX];
    char prefix[64];
    bool trace;
};

enum vd_run_record_format { VD_RUN_RECORD_MDF4 = 2, VD_RUN_RECORD_CSV = 1, VD_RUN_RECORD_BOTH = 3 };

struct vd_run_record {
    bool on;                    /* a record: section (or --record) */
    char file[VD_RUN_PATH_MAX]; /* "": the default */
    int format;                 /* enum vd_run_record_format (bits: 1 csv, 2 mdf4) */
    bool all;                   /* signals omitted: every output (also the CAN ones) */
    int nsig;
    int *sig;         /* (nsig) indices into out_sig */
    double rotate_mb; /* [MiB] 0: none */
    double rotate_s;  /* [s] 0: none */
    int buffer;       /* [records] */
};

#define VD_RUN_MAX_FAULTS 32
#define VD_RUN_MAX_SPEED  32

/* fault kinds of the virtual ECU (app/ecu.h) */
enum vd_run_fault_kind {
    VD_RUN_FAULT_SILENT = 0,    /* the message is not sent */
    VD_RUN_FAULT_BAD_CRC,       /* E2E CRC inverted */
    VD_RUN_FAULT_STALE_COUNTER, /* E2E counter not advanced (REPEATED) */
    VD_RUN_FAULT_JUMP_COUNTER,  /* E2E counter jumps by max_delta_counter + 1 */
    VD_RUN_FAULT_OUT_OF_RANGE,  /* mapped integer signals at their largest raw value */
    VD_RUN_FAULT_NAN,           /* mapped float signals NaN */
    VD_RUN_FAULT_WRONG_LENGTH,  /* the frame one byte shorter than the DBC's */
    VD_RUN_FAULT_BURST,         /* each frame sent factor times back to back (copies) */
    VD_RUN_FAULT_FLOOD,         /* the message at factor x its rate (copies in between) */
    VD_RUN_FAULT_UNKNOWN_ID,    /* frames with identifiers no one receives */
    VD_RUN_FAULT_BAD_DATAGRAM,  /* malformed cannelloni datagrams (udp buses) */
    VD_RUN_FAULT_N
};

struct vd_run_fault {
    int kind;         /* enum vd_run_fault_kind */
    char message[64]; /* DBC message name; "": none given */
    double at;        /* [s] window start, ECU time */
    double duration;  /* [s] window length; < 0: not given */
    int count;        /* [events] faults injected before the window closes; 0: not given */
    int factor;       /* burst copies, flood rate multiple, unknown ids per slot */
    int line, col;    /* 1-based position of the entry in the run file */
};

struct vd_run_ecu {
    bool enable;  /* the in-process virtual ECU */
    int priority; /* 0..99 */
    int nspeed;   /* speed schedule points; 0: not given */
    double speed_t[VD_RUN_MAX_SPEED], speed_v[VD_RUN_MAX_SPEED]; /* [s], [m/s] */
    double eps_gain;                                             /* [-]; < 0: not given */
    int nfault;
    struct vd_run_fault fault[VD_RUN_MAX_FAULTS];
};

struct vd_run_can {
    bool on;                       /* a can: section */
    char mapping[VD_RUN_PATH_MAX]; /* resolved against the run file */
    int priority;                  /* 0..99 */
    int cpu;                       /* >= 0 or VD_RUN_CPU_NONE */
    int port;                      /* udp port override; 0: none */
    struct vd_run_ecu ecu;
};

/* motion feed formats and decimation, as io/motion.h numbers them (config does not use io) */
enum vd_run_motion_fmt { VD_RUN_MOTION_RTVD = 0, VD_RUN_MOTION_MOOG_MDA, VD_RUN_MOTION_OUTSIM };
enum vd_run_motion_decim { VD_RUN_MOTION_AVERAGE = 0, VD_RUN_MOTION_LOWPASS };
enum vd_run_motion_reset { VD_RUN_MOTION_RESET_NEVER = 0, VD_RUN_MOTION_RESET_AT_START };

struct vd_run_motion {
    bool on;                                       /* a motion: section with a destination */
    char dest[96];                                 /* "a.b.c.d:port" | "[v6]:port" */
    int format;                                    /* enum vd_run_motion_fmt */
    int rate_hz;                                   /* [Hz] 1000, 500, 250 or 100 */
    int decimation;                                /* enum vd_run_motion_decim */
    int mrp_body;                                  /* body index of the MRP */
    double mrp_pos[3];                             /* [m] in the body's reference frame */
    double mrp_rpy[3];                             /* [rad] axes rotated from the body's */
    char mrp_what[VD_SIGNAME_MAX + 16];            /* "marker driver_head" / "body chassis" */
    double engage_s, park_s, stale_s, heartbeat_s; /* [s] */
    double engage_timeout_s;                       /* [s] the engage handshake's limit */
    int reset;                                     /* enum vd_run_motion_reset */
    char control[108]; /* the operator's control socket (app/motionctl.h); "": none */
    double lim_f, lim_w, lim_dw, lim_angle; /* [m/s^2, rad/s, rad/s^2, rad] */
    int priority;                           /* 0..99 */
    int cpu;                                /* >= 0 or VD_RUN_CPU_NONE */
    int ttl;
    int outsim_id;
    bool pose; /* output: pose (the washout) */
    double wo_k_f, wo_k_w, wo_wn, wo_zeta, wo_wb, wo_wl, wo_zeta_l, wo_tilt_rate, wo_wr;
    /* [-, -, rad/s, -, rad/s, rad/s, -, rad/s, rad/s] */
};

struct vd_run_cfg {
    char name[VD_RUN_PATH_MAX];          /* the run file as opened */
    char scenario_path[VD_RUN_PATH_MAX]; /* the scenario file as opened; "": none */
    char model_path[VD_RUN_PATH_MAX];    /* the model file as opened (a scenario's vehicle) */
    struct vd_scenario *scn;             /* the loaded scenario (owns m and src), or NULL */
    struct vd_model *m;                  /* loaded and finalized */
    struct vd_source *src;               /* its input signals */
    double duration;                     /* [s] 0: until stopped */
    int noutput;
    struct vd_signal *out_sig;        /* (noutput) */
    char (*out_name)[VD_SIGNAME_MAX]; /* (noutput) */
    struct vd_run_rt rt;
    struct vd_run_telemetry telemetry;
    struct vd_run_reports reports;
    struct vd_run_record record;
    struct vd_run_can can;
    struct vd_run_motion motion;
    /* FNV-1a 64 of the run text, then per file loaded a 0xff byte and its text: the
     * scenario and its vehicle, or the model */
    uint64_t hash;
};

/* init-time (may allocate) */
/* load a run file (a disk path or an embedded one); def: the scenario or model file used
 * when the run file names neither (NULL: one of them is required). path NULL: only the
 * defaults (no run file). On error prints the diagnostics (run file, scenario and model
 * files) to errf (may be NULL) and returns NULL. */
struct vd_run_cfg *vd_cfg_load_run(const char *path, const char *def, FILE *errf);
/* the same with the scenario's vehicle replaced by the model file vehicle (relative to the
 * current directory; NULL: the scenario's own); a run of a bare model is an error then */
struct vd_run_cfg *vd_cfg_load_run_vehicle(const char *path, const char *def, const char *vehicle,
                                           FILE *errf);
/* the same from text[0, len); `name` is used in messages, relative paths are resolved
 * against basedir (NULL: the current directory) */
struct vd_run_cfg *vd_cfg_load_run_mem(const char *name, const char *text, size_t len,
                                       const char *basedir, const char *def, FILE *errf);
void vd_cfg_run_free(struct vd_run_cfg *c);
/* the default motion reference point of c's model into c->motion (the marker driver_head,
 * else the CoM of the body chassis); 0 or -ENOENT (neither) */
int vd_run_motion_default_mrp(struct vd_run_cfg *c);
/* names for messages and reports */
const char *vd_run_policy_name(int policy);
/* fault kind names (as in the schema), and the kind of a name (-1: unknown) */
const char *vd_run_fault_name(int kind);
int vd_run_fault_kind(const char *name);
/* parse a policy as written on a command line into c->rt: stop | skip | delay | queue:N |
 * allow:N[:total|consecutive][:stop|freeze][:skip|delay]; 0 or -EINVAL */
int vd_run_parse_policy(struct vd_run_rt *rt, const char *s);
/* FNV-1a 64 over data, continuing from h (start with VD_FNV_OFFSET) */
#define VD_FNV_OFFSET 0xcbf29ce484222325ull
uint64_t vd_fnv1a64(uint64_t h, const void *data, size_t len);

#endif /* VD_CONFIG_RUN_YAML_H */
