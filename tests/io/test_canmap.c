/* tests/io/test_canmap.c - the CAN signal mapping on the shipped bench DBC and mapping
 * (config/can/): every referenced signal exists in the sedan; ECU-role encode -> target-role
 * decode round trips of every rx and tx signal with unit conversion; send counts, phases,
 * multiplex rotation and E2E counters over 1000 slots; E2E faults, length, unknown ids,
 * range and NaN rejections counted exactly; timeouts with safe values and recovery; TX
 * clamping; resolution errors located at file:line:col; no allocation after init. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "app/canglue.h"
#include "check.h"
#include "config/can_map.h"
#include "config/model_yaml.h"
#include "core/model.h"
#include "core/signal.h"
#include "io/canmap.h"
#include "io/dbc.h"

/* --- malloc interposition (not under ASan/TSan, which replace malloc themselves) --------- */

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define VT_INTERPOSE 0
#else
#define VT_INTERPOSE 1
#endif

#if VT_INTERPOSE
#include "noalloc.h"
#else
static atomic_int armed;
static atomic_long calls;
#endif

/* --- set-up ---------------------------------------------------------------------------- */

#define MAP_FILE "config/can/sedan.yaml"
#define MS       1000000LL

struct side {
    struct vd_candesc *cfg;
    struct vd_dbc *dbc[8];
    struct vd_canmap *map;
};

static int load_side(struct side *s, const char *path, int role, FILE *errf)
{
    s->cfg = vd_cfg_load_canmap(path, role, errf);
    if (!s->cfg)
        return -EINVAL;
    s->map = app_canmap_build(s->cfg, s->dbc, errf);
    return s->map ? 0 : -EINVAL;
}

static int load_text(struct side *s, const char *text, int role, FILE *errf)
{
    s->cfg = vd_cfg_load_canmap_mem("mem.yaml", text, strlen(text), "config/can", role, errf);
    if (!s->cfg)
        return -EINVAL;
    s->map = app_canmap_build(s->cfg, s->dbc, errf);
    return s->map ? 0 : -EINVAL;
}

static void free_side(struct side *s)
{
    vd_canmap_free(s->map);
    for (int i = 0; s->cfg && i < s->cfg->nbus; i++)
        vd_dbc_free(s->dbc[i]);
    vd_cfg_canmap_free(s->cfg);
    memset(s, 0, sizeof(*s));
}

static int name_index(const struct vd_canmap *map, int side, const char *name)
{
    for (int i = 0; i < vd_canmap_nnames(map, side); i++)
        if (!strcmp(vd_canmap_name(map, side, i), name))
            return i;
    return -1;
}

/* the mapped model signals, their test ranges [model unit] and the round-trip tolerance:
 * half a DBC step in model units (plus rounding slack), float32: relative 1e-6 */
static const struct expect {
    const char *name;
    double lo, hi, tol;
} rx_expect[] =
    {
        {"front_l.drive", -3900, 3900, 0.5 + 1e-9},
        {"front_r.drive", -3900, 3900, 0.5 + 1e-9},
        {"rear_l.drive", -3900, 3900, 0.5 + 1e-9},
        {"rear_r.drive", -3900, 3900, 0.5 + 1e-9},
        {"front_l.brake", 0, 4990, 2.5 + 1e-9},
        {"front_r.brake", 0, 4990, 2.5 + 1e-9},
        {"rear_l.brake", 0, 4990, 2.5 + 1e-9},
        {"rear_r.brake", 0, 4990, 2.5 + 1e-9},
        {"steering.angle", -15.0, 15.0, 0.05 * M_PI / 180 + 1e-12},
        {"steering.eps_torque", -99, 99, 1e-4},
},
  tx_expect[] = {
      {"front_l.tire.omega", -200, 200, 0.25 * 2 * M_PI / 60 + 1e-12},
      {"front_r.tire.omega", -200, 200, 0.25 * 2 * M_PI / 60 + 1e-12},
      {"rear_l.tire.omega", -200, 200, 0.25 * 2 * M_PI / 60 + 1e-12},
      {"rear_r.tire.omega", -200, 200, 0.25 * 2 * M_PI / 60 + 1e-12},
      {"imu.wz", -2.8, 2.8, 0.01 * M_PI / 180 + 1e-12},
      {"imu.lvx", -110, 110, 0.025 / 3.6 + 1e-12},
      {"imu.fx", -20, 20, 0.005 + 1e-12},
      {"imu.fy", -20, 20, 0.005 + 1e-12},
      {"steering.wheel_bearing.rx", -15, 15, 0.05 * M_PI / 180 + 1e-12},
      {"steering.torsion_bar.mx", -99, 99, 0.005 + 1e-12},
      {"front_l.strut.length", 0.01, 0.99, 0.000125 + 1e-12},
      {"front_r.strut.length", 0.01, 0.99, 0.000125 + 1e-12},
      {"rear_l.strut.length", 0.01, 0.99, 0.000125 + 1e-12},
      {"rear_r.strut.length", 0.01, 0.99, 0.000125 + 1e-12},
      {"front_l.tire.fz", 0, 19990, 2.5 + 1e-9},
      {"front_r.tire.fz", 0, 19990, 2.5 + 1e-9},
      {"rear_l.tire.fz", 0, 19990, 2.5 + 1e-9},
      {"rear_r.tire.fz", 0, 19990, 2.5 + 1e-9},
};
#define NRX ((int)(sizeof(rx_expect) / sizeof(rx_expect[0])))
#define NTX ((int)(sizeof(tx_expect) / sizeof(tx_expect[0])))

static int msg_of(const struct vd_canmap *map, const char *name)
{
    int i = vd_canmap_find_msg(map, name);

    CHECK(i >= 0, "message %s", name);
    return i < 0 ? 0 : i;
}

/* ECU frames of slot into the target; then the target's timeout check at that slot */
static void pump(struct side *ecu, struct side *tgt, uint64_t from, uint64_t to,
                 const double *ecu_in)
{
    struct vd_can_frame f[16];

    for (uint64_t s = from; s < to; s++) {
        const int64_t t = (int64_t)s * MS;
        const int n = vd_canmap_tx_due(ecu->map, 0, s, ecu_in, f, 16);

        for (int i = 0; i < n; i++)
            vd_canmap_rx(tgt->map, 0, &f[i], t);
        vd_canmap_rx_check_timeouts(tgt->map, t);
    }
}

/* the one frame of message msg that the ECU sends in slot s (caller picks a slot where it
 * is due); fills *f, returns 0 or -1 */
static int ecu_frame(struct side *ecu, int msg, uint64_t s, const double *in,
                     struct vd_can_frame *f)
{
    struct vd_can_frame fr[16];
    struct vd_canmap_msg_info mi;
    const int n = vd_canmap_tx_due(ecu->map, 0, s, in, fr, 16);

    vd_canmap_msg_info(ecu->map, msg, &mi);
    for (int i = 0; i < n; i++)
        if (fr[i].id == mi.id) {
            *f = fr[i];
            return 0;
        }
    return -1;
}

/* first slot >= s where msg is due */
static uint64_t due_from(const struct vd_canmap *map, int msg, uint64_t s)
{
    struct vd_canmap_msg_info mi;

    vd_canmap_msg_info(map, msg, &mi);
    while (s % (uint64_t)mi.cycle_ms != (uint64_t)mi.phase_ms)
        s++;
    return s;
}

/* --- tests ----------------------------------------------------------------------------- */

static struct vd_model *sedan;
static const char **input_names;

