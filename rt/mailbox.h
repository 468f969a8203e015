/* rt/mailbox.h - latest-value mailbox between one writer thread and one reader thread: a
 * triple buffer. The writer fills its private back slot and swaps it with the shared middle
 * slot in one atomic exchange (acq_rel), marking it fresh; the reader, when the middle is
 * fresh, swaps it with its private front slot. Neither side ever waits, retries or takes a
 * lock, and the reader always sees one complete snapshot (never a torn mix of two), the
 * newest one published before its read. A snapshot replaced before the reader took it is
 * counted as overwritten, so published = taken + overwritten + (1 if one is still fresh).
 * Owns its three slots.
 * vd_mailbox_init/free: init only, allocate. Writer side (one thread): vd_mailbox_back,
 * vd_mailbox_publish. Reader side (one thread): vd_mailbox_read. All RT-safe, wait-free. */
#ifndef VD_RT_MAILBOX_H
#define VD_RT_MAILBOX_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ring.h" /* VD_CACHELINE */

struct vd_mailbox {
    unsigned char *slot; /* (3 stride) */
    size_t size;         /* [bytes] payload */
    size_t stride;       /* [bytes] slot spacing, cache-line multiple */
    char pad0[VD_CACHELINE];
    _Atomic unsigned mid; /* index of the middle slot | VD_MAILBOX_FRESH */
    char pad1[VD_CACHELINE];
    unsigned back;                /* writer: slot being filled */
    _Atomic uint64_t published;   /* writer: snapshots published */
    _Atomic uint64_t overwritten; /* writer: published snapshots replaced before being read */
    char pad2[VD_CACHELINE];
    unsigned front;         /* reader: slot last taken */
    bool any;               /* reader: something was taken */
    _Atomic uint64_t taken; /* reader: fresh snapshots taken */
    char pad3[VD_CACHELINE];
};

#define VD_MAILBOX_FRESH 4u

/* init-time (may allocate) */
/* three zeroed slots of size bytes; 0, -EINVAL, -ENOMEM */
int vd_mailbox_init(struct vd_mailbox *mb, size_t size);
void vd_mailbox_free(struct vd_mailbox *mb);

/* RT-safe */
/* writer: the slot to fill. It holds an old snapshot: write every field before publishing */
void *vd_mailbox_back(struct vd_mailbox *mb);
/* writer: make the back slot the newest snapshot */
void vd_mailbox_publish(struct vd_mailbox *mb);
/* reader: the newest snapshot, or NULL if none was ever published. *fresh (may be NULL) is
 * true when it was published after the previous read. The pointer stays valid (and its
 * contents unchanged) until the reader's next vd_mailbox_read. */
const void *vd_mailbox_read(struct vd_mailbox *mb, bool *fresh);
uint64_t vd_mailbox_published(struct vd_mailbox *mb);
uint64_t vd_mailbox_overwritten(struct vd_mailbox *mb);
uint64_t vd_mailbox_taken(struct vd_mailbox *mb);

#endif /* VD_RT_MAILBOX_H */
