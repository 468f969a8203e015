/* core/model.c - model builder, validation and block pattern (curves: core/curve.c, road:
 * core/road.c). */
#include "model.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ce.h"
#include "ta.h"
#include "grow.h"
#include "csblock.h"
#include "csnull.h"
#include "joint.h"
#include "tire_mf.h"
#include "tire_tmeasy.h"
#include "vdmath.h"

struct vd_model *vd_model_new(const char *name)
{
    struct vd_model *m = calloc(1, sizeof(*m));

    if (!m)
        return NULL;
    snprintf(m->name, sizeof(m->name), "%s", name ? name : "model");
    m->gravity[2] = -9.81;
    m->opt.method = VD_METHOD_LSRT2;
    m->opt.dt = 1e-3;
    m->opt.relin = 1;
    m->opt.linear = VD_LINEAR_STRUCTURED;
    m->opt.constraints = VD_CONSTRAINTS_INDEX2;
    m->opt.project = VD_PROJECT_POSITIONS;
    m->opt.reselect = 0.1;
    m->road.mu = 1.0;
    return m;
}

/* what vd_model_finalize derives (a model unfrozen and finalized again rebuilds it) */
static void free_derived(struct vd_model *m)
{
    free(m->minv_inertia);
    free(m->blk_rowptr);
    free(m->blk_col);
    free(m->blk_diag);
    free(m->bush_blk);
    free(m->p2p_blk);
    free(m->cpl_blk);
    free(m->bush_plain);
    free(m->bush_kc);
    free(m->ju_ptr);
    free(m->ju_body);
    free(m->bush_ju);
    free(m->joint_row);
    free(m->jrow_body);
    free(m->jrow_joint);
    vd_blu_free(&m->blu);
    free(m->blk_slot);
    free(m->jnode_row);
    free(m->jnode_body);
    free(m->jnode_slot);
    m->blk_slot = m->jnode_row = m->jnode_body = m->jnode_slot = NULL;
    m->njnode = 0;
    free(m->jk_body);
    free(m->jk_mk);
    m->jk_body = m->jk_mk = NULL;
    m->njk_body = m->njk_mk = 0;
    vd_csn_free(m->csn);
    m->csn = NULL;
    vd_ce_free(m->ce);
    m->ce = NULL;
    vd_ta_free(m->ta);
    m->ta = NULL;
    m->minv_inertia = NULL;
    m->blk_rowptr = m->blk_col = m->blk_diag = NULL;
    m->bush_blk = m->p2p_blk = m->cpl_blk = NULL;
    m->bush_plain = NULL;
    m->bush_kc = NULL;
    m->ju_ptr = m->ju_body = m->bush_ju = NULL;
    m->joint_row = m->jrow_body = m->jrow_joint = NULL;
}

void vd_model_free(struct vd_model *m)
{
    if (!m)
        return;
    free_derived(m);
    free(m->body);
    free(m->marker);
    free(m->bush);
    free(m->p2p);
    free(m->input);
    free(m->coupler);
    free(m->tire);
    free(m->joint);
    free(m->mf);
    free(m->tm);
    free(m->cx);
    free(m->cy);
    free(m->cm);
    free(m);
}

int vd_model_reserve_points(struct vd_model *m, int n)
{
    int need = m->ncpt + n, cap = m->cap_cpt, c2 = cap, c3 = cap;

    if (vd_grow((void **)&m->cx, &cap, need - 1, sizeof(double)) ||
        vd_grow((void **)&m->cy, &c2, need - 1, sizeof(double)) ||
        vd_grow((void **)&m->cm, &c3, need - 1, sizeof(double)))
        return -ENOMEM;
    m->cap_cpt = cap;
    return 0;
}

int vd_model_add_body(struct vd_model *m, const struct vd_body *b)
{
    if (m->frozen || !(b->mass > 0.0))
        return -EINVAL;
    if (vd_grow((void **)&m->body, &m->cap_body, m->nbody, sizeof(*b)))
        return -ENOMEM;
    m->body[m->nbody] = *b;
    return m->nbody++;
}

