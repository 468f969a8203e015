/* core/csolve.c - augmented and null-space solves of a model with joints: csolve.h. */
#include "csolve.h"

#include <math.h>
#include <string.h>

#include "csblock.h"
#include "csnull.h"
#include "joint.h"
#include "linalg.h"
#include "solve.h"

bool vd_cs_structured(const struct vd_model *m)
{
    return m->opt.linear == VD_LINEAR_STRUCTURED && m->njnode > 0 &&
           (m->opt.constraints == VD_CONSTRAINTS_INDEX2 || m->csn);
}

void vd_cs_assemble(const struct vd_model *m, struct vd_data *d, double cm, double c1, double c2)
{
    if (vd_cs_structured(m))
        vd_assemble_blocks(m, d, cm, c1, c2);
    else
        vd_assemble_dense(m, d, cm, c1, c2);
}

/* ---- index2: [S G^T; G 0] ------------------------------------------------------------- */

static int factor_index2(const struct vd_model *m, struct vd_data *d)
{
    const int nq = m->nq, nc = m->nc, n = nq + nc;
    const size_t ld = (size_t)n;
    double *S = d->S;

    /* G into rows nq.., G^T into columns nq..; the corner stays zero (assemble cleared it) */
    vd_joint_G_dense(m, d, S + nq, n);
    for (int c = 0; c < nq; c++)
        for (int r = 0; r < nc; r++)
            S[(size_t)c + ld * (size_t)(nq + r)] = S[(size_t)(nq + r) + ld * (size_t)c];
    for (int c = nq; c < n; c++)
        memset(S + (size_t)nq + ld * (size_t)c, 0, (size_t)nc * sizeof(double));
    return vd_lu_factor(n, S, d->ipiv);
}

/* ---- nullspace ------------------------------------------------------------------------- */

/* min / max |u_kk| of an n x n LU (leading dimension ld) */
static double pivot_ratio(const double *LU, int n, int ld)
{
    double mn = INFINITY, mx = 0.0;

    for (int k = 0; k < n; k++) {
        const double a = fabs(LU[(size_t)k * ((size_t)ld + 1)]);

        mn = fmin(mn, a);
        mx = fmax(mx, a);
    }
    return mx > 0.0 ? mn / mx : 0.0;
}

/* select the dependent coordinates: LU of G^T (nq x nc) with row pivoting; the pivot rows
 * are the dependent coordinates (jperm[0..nc)), the others independent */
static int select_coords(const struct vd_model *m, struct vd_data *d)
{
    const int nq = m->nq, nc = m->nc;
    double *GT = d->Gd;
    int info;

    for (int r = 0; r < nc; r++) {
        const double *G = d->jG + 12 * (size_t)r;
        const int b[2] = {m->jrow_body[2 * r], m->jrow_body[2 * r + 1]};

        memset(GT + (size_t)nq * (size_t)r, 0, (size_t)nq * sizeof(double));
        for (int s = 0; s < 2; s++)
            if (b[s] != VD_GROUND)
                for (int c = 0; c < 6; c++)
                    GT[(size_t)(6 * b[s] + c) + (size_t)nq * (size_t)r] += G[6 * s + c];
    }
    info = vd_lu_factor_rect(nq, nc, GT, nq, d->gpiv);
    if (info)
        return info;
    for (int i = 0; i < nq; i++)
        d->jperm[i] = i;
    for (int i = 0; i < nc; i++) {
        const int p = d->gpiv[i] - 1, t = d->jperm[i];

        d->jperm[i] = d->jperm[p];
        d->jperm[p] = t;
    }
    d->nselect++;
    return 0;
}

/* G[r, col] of the current rows (col: a coordinate) */
static double g_at(const struct vd_model *m, const struct vd_data *d, int r, int col)
{
    const int b = col / 6, c = col % 6;
    double v = 0.0;

    if (m->jrow_body[2 * r] == b)
        v += d->jG[12 * (size_t)r + (size_t)c];
    if (m->jrow_body[2 * r + 1] == b)
        v += d->jG[12 * (size_t)r + 6 + (size_t)c];
    return v;
}

