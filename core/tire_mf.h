/* core/tire_mf.h - Magic Formula tyre forces, MF 5.2 / PAC2002 and MF 6.1 / 6.2 (vd_mf_*). Pure
 * math: owns nothing, no model/data. vd_mf_params_default: init-time helper (no allocation either).
 * vd_mf_eval: RT-safe - no allocation, no syscalls, no stdio, no recursion, no VLAs, bounded
 * time (no iteration). A .tir reader that fills struct vd_mf_params is config/tir.h.
 *
 * Axes and signs: ISO / TYDEX W-axis (x forward along the wheel heading in the road plane,
 * z up along the road normal, y to the left), as MFeval and the TNO solver use them:
 * - kappa = -Vsx / |Vcx| = (Omega Re - Vcx) / |Vcx|: kappa > 0 (driving) -> Fx > 0.
 * - alpha: tan(alpha) = Vcy / |Vcx| (the contact centre sliding to the left is alpha > 0).
 *   With PAC2002 files (PKY1 < 0, all three in config/tires/) Fy < 0 for alpha > 0: Fy
 *   opposes the lateral sliding and the cornering stiffness Kya = dFy/dalpha is negative.
 *   (The book's adapted-SAE form tan(alpha) = -Vcy/|Vcx| goes with PKY1 > 0.)
 * - gamma: inclination, positive by right-hand rotation about x (wheel top leaning to -y).
 * - Mz about +z: for small alpha > 0 the pneumatic trail gives Mz = -t Fy > 0 (aligning).
 *   My < 0 for a wheel rolling forward (resistance), Mx about +x.
 * - Reversing (vx < 0): kappa and alpha as defined above (|Vcx| denominators) need no sign
 *   flip of Fx or Fy; the pneumatic trail and the residual torque change sign with
 *   sgn(vx) (trail behind the contact centre in the direction of travel), as MFeval's
 *   cos(alpha') and sgn(Vcx) factors do; My follows the rolling direction.
 * - TYRESIDE: the model is the tyre as measured. Mounting it on the other side (mirroring:
 *   negate alpha, gamma, Fy, Mx, Mz) is the caller's job.
 *
 * Equations (MF 5.2 manual as implemented in MFeval's Solver.m for FITTYP 6 and Chrono's
 * ChPac02Tire; see shared references numerics.md s3). Fz0 = FNOMIN, Fz0' = LFZO Fz0,
 * dfz = (Fz - Fz0')/Fz0', lmux = LMUX mu, lmuy = LMUY mu (mu = road friction scale),
 * gx = LGAX gamma, gy = LGAY gamma, gz = LGAZ gamma, R0 = UNLOADED_RADIUS.
 *   Fx0 = Dx sin(Cx atan(Bx kx - Ex (Bx kx - atan(Bx kx)))) + SVx,  kx = kappa + SHx
 *     Cx = PCX1 LCX, mux = (PDX1 + PDX2 dfz)(1 - PDX3 gx^2) lmux, Dx = mux Fz
 *     Kx = Fz (PKX1 + PKX2 dfz) exp(PKX3 dfz) LKX, Bx = Kx / (Cx Dx)
 *     Ex = (PEX1 + PEX2 dfz + PEX3 dfz^2)(1 - PEX4 sgn kx) LEX  (<= 1)
 *     SHx = (PHX1 + PHX2 dfz) LHX, SVx = Fz (PVX1 + PVX2 dfz) LVX lmux
 *   Fy0 = Dy sin(Cy atan(By ay - Ey (By ay - atan(By ay)))) + SVy,  ay = alpha + SHy
 *     Cy = PCY1 LCY, muy = (PDY1 + PDY2 dfz)(1 - PDY3 gy^2) lmuy, Dy = muy Fz
 *     Kya = PKY1 Fz0' sin(2 atan(Fz / (PKY2 Fz0'))) (1 - PKY3 |gy|) LKY, By = Kya / (Cy Dy)
 *     Ey = (PEY1 + PEY2 dfz)(1 - (PEY3 + PEY4 gy) sgn ay) LEY  (<= 1)
 *     SHy = (PHY1 + PHY2 dfz) LHY + PHY3 gy
 *     SVy = Fz ((PVY1 + PVY2 dfz) LVY + (PVY3 + PVY4 dfz) gy) lmuy
 *   combined slip (VD_MF_HAS_COMBINED):
 *     Fx = Gxa Fx0, Gxa = cos(Cxa atan(Bxa as - Exa (Bxa as - atan(Bxa as)))) / (same, as=SHxa)
 *       Bxa = RBX1 cos(atan(RBX2 kappa)) LXAL, Cxa = RCX1, Exa = REX1 + REX2 dfz (<= 1),
 *       SHxa = RHX1, as = alpha + SHxa
 *     Fy = Gyk Fy0 + SVyk, Gyk = cos(Cyk atan(Byk ks - Eyk (...))) / (same, ks = SHyk)
 *       Byk = RBY1 cos(atan(RBY2 (alpha - RBY3))) LYKA, Cyk = RCY1, Eyk = REY1 + REY2 dfz
 *       (<= 1), SHyk = RHY1 + RHY2 dfz, ks = kappa + SHyk
 *       SVyk = muy Fz (RVY1 + RVY2 dfz + RVY3 gy) cos(atan(RVY4 alpha))
 *              sin(RVY5 atan(RVY6 kappa)) LVYKA
 *     Fy' = Fy - SVyk
 *   combined slip fallback (no RBX/RBY/RCX/RCY in the file: friction ellipse, smooth):
 *     X = Bx kx, a = (Cy/Cx) By alpha, rx = sqrt(X^2 + a^2), sx = sgn(Bx) X/rx (0 at rx = 0)
 *     Fx = Dx (X/rx) sin(Cx atan(rx - Ex' (rx - atan rx))) + SVx / sqrt(1 + (Cy By alpha)^2)
 *       Ex' = Ex with sgn kx replaced by sx
 *     Y = By ay, b = (Cx/Cy) Bx kappa, ry = sqrt(Y^2 + b^2), sy = sgn(By) Y/ry (By < 0 for
 *     PKY1 < 0: sx, sy are the signs of kx, ay along the slip direction)
 *     Fy = Dy (Y/ry) sin(Cy atan(ry - Ey' (ry - atan ry))) + SVy / sqrt(1 + (Cx Bx kappa)^2)
 *       Ey' = Ey with sgn ay replaced by sy;  Fy' = Fy
 *     Cx X and Cy Y are the slips normalized to the friction limit (C B slip = K slip / D),
 *     so the force points along the normalized slip vector and takes the pure-slip curve's
 *     value at the combined magnitude ("similarity"). alpha = 0 gives Fx = Fx0 and kappa = 0
 *     gives Fy = Fy0 exactly; (Fx/Dx)^2 + (Fy/Dy)^2 <= 1 exactly without shifts (SH, SV),
 *     within O(SH, SV) otherwise. X/rx * sin(...) is an even function of rx times X, hence
 *     smooth at kappa = alpha = 0 (a series is used for rx < 1e-4).
 *   Mz = -t Fy' + Mzr + s Fx
 *     at = alpha + SHt, SHt = QHZ1 + QHZ2 dfz + (QHZ3 + QHZ4 dfz) gz
 *     Bt = (QBZ1 + QBZ2 dfz + QBZ3 dfz^2)(1 + QBZ4 gz + QBZ5 |gz|) LKY / lmuy, Ct = QCZ1
 *     Dt = Fz (R0/Fz0)(QDZ1 + QDZ2 dfz)(1 + QDZ3 gz + QDZ4 gz^2) LTR sgn(vx)
 *       (MFeval: R0/Fz0' and t multiplied by LFZO, "as in TNO's dteval" - the same thing)
 *     Et = (QEZ1 + QEZ2 dfz + QEZ3 dfz^2)(1 + (QEZ4 + QEZ5 gz)(2/pi) atan(Bt Ct at)) (<= 1)
 *     ar = alpha + SHy + SVy/Kya, Br = QBZ9 LKY/lmuy + QBZ10 By Cy, Cr = 1
 *     Dr = Fz R0 ((QDZ6 + QDZ7 dfz) LRES + (QDZ8 + QDZ9 dfz) gz) lmuy cos(alpha) sgn(vx)
 *     at,eq = atan(sqrt(tan^2 at + (Kx/Kya)^2 kappa^2)) sgn at, ar,eq likewise (paper A54/55)
 *     t = Dt cos(Ct atan(Bt at,eq - Et (Bt at,eq - atan(Bt at,eq)))) cos(alpha)
 *     Mzr = Dr cos(Cr atan(Br ar,eq)),  s = R0 (SSZ1 + SSZ2 Fy/Fz0 + (SSZ3 + SSZ4 dfz) gz) LS
 *   My = -R0 Fz LMY (QSY1 + QSY2 Fx/Fz0 + QSY3 |vx/V0| + QSY4 (vx/V0)^4) w(vx), V0 = LONGVL,
 *     w = sin(pi/2 clamp(vx/VXLOW, -1, 1)) (sgn(vx) if VXLOW = 0): 0 at standstill, C1
 *   Mx = R0 Fz (QSX1 LVMX - QSX2 gamma + QSX3 Fy/Fz0) LMX
 *   relaxation lengths (MF 5.2 manual, as MFeval; Chrono uses exp(+PTX3 dfz) and R0/Fz0'):
 *     sigma_kappa = Fz (PTX1 + PTX2 dfz) exp(-PTX3 dfz) (R0/Fz0) LSGKP
 *     sigma_alpha = PTY1 sin(2 atan(Fz / (PTY2 Fz0'))) (1 - PKY3 |gamma|) R0 LFZO LSGAL
 *
 * Smoothness and conventions (all partials are analytic: forward-mode chain rule through
 * every intermediate, including dfz, Kx, Bx, Ex, SHx, SVx, Gxa, Gyk, SVyk, t, Mzr and the
 * equivalent slips):
 * - No low-speed reduction, no input limits (KPUMIN.. are not applied), no FZMIN reduction
 *   of My/Mx: loads above FZMAX extrapolate. mu is clamped to >= VD_MF_MU_MIN, fz < 0 to 0.
 * - Fz -> 0: Bx = Kx/(Cx Dx) and By, Kx/Kya, SVy/Kya are evaluated per unit load (Fz
 *   cancels; Kya/Fz = 2 PKY1 PKY2 Fz0'^2 / ((PKY2 Fz0')^2 + Fz^2) (1 - PKY3|gy|) LKY exactly),
 *   so forces and moments go to 0 linearly and the partials are the one-sided limits; a
 *   1e-12 guard replaces MFeval's epsilon (1e-6 on Cx Dx) in the denominators.
 * - sgn(kx) in Ex and sgn(ay) in Ey (MFeval, sgn(0) = +1) are piecewise constant: the jump
 *   multiplies X - atan X = O(X^3), so Fx0 and Fy0 stay C2 there. sgn(at), sgn(ar) in the
 *   equivalent slips (sgn(0) = +1; MATLAB's sign(0) = 0 would make Mz jump at at = 0) do not
 *   matter: t and Mzr are even in them, i.e. smooth functions of tan^2 at + (Kx/Kya)^2
 *   kappa^2. |gamma| has derivative sgn(gamma) with sgn(0) = 0 (the central difference).
 * - The MF clamps E <= 1 are kept (as MFeval): the only kinks besides |gamma| = 0.
 * - Fy' in Mz is Fy - SVyk of the same evaluation (MF 5.2 manual). MFeval's FITTYP 6 branch
 *   subtracts SVyk computed with muy(gamma = 0): it differs by SVyk PDY3 gy^2 / (1 - ...).
 * - MF 5.2 has no pressure terms; turn slip and the gyroscopic torque (QTZ1, MBELT) are off.
 *
 * MF 6.1 / 6.2 (fittyp 61, 62; Pacejka 2012 4.E1-E78, pressure terms of Besselink, Schmeitz,
 * Pacejka, VSD 48 suppl. 2010; MFeval's FITTYP 61/62 branch), on top of the above:
 *   dpi = (p - NOMPRES)/NOMPRES, p = vd_mf_in.p or INFLPRES;
 *   mux *(1 + PPX3 dpi + PPX4 dpi^2), Kx *(1 + PPX1 dpi + PPX2 dpi^2),
 *   muy *(1 + PPY3 dpi + PPY4 dpi^2),
 *   Kya = PKY1 Fz0' (1 + PPY1 dpi)(1 - PKY3 |gy|) sin(PKY4 atan((Fz/Fz0') /
 *         ((PKY2 + PKY5 gy^2)(1 + PPY2 dpi)))) LKY  (per unit load through sin(P atan q)/q),
 *   Kyg0 = Fz (PKY6 + PKY7 dfz)(1 + PPY5 dpi) LKYC, SVyg = Fz (PVY3 + PVY4 dfz) gy LKYC lmuy,
 *   SHy = (PHY1 + PHY2 dfz) LHY + (Kyg0 gy - SVyg)/Kya, SVy = Fz (PVY1 + PVY2 dfz) LVY lmuy + SVyg,
 *   Ey *(1 + PEY5 gy^2 - (PEY3 + PEY4 gy) sgn ay), Bxa with (RBX1 + RBX3 gamma^2), Byk with
 *   (RBY1 + RBY4 gamma^2), Dt *(1 - PPZ1 dpi), Dr's camber term ((QDZ8 + QDZ9 dfz)(1 + PPZ2
 *   dpi) + (QDZ10 + QDZ11 dfz)|gamma|) gamma LKZC, Fy' = Gyk Fy0(gamma = 0) (4.E74);
 *   relaxation sigma_kappa = |Kx / Cx|, sigma_alpha = |Kya / Cy| with Cx = LONGITUDINAL_STIFFNESS
 *   (1 + PCFX1 dfz + PCFX2 dfz^2)(1 + PCFX3 dpi), Cy likewise (Besselink 2010 eqs. 17-19,
 *   vd_mf_relax6); My = -R0 Fz0 LMY (QSY1 + QSY2 Fx/Fz0 + QSY3 |vx/V0| + QSY4 (vx/V0)^4 +
 *   (QSY5 + QSY6 Fz/Fz0) gamma^2)(Fz/Fz0)^QSY7 (p/p0)^QSY8 (A48, vd_mf_rolling6).
 *   MF 6.2 uses the same force and moment equations (its additions, Q_FCY2, Q_CAM1..3,
 *   Q_FYS1..3, ENV_C1/2, belong to the vertical and enveloping models MF-Swift adds). Not
 *   implemented: turn slip ([TURNSLIP_COEFFICIENTS] skipped: off), QSX4..14 and PPMX1 of Mx
 *   (read; Mx keeps the QSX1..3 form and is not applied by the tyre element), the MF 6.x
 *   vertical model (the element's vertical spring is VERTICAL_STIFFNESS / _DAMPING). */
