/* tests/core/test_cemprack.c - the CE form's steered McPherson axle on a rack (core/nlcorner.h
 * "On a rack", core/ce_rack.c) on tests/core/mprack_ce.yaml (tests/core/mp_ml_ce.yaml with the
 * sedan's rack_pinion steering, the McPherson tie rods on the rack; 16 coordinates in CE):
 *   0. the proof of the fixed Newton count over the arm's and the rack's ranges (nlcorner.h)
 *      and the fixed count's residual over that rectangle;
 *   1. the kinematic curves: toe, camber and the wheel centre's height against the lower arm
 *      angle (wheel travel) and the rack travel, from the closure, equal the ideal-joint (FA)
 *      model's own solution (Newton's method on the corner's joints with the arm's angle and
 *      the rack held, from a start 1 mm / 1 mrad away) to a derived bound; the steering
 *      geometry's sanity (the overall ratio at the centre, the wheel angle at the end stops);
 *   2. at states away from the design pose the placed bodies satisfy every joint (g = 0,
 *      G v = 0, G v' + gamma = 0), the bushings' locked translations and the gear's error
 *      vanish (test_cerack's part 1);
 *   3. the rack closure's ds/dq and d kappa/dq against central differences;
 *   4. CE against FA over 0.5 s steering from rest (test_cerack's part 3);
 *   5. a multilink's tie rod on a (virtual) rack: the proof and the derivatives.
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

#define NMAX 48

/* 1. the corner's kinematics against the ideal-joint model's: the corner's joint rows (but the
 * lower arm's pivot, held) solved by Newton's method for its knuckle, tie rod and piston rod,
 * the rack's body at the travel s (the rows' rack side held) */
struct fa {
    const struct vd_nlc *c;
    int nrow, row[NMAX];
    int nbv, bd[8];
    double Ap[9], xp[3];
};

