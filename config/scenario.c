/* config/scenario.c - scenario files: schema, loading (the vehicle through the model loader,
 * then the scenario's own sections), initial state. */
#include "scenario.h"
#include "config/ranges.h"
#include "config/vfs.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config/loader.h"
#include "core/road.h"
#include "config/sources.h"
#include "config/ydoc.h"
#include "core/signal.h"
#include "core/statics.h"
#include "core/vdmath.h"

#define REQ      VD_YK_REQUIRED
#define LO_OPEN  VD_YK_LO_OPEN
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

enum { SC_SCEN, SC_SOLVER, SC_ROAD, SC_INIT, SC_INPUTS, SC_DRIVER, SC_OUT, SC_N };
static const struct vd_ykey top_keys[SC_N] = {
    [SC_SCEN] = VD_YKEY("scenario", REQ, NULL), /* {name, vehicle, duration, description} */
    [SC_SOLVER] = VD_YKEY("solver", 0, NULL),   /* overrides the vehicle's */
    [SC_ROAD] = VD_YKEY("road", 0, NULL),       /* replaces the vehicle's */
    [SC_INIT] = VD_YKEY("initial", 0, NULL),
    [SC_INPUTS] = VD_YKEY("inputs", 0, NULL), /* input name: signal */
    [SC_DRIVER] = VD_YKEY("driver", 0, NULL),
    [SC_OUT] = VD_YKEY("outputs", 0, NULL), /* signal names recorded by default */
};

enum { SS_NAME, SS_VEHICLE, SS_DUR, SS_DESC, SS_N };
static const struct vd_ykey scen_keys[SS_N] = {
    [SS_NAME] = VD_YKEY("name", 0, NULL),
    [SS_VEHICLE] = VD_YKEY("vehicle", REQ, NULL), /* model file, relative to this file */
    [SS_DUR] = VD_YKEY_IN("duration", REQ | LO_OPEN, "s", VD_RNG_DURATION),
    [SS_DESC] = VD_YKEY("description", 0, NULL),
};

enum { IN_SPEED, IN_HEAD, IN_POS, IN_STATIC, IN_N };
static const struct vd_ykey init_keys[IN_N] = {
    [IN_SPEED] = VD_YKEY_IN("speed", 0, "m/s", VD_RNG_SPEED),
    [IN_HEAD] = VD_YKEY_IN("heading", 0, "deg", VD_RNG_ANGLE),
    [IN_POS] = VD_YKEY_IN("position", 0, "m", VD_RNG_POS), /* [x, y] shift */
    [IN_STATIC] = VD_YKEY("static", 0, NULL), /* static equilibrium first (default true) */
};

enum {
    DR_SPEED,
    DR_KP,
    DR_KI,
    DR_MAXD,
    DR_MAXB,
    DR_DRIVE,
    DR_BRAKE,
    DR_PATH,
    DR_STEER,
    DR_RATIO,
    DR_WB,
    DR_PREVIEW,
    DR_CHASSIS,
    DR_N
};
static const struct vd_ykey driver_keys[DR_N] = {
    [DR_SPEED] = VD_YKEY_IN("speed", 0, "m/s", VD_RNG_SPEED), /* number or [[t, v], ...] */
    [DR_KP] = VD_YKEY_IN("kp", 0, "N m s/m", VD_RNG_DRIVER_GAIN),
    [DR_KI] = VD_YKEY_IN("ki", 0, "N m/m", VD_RNG_DRIVER_GAIN),
    [DR_MAXD] = VD_YKEY_IN("max_drive", 0, "N m", VD_RNG_TORQUE),
    [DR_MAXB] = VD_YKEY_IN("max_brake", 0, "N m", VD_RNG_TORQUE),
    [DR_DRIVE] = VD_YKEY("drive", 0, NULL), /* input names */
    [DR_BRAKE] = VD_YKEY("brake", 0, NULL),
    [DR_PATH] = VD_YKEY_IN("path", 0, "m", VD_RNG_POS), /* iso3888_1 | [[x, y], ...] */
    [DR_STEER] = VD_YKEY("steering", 0, NULL),          /* steering-wheel angle input */
    [DR_RATIO] = VD_YKEY_RANGE("steer_ratio", LO_OPEN, "-", 0.0, 100.0),
    [DR_WB] = VD_YKEY_RANGE("wheelbase", LO_OPEN, "m", 0.0, 20.0),
    [DR_PREVIEW] = VD_YKEY_RANGE("preview_time", LO_OPEN, "s", 0.0, 10.0),
    [DR_CHASSIS] = VD_YKEY("chassis", 0, NULL), /* body, default chassis */
};