#ifndef VD_CORE_TIRE_MF_H
#define VD_CORE_TIRE_MF_H

#define VD_MF_MU_MIN 1e-3 /* smallest road friction scale used */

/* which parts of the parameter set were given (the rest is 0, scaling factors 1) */
enum vd_mf_flags {
    VD_MF_HAS_FX = 1u << 0,       /* [LONGITUDINAL_COEFFICIENTS] pure slip */
    VD_MF_HAS_FY = 1u << 1,       /* [LATERAL_COEFFICIENTS] pure slip */
    VD_MF_HAS_MZ = 1u << 2,       /* [ALIGNING_COEFFICIENTS] */
    VD_MF_HAS_COMBINED = 1u << 3, /* RBX1 RBX2 RCX1 RBY1 RBY2 RCY1 all given; else ellipse */
    VD_MF_HAS_MX = 1u << 4,       /* [OVERTURNING_COEFFICIENTS] */
    VD_MF_HAS_MY = 1u << 5,       /* [ROLLING_COEFFICIENTS] */
    VD_MF_HAS_RELAX = 1u << 6,    /* PTX1 and PTY1 given */
};

enum vd_mf_side {
    VD_MF_LEFT = 0, /* TYRESIDE of the measurement */
    VD_MF_RIGHT,
};

