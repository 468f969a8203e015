/* config/model_yaml.c - model schema: key tables (unit, range), semantic checks located at
 * the offending node, and the mapping onto the core model builder. */
#include "model_yaml.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/sources.h"
#include "config/ydoc.h"
#include "core/vdmath.h"

#define REQ     VD_YK_REQUIRED
#define LO_OPEN VD_YK_LO_OPEN
#define DEG     (M_PI / 180.0)

#define NO_REF (-2) /* a name that did not resolve (reported): skip checks that need it */

/* --- schema: one table per mapping; unit and valid range of each number --------------- */

enum { TOP_MODEL, TOP_SOLVER, TOP_BODIES, TOP_MARKERS, TOP_BUSHINGS, TOP_P2P, TOP_INPUTS, TOP_N };
static const struct vd_ykey top_keys[TOP_N] = {
    [TOP_MODEL] = VD_YKEY("model", 0, NULL),       /* mapping */
    [TOP_SOLVER] = VD_YKEY("solver", 0, NULL),     /* mapping */
    [TOP_BODIES] = VD_YKEY("bodies", REQ, NULL),   /* non-empty sequence */
    [TOP_MARKERS] = VD_YKEY("markers", 0, NULL),   /* sequence */
    [TOP_BUSHINGS] = VD_YKEY("bushings", 0, NULL), /* sequence */
    [TOP_P2P] = VD_YKEY("p2p", 0, NULL),           /* sequence */
    [TOP_INPUTS] = VD_YKEY("inputs", 0, NULL),     /* sequence, input j is u[j] */
};

enum { MOD_NAME, MOD_GRAVITY, MOD_N };
static const struct vd_ykey model_keys[MOD_N] = {
    [MOD_NAME] = VD_YKEY("name", 0, NULL),          /* default: file name */
    [MOD_GRAVITY] = VD_YKEY("gravity", 0, "m/s^2"), /* 3 numbers, default [0, 0, -9.81] */
};

enum { SOL_METHOD, SOL_STAGE2, SOL_DT, SOL_RELIN, SOL_LINEAR, SOL_N };
static const struct vd_ykey solver_keys[SOL_N] = {
    [SOL_METHOD] = VD_YKEY("method", 0, NULL), /* lie | lsrt2, default lsrt2 */
    [SOL_STAGE2] = VD_YKEY("stage2", 0, NULL), /* linearized | nonlinear, default linearized */
    [SOL_DT] = VD_YKEY_RANGE("dt", LO_OPEN, "s", 0.0, 0.1),          /* default 0.001 */
    [SOL_RELIN] = VD_YKEY_RANGE("relin", 0, "steps", 1.0, INFINITY), /* default 1 */
    [SOL_LINEAR] = VD_YKEY("linear", 0, NULL), /* dense | structured, default dense */
};
static const char *const method_names[] = {[VD_METHOD_LIE] = "lie", [VD_METHOD_LSRT2] = "lsrt2"};
static const char *const stage2_names[] = {
    [VD_STAGE2_LINEARIZED] = "linearized", [VD_STAGE2_NONLINEAR] = "nonlinear"};
static const char *const linear_names[] = {
    [VD_LINEAR_DENSE] = "dense", [VD_LINEAR_STRUCTURED] = "structured"};

enum {
    BODY_NAME,
    BODY_MASS,
    BODY_INERTIA,
    BODY_COM,
    BODY_POS,
    BODY_ORIENT,
    BODY_VEL,
    BODY_OMEGA,
    BODY_N
};
static const struct vd_ykey body_keys[BODY_N] = {
    [BODY_NAME] = VD_YKEY("name", REQ, NULL),
    [BODY_MASS] = VD_YKEY_RANGE("mass", REQ | LO_OPEN, "kg", 0.0, INFINITY),
    [BODY_INERTIA] = VD_YKEY("inertia", REQ, "kg m^2"), /* 3 or 6 numbers, valid tensor */
    [BODY_COM] = VD_YKEY("com", 0, "m"),
    [BODY_POS] = VD_YKEY("position", 0, "m"),
    [BODY_ORIENT] = VD_YKEY("orientation", 0, "deg"), /* |ay| < 80 */
    [BODY_VEL] = VD_YKEY("velocity", 0, "m/s"),
    [BODY_OMEGA] = VD_YKEY("angular_velocity", 0, "rad/s"),
};
#define AY_MAX_DEG 80.0 /* initial pitch limit, away from the Cardan singularity */

enum { MK_NAME, MK_BODY, MK_POS, MK_ORIENT, MK_N };
static const struct vd_ykey marker_keys[MK_N] = {
    [MK_NAME] = VD_YKEY("name", REQ, NULL),
    [MK_BODY] = VD_YKEY("body", REQ, NULL), /* a body or ground */
    [MK_POS] = VD_YKEY("position", REQ, "m"),
    [MK_ORIENT] = VD_YKEY("orientation", 0, "deg"),
};

