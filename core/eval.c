/* core/eval.c - the stage runner of h(r, v, z, u) and its Jacobian blocks (eval.h):
 * kinematics (kinematics.c), then the force elements in a fixed order: body terms, bushings
 * four at a time and couplers (bushing.c), point-to-point elements and inputs (elements.c),
 * tyres (tire.c); then one finiteness check. Also the products with the Jacobian blocks and
 * their dense form for the tests. */
#include "eval.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "bushing.h"
#include "elements.h"
#include "tire.h"
#include "vdmath.h"

int vd_eval_ex(const struct vd_model *m, struct vd_data *d, const double *r, const double *v,
               const double *z, const double *u, double *h, double *g, bool jac, bool commit)
{
    return vd_eval_sel(m, d, r, v, z, u, h, g, jac, commit, NULL);
}

int vd_eval_sel(const struct vd_model *m, struct vd_data *d, const double *r, const double *v,
                const double *z, const double *u, double *h, double *g, bool jac, bool commit,
                const struct vd_eval_skip *skip)
{
    double sum = 0.0;

    if (skip)
        vd_kinematics_sel(m, d, r, v, skip->mk, skip->nmk, skip->bd, skip->nbd);
    else
        vd_kinematics(m, d, r, v);
    memset(h, 0, (size_t)m->nq * sizeof(double));
    if (jac) {
        memset(d->Jp, 0, 36 * (size_t)m->nblk * sizeof(double));
        memset(d->Jvb, 0, 36 * (size_t)m->nblk * sizeof(double));
        memset(d->Ju, 0, 6 * (size_t)m->nju * sizeof(double));
    }
    if (skip && skip->no_gyro)
        vd_body_gravity_eval(m, h);
    else
        vd_body_terms_eval(m, d, v, h, jac);
    if (skip && skip->bu) {
        for (int i = 0; i < skip->nbu; i += VD_BUSHING_LANES)
            vd_bushing_group_eval_ix(m, d, skip->bu + i,
                                     skip->nbu - i < VD_BUSHING_LANES ? skip->nbu - i
                                                                      : VD_BUSHING_LANES,
                                     u, h, jac, commit);
    } else {
        for (int e = 0; e < m->nbush; e += VD_BUSHING_LANES)
            vd_bushing_group_eval(m, d, e,
                                  m->nbush - e < VD_BUSHING_LANES ? m->nbush - e : VD_BUSHING_LANES,
                                  u, h, jac, commit);
    }
    if (skip && skip->cp)
        for (int i = 0; i < skip->ncp; i++)
            vd_coupler_eval(m, d, skip->cp[i], h, jac);
    else
        for (int e = 0; e < m->ncoupler; e++)
            vd_coupler_eval(m, d, e, h, jac);
    if (skip && skip->pp)
        for (int i = 0; i < skip->npp; i++)
            vd_p2p_eval(m, d, skip->pp[i], h, jac);
    else
        for (int e = 0; e < m->np2p; e++)
            vd_p2p_eval(m, d, e, h, jac);
    for (int j = 0; j < m->ninput; j++)
        if (m->input[j].kind != VD_INPUT_ACTUATOR)
            vd_input_eval(m, d, j, u, h, jac);
    for (int t = 0; t < m->ntire; t++)
        vd_tire_eval(m, d, t, z, h, g, jac);
    /* NaN/Inf anywhere makes the sum non-finite: one check at the stage boundary */
    for (int i = 0; i < m->nq; i++)
        sum += h[i];
    for (int i = 0; i < m->nz; i++)
        sum += g[i];
    if (!isfinite(sum)) {
        d->warn[VD_WARN_NONFINITE]++;
        return -EDOM;
    }
    if (jac && !(skip && skip->no_lin)) {
        size_t n9 = 9 * (size_t)m->nbody * sizeof(double);

        memcpy(d->Alin, d->A, n9);
        memcpy(d->Eilin, d->Ei, n9);
        memcpy(d->Tlin, d->T, n9);
    }
    return 0;
}

int vd_eval(const struct vd_model *m, struct vd_data *d, const double *r, const double *v,
            const double *u, double *h, bool jac)
{
    return vd_eval_ex(m, d, r, v, d->z, u, h, d->g, jac, false);
}

/* y_i += sum_j B_ij x_j (+ C_ij w_j when C) over the block pattern */
VD_CLONES static void blocks_mul_add(const struct vd_model *m, const double *B, const double *x,
                                     const double *C, const double *w, double *y)
{
    for (int i = 0; i < m->nbody; i++) {
        double acc[6] = {0, 0, 0, 0, 0, 0}, *yi = y + 6 * i;

        for (int k = m->blk_rowptr[i]; k < m->blk_rowptr[i + 1]; k++) {
            const double *Bk = B + 36 * k, *xj = x + 6 * m->blk_col[k];

            for (int c = 0; c < 6; c++) {
                const double xc = xj[c];

                for (int rr = 0; rr < 6; rr++)
                    acc[rr] += Bk[rr + 6 * c] * xc;
            }
            if (C) {
                const double *Ck = C + 36 * k, *wj = w + 6 * m->blk_col[k];

                for (int c = 0; c < 6; c++) {
                    const double wc = wj[c];

                    for (int rr = 0; rr < 6; rr++)
                        acc[rr] += Ck[rr + 6 * c] * wc;
                }
            }
        }
        for (int rr = 0; rr < 6; rr++)
            yi[rr] += acc[rr];
    }
}

