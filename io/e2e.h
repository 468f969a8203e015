/* io/e2e.h - AUTOSAR end-to-end protection of CAN payloads: the CRC library (CRC8 SAE-J1850,
 * CRC8H2F, CRC16 CCITT-FALSE) and profiles P01, P02 and P05 (hil-conventions.md §6).
 * Owns nothing: per protected message the caller keeps a const config and a TX or RX state.
 *
 * Protect (TX) writes counter and CRC into the frame buffer and advances the counter.
 * Check (RX) classifies a received frame (or its absence) by the AUTOSAR P05 receiver
 * rules for all profiles: CRC/length/counter-range errors -> ERROR; no frame -> NO_NEW_DATA;
 * counter delta 0 -> REPEATED, 1 -> OK, 2..max_delta_counter -> OK_SOME_LOST, larger ->
 * WRONG_SEQUENCE; the last counter is updated for every status but ERROR and NO_NEW_DATA.
 * The RX state starts one counter before the first value a sender transmits (P01/P05: 0,
 * P02: 1), so a receiver that starts with its sender sees OK; one that joins later sees
 * WRONG_SEQUENCE once, which the E2E state machine above this layer tolerates.
 *
 * vd_e2e_*_validate: init-time (checks a config, no allocation). Everything else: RT-safe
 * (no allocation, no syscalls, no stdio; table-driven CRCs, work bounded by data_length). */
#ifndef VD_IO_E2E_H
#define VD_IO_E2E_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- CRC library, AUTOSAR Crc_CalculateCRC* conventions --------------------------------
 * first: start from the standard initial value (start ignored); otherwise continue from
 * start, the result of a previous call (its final XOR is undone internally). */

/* CRC-8 SAE J1850: poly 0x1D, init 0xFF, xorout 0xFF; check("123456789") = 0x4B */
uint8_t vd_e2e_crc8(const uint8_t *data, size_t len, uint8_t start, bool first);
/* CRC-8H2F (AUTOSAR): poly 0x2F, init 0xFF, xorout 0xFF; check = 0xDF */
uint8_t vd_e2e_crc8h2f(const uint8_t *data, size_t len, uint8_t start, bool first);
/* CRC-16 CCITT-FALSE: poly 0x1021, init 0xFFFF, xorout 0; check = 0x29B1 */
uint16_t vd_e2e_crc16(const uint8_t *data, size_t len, uint16_t start, bool first);

/* ---- statuses ------------------------------------------------------------------------------ */

enum vd_e2e_status {
    VD_E2E_OK = 0,         /* new data, counter +1 */
    VD_E2E_NO_NEW_DATA,    /* no frame since the last check */
    VD_E2E_ERROR,          /* CRC, length, counter range or Data ID nibble wrong */
    VD_E2E_REPEATED,       /* same counter as the last valid frame */
    VD_E2E_OK_SOME_LOST,   /* counter +2..max_delta_counter: some frames lost */
    VD_E2E_WRONG_SEQUENCE, /* counter jumped further (or backwards) */
    VD_E2E_NSTATUS
};

const char *vd_e2e_status_name(enum vd_e2e_status st);

/* sender state: the counter the next protect writes (P01, P05) or the last one written (P02) */
struct vd_e2e_tx {
    uint8_t counter;
};

/* receiver state */
struct vd_e2e_rx {
    uint8_t counter;                /* last counter accepted (not ERROR) */
    uint8_t status;                 /* enum vd_e2e_status of the last check */
    uint32_t count[VD_E2E_NSTATUS]; /* checks per status */
};

/* ---- profile 1: CRC8 J1850, 4-bit counter 0..14, 16-bit implicit Data ID ------------------- */

enum vd_e2e_p01_mode {
    VD_E2E_P01_BOTH = 0, /* CRC over Data ID low byte, then high byte */
    VD_E2E_P01_ALT,      /* low byte when the counter is even, high byte when odd */
    VD_E2E_P01_LOW,      /* low byte only */
    VD_E2E_P01_NIBBLE,   /* low byte and 0x00; high byte's low nibble sent in the frame */
};

