/* io/canmap_report.c - CAN signal mapping, exit-time: the counters as text and as JSON. */
#include "canmap.h"
#include "canmap_priv.h"

#include <stdio.h>

static const char *profile_name(int p)
{
    static const char *const names[] = {"none", "P01", "P02", "P05"};

    return p >= 0 && p < COUNT(names) ? names[p] : "?";
}

void vd_canmap_report(const struct vd_canmap *map, FILE *f)
{
    struct vd_canmap_rx_stats rx;
    struct vd_canmap_tx_stats tx;

    vd_canmap_rx_stats(map, &rx);
    vd_canmap_tx_stats(map, &tx);
    fprintf(f, "can map %s (%s): %d messages on %d bus%s\n", map->file,
            map->role == VD_CANMAP_TARGET ? "target" : "ecu", map->nmsg, map->nbus,
            map->nbus == 1 ? "" : "es");
    fprintf(f,
            "  received: frames %llu = used %llu + unknown %llu + other %llu + bad length %llu "
            "+ E2E rejected %llu\n",
            (unsigned long long)rx.frames, (unsigned long long)rx.used,
            (unsigned long long)rx.unknown, (unsigned long long)rx.other,
            (unsigned long long)rx.bad_len, (unsigned long long)rx.e2e_rejected);
    fprintf(f, "  E2E: ");
    for (int s = 0; s < VD_E2E_NSTATUS; s++)
        fprintf(f, "%s%s %llu", s ? ", " : "", vd_e2e_status_name((enum vd_e2e_status)s),
                (unsigned long long)rx.e2e[s]);
    fprintf(f,
            "\n  values: used %llu, out of range %llu, NaN %llu, invalid-value pattern %llu; "
            "timeouts %llu, recoveries %llu; now timed out %u, invalid %u\n",
            (unsigned long long)rx.updates, (unsigned long long)rx.out_of_range,
            (unsigned long long)rx.nan, (unsigned long long)rx.invalid_value,
            (unsigned long long)rx.timeouts, (unsigned long long)rx.recoveries, rx.timed_out,
            rx.invalid);
    fprintf(f,
            "  sent: frames %llu, clamped %llu, NaN %llu, dropped %llu, suppressed %llu, "
            "errors %llu\n",
            (unsigned long long)tx.frames, (unsigned long long)tx.clamped,
            (unsigned long long)tx.nan, (unsigned long long)tx.dropped,
            (unsigned long long)tx.suppressed, (unsigned long long)tx.errors);
    for (int i = 0; i < map->nmsg; i++) {
        const struct cm_msg *cm = &map->msg[i];
        const struct vd_canmap_msg_stats *s = &cm->st;

        fprintf(f, "  %s %-18s 0x%0*X%s bus %s, cycle %d ms, phase %d ms",
                cm->send ? "send" : "recv", cm->m->name, cm->m->ext ? 8 : 3, (unsigned)cm->m->id,
                cm->m->ext ? "x" : "", map->busname[cm->bus], cm->cycle_ms, cm->phase_ms);
        if (!cm->send)
            fprintf(f, ", timeout %lld ms", (long long)(cm->timeout_ns / NS_PER_MS));
        fprintf(f, ", E2E %s: frames %llu", profile_name(cm->profile),
                (unsigned long long)s->frames);
        if (cm->send) {
            fprintf(f, ", dropped %llu, suppressed %llu", (unsigned long long)s->dropped,
                    (unsigned long long)s->suppressed);
            if (s->fault_frames_nan || s->fault_frames_range)
                fprintf(f,
                        "; faulted: %llu frames with NaN or invalid values (%llu NaN, %llu "
                        "invalid-value patterns), %llu with out-of-range values (%llu)",
                        (unsigned long long)s->fault_frames_nan, (unsigned long long)s->fault_nan,
                        (unsigned long long)s->fault_invalid,
                        (unsigned long long)s->fault_frames_range,
                        (unsigned long long)s->fault_range);
            fputc('\n', f);
        } else {
            fprintf(f, ", used %llu, bad length %llu, E2E rejected %llu\n",
                    (unsigned long long)s->used, (unsigned long long)s->bad_len,
                    (unsigned long long)s->e2e_rejected);
        }
        for (int k = 0; k < cm->nsig; k++) {
            const struct cm_sig *cs = &map->sig[cm->sig0 + k];
            const struct vd_canmap_sig_stats *t = &cs->st;

            if (!t->out_of_range && !t->nan && !t->invalid_value && !t->clamped && !t->timeouts)
                continue;
            fprintf(f,
                    "    %s %s %s: out of range %llu, NaN %llu, invalid value %llu, clamped %llu, "
                    "timeouts %llu, recoveries %llu\n",
                    cs->s->name, cm->send ? "<-" : "->", cs->name ? cs->name : "(constant)",
                    (unsigned long long)t->out_of_range, (unsigned long long)t->nan,
                    (unsigned long long)t->invalid_value, (unsigned long long)t->clamped,
                    (unsigned long long)t->timeouts, (unsigned long long)t->recoveries);
        }
    }
}

