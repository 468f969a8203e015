/* rt/report.c - cyclictest histogram files and the JSON run report. */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "rt/check.h"
#include "rt/policy.h"

static const char *const stage_names[VD_STAGE_COUNT] = {"linearize", "assemble", "factor",
                                                        "stages"};

int vd_mkdir_p(const char *dir)
{
    char buf[1024];
    size_t n = strlen(dir);

    if (n == 0 || n >= sizeof(buf))
        return n ? -ENAMETOOLONG : 0;
    memcpy(buf, dir, n + 1);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0755) && errno != EEXIST)
            return -errno;
        *p = '/';
    }
    if (mkdir(buf, 0755) && errno != EEXIST)
        return -errno;
    return 0;
}

/* a JSON string literal */
static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        const unsigned char c = (unsigned char)*s;

        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void jtime(FILE *f, const struct timespec *ts)
{
    struct tm tm;
    char buf[64];

    gmtime_r(&ts->tv_sec, &tm);
    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
    fprintf(f, "\"%s.%06ldZ\"", buf, ts->tv_nsec / 1000);
}

static int write_hist(const char *path, const struct vd_hist *h, const char *title)
{
    FILE *f = fopen(path, "w");
    int rc;

    if (!f)
        return -errno;
    rc = vd_hist_write_cyclictest(f, h, title);
    if (fclose(f) && !rc)
        rc = -EIO;
    return rc;
}

static void write_reasons(FILE *f, const char *why)
{
    const char *p = why ? why : "";
    int first = 1;

    fputc('[', f);
    while (*p) {
        size_t n = strcspn(p, ";");
        char buf[256];

        while (*p == ' ') {
            p++;
            n--;
        }
        if (n > 0 && n < sizeof(buf)) {
            memcpy(buf, p, n);
            buf[n] = '\0';
            fputs(first ? "" : ", ", f);
            jstr(f, buf);
            first = 0;
        }
        p += n;
        if (*p == ';')
            p++;
    }
    fputc(']', f);
}

