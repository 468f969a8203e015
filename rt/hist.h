/* rt/hist.h - latency histogram with 1 us buckets, as cyclictest keeps them: bucket i counts
 * samples in [i, i + 1) us, samples of nbucket us and more (or negative) are overflows; the
 * cycle numbers of the first VD_HIST_OUTLIERS overflows are kept, plus min / max / sum over
 * all samples. Owns its bucket array. Writers print cyclictest's `-h` text format (one
 * column) and a JSON object (non-zero buckets, like cyclictest --json).
 * vd_hist_init/free, vd_hist_write_*: init/exit only (allocate, stdio). vd_hist_add: RT-safe. */
#ifndef VD_RT_HIST_H
#define VD_RT_HIST_H

#include <stdint.h>
#include <stdio.h>

#define VD_HIST_OUTLIERS 32
#define VD_HIST_MAX_US   1000000 /* cyclictest's HIST_MAX */

struct vd_hist {
    int nbucket;      /* [us] range: buckets of 1 us */
    uint64_t *bucket; /* (nbucket) samples per bucket */
    uint64_t count;   /* samples, overflows included */
    uint64_t overflow;
    int64_t first_overflow_cycle; /* -1: none */
    int noutlier;
    uint64_t outlier[VD_HIST_OUTLIERS]; /* cycles of the first overflows */
    int64_t min_ns, max_ns;             /* [ns] over all samples (0 when empty) */
    int64_t sum_ns;                     /* [ns] */
};

/* init-time (may allocate) */
/* nbucket in [1, VD_HIST_MAX_US]; zeroed, pages touched; 0, -EINVAL, -ENOMEM */
int vd_hist_init(struct vd_hist *h, int nbucket);
void vd_hist_free(struct vd_hist *h);
void vd_hist_reset(struct vd_hist *h);

/* RT-safe */
/* one sample [ns] taken in cycle `cycle` */
void vd_hist_add(struct vd_hist *h, int64_t ns, uint64_t cycle);
/* integer us as cyclictest prints them (truncated); avg over all samples */
int64_t vd_hist_min_us(const struct vd_hist *h);
int64_t vd_hist_avg_us(const struct vd_hist *h);
int64_t vd_hist_max_us(const struct vd_hist *h);
/* sum of the bucket counts (cyclictest's "# Total:"), = count - overflow */
uint64_t vd_hist_total(const struct vd_hist *h);

/* exit-time (stdio) */
/* cyclictest -h text: "# Histogram", "%06d %06lu" per bucket, "# Total:", "# Min/Avg/Max
 * Latencies:", "# Histogram Overflows:", "# Histogram Overflow at cycle number:" and its
 * "# Thread 0:" line; a title comment first. 0 or -EIO */
int vd_hist_write_cyclictest(FILE *f, const struct vd_hist *h, const char *title);
/* JSON object (no trailing newline): count, min/avg/max [us], overflows, overflow cycles,
 * and "histogram": {"<us>": count, ...} with the non-zero buckets */
void vd_hist_write_json(FILE *f, const struct vd_hist *h, const char *indent);

#endif /* VD_RT_HIST_H */