static void fa_setup(struct fa *f, const struct vd_model *m, const struct vd_data *d,
                     const struct vd_nlc *c, const char *prefix, int par)
{
    const size_t n = strlen(prefix);
    char nm[2 * VD_NAME_MAX];
    int hold;

    memset(f, 0, sizeof(*f));
    f->c = c;
    snprintf(nm, sizeof(nm), "%s.lca_pivot", prefix);
    hold = vd_model_find_joint(m, nm);
    for (int k = 0; k < c->nb; k++)
        if (k != 1)
            f->bd[f->nbv++] = c->mb[k];
    for (int j = 0; j < m->njoint; j++) {
        int mine = 0;

        if (strncmp(m->joint[j].name, prefix, n) || m->joint[j].name[n] != '.' || j == hold)
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
}

static double fa_newton(const struct fa *f, const struct vd_model *m, struct vd_data *d)
{
    static double Gs[NMAX * NMAX], rhs[NMAX];
    const int n = 6 * f->nbv;
    double step = 1.0;

    for (int it = 0; it < 30 && step > 1e-15; it++) {
        vd_kinematics(m, d, d->r, d->v);
        vd_joint_eval(m, d, d->u, false);
        memset(Gs, 0, sizeof(Gs));
        vt_rows_into(m, d, f->row, f->nrow, f->bd, f->nbv, n, Gs, rhs);
        if (f->nrow != n || vt_gauss(n, Gs, rhs))
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
    double A[9], B[9], t[3], s[3], P[3], x[3];

    vdu_cardan_zyx(A, rk[3], rk[4], rk[5]);
    vdu_mat3t_mul(B, f->Ap, A);
    vdu_mat3_mult(A, B, f->c->A0[0]);
    *toe = atan2(A[3], A[0]);
    *cam = asin(A[7]);
    vdu_sub3(t, f->c->wc, f->c->x0[0]);
    vdu_mat3t_vec(s, f->c->A0[0], t);
    vdu_cardan_zyx(A, rk[3], rk[4], rk[5]);
    vdu_mat3_vec(t, A, s);
    vdu_add3(P, rk, t);
    vdu_sub3(t, P, f->xp);
    vdu_mat3t_vec(x, f->Ap, t);
    *wz = x[2] - f->c->wc[2];
}

static void curves(const struct vd_model *m, struct vd_data *d, const struct vd_ce *ce)
{
    const int par = vd_model_find_body(m, "chassis");
    double wt = 0.0, wc = 0.0, wz = 0.0, maxstep = 0.0, beta = 0.0;
    int nf = 0;

    for (int side = 0; side < 2; side++) {
        const struct vd_nlc *c = ce->rack.nlc[side];
        char prefix[VD_NAME_MAX];
        struct fa f;

        vt_corner_prefix(m, c, prefix, sizeof(prefix));
        vd_data_reset(m, d);
        fa_setup(&f, m, d, c, prefix, par);
        beta = fmax(beta, c->beta);
        for (int iq = -6; iq <= 6; iq++)
            for (int is = -6; is <= 6; is++) {
                const double q = 0.35 * iq / 6.0, s = 0.085 * is / 6.0;
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
                maxstep = fmax(maxstep, fa_newton(&f, m, d));
                kc(&f, d->r, &t1, &c1, &z1);
                wt = fmax(wt, fabs(t1 - t0));
                wc = fmax(wc, fabs(c1 - c0));
                wz = fmax(wz, fabs(z1 - z0));
            }
    }
    CHECK(nf == 0, "the closure over arm +-0.35 rad x rack +-0.085 m (%d failed)", nf);
    CHECK(maxstep < 1e-12, "the ideal-joint Newton converged (last step %.3g)", maxstep);
    /* the closure's pose error: at most |J^-1| (beta, the proof's largest, about 24 m/m) times
     * its residual (the run-time check: <= VD_NLC_RTOL 1e-11), 2.4e-10 m or rad, plus the
     * ideal-joint solve's rounding (its rows' condition times u: 1e-13): 1e-9 for toe, camber
     * (rad) and the height (m) */
    CHECK_TOL(wt, 1e-9, "toe CE vs FA %.3g rad (beta %.3g)", wt, beta);
    CHECK_TOL(wc, 1e-9, "camber CE vs FA %.3g rad", wc);
    CHECK_TOL(wz, 1e-9, "wheel centre height CE vs FA %.3g m", wz);
    printf("curves (arm +-0.35 rad x rack +-0.085 m, both sides): toe %.2g, camber %.2g, "
           "wheel centre %.2g against the ideal-joint model\n",
           wt, wc, wz);
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
        /* sanity, not tuning: passenger cars' overall ratios lie between 12 and 20 (sedan.yaml:
         * 16.5), the road wheel at the stops between 25 and 45 deg */
        CHECK(ratio > 12.0 && ratio < 20.0, "overall steering ratio %.1f in (12, 20)", ratio);
        CHECK(fabs(t75p) > 25 * M_PI / 180 && fabs(t75m) > 25 * M_PI / 180 &&
                  fabs(t75p) < 45 * M_PI / 180 && fabs(t75m) < 45 * M_PI / 180,
              "wheel angle at the stops %.1f / %.1f deg", t75p * 180 / M_PI, t75m * 180 / M_PI);
    }
}

/* 5. a multilink's tie rod on a rack (vd_nlc_on_rack with rack_link the tie rod, link 5) over a
 * short travel: the rear corner of mp_ml_ce.yaml with a virtual rack along the chassis' y over
 * +-0.02 m (a rear-steer actuator's travel): the proof over the rectangle and the closure's
 * ds/dq and d kappa/dq in both coordinates against central differences (the tolerance as part
 * 3's: 1e-6 relative). The template-built steered multilink axle on the sedan's rack (+-0.09 m):
 * test_cemlrack */
static void multilink_on_rack(void)
{
    static struct vd_nlc c;
    static struct vd_tree_rel r0[VD_NLC_MAXB], rp[VD_NLC_MAXB], rm[VD_NLC_MAXB];
    const double rd[3] = {0.0, 1.0, 0.0};
    struct vd_model *m = vd_cfg_load_model("tests/core/mp_ml_ce.yaml", NULL, stderr);
    double wds = 0.0, wdk = 0.0, sds = 0.0, sdk = 0.0, wr = 0.0, t[3], Q[9], res;
    char err[256];
    int rc;

    CHECK(m != NULL, "load mp_ml_ce.yaml");
    if (!m)
        return;
    rc = vd_nlc_from_model(&c, m, "rear_l", vd_model_find_body(m, "chassis"), err, sizeof(err));
    CHECK(rc == 0, "rear_l: %s", rc ? err : "multilink");
    rc = rc ? rc : vd_nlc_on_rack(&c, rd, 0.02, err, sizeof(err));
    CHECK(rc == 0 && c.rack_link == VD_NLC_MAXL - 1, "rear_l on a rack: %s", rc ? err : "proven");
    if (rc) {
        vd_model_free(m);
        return;
    }
    printf("multilink on a rack (+-0.02 m): h %.3g, bound %.3g\n", c.kh, c.kbound);
    for (int i = 0; i <= 20; i++)
        for (int j = 0; j <= 10; j++) {
            CHECK(vd_nlc_solve2(&c, c.qmin + (c.qmax - c.qmin) * i / 20.0,
                                c.smin + (c.smax - c.smin) * j / 10.0, t, Q, &res) == 0,
                  "multilink solve %d %d", i, j);
            wr = fmax(wr, res);
        }
    /* as main's: 1e-13 */
    CHECK_TOL(wr, 1e-13, "multilink on a rack: residual %.3g", wr);
    for (int trial = 0; trial < 5; trial++) {
        const double q[3] = {0.1 * sin(trial), 0.0, 0.015 * cos(1.3 * trial)};
        const double qd[3] = {0.4 - 0.1 * trial, 0.0, 0.05 * trial - 0.1};

        CHECK(vd_nlc_closure_in3(&c, 0, q, qd, 0, r0) == 0, "multilink closure %d", trial);
        for (int k = 0; k < 3; k += 2) {
            const double e = 1e-6;
            double qp[3] = {q[0], q[1], q[2]}, qm[3] = {q[0], q[1], q[2]};

            qp[k] += e;
            qm[k] -= e;
            vd_nlc_closure_in3(&c, 0, qp, qd, 0, rp);
            vd_nlc_closure_in3(&c, 0, qm, qd, 0, rm);
            for (int b = 0; b < c.nb; b++)
                for (int i = 0; i < 6; i++) {
                    sdk = fmax(sdk, fabs(r0[b].dkappa[6 * k + i]));
                    wdk = fmax(wdk, fabs(r0[b].dkappa[6 * k + i] -
                                         (rp[b].kappa[i] - rm[b].kappa[i]) / (2 * e)));
                    for (int j = 0; j < 3; j += 2) {
                        sds = fmax(sds, fabs(r0[b].ds[6 * (j + 3 * k) + i]));
                        wds = fmax(wds, fabs(r0[b].ds[6 * (j + 3 * k) + i] -
                                             (rp[b].s[6 * j + i] - rm[b].s[6 * j + i]) / (2 * e)));
                    }
                }
        }
    }
    CHECK_TOL(wds / sds, 1e-6, "multilink on a rack: ds/dq vs central differences %.3g (of %.3g)",
              wds, sds);
    CHECK_TOL(wdk / sdk, 1e-6,
              "multilink on a rack: d kappa/dq vs central differences %.3g (of %.3g)", wdk, sdk);
    printf("multilink on a rack: ds %.2g of %.3g, dkappa %.2g of %.3g against central "
           "differences\n",
           wds, sds, wdk, sdk);
    vd_model_free(m);
}

int main(void)
{
    const char *path = "tests/core/mprack_ce.yaml";
    struct vd_model *m = vd_cfg_load_model(path, NULL, stderr);
    struct vd_data *d;
    struct vd_ce_data *cd;
    char err[256];

    CHECK(m != NULL && !vd_model_set_formulation(m, VD_FORM_CE, err, sizeof(err)) && m->ce,
          "load %s as ce", path);
    if (!m || !m->ce)
        return vt_report("test_cemprack");
    CHECK(m->ce->tree->n == 16 && m->ce->has_rack && m->ce->nnlc == 4 && m->ce->ncorner == 0 &&
              m->ce->rack.nlc[0] && m->ce->rack.nlc[1],
          "16 coordinates (%d): the rack node of two McPhersons, two multilinks", m->ce->tree->n);
    for (int s = 0; s < 2; s++) {
        const struct vd_nlc *c = m->ce->rack.nlc[s];

        vt_rack_proof(c, s, true);
    }
    d = vd_data_new(m);
    cd = vd_ce_data_new(m, m->ce);
    curves(m, d, m->ce);
    vt_rack_placements(m, d, m->ce, cd, 0.3);
    /* 3. the rack closure's derivatives (the McPherson corners' mixed passes in (q, s) and the
     * steering chain) against central differences, step e = 1e-6 (rad, m), relative to the largest
     * entry, as test_cerack's: truncation e^2/6 |s'''| / |s'| <= 2.3e-9 (the column's 118 rad per
     * m of rack dominates; the knuckle turns by about 5 rad per m of rack); rounding u |s| / (e
     * |s'|) plus the closure's: each placement from a pose within 1e-13 of the exact one (the
     * proof's bound), 1e-13 / e = 1e-7 relative to s' of order 1: 1e-6 relative (a wrong term is
     * >= 1e-2) */
    {
        static const double amp[3] = {0.2, 0.25, 0.07};

        vt_rack_derivatives(m->ce, m->ce->rack.off[2] + 4, amp);
    }
    {
        /* past the proven rectangle: refused (the state is rejected), not extrapolated */
        static struct vd_tree_rel rel[2 * VD_NLC_MAXB + 4];
        const double q[3] = {0.0, 0.0, 1.01 * VD_CE_RACK_SMAX}, qd[3] = {0, 0, 0};

        CHECK(vd_ce_rack_closure(&m->ce->rack, q, qd, rel) == -EDOM,
              "rack travel past the proven range: -EDOM");
    }
    vd_ce_data_free(cd);
    vd_data_free(d);
    vd_model_free(m);
    vt_rack_ce_vs_fa(path, 1e-3);
    multilink_on_rack();
    return vt_report("test_cemprack");
}
