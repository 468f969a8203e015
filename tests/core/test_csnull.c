/* tests/core/test_csnull.c - the nullspace form on the structured path (core/csnull.h), on
 * every joint model (the HMMWV and the sedan with joints, the four-bar, the slider-crank,
 * the multilink corner):
 *  - structure: the clusters are the index2 form's (a vehicle: the chassis is the root),
 *    every row in one cluster, f_c = n_c - m_c >= 0 per cluster, and the partition after the
 *    first factorization: m_c dependent coordinates of the cluster's own bodies;
 *  - solve: at states along each model's dense nullspace trajectory, [S G^T; G 0] [a; l] =
 *    [x; c] by the structured null-space solve against an iteratively refined solution of
 *    the dense augmented system, within ns_bound (below); the correction: G ds = c to the
 *    rounding of G ds, and ds zero on the independent coordinates and the root;
 *  - trajectories: the LIE without projection (every step then solves the same augmented
 *    system in both, whatever the partition) on the structured and on the dense null-space
 *    path, equal within the accumulated bound (traj_check);
 *  - a forced re-selection (opt.reselect = 1: any drop of a cluster's pivot ratio selects
 *    its coordinates again): selections counted after the first, and the trajectory still
 *    within its bound. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kkt_ref.h"
#include "lu_bound.h"
#include "config/model_yaml.h"
#include "config/sources.h"
#include "core/csblock.h"
#include "core/csnull.h"
#include "core/csolve.h"
#include "core/data.h"
#include "core/eval.h"
#include "core/joint.h"
#include "core/linalg.h"
#include "core/model.h"
#include "core/solve.h"
#include "core/step.h"

static struct vd_model *load(const char *path, struct vd_source **src)
{
    struct vd_model *m = kkt_load(path, src, VD_CONSTRAINTS_NULLSPACE);

    if (!m)
        return NULL;
    CHECK(m->csn != NULL && vd_cs_structured(m), "%s: nullspace on the structured path", path);
    if (!m->csn) {
        vd_model_free(m);
        return NULL;
    }
    return m;
}

/* ---- structure ------------------------------------------------------------------------- */

static void check_structure(const struct vd_model *m, const char *path)
{
    const struct vd_csn *s = m->csn;
    int *seen = calloc((size_t)m->nc + 1, sizeof(int)), nf = 0;

    CHECK(s->ncl == m->blu.ncluster && s->root == m->blu.root, "%s: clusters of the block LU",
          path);
    for (int j = 0; j < m->nc; j++)
        seen[s->row[j]]++;
    for (int r = 0; r < m->nc; r++)
        CHECK(seen[r] == 1, "%s: row %d in %d clusters", path, r, seen[r]);
    for (int c = 0; c < s->ncl; c++) {
        CHECK(s->f[c] >= 0 && s->n[c] == 6 * (s->cl_ptr[c + 1] - s->cl_ptr[c]),
              "%s: cluster %d: %d rows on %d coordinates", path, c, s->mr[c], s->n[c]);
        /* every row of the cluster touches its bodies and the root only */
        for (int j = s->row_ptr[c]; j < s->row_ptr[c + 1]; j++)
            for (int q = 0; q < 2; q++) {
                const int b = m->jrow_body[2 * s->row[j] + q];

                CHECK(b == VD_GROUND || b == s->root || s->cl[b] == c,
                      "%s: row %d reaches body %d outside cluster %d", path, s->row[j], b, c);
            }
        nf += s->f[c];
        printf("  %s: cluster %d: %d bodies, %d rows, %d independent coordinates\n", path, c,
               s->cl_ptr[c + 1] - s->cl_ptr[c], s->mr[c], s->f[c]);
    }
    CHECK(nf + s->n0 == m->nq - m->nc, "%s: %d + %d independent coordinates, nq - nc = %d", path,
          nf, s->n0, m->nq - m->nc);
    free(seen);
}

/* ---- solve ----------------------------------------------------------------------------- */

/* ||Y||_inf over the structured path's clusters: the largest row sum of |[R_c T_c]|,
 * i.e. 1 + ||Gu^-1 [Gw G_c0]|| (the transformation Z = [I 0; T R] has ||Z|| <= this + 1) */
static double z_norm(const struct vd_model *m, const struct vd_data *d)
{
    const struct vd_csn *s = m->csn;
    double mx = 1.0;

    for (int c = 0; c < s->ncl; c++) {
        const int n = s->n[c], ny = s->f[c] + s->n0, mm = s->mr[c];
        const double *Y = d->csx + s->xoff[c] + (size_t)mm * (size_t)mm;

        for (int i = 0; i < n; i++) {
            double r = 0.0;

            for (int j = 0; j < ny; j++)
                r += fabs(Y[(size_t)i + (size_t)n * (size_t)j]);
            mx = fmax(mx, r + 1.0);
        }
    }
    return mx;
}

