/* rt/loop.c - the real-time loop thread. */
#include "loop.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/step.h"
#include "rt/clock.h"

void vd_loop_cfg_default(struct vd_loop_cfg *c)
{
    memset(c, 0, sizeof(*c));
    c->policy.kind = VD_OVR_STOP;
    c->policy.period_ns = 1000000;
    c->duration_ns = 0;
    c->cpu = -1;
    c->priority = 80;
    c->hist_us = 1000;
    c->rec_order = 12; /* 4096 records: 4 s at 1 kHz */
    c->log_order = 8;
    c->ntaps = 1;
    c->stack_size = 512 * 1024;
    c->start_lead_ns = 10000000;
    c->marker_fd = -1;
}

size_t vd_loop_record_size(const struct vd_loop *L)
{
    return sizeof(struct vd_rec_head) + (size_t)L->cfg.rec_nsig * sizeof(double);
}

size_t vd_snapshot_size(int n)
{
    return sizeof(struct vd_snapshot) + (size_t)n * (sizeof(double) + sizeof(uint8_t));
}

uint8_t *vd_snapshot_valid(struct vd_snapshot *s)
{
    return (uint8_t *)(s->value + s->n);
}

const uint8_t *vd_snapshot_valid_c(const struct vd_snapshot *s)
{
    return (const uint8_t *)(s->value + s->n);
}

/* the model's input function while the loop owns d: scenario (or the initial inputs),
 * overridden by the valid values of the last input snapshot */
static void loop_input(void *ctx, double t, double *u)
{
    struct vd_loop *L = ctx;
    const int n = L->m->ninput;

    if (L->scen_fn)
        L->scen_fn(L->scen_ctx, t, u);
    else
        memcpy(u, L->base_u, (size_t)n * sizeof(double));
    for (int j = 0; j < n; j++)
        if (L->in_valid[j])
            u[j] = L->in_u[j];
}

static bool cfg_valid(const struct vd_loop_cfg *c, int nsig)
{
    const struct vd_policy_cfg *p = &c->policy;

    return p->period_ns >= 1000 && p->kind >= VD_OVR_STOP && p->kind <= VD_OVR_ALLOW &&
           c->duration_ns >= 0 && c->cpu >= -1 && c->priority >= 0 && c->priority <= 99 &&
           c->hist_us >= 1 && c->hist_us <= VD_HIST_MAX_US && c->rec_order >= 1 &&
           c->rec_order <= 20 && c->log_order >= 1 && c->log_order <= 20 && c->ntaps >= 1 &&
           c->ntaps <= VD_LOOP_MAX_TAPS && c->start_lead_ns >= 0 && nsig >= 0 &&
           (!c->record || (c->rec_nsig >= 0 && c->rec_nsig <= nsig + (c->cue ? VD_CUE_N : 0) &&
                           (c->rec_nsig == 0 || c->rec_sig) && c->rec_ring_order >= 1 &&
                           c->rec_ring_order <= 24));
}

static void *zalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);

    if (p)
        memset(p, 0, (n ? n : 1) * size); /* touch the pages now */
    return p;
}

