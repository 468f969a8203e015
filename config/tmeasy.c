/* config/tmeasy.c - Chrono TMeasy JSON files (see tmeasy.h). A small JSON reader (objects,
 * arrays, numbers, strings, true/false/null, // and block comments) flattens the document
 * into leaves named by their path ("Design/Width [m]", "Parameters/Lateral/Sliding Fy Load
 * [N]/1"), then the keys are looked up by path. */
#include "config/tmeasy.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "config/vfs.h"

#define MAXLEAF  128
#define MAXPATH  192
#define MAXDEPTH 8

struct leaf {
    char path[MAXPATH];
    char str[64]; /* string value ("" for numbers) */
    double num;
    bool is_num;
    int line, col;
};

struct jp {
    const char *name, *s, *e, *p, *line0;
    int line;
    FILE *errf;
    int nerr;
    struct leaf leaf[MAXLEAF];
    int nleaf;
};

/* error at the current position, with the source line and a caret */
static void err_at(struct jp *J, const char *at, const char *msg)
{
    const char *l0 = at, *l1 = at;
    int line = 1;

    for (const char *c = J->s; c < at; c++)
        line += *c == '\n';
    while (l0 > J->s && l0[-1] != '\n')
        l0--;
    while (l1 < J->e && *l1 != '\n')
        l1++;
    J->nerr++;
    if (!J->errf)
        return;
    fprintf(J->errf, "%s:%d:%d: error: %s\n  %.*s\n  %*s^\n", J->name, line, (int)(at - l0) + 1,
            msg, (int)(l1 - l0), l0, (int)(at - l0), "");
}

static void skip_ws(struct jp *J)
{
    for (;;) {
        while (J->p < J->e && (*J->p == ' ' || *J->p == '\t' || *J->p == '\n' || *J->p == '\r'))
            J->p++;
        if (J->p + 1 < J->e && J->p[0] == '/' && J->p[1] == '/') {
            while (J->p < J->e && *J->p != '\n')
                J->p++;
        } else if (J->p + 1 < J->e && J->p[0] == '/' && J->p[1] == '*') {
            J->p += 2;
            while (J->p + 1 < J->e && !(J->p[0] == '*' && J->p[1] == '/'))
                J->p++;
            J->p = J->p + 1 < J->e ? J->p + 2 : J->e;
        } else {
            return;
        }
    }
}

/* a string at J->p into out (escapes other than \" \\ \/ taken literally) */
static int parse_string(struct jp *J, char *out, size_t n)
{
    size_t k = 0;
    const char *at = J->p;

    J->p++;
    while (J->p < J->e && *J->p != '"' && *J->p != '\n') {
        char c = *J->p++;

        if (c == '\\' && J->p < J->e)
            c = *J->p++;
        if (k + 1 < n)
            out[k++] = c;
    }
    out[k] = '\0';
    if (J->p >= J->e || *J->p != '"') {
        err_at(J, at, "unterminated string");
        return -1;
    }
    J->p++;
    return 0;
}

static int add_leaf(struct jp *J, const char *path, const char *at, bool is_num, double v,
                    const char *str)
{
    struct leaf *L;

    if (J->nleaf >= MAXLEAF) {
        err_at(J, at, "too many values (a TMeasy file has fewer than 128)");
        return -1;
    }
    L = &J->leaf[J->nleaf++];
    snprintf(L->path, sizeof(L->path), "%s", path);
    snprintf(L->str, sizeof(L->str), "%s", str ? str : "");
    L->is_num = is_num;
    L->num = v;
    L->line = (int)(at - J->s); /* offset; turned into line:col on error */
    L->col = 0;
    return 0;
}

static int parse_value(struct jp *J, const char *path, int depth);

