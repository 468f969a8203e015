/* config/can_map.h - CAN mapping files (config/can/): which buses exist (DBC file and
 * transport), which received DBC signals drive which model inputs, which model output
 * signals fill which transmitted DBC signals, with units, ranges, timeouts, safe values,
 * cycle times, send phases and AUTOSAR E2E. The loader checks the schema (located errors,
 * like every loader of config/), fills the one description of the mapping (core/candesc.h,
 * plain data) and reads each bus's DBC file into memory; it does not parse the DBC
 * (io/dbc.h) nor resolve names against it: io/canmap.h does that from the same description
 * and reports those errors at the same file:line:col. Owns the description it returns and
 * the DBC texts.
 * init only: allocates, reads files, prints diagnostics.
 *
 * Schema (unknown keys, duplicates, wrong types and values out of range are errors, reported
 * as  map.yaml:LINE:COL: error: PATH: MESSAGE  with a caret). Directions are the target's
 * (rtvd's): `rx` = ECU -> rtvd, `tx` = rtvd -> ECU; the virtual ECU (role ecu) reads the same
 * file mirrored: it sends the rx messages and receives the tx messages.
 *
 *   name: sedan-bench        # optional, for messages
 *   timeout_factor: 3        # (1, 100]: default RX timeout = factor x cycle time [3]
 *   strict_dbc: false        # DBC defects that keep the meaning (an id above 0x7FF without the
 *                            # extended flag, a CM_ without ';', a name starting with a digit,
 *                            # signals sharing bits) are errors, not warnings [false]
 *   buses:                   # 1..8
 *     - name: bench          # required, [A-Za-z0-9_.-]+ (at most 31)
 *       dbc: sedan_bench.dbc # required, relative to this file
 *       fd: false            # CAN FD frames allowed [false]
 *       rcvbuf: 0            # [byte] SO_RCVBUF, 0: kernel default (omitted: the transport's)
 *       sndbuf: 0            # [byte] SO_SNDBUF
 *       tx_wait_us: 0        # [us] wait for TX room before dropping
 *       udp:                 # exactly one of udp and socketcan
 *         local: 127.0.0.1:20000    # HOST:PORT bound by the target (the ECU binds remote)
 *         remote: 127.0.0.1:20001   # HOST:PORT of the peer (the ECU sends to local)
 *         max_payload: 1472  # [byte] 75..65507, datagram payload cap
 *         any_source: false  # accept datagrams from any sender
 *       socketcan:
 *         interface: vcan0   # required
 *         configure: false   # set bit timing / restart through libsocketcan (CAP_NET_ADMIN)
 *         bitrate: 500000    # [bit/s] 1000..1000000, 0: leave
 *         sample_point: 875  # [1/1000] 0..999, 0: the driver's default
 *         data_bitrate: 2000000      # [bit/s] FD data phase, 0..16000000
 *         data_sample_point: 750     # [1/1000]
 *         txqueuelen: 1000   # [frames] -1: leave
 *         restart: auto      # bus-off recovery: auto | manual | none
 *         restart_ms: 100    # [ms] auto restart delay
 *         restart_holdoff_ms: 1000   # [ms] manual: time in bus-off before a restart
 *         state_poll_ms: 100 # [ms] controller state polling, 0: never
 *         loopback: true     # other local sockets see our frames
 *         recv_own: false    # this socket sees its own frames
 *   rx:                      # messages ECU -> rtvd, 0..256
 *     - message: ECU_WheelTorques   # DBC message name; or id: 0x110 (+ extended: true)
 *       bus: bench           # required when there are several buses
 *       cycle_ms: 10         # [ms] 1..100000; default: the DBC's GenMsgCycleTime
 *       phase_ms: 0          # [ms] 0..cycle-1: send slot (ms mod cycle); default: spread
 *       timeout_ms: 30       # [ms] 0..1000000, 0: none; default: timeout_factor x cycle
 *       e2e:
 *         profile: P01       # P01 | P02 | P05
 *         data_id: 0x110     # P01 (0..0xFFFF; nibble mode 0..0xFFF), P05 (0..0xFFFF)
 *         data_id_list: [...]  # P02: 16 bytes, the Data ID per counter value
 *         mode: both         # P01: both | alt | low | nibble
 *         crc: WT_CRC        # DBC signal holding the CRC (its position sets the offset)
 *         counter: WT_Counter  # DBC signal holding the counter
 *         crc_offset: 0      # [bit] P01, when no crc signal is named (AUTOSAR: 0)
 *         counter_offset: 8  # [bit] P01, when no counter signal is named (AUTOSAR: 8)
 *         nibble_offset: 12  # [bit] P01 nibble mode
 *         offset: 0          # [bit] P05 header (CRC16 LE + counter), when no crc signal
 *         data_length: 64    # [bit] protected length; default: the whole frame
 *         max_delta_counter: 2   # P01 1..14, P02 1..15, P05 1..255 [2]
 *       signals:             # 1..64
 *         - signal: WT_DriveFL     # DBC signal (required)
 *           input: front_l.drive   # rx: the model input it drives
 *           unit: Nm         # the DBC unit (checked against it); default: the DBC's
 *           scale: 1         # model = phys * unit_factor * scale + offset [1]
 *           offset: 0        # [model unit] [0]
 *           range: [-4000, 4000]   # [DBC unit] accepted range; default: the DBC's [min, max]
 *           safe: 0          # on timeout or a rejected value: a number [model unit] or hold;
 *                            # rx default 0, tx default hold (used by the ECU role)
 *         - {signal: ST_Mode, value: 0}   # a constant [DBC unit]: the sender writes it,
 *                                         # the receiver ignores it
 *   tx:                      # messages rtvd -> ECU, same keys; signals name an `output`
 *     - message: VDM_WheelSpeeds           # (core/signal.h names, `rtvd sim --list-signals`)
 *       signals:
 *         - {signal: WS_FL, output: front_l.tire.omega}   # rad/s -> rpm from the DBC unit
 *
 * Units known to unit / DBC units (io/canmap.h vd_canmap_unit_factor): SI ones (rad, rad/s,
 * m, m/s, m/s2, N, Nm, s, Pa, kg, "", -, 1) and deg, deg/s, rpm, 1/min, km/h, kph, mm, cm,
 * mm/s, ms, kN, kNm, kPa, bar, %, g (9.80665 m/s2); "N m" = "Nm". Integers (id, data_id,
 * data_id_list) may be written in hex (0x110). */
#ifndef VD_CONFIG_CAN_MAP_H
#define VD_CONFIG_CAN_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/candesc.h"

/* init-time (may allocate) */
/* load a mapping file (disk path or embedded "<embedded>/...") for role (enum
 * vd_candesc_role) and read its DBC files. On error prints the diagnostics to errf (may be
 * NULL) and returns NULL. */
struct vd_candesc *vd_cfg_load_canmap(const char *path, int role, FILE *errf);
/* the same from text[0, len); name in messages; DBC paths relative to basedir (NULL: the
 * current directory) */
struct vd_candesc *vd_cfg_load_canmap_mem(const char *name, const char *text, size_t len,
                                          const char *basedir, int role, FILE *errf);
void vd_cfg_canmap_free(struct vd_candesc *c);

#endif /* VD_CONFIG_CAN_MAP_H */
