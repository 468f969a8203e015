/* core/step.c - the linearly implicit steps: vd_step evaluates stage 1 (and the linearization,
 * every opt.relin steps), then dispatches to the method's stages: step_lie, step_lsrt2_w
 * (W-form, forces at the stage point) or step_lsrt2_lin (linearized second stage). The
 * matrix work (assembly, factorization, solve, tyre-state condensation) is in solve.c. */
#include "step.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "ce.h"
#include "ta.h"
#include "cstep.h"
#include "eval.h"
#include "joint.h"
#include "vdmath.h"

static int64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* K_lin x for the angle rows: rdot-like map with frozen Ei */
static void klin_mul(const struct vd_model *m, const struct vd_data *d, const double *x, double *y)
{
    vd_kdot(m, d->Eilin, x, y);
}

static bool all_finite(const double *x, int n)
{
    double s = 0.0;

    for (int i = 0; i < n; i++)
        s += x[i];
    return isfinite(s);
}

static void stage_u(struct vd_data *d, double t, double *u, int nu)
{
    if (d->input_fn)
        d->input_fn(d->input_ctx, t, u);
    else
        memcpy(u, d->u, (size_t)nu * sizeof(double));
}

/* the arrays of one step, from the arena; h, g1, u: stage 1's forces, tyre-state rates and
 * inputs; dv1, dr1, dz1: stage 1's increments; p: K(r) v (then the stage-2 p2); rn, vn, zn:
 * the new state; rhs, wk, tmp, dz2, za: work */
struct step_ws {
    double *u, *h, *dv1, *dr1, *p, *rhs, *wk, *tmp, *rn, *vn, *g1, *dz1, *dz2, *zn, *za;
    double dt, c1;
};

/* LIE (numerics.md §2.1): v+ = v + dt a ; r+ = r + dt K(r) v+ ; z+ = z + dt k_z */
static int step_lie(const struct vd_model *m, struct vd_data *d, struct step_ws *w)
{
    const int nq = m->nq, nz = m->nz;
    const double dt = w->dt;

    for (int i = 0; i < nq; i++)
        w->vn[i] = d->v[i] + dt * w->dv1[i];
    vd_kdot(m, d->Ei, w->vn, w->tmp);
    for (int i = 0; i < nq; i++)
        w->rn[i] = d->r[i] + dt * w->tmp[i];
    for (int i = 0; i < nz; i++)
        w->zn[i] = d->z[i] + dt * w->dz1[i];
    return 0;
}

/* LSRT2 after stage 1: dr1 = p1 + c1 K_lin dv1 and the stage-2 arguments ra = r + dt a21 dr1
 * (into tmp), va = v + dt a21 dv1 (into vn), za likewise */
static void lsrt2_stage2_args(const struct vd_model *m, struct vd_data *d, struct step_ws *w)
{
    const int nq = m->nq, nz = m->nz;
    const double dt = w->dt, c1 = w->c1;
    double *ra = w->tmp;

    klin_mul(m, d, w->dv1, w->dr1);
    for (int i = 0; i < nq; i++)
        w->dr1[i] = w->p[i] + c1 * w->dr1[i];
    for (int i = 0; i < nq; i++) {
        ra[i] = d->r[i] + dt * VD_LSRT2_A21 * w->dr1[i];
        w->vn[i] = d->v[i] + dt * VD_LSRT2_A21 * w->dv1[i];
    }
    for (int i = 0; i < nz; i++)
        w->za[i] = d->z[i] + dt * VD_LSRT2_A21 * w->dz1[i];
}

/* LSRT2 stage 2 solve and the update: dr2 = p2 + c1 K_lin dv2 ;
 * r+ = r + dt (b1 dr1 + b2 dr2), v+ and z+ likewise */
