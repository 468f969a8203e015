/* tests/io/test_dbc.c - DBC parser and signal pack/unpack: facts read from the opendbc files
 * in tests/io/data, hand-computed byte vectors, raw round trips for every size, order and sign
 * against a bit-by-bit reference, physical encode/decode rules, multiplexing, malformed input
 * with its file:line diagnostics, and no allocation in the RT-safe calls. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "io/dbc.h"

#define DATA "tests/io/data/"

/* ---- allocation counter: tests/noalloc.h, counting while `armed` --------------------------- */
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#include "noalloc.h"
#define ALLOC_COUNTING 1
#else
#define ALLOC_COUNTING 0
#endif

/* load a file; its notes are expected and only shown when the file fails to parse */
static struct vd_dbc *load(const char *path)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *err = open_memstream(&buf, &len);
    struct vd_dbc *db = vd_dbc_load(path, err ? err : stderr);

    if (err)
        fclose(err);
    if (!db && buf)
        fputs(buf, stderr);
    free(buf);
    return db;
}

static const struct vd_dbc_msg *msg(const struct vd_dbc *db, const char *name)
{
    const struct vd_dbc_msg *m = db ? vd_dbc_find_msg(db, name) : NULL;

    CHECK(m != NULL, "message %s missing", name);
    return m;
}

static const struct vd_dbc_sig *sig(const struct vd_dbc_msg *m, const char *name)
{
    const struct vd_dbc_sig *s = m ? vd_dbc_find_sig(m, name) : NULL;

    CHECK(s != NULL, "signal %s missing", name);
    return s;
}

static void check_layout(const struct vd_dbc_sig *s, int start, int size, int order, int sgn,
                         double factor, double offset, double min, double max, const char *unit)
{
    if (!s)
        return;
    CHECK(s->start == start && s->size == size && s->order == order && s->is_signed == sgn,
          "%s: %d|%d@%d%c, expected %d|%d@%d%c", s->name, s->start, s->size, s->order,
          s->is_signed ? '-' : '+', start, size, order, sgn ? '-' : '+');
    CHECK(s->factor == factor && s->offset == offset && s->min == min && s->max == max,
          "%s: (%g,%g) [%g|%g]", s->name, s->factor, s->offset, s->min, s->max);
    CHECK(!strcmp(s->unit, unit), "%s: unit '%s', expected '%s'", s->name, s->unit, unit);
}

static int count_ext(const struct vd_dbc *db)
{
    int n = 0;

    for (int i = 0; i < db->nmsg; i++)
        n += db->msgs[i].ext;
    return n;
}

