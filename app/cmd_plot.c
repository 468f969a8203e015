/* app/cmd_plot.c - rtvd plot: charts after a run, as SVG written here and PNG through Debian's
 * rsvg-convert (librsvg2-bin). From a run report (rt/report.h): the wake-up, execution and
 * turnaround histograms on a log count axis in the style of the OSADL latency plots; the
 * execution and turnaround time per cycle with the deadline and the overruns marked, from
 * the per-cycle trace or a recording beside the report; the core's stage breakdown. From a
 * recording (CSV, app/recording.h): the chosen signals over time, and its timing channels. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config/vfs.h"
#include "app.h"
#include "app/svgplot.h"
#include "rt/hist.h"

#define MAX_POINTS  4000 /* per curve: beyond, the maximum (and minimum) of each bin */
#define MAX_SIGNALS 8

extern char **environ;

static const char *const colours[] = {"#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd",
                                      "#8c564b", "#e377c2", "#17becf", "#bcbd22"};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rtvd plot REPORT.json [--cycles FILE.csv] [--out PREFIX] [--no-png]\n"
            "       rtvd plot RECORDING.csv [--signals a,b,...] [--out PREFIX] [--no-png]\n"
            "\n"
            "Charts after a run, as SVG and PNG (PNG through rsvg-convert, Debian librsvg2-bin).\n"
            "From a run report (<dir>/<prefix>-report.json of rtvd run):\n"
            "  PREFIX-histograms   wake-up latency, execution and turnaround histograms, 1 us\n"
            "                      buckets, log count axis (as the OSADL latency plots)\n"
            "  PREFIX-timeline     execution and turnaround per cycle with the deadline and the\n"
            "                      overruns marked: from --cycles, else <dir>/<prefix>-cycles.csv\n"
            "                      (rtvd run --trace) or <dir>/<prefix>-record.csv (record:\n"
            "                      with format csv or both, not rotated)\n"
            "  PREFIX-stages       the core's stages (linearize, assemble, factor, stages):\n"
            "                      mean, p99 and max\n"
            "From a recording (CSV of record:, or any CSV whose first column is the time):\n"
            "  PREFIX-signals      the --signals (default: the first four signals) over time\n"
            "  PREFIX-timeline     as above, when the recording has the timing channels\n"
            "\n"
            "  --out PREFIX          file names (default: the input's, e.g. out/rtvd-plot)\n"
            "  --cycles FILE.csv     the per-cycle data for the timeline\n"
            "  --signals a,b,...     recorded signals to plot (at most %d)\n"
            "  --no-png              SVG only\n"
            "  --help                this text\n",
            MAX_SIGNALS);
}

/* --- files -------------------------------------------------------------------------------- */

struct table {
    int ncol;
    long nrow;
    char **name; /* (ncol) */
    double *v;   /* (nrow x ncol), row major */
};

static void table_free(struct table *t)
{
    for (int i = 0; i < t->ncol; i++)
        free(t->name[i]);
    free(t->name);
    free(t->v);
    memset(t, 0, sizeof(*t));
}

static int col(const struct table *t, const char *name)
{
    for (int i = 0; i < t->ncol; i++)
        if (!strcmp(t->name[i], name))
            return i;
    return -1;
}

/* the largest report and recording rtvd plot reads [bytes]: a full-rate recording of an hour
 * (1 kHz, 40 signals of ~12 characters) is ~1.7 GB; its table of doubles needs about half */
#define PLOT_MAX_FILE (2ull << 30)

/* open a file to read: a regular file of at most PLOT_MAX_FILE bytes (a directory, /dev/zero
 * or a FIFO would fail or be read until memory runs out); NULL with errno (EISDIR, ENODEV,
 * EFBIG, or open's) */
static FILE *open_input(const char *path)
{
    return vd_cfg_fopen_regular(path, "r", PLOT_MAX_FILE);
}

/* why open_input refused a file */
static const char *input_error(int e)
{
    return e == ENODEV ? "not a regular file" : e == EFBIG ? "larger than 2 GiB" : strerror(e);
}

