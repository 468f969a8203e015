/* core/grow.h - the one growable-array helper of the init-time builders and parsers.
 *
 * Owns: vd_grow, a doubling realloc for the arrays that loaders (config/), parsers (io/dbc)
 * and the model builder (core/model) fill before the real-time loop starts.
 * Real-time contract: allocates; init time only, never called from the loop thread.
 * Header-only so that io/ and config/ use it without linking the core library.
 */
#ifndef VD_CORE_GROW_H
#define VD_CORE_GROW_H

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

/* grow *arr (of elem-sized items, capacity *cap) so that index n fits; 0 or -ENOMEM (also when
 * the new capacity or its byte size would overflow) */
static inline int vd_grow(void **arr, int *cap, int n, size_t elem)
{
    void *p;
    int c;

    if (n < *cap)
        return 0;
    if (n < 0 || n >= INT_MAX / 2)
        return -ENOMEM;
    c = *cap > 0 ? *cap : 8;
    while (c <= n)
        c *= 2;
    if (elem && (size_t)c > SIZE_MAX / elem)
        return -ENOMEM;
    p = realloc(*arr, (size_t)c * elem);
    if (!p)
        return -ENOMEM;
    *arr = p;
    *cap = c;
    return 0;
}

#endif
