/* tests/io/test_motion.c - the motion feed's pure parts (io/motion.h):
 * - the datagram layouts byte for byte: the rtvd feed (CUE and POSE: every field at its
 *   README offset, little-endian, the CRC-32 check value), Moog MDA (a golden frame,
 *   big-endian, aerospace axes) and LFS OutSim (a golden frame, LFS world axes); each
 *   decodes back to the message; corrupt, cut and foreign datagrams are refused;
 * - decimation without aliasing: a chirp beyond the send rate's Nyquist frequency comes out
 *   below the filters' analytic gain at that frequency (sample-and-hold would pass it whole);
 * - the state machine: engage from neutral, and every fade path (stop, overrun stop, freeze,
 *   step error, NaN cue, cue beyond its limit, heartbeat lost, loop silent, and a fault in the
 *   middle of the fade-in) ends neutral in the right state with the reason, its jerk bounded
 *   by the quintic's analytic bound;
 * - the Moog MBC status message (200/201): a hand-built big-endian golden vector decodes to
 *   its fields (bit fields at the positions of Moog's sample code, io/motion.h) and encodes
 *   back to the same bytes; every feedback record round-trips; each kind of malformed
 *   datagram is refused with its reason; which states and bits count as a platform fault. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "io/motion.h"

/* little-endian u32 into p */
static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static double lef64(const uint8_t *p)
{
    uint64_t u = (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
    double x;

    memcpy(&x, &u, 8);
    return x;
}

static void sample_cue(double *c)
{
    for (int i = 0; i < VD_CUE_N; i++)
        c[i] = 0.0;
    c[VD_CUE_FX] = -2.5;
    c[VD_CUE_FY] = 1.25;
    c[VD_CUE_FZ] = 9.75;
    c[VD_CUE_WX] = 0.125;
    c[VD_CUE_WY] = -0.0625;
    c[VD_CUE_WZ] = 0.25;
    c[VD_CUE_DWX] = 1.5;
    c[VD_CUE_DWY] = -0.75;
    c[VD_CUE_DWZ] = 0.5;
    c[VD_CUE_VX] = 12.5;
    c[VD_CUE_VY] = -0.5;
    c[VD_CUE_PX] = 100.5;
    c[VD_CUE_PY] = -20.25;
    c[VD_CUE_PZ] = 1.0;
    c[VD_CUE_WHEEL_AZ + 2] = 3.0;
    c[VD_CUE_ROAD_Z + 1] = 0.015625;
}

static void test_rtvd(void)
{
    struct vd_motion_msg m = {0}, r;
    uint8_t b[VD_MOTION_MAX_BYTES];
    int n;

    /* the CRC-32/ISO-HDLC check value (the CRC catalogue: crc32("123456789") = 0xCBF43926) */
    CHECK(vd_crc32("123456789", 9) == 0xCBF43926u, "crc32 check value");
    m.type = VD_MTYPE_CUE;
    m.seq = 0x01020304;
    m.flags = VD_MFL_RUNNING | VD_MFL_LIVE;
    m.state = VD_MST_ENGAGED;
    m.reason = 0;
    m.rate_hz = 500;
    m.fade = 0.5f;
    m.t_model = 12.345;
    m.t_send_ns = 0x1122334455667788LL;
    sample_cue(m.cue);
    n = vd_motion_encode(VD_MFMT_RTVD, &m, b, sizeof(b));
    CHECK(n == 252 && n == VD_MOTION_CUE_BYTES, "CUE length %d", n);
    CHECK(!memcmp(b, "RTVM", 4), "magic");
    CHECK(b[4] == 1 && b[5] == 0 && b[6] == 1 && b[7] == 0, "version 1, type CUE, LE u16");
    CHECK(b[8] == 4 && b[9] == 3 && b[10] == 2 && b[11] == 1, "sequence LE");
    CHECK(le32(b + 12) == (VD_MFL_RUNNING | VD_MFL_LIVE), "flags");
    CHECK(lef64(b + 16) == 12.345, "model time f64 at 16");
    CHECK(b[24] == 0x88 && b[31] == 0x11, "send time i64 LE at 24");
    CHECK(b[32] == VD_MST_ENGAGED && b[33] == 0, "state, reason");
    CHECK(b[34] == (500 & 0xff) && b[35] == (500 >> 8), "rate u16 at 34");
    CHECK(le32(b + 36) == 0x3F000000u, "fade f32 0.5 at 36");
    for (int i = 0; i < VD_CUE_N; i++)
        CHECK(lef64(b + 40 + 8 * i) == m.cue[i], "cue %s at %d", vd_cue_name[i], 40 + 8 * i);
    CHECK(le32(b + 248) == vd_crc32(b, 248), "CRC at 248");
    CHECK(vd_motion_decode(b, (size_t)n, &r) == VD_MFMT_RTVD && r.seq == m.seq &&
              r.t_send_ns == m.t_send_ns && !memcmp(r.cue, m.cue, sizeof(m.cue)) &&
              r.fade == 0.5f && r.rate_hz == 500,
          "CUE decodes");
    /* refused: a flipped bit (CRC), cut short, a newer version */
    b[100] ^= 1;
    CHECK(vd_motion_decode(b, (size_t)n, &r) == -EINVAL, "bad CRC refused");
    b[100] ^= 1;
    CHECK(vd_motion_decode(b, (size_t)n - 1, &r) == -EINVAL, "cut short refused");
    b[4] = 2;
    CHECK(vd_motion_decode(b, (size_t)n, &r) == -EINVAL, "version 2 refused");
    b[4] = 1;
    /* refused: a field out of its range, the CRC made right (a sender's bug, not the line's) */
    {
        static const struct {
            int at, bytes;
            uint32_t v;
            const char *what;
        } bad[] = {{32, 1, VD_MST_COUNT, "state beyond the enumeration"},
                   {33, 1, VD_MRS_COUNT, "reason beyond the enumeration"},
                   {36, 4, 0x3F800001u, "fade above 1"},
                   {36, 4, 0xBF800000u, "fade -1"},
                   {36, 4, 0x7FC00000u, "fade NaN"},
                   {12, 4, 1u << 9, "an undefined flag"}};
        uint8_t c[VD_MOTION_MAX_BYTES];

        for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
            memcpy(c, b, (size_t)n);
            for (int i = 0; i < bad[k].bytes; i++)
                c[bad[k].at + i] = (uint8_t)(bad[k].v >> (8 * i));
            put32(c + n - 4, vd_crc32(c, (size_t)n - 4));
            CHECK(vd_motion_decode(c, (size_t)n, &r) == -EINVAL, "refused: %s", bad[k].what);
        }
        memcpy(c, b, (size_t)n);
        c[36] = 0, c[37] = 0, c[38] = 0x80, c[39] = 0x3F; /* fade 1.0 */
        put32(c + n - 4, vd_crc32(c, (size_t)n - 4));
        CHECK(vd_motion_decode(c, (size_t)n, &r) == VD_MFMT_RTVD && r.fade == 1.0f, "fade 1 taken");
    }
    CHECK(vd_motion_decode((const uint8_t *)"hello", 5, &r) == -EINVAL, "garbage refused");

    /* POSE */
    m.type = VD_MTYPE_POSE;
    for (int i = 0; i < VD_MOTION_NPOSE; i++)
        m.pose[i] = 0.25 * i - 1.0;
    n = vd_motion_encode(VD_MFMT_RTVD, &m, b, sizeof(b));
    CHECK(n == 188 && b[6] == 2, "POSE length %d, type 2", n);
    for (int i = 0; i < VD_MOTION_NPOSE; i++)
        CHECK(lef64(b + 40 + 8 * i) == m.pose[i], "pose %d", i);
    CHECK(le32(b + 184) == vd_crc32(b, 184), "POSE CRC at 184");
    CHECK(vd_motion_decode(b, (size_t)n, &r) == VD_MFMT_RTVD && r.type == VD_MTYPE_POSE &&
              !memcmp(r.pose, m.pose, sizeof(m.pose)),
          "POSE decodes");
    CHECK(vd_motion_encode(VD_MFMT_MOOG_MDA, &m, b, sizeof(b)) == -EINVAL, "no POSE in MDA");
    /* heartbeat */
    n = vd_motion_heartbeat_encode(7, b, sizeof(b));
    CHECK(n == 16 && !memcmp(b, "RTVH", 4) && b[4] == 1 && b[8] == 7, "heartbeat");
    {
        uint64_t c = 0;

        CHECK(vd_motion_heartbeat_decode(b, 16, &c) && c == 7 &&
                  !vd_motion_heartbeat_decode(b, 15, &c) && vd_motion_heartbeat_decode(b, 16, NULL),
              "heartbeat decoded: counter %llu", (unsigned long long)c);
        /* the counter's eight bytes, little-endian */
        vd_motion_heartbeat_encode(0x0102030405060708ull, b, sizeof(b));
        CHECK(vd_motion_heartbeat_decode(b, 16, &c) && c == 0x0102030405060708ull && b[8] == 8 &&
                  b[15] == 1,
              "heartbeat counter 0x%llx", (unsigned long long)c);
        b[4] = 2;
        CHECK(!vd_motion_heartbeat_decode(b, 16, &c), "heartbeat version 2 refused");
    }
}

