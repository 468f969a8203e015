/* core/elements.c - point-to-point elements, inputs at markers, gravity and gyroscopic
 * terms: elements.h. The perturbation notation is in elem.h. */
#include "elements.h"

#include <math.h>
#include <string.h>

#include "elem.h"
#include "vdmath.h"

/* ---- point-to-point elements --------------------------------------------------------- */

/* Jacobian blocks of a p2p element in 3x3 form. With Delta = p1 - p2 = L e, P = (I - e e^T)
 * / L, v = p1' - p2', L' = e . v, f = -Fc e on body 2 at a2 and -f on body 1 at a1:
 *   delta f = G delta Delta + g (e . delta v),  G = -(F_L e e^T + F_L' e (P v)^T + Fc P),
 *   g = -F_L' e; delta Delta = dx1 - [a1] dpi1 - dx2 + [a2] dpi2; the position part of
 *   delta v is [a1 x w1] dpi1 - [a2 x w2] dpi2, its velocity part dv1 - [a1] A1 domega1 - dv2
 *   + [a2] A2 domega2, and e^T [s] = (e x s)^T.
 * Body b (sigma = -1 for body 1, +1 for body 2) gets h_t = sigma f, h_r = sigma A^T [a] f:
 *   delta h_r = A^T [a] sigma delta f + A^T (sigma [f] [a] + [m]) dpi_b, m = sigma a x f. */
static void p2p_jac(const struct vd_model *m, struct vd_data *d, int e, const double eu[3],
                    double L, const double wv[3], double Fc, double FL, double FLd,
                    const double fG[3])
{
    const struct vd_p2p *p = &m->p2p[e];
    const int *blk = m->p2p_blk + 4 * e;
    const int mk[2] = {p->mk[0], p->mk[1]};
    const int body[2] = {m->marker[mk[0]].body, m->marker[mk[1]].body};
    double Pm[9], Pv[3], G[9], g[3], GX[2][9], r[2][3], ea[2][3];
    double Sf[9];

    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            Pm[3 * i + j] = ((i == j ? 1.0 : 0.0) - eu[i] * eu[j]) / L;
    vdu_mat3_vec(Pv, Pm, wv);
    for (int i = 0; i < 3; i++) {
        g[i] = -FLd * eu[i];
        for (int j = 0; j < 3; j++)
            G[3 * i + j] = -(FL * eu[i] * eu[j] + FLd * eu[i] * Pv[j] + Fc * Pm[3 * i + j]);
    }
    vdu_skew(Sf, fG);
    /* per side: GX = dDelta/dpi part G [a] (sign below), r = e x (a x w), ea = e x a */
    for (int sd = 0; sd < 2; sd++) {
        const double *a = d->ma + 3 * mk[sd], *w = d->mw + 3 * mk[sd];
        double aw[3];

        m3_skew(GX[sd], G, a);
        vdu_cross3(aw, a, w);
        vdu_cross3(r[sd], eu, aw);
        vdu_cross3(ea[sd], eu, a);
    }
    for (int sd = 0; sd < 2; sd++) {
        const double sigma = sd ? 1.0 : -1.0, *a = d->ma + 3 * mk[sd];
        const double *A;
        double Ba[9], Bg[3], mb[3], Sm[9], tmp[9], W[9];

        if (body[sd] == VD_GROUND)
            continue;
        A = d->A + 9 * body[sd];
        /* Ba = sigma A^T [a]; Bg = Ba g */
        vdu_skew(tmp, a);
        vdu_mat3t_mul(Ba, A, tmp);
        for (int i = 0; i < 9; i++)
            Ba[i] *= sigma;
        vdu_mat3_vec(Bg, Ba, g);
        vdu_cross3(mb, a, fG);
        vdu_scale3(mb, sigma, mb);
        vdu_skew(Sm, mb);
        for (int cs = 0; cs < 2; cs++) {
            const int bk = blk[2 * sd + cs];
            double *J, *V, colX[9], colP[9], rowO[3], rowV[3];
            const double sc = cs ? -1.0 : 1.0; /* x2 = -x1 */
            const double *Ac;

            if (bk < 0)
                continue;
            J = d->Jp + 36 * bk;
            V = d->Jvb + 36 * bk;
            Ac = d->A + 9 * body[cs];
            /* delta f per column group of body cs: X sc G; P: -sc G [a_cs] + sc g r_cs^T */
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) {
                    colX[3 * i + j] = sc * G[3 * i + j];
                    colP[3 * i + j] = sc * (-GX[cs][3 * i + j] + g[i] * r[cs][j]);
                }
            /* velocities: e . dv = sc (dv - [a] A domega) -> rows sc e^T, -sc (A^T (e x a))^T */
            vdu_mat3t_vec(rowO, Ac, ea[cs]);
            for (int j = 0; j < 3; j++) {
                rowV[j] = sc * eu[j];
                rowO[j] = -sc * rowO[j];
            }
            /* translation rows: sigma delta f */
            for (int j = 0; j < 3; j++)
                for (int i = 0; i < 3; i++) {
                    VD_B6(J, i, j) += sigma * colX[3 * i + j];
                    VD_B6(J, i, 3 + j) += sigma * colP[3 * i + j];
                    VD_B6(V, i, j) += sigma * g[i] * rowV[j];
                    VD_B6(V, i, 3 + j) += sigma * g[i] * rowO[j];
                }
            /* rotation rows: Ba delta f (+ own: A^T (sigma [f] [a] + [m]) dpi) */
            vdu_mat3_mul(W, Ba, colX);
            vdu_mat3_mul(tmp, Ba, colP);
            if (cs == sd) {
                double Sfa[9], own[9];

                m3_skew(Sfa, Sf, a);
                for (int i = 0; i < 9; i++)
                    Sfa[i] = sigma * Sfa[i] + Sm[i];
                vdu_mat3t_mul(own, A, Sfa);
                for (int i = 0; i < 9; i++)
                    tmp[i] += own[i];
            }
            for (int j = 0; j < 3; j++)
                for (int i = 0; i < 3; i++) {
                    VD_B6(J, 3 + i, j) += W[3 * i + j];
                    VD_B6(J, 3 + i, 3 + j) += tmp[3 * i + j];
                    VD_B6(V, 3 + i, j) += Bg[i] * rowV[j];
                    VD_B6(V, 3 + i, 3 + j) += Bg[i] * rowO[j];
                }
        }
    }
}

