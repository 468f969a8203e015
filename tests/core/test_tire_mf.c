/* tests/core/test_tire_mf.c - Magic Formula tyre model (core/tire_mf) and its .tir reader
 * (config/tir): coefficients read by hand from each file, malformed-file diagnostics,
 * every analytic partial against central differences, physical sanity per tyre, the
 * friction-ellipse fallback, and no allocation in vd_mf_eval (interposed malloc & co., not
 * under ASan/TSan, which replace malloc themselves).
 *
 * `test_tire_mf --eval FILE.tir` is the back end of the independent reference
 * tests/core/mf_reference.py (ctest mf_reference): it reads "kappa alpha gamma fz mu vx"
 * lines from stdin and prints "fx fy mz my mx dfx[4] dfy[4] dmz[4] sk sa dsk dsa" lines. */
#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "config/tir.h"
#include "config/vfs.h"
#include "core/tire_mf.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define VT_INTERPOSE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||                         \
    __has_feature(memory_sanitizer)
#define VT_INTERPOSE 0
#endif
#endif
#ifndef VT_INTERPOSE
#define VT_INTERPOSE 1
#endif

#define PI    3.14159265358979323846
#define NN(s) ((s) ? (s) : "")

static const char *const tires[] = {
    "config/tires/passenger_185_80R14_pac2002.tir",
    "config/tires/passenger_245_40R18_pac2002_pure_slip_only.tir",
    "config/tires/hmmwv_37x12.5R16.5_pac2002.tir",
};
#define NTIRES 3

/* ---- allocation counter ---------------------------------------------------------------- */

#if VT_INTERPOSE
#include "noalloc.h"
#endif

/* ---- helpers ------------------------------------------------------------------------------ */

static struct vd_mf_out ev(const struct vd_mf_params *p, double kappa, double alpha, double gamma,
                           double fz, double mu, double vx)
{
    struct vd_mf_in in = {kappa, alpha, gamma, fz, mu, vx, 0.0};
    struct vd_mf_out out;

    vd_mf_eval(p, &in, &out);
    return out;
}

/* load a .tir file; *diag (may be NULL) receives what was printed */
static int load(const char *path, struct vd_mf_params *p, char **diag)
{
    size_t size = 0;
    char *buf = NULL;
    FILE *f = open_memstream(&buf, &size);
    int rc;

    if (!f) {
        CHECK(f != NULL, "open_memstream");
        return -ENOMEM;
    }
    /* vd_tir_load sends its notes elsewhere (vd_tir_notes_to, once per file): read the file
     * and parse it, errors and notes to f */
    {
        char *text = NULL;
        size_t len = 0;

        rc = vd_cfg_read(path, &text, &len);
        if (rc)
            fprintf(f, "%s: error: cannot read: %s\n", path, vd_cfg_strerror(rc));
        else
            rc = vd_tir_parse(path, text, len, p, f);
        free(text);
    }
    fclose(f);
    if (diag)
        *diag = buf;
    else
        free(buf);
    return rc;
}

/* vd_tir_load's notes: nowhere by default, to the stream of vd_tir_notes_to when set, once
 * per file (under any spelling of its path); its errors always to errf */
static void test_notes(void)
{
    struct vd_mf_params p;
    size_t size = 0;
    char *buf = NULL, *err = NULL, path2[512];
    FILE *f = open_memstream(&buf, &size), *e;
    const char *s;
    int n = 0;

    if (!f)
        return;
    CHECK(vd_tir_load(tires[1], &p, f) == 0, "load without notes");
    fflush(f);
    CHECK(size == 0, "notes printed unasked: %s", buf);
    vd_tir_notes_to(f);
    snprintf(path2, sizeof(path2), "config/../config/tires/%s", strrchr(tires[1], '/') + 1);
    CHECK(vd_tir_load(tires[1], &p, NULL) == 0 && vd_tir_load(path2, &p, NULL) == 0, "loads");
    vd_tir_notes_to(NULL);
    fclose(f);
    for (s = buf; (s = strstr(s, "note: section skipped: SHAPE")); s++)
        n++;
    CHECK(n == 1, "notes of one file printed %d times:\n%s", n, buf);
    free(buf);
    /* errors go to errf whatever the notes setting */
    size = 0;
    e = open_memstream(&err, &size);
    if (!e)
        return;
    CHECK(vd_tir_load("config", &p, e) == -EISDIR, "a directory");
    fclose(e);
    CHECK(err && strstr(err, "config: error: cannot read: is a directory"), "%s", err);
    free(err);
}

/* parse text as "t.tir"; *diag receives what was printed */
static int parse(const char *text, struct vd_mf_params *p, char **diag)
{
    size_t size = 0;
    FILE *f = open_memstream(diag, &size);
    int rc;

    if (!f) {
        CHECK(f != NULL, "open_memstream");
        return -ENOMEM;
    }
    rc = vd_tir_parse("t.tir", text, strlen(text), p, f);
    fclose(f);
    return rc;
}

static bool all_finite(const struct vd_mf_out *o)
{
    const double *v = &o->fx;

    for (size_t i = 0; i < sizeof(*o) / sizeof(double); i++)
        if (!isfinite(v[i]))
            return false;
    return true;
}

/* ---- .tir reader --------------------------------------------------------------------------- */