static int write_json(const char *path, struct vd_loop *L, const struct vd_telemetry *tm,
                      const struct vd_report_meta *mt, const struct vd_report_files *files)
{
    const struct vd_policy_state *p = &L->pol;
    const struct vd_policy_cfg *pc = &L->cfg.policy;
    const struct vd_rt_mem *mem = mt->mem;
    struct utsname u;
    char rtk[16] = "";
    FILE *f = fopen(path, "w");
    int rc = 0;

    if (!f)
        return -errno;
    if (uname(&u))
        memset(&u, 0, sizeof(u));
    if (vd_sys_read("/", "sys/kernel/realtime", rtk, sizeof(rtk)))
        snprintf(rtk, sizeof(rtk), "missing");

    fprintf(f, "{\n  \"rtvd_report\": 1,\n  \"command_line\": ");
    jstr(f, mt->command_line);
    fprintf(f, ",\n  \"version\": ");
    jstr(f, mt->version);
    fprintf(f, ",\n  \"git_revision\": ");
    jstr(f, mt->git_rev);
    fprintf(f, ",\n  \"uname\": {\"sysname\": ");
    jstr(f, u.sysname);
    fprintf(f, ", \"nodename\": ");
    jstr(f, u.nodename);
    fprintf(f, ", \"release\": ");
    jstr(f, u.release);
    fprintf(f, ", \"version\": ");
    jstr(f, u.version);
    fprintf(f, ", \"machine\": ");
    jstr(f, u.machine);
    fprintf(f, "},\n  \"sys_kernel_realtime\": ");
    jstr(f, rtk);
    fprintf(f, ",\n  \"preempt_rt\": %s,\n", vd_rt_kernel("/") ? "true" : "false");

    /* configuration */
    fprintf(f, "  \"config\": {\"name\": ");
    jstr(f, mt->config_name);
    fprintf(f, ", \"hash\": \"fnv1a64:%016" PRIx64 "\", \"scenario\": ", mt->config_hash);
    if (mt->scenario_path)
        jstr(f, mt->scenario_path);
    else
        fputs("null", f);
    fprintf(f, ", \"model\": ");
    jstr(f, mt->model_path);
    fprintf(f, ", \"duration_s\": %.6g, \"period_us\": %.3f, \"policy\": ", mt->duration,
            (double)pc->period_ns * 1e-3);
    jstr(f, mt->policy_text);
    fprintf(f,
            ", \"queue_depth\": %" PRIu64 ", \"allow_count\": %" PRIu64
            ", \"allow_mode\": \"%s\", \"allow_then\": \"%s\", \"allow_realign\": \"%s\", "
            "\"grace_cycles\": %" PRIu64 ", \"histogram_us\": %d, \"cpu\": %d, \"priority\": %d, "
            "\"lock_memory\": %s, \"dma_latency\": %s, \"udp\": ",
            pc->queue_depth, pc->allow_count,
            pc->allow_mode == VD_ALLOW_CONSECUTIVE ? "consecutive" : "total",
            pc->allow_then == VD_ALLOW_THEN_FREEZE ? "freeze" : "stop",
            pc->allow_realign == VD_REALIGN_DELAY ? "delay" : "skip", pc->grace_cycles,
            L->cfg.hist_us, mt->cpu_requested, mt->priority_requested,
            mt->lock_requested ? "true" : "false", mt->dma_requested ? "true" : "false");
    if (mt->udp_dest)
        jstr(f, mt->udp_dest);
    else
        fputs("null", f);
    fprintf(f, ", \"outputs\": [");
    for (int i = 0; i < mt->nout; i++) {
        fputs(i ? ", " : "", f);
        jstr(f, mt->out_names[i]);
    }
    fprintf(f, "]},\n");

    /* when */
    fprintf(f, "  \"start\": {\"utc\": ");
    jtime(f, &mt->start_utc);
    fprintf(f, ", \"monotonic_ns\": %" PRId64 "},\n  \"end\": {\"utc\": ", mt->start_mono);
    jtime(f, &mt->end_utc);
    fprintf(f,
            ", \"monotonic_ns\": %" PRId64 "},\n  \"first_release_ns\": %" PRId64
            ", \"last_completion_ns\": %" PRId64 ",\n",
            mt->end_mono, L->t_first_release, L->t_last_done);

    /* set-up obtained */
    fprintf(f, "  \"best_effort\": %s,\n  \"best_effort_reasons\": ",
            mt->best_effort ? "true" : "false");
    write_reasons(f, mt->best_effort_why);
    fprintf(f, ",\n  \"setup\": {\"memory_locked\": %s, \"mlock_error\": ",
            mem && mem->locked ? "true" : "false");
    if (mem && mem->lock_errno)
        jstr(f, strerror(mem->lock_errno));
    else if (mem && mt->lock_requested && mem->sanitizer)
        jstr(f, "not attempted in a sanitizer build");
    else
        fputs("null", f);
    fprintf(f,
            ", \"malloc_tuned\": %s, \"heap_prefaulted_bytes\": %zu, \"sanitizer_build\": %s, "
            "\"dma_latency_held\": %s, \"dma_latency_error\": ",
            mem && mem->malloc_tuned ? "true" : "false", mem ? mem->prefaulted : (size_t)0,
            mem && mem->sanitizer ? "true" : "false", mt->dma_fd >= 0 ? "true" : "false");
    if (mt->dma_errno)
        jstr(f, strerror(mt->dma_errno));
    else
        fputs("null", f);
    fprintf(f, ", \"blas\": ");
    jstr(f, mt->blas);
    fprintf(f, "},\n");
    fprintf(f,
            "  \"loop_thread\": {\"tid\": %d, \"policy\": \"%s\", \"priority\": %d, "
            "\"cpu\": %d, \"affinity\": ",
            (int)L->sched.tid, vd_sched_policy_name(L->sched.policy), L->sched.priority,
            L->sched.cpu);
    jstr(f, L->sched.affinity);
    fprintf(f, ", \"fifo_requested\": %s, \"fifo_obtained\": %s, \"fifo_error\": ",
            L->cfg.priority > 0 ? "true" : "false",
            L->sched.policy == SCHED_FIFO ? "true" : "false");
    if (L->thread.fifo_errno)
        jstr(f, strerror(L->thread.fifo_errno));
    else
        fputs("null", f);
    fprintf(f, ", \"pinned\": %s, \"pin_error\": ", L->thread.pinned ? "true" : "false");
    if (L->thread.pin_errno)
        jstr(f, strerror(L->thread.pin_errno));
    else
        fputs("null", f);
    fprintf(f, "},\n");

    /* the model */
    fprintf(f, "  \"model\": {\"name\": ");
    jstr(f, mt->model_name);
    fprintf(f, ", \"method\": ");
    jstr(f, mt->method);
    fprintf(f,
            ", \"dof\": %d, \"dt_s\": %.9g, \"steps\": %" PRId64 ", \"t_end_s\": %.6f, "
            "\"warnings\": {\"nonfinite\": %" PRIu64 ", \"singular\": %" PRIu64
            ", \"degenerate\": %" PRIu64 ", \"cardan\": %" PRIu64 ", \"arena\": %" PRIu64 "}},\n",
            mt->dof, mt->dt, L->d->nstep, L->d->t, L->d->warn[VD_WARN_NONFINITE],
            L->d->warn[VD_WARN_SINGULAR], L->d->warn[VD_WARN_DEGENERATE],
            L->d->warn[VD_WARN_CARDAN], L->d->warn[VD_WARN_ARENA]);

    /* result and counters */
    fprintf(f, "  \"result\": {\"state\": \"%s\", \"stop_reason\": \"%s\", \"exit_status\": %d},\n",
            vd_state_name(p->state), vd_stop_reason_name(p->reason), mt->exit_status);
    fprintf(f,
            "  \"counters\": {\"cycles\": %" PRIu64 ", \"elapsed_periods\": %" PRId64
            ", \"skipped_releases\": %" PRIu64 ", \"overruns\": %" PRIu64
            ", \"grace_overruns\": %" PRIu64 ", \"max_consecutive_overruns\": %" PRIu64
            ", \"max_overrun_us\": %.3f, \"max_overrun_cycle\": %" PRId64
            ", \"overrun_latched\": %s, \"first_overrun_cycle\": %" PRId64
            ", \"grid_shift_us\": %.3f, \"max_queued\": %" PRIu64 ", \"frozen_cycles\": %" PRIu64
            ", \"freeze_cycle\": %" PRId64 ", \"stop_cycle\": %" PRId64
            ", \"step_errors\": %" PRIu64 ", \"inputs_taken\": %" PRIu64
            ", \"trace_marker_writes\": %" PRIu64 ", \"trace_marker_errors\": %" PRIu64 "},\n",
            p->cycles, vd_policy_elapsed_periods(pc, p), p->skipped, p->overruns, p->grace_overruns,
            p->max_consecutive, (double)p->max_overrun_ns * 1e-3, p->max_overrun_cycle,
            p->latched ? "true" : "false", p->first_overrun_cycle, (double)p->shift_ns * 1e-3,
            p->max_queued, p->frozen_cycles, p->freeze_cycle, p->stop_cycle, L->step_errors,
            L->inputs_taken, L->marker_writes, L->marker_errors);
    fprintf(f,
            "  \"rings\": {\"cycle_records\": {\"capacity\": %" PRIu64 ", \"pushed\": %" PRIu64
            ", \"dropped\": %" PRIu64 ", \"received\": %" PRIu64 ", \"gaps\": %" PRIu64
            "}, \"log\": {\"capacity\": %" PRIu64 ", \"pushed\": %" PRIu64 ", \"dropped\": %" PRIu64
            ", \"received\": %" PRIu64 "}},\n",
            L->rec.cap, vd_ring_pushed(&L->rec), vd_ring_dropped(&L->rec), tm ? tm->records : 0,
            tm ? tm->record_gaps : 0, L->log.cap, vd_ring_pushed(&L->log), vd_ring_dropped(&L->log),
            tm ? tm->logs : 0);
    if (L->cfg.record)
        fprintf(f,
                "  \"recording_ring\": {\"capacity\": %" PRIu64 ", \"pushed\": %" PRIu64
                ", \"dropped\": %" PRIu64 ", \"record_bytes\": %zu, \"signals\": %d},\n",
                L->recording.cap, vd_ring_pushed(&L->recording), vd_ring_dropped(&L->recording),
                vd_loop_record_size(L), L->cfg.rec_nsig);
    fprintf(f,
            "  \"telemetry\": {\"status_lines\": %" PRIu64 ", \"datagrams\": %" PRIu64
            ", \"send_errors\": %" PRIu64 ", \"trace_errors\": %" PRIu64 "},\n",
            tm ? tm->status_lines : 0, tm ? tm->datagrams : 0, tm ? tm->send_errors : 0,
            tm ? tm->trace_errors : 0);

    /* the outputs of the last cycle (held while frozen) and the CAN link */
    fprintf(f, "  \"final_outputs\": {\"cycle\": %" PRIu64 ", \"t\": %.9g, \"values\": {",
            p->cycles, L->d->t);
    for (int i = 0; i < mt->nout && i < L->nsig; i++) {
        fputs(i ? ", " : "", f);
        jstr(f, mt->out_names[i]);
        if (isfinite(L->out_val[i]))
            fprintf(f, ": %.17g", L->out_val[i]);
        else
            fputs(": null", f);
    }
    fprintf(f, "}},\n  \"can\": ");
    if (mt->can_json)
        mt->can_json(mt->can_ctx, f);
    else
        fputs("null", f);
    fprintf(f, ",\n  \"motion\": ");
    if (mt->motion_json)
        mt->motion_json(mt->motion_ctx, f);
    else
        fputs("null", f);
    fprintf(f, ",\n  \"recording\": ");
    if (mt->recording_json)
        mt->recording_json(mt->recording_ctx, f);
    else
        fputs("null", f);
    fprintf(f, ",\n");

    /* distributions */
    fprintf(f, "  \"latency\": ");
    vd_hist_write_json(f, &L->h_lat, "  ");
    fprintf(f, ",\n  \"execution\": ");
    vd_hist_write_json(f, &L->h_exec, "  ");
    fprintf(f, ",\n  \"turnaround\": ");
    vd_hist_write_json(f, &L->h_turn, "  ");
    fprintf(f, ",\n  \"stages\": {");
    for (int s = 0; s < VD_STAGE_COUNT; s++) {
        fprintf(f, "%s\n    \"%s\": ", s ? "," : "", stage_names[s]);
        vd_hist_write_json(f, &L->h_stage[s], "    ");
    }
    fprintf(f, "\n  },\n  \"histogram_files\": {\"latency\": ");
    jstr(f, files->path[1]);
    fprintf(f, ", \"execution\": ");
    jstr(f, files->path[2]);
    fprintf(f, ", \"turnaround\": ");
    jstr(f, files->path[3]);
    fprintf(f, "}\n}\n");
    if (ferror(f))
        rc = -EIO;
    if (fclose(f) && !rc)
        rc = -EIO;
    return rc;
}