void vd_p2p_eval(const struct vd_model *m, struct vd_data *d, int e, double *h, bool jac)
{
    static const double zero3[3];
    const struct vd_p2p *p = &m->p2p[e];
    const int i1 = p->mk[0], i2 = p->mk[1];
    double Dl_[3], L, eu[3], wv[3], Ld, Fc = 0.0, FL = 0.0, FLd = 0.0, s, fG[3];
    double *out = d->p2p_out + 3 * e;
    const int b1 = m->marker[i1].body, b2 = m->marker[i2].body;

    vdu_sub3(Dl_, d->mp + 3 * i1, d->mp + 3 * i2);
    L = sqrt(vdu_dot3(Dl_, Dl_));
    if (L < 1e-9) {
        d->warn[VD_WARN_DEGENERATE]++;
        L = 1e-9;
    }
    vdu_scale3(eu, 1.0 / L, Dl_);
    vdu_sub3(wv, d->mpd + 3 * i1, d->mpd + 3 * i2);
    Ld = vdu_dot3(eu, wv);
    /* compression-positive force and its partials w.r.t. L and L' */
    if (p->has_spring) {
        Fc += vd_curve_eval(m, &p->spring, p->free_length - L, &s) + p->preload;
        FL -= s;
    }
    if (p->has_damper) {
        Fc += vd_curve_eval(m, &p->damper, -Ld, &s);
        FLd -= s;
    }
    if (p->has_bump && L < p->bump_length) {
        Fc += vd_curve_eval(m, &p->bump, p->bump_length - L, &s);
        FL -= s;
    }
    if (p->has_rebound && L > p->rebound_length) {
        Fc -= vd_curve_eval(m, &p->rebound, L - p->rebound_length, &s);
        FL -= s;
    }
    out[0] = Fc;
    out[1] = L;
    out[2] = Ld;
    /* compression pushes p1 along +e: body 2 gets f = -Fc e, body 1 gets +Fc e */
    vdu_scale3(fG, -Fc, eu);
    if (jac)
        p2p_jac(m, d, e, eu, L, wv, Fc, FL, FLd, fG);
    {
        const int blk0[2] = {-1, -1};
        struct side sd[2];

        sd[0] = (struct side){b1, blk0, 0, -1.0, d->ma + 3 * i1, &dzero};
        sd[1] = (struct side){b2, blk0, 1, 1.0, d->ma + 3 * i2, &dzero};
        for (int k = 0; k < 2; k++)
            if (sd[k].body != VD_GROUND)
                assemble_side(d, h, false, 2, &sd[k], fG, zero3, dzero, dzero, dzero, dzero);
    }
}

