/* core/tire_tmeasy.c - TMeasy tyre forces (see tire_tmeasy.h for the equations). Every
 * intermediate carries its partials w.r.t. (sx, sy, Fz, sB) in a struct dn (forward-mode
 * chain rule, written out per operation); the bore and camber slips' own dependence on (Fz,
 * gamma, Omega, wn, re) is chained in at the end. */
#include "tire_tmeasy.h"

#include <math.h>
#include <stddef.h>

#include "blocklu.h" /* VD_CLONES */

#define S_TINY 1e-9 /* [-] below this combined slip the linear law is used (header) */

#define ND 4 /* partials carried: sx, sy, fz, sB */

/* the operations and stages are inlined into vd_tm_eval, which has an AVX2 clone (the same IEEE
 * operations in the same order, bitwise the same results; core/blocklu.h) */
#define TM_AI static inline __attribute__((always_inline))

/* a value and its partials w.r.t. (sx, sy, fz, sB) */
struct dn {
    double v, d[ND];
};

TM_AI struct dn dn_c(double v)
{
    struct dn r = {v, {0.0, 0.0, 0.0, 0.0}};
    return r;
}

/* r = a + b */
TM_AI struct dn dn_add(struct dn a, struct dn b)
{
    struct dn r;

    r.v = a.v + b.v;
    for (int i = 0; i < ND; i++)
        r.d[i] = a.d[i] + b.d[i];
    return r;
}

/* r = a - b */
TM_AI struct dn dn_sub(struct dn a, struct dn b)
{
    struct dn r;

    r.v = a.v - b.v;
    for (int i = 0; i < ND; i++)
        r.d[i] = a.d[i] - b.d[i];
    return r;
}

/* r = a * b */
TM_AI struct dn dn_mul(struct dn a, struct dn b)
{
    struct dn r;

    r.v = a.v * b.v;
    for (int i = 0; i < ND; i++)
        r.d[i] = a.d[i] * b.v + a.v * b.d[i];
    return r;
}

/* r = s * a */
TM_AI struct dn dn_scale(double s, struct dn a)
{
    struct dn r;

    r.v = s * a.v;
    for (int i = 0; i < ND; i++)
        r.d[i] = s * a.d[i];
    return r;
}

/* r = a / b */
TM_AI struct dn dn_div(struct dn a, struct dn b)
{
    struct dn r;

    r.v = a.v / b.v;
    for (int i = 0; i < ND; i++)
        r.d[i] = (a.d[i] - r.v * b.d[i]) / b.v;
    return r;
}

/* r = sqrt(a^2 + b^2) (> 0 required) */
TM_AI struct dn dn_hypot(struct dn a, struct dn b)
{
    struct dn r;

    r.v = sqrt(a.v * a.v + b.v * b.v);
    for (int i = 0; i < ND; i++)
        r.d[i] = (a.v * a.d[i] + b.v * b.d[i]) / r.v;
    return r;
}

/* r = sqrt(a^2 + b^2 + c^2) (> 0 required) */
TM_AI struct dn dn_hypot3(struct dn a, struct dn b, struct dn c)
{
    struct dn r;

    r.v = sqrt(a.v * a.v + b.v * b.v + c.v * c.v);
    for (int i = 0; i < ND; i++)
        r.d[i] = (a.v * a.d[i] + b.v * b.d[i] + c.v * c.d[i]) / r.v;
    return r;
}

/* characteristic value at load fz (a dn in its d[2]) from the values at pn and 2 pn */
TM_AI struct dn interp_q(const double w[2], double q, double dq)
{
    const double a = 2.0 * w[0] - 0.5 * w[1], b = w[0] - 0.5 * w[1];
    struct dn r = {q * (a - b * q), {0.0, 0.0, (a - 2.0 * b * q) * dq, 0.0}};
    return r;
}

TM_AI struct dn interp_l(const double w[2], double q, double dq)
{
    struct dn r = {w[0] + (w[1] - w[0]) * (q - 1.0), {0.0, 0.0, (w[1] - w[0]) * dq, 0.0}};
    return r;
}

/* the combined characteristic F(s) (tire_tmeasy.h) */
TM_AI struct dn curve(struct dn s, struct dn df0, struct dn sm, struct dn fm, struct dn ss,
                      struct dn fs)
{
    const struct dn one = dn_c(1.0);
    struct dn lim = dn_div(dn_scale(2.0, fm), sm);

