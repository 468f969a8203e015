/* core/tire.c - the tyre element (see tire.h for the equations). Derivatives are carried
 * forward through every intermediate as rows over the wheel body's perturbation coordinates
 * (p: delta x, delta pi; v: delta v, delta omega) and the tyre's two states (z). */
#include "tire.h"

#include <math.h>
#include <string.h>

#include "elem.h"
#include "eval.h"
#include "road.h"
#include "tire_env.h"
#include "tire_mf.h"
#include "tire_tmeasy.h"
#include "vdmath.h"

#define SIGMA_MIN 0.01 /* [m] relaxation lengths never vanish (they scale with Fz) */

/* derivative of a scalar / of a 3-vector */
struct drow {
    double p[6], v[6], z[2];
};

struct dvec {
    double p[3][6], v[3][6], z[3][2];
};

VD_AI void dv_zero(struct dvec *x)
{
    memset(x, 0, sizeof(*x));
}

/* out = M x (M row-major 3x3) */
VD_AI void dv_mul(struct dvec *out, const double M[9], const struct dvec *x)
{
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 6; j++) {
            out->p[i][j] =
                M[3 * i] * x->p[0][j] + M[3 * i + 1] * x->p[1][j] + M[3 * i + 2] * x->p[2][j];
            out->v[i][j] =
                M[3 * i] * x->v[0][j] + M[3 * i + 1] * x->v[1][j] + M[3 * i + 2] * x->v[2][j];
        }
        for (int j = 0; j < 2; j++)
            out->z[i][j] =
                M[3 * i] * x->z[0][j] + M[3 * i + 1] * x->z[1][j] + M[3 * i + 2] * x->z[2][j];
    }
}

/* out += s * x */
VD_AI void dv_axpy(struct dvec *out, double s, const struct dvec *x)
{
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 6; j++) {
            out->p[i][j] += s * x->p[i][j];
            out->v[i][j] += s * x->v[i][j];
        }
        for (int j = 0; j < 2; j++)
            out->z[i][j] += s * x->z[i][j];
    }
}

/* out += a (column) * r (row) */
VD_AI void dv_outer(struct dvec *out, const double a[3], const struct drow *r)
{
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 6; j++) {
            out->p[i][j] += a[i] * r->p[j];
            out->v[i][j] += a[i] * r->v[j];
        }
        for (int j = 0; j < 2; j++)
            out->z[i][j] += a[i] * r->z[j];
    }
}

/* out = a . x (row) */
VD_AI void dr_dot(struct drow *out, const double a[3], const struct dvec *x)
{
    for (int j = 0; j < 6; j++) {
        out->p[j] = a[0] * x->p[0][j] + a[1] * x->p[1][j] + a[2] * x->p[2][j];
        out->v[j] = a[0] * x->v[0][j] + a[1] * x->v[1][j] + a[2] * x->v[2][j];
    }
    for (int j = 0; j < 2; j++)
        out->z[j] = a[0] * x->z[0][j] + a[1] * x->z[1][j] + a[2] * x->z[2][j];
}

/* out = sa * a + sb * b */
VD_AI void dr_lin(struct drow *out, double sa, const struct drow *a, double sb,
                  const struct drow *b)
{
    for (int j = 0; j < 6; j++) {
        out->p[j] = sa * a->p[j] + (b ? sb * b->p[j] : 0.0);
        out->v[j] = sa * a->v[j] + (b ? sb * b->v[j] : 0.0);
    }
    for (int j = 0; j < 2; j++)
        out->z[j] = sa * a->z[j] + (b ? sb * b->z[j] : 0.0);
}

/* out += s * a */
VD_AI void dr_axpy(struct drow *out, double s, const struct drow *a)
{
    for (int j = 0; j < 6; j++) {
        out->p[j] += s * a->p[j];
        out->v[j] += s * a->v[j];
    }
    for (int j = 0; j < 2; j++)
        out->z[j] += s * a->z[j];
}

/* put a 3x3 block into the p (or v) columns 0..2 (c = 0) or 3..5 (c = 3) */
VD_AI void dv_put(double D[3][6], int c, const double M[9], double s)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            D[i][c + j] += s * M[3 * i + j];
}

