/* tests/core/test_noalloc.c - nothing allocates after init, and nothing faults in a page.
 * malloc & co. are interposed in this executable (symbol interposition also catches the
 * calls made inside liblapacke and libopenblas, which -Wl,--wrap would miss) and forward
 * to glibc's __libc_* entry points. The counter is armed after init; then 10,000 steps of a
 * bushing chain and 3,000 steps of the full sedan (500 on the slow dense path) with a
 * fresh linearization and factorization every step, on the dense and on the structured
 * path, must make zero calls and cause zero minor page faults (getrusage). Not built under
 * ASan/TSan, which replace malloc themselves. */
/* core/ce.h (m->ce->tree->n) before lapacke.h, whose complex.h defines I: a field of
 * struct vd_tree */
#include "core/ce.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <lapacke.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "build_util.h"
#include "check.h"
#include "config/model_yaml.h"
#include "core/csblock.h"
#include "core/csolve.h"
#include "core/data.h"
#include "core/linalg.h"
#include "core/model.h"
#include "core/step.h"
#include "core/tire_env.h"
#include "core/tire_mf.h"

#include "noalloc.h"

/* a chain of nb bodies on nonlinear bushings, p2p spring-dampers and an input: every
 * element type on the RT path */
static struct vd_model *chain(int nb, int method, int stage2)
{
    struct vd_model *m = vd_model_new("chain");
    char err[256], name[32];
    int prev = -1;

    for (int i = 0; i < nb; i++) {
        double pose[6] = {0.3 * i, 0, 0.5, 0, 0, 0};
        struct vd_bushing b;
        struct vd_p2p p;
        int body, ka, kb;

        snprintf(name, sizeof(name), "b%d", i);
        body = bu_body(m, name, 2.0 + i, 0.02, 0.03, 0.04, pose);
        snprintf(name, sizeof(name), "l%d", i);
        ka = bu_marker(m, name, body, -0.15, 0, 0, NULL);
        snprintf(name, sizeof(name), "r%d", i);
        kb = prev < 0 ? bu_marker(m, name, VD_GROUND, -0.15, 0, 0.5, NULL) : prev;
        memset(&b, 0, sizeof(b));
        snprintf(b.name, sizeof(b.name), "bush%d", i);
        b.mk[0] = ka;
        b.mk[1] = kb;
        for (int k = 0; k < 3; k++) {
            b.stiff[k] = bu_progressive(m, 1e6, 2e-3, false, VD_INTERP_PCHIP);
            b.stiff[3 + k] = bu_linear(m, 1e4);
            b.damp[k] = bu_linear(m, 2e3);
            b.damp[3 + k] = bu_linear(m, 10.0);
        }
        vd_model_add_bushing(m, &b);
        memset(&p, 0, sizeof(p));
        snprintf(p.name, sizeof(p.name), "p2p%d", i);
        p.mk[0] = bu_marker(m, "", body, 0, 0, 0.1, NULL);
        p.mk[1] = prev < 0 ? bu_marker(m, "", VD_GROUND, 0, 0, 0.9, NULL)
                           : bu_marker(m, "", body - 1, 0, 0, 0.1, NULL);
        p.has_spring = p.has_damper = p.has_bump = true;
        p.free_length = 0.35;
        p.spring = bu_linear(m, 2e4);
        p.damper = bu_linear(m, 500);
        p.bump_length = 0.25;
        p.bump = bu_progressive(m, 1e5, 0.01, true, VD_INTERP_PCHIP);
        vd_model_add_p2p(m, &p);
        snprintf(name, sizeof(name), "r%d", i);
        prev = bu_marker(m, name, body, 0.15, 0, 0, NULL);
    }
    {
        struct vd_input in;

        memset(&in, 0, sizeof(in));
        snprintf(in.name, sizeof(in.name), "push");
        in.marker = prev;
        in.frame = VD_FRAME_MARKER;
        in.dir[2] = 1.0;
        vd_model_add_input(m, &in);
    }
    m->opt.method = method;
    m->opt.stage2 = stage2;
    m->opt.relin = 1;
    if (vd_model_finalize(m, err, sizeof(err))) {
        fprintf(stderr, "finalize: %s\n", err);
        abort();
    }
    return m;
}