/* the shipped mapping loads for both roles and names only signals of the sedan */
static void test_shipped(struct side *tgt, struct side *ecu)
{
    struct vd_signal sig;
    int nin = sedan->ninput;

    CHECK(!load_side(tgt, MAP_FILE, VD_CANMAP_TARGET, stderr), "target map loads");
    CHECK(!load_side(ecu, MAP_FILE, VD_CANMAP_ECU, stderr), "ecu map loads");
    if (!tgt->map || !ecu->map)
        return;
    CHECK(vd_canmap_nmsg(tgt->map) == 7, "7 messages: %d", vd_canmap_nmsg(tgt->map));
    /* every mapped input is a sedan input (binding to the model's input order fails otherwise),
     * every mapped output resolves in the sedan */
    CHECK(!vd_canmap_bind(tgt->map, VD_CANMAP_INPUTS, input_names, nin, stderr),
          "target binds the sedan's %d inputs", nin);
    CHECK(!vd_canmap_bind(ecu->map, VD_CANMAP_INPUTS, input_names, nin, stderr),
          "ecu binds the sedan's %d inputs", nin);
    CHECK(vd_canmap_rx_count(tgt->map) == nin, "received table = model inputs");
    CHECK(vd_canmap_nnames(tgt->map, VD_CANMAP_OUTPUTS) == NTX, "%d outputs mapped",
          vd_canmap_nnames(tgt->map, VD_CANMAP_OUTPUTS));
    for (int i = 0; i < vd_canmap_nnames(tgt->map, VD_CANMAP_OUTPUTS); i++) {
        const char *n = vd_canmap_name(tgt->map, VD_CANMAP_OUTPUTS, i);

        CHECK(vd_signal_resolve(sedan, n, &sig) == 0, "output %s is a sedan signal", n);
        CHECK(!strcmp(n, vd_canmap_name(ecu->map, VD_CANMAP_OUTPUTS, i)),
              "both roles list output %d alike", i);
        CHECK(!strcmp(n, tx_expect[i].name), "output %d is %s", i, tx_expect[i].name);
    }
    for (int i = 0; i < NRX; i++)
        CHECK(name_index(tgt->map, VD_CANMAP_INPUTS, rx_expect[i].name) >= 0, "input %s exists",
              rx_expect[i].name);
    /* udp ports swapped for the ECU */
    CHECK(tgt->cfg->bus[0].local_port == 20000 && tgt->cfg->bus[0].remote_port == 20001,
          "target udp ports");
    CHECK(ecu->cfg->bus[0].local_port == 20001 && ecu->cfg->bus[0].remote_port == 20000,
          "ecu udp ports swapped");
}

/* every rx signal: ECU encode -> target decode; every tx signal: target -> ECU */
static void test_roundtrip(struct side *tgt, struct side *ecu)
{
    const int nin = sedan->ninput;
    double *in = calloc((size_t)nin, sizeof(*in)), out[NTX];
    struct vd_can_frame f[16];
    int worst_rx = 0, worst_tx = 0;

    vd_canmap_start(tgt->map, 0);
    vd_canmap_start(ecu->map, 0);
    for (int round = 0; round < 50; round++) {
        const uint64_t s0 = (uint64_t)round * 40;
        const int64_t t = (int64_t)(s0 + 39) * MS;
        const double *v = vd_canmap_rx_values(tgt->map);
        const uint8_t *valid = vd_canmap_rx_valid(tgt->map), *st = vd_canmap_rx_status(tgt->map);

        for (int i = 0; i < NRX; i++)
            in[name_index(ecu->map, VD_CANMAP_INPUTS, rx_expect[i].name)] =
                vt_uniform(rx_expect[i].lo, rx_expect[i].hi);
        for (int i = 0; i < NTX; i++)
            out[i] = vt_uniform(tx_expect[i].lo, tx_expect[i].hi);
        /* 40 slots: every message at least twice, so the multiplexed one (20 ms) sends both
         * pages */
        for (uint64_t s = s0; s < s0 + 40; s++) {
            int n = vd_canmap_tx_due(ecu->map, 0, s, in, f, 16);

            for (int i = 0; i < n; i++)
                CHECK(vd_canmap_rx(tgt->map, 0, &f[i], (int64_t)s * MS) == VD_CANMAP_RX_USED,
                      "rx frame 0x%X used", f[i].id);
            n = vd_canmap_tx_due(tgt->map, 0, s, out, f, 16);
            for (int i = 0; i < n; i++)
                CHECK(vd_canmap_rx(ecu->map, 0, &f[i], (int64_t)s * MS) == VD_CANMAP_RX_USED,
                      "tx frame 0x%X used", f[i].id);
        }
        CHECK(vd_canmap_rx_check_timeouts(tgt->map, t) == 0, "no timeout");
        CHECK(vd_canmap_rx_check_timeouts(ecu->map, t) == 0, "no timeout");
        for (int i = 0; i < NRX; i++) {
            const int j = name_index(tgt->map, VD_CANMAP_INPUTS, rx_expect[i].name);
            const double want = in[name_index(ecu->map, VD_CANMAP_INPUTS, rx_expect[i].name)];
            const double err = fabs(v[j] - want);
            const double tol =
                rx_expect[i].tol * (strstr(rx_expect[i].name, "eps") ? fabs(want) : 1.0);

            worst_rx += !(err <= tol + 1e-12);
            CHECK_NEAR(v[j], want, tol + 1e-12, rx_expect[i].name);
            CHECK(valid[j] == 1 && st[j] == 0, "%s valid, status %d", rx_expect[i].name, st[j]);
        }
        for (int i = 0; i < NTX; i++) {
            const double *e = vd_canmap_rx_values(ecu->map);

            worst_tx += !(fabs(e[i] - out[i]) <= tx_expect[i].tol);
            CHECK_NEAR(e[i], out[i], tx_expect[i].tol, tx_expect[i].name);
        }
    }
    CHECK(worst_rx == 0 && worst_tx == 0, "round trips within half a step: %d rx, %d tx off",
          worst_rx, worst_tx);
    /* unmapped model inputs stay invalid: the scenario drives them */
    {
        const int j = name_index(tgt->map, VD_CANMAP_INPUTS, "steering.driver_torque");

        CHECK(j >= 0 && vd_canmap_rx_valid(tgt->map)[j] == 0, "steering.driver_torque not mapped");
    }
    free(in);
}

/* sends over 1000 slots: counts = 1000 / cycle, every frame at its phase, at most one frame
 * per slot and direction (phases spread), E2E counters +1 per frame, pages in turn */