/* a report as JSON, from a regular file of bounded size; NULL with err filled */
static json_t *load_json(const char *path, json_error_t *err)
{
    FILE *f = open_input(path);
    json_t *j;

    if (!f) {
        memset(err, 0, sizeof(*err));
        snprintf(err->text, sizeof(err->text), "%s", input_error(errno));
        return NULL;
    }
    j = json_loadf(f, 0, err);
    fclose(f);
    return j;
}

/* a CSV with a header line and numbers, every row with the header's fields (an empty header
 * field is named "column N"; a last line without its newline, a recording cut short, is left
 * out with a warning); 0 or -errno / -EINVAL (message printed) */
static int read_csv(const char *path, struct table *t)
{
    FILE *f = open_input(path);
    char *line = NULL, *rest, *tok;
    size_t cap = 0;
    long rcap = 0, lineno = 1;
    ssize_t len;

    memset(t, 0, sizeof(*t));
    if (!f)
        return -errno;
    if (getline(&line, &cap, f) <= 0)
        goto bad;
    line[strcspn(line, "\r\n")] = '\0';
    for (rest = line; (tok = strsep(&rest, ",")) != NULL;) {
        char **nn = realloc(t->name, (size_t)(t->ncol + 1) * sizeof(*nn)), unnamed[32];

        if (!nn)
            goto bad;
        t->name = nn;
        snprintf(unnamed, sizeof(unnamed), "column %d", t->ncol + 1);
        t->name[t->ncol] = strdup(*tok ? tok : unnamed);
        if (!t->name[t->ncol++])
            goto bad;
    }
    while ((len = getline(&line, &cap, f)) > 0) {
        const bool whole = line[len - 1] == '\n';
        char *p = line, *end;
        int i;

        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (!*line)
            continue; /* (a blank line) */
        if (t->nrow == rcap) {
            double *nv;

            rcap = rcap ? 2 * rcap : 4096;
            nv = realloc(t->v, (size_t)rcap * (size_t)t->ncol * sizeof(double));
            if (!nv)
                goto bad;
            t->v = nv;
        }
        for (i = 0; i < t->ncol; i++) {
            t->v[t->nrow * t->ncol + i] = strtod(p, &end);
            if (end == p || (*end != ',' && *end != '\0') || (*end == '\0') != (i == t->ncol - 1))
                break;
            p = end + (*end == ',');
        }
        if (!whole) {
            /* the file ends inside this line: a field may be cut (12 of 12.5e3) */
            fprintf(stderr,
                    "rtvd plot: %s:%ld: warning: the last line has no newline (cut short?): "
                    "left out, %ld complete rows plotted\n",
                    path, lineno, t->nrow);
            break;
        }
        if (i < t->ncol) {
            fprintf(stderr, "rtvd plot: %s:%ld: field %d: %s (the header has %d fields)\n", path,
                    lineno, i + 1,
                    end == p                      ? "not a number"
                    : *end != ',' && *end != '\0' ? "not a number"
                    : *end == '\0'                ? "the row ends early"
                                                  : "the row has more fields",
                    t->ncol);
            goto bad;
        }
        t->nrow++;
    }
    free(line);
    fclose(f);
    return t->ncol > 0 ? 0 : -EINVAL;
bad:
    free(line);
    fclose(f);
    table_free(t);
    return -EINVAL;
}

/* write an SVG via a callback, then its PNG with rsvg-convert; 0 or -1 */
static int emit(const char *prefix, const char *what, bool png, void (*draw)(FILE *f, void *ctx),
                void *ctx)
{
    char svg[1200], out[1200];
    FILE *f;

    snprintf(svg, sizeof(svg), "%s-%s.svg", prefix, what);
    f = fopen(svg, "w");
    if (!f) {
        fprintf(stderr, "rtvd plot: cannot write %s: %s\n", svg, strerror(errno));
        return -1;
    }
    draw(f, ctx);
    if (fclose(f)) {
        fprintf(stderr, "rtvd plot: cannot write %s\n", svg);
        return -1;
    }
    printf("rtvd plot: %s\n", svg);
    if (png) {
        char *argv[] = {"rsvg-convert", "-b", "white", "-o", out, svg, NULL};
        pid_t pid;
        int st = 0, rc;

        snprintf(out, sizeof(out), "%s-%s.png", prefix, what);
        rc = posix_spawnp(&pid, "rsvg-convert", NULL, NULL, argv, environ);
        if (rc || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
            fprintf(stderr,
                    "rtvd plot: no PNG: rsvg-convert %s (Debian librsvg2-bin; --no-png for SVG "
                    "only)\n",
                    rc ? strerror(rc) : "failed");
            return -1;
        }
        printf("rtvd plot: %s\n", out);
    }
    return 0;
}

