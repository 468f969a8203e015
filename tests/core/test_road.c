/* tests/core/test_road.c - the road surface (core/road.h): profile tracks blended across y
 * (exact values on the tracks, the mean midway, the nearer track outside, the old switch at
 * width 0), the gradient against central differences, obstacles and grade. */
#include "core/model.h"
#include "core/road.h"
#include "core/tire_env.h"

#include <math.h>

#include "check.h"

static struct vd_model *profile_model(double track_y, double width)
{
    static const double x[4] = {0.0, 1.0, 2.0, 4.0};
    static const double zl[4] = {0.0, 0.02, -0.01, 0.03};
    static const double zr[4] = {0.01, -0.02, 0.0, 0.0};
    struct vd_model *m = vd_model_new("road");
    char err[128];

    CHECK(vd_model_set_profile(m, 4, x, zl, zr, track_y, width, err, sizeof(err)) == 0, "%s", err);
    m->road.grade[0] = 0.05;
    m->road.grade[1] = -0.02;
    return m;
}

/* central difference of the height along x (i = 0) or y (i = 1) */
static double fd(const struct vd_model *m, double x, double y, int i, double h)
{
    double g[2], zp, zm;

    zp = vd_road_height(m, x + (i ? 0.0 : h), y + (i ? h : 0.0), g);
    zm = vd_road_height(m, x - (i ? 0.0 : h), y - (i ? h : 0.0), g);
    return (zp - zm) / (2.0 * h);
}

static void test_tracks(void)
{
    const double ty = 0.3, w = 1.6;
    struct vd_model *m = profile_model(ty, w), *m0 = profile_model(ty, 0.0);
    double g[2], gl[2], gr[2];

    for (int k = 0; k <= 40; k++) {
        const double x = -0.5 + 0.125 * k, plane = 0.05 * x;
        const double zl = vd_road_height(m, x, ty + 0.5 * w, gl) - plane + 0.02 * (ty + 0.5 * w);
        const double zr = vd_road_height(m, x, ty - 0.5 * w, gr) - plane + 0.02 * (ty - 0.5 * w);
        /* the tracks themselves: the width-0 model's left and right, exactly (the blend weight
         * is exactly 0 or 1 there; one rounding of the plane's terms: 4 ulp of 0.1 m) */
        const double zl0 = vd_road_height(m0, x, ty + 0.5 * w, g) - plane + 0.02 * (ty + 0.5 * w);
        const double zr0 = vd_road_height(m0, x, ty - 0.5 * w, g) - plane + 0.02 * (ty - 0.5 * w);
        const double tol = 4.0 * 0x1p-52 * 0.1;
        double zm;

        CHECK_NEAR(zl, zl0, tol, "left track");
        CHECK_NEAR(zr, zr0, tol, "right track");
        /* midway: the mean; outside: the nearer track held */
        zm = vd_road_height(m, x, ty, g) - plane + 0.02 * ty;
        CHECK_NEAR(zm, 0.5 * (zl + zr), tol, "midway");
        CHECK_NEAR(vd_road_height(m, x, ty + 2.0, g) - plane + 0.02 * (ty + 2.0), zl, tol,
                   "outside left");
        CHECK_NEAR(vd_road_height(m, x, ty - 2.0, g) - plane + 0.02 * (ty - 2.0), zr, tol,
                   "outside right");
        /* width 0: the switch at track_y */
        CHECK_NEAR(vd_road_height(m0, x, ty, g) - plane + 0.02 * ty, zl0, tol, "switch at track_y");
    }
    /* gradient against central differences away from the kinks (profile points at x = 0, 1,
     * 2, 4 and the track lines): the height is piecewise bilinear, so the central difference
     * is exact up to rounding: |z| ~ 0.1 m, 2 ulp per evaluation over 2h = 2e-4 m gives
     * 4 * 2^-52 * 0.1 / 2e-4 = 4.4e-13; 1e-10 leaves room for the plane's terms */
    for (int k = 0; k < 200; k++) {
        const double x = vt_uniform(-0.5, 4.5), y = vt_uniform(-1.5, 2.0), h = 1e-4;

        if (fabs(x - rint(x)) < 2e-4 || fabs(x - 4.0) < 2e-4 || fabs(fabs(y - ty) - 0.5 * w) < 2e-4)
            continue;
        vd_road_height(m, x, y, g);
        CHECK_NEAR(g[0], fd(m, x, y, 0, h), 1e-10, "dz/dx");
        CHECK_NEAR(g[1], fd(m, x, y, 1, h), 1e-10, "dz/dy");
    }
    vd_model_free(m);
    vd_model_free(m0);
}

