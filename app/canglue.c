/* app/canglue.c - a loaded mapping file (config/can_map.h) into the runtime map (io/canmap.h):
 * the one place where config/ and io/ meet for CAN (they may not include each other). */
#include "canglue.h"

#include <stdlib.h>

struct vd_canmap *app_canmap_build(const struct vd_cfg_canmap *c, struct vd_dbc **dbc, FILE *errf)
{
    struct vd_canmap_desc_bus *bus = calloc((size_t)c->nbus + 1, sizeof(*bus));
    struct vd_canmap_desc_msg *msg = calloc((size_t)c->nmsg + 1, sizeof(*msg));
    struct vd_canmap_desc_sig *sig = calloc((size_t)c->nsig + 1, sizeof(*sig));
    struct vd_canmap *map = NULL;
    struct vd_canmap_desc d = {
        .file = c->file,
        .timeout_factor = c->timeout_factor,
        .nbus = c->nbus,
        .bus = bus,
        .nmsg = c->nmsg,
        .msg = msg,
    };
    int ok = bus && msg && sig;

    for (int i = 0; i < c->nbus; i++)
        dbc[i] = NULL;
    for (int i = 0; ok && i < c->nbus; i++) {
        dbc[i] = vd_dbc_parse(c->bus[i].dbc_path, c->bus[i].dbc_text, c->bus[i].dbc_len, errf);
        ok = dbc[i] != NULL;
        bus[i] = (struct vd_canmap_desc_bus){c->bus[i].name, dbc[i], c->bus[i].line, c->bus[i].col};
    }
    for (int i = 0; ok && i < c->nsig; i++) {
        const struct vd_cfg_can_sig *s = &c->sig[i];

        sig[i] = (struct vd_canmap_desc_sig){
            .signal = s->signal,
            .name = s->name[0] ? s->name : NULL,
            .unit = s->has_unit ? s->unit : NULL,
            .scale = s->scale,
            .offset = s->offset,
            .has_range = s->has_range,
            .lo = s->range[0],
            .hi = s->range[1],
            .safe = s->safe,
            .safe_value = s->safe_value,
            .has_value = s->has_value,
            .value = s->value,
            .line = s->line,
            .col = s->col,
        };
    }
    for (int i = 0; ok && i < c->nmsg; i++) {
        const struct vd_cfg_can_msg *m = &c->msg[i];
        const struct vd_cfg_can_e2e *e = &m->e2e;

        msg[i] = (struct vd_canmap_desc_msg){
            .dir = m->dir,
            .bus = m->bus,
            .message = m->message[0] ? m->message : NULL,
            .id = m->id,
            .ext = m->ext,
            .cycle_ms = m->cycle_ms,
            .phase_ms = m->phase_ms,
            .timeout_ms = m->timeout_ms,
            .e2e =
                {
                    .profile = e->profile,
                    .data_id = e->data_id,
                    .p01_mode = e->mode,
                    .counter_sig = e->counter[0] ? e->counter : NULL,
                    .crc_sig = e->crc[0] ? e->crc : NULL,
                    .crc_offset = e->crc_offset,
                    .counter_offset = e->counter_offset,
                    .nibble_offset = e->nibble_offset,
                    .offset = e->offset,
                    .data_length = e->data_length,
                    .max_delta_counter = e->max_delta_counter,
                },
            .nsig = m->nsig,
            .sig = sig + m->sig0,
            .line = m->line,
            .col = m->col,
        };
        for (int k = 0; k < 16; k++)
            msg[i].e2e.data_id_list[k] = e->data_id_list[k];
    }
    if (ok)
        map = vd_canmap_new(&d, c->role, errf);
    free(bus);
    free(msg);
    free(sig);
    return map;
}
