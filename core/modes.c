/* core/modes.c - vibration modes about a static equilibrium (see modes.h). */
#include "modes.h"

#include <complex.h>
#include <errno.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"
#include "joint.h"
#include "kinematics.h"

const char *vd_mode_coord_name(int coord)
{
    static const char *const n[6] = {"x", "y", "z", "rx", "ry", "rz"};

    return coord >= 0 && coord < 6 ? n[coord] : "?";
}

/* length of the group prefix of a body name: up to the first '.', or the whole name */
static size_t group_len(const char *name)
{
    const char *dot = strchr(name, '.');

    return dot ? (size_t)(dot - name) : strlen(name);
}

static bool same_group(const char *a, const char *b)
{
    size_t la = group_len(a);

    return la == group_len(b) && !strncmp(a, b, la);
}

/* a corner group "<axle>_l" / "<axle>_r": the length of <axle>, else 0 */
static size_t corner_axle(const char *name)
{
    size_t n = group_len(name);

    if (n > 2 && name[n - 2] == '_' && (name[n - 1] == 'l' || name[n - 1] == 'r'))
        return n - 2;
    return 0;
}

/* the body of the mirror corner with the same part name, or -1 */
static int mirror_body(const struct vd_model *m, int b)
{
    const char *n = m->body[b].name;
    size_t ax = corner_axle(n);
    char want[VD_NAME_MAX];

    if (!ax)
        return -1;
    snprintf(want, sizeof(want), "%s", n);
    want[ax + 1] = n[ax + 1] == 'l' ? 'r' : 'l';
    for (int i = 0; i < m->nbody; i++)
        if (!strcmp(m->body[i].name, want))
            return i;
    return -1;
}

/* what a coordinate of a corner's wheel means: translations are global, rotation about the
 * body x axis is the spin; the wheel's other two axes turn with the spin, so a rotation about
 * them is a steer or a camber by the global direction of that axis (Ab: the wheel's rotation
 * matrix, row-major). The other parts are named by part and coordinate (a knuckle on its
 * joints) */
static const char *corner_motion(const char *part, int c, const double *Ab)
{
    static const char *const wheel[4] = {"wheel fore-aft", "wheel lateral", "wheel hop",
                                         "wheel spin"};

    if (strcmp(part, "wheel"))
        return NULL;
    if (c < 4)
        return wheel[c];
    return fabs(Ab[6 + c - 3]) > fabs(Ab[c - 3]) ? "steer" : "wheel camber";
}

static void name_mode(const struct vd_model *m, const struct vd_data *d, const double *w,
                      const double *qr, const double *qi, struct vd_mode *md)
{
    static const char *const body_coord[6] = {"fore-aft", "lateral", "bounce",
                                              "roll",     "pitch",   "yaw"};
    const int b = md->body, c = md->coord;
    const char *n = m->body[b].name, *part = strchr(n, '.');
    size_t gl = group_len(n), ax = corner_axle(n);
    int mb = mirror_body(m, b);
    double gm = 0.0;

    part = part ? part + 1 : NULL;
    if (!part) {
        /* a body of its own (the chassis, the engine) */
        snprintf(md->name, sizeof(md->name), "%s %s", !strcmp(n, "chassis") ? "body" : n,
                 body_coord[c]);
        return;
    }
    if (mb >= 0)
        for (int i = 0; i < m->nbody; i++)
            if (same_group(m->body[i].name, m->body[mb].name))
                gm += w[i];
    if (ax) {
        const char *what = corner_motion(part, c, d->A + 9 * b);
        char lbl[40];

        if (what && c == 2) {
            /* wheel hop moves the knuckle with the wheel; a wheel moving against its knuckle
             * (hundreds of Hz, the bearing's radial rate) is not wheel hop */
            char kn[VD_NAME_MAX];
            int k;

            snprintf(kn, sizeof(kn), "%.*s.knuckle", (int)gl, n);
            k = vd_model_find_body(m, kn);
            if (k >= 0 && qr[6 * k + 2] * qr[6 * b + 2] + qi[6 * k + 2] * qi[6 * b + 2] < 0.0)
                what = "wheel on bearing";
        }
        if (what)
            snprintf(lbl, sizeof(lbl), "%s", what);
        else
            snprintf(lbl, sizeof(lbl), "%.20s %s", part, vd_mode_coord_name(c));
        if (mb >= 0 && gm >= 0.3 * md->group_share) {
            /* both corners of the axle take part: in phase when the dominant coordinate
             * moves the same way on both (hop: both up; steer: both left) */
            const int i = 6 * b + c, j = 6 * mb + c;
            double dotp = qr[i] * qr[j] + qi[i] * qi[j];

            snprintf(md->name, sizeof(md->name), "%s %.*s (%s)", lbl, (int)ax, n,
                     dotp >= 0.0 ? "in phase" : "anti-phase");
        } else {
            snprintf(md->name, sizeof(md->name), "%s %.*s", lbl, (int)gl, n);
        }
        return;
    }
    if (!strncmp(n, "steering", gl) && gl == 8) {
        snprintf(md->name, sizeof(md->name), "steering (%.24s %s)", part, vd_mode_coord_name(c));
        return;
    }
    snprintf(md->name, sizeof(md->name), "%.*s %.24s %s", (int)gl, n, part, vd_mode_coord_name(c));
}