int vd_loop_init(struct vd_loop *L, const struct vd_loop_cfg *cfg, const struct vd_model *m,
                 struct vd_data *d, vd_input_fn scen_fn, void *scen_ctx,
                 const struct vd_signal *sig, int nsig)
{
    const size_t nu = (size_t)m->ninput, nq = (size_t)m->nq;
    int rc = -ENOMEM;

    memset(L, 0, sizeof(*L));
    if (!cfg_valid(cfg, nsig) || (nsig > 0 && !sig))
        return -EINVAL;
    L->cfg = *cfg;
    L->m = m;
    L->d = d;
    L->scen_fn = scen_fn;
    L->scen_ctx = scen_ctx;
    L->sig = sig;
    L->nsig = nsig;
    L->nout = nsig + (cfg->cue ? VD_CUE_N : 0);
    L->base_u = zalloc(nu, sizeof(double));
    L->in_u = zalloc(nu, sizeof(double));
    L->in_valid = zalloc(nu, sizeof(uint8_t));
    L->out_val = zalloc((size_t)L->nout, sizeof(double));
    L->save_rv = zalloc(2 * nq, sizeof(double));
    if (!L->base_u || !L->in_u || !L->in_valid || !L->out_val || !L->save_rv)
        goto out_free;
    memcpy(L->base_u, d->u, nu * sizeof(double));
    if ((rc = vd_mailbox_init(&L->in, vd_snapshot_size(m->ninput))) ||
        (rc = vd_mailbox_init(&L->status, sizeof(struct vd_loop_status))) ||
        (rc = vd_ring_init(&L->rec, sizeof(struct vd_cycle_rec), cfg->rec_order)) ||
        (rc = vd_ring_init(&L->log, sizeof(struct vd_log_rec), cfg->log_order)) ||
        (rc = vd_hist_init(&L->h_lat, cfg->hist_us)) ||
        (rc = vd_hist_init(&L->h_exec, cfg->hist_us)) ||
        (rc = vd_hist_init(&L->h_turn, cfg->hist_us)))
        goto out_free;
    for (int i = 0; i < cfg->ntaps; i++)
        if ((rc = vd_mailbox_init(&L->out[i], vd_snapshot_size(L->nout))))
            goto out_free;
    if (cfg->record) {
        rc = -EINVAL;
        for (int i = 0; i < cfg->rec_nsig; i++)
            if (cfg->rec_sig[i] < 0 || cfg->rec_sig[i] >= L->nout)
                goto out_free;
        rc = -ENOMEM;
        L->rec_sig = zalloc((size_t)cfg->rec_nsig, sizeof(int));
        L->rec_buf = zalloc(1, vd_loop_record_size(L));
        if (!L->rec_sig || !L->rec_buf)
            goto out_free;
        memcpy(L->rec_sig, cfg->rec_sig, (size_t)cfg->rec_nsig * sizeof(int));
        L->cfg.rec_sig = NULL; /* borrowed only until here */
        if ((rc = vd_ring_init(&L->recording, vd_loop_record_size(L), cfg->rec_ring_order)))
            goto out_free;
    }
    for (int s = 0; s < VD_STAGE_COUNT; s++)
        if ((rc = vd_hist_init(&L->h_stage[s], cfg->hist_us)))
            goto out_free;
    /* n is preset in all three input slots: producers fill values and flags only */
    for (int i = 0; i < 3; i++)
        ((struct vd_snapshot *)(void *)(L->in.slot + (size_t)i * L->in.stride))->n = m->ninput;
    if (sem_init(&L->ready, 0, 0)) {
        rc = -errno;
        goto out_free;
    }
    L->ready_init = true;
    d->input_fn = loop_input;
    d->input_peek = NULL; /* the fixed-step solvers never peek; none for this ctx */
    d->input_ctx = L;
    vd_policy_start(&L->pol, 0);
    atomic_init(&L->stop_req, 0);
    atomic_init(&L->phase, VD_PHASE_INIT);
    return 0;

out_free:
    vd_loop_free(L);
    return rc;
}

void vd_loop_free(struct vd_loop *L)
{
    vd_rt_thread_join(&L->thread);
    if (L->ready_init)
        sem_destroy(&L->ready);
    L->ready_init = false;
    vd_mailbox_free(&L->in);
    vd_mailbox_free(&L->status);
    for (int i = 0; i < VD_LOOP_MAX_TAPS; i++)
        vd_mailbox_free(&L->out[i]);
    vd_ring_free(&L->rec);
    vd_ring_free(&L->log);
    vd_ring_free(&L->recording);
    free(L->rec_sig);
    free(L->rec_buf);
    L->rec_sig = NULL;
    L->rec_buf = NULL;
    vd_hist_free(&L->h_lat);
    vd_hist_free(&L->h_exec);
    vd_hist_free(&L->h_turn);
    for (int s = 0; s < VD_STAGE_COUNT; s++)
        vd_hist_free(&L->h_stage[s]);
    free(L->base_u);
    free(L->in_u);
    free(L->in_valid);
    free(L->out_val);
    free(L->save_rv);
    L->base_u = L->in_u = L->out_val = L->save_rv = NULL;
    L->in_valid = NULL;
}

/* --- the loop thread ------------------------------------------------------------------- */

static void log_push(struct vd_loop *L, uint64_t cycle, int code, int64_t a, int64_t b)
{
    struct vd_log_rec r = {.cycle = cycle, .t_ns = vd_clock_now(), .code = code, .a = a, .b = b};

    vd_ring_push(&L->log, &r);
}

