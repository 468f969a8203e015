/* core/csnull.c - the null-space form on the structured path, its numeric half: the
 * factorization, the solves and the correction (csnull.h; the selection and the analysis:
 * csnull_select.c). */
#include "csnull_impl.h"

#include <math.h>
#include <string.h>

#include "blocklu.h"

/* ---- the numeric factorization (inlined into vd_csn_factor / solve, which are compiled for
 * AVX2 too: VD_CLONES) ------------------------------------------------------------ */

/* Gu^T = L U in the selection's order, right-looking on the flat maps of the selection (the
 * entries of Gu^T scattered into V = [Lv | Uv | D], the fill zero; at pivot k the column k
 * of L scaled, then each update L(i, k) U(k, j) subtracted where the map says: every entry
 * gets the products of the earlier pivots in their order, as column by column); the pivot
 * ratio into st[0]; 0, 1 (a zero pivot) or 2 (a multiplier beyond lmax) */
static inline __attribute__((always_inline)) int cl_lu(const struct vd_data *d, struct cl *k,
                                                       double lmax)
{
    const int mm = k->m, ng = *k->gn;
    const size_t T = tri(mm);
    double *restrict V = k->Lv, *D = V + 2 * T; /* (D and lk: based on V) */
    const int *restrict um = k->um;
    double mn = INFINITY, mx = 0.0, gr = 0.0;

    memset(V, 0, (size_t)k->lp[mm] * sizeof(double));
    memset(V + T, 0, (size_t)k->ucp[mm] * sizeof(double));
    memset(D, 0, (size_t)mm * sizeof(double));
    for (int g = 0; g < ng; g++)
        V[k->gd[g]] = d->jG[k->gs[g]];
    for (int kk = 0; kk < mm; kk++) {
        const int l0 = k->lp[kk], nl = k->lp[kk + 1] - l0;
        double *lk = V + l0;
        const double p = D[kk];
        double r;

        if (p == 0.0) {
            k->st[0] = 0.0;
            return 1;
        }
        mn = fabs(p) < mn ? fabs(p) : mn;
        mx = fabs(p) > mx ? fabs(p) : mx;
        r = 1.0 / p;
        D[kk] = r; /* the solves multiply by it */
        for (int t = 0; t < nl; t++) {
            const double l = lk[t] * r;

            lk[t] = l;
            gr = fabs(l) > gr ? fabs(l) : gr;
        }
        for (int a = k->urp[kk]; a < k->urp[kk + 1]; a++) {
            const double u = V[T + (size_t)k->ure[a]];

            for (int t = 0; t < nl; t++)
                V[um[t]] -= lk[t] * u;
            um += nl;
        }
    }
    k->st[0] = mm ? mn / mx : 1.0;
    return gr > lmax ? 2 : 0;
}

/* t = Gu^-1 t (m): U^T y = t forward, L^T t = y backward (Gu = U^T L^T) */
static inline __attribute__((always_inline)) void gu_solve(const struct cl *k, double *t)
{
    for (int j = 0; j < k->m; j++) {
        double acc = t[j];

        for (int e = k->ucp[j]; e < k->ucp[j + 1]; e++)
            acc -= k->Uv[e] * t[k->uci[e]];
        t[j] = acc * k->D[j];
    }
    for (int kk = k->m - 1; kk >= 0; kk--) {
        double acc = t[kk];

        for (int e = k->lp[kk]; e < k->lp[kk + 1]; e++)
            acc -= k->Lv[e] * t[k->li[e]];
        t[kk] = acc;
    }
}

/* t = Gu^-T t (m): L y = t forward, U t = y backward (Gu^T = L U) */
static inline __attribute__((always_inline)) void gut_solve(const struct cl *k, double *t)
{
    for (int kk = 0; kk < k->m; kk++) {
        const double tk = t[kk];

        for (int e = k->lp[kk]; e < k->lp[kk + 1]; e++)
            t[k->li[e]] -= k->Lv[e] * tk;
    }
    for (int j = k->m - 1; j >= 0; j--) {
        const double tj = t[j] * k->D[j];

        t[j] = tj;
        for (int e = k->ucp[j]; e < k->ucp[j + 1]; e++)
            t[k->uci[e]] -= k->Uv[e] * tj;
    }
}

/* y += S x (6x6 block, column-major) */
static inline __attribute__((always_inline)) void
gemv6_add(double *restrict y, const double *restrict S, const double *restrict x)
{
    for (int p = 0; p < 6; p++) {
        const double b = x[p];

        for (int i = 0; i < 6; i++)
            y[i] += S[i + 6 * p] * b;
    }
}

/* Y += S X (6x6 blocks, column-major, leading dimensions ldy, ldx), each column as gemv6_add
 * (the same products added in the same order) with the six columns held in registers */
