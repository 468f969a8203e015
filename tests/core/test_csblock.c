/* tests/core/test_csblock.c - the structured solve of models with joints (core/csblock.h):
 *  - structure, on every joint model (the HMMWV and the sedan with joints, the four-bar and
 *    the slider-crank): every joint row in exactly one multiplier node of <= 6 rows, between
 *    the node's two bodies; the vehicles keep the chassis as the root and the clusters of
 *    their bushing twins (the corners are still eliminated before the chassis); the
 *    mechanisms (joints to ground) have the ground as the root; every multiplier node comes
 *    after each of its bodies but the root, every body before the root;
 *  - accuracy: at states along each model's own trajectory (dense LIE steps with its
 *    signals), the structured solve of [S G^T; G 0] [a; l] = [x; c] (the step's matrix with
 *    c1 = dt, the forces as x and the velocity rows' right-hand side of a step, and random
 *    right-hand sides) and the structured correction (x = 0) against an iteratively refined
 *    solution of the dense augmented system, within the error bound of the block elimination
 *    (structured_bound: Thm 9.4 for the factors of its order and restricted pivoting, times
 *    the explicit inverses' allowance); the dense path's solve against the bound of its own
 *    LU, gamma_3n c (tests/lu_bound.h); the two-part factorization of rtvd bench --worker
 *    (vd_solve_factor with d->par, the worker run in place here) within the same bound. The ratio
 * of the two bounds is printed: it shows what the structured order costs in accuracy (the
 * range-space pivots -G S^-1 G^T of light bodies with large S^-1 on a mechanism). The step-by-step
 * comparison of the two paths over the vehicles' and mechanisms' runs is in test_blocklu (the
 * shipped files); zero allocation of both forms in test_noalloc. */
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kkt_ref.h"
#include "lu_bound.h"
#include "config/model_yaml.h"
#include "config/sources.h"
#include "core/blocklu.h"
#include "core/csblock.h"
#include "core/csolve.h"
#include "core/data.h"
#include "core/eval.h"
#include "core/joint.h"
#include "core/kinematics.h"
#include "core/linalg.h"
#include "core/model.h"
#include "core/solve.h"
#include "core/step.h"

static struct vd_model *load(const char *path, struct vd_source **src)
{
    struct vd_model *m = kkt_load(path, src, VD_CONSTRAINTS_INDEX2);

    if (!m)
        return NULL;
    CHECK(m->opt.linear == VD_LINEAR_STRUCTURED && m->njnode > 0, "%s: structured, %d nodes", path,
          m->njnode);
    return m;
}

/* ---- structure ------------------------------------------------------------------------ */

/* Every pivot of the order is nonsingular (csblock.h, core/NUMERICS.md "Ideal joints"): the
 * leading principal part of the KKT matrix up to a node's position is [S_EE G_E^T; G_E 0]
 * over the eliminated bodies E and nodes, nonsingular when G_E (the eliminated nodes' rows on
 * the eliminated bodies' columns, the root and the ground held) has full row rank. Checked at
 * the initial state by singular values (LAPACK's SVD, independent of csblock's Gram-Schmidt):
 * full rank means sigma_min > max(rows, cols) u sigma_max (the numerical rank of dgelss /
 * Golub & Van Loan §5.5.8: below it, G_E is within rounding of a rank-deficient matrix). The
 * smallest sigma_min / sigma_max over the prefixes is printed: the margin of the order. */
