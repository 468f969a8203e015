/* config/tpl_suspension.c - the suspension templates (double_wishbone, multilink, mcpherson)
 * with their wheel, bearing, brake, hub drive, tyre and strut: expand hardpoints into bodies,
 * elastic joints and p2p elements (conventions in templates.c). Init only. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/loader.h"
#include "config/ranges.h"
#include "config/tpl.h"
#include "config/ydoc.h"
#include "core/vdmath.h"
/* ---- wheel, bearing, brake, hub drive, tyre (shared by the suspension templates) ------- */

enum { WH_TIR, WH_KZ, WH_CZ, WH_CLOW, WH_CONTACT, WH_PRESS, WH_N };
static const struct vd_ykey tire_tkeys[WH_N] = {
    [WH_TIR] = VD_YKEY("tir", REQ, NULL),
    [WH_KZ] = VD_YKEY_IN("vertical_stiffness", LO_OPEN, "N/m", VD_RNG_STIFF),
    [WH_CZ] = VD_YKEY_IN("vertical_damping", 0, "N s/m", VD_RNG_DAMP),
    [WH_CLOW] = VD_YKEY_IN("low_speed_damping", 0, "N s/m", VD_RNG_DAMP),
    [WH_CONTACT] = VD_YKEY("contact", 0, NULL), /* point | {type: envelope, ...} */
    [WH_PRESS] = VD_YKEY_RANGE("inflation_pressure", LO_OPEN, "Pa", 1e4, 1e6), /* MF 6.x */
};

enum { BR_STIFF, BR_DAMP, BR_N };
static const struct vd_ykey brake_keys[BR_N] = {
    [BR_STIFF] = VD_YKEY_IN("stiffness", LO_OPEN, "N m/rad", VD_RNG_STIFF), /* sticking */
    [BR_DAMP] = VD_YKEY_IN("damping", 0, "N m s/rad", VD_RNG_DAMP),
};

struct corner {
    int knuckle, wheel, bearing, wheel_marker;
    double wc[3]; /* wheel centre, global */
};

/* wheel body on the knuckle's bearing (free spin, brake friction), optional hub drive torque,
 * and the tyre; spin axis = global +y for both sides (rolling forward = positive spin) */
static int t_wheel(struct tpl *t, int knuckle, const double wc_hp[3], const struct bspec *ws,
                   const yaml_node_t *tire_node, const yaml_node_t *brake_node,
                   const yaml_node_t *bear_node, bool hub_drive, struct corner *c)
{
    static const double Rw[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1}; /* Rz(90 deg): x = +y */
    double Rg[9], wc[3];
    struct jspec bear;
    char path[VD_YPATH_MAX];
    int in_brake, k;
    double ks = 5e4, cs = 300.0;

    vd_tpl_gpt(t, wc_hp, wc);
    memcpy(c->wc, wc, sizeof(wc));
    c->knuckle = knuckle;
    c->wheel = vd_tpl_body(t, "wheel", ws, wc, Rw);
    vdu_mat3_mul(Rg, t->R0, Rw);
    vd_tpl_read_jspec(t, bear_node, t->path, "bearing", 1e8, 5e7, 0.0, 1e6, 2e-4, &bear);
    /* brake: the bearing's spin component is a stick-slip friction of capacity u */
    if (brake_node) {
        yaml_node_t *v[BR_N];

        vd_ypath(path, t->path, "brake");
        vd_ydoc_map(t->L->y, brake_node, path, brake_keys, BR_N, v);
        vd_ydoc_number(t->L->y, v[BR_STIFF], path, &brake_keys[BR_STIFF], &ks);
        vd_ydoc_number(t->L->y, v[BR_DAMP], path, &brake_keys[BR_DAMP], &cs);
    }
    bear.torsional = vd_tpl_lin(t->L, ks);
    c->bearing = vd_tpl_joint(t, "bearing", c->wheel, knuckle, wc, Rg, &bear, VD_ROT_CARDAN);
    if (c->bearing < 0)
        return -EINVAL;
    ((struct vd_bushing *)t->L->bush.v)[c->bearing].damp[3] = vd_tpl_lin(t->L, cs);
    in_brake = vd_tpl_input(t, "brake");
    if (in_brake >= 0)
        vd_tpl_act(t, c->bearing, 3, VD_ACT_FRICTION, in_brake, 1.0);
    if (hub_drive) {
        /* a drive torque between wheel and knuckle (a hub motor, or a driveline reduced to
         * its wheel torque): a bushing with only that actuated component */
        struct jspec none;
        int bd, in_drive;

        memset(&none, 0, sizeof(none));
        bd = vd_tpl_joint(t, "hub_drive", c->wheel, knuckle, wc, Rg, &none, VD_ROT_CARDAN);
        in_drive = vd_tpl_input(t, "drive");
        if (bd >= 0 && in_drive >= 0)
            vd_tpl_act(t, bd, 3, VD_ACT_FORCE, in_drive, -1.0); /* u > 0 drives forward */
    }
    k = vd_tpl_marker(t, "wheel_center", c->wheel, wc, Rg);
    c->wheel_marker = k;
    /* tyre */
    if (tire_node) {
        yaml_node_t *v[WH_N];
        char tir[256] = "", name[NAME_BUF];
        struct vd_tire *ty = NULL;

        vd_ypath(path, t->path, "tire");
        vd_ydoc_map(t->L->y, tire_node, path, tire_tkeys, WH_N, v);
        vd_ydoc_string(t->L->y, v[WH_TIR], path, &tire_tkeys[WH_TIR], tir, sizeof(tir));
        vd_tpl_name(name, t, "tire");
        if (tir[0] && k >= 0 &&
            vd_ld_tire(t->L, name, v[WH_TIR], path, k, tir, t->side < 0, &ty) >= 0) {
            vd_ydoc_number(t->L->y, v[WH_KZ], path, &tire_tkeys[WH_KZ], &ty->kz);
            vd_ydoc_number(t->L->y, v[WH_CZ], path, &tire_tkeys[WH_CZ], &ty->cz);
            vd_ydoc_number(t->L->y, v[WH_CLOW], path, &tire_tkeys[WH_CLOW], &ty->c_low);
            if (!(ty->kz > 0.0))
                vd_ydoc_error(t->L->y, tire_node, "%s: no vertical_stiffness", path);
            else
                vd_ld_tire_contact(t->L, v[WH_CONTACT], path, ty);
            vd_ld_tire_pressure(t->L, v[WH_PRESS], path, &tire_tkeys[WH_PRESS], ty);
        }
    }
    return 0;
}

