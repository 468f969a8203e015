/* app/canglue.c - a loaded mapping (config/can_map.h fills the description, core/candesc.h)
 * into the runtime map (io/canmap.h): the DBC texts parsed, the description handed over as it
 * is. The one place where config/ and io/ meet for CAN (they may not include each other). */
#include "canglue.h"

struct vd_canmap *app_canmap_build(const struct vd_candesc *c, struct vd_dbc **dbc, FILE *errf)
{
    for (int i = 0; i < c->nbus; i++)
        dbc[i] = NULL;
    for (int i = 0; i < c->nbus; i++) {
        dbc[i] = vd_dbc_parse_opts(c->bus[i].dbc_path, c->bus[i].dbc_text, c->bus[i].dbc_len,
                                   c->strict_dbc ? VD_DBC_STRICT : 0, errf);
        if (!dbc[i])
            return NULL;
    }
    return vd_canmap_new(c, (const struct vd_dbc *const *)dbc, errf);
}
