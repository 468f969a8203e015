/* config/tpl_steering.c - the steering templates (rack_pinion, pitman_arm): expand hardpoints
 * into bodies, elastic joints, couplers and actuator inputs (conventions in templates.c).
 * Init only. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "config/loader.h"
#include "config/ranges.h"
#include "config/tpl.h"
#include "core/vdmath.h"

/* ---- steering ------------------------------------------------------------------------------
 * rack_pinion (column EPS): steering wheel with the upper column on a bearing (driver torque
 * or an angle servo), torsion bar (torque sensor) to the column output shaft (EPS motor
 * torque), intermediate shaft with two universal joints, pinion, rack in a guide with end
 * stops, rack-pinion gear as a coupler; the inner tie rod ends go to the rack.
 * pitman_arm: steering wheel and column, a steering box (coupler between column and pitman
 * arm rotation), pitman arm, idler arm, steering link; tie rods go to the link. */
enum {
    ST_TYPE,
    ST_MOUNT,
    ST_LOC,
    ST_HP,
    ST_BODIES,
    ST_MODE,
    ST_RATIO,
    ST_TBAR,
    ST_TRAVEL,
    ST_SERVO,
    ST_RDAMP,
    ST_BOX,
    ST_CONN,
    ST_BUSH,
    ST_N
};
static const struct vd_ykey steer_keys[ST_N] = {
    [ST_TYPE] = VD_YKEY("type", REQ, NULL), /* rack_pinion | pitman_arm */
    [ST_MOUNT] = VD_YKEY("mount", REQ, NULL),
    [ST_LOC] = VD_YKEY_IN("location", REQ, "m", VD_RNG_LOCAL),
    [ST_HP] = VD_YKEY("hardpoints", REQ, NULL),
    [ST_BODIES] = VD_YKEY("bodies", REQ, NULL),
    [ST_MODE] = VD_YKEY("mode", 0, NULL), /* angle (default) | torque */
    /* rack_pinion: rack travel per pinion radian [m/rad]; pitman_arm: arm angle per steering
     * wheel angle [-] */
    [ST_RATIO] = VD_YKEY_RANGE("ratio", REQ | LO_OPEN, "m/rad | rad/rad", 0.0, 1.0),
    [ST_TBAR] = VD_YKEY_IN("torsion_bar", 0, "N m/rad", VD_RNG_STIFF), /* default 115 */
    [ST_TRAVEL] = VD_YKEY_RANGE("rack_travel", 0, "m", 0.0, 1.0),      /* +- end stops, 0.075 */
    [ST_SERVO] = VD_YKEY_IN("servo_stiffness", 0, "N m/rad", VD_RNG_STIFF), /* 2e4 */
    /* rack_pinion: viscous damping of the rack in its guide, 500 */
    [ST_RDAMP] = VD_YKEY_IN("rack_damping", 0, "N s/m", VD_RNG_DAMP),
    /* pitman_arm: the steering box coupler's rate on the arm angle, 2e5 (damping 1e-3 s x it) */
    [ST_BOX] = VD_YKEY_IN("box_stiffness", 0, "N m/rad", VD_RNG_STIFF),
    [ST_CONN] = VD_YKEY("connection", 0, NULL), /* bushings | joints, default bushings */
    [ST_BUSH] = VD_YKEY("bushings", 0, NULL),   /* joint specs per joint kind, below */
};
static const char *const steer_types[] = {"rack_pinion", "pitman_arm"};
static const char *const steer_modes[] = {"angle", "torque"};

/* `bushings`: a joint spec (templates.c, config/README.md) per joint kind, its defaults in
 * vd_tpl_steering; the kinds of rack_pinion and of pitman_arm */
enum { RB_BEARING, RB_TBAR, RB_UJOINT, RB_RACK, RB_N };
static const struct vd_ykey rack_bush_keys[RB_N] = {
    [RB_BEARING] = VD_YKEY("bearing", 0, NULL), /* wheel, column and pinion bearings */
    [RB_TBAR] = VD_YKEY("torsion_bar", 0, NULL),
    [RB_UJOINT] = VD_YKEY("ujoint", 0, NULL), /* ujoint_upper, ujoint_lower */
    [RB_RACK] = VD_YKEY("rack", 0, NULL),     /* rack_guide */
};
enum { PB_BEARING, PB_UJOINT, PB_BALL, PB_N };
static const struct vd_ykey pitman_bush_keys[PB_N] = {
    [PB_BEARING] = VD_YKEY("bearing", 0, NULL), /* column, pitman and idler bearings */
    [PB_UJOINT] = VD_YKEY("ujoint", 0, NULL),   /* pitman_link */
    [PB_BALL] = VD_YKEY("ball_joint", 0, NULL), /* idler_link */
};

