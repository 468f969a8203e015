/* config/tir.c - .tir reader: a line scanner over the text, one table of the keys read
 * (section, unit/range, group), then file-level checks (format, units, model family,
 * required keys) and notes about what was defaulted. */
#include "tir.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/vfs.h"

#define MAX_ERR  20 /* diagnostics kept and printed */
#define MAX_LIST 12 /* names listed in one note */
#define STR_MAX  40 /* string values and names kept */
#define MSG_MAX  256
#define NOFF     ((size_t)-1)
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

enum sec {
    S_MDI = 0,
    S_UNITS,
    S_MODEL,
    S_DIM,
    S_VERT,
    S_KRANGE,
    S_ARANGE,
    S_GRANGE,
    S_FZRANGE,
    S_SCALE,
    S_LONG,
    S_OVER,
    S_LAT,
    S_ROLL,
    S_ALIGN,
    S_OPER,
    S_STRUCT,
    S_PRANGE,
    NSEC,
};

static const char *const sec_names[NSEC] = {
    "MDI_HEADER",
    "UNITS",
    "MODEL",
    "DIMENSION",
    "VERTICAL",
    "LONG_SLIP_RANGE",
    "SLIP_ANGLE_RANGE",
    "INCLINATION_ANGLE_RANGE",
    "VERTICAL_FORCE_RANGE",
    "SCALING_COEFFICIENTS",
    "LONGITUDINAL_COEFFICIENTS",
    "OVERTURNING_COEFFICIENTS",
    "LATERAL_COEFFICIENTS",
    "ROLLING_COEFFICIENTS",
    "ALIGNING_COEFFICIENTS",
    "OPERATING_CONDITIONS",
    "STRUCTURAL",
    "INFLATION_PRESSURE_RANGE",
};

/* what a key is for, and what a missing one becomes */
enum grp {
    G_STR = 0, /* string, checked by name after the scan */
    G_NUM,     /* number without a field: FILE_VERSION, FITTYP, USE_MODE */
    G_UNUSED,  /* standard key the model does not use: checked as a number, not stored */
    G_REQ,     /* required: FNOMIN, UNLOADED_RADIUS */
    G_MODEL,   /* LONGVL, VXLOW: MFeval's defaults */
    G_DIM,     /* WIDTH, VERTICAL_STIFFNESS, VERTICAL_DAMPING: 0 */
    G_SCALE,   /* scaling factors: 1 */
    G_FX,      /* the coefficient groups: 0 (MF convention) */
    G_COMB,
    G_RELAX,
    G_FY,
    G_MZ,
    G_MX,
    G_MY,
    G_GYRO,
    G_V6, /* MF 6.x terms (pressure, PEY5, PKY4..7, RBX3, RBY4, QDZ10/11, QSY5..8, structure): 0 */
    NGRP,
};

/* one key: its section, group, the struct vd_mf_params field (NOFF: none) and the valid
 * range of given values (all dimensionless unless the comment says otherwise) */
struct tkey {
    unsigned char sec, grp, lo_open;
    const char *key;
    size_t off;
    double lo, hi;
};

#define F(f) offsetof(struct vd_mf_params, f)
#define NUM(s, g, k, f)                                                                            \
    {                                                                                              \
        (s), (g), 0, (k), F(f), -INFINITY, INFINITY                                                \
    }
#define POS(s, g, k, f)                                                                            \
    {                                                                                              \
        (s), (g), 1, (k), F(f), 0.0, INFINITY                                                      \
    }
#define NNEG(s, g, k, f)                                                                           \
    {                                                                                              \
        (s), (g), 0, (k), F(f), 0.0, INFINITY                                                      \
    }
#define STR(s, k)                                                                                  \
    {                                                                                              \
        (s), G_STR, 0, (k), NOFF, 0.0, 0.0                                                         \
    }
#define XNUM(s, g, k)                                                                              \
    {                                                                                              \
        (s), (g), 0, (k), NOFF, -INFINITY, INFINITY                                                \
    }