static int parse_container(struct jp *J, const char *path, int depth, bool obj)
{
    const char close = obj ? '}' : ']';
    int idx = 0;

    if (depth > MAXDEPTH) {
        err_at(J, J->p, "nesting too deep");
        return -1;
    }
    J->p++;
    skip_ws(J);
    if (J->p < J->e && *J->p == close) {
        J->p++;
        return 0;
    }
    for (;;) {
        char key[96], sub[MAXPATH];

        skip_ws(J);
        if (obj) {
            if (J->p >= J->e || *J->p != '"') {
                err_at(J, J->p < J->e ? J->p : J->e - 1, "expected a \"key\"");
                return -1;
            }
            if (parse_string(J, key, sizeof(key)))
                return -1;
            skip_ws(J);
            if (J->p >= J->e || *J->p != ':') {
                err_at(J, J->p < J->e ? J->p : J->e - 1, "expected ':'");
                return -1;
            }
            J->p++;
        } else {
            snprintf(key, sizeof(key), "%d", idx);
        }
        snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "/" : "", key);
        if (parse_value(J, sub, depth + 1))
            return -1;
        idx++;
        skip_ws(J);
        if (J->p < J->e && *J->p == ',') {
            J->p++;
            skip_ws(J);
            if (J->p < J->e && *J->p == close) { /* trailing comma, as rapidjson allows */
                J->p++;
                return 0;
            }
            continue;
        }
        if (J->p < J->e && *J->p == close) {
            J->p++;
            return 0;
        }
        err_at(J, J->p < J->e ? J->p : J->e - 1,
               obj ? "expected ',' or '}'" : "expected ',' or ']'");
        return -1;
    }
}

static int parse_value(struct jp *J, const char *path, int depth)
{
    const char *at;

    skip_ws(J);
    at = J->p;
    if (J->p >= J->e) {
        err_at(J, J->e - 1, "unexpected end of file");
        return -1;
    }
    if (*J->p == '{' || *J->p == '[')
        return parse_container(J, path, depth, *J->p == '{');
    if (*J->p == '"') {
        char str[64];

        if (parse_string(J, str, sizeof(str)))
            return -1;
        return add_leaf(J, path, at, false, 0.0, str);
    }
    if (!strncmp(J->p, "true", 4) || !strncmp(J->p, "null", 4)) {
        J->p += 4;
        return add_leaf(J, path, at, false, 0.0, "");
    }
    if (!strncmp(J->p, "false", 5)) {
        J->p += 5;
        return add_leaf(J, path, at, false, 0.0, "");
    }
    {
        char *end;
        const double v = strtod(J->p, &end);

        if (end == J->p || !isfinite(v)) {
            err_at(J, at, "expected a value");
            return -1;
        }
        J->p = end;
        return add_leaf(J, path, at, true, v, NULL);
    }
}

static const struct leaf *find(const struct jp *J, const char *path)
{
    for (int i = 0; i < J->nleaf; i++)
        if (!strcmp(J->leaf[i].path, path))
            return &J->leaf[i];
    return NULL;
}

static bool has_prefix(const struct jp *J, const char *pre)
{
    const size_t n = strlen(pre);

    for (int i = 0; i < J->nleaf; i++)
        if (!strncmp(J->leaf[i].path, pre, n) && J->leaf[i].path[n] == '/')
            return true;
    return false;
}

/* number at path into *v; missing: error (req) or keep *v */
static int num(struct jp *J, const char *path, double *v, bool req)
{
    const struct leaf *L = find(J, path);
    char msg[256];

    if (!L) {
        if (!req)
            return 0;
        snprintf(msg, sizeof(msg), "missing key \"%s\"", path);
        J->nerr++;
        if (J->errf)
            fprintf(J->errf, "%s: error: %s\n", J->name, msg);
        return -1;
    }
    if (!L->is_num) {
        snprintf(msg, sizeof(msg), "\"%s\": a number expected", path);
        err_at(J, J->s + L->line, msg);
        return -1;
    }
    *v = L->num;
    return 0;
}

/* a pair [at pn, at 2 pn] under Parameters/ */
static int pair(struct jp *J, const char *path, double out[2], double scale)
{
    char p0[MAXPATH], p1[MAXPATH];
    int rc;

    snprintf(p0, sizeof(p0), "Parameters/%s/0", path);
    snprintf(p1, sizeof(p1), "Parameters/%s/1", path);
    rc = num(J, p0, &out[0], true) | num(J, p1, &out[1], true);
    out[0] *= scale;
    out[1] *= scale;
    return rc ? -1 : 0;
}