static void sine_input(void *ctx, double t, double *u)
{
    (void)ctx;
    u[0] = 200.0 * sin(20.0 * t);
}

static uint64_t last_nselect; /* selections of independent coordinates in the armed steps */

/* steps of model m (relinearized every step) with the allocator armed: no calls, no faults */
static void run_model(struct vd_model *m, int steps, vd_input_fn fn, void *ctx, const char *what)
{
    struct vd_data *d = vd_data_new(m);
    long f0, f1, c;
    int fails = 0;

    CHECK(d != NULL, "data");
    CHECK(vd_solver_warmup(m, d) == 0, "LAPACK warm-up");
    d->input_fn = fn;
    d->input_ctx = ctx;
    /* warm-up steps, each with its outputs as in the armed loop below: the stack pages both
     * reach (with the steps alone here, the sedan's dense run with OpenBLAS's SkylakeX kernels
     * met 1 minor fault in the armed loop in about 1 run of 6, never with them: a depth the
     * outputs reach and the steps do not, across a page boundary where the randomized stack
     * start puts it), lazily mapped library pages */
    for (int s = 0; s < 50; s++) {
        fails += vd_step(m, d) != 0;
        fails += vd_outputs(m, d) != 0;
    }
    f0 = minflt();
    last_nselect = d->nselect;
    atomic_store(&calls, 0);
    atomic_store(&armed, 1);
    for (int s = 0; s < steps; s++) {
        fails += vd_step(m, d) != 0;
        fails += vd_outputs(m, d) != 0;
    }
    atomic_store(&armed, 0);
    f1 = minflt();
    c = atomic_load(&calls);
    printf("%-38s %5d steps (n = %3d, relin every step): %ld allocator calls, %ld minor "
           "faults, arena high-water %zu of %zu bytes\n",
           what, steps, m->nq, c, f1 - f0, d->arena_hwm, d->arena_size);
    CHECK(fails == 0, "%s: %d failed steps", what, fails);
    CHECK(c == 0, "%s: %ld allocator calls after init", what, c);
    CHECK(f1 - f0 == 0, "%s: %ld minor page faults after warm-up", what, f1 - f0);
    CHECK(d->arena_hwm <= d->arena_size && d->warn[VD_WARN_ARENA] == 0, "%s: arena", what);
    CHECK(d->nstep == steps + 50, "%s: step count %lld", what, (long long)d->nstep);
    last_nselect = d->nselect - last_nselect;
    vd_data_free(d);
}

static void run_case(int method, int stage2, int linear, const char *what)
{
    struct vd_model *m = chain(8, method, stage2);

    m->opt.linear = linear;
    run_model(m, 10000, sine_input, NULL, what);
    vd_model_free(m);
}

/* the full sedan (tyres with relaxation states, couplers, actuated bushings, the block
 * LU along its clusters) driven by its input signals; env: its tyres on the enveloping
 * contact (core/tire_env.h) over a half-sine under the wheels */
static const char *sedan_file = "config/vehicles/sedan.yaml"; /* or its TMeasy variant */

static void run_sedan_ex(int method, int stage2, int linear, bool env, const char *what)
{
    struct vd_source *src = NULL;
    struct vd_model *m = vd_cfg_load_model(sedan_file, &src, NULL);

    CHECK(m != NULL, "load the sedan");
    if (!m)
        return;
    m->opt.method = method;
    m->opt.stage2 = stage2;
    m->opt.relin = 1;
    m->opt.linear = linear;
    if (env) {
        char err[160];

        for (int t = 0; t < m->ntire; t++) {
            struct vd_tire *ty = &m->tire[t];

            CHECK(vd_tire_env_init(&ty->env, 1.0, 1.0, 1.8, 0.8, 0.01, ty->r0, ty->kz,
                                   m->mf[ty->mf].fnomin, 0.60147, 0.81974, err, sizeof(err)) == 0,
                  "env: %s", err);
        }
        m->road.nobst = 1;
        m->road.obst[0] =
            (struct vd_obstacle){VD_OBST_HALFSINE, -2.0, 4.0, 0.02, 0.0, -INFINITY, INFINITY};
    }
    run_model(m, linear == VD_LINEAR_DENSE ? 500 : 3000, vd_source_eval, src, what);
    vd_source_free(src);
    vd_model_free(m);
}

