/* app/ecu.c - the virtual ECU: controller, fault injection, its CAN thread. */
#include "ecu.h"
#include "ecu_fault.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config/scenario.h"
#include "core/driver.h"
#include "rt/clock.h"

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

static void *zalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);

    if (p)
        memset(p, 0, (n ? n : 1) * size);
    return p;
}

/* the scenario driver's controllers (core/driver.h) on the ECU's own pose: its speed
 * schedule, and pure pursuit with its steering geometry along its path; 0 or -1 */
static int ctl_init(struct app_ecu *e, FILE *errf)
{
    const struct app_ecu_ctl *c = &e->cfg.ctl;

    e->pp.steer_ratio = c->steer_ratio;
    e->pp.wheelbase = c->wheelbase;
    e->pp.preview_time = c->preview_time;
    e->pp.preview_min = c->preview_min;
    e->pp.max_steer = c->max_steer;
    /* the path (with its arc lengths) and the speed schedule */
    for (int i = 1; i < c->npath; i++)
        if (!(hypot(c->px[i] - c->px[i - 1], c->py[i] - c->py[i - 1]) > 0.0)) {
            if (errf)
                fprintf(errf, "rtvd ecu: error: path point %d repeats the one before\n", i);
            return -1;
        }
    if ((c->npath >= 2 && vd_driver_set_path(&e->pp, c->px, c->py, c->npath)) ||
        (c->nv >= 1 && vd_driver_set_speed(&e->pp, c->vt, c->vv, c->nv))) {
        if (errf)
            fprintf(errf, "rtvd ecu: out of memory\n");
        return -1;
    }
    return 0;
}

/* the thread's callbacks (app/slots.h), below */
static void ecu_rx(void *ctx, int b, int64_t now);
static void ecu_tick(void *ctx, int64_t now, bool quiet);
static void ecu_slot(void *ctx, uint64_t sl, int64_t now);

