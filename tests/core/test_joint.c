/* tests/core/test_joint.c - ideal joints (core/joint.h): for every joint type, between two
 * bodies and between a body and ground, at random states with large rotations, the analytic
 * rows G = g_r K and the acceleration term gamma = (d/dt G) v (v fixed) against central
 * differences along r' = K(r) x:
 *   G x   ~ (g(r + e K x) - g(r - e K x)) / 2e            for x = each unit velocity
 *   gamma ~ (G(r + e K v) v - G(r - e K v) v) / 2e
 * Tolerance (central differences, step e = 1e-6 along a curve of speed |K x| <= 30): the
 * truncation error is e^2 / 6 |g'''| with |g'''| <= (|w| + 1)^3 |lever| <= 31^3 * 3 m
 * (angular rates <= 30 rad/s through the Cardan rates of random angles, levers and |d| <= 3 m):
 * 1.5e-8; the rounding error is u |g| / e = 1.1e-16 * 3 / 1e-6 = 3.3e-10 (g) and
 * u |G v| / e <= 1.1e-16 * 1e3 / 1e-6 = 1.1e-7 (gamma, |G v| <= 1e3). TOL_G = 1e-7 and
 * TOL_GAM = 1e-6 (1 + |gamma|) hold both with a margin of 5; a wrong sign or a missing term is
 * of the size of the term itself (>= 1e-2 at these states). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "build_util.h"
#include "core/data.h"
#include "core/eval.h"
#include "core/joint.h"
#include "core/kinematics.h"
#include "core/model.h"

#define FD_STEP 1e-6
#define TOL_G   1e-7
#define TOL_GAM 1e-6
/* vd_joint_g after vd_kinematics_pos (the projection) against vd_joint_eval after
 * vd_kinematics at the same state: each cosine and sine within 3 u of exact (series) or 0.5 u
 * (libm), the anchor's libm values adding 0.5 u each: e <= 4 u; an entry of A, two products
 * of three such factors (|.| <= 1) and a difference, is off by <= 2 (3 e + 2 u) + u = 29 u,
 * the full evaluation's by <= 8 u: 37 u apart. A point row (|s| <= 0.87 m, |r| <= 0.5 m) sums
 * two levers A s: <= 2 x 3 x 0.87 x 37 u + rounding ~ 200 u; an axis product (marker axes A
 * C, C orthonormal) <= 2 x 3 x 3 x 37 u ~ 700 u; the angle row divides by rho ~ 1 (trials
 * with rho < 0.19 are skipped above): ~ 4 x 700 u. TOL_POS = 1e-12 (4500 u) holds them all;
 * a wrong term of the series is >= 0.05^3 / 6 = 2e-5 at these angles */
#define TOL_POS 1e-12

static const char *const type_name[VD_JOINT_NTYPE] = {
    "spherical", "revolute", "universal",          "cylindrical",     "prismatic",
    "fixed",     "distance", "driven translation", "driven rotation", "orientation"};

static void random_rot(double ang[3])
{
    ang[0] = vt_uniform(-M_PI, M_PI);
    ang[1] = vt_uniform(-1.2, 1.2); /* large, away from the Cardan singularity at 90 deg */
    ang[2] = vt_uniform(-M_PI, M_PI);
}

/* g of the model at r (nc values into g) */
static void eval_g(const struct vd_model *m, struct vd_data *d, const double *r, const double *v,
                   const double *u, double *g, double *Gv, bool gam)
{
    vd_kinematics(m, d, r, v);
    vd_joint_eval(m, d, u, gam);
    if (g)
        memcpy(g, d->jg, (size_t)m->nc * sizeof(double));
    if (Gv)
        vd_joint_G_mul(m, d, v, Gv);
}

/* r +- e K(r) x */
static void move(const struct vd_model *m, struct vd_data *d, const double *r, const double *x,
                 double e, double *out)
{
    double rd[18];

    vd_kinematics(m, d, r, x);
    vd_kdot(m, d->Ei, x, rd);
    for (int i = 0; i < m->nq; i++)
        out[i] = r[i] + e * rd[i];
}

