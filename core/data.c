/* core/data.c - the one allocation of struct vd_data, its layout and the scratch arena. */
#include "data.h"

#include <stdlib.h>
#include <string.h>

#include "ce.h"
#include "csnull.h"
#include "ta.h"
#include "csolve.h"
#include "tire.h"
#include "vdmath.h"

#define VD_ALIGN 64
/* per-step scratch: stage vectors of length nq (LSRT2 needs 11) plus input samples */
#define VD_SCRATCH_VECS  14
#define VD_SCRATCH_ZVECS 8 /* stage vectors of length nz */

static size_t align_up(size_t x)
{
    return (x + VD_ALIGN - 1) & ~(size_t)(VD_ALIGN - 1);
}

/* carve an array of n elements of size sz at *off; with base == NULL only count */
static void *carve(unsigned char *base, size_t *off, size_t n, size_t sz)
{
    void *p = base ? base + *off : NULL;

    *off = align_up(*off + (n ? n : 1) * sz);
    return p;
}

static size_t layout(const struct vd_model *m, struct vd_data *d, unsigned char *base)
{
    size_t off = align_up(sizeof(struct vd_data));
    size_t nq = (size_t)m->nq, nb = (size_t)m->nbody, nm = (size_t)m->nmarker;
    size_t nu = (size_t)m->ninput, nblk = (size_t)m->nblk, nt = (size_t)m->ntire;
    size_t nc = (size_t)m->nc;
    /* work of the constrained solve: the augmented vector, by rows or by the 6-row nodes */
    size_t nk = nq + nc > 6 * (size_t)m->blu.nb ? nq + nc : 6 * (size_t)m->blu.nb;

    d->r = carve(base, &off, nq, sizeof(double));
    d->v = carve(base, &off, nq, sizeof(double));
    d->u = carve(base, &off, nu, sizeof(double));
    d->h = carve(base, &off, nq, sizeof(double));
    d->z = carve(base, &off, (size_t)m->nz, sizeof(double));
    d->g = carve(base, &off, (size_t)m->nz, sizeof(double));
    d->Jz = carve(base, &off, 12 * nt, sizeof(double));
    d->Gp = carve(base, &off, 12 * nt, sizeof(double));
    d->Gv = carve(base, &off, 12 * nt, sizeof(double));
    d->Gz = carve(base, &off, 4 * nt, sizeof(double));
    d->Dzi = carve(base, &off, 4 * nt, sizeof(double));
    d->Cz = carve(base, &off, 12 * nt, sizeof(double));
    d->tire_out = carve(base, &off, VD_TIRE_NOUT * nt, sizeof(double));
    d->A = carve(base, &off, 9 * nb, sizeof(double));
    d->Ei = carve(base, &off, 9 * nb, sizeof(double));
    d->T = carve(base, &off, 9 * nb, sizeof(double));
    d->wg = carve(base, &off, 3 * nb, sizeof(double));
    d->bang = carve(base, &off, 3 * nb, sizeof(double));
    d->bsc = carve(base, &off, 6 * nb, sizeof(double));
    d->kin_r = carve(base, &off, nq, sizeof(double));
    d->kin_v = carve(base, &off, nq, sizeof(double));
    d->mp = carve(base, &off, 3 * nm, sizeof(double));
    d->mR = carve(base, &off, 9 * nm, sizeof(double));
    d->mpd = carve(base, &off, 3 * nm, sizeof(double));
    d->mw = carve(base, &off, 3 * nm, sizeof(double));
    d->ma = carve(base, &off, 3 * nm, sizeof(double));
    d->Jp = carve(base, &off, 36 * nblk, sizeof(double));
    d->Jvb = carve(base, &off, 36 * nblk, sizeof(double));
    d->Ju = carve(base, &off, 6 * (size_t)m->nju, sizeof(double));
    d->Alin = carve(base, &off, 9 * nb, sizeof(double));
    d->Eilin = carve(base, &off, 9 * nb, sizeof(double));
    d->Tlin = carve(base, &off, 9 * nb, sizeof(double));
    /* dense: by opt.linear, and for joints whenever they are not on the structured path
     * (the nullspace form; a form or path changed without vd_csb_analyze) */
    if (m->opt.linear == VD_LINEAR_DENSE || (nc && !vd_cs_structured(m))) {
        d->S = carve(base, &off, (nq + nc) * (nq + nc), sizeof(double));
        d->ipiv = carve(base, &off, nq + nc, sizeof(int));
    } else {
        d->S = NULL;
        d->ipiv = NULL;
    }
    d->F = carve(base, &off, 36 * (size_t)m->blu.nslot, sizeof(double));
    d->jg = carve(base, &off, nc, sizeof(double));
    d->jG = carve(base, &off, 12 * nc, sizeof(double));
    d->jgam = carve(base, &off, nc, sizeof(double));
    d->jlam = carve(base, &off, nc, sizeof(double));
    d->js0 = carve(base, &off, nc, sizeof(double));
    d->js1 = carve(base, &off, nc, sizeof(double));
    d->kx = carve(base, &off, nk, sizeof(double));
    d->kw = carve(base, &off, nk, sizeof(double));
    d->kz = carve(base, &off, nk, sizeof(double));
    if (m->csn && vd_cs_structured(m)) {
        d->csx = carve(base, &off, m->csn->nx, sizeof(double));
        d->csi = carve(base, &off, m->csn->ni, sizeof(int));
        d->csb = carve(base, &off, m->csn->nb, 1);
    } else {
        d->csx = NULL;
        d->csi = NULL;
        d->csb = NULL;
    }
    if (nc && nc <= nq && m->opt.constraints == VD_CONSTRAINTS_NULLSPACE && !d->csx) {
        const size_t nf = nq - nc;

        d->Gd = carve(base, &off, nc * nq, sizeof(double));
        d->jperm = carve(base, &off, nq, sizeof(int));
        d->Gu = carve(base, &off, nc * nc, sizeof(double));
        d->gpiv = carve(base, &off, nq, sizeof(int));
        d->Rm = carve(base, &off, nq * nf, sizeof(double));
        d->SR = carve(base, &off, nq * nf, sizeof(double));
        d->Rr = carve(base, &off, nf * nf, sizeof(double));
        d->rpiv = carve(base, &off, nf, sizeof(int));
    } else {
        d->Gd = d->Gu = d->Rm = d->SR = d->Rr = NULL;
        d->jperm = d->gpiv = d->rpiv = NULL;
    }
    d->bush_phi = carve(base, &off, (size_t)m->nbush, sizeof(double));
    d->bush_anchor = carve(base, &off, 6 * (size_t)m->nbush, sizeof(double));
    d->bush_out = carve(base, &off, 12 * (size_t)m->nbush, sizeof(double));
    d->cpl_out = carve(base, &off, 2 * (size_t)m->ncoupler, sizeof(double));
    d->p2p_out = carve(base, &off, 3 * (size_t)m->np2p, sizeof(double));
    d->arena_size = VD_SCRATCH_VECS * align_up((nq + 1) * sizeof(double)) +
                    2 * align_up((nu + 1) * sizeof(double)) +
                    VD_SCRATCH_ZVECS * align_up(((size_t)m->nz + 1) * sizeof(double));
    d->arena = carve(base, &off, d->arena_size, 1);
    return off;
}