static int count_mux(const struct vd_dbc *db, int kind)
{
    int n = 0;

    for (int i = 0; i < db->nmsg; i++)
        for (int k = 0; k < db->msgs[i].nsig; k++)
            n += db->msgs[i].sigs[k].mux == kind;
    return n;
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

static void hexstr(char *out, const uint8_t *d, int n)
{
    for (int i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02X", d[i]);
}

/* encode phys into a zero frame of len bytes and compare with hex */
static void check_encode(const struct vd_dbc_msg *m, const struct vd_dbc_sig *s, double phys,
                         const char *hex)
{
    uint8_t f[VD_DBC_MAX_LEN] = {0};
    char got[2 * VD_DBC_MAX_LEN + 1];
    int rc;

    if (!m || !s)
        return;
    rc = vd_dbc_encode(f, m->len, m, s, phys);
    hexstr(got, f, m->len);
    CHECK(rc == 0 && bytes_eq(f, hex, (int)strlen(hex) / 2), "%s.%s = %g: rc %d, %s, expected %s",
          m->name, s->name, phys, rc, got, hex);
}

/* ---- facts from the opendbc files --------------------------------------------------------- */

static void test_vw_mqb(void)
{
    struct vd_dbc *db = load(DATA "vw_mqb.dbc");
    const struct vd_dbc_msg *m;
    const struct vd_dbc_sig *s;

    CHECK(db != NULL, "vw_mqb.dbc did not parse");
    if (!db)
        return;
    CHECK(db->nmsg == 113 && db->nsig == 1348, "vw_mqb: %d messages, %d signals", db->nmsg,
          db->nsig);
    CHECK(count_ext(db) == 12, "vw_mqb: %d extended ids", count_ext(db));
    /* VIN_01: one multiplexor and 21 multiplexed signals (hil-conventions §5: 22 in all) */
    CHECK(count_mux(db, VD_DBC_MUX_SWITCH) == 1 && count_mux(db, VD_DBC_MUXED) == 21,
          "vw_mqb: %d switches, %d multiplexed", count_mux(db, VD_DBC_MUX_SWITCH),
          count_mux(db, VD_DBC_MUXED));
    CHECK(db->nval == 641, "vw_mqb: %d VAL_ entries", db->nval);
    /* 17 CM_ SG_ lines name signals that the file does not define: noted, not fatal */
    CHECK(db->nnote == 17, "vw_mqb: %d notes", db->nnote);
    CHECK(db->nnode == 18 && !strcmp(db->nodes[0], "Airbag_MQB"), "vw_mqb: %d nodes", db->nnode);

    m = msg(db, "LWI_01");
    if (m) {
        CHECK(m->id == 0x86 && !m->ext && m->len == 8 && m->nsig == 10, "LWI_01 header");
        check_layout(sig(m, "LWI_Lenkradwinkel"), 16, 13, VD_DBC_INTEL, 0, 0.1, 0, 0, 800,
                     "Unit_DegreOfArc");
        check_layout(sig(m, "LWI_VZ_Lenkradwinkel"), 29, 1, VD_DBC_INTEL, 0, 1, 0, 0, 1, "");
        /* 123.4 deg, negative sign bit: raw 1234 = 0x4D2 at bits 16..28, sign at bit 29 */
        {
            uint8_t f[8] = {0};

            CHECK(vd_dbc_encode(f, 8, m, sig(m, "LWI_Lenkradwinkel"), 123.4) == 0 &&
                      vd_dbc_encode(f, 8, m, sig(m, "LWI_VZ_Lenkradwinkel"), 1) == 0,
                  "LWI_01 encode");
            CHECK(bytes_eq(f, "0000D22400000000", 8), "LWI_01 bytes %02X %02X", f[2], f[3]);
        }
        s = sig(m, "LWI_Lenkradwinkel");
        if (s) {
            uint8_t f[8] = {0, 0, 0xFF, 0x1F, 0, 0, 0, 0}; /* raw 8191 = 819.1 deg > 800 */
            double v = 0;

            CHECK(vd_dbc_decode(f, 8, m, s, &v) == -ERANGE, "LWI above max not flagged");
            /* raw 8191 x 0.1: one product, a few ulp of 819.1 */
            CHECK_NEAR(v, 819.1, 1e-9, "out-of-range value still decoded");
        }
    }
    m = msg(db, "ESP_02");
    if (m) {
        CHECK(m->id == 0x101 && m->len == 8, "ESP_02 header");
        check_layout(sig(m, "ESP_Laengsbeschl"), 24, 10, VD_DBC_INTEL, 0, 0.03125, -16, -16,
                     15.90625, "Unit_MeterPerSeconSquar");
        /* 1.0 m/s^2 = raw 544 = 0x220 at bits 24..33 */
        check_encode(m, sig(m, "ESP_Laengsbeschl"), 1.0, "0000002002000000");
        check_layout(sig(m, "ESP_Querbeschleunigung"), 16, 8, VD_DBC_INTEL, 0, 0.01, -1.27, -1.27,
                     1.27, "Unit_ForceOfGravi");
    }
    m = vd_dbc_find_id(db, 0x17F00015, true);
    CHECK(m && !strcmp(m->name, "KN_Airbag_01") && m->ext && m->nsig == 3,
          "KN_Airbag_01 by extended id");
    CHECK(vd_dbc_find_id(db, 0x17F00015, false) == NULL, "extended id found as standard");

    /* multiplexing: VIN_01_MUX selects VIN characters */
    m = msg(db, "VIN_01");
    if (m) {
        const struct vd_dbc_sig *vin4 = sig(m, "VIN_4"), *vin11 = sig(m, "VIN_11");
        uint8_t f[8] = {0};
        double v;

        CHECK(m->mux && !strcmp(m->mux->name, "VIN_01_MUX") && m->mux->size == 2, "VIN_01 M");
        CHECK(vin4 && vin4->mux == VD_DBC_MUXED && vin4->mux_val == 1 && vin4->start == 8,
              "VIN_4 m1");
        CHECK(vd_dbc_encode(f, 8, m, vin4, 'W') == 0 && f[0] == 1 && f[1] == 'W',
              "VIN_4 encode sets the switch: %02X %02X", f[0], f[1]);
        CHECK(vd_dbc_decode(f, 8, m, vin4, &v) == 0 && v == 'W', "VIN_4 decode");
        CHECK(vd_dbc_decode(f, 8, m, vin11, &v) == -ENOENT, "VIN_11 decoded under mux 1");
        CHECK(vd_dbc_encode(f, 8, m, vin11, 'Z') == 0 && f[0] == 2 && f[1] == 'Z', "VIN_11 encode");
        CHECK(vd_dbc_decode(f, 8, m, vin4, &v) == -ENOENT, "VIN_4 decoded under mux 2");
        CHECK(vd_dbc_decode(f, 8, m, m->mux, &v) == 0 && v == 2, "switch decode");
    }
    /* multi-line comment with UTF-8 text */
    m = msg(db, "Kombi_03");
    s = m ? sig(m, "KBI_Reifenumfang_Sekundaer") : NULL;
    CHECK(s && s->comment && strstr(s->comment, "\n\nPrim\xC3\xA4rachse: KBI_Reifenumfang\n"),
          "multi-line CM_ SG_: %s", s && s->comment ? s->comment : "(none)");
    vd_dbc_free(db);
}

static void test_ford(void)
{
    struct vd_dbc *db = load(DATA "ford_lincoln_base_pt.dbc");
    const struct vd_dbc_msg *m;
    int ncyc = 0, n64 = 0, nfd = 0;

    CHECK(db != NULL, "ford_lincoln_base_pt.dbc did not parse");
    if (!db)
        return;
    CHECK(db->nmsg == 331 && db->nsig == 2150, "ford: %d messages, %d signals", db->nmsg, db->nsig);
    CHECK(count_ext(db) == 49, "ford: %d extended ids", count_ext(db));
    CHECK(db->nval == 7664 && db->nnote == 0, "ford: %d VAL_, %d notes", db->nval, db->nnote);
    for (int i = 0; i < db->nmsg; i++) {
        ncyc += db->msgs[i].cycle_ms > 0;
        n64 += db->msgs[i].len == 64;
        nfd += db->msgs[i].fd;
    }
    /* 156 BA_ GenMsgCycleTime lines, 6 of them 0 ms; default (BA_DEF_DEF_) 0 */
    CHECK(ncyc == 150, "ford: %d messages with a cycle time", ncyc);
    /* 31 frames of 64 bytes; VFrameFormat: 330 explicit *_FD plus the default ExtendedCAN_FD */
    CHECK(n64 == 31 && nfd == 331, "ford: %d 64-byte frames, %d FD", n64, nfd);

    /* hil-conventions §8 cycle times */
    m = msg(db, "WheelSpeed");
    CHECK(m && m->cycle_ms == 10 && m->id == 535, "WheelSpeed 10 ms");
    m = msg(db, "BrakeSnData_3");
    CHECK(m && m->cycle_ms == 20, "BrakeSnData_3 20 ms");
    m = msg(db, "EngVehicleSpThrottle");
    CHECK(m && m->cycle_ms == 10, "EngVehicleSpThrottle 10 ms");

    m = msg(db, "WheelSpeed");
    if (m) {
        const struct vd_dbc_sig *s = sig(m, "WhlFl_W_Meas");

        check_layout(s, 6, 15, VD_DBC_MOTOROLA, 0, 0.01, 0, 0, 327.65, "rad/s");
        CHECK(s && s->lsb == 8 && s->byte_lo == 0 && s->byte_hi == 1, "WhlFl lsb %d",
              s ? s->lsb : -1);
        CHECK(s && s->nval == 2 && !strcmp(vd_dbc_val_text(s, 32767), "Fault") &&
                  vd_dbc_val_text(s, 5) == NULL,
              "WhlFl VAL_");
        /* 100 rad/s = raw 10000 = 0x2710: bits 6..0 of byte 0 and byte 1 */
        check_encode(m, s, 100.0, "2710000000000000");
        check_encode(m, sig(m, "WhlRr_W_Meas"), 327.65, "0000000000007FFD");
    }
    m = msg(db, "SteeringPinion_Data");
    if (m) {
        check_layout(sig(m, "StePinComp_An_Est"), 22, 15, VD_DBC_MOTOROLA, 0, 0.1, -1600, -1600,
                     1676.7, "degrees");
        /* 0 deg = raw 16000 = 0x3E80 in bytes 2..3 */
        check_encode(m, sig(m, "StePinComp_An_Est"), 0.0, "00003E8000000000");
        CHECK(m->cycle_ms == 10 && !strcmp(m->transmitter, "PSCM"), "SteeringPinion_Data");
    }
    m = msg(db, "TesterPhysicalReqVDM_FD1");
    CHECK(m && m->len == 64 && m->fd && m->id == 1825, "64-byte FD frame");
    vd_dbc_free(db);
}

static void test_tesla(void)
{
    struct vd_dbc *db = load(DATA "tesla_can.dbc");
    const struct vd_dbc_msg *m;

    CHECK(db != NULL, "tesla_can.dbc did not parse");
    if (!db)
        return;
    CHECK(db->nmsg == 44 && db->nsig == 572 && count_ext(db) == 0, "tesla: %d msgs %d sigs",
          db->nmsg, db->nsig);
    CHECK(count_mux(db, VD_DBC_MUX_SWITCH) == 2 && count_mux(db, VD_DBC_MUXED) == 36,
          "tesla: %d switches, %d multiplexed", count_mux(db, VD_DBC_MUX_SWITCH),
          count_mux(db, VD_DBC_MUXED));
    /* nodes on indented lines after "BU_:" */
    CHECK(db->nnode == 11 && !strcmp(db->nodes[10], "XXX"), "tesla: %d nodes", db->nnode);
    m = vd_dbc_find_id(db, 1160, false);
    CHECK(m && !strcmp(m->name, "DAS_steeringControl") && m->len == 4, "DAS_steeringControl");
    if (m) {
        const struct vd_dbc_sig *s = sig(m, "DAS_steeringAngleRequest");

        check_layout(s, 6, 15, VD_DBC_MOTOROLA, 0, 0.1, -1638.35, -1638.35, 1638.35, "deg");
        CHECK(s && !strcmp(vd_dbc_val_text(s, 16384), "ZERO_ANGLE"), "ZERO_ANGLE");
        /* raw 16384 (ZERO_ANGLE) is +0.05 deg */
        check_encode(m, s, 16384 * 0.1 - 1638.35, "40000000");
    }
    m = msg(db, "UI_autopilotControl");
    if (m) {
        const struct vd_dbc_sig *s = sig(m, "UI_camBlockLaneCheckThreshold");

        CHECK(m->mux && !strcmp(m->mux->name, "UI_autopilotControlIndex"), "tesla mux");
        check_layout(s, 4, 6, VD_DBC_INTEL, 0, 0.01587, 0, 0, 1, "%");
        CHECK(s && s->mux == VD_DBC_MUXED && s->mux_val == 1, "m1");
    }
    vd_dbc_free(db);
}

/* ---- the synthetic file: floats, 64-bit, FD, attributes, comments, ids ----------------------- */

static void test_synthetic(void)
{
    struct vd_dbc *db = load(DATA "rtvd_test.dbc");
    const struct vd_dbc_msg *m;
    const struct vd_dbc_sig *s;

    CHECK(db != NULL, "rtvd_test.dbc did not parse");
    if (!db)
        return;
    CHECK(db->nmsg == 8 && db->nsig == 30 && db->nval == 7 && db->nnote == 0, "counts");
    CHECK(!strcmp(db->version, "rtvd-test 1") && db->nnode == 4 && !strcmp(db->nodes[3], "PCM") &&
              db->comment && !strcmp(db->comment, "global comment"),
          "header");
    CHECK(db->ncomment == 5, "%d comments", db->ncomment);
    CHECK(db->node_cm[0] && !strcmp(db->node_cm[0], "the HIL target") && !db->node_cm[1],
          "node comments");

    /* the same numeric id as standard and extended frame */
    m = vd_dbc_find_id(db, 1024, false);
    CHECK(m && !strcmp(m->name, "Muxed"), "1024 standard");
    m = vd_dbc_find_id(db, 1024, true);
    CHECK(m && !strcmp(m->name, "Ext_Same"), "1024 extended");
    m = vd_dbc_find_id(db, 0x1FFFFFFF, true);
    CHECK(m && !strcmp(m->name, "Ext_Max"), "largest extended id");
    m = vd_dbc_find_id(db, 0x7FF, false);
    CHECK(m && m->len == 0 && m->nsig == 0, "largest standard id, 0 bytes");
    CHECK(!vd_dbc_find_id(db, 0x800, false) && !vd_dbc_find_id(db, 0x20000000, true) &&
              !vd_dbc_find_id(db, 255, false),
          "absent ids");

    /* attributes: explicit and default cycle time, FD format */
    m = msg(db, "Intel_Mix");
    CHECK(m && m->cycle_ms == 10 && !m->fd && m->ntx == 2 && !strcmp(m->tx[1], "PCM"),
          "Intel_Mix attributes");
    CHECK(m && m->comment && !strcmp(m->comment, "Intel signals of \"all\" sizes"),
          "escaped quotes");
    s = m ? sig(m, "S12") : NULL;
    CHECK(s && s->comment && !strcmp(s->comment, "signed 12-bit\nsecond line with \"quotes\""),
          "multi-line comment");
    CHECK(s && s->nrx == 2 && !strcmp(s->rx[1], "EPS"), "comma receivers");
    s = m ? sig(m, "U20") : NULL;
    CHECK(s && s->nrx == 2 && !strcmp(s->rx[0], "ESC") && !strcmp(s->rx[1], "EPS"),
          "blank-separated receivers");
    m = msg(db, "Neg_Factor");
    CHECK(m && m->cycle_ms == 100, "default cycle time");
    m = msg(db, "Ext_FD64");
    CHECK(m && m->ext && m->id == 0x18FEF115 && m->fd && m->len == 64 && m->cycle_ms == 5,
          "Ext_FD64 header");
    if (m) {
        uint8_t f[64] = {0};
        double v = 0;

        s = sig(m, "F32I");
        CHECK(s && s->vtype == VD_DBC_FLOAT32, "F32I type");
        check_encode(m, s, 1.0, "0000803F");
        check_encode(m, sig(m, "F64I"), -2.5, "0000000000000000000004C0");
        /* factor 2, offset 1: phys 3 is the float 1.0, big endian in bytes 12..15 */
        check_encode(m, sig(m, "F32M"), 3.0, "0000000000000000000000003F800000");
        check_encode(m, sig(m, "F64M"), 1.0, "000000000000000000000000000000003FF0000000000000");
        check_encode(m, sig(m, "U64I"), 0x1p63,
                     "0000000000000000000000000000000000000000000000000000000000000080");
        CHECK(vd_dbc_encode(f, 64, m, sig(m, "U64I"), 0x1p64) == -ERANGE, "2^64 in 64 bits");
        CHECK(vd_dbc_encode(f, 64, m, sig(m, "U64I"), -1) == -ERANGE, "-1 unsigned");
        CHECK(vd_dbc_encode(f, 64, m, sig(m, "S64M"), -0x1p63) == 0 && f[32] == 0x80 &&
                  f[39] == 0 && vd_dbc_get_int(f, sig(m, "S64M")) == INT64_MIN,
              "INT64_MIN Motorola");
        CHECK(vd_dbc_encode(f, 64, m, sig(m, "S64M"), 0x1p63) == -ERANGE, "2^63 signed");
        /* float signal holding NaN: -EDOM, value untouched */
        memset(f + 4, 0xFF, 8);
        v = 42;
        CHECK(vd_dbc_decode(f, 64, m, sig(m, "F64I"), &v) == -EDOM && v == 42, "NaN decode");
        CHECK(vd_dbc_encode(f, 64, m, sig(m, "F32I"), 1000.5) == -ERANGE, "float above max");
        s = sig(m, "U33M_odd");
        CHECK(s && s->lsb == 429 && s->byte_lo == 49 && s->byte_hi == 53, "U33M_odd layout");
        s = sig(m, "S64I_odd");
        CHECK(s && s->byte_lo == 40 && s->byte_hi == 48, "S64I_odd spans 9 bytes");
    }
    vd_dbc_free(db);
}

/* ---- hand-computed vectors, rounding and ranges ------------------------------------------------
 */

static const char vec_dbc[] =
    "BO_ 1 V: 8 N\n"
    " SG_ I12 : 4|12@1+ (1,0) [0|0] \"\" N\n"   /* bits 4..15 */
    " SG_ M12 : 23|12@0+ (1,0) [0|0] \"\" N\n"  /* byte 2, byte 3 high nibble */
    " SG_ M12b : 35|12@0+ (1,0) [0|0] \"\" N\n" /* byte 4 low nibble, byte 5 */
    " SG_ S8 : 48|8@1- (1,0) [0|0] \"\" N\n"
    " SG_ MS3 : 58|3@0- (1,0) [0|0] \"\" N\n" /* byte 7 bits 2..0 */
    "BO_ 2 F: 8 N\n"
    " SG_ F : 0|32@1- (1,0) [0|0] \"\" N\n"
    " SG_ Q : 32|8@1+ (0.5,-10) [-10|100] \"\" N\n"
    " SG_ N : 40|8@1- (1,0) [-10|-5] \"\" N\n"
    "SIG_VALTYPE_ 2 F : 1;\n";

static void test_vectors(void)
{
    struct vd_dbc *db = vd_dbc_parse("vec.dbc", vec_dbc, sizeof(vec_dbc) - 1, stderr);
    const struct vd_dbc_msg *m = db ? msg(db, "V") : NULL;
    uint8_t f[8] = {0}, g[8];
    double v;

    CHECK(db != NULL, "vector DBC did not parse");
    if (!db || !m)
        return;
    vd_dbc_set_raw(f, sig(m, "I12"), 0xABC);
    vd_dbc_set_raw(f, sig(m, "M12"), 0xABC);
    vd_dbc_set_raw(f, sig(m, "M12b"), 0xDEF);
    vd_dbc_set_raw(f, sig(m, "S8"), (uint64_t)-2);
    vd_dbc_set_raw(f, sig(m, "MS3"), (uint64_t)-3);
    CHECK(bytes_eq(f, "C0ABABC00DEFFE05", 8), "vectors: %02X %02X %02X %02X %02X %02X %02X %02X",
          f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]);
    CHECK(vd_dbc_get_raw(f, sig(m, "M12b")) == 0xDEF && vd_dbc_get_int(f, sig(m, "S8")) == -2 &&
              vd_dbc_get_int(f, sig(m, "MS3")) == -3 && vd_dbc_get_raw(f, sig(m, "MS3")) == 5,
          "vector read back");
    CHECK(sig(m, "M12")->lsb == 28 && sig(m, "M12b")->lsb == 40, "Motorola lsb");

    m = msg(db, "F");
    if (!m)
        goto out;
    /* rounding to the nearest raw value, halves away from zero: Q = raw * 0.5 - 10 */
    {
        static const struct {
            double phys, back;
        } r[] = {{0.26, 0.5}, {0.24, 0.0}, {0.25, 0.5}, {-9.75, -9.5}, {-9.76, -10.0}};

        for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
            memset(f, 0, sizeof(f));
            CHECK(vd_dbc_encode(f, 8, m, sig(m, "Q"), r[i].phys) == 0 &&
                      vd_dbc_decode(f, 8, m, sig(m, "Q"), &v) == 0 && v == r[i].back,
                  "Q(%g) -> %g, expected %g", r[i].phys, v, r[i].back);
        }
    }
    /* out of [min, max], not representable, NaN/Inf, short frame: error and frame untouched */
    for (int i = 0; i < 8; i++)
        f[i] = (uint8_t)(0x11 * i);
    memcpy(g, f, 8);
    CHECK(vd_dbc_encode(f, 8, m, sig(m, "Q"), 100.0) == 0, "Q at max");
    memcpy(g, f, 8);
    CHECK(vd_dbc_encode(f, 8, m, sig(m, "Q"), 100.3) == -ERANGE, "Q above max");
    CHECK(vd_dbc_encode(f, 8, m, sig(m, "Q"), -10.3) == -ERANGE, "Q below min");
    CHECK(vd_dbc_encode(f, 8, m, sig(m, "N"), -4) == -ERANGE, "N above max");
    CHECK(vd_dbc_encode(f, 8, m, sig(m, "N"), -10) == 0, "N at min");
    memcpy(g, f, 8);
    CHECK(vd_dbc_encode(f, 8, m, sig(m, "Q"), NAN) == -EDOM, "NaN");
    CHECK(vd_dbc_encode(f, 8, m, sig(m, "Q"), INFINITY) == -EDOM, "Inf");
    CHECK(vd_dbc_encode(f, 8, m, sig(m, "F"), -INFINITY) == -EDOM, "-Inf float");
    CHECK(vd_dbc_encode(f, 8, m, sig(m, "F"), 1e39) == -ERANGE, "float32 overflow");
    CHECK(vd_dbc_encode(f, 4, m, sig(m, "Q"), 0) == -EINVAL, "short frame encode");
    CHECK(vd_dbc_decode(f, 4, m, sig(m, "Q"), &v) == -EINVAL, "short frame decode");
    CHECK(!memcmp(f, g, 8), "frame changed by a failed encode");
    /* decode outside [min, max]: value delivered with -ERANGE */
    f[5] = 0x7F;
    CHECK(vd_dbc_decode(f, 8, m, sig(m, "N"), &v) == -ERANGE && v == 127, "N decode -ERANGE");
out:
    vd_dbc_free(db);
}