/* level attitude, so the frames' rotations are exact: every value below is a float */
static void test_moog(void)
{
    /* golden frame: header (length 64, sequence 7, checksum 0, id 102), MCW 1 (engage),
     * STAT_RESP 0x01F40000 (500 Hz << 16), mdaCommandWord 0, then 12 floats big-endian in
     * aerospace axes: roll 0, pitch 0, yaw -0 (ISO yaw 0), rates (0.125, 0.0625, -0.25),
     * angular accelerations (1.5, 0.75, -0.5), accelerations f + R^T g = (-2.5, 1.25,
     * 9.75 - 9.81) -> (-2.5, -1.25, 0.06); the special-effects terminator 0 */
    static const uint8_t gold[80] = {
        0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x66, 0x00, 0x00, 0x00, 0x01, 0x01, 0xF4, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x3E, 0x00,
        0x00, 0x00, 0x3D, 0x80, 0x00, 0x00, 0xBE, 0x80, 0x00, 0x00, 0x3F, 0xC0, 0x00, 0x00,
        0x3F, 0x40, 0x00, 0x00, 0xBF, 0x00, 0x00, 0x00, 0xC0, 0x20, 0x00, 0x00, 0xBF, 0xA0,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    struct vd_motion_msg m = {0}, r;
    uint8_t b[VD_MOTION_MAX_BYTES];
    int n;

    m.type = VD_MTYPE_CUE;
    m.seq = 7;
    m.state = VD_MST_ENGAGED;
    m.rate_hz = 500;
    sample_cue(m.cue);
    n = vd_motion_encode(VD_MFMT_MOOG_MDA, &m, b, sizeof(b));
    CHECK(n == 80, "MDA length %d", n);
    /* the vertical acceleration 9.75 - 9.81 is not a float: its bytes are checked apart */
    CHECK(!memcmp(b, gold, 72) && !memcmp(b + 76, gold + 76, 4), "MDA frame = golden bytes");
    {
        const uint32_t u =
            (uint32_t)b[72] << 24 | (uint32_t)b[73] << 16 | (uint32_t)b[74] << 8 | b[75];
        float f;

        memcpy(&f, &u, 4);
        CHECK_NEAR(f, -(9.75 - 9.81), 1e-7, "vertical acceleration, down positive");
    }
    CHECK(vd_motion_decode(b, (size_t)n, &r) == VD_MFMT_MOOG_MDA && r.seq == 7 &&
              r.rate_hz == 500 && r.state == VD_MST_ENGAGED,
          "MDA decodes");
    /* floats: 2^-24 relative of values <= 10 */
    for (int i = 0; i <= VD_CUE_YAW; i++)
        CHECK_NEAR(r.cue[i], m.cue[i], 1e-6, vd_cue_name[i]);
    b[19] = 4; /* a motion command word beyond NULL, ENGAGE, DISENGAGE, RESET */
    CHECK(vd_motion_decode(b, (size_t)n, &r) == -EINVAL, "MDA command word 4 refused");
    b[19] = 1;
    m.state = VD_MST_PARKED;
    vd_motion_encode(VD_MFMT_MOOG_MDA, &m, b, sizeof(b));
    CHECK(b[19] == 2, "parked: MCW disengage");
}

static void put_be(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (24 - 8 * i));
}

