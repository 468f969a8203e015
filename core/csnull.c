/* core/csnull.c - the null-space form on the structured path: csnull.h. */
#include "csnull.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocklu.h"

/* threshold of the selection's row pivoting: a pivot within this factor of the column's
 * largest entry (so |l_ik| <= 1 / CSN_TAU), the earliest body's preferred (csnull.h) */
#define CSN_TAU 0.5
/* at most this many columns of Y (the root's six included) in the wide solve (cl_reduce) */
#define CSN_WIDE 12

/* ---- the numeric layout of one cluster -------------------------------------------------- */

struct cl {
    int c; /* the cluster */
    int nb, n, m, f, ny, n0;
    const int *body;  /* (nb) global bodies */
    const int *row;   /* (m) global rows */
    const int *rside; /* (2 m) local body of each side, -1: root */
    /* Gu^T = L U (rows: the dependent coordinates in pivot order, columns: the cluster's
     * rows), packed along the patterns: */
    double *Lv;     /* (m (m - 1) / 2) L(li[t], k) at t in [lp[k], lp[k + 1]) */
    double *Uv;     /* (m (m - 1) / 2) U(uci[e], j) at e in [ucp[j], ucp[j + 1]) */
    double *D;      /* (m) 1 / U(k, k) */
    double *Y;      /* (n ny) [R T] over the cluster's coordinates */
    double *SY;     /* (n ny) S_cc Y + [0 S_c0] */
    double *R0;     /* (6 ny) S_0c Y */
    double *Ar;     /* (ny ny) Y^T SY + [0; R0]: LU of the leading f x f block, W = A_ww^-1
                       A_w0 in its upper right block */
    double *zw;     /* (f) the reduced unknowns of the cluster */
    double *st;     /* (4) ratio now, ratio at the selection, flops factor, flops solve */
    int *ldep;      /* (m) local coordinate of each dependent one, pivot order */
    int *lind;      /* (f) local coordinate of each independent one */
    int *lmap;      /* (n) local coordinate -> dependent index k, or -1 - independent index */
    int *lp, *li;   /* (m + 1), (m (m - 1) / 2) L's column k: rows i > k */
    int *ucp, *uci; /* U's column j: rows k < j */
    int *ypp, *ypi; /* (ny + 1), (ny nb) local bodies where column j of Y is nonzero */
    int *syp, *syi; /* (ny + 1), (ny nb) the same of S Y */
    int *ibp, *ibi; /* (nb + 1), (nb ny) by local body: the columns of Y nonzero there */
    int *jbp, *jbi; /* (nb + 1), (nb ny) the same of S Y */
    int *piv;       /* (f) pivots of A_ww */
    int *rp, *ri;   /* (f + 1), (f m) the rows of Gu^-1's reach from each independent
                       coordinate's column of G, ascending */
    int *idb;       /* (nb) 1 + the first of a body's six columns if its coordinates are all
                       independent (no Gu pivot there: Y's rows at it are the unit vectors
                       of its own six columns, consecutive), else 0 */
    /* the flat maps of the LU (Lv, Uv, D one array V: L at 0, U at T = tri(m), the pivots
     * at 2 T): */
    int *gn;        /* (1) entries of Gu */
    int *gs, *gd;   /* (12 m) each entry's index in d->jG and in V */
    int *urp, *ure; /* (m + 1), (tri(m)) U's row k: its entries e (in Uv) */
    int *nw, *wc;   /* (1), (f) the independent coordinates' columns of Y solved with the
                       root's (wide: a reach of at least half the rows), CSN_WIDE at most */
    int *cmp;       /* (f) A_ww's diagonal block of each independent coordinate: the
                       components of the bodies without dependent coordinates (idb) coupled
                       in A_ww's pattern, -1 the border (the others, last); all -1 if fewer
                       than two components or the border not last */
    int *um;        /* (sum of squares < m) by k, by U's row k's entry, by L's column k's
                       row: the entry of V the update L(i, k) U(k, j) goes to */
};

static size_t tri(int m)
{
    return m > 1 ? (size_t)m * (size_t)(m - 1) / 2 : 0;
}

