/* core/treeform.c - the pieces the CE and TA forms share (treeform.h). */
#include "treeform.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "kinematics.h"
#include "vdmath.h"

void vd_tf_com_pose(const struct vd_model *m, int b, double A[9], double x[3])
{
    const double *p = m->body[b].pose0;
    double t[3];

    vdu_cardan_zyx(A, p[3], p[4], p[5]);
    vdu_mat3_vec(t, A, m->body[b].com);
    vdu_add3(x, p, t);
}

void vd_tf_tbody(const struct vd_model *m, int b, int p, struct vd_tree_body *tb)
{
    double Ab[9], xb[3], Ap[9], xp[3], t[3];

    memset(tb, 0, sizeof(*tb));
    tb->mass = m->body[b].mass;
    memcpy(tb->inertia, m->body[b].inertia, sizeof(tb->inertia));
    vd_tf_com_pose(m, b, Ab, xb);
    vd_tf_com_pose(m, p, Ap, xp);
    vdu_mat3t_mul(tb->A0, Ap, Ab);
    vdu_sub3(t, xb, xp);
    vdu_mat3t_vec(tb->x0, Ap, t);
}

void vd_tf_axrot(double R[9], const double a[3], double ang)
{
    double K[9], K2[9];
    const double sn = sin(ang), omc = 1.0 - cos(ang);

    vdu_skew(K, a);
    vdu_mat3_mul(K2, K, K);
    for (int i = 0; i < 9; i++)
        R[i] = (i % 4 == 0 ? 1.0 : 0.0) + sn * K[i] + omc * K2[i];
}

double vd_tf_axis_angle(const double R[9], const double a[3])
{
    const double v[3] = {0.5 * (R[7] - R[5]), 0.5 * (R[2] - R[6]), 0.5 * (R[3] - R[1])};

    return atan2(vdu_dot3(v, a), 0.5 * (R[0] + R[4] + R[8] - 1.0));
}

void vd_tf_body_jac(const struct vd_tree *t, const struct vd_tree_data *td, int tb, double *Jb)
{
    const double *x = td->x + 3 * tb;

    memset(Jb, 0, (size_t)(6 * t->n) * sizeof(double));
    for (int p = tb; p >= 0;) {
        const struct vd_tree_node *n = &t->node[t->body[p].node];
        const double *S = td->S + 6 * VD_TREE_MAXD * p;

        for (int j = 0; j < n->nd; j++) {
            double *c = Jb + 6 * (n->off + j), w[3];

            vdu_cross3(w, S + 6 * j, x);
            vdu_add3(c, S + 6 * j + 3, w);
            memcpy(c + 3, S + 6 * j, 3 * sizeof(double));
        }
        p = n->parent;
    }
}

/* the most coordinates on one body's path to the root (the trees here: 6 root + a corner's
 * 5 + the steering's 5) */
#define VD_TF_MAXPATH 128

/* the coordinates that move tree body tb (its path to the root), ascending: the path's nodes
 * from the root down (a node's coordinates follow its parent's: vd_tree_add numbers them in
 * the order the nodes are added, parents first), sorted should a tree ever number them
 * otherwise; their count, or -1 when more than cap */
static int path_coords(const struct vd_tree *t, int tb, int *idx, int cap)
{
    int k = 0, nn = 0, path[VD_TF_MAXPATH];

    for (int p = tb; p >= 0;) {
        const int in = t->body[p].node;

        if (nn == VD_TF_MAXPATH)
            return -1;
        path[nn++] = in;
        p = t->node[in].parent;
    }
    for (int i = nn - 1; i >= 0; i--) {
        const struct vd_tree_node *n = &t->node[path[i]];

        if (k + n->nd > cap)
            return -1;
        for (int j = 0; j < n->nd; j++)
            idx[k++] = n->off + j;
    }
    for (int a = 1; a < k; a++)
        for (int b = a; b > 0 && idx[b - 1] > idx[b]; b--) {
            const int x = idx[b];

            idx[b] = idx[b - 1];
            idx[b - 1] = x;
        }
    return k;
}

