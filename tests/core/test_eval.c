/* tests/core/test_eval.c - analytic Jacobians (Jr, Jv, Ju) of every element type against
 * central finite differences at random states with large rotations; kinematic matrices
 * K = diag(I, E^-1) and T = A E against differentiated rotation matrices. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "build_util.h"
#include "core/data.h"
#include "core/eval.h"
#include "core/model.h"
#include "core/step.h"
#include "core/vdmath.h"

/* Tolerance of the FD comparison (every entry against FD_RTOL max|J| + FD_ATOL). Central
 * differences with step s have a truncation error s^2/6 |h'''| (the method's order) and a
 * rounding error u |h| / s (u = 1.1e-16, h evaluated to a few u of its largest term).
 * Here |h| <= 1e5 N and the third derivatives are those of the characteristic curves,
 * |h'''| <= k / x0^2 <= 1e11 (k <= 1e7 N/m, curve lengths x0 >= 1 cm), so with s = 1e-6:
 * truncation <= 1.7e-2 and rounding <= 1.1e-5 absolute, at most 2e-7 of max|J| (>= 1e5 N/m
 * wherever such curves act). FD_RTOL = 1e-6 holds that with a factor 5; a missing chain-rule
 * term (geometric stiffness f x, a lever rotation, a velocity transport term) is >= 1e-4 of
 * max|J| in these models, so the check still separates the two by 100. FD_ATOL covers the
 * rounding where max|J| is 0 or small (Jv without damping: differences of the gyroscopic
 * and transport terms, |h_v| <= 1e2, 1.1e-16 1e2 / 1e-6 = 1.1e-8 < 1e-7); Ju is formed
 * with steps of 1 N, exact for inputs that enter linearly (rounding u |h| = 1e-11 < 1e-9). */
#define FD_STEP   1e-6
#define FD_RTOL   1e-6
#define FD_ATOL   1e-7
#define FD_ATOL_U 1e-9

struct fd_stats {
    double err, scale;
};

static void h_at(const struct vd_model *m, struct vd_data *d, const double *r, const double *v,
                 const double *u, double *h)
{
    int rc = vd_eval(m, d, r, v, u, h, false);

    CHECK(rc == 0, "vd_eval failed: %d", rc);
}

/* compare the analytic Jr, Jv, Ju at (r, v, u) with central differences */
static void fd_check(const struct vd_model *m, struct vd_data *d, const double *r0,
                     const double *v0, const double *u0, const char *what)
{
    const int n = m->nq, nu = m->ninput;
    double *Jr = calloc((size_t)(n * n), sizeof(double));
    double *Jv = calloc((size_t)(n * n), sizeof(double));
    double *Ju = calloc((size_t)(n * (nu ? nu : 1)), sizeof(double));
    double *r = malloc((size_t)n * sizeof(double)), *v = malloc((size_t)n * sizeof(double));
    double *u = malloc((size_t)(nu ? nu : 1) * sizeof(double));
    double *hp = malloc((size_t)n * sizeof(double)), *hm = malloc((size_t)n * sizeof(double));
    double *h = malloc((size_t)n * sizeof(double));
    double er = 0, sr = 0, ev = 0, sv = 0, eu = 0, su = 0;

    CHECK(vd_eval(m, d, r0, v0, u0, h, true) == 0, "%s: jac eval", what);
    vd_jac_dense(m, d, Jr, Jv, Ju);
    memcpy(r, r0, (size_t)n * sizeof(double));
    memcpy(v, v0, (size_t)n * sizeof(double));
    if (nu)
        memcpy(u, u0, (size_t)nu * sizeof(double));
    for (int k = 0; k < n; k++) {
        r[k] = r0[k] + FD_STEP;
        h_at(m, d, r, v, u, hp);
        r[k] = r0[k] - FD_STEP;
        h_at(m, d, r, v, u, hm);
        r[k] = r0[k];
        for (int i = 0; i < n; i++) {
            double fd = (hp[i] - hm[i]) / (2 * FD_STEP), an = Jr[i + n * k];
            if (getenv("VT_DEBUG") && fabs(fd - an) > 1e-3 * fabs(an) + 1)
                fprintf(stderr, "  Jr[%d][%d]: fd %g an %g\n", i, k, fd, an);
            er = fmax(er, fabs(fd - an));
            sr = fmax(sr, fabs(an));
        }
        v[k] = v0[k] + FD_STEP;
        h_at(m, d, r, v, u, hp);
        v[k] = v0[k] - FD_STEP;
        h_at(m, d, r, v, u, hm);
        v[k] = v0[k];
        for (int i = 0; i < n; i++) {
            double fd = (hp[i] - hm[i]) / (2 * FD_STEP), an = Jv[i + n * k];
            ev = fmax(ev, fabs(fd - an));
            sv = fmax(sv, fabs(an));
        }
    }
    for (int k = 0; k < nu; k++) {
        u[k] = u0[k] + 1.0;
        h_at(m, d, r, v, u, hp);
        u[k] = u0[k] - 1.0;
        h_at(m, d, r, v, u, hm);
        u[k] = u0[k];
        for (int i = 0; i < n; i++) {
            double fd = (hp[i] - hm[i]) / 2.0, an = Ju[i + n * k];
            eu = fmax(eu, fabs(fd - an));
            su = fmax(su, fabs(an));
        }
    }
    CHECK(sr > 0, "%s: Jr is zero", what);
    CHECK_TOL(er, FD_RTOL * sr + FD_ATOL, "%s: Jr max err %.3g, max |Jr| %.3g", what, er, sr);
    CHECK_TOL(ev, FD_RTOL * sv + FD_ATOL, "%s: Jv max err %.3g, max |Jv| %.3g", what, ev, sv);
    if (nu) {
        CHECK(su > 0, "%s: Ju is zero", what);
        CHECK_TOL(eu, FD_RTOL * su + FD_ATOL_U, "%s: Ju max err %.3g, max |Ju| %.3g", what, eu, su);
    }
    printf("  %-34s |Jr| %9.3g err %9.3g   |Jv| %9.3g err %9.3g\n", what, sr, er, sv, ev);
    free(Jr);
    free(Jv);
    free(Ju);
    free(r);
    free(v);
    free(u);
    free(hp);
    free(hm);
    free(h);
}

