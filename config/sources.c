/* config/sources.c - input signals: the YAML schema of `inputs[j].signal` and its parsing
 * into a core/source.h description (evaluated by the loop in core/source.c). Init only. */
#include "config/ranges.h"
#include "sources.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define REQ VD_YK_REQUIRED

/* signal term kinds, the keys of a term mapping */
static const struct vd_ykey term_keys[] = {
    VD_YKEY("step", 0, NULL),  VD_YKEY("ramp", 0, NULL),  VD_YKEY("sine", 0, NULL),
    VD_YKEY("sweep", 0, NULL), VD_YKEY("table", 0, NULL),
};

enum { STEP_TIME, STEP_BEFORE, STEP_AFTER, STEP_N };
static const struct vd_ykey step_keys[STEP_N] = {
    [STEP_TIME] = VD_YKEY_IN("time", REQ, "s", VD_RNG_TIME),
    [STEP_BEFORE] = VD_YKEY_IN("before", 0, "N | N m", VD_RNG_FORCE), /* default 0 */
    [STEP_AFTER] = VD_YKEY_IN("after", REQ, "N | N m", VD_RNG_FORCE),
};

enum { RAMP_START, RAMP_END, RAMP_FROM, RAMP_TO, RAMP_N };
static const struct vd_ykey ramp_keys[RAMP_N] = {
    [RAMP_START] = VD_YKEY_IN("start", REQ, "s", VD_RNG_TIME),
    [RAMP_END] = VD_YKEY_IN("end", REQ, "s", VD_RNG_TIME),        /* > start */
    [RAMP_FROM] = VD_YKEY_IN("from", 0, "N | N m", VD_RNG_FORCE), /* default 0 */
    [RAMP_TO] = VD_YKEY_IN("to", REQ, "N | N m", VD_RNG_FORCE),
};

enum { SINE_AMP, SINE_FREQ, SINE_PHASE, SINE_OFFSET, SINE_START, SINE_N };
static const struct vd_ykey sine_keys[SINE_N] = {
    [SINE_AMP] = VD_YKEY_IN("amplitude", REQ, "N | N m", VD_RNG_FORCE),
    [SINE_FREQ] = VD_YKEY_IN("frequency", REQ, "Hz", VD_RNG_FREQ),
    [SINE_PHASE] = VD_YKEY_IN("phase", 0, "deg", VD_RNG_ANGLE),       /* default 0 */
    [SINE_OFFSET] = VD_YKEY_IN("offset", 0, "N | N m", VD_RNG_FORCE), /* default 0 */
    [SINE_START] = VD_YKEY_IN("start", 0, "s", VD_RNG_TIME),          /* default 0 */
};

enum { SWEEP_OFFSET, SWEEP_AMP, SWEEP_F0, SWEEP_F1, SWEEP_START, SWEEP_END, SWEEP_N };
static const struct vd_ykey sweep_keys[SWEEP_N] = {
    [SWEEP_OFFSET] = VD_YKEY_IN("offset", 0, "N | N m", VD_RNG_FORCE), /* default 0 */
    [SWEEP_AMP] = VD_YKEY_IN("amplitude", REQ, "N | N m", VD_RNG_FORCE),
    [SWEEP_F0] = VD_YKEY_IN("f0", REQ, "Hz", VD_RNG_FREQ),
    [SWEEP_F1] = VD_YKEY_IN("f1", REQ, "Hz", VD_RNG_FREQ),
    [SWEEP_START] = VD_YKEY_IN("start", REQ, "s", VD_RNG_TIME),
    [SWEEP_END] = VD_YKEY_IN("end", REQ, "s", VD_RNG_TIME), /* > start */
};

/* end > start, reported at the end node */
static void check_interval(struct vd_ydoc *y, const yaml_node_t *end_node, const char *path,
                           double start, double end)
{
    if (end_node && !(end > start))
        vd_ydoc_error(y, end_node, "%s.end: %g must be > start (%g)", path, end, start);
}

