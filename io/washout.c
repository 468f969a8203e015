/* io/washout.c - classical washout. */
#include "washout.h"

#include <complex.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "core/vdmath.h"

void vd_washout_cfg_default(struct vd_washout_cfg *c)
{
    c->k_f = 0.5;
    c->k_w = 0.5;
    c->wn = 2.5;
    c->zeta = 1.0;
    c->wb = 0.5;
    c->wl = 5.0;
    c->zeta_l = 1.0;
    c->tilt_rate = 3.0 * M_PI / 180.0;
    c->wr = 2.5;
    c->g = 9.81;
}

/* x = s / D(s) u in controllable canonical form, Tustin: (I - hA/2) z+ = (I + hA/2) z +
 * h/2 B (u + u_prev) */
static void ss_init(struct vd_washout_ss *s, const double d[3], double h)
{
    const double A[9] = {0, 1, 0, 0, 0, 1, -d[0], -d[1], -d[2]};
    double Mi[9], M[9], P[9];

    for (int i = 0; i < 9; i++) {
        Mi[i] = (i % 4 == 0 ? 1.0 : 0.0) - 0.5 * h * A[i];
        P[i] = (i % 4 == 0 ? 1.0 : 0.0) + 0.5 * h * A[i];
    }
    vdu_mat3_inv(M, Mi);
    vdu_mat3_mul(s->Ad, M, P);
    for (int i = 0; i < 3; i++)
        s->Bd[i] = M[3 * i + 2] * 0.5 * h; /* M B h/2, B = (0, 0, 1) */
    memset(s->z, 0, sizeof(s->z));
    s->u_prev = 0.0;
}

/* one step; x, v, a: the outputs s/D, s^2/D and s^3/D of u */
static void ss_step(struct vd_washout_ss *s, const double d[3], double u, double *x, double *v,
                    double *a)
{
    double zn[3];

    for (int i = 0; i < 3; i++)
        zn[i] = s->Ad[3 * i] * s->z[0] + s->Ad[3 * i + 1] * s->z[1] + s->Ad[3 * i + 2] * s->z[2] +
                s->Bd[i] * (u + s->u_prev);
    memcpy(s->z, zn, sizeof(zn));
    s->u_prev = u;
    *x = zn[1];
    *v = zn[2];
    *a = u - d[0] * zn[0] - d[1] * zn[1] - d[2] * zn[2];
}

int vd_washout_init(struct vd_washout *w, const struct vd_washout_cfg *c, double h)
{
    memset(w, 0, sizeof(*w));
    if (!(h > 0) || !(c->wn > 0) || !(c->zeta > 0) || !(c->wb > 0) || !(c->wl > 0) ||
        !(c->zeta_l > 0) || !(c->tilt_rate > 0) || !(c->wr > 0) || !(c->g > 0) || c->k_f < 0 ||
        c->k_w < 0)
        return -EINVAL;
    w->cfg = *c;
    w->h = h;
    /* (s^2 + 2 zeta wn s + wn^2)(s + wb) */
    w->d[2] = 2 * c->zeta * c->wn + c->wb;
    w->d[1] = c->wn * c->wn + 2 * c->zeta * c->wn * c->wb;
    w->d[0] = c->wn * c->wn * c->wb;
    for (int i = 0; i < 3; i++)
        ss_init(&w->tr[i], w->d, h);
    {
        /* wl^2 / (s^2 + 2 zeta_l wl s + wl^2), s = (2/h)(z - 1)/(z + 1) */
        const double K = 2.0 / h, wl2 = c->wl * c->wl;
        const double a0 = K * K + 2 * c->zeta_l * c->wl * K + wl2;

        w->lp_b[0] = wl2 / a0;
        w->lp_b[1] = 2 * wl2 / a0;
        w->lp_b[2] = wl2 / a0;
        w->lp_a[0] = 1.0;
        w->lp_a[1] = (2 * wl2 - 2 * K * K) / a0;
        w->lp_a[2] = (K * K - 2 * c->zeta_l * c->wl * K + wl2) / a0;
    }
    return 0;
}

