/* app/run_summary.c - the end of one `rtvd run`: the summary on stdout and the report files
 * (rt/report.h), from what the loop, the links and the telemetry counted
 * (app/run_session.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "app/git_rev.h" /* VD_GIT_REV, generated at build time */
#include "app/run_session.h"

static void print_hist_line(const char *what, const struct vd_hist *h)
{
    printf("  %-16s min %6.1f  avg %6.1f  max %8.1f   (%" PRIu64 " samples, %" PRIu64
           " beyond the %d us histogram)\n",
           what, (double)h->min_ns * 1e-3,
           h->count ? (double)h->sum_ns / (double)h->count * 1e-3 : 0.0, (double)h->max_ns * 1e-3,
           h->count, h->overflow, h->nbucket);
}

static void print_recording(struct run_session *s)
{
    const struct app_recording *r = &s->recd;

    printf("  recording: %" PRIu64 " records written of %" PRIu64 " taken (%" PRIu64
           " dropped: the ring was full; %" PRIu64 " missing), %d channels, %" PRIu64
           " bytes in %" PRIu64 " file%s: %s%s%s%s%s\n",
           r->rec.rows_written, r->rec.rows, vd_ring_dropped(&s->L.recording), r->gaps, r->nch + 1,
           r->rec.bytes_written, r->rec.files, r->rec.files == 1 ? "" : "s",
           r->rec.cfg.formats & VD_REC_MDF4 ? r->rec.name_mdf : "",
           r->rec.cfg.formats == (VD_REC_MDF4 | VD_REC_CSV) ? " " : "",
           r->rec.cfg.formats & VD_REC_CSV ? r->rec.name_csv : "",
           r->rec.index > 1 ? " (the last)" : "", s->rec_rc ? " WRITE ERROR" : "");
    if (s->rec_rc)
        printf("  recording: %s (%" PRIu64 " records not written)\n", strerror(-s->rec_rc),
               r->rec.rows_lost);
}

/* 6. summary */
int run_session_summary(struct run_session *s)
{
    static const char *const stage[VD_STAGE_COUNT] = {"linearize", "assemble", "factor", "stages"};
    const struct vd_run_cfg *c = s->c;
    struct vd_loop *L = &s->L;
    int status;

    if (L->step_errors)
        status = 1;
    else if (L->pol.freeze_cycle >= 0 || L->pol.reason == VD_STOP_OVERRUN ||
             L->pol.reason == VD_STOP_QUEUE_FULL || L->pol.reason == VD_STOP_ALLOW)
        status = RUN_EXIT_OVERRUN;
    else
        status = 0;
    printf("rtvd run: summary (stop reason %s%s)\n", vd_stop_reason_name(L->pol.reason),
           L->pol.freeze_cycle >= 0 ? ", the model froze" : "");
    printf("  cycles %" PRIu64 ", skipped releases %" PRIu64 ", elapsed periods %" PRId64
           " of %d us; model time %.3f s\n",
           L->pol.cycles, L->pol.skipped, vd_policy_elapsed_periods(&s->lc.policy, &L->pol),
           c->rt.period_us, s->d->t);
    {
        /* one step per elapsed period is on time; skipped releases and frozen cycles are
         * steps not taken, so the model falls behind */
        const double due = (double)vd_policy_elapsed_periods(&s->lc.policy, &L->pol) * c->m->opt.dt;

        if (due > 0.0 && s->d->t < 0.99 * due)
            printf("  the model fell behind: model time %.3f s of %.3f s due (%.0f %%)\n", s->d->t,
                   due, 100.0 * s->d->t / due);
    }
    print_hist_line("wake-up [us]", &L->h_lat);
    print_hist_line("execution [us]", &L->h_exec);
    print_hist_line("turnaround [us]", &L->h_turn);
    printf("  stages [us]     ");
    for (int k = 0; k < VD_STAGE_COUNT; k++)
        printf(" %s %.1f/%.1f", stage[k],
               L->h_stage[k].count
                   ? (double)L->h_stage[k].sum_ns / (double)L->h_stage[k].count * 1e-3
                   : 0.0,
               (double)L->h_stage[k].max_ns * 1e-3);
    printf("   (avg/max)\n");
    printf("  overruns %" PRIu64 " (+%" PRIu64 " in the %d-cycle grace), max consecutive %" PRIu64
           ", max overrun %.1f us, latched %s, first overrun cycle %" PRId64 "\n",
           L->pol.overruns, L->pol.grace_overruns, c->rt.grace_cycles, L->pol.max_consecutive,
           (double)L->pol.max_overrun_ns * 1e-3, L->pol.latched ? "yes" : "no",
           L->pol.first_overrun_cycle);
    if (L->pol.frozen_cycles || L->pol.shift_ns || L->pol.max_queued || L->step_errors)
        printf("  frozen cycles %" PRIu64 ", grid shift %.1f us, max queued %" PRIu64
               ", step errors %" PRIu64 "\n",
               L->pol.frozen_cycles, (double)L->pol.shift_ns * 1e-3, L->pol.max_queued,
               L->step_errors);
    printf("  cycle records %" PRIu64 " received, %" PRIu64 " dropped; status datagrams %" PRIu64
           "%s%s\n",
           s->tm.records, vd_ring_dropped(&L->rec), s->tm.datagrams,
           s->tc.send ? " to " : " (udp off)", s->tc.send ? c->telemetry.udp : "");
    if (s->tm.format_errors)
        printf("  status datagrams NOT SENT: %" PRIu64 " longer than %d bytes\n",
               s->tm.format_errors, VD_TM_DGRAM_MAX);
    if (s->rec_started) {
        print_recording(s);
        if (s->rec_rc && !status)
            status = 1;
    }
    if (s->marker_fd >= 0)
        printf("  trace markers: %" PRIu64 " written, %" PRIu64 " failed (%s)\n", L->marker_writes,
               L->marker_errors, s->o->marker_path ? s->o->marker_path : "trace_marker");
    if (s->cn.link_started) {
        app_canlink_summary(&s->cn.link, stdout, "  ");
        if (s->cn.ecu_started)
            app_ecu_summary(&s->cn.ecu, stdout, "  ");
    }
    if (s->mk_started)
        app_motion_summary(s->mk, stdout, "  ");
    if (*s->why)
        printf("  set-up: best effort (%s)\n", s->why);
    else
        printf("  set-up: real time (SCHED_FIFO %d on cpu %d, memory locked, cpu_dma_latency 0, "
               "PREEMPT_RT)\n",
               L->sched.priority, L->sched.cpu);
    return status;
}