/* one MF 5.2 / PAC2002 or MF 6.1 / 6.2 coefficient set, names as in the .tir file (lower
 * case); the MF 6.x keys are 0 (scaling factors 1) in an MF 5.2 set */
struct vd_mf_params {
    unsigned flags; /* enum vd_mf_flags */
    int side;       /* enum vd_mf_side: TYRESIDE (information only) */
    int fittyp;     /* 6: the MF 5.2 / PAC2002 family (FITTYP 5, 6, 21, 52); 61, 62: MF 6.1, 6.2 */
    /* MF 6.x [OPERATING_CONDITIONS], [STRUCTURAL] */
    double inflpres, nompres; /* [Pa] inflation and nominal pressure */
    double cx0, cy0;          /* [N/m] LONGITUDINAL_, LATERAL_STIFFNESS */
    double pcfx1, pcfx2, pcfx3, pcfy1, pcfy2, pcfy3;
    /* MF 6.x coefficients: pressure (PP*), camber and load terms */
    double ppx1, ppx2, ppx3, ppx4, ppy1, ppy2, ppy3, ppy4, ppy5, ppz1, ppz2, ppmx1;
    double pey5, pky4, pky5, pky6, pky7, rbx3, rby4, qdz10, qdz11;
    double qsy5, qsy6, qsy7, qsy8;
    double lkyc, lkzc; /* scaling of the camber force and camber torque stiffness, default 1 */
    /* [MODEL] [DIMENSION] [VERTICAL] */
    double longvl;             /* [m/s] measurement speed V0 */
    double vxlow;              /* [m/s] below this My fades to 0 */
    double unloaded_radius;    /* [m] R0 */
    double width;              /* [m] */
    double vertical_stiffness; /* [N/m] */
    double vertical_damping;   /* [N s/m] */
    double fnomin;             /* [N] nominal load Fz0 */
    /* [SCALING_COEFFICIENTS], dimensionless, default 1 */
    double lfzo, lcx, lmux, lex, lkx, lhx, lvx, lgax;
    double lcy, lmuy, ley, lky, lhy, lvy, lgay;
    double ltr, lres, lgaz, lxal, lyka, lvyka, ls, lsgkp, lsgal, lgyr, lmx, lvmx, lmy;
    /* [LONGITUDINAL_COEFFICIENTS] */
    double pcx1, pdx1, pdx2, pdx3, pex1, pex2, pex3, pex4, pkx1, pkx2, pkx3;
    double phx1, phx2, pvx1, pvx2;
    double rbx1, rbx2, rcx1, rex1, rex2, rhx1;
    double ptx1, ptx2, ptx3;
    /* [OVERTURNING_COEFFICIENTS] */
    double qsx1, qsx2, qsx3;
    /* [LATERAL_COEFFICIENTS] */
    double pcy1, pdy1, pdy2, pdy3, pey1, pey2, pey3, pey4, pky1, pky2, pky3;
    double phy1, phy2, phy3, pvy1, pvy2, pvy3, pvy4;
    double rby1, rby2, rby3, rcy1, rey1, rey2, rhy1, rhy2;
    double rvy1, rvy2, rvy3, rvy4, rvy5, rvy6;
    double pty1, pty2;
    /* [ROLLING_COEFFICIENTS] */
    double qsy1, qsy2, qsy3, qsy4;
    /* [ALIGNING_COEFFICIENTS] */
    double qbz1, qbz2, qbz3, qbz4, qbz5, qbz9, qbz10, qcz1;
    double qdz1, qdz2, qdz3, qdz4, qdz6, qdz7, qdz8, qdz9;
    double qez1, qez2, qez3, qez4, qez5, qhz1, qhz2, qhz3, qhz4;
    double ssz1, ssz2, ssz3, ssz4;
    double qtz1, mbelt; /* gyroscopic torque [-], [kg]: read, not used by vd_mf_eval */
};

