/* core/tire_mf.c - Magic Formula 5.2 / PAC2002 forces and moments with analytic partials.
 * Every intermediate is a struct dv: its value and its partials w.r.t. (kappa, alpha, Fz,
 * gamma), propagated by the chain rule at each operation (forward mode). Equations and
 * conventions: tire_mf.h. Equation numbers (4.Exx) are Pacejka 2012 / MFeval's.
 * Speed: the operations and the stages are always inlined (MF_AI) into the few entry points,
 * so the intermediates stay in registers instead of being passed through the stack; the
 * partials are a 4-double vector; the hot entry points (mf_eval, vd_mf_relax6) have an AVX2
 * clone (VD_CLONES, core/blocklu.h). Every element still sees the same IEEE operations in
 * the same order as the scalar loops (no FMA contraction): results bitwise the same. */
#include "tire_mf.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "blocklu.h" /* VD_CLONES */

#define NP         4     /* partials: kappa, alpha, fz, gamma (enum vd_mf_partial) */
#define EPS_DEN    1e-12 /* guard of the per-unit-load denominators C mu and Kya/Fz */
#define RHO_SERIES 1e-4  /* below this the ellipse uses the series of f(r)/r */
#define PI         3.14159265358979323846
#define MF_AI      static inline __attribute__((always_inline))

/* a value and its partials w.r.t. (kappa, alpha, fz, gamma); the partials are a GCC vector
 * (two SSE2 registers or one AVX register; element-wise the same IEEE operations as a loop) */
typedef double dv4 __attribute__((vector_size(NP * sizeof(double)), aligned(sizeof(double))));
struct dv {
    dv4 d;
    double v;
};

/* res = c (no dependence) */
MF_AI struct dv dcst(double c)
{
    struct dv r = {{0.0, 0.0, 0.0, 0.0}, c};

    return r;
}

/* res = input i with value v */
MF_AI struct dv dvar(double v, int i)
{
    struct dv r = dcst(v);

    r.d[i] = 1.0;
    return r;
}

/* res = a + b */
MF_AI struct dv dadd(struct dv a, struct dv b)
{
    a.d += b.d;
    a.v += b.v;
    return a;
}

/* res = a - b */
MF_AI struct dv dsub(struct dv a, struct dv b)
{
    a.d -= b.d;
    a.v -= b.v;
    return a;
}

/* res = a + c */
MF_AI struct dv daddc(struct dv a, double c)
{
    a.v += c;
    return a;
}

/* res = c a */
MF_AI struct dv dscale(double c, struct dv a)
{
    a.d *= c;
    a.v *= c;
    return a;
}

/* res = a b */
MF_AI struct dv dmul(struct dv a, struct dv b)
{
    struct dv r;

    r.v = a.v * b.v;
    r.d = a.d * b.v + a.v * b.d;
    return r;
}

/* res = a^2 */
MF_AI struct dv dsq(struct dv a)
{
    return dmul(a, a);
}

/* res = a / b */
MF_AI struct dv ddiv(struct dv a, struct dv b)
{
    struct dv r;

    r.v = a.v / b.v;
    r.d = (a.d - r.v * b.d) / b.v;
    return r;
}

/* res = f(x) given f(x.v) = fv and f'(x.v) = dfdx */
MF_AI struct dv dchain(struct dv x, double fv, double dfdx)
{
    x.v = fv;
    x.d *= dfdx;
    return x;
}

MF_AI struct dv dsin(struct dv x)
{
    return dchain(x, sin(x.v), cos(x.v));
}

MF_AI struct dv dcos(struct dv x)
{
    return dchain(x, cos(x.v), -sin(x.v));
}

MF_AI struct dv dtan(struct dv x)
{
    double t = tan(x.v);

    return dchain(x, t, 1.0 + t * t);
}

MF_AI struct dv datan(struct dv x)
{
    return dchain(x, atan(x.v), 1.0 / (1.0 + x.v * x.v));
}

MF_AI struct dv dexp(struct dv x)
{
    double e = exp(x.v);

    return dchain(x, e, e);
}

/* res = cos(atan(x)) = 1 / sqrt(1 + x^2) */
MF_AI struct dv dcosatan(struct dv x)
{
    double c = 1.0 / sqrt(1.0 + x.v * x.v);

    return dchain(x, c, -x.v * c * c * c);
}

/* res = |x|, partial sgn(x) with sgn(0) = 0 (the mean of the one-sided slopes) */
MF_AI struct dv dabs(struct dv x)
{
    return dchain(x, fabs(x.v), x.v > 0.0 ? 1.0 : (x.v < 0.0 ? -1.0 : 0.0));
}

/* res = min(x, 1): the MF curvature limit E <= 1 */
MF_AI struct dv dmin1(struct dv x)
{
    return x.v > 1.0 ? dcst(1.0) : x;
}

/* res = c0 + c1 x */
MF_AI struct dv dlin(double c0, double c1, struct dv x)
{
    return daddc(dscale(c1, x), c0);
}

/* res = c0 + c1 x + c2 x^2 */
MF_AI struct dv dquad(double c0, double c1, double c2, struct dv x)
{
    return daddc(dmul(x, dlin(c1, c2, x)), c0);
}

