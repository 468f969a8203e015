/* core/solve.c - assembly, factorization and solve of the iteration matrix, and the
 * condensation of the element states: solve.h. */
#include "solve.h"

#include <errno.h>
#include <string.h>

#include "blocklu.h"
#include "csolve.h"
#include "linalg.h"
#include "vdmath.h"

int vd_solver_warmup(const struct vd_model *m, struct vd_data *d)
{
    /* one BLAS thread, checked: a threaded OpenBLAS would spin up workers in the RT loop */
    if (vd_blas_init(NULL, 0))
        return -EPERM;
    /* the structured path calls no LAPACK routine */
    if (!d->S)
        return 0;
    return vd_lapack_warmup(m->nq, d->S, d->ipiv, d->h);
}

/* S_ij = -c1 Jv_ij - c2 (Jr K)_ij of pattern block k into dst (leading dimension ld),
 * Jr K = Jp diag(I, Alin_j) */
static inline void s_block(const struct vd_data *d, int k, int j, double c1, double c2,
                           double *restrict dst, size_t ld)
{
    const double *restrict P = d->Jp + 36 * k, *restrict V = d->Jvb + 36 * k;
    const double *A = d->Alin + 9 * j;

    for (int c = 0; c < 3; c++)
        for (int rr = 0; rr < 6; rr++)
            dst[(size_t)c * ld + (size_t)rr] = -c1 * VD_B6(V, rr, c) - c2 * VD_B6(P, rr, c);
    for (int c = 3; c < 6; c++) {
        const double a0 = A[c - 3], a1 = A[c], a2 = A[c + 3];

        for (int rr = 0; rr < 6; rr++) {
            const double jrk = VD_B6(P, rr, 3) * a0 + VD_B6(P, rr, 4) * a1 + VD_B6(P, rr, 5) * a2;

            dst[(size_t)c * ld + (size_t)rr] = -c1 * VD_B6(V, rr, c) - c2 * jrk;
        }
    }
}

/* dst (6x6 diagonal block of body i, leading dimension ld) += cm M_i */
static void add_mass(const struct vd_model *m, int i, double cm, double *dst, size_t ld)
{
    const struct vd_body *b = &m->body[i];

    for (int k = 0; k < 3; k++)
        dst[(size_t)k * (ld + 1)] += cm * b->mass;
    for (int rr = 0; rr < 3; rr++)
        for (int c = 0; c < 3; c++)
            dst[(size_t)(3 + rr) + ld * (size_t)(3 + c)] += cm * b->inertia[3 * rr + c];
}

void vd_assemble_dense(const struct vd_model *m, struct vd_data *d, double cm, double c1, double c2)
{
    const size_t ld = (size_t)(m->nq + m->nc); /* the joint rows and columns stay zero */
    double *S = d->S;

    memset(S, 0, ld * ld * sizeof(double));
    for (int i = 0; i < m->nbody; i++) {
        for (int k = m->blk_rowptr[i]; k < m->blk_rowptr[i + 1]; k++) {
            const int j = m->blk_col[k];

            s_block(d, k, j, c1, c2, S + ld * (size_t)(6 * j) + 6 * (size_t)i, ld);
        }
        add_mass(m, i, cm, S + (size_t)(6 * i) * (ld + 1), ld);
    }
}

VD_CLONES void vd_assemble_blocks(const struct vd_model *m, struct vd_data *d, double cm, double c1,
                                  double c2)
{
    /* the fill slots are not cleared: the first update of each writes it (upd_first) */
    for (int i = 0; i < m->nbody; i++) {
        for (int k = m->blk_rowptr[i]; k < m->blk_rowptr[i + 1]; k++)
            s_block(d, k, m->blk_col[k], c1, c2, d->F + 36 * (size_t)m->blk_slot[k], 6);
        add_mass(m, i, cm, d->F + 36 * (size_t)m->blk_slot[m->blk_diag[i]], 6);
    }
}

/* part 1 of the clusters, on the second thread */
struct part_job {
    const struct vd_blu *s;
    double *F, *acc;
    int rc;
};