/* the joint spec `bushings.<key>` (node; NULL: the defaults); its component comp (NULL: none)
 * is set by another key or element and refused, saying why */
static void steer_jspec(struct tpl *t, const yaml_node_t *node, const char *bspath, const char *key,
                        const char *comp, const char *why, double radial, double axial, double tors,
                        double con, double tau, struct jspec *j)
{
    const yaml_node_t *c = comp ? vd_tpl_map_get(t->L, node, comp) : NULL;

    vd_tpl_read_jspec(t, node, bspath, key, radial, axial, tors, con, tau, j);
    if (c)
        vd_ydoc_error(t->L->y, c, "%s.%s.%s: not a rate of this joint: %s", bspath, key, comp, why);
}

#define FREE_SPIN                                                                                  \
    "the bearings spin freely (the servo, the driver's and the EPS torque and the couplers "       \
    "act about their axis)"

/* a shaft bearing on the mount: stiff, free spin about the axis dir (global) */
static int shaft_bearing(struct tpl *t, const char *e, int body, int other, const double p[3],
                         const double dir[3], const struct jspec *j)
{
    double R[9];

    vd_tpl_axes_x(R, dir, (const double[3]){0, 0, 1});
    return vd_tpl_joint(t, e, body, other, p, R, j, VD_ROT_CARDAN);
}

/* with ideal joints: a revolute (or cylindrical) <e>_pivot about dir at p holds the shaft, and
 * the bushing <e> beside it, without rates, carries the actuator or the coupler's coordinate
 * under the bushing model's name (its axes as shaft_bearing's) */
static int shaft_pivot(struct tpl *t, const char *e, int type, int body, int other,
                       const double p[3], const double dir[3])
{
    char jn[NAME_BUF];
    double R[9];

    snprintf(jn, sizeof(jn), "%.*s_pivot", VD_NAME_MAX - 8, e);
    vd_tpl_ideal(t, jn, type, body, other, p, dir);
    vd_tpl_axes_x(R, dir, (const double[3]){0, 0, 1});
    return vd_tpl_coord(t, e, body, other, p, R, -1, NULL, 0.0);
}

/* the coupler <pre>.<e>: bushing ba's component ca = ratio * bushing bb's component cb, held
 * by the linear rate k with the damping c */
static void steer_coupler(struct tpl *t, const char *e, int ba, int ca, int bb, int cb,
                          double ratio, double k, double c)
{
    struct loader *L = t->L;
    struct vd_coupler cp;
    char nm[NAME_BUF];
    int ic;

    vd_tpl_name(nm, t, e);
    ic = vd_ld_push(L, &L->coupler, nm, t->node, t->path);
    if (ic < 0)
        return;
    memset(&cp, 0, sizeof(cp));
    memcpy(cp.name, nm, strlen(nm) + 1); /* < VD_NAME_MAX: the push checked it */
    cp.bush[0] = ba;
    cp.comp[0] = ca;
    cp.bush[1] = bb;
    cp.comp[1] = cb;
    cp.ratio = ratio;
    cp.stiff = vd_tpl_lin(L, k);
    cp.damp = vd_tpl_lin(L, c);
    memcpy((struct vd_coupler *)L->coupler.v + ic, &cp, sizeof(cp));
}

/* the inputs angle and driver_torque, and the steering wheel's bushing e_sw about its axis:
 * in mode angle a servo of rate k_servo, critically damped for the wheel's inertia I, else
 * the driver's torque */