struct vd_data *vd_data_new(const struct vd_model *m)
{
    struct vd_data probe, *d;
    size_t size;
    unsigned char *base;

    if (!m->frozen)
        return NULL;
    memset(&probe, 0, sizeof(probe));
    size = layout(m, &probe, NULL);
    base = aligned_alloc(VD_ALIGN, align_up(size));
    if (!base)
        return NULL;
    /* touch every page now: no first-touch page faults on the RT path */
    memset(base, 0, align_up(size));
    d = (struct vd_data *)base;
    layout(m, d, base);
    if (m->ce) {
        d->ce = vd_ce_data_new(m, m->ce);
        if (!d->ce) {
            free(base);
            return NULL;
        }
    }
    if (m->ta) {
        d->ta = vd_ta_data_new(m, m->ta);
        if (!d->ta) {
            vd_ce_data_free(d->ce);
            free(base);
            return NULL;
        }
    }
    vd_data_reset(m, d);
    return d;
}

void vd_data_free(struct vd_data *d)
{
    if (d) {
        vd_ce_data_free(d->ce);
        vd_ta_data_free(d->ta);
    }
    free(d);
}

void vd_data_reset(const struct vd_model *m, struct vd_data *d)
{
    d->t = 0.0;
    d->nstep = 0;
    d->lin_age = -1;
    d->arena_used = 0;
    memset(d->u, 0, (size_t)m->ninput * sizeof(double));
    memset(d->bush_phi, 0, (size_t)m->nbush * sizeof(double));
    memset(d->bush_anchor, 0, 6 * (size_t)m->nbush * sizeof(double));
    memset(d->z, 0, (size_t)m->nz * sizeof(double));
    memset(d->jlam, 0, (size_t)m->nc * sizeof(double));
    d->gu_ratio = d->gu_ratio_sel = 0.0;
    d->cres = 0.0;
    for (int b = 0; b < m->nbody; b++) {
        const struct vd_body *bd = &m->body[b];
        double A[9], c[3];

        /* reference frame pose -> CoM coordinates */
        vdu_cardan_zyx(A, bd->pose0[3], bd->pose0[4], bd->pose0[5]);
        vdu_mat3_vec(c, A, bd->com);
        for (int k = 0; k < 3; k++) {
            d->r[6 * b + k] = bd->pose0[k] + c[k];
            d->r[6 * b + 3 + k] = bd->pose0[3 + k];
        }
        memcpy(d->v + 6 * b, bd->vel0, 6 * sizeof(double));
    }
    if (d->ce)
        d->ce->synced = 0; /* the tree state follows from r, v at the next step */
    if (d->ta)
        d->ta->synced = 0;
}

void vd_body_pose(const struct vd_model *m, const struct vd_data *d, int b, double pose[6])
{
    const double *r = d->r + 6 * b;
    double A[9], c[3];

    vdu_cardan_zyx(A, r[3], r[4], r[5]);
    vdu_mat3_vec(c, A, m->body[b].com);
    for (int k = 0; k < 3; k++) {
        pose[k] = r[k] - c[k];
        pose[3 + k] = r[3 + k];
    }
}

size_t vd_arena_mark(const struct vd_data *d)
{
    return d->arena_used;
}

void vd_arena_release(struct vd_data *d, size_t mark)
{
    d->arena_used = mark;
}

double *vd_arena_doubles(struct vd_data *d, size_t n)
{
    size_t bytes = align_up((n + 1) * sizeof(double));
    double *p;

    if (d->arena_used + bytes > d->arena_size) {
        d->warn[VD_WARN_ARENA]++;
        return NULL;
    }
    p = (double *)(d->arena + d->arena_used);
    d->arena_used += bytes;
    if (d->arena_used > d->arena_hwm)
        d->arena_hwm = d->arena_used;
    return p;
}
