/* tests/core/test_road.c - the road surface (core/road.h): profile tracks blended across y
 * (exact values on the tracks, the mean midway, the nearer track outside, the old switch at
 * width 0), the gradient against central differences, obstacles and grade. */
#include "core/model.h"
#include "core/road.h"

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

int main(void)
{
    test_tracks();
    test_errors();
    return vt_report("test_road");
}
