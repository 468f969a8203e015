/* tests/io/test_e2e.c - AUTOSAR E2E: CRC check values and library vectors, the tables against
 * a bitwise reference, published P01/P02/P05 protect vectors, every receiver status and
 * counter wrap-around per profile, a VW MQB CHECKSUM/COUNTER frame (P02 with opendbc's
 * per-message Data ID table) built through the DBC encoder, and no allocation in the
 * RT-safe calls. Vectors: zariiii9003/autosar-e2e test/test_crc.py, test_p01.py, test_p02.py,
 * test_p05.py (hil-conventions.md §6). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "io/dbc.h"
#include "io/e2e.h"

/* ---- allocation counter: tests/noalloc.h, counting while `armed` --------------------------- */
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#include "noalloc.h"
#define ALLOC_COUNTING 1
#else
#define ALLOC_COUNTING 0
#endif

/* ---- bitwise reference CRCs (MSB first, no reflection) ----------------------------------------
 */

static uint8_t ref_crc8(const uint8_t *d, size_t n, uint8_t poly, uint8_t init, uint8_t xorout)
{
    uint8_t c = init;

    for (size_t i = 0; i < n; i++) {
        c ^= d[i];
        for (int b = 0; b < 8; b++)
            c = (uint8_t)(c & 0x80 ? (c << 1) ^ poly : c << 1);
    }
    return (uint8_t)(c ^ xorout);
}

static uint16_t ref_crc16(const uint8_t *d, size_t n, uint16_t init)
{
    uint16_t c = init;

    for (size_t i = 0; i < n; i++) {
        c ^= (uint16_t)(d[i] << 8);
        for (int b = 0; b < 8; b++)
            c = (uint16_t)(c & 0x8000 ? (c << 1) ^ 0x1021 : c << 1);
    }
    return c;
}

static bool bytes_eq(const uint8_t *a, const char *hex, int n)
{
    for (int i = 0; i < n; i++) {
        unsigned v;

        if (sscanf(hex + 2 * i, "%2x", &v) != 1 || a[i] != v)
            return false;
    }
    return true;
}

static void test_crc(void)
{
    static const uint8_t check[] = "123456789";
    static const struct {
        uint8_t d[9];
        size_t n;
        uint8_t j1850, h2f;
        uint16_t ccitt;
    } v[] = {
        {{0x00, 0x00, 0x00, 0x00}, 4, 0x59, 0x12, 0x84C0},
        {{0xF2, 0x01, 0x83}, 3, 0x37, 0xC2, 0xD374},
        {{0x0F, 0xAA, 0x00, 0x55}, 4, 0x79, 0xC6, 0x2023},
        {{0x00, 0xFF, 0x55, 0x11}, 4, 0xB8, 0x77, 0xB8F9},
        {{0x33, 0x22, 0x55, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF}, 9, 0xCB, 0x11, 0xF53F},
        {{0x92, 0x6B, 0x55}, 3, 0x8C, 0x33, 0x0745},
        {{0xFF, 0xFF, 0xFF, 0xFF}, 4, 0x74, 0x6C, 0x1D0F},
    };
    uint8_t buf[11];
    int bad = 0;

    /* check values over "123456789" */
    CHECK(vd_e2e_crc8(check, 9, 0, true) == 0x4B, "CRC8 check");
    CHECK(vd_e2e_crc8h2f(check, 9, 0, true) == 0xDF, "CRC8H2F check");
    CHECK(vd_e2e_crc16(check, 9, 0, true) == 0x29B1, "CRC16 check");
    /* magic check: CRC over data + its CRC, before the final XOR */
    memcpy(buf, check, 9);
    buf[9] = 0x4B;
    CHECK(vd_e2e_crc8(buf, 10, 0, true) == (0xC4 ^ 0xFF), "CRC8 magic");
    buf[9] = 0xDF;
    CHECK(vd_e2e_crc8h2f(buf, 10, 0, true) == (0x42 ^ 0xFF), "CRC8H2F magic");
    buf[9] = 0x29;
    buf[10] = 0xB1;
    CHECK(vd_e2e_crc16(buf, 11, 0, true) == 0, "CRC16 magic");

    /* AUTOSAR CRC library vectors */
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        CHECK(vd_e2e_crc8(v[i].d, v[i].n, 0, true) == v[i].j1850, "J1850 vector %zu", i);
        CHECK(vd_e2e_crc8h2f(v[i].d, v[i].n, 0, true) == v[i].h2f, "H2F vector %zu", i);
        CHECK(vd_e2e_crc16(v[i].d, v[i].n, 0, true) == v[i].ccitt, "CCITT vector %zu", i);
    }

    /* tables against the bitwise reference, and chaining == one call */
    for (int t = 0; t < 2000; t++) {
        uint8_t d[64];
        size_t n = (size_t)vt_uniform(0, 65), k = n ? (size_t)vt_uniform(0, (double)n) : 0;

        for (size_t i = 0; i < n; i++)
            d[i] = (uint8_t)vt_uniform(0, 256);
        bad += vd_e2e_crc8(d, n, 0, true) != ref_crc8(d, n, 0x1D, 0xFF, 0xFF);
        bad += vd_e2e_crc8h2f(d, n, 0, true) != ref_crc8(d, n, 0x2F, 0xFF, 0xFF);
        bad += vd_e2e_crc16(d, n, 0, true) != ref_crc16(d, n, 0xFFFF);
        bad += vd_e2e_crc8(d + k, n - k, vd_e2e_crc8(d, k, 0, true), false) !=
               vd_e2e_crc8(d, n, 0, true);
        bad += vd_e2e_crc8h2f(d + k, n - k, vd_e2e_crc8h2f(d, k, 0, true), false) !=
               vd_e2e_crc8h2f(d, n, 0, true);
        bad += vd_e2e_crc16(d + k, n - k, vd_e2e_crc16(d, k, 0, true), false) !=
               vd_e2e_crc16(d, n, 0, true);
    }
    CHECK(bad == 0, "%d table/chaining mismatches", bad);
}