/* ---- raw round trips against a bit-by-bit reference ------------------------------------------ */

/* frame bit of each value bit (0 = LSB), walking the DBC way from the start bit */
static void ref_bits(const struct vd_dbc_sig *s, int *pos)
{
    if (s->order == VD_DBC_INTEL) {
        for (int i = 0; i < s->size; i++)
            pos[i] = s->start + i;
    } else {
        int b = s->start; /* MSB; towards the LSB: down within a byte, then next byte's bit 7 */

        for (int j = 0; j < s->size; j++) {
            pos[s->size - 1 - j] = b;
            b = b % 8 == 0 ? b + 15 : b - 1;
        }
    }
}

static uint64_t next_rand(void)
{
    uint64_t a = (uint64_t)(vt_uniform(0, 1) * 0x1p32), b = (uint64_t)(vt_uniform(0, 1) * 0x1p32);

    return a << 32 ^ b;
}

static void test_roundtrip(void)
{
    char *text = malloc(1 << 20);
    size_t n = 0;
    int id = 1, nsig = 0, bad_lsb = 0, bad_get = 0, bad_set = 0, bad_int = 0, bad_phys = 0;
    struct vd_dbc *db;

    /* every size, order and sign at the frame start, odd positions and the frame end */
    for (int size = 1; size <= 64; size++)
        for (int order = 0; order < 2; order++)
            for (int sgn = 0; sgn < 2; sgn++)
                for (int k = 0; k < 4; k++) {
                    int start;

                    if (order == VD_DBC_INTEL)
                        start = k == 0 ? 0 : k == 1 ? 3 : k == 2 ? 8 * 37 + 5 : 512 - size;
                    else {
                        /* MSB in MSB0 numbering m, converted to the sawtooth start bit */
                        int m0 = k == 0 ? 0 : k == 1 ? 6 : k == 2 ? 8 * 41 + 2 : 512 - size;

                        start = m0 / 8 * 8 + 7 - m0 % 8;
                    }
                    n += (size_t)snprintf(
                        text + n, (1 << 20) - n,
                        "BO_ %d M%d: 64 N\n SG_ S : %d|%d@%d%c (1,0) [0|0] \"\" N\n", id, id, start,
                        size, order, sgn ? '-' : '+');
                    id++;
                }
    db = vd_dbc_parse("roundtrip.dbc", text, n, stderr);
    CHECK(db && db->nmsg == 64 * 2 * 2 * 4, "round-trip DBC");
    for (int i = 0; db && i < db->nmsg; i++) {
        const struct vd_dbc_msg *m = &db->msgs[i];
        const struct vd_dbc_sig *s = &m->sigs[0];
        uint64_t mask = s->size == 64 ? ~0ull : (1ull << s->size) - 1;
        int pos[64];

        nsig++;
        ref_bits(s, pos);
        bad_lsb += s->lsb != pos[0];
        for (int t = 0; t < 64; t++) {
            uint8_t bg[64], f[64];
            uint64_t raw = next_rand(), got = 0;
            int64_t sx;

            for (int b = 0; b < 64; b++)
                bg[b] = (uint8_t)next_rand();
            memcpy(f, bg, 64);
            if (t == 0)
                raw = 0;
            else if (t == 1)
                raw = ~0ull;
            vd_dbc_set_raw(f, s, raw);
            /* reference read of the value bits; every other bit must be the background */
            for (int b = 0; b < s->size; b++) {
                got |= (uint64_t)(f[pos[b] / 8] >> (pos[b] % 8) & 1) << b;
                bg[pos[b] / 8] = (uint8_t)(bg[pos[b] / 8] & ~(1u << (pos[b] % 8)));
                f[pos[b] / 8] = (uint8_t)(f[pos[b] / 8] & ~(1u << (pos[b] % 8)));
            }
            bad_set += got != (raw & mask) || memcmp(f, bg, 64);
            /* put the value back and read it with the library */
            vd_dbc_set_raw(f, s, raw);
            bad_get += vd_dbc_get_raw(f, s) != (raw & mask);
            sx = vd_dbc_get_int(f, s);
            if (s->is_signed && s->size < 64 && (raw >> (s->size - 1) & 1))
                bad_int += (uint64_t)sx != ((raw & mask) | ~mask);
            else
                bad_int += (uint64_t)sx != (raw & mask);
            /* physical round trip where doubles hold the raw value exactly */
            {
                double phys = s->is_signed ? (double)sx : (double)(raw & mask), back = NAN;
                uint8_t h[64] = {0};

                if (fabs(phys) < 0x1p53)
                    bad_phys += vd_dbc_encode(h, 64, m, s, phys) != 0 ||
                                vd_dbc_decode(h, 64, m, s, &back) != 0 || back != phys;
            }
        }
    }
    CHECK(nsig == 1024, "%d signals", nsig);
    CHECK(bad_lsb == 0, "%d lsb mismatches", bad_lsb);
    CHECK(bad_set == 0, "%d set_raw mismatches", bad_set);
    CHECK(bad_get == 0, "%d get_raw mismatches", bad_get);
    CHECK(bad_int == 0, "%d sign-extension mismatches", bad_int);
    CHECK(bad_phys == 0, "%d physical round-trip mismatches", bad_phys);
    vd_dbc_free(db);
    free(text);
}