static void run_sedan(int method, int stage2, int linear, const char *what)
{
    run_sedan_ex(method, stage2, linear, false, what);
}

/* a vehicle with ideal joints (the constrained LIE or LSRT2, core/cstep.h) in one form, on
 * one linear path; reselect 1 re-selects the independent coordinates whenever Gu's pivot
 * ratio drops at all, so the selection's LU of G^T runs inside the armed steps too */
static void run_joints(const char *path, int method, int form, int linear, double reselect,
                       const char *what)
{
    struct vd_source *src = NULL;
    struct vd_model *m = vd_cfg_load_model(path, &src, NULL);
    char err[256];

    CHECK(m != NULL, "load %s", path);
    if (!m)
        return;
    m->opt.method = method;
    m->opt.constraints = form;
    m->opt.project = VD_PROJECT_BOTH;
    m->opt.reselect = reselect;
    m->opt.linear = linear;
    /* the form and path chosen after the load: analysed again for them */
    CHECK(vd_csb_analyze(m, err, sizeof(err)) == 0, "%s: %s", what, err);
    CHECK(vd_cs_structured(m) == (linear == VD_LINEAR_STRUCTURED), "%s: on the %s path", what,
          vd_cs_structured(m) ? "structured" : "dense");
    run_model(m, 300, vd_source_eval, src, what);
    if (form == VD_CONSTRAINTS_NULLSPACE) {
        printf("%-38s %llu selections of the independent coordinates in the armed steps\n", what,
               (unsigned long long)last_nselect);
        CHECK(reselect < 1.0 || last_nselect > 0, "%s: no selection in the armed steps", what);
    }
    vd_source_free(src);
    vd_model_free(m);
}

/* a model in the CE form (core/ce.h) for 300 steps with LIE, then with LSRT2 (the stage-2
 * placement, evaluation and M(qa)): the file's own formulation, or ce set on it (set_ce); the
 * runs named "<name> LIE|LSRT2 (CE, <ncoord> coordinates)" */
static void run_ce(const char *path, bool set_ce, const char *name, int ncoord, const char *why)
{
    struct vd_source *src = NULL;
    struct vd_model *m = vd_cfg_load_model(path, &src, NULL);
    char err[256], what[96];

    CHECK(m != NULL && (!set_ce || !vd_model_set_formulation(m, VD_FORM_CE, err, sizeof(err))) &&
              m->ce != NULL,
          "%s in formulation ce (%s)", path, why);
    if (m && m->ce) {
        /* the coordinates the name says: the tree's (what `rtvd run` prints, app/app.c) */
        CHECK(m->ce->tree->n == ncoord, "%s: %d coordinates in formulation ce, not %d", name,
              m->ce->tree->n, ncoord);
        snprintf(what, sizeof(what), "%s LIE (CE, %d coordinates)", name, ncoord);
        run_model(m, 300, vd_source_eval, src, what);
        m->opt.method = VD_METHOD_LSRT2;
        snprintf(what, sizeof(what), "%s LSRT2 (CE, %d coordinates)", name, ncoord);
        run_model(m, 300, vd_source_eval, src, what);
    }
    vd_source_free(src);
    vd_model_free(m);
}