static void random_rot(double ang[3], double big)
{
    ang[0] = vt_uniform(-big * M_PI, big * M_PI);
    ang[1] = vt_uniform(-1.2, 1.2);
    ang[2] = vt_uniform(-big * M_PI, big * M_PI);
}

static void random_vel(double *v)
{
    for (int i = 0; i < 3; i++) {
        v[i] = vt_uniform(-1.0, 1.0);
        v[3 + i] = vt_uniform(-3.0, 3.0);
    }
}

/* body b2's state so that its marker k2 sits within +-dx of point p and its axes are
 * rotated from R by a moderate random rotation */
static void place_near(const struct vd_model *m, double *r2, int k2, const double p[3],
                       const double A1[9], double dx)
{
    double rel[3], Rr[9], A2[9], ang[3], a2[3];

    rel[0] = vt_uniform(-0.8, 0.8);
    rel[1] = vt_uniform(-0.8, 0.8);
    rel[2] = vt_uniform(-0.8, 0.8);
    vdu_cardan_zyx(Rr, rel[0], rel[1], rel[2]);
    vdu_mat3_mul(A2, A1, Rr);
    vdu_cardan_from_mat(ang, A2);
    memcpy(r2 + 3, ang, sizeof(ang));
    vdu_cardan_zyx(A2, ang[0], ang[1], ang[2]);
    vdu_mat3_vec(a2, A2, m->marker[k2].s);
    for (int i = 0; i < 3; i++)
        r2[i] = p[i] + vt_uniform(-dx, dx) - a2[i];
}

static void fill_bushing(struct vd_model *m, struct vd_bushing *b, int i, int j, bool tables)
{
    memset(b, 0, sizeof(*b));
    snprintf(b->name, sizeof(b->name), "bush");
    b->mk[0] = i;
    b->mk[1] = j;
    for (int k = 0; k < 3; k++) {
        b->stiff[k] = tables ? bu_progressive(m, 1e5 * (k + 1), 0.01, false, VD_INTERP_PCHIP)
                             : bu_linear(m, 2e5);
        b->stiff[3 + k] = tables ? bu_progressive(m, 2e3 * (k + 1), 0.2, false, VD_INTERP_PCHIP)
                                 : bu_linear(m, 1e3);
        b->damp[k] = k == 0 ? bu_progressive(m, 500.0, 0.5, false, VD_INTERP_PCHIP)
                            : bu_linear(m, 300.0 * (k + 1));
        b->damp[3 + k] = bu_linear(m, 5.0 * (k + 1));
    }
}

/* two free bodies joined by a bushing; ground_side: -1 none, 0 marker i on ground,
 * 1 marker j on ground */