static inline __attribute__((always_inline)) void gemm6_add(double *restrict Y, size_t ldy,
                                                            const double *restrict S,
                                                            const double *restrict X, size_t ldx)
{
    for (int c = 0; c < 6; c++)
        gemv6_add(Y + ldy * (size_t)c, S, X + ldx * (size_t)c);
}

/* y -= S x (6x6 block, column-major) */
static inline __attribute__((always_inline)) void
gemv6_sub(double *restrict y, const double *restrict S, const double *restrict x)
{
    for (int p = 0; p < 6; p++) {
        const double b = x[p];

        for (int i = 0; i < 6; i++)
            y[i] -= S[i + 6 * p] * b;
    }
}

/* ar[a] += sum_c yp[c ni + a] sy[c] (a < ni), each entry the six products summed in c's
 * order (as a dot product of the two 6-vectors), then added; the pointers restrict as
 * parameters (no overlap checks where the loop is inlined) */
static inline __attribute__((always_inline)) void
dot6_add(double *restrict ar, const double *restrict yp, int ni, const double *restrict sy)
{
    const double s0 = sy[0], s1 = sy[1], s2 = sy[2], s3 = sy[3], s4 = sy[4], s5 = sy[5];
    const size_t n = (size_t)ni;

    for (size_t a = 0; a < n; a++)
        ar[a] += yp[a] * s0 + yp[n + a] * s1 + yp[2 * n + a] * s2 + yp[3 * n + a] * s3 +
                 yp[4 * n + a] * s4 + yp[5 * n + a] * s5;
}

/* pr[a] = sum_c yp[c ni + a] sy[c] (a < ni), as dot6_add */
static inline __attribute__((always_inline)) void
dot6_set(double *restrict pr, const double *restrict yp, int ni, const double *restrict sy)
{
    const double s0 = sy[0], s1 = sy[1], s2 = sy[2], s3 = sy[3], s4 = sy[4], s5 = sy[5];
    const size_t n = (size_t)ni;

    for (size_t a = 0; a < n; a++)
        pr[a] = yp[a] * s0 + yp[n + a] * s1 + yp[2 * n + a] * s2 + yp[3 * n + a] * s3 +
                yp[4 * n + a] * s4 + yp[5 * n + a] * s5;
}

/* c0 -= l a0, c1 -= l a1 (n entries; distinct columns: restrict as parameters, no overlap
 * checks where inlined) */
static inline __attribute__((always_inline)) void axpy2_sub(double *restrict c0,
                                                            double *restrict c1,
                                                            const double *restrict l, double a0,
                                                            double a1, int n)
{
    for (int i = 0; i < n; i++) {
        c0[i] -= l[i] * a0;
        c1[i] -= l[i] * a1;
    }
}

/* c0 -= l a0 (n entries) */
static inline __attribute__((always_inline)) void
axpy_sub(double *restrict c0, const double *restrict l, double a0, int n)
{
    for (int i = 0; i < n; i++)
        c0[i] -= l[i] * a0;
}

/* LU with partial pivoting of the leading n x n block of A (leading dimension ld), its row
 * operations applied to the columns n .. ncol too (those then hold L^-1 P B); the diagonal
 * keeps the reciprocal pivots (the back substitutions multiply); 0 or 1. be (n): A's
 * diagonal blocks (cl's cmp: the end of a column's block, -1 the border's, last): a block's
 * pivots searched among its rows only; its rows and columns are zero in the other blocks'
 * columns and rows, so its pivots update its own rows and columns and the border's (the
 * products left out are with zeros) */
static inline __attribute__((always_inline)) int lu_small(double *A, int n, int ncol, int ld,
                                                          int *piv, const int *be)
{
    const size_t L = (size_t)ld;
    int r0 = n; /* the border's first */

    while (r0 > 0 && be[r0 - 1] < 0)
        r0--;
    for (int k = 0; k < n; k++) {
        const int e = be[k] < 0 ? n : be[k]; /* rows and columns k + 1 .. e, then r0 .. n */
        const int rb = be[k] < 0 ? n : r0;
        int p = k;
        double r;

        for (int i = k + 1; i < e; i++)
            if (fabs(A[(size_t)i + L * (size_t)k]) > fabs(A[(size_t)p + L * (size_t)k]))
                p = i;
        piv[k] = p;
        if (A[(size_t)p + L * (size_t)k] == 0.0)
            return 1;
        if (p != k)
            for (int j = 0; j < ncol; j++) {
                const double t = A[(size_t)k + L * (size_t)j];

                A[(size_t)k + L * (size_t)j] = A[(size_t)p + L * (size_t)j];
                A[(size_t)p + L * (size_t)j] = t;
            }
        r = 1.0 / A[(size_t)k * (L + 1)];
        A[(size_t)k * (L + 1)] = r;
        for (int i = k + 1; i < e; i++)
            A[(size_t)i + L * (size_t)k] *= r;
        for (int i = rb; i < n; i++)
            A[(size_t)i + L * (size_t)k] *= r;
        /* the update two columns at a time (each entry as one at a time: one product
         * subtracted per k, in k's order): the block's columns, then the border's and B's */
        {
            const double *restrict lk = A + L * (size_t)k;
            int j = k + 1 == e ? rb : k + 1;

            while (j < ncol) {
                const int j1 = j + 1 == e ? rb : j + 1;

                if (j1 >= ncol)
                    break;
                double *c0 = A + L * (size_t)j, *c1 = A + L * (size_t)j1;
                const double a0 = c0[k], a1 = c1[k];

                axpy2_sub(c0 + k + 1, c1 + k + 1, lk + k + 1, a0, a1, e - k - 1);
                axpy2_sub(c0 + rb, c1 + rb, lk + rb, a0, a1, n - rb);
                j = j1 + 1 == e ? rb : j1 + 1;
            }
            if (j < ncol) {
                double *c0 = A + L * (size_t)j;
                const double a0 = c0[k];

                axpy_sub(c0 + k + 1, lk + k + 1, a0, e - k - 1);
                axpy_sub(c0 + rb, lk + rb, a0, n - rb);
            }
        }
    }
    return 0;
}

