/* tests/config/test_model_yaml.c - model YAML loader: every field of a full model lands in
 * the core model with units converted; input signals evaluate as specified (incl. the LSRT2
 * paper's LC2 sweep); every error kind is reported as `name:LINE:COL: error:` at the
 * offending node with its source line and a caret, and loading fails without leaks; the
 * example file config/models/two_body.yaml loads from disk and runs. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "config/model_yaml.h"
#include "config/ydoc.h"
#include "core/data.h"
#include "core/model.h"
#include "core/step.h"
#include "core/vdmath.h"

#define DEG (M_PI / 180.0)

/* values that the loader copies or converts with one multiplication: equal to rounding */
#define TOL_EXACT 1e-12
/* signals: sin() of arguments up to 2 pi 225 ~ 1.4e3 loses ~1e-13 relative, times the
 * amplitude 500 -> ~1e-10; 1e-9 leaves margin and still catches any wrong term */
#define TOL_SIGNAL 1e-9

/* load text from memory as "t.yaml"; *diag receives everything printed to errf */
static struct vd_model *load(const char *text, struct vd_source **src, char **diag)
{
    struct vd_model *m;
    size_t size = 0;
    FILE *f;

    *diag = NULL;
    f = open_memstream(diag, &size);
    if (!f) {
        CHECK(f != NULL, "open_memstream");
        return NULL;
    }
    m = vd_cfg_load_model_mem("t.yaml", text, strlen(text), src, f);
    fclose(f);
    return m;
}

