/* core/bblu.c - LU of a bordered block diagonal matrix: bblu.h. */
#include "bblu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linalg.h"

void vd_bblu_free(struct vd_bblu *p)
{
    if (!p)
        return;
    free(p->ptr);
    free(p->idx);
    free(p->bidx);
    free(p->bptr);
    free(p->bsub);
    free(p->off);
    memset(p, 0, sizeof(*p));
}

int vd_bblu_plan(struct vd_bblu *p, int n, const int *cl, int ncl, const unsigned char *touch,
                 char *err, size_t errlen)
{
    int k = 0, kb = 0;

    memset(p, 0, sizeof(*p));
    if (n < 1 || ncl < 0) {
        snprintf(err, errlen, "bordered LU: order %d, %d clusters", n, ncl);
        return -EINVAL;
    }
    p->n = n;
    p->ncl = ncl;
    for (int i = 0; i < n; i++) {
        if (cl[i] < -1 || cl[i] >= ncl) {
            snprintf(err, errlen, "bordered LU: index %d in cluster %d of %d", i, cl[i], ncl);
            return -EINVAL;
        }
        p->nb += cl[i] < 0;
    }
    p->ptr = calloc((size_t)ncl + 1, sizeof(int));
    p->idx = calloc((size_t)(n - p->nb) + 1, sizeof(int));
    p->bidx = calloc((size_t)p->nb + 1, sizeof(int));
    p->off = calloc((size_t)ncl + 1, sizeof(size_t));
    p->bptr = calloc((size_t)ncl + 1, sizeof(int));
    p->bsub = calloc((size_t)ncl * (size_t)p->nb + 1, sizeof(int));
    if (!p->ptr || !p->idx || !p->bidx || !p->off || !p->bptr || !p->bsub) {
        vd_bblu_free(p);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    for (int c = 0; c < ncl; c++) {
        p->ptr[c] = k;
        for (int i = 0; i < n; i++)
            if (cl[i] == c)
                p->idx[k++] = i;
        if (k == p->ptr[c]) {
            snprintf(err, errlen, "bordered LU: cluster %d is empty", c);
            vd_bblu_free(p);
            return -EINVAL;
        }
    }
    p->ptr[ncl] = k;
    for (int i = 0; i < n; i++)
        if (cl[i] < 0)
            p->bidx[kb++] = i;
    kb = 0;
    for (int c = 0; c < ncl; c++) {
        p->bptr[c] = kb;
        for (int a = 0; a < p->nb; a++)
            if (!touch || touch[(size_t)c * (size_t)n + (size_t)p->bidx[a]])
                p->bsub[kb++] = a;
    }
    p->bptr[ncl] = kb;
    {
        const long nb = p->nb;
        size_t off = 0;

        for (int c = 0; c < ncl; c++) {
            const long nc = p->ptr[c + 1] - p->ptr[c], nbc = p->bptr[c + 1] - p->bptr[c];

            p->off[c] = off;
            off += (size_t)(nc * (nc + 2 * nbc));
            if (nc > p->maxc)
                p->maxc = (int)nc;
            p->flops_factor += 2 * nc * nc * nc / 3 + 2 * nc * nc * nbc + 2 * nbc * nbc * nc;
            p->flops_solve += 2 * nc * nc + 4 * nc * nbc;
        }
        p->off[ncl] = off;
        p->nf = off + (size_t)(nb * nb) + 1;
        p->flops_factor += 2 * nb * nb * nb / 3;
        p->flops_solve += 2 * nb * nb;
    }
    return 0;
}

/* b = P^T b then L^-1 b, with getrf's pivots (1-based) and unit lower L (column-major, ld) */
static void fwd(int n, const double *LU, int ld, const int *piv, double *b)
{
    for (int k = 0; k < n; k++) {
        const int p = piv[k] - 1;

        if (p != k) {
            const double t = b[k];

            b[k] = b[p];
            b[p] = t;
        }
    }
    for (int k = 0; k < n; k++) {
        const double bk = b[k];
        const double *l = LU + (size_t)ld * (size_t)k;

        for (int i = k + 1; i < n; i++)
            b[i] -= l[i] * bk;
    }
}

/* b = U^-1 b, U the upper triangle of LU (column-major, ld) */
static void bwd(int n, const double *LU, int ld, double *b)
{
    for (int k = n - 1; k >= 0; k--) {
        const double *u = LU + (size_t)ld * (size_t)k;

        b[k] /= u[k];
        for (int i = 0; i < k; i++)
            b[i] -= u[i] * b[k];
    }
}

int vd_bblu_factor(const struct vd_bblu *p, const double *A, double *F, int *piv)
{
    const int n = p->n, nb = p->nb;
    const size_t N = (size_t)n;
    double *H = F + p->off[p->ncl];

    for (int b = 0; b < nb; b++)
        for (int a = 0; a < nb; a++)
            H[a + nb * b] = A[(size_t)p->bidx[a] + N * (size_t)p->bidx[b]];
    for (int c = 0; c < p->ncl; c++) {
        const int *I = p->idx + p->ptr[c], nc = p->ptr[c + 1] - p->ptr[c];
        const int *bs = p->bsub + p->bptr[c], nbc = p->bptr[c + 1] - p->bptr[c];
        const size_t NC = (size_t)nc;
        double *blk = F + p->off[c], *Ub = blk + NC * NC, *Lb = Ub + NC * (size_t)nbc;

        /* [A_cc | A_cB] and A_Bc over the cluster's border, packed */
        for (int j = 0; j < nc; j++) {
            const double *a = A + N * (size_t)I[j];

            for (int i = 0; i < nc; i++)
                blk[(size_t)i + NC * (size_t)j] = a[I[i]];
            for (int b = 0; b < nbc; b++)
                Lb[(size_t)b + (size_t)nbc * (size_t)j] = a[p->bidx[bs[b]]];
        }
        for (int b = 0; b < nbc; b++) {
            const double *a = A + N * (size_t)p->bidx[bs[b]];

            for (int i = 0; i < nc; i++)
                Ub[(size_t)i + NC * (size_t)b] = a[I[i]];
        }
        if (vd_lu_factor_rect(nc, nc, blk, nc, piv + p->ptr[c]))
            return 1 + c;
        /* U_cB = L_c^-1 P_c^T A_cB */
        for (int b = 0; b < nbc; b++)
            fwd(nc, blk, nc, piv + p->ptr[c], Ub + NC * (size_t)b);
        /* L_Bc = A_Bc U_c^-1: row by row, x U_c = a forward over the columns */
        for (int j = 0; j < nc; j++) {
            const double *u = blk + NC * (size_t)j;
            double *l = Lb + (size_t)nbc * (size_t)j;

            for (int k = 0; k < j; k++) {
                const double *lk = Lb + (size_t)nbc * (size_t)k;

                for (int a = 0; a < nbc; a++)
                    l[a] -= lk[a] * u[k];
            }
            for (int a = 0; a < nbc; a++)
                l[a] /= u[j];
        }
        /* H -= L_Bc U_cB at the cluster's border positions */
        for (int b = 0; b < nbc; b++)
            for (int j = 0; j < nc; j++) {
                const double w = Ub[(size_t)j + NC * (size_t)b];
                const double *l = Lb + (size_t)nbc * (size_t)j;
                double *h = H + nb * bs[b];

                for (int a = 0; a < nbc; a++)
                    h[bs[a]] -= l[a] * w;
            }
    }
    if (nb && vd_lu_factor(nb, H, piv + (n - nb)))
        return 1 + p->ncl;
    return 0;
}

void vd_bblu_solve(const struct vd_bblu *p, const double *F, const int *piv, double *x, double *w)
{
    const int n = p->n, nb = p->nb;
    double *xb = w, *y = w + nb;

    for (int a = 0; a < nb; a++)
        xb[a] = x[p->bidx[a]];
    /* forward: y_c = L_c^-1 P_c^T b_c (kept in x), b_B -= L_Bc y_c */
    for (int c = 0; c < p->ncl; c++) {
        const int *I = p->idx + p->ptr[c], nc = p->ptr[c + 1] - p->ptr[c];
        const int *bs = p->bsub + p->bptr[c], nbc = p->bptr[c + 1] - p->bptr[c];
        const size_t NC = (size_t)nc;
        const double *blk = F + p->off[c], *Lb = blk + NC * (NC + (size_t)nbc);

        for (int i = 0; i < nc; i++)
            y[i] = x[I[i]];
        fwd(nc, blk, nc, piv + p->ptr[c], y);
        for (int j = 0; j < nc; j++) {
            const double *l = Lb + (size_t)nbc * (size_t)j;

            x[I[j]] = y[j];
            for (int a = 0; a < nbc; a++)
                xb[bs[a]] -= l[a] * y[j];
        }
    }
    if (nb) {
        const double *HB = F + p->off[p->ncl];

        fwd(nb, HB, nb, piv + (n - nb), xb);
        bwd(nb, HB, nb, xb);
    }
    /* backward: x_c = U_c^-1 (y_c - U_cB x_B) */
    for (int c = 0; c < p->ncl; c++) {
        const int *I = p->idx + p->ptr[c], nc = p->ptr[c + 1] - p->ptr[c];
        const int *bs = p->bsub + p->bptr[c], nbc = p->bptr[c + 1] - p->bptr[c];
        const size_t NC = (size_t)nc;
        const double *blk = F + p->off[c], *Ub = blk + NC * NC;

        for (int i = 0; i < nc; i++)
            y[i] = x[I[i]];
        for (int b = 0; b < nbc; b++)
            for (int i = 0; i < nc; i++)
                y[i] -= Ub[(size_t)i + NC * (size_t)b] * xb[bs[b]];
        bwd(nc, blk, nc, y);
        for (int i = 0; i < nc; i++)
            x[I[i]] = y[i];
    }
    for (int a = 0; a < nb; a++)
        x[p->bidx[a]] = xb[a];
}