static void lsrt2_finish(const struct vd_model *m, struct vd_data *d, struct step_ws *w)
{
    const int nq = m->nq, nz = m->nz;
    const double dt = w->dt, c1 = w->c1;
    double *dv2 = w->rhs;

    vd_stage_solve(m, d, c1, dv2, w->dz2, NULL);
    klin_mul(m, d, dv2, w->rn);
    for (int i = 0; i < nq; i++) {
        double dr2 = w->p[i] + c1 * w->rn[i];

        w->rn[i] = d->r[i] + dt * (VD_LSRT2_B1 * w->dr1[i] + VD_LSRT2_B2 * dr2);
        w->vn[i] = d->v[i] + dt * (VD_LSRT2_B1 * w->dv1[i] + VD_LSRT2_B2 * dv2[i]);
    }
    for (int i = 0; i < nz; i++)
        w->zn[i] = d->z[i] + dt * (VD_LSRT2_B1 * w->dz1[i] + VD_LSRT2_B2 * w->dz2[i]);
}

/* LSRT2 in the W-form (numerics.md §1.5): h, z' and K evaluated at the stage point */
static int step_lsrt2_w(const struct vd_model *m, struct vd_data *d, struct step_ws *w)
{
    const int nq = m->nq, nu = m->ninput, nz = m->nz;
    const size_t NQ = (size_t)nq;
    const double dt = w->dt, c1 = w->c1;
    double *dv2 = w->rhs, *ra = w->tmp, *vn = w->vn, *rn = w->rn, *p = w->p, *za = w->za;
    int rc;

    lsrt2_stage2_args(m, d, w);
    stage_u(d, d->t + VD_LSRT2_C2 * dt, w->u, nu);
    rc = vd_eval_ex(m, d, ra, vn, za, w->u, w->h, w->dz2, false, false);
    if (rc)
        return rc;
    /* p2 = K(ra) va + K_lin sv, sv = dt g21 dv1, sr = dt g21 dr1, sz = dt g21 dz1 */
    vd_kdot(m, d->Ei, vn, p);
    for (int i = 0; i < nq; i++)
        vn[i] = dt * VD_LSRT2_G21 * w->dv1[i]; /* sv */
    klin_mul(m, d, vn, rn);
    for (int i = 0; i < nq; i++)
        p[i] += rn[i];
    for (int i = 0; i < nz; i++)
        za[i] = dt * VD_LSRT2_G21 * w->dz1[i]; /* sz */
    /* rv2 = h2 + Jr (sr + c1 p2) + Jv sv + Jz sz ; rz2 = g2 + Gr (sr + c1 p2) + Gv sv + Gz sz */
    memcpy(dv2, w->h, NQ * sizeof(double));
    for (int i = 0; i < nq; i++)
        rn[i] = dt * VD_LSRT2_G21 * w->dr1[i] + c1 * p[i];
    vd_jrv_mul_add(m, d, rn, vn, dv2, w->wk);
    vd_z_jz_mul_add(m, d, 1.0, za, dv2);
    vd_z_g_mul_add(m, d, 1.0, rn, vn, za, w->dz2);
    lsrt2_finish(m, d, w);
    return 0;
}

/* LSRT2 with the linearized stage (paper eq. 15) and the kinematics kept nonlinear:
 * rv2 = h1 + Jr (dt b21 dr1 + c1 p2) + Jv (dt b21 dv1) + Jz (dt b21 dz1) + Ju du
 * rz2 = g1 + Gr (dt b21 dr1 + c1 p2) + Gv (dt b21 dv1) + Gz (dt b21 dz1)
 * b21 = a21 + g21, p2 = K(ra) va + K_lin sv */