/* ---- published protect vectors ------------------------------------------------------------- */

static struct vd_e2e_p01_cfg p01_cfg(uint8_t mode)
{
    return (struct vd_e2e_p01_cfg){.data_length = 64,
                                   .data_id = 0x123,
                                   .mode = mode,
                                   .crc_offset = 0,
                                   .counter_offset = 8,
                                   .nibble_offset = 12,
                                   .max_delta_counter = 2};
}

static void test_p01_vectors(void)
{
    static const struct {
        uint8_t mode;
        const char *first, *second;
    } v[] = {
        {VD_E2E_P01_BOTH, "CC00000000000000", "9101000000000000"},
        {VD_E2E_P01_ALT, "CE00000000000000", "0201000000000000"},
        {VD_E2E_P01_LOW, "CE00000000000000", "9301000000000000"},
        {VD_E2E_P01_NIBBLE, "2A10000000000000", "7711000000000000"},
    };

    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        struct vd_e2e_p01_cfg c = p01_cfg(v[i].mode);
        struct vd_e2e_tx tx;
        uint8_t d[8] = {0};

        CHECK(vd_e2e_p01_validate(&c) == 0, "P01 mode %d config", v[i].mode);
        vd_e2e_p01_tx_init(&tx);
        CHECK(vd_e2e_p01_protect(&c, &tx, d, 8) == 0 && bytes_eq(d, v[i].first, 8),
              "P01 mode %d counter 0: %02X %02X", v[i].mode, d[0], d[1]);
        CHECK(vd_e2e_p01_protect(&c, &tx, d, 8) == 0 && bytes_eq(d, v[i].second, 8),
              "P01 mode %d counter 1: %02X %02X", v[i].mode, d[0], d[1]);
    }
    /* BOTH recomputed independently: CRC8 (0x1D, start 0, no final XOR) over ID lo, hi, data */
    {
        struct vd_e2e_p01_cfg c = p01_cfg(VD_E2E_P01_BOTH);
        struct vd_e2e_tx tx = {.counter = 7};
        uint8_t d[8] = {0, 0, 0xA5, 1, 2, 3, 4, 5}, r[9] = {0x23, 0x01};

        c.max_delta_counter = 3;
        vd_e2e_p01_protect(&c, &tx, d, 8);
        memcpy(r + 2, d + 1, 7);
        CHECK(d[1] == 7 && d[0] == ref_crc8(r, 9, 0x1D, 0x00, 0x00) && tx.counter == 8,
              "P01 BOTH independent: %02X", d[0]);
    }
    /* counter wraps 14 -> 0 */
    {
        struct vd_e2e_p01_cfg c = p01_cfg(VD_E2E_P01_BOTH);
        struct vd_e2e_tx tx = {.counter = 14};
        uint8_t d[8] = {0};

        vd_e2e_p01_protect(&c, &tx, d, 8);
        CHECK(d[1] == 14 && tx.counter == 0, "P01 counter wrap");
    }
}