/* spring/damper strut: damper tube (lower) and piston rod (upper) guided into each other by a
 * stiff cylindrical bushing, the rod on a top mount (mount body), the tube on a lower mount
 * (lower body); spring, damper, bump and rebound stops as p2p elements between rod top and
 * tube bottom (their forces flow through the mounts) */
static int t_strut(struct tpl *t, const double top_hp[3], const double bot_hp[3], int lower,
                   const struct bspec *tube, const struct bspec *rod,
                   const yaml_node_t *const parts_in[4], const yaml_node_t *bus,
                   const double (*spring_hp)[3])
{
    const yaml_node_t *parts[4] = {parts_in[0], parts_in[1], parts_in[2], parts_in[3]};
    double top[3], bot[3], ax[3], mid[3], ct[3], cr[3], Rg[9], L;
    const double up[3] = {0, 0, 1};
    struct jspec jt, jb, jg;
    yaml_node_t *bv[3];
    int btube, brod, ktop, kbot, ip;
    char path[VD_YPATH_MAX], name[VD_NAME_MAX];
    struct vd_p2p *p;

    vd_tpl_gpt(t, top_hp, top);
    vd_tpl_gpt(t, bot_hp, bot);
    vdu_sub3(ax, top, bot);
    L = sqrt(vdu_dot3(ax, ax));
    for (int k = 0; k < 3; k++) {
        mid[k] = bot[k] + 0.5 * ax[k];
        ct[k] = bot[k] + 0.3 * ax[k];
        cr[k] = top[k] - 0.3 * ax[k];
    }
    vd_tpl_axes_x(Rg, ax, up);
    bv[0] = vd_tpl_map_get(t->L, bus, "strut_top");
    bv[1] = vd_tpl_map_get(t->L, bus, "strut_bottom");
    bv[2] = vd_tpl_map_get(t->L, bus, "strut_guide");
    vd_ypath(path, t->path, "bushings");
    vd_tpl_read_jspec(t, bv[0], path, "strut_top", 1e6, 5e5, 100.0, 100.0, 1e-3, &jt);
    vd_tpl_read_jspec(t, bv[1], path, "strut_bottom", 2e6, 2e6, 100.0, 100.0, 1e-3, &jb);
    vd_tpl_read_jspec(t, bv[2], path, "strut_guide", 1e7, 0.0, 1.0, 1e5, 1e-3, &jg);
    btube = vd_tpl_body(t, "damper_tube", tube, ct, NULL);
    brod = vd_tpl_body(t, "piston_rod", rod, cr, NULL);
    if (btube < 0 || brod < 0)
        return -EINVAL;
    if (t->connection) {
        /* ideal joints: the rod on a universal joint (no spin about the strut), the tube
         * sliding on it without turning, a ball joint below: no freedom of its own */
        vd_tpl_ideal(t, "strut_top", VD_JOINT_UNIVERSAL, brod, t->mount, top, ax);
        vd_tpl_ideal(t, "strut_bottom", VD_JOINT_SPHERICAL, btube, lower, bot, NULL);
        vd_tpl_ideal(t, "strut_guide", VD_JOINT_PRISMATIC, btube, brod, mid, ax);
    } else {
        vd_tpl_joint(t, "strut_top", brod, t->mount, top, Rg, &jt, VD_ROT_VECTOR);
        vd_tpl_joint(t, "strut_bottom", btube, lower, bot, Rg, &jb, VD_ROT_VECTOR);
        vd_tpl_joint(t, "strut_guide", btube, brod, mid, Rg, &jg, VD_ROT_CARDAN);
    }
    if (spring_hp) {
        /* coil spring apart from the damper (Chrono's multilink): mount -> lower body */
        const yaml_node_t *sp[4] = {parts[0], NULL, NULL, NULL};
        double st[3], sb[3];
        int ks1, ks2, is;

        vd_tpl_gpt(t, spring_hp[0], st);
        vd_tpl_gpt(t, spring_hp[1], sb);
        ks1 = vd_tpl_marker(t, "coil_top", t->mount, st, NULL);
        ks2 = vd_tpl_marker(t, "coil_bottom", lower, sb, NULL);
        vd_tpl_name(name, t, "spring");
        is = vd_ld_push(t->L, &t->L->p2p, name, t->node, t->path);
        if (is < 0 || ks1 < 0 || ks2 < 0)
            return -EINVAL;
        p = (struct vd_p2p *)t->L->p2p.v + is;
        p->mk[0] = ks1;
        p->mk[1] = ks2;
        vd_ld_p2p_parts(t->L, sp, t->path, p);
        parts[0] = NULL;
    }
    ktop = vd_tpl_marker(t, "spring_top", brod, top, Rg);
    kbot = vd_tpl_marker(t, "spring_bottom", btube, bot, Rg);
    vd_tpl_name(name, t, "strut");
    ip = vd_ld_push(t->L, &t->L->p2p, name, t->node, t->path);
    if (ip < 0 || ktop < 0 || kbot < 0)
        return -EINVAL;
    p = (struct vd_p2p *)t->L->p2p.v + ip;
    p->mk[0] = ktop;
    p->mk[1] = kbot;
    vd_ld_p2p_parts(t->L, parts, t->path, p);
    if (!p->has_spring && !p->has_damper && !p->has_bump && !p->has_rebound)
        vd_ydoc_error(t->L->y, t->node, "%s: the strut needs a spring and/or a damper", t->path);
    (void)L;
    return 0;
}