static const char *const bool_names[] = {"false", "true"};

bool vd_cfg_is_scenario(const char *path)
{
    char *text = NULL, *p;
    size_t len = 0;
    bool yes = false;

    if (vd_cfg_read(path, &text, &len))
        return false;
    /* a top-level key at the start of a line */
    for (p = text; p && p < text + len; p = memchr(p, '\n', (size_t)(text + len - p))) {
        if (*p == '\n')
            p++;
        if ((size_t)(text + len - p) >= 9 && !memcmp(p, "scenario:", 9)) {
            yes = true;
            break;
        }
    }
    free(text);
    return yes;
}

/* names of inputs (a sequence) into indices */
static int input_list(struct loader *L, const yaml_node_t *node, const char *path, int *idx, int *n)
{
    int k = 0;

    *n = 0;
    if (!node)
        return 0;
    if (vd_ydoc_seq(L->y, node, path, 1, &k))
        return -EINVAL;
    if (k > VD_DRIVER_MAX_IN) {
        vd_ydoc_error(L->y, node, "%s: at most %d inputs", path, VD_DRIVER_MAX_IN);
        return -EINVAL;
    }
    for (int i = 0; i < k; i++) {
        char ip[VD_YPATH_MAX];

        vd_ypath_index(ip, path, i);
        idx[i] = vd_ld_ref(L, &L->input, vd_ydoc_item(L->y, node, i), ip);
        if (idx[i] < 0)
            return -EINVAL;
    }
    *n = k;
    return 0;
}

/* the points of a table read at node: x (named xn, unit xu) in xr[0..1], y likewise; 0 or
 * -EINVAL with the point located */
static int table_ranges(struct loader *L, const yaml_node_t *node, const char *path,
                        const double *x, const double *y, int n, const char *xn, const double xr[2],
                        const char *xu, const char *yn, const double yr[2], const char *yu)
{
    for (int i = 0; i < n; i++) {
        const bool xbad = !(x[i] >= xr[0] && x[i] <= xr[1]);

        if (xbad || !(y[i] >= yr[0] && y[i] <= yr[1])) {
            vd_ydoc_error(L->y, vd_ydoc_item(L->y, node, i),
                          "%s[%d]: %s %g out of range [%g, %g] %s", path, i, xbad ? xn : yn,
                          xbad ? x[i] : y[i], xbad ? xr[0] : yr[0], xbad ? xr[1] : yr[1],
                          xbad ? xu : yu);
            return -EINVAL;
        }
    }
    return 0;
}