/* b = A^-1 b with the factors of lu_small */
static inline __attribute__((always_inline)) void lu_small_solve(const double *A, int n, int ld,
                                                                 const int *piv, double *b)
{
    const size_t L = (size_t)ld;

    /* the interchanges first: lu_small applies each to the whole rows, the earlier columns
     * of L included (as dgetrf) */
    for (int k = 0; k < n; k++) {
        const double t = b[k];

        b[k] = b[piv[k]];
        b[piv[k]] = t;
    }
    for (int k = 0; k < n; k++)
        for (int i = k + 1; i < n; i++)
            b[i] -= A[(size_t)i + L * (size_t)k] * b[k];
    for (int k = n - 1; k >= 0; k--) {
        b[k] *= A[(size_t)k * (L + 1)];
        for (int i = 0; i < k; i++)
            b[i] -= A[(size_t)i + L * (size_t)k] * b[k];
    }
}

/* the wide columns of Y (g of them: k->wc's, then the root's six) in T (m x g, row-major):
 * -Gu^-1 of their columns of G, U^T y = b forward and L^T x = y backward on every row, as
 * gu_solve does per column */
static inline __attribute__((always_inline)) void
wide_solve(const struct vd_data *d, const struct cl *k, double *T, const int g)
{
    const int mm = k->m, nw = *k->nw, f = k->f;
    const size_t N = (size_t)k->n, G = (size_t)g;

    memset(T, 0, G * (size_t)mm * sizeof(double));
    for (int w = 0; w < nw; w++) {
        const int lc = k->lind[k->wc[w]], lb = lc / 6;

        for (int j = 0; j < mm; j++)
            for (int q = 0; q < 2; q++)
                if (k->rside[2 * j + q] == lb)
                    T[G * (size_t)j + (size_t)w] = -gq(d, k, j, q, lc % 6);
    }
    if (k->n0)
        for (int j = 0; j < mm; j++)
            for (int q = 0; q < 2; q++)
                if (k->rside[2 * j + q] < 0)
                    for (int c = 0; c < 6; c++)
                        T[G * (size_t)j + (size_t)(nw + c)] = -gq(d, k, j, q, c);
    /* each row held in registers (acc) over its subtractions */
    for (int j = 0; j < mm; j++) {
        double *tj = T + G * (size_t)j, acc[CSN_WIDE];
        const double rd = k->D[j];

        for (int c = 0; c < g; c++)
            acc[c] = tj[c];
        for (int e = k->ucp[j]; e < k->ucp[j + 1]; e++) {
            const double u = k->Uv[e];
            const double *tk = T + G * (size_t)k->uci[e];

            for (int c = 0; c < g; c++)
                acc[c] -= u * tk[c];
        }
        for (int c = 0; c < g; c++)
            tj[c] = acc[c] * rd;
    }
    for (int kk = mm - 1; kk >= 0; kk--) {
        double *tk = T + G * (size_t)kk, acc[CSN_WIDE];

        for (int c = 0; c < g; c++)
            acc[c] = tk[c];
        for (int e = k->lp[kk]; e < k->lp[kk + 1]; e++) {
            const double l = k->Lv[e];
            const double *ti = T + G * (size_t)k->li[e];

            for (int c = 0; c < g; c++)
                acc[c] -= l * ti[c];
        }
        for (int c = 0; c < g; c++)
            tk[c] = acc[c];
    }
    for (int w = 0; w < nw; w++) {
        const int jy = k->wc[w];
        double *Yc = k->Y + N * (size_t)jy;

        for (int t = k->rp[jy]; t < k->rp[jy + 1]; t++)
            Yc[k->ldep[k->ri[t]]] = T[G * (size_t)k->ri[t] + (size_t)w];
    }
    if (k->n0)
        for (int kk = 0; kk < mm; kk++) {
            double *y = k->Y + (size_t)k->ldep[kk] + N * (size_t)f;

            for (int c = 0; c < 6; c++)
                y[N * (size_t)c] = T[G * (size_t)kk + (size_t)(nw + c)];
        }
}

