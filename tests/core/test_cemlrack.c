/* tests/core/test_cemlrack.c - the CE form's steered multilink axle on a rack (core/nlcorner.h
 * "On a rack", core/ce_rack.c) on tests/core/mlrack_ce.yaml (Chrono's generic multilink, the
 * sedan's rear, at the front with its tie rods on the sedan's rack: `tierod_mount:
 * steering.rack`; 16 coordinates in CE):
 *   0. the template put the tie rods on the rack (and the rear ones stay on the chassis); the
 *      proof of the fixed Newton count over the wheel travel's and the rack's ranges
 *      (nlcorner.h) and the fixed count's residual over that rectangle;
 *   1. the kinematic curves: toe, camber and the wheel centre's height against the wheel
 *      travel and the rack travel, from the closure, equal the ideal-joint (FA) model's own
 *      solution (Newton's method on the corner's joints with the wheel centre's height as one
 *      more row and the rack held, from a start 1 mm / 1 mrad away) to a derived bound; the
 *      steering geometry's sanity (the overall ratio at the centre, the wheel angle at the end
 *      stops);
 *   2. at states away from the design pose the placed bodies satisfy every joint (g = 0,
 *      G v = 0, G v' + gamma = 0), the bushings' locked translations and the gear's error
 *      vanish (ce_checks.h);
 *   3. the rack closure's ds/dq and d kappa/dq against central differences (ce_checks.h);
 *   4. CE against FA over 0.5 s steering from rest (ce_checks.h).
 * Tolerances derived beside each check. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "config/model_yaml.h"
#include "core/ce.h"
#include "core/data.h"
#include "core/eval.h"
#include "core/joint.h"
#include "core/kinematics.h"
#include "core/model.h"
#include "core/step.h"
#include "core/vdmath.h"
#include "ce_checks.h"

#define NMAX 48 /* the ideal-joint solve's unknowns: the multilink's 8 bodies */

/* 1. the corner's kinematics against the ideal-joint model's: the corner's joint rows and the
 * wheel centre's height row solved by Newton's method for its eight bodies, the rack's body at
 * the travel s (the tie rod's inner rows' rack side held) */
struct fa {
    const struct vd_nlc *c;
    int nrow, row[NMAX];
    int nbv, bd[8];
    double Ap[9], xp[3];
    double s_wc[3]; /* the wheel centre as a knuckle point (body axes, from its CoM) */
};

static void fa_setup(struct fa *f, const struct vd_model *m, const struct vd_data *d,
                     const struct vd_nlc *c, const char *prefix, int par)
{
    const size_t n = strlen(prefix);
    double t[3];

    memset(f, 0, sizeof(*f));
    f->c = c;
    for (int k = 0; k < c->nb; k++)
        f->bd[f->nbv++] = c->mb[k];
    for (int j = 0; j < m->njoint; j++) {
        int mine = 0;

        if (strncmp(m->joint[j].name, prefix, n) || m->joint[j].name[n] != '.')
            continue;
        for (int k = 0; k < c->nb; k++)
            mine |= m->marker[m->joint[j].mk[0]].body == c->mb[k];
        if (!mine)
            continue;
        for (int r = m->joint_row[j]; r < m->joint_row[j + 1] && f->nrow < NMAX; r++)
            f->row[f->nrow++] = r;
    }
    vdu_cardan_zyx(f->Ap, d->r[6 * par + 3], d->r[6 * par + 4], d->r[6 * par + 5]);
    memcpy(f->xp, d->r + 6 * par, sizeof(f->xp));
    vdu_sub3(t, c->wc, c->x0[0]);
    vdu_mat3t_vec(f->s_wc, c->A0[0], t);
}

/* the height row: value hz . (Ap^T (P - xp) - w) - q and its coefficients on the knuckle
 * (v global, omega body): dP = dx - A [s]x omega (test_nlcorner's) */
static double height_row(const struct fa *f, const struct vd_data *d, double q, double G[6])
{
    const struct vd_nlc *c = f->c;
    const double *rk = d->r + 6 * c->mb[0];
    double A[9], t[3], P[3], x[3], hg[3], S[9];

    vdu_cardan_zyx(A, rk[3], rk[4], rk[5]);
    vdu_mat3_vec(t, A, f->s_wc);
    vdu_add3(P, rk, t);
    vdu_sub3(t, P, f->xp);
    vdu_mat3t_vec(x, f->Ap, t);
    vdu_mat3_vec(hg, f->Ap, c->hz);
    memcpy(G, hg, 3 * sizeof(double));
    vdu_skew(S, f->s_wc);
    vdu_mat3t_vec(t, A, hg);
    vdu_mat3t_vec(G + 3, S, t);
    vdu_scale3(G + 3, -1.0, G + 3);
    vdu_sub3(t, x, c->wc);
    return vdu_dot3(c->hz, t) - q;
}