static void test_tir_files(void)
{
    struct vd_mf_params p;
    char *diag = NULL;
    int rc;

    /* values read by hand from each file */
    rc = load(tires[0], &p, &diag);
    CHECK(rc == 0, "%s: rc %d\n%s", tires[0], rc, NN(diag));
    CHECK_NEAR(p.fnomin, 3800, 0, "185 FNOMIN");
    CHECK_NEAR(p.unloaded_radius, 0.376, 0, "185 UNLOADED_RADIUS");
    CHECK_NEAR(p.vertical_stiffness, 1.75e5, 0, "185 VERTICAL_STIFFNESS (1.75e+005)");
    CHECK_NEAR(p.longvl, 16.7, 0, "185 LONGVL");
    CHECK_NEAR(p.pcx1, 1.5587, 0, "185 PCX1");
    CHECK_NEAR(p.pdx3, 9.9376e-6, 0, "185 PDX3 (9.9376e-006)");
    CHECK_NEAR(p.pvx1, -9.9052e-6, 0, "185 PVX1");
    CHECK_NEAR(p.rbx1, 14.927, 0, "185 RBX1");
    CHECK_NEAR(p.pky1, -12.536, 0, "185 PKY1");
    CHECK_NEAR(p.pty2, 1.9465, 0, "185 PTY2");
    CHECK_NEAR(p.qsy1, 0.01, 0, "185 QSY1");
    CHECK_NEAR(p.ssz2, -0.013391, 0, "185 SSZ2");
    CHECK_NEAR(p.mbelt, 3.5, 0, "185 MBELT");
    CHECK(p.flags == (VD_MF_HAS_FX | VD_MF_HAS_FY | VD_MF_HAS_MZ | VD_MF_HAS_COMBINED |
                      VD_MF_HAS_MX | VD_MF_HAS_MY | VD_MF_HAS_RELAX),
          "185 flags 0x%x", p.flags);
    CHECK(p.side == VD_MF_LEFT, "185 TYRESIDE");
    CHECK(diag && !strstr(diag, "unknown key") && !strstr(diag, "error"), "185 notes:\n%s",
          NN(diag));
    CHECK(diag && strstr(diag, "section skipped: SHAPE"), "185 [SHAPE] note:\n%s", NN(diag));
    free(diag);

    rc = load(tires[1], &p, &diag);
    CHECK(rc == 0, "%s: rc %d\n%s", tires[1], rc, NN(diag));
    CHECK_NEAR(p.fnomin, 4850, 0, "245 FNOMIN");
    CHECK_NEAR(p.lfzo, 0.81, 0, "245 LFZO");
    CHECK_NEAR(p.vertical_stiffness, 280835.2941, 0, "245 VERTICAL_STIFFNESS");
    CHECK_NEAR(p.pdy3, -2.8821, 0, "245 PDY3");
    CHECK_NEAR(p.pey4, -760.14, 0, "245 PEY4");
    CHECK_NEAR(p.ptx2, 1.4112, 0, "245 PTX2");
    CHECK_NEAR(p.qdz9, 0.029952, 0, "245 QDZ9");
    CHECK_NEAR(p.pdx3, 0, 0, "245 PDX3 (absent -> 0)");
    CHECK_NEAR(p.rbx1, 0, 0, "245 RBX1 (absent -> 0)");
    CHECK_NEAR(p.lgaz, 1, 0, "245 LGAZ");
    CHECK(p.flags == (VD_MF_HAS_FX | VD_MF_HAS_FY | VD_MF_HAS_MZ | VD_MF_HAS_RELAX),
          "245 flags 0x%x (no combined, Mx, My)", p.flags);
    CHECK(diag && strstr(diag, "no combined-slip coefficients") && strstr(diag, "friction-ellipse"),
          "245 fallback note:\n%s", NN(diag));
    CHECK(diag && strstr(diag, "pure longitudinal coefficients missing, set to 0: PDX3"),
          "245 PDX3 note:\n%s", NN(diag));
    CHECK(diag && strstr(diag, "no rolling resistance coefficients: My = 0") &&
              strstr(diag, "no overturning moment coefficients: Mx = 0") &&
              strstr(diag, "aligning moment coefficients missing, set to 0: QBZ10 SSZ1 SSZ2"),
          "245 group notes:\n%s", NN(diag));
    CHECK(diag && strstr(diag, "1 unknown key ignored (first at line 17): MESSAGES"),
          "245 unknown-key note:\n%s", NN(diag));
    free(diag);

    rc = load(tires[2], &p, &diag);
    CHECK(rc == 0, "%s: rc %d\n%s", tires[2], rc, NN(diag));
    CHECK_NEAR(p.fnomin, 35000, 0, "HMMWV FNOMIN");
    CHECK_NEAR(p.lfzo, 0.580904846, 0, "HMMWV LFZO");
    CHECK_NEAR(p.vertical_stiffness, 1e6, 0, "HMMWV VERTICAL_STIFFNESS (tab before $)");
    CHECK_NEAR(p.unloaded_radius, 0.4699, 0, "HMMWV UNLOADED_RADIUS");
    CHECK_NEAR(p.pkx2, -9.8161, 0, "HMMWV PKX2");
    CHECK_NEAR(p.rvy6, -7.8097, 0, "HMMWV RVY6");
    CHECK_NEAR(p.qez5, -645.04, 0, "HMMWV QEZ5");
    CHECK_NEAR(p.qsy1, 0.008, 0, "HMMWV QSY1");
    CHECK_NEAR(p.ptx3, 1, 0, "HMMWV PTX3");
    CHECK(p.flags & VD_MF_HAS_COMBINED, "HMMWV combined");
    CHECK(diag && strstr(diag, "unknown keys ignored") && strstr(diag, "PTX4") &&
              strstr(diag, "MF 6.x keys in an MF 5.2 file, read but not used: ") &&
              strstr(diag, "PPX1") && strstr(diag, "TIRE_CONDITIONS"),
          "HMMWV notes:\n%s", NN(diag));
    free(diag);

    rc = load("config/tires/no_such_file.tir", &p, &diag);
    CHECK(rc == -ENOENT, "missing file: rc %d", rc);
    CHECK(diag && strstr(diag, "no_such_file.tir: error: cannot read"), "%s", NN(diag));
    free(diag);
}

/* one malformed file: rc -EINVAL and the diagnostic contains want */
static void bad(const char *text, const char *want)
{
    struct vd_mf_params p;
    char *diag = NULL;
    int rc = parse(text, &p, &diag);

    CHECK(rc == -EINVAL, "rc %d for\n%s", rc, text);
    CHECK(diag && strstr(diag, want), "expected '%s' in:\n%s", want, NN(diag));
    CHECK(p.fnomin == 0 && p.flags == 0, "params reset after an error");
    free(diag);
}

#define HEAD "[MODEL]\nPROPERTY_FILE_FORMAT = 'PAC2002'\n"
#define DIMS "[DIMENSION]\nUNLOADED_RADIUS = 0.3\n[VERTICAL]\nFNOMIN = 4000\n"