static void test_moog_status(void)
{
    /* hand-built, word by word (big-endian): packetLength 40 (56 - 16), sequence 0x01020304,
     * checksum 0, id 200; machine-response word 0x01F45A33 = updateRate 500 << 16 | misc
     * 0x5A << 8 | feedbackMode 0 << 6 | motionMode 3 (MDA) << 4 | state 3 (ENGAGED);
     * discrete I/O 0x2 (base at home); fault words 0x1 (hostComm), 0x40
     * (HostCommandRangeExceeded), 0x19 (acceleration, extend and retract limits); tag 4
     * (platform acceleration) 1.0 -2.0 0.5; tag 0 */
    static const uint8_t gold[56] = {
        0x00, 0x00, 0x00, 0x28, 0x01, 0x02, 0x03, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0xC8, 0x01, 0xF4, 0x5A, 0x33, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01,
        0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x19, 0x00, 0x00, 0x00, 0x04, 0x3F, 0x80,
        0x00, 0x00, 0xC0, 0x00, 0x00, 0x00, 0x3F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    struct vd_moog_status st, r;
    uint8_t b[VD_MOOG_STATUS_MAX], x[VD_MOOG_STATUS_MAX];
    int n, rc;

    rc = vd_moog_status_decode(gold, sizeof(gold), &st);
    CHECK(rc == VD_MOOG_OK, "golden status decodes (%d)", rc);
    CHECK(st.msg_id == 200 && st.seq == 0x01020304u && st.machine_state == VD_MOOG_ENGAGED &&
              st.motion_mode == 3 && st.feedback_mode == 0 && st.misc == 0x5A &&
              st.update_rate == 500 && st.discrete_io == 2,
          "golden: header and machine-response word fields");
    CHECK(st.fault[0] == VD_MOOG_F1_HOST_COMM && st.fault[1] == VD_MOOG_F2_RANGE_EXCEEDED &&
              st.fault[2] ==
                  (VD_MOOG_F3_ACCELERATION | VD_MOOG_F3_EXTEND_LIMIT | VD_MOOG_F3_RETRACT_LIMIT),
          "golden: fault words");
    CHECK(st.opt == VD_MOOG_OPT_ACC && st.acc[0] == 1.0f && st.acc[1] == -2.0f && st.acc[2] == 0.5f,
          "golden: platform acceleration record");
    CHECK(!strcmp(vd_moog_state_name(st.machine_state), "engaged"), "state name");
    n = vd_moog_status_encode(&st, b, sizeof(b));
    CHECK(n == (int)sizeof(gold) && !memcmp(b, gold, sizeof(gold)), "encode = golden bytes (%d)",
          n);

    /* every record, every field: round trip (floats exact: f32 in, f32 out) */
    memset(&st, 0, sizeof(st));
    st.seq = 0xFFFFFFFFu;
    st.msg_id = VD_MOOG_STATUS_ID_MB;
    st.machine_state = VD_MOOG_FROZEN;
    st.motion_mode = 2;
    st.feedback_mode = 3;
    st.misc = 0xFF;
    st.update_rate = 0xFFFF;
    st.discrete_io = 0x7FF;
    st.fault[0] = 0x80000000u;
    st.fault[1] = 0x10000u;
    st.fault[2] = 0x2;
    st.opt = VD_MOOG_OPT_DOF | VD_MOOG_OPT_LENGTH | VD_MOOG_OPT_DATA | VD_MOOG_OPT_ACC;
    for (int i = 0; i < 6; i++) {
        st.dof[i] = 0.125f * (float)(i + 1);
        st.length[i] = -1.5f * (float)(i + 1);
    }
    st.drives = 6;
    st.acc[0] = 9.75f;
    n = vd_moog_status_encode(&st, b, sizeof(b));
    CHECK(n == VD_MOOG_STATUS_MAX, "all records: %d bytes", n);
    rc = vd_moog_status_decode(b, (size_t)n, &r);
    CHECK(rc == VD_MOOG_OK && !memcmp(&r, &st, sizeof(st)), "all records round trip (%d)", rc);
    /* a bare status (no feedback) is 40 bytes */
    st.opt = 0;
    n = vd_moog_status_encode(&st, b, sizeof(b));
    CHECK(n == VD_MOOG_STATUS_BYTES && vd_moog_status_decode(b, (size_t)n, &r) == VD_MOOG_OK,
          "bare status: %d bytes", n);
    CHECK(vd_moog_status_encode(&st, b, 100) == -EINVAL, "small buffer refused");

    /* malformed: each refused with its reason, the output zeroed */
    {
        uint8_t mda[VD_MOTION_MAX_BYTES];
        struct vd_motion_msg m = {0};
        const int nm =
            (m.type = VD_MTYPE_CUE, vd_motion_encode(VD_MFMT_MOOG_MDA, &m, mda, sizeof(mda)));

        CHECK(vd_moog_status_decode(mda, (size_t)nm, &r) == VD_MOOG_BAD_ID,
              "a command (102) is not a status");
    }
#define BAD(len_, want_, what_)                                                                    \
    do {                                                                                           \
        memset(&r, 0xA5, sizeof(r));                                                               \
        rc = vd_moog_status_decode(x, (len_), &r);                                                 \
        CHECK(rc == (want_) && r.seq == 0 && r.machine_state == 0, "%s: %s", what_,                \
              vd_moog_bad_name[rc < VD_MOOG_BAD_COUNT && rc >= 0 ? rc : 0]);                       \
    } while (0)
    memcpy(x, gold, sizeof(gold));
    BAD(12, VD_MOOG_BAD_SHORT, "shorter than a header");
    BAD(55, VD_MOOG_BAD_SHORT, "not whole words");
    put_be(x, 20);
    BAD(36, VD_MOOG_BAD_SHORT, "header + 5 words, no end tag");
    memcpy(x, gold, sizeof(gold));
    put_be(x + 12, 202);
    BAD(56, VD_MOOG_BAD_ID, "id 202");
    memcpy(x, gold, sizeof(gold));
    BAD(52, VD_MOOG_BAD_LENGTH, "cut short (length field 40, 36 bytes after the header)");
    put_be(x, 44);
    BAD(56, VD_MOOG_BAD_LENGTH, "length field 44");
    for (uint32_t s = 5; s < 16; s += (s == 7 ? 7 : 1)) {
        memcpy(x, gold, sizeof(gold));
        x[19] = (uint8_t)(0x30 | s);
        BAD(56, VD_MOOG_BAD_STATE, "undefined machine state");
    }
    memcpy(x, gold, sizeof(gold));
    put_be(x + 36, 9);
    BAD(56, VD_MOOG_BAD_OPT, "unknown feedback tag");
    memcpy(x, gold, sizeof(gold));
    put_be(x + 52, 4); /* a second acceleration record where the end tag is */
    memset(x + 56, 0, 16);
    put_be(x, 56);
    BAD(72, VD_MOOG_BAD_OPT, "repeated feedback tag");
    memcpy(x, gold, sizeof(gold));
    put_be(x + 52, 1); /* a DOF record announced, not there */
    BAD(56, VD_MOOG_BAD_OPT, "record cut short");
    memcpy(x, gold, sizeof(gold));
    memset(x + 56, 0, 4);
    put_be(x, 44);
    BAD(60, VD_MOOG_BAD_OPT, "bytes after the end tag");
    memcpy(x, gold, sizeof(gold));
    put_be(x + 44, 0x7FC00000u); /* NaN */
    BAD(56, VD_MOOG_BAD_VALUE, "NaN feedback");
    st.opt = VD_MOOG_OPT_DATA;
    st.drives = 11;
    n = vd_moog_status_encode(&st, x, sizeof(x));
    BAD((size_t)n, VD_MOOG_BAD_VALUE, "11 drives");
#undef BAD

    /* the states and bits that park the feed (io/MOTION_DATAGRAMS.md) */
    {
        static const struct {
            int s;
            bool fault;
        } t[] = {{VD_MOOG_POWERUP, false},  {VD_MOOG_IDLE, false},     {VD_MOOG_STANDBY, false},
                 {VD_MOOG_ENGAGED, false},  {VD_MOOG_SETTLING, false}, {VD_MOOG_FAULT1, true},
                 {VD_MOOG_FAULT2, true},    {VD_MOOG_FAULT3, true},    {VD_MOOG_DISABLED, true},
                 {VD_MOOG_INHIBITED, true}, {VD_MOOG_FROZEN, false}};

        memset(&st, 0, sizeof(st));
        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
            st.machine_state = (uint8_t)t[i].s;
            CHECK(vd_moog_status_fault(&st) == t[i].fault, "state %s: fault %d",
                  vd_moog_state_name(t[i].s), t[i].fault);
        }
        st.machine_state = VD_MOOG_ENGAGED;
        for (int w = 0; w < 3; w++)
            for (int bit = 0; bit < 32; bit++) {
                st.fault[0] = st.fault[1] = st.fault[2] = 0;
                st.fault[w] = 1u << bit;
                CHECK(vd_moog_status_fault(&st), "engaged with fault word %d bit %d", w + 1, bit);
            }
    }
}

