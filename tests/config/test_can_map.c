/* tests/config/test_can_map.c - CAN mapping files (config/can_map.h): the shipped
 * config/can/sedan.yaml for both roles (fields, DBC text, udp ends swapped for the ECU), and
 * malformed files, each reported as name:LINE:COL: error: ... at the offending node. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "config/can_map.h"

/* load text (DBC paths relative to config/can), capture the diagnostics */
static struct vd_candesc *load(const char *text, int role, char **diag)
{
    size_t len = 0;
    FILE *errf = open_memstream(diag, &len);
    struct vd_candesc *c =
        vd_cfg_load_canmap_mem("bad.yaml", text, strlen(text), "config/can", role, errf);

    fclose(errf);
    return c;
}

static void test_shipped(void)
{
    struct vd_candesc *t = vd_cfg_load_canmap("config/can/sedan.yaml", VD_CANDESC_TARGET, stderr);
    struct vd_candesc *e = vd_cfg_load_canmap("config/can/sedan.yaml", VD_CANDESC_ECU, stderr);
    int nrx = 0, ntx = 0;

    CHECK(t && e, "the shipped mapping loads for both roles");
    if (!t || !e)
        goto out;
    CHECK(!strcmp(t->name, "sedan-bench") && t->timeout_factor == 3.0, "name, timeout_factor");
    CHECK(t->nbus == 1 && !strcmp(t->bus[0].name, "bench"), "one bus");
    CHECK(!strcmp(t->bus[0].dbc_path, "config/can/sedan_bench.dbc"), "dbc path %s",
          t->bus[0].dbc_path);
    CHECK(t->bus[0].dbc_text && t->bus[0].dbc_len > 1000 &&
              !strncmp(t->bus[0].dbc_text, "VERSION", 7),
          "DBC text read");
    CHECK(t->bus[0].kind == VD_CANDESC_UDP && !strcmp(t->bus[0].local_host, "127.0.0.1") &&
              t->bus[0].local_port == 20000 && t->bus[0].remote_port == 20001,
          "udp ends");
    CHECK(e->bus[0].local_port == 20001 && e->bus[0].remote_port == 20000, "ECU: swapped");
    CHECK(t->bus[0].rcvbuf == VD_CANDESC_UNSET && t->bus[0].configure == -1, "unset keys");
    CHECK(t->nmsg == 7 && t->nsig == 29, "7 messages, 29 signals: %d %d", t->nmsg, t->nsig);
    for (int i = 0; i < t->nmsg; i++) {
        const struct vd_candesc_msg *m = &t->msg[i];

        nrx += m->dir == VD_CANDESC_RX;
        ntx += m->dir == VD_CANDESC_TX;
        CHECK(m->cycle_ms == VD_CANDESC_UNSET && m->phase_ms == VD_CANDESC_UNSET &&
                  m->timeout_ms == VD_CANDESC_UNSET,
              "%s: cycle, phase, timeout from the DBC and the factor", m->message);
        CHECK(m->e2e.profile != VD_CANDESC_E2E_NONE && m->e2e.crc[0] && m->e2e.counter[0],
              "%s: E2E with CRC and counter signals", m->message);
    }
    CHECK(nrx == 3 && ntx == 4, "3 rx, 4 tx");
    CHECK(!strcmp(t->msg[0].message, "ECU_WheelTorques") && t->msg[0].e2e.data_id == 0x110 &&
              t->msg[0].e2e.profile == VD_CANDESC_E2E_P01 && t->msg[0].line == 18 &&
              t->msg[0].col == 5,
          "rx[0] at 18:5 (%d:%d)", t->msg[0].line, t->msg[0].col);
    CHECK(t->msg[2].e2e.profile == VD_CANDESC_E2E_P02 && t->msg[2].e2e.data_id_list[0] == 0x40 &&
              t->msg[2].e2e.data_id_list[15] == 0x4F,
          "P02 Data ID list");
    {
        const struct vd_candesc_sig *s = &t->sig[t->msg[2].sig0];

        CHECK(!strcmp(s[0].signal, "ST_AngleCmd") && !strcmp(s[0].name, "steering.angle") &&
                  s[0].safe == VD_CANDESC_SAFE_HOLD,
              "safe: hold");
        CHECK(s[2].has_value && s[2].value == 0.0 && !s[2].name[0], "a constant");
        CHECK(t->sig[0].safe == VD_CANDESC_SAFE_VALUE && t->sig[0].safe_value == 0.0 &&
                  t->sig[0].scale == 1.0,
              "rx defaults");
    }
    {
        const struct vd_candesc_msg *m = &t->msg[5]; /* VDM_Steering */
        const struct vd_candesc_sig *s = &t->sig[m->sig0 + 1];

        CHECK(!strcmp(s->signal, "SS_Torque") && s->scale == -1.0 &&
                  s->safe == VD_CANDESC_SAFE_HOLD,
              "tx scale, tx default safe: hold");
    }
out:
    vd_cfg_canmap_free(t);
    vd_cfg_canmap_free(e);
}

