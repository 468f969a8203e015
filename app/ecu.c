/* app/ecu.c - the virtual ECU: controller, fault injection, its CAN thread. */
#include "ecu.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "config/scenario.h"
#include "core/driver.h"
#include "rt/clock.h"

#define MS APP_CAN_MS

/* --- configuration ----------------------------------------------------------------------- */

void app_ecu_ctl_default(struct app_ecu_ctl *c)
{
    memset(c, 0, sizeof(*c));
    c->nv = 3;
    c->vt[0] = 0.0, c->vv[0] = 0.0;
    c->vt[1] = 1.0, c->vv[1] = 0.0;
    c->vt[2] = 6.0, c->vv[2] = 10.0;
    /* the scenario driver's gains: ~1800 kg car, 2 driven wheels of 0.33 m */
    c->kp = 300.0;
    c->ki = 60.0;
    c->max_drive = 1200.0;
    c->max_brake = 2500.0;
    c->hold_speed = 0.3;
    snprintf(c->steer, sizeof(c->steer), "steering.angle");
    c->npath = 2;
    c->px[0] = -1000.0, c->py[0] = 0.0;
    c->px[1] = 100000.0, c->py[1] = 0.0;
    c->steer_ratio = 15.0;
    c->wheelbase = 2.8;
    c->preview_time = 0.8;
    c->preview_min = 5.0;
    c->max_steer = 8.0;
    c->wheel_radius = 0.33;
    /* EPS: the assist equals the driver's torque at standstill and halves at 10 m/s; the
     * 0.1 s low-pass keeps the loop gain far below 1 at the torsion-bar resonance (~25 Hz)
     * despite the 10-20 ms of bus delay */
    c->eps_gain = 1.0;
    c->eps_v0 = 10.0;
    c->eps_max = 30.0;
    c->eps_tau = 0.1;
}

void app_ecu_cfg_default(struct app_ecu_cfg *c)
{
    memset(c, 0, sizeof(*c));
    app_ecu_ctl_default(&c->ctl);
    c->priority = 60;
    c->cpu = -1;
}

int app_ecu_ctl_from_scenario(struct app_ecu_ctl *c, const struct vd_scenario *s, FILE *errf)
{
    const struct vd_driver *dr = &s->drv;
    const struct vd_model *m = s->m;

    if (!s->has_driver)
        return 0;
    /* the ECU's controller holds fixed tables: a longer schedule or path is refused, never
     * cut short */
    if ((dr->speed_on && dr->nv > VD_RUN_MAX_SPEED) ||
        (dr->path_on && dr->npath > APP_ECU_MAX_PATH)) {
        if (errf)
            fprintf(errf,
                    "%s: error: the virtual ECU takes at most %d speed points and %d path "
                    "points (the driver has %d and %d)\n",
                    s->name, VD_RUN_MAX_SPEED, APP_ECU_MAX_PATH, dr->nv, dr->npath);
        return -E2BIG;
    }
    if (dr->speed_on && dr->nv > 0) {
        c->nv = dr->nv;
        for (int i = 0; i < c->nv; i++) {
            c->vt[i] = dr->vt[i];
            c->vv[i] = dr->vv[i];
        }
        c->kp = dr->kp;
        c->ki = dr->ki;
        c->max_drive = dr->max_drive;
        c->max_brake = dr->max_brake;
        c->hold_speed = dr->hold_speed;
        c->ndrive = c->nbrake = 0;
        for (int i = 0; i < dr->ndrive && i < APP_ECU_MAX_WHEEL; i++)
            snprintf(c->drive[c->ndrive++], APP_ECU_NAME, "%s", m->input[dr->drive_in[i]].name);
        for (int i = 0; i < dr->nbrake && i < APP_ECU_MAX_WHEEL; i++)
            snprintf(c->brake[c->nbrake++], APP_ECU_NAME, "%s", m->input[dr->brake_in[i]].name);
    }
    if (dr->path_on && dr->npath >= 2 && dr->steer_in >= 0) {
        c->npath = dr->npath;
        for (int i = 0; i < c->npath; i++) {
            c->px[i] = dr->px[i];
            c->py[i] = dr->py[i];
        }
        snprintf(c->steer, sizeof(c->steer), "%s", m->input[dr->steer_in].name);
        c->steer_ratio = dr->steer_ratio;
        c->wheelbase = dr->wheelbase;
        c->preview_time = dr->preview_time;
        c->preview_min = dr->preview_min;
        c->max_steer = dr->max_steer;
    }
    /* start pose: the chassis CoM where the scenario puts it */
    if (dr->chassis >= 0 && dr->chassis < m->nbody) {
        const struct vd_body *b = &m->body[dr->chassis];
        const double ch = cos(s->heading0), sh = sin(s->heading0);
        const double x = b->pose0[0] + b->com[0], y = b->pose0[1] + b->com[1];

        c->x0 = ch * x - sh * y + s->pos0[0];
        c->y0 = sh * x + ch * y + s->pos0[1];
        c->psi0 = b->pose0[3] + s->heading0;
    }
    return 0;
}