static void test_outsim(void)
{
    /* golden frame at yaw 0: time 12345 ms, angular velocity in LFS world axes (X right =
     * -y, Y forward = x, Z up): (0.0625, 0.125, 0.25); heading 0, pitch -0 (LFS: nose up
     * positive), roll 0; acceleration (-1.25, -2.5, 9.75 - 9.81); velocity (0.5, 12.5, 0);
     * position (20.25, 100.5, 1) x 65536 */
    static const uint8_t gold[64] = {
        0x39, 0x30, 0x00, 0x00, 0x00, 0x00, 0x80, 0x3D, 0x00, 0x00, 0x00, 0x3E, 0x00,
        0x00, 0x80, 0x3E, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0xA0, 0xBF, 0x00, 0x00, 0x20, 0xC0, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x3F, 0x00, 0x00, 0x48, 0x41, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x40, 0x14, 0x00, 0x00, 0x80, 0x64, 0x00, 0x00, 0x00, 0x01, 0x00};
    struct vd_motion_msg m = {0}, r;
    uint8_t b[VD_MOTION_MAX_BYTES];
    int n;

    m.type = VD_MTYPE_CUE;
    m.t_model = 12.345;
    sample_cue(m.cue);
    n = vd_motion_encode(VD_MFMT_OUTSIM, &m, b, sizeof(b));
    CHECK(n == 64, "OutSim length %d", n);
    CHECK(!memcmp(b, gold, 36) && !memcmp(b + 40, gold + 40, 24), "OutSim = golden bytes");
    CHECK(vd_motion_decode(b, (size_t)n, &r) == VD_MFMT_OUTSIM, "OutSim decodes");
    for (int i = 0; i < VD_CUE_PZ; i++) /* floats of values <= 100; no angular acceleration */
        if (i < VD_CUE_DWX || i > VD_CUE_DWZ)
            CHECK_NEAR(r.cue[i], m.cue[i], 1e-5, vd_cue_name[i]);
    m.outsim_id = 42;
    n = vd_motion_encode(VD_MFMT_OUTSIM, &m, b, sizeof(b));
    CHECK(n == 68 && le32(b + 64) == 42, "OutSim with id");
}