/* relaxation lengths of tire_mf.h with their load and inclination derivatives */
VD_AI void relaxation(const struct vd_mf_params *p, double fz, double gamma, double r0,
                      double press, double *sk, double *dsk_dfz, double *sa, double *dsa_dfz,
                      double *dsa_dg)
{
    const double fz0 = p->fnomin, fz0p = p->lfzo * fz0;
    const double dfz = (fz - fz0p) / fz0p, ddfz = 1.0 / fz0p;

    if (p->fittyp >= 61 && p->cx0 > 0.0 && p->cy0 > 0.0) {
        /* MF 6.x: |Kx / Cx|, |Kya / Cy| */
        double o[5];

        vd_mf_relax6(p, fz, gamma, press, o);
        *sk = o[0];
        *dsk_dfz = o[1];
        *sa = o[2];
        *dsa_dfz = o[3];
        *dsa_dg = o[4];
    } else if (!(p->flags & VD_MF_HAS_RELAX)) {
        /* file without PTX/PTY: constant lengths (0.5 R0, R0), documented fallback */
        *sk = 0.5 * r0;
        *sa = r0;
        *dsk_dfz = *dsa_dfz = *dsa_dg = 0.0;
    } else {
        const double a = p->ptx1 + p->ptx2 * dfz, e = exp(-p->ptx3 * dfz);
        const double c = r0 / fz0 * p->lsgkp;
        const double q = fz / (p->pty2 * fz0p), at = atan(q), sn = sin(2.0 * at);
        const double gfac = 1.0 - p->pky3 * fabs(gamma);
        const double k = p->pty1 * r0 * p->lfzo * p->lsgal;

        *sk = fz * a * e * c;
        *dsk_dfz = c * (a * e + fz * (p->ptx2 * ddfz) * e + fz * a * e * (-p->ptx3 * ddfz));
        *sa = k * sn * gfac;
        *dsa_dfz = k * gfac * cos(2.0 * at) * 2.0 / (1.0 + q * q) / (p->pty2 * fz0p);
        *dsa_dg = -k * sn * p->pky3 * (gamma > 0.0 ? 1.0 : (gamma < 0.0 ? -1.0 : 0.0));
    }
    /* smooth lower bound: sqrt(s^2 + smin^2) */
    {
        double n = sqrt(*sk * *sk + SIGMA_MIN * SIGMA_MIN);

        *dsk_dfz *= *sk / n;
        *sk = n;
        n = sqrt(*sa * *sa + SIGMA_MIN * SIGMA_MIN);
        *dsa_dfz *= *sa / n;
        *dsa_dg *= *sa / n;
        *sa = n;
    }
}
/* TMeasy relaxation lengths (core/tire_tmeasy.h), the same smooth lower bound */
VD_AI void relaxation_tm(const struct vd_tm_params *p, double fz, double *sk, double *dsk_dfz,
                         double *sa, double *dsa_dfz, double *dsa_dg)
{
    double o[4], n;

    vd_tm_relax(p, fz, o);
    n = sqrt(o[0] * o[0] + SIGMA_MIN * SIGMA_MIN);
    *sk = n;
    *dsk_dfz = o[1] * o[0] / n;
    n = sqrt(o[2] * o[2] + SIGMA_MIN * SIGMA_MIN);
    *sa = n;
    *dsa_dfz = o[3] * o[2] / n;
    *dsa_dg = 0.0;
}

/* the tyre's intermediates, shared by the stages below (names as in tire.h) */
struct tyre {
    const struct vd_tire *ty;
    const struct vd_mf_params *mp;     /* Magic Formula set, or NULL */
    const struct vd_tm_params *tp;     /* TMeasy set, or NULL */
    double fnom;                       /* [N] nominal load: FNOMIN or pn */
    const double *A, *am, *c, *cd, *w; /* body rotation, marker arm, centre, its velocity, omega */
    double ax[3], sm, r0, u, wz;       /* spin axis, mirror sign, R0, relaxation states */
    /* contact (road plane, frame, vertical force); hrow: the plane's (-dz/dx, -dz/dy, 1), hd:
     * the height's, hv: the deflection rate's (all equal for point contact; enveloping: the
     * tandem slope, d w_e/d(x, y) and d((z_f + z_r)/2)/d(x, y), core/tire_env.h) */
    double zr, curv, hd[3], hv[3], hrow[3], n[3], H, sa, ex[3], ey[3], er[3], rho, P[3], l[3], defl,
        Hd, fz;
    bool contact;
    /* slip and transient slip; wn: the wheel's angular velocity about the normal */
    double vx, vsy, om, re, vsx, q, gam, sk, dsk, sal, dsa, dsag, kap, alp, wn;
    /* force channels (to: TMeasy's outputs with the bore torque and its extra partials) */
    struct vd_mf_out mo, m0;
    struct vd_tm_out to;
    double wm, dwm, va, dva, wl, dwl, cl, fxt, fyt, mz, my, Qr, wr, F[3], M[3];
    double my6, dmy6[4]; /* MF 6.x rolling resistance without its direction factor, partials */
};

/* derivative rows of the intermediates (tire.c's header comment) */
struct tyre_d {
    struct dvec Dc, Dcd, Dax, Dw, Dex, Dey, Der, DF, DM;
    double Dlp[3][6]; /* position rows of the lever l = P - x */
    struct drow DH, Dsa, Drho, DHd, Dfz, Dvx, Dvsy, Dom, Dvsx, Dgam, Dsk, Dsal, Dkap, Dalp, Dwn;
    struct drow Dfx, Dfy, Dmz, Dmy, Dfxt, Dfyt, Dgu, Dgw;
};