enum { BU_NAME, BU_MARKERS, BU_TRANS, BU_ROT, BU_X, BU_Y, BU_Z, BU_RX, BU_RY, BU_RZ, BU_N };
static const struct vd_ykey bushing_keys[BU_N] = {
    [BU_NAME] = VD_YKEY("name", REQ, NULL),
    [BU_MARKERS] = VD_YKEY("markers", REQ, NULL),
    [BU_TRANS] = VD_YKEY("translational", 0, NULL), /* default of x, y, z */
    [BU_ROT] = VD_YKEY("rotational", 0, NULL),      /* default of rx, ry, rz */
    [BU_X] = VD_YKEY("x", 0, NULL),
    [BU_Y] = VD_YKEY("y", 0, NULL),
    [BU_Z] = VD_YKEY("z", 0, NULL),
    [BU_RX] = VD_YKEY("rx", 0, NULL),
    [BU_RY] = VD_YKEY("ry", 0, NULL),
    [BU_RZ] = VD_YKEY("rz", 0, NULL),
};

/* a bushing component: number (linear) or table; [N/m | N m/rad], [N s/m | N m s/rad] */
enum { COMP_STIFF, COMP_DAMP, COMP_INTERP, COMP_N };
static const struct vd_ykey comp_keys[COMP_N] = {
    [COMP_STIFF] = VD_YKEY_RANGE("stiffness", 0, "N/m | N m/rad", 0.0, INFINITY),
    [COMP_DAMP] = VD_YKEY_RANGE("damping", 0, "N s/m | N m s/rad", 0.0, INFINITY),
    [COMP_INTERP] = VD_YKEY("interp", 0, NULL), /* pchip | linear */
};
static const char *const interp_names[] = {
    [VD_INTERP_PCHIP] = "pchip", [VD_INTERP_LINEAR] = "linear"};

enum { P2P_NAME, P2P_MARKERS, P2P_SPRING, P2P_DAMPER, P2P_BUMP, P2P_REBOUND, P2P_N };
static const struct vd_ykey p2p_keys[P2P_N] = {
    [P2P_NAME] = VD_YKEY("name", REQ, NULL),          /* unique among p2p */
    [P2P_MARKERS] = VD_YKEY("markers", REQ, NULL),    /* [mi, mj], as for bushings */
    [P2P_SPRING] = VD_YKEY("spring", 0, NULL),        /* at least one of these four */
    [P2P_DAMPER] = VD_YKEY("damper", 0, NULL),        /* force > 0 = compression */
    [P2P_BUMP] = VD_YKEY("bump_stop", 0, NULL),       /* engages for L < length */
    [P2P_REBOUND] = VD_YKEY("rebound_stop", 0, NULL), /* engages for L > length */
};

enum { SPR_STIFF, SPR_FREE, SPR_PRELOAD, SPR_INTERP, SPR_N };
static const struct vd_ykey spring_keys[SPR_N] = {
    [SPR_STIFF] = VD_YKEY_RANGE("stiffness", REQ, "N/m", 0.0, INFINITY), /* or table */
    [SPR_FREE] = VD_YKEY_RANGE("free_length", REQ | LO_OPEN, "m", 0.0, INFINITY),
    [SPR_PRELOAD] = VD_YKEY("preload", 0, "N"), /* default 0 */
    [SPR_INTERP] = VD_YKEY("interp", 0, NULL),
};

enum { DMP_DAMP, DMP_INTERP, DMP_N };
static const struct vd_ykey damper_keys[DMP_N] = {
    [DMP_DAMP] = VD_YKEY_RANGE("damping", REQ, "N s/m", 0.0, INFINITY), /* or table */
    [DMP_INTERP] = VD_YKEY("interp", 0, NULL),
};

enum { STOP_LENGTH, STOP_STIFF, STOP_INTERP, STOP_N };
static const struct vd_ykey stop_keys[STOP_N] = {
    [STOP_LENGTH] = VD_YKEY_RANGE("length", REQ | LO_OPEN, "m", 0.0, INFINITY),
    [STOP_STIFF] = VD_YKEY_RANGE("stiffness", REQ, "N/m", 0.0, INFINITY), /* table from [0,0] */
    [STOP_INTERP] = VD_YKEY("interp", 0, NULL),
};

enum { IN_NAME, IN_MARKER, IN_TYPE, IN_FRAME, IN_DIR, IN_SIGNAL, IN_N };
static const struct vd_ykey input_keys[IN_N] = {
    [IN_NAME] = VD_YKEY("name", REQ, NULL),
    [IN_MARKER] = VD_YKEY("marker", REQ, NULL), /* not on ground */
    [IN_TYPE] = VD_YKEY("type", REQ, NULL),     /* force | torque */
    [IN_FRAME] = VD_YKEY("frame", 0, NULL),     /* global | marker, default global */
    [IN_DIR] = VD_YKEY("direction", REQ, "1"),  /* non-zero, normalized */
    [IN_SIGNAL] = VD_YKEY("signal", 0, "N | N m"),
};
static const char *const input_type_names[] = {
    [VD_INPUT_FORCE] = "force", [VD_INPUT_TORQUE] = "torque"};
static const char *const frame_names[] = {
    [VD_FRAME_GLOBAL] = "global", [VD_FRAME_MARKER] = "marker"};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* --- loader state ----------------------------------------------------------------------- */

