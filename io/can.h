/* io/can.h - CAN transport: one bus = one endpoint of a CAN network, with two backends chosen
 * per bus in its config (hil-conventions.md §4):
 *   socketcan  a CAN_RAW socket on a SocketCAN interface (can0, vcan0), classic and FD, opened
 *              the can-utils way; libsocketcan configures the interface when asked (bitrate,
 *              restart-ms, start/stop) and reads its state, error counters and device stats;
 *   udp        CAN frames in the cannelloni v2 format over UDP (big-endian, several frames per
 *              datagram), for kernels without CAN: loopback by default, and a cannelloni peer
 *              on a CAN-capable host bridges it to a real bus.
 * Owns the socket(s), the datagram buffers and the counters of each bus. Frames are
 * struct vd_can_frame (io/can_frame.h), times CLOCK_MONOTONIC [ns].
 *
 * Real-time contract: vd_can_open/close and vd_can_state run at init or in a supervisor
 * thread (they allocate, resolve names, talk netlink). vd_can_send/send_many/recv/service run
 * in the CAN I/O thread(s), never in the RT loop: they make non-blocking syscalls (recv waits
 * in poll() up to its timeout; send waits at most cfg.tx_wait_us for room) and never allocate.
 * Per bus: one sending thread and one receiving thread (may differ); vd_can_service on the
 * receiving thread; vd_can_stats from any thread (the counters are atomics).
 *
 * Loss is never silent: every frame given to send is either sent or counted as dropped,
 * invalid or failed; every datagram or frame received is delivered or counted as malformed,
 * filtered or foreign; kernel-side drops are counted from SO_RXQ_OVFL. */
#ifndef VD_IO_CAN_H
#define VD_IO_CAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/can_frame.h"

enum vd_can_kind {
    VD_CAN_SOCKETCAN = 0,
    VD_CAN_UDP,
};

/* bus-off recovery */
enum vd_can_restart {
    VD_CAN_RESTART_AUTO = 0, /* the kernel restarts after cfg.restart_ms (set when configuring) */
    VD_CAN_RESTART_MANUAL,   /* vd_can_service calls can_do_restart cfg.restart_holdoff_ms after
                                entering bus-off, and again every hold-off while it fails */
    VD_CAN_RESTART_NONE,     /* stay bus-off (restart-ms 0 when configuring) */
};

/* receive time stamps (vd_can_frame.t_ns) */
enum vd_can_tstamp {
    VD_CAN_TSTAMP_NONE = 0, /* clock_gettime(CLOCK_MONOTONIC) after recvmsg */
    VD_CAN_TSTAMP_SOFTWARE, /* kernel receive stamp (SO_TIMESTAMPNS), mapped to MONOTONIC */
    VD_CAN_TSTAMP_HARDWARE, /* SO_TIMESTAMPING raw hardware stamp where the driver gives one
                               and it lies within VD_CAN_HW_STAMP_TOL_NS of the kernel's software
                               stamp of the same frame (so in CLOCK_REALTIME's time base, as
                               the CAN drivers' timecounters are started), else the software
                               one (counted: rx_hw_stamps_off); a hardware stamp without a
                               software one (a driver that gives none) as it is */
};

/* [ns] the most a hardware receive stamp may differ from the kernel's software stamp of the
 * same frame and still be used: the driver's delivery delay (a USB adapter batches frames
 * for 1 ms or a few) is well inside it, a clock in another time base (a free-running or
 * PTP-disciplined controller clock not set to CLOCK_REALTIME, seconds to years away) far
 * outside */
#define VD_CAN_HW_STAMP_TOL_NS 50000000

/* controller / bus state (values as linux/can/netlink.h enum can_state) */
enum vd_can_bus_state {
    VD_CAN_STATE_ERROR_ACTIVE = 0, /* error counters < 96 */
    VD_CAN_STATE_ERROR_WARNING,    /* < 128 */
    VD_CAN_STATE_ERROR_PASSIVE,    /* < 256 */
    VD_CAN_STATE_BUS_OFF,          /* >= 256: the controller takes no part in the bus */
    VD_CAN_STATE_STOPPED,          /* interface down */
    VD_CAN_STATE_SLEEPING,
    VD_CAN_STATE_UNKNOWN, /* not known (yet): udp, or vcan before any error frame */
};

/* error classes in the id of an error frame (values as linux/can/error.h CAN_ERR_*), for
 * cfg.err_mask; the data bytes carry the details */