/* ---- suspensions -------------------------------------------------------------------------- */

enum {
    SU_NAME,
    SU_TYPE,
    SU_MOUNT,
    SU_LOC,
    SU_HP,
    SU_BODIES,
    SU_SPRING,
    SU_DAMPER,
    SU_BUMP,
    SU_REBOUND,
    SU_BUSH,
    SU_TIRE,
    SU_BRAKE,
    SU_TIEROD,
    SU_DRIVE,
    SU_SUBFRAME,
    SU_CONN,
    SU_N
};
static const struct vd_ykey susp_keys[SU_N] = {
    [SU_NAME] = VD_YKEY("name", REQ, NULL),
    [SU_TYPE] = VD_YKEY("type", REQ, NULL),   /* double_wishbone | multilink | mcpherson */
    [SU_MOUNT] = VD_YKEY("mount", REQ, NULL), /* body: the chassis; ground: a test rig */
    [SU_LOC] =
        VD_YKEY_IN("location", REQ, "m", VD_RNG_LOCAL), /* subsystem origin in the mount's frame */
    [SU_HP] = VD_YKEY("hardpoints", REQ, NULL),
    [SU_BODIES] = VD_YKEY("bodies", REQ, NULL),
    [SU_SPRING] = VD_YKEY("spring", 0, NULL),
    [SU_DAMPER] = VD_YKEY("damper", 0, NULL),
    [SU_BUMP] = VD_YKEY("bump_stop", 0, NULL),
    [SU_REBOUND] = VD_YKEY("rebound_stop", 0, NULL),
    [SU_BUSH] = VD_YKEY("bushings", 0, NULL), /* per joint kind */
    [SU_TIRE] = VD_YKEY("tire", 0, NULL),     /* none on a rig with wheel-centre forces */
    [SU_BRAKE] = VD_YKEY("brake", 0, NULL),
    [SU_TIEROD] = VD_YKEY("tierod_mount", 0, NULL), /* body of the inner tie rod ends */
    [SU_DRIVE] = VD_YKEY("drive", 0, NULL),         /* hub (default) | shaft */
    [SU_SUBFRAME] = VD_YKEY("subframe", 0, NULL),   /* multilink: links on a subframe */
    [SU_CONN] = VD_YKEY("connection", 0, NULL),     /* bushings | joints, default bushings */
};
static const char *const susp_types[] = {"double_wishbone", "multilink", "mcpherson"};
static const char *const drive_names[] = {"hub", "shaft"};

