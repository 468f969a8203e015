/* config/model_yaml.c - model schema: key tables (unit, range), semantic checks located at
 * the offending node, and the mapping onto the core model builder. */
#include "model_yaml.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/ranges.h"
#include "config/sources.h"
#include "config/loader.h"
#include "config/tir.h"
#include "core/tire_env.h"
#include "config/vfs.h"
#include "config/ydoc.h"
#include "core/tire_mf.h"
#include "core/tire_tmeasy.h"
#include "config/tmeasy.h"
#include "core/vdmath.h"

#define REQ     VD_YK_REQUIRED
#define LO_OPEN VD_YK_LO_OPEN
#define DEG     (M_PI / 180.0)

/* --- schema: one table per mapping; unit and valid range of each number --------------- */

enum {
    TOP_MODEL,
    TOP_SOLVER,
    TOP_BODIES,
    TOP_MARKERS,
    TOP_BUSHINGS,
    TOP_P2P,
    TOP_INPUTS,
    TOP_TIRES,
    TOP_COUPLERS,
    TOP_JOINTS,
    TOP_ROAD,
    TOP_SUSP, /* templates (templates.c) */
    TOP_ARB,
    TOP_STEER,
    TOP_DRIVE,
    TOP_N
};
static const struct vd_ykey top_keys[TOP_N] = {
    [TOP_MODEL] = VD_YKEY("model", 0, NULL),       /* mapping */
    [TOP_SOLVER] = VD_YKEY("solver", 0, NULL),     /* mapping */
    [TOP_BODIES] = VD_YKEY("bodies", 0, NULL),     /* sequence; templates add more */
    [TOP_MARKERS] = VD_YKEY("markers", 0, NULL),   /* sequence */
    [TOP_BUSHINGS] = VD_YKEY("bushings", 0, NULL), /* sequence */
    [TOP_P2P] = VD_YKEY("p2p", 0, NULL),           /* sequence */
    [TOP_INPUTS] = VD_YKEY("inputs", 0, NULL),     /* sequence, after the templates' */
    [TOP_TIRES] = VD_YKEY("tires", 0, NULL),       /* sequence */
    [TOP_COUPLERS] = VD_YKEY("couplers", 0, NULL), /* sequence */
    [TOP_JOINTS] = VD_YKEY("joints", 0, NULL),     /* sequence: ideal joints */
    [TOP_ROAD] = VD_YKEY("road", 0, NULL),         /* mapping */
    [TOP_SUSP] = VD_YKEY("suspensions", 0, NULL),  /* sequence of templates */
    [TOP_ARB] = VD_YKEY("antiroll_bars", 0, NULL), /* sequence of templates */
    [TOP_STEER] = VD_YKEY("steering", 0, NULL),    /* mapping: one template */
    [TOP_DRIVE] = VD_YKEY("driveline", 0, NULL),   /* mapping: one template */
};

enum { MOD_NAME, MOD_GRAVITY, MOD_N };
static const struct vd_ykey model_keys[MOD_N] = {
    [MOD_NAME] = VD_YKEY("name", 0, NULL), /* default: file name */
    [MOD_GRAVITY] =
        VD_YKEY_IN("gravity", 0, "m/s^2", VD_RNG_GRAVITY), /* 3 numbers, default [0, 0, -9.81] */
};

enum {
    SOL_METHOD,
    SOL_STAGE2,
    SOL_DT,
    SOL_RELIN,
    SOL_LINEAR,
    SOL_ROOT,
    SOL_CONSTRAINTS,
    SOL_PROJECT,
    SOL_RESELECT,
    SOL_FORMULATION,
    SOL_WELD,
    SOL_N
};
static const struct vd_ykey solver_keys[SOL_N] = {
    [SOL_METHOD] = VD_YKEY("method", 0, NULL),      /* lie | lsrt2, default lsrt2 */
    [SOL_STAGE2] = VD_YKEY("stage2", 0, NULL),      /* linearized | nonlinear, default linearized */
    [SOL_DT] = VD_YKEY_IN("dt", 0, "s", VD_RNG_DT), /* default 0.001 */
    [SOL_RELIN] = VD_YKEY_RANGE("relin", 0, "steps", 1.0, 1e6), /* default 1 */
    [SOL_LINEAR] = VD_YKEY("linear", 0, NULL), /* dense | structured, default structured */
    [SOL_ROOT] = VD_YKEY("root", 0, NULL),     /* body eliminated last, default chassis / auto */
    [SOL_CONSTRAINTS] = VD_YKEY("constraints", 0, NULL), /* index2 | nullspace, default index2 */
    [SOL_PROJECT] = VD_YKEY("project", 0, NULL), /* none | positions | both, default positions */
    [SOL_RESELECT] = VD_YKEY_RANGE("reselect", 0, "-", 1e-6, 1.0), /* default 0.1 */
    [SOL_FORMULATION] = VD_YKEY("formulation", 0, NULL),           /* fa | ce | ta, default fa */
    [SOL_WELD] = VD_YKEY("weld", 0, NULL), /* ce, ta: prefix of bodies welded to the root */
};
static const char *const formulation_names[] = {
    [VD_FORM_FA] = "fa", [VD_FORM_CE] = "ce", [VD_FORM_TA] = "ta"};
static const char *const constraints_names[] = {
    [VD_CONSTRAINTS_INDEX2] = "index2", [VD_CONSTRAINTS_NULLSPACE] = "nullspace"};
static const char *const project_names[] = {
    [VD_PROJECT_NONE] = "none", [VD_PROJECT_POSITIONS] = "positions", [VD_PROJECT_BOTH] = "both"};
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
    [BODY_MASS] = VD_YKEY_IN("mass", REQ, "kg", VD_RNG_MASS),
    [BODY_INERTIA] =
        VD_YKEY_IN("inertia", REQ, "kg m^2", VD_RNG_INERTIA), /* 3 or 6 numbers, valid tensor */
    [BODY_COM] = VD_YKEY_IN("com", 0, "m", VD_RNG_LOCAL),
    [BODY_POS] = VD_YKEY_IN("position", 0, "m", VD_RNG_POS),
    [BODY_ORIENT] = VD_YKEY_IN("orientation", 0, "deg", VD_RNG_ANGLE), /* |ay| < 80 */
    [BODY_VEL] = VD_YKEY_IN("velocity", 0, "m/s", VD_RNG_SPEED),
    [BODY_OMEGA] = VD_YKEY_IN("angular_velocity", 0, "rad/s", VD_RNG_OMEGA),
};
#define AY_MAX_DEG 80.0 /* initial pitch limit, away from the Cardan singularity */

enum { MK_NAME, MK_BODY, MK_POS, MK_ORIENT, MK_N };
static const struct vd_ykey marker_keys[MK_N] = {
    [MK_NAME] = VD_YKEY("name", REQ, NULL),
    [MK_BODY] = VD_YKEY("body", REQ, NULL), /* a body or ground */
    [MK_POS] = VD_YKEY_IN("position", REQ, "m", VD_RNG_POS),
    [MK_ORIENT] = VD_YKEY_IN("orientation", 0, "deg", VD_RNG_ANGLE),
};

enum {
    BU_NAME,
    BU_MARKERS,
    BU_TRANS,
    BU_ROT,
    BU_X,
    BU_Y,
    BU_Z,
    BU_RX,
    BU_RY,
    BU_RZ,
    BU_ROTMODE,
    BU_N
};
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
    [BU_ROTMODE] = VD_YKEY("rotation", 0, NULL), /* vector (default) | cardan */
};
static const char *const rotmode_names[] = {[VD_ROT_VECTOR] = "vector", [VD_ROT_CARDAN] = "cardan"};

/* a bushing component: number (linear) or table; [N/m | N m/rad], [N s/m | N m s/rad] */
enum { COMP_STIFF, COMP_DAMP, COMP_INTERP, COMP_ACT, COMP_N };
static const struct vd_ykey comp_keys[COMP_N] = {
    [COMP_STIFF] = VD_YKEY_IN("stiffness", 0, "N/m | N m/rad", VD_RNG_STIFF),
    [COMP_DAMP] = VD_YKEY_IN("damping", 0, "N s/m | N m s/rad", VD_RNG_DAMP),
    [COMP_INTERP] = VD_YKEY("interp", 0, NULL), /* pchip | linear */
    [COMP_ACT] = VD_YKEY("actuator", 0, NULL),  /* x .. rz only: {input, mode, gain} */
};