/* the elements of one section as parsed; each element struct starts with its name */
struct elems {
    const char *what;    /* "body", "marker", ... */
    void *v;             /* (n) elements */
    size_t size;         /* [bytes] one element */
    unsigned long *line; /* (n) line of each name node, 0-based */
    int n;
};

struct loader {
    struct vd_ydoc *y;
    struct vd_model *m; /* curves go into its pool as they are read; elements at the end */
    struct vd_cfg_sources *src;
    struct elems body, marker, bush, p2p, input;
};

static char *elem_name(const struct elems *e, int i)
{
    return (char *)e->v + (size_t)i * e->size; /* name is the first member */
}

static int find_elem(const struct elems *e, const char *name)
{
    for (int i = 0; i < e->n; i++)
        if (!strcmp(elem_name(e, i), name))
            return i;
    return -1;
}

static bool name_chars_ok(const char *s)
{
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '.' || *s == '-'))
            return false;
    return true;
}

/* read the name of element i of e; it stays "" (matches nothing) when bad */
static int load_name(struct loader *L, struct elems *e, int i, const yaml_node_t *node,
                     const char *parent)
{
    char *dst = elem_name(e, i), buf[VD_NAME_MAX], path[VD_YPATH_MAX];
    int first;

    dst[0] = '\0';
    if (!node)
        return -EINVAL; /* missing, already reported */
    if (vd_ydoc_string(L->y, node, parent, &body_keys[BODY_NAME], buf, sizeof(buf)))
        return -EINVAL;
    vd_ypath(path, parent, "name");
    if (!name_chars_ok(buf)) {
        vd_ydoc_error(L->y, node, "%s: '%s' is not a valid name (letters, digits, _ . -)", path,
                      buf);
        return -EINVAL;
    }
    if (!strcmp(buf, "ground")) {
        vd_ydoc_error(L->y, node, "%s: 'ground' is reserved for the inertial frame", path);
        return -EINVAL;
    }
    first = find_elem(e, buf);
    if (first >= 0) {
        vd_ydoc_error(L->y, node, "%s: duplicate %s name '%s' (first at line %lu)", path, e->what,
                      buf, e->line[first] + 1);
        return -EINVAL;
    }
    strcpy(dst, buf);
    e->line[i] = node->start_mark.line;
    return 0;
}

/* a reference to an element of e by name: its index, VD_GROUND for "ground" when e holds
 * the bodies, or NO_REF after reporting */
static int load_ref(struct loader *L, const struct elems *e, const yaml_node_t *node,
                    const char *path)
{
    char buf[VD_NAME_MAX];
    int idx;

    if (!node)
        return NO_REF;
    if (vd_ydoc_string(L->y, node, path, NULL, buf, sizeof(buf)))
        return NO_REF;
    if (e == &L->body && !strcmp(buf, "ground"))
        return VD_GROUND;
    idx = find_elem(e, buf);
    if (idx < 0) {
        vd_ydoc_error(L->y, node, "%s: unknown %s '%s'", path, e->what, buf);
        return NO_REF;
    }
    return idx;
}

/* --- curves ----------------------------------------------------------------------------- */

/* stiffness or damping at key k: a number >= 0 (linear) or a table [[x, y], ...] with x
 * strictly increasing and y non-decreasing (stops: starting at [0, 0]); copied into the
 * model's curve pool */
static int load_curve(struct loader *L, const yaml_node_t *node, const char *parent,
                      const struct vd_ykey *k, int interp, bool stop, struct vd_curve *out)
{
    struct vd_curve_spec spec = {.kind = VD_CURVE_LINEAR, .interp = interp};
    char path[VD_YPATH_MAX], err[128];
    double *x = NULL, *y = NULL;
    int n = 0, rc;

    vd_ypath(path, parent, k->key);
    if (node->type == YAML_SCALAR_NODE) {
        rc = vd_ydoc_number(L->y, node, parent, k, &spec.k);
        if (rc)
            return rc;
    } else {
        rc = vd_ydoc_table(L->y, node, parent, k, 2, &x, &y, &n);
        if (rc)
            goto out_free_table;
        for (int i = 1; i < n; i++) {
            if (y[i] < y[i - 1]) {
                vd_ydoc_error(L->y, node,
                              "%s: table not monotonic: y decreases at point %d (%g after %g)",
                              path, i, y[i], y[i - 1]);
                rc = -EINVAL;
                goto out_free_table;
            }
        }
        if (stop && (x[0] != 0.0 || y[0] != 0.0)) {
            vd_ydoc_error(L->y, node,
                          "%s: a stop table starts at [0, 0] (penetration, force), got [%g, %g]",
                          path, x[0], y[0]);
            rc = -EINVAL;
            goto out_free_table;
        }
        spec.kind = VD_CURVE_TABLE;
        spec.n = n;
        spec.x = x;
        spec.y = y;
    }
    rc = vd_model_add_curve(L->m, &spec, true, out, err, sizeof(err));
    if (rc)
        vd_ydoc_error(L->y, node, "%s: %s", path, err);
out_free_table:
    free(x);
    free(y);
    return rc;
}