struct vd_e2e_p01_cfg {
    uint16_t data_length;      /* [bit] protected length incl. CRC, multiple of 8, 16..240 */
    uint16_t data_id;          /* NIBBLE mode: at most 0x0FFF */
    uint8_t mode;              /* enum vd_e2e_p01_mode */
    uint16_t crc_offset;       /* [bit] multiple of 8 (AUTOSAR layout: 0) */
    uint16_t counter_offset;   /* [bit] multiple of 4 (AUTOSAR: 8): low/high nibble */
    uint16_t nibble_offset;    /* [bit] multiple of 4 (AUTOSAR: 12), NIBBLE only */
    uint8_t max_delta_counter; /* 1..14 */
};

/* 0 or -EINVAL: field sizes, alignment, overlaps within data_length */
int vd_e2e_p01_validate(const struct vd_e2e_p01_cfg *c);
void vd_e2e_p01_tx_init(struct vd_e2e_tx *s);
void vd_e2e_p01_rx_init(struct vd_e2e_rx *s);
/* write counter (and ID nibble) and CRC into data[0..len); 0 or -EINVAL (len too short) */
int vd_e2e_p01_protect(const struct vd_e2e_p01_cfg *c, struct vd_e2e_tx *s, uint8_t *data, int len);
/* data NULL: no new frame. Updates s and returns its new status. */
enum vd_e2e_status vd_e2e_p01_check(const struct vd_e2e_p01_cfg *c, struct vd_e2e_rx *s,
                                    const uint8_t *data, int len);

/* ---- profile 2: CRC8H2F, counter 0..15 in byte 1 low nibble, Data ID list -------------------- */

struct vd_e2e_p02_cfg {
    uint16_t data_length;      /* [bit] incl. CRC byte 0, multiple of 8, 16..512 */
    uint8_t data_id_list[16];  /* Data ID per counter value */
    uint8_t max_delta_counter; /* 1..15 */
};

int vd_e2e_p02_validate(const struct vd_e2e_p02_cfg *c);
void vd_e2e_p02_tx_init(struct vd_e2e_tx *s);
void vd_e2e_p02_rx_init(struct vd_e2e_rx *s);
/* counter + 1 first, then CRC over bytes 1..n-1 and data_id_list[counter] into byte 0 */
int vd_e2e_p02_protect(const struct vd_e2e_p02_cfg *c, struct vd_e2e_tx *s, uint8_t *data, int len);
enum vd_e2e_status vd_e2e_p02_check(const struct vd_e2e_p02_cfg *c, struct vd_e2e_rx *s,
                                    const uint8_t *data, int len);

/* ---- profile 5: CRC16, 8-bit counter, 16-bit implicit Data ID, 3-byte header at offset --- */

struct vd_e2e_p05_cfg {
    uint16_t offset;      /* [bit] header position, multiple of 8 */
    uint16_t data_length; /* [bit] incl. header, multiple of 8, offset + 24 .. 4096*8 */
    uint16_t data_id;
    uint8_t max_delta_counter; /* 1..255 */
};

int vd_e2e_p05_validate(const struct vd_e2e_p05_cfg *c);
void vd_e2e_p05_tx_init(struct vd_e2e_tx *s);
void vd_e2e_p05_rx_init(struct vd_e2e_rx *s);
/* counter at offset/8 + 2, CRC16 little endian at offset/8, then counter + 1 */
int vd_e2e_p05_protect(const struct vd_e2e_p05_cfg *c, struct vd_e2e_tx *s, uint8_t *data, int len);
enum vd_e2e_status vd_e2e_p05_check(const struct vd_e2e_p05_cfg *c, struct vd_e2e_rx *s,
                                    const uint8_t *data, int len);

#endif /* VD_IO_E2E_H */