/* sign with sgn(0) = +1 (MFeval's convention for sgn(alpha_y)) */
MF_AI double sgn1(double x)
{
    return x >= 0.0 ? 1.0 : -1.0;
}

/* res = b, moved away from 0 by EPS_DEN on its side (MFeval's epsilon sgn(b) guard) */
MF_AI struct dv dguard(struct dv b)
{
    b.v += b.v >= 0.0 ? EPS_DEN : -EPS_DEN;
    return b;
}

/* res = C atan(y - E (y - atan y)): the phase of the MF sine / cosine (4.E9) */
MF_AI struct dv mf_phase(struct dv y, struct dv E, double C)
{
    return dscale(C, datan(dsub(y, dmul(E, dsub(y, datan(y))))));
}

/* res = atan(sqrt(tan^2 x + c^2)) sgn x, sgn(0) = +1: the equivalent slip angle (paper
 * A54/A55). Its own kink at x = c = 0 does not reach t or Mzr, which are even in it; at
 * S = 0 the partial is the one along c = 0, d x. */
MF_AI struct dv alpha_eq(struct dv x, struct dv c)
{
    struct dv T = dtan(x), r;
    double sg = sgn1(x.v), S = hypot(T.v, c.v);

    const dv4 dS = S > 0.0 ? (T.v * T.d + c.v * c.d) / S : sg * T.d;

    r.v = sg * atan(S);
    r.d = sg * dS / (1.0 + S * S);
    return r;
}

/* res = X f(r)/r, f(r) = sin(C atan(r - E (r - atan r))), r = |(X, a)|, E = min(E0 (1 - e4
 * X/r), 1): the normalized force of the friction-ellipse fallback (tire_mf.h). f(r)/r is
 * even in r, so res is smooth at r = 0; for r < RHO_SERIES its series
 * f(r)/r = C - r^2 (C (E + 1)/3 + C^3/6) + O(r^4) is used, with X/r and its 1/r partials
 * entering only as r^2 E, which stays bounded. */
MF_AI struct dv ellipse(struct dv X, struct dv a, struct dv E0, struct dv e4, double C)
{
    struct dv r2 = dadd(dmul(X, X), dmul(a, a)), q;
    double r = sqrt(r2.v);

    if (r >= RHO_SERIES) {
        struct dv rho = dchain(r2, r, 0.5 / r), s, E;

        /* s = X/r: ds = (a/r) (a dX - X da) / r^2 */
        s.v = X.v / r;
        s.d = a.v / r * ((a.v * X.d - X.v * a.d) / r) / r;
        E = dmin1(dmul(E0, dlin(1.0, -1.0, dmul(e4, s))));
        q = ddiv(dsin(mf_phase(rho, E, C)), rho);
    } else {
        double xh = r > 0.0 ? X.v / r : 0.0, ah = r > 0.0 ? a.v / r : 0.0;
        double E = E0.v * (1.0 - e4.v * xh), k;
        dv4 r2dE = {0.0, 0.0, 0.0, 0.0}; /* r^2 dE, with r^2 ds = r ah (ah dX - xh da) */

        if (E > 1.0)
            E = 1.0;
        else
            r2dE = r2.v * (E0.d * (1.0 - e4.v * xh) - E0.v * xh * e4.d) -
                   E0.v * e4.v * r * ah * (ah * X.d - xh * a.d);
        k = C * (E + 1.0) / 3.0 + C * C * C / 6.0;
        q.v = C - r2.v * k;
        q.d = -r2.d * k - C / 3.0 * r2dE;
    }
    return dmul(X, q);
}

/* direction of rolling for My: sin(pi/2 clamp(vx/vxlow, -1, 1)), sgn(vx) if vxlow <= 0 */
static double roll_dir(double vx, double vxlow)
{
    double u;

    if (!(vxlow > 0.0))
        return vx > 0.0 ? 1.0 : (vx < 0.0 ? -1.0 : 0.0);
    u = vx / vxlow;
    u = u > 1.0 ? 1.0 : (u < -1.0 ? -1.0 : u);
    return sin(0.5 * PI * u);
}

void vd_mf_params_default(struct vd_mf_params *p)
{
    memset(p, 0, sizeof(*p));
    p->side = VD_MF_LEFT;
    p->lfzo = p->lcx = p->lmux = p->lex = p->lkx = p->lhx = p->lvx = p->lgax = 1.0;
    p->lcy = p->lmuy = p->ley = p->lky = p->lhy = p->lvy = p->lgay = 1.0;
    p->ltr = p->lres = p->lgaz = p->lxal = p->lyka = p->lvyka = p->ls = 1.0;
    p->lsgkp = p->lsgal = p->lgyr = p->lmx = p->lvmx = p->lmy = 1.0;
    p->lkyc = p->lkzc = 1.0;
    p->fittyp = 6;
}