/* the value of key in a mapping node, or NULL */
yaml_node_t *vd_tpl_map_get(struct loader *L, const yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(&L->y->doc, p->key);

        if (k && k->type == YAML_SCALAR_NODE && !strcmp((const char *)k->data.scalar.value, key))
            return yaml_document_get_node(&L->y->doc, p->value);
    }
    return NULL;
}

/* check that every key of map is in allowed[] (the per-kind mappings are read piecewise) */
static void check_keys(struct tpl *t, const yaml_node_t *map, const char *path,
                       const char *const *allowed, int n)
{
    if (!map)
        return;
    if (map->type != YAML_MAPPING_NODE) {
        vd_ydoc_error(t->L->y, map, "%s: expected a mapping", path);
        return;
    }
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(&t->L->y->doc, p->key);
        bool ok = false;

        for (int i = 0; i < n && k && k->type == YAML_SCALAR_NODE; i++)
            ok |= !strcmp((const char *)k->data.scalar.value, allowed[i]);
        if (!ok) {
            char list[256] = "";

            for (int i = 0; i < n; i++)
                snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
                         allowed[i]);
            vd_ydoc_error(t->L->y, k, "unknown key '%s' in %s (expected one of: %s)",
                          k && k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value
                                                           : "?",
                          path, list);
        }
    }
}

/* a rubber bushing at hardpoint hp with its axis from hp to hp2 */
static int axis_joint(struct tpl *t, const char *e, int bi, int bj, const double hp[3],
                      const double hp2[3], const struct jspec *s)
{
    double p[3], q[3], ax[3], R[9];
    const double up[3] = {0, 0, 1};

    vd_tpl_gpt(t, hp, p);
    vd_tpl_gpt(t, hp2, q);
    vdu_sub3(ax, q, p);
    vd_tpl_axes_x(R, ax, up);
    return vd_tpl_joint(t, e, bi, bj, p, R, s, VD_ROT_VECTOR);
}

static const char *const body_names_dw[] = {"knuckle",     "uca",        "lca",  "tierod",
                                            "damper_tube", "piston_rod", "wheel"};
static const char *const body_names_ml[] = {"knuckle",     "upper_front", "upper_back",
                                            "lateral",     "trailing",    "tierod",
                                            "damper_tube", "piston_rod",  "wheel"};
static const char *const body_names_mp[] = {"knuckle", "lca", "tierod", "piston_rod", "wheel"};
static const char *const bush_names[] = {"arm_chassis",    "ball_joint", "link_inner",
                                         "trailing_inner", "strut_top",  "strut_bottom",
                                         "strut_guide",    "bearing",    "subframe"};

/* subframe (multilink): one body per axle on rubber mounts, shared by both sides */
enum { SF_BODY, SF_MOUNTS, SF_BUSH, SF_N };
static const struct vd_ykey subframe_keys[SF_N] = {
    [SF_BODY] = VD_YKEY("body", REQ, NULL), /* {mass, inertia, com} */
    [SF_MOUNTS] =
        VD_YKEY_IN("mounts", REQ, "m", VD_RNG_LOCAL), /* left-side points [[x, y, z], ...] */
    [SF_BUSH] = VD_YKEY("bushing", 0, NULL),          /* radial, axial, torsional, conical */
};

static int subframe(struct tpl *t, const yaml_node_t *node)
{
    char path[VD_YPATH_MAX], e[32];
    yaml_node_t *v[SF_N];
    struct bspec s;
    struct jspec j;
    double c[3];
    int b, n = 0;

    vd_ypath(path, t->path, "subframe");
    vd_ydoc_map(t->L->y, node, path, subframe_keys, SF_N, v);
    if (vd_tpl_read_bspec(t, v[SF_BODY], path, "body", &s))
        return -EINVAL;
    {
        const double zero[3] = {0, 0, 0};

        vd_tpl_gpt(t, s.has_com ? s.com : zero, c);
    }
    b = vd_tpl_body(t, "subframe", &s, c, NULL);
    vd_tpl_read_jspec(t, v[SF_BUSH], path, "bushing", 2e6, 1e6, 1e3, 1e3, 1e-3, &j);
    if (v[SF_MOUNTS] && !vd_ydoc_seq(t->L->y, v[SF_MOUNTS], path, 1, &n)) {
        for (int i = 0; i < n; i++) {
            double hp[3];
            char ip[VD_YPATH_MAX];
            struct vd_ykey k = VD_YKEY_IN("mounts", 0, "m", VD_RNG_LOCAL);

            vd_ypath_index(ip, path, i);
            if (vd_ydoc_vec(t->L->y, vd_ydoc_item(t->L->y, v[SF_MOUNTS], i), ip, &k, 3, 3, hp,
                            NULL))
                continue;
            for (int sd = 0; sd < 2; sd++) {
                const double sv = t->side;

                t->side = sd ? -1.0 : 1.0;
                snprintf(e, sizeof(e), "mount%d%c", i, sd ? 'r' : 'l');
                vd_tpl_ball(t, e, b, t->mount, hp, &j);
                t->side = sv;
            }
        }
    }
    return b;
}

