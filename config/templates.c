/* config/templates.c - suspension, anti-roll bar, steering and driveline templates: expand
 * hardpoints into bodies, markers, bushings, p2p elements, couplers, tyres and actuator
 * inputs of the raw data model (core/model.h). Init only.
 *
 * Conventions (as Project Chrono's vehicle data, shared/data/chrono-vehicle): ISO axes
 * (x forward, y left, z up); hardpoints are given for the LEFT side in the frame of the
 * subsystem, whose origin sits at `location` in the mount body's reference frame; the right
 * side is the mirror image (y -> -y). Every generated body starts with its reference frame
 * at its centre of mass and the axes of the mount body (wheels, shafts and pinions: their
 * x axis along the spin axis), inertia tensors are given in the mount body's axes.
 * Names: element <e> of side <s> of template <t> is "<t>_<s>.<e>" (s = l, r), e.g.
 * "front_l.knuckle"; single-instance parts are "<t>.<e>". Every joint is an elastic bushing
 * (stiffness and damping per joint kind, overridable); nothing is a look-up table. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/ranges.h"
#include "config/loader.h"
#include "config/tpl.h"
#include "config/sources.h"
#include "config/ydoc.h"
#include "core/vdmath.h"

/* axes and origin of body b's reference frame at t0 */
void vd_tpl_body_frame(const struct loader *L, int b, double R[9], double o[3])
{
    const struct vd_body *bd = (const struct vd_body *)L->body.v + b;

    vdu_cardan_zyx(R, bd->pose0[3], bd->pose0[4], bd->pose0[5]);
    memcpy(o, bd->pose0, 3 * sizeof(double));
}

/* a left-side point of the subsystem frame -> global (mirrored for the right side) */
void vd_tpl_gpt(const struct tpl *t, const double hp[3], double g[3])
{
    double p[3] = {t->loc[0] + hp[0], t->loc[1] + t->side * hp[1], t->loc[2] + hp[2]}, q[3];

    vdu_mat3_vec(q, t->R0, p);
    vdu_add3(g, t->o0, q);
}

/* a left-side direction of the subsystem frame -> global (mirrored) */
void vd_tpl_gdir(const struct tpl *t, const double d[3], double g[3])
{
    const double p[3] = {d[0], t->side * d[1], d[2]};

    vdu_mat3_vec(g, t->R0, p);
}

/* axes (columns) with x along dir (any length), y as close to hint as possible */
void vd_tpl_axes_x(double R[9], const double dir[3], const double hint[3])
{
    double e1[3], e2[3], e3[3], n = sqrt(vdu_dot3(dir, dir)), h[3];

    vdu_scale3(e1, 1.0 / n, dir);
    memcpy(h, hint, sizeof(h));
    if (fabs(vdu_dot3(h, e1)) > 0.95 * sqrt(vdu_dot3(h, h))) {
        /* hint parallel to the axis: take another */
        h[0] = e1[1];
        h[1] = e1[2];
        h[2] = e1[0];
    }
    vdu_cross3(e3, e1, h);
    vdu_scale3(e3, 1.0 / sqrt(vdu_dot3(e3, e3)), e3);
    vdu_cross3(e2, e3, e1);
    for (int i = 0; i < 3; i++) {
        R[3 * i] = e1[i];
        R[3 * i + 1] = e2[i];
        R[3 * i + 2] = e3[i];
    }
}

void vd_tpl_name(char *out, const struct tpl *t, const char *e)
{
    snprintf(out, NAME_BUF, "%s.%s", t->pre, e);
}

/* ---- body, marker, bushing, p2p, input --------------------------------------------------- */

/* body spec: {mass, inertia (mount axes: 3 or 6 numbers), com (left side, subsystem frame)} */
enum { BS_MASS, BS_INERTIA, BS_COM, BS_N };
static const struct vd_ykey bspec_keys[BS_N] = {
    [BS_MASS] = VD_YKEY_IN("mass", REQ, "kg", VD_RNG_MASS),
    [BS_INERTIA] = VD_YKEY_IN("inertia", REQ, "kg m^2", VD_RNG_INERTIA),
    [BS_COM] = VD_YKEY_IN("com", 0, "m", VD_RNG_LOCAL),
};

int vd_tpl_read_bspec(struct tpl *t, const yaml_node_t *node, const char *parent, const char *key,
                      struct bspec *b)
{
    char path[VD_YPATH_MAX];
    yaml_node_t *v[BS_N];
    int e0 = t->L->y->nerr;

