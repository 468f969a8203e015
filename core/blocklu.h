/* core/blocklu.h - block-sparse LU of the iteration matrix S with 6x6 body blocks, following
 * the model's topology (DESIGN.md §3, "subsystem synthesis" in linearly implicit form).
 * Owns the symbolic structure (struct vd_blu, part of the frozen model): the elimination
 * order, the filled block pattern with one fixed 6x6 slot per stored block, the map from the
 * model's Jacobian blocks to slots, and the precomputed list of block updates. The numeric
 * factors live in the caller's arrays (struct vd_data).
 *
 * Order: the root body (the chassis) is eliminated last. The other bodies fall into clusters,
 * the connected components of the body graph without the root (each suspension with its
 * wheel, anti-roll bar and steering parts that link it, an engine on its mounts); each
 * cluster is eliminated in turn, inside it in minimum-degree order on the block graph, so
 * every cluster is condensed onto the root block before the root block is factored.
 *
 * Joints (vd_blu_analyze_kkt, core/csolve.h): the augmented system [S G^T; G 0] gets one
 * multiplier node per joint group (<= 6 rows, padded to a 6x6 block with a unit diagonal),
 * adjacent to the joint's bodies, so its rows couple the same body pairs as the bushings they
 * replace and a corner stays a cluster. A multiplier node becomes eligible for the minimum-
 * degree pick when the caller's vd_blu_pick says so (core/csblock.h: leaf-first, as soon as
 * its pivot is nonsingular), without one only when every body of it but the root is
 * eliminated: its pivot block is then the Schur complement of the eliminated part of the KKT
 * matrix, [S_EE G_E^T; G_E 0], which is nonsingular when S_EE is (as above) and the
 * eliminated joints' rows restricted to the eliminated bodies are independent (the proof is
 * in core/csblock.h). Nodes whose bodies are all the root (or ground) follow the root (the
 * tail). Pivoting stays inside the 6x6 blocks.
 *
 * Numerics: block Gaussian elimination without pivoting between blocks, partial pivoting
 * inside each 6x6 diagonal block. This is stable for S = M - c1 Jv - c2 Jr K: in the body
 * velocity coordinates the stiffness part Jr K = diag(I, A^T) K_glob diag(I, A) is a
 * congruence of the (symmetric, positive semi-definite) material stiffness and the damping
 * part is symmetric positive semi-definite, so the symmetric part of S is M plus positive
 * semi-definite terms, perturbed by the small non-symmetric ones (geometric stiffness,
 * gyroscopic and tyre terms). For a matrix whose symmetric part is positive definite,
 * Gaussian elimination without pivoting has a growth factor bounded by a modest constant
 * (Golub & Van Loan 1979, "Unsymmetric positive definite linear systems"), and every Schur
 * complement keeps that property, so no block pivot can become singular. Pivoting inside the
 * diagonal blocks takes care of the scaling between translation rows (masses) and rotation
 * rows (inertias) of one body.
 *
 * Factorization, per pivot block k in elimination order, with U(k) the blocks j > k of row k
 * in the filled pattern:
 *   D_k = S_kk = P_k^T L_k U_k, stored as D_k^-1  (LU with partial pivoting, then inverted
 *                                                  with the triangular factors)
 *   W_kj = D_k^-1 S_kj           j in U(k) (stored in place of S_kj)
 *   S_ij -= S_ik W_kj            i, j in U(k) (the precomputed update list)
 * Solve: forward y_k = D_k^-1 b_k, b_i -= S_ik y_k; backward x_k = y_k - sum_j W_kj x_j.
 * Keeping D_k^-1 rather than its factors turns every triangular solve of the factorization
 * and of the solves into a 6x6 product, which has no dependency chain (measured with
 * `test_blocklu --bench`: a 6-column triangular solve took 8x a product). The explicit
 * inverse of a diagonal block is as accurate as its LU here: the blocks are mass-dominated
 * and well conditioned once their rows are scaled, and elimination never mixes rows of
 * different bodies (against an iteratively refined solution, the structured solve is 100x
 * more accurate than the dense LAPACK LU on the full vehicles; test_blocklu checks it).
 * The operation count is fixed by the structure; the only data-dependent branches are the
 * pivot choices inside the 6x6 blocks.
 *
 * vd_blu_analyze/free: init only, may allocate. vd_blu_factor/solve and the vdu_*6 kernels:
 * RT-safe (no allocation, no syscalls, no locks). */
#ifndef VD_CORE_BLOCKLU_H
#define VD_CORE_BLOCKLU_H

#include <stddef.h>