/* Y, S Y, the cluster's reduced block, its LU, W and the update of the root block H */
static inline __attribute__((always_inline)) int
cl_reduce(const struct vd_model *m, struct vd_data *d, struct cl *k, double *H)
{
    const struct vd_csn *s = m->csn;
    const int n = k->n, f = k->f, ny = k->ny;
    const size_t N = (size_t)n, NY = (size_t)ny;
    double *T = d->csx + s->gt_off; /* (m x g) row-major: the wide columns at once */
    double *t = d->csx + s->tz_off; /* (m) zero but inside a reach */

    /* the independent coordinates' columns of Y: -Gu^-1 of their columns of G, each a sparse
     * solve over its reach only (U^T y = b forward, L^T x = y backward, Gu = U^T L^T; the
     * rows outside the reach stay zero) */
    for (int jy = 0, w = 0; jy < f; jy++) {
        if (w < *k->nw && k->wc[w] == jy) {
            w++; /* (below, with the root's columns) */
            continue;
        }
        const int lc = k->lind[jy], e0 = s->brow_ptr[(k->body - s->body) + lc / 6];
        const int e1 = s->brow_ptr[(k->body - s->body) + lc / 6 + 1];
        const int *r = k->ri + k->rp[jy], nr = k->rp[jy + 1] - k->rp[jy];
        double *Yc = k->Y + N * (size_t)jy;

        for (int e = e0; e < e1; e++)
            t[s->brow[2 * e]] = -gq(d, k, s->brow[2 * e], s->brow[2 * e + 1], lc % 6);
        for (int q = 0; q < nr; q++) {
            const int j = r[q];
            double acc = t[j];

            for (int e = k->ucp[j]; e < k->ucp[j + 1]; e++)
                acc -= k->Uv[e] * t[k->uci[e]];
            t[j] = acc * k->D[j];
        }
        for (int q = nr - 1; q >= 0; q--) {
            const int kk = r[q];
            double acc = t[kk];

            for (int e = k->lp[kk]; e < k->lp[kk + 1]; e++)
                acc -= k->Lv[e] * t[k->li[e]];
            t[kk] = acc;
        }
        for (int q = 0; q < nr; q++) {
            Yc[k->ldep[r[q]]] = t[r[q]];
            t[r[q]] = 0.0;
        }
    }
    /* the wide columns and the root's (T_c), dense over all rows, together (rows of T
     * contiguous); each entry gets the operations of the sparse solve above (the rows
     * outside a column's reach stay zero, and only its reach is written into Y) */
    if (k->n0 || *k->nw) {
        const int g = *k->nw + k->n0;

        switch (g) { /* the lane count a constant (vector loops without remainders) */
        case 6:
            wide_solve(d, k, T, 6);
            break;
        case 7:
            wide_solve(d, k, T, 7);
            break;
        case 8:
            wide_solve(d, k, T, 8);
            break;
        case 9:
            wide_solve(d, k, T, 9);
            break;
        default:
            wide_solve(d, k, T, g);
        }
    }
    /* SY = S_cc Y + [0 S_c0], R0 = S_0c Y, over the bodies of each column (the root's six
     * columns together below) */
    for (int jy = 0; jy < (k->n0 == 6 ? f : ny); jy++) {
        double *SYc = k->SY + N * (size_t)jy, *R0c = k->R0 + 6 * (size_t)jy;
        const double *Yc = k->Y + N * (size_t)jy;

        for (int e = k->syp[jy]; e < k->syp[jy + 1]; e++)
            memset(SYc + 6 * k->syi[e], 0, 6 * sizeof(double));
        memset(R0c, 0, 6 * sizeof(double));
        if (unit_col(k, jy)) {
            /* Y's column is the unit vector e_c of coordinate c of body lb: S Y is column c
             * of S's blocks in the body's column (what the products give, less the terms
             * with the zeros) */
            const int lb = k->ypi[k->ypp[jy]], bb = k->body[lb], c = k->lind[jy] % 6;

            for (int q = s->scol_ptr[bb]; q < s->scol_ptr[bb + 1]; q++) {
                const int a = s->scol[2 * q];
                const double *S = d->F + 36 * (size_t)s->scol[2 * q + 1] + 6 * c;
                double *y = a == s->root ? R0c : SYc + 6 * s->loc[a];

                for (int i = 0; i < 6; i++)
                    y[i] += S[i];
            }
            continue;
        }
        for (int e = k->ypp[jy]; e < k->ypp[jy + 1]; e++) {
            const int lb = k->ypi[e], bb = k->body[lb];

            for (int q = s->scol_ptr[bb]; q < s->scol_ptr[bb + 1]; q++) {
                const int a = s->scol[2 * q];
                const double *S = d->F + 36 * (size_t)s->scol[2 * q + 1];

                gemv6_add(a == s->root ? R0c : SYc + 6 * s->loc[a], S, Yc + 6 * lb);
            }
        }
        if (jy >= f)
            for (int q = s->scol_ptr[s->root]; q < s->scol_ptr[s->root + 1]; q++) {
                const int a = s->scol[2 * q];
                const double *S = d->F + 36 * (size_t)s->scol[2 * q + 1];

                if (a != s->root && s->cl[a] == k->c)
                    for (int i = 0; i < 6; i++)
                        SYc[6 * s->loc[a] + i] += S[i + 6 * (jy - f)];
            }
    }
    if (k->n0 == 6) {
        /* the root's six columns share one pattern (the rows touching the root mark their
         * reach, whatever the column): each S block meets the six at once, every entry
         * getting the same products in the same order as column by column */
        double *SY0 = k->SY + N * (size_t)f, *R00 = k->R0 + 6 * (size_t)f;
        const double *Y0 = k->Y + N * (size_t)f;

        for (int c = 0; c < 6; c++) {
            for (int e = k->syp[f + c]; e < k->syp[f + c + 1]; e++)
                memset(SY0 + N * (size_t)c + 6 * k->syi[e], 0, 6 * sizeof(double));
            memset(R00 + 6 * c, 0, 6 * sizeof(double));
        }
        for (int e = k->ypp[f]; e < k->ypp[f + 1]; e++) {
            const int lb = k->ypi[e], bb = k->body[lb];

            for (int q = s->scol_ptr[bb]; q < s->scol_ptr[bb + 1]; q++) {
                const int a = s->scol[2 * q];
                const double *S = d->F + 36 * (size_t)s->scol[2 * q + 1];

                if (a == s->root)
                    gemm6_add(R00, 6, S, Y0 + 6 * lb, N);
                else
                    gemm6_add(SY0 + 6 * s->loc[a], N, S, Y0 + 6 * lb, N);
            }
        }
        for (int q = s->scol_ptr[s->root]; q < s->scol_ptr[s->root + 1]; q++) {
            const int a = s->scol[2 * q];
            const double *S = d->F + 36 * (size_t)s->scol[2 * q + 1];

            if (a != s->root && s->cl[a] == k->c)
                for (int c = 0; c < 6; c++)
                    for (int i = 0; i < 6; i++)
                        SY0[N * (size_t)c + 6 * (size_t)s->loc[a] + (size_t)i] += S[i + 6 * c];
        }
    }
    /* Ar = Y^T SY + [0; R0], body by body over the columns nonzero there */
    for (int j = 0; j < ny; j++) {
        double *restrict arj = k->Ar + NY * (size_t)j;
        const double *restrict r0 = k->R0 + 6 * (size_t)j;

        for (int i = 0; i < f; i++)
            arj[i] = 0.0;
        for (int i = 0; i < k->n0; i++)
            arj[f + i] = r0[i];
    }
    /* per body: its rows of Y's columns there packed by component (contiguous over the
     * columns), so each column of SY meets all of them in one vector loop; every entry is
     * the same six products summed in the same order as a dot product of the two 6-vectors */
    for (int lb = 0; lb < k->nb; lb++) {
        const int i0 = k->ibp[lb], ni = k->ibp[lb + 1] - i0;
        const int *ii = k->ibi + i0;
        double *restrict yp = d->csx + s->yp_off, *restrict pr = yp + 6 * (size_t)ni;

        if (k->idb[lb]) {
            /* Y's rows there: the unit vectors of the body's own six columns (the only ones
             * nonzero there, ni = 6), so their entries are S Y's six rows there */
            for (int ej = k->jbp[lb]; ej < k->jbp[lb + 1]; ej++) {
                const size_t j = (size_t)k->jbi[ej];
                const double *restrict sy = k->SY + N * j + 6 * (size_t)lb;
                double *restrict arj = k->Ar + NY * j + (k->idb[lb] - 1);

                for (int a = 0; a < 6; a++)
                    arj[a] += sy[a];
            }
            continue;
        }
        for (int a = 0; a < ni; a++) {
            const double *y = k->Y + N * (size_t)ii[a] + 6 * (size_t)lb;

            for (int c = 0; c < 6; c++)
                yp[(size_t)c * (size_t)ni + (size_t)a] = y[c];
        }
        for (int ej = k->jbp[lb]; ej < k->jbp[lb + 1]; ej++) {
            const size_t j = (size_t)k->jbi[ej];
            const double *sy = k->SY + N * j + 6 * (size_t)lb;
            double *arj = k->Ar + NY * j;

            if (ni && ii[ni - 1] - ii[0] == ni - 1) {
                /* the columns consecutive (the wide ones and the root's, mostly): added in
                 * place */
                dot6_add(arj + ii[0], yp, ni, sy);
                continue;
            }
            dot6_set(pr, yp, ni, sy);
            for (int a = 0; a < ni; a++)
                arj[ii[a]] += pr[a];
        }
    }
    /* the cluster block: LU; W = A_ww^-1 A_w0; H += A_00 - A_0w W */
    if (f && lu_small(k->Ar, f, ny, ny, k->piv, k->cmp))
        return 1;
    /* W = U^-1 (L^-1 P A_w0), the forward part done by lu_small: the root's six columns at
     * once, packed row by row (each entry gets the same operations in the same order) */
    if (k->n0 == 6) {
        double *restrict wt = d->csx + s->yp_off; /* (f x 6) row-major */

        for (int q = 0; q < f; q++)
            for (int c = 0; c < 6; c++)
                wt[6 * (size_t)q + (size_t)c] = k->Ar[(size_t)q + NY * (size_t)(f + c)];
        for (int i = f - 1; i >= 0; i--) {
            /* row i held in registers over its subtractions (q from f - 1 down, as the
             * column-wise form gives them), then scaled */
            double acc[6];

            for (int c = 0; c < 6; c++)
                acc[c] = wt[6 * (size_t)i + (size_t)c];
            for (int q = f - 1; q > i; q--) {
                const double u = k->Ar[(size_t)i + NY * (size_t)q];
                const double *restrict wq = wt + 6 * (size_t)q;

                for (int c = 0; c < 6; c++)
                    acc[c] -= u * wq[c];
            }
            for (int c = 0; c < 6; c++)
                wt[6 * (size_t)i + (size_t)c] = acc[c] * k->Ar[(size_t)i * (NY + 1)];
        }
        for (int q = 0; q < f; q++)
            for (int c = 0; c < 6; c++)
                k->Ar[(size_t)q + NY * (size_t)(f + c)] = wt[6 * (size_t)q + (size_t)c];
    } else {
        for (int c = 0; c < k->n0; c++) {
            double *w = k->Ar + NY * (size_t)(f + c);

            for (int q = f - 1; q >= 0; q--) {
                w[q] *= k->Ar[(size_t)q * (NY + 1)];
                for (int i = 0; i < q; i++)
                    w[i] -= k->Ar[(size_t)i + NY * (size_t)q] * w[q];
            }
        }
    }
    if (k->n0 == 6) {
        /* the 36 entries side by side over q (each the same subtractions in q's order): A_0w's
         * column q (contiguous) times W's row q (packed row by row above) */
        const double *restrict wt = d->csx + s->yp_off;
        double acc[36];

        for (int b = 0; b < 6; b++)
            for (int a = 0; a < 6; a++)
                acc[a + 6 * b] = k->Ar[(size_t)(f + a) + NY * (size_t)(f + b)];
        for (int q = 0; q < f; q++) {
            const double *restrict l = k->Ar + (size_t)f + NY * (size_t)q;
            const double *restrict wq = wt + 6 * (size_t)q;

            for (int b = 0; b < 6; b++)
                for (int a = 0; a < 6; a++)
                    acc[a + 6 * b] -= l[a] * wq[b];
        }
        for (int i = 0; i < 36; i++)
            H[i] += acc[i];
        return 0;
    }
    for (int b = 0; b < k->n0; b++)
        for (int a = 0; a < k->n0; a++) {
            double acc = k->Ar[(size_t)(f + a) + NY * (size_t)(f + b)];

            for (int q = 0; q < f; q++)
                acc -= k->Ar[(size_t)(f + a) + NY * (size_t)q] *
                       k->Ar[(size_t)q + NY * (size_t)(f + b)];
            H[a + 6 * b] += acc;
        }
    return 0;
}