/* the intermediates the stages share; "per unit load" quantities carry a u suffix */
struct mf {
    bool v6;    /* MF 6.1 / 6.2 equations (FITTYP 61, 62) */
    double dpi; /* (p - p0)/p0, MF 6.x; 0 for MF 5.2 */
    double fz0, fz0p, r0, lmux, lmuy, Cx, Cy;
    struct dv kappa, alpha, gamma, fz, dfz, gy, gz, cosa;
    struct dv mux, Dx, kxu, Bx, SVx, SHx, kx, Ex0;            /* pure longitudinal */
    struct dv muy, Dy, kyu, By, SHy, svyu, SVy, ay, Ey0, ey4; /* pure lateral */
    struct dv ey5;                                            /* MF 6.x: PEY5 gamma^2 */
    struct dv Fx, Fy, Fyp, Gyk;                               /* combined; Fy' for Mz */
};

/* pure longitudinal slip (4.E9-E18): everything but the force; Bx = Kx/(Cx Dx) per unit load */
MF_AI void pure_long(const struct vd_mf_params *p, struct mf *s)
{
    s->mux =
        dmul(dlin(p->pdx1, p->pdx2, s->dfz), dlin(1.0, -p->pdx3, dsq(dscale(p->lgax, s->gamma))));
    s->mux = dscale(s->lmux, s->mux);
    if (s->v6) /* 4.E13: (1 + PPX3 dpi + PPX4 dpi^2) */
        s->mux = dscale(1.0 + p->ppx3 * s->dpi + p->ppx4 * s->dpi * s->dpi, s->mux);
    s->Dx = dmul(s->mux, s->fz);
    s->kxu = dscale(p->lkx, dmul(dlin(p->pkx1, p->pkx2, s->dfz), dexp(dscale(p->pkx3, s->dfz))));
    if (s->v6) /* 4.E15: (1 + PPX1 dpi + PPX2 dpi^2) */
        s->kxu = dscale(1.0 + p->ppx1 * s->dpi + p->ppx2 * s->dpi * s->dpi, s->kxu);
    s->Bx = ddiv(s->kxu, dguard(dscale(s->Cx, s->mux)));
    s->SVx = dmul(s->fz, dscale(p->lvx * s->lmux, dlin(p->pvx1, p->pvx2, s->dfz)));
    s->SHx = dscale(p->lhx, dlin(p->phx1, p->phx2, s->dfz));
    s->kx = dadd(s->kappa, s->SHx);
    s->Ex0 = dscale(p->lex, dquad(p->pex1, p->pex2, p->pex3, s->dfz));
}

/* pure lateral slip (4.E19-E30, MF 5.2 Kya and SHy); Kya/Fz in closed form:
 * PKY1 Fz0' sin(2 atan(z)) / Fz = 2 PKY1 PKY2 Fz0'^2 / ((PKY2 Fz0')^2 + Fz^2) */
MF_AI void pure_lat6(const struct vd_mf_params *p, struct mf *s);

MF_AI void pure_lat(const struct vd_mf_params *p, struct mf *s)
{
    const double k2 = p->pky2 * s->fz0p;
    struct dv den = daddc(dsq(s->fz), k2 * k2);

    if (s->v6) {
        pure_lat6(p, s);
        return;
    }

    s->muy = dmul(dlin(p->pdy1, p->pdy2, s->dfz), dlin(1.0, -p->pdy3, dsq(s->gy)));
    s->muy = dscale(s->lmuy, s->muy);
    s->Dy = dmul(s->muy, s->fz);
    s->kyu = den.v > 0.0 ? ddiv(dcst(2.0 * p->pky1 * k2 * s->fz0p), den) : dcst(0.0);
    s->kyu = dscale(p->lky, dmul(s->kyu, dlin(1.0, -p->pky3, dabs(s->gy))));
    s->By = ddiv(s->kyu, dguard(dscale(s->Cy, s->muy)));
    s->SHy = dadd(dscale(p->lhy, dlin(p->phy1, p->phy2, s->dfz)), dscale(p->phy3, s->gy));
    s->svyu = dadd(dscale(p->lvy, dlin(p->pvy1, p->pvy2, s->dfz)),
                   dmul(dlin(p->pvy3, p->pvy4, s->dfz), s->gy));
    s->svyu = dscale(s->lmuy, s->svyu);
    s->SVy = dmul(s->fz, s->svyu);
    s->ay = dadd(s->alpha, s->SHy);
    s->Ey0 = dscale(p->ley, dlin(p->pey1, p->pey2, s->dfz));
    s->ey4 = dlin(p->pey3, p->pey4, s->gy);
}

/* res = sin(P atan(q)) / q, its limit P at q = 0 (series below 1e-4: P - P (P^2 + 2) q^2 / 6) */
MF_AI struct dv dsinatan_q(struct dv q, double P)
{
    if (fabs(q.v) < 1e-4)
        return daddc(dscale(-P * (P * P + 2.0) / 6.0, dsq(q)), P);
    return ddiv(dsin(dscale(P, datan(q))), q);
}

