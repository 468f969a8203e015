/* tests/check.h - minimal test harness: counted checks, located failure messages, and a
 * deterministic random generator. A test binary returns vt_report()'s value from main. */
#ifndef VD_TESTS_CHECK_H
#define VD_TESTS_CHECK_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>

static int vt_pass, vt_fail;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (cond) {                                                                                \
            vt_pass++;                                                                             \
        } else {                                                                                   \
            vt_fail++;                                                                             \
            fprintf(stderr, "%s:%d: FAIL: %s: ", __FILE__, __LINE__, #cond);                       \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

/* |a - b| <= tol, printing both */
#define CHECK_NEAR(a, b, tol, what)                                                                \
    CHECK(fabs((double)(a) - (double)(b)) <= (tol), "%s: %.9g vs %.9g (tol %.3g)", what,           \
          (double)(a), (double)(b), (double)(tol))

static inline int vt_report(const char *name)
{
    printf("%s: %d checks passed, %d failed\n", name, vt_pass, vt_fail);
    return vt_fail ? 1 : (vt_pass ? 0 : 1); /* a test that checked nothing fails */
}

/* xorshift64*: reproducible pseudo-random numbers */
static uint64_t vt_rng_state = 0x9E3779B97F4A7C15ull;

static inline double vt_uniform(double lo, double hi)
{
    uint64_t x = vt_rng_state;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    vt_rng_state = x;
    return lo + (hi - lo) * (double)((x * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-53;
}

#endif /* VD_TESTS_CHECK_H */
