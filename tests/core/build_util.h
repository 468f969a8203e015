/* tests/core/build_util.h - small helpers to build models in code for the core tests. */
#ifndef VD_TESTS_BUILD_UTIL_H
#define VD_TESTS_BUILD_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model.h"
#include "core/vdmath.h"

static inline int bu_body(struct vd_model *m, const char *name, double mass, double ixx, double iyy,
                          double izz, const double pose[6])
{
    struct vd_body b;

    memset(&b, 0, sizeof(b));
    snprintf(b.name, sizeof(b.name), "%s", name);
    b.mass = mass;
    b.inertia[0] = ixx;
    b.inertia[4] = iyy;
    b.inertia[8] = izz;
    if (pose)
        memcpy(b.pose0, pose, sizeof(b.pose0));
    return vd_model_add_body(m, &b);
}

/* marker at pos (body frame) with Cardan z-y'-x'' orientation ang (may be NULL) */
static inline int bu_marker(struct vd_model *m, const char *name, int body, double x, double y,
                            double z, const double *ang)
{
    struct vd_marker mk;

    memset(&mk, 0, sizeof(mk));
    snprintf(mk.name, sizeof(mk.name), "%s", name);
    mk.body = body;
    mk.pos[0] = x;
    mk.pos[1] = y;
    mk.pos[2] = z;
    if (ang)
        vdu_cardan_zyx(mk.rot, ang[0], ang[1], ang[2]);
    else
        vdu_mat3_eye(mk.rot);
    return vd_model_add_marker(m, &mk);
}

static inline struct vd_curve bu_linear(struct vd_model *m, double k)
{
    struct vd_curve_spec s = {.kind = VD_CURVE_LINEAR, .k = k};
    struct vd_curve c;
    char err[128];

    if (vd_model_add_curve(m, &s, false, &c, err, sizeof(err)))
        abort();
    return c;
}

/* progressive table y = k x (1 + (x/x0)^2) sampled on [-3 x0, 3 x0] (or [0, 3 x0]) */
static inline struct vd_curve bu_progressive(struct vd_model *m, double k, double x0,
                                             bool one_sided, int interp)
{
    double x[13], y[13];
    int n = 0;
    struct vd_curve_spec s;
    struct vd_curve c;
    char err[128];

    for (int i = one_sided ? 6 : 0; i <= 12; i++, n++) {
        x[n] = (i - 6) * 0.5 * x0;
        y[n] = k * x[n] * (1.0 + (x[n] / x0) * (x[n] / x0));
    }
    memset(&s, 0, sizeof(s));
    s.kind = VD_CURVE_TABLE;
    s.interp = interp;
    s.n = n;
    s.x = x;
    s.y = y;
    if (vd_model_add_curve(m, &s, true, &c, err, sizeof(err))) {
        fprintf(stderr, "curve: %s\n", err);
        abort();
    }
    return c;
}

#endif /* VD_TESTS_BUILD_UTIL_H */