int vd_model_add_marker(struct vd_model *m, const struct vd_marker *mk)
{
    if (m->frozen || mk->body < VD_GROUND || mk->body >= m->nbody)
        return -EINVAL;
    if (vd_grow((void **)&m->marker, &m->cap_marker, m->nmarker, sizeof(*mk)))
        return -ENOMEM;
    m->marker[m->nmarker] = *mk;
    return m->nmarker++;
}

static bool marker_pair_ok(const struct vd_model *m, const int mk[2])
{
    int b0, b1;

    if (mk[0] < 0 || mk[0] >= m->nmarker || mk[1] < 0 || mk[1] >= m->nmarker)
        return false;
    b0 = m->marker[mk[0]].body;
    b1 = m->marker[mk[1]].body;
    return b0 != b1; /* distinct bodies; at most one side on ground */
}

int vd_model_add_bushing(struct vd_model *m, const struct vd_bushing *b)
{
    if (m->frozen || !marker_pair_ok(m, b->mk))
        return -EINVAL;
    if (vd_grow((void **)&m->bush, &m->cap_bush, m->nbush, sizeof(*b)))
        return -ENOMEM;
    m->bush[m->nbush] = *b;
    return m->nbush++;
}

int vd_model_add_p2p(struct vd_model *m, const struct vd_p2p *p)
{
    if (m->frozen || !marker_pair_ok(m, p->mk))
        return -EINVAL;
    if (vd_grow((void **)&m->p2p, &m->cap_p2p, m->np2p, sizeof(*p)))
        return -ENOMEM;
    m->p2p[m->np2p] = *p;
    return m->np2p++;
}

int vd_joint_rows(int type)
{
    static const int rows[VD_JOINT_NTYPE] = {3, 5, 4, 4, 5, 6, 1, 1, 1, 3};

    return type >= 0 && type < VD_JOINT_NTYPE ? rows[type] : 0;
}

int vd_model_add_joint(struct vd_model *m, const struct vd_joint *j)
{
    if (m->frozen || !marker_pair_ok(m, j->mk) || !vd_joint_rows(j->type))
        return -EINVAL;
    if (vd_grow((void **)&m->joint, &m->cap_joint, m->njoint, sizeof(*j)))
        return -ENOMEM;
    m->joint[m->njoint] = *j;
    return m->njoint++;
}

int vd_model_add_input(struct vd_model *m, const struct vd_input *in)
{
    if (m->frozen)
        return -EINVAL;
    if (in->kind != VD_INPUT_ACTUATOR &&
        (in->marker < 0 || in->marker >= m->nmarker || m->marker[in->marker].body == VD_GROUND))
        return -EINVAL;
    if (vd_grow((void **)&m->input, &m->cap_input, m->ninput, sizeof(*in)))
        return -ENOMEM;
    m->input[m->ninput] = *in;
    return m->ninput++;
}

int vd_model_add_coupler(struct vd_model *m, const struct vd_coupler *c)
{
    if (m->frozen || c->bush[0] < 0 || c->bush[0] >= m->nbush || c->bush[1] < 0 ||
        c->bush[1] >= m->nbush || c->bush[0] == c->bush[1] || c->comp[0] < 0 || c->comp[0] > 5 ||
        c->comp[1] < 0 || c->comp[1] > 5 || !isfinite(c->ratio))
        return -EINVAL;
    if (vd_grow((void **)&m->coupler, &m->cap_cpl, m->ncoupler, sizeof(*c)))
        return -ENOMEM;
    m->coupler[m->ncoupler] = *c;
    return m->ncoupler++;
}

int vd_model_add_mf(struct vd_model *m, const struct vd_mf_params *p)
{
    if (m->frozen)
        return -EINVAL;
    if (vd_grow((void **)&m->mf, &m->cap_mf, m->nmf, sizeof(*p)))
        return -ENOMEM;
    m->mf[m->nmf] = *p;
    return m->nmf++;
}