static void load_driver(struct loader *L, struct vd_scenario *s, const yaml_node_t *node)
{
    struct vd_driver *dr = &s->drv;
    yaml_node_t *v[DR_N];
    const char *P = "driver";

    s->has_driver = true;
    vd_ydoc_map(L->y, node, P, driver_keys, DR_N, v);
    dr->chassis = vd_ld_find(&L->body, "chassis");
    if (v[DR_CHASSIS])
        dr->chassis = vd_ld_ref(L, &L->body, v[DR_CHASSIS], "driver.chassis");
    if (dr->chassis < 0)
        vd_ydoc_error(L->y, v[DR_CHASSIS] ? v[DR_CHASSIS] : node,
                      "driver: no body 'chassis' to drive (set driver.chassis)");
    if (v[DR_SPEED]) {
        dr->speed_on = true;
        if (v[DR_SPEED]->type == YAML_SCALAR_NODE) {
            const double t0 = 0.0;
            double v0 = 0.0;

            if (!vd_ydoc_number(L->y, v[DR_SPEED], P, &driver_keys[DR_SPEED], &v0) &&
                vd_driver_set_speed(dr, &t0, &v0, 1))
                vd_ydoc_error(L->y, v[DR_SPEED], "driver.speed: out of memory");
        } else {
            double *x = NULL, *y = NULL;
            int n = 0;

            /* as many points as the table has: sized here, once; times and speeds in range */
            if (!vd_ydoc_table(L->y, v[DR_SPEED], P, &driver_keys[DR_SPEED], 1, &x, &y, &n) &&
                !table_ranges(L, v[DR_SPEED], "driver.speed", x, y, n, "t", (double[]){VD_RNG_TIME},
                              "s", "v", (double[]){VD_RNG_SPEED}, "m/s") &&
                vd_driver_set_speed(dr, x, y, n))
                vd_ydoc_error(L->y, v[DR_SPEED], "driver.speed: out of memory");
            free(x);
            free(y);
        }
    }
    vd_ydoc_number(L->y, v[DR_KP], P, &driver_keys[DR_KP], &dr->kp);
    vd_ydoc_number(L->y, v[DR_KI], P, &driver_keys[DR_KI], &dr->ki);
    vd_ydoc_number(L->y, v[DR_MAXD], P, &driver_keys[DR_MAXD], &dr->max_drive);
    vd_ydoc_number(L->y, v[DR_MAXB], P, &driver_keys[DR_MAXB], &dr->max_brake);
    input_list(L, v[DR_DRIVE], "driver.drive", dr->drive_in, &dr->ndrive);
    input_list(L, v[DR_BRAKE], "driver.brake", dr->brake_in, &dr->nbrake);
    if (dr->speed_on && (dr->ndrive == 0 || dr->nbrake == 0))
        vd_ydoc_error(L->y, node, "driver: speed control needs drive and brake input lists");
    if (v[DR_PATH]) {
        dr->path_on = true;
        if (v[DR_PATH]->type == YAML_SCALAR_NODE) {
            if (strcmp((const char *)v[DR_PATH]->data.scalar.value, "iso3888_1"))
                vd_ydoc_error(L->y, v[DR_PATH],
                              "driver.path: expected iso3888_1 or a list of [x, y] points");
            else if (vd_driver_iso3888_1(dr, 0.0, 1.8))
                vd_ydoc_error(L->y, v[DR_PATH], "driver.path: out of memory");
        } else {
            double *x = NULL, *y = NULL;
            int n = 0;

            /* points as a table: x need not increase in general, but must here (a road
             * course along x); the table reader checks that */
            if (!vd_ydoc_table(L->y, v[DR_PATH], P, &driver_keys[DR_PATH], 2, &x, &y, &n) &&
                !table_ranges(L, v[DR_PATH], "driver.path", x, y, n, "x", (double[]){VD_RNG_POS},
                              "m", "y", (double[]){VD_RNG_POS}, "m") &&
                vd_driver_set_path(dr, x, y, n))
                vd_ydoc_error(L->y, v[DR_PATH], "driver.path: out of memory");
            free(x);
            free(y);
        }
        if (!v[DR_STEER])
            vd_ydoc_error(L->y, node, "driver: path following needs a steering input");
    }
    if (v[DR_STEER])
        dr->steer_in = vd_ld_ref(L, &L->input, v[DR_STEER], "driver.steering");
    vd_ydoc_number(L->y, v[DR_RATIO], P, &driver_keys[DR_RATIO], &dr->steer_ratio);
    vd_ydoc_number(L->y, v[DR_WB], P, &driver_keys[DR_WB], &dr->wheelbase);
    vd_ydoc_number(L->y, v[DR_PREVIEW], P, &driver_keys[DR_PREVIEW], &dr->preview_time);
}