static void test_tir_syntax(void)
{
    struct vd_mf_params p;
    char *diag = NULL;
    int rc;

    /* a minimal file with the lexical variants: CRLF, tabs, lower case, comments with quotes
     * and '=' in them, a '!' inside a string, an unknown section and an unknown key */
    rc = parse("$ header comment = 'x'\r\n"
               "[units]\r\n"
               "length = \"meter\"  ! SI\r\n"
               "[MODEL]\r\n"
               "PROPERTY_FILE_FORMAT\t=\t'PAC2002'\t$ it's 'quoted' = fine\r\n"
               "TYRESIDE = 'RIGHT'\r\n"
               "FILE_NOTE = 'a!b$c'\r\n"
               "[SHAPE]\r\n"
               "{radial width}\r\n"
               " 1.0 0.0\r\n"
               "[Dimension]\r\n"
               "  unloaded_radius=0.31$no blank\r\n"
               "[VERTICAL]\r\n"
               "FNOMIN = 4.5e+003\r\n"
               "[LATERAL_COEFFICIENTS]\r\n"
               "PKY1 = -15 ! trailing\r\n"
               "PKY2 = 1.5",
               &p, &diag);
    CHECK(rc == 0, "minimal file: rc %d\n%s", rc, NN(diag));
    CHECK_NEAR(p.unloaded_radius, 0.31, 0, "unloaded_radius");
    CHECK_NEAR(p.fnomin, 4500, 0, "FNOMIN 4.5e+003");
    CHECK_NEAR(p.pky1, -15, 0, "PKY1");
    CHECK_NEAR(p.pky2, 1.5, 0, "PKY2 without newline");
    CHECK_NEAR(p.lmuy, 1, 0, "LMUY default 1");
    CHECK_NEAR(p.longvl, 16.7, 0, "LONGVL default");
    CHECK(p.side == VD_MF_RIGHT, "TYRESIDE RIGHT");
    CHECK(p.flags == VD_MF_HAS_FY, "flags 0x%x", p.flags);
    CHECK(diag && strstr(diag, "1 unknown key ignored (first at line 7): FILE_NOTE"), "%s",
          NN(diag));
    CHECK(diag && strstr(diag, "section skipped: SHAPE"), "%s", NN(diag));
    CHECK(diag && strstr(diag, "pure lateral coefficients missing, set to 0: PCY1 PDY1"), "%s",
          diag);
    CHECK(diag && strstr(diag, "LONGVL missing: 16.7 m/s"), "%s", NN(diag));
    free(diag);

    /* errors, each located, with the source line and a caret */
    bad(HEAD DIMS "[LONGITUDINAL_COEFFICIENTS]\nPCX1 = 1.6x $ typo\n",
        "t.tir:8:8: error: PCX1: expected a number, got '1.6x'\n  PCX1 = 1.6x $ typo\n         ^");
    bad(HEAD DIMS "[LONGITUDINAL_COEFFICIENTS]\nPDX1 = 'one'\n",
        "t.tir:8:9: error: PDX1: expected a number, got 'one'");
    bad(HEAD DIMS "[LONGITUDINAL_COEFFICIENTS]\nPDX1 1.2\n",
        "t.tir:8:6: error: expected '=' after 'PDX1'");
    bad(HEAD DIMS "[LONGITUDINAL_COEFFICIENTS]\nPDX1 =\n", "t.tir:8:7: error: PDX1: missing value");
    bad(HEAD DIMS "[LONGITUDINAL_COEFFICIENTS]\nPDX1 = 1.2 1.3\n",
        "t.tir:8:12: error: unexpected text after the value of 'PDX1'");
    bad(HEAD DIMS "[LONGITUDINAL_COEFFICIENTS]\n= 1.2\n", "t.tir:8:1: error: expected KEY = value");
    bad(HEAD DIMS "[LONGITUDINAL_COEFFICIENTS]\nPDX1 = nan\n",
        "t.tir:8:8: error: PDX1: nan is not finite");
    bad(HEAD DIMS "[LONGITUDINAL_COEFFICIENTS]\nPDX1 = 1\npdx1 = 2\n",
        "t.tir:9:1: error: duplicate key 'PDX1' (first at line 8)");
    bad("[MODEL]\nPROPERTY_FILE_FORMAT = 'PAC2002\n" DIMS,
        "t.tir:2:24: error: unterminated string");
    bad(HEAD "[DIMENSION\nUNLOADED_RADIUS = 0.3\n[VERTICAL]\nFNOMIN = 4000\n",
        "t.tir:3:1: error: unterminated section header");
    bad("FNOMIN = 4000\n" HEAD DIMS, "t.tir:1:1: error: KEY = value before the first [SECTION]");
    bad(HEAD "[DIMENSION]\nUNLOADED_RADIUS = 0.3\n[VERTICAL]\nFNOMIN = -4000\n",
        "t.tir:6:10: error: FNOMIN: -4000 must be > 0");
    bad(HEAD DIMS "[SCALING_COEFFICIENTS]\nLMUY = 0\n", "t.tir:8:8: error: LMUY: 0 must be > 0");
    bad(HEAD "[VERTICAL]\nFNOMIN = 4000\n",
        "t.tir: error: missing required key UNLOADED_RADIUS in [DIMENSION]");
    bad(DIMS, "t.tir: error: no PROPERTY_FILE_FORMAT or FITTYP");
    bad("[UNITS]\nLENGTH = 'mm'\n" HEAD DIMS,
        "t.tir:2:11: error: LENGTH 'mm' is not supported: only SI units (meter)");
    bad("[UNITS]\nANGLE = 'deg'\n" HEAD DIMS, "error: ANGLE 'deg' is not supported");
    /* MF 6.x: the pressure and the carcass stiffnesses are required; other types refused */
    bad("[MODEL]\nFITTYP = 61\n" DIMS, "t.tir: error: MF 6.1 without NOMPRES");
    bad("[MODEL]\nFITTYP = 62\n" DIMS "[OPERATING_CONDITIONS]\nNOMPRES = 2.6e5\n",
        "t.tir: error: MF 6.2 without LONGITUDINAL_STIFFNESS and LATERAL_STIFFNESS");
    bad("[MODEL]\nFITTYP = 63\n" DIMS, "t.tir:2:10: error: FITTYP 63: expected 5, 6, 21 or 52");
    bad("[MODEL]\nPROPERTY_FILE_FORMAT = 'MF_61'\n" DIMS, "t.tir: error: MF 6.1 without NOMPRES");
    bad("[MODEL]\nPROPERTY_FILE_FORMAT = 'PAC89'\n" DIMS,
        "error: PROPERTY_FILE_FORMAT 'PAC89': expected PAC2002 / MF 5.2 or MF 6.1 / 6.2");
    bad("[MDI_HEADER]\nFILE_TYPE = 'tpf'\n" HEAD DIMS, "t.tir:2:14: error: FILE_TYPE 'tpf'");
    bad(HEAD "TYRESIDE = 'MIDDLE'\n" DIMS, "error: TYRESIDE 'MIDDLE': expected LEFT or RIGHT");

    /* FITTYP alone is enough; MF 5.2 numbers pass */
    rc = parse("[MODEL]\nFITTYP = 6\n" DIMS, &p, &diag);
    CHECK(rc == 0, "FITTYP 6: rc %d\n%s", rc, NN(diag));
    free(diag);
}