VD_CLONES int vd_csn_factor(const struct vd_model *m, struct vd_data *d)
{
    const struct vd_csn *s = m->csn;
    const bool all = !(d->gu_ratio_sel > 0.0);
    const double lmax = 1.0 / CSN_TAU / m->opt.reselect;
    double *H = d->csx + s->h_off, rmin = INFINITY, smin = INFINITY;
    int *hpiv = d->csi + s->ni - 6;

    if (s->root >= 0)
        memcpy(H, d->F + 36 * (size_t)m->blk_slot[m->blk_diag[s->root]], 36 * sizeof(double));
    for (int c = 0; c < s->ncl; c++) {
        struct cl k;
        int rc;

        vd_csn_cl_get(m, d, c, &k);
        if (all && vd_csn_select(m, d, &k))
            return 1;
        rc = cl_lu(d, &k, lmax);
        if (!all && (rc || k.st[0] < m->opt.reselect * k.st[1])) {
            /* the partition degraded: select again (counted) and factor with the new one */
            if (vd_csn_select(m, d, &k))
                return 1;
            rc = cl_lu(d, &k, INFINITY);
            k.st[1] = k.st[0];
        } else if (all) {
            k.st[1] = k.st[0];
        }
        if (rc == 1)
            return 1;
        rmin = fmin(rmin, k.st[0]);
        smin = fmin(smin, k.st[1]);
        if (cl_reduce(m, d, &k, H))
            return 1;
    }
    d->gu_ratio = s->ncl ? rmin : 1.0;
    d->gu_ratio_sel = s->ncl ? smin : 1.0;
    if (s->root >= 0) {
        double *rd = H + 36;
        int piv[6];

        if (vdu_lu6(H, piv, rd))
            return 1;
        for (int i = 0; i < 6; i++)
            hpiv[i] = piv[i];
    }
    return 0;
}