    if (lim.v > df0.v)
        df0 = lim;
    if (s.v > ss.v)
        return fs;
    if (s.v <= sm.v) {
        /* adhesion: F = dF0 s / (1 + sn (sn + p)), sn = s/sm, p = dF0 sm/Fm - 2 */
        struct dn sn = dn_div(s, sm);
        struct dn p = dn_sub(dn_div(dn_mul(df0, sm), fm), dn_c(2.0));
        struct dn den = dn_add(one, dn_mul(sn, dn_add(sn, p)));

        return dn_div(dn_mul(df0, s), den);
    }
    {
        struct dn fsm = dn_div(fm, sm);
        struct dn a = dn_div(dn_mul(fsm, fsm), dn_mul(df0, sm));
        struct dn sst = dn_add(sm, dn_div(dn_sub(fm, fs), dn_mul(a, dn_sub(ss, sm))));

        if (sst.v <= ss.v) {
            if (s.v <= sst.v) {
                struct dn e = dn_sub(s, sm);

                return dn_sub(fm, dn_mul(a, dn_mul(e, e)));
            } else {
                struct dn b = dn_div(dn_mul(a, dn_sub(sst, sm)), dn_sub(ss, sst));
                struct dn e = dn_sub(ss, s);

                return dn_add(fs, dn_mul(b, dn_mul(e, e)));
            }
        } else {
            struct dn u = dn_div(dn_sub(s, sm), dn_sub(ss, sm));
            struct dn c = dn_mul(dn_mul(u, u), dn_sub(dn_c(3.0), dn_scale(2.0, u)));

            return dn_sub(fm, dn_mul(dn_sub(fm, fs), c));
        }
    }
}

/* normalised pneumatic trail n(sy) (tire_tmeasy.h) */
TM_AI struct dn trail(struct dn sy, struct dn n0, struct dn s0, struct dn se)
{
    struct dn a = sy, w;

    if (sy.v < 0.0)
        a = dn_scale(-1.0, sy);
    if (se.v < s0.v)
        se = s0;
    if (a.v >= se.v)
        return dn_c(0.0);
    w = dn_div(s0, se);
    if (a.v <= s0.v) {
        struct dn u = dn_div(a, s0), omw = dn_sub(dn_c(1.0), w);
        struct dn n1 = dn_sub(dn_c(1.0), u);
        struct dn n2 = dn_sub(dn_c(1.0), dn_mul(dn_sub(dn_c(3.0), dn_scale(2.0, u)), dn_mul(u, u)));

        return dn_mul(n0, dn_add(dn_mul(omw, n1), dn_mul(w, n2)));
    } else {
        struct dn u = dn_div(dn_sub(se, a), dn_sub(se, s0));
        struct dn t = dn_mul(dn_sub(dn_c(1.0), w), dn_div(dn_sub(a, s0), s0));

        return dn_scale(-1.0, dn_mul(dn_mul(n0, t), dn_mul(u, u)));
    }
}

/* out[0..NPART) = the partials of x (a dn over sx, sy, fz, sB) w.r.t. enum vd_tm_partial,
 * given dsy/dalpha and the partials of sB w.r.t. (fz, Omega, wn, re) */
TM_AI void chain(double out[VD_TM_NPART], struct dn x, double dsy_da, const double dsb[4])
{
    out[VD_TM_D_KAPPA] = x.d[0];
    out[VD_TM_D_ALPHA] = x.d[1] * dsy_da;
    out[VD_TM_D_FZ] = x.d[2] + x.d[3] * dsb[0];
    out[VD_TM_D_GAMMA] = 0.0;
    out[VD_TM_D_OMEGA] = x.d[3] * dsb[1];
    out[VD_TM_D_WN] = x.d[3] * dsb[2];
    out[VD_TM_D_RE] = x.d[3] * dsb[3];
}

VD_CLONES void vd_tm_eval(const struct vd_tm_params *p, const struct vd_tm_in *in,
                          struct vd_tm_out *out)
{
    const double fz_in = in->fz > 0.0 ? in->fz : 0.0;
    const double fzc = fz_in < p->pn_max ? fz_in : p->pn_max;
    const double q = fzc / p->pn, dq = fz_in < p->pn_max ? 1.0 / p->pn : 0.0;
    const double ms = in->mu / p->mu0, ta = tan(in->alpha);
    const double dsy_da = -(1.0 + ta * ta); /* sy = -tan(alpha) */
    struct dn sx = {in->kappa, {1.0, 0.0, 0.0, 0.0}}, sy = {-ta, {0.0, 1.0, 0.0, 0.0}};
    struct dn dfx0, dfy0, fxm, fym, sxm, sym, fxs, fys, sxs, sys, hx, hy, fx, fy, mz, mb, kc;
    struct dn L, rb, sb;
    double sgam, dsgam[4]; /* camber slip, its partials w.r.t. (fz, gamma, Omega, re) */
    double dsb[4];         /* partials of sB w.r.t. (fz, Omega, wn, re) */