static void test_schedule(struct side *tgt, struct side *ecu)
{
    double out[NTX] = {0};
    double *in = calloc((size_t)sedan->ninput, sizeof(*in));
    struct side *sd[2] = {tgt, ecu};

    for (int r = 0; r < 2; r++) {
        struct vd_canmap *map = sd[r]->map;
        const struct vd_dbc *db = sd[r]->dbc[0];
        int count[16] = {0}, last_ctr[16], last_page = -1, maxper = 0;

        vd_canmap_start(map, 0);
        for (int i = 0; i < 16; i++)
            last_ctr[i] = -1;
        for (uint64_t s = 0; s < 1000; s++) {
            struct vd_can_frame f[16];
            const int n = vd_canmap_tx_due(map, 0, s, r ? in : out, f, 16);

            maxper = n > maxper ? n : maxper;
            for (int k = 0; k < n; k++) {
                const struct vd_dbc_msg *m = vd_dbc_find_id(db, f[k].id, f[k].flags & VD_CANF_EFF);
                const int i = m ? vd_canmap_find_msg(map, m->name) : -1;
                struct vd_canmap_msg_info mi;
                char cname[64];
                const struct vd_dbc_sig *cs;
                int c, mod;

                CHECK(i >= 0, "frame 0x%X is a mapped message", f[k].id);
                if (i < 0)
                    continue;
                vd_canmap_msg_info(map, i, &mi);
                CHECK(mi.sent, "%s sent by this role", mi.name);
                CHECK(s % (uint64_t)mi.cycle_ms == (uint64_t)mi.phase_ms, "%s at its phase",
                      mi.name);
                CHECK(f[k].len == mi.len, "%s length", mi.name);
                count[i]++;
                /* the E2E counter signal of each message */
                if (!strncmp(mi.name, "ECU_WheelTorques", 16))
                    snprintf(cname, sizeof(cname), "WT_Counter");
                else if (!strncmp(mi.name, "ECU_BrakeTorques", 16))
                    snprintf(cname, sizeof(cname), "BT_Counter");
                else if (!strcmp(mi.name, "ECU_Steering"))
                    snprintf(cname, sizeof(cname), "ST_Counter");
                else if (!strcmp(mi.name, "VDM_WheelSpeeds"))
                    snprintf(cname, sizeof(cname), "WS_Counter");
                else if (!strcmp(mi.name, "VDM_Dynamics"))
                    snprintf(cname, sizeof(cname), "DY_Counter");
                else if (!strcmp(mi.name, "VDM_Steering"))
                    snprintf(cname, sizeof(cname), "SS_Counter");
                else
                    snprintf(cname, sizeof(cname), "SU_Counter");
                cs = vd_dbc_find_sig(m, cname);
                CHECK(cs != NULL, "%s has %s", mi.name, cname);
                if (!cs)
                    continue;
                c = (int)vd_dbc_get_raw(f[k].data, cs);
                mod = mi.e2e == VD_CANMAP_E2E_P01 ? 15 : mi.e2e == VD_CANMAP_E2E_P02 ? 16 : 256;
                if (last_ctr[i] < 0)
                    CHECK(c == (mi.e2e == VD_CANMAP_E2E_P02 ? 1 : 0), "%s first counter %d",
                          mi.name, c);
                else
                    CHECK(c == (last_ctr[i] + 1) % mod, "%s counter %d after %d", mi.name, c,
                          last_ctr[i]);
                last_ctr[i] = c;
                if (!strcmp(mi.name, "VDM_Suspension")) {
                    const int page = (int)vd_dbc_get_raw(f[k].data, m->mux);

                    CHECK(page == (last_page < 0 ? 0 : 1 - last_page), "pages in turn: %d", page);
                    last_page = page;
                }
            }
        }
        CHECK(maxper == 1, "%s: at most one frame per slot (got %d)", r ? "ecu" : "target", maxper);
        for (int i = 0; i < vd_canmap_nmsg(map); i++) {
            struct vd_canmap_msg_info mi;

            vd_canmap_msg_info(map, i, &mi);
            if (mi.sent)
                CHECK(count[i] == 1000 / mi.cycle_ms, "%s: %d frames in 1000 ms (cycle %d)",
                      mi.name, count[i], mi.cycle_ms);
            else
                CHECK(count[i] == 0, "%s not sent", mi.name);
        }
    }
    /* the phases themselves: cycles 10, 10, 20, 20 (target) and 10, 10, 5 (ECU) */
    {
        struct vd_canmap_msg_info a, b, c, d;

        vd_canmap_msg_info(tgt->map, msg_of(tgt->map, "VDM_WheelSpeeds"), &a);
        vd_canmap_msg_info(tgt->map, msg_of(tgt->map, "VDM_Steering"), &b);
        vd_canmap_msg_info(tgt->map, msg_of(tgt->map, "VDM_Dynamics"), &c);
        vd_canmap_msg_info(tgt->map, msg_of(tgt->map, "VDM_Suspension"), &d);
        CHECK(a.phase_ms == 0 && b.phase_ms == 1 && c.phase_ms == 2 && d.phase_ms == 3,
              "target phases %d %d %d %d", a.phase_ms, b.phase_ms, c.phase_ms, d.phase_ms);
        vd_canmap_msg_info(ecu->map, msg_of(ecu->map, "ECU_Steering"), &a);
        vd_canmap_msg_info(ecu->map, msg_of(ecu->map, "ECU_WheelTorques"), &b);
        vd_canmap_msg_info(ecu->map, msg_of(ecu->map, "ECU_BrakeTorques"), &c);
        CHECK(a.phase_ms == 0 && b.phase_ms == 1 && c.phase_ms == 2, "ecu phases %d %d %d",
              a.phase_ms, b.phase_ms, c.phase_ms);
        CHECK(b.timeout_ns == 30 * MS && a.timeout_ns == 15 * MS, "timeouts 3 x cycle");
    }
    free(in);
}

static uint64_t e2e_of(const struct vd_canmap *map, int msg, int st)
{
    return vd_canmap_msg_stats(map, msg)->e2e[st];
}

