/* core/cue.c - motion cues at the motion reference point. */
#include "cue.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "road.h"
#include "tire.h"
#include "vdmath.h"

const char *const vd_cue_name[VD_CUE_N] = {
    "fx",        "fy",      "fz",      "wx",      "wy",        "wz",        "dwx",
    "dwy",       "dwz",     "roll",    "pitch",   "yaw",       "vx",        "vy",
    "vz",        "px",      "py",      "pz",      "wheel_az0", "wheel_az1", "wheel_az2",
    "wheel_az3", "road_z0", "road_z1", "road_z2", "road_z3",
};
const char *const vd_cue_unit[VD_CUE_N] = {
    "m/s^2", "m/s^2", "m/s^2", "rad/s", "rad/s", "rad/s", "rad/s^2", "rad/s^2", "rad/s^2",
    "rad",   "rad",   "rad",   "m/s",   "m/s",   "m/s",   "m",       "m",       "m",
    "m/s^2", "m/s^2", "m/s^2", "m/s^2", "m",     "m",     "m",       "m",
};

int vd_cue_point_init(const struct vd_model *m, struct vd_cue_point *p, int body,
                      const double pos[3], const double rpy[3], char *err, size_t errlen)
{
    memset(p, 0, sizeof(*p));
    if (body < 0 || body >= m->nbody) {
        snprintf(err, errlen, "the motion reference point needs a body of the model");
        return -EINVAL;
    }
    for (int i = 0; i < 3; i++)
        if (!isfinite(pos[i]) || !isfinite(rpy[i]) || fabs(rpy[i]) > M_PI) {
            snprintf(err, errlen,
                     "motion reference point: position or axes not finite, or an "
                     "angle beyond 180 deg");
            return -EINVAL;
        }
    p->body = body;
    memcpy(p->pos, pos, sizeof(p->pos));
    vdu_sub3(p->s, pos, m->body[body].com);
    vdu_cardan_zyx(p->rot, rpy[2], rpy[1], rpy[0]);
    p->nwheel = m->ntire < VD_CUE_NWHEEL ? m->ntire : VD_CUE_NWHEEL;
    for (int i = 0; i < p->nwheel; i++)
        p->tire[i] = i;
    return 0;
}

/* acceleration [m/s^2] of the point at lever l (global, from the CoM) on body b, and the
 * body's angular acceleration (global), from the forces d->h of the last evaluation */
static void point_accel(const struct vd_model *m, const struct vd_data *d, int b, const double l[3],
                        double a[3], double alpha[3])
{
    const double *hb = d->h + 6 * b, *w = d->wg + 3 * b;
    double ab[3], t1[3], t2[3], t3[3];

    /* I wdot = h_rot in body axes (h_rot holds the gyroscopic -w x I w) */
    vdu_mat3_vec(ab, m->minv_inertia + 9 * b, hb + 3);
    vdu_mat3_vec(alpha, d->A + 9 * b, ab);
    vdu_cross3(t1, alpha, l);
    vdu_cross3(t2, w, l);
    vdu_cross3(t3, w, t2);
    for (int i = 0; i < 3; i++)
        a[i] = hb[i] / m->body[b].mass + t1[i] + t3[i];
}

void vd_cues(const struct vd_model *m, const struct vd_data *d, const struct vd_cue_point *p,
             double *out)
{
    const int b = p->body;
    const double *A = d->A + 9 * b, *w = d->wg + 3 * b, *vc = d->v + 6 * b, *rb = d->r + 6 * b;
    double R[9], l[3], a[3], alpha[3], t[3], ang[3];

    /* MRP axes in global axes, lever CoM -> MRP in global axes */
    vdu_mat3_mul(R, A, p->rot);
    vdu_mat3_vec(l, A, p->s);
    point_accel(m, d, b, l, a, alpha);
    for (int i = 0; i < 3; i++)
        t[i] = a[i] - m->gravity[i];
    vdu_mat3t_vec(out + VD_CUE_FX, R, t);
    vdu_mat3t_vec(out + VD_CUE_WX, R, w);
    vdu_mat3t_vec(out + VD_CUE_DWX, R, alpha);
    /* attitude; yaw continuous with the body's unwrapped az */
    vdu_cardan_from_mat(ang, R);
    out[VD_CUE_ROLL] = ang[2];
    out[VD_CUE_PITCH] = ang[1];
    out[VD_CUE_YAW] = rb[3] + remainder(ang[0] - rb[3], 2.0 * M_PI);
    /* velocity of the MRP in its axes, position in global axes */
    vdu_cross3(t, w, l);
    vdu_add3(t, t, vc);
    vdu_mat3t_vec(out + VD_CUE_VX, R, t);
    vdu_add3(out + VD_CUE_PX, rb, l);
    /* per wheel: the wheel centre's vertical acceleration, the road under the contact point */
    for (int i = 0; i < VD_CUE_NWHEEL; i++) {
        double az = 0.0, zr = 0.0;

        if (i < p->nwheel) {
            const int k = m->tire[p->tire[i]].marker, wb = m->marker[k].body;
            const double *to = d->tire_out + VD_TIRE_NOUT * p->tire[i];
            double grad[2];

            if (wb != VD_GROUND) {
                point_accel(m, d, wb, d->ma + 3 * k, a, alpha);
                az = a[2];
            }
            zr = vd_road_height(m, to[VD_TO_PX], to[VD_TO_PY], grad);
        }
        out[VD_CUE_WHEEL_AZ + i] = az;
        out[VD_CUE_ROAD_Z + i] = zr;
    }
}
