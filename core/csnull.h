/* core/csnull.h - the null-space form of a model with joints on the structured path (issue
 * 13, items 3(b) and 3(d)): coordinate partitioning per cluster, so the corners are still
 * eliminated before the chassis. Owns the symbolic part (struct vd_csn, in the frozen model)
 * and the layout of the numeric part (d->csx, d->csi, d->csb).
 *
 * The clusters are those of the index2 form's block LU (core/csblock.h): the components of
 * the body graph without the root (the chassis), every joint row in exactly one cluster, its
 * rows touching only the cluster's bodies and the root. With v_0 the root's velocity and v_c
 * a cluster's, the rows of cluster c read G_cc v_c + G_c0 v_0 = c_c. Per cluster, an LU of
 * G_cc^T with row pivoting selects m_c dependent coordinates u (Gu = G_cc[:, u] nonsingular)
 * and leaves f_c = n_c - m_c independent ones w, and
 *   v_c = R_c w_c + T_c v_0 + a_p,c,   R_c = P [-Gu^-1 Gw; I],  T_c = P [-Gu^-1 G_c0; 0],
 *   a_p,c = P [Gu^-1 c_c; 0]           (numerics.md §2.2, per cluster)
 * so Z = [I 0; T_c R_c] spans the null space of G, and Z^T S Z keeps the arrow of S (no S
 * block couples two clusters): cluster blocks R_c^T S_cc R_c (f_c x f_c), their coupling to
 * the root, and the root block. Each cluster block is factored (LU, partial pivoting) and
 * eliminated into the root's 6x6 block, which is factored last. Where a cluster block has
 * two or more diagonal blocks (the coordinates of bodies without dependent ones, coupled
 * only among themselves), its columns are ordered block by block, the others last, and
 * each block's pivots are searched among its own rows (block by block, as the bushing
 * path's block LU). R^T S R equals the Schur
 * complement of [S G^T; G 0] onto w (eliminating u and the multipliers through the pivot
 * [S_uu Gu^T; Gu 0], whose inverse needs Gu^-1 only), so the reduced system is as well
 * conditioned as the constrained problem with that partition. A body without dependent
 * coordinates (no joint pivots there: bushing-only bodies) has unit vectors as Y's rows and
 * columns; its products with S are copies (flagged at the selection).
 *
 * Partition (the selection): an LU of G_cc^T (n_c x m_c) with threshold row pivoting: the
 * columns (joint rows) ordered leaf-first (by the first of their bodies in the cluster's
 * elimination order), the pivot of each column among the coordinates within a factor
 * CSN_TAU of the column's largest entry, the one of the earliest body preferred. So a
 * wheel's revolute takes the wheel's coordinates, not the knuckle's, the LU of Gu stays
 * sparse and R_c's columns touch few bodies (wheel spin: the wheel only). Between
 * selections, Gu^T is factored every step in the selection's order without pivoting, on the
 * sparsity pattern found symbolically at the selection (fixed operation count; right-looking
 * on the flat maps of every entry's and every update's place in the packed factors, also
 * recorded at the selection). The pivot
 * ratio min / max |u_kk| is watched as on the dense path: a cluster whose ratio falls below
 * opt.reselect x its value at its selection, or whose multipliers |l_ik| grow beyond
 * (1 / CSN_TAU) / opt.reselect (the selection bounds them by 1 / CSN_TAU; no pivoting between
 * selections, so growth must be watched too), is selected again at once (d->nselect counts
 * every cluster's selection). A selection is bounded (the LU of G_cc^T, the symbolic
 * factorization and the patterns, O(m_c^2 n_c)) and runs in preallocated memory.
 *
 * Multipliers: the rows of cluster c are the only ones that touch its coordinates, so
 * Gu^T l_c = (x - S a)_u per cluster. The correction (projection) moves the dependent
 * coordinates only (ds = a_p), the root not at all.
 *
 * vd_csn_analyze/free: init only (allocate). vd_csn_factor/solve/correct: RT-safe, no
 * allocation, no LAPACK; fixed operation count between selections. */
#ifndef VD_CORE_CSNULL_H
#define VD_CORE_CSNULL_H

#include <stddef.h>

#include "data.h"
#include "model.h"

struct vd_csn {
    int ncl;             /* clusters (those of m->blu) */
    int root;            /* the root body (the chassis), -1: none (a mechanism: the ground) */
    int *cl_ptr;         /* (ncl + 1) first entry of each cluster in body[] */
    int *body;           /* (nbody) bodies of the clusters, each in elimination order */
    int *cl;             /* (nbody) cluster of a body, -1: the root */
    int *loc;            /* (nbody) index of a body in its cluster, -1: the root */
    int *row_ptr;        /* (ncl + 1) first entry of each cluster in row[] */
    int *row;            /* (nc) constraint rows of the clusters, each leaf-first */
    int *rside;          /* (2 nc) by entry of row[]: the local body of side 0, 1 (-1: root) */
    int *brow_ptr;       /* (nbody + 1) by entry of body[]: its rows in brow */
    int *brow;           /* (2 per row side) cluster-local row j, side s */
    int *scol_ptr;       /* (nbody + 1) by body b: the blocks (a, b) of S in scol */
    int *scol;           /* (2 per block) body a, slot in d->F */
    int *n, *mr, *f;     /* (ncl) coordinates, rows, independent coordinates */
    int n0;              /* 6 with a root, else 0 */
    size_t *xoff, *ioff; /* (ncl) offsets of each cluster in d->csx, d->csi */
    size_t nx, ni, nb;   /* sizes of d->csx, d->csi, d->csb */
    size_t gt_off, tv_off, tz_off, h_off; /* shared: G^T at a selection (then the root's
                                             columns of Y), two work vectors, the root */
    size_t yp_off;                        /* shared: one body's rows of Y, packed (7 ny) */
    size_t dep_off;                       /* in d->csi: by body, dependent coordinates there */
    int nmax, mmax;
};

/* init-time (allocates) */
/* the symbolic part for the current m->blu (a KKT analysis by vd_csb_analyze); 0 or
 * -EINVAL / -ENOMEM with a one-line reason */
int vd_csn_analyze(struct vd_model *m, char *err, size_t errlen);
void vd_csn_free(struct vd_csn *s);

/* RT-safe */
/* the partitions (selected again where needed), R_c, T_c, the reduced system and its
 * factors from S (assembled by vd_assemble_blocks) and G; 0, or 1: singular */
int vd_csn_factor(const struct vd_model *m, struct vd_data *d);
/* S a + G^T l = x, G a = c: a into x (nq), l into c (nc) */
void vd_csn_solve(const struct vd_model *m, struct vd_data *d, double *x, double *c);
/* ds (nq) with G ds = c, on the dependent coordinates only */
void vd_csn_correct(const struct vd_model *m, struct vd_data *d, const double *c, double *ds);
/* [flop] of the factorization and of one solve with the current partitions */
void vd_csn_flops(const struct vd_model *m, const struct vd_data *d, double *fac, double *sol);

#endif /* VD_CORE_CSNULL_H */