    /* characteristic values at this load */
    dfx0 = interp_q(p->dfx0, q, dq);
    dfy0 = interp_q(p->dfy0, q, dq);
    fxm = dn_scale(ms, interp_q(p->fxm, q, dq));
    fym = dn_scale(ms, interp_q(p->fym, q, dq));
    fxs = dn_scale(ms, interp_q(p->fxs, q, dq));
    fys = dn_scale(ms, interp_q(p->fys, q, dq));
    sxm = dn_scale(ms, interp_l(p->sxm, q, dq));
    sym = dn_scale(ms, interp_l(p->sym, q, dq));
    sxs = dn_scale(ms, interp_l(p->sxs, q, dq));
    sys = dn_scale(ms, interp_l(p->sys, q, dq));
    if (q <= 0.0) {
        /* no load: no force (the curves are 0/0 at q = 0); the element has Fz = 0 only out
         * of contact, where the load's own partials are 0 */
        for (int i = 0; i < VD_TM_NPART; i++)
            out->dfx[i] = out->dfy[i] = out->dmz[i] = out->dmb[i] = 0.0;
        out->fx = out->fy = out->mz = out->mb = 0.0;
        return;
    }
    /* contact length L = 2 sqrt(r0 Fz / cz), bore radius RB = (L + B) / 6 */
    L = dn_c(2.0 * sqrt(p->r0 * fz_in / p->cz));
    L.d[2] = L.v / (2.0 * fz_in);
    rb = dn_scale(1.0 / 6.0, dn_add(L, dn_c(p->width)));
    /* bore slip sB = -RB wn / vt and camber slip sgam = -(L/2) Omega sin(gamma) / vt with
     * their partials (sB is an independent variable of the dn, chained in at the end) */
    {
        const double om = in->omega, re = in->re, sgm = sin(in->gamma);
        const double vt = sqrt(re * re * om * om + p->vn * p->vn);
        const double dvt_dom = re * re * om / vt, dvt_dre = re * om * om / vt;

        sb = dn_c(-rb.v * in->wn / vt);
        sb.d[3] = 1.0;
        dsb[0] = -rb.d[2] * in->wn / vt;
        dsb[1] = -sb.v / vt * dvt_dom;
        dsb[2] = -rb.v / vt;
        dsb[3] = -sb.v / vt * dvt_dre;
        sgam = -0.5 * L.v * om * sgm / vt;
        dsgam[0] = -0.5 * L.d[2] * om * sgm / vt;
        dsgam[1] = -0.5 * L.v * om * cos(in->gamma) / vt;
        dsgam[2] = -0.5 * L.v * sgm / vt - sgam / vt * dvt_dom;
        dsgam[3] = -sgam / vt * dvt_dre;
    }
    /* slip normalisation */
    {
        struct dn rx = dn_div(fxm, dfx0), ry = dn_div(fym, dfy0);
        struct dn ssum = dn_add(sxm, sym), rsum = dn_add(rx, ry);

        hx = dn_add(dn_div(sxm, ssum), dn_div(rx, rsum));
        hy = dn_add(dn_div(sym, ssum), dn_div(ry, rsum));
    }
    {
        const double r2 = sqrt(0.5);
        struct dn sxn = dn_div(sx, hx), syn = dn_div(sy, hy);
        const double sv = sqrt(sxn.v * sxn.v + syn.v * syn.v + sb.v * sb.v);
        /* the 45-degree values of the bore direction (tire_tmeasy.h) */
        struct dn dfb = dn_scale(r2, dn_hypot(dn_mul(dfx0, hx), dn_mul(dfy0, hy)));

        if (sv < S_TINY) {
            /* linear law at vanishing slip (direction undefined) */
            fx = dn_mul(dfx0, sx);
            fy = dn_mul(dfy0, sy);
            mb = dn_mul(rb, dn_mul(dfb, sb));
            kc = dn_scale(1.0 / 3.0, dfy0);
        } else {
            struct dn s = dn_hypot3(sxn, syn, sb), c = dn_div(sxn, s), sn = dn_div(syn, s);
            struct dn cb = dn_div(sb, s);
            struct dn df0 = dn_hypot3(dn_mul(dn_mul(dfx0, c), hx), dn_mul(dn_mul(dfy0, sn), hy),
                                      dn_mul(dfb, cb));
            struct dn fm = dn_hypot3(dn_mul(fxm, c), dn_mul(fym, sn),
                                     dn_mul(dn_scale(r2, dn_hypot(fxm, fym)), cb));
            struct dn sm =
                dn_hypot3(dn_div(dn_mul(sxm, c), hx), dn_div(dn_mul(sym, sn), hy),
                          dn_mul(dn_scale(r2, dn_hypot(dn_div(sxm, hx), dn_div(sym, hy))), cb));
            struct dn fs = dn_hypot3(dn_mul(fxs, c), dn_mul(fys, sn),
                                     dn_mul(dn_scale(r2, dn_hypot(fxs, fys)), cb));
            struct dn ss =
                dn_hypot3(dn_div(dn_mul(sxs, c), hx), dn_div(dn_mul(sys, sn), hy),
                          dn_mul(dn_scale(r2, dn_hypot(dn_div(sxs, hx), dn_div(sys, hy))), cb));
            struct dn f = curve(s, df0, sm, fm, ss, fs);

            fx = dn_mul(f, c);
            fy = dn_mul(f, sn);
            mb = dn_mul(rb, dn_mul(f, cb));
            /* secant stiffness per unit lateral slip, / 3 (tire_tmeasy.h) */
            kc = dn_div(f, dn_scale(3.0, dn_mul(s, hy)));
        }
    }
    /* aligning moment Ms = -L n(sy) Fy (the slip force) */
    {
        struct dn n0 = interp_l(p->nto0, q, dq);
        struct dn s0 = dn_scale(ms, interp_l(p->synto0, q, dq));
        struct dn se = dn_scale(ms, interp_l(p->syntoE, q, dq));

        mz = dn_scale(-1.0, dn_mul(dn_mul(L, trail(sy, n0, s0, se)), fy));
    }
    out->fx = fx.v;
    out->fy = fy.v + kc.v * sgam;
    out->mz = mz.v;
    out->mb = mb.v;
    chain(out->dfx, fx, dsy_da, dsb);
    chain(out->dmz, mz, dsy_da, dsb);
    chain(out->dmb, mb, dsy_da, dsb);
    /* Fy + kc sgam */
    {
        const struct dn t = dn_add(fy, dn_scale(sgam, kc));

        chain(out->dfy, t, dsy_da, dsb);
        out->dfy[VD_TM_D_FZ] += kc.v * dsgam[0];
        out->dfy[VD_TM_D_GAMMA] += kc.v * dsgam[1];
        out->dfy[VD_TM_D_OMEGA] += kc.v * dsgam[2];
        out->dfy[VD_TM_D_RE] += kc.v * dsgam[3];
    }
}