/* frame-level rejections and signal-level ones, counted exactly */
static void test_faults(struct side *tgt, struct side *ecu)
{
    double *in = calloc((size_t)sedan->ninput, sizeof(*in));
    const int wt = msg_of(tgt->map, "ECU_WheelTorques"), bt = msg_of(tgt->map, "ECU_BrakeTorques");
    const int st = msg_of(tgt->map, "ECU_Steering");
    const int ewt = msg_of(ecu->map, "ECU_WheelTorques"),
              ebt = msg_of(ecu->map, "ECU_BrakeTorques");
    const int est = msg_of(ecu->map, "ECU_Steering");
    const int fl = name_index(tgt->map, VD_CANMAP_INPUTS, "front_l.drive");
    const int eps = name_index(tgt->map, VD_CANMAP_INPUTS, "steering.eps_torque");
    const int ang = name_index(tgt->map, VD_CANMAP_INPUTS, "steering.angle");
    const double *v = vd_canmap_rx_values(tgt->map);
    const uint8_t *sts = vd_canmap_rx_status(tgt->map);
    struct vd_canmap_rx_stats r0, r1;
    struct vd_can_frame f;
    uint64_t s;

    /* fresh state, counters from here on as differences */
    vd_canmap_start(tgt->map, 0);
    vd_canmap_start(ecu->map, 0);
    vd_canmap_rx_stats(tgt->map, &r0);
    const uint64_t ok0 = e2e_of(tgt->map, wt, VD_E2E_OK), okb0 = e2e_of(tgt->map, bt, VD_E2E_OK),
                   oks0 = e2e_of(tgt->map, st, VD_E2E_OK);
    for (int i = 0; i < sedan->ninput; i++)
        in[i] = 100.0;
    in[name_index(ecu->map, VD_CANMAP_INPUTS, "steering.angle")] = 0.5;
    pump(ecu, tgt, 0, 100, in);
    CHECK(e2e_of(tgt->map, wt, VD_E2E_OK) - ok0 == 10 &&
              e2e_of(tgt->map, bt, VD_E2E_OK) - okb0 == 10 &&
              e2e_of(tgt->map, st, VD_E2E_OK) - oks0 == 20,
          "100 ms: 10 + 10 + 20 frames OK");
    CHECK(v[fl] == 100.0 && sts[fl] == 0, "drive 100");

    /* bad CRC (P01): one frame rejected as ERROR, entries untouched; the next is OK-SOME-LOST */
    in[name_index(ecu->map, VD_CANMAP_INPUTS, "front_l.drive")] = 200.0;
    s = due_from(ecu->map, ewt, 100);
    vd_canmap_set_fault(ecu->map, ewt, VD_CANMAP_FAULT_BAD_CRC);
    CHECK(!ecu_frame(ecu, ewt, s, in, &f), "frame");
    CHECK(vd_canmap_rx(tgt->map, 0, &f, (int64_t)s * MS) == VD_CANMAP_RX_E2E, "bad CRC rejected");
    CHECK(e2e_of(tgt->map, wt, VD_E2E_ERROR) == 1, "ERROR counted");
    CHECK(v[fl] == 100.0, "value of a rejected frame not used");
    vd_canmap_set_fault(ecu->map, ewt, 0);
    s = due_from(ecu->map, ewt, s + 1);
    CHECK(!ecu_frame(ecu, ewt, s, in, &f), "frame");
    CHECK(vd_canmap_rx(tgt->map, 0, &f, (int64_t)s * MS) == VD_CANMAP_RX_USED, "next used");
    CHECK(e2e_of(tgt->map, wt, VD_E2E_OK_SOME_LOST) == 1, "OK-SOME-LOST after the bad frame");
    CHECK(v[fl] == 200.0, "new value used");

    /* repeated counter (P05): REPEATED, rejected; then OK */
    s = due_from(ecu->map, ebt, s + 1);
    vd_canmap_set_fault(ecu->map, ebt, VD_CANMAP_FAULT_REPEAT_COUNTER);
    CHECK(!ecu_frame(ecu, ebt, s, in, &f), "frame");
    CHECK(vd_canmap_rx(tgt->map, 0, &f, (int64_t)s * MS) == VD_CANMAP_RX_E2E, "repeat rejected");
    CHECK(e2e_of(tgt->map, bt, VD_E2E_REPEATED) == 1, "REPEATED counted");
    vd_canmap_set_fault(ecu->map, ebt, 0);
    s = due_from(ecu->map, ebt, s + 1);
    CHECK(!ecu_frame(ecu, ebt, s, in, &f), "frame");
    CHECK(vd_canmap_rx(tgt->map, 0, &f, (int64_t)s * MS) == VD_CANMAP_RX_USED, "then used");

    /* jumping counter (P02): WRONG_SEQUENCE, rejected; the receiver follows: then OK */
    s = due_from(ecu->map, est, s + 1);
    vd_canmap_set_fault(ecu->map, est, VD_CANMAP_FAULT_JUMP_COUNTER);
    CHECK(!ecu_frame(ecu, est, s, in, &f), "frame");
    CHECK(vd_canmap_rx(tgt->map, 0, &f, (int64_t)s * MS) == VD_CANMAP_RX_E2E, "jump rejected");
    CHECK(e2e_of(tgt->map, st, VD_E2E_WRONG_SEQUENCE) == 1, "WRONG_SEQUENCE counted");
    vd_canmap_set_fault(ecu->map, est, 0);
    s = due_from(ecu->map, est, s + 1);
    CHECK(!ecu_frame(ecu, est, s, in, &f), "frame");
    CHECK(vd_canmap_rx(tgt->map, 0, &f, (int64_t)s * MS) == VD_CANMAP_RX_USED, "then used");

    /* lost frames: 1 lost -> OK-SOME-LOST (used); 3 lost (> max_delta_counter 2) ->
     * WRONG_SEQUENCE (rejected), then OK */
    s = due_from(ecu->map, ewt, s + 1);
    CHECK(!ecu_frame(ecu, ewt, s, in, &f), "lost frame");
    s = due_from(ecu->map, ewt, s + 1);
    CHECK(!ecu_frame(ecu, ewt, s, in, &f), "frame");
    CHECK(vd_canmap_rx(tgt->map, 0, &f, (int64_t)s * MS) == VD_CANMAP_RX_USED, "1 lost: used");
    CHECK(e2e_of(tgt->map, wt, VD_E2E_OK_SOME_LOST) == 2, "OK-SOME-LOST counted");
    for (int k = 0; k < 3; k++) {
        s = due_from(ecu->map, ewt, s + 1);
        CHECK(!ecu_frame(ecu, ewt, s, in, &f), "lost frame");
    }
    s = due_from(ecu->map, ewt, s + 1);
    CHECK(!ecu_frame(ecu, ewt, s, in, &f), "frame");
    CHECK(vd_canmap_rx(tgt->map, 0, &f, (int64_t)s * MS) == VD_CANMAP_RX_E2E, "3 lost: rejected");
    CHECK(e2e_of(tgt->map, wt, VD_E2E_WRONG_SEQUENCE) == 1, "WRONG_SEQUENCE counted");
    s = due_from(ecu->map, ewt, s + 1);
    CHECK(!ecu_frame(ecu, ewt, s, in, &f), "frame");
    CHECK(vd_canmap_rx(tgt->map, 0, &f, (int64_t)s * MS) == VD_CANMAP_RX_USED, "then used");

    /* wrong length: rejected before the E2E check */
    s = due_from(ecu->map, ebt, s + 1);
    vd_canmap_set_fault(ecu->map, ebt, VD_CANMAP_FAULT_SHORT);
    CHECK(!ecu_frame(ecu, ebt, s, in, &f), "frame");
    CHECK(f.len == 7, "short frame");
    CHECK(vd_canmap_rx(tgt->map, 0, &f, (int64_t)s * MS) == VD_CANMAP_RX_BAD_LEN, "bad length");
    vd_canmap_set_fault(ecu->map, ebt, 0);
    s = due_from(ecu->map, ebt, s + 1);
    CHECK(!ecu_frame(ecu, ebt, s, in, &f), "frame");
    CHECK(vd_canmap_rx(tgt->map, 0, &f, (int64_t)s * MS) == VD_CANMAP_RX_USED, "then used");
    CHECK(e2e_of(tgt->map, bt, VD_E2E_OK_SOME_LOST) == 1, "the short frame's counter is lost");

    /* unknown ids (standard, extended, a message the target sends) and error/RTR frames */
    {
        struct vd_can_frame u = {.id = 0x7FF, .len = 8};
        struct vd_canmap_msg_info mi;

        CHECK(vd_canmap_rx(tgt->map, 0, &u, 0) == VD_CANMAP_RX_UNKNOWN, "0x7FF unknown");
        u.id = 0x110;
        u.flags = VD_CANF_EFF;
        CHECK(vd_canmap_rx(tgt->map, 0, &u, 0) == VD_CANMAP_RX_UNKNOWN, "extended 0x110 unknown");
        vd_canmap_msg_info(tgt->map, msg_of(tgt->map, "VDM_WheelSpeeds"), &mi);
        u.id = mi.id;
        u.flags = 0;
        CHECK(vd_canmap_rx(tgt->map, 0, &u, 0) == VD_CANMAP_RX_UNKNOWN, "own tx id unknown");
        u.id = 0x110;
        CHECK(vd_canmap_rx(tgt->map, 1, &u, 0) == VD_CANMAP_RX_UNKNOWN, "other bus unknown");
        u.flags = VD_CANF_RTR;
        CHECK(vd_canmap_rx(tgt->map, 0, &u, 0) == VD_CANMAP_RX_OTHER, "RTR other");
        u.flags = VD_CANF_ERR;
        CHECK(vd_canmap_rx(tgt->map, 0, &u, 0) == VD_CANMAP_RX_OTHER, "error frame other");
    }

    /* out of range: the largest raw drive torque (4095 Nm > 4000): 4 values rejected, safe 0,
     * INVALID; the next good frame restores them */
    s = due_from(ecu->map, ewt, s + 1);
    vd_canmap_set_fault(ecu->map, ewt, VD_CANMAP_FAULT_OUT_OF_RANGE);
    CHECK(!ecu_frame(ecu, ewt, s, in, &f), "frame");
    CHECK(vd_canmap_rx(tgt->map, 0, &f, (int64_t)s * MS) == VD_CANMAP_RX_USED, "frame used");
    CHECK(v[fl] == 0.0 && (sts[fl] & VD_CANMAP_ST_INVALID), "safe value 0, invalid");
    vd_canmap_set_fault(ecu->map, ewt, 0);
    s = due_from(ecu->map, ewt, s + 1);
    CHECK(!ecu_frame(ecu, ewt, s, in, &f), "frame");
    vd_canmap_rx(tgt->map, 0, &f, (int64_t)s * MS);
    CHECK(v[fl] == 200.0 && sts[fl] == 0, "restored");

    /* NaN: the float32 EPS torque: rejected, safe 0; the angle in the same frame is used */
    in[name_index(ecu->map, VD_CANMAP_INPUTS, "steering.angle")] = 0.25;
    s = due_from(ecu->map, est, s + 1);
    vd_canmap_set_fault(ecu->map, est, VD_CANMAP_FAULT_NAN);
    CHECK(!ecu_frame(ecu, est, s, in, &f), "frame");
    CHECK(vd_canmap_rx(tgt->map, 0, &f, (int64_t)s * MS) == VD_CANMAP_RX_USED, "frame used");
    CHECK(v[eps] == 0.0 && (sts[eps] & VD_CANMAP_ST_INVALID), "NaN: safe 0, invalid");
    /* the steering angle crosses the bus in 0.05 deg steps: within half a step, 4.4e-4 rad
     * (the same below) */
    CHECK(fabs(v[ang] - 0.25) < 1e-3 && sts[ang] == 0, "angle used: %g", v[ang]);
    vd_canmap_set_fault(ecu->map, est, 0);

    vd_canmap_rx_stats(tgt->map, &r1);
    CHECK(r1.unknown - r0.unknown == 4, "4 unknown");
    CHECK(r1.other - r0.other == 2, "2 other");
    CHECK(r1.bad_len - r0.bad_len == 1, "1 bad length");
    CHECK(r1.e2e_rejected - r0.e2e_rejected == 4, "4 E2E rejected: %llu",
          (unsigned long long)(r1.e2e_rejected - r0.e2e_rejected));
    CHECK(r1.e2e[VD_E2E_ERROR] - r0.e2e[VD_E2E_ERROR] == 1 &&
              r1.e2e[VD_E2E_REPEATED] - r0.e2e[VD_E2E_REPEATED] == 1 &&
              r1.e2e[VD_E2E_WRONG_SEQUENCE] - r0.e2e[VD_E2E_WRONG_SEQUENCE] == 2 &&
              r1.e2e[VD_E2E_OK_SOME_LOST] - r0.e2e[VD_E2E_OK_SOME_LOST] == 3,
          "E2E statuses");
    CHECK(r1.out_of_range - r0.out_of_range == 4, "4 out of range");
    CHECK(r1.nan - r0.nan == 1, "1 NaN");
    CHECK(r1.invalid == 1, "eps still invalid");
    CHECK(r1.frames == r1.unknown + r1.other + r1.bad_len + r1.e2e_rejected + r1.used,
          "every frame accounted for");
    free(in);
}