enum { ACT_INPUT, ACT_MODE, ACT_GAIN, ACT_N };
static const struct vd_ykey act_keys[ACT_N] = {
    [ACT_INPUT] = VD_YKEY("input", REQ, NULL), /* an input of type actuator */
    [ACT_MODE] = VD_YKEY("mode", REQ, NULL),   /* force | servo | friction */
    [ACT_GAIN] = VD_YKEY_IN("gain", 0, "per unit of u", VD_RNG_GAIN), /* default 1 */
};
static const char *const act_names[] = {[VD_ACT_NONE] = "none",
                                        [VD_ACT_FORCE] = "force",
                                        [VD_ACT_SERVO] = "servo",
                                        [VD_ACT_FRICTION] = "friction"};
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

enum { JT_NAME, JT_TYPE, JT_MARKERS, JT_LENGTH, JT_COORD, JT_INPUT, JT_GAIN, JT_OFFSET, JT_N };
static const struct vd_ykey joint_keys[JT_N] = {
    [JT_NAME] = VD_YKEY("name", REQ, NULL),       /* unique among joints */
    [JT_TYPE] = VD_YKEY("type", REQ, NULL),       /* spherical | revolute | ... (joint_types) */
    [JT_MARKERS] = VD_YKEY("markers", REQ, NULL), /* [mi, mj]: mi on body 1, mj on body 2 */
    [JT_LENGTH] = VD_YKEY_IN("length", 0, "m", VD_RNG_LENGTH), /* distance: default |pi - pj| */
    [JT_COORD] = VD_YKEY("coordinate", 0, NULL),               /* driven: translation | rotation */
    [JT_INPUT] = VD_YKEY("input", 0, NULL),                    /* driven: an actuator input */
    [JT_GAIN] = VD_YKEY_IN("gain", 0, "m or rad per unit of u", VD_RNG_GAIN), /* default 1 */
    [JT_OFFSET] = VD_YKEY_IN("offset", 0, "m or rad", VD_RNG_LOCAL),          /* default 0 */
};
static const char *const joint_types[] = {"spherical",   "revolute",  "universal",
                                          "cylindrical", "prismatic", "fixed",
                                          "distance",    "driven",    "orientation"};
static const char *const joint_coords[] = {"translation", "rotation"};

enum { SPR_STIFF, SPR_FREE, SPR_PRELOAD, SPR_INTERP, SPR_N };
static const struct vd_ykey spring_keys[SPR_N] = {
    [SPR_STIFF] = VD_YKEY_IN("stiffness", REQ, "N/m", VD_RNG_STIFF), /* or table */
    [SPR_FREE] = VD_YKEY_IN("free_length", REQ, "m", VD_RNG_LENGTH),
    [SPR_PRELOAD] = VD_YKEY_IN("preload", 0, "N", VD_RNG_FORCE), /* default 0 */
    [SPR_INTERP] = VD_YKEY("interp", 0, NULL),
};

enum { DMP_DAMP, DMP_INTERP, DMP_N };
static const struct vd_ykey damper_keys[DMP_N] = {
    [DMP_DAMP] = VD_YKEY_IN("damping", REQ, "N s/m", VD_RNG_DAMP), /* or table */
    [DMP_INTERP] = VD_YKEY("interp", 0, NULL),
};

enum { STOP_LENGTH, STOP_STIFF, STOP_INTERP, STOP_N };
static const struct vd_ykey stop_keys[STOP_N] = {
    [STOP_LENGTH] = VD_YKEY_IN("length", REQ, "m", VD_RNG_LENGTH),
    [STOP_STIFF] = VD_YKEY_IN("stiffness", REQ, "N/m", VD_RNG_STIFF), /* table from [0,0] */
    [STOP_INTERP] = VD_YKEY("interp", 0, NULL),
};

enum { IN_NAME, IN_MARKER, IN_TYPE, IN_FRAME, IN_DIR, IN_SIGNAL, IN_N };
static const struct vd_ykey input_keys[IN_N] = {
    [IN_NAME] = VD_YKEY("name", REQ, NULL),
    [IN_MARKER] = VD_YKEY("marker", 0, NULL), /* force/torque: required, not on ground */
    [IN_TYPE] = VD_YKEY("type", REQ, NULL),   /* force | torque | actuator */
    [IN_FRAME] = VD_YKEY("frame", 0, NULL),   /* global | marker, default global */
    [IN_DIR] =
        VD_YKEY_RANGE("direction", 0, "-", -1e3, 1e3), /* force/torque: required, normalized */
    [IN_SIGNAL] = VD_YKEY("signal", 0, "N | N m"),
};
static const char *const input_type_names[] = {
    [VD_INPUT_FORCE] = "force", [VD_INPUT_TORQUE] = "torque", [VD_INPUT_ACTUATOR] = "actuator"};
static const char *const frame_names[] = {
    [VD_FRAME_GLOBAL] = "global", [VD_FRAME_MARKER] = "marker"};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* --- loader state ----------------------------------------------------------------------- */

char *vd_ld_elem_name(const struct elems *e, int i)
{
    return (char *)e->v + (size_t)i * e->size; /* name is the first member */
}

int vd_ld_find(const struct elems *e, const char *name)
{
    for (int i = 0; i < e->n; i++)
        if (!strcmp(vd_ld_elem_name(e, i), name))
            return i;
    return -1;
}

bool vd_ld_name_ok(const char *s)
{
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '.' || *s == '-'))
            return false;
    return true;
}

/* read the name of element i of e; it stays "" (matches nothing) when bad */
int vd_ld_name(struct loader *L, struct elems *e, int i, const yaml_node_t *node,
               const char *parent)
{
    char *dst = vd_ld_elem_name(e, i), buf[VD_NAME_MAX], path[VD_YPATH_MAX];
    int first;

    dst[0] = '\0';
    if (!node)
        return -EINVAL; /* missing, already reported */
    if (vd_ydoc_string(L->y, node, parent, &body_keys[BODY_NAME], buf, sizeof(buf)))
        return -EINVAL;
    vd_ypath(path, parent, "name");
    if (!vd_ld_name_ok(buf)) {
        vd_ydoc_error(L->y, node, "%s: '%s' is not a valid name (letters, digits, _ . -)", path,
                      buf);
        return -EINVAL;
    }
    if (!strcmp(buf, "ground")) {
        vd_ydoc_error(L->y, node, "%s: 'ground' is reserved for the inertial frame", path);
        return -EINVAL;
    }
    first = vd_ld_find(e, buf);
    if (first >= 0) {
        vd_ydoc_error(L->y, node, "%s: duplicate %s name '%s' (first at line %lu)", path, e->what,
                      buf, e->at[first].line + 1);
        return -EINVAL;
    }
    strcpy(dst, buf);
    e->at[i] = node->start_mark;
    return 0;
}

/* a reference to an element of e by name: its index, VD_GROUND for "ground" when e holds
 * the bodies, or NO_REF after reporting */