/* sizes of cluster c's numeric part in doubles and ints */
static void cl_sizes(int nb, int m, int n0, size_t *nx, size_t *ni)
{
    const size_t n = 6 * (size_t)nb, M = (size_t)m, f = n - M, ny = f + (size_t)n0;

    *nx = 2 * tri(m) + M + 2 * n * ny + 6 * ny + ny * ny + f + 4;
    *ni = M + f + n + 2 * (M + 1) + 2 * tri(m) + 2 * (ny + 1) + 2 * (size_t)(nb + 1) +
          4 * ny * (size_t)nb + f + (f + 1) + f * M + (size_t)nb;
    /* the LU's flat maps: at most (m - 1 - k)^2 updates at pivot k */
    *ni += 1 + f + f;
    *ni += 1 + 24 * M + (M + 1) + tri(m) + (M ? (M - 1) * M * (2 * M - 1) / 6 : 0);
}

static void cl_get(const struct vd_model *m, const struct vd_data *d, int c, struct cl *k)
{
    const struct vd_csn *s = m->csn;
    double *x = d->csx + s->xoff[c];
    int *ip = d->csi + s->ioff[c];
    const size_t T = tri(s->mr[c]);

    k->c = c;
    k->nb = s->cl_ptr[c + 1] - s->cl_ptr[c];
    k->n = s->n[c];
    k->m = s->mr[c];
    k->f = s->f[c];
    k->n0 = s->n0;
    k->ny = k->f + s->n0;
    k->body = s->body + s->cl_ptr[c];
    k->row = s->row + s->row_ptr[c];
    k->rside = s->rside + 2 * s->row_ptr[c];
    k->Lv = x;
    x += T;
    k->Uv = x;
    x += T;
    k->D = x;
    x += (size_t)k->m;
    k->Y = x;
    x += (size_t)k->n * (size_t)k->ny;
    k->SY = x;
    x += (size_t)k->n * (size_t)k->ny;
    k->R0 = x;
    x += 6 * (size_t)k->ny;
    k->Ar = x;
    x += (size_t)k->ny * (size_t)k->ny;
    k->zw = x;
    x += (size_t)k->f;
    k->st = x;
    k->ldep = ip;
    ip += k->m;
    k->lind = ip;
    ip += k->f;
    k->lmap = ip;
    ip += k->n;
    k->lp = ip;
    ip += k->m + 1;
    k->li = ip;
    ip += T;
    k->ucp = ip;
    ip += k->m + 1;
    k->uci = ip;
    ip += T;
    k->ypp = ip;
    ip += k->ny + 1;
    k->ypi = ip;
    ip += (size_t)k->ny * (size_t)k->nb;
    k->syp = ip;
    ip += k->ny + 1;
    k->syi = ip;
    ip += (size_t)k->ny * (size_t)k->nb;
    k->ibp = ip;
    ip += k->nb + 1;
    k->ibi = ip;
    ip += (size_t)k->ny * (size_t)k->nb;
    k->jbp = ip;
    ip += k->nb + 1;
    k->jbi = ip;
    ip += (size_t)k->ny * (size_t)k->nb;
    k->piv = ip;
    ip += k->f;
    k->rp = ip;
    ip += k->f + 1;
    k->ri = ip;
    ip += (size_t)k->f * (size_t)k->m;
    k->idb = ip;
    ip += k->nb;
    k->gn = ip;
    ip += 1;
    k->gs = ip;
    ip += 12 * (size_t)k->m;
    k->gd = ip;
    ip += 12 * (size_t)k->m;
    k->urp = ip;
    ip += k->m + 1;
    k->ure = ip;
    ip += T;
    k->nw = ip;
    ip += 1;
    k->wc = ip;
    ip += k->f;
    k->cmp = ip;
    ip += k->f;
    k->um = ip;
}

/* ---- init ------------------------------------------------------------------------------ */

void vd_csn_free(struct vd_csn *s)
{
    if (!s)
        return;
    free(s->cl_ptr);
    free(s->body);
    free(s->cl);
    free(s->loc);
    free(s->row_ptr);
    free(s->row);
    free(s->rside);
    free(s->brow_ptr);
    free(s->brow);
    free(s->scol_ptr);
    free(s->scol);
    free(s->n);
    free(s->mr);
    free(s->f);
    free(s->xoff);
    free(s->ioff);
    free(s);
}