/* pure lateral slip of MF 6.1 / 6.2 (4.E19-E30 with pressure, Pacejka 2012; MFeval's FITTYP
 * 61/62 branch): Kya = PKY1 Fz0' (1 + PPY1 dpi)(1 - PKY3 |gy|) sin(PKY4 atan((Fz/Fz0') /
 * ((PKY2 + PKY5 gy^2)(1 + PPY2 dpi)))) LKY, per unit load through sin(P atan q)/q;
 * Kyg0 = Fz (PKY6 + PKY7 dfz)(1 + PPY5 dpi) LKYC, SVyg = Fz (PVY3 + PVY4 dfz) gy LKYC lmuy,
 * SHy = (PHY1 + PHY2 dfz) LHY + (Kyg0 gy - SVyg)/Kya, SVy = Fz (PVY1 + PVY2 dfz) LVY lmuy + SVyg,
 * muy with (1 + PPY3 dpi + PPY4 dpi^2), Ey with (1 + PEY5 gy^2 - ...) */
MF_AI void pure_lat6(const struct vd_mf_params *p, struct mf *s)
{
    const double dpi = s->dpi;
    struct dv den, q, kyg0u, svygu;

    s->muy = dmul(dlin(p->pdy1, p->pdy2, s->dfz), dlin(1.0, -p->pdy3, dsq(s->gy)));
    s->muy = dscale(s->lmuy * (1.0 + p->ppy3 * dpi + p->ppy4 * dpi * dpi), s->muy);
    s->Dy = dmul(s->muy, s->fz);
    den = dscale(s->fz0p * (1.0 + p->ppy2 * dpi), daddc(dscale(p->pky5, dsq(s->gy)), p->pky2));
    q = ddiv(s->fz, den); /* (Fz/Fz0') / ((PKY2 + PKY5 gy^2)(1 + PPY2 dpi)) */
    /* Kya/Fz = PKY1 Fz0' (...) sin(PKY4 atan q) / Fz = PKY1 (...) sin(PKY4 atan q)/q * Fz0'/den */
    s->kyu = dmul(dsinatan_q(q, p->pky4), ddiv(dcst(s->fz0p), den));
    s->kyu = dscale(p->pky1 * (1.0 + p->ppy1 * dpi) * p->lky,
                    dmul(s->kyu, dlin(1.0, -p->pky3, dabs(s->gy))));
    s->By = ddiv(s->kyu, dguard(dscale(s->Cy, s->muy)));
    kyg0u = dscale((1.0 + p->ppy5 * dpi) * p->lkyc, dlin(p->pky6, p->pky7, s->dfz));
    svygu = dscale(p->lkyc * s->lmuy, dmul(dlin(p->pvy3, p->pvy4, s->dfz), s->gy));
    s->SHy = dadd(dscale(p->lhy, dlin(p->phy1, p->phy2, s->dfz)),
                  ddiv(dsub(dmul(kyg0u, s->gy), svygu), dguard(s->kyu)));
    s->svyu = dadd(dscale(p->lvy * s->lmuy, dlin(p->pvy1, p->pvy2, s->dfz)), svygu);
    s->SVy = dmul(s->fz, s->svyu);
    s->ay = dadd(s->alpha, s->SHy);
    s->Ey0 = dscale(p->ley, dlin(p->pey1, p->pey2, s->dfz));
    s->ey4 = dlin(p->pey3, p->pey4, s->gy);
    s->ey5 = dscale(p->pey5, dsq(s->gy));
}

/* the pure-slip longitudinal force Fx0 at kx (4.E9 with Ex of 4.E14) */
MF_AI struct dv pure_fx(const struct vd_mf_params *p, const struct mf *s, struct dv kx)
{
    const struct dv Ex = dmin1(dscale(1.0 - p->pex4 * sgn1(kx.v), s->Ex0));

    return dadd(dmul(s->Dx, dsin(mf_phase(dmul(s->Bx, kx), Ex, s->Cx))), s->SVx);
}

/* the pure-slip lateral force Fy0 at ay (4.E19 with Ey of 4.E24) */
MF_AI struct dv pure_fy(const struct mf *s, struct dv ay)
{
    const struct dv Ey = s->v6 ? dmin1(dmul(s->Ey0, dadd(dlin(1.0, -sgn1(ay.v), s->ey4), s->ey5)))
                               : dmin1(dmul(s->Ey0, dlin(1.0, -sgn1(ay.v), s->ey4)));

    return dadd(dmul(s->Dy, dsin(mf_phase(dmul(s->By, ay), Ey, s->Cy))), s->SVy);
}

/* pure forces and the MF combined-slip weighting: Fx = Gxa Fx0 (4.E50-E57), Fy = Gyk Fy0 +
 * SVyk (4.E58-E67) */