static int step_lsrt2_lin(const struct vd_model *m, struct vd_data *d, struct step_ws *w)
{
    const int nq = m->nq, nu = m->ninput, nz = m->nz;
    const size_t NQ = (size_t)nq, NZ = (size_t)nz;
    const double dt = w->dt, c1 = w->c1, b21 = VD_LSRT2_A21 + VD_LSRT2_G21;
    double *dv2 = w->rhs, *ra = w->tmp, *vn = w->vn, *rn = w->rn, *p = w->p, *za = w->za;

    lsrt2_stage2_args(m, d, w);
    vd_body_kinematics_ei(m, d, ra);
    vd_kdot(m, d->Ei, vn, p);
    for (int i = 0; i < nq; i++)
        vn[i] = dt * VD_LSRT2_G21 * w->dv1[i]; /* sv */
    klin_mul(m, d, vn, rn);
    for (int i = 0; i < nq; i++)
        p[i] += rn[i];
    memcpy(dv2, w->h, NQ * sizeof(double));
    for (int i = 0; i < nq; i++) {
        rn[i] = dt * b21 * w->dr1[i] + c1 * p[i];
        vn[i] = dt * b21 * w->dv1[i];
    }
    for (int i = 0; i < nz; i++)
        za[i] = dt * b21 * w->dz1[i];
    vd_jrv_mul_add(m, d, rn, vn, dv2, w->wk);
    vd_z_jz_mul_add(m, d, 1.0, za, dv2);
    memcpy(w->dz2, w->g1, NZ * sizeof(double));
    vd_z_g_mul_add(m, d, 1.0, rn, vn, za, w->dz2);
    if (d->input_fn) {
        double *u2 = vd_arena_doubles(d, (size_t)nu);

        if (!u2)
            return -ENOMEM;
        stage_u(d, d->t + VD_LSRT2_C2 * dt, u2, nu);
        vd_ju_mul_add(m, d, u2, w->u, dv2);
    }
    lsrt2_finish(m, d, w);
    return 0;
}

/* the linearization: S assembled (dense or blocks), the tyre states condensed, factored */
static int linearize(const struct vd_model *m, struct vd_data *d, double c1, int64_t *t1)
{
    int64_t t0;

    if (m->opt.linear == VD_LINEAR_DENSE) {
        if (!d->S)
            return -EINVAL; /* data made for the structured path */
        vd_assemble_dense(m, d, 1.0, c1, c1 * c1);
    } else {
        vd_assemble_blocks(m, d, 1.0, c1, c1 * c1);
    }
    vd_z_linearize(m, d, c1, c1 * c1);
    t0 = now_ns();
    d->stage_ns[VD_STAGE_ASSEMBLE] += t0 - *t1;
    d->last_info = vd_solve_factor(m, d);
    *t1 = now_ns();
    d->stage_ns[VD_STAGE_FACTOR] += *t1 - t0;
    if (d->last_info) {
        d->warn[VD_WARN_SINGULAR]++;
        d->lin_age = -1;
        return -EDOM;
    }
    d->lin_age = 0;
    return 0;
}