/* The bound of the null-space solve, derived from the dense LU's. The null-space solve is a
 * block elimination of K = [S G^T; G 0] (csnull.h: R^T S R is the Schur complement of K onto
 * the independent coordinates with the pivot [S_uu Gu^T; Gu 0]): with Z = [I 0; T R] and the
 * particular solution through Gu, it solves Z^T S Z y = Z^T (x - S a_p), a = Z y + a_p. The
 * rounding errors of forming Z (the solves with Gu's LU) and of the products with Z and Z^T
 * enter the backward error of K multiplied by at most ||Z||_inf on each side, the reduced
 * LU's like a dense LU's of a matrix of K's conditioning, so the forward error is within
 * gamma_3n c_K ||Z||^2, c_K the Skeel-type condition of K's LU (tests/lu_bound.h, which
 * includes the growth of those factors), plus 2u for the refined reference (Higham Thm
 * 12.2). The dense null-space path's bound is the same with its own Z. */
static double ns_bound(int n, double cK, double zn)
{
    return vt_gamma(3.0 * n) * cK * zn * zn + 2.0 * VT_U;
}

/* the correction: G ds = c within the rounding of the products G ds (|G| |ds| n u, with the
 * error of the solves with Gu, gamma_3m c(Gu) |c| absorbed by the bound ns_bound on |ds|),
 * ds zero off the dependent coordinates */
static void check_correct(const struct vd_model *m, struct vd_data *d, const char *path, int k,
                          double bound)
{
    const int nq = m->nq, nc = m->nc;
    double *c = malloc((size_t)nc * sizeof(double)), *ds = malloc((size_t)nq * sizeof(double));
    double *gd = malloc((size_t)nc * sizeof(double)), e = 0.0, cn = 0.0, dn = 0.0;
    int off = 0;

    for (int r = 0; r < nc; r++)
        c[r] = vt_uniform(-1.0, 1.0);
    vd_cs_correct(m, d, c, ds);
    vd_joint_G_mul(m, d, ds, gd);
    for (int r = 0; r < nc; r++) {
        e = fmax(e, fabs(gd[r] - c[r]));
        cn = fmax(cn, fabs(c[r]));
    }
    for (int i = 0; i < nq; i++)
        dn = fmax(dn, fabs(ds[i]));
    /* independent coordinates and the root: exactly zero */
    for (int cl = 0; cl < m->csn->ncl; cl++) {
        const int *lind = d->csi + m->csn->ioff[cl] + m->csn->mr[cl];

        for (int j = 0; j < m->csn->f[cl]; j++) {
            const int lc = lind[j], b = m->csn->body[m->csn->cl_ptr[cl] + lc / 6];

            off += ds[6 * b + lc % 6] != 0.0;
        }
    }
    if (m->csn->root >= 0)
        for (int i = 0; i < 6; i++)
            off += ds[6 * m->csn->root + i] != 0.0;
    CHECK(off == 0, "%s step %d: the correction moves %d independent coordinates", path, k, off);
    /* |G ds - c| <= (the error of ds, bound |ds|, through |G|) + the rounding of G ds:
     * 12 terms per row, |G| <= gmax */
    {
        double gmax = 0.0;

        for (int i = 0; i < 12 * nc; i++)
            gmax = fmax(gmax, fabs(d->jG[i]));
        CHECK_TOL(e, 12.0 * gmax * dn * (bound + vt_gamma(12.0)) + VT_U * cn,
                  "%s step %d: |G ds - c| %.3g", path, k, e);
    }
    free(c);
    free(ds);
    free(gd);
}

