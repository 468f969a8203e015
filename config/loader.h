/* config/loader.h - internal to config/: the state of one model load (the elements of each
 * section as parsed, with their names and source lines) and the readers shared by the raw
 * sections (model_yaml.c), the templates (templates.c) and scenarios. Init only. */
#ifndef VD_CONFIG_LOADER_H
#define VD_CONFIG_LOADER_H

#include <stdbool.h>
#include <stddef.h>

#include "config/model_yaml.h"
#include "config/ydoc.h"
#include "core/model.h"

#define NO_REF (-2) /* a name that did not resolve (reported): skip checks that need it */

/* the elements of one section as parsed; each element struct starts with its name */
struct elems {
    const char *what; /* "body", "marker", ... */
    void *v;          /* (n) elements */
    size_t size;      /* [bytes] one element */
    yaml_mark_t *at;  /* (n) where each was named (its name node or template entry) */
    int n, cap;
};

struct loader {
    struct vd_ydoc *y;
    struct vd_model *m; /* curves go into its pool as they are read; elements at the end */
    struct vd_source *src;
    FILE *errf; /* where the loader's caller wants diagnostics (may be NULL): .tir notes */
    struct elems body, marker, bush, p2p, input, tire, coupler, joint;
    char dir[256]; /* directory of the file being read: relative paths start here */
    struct {
        char path[512];
        int mf;    /* index in the model's tyre parameter sets (mf or tm) */
        int model; /* enum vd_tire_model */
    } tir[8];      /* .tir files read so far: each once */
    int ntir;
};

char *vd_ld_elem_name(const struct elems *e, int i);
int vd_ld_find(const struct elems *e, const char *name);
bool vd_ld_name_ok(const char *s);
/* append one zeroed element named name (checked: characters, reserved, duplicates, reported
 * at node); its index, or -EINVAL / -ENOMEM */
int vd_ld_push(struct loader *L, struct elems *e, const char *name, const yaml_node_t *node,
               const char *path);
int vd_ld_name(struct loader *L, struct elems *e, int i, const yaml_node_t *node,
               const char *parent);
int vd_ld_ref(struct loader *L, const struct elems *e, const yaml_node_t *node, const char *path);
int vd_ld_curve(struct loader *L, const yaml_node_t *node, const char *parent,
                const struct vd_ykey *k, int interp, bool stop, struct vd_curve *out);
int vd_ld_interp(struct loader *L, const yaml_node_t *node, const char *parent,
                 const struct vd_ykey *k);
int vd_ld_inertia(struct loader *L, const yaml_node_t *node, const char *parent, double I[9]);
int vd_ld_component(struct loader *L, const yaml_node_t *node, const char *parent, const char *key,
                    struct vd_curve *stiff, struct vd_curve *damp);
int vd_ld_marker_pair(struct loader *L, const yaml_node_t *node, const char *parent, int mk[2]);
/* spring, damper, bump_stop, rebound_stop mappings (any NULL) of a p2p element at path */
int vd_ld_p2p_parts(struct loader *L, const yaml_node_t *const part[4], const char *path,
                    struct vd_p2p *p);
/* a path relative to the file being read (absolute paths unchanged) */
void vd_ld_path(const struct loader *L, const char *rel, char *out, size_t size);

/* a loader for the model named name (a path: relative files are resolved against its
 * directory); 0 or -ENOMEM. The caller sets L->y to the document being read. */
int vd_ld_init(struct loader *L, const char *name);
void vd_ld_set_dir(struct loader *L, const char *name);
void vd_ld_free(struct loader *L);
/* all sections of a model document (raw and templates) into L; 0, -EINVAL, -ENOMEM */
int vd_ld_document(struct loader *L, yaml_node_t *root);
/* the solver section alone (scenarios override the vehicle's) */
int vd_ld_solver(struct loader *L, const yaml_node_t *node);
/* the road section alone (scenarios) */
int vd_ld_road(struct loader *L, const yaml_node_t *node);
/* hand everything to the builder and finalize; errors recorded at root */
int vd_ld_build(struct loader *L, const yaml_node_t *root);
/* a tyre element from a .tir file (path relative to the file being read); its index */
int vd_ld_tire(struct loader *L, const char *name, const yaml_node_t *at, const char *path,
               int marker, const char *tir, int mirror, struct vd_tire **out);
/* the tyre's `contact` value (node may be NULL: point contact), after its vertical stiffness
 * is known; 0 or -EINVAL with located errors */
int vd_ld_tire_contact(struct loader *L, const yaml_node_t *node, const char *path,
                       struct vd_tire *t);
/* the tyre's `inflation_pressure` (key k; node may be NULL: the file's); MF 6.x files only */
int vd_ld_tire_pressure(struct loader *L, const yaml_node_t *node, const char *path,
                        const struct vd_ykey *k, struct vd_tire *t);

/* templates.c: the `suspensions`, `antiroll_bars`, `steering`, `driveline` sections */
int vd_tpl_load(struct loader *L, yaml_node_t *const *sections);

#endif /* VD_CONFIG_LOADER_H */