int vd_tpl_suspension(struct loader *L, yaml_node_t *node, const char *path)
{
    yaml_node_t *v[SU_N];
    struct tpl t;
    char name[VD_NAME_MAX - 8] = "";
    int type = 0, drive = 0, tierod_mount = NO_REF, sub = -1;

    memset(&t, 0, sizeof(t));
    t.L = L;
    t.node = node;
    t.nerr0 = L->y->nerr;
    vd_ydoc_map(L->y, node, path, susp_keys, SU_N, v);
    vd_ydoc_string(L->y, v[SU_NAME], path, &susp_keys[SU_NAME], name, sizeof(name));
    vd_ydoc_enum(L->y, v[SU_TYPE], path, &susp_keys[SU_TYPE], susp_types, COUNT(susp_types), &type);
    vd_ydoc_enum(L->y, v[SU_DRIVE], path, &susp_keys[SU_DRIVE], drive_names, 2, &drive);
    snprintf(t.path, sizeof(t.path), "%s", path);
    vd_tpl_read_connection(&t, v[SU_CONN], &susp_keys[SU_CONN]);
    if (vd_tpl_read_mount(&t, v[SU_MOUNT], "mount"))
        return -EINVAL;
    vd_ydoc_vec(L->y, v[SU_LOC], path, &susp_keys[SU_LOC], 3, 3, t.loc, NULL);
    if (v[SU_TIEROD]) {
        char p[VD_YPATH_MAX];

        vd_ypath(p, path, "tierod_mount");
        tierod_mount = vd_ld_ref(L, &L->body, v[SU_TIEROD], p);
    } else {
        tierod_mount = t.mount;
    }
    {
        char bp[VD_YPATH_MAX];

        vd_ypath(bp, path, "bodies");
        check_keys(&t, v[SU_BODIES], bp,
                   type == 0 ? body_names_dw : (type == 1 ? body_names_ml : body_names_mp),
                   type == 0 ? COUNT(body_names_dw)
                             : (type == 1 ? COUNT(body_names_ml) : COUNT(body_names_mp)));
        vd_ypath(bp, path, "bushings");
        check_keys(&t, v[SU_BUSH], bp, bush_names, COUNT(bush_names));
    }
    if (L->y->nerr != t.nerr0)
        return -EINVAL;
    if (type == 1 && v[SU_SUBFRAME]) {
        snprintf(t.pre, sizeof(t.pre), "%s", name);
        t.side = 1.0;
        sub = subframe(&t, v[SU_SUBFRAME]);
        if (sub < 0)
            return -EINVAL;
    }
    for (int sd = 0; sd < 2; sd++) {
        const char *bpath_key = "bodies";
        char bpath[VD_YPATH_MAX];
        const yaml_node_t *B = v[SU_BODIES], *BU = v[SU_BUSH];
        const yaml_node_t *parts[4] = {v[SU_SPRING], v[SU_DAMPER], v[SU_BUMP], v[SU_REBOUND]};
        struct jspec jac, jball, jlink, jtrail;
        struct bspec ws, ts, rs, ks;
        struct corner c;
        int mount_links = sub >= 0 ? sub : t.mount;
        /* multilink: the tie rod (link 4) on `tierod_mount` when given (a steered multilink,
         * Chrono's Vehicle_MultiLinks front axle: its tie rods on the steering), else on the
         * subframe or mount as the other links */
        const int mount_tierod = v[SU_TIEROD] ? tierod_mount : mount_links;

        t.side = sd ? -1.0 : 1.0;
        snprintf(t.pre, sizeof(t.pre), "%s_%c", name, sd ? 'r' : 'l');
        vd_ypath(bpath, path, bpath_key);
        vd_tpl_read_jspec(&t, vd_tpl_map_get(L, BU, "arm_chassis"), path, "bushings.arm_chassis",
                          2e6, 5e5, 50.0, 500.0, 1e-3, &jac);
        vd_tpl_read_jspec(&t, vd_tpl_map_get(L, BU, "ball_joint"), path, "bushings.ball_joint", 1e7,
                          1e7, 5.0, 5.0, 1e-3, &jball);
        vd_tpl_read_jspec(&t, vd_tpl_map_get(L, BU, "link_inner"), path, "bushings.link_inner", 5e6,
                          1e6, 200.0, 200.0, 1e-3, &jlink);
        /* the trailing link carries the spring off its axis: its inner joint is a universal
         * joint (Chrono's multilink), torsionally stiff about the link */
        vd_tpl_read_jspec(&t, vd_tpl_map_get(L, BU, "trailing_inner"), path,
                          "bushings.trailing_inner", 5e6, 1e6, 1e5, 200.0, 1e-3, &jtrail);
        if (vd_tpl_read_bspec(&t, vd_tpl_map_get(L, B, "wheel"), bpath, "wheel", &ws) ||
            vd_tpl_read_bspec(&t, vd_tpl_map_get(L, B, "knuckle"), bpath, "knuckle", &ks))
            return -EINVAL;
        if (type != 2 &&
            (vd_tpl_read_bspec(&t, vd_tpl_map_get(L, B, "damper_tube"), bpath, "damper_tube",
                               &ts) ||
             vd_tpl_read_bspec(&t, vd_tpl_map_get(L, B, "piston_rod"), bpath, "piston_rod", &rs)))
            return -EINVAL;
        if (type == 0) {
            /* double wishbone (LSRT2 paper §2.1 level of detail) */
            static const char *const n[] = {
                "uca_front",    "uca_back",     "uca_outer",    "lca_front", "lca_back",
                "lca_outer",    "tierod_inner", "tierod_outer", "strut_top", "strut_bottom",
                "wheel_center", "spring_top",   "spring_bottom"};
            static const bool opt[13] = {[11] = true, [12] = true};
            double hp[13][3];
            bool given[13];
            int kn, uca, lca, tr;

            vd_tpl_read_points(&t, v[SU_HP], n, COUNT(n), opt, hp, given);
            if (L->y->nerr != t.nerr0)
                return -EINVAL;
            kn = vd_tpl_body_at_points(&t, "knuckle", &ks, (const double(*)[3])hp,
                                       (const int[]){2, 5, 7, 10}, 4);
            uca =
                vd_tpl_arm(&t, "uca", B, bpath, (const double(*)[3])hp, (const int[]){0, 1, 2}, 3);
            lca =
                vd_tpl_arm(&t, "lca", B, bpath, (const double(*)[3])hp, (const int[]){3, 4, 5}, 3);
            tr = vd_tpl_arm(&t, "tierod", B, bpath, (const double(*)[3])hp, (const int[]){6, 7}, 2);
            if (kn < 0 || uca < 0 || lca < 0 || tr < 0)
                return -EINVAL;
            if (t.connection) {
                /* Chrono's double wishbone: each arm on a revolute about its front-back
                 * axis and a ball joint at the knuckle; the tie rod on a universal joint
                 * inboard (no spin about itself) and a ball joint outboard */
                double g[8][3], ax[3], mid[3];

                for (int k = 0; k < 8; k++)
                    vd_tpl_gpt(&t, hp[k], g[k]);
                for (int a = 0; a < 2; a++) {
                    const int f = 3 * a;

                    vdu_sub3(ax, g[f + 1], g[f]);
                    for (int k = 0; k < 3; k++)
                        mid[k] = 0.5 * (g[f][k] + g[f + 1][k]);
                    vd_tpl_ideal(&t, a ? "lca_pivot" : "uca_pivot", VD_JOINT_REVOLUTE,
                                 a ? lca : uca, t.mount, mid, ax);
                    vd_tpl_ideal(&t, a ? "lca_ball" : "uca_ball", VD_JOINT_SPHERICAL, kn,
                                 a ? lca : uca, g[f + 2], NULL);
                }
                vdu_sub3(ax, g[7], g[6]);
                vd_tpl_ideal(&t, "tierod_inner", VD_JOINT_UNIVERSAL, tr, tierod_mount, g[6], ax);
                vd_tpl_ideal(&t, "tierod_outer", VD_JOINT_SPHERICAL, kn, tr, g[7], NULL);
            } else {
                axis_joint(&t, "uca_front", uca, t.mount, hp[0], hp[1], &jac);
                axis_joint(&t, "uca_back", uca, t.mount, hp[1], hp[0], &jac);
                vd_tpl_ball(&t, "uca_ball", kn, uca, hp[2], &jball);
                axis_joint(&t, "lca_front", lca, t.mount, hp[3], hp[4], &jac);
                axis_joint(&t, "lca_back", lca, t.mount, hp[4], hp[3], &jac);
                vd_tpl_ball(&t, "lca_ball", kn, lca, hp[5], &jball);
                vd_tpl_ball(&t, "tierod_inner", tr, tierod_mount, hp[6], &jball);
                vd_tpl_ball(&t, "tierod_outer", kn, tr, hp[7], &jball);
            }
            t_strut(&t, hp[8], hp[9], lca, &ts, &rs, parts, BU,
                    given[11] && given[12] ? (const double(*)[3])hp[11] : NULL);
            t_wheel(&t, kn, hp[10], &ws, v[SU_TIRE], v[SU_BRAKE], vd_tpl_map_get(L, BU, "bearing"),
                    drive == 0, &c);
        } else if (type == 1) {
            /* multilink: five links from the subframe (or chassis) to the knuckle */
            static const char *const n[] = {
                "upper_front_inner", "upper_back_inner", "upper_outer",    "lateral_inner",
                "lateral_outer",     "trailing_inner",   "trailing_outer", "tierod_inner",
                "tierod_outer",      "strut_top",        "strut_bottom",   "wheel_center",
                "spring_top",        "spring_bottom"};
            static const bool opt[14] = {[12] = true, [13] = true};
            bool given[14];
            static const char *const link_names[5] = {"upper_front", "upper_back", "lateral",
                                                      "trailing", "tierod"};
            static const int link_pts[5][2] = {{0, 2}, {1, 2}, {3, 4}, {5, 6}, {7, 8}};
            double hp[14][3];
            int kn, link[5];

            vd_tpl_read_points(&t, v[SU_HP], n, COUNT(n), opt, hp, given);
            if (L->y->nerr != t.nerr0)
                return -EINVAL;
            kn = vd_tpl_body_at_points(&t, "knuckle", &ks, (const double(*)[3])hp,
                                       (const int[]){2, 4, 6, 8, 11}, 5);
            for (int l = 0; l < 5; l++) {
                char e[NAME_BUF];

                link[l] =
                    vd_tpl_arm(&t, link_names[l], B, bpath, (const double(*)[3])hp, link_pts[l], 2);
                if (link[l] < 0 || kn < 0)
                    return -EINVAL;
                snprintf(e, sizeof(e), "%s_inner", link_names[l]);
                if (t.connection) {
                    /* the LIE paper's ideal-joint multilink: a universal joint inboard, a
                     * ball joint outboard */
                    double gi[3], go[3], ax[3];

                    vd_tpl_gpt(&t, hp[link_pts[l][0]], gi);
                    vd_tpl_gpt(&t, hp[link_pts[l][1]], go);
                    vdu_sub3(ax, go, gi);
                    vd_tpl_ideal(&t, e, VD_JOINT_UNIVERSAL, link[l],
                                 l == 4 ? mount_tierod : mount_links, gi, ax);
                    snprintf(e, sizeof(e), "%s_outer", link_names[l]);
                    vd_tpl_ideal(&t, e, VD_JOINT_SPHERICAL, kn, link[l], go, NULL);
                    continue;
                }
                axis_joint(&t, e, link[l], l == 4 ? mount_tierod : mount_links, hp[link_pts[l][0]],
                           hp[link_pts[l][1]], l == 3 ? &jtrail : &jlink);
                snprintf(e, sizeof(e), "%s_outer", link_names[l]);
                vd_tpl_ball(&t, e, kn, link[l], hp[link_pts[l][1]], &jball);
            }
            /* the strut sits on the trailing link (Chrono's multilink) */
            t_strut(&t, hp[9], hp[10], link[3], &ts, &rs, parts, BU,
                    given[12] && given[13] ? (const double(*)[3])hp[12] : NULL);
            t_wheel(&t, kn, hp[11], &ws, v[SU_TIRE], v[SU_BRAKE], vd_tpl_map_get(L, BU, "bearing"),
                    drive == 0, &c);
        } else {
            /* McPherson: the damper tube is part of the knuckle; the piston rod slides in it
             * (cylindrical bushing) and sits on the top mount; a lower arm and a tie rod */
            static const char *const n[] = {"lca_front",    "lca_back",     "lca_outer",
                                            "tierod_inner", "tierod_outer", "strut_top",
                                            "strut_bottom", "wheel_center"};
            double hp[8][3], top[3], bot[3], ax[3], mid[3], Rg[9], cr[3];
            const double up[3] = {0, 0, 1};
            struct jspec jt, jg;
            int kn, lca, tr, rod, ktop, kbot, ip;
            char nm[NAME_BUF];

            vd_tpl_read_points(&t, v[SU_HP], n, COUNT(n), NULL, hp, NULL);
            if (vd_tpl_read_bspec(&t, vd_tpl_map_get(L, B, "piston_rod"), bpath, "piston_rod",
                                  &rs) ||
                L->y->nerr != t.nerr0)
                return -EINVAL;
            kn = vd_tpl_body_at_points(&t, "knuckle", &ks, (const double(*)[3])hp,
                                       (const int[]){2, 4, 6, 7}, 4);
            lca =
                vd_tpl_arm(&t, "lca", B, bpath, (const double(*)[3])hp, (const int[]){0, 1, 2}, 3);
            tr = vd_tpl_arm(&t, "tierod", B, bpath, (const double(*)[3])hp, (const int[]){3, 4}, 2);
            vd_tpl_gpt(&t, hp[5], top);
            vd_tpl_gpt(&t, hp[6], bot);
            vdu_sub3(ax, top, bot);
            for (int k = 0; k < 3; k++) {
                mid[k] = bot[k] + 0.6 * ax[k];
                cr[k] = top[k] - 0.25 * ax[k];
            }
            vd_tpl_axes_x(Rg, ax, up);
            rod = vd_tpl_body(&t, "piston_rod", &rs, cr, NULL);
            if (kn < 0 || lca < 0 || tr < 0 || rod < 0)
                return -EINVAL;
            vd_tpl_read_jspec(&t, vd_tpl_map_get(L, BU, "strut_top"), path, "bushings.strut_top",
                              1e6, 5e5, 100.0, 100.0, 1e-3, &jt);
            vd_tpl_read_jspec(&t, vd_tpl_map_get(L, BU, "strut_guide"), path,
                              "bushings.strut_guide", 1e7, 0.0, 1.0, 1e5, 1e-3, &jg);
            if (t.connection) {
                /* Chrono's MacPhersonStrut: the lower arm on a revolute about its front-back
                 * axis and a ball joint at the knuckle; the strut (piston rod) on a universal
                 * joint at the top mount (no spin about itself) and a cylindrical joint in the
                 * knuckle's damper tube (it slides, and the knuckle steers about it); the tie
                 * rod on a universal joint inboard and a ball joint outboard */
                double g[5][3], a[3], cp[3];

                for (int k = 0; k < 5; k++)
                    vd_tpl_gpt(&t, hp[k], g[k]);
                vdu_sub3(a, g[1], g[0]);
                for (int k = 0; k < 3; k++)
                    cp[k] = 0.5 * (g[0][k] + g[1][k]);
                vd_tpl_ideal(&t, "lca_pivot", VD_JOINT_REVOLUTE, lca, t.mount, cp, a);
                vd_tpl_ideal(&t, "lca_ball", VD_JOINT_SPHERICAL, kn, lca, g[2], NULL);
                vdu_sub3(a, g[4], g[3]);
                vd_tpl_ideal(&t, "tierod_inner", VD_JOINT_UNIVERSAL, tr, tierod_mount, g[3], a);
                vd_tpl_ideal(&t, "tierod_outer", VD_JOINT_SPHERICAL, kn, tr, g[4], NULL);
                vd_tpl_ideal(&t, "strut_top", VD_JOINT_UNIVERSAL, rod, t.mount, top, ax);
                vd_tpl_ideal(&t, "strut_guide", VD_JOINT_CYLINDRICAL, kn, rod, mid, ax);
            } else {
                axis_joint(&t, "lca_front", lca, t.mount, hp[0], hp[1], &jac);
                axis_joint(&t, "lca_back", lca, t.mount, hp[1], hp[0], &jac);
                vd_tpl_ball(&t, "lca_ball", kn, lca, hp[2], &jball);
                vd_tpl_ball(&t, "tierod_inner", tr, tierod_mount, hp[3], &jball);
                vd_tpl_ball(&t, "tierod_outer", kn, tr, hp[4], &jball);
                vd_tpl_joint(&t, "strut_top", rod, t.mount, top, Rg, &jt, VD_ROT_VECTOR);
                vd_tpl_joint(&t, "strut_guide", kn, rod, mid, Rg, &jg, VD_ROT_CARDAN);
            }
            ktop = vd_tpl_marker(&t, "spring_top", rod, top, Rg);
            kbot = vd_tpl_marker(&t, "spring_bottom", kn, bot, Rg);
            vd_tpl_name(nm, &t, "strut");
            ip = vd_ld_push(L, &L->p2p, nm, node, path);
            if (ip >= 0 && ktop >= 0 && kbot >= 0) {
                struct vd_p2p *p = (struct vd_p2p *)L->p2p.v + ip;

                p->mk[0] = ktop;
                p->mk[1] = kbot;
                vd_ld_p2p_parts(L, parts, path, p);
            }
            t_wheel(&t, kn, hp[7], &ws, v[SU_TIRE], v[SU_BRAKE], vd_tpl_map_get(L, BU, "bearing"),
                    drive == 0, &c);
        }
    }
    return L->y->nerr == t.nerr0 ? 0 : -EINVAL;
}