int vd_model_add_tm(struct vd_model *m, const struct vd_tm_params *p)
{
    if (m->frozen)
        return -EINVAL;
    if (vd_grow((void **)&m->tm, &m->cap_tm, m->ntm, sizeof(*p)))
        return -ENOMEM;
    m->tm[m->ntm] = *p;
    return m->ntm++;
}

int vd_model_add_tire(struct vd_model *m, const struct vd_tire *t)
{
    const int nset = t->model == VD_TIRE_TMEASY ? m->ntm : m->nmf;

    if (m->frozen || t->marker < 0 || t->marker >= m->nmarker ||
        m->marker[t->marker].body == VD_GROUND ||
        (t->model != VD_TIRE_MF && t->model != VD_TIRE_TMEASY) || t->mf < 0 || t->mf >= nset ||
        !(t->r0 > 0.0) || !(t->kz > 0.0) || !(t->cz >= 0.0) || !(t->c_low >= 0.0) ||
        !(t->v_low > 0.0))
        return -EINVAL;
    if (vd_grow((void **)&m->tire, &m->cap_tire, m->ntire, sizeof(*t)))
        return -ENOMEM;
    m->tire[m->ntire] = *t;
    return m->ntire++;
}

bool vd_inertia_valid(const double inertia[9])
{
    const double *I = inertia;
    double a = I[0], b = I[4], c = I[8];
    double scale = fabs(a) + fabs(b) + fabs(c);
    double m2, m3;

    for (int i = 0; i < 9; i++)
        if (!isfinite(I[i]))
            return false;
    if (scale <= 0.0)
        return false;
    /* symmetric */
    if (fabs(I[1] - I[3]) > 1e-12 * scale || fabs(I[2] - I[6]) > 1e-12 * scale ||
        fabs(I[5] - I[7]) > 1e-12 * scale)
        return false;
    /* positive definite: leading principal minors (Sylvester) */
    m2 = a * b - I[1] * I[3];
    m3 = a * (b * c - I[5] * I[7]) - I[1] * (I[3] * c - I[5] * I[6]) +
         I[2] * (I[3] * I[7] - b * I[6]);
    if (!(a > 0.0 && m2 > 0.0 && m3 > 0.0))
        return false;
    /* principal moments of a rigid body obey the triangle inequality; with products of
     * inertia, check the diagonal form: each diagonal <= sum of the others */
    return a <= b + c + 1e-9 * scale && b <= a + c + 1e-9 * scale && c <= a + b + 1e-9 * scale;
}

static int find_name(const char *base, size_t stride, int n, size_t off, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(base + (size_t)i * stride + off, name))
            return i;
    return -1;
}

int vd_model_find_body(const struct vd_model *m, const char *name)
{
    if (!strcmp(name, "ground"))
        return VD_GROUND;
    return find_name((const char *)m->body, sizeof(*m->body), m->nbody, 0, name);
}

bool vd_model_weld_match(const char *weld, const char *name)
{
    while (weld && *weld) {
        const char *e = strchr(weld, ',');
        const size_t n = e ? (size_t)(e - weld) : strlen(weld);

        if (n && !strncmp(name, weld, n))
            return true;
        weld = e ? e + 1 : NULL;
    }
    return false;
}

int vd_model_find_marker(const struct vd_model *m, const char *name)
{
    return find_name((const char *)m->marker, sizeof(*m->marker), m->nmarker, 0, name);
}

int vd_model_find_bushing(const struct vd_model *m, const char *name)
{
    return find_name((const char *)m->bush, sizeof(*m->bush), m->nbush, 0, name);
}

int vd_model_find_p2p(const struct vd_model *m, const char *name)
{
    return find_name((const char *)m->p2p, sizeof(*m->p2p), m->np2p, 0, name);
}

int vd_model_find_input(const struct vd_model *m, const char *name)
{
    return find_name((const char *)m->input, sizeof(*m->input), m->ninput, 0, name);
}

int vd_model_find_tire(const struct vd_model *m, const char *name)
{
    return find_name((const char *)m->tire, sizeof(*m->tire), m->ntire, 0, name);
}

int vd_model_find_coupler(const struct vd_model *m, const char *name)
{
    return find_name((const char *)m->coupler, sizeof(*m->coupler), m->ncoupler, 0, name);
}