/* a coordinate in which a vehicle on tyres may move without stiffness: every body's x, y
 * and rotation about its z axis (the whole vehicle's travel and heading on a flat road) and
 * the spin of the parts that roll with the wheels (x axis along the spin: wheels, shafts) */
static bool rigid_coord(const struct vd_model *m, int b, int k)
{
    const char *part = strrchr(m->body[b].name, '.');

    if (k == 0 || k == 1 || k == 5)
        return true;
    return k == 3 && part && (!strcmp(part, ".wheel") || !strcmp(part, ".shaft"));
}

/* w (nbody), md->body, coord, top, share, group_share from the displacement q (+ i qi) */
static void weigh(const struct vd_model *m, const double *qr, const double *qi, double *w,
                  struct vd_mode *md)
{
    double tot = 0.0, best = -1.0, g = 0.0;

    for (int b = 0; b < m->nbody; b++) {
        const double *In = m->body[b].inertia;

        w[b] = 0.0;
        for (int k = 0; k < 6; k++) {
            const int i = 6 * b + k;
            double a2 = qr[i] * qr[i] + (qi ? qi[i] * qi[i] : 0.0);
            double wk = (k < 3 ? m->body[b].mass : In[4 * (k - 3)]) * a2;

            w[b] += wk;
            if (rigid_coord(m, b, k))
                md->rigid_share += wk;
            for (int t = 0; t < 4; t++) {
                if (wk > md->top[t].share) {
                    memmove(&md->top[t + 1], &md->top[t], (size_t)(3 - t) * sizeof(md->top[0]));
                    md->top[t].share = wk;
                    md->top[t].body = b;
                    md->top[t].coord = k;
                    break;
                }
            }
            if (wk > best) {
                best = wk;
                md->body = b;
                md->coord = k;
            }
        }
        tot += w[b];
    }
    if (!(tot > 0.0))
        return;
    for (int b = 0; b < m->nbody; b++)
        if (same_group(m->body[b].name, m->body[md->body].name))
            g += w[b];
    md->share = w[md->body] / tot;
    md->group_share = g / tot;
    md->rigid_share /= tot;
    for (int t = 0; t < 4; t++)
        md->top[t].share /= tot;
    for (int b = 0; b < m->nbody; b++)
        w[b] /= tot;
}

/* the share of the tyres' horizontal carcass stiffness in the eigenvalue lambda: with the
 * coupling Jz (carcass deflection states -> forces) scaled by s, d ln |lambda|^2 / d ln s at
 * s = 1 = 2 Re(dlambda / lambda), dlambda = u^H A_Jz x / u^H B x (first-order perturbation
 * of a simple eigenvalue, u and x its left and right eigenvectors). For an undamped system
 * it is the share of the mode's strain energy in the tyres' horizontal springs */
