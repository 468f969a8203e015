/* config/sources.h - input signals of a model file (`inputs[j].signal`): per input a sum of
 * terms (constant, step, ramp, sine, sweep, table) evaluated by vd_cfg_sources_eval (declared
 * in model_yaml.h). Owns the terms and the table points. Internal to config/.
 * vd_cfg_sources_new/add: init only, may allocate and record diagnostics. Eval: RT-safe. */
#ifndef VD_CONFIG_SOURCES_H
#define VD_CONFIG_SOURCES_H

#include "config/model_yaml.h"
#include "config/ydoc.h"

/* init-time (may allocate) */
/* signals for ninput inputs, all zero until added */
struct vd_cfg_sources *vd_cfg_sources_new(int ninput);
/* parse the signal of input j from node (NULL: zero) at path, replacing what input j had
 * (inputs past the end are added, with zero signals in between); 0, -EINVAL (diagnostics
 * recorded in y) or -ENOMEM */
int vd_cfg_sources_add(struct vd_cfg_sources *s, struct vd_ydoc *y, int j, const yaml_node_t *node,
                       const char *path);

/* number of inputs the signals cover */
int vd_cfg_sources_count(const struct vd_cfg_sources *s);

#endif /* VD_CONFIG_SOURCES_H */