/* the interp key of a curve mapping, default pchip */
static int load_interp(struct loader *L, const yaml_node_t *node, const char *parent,
                       const struct vd_ykey *k)
{
    int interp = VD_INTERP_PCHIP;

    vd_ydoc_enum(L->y, node, parent, k, interp_names, COUNT(interp_names), &interp);
    return interp;
}

/* --- sections --------------------------------------------------------------------------- */

static int load_model_section(struct loader *L, const yaml_node_t *node)
{
    yaml_node_t *v[MOD_N];
    int e0 = L->y->nerr;

    if (!node)
        return 0;
    vd_ydoc_map(L->y, node, "model", model_keys, MOD_N, v);
    vd_ydoc_string(L->y, v[MOD_NAME], "model", &model_keys[MOD_NAME], L->m->name,
                   sizeof(L->m->name));
    vd_ydoc_vec(L->y, v[MOD_GRAVITY], "model", &model_keys[MOD_GRAVITY], 3, 3, L->m->gravity, NULL);
    return L->y->nerr == e0 ? 0 : -EINVAL;
}

static int load_solver_section(struct loader *L, const yaml_node_t *node)
{
    struct vd_solver_opts *o = &L->m->opt;
    yaml_node_t *v[SOL_N];
    int e0 = L->y->nerr;

    if (!node)
        return 0;
    vd_ydoc_map(L->y, node, "solver", solver_keys, SOL_N, v);
    vd_ydoc_enum(L->y, v[SOL_METHOD], "solver", &solver_keys[SOL_METHOD], method_names,
                 COUNT(method_names), &o->method);
    vd_ydoc_enum(L->y, v[SOL_STAGE2], "solver", &solver_keys[SOL_STAGE2], stage2_names,
                 COUNT(stage2_names), &o->stage2);
    vd_ydoc_number(L->y, v[SOL_DT], "solver", &solver_keys[SOL_DT], &o->dt);
    vd_ydoc_int(L->y, v[SOL_RELIN], "solver", &solver_keys[SOL_RELIN], &o->relin);
    vd_ydoc_enum(L->y, v[SOL_LINEAR], "solver", &solver_keys[SOL_LINEAR], linear_names,
                 COUNT(linear_names), &o->linear);
    return L->y->nerr == e0 ? 0 : -EINVAL;
}

/* inertia: 3 principal moments or ixx iyy izz ixy ixz iyz -> symmetric row-major tensor */
static int load_inertia(struct loader *L, const yaml_node_t *node, const char *parent, double I[9])
{
    char path[VD_YPATH_MAX];
    double in[6] = {0}, m2, m3;
    int n = 0;

    if (!node)
        return -EINVAL;
    vd_ypath(path, parent, "inertia");
    if (node->type == YAML_SEQUENCE_NODE) {
        n = (int)(node->data.sequence.items.top - node->data.sequence.items.start);
        if (n != 3 && n != 6) {
            vd_ydoc_error(L->y, node,
                          "%s: expected 3 numbers (ixx iyy izz) or 6 (ixx iyy izz ixy ixz "
                          "iyz), got %d",
                          path, n);
            return -EINVAL;
        }
    }
    if (vd_ydoc_vec(L->y, node, parent, &body_keys[BODY_INERTIA], 3, 6, in, &n))
        return -EINVAL;
    I[0] = in[0];
    I[4] = in[1];
    I[8] = in[2];
    I[1] = I[3] = in[3];
    I[2] = I[6] = in[4];
    I[5] = I[7] = in[5];
    if (vd_inertia_valid(I))
        return 0;
    /* say which condition failed: leading principal minors (Sylvester), else the triangle */
    m2 = I[0] * I[4] - I[1] * I[3];
    m3 = I[0] * (I[4] * I[8] - I[5] * I[7]) - I[1] * (I[3] * I[8] - I[5] * I[6]) +
         I[2] * (I[3] * I[7] - I[4] * I[6]);
    if (!(I[0] > 0.0 && m2 > 0.0 && m3 > 0.0))
        vd_ydoc_error(L->y, node, "%s: inertia tensor is not positive definite", path);
    else
        vd_ydoc_error(L->y, node,
                      "%s: moments violate the triangle inequality (each of ixx, iyy, izz "
                      "must be <= the sum of the other two)",
                      path);
    return -EINVAL;
}