static double tire_share(const struct vd_model *m, const struct vd_data *d, int N, const double *ur,
                         const double *ui, const double *xr, const double *xi,
                         double complex lambda)
{
    const int nq = m->nq;
    double complex num = 0.0, den = 0.0;

#define X(i)  (xr[i] + I * (xi ? xi[i] : 0.0))
#define UC(i) (ur[i] - I * (ui ? ui[i] : 0.0))
    if (!(cabs(lambda) > 0.0))
        return 0.0;
    for (int i = 0; i < nq; i++)
        den += UC(i) * X(i);
    for (int i = 2 * nq; i < N; i++)
        den += UC(i) * X(i);
    for (int b = 0; b < m->nbody; b++) {
        const int o = nq + 6 * b;
        const double *In = m->body[b].inertia;

        for (int k = 0; k < 3; k++)
            den += UC(o + k) * m->body[b].mass * X(o + k);
        for (int a = 0; a < 3; a++)
            for (int k = 0; k < 3; k++)
                den += UC(o + 3 + a) * In[3 * a + k] * X(o + 3 + k);
    }
    for (int e = 0; e < m->ntire; e++) {
        const int b = m->marker[m->tire[e].marker].body, zo = 2 * nq + m->tire[e].zoff;
        const double *Jz = d->Jz + 12 * e;

        if (b < 0)
            continue;
        for (int c = 0; c < 2; c++)
            for (int k = 0; k < 6; k++)
                num += UC(nq + 6 * b + k) * Jz[6 * c + k] * X(zo + c);
    }
#undef X
#undef UC
    if (!(cabs(den) > 0.0))
        return 0.0;
    return 2.0 * creal(num / den / lambda);
}

static int cmp_mode(const void *a, const void *b)
{
    const struct vd_mode *x = a, *y = b;
    int kx = x->kind == VD_MODE_ZERO ? 0 : 1, ky = y->kind == VD_MODE_ZERO ? 0 : 1;

    if (kx != ky)
        return kx - ky;
    return (x->freq > y->freq) - (x->freq < y->freq);
}

/* ---- models with joints: the modes on the constraint manifold ------------------------------
 * The linearization is reduced to the null space of G at the state: q = R s, v = R s', with R
 * (nq x f) orthonormal, the last f = nq - nc columns of the Q of a QR of G^T (the loader
 * refuses redundant joints: G has full rank nc). The constraint forces add their geometric
 * stiffness: at a static equilibrium h = G^T lambda (lambda by least squares), and the reduced
 * stiffness is R^T (Jr K - d(G^T lambda)/dq) R with lambda frozen (the derivatives of R^T and
 * the curvature of the manifold multiply h - G^T lambda = 0). Without that term a pendulum
 * in Cartesian coordinates would have no stiffness at all. d(G^T lambda)/dq R by central
 * differences along the columns of R (a step of 1e-6 in metres and radians: truncation
 * O(1e-12) relative, rounding O(u / 1e-6) ~ 1e-10 relative). The reduced pencil is
 * (T^T A T, T^T B T), T = diag(R, R, I_nz), written over A and B with leading dimension Nr;
 * T is returned (N x Nr) so that the eigenvectors go back as T y: R^T R = I keeps u^H B x and
 * the other terms of tire_share unchanged. 0, -ENOMEM or -EDOM */
#define GEO_EPS 1e-6