int vd_csn_analyze(struct vd_model *m, char *err, size_t errlen)
{
    const struct vd_blu *b = &m->blu;
    const int nb = m->nbody, ncl = b->ncluster;
    struct vd_csn *s;
    int nr = 0, nbd = 0, *key = NULL;

    vd_csn_free(m->csn);
    m->csn = NULL;
    if (b->cluster_ptr[ncl] + (b->root >= 0) != b->nb) {
        snprintf(err, errlen, "nullspace form, structured: joints between the root and the ground");
        return -EINVAL;
    }
    s = calloc(1, sizeof(*s));
    if (!s)
        goto out_oom;
    m->csn = s;
    s->ncl = ncl;
    s->root = b->root;
    s->n0 = b->root >= 0 ? 6 : 0;
    s->cl_ptr = calloc((size_t)ncl + 1, sizeof(int));
    s->row_ptr = calloc((size_t)ncl + 1, sizeof(int));
    s->body = calloc((size_t)nb + 1, sizeof(int));
    s->cl = calloc((size_t)nb + 1, sizeof(int));
    s->loc = calloc((size_t)nb + 1, sizeof(int));
    s->row = calloc((size_t)m->nc + 1, sizeof(int));
    s->rside = calloc(2 * (size_t)m->nc + 1, sizeof(int));
    s->brow_ptr = calloc((size_t)nb + 1, sizeof(int));
    s->brow = calloc(4 * (size_t)m->nc + 1, sizeof(int));
    s->scol_ptr = calloc((size_t)nb + 1, sizeof(int));
    s->scol = calloc(2 * (size_t)m->nblk + 1, sizeof(int));
    s->n = calloc((size_t)ncl + 1, sizeof(int));
    s->mr = calloc((size_t)ncl + 1, sizeof(int));
    s->f = calloc((size_t)ncl + 1, sizeof(int));
    s->xoff = calloc((size_t)ncl + 1, sizeof(size_t));
    s->ioff = calloc((size_t)ncl + 1, sizeof(size_t));
    key = calloc((size_t)m->nc + 1, sizeof(int));
    if (!s->cl_ptr || !s->row_ptr || !s->body || !s->cl || !s->loc || !s->row || !s->rside ||
        !s->brow_ptr || !s->brow || !s->scol_ptr || !s->scol || !s->n || !s->mr || !s->f ||
        !s->xoff || !s->ioff || !key)
        goto out_oom;
    for (int i = 0; i < nb; i++)
        s->cl[i] = s->loc[i] = -1;
    /* the clusters' bodies (elimination order) and rows */
    for (int c = 0; c < ncl; c++) {
        const int r0 = nr;

        s->cl_ptr[c] = nbd;
        s->row_ptr[c] = nr;
        for (int p = b->cluster_ptr[c]; p < b->cluster_ptr[c + 1]; p++) {
            const int node = b->perm[p];

            if (node < nb) {
                s->cl[node] = c;
                s->loc[node] = nbd - s->cl_ptr[c];
                s->body[nbd++] = node;
            } else {
                for (int i = 0; i < 6 && m->jnode_row[6 * (node - nb) + i] >= 0; i++)
                    s->row[nr++] = m->jnode_row[6 * (node - nb) + i];
            }
        }
        s->n[c] = 6 * (nbd - s->cl_ptr[c]);
        s->mr[c] = nr - r0;
        s->f[c] = s->n[c] - s->mr[c];
        if (s->f[c] < 0) {
            snprintf(err, errlen,
                     "nullspace form, structured: cluster %d has %d rows on %d "
                     "coordinates",
                     c, s->mr[c], s->n[c]);
            goto out_inval;
        }
    }
    s->cl_ptr[ncl] = nbd;
    s->row_ptr[ncl] = nr;
    if (nr != m->nc || nbd != nb - (b->root >= 0)) {
        snprintf(err, errlen,
                 "nullspace form, structured: %d of %d rows, %d of %d bodies in the "
                 "clusters",
                 nr, m->nc, nbd, nb - (b->root >= 0));
        goto out_inval;
    }
    /* leaf-first: each cluster's rows by the first of their bodies (stable) */
    for (int c = 0; c < ncl; c++) {
        for (int j = s->row_ptr[c]; j < s->row_ptr[c + 1]; j++) {
            const int r = s->row[j];
            int k = nb;

            for (int q = 0; q < 2; q++) {
                const int bb = m->jrow_body[2 * r + q];

                if (bb != VD_GROUND && s->cl[bb] == c && s->loc[bb] < k)
                    k = s->loc[bb];
            }
            key[j] = k;
        }
        for (int j = s->row_ptr[c] + 1; j < s->row_ptr[c + 1]; j++)
            for (int i = j; i > s->row_ptr[c] && key[i - 1] > key[i]; i--) {
                const int tk = key[i], tr = s->row[i];

                key[i] = key[i - 1];
                s->row[i] = s->row[i - 1];
                key[i - 1] = tk;
                s->row[i - 1] = tr;
            }
    }
    /* sides, and the rows of each body */
    for (int j = 0; j < m->nc; j++) {
        const int r = s->row[j];

        for (int q = 0; q < 2; q++) {
            const int bb = m->jrow_body[2 * r + q];

            s->rside[2 * j + q] = bb == VD_GROUND || bb == b->root ? -1 : s->loc[bb];
        }
    }
    {
        int e = 0;

        for (int c = 0; c < ncl; c++)
            for (int lb = 0; lb < s->cl_ptr[c + 1] - s->cl_ptr[c]; lb++) {
                s->brow_ptr[s->cl_ptr[c] + lb] = e;
                for (int j = 0; j < s->mr[c]; j++)
                    for (int q = 0; q < 2; q++)
                        if (s->rside[2 * (s->row_ptr[c] + j) + q] == lb) {
                            s->brow[2 * e] = j;
                            s->brow[2 * e + 1] = q;
                            e++;
                        }
            }
        s->brow_ptr[nbd] = e;
    }
    /* the blocks (a, bb) of each column bb of S */
    {
        int e = 0;

        for (int bb = 0; bb < nb; bb++) {
            s->scol_ptr[bb] = e;
            for (int a = 0; a < nb; a++)
                for (int k = m->blk_rowptr[a]; k < m->blk_rowptr[a + 1]; k++)
                    if (m->blk_col[k] == bb) {
                        s->scol[2 * e] = a;
                        s->scol[2 * e + 1] = m->blk_slot[k];
                        e++;
                    }
        }
        s->scol_ptr[nb] = e;
    }
    /* the numeric layout */
    for (int c = 0; c < ncl; c++) {
        size_t x, i;

        cl_sizes(s->cl_ptr[c + 1] - s->cl_ptr[c], s->mr[c], s->n0, &x, &i);
        s->xoff[c] = s->nx;
        s->ioff[c] = s->ni;
        s->nx += x;
        s->ni += i;
        s->nmax = s->n[c] > s->nmax ? s->n[c] : s->nmax;
        s->mmax = s->mr[c] > s->mmax ? s->mr[c] : s->mmax;
    }
    /* G^T at a selection (n x m), the right-hand sides of Y at a factorization (m x ny) */
    s->gt_off = s->nx;
    s->nx += (size_t)(s->nmax + 6) * (size_t)s->mmax;
    s->tv_off = s->nx;
    s->nx += (size_t)s->mmax + 1;
    s->tz_off = s->nx; /* zero but inside a reach during a factorization */
    s->nx += (size_t)s->mmax + 1;
    s->h_off = s->nx;
    s->nx += 36 + 6; /* the root block's LU and its reciprocal pivots */
    s->yp_off = s->nx;
    s->nx += 7 * ((size_t)s->nmax + 6); /* ny <= n + 6: 6 components and the products; W's
                                           six columns (f x 6, f <= n) */
    s->dep_off = s->ni; /* by body: 1 if it has dependent coordinates (set at a selection) */
    s->ni += (size_t)nb;
    s->ni += 6; /* its pivots, at the end of d->csi */
    s->nb = 2 * (size_t)s->nmax + (size_t)s->mmax * (size_t)s->mmax + (size_t)s->mmax + 1;
    free(key);
    return 0;
out_oom:
    snprintf(err, errlen, "out of memory");
    free(key);
    vd_csn_free(m->csn);
    m->csn = NULL;
    return -ENOMEM;
out_inval:
    free(key);
    vd_csn_free(m->csn);
    m->csn = NULL;
    return -EINVAL;
}