static void test_p02_vectors(void)
{
    struct vd_e2e_p02_cfg c = {.data_length = 64, .max_delta_counter = 1};
    struct vd_e2e_tx tx;
    struct vd_e2e_rx rx;
    uint8_t d[8] = {0};

    CHECK(vd_e2e_p02_validate(&c) == 0, "P02 config");
    vd_e2e_p02_tx_init(&tx);
    CHECK(vd_e2e_p02_protect(&c, &tx, d, 8) == 0 && bytes_eq(d, "4501000000000000", 8),
          "P02 zeros: %02X %02X", d[0], d[1]);
    for (int i = 0; i < 16; i++)
        c.data_id_list[i] = (uint8_t)i;
    for (int i = 0; i < 8; i++)
        d[i] = (uint8_t)i;
    tx.counter = 1; /* the frame carries counter 1: protect advances to 2 */
    CHECK(vd_e2e_p02_protect(&c, &tx, d, 8) == 0 && bytes_eq(d, "BC02020304050607", 8),
          "P02 range: %02X", d[0]);
    for (int i = 0; i < 8; i++)
        d[i] = (uint8_t)i;
    tx.counter = 0;
    CHECK(vd_e2e_p02_protect(&c, &tx, d, 8) == 0 && bytes_eq(d, "6101020304050607", 8),
          "P02 range, counter 1: %02X", d[0]);
    /* check: the published frame passes, the same with counter 1 fails */
    vd_e2e_p02_rx_init(&rx);
    rx.counter = 1;
    memcpy(d, (const uint8_t[]){0xBC, 0x02, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07}, 8);
    CHECK(vd_e2e_p02_check(&c, &rx, d, 8) == VD_E2E_OK, "P02 check OK");
    d[1] = 0x01;
    CHECK(vd_e2e_p02_check(&c, &rx, d, 8) == VD_E2E_ERROR, "P02 check wrong counter");
}