MF_AI void combined_mf(const struct vd_mf_params *p, struct mf *s)
{
    struct dv Fx0, Fy0, Bxa, Exa, Gxa, Byk, Eyk, SHyk, Gyk, SVyk;

    Fx0 = pure_fx(p, s, s->kx);
    Fy0 = pure_fy(s, s->ay);

    if (s->v6) /* 4.E54: (RBX1 + RBX3 gamma^2) */
        Bxa = dscale(p->lxal, dmul(daddc(dscale(p->rbx3, dsq(s->gamma)), p->rbx1),
                                   dcosatan(dscale(p->rbx2, s->kappa))));
    else
        Bxa = dscale(p->rbx1 * p->lxal, dcosatan(dscale(p->rbx2, s->kappa)));
    Exa = dmin1(dlin(p->rex1, p->rex2, s->dfz));
    Gxa = dcos(mf_phase(dmul(Bxa, daddc(s->alpha, p->rhx1)), Exa, p->rcx1));
    Gxa = ddiv(Gxa, dcos(mf_phase(dscale(p->rhx1, Bxa), Exa, p->rcx1)));
    s->Fx = dmul(Gxa, Fx0);

    if (s->v6) /* 4.E62: (RBY1 + RBY4 gamma^2) */
        Byk = dscale(p->lyka, dmul(daddc(dscale(p->rby4, dsq(s->gamma)), p->rby1),
                                   dcosatan(dscale(p->rby2, daddc(s->alpha, -p->rby3)))));
    else
        Byk = dscale(p->rby1 * p->lyka, dcosatan(dscale(p->rby2, daddc(s->alpha, -p->rby3))));
    Eyk = dmin1(dlin(p->rey1, p->rey2, s->dfz));
    SHyk = dlin(p->rhy1, p->rhy2, s->dfz);
    Gyk = dcos(mf_phase(dmul(Byk, dadd(s->kappa, SHyk)), Eyk, p->rcy1));
    Gyk = ddiv(Gyk, dcos(mf_phase(dmul(Byk, SHyk), Eyk, p->rcy1)));
    SVyk = dmul(s->Dy, dadd(dlin(p->rvy1, p->rvy2, s->dfz), dscale(p->rvy3, s->gy)));
    SVyk = dmul(SVyk, dcosatan(dscale(p->rvy4, s->alpha)));
    SVyk = dmul(SVyk, dsin(dscale(p->rvy5, datan(dscale(p->rvy6, s->kappa)))));
    s->Fyp = dmul(Gyk, Fy0);
    s->Fy = dadd(s->Fyp, dscale(p->lvyka, SVyk));
    s->Gyk = Gyk;
    if (s->v6) {
        /* 4.E74: Fy' = Gyk Fy0(gamma = 0), MFeval's FITTYP 61/62 */
        struct mf z = *s;

        z.gamma = z.gy = z.gz = dcst(0.0);
        pure_lat6(p, &z);
        s->Fyp = dmul(Gyk, pure_fy(&z, z.ay));
    }
}

/* friction-ellipse fallback (tire_mf.h): the force along the normalized slip vector; the
 * MF's sgn(kx), sgn(ay) become sgn(B) X/r (B < 0 for Fy with PKY1 < 0) */
MF_AI void combined_ellipse(const struct vd_mf_params *p, struct mf *s)
{
    const double cyx = s->Cx > 0.0 && s->Cy > 0.0 ? s->Cy / s->Cx : 1.0;
    struct dv X = dmul(s->Bx, s->kx), Y = dmul(s->By, s->ay);
    struct dv xa = dscale(cyx, dmul(s->By, s->alpha)),
              yk = dscale(1.0 / cyx, dmul(s->Bx, s->kappa));

    s->Fx = dmul(s->Dx, ellipse(X, xa, s->Ex0, dcst(p->pex4 * sgn1(s->Bx.v)), s->Cx));
    s->Fx = dadd(s->Fx, dmul(s->SVx, dcosatan(dscale(s->Cx, xa))));
    s->Fy = dmul(s->Dy, ellipse(Y, yk, s->Ey0, dscale(sgn1(s->By.v), s->ey4), s->Cy));
    s->Fy = dadd(s->Fy, dmul(s->SVy, dcosatan(dscale(s->Cy, yk))));
    s->Fyp = s->Fy;
}

/* aligning moment under combined slip (4.E31-E47, 4.E71-E78; A54-A56 as MFeval):
 * Mz = -t Fy' + Mzr + s Fx; sv = sgn(vx) turns trail and residual torque when reversing */