/* line n (1-based) of text, into buf */
static void nth_line(char *buf, size_t size, const char *text, int n)
{
    const char *p = text, *e;

    for (int i = 1; i < n && p; i++) {
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    if (!p)
        p = "";
    e = strchr(p, '\n');
    snprintf(buf, size, "%.*s", (int)(e ? (size_t)(e - p) : strlen(p)), p);
}

static int count(const char *s, const char *what)
{
    int n = 0;

    for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

/* text must fail with its first diagnostic at line:col containing phrase, the source line
 * under it and a caret under column col; nerr errors in all (0: don't check) */
static void expect_error(const char *what, const char *text, int line, int col, const char *phrase,
                         int nerr)
{
    struct vd_source *src = (struct vd_source *)&src; /* must be reset to NULL */
    char prefix[64], src_line[256], want[300], *diag, *l2, *l3;
    struct vd_model *m = load(text, &src, &diag);

    CHECK(m == NULL, "%s: loaded a bad model", what);
    CHECK(src == NULL, "%s: sources not reset to NULL", what);
    vd_model_free(m);
    if (!diag) {
        CHECK(diag != NULL, "%s: no diagnostics", what);
        return;
    }
    snprintf(prefix, sizeof(prefix), "t.yaml:%d:%d: error: ", line, col);
    CHECK(!strncmp(diag, prefix, strlen(prefix)), "%s: expected prefix '%s', got:\n%s", what,
          prefix, diag);
    l2 = strchr(diag, '\n');
    CHECK(l2 && strstr(diag, phrase) && strstr(diag, phrase) < l2,
          "%s: first message lacks '%s':\n%s", what, phrase, diag);
    if (nerr)
        CHECK(count(diag, ": error: ") == nerr, "%s: expected %d errors:\n%s", what, nerr, diag);
    /* the source line, indented 2, then 2 + (col - 1) spaces and the caret */
    nth_line(src_line, sizeof(src_line), text, line);
    snprintf(want, sizeof(want), "\n  %s\n", src_line);
    CHECK(l2 && !strncmp(l2, want, strlen(want)), "%s: source line '%s' missing:\n%s", what,
          src_line, diag);
    l3 = l2 ? strchr(l2 + 1, '\n') : NULL;
    if (l3) {
        size_t sp = strspn(l3 + 1, " ");

        CHECK(sp == (size_t)(2 + col - 1) && l3[1 + sp] == '^' && l3[2 + sp] == '\n',
              "%s: caret not under column %d:\n%s", what, col, diag);
    } else {
        CHECK(l3 != NULL, "%s: no caret line:\n%s", what, diag);
    }
    free(diag);
}

/* --- a full valid model ------------------------------------------------------------------ */

static const char *full_model =
    "model:\n"
    "  name: quarter-car\n"
    "  gravity: [0, 0, -9.5]\n"
    "solver:\n"
    "  method: lie\n"
    "  stage2: nonlinear\n"
    "  dt: 5e-4\n"
    "  relin: 3\n"
    "  linear: structured\n"
    "  root: chassis\n"
    "bodies:\n"
    "  - name: chassis\n"
    "    mass: 400\n"
    "    inertia: [10, 12, 15]\n"
    "    com: [0.1, 0, 0.05]\n"
    "    position: [1, 2, 0.5]\n"
    "    orientation: [90, 10, -5]\n"
    "    velocity: [20, 0, 0]\n"
    "    angular_velocity: [0, 0, 0.1]\n"
    "  - name: wheel\n"
    "    mass: 1.5e1\n"
    "    inertia: [1, 1.5, 1, 0.1, 0, 0]\n"
    "markers:\n"
    "  - name: m_top\n"
    "    body: chassis\n"
    "    position: [0.2, 0, 0]\n"
    "    orientation: [0, 0, 90]\n"
    "  - {name: m_bot, body: wheel, position: [0, 0, 0.1]}\n"
    "  - {name: g0, body: ground, position: [0, 0, 0]}\n"
    "bushings:\n"
    "  - name: b1\n"
    "    markers: [m_bot, g0]\n"
    "    translational: {stiffness: 1e5, damping: 100}\n"
    "    rotational: {stiffness: [[-1, -50], [0, 0], [1, 50], [2, 400]], damping: 10,\n"
    "                 interp: linear}\n"
    "    x: {stiffness: [[-0.01, -1000], [0, 0], [0.01, 1000]]}\n"
    "    rz: {damping: 0}\n"
    "p2p:\n"
    "  - name: spring_fl\n"
    "    markers: [m_top, m_bot]\n"
    "    spring: {stiffness: 2e4, free_length: 0.35, preload: 100}\n"
    "    damper: {damping: [[-1, -800], [0, 0], [1, 1500]], interp: linear}\n"
    "    bump_stop: {length: 0.25, stiffness: [[0, 0], [0.02, 1000], [0.04, 5000]]}\n"
    "    rebound_stop: {length: 0.45, stiffness: 1e5}\n"
    "inputs:\n"
    "  - name: fz\n"
    "    marker: m_top\n"
    "    type: force\n"
    "    direction: [0, 0, 2]\n"
    "    signal: {step: {time: 1, before: 10, after: -20}}\n"
    "  - name: lc2\n"
    "    marker: m_bot\n"
    "    type: torque\n"
    "    frame: marker\n"
    "    direction: [1, 0, 0]\n"
    "    signal: {sweep: {offset: -2500, amplitude: 500, f0: 0, f1: 30, start: 5, end: 20}}\n"
    "  - name: mix\n"
    "    marker: m_top\n"
    "    type: force\n"
    "    direction: [1, 0, 0]\n"
    "    signal:\n"
    "      - 5\n"
    "      - {ramp: {start: 1, end: 3, from: 0, to: 10}}\n"
    "      - {sine: {amplitude: 2, frequency: 0.5, phase: 90, offset: 1, start: 2}}\n"
    "      - {table: [[0, 0], [1, 4], [3, 0]]}\n";

static double curve(const struct vd_model *m, const struct vd_curve *c, double x)
{
    double dy;

    return vd_curve_eval(m, c, x, &dy);
}

static void test_full_model(void)
{
    struct vd_source *src = NULL;
    char *diag;
    struct vd_model *m = load(full_model, &src, &diag);
    double R[9], u[3];

    CHECK(m != NULL, "full model failed:\n%s", diag ? diag : "");
    CHECK(src != NULL, "no sources");
    CHECK(diag && !*diag, "diagnostics for a valid model:\n%s", diag ? diag : "");
    free(diag);
    if (!m || !src) {
        vd_model_free(m);
        vd_source_free(src);
        return;
    }
    CHECK(m->frozen, "model not finalized");

    /* model and solver */
    CHECK(!strcmp(m->name, "quarter-car"), "name %s", m->name);
    CHECK_NEAR(m->gravity[0], 0, 0, "gx");
    CHECK_NEAR(m->gravity[2], -9.5, 0, "gz");
    CHECK(m->opt.method == VD_METHOD_LIE, "method %d", m->opt.method);
    CHECK(m->opt.stage2 == VD_STAGE2_NONLINEAR, "stage2 %d", m->opt.stage2);
    CHECK_NEAR(m->opt.dt, 5e-4, 0, "dt");
    CHECK(m->opt.relin == 3, "relin %d", m->opt.relin);
    CHECK(m->opt.linear == VD_LINEAR_STRUCTURED, "linear %d", m->opt.linear);
    CHECK(!strcmp(m->opt.root, "chassis") && m->blu.root == vd_model_find_body(m, "chassis"),
          "root %s", m->opt.root);

    /* bodies: degrees -> radians, inertia tensors */
    CHECK(m->nbody == 2 && m->nq == 12, "nbody %d nq %d", m->nbody, m->nq);
    CHECK(!strcmp(m->body[0].name, "chassis") && !strcmp(m->body[1].name, "wheel"), "names");
    CHECK_NEAR(m->body[0].mass, 400, 0, "chassis mass");
    CHECK_NEAR(m->body[1].mass, 15, 0, "wheel mass 1.5e1");
    {
        const double I0[9] = {10, 0, 0, 0, 12, 0, 0, 0, 15};
        const double I1[9] = {1, 0.1, 0, 0.1, 1.5, 0, 0, 0, 1};

        for (int k = 0; k < 9; k++) {
            CHECK_NEAR(m->body[0].inertia[k], I0[k], 0, "chassis inertia");
            CHECK_NEAR(m->body[1].inertia[k], I1[k], 0, "wheel inertia (6 numbers)");
        }
    }
    {
        const double pose[6] = {1, 2, 0.5, 90 * DEG, 10 * DEG, -5 * DEG};
        const double vel[6] = {20, 0, 0, 0, 0, 0.1};
        const double com[3] = {0.1, 0, 0.05};

        for (int k = 0; k < 6; k++) {
            CHECK_NEAR(m->body[0].pose0[k], pose[k], TOL_EXACT, "chassis pose0");
            CHECK_NEAR(m->body[0].vel0[k], vel[k], 0, "chassis vel0");
            CHECK_NEAR(m->body[1].pose0[k], 0, 0, "wheel pose0 default");
            CHECK_NEAR(m->body[1].vel0[k], 0, 0, "wheel vel0 default");
        }
        for (int k = 0; k < 3; k++) {
            CHECK_NEAR(m->body[0].com[k], com[k], 0, "chassis com");
            CHECK_NEAR(m->body[1].com[k], 0, 0, "wheel com default");
        }
    }

    /* markers: rotation from degrees, s = pos - com after finalize */
    CHECK(m->nmarker == 3, "nmarker %d", m->nmarker);
    CHECK(m->marker[0].body == 0 && m->marker[1].body == 1 && m->marker[2].body == VD_GROUND,
          "marker bodies %d %d %d", m->marker[0].body, m->marker[1].body, m->marker[2].body);
    vdu_cardan_zyx(R, 0, 0, 90 * DEG);
    for (int k = 0; k < 9; k++) {
        CHECK_NEAR(m->marker[0].rot[k], R[k], TOL_EXACT, "m_top rot");
        CHECK_NEAR(m->marker[1].rot[k], k % 4 == 0 ? 1 : 0, 0, "m_bot rot identity");
    }
    CHECK_NEAR(m->marker[0].rot[5], -1, TOL_EXACT, "Rx(90) row 1 col 2");
    {
        const double s0[3] = {0.1, 0, -0.05}, s1[3] = {0, 0, 0.1};

        for (int k = 0; k < 3; k++) {
            CHECK_NEAR(m->marker[0].s[k], s0[k], TOL_EXACT, "m_top s = pos - com");
            CHECK_NEAR(m->marker[1].s[k], s1[k], TOL_EXACT, "m_bot s");
            CHECK_NEAR(m->marker[2].s[k], 0, 0, "g0 s");
        }
    }

    /* bushing: defaults, per-component overrides, tables */
    CHECK(m->nbush == 1, "nbush %d", m->nbush);
    {
        const struct vd_bushing *b = &m->bush[0];

        CHECK(b->mk[0] == 1 && b->mk[1] == 2, "bushing markers %d %d", b->mk[0], b->mk[1]);
        /* x: override table, pchip through collinear points is the line 1e5 x */
        CHECK(b->stiff[0].kind == VD_CURVE_TABLE && b->stiff[0].interp == VD_INTERP_PCHIP,
              "x stiffness table/pchip");
        CHECK_NEAR(curve(m, &b->stiff[0], 0.005), 500, 1e-9, "x stiffness at 5 mm");
        CHECK_NEAR(curve(m, &b->stiff[0], -0.01), -1000, 1e-9, "x stiffness at a point");
        CHECK(b->damp[0].kind == VD_CURVE_LINEAR, "x damping kept from the default");
        for (int k = 1; k < 3; k++) {
            CHECK(b->stiff[k].kind == VD_CURVE_LINEAR, "y/z stiffness linear");
            CHECK_NEAR(b->stiff[k].k, 1e5, 0, "y/z stiffness 1e5");
        }
        for (int k = 0; k < 3; k++)
            CHECK_NEAR(curve(m, &b->damp[k], 0.5), 50, 0, "translational damping 100");
        for (int k = 3; k < 6; k++) {
            CHECK(b->stiff[k].kind == VD_CURVE_TABLE && b->stiff[k].interp == VD_INTERP_LINEAR,
                  "rotational stiffness table/linear");
            CHECK_NEAR(curve(m, &b->stiff[k], 1.5), 225, 1e-9, "rotational stiffness at 1.5");
        }
        CHECK_NEAR(b->damp[3].k, 10, 0, "rx damping");
        CHECK_NEAR(b->damp[4].k, 10, 0, "ry damping");
        CHECK(b->damp[5].kind == VD_CURVE_LINEAR && b->damp[5].k == 0.0, "rz damping override");
    }

    /* p2p */
    CHECK(m->np2p == 1, "np2p %d", m->np2p);
    {
        const struct vd_p2p *p = &m->p2p[0];

        CHECK(p->mk[0] == 0 && p->mk[1] == 1, "p2p markers");
        CHECK(p->has_spring && p->has_damper && p->has_bump && p->has_rebound, "p2p parts");
        CHECK_NEAR(p->free_length, 0.35, 0, "free length");
        CHECK_NEAR(p->preload, 100, 0, "preload");
        CHECK_NEAR(curve(m, &p->spring, 0.01), 200, 1e-9, "spring 2e4 * 0.01");
        CHECK_NEAR(curve(m, &p->damper, 0.5), 750, 1e-9, "damper at +0.5 m/s");
        CHECK_NEAR(curve(m, &p->damper, -0.5), -400, 1e-9, "damper at -0.5 m/s");
        CHECK_NEAR(p->bump_length, 0.25, 0, "bump length");
        CHECK(p->bump.kind == VD_CURVE_TABLE, "bump table");
        CHECK_NEAR(curve(m, &p->bump, 0.02), 1000, 1e-9, "bump at a point");
        CHECK(curve(m, &p->bump, 0.03) > 1000 && curve(m, &p->bump, 0.03) < 5000,
              "bump between points");
        CHECK_NEAR(p->rebound_length, 0.45, 0, "rebound length");
        CHECK(p->rebound.kind == VD_CURVE_LINEAR && p->rebound.k == 1e5, "rebound linear");
    }

    /* inputs and their signals */
    CHECK(m->ninput == 3, "ninput %d", m->ninput);
    CHECK(m->input[0].kind == VD_INPUT_FORCE && m->input[0].frame == VD_FRAME_GLOBAL &&
              m->input[0].marker == 0,
          "fz kind/frame/marker");
    CHECK_NEAR(m->input[0].dir[2], 1, 0, "direction normalized");
    CHECK(m->input[1].kind == VD_INPUT_TORQUE && m->input[1].frame == VD_FRAME_MARKER &&
              m->input[1].marker == 1,
          "lc2 kind/frame/marker");

    vd_source_eval(src, 0.0, u);
    CHECK_NEAR(u[0], 10, 0, "step before");
    CHECK_NEAR(u[1], -2500, 0, "sweep before start = offset");
    CHECK_NEAR(u[2], 6, TOL_SIGNAL, "mix at 0: 5 + ramp 0 + sine offset 1 + table 0");
    vd_source_eval(src, 1.0 - 1e-9, u);
    CHECK_NEAR(u[0], 10, 0, "step just before its time");
    vd_source_eval(src, 1.0, u);
    CHECK_NEAR(u[0], -20, 0, "step at its time");
    vd_source_eval(src, 1.5, u);
    CHECK_NEAR(u[0], -20, 0, "step after");
    /* 5 + ramp 7.5 + (1 + 2 sin(2 pi 0.5 0.5 + 90 deg) = 1) + table 4 - 4 (1.5 / 2) = 1 */
    vd_source_eval(src, 2.5, u);
    CHECK_NEAR(u[2], 14.5, TOL_SIGNAL, "mix at 2.5");
    /* 5 + 10 + (1 + 2 sin(8 pi + pi/2) = 3) + table held 0 */
    vd_source_eval(src, 10.0, u);
    CHECK_NEAR(u[2], 18, TOL_SIGNAL, "mix at 10");
    /* LC2: phase 2 pi (f1 tau^2 / (2 T)): 0 at tau = 0, 2 pi 56.25 at 7.5 (sin = 1),
     * 2 pi 225 at 15 (sin = 0) */
    vd_source_eval(src, 5.0, u);
    CHECK_NEAR(u[1], -2500, TOL_SIGNAL, "LC2 at 5");
    vd_source_eval(src, 12.5, u);
    CHECK_NEAR(u[1], -2000, TOL_SIGNAL, "LC2 at 12.5");
    vd_source_eval(src, 20.0, u);
    CHECK_NEAR(u[1], -2500, TOL_SIGNAL, "LC2 at 20");
    vd_source_eval(src, 25.0, u);
    CHECK_NEAR(u[1], -2500, 0, "LC2 after end");
    vd_source_eval(src, 6.0, u);
    CHECK_NEAR(u[1], -2500 + 500 * sin(2 * M_PI * 30 * 1.0 / 30), TOL_SIGNAL, "LC2 at 6");

    vd_source_free(src);
    vd_model_free(m);
}

/* defaults: no model/solver sections, name from the file name, src may be NULL; number
 * forms; the buffer need not be NUL-terminated (the trailing garbage is outside len) */
static void test_defaults(void)
{
    const char *text = "bodies:\n"
                       "  - {name: a, mass: 1e5, inertia: [1, 1, 1], com: [1.5e-3, -2E+1, +.5]}\n"
                       "@@@ not part of the buffer";
    struct vd_model *m;
    size_t size = 0;
    char *diag = NULL;
    FILE *f = open_memstream(&diag, &size);

    m = vd_cfg_load_model_mem("dir/some.model.yaml", text, (size_t)(strstr(text, "@@@") - text),
                              NULL, f);
    fclose(f);
    CHECK(m != NULL, "minimal model: %s", diag);
    if (m) {
        CHECK(!strcmp(m->name, "some.model"), "name from path: %s", m->name);
        CHECK(m->opt.method == VD_METHOD_LSRT2 && m->opt.stage2 == VD_STAGE2_LINEARIZED &&
                  m->opt.dt == 1e-3 && m->opt.relin == 1 && m->opt.linear == VD_LINEAR_STRUCTURED &&
                  !m->opt.root[0],
              "solver defaults");
        CHECK_NEAR(m->gravity[2], -9.81, 0, "gravity default");
        CHECK_NEAR(m->body[0].mass, 1e5, 0, "1e5");
        CHECK_NEAR(m->body[0].com[0], 1.5e-3, 0, "1.5e-3");
        CHECK_NEAR(m->body[0].com[1], -20, 0, "-2E+1");
        CHECK_NEAR(m->body[0].com[2], 0.5, 0, "+.5");
    }
    vd_model_free(m);
    free(diag);
}

/* --- errors ------------------------------------------------------------------------------ */

/* a valid body, 4 lines */
#define BODY                                                                                       \
    "bodies:\n"                                                                                    \
    "  - name: a\n"                                                                                \
    "    mass: 1\n"                                                                                \
    "    inertia: [1, 1, 1]\n"
/* lines 5-7: markers m1 on a, m2 on ground */
#define MARKERS                                                                                    \
    "markers:\n"                                                                                   \
    "  - {name: m1, body: a, position: [0, 0, 0]}\n"                                               \
    "  - {name: m2, body: ground, position: [0, 0, 0]}\n"
/* lines 8-9: a bushing header */
#define BUSHING                                                                                    \
    "bushings:\n"                                                                                  \
    "  - name: k\n"
/* lines 8-12: an input on m1 without a signal */
#define INPUT                                                                                      \
    "inputs:\n"                                                                                    \
    "  - name: f\n"                                                                                \
    "    marker: m1\n"                                                                             \
    "    type: force\n"                                                                            \
    "    direction: [0, 0, 1]\n"

/* the joints section: located errors */
#define JBODY                                                                                      \
    BODY "markers:\n"                                                                              \
         "  - {name: ma, body: a, position: [0, 0, 0]}\n"                                          \
         "  - {name: mg, body: ground, position: [0, 0, 0]}\n"                                     \
         "inputs:\n"                                                                               \
         "  - {name: f, marker: ma, type: force, direction: [1, 0, 0]}\n"                          \
         "joints:\n"

static void test_joint_errors(void)
{
    /* line 11: the first joint */
    expect_error("joint type", JBODY "  - {name: j, type: hinge, markers: [ma, mg]}\n", 11, 21,
                 "joints[0].type: unknown value 'hinge'", 1);
    expect_error("joint marker", JBODY "  - {name: j, type: revolute, markers: [ma, mx]}\n", 11, 45,
                 "joints[0].markers[1]: unknown marker 'mx'", 1);
    expect_error("joint missing markers", JBODY "  - {name: j, type: spherical}\n", 11, 5,
                 "missing required key 'markers'", 1);
    expect_error("length of a revolute",
                 JBODY "  - {name: j, type: revolute, markers: [ma, mg], length: 1}\n", 11, 58,
                 "length belongs to a distance joint", 1);
    expect_error("driven without coordinate",
                 JBODY "  - {name: j, type: driven, markers: [ma, mg]}\n", 11, 5,
                 "missing required key 'coordinate'", 1);
    expect_error("driven by a force input",
                 JBODY "  - {name: j, type: driven, coordinate: rotation, markers: [ma, mg], "
                       "input: f}\n",
                 11, 77, "joints[0].input: input 'f' is not of type actuator", 1);
    expect_error("duplicate joint",
                 JBODY "  - {name: j, type: spherical, markers: [ma, mg]}\n"
                       "  - {name: j, type: spherical, markers: [ma, mg]}\n",
                 12, 12, "duplicate", 1);
    /* redundancy is found by the builder at the initial pose (core/joint.h) and reported at
     * the joint it is about: the second revolute repeats the first */
    expect_error("redundant joint",
                 JBODY "  - {name: j1, type: revolute, markers: [ma, mg]}\n"
                       "  - {name: j2, type: revolute, markers: [ma, mg]}\n",
                 12, 12, "joint j2: redundant constraints (row 1 of its 5 depends on j1)", 1);
    expect_error("constraints", BODY "solver: {constraints: augmented}\n", 5, 23,
                 "solver.constraints: unknown value 'augmented'", 1);
    /* the tree forms: a model without a root body (or without the templates' joints)
     * refused by the builder, at the document, with either method (the TA form takes LSRT2:
     * the form's value passes and the builder speaks) */
    expect_error("ta with lsrt2", BODY "solver: {method: lsrt2, formulation: ta}\n", 1, 1,
                 "formulation ta: no root body", 1);
    expect_error("ta without a root", BODY "solver: {method: lie, formulation: ta}\n", 1, 1,
                 "formulation ta: no root body", 1);
}

static void test_errors(void)
{
    /* YAML syntax: the second ':' on line 3, column 12 */
    expect_error("syntax", "bodies:\n  - name: a\n    mass: 1: 2\n", 3, 12,
                 "mapping values are not allowed", 1);
    /* an unclosed quote runs to the end of the stream */
    expect_error("syntax eof", BODY "model: {name: 'x}\n", 6, 1, "unexpected end of stream", 1);

    /* unknown, missing and duplicate keys */
    expect_error("unknown key", BODY "    masss: 1\n", 5, 5,
                 "unknown key 'masss' in bodies[0] (expected one of: name, mass, inertia, com, "
                 "position, orientation, velocity, angular_velocity)",
                 1);
    expect_error("unknown top-level key", BODY "extra: 1\n", 5, 1,
                 "unknown key 'extra' at the top level", 1);
    expect_error("missing key", "bodies:\n  - name: a\n    inertia: [1, 1, 1]\n", 2, 5,
                 "missing required key 'mass' in bodies[0]", 1);
    expect_error("missing bodies", "model: {name: x}\n", 1, 1, "missing required key 'bodies'", 1);
    expect_error("duplicate key", BODY "    mass: 2\n", 5, 5,
                 "bodies[0]: duplicate key 'mass' (first at line 3)", 1);

    /* wrong types */
    expect_error("string for a number",
                 "bodies:\n  - name: a\n    mass: abc\n"
                 "    inertia: [1, 1, 1]\n",
                 3, 11, "bodies[0].mass: expected a number, got 'abc'", 1);
    expect_error("bool for a number",
                 "bodies:\n  - name: a\n    mass: true\n"
                 "    inertia: [1, 1, 1]\n",
                 3, 11, "expected a number", 1);
    expect_error("quoted number",
                 "bodies:\n  - name: a\n    mass: \"400\"\n"
                 "    inertia: [1, 1, 1]\n",
                 3, 11, "expected a number, got the string \"400\"", 1);
    expect_error("mapping for a sequence", "bodies: {name: a}\n", 1, 9,
                 "bodies: expected a sequence, got a mapping", 1);
    expect_error("vector length", BODY "    com: [0, 0]\n", 5, 10,
                 "bodies[0].com: expected 3 numbers, got 2", 1);
    expect_error("relin not an integer", BODY "solver: {relin: 1.5}\n", 5, 17,
                 "solver.relin: expected an integer, got '1.5'", 1);

    /* values */
    expect_error("negative mass", "bodies:\n  - name: a\n    mass: -3\n    inertia: [1, 1, 1]\n", 3,
                 11, "bodies[0].mass: -3 out of range [0.001, 100000] kg", 1);
    expect_error("zero mass", "bodies:\n  - name: a\n    mass: 0\n    inertia: [1, 1, 1]\n", 3, 11,
                 "bodies[0].mass: 0 out of range [0.001, 100000] kg", 1);
    expect_error("infinite mass",
                 "bodies:\n  - name: a\n    mass: .inf\n"
                 "    inertia: [1, 1, 1]\n",
                 3, 11, "is not finite", 1);
    expect_error("inertia not PD", "bodies:\n  - name: a\n    mass: 1\n    inertia: [1, 1, -1]\n",
                 4, 21, "bodies[0].inertia[2]: -1 must be >= 1e-10 kg m^2", 1);
    expect_error("inertia products not PD",
                 "bodies:\n  - name: a\n    mass: 1\n    inertia: [1, 1, 1, 2, 0, 0]\n", 4, 14,
                 "not positive definite", 1);
    expect_error("inertia triangle", "bodies:\n  - name: a\n    mass: 1\n    inertia: [1, 1, 5]\n",
                 4, 14, "triangle inequality", 1);
    expect_error("inertia count", "bodies:\n  - name: a\n    mass: 1\n    inertia: [1, 1, 1, 0]\n",
                 4, 14, "expected 3 numbers (ixx iyy izz) or 6", 1);
    expect_error("pitch near singularity", BODY "    orientation: [0, 85, 0]\n", 5, 22,
                 "bodies[0].orientation[1]: ay = 85 deg", 1);
    expect_error("dt out of range", BODY "solver:\n  dt: 0.5\n", 6, 7,
                 "solver.dt: 0.5 out of range [1e-06, 0.1] s", 1);
    /* numbers that parse but no vehicle has (config/ranges.h): a denormal and 2^63 kg, a step
     * of 1e-320 s (its step count overflowed: "done: -9223372036854775808 steps"), a moment of
     * inertia of 1e-300; a number of 400 digits gets its reason, not a message cut off */
    expect_error("denormal mass",
                 "bodies:\n  - name: a\n    mass: 4e-320\n    inertia: [1, 1, 1]\n", 3, 11,
                 "bodies[0].mass: 4e-320 out of range [0.001, 100000] kg", 1);
    expect_error("2^63 kg",
                 "bodies:\n  - name: a\n    mass: 9223372036854775808\n"
                 "    inertia: [1, 1, 1]\n",
                 3, 11, "bodies[0].mass: 9223372036854775808 out of range [0.001, 100000] kg", 1);
    expect_error("dt 1e-320", BODY "solver:\n  dt: 1e-320\n", 6, 7,
                 "solver.dt: 1e-320 out of range [1e-06, 0.1] s", 1);
    expect_error("tiny inertia", "bodies:\n  - name: a\n    mass: 1\n    inertia: [1e-300, 1, 1]\n",
                 4, 15, "bodies[0].inertia[0]: 1e-300 must be >= 1e-10 kg m^2", 1);
    {
        char text[600];

        snprintf(text, sizeof(text),
                 "bodies:\n  - name: a\n    mass: 1%0400d\n    inertia: [1, 1, 1]\n", 0);
        char *diag = NULL;
        struct vd_model *m = load(text, NULL, &diag);

        /* the line is longer than the source window: the message alone is checked */
        CHECK(!m && diag &&
                  strstr(diag, "t.yaml:3:11: error: bodies[0].mass: "
                               "1000000000000000000000000000000000000000... is not finite "
                               "(beyond the range of a double)\n"),
              "400 digits: %.300s", diag ? diag : "");
        vd_model_free(m);
        free(diag);
        snprintf(text, sizeof(text),
                 "bodies:\n  - name: a\n    mass: 1%0300d\n    inertia: [1, 1, 1]\n", 0);
        m = load(text, NULL, &diag);
        CHECK(!m && diag &&
                  strstr(diag, "t.yaml:3:11: error: bodies[0].mass: "
                               "1000000000000000000000000000000000000000... out of range "
                               "[0.001, 100000] kg\n"),
              "300 digits: %.300s", diag ? diag : "");
        vd_model_free(m);
        free(diag);
    }
    expect_error("dt zero", BODY "solver:\n  dt: 0\n", 6, 7,
                 "solver.dt: 0 out of range [1e-06, 0.1] s", 1);
    expect_error("bad method", BODY "solver:\n  method: rk4\n", 6, 11,
                 "solver.method: unknown value 'rk4' (expected one of: lie, lsrt2)", 1);
    expect_error("bad linear", BODY "solver:\n  linear: sparse\n", 6, 11,
                 "solver.linear: unknown value 'sparse' (expected one of: dense, structured)", 1);
    expect_error("unknown root body", BODY "solver:\n  root: chassis\n", 6, 9,
                 "solver.root: no body named 'chassis'", 1);
    expect_error("bad interp",
                 BODY MARKERS BUSHING "    markers: [m1, m2]\n"
                                      "    x: {stiffness: 1, interp: cubic}\n",
                 11, 31, "bushings[0].x.interp: unknown value 'cubic'", 1);

    /* names and references */
    expect_error("duplicate body name",
                 "bodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1]}\n"
                 "  - {name: a, mass: 2, inertia: [1, 1, 1]}\n",
                 3, 12, "bodies[1].name: duplicate body name 'a' (first at line 2)", 1);
    expect_error("body named ground", "bodies:\n  - {name: ground, mass: 1, inertia: [1, 1, 1]}\n",
                 2, 12, "'ground' is reserved", 1);
    expect_error("bad name", "bodies:\n  - {name: a b, mass: 1, inertia: [1, 1, 1]}\n", 2, 12,
                 "'a b' is not a valid name", 1);
    expect_error("marker on unknown body",
                 BODY "markers:\n  - name: m\n    body: b\n    position: [0, 0, 0]\n", 7, 11,
                 "markers[0].body: unknown body 'b'", 1);
    expect_error("unknown marker in bushing", BODY MARKERS BUSHING "    markers: [m1, mx]\n", 10,
                 19, "bushings[0].markers[1]: unknown marker 'mx'", 1);
    /* an unresolved marker body is reported once, not again as "both on ground" */
    expect_error("no cascade from an unknown body",
                 BODY "markers:\n  - {name: m1, body: zz, position: [0, 0, 0]}\n"
                      "  - {name: m2, body: ground, position: [0, 0, 0]}\n" BUSHING
                      "    markers: [m1, m2]\n",
                 6, 22, "markers[0].body: unknown body 'zz'", 1);
    expect_error("same marker twice", BODY MARKERS BUSHING "    markers: [m1, m1]\n", 10, 14,
                 "must be distinct", 1);
    expect_error("markers on the same body",
                 BODY "markers:\n  - {name: m1, body: a, position: [0, 0, 0]}\n"
                      "  - {name: m2, body: a, position: [0, 0, 1]}\n" BUSHING
                      "    markers: [m1, m2]\n",
                 10, 14, "markers 'm1' and 'm2' are both on body 'a'", 1);
    expect_error("markers both on ground",
                 BODY "markers:\n  - {name: m1, body: ground, position: [0, 0, 0]}\n"
                      "  - {name: m2, body: ground, position: [0, 0, 1]}\n" BUSHING
                      "    markers: [m1, m2]\n",
                 10, 14, "both on ground", 1);
    expect_error("input on ground",
                 BODY MARKERS
                 "inputs:\n  - {name: f, marker: m2, type: force, direction: [0, 0, 1]}\n",
                 9, 23, "inputs[0].marker: marker 'm2' is on ground", 1);
    expect_error("zero direction",
                 BODY MARKERS
                 "inputs:\n  - {name: f, marker: m1, type: force, direction: [0, 0, 0]}\n",
                 9, 51, "direction must be non-zero", 1);

    /* curves */
    expect_error("curve x not increasing",
                 BODY MARKERS BUSHING "    markers: [m1, m2]\n"
                                      "    x: {stiffness: [[0, 0], [1, 10], [1, 20]]}\n",
                 11, 20, "bushings[0].x.stiffness: table x not strictly increasing at point 2", 1);
    expect_error("curve not monotonic",
                 BODY MARKERS BUSHING "    markers: [m1, m2]\n"
                                      "    x: {stiffness: [[0, 0], [1, 10], [2, 5]]}\n",
                 11, 20,
                 "bushings[0].x.stiffness: table not monotonic: y decreases at point 2 (5 after "
                 "10)",
                 1);
    expect_error("curve one point",
                 BODY MARKERS BUSHING "    markers: [m1, m2]\n"
                                      "    translational: {damping: [[0, 0]]}\n",
                 11, 30, "table needs at least 2 points", 1);
    expect_error("curve point not a pair",
                 BODY MARKERS BUSHING "    markers: [m1, m2]\n"
                                      "    x: {stiffness: [[0, 0], [1, 10, 3]]}\n",
                 11, 29, "bushings[0].x.stiffness[1]: expected a point [x, y]", 1);
    expect_error("negative linear stiffness",
                 BODY MARKERS BUSHING "    markers: [m1, m2]\n"
                                      "    rotational: {stiffness: -5}\n",
                 11, 29, "bushings[0].rotational.stiffness: -5 out of range [0, 1e+10]", 1);
    expect_error("stop table not from 0",
                 BODY MARKERS "p2p:\n  - name: s\n    markers: [m1, m2]\n"
                              "    bump_stop: {length: 0.1, stiffness: [[0.01, 0], [1, 10]]}\n",
                 11, 41, "a stop table starts at [0, 0]", 1);
    expect_error("p2p without parts", BODY MARKERS "p2p:\n  - name: s\n    markers: [m1, m2]\n", 9,
                 5, "needs at least one of spring, damper, bump_stop, rebound_stop", 1);
    expect_error("spring without free length",
                 BODY MARKERS "p2p:\n  - name: s\n    markers: [m1, m2]\n"
                              "    spring: {stiffness: 1}\n",
                 11, 13, "missing required key 'free_length' in p2p[0].spring", 1);

    /* signals */
    expect_error("unknown signal kind", BODY MARKERS INPUT "    signal: {pulse: {time: 1}}\n", 13,
                 14,
                 "unknown key 'pulse' in inputs[0].signal (expected one of: step, ramp, sine, "
                 "sweep, table)",
                 1);
    expect_error("ramp end before start",
                 BODY MARKERS INPUT "    signal: {ramp: {start: 2, end: 1, to: 5}}\n", 13, 36,
                 "inputs[0].signal.ramp.end: 1 must be > start (2)", 1);
    expect_error("sine without frequency",
                 BODY MARKERS INPUT "    signal: [1, {sine: {amplitude: 1}}]\n", 13, 24,
                 "missing required key 'frequency' in inputs[0].signal[1].sine", 1);
    expect_error("two kinds in a term",
                 BODY MARKERS INPUT "    signal: {step: {time: 1, after: 2}, sine: {amplitude: 1, "
                                    "frequency: 1}}\n",
                 13, 13, "a signal term has exactly one of", 1);
    expect_error("signal table time", BODY MARKERS INPUT "    signal: {table: [[1, 0], [0, 1]]}\n",
                 13, 21, "inputs[0].signal.table: table x not strictly increasing", 1);
    expect_error("negative frequency",
                 BODY MARKERS INPUT "    signal: {sweep: {amplitude: 1, f0: -1, f1: 2, start: 0, "
                                    "end: 1}}\n",
                 13, 40, "inputs[0].signal.sweep.f0: -1 out of range [0, 100000] Hz", 1);
    expect_error("signal string", BODY MARKERS INPUT "    signal: abc\n", 13, 13,
                 "inputs[0].signal: expected a number, got 'abc'", 1);

    /* documents */
    expect_error("empty document", "# nothing\n", 1, 1, "empty document", 1);
    expect_error("not a mapping", "- 1\n- 2\n", 1, 1, "expected a mapping, got a sequence", 1);
    expect_error("two documents", BODY "---\nbodies: []\n", 5, 1, "a second YAML document", 1);
}

/* independent errors are all reported, in source order */
/* a tyre's `contact` (core/tire_env.h): accepted forms and located errors */
#define TYRE(contact)                                                                              \
    BODY "markers:\n  - {name: c, body: a, position: [0, 0, 0]}\ntires:\n  - name: t\n"            \
         "    marker: c\n    tir: config/tires/passenger_185_80R14_pac2002.tir\n    "              \
         "contact: " contact "\n"

static void test_tyre_contact(void)
{
    struct vd_source *src = NULL;
    char *diag;
    struct vd_model *m = load(TYRE("envelope"), &src, &diag);

    CHECK(m && m->ntire == 1 && m->tire[0].env.on && m->tire[0].env.ns > 0 &&
              fabs(m->tire[0].env.ae - 0.376) < 1e-12 && fabs(m->tire[0].env.ce - 1.8) < 1e-12,
          "envelope with the defaults:\n%s", diag ? diag : "");
    vd_model_free(m);
    vd_source_free(src);
    free(diag);
    src = NULL;
    m = load(TYRE("{type: envelope, order: 2.5, road_increment: 0.005}"), &src, &diag);
    CHECK(m && m->tire[0].env.on && m->tire[0].env.ce == 2.5 && m->tire[0].env.ds == 0.005,
          "envelope mapping:\n%s", diag ? diag : "");
    vd_model_free(m);
    vd_source_free(src);
    free(diag);
    src = NULL;
    m = load(TYRE("point"), &src, &diag);
    CHECK(m && !m->tire[0].env.on, "point:\n%s", diag ? diag : "");
    vd_model_free(m);
    vd_source_free(src);
    free(diag);
    m = load(BODY "markers:\n  - {name: c, body: a, position: [0, 0, 0]}\ntires:\n  - name: t\n"
                  "    marker: c\n    tir: config/tires/suv_255_55R20_mf61.tir\n"
                  "    inflation_pressure: 2.2e5\n",
             &src, &diag);
    CHECK(m && m->tire[0].pressure == 2.2e5, "MF 6.1 pressure:\n%s", diag ? diag : "");
    vd_model_free(m);
    vd_source_free(src);
    free(diag);
    expect_error("pressure on MF 5.2",
                 BODY "markers:\n  - {name: c, body: a, position: [0, 0, 0]}\ntires:\n  - name: t\n"
                      "    marker: c\n    tir: config/tires/passenger_185_80R14_pac2002.tir\n"
                      "    inflation_pressure: 2.2e5\n",
                 11, 25, "tires[0].inflation_pressure: the tyre file is MF 5.2", 1);
    expect_error("contact value", TYRE("knife"), 11, 14,
                 "tires[0].contact: unknown value 'knife' (expected one of: point, envelope)", 1);
    expect_error("contact order", TYRE("{type: envelope, order: 0.5}"), 11, 38,
                 "tires[0].contact.order: 0.5 out of range (1, 10]", 1);
    expect_error("contact point with a factor", TYRE("{type: point, shift: 0.5}"), 11, 35,
                 "tires[0].contact.shift: only for type envelope", 1);
    expect_error("contact increment", TYRE("{type: envelope, road_increment: 0.0001}"), 11, 14,
                 "tires[0].contact: enveloping: 8024 road samples per evaluation (at most 256)", 1);
}

/* rack_pinion: the column is straight (config/tpl_steering.c); lines 5.. */
#define STEER(uju)                                                                                 \
    BODY "steering:\n  type: rack_pinion\n  mount: a\n  location: [0, 0, 0]\n  ratio: 0.0085\n"    \
         "  hardpoints:\n    steering_wheel: [-0.70, 0.37, 0.62]\n"                                \
         "    torsion_bar: [-0.45, 0.37, 0.48]\n    ujoint_upper: " uju "\n"                       \
         "    ujoint_lower: [-0.10, 0.25, 0.16]\n    pinion: [0.0, 0.20, 0.06]\n"                  \
         "    rack_center: [0.0, 0.0, 0.0]\n  bodies:\n"                                           \
         "    steering_wheel: {mass: 3.0, inertia: [0.04, 0.03, 0.03]}\n"                          \
         "    column: {mass: 1.2, inertia: [0.01, 0.01, 0.002]}\n"                                 \
         "    intermediate_shaft: {mass: 0.6, inertia: [0.005, 0.005, 0.0005]}\n"                  \
         "    pinion: {mass: 0.3, inertia: [0.0003, 0.0003, 0.0001]}\n"                            \
         "    rack: {mass: 3.0, inertia: [0.15, 0.002, 0.15]}\n"

static void test_steering_column(void)
{
    struct vd_source *src = NULL;
    char *diag;
    /* on the axis: z = 0.48 - 0.56 (x + 0.45) at x = -0.30 */
    struct vd_model *m = load(STEER("[-0.30, 0.37, 0.396]"), &src, &diag);

    CHECK(m && vd_model_find_bushing(m, "steering.column_bearing") >= 0, "straight column:\n%s",
          diag ? diag : "");
    vd_model_free(m);
    vd_source_free(src);
    free(diag);
    /* the sedan's point until it was found to clamp the column: 20.3 mm off the axis */
    expect_error("column off its axis", STEER("[-0.30, 0.35, 0.40]"), 13, 19,
                 "steering.hardpoints.ujoint_upper: not on the column axis steering_wheel -> "
                 "torsion_bar beyond torsion_bar (20.3 mm off",
                 1);
    /* on the axis, but above the torsion bar */
    expect_error("column reversed", STEER("[-0.95, 0.37, 0.76]"), 13, 19, "(0.0 mm off the axis",
                 1);
}

/* the pitman_arm steering of config/vehicles/hmmwv.yaml; lines 5.. */
#define PITMAN                                                                                     \
    BODY "steering:\n  type: pitman_arm\n  mount: a\n  location: [1.24498, 0, 0.101322]\n"         \
         "  ratio: 0.05\n  hardpoints:\n    steering_wheel: [-0.40, 0.45, 0.75]\n"                 \
         "    column_lower: [-0.05, 0.30, 0.15]\n    pitman_pivot: [0.0, 0.249, 0.0]\n"            \
         "    pitman_link: [0.1223, 0.249, -0.0409]\n    idler_pivot: [0.0, -0.325, 0.0]\n"        \
         "    idler_link: [0.1223, -0.325, -0.0409]\n  bodies:\n"                                  \
         "    steering_wheel: {mass: 4.0, inertia: [0.06, 0.05, 0.05]}\n"                          \
         "    pitman_arm: {mass: 1.605, inertia: [0.00638, 0.00756, 0.0015]}\n"                    \
         "    idler_arm: {mass: 1.605, inertia: [0.00638, 0.00756, 0.0015]}\n"                     \
         "    link: {mass: 3.681, inertia: [0.252, 0.00233, 0.254]}\n"

/* the slope at 0 of component comp's stiffness (s = 1) or damping (s = 0) of bushing name */
static double bush_rate(const struct vd_model *m, const char *name, int comp, int s)
{
    int i = m ? vd_model_find_bushing(m, name) : -1;
    double dy = -1.0;

    CHECK(i >= 0, "bushing %s", name);
    if (i >= 0)
        vd_curve_eval(m, s ? &m->bush[i].stiff[comp] : &m->bush[i].damp[comp], 0.0, &dy);
    return dy;
}

/* the slope at 0 of coupler name's stiffness (s = 1) or damping (s = 0) */
static double coupler_rate(const struct vd_model *m, const char *name, int s)
{
    int i = m ? vd_model_find_coupler(m, name) : -1;
    double dy = -1.0;

    CHECK(i >= 0, "coupler %s", name);
    if (i >= 0)
        vd_curve_eval(m, s ? &m->coupler[i].stiff : &m->coupler[i].damp, 0.0, &dy);
    return dy;
}

/* the steering's `bushings` (config/tpl_steering.c): each joint kind's spec reaches its
 * bushings, the rest keep their defaults, and a bad key, value or component is a located
 * error. Rates are copied (linear curves: the slope is the number given): exact */
static void test_steering_bushings(void)
{
    char text[4096];
    struct vd_source *src = NULL;
    char *diag;
    struct vd_model *m;

    /* the column on its axis (test_steering_column) */
    snprintf(text, sizeof(text), "%s", STEER("[-0.30, 0.37, 0.396]"));
    m = load(text, &src, &diag);
    CHECK(m != NULL, "rack_pinion defaults:\n%s", diag ? diag : "");
    CHECK_NEAR(bush_rate(m, "steering.ujoint_upper", 3, 1), 2e4, 0.0, "ujoint rx default");
    CHECK_NEAR(bush_rate(m, "steering.pinion_bearing", 1, 1), 1e7, 0.0, "bearing y default");
    CHECK_NEAR(bush_rate(m, "steering.rack_guide", 4, 1), 1e5, 0.0, "rack ry default");
    vd_model_free(m);
    vd_source_free(src);
    free(diag);
    src = NULL;
    snprintf(text, sizeof(text), "%s",
             STEER("[-0.30, 0.37, 0.396]") "  bushings:\n"
                                           "    bearing: {radial: 3.0e8, conical: 2.0e6}\n"
                                           "    torsion_bar: {axial: 4.0e8, damping: 1.0e-4}\n"
                                           "    ujoint: {torsional: 5.0e5, conical: 7}\n"
                                           "    rack: {radial: 6.0e8, torsional: 8.0e6}\n");
    m = load(text, &src, &diag);
    CHECK(m != NULL, "rack_pinion bushings:\n%s", diag ? diag : "");
    for (int k = 0; k < 3 && m; k++) {
        static const char *const b[] = {"steering.wheel_bearing", "steering.column_bearing",
                                        "steering.pinion_bearing"};

        /* radial y z and conical ry given, axial x the default */
        CHECK_NEAR(bush_rate(m, b[k], 1, 1), 3e8, 0.0, b[k]);
        CHECK_NEAR(bush_rate(m, b[k], 2, 1), 3e8, 0.0, b[k]);
        CHECK_NEAR(bush_rate(m, b[k], 4, 1), 2e6, 0.0, b[k]);
        CHECK_NEAR(bush_rate(m, b[k], 0, 1), 1e7, 0.0, b[k]);
    }
    if (m) {
        /* the servo keeps the steering wheel's rx (mode angle: servo_stiffness 2e4) */
        CHECK_NEAR(bush_rate(m, "steering.wheel_bearing", 3, 1), 2e4, 0.0, "servo");
        CHECK_NEAR(bush_rate(m, "steering.torsion_bar", 0, 1), 4e8, 0.0, "torsion bar x");
        /* its torsional rate stays `torsion_bar` (115); the damping is the time constant
         * given times the rate, 1e-4 s x 4e8 N/m: one product, rounded once (half an ulp of
         * 4e4, within 4e4 x DBL_EPSILON) */
        CHECK_NEAR(bush_rate(m, "steering.torsion_bar", 3, 1), 115.0, 0.0, "torsion bar rx");
        CHECK_NEAR(bush_rate(m, "steering.torsion_bar", 0, 0), 4e4, 4e4 * DBL_EPSILON,
                   "torsion bar x damping");
        CHECK_NEAR(bush_rate(m, "steering.ujoint_lower", 3, 1), 5e5, 0.0, "ujoint rx");
        CHECK_NEAR(bush_rate(m, "steering.ujoint_upper", 5, 1), 7.0, 0.0, "ujoint rz");
        CHECK_NEAR(bush_rate(m, "steering.rack_guide", 1, 1), 6e8, 0.0, "rack y");
        CHECK_NEAR(bush_rate(m, "steering.rack_guide", 3, 1), 8e6, 0.0, "rack rx");
        /* the rack's x is its end stops (zero rate inside the travel) and rack_damping */
        CHECK_NEAR(bush_rate(m, "steering.rack_guide", 0, 1), 0.0, 0.0, "rack x: the stops");
        CHECK_NEAR(bush_rate(m, "steering.rack_guide", 0, 0), 500.0, 0.0, "rack x damping");
    }
    vd_model_free(m);
    vd_source_free(src);
    free(diag);
    /* pitman_arm: defaults, then its kinds */
    src = NULL;
    m = load(PITMAN, &src, &diag);
    CHECK(m != NULL, "pitman_arm defaults:\n%s", diag ? diag : "");
    CHECK_NEAR(bush_rate(m, "steering.pitman_link", 3, 1), 1e5, 0.0, "pitman ujoint rx");
    CHECK_NEAR(bush_rate(m, "steering.idler_link", 4, 1), 5.0, 0.0, "ball ry");
    CHECK_NEAR(coupler_rate(m, "steering.box", 1), 2e5, 0.0, "box default");
    CHECK_NEAR(coupler_rate(m, "steering.box", 0), 200.0, 0.0, "box damping default");
    vd_model_free(m);
    vd_source_free(src);
    free(diag);
    /* box_stiffness: the box coupler's rate, its damping 1e-3 s x it */
    src = NULL;
    m = load(PITMAN "  box_stiffness: 2.0e6\n", &src, &diag);
    CHECK(m != NULL, "pitman_arm box_stiffness:\n%s", diag ? diag : "");
    CHECK_NEAR(coupler_rate(m, "steering.box", 1), 2e6, 0.0, "box_stiffness");
    CHECK_NEAR(coupler_rate(m, "steering.box", 0), 2e3, 1e-12, "box damping");
    vd_model_free(m);
    vd_source_free(src);
    free(diag);
    expect_error("box_stiffness < 0", PITMAN "  box_stiffness: -1\n", 22, 18, "out of range", 1);
    src = NULL;
    m = load(PITMAN "  bushings:\n    bearing: {axial: 2.0e9}\n"
                    "    ujoint: {radial: 3.0e9, conical: 0.05}\n"
                    "    ball_joint: {radial: 4.0e9, torsional: 0.05, conical: 0.05}\n",
             &src, &diag);
    CHECK(m != NULL, "pitman_arm bushings:\n%s", diag ? diag : "");
    CHECK_NEAR(bush_rate(m, "steering.idler_bearing", 0, 1), 2e9, 0.0, "idler bearing x");
    CHECK_NEAR(bush_rate(m, "steering.pitman_bearing", 0, 1), 2e9, 0.0, "pitman bearing x");
    CHECK_NEAR(bush_rate(m, "steering.pitman_link", 1, 1), 3e9, 0.0, "pitman ujoint y");
    CHECK_NEAR(bush_rate(m, "steering.pitman_link", 3, 1), 1e5, 0.0, "pitman ujoint rx default");
    CHECK_NEAR(bush_rate(m, "steering.pitman_link", 5, 1), 0.05, 0.0, "pitman ujoint rz");
    CHECK_NEAR(bush_rate(m, "steering.idler_link", 2, 1), 4e9, 0.0, "ball z");
    CHECK_NEAR(bush_rate(m, "steering.idler_link", 3, 1), 0.05, 0.0, "ball rx");
    vd_model_free(m);
    vd_source_free(src);
    free(diag);
    /* errors, located at the offending key or value (the bushings start on line 23 of
     * STEER, 22 of PITMAN) */
    expect_error("rack_pinion kind",
                 STEER("[-0.30, 0.37, 0.396]") "  bushings:\n"
                                               "    ball_joint: {radial: 1}\n",
                 24, 5, "unknown key 'ball_joint' in steering.bushings", 1);
    expect_error("pitman kind", PITMAN "  bushings:\n    rack: {radial: 1}\n", 23, 5,
                 "unknown key 'rack' in steering.bushings", 1);
    expect_error("negative rate",
                 STEER("[-0.30, 0.37, 0.396]") "  bushings:\n    ujoint: {radial: -1.0e7}\n", 24,
                 22, "steering.bushings.ujoint.radial", 1);
    expect_error("unknown component",
                 STEER("[-0.30, 0.37, 0.396]") "  bushings:\n    ujoint: {stiffness: 1.0e7}\n", 24,
                 14, "unknown key 'stiffness' in steering.bushings.ujoint", 1);
    expect_error("bearing torsional",
                 STEER("[-0.30, 0.37, 0.396]") "  bushings:\n    bearing: {torsional: 10}\n", 24,
                 26, "steering.bushings.bearing.torsional: not a rate of this joint", 1);
    expect_error("torsion bar torsional",
                 STEER("[-0.30, 0.37, 0.396]") "  bushings:\n    torsion_bar: {torsional: 10}\n",
                 24, 30, "the torsion bar's rate is the key `torsion_bar`", 1);
    expect_error("rack axial", STEER("[-0.30, 0.37, 0.396]") "  bushings:\n    rack: {axial: 10}\n",
                 24, 19, "steering.bushings.rack.axial: not a rate of this joint", 1);
    expect_error("pitman bearing torsional", PITMAN "  bushings:\n    bearing: {torsional: 10}\n",
                 23, 26, "steering.bushings.bearing.torsional: not a rate of this joint", 1);
    /* with ideal joints the bushings they replace are still checked */
    expect_error("joints: checked all the same",
                 PITMAN "  connection: joints\n  bushings:\n    ball_joint: {conical: -5}\n", 24,
                 27, "steering.bushings.ball_joint.conical", 1);
    expect_error("not a mapping", PITMAN "  bushings: 3\n", 22, 13,
                 "steering.bushings: expected a mapping", 1);
}

static void test_many_errors(void)
{
    const char *text = "solver:\n"
                       "  dt: 0.5\n" /* 2:7 */
                       "bodies:\n"
                       "  - {name: a, mass: -3, inertia: [1, 1, 1]}\n" /* 4:21 */
                       "  - {name: b, mass: 1, inertia: [1, 1, 5]}\n"  /* 5:33 */
                       "markers:\n"
                       "  - {name: m, body: c, position: [0, 0, 0]}\n"; /* 7:21 */
    char *diag, *p, *q, *r, *s;
    struct vd_model *m = load(text, NULL, &diag);
    char big[8192];
    size_t used = 0;

    CHECK(m == NULL, "loaded");
    CHECK(diag && count(diag, ": error: ") == 4, "expected 4 errors:\n%s", diag);
    p = diag ? strstr(diag, "t.yaml:2:7: error: solver.dt") : NULL;
    q = diag ? strstr(diag, "t.yaml:4:21: error: bodies[0].mass") : NULL;
    r = diag ? strstr(diag, "t.yaml:5:33: error: bodies[1].inertia") : NULL;
    s = diag ? strstr(diag, "t.yaml:7:21: error: markers[0].body: unknown body 'c'") : NULL;
    CHECK(p && q && r && s && p < q && q < r && r < s, "errors not in source order:\n%s", diag);
    free(diag);

    /* 25 bad bodies: 20 shown, then a note */
    used += (size_t)snprintf(big + used, sizeof(big) - used, "bodies:\n");
    for (int i = 0; i < 25; i++)
        used += (size_t)snprintf(big + used, sizeof(big) - used,
                                 "  - {name: b%d, mass: -1, inertia: [1, 1, 1]}\n", i);
    m = load(big, NULL, &diag);
    CHECK(m == NULL, "loaded");
    CHECK(diag && count(diag, ": error: ") == 20, "expected 20 errors shown:\n%s", diag);
    CHECK(diag && strstr(diag, "t.yaml: note: 5 more errors not shown"), "no note:\n%s", diag);
    {
        const char *first =
            "t.yaml:2:22: error: bodies[0].mass: -1 out of range [0.001, 100000] kg\n";

        CHECK(diag && !strncmp(diag, first, strlen(first)), "first of many:\n%s", diag);
    }
    free(diag);
}

/* the example file: loads from disk and runs 1 s with the step input installed */
static void test_example_file(void)
{
    struct vd_source *src = NULL;
    struct vd_model *m = vd_cfg_load_model("config/models/two_body.yaml", &src, stderr);
    struct vd_data *d;
    double u[1];

    CHECK(m != NULL && src != NULL, "two_body.yaml did not load");
    if (!m || !src) {
        vd_model_free(m);
        vd_source_free(src);
        return;
    }
    CHECK(!strcmp(m->name, "two_body"), "name %s", m->name);
    CHECK(m->nbody == 2 && m->nmarker == 6 && m->nbush == 2 && m->np2p == 1 && m->ninput == 1,
          "counts %d %d %d %d %d", m->nbody, m->nmarker, m->nbush, m->np2p, m->ninput);
    CHECK(m->p2p[0].has_spring && m->p2p[0].has_damper && m->p2p[0].has_bump, "strut parts");
    CHECK(m->bush[0].stiff[2].kind == VD_CURVE_LINEAR && m->bush[0].stiff[2].k == 0.0,
          "guide free in z");
    CHECK(m->bush[1].stiff[2].kind == VD_CURVE_TABLE, "tire z table");
    vd_source_eval(src, 0.499, u);
    CHECK_NEAR(u[0], 0, 0, "step before 0.5 s");
    vd_source_eval(src, 0.5, u);
    CHECK_NEAR(u[0], -1000, 0, "step at 0.5 s");

    d = vd_data_new(m);
    CHECK(d != NULL, "vd_data_new");
    if (d) {
        int fails = 0;

        d->input_fn = vd_source_eval;
        d->input_ctx = src;
        for (int i = 0; i < 1000; i++)
            fails += vd_step(m, d) != 0;
        CHECK(fails == 0, "%d failed steps", fails);
        for (int k = 0; k < m->nq; k++)
            CHECK(isfinite(d->r[k]) && isfinite(d->v[k]), "state %d not finite", k);
        /* the sprung mass went down after the -1000 N step (strut 2e4 N/m, tire 2.4e5 N/m) */
        CHECK(d->r[2] < 0.6, "sprung z %g", d->r[2]);
        vd_data_free(d);
    }
    vd_source_free(src);
    vd_model_free(m);

    /* a missing file */
    {
        char *diag = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&diag, &size);

        m = vd_cfg_load_model("config/models/nonexistent.yaml", &src, f);
        fclose(f);
        CHECK(m == NULL && src == NULL, "missing file loaded");
        CHECK(diag && strstr(diag, "config/models/nonexistent.yaml: error: cannot read"),
              "missing file message: %s", diag);
        free(diag);
    }
}

/* hostile sizes: collections nested 100,000 deep get a located error at the first level past
 * VD_YDOC_MAX_DEPTH (libyaml's scanner alone took ~50 s on them before the depth check), and
 * an error on a 20 MB line shows VD_YDOC_CONTEXT characters around its column */
static void test_hostile(void)
{
    const size_t deep = 100000, longn = 20000000;
    char *text = malloc(2 * deep + 16), *diag = NULL, *l2, *l3;
    struct vd_source *src = NULL;
    struct vd_model *m;
    size_t n = 0;

    if (!text)
        return;
    memcpy(text, "model: ", 7);
    memset(text + 7, '[', deep);
    memset(text + 7 + deep, ']', deep);
    strcpy(text + 7 + 2 * deep, "\n");
    m = load(text, &src, &diag);
    CHECK(m == NULL, "deep: loaded");
    /* the top-level mapping is the first level: the 64th [ (column 8 + 63) is the 65th */
    CHECK(diag &&
              !strncmp(diag, "t.yaml:1:71: error: collections nested deeper than 64 levels", 60),
          "deep: %.200s", diag ? diag : "(none)");
    CHECK(diag && strlen(diag) < 600, "deep: %zu bytes of diagnostics", diag ? strlen(diag) : 0);
    free(diag);
    free(text);
    /* a name of 20 MB, then an unknown key at column 20,000,017 */
    text = malloc(longn + 64);
    if (!text)
        return;
    n = (size_t)sprintf(text, "model: {name: ");
    memset(text + n, 'x', longn);
    strcpy(text + n + longn, ", bogus: 1}\n");
    m = load(text, &src, &diag);
    CHECK(m == NULL, "long line: loaded");
    l2 = diag ? strstr(diag, "t.yaml:1:20000017: error: unknown key 'bogus'") : NULL;
    CHECK(l2 != NULL, "long line: %.300s", diag ? diag : "(none)");
    /* the source window: "  ..." + 100 characters ending with the line, the caret under b */
    l2 = l2 ? strchr(l2, '\n') : NULL;
    l3 = l2 ? strchr(l2 + 1, '\n') : NULL;
    CHECK(l2 && l3 && l3 - l2 - 1 == 2 + 3 + VD_YDOC_CONTEXT && !strncmp(l2 + 1, "  ...", 5) &&
              !strncmp(l3 - 11, ", bogus: 1}", 11),
          "long line: window %.*s", l2 && l3 ? (int)(l3 - l2) : 0, l2 ? l2 : "");
    CHECK(l3 && l3[1 + 2 + 3 + VD_YDOC_CONTEXT - 9] == '^', "long line: caret %.120s",
          l3 ? l3 : "");
    CHECK(diag && strlen(diag) < 1000, "long line: %zu bytes of diagnostics",
          diag ? strlen(diag) : 0);
    free(diag);
    free(text);
}

int main(void)
{
    test_hostile();
    test_full_model();
    test_defaults();
    test_errors();
    test_joint_errors();
    test_tyre_contact();
    test_steering_column();
    test_steering_bushings();
    test_many_errors();
    test_example_file();
    return vt_report("test_model_yaml");
}
