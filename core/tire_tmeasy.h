/* core/tire_tmeasy.h - TMeasy tyre forces (vd_tm_*), the model of G. Rill, "Road Vehicle
 * Dynamics - Fundamentals and Modeling", CRC Press 2012, ch. 3 (the data model of the LSRT2
 * paper), as parameterised by Chrono's ChTMeasyTire. Pure math: owns nothing, no model/data.
 * vd_tm_eval, vd_tm_relax: RT-safe - no allocation, no syscalls, no stdio, no recursion, no
 * VLAs, bounded time (no iteration). The reader that fills struct vd_tm_params from Chrono's
 * TMeasy JSON files is config/tmeasy.h.
 *
 * Axes and signs as core/tire_mf.h (ISO W-axis; kappa = -Vsx/|Vx|, tan(alpha) = Vcy/|Vx|),
 * so the tyre element feeds both models the same inputs: sx = kappa, sy = -tan(alpha) (Rill's
 * sy = -v_y / (r_D |Omega|), normalised here by |Vx| as the element's relaxation states do;
 * the two agree in rolling and both exceed the sliding slip when the wheel locks).
 *
 * Equations (Rill 2012 s3.4, "TMeasy"; interpolation and combination as ChTMeasyTire.cpp):
 *   q = Fz / pn, Fz clamped to <= pn_max (Chrono: no extrapolation beyond 3.5 pn)
 *   the characteristic values at Fz, from their values at pn and 2 pn:
 *     dF0, Fm, Fs: quadratic through (0, 0), (1, w1), (2, w2): w = q (2 w1 - w2/2 - (w1 - w2/2) q)
 *     sm, ss, n0, sy0, syE: linear: w = w1 + (w2 - w1)(q - 1)
 *     Fm, Fs, sm, ss, sy0, syE scale with mu / mu0 (Chrono); dF0 and n0 do not
 *   normalisation (Rill eq. 3.87): hx = sxm/(sxm + sym) + (Fxm/dFx0)/(Fxm/dFx0 + Fym/dFy0),
 *     hy likewise; sxn = sx / hx, syn = sy / hy, s = sqrt(sxn^2 + syn^2), cos phi = sxn/s,
 *     sin phi = syn/s
 *   combined characteristic (Rill eq. 3.90): dF0 = |(dFx0 hx cos phi, dFy0 hy sin phi)|,
 *     Fm = |(Fxm cos phi, Fym sin phi)|, sm = |(sxm/hx cos phi, sym/hy sin phi)|, Fs, ss like
 *     Fm, sm
 *   F(s) (Rill eq. 3.82-3.84, Chrono tmxy_combined): dF0 -> max(dF0, 2 Fm/sm);
 *     s <= sm: F = dF0 s / (1 + (s/sm)(s/sm + dF0 sm/Fm - 2))
 *     sm < s <= ss: two parabolas meeting at s* = sm + (Fm - Fs)/(a (ss - sm)),
 *       a = (Fm/sm)^2/(dF0 sm): F = Fm - a (s - sm)^2 (s <= s*), F = Fs + b (ss - s)^2,
 *       b = a (s* - sm)/(ss - s*); if s* > ss the cubic F = Fm - (Fm - Fs) u^2 (3 - 2u),
 *       u = (s - sm)/(ss - sm)
 *     s > ss: F = Fs
 *   Fx = F cos phi, Fy = F sin phi (Rill eq. 3.91; Chrono multiplies F by sx/s, which
 *     differs by the factor hx and would change the initial slope to dFx0 hx: not used)
 *   Ms = -L n(sy) Fy, L = 2 sqrt(r0 Fz/cz) contact length of the linear vertical spring,
 *     n the normalised pneumatic trail (Rill eq. 3.95, Chrono tmy_tireoff):
 *     |sy| <= sy0: n = n0 ((1 - w)(1 - u) + w (1 - (3 - 2u) u^2)), u = |sy|/sy0, w = sy0/syE
 *     sy0 < |sy| <= syE: n = -n0 (1 - w)(|sy| - sy0)/sy0 ((syE - |sy|)/(syE - sy0))^2
 *     |sy| > syE: n = 0
 *   Mz = Ms + MB, the bore torque MB below (Fy in Ms without the camber force: it has no
 *     pneumatic trail, as in Chrono's ChTMeasyTire)
 *   relaxation lengths (Rill s3.9.3, the carcass cx, cy in series with the slip stiffness at
 *     low slip): sigma_kappa = dFx0(Fz)/cx, sigma_alpha = dFy0(Fz)/cy
 *
 * Camber and bore (Rill 2012 ch. 3, "bore torque" and "camber influence"; Rill 2006, "TMeasy - a
 * handling tire model based on a three-dimensional slip approach"; cross-checked against
 * ChTMeasyTire.cpp's Advance):
 *   vt = sqrt((re Omega)^2 + vN^2) the transport velocity (Rill: re |Omega| + vN; the
 *     smooth form differs by < vN^2 / (2 re |Omega|), 2.5e-6 m/s at 20 m/s, and is C-inf
 *     through Omega = 0); vN = 0.01 m/s (Chrono's m_vnum; Rill: "a small fictitious
 *     velocity")
 *   the contact patch as a circle of radius RP = (L/2 + B/2)/2 (B the tyre width), bore
 *     radius RB = 2/3 RP (the mean radius of a uniform pressure circle)
 *   bore slip sB = -RB wn / vt, wn the angular velocity of the wheel about the contact
 *     normal (carrier turning + Omega sin(gamma); Chrono keeps only the camber part
 *     Omega sin(gamma), which leaves no bore torque when steering at standstill)
 *   generalised (three-dimensional) slip sG = sqrt(sxn^2 + syn^2 + sB^2), direction (c,
 *     sn, cb) = (sxn, syn, sB) / sG; the combined characteristic as above with a third
 *     component for the bore direction: dF0 = |(dFx0 hx c, dFy0 hy sn, dFB cb)|, dFB =
 *     |(dFx0 hx, dFy0 hy)|/sqrt(2), likewise Fm, sm, Fs, ss (the bore values are those of
 *     the 45-degree direction: Chrono's choice at sc = 0; Chrono takes the in-plane
 *     direction also when sB != 0, which makes dF0 jump with the direction of a vanishing
 *     in-plane slip: here it is smooth in (sx, sy, sB) away from sG = 0, identical to
 *     Chrono at sB = 0 and at sxn = syn = 0)
 *   Fx = F c, Fy = F sn, bore torque MB = RB F cb (Chrono: RB F sB / sG)
 *   camber slip sgam = -(L/2) Omega sin(gamma) / vt; camber force Fgam = (F / sG) sgam /
 *     (3 hy): F / sG (/ hy: per unit of lateral slip, so that Fgam = dFy0 sgam / 3 at small
 *     pure slip) is the secant stiffness at the generalised slip (Chrono's "fos"), and the
 *     factor 1/3: the cambered wheel's circumference runs through the patch on the parabola
 *     x^2 sin(gamma) / (2 re) (x along the patch, |x| <= L/2), so a tread element that
 *     sticks where it enters is deflected by (L^2/4 - x^2) sin(gamma) / (2 re) at x; the
 *     mean over the patch, L^2 sin(gamma) / (12 re), is the mean deflection (L/2) s of a
 *     lateral slip s = (1/3)(L/2) sin(gamma) / re. Fy += Fgam.
 *   Rill's dynamic (parking) bore torque, a torsional spring and its relaxation state, is
 *     not modelled: at standstill vt = vN and MB = RB F(-RB wn / vN) is a stiff, saturating
 *     damper on the turning wheel (it opposes steering at rest and holds nothing).
 *
 * Smoothness: F(s) is C1 in s (f' = 0 at sm, s*, ss); Fx, Fy, MB are Lipschitz at sG = 0 but
 * only directionally differentiable there (dF0 depends on the direction), so at sG < 1e-9
 * the linear law Fx = dFx0 sx, Fy = dFy0 sy + dFy0 sgam / 3, MB = RB dFB sB is used (its
 * partials are the axis limits). The clamps (Fz <= pn_max, dF0 >= 2 Fm/sm) are kinks as in
 * Chrono. Not modelled: Rill's parking torque (above), Mx, Chrono's camber limit of 5 deg (a
 * kink; the camber slip is geometry, not a fit to extrapolate). All partials are analytic
 * (forward-mode chain rule through every intermediate). */
