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
 *   Mz = -L n(sy) Fy, L = 2 sqrt(r0 Fz/cz) contact length of the linear vertical spring,
 *     n the normalised pneumatic trail (Rill eq. 3.95, Chrono tmy_tireoff):
 *     |sy| <= sy0: n = n0 ((1 - w)(1 - u) + w (1 - (3 - 2u) u^2)), u = |sy|/sy0, w = sy0/syE
 *     sy0 < |sy| <= syE: n = -n0 (1 - w)(|sy| - sy0)/sy0 ((syE - |sy|)/(syE - sy0))^2
 *     |sy| > syE: n = 0
 *   relaxation lengths (Rill s3.9.3, the carcass cx, cy in series with the slip stiffness at
 *     low slip): sigma_kappa = dFx0(Fz)/cx, sigma_alpha = dFy0(Fz)/cy
 *
 * Smoothness: F(s) is C1 in s (f' = 0 at sm, s*, ss); Fx, Fy are Lipschitz at s = 0 but only
 * directionally differentiable there (dF0 depends on phi), so at s < 1e-9 the linear law
 * Fx = dFx0 sx, Fy = dFy0 sy is used (its partials are the axis limits). The clamps (Fz <=
 * pn_max, dF0 >= 2 Fm/sm) are kinks as in Chrono. Not modelled: camber (bore slip, camber
 * force, the bore torque), Rill's parking torque; Mx. All partials are analytic (forward-mode
 * chain rule through every intermediate). */
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
    double dfx0[2], fxm[2], sxm[2], fxs[2], sxs[2]; /* [N], [N], [-], [N], [-] */
    double dfy0[2], fym[2], sym[2], fys[2], sys[2]; /* [N], [N], [-], [N], [-] */
    double nto0[2], synto0[2], syntoE[2];           /* [-] trail at sy = 0, sign change, end */
};

struct vd_tm_in {
    double kappa; /* [-] longitudinal slip, -Vsx/|Vx| */
    double alpha; /* [rad] slip angle, atan(Vcy/|Vx|) */
    double fz;    /* [N] vertical load (negative is taken as 0) */
    double mu;    /* [-] road friction coefficient (the model scales by mu / mu0) */
};

struct vd_tm_out {
    double fx, fy, mz; /* [N], [N], [N m] */
    double dfx[4];     /* partials w.r.t. (kappa, alpha, fz, gamma), enum vd_mf_partial order */
    double dfy[4];
    double dmz[4];
};

/* RT-safe */
/* forces, aligning moment and their partials. Needs pn, cz > 0 and positive curve
 * parameters (vd_tm_check). Non-finite inputs give non-finite outputs. */
void vd_tm_eval(const struct vd_tm_params *p, const struct vd_tm_in *in, struct vd_tm_out *out);
/* relaxation lengths at load fz: out = {sigma_kappa, d/dFz, sigma_alpha, d/dFz} [m, m/N] */
void vd_tm_relax(const struct vd_tm_params *p, double fz, double out[4]);

/* init-time */
/* the first violated consistency condition (as ChTMeasyTire::CheckParameters plus positivity
 * of every stiffness), or NULL */
const char *vd_tm_check(const struct vd_tm_params *p);

#endif /* VD_CORE_TIRE_TMEASY_H */