/* ---- malformed input ------------------------------------------------------------------------- */

/* parse text with flags (VD_DBC_STRICT); the first diagnostic line must be expect (NULL: must
 * parse) */
static void check_error_f(const char *text, unsigned flags, const char *expect)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *err = open_memstream(&buf, &len);
    struct vd_dbc *db;
    char *nl;

    if (!err) {
        CHECK(0, "open_memstream");
        return;
    }
    db = vd_dbc_parse_opts("bad.dbc", text, strlen(text), flags, err);
    fclose(err);
    nl = strchr(buf, '\n');
    if (nl)
        *nl = 0;
    if (expect)
        CHECK(!db && !strncmp(buf, expect, strlen(expect)), "got '%s', expected '%s'", buf, expect);
    else
        CHECK(db != NULL, "did not parse: %s", buf);
    vd_dbc_free(db);
    free(buf);
}

static void check_error(const char *text, const char *expect)
{
    check_error_f(text, 0, expect);
}

#define SG(x) " SG_ S : " x " \"\" N\n"

static const char ext_dbc[] = "BO_ 1 X: 8 N\n"
                              " SG_ S M : 0|8@1+ (1,0) [0|0] \"\" N\n"
                              " SG_ S2 m1M : 8|8@1+ (1,0) [0|0] \"\" N\n"
                              " SG_ T m2 : 16|8@1+ (1,0) [0|0] \"\" N\n"
                              "SG_MUL_VAL_ 1 T S2 2-2;\n"
                              "VAL_ 1 Nope 1 \"x\";\n"
                              "CM_ BO_ 7 \"no such message\";\n";

