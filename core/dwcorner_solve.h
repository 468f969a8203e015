/* core/dwcorner_solve.h - the double-wishbone closure's poses as series of the coordinates,
 * written once for two series arithmetics: included by core/dwcorner.c only, twice, with
 *   TS          the series type (struct vd_ts of core/taylor.h: one line through q; struct
 *               vd_tp of core/taypoly.h: every derivative to the third in two coordinates),
 *   TSF(op)     its operations (vdu_ts_op, vdu_tp_op),
 *   DWC_SUFFIX  the suffix of this instance's static functions (L(name)),
 *   DWC_ONLY_B  (optional) defined: only solve_b (the two-coordinate corners compute solve_a,
 *               the part in the travel alone, in the one-coordinate arithmetic).
 * No include guard by design; it undefines its own helper macro at the end. */
#define DWC_CAT2(a, b) a##_##b
#define DWC_CAT(a, b)  DWC_CAT2(a, b)
#define L(name)        DWC_CAT(name, DWC_SUFFIX)

/* ---- series helpers --------------------------------------------------------------------- */

static void L(v_const)(TS r[3], const double a[3])
{
    for (int i = 0; i < 3; i++)
        r[i] = TSF(const)(a[i]);
}

/* r = R v (R series, v constant) */
static void L(mv)(TS r[3], const TS R[9], const double v[3])
{
    for (int i = 0; i < 3; i++)
        r[i] = TSF(add)(TSF(add)(TSF(scale)(v[0], R[3 * i]), TSF(scale)(v[1], R[3 * i + 1])),
                        TSF(scale)(v[2], R[3 * i + 2]));
}