/* contact: road plane at the wheel centre, contact frame, loaded radius, vertical force */
VD_AI void contact_eval(const struct vd_model *m, struct tyre *s)
{
    double grad[2], zr, nn, tv[3];

    if (!s->ty->env.on) {
        /* point contact: the road plane at the wheel centre */
        zr = vd_road_height(m, s->c[0], s->c[1], grad);
        s->hrow[0] = -grad[0];
        s->hrow[1] = -grad[1];
        s->hrow[2] = 1.0;
        memcpy(s->hd, s->hrow, sizeof(s->hd));
        memcpy(s->hv, s->hrow, sizeof(s->hv));
        s->curv = 0.0;
    } else {
        /* enveloping: the effective road plane of the tandem cams along the heading (the
         * horizontal projection of ax x z) */
        double hh[2] = {s->ax[1], -s->ax[0]}, sl[2], rt[2];
        const double hn = sqrt(hh[0] * hh[0] + hh[1] * hh[1]);

        hh[0] /= hn;
        hh[1] /= hn;
        zr = vd_tire_env_road(m, &s->ty->env, s->c, hh, grad, sl, rt, &s->curv);
        s->hrow[0] = -sl[0];
        s->hrow[1] = -sl[1];
        s->hrow[2] = 1.0;
        s->hd[0] = -grad[0];
        s->hd[1] = -grad[1];
        s->hd[2] = 1.0;
        s->hv[0] = -rt[0];
        s->hv[1] = -rt[1];
        s->hv[2] = 1.0;
    }
    s->zr = zr;
    nn = sqrt(vdu_dot3(s->hrow, s->hrow));
    vdu_scale3(s->n, 1.0 / nn, s->hrow);
    s->H = s->c[2] - zr;
    /* contact frame */
    vdu_cross3(tv, s->ax, s->n);
    s->sa = sqrt(vdu_dot3(tv, tv));
    vdu_scale3(s->ex, 1.0 / s->sa, tv);
    vdu_cross3(s->ey, s->n, s->ex);
    vdu_cross3(s->er, s->ax, s->ex);
    s->rho = s->H * s->n[2] / s->sa;
    for (int i = 0; i < 3; i++) {
        s->P[i] = s->c[i] + s->rho * s->er[i];
        s->l[i] = s->am[i] + s->rho * s->er[i];
    }
    s->defl = s->r0 - s->rho;
    s->Hd = vdu_dot3(s->hv, s->cd);
    s->fz = s->ty->kz * s->defl - s->ty->cz * s->n[2] * s->Hd;
    s->contact = s->fz > 0.0;
    if (!s->contact)
        s->fz = 0.0;
}

/* slip velocities, inclination and the transient slips of the relaxation states */
VD_AI void slip_eval(struct tyre *s)
{
    double q;

    s->vx = vdu_dot3(s->cd, s->ex);
    s->vsy = vdu_dot3(s->cd, s->ey);
    s->om = vdu_dot3(s->w, s->ax);
    s->wn = vdu_dot3(s->w, s->n);
    s->re = (2.0 * s->r0 + s->rho) / 3.0;
    s->vsx = s->vx - s->om * s->re;
    q = vdu_dot3(s->ax, s->n);
    q = q > 1.0 ? 1.0 : (q < -1.0 ? -1.0 : q);
    s->q = q;
    s->gam = asin(q);
    if (s->tp)
        relaxation_tm(s->tp, s->fz, &s->sk, &s->dsk, &s->sal, &s->dsa, &s->dsag);
    else
        relaxation(s->mp, s->fz, s->gam, s->r0, s->ty->pressure, &s->sk, &s->dsk, &s->sal, &s->dsa,
                   &s->dsag);
    s->kap = -s->u / s->sk;
    s->alp = atan(s->wz / s->sal);
}

/* the force channels: MF Fx, Fy (faded zero-slip shifts, low-speed damping), Mz, My; the
 * resultant F and torque M at P */
