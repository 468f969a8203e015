/* tests/io/dbc_dump.c - print the layout rtvd's DBC parser reads from .dbc files, and
 * deterministic pseudo-random encodings, for tests/io/dbc_crosscheck.py to compare with
 * python3-canmatrix. Tab-separated records, strings escaped (\\ \t \n; a text that is "-" as
 * \\-, so that it differs from "-", none):
 *   F  file  nmsg nsig nval nnote
 *   M  name id ext len fd cycle_ms transmitters(,) nsig comment|-
 *   S  msg sig start lsb size I|M signed factor offset min max unit mux(-|M|m<n>)
 *      int|f32|f64 receivers(,) nval comment|-
 *   L  msg sig raw text                                       (VAL_ entries)
 *   V  msg sig phys raw hex decoded                           (one signal into a zero frame)
 *   K  msg sig reason                                         (signal without random values)
 *   G  msg mux|- hex sig=raw[,sig=raw...]                     (all non-overlapping signals)
 * Raw values of float signals are printed as %.17g of the float; integers as decimal.
 * usage: dbc_dump [--strict] [-s seed] [-n values-per-signal] file.dbc...; exit 1 on any failure
 * (--strict: VD_DBC_STRICT, the defects read with a warning are errors). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/dbc.h"

static uint64_t rng;

/* splitmix64 */
static uint64_t next_u64(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* uniform in [0, 1) */
static double next_unit(void)
{
    return (double)(next_u64() >> 11) * 0x1.0p-53;
}

/* a text field: "-" for none (NULL), a text that is "-" itself as "\\-" */
static void put_esc(const char *s)
{
    if (!s) {
        fputc('-', stdout);
        return;
    }
    if (!strcmp(s, "-")) {
        fputs("\\-", stdout);
        return;
    }
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\\\", stdout);
        else if (*s == '\t')
            fputs("\\t", stdout);
        else if (*s == '\n')
            fputs("\\n", stdout);
        else if (*s == '\r')
            fputs("\\r", stdout);
        else
            fputc(*s, stdout);
    }
}

static void put_hex(const uint8_t *d, int n)
{
    for (int i = 0; i < n; i++)
        printf("%02X", d[i]);
}

/* frame bits of s as a mask of 8 * 64 bits (sawtooth numbering) */
static void sig_bits(const struct vd_dbc_sig *s, uint64_t mask[8])
{
    memset(mask, 0, 8 * sizeof(mask[0]));
    for (int i = 0; i < s->size; i++) {
        int b = s->pos + i;

        if (s->order == VD_DBC_MOTOROLA)
            b = b / 8 * 8 + 7 - b % 8;
        mask[b / 64] |= 1ull << (b % 64);
    }
}

static bool overlaps(const uint64_t a[8], const uint64_t b[8])
{
    for (int i = 0; i < 8; i++)
        if (a[i] & b[i])
            return true;
    return false;
}

/* integer raw interval [*lo, *hi] (two's complement bits for signed signals) allowed by
 * size/sign and [min, max], limited to +-2^53 where doubles hold every integer; false if
 * empty */
static bool raw_interval(const struct vd_dbc_sig *s, uint64_t *lo, uint64_t *hi)
{
    double rlo = s->raw_lo, rhi = s->raw_hi - 1; /* inclusive */

    if (s->min < s->max) {
        double a = (s->min - s->offset) / s->factor, b = (s->max - s->offset) / s->factor;

        if (a > b) {
            double t = a;

            a = b;
            b = t;
        }
        rlo = fmax(rlo, ceil(a - 1e-9));
        rhi = fmin(rhi, floor(b + 1e-9));
    }
    rlo = fmax(rlo, -0x1p53);
    rhi = fmin(rhi, 0x1p53);
    if (!(rlo <= rhi))
        return false;
    *lo = s->is_signed ? (uint64_t)(int64_t)rlo : (uint64_t)rlo;
    *hi = s->is_signed ? (uint64_t)(int64_t)rhi : (uint64_t)rhi;
    return true;
}

/* k-th sample in [lo, hi]: the ends first, then uniform (modular span works for signed) */
static uint64_t pick_raw(int k, uint64_t lo, uint64_t hi)
{
    if (k == 0)
        return lo;
    if (k == 1)
        return hi;
    return lo + next_u64() % (hi - lo + 1);
}

/* physical value for raw (integer signals) as the encoder's caller would compute it */
static double raw_phys(const struct vd_dbc_sig *s, uint64_t raw)
{
    double r = s->is_signed ? (double)(int64_t)raw : (double)raw;

    return r * s->factor + s->offset;
}