    memset(b, 0, sizeof(*b));
    vd_ypath(path, parent, key);
    if (!node) {
        vd_ydoc_error(t->L->y, t->node, "%s: missing (mass and inertia of '%s')", path, key);
        return -EINVAL;
    }
    vd_ydoc_map(t->L->y, node, path, bspec_keys, BS_N, v);
    vd_ydoc_number(t->L->y, v[BS_MASS], path, &bspec_keys[BS_MASS], &b->mass);
    vd_ld_inertia(t->L, v[BS_INERTIA], path, b->I);
    b->has_com = v[BS_COM] != NULL;
    vd_ydoc_vec(t->L->y, v[BS_COM], path, &bspec_keys[BS_COM], 3, 3, b->com, NULL);
    return t->L->y->nerr == e0 ? 0 : -EINVAL;
}

/* a body named <pre>.<e> at global CoM com_g, axes Rrel in the mount's axes (NULL: same) */
int vd_tpl_body(struct tpl *t, const char *e, const struct bspec *s, const double com_g[3],
                const double Rrel[9])
{
    char name[NAME_BUF];
    struct vd_body *b;
    double I[9], Rg[9], ang[3], S[9], IS[9], T1[9];
    int i;

    vd_tpl_name(name, t, e);
    i = vd_ld_push(t->L, &t->L->body, name, t->node, t->path);
    if (i < 0)
        return i;
    b = (struct vd_body *)t->L->body.v + i;
    b->mass = s->mass;
    /* mirror the products of inertia for the right side: S I S, S = diag(1, -1, 1) */
    memcpy(I, s->I, sizeof(I));
    if (t->side < 0) {
        I[1] = -I[1];
        I[3] = -I[3];
        I[5] = -I[5];
        I[7] = -I[7];
    }
    /* body axes: I_b = Rrel^T I Rrel */
    if (Rrel) {
        vdu_mat3_mul(IS, I, Rrel);
        vdu_mat3t_mul(S, Rrel, IS);
        memcpy(b->inertia, S, sizeof(S));
        vdu_mat3_mul(Rg, t->R0, Rrel);
    } else {
        memcpy(b->inertia, I, sizeof(I));
        memcpy(Rg, t->R0, sizeof(Rg));
    }
    vdu_cardan_from_mat(ang, Rg);
    (void)T1;
    memcpy(b->pose0, com_g, 3 * sizeof(double));
    memcpy(b->pose0 + 3, ang, 3 * sizeof(double));
    return i;
}

/* a marker named <pre>.<e> on body b at global point p with global axes Rg (NULL: body's) */
int vd_tpl_marker(struct tpl *t, const char *e, int b, const double p[3], const double Rg[9])
{
    char name[NAME_BUF];
    struct vd_marker *mk;
    double Rb[9], ob[3], d[3];
    int i;

    vd_tpl_name(name, t, e);
    i = vd_ld_push(t->L, &t->L->marker, name, t->node, t->path);
    if (i < 0)
        return i;
    mk = (struct vd_marker *)t->L->marker.v + i;
    mk->body = b;
    if (b == VD_GROUND) {
        memcpy(mk->pos, p, sizeof(mk->pos));
        if (Rg)
            memcpy(mk->rot, Rg, sizeof(mk->rot));
        else
            vdu_mat3_eye(mk->rot);
        return i;
    }
    vd_tpl_body_frame(t->L, b, Rb, ob);
    vdu_sub3(d, p, ob);
    vdu_mat3t_vec(mk->pos, Rb, d);
    if (Rg)
        vdu_mat3t_mul(mk->rot, Rb, Rg);
    else
        vdu_mat3_eye(mk->rot);
    return i;
}

enum { JS_RADIAL, JS_AXIAL, JS_TORS, JS_CON, JS_TAU, JS_N };
static const struct vd_ykey jspec_keys[JS_N] = {
    [JS_RADIAL] = VD_YKEY_IN("radial", 0, "N/m", VD_RNG_STIFF),
    [JS_AXIAL] = VD_YKEY_IN("axial", 0, "N/m", VD_RNG_STIFF),
    [JS_TORS] = VD_YKEY_IN("torsional", 0, "N m/rad", VD_RNG_STIFF),
    [JS_CON] = VD_YKEY_IN("conical", 0, "N m/rad", VD_RNG_STIFF),
    [JS_TAU] = VD_YKEY_RANGE("damping", 0, "s", 0.0, 1.0),
};

struct vd_curve vd_tpl_lin(struct loader *L, double k)
{
    struct vd_curve_spec s = {.kind = VD_CURVE_LINEAR, .k = k};
    struct vd_curve c;
    char err[64];

    memset(&c, 0, sizeof(c));
    vd_model_add_curve(L->m, &s, true, &c, err, sizeof(err));
    return c;
}

/* defaults, then the keys given in node (a mapping) */
void vd_tpl_read_jspec(struct tpl *t, const yaml_node_t *node, const char *parent, const char *key,
                       double radial, double axial, double tors, double con, double tau,
                       struct jspec *j)
{
    char path[VD_YPATH_MAX];
    yaml_node_t *v[JS_N];