int vd_ld_ref(struct loader *L, const struct elems *e, const yaml_node_t *node, const char *path)
{
    char buf[VD_NAME_MAX];
    int idx;

    if (!node)
        return NO_REF;
    if (vd_ydoc_string(L->y, node, path, NULL, buf, sizeof(buf)))
        return NO_REF;
    if (e == &L->body && !strcmp(buf, "ground"))
        return VD_GROUND;
    idx = vd_ld_find(e, buf);
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
int vd_ld_curve(struct loader *L, const yaml_node_t *node, const char *parent,
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
int vd_ld_interp(struct loader *L, const yaml_node_t *node, const char *parent,
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

int vd_ld_solver(struct loader *L, const yaml_node_t *node)
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
    vd_ydoc_string(L->y, v[SOL_ROOT], "solver", &solver_keys[SOL_ROOT], o->root, sizeof(o->root));
    vd_ydoc_enum(L->y, v[SOL_CONSTRAINTS], "solver", &solver_keys[SOL_CONSTRAINTS],
                 constraints_names, COUNT(constraints_names), &o->constraints);
    vd_ydoc_enum(L->y, v[SOL_PROJECT], "solver", &solver_keys[SOL_PROJECT], project_names,
                 COUNT(project_names), &o->project);
    vd_ydoc_number(L->y, v[SOL_RESELECT], "solver", &solver_keys[SOL_RESELECT], &o->reselect);
    vd_ydoc_enum(L->y, v[SOL_FORMULATION], "solver", &solver_keys[SOL_FORMULATION],
                 formulation_names, COUNT(formulation_names), &o->formulation);
    vd_ydoc_string(L->y, v[SOL_WELD], "solver", &solver_keys[SOL_WELD], o->weld, sizeof(o->weld));
    return L->y->nerr == e0 ? 0 : -EINVAL;
}

/* inertia: 3 principal moments or ixx iyy izz ixy ixz iyz -> symmetric row-major tensor */
int vd_ld_inertia(struct loader *L, const yaml_node_t *node, const char *parent, double I[9])
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
    /* principal moments of a real part: a denormal or tiny moment is a typing error */
    for (int k = 0; k < 3; k++)
        if (!(I[4 * k] >= VD_RNG_INERTIA_MIN)) {
            vd_ydoc_error(L->y, vd_ydoc_item(L->y, node, k), "%s[%d]: %g must be >= %g kg m^2",
                          path, k, I[4 * k], VD_RNG_INERTIA_MIN);
            return -EINVAL;
        }
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
    vd_ld_name(L, &L->body, i, v[BODY_NAME], path);
    vd_ydoc_number(L->y, v[BODY_MASS], path, &body_keys[BODY_MASS], &b->mass);
    vd_ld_inertia(L, v[BODY_INERTIA], path, b->inertia);
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
    vd_ld_name(L, &L->marker, i, v[MK_NAME], path);
    if (v[MK_BODY]) {
        char p[VD_YPATH_MAX];

        vd_ypath(p, path, "body");
        mk->body = vd_ld_ref(L, &L->body, v[MK_BODY], p);
    }
    vd_ydoc_vec(L->y, v[MK_POS], path, &marker_keys[MK_POS], 3, 3, mk->pos, NULL);
    vd_ydoc_vec(L->y, v[MK_ORIENT], path, &marker_keys[MK_ORIENT], 3, 3, ang, NULL);
    vdu_cardan_zyx(mk->rot, ang[0] * DEG, ang[1] * DEG, ang[2] * DEG);
    return L->y->nerr == e0 ? 0 : -EINVAL;
}

/* markers: [mi, mj], two distinct known markers on different bodies */
int vd_ld_marker_pair(struct loader *L, const yaml_node_t *node, const char *parent, int mk[2])
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
        mk[k] = vd_ld_ref(L, &L->marker, vd_ydoc_item(L->y, node, k), ipath);
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
                      path, M[mk[0]].name, M[mk[1]].name, vd_ld_elem_name(&L->body, M[mk[0]].body));
        return -EINVAL;
    }
    return 0;
}

/* one bushing component spec {stiffness, damping, interp}; sets what it gives */
static int load_component_act(struct loader *L, const yaml_node_t *node, const char *parent,
                              const char *key, struct vd_curve *stiff, struct vd_curve *damp,
                              struct vd_bushing *b, int c);

/* the actuator of a bushing component: {input (an actuator input), mode, gain} */
static int load_actuator(struct loader *L, const yaml_node_t *node, const char *parent,
                         struct vd_bushing *b, int c)
{
    char path[VD_YPATH_MAX], p[VD_YPATH_MAX];
    yaml_node_t *v[ACT_N];
    int e0 = L->y->nerr, in;

    vd_ypath(path, parent, "actuator");
    vd_ydoc_map(L->y, node, path, act_keys, ACT_N, v);
    vd_ypath(p, path, "input");
    in = vd_ld_ref(L, &L->input, v[ACT_INPUT], p);
    if (in >= 0 && ((struct vd_input *)L->input.v)[in].kind != VD_INPUT_ACTUATOR)
        vd_ydoc_error(L->y, v[ACT_INPUT], "%s: input '%s' is not of type actuator", p,
                      vd_ld_elem_name(&L->input, in));
    b->act_input[c] = in;
    b->act[c] = VD_ACT_NONE;
    vd_ydoc_enum(L->y, v[ACT_MODE], path, &act_keys[ACT_MODE], act_names, COUNT(act_names),
                 &b->act[c]);
    b->act_gain[c] = 1.0;
    vd_ydoc_number(L->y, v[ACT_GAIN], path, &act_keys[ACT_GAIN], &b->act_gain[c]);
    return L->y->nerr == e0 ? 0 : -EINVAL;
}

int vd_ld_component(struct loader *L, const yaml_node_t *node, const char *parent, const char *key,
                    struct vd_curve *stiff, struct vd_curve *damp)
{
    return load_component_act(L, node, parent, key, stiff, damp, NULL, 0);
}

/* with b != NULL the component may carry an actuator (component c of b) */
static int load_component_act(struct loader *L, const yaml_node_t *node, const char *parent,
                              const char *key, struct vd_curve *stiff, struct vd_curve *damp,
                              struct vd_bushing *b, int c)
{
    char path[VD_YPATH_MAX];
    yaml_node_t *v[COMP_N];
    int interp, e0 = L->y->nerr;

    if (!node)
        return 0;
    vd_ypath(path, parent, key);
    vd_ydoc_map(L->y, node, path, comp_keys, COMP_N, v);
    interp = vd_ld_interp(L, v[COMP_INTERP], path, &comp_keys[COMP_INTERP]);
    if (v[COMP_STIFF])
        vd_ld_curve(L, v[COMP_STIFF], path, &comp_keys[COMP_STIFF], interp, false, stiff);
    if (v[COMP_DAMP])
        vd_ld_curve(L, v[COMP_DAMP], path, &comp_keys[COMP_DAMP], interp, false, damp);
    if (v[COMP_ACT] && !b)
        vd_ydoc_error(L->y, v[COMP_ACT],
                      "%s.actuator: actuators belong to one component (x, y, z, rx, ry, rz)", path);
    else if (v[COMP_ACT])
        load_actuator(L, v[COMP_ACT], path, b, c);
    return L->y->nerr == e0 ? 0 : -EINVAL;
}

static int load_bushing(struct loader *L, const yaml_node_t *node, const char *path, int i)
{
    struct vd_bushing *b = (struct vd_bushing *)L->bush.v + i;
    struct vd_curve dstiff[2], ddamp[2]; /* translational, rotational defaults */
    yaml_node_t *v[BU_N];
    int e0 = L->y->nerr;

    vd_ydoc_map(L->y, node, path, bushing_keys, BU_N, v);
    vd_ld_name(L, &L->bush, i, v[BU_NAME], path);
    vd_ld_marker_pair(L, v[BU_MARKERS], path, b->mk);
    memset(dstiff, 0, sizeof(dstiff));
    memset(ddamp, 0, sizeof(ddamp));
    vd_ld_component(L, v[BU_TRANS], path, "translational", &dstiff[0], &ddamp[0]);
    vd_ld_component(L, v[BU_ROT], path, "rotational", &dstiff[1], &ddamp[1]);
    for (int k = 0; k < 6; k++) {
        b->stiff[k] = dstiff[k / 3];
        b->damp[k] = ddamp[k / 3];
        load_component_act(L, v[BU_X + k], path, bushing_keys[BU_X + k].key, &b->stiff[k],
                           &b->damp[k], b, k);
        if (b->act[k] == VD_ACT_FRICTION && b->stiff[k].kind != VD_CURVE_LINEAR)
            vd_ydoc_error(L->y, v[BU_X + k],
                          "%s.%s: a friction actuator needs a linear (number) stiffness: the "
                          "sticking spring",
                          path, bushing_keys[BU_X + k].key);
    }
    b->rot_mode = VD_ROT_VECTOR;
    vd_ydoc_enum(L->y, v[BU_ROTMODE], path, &bushing_keys[BU_ROTMODE], rotmode_names,
                 COUNT(rotmode_names), &b->rot_mode);
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
    interp = vd_ld_interp(L, v[STOP_INTERP], path, &stop_keys[STOP_INTERP]);
    vd_ydoc_number(L->y, v[STOP_LENGTH], path, &stop_keys[STOP_LENGTH], length);
    if (v[STOP_STIFF])
        vd_ld_curve(L, v[STOP_STIFF], path, &stop_keys[STOP_STIFF], interp, true, c);
    *len_node = v[STOP_LENGTH];
    return L->y->nerr == e0 ? 0 : -EINVAL;
}

int vd_ld_p2p_parts(struct loader *L, const yaml_node_t *const part[4], const char *path,
                    struct vd_p2p *p)
{
    yaml_node_t *w[VD_YMAP_MAX], *bump_len = NULL, *reb_len = NULL;
    char sub[VD_YPATH_MAX];
    int e0 = L->y->nerr, interp;