void vd_jr_mul_add(const struct vd_model *m, const struct vd_data *d, const double *x, double *y,
                   double *work)
{
    /* z_j = [x_j(0:3); Tlin_j x_j(3:6)], y_i += sum_j Jp_ij z_j */
    for (int b = 0; b < m->nbody; b++) {
        memcpy(work + 6 * b, x + 6 * b, 3 * sizeof(double));
        vdu_mat3_vec(work + 6 * b + 3, d->Tlin + 9 * b, x + 6 * b + 3);
    }
    blocks_mul_add(m, d->Jp, work, NULL, NULL, y);
}

void vd_jv_mul_add(const struct vd_model *m, const struct vd_data *d, const double *x, double *y)
{
    blocks_mul_add(m, d->Jvb, x, NULL, NULL, y);
}

void vd_jrv_mul_add(const struct vd_model *m, const struct vd_data *d, const double *xr,
                    const double *xv, double *y, double *work)
{
    for (int b = 0; b < m->nbody; b++) {
        memcpy(work + 6 * b, xr + 6 * b, 3 * sizeof(double));
        vdu_mat3_vec(work + 6 * b + 3, d->Tlin + 9 * b, xr + 6 * b + 3);
    }
    blocks_mul_add(m, d->Jp, work, d->Jvb, xv, y);
}

void vd_jac_dense(const struct vd_model *m, const struct vd_data *d, double *Jr, double *Jv,
                  double *Ju)
{
    const size_t nq = (size_t)m->nq;

    if (Jr)
        memset(Jr, 0, nq * nq * sizeof(double));
    if (Jv)
        memset(Jv, 0, nq * nq * sizeof(double));
    for (int i = 0; i < m->nbody; i++)
        for (int k = m->blk_rowptr[i]; k < m->blk_rowptr[i + 1]; k++) {
            const int j = m->blk_col[k];
            const double *P = d->Jp + 36 * k, *V = d->Jvb + 36 * k, *T = d->Tlin + 9 * j;

            for (int c = 0; c < 6; c++)
                for (int rr = 0; rr < 6; rr++) {
                    size_t at = (size_t)(6 * i + rr) + nq * (size_t)(6 * j + c);
                    double jr = VD_B6(P, rr, c);

                    if (c >= 3) /* angle column: Jp(:, pi) T(:, c-3) */
                        jr = VD_B6(P, rr, 3) * T[c - 3] + VD_B6(P, rr, 4) * T[3 + c - 3] +
                             VD_B6(P, rr, 5) * T[6 + c - 3];
                    if (Jr)
                        Jr[at] = jr;
                    if (Jv)
                        Jv[at] = VD_B6(V, rr, c);
                }
        }
    if (Ju) {
        memset(Ju, 0, nq * (size_t)m->ninput * sizeof(double));
        for (int j = 0; j < m->ninput; j++)
            for (int e = m->ju_ptr[j]; e < m->ju_ptr[j + 1]; e++)
                memcpy(Ju + nq * (size_t)j + 6 * (size_t)m->ju_body[e], d->Ju + 6 * e,
                       6 * sizeof(double));
    }
}

void vd_ju_mul_add(const struct vd_model *m, const struct vd_data *d, const double *u1,
                   const double *u0, double *y)
{
    for (int j = 0; j < m->ninput; j++) {
        const double du = u1[j] - u0[j];

        for (int e = m->ju_ptr[j]; e < m->ju_ptr[j + 1]; e++) {
            const double *col = d->Ju + 6 * e;
            double *yb = y + 6 * m->ju_body[e];

            for (int i = 0; i < 6; i++)
                yb[i] += col[i] * du;
        }
    }
}

int vd_eval_markers(const struct vd_model *m, int *mk)
{
    return vd_eval_markers_sel(m, NULL, m->nbush, NULL, m->np2p, mk);
}

int vd_eval_markers_sel(const struct vd_model *m, const int *bu, int nbu, const int *pp, int npp,
                        int *mk)
{
    int n = 0;

    for (int k = 0; k < m->nmarker; k++) {
        bool used = false;

        for (int i = 0; i < nbu && !used; i++) {
            const int e = bu ? bu[i] : i;

            used = m->bush[e].mk[0] == k || m->bush[e].mk[1] == k;
        }
        for (int i = 0; i < npp && !used; i++) {
            const int e = pp ? pp[i] : i;

            used = m->p2p[e].mk[0] == k || m->p2p[e].mk[1] == k;
        }
        for (int j = 0; j < m->ninput && !used; j++)
            used = m->input[j].kind != VD_INPUT_ACTUATOR && m->input[j].marker == k;
        for (int t = 0; t < m->ntire && !used; t++)
            used = m->tire[t].marker == k;
        if (used)
            mk[n++] = k;
    }
    return n;
}

int vd_eval_bodies(const struct vd_model *m, const int *mk, int nmk, int *bd)
{
    int n = 0;

    for (int b = 0; b < m->nbody; b++) {
        bool used = false;

        for (int i = 0; i < nmk && !used; i++)
            used = m->marker[mk[i]].body == b;
        if (used)
            bd[n++] = b;
    }
    return n;
}