int vd_report_write(const char *dir, const char *prefix, struct vd_loop *L,
                    const struct vd_telemetry *tm, const struct vd_report_meta *meta,
                    struct vd_report_files *files)
{
    static const char *const suffix[VD_REPORT_NFILES] = {"report.json", "latency.hist",
                                                         "execution.hist", "turnaround.hist"};
    const struct vd_hist *h[VD_REPORT_NFILES] = {NULL, &L->h_lat, &L->h_exec, &L->h_turn};
    static const char *const title[VD_REPORT_NFILES] = {
        NULL, "rtvd wake-up latency [us]: actual - scheduled release",
        "rtvd execution time [us]: wake-up -> outputs published",
        "rtvd turnaround time [us]: scheduled release -> outputs published"};
    int rc = vd_mkdir_p(dir), r;

    for (int i = 0; i < VD_REPORT_NFILES; i++)
        snprintf(files->path[i], sizeof(files->path[i]), "%s/%s-%s", dir, prefix, suffix[i]);
    if (rc)
        return rc;
    for (int i = 1; i < VD_REPORT_NFILES; i++)
        if ((r = write_hist(files->path[i], h[i], title[i])) && !rc)
            rc = r;
    if ((r = write_json(files->path[0], L, tm, meta, files)) && !rc)
        rc = r;
    return rc;
}
