/* tests/io/test_mdf4.c [WRITE.mf4] - the MDF 4.10 writer (io/mdf4.h). A fixed input (start
 * time, three channels of both types with units and none, five records) must give
 * tests/io/data/golden.mf4 byte for byte: the file asammdf 8.8.8 (an independent reader, run
 * from a checkout during development) read back with the same channels, units, types, values
 * and time stamps, and that tests/io/mdf4_check.py (the spec's block layout, registered beside
 * this test) walks. While open the file is marked unfinished (UnFinMF, flags for the cycle
 * count and the DT length); rows crossing the 64 KiB buffer land whole; a path that cannot be
 * created is an error. With an argument it only writes the fixed file there (to make the
 * golden file: build/tests/io/test_mdf4 tests/io/data/golden.mf4). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "io/mdf4.h"

static const struct vd_mdf4_chan chans[3] = {{"cycle", "", VD_MDF4_U64},
                                             {"turnaround", "us", VD_MDF4_F64},
                                             {"chassis.vx", "m/s", VD_MDF4_F64}};

static int write_fixed(const char *path)
{
    struct vd_mdf4 w;
    int rc =
        vd_mdf4_open(&w, path, chans, 3, 1700000000123456789LL, "rtvd run <test> & more", "0.1.0");

    for (int i = 0; i < 5 && !rc; i++) {
        const double a = 100.5 + i, b = 0.25 * i;
        uint64_t bits[3];

        bits[0] = (uint64_t)i;
        memcpy(&bits[1], &a, 8);
        memcpy(&bits[2], &b, 8);
        rc = vd_mdf4_row(&w, 0.001 * i, bits);
    }
    return rc ? rc : vd_mdf4_close(&w);
}

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b = NULL;
    long len;

    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    b = malloc((size_t)len + 1);
    if (b && fread(b, 1, (size_t)len, f) != (size_t)len) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *n = (size_t)len;
    return b;
}

int main(int argc, char **argv)
{
    char tmp[] = "/tmp/vd_test_mdf4_XXXXXX";
    unsigned char *got, *want;
    size_t ng = 0, nw = 0;
    struct vd_mdf4 w;
    struct stat st;

    if (argc > 1)
        return write_fixed(argv[1]) ? 1 : 0;
    close(mkstemp(tmp));

    /* the golden file, byte for byte */
    CHECK(write_fixed(tmp) == 0, "write");
    got = slurp(tmp, &ng);
    want = slurp("tests/io/data/golden.mf4", &nw);
    CHECK(got && want, "files read");
    CHECK(ng == nw && got && want && !memcmp(got, want, ng),
          "the fixed input gives tests/io/data/golden.mf4 (%zu and %zu bytes)", ng, nw);
    CHECK(got && ng > 64 && !memcmp(got, "MDF     4.10    rtvd    ", 24), "finalized ID block");
    free(got);
    free(want);

    /* unfinished while open; rows across buffer flushes */
    {
        const struct vd_mdf4_chan one[1] = {{"x", "m", VD_MDF4_F64}};
        const long rows = 20000; /* 16 bytes each: 5 flushes of the 64 KiB buffer */
        long bad = 0;
        size_t n;
        unsigned char *b;

        CHECK(vd_mdf4_open(&w, tmp, one, 1, 0, NULL, NULL) == 0, "open");
        b = slurp(tmp, &n);
        CHECK(b && n > 64 && !memcmp(b, "UnFinMF ", 8) && b[60] == 5 && b[61] == 0,
              "unfinished while open, flags 5");
        free(b);
        for (long i = 0; i < rows; i++) {
            const double v = (double)i;
            uint64_t bits;

            memcpy(&bits, &v, 8);
            bad += vd_mdf4_row(&w, (double)i * 1e-3, &bits) != 0;
        }
        CHECK(bad == 0, "%ld rows failed", bad);
        CHECK(w.rows == (uint64_t)rows, "rows counted");
        CHECK(vd_mdf4_close(&w) == 0, "close");
        CHECK(stat(tmp, &st) == 0 && (uint64_t)st.st_size == w.bytes, "size %lld = %llu",
              (long long)st.st_size, (unsigned long long)w.bytes);
        CHECK((uint64_t)st.st_size == w.dt_off + 24 + (uint64_t)rows * 16, "DT holds the rows");
        b = slurp(tmp, &n);
        if (b) {
            double last;
            uint64_t cycles;

            memcpy(&last, b + n - 8, 8);
            memcpy(&cycles, b + w.cg_off + 80, 8);
            CHECK(last == (double)(rows - 1) && cycles == (uint64_t)rows, "last row, cycle count");
        }
        free(b);
    }

    /* errors */
    CHECK(vd_mdf4_open(&w, "/nonexistent-dir/x.mf4", chans, 3, 0, NULL, NULL) == -ENOENT,
          "missing directory: -ENOENT");
    unlink(tmp);
    return vt_report("test_mdf4");
}