static void check_prefix_rank(const struct vd_model *m, const char *path)
{
    const struct vd_blu *s = &m->blu;
    struct vd_data *d = vd_data_new(m);
    double *u = calloc((size_t)m->ninput + 1, sizeof(double)), worst = 1.0;
    double *A = malloc((size_t)m->nc * (size_t)m->nq * sizeof(double) + 1);
    double *sv = malloc(((size_t)m->nc + 1) * sizeof(double));
    double *sup = malloc(((size_t)m->nc + 1) * sizeof(double));
    int *col = malloc((size_t)m->nbody * sizeof(int)), nprefix = 0;

    CHECK(d && u && A && sv && sup && col, "%s: alloc", path);
    if (!d || !u || !A || !sv || !sup || !col)
        goto out;
    vd_kinematics(m, d, d->r, d->v);
    vd_joint_eval(m, d, u, false);
    for (int p = 0; p < s->nb; p++) {
        int nr = 0, nc = 0;

        if (s->perm[p] < m->nbody)
            continue;
        for (int b = 0; b < m->nbody; b++)
            col[b] = b != s->root && s->pos[b] <= p ? nc++ : -1;
        memset(A, 0, (size_t)m->nc * 6 * (size_t)nc * sizeof(double));
        for (int k = 0; k <= p; k++) {
            const int n = s->perm[k] - m->nbody;

            if (n < 0)
                continue;
            for (int i = 0; i < 6 && m->jnode_row[6 * n + i] >= 0; i++, nr++) {
                const int r = m->jnode_row[6 * n + i];

                for (int q = 0; q < 2; q++) {
                    const int bb = m->jrow_body[2 * r + q];

                    if (bb != VD_GROUND && col[bb] >= 0)
                        for (int c = 0; c < 6; c++)
                            A[(size_t)nr * 6 * (size_t)nc + 6 * (size_t)col[bb] + (size_t)c] =
                                d->jG[12 * (size_t)r + (size_t)(6 * q + c)];
                }
            }
        }
        CHECK(nr <= 6 * nc, "%s: position %d: %d rows on %d columns", path, p, nr, 6 * nc);
        if (nr > 6 * nc)
            continue;
        CHECK(LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'N', nr, 6 * nc, A, 6 * nc, sv, NULL, 1, NULL,
                             1, sup) == 0,
              "%s: svd", path);
        CHECK(sv[nr - 1] > (double)(6 * nc) * VT_U * sv[0],
              "%s: the pivot at position %d: G_E (%d x %d) of rank < %d, sigma %.3g .. %.3g", path,
              p, nr, 6 * nc, nr, sv[0], sv[nr - 1]);
        worst = fmin(worst, sv[nr - 1] / sv[0]);
        nprefix++;
    }
    printf("  %s: %d node pivots, G_E of full row rank at each, min sigma_min / sigma_max %.3g\n",
           path, nprefix, worst);
out:
    vd_data_free(d);
    free(u);
    free(A);
    free(sv);
    free(sup);
    free(col);
}