/* x86-64 builds also compile the hottest vector code of core (the 6x6 kernels, the
 * bushing Jacobians) for AVX2 and pick the version at load time (GCC function
 * multiversioning). Without FMA (not part of "avx2") and with contraction off (-std=c11),
 * every element is computed by the same IEEE operations in the same order as in the SSE2
 * version: the results are bitwise the same, only faster. -DVD_NO_CLONES turns it off. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(VD_NO_CLONES)
#define VD_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define VD_CLONES
#endif

/* symbolic structure; positions are elimination positions 0..nb-1 (the root at
 * cluster_ptr[ncluster], nb - 1 without multiplier nodes) */
struct vd_blu {
    int nb;                   /* block rows (bodies, then multiplier nodes) */
    int nbody;                /* nodes < nbody are bodies, the others multiplier nodes */
    int root;                 /* body eliminated after the clusters (before the tail); -1: none
                               * (a KKT pattern of a mechanism: the ground is the root) */
    int ncluster;             /* clusters (components of the graph without the root) */
    int *cluster_ptr;         /* (ncluster + 1) first position of each cluster; the root at
                               * cluster_ptr[ncluster], then the tail */
    int *perm;                /* (nb) position -> body */
    int *pos;                 /* (nb) body -> position */
    int *up_ptr;              /* (nb + 1) by position: U(k) = up_col[up_ptr[k] .. up_ptr[k+1]) */
    int *up_col;              /* (nup) positions j > k of the filled row k, ascending */
    int *u_slot;              /* (nup) slot of block (k, j): S_kj, then W_kj */
    int *l_slot;              /* (nup) slot of block (j, k): S_jk */
    int *diag_slot;           /* (nb) by position: slot of (k, k) */
    int nup;                  /* stored off-diagonal blocks per triangle */
    int nslot;                /* 6x6 blocks stored: nb + 2 nup */
    int npat;                 /* blocks of the model's pattern */
    int *pat_slot;            /* (npat) slot of each pattern block */
    int nfill;                /* slots outside the pattern (fill-in), zeroed before assembly */
    int *fill_slot;           /* (nfill) */
    int nupd;                 /* block updates S_c -= S_a W_b */
    int *upd_ptr;             /* (nb + 1) updates of pivot k */
    int *upd;                 /* (3 nupd) slots a, b, c of each update */
    unsigned char *upd_first; /* (nupd) 1: the first update of a fill slot, which writes
                               * C = 0 - A B (the fill slots are not zeroed at assembly) */
    long flops_factor;        /* [flop] one numeric factorization (multiplications and additions) */
    long flops_solve;         /* [flop] one solve with one right-hand side */
    int split;                /* clusters [0, split) are part 0, [split, ncluster) part 1 */
    long flops_part[2];       /* [flop] the clusters' elimination in each part (root apart) */
    /* real sizes (vd_blu_set_sizes; NULL: every node 6): a multiplier node of k < 6 rows
     * keeps its 6x6 slots, padded, but the products and its pivot's LU and inverse skip its
     * padded rows and columns */
    unsigned char *sz;       /* (nb) by position: the node's rows, 1..6 */
    unsigned char *upd_dim;  /* (3 nupd) of each update: rows of C computed (2, 4 or 6: whole
                              * vector registers, the padded ones are exact zeros), then the
                              * inner dimension and the columns */
    unsigned char *fwd_zero; /* (nb) by position: 1 where vd_blu_solve_kkt0's forward
                              * right-hand side is structurally zero (skipped) */
    unsigned char *upd_t;    /* (nupd) or NULL (vd_blu_set_unit): 1 where the update's A is a
                              * multiplier node's rows on a body pivot, as assembled, with the
                              * joint rows' translation pattern (the first three columns a
                              * diagonal on rows 0..2, zero below) */
    unsigned char *w_t;      /* (nup) or NULL (vd_blu_set_unit): 1 where W_kj = D_k^-1 S_kj of a
                              * body pivot has S_kj as assembled, the transpose of such rows */
};

/* init-time (may allocate) */
/* analyze the symmetric block pattern (CSR: rowptr (nb + 1), col sorted per row, diagonal
 * present) with `root` eliminated last: order, fill, slots, updates. 0 or -EINVAL /
 * -ENOMEM with a one-line reason in err. */
int vd_blu_analyze(struct vd_blu *s, int nb, const int *rowptr, const int *col, int root, char *err,
                   size_t errlen);
/* the same for a KKT pattern: nodes >= nbody are multiplier nodes (header comment); root
 * may be -1 (none: the clusters are the components of the whole graph) */