static void test_bushing(int ground_side, int trials)
{
    static const double ang1[3] = {0.3, -0.2, 0.5}, ang2[3] = {-0.4, 0.25, 1.1};
    struct vd_model *m = vd_model_new("bushing");
    struct vd_bushing bu;
    struct vd_body *b0;
    int b1, b2 = -1, k1, k2;
    char err[256], what[64];
    struct vd_data *d;

    b1 = bu_body(m, "b1", 12.0, 0.4, 0.3, 0.5, NULL);
    b0 = &m->body[b1];
    b0->inertia[1] = b0->inertia[3] = 0.05; /* products of inertia */
    b0->inertia[5] = b0->inertia[7] = -0.03;
    b0->com[0] = 0.02;
    b0->com[1] = -0.01;
    b0->com[2] = 0.03;
    if (ground_side < 0)
        b2 = bu_body(m, "b2", 3.0, 0.02, 0.03, 0.04, NULL);
    k1 = bu_marker(m, "m1", ground_side == 0 ? VD_GROUND : b1, 0.1, 0.2, -0.1, ang1);
    k2 = bu_marker(m, "m2", ground_side == 1 ? VD_GROUND : (b2 >= 0 ? b2 : b1), -0.1, 0.05, 0.2,
                   ang2);
    fill_bushing(m, &bu, k1, k2, true);
    CHECK(vd_model_add_bushing(m, &bu) >= 0, "add bushing");
    CHECK(vd_model_finalize(m, err, sizeof(err)) == 0, "finalize: %s", err);
    d = vd_data_new(m);
    for (int t = 0; t < trials; t++) {
        double r[12], v[12], A1[9];

        random_rot(r + 3, 1.0);
        for (int i = 0; i < 3; i++)
            r[i] = vt_uniform(-1, 1);
        random_vel(v);
        if (ground_side < 0) {
            random_vel(v + 6);
            vd_kinematics(m, d, r, v);
            vdu_cardan_zyx(A1, r[3], r[4], r[5]);
            place_near(m, r + 6, k2, d->mp + 3 * k1, A1, 0.02);
        } else {
            /* one body: place it so that its marker is near the ground marker */
            int kb = ground_side == 0 ? k2 : k1, kg = ground_side == 0 ? k1 : k2;
            double Ig[9];

            vdu_mat3_eye(Ig);
            vd_kinematics(m, d, r, v);
            place_near(m, r, kb, m->marker[kg].pos, Ig, 0.02);
        }
        snprintf(what, sizeof(what), "bushing%s trial %d",
                 ground_side < 0 ? "" : (ground_side ? " (j on ground)" : " (i on ground)"), t);
        fd_check(m, d, r, v, NULL, what);
    }
    vd_data_free(d);
    vd_model_free(m);
}