void app_ecu_cfg_from_run(struct app_ecu_cfg *c, const struct vd_run_can *rc, const char *file)
{
    const struct vd_run_ecu *e = &rc->ecu;

    c->priority = e->priority;
    c->port = rc->port;
    if (e->nspeed > 0) {
        c->ctl.nv = e->nspeed;
        for (int i = 0; i < e->nspeed; i++) {
            c->ctl.vt[i] = e->speed_t[i];
            c->ctl.vv[i] = e->speed_v[i];
        }
    }
    if (e->eps_gain >= 0)
        c->ctl.eps_gain = e->eps_gain;
    for (int i = 0; i < e->nfault && c->nfault < VD_RUN_MAX_FAULTS; i++) {
        const struct vd_run_fault *rf = &e->fault[i];
        struct app_ecu_fault *f = &c->fault[c->nfault++];

        memset(f, 0, sizeof(*f));
        f->kind = rf->kind;
        snprintf(f->message, sizeof(f->message), "%s", rf->message);
        f->at = rf->at;
        f->duration = rf->duration;
        f->count = rf->count;
        f->factor = rf->factor;
        f->file = file;
        f->line = rf->line;
        f->col = rf->col;
    }
}

static int parse_num(const char *s, size_t n, double *out)
{
    char buf[64], *end;

    if (n == 0 || n >= sizeof(buf))
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    *out = strtod(buf, &end);
    return errno || *end || !isfinite(*out) ? -1 : 0;
}

int app_ecu_parse_fault(const char *spec, struct app_ecu_fault *f)
{
    const char *at = strchr(spec, '@'), *star = strrchr(spec, '*'), *colon;
    const char *head_end = at ? at : (star ? star : spec + strlen(spec));
    char kind[32];
    double v;
    size_t n;

    memset(f, 0, sizeof(*f));
    f->duration = -1.0;
    f->msg = -1;
    /* KIND[:MESSAGE] */
    colon = memchr(spec, ':', (size_t)(head_end - spec));
    n = (size_t)((colon ? colon : head_end) - spec);
    if (n == 0 || n >= sizeof(kind))
        return -1;
    memcpy(kind, spec, n);
    kind[n] = '\0';
    f->kind = vd_run_fault_kind(kind);
    if (f->kind < 0)
        return -1;
    if (colon) {
        n = (size_t)(head_end - colon - 1);
        if (n == 0 || n >= sizeof(f->message))
            return -1;
        memcpy(f->message, colon + 1, n);
        f->message[n] = '\0';
    }
    f->factor = f->kind == VD_RUN_FAULT_BURST || f->kind == VD_RUN_FAULT_FLOOD ? 10 : 1;
    /* *FACTOR at the end */
    if (star) {
        if (star < head_end || parse_num(star + 1, strlen(star + 1), &v) || v < 1 || v > 1000 ||
            v != floor(v))
            return -1;
        f->factor = (int)v;
    }
    /* @AT[+DURATION|xCOUNT] */
    if (at) {
        const char *end = star ? star : at + strlen(at);
        const char *plus = memchr(at, '+', (size_t)(end - at)),
                   *x = memchr(at, 'x', (size_t)(end - at));
        const char *sep = plus ? plus : x;

        if (parse_num(at + 1, (size_t)((sep ? sep : end) - at - 1), &f->at) || f->at < 0)
            return -1;
        if (plus && parse_num(plus + 1, (size_t)(end - plus - 1), &f->duration))
            return -1;
        if (plus && f->duration < 0)
            return -1;
        if (x) {
            if (parse_num(x + 1, (size_t)(end - x - 1), &v) || v < 1 || v > 1e9 || v != floor(v))
                return -1;
            f->count = (int64_t)v;
        }
        if (plus && x)
            return -1;
    }
    if ((f->kind == VD_RUN_FAULT_UNKNOWN_ID || f->kind == VD_RUN_FAULT_BAD_DATAGRAM) ==
        (f->message[0] != '\0'))
        return -1;
    if (f->kind == VD_RUN_FAULT_FLOOD && f->factor < 2)
        return -1;
    return 0;
}

/* --- set-up ------------------------------------------------------------------------------- */

static int find_name(const struct vd_canmap *map, int side, const char *name)
{
    const int n = vd_canmap_nnames(map, side);

    for (int i = 0; i < n; i++)
        if (!strcmp(vd_canmap_name(map, side, i), name))
            return i;
    return -1;
}

/* the first received name ending with suffix */
static int find_suffix(const struct vd_canmap *map, int side, const char *suffix)
{
    const int n = vd_canmap_nnames(map, side);
    const size_t ls = strlen(suffix);

    for (int i = 0; i < n; i++) {
        const char *s = vd_canmap_name(map, side, i);
        const size_t l = strlen(s);

        if (l >= ls && !strcmp(s + l - ls, suffix))
            return i;
    }
    return -1;
}

static void fault_error(FILE *errf, const struct app_ecu_fault *f, const char *fmt, const char *arg)
{
    if (!errf)
        return;
    if (f->file)
        fprintf(errf, "%s:%d:%d: error: can.ecu.faults: ", f->file, f->line, f->col);
    else
        fprintf(errf, "rtvd ecu: error: --fault %s: ", vd_run_fault_name(f->kind));
    fprintf(errf, fmt, arg);
    fputc('\n', errf);
}

static int resolve_faults(struct app_ecu *e, FILE *errf)
{
    const struct vd_canmap *map = e->side.map;
    int bad = 0;

    for (int i = 0; i < e->cfg.nfault; i++) {
        struct app_ecu_fault *f = &e->cfg.fault[i];

        f->msg = -1;
        f->active = f->done = false;
        f->injected = f->frames = 0;
        f->t_on = f->t_off = -1.0;
        if (f->message[0]) {
            struct vd_canmap_msg_info mi;

            f->msg = vd_canmap_find_msg(map, f->message);
            if (f->msg >= 0)
                vd_canmap_msg_info(map, f->msg, &mi);
            if (f->msg < 0 || !mi.sent) {
                fault_error(errf, f, "no message '%s' that the ECU sends in this mapping",
                            f->message);
                bad = 1;
            }
        }
        if (f->kind == VD_RUN_FAULT_BAD_DATAGRAM && e->side.bcfg[0].kind != VD_CAN_UDP) {
            fault_error(errf, f, "%s needs a udp bus (the first bus is socketcan)", "bad_datagram");
            bad = 1;
        }
    }
    return bad ? -1 : 0;
}