    if (part[0]) {
        vd_ypath(sub, path, "spring");
        p->has_spring = true;
        vd_ydoc_map(L->y, part[0], sub, spring_keys, SPR_N, w);
        interp = vd_ld_interp(L, w[SPR_INTERP], sub, &spring_keys[SPR_INTERP]);
        if (w[SPR_STIFF])
            vd_ld_curve(L, w[SPR_STIFF], sub, &spring_keys[SPR_STIFF], interp, false, &p->spring);
        vd_ydoc_number(L->y, w[SPR_FREE], sub, &spring_keys[SPR_FREE], &p->free_length);
        vd_ydoc_number(L->y, w[SPR_PRELOAD], sub, &spring_keys[SPR_PRELOAD], &p->preload);
    }
    if (part[1]) {
        vd_ypath(sub, path, "damper");
        p->has_damper = true;
        vd_ydoc_map(L->y, part[1], sub, damper_keys, DMP_N, w);
        interp = vd_ld_interp(L, w[DMP_INTERP], sub, &damper_keys[DMP_INTERP]);
        if (w[DMP_DAMP])
            vd_ld_curve(L, w[DMP_DAMP], sub, &damper_keys[DMP_DAMP], interp, false, &p->damper);
    }
    if (part[2]) {
        p->has_bump = true;
        load_stop(L, part[2], path, "bump_stop", &p->bump_length, &p->bump, &bump_len);
    }
    if (part[3]) {
        p->has_rebound = true;
        load_stop(L, part[3], path, "rebound_stop", &p->rebound_length, &p->rebound, &reb_len);
    }
    if (bump_len && reb_len && L->y->nerr == e0 && !(p->rebound_length > p->bump_length))
        vd_ydoc_error(L->y, reb_len, "%s.rebound_stop.length: %g must be > bump_stop.length (%g)",
                      path, p->rebound_length, p->bump_length);
    return L->y->nerr == e0 ? 0 : -EINVAL;
}

static int load_p2p(struct loader *L, const yaml_node_t *node, const char *path, int i)
{
    struct vd_p2p *p = (struct vd_p2p *)L->p2p.v + i;
    yaml_node_t *v[P2P_N];
    int e0 = L->y->nerr;

    vd_ydoc_map(L->y, node, path, p2p_keys, P2P_N, v);
    if (node->type == YAML_MAPPING_NODE && !v[P2P_SPRING] && !v[P2P_DAMPER] && !v[P2P_BUMP] &&
        !v[P2P_REBOUND])
        vd_ydoc_error(L->y, node,
                      "%s: needs at least one of spring, damper, bump_stop, rebound_stop", path);
    vd_ld_name(L, &L->p2p, i, v[P2P_NAME], path);
    vd_ld_marker_pair(L, v[P2P_MARKERS], path, p->mk);
    vd_ld_p2p_parts(L, (const yaml_node_t *const *)&v[P2P_SPRING], path, p);
    return L->y->nerr == e0 ? 0 : -EINVAL;
}

static int load_joint(struct loader *L, const yaml_node_t *node, const char *path, int i)
{
    struct vd_joint *jt = (struct vd_joint *)L->joint.v + i;
    const struct vd_input *In = L->input.v;
    yaml_node_t *v[JT_N];
    char p[VD_YPATH_MAX];
    int e0 = L->y->nerr, type = -1, coord = -1;

    vd_ydoc_map(L->y, node, path, joint_keys, JT_N, v);
    vd_ld_name(L, &L->joint, i, v[JT_NAME], path);
    vd_ld_marker_pair(L, v[JT_MARKERS], path, jt->mk);
    vd_ydoc_enum(L->y, v[JT_TYPE], path, &joint_keys[JT_TYPE], joint_types, COUNT(joint_types),
                 &type);
    if (type == COUNT(joint_types) - 1)
        type = VD_JOINT_ORIENTATION; /* after the two driven types of the enum */
    jt->type = type;
    jt->input = -1;
    jt->gain = 1.0;
    jt->length = 0.0; /* distance: the initial distance (vd_model_finalize) */
    if (type == VD_JOINT_DRIVEN_TRANSLATION) { /* "driven": which coordinate */
        if (!v[JT_COORD])
            vd_ydoc_error(L->y, node, "missing required key 'coordinate' in %s (a driven joint)",
                          path);
        vd_ydoc_enum(L->y, v[JT_COORD], path, &joint_keys[JT_COORD], joint_coords,
                     COUNT(joint_coords), &coord);
        if (coord == 1)
            jt->type = VD_JOINT_DRIVEN_ROTATION;
        vd_ypath(p, path, "input");
        if (v[JT_INPUT]) {
            jt->input = vd_ld_ref(L, &L->input, v[JT_INPUT], p);
            if (jt->input >= 0 && In[jt->input].kind != VD_INPUT_ACTUATOR)
                vd_ydoc_error(L->y, v[JT_INPUT], "%s: input '%s' is not of type actuator", p,
                              In[jt->input].name);
        }
        vd_ydoc_number(L->y, v[JT_GAIN], path, &joint_keys[JT_GAIN], &jt->gain);
        vd_ydoc_number(L->y, v[JT_OFFSET], path, &joint_keys[JT_OFFSET], &jt->offset);
    } else if (v[JT_COORD] || v[JT_INPUT] || v[JT_GAIN] || v[JT_OFFSET]) {
        const yaml_node_t *at = v[JT_COORD]   ? v[JT_COORD]
                                : v[JT_INPUT] ? v[JT_INPUT]
                                : v[JT_GAIN]  ? v[JT_GAIN]
                                              : v[JT_OFFSET];

        vd_ydoc_error(L->y, at, "%s: coordinate, input, gain and offset belong to a driven joint",
                      path);
    }
    if (type == VD_JOINT_DISTANCE)
        vd_ydoc_number(L->y, v[JT_LENGTH], path, &joint_keys[JT_LENGTH], &jt->length);
    else if (v[JT_LENGTH])
        vd_ydoc_error(L->y, v[JT_LENGTH], "%s: length belongs to a distance joint", path);
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
    vd_ld_name(L, &L->input, j, v[IN_NAME], path);
    in->kind = VD_INPUT_FORCE;
    vd_ydoc_enum(L->y, v[IN_TYPE], path, &input_keys[IN_TYPE], input_type_names,
                 COUNT(input_type_names), &in->kind);
    if (in->kind == VD_INPUT_ACTUATOR) {
        /* drives bushing components: no marker, no direction */
        in->marker = -1;
        if (v[IN_MARKER] || v[IN_DIR] || v[IN_FRAME])
            vd_ydoc_error(L->y, v[IN_MARKER] ? v[IN_MARKER] : (v[IN_DIR] ? v[IN_DIR] : v[IN_FRAME]),
                          "%s: an actuator input has no marker, frame or direction (bushing "
                          "components refer to it)",
                          path);
    } else {
        vd_ypath(p, path, "marker");
        if (!v[IN_MARKER])
            vd_ydoc_error(L->y, node, "missing required key 'marker' in %s", path);
        in->marker = vd_ld_ref(L, &L->marker, v[IN_MARKER], p);
        if (in->marker >= 0 && M[in->marker].body == VD_GROUND)
            vd_ydoc_error(L->y, v[IN_MARKER],
                          "%s: marker '%s' is on ground (an input must act on a body)", p,
                          M[in->marker].name);
        in->frame = VD_FRAME_GLOBAL;
        vd_ydoc_enum(L->y, v[IN_FRAME], path, &input_keys[IN_FRAME], frame_names,
                     COUNT(frame_names), &in->frame);
        if (!v[IN_DIR])
            vd_ydoc_error(L->y, node, "missing required key 'direction' in %s", path);
        if (!vd_ydoc_vec(L->y, v[IN_DIR], path, &input_keys[IN_DIR], 3, 3, in->dir, NULL) &&
            v[IN_DIR]) {
            double len = sqrt(vdu_dot3(in->dir, in->dir));

            vd_ypath(p, path, "direction");
            if (len > 0.0)
                vdu_scale3(in->dir, 1.0 / len, in->dir);
            else
                vd_ydoc_error(L->y, v[IN_DIR], "%s: direction must be non-zero", p);
        }
    }
    vd_ypath(p, path, "signal");
    if (vd_cfg_sources_add(L->src, L->y, j, v[IN_SIGNAL], p) == -ENOMEM)
        vd_ydoc_error(L->y, node, "%s: out of memory", p);
    return L->y->nerr == e0 ? 0 : -EINVAL;
}

/* --- tyres, couplers, road ------------------------------------------------------------ */

