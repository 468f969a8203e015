/* core/bblu.h - LU of a dense n x n matrix that is bordered block diagonal: its indices split
 * into clusters C_1 .. C_k and a border B with A[C_i, C_j] = 0 for i != j (the TA form's
 * augmented system, core/ta.h: each cluster a corner, or another subtree, with its cut rows;
 * the border the chassis' six coordinates, which every corner couples to, and the steering
 * hub between the front corners with the rows that reach it).
 *
 * A cluster may touch only part of the border (its rows and columns zero at the rest, e.g.
 * a rear corner and the steering's coordinates): its blocks below then run over that part
 * B_c only.
 *
 * Factorization (block Gaussian elimination of the clusters onto the border, the same
 * elimination as core/blocklu.h's arrow with whole clusters for blocks), in the permuted
 * order (the clusters, then the border) a plain LU  P^T A = L U  with
 *   A_cc = P_c L_c U_c                      (LAPACK getrf: partial pivoting inside C_c)
 *   U_cB = L_c^-1 P_c^T A_cB,  L_Bc = A_Bc U_c^-1
 *   H    = A_BB - sum_c L_Bc U_cB = P_B L_B U_B
 * Solve, forward and back substitution with those factors: y_c = L_c^-1 P_c^T b_c,
 * x_B = H^-1 (b_B - sum_c L_Bc y_c), x_c = U_c^-1 (y_c - U_cB x_B).
 *
 * Numerics: the pivots stay inside each cluster's block and then inside H, so the
 * factorization is that of Gaussian elimination with partial pivoting restricted to the
 * blocks. It exists when every A_cc is nonsingular: for the TA system [S_cc G_c^T; G_c 0] that
 * is the condition that the cluster's cut rows, restricted to its own coordinates, have full
 * rank with the chassis held (the corners' loops are not redundant: ta.h), with S_cc
 * nonsingular as in core/blocklu.h (mass-dominated at dt = 1 ms). Against the dense LU of the
 * whole matrix the only difference is the pivot order: the results agree to the condition
 * number times the unit roundoff (test_bblu and test_ta check each solve against a refined
 * reference within Higham's bound for the factors used, tests/bblu_bound.h).
 *
 * vd_bblu_plan/free: init only (allocate). vd_bblu_factor/solve: RT-safe (LAPACK's getrf on
 * caller-owned arrays, vd_lapack_warmup having mapped its buffers at init; the substitutions
 * are this file's; test_noalloc runs the TA form on it). */
#ifndef VD_CORE_BBLU_H
#define VD_CORE_BBLU_H

#include <stddef.h>

struct vd_bblu {
    int n;     /* order */
    int ncl;   /* clusters */
    int nb;    /* border size */
    int *ptr;  /* (ncl + 1) cluster c: idx[ptr[c] .. ptr[c + 1]) */
    int *idx;  /* (n - nb) each cluster's indices, ascending */
    int *bidx; /* (nb) the border's indices, ascending */
    int *bptr; /* (ncl + 1) cluster c's border B_c: the border positions (into bidx,
                * ascending) bsub[bptr[c] .. bptr[c + 1]), the only ones it touches */
    int *bsub;
    size_t *off; /* (ncl + 1) cluster c's factors at F + off[c]: its nc x (nc + nbc) block
                  * [L_c U_c | U_cB] (column-major, leading dimension nc, getrf's layout;
                  * nbc = |B_c|), then L_Bc (nbc x nc); H's LU at F + off[ncl] (nb x nb) */
    size_t nf;   /* doubles of F */
    int maxc;    /* largest cluster */
    long flops_factor, flops_solve; /* [flop] as LAPACK counts getrf/getrs (2/3 n^3, 2 n^2) */
};

/* init-time (may allocate) */
/* the plan of an n x n matrix from cl (n): each index's cluster 0 .. ncl - 1, or -1 for the
 * border; touch (ncl x n, NULL: every cluster touches the whole border): touch[c n + i] for
 * a border index i says that cluster c's rows or columns may be nonzero there (the entries
 * between a cluster and the rest of the border must be zero: they are never read). 0 or
 * -EINVAL (an empty cluster, a cluster id out of range) / -ENOMEM, with a one-line reason in
 * err */
int vd_bblu_plan(struct vd_bblu *p, int n, const int *cl, int ncl, const unsigned char *touch,
                 char *err, size_t errlen);
void vd_bblu_free(struct vd_bblu *p);

/* RT-safe */
/* factor A (column-major n x n, leading dimension n; read only, entries between clusters
 * and between a cluster and the border it does not touch never read) into F (p->nf) and piv (p->n).
 * 0, or 1 + the cluster whose block is singular (ncl: H) */
int vd_bblu_factor(const struct vd_bblu *p, const double *A, double *F, int *piv);
/* x = A^-1 x with the factors; w: work of p->n doubles */
void vd_bblu_solve(const struct vd_bblu *p, const double *F, const int *piv, double *x, double *w);

#endif /* VD_CORE_BBLU_H */
