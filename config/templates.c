/* config/templates.c - what the vehicle templates share (config/tpl.h: template instances,
 * hardpoints to global points, bodies, markers, elastic joints, inputs) and vd_tpl_load, which
 * runs the families in their files: tpl_suspension.c, tpl_arb.c, tpl_steering.c,
 * tpl_driveline.c. Templates expand hardpoints into bodies, markers, bushings, p2p elements,
 * couplers, tyres and actuator inputs of the raw data model (core/model.h). Init only.
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

int vd_tpl_ideal(struct tpl *t, const char *e, int type, int bi, int bj, const double p[3],
                 const double axis[3])
{
    const double up[3] = {0, 0, 1};
    double R[9];

    if (axis) {
        double Rx[9];

        /* x = axis from vd_tpl_axes_x, then (y, z, x) -> (x, y, z): z along the axis */
        vd_tpl_axes_x(Rx, axis, up);
        for (int r = 0; r < 3; r++) {
            R[3 * r] = Rx[3 * r + 1];
            R[3 * r + 1] = Rx[3 * r + 2];
            R[3 * r + 2] = Rx[3 * r];
        }
    } else {
        memcpy(R, t->R0, sizeof(R));
    }
    return vd_tpl_ideal_axes(t, e, type, bi, bj, p, R);
}

int vd_tpl_ideal_axes(struct tpl *t, const char *e, int type, int bi, int bj, const double p[3],
                      const double R[9])
{
    char mi[NAME_BUF], mj[NAME_BUF], name[NAME_BUF];
    struct vd_joint *j;
    int ki, kj, i;

    snprintf(mi, sizeof(mi), "%s.i", e);
    snprintf(mj, sizeof(mj), "%s.j", e);
    ki = vd_tpl_marker(t, mi, bi, p, R);
    kj = vd_tpl_marker(t, mj, bj, p, R);
    vd_tpl_name(name, t, e);
    i = vd_ld_push(t->L, &t->L->joint, name, t->conn ? t->conn : t->node, t->path);
    if (i < 0 || ki < 0 || kj < 0)
        return -EINVAL;
    j = (struct vd_joint *)t->L->joint.v + i;
    j->type = type;
    j->mk[0] = ki;
    j->mk[1] = kj;
    j->input = -1;
    return i;
}

int vd_tpl_cardan(struct tpl *t, const char *e, int bi, int bj, const double p[3],
                  const double ai[3], const double aj[3])
{
    double n[3], y[3], z[3], R[9], ln;

    /* the cross: x = n = aj x ai (normal to both shafts: a pin of shaft i), y = z x x (normal
     * to shaft j: its pin), z along shaft j; collinear shafts: any cross normal to them */
    vdu_cross3(n, aj, ai);
    ln = sqrt(vdu_dot3(n, n));
    if (!(ln > 1e-6 * sqrt(vdu_dot3(ai, ai) * vdu_dot3(aj, aj))))
        return vd_tpl_ideal(t, e, VD_JOINT_UNIVERSAL, bi, bj, p, aj);
    vdu_scale3(n, 1.0 / ln, n);
    vdu_scale3(z, 1.0 / sqrt(vdu_dot3(aj, aj)), aj);
    vdu_cross3(y, z, n);
    for (int r = 0; r < 3; r++) {
        R[3 * r] = n[r];
        R[3 * r + 1] = y[r];
        R[3 * r + 2] = z[r];
    }
    return vd_tpl_ideal_axes(t, e, VD_JOINT_UNIVERSAL, bi, bj, p, R);
}

/* a bushing <pre>.<e> without rates but component comp (stiffness k, damping tau k'(0); comp
 * < 0: none), beside an ideal joint that holds the bodies: it carries an actuator, a
 * coupler's coordinate or end stops under the bushing model's name */
int vd_tpl_coord(struct tpl *t, const char *e, int bi, int bj, const double p[3],
                 const double Rg[9], int comp, const struct vd_curve *k, double tau)
{
    struct jspec none;
    struct vd_bushing *b;
    int i;

    memset(&none, 0, sizeof(none));
    i = vd_tpl_joint(t, e, bi, bj, p, Rg, &none, VD_ROT_CARDAN);
    if (i >= 0 && comp >= 0 && k) {
        b = (struct vd_bushing *)t->L->bush.v + i;
        b->stiff[comp] = *k;
        b->damp[comp] = damping_of(t->L, k, tau);
    }
    return i;
}

static const char *const conn_names[] = {"bushings", "joints"};

void vd_tpl_read_connection(struct tpl *t, yaml_node_t *node, const struct vd_ykey *k)
{
    vd_ydoc_enum(t->L->y, node, t->path, k, conn_names, COUNT(conn_names), &t->connection);
    t->conn = node;
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

/* body e with spec s at the centroid of the hardpoints hp[idx[0..n-1]] (n <= 6), unless the
 * spec gives its CoM */
int vd_tpl_body_at_points(struct tpl *t, const char *e, const struct bspec *s,
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
int vd_tpl_arm(struct tpl *t, const char *e, const yaml_node_t *bodies, const char *bpath,
               const double (*hp)[3], const int *idx, int n)
{
    struct bspec s;

    if (vd_tpl_read_bspec(t, vd_tpl_map_get(t->L, bodies, e), bpath, e, &s))
        return -EINVAL;
    return vd_tpl_body_at_points(t, e, &s, hp, idx, n);
}

/* a ball joint (elastic) at hardpoint hp, in the mount's axes */
int vd_tpl_ball(struct tpl *t, const char *e, int bi, int bj, const double hp[3],
                const struct jspec *s)
{
    double p[3];

    vd_tpl_gpt(t, hp, p);
    return vd_tpl_joint(t, e, bi, bj, p, t->R0, s, VD_ROT_VECTOR);
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
            vd_tpl_suspension(L, vd_ydoc_item(L->y, sec[0], i), path);
        }
    if (sec[1] && !vd_ydoc_seq(L->y, sec[1], "antiroll_bars", 1, &n))
        for (int i = 0; i < n; i++) {
            char path[VD_YPATH_MAX];

            vd_ypath_index(path, "antiroll_bars", i);
            vd_tpl_arb(L, vd_ydoc_item(L->y, sec[1], i), path);
        }
    if (sec[3])
        vd_tpl_driveline(L, sec[3], "driveline");
    return L->y->nerr == e0 ? 0 : -EINVAL;
}