/* ---- partials against central differences ---------------------------------------------- */

/* f = (fx, fy, mz) at x = (kappa, alpha, fz, gamma) */
static void f3(const struct vd_mf_params *p, const double x[4], double mu, double vx, double f[3])
{
    struct vd_mf_out o = ev(p, x[0], x[1], x[3], x[2], mu, vx);

    f[0] = o.fx;
    f[1] = o.fy;
    f[2] = o.mz;
}

/* central difference of f3 in input i with step h */
static void central(const struct vd_mf_params *p, const double x[4], int i, double h, double mu,
                    double vx, double d[3])
{
    double xp[4], xm[4], fp[3], fm[3];

    memcpy(xp, x, sizeof(xp));
    memcpy(xm, x, sizeof(xm));
    xp[i] += h;
    xm[i] -= h;
    f3(p, xp, mu, vx, fp);
    f3(p, xm, mu, vx, fm);
    for (int o = 0; o < 3; o++)
        d[o] = (fp[o] - fm[o]) / (2.0 * h);
}

/* a sample in [-range, range]: mostly uniform, some tiny (10^lo .. 10^-2) or exactly 0 */
static double slip_sample(double range, double lo)
{
    double u = vt_uniform(0.0, 1.0);

    if (u < 0.1)
        return 0.0;
    if (u < 0.3)
        return (vt_uniform(0.0, 1.0) < 0.5 ? -1.0 : 1.0) * pow(10.0, vt_uniform(lo, -2.0));
    return vt_uniform(-range, range);
}

/* Partials in normalized units (inputs by 1, 1, Fz0', 1; forces by Fz0', Mz by Fz0' R0),
 * error |an - fd| / (1 + |an|). Steps h = 1e-6 (slips, gamma) and 1e-4 Fz0' (load):
 * truncation h^2/6 |f'''| with |f'''| <~ (B C)^3 ~ 1e4 in these units -> ~2e-9, round-off
 * eps / h ~ 1e-10; TOL_FD = 1e-6 leaves a wide margin yet catches any missing chain-rule
 * term (those are O(1e-3..1)). A stencil that straddles one of the model's kinks (E <= 1
 * clamps, |gamma|) is retried with h/100; at most 1 % of the partials may need that. */
#define TOL_FD 1e-6

static void test_partials(const struct vd_mf_params *p, const char *name, int n)
{
    const double fz0p = p->lfzo * p->fnomin, r0 = p->unloaded_radius;
    const double xs[4] = {1.0, 1.0, fz0p, 1.0}, fs[3] = {fz0p, fz0p, fz0p * r0};
    double worst = 0.0;
    long checked = 0, retried = 0, failed = 0;
    char where[160] = "";

    for (int s = 0; s < n; s++) {
        double x[4], mu = vt_uniform(0.0, 1.0) < 0.8 ? 1.0 : 0.5;
        double vx = vt_uniform(0.0, 1.0) < 0.8 ? 12.0 : -4.0;
        double an[3][4];
        struct vd_mf_out o;

        x[0] = slip_sample(1.0, -9.0);
        x[1] = slip_sample(1.5, -9.0);
        x[2] = vt_uniform(0.0, 1.0) < 0.1 ? vt_uniform(1.0, 50.0) : vt_uniform(0.01, 2.0) * fz0p;
        /* gamma: |gamma| has a true kink at 0; keep nonzero samples out of the stencil */
        x[3] = slip_sample(0.15, -5.0);
        o = ev(p, x[0], x[1], x[3], x[2], mu, vx);
        for (int i = 0; i < 4; i++) {
            an[0][i] = o.dfx[i];
            an[1][i] = o.dfy[i];
            an[2][i] = o.dmz[i];
        }
        for (int i = 0; i < 4; i++) {
            /* at gamma = 0 the central difference averages the |gamma| kink, which matches
             * the sgn(0) = 0 convention only to O(h): use h = 1e-8 there */
            double h = i == 2 ? fmin(1e-4 * fz0p, 0.5 * x[2]) : (i == 3 && x[3] == 0 ? 1e-8 : 1e-6);
            double d[3];

            central(p, x, i, h, mu, vx, d);
            for (int k = 0; k < 3; k++) {
                double a = an[k][i] * xs[i] / fs[k], err = fabs(a - d[k] * xs[i] / fs[k]);

                err /= 1.0 + fabs(a);
                checked++;
                if (err > TOL_FD) {
                    double d2[3];

                    central(p, x, i, h / 100.0, mu, vx, d2);
                    err = fabs(a - d2[k] * xs[i] / fs[k]) / (1.0 + fabs(a));
                    retried++;
                    if (err > TOL_FD) {
                        if (failed++ < 10)
                            fprintf(stderr,
                                    "%s: d%s/d%s at kappa %.9g alpha %.9g fz %.9g gamma %.9g "
                                    "mu %g vx %g: analytic %.9g, fd %.9g / %.9g\n",
                                    name, (const char *[]){"fx", "fy", "mz"}[k],
                                    (const char *[]){"kappa", "alpha", "fz", "gamma"}[i], x[0],
                                    x[1], x[2], x[3], mu, vx, an[k][i], d[k], d2[k]);
                    }
                }
                if (err > worst && err <= TOL_FD) {
                    worst = err;
                    snprintf(where, sizeof(where),
                             "d%s/d%s at kappa %.3g alpha %.3g fz %.4g gamma %.3g mu %g vx %g",
                             (const char *[]){"fx", "fy", "mz"}[k],
                             (const char *[]){"kappa", "alpha", "fz", "gamma"}[i], x[0], x[1], x[2],
                             x[3], mu, vx);
                }
            }
        }
        /* relaxation lengths */
        {
            double h = fmin(1e-4 * fz0p, 0.5 * x[2]);
            struct vd_mf_out op = ev(p, x[0], x[1], x[3], x[2] + h, mu, vx);
            struct vd_mf_out om = ev(p, x[0], x[1], x[3], x[2] - h, mu, vx);
            double dk = (op.sigma_kappa - om.sigma_kappa) / (2 * h);
            double da = (op.sigma_alpha - om.sigma_alpha) / (2 * h);

            CHECK(fabs(dk - o.dsigma_kappa_dfz) * fz0p / r0 < TOL_FD, "%s dsigma_kappa %g vs %g",
                  name, o.dsigma_kappa_dfz, dk);
            CHECK(fabs(da - o.dsigma_alpha_dfz) * fz0p / r0 < TOL_FD, "%s dsigma_alpha %g vs %g",
                  name, o.dsigma_alpha_dfz, da);
        }
    }
    printf("%s: %ld partials vs central differences, max normalized error %.2e (%s), %ld "
           "stencils retried at h/100 (kinks)\n",
           name, checked, worst, where, retried);
    CHECK(failed == 0, "%s: %ld partials disagree with central differences", name, failed);
    CHECK(retried <= checked / 100, "%s: %ld of %ld stencils needed h/100", name, retried, checked);
}