static int reduce(const struct vd_model *m, struct vd_data *d, const double *h, int N, double *A,
                  double *B, double **Tout, int *Nr)
{
    const int nq = m->nq, nc = m->nc, f = nq - nc, nz = m->nz, n2 = 2 * f + nz;
    const size_t nqs = (size_t)nq, ncs = (size_t)nc;
    struct vd_data *d2 = vd_data_new(m);
    double *G = calloc(ncs * nqs, sizeof(double)), *Q = calloc(nqs * nqs, sizeof(double));
    double *tau = calloc(nqs, sizeof(double)), *GG = calloc(ncs * ncs + 1, sizeof(double));
    double *lam = calloc(ncs + 1, sizeof(double)),
           *DR = calloc(nqs * (size_t)(f + 1), sizeof(double));
    double *rp = calloc(nqs, sizeof(double)),
           *y[2] = {calloc(nqs, sizeof(double)), calloc(nqs, sizeof(double))};
    double *T = calloc((size_t)N * (size_t)n2, sizeof(double));
    double *AT = calloc((size_t)N * (size_t)n2, sizeof(double)), *work = NULL, wq;
    lapack_int info, lwork;
    int rc = 0;

    *Tout = NULL;
    if (!d2 || !G || !Q || !tau || !GG || !lam || !DR || !rp || !y[0] || !y[1] || !T || !AT) {
        rc = -ENOMEM;
        goto out_free;
    }
    vd_kinematics(m, d2, d->r, d->v);
    vd_joint_eval(m, d2, d->u, false);
    vd_joint_G_dense(m, d2, G, nc);
    /* Q of G^T = Q [Rg; 0] */
    for (int i = 0; i < nq; i++)
        for (int k = 0; k < nc; k++)
            Q[(size_t)i + nqs * (size_t)k] = G[(size_t)k + ncs * (size_t)i];
    info = LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, nq, nc, Q, nq, tau, &wq, -1);
    lwork = info == 0 ? (lapack_int)wq : 64 * nq;
    info = LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, nq, nq, nc, Q, nq, tau, &wq, -1);
    if (info == 0 && (lapack_int)wq > lwork)
        lwork = (lapack_int)wq;
    work = malloc((size_t)lwork * sizeof(double));
    if (!work) {
        rc = -ENOMEM;
        goto out_free;
    }
    if (LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, nq, nc, Q, nq, tau, work, lwork) ||
        LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, nq, nq, nc, Q, nq, tau, work, lwork)) {
        rc = -EDOM;
        goto out_free;
    }
    /* lambda: G G^T lambda = G h */
    for (int i = 0; i < nc; i++) {
        for (int k = 0; k < nc; k++) {
            double a = 0.0;

            for (int c = 0; c < nq; c++)
                a += G[(size_t)i + ncs * (size_t)c] * G[(size_t)k + ncs * (size_t)c];
            GG[(size_t)i + ncs * (size_t)k] = a;
        }
        for (int c = 0; c < nq; c++)
            lam[i] += G[(size_t)i + ncs * (size_t)c] * h[c];
    }
    if (LAPACKE_dposv_work(LAPACK_COL_MAJOR, 'L', nc, 1, GG, nc, lam, nc)) {
        rc = -EDOM;
        goto out_free;
    }
    /* d(G^T lambda)/dq along each column of R = Q[:, nc + j]: positions += e q, Cardan angles
     * += e Ei phi (the body rotation phi in body axes) */
    for (int j = 0; j < f; j++) {
        const double *Rj = Q + nqs * (size_t)(nc + j);

        for (int sg = 0; sg < 2; sg++) {
            const double e = sg ? -GEO_EPS : GEO_EPS;

            memcpy(rp, d->r, nqs * sizeof(double));
            for (int b = 0; b < m->nbody; b++) {
                const double *Ei = d->Eilin + 9 * b, *q = Rj + 6 * b;

                for (int k = 0; k < 3; k++)
                    rp[6 * b + k] += e * q[k];
                for (int a = 0; a < 3; a++)
                    rp[6 * b + 3 + a] +=
                        e * (Ei[3 * a] * q[3] + Ei[3 * a + 1] * q[4] + Ei[3 * a + 2] * q[5]);
            }
            vd_kinematics(m, d2, rp, d->v);
            vd_joint_eval(m, d2, d->u, false);
            memset(y[sg], 0, nqs * sizeof(double));
            vd_joint_Gt_mul_add(m, d2, lam, y[sg]);
            if (!isfinite(y[sg][0])) {
                rc = -EDOM;
                goto out_free;
            }
        }
        for (int i = 0; i < nq; i++)
            DR[(size_t)i + nqs * (size_t)j] = (y[0][i] - y[1][i]) / (2.0 * GEO_EPS);
    }
    /* T = diag(R, R, I) */
    for (int j = 0; j < f; j++)
        for (int i = 0; i < nq; i++) {
            const double r = Q[(size_t)i + nqs * (size_t)(nc + j)];

            T[(size_t)i + (size_t)N * (size_t)j] = r;
            T[(size_t)(nq + i) + (size_t)N * (size_t)(f + j)] = r;
        }
    for (int i = 0; i < nz; i++)
        T[(size_t)(2 * nq + i) + (size_t)N * (size_t)(2 * f + i)] = 1.0;
    /* A <- T^T A T, B <- T^T B T (leading dimension n2), then the geometric stiffness */
    for (int pass = 0; pass < 2; pass++) {
        double *X = pass ? B : A;

        for (int c = 0; c < n2; c++)
            for (int i = 0; i < N; i++) {
                double a = 0.0;

                for (int k = 0; k < N; k++)
                    a +=
                        X[(size_t)i + (size_t)N * (size_t)k] * T[(size_t)k + (size_t)N * (size_t)c];
                AT[(size_t)i + (size_t)N * (size_t)c] = a;
            }
        for (int c = 0; c < n2; c++)
            for (int i = 0; i < n2; i++) {
                double a = 0.0;

                for (int k = 0; k < N; k++)
                    a += T[(size_t)k + (size_t)N * (size_t)i] *
                         AT[(size_t)k + (size_t)N * (size_t)c];
                X[(size_t)i + (size_t)n2 * (size_t)c] = a;
            }
    }
    for (int j = 0; j < f; j++)
        for (int i = 0; i < f; i++) {
            double a = 0.0;

            for (int k = 0; k < nq; k++)
                a += Q[(size_t)k + nqs * (size_t)(nc + i)] * DR[(size_t)k + nqs * (size_t)j];
            A[(size_t)(f + i) + (size_t)n2 * (size_t)j] -= a;
        }
    *Tout = T;
    T = NULL;
    *Nr = n2;