MF_AI struct dv aligning(const struct vd_mf_params *p, const struct mf *s, double sv)
{
    const double Ct = p->qcz1;
    struct dv at, Bt, Dt, Et, kyp, ar, Br, Dr, c, t, Mzr, arm;

    at = dadd(s->alpha,
              dadd(dlin(p->qhz1, p->qhz2, s->dfz), dmul(dlin(p->qhz3, p->qhz4, s->dfz), s->gz)));
    Bt = dmul(dquad(p->qbz1, p->qbz2, p->qbz3, s->dfz),
              dadd(dlin(1.0, p->qbz4, s->gz), dscale(p->qbz5, dabs(s->gz))));
    Bt = dscale(p->lky / s->lmuy, Bt);
    Dt = dmul(dmul(s->fz, dlin(p->qdz1, p->qdz2, s->dfz)), dquad(1.0, p->qdz3, p->qdz4, s->gz));
    Dt = dscale(s->r0 / s->fz0 * p->ltr * sv, Dt);
    if (s->v6) /* A60: (1 - PPZ1 dpi) */
        Dt = dscale(1.0 - p->ppz1 * s->dpi, Dt);
    Et = dscale(2.0 / PI, datan(dscale(Ct, dmul(Bt, at))));
    Et = dmin1(dmul(dquad(p->qez1, p->qez2, p->qez3, s->dfz),
                    daddc(dmul(dlin(p->qez4, p->qez5, s->gz), Et), 1.0)));
    kyp = dguard(s->kyu);
    ar = dadd(dadd(s->alpha, s->SHy), ddiv(s->svyu, kyp));
    Br = daddc(dscale(p->qbz10 * s->Cy, s->By), p->qbz9 * p->lky / s->lmuy);
    if (s->v6) /* 4.E47: ((QDZ8 + QDZ9 dfz)(1 + PPZ2 dpi) + (QDZ10 + QDZ11 dfz)|g|) g LKZC */
        Dr = dadd(dscale(p->lres, dlin(p->qdz6, p->qdz7, s->dfz)),
                  dscale(p->lkzc,
                         dmul(dadd(dscale(1.0 + p->ppz2 * s->dpi, dlin(p->qdz8, p->qdz9, s->dfz)),
                                   dmul(dlin(p->qdz10, p->qdz11, s->dfz), dabs(s->gamma))),
                              s->gamma)));
    else
        Dr = dadd(dscale(p->lres, dlin(p->qdz6, p->qdz7, s->dfz)),
                  dmul(dlin(p->qdz8, p->qdz9, s->dfz), s->gz));
    Dr = dscale(s->r0 * s->lmuy * sv, dmul(dmul(s->fz, Dr), s->cosa));
    c = dmul(ddiv(s->kxu, kyp), s->kappa); /* (Kx/Kya) kappa */
    t = dmul(Dt, dmul(dcos(mf_phase(dmul(Bt, alpha_eq(at, c)), Et, Ct)), s->cosa));
    Mzr = dmul(Dr, dcosatan(dmul(Br, alpha_eq(ar, c))));
    arm = dadd(dscale(p->ssz2 / s->fz0, s->Fy), dmul(dlin(p->ssz3, p->ssz4, s->dfz), s->gz));
    arm = dscale(s->r0 * p->ls, daddc(arm, p->ssz1));
    return dadd(dsub(Mzr, dmul(t, s->Fyp)), dmul(arm, s->Fx));
}

/* the combined-slip forces Fx, Fy into s (everything vd_mf_eval and vd_mf_eval_forces share) */
MF_AI void mf_forces(const struct vd_mf_params *p, const struct vd_mf_in *in, struct mf *s)
{
    const double mu = in->mu < VD_MF_MU_MIN ? VD_MF_MU_MIN : in->mu;

    /* basic (4.E1, 4.E2a); camber scaled per direction */
    s->v6 = p->fittyp >= 61;
    s->dpi = 0.0;
    if (s->v6 && p->nompres > 0.0)
        s->dpi = ((in->p > 0.0 ? in->p : p->inflpres) - p->nompres) / p->nompres; /* 4.E2b */
    s->ey5 = dcst(0.0);
    s->fz0 = p->fnomin;
    s->fz0p = p->lfzo * p->fnomin;
    s->r0 = p->unloaded_radius;
    s->lmux = p->lmux * mu;
    s->lmuy = p->lmuy * mu;
    s->Cx = p->pcx1 * p->lcx;
    s->Cy = p->pcy1 * p->lcy;
    s->kappa = dvar(in->kappa, VD_MF_D_KAPPA);
    s->alpha = dvar(in->alpha, VD_MF_D_ALPHA);
    s->gamma = dvar(in->gamma, VD_MF_D_GAMMA);
    s->fz = in->fz < 0.0 ? dcst(0.0) : dvar(in->fz, VD_MF_D_FZ);
    s->dfz = dscale(1.0 / s->fz0p, daddc(s->fz, -s->fz0p));
    s->gy = dscale(p->lgay, s->gamma);
    s->gz = dscale(p->lgaz, s->gamma);
    s->cosa = dcos(s->alpha);
    pure_long(p, s);
    pure_lat(p, s);
    if (p->flags & VD_MF_HAS_COMBINED)
        combined_mf(p, s);
    else
        combined_ellipse(p, s);
}

void vd_mf_eval_forces(const struct vd_mf_params *p, const struct vd_mf_in *in,
                       struct vd_mf_out *out)
{
    struct mf s;

    mf_forces(p, in, &s);
    memset(out, 0, sizeof(*out));
    out->fx = s.Fx.v;
    out->fy = s.Fy.v;
    for (int i = 0; i < NP; i++) {
        out->dfx[i] = s.Fx.d[i];
        out->dfy[i] = s.Fy.d[i];
    }
}

/* the zero-slip forces F(kappa = 0, alpha = 0) of the operating point whose pure-slip
 * intermediates s holds (they depend on kappa and alpha only through kx and ay), as
 * vd_mf_eval_forces at kappa = alpha = 0 gives them. With the MF combined slip, Gxa(alpha = 0)
 * and Gyk(kappa = 0) are cos(phase) / cos(the same phase) = 1 exactly and their Fz and gamma
 * partials (a' - 1 b') / b with a' = b' are 0 exactly, SVyk(kappa = 0) has the factor
 * sin(0) = 0: Fx = Fx0(SHx), Fy = Fy0(SHy) with the same values and Fz, gamma partials (up
 * to the sign of zeros). The ellipse fallback is evaluated as it is. */