#define HEAD                                                                                       \
    "buses:\n"                                                                                     \
    "  - name: b\n"                                                                                \
    "    dbc: sedan_bench.dbc\n"                                                                   \
    "    udp: {local: 127.0.0.1:1, remote: 127.0.0.1:2}\n"
#define RX1 "rx:\n  - message: M\n    signals: [{signal: S, input: i}]\n"

static void test_errors(void)
{
    static const struct {
        const char *text;
        const char *want; /* the located diagnostic, from the line on */
    } cases[] = {
        {HEAD RX1 "busses: 1\n",
         "bad.yaml:8:1: error: unknown key 'busses' at the top level (expected one of: "
         "name, timeout_factor, strict_dbc, buses, rx, tx)"},
        {RX1, "bad.yaml:1:1: error: missing required key 'buses'"},
        {"buses: [{name: b, dbc: sedan_bench.dbc}]\n" RX1,
         "bad.yaml:1:9: error: buses[0]: missing transport"},
        {"buses: [{name: b, dbc: sedan_bench.dbc, udp: {local: 'x:1', remote: 'x:2'}, "
         "socketcan: {interface: vcan0}}]\n" RX1,
         "bad.yaml:1:88: error: buses[0]: give one transport, udp or socketcan, not both"},
        {"buses: [{name: b, dbc: sedan_bench.dbc, udp: {local: '127.0.0.1', remote: 'h:2'}}]\n" RX1,
         "bad.yaml:1:54: error: buses[0].udp.local: '127.0.0.1' is not HOST:PORT"},
        {"buses: [{name: b, dbc: sedan_bench.dbc, udp: {local: 'h:1'}}]\n" RX1,
         "bad.yaml:1:46: error: missing required key 'remote' in buses[0].udp"},
        {"buses: [{name: b, dbc: nope.dbc, udp: {local: 'h:1', remote: 'h:2'}}]\n" RX1,
         "bad.yaml:1:24: error: buses[0].dbc: cannot read 'config/can/nope.dbc': No such file"},
        {"buses: [{name: 'b c', dbc: sedan_bench.dbc, socketcan: {interface: vcan0, "
         "data_bitrate: 2000000}}]\n" RX1,
         "bad.yaml:1:16: error: buses[0].name: 'b c' may only contain"},
        {"buses: [{name: b, dbc: sedan_bench.dbc, socketcan: {interface: vcan0, "
         "data_bitrate: 2000000}}]\n" RX1,
         "bad.yaml:1:85: error: buses[0].socketcan: the data phase needs fd: true"},
        {"buses: [{name: b, dbc: sedan_bench.dbc, socketcan: {interface: vcan0, restart: "
         "sometimes}}]\n" RX1,
         "bad.yaml:1:80: error: buses[0].socketcan.restart: unknown value 'sometimes' "
         "(expected one of: auto, manual, none)"},
        {HEAD, "bad.yaml:1:1: error: no messages: give rx and/or tx"},
        {HEAD "rx:\n  - {message: M, id: 5, signals: [{signal: S, input: i}]}\n",
         "bad.yaml:6:22: error: rx[0]: give message or id, not both"},
        {HEAD "rx:\n  - {id: 0x800, signals: [{signal: S, input: i}]}\n",
         "bad.yaml:6:10: error: rx[0].id: 0x800 must be <= 0x7FF (2047)"},
        {HEAD "rx:\n  - {id: 0xZZ, signals: [{signal: S, input: i}]}\n",
         "bad.yaml:6:10: error: rx[0].id: '0xZZ' is not an integer"},
        {HEAD "rx:\n  - {message: M, extended: true, signals: [{signal: S, input: i}]}\n",
         "bad.yaml:6:28: error: rx[0].extended: only used with id"},
        {HEAD "rx:\n  - {message: M, bus: x, signals: [{signal: S, input: i}]}\n",
         "bad.yaml:6:23: error: rx[0].bus: no bus named 'x'"},
        {HEAD "  - {name: c, dbc: sedan_bench.dbc, udp: {local: 'h:3', remote: 'h:4'}}\n" RX1,
         "bad.yaml:7:5: error: rx[0]: missing required key 'bus' (there are 2 buses)"},
        {HEAD "  - {name: b, dbc: sedan_bench.dbc, udp: {local: 'h:3', remote: 'h:4'}}\n" RX1,
         "bad.yaml:5:12: error: buses[1].name: duplicate bus name 'b' (line 2)"},
        {HEAD "rx:\n  - {message: M, cycle_ms: 0, signals: [{signal: S, input: i}]}\n",
         "bad.yaml:6:28: error: rx[0].cycle_ms: 0 out of range [1, 100000]"},
        {HEAD "rx:\n  - {message: M, cycle_ms: 10, phase_ms: 10, signals: [{signal: S, input: "
              "i}]}\n",
         "bad.yaml:6:42: error: rx[0].phase_ms: 10 must be < cycle_ms 10"},
        {HEAD "rx:\n  - {message: M, e2e: {profile: P11}, signals: [{signal: S, input: i}]}\n",
         "bad.yaml:6:33: error: rx[0].e2e.profile: unknown value 'P11' (expected one of: P01, "
         "P02, P05)"},
        {HEAD "rx:\n  - {message: M, e2e: {profile: P02}, signals: [{signal: S, input: i}]}\n",
         "bad.yaml:6:23: error: rx[0].e2e: missing required key 'data_id_list'"},
        {HEAD "rx:\n  - {message: M, e2e: {profile: P02, data_id_list: [1, 2]}, signals: "
              "[{signal: S, input: i}]}\n",
         "bad.yaml:6:52: error: rx[0].e2e.data_id_list: expected at least 16 items, got 2"},
        {HEAD "rx:\n  - {message: M, e2e: {profile: P01, data_id: 1, offset: 8}, signals: "
              "[{signal: S, input: i}]}\n",
         "bad.yaml:6:58: error: rx[0].e2e.offset: not used by profile P01"},
        {HEAD "rx:\n  - {message: M, e2e: {profile: P01, data_id: 0x10000}, signals: "
              "[{signal: S, input: i}]}\n",
         "bad.yaml:6:47: error: rx[0].e2e.data_id: 0x10000 must be <= 0xFFFF"},
        {HEAD "rx:\n  - {message: M, e2e: {profile: P01, data_id: 1, max_delta_counter: 15}, "
              "signals: [{signal: S, input: i}]}\n",
         "bad.yaml:6:69: error: rx[0].e2e.max_delta_counter: 15 exceeds 14 (profile P01)"},
        {HEAD "rx:\n  - {message: M, e2e: {profile: P01, data_id: 1, data_length: 12}, "
              "signals: [{signal: S, input: i}]}\n",
         "bad.yaml:6:63: error: rx[0].e2e.data_length: 12 out of range [16, 512]"},
        {HEAD "rx:\n  - message: M\n    signals: [{signal: S, output: o}]\n",
         "bad.yaml:7:35: error: rx[0].signals[0].output: rx signals name an `input`"},
        {HEAD "tx:\n  - message: M\n    signals: [{signal: S}]\n",
         "bad.yaml:7:15: error: tx[0].signals[0]: missing required key 'output' (or a constant "
         "value)"},
        {HEAD "rx:\n  - message: M\n    signals: [{signal: S, value: 1, unit: deg}]\n",
         "bad.yaml:7:43: error: rx[0].signals[0].unit: not used by a constant (value)"},
        {HEAD "rx:\n  - message: M\n    signals: [{signal: S, input: i, safe: maybe}]\n",
         "bad.yaml:7:43: error: rx[0].signals[0].safe: expected a number or hold"},
        {HEAD "rx:\n  - message: M\n    signals: [{signal: S, input: i, scale: 0}]\n",
         "bad.yaml:7:44: error: rx[0].signals[0].scale: must not be 0"},
        {HEAD "rx:\n  - message: M\n    signals: [{signal: S, input: i, range: [5, 1]}]\n",
         "bad.yaml:7:44: error: rx[0].signals[0].range: [5, 1] must have lo < hi"},
        {HEAD "rx:\n  - message: M\n    signals: 5\n",
         "bad.yaml:7:14: error: rx[0].signals: expected a sequence"},
        {HEAD "rx:\n  - message: M\n    message: N\n    signals: [{signal: S, input: i}]\n",
         "bad.yaml:7:5: error: rx[0]: duplicate key 'message' (first at line 6)"},
        {HEAD "timeout_factor: 1\n" RX1,
         "bad.yaml:5:17: error: timeout_factor: 1 out of range (1, 100]"},
        {HEAD "rx: [\n", "bad.yaml:"},
    };

    for (int i = 0; i < (int)(sizeof(cases) / sizeof(cases[0])); i++) {
        char *diag = NULL;
        struct vd_candesc *c = load(cases[i].text, VD_CANDESC_TARGET, &diag);

        CHECK(!c, "case %d is rejected", i);
        CHECK(diag && strstr(diag, cases[i].want), "case %d: want '%s', got:\n%s", i, cases[i].want,
              diag ? diag : "");
        /* the source line and a caret follow the message */
        CHECK(diag && strchr(diag, '^'), "case %d has a caret", i);
        vd_cfg_canmap_free(c);
        free(diag);
    }
    /* several independent mistakes are reported together */
    {
        char *diag = NULL;
        struct vd_candesc *c = load(HEAD "rx:\n  - message: M\n    signals: [{signal: S, "
                                         "input: i, scale: 0, safe: x, range: [2, 1]}]\n",
                                    VD_CANDESC_TARGET, &diag);
        int n = 0;

        for (const char *p = diag; p && (p = strstr(p, ": error: ")); p++)
            n++;
        CHECK(!c && n == 3, "3 errors at once: %d\n%s", n, diag ? diag : "");
        vd_cfg_canmap_free(c);
        free(diag);
    }
    {
        char *diag = NULL;
        size_t len = 0;
        FILE *errf = open_memstream(&diag, &len);

        CHECK(!vd_cfg_load_canmap("config/can/none.yaml", VD_CANDESC_TARGET, errf), "no file");
        fclose(errf);
        CHECK(diag && strstr(diag, "config/can/none.yaml: error: cannot read"), "%s", diag);
        free(diag);
    }
}