/* identifiers no message of the mapping uses on bus 0: standard 0x7F0.., extended */
static void pick_unknown_ids(struct app_ecu *e)
{
    const int nmsg = vd_canmap_nmsg(e->side.map);
    int n = 0;

    for (uint32_t id = 0x7F0; id <= 0x7FF && n < 3; id++) {
        bool used = false;

        for (int i = 0; i < nmsg; i++) {
            struct vd_canmap_msg_info mi;

            vd_canmap_msg_info(e->side.map, i, &mi);
            used |= !mi.ext && mi.id == id;
        }
        if (!used)
            e->unknown_ids[n++] = id;
    }
    e->unknown_ids[3] = 0x1ABCDE00u; /* sent as an extended id */
}

static int resolve_remote(struct app_ecu *e, int b)
{
    const struct vd_can_cfg *c = &e->side.bcfg[b];
    struct addrinfo hints = {.ai_socktype = SOCK_DGRAM, .ai_flags = AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    char port[16];
    int rc;

    if (c->kind != VD_CAN_UDP || !c->remote_host[0] || !c->remote_port)
        return 0;
    snprintf(port, sizeof(port), "%u", (unsigned)c->remote_port);
    rc = getaddrinfo(c->remote_host, port, &hints, &res);
    if (rc || !res)
        return -1;
    memcpy(&e->remote[b], res->ai_addr, res->ai_addrlen);
    e->remote_len[b] = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

static void *zalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);

    if (p)
        memset(p, 0, (n ? n : 1) * size);
    return p;
}

int app_ecu_init(struct app_ecu *e, const char *mapping, const struct app_ecu_cfg *cfg, FILE *errf)
{
    struct app_ecu_ctl *c;
    struct vd_canmap *map;
    int nmsg;

    memset(e, 0, sizeof(*e));
    e->tfd = -1;
    e->cfg = *cfg;
    c = &e->cfg.ctl;
    atomic_init(&e->quiet, 0);
    atomic_init(&e->stop, 0);
    if (app_can_side_load(&e->side, mapping, VD_CANMAP_ECU, cfg->port, errf))
        return -1;
    map = e->side.map;
    nmsg = vd_canmap_nmsg(map);
    if (resolve_faults(e, errf))
        goto fail;

    /* what the ECU reads (the target's outputs) */
    e->i_vx = find_name(map, VD_CANMAP_OUTPUTS, "imu.lvx");
    if (e->i_vx < 0)
        e->i_vx = find_suffix(map, VD_CANMAP_OUTPUTS, ".lvx");
    if (e->i_vx < 0)
        e->i_vx = find_name(map, VD_CANMAP_OUTPUTS, "chassis.vx");
    e->i_wz = find_name(map, VD_CANMAP_OUTPUTS, "imu.wz");
    if (e->i_wz < 0)
        e->i_wz = find_name(map, VD_CANMAP_OUTPUTS, "chassis.wz");
    e->i_tb = find_name(map, VD_CANMAP_OUTPUTS, "steering.torsion_bar.mx");
    for (int i = 0; i < vd_canmap_nnames(map, VD_CANMAP_OUTPUTS) && e->nomega < APP_ECU_MAX_WHEEL;
         i++) {
        const char *s = vd_canmap_name(map, VD_CANMAP_OUTPUTS, i);
        const size_t l = strlen(s);

        if (l > 11 && !strcmp(s + l - 11, ".tire.omega"))
            e->i_omega[e->nomega++] = i;
    }

    /* what it commands (the target's inputs) */
    e->ncmd = vd_canmap_nnames(map, VD_CANMAP_INPUTS);
    e->c_steer = c->steer[0] ? find_name(map, VD_CANMAP_INPUTS, c->steer) : -1;
    e->c_eps = find_name(map, VD_CANMAP_INPUTS, "steering.eps_torque");
    if (c->ndrive > 0) {
        for (int i = 0; i < c->ndrive; i++) {
            const int k = find_name(map, VD_CANMAP_INPUTS, c->drive[i]);

            if (k >= 0)
                e->c_drive[e->nd++] = k;
        }
    } else {
        for (int i = 0; i < e->ncmd && e->nd < APP_ECU_MAX_WHEEL; i++) {
            const char *s = vd_canmap_name(map, VD_CANMAP_INPUTS, i);
            const size_t l = strlen(s);

            if (l > 6 && !strcmp(s + l - 6, ".drive"))
                e->c_drive[e->nd++] = i;
        }
    }
    if (c->nbrake > 0) {
        for (int i = 0; i < c->nbrake; i++) {
            const int k = find_name(map, VD_CANMAP_INPUTS, c->brake[i]);

            if (k >= 0)
                e->c_brake[e->nb++] = k;
        }
    } else {
        for (int i = 0; i < e->ncmd && e->nb < APP_ECU_MAX_WHEEL; i++) {
            const char *s = vd_canmap_name(map, VD_CANMAP_INPUTS, i);
            const size_t l = strlen(s);

            if (l > 6 && !strcmp(s + l - 6, ".brake"))
                e->c_brake[e->nb++] = i;
        }
    }

    e->cmd = zalloc((size_t)e->ncmd, sizeof(double));
    e->fix = zalloc((size_t)e->ncmd, sizeof(uint8_t));
    e->ps = zalloc((size_t)c->npath, sizeof(double));
    e->rxbuf = zalloc(APP_CAN_RXMAX, sizeof(*e->rxbuf));
    e->txbuf = zalloc(APP_CAN_TXMAX, sizeof(*e->txbuf));
    e->last = zalloc((size_t)nmsg, sizeof(*e->last));
    e->has_last = zalloc((size_t)nmsg, sizeof(*e->has_last));
    e->bits = zalloc((size_t)nmsg, sizeof(*e->bits));
    if (!e->cmd || !e->fix || !e->ps || !e->rxbuf || !e->txbuf || !e->last || !e->has_last ||
        !e->bits) {
        if (errf)
            fprintf(errf, "rtvd ecu: out of memory\n");
        goto fail;
    }
    for (int i = 0; i < cfg->nset; i++) {
        const int k = find_name(map, VD_CANMAP_INPUTS, cfg->set_name[i]);

        if (k < 0) {
            if (errf)
                fprintf(errf,
                        "rtvd ecu: error: --set %s: not an input the mapping %s sends (its rx "
                        "signals' inputs)\n",
                        cfg->set_name[i], e->side.cfg->file);
            goto fail;
        }
        e->fix[k] = 1;
        e->cmd[k] = cfg->set_value[i];
    }
    /* the path's arc lengths */
    for (int i = 1; i < c->npath; i++) {
        const double ds = hypot(c->px[i] - c->px[i - 1], c->py[i] - c->py[i - 1]);

        if (!(ds > 0.0)) {
            if (errf)
                fprintf(errf, "rtvd ecu: error: path point %d repeats the one before\n", i);
            goto fail;
        }
        e->ps[i] = e->ps[i - 1] + ds;
    }
    pick_unknown_ids(e);
    if (app_can_side_open(&e->side, errf))
        goto fail;
    for (int b = 0; b < e->side.nbus; b++)
        if (resolve_remote(e, b)) {
            if (errf)
                fprintf(errf, "rtvd ecu: error: cannot resolve %s\n", e->side.bcfg[b].remote_host);
            goto fail;
        }
    e->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (e->tfd < 0) {
        if (errf)
            fprintf(errf, "rtvd ecu: timerfd_create: %s\n", strerror(errno));
        goto fail;
    }
    e->x = c->x0;
    e->y = c->y0;
    e->psi = c->psi0;
    return 0;
fail:
    app_ecu_free(e);
    return -1;
}