/* ETRTO load index table [kg], index 0..279 (as ChTMeasyTire::GetTireMaxLoad) */
static const double li_kg[] = {
    45,     46.5,   47.5,   48.7,  50,     51.5,   53,     54.5,   56,     58,     60,     61.5,
    63,     65,     67,     69,    71,     73,     75,     77.5,   80,     82.5,   85,     87.5,
    90,     92.5,   95,     97.5,  100,    103,    106,    109,    112,    115,    118,    121,
    125,    128,    132,    136,   140,    145,    150,    155,    160,    165,    170,    175,
    180,    185,    190,    195,   200,    206,    212,    218,    224,    230,    236,    243,
    250,    257,    265,    272,   280,    290,    300,    307,    315,    325,    335,    345,
    355,    365,    375,    387,   400,    412,    425,    437,    450,    462,    475,    487,
    500,    515,    530,    545,   560,    580,    600,    615,    630,    650,    670,    690,
    710,    730,    750,    775,   800,    825,    850,    875,    900,    925,    950,    975,
    1000,   1030,   1060,   1090,  1120,   1150,   1180,   1215,   1250,   1285,   1320,   1360,
    1400,   1450,   1500,   1550,  1600,   1650,   1700,   1750,   1800,   1850,   1900,   1950,
    2000,   2060,   2120,   2180,  2240,   2300,   2360,   2430,   2500,   2575,   2650,   2725,
    2800,   2900,   3000,   3075,  3150,   3250,   3350,   3450,   3550,   3650,   3750,   3875,
    4000,   4125,   4250,   4375,  4500,   4625,   4750,   4875,   5000,   5150,   5300,   5450,
    5600,   5850,   6000,   6150,  6300,   6500,   6700,   6900,   7100,   7300,   7500,   7750,
    8000,   8250,   8500,   8750,  9000,   9250,   9500,   9750,   10000,  10300,  10600,  10900,
    11200,  11500,  11800,  12150, 12500,  12850,  13200,  13600,  14000,  14500,  15000,  15550,
    16000,  16500,  17000,  17500, 18000,  18500,  19000,  19500,  20000,  20600,  21200,  21800,
    22400,  23000,  23600,  24300, 25000,  25750,  26500,  27250,  28000,  29000,  30000,  30750,
    31500,  32500,  33500,  34500, 35500,  36500,  37500,  38750,  40000,  41250,  42500,  43750,
    45000,  46250,  47500,  48750, 50000,  51500,  53000,  54500,  56000,  58000,  60000,  61500,
    63000,  65000,  67000,  69000, 71000,  73000,  75000,  77500,  80000,  82500,  85000,  87500,
    90000,  92500,  95000,  97500, 100000, 103000, 106000, 109000, 112000, 115000, 118000, 121000,
    125000, 128500, 132000, 136000};

double vd_tmeasy_load_index(int li)
{
    const int n = (int)(sizeof(li_kg) / sizeof(li_kg[0]));

    return li >= 0 && li < n ? li_kg[li] * 9.81 : 0.0;
}

/* Chrono's estimation (ChTMeasyTire::GuessPassCar70Par / GuessTruck80Par): the curve values
 * as multiples of pn (at pn) and of 2 pn (at 2 pn) */
static void guess(struct vd_tm_params *p, double fmax, bool truck, double pli, double puse)
{
    /* dfx0 sxm fxm sxs fxs | dfy0 sym fym sys fys | nto0 synto0 syntoE, at pn then 2 pn */
    static const double car[2][13] = {{18.6758, 0.17, 1.1205, 0.9, 0.8766, 14.9858, 0.18197, 1.0084,
                                       0.82534, 0.83941, 0.178, 0.19107, 0.82534},
                                      {20.1757, 0.15, 1.072, 0.95, 0.8245, 10.0505, 0.24472,
                                       0.90003, 0.91309, 0.76782, 0.19, 0.25695, 0.91309}};
    static const double trk[2][13] = {{17.6866, 0.12, 0.88468, 0.9, 0.54397, 5.948, 0.38786,
                                       0.77253, 0.82534, 0.71139, 0.178, 0.40726, 0.82534},
                                      {13.8046, 0.15, 0.7479, 0.95, 0.50365, 5.506, 0.38786,
                                       0.73048, 0.91309, 0.66823, 0.19, 0.40726, 0.91309}};
    const double(*c)[13] = truck ? trk : car;
    const double h = p->r0 - p->rim_radius, xi = 0.05;

    p->pn = 0.5 * fmax * pow(puse / pli, 0.8);
    p->pn_max = 3.5 * p->pn;
    p->cz = p->pn / (0.16 * h);
    p->dz = xi * sqrt(p->cz * p->mass);
    p->cx = 0.9 * p->cz;
    p->dx = xi * sqrt(p->cx * p->mass);
    p->cy = 0.8 * p->cz;
    p->dy = xi * sqrt(p->cy * p->mass);
    for (int i = 0; i < 2; i++) {
        const double f = (double)(i + 1) * p->pn;

        p->dfx0[i] = c[i][0] * f;
        p->sxm[i] = c[i][1];
        p->fxm[i] = c[i][2] * f;
        p->sxs[i] = c[i][3];
        p->fxs[i] = c[i][4] * f;
        p->dfy0[i] = c[i][5] * f;
        p->sym[i] = c[i][6];
        p->fym[i] = c[i][7] * f;
        p->sys[i] = c[i][8];
        p->fys[i] = c[i][9] * f;
        p->nto0[i] = c[i][10];
        p->synto0[i] = c[i][11];
        p->syntoE[i] = c[i][12];
    }
}