static void test_p2p(int trials)
{
    struct vd_model *m = vd_model_new("p2p");
    struct vd_p2p pp[3];
    int b1, b2, k[4];
    char err[256], what[64];
    struct vd_data *d;

    b1 = bu_body(m, "b1", 20.0, 0.5, 0.6, 0.7, NULL);
    b2 = bu_body(m, "b2", 5.0, 0.05, 0.06, 0.07, NULL);
    m->body[b2].com[2] = 0.05;
    k[0] = bu_marker(m, "a1", b1, 0.1, 0.3, 0.2, NULL);
    k[1] = bu_marker(m, "a2", b2, -0.05, 0.0, 0.1, NULL);
    k[2] = bu_marker(m, "g", VD_GROUND, 0.0, 0.0, 1.0, NULL);
    k[3] = bu_marker(m, "a3", b2, 0.1, -0.1, -0.05, NULL);
    memset(pp, 0, sizeof(pp));
    /* spring + damper + bump stop (engaged: L ~ 0.3 < 0.4) */
    snprintf(pp[0].name, VD_NAME_MAX, "spring");
    pp[0].mk[0] = k[0];
    pp[0].mk[1] = k[1];
    pp[0].has_spring = pp[0].has_damper = pp[0].has_bump = true;
    pp[0].free_length = 0.45;
    pp[0].preload = 800.0;
    pp[0].spring = bu_progressive(m, 3e4, 0.1, false, VD_INTERP_PCHIP);
    pp[0].damper = bu_progressive(m, 2e3, 0.3, false, VD_INTERP_LINEAR);
    pp[0].bump_length = 0.6;
    pp[0].bump = bu_progressive(m, 1e5, 0.05, true, VD_INTERP_PCHIP);
    /* rebound stop engaged (L ~ 0.3 > 0.1), ground to body */
    snprintf(pp[1].name, VD_NAME_MAX, "rebound");
    pp[1].mk[0] = k[2];
    pp[1].mk[1] = k[3];
    pp[1].has_rebound = pp[1].has_damper = true;
    pp[1].rebound_length = 0.1;
    pp[1].rebound = bu_progressive(m, 5e4, 0.2, true, VD_INTERP_PCHIP);
    pp[1].damper = bu_linear(m, 700.0);
    CHECK(vd_model_add_p2p(m, &pp[0]) >= 0, "add p2p");
    CHECK(vd_model_add_p2p(m, &pp[1]) >= 0, "add p2p");
    CHECK(vd_model_finalize(m, err, sizeof(err)) == 0, "finalize: %s", err);
    d = vd_data_new(m);
    for (int t = 0; t < trials; t++) {
        double r[12], v[12], dir[3], p1[3], nrm, len = 0.3 + vt_uniform(0.005, 0.02);

        random_rot(r + 3, 1.0);
        random_rot(r + 9, 1.0);
        for (int i = 0; i < 3; i++)
            r[i] = vt_uniform(-0.2, 0.2);
        random_vel(v);
        random_vel(v + 6);
        /* put a2 at len from a1 in a random direction (off the curves' knots, where the
         * second derivative of a PCHIP jumps and central differences lose an order) */
        vd_kinematics(m, d, r, v);
        memcpy(p1, d->mp + 3 * k[0], sizeof(p1));
        for (int i = 0; i < 3; i++)
            dir[i] = vt_uniform(-1, 1);
        nrm = sqrt(vdu_dot3(dir, dir));
        for (int i = 0; i < 3; i++)
            r[6 + i] = p1[i] + len * dir[i] / nrm;
        vd_kinematics(m, d, r, v);
        for (int i = 0; i < 3; i++)
            r[6 + i] -= d->ma[3 * k[1] + i];
        CHECK(vd_eval(m, d, r, v, NULL, d->h, false) == 0, "eval");
        /* the length from marker positions ~1 m from the origin: a few ulp of 1 m */
        CHECK_TOL(fabs(d->p2p_out[1] - len), 1e-12, "spring length %g", d->p2p_out[1]);
        CHECK(d->p2p_out[1] < pp[0].bump_length, "bump engaged: L = %g", d->p2p_out[1]);
        CHECK(d->p2p_out[3 + 1] > pp[1].rebound_length, "rebound engaged: L = %g",
              d->p2p_out[3 + 1]);
        snprintf(what, sizeof(what), "p2p spring/damper/stops trial %d", t);
        fd_check(m, d, r, v, NULL, what);
    }
    vd_data_free(d);
    vd_model_free(m);
}

static void test_body_terms_and_inputs(int trials)
{
    static const double ang[3] = {0.7, -0.3, 0.2};
    struct vd_model *m = vd_model_new("inputs");
    int b, k;
    char err[256], what[64];
    struct vd_data *d;

    b = bu_body(m, "b", 30.0, 1.0, 2.0, 2.5, NULL);
    m->body[b].inertia[2] = m->body[b].inertia[6] = 0.2;
    m->body[b].com[0] = 0.1;
    k = bu_marker(m, "k", b, 0.3, -0.2, 0.4, ang);
    for (int kind = 0; kind < 2; kind++)
        for (int frame = 0; frame < 2; frame++) {
            struct vd_input in;

            memset(&in, 0, sizeof(in));
            snprintf(in.name, sizeof(in.name), "u%d%d", kind, frame);
            in.marker = k;
            in.kind = kind;
            in.frame = frame;
            in.dir[0] = 0.3;
            in.dir[1] = -0.5 + kind;
            in.dir[2] = 0.8;
            CHECK(vd_model_add_input(m, &in) >= 0, "add input");
        }
    CHECK(vd_model_finalize(m, err, sizeof(err)) == 0, "finalize: %s", err);
    d = vd_data_new(m);
    for (int t = 0; t < trials; t++) {
        double r[6], v[6], u[4];

        random_rot(r + 3, 1.0);
        for (int i = 0; i < 3; i++)
            r[i] = vt_uniform(-1, 1);
        random_vel(v);
        for (int j = 0; j < 4; j++)
            u[j] = vt_uniform(-300, 300);
        snprintf(what, sizeof(what), "gravity/gyro/inputs trial %d", t);
        fd_check(m, d, r, v, u, what);
    }
    vd_data_free(d);
    vd_model_free(m);
}