/* --- the report's histograms --------------------------------------------------------------- */

struct hists {
    json_t *rep;
    const char *name;
    int n;         /* latency.buckets_us, checked: [1, VD_HIST_MAX_US] */
    double *h, *x; /* (n) work */
};

/* bucket counts of a report histogram into h[0, n); the highest non-empty bucket */
static int hist_buckets(json_t *o, double *h, int n)
{
    const char *k;
    json_t *v;
    int top = 0;

    memset(h, 0, (size_t)n * sizeof(*h));
    json_object_foreach(json_object_get(o, "histogram"), k, v)
    {
        const int i = atoi(k);

        if (i >= 0 && i < n) {
            h[i] = (double)json_integer_value(v);
            if (h[i] > 0 && i > top)
                top = i;
        }
    }
    return top;
}

/* the p-quantile [us] of a histogram of n 1-us buckets and `over` samples beyond them (the
 * upper edge of the bucket it falls in); INFINITY when it falls among those beyond */
static double pct_from(const double *h, int n, double over, double p)
{
    double total = over, acc = 0;

    for (int i = 0; i < n; i++)
        total += h[i];
    for (int i = 0; i < n; i++) {
        acc += h[i];
        if (acc >= p * total)
            return i + 1;
    }
    return total > 0 ? INFINITY : 0;
}

static void draw_hists(FILE *f, void *ctx)
{
    static const char *const q[3] = {"latency", "execution", "turnaround"};
    static const char *const label[3] = {"wake-up latency", "execution", "turnaround"};
    const struct hists *hs = ctx;
    json_t *cfg = json_object_get(hs->rep, "config");
    const int n = hs->n;
    const double period = json_number_value(json_object_get(cfg, "period_us"));
    double *h = hs->h, *x = hs->x, ymax = 1;
    char title[600], leg[200];
    struct svg_panel p;
    int top = 1;

    for (int i = 0; i < n; i++)
        x[i] = i;
    for (int k = 0; k < 3; k++) {
        const int t = hist_buckets(json_object_get(hs->rep, q[k]), h, n);

        top = t > top ? t : top;
        for (int i = 0; i < n; i++)
            ymax = h[i] > ymax ? h[i] : ymax;
    }
    snprintf(title, sizeof(title), "%s: latency histograms (1 us buckets), %s, %s",
             json_string_value(json_object_get(cfg, "name")),
             json_string_value(json_object_get(json_object_get(hs->rep, "uname"), "release")),
             json_is_true(json_object_get(hs->rep, "preempt_rt")) ? "PREEMPT_RT" : "not RT");
    svg_begin(f, 1000, 560, title);
    svg_panel(&p, f, 10, 36, 980, 520, 0, top + 10 > period * 1.05 ? top + 10 : period * 1.05, 0.5,
              pow(10, ceil(log10(ymax * 2))), true, "time [us]", "samples (log)",
              "wake-up latency, execution and turnaround per cycle", NULL, 0);
    p.legend_x = p.x + p.w * 0.45;
    for (int k = 0; k < 3; k++) {
        json_t *o = json_object_get(hs->rep, q[k]);

        hist_buckets(o, h, n);
        svg_steps(&p, x, h, n, 1.0, colours[k], 1.5);
        snprintf(leg, sizeof(leg), "%s: min %.1f avg %.1f max %.1f us, %lld over", label[k],
                 json_number_value(json_object_get(o, "min_us")),
                 json_number_value(json_object_get(o, "avg_us")),
                 json_number_value(json_object_get(o, "max_us")),
                 (long long)json_integer_value(json_object_get(o, "overflows")));
        svg_legend(&p, colours[k], leg);
    }
    {
        /* the deadline as a vertical line */
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" "
                "stroke-dasharray=\"6 4\" stroke-width=\"1.5\"/>\n<text x=\"%.1f\" y=\"%.1f\" "
                "fill=\"#d62728\" text-anchor=\"end\">deadline %.0f us</text>\n",
                svg_px(&p, period), p.y, svg_px(&p, period), p.y + p.h, svg_px(&p, period) - 4,
                p.y + p.h - 6, period);
    }
    svg_end(f);
}