static int full(struct jp *J, struct vd_tm_params *p)
{
    double vz[2] = {0.0, 0.0};
    int rc = 0;

    rc |= num(J, "Parameters/Tire Load/Nominal Vertical Force [N]", &p->pn, true);
    rc |= num(J, "Parameters/Tire Load/Maximum Vertical Force [N]", &p->pn_max, true);
    rc |= num(J, "Parameters/Tire Stiffness/Longitudinal [N/m]", &p->cx, true);
    rc |= num(J, "Parameters/Tire Stiffness/Lateral [N/m]", &p->cy, true);
    rc |= pair(J, "Tire Stiffness/Vertical [N/m]", vz, 1.0);
    p->cz = vz[0];
    rc |= num(J, "Parameters/Tire Damping/Longitudinal [Ns/m]", &p->dx, true);
    rc |= num(J, "Parameters/Tire Damping/Lateral [Ns/m]", &p->dy, true);
    rc |= num(J, "Parameters/Tire Damping/Vertical [Ns/m]", &p->dz, true);
    rc |= pair(J, "Longitudinal/Initial Slopes dFx/dsx [N]", p->dfx0, 1.0);
    rc |= pair(J, "Longitudinal/Maximum Fx Load [N]", p->fxm, 1.0);
    rc |= pair(J, "Longitudinal/Sliding Fx Load [N]", p->fxs, 1.0);
    rc |= pair(J, "Longitudinal/Slip sx at Maximum Fx", p->sxm, 1.0);
    rc |= pair(J, "Longitudinal/Slip sx where sliding begins", p->sxs, 1.0);
    rc |= pair(J, "Lateral/Initial Slopes dFy/dsy [N]", p->dfy0, 1.0);
    rc |= pair(J, "Lateral/Maximum Fy Load [N]", p->fym, 1.0);
    rc |= pair(J, "Lateral/Sliding Fy Load [N]", p->fys, 1.0);
    rc |= pair(J, "Lateral/Slip sy at Maximum Fy", p->sym, 1.0);
    rc |= pair(J, "Lateral/Slip sy where sliding begins", p->sys, 1.0);
    rc |= pair(J, "Aligning/Normalized Trail at Zero Slip sy", p->nto0, 1.0);
    rc |= pair(J, "Aligning/Slip sy where Trail Changes Sign", p->synto0, 1.0);
    rc |= pair(J, "Aligning/Slip sy where Trail Tends to Zero", p->syntoE, 1.0);
    return rc ? -1 : 0;
}