/* ---- physical sanity ---------------------------------------------------------------------- */

/* max over kappa in [0, 1] (sign > 0) or [-1, 0] of sign * fx, and over alpha for fy */
static double peak_fx(const struct vd_mf_params *p, double fz, double sign)
{
    double best = 0.0;

    for (int i = 0; i <= 4000; i++) {
        struct vd_mf_out o = ev(p, sign * i / 4000.0, 0, 0, fz, 1, 10);

        best = fmax(best, sign * o.fx);
    }
    return best;
}

static double peak_fy(const struct vd_mf_params *p, double fz, double sign)
{
    double best = 0.0;

    for (int i = 0; i <= 4000; i++) {
        struct vd_mf_out o = ev(p, 0, sign * 0.5 * i / 4000.0, 0, fz, 1, 10);

        best = fmax(best, -sign * o.fy); /* Fy < 0 for alpha > 0 */
    }
    return best;
}

static void test_sanity(const struct vd_mf_params *p, const char *name)
{
    const double fz0 = p->fnomin, fz0p = p->lfzo * fz0, r0 = p->unloaded_radius;
    const double shx = p->phx1 * p->lhx, shy = p->phy1 * p->lhy; /* at dfz = 0, gamma = 0 */
    struct vd_mf_out o, o2;
    double kya, kx, pk, prev_f = 0, prev_mu = INFINITY;
    bool mono = true;

    /* fz = 0 (and below): no force, no moment, finite partials; extremes are finite */
    for (int i = 0; i < 27; i++) {
        double k = (i % 3 - 1) * 0.7, a = (i / 3 % 3 - 1) * 1.2, g = (i / 9 - 1) * 0.1;

        o = ev(p, k, a, g, 0, 1, 10);
        CHECK(all_finite(&o) && o.fx == 0 && o.fy == 0 && o.mz == 0 && o.my == 0 && o.mx == 0 &&
                  o.sigma_kappa == 0 && o.sigma_alpha == 0,
              "%s: fz = 0 at %g %g %g: fx %g fy %g mz %g", name, k, a, g, o.fx, o.fy, o.mz);
        o2 = ev(p, k, a, g, -100, 1, 10);
        CHECK(o2.fx == 0 && o2.fy == 0 && o2.mz == 0 && o2.dfx[VD_MF_D_FZ] == 0, "%s: fz < 0 is 0",
              name);
    }
    for (int i = 0; i < 16; i++) {
        double k = (i & 1) ? 1.0 : -1.0, a = (i & 2) ? PI / 2 : -PI / 2;

        o = ev(p, (i & 4) ? k : 0.0, (i & 8) ? a : 0.0, 0.0, 3 * fz0, (i & 1) ? 1.0 : 0.0, 0.0);
        CHECK(all_finite(&o), "%s: non-finite output at kappa %g alpha %g, 3 FNOMIN", name,
              (i & 4) ? k : 0.0, (i & 8) ? a : 0.0);
    }

    /* slip stiffnesses at the shifted origins equal the formulas */
    kx = fz0p * p->pkx1 * p->lkx;
    kya = p->pky1 * fz0p * sin(2 * atan(1 / p->pky2)) * p->lky;
    o = ev(p, -shx, 0, 0, fz0p, 1, 10);
    /* B C D = Kx (Cx mux) / (Cx mux + 1e-12): exact to ~1e-12 relative (out.kx, one more
     * rounding); the analytic dFx/dkappa at the origin chains ~20 products and quotients
     * (gamma_20 = 2.2e-15 relative) with the same 1e-12 term: 1e-10 relative */
    CHECK_NEAR(o.dfx[VD_MF_D_KAPPA], kx, 1e-10 * fabs(kx), "Kx = dFx/dkappa at kappa_x = 0");
    CHECK_NEAR(o.kx, kx, 1e-12 * fabs(kx), "out.kx");
    o = ev(p, 0, -shy, 0, fz0p, 1, 10);
    CHECK_NEAR(o.dfy[VD_MF_D_ALPHA], kya, 1e-10 * fabs(kya), "Kya = dFy/dalpha at alpha_y = 0");
    CHECK_NEAR(o.ky, kya, 1e-12 * fabs(kya), "out.ky");

    /* signs (tire_mf.h): driving -> Fx > 0; alpha > 0 -> Fy < 0 (PKY1 < 0), aligning Mz > 0 */
    o = ev(p, 0.05, 0, 0, fz0p, 1, 10);
    CHECK(o.fx > 0, "%s: Fx(kappa 0.05) %g > 0", name, o.fx);
    o = ev(p, 0, 0.03, 0, fz0p, 1, 10);
    CHECK(o.fy < 0 && o.mz > 0, "%s: alpha 0.03: Fy %g < 0, Mz %g > 0", name, o.fy, o.mz);
    CHECK((p->flags & VD_MF_HAS_MY) ? o.my < 0 : o.my == 0,
          "%s: My %g < 0 rolling forward (0 without rolling coefficients)", name, o.my);
    o2 = ev(p, 0, 0.03, 0, fz0p, 1, 0);
    CHECK(o2.my == 0, "%s: My at standstill %g", name, o2.my);

    /* reversing: same forces, trail and residual torque change sign */
    o2 = ev(p, 0.02, 0.03, 0.01, fz0p, 1, -10);
    o = ev(p, 0.02, 0.03, 0.01, fz0p, 1, 10);
    CHECK(o2.fx == o.fx && o2.fy == o.fy && o2.my == -o.my, "%s: reversing forces", name);
    {
        /* Mz = -t Fy' + Mzr + s Fx with t, Mzr odd in sgn(vx): Mz(-) = -Mz(+) + 2 s Fx */
        double sarm = r0 * p->ls * (p->ssz1 + p->ssz2 * o.fy / fz0 + p->ssz3 * 0.01 * p->lgaz);

        /* both sides are sums of ~10 terms <= Fz0' R0 evaluated along different paths: the
         * rounding is gamma_10 Fz0' R0 = 1e-15 Fz0' R0; 1e-9 leaves room for the trail's
         * cosine of a slightly different alpha_r (1e-16 relative changes) */
        CHECK_NEAR(o2.mz, -o.mz + 2 * sarm * o.fx, 1e-9 * fz0p * r0, "reversing Mz");
    }

    /* Fx(kappa) odd about the shifted origin, saturating at Dx; peaks at Fz0' near PDX1, PDY1
     * (grid 2.5e-4 in kappa and alpha: < 1e-6 relative below the peak; SV shifts included) */
    for (int i = 1; i <= 50; i++) {
        double k = i / 50.0;
        struct vd_mf_out a = ev(p, k - shx, 0, 0, fz0p, 1, 10),
                         b = ev(p, -k - shx, 0, 0, fz0p, 1, 10);

        /* odd but for the vertical shift SVx = PVX1 Fz (<= 1e-5 Fz in the shipped files) and
         * the load and camber terms of the shift at kappa_x = 0: 1 % of Dx bounds them;
         * |Fx| <= Dx + |SVx| up to the rounding of D sin(...) (1e-12 relative) */
        CHECK(fabs(a.fx + b.fx) < 0.01 * a.mux * fz0p, "%s: Fx odd at kappa %g: %g %g", name, k,
              a.fx, b.fx);
        CHECK(fabs(a.fx) <= a.mux * fz0p * (1 + 1e-12) + fabs(p->pvx1) * fz0p,
              "%s: |Fx| %g <= Dx at kappa %g", name, a.fx, k);
    }
    pk = peak_fx(p, fz0p, 1);
    CHECK(fabs(pk / fz0p - p->pdx1 * p->lmux) < 1e-5 + fabs(p->pvx1), "%s: peak mux %g vs PDX1 %g",
          name, pk / fz0p, p->pdx1);
    pk = peak_fx(p, fz0p, -1);
    CHECK(fabs(pk / fz0p - p->pdx1 * p->lmux) < 1e-5 + fabs(p->pvx1), "%s: peak -mux %g", name,
          pk / fz0p);
    pk = peak_fy(p, fz0p, 1);
    CHECK(fabs(pk / fz0p - p->pdy1 * p->lmuy) < 1e-5 + fabs(p->pvy1), "%s: peak muy %g vs PDY1 %g",
          name, pk / fz0p, p->pdy1);
    pk = peak_fy(p, fz0p, -1);
    CHECK(fabs(pk / fz0p - p->pdy1 * p->lmuy) < 1e-5 + fabs(p->pvy1), "%s: peak -muy %g", name,
          pk / fz0p);
    o = ev(p, 0, 0, 0, fz0p, 0.5, 10);
    /* one product more than the reference value: a few ulp of mux ~ 1 */
    CHECK_NEAR(o.mux, 0.5 * p->pdx1 * p->lmux, 1e-12, "mu = 0.5 halves mux");

    /* load dependence of the peak: force up, friction coefficient down (PDX2 < 0) */
    for (int i = 1; i <= 15; i++) {
        double fz = 0.1 * i * fz0p, f = peak_fx(p, fz, 1);

        mono = mono && f > prev_f && f / fz < prev_mu;
        prev_f = f;
        prev_mu = f / fz;
    }
    CHECK(mono, "%s: peak Fx rises and peak Fx/Fz falls with Fz on [0.1, 1.5] Fz0'", name);

    /* combined slip reduces the other force */
    for (int i = 1; i <= 4; i++) {
        double a = 0.03 * i, k = 0.05 * i;

        o = ev(p, 0, a, 0, fz0p, 1, 10);
        o2 = ev(p, k, a, 0, fz0p, 1, 10);
        CHECK(fabs(o2.fy) < fabs(o.fy), "%s: |Fy| %g -> %g with kappa %g at alpha %g", name, o.fy,
              o2.fy, k, a);
        o = ev(p, k, 0, 0, fz0p, 1, 10);
        o2 = ev(p, k, a, 0, fz0p, 1, 10);
        CHECK(fabs(o2.fx) < fabs(o.fx), "%s: |Fx| %g -> %g with alpha %g at kappa %g", name, o.fx,
              o2.fx, a, k);
    }

    /* relaxation lengths at Fz0' (dfz = 0): PTX1 R0 Fz0'/Fz0 and PTY1 sin(2 atan(1/PTY2)) R0
     * LFZO */
    o = ev(p, 0, 0, 0, fz0p, 1, 10);
    /* the same products in another order: a few ulp of lengths < 1 m */
    CHECK_NEAR(o.sigma_kappa, p->ptx1 * r0 * p->lfzo * p->lsgkp, 1e-12, "sigma_kappa at Fz0'");
    CHECK_NEAR(o.sigma_alpha, p->pty1 * sin(2 * atan(1 / p->pty2)) * r0 * p->lfzo * p->lsgal, 1e-12,
               "sigma_alpha at Fz0'");

    /* for the report: at FNOMIN */
    o = ev(p, 0, 0, 0, fz0, 1, 10);
    printf("%s at FNOMIN %g N (Fz0' %g N): peak Fx/Fz +%.4f / -%.4f (mux %.4f), peak |Fy|/Fz "
           "%.4f / %.4f (muy %.4f), Kx %.4g N, Kya %.4g N/rad (%.4g N/deg), sigma_kappa %.4f m, "
           "sigma_alpha %.4f m\n",
           name, fz0, fz0p, peak_fx(p, fz0, 1) / fz0, peak_fx(p, fz0, -1) / fz0, o.mux,
           peak_fy(p, fz0, 1) / fz0, peak_fy(p, fz0, -1) / fz0, o.muy, o.kx, o.ky, o.ky * PI / 180,
           o.sigma_kappa, o.sigma_alpha);
}