int vd_step(const struct vd_model *m, struct vd_data *d)
{
    const int nq = m->nq, nu = m->ninput, nz = m->nz;
    const double dt = m->opt.dt;
    const bool lsrt2 = m->opt.method == VD_METHOD_LSRT2;
    const double gm = lsrt2 ? VD_LSRT2_GAMMA : 1.0, c1 = dt * gm;
    const size_t mark = vd_arena_mark(d);
    const bool relin = d->lin_age < 0 || d->lin_age >= m->opt.relin;
    const size_t NQ = (size_t)nq, NZ = (size_t)nz;
    struct step_ws w;
    int64_t t0, t1;
    int rc = 0;

    if (m->ce)
        return vd_ce_step(m, m->ce, d->ce, d);
    if (m->ta)
        return vd_ta_step(m, m->ta, d->ta, d);
    if (m->nc)
        return vd_step_constrained(m, d);
    w = (struct step_ws){
        .u = vd_arena_doubles(d, (size_t)nu),
        .h = vd_arena_doubles(d, NQ),
        .dv1 = vd_arena_doubles(d, NQ),
        .dr1 = vd_arena_doubles(d, NQ),
        .p = vd_arena_doubles(d, NQ),
        .rhs = vd_arena_doubles(d, NQ),
        .wk = vd_arena_doubles(d, NQ),
        .tmp = vd_arena_doubles(d, NQ),
        .rn = vd_arena_doubles(d, NQ),
        .vn = vd_arena_doubles(d, NQ),
        .g1 = vd_arena_doubles(d, NZ),
        .dz1 = vd_arena_doubles(d, NZ),
        .dz2 = vd_arena_doubles(d, NZ),
        .zn = vd_arena_doubles(d, NZ),
        .za = vd_arena_doubles(d, NZ),
        .dt = dt,
        .c1 = c1,
    };

    if (!w.u || !w.h || !w.dv1 || !w.dr1 || !w.p || !w.rhs || !w.wk || !w.tmp || !w.rn || !w.vn ||
        !w.g1 || !w.dz1 || !w.dz2 || !w.zn || !w.za) {
        rc = -ENOMEM;
        goto out_release;
    }
    memset(d->stage_ns, 0, sizeof(d->stage_ns));

    /* stage 1 evaluation at (r, v, z, u(t)); the linearization shares it */
    t0 = now_ns();
    stage_u(d, d->t, w.u, nu);
    rc = vd_eval_ex(m, d, d->r, d->v, d->z, w.u, w.h, w.g1, relin, true);
    if (rc)
        goto out_release;
    t1 = now_ns();
    d->stage_ns[relin ? VD_STAGE_LINEARIZE : VD_STAGE_STAGES] += t1 - t0;
    if (relin) {
        rc = linearize(m, d, c1, &t1);
        if (rc)
            goto out_release;
    }

    /* p = K(r) v with the current kinematics */
    vd_kdot(m, d->Ei, d->v, w.p);
    /* stage 1 (LIE: the only stage): rv = h + c1 Jr p, rz = g + c1 Gr p */
    memcpy(w.dv1, w.h, NQ * sizeof(double));
    vdu_scale_n(w.tmp, c1, w.p, nq);
    vd_jr_mul_add(m, d, w.tmp, w.dv1, w.wk);
    memcpy(w.dz1, w.g1, NZ * sizeof(double));
    vd_z_g_mul_add(m, d, 1.0, w.tmp, NULL, NULL, w.dz1);
    vd_stage_solve(m, d, c1, w.dv1, w.dz1, NULL);
    if (!lsrt2)
        rc = step_lie(m, d, &w);
    else if (m->opt.stage2 == VD_STAGE2_NONLINEAR)
        rc = step_lsrt2_w(m, d, &w);
    else
        rc = step_lsrt2_lin(m, d, &w);
    if (rc)
        goto out_release;
    if (!all_finite(w.rn, nq) || !all_finite(w.vn, nq) || !all_finite(w.zn, nz)) {
        d->warn[VD_WARN_NONFINITE]++;
        rc = -EDOM;
        goto out_release;
    }
    memcpy(d->r, w.rn, NQ * sizeof(double));
    memcpy(d->v, w.vn, NQ * sizeof(double));
    memcpy(d->z, w.zn, NZ * sizeof(double));
    d->nstep++;
    d->t = (double)d->nstep * dt;
    d->lin_age++;
    d->stage_ns[VD_STAGE_STAGES] += now_ns() - t1;
out_release:
    vd_arena_release(d, mark);
    return rc;
}

int vd_outputs(const struct vd_model *m, struct vd_data *d)
{
    const int64_t t0 = now_ns();
    int rc;

    /* the inputs of this instant (vd_step evaluates its own per stage and leaves d->u as it
     * was): actuator forces and everything downstream belong to d->t */
    if (d->input_fn)
        d->input_fn(d->input_ctx, d->t, d->u);
    /* h stays in d->h: the accelerations v' = M^-1 h of the sensor signals (core/signal.h) */
    rc = vd_eval_ex(m, d, d->r, d->v, d->z, d->u, d->h, d->g, false, true);
    /* the joints' constraint values at this state (signals <joint>.residual): the values
     * only, from the markers' poses at r (the formulas of the full evaluation, on the same
     * d->A: the same values); the next step evaluates its rows itself */
    if (!rc && m->nc)
        vd_joint_g(m, d, d->r, d->u);

    d->outputs_ns = now_ns() - t0;
    return rc;
}