VD_AI void force_eval(const struct vd_model *m, struct tyre *s)
{
    const struct vd_tire *ty = s->ty;
    const struct vd_mf_params *mp = s->mp;
    const double vx = s->vx, sm = s->sm;
    struct vd_mf_in in;

    in.kappa = s->kap;
    in.alpha = sm * s->alp;
    in.gamma = sm * s->gam;
    in.fz = s->fz;
    in.mu = m->road.mu;
    in.vx = vx;
    in.p = ty->pressure; /* MF 6.x; 0: the file's INFLPRES */
    if (s->tp) {
        /* TMeasy: no zero-slip shifts (m0 = 0); camber force and bore torque from the spin
         * and the turning about the normal (mirrored like a yaw rate); the road's mu is a
         * friction scale (1: the tyre's own, as MF's LMUX mu), TMeasy takes the absolute
         * coefficient and scales its curves by mu / mu0 */
        struct vd_tm_in ti = {in.kappa, in.alpha, in.fz,      in.mu * s->tp->mu0,
                              in.gamma, s->om,    sm * s->wn, s->re};
        const struct vd_tm_out *to = &s->to;

        vd_tm_eval(s->tp, &ti, &s->to);
        memset(&s->mo, 0, sizeof(s->mo));
        memset(&s->m0, 0, sizeof(s->m0));
        s->mo.fx = to->fx;
        s->mo.fy = to->fy;
        s->mo.mz = to->mz;
        memcpy(s->mo.dfx, to->dfx, sizeof(s->mo.dfx));
        memcpy(s->mo.dfy, to->dfy, sizeof(s->mo.dfy));
        memcpy(s->mo.dmz, to->dmz, sizeof(s->mo.dmz));
    } else {
        /* with the zero-slip forces F(0, 0, fz, gamma) for the fade below */
        vd_mf_eval_zs(mp, &in, &s->mo, &s->m0);
    }
    /* standstill: MF's shifts (ply steer, conicity, camber thrust, SVx) are forces of a
     * rolling tyre; at rest they would push a parked vehicle along (with toe, the lateral
     * ones have a longitudinal component) and the carcass states would never settle. The
     * zero-slip force is faded in with wm = Vx^2 / (Vx^2 + v_low^2), as Mz below: at rest
     * the tyre is a pure carcass spring, F(kappa = alpha = 0) = 0 */
    s->wm = vx * vx / (vx * vx + ty->v_low * ty->v_low);
    s->dwm = 2.0 * vx * ty->v_low * ty->v_low /
             ((vx * vx + ty->v_low * ty->v_low) * (vx * vx + ty->v_low * ty->v_low));
    if (mp) {
        s->mo.fx -= (1.0 - s->wm) * s->m0.fx;
        s->mo.fy -= (1.0 - s->wm) * s->m0.fy;
    }
    /* smooth |Vx|, exactly 0 at standstill */
    {
        const double e2 = VD_TIRE_VEPS * VD_TIRE_VEPS, s2 = sqrt(vx * vx + e2);

        s->va = vx * vx / s2;
        s->dva = vx * (vx * vx + 2.0 * e2) / (s2 * s2 * s2);
    }
    /* low-speed carcass damping, load-proportional */
    s->wl = 1.0 / (1.0 + (vx / ty->v_low) * (vx / ty->v_low));
    s->dwl = -2.0 * vx / (ty->v_low * ty->v_low) * s->wl * s->wl;
    s->cl = ty->c_low * s->fz / s->fnom;
    s->fxt = s->mo.fx - s->cl * s->wl * s->vsx;
    s->fyt = sm * s->mo.fy - s->cl * s->wl * s->vsy;
    /* aligning moment faded out at standstill: MF's trail and residual torque belong to a
     * rolling tyre and flip with sgn(Vx); at rest they would turn a cambered wheel (Mz n has
     * a component sin(gamma) along the spin axis) and chatter as Vx crosses zero; wm (above)
     * makes wm sgn(Vx) C1 through 0 */
    s->mz = s->wm * sm * s->mo.mz;
    /* TMeasy's bore torque is not faded: at rest it is what resists steering */
    if (s->tp)
        s->mz += sm * s->to.mb;
    /* rolling resistance (PAC2002 QSY; TMeasy: rr Fz r0), 0 at standstill */
    if (s->tp) {
        s->wr = fabs(vx) < 1.0 ? sin(0.5 * M_PI * vx) : (vx > 0.0 ? 1.0 : -1.0);
        s->Qr = s->tp->rr;
        s->my = -s->r0 * s->fz * s->Qr * s->wr;
    } else {
        const double v0 = mp->longvl > 0.0 ? mp->longvl : 16.7;
        const double vl = mp->vxlow > 0.0 ? mp->vxlow : 1.0, xr = vx / vl;
        s->wr = fabs(xr) < 1.0 ? sin(0.5 * M_PI * xr) : (xr > 0.0 ? 1.0 : -1.0);
        /* pow only where it counts (QSY4 = 0 in PAC2002 files: the term is +0 either way) */
        s->Qr = mp->qsy1 + mp->qsy2 * s->mo.fx / mp->fnomin + mp->qsy3 * fabs(vx / v0) +
                (mp->qsy4 != 0.0 ? mp->qsy4 * pow(vx / v0, 4.0) : 0.0);
        s->my = -s->r0 * s->fz * mp->lmy * s->Qr * s->wr;
        if (mp->fittyp >= 61) {
            /* MF 6.x (A48), the same direction factor */
            s->my6 = vd_mf_rolling6(mp, s->fz, s->mo.fx, vx, sm * s->gam, ty->pressure, s->dmy6);
            s->my = s->my6 * s->wr;
        }
    }
    for (int i = 0; i < 3; i++) {
        s->F[i] = s->fxt * s->ex[i] + s->fyt * s->ey[i] + s->fz * s->n[i];
        s->M[i] = s->mz * s->n[i] + s->my * s->ax[i];
    }
}

