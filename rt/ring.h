/* rt/ring.h - single-producer/single-consumer ring of fixed-size records, after the kernel's
 * circular-buffers.rst: the producer owns `head`, the consumer owns `tail`; each side
 * publishes its index with a release store and reads the other's with an acquire load, so
 * a record is complete before its slot is visible. Indices are free-running 64-bit
 * counters; the capacity is a power of two. A push into a full ring is dropped and counted
 * (it never blocks and never overwrites), so pushed = popped + dropped + still queued.
 * Owns its buffer.
 * vd_ring_init/free: init only, allocate. vd_ring_push (producer thread only), vd_ring_pop
 * (consumer thread only), the counters (any thread): RT-safe, wait-free, no syscalls. */
#ifndef VD_RT_RING_H
#define VD_RT_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VD_CACHELINE 64

struct vd_ring {
    unsigned char *buf; /* (cap * esize) */
    size_t esize;       /* [bytes] one record */
    uint64_t cap;       /* records, 2^order */
    uint64_t mask;      /* cap - 1 */
    char pad0[VD_CACHELINE];
    _Atomic uint64_t head;    /* producer: records pushed (next slot to fill) */
    _Atomic uint64_t dropped; /* producer: pushes refused because the ring was full */
    char pad1[VD_CACHELINE];
    _Atomic uint64_t tail; /* consumer: records popped */
    char pad2[VD_CACHELINE];
};

/* init-time (may allocate) */
/* 2^order records of esize bytes, buffer zeroed (its pages touched); 0, -EINVAL, -ENOMEM */
int vd_ring_init(struct vd_ring *r, size_t esize, int order);
void vd_ring_free(struct vd_ring *r);

/* RT-safe */
/* producer: copy rec in; false (and dropped++) when the ring is full */
bool vd_ring_push(struct vd_ring *r, const void *rec);
/* consumer: copy the oldest record out; false when empty */
bool vd_ring_pop(struct vd_ring *r, void *rec);
/* records queued now (consumer's view) */
uint64_t vd_ring_count(struct vd_ring *r);
uint64_t vd_ring_dropped(struct vd_ring *r);
uint64_t vd_ring_pushed(struct vd_ring *r);

#endif /* VD_RT_RING_H */