int vd_model_find_joint(const struct vd_model *m, const char *name)
{
    return find_name((const char *)m->joint, sizeof(*m->joint), m->njoint, 0, name);
}

int vd_model_block(const struct vd_model *m, int i, int j)
{
    if (i < 0 || j < 0)
        return -1;
    for (int k = m->blk_rowptr[i]; k < m->blk_rowptr[i + 1]; k++)
        if (m->blk_col[k] == j)
            return k;
    return -1;
}

/* mark the pair (a, b) in a dense nbody x nbody adjacency matrix */
static void link_bodies(unsigned char *adj, int nb, int a, int b)
{
    if (a < 0 || b < 0)
        return;
    adj[a * nb + b] = 1;
    adj[b * nb + a] = 1;
}

/* bodies of a coupler: bushing a's bodies 1, 2, then bushing b's */
static void coupler_bodies(const struct vd_model *m, int e, int b[4])
{
    for (int k = 0; k < 2; k++) {
        const struct vd_bushing *bu = &m->bush[m->coupler[e].bush[k]];

        b[2 * k] = m->marker[bu->mk[0]].body;
        b[2 * k + 1] = m->marker[bu->mk[1]].body;
    }
}

static void element_blocks(const struct vd_model *m, const int mk[2], int blk[4])
{
    int b0 = m->marker[mk[0]].body, b1 = m->marker[mk[1]].body;

    blk[0] = vd_model_block(m, b0, b0);
    blk[1] = vd_model_block(m, b0, b1);
    blk[2] = vd_model_block(m, b1, b0);
    blk[3] = vd_model_block(m, b1, b1);
}

static int build_pattern(struct vd_model *m)
{
    int nb = m->nbody, k = 0;
    unsigned char *adj = calloc((size_t)nb * (size_t)nb, 1);

    if (!adj)
        return -ENOMEM;
    for (int i = 0; i < nb; i++)
        adj[i * nb + i] = 1;
    for (int e = 0; e < m->nbush; e++)
        link_bodies(adj, nb, m->marker[m->bush[e].mk[0]].body, m->marker[m->bush[e].mk[1]].body);
    for (int e = 0; e < m->np2p; e++)
        link_bodies(adj, nb, m->marker[m->p2p[e].mk[0]].body, m->marker[m->p2p[e].mk[1]].body);
    for (int e = 0; e < m->ncoupler; e++) {
        int b[4];

        coupler_bodies(m, e, b);
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                link_bodies(adj, nb, b[i], b[j]);
    }
    m->nblk = 0;
    for (int i = 0; i < nb * nb; i++)
        m->nblk += adj[i];
    m->blk_rowptr = calloc((size_t)nb + 1, sizeof(int));
    m->blk_col = calloc((size_t)m->nblk, sizeof(int));
    m->blk_diag = calloc((size_t)nb, sizeof(int));
    m->bush_blk = calloc((size_t)(4 * m->nbush + 1), sizeof(int));
    m->p2p_blk = calloc((size_t)(4 * m->np2p + 1), sizeof(int));
    m->cpl_blk = calloc((size_t)(16 * m->ncoupler + 1), sizeof(int));
    m->bush_plain = calloc((size_t)m->nbush + 1, 1);
    m->bush_kc = calloc(12 * (size_t)m->nbush + 1, sizeof(double));
    if (!m->blk_rowptr || !m->blk_col || !m->blk_diag || !m->bush_blk || !m->p2p_blk ||
        !m->cpl_blk || !m->bush_plain || !m->bush_kc) {
        free(adj);
        return -ENOMEM;
    }
    for (int i = 0; i < nb; i++) {
        m->blk_rowptr[i] = k;
        for (int j = 0; j < nb; j++) {
            if (!adj[i * nb + j])
                continue;
            if (i == j)
                m->blk_diag[i] = k;
            m->blk_col[k++] = j;
        }
    }
    m->blk_rowptr[nb] = k;
    free(adj);
    for (int e = 0; e < m->nbush; e++) {
        const struct vd_bushing *bu = &m->bush[e];
        bool plain = true;

        element_blocks(m, bu->mk, m->bush_blk + 4 * e);
        for (int c = 0; c < 6; c++) {
            plain = plain && bu->act[c] == VD_ACT_NONE;
            plain = plain &&
                    (bu->stiff[c].kind == VD_CURVE_NONE || bu->stiff[c].kind == VD_CURVE_LINEAR);
            plain =
                plain && (bu->damp[c].kind == VD_CURVE_NONE || bu->damp[c].kind == VD_CURVE_LINEAR);
            m->bush_kc[12 * e + c] = bu->stiff[c].kind == VD_CURVE_LINEAR ? bu->stiff[c].k : 0.0;
            m->bush_kc[12 * e + 6 + c] = bu->damp[c].kind == VD_CURVE_LINEAR ? bu->damp[c].k : 0.0;
        }
        m->bush_plain[e] = plain;
    }
    for (int e = 0; e < m->np2p; e++)
        element_blocks(m, m->p2p[e].mk, m->p2p_blk + 4 * e);
    for (int e = 0; e < m->ncoupler; e++) {
        int b[4];

        coupler_bodies(m, e, b);
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                m->cpl_blk[16 * e + 4 * i + j] = vd_model_block(m, b[i], b[j]);
    }
    return 0;
}

