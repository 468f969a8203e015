/* rt/ring.c - SPSC ring of fixed-size records. */
#include "ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int vd_ring_init(struct vd_ring *r, size_t esize, int order)
{
    memset(r, 0, sizeof(*r));
    if (esize == 0 || order < 1 || order > 24)
        return -EINVAL;
    r->cap = (uint64_t)1 << order;
    r->mask = r->cap - 1;
    r->esize = esize;
    r->buf = calloc((size_t)r->cap, esize);
    if (!r->buf)
        return -ENOMEM;
    /* calloc may hand out untouched zero pages: write them so the RT path never faults */
    memset(r->buf, 0, (size_t)r->cap * esize);
    atomic_init(&r->head, 0);
    atomic_init(&r->dropped, 0);
    atomic_init(&r->tail, 0);
    return 0;
}

void vd_ring_free(struct vd_ring *r)
{
    free(r->buf);
    r->buf = NULL;
}

bool vd_ring_push(struct vd_ring *r, const void *rec)
{
    const uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
    /* acquire: the consumer has finished copying out of the slot we are about to reuse */
    const uint64_t t = atomic_load_explicit(&r->tail, memory_order_acquire);

    if (h - t >= r->cap) {
        atomic_store_explicit(&r->dropped,
                              atomic_load_explicit(&r->dropped, memory_order_relaxed) + 1,
                              memory_order_relaxed);
        return false;
    }
    memcpy(r->buf + (size_t)(h & r->mask) * r->esize, rec, r->esize);
    /* release: the record is written before the consumer can see the new head */
    atomic_store_explicit(&r->head, h + 1, memory_order_release);
    return true;
}

bool vd_ring_pop(struct vd_ring *r, void *rec)
{
    const uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    /* acquire: pairs with the producer's release of head */
    const uint64_t h = atomic_load_explicit(&r->head, memory_order_acquire);

    if (t == h)
        return false;
    memcpy(rec, r->buf + (size_t)(t & r->mask) * r->esize, r->esize);
    /* release: the slot is read before the producer may overwrite it */
    atomic_store_explicit(&r->tail, t + 1, memory_order_release);
    return true;
}

uint64_t vd_ring_count(struct vd_ring *r)
{
    const uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);

    return atomic_load_explicit(&r->head, memory_order_acquire) - t;
}

uint64_t vd_ring_dropped(struct vd_ring *r)
{
    return atomic_load_explicit(&r->dropped, memory_order_relaxed);
}

uint64_t vd_ring_pushed(struct vd_ring *r)
{
    return atomic_load_explicit(&r->head, memory_order_relaxed);
}