static void factor_part1(void *arg)
{
    struct part_job *j = arg;

    j->rc = vd_blu_factor_part(j->s, j->F, 1, j->acc);
}

int vd_solve_factor(const struct vd_model *m, struct vd_data *d)
{
    const struct vd_blu *s = &m->blu;

    if (m->opt.linear == VD_LINEAR_DENSE)
        return vd_lu_factor(m->nq, d->S, d->ipiv);
    if (d->par.post && s->ncluster > 1) {
        struct part_job j = {s, d->F, d->par_acc[1], 0};
        int rc;

        d->par.post(d->par.ctx, factor_part1, &j);
        rc = vd_blu_factor_part(s, d->F, 0, d->par_acc[0]);
        d->par.wait(d->par.ctx);
        /* the first zero pivot in elimination order, as vd_blu_factor reports it */
        if (rc || j.rc)
            return rc ? rc : j.rc;
        return vd_blu_factor_root(s, d->F, d->par_acc[0], d->par_acc[1]);
    }
    return vd_blu_factor(s, d->F);
}

void vd_solve_apply(const struct vd_model *m, struct vd_data *d, double *x)
{
    if (m->opt.linear == VD_LINEAR_DENSE)
        vd_lu_solve(m->nq, d->S, d->ipiv, x, 1);
    else
        vd_blu_solve(&m->blu, d->F, x);
}

/* the 6x6 diagonal block of body b of the matrix being assembled, and its leading
 * dimension */
static double *diag_block(const struct vd_model *m, struct vd_data *d, int b, size_t *ld)
{
    if (m->opt.linear == VD_LINEAR_DENSE || (m->nc && !vd_cs_structured(m))) {
        *ld = (size_t)(m->nq + m->nc);
        return d->S + (size_t)(6 * b) * (*ld + 1);
    }
    *ld = 6;
    return d->F + 36 * (size_t)m->blk_slot[m->blk_diag[b]];
}

/* ---- element states z (tyre relaxation) ---------------------------------------------
 * Per tyre on body b: k_z = Dzi (rz + C k_v,b), with Dz = I - c1 Gz, C = c1 Gv + c2 Gr K,
 * so the v-system gets S_bb -= c1 Jz Dzi C and rhs_v,b += c1 Jz Dzi rz (condensed: the
 * states never enter the global matrix). */

/* at a linearization: Dzi, Cz and the condensation into the assembled matrix */
void vd_z_linearize(const struct vd_model *m, struct vd_data *d, double c1, double c2)
{
    for (int t = 0; t < m->ntire; t++) {
        const int b = m->marker[m->tire[t].marker].body;
        const double *Gz = d->Gz + 4 * t, *Gp = d->Gp + 12 * t, *Gv = d->Gv + 12 * t;
        const double *Jz = d->Jz + 12 * t, *A = d->Alin + 9 * b;
        double *Dzi = d->Dzi + 4 * t, *C = d->Cz + 12 * t, D[4], det, JD[12];

        D[0] = 1.0 - c1 * Gz[0];
        D[1] = -c1 * Gz[1];
        D[2] = -c1 * Gz[2];
        D[3] = 1.0 - c1 * Gz[3];
        det = D[0] * D[3] - D[1] * D[2];
        Dzi[0] = D[3] / det;
        Dzi[1] = -D[1] / det;
        Dzi[2] = -D[2] / det;
        Dzi[3] = D[0] / det;
        /* C = c1 Gv + c2 Gp diag(I, A) */
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 6; j++) {
                double grk = j < 3 ? Gp[6 * i + j]
                                   : Gp[6 * i + 3] * A[j - 3] + Gp[6 * i + 4] * A[3 + j - 3] +
                                         Gp[6 * i + 5] * A[6 + j - 3];

                C[6 * i + j] = c1 * Gv[6 * i + j] + c2 * grk;
            }
        /* JD = Jz Dzi (6x2, column-major) */
        for (int r = 0; r < 6; r++)
            for (int j = 0; j < 2; j++)
                JD[r + 6 * j] = Jz[r] * Dzi[j] + Jz[r + 6] * Dzi[2 + j];
        /* S_bb -= c1 JD C */
        size_t ld;
        double *Sbb = diag_block(m, d, b, &ld);

        for (int cc = 0; cc < 6; cc++) {
            double *col = Sbb + ld * (size_t)cc;

            for (int r = 0; r < 6; r++)
                col[r] -= c1 * (JD[r] * C[cc] + JD[r + 6] * C[6 + cc]);
        }
    }
}