/* add body b (not ground) to the entries of input j, which has *cnt so far */
static void ju_add(struct vd_model *m, int j, int b, int *cnt)
{
    if (b == VD_GROUND)
        return;
    for (int e = m->ju_ptr[j]; e < m->ju_ptr[j] + *cnt; e++)
        if (m->ju_body[e] == b)
            return;
    m->ju_body[m->ju_ptr[j] + (*cnt)++] = b;
}

/* which bodies each input moves: its marker's body, or both bodies of every bushing
 * component it actuates */
static int build_ju_pattern(struct vd_model *m)
{
    const int cap = 1 + m->ninput + 12 * m->nbush;

    m->ju_ptr = calloc((size_t)m->ninput + 1, sizeof(int));
    m->ju_body = calloc((size_t)cap, sizeof(int));
    m->bush_ju = calloc(12 * (size_t)m->nbush + 1, sizeof(int));
    if (!m->ju_ptr || !m->ju_body || !m->bush_ju)
        return -ENOMEM;
    for (int j = 0; j < m->ninput; j++) {
        const struct vd_input *in = &m->input[j];
        int cnt = 0;

        if (in->kind != VD_INPUT_ACTUATOR)
            ju_add(m, j, m->marker[in->marker].body, &cnt);
        for (int e = 0; e < m->nbush; e++)
            for (int c = 0; c < 6; c++)
                if (m->bush[e].act[c] != VD_ACT_NONE && m->bush[e].act_input[c] == j)
                    for (int sd = 0; sd < 2; sd++)
                        ju_add(m, j, m->marker[m->bush[e].mk[sd]].body, &cnt);
        m->ju_ptr[j + 1] = m->ju_ptr[j] + cnt;
    }
    m->nju = m->ju_ptr[m->ninput];
    for (int e = 0; e < m->nbush; e++)
        for (int c = 0; c < 6; c++)
            for (int sd = 0; sd < 2; sd++) {
                const struct vd_bushing *bu = &m->bush[e];
                int *at = m->bush_ju + 12 * e + 2 * c + sd, j = bu->act_input[c];

                *at = -1;
                if (bu->act[c] == VD_ACT_NONE)
                    continue;
                for (int k = m->ju_ptr[j]; k < m->ju_ptr[j + 1]; k++)
                    if (m->ju_body[k] == m->marker[bu->mk[sd]].body)
                        *at = k;
            }
    return 0;
}

/* the structured solve's root: solver.root, else "chassis", else the body with the most
 * neighbours in the block pattern (the lowest index on a tie) */
