/* core/signal.c - signal names and values. */
#include "signal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tire.h"
#include "vdmath.h"

static const char *const body_comp[] = {"x",  "y",  "z",  "az", "ay", "ax",
                                        "vx", "vy", "vz", "wx", "wy", "wz"};
static const char *const bush_comp[] = {"fx", "fy", "fz", "mx", "my", "mz",
                                        "dx", "dy", "dz", "rx", "ry", "rz"};
static const char *const p2p_comp[] = {"force", "length", "rate"};
static const char *const marker_comp[] = {"px", "py",  "pz",  "vx",  "vy",  "vz",  "ax",
                                          "ay", "az",  "fx",  "fy",  "fz",  "wx",  "wy",
                                          "wz", "lvx", "lvy", "lvz", "lax", "lay", "laz"};
static const char *const input_comp[] = {"u"};
static const char *const tire_comp[] = {
    "fx",  "fy",    "fz",  "mz",         "my", "kappa", "alpha",  "gamma",      "vx",   "vsx",
    "vsy", "omega", "rho", "deflection", "px", "py",    "road_z", "road_slope", "steer"};
#define TIRE_STEER 18 /* the road-wheel steer angle: computed here, not by the tyre */
static const char *const cpl_comp[] = {"force", "error"};
static const char *const joint_comp[] = {"residual"};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int find_comp(const char *const *names, int n, const char *c)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], c))
            return i;
    return -1;
}

int vd_signal_resolve(const struct vd_model *m, const char *name, struct vd_signal *s)
{
    char elem[2 * VD_NAME_MAX];
    const char *dot = strrchr(name, '.');
    size_t len;
    int i;

    if (!dot || dot == name || (len = (size_t)(dot - name)) >= sizeof(elem))
        return -ENOENT;
    memcpy(elem, name, len);
    elem[len] = '\0';
    dot++;
    /* element kinds in a fixed order; names are unique within a kind, and the same name
     * in two kinds is told apart by the component */
    {
        const struct {
            int kind, index, nc;
            const char *const *comp;
        } k[] = {
            {VD_SIG_BODY, vd_model_find_body(m, elem), COUNT(body_comp), body_comp},
            {VD_SIG_BUSHING, vd_model_find_bushing(m, elem), COUNT(bush_comp), bush_comp},
            {VD_SIG_P2P, vd_model_find_p2p(m, elem), COUNT(p2p_comp), p2p_comp},
            {VD_SIG_MARKER, vd_model_find_marker(m, elem), COUNT(marker_comp), marker_comp},
            {VD_SIG_INPUT, vd_model_find_input(m, elem), COUNT(input_comp), input_comp},
            {VD_SIG_TIRE, vd_model_find_tire(m, elem), COUNT(tire_comp), tire_comp},
            {VD_SIG_COUPLER, vd_model_find_coupler(m, elem), COUNT(cpl_comp), cpl_comp},
            {VD_SIG_JOINT, vd_model_find_joint(m, elem), COUNT(joint_comp), joint_comp},
        };

        for (i = 0; i < (int)(sizeof(k) / sizeof(k[0])); i++) {
            int c;

            if (k[i].index < 0)
                continue;
            c = find_comp(k[i].comp, k[i].nc, dot);
            if (c >= 0) {
                s->kind = k[i].kind;
                s->index = k[i].index;
                s->comp = c;
                /* the steer angle is relative to the body named chassis (else global) */
                s->ref = -1;
                if (s->kind == VD_SIG_TIRE && c == TIRE_STEER)
                    s->ref = vd_model_find_body(m, "chassis");
                return 0;
            }
        }
    }
    return -ENOENT;
}

static int list_kind(const char *base, size_t stride, int n, const char *const *comp, int nc,
                     void (*fn)(void *, const char *), void *ctx)
{
    char buf[2 * VD_NAME_MAX + 16];

    for (int i = 0; i < n; i++)
        for (int c = 0; c < nc; c++) {
            snprintf(buf, sizeof(buf), "%s.%s", base + (size_t)i * stride, comp[c]);
            fn(ctx, buf);
        }
    return n * nc;
}

int vd_signal_list(const struct vd_model *m, void (*fn)(void *ctx, const char *name), void *ctx)
{
    int n = 0;

    n += list_kind((const char *)m->body, sizeof(*m->body), m->nbody, body_comp, COUNT(body_comp),
                   fn, ctx);
    n += list_kind((const char *)m->bush, sizeof(*m->bush), m->nbush, bush_comp, COUNT(bush_comp),
                   fn, ctx);
    n += list_kind((const char *)m->p2p, sizeof(*m->p2p), m->np2p, p2p_comp, COUNT(p2p_comp), fn,
                   ctx);
    n += list_kind((const char *)m->marker, sizeof(*m->marker), m->nmarker, marker_comp,
                   COUNT(marker_comp), fn, ctx);
    n += list_kind((const char *)m->input, sizeof(*m->input), m->ninput, input_comp,
                   COUNT(input_comp), fn, ctx);
    n += list_kind((const char *)m->tire, sizeof(*m->tire), m->ntire, tire_comp, COUNT(tire_comp),
                   fn, ctx);
    n += list_kind((const char *)m->coupler, sizeof(*m->coupler), m->ncoupler, cpl_comp,
                   COUNT(cpl_comp), fn, ctx);
    n += list_kind((const char *)m->joint, sizeof(*m->joint), m->njoint, joint_comp,
                   COUNT(joint_comp), fn, ctx);
    return n;
}

