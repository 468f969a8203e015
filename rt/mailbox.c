/* rt/mailbox.c - triple-buffer latest-value mailbox. */
#include "mailbox.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define IDX_MASK 3u

int vd_mailbox_init(struct vd_mailbox *mb, size_t size)
{
    memset(mb, 0, sizeof(*mb));
    if (size == 0)
        return -EINVAL;
    mb->size = size;
    mb->stride = (size + VD_CACHELINE - 1) / VD_CACHELINE * VD_CACHELINE;
    mb->slot = aligned_alloc(VD_CACHELINE, 3 * mb->stride);
    if (!mb->slot)
        return -ENOMEM;
    memset(mb->slot, 0, 3 * mb->stride);
    /* writer starts on slot 0, middle is 1 (not fresh), reader holds 2 */
    mb->back = 0;
    atomic_init(&mb->mid, 1u);
    mb->front = 2;
    mb->any = false;
    atomic_init(&mb->published, 0);
    atomic_init(&mb->overwritten, 0);
    atomic_init(&mb->taken, 0);
    return 0;
}

void vd_mailbox_free(struct vd_mailbox *mb)
{
    free(mb->slot);
    mb->slot = NULL;
}

void *vd_mailbox_back(struct vd_mailbox *mb)
{
    return mb->slot + (size_t)mb->back * mb->stride;
}

void vd_mailbox_publish(struct vd_mailbox *mb)
{
    /* release: the snapshot is written before the reader can take it; acquire: the reader
     * has finished with the slot it handed back, which becomes our next back slot */
    unsigned old =
        atomic_exchange_explicit(&mb->mid, mb->back | VD_MAILBOX_FRESH, memory_order_acq_rel);

    mb->back = old & IDX_MASK;
    if (old & VD_MAILBOX_FRESH)
        atomic_store_explicit(&mb->overwritten,
                              atomic_load_explicit(&mb->overwritten, memory_order_relaxed) + 1,
                              memory_order_relaxed);
    atomic_store_explicit(&mb->published,
                          atomic_load_explicit(&mb->published, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

const void *vd_mailbox_read(struct vd_mailbox *mb, bool *fresh)
{
    bool got = false;

    if (atomic_load_explicit(&mb->mid, memory_order_relaxed) & VD_MAILBOX_FRESH) {
        /* acquire pairs with the writer's release; release hands our old front back */
        unsigned old = atomic_exchange_explicit(&mb->mid, mb->front, memory_order_acq_rel);

        mb->front = old & IDX_MASK;
        got = true;
        mb->any = true;
        atomic_store_explicit(&mb->taken,
                              atomic_load_explicit(&mb->taken, memory_order_relaxed) + 1,
                              memory_order_relaxed);
    }
    if (fresh)
        *fresh = got;
    return mb->any ? mb->slot + (size_t)mb->front * mb->stride : NULL;
}

uint64_t vd_mailbox_published(struct vd_mailbox *mb)
{
    return atomic_load_explicit(&mb->published, memory_order_relaxed);
}

uint64_t vd_mailbox_overwritten(struct vd_mailbox *mb)
{
    return atomic_load_explicit(&mb->overwritten, memory_order_relaxed);
}

uint64_t vd_mailbox_taken(struct vd_mailbox *mb)
{
    return atomic_load_explicit(&mb->taken, memory_order_relaxed);
}