static void test_errors(void)
{
    static const double x[2] = {0.0, 1.0}, z[2] = {0.0, 0.0};
    struct vd_model *m = vd_model_new("bad");
    char err[128];

    CHECK(vd_model_set_profile(m, 2, x, z, z, 0.0, -1.0, err, sizeof(err)) < 0, "width < 0");
    CHECK(vd_model_set_profile(m, 2, x, z, z, 0.0, NAN, err, sizeof(err)) < 0, "width NaN");
    vd_model_free(m);
}

/* an enveloping tyre of the sedan's size: R0 0.3266 m, kz 2.5e5 N/m, FNOMIN 4000 N and the
 * MF-Swift example's factors */
static void env_init(struct vd_tire_env *e, double ds)
{
    char err[160];

    CHECK(vd_tire_env_init(e, 1.0, 1.0, 1.8, 0.8, ds, 0.3266, 2.5e5, 4000.0, 0.60147, 0.81974, err,
                           sizeof(err)) == 0,
          "env init: %s", err);
}

static struct vd_model *obstacle_model(int kind, double len, double hgt, double edge)
{
    struct vd_model *m = vd_model_new("obst");

    m->road.nobst = 1;
    m->road.obst[0].kind = kind;
    m->road.obst[0].x0 = 1.0;
    m->road.obst[0].length = len;
    m->road.obst[0].height = hgt;
    m->road.obst[0].edge = edge;
    m->road.obst[0].y_min = -INFINITY;
    m->road.obst[0].y_max = INFINITY;
    return m;
}

/* on planes the effective road is the plane: height and gradient (the cams touch at their
 * tangent points, found in closed form); rounding only: |z| <= 2 m, some 100 operations of
 * the grid, 1e-12 m is 4500 ulp of 2 m */
static void test_env_plane(void)
{
    struct vd_model *m = vd_model_new("plane");
    struct vd_tire_env e;
    double g[2], sl[2], rt[2], k;

    env_init(&e, 0.01);
    CHECK(e.ns <= VD_ENV_NMAX && e.ls > 0.03 && e.ls < 0.08, "tandem base %g, %d samples", e.ls,
          e.ns);
    for (int i = 0; i < 50; i++) {
        const double gx = vt_uniform(-0.3, 0.3), gy = vt_uniform(-0.2, 0.2);
        const double psi = vt_uniform(-3, 3);
        const double c[2] = {vt_uniform(-5, 5), vt_uniform(-2, 2)}, h[2] = {cos(psi), sin(psi)};
        double z;

        m->road.grade[0] = gx;
        m->road.grade[1] = gy;
        m->road.z0 = 0.1;
        z = vd_tire_env_road(m, &e, c, h, g, sl, rt, &k);
        CHECK_NEAR(z, 0.1 + gx * c[0] + gy * c[1], 1e-12, "plane height");
        CHECK_NEAR(g[0], gx, 1e-10, "plane dz/dx");
        CHECK_NEAR(g[1], gy, 1e-10, "plane dz/dy");
        CHECK_NEAR(sl[0], gx, 1e-10, "plane slope x");
        CHECK_NEAR(sl[1], gy, 1e-10, "plane slope y");
        CHECK_NEAR(rt[0], gx, 1e-10, "plane rate x");
        CHECK_NEAR(rt[1], gy, 1e-10, "plane rate y");
    }
    vd_model_free(m);
}