    j->radial = vd_tpl_lin(t->L, radial);
    j->axial = vd_tpl_lin(t->L, axial);
    j->torsional = vd_tpl_lin(t->L, tors);
    j->conical = vd_tpl_lin(t->L, con);
    j->tau = tau;
    if (!node)
        return;
    vd_ypath(path, parent, key);
    vd_ydoc_map(t->L->y, node, path, jspec_keys, JS_N, v);
    if (v[JS_RADIAL])
        vd_ld_curve(t->L, v[JS_RADIAL], path, &jspec_keys[JS_RADIAL], VD_INTERP_PCHIP, false,
                    &j->radial);
    if (v[JS_AXIAL])
        vd_ld_curve(t->L, v[JS_AXIAL], path, &jspec_keys[JS_AXIAL], VD_INTERP_PCHIP, false,
                    &j->axial);
    if (v[JS_TORS])
        vd_ld_curve(t->L, v[JS_TORS], path, &jspec_keys[JS_TORS], VD_INTERP_PCHIP, false,
                    &j->torsional);
    if (v[JS_CON])
        vd_ld_curve(t->L, v[JS_CON], path, &jspec_keys[JS_CON], VD_INTERP_PCHIP, false,
                    &j->conical);
    vd_ydoc_number(t->L->y, v[JS_TAU], path, &jspec_keys[JS_TAU], &j->tau);
}

static struct vd_curve damping_of(struct loader *L, const struct vd_curve *k, double tau)
{
    double slope;

    vd_curve_eval(L->m, k, 0.0, &slope);
    return vd_tpl_lin(L, tau * slope);
}

/* a bushing <pre>.<e> joining body bi (marker i) to body bj (marker j) at global point p, axes
 * Rg (x = the joint's axis); returns the bushing index */
int vd_tpl_joint(struct tpl *t, const char *e, int bi, int bj, const double p[3],
                 const double Rg[9], const struct jspec *s, int rot_mode)
{
    char mi[NAME_BUF], mj[NAME_BUF], name[NAME_BUF];
    struct vd_bushing *b;
    int ki, kj, i;
    const struct vd_curve *k[6] = {&s->axial,     &s->radial,  &s->radial,
                                   &s->torsional, &s->conical, &s->conical};

    snprintf(mi, sizeof(mi), "%s.i", e);
    snprintf(mj, sizeof(mj), "%s.j", e);
    ki = vd_tpl_marker(t, mi, bi, p, Rg);
    kj = vd_tpl_marker(t, mj, bj, p, Rg);
    vd_tpl_name(name, t, e);
    i = vd_ld_push(t->L, &t->L->bush, name, t->node, t->path);
    if (i < 0 || ki < 0 || kj < 0)
        return -EINVAL;
    b = (struct vd_bushing *)t->L->bush.v + i;
    b->mk[0] = ki;
    b->mk[1] = kj;
    b->rot_mode = rot_mode;
    for (int c = 0; c < 6; c++) {
        b->stiff[c] = *k[c];
        b->damp[c] = damping_of(t->L, k[c], s->tau);
    }
    return i;
}

int vd_tpl_input(struct tpl *t, const char *e)
{
    char name[NAME_BUF];
    struct vd_input *in;
    int i;

    vd_tpl_name(name, t, e);
    i = vd_ld_push(t->L, &t->L->input, name, t->node, t->path);
    if (i < 0)
        return i;
    in = (struct vd_input *)t->L->input.v + i;
    in->kind = VD_INPUT_ACTUATOR;
    in->marker = -1;
    /* zero signal until a scenario or the CAN mapping drives it */
    vd_cfg_sources_add(t->L->src, t->L->y, i, NULL, t->path);
    return i;
}

void vd_tpl_act(struct tpl *t, int bush, int comp, int mode, int input, double gain)
{
    struct vd_bushing *b = (struct vd_bushing *)t->L->bush.v + bush;

    (void)t;
    b->act[comp] = mode;
    b->act_input[comp] = input;
    b->act_gain[comp] = gain;
}

/* ---- common reading --------------------------------------------------------------------- */

/* the hardpoints mapping: every name in names[] required, read into hp[k][3] */
void vd_tpl_read_points(struct tpl *t, const yaml_node_t *node, const char *const *names, int n,
                        const bool *optional, double (*hp)[3], bool *given)
{
    struct vd_ykey keys[VD_YMAP_MAX];
    yaml_node_t *v[VD_YMAP_MAX];
    char path[VD_YPATH_MAX];

    vd_ypath(path, t->path, "hardpoints");
    for (int k = 0; k < n; k++)
        keys[k] = (struct vd_ykey)VD_YKEY_IN(names[k], optional && optional[k] ? 0 : REQ, "m",
                                             VD_RNG_LOCAL);
    if (!node) {
        vd_ydoc_error(t->L->y, t->node, "missing required key 'hardpoints' in %s", t->path);
        return;
    }
    vd_ydoc_map(t->L->y, node, path, keys, n, v);
    for (int k = 0; k < n; k++) {
        if (given)
            given[k] = v[k] != NULL;
        vd_ydoc_vec(t->L->y, v[k], path, &keys[k], 3, 3, hp[k], NULL);
    }
}

