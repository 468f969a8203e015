/* core/csnull_select.c - the null-space form on the structured path, its symbolic half: the
 * analysis (init) and the selection of each cluster's partition (csnull.h, csnull_impl.h). */
#include "csnull_impl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocklu.h"

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

void vd_csn_cl_get(const struct vd_model *m, const struct vd_data *d, int c, struct cl *k)
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

int vd_csn_select(const struct vd_model *m, struct vd_data *d, struct cl *k)
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