/* the scenario's own sections, after the vehicle is loaded into L */
static void load_sections(struct loader *L, struct vd_scenario *s, yaml_node_t *const *v)
{
    if (v[SC_SOLVER])
        vd_ld_solver(L, v[SC_SOLVER]);
    if (v[SC_ROAD]) {
        memset(&L->m->road, 0, sizeof(L->m->road));
        L->m->road.mu = 1.0;
        vd_ld_road(L, v[SC_ROAD]);
    }
    if (v[SC_INIT]) {
        yaml_node_t *w[IN_N];
        int st = s->statics;

        vd_ydoc_map(L->y, v[SC_INIT], "initial", init_keys, IN_N, w);
        vd_ydoc_number(L->y, w[IN_SPEED], "initial", &init_keys[IN_SPEED], &s->speed0);
        vd_ydoc_number(L->y, w[IN_HEAD], "initial", &init_keys[IN_HEAD], &s->heading0);
        s->heading0 *= M_PI / 180.0;
        vd_ydoc_vec(L->y, w[IN_POS], "initial", &init_keys[IN_POS], 2, 2, s->pos0, NULL);
        vd_ydoc_enum(L->y, w[IN_STATIC], "initial", &init_keys[IN_STATIC], bool_names, 2, &st);
        s->statics = st;
    }
    if (v[SC_INPUTS]) {
        const yaml_node_t *map = v[SC_INPUTS];

        if (map->type != YAML_MAPPING_NODE) {
            vd_ydoc_error(L->y, map, "inputs: expected a mapping of input names to signals");
        } else {
            for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
                 p < map->data.mapping.pairs.top; p++) {
                yaml_node_t *k = yaml_document_get_node(&L->y->doc, p->key);
                yaml_node_t *val = yaml_document_get_node(&L->y->doc, p->value);
                char path[VD_YPATH_MAX];
                int j;

                if (!k || k->type != YAML_SCALAR_NODE)
                    continue;
                vd_ypath(path, "inputs", (const char *)k->data.scalar.value);
                j = vd_ld_ref(L, &L->input, k, path);
                if (j >= 0)
                    vd_cfg_sources_add(L->src, L->y, j, val, path);
            }
        }
    }
    if (v[SC_DRIVER])
        load_driver(L, s, v[SC_DRIVER]);
    if (v[SC_OUT]) {
        int n = 0;

        if (!vd_ydoc_seq(L->y, v[SC_OUT], "outputs", 1, &n)) {
            /* as many as the list has: sized here, once */
            s->out = calloc((size_t)n, sizeof(*s->out));
            if (!s->out) {
                vd_ydoc_error(L->y, v[SC_OUT], "outputs: out of memory");
                n = 0;
            }
            for (int i = 0; i < n; i++) {
                char ip[VD_YPATH_MAX];

                vd_ypath_index(ip, "outputs", i);
                vd_ydoc_string(L->y, vd_ydoc_item(L->y, v[SC_OUT], i), ip, NULL, s->out[i],
                               sizeof(s->out[i]));
            }
            s->nout = n;
        }
    }
}

struct vd_scenario *vd_cfg_load_scenario(const char *path, const char *vehicle, FILE *errf)
{
    struct vd_scenario *s = calloc(1, sizeof(*s));
    struct vd_ydoc *ys = NULL, *yv = NULL;
    char *stext = NULL, *vtext = NULL, vrel[512] = "", vname[VD_NAME_MAX] = "";
    size_t slen = 0, vlen = 0;
    yaml_node_t *sroot, *v[SC_N], *w[SS_N], *vroot;
    struct loader L;
    bool ok = false, have_L = false, located;
    int rc;

