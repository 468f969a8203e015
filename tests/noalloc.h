/* tests/noalloc.h - malloc & co. interposed in a test executable (or an LD_PRELOAD object)
 * for the zero-allocation tests: symbol interposition also catches the calls made inside
 * shared libraries (liblapacke, libopenblas, glibc's stdio), which -Wl,--wrap would miss.
 * Every call is forwarded to glibc's __libc_* entry points and counted while `armed` is set.
 * Include in exactly one translation unit (it defines malloc, calloc, realloc, free,
 * aligned_alloc, memalign, posix_memalign). Not for ASan/TSan builds, which replace malloc
 * themselves. */
#ifndef VD_TESTS_NOALLOC_H
#define VD_TESTS_NOALLOC_H

#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/resource.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t sz);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);
extern void __libc_free(void *p);

static atomic_int armed;  /* count while set */
static atomic_long calls; /* allocator calls while armed */

static inline void count(void)
{
    if (atomic_load_explicit(&armed, memory_order_relaxed))
        atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
}

void *malloc(size_t n)
{
    count();
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t sz)
{
    count();
    return __libc_calloc(n, sz);
}

void *realloc(void *p, size_t n)
{
    count();
    return __libc_realloc(p, n);
}

void free(void *p)
{
    count();
    __libc_free(p);
}

void *aligned_alloc(size_t align, size_t n)
{
    count();
    return __libc_memalign(align, n);
}

void *memalign(size_t align, size_t n)
{
    count();
    return __libc_memalign(align, n);
}

int posix_memalign(void **p, size_t align, size_t n)
{
    count();
    *p = __libc_memalign(align, n);
    return *p ? 0 : ENOMEM;
}

/* minor page faults of the process so far */
static inline long minflt(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

#endif /* VD_TESTS_NOALLOC_H */