static const struct tkey keys[] = {
    STR(S_MDI, "FILE_TYPE"),
    XNUM(S_MDI, G_NUM, "FILE_VERSION"),
    STR(S_MDI, "FILE_FORMAT"),
    STR(S_UNITS, "LENGTH"),
    STR(S_UNITS, "FORCE"),
    STR(S_UNITS, "ANGLE"),
    STR(S_UNITS, "MASS"),
    STR(S_UNITS, "TIME"),
    STR(S_UNITS, "PRESSURE"),
    STR(S_MODEL, "PROPERTY_FILE_FORMAT"),
    XNUM(S_MODEL, G_NUM, "FITTYP"),
    XNUM(S_MODEL, G_NUM, "USE_MODE"),
    STR(S_MODEL, "TYRESIDE"),
    POS(S_MODEL, G_MODEL, "LONGVL", longvl),               /* [m/s] */
    NNEG(S_MODEL, G_MODEL, "VXLOW", vxlow),                /* [m/s] */
    POS(S_DIM, G_REQ, "UNLOADED_RADIUS", unloaded_radius), /* [m] */
    NNEG(S_DIM, G_DIM, "WIDTH", width),                    /* [m] */
    XNUM(S_DIM, G_UNUSED, "ASPECT_RATIO"),
    XNUM(S_DIM, G_UNUSED, "RIM_RADIUS"),
    XNUM(S_DIM, G_UNUSED, "RIM_WIDTH"),
    NNEG(S_VERT, G_DIM, "VERTICAL_STIFFNESS", vertical_stiffness), /* [N/m] */
    NNEG(S_VERT, G_DIM, "VERTICAL_DAMPING", vertical_damping),     /* [N s/m] */
    POS(S_VERT, G_REQ, "FNOMIN", fnomin),                          /* [N] */
    XNUM(S_VERT, G_UNUSED, "BREFF"),
    XNUM(S_VERT, G_UNUSED, "DREFF"),
    XNUM(S_VERT, G_UNUSED, "FREFF"),
    XNUM(S_KRANGE, G_UNUSED, "KPUMIN"),
    XNUM(S_KRANGE, G_UNUSED, "KPUMAX"),
    XNUM(S_ARANGE, G_UNUSED, "ALPMIN"),
    XNUM(S_ARANGE, G_UNUSED, "ALPMAX"),
    XNUM(S_GRANGE, G_UNUSED, "CAMMIN"),
    XNUM(S_GRANGE, G_UNUSED, "CAMMAX"),
    XNUM(S_FZRANGE, G_UNUSED, "FZMIN"),
    XNUM(S_FZRANGE, G_UNUSED, "FZMAX"),
    POS(S_SCALE, G_SCALE, "LFZO", lfzo),
    NNEG(S_SCALE, G_SCALE, "LCX", lcx),
    POS(S_SCALE, G_SCALE, "LMUX", lmux),
    NNEG(S_SCALE, G_SCALE, "LEX", lex),
    NNEG(S_SCALE, G_SCALE, "LKX", lkx),
    NNEG(S_SCALE, G_SCALE, "LHX", lhx),
    NNEG(S_SCALE, G_SCALE, "LVX", lvx),
    NNEG(S_SCALE, G_SCALE, "LGAX", lgax),
    NNEG(S_SCALE, G_SCALE, "LCY", lcy),
    POS(S_SCALE, G_SCALE, "LMUY", lmuy),
    NNEG(S_SCALE, G_SCALE, "LEY", ley),
    NNEG(S_SCALE, G_SCALE, "LKY", lky),
    NNEG(S_SCALE, G_SCALE, "LHY", lhy),
    NNEG(S_SCALE, G_SCALE, "LVY", lvy),
    NNEG(S_SCALE, G_SCALE, "LGAY", lgay),
    NNEG(S_SCALE, G_SCALE, "LTR", ltr),
    NNEG(S_SCALE, G_SCALE, "LRES", lres),
    NNEG(S_SCALE, G_SCALE, "LGAZ", lgaz),
    NNEG(S_SCALE, G_SCALE, "LXAL", lxal),
    NNEG(S_SCALE, G_SCALE, "LYKA", lyka),
    NNEG(S_SCALE, G_SCALE, "LVYKA", lvyka),
    NNEG(S_SCALE, G_SCALE, "LS", ls),
    NNEG(S_SCALE, G_SCALE, "LSGKP", lsgkp),
    NNEG(S_SCALE, G_SCALE, "LSGAL", lsgal),
    NNEG(S_SCALE, G_SCALE, "LGYR", lgyr),
    NNEG(S_SCALE, G_SCALE, "LMX", lmx),
    NNEG(S_SCALE, G_SCALE, "LVMX", lvmx),
    NNEG(S_SCALE, G_SCALE, "LMY", lmy),
    NUM(S_LONG, G_FX, "PCX1", pcx1),
    NUM(S_LONG, G_FX, "PDX1", pdx1),
    NUM(S_LONG, G_FX, "PDX2", pdx2),
    NUM(S_LONG, G_FX, "PDX3", pdx3),
    NUM(S_LONG, G_FX, "PEX1", pex1),
    NUM(S_LONG, G_FX, "PEX2", pex2),
    NUM(S_LONG, G_FX, "PEX3", pex3),
    NUM(S_LONG, G_FX, "PEX4", pex4),
    NUM(S_LONG, G_FX, "PKX1", pkx1),
    NUM(S_LONG, G_FX, "PKX2", pkx2),
    NUM(S_LONG, G_FX, "PKX3", pkx3),
    NUM(S_LONG, G_FX, "PHX1", phx1),
    NUM(S_LONG, G_FX, "PHX2", phx2),
    NUM(S_LONG, G_FX, "PVX1", pvx1),
    NUM(S_LONG, G_FX, "PVX2", pvx2),
    NUM(S_LONG, G_COMB, "RBX1", rbx1),
    NUM(S_LONG, G_COMB, "RBX2", rbx2),
    NUM(S_LONG, G_COMB, "RCX1", rcx1),
    NUM(S_LONG, G_COMB, "REX1", rex1),
    NUM(S_LONG, G_COMB, "REX2", rex2),
    NUM(S_LONG, G_COMB, "RHX1", rhx1),
    NUM(S_LONG, G_RELAX, "PTX1", ptx1),
    NUM(S_LONG, G_RELAX, "PTX2", ptx2),
    NUM(S_LONG, G_RELAX, "PTX3", ptx3),
    NUM(S_OVER, G_MX, "QSX1", qsx1),
    NUM(S_OVER, G_MX, "QSX2", qsx2),
    NUM(S_OVER, G_MX, "QSX3", qsx3),
    NUM(S_LAT, G_FY, "PCY1", pcy1),
    NUM(S_LAT, G_FY, "PDY1", pdy1),
    NUM(S_LAT, G_FY, "PDY2", pdy2),
    NUM(S_LAT, G_FY, "PDY3", pdy3),
    NUM(S_LAT, G_FY, "PEY1", pey1),
    NUM(S_LAT, G_FY, "PEY2", pey2),
    NUM(S_LAT, G_FY, "PEY3", pey3),
    NUM(S_LAT, G_FY, "PEY4", pey4),
    NUM(S_LAT, G_FY, "PKY1", pky1),
    NUM(S_LAT, G_FY, "PKY2", pky2),
    NUM(S_LAT, G_FY, "PKY3", pky3),
    NUM(S_LAT, G_FY, "PHY1", phy1),
    NUM(S_LAT, G_FY, "PHY2", phy2),
    NUM(S_LAT, G_FY, "PHY3", phy3),
    NUM(S_LAT, G_FY, "PVY1", pvy1),
    NUM(S_LAT, G_FY, "PVY2", pvy2),
    NUM(S_LAT, G_FY, "PVY3", pvy3),
    NUM(S_LAT, G_FY, "PVY4", pvy4),
    NUM(S_LAT, G_COMB, "RBY1", rby1),
    NUM(S_LAT, G_COMB, "RBY2", rby2),
    NUM(S_LAT, G_COMB, "RBY3", rby3),
    NUM(S_LAT, G_COMB, "RCY1", rcy1),
    NUM(S_LAT, G_COMB, "REY1", rey1),
    NUM(S_LAT, G_COMB, "REY2", rey2),
    NUM(S_LAT, G_COMB, "RHY1", rhy1),
    NUM(S_LAT, G_COMB, "RHY2", rhy2),
    NUM(S_LAT, G_COMB, "RVY1", rvy1),
    NUM(S_LAT, G_COMB, "RVY2", rvy2),
    NUM(S_LAT, G_COMB, "RVY3", rvy3),
    NUM(S_LAT, G_COMB, "RVY4", rvy4),
    NUM(S_LAT, G_COMB, "RVY5", rvy5),
    NUM(S_LAT, G_COMB, "RVY6", rvy6),
    NUM(S_LAT, G_RELAX, "PTY1", pty1),
    NUM(S_LAT, G_RELAX, "PTY2", pty2),
    NUM(S_ROLL, G_MY, "QSY1", qsy1),
    NUM(S_ROLL, G_MY, "QSY2", qsy2),
    NUM(S_ROLL, G_MY, "QSY3", qsy3),
    NUM(S_ROLL, G_MY, "QSY4", qsy4),
    NUM(S_ALIGN, G_MZ, "QBZ1", qbz1),
    NUM(S_ALIGN, G_MZ, "QBZ2", qbz2),
    NUM(S_ALIGN, G_MZ, "QBZ3", qbz3),
    NUM(S_ALIGN, G_MZ, "QBZ4", qbz4),
    NUM(S_ALIGN, G_MZ, "QBZ5", qbz5),
    NUM(S_ALIGN, G_MZ, "QBZ9", qbz9),
    NUM(S_ALIGN, G_MZ, "QBZ10", qbz10),
    NUM(S_ALIGN, G_MZ, "QCZ1", qcz1),
    NUM(S_ALIGN, G_MZ, "QDZ1", qdz1),
    NUM(S_ALIGN, G_MZ, "QDZ2", qdz2),
    NUM(S_ALIGN, G_MZ, "QDZ3", qdz3),
    NUM(S_ALIGN, G_MZ, "QDZ4", qdz4),
    NUM(S_ALIGN, G_MZ, "QDZ6", qdz6),
    NUM(S_ALIGN, G_MZ, "QDZ7", qdz7),
    NUM(S_ALIGN, G_MZ, "QDZ8", qdz8),
    NUM(S_ALIGN, G_MZ, "QDZ9", qdz9),
    NUM(S_ALIGN, G_MZ, "QEZ1", qez1),
    NUM(S_ALIGN, G_MZ, "QEZ2", qez2),
    NUM(S_ALIGN, G_MZ, "QEZ3", qez3),
    NUM(S_ALIGN, G_MZ, "QEZ4", qez4),
    NUM(S_ALIGN, G_MZ, "QEZ5", qez5),
    NUM(S_ALIGN, G_MZ, "QHZ1", qhz1),
    NUM(S_ALIGN, G_MZ, "QHZ2", qhz2),
    NUM(S_ALIGN, G_MZ, "QHZ3", qhz3),
    NUM(S_ALIGN, G_MZ, "QHZ4", qhz4),
    NUM(S_ALIGN, G_MZ, "SSZ1", ssz1),
    NUM(S_ALIGN, G_MZ, "SSZ2", ssz2),
    NUM(S_ALIGN, G_MZ, "SSZ3", ssz3),
    NUM(S_ALIGN, G_MZ, "SSZ4", ssz4),
    NUM(S_ALIGN, G_GYRO, "QTZ1", qtz1),
    NNEG(S_ALIGN, G_GYRO, "MBELT", mbelt), /* [kg] */
    /* MF 6.1 / 6.2 (FILE_VERSION 3.0, FITTYP 61 / 62) */
    POS(S_OPER, G_V6, "INFLPRES", inflpres), /* [Pa] */
    POS(S_OPER, G_V6, "NOMPRES", nompres),   /* [Pa] */
    XNUM(S_PRANGE, G_UNUSED, "PRESMIN"),
    XNUM(S_PRANGE, G_UNUSED, "PRESMAX"),
    NNEG(S_STRUCT, G_V6, "LONGITUDINAL_STIFFNESS", cx0), /* [N/m] */
    NNEG(S_STRUCT, G_V6, "LATERAL_STIFFNESS", cy0),      /* [N/m] */
    NUM(S_STRUCT, G_V6, "PCFX1", pcfx1),
    NUM(S_STRUCT, G_V6, "PCFX2", pcfx2),
    NUM(S_STRUCT, G_V6, "PCFX3", pcfx3),
    NUM(S_STRUCT, G_V6, "PCFY1", pcfy1),
    NUM(S_STRUCT, G_V6, "PCFY2", pcfy2),
    NUM(S_STRUCT, G_V6, "PCFY3", pcfy3),
    NNEG(S_SCALE, G_V6, "LKYC", lkyc), /* default 1 */
    NNEG(S_SCALE, G_V6, "LKZC", lkzc), /* default 1 */
    NUM(S_LONG, G_V6, "PPX1", ppx1),
    NUM(S_LONG, G_V6, "PPX2", ppx2),
    NUM(S_LONG, G_V6, "PPX3", ppx3),
    NUM(S_LONG, G_V6, "PPX4", ppx4),
    NUM(S_LONG, G_V6, "RBX3", rbx3),
    NUM(S_LAT, G_V6, "PEY5", pey5),
    NUM(S_LAT, G_V6, "PKY4", pky4),
    NUM(S_LAT, G_V6, "PKY5", pky5),
    NUM(S_LAT, G_V6, "PKY6", pky6),
    NUM(S_LAT, G_V6, "PKY7", pky7),
    NUM(S_LAT, G_V6, "PPY1", ppy1),
    NUM(S_LAT, G_V6, "PPY2", ppy2),
    NUM(S_LAT, G_V6, "PPY3", ppy3),
    NUM(S_LAT, G_V6, "PPY4", ppy4),
    NUM(S_LAT, G_V6, "PPY5", ppy5),
    NUM(S_LAT, G_V6, "RBY4", rby4),
    NUM(S_ROLL, G_V6, "QSY5", qsy5),
    NUM(S_ROLL, G_V6, "QSY6", qsy6),
    NUM(S_ROLL, G_V6, "QSY7", qsy7),
    NUM(S_ROLL, G_V6, "QSY8", qsy8),
    NUM(S_ALIGN, G_V6, "QDZ10", qdz10),
    NUM(S_ALIGN, G_V6, "QDZ11", qdz11),
    NUM(S_ALIGN, G_V6, "PPZ1", ppz1),
    NUM(S_ALIGN, G_V6, "PPZ2", ppz2),
    NUM(S_OVER, G_V6, "PPMX1", ppmx1),
    /* MF 6.x overturning terms beyond QSX1..3: read, not used (Mx is not applied) */
    XNUM(S_OVER, G_UNUSED, "QSX4"),
    XNUM(S_OVER, G_UNUSED, "QSX5"),
    XNUM(S_OVER, G_UNUSED, "QSX6"),
    XNUM(S_OVER, G_UNUSED, "QSX7"),
    XNUM(S_OVER, G_UNUSED, "QSX8"),
    XNUM(S_OVER, G_UNUSED, "QSX9"),
    XNUM(S_OVER, G_UNUSED, "QSX10"),
    XNUM(S_OVER, G_UNUSED, "QSX11"),
    XNUM(S_OVER, G_UNUSED, "QSX12"),
    XNUM(S_OVER, G_UNUSED, "QSX13"),
    XNUM(S_OVER, G_UNUSED, "QSX14"),
};