static void wheel_input(struct tpl *t, int e_sw, int mode, double k_servo, double I)
{
    int in_angle = vd_tpl_input(t, "angle");
    int in_drv = vd_tpl_input(t, "driver_torque");

    if (e_sw >= 0 && mode == 0 && in_angle >= 0) {
        struct vd_bushing *b = (struct vd_bushing *)t->L->bush.v + e_sw;

        b->stiff[3] = vd_tpl_lin(t->L, k_servo);
        b->damp[3] = vd_tpl_lin(t->L, 2.0 * sqrt(k_servo * I));
        vd_tpl_act(t, e_sw, 3, VD_ACT_SERVO, in_angle, 1.0);
    } else if (e_sw >= 0 && in_drv >= 0) {
        vd_tpl_act(t, e_sw, 3, VD_ACT_FORCE, in_drv, -1.0); /* u > 0: left */
    }
}

int vd_tpl_steering(struct loader *L, yaml_node_t *node, const char *path)
{
    yaml_node_t *v[ST_N];
    struct tpl t;
    int type = 0, mode = 0;
    double ratio = 0.0, k_tbar = 115.0, travel = 0.075, k_servo = 2e4, c_rack = 500.0, k_box = 2e5;
    char bpath[VD_YPATH_MAX];
    struct jspec jbear, jtbar, jujoint;
    yaml_node_t *rb[RB_N] = {NULL}, *pb[PB_N] = {NULL};
    char bspath[VD_YPATH_MAX];

    memset(&t, 0, sizeof(t));
    t.L = L;
    t.node = node;
    t.nerr0 = L->y->nerr;
    t.side = 1.0;
    snprintf(t.path, sizeof(t.path), "%s", path);
    snprintf(t.pre, sizeof(t.pre), "steering");
    vd_ydoc_map(L->y, node, path, steer_keys, ST_N, v);
    vd_ydoc_enum(L->y, v[ST_TYPE], path, &steer_keys[ST_TYPE], steer_types, 2, &type);
    vd_ydoc_enum(L->y, v[ST_MODE], path, &steer_keys[ST_MODE], steer_modes, 2, &mode);
    vd_ydoc_number(L->y, v[ST_RATIO], path, &steer_keys[ST_RATIO], &ratio);
    vd_ydoc_number(L->y, v[ST_TBAR], path, &steer_keys[ST_TBAR], &k_tbar);
    vd_ydoc_number(L->y, v[ST_TRAVEL], path, &steer_keys[ST_TRAVEL], &travel);
    vd_ydoc_number(L->y, v[ST_SERVO], path, &steer_keys[ST_SERVO], &k_servo);
    vd_ydoc_number(L->y, v[ST_RDAMP], path, &steer_keys[ST_RDAMP], &c_rack);
    vd_ydoc_number(L->y, v[ST_BOX], path, &steer_keys[ST_BOX], &k_box);
    vd_tpl_read_connection(&t, v[ST_CONN], &steer_keys[ST_CONN]);
    if (vd_tpl_read_mount(&t, v[ST_MOUNT], "mount"))
        return -EINVAL;
    vd_ydoc_vec(L->y, v[ST_LOC], path, &steer_keys[ST_LOC], 3, 3, t.loc, NULL);
    vd_ypath(bpath, path, "bodies");
    vd_ypath(bspath, path, "bushings");
    if (v[ST_BUSH] && type == 0)
        vd_ydoc_map(L->y, v[ST_BUSH], bspath, rack_bush_keys, RB_N, rb);
    else if (v[ST_BUSH])
        vd_ydoc_map(L->y, v[ST_BUSH], bspath, pitman_bush_keys, PB_N, pb);
    /* the joints' defaults (radial, axial, torsional, conical, damping time constant): bearings
     * stiff but free to spin, the torsion bar, the rack_pinion's universal joints torsionally
     * 2e4 N m/rad and free to bend (its pitman_arm's below) */
    steer_jspec(&t, type == 0 ? rb[RB_BEARING] : pb[PB_BEARING], bspath, "bearing", "torsional",
                FREE_SPIN, 1e7, 1e7, 0.0, 1e5, 1e-3, &jbear);
    steer_jspec(&t, rb[RB_TBAR], bspath, "torsion_bar", "torsional",
                "the torsion bar's rate is the key `torsion_bar`", 1e7, 1e7, k_tbar, 1e5, 2e-3,
                &jtbar);
    steer_jspec(&t, rb[RB_UJOINT], bspath, "ujoint", NULL, NULL, 1e7, 1e7, 2e4, 0.0, 1e-3,
                &jujoint);
    jtbar.torsional = vd_tpl_lin(L, k_tbar);
    if (type == 0) {
        static const char *const n[] = {"steering_wheel", "torsion_bar", "ujoint_upper",
                                        "ujoint_lower",   "pinion",      "rack_center"};
        double hp[6][3], g[6][3], d[3], Rrel[9], c[3], pdir[3];
        struct bspec sw, col, ish, pin, rk;
        int bsw, bcol, bish, bpin, brk, e_sw, e_col, e_pin, e_rack, in_eps;

        vd_tpl_read_points(&t, v[ST_HP], n, COUNT(n), NULL, hp, NULL);
        if (vd_tpl_read_bspec(&t, vd_tpl_map_get(L, v[ST_BODIES], "steering_wheel"), bpath,
                              "steering_wheel", &sw) ||
            vd_tpl_read_bspec(&t, vd_tpl_map_get(L, v[ST_BODIES], "column"), bpath, "column",
                              &col) ||
            vd_tpl_read_bspec(&t, vd_tpl_map_get(L, v[ST_BODIES], "intermediate_shaft"), bpath,
                              "intermediate_shaft", &ish) ||
            vd_tpl_read_bspec(&t, vd_tpl_map_get(L, v[ST_BODIES], "pinion"), bpath, "pinion",
                              &pin) ||
            vd_tpl_read_bspec(&t, vd_tpl_map_get(L, v[ST_BODIES], "rack"), bpath, "rack", &rk) ||
            L->y->nerr != t.nerr0)
            return -EINVAL;
        for (int i = 0; i < 6; i++)
            vd_tpl_gpt(&t, hp[i], g[i]);
        {
            /* the column is straight: its lower bearing (at ujoint_upper, about the column
             * axis) must lie on the axis steering_wheel -> torsion_bar. Off it by r, the
             * column turns about two parallel lines and the bearings' radial and conical
             * rates hold it against the driver: at the 20.3 mm the sedan had, 298 N m/rad
             * (measured: 41.5 N m at 0.139 rad, 1.9 kN radial and 0.4 kN m conical in the
             * column bearing), so that 72 % of the steering-wheel angle twisted the torsion
             * bar. Both paths grow with r^2 (the offset and the misalignment angle are both
             * proportional to r): 0.5 mm (a hardpoint rounded to the mm) leaves 0.18 N m/rad,
             * 0.2 % of a 115 N m/rad torsion bar */
            double a[3], b[3], q[3], la, s, r;

            vdu_sub3(a, g[1], g[0]);
            vdu_sub3(b, g[2], g[0]);
            la = sqrt(vdu_dot3(a, a));
            s = la > 0.0 ? vdu_dot3(a, b) / (la * la) : 0.0;
            for (int k = 0; k < 3; k++)
                q[k] = b[k] - s * a[k];
            r = sqrt(vdu_dot3(q, q));
            if (!(la > 1e-3) || r > 5e-4 || s <= 1.0) {
                vd_ydoc_error(L->y, vd_tpl_map_get(L, v[ST_HP], "ujoint_upper"),
                              "%s.hardpoints.ujoint_upper: not on the column axis "
                              "steering_wheel -> torsion_bar beyond torsion_bar (%.1f mm off "
                              "the axis, at most 0.5): the column is straight",
                              path, 1e3 * r);
                return -EINVAL;
            }
        }
        /* column axis: steering wheel -> torsion bar (points down, toward the front) */
        vdu_sub3(d, g[1], g[0]);
        vd_tpl_rel_axes(&t, d, Rrel);
        bsw = vd_tpl_body(&t, "steering_wheel", &sw, g[0], Rrel);
        for (int k = 0; k < 3; k++)
            c[k] = 0.5 * (g[1][k] + g[2][k]);
        bcol = vd_tpl_body(&t, "column", &col, c, Rrel);
        vdu_sub3(d, g[3], g[2]);
        vd_tpl_rel_axes(&t, d, Rrel);
        for (int k = 0; k < 3; k++)
            c[k] = 0.5 * (g[2][k] + g[3][k]);
        bish = vd_tpl_body(&t, "intermediate_shaft", &ish, c, Rrel);
        vdu_sub3(pdir, g[4], g[3]);
        vd_tpl_rel_axes(&t, pdir, Rrel);
        bpin = vd_tpl_body(&t, "pinion", &pin, g[4], Rrel);
        brk = vd_tpl_body(&t, "rack", &rk, g[5], NULL);
        if (bsw < 0 || bcol < 0 || bish < 0 || bpin < 0 || brk < 0)
            return -EINVAL;
        /* steering-wheel, torsion-bar and column axes point up the column to the driver:
         * positive rotation and torque are counter-clockwise as the driver sees them, a
         * left turn (ISO 8855) */
        vdu_sub3(d, g[0], g[1]);
        if (t.connection) {
            /* ideal joints: steering wheel and column on revolutes about the column axis,
             * the torsion bar between them a bushing with its torsional rate only, the
             * intermediate shaft on two Cardan joints, the pinion on a cylindrical joint: its
             * axial freedom is the intermediate shaft's slip spline (with a revolute pinion
             * the shaft's length between the two fixed joint centres would be held twice, a
             * redundant row). Chrono's RackPinion has no column: its rack is driven along
             * its prismatic joint; here the column turns the pinion */
            struct jspec jtb;
            double acol[3], aish[3];

            memset(&jtb, 0, sizeof(jtb));
            jtb.torsional = vd_tpl_lin(L, k_tbar);
            jtb.tau = 2e-3;
            e_sw = shaft_pivot(&t, "wheel_bearing", VD_JOINT_REVOLUTE, bsw, t.mount, g[0], d);
            shaft_bearing(&t, "torsion_bar", bcol, bsw, g[1], d, &jtb);
            e_col = shaft_pivot(&t, "column_bearing", VD_JOINT_REVOLUTE, bcol, t.mount, g[2], d);
            vdu_sub3(acol, g[2], g[1]);
            vdu_sub3(aish, g[3], g[2]);
            vd_tpl_cardan(&t, "ujoint_upper", bish, bcol, g[2], aish, acol);
            vd_tpl_cardan(&t, "ujoint_lower", bpin, bish, g[3], pdir, aish);
            e_pin =
                shaft_pivot(&t, "pinion_bearing", VD_JOINT_CYLINDRICAL, bpin, t.mount, g[4], pdir);
        } else {
            e_sw = shaft_bearing(&t, "wheel_bearing", bsw, t.mount, g[0], d, &jbear);
            shaft_bearing(&t, "torsion_bar", bcol, bsw, g[1], d, &jtbar);
            e_col = shaft_bearing(&t, "column_bearing", bcol, t.mount, g[2], d, &jbear);
            shaft_bearing(&t, "ujoint_upper", bish, bcol, g[2], d, &jujoint);
            vdu_sub3(d, g[3], g[2]);
            shaft_bearing(&t, "ujoint_lower", bpin, bish, g[3], d, &jujoint);
            e_pin = shaft_bearing(&t, "pinion_bearing", bpin, t.mount, g[4], pdir, &jbear);
        }
        {
            /* rack guide: free along y with progressive end stops at +- travel */
            struct jspec jr;
            double xs[7] = {-travel - 0.01, -travel - 0.005, -travel,      0.0,
                            travel,         travel + 0.005,  travel + 0.01};
            double ys[7] = {-1.5e5, -2.5e4, 0.0, 0.0, 0.0, 2.5e4, 1.5e5};
            struct vd_curve_spec cs = {
                .kind = VD_CURVE_TABLE, .interp = VD_INTERP_PCHIP, .n = 7, .x = xs, .y = ys};
            struct vd_bushing *b;
            char err[64];
            double Ry[9];
            const double ey[3] = {0, 1, 0};

            steer_jspec(&t, rb[RB_RACK], bspath, "rack", "axial",
                        "the rack slides; its axial rate is the end stops (`rack_travel`) and "
                        "its damping `rack_damping`",
                        1e7, 1e7, 1e5, 1e5, 1e-3, &jr);
            vd_tpl_gdir(&t, ey, d);
            vd_tpl_axes_x(Ry, d, (const double[3]){0, 0, 1});
            if (t.connection) {
                /* Chrono's RackPinion: the rack on a prismatic joint along y; the bushing
                 * keeps only the end stops and the damping */
                vd_tpl_ideal(&t, "rack_slide", VD_JOINT_PRISMATIC, brk, t.mount, g[5], d);
                e_rack = vd_tpl_coord(&t, "rack_guide", brk, t.mount, g[5], Ry, -1, NULL, 0.0);
            } else {
                e_rack = vd_tpl_joint(&t, "rack_guide", brk, t.mount, g[5], Ry, &jr, VD_ROT_VECTOR);
            }
            if (e_rack >= 0) {
                b = (struct vd_bushing *)L->bush.v + e_rack;
                vd_model_add_curve(L->m, &cs, true, &b->stiff[0], err, sizeof(err));
                b->damp[0] = vd_tpl_lin(L, c_rack);
            }
        }
        /* gear: rack travel along the guide's x (= y) = ratio * pinion rotation */
        if (e_rack >= 0 && e_pin >= 0)
            steer_coupler(&t, "gear", e_rack, 0, e_pin, 3, ratio, 2e7, 2e3);
        /* inputs: steering-wheel angle (servo) or driver torque; EPS motor torque on the
         * column output shaft (reaction on the mount) */
        wheel_input(&t, e_sw, mode, k_servo, sw.I[0]);
        in_eps = vd_tpl_input(&t, "eps_torque");
        if (e_col >= 0 && in_eps >= 0)
            vd_tpl_act(&t, e_col, 3, VD_ACT_FORCE, in_eps, -1.0); /* u > 0: left */
    } else {
        /* Pitman arm (HMMWV): steering box between column and pitman arm */
        static const char *const n[] = {"steering_wheel", "column_lower", "pitman_pivot",
                                        "pitman_link",    "idler_pivot",  "idler_link"};
        double hp[6][3], g[6][3], d[3], Rrel[9], c[3];
        const double ez[3] = {0, 0, 1};
        struct bspec sw, pa, ia, sl;
        int bsw, bpa, bia, bsl, e_sw, e_pa;

        vd_tpl_read_points(&t, v[ST_HP], n, COUNT(n), NULL, hp, NULL);
        if (vd_tpl_read_bspec(&t, vd_tpl_map_get(L, v[ST_BODIES], "steering_wheel"), bpath,
                              "steering_wheel", &sw) ||
            vd_tpl_read_bspec(&t, vd_tpl_map_get(L, v[ST_BODIES], "pitman_arm"), bpath,
                              "pitman_arm", &pa) ||
            vd_tpl_read_bspec(&t, vd_tpl_map_get(L, v[ST_BODIES], "idler_arm"), bpath, "idler_arm",
                              &ia) ||
            vd_tpl_read_bspec(&t, vd_tpl_map_get(L, v[ST_BODIES], "link"), bpath, "link", &sl) ||
            L->y->nerr != t.nerr0)
            return -EINVAL;
        for (int i = 0; i < 6; i++)
            vd_tpl_gpt(&t, hp[i], g[i]);
        vdu_sub3(d, g[1], g[0]);
        vd_tpl_rel_axes(&t, d, Rrel);
        for (int k = 0; k < 3; k++)
            c[k] = 0.5 * (g[0][k] + g[1][k]);
        bsw = vd_tpl_body(&t, "steering_wheel", &sw, c, Rrel);
        /* the arms turn about the mount's z: their x axes along z */
        vd_tpl_gdir(&t, ez, d);
        vd_tpl_rel_axes(&t, d, Rrel);
        for (int k = 0; k < 3; k++)
            c[k] = 0.5 * (g[2][k] + g[3][k]);
        bpa = vd_tpl_body(&t, "pitman_arm", &pa, c, Rrel);
        for (int k = 0; k < 3; k++)
            c[k] = 0.5 * (g[4][k] + g[5][k]);
        bia = vd_tpl_body(&t, "idler_arm", &ia, c, Rrel);
        for (int k = 0; k < 3; k++)
            c[k] = 0.5 * (g[3][k] + g[5][k]);
        bsl = vd_tpl_body(&t, "link", &sl, c, NULL);
        if (bsw < 0 || bpa < 0 || bia < 0 || bsl < 0)
            return -EINVAL;
        vdu_sub3(d, g[0], g[1]); /* up the column: positive = left (ISO 8855) */
        if (t.connection) {
            /* Chrono's PitmanArm: the arm on a revolute about z, the link on it by a
             * universal joint (cross: the arm's z and the link's x), on the idler side a
             * revolute-spherical joint (here the idler arm body on a revolute and a ball
             * joint); the column on a revolute. The bushings column_bearing and
             * pitman_bearing, without rates, carry the servo and the steering box */
            const double ex[3] = {1, 0, 0};
            double Ru[9], ux[3], uy[3], uz[3];

            e_sw = shaft_pivot(&t, "column_bearing", VD_JOINT_REVOLUTE, bsw, t.mount, g[1], d);
            vd_tpl_gdir(&t, ez, d);
            e_pa = shaft_pivot(&t, "pitman_bearing", VD_JOINT_REVOLUTE, bpa, t.mount, g[2], d);
            vd_tpl_ideal(&t, "idler_pivot", VD_JOINT_REVOLUTE, bia, t.mount, g[4], d);
            vd_tpl_gdir(&t, ex, ux);
            vd_tpl_gdir(&t, ez, uy);
            vdu_cross3(uz, ux, uy);
            for (int r = 0; r < 3; r++) {
                Ru[3 * r] = ux[r];
                Ru[3 * r + 1] = uy[r];
                Ru[3 * r + 2] = uz[r];
            }
            vd_tpl_ideal_axes(&t, "pitman_link", VD_JOINT_UNIVERSAL, bsl, bpa, g[3], Ru);
            vd_tpl_ideal(&t, "idler_link", VD_JOINT_SPHERICAL, bsl, bia, g[5], NULL);
            if (pb[PB_BALL] || pb[PB_UJOINT]) {
                /* the bushings these joints replace: given, they are checked all the same
                 * (as the suspensions' are); left out, nothing is added to the model */
                struct jspec jb, ju;

                steer_jspec(&t, pb[PB_BALL], bspath, "ball_joint", NULL, NULL, 1e7, 1e7, 5.0, 5.0,
                            1e-3, &jb);
                steer_jspec(&t, pb[PB_UJOINT], bspath, "ujoint", NULL, NULL, 1e7, 1e7, 1e5, 5.0,
                            1e-3, &ju);
            }
        } else {
            e_sw = shaft_bearing(&t, "column_bearing", bsw, t.mount, g[1], d, &jbear);
            vd_tpl_gdir(&t, ez, d);
            e_pa = shaft_bearing(&t, "pitman_bearing", bpa, t.mount, g[2], d, &jbear);
            shaft_bearing(&t, "idler_bearing", bia, t.mount, g[4], d, &jbear);
        }
        if (!t.connection) {
            /* the link on the pitman arm by a universal joint (Chrono's HMMWV_PitmanArm.json:
             * cross axes the arm's z and the link's x), on the idler arm by a ball joint. The
             * cross blocks the link's rotation about the line between its two joints, which
             * two ball joints leave free: the tie rods, off that line, turned it 0.1 -> 0.3
             * rad and toed both wheels in by 0.9 deg. As a bushing: x along that line,
             * torsion 1e5 N m/rad (the stiff rotational rate of the templates' joints,
             * numerics.md 4.3), free (a ball joint's 5 N m/rad) about the cross axes */
            struct jspec jb, ju;
            double Ru[9];

            steer_jspec(&t, pb[PB_BALL], bspath, "ball_joint", NULL, NULL, 1e7, 1e7, 5.0, 5.0, 1e-3,
                        &jb);
            steer_jspec(&t, pb[PB_UJOINT], bspath, "ujoint", NULL, NULL, 1e7, 1e7, 1e5, 5.0, 1e-3,
                        &ju);
            vdu_sub3(d, g[5], g[3]);
            vd_tpl_axes_x(Ru, d, ez);
            vd_tpl_joint(&t, "pitman_link", bsl, bpa, g[3], Ru, &ju, VD_ROT_VECTOR);
            vd_tpl_joint(&t, "idler_link", bsl, bia, g[5], t.R0, &jb, VD_ROT_VECTOR);
        }
        /* steering box: pitman arm angle = ratio * column angle. A left (positive)
         * steering-wheel turn swings the arm clockwise seen from above (about the mount's
         * -z): the link moves to the right. Damping 1e-3 s x the rate: 200 N m s/rad at 2e5 */
        if (e_sw >= 0 && e_pa >= 0)
            steer_coupler(&t, "box", e_pa, 3, e_sw, 3, -ratio, k_box, 1e-3 * k_box);
        wheel_input(&t, e_sw, mode, k_servo, sw.I[0]);
    }
    return L->y->nerr == t.nerr0 ? 0 : -EINVAL;
}
