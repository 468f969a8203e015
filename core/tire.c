/* core/tire.c - the tyre element (see tire.h for the equations). Derivatives are carried
 * forward through every intermediate as rows over the wheel body's perturbation coordinates
 * (p: delta x, delta pi; v: delta v, delta omega) and the tyre's two states (z). */
#include "tire.h"

#include <math.h>
#include <string.h>

#include "elem.h"
#include "eval.h"
#include "tire_mf.h"
#include "vdmath.h"

#define SIGMA_MIN 0.01 /* [m] relaxation lengths never vanish (they scale with Fz) */

/* derivative of a scalar / of a 3-vector */
struct drow {
    double p[6], v[6], z[2];
};

struct dvec {
    double p[3][6], v[3][6], z[3][2];
};

static void dv_zero(struct dvec *x)
{
    memset(x, 0, sizeof(*x));
}

/* out = M x (M row-major 3x3) */
static void dv_mul(struct dvec *out, const double M[9], const struct dvec *x)
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
static void dv_axpy(struct dvec *out, double s, const struct dvec *x)
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
static void dv_outer(struct dvec *out, const double a[3], const struct drow *r)
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
static void dr_dot(struct drow *out, const double a[3], const struct dvec *x)
{
    for (int j = 0; j < 6; j++) {
        out->p[j] = a[0] * x->p[0][j] + a[1] * x->p[1][j] + a[2] * x->p[2][j];
        out->v[j] = a[0] * x->v[0][j] + a[1] * x->v[1][j] + a[2] * x->v[2][j];
    }
    for (int j = 0; j < 2; j++)
        out->z[j] = a[0] * x->z[0][j] + a[1] * x->z[1][j] + a[2] * x->z[2][j];
}

/* out = sa * a + sb * b */
static void dr_lin(struct drow *out, double sa, const struct drow *a, double sb,
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
static void dr_axpy(struct drow *out, double s, const struct drow *a)
{
    for (int j = 0; j < 6; j++) {
        out->p[j] += s * a->p[j];
        out->v[j] += s * a->v[j];
    }
    for (int j = 0; j < 2; j++)
        out->z[j] += s * a->z[j];
}

/* put a 3x3 block into the p (or v) columns 0..2 (c = 0) or 3..5 (c = 3) */
static void dv_put(double D[3][6], int c, const double M[9], double s)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            D[i][c + j] += s * M[3 * i + j];
}