static void check_structure(const char *path, const char *twin)
{
    struct vd_source *src = NULL;
    struct vd_model *m = load(path, &src);
    const struct vd_blu *s;
    int *seen;

    if (!m)
        return;
    s = &m->blu;
    seen = calloc((size_t)m->nc + 1, sizeof(int));
    CHECK(s->nb == m->nbody + m->njnode && s->nbody == m->nbody, "%s: %d nodes", path, s->nb);
    for (int n = 0; n < m->njnode; n++) {
        const int a = m->jnode_body[2 * n], b = m->jnode_body[2 * n + 1], pn = s->pos[m->nbody + n];

        for (int i = 0; i < 6; i++) {
            const int r = m->jnode_row[6 * n + i];

            if (r < 0)
                continue;
            seen[r]++;
            CHECK((m->jrow_body[2 * r] == a && m->jrow_body[2 * r + 1] == b) ||
                      (m->jrow_body[2 * r] == b && m->jrow_body[2 * r + 1] == a),
                  "%s: row %d in node %d of bodies %d, %d", path, r, n, a, b);
        }
        CHECK(a != VD_GROUND, "%s: node %d: body a is the ground", path, n);
        /* leaf-first (csblock.h): a node follows at least one of its bodies (but the root);
         * whether its pivot is nonsingular is check_prefix_rank's */
        {
            int before = 0, own = 0;

            for (int k = 0; k < 2; k++) {
                const int bb = m->jnode_body[2 * n + k];

                if (bb != VD_GROUND && bb != s->root) {
                    own++;
                    before += s->pos[bb] < pn;
                }
            }
            CHECK(own == 0 || before > 0, "%s: node %d (position %d) before all its bodies", path,
                  n, pn);
        }
    }
    for (int r = 0; r < m->nc; r++)
        CHECK(seen[r] == 1, "%s: row %d in %d nodes", path, r, seen[r]);
    if (s->root >= 0)
        for (int i = 0; i < m->nbody; i++)
            CHECK(i == s->root || s->pos[i] < s->pos[s->root], "%s: body %s after the root", path,
                  m->body[i].name);
    if (twin) {
        /* a vehicle: the chassis is the root and the clusters are those of the bushing twin */
        struct vd_source *tsrc = NULL;
        struct vd_model *t = vd_cfg_load_model(twin, &tsrc, NULL);

        CHECK(t != NULL, "load %s", twin);
        CHECK(s->root >= 0 && !strcmp(m->body[s->root].name, "chassis"), "%s: root %d", path,
              s->root);
        if (t) {
            CHECK(s->ncluster == t->blu.ncluster, "%s: %d clusters, %s has %d", path, s->ncluster,
                  twin, t->blu.ncluster);
            printf("  %s: root chassis, %d clusters (as %s), %d bodies + %d multiplier nodes "
                   "(%d rows), %d blocks stored (%d fill), %ld flop per factorization\n",
                   path, s->ncluster, twin, m->nbody, m->njnode, m->nc, s->nslot, s->nfill,
                   s->flops_factor);
        }
        vd_source_free(tsrc);
        vd_model_free(t);
    } else {
        CHECK(s->root == -1, "%s: a mechanism's root is the ground, not body %d", path, s->root);
        printf("  %s: root ground, %d clusters, %d bodies + %d multiplier nodes (%d rows)\n", path,
               s->ncluster, m->nbody, m->njnode, m->nc);
    }
    check_prefix_rank(m, path);
    {
        /* the leaf-first order against the minimum-degree order with every node after its
         * bodies (the nullspace form's clusters, csblock.h): never more block updates */
        const int nupd = s->nupd, nfill = s->nfill;
        char err[256] = "";

        m->opt.constraints = VD_CONSTRAINTS_NULLSPACE;
        CHECK(vd_csb_analyze(m, err, sizeof(err)) == 0, "%s: analyze: %s", path, err);
        CHECK(nupd <= m->blu.nupd, "%s: leaf-first %d block updates, minimum degree %d", path, nupd,
              m->blu.nupd);
        printf("  %s: leaf-first %d block updates (%d fill), minimum degree with the nodes "
               "last %d (%d fill)\n",
               path, nupd, nfill, m->blu.nupd, m->blu.nfill);
    }
    free(seen);
    vd_source_free(src);
    vd_model_free(m);
}

/* ---- accuracy ------------------------------------------------------------------------- */

/* The bound of the structured solve. The block LU (core/blocklu.h) is Gaussian elimination
 * of A in the node order (padding rows of the multiplier nodes as unit rows) with the row
 * interchanges restricted to each 6x6 diagonal block: replayed here in scalar form, its
 * factors P A = L U meet Higham's Thm 9.4 as dgetrf's do, so a solve with them is within
 * gamma_3n' c_s of x, c_s = || |A^-1| P^T |L| |U| || of these factors (vt_lu_cond takes them in
 * dgetrf's format: the interchanges are rows, 1-based). The implementation applies each
 * diagonal block through its explicit inverse X (from its LU, solving D X = I): |D X - I| <=
 * gamma |L_D| |U_D| |X| (Higham §14.3), which adds at most the factor 1 + c_D, c_D the same
 * Skeel-type condition number of the worst pivot block. So the bound is
 * gamma_3n' c_s (1 + max c_D). */
