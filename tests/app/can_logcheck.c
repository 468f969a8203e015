/* tests/app/can_logcheck.c - decode a candump log (`candump -l`) with the mapping's DBC and
 * check rtvd's frames on the bus against rtvd's run report (the PREEMPT_RT guest test,
 * deploy/rtvm/guest-test.sh; also usable on any bench):
 *   can_logcheck MAPPING.yaml CANDUMP.log REPORT.json
 * The mapping is loaded for the ECU role (io/canmap.h: the receiving end of rtvd's tx
 * messages), so every logged frame goes through the same DBC decoding, E2E check, range check
 * and unit conversion as in the virtual ECU. Checks:
 *   - rtvd's frames on the bus pass E2E (OK; OK-SOME-LOST only if rtvd counted TX drops), and
 *     no decoded value is out of range or NaN;
 *   - per message rtvd sends: the frames in the log = the frames rtvd's map produced minus
 *     the transport's TX drops (at most);
 *   - the values of the last frame of each (non-multiplexed) message on the bus, in model
 *     units, equal the output values rtvd's report says that frame carried (can.target.tx_last:
 *     the output snapshot it was built from), within half the DBC resolution: e.g. the four
 *     wheel speeds of VDM_WheelSpeeds against front_l.tire.omega ...;
 *   - and prints them beside the model's final outputs (report final_outputs; not judged:
 *     the car moved on after the last frame).
 * Frames of other senders (the ECU's, cangen's load) are counted, not checked. Exit 0 when
 * every check passes, 1 otherwise, 2 usage or unreadable input. */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/canlink.h"
#include "config/vfs.h"