enum {
    TY_NAME,
    TY_MARKER,
    TY_TIR,
    TY_MIRROR,
    TY_KZ,
    TY_CZ,
    TY_CLOW,
    TY_VLOW,
    TY_CONTACT,
    TY_PRESS,
    TY_N
};
static const struct vd_ykey tire_keys[TY_N] = {
    [TY_NAME] = VD_YKEY("name", REQ, NULL),
    [TY_MARKER] = VD_YKEY("marker", REQ, NULL), /* wheel centre, x axis = spin axis (left) */
    [TY_TIR] = VD_YKEY("tir", REQ, NULL),     /* .tir file (MF), or Chrono TMeasy .json; relative */
    [TY_MIRROR] = VD_YKEY("mirror", 0, NULL), /* true | false (default false) */
    [TY_KZ] = VD_YKEY_IN("vertical_stiffness", LO_OPEN, "N/m", VD_RNG_STIFF), /* .tir */
    [TY_CZ] = VD_YKEY_IN("vertical_damping", 0, "N s/m", VD_RNG_DAMP),        /* .tir */
    [TY_CLOW] = VD_YKEY_IN("low_speed_damping", 0, "N s/m", VD_RNG_DAMP),     /* 3000 */
    [TY_VLOW] = VD_YKEY_RANGE("low_speed", LO_OPEN, "m/s", 0.0, 200.0),       /* 1.0 */
    [TY_CONTACT] = VD_YKEY("contact", 0, NULL), /* point | {type: envelope, ...} */
    /* MF 6.x inflation pressure; default the file's INFLPRES */
    [TY_PRESS] = VD_YKEY_RANGE("inflation_pressure", LO_OPEN, "Pa", 1e4, 1e6),
};

int vd_ld_tire_pressure(struct loader *L, const yaml_node_t *node, const char *path,
                        const struct vd_ykey *k, struct vd_tire *t)
{
    const int e0 = L->y->nerr;

    if (!node)
        return 0;
    if (vd_ydoc_number(L->y, node, path, k, &t->pressure))
        return -EINVAL;
    if (t->model != VD_TIRE_MF || L->m->mf[t->mf].fittyp < 61)
        vd_ydoc_error(L->y, node,
                      "%s.%s: the tyre file is MF 5.2 or TMeasy, which have no pressure terms "
                      "(MF 6.1 / 6.2 files have)",
                      path, k->key);
    return L->y->nerr == e0 ? 0 : -EINVAL;
}

/* road contact of a tyre (core/tire_env.h): `point` (default) or a mapping; the defaults of
 * the ellipse factors and the contact length are those of the MF-Swift 6.1 example set
 * (shared/data/tires/suv_255_55R20_mf61_example.json: ELLIPS_*, Q_RA1/2, ROAD_INCREMENT) */
enum { CT_TYPE, CT_LEN, CT_HGT, CT_ORD, CT_SHIFT, CT_DS, CT_QRA1, CT_QRA2, CT_N };
static const struct vd_ykey contact_keys[CT_N] = {
    [CT_TYPE] = VD_YKEY("type", REQ, NULL),                            /* point | envelope */
    [CT_LEN] = VD_YKEY_RANGE("length", LO_OPEN, "-", 0.0, 2.0),        /* ae / R0: 1.0 */
    [CT_HGT] = VD_YKEY_RANGE("height", LO_OPEN, "-", 0.0, 2.0),        /* be / R0: 1.0 */
    [CT_ORD] = VD_YKEY_RANGE("order", LO_OPEN, "-", 1.0, 10.0),        /* ce: 1.8 */
    [CT_SHIFT] = VD_YKEY_RANGE("shift", 0, "-", 0.0, 2.0),             /* ls / a: 0.8 */
    [CT_DS] = VD_YKEY_RANGE("road_increment", LO_OPEN, "m", 0.0, 0.1), /* 0.01 */
    [CT_QRA1] = VD_YKEY_RANGE("q_ra1", 0, "-", 0.0, 10.0),             /* 0.60147 */
    [CT_QRA2] = VD_YKEY_RANGE("q_ra2", 0, "-", 0.0, 10.0),             /* 0.81974 */
};
static const char *const contact_names[] = {"point", "envelope"};

int vd_ld_tire_contact(struct loader *L, const yaml_node_t *node, const char *path,
                       struct vd_tire *t)
{
    yaml_node_t *v[CT_N];
    char p[VD_YPATH_MAX], err[160];
    double f[CT_N] = {0.0, 1.0, 1.0, 1.8, 0.8, 0.01, 0.60147, 0.81974};
    int e0 = L->y->nerr, type = 0;

    t->env.on = 0;
    if (!node)
        return 0;
    vd_ypath(p, path, "contact");
    if (node->type == YAML_SCALAR_NODE) {
        static const struct vd_ykey k = VD_YKEY("contact", 0, NULL);

        vd_ydoc_enum(L->y, node, path, &k, contact_names, 2, &type);
    } else {
        vd_ydoc_map(L->y, node, p, contact_keys, CT_N, v);
        vd_ydoc_enum(L->y, v[CT_TYPE], p, &contact_keys[CT_TYPE], contact_names, 2, &type);
        for (int i = CT_LEN; i < CT_N; i++)
            vd_ydoc_number(L->y, v[i], p, &contact_keys[i], &f[i]);
        if (type == 0)
            for (int i = CT_LEN; i < CT_N; i++)
                if (v[i])
                    vd_ydoc_error(L->y, v[i], "%s.%s: only for type envelope", p,
                                  contact_keys[i].key);
    }
    if (L->y->nerr != e0 || type == 0)
        return L->y->nerr == e0 ? 0 : -EINVAL;
    if (vd_tire_env_init(&t->env, f[CT_LEN], f[CT_HGT], f[CT_ORD], f[CT_SHIFT], f[CT_DS], t->r0,
                         t->kz,
                         t->model == VD_TIRE_TMEASY ? L->m->tm[t->mf].pn : L->m->mf[t->mf].fnomin,
                         f[CT_QRA1], f[CT_QRA2], err, sizeof(err))) {
        vd_ydoc_error(L->y, node, "%s: %s", p, err);
        return -EINVAL;
    }
    return 0;
}
static const char *const bool_names[] = {"false", "true"};

/* true for a TMeasy file (Chrono JSON, config/tmeasy.h): the name ends in .json */
static bool is_tmeasy(const char *file)
{
    const size_t n = strlen(file);

    return n > 5 && !strcmp(file + n - 5, ".json");
}

int vd_ld_tire(struct loader *L, const char *name, const yaml_node_t *at, const char *path,
               int marker, const char *tir, int mirror, struct vd_tire **out)
{
    struct vd_mf_params p;
    struct vd_tm_params tp;
    char file[512];
    int i, mf;
    const bool tm = is_tmeasy(tir);

    vd_ld_path(L, tir, file, sizeof(file));
    mf = -1;
    for (int k = 0; k < L->ntir; k++)
        if (!strcmp(L->tir[k].path, file))
            mf = L->tir[k].mf;
    if (mf < 0) {
        if (tm ? vd_tmeasy_load(file, &tp, L->errf) : vd_tir_load(file, &p, L->errf)) {
            vd_ydoc_error(L->y, at, "%s: cannot use tyre file '%s' (see the messages above)", path,
                          file);
            return -EINVAL;
        }
        mf = tm ? vd_model_add_tm(L->m, &tp) : vd_model_add_mf(L->m, &p);
        if (mf >= 0 && L->ntir < (int)(sizeof(L->tir) / sizeof(L->tir[0]))) {
            snprintf(L->tir[L->ntir].path, sizeof(L->tir[0].path), "%s", file);
            L->tir[L->ntir].model = tm ? VD_TIRE_TMEASY : VD_TIRE_MF;
            L->tir[L->ntir++].mf = mf;
        }
    } else if (tm) {
        tp = L->m->tm[mf];
    } else {
        p = L->m->mf[mf];
    }
    i = vd_ld_push(L, &L->tire, name, at, path);
    if (mf < 0 || i < 0)
        return -EINVAL;
    *out = (struct vd_tire *)L->tire.v + i;
    (*out)->marker = marker;
    (*out)->model = tm ? VD_TIRE_TMEASY : VD_TIRE_MF;
    (*out)->mf = mf;
    (*out)->mirror = mirror;
    (*out)->r0 = tm ? tp.r0 : p.unloaded_radius;
    (*out)->kz = tm ? tp.cz : p.vertical_stiffness;
    (*out)->cz = tm ? tp.dz : p.vertical_damping;
    (*out)->c_low = 3000.0;
    (*out)->v_low = 1.0;
    return i;
}