/* decimation: a chirp above the send rate's Nyquist frequency */
static double gain_box(double f, double fs, int M)
{
    const double x = M_PI * f / fs;

    return fabs(sin(M * x) / (M * sin(x)));
}
static double gain_bw(double f, double fs, double fc)
{
    /* Tustin: the analog gain at the prewarped frequency */
    const double r = tan(M_PI * f / fs) / tan(M_PI * fc / fs);

    return 1.0 / sqrt(1.0 + r * r * r * r);
}

static void test_decimation(int rate, int mode)
{
    const double fs = 1000.0, nyq = 0.5 * rate, A = 1.0;
    const int M = (int)(fs / rate);
    struct vd_motion_decim d;
    double worst = 0.0, hold_max = 0.0;
    double x[1], y[1];
    const double f0 = 1.2 * nyq, f1 = 0.45 * fs, T = 20.0;
    int k = 0;

    CHECK(vd_motion_decim_init(&d, mode, 1, fs, rate) == 0, "decim init");
    /* linear chirp from f0 to f1 over T; output sample j covers inputs (j-1)M+1..jM. The
     * chirp changes by (f1-f0)/T = 20 Hz/s: over the 40 ms it takes the filters to settle
     * that is < 1 Hz, so the output is the quasi-steady response: |y| <= A max |H(f)| over
     * the band the window saw, plus the transient of the previous 40 ms */
    for (int j = 0; (double)(j * M) / fs < T; j++) {
        double gmax = 0.0;

        for (int i = 0; i < M; i++, k++) {
            const double t = k / fs;

            x[0] = A * sin(2 * M_PI * (f0 * t + 0.5 * (f1 - f0) / T * t * t));
            vd_motion_decim_add(&d, x);
            if (i == M - 1)
                hold_max = fmax(hold_max, fabs(x[0])); /* what sample-and-hold would send */
        }
        vd_motion_decim_take(&d, y);
        if (j * M < 200) /* the first 0.2 s: the filter starts from the first sample */
            continue;
        {
            const double t = (double)(j * M) / fs, fnow = f0 + (f1 - f0) * t / T;

            for (double f = fnow - 2.0; f <= fnow + 0.5; f += 0.1) {
                double gm = gain_box(f, fs, M);

                if (mode == VD_MDEC_LOWPASS)
                    gm *= gain_bw(f, fs, 0.25 * rate);
                gmax = fmax(gmax, gm);
            }
        }
        /* 1 % of A for the settling tail of the biquad */
        worst = fmax(worst, fabs(y[0]) - (A * gmax + 0.01 * A));
    }
    printf("  decimation to %d Hz (%s): chirp %.0f..%.0f Hz, output exceeds the analytic "
           "gain by %.2g (sample-and-hold would pass %.2f)\n",
           rate, mode == VD_MDEC_LOWPASS ? "lowpass" : "average", f0, f1, worst, hold_max);
    CHECK_TOL(fmax(worst, 0.0), 0.0, "decimated chirp within the filters' gain");
    CHECK(hold_max > 0.9, "sample-and-hold aliases the chirp whole");
    /* and a constant passes exactly (the mean of equal samples, a unit DC gain: rounding) */
    vd_motion_decim_init(&d, mode, 1, fs, rate);
    x[0] = 9.81;
    for (int i = 0; i < 3 * M; i++)
        vd_motion_decim_add(&d, x);
    vd_motion_decim_take(&d, y);
    CHECK_NEAR(y[0], 9.81, 1e-12, "DC passes");
}

/* the state machine at 1 kHz with live cues; event `ev` injected at t_ev */
struct sm_run {
    int state, reason;
    double jerk_max, jerk_bound, out_end[VD_CUE_N];
    double t_done;
};

static void live_cue(double t, double *c, bool nan_now)
{
    for (int i = 0; i < VD_CUE_N; i++)
        c[i] = 0.0;
    c[VD_CUE_FX] = -6.0 + 0.5 * sin(2 * M_PI * 0.5 * t); /* braking */
    c[VD_CUE_FY] = 2.0;
    c[VD_CUE_FZ] = 9.6;
    c[VD_CUE_WZ] = 0.3;
    c[VD_CUE_PITCH] = 0.03;
    c[VD_CUE_YAW] = 1.0 + 0.3 * t;
    c[VD_CUE_VX] = 10.0;
    if (nan_now)
        c[VD_CUE_FY] = NAN;
}

static struct sm_run run_sm(int ev, double t_ev)
{
    const struct vd_motion_sm_cfg cfg = {
        .engage_s = 1.0,
        .park_s = 1.5,
        .stale_s = 0.05,
        .lim = {.f = 30, .w = 2, .dw = 40, .angle = 0.5},
    };
    struct vd_motion_sm sm;
    struct sm_run r = {0};
    double c[VD_CUE_N], out[VD_CUE_N], prev = 0.0, fmax_dc = 0.0, vmax_pre = 0.0;
    const double dt = 1e-3;
    bool have_prev = false, captured = false;
    double since = 0.0, sp_park = 0.0;