#ifndef VD_CORE_TIRE_TMEASY_H
#define VD_CORE_TIRE_TMEASY_H

/* one TMeasy parameter set; the two-element arrays are the values at Fz = pn and 2 pn */
struct vd_tm_params {
    double pn, pn_max; /* [N] nominal load, largest load used by the curves */
    double mu0;        /* [-] friction coefficient of the measurement */
    double r0, width;  /* [m] unloaded radius, width */
    double rim_radius; /* [m] (information) */
    double mass;       /* [kg] (information) */
    double cz, dz;     /* [N/m], [N s/m] vertical stiffness (linear) and damping */
    double cx, cy;     /* [N/m] longitudinal, lateral carcass stiffness */
    double dx, dy;     /* [N s/m] longitudinal, lateral carcass damping (information) */
    double rr;         /* [-] rolling resistance coefficient */
    double vn;         /* [m/s] fictitious velocity of the bore and camber slips (VD_TM_VN) */
    double dfx0[2], fxm[2], sxm[2], fxs[2], sxs[2]; /* [N], [N], [-], [N], [-] */
    double dfy0[2], fym[2], sym[2], fys[2], sys[2]; /* [N], [N], [-], [N], [-] */
    double nto0[2], synto0[2], syntoE[2];           /* [-] trail at sy = 0, sign change, end */
};