/* ---- inputs at markers --------------------------------------------------------------- */

void vd_input_eval(const struct vd_model *m, struct vd_data *d, int j, const double *u, double *h,
                   bool jac)
{
    const struct vd_input *in = &m->input[j];
    const int k = in->marker, b = m->marker[k].body;
    const double *A = d->A + 9 * b, *a = d->ma + 3 * k;
    const bool force = in->kind == VD_INPUT_FORCE;
    const int blk[2] = {m->blk_diag[b], -1};
    double dg[3], f[3] = {0, 0, 0}, tau[3] = {0, 0, 0}, mom[3], *Ju;
    struct side sd = {b, blk, 0, 1.0, a, &dzero};
    dmat DfP, DtP, Dl;

    if (in->frame == VD_FRAME_MARKER)
        vdu_mat3_vec(dg, d->mR + 9 * k, in->dir);
    else
        memcpy(dg, in->dir, sizeof(dg));
    vdu_scale3(force ? f : tau, u[j], dg);
    if (!jac) {
        assemble_side(d, h, false, 2, &sd, f, tau, dzero, dzero, dzero, dzero);
        return;
    }
    /* dh/du_j: force [dg; A^T (a x dg)], torque [0; A^T dg] */
    Ju = d->Ju + 6 * (size_t)m->ju_ptr[j];
    if (force) {
        memcpy(Ju, dg, sizeof(dg));
        vdu_cross3(mom, a, dg);
    } else {
        memcpy(mom, dg, sizeof(dg));
    }
    vdu_mat3t_vec(Ju + 3, A, mom);
    /* the lever rotates with the body; a marker-fixed direction does too:
     * delta dg = -skew(dg) delta pi */
    memset(DfP, 0, sizeof(DfP));
    memset(DtP, 0, sizeof(DtP));
    memset(Dl, 0, sizeof(Dl));
    if (in->frame == VD_FRAME_MARKER) {
        double S[9];

        vdu_skew(S, force ? f : tau);
        put3(force ? DfP : DtP, 3, S, -1.0);
    }
    {
        double Sa[9];

        vdu_skew(Sa, a);
        put3(Dl, 3, Sa, -1.0);
    }
    sd.Dl = (const dmat *)&Dl;
    assemble_side(d, h, true, 2, &sd, f, tau, DfP, DtP, dzero, dzero);
}

void vd_body_gravity_eval(const struct vd_model *m, double *h)
{
    for (int b = 0; b < m->nbody; b++)
        for (int i = 0; i < 3; i++)
            h[6 * b + i] += m->body[b].mass * m->gravity[i];
}

/* gravity and gyroscopic terms: h_t += m g, h_r -= omega x (I omega) */
void vd_body_terms_eval(const struct vd_model *m, struct vd_data *d, const double *v, double *h,
                        bool jac)
{
    for (int b = 0; b < m->nbody; b++) {
        const struct vd_body *bd = &m->body[b];
        const double *w = v + 6 * b + 3;
        double Iw[3], g[3], *hb = h + 6 * b;

        for (int i = 0; i < 3; i++)
            hb[i] += bd->mass * m->gravity[i];
        vdu_mat3_vec(Iw, bd->inertia, w);
        vdu_cross3(g, w, Iw);
        vdu_sub3(hb + 3, hb + 3, g);
        if (jac) {
            /* d(w x Iw)/dw = skew(w) I - skew(Iw) */
            double Sw[9], SI[9], SIw[9], *B = d->Jvb + 36 * m->blk_diag[b];

            vdu_skew(Sw, w);
            vdu_mat3_mul(SI, Sw, bd->inertia);
            vdu_skew(SIw, Iw);
            for (int i = 0; i < 3; i++)
                for (int jj = 0; jj < 3; jj++)
                    VD_B6(B, 3 + i, 3 + jj) -= SI[3 * i + jj] - SIw[3 * i + jj];
        }
    }
}