static void check_type(int type, bool ground)
{
    struct vd_model *m = vd_model_new("joint");
    const double pose[6] = {0, 0, 0, 0, 0, 0};
    double ang[3], u[1] = {0.0};
    struct vd_joint j;
    struct vd_data *d;
    int b1, b2, act;
    char err[160];

    b1 = bu_body(m, "b1", 3.0, 0.2, 0.3, 0.4, pose);
    b2 = ground ? VD_GROUND : bu_body(m, "b2", 5.0, 0.3, 0.2, 0.5, pose);
    if (ground) /* a free body, so that a fixed joint to ground leaves something to move */
        bu_body(m, "free", 1.0, 0.1, 0.1, 0.1, pose);
    memset(&j, 0, sizeof(j));
    snprintf(j.name, sizeof(j.name), "%s", type_name[type]);
    j.type = type;
    random_rot(ang);
    j.mk[0] = bu_marker(m, "mi", b1, vt_uniform(-0.5, 0.5), vt_uniform(-0.5, 0.5),
                        vt_uniform(-0.5, 0.5), ang);
    random_rot(ang);
    j.mk[1] = bu_marker(m, "mj", b2, vt_uniform(-0.5, 0.5), vt_uniform(-0.5, 0.5),
                        vt_uniform(-0.5, 0.5), ang);
    j.length = 0.7;
    j.input = -1;
    {
        struct vd_input in;

        memset(&in, 0, sizeof(in));
        snprintf(in.name, sizeof(in.name), "drive");
        in.kind = VD_INPUT_ACTUATOR;
        in.marker = -1;
        act = vd_model_add_input(m, &in);
    }
    if (type == VD_JOINT_DRIVEN_TRANSLATION || type == VD_JOINT_DRIVEN_ROTATION) {
        j.input = act;
        j.gain = 0.3;
        j.offset = 0.1;
        u[0] = vt_uniform(-1.0, 1.0);
    }
    CHECK(vd_model_add_joint(m, &j) == 0, "add joint %s", type_name[type]);
    m->opt.method = VD_METHOD_LIE;
    if (vd_model_finalize(m, err, sizeof(err))) {
        CHECK(0, "finalize: %s", err);
        vd_model_free(m);
        return;
    }
    CHECK(m->nc == vd_joint_rows(type), "%s: %d rows", type_name[type], m->nc);
    d = vd_data_new(m);
    for (int trial = 0; trial < 20; trial++) {
        const int nq = m->nq, nc = m->nc;
        double r[18], v[18], x[18], rp[18], rm[18], gp[6], gm[6], Gx[6], gam[6], Gvp[6], Gvm[6];
        double worst_g = 0.0, worst_gam = 0.0;

        for (int b = 0; b < m->nbody; b++) {
            for (int k = 0; k < 3; k++)
                r[6 * b + k] = vt_uniform(-0.5, 0.5);
            random_rot(r + 6 * b + 3);
            for (int k = 0; k < 6; k++)
                v[6 * b + k] = vt_uniform(-3.0, 3.0);
        }
        /* the angle of a driven rotation is defined when x_i is not along z_j */
        if (type == VD_JOINT_DRIVEN_ROTATION) {
            const double *Ri, *Rj;

            vd_kinematics(m, d, r, v);
            Ri = d->mR + 9 * j.mk[0];
            Rj = d->mR + 9 * j.mk[1];
            if (fabs(Ri[0] * Rj[2] + Ri[3] * Rj[5] + Ri[6] * Rj[8]) > 0.9) {
                trial--;
                continue;
            }
        }
        /* G: one unit velocity at a time */
        for (int c = 0; c < nq; c++) {
            memset(x, 0, sizeof(x));
            x[c] = 1.0;
            move(m, d, r, x, FD_STEP, rp);
            move(m, d, r, x, -FD_STEP, rm);
            eval_g(m, d, rp, v, u, gp, NULL, false);
            eval_g(m, d, rm, v, u, gm, NULL, false);
            eval_g(m, d, r, v, u, NULL, NULL, false);
            vd_joint_G_mul(m, d, x, Gx);
            for (int k = 0; k < nc; k++) {
                double fd = (gp[k] - gm[k]) / (2 * FD_STEP);

                /* the angle row wraps at +-pi: compare modulo 2 pi / (2e) */
                if (type == VD_JOINT_DRIVEN_ROTATION)
                    fd = remainder(gp[k] - gm[k], 2 * M_PI) / (2 * FD_STEP);
                worst_g = fmax(worst_g, fabs(fd - Gx[k]));
            }
        }
        /* gamma */
        eval_g(m, d, r, v, u, NULL, NULL, true);
        memcpy(gam, d->jgam, (size_t)nc * sizeof(double));
        move(m, d, r, v, FD_STEP, rp);
        move(m, d, r, v, -FD_STEP, rm);
        eval_g(m, d, rp, v, u, NULL, Gvp, false);
        eval_g(m, d, rm, v, u, NULL, Gvm, false);
        for (int k = 0; k < nc; k++) {
            const double fd = (Gvp[k] - Gvm[k]) / (2 * FD_STEP);

            worst_gam = fmax(worst_gam, fabs(fd - gam[k]) / (1.0 + fabs(gam[k])));
        }
        /* the projection's values (vd_kinematics_pos anchored at r, vd_joint_g) at r2 near r
         * against the full evaluation at r2: the angles move by up to 0.4 rad, so both the
         * series (within VD_NEAR_MAX = 0.25) and libm are used */
        {
            double r2[18], gf[6], gq[6], worst_p = 0.0;

            for (int i = 0; i < nq; i++)
                r2[i] = r[i] + (i % 6 < 3 ? vt_uniform(-0.01, 0.01) : vt_uniform(-0.4, 0.4));
            eval_g(m, d, r2, v, u, gf, NULL, false);
            vd_kinematics(m, d, r, v); /* the anchor */
            vd_kinematics_pos(m, d, r2, false);
            vd_joint_g(m, d, r2, u);
            memcpy(gq, d->jg, (size_t)nc * sizeof(double));
            for (int k = 0; k < nc; k++)
                worst_p = fmax(worst_p, fabs(gq[k] - gf[k]));
            CHECK_TOL(worst_p, TOL_POS, "%s%s trial %d: projection values vs full: %.3g",
                      type_name[type], ground ? " to ground" : "", trial, worst_p);
        }
        CHECK_TOL(worst_g, TOL_G, "%s%s trial %d: G vs central differences: %.3g", type_name[type],
                  ground ? " to ground" : "", trial, worst_g);
        CHECK_TOL(worst_gam, TOL_GAM, "%s%s trial %d: gamma vs central differences: %.3g",
                  type_name[type], ground ? " to ground" : "", trial, worst_gam);
    }
    vd_data_free(d);
    vd_model_free(m);
}

