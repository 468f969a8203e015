/* io/motion.c - motion feed formats, decimation, fades and the state machine. */
#include "motion.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "core/vdmath.h"

const char *const vd_motion_state_name[VD_MST_COUNT] = {"off",     "engaging", "engaged",
                                                        "parking", "parked",   "fault"};
const char *const vd_motion_reason_name[VD_MRS_COUNT] = {"",
                                                         "stop",
                                                         "overrun stop",
                                                         "freeze",
                                                         "step error",
                                                         "NaN cue",
                                                         "cue beyond limit",
                                                         "heartbeat lost",
                                                         "loop silent",
                                                         "platform fault",
                                                         "engage timeout",
                                                         "operator park"};
const char *const vd_motion_fmt_name[VD_MFMT_COUNT] = {"rtvd", "moog_mda", "outsim"};

/* --- bytes ------------------------------------------------------------------------------- */

static void le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static void le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static void le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static void be32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (24 - 8 * i));
}
static uint16_t rle16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}
static uint32_t rle32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rle64(const uint8_t *p)
{
    return (uint64_t)rle32(p) | (uint64_t)rle32(p + 4) << 32;
}
static uint32_t rbe32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}
static uint32_t f32bits(double x)
{
    const float f = (float)x;
    uint32_t u;

    memcpy(&u, &f, 4);
    return u;
}
static float bitsf32(uint32_t u)
{
    float f;

    memcpy(&f, &u, 4);
    return f;
}
static uint64_t f64bits(double x)
{
    uint64_t u;

    memcpy(&u, &x, 8);
    return u;
}
static double bitsf64(uint64_t u)
{
    double x;

    memcpy(&x, &u, 8);
    return x;
}