static void test_p05_vectors(void)
{
    struct vd_e2e_p05_cfg c = {
        .offset = 0, .data_length = 64, .data_id = 0x1234, .max_delta_counter = 1};
    struct vd_e2e_p05_cfg l = {
        .offset = 64, .data_length = 128, .data_id = 0x1234, .max_delta_counter = 1};
    struct vd_e2e_tx tx;
    struct vd_e2e_rx rx;
    uint8_t d[16] = {0};

    CHECK(vd_e2e_p05_validate(&c) == 0 && vd_e2e_p05_validate(&l) == 0, "P05 configs");
    vd_e2e_p05_tx_init(&tx);
    CHECK(vd_e2e_p05_protect(&c, &tx, d, 8) == 0 && bytes_eq(d, "1CCA000000000000", 8),
          "P05 counter 0: %02X %02X", d[0], d[1]);
    CHECK(vd_e2e_p05_protect(&c, &tx, d, 8) == 0 && bytes_eq(d, "CF8D010000000000", 8),
          "P05 counter 1: %02X %02X", d[0], d[1]);
    /* header at byte 8 of 16 (SOME/IP style) */
    memset(d, 0, sizeof(d));
    vd_e2e_p05_tx_init(&tx);
    CHECK(vd_e2e_p05_protect(&l, &tx, d, 16) == 0 &&
              bytes_eq(d, "00000000000000002891000000000000", 16),
          "P05 offset 8: %02X %02X", d[8], d[9]);
    CHECK(vd_e2e_p05_protect(&l, &tx, d, 16) == 0 &&
              bytes_eq(d, "0000000000000000FBD6010000000000", 16),
          "P05 offset 8, counter 1: %02X %02X", d[8], d[9]);
    /* independent: CRC16 over bytes 2..7 and ID lo, hi; little endian in the frame */
    {
        uint8_t e[8] = {0, 0, 5, 9, 8, 7, 6, 5}, r[8];
        uint16_t crc;

        tx.counter = 5;
        vd_e2e_p05_protect(&c, &tx, e, 8);
        memcpy(r, e + 2, 6);
        r[6] = 0x34;
        r[7] = 0x12;
        crc = ref_crc16(r, 8, 0xFFFF);
        CHECK(e[0] == (crc & 0xFF) && e[1] == crc >> 8 && e[2] == 5 && tx.counter == 6,
              "P05 independent %04X", crc);
    }
    vd_e2e_p05_rx_init(&rx);
    memcpy(d, (const uint8_t[]){0x1C, 0xCA, 0, 0, 0, 0, 0, 0}, 8);
    CHECK(vd_e2e_p05_check(&c, &rx, d, 8) == VD_E2E_OK, "P05 check OK");
    d[2] = 1;
    CHECK(vd_e2e_p05_check(&c, &rx, d, 8) == VD_E2E_ERROR, "P05 check counter changed");
}

/* ---- receiver statuses, generic over the three profiles ------------------------------------ */

struct prof {
    const char *name;
    int mod;   /* counter modulus */
    int first; /* first counter a fresh sender transmits */
    int max_delta;
    int (*protect)(const void *c, struct vd_e2e_tx *s, uint8_t *d, int len);
    enum vd_e2e_status (*check)(const void *c, struct vd_e2e_rx *s, const uint8_t *d, int len);
    void (*tx_init)(struct vd_e2e_tx *s);
    void (*rx_init)(struct vd_e2e_rx *s);
    int (*counter)(const uint8_t *d); /* counter carried by a frame */
    const void *cfg;
    int len;
};

static int p01_protect(const void *c, struct vd_e2e_tx *s, uint8_t *d, int len)
{
    return vd_e2e_p01_protect(c, s, d, len);
}
static enum vd_e2e_status p01_check(const void *c, struct vd_e2e_rx *s, const uint8_t *d, int len)
{
    return vd_e2e_p01_check(c, s, d, len);
}
static int p01_counter(const uint8_t *d)
{
    return d[1] & 0x0F;
}
static int p02_protect(const void *c, struct vd_e2e_tx *s, uint8_t *d, int len)
{
    return vd_e2e_p02_protect(c, s, d, len);
}
static enum vd_e2e_status p02_check(const void *c, struct vd_e2e_rx *s, const uint8_t *d, int len)
{
    return vd_e2e_p02_check(c, s, d, len);
}
static int p05_protect(const void *c, struct vd_e2e_tx *s, uint8_t *d, int len)
{
    return vd_e2e_p05_protect(c, s, d, len);
}
static enum vd_e2e_status p05_check(const void *c, struct vd_e2e_rx *s, const uint8_t *d, int len)
{
    return vd_e2e_p05_check(c, s, d, len);
}
static int p05_counter(const uint8_t *d)
{
    return d[2];
}

/* make the next frame: fresh payload byte, then protect */
static void frame(const struct prof *p, struct vd_e2e_tx *tx, uint8_t *d, int k)
{
    d[6] = (uint8_t)k;
    d[7] = (uint8_t)(k * 7);
    CHECK(p->protect(p->cfg, tx, d, p->len) == 0, "%s protect", p->name);
}

static void expect(const struct prof *p, struct vd_e2e_rx *rx, const uint8_t *d, int len,
                   enum vd_e2e_status want, const char *what)
{
    enum vd_e2e_status st = p->check(p->cfg, rx, d, len);