/* ---- solve ------------------------------------------------------------------------------ */

/* y = x - S a over all blocks (S in d->F); with ap, a is a particular solution (zero but on
 * the dependent coordinates), and the blocks of the bodies without any are skipped (they
 * would subtract zeros) */
static inline __attribute__((always_inline)) void s_residual(const struct vd_model *m,
                                                             const struct vd_data *d,
                                                             const double *x, const double *a,
                                                             double *y, bool ap)
{
    const int *dep = d->csi + m->csn->dep_off;

    memcpy(y, x, (size_t)m->nq * sizeof(double));
    for (int i = 0; i < m->nbody; i++)
        for (int e = m->blk_rowptr[i]; e < m->blk_rowptr[i + 1]; e++) {
            const int b = m->blk_col[e];

            if (!ap || (b != m->csn->root && dep[b]))
                gemv6_sub(y + 6 * i, d->F + 36 * (size_t)m->blk_slot[e], a + 6 * b);
        }
}

/* a_p: the dependent coordinates of each cluster from Gu a_u = c, the rest zero */
static inline __attribute__((always_inline)) void
particular(const struct vd_model *m, struct vd_data *d, const double *c, double *ap)
{
    const struct vd_csn *s = m->csn;
    double *t = d->csx + s->tv_off;

    memset(ap, 0, (size_t)m->nq * sizeof(double));
    for (int cc = 0; cc < s->ncl; cc++) {
        struct cl k;

        vd_csn_cl_get(m, d, cc, &k);
        for (int j = 0; j < k.m; j++)
            t[j] = c[k.row[j]];
        gu_solve(&k, t);
        for (int kk = 0; kk < k.m; kk++)
            ap[6 * k.body[k.ldep[kk] / 6] + k.ldep[kk] % 6] = t[kk];
    }
}

