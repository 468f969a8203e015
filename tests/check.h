/* tests/check.h - minimal test harness: counted checks, located failure messages, and a
 * deterministic random generator. A test binary returns vt_report()'s value from main. */
#ifndef VD_TESTS_CHECK_H
#define VD_TESTS_CHECK_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

/* the largest ratio error / tolerance of the numerical checks (CHECK_TOL, CHECK_NEAR) and
 * where it was: vt_report prints it, so a run on another CPU or BLAS kernel shows how close
 * each test came to its bound (tests/blas_kernels.sh collects it) */
static double vt_worst_ratio = -1.0;
static const char *vt_worst_file;
static int vt_worst_line;

static inline void vt_ratio(double err, double tol, const char *file, int line)
{
    double r = err == 0.0 ? 0.0 : err / tol; /* an exact check (tol 0) met: 0 */

    if (!(r == r) || (tol <= 0.0 && err != 0.0)) /* NaN, or an exact check missed */
        r = INFINITY;
    if (r > vt_worst_ratio) {
        vt_worst_ratio = r;
        vt_worst_file = file;
        vt_worst_line = line;
    }
}

/* err <= tol for a numerical error with a derived tolerance: counted in vt_worst_ratio */
#define CHECK_TOL(err, tol, ...)                                                                   \
    do {                                                                                           \
        const double vt_e_ = (double)(err), vt_t_ = (double)(tol);                                 \
        vt_ratio(vt_e_, vt_t_, __FILE__, __LINE__);                                                \
        CHECK(vt_e_ <= vt_t_, __VA_ARGS__);                                                        \
    } while (0)

/* |a - b| <= tol, printing both */
#define CHECK_NEAR(a, b, tol, what)                                                                \
    CHECK_TOL(fabs((double)(a) - (double)(b)), tol, "%s: %.9g vs %.9g (tol %.3g)", what,           \
              (double)(a), (double)(b), (double)(tol))

static inline int vt_report(const char *name)
{
    printf("%s: %d checks passed, %d failed\n", name, vt_pass, vt_fail);
    if (vt_worst_ratio >= 0.0) {
        const char *f = strstr(vt_worst_file, "tests/"); /* the path in the source tree */

        printf("%s: worst error/tolerance %.3g (%s:%d)\n", name, vt_worst_ratio,
               f ? f : vt_worst_file, vt_worst_line);
    }
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
