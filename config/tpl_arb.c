/* config/tpl_arb.c - the anti-roll bar template: two halves on bearings, the torsion spring
 * between them and the drop links, with elastic or ideal joints (conventions in templates.c).
 * Init only. */
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
/* ---- anti-roll bar -------------------------------------------------------------------------
 * Two halves joined at the centre by a torsion spring (a Cardan bushing about the bar axis,
 * y), each half in a bearing bushing on the mount (free about y), a drop link from each arm
 * end (ball joints) to a body of a suspension. */
enum { AR_NAME, AR_MOUNT, AR_LOC, AR_HP, AR_BODIES, AR_ATTACH, AR_TORS, AR_BUSH, AR_CONN, AR_N };
static const struct vd_ykey arb_keys[AR_N] = {
    [AR_NAME] = VD_YKEY("name", REQ, NULL),
    [AR_MOUNT] = VD_YKEY("mount", REQ, NULL),
    [AR_LOC] = VD_YKEY_IN("location", REQ, "m", VD_RNG_LOCAL),
    [AR_HP] = VD_YKEY("hardpoints", REQ, NULL), /* center, bearing, arm_end, link_bottom */
    [AR_BODIES] = VD_YKEY("bodies", REQ, NULL), /* half, droplink */
    [AR_ATTACH] = VD_YKEY("attach", REQ, NULL), /* "<suspension>.<body>", side added */
    [AR_TORS] = VD_YKEY_IN("torsional_stiffness", REQ | LO_OPEN, "N m/rad", VD_RNG_STIFF),
    [AR_BUSH] = VD_YKEY("bushings", 0, NULL),   /* bearing, ball_joint */
    [AR_CONN] = VD_YKEY("connection", 0, NULL), /* bushings | joints, default bushings */
};

int vd_tpl_arb(struct loader *L, yaml_node_t *node, const char *path)
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
    vd_tpl_read_connection(&t, v[AR_CONN], &arb_keys[AR_CONN]);
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
        half[sd] = vd_tpl_body_at_points(&t, "half", &hs, (const double(*)[3])hp,
                                         (const int[]){0, 1, 2}, 3);
        /* bearing: x along the bar (y), free rotation about it */
        vd_tpl_gdir(&t, ey, p);
        vd_tpl_axes_x(Rb, p, (const double[3]){0, 0, 1});
        vd_tpl_gpt(&t, hp[1], p);
        if (t.connection) {
            double ay[3];

            vd_tpl_gdir(&t, ey, ay);
            vd_tpl_ideal(&t, "bearing", VD_JOINT_REVOLUTE, half[sd], t.mount, p, ay);
        } else {
            vd_tpl_joint(&t, "bearing", half[sd], t.mount, p, Rb, &jb, VD_ROT_CARDAN);
        }
        /* drop link: arm end -> suspension body */
        dl = vd_tpl_arm(&t, "droplink", v[AR_BODIES], bpath, (const double(*)[3])hp,
                        (const int[]){2, 3}, 2);
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
        if (t.connection) {
            /* ideal joints: Chrono's AntirollBarRSD holds the arm end to the suspension by a
             * distance constraint (a massless drop link); with the drop link's body, a
             * universal joint at the arm (no spin of the link about itself) and a ball
             * joint below */
            double top[3], bot[3], a[3];

            vd_tpl_gpt(&t, hp[2], top);
            vd_tpl_gpt(&t, hp[3], bot);
            vdu_sub3(a, bot, top);
            vd_tpl_ideal(&t, "droplink_top", VD_JOINT_UNIVERSAL, dl, half[sd], top, a);
            vd_tpl_ideal(&t, "droplink_bottom", VD_JOINT_SPHERICAL, dl, target, bot, NULL);
        } else {
            vd_tpl_ball(&t, "droplink_top", dl, half[sd], hp[2], &jball);
            vd_tpl_ball(&t, "droplink_bottom", dl, target, hp[3], &jball);
        }
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
        if (t.connection) {
            /* the halves turn on their revolutes about the common axis: the spring keeps its
             * torsional rate only (Chrono's RSD between the arms) */
            const struct vd_curve kt = jc.torsional;
            const double tau = jc.tau;

            memset(&jc, 0, sizeof(jc));
            jc.torsional = kt;
            jc.tau = tau;
        }
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