/* --- the stages ----------------------------------------------------------------------------- */

static void draw_stages(FILE *f, void *ctx)
{
    static const char *const st[4] = {"linearize", "assemble", "factor", "stages"};
    const struct hists *hs = ctx;
    json_t *stages = json_object_get(hs->rep, "stages");
    const int n = hs->n;
    double *h = hs->h, ymax = 1;
    double avg[4], p99[4], mx[4];
    struct svg_panel p;
    char lab[80];

    for (int s = 0; s < 4; s++) {
        json_t *o = json_object_get(stages, st[s]);

        hist_buckets(o, h, n);
        avg[s] = json_number_value(json_object_get(o, "avg_us"));
        mx[s] = json_number_value(json_object_get(o, "max_us"));
        p99[s] = pct_from(h, n, (double)json_integer_value(json_object_get(o, "overflows")), 0.99);
        ymax = mx[s] > ymax ? mx[s] : ymax;
    }
    svg_begin(f, 900, 460, "stage breakdown of the step (per stepped cycle)");
    svg_panel(&p, f, 10, 36, 880, 420, 0, 4, 0, ymax * 1.3, false, "stage of the step", "time [us]",
              "mean (dark), 99th percentile (light), maximum (line) of each core stage", st, 4);
    p.legend_x = p.x + 12;
    for (int s = 0; s < 4; s++) {
        svg_bar(&p, s + 0.15, 0.3, 0, avg[s], "#1f77b4");
        /* a p99 beyond the histogram's range: the bar to its end, labelled "> n" */
        svg_bar(&p, s + 0.5, 0.3, 0, isinf(p99[s]) ? n : p99[s], "#9ecae1");
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" "
                "stroke-width=\"2\"/>\n",
                svg_px(&p, s + 0.1), svg_py(&p, mx[s]), svg_px(&p, s + 0.9), svg_py(&p, mx[s]));
        if (isinf(p99[s]))
            snprintf(lab, sizeof(lab), "%s: %.1f / > %d / %.0f", st[s], avg[s], n, mx[s]);
        else
            snprintf(lab, sizeof(lab), "%s: %.1f / %.0f / %.0f", st[s], avg[s], p99[s], mx[s]);
        svg_text(&p, s + 0.5, mx[s], "middle", lab);
    }
    svg_legend(&p, "#1f77b4", "mean [us]");
    svg_legend(&p, "#9ecae1", "p99 [us] (1 us buckets)");
    svg_legend(&p, "#d62728", "max [us]");
    svg_end(f);
}

/* --- the timeline --------------------------------------------------------------------------- */

struct timeline {
    const char *source;
    double period_us;
    long n;
    double *cycle, *exec, *turn; /* (n) [us] */
    bool *ovr;
};

/* x, y decimated to at most MAX_POINTS (max of each bin, at the bin's start) into out */
static int decimate(const double *x, const double *y, long n, double *ox, double *oy)
{
    const long bin = n > MAX_POINTS ? (n + MAX_POINTS - 1) / MAX_POINTS : 1;
    int k = 0;

    for (long i = 0; i < n; i += bin) {
        double m = y[i];

        for (long j = i; j < i + bin && j < n; j++)
            m = y[j] > m ? y[j] : m;
        ox[k] = x[i];
        oy[k++] = m;
    }
    return k;
}