    vd_motion_sm_init(&sm, &cfg, 9.81);
    for (int k = 0; k < 6000; k++) {
        const double t = k * dt;
        struct vd_motion_in in = {0};
        const bool after = t >= t_ev;

        live_cue(t, c, ev == VD_MRS_NAN && after && t < t_ev + 0.01);
        if (ev == VD_MRS_LIMIT && after && t < t_ev + 0.01)
            c[VD_CUE_FX] = -45.0; /* a crash-like spike */
        in.cue = c;
        since = 0.0;
        if (ev == VD_MRS_STALE && after) {
            in.cue = NULL; /* the loop published nothing more */
            since = t - t_ev;
        }
        in.since_fresh_s = since;
        in.final = (ev == VD_MRS_STOP || ev == VD_MRS_OVERRUN_STOP) && after;
        in.stop_kind = ev;
        in.frozen = ev == VD_MRS_FREEZE && after;
        in.step_error = ev == VD_MRS_STEP_ERROR && after && t < t_ev + 0.002;
        in.heartbeat_lost = ev == VD_MRS_HEARTBEAT && after;
        in.platform_fault = ev == VD_MRS_PLATFORM && after;
        if (in.final || in.frozen)
            in.cue = NULL; /* held outputs: the thread takes nothing new */
        vd_motion_sm_step(&sm, &in, dt, out);
        if (!captured && sm.state == VD_MST_PARKING) {
            /* the park fade's polynomial as started (from wherever the fade-in was): its
             * derivative is bounded by sum_k k |c_k| T^(k-1) (the triangle inequality) */
            const double T = sm.fade.T;

            if (sm.fade.c[1] == 0.0 && sm.fade.c[2] == 0.0) /* from rest: 15/8 |h| / T */
                sp_park = 15.0 / 8.0 * fabs(sm.fade.c[0]) / T;
            else
                for (int j = 1; j < 6; j++)
                    sp_park += j * fabs(sm.fade.c[j]) * pow(T, j - 1);
            captured = true;
        }
        /* jerk: the time derivative of the specific-force channels, by differences (the
         * mean of the derivative over the tick: never above its maximum) */
        if (have_prev)
            r.jerk_max = fmax(r.jerk_max, fabs(out[VD_CUE_FX] - prev) / dt);
        prev = out[VD_CUE_FX];
        have_prev = true;
        /* the live cue's own jerk |d f_x/dt| <= 0.5 * 2 pi 0.5 = 1.57 m/s^3 */
        vmax_pre = 0.5 * 2 * M_PI * 0.5;
        fmax_dc = fmax(fmax_dc, fabs(sm.src[VD_CUE_FX] - sm.neutral[VD_CUE_FX]));
        if (vd_motion_sm_done(&sm) && r.t_done == 0.0)
            r.t_done = t;
    }
    r.state = sm.state;
    r.reason = sm.reason;
    memcpy(r.out_end, out, sizeof(out));
    /* d out/dt = s' (c - n) + s c': the rest-to-rest quintic's |s'| <= 15/(8T) (at its
     * middle); a fade started while the fade-in moves: the bound of its own polynomial */
    r.jerk_bound =
        fmax(15.0 / (8.0 * fmin(cfg.engage_s, cfg.park_s)), sp_park) * fmax_dc + vmax_pre + 1e-9;
    return r;
}

static void test_fades(void)
{
    static const struct {
        int ev;
        double t;
        int state;
        const char *what;
    } c[] = {
        {VD_MRS_NONE, 99, VD_MST_ENGAGED, "engage, no event"},
        {VD_MRS_STOP, 2.0, VD_MST_PARKED, "stop"},
        {VD_MRS_OVERRUN_STOP, 2.0, VD_MST_FAULT, "overrun stop"},
        {VD_MRS_FREEZE, 2.0, VD_MST_FAULT, "freeze"},
        {VD_MRS_STEP_ERROR, 2.0, VD_MST_FAULT, "step error"},
        {VD_MRS_NAN, 2.0, VD_MST_FAULT, "NaN cue"},
        {VD_MRS_LIMIT, 2.0, VD_MST_FAULT, "cue beyond limit"},
        {VD_MRS_HEARTBEAT, 2.0, VD_MST_FAULT, "heartbeat lost"},
        {VD_MRS_STALE, 2.0, VD_MST_FAULT, "loop silent"},
        {VD_MRS_PLATFORM, 2.0, VD_MST_FAULT, "platform fault"},
        {VD_MRS_PLATFORM, 0.4, VD_MST_FAULT, "platform fault during the fade-in"},
        {VD_MRS_STEP_ERROR, 0.4, VD_MST_FAULT, "step error during the fade-in"},
    };

    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        const struct sm_run r = run_sm(c[i].ev, c[i].t);

        printf("  fade path %-30s -> %-7s reason %-16s done at %.3f s, jerk max %.2f m/s^3 "
               "(bound %.2f), f end (%.3f %.3f %.3f)\n",
               c[i].what, vd_motion_state_name[r.state], vd_motion_reason_name[r.reason], r.t_done,
               r.jerk_max, r.jerk_bound, r.out_end[VD_CUE_FX], r.out_end[VD_CUE_FY],
               r.out_end[VD_CUE_FZ]);
        CHECK(r.state == c[i].state, "%s: state %d", c[i].what, r.state);
        CHECK(c[i].ev == VD_MRS_NONE || r.reason == c[i].ev, "%s: reason %d", c[i].what, r.reason);
        CHECK_TOL(r.jerk_max, r.jerk_bound, "%s: jerk %g", c[i].what, r.jerk_max);
        if (c[i].ev != VD_MRS_NONE) {
            /* neutral exactly: s = 0 at the end of the quintic */
            CHECK(r.out_end[VD_CUE_FX] == 0.0 && r.out_end[VD_CUE_FY] == 0.0 &&
                      r.out_end[VD_CUE_FZ] == 9.81 && r.out_end[VD_CUE_PITCH] == 0.0 &&
                      r.out_end[VD_CUE_WZ] == 0.0,
                  "%s: neutral at the end", c[i].what);
            /* the fade lasts park_s from the event */
            CHECK(r.t_done > c[i].t + 1.4 && r.t_done < c[i].t + 1.6, "%s: park time %g", c[i].what,
                  r.t_done);
        }
    }
    /* the fader itself: continuous to the second derivative across an interruption */
    {
        struct vd_motion_fader f;
        double s_prev, v_prev;

        vd_motion_fader_set(&f, 0.0);
        vd_motion_fader_start(&f, 1.0, 1.0);
        for (int k = 0; k < 300; k++)
            vd_motion_fader_step(&f, 1e-3);
        s_prev = f.s;
        v_prev = f.v;
        vd_motion_fader_start(&f, 0.0, 1.5);
        vd_motion_fader_step(&f, 1e-6);
        /* over 1 us: |ds| <= |v| 1e-6 + ..., |dv| <= |a| 1e-6 (|a| <= 6) */
        CHECK_TOL(fabs(f.s - s_prev), 2.0 * 1e-6 + 1e-12, "s continuous");
        CHECK_TOL(fabs(f.v - v_prev), 10.0 * 1e-6 + 1e-12, "s' continuous");
    }
}