int main(void)
{
    char info[256];

    CHECK(vd_blas_init(info, sizeof(info)) == 0, "BLAS threads: %s", info);
    printf("BLAS: %s\n", info);
    CHECK(vd_blas_parallel() == 0, "OpenBLAS linked is not the sequential build: %s", info);

    /* the interposer sees allocations made inside shared libraries: row-major
     * LAPACKE_dgetrf_work transposes into a LAPACKE_malloc'ed copy on every call */
    {
        double A[4] = {4, 1, 2, 3};
        lapack_int ipiv[2];

        atomic_store(&calls, 0);
        atomic_store(&armed, 1);
        LAPACKE_dgetrf_work(LAPACK_ROW_MAJOR, 2, 2, A, 2, ipiv);
        atomic_store(&armed, 0);
        CHECK(atomic_load(&calls) >= 2, "interposer missed liblapacke's malloc/free (%ld)",
              atomic_load(&calls));
    }
    for (int lin = 0; lin < 2; lin++) {
        const char *ln = lin == VD_LINEAR_DENSE ? "dense" : "structured";
        char what[64];

        snprintf(what, sizeof(what), "chain LIE %s", ln);
        run_case(VD_METHOD_LIE, VD_STAGE2_LINEARIZED, lin, what);
        snprintf(what, sizeof(what), "chain LSRT2 (lin. stage 2) %s", ln);
        run_case(VD_METHOD_LSRT2, VD_STAGE2_LINEARIZED, lin, what);
        snprintf(what, sizeof(what), "chain LSRT2 (W-form) %s", ln);
        run_case(VD_METHOD_LSRT2, VD_STAGE2_NONLINEAR, lin, what);
        snprintf(what, sizeof(what), "sedan LIE %s", ln);
        run_sedan(VD_METHOD_LIE, VD_STAGE2_LINEARIZED, lin, what);
        snprintf(what, sizeof(what), "sedan LSRT2 (lin. stage 2) %s", ln);
        run_sedan(VD_METHOD_LSRT2, VD_STAGE2_LINEARIZED, lin, what);
        snprintf(what, sizeof(what), "sedan LSRT2 (W-form) %s", ln);
        run_sedan(VD_METHOD_LSRT2, VD_STAGE2_NONLINEAR, lin, what);
    }
    run_sedan_ex(VD_METHOD_LSRT2, VD_STAGE2_LINEARIZED, VD_LINEAR_STRUCTURED, true,
                 "sedan LSRT2 structured, enveloping tyres over a half-sine");
    /* the sedan on TMeasy tyres (core/tire_tmeasy.c in the loop) */
    sedan_file = "config/vehicles/sedan_tmeasy.yaml";
    run_sedan(VD_METHOD_LSRT2, VD_STAGE2_LINEARIZED, VD_LINEAR_STRUCTURED, "sedan TMeasy, LSRT2");
    sedan_file = "config/vehicles/sedan.yaml";
    for (int k = 0; k < 2; k++) {
        const int meth = k ? VD_METHOD_LSRT2 : VD_METHOD_LIE;
        char what[80];

#define RUN_JOINTS(path, form, linear, reselect, name)                                             \
    snprintf(what, sizeof(what), name, k ? "LSRT2" : "LIE");                                       \
    run_joints(path, meth, form, linear, reselect, what)
        RUN_JOINTS("config/vehicles/hmmwv_joints.yaml", VD_CONSTRAINTS_INDEX2, VD_LINEAR_DENSE, 0.1,
                   "hmmwv_joints %s index2 dense");
        RUN_JOINTS("config/vehicles/hmmwv_joints.yaml", VD_CONSTRAINTS_INDEX2, VD_LINEAR_STRUCTURED,
                   0.1, "hmmwv_joints %s index2 structured");
        RUN_JOINTS("config/vehicles/hmmwv_joints.yaml", VD_CONSTRAINTS_NULLSPACE, VD_LINEAR_DENSE,
                   1.0, "hmmwv_joints %s nullspace, reselecting");
        /* per-cluster null spaces (core/csnull.h), every cluster re-selecting in the armed
         * steps: the selection's LU, symbolic factorization and patterns in preallocated
         * memory */
        RUN_JOINTS("config/vehicles/hmmwv_joints.yaml", VD_CONSTRAINTS_NULLSPACE,
                   VD_LINEAR_STRUCTURED, 1.0, "hmmwv_joints %s nullspace structured, reselecting");
        RUN_JOINTS("config/mechanisms/multilink_corner.yaml", VD_CONSTRAINTS_NULLSPACE,
                   VD_LINEAR_STRUCTURED, 0.1, "multilink %s nullspace structured");
        RUN_JOINTS("config/mechanisms/fourbar.yaml", VD_CONSTRAINTS_NULLSPACE, VD_LINEAR_DENSE, 0.1,
                   "fourbar %s nullspace (driven crank)");
        RUN_JOINTS("config/mechanisms/fourbar.yaml", VD_CONSTRAINTS_INDEX2, VD_LINEAR_STRUCTURED,
                   0.1, "fourbar %s index2 structured");
#undef RUN_JOINTS
    }
    /* the CE form (core/ce.h): tree kinematics, closures, RNEA and its tangent (the fast
     * Jacobians), the joint model's elements, LIE and LSRT2; the first armed step takes the
     * tree state from r, v (synced) */
    run_ce("config/vehicles/hmmwv_ce.yaml", false, "hmmwv_ce", 15, "its own formulation");
    /* the CE form with the multilink and McPherson corners (core/nlcorner.h): the fixed Newton
     * iterations and the Taylor passes of their closures */
    run_ce("tests/core/mp_ml_ce.yaml", true, "mp_ml_ce", 14,
           "test_nlcorner: 4 embedded Newton corners");
    /* the McPherson axle on the rack in CE (core/nlcorner.h "On a rack"): the corners' Newton
     * closures with the rack's travel as an input, their mixed Taylor passes, the steering chain */
    run_ce("tests/core/mprack_ce.yaml", true, "mprack_ce", 16,
           "test_cemprack: the McPhersons on the rack");
    /* the sedan in CE: the rack_pinion steered axle (core/ce_rack.c, its Cardan chain's closed
     * forms), the multilinks' Newton closures, the bars' revolute and spherical nodes */
    run_ce("config/vehicles/sedan_ce.yaml", false, "sedan_ce", 38, "its own formulation");
    /* the TA form (core/ta.h): tree, cut rows, the augmented LU and the projection (the
     * consistent start, LU of the same size, runs in the first warm-up step) */
    {
        struct vd_source *src = NULL;
        struct vd_model *m = vd_cfg_load_model("config/vehicles/hmmwv_ce.yaml", &src, NULL);
        char err[256];

        CHECK(m != NULL && !vd_model_set_formulation(m, VD_FORM_TA, err, sizeof(err)) && m->ta,
              "hmmwv_ce.yaml in formulation ta");
        if (m && m->ta) {
            run_model(m, 300, vd_source_eval, src, "hmmwv_ce LIE (TA, 55 + 40)");
            /* LSRT2: the start velocity's correction, the stage-2 placement, evaluation, M and
             * cut rows there; with both projections (the velocities' cut rows at q+) */
            m->opt.method = VD_METHOD_LSRT2;
            run_model(m, 300, vd_source_eval, src, "hmmwv_ce LSRT2 (TA, 55 + 40)");
            m->opt.project = VD_PROJECT_BOTH;
            run_model(m, 300, vd_source_eval, src, "hmmwv_ce LSRT2, both projected (TA)");
            m->opt.method = VD_METHOD_LIE;
            run_model(m, 300, vd_source_eval, src, "hmmwv_ce LIE, both projected (TA)");
            /* the structured solve (core/bblu.h): LAPACK's getrf per cluster and on the
             * border, the substitutions of its own */
            m->opt.linear = VD_LINEAR_STRUCTURED;
            m->opt.project = VD_PROJECT_POSITIONS;
            run_model(m, 300, vd_source_eval, src, "hmmwv_ce LIE (TA, bordered block LU)");
            m->opt.method = VD_METHOD_LSRT2;
            m->opt.project = VD_PROJECT_BOTH;
            run_model(m, 300, vd_source_eval, src,
                      "hmmwv_ce LSRT2, both projected (TA, bordered block LU)");
        }
        vd_source_free(src);
        vd_model_free(m);
    }
    return vt_report("test_noalloc");
}
