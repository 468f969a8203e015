/* app/recording.c - the recording thread: loop ring -> CSV / MDF4 files. */
#include "recording.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt/clock.h"

#define POLL_NS 20000000LL /* [ns] between drains: 20 cycles at 1 kHz, far below the ring */

static const struct vd_mdf4_chan fixed[APP_REC_FIXED] = {
    {"cycle", "", VD_MDF4_U64},        {"t_model", "s", VD_MDF4_F64},
    {"latency", "us", VD_MDF4_F64},    {"execution", "us", VD_MDF4_F64},
    {"turnaround", "us", VD_MDF4_F64}, {"linearize", "us", VD_MDF4_F64},
    {"assemble", "us", VD_MDF4_F64},   {"factor", "us", VD_MDF4_F64},
    {"stages", "us", VD_MDF4_F64},     {"overrun", "", VD_MDF4_U64},
    {"flags", "", VD_MDF4_U64},        {"skipped", "", VD_MDF4_U64},
};

int app_recording_init(struct app_recording *r, struct vd_loop *L,
                       const struct app_recording_cfg *cfg)
{
    struct vd_recorder_cfg rc = {0};
    const int ns = L->cfg.rec_nsig;
    int err;

    memset(r, 0, sizeof(*r));
    r->L = L;
    if (!L->cfg.record)
        return -EINVAL;
    r->nch = APP_REC_FIXED + ns;
    r->ch = calloc((size_t)r->nch, sizeof(*r->ch));
    r->bits = calloc((size_t)r->nch, sizeof(*r->bits));
    r->buf = calloc(1, vd_loop_record_size(L));
    if (!r->ch || !r->bits || !r->buf) {
        app_recording_free(r);
        return -ENOMEM;
    }
    memcpy(r->ch, fixed, sizeof(fixed));
    for (int i = 0; i < ns; i++)
        r->ch[APP_REC_FIXED + i] = (struct vd_mdf4_chan){cfg->names[i], "", VD_MDF4_F64};
    rc.path = cfg->path;
    rc.formats = cfg->formats;
    rc.nch = r->nch;
    rc.ch = r->ch;
    rc.rotate_bytes = (uint64_t)(cfg->rotate_mb * 1048576.0);
    rc.rotate_s = cfg->rotate_s;
    {
        struct timespec u;

        /* one instant on both clocks: master time 0 and the file's UTC start time */
        r->t0_ns = vd_clock_now();
        clock_gettime(CLOCK_REALTIME, &u);
        r->t0_utc_ns = (int64_t)u.tv_sec * 1000000000 + u.tv_nsec;
    }
    rc.start_ns = r->t0_utc_ns;
    rc.comment = cfg->comment;
    rc.version = cfg->version;
    err = vd_recorder_open(&r->rec, &rc);
    if (err) {
        app_recording_free(r);
        return err;
    }
    r->open = true;
    return 0;
}

static void put_f64(uint64_t *b, double v)
{
    memcpy(b, &v, sizeof(v));
}

static void write_record(struct app_recording *r)
{
    const struct vd_rec_head *h = (const struct vd_rec_head *)(const void *)r->buf;
    const double *v = (const double *)(const void *)(h + 1);
    uint64_t *b = r->bits;

    if (h->c.cycle > r->next_cycle)
        r->gaps += h->c.cycle - r->next_cycle;
    r->next_cycle = h->c.cycle + 1;
    r->records++;
    b[0] = h->c.cycle;
    put_f64(&b[1], h->t);
    put_f64(&b[2], (double)h->c.latency_ns * 1e-3);
    put_f64(&b[3], (double)h->c.exec_ns * 1e-3);
    put_f64(&b[4], (double)h->c.turnaround_ns * 1e-3);
    for (int s = 0; s < 4; s++)
        put_f64(&b[5 + s], (double)h->c.stage_ns[s] * 1e-3);
    b[9] = (h->c.flags & VD_CYC_OVERRUN) != 0;
    b[10] = h->c.flags;
    b[11] = h->c.skipped;
    for (int i = 0; i < r->nch - APP_REC_FIXED; i++)
        put_f64(&b[APP_REC_FIXED + i], v[i]);
    if (vd_recorder_row(&r->rec, (double)(h->c.release_ns - r->t0_ns) * 1e-9, b) && !r->write_rc)
        r->write_rc = r->rec.err;
}

static void *recording_thread(void *arg)
{
    struct app_recording *r = arg;
    int64_t next = vd_clock_now();

    for (;;) {
        /* the flag first: everything the loop pushed before it is drained below */
        const bool done = vd_loop_done(r->L);
        struct timespec ts;

        while (vd_ring_pop(&r->L->recording, r->buf))
            write_record(r);
        if (done)
            break;
        next += POLL_NS;
        ts = vd_ns_to_timespec(next);
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
    }
    return NULL;
}

int app_recording_start(struct app_recording *r)
{
    const struct vd_thread_spec spec = {
        .name = "vd-record",
        .cpu = -1,
        .priority = 0,
        .stack_size = 256 * 1024,
        .fn = recording_thread,
        .arg = r,
    };

    return vd_rt_thread_create(&r->thread, &spec);
}

int app_recording_join(struct app_recording *r)
{
    int rc = vd_rt_thread_join(&r->thread);

    if (r->open) {
        const int c = vd_recorder_close(&r->rec);

        if (c && !r->write_rc)
            r->write_rc = c;
        r->open = false;
    }
    return rc ? rc : r->write_rc;
}

void app_recording_free(struct app_recording *r)
{
    vd_rt_thread_join(&r->thread);
    if (r->open)
        vd_recorder_close(&r->rec);
    r->open = false;
    free(r->ch);
    free(r->bits);
    free(r->buf);
    r->ch = NULL;
    r->bits = NULL;
    r->buf = NULL;
}
