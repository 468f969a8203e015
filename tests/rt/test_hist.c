/* tests/rt/test_hist.c - 1 us histograms: bucket edges, overflows and their cycles, min/avg/
 * max, and the cyclictest -h text format line by line (as rt-tests' print_hist writes it). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rt/hist.h"

int main(void)
{
    struct vd_hist h;
    char *buf = NULL, line[256];
    size_t len = 0;
    FILE *f;
    int nb = 0, rows_ok = 1;
    unsigned long long total = 0, sum_rows = 0;

    CHECK(vd_hist_init(&h, 0) == -22 && vd_hist_init(&h, VD_HIST_MAX_US + 1) == -22,
          "range checked");
    CHECK(vd_hist_init(&h, 10) == 0, "init");
    CHECK(h.first_overflow_cycle == -1 && vd_hist_total(&h) == 0, "empty");
    vd_hist_add(&h, 0, 0);        /* bucket 0 */
    vd_hist_add(&h, 999, 1);      /* bucket 0: [0, 1) us */
    vd_hist_add(&h, 1000, 2);     /* bucket 1 */
    vd_hist_add(&h, 9999, 3);     /* bucket 9 */
    vd_hist_add(&h, 10000, 4);    /* 10 us: overflow */
    vd_hist_add(&h, 2500000, 40); /* overflow */
    vd_hist_add(&h, -5, 41);      /* negative: overflow */
    CHECK(h.bucket[0] == 2 && h.bucket[1] == 1 && h.bucket[9] == 1, "buckets %llu %llu %llu",
          (unsigned long long)h.bucket[0], (unsigned long long)h.bucket[1],
          (unsigned long long)h.bucket[9]);
    CHECK(h.count == 7 && h.overflow == 3 && vd_hist_total(&h) == 4, "counts");
    CHECK(h.first_overflow_cycle == 4 && h.noutlier == 3 && h.outlier[1] == 40 &&
              h.outlier[2] == 41,
          "overflow cycles");
    CHECK(h.min_ns == -5 && h.max_ns == 2500000, "min/max");
    CHECK(vd_hist_max_us(&h) == 2500 && vd_hist_min_us(&h) == 0, "us");
    CHECK(vd_hist_avg_us(&h) == (0 + 999 + 1000 + 9999 + 10000 + 2500000 - 5) / 7 / 1000, "avg");
    /* many overflows: the first VD_HIST_OUTLIERS cycles kept, the rest counted */
    for (int i = 0; i < 2 * VD_HIST_OUTLIERS; i++)
        vd_hist_add(&h, 50000, 100 + (uint64_t)i);
    CHECK(h.noutlier == VD_HIST_OUTLIERS && h.overflow == 3 + 2 * VD_HIST_OUTLIERS, "outliers");

    /* cyclictest format */
    f = open_memstream(&buf, &len);
    CHECK(vd_hist_write_cyclictest(f, &h, "test") == 0, "write");
    fclose(f);
    f = fmemopen(buf, len, "r");
    CHECK(fgets(line, sizeof(line), f) && !strcmp(line, "# test\n"), "title");
    CHECK(fgets(line, sizeof(line), f) && !strcmp(line, "# Histogram\n"), "# Histogram");
    for (int i = 0; i < 10; i++) {
        unsigned idx;
        unsigned long long n;
        char want[32];

        rows_ok &= fgets(line, sizeof(line), f) != NULL && sscanf(line, "%u %llu", &idx, &n) == 2 &&
                   idx == (unsigned)i && n == h.bucket[i];
        snprintf(want, sizeof(want), "%06d %06llu\n", i, (unsigned long long)h.bucket[i]);
        rows_ok &= !strcmp(line, want);
        sum_rows += n;
        nb++;
    }
    CHECK(rows_ok && nb == 10, "bucket rows '%%06d %%06lu'");
    CHECK(fgets(line, sizeof(line), f) && sscanf(line, "# Total: %llu", &total) == 1 &&
              total == sum_rows && !strcmp(line, "# Total: 000000004\n"),
          "# Total: %s", line);
    CHECK(fgets(line, sizeof(line), f) && !strcmp(line, "# Min Latencies: 00000\n"), "%s", line);
    CHECK(fgets(line, sizeof(line), f) && !strncmp(line, "# Avg Latencies: ", 17), "%s", line);
    CHECK(fgets(line, sizeof(line), f) && !strcmp(line, "# Max Latencies: 02500\n"), "%s", line);
    CHECK(fgets(line, sizeof(line), f) && !strcmp(line, "# Histogram Overflows: 00067\n"), "%s",
          line);
    CHECK(fgets(line, sizeof(line), f) && !strcmp(line, "# Histogram Overflow at cycle number:\n"),
          "%s", line);
    CHECK(fgets(line, sizeof(line), f) &&
              !strncmp(line, "# Thread 0: 00004 00040 00041 00100", 35) &&
              strstr(line, " # 00035 others\n"),
          "%s", line);
    fclose(f);
    free(buf);

    /* JSON: non-zero buckets only */
    buf = NULL;
    f = open_memstream(&buf, &len);
    vd_hist_write_json(f, &h, "");
    fclose(f);
    CHECK(strstr(buf, "\"histogram\": {\"0\": 2, \"1\": 1, \"9\": 1}") != NULL, "json: %s", buf);
    CHECK(strstr(buf, "\"first_overflow_cycle\": 4") != NULL, "json overflow cycle");
    free(buf);

    vd_hist_reset(&h);
    CHECK(h.count == 0 && h.bucket[0] == 0 && h.first_overflow_cycle == -1, "reset");
    vd_hist_free(&h);
    return vt_report("test_hist");
}
