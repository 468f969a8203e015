/* core/road.c - the road under the tyres (see road.h): plane, obstacles, profile tracks, and
 * the builder's copy of a profile. vd_model_set_profile: init only (allocates);
 * vd_road_height: RT-safe, no allocation. */
#include "road.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

int vd_model_set_profile(struct vd_model *m, int n, const double *x, const double *zl,
                         const double *zr, double track_y, double track_width, char *err,
                         size_t errlen)
{
    if (m->frozen || n < 2) {
        snprintf(err, errlen, "a road profile needs at least 2 points");
        return -EINVAL;
    }
    if (!(track_width >= 0.0) || !isfinite(track_width) || !isfinite(track_y)) {
        snprintf(err, errlen, "track_width must be finite and >= 0");
        return -EINVAL;
    }
    for (int i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(zl[i]) || !isfinite(zr[i])) {
            snprintf(err, errlen, "profile point %d is not finite", i);
            return -EINVAL;
        }
        if (i > 0 && !(x[i] > x[i - 1])) {
            snprintf(err, errlen, "profile x not strictly increasing at point %d", i);
            return -EINVAL;
        }
    }
    if (vd_model_reserve_points(m, n)) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    m->road.prof_off = m->ncpt;
    m->road.nprof = n;
    m->road.track_y = track_y;
    m->road.track_width = track_width;
    memcpy(m->cx + m->ncpt, x, (size_t)n * sizeof(double));
    memcpy(m->cy + m->ncpt, zl, (size_t)n * sizeof(double));
    memcpy(m->cm + m->ncpt, zr, (size_t)n * sizeof(double));
    m->ncpt += n;
    return 0;
}

/* obstacle height and slope along x at distance s from its start (s in [0, L] or beyond) */
static double obstacle(const struct vd_obstacle *o, double s, double *dzds)
{
    const double L = o->length, h = o->height;

    *dzds = 0.0;
    switch (o->kind) {
    case VD_OBST_SQUARE: {
        const double e = o->edge > 0.0 ? fmin(o->edge, 0.5 * L) : 0.0;

        if (s <= 0.0 || s >= L)
            return 0.0;
        if (e > 0.0 && s < e) {
            *dzds = 0.5 * h * M_PI / e * sin(M_PI * s / e);
            return 0.5 * h * (1.0 - cos(M_PI * s / e));
        }
        if (e > 0.0 && s > L - e) {
            const double t = L - s;

            *dzds = -0.5 * h * M_PI / e * sin(M_PI * t / e);
            return 0.5 * h * (1.0 - cos(M_PI * t / e));
        }
        return h;
    }
    case VD_OBST_HALFSINE:
        if (s <= 0.0 || s >= L)
            return 0.0;
        *dzds = h * M_PI / L * cos(M_PI * s / L);
        return h * sin(M_PI * s / L);
    case VD_OBST_RAMP:
        if (s <= 0.0)
            return 0.0;
        if (s >= L)
            return h;
        *dzds = h / L;
        return h * s / L;
    default:
        return 0.0;
    }
}

/* one profile track at x: linear between its points, held constant outside; *dzdx its slope */
static double track(const double *px, const double *pz, int n, double x, double *dzdx)
{
    int lo = 0, hi = n - 1;

    *dzdx = 0.0;
    if (x <= px[0])
        return pz[0];
    if (x >= px[n - 1])
        return pz[n - 1];
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;

        if (x < px[mid])
            hi = mid;
        else
            lo = mid;
    }
    *dzdx = (pz[hi] - pz[lo]) / (px[hi] - px[lo]);
    return pz[lo] + *dzdx * (x - px[lo]);
}

double vd_road_height(const struct vd_model *m, double x, double y, double grad[2])
{
    const struct vd_road *r = &m->road;
    double z = r->z0 + r->grade[0] * x + r->grade[1] * y;

    grad[0] = r->grade[0];
    grad[1] = r->grade[1];
    for (int i = 0; i < r->nobst; i++) {
        const struct vd_obstacle *o = &r->obst[i];
        double dz;

        if (y < o->y_min || y > o->y_max)
            continue;
        z += obstacle(o, x - o->x0, &dz);
        grad[0] += dz;
    }
    if (r->nprof >= 2) {
        const double *px = m->cx + r->prof_off;
        const double w = r->track_width;
        double sl, sr, zl, zrt;

        if (!(w > 0.0)) {
            /* no width: the track on the side of track_y */
            z += track(px, (y >= r->track_y ? m->cy : m->cm) + r->prof_off, r->nprof, x, &sl);
            grad[0] += sl;
        } else {
            /* lateral blend between the tracks, the nearer one outside them */
            const double t = (y - (r->track_y - 0.5 * w)) / w;

            zl = track(px, m->cy + r->prof_off, r->nprof, x, &sl);
            zrt = track(px, m->cm + r->prof_off, r->nprof, x, &sr);
            if (t <= 0.0) {
                z += zrt;
                grad[0] += sr;
            } else if (t >= 1.0) {
                z += zl;
                grad[0] += sl;
            } else {
                z += zrt + t * (zl - zrt);
                grad[0] += sr + t * (sl - sr);
                grad[1] += (zl - zrt) / w;
            }
        }
    }
    return z;
}