static void test_malformed(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *err;
    struct vd_dbc *db;

    check_error("", NULL);
    check_error("BO_ 1 A: 8 N\n SG_ S : 0|8@2+ (1,0) [0|1] \"\" N\n",
                "bad.dbc:2: error: expected byte order 0 (Motorola) or 1 (Intel) after '@'");
    check_error("VERSION \"\"\n\n SG_ S : 0|8@1+ (1,0) [0|1] \"\" N\n",
                "bad.dbc:3: error: SG_ outside a message");
    check_error("BO_ 1 A: 8 N\nCM_ BO_ 1 \"open\n\n", "bad.dbc:2: error: unterminated string");
    check_error("BO_ 1 A: 1 N\n" SG(" 4|8@1+ (1,0) [0|1]"),
                "bad.dbc:2: error: signal S: bits 4..11 (Intel) exceed the 1-byte frame");
    check_error("BO_ 1 A: 8 N\n" SG("0|0@1+ (1,0) [0|1]"), "bad.dbc:2: error: signal S: size 0");
    check_error("BO_ 1 A: 8 N\n" SG("0|65@1+ (1,0) [0|1]"),
                "bad.dbc:2: error: signal size 65 out of range [0, 64]");
    check_error("BO_ 1 A: 8 N\n" SG("0|8@1+ (0,0) [0|1]"), "bad.dbc:2: error: signal S: factor 0");
    check_error("BO_ 1 A: 8 N\n" SG("0|8@1+ (1,0) [0|1]") SG("8|8@1+ (1,0) [0|1]"),
                "bad.dbc:3: error: signal S: duplicate in message A");
    check_error("BO_ 1 A: 8 N\nBO_ 1 B: 8 N\n",
                "bad.dbc:2: error: message B: duplicate id 0x1 (message A, line 1)");
    check_error("BO_ 1 A: 65 N\n", "bad.dbc:1: error: message length 65 out of range [0, 64]");
    check_error_f("BO_ 4096 A: 8 N\n", VD_DBC_STRICT,
                  "bad.dbc:1: error: message A: id 0x1000 is above 0x7FF without the extended "
                  "flag (bit 31)");
    check_error("BO_ 1073741824 A: 8 N\n",
                "bad.dbc:1: error: message A: id 1073741824 is neither an 11-bit id");
    check_error("BO_ 1 A: 8 N\n SG_ S m1 : 0|8@1+ (1,0) [0|1] \"\" N\n",
                "bad.dbc:2: error: signal S: multiplexed (m1) but message A has no multiplexor");
    check_error("BO_ 1 A: 8 N\n SG_ S X : 0|8@1+ (1,0) [0|1] \"\" N\n",
                "bad.dbc:2: error: signal S: bad multiplexer indicator 'X'");
    check_error("\nFOO_ 1 2;\n", "bad.dbc:2: error: unknown keyword 'FOO_'");
    check_error("BA_DEF_REL_ BU_SG_REL_ \"x\" INT 0 1\nBO_ 1 A: 8 N\n",
                "bad.dbc:2: error: expected ';' to end the BA_DEF_REL_ started at line 1");
    check_error("BO_ 1 A: 8 N\n SG_ S : 0|8@1+ (1,0) [0|1] \"\" N $\n",
                "bad.dbc:2: error: unexpected character 0x24");
    check_error("BO_ 1 A: 8 N\n" SG("0|16@1+ (1,0) [0|1]") "SIG_VALTYPE_ 1 S : 1;\n",
                "bad.dbc:3: error: signal S: value type 1 needs size 32, not 16");
    check_error("BO_ 1 A: 8 N\n" SG("0|8@1+ (1e999,0) [0|1]"),
                "bad.dbc:2: error: factor 1e999 is not a finite number");
    check_error("BO_ 1 A: 8 N\n" SG("0|8@1+ (1,0) [0|1x]"), "bad.dbc:2: error: malformed number");
    check_error("BO_ 1 A: 8\n SG_ S : 0|8@1+ (1,0) [0|1] \"\" N\n",
                "bad.dbc:2: error: expected transmitter node name, found 'SG_'");
    check_error("BO_ 1 A: 8 N\n" SG("0|8@1+ (1,0) [0|1]") "VAL_ 1 S 1 \"a\" 2;\n",
                "bad.dbc:3: error: expected value text, found ';'");

    /* dangling references and extended multiplexing: notes, not errors */
    err = open_memstream(&buf, &len);
    db = vd_dbc_parse("ext.dbc", ext_dbc, sizeof(ext_dbc) - 1, err);
    fclose(err);
    CHECK(db && db->nnote == 4 && db->msgs[0].ext_mux && db->msgs[0].sigs[1].mux == VD_DBC_MUXED,
          "notes: %d, %s", db ? db->nnote : -1, buf);
    CHECK(strstr(buf, "ext.dbc:3: note: signal S2: extended multiplexing 'm1M'") &&
              strstr(buf, "ext.dbc:5: note: extended multiplexing (SG_MUL_VAL_) ignored") &&
              strstr(buf, "ext.dbc:6: note: VAL_ for unknown signal Nope of message X ignored") &&
              strstr(buf, "ext.dbc:7: note: CM_ BO_ for unknown message id 7 ignored"),
          "note texts: %s", buf);
    vd_dbc_free(db);
    free(buf);

    /* missing file */
    errno = 0;
    CHECK(vd_dbc_load(DATA "no_such.dbc", NULL) == NULL && errno == ENOENT, "missing file");
    /* not a regular file: refused before reading (/dev/zero was read until memory ran out) */
    errno = 0;
    CHECK(vd_dbc_load("/dev/zero", NULL) == NULL && errno == ENODEV, "/dev/zero");
    errno = 0;
    CHECK(vd_dbc_load(DATA, NULL) == NULL && errno == EISDIR, "a directory");
}