/* the friction-ellipse fallback (245 file): pure slip exact, inside the ellipse, smooth */
static void test_ellipse(const struct vd_mf_params *p)
{
    const double fz0p = p->lfzo * p->fnomin;
    struct vd_mf_params pure = *p, noshift = *p;
    double worst = 0.0, worst0 = 0.0;

    /* "pure": the MF combined path with Gxa = Gyk = 1 (RBX1 = RBY1 = 0, SVyk = 0) */
    pure.flags |= VD_MF_HAS_COMBINED;
    pure.rbx1 = pure.rby1 = 0;
    pure.rcx1 = pure.rcy1 = 1;
    noshift.phx1 = noshift.phx2 = noshift.pvx1 = noshift.pvx2 = 0;
    noshift.phy1 = noshift.phy2 = noshift.phy3 = noshift.pvy1 = noshift.pvy2 = 0;
    noshift.pvy3 = noshift.pvy4 = 0;
    CHECK(!(p->flags & VD_MF_HAS_COMBINED), "245 file has no combined slip");
    for (int i = -20; i <= 20; i++) {
        double s = i / 20.0;
        struct vd_mf_out e = ev(p, s, 0, 0.05, fz0p, 1, 10), q = ev(&pure, s, 0, 0.05, fz0p, 1, 10);

        /* the same pure-slip formula reached through the ellipse's scaling by 1 (alpha = 0):
         * a few roundings of forces <= Dx ~ Fz0': 1e-12 Fz0' is ~1e4 ulp */
        CHECK(fabs(e.fx - q.fx) <= 1e-12 * fz0p, "ellipse alpha = 0: Fx %.12g vs pure %.12g", e.fx,
              q.fx);
        e = ev(p, 0, 1.5 * s, 0.05, fz0p, 1, 10);
        q = ev(&pure, 0, 1.5 * s, 0.05, fz0p, 1, 10);
        CHECK(fabs(e.fy - q.fy) <= 1e-12 * fz0p, "ellipse kappa = 0: Fy %.12g vs pure %.12g", e.fy,
              q.fy);
    }
    for (int i = -20; i <= 20; i++) {
        for (int j = -20; j <= 20; j++) {
            double k = i / 20.0, a = 0.6 * j / 20.0;
            struct vd_mf_out e = ev(p, k, a, 0, fz0p, 1, 10),
                             z = ev(&noshift, k, a, 0, fz0p, 1, 10);
            double r = pow(e.fx / (e.mux * fz0p), 2) + pow(e.fy / (e.muy * fz0p), 2);
            double r0 = pow(z.fx / (z.mux * fz0p), 2) + pow(z.fy / (z.muy * fz0p), 2);

            worst = fmax(worst, r);
            worst0 = fmax(worst0, r0);
        }
    }
    printf("ellipse fallback: max (Fx/Dx)^2 + (Fy/Dy)^2 = %.6f with the file's shifts, %.15f "
           "without\n",
           worst, worst0);
    /* without shifts the ellipse holds exactly, up to the rounding of squares of ratios <= 1
     * (a few ulp: 1e-12 is ~5000); the file's shifts (SV <= a few % of D) may move the
     * force outside by their size: (1 + 0.05)^2 = 1.1 */
    CHECK(worst0 <= 1 + 1e-12, "inside the friction ellipse without shifts: %.15f", worst0);
    CHECK(worst <= 1.1, "near the friction ellipse with shifts: %.6f", worst);
    /* a locked wheel keeps little side force (force along the sliding direction) */
    {
        struct vd_mf_out e = ev(p, -1, 0.05, 0, fz0p, 1, 10), f = ev(p, 0, 0.05, 0, fz0p, 1, 10);

        /* sliding at kappa -1, alpha 0.05: the force points along the slip velocity, Fy/F =
         * tan(0.05) / 1 = 5 %, where free rolling has the full cornering force: 0.2 is a
         * physical bound, not a rounding tolerance */
        CHECK(fabs(e.fy) < 0.2 * fabs(f.fy), "locked wheel Fy %g vs free rolling %g", e.fy, f.fy);
    }
}