/* derivatives of the wheel centre, its velocity, the spin axis and omega (body kinematics) */
VD_AI void body_jac(const struct tyre *s, struct tyre_d *D)
{
    double Sam[9], Saw[9], SamA[9], Sax[9], Sw[9], amw[3];

    vdu_skew(Sam, s->am);
    vdu_cross3(amw, s->am, s->w);
    vdu_skew(Saw, amw);
    vdu_mat3_mul(SamA, Sam, s->A);
    vdu_skew(Sax, s->ax);
    vdu_skew(Sw, s->w);
    dv_zero(&D->Dc);
    dv_zero(&D->Dcd);
    dv_zero(&D->Dax);
    dv_zero(&D->Dw);
    {
        double I3[9];

        vdu_mat3_eye(I3);
        dv_put(D->Dc.p, 0, I3, 1.0);
        dv_put(D->Dc.p, 3, Sam, -1.0);
        dv_put(D->Dcd.p, 3, Saw, 1.0);
        dv_put(D->Dcd.v, 0, I3, 1.0);
        dv_put(D->Dcd.v, 3, SamA, -1.0);
    }
    dv_put(D->Dax.p, 3, Sax, -1.0);
    dv_put(D->Dw.p, 3, Sw, -1.0);
    dv_put(D->Dw.v, 3, s->A, 1.0);
}

/* derivatives of the contact frame, the contact point and the vertical force */
VD_AI void contact_jac(const struct tyre *s, struct tyre_d *D)
{
    double Sax[9], Sn[9], nSn[9], Sex[9], Pm[9];
    struct dvec Dt;

    vdu_skew(Sax, s->ax);
    vdu_skew(Sn, s->n);
    for (int i = 0; i < 9; i++)
        nSn[i] = -Sn[i];
    dr_dot(&D->DH, s->hd, &D->Dc);
    /* t = ax x n: delta t = -skew(n) delta ax */
    dv_mul(&Dt, nSn, &D->Dax); /* Dt = -Sn Dax: (-Sn) Dax is -(Sn Dax), rounding is odd */
    dr_dot(&D->Dsa, s->ex, &Dt);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            Pm[3 * i + j] = ((i == j ? 1.0 : 0.0) - s->ex[i] * s->ex[j]) / s->sa;
    dv_mul(&D->Dex, Pm, &Dt);
    dv_mul(&D->Dey, Sn, &D->Dex);
    vdu_skew(Sex, s->ex);
    for (int i = 0; i < 9; i++)
        Sex[i] = -Sex[i];
    dv_mul(&D->Der, Sex, &D->Dax); /* -skew(ex) delta ax */
    {
        struct dvec t2;

        dv_mul(&t2, Sax, &D->Dex);
        dv_axpy(&D->Der, 1.0, &t2);
    }
    dr_lin(&D->Drho, s->n[2] / s->sa, &D->DH, -s->rho / s->sa, &D->Dsa);
    /* l = P - x = c - x + rho er; only its position rows are used (jac_store): the order of
     * operations of DP = Dc + er Drho + rho Der, then -1 on the diagonal */
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 6; j++) {
            D->Dlp[i][j] = D->Dc.p[i][j] + s->er[i] * D->Drho.p[j];
            D->Dlp[i][j] += s->rho * D->Der.p[i][j];
        }
        D->Dlp[i][i] -= 1.0;
    }
    dr_dot(&D->DHd, s->hv, &D->Dcd);
    if (s->contact)
        dr_lin(&D->Dfz, -s->ty->kz, &D->Drho, -s->ty->cz * s->n[2], &D->DHd);
    else
        memset(&D->Dfz, 0, sizeof(D->Dfz));
}

/* derivatives of the slips and the transient slips */
VD_AI void slip_jac(const struct tyre *s, struct tyre_d *D)
{
    struct drow r1;

    dr_dot(&D->Dvx, s->ex, &D->Dcd);
    dr_dot(&r1, s->cd, &D->Dex);
    dr_axpy(&D->Dvx, 1.0, &r1);
    dr_dot(&D->Dvsy, s->ey, &D->Dcd);
    dr_dot(&r1, s->cd, &D->Dey);
    dr_axpy(&D->Dvsy, 1.0, &r1);
    dr_dot(&D->Dom, s->ax, &D->Dw);
    dr_dot(&r1, s->w, &D->Dax);
    dr_axpy(&D->Dom, 1.0, &r1);
    dr_lin(&D->Dvsx, 1.0, &D->Dvx, -s->re, &D->Dom);
    dr_axpy(&D->Dvsx, -s->om / 3.0, &D->Drho);
    dr_dot(&D->Dgam, s->n, &D->Dax);
    dr_lin(&D->Dgam, 1.0 / sqrt(1.0 - s->q * s->q), &D->Dgam, 0.0, NULL);
    dr_dot(&D->Dwn, s->n, &D->Dw); /* n is constant (the road plane, tire.h) */
    /* relaxation states and transient slips */
    dr_lin(&D->Dsk, s->dsk, &D->Dfz, 0.0, NULL);
    dr_lin(&D->Dsal, s->dsa, &D->Dfz, s->dsag, &D->Dgam);
    dr_lin(&D->Dkap, s->u / (s->sk * s->sk), &D->Dsk, 0.0, NULL);
    D->Dkap.z[0] -= 1.0 / s->sk;
    {
        const double c1 = 1.0 / (1.0 + (s->wz / s->sal) * (s->wz / s->sal));

        dr_lin(&D->Dalp, -c1 * s->wz / (s->sal * s->sal), &D->Dsal, 0.0, NULL);
        D->Dalp.z[1] += c1 / s->sal;
    }
}