int vd_tf_tyres(const struct vd_model *m, const struct vd_tree *t, const struct vd_tree_data *td,
                const int *model_tb, const struct vd_data *d, double c1, const double *u,
                const double *gz, double *S, double *rhs, double *Jb, double *Jzt_all,
                double *Gq_all, double *Gu_all, double *Dz_all)
{
    const int N = t->n;
    const double c12 = c1 * c1;

    for (int k = 0; k < m->ntire; k++) {
        const int tb = model_tb[m->marker[m->tire[k].marker].body];
        const double *A = td->A + 9 * tb, *Jz = d->Jz + 12 * k, *Gp = d->Gp + 12 * k;
        const double *Gv = d->Gv + 12 * k, *Gz = d->Gz + 4 * k;
        double *Jzt = Jzt_all + 2 * N * k, *Gq = Gq_all + 2 * N * k, *Gu = Gu_all + 2 * N * k;
        double *Dz = Dz_all + 4 * k, D[4], det;
        const int zo = m->tire[k].zoff;
        /* the tyre's rows and columns are zero off the wheel's path to the root (its body
         * Jacobian's columns): the products below run over the path's np coordinates only
         * (ascending, the order of the full loops, whose other terms are exact zeros) */
        int idx[VD_TF_MAXPATH], np = path_coords(t, tb, idx, VD_TF_MAXPATH);

        if (np < 0)
            return -EDOM; /* a path of more coordinates than any tree rtvd builds */
        vd_tf_body_jac(t, td, tb, Jb);
        memset(Gq, 0, 2 * (size_t)N * sizeof(double));
        memset(Gu, 0, 2 * (size_t)N * sizeof(double));
        memset(Jzt, 0, 2 * (size_t)N * sizeof(double));
        for (int a = 0; a < np; a++) {
            const int c = idx[a];
            const double *jp = Jb + 6 * c;
            double jv[6];

            memcpy(jv, jp, 3 * sizeof(double));
            vdu_mat3t_vec(jv + 3, A, jp + 3); /* omega_body = A^T dpi */
            for (int r = 0; r < 2; r++) {
                double gq = 0.0, gu = 0.0, jz = 0.0;

                for (int i = 0; i < 6; i++) {
                    gq += Gp[6 * r + i] * jp[i];
                    gu += Gv[6 * r + i] * jv[i];
                    jz += jv[i] * Jz[i + 6 * r];
                }
                Gq[r + 2 * c] = gq;
                Gu[r + 2 * c] = gu;
                Jzt[c + N * r] = jz;
            }
        }
        D[0] = 1.0 - c1 * Gz[0];
        D[1] = -c1 * Gz[1];
        D[2] = -c1 * Gz[2];
        D[3] = 1.0 - c1 * Gz[3];
        det = D[0] * D[3] - D[1] * D[2];
        if (!(fabs(det) > 0.0))
            return -EDOM;
        Dz[0] = D[3] / det;
        Dz[1] = -D[1] / det;
        Dz[2] = -D[2] / det;
        Dz[3] = D[0] / det;
        if (rhs) {
            /* rz = h g + h^2 Gq u */
            double rz[2], y[2];

            for (int r = 0; r < 2; r++) {
                double s = 0.0;

                for (int a = 0; a < np; a++)
                    s += Gq[r + 2 * idx[a]] * u[idx[a]];
                rz[r] = c1 * gz[zo + r] + c12 * s;
            }
            y[0] = Dz[0] * rz[0] + Dz[1] * rz[1];
            y[1] = Dz[2] * rz[0] + Dz[3] * rz[1];
            for (int a = 0; a < np; a++) {
                const int i = idx[a];

                rhs[i] += c1 * (Jzt[i] * y[0] + Jzt[i + N] * y[1]);
            }
        }
        /* S -= c1 Jzt Dz C, C = c1 Gu + c1^2 Gq */
        for (int b = 0; b < np; b++) {
            const int c = idx[b];
            const double x0 = c1 * Gu[2 * c] + c12 * Gq[2 * c];
            const double x1 = c1 * Gu[1 + 2 * c] + c12 * Gq[1 + 2 * c];
            const double e0 = Dz[0] * x0 + Dz[1] * x1, e1 = Dz[2] * x0 + Dz[3] * x1;

            for (int a = 0; a < np; a++) {
                const int i = idx[a];

                S[i + N * c] -= c1 * (Jzt[i] * e0 + Jzt[i + N] * e1);
            }
        }
    }
    return 0;
}

int64_t vd_tf_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts); /* vDSO: no syscall */
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void vd_tf_tree_h(const struct vd_model *m, const int *model_tb, const double *hm, double *h,
                  struct vd_data *d, bool blk)
{
    for (int b = 0; b < m->nbody; b++) {
        const struct vd_body *bd = &m->body[b];
        const double *w = d->v + 6 * b + 3;
        double Iw[3], g[3], Sw[9], SI[9], SIw[9], *B = d->Jvb + 36 * m->blk_diag[b];
        double *hb = h + 6 * model_tb[b];

        vdu_mat3_vec(Iw, bd->inertia, w);
        vdu_cross3(g, w, Iw);
        memcpy(hb, hm + 6 * b, 6 * sizeof(double));
        vdu_add3(hb + 3, hb + 3, g);
        if (!blk)
            continue;
        vdu_skew(Sw, w);
        vdu_mat3_mul(SI, Sw, bd->inertia);
        vdu_skew(SIw, Iw);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                VD_B6(B, 3 + i, 3 + j) += SI[3 * i + j] - SIw[3 * i + j];
    }
}