/* Gu (the dependent columns) and its LU; the pivot ratio into d->gu_ratio */
static int factor_gu(const struct vd_model *m, struct vd_data *d)
{
    const int nc = m->nc;
    int info;

    for (int k = 0; k < nc; k++)
        for (int r = 0; r < nc; r++)
            d->Gu[(size_t)r + (size_t)nc * (size_t)k] = g_at(m, d, r, d->jperm[k]);
    info = vd_lu_factor(nc, d->Gu, d->gpiv);
    d->gu_ratio = info ? 0.0 : pivot_ratio(d->Gu, nc, nc);
    return info;
}

static int factor_nullspace(const struct vd_model *m, struct vd_data *d)
{
    const int nq = m->nq, nc = m->nc, nf = nq - nc, ldS = nq + nc;
    const int *P = d->jperm;
    double *X = d->SR; /* -Gu^-1 Gw (nc x nf) first, before SR is formed */
    int info;

    if (d->gu_ratio_sel <= 0.0) {
        info = select_coords(m, d);
        if (info)
            return info;
        info = factor_gu(m, d);
        d->gu_ratio_sel = d->gu_ratio;
    } else {
        info = factor_gu(m, d);
        if (info || d->gu_ratio < m->opt.reselect * d->gu_ratio_sel) {
            info = select_coords(m, d);
            if (info)
                return info;
            info = factor_gu(m, d);
            d->gu_ratio_sel = d->gu_ratio;
        }
    }
    if (info)
        return info;
    /* X = -Gu^-1 Gw */
    for (int j = 0; j < nf; j++)
        for (int r = 0; r < nc; r++)
            X[(size_t)r + (size_t)nc * (size_t)j] = -g_at(m, d, r, P[nc + j]);
    if (nf)
        vd_lu_solve_ex('N', nc, d->Gu, nc, d->gpiv, X, nf, nc);
    /* R = P [X; I] */
    memset(d->Rm, 0, (size_t)nq * (size_t)nf * sizeof(double));
    for (int j = 0; j < nf; j++) {
        double *Rj = d->Rm + (size_t)nq * (size_t)j;

        for (int k = 0; k < nc; k++)
            Rj[P[k]] = X[(size_t)k + (size_t)nc * (size_t)j];
        Rj[P[nc + j]] = 1.0;
    }
    /* SR = S R = S[:, w_j] + sum_k S[:, u_k] X[k, j] */
    for (int j = 0; j < nf; j++) {
        double *SRj = d->SR + (size_t)nq * (size_t)j;
        const double *Rj = d->Rm + (size_t)nq * (size_t)j;

        memcpy(SRj, d->S + (size_t)ldS * (size_t)P[nc + j], (size_t)nq * sizeof(double));
        for (int k = 0; k < nc; k++) {
            const double x = Rj[P[k]];
            const double *Sk = d->S + (size_t)ldS * (size_t)P[k];

            if (x != 0.0)
                for (int i = 0; i < nq; i++)
                    SRj[i] += Sk[i] * x;
        }
    }
    /* Rr = R^T SR */
    for (int b = 0; b < nf; b++) {
        const double *SRb = d->SR + (size_t)nq * (size_t)b;

        for (int a = 0; a < nf; a++) {
            const double *Ra = d->Rm + (size_t)nq * (size_t)a;
            double acc = SRb[P[nc + a]];

            for (int k = 0; k < nc; k++)
                acc += Ra[P[k]] * SRb[P[k]];
            d->Rr[(size_t)a + (size_t)nf * (size_t)b] = acc;
        }
    }
    return nf ? vd_lu_factor(nf, d->Rr, d->rpiv) : 0; /* nf = 0: a kinematically driven model */
}

int vd_cs_factor(const struct vd_model *m, struct vd_data *d)
{
    if (vd_cs_structured(m))
        return m->csn ? vd_csn_factor(m, d) : vd_csb_factor(m, d);
    if (m->opt.constraints == VD_CONSTRAINTS_NULLSPACE)
        return factor_nullspace(m, d);
    return factor_index2(m, d);
}