static double structured_bound(const struct vd_model *m, const double *A, int n)
{
    const struct vd_blu *s = &m->blu;
    const int np = 6 * s->nb;
    const size_t NP = (size_t)np;
    double *L = calloc(NP * NP, sizeof(double)), cs, cd = 0.0;
    int *idx = malloc(NP * sizeof(int));
    lapack_int *ipiv = malloc(NP * sizeof(lapack_int));

    /* the coordinate or constraint row of each position (-1: padding) */
    for (int k = 0; k < s->nb; k++) {
        const int node = s->perm[k];

        for (int i = 0; i < 6; i++)
            idx[6 * k + i] = node < m->nbody ? 6 * node + i
                             : m->jnode_row[6 * (node - m->nbody) + i] >= 0
                                 ? m->nq + m->jnode_row[6 * (node - m->nbody) + i]
                                 : -1;
    }
    for (int q = 0; q < np; q++)
        for (int p = 0; p < np; p++)
            L[(size_t)p + NP * (size_t)q] = idx[p] < 0 || idx[q] < 0
                                                ? (p == q ? 1.0 : 0.0)
                                                : A[(size_t)idx[p] + (size_t)n * (size_t)idx[q]];
    /* elimination with interchanges inside the diagonal block of the column */
    for (int j = 0; j < np; j++) {
        const int end = (j / 6 + 1) * 6;
        int p = j;

        for (int i = j + 1; i < end; i++)
            if (fabs(L[(size_t)i + NP * (size_t)j]) > fabs(L[(size_t)p + NP * (size_t)j]))
                p = i;
        ipiv[j] = p + 1;
        if (p != j)
            for (int c = 0; c < np; c++) {
                const double t = L[(size_t)j + NP * (size_t)c];

                L[(size_t)j + NP * (size_t)c] = L[(size_t)p + NP * (size_t)c];
                L[(size_t)p + NP * (size_t)c] = t;
            }
        for (int i = j + 1; i < np; i++)
            L[(size_t)i + NP * (size_t)j] /= L[(size_t)j + NP * (size_t)j];
        for (int c = j + 1; c < np; c++) {
            const double a = L[(size_t)j + NP * (size_t)c];

            if (a != 0.0)
                for (int i = j + 1; i < np; i++)
                    L[(size_t)i + NP * (size_t)c] -= L[(size_t)i + NP * (size_t)j] * a;
        }
    }
    cs = vt_lu_cond(np, L, ipiv);
    for (int k = 0; k < s->nb; k++) {
        double D[36];
        lapack_int pv[6];

        for (int c = 0; c < 6; c++) {
            for (int r = 0; r < 6; r++)
                D[r + 6 * c] = L[(size_t)(6 * k + r) + NP * (size_t)(6 * k + c)];
            pv[c] = ipiv[6 * k + c] - 6 * k;
        }
        cd = fmax(cd, vt_lu_cond(6, D, pv));
    }
    free(L);
    free(idx);
    free(ipiv);
    return vt_gamma(3.0 * np) * cs * (1.0 + cd);
}

/* the worker of the two-part factorization (vd_solve_factor with d->par), run in place */
static void sync_post(void *ctx, void (*fn)(void *arg), void *arg)
{
    (void)ctx;
    fn(arg);
}

static void sync_wait(void *ctx)
{
    (void)ctx;
}

/* On the real sizes the padded rows and columns of the multiplier nodes' blocks are never
 * read into a real entry (vd_csb_factor writes only the real rows, the factorization and the
 * solves read the padding into padded entries only): with every padded entry of every stored
 * block NaN before the assembly, the factorization and a solve and a correction give bit for
 * bit (==) the results of a clean run; a single padded entry read into a real one would make
 * them NaN. Leaves d factored at its state. */