/* silence -> timeout at exactly timeout + 1 ms -> safe values (0, or hold) -> recovery */
static void test_timeouts(struct side *tgt, struct side *ecu)
{
    double *in = calloc((size_t)sedan->ninput, sizeof(*in));
    const int ewt = msg_of(ecu->map, "ECU_WheelTorques"), est = msg_of(ecu->map, "ECU_Steering");
    const int fl = name_index(tgt->map, VD_CANMAP_INPUTS, "front_l.drive");
    const int bfl = name_index(tgt->map, VD_CANMAP_INPUTS, "front_l.brake");
    const int ang = name_index(tgt->map, VD_CANMAP_INPUTS, "steering.angle");
    const int eps = name_index(tgt->map, VD_CANMAP_INPUTS, "steering.eps_torque");
    const double *v = vd_canmap_rx_values(tgt->map);
    const uint8_t *sts = vd_canmap_rx_status(tgt->map);
    struct vd_canmap_rx_stats r0, r1;
    struct vd_canmap_msg_info mi;
    uint64_t last;

    /* nothing received since the start: every mapped input times out (steering after 15 ms,
     * the others after 30 ms), at its safe value */
    vd_canmap_start(tgt->map, 0);
    vd_canmap_start(ecu->map, 0);
    vd_canmap_rx_stats(tgt->map, &r0);
    CHECK(sts[fl] == VD_CANMAP_ST_NODATA && v[fl] == 0.0 && vd_canmap_rx_valid(tgt->map)[fl],
          "no data: safe value, valid");
    CHECK(vd_canmap_rx_check_timeouts(tgt->map, 15 * MS) == 0, "15 ms: none");
    CHECK(vd_canmap_rx_check_timeouts(tgt->map, 16 * MS) == 2, "16 ms: the 2 steering inputs");
    CHECK(vd_canmap_rx_check_timeouts(tgt->map, 30 * MS) == 0, "30 ms: none");
    CHECK(vd_canmap_rx_check_timeouts(tgt->map, 31 * MS) == 8, "31 ms: the 8 torques");
    CHECK(vd_canmap_rx_check_timeouts(tgt->map, 100 * MS) == 0, "counted once");
    CHECK(sts[fl] == (VD_CANMAP_ST_NODATA | VD_CANMAP_ST_TIMEOUT), "no data + timeout");

    /* the ECU starts: recovery of all 10 */
    for (int i = 0; i < sedan->ninput; i++)
        in[i] = 300.0;
    in[name_index(ecu->map, VD_CANMAP_INPUTS, "steering.angle")] = 0.5;
    vd_canmap_start(ecu->map, 0);
    pump(ecu, tgt, 100, 200, in);
    vd_canmap_rx_stats(tgt->map, &r1);
    CHECK(r1.timeouts - r0.timeouts == 10 && r1.recoveries - r0.recoveries == 10,
          "10 timeouts, 10 recoveries");
    CHECK(v[fl] == 300.0 && sts[fl] == 0 && fabs(v[ang] - 0.5) < 1e-3, "values");

    /* wheel torques and steering fall silent after slot 200 */
    vd_canmap_set_fault(ecu->map, ewt, VD_CANMAP_FAULT_SILENT);
    vd_canmap_set_fault(ecu->map, est, VD_CANMAP_FAULT_SILENT);
    vd_canmap_msg_info(ecu->map, ewt, &mi);
    last = 199 - (199 + 10 - (uint64_t)mi.phase_ms) % 10; /* last wheel-torque slot < 200 */
    pump(ecu, tgt, 200, last + 31, in);
    CHECK(!(sts[fl] & VD_CANMAP_ST_TIMEOUT) && v[fl] == 300.0, "at last + 30 ms: not yet");
    pump(ecu, tgt, last + 31, last + 32, in);
    CHECK((sts[fl] & VD_CANMAP_ST_TIMEOUT) && v[fl] == 0.0, "at last + 31 ms: timeout, safe 0");
    CHECK(sts[bfl] == 0 && v[bfl] == 300.0, "brakes still fresh");
    CHECK((sts[ang] & VD_CANMAP_ST_TIMEOUT) && fabs(v[ang] - 0.5) < 1e-3,
          "steering angle: timeout, held");
    CHECK((sts[eps] & VD_CANMAP_ST_TIMEOUT) && v[eps] == 0.0, "eps torque: timeout, safe 0");
    CHECK(vd_canmap_msg_stats(ecu->map, ewt)->suppressed > 0, "silence counted by the sender");
    /* resume: the counter did not advance while silent, so the first frame is OK */
    vd_canmap_set_fault(ecu->map, ewt, 0);
    vd_canmap_set_fault(ecu->map, est, 0);
    in[name_index(ecu->map, VD_CANMAP_INPUTS, "front_l.drive")] = 400.0;
    pump(ecu, tgt, last + 32, last + 60, in);
    CHECK(sts[fl] == 0 && v[fl] == 400.0, "recovered: %g", v[fl]);
    vd_canmap_rx_stats(tgt->map, &r1);
    CHECK(r1.timeouts - r0.timeouts == 16 && r1.recoveries - r0.recoveries == 16,
          "6 more timeouts and recoveries: %llu %llu",
          (unsigned long long)(r1.timeouts - r0.timeouts),
          (unsigned long long)(r1.recoveries - r0.recoveries));
    CHECK(r1.timed_out == 0, "none timed out now");
    CHECK(r1.e2e_rejected == r0.e2e_rejected, "no E2E rejection on resume");
    free(in);
}