out_free:
    free(work);
    free(AT);
    free(T);
    free(y[1]);
    free(y[0]);
    free(rp);
    free(DR);
    free(lam);
    free(GG);
    free(tau);
    free(Q);
    free(G);
    vd_data_free(d2);
    return rc;
}

/* the eigenvectors of the reduced pencil back to the full coordinates: X <- T X (N x Nr) */
static int expand(double *X, const double *T, int N, int Nr)
{
    double *Y = malloc((size_t)N * (size_t)Nr * sizeof(double));

    if (!Y)
        return -ENOMEM;
    for (int c = 0; c < Nr; c++)
        for (int i = 0; i < N; i++) {
            double a = 0.0;

            for (int k = 0; k < Nr; k++)
                a += T[(size_t)i + (size_t)N * (size_t)k] * X[(size_t)k + (size_t)Nr * (size_t)c];
            Y[(size_t)i + (size_t)N * (size_t)c] = a;
        }
    memcpy(X, Y, (size_t)N * (size_t)Nr * sizeof(double));
    free(Y);
    return 0;
}

int vd_modes(const struct vd_model *m, struct vd_data *d, double zero_hz, bool undamped,
             struct vd_mode *out, int max)
{
    const int nq = m->nq, nz = m->nz, N = 2 * nq + nz;
    const size_t NN = (size_t)N * (size_t)N, nqs = (size_t)nq;
    double *qz = NULL, *qzi = NULL, *U = NULL, *A = NULL, *B = NULL, *Jr = NULL, *Jv = NULL,
           *h = NULL, *vz = NULL, *ar = NULL, *ai = NULL, *be = NULL, *V = NULL, *work = NULL,
           *w = NULL, *T = NULL, wq;
    lapack_int info, lwork;
    int nout = 0, rc = 0, Nr = N;