static void check_padding_unread(const struct vd_model *m, struct vd_data *d, double *h, double *g,
                                 const char *path)
{
    const struct vd_blu *s = &m->blu;
    const int nq = m->nq, nc = m->nc, n = nq + nc;
    const size_t N = (size_t)n;
    double *b = malloc(N * sizeof(double)), *x0 = malloc(N * sizeof(double));
    double *x1 = malloc(N * sizeof(double)), *c0 = malloc(N * sizeof(double));
    double *c1 = malloc(N * sizeof(double));
    int npad = 0, ndiff = 0;

    CHECK(b && x0 && x1 && c0 && c1, "alloc");
    if (!b || !x0 || !x1 || !c0 || !c1)
        goto out;
    for (int i = 0; i < n; i++)
        b[i] = sin(1.0 + i); /* (not vt_uniform: the other checks keep their random draws) */
    CHECK(linearize(m, d, h, g, NULL) == 0, "%s: factor", path);
    memcpy(x0, b, N * sizeof(double));
    vd_cs_solve(m, d, x0, x0 + nq);
    vd_cs_correct(m, d, b + nq, c0);
    /* NaN into the padding: slot (p, q) of positions p, q, entry (i, j) padded when i or j is
     * beyond its node's real rows */
    for (int k = 0; k < s->nb; k++) {
        const int slots[3] = {s->diag_slot[k], -1, -1};

        for (int e = s->up_ptr[k] - 1; e < s->up_ptr[k + 1]; e++)
            for (int t = 0; t < (e < s->up_ptr[k] ? 1 : 2); t++) {
                const int sl = e < s->up_ptr[k] ? slots[0] : t ? s->l_slot[e] : s->u_slot[e];
                const int p = e < s->up_ptr[k] ? k : t ? s->up_col[e] : k;
                const int q = e < s->up_ptr[k] ? k : t ? k : s->up_col[e];

                for (int j = 0; j < 6; j++)
                    for (int i = 0; i < 6; i++)
                        if (i >= s->sz[p] || j >= s->sz[q]) {
                            d->F[36 * (size_t)sl + (size_t)(i + 6 * j)] = NAN;
                            npad++;
                        }
            }
    }
    CHECK(linearize(m, d, h, g, NULL) == 0, "%s: factor with NaN padding", path);
    memcpy(x1, b, N * sizeof(double));
    vd_cs_solve(m, d, x1, x1 + nq);
    vd_cs_correct(m, d, b + nq, c1);
    for (int i = 0; i < n; i++)
        ndiff += !(x1[i] == x0[i]);
    for (int i = 0; i < nq; i++)
        ndiff += !(c1[i] == c0[i]);
    CHECK(npad > 0 && ndiff == 0,
          "%s: %d of %d solution entries differ with the %d padded entries NaN", path, ndiff,
          n + nq, npad);
out:
    free(b);
    free(x0);
    free(x1);
    free(c0);
    free(c1);
}