static void draw_timeline(FILE *f, void *ctx)
{
    const struct timeline *tl = ctx;
    double *ox = calloc(MAX_POINTS + 1, sizeof(double)),
           *oy = calloc(MAX_POINTS + 1, sizeof(double));
    double *mx = calloc((size_t)tl->n + 1, sizeof(double)),
           *my = calloc((size_t)tl->n + 1, sizeof(double));
    double ymax = tl->period_us * 1.1;
    char title[700], leg[120];
    struct svg_panel p;
    long nov = 0;
    int k;

    for (long i = 0; i < tl->n; i++) {
        ymax = tl->turn[i] > ymax ? tl->turn[i] : ymax;
        if (tl->ovr[i]) {
            mx[nov] = tl->cycle[i];
            my[nov++] = tl->turn[i];
        }
    }
    snprintf(title, sizeof(title), "execution and turnaround per cycle (%s)", tl->source);
    svg_begin(f, 1200, 520, title);
    svg_panel(&p, f, 10, 36, 1180, 480, tl->n ? tl->cycle[0] : 0, tl->n ? tl->cycle[tl->n - 1] : 1,
              0, ymax * 1.05, false,
              tl->n > MAX_POINTS ? "cycle (the maximum of each bin of cycles)" : "cycle",
              "time [us]", "turnaround (release to outputs) and execution (wake-up to outputs)",
              NULL, 0);
    p.legend_x = p.x + p.w - 180;
    k = decimate(tl->cycle, tl->turn, tl->n, ox, oy);
    svg_line(&p, ox, oy, k, "#ff7f0e", 1.2);
    k = decimate(tl->cycle, tl->exec, tl->n, ox, oy);
    svg_line(&p, ox, oy, k, "#2ca02c", 1.2);
    if (tl->period_us > 0)
        svg_hline(&p, tl->period_us, "#7f7f7f", "deadline");
    svg_markers(&p, mx, my, (int)nov, "#d62728", 4);
    svg_legend(&p, "#ff7f0e", "turnaround");
    svg_legend(&p, "#2ca02c", "execution");
    snprintf(leg, sizeof(leg), "overrun (%ld)", nov);
    svg_legend(&p, "#d62728", leg);
    svg_end(f);
    free(ox);
    free(oy);
    free(mx);
    free(my);
}

/* the per-cycle table (a --trace CSV in ns, or a recording in us) into tl; 0 or -1 */
static int timeline_from(struct timeline *tl, const struct table *t, const char *path)
{
    const bool trace = col(t, "turnaround_ns") >= 0;
    const int cc = col(t, "cycle"), ce = col(t, trace ? "exec_ns" : "execution"),
              ct = col(t, trace ? "turnaround_ns" : "turnaround"), cf = col(t, "flags");
    const double s = trace ? 1e-3 : 1.0;

    if (cc < 0 || ce < 0 || ct < 0 || cf < 0)
        return -1;
    tl->source = path;
    tl->n = t->nrow;
    tl->cycle = calloc((size_t)t->nrow + 1, sizeof(double));
    tl->exec = calloc((size_t)t->nrow + 1, sizeof(double));
    tl->turn = calloc((size_t)t->nrow + 1, sizeof(double));
    tl->ovr = calloc((size_t)t->nrow + 1, sizeof(bool));
    if (!tl->cycle || !tl->exec || !tl->turn || !tl->ovr)
        return -1;
    for (long i = 0; i < t->nrow; i++) {
        const double *r = &t->v[i * t->ncol];

        tl->cycle[i] = r[cc];
        tl->exec[i] = r[ce] * s;
        tl->turn[i] = r[ct] * s;
        tl->ovr[i] = ((long)r[cf] & 1) != 0;
    }
    return 0;
}

static void timeline_free(struct timeline *tl)
{
    free(tl->cycle);
    free(tl->exec);
    free(tl->turn);
    free(tl->ovr);
}

/* --- a recording's signals -------------------------------------------------------------- */

struct sigplot {
    const struct table *t;
    const char *source;
    int n;
    int c[MAX_SIGNALS];
};