static int choose_root(const struct vd_model *m, char *err, size_t errlen)
{
    int best = 0;

    if (m->opt.root[0]) {
        int b = vd_model_find_body(m, m->opt.root);

        if (b < 0)
            snprintf(err, errlen, "solver.root: no body named '%s'", m->opt.root);
        return b < 0 ? -EINVAL : b;
    }
    if (vd_model_find_body(m, "chassis") >= 0)
        return vd_model_find_body(m, "chassis");
    for (int i = 1; i < m->nbody; i++)
        if (m->blk_rowptr[i + 1] - m->blk_rowptr[i] > m->blk_rowptr[best + 1] - m->blk_rowptr[best])
            best = i;
    return best;
}

static bool unit_rot(const double R[9])
{
    double RtR[9];

    vdu_mat3t_mul(RtR, R, R);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (fabs(RtR[3 * i + j] - (i == j ? 1.0 : 0.0)) > 1e-9)
                return false;
    return R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) +
               R[2] * (R[3] * R[7] - R[4] * R[6]) >
           0.0;
}

/* the rows of the joints (joint_row, jrow_body, jrow_joint); 0 or -EINVAL/-ENOMEM with err */
static int build_joint_rows(struct vd_model *m, char *err, size_t errlen)
{
    int r = 0;

    m->nc = 0;
    for (int e = 0; e < m->njoint; e++)
        m->nc += vd_joint_rows(m->joint[e].type);
    m->joint_row = calloc((size_t)m->njoint + 1, sizeof(int));
    m->jrow_body = calloc(2 * (size_t)m->nc + 1, sizeof(int));
    m->jrow_joint = calloc((size_t)m->nc + 1, sizeof(int));
    if (!m->joint_row || !m->jrow_body || !m->jrow_joint) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    for (int e = 0; e < m->njoint; e++) {
        const struct vd_joint *j = &m->joint[e];
        const int b1 = m->marker[j->mk[0]].body, b2 = m->marker[j->mk[1]].body;
        const bool driven =
            j->type == VD_JOINT_DRIVEN_TRANSLATION || j->type == VD_JOINT_DRIVEN_ROTATION;

        if (j->type == VD_JOINT_DISTANCE && j->length == 0.0) {
            /* the initial distance of the markers */
            double p[2][3], dd[3];

            for (int s = 0; s < 2; s++) {
                const struct vd_marker *mk = &m->marker[j->mk[s]];

                if (mk->body == VD_GROUND) {
                    memcpy(p[s], mk->pos, sizeof(p[s]));
                } else {
                    const double *pose = m->body[mk->body].pose0;
                    double A[9];

                    vdu_cardan_zyx(A, pose[3], pose[4], pose[5]);
                    vdu_mat3_vec(p[s], A, mk->pos);
                    vdu_add3(p[s], p[s], pose);
                }
            }
            vdu_sub3(dd, p[0], p[1]);
            m->joint[e].length = sqrt(vdu_dot3(dd, dd));
        }
        if (j->type == VD_JOINT_DISTANCE && !(j->length > 1e-6 && isfinite(j->length))) {
            snprintf(err, errlen, "joint %s: a distance joint needs a length > 1 um", j->name);
            m->err_joint = e;
            return -EINVAL;
        }
        if (driven && j->input >= 0 &&
            (j->input >= m->ninput || m->input[j->input].kind != VD_INPUT_ACTUATOR)) {
            snprintf(err, errlen, "joint %s: driven by a non-actuator input", j->name);
            m->err_joint = e;
            return -EINVAL;
        }
        if (driven && !(isfinite(j->gain) && isfinite(j->offset))) {
            snprintf(err, errlen, "joint %s: gain and offset must be finite", j->name);
            m->err_joint = e;
            return -EINVAL;
        }
        m->joint_row[e] = r;
        for (int k = 0; k < vd_joint_rows(j->type); k++, r++) {
            m->jrow_body[2 * r] = b1;
            m->jrow_body[2 * r + 1] = b2;
            m->jrow_joint[r] = e;
        }
    }
    m->joint_row[m->njoint] = r;
    if (m->opt.constraints != VD_CONSTRAINTS_INDEX2 &&
        m->opt.constraints != VD_CONSTRAINTS_NULLSPACE) {
        snprintf(err, errlen, "invalid solver.constraints");
        return -EINVAL;
    }
    return 0;
}

