/* core/csnull_impl.h - what the two halves of the null-space form on the structured path share
 * (csnull.h): the numeric layout of one cluster (struct cl, in d->csx and d->csi), its sizes,
 * and the selection (the partition, the symbolic LU of Gu^T, the patterns of Y), which the
 * factorization calls again when a cluster's pivots degrade. core/csnull_select.c: the
 * analysis and the selection (init-time and bounded, preallocated); core/csnull.c: the
 * numeric factorization, the solves and the correction (RT-safe). Internal to those two. */
#ifndef VD_CORE_CSNULL_IMPL_H
#define VD_CORE_CSNULL_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "csnull.h"

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

static inline size_t tri(int m)
{
    return m > 1 ? (size_t)m * (size_t)(m - 1) / 2 : 0;
}

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

/* cluster c's numeric part (pointers into d->csx, d->csi) */
void vd_csn_cl_get(const struct vd_model *m, const struct vd_data *d, int c, struct cl *k);
/* the selection of cluster k: the partition (an LU of G_cc^T with threshold pivoting), the
 * symbolic LU of Gu^T and its flat maps, the patterns of Y and of S Y, the flop counts;
 * bounded, in preallocated memory (RT-safe). 0, or 1: G_cc has dependent rows */
int vd_csn_select(const struct vd_model *m, struct vd_data *d, struct cl *k);

#endif /* VD_CORE_CSNULL_IMPL_H */