double vd_washout_tr_gain(const struct vd_washout *w, double om)
{
    const double complex s = I * om;

    return cabs(s / (((s * s) + 2 * w->cfg.zeta * w->cfg.wn * s + w->cfg.wn * w->cfg.wn) *
                     (s + w->cfg.wb)));
}

static double clamp(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

void vd_washout_step(struct vd_washout *w, const double f[3], const double wv[3], double *pose)
{
    const struct vd_washout_cfg *c = &w->cfg;
    const double h = w->h;
    double fs[3], ws[3], R[9], a[3], lp[2], ang[3];

    /* the scale acts on the departure from rest, f - (0, 0, g) */
    for (int i = 0; i < 3; i++) {
        fs[i] = c->k_f * (f[i] - (i == 2 ? c->g : 0.0)) + (i == 2 ? c->g : 0.0);
        ws[i] = c->k_w * wv[i];
    }
    /* translational: the scaled specific force in the axes of the tilted platform (its yaw
     * left out: the horizontal frame turns with it) plus gravity */
    vdu_cardan_zyx(R, 0.0, w->pose_prev[4], w->pose_prev[3]);
    vdu_mat3_vec(a, R, fs);
    a[2] -= c->g;
    for (int i = 0; i < 3; i++)
        ss_step(&w->tr[i], w->d, a[i], &pose[i], &pose[6 + i], &pose[12 + i]);
    /* tilt coordination: low-pass, asin, rate limit */
    for (int i = 0; i < 2; i++) {
        double *z = w->lp_z[i];
        const double x = fs[i];

        if (!w->primed) {
            z[1] = (w->lp_b[2] - w->lp_a[2]) * x;
            z[0] = (w->lp_b[1] - w->lp_a[1]) * x + z[1];
        }
        lp[i] = w->lp_b[0] * x + z[0];
        z[0] = w->lp_b[1] * x - w->lp_a[1] * lp[i] + z[1];
        z[1] = w->lp_b[2] * x - w->lp_a[2] * lp[i];
    }
    {
        /* roll = asin(f_y / g), pitch = -asin(f_x / g) (ISO pitch: nose down +) */
        const double want[2] = {asin(clamp(lp[1] / c->g, -1, 1)),
                                -asin(clamp(lp[0] / c->g, -1, 1))};
        const double dmax = c->tilt_rate * h;

        for (int i = 0; i < 2; i++) {
            const double d = clamp(want[i] - w->tilt[i], -dmax, dmax);

            if (d != want[i] - w->tilt[i])
                w->rate_limited++;
            w->tilt[i] += d;
        }
    }
    /* rotational: Cardan rates of the scaled w at the platform's angles, through
     * 1 / (s + wr) (the high-pass s / (s + wr) integrated), Tustin */
    {
        const double ph = w->pose_prev[3], th = w->pose_prev[4];
        const double sr = sin(ph), cr = cos(ph), tp = tan(th), cp = cos(th);
        const double rate[3] = {ws[0] + (sr * ws[1] + cr * ws[2]) * tp, cr * ws[1] - sr * ws[2],
                                (sr * ws[1] + cr * ws[2]) / cp};
        const double k = 2.0 / h;

        for (int i = 0; i < 3; i++) {
            const double u0 = w->primed ? w->rate_prev[i] : rate[i];

            w->rot[i] = ((k - c->wr) * w->rot[i] + rate[i] + u0) / (k + c->wr);
            w->rate_prev[i] = rate[i];
        }
    }
    ang[0] = w->tilt[0] + w->rot[0];
    ang[1] = w->tilt[1] + w->rot[1];
    ang[2] = w->rot[2];
    for (int i = 0; i < 3; i++) {
        pose[3 + i] = ang[i];
        pose[9 + i] = w->primed ? (ang[i] - w->pose_prev[3 + i]) / h : 0.0;
        pose[15 + i] = w->primed ? (pose[9 + i] - w->vel_prev[3 + i]) / h : 0.0;
    }
    memcpy(w->pose_prev, pose, 6 * sizeof(double));
    for (int i = 0; i < 6; i++)
        w->vel_prev[i] = pose[6 + i];
    w->primed = true;
}