/* the engage timeout (the feed never engaged: off -> fault, no fade) and RESET on the wire */
static void test_engage_timeout_reset(void)
{
    const struct vd_motion_sm_cfg cfg = {
        .engage_s = 1.0, .park_s = 1.5, .stale_s = 0.05, .lim = {30, 2, 40, 0.5}};
    struct vd_motion_sm sm;
    struct vd_motion_msg m = {0}, r;
    uint8_t b[VD_MOTION_MAX_BYTES];
    double c[VD_CUE_N], out[VD_CUE_N];
    uint32_t fl = 0;

    vd_motion_sm_init(&sm, &cfg, 9.81);
    /* the handshake holds the cues back (cue NULL) until the timeout */
    for (int k = 0; k < 100; k++) {
        struct vd_motion_in in = {0};

        in.engage_timeout = k >= 60;
        fl = vd_motion_sm_step(&sm, &in, 1e-3, out);
    }
    CHECK(sm.state == VD_MST_FAULT && sm.reason == VD_MRS_ENGAGE_TIMEOUT &&
              sm.faults[VD_MRS_ENGAGE_TIMEOUT] == 1 && (fl & VD_MFL_FAULT) && !sm.fade.moving,
          "engage timeout: off -> fault at once (state %d, reason %d)", sm.state, sm.reason);
    CHECK(out[VD_CUE_FX] == 0.0 && out[VD_CUE_FZ] == 9.81, "engage timeout: neutral");
    /* latched: good cues afterwards engage nothing */
    live_cue(0.5, c, false);
    for (int k = 0; k < 100; k++) {
        struct vd_motion_in in = {0};

        in.cue = c;
        vd_motion_sm_step(&sm, &in, 1e-3, out);
    }
    CHECK(sm.state == VD_MST_FAULT && sm.reason == VD_MRS_ENGAGE_TIMEOUT && out[VD_CUE_FX] == 0.0,
          "engage timeout latched");
    CHECK(!strcmp(vd_motion_reason_name[VD_MRS_ENGAGE_TIMEOUT], "engage timeout"), "its name");

    /* the handshake's end (the MBC ENGAGED, no cues yet): the loop-silent watch only when armed
     * (stale_armed), then off -> fault at once; unarmed, a silent loop before the first cue
     * changes nothing (the engage timeout covers the wait for ENGAGED) */
    for (int armed = 0; armed < 2; armed++) {
        vd_motion_sm_init(&sm, &cfg, 9.81);
        for (int k = 0; k < 100; k++) {
            struct vd_motion_in in = {0};

            in.since_fresh_s = 1e-3 * k; /* stale_s 0.05: silent from k = 51 on */
            in.stale_armed = armed;
            vd_motion_sm_step(&sm, &in, 1e-3, out);
        }
        if (armed)
            CHECK(sm.state == VD_MST_FAULT && sm.reason == VD_MRS_STALE &&
                      sm.faults[VD_MRS_STALE] == 1 && !sm.fade.moving && out[VD_CUE_FZ] == 9.81,
                  "armed, loop silent: off -> fault (state %d, reason %d)", sm.state, sm.reason);
        else
            CHECK(sm.state == VD_MST_OFF && sm.faults[VD_MRS_STALE] == 0, "unarmed: off (state %d)",
                  sm.state);
    }

    /* RESET: Moog motion command word 3 whatever the state; the rtvd format's flag bit 8 */
    m.type = VD_MTYPE_CUE;
    m.rate_hz = 500;
    m.cue[VD_CUE_FZ] = 9.81;
    for (int st = VD_MST_OFF; st < VD_MST_COUNT; st++) {
        m.state = (uint8_t)st;
        m.reset = false;
        vd_motion_encode(VD_MFMT_MOOG_MDA, &m, b, sizeof(b));
        CHECK(b[16] == 0 && b[17] == 0 && b[18] == 0 && b[19] != 3, "state %d: no RESET", st);
        m.reset = true;
        vd_motion_encode(VD_MFMT_MOOG_MDA, &m, b, sizeof(b));
        CHECK(b[16] == 0 && b[17] == 0 && b[18] == 0 && b[19] == 3, "state %d: MCW 3 RESET", st);
        CHECK(vd_motion_decode(b, VD_MOTION_MOOG_BYTES, &r) == VD_MFMT_MOOG_MDA && r.reset,
              "state %d: RESET decodes", st);
    }
    m.state = VD_MST_OFF;
    m.reset = true;
    m.flags = VD_MFL_RESET;
    CHECK(vd_motion_encode(VD_MFMT_RTVD, &m, b, sizeof(b)) == VD_MOTION_CUE_BYTES && b[13] == 1 &&
              vd_motion_decode(b, VD_MOTION_CUE_BYTES, &r) == VD_MFMT_RTVD && r.reset &&
              r.flags == VD_MFL_RESET,
          "rtvd format: flag bit 8");
}

/* the operator's commands on the state machine (app/motionctl.h decides, these act): PARK from
 * engaged fades with the jerk bound of every park and ends parked (no fault flag), ENGAGE from
 * parked fades in again from neutral, a fault while parked by the operator latches, and
 * nothing acts out of state */
