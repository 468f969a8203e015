/* core/road.c - the road under the tyres: a plane with grade, obstacles (square with
 * rounded edges, half-sine, ramp) and per-track height profiles; the builder's profile copy.
 * Types and declarations in core/model.h (struct vd_road).
 * vd_model_set_profile: init only (allocates). vd_road_height: RT-safe, no allocation. */
#include "model.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "grow.h"

int vd_model_set_profile(struct vd_model *m, int n, const double *x, const double *zl,
                         const double *zr, double track_y, char *err, size_t errlen)
{
    int need = m->ncpt + n, cap = m->cap_cpt, c2 = cap, c3 = cap;

    if (m->frozen || n < 2) {
        snprintf(err, errlen, "a road profile needs at least 2 points");
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
    if (vd_grow((void **)&m->cx, &cap, need - 1, sizeof(double)) ||
        vd_grow((void **)&m->cy, &c2, need - 1, sizeof(double)) ||
        vd_grow((void **)&m->cm, &c3, need - 1, sizeof(double))) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    m->cap_cpt = cap;
    m->road.prof_off = m->ncpt;
    m->road.nprof = n;
    m->road.track_y = track_y;
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
        const double *pz = (y >= r->track_y ? m->cy : m->cm) + r->prof_off;
        const int n = r->nprof;
        int lo = 0, hi = n - 1;

        /* linear interpolation, held constant outside */
        if (x <= px[0]) {
            z += pz[0];
        } else if (x >= px[n - 1]) {
            z += pz[n - 1];
        } else {
            while (hi - lo > 1) {
                int mid = (lo + hi) / 2;

                if (x < px[mid])
                    hi = mid;
                else
                    lo = mid;
            }
            {
                const double sl = (pz[hi] - pz[lo]) / (px[hi] - px[lo]);

                z += pz[lo] + sl * (x - px[lo]);
                grad[0] += sl;
            }
        }
    }
    return z;
}