/* the multiplier nodes' eligibility in the minimum-degree order (NULL: after all their
 * bodies but the root) */
struct vd_blu_pick {
    /* may multiplier node `node` be eliminated next, with the nodes of pos[] >= 0 eliminated? */
    int (*eligible)(void *ctx, int node, const int *pos);
    void *ctx;
};
int vd_blu_analyze_kkt(struct vd_blu *s, int nb, const int *rowptr, const int *col, int root,
                       int nbody, const struct vd_blu_pick *pick, char *err, size_t errlen);
void vd_blu_free(struct vd_blu *s);
/* the real row counts of the nodes (size[node], 1..6; bodies 6) of an analyzed pattern: the
 * factorization then skips the padding of the smaller nodes (the padded rows and columns are
 * zero off the unit diagonal, so every skipped product is an exact zero and the factors are
 * those of the padded blocks, up to the sign of zeros), in the updates and in the pivot's
 * LU and inverse (on its real rows, the padding's identity written exactly). Recounts
 * flops_factor. 0 or -ENOMEM. */
int vd_blu_set_sizes(struct vd_blu *s, const int *size);
/* after vd_blu_set_sizes: unit[slot] (nslot) 1 where the block assembled at the slot is a
 * multiplier node's rows on a body whose translation columns (0..2) are zero but on the
 * diagonal of rows 0..2 (the point rows of a spherical, revolute, universal or fixed joint
 * first, +-e_k, then rows without a translation part: perp, angle). The updates S_c -= S_a
 * W_b of a body pivot whose A is such a slot, never updated before (so still as assembled),
 * then take the translation columns' products as one diagonal product, A_ii b_i: the same
 * values (the other terms are exact zeros; the sign of a zero aside). 0 or -ENOMEM. */
int vd_blu_set_unit(struct vd_blu *s, const unsigned char *unit);

/* RT-safe */
/* factor the blocks F (36 nslot, column-major 6x6 each, assembled at the slots) in place:
 * diagonal slots get D_k^-1, U slots W_kj, L slots the updated S_jk. 0, or 1 + the position
 * of the first block whose pivot is zero (the factors are then unusable). */
int vd_blu_factor(const struct vd_blu *s, double *F);
/* the same factorization in two parts that may run at the same time on two threads, then
 * the root: vd_blu_factor_part eliminates the clusters of part 0 or 1 (split at init, even in
 * flops) and writes their updates of the root's diagonal block into acc (36, overwritten)
 * instead of F; apart from that block the parts touch disjoint slots. vd_blu_factor_root,
 * after both, adds acc0 + acc1 to the root block and factors it. Results are those of
 * vd_blu_factor up to the order of the additions into the root block; return values too. */
int vd_blu_factor_part(const struct vd_blu *s, double *F, int part, double acc[36]);
int vd_blu_factor_root(const struct vd_blu *s, double *F, const double acc0[36],
                       const double acc1[36]);
/* solve S x = b in place; x (6 nb) indexed by body, as the model's vectors */
void vd_blu_solve(const struct vd_blu *s, const double *F, double *x);
/* the same for a right-hand side whose body entries (nodes < nbody) are zero (exactly +0):
 * the forward steps on structural zeros are skipped, the result is vd_blu_solve's */
void vd_blu_solve_kkt0(const struct vd_blu *s, const double *F, double *x);

/* 6x6 kernels, column-major (A[i + 6 j]) */
/* A = P^T L U in place, partial pivoting: piv[k] = row swapped with k at step k; rdiag =
 * 1 / diag(U). 0, or k + 1 when the pivot of column k is zero. */
int vdu_lu6(double A[36], int piv[6], double rdiag[6]);
/* B = A^-1 B for nrhs columns of B (6 x nrhs), with the factors of vdu_lu6 */
void vdu_lu6_solve(const double LU[36], const int piv[6], const double rdiag[6], double *B,
                   int nrhs);
/* X = A^-1 from the factors of vdu_lu6 */
void vdu_inv6(double X[36], const double LU[36], const int piv[6], const double rdiag[6]);
/* C = A B */
void vdu_gemm6(double *restrict C, const double *restrict A, const double *restrict B);
/* y = A x */
void vdu_gemv6(double *restrict y, const double *restrict A, const double *restrict x);
/* C -= A B */
void vdu_gemm6_sub(double *restrict C, const double *restrict A, const double *restrict B);
/* y -= A x */
void vdu_gemv6_sub(double *restrict y, const double *restrict A, const double *restrict x);

#endif /* VD_CORE_BLOCKLU_H */