    if (!s)
        return NULL;
    s->statics = true;
    rc = vd_cfg_read_or_say(path, &stext, &slen, errf);
    if (rc)
        goto out;
    ys = vd_ydoc_new(path, stext, slen);
    if (!ys || vd_ydoc_parse(ys) || !(sroot = vd_ydoc_root(ys)))
        goto out;
    vd_ydoc_map(ys, sroot, "", top_keys, SC_N, v);
    vd_ydoc_map(ys, v[SC_SCEN], "scenario", scen_keys, SS_N, w);
    vd_ydoc_string(ys, w[SS_NAME], "scenario", &scen_keys[SS_NAME], vname, sizeof(vname));
    vd_ydoc_string(ys, w[SS_VEHICLE], "scenario", &scen_keys[SS_VEHICLE], vrel, sizeof(vrel));
    vd_ydoc_number(ys, w[SS_DUR], "scenario", &scen_keys[SS_DUR], &s->duration);
    if (vd_ydoc_errors(ys))
        goto out;
    /* the vehicle: through the model loader, relative to this file */
    if (vd_ld_init(&L, path))
        goto out;
    L.errf = errf;
    have_L = true;
    if (vehicle)
        snprintf(s->vehicle, sizeof(s->vehicle), "%s", vehicle);
    else
        vd_ld_path(&L, vrel, s->vehicle, sizeof(s->vehicle));
    rc = vd_cfg_read(s->vehicle, &vtext, &vlen);
    if (rc) {
        vd_ydoc_error(ys, w[SS_VEHICLE], "scenario.vehicle: cannot read %s: %s", s->vehicle,
                      vd_cfg_strerror(rc));
        goto out;
    }
    yv = vd_ydoc_new(s->vehicle, vtext, vlen);
    if (!yv || vd_ydoc_parse(yv) || !(vroot = vd_ydoc_root(yv)))
        goto out;
    L.y = yv;
    vd_ld_set_dir(&L, s->vehicle);
    if (vd_ld_document(&L, vroot))
        goto out;
    /* the scenario's sections, read against the vehicle's elements */
    L.y = ys;
    vd_ld_set_dir(&L, path);
    vd_driver_init(&s->drv, NULL, NULL, -1);
    load_sections(&L, s, v);
    if (vd_ydoc_errors(ys) || vd_ld_build(&L, sroot))
        goto out;
    s->m = L.m;
    s->src = L.src;
    L.m = NULL;
    L.src = NULL;
    snprintf(s->name, sizeof(s->name), "%s", vname[0] ? vname : s->m->name);
    for (int i = 0; i < s->nout; i++) {
        struct vd_signal sig;

        if (vd_signal_resolve(s->m, s->out[i], &sig)) {
            vd_ydoc_error(ys, vd_ydoc_item(ys, v[SC_OUT], i), "outputs[%d]: unknown signal '%s'", i,
                          s->out[i]);
            goto out;
        }
    }
    ok = true;
out:
    located = (yv && vd_ydoc_errors(yv)) || (ys && vd_ydoc_errors(ys));
    if (errf && yv && vd_ydoc_errors(yv))
        vd_ydoc_print(yv, errf);
    if (errf && ys && vd_ydoc_errors(ys))
        vd_ydoc_print(ys, errf);
    if (have_L)
        vd_ld_free(&L);
    vd_ydoc_free(ys);
    vd_ydoc_free(yv);
    free(stext);
    free(vtext);
    if (!ok) {
        if (errf && !located)
            fprintf(errf, "%s: error: could not load the scenario\n", path);
        vd_cfg_scenario_free(s);
        return NULL;
    }
    return s;
}

void vd_cfg_scenario_free(struct vd_scenario *s)
{
    if (!s)
        return;
    vd_source_free(s->src);
    vd_model_free(s->m);
    vd_driver_free(&s->drv);
    free(s->out);
    free(s);
}

/* torsionally coupled: component rx with a stiffness and no actuator */
static bool spin_coupled(const struct vd_bushing *b)
{
    const struct vd_curve *c = &b->stiff[3];

    return b->rot_mode == VD_ROT_CARDAN && b->act[3] == VD_ACT_NONE &&
           ((c->kind == VD_CURVE_LINEAR && c->k != 0.0) || c->kind == VD_CURVE_TABLE);
}