/* Newton on the corner's rows and the height row at q; the last step's norm */
static double fa_newton(const struct fa *f, const struct vd_model *m, struct vd_data *d, double q)
{
    static double Gs[NMAX * NMAX], rhs[NMAX];
    const int n = 6 * f->nbv;
    double step = 1.0;

    for (int it = 0; it < 30 && step > 1e-15; it++) {
        double G[6];
        int nr = f->nrow;

        vd_kinematics(m, d, d->r, d->v);
        vd_joint_eval(m, d, d->u, false);
        memset(Gs, 0, sizeof(Gs));
        vt_rows_into(m, d, f->row, f->nrow, f->bd, f->nbv, n, Gs, rhs);
        rhs[nr] = -height_row(f, d, q, G);
        for (int e = 0; e < 6; e++)
            Gs[nr + n * e] = G[e]; /* bd[0] is the knuckle */
        nr++;
        if (nr != n || vt_gauss(n, Gs, rhs))
            return INFINITY;
        step = vt_bodies_step(d, f->bd, f->nbv, rhs);
    }
    return step;
}

/* toe (heading of the knuckle's x axis) and camber (tilt of its y axis) from the design pose
 * in the parent frame, and the wheel centre's height there from its design position */
static void kc(const struct fa *f, const double *r, double *toe, double *cam, double *wz)
{
    const double *rk = r + 6 * f->c->mb[0];
    double A[9], B[9], t[3], P[3], x[3];

    vdu_cardan_zyx(A, rk[3], rk[4], rk[5]);
    vdu_mat3t_mul(B, f->Ap, A);
    vdu_mat3_mult(A, B, f->c->A0[0]);
    *toe = atan2(A[3], A[0]);
    *cam = asin(A[7]);
    vdu_cardan_zyx(A, rk[3], rk[4], rk[5]);
    vdu_mat3_vec(t, A, f->s_wc);
    vdu_add3(P, rk, t);
    vdu_sub3(t, P, f->xp);
    vdu_mat3t_vec(x, f->Ap, t);
    *wz = x[2] - f->c->wc[2];
}