#define VD_CAN_ERR_TX_TIMEOUT 0x001u /* TX timeout (netdevice driver) */
#define VD_CAN_ERR_LOSTARB    0x002u /* lost arbitration, data[0] */
#define VD_CAN_ERR_CRTL       0x004u /* controller problems, data[1] */
#define VD_CAN_ERR_PROT       0x008u /* protocol violations, data[2..3] */
#define VD_CAN_ERR_TRX        0x010u /* transceiver status, data[4] */
#define VD_CAN_ERR_ACK        0x020u /* no ACK on transmission */
#define VD_CAN_ERR_BUSOFF     0x040u /* bus off */
#define VD_CAN_ERR_BUSERROR   0x080u /* bus error (may flood) */
#define VD_CAN_ERR_RESTARTED  0x100u /* controller restarted */
#define VD_CAN_ERR_CNT        0x200u /* TX/RX error counters in data[6..7] (kernel >= 6.2) */
#define VD_CAN_ERR_NCLASS     10
/* default mask: everything but bus errors (which can flood at 1 per bad frame) */
#define VD_CAN_ERR_DEFAULT 0x37fu

#define VD_CAN_MAX_FILTERS 64
#define VD_CAN_NAME_LEN    32
#define VD_CAN_IFNAME_LEN  16 /* IFNAMSIZ */
#define VD_CAN_HOST_LEN    64

/* receive filter: a frame passes when (frame.id & mask) == (id & mask) and its format
 * (standard or extended) is the filter's; RTR and data frames alike */
struct vd_can_filter {
    uint32_t id;   /* identifier bits to match */
    uint32_t mask; /* identifier bits compared (VD_CAN_SFF_MASK / VD_CAN_EFF_MASK: exact) */
    bool ext;      /* match extended (29-bit) frames; false: standard (11-bit) */
};

/* one bus. vd_can_cfg_init fills the defaults given in brackets; the mapping YAML fills the
 * rest. Sizes and times are plain integers with their unit. */
struct vd_can_cfg {
    char name[VD_CAN_NAME_LEN]; /* bus name in messages and telemetry ["can"] */
    enum vd_can_kind kind;
    bool fd; /* CAN FD frames allowed (TX and RX) [false] */

    /* --- socketcan ------------------------------------------------------------------------ */
    char ifname[VD_CAN_IFNAME_LEN]; /* interface ["vcan0"] */
    /* configure the interface through libsocketcan/netlink at open (needs CAP_NET_ADMIN;
     * takes the interface down and up again). false: use it as it is [false]. Bit timing,
     * FD mode and restart-ms are skipped on virtual interfaces (vcan, vxcan). */
    bool configure;
    uint32_t bitrate;       /* [bit/s] arbitration phase, 1000..1000000; 0: leave [0] */
    uint32_t sample_point;  /* [1/1000] 0: the driver's (CiA) default [0] */
    uint32_t dbitrate;      /* [bit/s] FD data phase, up to 16000000; 0: leave [0] */
    uint32_t dsample_point; /* [1/1000] 0: default [0] */
    int32_t txqueuelen;     /* [frames] interface TX queue, set when configuring; -1: leave [-1] */
    enum vd_can_restart restart; /* [AUTO] */
    uint32_t restart_ms;         /* [ms] kernel auto restart delay (AUTO) [100] */
    uint32_t restart_holdoff_ms; /* [ms] MANUAL: time in bus-off before can_do_restart [1000] */
    uint32_t state_poll_ms;    /* [ms] vd_can_service polls the controller state; 0: never [100] */
    uint32_t err_mask;         /* error classes received (CAN_RAW_ERR_FILTER, VD_CAN_ERR_*); 0: none
                                  [VD_CAN_ERR_DEFAULT] */
    bool loopback;             /* CAN_RAW_LOOPBACK: other local sockets see our frames [true] */
    bool recv_own;             /* CAN_RAW_RECV_OWN_MSGS: this socket sees its own frames [false] */
    enum vd_can_tstamp tstamp; /* [SOFTWARE] */