/* take the newest input snapshot; true if it is new */
static bool take_inputs(struct vd_loop *L)
{
    bool fresh;
    const struct vd_snapshot *s = vd_mailbox_read(&L->in, &fresh);
    int n;

    if (!s || !fresh)
        return false;
    n = s->n < L->m->ninput ? s->n : L->m->ninput;
    if (n < 0)
        n = 0;
    memcpy(L->in_u, s->value, (size_t)n * sizeof(double));
    memcpy(L->in_valid, vd_snapshot_valid_c(s), (size_t)n);
    L->inputs_taken++;
    return true;
}

/* outputs of the current state into out_val; 0 or -errno */
static int compute_outputs(struct vd_loop *L)
{
    int rc;

    loop_input(L, L->d->t, L->d->u); /* so that input signals show what was applied */
    rc = vd_outputs(L->m, L->d);
    if (rc)
        return rc;
    for (int i = 0; i < L->nsig; i++)
        L->out_val[i] = vd_signal_value(L->m, L->d, &L->sig[i]);
    if (L->cfg.cue)
        vd_cues(L->m, L->d, L->cfg.cue, L->out_val + L->nsig);
    return 0;
}

static void publish_outputs(struct vd_loop *L, uint64_t cycle, int64_t release, uint32_t flags)
{
    for (int i = 0; i < L->cfg.ntaps; i++) {
        struct vd_snapshot *s = vd_mailbox_back(&L->out[i]);

        s->seq = cycle;
        s->stamp_ns = release;
        s->t = L->d->t;
        s->flags = flags;
        s->n = L->nout;
        memcpy(s->value, L->out_val, (size_t)L->nout * sizeof(double));
        memset(vd_snapshot_valid(s), 1, (size_t)L->nout);
        vd_mailbox_publish(&L->out[i]);
    }
}

static void publish_status(struct vd_loop *L)
{
    struct vd_loop_status *st = &L->st;
    const struct vd_policy_state *p = &L->pol;

    st->cycles = p->cycles;
    st->overruns = p->overruns;
    st->grace_overruns = p->grace_overruns;
    st->skipped = p->skipped;
    st->max_consecutive = p->max_consecutive;
    st->consecutive = p->consecutive;
    st->first_overrun_cycle = p->first_overrun_cycle;
    st->max_overrun_cycle = p->max_overrun_cycle;
    st->marker_writes = L->marker_writes;
    st->marker_errors = L->marker_errors;
    st->frozen_cycles = p->frozen_cycles;
    st->step_errors = L->step_errors;
    st->rec_dropped = vd_ring_dropped(&L->rec);
    st->log_dropped = vd_ring_dropped(&L->log);
    st->lat_min_ns = L->h_lat.min_ns;
    st->lat_max_ns = L->h_lat.max_ns;
    st->lat_avg_ns = L->h_lat.count ? L->h_lat.sum_ns / (int64_t)L->h_lat.count : 0;
    st->exec_max_ns = L->h_exec.max_ns;
    st->turn_max_ns = L->h_turn.max_ns;
    st->max_overrun_ns = p->max_overrun_ns;
    st->t_model = L->d->t;
    st->state = p->state;
    st->reason = p->reason;
    st->latched = p->latched;
    memcpy(vd_mailbox_back(&L->status), st, sizeof(*st));
    vd_mailbox_publish(&L->status);
}

/* warm every code path the loop uses on this thread: LAPACK (vd_solver_warmup), one dry
 * step and output evaluation with the state restored afterwards */
static int warmup(struct vd_loop *L)
{
    const struct vd_model *m = L->m;
    struct vd_data *d = L->d;
    const size_t nq = (size_t)m->nq;
    uint64_t warn[VD_WARN_COUNT];
    int64_t nstep = d->nstep;
    double t = d->t;
    int rc;

    rc = vd_solver_warmup(m, d);
    if (rc)
        return rc;
    memcpy(L->save_rv, d->r, nq * sizeof(double));
    memcpy(L->save_rv + nq, d->v, nq * sizeof(double));
    memcpy(warn, d->warn, sizeof(warn));
    take_inputs(L);
    rc = vd_step(m, d);
    if (!rc)
        rc = compute_outputs(L);
    memcpy(d->r, L->save_rv, nq * sizeof(double));
    memcpy(d->v, L->save_rv + nq, nq * sizeof(double));
    memcpy(d->warn, warn, sizeof(warn));
    d->nstep = nstep;
    d->t = t;
    d->lin_age = -1; /* the first real step linearizes afresh */
    if (!rc)
        rc = compute_outputs(L); /* outputs of the initial state */
    return rc;
}