    A = calloc(NN, sizeof(double));
    B = calloc(NN, sizeof(double));
    V = calloc(NN, sizeof(double));
    U = calloc(NN, sizeof(double));
    Jr = calloc(nqs * nqs, sizeof(double));
    Jv = calloc(nqs * nqs, sizeof(double));
    h = calloc(nqs, sizeof(double));
    vz = calloc(nqs, sizeof(double));
    ar = calloc((size_t)N, sizeof(double));
    ai = calloc((size_t)N, sizeof(double));
    be = calloc((size_t)N, sizeof(double));
    w = calloc((size_t)m->nbody, sizeof(double));
    qz = calloc(nqs, sizeof(double));
    qzi = calloc(nqs, sizeof(double));
    if (!qz || !qzi || !U || !A || !B || !V || !Jr || !Jv || !h || !vz || !ar || !ai || !be || !w) {
        rc = -ENOMEM;
        goto out_free;
    }
    /* the analytic linearization at the state (r, v, z, u) of d */
    if (vd_eval(m, d, d->r, d->v, d->u, h, true)) {
        rc = -EDOM;
        goto out_free;
    }
    vd_jac_dense(m, d, Jr, Jv, NULL);
#define AE(i, j) A[(size_t)(i) + (size_t)N * (size_t)(j)]
#define BE(i, j) B[(size_t)(i) + (size_t)N * (size_t)(j)]
    for (int i = 0; i < nq; i++) {
        AE(i, nq + i) = 1.0; /* q' = v */
        BE(i, i) = 1.0;
    }
    /* a small rotation phi in body axes of a body turning at omega (body axes): R = R0
     * exp(phi), phi' = delta omega - omega x phi (0 at rest; a wheel's spin at speed) */
    for (int b = 0; b < m->nbody; b++) {
        const double *w0 = d->v + 6 * b + 3;
        const int o = 6 * b + 3;

        AE(o + 0, o + 1) += w0[2];
        AE(o + 0, o + 2) -= w0[1];
        AE(o + 1, o + 0) -= w0[2];
        AE(o + 1, o + 2) += w0[0];
        AE(o + 2, o + 0) += w0[1];
        AE(o + 2, o + 1) -= w0[0];
    }
    for (int i = 0; i < nz; i++)
        BE(2 * nq + i, 2 * nq + i) = 1.0;
    for (int b = 0; b < m->nbody; b++) {
        const int o = nq + 6 * b;
        const double *In = m->body[b].inertia, *Ei = d->Eilin + 9 * b;

        for (int k = 0; k < 3; k++)
            BE(o + k, o + k) = m->body[b].mass;
        for (int a = 0; a < 3; a++)
            for (int k = 0; k < 3; k++)
                BE(o + 3 + a, o + 3 + k) = In[3 * a + k];
        /* Jr K: the rotation columns of Jr (Cardan angles) times Ei (angle rates per body
         * rate), so that the columns act on small rotations about the body axes */
        for (int i = 0; i < nq; i++) {
            for (int k = 0; k < 3; k++)
                AE(nq + i, 6 * b + k) = Jr[(size_t)i + nqs * (size_t)(6 * b + k)];
            for (int c = 0; c < 3; c++) {
                double s = 0.0;

                for (int a = 0; a < 3; a++)
                    s += Jr[(size_t)i + nqs * (size_t)(6 * b + 3 + a)] * Ei[3 * a + c];
                AE(nq + i, 6 * b + 3 + c) = s;
            }
        }
    }
    for (size_t j = 0; j < nqs; j++)
        for (size_t i = 0; i < nqs; i++)
            AE(nq + (int)i, nq + (int)j) = undamped ? 0.0 : Jv[i + nqs * j];
    /* tyre states: Jz into the wheel's force rows; Gp (global x, pi) -> (x, body rotation)
     * by the body's rotation matrix (delta pi = A phi) */
    for (int e = 0; e < m->ntire; e++) {
        const int b = m->marker[m->tire[e].marker].body, zo = 2 * nq + m->tire[e].zoff;
        const double *Jz = d->Jz + 12 * e, *Gp = d->Gp + 12 * e, *Gv = d->Gv + 12 * e;
        const double *Gz = d->Gz + 4 * e, *Ab;

        if (b < 0)
            continue;
        Ab = d->A + 9 * b;
        for (int c = 0; c < 2; c++)
            for (int k = 0; k < 6; k++)
                AE(nq + 6 * b + k, zo + c) = Jz[6 * c + k];
        for (int i = 0; i < 2; i++) {
            const double *gp = Gp + 6 * i;

            for (int k = 0; k < 3; k++)
                AE(zo + i, 6 * b + k) = gp[k];
            for (int c = 0; c < 3; c++)
                AE(zo + i, 6 * b + 3 + c) = gp[3] * Ab[c] + gp[4] * Ab[3 + c] + gp[5] * Ab[6 + c];
            for (int k = 0; k < 6; k++)
                AE(zo + i, nq + 6 * b + k) = Gv[6 * i + k];
            for (int c = 0; c < 2; c++)
                AE(zo + i, zo + c) = Gz[2 * i + c];
        }
    }
#undef AE
#undef BE
    /* joints: the pencil on the constraint manifold (Nr = 2 f + nz) */
    if (m->nc > 0) {
        rc = reduce(m, d, h, N, A, B, &T, &Nr);
        if (rc)
            goto out_free;
    }
    /* A y = lambda B y: QZ (dggev), left and right eigenvectors */
    info = LAPACKE_dggev_work(LAPACK_COL_MAJOR, 'V', 'V', Nr, A, Nr, B, Nr, ar, ai, be, U, Nr, V,
                              Nr, &wq, -1);
    lwork = info == 0 ? (lapack_int)wq : 8 * N;
    work = malloc((size_t)lwork * sizeof(double));
    if (!work) {
        rc = -ENOMEM;
        goto out_free;
    }
    info = LAPACKE_dggev_work(LAPACK_COL_MAJOR, 'V', 'V', Nr, A, Nr, B, Nr, ar, ai, be, U, Nr, V,
                              Nr, work, lwork);
    if (info != 0) {
        rc = -ERANGE;
        goto out_free;
    }
    if (T && (expand(U, T, N, Nr) || expand(V, T, N, Nr))) {
        rc = -ENOMEM;
        goto out_free;
    }
    for (int j = 0; j < Nr && nout < max; j++) {
        struct vd_mode *md = &out[nout];
        const double *vr = V + (size_t)N * (size_t)j, *vi = NULL;
        double lr, li, mag, tot = 0.0, ztot = 0.0;
        bool pair = ai[j] > 0.0;

        if (ai[j] < 0.0 || !(fabs(be[j]) > 0.0))
            continue; /* the conjugate of the previous one, or an infinite eigenvalue */
        lr = ar[j] / be[j];
        li = ai[j] / be[j];
        if (pair)
            vi = V + (size_t)N * (size_t)(j + 1);
        memset(md, 0, sizeof(*md));
        md->tire_share =
            tire_share(m, d, N, U + (size_t)N * (size_t)j,
                       pair ? U + (size_t)N * (size_t)(j + 1) : NULL, vr, vi, lr + I * li);
        md->re = lr;
        md->im = fabs(li);
        mag = hypot(lr, li);
        md->freq = mag / (2.0 * M_PI);
        md->zeta = mag > 0.0 ? -lr / mag : 1.0;
        if (md->freq < zero_hz)
            md->kind = VD_MODE_ZERO;
        else if (lr > 1e-9 * mag)
            md->kind = VD_MODE_UNSTABLE;
        else
            md->kind = pair ? VD_MODE_OSC : VD_MODE_REAL;
        for (int i = 0; i < nz; i++) {
            const int k = 2 * nq + i;

            ztot += vr[k] * vr[k] + (vi ? vi[k] * vi[k] : 0.0);
        }
        for (int i = 0; i < nq; i++)
            tot += vr[i] * vr[i] + (vi ? vi[i] * vi[i] : 0.0);
        md->zshare = tot + ztot > 0.0 ? ztot / (tot + ztot) : 0.0;
        /* mass-weighted displacement per body and coordinate, then the name */
        if (md->kind == VD_MODE_ZERO) {
            /* a zero eigenvalue's vector may be the second of a Jordan chain (the velocity of
             * a rigid motion, q = 0): weigh q and v together */
            for (int i = 0; i < nq; i++) {
                qz[i] = hypot(vr[i], vr[nq + i]);
                qzi[i] = vi ? hypot(vi[i], vi[nq + i]) : 0.0;
            }
            weigh(m, qz, qzi, w, md);
        } else {
            weigh(m, vr, vi, w, md);
        }
        if (tot > 0.0)
            name_mode(m, d, w, vr, vi ? vi : vz, md);
        else
            snprintf(md->name, sizeof(md->name), "tyre states");
        if (md->kind != VD_MODE_ZERO && md->tire_share > 0.5 && tot > 0.0) {
            size_t l = strlen(md->name);

            snprintf(md->name + l, sizeof(md->name) - l, " on tyres");
        }
        nout++;
    }
    qsort(out, (size_t)nout, sizeof(*out), cmp_mode);
    rc = nout;
out_free:
    free(T);
    free(qzi);
    free(qz);
    free(work);
    free(w);
    free(be);
    free(ai);
    free(ar);
    free(vz);
    free(h);
    free(Jv);
    free(Jr);
    free(V);
    free(U);
    free(B);
    free(A);
    return rc;
}
