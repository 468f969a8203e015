/* config/tpl_driveline.c - the driveline template: half shafts from the differential on the
 * mount to the wheels (conventions in templates.c). Init only. */
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

int vd_tpl_driveline(struct loader *L, yaml_node_t *node, const char *path)
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