/* target TX: values beyond the DBC range are clamped, NaN replaced by the last value */
static void test_tx_clamp(struct side *tgt, struct side *ecu)
{
    double out[NTX];
    struct vd_can_frame f[16];
    struct vd_canmap_tx_stats t0, t1;
    const int ws = msg_of(tgt->map, "VDM_WheelSpeeds");
    const double *e = vd_canmap_rx_values(ecu->map);
    int n;

    vd_canmap_start(tgt->map, 0);
    vd_canmap_start(ecu->map, 0);
    for (int i = 0; i < NTX; i++)
        out[i] = 0.5 * (tx_expect[i].lo + tx_expect[i].hi);
    out[0] = 50.0;                                    /* front_l omega */
    out[2] = 123.0;                                   /* rear_l omega */
    n = vd_canmap_tx_due(tgt->map, 0, 0, out, f, 16); /* WheelSpeeds at phase 0 */
    CHECK(n == 1, "one frame");
    vd_canmap_rx(ecu->map, 0, &f[0], 0);
    vd_canmap_tx_stats(tgt->map, &t0);
    out[0] = 300.0; /* 2865 rpm > 2000 */
    out[1] = -300.0;
    out[2] = NAN;
    n = vd_canmap_tx_due(tgt->map, 0, 10, out, f, 16);
    CHECK(n == 1, "one frame");
    CHECK(vd_canmap_rx(ecu->map, 0, &f[0], 10 * MS) == VD_CANMAP_RX_USED, "ECU accepts");
    vd_canmap_tx_stats(tgt->map, &t1);
    CHECK(t1.clamped - t0.clamped == 2 && t1.nan - t0.nan == 1, "2 clamped, 1 NaN");
    /* the clamp values are exact in the DBC's raw units; rpm -> rad/s one product (a few ulp
     * of 209 rad/s, 1e-9 is ~1e5 ulp); the held NaN value: 123 within the signal's step */
    CHECK(fabs(e[0] - 2000 * 2 * M_PI / 60) < 1e-9 && fabs(e[1] + 2000 * 2 * M_PI / 60) < 1e-9,
          "clamped to +-2000 rpm: %g %g", e[0], e[1]);
    CHECK(fabs(e[2] - 123.0) < 0.03, "NaN: the last value sent (%g)", e[2]);
    CHECK(vd_canmap_sig_stats(tgt->map, ws, 0)->clamped == 1, "per-signal clamp counter");
    /* no room in the caller's array: dropped, counted */
    n = vd_canmap_tx_due(tgt->map, 0, 20, out, f, 0);
    vd_canmap_tx_stats(tgt->map, &t1);
    CHECK(n == 0 && t1.dropped - t0.dropped == 1, "dropped when out is full");
    vd_canmap_start(tgt->map, 0);
}

/* raw frames on a mapping without E2E: float +Inf, a mapping range, unit conversion */
static void test_raw(void)
{
    static const char text[] =
        "buses: [{name: b, dbc: sedan_bench.dbc, udp: {local: '127.0.0.1:1', remote: "
        "'127.0.0.1:2'}}]\n"
        "rx:\n"
        "  - message: ECU_Steering\n"
        "    signals:\n"
        "      - {signal: ST_EpsTorque, input: eps, safe: 7}\n"
        "      - {signal: ST_AngleCmd, input: angle, range: [-90, 90], safe: hold}\n"
        "  - id: 0x110\n"
        "    timeout_ms: 0\n"
        "    signals:\n"
        "      - {signal: WT_DriveFL, input: drive, unit: N m, scale: 0.5, offset: 1}\n";
    struct side s = {0};
    struct vd_can_frame f = {.id = 0x120, .len = 8};
    const struct vd_dbc_msg *m;
    const double *v;
    const uint8_t *st;
    struct vd_canmap_rx_stats r;
    int eps, ang, drv;

    CHECK(!load_text(&s, text, VD_CANMAP_TARGET, stderr), "raw mapping loads");
    if (!s.map)
        return;
    v = vd_canmap_rx_values(s.map);
    st = vd_canmap_rx_status(s.map);
    eps = name_index(s.map, VD_CANMAP_INPUTS, "eps");
    ang = name_index(s.map, VD_CANMAP_INPUTS, "angle");
    drv = name_index(s.map, VD_CANMAP_INPUTS, "drive");
    m = vd_dbc_find_msg(s.dbc[0], "ECU_Steering");
    /* +Inf in the float: rejected as NaN/Inf; 45 deg inside [-90, 90] */
    vd_dbc_set_raw(f.data, vd_dbc_find_sig(m, "ST_EpsTorque"), 0x7F800000u);
    vd_dbc_encode(f.data, 8, m, vd_dbc_find_sig(m, "ST_AngleCmd"), 45.0);
    CHECK(vd_canmap_rx(s.map, 0, &f, 0) == VD_CANMAP_RX_USED, "used");
    CHECK(v[eps] == 7.0 && st[eps] == (VD_CANMAP_ST_NODATA | VD_CANMAP_ST_INVALID), "Inf: safe 7");
    /* 45 deg is a whole number of 0.05 deg steps, so only deg -> rad rounds (a few ulp) */
    CHECK(fabs(v[ang] - 45.0 * M_PI / 180) < 1e-9, "deg -> rad: %g", v[ang]);
    /* 120 deg: inside the DBC's +-900 but outside the mapping's +-90: held */
    vd_dbc_encode(f.data, 8, m, vd_dbc_find_sig(m, "ST_AngleCmd"), 120.0);
    vd_canmap_rx(s.map, 0, &f, 0);
    CHECK(fabs(v[ang] - 45.0 * M_PI / 180) < 1e-9 && (st[ang] & VD_CANMAP_ST_INVALID),
          "out of the mapping's range: held");
    /* scale and offset on top of the unit: 1000 Nm -> 1000 * 0.5 + 1 */
    f.id = 0x110;
    memset(f.data, 0, 8);
    vd_dbc_encode(f.data, 8, vd_dbc_find_msg(s.dbc[0], "ECU_WheelTorques"),
                  vd_dbc_find_sig(vd_dbc_find_msg(s.dbc[0], "ECU_WheelTorques"), "WT_DriveFL"),
                  1000.0);
    CHECK(vd_canmap_rx(s.map, 0, &f, 0) == VD_CANMAP_RX_USED, "used");
    CHECK(v[drv] == 501.0, "scale, offset: %g", v[drv]);
    CHECK(vd_canmap_rx_check_timeouts(s.map, 1000000 * MS) == 2, "timeout_ms 0: never");
    vd_canmap_rx_stats(s.map, &r);
    CHECK(r.nan == 2 && r.out_of_range == 1 && r.updates == 2, "counted: %llu %llu %llu",
          (unsigned long long)r.nan, (unsigned long long)r.out_of_range,
          (unsigned long long)r.updates);
    free_side(&s);
}