/* the effective road over a 10 mm x 50 mm cleat and a long smooth wave */
static void test_env_obstacles(void)
{
    struct vd_model *m = obstacle_model(VD_OBST_SQUARE, 0.05, 0.01, 0.0);
    const double h[2] = {1.0, 0.0};
    struct vd_tire_env e;
    double g[2], sl[2], rt[2], k, zmax = 0.0, first = 0.0, last = 0.0, prev = 0.0, jump = 0.0;
    int nskip = 0, nfd = 0;

    env_init(&e, 0.005);
    for (int i = 0; i <= 8000; i++) {
        const double c[2] = {0.6 + 0.0001 * i, 0.0};
        const double z = vd_tire_env_road(m, &e, c, h, g, sl, rt, &k);

        if (z > 1e-6 && first == 0.0)
            first = c[0];
        if (z > 1e-6)
            last = c[0];
        zmax = fmax(zmax, z);
        if (i > 0)
            jump = fmax(jump, fabs(z - prev));
        prev = z;
    }
    /* enveloped: lower than the cleat and spread over about the contact length plus the cleat
     * (a tyre meets a 50 mm cleat over 0.2-0.4 m: Schmeitz 2004, ch. 4 measurements) */
    CHECK(zmax <= 0.01 + 1e-12 && zmax > 0.002, "cleat: effective peak %.4g m of 0.01 m", zmax);
    CHECK(last - first > 0.15 && last - first < 0.6, "cleat: effective length %.3g m",
          last - first);
    /* continuous: the height changes by at most the steepest cam slope used times the step:
     * off' <= 1 where off <= 10 mm (xi <= 0.07 m), 0.1 mm steps */
    CHECK(jump <= 1e-4 * 1.01, "cleat: largest change over 0.1 mm %.3g m", jump);
    vd_model_free(m);

    /* gradient against central differences on a half-sine bump: where no maximizer switches
     * within +-h the height is smooth and the central difference's error is h^2 z3/6 +
     * eps |z| / h ~ 1e-9 (z3, the third derivative, <= 1e3 m^-2 from the cam's table over
     * h = 1e-6 m; the rounding 2e-17 m / 1e-6 m); a switch shows as left and right slopes
     * differing by more than 1e-6 and is skipped (counted) */
    m = obstacle_model(VD_OBST_HALFSINE, 0.5, 0.05, 0.0);
    for (int i = 0; i < 400; i++) {
        const double c[2] = {vt_uniform(0.6, 1.9), vt_uniform(-1, 1)}, hh = 1e-6;
        const double psi = vt_uniform(-0.3, 0.3), hd[2] = {cos(psi), sin(psi)};
        const double cp[2] = {c[0] + hh * hd[0], c[1] + hh * hd[1]};
        const double cm[2] = {c[0] - hh * hd[0], c[1] - hh * hd[1]};
        double zp, zm, z0, gl, gr, ga, g2[2], s2[2], k2;

        z0 = vd_tire_env_road(m, &e, c, hd, g, sl, rt, &k);
        ga = g[0] * hd[0] + g[1] * hd[1];
        zp = vd_tire_env_road(m, &e, cp, hd, g2, s2, rt, &k2);
        zm = vd_tire_env_road(m, &e, cm, hd, g2, s2, rt, &k2);
        gl = (z0 - zm) / hh;
        gr = (zp - z0) / hh;
        if (fabs(gl - gr) > 1e-6) {
            nskip++;
            continue;
        }
        nfd++;
        CHECK_NEAR(ga, (zp - zm) / (2.0 * hh), 2e-6, "half-sine: d w_e/ds");
    }
    CHECK(nfd > 300, "half-sine: %d points compared, %d skipped at switches", nfd, nskip);
    vd_model_free(m);

    /* a wave much longer than the contact (4 m long, 10 mm high): the effective road follows
     * it (curvature 2.5e-2 /m against the cams' ~3 /m at their bottom): within 0.2 mm */
    m = obstacle_model(VD_OBST_HALFSINE, 4.0, 0.01, 0.0);
    for (int i = 0; i <= 20; i++) {
        const double c[2] = {1.0 + 0.2 * i, 0.0};
        double gp[2];
        const double z = vd_tire_env_road(m, &e, c, h, g, sl, rt, &k);
        const double zr = vd_road_height(m, c[0], c[1], gp);

        CHECK_NEAR(z, zr, 2e-4, "long wave");
    }
    vd_model_free(m);
}

int main(void)
{
    test_tracks();
    test_errors();
    test_env_plane();
    test_env_obstacles();
    return vt_report("test_road");
}