/* --- the controller ----------------------------------------------------------------------- */

static double sched(const struct app_ecu_ctl *c, double t)
{
    if (c->nv == 0)
        return 0.0;
    if (t <= c->vt[0])
        return c->vv[0];
    for (int i = 1; i < c->nv; i++)
        if (t < c->vt[i])
            return c->vv[i - 1] +
                   (c->vv[i] - c->vv[i - 1]) * (t - c->vt[i - 1]) / (c->vt[i] - c->vt[i - 1]);
    return c->vv[c->nv - 1];
}

static bool good(const uint8_t *st, int i)
{
    return i >= 0 && !(st[i] & (VD_CANMAP_ST_NODATA | VD_CANMAP_ST_TIMEOUT | VD_CANMAP_ST_INVALID));
}

static void set_cmd(struct app_ecu *e, int k, double v)
{
    if (k >= 0 && !e->fix[k])
        e->cmd[k] = v;
}

/* one control step of dt seconds at ECU time t */
static void control(struct app_ecu *e, double t, double dt)
{
    const struct app_ecu_ctl *c = &e->cfg.ctl;
    const struct vd_canmap *map = e->side.map;
    const double *val = vd_canmap_rx_values(map);
    const uint8_t *st = vd_canmap_rx_status(map);
    bool v_ok = false;
    double v = 0.0;

    /* vehicle speed: the speed signal, else the wheels */
    if (good(st, e->i_vx)) {
        v = val[e->i_vx];
        v_ok = true;
    } else if (e->nomega > 0) {
        int n = 0;
        double sum = 0.0;

        for (int i = 0; i < e->nomega; i++)
            if (good(st, e->i_omega[i])) {
                sum += val[e->i_omega[i]];
                n++;
            }
        if (n) {
            v = sum / n * c->wheel_radius;
            v_ok = true;
        }
    }
    e->v = v;
    /* dead reckoning of the sensor point */
    if (v_ok) {
        e->x += v * cos(e->psi) * dt;
        e->y += v * sin(e->psi) * dt;
    }
    if (good(st, e->i_wz))
        e->psi += val[e->i_wz] * dt;

    /* speed control (the scenario driver's law, core/driver.c) */
    e->v_target = sched(c, t);
    if (!v_ok) {
        e->st.no_speed_slots++;
        for (int i = 0; i < e->nd; i++)
            set_cmd(e, e->c_drive[i], 0.0);
        for (int i = 0; i < e->nb; i++)
            set_cmd(e, e->c_brake[i], c->max_brake);
        e->integ = 0.0;
    } else {
        const double err = e->v_target - v;
        const double T = c->kp * err + c->ki * (e->integ + err * dt);
        double drive = 0.0, brake = 0.0;

        if (!((T > c->max_drive && err > 0.0) || (T < -c->max_brake && err < 0.0)))
            e->integ += err * dt;
        if (e->v_target <= 0.01 && fabs(v) < c->hold_speed) {
            const double hold = c->max_brake * (1.0 - fabs(v) / c->hold_speed);

            brake = fmax(hold, fmin(fmax(-T, 0.0), c->max_brake));
            e->integ = 0.0;
        } else if (T >= 0.0) {
            drive = fmin(T, c->max_drive);
        } else {
            brake = fmin(-T, c->max_brake);
        }
        for (int i = 0; i < e->nd; i++)
            set_cmd(e, e->c_drive[i], drive);
        for (int i = 0; i < e->nb; i++)
            set_cmd(e, e->c_brake[i], brake);
    }

    /* path following: pure pursuit on the dead-reckoned pose (core/driver.c) */
    if (e->c_steer >= 0 && c->npath >= 2) {
        const double ld = fmax(c->preview_min, c->preview_time * fabs(v));
        double best = hypot(c->px[e->i_near] - e->x, c->py[e->i_near] - e->y);
        double dx, dy, xl, yl, alpha, delta;
        int i = e->i_near, j;

        while (i + 1 < c->npath) {
            const double dn = hypot(c->px[i + 1] - e->x, c->py[i + 1] - e->y);

            if (dn > best)
                break;
            best = dn;
            i++;
        }
        e->i_near = i;
        for (j = i; j + 1 < c->npath && e->ps[j] - e->ps[i] < ld; j++)
            ;
        dx = c->px[j] - e->x;
        dy = c->py[j] - e->y;
        if (j == c->npath - 1 && e->ps[j] - e->ps[i] < ld) {
            const double ex = c->px[j] - c->px[j - 1], ey = c->py[j] - c->py[j - 1];
            const double el = hypot(ex, ey);
            double rest = ld - (e->ps[j] - e->ps[i]);

            if (i == j && el > 0.0)
                rest += fmax(0.0, (-dx * ex - dy * ey) / el);
            if (el > 0.0) {
                dx += rest * ex / el;
                dy += rest * ey / el;
            }
        }
        xl = cos(e->psi) * dx + sin(e->psi) * dy;
        yl = -sin(e->psi) * dx + cos(e->psi) * dy;
        alpha = atan2(yl, xl);
        delta = atan(2.0 * c->wheelbase * sin(alpha) / ld);
        set_cmd(e, e->c_steer, fmax(-c->max_steer, fmin(c->max_steer, c->steer_ratio * delta)));
    }

    /* EPS assist from the torsion-bar torque (model sign: negative when the driver turns
     * left; the assist is positive to the left) */
    if (e->c_eps >= 0) {
        double a = 0.0;

        if (c->eps_gain > 0.0 && good(st, e->i_tb))
            a = c->eps_gain * c->eps_v0 / (c->eps_v0 + fabs(v)) * -val[e->i_tb];
        e->eps_f += (a - e->eps_f) * dt / (c->eps_tau + dt);
        set_cmd(e, e->c_eps, fmax(-c->eps_max, fmin(c->eps_max, e->eps_f)));
    }
}