static int load_body(struct loader *L, const yaml_node_t *node, const char *path, int i)
{
    struct vd_body *b = (struct vd_body *)L->body.v + i;
    yaml_node_t *v[BODY_N];
    double ang[3] = {0}, pos[3] = {0}, vel[3] = {0}, om[3] = {0};
    int e0 = L->y->nerr;

    vd_ydoc_map(L->y, node, path, body_keys, BODY_N, v);
    load_name(L, &L->body, i, v[BODY_NAME], path);
    vd_ydoc_number(L->y, v[BODY_MASS], path, &body_keys[BODY_MASS], &b->mass);
    load_inertia(L, v[BODY_INERTIA], path, b->inertia);
    vd_ydoc_vec(L->y, v[BODY_COM], path, &body_keys[BODY_COM], 3, 3, b->com, NULL);
    vd_ydoc_vec(L->y, v[BODY_POS], path, &body_keys[BODY_POS], 3, 3, pos, NULL);
    if (!vd_ydoc_vec(L->y, v[BODY_ORIENT], path, &body_keys[BODY_ORIENT], 3, 3, ang, NULL) &&
        !(fabs(ang[1]) < AY_MAX_DEG)) {
        char p[VD_YPATH_MAX];

        vd_ypath(p, path, "orientation");
        vd_ydoc_error(L->y, vd_ydoc_item(L->y, v[BODY_ORIENT], 1),
                      "%s[1]: ay = %g deg is too close to the Cardan singularity "
                      "(|ay| must be < %g deg)",
                      p, ang[1], AY_MAX_DEG);
    }
    vd_ydoc_vec(L->y, v[BODY_VEL], path, &body_keys[BODY_VEL], 3, 3, vel, NULL);
    vd_ydoc_vec(L->y, v[BODY_OMEGA], path, &body_keys[BODY_OMEGA], 3, 3, om, NULL);
    for (int k = 0; k < 3; k++) {
        b->pose0[k] = pos[k];
        b->pose0[3 + k] = ang[k] * DEG;
        b->vel0[k] = vel[k];
        b->vel0[3 + k] = om[k];
    }
    return L->y->nerr == e0 ? 0 : -EINVAL;
}

static int load_marker(struct loader *L, const yaml_node_t *node, const char *path, int i)
{
    struct vd_marker *mk = (struct vd_marker *)L->marker.v + i;
    yaml_node_t *v[MK_N];
    double ang[3] = {0};
    int e0 = L->y->nerr;

    mk->body = NO_REF;
    vd_ydoc_map(L->y, node, path, marker_keys, MK_N, v);
    load_name(L, &L->marker, i, v[MK_NAME], path);
    if (v[MK_BODY]) {
        char p[VD_YPATH_MAX];

        vd_ypath(p, path, "body");
        mk->body = load_ref(L, &L->body, v[MK_BODY], p);
    }
    vd_ydoc_vec(L->y, v[MK_POS], path, &marker_keys[MK_POS], 3, 3, mk->pos, NULL);
    vd_ydoc_vec(L->y, v[MK_ORIENT], path, &marker_keys[MK_ORIENT], 3, 3, ang, NULL);
    vdu_cardan_zyx(mk->rot, ang[0] * DEG, ang[1] * DEG, ang[2] * DEG);
    return L->y->nerr == e0 ? 0 : -EINVAL;
}

/* markers: [mi, mj], two distinct known markers on different bodies */
static int load_marker_pair(struct loader *L, const yaml_node_t *node, const char *parent,
                            int mk[2])
{
    char path[VD_YPATH_MAX], ipath[VD_YPATH_MAX];
    const struct vd_marker *M = L->marker.v;
    int n;

    mk[0] = mk[1] = NO_REF;
    if (!node)
        return -EINVAL;
    vd_ypath(path, parent, "markers");
    if (node->type != YAML_SEQUENCE_NODE ||
        (n = (int)(node->data.sequence.items.top - node->data.sequence.items.start)) != 2) {
        vd_ydoc_error(L->y, node, "%s: expected two marker names [mi, mj]", path);
        return -EINVAL;
    }
    for (int k = 0; k < 2; k++) {
        vd_ypath_index(ipath, path, k);
        mk[k] = load_ref(L, &L->marker, vd_ydoc_item(L->y, node, k), ipath);
    }
    if (mk[0] < 0 || mk[1] < 0)
        return -EINVAL;
    if (mk[0] == mk[1]) {
        vd_ydoc_error(L->y, node, "%s: the two markers must be distinct (both '%s')", path,
                      M[mk[0]].name);
        return -EINVAL;
    }
    if (M[mk[0]].body == NO_REF || M[mk[1]].body == NO_REF)
        return 0; /* already reported at the marker */
    if (M[mk[0]].body == VD_GROUND && M[mk[1]].body == VD_GROUND) {
        vd_ydoc_error(L->y, node, "%s: markers '%s' and '%s' are both on ground", path,
                      M[mk[0]].name, M[mk[1]].name);
        return -EINVAL;
    }
    if (M[mk[0]].body == M[mk[1]].body) {
        vd_ydoc_error(L->y, node,
                      "%s: markers '%s' and '%s' are both on body '%s' (must be on different "
                      "bodies)",
                      path, M[mk[0]].name, M[mk[1]].name, elem_name(&L->body, M[mk[0]].body));
        return -EINVAL;
    }
    return 0;
}