/* the mount body (by name) and its frame */
int vd_tpl_read_mount(struct tpl *t, const yaml_node_t *node, const char *key)
{
    char path[VD_YPATH_MAX];

    vd_ypath(path, t->path, key);
    t->mount = vd_ld_ref(t->L, &t->L->body, node, path);
    if (t->mount == VD_GROUND) {
        /* a test rig: the subsystem on the inertial frame */
        vdu_mat3_eye(t->R0);
        memset(t->o0, 0, sizeof(t->o0));
        return 0;
    }
    if (t->mount >= 0)
        vd_tpl_body_frame(t->L, t->mount, t->R0, t->o0);
    return t->mount >= 0 ? 0 : -EINVAL;
}

static void centroid(double out[3], const double (*p)[3], int n)
{
    memset(out, 0, 3 * sizeof(double));
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            out[k] += p[i][k] / n;
}

/* CoM of a body: its spec's com (subsystem frame, mirrored) or the centroid given (global) */
static void com_of(const struct tpl *t, const struct bspec *s, const double centroid_g[3],
                   double out[3])
{
    if (s->has_com)
        vd_tpl_gpt(t, s->com, out);
    else
        memcpy(out, centroid_g, 3 * sizeof(double));
}

/* ---- wheel, bearing, brake, hub drive, tyre (shared by the suspension templates) ------- */

enum { WH_TIR, WH_KZ, WH_CZ, WH_CLOW, WH_N };
static const struct vd_ykey tire_tkeys[WH_N] = {
    [WH_TIR] = VD_YKEY("tir", REQ, NULL),
    [WH_KZ] = VD_YKEY_IN("vertical_stiffness", LO_OPEN, "N/m", VD_RNG_STIFF),
    [WH_CZ] = VD_YKEY_IN("vertical_damping", 0, "N s/m", VD_RNG_DAMP),
    [WH_CLOW] = VD_YKEY_IN("low_speed_damping", 0, "N s/m", VD_RNG_DAMP),
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
    vd_tpl_joint(t, "strut_top", brod, t->mount, top, Rg, &jt, VD_ROT_VECTOR);
    vd_tpl_joint(t, "strut_bottom", btube, lower, bot, Rg, &jb, VD_ROT_VECTOR);
    vd_tpl_joint(t, "strut_guide", btube, brod, mid, Rg, &jg, VD_ROT_CARDAN);
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

/* an arm or link body between points; CoM default = centroid */
/* body e with spec s at the centroid of the hardpoints hp[idx[0..n-1]] (n <= 6), unless the
 * spec gives its CoM */
static int body_at_points(struct tpl *t, const char *e, const struct bspec *s,
                          const double (*hp)[3], const int *idx, int n)
{
    double g[6][3], c[3];

    for (int i = 0; i < n; i++)
        vd_tpl_gpt(t, hp[idx[i]], g[i]);
    centroid(c, (const double(*)[3])g, n);
    com_of(t, s, c, c);
    return vd_tpl_body(t, e, s, c, NULL);
}

/* an arm or link e between the hardpoints hp[idx[..]], its spec from bodies.<e> */
static int arm(struct tpl *t, const char *e, const yaml_node_t *bodies, const char *bpath,
               const double (*hp)[3], const int *idx, int n)
{
    struct bspec s;

    if (vd_tpl_read_bspec(t, vd_tpl_map_get(t->L, bodies, e), bpath, e, &s))
        return -EINVAL;
    return body_at_points(t, e, &s, hp, idx, n);
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

static int ball(struct tpl *t, const char *e, int bi, int bj, const double hp[3],
                const struct jspec *s)
{
    double p[3];

    vd_tpl_gpt(t, hp, p);
    return vd_tpl_joint(t, e, bi, bj, p, t->R0, s, VD_ROT_VECTOR);
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
                ball(t, e, b, t->mount, hp, &j);
                t->side = sv;
            }
        }
    }
    return b;
}