    CHECK(st == want && rx->status == want, "%s: %s: %s, expected %s", p->name, what,
          vd_e2e_status_name(st), vd_e2e_status_name(want));
}

static void run_statuses(const struct prof *p)
{
    struct vd_e2e_tx tx;
    struct vd_e2e_rx rx;
    uint8_t d[8] = {0}, old[8], bad[8];
    uint32_t total = 0;
    int k = 0, wraps = 0, last;

    p->tx_init(&tx);
    p->rx_init(&rx);
    expect(p, &rx, NULL, 0, VD_E2E_NO_NEW_DATA, "nothing received");
    frame(p, &tx, d, k++);
    CHECK(p->counter(d) == p->first, "%s: first counter %d", p->name, p->counter(d));
    expect(p, &rx, d, 8, VD_E2E_OK, "first frame");
    expect(p, &rx, d, 8, VD_E2E_REPEATED, "same frame again");
    expect(p, &rx, NULL, 0, VD_E2E_NO_NEW_DATA, "no frame");
    memcpy(old, d, 8);
    frame(p, &tx, d, k++);
    expect(p, &rx, d, 8, VD_E2E_OK, "next frame");

    /* one lost frame: delta 2 <= max_delta */
    frame(p, &tx, d, k++);
    frame(p, &tx, d, k++);
    expect(p, &rx, d, 8, VD_E2E_OK_SOME_LOST, "one frame lost");
    /* max_delta lost: delta max_delta + 1 */
    for (int i = 0; i < p->max_delta + 1; i++)
        frame(p, &tx, d, k++);
    expect(p, &rx, d, 8, VD_E2E_WRONG_SEQUENCE, "too many lost");
    frame(p, &tx, d, k++);
    expect(p, &rx, d, 8, VD_E2E_OK, "resynchronised");
    /* an old frame replayed */
    expect(p, &rx, old, 8, VD_E2E_WRONG_SEQUENCE, "old frame replayed");
    /* the replay took the state back to its counter (every non-error frame sets it) */
    frame(p, &tx, d, k++);
    expect(p, &rx, d, 8, VD_E2E_WRONG_SEQUENCE, "after the replay");

    /* corruption: payload bit, CRC bit, counter; short frame. The state is kept. */
    frame(p, &tx, d, k++);
    memcpy(bad, d, 8);
    bad[5] ^= 0x10;
    expect(p, &rx, bad, 8, VD_E2E_ERROR, "payload bit flipped");
    memcpy(bad, d, 8);
    bad[p->counter == p05_counter ? 1 : 0] ^= 0x01;
    expect(p, &rx, bad, 8, VD_E2E_ERROR, "CRC bit flipped");
    memcpy(bad, d, 8);
    if (p->counter == p05_counter)
        bad[2] ^= 0x01;
    else
        bad[1] ^= 0x01;
    expect(p, &rx, bad, 8, VD_E2E_ERROR, "counter bit flipped");
    expect(p, &rx, d, 7, VD_E2E_ERROR, "frame too short");
    expect(p, &rx, d, 8, VD_E2E_OK, "intact frame after errors");

    /* three full counter cycles, every frame OK, counter wraps */
    last = p->counter(d);
    for (int i = 0; i < 3 * p->mod; i++) {
        enum vd_e2e_status st;

        frame(p, &tx, d, k++);
        wraps += p->counter(d) < last;
        last = p->counter(d);
        st = p->check(p->cfg, &rx, d, 8);
        if (st != VD_E2E_OK) {
            CHECK(0, "%s: cycle frame %d: %s", p->name, i, vd_e2e_status_name(st));
            break;
        }
    }
    CHECK(wraps == 3, "%s: %d counter wraps", p->name, wraps);
    for (int i = 0; i < VD_E2E_NSTATUS; i++)
        total += rx.count[i];
    CHECK(total == 15 + 3 * (uint32_t)p->mod && rx.count[VD_E2E_ERROR] == 4 &&
              rx.count[VD_E2E_NO_NEW_DATA] == 2 && rx.count[VD_E2E_REPEATED] == 1,
          "%s: status counts (%u checks)", p->name, total);
}