/* one bushing component spec {stiffness, damping, interp}; sets what it gives */
static int load_component(struct loader *L, const yaml_node_t *node, const char *parent,
                          const char *key, struct vd_curve *stiff, struct vd_curve *damp)
{
    char path[VD_YPATH_MAX];
    yaml_node_t *v[COMP_N];
    int interp, e0 = L->y->nerr;

    if (!node)
        return 0;
    vd_ypath(path, parent, key);
    vd_ydoc_map(L->y, node, path, comp_keys, COMP_N, v);
    interp = load_interp(L, v[COMP_INTERP], path, &comp_keys[COMP_INTERP]);
    if (v[COMP_STIFF])
        load_curve(L, v[COMP_STIFF], path, &comp_keys[COMP_STIFF], interp, false, stiff);
    if (v[COMP_DAMP])
        load_curve(L, v[COMP_DAMP], path, &comp_keys[COMP_DAMP], interp, false, damp);
    return L->y->nerr == e0 ? 0 : -EINVAL;
}

static int load_bushing(struct loader *L, const yaml_node_t *node, const char *path, int i)
{
    struct vd_bushing *b = (struct vd_bushing *)L->bush.v + i;
    struct vd_curve dstiff[2], ddamp[2]; /* translational, rotational defaults */
    yaml_node_t *v[BU_N];
    int e0 = L->y->nerr;

    vd_ydoc_map(L->y, node, path, bushing_keys, BU_N, v);
    load_name(L, &L->bush, i, v[BU_NAME], path);
    load_marker_pair(L, v[BU_MARKERS], path, b->mk);
    memset(dstiff, 0, sizeof(dstiff));
    memset(ddamp, 0, sizeof(ddamp));
    load_component(L, v[BU_TRANS], path, "translational", &dstiff[0], &ddamp[0]);
    load_component(L, v[BU_ROT], path, "rotational", &dstiff[1], &ddamp[1]);
    for (int k = 0; k < 6; k++) {
        b->stiff[k] = dstiff[k / 3];
        b->damp[k] = ddamp[k / 3];
        load_component(L, v[BU_X + k], path, bushing_keys[BU_X + k].key, &b->stiff[k], &b->damp[k]);
    }
    return L->y->nerr == e0 ? 0 : -EINVAL;
}

static int load_stop(struct loader *L, const yaml_node_t *node, const char *parent, const char *key,
                     double *length, struct vd_curve *c, yaml_node_t **len_node)
{
    char path[VD_YPATH_MAX];
    yaml_node_t *v[STOP_N];
    int interp, e0 = L->y->nerr;

    vd_ypath(path, parent, key);
    vd_ydoc_map(L->y, node, path, stop_keys, STOP_N, v);
    interp = load_interp(L, v[STOP_INTERP], path, &stop_keys[STOP_INTERP]);
    vd_ydoc_number(L->y, v[STOP_LENGTH], path, &stop_keys[STOP_LENGTH], length);
    if (v[STOP_STIFF])
        load_curve(L, v[STOP_STIFF], path, &stop_keys[STOP_STIFF], interp, true, c);
    *len_node = v[STOP_LENGTH];
    return L->y->nerr == e0 ? 0 : -EINVAL;
}

static int load_p2p(struct loader *L, const yaml_node_t *node, const char *path, int i)
{
    struct vd_p2p *p = (struct vd_p2p *)L->p2p.v + i;
    yaml_node_t *v[P2P_N], *w[VD_YMAP_MAX], *bump_len = NULL, *reb_len = NULL;
    char sub[VD_YPATH_MAX];
    int e0 = L->y->nerr, interp;

    vd_ydoc_map(L->y, node, path, p2p_keys, P2P_N, v);
    if (node->type == YAML_MAPPING_NODE && !v[P2P_SPRING] && !v[P2P_DAMPER] && !v[P2P_BUMP] &&
        !v[P2P_REBOUND])
        vd_ydoc_error(L->y, node,
                      "%s: needs at least one of spring, damper, bump_stop, rebound_stop", path);
    load_name(L, &L->p2p, i, v[P2P_NAME], path);
    load_marker_pair(L, v[P2P_MARKERS], path, p->mk);
    if (v[P2P_SPRING]) {
        vd_ypath(sub, path, "spring");
        p->has_spring = true;
        vd_ydoc_map(L->y, v[P2P_SPRING], sub, spring_keys, SPR_N, w);
        interp = load_interp(L, w[SPR_INTERP], sub, &spring_keys[SPR_INTERP]);
        if (w[SPR_STIFF])
            load_curve(L, w[SPR_STIFF], sub, &spring_keys[SPR_STIFF], interp, false, &p->spring);
        vd_ydoc_number(L->y, w[SPR_FREE], sub, &spring_keys[SPR_FREE], &p->free_length);
        vd_ydoc_number(L->y, w[SPR_PRELOAD], sub, &spring_keys[SPR_PRELOAD], &p->preload);
    }
    if (v[P2P_DAMPER]) {
        vd_ypath(sub, path, "damper");
        p->has_damper = true;
        vd_ydoc_map(L->y, v[P2P_DAMPER], sub, damper_keys, DMP_N, w);
        interp = load_interp(L, w[DMP_INTERP], sub, &damper_keys[DMP_INTERP]);
        if (w[DMP_DAMP])
            load_curve(L, w[DMP_DAMP], sub, &damper_keys[DMP_DAMP], interp, false, &p->damper);
    }
    if (v[P2P_BUMP]) {
        p->has_bump = true;
        load_stop(L, v[P2P_BUMP], path, "bump_stop", &p->bump_length, &p->bump, &bump_len);
    }
    if (v[P2P_REBOUND]) {
        p->has_rebound = true;
        load_stop(L, v[P2P_REBOUND], path, "rebound_stop", &p->rebound_length, &p->rebound,
                  &reb_len);
    }
    if (bump_len && reb_len && L->y->nerr == e0 && !(p->rebound_length > p->bump_length))
        vd_ydoc_error(L->y, reb_len, "%s.rebound_stop.length: %g must be > bump_stop.length (%g)",
                      path, p->rebound_length, p->bump_length);
    return L->y->nerr == e0 ? 0 : -EINVAL;
}