/* ---- the selection: partition, symbolic LU of Gu^T, patterns of Y ------------------------- */

/* rows j < m of the cluster, side q: G entry of local coordinate column ci (0..5) */
static inline double gq(const struct vd_data *d, const struct cl *k, int j, int q, int ci)
{
    return d->jG[12 * (size_t)k->row[j] + (size_t)(6 * q + ci)];
}

/* column jy of Y is a unit vector: an independent coordinate of a body with no dependent
 * ones (its reach then touches no other body: Y's pattern is the body alone) */
static inline bool unit_col(const struct cl *k, int jy)
{
    return jy < k->f && k->ypp[jy + 1] - k->ypp[jy] == 1 && k->idb[k->ypi[k->ypp[jy]]];
}

static int cl_select(const struct vd_model *m, struct vd_data *d, struct cl *k)
{
    const struct vd_csn *s = m->csn;
    const int n = k->n, mm = k->m;
    const size_t N = (size_t)n, M = (size_t)mm;
    double *Gt = d->csx + s->gt_off;
    unsigned char *used = d->csb, *B = d->csb + s->nmax,
                  *fl = B + (size_t)s->mmax * (size_t)s->mmax;
    int nf = 0, e;
    double flf = 0.0, fls = 0.0;
    bool again = false;

    /* G_cc^T (n x m) */
    memset(Gt, 0, N * M * sizeof(double));
    for (int j = 0; j < mm; j++)
        for (int q = 0; q < 2; q++) {
            const int lb = k->rside[2 * j + q];

            if (lb >= 0)
                for (int i = 0; i < 6; i++)
                    Gt[(size_t)(6 * lb + i) + N * (size_t)j] = gq(d, k, j, q, i);
        }
    /* LU with threshold row pivoting, the rows kept in place */
    memset(used, 0, N);
    for (int kk = 0; kk < mm; kk++) {
        const double *col = Gt + N * (size_t)kk;
        double mx = 0.0;
        int p = -1;

        for (int i = 0; i < n; i++)
            if (!used[i])
                mx = fmax(mx, fabs(col[i]));
        if (!(mx > 0.0))
            return 1;
        for (int i = 0; i < n; i++)
            if (!used[i] && fabs(col[i]) >= CSN_TAU * mx &&
                (p < 0 || (i / 6 == p / 6 && fabs(col[i]) > fabs(col[p]))))
                p = i;
        used[p] = 1;
        k->ldep[kk] = p;
        for (int i = 0; i < n; i++)
            if (!used[i] && col[i] != 0.0) {
                const double l = col[i] / col[p];

                for (int j = kk + 1; j < mm; j++)
                    Gt[(size_t)i + N * (size_t)j] -= l * Gt[(size_t)p + N * (size_t)j];
            }
    }
    for (int i = 0; i < n; i++)
        k->lmap[i] = -1;
    for (int kk = 0; kk < mm; kk++)
        k->lmap[k->ldep[kk]] = kk;
    for (int i = 0; i < n; i++)
        if (!used[i]) {
            k->lmap[i] = -1 - nf;
            k->lind[nf++] = i;
        }
    for (int lb = 0; lb < k->nb; lb++) {
        /* lind ascends: a body's independent coordinates are consecutive columns */
        k->idb[lb] = k->lmap[6 * lb] < 0 ? -k->lmap[6 * lb] : 0; /* 1 + its index */
        d->csi[s->dep_off + (size_t)k->body[lb]] = 0;
        for (int i = 0; i < 6; i++)
            if (k->lmap[6 * lb + i] != k->lmap[6 * lb] - i)
                k->idb[lb] = 0;
        for (int i = 0; i < 6; i++)
            if (k->lmap[6 * lb + i] >= 0)
                d->csi[s->dep_off + (size_t)k->body[lb]] = 1;
    }
    /* symbolic LU of A = Gu^T without pivoting: A[k, j] != 0 where row j touches the body of
     * dependent coordinate k */
    memset(B, 0, M * M);
    for (int j = 0; j < mm; j++)
        for (int q = 0; q < 2; q++) {
            const int lb = k->rside[2 * j + q];

            if (lb >= 0)
                for (int i = 0; i < 6; i++)
                    if (k->lmap[6 * lb + i] >= 0)
                        B[(size_t)k->lmap[6 * lb + i] + M * (size_t)j] = 1;
        }
    for (int kk = 0; kk < mm; kk++)
        for (int j = kk + 1; j < mm; j++)
            if (B[(size_t)kk + M * (size_t)j])
                for (int i = kk + 1; i < mm; i++)
                    if (B[(size_t)i + M * (size_t)kk])
                        B[(size_t)i + M * (size_t)j] = 1;
    e = 0;
    for (int kk = 0; kk < mm; kk++) {
        k->lp[kk] = e;
        for (int i = kk + 1; i < mm; i++)
            if (B[(size_t)i + M * (size_t)kk])
                k->li[e++] = i;
    }
    k->lp[mm] = e;
    e = 0;
    for (int j = 0; j < mm; j++) {
        k->ucp[j] = e;
        for (int kk = 0; kk < j; kk++)
            if (B[(size_t)kk + M * (size_t)j])
                k->uci[e++] = kk;
    }
    k->ucp[mm] = e;
    /* the flat maps of the right-looking LU (cl_lu): where each entry of Gu^T and each
     * update lands in V = [Lv | Uv | D] (pos: V's index of entry (i, j), through the
     * selection's G^T area, no longer needed) */
    {
        int *pos = (int *)(void *)Gt, ng = 0, z = 0;
        const size_t T = tri(mm);

        for (int j = 0; j < mm; j++) {
            pos[(size_t)j + M * (size_t)j] = (int)(2 * T) + j;
            for (int t = k->lp[j]; t < k->lp[j + 1]; t++)
                pos[(size_t)k->li[t] + M * (size_t)j] = t;
            for (int u = k->ucp[j]; u < k->ucp[j + 1]; u++)
                pos[(size_t)k->uci[u] + M * (size_t)j] = (int)T + u;
        }
        for (int j = 0; j < mm; j++)
            for (int q = 0; q < 2; q++) {
                const int lb = k->rside[2 * j + q];

                if (lb >= 0)
                    for (int i = 0; i < 6; i++) {
                        const int kk = k->lmap[6 * lb + i];

                        if (kk >= 0) {
                            k->gs[ng] = 12 * k->row[j] + 6 * q + i;
                            k->gd[ng++] = pos[(size_t)kk + M * (size_t)j];
                        }
                    }
            }
        *k->gn = ng;
        /* U by rows (each row's entries by ascending column); nx: the next free entry of
         * each row, uj: the column of each entry of U (scratch after pos) */
        {
            int *nx = pos + M * M, *uj = nx + M;

            memset(k->urp, 0, (M + 1) * sizeof(int));
            for (int u = 0; u < k->ucp[mm]; u++)
                k->urp[k->uci[u] + 1]++;
            for (int kk = 0; kk < mm; kk++)
                k->urp[kk + 1] += k->urp[kk];
            for (int kk = 0; kk < mm; kk++)
                nx[kk] = k->urp[kk];
            for (int j = 0; j < mm; j++)
                for (int u = k->ucp[j]; u < k->ucp[j + 1]; u++) {
                    k->ure[nx[k->uci[u]]++] = u;
                    uj[u] = j;
                }
            for (int kk = 0; kk < mm; kk++)
                for (int a = k->urp[kk]; a < k->urp[kk + 1]; a++)
                    for (int t = k->lp[kk]; t < k->lp[kk + 1]; t++)
                        k->um[z++] = pos[(size_t)k->li[t] + M * (size_t)uj[k->ure[a]]];
        }
    }
patterns: /* (again once with A_ww's blocks in order: below) */
    /* the body pattern of each column of Y: the reach of its right-hand side through U^T and
     * L^T (the rows, for the independent coordinates' columns), and the independent
     * coordinate itself */
    e = 0;
    k->rp[0] = 0;
    for (int jy = 0; jy < k->ny; jy++) {
        unsigned char *x = fl, *bf = fl + s->mmax;

        memset(x, 0, M);
        memset(bf, 0, (size_t)k->nb);
        for (int j = 0; j < mm; j++)
            for (int q = 0; q < 2; q++) {
                const int lb = k->rside[2 * j + q];

                if (jy < k->f ? lb == k->lind[jy] / 6 : lb < 0)
                    x[j] = 1;
            }
        for (int j = 0; j < mm; j++)
            for (int t = k->ucp[j]; t < k->ucp[j + 1] && !x[j]; t++)
                x[j] = x[k->uci[t]];
        for (int kk = mm - 1; kk >= 0; kk--)
            for (int t = k->lp[kk]; t < k->lp[kk + 1] && !x[kk]; t++)
                x[kk] = x[k->li[t]];
        if (jy < k->f)
            k->rp[jy + 1] = k->rp[jy];
        for (int kk = 0; kk < mm; kk++)
            if (x[kk]) {
                bf[k->ldep[kk] / 6] = 1;
                if (jy < k->f)
                    k->ri[k->rp[jy + 1]++] = kk;
            }
        if (jy < k->f)
            bf[k->lind[jy] / 6] = 1;
        k->ypp[jy] = e;
        for (int lb = 0; lb < k->nb; lb++)
            if (bf[lb])
                k->ypi[e++] = lb;
    }
    k->ypp[k->ny] = e;
    /* the wide columns: those reaching at least half the rows, with the root's */
    *k->nw = 0;
    for (int jy = 0; jy < k->f; jy++)
        if (2 * (k->rp[jy + 1] - k->rp[jy]) >= mm && mm > 0 && *k->nw + k->n0 < CSN_WIDE)
            k->wc[(*k->nw)++] = jy;
    /* the bodies of each column of S Y: S's neighbours of Y's (the root's for the root's
     * columns) */
    {
        unsigned char *bf = fl + s->mmax;
        int e2 = 0;

        for (int jy = 0; jy < k->ny; jy++) {
            memset(bf, 0, (size_t)k->nb);
            for (int t = k->ypp[jy]; t < k->ypp[jy + 1]; t++) {
                const int bb = k->body[k->ypi[t]];

                for (int q = s->scol_ptr[bb]; q < s->scol_ptr[bb + 1]; q++)
                    if (s->scol[2 * q] != s->root)
                        bf[s->loc[s->scol[2 * q]]] = 1;
            }
            if (jy >= k->f)
                for (int q = s->scol_ptr[s->root]; q < s->scol_ptr[s->root + 1]; q++)
                    if (s->scol[2 * q] != s->root && s->cl[s->scol[2 * q]] == k->c)
                        bf[s->loc[s->scol[2 * q]]] = 1;
            k->syp[jy] = e2;
            for (int lb = 0; lb < k->nb; lb++)
                if (bf[lb])
                    k->syi[e2++] = lb;
        }
        k->syp[k->ny] = e2;
    }
    /* by body: the columns of Y and of S Y nonzero there (Y^T S Y body by body) */
    {
        int e1 = 0, e2 = 0;

        for (int lb = 0; lb < k->nb; lb++) {
            k->ibp[lb] = e1;
            k->jbp[lb] = e2;
            for (int jy = 0; jy < k->ny; jy++) {
                for (int t = k->ypp[jy]; t < k->ypp[jy + 1]; t++)
                    if (k->ypi[t] == lb)
                        k->ibi[e1++] = jy;
                for (int t = k->syp[jy]; t < k->syp[jy + 1]; t++)
                    if (k->syi[t] == lb)
                        k->jbi[e2++] = jy;
            }
        }
        k->ibp[k->nb] = e1;
        k->jbp[k->nb] = e2;
        for (int lb = 0; lb < k->nb; lb++)
            if (k->ibp[lb + 1] - k->ibp[lb] != 6)
                k->idb[lb] = 0; /* (cannot happen: Y is zero on a body without pivots but for
                                   the identity) */
    }
    /* A_ww's diagonal blocks: the independent coordinates of the bodies without dependent
     * ones (idb), labelled by body, labels joined where A_ww's pattern (Y's columns at a body
     * against S Y's there) couples two of them; the others the border. With two blocks or
     * more, the independent coordinates are ordered block by block, the border last (the
     * patterns above then made again), and cluster_reduce's lu_small eliminates block by
     * block: cmp the end of each one's block, -1 the border's (all -1: one dense block). */
    {
        int *ord = k->piv, nc = 0, t = 0; /* (piv: scratch until the step's LU) */
        bool inorder = true;

        for (int jy = 0; jy < k->f; jy++)
            k->cmp[jy] = k->idb[k->lind[jy] / 6] ? k->lind[jy] / 6 : -1;
        for (int lb = 0; lb < k->nb; lb++)
            for (int a = k->ibp[lb]; a < k->ibp[lb + 1]; a++)
                for (int b = k->jbp[lb]; b < k->jbp[lb + 1]; b++) {
                    const int i = k->ibi[a], j = k->jbi[b];

                    if (i < k->f && j < k->f && k->cmp[i] >= 0 && k->cmp[j] >= 0 &&
                        k->cmp[i] != k->cmp[j]) {
                        const int lo = k->cmp[i] < k->cmp[j] ? k->cmp[i] : k->cmp[j];
                        const int hi = k->cmp[i] + k->cmp[j] - lo;

                        for (int q = 0; q < k->f; q++)
                            if (k->cmp[q] == hi)
                                k->cmp[q] = lo;
                    }
                }
        /* a block's label: its first body's, counted at that body's first column */
        for (int jy = 0; jy < k->f; jy++)
            if (k->cmp[jy] >= 0 && k->cmp[jy] == k->lind[jy] / 6 && k->lind[jy] % 6 == 0) {
                nc++;
                for (int q = 0; q < k->f; q++)
                    if (k->cmp[q] == k->cmp[jy])
                        ord[t++] = q;
            }
        for (int q = 0; q < k->f; q++)
            if (k->cmp[q] < 0)
                ord[t++] = q;
        for (int q = 0; q < k->f; q++)
            inorder = inorder && ord[q] == q;
        if (nc >= 2 && !inorder && !again) {
            for (int q = 0; q < k->f; q++)
                k->cmp[q] = k->lind[ord[q]];
            for (int q = 0; q < k->f; q++) {
                k->lind[q] = k->cmp[q];
                k->lmap[k->lind[q]] = -1 - q;
            }
            for (int lb = 0; lb < k->nb; lb++) {
                /* a body's independent coordinates still consecutive, ascending */
                k->idb[lb] = k->lmap[6 * lb] < 0 ? -k->lmap[6 * lb] : 0;
                for (int i = 0; i < 6; i++)
                    if (k->lmap[6 * lb + i] != k->lmap[6 * lb] - i)
                        k->idb[lb] = 0;
            }
            again = true;
            goto patterns;
        }
        if (nc >= 2 && inorder)
            for (int jy = k->f - 1; jy >= 0; jy--)
                ord[jy] = k->cmp[jy] < 0                                  ? -1
                          : jy + 1 < k->f && k->cmp[jy + 1] == k->cmp[jy] ? ord[jy + 1]
                                                                          : jy + 1;
        for (int jy = 0; jy < k->f; jy++)
            k->cmp[jy] = nc >= 2 && inorder ? ord[jy] : -1;
    }
    /* Y: zero but for the dependent coordinates (written every step) and the identity; the
     * work vector of the reaches zero */
    memset(k->Y, 0, N * (size_t)k->ny * sizeof(double));
    memset(d->csx + s->tz_off, 0, ((size_t)s->mmax + 1) * sizeof(double));
    for (int jy = 0; jy < k->f; jy++)
        k->Y[(size_t)k->lind[jy] + N * (size_t)jy] = 1.0;
    /* the work with this partition [flop]: Gu's LU, the columns of Y, S Y, Y^T S Y, the
     * cluster block's LU, W and the root update; one solve: two solves with Gu, Y^T q, the
     * f x f solve, Y z */
    for (int j = 0; j < mm; j++) {
        flf += k->lp[j + 1] - k->lp[j];
        for (int u = k->ucp[j]; u < k->ucp[j + 1]; u++)
            flf += 2.0 * (k->lp[k->uci[u] + 1] - k->lp[k->uci[u]]);
    }
    flf += (double)(k->n0 + *k->nw) * (2.0 * (k->lp[mm] + k->ucp[mm]) + mm);
    for (int jy = 0, w = 0; jy < k->f; jy++) {
        if (w < *k->nw && k->wc[w] == jy) {
            w++; /* (over all rows, above) */
            continue;
        }
        for (int t = k->rp[jy]; t < k->rp[jy + 1]; t++) {
            const int j = k->ri[t];

            flf += 1.0 + 2.0 * (k->ucp[j + 1] - k->ucp[j] + k->lp[j + 1] - k->lp[j]);
        }
    }
    for (int jy = 0; jy < k->ny; jy++)
        for (int t = k->ypp[jy]; t < k->ypp[jy + 1]; t++) {
            const int bb = k->body[k->ypi[t]];

            flf += (unit_col(k, jy) ? 6.0 : 72.0) * (s->scol_ptr[bb + 1] - s->scol_ptr[bb]);
        }
    for (int lb = 0; lb < k->nb; lb++)
        flf += (k->idb[lb] ? 1.0 : 12.0) * (k->ibp[lb + 1] - k->ibp[lb]) *
               (k->jbp[lb + 1] - k->jbp[lb]);
    if (k->f && k->cmp[0] >= 0) {
        /* block by block (lu_small): each pivot's rows and columns in its block and the
         * border's */
        int r0 = k->f;

        while (r0 > 0 && k->cmp[r0 - 1] < 0)
            r0--;
        for (int q = 0; q < k->f; q++) {
            const int nr =
                (k->cmp[q] < 0 ? k->f : k->cmp[q]) - q - 1 + (k->cmp[q] < 0 ? 0 : k->f - r0);

            flf += nr + 2.0 * nr * nr;
        }
    } else {
        flf += 2.0 / 3.0 * k->f * k->f * k->f;
    }
    flf += 2.0 * k->f * k->f * k->n0 + 2.0 * k->f * k->n0 * k->n0;
    fls = 2.0 * (2.0 * (k->lp[mm] + k->ucp[mm]) + mm) + 4.0 * 6.0 * e + 2.0 * k->f * k->f +
          4.0 * k->f * k->n0;
    k->st[2] = flf;
    k->st[3] = fls;
    d->nselect++;
    return 0;
}

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

        cl_get(m, d, c, &k);
        if (all && cl_select(m, d, &k))
            return 1;
        rc = cl_lu(d, &k, lmax);
        if (!all && (rc || k.st[0] < m->opt.reselect * k.st[1])) {
            /* the partition degraded: select again (counted) and factor with the new one */
            if (cl_select(m, d, &k))
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

        cl_get(m, d, cc, &k);
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

        cl_get(m, d, cc, &k);
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

        cl_get(m, d, cc, &k);
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

        cl_get(m, d, cc, &k);
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

        cl_get(m, d, c, &k);
        *fac += k.st[2];
        *sol += k.st[3];
    }
    if (s->root >= 0)
        *fac += 527.0;
}