/* a marker as a sensor, from the accelerations v' = M^-1 h of the last vd_outputs (d->h):
 * comp 6-8 global acceleration a_P = a + alpha x l + w x (w x l) [m/s^2]; 9-11 specific
 * force in marker axes R^T (a_P - g) [m/s^2] (what an accelerometer there reads; at rest
 * +9.81 along the up axis); 12-14 angular velocity in marker axes [rad/s] (a gyro); 15-17
 * velocity in marker axes [m/s]; 18-20 acceleration without gravity in marker axes R^T a_P
 * [m/s^2] (a body-frame acceleration: 0 at rest) */
static double marker_motion(const struct vd_model *m, const struct vd_data *d, int k, int comp)
{
    const int b = m->marker[k].body;
    const double *R = d->mR + 9 * k;
    double a[3] = {0, 0, 0}, w[3] = {0, 0, 0}, out[3];

    if (b != VD_GROUND && (comp < 15 || comp >= 18)) {
        const struct vd_body *bd = &m->body[b];
        const double *hb = d->h + 6 * b, *l = d->ma + 3 * k, *A = d->A + 9 * b;
        double Ii[9], ab[3], al[3], t1[3], t2[3];

        memcpy(w, d->wg + 3 * b, sizeof(w));
        /* body angular acceleration: I wdot = h_rot (h includes - w x I w); global A wdot */
        vdu_mat3_inv(Ii, bd->inertia);
        vdu_mat3_vec(ab, Ii, hb + 3);
        vdu_mat3_vec(al, A, ab);
        vdu_cross3(t1, al, l);
        vdu_cross3(t2, w, l);
        vdu_cross3(out, w, t2);
        for (int i = 0; i < 3; i++)
            a[i] = hb[i] / bd->mass + t1[i] + out[i];
    }
    if (comp < 9)
        return a[comp - 6];
    if (comp < 12) {
        const double f[3] = {a[0] - m->gravity[0], a[1] - m->gravity[1], a[2] - m->gravity[2]};

        vdu_mat3t_vec(out, R, f);
        return out[comp - 9];
    }
    if (comp < 15) {
        vdu_mat3t_vec(out, R, w);
        return out[comp - 12];
    }
    if (comp < 18) {
        vdu_mat3t_vec(out, R, d->mpd + 3 * k);
        return out[comp - 15];
    }
    vdu_mat3t_vec(out, R, a);
    return out[comp - 18];
}

/* the road-wheel steer angle of tyre i [rad], positive to the left (ISO 8855): the yaw of its
 * wheel's spin axis (the wheel-centre marker's x axis, pointing left on both sides) in the
 * axes of body ref (the chassis; -1: global), atan2(-a_x, a_y) */
static double tire_steer(const struct vd_model *m, const struct vd_data *d, int i, int ref)
{
    const double *R = d->mR + 9 * m->tire[i].marker;
    const double e[3] = {R[0], R[3], R[6]};
    double a[3];

    if (ref >= 0)
        vdu_mat3t_vec(a, d->A + 9 * ref, e);
    else
        memcpy(a, e, sizeof(a));
    return atan2(-a[0], a[1]);
}

double vd_signal_value(const struct vd_model *m, const struct vd_data *d, const struct vd_signal *s)
{
    switch (s->kind) {
    case VD_SIG_BODY:
        if (s->comp < 6) {
            double pose[6];

            vd_body_pose(m, d, s->index, pose);
            return pose[s->comp];
        }
        return d->v[6 * s->index + s->comp - 6];
    case VD_SIG_BUSHING:
        return d->bush_out[12 * s->index + s->comp];
    case VD_SIG_P2P:
        return d->p2p_out[3 * s->index + s->comp];
    case VD_SIG_MARKER:
        if (s->comp < 6)
            return s->comp < 3 ? d->mp[3 * s->index + s->comp] : d->mpd[3 * s->index + s->comp - 3];
        return marker_motion(m, d, s->index, s->comp);
    case VD_SIG_INPUT:
        return d->u[s->index];
    case VD_SIG_TIRE:
        if (s->comp == TIRE_STEER)
            return tire_steer(m, d, s->index, s->ref);
        return d->tire_out[VD_TIRE_NOUT * s->index + s->comp];
    case VD_SIG_COUPLER:
        return d->cpl_out[2 * s->index + s->comp];
    case VD_SIG_JOINT: {
        /* max |g| over the joint's rows, as vd_outputs evaluated them */
        double g = 0.0;

        for (int r = m->joint_row[s->index]; r < m->joint_row[s->index + 1]; r++)
            g = fmax(g, fabs(d->jg[r]));
        return g;
    }
    default:
        return 0.0;
    }
}