static void curves(const struct vd_model *m, struct vd_data *d, const struct vd_ce *ce)
{
    const int par = vd_model_find_body(m, "chassis");
    double wt = 0.0, wc = 0.0, wz = 0.0, maxstep = 0.0, beta = 0.0, w0 = 0.0;
    int nf = 0;

    for (int side = 0; side < 2; side++) {
        const struct vd_nlc *c = ce->rack.nlc[side];
        char prefix[VD_NAME_MAX];
        struct fa f;

        vt_corner_prefix(m, c, prefix, sizeof(prefix));
        vd_data_reset(m, d);
        fa_setup(&f, m, d, c, prefix, par);
        CHECK(f.nrow == 47,
              "%s: 47 joint rows (5 universal + 5 ball links, the strut's "
              "universal, ball and prismatic) (%d)",
              prefix, f.nrow);
        beta = fmax(beta, c->beta);
        /* the design pose: the rack at its centre, the travel 0 */
        {
            double t0, c0, z0;

            vt_rack_place(m, d, ce, side, par, 0.0, 0.0);
            kc(&f, d->r, &t0, &c0, &z0);
            w0 = fmax(w0, fmax(fabs(t0), fmax(fabs(c0), fabs(z0))));
        }
        for (int iq = -6; iq <= 6; iq++)
            for (int is = -6; is <= 6; is++) {
                const double q = 0.12 * iq / 6.0, s = 0.085 * is / 6.0;
                double t0, c0, z0, t1, c1, z1;

                if (vt_rack_place(m, d, ce, side, par, q, s)) {
                    nf++;
                    continue;
                }
                kc(&f, d->r, &t0, &c0, &z0);
                /* the ideal-joint model's own solution from 1 mm / 1 mrad away */
                for (int k = 0; k < f.nbv; k++)
                    for (int i = 0; i < 6; i++)
                        d->r[6 * f.bd[k] + i] += 1e-3 * sin(1.3 * (6 * k + i) + iq + 0.7 * is);
                maxstep = fmax(maxstep, fa_newton(&f, m, d, q));
                kc(&f, d->r, &t1, &c1, &z1);
                wt = fmax(wt, fabs(t1 - t0));
                wc = fmax(wc, fabs(c1 - c0));
                wz = fmax(wz, fabs(z1 - z0));
            }
    }
    CHECK(nf == 0, "the closure over travel +-0.12 m x rack +-0.085 m (%d failed)", nf);
    CHECK(maxstep < 1e-12, "the ideal-joint Newton converged (last step %.3g)", maxstep);
    /* the design pose: the closure at (0, 0) is the tabulated design pose refined by the fixed
     * iterations (error <= the proof's 1e-13), toe and camber of a rotation within 1e-13 of
     * the identity, the height of a point within 1e-13 m: 1e-12 */
    CHECK_TOL(w0, 1e-12, "rack centred, travel 0: the design pose (toe, camber, height %.3g)", w0);
    /* the closure's pose error: at most |J^-1| (beta, the proof's largest) times its residual
     * (the run-time check: <= VD_NLC_RTOL 1e-11), beta 1e-11, plus the ideal-joint solve's
     * rounding (its rows' condition times u: 1e-13); beta is printed and checked below 50
     * (then 5e-10): 1e-9 for toe, camber (rad) and the height (m) */
    CHECK(beta < 50.0, "the closure's |J^-1| %.3g < 50 (the 1e-9 bound's premise)", beta);
    CHECK_TOL(wt, 1e-9, "toe CE vs FA %.3g rad (beta %.3g)", wt, beta);
    CHECK_TOL(wc, 1e-9, "camber CE vs FA %.3g rad", wc);
    CHECK_TOL(wz, 1e-9, "wheel centre height CE vs FA %.3g m", wz);
    printf("curves (travel +-0.12 m x rack +-0.085 m, both sides): toe %.2g, camber %.2g, "
           "wheel centre %.2g against the ideal-joint model (beta %.3g)\n",
           wt, wc, wz, beta);
    {
        /* the steering geometry at the design travel: toe against the rack's travel */
        const struct vd_nlc *c = ce->rack.nlc[0];
        const double e = 1e-4;
        char prefix[VD_NAME_MAX];
        struct fa f;
        double tp, tm, cm, z, t75p, t75m, ratio;

        vt_corner_prefix(m, c, prefix, sizeof(prefix));
        vd_data_reset(m, d);
        fa_setup(&f, m, d, c, prefix, par);
        vt_rack_place(m, d, ce, 0, par, 0.0, e);
        kc(&f, d->r, &tp, &cm, &z);
        vt_rack_place(m, d, ce, 0, par, 0.0, -e);
        kc(&f, d->r, &tm, &cm, &z);
        vt_rack_place(m, d, ce, 0, par, 0.0, 0.075);
        kc(&f, d->r, &t75p, &cm, &z);
        vt_rack_place(m, d, ce, 0, par, 0.0, -0.075);
        kc(&f, d->r, &t75m, &cm, &z);
        /* the overall ratio at the centre: the pinion's angle (the steering wheel's: the two
         * Cardan joints' ratios about 1 at the centre) per road wheel angle,
         * (1 / gear ratio) / (d toe / ds) */
        ratio = (1.0 / ce->rack.ratio) / fabs((tp - tm) / (2 * e));
        printf("steering: overall ratio %.1f:1 at the centre; the left wheel at %.1f / %.1f deg "
               "at the rack's end stops +-0.075 m\n",
               ratio, t75p * 180 / M_PI, t75m * 180 / M_PI);
        /* sanity, not tuning: the sedan's rack (8.5 mm per pinion radian) on this knuckle's
         * steering arm (the tie rod's outer point 0.144 m behind the wheel centre) gives a
         * slower ratio than sedan.yaml's 16.5 (about 21): between 12 and 24, the range of
         * passenger cars and light trucks; the road wheel at the stops between 20 and 45 deg
         * (Chrono's Vehicle_MultiLinks.json, this corner's vehicle, steers to 25 deg) */
        CHECK(ratio > 12.0 && ratio < 24.0, "overall steering ratio %.1f in (12, 24)", ratio);
        CHECK(fabs(t75p) > 20 * M_PI / 180 && fabs(t75m) > 20 * M_PI / 180 &&
                  fabs(t75p) < 45 * M_PI / 180 && fabs(t75m) < 45 * M_PI / 180,
              "wheel angle at the stops %.1f / %.1f deg", t75p * 180 / M_PI, t75m * 180 / M_PI);
    }
}