static void draw_signals(FILE *f, void *ctx)
{
    const struct sigplot *sp = ctx;
    const struct table *t = sp->t;
    const double panel_h = 230;
    double *x = calloc((size_t)t->nrow + 1, sizeof(double)),
           *y = calloc((size_t)t->nrow + 1, sizeof(double));
    double *ox = calloc(MAX_POINTS + 1, sizeof(double)),
           *oy = calloc(MAX_POINTS + 1, sizeof(double));
    char title[700];

    snprintf(title, sizeof(title), "recorded signals (%s)", sp->source);
    svg_begin(f, 1000, (int)(40 + panel_h * sp->n), title);
    for (int s = 0; s < sp->n; s++) {
        double lo = INFINITY, hi = -INFINITY, pad;
        struct svg_panel p;
        int k;

        for (long i = 0; i < t->nrow; i++) {
            x[i] = t->v[i * t->ncol];
            y[i] = t->v[i * t->ncol + sp->c[s]];
            if (isfinite(y[i])) {
                lo = y[i] < lo ? y[i] : lo;
                hi = y[i] > hi ? y[i] : hi;
            }
        }
        if (!(hi >= lo))
            lo = hi = 0;
        pad = hi > lo ? 0.05 * (hi - lo) : (fabs(hi) > 0 ? 0.05 * fabs(hi) : 1);
        svg_panel(&p, f, 10, 36 + panel_h * s, 980, panel_h, t->nrow ? x[0] : 0,
                  t->nrow ? x[t->nrow - 1] : 1, lo - pad, hi + pad, false, "time [s]",
                  t->name[sp->c[s]], t->name[sp->c[s]], NULL, 0);
        /* every point up to MAX_POINTS, else every k-th (a signal, not a peak detector:
         * the timing channels' plot keeps each bin's maximum) */
        k = 0;
        /* (the step rounded up: rounded down, a long recording lost its end at the cap) */
        for (long i = 0;
             i<t->nrow; i += t->nrow> MAX_POINTS ? (t->nrow + MAX_POINTS - 1) / MAX_POINTS : 1) {
            ox[k] = x[i];
            oy[k++] = y[i];
            if (k >= MAX_POINTS)
                break;
        }
        svg_line(&p, ox, oy, k, colours[s % 8], 1.5);
    }
    svg_end(f);
    free(x);
    free(y);
    free(ox);
    free(oy);
}

/* --- the command ------------------------------------------------------------------------- */

static bool ends_with(const char *s, const char *suffix)
{
    const size_t a = strlen(s), b = strlen(suffix);

    return a >= b && !strcmp(s + a - b, suffix);
}

