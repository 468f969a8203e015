/* tests/core/fa_corner.h - the ideal-joint (FA) reference for one embedded corner
 * (core/nlcorner.h), shared by test_nlcorner, test_cemprack and test_cemlrack: the corner's
 * joint rows and unknown bodies (the McPherson's lower arm held, the multilink's wheel centre
 * height as one more row), Newton's method on them, toe, camber and the wheel centre in the
 * parent frame; for a corner pair on a rack, the kinematic curves over the (travel, rack)
 * rectangle against the closure and the steering geometry at the design travel. Static
 * functions: include it in one test file. The tolerances' derivations stay beside each caller
 * (their numbers are the model's). */
#ifndef VT_FA_CORNER_H
#define VT_FA_CORNER_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/data.h"
#include "core/joint.h"
#include "core/kinematics.h"
#include "core/model.h"
#include "core/nlcorner.h"
#include "core/vdmath.h"
#include "ce_checks.h"

#define VT_FA_NMAX 48 /* unknowns of the ideal-joint solve: 8 bodies */

/* the corner for the ideal-joint solves: its rows (joints <prefix>.* on its bodies) but the
 * held ones, its unknown bodies, the multilink's height row */
struct vt_fa {
    const struct vd_nlc *c;
    int nrow, row[VT_FA_NMAX];
    int nbv, bd[8];      /* model bodies solved for */
    int hold;            /* slot held (McPherson: the lower arm), -1: the height row */
    double Ap[9], xp[3]; /* the parent's pose (initial) */
    double s_wc[3];      /* the wheel centre as a knuckle point (body axes, from the CoM) */
};

static inline void vt_fa_setup(struct vt_fa *f, const struct vd_model *m, const struct vd_data *d,
                               const struct vd_nlc *c, const char *prefix, int par)
{
    const size_t n = strlen(prefix);
    int hold_joint = -1;

    memset(f, 0, sizeof(*f));
    f->c = c;
    f->hold = c->kind == VD_NLC_MCPHERSON ? 1 : -1;
    if (f->hold >= 0) {
        char nm[2 * VD_NAME_MAX];

        snprintf(nm, sizeof(nm), "%s.lca_pivot", prefix);
        hold_joint = vd_model_find_joint(m, nm);
    }
    for (int k = 0; k < c->nb; k++)
        if (k != f->hold)
            f->bd[f->nbv++] = c->mb[k];
    for (int j = 0; j < m->njoint; j++) {
        int mine = 0;

        if (strncmp(m->joint[j].name, prefix, n) || m->joint[j].name[n] != '.' || j == hold_joint)
            continue;
        for (int k = 0; k < c->nb; k++)
            mine |= m->marker[m->joint[j].mk[0]].body == c->mb[k];
        if (!mine)
            continue;
        for (int r = m->joint_row[j]; r < m->joint_row[j + 1] && f->nrow < VT_FA_NMAX; r++)
            f->row[f->nrow++] = r;
    }
    vdu_cardan_zyx(f->Ap, d->r[6 * par + 3], d->r[6 * par + 4], d->r[6 * par + 5]);
    memcpy(f->xp, d->r + 6 * par, sizeof(f->xp));
    {
        double t[3];

        vdu_sub3(t, c->wc, c->x0[0]);
        vdu_mat3t_vec(f->s_wc, c->A0[0], t);
    }
}

/* the height row (multilink): value hz . (Ap^T (P - xp) - w) - q, its coefficients on the
 * knuckle (v global, omega body) and, if gam is not NULL, its acceleration term */