static void test_operator(void)
{
    const struct vd_motion_sm_cfg cfg = {
        .engage_s = 1.0, .park_s = 1.5, .stale_s = 0.05, .lim = {30, 2, 40, 0.5}};
    struct vd_motion_sm sm;
    double c[VD_CUE_N], out[VD_CUE_N], held[VD_CUE_N], prev = 0.0, jmax = 0.0;
    const double dt = 1e-3;
    uint32_t fl = 0;
    int k = 0;

    vd_motion_sm_init(&sm, &cfg, 9.81);
    CHECK(!vd_motion_sm_engage(&sm), "ENGAGE while off: nothing");
    for (; k < 1500; k++) { /* engage (1 s), engaged */
        struct vd_motion_in in = {0};

        live_cue(k * dt, c, false);
        in.cue = c;
        vd_motion_sm_step(&sm, &in, dt, out);
    }
    CHECK(sm.state == VD_MST_ENGAGED && sm.engages == 1, "engaged (state %d)", sm.state);
    CHECK(!vd_motion_sm_engage(&sm) && !vd_motion_sm_fault(&sm, VD_MRS_PLATFORM),
          "ENGAGE or a parked-fault while engaged: nothing");
    memcpy(held, sm.src, sizeof(held)); /* the cue the park holds: the last taken */
    prev = out[VD_CUE_FX];
    CHECK(vd_motion_sm_park(&sm) && sm.state == VD_MST_PARKING && sm.reason == VD_MRS_OPERATOR,
          "PARK: parking, operator park");
    CHECK(!vd_motion_sm_park(&sm), "PARK while parking: nothing");
    for (; k < 3200; k++) { /* the park (1.5 s); the model goes on */
        struct vd_motion_in in = {0};

        live_cue(k * dt, c, false);
        in.cue = c;
        fl = vd_motion_sm_step(&sm, &in, dt, out);
        jmax = fmax(jmax, fabs(out[VD_CUE_FX] - prev) / dt);
        prev = out[VD_CUE_FX];
        CHECK(!(fl & VD_MFL_FAULT) && !(fl & VD_MFL_LIVE),
              "parking by the operator: no fault flag");
    }
    /* the held cue faded from rest: |d f/dt| <= 15/(8 T) |c - n| exactly (the mean over a tick
     * of a derivative never exceeds its maximum); rounding: 1e-15 x 6 m/s^2 / 1 ms, 1e-9 */
    CHECK_TOL(jmax, 15.0 / (8.0 * cfg.park_s) * fabs(held[VD_CUE_FX]) + 1e-9,
              "operator park: jerk %g m/s^3", jmax);
    CHECK(sm.state == VD_MST_PARKED && sm.reason == VD_MRS_OPERATOR && out[VD_CUE_FX] == 0.0 &&
              out[VD_CUE_FZ] == 9.81 && sm.faults[VD_MRS_OPERATOR] == 1,
          "operator park ends parked, neutral (state %d)", sm.state);
    CHECK(!vd_motion_sm_park(&sm), "PARK while parked: nothing");
    /* ENGAGE again: from neutral, live, over engage_s */
    CHECK(vd_motion_sm_engage(&sm) && sm.state == VD_MST_ENGAGING && sm.reason == VD_MRS_NONE &&
              sm.engages == 2,
          "ENGAGE from parked");
    {
        struct vd_motion_in in = {0};

        live_cue(k * dt, c, false);
        in.cue = c;
        fl = vd_motion_sm_step(&sm, &in, dt, out);
        /* one tick of the quintic from 0: s = 10 (dt/T)^3 - ... < 1e-8 */
        CHECK((fl & VD_MFL_LIVE) && sm.fade.s > 0.0 && sm.fade.s < 1e-8 &&
                  fabs(out[VD_CUE_FX]) < 1e-7,
              "the fade-in starts from neutral (s %g)", sm.fade.s);
        k++;
    }
    for (; k < 4300; k++) {
        struct vd_motion_in in = {0};

        live_cue(k * dt, c, false);
        in.cue = c;
        vd_motion_sm_step(&sm, &in, dt, out);
    }
    CHECK(sm.state == VD_MST_ENGAGED && out[VD_CUE_FX] == c[VD_CUE_FX], "engaged again");
    /* parked by the operator, then a platform fault: latched as a fault at once */
    vd_motion_sm_park(&sm);
    for (int j = 0; j < 1600; j++) {
        struct vd_motion_in in = {0};

        in.cue = c;
        in.platform_fault = j >= 1550;
        vd_motion_sm_step(&sm, &in, dt, out);
    }
    CHECK(sm.state == VD_MST_FAULT && sm.reason == VD_MRS_PLATFORM &&
              sm.faults[VD_MRS_PLATFORM] == 1,
          "a platform fault while parked by the operator latches (state %d)", sm.state);
    /* after a fault: ENGAGE acts (the operator's, when app/motionctl.c allows it) */
    CHECK(vd_motion_sm_fault(&sm, VD_MRS_ENGAGE_TIMEOUT) && sm.reason == VD_MRS_ENGAGE_TIMEOUT,
          "a further fault while in fault: the reason");
    CHECK(vd_motion_sm_engage(&sm) && sm.state == VD_MST_ENGAGING, "ENGAGE from fault");
    CHECK(!strcmp(vd_motion_reason_name[VD_MRS_OPERATOR], "operator park"), "its name");
    /* PARK before the first engagement (the handshake waiting): parked at once */
    vd_motion_sm_init(&sm, &cfg, 9.81);
    CHECK(vd_motion_sm_park(&sm) && sm.state == VD_MST_PARKED && !sm.fade.moving,
          "PARK while off: parked");
    {
        struct vd_motion_in in = {0};

        live_cue(0.0, c, false);
        in.cue = c;
        vd_motion_sm_step(&sm, &in, dt, out);
        CHECK(sm.state == VD_MST_PARKED && out[VD_CUE_FX] == 0.0,
              "cues after an operator's park engage nothing by themselves");
    }
}

int main(void)
{
    test_rtvd();
    test_moog();
    test_moog_status();
    test_outsim();
    test_decimation(250, VD_MDEC_AVERAGE);
    test_decimation(250, VD_MDEC_LOWPASS);
    test_decimation(100, VD_MDEC_LOWPASS);
    test_fades();
    test_engage_timeout_reset();
    test_operator();
    return vt_report("test_motion");
}