static void print_raw(const struct vd_dbc_sig *s, const uint8_t *frame)
{
    uint64_t raw = vd_dbc_get_raw(frame, s);

    if (s->vtype == VD_DBC_FLOAT32) {
        uint32_t u = (uint32_t)raw;
        float f;

        memcpy(&f, &u, sizeof(f));
        printf("%.17g", (double)f);
    } else if (s->vtype == VD_DBC_FLOAT64) {
        double d;

        memcpy(&d, &raw, sizeof(d));
        printf("%.17g", d);
    } else if (s->is_signed) {
        printf("%" PRId64, vd_dbc_get_int(frame, s));
    } else {
        printf("%" PRIu64, raw);
    }
}

/* a random physical value of s that the encoder must accept; false if s has none */
static bool pick_phys(const struct vd_dbc_sig *s, int k, double *phys)
{
    if (s->vtype != VD_DBC_INT) {
        double lo = -1e6, hi = 1e6, x;

        if (s->min < s->max) {
            lo = s->min;
            hi = s->max;
        }
        x = k == 0 ? lo : k == 1 ? hi : lo + (hi - lo) * next_unit();
        if (s->vtype == VD_DBC_FLOAT32) /* a value the float holds exactly */
            x = (double)(float)((x - s->offset) / s->factor) * s->factor + s->offset;
        if (s->min < s->max && (x < s->min || x > s->max))
            x = k == 0 ? s->min : s->max;
        *phys = x;
        return true;
    } else {
        uint64_t lo, hi;

        if (!raw_interval(s, &lo, &hi))
            return false;
        *phys = raw_phys(s, pick_raw(k, lo, hi));
        return true;
    }
}