static void test_statuses(void)
{
    struct vd_e2e_p01_cfg c1 = p01_cfg(VD_E2E_P01_BOTH);
    struct vd_e2e_p01_cfg c1n = p01_cfg(VD_E2E_P01_NIBBLE);
    struct vd_e2e_p02_cfg c2 = {.data_length = 64, .max_delta_counter = 3};
    struct vd_e2e_p05_cfg c5 = {.data_length = 64, .data_id = 0xBEEF, .max_delta_counter = 4};
    struct prof p[4] = {
        {"P01 BOTH", 15, 0, 2, p01_protect, p01_check, vd_e2e_p01_tx_init, vd_e2e_p01_rx_init,
         p01_counter, &c1, 8},
        {"P01 NIBBLE", 15, 0, 2, p01_protect, p01_check, vd_e2e_p01_tx_init, vd_e2e_p01_rx_init,
         p01_counter, &c1n, 8},
        {"P02", 16, 1, 3, p02_protect, p02_check, vd_e2e_p02_tx_init, vd_e2e_p02_rx_init,
         p01_counter, &c2, 8},
        {"P05", 256, 0, 4, p05_protect, p05_check, vd_e2e_p05_tx_init, vd_e2e_p05_rx_init,
         p05_counter, &c5, 8},
    };

    for (int i = 0; i < 16; i++)
        c2.data_id_list[i] = (uint8_t)(0x30 + 7 * i);
    for (int i = 0; i < 4; i++)
        run_statuses(&p[i]);

    /* P01 specifics: counter 15 is invalid; NIBBLE checks the Data ID nibble */
    {
        struct vd_e2e_tx tx = {.counter = 3};
        struct vd_e2e_rx rx;
        uint8_t d[8] = {0};

        vd_e2e_p01_rx_init(&rx);
        vd_e2e_p01_protect(&c1n, &tx, d, 8);
        CHECK((d[1] >> 4) == 0x1, "NIBBLE: ID nibble 0x1 in the high nibble: %02X", d[1]);
        d[1] = (uint8_t)((d[1] & 0x0F) | 0x20);
        CHECK(vd_e2e_p01_check(&c1n, &rx, d, 8) == VD_E2E_ERROR, "NIBBLE: wrong ID nibble");
        d[1] = 0x0F;
        d[0] = 0;
        for (int crc = 0; crc < 256; crc++) {
            d[0] = (uint8_t)crc;
            if (vd_e2e_p01_check(&c1, &rx, d, 8) != VD_E2E_ERROR)
                break;
        }
        CHECK(rx.count[VD_E2E_ERROR] == 257, "P01 counter 15 never accepted (%u errors)",
              rx.count[VD_E2E_ERROR]);
    }
    CHECK(!strcmp(vd_e2e_status_name(VD_E2E_OK_SOME_LOST), "OK_SOME_LOST") &&
              !strcmp(vd_e2e_status_name((enum vd_e2e_status)99), "?"),
          "status names");
}