int vd_model_finalize(struct vd_model *m, char *err, size_t errlen)
{
    if (m->frozen)
        return 0;
    m->err_joint = -1;
    if (m->nbody < 1) {
        snprintf(err, errlen, "model has no bodies");
        return -EINVAL;
    }
    if (!(m->opt.dt > 0.0) || m->opt.relin < 1 ||
        (m->opt.method != VD_METHOD_LIE && m->opt.method != VD_METHOD_LSRT2)) {
        snprintf(err, errlen, "invalid solver options (dt > 0, relin >= 1, method lie|lsrt2)");
        return -EINVAL;
    }
    m->nq = 6 * m->nbody;
    free_derived(m);
    m->minv_inertia = calloc((size_t)m->nbody * 9, sizeof(double));
    if (!m->minv_inertia)
        return -ENOMEM;
    for (int i = 0; i < m->nbody; i++) {
        const struct vd_body *b = &m->body[i];
        const double *I = b->inertia;
        double det;

        if (!(b->mass > 0.0) || !isfinite(b->mass)) {
            snprintf(err, errlen, "body %s: mass must be > 0", b->name);
            return -EINVAL;
        }
        if (!vd_inertia_valid(I)) {
            snprintf(err, errlen, "body %s: inertia tensor not positive definite", b->name);
            return -EINVAL;
        }
        if (fabs(b->pose0[4]) > 80.0 * M_PI / 180.0) {
            snprintf(err, errlen,
                     "body %s: initial pitch (ay) %.1f deg is near the Cardan singularity "
                     "(|ay| must stay below 80 deg)",
                     b->name, b->pose0[4] * 180.0 / M_PI);
            return -EINVAL;
        }
        det = I[0] * (I[4] * I[8] - I[5] * I[7]) - I[1] * (I[3] * I[8] - I[5] * I[6]) +
              I[2] * (I[3] * I[7] - I[4] * I[6]);
        {
            double *Ii = m->minv_inertia + 9 * i;
            Ii[0] = (I[4] * I[8] - I[5] * I[7]) / det;
            Ii[1] = (I[2] * I[7] - I[1] * I[8]) / det;
            Ii[2] = (I[1] * I[5] - I[2] * I[4]) / det;
            Ii[3] = (I[5] * I[6] - I[3] * I[8]) / det;
            Ii[4] = (I[0] * I[8] - I[2] * I[6]) / det;
            Ii[5] = (I[2] * I[3] - I[0] * I[5]) / det;
            Ii[6] = (I[3] * I[7] - I[4] * I[6]) / det;
            Ii[7] = (I[1] * I[6] - I[0] * I[7]) / det;
            Ii[8] = (I[0] * I[4] - I[1] * I[3]) / det;
        }
    }
    for (int i = 0; i < m->nmarker; i++) {
        struct vd_marker *mk = &m->marker[i];

        if (!unit_rot(mk->rot)) {
            snprintf(err, errlen, "marker %s: orientation is not a rotation", mk->name);
            return -EINVAL;
        }
        if (mk->body == VD_GROUND)
            memcpy(mk->s, mk->pos, sizeof(mk->s));
        else
            vdu_sub3(mk->s, mk->pos, m->body[mk->body].com);
    }
    for (int e = 0; e < m->np2p; e++) {
        const struct vd_p2p *p = &m->p2p[e];

        if (!p->has_spring && !p->has_damper && !p->has_bump && !p->has_rebound) {
            snprintf(err, errlen, "p2p %s: no spring, damper or stop", p->name);
            return -EINVAL;
        }
    }
    for (int e = 0; e < m->nbush; e++) {
        const struct vd_bushing *bu = &m->bush[e];

        for (int k = 0; k < 6; k++) {
            if (bu->act[k] == VD_ACT_NONE)
                continue;
            if (bu->act_input[k] < 0 || bu->act_input[k] >= m->ninput ||
                m->input[bu->act_input[k]].kind != VD_INPUT_ACTUATOR) {
                snprintf(err, errlen, "bushing %s: component %d is driven by a non-actuator input",
                         bu->name, k);
                return -EINVAL;
            }
            if (bu->act[k] == VD_ACT_FRICTION && bu->stiff[k].kind != VD_CURVE_LINEAR) {
                snprintf(err, errlen,
                         "bushing %s: a friction component needs a linear sticking stiffness",
                         bu->name);
                return -EINVAL;
            }
        }
    }
    for (int j = 0; j < m->ninput; j++) {
        const double *dd = m->input[j].dir;

        if (m->input[j].kind == VD_INPUT_ACTUATOR)
            continue;
        if (!(vdu_dot3(dd, dd) > 0.0)) {
            snprintf(err, errlen, "input %s: direction is zero", m->input[j].name);
            return -EINVAL;
        }
    }
    if (build_joint_rows(m, err, errlen))
        return -EINVAL;
    m->nz = 0;
    for (int t = 0; t < m->ntire; t++) {
        m->tire[t].zoff = m->nz;
        m->nz += 2;
    }
    if (!(m->road.mu > 0.0) || !isfinite(m->road.z0)) {
        snprintf(err, errlen, "road: friction scale must be > 0");
        return -EINVAL;
    }
    if (build_pattern(m) || build_ju_pattern(m)) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    {
        int root = choose_root(m, err, errlen), rc;

        if (root < 0)
            return root;
        rc = vd_blu_analyze(&m->blu, m->nbody, m->blk_rowptr, m->blk_col, root, err, errlen);
        if (rc)
            return rc;
    }
    m->frozen = true;
    /* redundant joints: the rank of G at the initial state (needs the frozen model) */
    {
        int rc = vd_joint_check(m, &m->err_joint, err, errlen);

        if (!rc)
            rc = vd_csb_analyze(m, err, errlen); /* the structured solve of the joints */
        if (rc) {
            m->frozen = false;
            return rc;
        }
    }
    /* the CE or TA form: the tree of the frozen model (its markers' CoM offsets, its joints) */
    {
        int rc = vd_model_set_formulation(m, m->opt.formulation, err, errlen);

        if (rc)
            m->frozen = false;
        return rc;
    }
}

