/* core/cstep.c - the constrained LIE step: cstep.h. */
#include "cstep.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "csolve.h"
#include "eval.h"
#include "joint.h"
#include "kinematics.h"
#include "solve.h"
#include "step.h"
#include "vdmath.h"

static int64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void stage_u(struct vd_data *d, double t, double *u, int nu)
{
    if (d->input_fn)
        d->input_fn(d->input_ctx, t, u);
    else
        memcpy(u, d->u, (size_t)nu * sizeof(double));
}

static bool all_finite(const double *x, int n)
{
    double s = 0.0;

    for (int i = 0; i < n; i++)
        s += x[i];
    return isfinite(s);
}

int vd_step_constrained(const struct vd_model *m, struct vd_data *d)
{
    const int nq = m->nq, nu = m->ninput, nz = m->nz, nc = m->nc;
    const bool lsrt2 = m->opt.method == VD_METHOD_LSRT2;
    const double dt = m->opt.dt, c1 = dt * (lsrt2 ? VD_LSRT2_GAMMA : 1.0);
    const size_t mark = vd_arena_mark(d);
    const size_t NQ = (size_t)nq, NZ = (size_t)nz, NC = (size_t)nc;
    double *u0 = vd_arena_doubles(d, (size_t)nu), *u1 = vd_arena_doubles(d, (size_t)nu);
    double *h = vd_arena_doubles(d, NQ), *p = vd_arena_doubles(d, NQ);
    double *rv = vd_arena_doubles(d, NQ), *tmp = vd_arena_doubles(d, NQ);
    double *wk = vd_arena_doubles(d, NQ), *rn = vd_arena_doubles(d, NQ);
    double *vn = vd_arena_doubles(d, NQ), *rc = vd_arena_doubles(d, (size_t)nc);
    double *g1 = vd_arena_doubles(d, NZ), *rz = vd_arena_doubles(d, NZ);
    double *zn = vd_arena_doubles(d, NZ), *dv1 = vd_arena_doubles(d, NQ);
    double *dr1 = vd_arena_doubles(d, NQ), *dz1 = vd_arena_doubles(d, NZ);
    /* LSRT2 only: G_n^T l_1 (nq); the stage-2 constraint base and s'(t + dt) (nc) */
    double *gtl = lsrt2 ? vd_arena_doubles(d, NQ) : rc, *cb = lsrt2 ? vd_arena_doubles(d, NC) : rc;
    double *sp1 = lsrt2 ? vd_arena_doubles(d, NC) : rc;
    double *vs = lsrt2 ? vd_arena_doubles(d, NQ) : d->v; /* the start velocity (LSRT2: made
                                                            consistent first) */
    int64_t t0, t1;
    int rc_ = 0;

    if (!u0 || !u1 || !h || !p || !rv || !tmp || !wk || !rn || !vn || !rc || !g1 || !rz || !zn ||
        !dv1 || !dr1 || !dz1 || !gtl || !cb || !sp1 || !vs) {
        rc_ = -ENOMEM;
        goto out_release;
    }
    memset(d->stage_ns, 0, sizeof(d->stage_ns));

    /* forces, Jacobians and constraints at (r_n, v_n, u(t)) */
    t0 = now_ns();
    stage_u(d, d->t, u0, nu);
    stage_u(d, d->t + dt, u1, nu);
    rc_ = vd_eval_ex(m, d, d->r, d->v, d->z, u0, h, g1, true, true);
    if (rc_)
        goto out_release;
    vd_joint_eval(m, d, u0, lsrt2);
    d->cres = vd_joint_residual(m, d);
    vd_joint_target(m, u0, d->js0);
    vd_joint_target(m, u1, d->js1);
    if (lsrt2) {
        /* the driven coordinates' s', s'' from s at t, t + dt/2, t + dt (exact for a
         * quadratic s): s''; s'(t) - G_n v_n, the velocity defect (zero for a consistent
         * state); s'(t + dt) for the velocity projection. u0 becomes u(t + c2 dt) for
         * stage 2 (the inputs sampled in the same order as before) */
        stage_u(d, d->t + VD_LSRT2_C2 * dt, u0, nu);
        vd_joint_target(m, u0, sp1);
        vd_joint_G_mul(m, d, d->v, rc);
        for (int r = 0; r < nc; r++) {
            const double s0 = d->js0[r], sh = sp1[r], s1 = d->js1[r];
            const double spp = 4.0 * (s0 - 2.0 * sh + s1) / (dt * dt);

            cb[r] = (-3.0 * s0 + 4.0 * sh - s1) / dt - rc[r];
            sp1[r] = (s0 - 4.0 * sh + 3.0 * s1) / dt;
            d->jlam[r] = spp; /* s'' until stage 1 */
        }
    }
    t1 = now_ns();
    d->stage_ns[VD_STAGE_LINEARIZE] += t1 - t0;

    /* [S G^T; G 0] (index2) or the reduced system (nullspace), S = M - dt Jv - dt^2 Jr K */
    if (!d->S && !vd_cs_structured(m)) {
        rc_ = -EINVAL;
        goto out_release;
    }
    vd_cs_assemble(m, d, 1.0, c1, c1 * c1);
    vd_z_linearize(m, d, c1, c1 * c1);
    t0 = now_ns();
    d->stage_ns[VD_STAGE_ASSEMBLE] += t0 - t1;
    d->last_info = vd_cs_factor(m, d);
    t1 = now_ns();
    d->stage_ns[VD_STAGE_FACTOR] += t1 - t0;
    if (d->last_info) {
        d->warn[VD_WARN_SINGULAR]++;
        d->lin_age = -1;
        rc_ = -EDOM;
        goto out_release;
    }
    d->lin_age = 0;
    if (lsrt2) {
        /* the start velocity onto G_n v = s'(t) with the factors (one simplified step, as the
         * velocity projection below): the acceleration-level stages keep a velocity defect
         * as it is, and a driven model starts from rest with one. h and the tyre rows follow
         * to first order in the change dv (Jv, Gv): exact for the consistent states of a
         * running step, where dv is of the projection's residual */
        vd_cs_correct(m, d, cb, tmp);
        for (int i = 0; i < nq; i++)
            vs[i] = d->v[i] + tmp[i];
        vd_jv_mul_add(m, d, tmp, h);
        vd_z_g_mul_add(m, d, 1.0, NULL, tmp, NULL, g1);
        memcpy(cb, d->jlam, NC * sizeof(double)); /* s'' */
    }

    /* stage 1: S a + G^T l = h + c1 Jr K v and the constraint rows: LIE (index 2), G a =
     * (s' - G v) / dt, s' = (s1 - s0) / dt, so that G_n v_{n+1} = s'; LSRT2 (index 1, see
     * lsrt2_stage2), the acceleration constraint G a = s'' - gamma at (r_n, v_n) */
    vd_kdot(m, d->Ei, vs, p);
    memcpy(rv, h, NQ * sizeof(double));
    vdu_scale_n(tmp, c1, p, nq);
    vd_jr_mul_add(m, d, tmp, rv, wk);
    memcpy(rz, g1, NZ * sizeof(double));
    vd_z_g_mul_add(m, d, 1.0, tmp, NULL, NULL, rz);
    if (lsrt2) {
        for (int r = 0; r < nc; r++)
            rc[r] = d->jlam[r] - d->jgam[r];
    } else {
        vd_joint_G_mul(m, d, d->v, rc);
        for (int r = 0; r < nc; r++)
            rc[r] = ((d->js1[r] - d->js0[r]) / dt - rc[r]) / c1;
    }
    /* the LIE reads no multipliers: the structured nullspace solve skips them */
    d->lam_skip = !lsrt2 && m->csn && vd_cs_structured(m);
    vd_stage_solve(m, d, c1, rv, rz, rc);
    if (d->lam_skip)
        for (int r = 0; r < nc; r++)
            d->jlam[r] = NAN; /* not computed */
    else
        memcpy(d->jlam, rc, (size_t)nc * sizeof(double));
    d->lam_skip = false;
    if (!lsrt2) {
        /* v+ = v + dt a ; r~ = r + dt K(r) v+ ; z+ = z + dt k_z */
        for (int i = 0; i < nq; i++)
            vn[i] = d->v[i] + dt * rv[i];
        vd_kdot(m, d->Ei, vn, tmp);
        for (int i = 0; i < nq; i++)
            rn[i] = d->r[i] + dt * tmp[i];
        for (int i = 0; i < nz; i++)
            zn[i] = d->z[i] + dt * rz[i];
    } else {
        /* LSRT2, index 1: the W-form of step_lsrt2_w (numerics.md §1.5) on the same
         * augmented matrix with G_n; see the header for why this keeps order 2 */
        memcpy(dv1, rv, NQ * sizeof(double));
        memcpy(dz1, rz, NZ * sizeof(double));
        /* what stage 2 needs of G_n: G_n^T l_1 and G_n k_1 (into the constraint base) */
        memset(gtl, 0, NQ * sizeof(double));
        vd_joint_Gt_mul_add(m, d, d->jlam, gtl);
        vd_joint_G_mul(m, d, dv1, rc);
        for (int r = 0; r < nc; r++)
            cb[r] += rc[r];
        vd_kdot(m, d->Eilin, dv1, dr1);
        for (int i = 0; i < nq; i++)
            dr1[i] = p[i] + c1 * dr1[i];
        for (int i = 0; i < nq; i++) {
            tmp[i] = d->r[i] + dt * VD_LSRT2_A21 * dr1[i]; /* ra */
            vn[i] = vs[i] + dt * VD_LSRT2_A21 * dv1[i];    /* va */
        }
        for (int i = 0; i < nz; i++)
            zn[i] = d->z[i] + dt * VD_LSRT2_A21 * dz1[i]; /* za */
        rc_ = vd_eval_ex(m, d, tmp, vn, zn, u0, h, rz, false, false);
        if (rc_)
            goto out_release;
        /* the joints at the stage point: G_2, gamma_2 (the factors keep G_n) */
        vd_joint_eval(m, d, u0, true);
        /* p2 = K(ra) va + K_lin sv, sv = dt g21 dv1, sr = dt g21 dr1, sz = dt g21 dz1 */
        vd_kdot(m, d->Ei, vn, p);
        for (int i = 0; i < nq; i++)
            vn[i] = dt * VD_LSRT2_G21 * dv1[i];
        vd_kdot(m, d->Eilin, vn, rn);
        for (int i = 0; i < nq; i++)
            p[i] += rn[i];
        for (int i = 0; i < nz; i++)
            zn[i] = dt * VD_LSRT2_G21 * dz1[i];
        /* v rows: h_2 - (G_2 - G_n)^T l_1 + Jr (sr + c1 p2) + Jv sv */
        for (int i = 0; i < nq; i++)
            rv[i] = h[i] + gtl[i];
        for (int r = 0; r < nc; r++)
            d->jlam[r] = -d->jlam[r];
        vd_joint_Gt_mul_add(m, d, d->jlam, rv);
        for (int i = 0; i < nq; i++)
            rn[i] = dt * VD_LSRT2_G21 * dr1[i] + c1 * p[i];
        vd_jrv_mul_add(m, d, rn, vn, rv, wk);
        vd_z_jz_mul_add(m, d, 1.0, zn, rv);
        vd_z_g_mul_add(m, d, 1.0, rn, vn, zn, rz);
        /* constraint rows: G_n k_2 = s'' - gamma_2 - (G_2 - G_n) k_1 */
        vd_joint_G_mul(m, d, dv1, rc);
        for (int r = 0; r < nc; r++)
            rc[r] = cb[r] - d->jgam[r] - rc[r];
        vd_stage_solve(m, d, c1, rv, rz, rc);
        memcpy(d->jlam, rc, (size_t)nc * sizeof(double));
        /* dr2 = p2 + c1 K_lin dv2 ; r~ = r + dt dr2, v+ = v + dt dv2 (b1 = 0, b2 = 1) */
        vd_kdot(m, d->Eilin, rv, rn);
        for (int i = 0; i < nq; i++) {
            const double dr2 = p[i] + c1 * rn[i];

            rn[i] = d->r[i] + dt * (VD_LSRT2_B1 * dr1[i] + VD_LSRT2_B2 * dr2);
            vn[i] = vs[i] + dt * (VD_LSRT2_B1 * dv1[i] + VD_LSRT2_B2 * rv[i]);
        }
        for (int i = 0; i < nz; i++)
            zn[i] = d->z[i] + dt * (VD_LSRT2_B1 * dz1[i] + VD_LSRT2_B2 * rz[i]);
    }

    /* projection: G_n ds = -g(r~), r+ = r~ + K_n ds (one simplified Newton step with the
     * factors above); then G_n dv = s' - G(r~) v+ */
    if (m->opt.project != VD_PROJECT_NONE) {
        /* the positions' residual needs the joints' marker poses and g only; the velocity
         * projection the rows G(r~) too (vd_outputs and the next step evaluate their own,
         * d->A of the other bodies stays that of r_n: read by nothing before them) */
        vd_kinematics_pos_sel(m, d, rn, m->jk_body, m->njk_body, m->jk_mk,
                              m->opt.project == VD_PROJECT_BOTH ? m->njk_mk : 0);
        if (m->opt.project == VD_PROJECT_BOTH)
            vd_joint_eval(m, d, u1, false);
        else
            vd_joint_g(m, d, rn, u1);
        for (int r = 0; r < nc; r++)
            rc[r] = -d->jg[r];
        vd_cs_correct(m, d, rc, tmp);
        vd_kdot(m, d->Eilin, tmp, wk);
        for (int i = 0; i < nq; i++)
            rn[i] += wk[i];
        if (m->opt.project == VD_PROJECT_BOTH) {
            vd_joint_G_mul(m, d, vn, rc);
            for (int r = 0; r < nc; r++)
                rc[r] = (lsrt2 ? sp1[r] : (d->js1[r] - d->js0[r]) / dt) - rc[r];
            vd_cs_correct(m, d, rc, tmp);
            for (int i = 0; i < nq; i++)
                vn[i] += tmp[i];
        }
    }
    if (!all_finite(rn, nq) || !all_finite(vn, nq) || !all_finite(zn, nz)) {
        d->warn[VD_WARN_NONFINITE]++;
        rc_ = -EDOM;
        goto out_release;
    }
    memcpy(d->r, rn, NQ * sizeof(double));
    memcpy(d->v, vn, NQ * sizeof(double));
    memcpy(d->z, zn, NZ * sizeof(double));
    d->nstep++;
    d->t = (double)d->nstep * dt;
    d->lin_age++;
    d->stage_ns[VD_STAGE_STAGES] += now_ns() - t1;
out_release:
    vd_arena_release(d, mark);
    return rc_;
}