/* g at a consistent configuration is zero and the driven coordinate follows the input:
 * two bodies with identical markers at the same global point satisfy every joint with the
 * driven coordinate at its offset */
static void check_assembled(void)
{
    for (int type = 0; type < VD_JOINT_NTYPE; type++) {
        struct vd_model *m = vd_model_new("assembled");
        double ang[3], pose1[6] = {0.1, 0.2, 0.3, 0.4, -0.3, 0.2}, pose2[6];
        struct vd_joint j;
        struct vd_data *d;
        double u[1] = {0.0};
        char err[160];
        int b1, b2;

        /* body 2 at another pose; the markers are placed so that both are at the global point
         * P with the global axes Q */
        for (int k = 0; k < 6; k++)
            pose2[k] = pose1[k] + vt_uniform(-0.4, 0.4);
        b1 = bu_body(m, "b1", 1.0, 0.1, 0.1, 0.1, pose1);
        b2 = bu_body(m, "b2", 1.0, 0.1, 0.1, 0.1, pose2);
        {
            const double P[3] = {0.3, -0.2, 0.5};
            double A1[9], A2[9], Q[9], s1[3], s2[3], t[3], C1[9], C2[9];
            struct vd_marker mk;

            random_rot(ang);
            vdu_cardan_zyx(Q, ang[0], ang[1], ang[2]);
            vdu_cardan_zyx(A1, pose1[3], pose1[4], pose1[5]);
            vdu_cardan_zyx(A2, pose2[3], pose2[4], pose2[5]);
            vdu_sub3(t, P, pose1);
            vdu_mat3t_vec(s1, A1, t);
            vdu_sub3(t, P, pose2);
            vdu_mat3t_vec(s2, A2, t);
            vdu_mat3t_mul(C1, A1, Q);
            vdu_mat3t_mul(C2, A2, Q);
            memset(&mk, 0, sizeof(mk));
            mk.body = b1;
            snprintf(mk.name, sizeof(mk.name), "mi");
            memcpy(mk.pos, s1, sizeof(s1));
            memcpy(mk.rot, C1, sizeof(C1));
            j.mk[0] = vd_model_add_marker(m, &mk);
            mk.body = b2;
            snprintf(mk.name, sizeof(mk.name), "mj");
            memcpy(mk.pos, s2, sizeof(s2));
            memcpy(mk.rot, C2, sizeof(C2));
            j.mk[1] = vd_model_add_marker(m, &mk);
        }
        snprintf(j.name, sizeof(j.name), "j");
        j.type = type;
        j.length = 1.0;
        j.input = -1;
        j.gain = 0.0;
        j.offset = 0.0;
        CHECK(vd_model_add_joint(m, &j) == 0, "add");
        m->opt.method = VD_METHOD_LIE;
        CHECK(vd_model_finalize(m, err, sizeof(err)) == 0, "finalize %s", err);
        d = vd_data_new(m);
        vd_kinematics(m, d, d->r, d->v);
        vd_joint_eval(m, d, u, false);
        for (int k = 0; k < m->nc; k++) {
            /* |g| of coincident markers: rounding of the marker positions (|x| <= 1,
             * a few 3x3 products): 1e-14; the distance joint of length 1 at distance 0 */
            const double want = type == VD_JOINT_DISTANCE ? -0.5 : 0.0;

            CHECK_TOL(fabs(d->jg[k] - want), 1e-14, "%s row %d: g = %.3g at assembly",
                      type_name[type], k, d->jg[k]);
        }
        vd_data_free(d);
        vd_model_free(m);
    }
}

