/* io/can_frame.h - one CAN or CAN FD frame as rtvd's CAN layer passes it around: the common
 * currency of the transports (io/can.h: SocketCAN, cannelloni over UDP), the signal mapping
 * (io/canmap.h) and the virtual ECU. Plain data, no ownership. RT-safe. */
#ifndef VD_IO_CAN_FRAME_H
#define VD_IO_CAN_FRAME_H

#include <stdint.h>

#define VD_CAN_MAX_DLEN 64 /* [byte] CAN FD payload; classic CAN: 8 */

/* id: 11-bit (standard) or 29-bit (extended) identifier without flag bits */
#define VD_CAN_SFF_MASK 0x000007FFu
#define VD_CAN_EFF_MASK 0x1FFFFFFFu

enum vd_can_flags {
    VD_CANF_EFF = 1u << 0, /* extended (29-bit) identifier */
    VD_CANF_RTR = 1u << 1, /* remote transmission request (classic only) */
    VD_CANF_FD = 1u << 2,  /* CAN FD frame (len up to 64) */
    VD_CANF_BRS = 1u << 3, /* FD: bit rate switch */
    VD_CANF_ESI = 1u << 4, /* FD: error state indicator */
    VD_CANF_ERR = 1u << 5, /* error frame (SocketCAN CAN_ERR_FLAG; data = error classes) */
};

struct vd_can_frame {
    uint32_t id;    /* identifier, VD_CAN_SFF_MASK or VD_CAN_EFF_MASK bits */
    uint8_t len;    /* payload length [byte]: 0..8 classic, 0..8,12,16,20,24,32,48,64 FD */
    uint8_t flags;  /* enum vd_can_flags */
    uint8_t pad[2]; /* zero */
    int64_t t_ns;   /* CLOCK_MONOTONIC receive (or send) time [ns]; 0 if unknown */
    uint8_t data[VD_CAN_MAX_DLEN];
};

#endif /* VD_IO_CAN_FRAME_H */