#define NKEYS COUNT(keys)

/* the six coefficients without which Gxa / Gyk are not defined */
static const char *const comb_base[] = {"RBX1", "RBX2", "RCX1", "RBY1", "RBY2", "RCY1"};

/* what an absent group means */
static const struct {
    unsigned flag;
    const char *what, *then;
} grp_info[NGRP] = {
    [G_FX] = {VD_MF_HAS_FX, "pure longitudinal", "Fx = 0"},
    [G_FY] = {VD_MF_HAS_FY, "pure lateral", "Fy = 0"},
    [G_MZ] = {VD_MF_HAS_MZ, "aligning moment", "Mz = 0"},
    [G_MX] = {VD_MF_HAS_MX, "overturning moment", "Mx = 0"},
    [G_MY] = {VD_MF_HAS_MY, "rolling resistance", "My = 0"},
    [G_RELAX] = {VD_MF_HAS_RELAX, "relaxation length",
                 "the tyre element uses sigma_kappa = 0.5 R0, sigma_alpha = R0"},
};

/* accepted spellings of the SI units, per [UNITS] key */
static const struct {
    const char *key, *si, *names[6];
} units[] = {
    {"LENGTH", "meter", {"meter", "meters", "metre", "metres", "m", NULL}},
    {"FORCE", "newton", {"newton", "newtons", "n", NULL}},
    {"ANGLE", "radian", {"radian", "radians", "rad", NULL}},
    {"MASS", "kg", {"kg", "kilogram", "kilograms", NULL}},
    {"TIME", "second", {"second", "seconds", "sec", "s", NULL}},
    {"PRESSURE", "pascal", {"pascal", "pa", NULL}},
};