/* resolution errors name the mapping's file:line:col */
static void test_errors(void)
{
    static const char head[] =
        "buses: [{name: b, dbc: sedan_bench.dbc, udp: {local: '127.0.0.1:1', remote: "
        "'127.0.0.1:2'}}]\n";
    static const struct {
        const char *body;
        const char *want;
    } cases[] = {
        {"rx:\n  - message: NoSuchMsg\n    signals: [{signal: X, input: a}]\n",
         "mem.yaml:3:5: error: rx[0]: no message 'NoSuchMsg'"},
        {"rx:\n  - message: ECU_WheelTorques\n    signals: [{signal: Nope, input: a}]\n",
         "mem.yaml:4:15: error: rx[0].signals[0]: DBC message ECU_WheelTorques has no signal "
         "'Nope'"},
        {"rx:\n  - message: ECU_Steering\n    signals: [{signal: ST_AngleCmd, input: a, unit: "
         "rad}]\n",
         "unit 'rad' but the DBC gives 'deg'"},
        {"rx:\n  - message: ECU_Steering\n    signals: [{signal: ST_AngleCmd, input: a, unit: "
         "furlong}]\n",
         "unknown unit 'furlong'"},
        {"rx:\n  - message: ECU_WheelTorques\n    signals:\n      - {signal: WT_DriveFL, input: "
         "a}\n      - {signal: WT_DriveFR, input: a}\n",
         "mem.yaml:6:9: error: input 'a' is already driven by WT_DriveFL (line 5)"},
        {"rx:\n  - message: ECU_WheelTorques\n    e2e: {profile: P01, data_id: 1, crc: "
         "WT_Counter}\n    signals: [{signal: WT_DriveFL, input: a}]\n",
         "e2e: CRC signal 'WT_Counter' must be 8 bits"},
        {"rx:\n  - message: ECU_WheelTorques\n    e2e: {profile: P01, data_id: 1, crc: WT_CRC, "
         "counter: WT_Counter}\n    signals: [{signal: WT_Counter, input: a}]\n",
         "'WT_Counter' is the E2E counter"},
        {"rx:\n  - message: ECU_BrakeTorques\n    e2e: {profile: P05, data_id: 1, crc: BT_CRC, "
         "offset: 8}\n    signals: [{signal: BT_FL, input: a}]\n",
         "rx[0] (ECU_BrakeTorques): e2e: CRC offset 8 but signal 'BT_CRC' is at bit 0"},
        {"rx:\n  - message: ECU_WheelTorques\n    e2e: {profile: P01, data_id: 1, counter_offset: "
         "12}\n    signals: [{signal: WT_DriveFL, input: a}]\n",
         "mem.yaml:5:15: error: rx[0].signals[0]: 'WT_DriveFL' overlaps the bits E2E protection "
         "writes"},
        {"tx:\n  - message: VDM_Suspension\n    signals: [{signal: SU_Page, output: a}]\n",
         "'SU_Page' is the multiplexor"},
        {"tx:\n  - message: VDM_WheelSpeeds\n    phase_ms: 12\n    signals: [{signal: WS_FL, "
         "output: a}]\n",
         "phase_ms 12 must be in [0, 10)"},
        {"rx:\n  - message: ECU_WheelTorques\n    signals: [{signal: WT_DriveFL, input: a, "
         "range: [5000, 6000]}]\n",
         "range does not intersect"},
        {"rx:\n  - message: ECU_WheelTorques\n    signals: [{signal: WT_DriveFL, input: a}]\n  - "
         "id: 272\n    signals: [{signal: WT_DriveFR, input: b}]\n",
         "rx[1]: message ECU_WheelTorques is already mapped (line 3)"},
    };

    for (int i = 0; i < (int)(sizeof(cases) / sizeof(cases[0])); i++) {
        char text[1024], *buf = NULL;
        size_t len = 0;
        FILE *errf = open_memstream(&buf, &len);
        struct side s = {0};
        int rc;

        snprintf(text, sizeof(text), "%s%s", head, cases[i].body);
        rc = load_text(&s, text, VD_CANMAP_TARGET, errf);
        fclose(errf);
        CHECK(rc != 0, "case %d fails", i);
        CHECK(buf && strstr(buf, cases[i].want), "case %d: want '%s', got:\n%s", i, cases[i].want,
              buf ? buf : "");
        CHECK(buf && strstr(buf, "mem.yaml:"), "case %d located", i);
        free(buf);
        free_side(&s);
    }
    /* binding: an input the model does not have */
    {
        char *buf = NULL;
        size_t len = 0;
        FILE *errf = open_memstream(&buf, &len);
        struct side s = {0};
        static const char *const names[] = {"front_l.drive"};
        char text[512];

        snprintf(text, sizeof(text), "%s%s", head,
                 "rx:\n  - message: ECU_WheelTorques\n    signals: [{signal: WT_DriveFL, input: "
                 "front_l.drive}, {signal: WT_DriveFR, input: front_x.drive}]\n");
        CHECK(!load_text(&s, text, VD_CANMAP_TARGET, stderr), "loads");
        CHECK(s.map && vd_canmap_bind(s.map, VD_CANMAP_INPUTS, names, 1, errf) == -ENOENT,
              "bind fails");
        fclose(errf);
        CHECK(buf && strstr(buf, "mem.yaml:4:59: error: input 'front_x.drive' (signal WT_DriveFR) "
                                 "is not among the 1 model input names bound"),
              "bind error located: %s", buf ? buf : "");
        free(buf);
        free_side(&s);
    }
}

/* after load and bind: 10,000 slots of ECU send -> target receive -> timeouts -> target send
 * -> ECU receive, with faults switching, allocate nothing */
/* issue 10 item 8: an FD message on a classic bus and a signal that shares bits with another
 * are located errors of the mapping (else every frame would be dropped at send, or written
 * over); on an fd bus, and receiving the overlapping signal, they load */
static void test_bus_checks(void)
{
    static const struct {
        const char *text;
        const char *want; /* NULL: loads */
    } cases[] = {
        {"buses: [{name: b, dbc: ../../tests/io/data/canmap_checks.dbc,\n"
         "          udp: {local: '127.0.0.1:1', remote: '127.0.0.1:2'}}]\n"
         "tx:\n  - message: Fd16\n    cycle_ms: 10\n    signals: [{signal: A, output: o}]\n",
         "mem.yaml:4:5: error: tx[0]: Fd16 is a CAN FD message (16 bytes) but bus 'b' is classic"},
        {"buses: [{name: b, dbc: ../../tests/io/data/canmap_checks.dbc, fd: true,\n"
         "          udp: {local: '127.0.0.1:1', remote: '127.0.0.1:2'}}]\n"
         "tx:\n  - message: Fd16\n    cycle_ms: 10\n    signals: [{signal: A, output: o}]\n",
         NULL},
        {"buses: [{name: b, dbc: ../../tests/io/data/canmap_checks.dbc,\n"
         "          udp: {local: '127.0.0.1:1', remote: '127.0.0.1:2'}}]\n"
         "tx:\n  - message: Overlap\n    cycle_ms: 10\n    signals: [{signal: Q, output: o}]\n",
         "mem.yaml:6:15: error: tx[0].signals[0]: signal 'Q' shares bits with another signal of "
         "Overlap in the DBC: it cannot be sent"},
        {"buses: [{name: b, dbc: ../../tests/io/data/canmap_checks.dbc,\n"
         "          udp: {local: '127.0.0.1:1', remote: '127.0.0.1:2'}}]\n"
         "rx:\n  - message: Overlap\n    cycle_ms: 10\n    signals: [{signal: Q, input: i}]\n",
         NULL},
        /* strict_dbc: the shared bits are an error of the DBC itself */
        {"strict_dbc: true\n"
         "buses: [{name: b, dbc: ../../tests/io/data/canmap_checks.dbc,\n"
         "          udp: {local: '127.0.0.1:1', remote: '127.0.0.1:2'}}]\n"
         "rx:\n  - message: Overlap\n    cycle_ms: 10\n    signals: [{signal: Q, input: i}]\n",
         "canmap_checks.dbc:10: error: signals P and Q of message Overlap share bits"},
    };

    for (int i = 0; i < (int)(sizeof(cases) / sizeof(cases[0])); i++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *errf = open_memstream(&buf, &len);
        struct side s = {0};
        int rc = load_text(&s, cases[i].text, VD_CANMAP_TARGET, errf);

        fclose(errf);
        if (cases[i].want)
            CHECK(rc != 0 && buf && strstr(buf, cases[i].want), "case %d: want '%s', got:\n%s", i,
                  cases[i].want, buf ? buf : "");
        else
            CHECK(rc == 0, "case %d loads: %s", i, buf ? buf : "");
        free(buf);
        free_side(&s);
    }
}

/* issue 10 item 5: a NaN fault on integer signals sends the DBC's invalid-value pattern (VAL_
 * "SNA") where the DBC has one, counted as such, and the receiver rejects that value; a
 * message without float signals or such a pattern cannot take a NaN (the ECU refuses it) */