void vd_canmap_report_json(const struct vd_canmap *map, FILE *f)
{
    struct vd_canmap_rx_stats rx;
    struct vd_canmap_tx_stats tx;

    vd_canmap_rx_stats(map, &rx);
    vd_canmap_tx_stats(map, &tx);
    fprintf(f,
            "{\"role\": \"%s\", \"rx\": {\"frames\": %llu, \"used\": %llu, \"unknown\": %llu, "
            "\"other\": %llu, \"bad_len\": %llu, \"e2e_rejected\": %llu, \"e2e\": {",
            map->role == VD_CANMAP_TARGET ? "target" : "ecu", (unsigned long long)rx.frames,
            (unsigned long long)rx.used, (unsigned long long)rx.unknown,
            (unsigned long long)rx.other, (unsigned long long)rx.bad_len,
            (unsigned long long)rx.e2e_rejected);
    for (int s = 0; s < VD_E2E_NSTATUS; s++)
        fprintf(f, "%s\"%s\": %llu", s ? ", " : "", vd_e2e_status_name((enum vd_e2e_status)s),
                (unsigned long long)rx.e2e[s]);
    fprintf(f,
            "}, \"updates\": %llu, \"out_of_range\": %llu, \"nan\": %llu, "
            "\"invalid_value\": %llu, \"timeouts\": %llu, "
            "\"recoveries\": %llu, \"timed_out\": %u, \"invalid\": %u}, ",
            (unsigned long long)rx.updates, (unsigned long long)rx.out_of_range,
            (unsigned long long)rx.nan, (unsigned long long)rx.invalid_value,
            (unsigned long long)rx.timeouts, (unsigned long long)rx.recoveries, rx.timed_out,
            rx.invalid);
    fprintf(f,
            "\"tx\": {\"frames\": %llu, \"clamped\": %llu, \"nan\": %llu, \"dropped\": %llu, "
            "\"suppressed\": %llu, \"errors\": %llu}, \"messages\": [",
            (unsigned long long)tx.frames, (unsigned long long)tx.clamped,
            (unsigned long long)tx.nan, (unsigned long long)tx.dropped,
            (unsigned long long)tx.suppressed, (unsigned long long)tx.errors);
    for (int i = 0; i < map->nmsg; i++) {
        const struct cm_msg *cm = &map->msg[i];
        const struct vd_canmap_msg_stats *s = &cm->st;

        fprintf(f,
                "%s{\"name\": \"%s\", \"id\": %u, \"ext\": %s, \"bus\": \"%s\", \"sent\": %s, "
                "\"cycle_ms\": %d, \"phase_ms\": %d, \"timeout_ms\": %lld, \"e2e\": \"%s\", "
                "\"frames\": %llu, \"used\": %llu, \"bad_len\": %llu, \"e2e_rejected\": %llu, "
                "\"dropped\": %llu, \"suppressed\": %llu, \"fault_nan\": %llu, "
                "\"fault_invalid\": %llu, \"fault_range\": %llu, \"fault_frames_nan\": %llu, "
                "\"fault_frames_range\": %llu, \"signals\": [",
                i ? ", " : "", cm->m->name, (unsigned)cm->m->id, cm->m->ext ? "true" : "false",
                map->busname[cm->bus], cm->send ? "true" : "false", cm->cycle_ms, cm->phase_ms,
                (long long)(cm->timeout_ns / NS_PER_MS), profile_name(cm->profile),
                (unsigned long long)s->frames, (unsigned long long)s->used,
                (unsigned long long)s->bad_len, (unsigned long long)s->e2e_rejected,
                (unsigned long long)s->dropped, (unsigned long long)s->suppressed,
                (unsigned long long)s->fault_nan, (unsigned long long)s->fault_invalid,
                (unsigned long long)s->fault_range, (unsigned long long)s->fault_frames_nan,
                (unsigned long long)s->fault_frames_range);
        for (int k = 0; k < cm->nsig; k++) {
            const struct cm_sig *cs = &map->sig[cm->sig0 + k];
            const struct vd_canmap_sig_stats *t = &cs->st;

            fprintf(f,
                    "%s{\"signal\": \"%s\", \"name\": \"%s\", \"updates\": %llu, "
                    "\"out_of_range\": %llu, \"nan\": %llu, \"invalid_value\": %llu, "
                    "\"clamped\": %llu, \"timeouts\": %llu, \"recoveries\": %llu}",
                    k ? ", " : "", cs->s->name, cs->name ? cs->name : "",
                    (unsigned long long)t->updates, (unsigned long long)t->out_of_range,
                    (unsigned long long)t->nan, (unsigned long long)t->invalid_value,
                    (unsigned long long)t->clamped, (unsigned long long)t->timeouts,
                    (unsigned long long)t->recoveries);
        }
        fprintf(f, "]}");
    }
    fprintf(f, "]}");
}