#define MAXLINE 512

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = calloc(1, (size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

/* the number after "key": inside [from, to); NAN when absent */
static double json_num(const char *from, const char *to, const char *key)
{
    char pat[200];
    const char *p;

    snprintf(pat, sizeof(pat), "\"%s\": ", key);
    p = strstr(from, pat);
    if (!p || (to && p >= to))
        return NAN;
    return strtod(p + strlen(pat), NULL);
}

/* the object after "key": {...} inside [from, ...): its start and end */
static const char *json_obj(const char *from, const char *key, const char **end)
{
    char pat[200];
    const char *p;
    int depth = 0;

    snprintf(pat, sizeof(pat), "\"%s\": {", key);
    p = strstr(from, pat);
    if (!p)
        return NULL;
    p += strlen(pat) - 1;
    for (const char *q = p; *q; q++) {
        depth += *q == '{';
        depth -= *q == '}';
        if (!depth) {
            *end = q + 1;
            return p;
        }
    }
    return NULL;
}

/* "(1700000000.123456) vcan0 123#1122..." or "...##<flags><data>" (FD) */
static int parse_line(const char *line, struct vd_can_frame *f, double *t)
{
    const char *p = strchr(line, ')'), *hash;
    char *end;
    unsigned long id;
    size_t n = 0;
    bool fd;

    memset(f, 0, sizeof(*f));
    if (line[0] != '(' || !p)
        return -1;
    *t = strtod(line + 1, NULL);
    p = strchr(p + 2, ' ');
    if (!p)
        return -1;
    p++;
    hash = strchr(p, '#');
    if (!hash)
        return -1;
    id = strtoul(p, &end, 16);
    if (end != hash)
        return -1;
    if (hash - p > 3)
        f->flags |= VD_CANF_EFF;
    f->id = (uint32_t)id;
    fd = hash[1] == '#';
    p = hash + (fd ? 3 : 1); /* FD: "##<flags nibble>" */
    if (fd)
        f->flags |= VD_CANF_FD;
    if (*p == 'R') {
        f->flags |= VD_CANF_RTR;
        return 0;
    }
    while (isxdigit((unsigned char)p[0]) && isxdigit((unsigned char)p[1]) && n < VD_CAN_MAX_DLEN) {
        char b[3] = {p[0], p[1], 0};

        f->data[n++] = (uint8_t)strtoul(b, NULL, 16);
        p += 2;
    }
    f->len = (uint8_t)n;
    return 0;
}

int main(int argc, char **argv)
{
    struct app_can_side s;
    struct vd_canmap_rx_stats rx;
    char line[MAXLINE], *report;
    FILE *log;
    uint64_t lines = 0, other = 0;
    double t_first = NAN, t_last = NAN;
    int fails = 0, checked = 0;
    const char *tx_last, *tx_end, *fin, *fin_end, *target, *target_end;

    if (argc != 4) {
        fprintf(stderr, "usage: can_logcheck MAPPING.yaml CANDUMP.log REPORT.json\n");
        return 2;
    }
    vd_cfg_vfs_register(vd_embedded_files, vd_embedded_nfiles);
    if (app_can_side_load(&s, argv[1], VD_CANMAP_ECU, 0, stderr))
        return 2;
    report = slurp(argv[3]);
    log = fopen(argv[2], "r");
    if (!report || !log) {
        fprintf(stderr, "can_logcheck: cannot read %s\n", report ? argv[2] : argv[3]);
        return 2;
    }
    target = json_obj(report, "target", &target_end);
    tx_last = target ? json_obj(target, "tx_last", &tx_end) : NULL;
    fin = json_obj(report, "final_outputs", &fin_end);
    if (!target || !tx_last || !fin) {
        fprintf(stderr, "can_logcheck: %s has no can.target.tx_last or final_outputs\n", argv[3]);
        return 2;
    }

    /* every frame of the log through the ECU end of the mapping */
    vd_canmap_start(s.map, 0);
    while (fgets(line, sizeof(line), log)) {
        struct vd_can_frame f;
        double t;

        if (parse_line(line, &f, &t))
            continue;
        lines++;
        if (isnan(t_first))
            t_first = t;
        t_last = t;
        if (vd_canmap_rx(s.map, 0, &f, (int64_t)((t - t_first) * 1e9)) == VD_CANMAP_RX_UNKNOWN)
            other++;
    }
    fclose(log);
    vd_canmap_rx_stats(s.map, &rx);
    printf("can_logcheck: %" PRIu64 " frames over %.3f s; rtvd's: %" PRIu64 " used, E2E ok %" PRIu64
           ", ok-some-lost %" PRIu64 ", error %" PRIu64 ", repeated %" PRIu64
           ", wrong-sequence %" PRIu64 ", bad length %" PRIu64 ", out of range %" PRIu64
           ", NaN %" PRIu64 "; other senders' frames %" PRIu64 "\n",
           lines, t_last - t_first, rx.used, rx.e2e[VD_E2E_OK], rx.e2e[VD_E2E_OK_SOME_LOST],
           rx.e2e[VD_E2E_ERROR], rx.e2e[VD_E2E_REPEATED], rx.e2e[VD_E2E_WRONG_SEQUENCE], rx.bad_len,
           rx.out_of_range, rx.nan, other);

    /* E2E and values of rtvd's frames */
    {
        const double tx_dropped = json_num(target, target_end, "tx_dropped");
        const bool ok = rx.used > 0 && rx.e2e[VD_E2E_ERROR] == 0 && rx.e2e[VD_E2E_REPEATED] == 0 &&
                        rx.e2e[VD_E2E_WRONG_SEQUENCE] == 0 && rx.bad_len == 0 &&
                        rx.out_of_range == 0 && rx.nan == 0 &&
                        (rx.e2e[VD_E2E_OK_SOME_LOST] == 0 || tx_dropped > 0);

        printf("can_logcheck: %s rtvd's frames on the bus pass E2E and the range checks\n",
               ok ? "ok  " : "FAIL");
        fails += !ok;
    }

    /* per message: frames on the bus vs frames rtvd produced */
    for (int i = 0; i < vd_canmap_nmsg(s.map); i++) {
        struct vd_canmap_msg_info mi;
        char pat[160];
        const char *p;
        double made;
        const double dropped = json_num(target, target_end, "tx_dropped");
        uint64_t seen;

        vd_canmap_msg_info(s.map, i, &mi);
        if (mi.sent)
            continue; /* the ECU's messages: not rtvd's */
        seen = vd_canmap_msg_stats(s.map, i)->frames;
        snprintf(pat, sizeof(pat), "{\"name\": \"%s\", \"id\": %u,", mi.name, (unsigned)mi.id);
        p = strstr(target, pat);
        made = p && p < target_end ? json_num(p, target_end, "frames") : NAN;
        /* the log may start after rtvd's first frames (candump starts first: it does not) and
         * loses nothing on vcan; TX drops are counted by rtvd's transport */
        if (!(made >= (double)seen && (double)seen >= made - (isnan(dropped) ? 0 : dropped))) {
            printf("can_logcheck: FAIL %s: %" PRIu64 " frames on the bus, rtvd made %.0f (%.0f "
                   "dropped)\n",
                   mi.name, seen, made, dropped);
            fails++;
        } else {
            printf("can_logcheck: ok   %s: %" PRIu64 " frames on the bus = made by rtvd\n", mi.name,
                   seen);
        }
    }

    /* the last frame of each message: its values = the outputs the report says it carried */
    for (int i = 0; i < vd_canmap_nmsg(s.map); i++) {
        struct vd_canmap_msg_info mi;
        const struct vd_dbc_msg *dm;
        const char *o, *o_end, *vals, *vals_end;

        vd_canmap_msg_info(s.map, i, &mi);
        dm = vd_dbc_find_msg(s.dbc[mi.bus], mi.name);
        if (mi.sent || !dm || dm->mux)
            continue; /* multiplexed: the last frame holds one group only */
        o = json_obj(tx_last, mi.name, &o_end);
        vals = o ? json_obj(o, "values", &vals_end) : NULL;
        if (!o || o > tx_end || !vals) {
            printf("can_logcheck: FAIL %s: not in the report's tx_last\n", mi.name);
            fails++;
            continue;
        }
        printf("can_logcheck: %s, last frame from output cycle %.0f (t %.3f s):\n", mi.name,
               json_num(o, o_end, "cycle"), json_num(o, o_end, "t"));
        for (int m = 0; m < s.cfg->nmsg; m++) {
            const struct vd_candesc_msg *cm = &s.cfg->msg[m];

            if (cm->dir != VD_CANDESC_TX || strcmp(cm->message, mi.name))
                continue;
            for (int j = cm->sig0; j < cm->sig0 + cm->nsig; j++) {
                const struct vd_candesc_sig *cs = &s.cfg->sig[j];
                const struct vd_dbc_sig *ds = vd_dbc_find_sig(dm, cs->signal);
                const int n = vd_canmap_rx_count(s.map);
                double uf = 1.0, res, bus = NAN, want, final;

                if (!cs->name[0] || !ds)
                    continue;
                for (int k = 0; k < n; k++)
                    if (!strcmp(vd_canmap_name(s.map, VD_CANMAP_OUTPUTS, k), cs->name))
                        bus = vd_canmap_rx_values(s.map)[k];
                vd_canmap_unit_factor(cs->has_unit ? cs->unit : ds->unit, &uf);
                res = fabs(ds->factor * uf * cs->scale);
                want = json_num(vals, vals_end, cs->name);
                final = json_num(fin, fin_end, cs->name);
                checked++;
                /* half a DBC step of rounding (the encoder rounds to the nearest raw value;
                 * 1.0001 and 1e-12 for the rounding of the scale products on both sides),
                 * and the clamp to the DBC range */
                if (!(fabs(bus - want) <= 0.5 * res * 1.0001 + 1e-12) &&
                    !(want > ds->max * uf * cs->scale || want < ds->min * uf * cs->scale)) {
                    printf("can_logcheck: FAIL   %-28s on the bus %.6g, rtvd's output %.6g (DBC "
                           "step %.3g)\n",
                           cs->name, bus, want, res);
                    fails++;
                } else {
                    printf("can_logcheck: ok     %-28s on the bus %12.6f  rtvd's output %12.6f  "
                           "(step %.3g; final model value %.6f, not judged)\n",
                           cs->name, bus, want, res, final);
                }
            }
        }
    }
    printf("can_logcheck: %d values compared, %d failures\n", checked, fails);
    app_can_side_free(&s);
    free(report);
    return fails || !checked ? 1 : 0;
}