static void test_validate(void)
{
    struct vd_e2e_p01_cfg c1 = p01_cfg(VD_E2E_P01_BOTH);
    struct vd_e2e_p02_cfg c2 = {.data_length = 64, .max_delta_counter = 1};
    struct vd_e2e_p05_cfg c5 = {.data_length = 64, .max_delta_counter = 1};
    struct vd_e2e_tx tx = {0};
    uint8_t d[8] = {0};

    c1.data_length = 60;
    CHECK(vd_e2e_p01_validate(&c1) == -EINVAL, "P01 length not bytes");
    c1 = p01_cfg(VD_E2E_P01_BOTH);
    c1.data_length = 248;
    CHECK(vd_e2e_p01_validate(&c1) == -EINVAL, "P01 above 240 bits");
    c1 = p01_cfg(VD_E2E_P01_BOTH);
    c1.counter_offset = 4;
    CHECK(vd_e2e_p01_validate(&c1) == -EINVAL, "P01 counter in the CRC byte");
    c1 = p01_cfg(VD_E2E_P01_BOTH);
    c1.counter_offset = 10;
    CHECK(vd_e2e_p01_validate(&c1) == -EINVAL, "P01 counter not nibble aligned");
    c1 = p01_cfg(VD_E2E_P01_NIBBLE);
    c1.data_id = 0x1123;
    CHECK(vd_e2e_p01_validate(&c1) == -EINVAL, "P01 NIBBLE id above 12 bits");
    c1 = p01_cfg(VD_E2E_P01_NIBBLE);
    c1.nibble_offset = 8;
    CHECK(vd_e2e_p01_validate(&c1) == -EINVAL, "P01 nibble on the counter");
    c1 = p01_cfg(VD_E2E_P01_BOTH);
    c1.max_delta_counter = 15;
    CHECK(vd_e2e_p01_validate(&c1) == -EINVAL, "P01 max delta 15");
    c1 = p01_cfg(VD_E2E_P01_BOTH);
    c1.crc_offset = 16;
    c1.counter_offset = 4;
    CHECK(vd_e2e_p01_validate(&c1) == 0, "P01 CRC in byte 2, counter in byte 0 high nibble");
    CHECK(vd_e2e_p01_protect(&c1, &tx, d, 7) == -EINVAL, "P01 short buffer");
    c2.data_length = 8;
    CHECK(vd_e2e_p02_validate(&c2) == -EINVAL, "P02 one byte");
    c2.data_length = 64;
    c2.max_delta_counter = 0;
    CHECK(vd_e2e_p02_validate(&c2) == -EINVAL, "P02 max delta 0");
    c5.offset = 48;
    CHECK(vd_e2e_p05_validate(&c5) == -EINVAL, "P05 header beyond the data");
    c5.offset = 4;
    CHECK(vd_e2e_p05_validate(&c5) == -EINVAL, "P05 offset not bytes");
    c5.offset = 40;
    CHECK(vd_e2e_p05_validate(&c5) == 0, "P05 header in the last 3 bytes");
    CHECK(vd_e2e_p05_protect(&c5, &tx, d, 7) == -EINVAL, "P05 short buffer");
}

/* ---- VW MQB: CHECKSUM byte 0 + COUNTER = P02 with a per-message Data ID table ------------- */

/* opendbc volkswagen_mqb_meb_checksum, written out with the bitwise CRC: CRC8H2F register
 * from 0xFF over bytes 1..n-1, then the table byte of the counter, final XOR 0xFF */
static uint8_t mqb_checksum(const uint8_t *d, int n, const uint8_t *table)
{
    uint8_t buf[65];

    memcpy(buf, d + 1, (size_t)n - 1);
    buf[n - 1] = table[d[1] & 0x0F];
    return ref_crc8(buf, (size_t)n, 0x2F, 0xFF, 0xFF);
}