static int load_tire_raw(struct loader *L, const yaml_node_t *node, const char *path)
{
    yaml_node_t *v[TY_N];
    char name[VD_NAME_MAX] = "", tir[256] = "", p[VD_YPATH_MAX];
    struct vd_tire *t = NULL;
    int e0 = L->y->nerr, mk, mirror = 0;

    vd_ydoc_map(L->y, node, path, tire_keys, TY_N, v);
    vd_ydoc_string(L->y, v[TY_NAME], path, &tire_keys[TY_NAME], name, sizeof(name));
    vd_ypath(p, path, "marker");
    mk = vd_ld_ref(L, &L->marker, v[TY_MARKER], p);
    if (mk >= 0 && ((struct vd_marker *)L->marker.v)[mk].body == VD_GROUND)
        vd_ydoc_error(L->y, v[TY_MARKER], "%s: a tyre's marker must be on a wheel body", p);
    vd_ydoc_string(L->y, v[TY_TIR], path, &tire_keys[TY_TIR], tir, sizeof(tir));
    vd_ydoc_enum(L->y, v[TY_MIRROR], path, &tire_keys[TY_MIRROR], bool_names, 2, &mirror);
    if (L->y->nerr != e0)
        return -EINVAL;
    if (vd_ld_tire(L, name, v[TY_NAME], path, mk, tir, mirror, &t) < 0)
        return -EINVAL;
    vd_ydoc_number(L->y, v[TY_KZ], path, &tire_keys[TY_KZ], &t->kz);
    vd_ydoc_number(L->y, v[TY_CZ], path, &tire_keys[TY_CZ], &t->cz);
    vd_ydoc_number(L->y, v[TY_CLOW], path, &tire_keys[TY_CLOW], &t->c_low);
    vd_ydoc_number(L->y, v[TY_VLOW], path, &tire_keys[TY_VLOW], &t->v_low);
    if (!(t->kz > 0.0))
        vd_ydoc_error(L->y, node, "%s: no vertical_stiffness (neither here nor in the .tir)", path);
    else
        vd_ld_tire_contact(L, v[TY_CONTACT], path, t);
    vd_ld_tire_pressure(L, v[TY_PRESS], path, &tire_keys[TY_PRESS], t);
    return L->y->nerr == e0 ? 0 : -EINVAL;
}

enum { CP_NAME, CP_A, CP_B, CP_RATIO, CP_STIFF, CP_DAMP, CP_N };
static const struct vd_ykey coupler_keys[CP_N] = {
    [CP_NAME] = VD_YKEY("name", REQ, NULL),
    [CP_A] = VD_YKEY("a", REQ, NULL), /* {bushing, component} */
    [CP_B] = VD_YKEY("b", REQ, NULL),
    [CP_RATIO] = VD_YKEY_RANGE("ratio", REQ, "a units per b unit", -1e4, 1e4),
    [CP_STIFF] = VD_YKEY_IN("stiffness", REQ, "N/m | N m/rad", VD_RNG_STIFF),
    [CP_DAMP] = VD_YKEY_IN("damping", 0, "N s/m | N m s/rad", VD_RNG_DAMP),
};
enum { CPE_BUSH, CPE_COMP, CPE_N };
static const struct vd_ykey cpl_end_keys[CPE_N] = {
    [CPE_BUSH] = VD_YKEY("bushing", REQ, NULL),
    [CPE_COMP] = VD_YKEY("component", REQ, NULL), /* x y z rx ry rz */
};
static const char *const comp_names[] = {"x", "y", "z", "rx", "ry", "rz"};

static int load_coupler_raw(struct loader *L, const yaml_node_t *node, const char *path)
{
    yaml_node_t *v[CP_N];
    char name[VD_NAME_MAX] = "";
    struct vd_coupler c;
    int e0 = L->y->nerr, i;

    memset(&c, 0, sizeof(c));
    vd_ydoc_map(L->y, node, path, coupler_keys, CP_N, v);
    vd_ydoc_string(L->y, v[CP_NAME], path, &coupler_keys[CP_NAME], name, sizeof(name));
    for (int k = 0; k < 2; k++) {
        yaml_node_t *w[CPE_N];
        char p[VD_YPATH_MAX], q[VD_YPATH_MAX];

        vd_ypath(p, path, k ? "b" : "a");
        if (!v[CP_A + k])
            continue;
        vd_ydoc_map(L->y, v[CP_A + k], p, cpl_end_keys, CPE_N, w);
        vd_ypath(q, p, "bushing");
        c.bush[k] = vd_ld_ref(L, &L->bush, w[CPE_BUSH], q);
        vd_ydoc_enum(L->y, w[CPE_COMP], p, &cpl_end_keys[CPE_COMP], comp_names, 6, &c.comp[k]);
    }
    vd_ydoc_number(L->y, v[CP_RATIO], path, &coupler_keys[CP_RATIO], &c.ratio);
    if (v[CP_STIFF])
        vd_ld_curve(L, v[CP_STIFF], path, &coupler_keys[CP_STIFF], VD_INTERP_PCHIP, false,
                    &c.stiff);
    if (v[CP_DAMP])
        vd_ld_curve(L, v[CP_DAMP], path, &coupler_keys[CP_DAMP], VD_INTERP_PCHIP, false, &c.damp);
    if (L->y->nerr == e0 && c.bush[0] == c.bush[1])
        vd_ydoc_error(L->y, v[CP_B], "%s.b: a coupler joins two different bushings", path);
    if (L->y->nerr != e0)
        return -EINVAL;
    i = vd_ld_push(L, &L->coupler, name, v[CP_NAME], path);
    if (i < 0)
        return -EINVAL;
    memcpy((char *)L->coupler.v + (size_t)i * L->coupler.size + VD_NAME_MAX,
           (char *)&c + VD_NAME_MAX, sizeof(c) - VD_NAME_MAX);
    return 0;
}

enum { RD_Z0, RD_GRADE, RD_MU, RD_OBST, RD_PROFILE, RD_N };
static const struct vd_ykey road_keys[RD_N] = {
    [RD_Z0] = VD_YKEY_IN("z0", 0, "m", VD_RNG_POS),         /* height at the origin, default 0 */
    [RD_GRADE] = VD_YKEY_RANGE("grade", 0, "-", -1.0, 1.0), /* [dz/dx, dz/dy], 0.1 = 10 % */
    [RD_MU] = VD_YKEY_RANGE("mu", LO_OPEN, "-", 0.0, 3.0),  /* friction scale, default 1 */
    [RD_OBST] = VD_YKEY("obstacles", 0, NULL),              /* sequence */
    [RD_PROFILE] = VD_YKEY("profile", 0, NULL),             /* {file, track_y, track_width} */
};
enum { OB_TYPE, OB_X, OB_LEN, OB_H, OB_EDGE, OB_Y, OB_N };
static const struct vd_ykey obst_keys[OB_N] = {
    [OB_TYPE] = VD_YKEY("type", REQ, NULL),         /* square | halfsine | ramp */
    [OB_X] = VD_YKEY_IN("x", REQ, "m", VD_RNG_POS), /* start along global x */
    [OB_LEN] = VD_YKEY_RANGE("length", REQ, "m", 1e-4, 1e5),
    [OB_H] = VD_YKEY_RANGE("height", REQ, "m", -1.0, 1.0),
    [OB_EDGE] = VD_YKEY_RANGE("edge", 0, "m", 0.0, 100.0), /* square: default 0.05 */
    [OB_Y] = VD_YKEY_IN("y", 0, "m", VD_RNG_POS),          /* [y_min, y_max], default everywhere */
};
static const char *const obst_names[] = {
    [VD_OBST_SQUARE] = "square", [VD_OBST_HALFSINE] = "halfsine", [VD_OBST_RAMP] = "ramp"};
enum { PR_FILE, PR_TRACK, PR_WIDTH, PR_N };
static const struct vd_ykey prof_keys[PR_N] = {
    [PR_FILE] = VD_YKEY("file", REQ, NULL), /* CSV: x, z_left, z_right [m] */
    [PR_TRACK] =
        VD_YKEY_IN("track_y", 0, "m", VD_RNG_LOCAL), /* midway between the tracks; default 0 */
    /* lateral distance of the tracks, blended between them (core/road.h); default 1.6 (the
     * sedan's track); 0: the left track for y >= track_y, the right one below */
    [PR_WIDTH] = VD_YKEY_RANGE("track_width", 0, "m", 0.0, 5.0),
};