/* one term: a number or a mapping with exactly one of term_keys; appended to s */
static int add_term(struct vd_source *s, struct vd_ydoc *y, const yaml_node_t *node,
                    const char *path)
{
    const int nkind = (int)(sizeof(term_keys) / sizeof(term_keys[0]));
    yaml_node_t *kind[sizeof(term_keys) / sizeof(term_keys[0])], *v[VD_YMAP_MAX];
    struct vd_src_term g = {0};
    char sub[VD_YPATH_MAX];
    int e0 = y->nerr, which = -1, nfound = 0;

    if (node->type == YAML_SCALAR_NODE) {
        double c = 0.0;

        g.kind = VD_SRC_CONST;
        if (vd_ydoc_number(y, node, path, NULL, &c))
            return -EINVAL;
        g.p.value = c;
        return vd_source_push_term(s, &g);
    }
    if (node->type != YAML_MAPPING_NODE) {
        vd_ydoc_error(y, node, "%s: expected a number or a term {step|ramp|sine|sweep|table: ...}",
                      path);
        return -EINVAL;
    }
    if (vd_ydoc_map(y, node, path, term_keys, nkind, kind))
        return -EINVAL;
    for (int k = 0; k < nkind; k++) {
        if (kind[k]) {
            which = k;
            nfound++;
        }
    }
    if (nfound != 1) {
        vd_ydoc_error(y, node,
                      "%s: a signal term has exactly one of step, ramp, sine, sweep, table "
                      "(got %d; give a list to sum terms)",
                      path, nfound);
        return -EINVAL;
    }
    vd_ypath(sub, path, term_keys[which].key);
    switch (which) {
    case 0:
        g.kind = VD_SRC_STEP;
        vd_ydoc_map(y, kind[which], sub, step_keys, STEP_N, v);
        vd_ydoc_number(y, v[STEP_TIME], sub, &step_keys[STEP_TIME], &g.p.step.time);
        vd_ydoc_number(y, v[STEP_BEFORE], sub, &step_keys[STEP_BEFORE], &g.p.step.before);
        vd_ydoc_number(y, v[STEP_AFTER], sub, &step_keys[STEP_AFTER], &g.p.step.after);
        break;
    case 1:
        g.kind = VD_SRC_RAMP;
        vd_ydoc_map(y, kind[which], sub, ramp_keys, RAMP_N, v);
        vd_ydoc_number(y, v[RAMP_START], sub, &ramp_keys[RAMP_START], &g.p.ramp.start);
        vd_ydoc_number(y, v[RAMP_FROM], sub, &ramp_keys[RAMP_FROM], &g.p.ramp.from);
        vd_ydoc_number(y, v[RAMP_TO], sub, &ramp_keys[RAMP_TO], &g.p.ramp.to);
        if (!vd_ydoc_number(y, v[RAMP_END], sub, &ramp_keys[RAMP_END], &g.p.ramp.end))
            check_interval(y, v[RAMP_END], sub, g.p.ramp.start, g.p.ramp.end);
        break;
    case 2: {
        double phase = 0.0;

        g.kind = VD_SRC_SINE;
        vd_ydoc_map(y, kind[which], sub, sine_keys, SINE_N, v);
        vd_ydoc_number(y, v[SINE_AMP], sub, &sine_keys[SINE_AMP], &g.p.sine.amplitude);
        vd_ydoc_number(y, v[SINE_FREQ], sub, &sine_keys[SINE_FREQ], &g.p.sine.frequency);
        vd_ydoc_number(y, v[SINE_PHASE], sub, &sine_keys[SINE_PHASE], &phase);
        vd_ydoc_number(y, v[SINE_OFFSET], sub, &sine_keys[SINE_OFFSET], &g.p.sine.offset);
        vd_ydoc_number(y, v[SINE_START], sub, &sine_keys[SINE_START], &g.p.sine.start);
        g.p.sine.phase = phase * M_PI / 180.0;
        break;
    }
    case 3:
        g.kind = VD_SRC_SWEEP;
        vd_ydoc_map(y, kind[which], sub, sweep_keys, SWEEP_N, v);
        vd_ydoc_number(y, v[SWEEP_OFFSET], sub, &sweep_keys[SWEEP_OFFSET], &g.p.sweep.offset);
        vd_ydoc_number(y, v[SWEEP_AMP], sub, &sweep_keys[SWEEP_AMP], &g.p.sweep.amplitude);
        vd_ydoc_number(y, v[SWEEP_F0], sub, &sweep_keys[SWEEP_F0], &g.p.sweep.f0);
        vd_ydoc_number(y, v[SWEEP_F1], sub, &sweep_keys[SWEEP_F1], &g.p.sweep.f1);
        vd_ydoc_number(y, v[SWEEP_START], sub, &sweep_keys[SWEEP_START], &g.p.sweep.start);
        if (!vd_ydoc_number(y, v[SWEEP_END], sub, &sweep_keys[SWEEP_END], &g.p.sweep.end))
            check_interval(y, v[SWEEP_END], sub, g.p.sweep.start, g.p.sweep.end);
        break;
    default: {
        double *tx, *ty;
        int n, rc;

        g.kind = VD_SRC_TABLE;
        rc = vd_ydoc_table(y, kind[which], path, &term_keys[which], 2, &tx, &ty, &n);
        if (!rc) {
            g.p.table.n = n;
            rc = vd_source_push_points(s, tx, ty, n, &g.p.table.off);
        }
        free(tx);
        free(ty);
        if (rc)
            return rc;
        break;
    }
    }
    if (y->nerr != e0)
        return -EINVAL;
    return vd_source_push_term(s, &g);
}

int vd_cfg_sources_add(struct vd_source *s, struct vd_ydoc *y, int j, const yaml_node_t *node,
                       const char *path)
{
    int rc, n;

    if (vd_source_begin(s, j))
        return -ENOMEM;
    rc = 0;
    if (node && node->type == YAML_SEQUENCE_NODE) {
        rc = vd_ydoc_seq(y, node, path, 1, &n);
        for (int i = 0; i < n && rc != -ENOMEM; i++) {
            char ipath[VD_YPATH_MAX];
            int r;

            vd_ypath_index(ipath, path, i);
            r = add_term(s, y, vd_ydoc_item(y, node, i), ipath);
            if (!rc || r == -ENOMEM)
                rc = r;
        }
    } else if (node) {
        rc = add_term(s, y, node, path);
    }
    vd_source_end(s, j);
    return rc;
}