static void test_noalloc(const struct vd_mf_params *p)
{
#if VT_INTERPOSE
    struct vd_mf_in in = {0, 0, 0, p->fnomin, 1, 10, 0.0};
    struct vd_mf_out out;
    double sum = 0;
    long c;

    /* the interposer sees a plain malloc/free pair */
    atomic_store(&calls, 0);
    atomic_store(&armed, 1);
    {
        char *volatile q = malloc(16);

        free(q);
    }
    atomic_store(&armed, 0);
    CHECK(atomic_load(&calls) == 2, "interposer counted %ld calls", atomic_load(&calls));

    atomic_store(&calls, 0);
    atomic_store(&armed, 1);
    for (int i = 0; i < 20000; i++) {
        in.kappa = 0.9 * sin(0.001 * i);
        in.alpha = 1.2 * cos(0.0013 * i);
        in.gamma = 0.1 * sin(0.0007 * i);
        in.fz = p->fnomin * (1.0 + 0.9 * sin(0.0011 * i));
        vd_mf_eval(p, &in, &out);
        sum += out.fx + out.fy + out.mz;
    }
    atomic_store(&armed, 0);
    c = atomic_load(&calls);
    printf("noalloc: 20000 vd_mf_eval calls, %ld allocator calls (checksum %.6g)\n", c, sum);
    CHECK(c == 0, "%ld allocator calls in vd_mf_eval", c);
#else
    (void)p;
    printf("noalloc: skipped under a sanitizer (it replaces malloc)\n");
#endif
}