struct vd_mf_in {
    double kappa; /* longitudinal slip [-], -Vsx/|Vcx| */
    double alpha; /* slip angle [rad], atan(Vcy/|Vcx|) */
    double gamma; /* inclination [rad] */
    double fz;    /* vertical load [N] >= 0 (negative is taken as 0) */
    double mu;    /* road friction scale [-], 1 = the tyre's own (multiplies LMUX, LMUY) */
    double vx;    /* contact-point forward speed [m/s]; only its sign (Mz) and My use it */
    double p;     /* inflation pressure [Pa] (MF 6.x; <= 0: the file's INFLPRES) */
};

/* index of a partial in dfx/dfy/dmz */
enum vd_mf_partial {
    VD_MF_D_KAPPA = 0, /* d/dkappa */
    VD_MF_D_ALPHA,     /* d/dalpha [1/rad] */
    VD_MF_D_FZ,        /* d/dFz [1/N] */
    VD_MF_D_GAMMA,     /* d/dgamma [1/rad] */
};

struct vd_mf_out {
    double fx, fy, mz;  /* [N], [N], [N m] combined slip */
    double my, mx;      /* [N m] rolling resistance, overturning */
    double dfx[4];      /* partials of fx w.r.t. (kappa, alpha, fz, gamma), enum vd_mf_partial */
    double dfy[4];      /* partials of fy, same order */
    double dmz[4];      /* partials of mz, same order */
    double sigma_kappa; /* [m] longitudinal relaxation length */
    double sigma_alpha; /* [m] lateral relaxation length */
    double dsigma_kappa_dfz; /* [m/N] */
    double dsigma_alpha_dfz; /* [m/N] */
    double kx, ky;           /* [N], [N/rad] slip stiffnesses Kx, Kya at this load and gamma */
    double mux, muy; /* [-] peak friction coefficients (incl. mu and scaling): Dx/Fz, Dy/Fz */
};