/* --- faults ------------------------------------------------------------------------------- */

static unsigned canmap_bits(int kind)
{
    switch (kind) {
    case VD_RUN_FAULT_SILENT:
        return VD_CANMAP_FAULT_SILENT;
    case VD_RUN_FAULT_BAD_CRC:
        return VD_CANMAP_FAULT_BAD_CRC;
    case VD_RUN_FAULT_STALE_COUNTER:
        return VD_CANMAP_FAULT_REPEAT_COUNTER;
    case VD_RUN_FAULT_JUMP_COUNTER:
        return VD_CANMAP_FAULT_JUMP_COUNTER;
    case VD_RUN_FAULT_OUT_OF_RANGE:
        return VD_CANMAP_FAULT_OUT_OF_RANGE;
    case VD_RUN_FAULT_NAN:
        return VD_CANMAP_FAULT_NAN;
    case VD_RUN_FAULT_WRONG_LENGTH:
        return VD_CANMAP_FAULT_SHORT;
    default:
        return 0;
    }
}

static bool fault_left(const struct app_ecu_fault *f)
{
    return f->count == 0 || f->injected < (uint64_t)f->count;
}

/* events still allowed in this slot, at most want */
static uint64_t fault_quota(const struct app_ecu_fault *f, uint64_t want)
{
    uint64_t left;

    if (f->count == 0)
        return want;
    left = f->injected >= (uint64_t)f->count ? 0 : (uint64_t)f->count - f->injected;
    return want < left ? want : left;
}

/* open and close the windows at ECU time t; set the map's fault bits */
static void faults_update(struct app_ecu *e, double t)
{
    const int nmsg = vd_canmap_nmsg(e->side.map);

    for (int i = 0; i < e->cfg.nfault; i++) {
        struct app_ecu_fault *f = &e->cfg.fault[i];

        if (!f->active && !f->done && t >= f->at - 1e-9) {
            f->active = true;
            f->t_on = t;
        }
        if (f->active &&
            ((f->duration >= 0 && t >= f->at + f->duration - 1e-9) || !fault_left(f))) {
            f->active = false;
            f->done = true;
            f->t_off = t;
        }
    }
    for (int m = 0; m < nmsg; m++) {
        unsigned b = 0;

        for (int i = 0; i < e->cfg.nfault; i++)
            if (e->cfg.fault[i].active && e->cfg.fault[i].msg == m)
                b |= canmap_bits(e->cfg.fault[i].kind);
        if (b != e->bits[m]) {
            vd_canmap_set_fault(e->side.map, m, b);
            e->bits[m] = b;
        }
    }
}

static int frame_msg(const struct app_ecu *e, int bus, const struct vd_can_frame *f)
{
    const int nmsg = vd_canmap_nmsg(e->side.map);

    for (int i = 0; i < nmsg; i++) {
        struct vd_canmap_msg_info mi;

        vd_canmap_msg_info(e->side.map, i, &mi);
        if (mi.sent && mi.bus == bus && mi.id == f->id && mi.ext == !!(f->flags & VD_CANF_EFF))
            return i;
    }
    return -1;
}

