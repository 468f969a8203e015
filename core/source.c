/* core/source.c - input signals: the terms of each input and their RT-safe evaluation
 * (core/source.h). */
#include "source.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

struct vd_source *vd_source_new(int ninput)
{
    struct vd_source *s = calloc(1, sizeof(*s));

    if (!s)
        return NULL;
    s->cap_in = ninput + 1;
    s->first = calloc((size_t)s->cap_in, sizeof(int));
    s->count = calloc((size_t)s->cap_in, sizeof(int));
    if (!s->first || !s->count)
        goto out_free_s;
    s->ninput = ninput;
    return s;

out_free_s:
    free(s->first);
    free(s->count);
    free(s);
    return NULL;
}

void vd_source_free(struct vd_source *s)
{
    if (!s)
        return;
    free(s->first);
    free(s->count);
    free(s->term);
    free(s->tx);
    free(s->ty);
    free(s);
}

/* linear interpolation in a table, held constant outside */
static double table_eval(const double *x, const double *y, int n, double t)
{
    int lo = 0, hi = n - 1;

    if (t <= x[0])
        return y[0];
    if (t >= x[n - 1])
        return y[n - 1];
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;

        if (t < x[mid])
            hi = mid;
        else
            lo = mid;
    }
    return y[lo] + (y[hi] - y[lo]) * (t - x[lo]) / (x[hi] - x[lo]);
}

static double term_eval(const struct vd_source *s, const struct vd_src_term *g, double t)
{
    double tau, T, fmean;

    switch (g->kind) {
    case VD_SRC_CONST:
        return g->p.value;
    case VD_SRC_STEP:
        return t < g->p.step.time ? g->p.step.before : g->p.step.after;
    case VD_SRC_RAMP:
        if (t <= g->p.ramp.start)
            return g->p.ramp.from;
        if (t >= g->p.ramp.end)
            return g->p.ramp.to;
        return g->p.ramp.from + (g->p.ramp.to - g->p.ramp.from) * (t - g->p.ramp.start) /
                                    (g->p.ramp.end - g->p.ramp.start);
    case VD_SRC_SINE:
        if (t < g->p.sine.start)
            return g->p.sine.offset;
        tau = t - g->p.sine.start;
        return g->p.sine.offset +
               g->p.sine.amplitude * sin(2.0 * M_PI * g->p.sine.frequency * tau + g->p.sine.phase);
    case VD_SRC_SWEEP:
        /* linear chirp, phase 2 pi (f0 tau + (f1 - f0) tau^2 / (2 T)): the frequency runs
         * linearly from f0 at the start to f1 at the end */
        if (t < g->p.sweep.start || t > g->p.sweep.end)
            return g->p.sweep.offset;
        tau = t - g->p.sweep.start;
        T = g->p.sweep.end - g->p.sweep.start;
        fmean = g->p.sweep.f0 + (g->p.sweep.f1 - g->p.sweep.f0) * tau / (2.0 * T);
        return g->p.sweep.offset + g->p.sweep.amplitude * sin(2.0 * M_PI * fmean * tau);
    case VD_SRC_TABLE:
        return table_eval(s->tx + g->p.table.off, s->ty + g->p.table.off, g->p.table.n, t);
    default:
        return 0.0;
    }
}

void vd_source_eval(void *ctx, double t, double *u)
{
    const struct vd_source *s = ctx;

    for (int j = 0; j < s->ninput; j++) {
        double v = 0.0;

        for (int k = s->first[j]; k < s->first[j] + s->count[j]; k++)
            v += term_eval(s, &s->term[k], t);
        u[j] = v;
    }
}

int vd_source_push_term(struct vd_source *s, const struct vd_src_term *g)
{
    if (vd_grow((void **)&s->term, &s->cap_term, s->nterm, sizeof(*g)))
        return -ENOMEM;
    s->term[s->nterm++] = *g;
    return 0;
}

int vd_source_push_points(struct vd_source *s, const double *x, const double *y, int n, int *off)
{
    int cap = s->cap_pt, c2 = s->cap_pt;

    if (vd_grow((void **)&s->tx, &cap, s->npt + n - 1, sizeof(double)) ||
        vd_grow((void **)&s->ty, &c2, s->npt + n - 1, sizeof(double)))
        return -ENOMEM;
    s->cap_pt = cap;
    *off = s->npt;
    memcpy(s->tx + s->npt, x, (size_t)n * sizeof(double));
    memcpy(s->ty + s->npt, y, (size_t)n * sizeof(double));
    s->npt += n;
    return 0;
}

int vd_source_begin(struct vd_source *s, int j)
{
    if (j >= s->cap_in) {
        int cap = s->cap_in, c2 = s->cap_in;

        if (vd_grow((void **)&s->first, &cap, j, sizeof(int)) ||
            vd_grow((void **)&s->count, &c2, j, sizeof(int)))
            return -ENOMEM;
        for (int i = s->cap_in; i < cap; i++)
            s->first[i] = s->count[i] = 0;
        s->cap_in = cap;
    }
    for (int i = s->ninput; i <= j; i++)
        s->first[i] = s->count[i] = 0;
    if (j >= s->ninput)
        s->ninput = j + 1;
    s->first[j] = s->nterm;
    return 0;
}

void vd_source_end(struct vd_source *s, int j)
{
    s->count[j] = s->nterm - s->first[j];
}

int vd_source_count(const struct vd_source *s)
{
    return s->ninput;
}