/* derivatives of the force channels and of the resultant F, M */
VD_AI void force_jac(const struct tyre *s, struct tyre_d *D)
{
    const struct vd_mf_params *mp = s->mp;
    const struct vd_mf_out *mo = &s->mo, *m0 = &s->m0;
    const double sm = s->sm, wm = s->wm, dwm = s->dwm, vx = s->vx, fz = s->fz;

    /* MF partials (kappa, alpha, fz, gamma); mirrored inputs and outputs */
    dr_lin(&D->Dfx, mo->dfx[0], &D->Dkap, sm * mo->dfx[1], &D->Dalp);
    dr_axpy(&D->Dfx, mo->dfx[2], &D->Dfz);
    dr_axpy(&D->Dfx, sm * mo->dfx[3], &D->Dgam);
    dr_lin(&D->Dfy, sm * mo->dfy[0], &D->Dkap, mo->dfy[1], &D->Dalp);
    dr_axpy(&D->Dfy, sm * mo->dfy[2], &D->Dfz);
    dr_axpy(&D->Dfy, mo->dfy[3], &D->Dgam);
    /* minus (1 - wm) F(0, 0, fz, gamma) */
    dr_axpy(&D->Dfx, -(1.0 - wm) * m0->dfx[2], &D->Dfz);
    dr_axpy(&D->Dfx, -(1.0 - wm) * sm * m0->dfx[3], &D->Dgam);
    dr_axpy(&D->Dfx, dwm * m0->fx, &D->Dvx);
    dr_axpy(&D->Dfy, -(1.0 - wm) * sm * m0->dfy[2], &D->Dfz);
    dr_axpy(&D->Dfy, -(1.0 - wm) * m0->dfy[3], &D->Dgam);
    dr_axpy(&D->Dfy, dwm * sm * m0->fy, &D->Dvx);
    dr_lin(&D->Dmz, sm * mo->dmz[0], &D->Dkap, mo->dmz[1], &D->Dalp);
    dr_axpy(&D->Dmz, sm * mo->dmz[2], &D->Dfz);
    dr_axpy(&D->Dmz, mo->dmz[3], &D->Dgam);
    if (s->tp) {
        /* TMeasy's spin, turning and rolling-radius partials (re = (2 r0 + rho) / 3) */
        const struct vd_tm_out *to = &s->to;

        dr_axpy(&D->Dfx, to->dfx[VD_TM_D_OMEGA], &D->Dom);
        dr_axpy(&D->Dfx, sm * to->dfx[VD_TM_D_WN], &D->Dwn);
        dr_axpy(&D->Dfx, to->dfx[VD_TM_D_RE] / 3.0, &D->Drho);
        dr_axpy(&D->Dfy, sm * to->dfy[VD_TM_D_OMEGA], &D->Dom);
        dr_axpy(&D->Dfy, to->dfy[VD_TM_D_WN], &D->Dwn);
        dr_axpy(&D->Dfy, sm * to->dfy[VD_TM_D_RE] / 3.0, &D->Drho);
        dr_axpy(&D->Dmz, sm * to->dmz[VD_TM_D_OMEGA], &D->Dom);
        dr_axpy(&D->Dmz, to->dmz[VD_TM_D_WN], &D->Dwn);
        dr_axpy(&D->Dmz, sm * to->dmz[VD_TM_D_RE] / 3.0, &D->Drho);
    }
    dr_lin(&D->Dmz, wm, &D->Dmz, 0.0, NULL);
    dr_axpy(&D->Dmz, sm * mo->mz * dwm, &D->Dvx);
    if (s->tp) {
        /* + sm MB (not faded), mirrored inputs as above */
        const double *b = s->to.dmb;

        dr_axpy(&D->Dmz, sm * b[VD_TM_D_KAPPA], &D->Dkap);
        dr_axpy(&D->Dmz, b[VD_TM_D_ALPHA], &D->Dalp);
        dr_axpy(&D->Dmz, sm * b[VD_TM_D_FZ], &D->Dfz);
        dr_axpy(&D->Dmz, b[VD_TM_D_GAMMA], &D->Dgam);
        dr_axpy(&D->Dmz, sm * b[VD_TM_D_OMEGA], &D->Dom);
        dr_axpy(&D->Dmz, b[VD_TM_D_WN], &D->Dwn);
        dr_axpy(&D->Dmz, sm * b[VD_TM_D_RE] / 3.0, &D->Drho);
    }
    /* rolling resistance */
    if (s->tp) {
        const double dwr = fabs(vx) < 1.0 ? 0.5 * M_PI * cos(0.5 * M_PI * vx) : 0.0;

        dr_lin(&D->Dmy, -s->r0 * s->Qr * s->wr, &D->Dfz, -s->r0 * fz * s->Qr * dwr, &D->Dvx);
    } else {
        const double Q = s->Qr, wr = s->wr;
        const double v0 = mp->longvl > 0.0 ? mp->longvl : 16.7;
        const double vl = mp->vxlow > 0.0 ? mp->vxlow : 1.0;
        const double sgn = vx > 0.0 ? 1.0 : (vx < 0.0 ? -1.0 : 0.0), xr = vx / vl;
        const double dwr = fabs(xr) < 1.0 ? 0.5 * M_PI / vl * cos(0.5 * M_PI * xr) : 0.0;
        const double dQdv =
            mp->qsy3 * sgn / v0 + (mp->qsy4 != 0.0 ? 4.0 * mp->qsy4 * pow(vx / v0, 3.0) / v0 : 0.0);
        const double cm = -s->r0 * mp->lmy;

        if (mp->fittyp >= 61) {
            const double *dm = s->dmy6;

            dr_lin(&D->Dmy, wr * dm[0], &D->Dfz, wr * dm[1], &D->Dfx);
            dr_axpy(&D->Dmy, wr * dm[2] + s->my6 * dwr, &D->Dvx);
            dr_axpy(&D->Dmy, wr * dm[3] * s->sm, &D->Dgam);
        } else {
            dr_lin(&D->Dmy, cm * Q * wr, &D->Dfz, cm * fz * wr * mp->qsy2 / mp->fnomin, &D->Dfx);
            dr_axpy(&D->Dmy, cm * fz * (dQdv * wr + Q * dwr), &D->Dvx);
        }
    }
    /* low-speed damping */
    {
        const double cf = s->ty->c_low / s->fnom, wl = s->wl, cl = s->cl;

        D->Dfxt = D->Dfx;
        dr_axpy(&D->Dfxt, -cf * wl * s->vsx, &D->Dfz);
        dr_axpy(&D->Dfxt, -cl * wl, &D->Dvsx);
        dr_axpy(&D->Dfxt, -cl * s->vsx * s->dwl, &D->Dvx);
        D->Dfyt = D->Dfy;
        dr_axpy(&D->Dfyt, -cf * wl * s->vsy, &D->Dfz);
        dr_axpy(&D->Dfyt, -cl * wl, &D->Dvsy);
        dr_axpy(&D->Dfyt, -cl * s->vsy * s->dwl, &D->Dvx);
    }
    /* F = Fx ex + Fy ey + Fz n, M = Mz n + My ax */
    dv_zero(&D->DF);
    dv_outer(&D->DF, s->ex, &D->Dfxt);
    dv_axpy(&D->DF, s->fxt, &D->Dex);
    dv_outer(&D->DF, s->ey, &D->Dfyt);
    dv_axpy(&D->DF, s->fyt, &D->Dey);
    dv_outer(&D->DF, s->n, &D->Dfz);
    dv_zero(&D->DM);
    dv_outer(&D->DM, s->n, &D->Dmz);
    dv_outer(&D->DM, s->ax, &D->Dmy);
    dv_axpy(&D->DM, s->my, &D->Dax);
}