/* d/dt A(r + t K v) at t = 0 equals skew(w) A with w = A omega; dA/dangle_k = skew(T e_k) A */
static void test_kinematic_matrices(int trials)
{
    for (int t = 0; t < trials; t++) {
        double ang[3], om[3], E[9], Ei[9], EEi[9], A[9], Ap[9], Am[9], T[9], wg[9], rd[3];
        double err = 0.0, errT = 0.0, errE = 0.0;
        const double eps = 1e-6;

        random_rot(ang, 1.0);
        for (int i = 0; i < 3; i++)
            om[i] = vt_uniform(-3, 3);
        vd_cardan_E(E, ang[1], ang[2]);
        vd_cardan_Einv(Ei, ang[1], ang[2]);
        vdu_mat3_mul(EEi, E, Ei);
        for (int i = 0; i < 9; i++)
            errE = fmax(errE, fabs(EEi[i] - (i % 4 == 0 ? 1.0 : 0.0)));
        vdu_cardan_zyx(A, ang[0], ang[1], ang[2]);
        vdu_mat3_vec(rd, Ei, om);
        vdu_cardan_zyx(Ap, ang[0] + eps * rd[0], ang[1] + eps * rd[1], ang[2] + eps * rd[2]);
        vdu_cardan_zyx(Am, ang[0] - eps * rd[0], ang[1] - eps * rd[1], ang[2] - eps * rd[2]);
        {
            double dA[9], W[9], w[3], SA[9];

            for (int i = 0; i < 9; i++)
                dA[i] = (Ap[i] - Am[i]) / (2 * eps);
            vdu_mat3_vec(w, A, om);
            vdu_skew(W, w);
            vdu_mat3_mul(SA, W, A);
            for (int i = 0; i < 9; i++)
                err = fmax(err, fabs(dA[i] - SA[i]));
        }
        vdu_mat3_mul(T, A, E);
        for (int k = 0; k < 3; k++) {
            double a2[3], dA[9], W[9], tk[3] = {T[k], T[3 + k], T[6 + k]}, SA[9];

            memcpy(a2, ang, sizeof(a2));
            a2[k] += eps;
            vdu_cardan_zyx(Ap, a2[0], a2[1], a2[2]);
            a2[k] -= 2 * eps;
            vdu_cardan_zyx(Am, a2[0], a2[1], a2[2]);
            for (int i = 0; i < 9; i++)
                dA[i] = (Ap[i] - Am[i]) / (2 * eps);
            vdu_skew(W, tk);
            vdu_mat3_mul(SA, W, A);
            for (int i = 0; i < 9; i++)
                errT = fmax(errT, fabs(dA[i] - SA[i]));
        }
        (void)wg;
        /* E Ei: a product of entries <= 1/cos(pitch) <= 1.9 (|pitch| <= 1): 3-term inner
         * products, gamma_3 |E| |Ei| <= 3.3e-16 * 3 * 1.9 < 1e-14. The central differences of
         * rotation matrices (entries <= 1, third derivatives <= (|w| + |Ei| |w|)^3 <= 1e3
         * with |w| <= 3 rad/s): truncation eps^2 / 6 1e3 = 1.7e-10, rounding u / eps = 1.1e-10:
         * 1e-9 bounds both */
        CHECK_TOL(errE, 1e-14, "kinematics trial %d: E Ei - I %.3g", t, errE);
        CHECK_TOL(err, 1e-9, "kinematics trial %d: K err %.3g", t, err);
        CHECK_TOL(errT, 1e-9, "kinematics trial %d: T err %.3g", t, errT);
    }
}