/* PROPERTY_FILE_FORMAT values of the MF 5.2 / PAC2002 family, and the FITTYP numbers */
static const char *const formats_ok[] = {"PAC2002", "PAC_2002", "MF_05", "MF_52", "MF52", "MF5.2"};
static const int fittyp_ok[] = {5, 6, 21, 52, 61, 62};

struct tdiag {
    int line, col;     /* 1-based; line 0: the whole file */
    size_t lofs, llen; /* the source line */
    char msg[MSG_MAX];
};

struct tir {
    const char *name, *text;
    size_t len;
    int nerr;
    struct tdiag diag[MAX_ERR];
    bool seen[NKEYS];
    int line[NKEYS], col[NKEYS];
    size_t lofs[NKEYS], llen[NKEYS];
    double num[NKEYS];
    char str[NKEYS][STR_MAX];
    bool sec_seen[NSEC];
    int nunknown, unknown_line;
    char unknown[MAX_LIST][STR_MAX];
    int nskipped;
    char skipped[MAX_LIST][STR_MAX];
};

/* record an error at (line, col) of the source line [lofs, lofs + llen) */
static void __attribute__((format(printf, 6, 7)))
error_at(struct tir *T, int line, int col, size_t lofs, size_t llen, const char *fmt, ...)
{
    va_list ap;

    if (T->nerr < MAX_ERR) {
        struct tdiag *d = &T->diag[T->nerr];

        d->line = line;
        d->col = col;
        d->lofs = lofs;
        d->llen = llen;
        va_start(ap, fmt);
        vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
        va_end(ap);
    }
    T->nerr++;
}