/* rz += Gr p (p in r coordinates, Tlin) [+ Gv pv] [+ Gz pz], scaled by s */
void vd_z_g_mul_add(const struct vd_model *m, const struct vd_data *d, double s, const double *pr,
                    const double *pv, const double *pz, double *rz)
{
    for (int t = 0; t < m->ntire; t++) {
        const int b = m->marker[m->tire[t].marker].body, zo = m->tire[t].zoff;
        const double *Gp = d->Gp + 12 * t, *Gv = d->Gv + 12 * t, *Gz = d->Gz + 4 * t;
        const double *T = d->Tlin + 9 * b;

        for (int i = 0; i < 2; i++) {
            double acc = 0.0;

            if (pr) {
                const double *x = pr + 6 * b;
                double pa[3];

                vdu_mat3_vec(pa, T, x + 3);
                acc += Gp[6 * i] * x[0] + Gp[6 * i + 1] * x[1] + Gp[6 * i + 2] * x[2] +
                       Gp[6 * i + 3] * pa[0] + Gp[6 * i + 4] * pa[1] + Gp[6 * i + 5] * pa[2];
            }
            if (pv)
                for (int j = 0; j < 6; j++)
                    acc += Gv[6 * i + j] * pv[6 * b + j];
            if (pz)
                acc += Gz[2 * i] * pz[zo] + Gz[2 * i + 1] * pz[zo + 1];
            rz[zo + i] += s * acc;
        }
    }
}

/* y_v += s Jz x_z */
void vd_z_jz_mul_add(const struct vd_model *m, const struct vd_data *d, double s, const double *xz,
                     double *y)
{
    for (int t = 0; t < m->ntire; t++) {
        const int b = m->marker[m->tire[t].marker].body, zo = m->tire[t].zoff;
        const double *Jz = d->Jz + 12 * t;

        for (int r = 0; r < 6; r++)
            y[6 * b + r] += s * (Jz[r] * xz[zo] + Jz[r + 6] * xz[zo + 1]);
    }
}

/* one stage solve: rv (rhs of the v rows, incl. c1 Jr p) and rz (rhs of the z rows, incl.
 * c1 Gr p) in, k_v in rv and k_z in rz out */
void vd_stage_solve(const struct vd_model *m, struct vd_data *d, double c1, double *rv, double *rz,
                    double *rc)
{
    double *zt = rz; /* Dzi rz, in place per tyre */

    for (int t = 0; t < m->ntire; t++) {
        const int zo = m->tire[t].zoff;
        const double *Dzi = d->Dzi + 4 * t;
        const double a = rz[zo], b2 = rz[zo + 1];

        zt[zo] = Dzi[0] * a + Dzi[1] * b2;
        zt[zo + 1] = Dzi[2] * a + Dzi[3] * b2;
    }
    vd_z_jz_mul_add(m, d, c1, zt, rv);
    if (m->nc)
        vd_cs_solve(m, d, rv, rc);
    else
        vd_solve_apply(m, d, rv);
    /* k_z = Dzi (rz + C k_v) = zt + Dzi C k_v */
    for (int t = 0; t < m->ntire; t++) {
        const int b = m->marker[m->tire[t].marker].body, zo = m->tire[t].zoff;
        const double *Dzi = d->Dzi + 4 * t, *C = d->Cz + 12 * t, *kv = rv + 6 * b;
        double ck[2] = {0.0, 0.0};

        for (int j = 0; j < 6; j++) {
            ck[0] += C[j] * kv[j];
            ck[1] += C[6 + j] * kv[j];
        }
        zt[zo] += Dzi[0] * ck[0] + Dzi[1] * ck[1];
        zt[zo + 1] += Dzi[2] * ck[0] + Dzi[3] * ck[1];
    }
}