int vd_model_set_formulation(struct vd_model *m, int form, char *err, size_t errlen)
{
    vd_ce_free(m->ce);
    m->ce = NULL;
    vd_ta_free(m->ta);
    m->ta = NULL;
    m->opt.formulation = form;
    if (form == VD_FORM_FA)
        return 0;
    if (form != VD_FORM_CE && form != VD_FORM_TA) {
        m->opt.formulation = VD_FORM_FA;
        snprintf(err, errlen, "solver.formulation: unknown form %d", form);
        return -EINVAL;
    }
    if (m->opt.method != VD_METHOD_LIE && m->opt.method != VD_METHOD_LSRT2) {
        m->opt.formulation = VD_FORM_FA;
        snprintf(err, errlen, "solver.formulation %s: method lie or lsrt2",
                 form == VD_FORM_CE ? "ce" : "ta");
        return -EINVAL;
    }
    if (form == VD_FORM_CE)
        m->ce = vd_ce_build(m, m->opt.weld, err, errlen);
    else
        m->ta = vd_ta_build(m, m->opt.weld, err, errlen);
    if (m->ce || m->ta)
        return 0;
    /* an error about one corner ("formulation ce: <corner>: ...") points at its first joint
     * (the loader shows the template that made it) */
    if (form == VD_FORM_CE && !strncmp(err, "formulation ce: ", 16)) {
        const char *c = err + 16, *e = strchr(c, ':');
        const size_t n = e ? (size_t)(e - c) : 0;

        for (int j = 0; n && n < VD_NAME_MAX && j < m->njoint && m->err_joint < 0; j++)
            if (!strncmp(m->joint[j].name, c, n) && m->joint[j].name[n] == '.')
                m->err_joint = j;
    }
    m->opt.formulation = VD_FORM_FA;
    return -EINVAL;
}