static void check_solve(const char *path, int steps, int every)
{
    struct vd_source *src = NULL;
    struct vd_model *m = load(path, &src);
    struct vd_data *dd = NULL, *ds = NULL;
    struct kkt_ref r;
    double worst = 0.0, worst_d = 0.0;

    if (!m)
        return;
    check_structure(m, path);
    const int nq = m->nq, nc = m->nc, n = nq + nc;
    const size_t N = (size_t)n;

    kkt_ref_alloc(&r, m);
    kkt_data_pair(m, src, &dd, &ds);
    CHECK(dd && ds && dd->S && !ds->S && ds->csx && !dd->csx, "%s: data", path);
    if (!dd || !ds || !dd->S || !ds->csx)
        goto out;
    for (int k = 0; k <= steps; k++) {
        if (k % every == 0) {
            kkt_linearize_pair(m, src, dd, ds, r.h, r.g, r.A, path, k);
            kkt_ref_factor(&r, n, path);
            const double cK = vt_lu_cond(n, r.LU, r.ipiv), bound = ns_bound(n, cK, z_norm(m, ds));

            for (int rhs = 0; rhs < 2; rhs++) {
                /* 0: the forces and the velocity rows -G v / dt of a step; 1: random */
                for (int i = 0; i < n; i++)
                    r.b[i] = rhs == 1 ? vt_uniform(-1.0, 1.0) : i < nq ? r.h[i] : 0.0;
                if (rhs == 0)
                    kkt_velocity_rows(m, dd, r.b + nq);
                refined(n, r.A, r.LU, r.ipiv, r.b, r.xr, r.res);
                memcpy(r.xs, r.b, N * sizeof(double));
                m->opt.linear = VD_LINEAR_STRUCTURED;
                vd_cs_solve(m, ds, r.xs, r.xs + nq);
                worst = fmax(worst, nerr(r.xs, r.xr, n) / bound);
                CHECK_TOL(nerr(r.xs, r.xr, n), bound,
                          "%s step %d rhs %d: structured null-space solve error %.3g, bound %.3g",
                          path, k, rhs, nerr(r.xs, r.xr, n), bound);
                /* the dense null-space path on the same system: its error for comparison */
                memcpy(r.xs, r.b, N * sizeof(double));
                m->opt.linear = VD_LINEAR_DENSE;
                vd_cs_solve(m, dd, r.xs, r.xs + nq);
                worst_d = fmax(worst_d, nerr(r.xs, r.xr, n) / bound);
                m->opt.linear = VD_LINEAR_STRUCTURED;
            }
            check_correct(m, ds, path, k, bound);
        }
        kkt_dense_step(m, dd, path, k);
    }
    printf("  %s: worst error / bound: structured %.2g (dense null-space path %.2g)\n", path, worst,
           worst_d);
out:
    vd_data_free(dd);
    vd_data_free(ds);
    kkt_ref_free(&r);
    vd_source_free(src);
    vd_model_free(m);
}

/* ---- trajectories ---------------------------------------------------------------------- */

/* The LIE without projection on both paths from the same start. Each step solves the same
 * augmented system (its solution does not depend on the partition), so the paths differ by
 * the rounding of the solves: at step k the accelerations differ by at most (bs_k + bd_k)
 * ||[a; l]_k|| (ns_bound of each path times the solution's size, the multipliers included),
 * the velocities by dt times that, summed over the steps. A difference propagates through
 * the following steps with the growth of the step map; the LIE is L-stable (|R(z)| <= 1 on
 * the stiff, damped modes) and the slow modes of these models grow by at most e over the
 * 0.2 s run (rates below 5 1/s: vehicles at rest on a flat road, the mechanisms' pendulum
 * frequencies of ~1 Hz), hence the factor e. Positions follow by r' = K v, |K| <= 2 (the
 * Cardan map at pitch and roll below 60 deg) over T: |dr| <= 2 T |dv|. The bound of each
 * step is evaluated at that step (the dense LU of the augmented matrix and its condition),
 * from the states of the dense run. */