/* rotation vector and J_l^-1: exp(th) == R and J_l^-1 against differences of log */
static void test_rotvec(int trials)
{
    for (int t = 0; t < trials; t++) {
        double ang[3], R[9], th[3], Ji[9], nrm, Rb[9], err = 0.0, errJ = 0.0;
        const double eps = 1e-6;

        ang[0] = vt_uniform(-1.5, 1.5);
        ang[1] = vt_uniform(-1.0, 1.0);
        ang[2] = vt_uniform(-1.5, 1.5);
        if (t == 0)
            ang[0] = ang[1] = ang[2] = 1e-9; /* the small-angle branch */
        vdu_cardan_zyx(R, ang[0], ang[1], ang[2]);
        vd_rotvec(th, Ji, R);
        /* Rodrigues: exp(th) */
        nrm = sqrt(vdu_dot3(th, th));
        {
            double S[9], S2[9], a = nrm > 1e-12 ? sin(nrm) / nrm : 1.0;
            double b = nrm > 1e-6 ? (1.0 - cos(nrm)) / (nrm * nrm) : 0.5;

            vdu_skew(S, th);
            vdu_mat3_mul(S2, S, S);
            for (int i = 0; i < 9; i++)
                Rb[i] = (i % 4 == 0 ? 1.0 : 0.0) + a * S[i] + b * S2[i];
            for (int i = 0; i < 9; i++)
                err = fmax(err, fabs(Rb[i] - R[i]));
        }
        /* left perturbation: log(exp(skew(eps e_k)) R) - log(...(-eps)) = 2 eps Ji e_k */
        for (int k = 0; k < 3; k++) {
            double e[3] = {0, 0, 0}, Q[9], QR[9], tp[3], tm[3], J2[9];

            e[k] = eps;
            {
                double S[9];
                vdu_skew(S, e);
                for (int i = 0; i < 9; i++)
                    Q[i] = (i % 4 == 0 ? 1.0 : 0.0) + S[i] + 0.5 * 0.0;
                /* second-order exact enough: error eps^2 */
                double S2[9];
                vdu_mat3_mul(S2, S, S);
                for (int i = 0; i < 9; i++)
                    Q[i] += 0.5 * S2[i];
            }
            vdu_mat3_mul(QR, Q, R);
            vd_rotvec(tp, J2, QR);
            e[k] = -eps;
            {
                double S[9], S2[9];
                vdu_skew(S, e);
                vdu_mat3_mul(S2, S, S);
                for (int i = 0; i < 9; i++)
                    Q[i] = (i % 4 == 0 ? 1.0 : 0.0) + S[i] + 0.5 * S2[i];
            }
            vdu_mat3_mul(QR, Q, R);
            vd_rotvec(tm, J2, QR);
            for (int i = 0; i < 3; i++)
                errJ = fmax(errJ, fabs((tp[i] - tm[i]) / (2 * eps) - Ji[3 * i + k]));
        }
        /* exp(log R): the rotation angle from atan2 and sqrt of entries <= 1, a few ulp, times
         * the O(1) terms of Rodrigues' formula: 1e-14. J^-1 by central differences of log over
         * +-1e-6 with a second-order exponential (its eps^2 error cancels in the difference):
         * truncation eps^2/6 |log'''| (|log'''| <= ~10 away from angle pi, |angle| <= 2.3 here)
         * 1.7e-11, rounding of log ~ 1e-15 / 1e-6 = 1e-9: 1e-8 */
        CHECK_TOL(err, 1e-14, "rotvec trial %d: exp(log R) err %.3g", t, err);
        CHECK_TOL(errJ, 1e-8, "rotvec trial %d: Jinv err %.3g", t, errJ);
    }
}

/* Cardan-mode bushings spinning past pi (unwrapped), actuated components (a force pair,
 * a servo, a sticking and a sliding friction) and a rack-and-pinion coupler between two
 * bushing components: Jr, Jv and the dense Ju against central differences */