    /* --- both ------------------------------------------------------------------------------ */
    int32_t rcvbuf; /* [byte] SO_RCVBUF (SO_RCVBUFFORCE first, so CAP_NET_ADMIN can exceed
                       rmem_max); 0: kernel default [0] */
    int32_t sndbuf; /* [byte] SO_SNDBUF; small values make the socket refuse (EAGAIN) before the
                       interface queue overflows (ENOBUFS); 0: kernel default [0] */
    /* TX when the socket or queue is full (EAGAIN/ENOBUFS): wait for room up to this long
     * per send call (poll(POLLOUT) / short sleeps), then drop and count; 0: drop at once [0] */
    int32_t tx_wait_us;
    bool rx_err_frames; /* vd_can_recv also returns error frames (VD_CANF_ERR); they are always
                           counted and update the state [false] */
    bool tx_err_frames; /* vd_can_send accepts error frames (fault injection on vcan/udp) [false] */
    struct vd_can_filter filters[VD_CAN_MAX_FILTERS];
    int nfilters; /* 0: receive every frame [0] */

    /* --- udp (cannelloni) ------------------------------------------------------------------ */
    char local_host[VD_CAN_HOST_LEN];  /* bind address, numeric or a name ["127.0.0.1"] */
    uint16_t local_port;               /* 0: any free port (vd_can_local_port) [20000] */
    char remote_host[VD_CAN_HOST_LEN]; /* peer ["127.0.0.1"]; "" or port 0: receive only */
    uint16_t remote_port;              /* [20001] */
    uint32_t udp_max_payload; /* [byte] datagram payload cap for batching, 75..65507; 1472 fits
                                 an Ethernet MTU of 1500 over IPv4 [1472] */
    bool udp_any_source;      /* accept datagrams from any sender, not just the remote [false] */
};

/* counters of a bus, all monotonic from open. X(name, comment) */
#define VD_CAN_STATS(X)                                                                            \
    X(rx_frames, "frames delivered by vd_can_recv (error frames included when rx_err_frames)")     \
    X(tx_frames, "frames handed to the kernel")                                                    \
    X(tx_dropped, "frames dropped: no room (EAGAIN/ENOBUFS) within tx_wait_us")                    \
    X(tx_invalid, "frames refused by send: bad id/len/flags, FD on a classic bus, error frame")    \
    X(tx_errors, "frames lost to other send errors (ENETDOWN, no remote, ...)")                    \
    X(tx_retries, "waits for TX room (each followed by a retry)")                                  \
    X(tx_datagrams, "udp: datagrams sent")                                                         \
    X(rx_datagrams, "udp: well-formed datagrams received")                                         \
    X(rx_overflow, "frames (udp: datagrams) the kernel dropped at the full socket (SO_RXQ_OVFL)")  \
    X(rx_malformed, "udp: datagrams rejected, any reason below; socketcan: bad frame sizes")       \
    X(rx_mal_short, "udp: shorter than the 5-byte header")                                         \
    X(rx_mal_version, "udp: version is not 2")                                                     \
    X(rx_mal_opcode, "udp: op code is not DATA")                                                   \
    X(rx_mal_frame, "udp: a frame with a bad len, flags or id (len > 8 classic, > 64 or not an "   \
                    "FD length, RTR with FD, id bits beyond 11/29, FD on a classic bus)")          \
    X(rx_mal_truncated, "udp: a frame runs past the end (count larger than the frames present)")   \
    X(rx_mal_trailing, "udp: bytes after the count frames")                                        \
    X(rx_mal_oversize, "udp: longer than the receive buffer (truncated by the kernel)")            \
    X(rx_filtered, "frames received but not passed by the filters or the error mask")              \
    X(rx_foreign, "udp: datagrams from a sender other than the remote")                            \
    X(rx_own, "socketcan: own frames received back (recv_own, MSG_CONFIRM)")                       \
    X(rx_hw_stamps, "frames stamped by hardware")                                                  \
    X(rx_hw_stamps_off, "hardware stamps not used: more than VD_CAN_HW_STAMP_TOL_NS from the "     \
                        "frame's software stamp (another time base); the software one used")       \
    X(rx_errors, "receive syscall errors")                                                         \
    X(udp_seq_lost, "udp: datagrams missing in the sequence numbers (gap 1..127)")                 \
    X(udp_seq_reorder, "udp: sequence jumps backwards or by >= 128 (late, duplicate, restart)")    \
    X(err_frames, "error frames received")                                                         \
    X(err_tx_timeout, "error frames of class TX timeout")                                          \
    X(err_lostarb, "... lost arbitration")                                                         \
    X(err_crtl, "... controller problems")                                                         \
    X(err_prot, "... protocol violations")                                                         \
    X(err_trx, "... transceiver status")                                                           \
    X(err_ack, "... no ACK")                                                                       \
    X(err_busoff, "... bus off")                                                                   \
    X(err_buserror, "... bus error")                                                               \
    X(err_restarted, "... controller restarted")                                                   \
    X(err_cnt, "... error counter report")                                                         \
    X(ctrl_rx_overflow, "controller RX overflows (CRTL error frames)")                             \
    X(ctrl_tx_overflow, "controller TX overflows (CRTL error frames)")                             \
    X(error_warning, "entries into ERROR-WARNING")                                                 \
    X(error_passive, "entries into ERROR-PASSIVE")                                                 \
    X(bus_off, "entries into BUS-OFF")                                                             \
    X(restarts, "restarts done by vd_can_service (MANUAL; simulated on virtual interfaces)")       \
    X(restart_failures, "failed restart attempts")                                                 \
    X(state_polls, "controller state reads by vd_can_service")