/* a malformed cannelloni datagram (kinds in turn: too short, version 1, op code ACK) from the
 * bus's own socket to the target */
static void bad_datagram(struct app_ecu *e, int b)
{
    uint8_t buf[16];
    size_t len;
    const uint64_t k = e->garbage_seq++;

    memset(buf, 0, sizeof(buf));
    switch (k % 3) {
    case 0: /* 3 bytes: shorter than the header */
        buf[0] = VD_CNL_VERSION;
        len = 3;
        break;
    case 1: /* version 1 */
        buf[0] = 1;
        buf[1] = VD_CNL_OP_DATA;
        buf[4] = 1;
        buf[8] = 0x42;
        buf[9] = 1;
        len = 11;
        break;
    default: /* op code 1 (ACK) */
        buf[0] = VD_CNL_VERSION;
        buf[1] = 1;
        len = 5;
        break;
    }
    if (e->remote_len[b] &&
        sendto(vd_can_poll_fd(e->side.bus[b]), buf, len, MSG_DONTWAIT,
               (const struct sockaddr *)&e->remote[b], e->remote_len[b]) == (ssize_t)len)
        e->st.raw_datagrams++;
    else
        e->st.raw_errors++;
}

/* the frames of slot sl on bus b, with the faults applied, sent */
static void send_slot(struct app_ecu *e, int b, uint64_t sl)
{
    struct vd_canmap *map = e->side.map;
    struct vd_can_frame due[64];
    uint64_t supp0[VD_RUN_MAX_FAULTS];
    int n, m = 0;

    for (int i = 0; i < e->cfg.nfault; i++) {
        const struct app_ecu_fault *f = &e->cfg.fault[i];

        supp0[i] = f->active && f->kind == VD_RUN_FAULT_SILENT && f->msg >= 0
                       ? vd_canmap_msg_stats(map, f->msg)->suppressed
                       : 0;
    }
    n = vd_canmap_tx_due(map, b, sl, e->cmd, due, 64);
    for (int i = 0; i < e->cfg.nfault; i++) {
        struct app_ecu_fault *f = &e->cfg.fault[i];

        if (f->active && f->kind == VD_RUN_FAULT_SILENT && f->msg >= 0)
            f->injected += vd_canmap_msg_stats(map, f->msg)->suppressed - supp0[i];
    }
    for (int j = 0; j < n && m < APP_CAN_TXMAX; j++) {
        const int mi = frame_msg(e, b, &due[j]);

        e->txbuf[m++] = due[j];
        if (mi < 0)
            continue;
        e->last[mi] = due[j];
        e->has_last[mi] = 1;
        for (int i = 0; i < e->cfg.nfault; i++) {
            struct app_ecu_fault *f = &e->cfg.fault[i];

            if (!f->active || f->msg != mi)
                continue;
            if (canmap_bits(f->kind) && f->kind != VD_RUN_FAULT_SILENT) {
                f->injected++;
            } else if (f->kind == VD_RUN_FAULT_BURST && fault_quota(f, 1)) {
                f->injected++;
                for (int c = 1; c < f->factor && m < APP_CAN_TXMAX; c++) {
                    e->txbuf[m++] = due[j];
                    f->frames++;
                }
            }
        }
    }
    /* floods: stale copies of the message's last frame, factor x its rate in all */
    for (int i = 0; i < e->cfg.nfault; i++) {
        struct app_ecu_fault *f = &e->cfg.fault[i];
        struct vd_canmap_msg_info mi;
        uint64_t k, c;

        if (!f->active || f->kind != VD_RUN_FAULT_FLOOD || f->msg < 0 || !e->has_last[f->msg])
            continue;
        vd_canmap_msg_info(map, f->msg, &mi);
        if (mi.bus != b || mi.cycle_ms <= 0)
            continue;
        k = sl - (uint64_t)llround(f->t_on * 1000.0);
        c = ((k + 1) * (uint64_t)(f->factor - 1)) / (uint64_t)mi.cycle_ms -
            (k * (uint64_t)(f->factor - 1)) / (uint64_t)mi.cycle_ms;
        c = fault_quota(f, c);
        for (uint64_t q = 0; q < c && m < APP_CAN_TXMAX; q++) {
            e->txbuf[m++] = e->last[f->msg];
            f->injected++;
            f->frames++;
        }
    }
    /* frames no one receives, and malformed datagrams (bus 0) */
    for (int i = 0; b == 0 && i < e->cfg.nfault; i++) {
        struct app_ecu_fault *f = &e->cfg.fault[i];

        if (!f->active)
            continue;
        if (f->kind == VD_RUN_FAULT_UNKNOWN_ID) {
            const uint64_t c = fault_quota(f, (uint64_t)f->factor);

            for (uint64_t q = 0; q < c && m < APP_CAN_TXMAX; q++) {
                struct vd_can_frame *g = &e->txbuf[m++];
                const uint64_t x = f->frames++;

                memset(g, 0, sizeof(*g));
                g->id = e->unknown_ids[x % 4];
                g->flags = x % 4 == 3 ? VD_CANF_EFF : 0;
                g->len = (uint8_t)(x % 9);
                for (int d = 0; d < g->len; d++)
                    g->data[d] = (uint8_t)(x * 7 + (uint64_t)d);
                f->injected++;
            }
        } else if (f->kind == VD_RUN_FAULT_BAD_DATAGRAM && fault_quota(f, 1)) {
            bad_datagram(e, 0);
            f->injected++;
            f->frames++;
        }
    }
    if (m > 0) {
        e->st.tx_offered += (uint64_t)m;
        e->st.tx_sent += (uint64_t)vd_can_send_many(e->side.bus[b], e->txbuf, m);
    }
}

