/* rt/hist.c - 1 us latency histograms, cyclictest formats. */
#include "hist.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int vd_hist_init(struct vd_hist *h, int nbucket)
{
    memset(h, 0, sizeof(*h));
    if (nbucket < 1 || nbucket > VD_HIST_MAX_US)
        return -EINVAL;
    h->bucket = calloc((size_t)nbucket, sizeof(*h->bucket));
    if (!h->bucket)
        return -ENOMEM;
    h->nbucket = nbucket;
    vd_hist_reset(h);
    return 0;
}

void vd_hist_free(struct vd_hist *h)
{
    free(h->bucket);
    h->bucket = NULL;
    h->nbucket = 0;
}

void vd_hist_reset(struct vd_hist *h)
{
    /* written, not just calloc'ed: the pages are faulted in here, not in the loop */
    memset(h->bucket, 0, (size_t)h->nbucket * sizeof(*h->bucket));
    h->count = h->overflow = 0;
    h->first_overflow_cycle = -1;
    h->noutlier = 0;
    h->min_ns = h->max_ns = h->sum_ns = 0;
}

void vd_hist_add(struct vd_hist *h, int64_t ns, uint64_t cycle)
{
    const int64_t us = ns / 1000;

    if (h->count == 0 || ns < h->min_ns)
        h->min_ns = ns;
    if (h->count == 0 || ns > h->max_ns)
        h->max_ns = ns;
    h->count++;
    h->sum_ns += ns;
    if (ns >= 0 && us < h->nbucket) {
        h->bucket[us]++;
        return;
    }
    if (h->overflow++ == 0)
        h->first_overflow_cycle = (int64_t)cycle;
    if (h->noutlier < VD_HIST_OUTLIERS)
        h->outlier[h->noutlier++] = cycle;
}

int64_t vd_hist_min_us(const struct vd_hist *h)
{
    return h->min_ns / 1000;
}

int64_t vd_hist_avg_us(const struct vd_hist *h)
{
    return h->count ? h->sum_ns / (int64_t)h->count / 1000 : 0;
}

int64_t vd_hist_max_us(const struct vd_hist *h)
{
    return h->max_ns / 1000;
}

uint64_t vd_hist_total(const struct vd_hist *h)
{
    return h->count - h->overflow;
}

int vd_hist_write_cyclictest(FILE *f, const struct vd_hist *h, const char *title)
{
    if (title)
        fprintf(f, "# %s\n", title);
    fprintf(f, "# Histogram\n");
    for (int i = 0; i < h->nbucket; i++)
        fprintf(f, "%06d %06" PRIu64 "\n", i, h->bucket[i]);
    fprintf(f, "# Total: %09" PRIu64 "\n", vd_hist_total(h));
    fprintf(f, "# Min Latencies: %05" PRId64 "\n", vd_hist_min_us(h));
    fprintf(f, "# Avg Latencies: %05" PRId64 "\n", vd_hist_avg_us(h));
    fprintf(f, "# Max Latencies: %05" PRId64 "\n", vd_hist_max_us(h));
    fprintf(f, "# Histogram Overflows: %05" PRIu64 "\n", h->overflow);
    fprintf(f, "# Histogram Overflow at cycle number:\n# Thread 0:");
    for (int i = 0; i < h->noutlier; i++)
        fprintf(f, " %05" PRIu64, h->outlier[i]);
    if ((uint64_t)h->noutlier < h->overflow)
        fprintf(f, " # %05" PRIu64 " others", h->overflow - (uint64_t)h->noutlier);
    fprintf(f, "\n\n");
    return ferror(f) ? -EIO : 0;
}

void vd_hist_write_json(FILE *f, const struct vd_hist *h, const char *indent)
{
    int first = 1;

    fprintf(f, "{\n%s  \"buckets_us\": %d, \"count\": %" PRIu64 ", \"total\": %" PRIu64 ",\n",
            indent, h->nbucket, h->count, vd_hist_total(h));
    fprintf(f,
            "%s  \"min_us\": %.3f, \"avg_us\": %.3f, \"max_us\": %.3f,\n"
            "%s  \"overflows\": %" PRIu64 ", \"first_overflow_cycle\": %" PRId64
            ", \"overflow_cycles\": [",
            indent, (double)h->min_ns * 1e-3,
            h->count ? (double)h->sum_ns / (double)h->count * 1e-3 : 0.0, (double)h->max_ns * 1e-3,
            indent, h->overflow, h->first_overflow_cycle);
    for (int i = 0; i < h->noutlier; i++)
        fprintf(f, "%s%" PRIu64, i ? ", " : "", h->outlier[i]);
    fprintf(f, "],\n%s  \"histogram\": {", indent);
    for (int i = 0; i < h->nbucket; i++) {
        if (!h->bucket[i])
            continue;
        fprintf(f, "%s\"%d\": %" PRIu64, first ? "" : ", ", i, h->bucket[i]);
        first = 0;
    }
    fprintf(f, "}\n%s}", indent);
}