struct vd_can_stats {
#define VD_CAN_STAT_FIELD(n, c) uint64_t n;
    VD_CAN_STATS(VD_CAN_STAT_FIELD)
#undef VD_CAN_STAT_FIELD
};

/* the state of a bus as far as it can be read (vd_can_state) */
struct vd_can_state {
    enum vd_can_bus_state state; /* the controller's when read, else as tracked from events */
    bool state_read;             /* state read from the controller (libsocketcan) */
    bool is_virtual;             /* vcan/vxcan: no controller, no bit timing */
    char kind[16];               /* link kind: "can", "vcan", "vxcan", "udp" */
    bool berr_valid;             /* TX/RX error counters known */
    uint16_t txerr, rxerr;
    bool dev_valid; /* device statistics (can_get_device_stats) known */
    uint32_t bus_error, error_warning, error_passive, bus_off, arbitration_lost, restarts;
    bool bittiming_valid;
    uint32_t bitrate;      /* [bit/s] */
    uint32_t sample_point; /* [1/1000] */
    bool restart_ms_valid;
    uint32_t restart_ms; /* [ms] */
    bool link_valid;     /* netdev statistics (can_get_link_stats) known */
    uint64_t link_rx_packets, link_tx_packets, link_rx_dropped, link_tx_dropped, link_rx_errors,
        link_tx_errors;
};

struct vd_can_bus; /* opaque */

/* ---- init-time (may allocate, resolve names, block) ------------------------------------- */

/* defaults for a bus of this kind (the bracketed values of struct vd_can_cfg) */
void vd_can_cfg_init(struct vd_can_cfg *cfg, enum vd_can_kind kind);

/* "host:port", "[v6addr]:port" or ":port" (host left empty) into host and port;
 * 0 or -EINVAL with the reason in err */
int vd_can_parse_hostport(const char *s, char *host, size_t hostsz, uint16_t *port, char *err,
                          size_t errsz);

/* checks cfg, opens the bus and sets it up; 0 or -errno with "bus 'name' (kind where): what"
 * in err. -EAFNOSUPPORT: no AF_CAN in this kernel; -ENODEV: no such interface. */
int vd_can_open(const struct vd_can_cfg *cfg, struct vd_can_bus **out, char *err, size_t errsz);
void vd_can_close(struct vd_can_bus *bus); /* NULL: no-op */

/* one line saying what the bus is and what the set-up obtained (rcvbuf, mtu, stamps, ...) */
const char *vd_can_describe(const struct vd_can_bus *bus);

/* the state, error counters and device statistics (netlink: supervisor thread); 0 */
int vd_can_state(struct vd_can_bus *bus, struct vd_can_state *out);

/* ---- CAN I/O thread (non-blocking syscalls, no allocation) ------------------------------ */

/* sends one frame (udp: one datagram). 0 sent; -EAGAIN dropped for lack of room (counted
 * tx_dropped); -EINVAL refused (tx_invalid); other -errno lost (tx_errors) */
int vd_can_send(struct vd_can_bus *bus, const struct vd_can_frame *f);
/* sends n frames, udp: batched into as few datagrams as udp_max_payload allows, in order.
 * Returns how many were handed to the kernel (0..n); each other one is counted once. */
int vd_can_send_many(struct vd_can_bus *bus, const struct vd_can_frame *f, int n);