/* init-time */
/* all coefficients 0, all scaling factors 1, flags 0, side left */
void vd_mf_params_default(struct vd_mf_params *p);

/* RT-safe */
/* forces, moments, their partials and the relaxation lengths at one operating point.
 * Needs p->fnomin > 0, p->lfzo > 0 and p->unloaded_radius > 0 (vd_tir_load checks them).
 * Non-finite inputs give non-finite outputs: check at the stage boundary (isfinite). */
void vd_mf_eval(const struct vd_mf_params *p, const struct vd_mf_in *in, struct vd_mf_out *out);
/* the same Fx, Fy and their partials only (the rest of out zeroed): for the zero-slip forces
 * the tyre element fades in with speed (core/tire.c), at a third of the cost */
void vd_mf_eval_forces(const struct vd_mf_params *p, const struct vd_mf_in *in,
                       struct vd_mf_out *out);
/* vd_mf_eval's forces, moments, partials, slip stiffnesses and friction coefficients into
 * out (fx, fy, mz, dfx, dfy, dmz, kx, ky, mux, muy; my, mx and the relaxation lengths, which
 * the tyre element computes itself, are 0) and, from the same pure-slip intermediates, the
 * zero-slip forces Fx, Fy at kappa = alpha = 0 with their Fz and gamma partials into out0
 * (the values vd_mf_eval_forces gives there; out0's kappa and alpha partials and the rest are
 * 0): the tyre element's evaluation with its standstill fade (core/tire.c) */
void vd_mf_eval_zs(const struct vd_mf_params *p, const struct vd_mf_in *in, struct vd_mf_out *out,
                   struct vd_mf_out *out0);

/* MF 6.x relaxation lengths sigma = |Kx / Cx|, |Kya / Cy| (Besselink et al. 2010, eq. 19; the
 * carcass stiffnesses LONGITUDINAL_/LATERAL_STIFFNESS with PCFX1..3, PCFY1..3) at load fz,
 * inclination gamma and pressure press (<= 0: INFLPRES): out = {sigma_kappa, d/dFz,
 * sigma_alpha, d/dFz, d/dgamma} [m, m/N, m, m/N, m/rad]. RT-safe. */
void vd_mf_relax6(const struct vd_mf_params *p, double fz, double gamma, double press,
                  double out[5]);
/* MF 6.x rolling resistance moment without its direction factor (A48; see vd_mf_rolling6 in
 * tire_mf.c) and its partials d = (d/dFz, d/dFx, d/dvx, d/dgamma); 0 for fz <= 0. RT-safe. */
double vd_mf_rolling6(const struct vd_mf_params *p, double fz, double fx, double vx, double gamma,
                      double press, double d[4]);

#endif /* VD_CORE_TIRE_MF_H */