/* hex integers, socketcan keys, explicit E2E offsets, a quoted empty unit */
static void test_keys(void)
{
    static const char text[] =
        "name: k\n"
        "buses:\n"
        "  - name: c0\n"
        "    dbc: sedan_bench.dbc\n"
        "    fd: true\n"
        "    socketcan: {interface: can0, configure: yes, bitrate: 500000, sample_point: 875,\n"
        "                data_bitrate: 2000000, restart: manual, restart_ms: 0, loopback: off}\n"
        "tx:\n"
        "  - {id: 0x18FFA030, extended: true, cycle_ms: 20, phase_ms: 7, timeout_ms: 0,\n"
        "     e2e: {profile: P01, data_id: 0xABC, mode: nibble, crc_offset: 0,\n"
        "           counter_offset: 8, nibble_offset: 12, data_length: 64,\n"
        "           max_delta_counter: 3},\n"
        "     signals: [{signal: SU_StrutFL, output: o, unit: \"\", scale: 1e-3, offset: -1,\n"
        "                range: [0, 500], safe: 2.5}]}\n";
    char *diag = NULL;
    struct vd_candesc *c = load(text, VD_CANDESC_ECU, &diag);

    CHECK(c != NULL, "loads: %s", diag ? diag : "");
    if (c) {
        const struct vd_candesc_bus *b = &c->bus[0];
        const struct vd_candesc_msg *m = &c->msg[0];
        const struct vd_candesc_sig *s = &c->sig[0];

        CHECK(b->kind == VD_CANDESC_SOCKETCAN && !strcmp(b->ifname, "can0") && b->fd &&
                  b->configure == 1 && b->bitrate == 500000 && b->sample_point == 875 &&
                  b->dbitrate == 2000000 && b->restart == VD_CANDESC_RESTART_MANUAL &&
                  b->restart_ms == 0 && b->loopback == 0 && b->recv_own == -1,
              "socketcan keys");
        CHECK(m->dir == VD_CANDESC_TX && m->id == 0x18FFA030 && m->ext && !m->message[0] &&
                  m->cycle_ms == 20 && m->phase_ms == 7 && m->timeout_ms == 0,
              "message keys");
        CHECK(m->e2e.data_id == 0xABC && m->e2e.mode == VD_CANDESC_P01_NIBBLE &&
                  m->e2e.crc_offset == 0 && m->e2e.counter_offset == 8 &&
                  m->e2e.nibble_offset == 12 && m->e2e.data_length == 64 &&
                  m->e2e.max_delta_counter == 3 && m->e2e.offset == VD_CANDESC_UNSET,
              "e2e keys");
        CHECK(s->has_unit && !s->unit[0] && s->scale == 1e-3 && s->offset == -1.0 && s->has_range &&
                  s->range[0] == 0.0 && s->range[1] == 500.0 && s->safe == VD_CANDESC_SAFE_VALUE &&
                  s->safe_value == 2.5,
              "signal keys");
    }
    vd_cfg_canmap_free(c);
    free(diag);
}

int main(void)
{
    test_shipped();
    test_errors();
    test_keys();
    return vt_report("test_can_map");
}