static void test_invalid_pattern(void)
{
    static const char text[] = "buses: [{name: b, dbc: ../../tests/io/data/canmap_checks.dbc,\n"
                               "          udp: {local: '127.0.0.1:1', remote: '127.0.0.1:2'}}]\n"
                               "rx:\n"
                               "  - message: Sna\n    cycle_ms: 10\n    phase_ms: 0\n"
                               "    signals: [{signal: V, input: a}, {signal: W, input: b}]\n"
                               "  - message: NoSna\n    cycle_ms: 10\n    phase_ms: 0\n"
                               "    signals: [{signal: X, input: c}]\n";
    struct side ecu = {0}, tgt = {0};
    const double values[3] = {10.0, 20.0, 30.0};
    struct vd_can_frame out[4];
    int m, n;

    CHECK(!load_text(&ecu, text, VD_CANMAP_ECU, stderr) &&
              !load_text(&tgt, text, VD_CANMAP_TARGET, stderr),
          "the mapping loads for both roles");
    if (!ecu.map || !tgt.map)
        goto out;
    m = vd_canmap_find_msg(ecu.map, "Sna");
    CHECK(m >= 0 && (vd_canmap_fault_effective(ecu.map, m) & VD_CANMAP_FAULT_NAN),
          "NaN acts on Sna (V has an SNA value)");
    CHECK(!(vd_canmap_fault_effective(ecu.map, vd_canmap_find_msg(ecu.map, "NoSna")) &
            VD_CANMAP_FAULT_NAN),
          "NaN does not act on NoSna (integers, no pattern)");
    vd_canmap_start(ecu.map, 0);
    vd_canmap_start(tgt.map, 0);
    vd_canmap_set_fault(ecu.map, m, VD_CANMAP_FAULT_NAN);
    n = vd_canmap_tx_due(ecu.map, 0, 0, values, out, 4);
    CHECK(n == 2, "two frames due: %d", n);
    for (int i = 0; i < n; i++) {
        if (out[i].id != 102)
            continue;
        CHECK(out[i].data[0] == 0xFF && out[i].data[1] == 20, "V sent as SNA (0x%02X), W as 20",
              out[i].data[0]);
    }
    {
        const struct vd_canmap_msg_stats *st = vd_canmap_msg_stats(ecu.map, m);

        CHECK(st->fault_invalid == 1 && st->fault_nan == 0 && st->fault_frames_nan == 1,
              "counted as an invalid-value pattern: %llu invalid, %llu NaN, %llu frames",
              (unsigned long long)st->fault_invalid, (unsigned long long)st->fault_nan,
              (unsigned long long)st->fault_frames_nan);
    }
    for (int i = 0; i < n; i++)
        vd_canmap_rx(tgt.map, 0, &out[i], 1000);
    {
        struct vd_canmap_rx_stats rx;
        const int a = name_index(tgt.map, VD_CANMAP_INPUTS, "a");
        const int b = name_index(tgt.map, VD_CANMAP_INPUTS, "b");

        vd_canmap_rx_stats(tgt.map, &rx);
        CHECK(rx.invalid_value == 1 && rx.out_of_range == 0 && rx.nan == 0 && rx.updates == 2,
              "the receiver rejects the SNA value: invalid %llu, range %llu, NaN %llu, used %llu",
              (unsigned long long)rx.invalid_value, (unsigned long long)rx.out_of_range,
              (unsigned long long)rx.nan, (unsigned long long)rx.updates);
        CHECK(a >= 0 && b >= 0 && (vd_canmap_rx_status(tgt.map)[a] & VD_CANMAP_ST_INVALID) &&
                  vd_canmap_rx_values(tgt.map)[b] == 20.0,
              "a holds its safe value (INVALID), b is 20");
    }
out:
    free_side(&ecu);
    free_side(&tgt);
}

static void test_noalloc(struct side *tgt, struct side *ecu)
{
    double *in = calloc((size_t)sedan->ninput, sizeof(*in)), out[NTX];
    struct vd_can_frame f[16];
    double snap_v[256];
    uint8_t snap_ok[256];
    long n0;

    for (int i = 0; i < NTX; i++)
        out[i] = 0.5 * (tx_expect[i].lo + tx_expect[i].hi);
    vd_canmap_start(tgt->map, 0);
    vd_canmap_start(ecu->map, 0);
    atomic_store(&calls, 0);
    atomic_store(&armed, 1);
    n0 = atomic_load(&calls);
    for (uint64_t s = 0; s < 10000; s++) {
        const int64_t t = (int64_t)s * MS;
        int n;

        if (s % 997 == 0)
            vd_canmap_set_fault(ecu->map, (int)(s / 997) % 3, (unsigned)(1u << (s / 997 % 7)));
        n = vd_canmap_tx_due(ecu->map, 0, s, in, f, 16);
        for (int i = 0; i < n; i++)
            vd_canmap_rx(tgt->map, 0, &f[i], t);
        vd_canmap_rx_check_timeouts(tgt->map, t);
        vd_canmap_rx_fill(tgt->map, snap_v, snap_ok, sedan->ninput);
        n = vd_canmap_tx_due(tgt->map, 0, s, out, f, 16);
        for (int i = 0; i < n; i++)
            vd_canmap_rx(ecu->map, 0, &f[i], t);
        vd_canmap_rx_check_timeouts(ecu->map, t);
        in[0] = snap_v[0] + 1.0;
    }
    atomic_store(&armed, 0);
    for (int m = 0; m < 3; m++)
        vd_canmap_set_fault(ecu->map, m, 0);
    if (VT_INTERPOSE)
        CHECK(atomic_load(&calls) - n0 == 0, "no allocation in 10000 slots: %ld calls",
              atomic_load(&calls) - n0);
    else
        printf("test_canmap: allocation check skipped under a sanitizer\n");
    free(in);
}

/* the JSON report: balanced, with the totals and every message */
static void test_json(struct side *tgt)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int depth = 0, min = 0, nmsg = 0;
    bool in_str = false;

    vd_canmap_report_json(tgt->map, f);
    fclose(f);
    for (const char *p = buf; p && *p; p++) {
        if (*p == '"')
            in_str = !in_str;
        else if (!in_str && (*p == '{' || *p == '['))
            depth++;
        else if (!in_str && (*p == '}' || *p == ']'))
            depth--;
        min = depth < min ? depth : min;
    }
    for (const char *p = buf; p && (p = strstr(p, "\"cycle_ms\"")); p++)
        nmsg++;
    CHECK(buf && buf[0] == '{' && depth == 0 && min == 0 && !in_str, "JSON balanced");
    CHECK(buf && strstr(buf, "\"role\": \"target\"") && strstr(buf, "\"e2e_rejected\": ") &&
              nmsg == 7,
          "JSON content (%d messages)", nmsg);
    free(buf);
}

/* given phases are kept and the others placed around them */
static void test_phases(void)
{
    static const char text[] =
        "buses: [{name: b, dbc: sedan_bench.dbc, udp: {local: '127.0.0.1:1', remote: "
        "'127.0.0.1:2'}}]\n"
        "tx:\n"
        "  - {message: VDM_Steering, signals: [{signal: SS_Angle, output: a}]}\n"
        "  - {message: VDM_WheelSpeeds, phase_ms: 0, signals: [{signal: WS_FL, output: w}]}\n"
        "  - {message: VDM_Dynamics, cycle_ms: 5, signals: [{signal: DY_Vx, output: v}]}\n";
    struct side s = {0};
    struct vd_canmap_msg_info a, b, c;

    CHECK(!load_text(&s, text, VD_CANMAP_TARGET, stderr), "loads");
    if (!s.map)
        return;
    vd_canmap_msg_info(s.map, 0, &a);
    vd_canmap_msg_info(s.map, 1, &b);
    vd_canmap_msg_info(s.map, 2, &c);
    /* the 5 ms message first (a cycle override): 1 (0 is taken), then the 10 ms one: 2 */
    CHECK(b.phase_ms == 0 && c.cycle_ms == 5 && c.phase_ms == 1 && a.phase_ms == 2,
          "phases %d %d %d", b.phase_ms, c.phase_ms, a.phase_ms);
    free_side(&s);
}

int main(void)
{
    struct side tgt = {0}, ecu = {0};
    struct vd_source *src = NULL;

    sedan = vd_cfg_load_model("config/vehicles/sedan.yaml", &src, stderr);
    CHECK(sedan != NULL, "sedan loads");
    if (!sedan)
        return vt_report("test_canmap");
    input_names = calloc((size_t)sedan->ninput, sizeof(*input_names));
    for (int i = 0; i < sedan->ninput; i++)
        input_names[i] = sedan->input[i].name;

    test_shipped(&tgt, &ecu);
    if (tgt.map && ecu.map) {
        test_roundtrip(&tgt, &ecu);
        test_schedule(&tgt, &ecu);
        test_faults(&tgt, &ecu);
        test_timeouts(&tgt, &ecu);
        test_tx_clamp(&tgt, &ecu);
        test_noalloc(&tgt, &ecu);
        vd_canmap_report(tgt.map, stdout);
        vd_canmap_report(ecu.map, stdout);
        test_json(&tgt);
    }
    test_raw();
    test_phases();
    test_errors();
    test_bus_checks();
    test_invalid_pattern();

    free_side(&tgt);
    free_side(&ecu);
    free(input_names);
    vd_source_free(src);
    vd_model_free(sedan);
    return vt_report("test_canmap");
}