static inline double vt_fa_height_row(const struct vt_fa *f, const struct vd_data *d, double q,
                                      double G[6], double *gam)
{
    const struct vd_nlc *c = f->c;
    const double *rk = d->r + 6 * c->mb[0], *wk = d->v + 6 * c->mb[0] + 3;
    double A[9], t[3], P[3], x[3], hg[3], S[9], u[3], w2[3];

    vdu_cardan_zyx(A, rk[3], rk[4], rk[5]);
    vdu_mat3_vec(t, A, f->s_wc);
    vdu_add3(P, rk, t);
    vdu_sub3(t, P, f->xp);
    vdu_mat3t_vec(x, f->Ap, t);
    vdu_mat3_vec(hg, f->Ap, c->hz);
    /* dP = dx + A (omega x s) = dx - A [s]x omega */
    memcpy(G, hg, 3 * sizeof(double));
    vdu_skew(S, f->s_wc);
    vdu_mat3t_vec(t, A, hg);
    vdu_mat3t_vec(G + 3, S, t); /* (A^T hg)^T (-[s]x) = ([s]x A^T hg)^T ... */
    vdu_scale3(G + 3, -1.0, G + 3);
    /* gamma = hg . A (omega x (omega x s)) */
    if (gam) {
        vdu_cross3(u, wk, f->s_wc);
        vdu_cross3(w2, wk, u);
        vdu_mat3_vec(u, A, w2);
        *gam = vdu_dot3(hg, u);
    }
    vdu_sub3(t, x, c->wc);
    return vdu_dot3(c->hz, t) - q;
}

/* Newton on the corner's rows (and the height row at q) over the unknown bodies; the last
 * step's norm (INFINITY: not square or singular) */
static inline double vt_fa_newton(const struct vt_fa *f, const struct vd_model *m,
                                  struct vd_data *d, double q)
{
    static double Gs[VT_FA_NMAX * VT_FA_NMAX], rhs[VT_FA_NMAX];
    const int n = 6 * f->nbv;
    double step = 1.0;

    for (int it = 0; it < 30 && step > 1e-15; it++) {
        int nr = f->nrow;

        vd_kinematics(m, d, d->r, d->v);
        vd_joint_eval(m, d, d->u, false);
        memset(Gs, 0, sizeof(Gs));
        vt_rows_into(m, d, f->row, f->nrow, f->bd, f->nbv, n, Gs, rhs);
        if (f->hold < 0) {
            double G[6];

            rhs[nr] = -vt_fa_height_row(f, d, q, G, NULL);
            for (int e = 0; e < 6; e++)
                Gs[nr + n * e] = G[e]; /* bd[0] is the knuckle */
            nr++;
        }
        if (nr != n || vt_gauss(n, Gs, rhs))
            return INFINITY;
        step = vt_bodies_step(d, f->bd, f->nbv, rhs);
    }
    return step;
}

/* toe (heading of the knuckle's x axis) and camber (tilt of its y axis) from the design pose
 * in the parent frame, and the wheel centre in the parent frame, of model state r */
static inline void vt_fa_kc(const struct vt_fa *f, const double *r, double *toe, double *cam,
                            double wc[3])
{
    const double *rk = r + 6 * f->c->mb[0];
    double A[9], B[9], t[3], P[3];

    vdu_cardan_zyx(A, rk[3], rk[4], rk[5]);
    vdu_mat3t_mul(B, f->Ap, A);
    vdu_mat3_mult(A, B, f->c->A0[0]); /* the rotation from the design pose, parent axes */
    *toe = atan2(A[3], A[0]);
    *cam = asin(A[7]);
    vdu_cardan_zyx(A, rk[3], rk[4], rk[5]);
    vdu_mat3_vec(t, A, f->s_wc);
    vdu_add3(P, rk, t);
    vdu_sub3(t, P, f->xp);
    vdu_mat3t_vec(wc, f->Ap, t);
}

/* toe, camber and the wheel centre's height from its design position (parent frame) */
static inline void vt_fa_tcz(const struct vt_fa *f, const double *r, double *toe, double *cam,
                             double *wz)
{
    double x[3];

    vt_fa_kc(f, r, toe, cam, x);
    *wz = x[2] - f->c->wc[2];
}

/* the rack's two corners' kinematic curves over travel q in +-qmax x rack s in +-smax (13 x 13
 * points a side) from the closure against the ideal-joint model's own solution (Newton from a
 * start 1 mm / 1 mrad away, the corner's coordinate and the rack held): the largest toe,
 * camber and wheel centre height differences, the ideal-joint Newton's largest last step, the
 * closures' largest |J^-1| (beta), the design pose's toe, camber and height (rack centred,
 * travel 0: zero), the closures that failed and each side's joint row count */
struct vt_rack_curves {
    double wt, wc, wz, maxstep, beta, w0;
    int nf, nrow[2];
};