/* record an error at key k's value */
#define error_key(T, k, ...)                                                                       \
    error_at((T), (T)->line[k], (T)->col[k], (T)->lofs[k], (T)->llen[k], __VA_ARGS__)

/* print the recorded errors in source order, file-level ones last */
static void print_errors(const struct tir *T, FILE *f)
{
    int n = T->nerr < MAX_ERR ? T->nerr : MAX_ERR, order[MAX_ERR];

    for (int i = 0; i < n; i++) {
        int j = i, li = T->diag[i].line ? T->diag[i].line : 1 << 30;

        while (j > 0) {
            const struct tdiag *o = &T->diag[order[j - 1]];
            int lo = o->line ? o->line : 1 << 30;

            if (lo < li || (lo == li && o->col <= T->diag[i].col))
                break;
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    for (int i = 0; i < n; i++) {
        const struct tdiag *d = &T->diag[order[i]];
        const char *src = T->text + d->lofs;

        if (!d->line) {
            fprintf(f, "%s: error: %s\n", T->name, d->msg);
            continue;
        }
        fprintf(f, "%s:%d:%d: error: %s\n", T->name, d->line, d->col, d->msg);
        fprintf(f, "  %.*s\n  ", (int)d->llen, src);
        /* caret under the column; tabs copied so that it lines up */
        for (int c = 0; c + 1 < d->col && (size_t)c < d->llen; c++)
            fputc(src[c] == '\t' ? '\t' : ' ', f);
        fputs("^\n", f);
    }
    if (T->nerr > n)
        fprintf(f, "%s: note: %d more errors not shown\n", T->name, T->nerr - n);
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\f' || c == '\v';
}

static bool is_comment(char c)
{
    return c == '$' || c == '!';
}

/* s[0, n) equals the NUL-terminated word w, ignoring case */
static bool eq_word(const char *s, size_t n, const char *w)
{
    return strlen(w) == n && !strncasecmp(s, w, n);
}

/* copy s[0, n) without surrounding blanks into buf (cut at size - 1) */
static void copy_trim(char *buf, size_t size, const char *s, size_t n)
{
    while (n && is_blank(*s)) {
        s++;
        n--;
    }
    while (n && is_blank(s[n - 1]))
        n--;
    if (n >= size)
        n = size - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
}

static int find_key(int sec, const char *s, size_t n)
{
    for (size_t k = 0; k < NKEYS; k++)
        if (keys[k].sec == sec && eq_word(s, n, keys[k].key))
            return (int)k;
    return -1;
}

static int key_index(const char *name)
{
    for (size_t k = 0; k < NKEYS; k++)
        if (!strcmp(keys[k].key, name))
            return (int)k;
    return -1;
}

/* remember a name for a note: list[0, max) of *n seen */
static void note_name(char list[][STR_MAX], int *n, const char *s, size_t len)
{
    if (*n < MAX_LIST)
        copy_trim(list[*n], STR_MAX, s, len);
    (*n)++;
}

/* one `KEY = value` line in section sec; ls[0, n) is the line at text offset lofs */
static void scan_pair(struct tir *T, struct vd_mf_params *p, int sec, int ln, const char *ls,
                      size_t n, size_t lofs, size_t i)
{
    size_t j = i, k, vs, ve, after;
    bool quoted = false;
    int idx;

    while (j < n && (isalnum((unsigned char)ls[j]) || ls[j] == '_'))
        j++;
    if (j == i) {
        error_at(T, ln, (int)i + 1, lofs, n, "expected KEY = value");
        return;
    }
    k = j;
    while (k < n && is_blank(ls[k]))
        k++;
    if (k == n || ls[k] != '=') {
        error_at(T, ln, (int)k + 1, lofs, n, "expected '=' after '%.*s'", (int)(j - i), ls + i);
        return;
    }
    k++;
    while (k < n && is_blank(ls[k]))
        k++;
    if (k == n || is_comment(ls[k])) {
        error_at(T, ln, (int)k + 1, lofs, n, "%.*s: missing value", (int)(j - i), ls + i);
        return;
    }

    /* the value: a quoted string or a token up to a blank or a comment */
    if (ls[k] == '\'' || ls[k] == '"') {
        const char *q = memchr(ls + k + 1, ls[k], n - k - 1);

        if (!q) {
            error_at(T, ln, (int)k + 1, lofs, n, "unterminated string");
            return;
        }
        quoted = true;
        vs = k + 1;
        ve = (size_t)(q - ls);
        after = ve + 1;
    } else {
        vs = ve = k;
        while (ve < n && !is_blank(ls[ve]) && !is_comment(ls[ve]))
            ve++;
        after = ve;
    }
    while (after < n && is_blank(ls[after]))
        after++;
    if (after < n && !is_comment(ls[after])) {
        error_at(T, ln, (int)after + 1, lofs, n, "unexpected text after the value of '%.*s'",
                 (int)(j - i), ls + i);
        return;
    }

    idx = find_key(sec, ls + i, j - i);
    if (idx < 0) {
        if (!T->nunknown)
            T->unknown_line = ln;
        note_name(T->unknown, &T->nunknown, ls + i, j - i);
        return;
    }
    if (T->seen[idx]) {
        error_at(T, ln, (int)i + 1, lofs, n, "duplicate key '%s' (first at line %d)", keys[idx].key,
                 T->line[idx]);
        return;
    }
    T->seen[idx] = true;
    T->line[idx] = ln;
    T->col[idx] = (int)(quoted ? vs : k) + 1;
    T->lofs[idx] = lofs;
    T->llen[idx] = n;

    if (keys[idx].grp == G_STR) {
        copy_trim(T->str[idx], STR_MAX, ls + vs, ve - vs);
        return;
    }

    /* a number: all of the token, finite, in range */
    {
        char buf[64], *end;
        double v;

        if (quoted || ve - vs >= sizeof(buf)) {
            error_key(T, idx, "%s: expected a number, got '%.*s'", keys[idx].key, (int)(ve - vs),
                      ls + vs);
            return;
        }
        memcpy(buf, ls + vs, ve - vs);
        buf[ve - vs] = '\0';
        errno = 0;
        v = strtod(buf, &end);
        if (end == buf || *end) {
            error_key(T, idx, "%s: expected a number, got '%s'", keys[idx].key, buf);
            return;
        }
        if (!isfinite(v)) {
            error_key(T, idx, "%s: %s is not finite", keys[idx].key, buf);
            return;
        }
        if (v < keys[idx].lo || (keys[idx].lo_open && v <= keys[idx].lo) || v > keys[idx].hi) {
            error_key(T, idx, "%s: %s must be %s %g", keys[idx].key, buf,
                      keys[idx].lo_open ? ">" : ">=", keys[idx].lo);
            return;
        }
        T->num[idx] = v;
        if (keys[idx].off != NOFF)
            *(double *)(void *)((char *)p + keys[idx].off) = v;
    }
}

/* the line scanner: sections, comments, pairs */
static void scan(struct tir *T, struct vd_mf_params *p)
{
    size_t pos = 0;
    int ln = 0, sec = -1;
    bool skipping = false;

    while (pos < T->len) {
        const char *ls = T->text + pos, *nl = memchr(ls, '\n', T->len - pos);
        size_t n = nl ? (size_t)(nl - ls) : T->len - pos, lofs = pos, i = 0;

        pos += n + (nl ? 1 : 0);
        ln++;
        if (n && ls[n - 1] == '\r')
            n--;
        while (i < n && is_blank(ls[i]))
            i++;
        if (i == n || is_comment(ls[i]))
            continue;

        /* [SECTION] */
        if (ls[i] == '[') {
            const char *e = memchr(ls + i + 1, ']', n - i - 1);
            size_t a;
            char name[STR_MAX];

            if (!e) {
                error_at(T, ln, (int)i + 1, lofs, n, "unterminated section header");
                skipping = true;
                continue;
            }
            for (a = (size_t)(e - ls) + 1; a < n && is_blank(ls[a]); a++)
                ;
            if (a < n && !is_comment(ls[a]))
                error_at(T, ln, (int)a + 1, lofs, n, "unexpected text after the section header");
            copy_trim(name, sizeof(name), ls + i + 1, (size_t)(e - ls) - i - 1);
            sec = -1;
            for (int s = 0; s < NSEC; s++)
                if (!strcasecmp(name, sec_names[s]))
                    sec = s;
            skipping = sec < 0;
            if (skipping)
                note_name(T->skipped, &T->nskipped, name, strlen(name));
            else
                T->sec_seen[sec] = true;
            continue;
        }
        if (skipping)
            continue;
        if (sec < 0) {
            error_at(T, ln, (int)i + 1, lofs, n, "KEY = value before the first [SECTION]");
            continue;
        }
        scan_pair(T, p, sec, ln, ls, n, lofs, i);
    }
}

/* a given string key's value, or NULL */
static const char *str_of(const struct tir *T, const char *key)
{
    int k = key_index(key);

    return k >= 0 && T->seen[k] ? T->str[k] : NULL;
}

/* file-level checks: format, units, model family, side, required keys */
static void check_file(struct tir *T, struct vd_mf_params *p)
{
    const char *s;
    int kf = key_index("FITTYP"), kp = key_index("PROPERTY_FILE_FORMAT");
    bool family = false;

    s = str_of(T, "FILE_TYPE");
    if (s && strcasecmp(s, "tir"))
        error_key(T, key_index("FILE_TYPE"), "FILE_TYPE '%s': expected 'tir'", s);
    s = str_of(T, "FILE_FORMAT");
    if (s && strcasecmp(s, "ASCII"))
        error_key(T, key_index("FILE_FORMAT"), "FILE_FORMAT '%s': expected 'ASCII'", s);

    /* units: SI only, no conversion */
    for (size_t u = 0; u < COUNT(units); u++) {
        bool ok = false;

        s = str_of(T, units[u].key);
        if (!s)
            continue;
        for (int i = 0; units[u].names[i]; i++)
            ok = ok || !strcasecmp(s, units[u].names[i]);
        if (!ok)
            error_key(T, key_index(units[u].key),
                      "%s '%s' is not supported: only SI units (%s) are read, without conversion",
                      units[u].key, s, units[u].si);
    }

    /* model family: MF 5.2 / PAC2002 by PROPERTY_FILE_FORMAT or FITTYP */
    if (T->seen[kp]) {
        s = T->str[kp];
        for (size_t i = 0; i < COUNT(formats_ok); i++)
            family = family || !strcasecmp(s, formats_ok[i]);
        if (!family && strcasecmp(s, "USER")) {
            if (strstr(s, "61") || !strncasecmp(s, "MF_6", 4) || !strncasecmp(s, "MF6", 3))
                p->fittyp = strstr(s, "62") ? 62 : 61;
            else
                error_key(T, kp,
                          "PROPERTY_FILE_FORMAT '%s': expected PAC2002 / MF 5.2 or MF 6.1 / 6.2 "
                          "(or USER with FITTYP)",
                          s);
            family = true; /* known, or reported */
        }
    }
    if (T->seen[kf]) {
        double v = T->num[kf];
        bool ok = false;

        for (size_t i = 0; i < COUNT(fittyp_ok); i++)
            ok = ok || v == fittyp_ok[i];
        if (!ok)
            error_key(T, kf,
                      "FITTYP %g: expected 5, 6, 21 or 52 (MF 5.2 / PAC2002) or 61, 62 (MF 6.1, "
                      "6.2); MF-Swift's belt dynamics and other model types are not supported",
                      v);
        else if (v == 61 || v == 62)
            p->fittyp = (int)v;
        family = true;
    }
    if (p->fittyp >= 61) {
        /* MF 6.x: pressure and the carcass stiffnesses of the relaxation lengths */
        int kn = key_index("NOMPRES"), ki = key_index("INFLPRES");

        if (!T->seen[kn])
            error_at(T, 0, 0, 0, 0, "MF %.1f without NOMPRES in [OPERATING_CONDITIONS]",
                     p->fittyp / 10.0);
        if (!T->seen[ki])
            p->inflpres = p->nompres;
        if (!T->seen[key_index("LONGITUDINAL_STIFFNESS")] ||
            !T->seen[key_index("LATERAL_STIFFNESS")])
            error_at(T, 0, 0, 0, 0,
                     "MF %.1f without LONGITUDINAL_STIFFNESS and LATERAL_STIFFNESS in "
                     "[STRUCTURAL]: its relaxation lengths are |Kx / Cx|, |Kya / Cy|",
                     p->fittyp / 10.0);
    }
    if (!family)
        error_at(T, 0, 0, 0, 0,
                 "no PROPERTY_FILE_FORMAT or FITTYP: cannot tell the model family "
                 "(expected PAC2002 / MF 5.2)");

    s = str_of(T, "TYRESIDE");
    if (s && !strcasecmp(s, "RIGHT"))
        p->side = VD_MF_RIGHT;
    else if (s && strcasecmp(s, "LEFT"))
        error_key(T, key_index("TYRESIDE"), "TYRESIDE '%s': expected LEFT or RIGHT", s);

    for (size_t k = 0; k < NKEYS; k++)
        if (keys[k].grp == G_REQ && !T->seen[k])
            error_at(T, 0, 0, 0, 0, "missing required key %s in [%s]", keys[k].key,
                     sec_names[keys[k].sec]);
}

/* "A B C ..." of the keys of group g that are (not) given */
static int key_list(const struct tir *T, int g, bool given, char *buf, size_t size)
{
    size_t len = 0;
    int n = 0;

    buf[0] = '\0';
    for (size_t k = 0; k < NKEYS; k++) {
        if (keys[k].grp != g || T->seen[k] != given)
            continue;
        if (len + strlen(keys[k].key) + 5 < size)
            len += (size_t)snprintf(buf + len, size - len, "%s%s", n ? " " : "", keys[k].key);
        else if (len + 5 < size && buf[len - 1] != '.')
            len += (size_t)snprintf(buf + len, size - len, " ...");
        n++;
    }
    return n;
}

static void print_list(FILE *f, char list[][STR_MAX], int n)
{
    for (int i = 0; i < n && i < MAX_LIST; i++)
        fprintf(f, " %s", list[i]);
    if (n > MAX_LIST)
        fputs(" ...", f);
}

/* flags from what was given, and the notes about everything else */
static void finish(struct tir *T, struct vd_mf_params *p, FILE *f)
{
    char buf[MSG_MAX];
    bool comb = true;
    int n;

    for (size_t i = 0; i < COUNT(comb_base); i++)
        comb = comb && T->seen[key_index(comb_base[i])];
    if (comb)
        p->flags |= VD_MF_HAS_COMBINED;
    if (T->seen[key_index("PTX1")] && T->seen[key_index("PTY1")])
        p->flags |= VD_MF_HAS_RELAX;
    for (int g = G_FX; g < NGRP; g++)
        if (grp_info[g].flag && g != G_RELAX && key_list(T, g, true, buf, sizeof(buf)))
            p->flags |= grp_info[g].flag;
    if (!T->seen[key_index("LONGVL")])
        p->longvl = 16.7;
    if (!T->seen[key_index("VXLOW")])
        p->vxlow = 1.0;
    if (!f)
        return;

    if (!T->sec_seen[S_UNITS])
        fprintf(f, "%s: note: no [UNITS] section: SI units assumed\n", T->name);
    if (!T->seen[key_index("LONGVL")])
        fprintf(f, "%s: note: LONGVL missing: 16.7 m/s\n", T->name);
    if (!T->seen[key_index("VXLOW")])
        fprintf(f, "%s: note: VXLOW missing: 1 m/s\n", T->name);
    n = key_list(T, G_DIM, false, buf, sizeof(buf));
    if (n)
        fprintf(f, "%s: note: missing, set to 0: %s\n", T->name, buf);
    n = key_list(T, G_SCALE, false, buf, sizeof(buf));
    if (n)
        fprintf(f, "%s: note: scaling factors missing, set to 1: %s\n", T->name, buf);
    for (int g = G_FX; g < NGRP; g++) {
        int given = key_list(T, g, true, buf, sizeof(buf));

        if (g == G_COMB) {
            if (!comb)
                fprintf(f,
                        "%s: note: %s combined-slip coefficients (%s): Fx and Fy are combined "
                        "by the friction-ellipse fallback\n",
                        T->name, given ? "incomplete" : "no", "RBX1 RBX2 RCX1 RBY1 RBY2 RCY1");
            else if (key_list(T, g, false, buf, sizeof(buf)))
                fprintf(f, "%s: note: combined-slip coefficients missing, set to 0: %s\n", T->name,
                        buf);
            continue;
        }
        if (!grp_info[g].what)
            continue;
        if (g == G_RELAX && p->fittyp >= 61)
            continue; /* MF 6.x: |K / C| from [STRUCTURAL] */
        if (!given)
            fprintf(f, "%s: note: no %s coefficients: %s\n", T->name, grp_info[g].what,
                    grp_info[g].then);
        else if (key_list(T, g, false, buf, sizeof(buf)))
            fprintf(f, "%s: note: %s coefficients missing, set to 0: %s\n", T->name,
                    grp_info[g].what, buf);
    }
    if (T->nunknown) {
        fprintf(f, "%s: note: %d unknown key%s ignored (first at line %d):", T->name, T->nunknown,
                T->nunknown > 1 ? "s" : "", T->unknown_line);
        print_list(f, T->unknown, T->nunknown);
        fputc('\n', f);
    }
    if (p->fittyp < 61 && key_list(T, G_V6, true, buf, sizeof(buf)))
        fprintf(f, "%s: note: MF 6.x keys in an MF 5.2 file, read but not used: %s\n", T->name,
                buf);
    if (p->fittyp >= 61)
        fprintf(f,
                "%s: note: MF %.1f at INFLPRES %g Pa (NOMPRES %g Pa); turn slip off; the "
                "vertical model is VERTICAL_STIFFNESS and _DAMPING (its MF 6.x load, speed and "
                "camber terms are not used)\n",
                T->name, p->fittyp / 10.0, p->inflpres, p->nompres);
    if (T->nskipped) {
        fprintf(f, "%s: note: section%s skipped:", T->name, T->nskipped > 1 ? "s" : "");
        print_list(f, T->skipped, T->nskipped);
        fputc('\n', f);
    }
}

/* the notes of vd_tir_load: where (NULL: nowhere), and the files already noted */
static FILE *g_notes;
static char **g_noted;
static int g_nnoted;

void vd_tir_notes_to(FILE *f)
{
    g_notes = f;
}

/* the stream for path's notes: g_notes the first time a path is loaded, else NULL */
static FILE *notes_for(const char *path)
{
    char **grown, key[4096];

    if (!g_notes)
        return NULL;
    /* one file under two spellings (a/../tires/x.tir, tires/x.tir) is one file */
    if (vd_cfg_path_normalize(key, sizeof(key), path))
        snprintf(key, sizeof(key), "%s", path);
    for (int i = 0; i < g_nnoted; i++)
        if (!strcmp(g_noted[i], key))
            return NULL;
    grown = realloc(g_noted, (size_t)(g_nnoted + 1) * sizeof(*g_noted));
    if (!grown)
        return g_notes; /* out of memory: notes may repeat, nothing is lost */
    g_noted = grown;
    g_noted[g_nnoted] = strdup(key);
    if (g_noted[g_nnoted])
        g_nnoted++;
    return g_notes;
}

/* parse; errors to errf, notes to notes */
static int parse(const char *name, const char *text, size_t len, struct vd_mf_params *p, FILE *errf,
                 FILE *notes)
{
    struct tir *T = calloc(1, sizeof(*T));
    int rc = 0;

    vd_mf_params_default(p);
    if (!T) {
        if (errf)
            fprintf(errf, "%s: error: out of memory\n", name);
        return -ENOMEM;
    }
    T->name = name;
    T->text = text;
    T->len = len;
    scan(T, p);
    check_file(T, p);
    if (T->nerr) {
        if (errf)
            print_errors(T, errf);
        vd_mf_params_default(p);
        rc = -EINVAL;
        goto out_free;
    }
    finish(T, p, notes);
out_free:
    free(T);
    return rc;
}

int vd_tir_parse(const char *name, const char *text, size_t len, struct vd_mf_params *p, FILE *errf)
{
    return parse(name, text, len, p, errf, errf);
}

int vd_tir_load(const char *path, struct vd_mf_params *p, FILE *errf)
{
    char *buf = NULL;
    size_t n = 0;
    int rc;

    vd_mf_params_default(p);
    rc = vd_cfg_read_or_say(path, &buf, &n, errf);
    if (rc)
        return rc;
    rc = parse(path, buf, n, p, errf, notes_for(path));
    free(buf);
    return rc;
}