/* CSV x, z_left, z_right (a header line and # comments allowed) into malloc'ed arrays */
static int read_profile(const char *file, double **x, double **zl, double **zr, int *n, char *err,
                        size_t errlen)
{
    FILE *f = vd_cfg_fopen(file, "r");
    char line[512];
    int cap = 0, lineno = 0;
    bool header = false;

    *x = *zl = *zr = NULL;
    *n = 0;
    if (!f) {
        const int e = errno;

        snprintf(err, errlen, "cannot read %s: %s", file, vd_cfg_strerror(-e));
        return -e;
    }
    while (fgets(line, sizeof(line), f)) {
        double a, b, c;

        lineno++;
        if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0')
            continue;
        if (sscanf(line, "%lf , %lf , %lf", &a, &b, &c) != 3) {
            if (*n == 0 && !header) {
                header = true; /* the first line that is not a comment may be a header */
                continue;
            }
            snprintf(err, errlen, "%s:%d: expected three numbers x, z_left, z_right", file, lineno);
            fclose(f);
            return -EINVAL;
        }
        if (*n == cap) {
            double *p1, *p2, *p3;

            cap = cap ? 2 * cap : 256;
            p1 = realloc(*x, (size_t)cap * sizeof(double));
            if (p1)
                *x = p1;
            p2 = realloc(*zl, (size_t)cap * sizeof(double));
            if (p2)
                *zl = p2;
            p3 = realloc(*zr, (size_t)cap * sizeof(double));
            if (p3)
                *zr = p3;
            if (!p1 || !p2 || !p3) {
                fclose(f);
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
            }
        }
        (*x)[*n] = a;
        (*zl)[*n] = b;
        (*zr)[*n] = c;
        (*n)++;
    }
    fclose(f);
    return 0;
}

static int load_road(struct loader *L, const yaml_node_t *node)
{
    struct vd_road *r = &L->m->road;
    yaml_node_t *v[RD_N];
    int e0 = L->y->nerr, n = 0;

    if (!node)
        return 0;
    vd_ydoc_map(L->y, node, "road", road_keys, RD_N, v);
    vd_ydoc_number(L->y, v[RD_Z0], "road", &road_keys[RD_Z0], &r->z0);
    vd_ydoc_vec(L->y, v[RD_GRADE], "road", &road_keys[RD_GRADE], 2, 2, r->grade, NULL);
    vd_ydoc_number(L->y, v[RD_MU], "road", &road_keys[RD_MU], &r->mu);
    if (v[RD_OBST] && !vd_ydoc_seq(L->y, v[RD_OBST], "road.obstacles", 0, &n)) {
        if (n > VD_ROAD_MAX_OBST) {
            vd_ydoc_error(L->y, v[RD_OBST], "road.obstacles: at most %d obstacles",
                          VD_ROAD_MAX_OBST);
            n = VD_ROAD_MAX_OBST;
        }
        r->nobst = n;
        for (int i = 0; i < n; i++) {
            struct vd_obstacle *o = &r->obst[i];
            yaml_node_t *w[OB_N];
            char p[VD_YPATH_MAX];
            double y[2] = {-INFINITY, INFINITY};

            vd_ypath_index(p, "road.obstacles", i);
            vd_ydoc_map(L->y, vd_ydoc_item(L->y, v[RD_OBST], i), p, obst_keys, OB_N, w);
            vd_ydoc_enum(L->y, w[OB_TYPE], p, &obst_keys[OB_TYPE], obst_names, COUNT(obst_names),
                         &o->kind);
            vd_ydoc_number(L->y, w[OB_X], p, &obst_keys[OB_X], &o->x0);
            vd_ydoc_number(L->y, w[OB_LEN], p, &obst_keys[OB_LEN], &o->length);
            vd_ydoc_number(L->y, w[OB_H], p, &obst_keys[OB_H], &o->height);
            o->edge = 0.05;
            vd_ydoc_number(L->y, w[OB_EDGE], p, &obst_keys[OB_EDGE], &o->edge);
            if (!vd_ydoc_vec(L->y, w[OB_Y], p, &obst_keys[OB_Y], 2, 2, y, NULL) && w[OB_Y] &&
                !(y[1] > y[0]))
                vd_ydoc_error(L->y, w[OB_Y], "%s.y: [y_min, y_max] with y_max > y_min", p);
            o->y_min = y[0];
            o->y_max = y[1];
        }
    }
    if (v[RD_PROFILE]) {
        yaml_node_t *w[PR_N];
        char rel[256] = "", file[512], err[640];
        double *x, *zl, *zr, track = 0.0, width = 1.6;
        int np;

        vd_ydoc_map(L->y, v[RD_PROFILE], "road.profile", prof_keys, PR_N, w);
        vd_ydoc_string(L->y, w[PR_FILE], "road.profile", &prof_keys[PR_FILE], rel, sizeof(rel));
        vd_ydoc_number(L->y, w[PR_TRACK], "road.profile", &prof_keys[PR_TRACK], &track);
        vd_ydoc_number(L->y, w[PR_WIDTH], "road.profile", &prof_keys[PR_WIDTH], &width);
        if (rel[0]) {
            vd_ld_path(L, rel, file, sizeof(file));
            if (read_profile(file, &x, &zl, &zr, &np, err, sizeof(err)) ||
                vd_model_set_profile(L->m, np, x, zl, zr, track, width, err, sizeof(err)))
                vd_ydoc_error(L->y, w[PR_FILE], "road.profile.file: %s", err);
            free(x);
            free(zl);
            free(zr);
        }
    }
    return L->y->nerr == e0 ? 0 : -EINVAL;
}

/* a sequence section of elements that push themselves */
static int load_push_section(struct loader *L, const yaml_node_t *node, const char *key,
                             int (*load)(struct loader *, const yaml_node_t *, const char *))
{
    int n = 0, e0 = L->y->nerr;

    if (!node || vd_ydoc_seq(L->y, node, key, 0, &n))
        return node ? -EINVAL : 0;
    for (int i = 0; i < n; i++) {
        char path[VD_YPATH_MAX];

        vd_ypath_index(path, key, i);
        load(L, vd_ydoc_item(L->y, node, i), path);
    }
    return L->y->nerr == e0 ? 0 : -EINVAL;
}

/* grow e so that n more elements fit (zeroed); 0 or -ENOMEM */
static int elems_reserve(struct elems *e, int more)
{
    if (e->n + more >= e->cap) {
        int cap = e->cap ? e->cap : 8;
        void *v;
        yaml_mark_t *at;

        while (cap <= e->n + more)
            cap *= 2;
        v = realloc(e->v, (size_t)cap * e->size);
        if (!v)
            return -ENOMEM;
        e->v = v;
        at = realloc(e->at, (size_t)cap * sizeof(*at));
        if (!at)
            return -ENOMEM;
        e->at = at;
        memset((char *)e->v + (size_t)e->cap * e->size, 0, (size_t)(cap - e->cap) * e->size);
        memset(e->at + e->cap, 0, (size_t)(cap - e->cap) * sizeof(*at));
        e->cap = cap;
    }
    return 0;
}

int vd_ld_push(struct loader *L, struct elems *e, const char *name, const yaml_node_t *node,
               const char *path)
{
    int first;

    if (elems_reserve(e, 1)) {
        vd_ydoc_error(L->y, node, "%s: out of memory", path);
        return -ENOMEM;
    }
    if (strlen(name) >= VD_NAME_MAX || !vd_ld_name_ok(name)) {
        vd_ydoc_error(L->y, node,
                      "%s: '%s' is not a valid %s name (letters, digits, _ . -, at most %d)", path,
                      name, e->what, VD_NAME_MAX - 1);
        return -EINVAL;
    }
    first = vd_ld_find(e, name);
    if (first >= 0) {
        vd_ydoc_error(L->y, node, "%s: duplicate %s name '%s' (first at line %lu)", path, e->what,
                      name, e->at[first].line + 1);
        return -EINVAL;
    }
    strcpy(vd_ld_elem_name(e, e->n), name);
    if (node)
        e->at[e->n] = node->start_mark;
    else
        memset(&e->at[e->n], 0, sizeof(e->at[e->n]));
    return e->n++;
}

void vd_ld_path(const struct loader *L, const char *rel, char *out, size_t size)
{
    if (rel[0] == '/' || !L->dir[0])
        snprintf(out, size, "%s", rel);
    else
        snprintf(out, size, "%s/%s", L->dir, rel);
    /* embedded files are named without "dir/../" (messages read as the file's name) */
    if (vd_cfg_is_embedded(out)) {
        char norm[512];

        if (!vd_cfg_path_normalize(norm, sizeof(norm), out))
            snprintf(out, size, "%s", norm);
    }
}