/* the recording's files: what reached them (after the recording thread's join) */
static void recording_json(void *ctx, FILE *f)
{
    const struct run_session *s = ctx;
    const struct vd_recorder *rec = &s->recd.rec;

    fprintf(f,
            "{\"taken\": %" PRIu64 ", \"written\": %" PRIu64 ", \"lost\": %" PRIu64
            ", \"missing\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"files\": %" PRIu64
            ", \"error\": ",
            rec->rows, rec->rows_written, rec->rows - rec->rows_written, s->recd.gaps,
            rec->bytes_written, rec->files);
    if (s->rec_rc) {
        fputc('"', f);
        fputs(strerror(-s->rec_rc), f); /* (strerror's texts need no escaping) */
        fputc('"', f);
    } else {
        fputs("null", f);
    }
    fputc('}', f);
}

static void motion_json(void *ctx, FILE *f)
{
    app_motion_json(ctx, f);
}

static void can_json(void *ctx, FILE *f)
{
    const struct run_can *cn = ctx;

    fputs("{\"target\": ", f);
    app_canlink_json(&cn->link, f);
    fputs(",\n    \"ecu\": ", f);
    if (cn->ecu_up)
        app_ecu_json(&cn->ecu, f);
    else
        fputs("null", f);
    fputc('}', f);
}

/* 7. reports */
int run_session_reports(struct run_session *s, int status)
{
    const struct vd_run_cfg *c = s->c;
    struct vd_report_meta *meta = &s->meta;
    struct vd_report_files files;
    const char **out = calloc((size_t)c->noutput + 1, sizeof(*out));
    int rc;

    memset(&files, 0, sizeof(files));
    for (int i = 0; out && i < c->noutput; i++)
        out[i] = c->out_name[i];
    meta->command_line = s->cmdline;
    meta->version = VD_VERSION;
    meta->git_rev = VD_GIT_REV;
    meta->config_name = c->name;
    meta->config_hash = c->hash;
    meta->scenario_path = c->scn ? c->scenario_path : NULL;
    meta->model_path = c->model_path;
    meta->model_name = c->m->name;
    meta->method = app_method_name(c->m);
    meta->dt = c->m->opt.dt;
    meta->dof = c->m->nq;
    meta->blas = s->blas;
    meta->policy_text = s->ptext;
    meta->cpu_requested = s->cpu;
    meta->priority_requested = c->rt.priority;
    meta->duration = c->duration;
    meta->lock_requested = c->rt.lock_memory;
    meta->dma_requested = c->rt.dma_latency;
    meta->mem = &s->mem;
    meta->dma_fd = s->dma_fd;
    meta->dma_errno = s->dma_errno;
    meta->best_effort = *s->why != '\0';
    meta->best_effort_why = s->why;
    meta->udp_dest = s->tc.send ? c->telemetry.udp : NULL;
    meta->exit_status = status;
    meta->out_names = out;
    meta->nout = out ? c->noutput : 0;
    meta->can_json = s->cn.link_started ? can_json : NULL;
    meta->can_ctx = &s->cn;
    meta->motion_json = s->mk_started ? motion_json : NULL;
    meta->motion_ctx = s->mk;
    meta->recording_json = s->rec_started ? recording_json : NULL;
    meta->recording_ctx = s;
    rc = vd_report_write(c->reports.dir, c->reports.prefix, &s->L, s->tm_up ? &s->tm : NULL, meta,
                         &files);
    free(out);
    if (rc) {
        fprintf(stderr, "rtvd run: cannot write the reports in %s: %s\n", c->reports.dir,
                strerror(-rc));
        return status ? status : 1;
    }
    printf("  reports: %s %s %s %s%s%s\n", files.path[0], files.path[1], files.path[2],
           files.path[3], c->reports.trace ? " " : "", c->reports.trace ? s->trace : "");
    return status;
}