static void test_actuated(int trials)
{
    struct vd_model *m = vd_model_new("actuated");
    struct vd_bushing b;
    struct vd_coupler c;
    struct vd_input in;
    int knuckle, wheel, rack, pinion, kk, kw, kwk, kr, krg, kp, kpg, in_drive, in_brake, in_servo;
    int e_bear, e_drive, e_rack, e_pin;
    char err[256], what[80];
    struct vd_data *d;
    static const double pk[6] = {0, 0.7, 0.3, 0, 0, 0}, pw[6] = {0, 0.8, 0.3, 1.5708, 0, 0};
    static const double pr[6] = {0.2, 0, 0.2, 0, 0, 0}, pp[6] = {0.25, 0, 0.25, 0, -1.0, 0};
    static const double zaxis_up[3] = {0, -1.0, 0};

    knuckle = bu_body(m, "knuckle", 8.0, 0.1, 0.12, 0.1, pk);
    wheel = bu_body(m, "wheel", 20.0, 0.9, 0.6, 0.6, pw); /* spin about its x axis */
    rack = bu_body(m, "rack", 3.0, 0.2, 0.01, 0.2, pr);
    pinion = bu_body(m, "pinion", 0.5, 0.001, 0.002, 0.002, pp);
    kk = bu_marker(m, "kg", VD_GROUND, 0, 0.7, 0.3, NULL);
    kw = bu_marker(m, "kn", knuckle, 0, 0, 0, NULL);
    kwk = bu_marker(m, "wk", knuckle, 0, 0.1, 0, zaxis_up + 0);
    /* marker on the knuckle with x along the axle (+y global): az = 90 deg */
    {
        double ang[3] = {1.5708, 0, 0};
        vdu_cardan_zyx(m->marker[kwk].rot, ang[0], ang[1], ang[2]);
    }
    kr = bu_marker(m, "rk", rack, 0, 0, 0, NULL);
    krg = bu_marker(m, "rg", VD_GROUND, 0.2, 0, 0.2, NULL);
    kp = bu_marker(m, "pn", pinion, 0, 0, 0, NULL);
    kpg = bu_marker(m, "pg", VD_GROUND, 0.25, 0, 0.25, (const double[3]){0, -1.0, 0});
    memset(&in, 0, sizeof(in));
    in.kind = VD_INPUT_ACTUATOR;
    in.marker = -1;
    snprintf(in.name, sizeof(in.name), "drive");
    in_drive = vd_model_add_input(m, &in);
    snprintf(in.name, sizeof(in.name), "brake");
    in_brake = vd_model_add_input(m, &in);
    snprintf(in.name, sizeof(in.name), "servo");
    in_servo = vd_model_add_input(m, &in);
    /* knuckle on ground */
    fill_bushing(m, &b, kw, kk, false);
    vd_model_add_bushing(m, &b);
    /* wheel bearing: cardan, rx = spin with a brake (friction) */
    {
        int kwh = bu_marker(m, "wh", wheel, 0, 0, 0, NULL);

        fill_bushing(m, &b, kwh, kwk, true);
        b.rot_mode = VD_ROT_CARDAN;
        b.stiff[3] = bu_linear(m, 2e4); /* sticking stiffness */
        b.damp[3] = bu_linear(m, 30.0);
        b.act[3] = VD_ACT_FRICTION;
        b.act_input[3] = in_brake;
        b.act_gain[3] = 1.0;
        e_bear = vd_model_add_bushing(m, &b);
        /* drive torque pair on the same axis */
        memset(&b, 0, sizeof(b));
        snprintf(b.name, sizeof(b.name), "drive");
        b.mk[0] = kwh;
        b.mk[1] = kwk;
        b.rot_mode = VD_ROT_CARDAN;
        b.act[3] = VD_ACT_FORCE;
        b.act_input[3] = in_drive;
        b.act_gain[3] = 1.0;
        e_drive = vd_model_add_bushing(m, &b);
    }
    /* rack: free in y with a servo on y (prescribed travel through a stiff spring) */
    fill_bushing(m, &b, kr, krg, false);
    b.stiff[1] = bu_linear(m, 5e4);
    b.act[1] = VD_ACT_SERVO;
    b.act_input[1] = in_servo;
    b.act_gain[1] = 0.01;
    e_rack = vd_model_add_bushing(m, &b);
    /* pinion: free spin about its axis (cardan rx) */
    fill_bushing(m, &b, kp, kpg, false);
    b.rot_mode = VD_ROT_CARDAN;
    b.stiff[3] = (struct vd_curve){0};
    b.damp[3] = bu_linear(m, 0.5);
    e_pin = vd_model_add_bushing(m, &b);
    memset(&c, 0, sizeof(c));
    snprintf(c.name, sizeof(c.name), "gear");
    c.bush[0] = e_rack;
    c.comp[0] = 1;
    c.bush[1] = e_pin;
    c.comp[1] = 3;
    c.ratio = 0.008;
    c.stiff = bu_linear(m, 2e6);
    c.damp = bu_linear(m, 2e4); /* large enough that its position terms (dq'/dr) show */
    CHECK(vd_model_add_coupler(m, &c) >= 0, "add coupler");
    CHECK(vd_model_finalize(m, err, sizeof(err)) == 0, "finalize: %s", err);
    (void)e_drive;
    d = vd_data_new(m);
    for (int t = 0; t < trials; t++) {
        double r[24], v[24], u[3];
        const bool slide = t % 2;

        memcpy(r, d->r, sizeof(r));
        for (int i = 0; i < 24; i++) {
            r[i] += vt_uniform(-0.01, 0.01);
            v[i] = vt_uniform(-1.0, 1.0);
        }
        /* wheel spun 3 turns and a bit: the bearing's rx is far past pi */
        r[6 * wheel + 5] += 6 * M_PI + vt_uniform(-1, 1);
        r[6 * pinion + 5] += vt_uniform(-3, 3);
        d->bush_phi[e_bear] = 6 * M_PI + vt_uniform(-0.5, 0.5);
        d->bush_phi[e_drive] = d->bush_phi[e_bear];
        d->bush_phi[e_pin] = r[6 * pinion + 5];
        u[in_drive] = vt_uniform(-500, 500);
        u[in_servo] = vt_uniform(-5, 5);
        /* sticking: anchor near the current angle and a large capacity; sliding: small */
        u[in_brake] = slide ? 5.0 : 3000.0;
        CHECK(vd_eval(m, d, r, v, u, d->h, false) == 0, "eval");
        d->bush_anchor[6 * e_bear + 3] = d->bush_out[12 * e_bear + 9] + (slide ? 0.05 : 0.002);
        snprintf(what, sizeof(what), "actuated/coupler (%s) trial %d",
                 slide ? "brake sliding" : "brake sticking", t);
        fd_check(m, d, r, v, u, what);
        /* the unwrapped bearing angle follows the wheel spin up to the knuckle's small
         * rotation (< 0.1 rad by construction of the state): not a rounding tolerance */
        CHECK(fabs(d->bush_out[12 * e_bear + 9] - r[6 * wheel + 5]) < 0.1,
              "bearing rx unwrapped: %g vs wheel spin %g", d->bush_out[12 * e_bear + 9],
              r[6 * wheel + 5]);
        /* sliding: the torque is the capacity, 5 N m, up to the rounding of the friction law
         * (a few ulp of 5) */
        CHECK(slide ? fabs(fabs(d->bush_out[12 * e_bear + 3]) - 5.0) < 1e-12
                    : fabs(d->bush_out[12 * e_bear + 3]) < 3000.0,
              "brake torque %g (%s)", d->bush_out[12 * e_bear + 3], slide ? "sliding" : "sticking");
    }
    vd_data_free(d);
    vd_model_free(m);
}