/* y = S x (nq, S with leading dimension nq + nc) */
static void s_mul(const struct vd_model *m, const struct vd_data *d, const double *x, double *y)
{
    const int nq = m->nq;
    const size_t ld = (size_t)(nq + m->nc);

    memset(y, 0, (size_t)nq * sizeof(double));
    for (int c = 0; c < nq; c++) {
        const double xc = x[c];
        const double *Sc = d->S + ld * (size_t)c;

        if (xc != 0.0)
            for (int i = 0; i < nq; i++)
                y[i] += Sc[i] * xc;
    }
}

void vd_cs_solve(const struct vd_model *m, struct vd_data *d, double *x, double *c)
{
    const int nq = m->nq, nc = m->nc, nf = nq - nc;
    const int *P = d->jperm;
    double *y = d->kx, *t = d->kw, *z = d->kz;

    if (vd_cs_structured(m)) {
        if (m->csn)
            vd_csn_solve(m, d, x, c);
        else
            vd_csb_solve(m, d, x, c);
        return;
    }
    if (m->opt.constraints != VD_CONSTRAINTS_NULLSPACE) {
        memcpy(y, x, (size_t)nq * sizeof(double));
        memcpy(y + nq, c, (size_t)nc * sizeof(double));
        vd_lu_solve(nq + nc, d->S, d->ipiv, y, 1);
        memcpy(x, y, (size_t)nq * sizeof(double));
        memcpy(c, y + nq, (size_t)nc * sizeof(double));
        return;
    }
    /* a_p = P [Gu^-1 c; 0] in y (coordinates) */
    memcpy(t, c, (size_t)nc * sizeof(double));
    vd_lu_solve_ex('N', nc, d->Gu, nc, d->gpiv, t, 1, nc);
    memset(y, 0, (size_t)nq * sizeof(double));
    for (int k = 0; k < nc; k++)
        y[P[k]] = t[k];
    /* (R^T S R) a_z = R^T (x - S a_p) */
    s_mul(m, d, y, t);
    for (int i = 0; i < nq; i++)
        t[i] = x[i] - t[i];
    for (int a = 0; a < nf; a++) {
        const double *Ra = d->Rm + (size_t)nq * (size_t)a;
        double acc = 0.0;

        for (int i = 0; i < nq; i++)
            acc += Ra[i] * t[i];
        z[a] = acc;
    }
    if (nf)
        vd_lu_solve_ex('N', nf, d->Rr, nf, d->rpiv, z, 1, nf);
    /* a = R a_z + a_p, into y */
    for (int a = 0; a < nf; a++) {
        const double *Ra = d->Rm + (size_t)nq * (size_t)a;
        const double za = z[a];

        for (int i = 0; i < nq; i++)
            y[i] += Ra[i] * za;
    }
    /* the multipliers from the dependent rows: Gu^T l = (x - S a)_u */
    s_mul(m, d, y, t);
    for (int k = 0; k < nc; k++)
        c[k] = x[P[k]] - t[P[k]];
    vd_lu_solve_ex('T', nc, d->Gu, nc, d->gpiv, c, 1, nc);
    memcpy(x, y, (size_t)nq * sizeof(double));
}

void vd_cs_correct(const struct vd_model *m, struct vd_data *d, const double *c, double *ds)
{
    const int nq = m->nq, nc = m->nc;

    if (vd_cs_structured(m) && m->csn) {
        vd_csn_correct(m, d, c, ds);
        return;
    }
    if (vd_cs_structured(m)) {
        vd_csb_correct(m, d, c, ds);
        return;
    }
    if (m->opt.constraints != VD_CONSTRAINTS_NULLSPACE) {
        double *y = d->kx;

        memset(y, 0, (size_t)nq * sizeof(double));
        memcpy(y + nq, c, (size_t)nc * sizeof(double));
        vd_lu_solve(nq + nc, d->S, d->ipiv, y, 1);
        memcpy(ds, y, (size_t)nq * sizeof(double));
        return;
    }
    memcpy(d->kw, c, (size_t)nc * sizeof(double));
    vd_lu_solve_ex('N', nc, d->Gu, nc, d->gpiv, d->kw, 1, nc);
    memset(ds, 0, (size_t)nq * sizeof(double));
    for (int k = 0; k < nc; k++)
        ds[d->jperm[k]] = d->kw[k];
}