static int load_input(struct loader *L, const yaml_node_t *node, const char *path, int j)
{
    struct vd_input *in = (struct vd_input *)L->input.v + j;
    const struct vd_marker *M = L->marker.v;
    yaml_node_t *v[IN_N];
    char p[VD_YPATH_MAX];
    int e0 = L->y->nerr;

    in->marker = NO_REF;
    vd_ydoc_map(L->y, node, path, input_keys, IN_N, v);
    load_name(L, &L->input, j, v[IN_NAME], path);
    vd_ypath(p, path, "marker");
    in->marker = load_ref(L, &L->marker, v[IN_MARKER], p);
    if (in->marker >= 0 && M[in->marker].body == VD_GROUND)
        vd_ydoc_error(L->y, v[IN_MARKER],
                      "%s: marker '%s' is on ground (an input must act on a body)", p,
                      M[in->marker].name);
    vd_ydoc_enum(L->y, v[IN_TYPE], path, &input_keys[IN_TYPE], input_type_names,
                 COUNT(input_type_names), &in->kind);
    in->frame = VD_FRAME_GLOBAL;
    vd_ydoc_enum(L->y, v[IN_FRAME], path, &input_keys[IN_FRAME], frame_names, COUNT(frame_names),
                 &in->frame);
    if (!vd_ydoc_vec(L->y, v[IN_DIR], path, &input_keys[IN_DIR], 3, 3, in->dir, NULL) &&
        v[IN_DIR]) {
        double len = sqrt(vdu_dot3(in->dir, in->dir));

        vd_ypath(p, path, "direction");
        if (len > 0.0)
            vdu_scale3(in->dir, 1.0 / len, in->dir);
        else
            vd_ydoc_error(L->y, v[IN_DIR], "%s: direction must be non-zero", p);
    }
    vd_ypath(p, path, "signal");
    if (vd_cfg_sources_add(L->src, L->y, j, v[IN_SIGNAL], p) == -ENOMEM)
        vd_ydoc_error(L->y, node, "%s: out of memory", p);
    return L->y->nerr == e0 ? 0 : -EINVAL;
}

typedef int (*load_elem_fn)(struct loader *L, const yaml_node_t *node, const char *path, int i);

/* a sequence section: allocate its elements and load each one */
static int load_section(struct loader *L, const yaml_node_t *node, const char *key, int min,
                        struct elems *e, load_elem_fn load)
{
    int n = 0, e0 = L->y->nerr;

    if (node && vd_ydoc_seq(L->y, node, key, min, &n))
        n = 0;
    e->v = calloc((size_t)n + 1, e->size);
    e->line = calloc((size_t)n + 1, sizeof(*e->line));
    if (!e->v || !e->line) {
        vd_ydoc_error(L->y, node, "%s: out of memory", key);
        return -ENOMEM;
    }
    e->n = n;
    for (int i = 0; i < n; i++) {
        char path[VD_YPATH_MAX];

        vd_ypath_index(path, key, i);
        load(L, vd_ydoc_item(L->y, node, i), path, i);
    }
    return L->y->nerr == e0 ? 0 : -EINVAL;
}

/* hand the checked elements to the builder and finalize; errors at the document start */
static int build(struct loader *L, const yaml_node_t *root)
{
    char err[256];
    int rc = 0;

    for (int i = 0; i < L->body.n && rc >= 0; i++)
        rc = vd_model_add_body(L->m, (struct vd_body *)L->body.v + i);
    for (int i = 0; i < L->marker.n && rc >= 0; i++)
        rc = vd_model_add_marker(L->m, (struct vd_marker *)L->marker.v + i);
    for (int i = 0; i < L->bush.n && rc >= 0; i++)
        rc = vd_model_add_bushing(L->m, (struct vd_bushing *)L->bush.v + i);
    for (int i = 0; i < L->p2p.n && rc >= 0; i++)
        rc = vd_model_add_p2p(L->m, (struct vd_p2p *)L->p2p.v + i);
    for (int i = 0; i < L->input.n && rc >= 0; i++)
        rc = vd_model_add_input(L->m, (struct vd_input *)L->input.v + i);
    if (rc < 0) {
        vd_ydoc_error(L->y, root, "model builder rejected an element: %s", strerror(-rc));
        return rc;
    }
    rc = vd_model_finalize(L->m, err, sizeof(err));
    if (rc)
        vd_ydoc_error(L->y, root, "%s", err);
    return rc;
}