/* truncations and random corruption of a real file must never crash (ASan build checks) */
static void test_fuzz(void)
{
    FILE *f = fopen(DATA "rtvd_test.dbc", "rb");
    char *text = malloc(1 << 16), *mut = malloc(1 << 16);
    size_t n = f ? fread(text, 1, 1 << 16, f) : 0;
    int parsed = 0, rejected = 0;

    if (f)
        fclose(f);
    CHECK(n > 1000, "rtvd_test.dbc read");
    for (size_t cut = 0; cut <= n; cut += 7) {
        struct vd_dbc *db = vd_dbc_parse("cut.dbc", text, cut, NULL);

        parsed += db != NULL;
        rejected += db == NULL;
        vd_dbc_free(db);
    }
    for (int t = 0; t < 3000; t++) {
        struct vd_dbc *db;
        int k = 1 + (int)vt_uniform(0, 4);

        memcpy(mut, text, n);
        for (int j = 0; j < k; j++) {
            size_t at = (size_t)vt_uniform(0, (double)n);
            static const char pool[] = "\"\\;:|@()[],+-Mm0123456789 \n\t\xFF"
                                       "BO_SG_";

            mut[at] = pool[(int)vt_uniform(0, sizeof(pool) - 1)];
        }
        db = vd_dbc_parse("mut.dbc", mut, n, NULL);
        parsed += db != NULL;
        rejected += db == NULL;
        if (db) {
            /* whatever parsed must be self-consistent enough to encode and decode */
            for (int i = 0; i < db->nmsg; i++) {
                const struct vd_dbc_msg *m = &db->msgs[i];

                for (int s = 0; s < m->nsig; s++) {
                    uint8_t fr[64] = {0};
                    double v;

                    (void)vd_dbc_encode(fr, m->len, m, &m->sigs[s], 1.0);
                    (void)vd_dbc_decode(fr, m->len, m, &m->sigs[s], &v);
                }
            }
        }
        vd_dbc_free(db);
    }
    CHECK(parsed > 0 && rejected > 0, "fuzz: %d parsed, %d rejected", parsed, rejected);
    free(text);
    free(mut);
}

