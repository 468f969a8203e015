/* config/sources.h - input signals of a model file (`inputs[j].signal`): parses per input a
 * sum of terms (constant, step, ramp, sine, sweep, table) into a core/source.h description,
 * which the loop evaluates (vd_source_eval). Internal to config/. Init only: may allocate and
 * record diagnostics. */
#ifndef VD_CONFIG_SOURCES_H
#define VD_CONFIG_SOURCES_H

#include "config/model_yaml.h"
#include "config/ydoc.h"
#include "core/source.h"

/* parse the signal of input j from node (NULL: zero) at path, replacing what input j had
 * (inputs past the end are added, with zero signals in between); 0, -EINVAL (diagnostics
 * recorded in y) or -ENOMEM */
int vd_cfg_sources_add(struct vd_source *s, struct vd_ydoc *y, int j, const yaml_node_t *node,
                       const char *path);

#endif /* VD_CONFIG_SOURCES_H */