/* receives up to max frames into out, waiting up to timeout_ms (0: no wait, -1: forever)
 * for the first; returns the count (0 on timeout) or -errno (-EINTR: a signal). Error frames
 * are counted, update the state, and are returned only with cfg.rx_err_frames. */
int vd_can_recv(struct vd_can_bus *bus, struct vd_can_frame *out, int max, int timeout_ms);

/* for one thread serving several buses: poll() the fd for POLLIN, then vd_can_recv(.., 0);
 * call vd_can_recv without waiting while vd_can_rx_pending (frames of a datagram left over) */
int vd_can_poll_fd(const struct vd_can_bus *bus);
bool vd_can_rx_pending(const struct vd_can_bus *bus);

/* housekeeping, every few ms from the receiving thread: controller state poll (netlink,
 * every cfg.state_poll_ms), kernel drop count (SO_MEMINFO), MANUAL restart after the
 * hold-off. now_ns: CLOCK_MONOTONIC. 0 */
int vd_can_service(struct vd_can_bus *bus, int64_t now_ns);

/* ---- any thread --------------------------------------------------------------------------- */

void vd_can_stats(const struct vd_can_bus *bus, struct vd_can_stats *out);
/* the state as tracked from error frames and polls (no syscall) */
enum vd_can_bus_state vd_can_bus_state(const struct vd_can_bus *bus);
uint16_t vd_can_local_port(const struct vd_can_bus *bus); /* udp: bound port; socketcan: 0 */
const char *vd_can_kind_name(enum vd_can_kind kind);
const char *vd_can_state_name(enum vd_can_bus_state st);
/* the counters as "name=value" pairs separated by spaces, zeros left out; returns the
 * length written (truncated to sz - 1) */
size_t vd_can_stats_format(const struct vd_can_stats *s, char *buf, size_t sz);

/* ---- pure helpers (RT-safe) --------------------------------------------------------------- */

/* a frame that may be sent: id within 11/29 bits, len 0..8 (classic, RTR: the requested
 * length) or an FD length (0..8, 12, 16, 20, 24, 32, 48, 64), no RTR/ERR with FD, BRS/ESI
 * only with FD, fd_ok for FD frames; error frames: id within the error classes, len 8 */
bool vd_can_frame_valid(const struct vd_can_frame *f, bool fd_ok);

/* cannelloni v2 (doc/udp_format.md of mguentner/cannelloni): header version 2, op code 0
 * (DATA), sequence number, count (u16), then per frame can_id (u32, SocketCAN flag bits EFF
 * 0x80000000, RTR 0x40000000, ERR 0x20000000), len (u8; 0x80 marks FD), for FD a flags byte
 * (BRS 0x01, ESI 0x02), data (len bytes; none for RTR). All big-endian. */
#define VD_CNL_VERSION     2
#define VD_CNL_OP_DATA     0
#define VD_CNL_HEADER_SIZE 5
/* encodes frames f[0..n) that fit into cap bytes: returns the datagram length and sets
 * *used to the number of frames encoded (stops at the first that does not fit) */
size_t vd_can_cnl_encode(uint8_t *buf, size_t cap, uint8_t seq, const struct vd_can_frame *f, int n,
                         int *used);
/* one frame at buf (no header): its size, or 0 if it does not fit into cap bytes */
size_t vd_can_cnl_put(uint8_t *buf, size_t cap, const struct vd_can_frame *f);
/* the 5-byte header */
void vd_can_cnl_header(uint8_t *buf, uint8_t seq, uint16_t count);
/* why a datagram is rejected: the rx_mal_* counter it goes to */
enum vd_can_cnl_error {
    VD_CNL_OK = 0,
    VD_CNL_SHORT,
    VD_CNL_VERSION_BAD,
    VD_CNL_OPCODE,
    VD_CNL_FRAME,
    VD_CNL_TRUNCATED,
    VD_CNL_TRAILING,
};
/* checks a whole datagram: VD_CNL_OK with *count and *seq, or the first error found. fd_ok:
 * FD frames allowed. Nothing is decoded unless the whole datagram is well-formed. */
enum vd_can_cnl_error vd_can_cnl_check(const uint8_t *buf, size_t len, bool fd_ok, uint16_t *count,
                                       uint8_t *seq);
/* decodes the frame at *off of a checked datagram into f (t_ns 0) and advances *off */
void vd_can_cnl_decode(const uint8_t *buf, size_t *off, struct vd_can_frame *f);

#endif /* VD_IO_CAN_H */