/* vd_kinematics keeps the kinematics of an unchanged state (core/kinematics.h): after any
 * sequence of evaluations at other states, of vd_kinematics_pos and vd_body_kinematics_ei
 * (which overwrite parts of them), vd_kinematics at (r, v) leaves exactly what a fresh data
 * object computes there; and a repeated call at the same state changes nothing */
static void test_kinematics_cache(int trials)
{
    struct vd_model *m = vd_model_new("kincache");
    struct vd_data *d, *f;
    char err[256];
    int b1, b2;

    b1 = bu_body(m, "b1", 20.0, 0.5, 0.6, 0.7, NULL);
    b2 = bu_body(m, "b2", 5.0, 0.05, 0.06, 0.07, NULL);
    bu_marker(m, "a1", b1, 0.1, 0.3, 0.2, NULL);
    bu_marker(m, "a2", b2, -0.05, 0.0, 0.1, NULL);
    bu_marker(m, "g", VD_GROUND, 0.0, 0.0, 1.0, NULL);
    CHECK(vd_model_finalize(m, err, sizeof(err)) == 0, "finalize: %s", err);
    d = vd_data_new(m);
    f = vd_data_new(m);
    for (int t = 0; t < trials; t++) {
        double r[12], v[12], r2[12], v2[12];
        int same = 1;

        for (int b = 0; b < 2; b++) {
            random_rot(r + 6 * b + 3, 1.0);
            random_rot(r2 + 6 * b + 3, 1.0);
            for (int i = 0; i < 3; i++) {
                r[6 * b + i] = vt_uniform(-1, 1);
                r2[6 * b + i] = vt_uniform(-1, 1);
            }
        }
        random_vel(v);
        random_vel(v + 6);
        random_vel(v2);
        random_vel(v2 + 6);
        vd_kinematics(m, d, r, v);
        switch (t % 4) {
        case 0: /* another state, then back */
            vd_kinematics(m, d, r2, v2);
            break;
        case 1: /* positions only at another state (the projection) */
            vd_kinematics_pos(m, d, r2, true);
            break;
        case 2: /* the angle-rate maps at another state (LSRT2's stage) */
            vd_body_kinematics_ei(m, d, r2);
            break;
        default: /* the same state again */
            vd_kinematics(m, d, r, v);
            break;
        }
        vd_kinematics(m, d, r, v);
        vd_kinematics(m, f, r, v);
        same &= !memcmp(d->A, f->A, 18 * sizeof(double));
        same &= !memcmp(d->Ei, f->Ei, 18 * sizeof(double));
        same &= !memcmp(d->T, f->T, 18 * sizeof(double));
        same &= !memcmp(d->wg, f->wg, 6 * sizeof(double));
        same &= !memcmp(d->mp, f->mp, 3 * (size_t)m->nmarker * sizeof(double));
        same &= !memcmp(d->mR, f->mR, 9 * (size_t)m->nmarker * sizeof(double));
        same &= !memcmp(d->mpd, f->mpd, 3 * (size_t)m->nmarker * sizeof(double));
        same &= !memcmp(d->ma, f->ma, 3 * (size_t)m->nmarker * sizeof(double));
        CHECK(same, "kinematics cache, trial %d (case %d): not those of the state", t, t % 4);
    }
    vd_data_free(d);
    vd_data_free(f);
    vd_model_free(m);
}

int main(void)
{
    test_kinematic_matrices(20);
    test_kinematics_cache(16);
    test_rotvec(20);
    test_bushing(-1, 6);
    test_bushing(0, 3);
    test_bushing(1, 3);
    test_p2p(6);
    test_body_terms_and_inputs(6);
    test_actuated(6);
    return vt_report("test_eval");
}