/* ---- RT contract: no allocation in find/get/set/encode/decode -------------------------------- */

static void test_no_alloc(void)
{
    struct vd_dbc *db = vd_dbc_load(DATA "vw_mqb.dbc", NULL);
    int rc_sum = 0;

    CHECK(db != NULL, "vw_mqb.dbc");
    if (!db)
        goto out;
#if ALLOC_COUNTING
    calls = 0;
    armed = 1;
#endif
    for (int cycle = 0; cycle < 2000; cycle++) {
        const struct vd_dbc_msg *m =
            vd_dbc_find_id(db, db->msgs[cycle % db->nmsg].id, db->msgs[cycle % db->nmsg].ext);
        uint8_t f[8] = {0};

        for (int i = 0; m && i < m->nsig; i++) {
            double v;

            /* signals that share bits (two pairs in vw_mqb) are refused: -EBUSY */
            rc_sum += vd_dbc_encode(f, m->len, m, &m->sigs[i], m->sigs[i].min) !=
                      (m->sigs[i].overlaps ? -EBUSY : 0);
            rc_sum += vd_dbc_decode(f, m->len, m, &m->sigs[i], &v) == -EINVAL;
            vd_dbc_set_raw(f, &m->sigs[i], vd_dbc_get_raw(f, &m->sigs[i]));
        }
        rc_sum += vd_dbc_find_msg(db, "ESP_02") == NULL;
    }
#if ALLOC_COUNTING
    armed = 0;
    CHECK(calls == 0, "%ld allocations in RT-safe calls", (long)calls);
#endif
    CHECK(rc_sum == 0, "%d failed calls in the RT loop", rc_sum);
out:
    vd_dbc_free(db);
}

/* issue 10 item 8: lengths no CAN frame has, overlapping signals, and the defects that do not
 * change the meaning (warnings, errors with VD_DBC_STRICT) */