static void check_accuracy(const char *path, int steps, int every)
{
    struct vd_source *src = NULL;
    struct vd_model *m = load(path, &src);
    struct vd_data *dd, *ds;
    struct kkt_ref r;
    double worst_s = 0.0, worst_d = 0.0, worst_c = 0.0, worst_b = 0.0;
    int nstate = 0;

    if (!m)
        return;
    const int nq = m->nq, nc = m->nc, n = nq + nc;
    const size_t N = (size_t)n;
    double *xd = malloc(N * sizeof(double));

    kkt_ref_alloc(&r, m);
    kkt_data_pair(m, src, &dd, &ds);
    CHECK(dd && ds && dd->S && !ds->S, "%s: data", path);
    if (!dd || !ds)
        goto out;
    for (int k = 0; k <= steps; k++) {
        if (k % every == 0) {
            /* the same state and inputs in both */
            kkt_linearize_pair(m, src, dd, ds, r.h, r.g, r.A, path, k);
            if (k == 0 && m->blu.sz) {
                /* the factorization on the real node sizes skips only exact zeros of the
                 * padding (core/blocklu.h, vd_blu_set_sizes): its factors equal the padded
                 * 6x6 path's exactly (== also takes -0 for +0) */
                const size_t nf = 36 * (size_t)m->blu.nslot;
                double *F1 = malloc(nf * sizeof(double));
                unsigned char *sz = m->blu.sz;
                size_t ndiff = 0;

                CHECK(F1 != NULL, "alloc");
                if (F1) {
                    memcpy(F1, ds->F, nf * sizeof(double));
                    m->blu.sz = NULL;
                    CHECK(linearize(m, ds, r.h, r.g, NULL) == 0, "%s: padded factor", path);
                    m->blu.sz = sz;
                    for (size_t i = 0; i < nf; i++)
                        ndiff += !(F1[i] == ds->F[i]);
                    CHECK(ndiff == 0,
                          "%s: %zu of %zu factor entries differ between the sized "
                          "and the padded factorization",
                          path, ndiff, nf);
                    CHECK(linearize(m, ds, r.h, r.g, NULL) == 0, "%s: factor", path);
                    free(F1);
                }
                check_padding_unread(m, ds, r.h, r.g, path);
            }
            kkt_ref_factor(&r, n, path);
            /* the bound of a dense LU solve (Thm 9.4 with the Skeel-type c of the factors,
             * tests/lu_bound.h), plus 2u for the refined reference (Higham Thm 12.2: three
             * refinements with extended residuals converge to about u when gamma_3n c < 1/2) */
            const double bound = vt_gamma(3.0 * n) * vt_lu_cond(n, r.LU, r.ipiv) + 2.0 * VT_U;
            const double sbound = structured_bound(m, r.A, n) + 2.0 * VT_U;

            for (int rhs = 0; rhs < 3; rhs++) {
                /* 0: the forces and the velocity rows -G v / dt of a step; 1: random; 2: the
                 * correction (x = 0, c = random) */
                for (int i = 0; i < n; i++)
                    r.b[i] = rhs == 1 || (rhs == 2 && i >= nq) ? vt_uniform(-1.0, 1.0)
                             : rhs == 2                        ? 0.0
                             : i < nq                          ? r.h[i]
                                                               : 0.0;
                if (rhs == 0)
                    kkt_velocity_rows(m, dd, r.b + nq);
                refined(n, r.A, r.LU, r.ipiv, r.b, r.xr, r.res);
                /* structured: the solve, or the correction */
                memcpy(r.xs, r.b, N * sizeof(double));
                m->opt.linear = VD_LINEAR_STRUCTURED;
                if (rhs == 2) {
                    vd_cs_correct(m, ds, r.b + nq, r.xs);
                    worst_c = fmax(worst_c, nerr(r.xs, r.xr, nq) / sbound);
                    CHECK_TOL(nerr(r.xs, r.xr, nq), sbound,
                              "%s step %d: structured correction error %.3g, bound %.3g", path, k,
                              nerr(r.xs, r.xr, nq), sbound);
                } else {
                    vd_cs_solve(m, ds, r.xs, r.xs + nq);
                    worst_s = fmax(worst_s, nerr(r.xs, r.xr, n) / sbound);
                    worst_b = fmax(worst_b, sbound / bound);
                    CHECK_TOL(nerr(r.xs, r.xr, n), sbound,
                              "%s step %d rhs %d: structured solve error %.3g, bound %.3g", path, k,
                              rhs, nerr(r.xs, r.xr, n), sbound);
                    if (rhs == 0 && m->blu.ncluster > 1) {
                        /* the two-part factorization (rtvd bench --worker): the same
                         * elimination but for the order of the additions into the root
                         * block, so the same bound */
                        ds->par.post = sync_post;
                        ds->par.wait = sync_wait;
                        CHECK(linearize(m, ds, r.h, r.g, NULL) == 0, "%s: two-part factor", path);
                        memcpy(r.xs, r.b, N * sizeof(double));
                        vd_cs_solve(m, ds, r.xs, r.xs + nq);
                        CHECK_TOL(nerr(r.xs, r.xr, n), sbound,
                                  "%s step %d: two-part structured solve error %.3g, bound %.3g",
                                  path, k, nerr(r.xs, r.xr, n), sbound);
                        ds->par.post = NULL;
                        ds->par.wait = NULL;
                        CHECK(linearize(m, ds, r.h, r.g, NULL) == 0, "%s: factor", path);
                    }
                }
                /* dense, the same bound */
                memcpy(xd, r.b, N * sizeof(double));
                m->opt.linear = VD_LINEAR_DENSE;
                vd_cs_solve(m, dd, xd, xd + nq);
                worst_d = fmax(worst_d, nerr(xd, r.xr, n) / bound);
                CHECK_TOL(nerr(xd, r.xr, n), bound,
                          "%s step %d rhs %d: dense solve error %.3g, bound %.3g", path, k, rhs,
                          nerr(xd, r.xr, n), bound);
            }
            nstate++;
        }
        kkt_dense_step(m, dd, path, k);
    }
    printf("  %s: %d states, worst error / bound: structured solve %.2g, correction %.2g, "
           "dense %.2g; structured bound / dense bound up to %.3g\n",
           path, nstate, worst_s, worst_c, worst_d, worst_b);
out:
    vd_data_free(dd);
    vd_data_free(ds);
    kkt_ref_free(&r);
    free(xd);
    vd_source_free(src);
    vd_model_free(m);
}

/* The joint rows' translation pattern (vd_blu_set_unit): the updates and W products that use
 * it give the factors of the general kernels exactly, the sign of an exact zero aside (their
 * skipped terms are products with exact zeros), so the two factorizations of one assembled
 * matrix must compare equal entry by entry (== treats -0 and +0 as equal). The matrix is the
 * step's, after `steps` structured LIE steps from the initial state. */
