/* config/ydoc.h - one parsed YAML document with compiler-style located diagnostics, and typed,
 * range-checked readers for its nodes driven by per-mapping key tables (libcyaml's schema
 * idea, without the struct offsets). Owns the libyaml document and the diagnostics it
 * collects; the source text and the name stay the caller's and must outlive the document.
 * Internal to config/, init only: allocates, prints.
 *
 * Readers report every problem as `name:LINE:COL: error: PATH: MESSAGE` against the node
 * that caused it and return 0 or -EINVAL; a NULL node means "key absent" and leaves the
 * output untouched, so callers preset defaults. Callers keep going after an error and ask
 * vd_ydoc_errors() at the end, so that independent mistakes are all reported at once. */
#ifndef VD_CONFIG_YDOC_H
#define VD_CONFIG_YDOC_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <yaml.h>

#define VD_YDOC_MAX_ERR   20  /* diagnostics kept and printed */
#define VD_YDOC_MSG_MAX   384 /* one diagnostic message */
#define VD_YPATH_MAX      160 /* key path, e.g. inputs[0].signal[1].sweep.f1 */
#define VD_YMAP_MAX       20  /* keys in one mapping table */
#define VD_YDOC_MAX_DEPTH 64  /* nested collections (no config file needs more than ~10) */
#define VD_YDOC_CONTEXT   100 /* [characters] of a long source line shown around a caret */

enum vd_ykey_flags {
    VD_YK_REQUIRED = 1u << 0, /* missing key is an error */
    VD_YK_LO_OPEN = 1u << 1,  /* numbers must be > lo (default >= lo) */
    VD_YK_HI_OPEN = 1u << 2,  /* numbers must be < hi (default <= hi) */
};

/* one key of a mapping table: the unit and valid range of the numbers read through it (every
 * element of a vector); lo = -INFINITY / hi = INFINITY mean unbounded. Numbers are always
 * required to be finite. */
struct vd_ykey {
    const char *key;
    unsigned flags;   /* enum vd_ykey_flags */
    const char *unit; /* of its numbers, for the reader of the table; NULL if not a number */
    double lo, hi;
};

/* a key without numbers or with unbounded numbers, and one with a range */
#define VD_YKEY(k, fl, u)                                                                          \
    {                                                                                              \
        (k), (fl), (u), -INFINITY, INFINITY                                                        \
    }
#define VD_YKEY_RANGE(k, fl, u, low, high)                                                         \
    {                                                                                              \
        (k), (fl), (u), (low), (high)                                                              \
    }
/* the same with the range as one argument `lo, hi` (config/ranges.h's VD_RNG_*) */
#define VD_YKEY_IN(k, fl, u, rng) VD_YKEY_RANGE_EXPAND(k, fl, u, rng)
#define VD_YKEY_RANGE_EXPAND(...) VD_YKEY_RANGE(__VA_ARGS__)

struct vd_ydiag {
    unsigned long line, col; /* 0-based, as libyaml marks */
    char msg[VD_YDOC_MSG_MAX];
};

struct vd_ydoc {
    const char *name; /* used as the path in messages */
    const char *text; /* source, not NUL-terminated */
    size_t len;       /* [bytes] */
    yaml_document_t doc;
    bool loaded;
    int nerr;                              /* errors found, may exceed the kept ones */
    struct vd_ydiag diag[VD_YDOC_MAX_ERR]; /* the first VD_YDOC_MAX_ERR found */
};

/* init-time (may allocate) */
/* a document over text[0, len); NULL on allocation failure */
struct vd_ydoc *vd_ydoc_new(const char *name, const char *text, size_t len);
void vd_ydoc_free(struct vd_ydoc *y);
/* parse the single YAML document; 0, -EINVAL (syntax error, empty, or collections nested
 * deeper than VD_YDOC_MAX_DEPTH, recorded) or -ENOMEM. Linear in the size of the text: the
 * nesting is checked on libyaml's event stream before the document is composed (libyaml's
 * scanner costs O(depth) per token, so a 100,000-deep `[[[...]]]` took a minute) */
int vd_ydoc_parse(struct vd_ydoc *y);
yaml_node_t *vd_ydoc_root(struct vd_ydoc *y);
int vd_ydoc_errors(const struct vd_ydoc *y);
/* record an error at a node, or at a mark */
void vd_ydoc_error(struct vd_ydoc *y, const yaml_node_t *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void vd_ydoc_error_mark(struct vd_ydoc *y, yaml_mark_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* print the recorded errors in source order, each with its source line and a caret (of a
 * line longer than VD_YDOC_CONTEXT characters, the VD_YDOC_CONTEXT around the column,
 * "..." where it is cut) */
void vd_ydoc_print(const struct vd_ydoc *y, FILE *f);

/* key paths: buf = parent.key (or key at the top level), buf = parent[i] */
void vd_ypath(char buf[VD_YPATH_MAX], const char *parent, const char *key);
void vd_ypath_index(char buf[VD_YPATH_MAX], const char *parent, int i);

/* check node (at path) is a mapping whose keys are all in keys[0, nkeys), none twice, all
 * VD_YK_REQUIRED ones present; vals[k] = value of keys[k] or NULL. vals is filled even when
 * an error is reported, so the caller can go on checking the values. */
int vd_ydoc_map(struct vd_ydoc *y, const yaml_node_t *node, const char *path,
                const struct vd_ykey *keys, int nkeys, yaml_node_t **vals);
/* check node is a sequence (of at least min items); *n = its length */
int vd_ydoc_seq(struct vd_ydoc *y, const yaml_node_t *node, const char *path, int min, int *n);
/* item i of a sequence node */
yaml_node_t *vd_ydoc_item(struct vd_ydoc *y, const yaml_node_t *seq, int i);

/* value readers: node is the value of key k in the mapping at parent (node NULL: absent) */
/* a finite number in k's range */
int vd_ydoc_number(struct vd_ydoc *y, const yaml_node_t *node, const char *parent,
                   const struct vd_ykey *k, double *out);
/* an integer in k's range */
int vd_ydoc_int(struct vd_ydoc *y, const yaml_node_t *node, const char *parent,
                const struct vd_ykey *k, int *out);
/* a sequence of nmin..nmax numbers, each in k's range; *n = count (may be NULL if fixed) */
int vd_ydoc_vec(struct vd_ydoc *y, const yaml_node_t *node, const char *parent,
                const struct vd_ykey *k, int nmin, int nmax, double *out, int *n);
/* a scalar of 1..size-1 bytes, copied to buf */
int vd_ydoc_string(struct vd_ydoc *y, const yaml_node_t *node, const char *parent,
                   const struct vd_ykey *k, char *buf, size_t size);
/* one of names[0, n); *out = its index */
int vd_ydoc_enum(struct vd_ydoc *y, const yaml_node_t *node, const char *parent,
                 const struct vd_ykey *k, const char *const *names, int n, int *out);
/* a table [[x, y], ...] of at least nmin points, finite, |x|, |y| <= 1e12 (k's range is not
 * applied: x and y are different quantities), x strictly increasing; *x and *y are malloc'ed
 * (free both, also after an error); errors point at the table node */
int vd_ydoc_table(struct vd_ydoc *y, const yaml_node_t *node, const char *parent,
                  const struct vd_ykey *k, int nmin, double **x, double **yv, int *n);

/* the number a scalar node spells (YAML ints and floats, 1e7, .inf, .nan), or false */
bool vd_ydoc_scalar_number(const yaml_node_t *node, double *out);

#endif /* VD_CONFIG_YDOC_H */