int vd_tmeasy_parse(const char *name, const char *text, size_t len, struct vd_tm_params *p,
                    FILE *errf)
{
    struct jp *J = calloc(1, sizeof(*J));
    const struct leaf *L;
    int rc = 0;

    memset(p, 0, sizeof(*p));
    p->vn = VD_TM_VN; /* no file key (Chrono's m_vnum is fixed too): core/tire_tmeasy.h */
    if (!J) {
        if (errf)
            fprintf(errf, "%s: error: out of memory\n", name);
        return -ENOMEM;
    }
    J->name = name;
    J->s = J->p = text;
    J->e = text + len;
    J->errf = errf;
    skip_ws(J);
    if (J->p >= J->e || *J->p != '{') {
        err_at(J, J->p < J->e ? J->p : text, "expected '{' (a JSON object)");
        rc = -EINVAL;
        goto out_free;
    }
    if (parse_value(J, "", 0)) {
        rc = -EINVAL;
        goto out_free;
    }
    skip_ws(J);
    if (J->p < J->e) {
        err_at(J, J->p, "text after the top-level object");
        rc = -EINVAL;
        goto out_free;
    }
    L = find(J, "Template");
    if (!L || strcmp(L->str, "TMeasyTire")) {
        if (L)
            err_at(J, J->s + L->line, "\"Template\": \"TMeasyTire\" expected");
        else if (errf)
            fprintf(errf, "%s: error: missing key \"Template\" (\"TMeasyTire\")\n", name);
        rc = -EINVAL;
        goto out_free;
    }
    rc |= num(J, "Design/Unloaded Radius [m]", &p->r0, true);
    rc |= num(J, "Design/Mass [kg]", &p->mass, true);
    rc |= num(J, "Design/Width [m]", &p->width, true);
    rc |= num(J, "Design/Rim Radius [m]", &p->rim_radius, true);
    rc |= num(J, "Coefficient of Friction", &p->mu0, true);
    if (find(J, "Rolling Resistance Coefficients/0"))
        rc |= num(J, "Rolling Resistance Coefficients/0", &p->rr, true);
    else
        rc |= num(J, "Rolling Resistance Coefficient", &p->rr, true);
    if (rc)
        goto out_inval;
    if (has_prefix(J, "Parameters")) {
        if (full(J, p))
            goto out_inval;
    } else {
        double fmax = 0.0, pli = 0.0, puse = 0.0, li = -1.0;
        bool truck;

        L = find(J, "Vehicle Type");
        if (!L || L->is_num || (strcmp(L->str, "Passenger") && strcmp(L->str, "Truck"))) {
            if (L)
                err_at(J, J->s + L->line, "\"Vehicle Type\": \"Passenger\" or \"Truck\" expected");
            else if (errf)
                fprintf(errf,
                        "%s: error: missing key \"Vehicle Type\" (needed with a load index)\n",
                        name);
            goto out_inval;
        }
        truck = !strcmp(L->str, "Truck");
        if (num(J, "Inflation Pressure Design [Pa]", &pli, false) ||
            num(J, "Inflation Pressure Use [Pa]", &puse, false))
            goto out_inval;
        if (!(pli > 0.0 && puse > 0.0))
            pli = puse = 1.0;
        if ((L = find(J, "Load Index"))) {
            if (num(J, "Load Index", &li, true))
                goto out_inval;
            fmax = vd_tmeasy_load_index((int)li);
            if (li != floor(li) || !(fmax > 0.0)) {
                err_at(J, J->s + L->line, "\"Load Index\": an integer in [0, 279] expected");
                goto out_inval;
            }
        } else if (find(J, "Maximum Bearing Capacity [N]")) {
            if (num(J, "Maximum Bearing Capacity [N]", &fmax, true))
                goto out_inval;
        } else {
            if (errf)
                fprintf(errf,
                        "%s: error: no \"Parameters\", \"Load Index\" or \"Maximum Bearing "
                        "Capacity [N]\": the tyre is not specified\n",
                        name);
            goto out_inval;
        }
        if (!(p->r0 > p->rim_radius) || !(p->rim_radius > 0.0)) {
            if (errf)
                fprintf(errf, "%s: error: Design: Unloaded Radius > Rim Radius > 0 required\n",
                        name);
            goto out_inval;
        }
        guess(p, fmax, truck, pli, puse);
    }
    {
        const char *why = vd_tm_check(p);

        if (why) {
            if (errf)
                fprintf(errf, "%s: error: %s\n", name, why);
            goto out_inval;
        }
    }
    free(J);
    return 0;
out_inval:
    rc = -EINVAL;
out_free:
    free(J);
    return rc;
}

int vd_tmeasy_load(const char *path, struct vd_tm_params *p, FILE *errf)
{
    char *buf = NULL;
    size_t n = 0;
    int rc;

    memset(p, 0, sizeof(*p));
    rc = vd_cfg_read_or_say(path, &buf, &n, errf);
    if (rc)
        return rc;
    rc = vd_tmeasy_parse(path, buf, n, p, errf);
    free(buf);
    return rc;
}