static void check_unit(const char *path, int steps, int want_flags)
{
    struct vd_source *src = NULL;
    struct vd_model *m = load(path, &src);
    struct vd_data *d = m ? vd_data_new(m) : NULL;
    double *F0 = NULL, *F1 = NULL;
    unsigned char *ut, *wt;
    size_t n;
    int nut = 0, nwt = 0, diff = 0;

    CHECK(d != NULL, "%s: data", path);
    if (!d)
        goto out;
    ut = m->blu.upd_t;
    wt = m->blu.w_t;
    CHECK(ut && wt, "%s: unit flags set", path);
    if (!ut || !wt)
        goto out;
    for (int u = 0; u < m->blu.nupd; u++)
        nut += ut[u];
    for (int e = 0; e < m->blu.nup; e++)
        nwt += wt[e];
    printf("%s: %d of %d updates and %d of %d W products on the translation pattern\n", path, nut,
           m->blu.nupd, nwt, m->blu.nup);
    CHECK(!want_flags || (nut > 0 && nwt > 0), "%s: flagged updates %d, W products %d", path, nut,
          nwt);
    for (int k = 0; k < steps; k++)
        CHECK(vd_step(m, d) == 0, "%s: step %d", path, k);
    n = 36 * (size_t)m->blu.nslot;
    F0 = malloc(n * sizeof(double));
    F1 = malloc(n * sizeof(double));
    CHECK(F0 && F1, "%s: alloc", path);
    if (!F0 || !F1)
        goto out;
    vd_cs_assemble(m, d, 1.0, m->opt.dt, m->opt.dt * m->opt.dt);
    CHECK(vd_cs_factor(m, d) == 0, "%s: factor", path);
    vd_cs_assemble(m, d, 1.0, m->opt.dt, m->opt.dt * m->opt.dt);
    memcpy(F0, d->F, n * sizeof(double)); /* assembled, node blocks and stale fill included */
    CHECK(vd_cs_factor(m, d) == 0, "%s: factor with the flags", path);
    memcpy(F1, d->F, n * sizeof(double));
    memcpy(d->F, F0, n * sizeof(double));
    m->blu.upd_t = m->blu.w_t = NULL;
    CHECK(vd_cs_factor(m, d) == 0, "%s: factor without", path);
    m->blu.upd_t = ut;
    m->blu.w_t = wt;
    for (size_t i = 0; i < n; i++)
        diff += !(F1[i] == d->F[i]) && !(F1[i] != F1[i] && d->F[i] != d->F[i]);
    CHECK(diff == 0, "%s: %d entries of the factors differ with the translation pattern", path,
          diff);
out:
    free(F0);
    free(F1);
    vd_data_free(d);
    vd_source_free(src);
    vd_model_free(m);
}

int main(void)
{
    CHECK(vd_blas_init(NULL, 0) == 0, "one BLAS thread");
    check_structure("config/vehicles/hmmwv_joints.yaml", "config/vehicles/hmmwv.yaml");
    check_structure("config/vehicles/sedan_joints.yaml", "config/vehicles/sedan.yaml");
    check_structure("config/mechanisms/fourbar.yaml", NULL);
    check_structure("config/mechanisms/slider_crank.yaml", NULL);
    check_structure("config/mechanisms/multilink_corner.yaml", NULL);
    /* 300 steps (0.3 s: settling from the design pose, the signals' first actions), a state
     * every 50 */
    check_unit("config/vehicles/hmmwv_joints.yaml", 100, 1);
    check_unit("config/vehicles/sedan_joints.yaml", 100, 1);
    check_unit("config/mechanisms/multilink_corner.yaml", 100, 0);
    check_accuracy("config/vehicles/hmmwv_joints.yaml", 300, 50);
    check_accuracy("config/vehicles/sedan_joints.yaml", 300, 50);
    check_accuracy("config/mechanisms/fourbar.yaml", 300, 50);
    check_accuracy("config/mechanisms/slider_crank.yaml", 300, 50);
    return vt_report("test_csblock");
}