int app_ecu_init(struct app_ecu *e, const char *mapping, const struct app_ecu_cfg *cfg, FILE *errf)
{
    struct app_ecu_ctl *c;
    struct vd_canmap *map;
    int nmsg;

    memset(e, 0, sizeof(*e));
    e->slots.tfd = -1;
    e->cfg = *cfg;
    c = &e->cfg.ctl;
    vd_driver_init(&e->pp, NULL, NULL, -1);
    if (app_can_side_load_opts(&e->side, mapping, VD_CANMAP_ECU, cfg->port,
                               cfg->strict_dbc ? APP_CAN_STRICT_DBC : 0, errf))
        return -1;
    map = e->side.map;
    nmsg = vd_canmap_nmsg(map);
    if (app_ecu_faults_resolve(e, errf))
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
    e->rxbuf = zalloc(APP_CAN_RXMAX, sizeof(*e->rxbuf));
    e->txbuf = zalloc(APP_CAN_TXMAX, sizeof(*e->txbuf));
    e->last = zalloc((size_t)nmsg, sizeof(*e->last));
    e->has_last = zalloc((size_t)nmsg, sizeof(*e->has_last));
    e->bits = zalloc((size_t)nmsg, sizeof(*e->bits));
    if (!e->cmd || !e->fix || !e->rxbuf || !e->txbuf || !e->last || !e->has_last || !e->bits) {
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
    if (ctl_init(e, errf))
        goto fail;
    app_ecu_faults_pick_ids(e);
    if (app_can_side_open(&e->side, errf))
        goto fail;
    for (int b = 0; b < e->side.nbus; b++)
        if (app_ecu_faults_remote(e, b)) {
            if (errf)
                fprintf(errf, "rtvd ecu: error: cannot resolve %s\n", e->side.bcfg[b].remote_host);
            goto fail;
        }
    {
        static const struct app_slots_ops ops = {.rx = ecu_rx, .tick = ecu_tick, .slot = ecu_slot};
        const int rc = app_slots_init(&e->slots, "vd-ecu", e->cfg.cpu, e->cfg.priority, e->side.bus,
                                      e->side.nbus, &ops, e);

        if (rc) {
            if (errf)
                fprintf(errf, "rtvd ecu: timerfd_create: %s\n", strerror(-rc));
            goto fail;
        }
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
    e->v_target = vd_driver_target_speed(&e->pp, t);
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
    if (e->c_steer >= 0 && c->npath >= 2)
        set_cmd(e, e->c_steer, vd_driver_steer(&e->pp, e->x, e->y, e->psi, v, true));

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

/* --- the thread --------------------------------------------------------------------------- */

/* receive what bus b holds: every frame to the map */
static void ecu_rx(void *ctx, int b, int64_t now)
{
    struct app_ecu *e = ctx;
    struct app_can_side *s = &e->side;

    /* bounded per wake-up: a flood cannot keep the thread from its slots */
    for (int round = 0; round < 16; round++) {
        const int n = vd_can_recv(s->bus[b], e->rxbuf, APP_CAN_RXMAX, 0);

        if (n < 0)
            e->st.rx_errors++;
        if (n <= 0)
            break;
        e->st.rx_frames += (uint64_t)n;
        for (int i = 0; i < n; i++)
            vd_canmap_rx(s->map, b, &e->rxbuf[i], e->rxbuf[i].t_ns > 0 ? e->rxbuf[i].t_ns : now);
        if (n < APP_CAN_RXMAX && !vd_can_rx_pending(s->bus[b]))
            break;
    }
}

/* the timer: timeouts */
static void ecu_tick(void *ctx, int64_t now, bool quiet)
{
    struct app_ecu *e = ctx;

    if (!quiet)
        vd_canmap_rx_check_timeouts(e->side.map, now);
}

/* a slot: the controller, the fault windows, the frames due */
static void ecu_slot(void *ctx, uint64_t sl, int64_t now)
{
    struct app_ecu *e = ctx;
    struct app_can_side *s = &e->side;
    const double t = (double)sl * 1e-3;

    control(e, t, 1e-3);
    app_ecu_faults_update(e, t);
    for (int b = 0; b < s->nbus; b++)
        app_ecu_send_slot(e, b, sl);
    /* count-limited windows close as soon as their count is reached */
    app_ecu_faults_update(e, t);
    if (sl % 5 == 0)
        for (int b = 0; b < s->nbus; b++)
            vd_can_service(s->bus[b], now);
}

int app_ecu_start(struct app_ecu *e, int64_t t_start)
{
    const int64_t now = vd_clock_now();

    vd_canmap_start(e->side.map, t_start > now ? t_start : now);
    return app_slots_start(&e->slots, t_start);
}

void app_ecu_quiesce(struct app_ecu *e)
{
    app_slots_quiesce(&e->slots);
}

void app_ecu_stop(struct app_ecu *e)
{
    app_slots_stop(&e->slots);
}

void app_ecu_free(struct app_ecu *e)
{
    app_slots_free(&e->slots);
    app_can_side_free(&e->side);
    free(e->cmd);
    free(e->fix);
    vd_driver_free(&e->pp);
    free(e->rxbuf);
    free(e->txbuf);
    free(e->last);
    free(e->has_last);
    free(e->bits);
    e->cmd = NULL;
    e->fix = NULL;
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
            ", \"late_slots\": %" PRIu64 ", \"skipped_slots\": %" PRIu64
            ", \"unserved_at_start\": %" PRIu64 ", \"rx_frames\": %" PRIu64
            ", \"rx_errors\": %" PRIu64 ", \"tx_offered\": %" PRIu64 ", \"tx_sent\": %" PRIu64
            ", \"raw_datagrams\": %" PRIu64 ", \"raw_errors\": %" PRIu64
            ", \"no_speed_slots\": %" PRIu64 "}, ",
            (int)e->slots.sched.tid, vd_sched_policy_name(e->slots.sched.policy),
            e->slots.sched.priority, e->slots.sched.cpu, e->slots.st.wakeups, e->slots.st.slots,
            e->slots.st.late_slots, e->slots.st.skipped_slots, e->slots.st.unserved_at_start,
            st->rx_frames, st->rx_errors, st->tx_offered, st->tx_sent, st->raw_datagrams,
            st->raw_errors, st->no_speed_slots);
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
                "\"injected\": %" PRIu64 ", \"frames\": %" PRIu64 ", \"nan_values\": %" PRIu64
                ", \"invalid_values\": %" PRIu64 ", \"range_values\": %" PRIu64
                ", \"t_on\": %.6g, \"t_off\": %.6g}",
                ft->at, ft->duration, ft->count, ft->factor, ft->injected, ft->frames,
                ft->nan_values, ft->invalid_values, ft->range_values, ft->t_on, ft->t_off);
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
            "deg; %" PRIu64 " slots (%" PRIu64 " late, %" PRIu64 " skipped, %" PRIu64
            " before the thread began), %" PRIu64 " without a speed\n",
            in, e->v, e->v_target, e->x, e->y, e->psi * 180.0 / M_PI, e->slots.st.slots,
            e->slots.st.late_slots, e->slots.st.skipped_slots, e->slots.st.unserved_at_start,
            e->st.no_speed_slots);
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
        if (ft->kind == VD_RUN_FAULT_NAN)
            fprintf(f, " frames (%" PRIu64 " NaN values, %" PRIu64 " invalid-value patterns)",
                    ft->nan_values, ft->invalid_values);
        if (ft->kind == VD_RUN_FAULT_OUT_OF_RANGE)
            fprintf(f, " frames (%" PRIu64 " values out of range)", ft->range_values);
        fprintf(f, "%s\n", ft->t_on < 0 ? " (window not reached)" : "");
    }
}