static void run(struct vd_loop *L)
{
    const struct vd_loop_cfg *c = &L->cfg;
    const int64_t P = c->policy.period_ns;
    const int64_t t_end = L->t_first_release + c->duration_ns;
    struct vd_policy_state *pol = &L->pol;

    atomic_store_explicit(&L->phase, VD_PHASE_RUNNING, memory_order_release);
    log_push(L, 0, VD_LOG_START, P, 0);
    for (;;) {
        struct vd_cycle_rec rec;
        struct timespec ts;
        int64_t release = pol->next_release, wake, done;
        const uint64_t cycle = pol->cycles;
        const int state0 = pol->state;
        uint32_t flags = 0;
        int rc = 0;

        if (atomic_load_explicit(&L->stop_req, memory_order_acquire)) {
            vd_policy_stop(&c->policy, pol, VD_STOP_REQUEST);
            break;
        }
        if (c->duration_ns > 0 && release >= t_end) {
            vd_policy_stop(&c->policy, pol, VD_STOP_DURATION);
            break;
        }

        /* 1. sleep to the absolute release; wake-up latency */
        ts = vd_ns_to_timespec(release);
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
        wake = vd_clock_now();

        /* 2. newest inputs */
        if (take_inputs(L))
            flags |= VD_CYC_INPUT_FRESH;

        /* 3. step (the state is unchanged on error), 4. outputs */
        if (state0 == VD_STATE_FROZEN) {
            flags |= VD_CYC_FROZEN;
        } else {
            rc = vd_step(L->m, L->d);
            if (c->hook)
                c->hook(c->hook_ctx, cycle);
            if (!rc)
                rc = compute_outputs(L);
            if (rc) {
                flags |= VD_CYC_STEP_ERROR;
                L->step_errors++;
                L->last_step_rc = rc;
            }
        }
        publish_outputs(L, cycle, release,
                        (state0 == VD_STATE_FROZEN ? VD_SNAP_FROZEN : 0u) |
                            (pol->latched ? VD_SNAP_OVERRUN : 0u) |
                            (flags & VD_CYC_STEP_ERROR ? VD_SNAP_STEP_ERROR : 0u));
        done = vd_clock_now();

        /* 5. measurements, policy, record */
        vd_hist_add(&L->h_lat, wake - release, cycle);
        vd_hist_add(&L->h_exec, done - wake, cycle);
        vd_hist_add(&L->h_turn, done - release, cycle);
        memset(rec.stage_ns, 0, sizeof(rec.stage_ns));
        if (!(flags & VD_CYC_FROZEN))
            for (int s = 0; s < VD_STAGE_COUNT; s++) {
                vd_hist_add(&L->h_stage[s], L->d->stage_ns[s], cycle);
                rec.stage_ns[s] = (int32_t)L->d->stage_ns[s];
            }
        {
            const uint64_t skipped0 = pol->skipped;

            vd_policy_account(&c->policy, pol, release, done);
            if (c->duration_ns > 0 && pol->next_release > t_end)
                vd_policy_end(&c->policy, pol, t_end);
            if (done > release + P) {
                flags |= VD_CYC_OVERRUN;
                if (cycle < c->policy.grace_cycles)
                    flags |= VD_CYC_GRACE;
                log_push(L, cycle, flags & VD_CYC_GRACE ? VD_LOG_GRACE_OVERRUN : VD_LOG_OVERRUN,
                         done - (release + P), (done - release - 1) / P);
                /* one marker line, one write(2), only here (rt/tracemark.h) */
                if (c->marker_fd >= 0) {
                    const size_t n = vd_tracemark_line(
                        L->marker_buf, cycle, done - release, done - (release + P), wake - release,
                        (done - release - 1) / P, (flags & VD_CYC_GRACE) != 0);

                    if (vd_tracemark_write(c->marker_fd, L->marker_buf, n))
                        L->marker_errors++;
                    else
                        L->marker_writes++;
                }
            }
            rec.skipped = (uint32_t)(pol->skipped - skipped0);
        }
        if (rc && pol->state != VD_STATE_STOPPED) {
            log_push(L, cycle, VD_LOG_STEP_ERROR, rc, 0);
            vd_policy_stop(&c->policy, pol, VD_STOP_STEP_ERROR);
        }
        if (pol->state == VD_STATE_FROZEN && state0 != VD_STATE_FROZEN)
            log_push(L, cycle, VD_LOG_FREEZE, (int64_t)pol->overruns, (int64_t)pol->consecutive);
        rec.cycle = cycle;
        rec.release_ns = release;
        rec.latency_ns = wake - release;
        rec.exec_ns = done - wake;
        rec.turnaround_ns = done - release;
        rec.flags = flags;
        vd_ring_push(&L->rec, &rec);
        if (c->record) {
            struct vd_rec_head *h = (struct vd_rec_head *)(void *)L->rec_buf;
            double *v = (double *)(void *)(h + 1);

            h->c = rec;
            h->t = L->d->t;
            for (int i = 0; i < c->rec_nsig; i++)
                v[i] = L->out_val[L->rec_sig[i]];
            vd_ring_push(&L->recording, L->rec_buf);
        }
        L->st.lat_act_ns = wake - release;
        L->st.release_ns = release;
        L->t_last_done = done;
        if (pol->state == VD_STATE_STOPPED)
            break;
        publish_status(L);
    }
    log_push(L, pol->cycles, VD_LOG_STOP, pol->reason, 0);
    publish_outputs(L, pol->cycles, pol->next_release,
                    VD_SNAP_FINAL | (pol->state == VD_STATE_FROZEN ? VD_SNAP_FROZEN : 0u) |
                        (pol->latched ? VD_SNAP_OVERRUN : 0u) |
                        ((uint32_t)pol->reason << VD_SNAP_REASON_SHIFT));
    L->st.final = 1;
    publish_status(L);
}