uint32_t vd_crc32(const void *buf, size_t n)
{
    const uint8_t *p = buf;
    uint32_t c = 0xFFFFFFFFu;

    /* bitwise, reflected polynomial 0xEDB88320: 8 shifts per byte, 2 k operations per feed
     * datagram, no table to build */
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

/* --- frames ---------------------------------------------------------------------------- */

/* the MRP axes in global axes from the cues' attitude */
static void cue_R(const double *cue, double R[9])
{
    vdu_cardan_zyx(R, cue[VD_CUE_YAW], cue[VD_CUE_PITCH], cue[VD_CUE_ROLL]);
}

static const double g_vec[3] = {0, 0, -9.81};

static int enc_rtvd(const struct vd_motion_msg *m, uint8_t *b)
{
    const int n = m->type == VD_MTYPE_POSE ? VD_MOTION_NPOSE : VD_CUE_N;
    const double *v = m->type == VD_MTYPE_POSE ? m->pose : m->cue;
    size_t off = VD_MOTION_HDR;

    memcpy(b, VD_MOTION_MAGIC, 4);
    le16(b + 4, VD_MOTION_VERSION);
    le16(b + 6, (uint16_t)m->type);
    le32(b + 8, m->seq);
    le32(b + 12, m->flags);
    le64(b + 16, f64bits(m->t_model));
    le64(b + 24, (uint64_t)m->t_send_ns);
    b[32] = m->state;
    b[33] = m->reason;
    le16(b + 34, m->rate_hz);
    le32(b + 36, f32bits(m->fade));
    for (int i = 0; i < n; i++, off += 8)
        le64(b + off, f64bits(v[i]));
    le32(b + off, vd_crc32(b, off));
    return (int)off + 4;
}

/* Moog MDA: ISO vehicle axes (x forward, y left, z up) -> aerospace (x forward, y right,
 * z down): y and z components and the pitch and yaw senses change sign */
static int enc_moog(const struct vd_motion_msg *m, uint8_t *b)
{
    const double *c = m->cue;
    double R[9], gm[3], a[3];
    uint32_t mcw;
    const double v[12] = {0};
    double x[12];

    (void)v;
    cue_R(c, R);
    vdu_mat3t_vec(gm, R, g_vec);
    for (int i = 0; i < 3; i++)
        a[i] = c[VD_CUE_FX + i] + gm[i]; /* kinematic acceleration, MRP axes */
    x[0] = c[VD_CUE_ROLL];
    x[1] = -c[VD_CUE_PITCH];
    x[2] = -c[VD_CUE_YAW];
    x[3] = c[VD_CUE_WX];
    x[4] = -c[VD_CUE_WY];
    x[5] = -c[VD_CUE_WZ];
    x[6] = c[VD_CUE_DWX];
    x[7] = -c[VD_CUE_DWY];
    x[8] = -c[VD_CUE_DWZ];
    x[9] = a[0];
    x[10] = -a[1];
    x[11] = -a[2];
    switch (m->reset ? -1 : m->state) {
    case -1:
        mcw = 3; /* MOTION_CMD_RESET: the operator's fault reset (app/motionlink.h) */
        break;
    case VD_MST_ENGAGING:
    case VD_MST_ENGAGED:
    case VD_MST_PARKING:
        mcw = 1; /* MOTION_CMD_ENGAGE */
        break;
    case VD_MST_PARKED:
    case VD_MST_FAULT:
        mcw = 2; /* MOTION_CMD_DISENGAGE */
        break;
    default:
        mcw = 0; /* MOTION_CMD_NULL */
    }
    be32(b + 0, VD_MOTION_MOOG_BYTES - 16); /* packetLength: what follows the header */
    be32(b + 4, m->seq);
    be32(b + 8, 0);    /* packetChecksum: never set by Moog's sample */
    be32(b + 12, 102); /* SCC2MBC_MDA_COMMAND_MODE_MSG_ID */
    be32(b + 16, mcw);
    be32(b + 20, (uint32_t)m->rate_hz << 16); /* STAT_RESP: updateRate in bits 16-31 */
    be32(b + 24, 0);                          /* mdaCommandWord (the sample's FREEZE): 0 */
    for (int i = 0; i < 12; i++)
        be32(b + 28 + 4 * i, f32bits(x[i]));
    be32(b + 76, 0); /* SE_ACTIVE_CMD_DONE: no special effects */
    return VD_MOTION_MOOG_BYTES;
}

/* LFS world axes: X right, Y forward, Z up at heading 0 = ours (x forward, y left): X = -y,
 * Y = x. Angular velocity, acceleration (kinematic) and velocity in world axes */
static void to_lfs(const double g[3], double out[3])
{
    out[0] = -g[1];
    out[1] = g[0];
    out[2] = g[2];
}
static void from_lfs(const double l[3], double out[3])
{
    out[0] = l[1];
    out[1] = -l[0];
    out[2] = l[2];
}

static int enc_outsim(const struct vd_motion_msg *m, uint8_t *b)
{
    const double *c = m->cue;
    double R[9], t[3], w[3], a[3], v[3];

    cue_R(c, R);
    vdu_mat3_vec(t, R, c + VD_CUE_WX);
    to_lfs(t, w);
    vdu_mat3_vec(t, R, c + VD_CUE_FX);
    for (int i = 0; i < 3; i++)
        t[i] += g_vec[i];
    to_lfs(t, a);
    vdu_mat3_vec(t, R, c + VD_CUE_VX);
    to_lfs(t, v);
    le32(b, (uint32_t)(int64_t)llround(m->t_model * 1000.0));
    for (int i = 0; i < 3; i++) {
        le32(b + 4 + 4 * i, f32bits(w[i]));
        le32(b + 28 + 4 * i, f32bits(a[i]));
        le32(b + 40 + 4 * i, f32bits(v[i]));
    }
    le32(b + 16, f32bits(c[VD_CUE_YAW]));
    le32(b + 20, f32bits(-c[VD_CUE_PITCH]));
    le32(b + 24, f32bits(c[VD_CUE_ROLL]));
    {
        double p[3];

        to_lfs(c + VD_CUE_PX, p);
        for (int i = 0; i < 3; i++)
            le32(b + 52 + 4 * i, (uint32_t)(int32_t)(int64_t)llround(remainder(p[i], 65536.0) *
                                                                     65536.0)); /* 1 m = 65536 */
    }
    if (m->outsim_id) {
        le32(b + 64, (uint32_t)m->outsim_id);
        return VD_MOTION_OUTSIM_BYTES + 4;
    }
    return VD_MOTION_OUTSIM_BYTES;
}

int vd_motion_encode(int fmt, const struct vd_motion_msg *msg, uint8_t *buf, size_t cap)
{
    if (cap < VD_MOTION_MAX_BYTES)
        return -EINVAL;
    switch (fmt) {
    case VD_MFMT_RTVD:
        return enc_rtvd(msg, buf);
    case VD_MFMT_MOOG_MDA:
        return msg->type == VD_MTYPE_CUE ? enc_moog(msg, buf) : -EINVAL;
    case VD_MFMT_OUTSIM:
        return msg->type == VD_MTYPE_CUE ? enc_outsim(msg, buf) : -EINVAL;
    default:
        return -EINVAL;
    }
}

int vd_motion_decode(const uint8_t *b, size_t len, struct vd_motion_msg *m)
{
    memset(m, 0, sizeof(*m));
    if (len >= VD_MOTION_HDR && !memcmp(b, VD_MOTION_MAGIC, 4)) {
        const int type = rle16(b + 6);
        const size_t want = type == VD_MTYPE_POSE ? VD_MOTION_POSE_BYTES : VD_MOTION_CUE_BYTES;
        double *v = type == VD_MTYPE_POSE ? m->pose : m->cue;
        uint32_t f;

        if (rle16(b + 4) != VD_MOTION_VERSION || (type != VD_MTYPE_CUE && type != VD_MTYPE_POSE) ||
            len != want || rle32(b + len - 4) != vd_crc32(b, len - 4))
            return -EINVAL;
        m->type = type;
        m->seq = rle32(b + 8);
        m->flags = rle32(b + 12);
        m->reset = (m->flags & VD_MFL_RESET) != 0;
        m->t_model = bitsf64(rle64(b + 16));
        m->t_send_ns = (int64_t)rle64(b + 24);
        m->state = b[32];
        m->reason = b[33];
        m->rate_hz = rle16(b + 34);
        f = rle32(b + 36);
        m->fade = bitsf32(f);
        /* a field out of its range is a malformed datagram, as a bad CRC: a state or reason
         * beyond the enumerations, a fade outside 0..1 (or NaN), an undefined flag */
        if (m->state >= VD_MST_COUNT || m->reason >= VD_MRS_COUNT ||
            !(m->fade >= 0.0f && m->fade <= 1.0f) || (m->flags & ~VD_MFL_ALL))
            return -EINVAL;
        for (size_t i = 0, off = VD_MOTION_HDR; off + 4 < len; i++, off += 8)
            v[i] = bitsf64(rle64(b + off));
        return VD_MFMT_RTVD;
    }
    if (len == VD_MOTION_MOOG_BYTES && rbe32(b) == VD_MOTION_MOOG_BYTES - 16 &&
        rbe32(b + 12) == 102) {
        double x[12], R[9], gm[3];
        const uint32_t mcw = rbe32(b + 16);

        if (mcw > 3) /* NULL, ENGAGE, DISENGAGE, RESET: no other command */
            return -EINVAL;
        for (int i = 0; i < 12; i++)
            x[i] = bitsf32(rbe32(b + 28 + 4 * i));
        m->type = VD_MTYPE_CUE;
        m->seq = rbe32(b + 4);
        m->rate_hz = (uint16_t)(rbe32(b + 20) >> 16);
        m->state = mcw == 1 ? VD_MST_ENGAGED : mcw == 2 ? VD_MST_PARKED : VD_MST_OFF;
        m->reset = mcw == 3;
        m->cue[VD_CUE_ROLL] = x[0];
        m->cue[VD_CUE_PITCH] = -x[1];
        m->cue[VD_CUE_YAW] = -x[2];
        m->cue[VD_CUE_WX] = x[3];
        m->cue[VD_CUE_WY] = -x[4];
        m->cue[VD_CUE_WZ] = -x[5];
        m->cue[VD_CUE_DWX] = x[6];
        m->cue[VD_CUE_DWY] = -x[7];
        m->cue[VD_CUE_DWZ] = -x[8];
        cue_R(m->cue, R);
        vdu_mat3t_vec(gm, R, g_vec);
        m->cue[VD_CUE_FX] = x[9] - gm[0];
        m->cue[VD_CUE_FY] = -x[10] - gm[1];
        m->cue[VD_CUE_FZ] = -x[11] - gm[2];
        return VD_MFMT_MOOG_MDA;
    }
    if (len == VD_MOTION_OUTSIM_BYTES || len == VD_MOTION_OUTSIM_BYTES + 4) {
        double w[3], a[3], v[3], p[3], R[9], t[3];

        for (int i = 0; i < 3; i++) {
            w[i] = bitsf32(rle32(b + 4 + 4 * i));
            a[i] = bitsf32(rle32(b + 28 + 4 * i));
            v[i] = bitsf32(rle32(b + 40 + 4 * i));
            p[i] = (double)(int32_t)rle32(b + 52 + 4 * i) / 65536.0;
        }
        m->type = VD_MTYPE_CUE;
        m->t_model = rle32(b) * 1e-3;
        m->cue[VD_CUE_YAW] = bitsf32(rle32(b + 16));
        m->cue[VD_CUE_PITCH] = -bitsf32(rle32(b + 20));
        m->cue[VD_CUE_ROLL] = bitsf32(rle32(b + 24));
        cue_R(m->cue, R);
        from_lfs(w, t);
        vdu_mat3t_vec(m->cue + VD_CUE_WX, R, t);
        from_lfs(a, t);
        for (int i = 0; i < 3; i++)
            t[i] -= g_vec[i];
        vdu_mat3t_vec(m->cue + VD_CUE_FX, R, t);
        from_lfs(v, t);
        vdu_mat3t_vec(m->cue + VD_CUE_VX, R, t);
        from_lfs(p, m->cue + VD_CUE_PX);
        if (len > VD_MOTION_OUTSIM_BYTES)
            m->outsim_id = (int32_t)rle32(b + 64);
        m->state = VD_MST_ENGAGED;
        return VD_MFMT_OUTSIM;
    }
    return -EINVAL;
}

int vd_motion_heartbeat_encode(uint64_t count, uint8_t *buf, size_t cap)
{
    if (cap < VD_MOTION_HB_BYTES)
        return -EINVAL;
    memcpy(buf, VD_MOTION_HB_MAGIC, 4);
    le32(buf + 4, 1);
    le64(buf + 8, count);
    return VD_MOTION_HB_BYTES;
}

bool vd_motion_heartbeat_decode(const uint8_t *buf, size_t len, uint64_t *count)
{
    if (len != VD_MOTION_HB_BYTES || memcmp(buf, VD_MOTION_HB_MAGIC, 4) || rle32(buf + 4) != 1)
        return false;
    if (count)
        *count = rle64(buf + 8);
    return true;
}

/* --- Moog MBC status ---------------------------------------------------------------------- */

const char *const vd_moog_bad_name[VD_MOOG_BAD_COUNT] = {
    "",      "short", "not a status id", "length field", "machine state", "feedback chain",
    "value", "stale"};

const char *vd_moog_state_name(int s)
{
    static const char *const name[14] = {"powerup", "idle",     "standby",   "engaged", "settling",
                                         NULL,      NULL,       NULL,        "fault1",  "fault2",
                                         "fault3",  "disabled", "inhibited", "frozen"};

    return s >= 0 && s < 14 && name[s] ? name[s] : "?";
}

/* the feedback records: tag (OPT_STATUS_DATA_*), enum vd_moog_opt bit, payload bytes */
static const struct {
    uint32_t tag, bit, bytes;
} moog_rec[4] = {
    {1, VD_MOOG_OPT_DOF, 24},
    {2, VD_MOOG_OPT_LENGTH, 24},
    {3, VD_MOOG_OPT_DATA, 4 + 6 * 10 * 4}, /* numOptFeedbackDrives + OPTION_TYPE[6] */
    {4, VD_MOOG_OPT_ACC, 12},
};

static bool finite_be(const uint8_t *p, int n, float *out)
{
    for (int i = 0; i < n; i++) {
        const float f = bitsf32(rbe32(p + 4 * i));

        if (!isfinite(f))
            return false;
        if (out)
            out[i] = f;
    }
    return true;
}

int vd_moog_status_decode(const uint8_t *b, size_t len, struct vd_moog_status *st)
{
    uint32_t w, opt = 0;
    size_t off;
    int bad = VD_MOOG_OK;

    memset(st, 0, sizeof(*st));
    if (len < 16 || len % 4)
        return VD_MOOG_BAD_SHORT;
    st->msg_id = rbe32(b + 12);
    if (st->msg_id != VD_MOOG_STATUS_ID && st->msg_id != VD_MOOG_STATUS_ID_MB)
        bad = VD_MOOG_BAD_ID;
    else if (len < VD_MOOG_STATUS_BYTES)
        bad = VD_MOOG_BAD_SHORT;
    else if (rbe32(b) != len - 16)
        bad = VD_MOOG_BAD_LENGTH;
    if (bad)
        goto out_bad;
    st->seq = rbe32(b + 4);
    w = rbe32(b + 16);
    st->machine_state = (uint8_t)(w & 0xF);
    st->motion_mode = (uint8_t)(w >> 4 & 0x3);
    st->feedback_mode = (uint8_t)(w >> 6 & 0x3);
    st->misc = (uint8_t)(w >> 8);
    st->update_rate = (uint16_t)(w >> 16);
    if (vd_moog_state_name(st->machine_state)[0] == '?') {
        bad = VD_MOOG_BAD_STATE;
        goto out_bad;
    }
    st->discrete_io = rbe32(b + 20);
    for (int i = 0; i < 3; i++)
        st->fault[i] = rbe32(b + 24 + 4 * i);
    /* the feedback chain: tag, record, tag, ..., 0 exactly at the end */
    for (off = 36;;) {
        const uint32_t tag = rbe32(b + off);
        const uint8_t *p = b + off + 4;
        int r;

        off += 4;
        if (tag == 0) {
            if (off != len)
                bad = VD_MOOG_BAD_OPT; /* bytes after the end tag */
            break;
        }
        for (r = 0; r < 4 && moog_rec[r].tag != tag; r++)
            ;
        if (r == 4 || (opt & moog_rec[r].bit) || off + moog_rec[r].bytes + 4 > len) {
            bad = VD_MOOG_BAD_OPT; /* unknown, repeated, or no room for it and the next tag */
            break;
        }
        opt |= moog_rec[r].bit;
        off += moog_rec[r].bytes;
        if (tag == 1 && !finite_be(p, 6, st->dof))
            bad = VD_MOOG_BAD_VALUE;
        else if (tag == 2 && !finite_be(p, 6, st->length))
            bad = VD_MOOG_BAD_VALUE;
        else if (tag == 4 && !finite_be(p, 3, st->acc))
            bad = VD_MOOG_BAD_VALUE;
        else if (tag == 3 && ((st->drives = rbe32(p)) > 10 || !finite_be(p + 4, 60, NULL)))
            bad = VD_MOOG_BAD_VALUE;
        if (bad)
            break;
    }
    if (bad)
        goto out_bad;
    st->opt = opt;
    return VD_MOOG_OK;
out_bad:
    memset(st, 0, sizeof(*st));
    return bad;
}

int vd_moog_status_encode(const struct vd_moog_status *st, uint8_t *b, size_t cap)
{
    size_t off = 36;

    if (cap < VD_MOOG_STATUS_MAX)
        return -EINVAL;
    be32(b + 4, st->seq);
    be32(b + 8, 0); /* packetChecksum: the sample neither sets nor checks it */
    be32(b + 12, st->msg_id ? st->msg_id : VD_MOOG_STATUS_ID);
    be32(b + 16, (uint32_t)(st->machine_state & 0xF) | (uint32_t)(st->motion_mode & 0x3) << 4 |
                     (uint32_t)(st->feedback_mode & 0x3) << 6 | (uint32_t)st->misc << 8 |
                     (uint32_t)st->update_rate << 16);
    be32(b + 20, st->discrete_io);
    for (int i = 0; i < 3; i++)
        be32(b + 24 + 4 * i, st->fault[i]);
    for (int r = 0; r < 4; r++) {
        const float *v = r == 0 ? st->dof : r == 1 ? st->length : r == 3 ? st->acc : NULL;

        if (!(st->opt & moog_rec[r].bit))
            continue;
        be32(b + off, moog_rec[r].tag);
        off += 4;
        if (v) {
            for (uint32_t i = 0; i < moog_rec[r].bytes / 4; i++)
                be32(b + off + 4 * i, f32bits(v[i]));
        } else {
            be32(b + off, st->drives); /* drive data: the count, zero values */
            memset(b + off + 4, 0, moog_rec[r].bytes - 4);
        }
        off += moog_rec[r].bytes;
    }
    be32(b + off, 0); /* OPT_STATUS_DATA_DONE */
    off += 4;
    be32(b, (uint32_t)(off - 16));
    return (int)off;
}

bool vd_moog_status_fault(const struct vd_moog_status *st)
{
    switch (st->machine_state) {
    case VD_MOOG_FAULT1:
    case VD_MOOG_FAULT2:
    case VD_MOOG_FAULT3:
    case VD_MOOG_DISABLED:
    case VD_MOOG_INHIBITED:
        return true;
    default:
        return (st->fault[0] | st->fault[1] | st->fault[2]) != 0;
    }
}

/* --- decimation ------------------------------------------------------------------------ */

int vd_motion_decim_init(struct vd_motion_decim *d, int mode, int nch, double fs_hz, double rate_hz)
{
    memset(d, 0, sizeof(*d));
    if ((mode != VD_MDEC_AVERAGE && mode != VD_MDEC_LOWPASS) || nch < 1 || nch > VD_CUE_N ||
        !(fs_hz > 0) || !(rate_hz > 0) || rate_hz > fs_hz)
        return -EINVAL;
    d->mode = mode;
    d->nch = nch;
    {
        /* Butterworth 2nd order at fc = rate/4 by Tustin with prewarping:
         * K = tan(pi fc / fs), H(z) = K^2 (1 + z^-1)^2 / ((1 + sqrt2 K + K^2) + 2 (K^2 - 1)
         * z^-1 + (1 - sqrt2 K + K^2) z^-2) */
        const double K = tan(M_PI * 0.25 * rate_hz / fs_hz);
        const double n = 1.0 / (1.0 + M_SQRT2 * K + K * K);

        d->b[0] = K * K * n;
        d->b[1] = 2.0 * d->b[0];
        d->b[2] = d->b[0];
        d->a[0] = 1.0;
        d->a[1] = 2.0 * (K * K - 1.0) * n;
        d->a[2] = (1.0 - M_SQRT2 * K + K * K) * n;
    }
    return 0;
}

void vd_motion_decim_add(struct vd_motion_decim *d, const double *x)
{
    for (int i = 0; i < d->nch; i++) {
        double y = x[i];

        if (d->mode == VD_MDEC_LOWPASS) {
            double *z = d->z[i];

            if (!d->primed) { /* start in the steady state of the first sample */
                z[1] = (d->b[2] - d->a[2]) * x[i];
                z[0] = (d->b[1] - d->a[1]) * x[i] + z[1];
            }
            /* direct form II transposed */
            y = d->b[0] * x[i] + z[0];
            z[0] = d->b[1] * x[i] - d->a[1] * y + z[1];
            z[1] = d->b[2] * x[i] - d->a[2] * y;
        }
        d->acc[i] += y;
    }
    d->primed = true;
    d->n++;
}

bool vd_motion_decim_take(struct vd_motion_decim *d, double *out)
{
    if (!d->n)
        return false;
    for (int i = 0; i < d->nch; i++) {
        out[i] = d->acc[i] / d->n;
        d->acc[i] = 0.0;
    }
    d->n = 0;
    return true;
}

/* --- fades ------------------------------------------------------------------------------- */

void vd_motion_fader_set(struct vd_motion_fader *f, double s)
{
    memset(f, 0, sizeof(*f));
    f->s = f->target = s;
}

void vd_motion_fader_start(struct vd_motion_fader *f, double target, double T)
{
    const double h = target - f->s, v0 = f->v, a0 = f->a;

    f->target = target;
    f->t = 0.0;
    f->T = T;
    if (!(T > 0)) {
        vd_motion_fader_set(f, target);
        return;
    }
    /* quintic x(tau) with x(0) = s, x'(0) = v0, x''(0) = a0, x(T) = target, x'(T) = x''(T) = 0 */
    f->c[0] = f->s;
    f->c[1] = v0;
    f->c[2] = 0.5 * a0;
    f->c[3] = (20.0 * h - 12.0 * v0 * T - 3.0 * a0 * T * T) / (2.0 * T * T * T);
    f->c[4] = (-30.0 * h + 16.0 * v0 * T + 3.0 * a0 * T * T) / (2.0 * T * T * T * T);
    f->c[5] = (12.0 * h - 6.0 * v0 * T - a0 * T * T) / (2.0 * T * T * T * T * T);
    f->moving = true;
}

bool vd_motion_fader_step(struct vd_motion_fader *f, double dt)
{
    const double *c = f->c;
    double t;

    if (!f->moving)
        return false;
    f->t += dt;
    if (f->t >= f->T) {
        vd_motion_fader_set(f, f->target);
        return false;
    }
    t = f->t;
    f->s = c[0] + t * (c[1] + t * (c[2] + t * (c[3] + t * (c[4] + t * c[5]))));
    f->v = c[1] + t * (2 * c[2] + t * (3 * c[3] + t * (4 * c[4] + t * 5 * c[5])));
    f->a = 2 * c[2] + t * (6 * c[3] + t * (12 * c[4] + t * 20 * c[5]));
    return true;
}

/* --- the state machine ------------------------------------------------------------------- */

int vd_motion_check(const struct vd_motion_limits *lim, const double *cue, double g)
{
    for (int i = 0; i < VD_CUE_N; i++)
        if (!isfinite(cue[i]))
            return VD_MRS_NAN;
    if (fabs(cue[VD_CUE_FX]) > lim->f || fabs(cue[VD_CUE_FY]) > lim->f ||
        fabs(cue[VD_CUE_FZ] - g) > lim->f || fabs(cue[VD_CUE_ROLL]) > lim->angle ||
        fabs(cue[VD_CUE_PITCH]) > lim->angle)
        return VD_MRS_LIMIT;
    for (int i = 0; i < 3; i++)
        if (fabs(cue[VD_CUE_WX + i]) > lim->w || fabs(cue[VD_CUE_DWX + i]) > lim->dw)
            return VD_MRS_LIMIT;
    return VD_MRS_NONE;
}

void vd_motion_sm_init(struct vd_motion_sm *sm, const struct vd_motion_sm_cfg *cfg, double g)
{
    memset(sm, 0, sizeof(*sm));
    sm->cfg = *cfg;
    sm->neutral[VD_CUE_FZ] = g;
    memcpy(sm->src, sm->neutral, sizeof(sm->src));
    vd_motion_fader_set(&sm->fade, 0.0);
}

static void park(struct vd_motion_sm *sm, int reason)
{
    sm->state = VD_MST_PARKING;
    sm->reason = reason;
    sm->live = false; /* src holds the last good cues */
    sm->faults[reason]++;
    vd_motion_fader_start(&sm->fade, 0.0, sm->cfg.park_s);
}

uint32_t vd_motion_sm_step(struct vd_motion_sm *sm, const struct vd_motion_in *in, double dt,
                           double *out)
{
    const double g = sm->neutral[VD_CUE_FZ];
    int bad = VD_MRS_NONE, ev = VD_MRS_NONE;
    uint32_t flags = 0;

    sm->ticks++;
    if (in->cue) {
        bad = vd_motion_check(&sm->cfg.lim, in->cue, g);
        if (bad)
            sm->rejected++;
    }
    /* the event of this tick, most severe first */
    if (in->final)
        ev = in->stop_kind == VD_MRS_OVERRUN_STOP ? VD_MRS_OVERRUN_STOP : VD_MRS_STOP;
    else if (in->platform_fault)
        ev = VD_MRS_PLATFORM;
    else if (in->engage_timeout)
        ev = VD_MRS_ENGAGE_TIMEOUT;
    else if (in->frozen)
        ev = VD_MRS_FREEZE;
    else if (in->step_error)
        ev = VD_MRS_STEP_ERROR;
    else if (bad)
        ev = bad;
    else if (in->heartbeat_lost)
        ev = VD_MRS_HEARTBEAT;
    else if ((sm->any || in->stale_armed) && in->since_fresh_s > sm->cfg.stale_s)
        ev = VD_MRS_STALE;

    if (in->cue && !bad && !ev) {
        if (!sm->any && sm->state == VD_MST_OFF) {
            /* the first good cues: engage, fading in from neutral */
            sm->any = sm->live = true;
            sm->state = VD_MST_ENGAGING;
            sm->engages++;
            vd_motion_fader_start(&sm->fade, 1.0, sm->cfg.engage_s);
        }
        if (sm->live)
            memcpy(sm->src, in->cue, sizeof(sm->src));
    }
    if (ev) {
        if (sm->state == VD_MST_ENGAGING || sm->state == VD_MST_ENGAGED) {
            park(sm, ev);
        } else if (sm->state == VD_MST_OFF &&
                   (ev == VD_MRS_STOP || ev == VD_MRS_OVERRUN_STOP || ev == VD_MRS_FREEZE ||
                    ev == VD_MRS_STEP_ERROR || ev == VD_MRS_HEARTBEAT || ev == VD_MRS_PLATFORM ||
                    ev == VD_MRS_ENGAGE_TIMEOUT || ev == VD_MRS_STALE)) {
            /* never engaged: nothing to fade */
            sm->reason = ev;
            sm->faults[ev]++;
            sm->state = ev == VD_MRS_STOP ? VD_MST_PARKED : VD_MST_FAULT;
        } else if (sm->state == VD_MST_PARKED && sm->reason == VD_MRS_OPERATOR && !in->final &&
                   (ev == VD_MRS_PLATFORM || ev == VD_MRS_HEARTBEAT ||
                    ev == VD_MRS_ENGAGE_TIMEOUT)) {
            /* parked by the operator, the run going on: a platform fault, a lost heartbeat
             * latches as a fault (nothing to fade) */
            vd_motion_sm_fault(sm, ev);
        }
    }
    if (vd_motion_fader_step(&sm->fade, dt))
        flags |= VD_MFL_FADING;
    if (sm->state == VD_MST_ENGAGING && !sm->fade.moving)
        sm->state = VD_MST_ENGAGED;
    if (sm->state == VD_MST_PARKING && !sm->fade.moving)
        sm->state = sm->reason == VD_MRS_STOP || sm->reason == VD_MRS_OPERATOR ? VD_MST_PARKED
                                                                               : VD_MST_FAULT;
    /* yaw and position are not faded: neutral follows them */
    sm->neutral[VD_CUE_YAW] = sm->src[VD_CUE_YAW];
    for (int i = 0; i < 3; i++)
        sm->neutral[VD_CUE_PX + i] = sm->src[VD_CUE_PX + i];
    for (int i = 0; i < VD_CUE_N; i++)
        out[i] = sm->neutral[i] + sm->fade.s * (sm->src[i] - sm->neutral[i]);

    if (sm->live && (sm->state == VD_MST_ENGAGING || sm->state == VD_MST_ENGAGED))
        flags |= VD_MFL_LIVE;
    if (sm->reason != VD_MRS_NONE && sm->reason != VD_MRS_STOP && sm->reason != VD_MRS_OPERATOR)
        flags |= VD_MFL_FAULT;
    if (in->frozen)
        flags |= VD_MFL_FROZEN;
    if (in->overrun_latched)
        flags |= VD_MFL_OVERRUN;
    if (in->final)
        flags |= VD_MFL_FINAL;
    else if (!in->frozen && sm->any)
        flags |= VD_MFL_RUNNING;
    return flags;
}

bool vd_motion_sm_done(const struct vd_motion_sm *sm)
{
    return (sm->state == VD_MST_PARKED || sm->state == VD_MST_FAULT) && !sm->fade.moving;
}

bool vd_motion_sm_park(struct vd_motion_sm *sm)
{
    if (sm->state == VD_MST_ENGAGING || sm->state == VD_MST_ENGAGED) {
        park(sm, VD_MRS_OPERATOR);
        return true;
    }
    if (sm->state == VD_MST_OFF) {
        sm->state = VD_MST_PARKED;
        sm->reason = VD_MRS_OPERATOR;
        sm->faults[VD_MRS_OPERATOR]++;
        return true;
    }
    return false;
}

bool vd_motion_sm_engage(struct vd_motion_sm *sm)
{
    if ((sm->state != VD_MST_PARKED && sm->state != VD_MST_FAULT) || sm->fade.moving)
        return false;
    /* from neutral (fade 0, at rest: the park's fade ended with s' = s'' = 0), so the fade-in
     * is the same quintic as the first engagement's */
    sm->state = VD_MST_ENGAGING;
    sm->reason = VD_MRS_NONE;
    /* engaged from here on, the loop-silent watch applies (an operator's PARK from off never
     * saw a good cue: without this a silent loop would hold the last cue at full strength) */
    sm->any = sm->live = true;
    sm->engages++;
    vd_motion_fader_start(&sm->fade, 1.0, sm->cfg.engage_s);
    return true;
}

bool vd_motion_sm_fault(struct vd_motion_sm *sm, int reason)
{
    if ((sm->state != VD_MST_PARKED && sm->state != VD_MST_FAULT) || sm->fade.moving ||
        reason <= VD_MRS_NONE || reason >= VD_MRS_COUNT)
        return false;
    sm->state = VD_MST_FAULT;
    sm->reason = reason;
    sm->faults[reason]++;
    return true;
}