/* derivatives of the relaxation equations */
VD_AI void relax_jac(const struct tyre *s, struct tyre_d *D)
{
    const double va = s->va, dva = s->dva, u = s->u, wz = s->wz, sk = s->sk, sal = s->sal;

    dr_lin(&D->Dgu, 1.0, &D->Dvsx, -dva * u / sk, &D->Dvx);
    dr_axpy(&D->Dgu, va * u / (sk * sk), &D->Dsk);
    D->Dgu.z[0] -= va / sk;
    dr_lin(&D->Dgw, 1.0, &D->Dvsy, -dva * wz / sal, &D->Dvx);
    dr_axpy(&D->Dgw, va * wz / (sal * sal), &D->Dsal);
    D->Dgw.z[1] -= va / sal;
}

/* store: Gp, Gv (2x6 row-major), Gz (2x2), Jz (6x2 column-major), and the body rows through
 * assemble_side with one column group */
VD_AI void jac_store(const struct vd_model *m, struct vd_data *d, int t, int b,
                     const struct tyre *s, const struct tyre_d *D, double *h)
{
    {
        double *Gp = d->Gp + 12 * t, *Gv = d->Gv + 12 * t, *Gz = d->Gz + 4 * t;
        double *Jz = d->Jz + 12 * t, Sl[9];

        for (int j = 0; j < 6; j++) {
            Gp[j] = D->Dgu.p[j];
            Gp[6 + j] = D->Dgw.p[j];
            Gv[j] = D->Dgu.v[j];
            Gv[6 + j] = D->Dgw.v[j];
        }
        Gz[0] = D->Dgu.z[0];
        Gz[1] = D->Dgu.z[1];
        Gz[2] = D->Dgw.z[0];
        Gz[3] = D->Dgw.z[1];
        /* dh/dz: [dF/dz; A^T (skew(l) dF/dz + dM/dz)] */
        vdu_skew(Sl, s->l);
        for (int j = 0; j < 2; j++) {
            double dFz[3] = {D->DF.z[0][j], D->DF.z[1][j], D->DF.z[2][j]}, lm[3], mm[3];

            vdu_mat3_vec(lm, Sl, dFz);
            for (int i = 0; i < 3; i++)
                mm[i] = lm[i] + D->DM.z[i][j];
            memcpy(Jz + 6 * j, dFz, sizeof(dFz));
            vdu_mat3t_vec(Jz + 6 * j + 3, s->A, mm);
        }
    }
    {
        const int blk[2] = {m->blk_diag[b], -1};
        dmat DfP, DtP, DfV, DtV, Dlm;
        struct side sd = {b, blk, 0, 1.0, s->l, (const dmat *)&Dlm};

        /* one column group (ng = 1): assemble_side reads columns 0..5 only */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 6; j++) {
                DfP[i][j] = D->DF.p[i][j];
                DtP[i][j] = D->DM.p[i][j];
                DfV[i][j] = D->DF.v[i][j];
                DtV[i][j] = D->DM.v[i][j];
                Dlm[i][j] = D->Dlp[i][j];
            }
        assemble_side(d, h, true, 1, &sd, s->F, s->M, DfP, DtP, DfV, DtV);
    }
}