MF_AI void zero_slip(const struct vd_mf_params *p, const struct mf *s, struct vd_mf_out *out)
{
    const struct dv k0 = dvar(0.0, VD_MF_D_KAPPA), a0 = dvar(0.0, VD_MF_D_ALPHA);
    struct dv fx, fy;

    if (p->flags & VD_MF_HAS_COMBINED) {
        fx = pure_fx(p, s, dadd(k0, s->SHx));
        fy = pure_fy(s, dadd(a0, s->SHy));
    } else {
        struct mf z = *s;

        z.kappa = k0;
        z.alpha = a0;
        z.kx = dadd(k0, s->SHx);
        z.ay = dadd(a0, s->SHy);
        combined_ellipse(p, &z);
        fx = z.Fx;
        fy = z.Fy;
    }
    /* field by field: a memset of the whole struct is a rep stos (slow to start) */
    out->fx = fx.v;
    out->fy = fy.v;
    out->mz = out->my = out->mx = 0.0;
    for (int i = 0; i < NP; i++) {
        out->dfx[i] = i < VD_MF_D_FZ ? 0.0 : fx.d[i];
        out->dfy[i] = i < VD_MF_D_FZ ? 0.0 : fy.d[i];
        out->dmz[i] = 0.0;
    }
    out->sigma_kappa = out->sigma_alpha = 0.0;
    out->dsigma_kappa_dfz = out->dsigma_alpha_dfz = 0.0;
    out->kx = out->ky = out->mux = out->muy = 0.0;
}

/* vd_mf_eval (out0 NULL) or vd_mf_eval_zs (tire_mf.h): one copy of the inlined stages, in
 * an SSE2 and an AVX2 version (VD_CLONES: the same IEEE operations, bitwise the same) */
VD_CLONES static void mf_eval(const struct vd_mf_params *p, const struct vd_mf_in *in,
                              struct vd_mf_out *out, struct vd_mf_out *out0)
{
    const double sv = in->vx < 0.0 ? -1.0 : 1.0;
    struct mf s;
    struct dv Mz;

    mf_forces(p, in, &s);
    if (out0)
        zero_slip(p, &s, out0);
    Mz = aligning(p, &s, sv);

    out->fx = s.Fx.v;
    out->fy = s.Fy.v;
    out->mz = Mz.v;
    for (int i = 0; i < NP; i++) {
        out->dfx[i] = s.Fx.d[i];
        out->dfy[i] = s.Fy.d[i];
        out->dmz[i] = Mz.d[i];
    }
    out->kx = s.kxu.v * s.fz.v;
    out->ky = s.kyu.v * s.fz.v;
    out->mux = s.mux.v;
    out->muy = s.muy.v;
    if (out0) {
        /* vd_mf_eval_zs: the tyre element has its own relaxation lengths and My */
        out->my = out->mx = 0.0;
        out->sigma_kappa = out->sigma_alpha = 0.0;
        out->dsigma_kappa_dfz = out->dsigma_alpha_dfz = 0.0;
        return;
    }

    /* relaxation lengths (MF 5.2 manual, as MFeval) */
    {
        const double t2 = p->pty2 * s.fz0p;
        struct dv den = daddc(dsq(s.fz), t2 * t2), sk, sa;

        sk = dmul(dmul(s.fz, dlin(p->ptx1, p->ptx2, s.dfz)), dexp(dscale(-p->ptx3, s.dfz)));
        sk = dscale(s.r0 / s.fz0 * p->lsgkp, sk);
        sa = den.v > 0.0 ? ddiv(dscale(2.0 * t2, s.fz), den) : dcst(0.0);
        sa = dscale(p->pty1 * s.r0 * p->lfzo * p->lsgal,
                    dmul(sa, dlin(1.0, -p->pky3, dabs(s.gamma))));
        out->sigma_kappa = sk.v;
        out->sigma_alpha = sa.v;
        out->dsigma_kappa_dfz = sk.d[VD_MF_D_FZ];
        out->dsigma_alpha_dfz = sa.d[VD_MF_D_FZ];
    }

    /* rolling resistance and overturning moments (MF 5.2 manual, as MFeval) */
    {
        const double v = p->longvl > 0.0 ? in->vx / p->longvl : 0.0, v4 = v * v * v * v;

        out->my = -s.r0 * s.fz.v * p->lmy *
                  (p->qsy1 + p->qsy2 * s.Fx.v / s.fz0 + p->qsy3 * fabs(v) + p->qsy4 * v4) *
                  roll_dir(in->vx, p->vxlow);
        out->mx = s.r0 * s.fz.v * p->lmx *
                  (p->qsx1 * p->lvmx - p->qsx2 * in->gamma + p->qsx3 * s.Fy.v / s.fz0);
    }
    if (s.v6) {
        /* MF 6.x: sigma = |K / C| (vd_mf_relax6) and My of A48 */
        double o[5], d[4];

        vd_mf_relax6(p, in->fz, in->gamma, in->p, o);
        out->sigma_kappa = o[0];
        out->dsigma_kappa_dfz = o[1];
        out->sigma_alpha = o[2];
        out->dsigma_alpha_dfz = o[3];
        out->my = vd_mf_rolling6(p, s.fz.v, s.Fx.v, in->vx, in->gamma, in->p, d) *
                  roll_dir(in->vx, p->vxlow);
    }
}