static void test_mqb(void)
{
    /* commaai/opendbc mqbcan.py VOLKSWAGEN_MQB_MEB_CONSTANTS */
    static const uint8_t acc_06[16] = {0x37, 0x7D, 0xF3, 0xA9, 0x18, 0x46, 0x6D, 0x4D,
                                       0x3D, 0x71, 0x92, 0x9C, 0xE5, 0x32, 0x10, 0xB9};
    struct vd_dbc *db = vd_dbc_load("tests/io/data/vw_mqb.dbc", NULL);
    const struct vd_dbc_msg *m = db ? vd_dbc_find_id(db, 0x122, false) : NULL;
    struct vd_e2e_p02_cfg c = {.data_length = 64, .max_delta_counter = 1};
    struct vd_e2e_tx tx;
    struct vd_e2e_rx rx;
    int bad = 0, n = 0;

    CHECK(m && !strcmp(m->name, "ACC_06"), "ACC_06 0x122");
    if (!m)
        goto out;
    memcpy(c.data_id_list, acc_06, 16);
    CHECK(vd_e2e_p02_validate(&c) == 0, "MQB P02 config");
    vd_e2e_p02_tx_init(&tx);
    vd_e2e_p02_rx_init(&rx);
    for (int k = 0; k < 40; k++) {
        const struct vd_dbc_sig *acc = vd_dbc_find_sig(m, "ACC_Sollbeschleunigung_02");
        const struct vd_dbc_sig *st = vd_dbc_find_sig(m, "ACC_Status_ACC");
        const struct vd_dbc_sig *cs = vd_dbc_find_sig(m, "CHECKSUM");
        const struct vd_dbc_sig *ct = vd_dbc_find_sig(m, "COUNTER");
        uint8_t d[8] = {0};
        double a = -3.0 + 0.125 * k, chk = -1, cnt = -1;

        if (!acc || !st || !cs || !ct) {
            bad++;
            break;
        }
        bad += vd_dbc_encode(d, 8, m, acc, a) != 0;
        bad += vd_dbc_encode(d, 8, m, st, 3) != 0;
        bad += vd_e2e_p02_protect(&c, &tx, d, 8) != 0;
        /* the DBC view of the header: CHECKSUM @0|8, COUNTER @8|4 */
        bad += vd_dbc_decode(d, 8, m, cs, &chk) != 0 || vd_dbc_decode(d, 8, m, ct, &cnt) != 0;
        bad += (int)cnt != (k + 1) % 16;
        bad += (int)chk != mqb_checksum(d, 8, acc_06);
        bad += vd_e2e_p02_check(&c, &rx, d, 8) != VD_E2E_OK;
        n++;
    }
    CHECK(n == 40 && bad == 0, "MQB ACC_06: %d frames, %d mismatches", n, bad);
    /* ESP_02 (0x101) uses 0xAA for every counter */
    {
        static const uint8_t esp_02[16] = {0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA,
                                           0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA};
        uint8_t d[8] = {0, 0, 0x7F, 0x20, 0x02, 0, 0, 0};

        memcpy(c.data_id_list, esp_02, 16);
        vd_e2e_p02_tx_init(&tx);
        vd_e2e_p02_protect(&c, &tx, d, 8);
        CHECK(d[0] == mqb_checksum(d, 8, esp_02) && d[1] == 1, "MQB ESP_02 checksum %02X", d[0]);
    }
out:
    vd_dbc_free(db);
}

/* ---- RT contract --------------------------------------------------------------------------- */

static void test_no_alloc(void)
{
    struct vd_e2e_p01_cfg c1 = p01_cfg(VD_E2E_P01_ALT);
    struct vd_e2e_p02_cfg c2 = {.data_length = 64, .max_delta_counter = 1};
    struct vd_e2e_p05_cfg c5 = {.data_length = 448, .data_id = 7, .max_delta_counter = 1};
    struct vd_e2e_tx t1, t2, t5;
    struct vd_e2e_rx r1, r2, r5;
    uint8_t d[64] = {0};
    int bad = 0;

    vd_e2e_p01_tx_init(&t1);
    vd_e2e_p02_tx_init(&t2);
    vd_e2e_p05_tx_init(&t5);
    vd_e2e_p01_rx_init(&r1);
    vd_e2e_p02_rx_init(&r2);
    vd_e2e_p05_rx_init(&r5);
#if ALLOC_COUNTING
    calls = 0;
    armed = 1;
#endif
    for (int i = 0; i < 10000; i++) {
        d[5] = (uint8_t)i;
        vd_e2e_p01_protect(&c1, &t1, d, 8);
        bad += vd_e2e_p01_check(&c1, &r1, d, 8) != VD_E2E_OK;
        vd_e2e_p02_protect(&c2, &t2, d, 8);
        bad += vd_e2e_p02_check(&c2, &r2, d, 8) != VD_E2E_OK;
        vd_e2e_p05_protect(&c5, &t5, d + 8, 56);
        bad += vd_e2e_p05_check(&c5, &r5, d + 8, 56) != VD_E2E_OK;
    }
#if ALLOC_COUNTING
    armed = 0;
    CHECK(calls == 0, "%ld allocations in protect/check", (long)calls);
#endif
    CHECK(bad == 0, "%d unexpected statuses in the loop", bad);
}

int main(void)
{
    test_crc();
    test_p01_vectors();
    test_p02_vectors();
    test_p05_vectors();
    test_statuses();
    test_validate();
    test_mqb();
    test_no_alloc();
    return vt_report("test_e2e");
}