static int dump_msg(const struct vd_dbc *db, const struct vd_dbc_msg *m, int nval)
{
    int fails = 0;

    printf("M\t");
    put_esc(m->name);
    printf("\t%" PRIu32 "\t%d\t%d\t%d\t%" PRId32 "\t", m->id, m->ext, m->len, m->fd, m->cycle_ms);
    for (int t = 0; t < m->ntx; t++)
        printf("%s%s", t ? "," : "", m->tx[t]);
    printf("\t%d\t", m->nsig);
    put_esc(m->comment);
    fputc('\n', stdout);
    (void)db;

    for (int i = 0; i < m->nsig; i++) {
        const struct vd_dbc_sig *s = &m->sigs[i];

        printf("S\t%s\t%s\t%d\t%d\t%d\t%c\t%d\t%.17g\t%.17g\t%.17g\t%.17g\t", m->name, s->name,
               s->start, s->lsb, s->size, s->order == VD_DBC_INTEL ? 'I' : 'M', s->is_signed,
               s->factor, s->offset, s->min, s->max);
        put_esc(s->unit);
        if (s->mux == VD_DBC_MUX_SWITCH)
            printf("\tM");
        else if (s->mux == VD_DBC_MUXED)
            printf("\tm%" PRIu32, s->mux_val);
        else
            printf("\t-");
        printf("\t%s\t", s->vtype == VD_DBC_FLOAT32   ? "f32"
                         : s->vtype == VD_DBC_FLOAT64 ? "f64"
                                                      : "int");
        for (int r = 0; r < s->nrx; r++)
            printf("%s%s", r ? "," : "", s->rx[r]);
        printf("\t%d\t", s->nval);
        put_esc(s->comment);
        fputc('\n', stdout);
        for (int v = 0; v < s->nval; v++) {
            printf("L\t%s\t%s\t%" PRId64 "\t", m->name, s->name, s->vals[v].raw);
            put_esc(s->vals[v].text);
            fputc('\n', stdout);
        }
    }

    /* single signals into a zero frame */
    for (int i = 0; i < m->nsig; i++) {
        const struct vd_dbc_sig *s = &m->sigs[i];

        if (s->overlaps) {
            printf("K\t%s\t%s\tshares bits with another signal (encode refuses it)\n", m->name,
                   s->name);
            continue;
        }
        for (int k = 0; k < nval; k++) {
            uint8_t frame[VD_DBC_MAX_LEN] = {0};
            double phys, back = NAN;
            int rc;

            if (!pick_phys(s, k, &phys)) {
                printf("K\t%s\t%s\tno raw value satisfies size/sign and [min, max]\n", m->name,
                       s->name);
                break;
            }
            rc = vd_dbc_encode(frame, m->len, m, s, phys);
            if (rc) {
                fprintf(stderr, "%s.%s: encode(%.17g) = %d\n", m->name, s->name, phys, rc);
                fails++;
                continue;
            }
            rc = vd_dbc_decode(frame, m->len, m, s, &back);
            if (rc) {
                fprintf(stderr, "%s.%s: decode after encode(%.17g) = %d\n", m->name, s->name, phys,
                        rc);
                fails++;
            }
            printf("V\t%s\t%s\t%.17g\t", m->name, s->name, phys);
            print_raw(s, frame);
            fputc('\t', stdout);
            put_hex(frame, m->len);
            printf("\t%.17g\n", back);
        }
    }

    /* whole frames: per multiplexer value (or once), every signal that does not overlap */
    {
        uint32_t muxv[VD_DBC_MAX_LEN * 8];
        int nmux = 0;

        if (m->mux) {
            for (int i = 0; i < m->nsig; i++) {
                bool seen = false;

                if (m->sigs[i].mux != VD_DBC_MUXED)
                    continue;
                for (int j = 0; j < nmux; j++)
                    seen |= muxv[j] == m->sigs[i].mux_val;
                if (!seen && nmux < (int)(sizeof(muxv) / sizeof(muxv[0])))
                    muxv[nmux++] = m->sigs[i].mux_val;
            }
        }
        for (int g = 0; g < (nmux ? nmux : 1); g++) {
            uint8_t frame[VD_DBC_MAX_LEN] = {0};
            uint64_t used[8] = {0}, bits[8];
            int put[VD_DBC_MAX_LEN * 8], nput = 0;

            if (nmux) {
                vd_dbc_set_raw(frame, m->mux, muxv[g]);
                sig_bits(m->mux, used);
            }
            for (int i = 0; i < m->nsig; i++) {
                const struct vd_dbc_sig *s = &m->sigs[i];
                double phys;

                if (s->mux == VD_DBC_MUX_SWITCH ||
                    (s->mux == VD_DBC_MUXED && s->mux_val != muxv[g]))
                    continue;
                sig_bits(s, bits);
                if (s->overlaps || overlaps(used, bits) || !pick_phys(s, 2, &phys))
                    continue;
                if (vd_dbc_encode(frame, m->len, m, s, phys)) {
                    fprintf(stderr, "%s.%s: frame encode(%.17g) failed\n", m->name, s->name, phys);
                    fails++;
                    continue;
                }
                for (int w = 0; w < 8; w++)
                    used[w] |= bits[w];
                put[nput++] = i;
            }
            printf("G\t%s\t", m->name);
            if (nmux)
                printf("%" PRIu32 "\t", muxv[g]);
            else
                printf("-\t");
            put_hex(frame, m->len);
            fputc('\t', stdout);
            if (nmux)
                printf("%s=%" PRIu32, m->mux->name, muxv[g]);
            for (int j = 0; j < nput; j++) {
                printf("%s%s=", nmux || j ? "," : "", m->sigs[put[j]].name);
                print_raw(&m->sigs[put[j]], frame);
            }
            fputc('\n', stdout);
        }
    }
    return fails;
}

int main(int argc, char **argv)
{
    uint64_t seed = 1;
    int nval = 16, fails = 0, i = 1;
    unsigned flags = 0;

    for (; i < argc && argv[i][0] == '-'; i += 2) {
        if (!strcmp(argv[i], "--strict")) {
            flags |= VD_DBC_STRICT; /* the lenient defects are errors (io/dbc.h) */
            i--;
            continue;
        }
        if (i + 1 >= argc)
            goto usage;
        if (!strcmp(argv[i], "-s"))
            seed = strtoull(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "-n"))
            nval = atoi(argv[i + 1]);
        else
            goto usage;
    }
    if (i >= argc || nval < 2)
        goto usage;
    for (; i < argc; i++) {
        struct vd_dbc *db = vd_dbc_load_opts(argv[i], flags, stderr);

        if (!db)
            return 1;
        rng = seed;
        printf("F\t%s\t%d\t%d\t%d\t%d\n", argv[i], db->nmsg, db->nsig, db->nval, db->nnote);
        for (int k = 0; k < db->nmsg; k++)
            fails += dump_msg(db, &db->msgs[k], nval);
        vd_dbc_free(db);
    }
    if (fflush(stdout) || ferror(stdout))
        return 1;
    if (fails)
        fprintf(stderr, "dbc_dump: %d failures\n", fails);
    return fails ? 1 : 0;

usage:
    fprintf(stderr, "usage: dbc_dump [--strict] [-s seed] [-n values-per-signal>=2] file.dbc...\n");
    return 2;
}