/* a drive torque: an input the driver drives with, or a template's wheel drive
 * ("<corner>.drive", config/README.md) */
static bool drive_input(const struct vd_scenario *s, int i)
{
    const char *n = s->m->input[i].name;
    size_t l = strlen(n);

    if (s->has_driver)
        for (int k = 0; k < s->drv.ndrive; k++)
            if (s->drv.drive_in[k] == i)
                return true;
    return l >= 6 && !strcmp(n + l - 6, ".drive");
}

int vd_scenario_start(struct vd_scenario *s, struct vd_data *d, char *err, size_t errlen)
{
    const struct vd_model *m = s->m;
    const double ch = cos(s->heading0), sh = sin(s->heading0);
    const double gx0 = m->road.grade[0];
    const double vg[3] = {s->speed0 * ch / sqrt(1.0 + gx0 * gx0), s->speed0 * sh,
                          s->speed0 * ch * gx0 / sqrt(1.0 + gx0 * gx0)};
    double(*wg)[3] = calloc((size_t)m->nbody, sizeof(*wg));
    bool *spin = calloc((size_t)m->nbody, sizeof(*spin));

    if (!wg || !spin) {
        free(wg);
        free(spin);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    vd_data_reset(m, d);
    vd_source_eval(s->src, 0.0, d->u);
    if (s->statics) {
        /* on the level base plane (no grade, obstacles or profile): the vehicle is then laid
         * onto the grade and placed at its start position, tyres and all. A profile or an
         * obstacle under the design pose would make the statics a different problem per
         * road (and a piecewise-linear profile has kinks Newton cannot settle on) */
        const struct vd_road road = s->m->road;
        int it;

        s->m->road.grade[0] = s->m->road.grade[1] = 0.0;
        s->m->road.nobst = 0;
        s->m->road.nprof = 0;
        /* drive torques are held at 0 while the vehicle settles: a wheel driven at rest has no
         * equilibrium (it spins up against the tyre); they act from t = 0 on */
        for (int i = 0; i < m->ninput; i++)
            if (drive_input(s, i))
                d->u[i] = 0.0;
        it = vd_equilibrate(m, d, 200, 1e-3);
        s->m->road = road;
        vd_source_eval(s->src, 0.0, d->u);

        if (it < 0) {
            char held[160] = "";

            /* what pushes at t = 0 besides gravity: the inputs that were not held */
            for (int i = 0, k = 0; i < m->ninput && k < 4; i++) {
                size_t l = strlen(held);

                if (drive_input(s, i) || d->u[i] == 0.0)
                    continue;
                snprintf(held + l, sizeof(held) - l, "%s%s = %g", k++ ? ", " : "", m->input[i].name,
                         d->u[i]);
            }
            snprintf(err, errlen,
                     "no static equilibrium %s%s%s%s (drive torques are held at 0 for it; "
                     "set initial.static: false to start from the design pose)",
                     it == -EDOM ? "(singular or non-finite)" : "within 200 Newton iterations",
                     held[0] ? " with these inputs non-zero at t = 0, which the vehicle at "
                               "rest must hold: "
                             : "",
                     held, held[0] ? "" : " with no input applied at t = 0");
            free(wg);
            free(spin);
            return it;
        }
    }
    /* lay the whole vehicle on the road plane (grade), turn it to its heading and shift it;
     * the road height at the new origin lifts it as much as at the design origin */
    {
        const double gx = m->road.grade[0], gy = m->road.grade[1];
        double Rt[9], Ry[9], Rx[9], Rz[9], T1[9], g2[2];
        double z0;

        /* lift: the road at the start position above the base plane at the design origin
         * (where the statics stood) */
        {
            const struct vd_road road = s->m->road;

            z0 = vd_road_height(m, s->pos0[0], s->pos0[1], g2);
            s->m->road.nobst = 0;
            s->m->road.nprof = 0;
            z0 -= vd_road_height(m, 0.0, 0.0, g2);
            s->m->road = road;
        }

        vdu_cardan_zyx(Ry, 0.0, -atan(gx), 0.0);
        vdu_cardan_zyx(Rx, 0.0, 0.0, atan(gy));
        vdu_cardan_zyx(Rz, s->heading0, 0.0, 0.0);
        vdu_mat3_mul(T1, Ry, Rx);
        vdu_mat3_mul(Rt, Rz, T1);
        for (int b = 0; b < m->nbody; b++) {
            double *r = d->r + 6 * b, p[3], A[9], A2[9];

            vdu_mat3_vec(p, Rt, r);
            r[0] = p[0] + s->pos0[0];
            r[1] = p[1] + s->pos0[1];
            r[2] = p[2] + z0;
            vdu_cardan_zyx(A, r[3], r[4], r[5]);
            vdu_mat3_mul(A2, Rt, A);
            {
                double ang[3];

                vdu_cardan_from_mat(ang, A2);
                /* keep the unbounded angles continuous (wheel and shaft spins) */
                r[3] += remainder(ang[0] - r[3], 2.0 * M_PI);
                r[4] = ang[1];
                r[5] += remainder(ang[2] - r[5], 2.0 * M_PI);
            }
            memcpy(d->v + 6 * b, vg, sizeof(vg));
            memset(d->v + 6 * b + 3, 0, 3 * sizeof(double));
        }
        (void)ch;
        (void)sh;
    }
    /* rolling wheels: omega = v / Re about their axes, and what spins with them */
    if (s->speed0 != 0.0) {
        double A[9];

        for (int t = 0; t < m->ntire; t++) {
            const struct vd_marker *mk = &m->marker[m->tire[t].marker];
            const double re = m->tire[t].r0 - 0.005;
            double ax[3] = {mk->rot[0], mk->rot[3], mk->rot[6]}, axg[3];

            vdu_cardan_zyx(A, d->r[6 * mk->body + 3], d->r[6 * mk->body + 4],
                           d->r[6 * mk->body + 5]);
            vdu_mat3_vec(axg, A, ax);
            vdu_scale3(wg[mk->body], s->speed0 / re, axg);
            spin[mk->body] = true;
        }
        for (int pass = 0; pass < 3; pass++)
            for (int e = 0; e < m->nbush; e++) {
                const int b1 = m->marker[m->bush[e].mk[0]].body;
                const int b2 = m->marker[m->bush[e].mk[1]].body;

                if (b1 < 0 || b2 < 0 || !spin_coupled(&m->bush[e]) || spin[b1] == spin[b2])
                    continue;
                if (spin[b1])
                    memcpy(wg[b2], wg[b1], sizeof(wg[0]));
                else
                    memcpy(wg[b1], wg[b2], sizeof(wg[0]));
                spin[b1] = spin[b2] = true;
            }
        for (int b = 0; b < m->nbody; b++) {
            if (!spin[b])
                continue;
            vdu_cardan_zyx(A, d->r[6 * b + 3], d->r[6 * b + 4], d->r[6 * b + 5]);
            vdu_mat3t_vec(d->v + 6 * b + 3, A, wg[b]);
        }
    }
    d->lin_age = -1;
    if (s->has_driver) {
        struct vd_driver *dr = &s->drv;

        dr->m = m;
        dr->d = d;
        dr->base = vd_source_eval;
        dr->base_ctx = s->src;
        dr->integ = 0.0;
        dr->t_last = 0.0;
        dr->i_near = 0;
        d->input_fn = vd_driver_inputs;
        d->input_peek = vd_driver_peek;
        d->input_ctx = dr;
    } else {
        d->input_fn = vd_source_eval;
        d->input_peek = NULL;
        d->input_ctx = s->src;
    }
    d->input_fn(d->input_ctx, 0.0, d->u);
    free(wg);
    free(spin);
    return 0;
}