void vd_tm_relax(const struct vd_tm_params *p, double fz, double out[4])
{
    const double f = fz > 0.0 ? (fz < p->pn_max ? fz : p->pn_max) : 0.0;
    const double q = f / p->pn, dq = fz > 0.0 && fz < p->pn_max ? 1.0 / p->pn : 0.0;
    struct dn x = interp_q(p->dfx0, q, dq), y = interp_q(p->dfy0, q, dq);

    out[0] = x.v / p->cx;
    out[1] = x.d[2] / p->cx;
    out[2] = y.v / p->cy;
    out[3] = y.d[2] / p->cy;
}

const char *vd_tm_check(const struct vd_tm_params *p)
{
    if (!(p->pn > 0.0) || !(p->pn_max >= p->pn))
        return "nominal load pn > 0 and pn_max >= pn required";
    if (!(p->mu0 > 0.0) || !(p->r0 > 0.0) || !(p->width > 0.0))
        return "mu0, unloaded radius and width must be > 0";
    if (!(p->cz > 0.0) || !(p->dz >= 0.0) || !(p->cx > 0.0) || !(p->cy > 0.0))
        return "vertical, longitudinal and lateral stiffness must be > 0";
    if (!(p->vn > 0.0))
        return "the fictitious velocity vN of the bore and camber slips must be > 0";
    for (int i = 0; i < 2; i++) {
        if (!(p->dfx0[i] > 0.0) || !(p->fxm[i] > 0.0) || !(p->sxm[i] > 0.0) || !(p->fxs[i] > 0.0) ||
            !(p->sxs[i] > p->sxm[i]))
            return "longitudinal curve: dFx0, Fxm, sxm, Fxs > 0 and sxs > sxm required";
        if (!(p->dfy0[i] > 0.0) || !(p->fym[i] > 0.0) || !(p->sym[i] > 0.0) || !(p->fys[i] > 0.0) ||
            !(p->sys[i] > p->sym[i]))
            return "lateral curve: dFy0, Fym, sym, Fys > 0 and sys > sym required";
        if (p->dfx0[i] < 2.0 * p->fxm[i] / p->sxm[i] || p->dfy0[i] < 2.0 * p->fym[i] / p->sym[i])
            return "initial slope dF0 < 2 Fm/sm (the adhesion curve would have no maximum at sm)";
        if (!(p->synto0[i] > 0.0) || !(p->syntoE[i] >= p->synto0[i]) || !(p->nto0[i] >= 0.0))
            return "trail: n0 >= 0, 0 < sy0 <= syE required";
    }
    return NULL;
}