/* back end of mf_reference.py */
static int eval_stdin(const char *path)
{
    struct vd_mf_params p;
    struct vd_mf_in in;
    int rc = vd_tir_load(path, &p, stderr);

    if (rc)
        return 2;
    while (scanf("%lf %lf %lf %lf %lf %lf", &in.kappa, &in.alpha, &in.gamma, &in.fz, &in.mu,
                 &in.vx) == 6) {
        struct vd_mf_out o;

        vd_mf_eval(&p, &in, &o);
        printf("%.17g %.17g %.17g %.17g %.17g", o.fx, o.fy, o.mz, o.my, o.mx);
        for (int i = 0; i < 4; i++)
            printf(" %.17g", o.dfx[i]);
        for (int i = 0; i < 4; i++)
            printf(" %.17g", o.dfy[i]);
        for (int i = 0; i < 4; i++)
            printf(" %.17g", o.dmz[i]);
        printf(" %.17g %.17g %.17g %.17g\n", o.sigma_kappa, o.sigma_alpha, o.dsigma_kappa_dfz,
               o.dsigma_alpha_dfz);
    }
    return 0;
}

/* vd_mf_eval_forces is vd_mf_eval's Fx, Fy and partials, bit for bit (the same code path up
 * to the forces), at random operating points incl. zero slip */
static void test_forces_only(const struct vd_mf_params *p, const char *name)
{
    int bad = 0;

    for (int i = 0; i < 2000; i++) {
        struct vd_mf_in in = {.kappa = i % 4 ? vt_uniform(-0.5, 0.5) : 0.0,
                              .alpha = i % 4 ? vt_uniform(-0.4, 0.4) : 0.0,
                              .gamma = vt_uniform(-0.1, 0.1),
                              .fz = vt_uniform(0.0, 3.0 * p->fnomin),
                              .mu = vt_uniform(0.3, 1.2),
                              .vx = vt_uniform(-30.0, 30.0)};
        struct vd_mf_out a, b;

        vd_mf_eval(p, &in, &a);
        vd_mf_eval_forces(p, &in, &b);
        bad += a.fx != b.fx || a.fy != b.fy || memcmp(a.dfx, b.dfx, sizeof(a.dfx)) ||
               memcmp(a.dfy, b.dfy, sizeof(a.dfy));
    }
    CHECK(bad == 0, "%s: vd_mf_eval_forces differs from vd_mf_eval at %d points", name, bad);
}

/* vd_mf_eval_zs: its out is vd_mf_eval's bit for bit (my, mx and the relaxation lengths
 * are not computed: 0), its out0 vd_mf_eval_forces' at kappa =
 * alpha = 0 (values and the Fz, gamma partials compared with ==: the shortcut of the MF
 * combined slip, Gxa = Gyk = 1 and SVyk = 0 exactly, may turn the sign of a zero), at random
 * operating points incl. zero slip, on the MF combined slip, the ellipse fallback and MF 6.x */
static void test_zero_slip(const struct vd_mf_params *p, const char *name)
{
    int bad = 0, bad0 = 0;

    for (int i = 0; i < 2000; i++) {
        struct vd_mf_in in = {.kappa = i % 4 ? vt_uniform(-0.5, 0.5) : 0.0,
                              .alpha = i % 4 ? vt_uniform(-0.4, 0.4) : 0.0,
                              .gamma = i % 5 ? vt_uniform(-0.1, 0.1) : 0.0,
                              .fz = i % 7 ? vt_uniform(0.0, 3.0 * p->fnomin) : 0.0,
                              .mu = vt_uniform(0.3, 1.2),
                              .vx = vt_uniform(-30.0, 30.0),
                              .p = i % 2 ? 2.2e5 : 0.0};
        struct vd_mf_in i0 = in;
        struct vd_mf_out a, b, a0, b0;

        i0.kappa = i0.alpha = 0.0;
        vd_mf_eval(p, &in, &a);
        vd_mf_eval_forces(p, &i0, &a0);
        vd_mf_eval_zs(p, &in, &b, &b0);
        bad += a.fx != b.fx || a.fy != b.fy || a.mz != b.mz ||
               memcmp(a.dfx, b.dfx, sizeof(a.dfx)) || memcmp(a.dfy, b.dfy, sizeof(a.dfy)) ||
               memcmp(a.dmz, b.dmz, sizeof(a.dmz)) || a.kx != b.kx || a.ky != b.ky ||
               a.mux != b.mux || a.muy != b.muy || b.my != 0.0 || b.mx != 0.0 ||
               b.sigma_kappa != 0.0 || b.sigma_alpha != 0.0 || b.dsigma_kappa_dfz != 0.0 ||
               b.dsigma_alpha_dfz != 0.0;
        bad0 += a0.fx != b0.fx || a0.fy != b0.fy;
        for (int k = VD_MF_D_FZ; k <= VD_MF_D_GAMMA; k++)
            bad0 += a0.dfx[k] != b0.dfx[k] || a0.dfy[k] != b0.dfy[k];
    }
    CHECK(bad == 0, "%s: vd_mf_eval_zs differs from vd_mf_eval at %d points", name, bad);
    CHECK(bad0 == 0, "%s: vd_mf_eval_zs's zero-slip forces differ at %d values", name, bad0);
}

int main(int argc, char **argv)
{
    test_notes();
    static const char *const short_names[NTIRES] = {"185/80R14", "245/40R18", "HMMWV"};
    struct vd_mf_params p[NTIRES];

    if (argc == 3 && !strcmp(argv[1], "--eval"))
        return eval_stdin(argv[2]);

    test_tir_files();
    test_tir_syntax();
    for (int t = 0; t < NTIRES; t++) {
        int rc = load(tires[t], &p[t], NULL);

        CHECK(rc == 0, "%s: rc %d", tires[t], rc);
        if (rc)
            return vt_report("test_tire_mf");
    }
    for (int t = 0; t < NTIRES; t++) {
        test_partials(&p[t], short_names[t], 3000);
        test_sanity(&p[t], short_names[t]);
        test_forces_only(&p[t], short_names[t]);
        test_zero_slip(&p[t], short_names[t]);
    }
    {
        static const char *const v6[2] = {"config/tires/suv_255_55R20_mf61.tir",
                                          "config/tires/suv_255_55R20_mf62.tir"};
        struct vd_mf_params q;

        for (int t = 0; t < 2; t++) {
            CHECK(load(v6[t], &q, NULL) == 0, "%s", v6[t]);
            test_zero_slip(&q, v6[t]);
        }
    }
    test_ellipse(&p[1]);
    test_noalloc(&p[0]);
    return vt_report("test_tire_mf");
}