/* r = R A (A constant) */
static void L(mm)(TS r[9], const TS R[9], const double A[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r[3 * i + j] =
                TSF(add)(TSF(add)(TSF(scale)(A[j], R[3 * i]), TSF(scale)(A[3 + j], R[3 * i + 1])),
                         TSF(scale)(A[6 + j], R[3 * i + 2]));
}

/* R = I + sin(ang) [a]x + (1 - cos(ang)) [a]x^2 (Rodrigues) */
static void L(rot)(TS R[9], const double a[3], TS ang)
{
    double K[9], K2[9];
    const TS s = TSF(sin)(ang), omc = TSF(sub)(TSF(const)(1.0), TSF(cos)(ang));

    vdu_skew(K, a);
    vdu_mat3_mul(K2, K, K);
    for (int i = 0; i < 9; i++) {
        R[i] = TSF(add)(TSF(scale)(K[i], s), TSF(scale)(K2[i], omc));
        R[i].c[0] += (i % 4 == 0) ? 1.0 : 0.0;
    }
}

/* Q = F F0^T: the rotation from the design pose of a frame F (columns a, b, c) that was F0
 * (row-major) there */
static void L(frame)(TS Q[9], const TS a[3], const TS b[3], const TS c[3], const double F0[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            Q[3 * i + j] =
                TSF(add)(TSF(add)(TSF(scale)(F0[3 * j], a[i]), TSF(scale)(F0[3 * j + 1], b[i])),
                         TSF(scale)(F0[3 * j + 2], c[i]));
}

/* x = p + R (x0 - p0) */
static void L(place)(TS X[3], const TS p[3], const TS R[9], const double x0[3], const double p0[3])
{
    double d[3];
    TS t[3];

    vdu_sub3(d, x0, p0);
    L(mv)(t, R, d);
    for (int i = 0; i < 3; i++)
        X[i] = TSF(add)(p[i], t[i]);
}

/* the angle solving A cos x + B sin x = C on branch sig; -EDOM where it has no solution */
static int L(circle)(TS *x, TS A, TS B, TS C, double sig)
{
    const TS rho = TSF(sqrt)(TSF(add)(TSF(mul)(A, A), TSF(mul)(B, B)));
    const TS u = TSF(div)(C, rho);

    if (!(fabs(u.c[0]) < 1.0))
        return -EDOM;
    *x = TSF(add)(TSF(atan2)(B, A), TSF(scale)(sig, TSF(acos)(u)));
    return 0;
}

/* ---- the closure ------------------------------------------------------------------------ */

#ifndef DWC_ONLY_B
/* the part of the closure in the travel q0 alone: lower arm, upper arm and strut (their
 * poses into R, X) and what the knuckle needs of it: the lower ball joint Bl and the frame
 * (u1 along the kingpin, f1, f2) of the tie rod joint's circle about it */
static int L(solve_a)(const struct vd_dwc *c, TS q0, TS R[VD_DWC_NB][9], TS X[VD_DWC_NB][3],
                      TS Bl[3], TS u1[3], TS f1[3], TS f2[3])
{
    TS Rl[9], Ru[9], Bu[3], Bs[3], w[3], t[3], m[3], z[3], xi[3], yi[3], cl[3], cu[3], top[3];
    TS Q[9], A, B, C, phi, k;

    /* 1. lower arm */
    L(rot)(Rl, c->al, q0);
    L(v_const)(cl, c->cl);
    L(place)(Bl, cl, Rl, c->bl, c->cl);
    L(place)(Bs, cl, Rl, c->bot, c->cl);
    L(mm)(R[VD_DWC_LCA], Rl, c->A0[VD_DWC_LCA]);
    L(place)(X[VD_DWC_LCA], cl, Rl, c->x0[VD_DWC_LCA], c->cl);
    /* 2. upper arm: |centre + cos phi perp + sin phi e2 - B_l| = l_ku */
    for (int i = 0; i < 3; i++)
        w[i] = TSF(sub)(TSF(const)(c->u_par[i]), Bl[i]);
    L(v_const)(t, c->u_perp);
    A = TSF(scale)(2.0, TSF(dot3)(w, t));
    L(v_const)(t, c->u_e2);
    B = TSF(scale)(2.0, TSF(dot3)(w, t));
    C = TSF(sub)(TSF(const)(c->l_ku * c->l_ku - vdu_dot3(c->u_perp, c->u_perp)), TSF(dot3)(w, w));
    if (L(circle)(&phi, A, B, C, c->sig_u))
        return -EDOM;
    L(rot)(Ru, c->au, phi);
    L(v_const)(cu, c->cu);
    L(place)(Bu, cu, Ru, c->bu, c->cu);
    L(mm)(R[VD_DWC_UCA], Ru, c->A0[VD_DWC_UCA]);
    L(place)(X[VD_DWC_UCA], cu, Ru, c->x0[VD_DWC_UCA], c->cu);
    /* 3. knuckle: kingpin u1, the tie rod joint on the circle (alpha, rho) about it */
    for (int i = 0; i < 3; i++)
        t[i] = TSF(sub)(Bu[i], Bl[i]);
    TSF(normalize3)(u1, t);
    L(mv)(m, Rl, c->k_m0);
    k = TSF(dot3)(m, u1);
    for (int i = 0; i < 3; i++)
        t[i] = TSF(sub)(m[i], TSF(mul)(k, u1[i]));
    TSF(normalize3)(f1, t);
    TSF(cross3)(f2, u1, f1);
    /* 5. strut: z along top - bottom; rod and tube share the axes */
    L(v_const)(top, c->top);
    for (int i = 0; i < 3; i++)
        t[i] = TSF(sub)(top[i], Bs[i]);
    TSF(normalize3)(z, t);
    L(v_const)(t, c->st_y);
    TSF(cross3)(xi, t, z);
    TSF(normalize3)(xi, xi);
    for (int i = 0; i < 3; i++)
        xi[i] = TSF(scale)(c->sig_st, xi[i]);
    TSF(cross3)(yi, z, xi);
    L(frame)(Q, xi, yi, z, c->F0st);
    L(mm)(R[VD_DWC_ROD], Q, c->A0[VD_DWC_ROD]);
    L(mm)(R[VD_DWC_TUBE], Q, c->A0[VD_DWC_TUBE]);
    L(place)(X[VD_DWC_ROD], top, Q, c->x0[VD_DWC_ROD], c->top);
    L(place)(X[VD_DWC_TUBE], Bs, Q, c->x0[VD_DWC_TUBE], c->bot);
    return 0;
}

#endif /* DWC_ONLY_B */

/* the rest: the tie rod's inner joint Ti (q1 with nd 2), the knuckle and the tie rod */
static int L(solve_b)(const struct vd_dwc *c, const TS *q, const TS Bl[3], const TS u1[3],
                      const TS f1[3], const TS f2[3], TS R[VD_DWC_NB][9], TS X[VD_DWC_NB][3])
{
    TS w[3], t[3], g1[3], g2[3], Ti[3], To[3], z[3], xi[3], yi[3], Q[9], A, B, C, psi;

    if (c->nd > 1 && c->swing) {
        TS Rs[9], ra[3];

        L(rot)(Rs, c->swing_a, q[1]);
        L(mv)(ra, Rs, c->swing_arm);
        for (int i = 0; i < 3; i++)
            Ti[i] = TSF(add)(ra[i], TSF(const)(c->ti[i] - c->swing_arm[i]));
    } else {
        for (int i = 0; i < 3; i++) {
            Ti[i] = TSF(const)(c->ti[i]);
            if (c->nd > 1)
                Ti[i] = TSF(add)(Ti[i], TSF(scale)(c->rack[i], q[1]));
        }
    }
    for (int i = 0; i < 3; i++) {
        w[i] = TSF(sub)(TSF(add)(Bl[i], TSF(scale)(c->k_alpha, u1[i])), Ti[i]);
    }
    A = TSF(scale)(2.0 * c->k_rho, TSF(dot3)(w, f1));
    B = TSF(scale)(2.0 * c->k_rho, TSF(dot3)(w, f2));
    C = TSF(sub)(TSF(const)(c->l_tr * c->l_tr - c->k_rho * c->k_rho), TSF(dot3)(w, w));
    if (L(circle)(&psi, A, B, C, c->sig_k))
        return -EDOM;
    {
        const TS cp = TSF(cos)(psi), sp = TSF(sin)(psi);

        for (int i = 0; i < 3; i++)
            g1[i] = TSF(add)(TSF(mul)(cp, f1[i]), TSF(mul)(sp, f2[i]));
    }
    TSF(cross3)(g2, u1, g1);
    L(frame)(Q, u1, g1, g2, c->F0k);
    L(mm)(R[VD_DWC_KNUCKLE], Q, c->A0[VD_DWC_KNUCKLE]);
    L(place)(X[VD_DWC_KNUCKLE], Bl, Q, c->x0[VD_DWC_KNUCKLE], c->bl);
    for (int i = 0; i < 3; i++)
        To[i] =
            TSF(add)(TSF(add)(Bl[i], TSF(scale)(c->k_alpha, u1[i])), TSF(scale)(c->k_rho, g1[i]));
    /* 4. tie rod: z along T_o - T_i, x normal to the mount's y */
    for (int i = 0; i < 3; i++)
        t[i] = TSF(sub)(To[i], Ti[i]);
    TSF(normalize3)(z, t);
    L(v_const)(t, c->tr_y);
    TSF(cross3)(xi, t, z);
    TSF(normalize3)(xi, xi);
    for (int i = 0; i < 3; i++)
        xi[i] = TSF(scale)(c->sig_tr, xi[i]);
    TSF(cross3)(yi, z, xi);
    L(frame)(Q, xi, yi, z, c->F0tr);
    L(mm)(R[VD_DWC_TIEROD], Q, c->A0[VD_DWC_TIEROD]);
    L(place)(X[VD_DWC_TIEROD], Ti, Q, c->x0[VD_DWC_TIEROD], c->ti);
    return 0;
}

#ifndef DWC_ONLY_B
/* poses of the six bodies as series of the coordinates q (nd) */
static int L(solve)(const struct vd_dwc *c, const TS *q, TS R[VD_DWC_NB][9], TS X[VD_DWC_NB][3])
{
    TS Bl[3], u1[3], f1[3], f2[3];

    if (L(solve_a)(c, q[0], R, X, Bl, u1, f1, f2))
        return -EDOM;
    return L(solve_b)(c, q, Bl, u1, f1, f2, R, X);
}
#endif /* DWC_ONLY_B */

#undef L
#undef DWC_CAT
#undef DWC_CAT2