typedef int (*load_elem_fn)(struct loader *L, const yaml_node_t *node, const char *path, int i);

/* a sequence section: append its elements to e and load each one */
static int load_section(struct loader *L, const yaml_node_t *node, const char *key, int min,
                        struct elems *e, load_elem_fn load)
{
    int n = 0, e0 = L->y->nerr, base;

    if (node && vd_ydoc_seq(L->y, node, key, min, &n))
        n = 0;
    if (elems_reserve(e, n)) {
        vd_ydoc_error(L->y, node, "%s: out of memory", key);
        return -ENOMEM;
    }
    base = e->n;
    e->n += n;
    for (int i = 0; i < n; i++) {
        char path[VD_YPATH_MAX];

        vd_ypath_index(path, key, i);
        load(L, vd_ydoc_item(L->y, node, i), path, base + i);
    }
    return L->y->nerr == e0 ? 0 : -EINVAL;
}

/* the value of key in a mapping node, or NULL */
static const yaml_node_t *map_value(struct vd_ydoc *y, const yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        const yaml_node_t *k = yaml_document_get_node(&y->doc, p->key);

        if (k && k->type == YAML_SCALAR_NODE && !strcmp((const char *)k->data.scalar.value, key))
            return yaml_document_get_node(&y->doc, p->value);
    }
    return NULL;
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
    for (int i = 0; i < L->tire.n && rc >= 0; i++)
        rc = vd_model_add_tire(L->m, (struct vd_tire *)L->tire.v + i);
    for (int i = 0; i < L->coupler.n && rc >= 0; i++)
        rc = vd_model_add_coupler(L->m, (struct vd_coupler *)L->coupler.v + i);
    for (int i = 0; i < L->joint.n && rc >= 0; i++)
        rc = vd_model_add_joint(L->m, (struct vd_joint *)L->joint.v + i);
    if (rc < 0) {
        vd_ydoc_error(L->y, root, "model builder rejected an element: %s", strerror(-rc));
        return rc;
    }
    if (L->m->opt.root[0] && vd_ld_find(&L->body, L->m->opt.root) < 0) {
        const yaml_node_t *at = map_value(L->y, map_value(L->y, root, "solver"), "root");

        vd_ydoc_error(L->y, at ? at : root, "solver.root: no body named '%s'", L->m->opt.root);
        return -EINVAL;
    }
    rc = vd_model_finalize(L->m, err, sizeof(err));
    /* an error about one joint points at it: its name, or the template that made it */
    if (rc && L->m->err_joint >= 0 && L->m->err_joint < L->joint.n)
        vd_ydoc_error_mark(L->y, L->joint.at[L->m->err_joint], "%s", err);
    else if (rc)
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
    free(e->at);
    e->v = NULL;
    e->at = NULL;
    e->n = e->cap = 0;
}

int vd_ld_init(struct loader *L, const char *name)
{
    memset(L, 0, sizeof(*L));
    L->body = (struct elems){.what = "body", .size = sizeof(struct vd_body)};
    L->marker = (struct elems){.what = "marker", .size = sizeof(struct vd_marker)};
    L->bush = (struct elems){.what = "bushing", .size = sizeof(struct vd_bushing)};
    L->p2p = (struct elems){.what = "p2p", .size = sizeof(struct vd_p2p)};
    L->input = (struct elems){.what = "input", .size = sizeof(struct vd_input)};
    L->tire = (struct elems){.what = "tyre", .size = sizeof(struct vd_tire)};
    L->coupler = (struct elems){.what = "coupler", .size = sizeof(struct vd_coupler)};
    L->joint = (struct elems){.what = "joint", .size = sizeof(struct vd_joint)};
    L->m = vd_model_new(NULL);
    L->src = vd_source_new(0);
    if (!L->m || !L->src)
        return -ENOMEM;
    name_from_path(L->m->name, sizeof(L->m->name), name);
    vd_ld_set_dir(L, name);
    return 0;
}

void vd_ld_set_dir(struct loader *L, const char *name)
{
    vd_cfg_dirname(L->dir, sizeof(L->dir), name);
}

void vd_ld_free(struct loader *L)
{
    free_elems(&L->body);
    free_elems(&L->marker);
    free_elems(&L->bush);
    free_elems(&L->p2p);
    free_elems(&L->input);
    free_elems(&L->tire);
    free_elems(&L->coupler);
    free_elems(&L->joint);
    vd_source_free(L->src);
    vd_model_free(L->m);
    L->src = NULL;
    L->m = NULL;
}

int vd_ld_document(struct loader *L, yaml_node_t *root)
{
    yaml_node_t *top[TOP_N];

    /* sections in dependency order, whatever their order in the file: templates expand
     * after the raw bodies (they mount on them) and before the raw markers (which may sit
     * on template bodies); inputs before the bushings that refer to them */
    vd_ydoc_map(L->y, root, "", top_keys, TOP_N, top);
    load_model_section(L, top[TOP_MODEL]);
    vd_ld_solver(L, top[TOP_SOLVER]);
    if (!top[TOP_BODIES] && !top[TOP_SUSP] && root->type == YAML_MAPPING_NODE)
        vd_ydoc_error(L->y, root,
                      "missing required key 'bodies' in the document (a model "
                      "needs bodies or suspension templates)");
    if (load_section(L, top[TOP_BODIES], "bodies", 1, &L->body, load_body) == -ENOMEM)
        return -ENOMEM;
    if (vd_tpl_load(L, top + TOP_SUSP) == -ENOMEM ||
        load_section(L, top[TOP_MARKERS], "markers", 0, &L->marker, load_marker) == -ENOMEM ||
        load_section(L, top[TOP_INPUTS], "inputs", 0, &L->input, load_input) == -ENOMEM ||
        load_section(L, top[TOP_BUSHINGS], "bushings", 0, &L->bush, load_bushing) == -ENOMEM ||
        load_section(L, top[TOP_P2P], "p2p", 0, &L->p2p, load_p2p) == -ENOMEM ||
        load_push_section(L, top[TOP_TIRES], "tires", load_tire_raw) == -ENOMEM ||
        load_push_section(L, top[TOP_COUPLERS], "couplers", load_coupler_raw) == -ENOMEM ||
        load_section(L, top[TOP_JOINTS], "joints", 0, &L->joint, load_joint) == -ENOMEM)
        return -ENOMEM;
    load_road(L, top[TOP_ROAD]);
    return vd_ydoc_errors(L->y) ? -EINVAL : 0;
}

int vd_ld_build(struct loader *L, const yaml_node_t *root)
{
    return build(L, root);
}

int vd_ld_road(struct loader *L, const yaml_node_t *node)
{
    return load_road(L, node);
}

struct vd_model *vd_cfg_load_model_mem(const char *name, const char *text, size_t len,
                                       struct vd_source **src, FILE *errf)
{
    struct loader L;
    yaml_node_t *root;
    struct vd_model *m = NULL;
    bool nomem = false;

    if (src)
        *src = NULL;
    if (vd_ld_init(&L, name)) {
        nomem = true;
        goto out_free;
    }
    L.errf = errf;
    L.y = vd_ydoc_new(name, text, len);
    if (!L.y) {
        nomem = true;
        goto out_free;
    }
    if (vd_ydoc_parse(L.y) || !(root = vd_ydoc_root(L.y)))
        goto out_free;
    if (vd_ld_document(&L, root) == -ENOMEM)
        nomem = true;
    else if (!vd_ydoc_errors(L.y) && !build(&L, root)) {
        m = L.m;
        L.m = NULL;
        if (src) {
            *src = L.src;
            L.src = NULL;
        }
    }
out_free:
    if (errf && L.y && vd_ydoc_errors(L.y))
        vd_ydoc_print(L.y, errf);
    else if (errf && !m && nomem)
        fprintf(errf, "%s: error: out of memory\n", name);
    vd_ydoc_free(L.y);
    vd_ld_free(&L);
    return m;
}

struct vd_model *vd_cfg_load_model(const char *path, struct vd_source **src, FILE *errf)
{
    struct vd_model *m;
    char *text = NULL;
    size_t len = 0;
    int rc;

    if (src)
        *src = NULL;
    rc = vd_cfg_read_or_say(path, &text, &len, errf);
    if (rc)
        return NULL;
    m = vd_cfg_load_model_mem(path, text, len, src, errf);
    free(text);
    return m;
}