/* [m/s] vN of the bore and camber slips: Chrono's ChTMeasyTire m_vnum (the files carry none) */
#define VD_TM_VN 0.01

struct vd_tm_in {
    double kappa; /* [-] longitudinal slip, -Vsx/|Vx| */
    double alpha; /* [rad] slip angle, atan(Vcy/|Vx|) */
    double fz;    /* [N] vertical load (negative is taken as 0) */
    double mu;    /* [-] road friction coefficient (the model scales by mu / mu0) */
    double gamma; /* [rad] inclination (ISO: right-hand about the heading) */
    double omega; /* [rad/s] wheel spin rate Omega about its axis */
    double wn;    /* [rad/s] angular velocity of the wheel about the contact normal */
    double re;    /* [m] effective rolling radius (vt = sqrt((re Omega)^2 + vN^2)) */
};

/* the inputs of the partials in struct vd_tm_out; the first four as enum vd_mf_partial */
enum vd_tm_partial {
    VD_TM_D_KAPPA = 0,
    VD_TM_D_ALPHA,
    VD_TM_D_FZ,
    VD_TM_D_GAMMA,
    VD_TM_D_OMEGA,
    VD_TM_D_WN,
    VD_TM_D_RE,
    VD_TM_NPART
};

struct vd_tm_out {
    double fx, fy;           /* [N] (fy with the camber force) */
    double mz;               /* [N m] aligning moment Ms (without the bore torque) */
    double mb;               /* [N m] bore torque about the contact normal */
    double dfx[VD_TM_NPART]; /* partials w.r.t. enum vd_tm_partial */
    double dfy[VD_TM_NPART];
    double dmz[VD_TM_NPART];
    double dmb[VD_TM_NPART];
};

/* RT-safe */
/* forces, aligning moment, bore torque and their partials. Needs pn, cz, vn > 0 and positive
 * curve parameters (vd_tm_check). Non-finite inputs give non-finite outputs. */
void vd_tm_eval(const struct vd_tm_params *p, const struct vd_tm_in *in, struct vd_tm_out *out);
/* relaxation lengths at load fz: out = {sigma_kappa, d/dFz, sigma_alpha, d/dFz} [m, m/N] */
void vd_tm_relax(const struct vd_tm_params *p, double fz, double out[4]);

/* init-time */
/* the first violated consistency condition (as ChTMeasyTire::CheckParameters plus positivity
 * of every stiffness), or NULL */
const char *vd_tm_check(const struct vd_tm_params *p);

#endif /* VD_CORE_TIRE_TMEASY_H */