VD_CLONES void vd_csn_solve(const struct vd_model *m, struct vd_data *d, double *x, double *c)
{
    const struct vd_csn *s = m->csn;
    const int n0 = s->n0;
    double *ap = d->kx, *q = d->kw, *t = d->csx + s->tv_off, b0[6] = {0, 0, 0, 0, 0, 0};

    particular(m, d, c, ap);
    s_residual(m, d, x, ap, q, true);
    if (s->root >= 0)
        memcpy(b0, q + 6 * s->root, sizeof(b0));
    /* the reduced right-hand sides Z^T q; the clusters eliminated into the root's */
    for (int cc = 0; cc < s->ncl; cc++) {
        struct cl k;

        vd_csn_cl_get(m, d, cc, &k);
        for (int j = 0; j < (n0 == 6 ? k.f : k.ny); j++) {
            const double *Yc = k.Y + (size_t)k.n * (size_t)j;
            double acc = 0.0;

            if (unit_col(&k, j)) {
                /* a unit vector: its coordinate's entry of q (0 + the one nonzero product) */
                k.zw[j] = acc + q[6 * k.body[k.lind[j] / 6] + k.lind[j] % 6];
                continue;
            }
            for (int e = k.ypp[j]; e < k.ypp[j + 1]; e++) {
                const int lb = k.ypi[e];
                const double *qb = q + 6 * k.body[lb];

                for (int i = 0; i < 6; i++)
                    acc += Yc[6 * lb + i] * qb[i];
            }
            if (j < k.f)
                k.zw[j] = acc;
            else
                b0[j - k.f] += acc;
        }
        if (n0 == 6) {
            /* the root's six columns (one pattern) side by side: six independent sums, each
             * over the same products in the same order */
            const double *Y0 = k.Y + (size_t)k.n * (size_t)k.f;
            double acc[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};

            for (int e = k.ypp[k.f]; e < k.ypp[k.f + 1]; e++) {
                const int lb = k.ypi[e];
                const double *qb = q + 6 * k.body[lb];

                for (int i = 0; i < 6; i++)
                    for (int h = 0; h < 6; h++)
                        acc[h] += Y0[(size_t)k.n * (size_t)h + (size_t)(6 * lb + i)] * qb[i];
            }
            for (int h = 0; h < 6; h++)
                b0[h] += acc[h];
        }
        if (k.f)
            lu_small_solve(k.Ar, k.f, k.ny, k.piv, k.zw);
        for (int j = 0; j < k.f; j++) /* (each b0[a] over j in order, the six side by side) */
            for (int a = 0; a < n0; a++)
                b0[a] -= k.Ar[(size_t)(k.f + a) + (size_t)k.ny * (size_t)j] * k.zw[j];
    }
    if (s->root >= 0) {
        const double *H = d->csx + s->h_off;
        const int *hp = d->csi + s->ni - 6;

        vdu_lu6_solve(H, hp, H + 36, b0, 1);
    }
    /* back: w_c = zw - W v_0; a = a_p + Y [w_c; v_0], a_0 = v_0 */
    if (s->root >= 0)
        memcpy(ap + 6 * s->root, b0, sizeof(b0));
    for (int cc = 0; cc < s->ncl; cc++) {
        struct cl k;

        vd_csn_cl_get(m, d, cc, &k);
        for (int j = 0; j < k.f; j++)
            for (int a = 0; a < n0; a++)
                k.zw[j] -= k.Ar[(size_t)j + (size_t)k.ny * (size_t)(k.f + a)] * b0[a];
        for (int j = 0; j < (n0 == 6 ? k.f : k.ny); j++) {
            const double *Yc = k.Y + (size_t)k.n * (size_t)j, z = j < k.f ? k.zw[j] : b0[j - k.f];

            if (unit_col(&k, j)) {
                ap[6 * k.body[k.lind[j] / 6] + k.lind[j] % 6] += z; /* (the rest adds zeros) */
                continue;
            }

            for (int e = k.ypp[j]; e < k.ypp[j + 1]; e++) {
                const int lb = k.ypi[e];
                double *a = ap + 6 * k.body[lb];

                for (int i = 0; i < 6; i++)
                    a[i] += Yc[6 * lb + i] * z;
            }
        }
        if (n0 == 6)
            /* the root's six columns last, as above: each entry of a gets their six products
             * in the columns' order, held in a register */
            for (int e = k.ypp[k.f]; e < k.ypp[k.f + 1]; e++) {
                const int lb = k.ypi[e];
                const double *Y0 = k.Y + (size_t)k.n * (size_t)k.f + 6 * (size_t)lb;
                double *a = ap + 6 * k.body[lb];

                for (int i = 0; i < 6; i++) {
                    double v = a[i];

                    for (int h = 0; h < 6; h++)
                        v += Y0[(size_t)k.n * (size_t)h + (size_t)i] * b0[h];
                    a[i] = v;
                }
            }
    }
    /* the multipliers: Gu^T l_c = (x - S a)_u per cluster (unless nobody reads them) */
    if (d->lam_skip) {
        memcpy(x, ap, (size_t)m->nq * sizeof(double));
        return;
    }
    s_residual(m, d, x, ap, q, false);
    for (int cc = 0; cc < s->ncl; cc++) {
        struct cl k;

        vd_csn_cl_get(m, d, cc, &k);
        for (int kk = 0; kk < k.m; kk++)
            t[kk] = q[6 * k.body[k.ldep[kk] / 6] + k.ldep[kk] % 6];
        gut_solve(&k, t);
        for (int j = 0; j < k.m; j++)
            c[k.row[j]] = t[j];
    }
    memcpy(x, ap, (size_t)m->nq * sizeof(double));
}

VD_CLONES void vd_csn_correct(const struct vd_model *m, struct vd_data *d, const double *c,
                              double *ds)
{
    particular(m, d, c, ds);
}

void vd_csn_flops(const struct vd_model *m, const struct vd_data *d, double *fac, double *sol)
{
    const struct vd_csn *s = m->csn;

    const int *dep = d->csi + s->dep_off;

    /* the two products with S (the first only over the columns of bodies with dependent
     * coordinates, s_residual), the root's solve */
    *fac = 0.0;
    *sol = (double)m->nblk * 72.0 + 72.0;
    for (int i = 0; i < m->nbody; i++)
        for (int e = m->blk_rowptr[i]; e < m->blk_rowptr[i + 1]; e++)
            if (m->blk_col[e] != s->root && dep[m->blk_col[e]])
                *sol += 72.0;
    for (int c = 0; c < s->ncl; c++) {
        struct cl k;

        vd_csn_cl_get(m, d, c, &k);
        *fac += k.st[2];
        *sol += k.st[3];
    }
    if (s->root >= 0)
        *fac += 527.0;
}