static void traj_check(const char *path, int steps, double reselect)
{
    struct vd_source *src = NULL, *src2 = NULL;
    struct vd_model *m = load(path, &src);
    struct vd_data *dd = NULL, *ds = NULL, *dl = NULL;
    double tolv = 0.0, ev = 0.0, er = 0.0;
    uint64_t nsel0 = 0;

    if (!m)
        return;
    m->opt.method = VD_METHOD_LIE;
    m->opt.project = VD_PROJECT_NONE;
    m->opt.reselect = reselect;
    (void)src2;
    const int nq = m->nq, nc = m->nc, n = nq + nc;
    const size_t N = (size_t)n;
    const double dt = m->opt.dt;
    double *A = malloc(N * N * sizeof(double)), *h = malloc(N * sizeof(double));
    double *g = calloc((size_t)m->nz + 1, sizeof(double)), *v0 = malloc(N * sizeof(double));
    lapack_int *ipiv = malloc(N * sizeof(lapack_int));

    m->opt.linear = VD_LINEAR_DENSE;
    dd = vd_data_new(m);
    dl = vd_data_new(m); /* the bound's linearization at the dense run's state */
    m->opt.linear = VD_LINEAR_STRUCTURED;
    ds = vd_data_new(m);
    if (!dd || !ds || !dl)
        goto out;
    dd->input_fn = ds->input_fn = vd_source_eval;
    dd->input_ctx = ds->input_ctx = src;
    for (int k = 0; k < steps; k++) {
        double an = 0.0, zs, zd;

        /* the bound of this step: K at the dense run's state */
        memcpy(dl->r, dd->r, (size_t)nq * sizeof(double));
        memcpy(dl->v, dd->v, (size_t)nq * sizeof(double));
        memcpy(dl->z, dd->z, (size_t)m->nz * sizeof(double));
        vd_source_eval(src, dd->t, dl->u);
        memcpy(dl->bush_phi, dd->bush_phi, (size_t)m->nbush * sizeof(double));
        memcpy(dl->bush_anchor, dd->bush_anchor, 6 * (size_t)m->nbush * sizeof(double));
        m->opt.linear = VD_LINEAR_DENSE;
        CHECK(linearize(m, dl, h, g, A) == 0, "%s step %d: dense factor", path, k);
        CHECK(LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, A, n, ipiv) == 0, "%s: getrf", path);
        memcpy(v0, dd->v, (size_t)nq * sizeof(double));
        CHECK(vd_step(m, dd) == 0, "%s: dense step %d", path, k);
        m->opt.linear = VD_LINEAR_STRUCTURED;
        CHECK(vd_step(m, ds) == 0, "%s: structured step %d", path, k);
        if (k == 0)
            nsel0 = ds->nselect;
        zs = z_norm(m, ds);
        /* the dense path's Z: 1 + ||Gu^-1 Gw|| from its R (nq x f, the identity rows
         * included) */
        zd = 1.0;
        for (int i = 0; i < nq; i++) {
            double r = 0.0;

            for (int j = 0; j < nq - nc; j++)
                r += fabs(dd->Rm[(size_t)i + (size_t)nq * (size_t)j]);
            zd = fmax(zd, r + 1.0);
        }
        for (int i = 0; i < nq; i++)
            an = fmax(an, fabs(dd->v[i] - v0[i]) / dt);
        for (int r = 0; r < nc; r++)
            an = fmax(an, fabs(dd->jlam[r]));
        {
            const double cK = vt_lu_cond(n, A, ipiv);

            tolv += dt * (ns_bound(n, cK, zs) + ns_bound(n, cK, zd)) * an;
        }
        for (int i = 0; i < nq; i++) {
            ev = fmax(ev, fabs(ds->v[i] - dd->v[i]));
            er = fmax(er, fabs(ds->r[i] - dd->r[i]));
        }
    }
    {
        const double T = steps * dt, tv = M_E * tolv, tr = 2.0 * T * tv;

        CHECK_TOL(ev, tv, "%s: structured vs dense null-space velocities %.3g", path, ev);
        CHECK_TOL(er, tr, "%s: structured vs dense null-space positions %.3g", path, er);
        printf("  %s: %d LIE steps without projection%s: |dv| %.3g (bound %.3g), |dr| %.3g "
               "(bound %.3g); %llu selections (%llu after the first step)\n",
               path, steps, reselect >= 1.0 ? ", re-selecting" : "", ev, tv, er, tr,
               (unsigned long long)ds->nselect, (unsigned long long)(ds->nselect - nsel0));
        if (reselect >= 1.0)
            CHECK(ds->nselect > nsel0, "%s: no re-selection forced", path);
    }
out:
    vd_data_free(dd);
    vd_data_free(ds);
    vd_data_free(dl);
    free(A);
    free(h);
    free(g);
    free(v0);
    free(ipiv);
    vd_source_free(src);
    vd_model_free(m);
}

int main(void)
{
    CHECK(vd_blas_init(NULL, 0) == 0, "one BLAS thread");
    /* 300 steps (0.3 s: settling from the design pose, the signals' first actions), a state
     * every 50 */
    check_solve("config/vehicles/hmmwv_joints.yaml", 300, 50);
    check_solve("config/vehicles/sedan_joints.yaml", 300, 50);
    check_solve("config/mechanisms/fourbar.yaml", 300, 50);
    check_solve("config/mechanisms/slider_crank.yaml", 300, 50);
    check_solve("config/mechanisms/multilink_corner.yaml", 300, 50);
    traj_check("config/vehicles/hmmwv_joints.yaml", 200, 0.1);
    traj_check("config/mechanisms/slider_crank.yaml", 200, 0.1);
    traj_check("config/mechanisms/multilink_corner.yaml", 200, 0.1);
    /* forced re-selection */
    traj_check("config/vehicles/hmmwv_joints.yaml", 200, 1.0);
    traj_check("config/mechanisms/slider_crank.yaml", 200, 1.0);
    return vt_report("test_csnull");
}