int main(void)
{
    const char *path = "tests/core/mlrack_ce.yaml";
    struct vd_model *m = vd_cfg_load_model(path, NULL, stderr);
    struct vd_data *d;
    struct vd_ce_data *cd;
    char err[256];

    /* 0. the template: the front tie rods' inner joints on the rack, the rear ones on the
     * chassis (no tierod_mount there) */
    CHECK(m != NULL, "load %s", path);
    if (!m)
        return vt_report("test_cemlrack");
    {
        static const char *const jn[4] = {"front_l.tierod_inner", "front_r.tierod_inner",
                                          "rear_l.tierod_inner", "rear_r.tierod_inner"};

        for (int k = 0; k < 4; k++) {
            const int j = vd_model_find_joint(m, jn[k]);
            const int b = j >= 0 ? m->marker[m->joint[j].mk[1]].body : -1;
            const char *want = k < 2 ? "steering.rack" : "chassis";

            CHECK(j >= 0 && m->joint[j].type == VD_JOINT_UNIVERSAL && b >= 0 &&
                      !strcmp(m->body[b].name, want),
                  "%s: a universal joint on %s (%s)", jn[k], want, b >= 0 ? m->body[b].name : "-");
        }
    }
    CHECK(!vd_model_set_formulation(m, VD_FORM_CE, err, sizeof(err)) && m->ce, "%s as ce: %s", path,
          m->ce ? "ok" : err);
    if (!m->ce) {
        vd_model_free(m);
        return vt_report("test_cemlrack");
    }
    CHECK(m->ce->tree->n == 16 && m->ce->has_rack && m->ce->nnlc == 4 && m->ce->ncorner == 0 &&
              m->ce->rack.nlc[0] && m->ce->rack.nlc[1] &&
              m->ce->rack.nlc[0]->kind == VD_NLC_MULTILINK &&
              m->ce->rack.nlc[1]->kind == VD_NLC_MULTILINK,
          "16 coordinates (%d): the rack node of two multilinks, two multilinks on the chassis",
          m->ce->tree->n);
    for (int s = 0; s < 2; s++) {
        const struct vd_nlc *c = m->ce->rack.nlc[s];

        vt_rack_proof(c, s, c->rack_link == VD_NLC_MAXL - 1 && c->smax == VD_CE_RACK_SMAX);
    }
    d = vd_data_new(m);
    cd = vd_ce_data_new(m, m->ce);
    curves(m, d, m->ce);
    /* 2. the placements, the multilinks' heights within +-0.09 m */
    vt_rack_placements(m, d, m->ce, cd, 0.09);
    /* 3. the rack closure's derivatives against central differences, step e = 1e-6 (m),
     * relative to the largest entry, as test_cemprack's: truncation e^2/6 |s'''| / |s'| (the
     * column's 118 rad per m of rack dominates |s'|, its third derivative in the rack travel of
     * the same order per m^2: 1e-12 x O(1e2) / 118, below 1e-9); rounding u |s| / (e |s'|)
     * plus the closure's: each placement from a pose within 1e-13 of the exact one (the
     * proof's bound), 1e-13 / e = 1e-7 relative to s' of order 1: 1e-6 relative (a wrong term
     * is >= 1e-2) */
    {
        static const double amp[3] = {0.08, 0.1, 0.07};

        vt_rack_derivatives(m->ce, m->ce->rack.off[2] + 4, amp);
    }
    {
        /* past the proven rectangle: refused (the state is rejected), not extrapolated */
        static struct vd_tree_rel rel[2 * VD_NLC_MAXB + 4];
        const double q[3] = {0.0, 0.0, 1.01 * VD_CE_RACK_SMAX}, qd[3] = {0, 0, 0};
        const double q2[3] = {0.16, 0.0, 0.0};

        CHECK(vd_ce_rack_closure(&m->ce->rack, q, qd, rel) == -EDOM,
              "rack travel past the proven range: -EDOM");
        CHECK(vd_ce_rack_closure(&m->ce->rack, q2, qd, rel) == -EDOM,
              "wheel travel past the proven range: -EDOM");
    }
    vd_ce_data_free(cd);
    vd_data_free(d);
    vd_model_free(m);
    /* 4. CE against FA steering from rest (the bound: ce_checks.h) at h = 0.5 ms: at 1 ms the
     * CE form's pitch is not in the first-order regime the bound assumes over the first 0.2 s
     * (the drop from the design pose and the steering step: e(1 ms) / e(0.5 ms) measured 5.5
     * for the pitch angle, 4.5 for its rate, against the 2 x 1.5 the bound allows; 2.1-2.4 for
     * every other signal and for FA), so the 1 ms check passed by a 1 % margin that the
     * derivation does not cover; at 0.5 ms the pitch angle's ratio is 2.7 and the check holds
     * with the bound's margin (worst 0.32 of it) */
    vt_rack_ce_vs_fa(path, 0.5e-3);
    return vt_report("test_cemlrack");
}