static void *loop_thread(void *arg)
{
    struct vd_loop *L = arg;

    vd_rt_sched_info(&L->sched);
    L->warmup_rc = warmup(L);
    if (L->warmup_rc) {
        atomic_store_explicit(&L->phase, VD_PHASE_DONE, memory_order_release);
        sem_post(&L->ready);
        return NULL;
    }
    L->t_first_release = vd_clock_now() + L->cfg.start_lead_ns;
    vd_policy_start(&L->pol, L->t_first_release);
    publish_status(L);
    atomic_store_explicit(&L->phase, VD_PHASE_READY, memory_order_release);
    sem_post(&L->ready);
    run(L);
    atomic_store_explicit(&L->phase, VD_PHASE_DONE, memory_order_release);
    return NULL;
}

int vd_loop_start(struct vd_loop *L)
{
    const struct vd_thread_spec spec = {
        .name = "vd-loop",
        .cpu = L->cfg.cpu,
        .priority = L->cfg.priority,
        .stack_size = L->cfg.stack_size,
        .fn = loop_thread,
        .arg = L,
    };
    int rc = vd_rt_thread_create(&L->thread, &spec);

    if (rc)
        return rc;
    while (sem_wait(&L->ready) && errno == EINTR)
        ;
    if (L->warmup_rc) {
        vd_rt_thread_join(&L->thread);
        return L->warmup_rc;
    }
    return 0;
}

int vd_loop_join(struct vd_loop *L)
{
    return vd_rt_thread_join(&L->thread);
}

void vd_loop_request_stop(struct vd_loop *L)
{
    atomic_store_explicit(&L->stop_req, 1, memory_order_release);
}

bool vd_loop_done(struct vd_loop *L)
{
    return atomic_load_explicit(&L->phase, memory_order_acquire) == VD_PHASE_DONE;
}

struct vd_snapshot *vd_loop_input_back(struct vd_loop *L)
{
    return vd_mailbox_back(&L->in);
}

void vd_loop_input_publish(struct vd_loop *L)
{
    vd_mailbox_publish(&L->in);
}

const struct vd_snapshot *vd_loop_output(struct vd_loop *L, int tap, bool *fresh)
{
    return vd_mailbox_read(&L->out[tap], fresh);
}

const struct vd_loop_status *vd_loop_status(struct vd_loop *L, bool *fresh)
{
    return vd_mailbox_read(&L->status, fresh);
}