static inline void vt_rack_fa_curves(const struct vd_model *m, struct vd_data *d,
                                     const struct vd_ce *ce, double qmax, double smax,
                                     struct vt_rack_curves *o)
{
    const int par = vd_model_find_body(m, "chassis");

    memset(o, 0, sizeof(*o));
    for (int side = 0; side < 2; side++) {
        const struct vd_nlc *c = ce->rack.nlc[side];
        char prefix[VD_NAME_MAX];
        struct vt_fa f;

        vt_corner_prefix(m, c, prefix, sizeof(prefix));
        vd_data_reset(m, d);
        vt_fa_setup(&f, m, d, c, prefix, par);
        o->nrow[side] = f.nrow;
        o->beta = fmax(o->beta, c->beta);
        /* the design pose: the rack at its centre, the travel 0 */
        {
            double t0, c0, z0;

            vt_rack_place(m, d, ce, side, par, 0.0, 0.0);
            vt_fa_tcz(&f, d->r, &t0, &c0, &z0);
            o->w0 = fmax(o->w0, fmax(fabs(t0), fmax(fabs(c0), fabs(z0))));
        }
        for (int iq = -6; iq <= 6; iq++)
            for (int is = -6; is <= 6; is++) {
                const double q = qmax * iq / 6.0, s = smax * is / 6.0;
                double t0, c0, z0, t1, c1, z1;

                if (vt_rack_place(m, d, ce, side, par, q, s)) {
                    o->nf++;
                    continue;
                }
                vt_fa_tcz(&f, d->r, &t0, &c0, &z0);
                /* the ideal-joint model's own solution from 1 mm / 1 mrad away */
                for (int k = 0; k < f.nbv; k++)
                    for (int i = 0; i < 6; i++)
                        d->r[6 * f.bd[k] + i] += 1e-3 * sin(1.3 * (6 * k + i) + iq + 0.7 * is);
                o->maxstep = fmax(o->maxstep, vt_fa_newton(&f, m, d, q));
                vt_fa_tcz(&f, d->r, &t1, &c1, &z1);
                o->wt = fmax(o->wt, fabs(t1 - t0));
                o->wc = fmax(o->wc, fabs(c1 - c0));
                o->wz = fmax(o->wz, fabs(z1 - z0));
            }
    }
}

/* the steering geometry at the design travel from the left corner's toe against the rack's
 * travel: the overall ratio at the centre, the pinion's angle (the steering wheel's: the two
 * Cardan joints' ratios about 1 at the centre) per road wheel angle, (1 / gear ratio) /
 * (d toe / ds) by a central difference; the left wheel's angle at the rack's end stops
 * +-0.075 m (printed; the caller checks them against its vehicle's range) */
static inline void vt_rack_steering(const struct vd_model *m, struct vd_data *d,
                                    const struct vd_ce *ce, double *ratio, double *t75p,
                                    double *t75m)
{
    const int par = vd_model_find_body(m, "chassis");
    const struct vd_nlc *c = ce->rack.nlc[0];
    const double e = 1e-4;
    char prefix[VD_NAME_MAX];
    struct vt_fa f;
    double tp, tm, cm, z;

    vt_corner_prefix(m, c, prefix, sizeof(prefix));
    vd_data_reset(m, d);
    vt_fa_setup(&f, m, d, c, prefix, par);
    vt_rack_place(m, d, ce, 0, par, 0.0, e);
    vt_fa_tcz(&f, d->r, &tp, &cm, &z);
    vt_rack_place(m, d, ce, 0, par, 0.0, -e);
    vt_fa_tcz(&f, d->r, &tm, &cm, &z);
    vt_rack_place(m, d, ce, 0, par, 0.0, 0.075);
    vt_fa_tcz(&f, d->r, t75p, &cm, &z);
    vt_rack_place(m, d, ce, 0, par, 0.0, -0.075);
    vt_fa_tcz(&f, d->r, t75m, &cm, &z);
    *ratio = (1.0 / ce->rack.ratio) / fabs((tp - tm) / (2 * e));
    printf("steering: overall ratio %.1f:1 at the centre; the left wheel at %.1f / %.1f deg "
           "at the rack's end stops +-0.075 m\n",
           *ratio, *t75p * 180 / M_PI, *t75m * 180 / M_PI);
}

#endif