/* relaxation lengths of tire_mf.h with their load and inclination derivatives */
static void relaxation(const struct vd_mf_params *p, double fz, double gamma, double r0, double *sk,
                       double *dsk_dfz, double *sa, double *dsa_dfz, double *dsa_dg)
{
    const double fz0 = p->fnomin, fz0p = p->lfzo * fz0;
    const double dfz = (fz - fz0p) / fz0p, ddfz = 1.0 / fz0p;

    if (!(p->flags & VD_MF_HAS_RELAX)) {
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

void vd_tire_eval(const struct vd_model *m, struct vd_data *d, int t, const double *z, double *h,
                  double *g, bool jac)
{
    const struct vd_tire *ty = &m->tire[t];
    const struct vd_mf_params *mp = &m->mf[ty->mf];
    const int k = ty->marker, b = m->marker[k].body, zo = ty->zoff;
    const double *A = d->A + 9 * b, *am = d->ma + 3 * k, *c = d->mp + 3 * k;
    const double *cd = d->mpd + 3 * k, *R = d->mR + 9 * k, *w = d->mw + 3 * k;
    const double ax[3] = {R[0], R[3], R[6]};
    const double sm = ty->mirror ? -1.0 : 1.0, r0 = ty->r0;
    const double u = z[zo], wz = z[zo + 1];
    double grad[2], zr, hrow[3], nn, n[3], H, tv[3], sa, ex[3], ey[3], er[3], rho, P[3], l[3];
    double defl, Hd, fz, vx, vsy, om, re, vsx, gam, sk, dsk, sal, dsa, dsag, kap, alp, q;
    double va, dva, wl, dwl, wm, dwm, cl, fxt, fyt, mz, my, F[3], M[3], Qr, wr;
    double *out = d->tire_out + VD_TIRE_NOUT * t;
    struct vd_mf_in in;
    struct vd_mf_out mo, m0;
    bool contact;

    /* road plane at the wheel centre */
    zr = vd_road_height(m, c[0], c[1], grad);
    hrow[0] = -grad[0];
    hrow[1] = -grad[1];
    hrow[2] = 1.0;
    nn = sqrt(vdu_dot3(hrow, hrow));
    vdu_scale3(n, 1.0 / nn, hrow);
    H = c[2] - zr;
    /* contact frame */
    vdu_cross3(tv, ax, n);
    sa = sqrt(vdu_dot3(tv, tv));
    vdu_scale3(ex, 1.0 / sa, tv);
    vdu_cross3(ey, n, ex);
    vdu_cross3(er, ax, ex);
    rho = H * n[2] / sa;
    for (int i = 0; i < 3; i++) {
        P[i] = c[i] + rho * er[i];
        l[i] = am[i] + rho * er[i];
    }
    defl = r0 - rho;
    Hd = vdu_dot3(hrow, cd);
    fz = ty->kz * defl - ty->cz * n[2] * Hd;
    contact = fz > 0.0;
    if (!contact)
        fz = 0.0;
    /* slip */
    vx = vdu_dot3(cd, ex);
    vsy = vdu_dot3(cd, ey);
    om = vdu_dot3(w, ax);
    re = (2.0 * r0 + rho) / 3.0;
    vsx = vx - om * re;
    q = vdu_dot3(ax, n);
    q = q > 1.0 ? 1.0 : (q < -1.0 ? -1.0 : q);
    gam = asin(q);
    relaxation(mp, fz, gam, r0, &sk, &dsk, &sal, &dsa, &dsag);
    kap = -u / sk;
    alp = atan(wz / sal);
    in.kappa = kap;
    in.alpha = sm * alp;
    in.gamma = sm * gam;
    in.fz = fz;
    in.mu = m->road.mu;
    in.vx = vx;
    vd_mf_eval(mp, &in, &mo);
    /* standstill: MF's shifts (ply steer, conicity, camber thrust, SVx) are forces of a
     * rolling tyre; at rest they would push a parked vehicle along (with toe, the lateral
     * ones have a longitudinal component) and the carcass states would never settle. The
     * zero-slip force is faded in with wm = Vx^2 / (Vx^2 + v_low^2), as Mz below: at rest
     * the tyre is a pure carcass spring, F(kappa = alpha = 0) = 0 */
    wm = vx * vx / (vx * vx + ty->v_low * ty->v_low);
    dwm = 2.0 * vx * ty->v_low * ty->v_low /
          ((vx * vx + ty->v_low * ty->v_low) * (vx * vx + ty->v_low * ty->v_low));
    {
        struct vd_mf_in i0 = in;

        i0.kappa = 0.0;
        i0.alpha = 0.0;
        vd_mf_eval_forces(mp, &i0, &m0);
        mo.fx -= (1.0 - wm) * m0.fx;
        mo.fy -= (1.0 - wm) * m0.fy;
    }
    /* smooth |Vx|, exactly 0 at standstill */
    {
        const double e2 = VD_TIRE_VEPS * VD_TIRE_VEPS, s2 = sqrt(vx * vx + e2);

        va = vx * vx / s2;
        dva = vx * (vx * vx + 2.0 * e2) / (s2 * s2 * s2);
    }
    g[zo] = vsx - va * u / sk;
    g[zo + 1] = vsy - va * wz / sal;
    /* low-speed carcass damping, load-proportional */
    wl = 1.0 / (1.0 + (vx / ty->v_low) * (vx / ty->v_low));
    dwl = -2.0 * vx / (ty->v_low * ty->v_low) * wl * wl;
    cl = ty->c_low * fz / mp->fnomin;
    fxt = mo.fx - cl * wl * vsx;
    fyt = sm * mo.fy - cl * wl * vsy;
    /* aligning moment faded out at standstill: MF's trail and residual torque belong to a
     * rolling tyre and flip with sgn(Vx); at rest they would turn a cambered wheel (Mz n has
     * a component sin(gamma) along the spin axis) and chatter as Vx crosses zero; wm (above)
     * makes wm sgn(Vx) C1 through 0 */
    mz = wm * sm * mo.mz;
    /* rolling resistance (PAC2002 QSY), 0 at standstill */
    {
        const double v0 = mp->longvl > 0.0 ? mp->longvl : 16.7;
        const double vl = mp->vxlow > 0.0 ? mp->vxlow : 1.0, xr = vx / vl;
        wr = fabs(xr) < 1.0 ? sin(0.5 * M_PI * xr) : (xr > 0.0 ? 1.0 : -1.0);
        Qr = mp->qsy1 + mp->qsy2 * mo.fx / mp->fnomin + mp->qsy3 * fabs(vx / v0) +
             mp->qsy4 * pow(vx / v0, 4.0);
        my = -r0 * fz * mp->lmy * Qr * wr;
    }
    for (int i = 0; i < 3; i++) {
        F[i] = fxt * ex[i] + fyt * ey[i] + fz * n[i];
        M[i] = mz * n[i] + my * ax[i];
    }

    if (jac) {
        const double Q = Qr;
        const double v0 = mp->longvl > 0.0 ? mp->longvl : 16.7;
        const double vl = mp->vxlow > 0.0 ? mp->vxlow : 1.0;
        double Sam[9], Saw[9], SamA[9], Sax[9], Sw[9], Sn[9], Sex[9], Pm[9];
        double amw[3];
        struct dvec Dc, Dcd, Dax, Dw, Dt, Dex, Dey, Der, DP, Dl, DF, DM;
        struct drow DH, Dsa, Drho, DHd, Dfz, Dvx, Dvsy, Dom, Dvsx, Dgam, Dsk, Dsal, Dkap, Dalp;
        struct drow Dfx, Dfy, Dmz, Dmy, Dfxt, Dfyt, Dgu, Dgw, r1;

        /* body kinematics */
        vdu_skew(Sam, am);
        vdu_cross3(amw, am, w);
        vdu_skew(Saw, amw);
        vdu_mat3_mul(SamA, Sam, A);
        vdu_skew(Sax, ax);
        vdu_skew(Sw, w);
        vdu_skew(Sn, n);
        dv_zero(&Dc);
        dv_zero(&Dcd);
        dv_zero(&Dax);
        dv_zero(&Dw);
        {
            double I3[9];

            vdu_mat3_eye(I3);
            dv_put(Dc.p, 0, I3, 1.0);
            dv_put(Dc.p, 3, Sam, -1.0);
            dv_put(Dcd.p, 3, Saw, 1.0);
            dv_put(Dcd.v, 0, I3, 1.0);
            dv_put(Dcd.v, 3, SamA, -1.0);
        }
        dv_put(Dax.p, 3, Sax, -1.0);
        dv_put(Dw.p, 3, Sw, -1.0);
        dv_put(Dw.v, 3, A, 1.0);
        /* contact frame */
        dr_dot(&DH, hrow, &Dc);
        /* t = ax x n: delta t = -skew(n) delta ax */
        dv_mul(&Dt, Sn, &Dax);
        dv_axpy(&Dt, -2.0, &Dt); /* Dt = -Sn Dax */
        dr_dot(&Dsa, ex, &Dt);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                Pm[3 * i + j] = ((i == j ? 1.0 : 0.0) - ex[i] * ex[j]) / sa;
        dv_mul(&Dex, Pm, &Dt);
        dv_mul(&Dey, Sn, &Dex);
        vdu_skew(Sex, ex);
        dv_mul(&Der, Sex, &Dax);
        dv_axpy(&Der, -2.0, &Der); /* -skew(ex) delta ax */
        {
            struct dvec t2;

            dv_mul(&t2, Sax, &Dex);
            dv_axpy(&Der, 1.0, &t2);
        }
        dr_lin(&Drho, n[2] / sa, &DH, -rho / sa, &Dsa);
        DP = Dc;
        dv_outer(&DP, er, &Drho);
        dv_axpy(&DP, rho, &Der);
        Dl = DP;
        for (int i = 0; i < 3; i++)
            Dl.p[i][i] -= 1.0; /* l = P - x */
        dr_dot(&DHd, hrow, &Dcd);
        if (contact)
            dr_lin(&Dfz, -ty->kz, &Drho, -ty->cz * n[2], &DHd);
        else
            memset(&Dfz, 0, sizeof(Dfz));
        /* slip */
        dr_dot(&Dvx, ex, &Dcd);
        dr_dot(&r1, cd, &Dex);
        dr_axpy(&Dvx, 1.0, &r1);
        dr_dot(&Dvsy, ey, &Dcd);
        dr_dot(&r1, cd, &Dey);
        dr_axpy(&Dvsy, 1.0, &r1);
        dr_dot(&Dom, ax, &Dw);
        dr_dot(&r1, w, &Dax);
        dr_axpy(&Dom, 1.0, &r1);
        dr_lin(&Dvsx, 1.0, &Dvx, -re, &Dom);
        dr_axpy(&Dvsx, -om / 3.0, &Drho);
        dr_dot(&Dgam, n, &Dax);
        dr_lin(&Dgam, 1.0 / sqrt(1.0 - q * q), &Dgam, 0.0, NULL);
        /* relaxation states and transient slips */
        dr_lin(&Dsk, dsk, &Dfz, 0.0, NULL);
        dr_lin(&Dsal, dsa, &Dfz, dsag, &Dgam);
        dr_lin(&Dkap, u / (sk * sk), &Dsk, 0.0, NULL);
        Dkap.z[0] -= 1.0 / sk;
        {
            const double c1 = 1.0 / (1.0 + (wz / sal) * (wz / sal));

            dr_lin(&Dalp, -c1 * wz / (sal * sal), &Dsal, 0.0, NULL);
            Dalp.z[1] += c1 / sal;
        }
        /* MF partials (kappa, alpha, fz, gamma); mirrored inputs and outputs */
        dr_lin(&Dfx, mo.dfx[0], &Dkap, sm * mo.dfx[1], &Dalp);
        dr_axpy(&Dfx, mo.dfx[2], &Dfz);
        dr_axpy(&Dfx, sm * mo.dfx[3], &Dgam);
        dr_lin(&Dfy, sm * mo.dfy[0], &Dkap, mo.dfy[1], &Dalp);
        dr_axpy(&Dfy, sm * mo.dfy[2], &Dfz);
        dr_axpy(&Dfy, mo.dfy[3], &Dgam);
        /* minus (1 - wm) F(0, 0, fz, gamma) */
        dr_axpy(&Dfx, -(1.0 - wm) * m0.dfx[2], &Dfz);
        dr_axpy(&Dfx, -(1.0 - wm) * sm * m0.dfx[3], &Dgam);
        dr_axpy(&Dfx, dwm * m0.fx, &Dvx);
        dr_axpy(&Dfy, -(1.0 - wm) * sm * m0.dfy[2], &Dfz);
        dr_axpy(&Dfy, -(1.0 - wm) * m0.dfy[3], &Dgam);
        dr_axpy(&Dfy, dwm * sm * m0.fy, &Dvx);
        dr_lin(&Dmz, sm * mo.dmz[0], &Dkap, mo.dmz[1], &Dalp);
        dr_axpy(&Dmz, sm * mo.dmz[2], &Dfz);
        dr_axpy(&Dmz, mo.dmz[3], &Dgam);
        dr_lin(&Dmz, wm, &Dmz, 0.0, NULL);
        dr_axpy(&Dmz, sm * mo.mz * dwm, &Dvx);
        /* rolling resistance */
        {
            const double sgn = vx > 0.0 ? 1.0 : (vx < 0.0 ? -1.0 : 0.0), xr = vx / vl;
            const double dwr = fabs(xr) < 1.0 ? 0.5 * M_PI / vl * cos(0.5 * M_PI * xr) : 0.0;
            const double dQdv = mp->qsy3 * sgn / v0 + 4.0 * mp->qsy4 * pow(vx / v0, 3.0) / v0;
            const double cm = -r0 * mp->lmy;

            dr_lin(&Dmy, cm * Q * wr, &Dfz, cm * fz * wr * mp->qsy2 / mp->fnomin, &Dfx);
            dr_axpy(&Dmy, cm * fz * (dQdv * wr + Q * dwr), &Dvx);
        }
        /* low-speed damping */
        {
            const double cf = ty->c_low / mp->fnomin;

            Dfxt = Dfx;
            dr_axpy(&Dfxt, -cf * wl * vsx, &Dfz);
            dr_axpy(&Dfxt, -cl * wl, &Dvsx);
            dr_axpy(&Dfxt, -cl * vsx * dwl, &Dvx);
            Dfyt = Dfy;
            dr_axpy(&Dfyt, -cf * wl * vsy, &Dfz);
            dr_axpy(&Dfyt, -cl * wl, &Dvsy);
            dr_axpy(&Dfyt, -cl * vsy * dwl, &Dvx);
        }
        /* F = Fx ex + Fy ey + Fz n, M = Mz n + My ax */
        dv_zero(&DF);
        dv_outer(&DF, ex, &Dfxt);
        dv_axpy(&DF, fxt, &Dex);
        dv_outer(&DF, ey, &Dfyt);
        dv_axpy(&DF, fyt, &Dey);
        dv_outer(&DF, n, &Dfz);
        dv_zero(&DM);
        dv_outer(&DM, n, &Dmz);
        dv_outer(&DM, ax, &Dmy);
        dv_axpy(&DM, my, &Dax);
        /* relaxation equations */
        dr_lin(&Dgu, 1.0, &Dvsx, -dva * u / sk, &Dvx);
        dr_axpy(&Dgu, va * u / (sk * sk), &Dsk);
        Dgu.z[0] -= va / sk;
        dr_lin(&Dgw, 1.0, &Dvsy, -dva * wz / sal, &Dvx);
        dr_axpy(&Dgw, va * wz / (sal * sal), &Dsal);
        Dgw.z[1] -= va / sal;
        /* store: Gp, Gv (2x6 row-major), Gz (2x2), Jz (6x2 column-major) */
        {
            double *Gp = d->Gp + 12 * t, *Gv = d->Gv + 12 * t, *Gz = d->Gz + 4 * t;
            double *Jz = d->Jz + 12 * t, Sl[9];

            for (int j = 0; j < 6; j++) {
                Gp[j] = Dgu.p[j];
                Gp[6 + j] = Dgw.p[j];
                Gv[j] = Dgu.v[j];
                Gv[6 + j] = Dgw.v[j];
            }
            Gz[0] = Dgu.z[0];
            Gz[1] = Dgu.z[1];
            Gz[2] = Dgw.z[0];
            Gz[3] = Dgw.z[1];
            /* dh/dz: [dF/dz; A^T (skew(l) dF/dz + dM/dz)] */
            vdu_skew(Sl, l);
            for (int j = 0; j < 2; j++) {
                double dFz[3] = {DF.z[0][j], DF.z[1][j], DF.z[2][j]}, lm[3], mm[3];

                vdu_mat3_vec(lm, Sl, dFz);
                for (int i = 0; i < 3; i++)
                    mm[i] = lm[i] + DM.z[i][j];
                memcpy(Jz + 6 * j, dFz, sizeof(dFz));
                vdu_mat3t_vec(Jz + 6 * j + 3, A, mm);
            }
        }
        /* body rows: through assemble_side with one column group */
        {
            const int blk[2] = {m->blk_diag[b], -1};
            dmat DfP, DtP, DfV, DtV, Dlm;
            struct side sd = {b, blk, 0, 1.0, l, (const dmat *)&Dlm};

            memset(DfP, 0, sizeof(DfP));
            memset(DtP, 0, sizeof(DtP));
            memset(DfV, 0, sizeof(DfV));
            memset(DtV, 0, sizeof(DtV));
            memset(Dlm, 0, sizeof(Dlm));
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 6; j++) {
                    DfP[i][j] = DF.p[i][j];
                    DtP[i][j] = DM.p[i][j];
                    DfV[i][j] = DF.v[i][j];
                    DtV[i][j] = DM.v[i][j];
                    Dlm[i][j] = Dl.p[i][j];
                }
            assemble_side(d, h, true, 2, &sd, F, M, DfP, DtP, DfV, DtV);
        }
    } else {
        const int blk[2] = {m->blk_diag[b], -1};
        struct side sd = {b, blk, 0, 1.0, l, &dzero};

        assemble_side(d, h, false, 2, &sd, F, M, dzero, dzero, dzero, dzero);
    }
    out[VD_TO_FX] = fxt;
    out[VD_TO_FY] = fyt;
    out[VD_TO_FZ] = fz;
    out[VD_TO_MZ] = mz;
    out[VD_TO_MY] = my;
    out[VD_TO_KAPPA] = kap;
    out[VD_TO_ALPHA] = alp;
    out[VD_TO_GAMMA] = gam;
    out[VD_TO_VX] = vx;
    out[VD_TO_VSX] = vsx;
    out[VD_TO_VSY] = vsy;
    out[VD_TO_OMEGA] = om;
    out[VD_TO_RHO] = rho;
    out[VD_TO_DEFL] = defl;
    out[VD_TO_PX] = P[0];
    out[VD_TO_PY] = P[1];
}