/* --- the thread --------------------------------------------------------------------------- */

static void *ecu_thread(void *arg)
{
    struct app_ecu *e = arg;
    struct app_can_side *s = &e->side;
    struct pollfd pfd[APP_CAN_MAX_BUS + 1];
    struct itimerspec its;
    const int64_t now0 = vd_clock_now();

    vd_rt_sched_info(&e->sched);
    const int nbus = s->nbus;

    if (nbus < 0 || nbus > APP_CAN_MAX_BUS)
        return NULL;
    for (int b = 0; b < nbus; b++)
        pfd[b] = (struct pollfd){.fd = vd_can_poll_fd(s->bus[b]), .events = POLLIN};
    pfd[nbus] = (struct pollfd){.fd = e->tfd, .events = POLLIN};
    e->next_slot = e->t_start < now0 ? (uint64_t)((now0 - e->t_start + MS - 1) / MS) : 0;
    its.it_value = vd_ns_to_timespec(e->t_start + (int64_t)e->next_slot * MS);
    its.it_interval = vd_ns_to_timespec(MS);
    timerfd_settime(e->tfd, TFD_TIMER_ABSTIME, &its, NULL);
    for (;;) {
        const bool stopping = atomic_load_explicit(&e->stop, memory_order_acquire);
        uint64_t exp = 0;
        int64_t now;

        if (!stopping) {
            const int r = poll(pfd, (nfds_t)s->nbus + 1, 100);

            e->st.wakeups++;
            if (r < 0 && errno != EINTR)
                break;
        }
        now = vd_clock_now();
        for (int b = 0; b < s->nbus; b++) {
            if (!stopping && !(pfd[b].revents & POLLIN) && !vd_can_rx_pending(s->bus[b]))
                continue;
            for (int round = 0; round < 16; round++) {
                const int n = vd_can_recv(s->bus[b], e->rxbuf, APP_CAN_RXMAX, 0);

                if (n < 0)
                    e->st.rx_errors++;
                if (n <= 0)
                    break;
                e->st.rx_frames += (uint64_t)n;
                for (int i = 0; i < n; i++)
                    vd_canmap_rx(s->map, b, &e->rxbuf[i],
                                 e->rxbuf[i].t_ns > 0 ? e->rxbuf[i].t_ns : now);
                if (n < APP_CAN_RXMAX && !vd_can_rx_pending(s->bus[b]))
                    break;
            }
        }
        if (stopping)
            break;
        if ((pfd[s->nbus].revents & POLLIN) && read(e->tfd, &exp, sizeof(exp)) == sizeof(exp) &&
            exp > 0) {
            uint64_t first = e->next_slot, n = exp;

            e->next_slot += exp;
            if (exp > 1)
                e->st.late_slots += exp - 1;
            if (n > APP_CAN_CATCHUP) {
                e->st.skipped_slots += n - APP_CAN_CATCHUP;
                first += n - APP_CAN_CATCHUP;
                n = APP_CAN_CATCHUP;
            }
            if (!atomic_load_explicit(&e->quiet, memory_order_acquire))
                vd_canmap_rx_check_timeouts(s->map, now);
            for (uint64_t sl = first; sl < first + n; sl++) {
                const double t = (double)sl * 1e-3;

                e->st.slots++;
                control(e, t, 1e-3);
                faults_update(e, t);
                for (int b = 0; b < s->nbus; b++)
                    send_slot(e, b, sl);
                /* count-limited windows close as soon as their count is reached */
                faults_update(e, t);
                if (sl % 5 == 0)
                    for (int b = 0; b < s->nbus; b++)
                        vd_can_service(s->bus[b], now);
            }
        }
    }
    return NULL;
}

int app_ecu_start(struct app_ecu *e, int64_t t_start)
{
    const struct vd_thread_spec spec = {
        .name = "vd-ecu",
        .cpu = e->cfg.cpu,
        .priority = e->cfg.priority,
        .stack_size = 256 * 1024,
        .fn = ecu_thread,
        .arg = e,
    };
    const int64_t now = vd_clock_now();
    int rc;

    e->t_start = t_start;
    vd_canmap_start(e->side.map, t_start > now ? t_start : now);
    rc = vd_rt_thread_create(&e->thread, &spec);
    e->started = rc == 0;
    return rc;
}

void app_ecu_quiesce(struct app_ecu *e)
{
    atomic_store_explicit(&e->quiet, 1, memory_order_release);
}

void app_ecu_stop(struct app_ecu *e)
{
    atomic_store_explicit(&e->stop, 1, memory_order_release);
    if (e->started)
        vd_rt_thread_join(&e->thread);
    e->started = false;
}

void app_ecu_free(struct app_ecu *e)
{
    app_ecu_stop(e);
    if (e->tfd >= 0)
        close(e->tfd);
    e->tfd = -1;
    app_can_side_free(&e->side);
    free(e->cmd);
    free(e->fix);
    free(e->ps);
    free(e->rxbuf);
    free(e->txbuf);
    free(e->last);
    free(e->has_last);
    free(e->bits);
    e->cmd = NULL;
    e->fix = NULL;
    e->ps = NULL;
    e->rxbuf = e->txbuf = e->last = NULL;
    e->has_last = NULL;
    e->bits = NULL;
}

/* --- reports ------------------------------------------------------------------------------ */

static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        if ((unsigned char)*s >= 0x20)
            fputc(*s, f);
    }
    fputc('"', f);
}