int cmd_plot(int argc, char **argv)
{
    static const struct option lopts[] = {
        {"out", required_argument, 0, 'o'},     {"cycles", required_argument, 0, 'c'},
        {"signals", required_argument, 0, 's'}, {"no-png", no_argument, 0, 'n'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    const char *out = NULL, *cycles = NULL, *signals = NULL, *in;
    char prefix[1100], stem[1100], path[1200];
    bool png = true;
    int ch, rc = 0;

    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
        switch (ch) {
        case 'o':
            out = optarg;
            break;
        case 'c':
            cycles = optarg;
            break;
        case 's':
            signals = optarg;
            break;
        case 'n':
            png = false;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (argc - optind != 1) {
        usage(stderr);
        return 2;
    }
    in = argv[optind];
    {
        const size_t cut = ends_with(in, "-report.json") ? 12
                           : ends_with(in, ".csv")       ? 4
                           : ends_with(in, ".json")      ? 5
                                                         : 0;

        snprintf(stem, sizeof(stem), "%.*s", (int)(strlen(in) - cut), in);
    }
    snprintf(prefix, sizeof(prefix), "%s", out ? out : stem);
    if (!out)
        snprintf(prefix + strlen(prefix), sizeof(prefix) - strlen(prefix), "-plot");

    if (ends_with(in, ".json")) {
        json_error_t err;
        json_t *rep = load_json(in, &err);
        struct hists hs = {rep, in, 0, NULL, NULL};
        struct table t;
        struct timeline tl = {0};

        if (!rep || !json_is_object(json_object_get(rep, "latency"))) {
            fprintf(stderr, "rtvd plot: %s:%d:%d: %s\n", in, err.line, err.column,
                    rep ? "not an rtvd run report (no \"latency\")" : err.text);
            json_decref(rep);
            return 1;
        }
        {
            /* the bucket count sizes the work arrays: from the file, so checked first */
            json_t *bj = json_object_get(json_object_get(rep, "latency"), "buckets_us");
            const json_int_t nb = json_integer_value(bj);

            if (!json_is_integer(bj) || nb < 1 || nb > VD_HIST_MAX_US) {
                fprintf(stderr,
                        "rtvd plot: %s: latency.buckets_us is not an integer in [1, %d]: not an "
                        "rtvd run report\n",
                        in, VD_HIST_MAX_US);
                json_decref(rep);
                return 1;
            }
            hs.n = (int)nb;
            hs.h = calloc((size_t)nb, sizeof(double));
            hs.x = calloc((size_t)nb, sizeof(double));
            if (!hs.h || !hs.x) {
                fprintf(stderr, "rtvd plot: %s: out of memory\n", in);
                free(hs.h);
                free(hs.x);
                json_decref(rep);
                return 1;
            }
        }
        rc |= emit(prefix, "histograms", png, draw_hists, &hs);
        rc |= emit(prefix, "stages", png, draw_stages, &hs);
        /* the per-cycle data: --cycles, the trace, or the default recording */
        {
            const char *cand[3] = {cycles, NULL, NULL};
            char a[1200], b[1200];
            int found = 0;

            snprintf(a, sizeof(a), "%s-cycles.csv", stem);
            snprintf(b, sizeof(b), "%s-record.csv", stem);
            cand[1] = a;
            cand[2] = b;
            for (int i = 0; i < 3 && !found; i++) {
                if (!cand[i] || read_csv(cand[i], &t))
                    continue;
                tl.period_us =
                    json_number_value(json_object_get(json_object_get(rep, "config"), "period_us"));
                if (timeline_from(&tl, &t, cand[i]) == 0) {
                    rc |= emit(prefix, "timeline", png, draw_timeline, &tl);
                    found = 1;
                } else {
                    fprintf(stderr, "rtvd plot: %s has no cycle, execution, turnaround, flags\n",
                            cand[i]);
                }
                timeline_free(&tl);
                table_free(&t);
            }
            if (cycles && !found) {
                fprintf(stderr, "rtvd plot: cannot read the cycles in %s\n", cycles);
                rc = -1;
            } else if (!found) {
                printf("rtvd plot: no timeline: neither %s nor %s (rtvd run --trace or "
                       "record: writes one; --cycles names another)\n",
                       a, b);
            }
        }
        free(hs.h);
        free(hs.x);
        json_decref(rep);
        return rc ? 1 : 0;
    }

    /* a recording */
    {
        struct table t;
        struct sigplot sp = {&t, in, 0, {0}};
        struct timeline tl = {0};
        int e = read_csv(in, &t);

        if (e) {
            fprintf(stderr, "rtvd plot: %s: %s\n", in,
                    e == -EISDIR || e == -ENODEV || e == -EFBIG || e == -ENOENT || e == -EACCES
                        ? input_error(-e)
                        : "not a CSV of numbers with a header line");
            return 1;
        }
        if (signals) {
            char buf[2048], *save, *tok;

            snprintf(buf, sizeof(buf), "%s", signals);
            for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                const int c = col(&t, tok);

                if (c < 1 || sp.n >= MAX_SIGNALS) {
                    fprintf(stderr, "rtvd plot: %s: %s\n", in,
                            c < 1 ? "no such signal column" : "too many signals");
                    fprintf(stderr, "  (%s)\n", tok);
                    table_free(&t);
                    return 1;
                }
                sp.c[sp.n++] = c;
            }
        } else {
            /* after the timing channels of a recording, else from the second column */
            const int s0 = col(&t, "skipped") >= 0 ? col(&t, "skipped") + 1 : 1;

            for (int c = s0; c < t.ncol && sp.n < 4; c++)
                sp.c[sp.n++] = c;
        }
        if (sp.n > 0)
            rc |= emit(prefix, "signals", png, draw_signals, &sp);
        else
            printf("rtvd plot: %s: no signal columns\n", in);
        if (col(&t, "turnaround") >= 0 && col(&t, "cycle") >= 0 && col(&t, "flags") >= 0) {
            /* the deadline from the run's report beside a default recording
             * (<prefix>-record.csv beside <prefix>-report.json), else none */
            tl.period_us = 0;
            if (ends_with(stem, "-record")) {
                json_t *rep;

                snprintf(path, sizeof(path), "%.*s-report.json", (int)strlen(stem) - 7, stem);
                {
                    json_error_t jerr;

                    rep = load_json(path, &jerr);
                }
                tl.period_us =
                    json_number_value(json_object_get(json_object_get(rep, "config"), "period_us"));
                json_decref(rep);
            }
            if (timeline_from(&tl, &t, in) == 0)
                rc |= emit(prefix, "timeline", png, draw_timeline, &tl);
            timeline_free(&tl);
        }
        table_free(&t);
    }
    return rc ? 1 : 0;
}