void vd_tf_tree_h_perm(const struct vd_model *m, const int *model_tb, const double *hm, double *h)
{
    for (int b = 0; b < m->nbody; b++)
        memcpy(h + 6 * model_tb[b], hm + 6 * b, 6 * sizeof(double));
}

void vd_tf_kinv(const struct vd_tree *t, const double *q, const double *x, double *y)
{
    for (int in = 0; in < t->nnode; in++) {
        const struct vd_tree_node *n = &t->node[in];
        const int o = n->off;

        if (n->type == VD_TREE_FREE) {
            double E[9];

            vd_cardan_E(E, q[o + 4], q[o + 5]);
            memcpy(y + o, x + o, 3 * sizeof(double));
            vdu_mat3_vec(y + o + 3, E, x + o + 3);
        } else {
            memcpy(y + o, x + o, (size_t)n->nd * sizeof(double));
        }
    }
}

void vd_tf_stage_rhs(const struct vd_model *m, const struct vd_tree_data *td,
                     const struct vd_data *d, int N, const double *Gq, const double *Gu,
                     const double *Dz, const double *Jzt, double c1, const double *Mphi,
                     const double *w, const double *sv, const double *sz, const double *g,
                     double *rz, double *x)
{
    for (int i = 0; i < N; i++) {
        double s = Mphi[i];

        for (int k = 0; k < N; k++)
            s += td->Jq[i + N * k] * w[k] + (sv ? td->Ju[i + N * k] * sv[k] : 0.0);
        x[i] = s;
    }
    for (int k = 0; k < m->ntire; k++) {
        const double *gq = Gq + 2 * N * k, *gu = Gu + 2 * N * k, *D = Dz + 4 * k;
        const double *jz = Jzt + 2 * N * k, *Gz = d->Gz + 4 * k;
        const int zo = m->tire[k].zoff;
        double *r0 = rz + 2 * k, y[2];

        for (int r = 0; r < 2; r++) {
            double s = g[zo + r];

            for (int c = 0; c < N; c++)
                s += gq[r + 2 * c] * w[c] + (sv ? gu[r + 2 * c] * sv[c] : 0.0);
            if (sz)
                s += Gz[2 * r] * sz[zo] + Gz[2 * r + 1] * sz[zo + 1];
            r0[r] = s;
        }
        y[0] = c1 * (D[0] * r0[0] + D[1] * r0[1]) + (sz ? sz[zo] : 0.0);
        y[1] = c1 * (D[2] * r0[0] + D[3] * r0[1]) + (sz ? sz[zo + 1] : 0.0);
        for (int i = 0; i < N; i++)
            x[i] += jz[i] * y[0] + jz[i + N] * y[1];
    }
}

void vd_tf_lie_dz(const struct vd_model *m, int N, const double *Gq, const double *Gu,
                  const double *Dz, double dt, const double *u, const double *du, const double *gz,
                  double *z)
{
    const double h2 = dt * dt;

    for (int k = 0; k < m->ntire; k++) {
        const double *gq = Gq + 2 * N * k, *gu = Gu + 2 * N * k, *D = Dz + 4 * k;
        const int zo = m->tire[k].zoff;
        double rz[2];

        for (int r = 0; r < 2; r++) {
            double s = 0.0;

            for (int c = 0; c < N; c++)
                s += h2 * gq[r + 2 * c] * u[c] + (dt * gu[r + 2 * c] + h2 * gq[r + 2 * c]) * du[c];
            rz[r] = dt * gz[zo + r] + s;
        }
        z[zo] += D[0] * rz[0] + D[1] * rz[1];
        z[zo + 1] += D[2] * rz[0] + D[3] * rz[1];
    }
}

void vd_tf_tyre_dz(const struct vd_model *m, int N, const double *Gq, const double *Gu,
                   const double *Dz, const double *rz, double c1, const double *dv, double *dz)
{
    for (int k = 0; k < m->ntire; k++) {
        const double *gq = Gq + 2 * N * k, *gu = Gu + 2 * N * k, *D = Dz + 4 * k;
        const double *r0 = rz + 2 * k;
        const int zo = m->tire[k].zoff;
        double x[2];

        for (int r = 0; r < 2; r++) {
            double s = r0[r];

            for (int c = 0; c < N; c++)
                s += (c1 * gu[r + 2 * c] + c1 * c1 * gq[r + 2 * c]) * dv[c];
            x[r] = s;
        }
        dz[zo] = D[0] * x[0] + D[1] * x[1];
        dz[zo + 1] = D[2] * x[0] + D[3] * x[1];
    }
}