static int load_suspension(struct loader *L, yaml_node_t *node, const char *path)
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
            kn = body_at_points(&t, "knuckle", &ks, (const double(*)[3])hp,
                                (const int[]){2, 5, 7, 10}, 4);
            uca = arm(&t, "uca", B, bpath, (const double(*)[3])hp, (const int[]){0, 1, 2}, 3);
            lca = arm(&t, "lca", B, bpath, (const double(*)[3])hp, (const int[]){3, 4, 5}, 3);
            tr = arm(&t, "tierod", B, bpath, (const double(*)[3])hp, (const int[]){6, 7}, 2);
            if (kn < 0 || uca < 0 || lca < 0 || tr < 0)
                return -EINVAL;
            axis_joint(&t, "uca_front", uca, t.mount, hp[0], hp[1], &jac);
            axis_joint(&t, "uca_back", uca, t.mount, hp[1], hp[0], &jac);
            ball(&t, "uca_ball", kn, uca, hp[2], &jball);
            axis_joint(&t, "lca_front", lca, t.mount, hp[3], hp[4], &jac);
            axis_joint(&t, "lca_back", lca, t.mount, hp[4], hp[3], &jac);
            ball(&t, "lca_ball", kn, lca, hp[5], &jball);
            ball(&t, "tierod_inner", tr, tierod_mount, hp[6], &jball);
            ball(&t, "tierod_outer", kn, tr, hp[7], &jball);
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
            kn = body_at_points(&t, "knuckle", &ks, (const double(*)[3])hp,
                                (const int[]){2, 4, 6, 8, 11}, 5);
            for (int l = 0; l < 5; l++) {
                char e[NAME_BUF];

                link[l] = arm(&t, link_names[l], B, bpath, (const double(*)[3])hp, link_pts[l], 2);
                if (link[l] < 0 || kn < 0)
                    return -EINVAL;
                snprintf(e, sizeof(e), "%s_inner", link_names[l]);
                axis_joint(&t, e, link[l], mount_links, hp[link_pts[l][0]], hp[link_pts[l][1]],
                           l == 3 ? &jtrail : &jlink);
                snprintf(e, sizeof(e), "%s_outer", link_names[l]);
                ball(&t, e, kn, link[l], hp[link_pts[l][1]], &jball);
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
            kn = body_at_points(&t, "knuckle", &ks, (const double(*)[3])hp,
                                (const int[]){2, 4, 6, 7}, 4);
            lca = arm(&t, "lca", B, bpath, (const double(*)[3])hp, (const int[]){0, 1, 2}, 3);
            tr = arm(&t, "tierod", B, bpath, (const double(*)[3])hp, (const int[]){3, 4}, 2);
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
            axis_joint(&t, "lca_front", lca, t.mount, hp[0], hp[1], &jac);
            axis_joint(&t, "lca_back", lca, t.mount, hp[1], hp[0], &jac);
            ball(&t, "lca_ball", kn, lca, hp[2], &jball);
            ball(&t, "tierod_inner", tr, tierod_mount, hp[3], &jball);
            ball(&t, "tierod_outer", kn, tr, hp[4], &jball);
            vd_tpl_read_jspec(&t, vd_tpl_map_get(L, BU, "strut_top"), path, "bushings.strut_top",
                              1e6, 5e5, 100.0, 100.0, 1e-3, &jt);
            vd_tpl_read_jspec(&t, vd_tpl_map_get(L, BU, "strut_guide"), path,
                              "bushings.strut_guide", 1e7, 0.0, 1.0, 1e5, 1e-3, &jg);
            vd_tpl_joint(&t, "strut_top", rod, t.mount, top, Rg, &jt, VD_ROT_VECTOR);
            vd_tpl_joint(&t, "strut_guide", kn, rod, mid, Rg, &jg, VD_ROT_CARDAN);
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

/* ---- anti-roll bar -------------------------------------------------------------------------
 * Two halves joined at the centre by a torsion spring (a Cardan bushing about the bar axis,
 * y), each half in a bearing bushing on the mount (free about y), a drop link from each arm
 * end (ball joints) to a body of a suspension. */
enum { AR_NAME, AR_MOUNT, AR_LOC, AR_HP, AR_BODIES, AR_ATTACH, AR_TORS, AR_BUSH, AR_N };
static const struct vd_ykey arb_keys[AR_N] = {
    [AR_NAME] = VD_YKEY("name", REQ, NULL),
    [AR_MOUNT] = VD_YKEY("mount", REQ, NULL),
    [AR_LOC] = VD_YKEY_IN("location", REQ, "m", VD_RNG_LOCAL),
    [AR_HP] = VD_YKEY("hardpoints", REQ, NULL), /* center, bearing, arm_end, link_bottom */
    [AR_BODIES] = VD_YKEY("bodies", REQ, NULL), /* half, droplink */
    [AR_ATTACH] = VD_YKEY("attach", REQ, NULL), /* "<suspension>.<body>", side added */
    [AR_TORS] = VD_YKEY_IN("torsional_stiffness", REQ | LO_OPEN, "N m/rad", VD_RNG_STIFF),
    [AR_BUSH] = VD_YKEY("bushings", 0, NULL), /* bearing, ball_joint */
};

static int load_arb(struct loader *L, yaml_node_t *node, const char *path)
{
    static const char *const n[] = {"center", "bearing", "arm_end", "link_bottom"};
    yaml_node_t *v[AR_N];
    struct tpl t;
    char name[VD_NAME_MAX - 8] = "", attach[VD_NAME_MAX] = "", bpath[VD_YPATH_MAX];
    double hp[4][3], k_t = 0.0;
    struct bspec hs, ds;
    struct jspec jb, jball, jc;
    int half[2] = {-1, -1};
    const double ey[3] = {0, 1, 0}, ex[3] = {1, 0, 0};

    memset(&t, 0, sizeof(t));
    t.L = L;
    t.node = node;
    t.nerr0 = L->y->nerr;
    snprintf(t.path, sizeof(t.path), "%s", path);
    vd_ydoc_map(L->y, node, path, arb_keys, AR_N, v);
    vd_ydoc_string(L->y, v[AR_NAME], path, &arb_keys[AR_NAME], name, sizeof(name));
    vd_ydoc_string(L->y, v[AR_ATTACH], path, &arb_keys[AR_ATTACH], attach, sizeof(attach));
    vd_ydoc_number(L->y, v[AR_TORS], path, &arb_keys[AR_TORS], &k_t);
    if (vd_tpl_read_mount(&t, v[AR_MOUNT], "mount"))
        return -EINVAL;
    vd_ydoc_vec(L->y, v[AR_LOC], path, &arb_keys[AR_LOC], 3, 3, t.loc, NULL);
    vd_tpl_read_points(&t, v[AR_HP], n, COUNT(n), NULL, hp, NULL);
    vd_ypath(bpath, path, "bodies");
    if (vd_tpl_read_bspec(&t, vd_tpl_map_get(L, v[AR_BODIES], "half"), bpath, "half", &hs) ||
        vd_tpl_read_bspec(&t, vd_tpl_map_get(L, v[AR_BODIES], "droplink"), bpath, "droplink", &ds))
        return -EINVAL;
    if (L->y->nerr != t.nerr0)
        return -EINVAL;
    for (int sd = 0; sd < 2; sd++) {
        double Rb[9], Rx[9], p[3];
        char tgt[NAME_BUF], suffix[VD_NAME_MAX];
        const char *dot = strchr(attach, '.');
        int target, dl;

        t.side = sd ? -1.0 : 1.0;
        snprintf(t.pre, sizeof(t.pre), "%s_%c", name, sd ? 'r' : 'l');
        vd_tpl_read_jspec(&t, vd_tpl_map_get(L, v[AR_BUSH], "bearing"), path, "bushings.bearing",
                          5e6, 1e6, 0.0, 1e4, 1e-3, &jb);
        vd_tpl_read_jspec(&t, vd_tpl_map_get(L, v[AR_BUSH], "ball_joint"), path,
                          "bushings.ball_joint", 5e6, 5e6, 2.0, 2.0, 1e-3, &jball);
        half[sd] =
            body_at_points(&t, "half", &hs, (const double(*)[3])hp, (const int[]){0, 1, 2}, 3);
        /* bearing: x along the bar (y), free rotation about it */
        vd_tpl_gdir(&t, ey, p);
        vd_tpl_axes_x(Rb, p, (const double[3]){0, 0, 1});
        vd_tpl_gpt(&t, hp[1], p);
        vd_tpl_joint(&t, "bearing", half[sd], t.mount, p, Rb, &jb, VD_ROT_CARDAN);
        /* drop link: arm end -> suspension body */
        dl = arm(&t, "droplink", v[AR_BODIES], bpath, (const double(*)[3])hp, (const int[]){2, 3},
                 2);
        if (!dot || dot == attach) {
            vd_ydoc_error(L->y, v[AR_ATTACH],
                          "%s.attach: expected <suspension>.<body>, e.g. front.lca", path);
            return -EINVAL;
        }
        snprintf(suffix, sizeof(suffix), "%s", dot + 1);
        snprintf(tgt, sizeof(tgt), "%.*s_%c.%s", (int)(dot - attach), attach, sd ? 'r' : 'l',
                 suffix);
        target = vd_ld_find(&L->body, tgt);
        if (target < 0) {
            vd_ydoc_error(L->y, v[AR_ATTACH],
                          "%s.attach: no body '%s' (define the suspension first)", path, tgt);
            return -EINVAL;
        }
        ball(&t, "droplink_top", dl, half[sd], hp[2], &jball);
        ball(&t, "droplink_bottom", dl, target, hp[3], &jball);
        (void)Rx;
        (void)ex;
    }
    /* centre torsion spring between the halves: stiff except the torsion about y */
    {
        double p[3], Rb[9], d[3];

        snprintf(t.pre, sizeof(t.pre), "%s", name);
        t.side = 1.0;
        vd_tpl_read_jspec(&t, NULL, path, "center", 1e7, 1e7, k_t, 1e5, 1e-3, &jc);
        jc.torsional = vd_tpl_lin(L, k_t);
        vd_tpl_gpt(&t, hp[0], p);
        vd_tpl_gdir(&t, ey, d);
        vd_tpl_axes_x(Rb, d, (const double[3]){0, 0, 1});
        if (half[0] >= 0 && half[1] >= 0)
            vd_tpl_joint(&t, "torsion", half[0], half[1], p, Rb, &jc, VD_ROT_CARDAN);
    }
    return L->y->nerr == t.nerr0 ? 0 : -EINVAL;
}

/* axes of a body spinning about dir (global), in the mount's axes: x along dir, unless dir is
 * within 30 deg of the vertical, where the mount's axes serve (the spin goes to az, and the
 * middle Cardan angle stays below 60 deg either way) */
void vd_tpl_rel_axes(const struct tpl *t, const double dir[3], double Rrel[9])
{
    double Rg[9], zg[3] = {t->R0[2], t->R0[5], t->R0[8]};

    if (fabs(vdu_dot3(dir, zg)) > cos(M_PI / 6.0) * sqrt(vdu_dot3(dir, dir))) {
        vdu_mat3_eye(Rrel);
        return;
    }
    vd_tpl_axes_x(Rg, dir, (const double[3]){0, 0, 1});
    vdu_mat3t_mul(Rrel, t->R0, Rg);
}

/* ---- driveline: half shafts from the differential (on the mount) to the wheels --------- */
enum { DL_MOUNT, DL_AXLES, DL_N };
static const struct vd_ykey drive_keys[DL_N] = {
    [DL_MOUNT] = VD_YKEY("mount", REQ, NULL),
    [DL_AXLES] = VD_YKEY("axles", REQ, NULL), /* [{suspension, location, inner, shaft, ...}] */
};
enum { DA_SUSP, DA_LOC, DA_INNER, DA_SHAFT, DA_TORS, DA_N };
static const struct vd_ykey daxle_keys[DA_N] = {
    [DA_SUSP] = VD_YKEY("suspension", REQ, NULL), /* name of a suspension with drive: shaft */
    [DA_LOC] = VD_YKEY_IN("location", REQ, "m", VD_RNG_LOCAL),
    [DA_INNER] = VD_YKEY_IN("inner", REQ, "m", VD_RNG_LOCAL), /* left inner joint, axle frame */
    [DA_SHAFT] = VD_YKEY("shaft", REQ, NULL),                 /* {mass, inertia} (mount axes) */
    [DA_TORS] = VD_YKEY_IN("torsional_stiffness", 0, "N m/rad", VD_RNG_STIFF), /* 2e4 */
};

static int load_driveline(struct loader *L, yaml_node_t *node, const char *path)
{
    yaml_node_t *v[DL_N];
    struct tpl t;
    int n = 0;

    memset(&t, 0, sizeof(t));
    t.L = L;
    t.node = node;
    t.nerr0 = L->y->nerr;
    snprintf(t.path, sizeof(t.path), "%s", path);
    vd_ydoc_map(L->y, node, path, drive_keys, DL_N, v);
    if (vd_tpl_read_mount(&t, v[DL_MOUNT], "mount"))
        return -EINVAL;
    if (!v[DL_AXLES] || vd_ydoc_seq(L->y, v[DL_AXLES], "driveline.axles", 1, &n))
        return -EINVAL;
    for (int a = 0; a < n; a++) {
        yaml_node_t *w[DA_N];
        char ap[VD_YPATH_MAX], susp[VD_NAME_MAX - 8] = "";
        double inner[3], k_t = 2e4;
        struct bspec ss;

        vd_ypath_index(ap, "driveline.axles", a);
        snprintf(t.path, sizeof(t.path), "%s", ap);
        vd_ydoc_map(L->y, vd_ydoc_item(L->y, v[DL_AXLES], a), ap, daxle_keys, DA_N, w);
        vd_ydoc_string(L->y, w[DA_SUSP], ap, &daxle_keys[DA_SUSP], susp, sizeof(susp));
        vd_ydoc_vec(L->y, w[DA_LOC], ap, &daxle_keys[DA_LOC], 3, 3, t.loc, NULL);
        vd_ydoc_vec(L->y, w[DA_INNER], ap, &daxle_keys[DA_INNER], 3, 3, inner, NULL);
        vd_ydoc_number(L->y, w[DA_TORS], ap, &daxle_keys[DA_TORS], &k_t);
        if (vd_tpl_read_bspec(&t, w[DA_SHAFT], ap, "shaft", &ss) || L->y->nerr != t.nerr0)
            return -EINVAL;
        for (int sd = 0; sd < 2; sd++) {
            char wname[NAME_BUF], mname[NAME_BUF];
            int wheel, wm, shaft, e_in, in_drive;
            double pin[3], pout[3], d[3], c[3], Rrel[9], Rg[9];
            struct jspec jin, jout;

            t.side = sd ? -1.0 : 1.0;
            snprintf(t.pre, sizeof(t.pre), "%s_%c", susp, sd ? 'r' : 'l');
            snprintf(wname, sizeof(wname), "%s.wheel", t.pre);
            snprintf(mname, sizeof(mname), "%s.wheel_center", t.pre);
            wheel = vd_ld_find(&L->body, wname);
            wm = vd_ld_find(&L->marker, mname);
            if (wheel < 0 || wm < 0) {
                vd_ydoc_error(L->y, w[DA_SUSP],
                              "%s.suspension: no wheel '%s' (define the suspension first)", ap,
                              wname);
                return -EINVAL;
            }
            if (vd_ld_find(&L->input, (snprintf(mname, sizeof(mname), "%s.drive", t.pre), mname)) >=
                0) {
                vd_ydoc_error(L->y, w[DA_SUSP],
                              "%s.suspension: '%s' has a hub drive: set its drive: shaft", ap,
                              susp);
                return -EINVAL;
            }
            vd_tpl_gpt(&t, inner, pin);
            {
                const struct vd_marker *mk = (const struct vd_marker *)L->marker.v + wm;
                double Rb[9], ob[3], q[3];

                vd_tpl_body_frame(L, wheel, Rb, ob);
                vdu_mat3_vec(q, Rb, mk->pos);
                vdu_add3(pout, ob, q);
            }
            vdu_sub3(d, pout, pin);
            if (t.side < 0)
                vdu_scale3(d, -1.0, d); /* x axis to the left on both sides: forward spin > 0 */
            vd_tpl_rel_axes(&t, d, Rrel);
            vdu_mat3_mul(Rg, t.R0, Rrel);
            for (int k = 0; k < 3; k++)
                c[k] = 0.5 * (pin[k] + pout[k]);
            shaft = vd_tpl_body(&t, "shaft", &ss, c, Rrel);
            /* inner joint (tripod): plunges (axial free), bends, spin driven by the torque */
            vd_tpl_read_jspec(&t, NULL, ap, "inner", 1e7, 0.0, 0.0, 0.0, 1e-3, &jin);
            e_in = vd_tpl_joint(&t, "shaft_inner", shaft, t.mount, pin, Rg, &jin, VD_ROT_CARDAN);
            /* outer CV joint: torsionally stiff, bends */
            vd_tpl_read_jspec(&t, NULL, ap, "outer", 1e7, 1e7, k_t, 0.0, 1e-3, &jout);
            jout.torsional = vd_tpl_lin(L, k_t);
            vd_tpl_joint(&t, "shaft_outer", wheel, shaft, pout, Rg, &jout, VD_ROT_CARDAN);
            in_drive = vd_tpl_input(&t, "drive");
            if (e_in >= 0 && in_drive >= 0)
                vd_tpl_act(&t, e_in, 3, VD_ACT_FORCE, in_drive, -1.0); /* u > 0 drives forward */
        }
    }
    return L->y->nerr == t.nerr0 ? 0 : -EINVAL;
}

int vd_tpl_load(struct loader *L, yaml_node_t *const *sec)
{
    /* sec: suspensions, antiroll_bars, steering, driveline (model_yaml.c's TOP_SUSP order) */
    int n = 0, e0 = L->y->nerr;

    /* steering first: suspensions may hang their tie rods on the rack */
    if (sec[2])
        vd_tpl_steering(L, sec[2], "steering");
    if (sec[0] && !vd_ydoc_seq(L->y, sec[0], "suspensions", 1, &n))
        for (int i = 0; i < n; i++) {
            char path[VD_YPATH_MAX];

            vd_ypath_index(path, "suspensions", i);
            load_suspension(L, vd_ydoc_item(L->y, sec[0], i), path);
        }
    if (sec[1] && !vd_ydoc_seq(L->y, sec[1], "antiroll_bars", 1, &n))
        for (int i = 0; i < n; i++) {
            char path[VD_YPATH_MAX];

            vd_ypath_index(path, "antiroll_bars", i);
            load_arb(L, vd_ydoc_item(L->y, sec[1], i), path);
        }
    if (sec[3])
        load_driveline(L, sec[3], "driveline");
    return L->y->nerr == e0 ? 0 : -EINVAL;
}