static void test_lenient(void)
{
    /* the defects found in public DBC files, each once */
    static const char text[] = "VERSION \"\"\n"
                               "BO_ 4096 Wide: 8 N\n"
                               " SG_ A : 0|8@1+ (1,0) [0|255] \"\" N\n"
                               "BO_ 100 2017_5: 8 N\n"
                               " SG_ B : 0|8@1+ (1,0) [0|255] \"\" N\n"
                               "CM_ BO_ 100 \"no semicolon\"\n"
                               "CM_ SG_ 100 B \"fine\";\n";
    char *buf = NULL;
    size_t len = 0;
    FILE *err = open_memstream(&buf, &len);
    struct vd_dbc *db = vd_dbc_parse("lenient.dbc", text, sizeof(text) - 1, err);

    fclose(err);
    CHECK(db && db->nwarn == 3, "3 warnings: %d\n%s", db ? db->nwarn : -1, buf);
    if (db) {
        const struct vd_dbc_msg *w = vd_dbc_find_msg(db, "Wide"),
                                *d = vd_dbc_find_msg(db, "2017_5");

        CHECK(w && w->ext && w->id == 0x1000, "an id above 0x7FF read as 29-bit");
        CHECK(d && d->id == 100 && d->comment && !strcmp(d->comment, "no semicolon") &&
                  d->nsig == 1 && d->sigs[0].comment && !strcmp(d->sigs[0].comment, "fine"),
              "a digit-led name read as that name, the comment without ';' ends at its quote");
    }
    CHECK(strstr(buf, "lenient.dbc:2: warning: message Wide: id 0x1000 is above 0x7FF") &&
              strstr(buf, "lenient.dbc:4: warning: message name '2017_5': a name must not start "
                          "with a digit") &&
              strstr(buf, "lenient.dbc:6: warning: CM_ without ';'"),
          "located warnings: %s", buf);
    vd_dbc_free(db);
    free(buf);
    /* --strict: each is an error again, located */
    check_error_f("BO_ 100 2017_5: 8 N\n", VD_DBC_STRICT,
                  "bad.dbc:1: error: message name '2017_5': a name must not start with a digit");
    check_error_f("BO_ 1 A: 8 N\nCM_ BO_ 1 \"x\"\nBO_ 2 B: 8 N\n", VD_DBC_STRICT,
                  "bad.dbc:2: error: CM_ without ';'");
    check_error_f("BO_ 1 A: 8 N\nCM_ BO_ 1 \"x\" BO_ 2 B: 8 N\n", 0,
                  "bad.dbc:2: error: expected ';' after comment");

    /* lengths: CAN 0..8, CAN FD 12, 16, 20, 24, 32, 48, 64 */
    {
        static const int bad[] = {9, 10, 11, 13, 15, 17, 25, 33, 63};
        static const int good[] = {0, 8, 12, 16, 20, 24, 32, 48, 64};
        char t[64], want[128];

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
            snprintf(t, sizeof(t), "BO_ 1 A: %d N\n", bad[i]);
            snprintf(want, sizeof(want),
                     "bad.dbc:1: error: message A: length %d is no CAN (0..8) "
                     "or CAN FD",
                     bad[i]);
            check_error(t, want);
        }
        for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
            snprintf(t, sizeof(t), "BO_ 1 A: %d N\n", good[i]);
            check_error(t, NULL);
        }
    }

    /* a multiplexed signal over its own multiplexor (M 0|8, m1 4|16): an error in any mode */
    check_error("BO_ 1 A: 8 N\n"
                " SG_ Sw M : 0|8@1+ (1,0) [0|255] \"\" N\n"
                " SG_ Mx m1 : 4|16@1+ (1,0) [0|65535] \"\" N\n",
                "bad.dbc:3: error: signal Mx (m1, 4|16) overlaps the multiplexor Sw (0|8) of "
                "message A: the switch would no longer select it");
    /* plain signals that share bits: a warning, both marked; strict: an error */
    {
        static const char ov[] = "BO_ 1 A: 8 N\n"
                                 " SG_ P : 0|16@1+ (1,0) [0|65535] \"\" N\n"
                                 " SG_ Q : 8|8@1+ (1,0) [0|255] \"\" N\n"
                                 " SG_ R : 16|8@1+ (1,0) [0|255] \"\" N\n"
                                 " SG_ Sw M : 24|8@1+ (1,0) [0|255] \"\" N\n"
                                 " SG_ G1 m1 : 32|8@1+ (1,0) [0|255] \"\" N\n"
                                 " SG_ G2 m2 : 32|8@1+ (1,0) [0|255] \"\" N\n";

        buf = NULL;
        err = open_memstream(&buf, &len);
        db = vd_dbc_parse("ov.dbc", ov, sizeof(ov) - 1, err);
        fclose(err);
        CHECK(db && db->nwarn == 1 && db->msgs[0].sigs[0].overlaps &&
                  db->msgs[0].sigs[1].overlaps && !db->msgs[0].sigs[2].overlaps &&
                  !db->msgs[0].sigs[4].overlaps && !db->msgs[0].sigs[5].overlaps,
              "P and Q overlap, groups 1 and 2 share bits legitimately: %s", buf);
        CHECK(strstr(buf, "ov.dbc:3: warning: signals P and Q of message A share bits") != NULL,
              "located: %s", buf);
        if (db) {
            /* read both; writing either would change the other: refused, nothing written */
            uint8_t f[8] = {0x34, 0x12, 7, 0, 0, 0, 0, 0}, g[8];
            double p = 0, q = 0, r = 0;

            memcpy(g, f, sizeof(f));
            CHECK(vd_dbc_decode(f, 8, &db->msgs[0], &db->msgs[0].sigs[0], &p) == 0 &&
                      vd_dbc_decode(f, 8, &db->msgs[0], &db->msgs[0].sigs[1], &q) == 0 &&
                      p == 0x1234 && q == 0x12,
                  "overlapping signals decode: %g %g", p, q);
            CHECK(vd_dbc_encode(f, 8, &db->msgs[0], &db->msgs[0].sigs[1], 5.0) == -EBUSY &&
                      vd_dbc_encode(f, 8, &db->msgs[0], &db->msgs[0].sigs[0], 5.0) == -EBUSY &&
                      !memcmp(f, g, sizeof(f)),
                  "encode refuses P and Q, the frame unchanged");
            CHECK(vd_dbc_encode(f, 8, &db->msgs[0], &db->msgs[0].sigs[2], 9.0) == 0 && f[2] == 9 &&
                      vd_dbc_decode(f, 8, &db->msgs[0], &db->msgs[0].sigs[2], &r) == 0 && r == 9.0,
                  "R, which overlaps nothing, encodes");
        }
        vd_dbc_free(db);
        free(buf);
        check_error_f(ov, VD_DBC_STRICT,
                      "bad.dbc:3: error: signals P and Q of message A share bits");
    }
}

int main(void)
{
    test_vw_mqb();
    test_ford();
    test_tesla();
    test_synthetic();
    test_vectors();
    test_roundtrip();
    test_malformed();
    test_lenient();
    test_fuzz();
    test_no_alloc();
    return vt_report("test_dbc");
}