/* the classic over-constrained planar four-bar: four revolutes with parallel axes leave 3
 * redundant rows (Gruebler: 18 - 20 = -2, real mobility 1); finalize must refuse it naming
 * the joints, and accept it with one revolute made spherical and one universal (mobility 1) */
static void check_redundant(void)
{
    for (int fix = 0; fix < 2; fix++) {
        struct vd_model *m = vd_model_new("fourbar4r");
        static const double th = M_PI / 2, phi = 1.9085;
        const double pc[6] = {0, 0, 0, th, 0, 0}, pr[6] = {0.3, 0, 0, phi, 0, 0};
        double B[3] = {0.1 * cos(th), 0.1 * sin(th), 0}, C[3], cp[6];
        int crank, coupler, rocker, mk[8];
        const char *names[4] = {"pivot_a", "pin_b", "pin_c", "pivot_d"};
        char err[256];
        int rc;

        C[0] = 0.3 + 0.2 * cos(phi);
        C[1] = 0.2 * sin(phi);
        C[2] = 0;
        cp[0] = B[0];
        cp[1] = B[1];
        cp[2] = 0;
        cp[3] = atan2(C[1] - B[1], C[0] - B[0]);
        cp[4] = cp[5] = 0;
        crank = bu_body(m, "crank", 0.5, 1e-4, 5e-4, 5e-4, pc);
        coupler = bu_body(m, "coupler", 0.5, 1e-4, 5e-4, 5e-4, cp);
        rocker = bu_body(m, "rocker", 1.0, 2e-4, 3.5e-3, 3.5e-3, pr);
        mk[0] = bu_marker(m, "crank_a", crank, 0, 0, 0, NULL);
        mk[1] = bu_marker(m, "g_a", VD_GROUND, 0, 0, 0, NULL);
        mk[2] = bu_marker(m, "crank_b", crank, 0.1, 0, 0, NULL);
        mk[3] = bu_marker(m, "coupler_b", coupler, 0, 0, 0, NULL);
        mk[4] = bu_marker(m, "coupler_c", coupler, hypot(C[0] - B[0], C[1] - B[1]), 0, 0, NULL);
        mk[5] = bu_marker(m, "rocker_c", rocker, 0.2, 0, 0, NULL);
        mk[6] = bu_marker(m, "rocker_d", rocker, 0, 0, 0, NULL);
        mk[7] = bu_marker(m, "g_d", VD_GROUND, 0.3, 0, 0, NULL);
        for (int k = 0; k < 4; k++) {
            struct vd_joint j;

            memset(&j, 0, sizeof(j));
            snprintf(j.name, sizeof(j.name), "%s", names[k]);
            j.type = VD_JOINT_REVOLUTE;
            if (fix && k == 1)
                j.type = VD_JOINT_UNIVERSAL;
            if (fix && k == 2)
                j.type = VD_JOINT_SPHERICAL;
            j.mk[0] = mk[2 * k];
            j.mk[1] = mk[2 * k + 1];
            j.input = -1;
            CHECK(vd_model_add_joint(m, &j) == k, "add %s (markers %d %d)", names[k], j.mk[0],
                  j.mk[1]);
        }
        m->opt.method = VD_METHOD_LIE;
        rc = vd_model_finalize(m, err, sizeof(err));
        if (!fix) {
            CHECK(rc == -EINVAL, "four revolutes: finalize accepted a redundant four-bar");
            CHECK(strstr(err, "redundant") && strstr(err, "pivot_d") && strstr(err, "pivot_a") &&
                      strstr(err, "pin_b") && strstr(err, "pin_c"),
                  "four revolutes: the message names the loop: %s", err);
            CHECK(m->err_joint == 3, "four revolutes: err_joint %d, expected 3 (pivot_d)",
                  m->err_joint);
            printf("four revolutes: %s\n", err);
        } else {
            CHECK(rc == 0, "revolute, universal, spherical, revolute: %s", err);
            CHECK(m->err_joint == -1, "accepted, yet err_joint %d", m->err_joint);
        }
        vd_model_free(m);
    }
}

int main(void)
{
    check_redundant();
    for (int type = 0; type < VD_JOINT_NTYPE; type++) {
        check_type(type, false);
        check_type(type, true);
    }
    check_assembled();
    return vt_report("test_joint");
}