void vd_mf_eval(const struct vd_mf_params *p, const struct vd_mf_in *in, struct vd_mf_out *out)
{
    mf_eval(p, in, out, NULL);
}

void vd_mf_eval_zs(const struct vd_mf_params *p, const struct vd_mf_in *in, struct vd_mf_out *out,
                   struct vd_mf_out *out0)
{
    mf_eval(p, in, out, out0);
}

VD_CLONES void vd_mf_relax6(const struct vd_mf_params *p, double fz, double gamma, double press,
                            double out[5])
{
    struct vd_mf_in in = {0.0, 0.0, gamma, fz, 1.0, 1.0, press};
    struct mf s;
    struct dv cx, cy, sk, sa;

    /* the pure-slip stiffnesses of the MF at (fz, gamma) with their partials */
    memset(&s, 0, sizeof(s));
    s.v6 = true;
    s.dpi =
        p->nompres > 0.0 ? ((press > 0.0 ? press : p->inflpres) - p->nompres) / p->nompres : 0.0;
    s.fz0 = p->fnomin;
    s.fz0p = p->lfzo * p->fnomin;
    s.r0 = p->unloaded_radius;
    s.lmux = p->lmux;
    s.lmuy = p->lmuy;
    s.Cx = p->pcx1 * p->lcx;
    s.Cy = p->pcy1 * p->lcy;
    s.kappa = dcst(0.0);
    s.alpha = dcst(0.0);
    s.gamma = dvar(in.gamma, VD_MF_D_GAMMA);
    s.fz = in.fz < 0.0 ? dcst(0.0) : dvar(in.fz, VD_MF_D_FZ);
    s.dfz = dscale(1.0 / s.fz0p, daddc(s.fz, -s.fz0p));
    s.gy = dscale(p->lgay, s.gamma);
    s.gz = dscale(p->lgaz, s.gamma);
    pure_long(p, &s);
    pure_lat6(p, &s);
    /* carcass stiffnesses (Besselink et al. 2010, eqs. 17, 18) and sigma = |K / C| (eq. 19) */
    cx = dscale(p->cx0 * (1.0 + p->pcfx3 * s.dpi), dquad(1.0, p->pcfx1, p->pcfx2, s.dfz));
    cy = dscale(p->cy0 * (1.0 + p->pcfy3 * s.dpi), dquad(1.0, p->pcfy1, p->pcfy2, s.dfz));
    sk = dabs(ddiv(dmul(s.kxu, s.fz), cx));
    sa = dabs(ddiv(dmul(s.kyu, s.fz), cy));
    out[0] = sk.v;
    out[1] = sk.d[VD_MF_D_FZ];
    out[2] = sa.v;
    out[3] = sa.d[VD_MF_D_FZ];
    out[4] = sa.d[VD_MF_D_GAMMA];
}

double vd_mf_rolling6(const struct vd_mf_params *p, double fz, double fx, double vx, double gamma,
                      double press, double d[4])
{
    const double fz0 = p->fnomin, v0 = p->longvl > 0.0 ? p->longvl : 16.7, v = vx / v0;
    const double pr = (press > 0.0 ? press : p->inflpres) / (p->nompres > 0.0 ? p->nompres : 1.0);
    const double sv = v > 0.0 ? 1.0 : (v < 0.0 ? -1.0 : 0.0),
                 c = -p->unloaded_radius * fz0 * p->lmy;
    double q, f, g2 = gamma * gamma, pp;

    if (!(fz > 0.0)) {
        d[0] = d[1] = d[2] = d[3] = 0.0;
        return 0.0;
    }
    /* A48 (Pacejka 2012, MFeval's FITTYP 61/62 branch):
     * My = -R0 Fz0 LMY (QSY1 + QSY2 Fx/Fz0 + QSY3 |vx/V0| + QSY4 (vx/V0)^4 + (QSY5 + QSY6 Fz/Fz0)
     *      gamma^2) (Fz/Fz0)^QSY7 (p/p0)^QSY8; the direction factor is the tyre element's */
    q = p->qsy1 + p->qsy2 * fx / fz0 + p->qsy3 * fabs(v) + p->qsy4 * v * v * v * v +
        (p->qsy5 + p->qsy6 * fz / fz0) * g2;
    f = pow(fz / fz0, p->qsy7);
    pp = pr > 0.0 ? pow(pr, p->qsy8) : 0.0;
    d[0] = c * pp * (p->qsy6 / fz0 * g2 * f + q * p->qsy7 * f / fz);     /* d/dFz */
    d[1] = c * pp * f * p->qsy2 / fz0;                                   /* d/dFx */
    d[2] = c * pp * f * (p->qsy3 * sv + 4.0 * p->qsy4 * v * v * v) / v0; /* d/dvx */
    d[3] = c * pp * f * 2.0 * (p->qsy5 + p->qsy6 * fz / fz0) * gamma;    /* d/dgamma */
    return c * q * f * pp;
}