void app_ecu_json(const struct app_ecu *e, FILE *f)
{
    const struct app_ecu_stats *st = &e->st;

    fprintf(f, "{\"mapping\": ");
    jstr(f, e->side.cfg->file);
    fprintf(f,
            ", \"role\": \"ecu\", \"thread\": {\"tid\": %d, \"policy\": \"%s\", \"priority\": %d, "
            "\"cpu\": %d}, \"counters\": {\"wakeups\": %" PRIu64 ", \"slots\": %" PRIu64
            ", \"late_slots\": %" PRIu64 ", \"skipped_slots\": %" PRIu64 ", \"rx_frames\": %" PRIu64
            ", \"rx_errors\": %" PRIu64 ", \"tx_offered\": %" PRIu64 ", \"tx_sent\": %" PRIu64
            ", \"raw_datagrams\": %" PRIu64 ", \"raw_errors\": %" PRIu64
            ", \"no_speed_slots\": %" PRIu64 "}, ",
            (int)e->sched.tid, vd_sched_policy_name(e->sched.policy), e->sched.priority,
            e->sched.cpu, st->wakeups, st->slots, st->late_slots, st->skipped_slots, st->rx_frames,
            st->rx_errors, st->tx_offered, st->tx_sent, st->raw_datagrams, st->raw_errors,
            st->no_speed_slots);
    fprintf(f,
            "\"controller\": {\"v\": %.6g, \"v_target\": %.6g, \"x\": %.6g, \"y\": %.6g, "
            "\"psi\": %.6g, \"drive_inputs\": %d, \"brake_inputs\": %d, \"steering\": %s, "
            "\"eps\": %s}, \"faults\": [",
            e->v, e->v_target, e->x, e->y, e->psi, e->nd, e->nb, e->c_steer >= 0 ? "true" : "false",
            e->c_eps >= 0 && e->cfg.ctl.eps_gain > 0 ? "true" : "false");
    for (int i = 0; i < e->cfg.nfault; i++) {
        const struct app_ecu_fault *ft = &e->cfg.fault[i];

        fprintf(f, "%s{\"fault\": \"%s\", \"message\": ", i ? ", " : "",
                vd_run_fault_name(ft->kind));
        if (ft->message[0])
            jstr(f, ft->message);
        else
            fputs("null", f);
        fprintf(f,
                ", \"at\": %.6g, \"duration\": %.6g, \"count\": %" PRId64 ", \"factor\": %d, "
                "\"injected\": %" PRIu64 ", \"frames\": %" PRIu64 ", \"t_on\": %.6g, \"t_off\": "
                "%.6g}",
                ft->at, ft->duration, ft->count, ft->factor, ft->injected, ft->frames, ft->t_on,
                ft->t_off);
    }
    fprintf(f, "], \"buses\": ");
    app_can_buses_json(&e->side, f);
    fprintf(f, ", \"map\": ");
    vd_canmap_report_json(e->side.map, f);
    fputc('}', f);
}

void app_ecu_summary(const struct app_ecu *e, FILE *f, const char *in)
{
    const struct vd_canmap *map = e->side.map;
    struct vd_canmap_rx_stats rx;
    struct vd_canmap_tx_stats tx;
    struct vd_tm_can tm;

    vd_canmap_rx_stats(map, &rx);
    vd_canmap_tx_stats(map, &tx);
    app_can_tm_fill(&e->side, &tm);
    fprintf(f,
            "%sECU: tx %" PRIu64 " frames (%" PRIu64 " faulted or suppressed); rx %" PRIu64
            " frames, %" PRIu64 " used; E2E ok %" PRIu64 ", ok-some-lost %" PRIu64
            ", error %" PRIu64 ", repeated %" PRIu64 ", wrong-sequence %" PRIu64
            "; timeouts %" PRIu64 "; drops %" PRIu64 "\n",
            in, tm.tx_frames, tx.suppressed, rx.frames, rx.used, rx.e2e[VD_E2E_OK],
            rx.e2e[VD_E2E_OK_SOME_LOST], rx.e2e[VD_E2E_ERROR], rx.e2e[VD_E2E_REPEATED],
            rx.e2e[VD_E2E_WRONG_SEQUENCE], rx.timeouts, tm.drops);
    fprintf(f,
            "%s  controller: speed %.2f m/s (target %.2f), position %.1f, %.1f m, heading %.1f "
            "deg; %" PRIu64 " slots (%" PRIu64 " late, %" PRIu64 " skipped), %" PRIu64
            " without a speed\n",
            in, e->v, e->v_target, e->x, e->y, e->psi * 180.0 / M_PI, e->st.slots, e->st.late_slots,
            e->st.skipped_slots, e->st.no_speed_slots);
    for (int i = 0; i < e->cfg.nfault; i++) {
        const struct app_ecu_fault *ft = &e->cfg.fault[i];

        fprintf(f, "%s  fault %s%s%s at %.3f s", in, vd_run_fault_name(ft->kind),
                ft->message[0] ? " on " : "", ft->message, ft->at);
        if (ft->duration >= 0)
            fprintf(f, " for %.3f s", ft->duration);
        if (ft->count)
            fprintf(f, " x%" PRId64, ft->count);
        fprintf(f, ": injected %" PRIu64 "%s", ft->injected,
                ft->kind == VD_RUN_FAULT_FLOOD ? " copies" : "");
        if (ft->frames && ft->kind != VD_RUN_FAULT_FLOOD)
            fprintf(f, " (%" PRIu64 " extra frames/datagrams)", ft->frames);
        fprintf(f, "%s\n", ft->t_on < 0 ? " (window not reached)" : "");
    }
}