/* model name from a path: no directory, no extension */
static void name_from_path(char *dst, size_t size, const char *path)
{
    const char *base = strrchr(path, '/'), *dot;
    size_t n;

    base = base ? base + 1 : path;
    dot = strrchr(base, '.');
    n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    if (n >= size)
        n = size - 1;
    memcpy(dst, base, n);
    dst[n] = '\0';
}

static void free_elems(struct elems *e)
{
    free(e->v);
    free(e->line);
}

struct vd_model *vd_cfg_load_model_mem(const char *name, const char *text, size_t len,
                                       struct vd_cfg_sources **src, FILE *errf)
{
    struct loader L = {
        .body = {.what = "body", .size = sizeof(struct vd_body)},
        .marker = {.what = "marker", .size = sizeof(struct vd_marker)},
        .bush = {.what = "bushing", .size = sizeof(struct vd_bushing)},
        .p2p = {.what = "p2p", .size = sizeof(struct vd_p2p)},
        .input = {.what = "input", .size = sizeof(struct vd_input)},
    };
    yaml_node_t *root, *top[TOP_N];
    struct vd_model *m = NULL;
    int ninput = 0;

    if (src)
        *src = NULL;
    L.y = vd_ydoc_new(name, text, len);
    if (!L.y)
        goto out_nomem;
    if (vd_ydoc_parse(L.y) || !(root = vd_ydoc_root(L.y)))
        goto out_free_doc;
    L.m = vd_model_new(NULL);
    if (!L.m)
        goto out_free_doc;
    name_from_path(L.m->name, sizeof(L.m->name), name);

    /* sections in dependency order, whatever their order in the file */
    vd_ydoc_map(L.y, root, "", top_keys, TOP_N, top);
    if (top[TOP_INPUTS] && top[TOP_INPUTS]->type == YAML_SEQUENCE_NODE)
        ninput = (int)(top[TOP_INPUTS]->data.sequence.items.top -
                       top[TOP_INPUTS]->data.sequence.items.start);
    L.src = vd_cfg_sources_new(ninput);
    if (!L.src)
        goto out_free_model;
    load_model_section(&L, top[TOP_MODEL]);
    load_solver_section(&L, top[TOP_SOLVER]);
    if (load_section(&L, top[TOP_BODIES], "bodies", 1, &L.body, load_body) == -ENOMEM ||
        load_section(&L, top[TOP_MARKERS], "markers", 0, &L.marker, load_marker) == -ENOMEM ||
        load_section(&L, top[TOP_BUSHINGS], "bushings", 0, &L.bush, load_bushing) == -ENOMEM ||
        load_section(&L, top[TOP_P2P], "p2p", 0, &L.p2p, load_p2p) == -ENOMEM ||
        load_section(&L, top[TOP_INPUTS], "inputs", 0, &L.input, load_input) == -ENOMEM)
        goto out_free_elems;
    if (!vd_ydoc_errors(L.y) && !build(&L, root)) {
        m = L.m;
        L.m = NULL;
        if (src) {
            *src = L.src;
            L.src = NULL;
        }
    }

out_free_elems:
    free_elems(&L.body);
    free_elems(&L.marker);
    free_elems(&L.bush);
    free_elems(&L.p2p);
    free_elems(&L.input);
    vd_cfg_sources_free(L.src);
out_free_model:
    vd_model_free(L.m);
out_free_doc:
    if (errf && vd_ydoc_errors(L.y))
        vd_ydoc_print(L.y, errf);
    else if (errf && !m)
        fprintf(errf, "%s: error: out of memory\n", name);
    vd_ydoc_free(L.y);
    return m;

out_nomem:
    if (errf)
        fprintf(errf, "%s: error: out of memory\n", name);
    return NULL;
}

/* whole file into a malloc'ed buffer; 0 or -errno */
static int read_file(const char *path, char **text, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap), *p;
    FILE *f;
    int rc = 0;

    if (!buf)
        return -ENOMEM;
    f = fopen(path, "rb");
    if (!f) {
        rc = -errno;
        goto out_free_buf;
    }
    for (;;) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        p = realloc(buf, 2 * cap);
        if (!p) {
            rc = -ENOMEM;
            goto out_close_file;
        }
        buf = p;
        cap *= 2;
    }
    if (ferror(f))
        rc = -EIO;
out_close_file:
    fclose(f);
    if (rc)
        goto out_free_buf;
    *text = buf;
    *len = n;
    return 0;

out_free_buf:
    free(buf);
    return rc;
}

struct vd_model *vd_cfg_load_model(const char *path, struct vd_cfg_sources **src, FILE *errf)
{
    struct vd_model *m;
    char *text = NULL;
    size_t len = 0;
    int rc;

    if (src)
        *src = NULL;
    rc = read_file(path, &text, &len);
    if (rc) {
        if (errf)
            fprintf(errf, "%s: error: cannot read: %s\n", path, strerror(-rc));
        return NULL;
    }
    m = vd_cfg_load_model_mem(path, text, len, src, errf);
    free(text);
    return m;
}
