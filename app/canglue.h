/* app/canglue.h - a loaded mapping (config/can_map.h: the description of core/candesc.h) into a
 * map (io/canmap.h): parse each bus's DBC text, build the map from the same description. Used
 * by `rtvd run`, `rtvd ecu` and the tests. Init only (allocates, prints to errf). */
#ifndef VD_APP_CANGLUE_H
#define VD_APP_CANGLUE_H

#include <stdio.h>

#include "config/can_map.h"
#include "io/canmap.h"
#include "io/dbc.h"

/* the map of c for c's role; dbc[0, c->nbus) receive the parsed DBCs (the caller frees them
 * with vd_dbc_free after the map). NULL on error, located diagnostics on errf */
struct vd_canmap *app_canmap_build(const struct vd_candesc *c, struct vd_dbc **dbc, FILE *errf);

#endif /* VD_APP_CANGLUE_H */