/* the per-tyre results in d->tire_out */
VD_AI void outputs(const struct tyre *s, double *out)
{
    out[VD_TO_FX] = s->fxt;
    out[VD_TO_FY] = s->fyt;
    out[VD_TO_FZ] = s->fz;
    out[VD_TO_MZ] = s->mz;
    out[VD_TO_MY] = s->my;
    out[VD_TO_KAPPA] = s->kap;
    out[VD_TO_ALPHA] = s->alp;
    out[VD_TO_GAMMA] = s->gam;
    out[VD_TO_VX] = s->vx;
    out[VD_TO_VSX] = s->vsx;
    out[VD_TO_VSY] = s->vsy;
    out[VD_TO_OMEGA] = s->om;
    out[VD_TO_RHO] = s->rho;
    out[VD_TO_DEFL] = s->defl;
    out[VD_TO_PX] = s->P[0];
    out[VD_TO_PY] = s->P[1];
    out[VD_TO_ROADZ] = s->zr;
    out[VD_TO_ROADSL] = -(s->hrow[0] * s->ex[0] + s->hrow[1] * s->ex[1]) /
                        sqrt(s->ex[0] * s->ex[0] + s->ex[1] * s->ex[1]);
}

VD_CLONES void vd_tire_eval(const struct vd_model *m, struct vd_data *d, int t, const double *z,
                            double *h, double *g, bool jac)
{
    const struct vd_tire *ty = &m->tire[t];
    const int k = ty->marker, b = m->marker[k].body, zo = ty->zoff;
    const double *R = d->mR + 9 * k;
    struct tyre s;

    s.ty = ty;
    s.mp = ty->model == VD_TIRE_TMEASY ? NULL : &m->mf[ty->mf];
    s.tp = ty->model == VD_TIRE_TMEASY ? &m->tm[ty->mf] : NULL;
    s.fnom = s.tp ? s.tp->pn : s.mp->fnomin;
    s.A = d->A + 9 * b;
    s.am = d->ma + 3 * k;
    s.c = d->mp + 3 * k;
    s.cd = d->mpd + 3 * k;
    s.w = d->mw + 3 * k;
    s.ax[0] = R[0];
    s.ax[1] = R[3];
    s.ax[2] = R[6];
    s.sm = ty->mirror ? -1.0 : 1.0;
    s.r0 = ty->r0;
    s.u = z[zo];
    s.wz = z[zo + 1];

    contact_eval(m, &s);
    slip_eval(&s);
    force_eval(m, &s);
    g[zo] = s.vsx - s.va * s.u / s.sk;
    g[zo + 1] = s.vsy - s.va * s.wz / s.sal;

    if (jac) {
        struct tyre_d D;

        body_jac(&s, &D);
        contact_jac(&s, &D);
        slip_jac(&s, &D);
        force_jac(&s, &D);
        relax_jac(&s, &D);
        jac_store(m, d, t, b, &s, &D, h);
    } else {
        const int blk[2] = {m->blk_diag[b], -1};
        struct side sd = {b, blk, 0, 1.0, s.l, &dzero};

        assemble_side(d, h, false, 2, &sd, s.F, s.M, dzero, dzero, dzero, dzero);
    }
    outputs(&s, d->tire_out + VD_TIRE_NOUT * t);
}

const char *vd_tire_model_name(const struct vd_model *m, int t)
{
    if (m->tire[t].model == VD_TIRE_TMEASY)
        return "TMeasy";
    const int f = m->mf[m->tire[t].mf].fittyp;

    return f == 62 ? "MF 6.2" : f == 61 ? "MF 6.1" : "MF 5.2";
}
