/* app/svgplot.c - SVG charts for rtvd plot. */
#include "svgplot.h"

#include <math.h>
#include <string.h>

static void esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '&')
            fputs("&amp;", f);
        else
            fputc(*s, f);
    }
}

void svg_begin(FILE *f, int width, int height, const char *title)
{
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 "
            "%d %d\" font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"12\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n"
            "<text x=\"%d\" y=\"22\" text-anchor=\"middle\" font-size=\"15\" "
            "font-weight=\"bold\">",
            width, height, width, height, width / 2);
    esc(f, title);
    fputs("</text>\n", f);
}

void svg_end(FILE *f)
{
    fputs("</svg>\n", f);
}

double svg_px(const struct svg_panel *p, double x)
{
    return p->x + (x - p->x0) / (p->x1 > p->x0 ? p->x1 - p->x0 : 1.0) * p->w;
}

double svg_py(const struct svg_panel *p, double y)
{
    double a = p->y0, b = p->y1, v = y;

    if (p->ylog) {
        a = log10(a);
        b = log10(b);
        v = log10(y > 0 ? y : p->y0 * 0.5);
    }
    v = p->y + p->h - (v - a) / (b > a ? b - a : 1.0) * p->h;
    /* clip to the panel (a little outside for the frame) */
    return v < p->y - 2 ? p->y - 2 : v > p->y + p->h + 2 ? p->y + p->h + 2 : v;
}

/* 1, 2 or 5 x 10^k steps, about n of them */
static double nice_step(double span, int n)
{
    const double raw = span / n, p = pow(10, floor(log10(raw))), m = raw / p;

    return (m < 1.5 ? 1 : m < 3 ? 2 : m < 7 ? 5 : 10) * p;
}

/* the ticks of [a, b] at step s: the first one and how many, at most SVG_TICKS_MAX (0 when
 * the step does not move a value of the range: a span at the last digits of its values) */
#define SVG_TICKS_MAX 64
static int ticks(double a, double b, double s, double *first)
{
    const double v0 = ceil(a / s) * s;
    const double n = floor((b - v0) / s + 1e-9) + 1;

    *first = v0;
    if (!(s > 0) || !isfinite(v0) || !(n >= 1) || v0 + s == v0 || b + s == b)
        return 0;
    return n > SVG_TICKS_MAX ? SVG_TICKS_MAX : (int)n;
}

/* a range of at least a few units of its values' last digits (x1 > x0 on return) */
static void widen(double *x0, double *x1)
{
    double mag, min;

    if (!isfinite(*x0) || !isfinite(*x1)) {
        *x0 = isfinite(*x0) ? *x0 : isfinite(*x1) ? *x1 - 1.0 : 0.0;
        *x1 = *x0 + 1.0;
    }
    mag = fmax(fabs(*x0), fabs(*x1));
    min = fmax(1e-300, mag * 1e-12);
    if (!(*x1 - *x0 >= min)) {
        const double c = 0.5 * (*x0 + *x1), h = fmax(0.5, mag * 1e-9);

        *x0 = c - h;
        *x1 = c + h;
    }
}

static void tick_label(char *buf, size_t n, double v, double step)
{
    if (fabs(v) < step * 1e-9)
        v = 0;
    if (fabs(v) >= 1e5 || (fabs(v) < 1e-3 && v != 0))
        snprintf(buf, n, "%.3g", v);
    else
        snprintf(buf, n, "%.*f", step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9), v);
}

void svg_panel(struct svg_panel *p, FILE *f, double px, double py, double pw, double ph, double x0,
               double x1, double y0, double y1, bool ylog, const char *xlabel, const char *ylabel,
               const char *title, const char *const *cat, int ncat)
{
    char lab[48];

    memset(p, 0, sizeof(*p));
    p->f = f;
    p->x = px + 70;
    p->y = py + 28;
    p->w = pw - 90;
    p->h = ph - 70;
    widen(&x0, &x1);
    if (!ylog)
        widen(&y0, &y1);
    else if (!(y0 > 0 && y0 < INFINITY))
        y0 = 1.0; /* (a log axis starts above 0) */
    p->x0 = x0;
    p->x1 = x1;
    p->y0 = y0;
    p->y1 = y1 > y0 && y1 < INFINITY ? y1 : y0 * 10;
    p->ylog = ylog;
    p->legend_x = p->x + p->w * 0.55;
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" font-weight=\"bold\">", p->x, py + 18);
    esc(f, title);
    fputs("</text>\n<g stroke=\"#dddddd\" stroke-width=\"1\">\n", f);
    /* y grid and labels */
    if (ylog) {
        for (double e = ceil(log10(p->y0)), e1 = fmin(log10(p->y1), e + SVG_TICKS_MAX);
             e <= e1 + 1e-9; e++)
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", p->x,
                    svg_py(p, pow(10, e)), p->x + p->w, svg_py(p, pow(10, e)));
    } else {
        const double s = nice_step(p->y1 - p->y0, 6);
        double v0;
        const int nt = ticks(p->y0, p->y1, s, &v0);

        for (int i = 0; i < nt; i++)
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", p->x,
                    svg_py(p, v0 + i * s), p->x + p->w, svg_py(p, v0 + i * s));
    }
    if (ncat > 0) {
        fputs("</g>\n<g fill=\"#333333\" text-anchor=\"middle\">\n", f);
        for (int i = 0; i < ncat; i++) {
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", svg_px(p, i + 0.5), p->y + p->h + 16);
            esc(f, cat[i]);
            fputs("</text>\n", f);
        }
    } else {
        const double s = nice_step(p->x1 - p->x0, 8);
        double v0;
        const int nt = ticks(p->x0, p->x1, s, &v0);

        for (int i = 0; i < nt; i++)
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                    svg_px(p, v0 + i * s), p->y, svg_px(p, v0 + i * s), p->y + p->h);
        fputs("</g>\n<g fill=\"#333333\" text-anchor=\"middle\">\n", f);
        for (int i = 0; i < nt; i++) {
            const double v = v0 + i * s;

            tick_label(lab, sizeof(lab), v, s);
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", svg_px(p, v), p->y + p->h + 16,
                    lab);
        }
    }
    fputs("</g>\n<g fill=\"#333333\" text-anchor=\"end\">\n", f);
    if (ylog) {
        for (double e = ceil(log10(p->y0)), e1 = fmin(log10(p->y1), e + SVG_TICKS_MAX);
             e <= e1 + 1e-9; e++)
            fprintf(f,
                    "<text x=\"%.1f\" y=\"%.1f\">10<tspan dy=\"-5\" font-size=\"9\">%.0f</tspan>"
                    "</text>\n",
                    p->x - 10, svg_py(p, pow(10, e)) + 4, e + 0.0);
    } else {
        const double s = nice_step(p->y1 - p->y0, 6);
        double v0;
        const int nt = ticks(p->y0, p->y1, s, &v0);

        for (int i = 0; i < nt; i++) {
            const double v = v0 + i * s;

            tick_label(lab, sizeof(lab), v, s);
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", p->x - 6, svg_py(p, v) + 4, lab);
        }
    }
    fprintf(f,
            "</g>\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
            "stroke=\"#333333\"/>\n<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
            p->x, p->y, p->w, p->h, p->x + p->w / 2, p->y + p->h + 34);
    esc(f, xlabel);
    fprintf(f,
            "</text>\n<text transform=\"translate(%.1f,%.1f) rotate(-90)\" "
            "text-anchor=\"middle\">",
            px + 16, p->y + p->h / 2);
    esc(f, ylabel);
    fputs("</text>\n", f);
}

void svg_line(struct svg_panel *p, const double *x, const double *y, int n, const char *colour,
              double width)
{
    bool pen = false;

    fprintf(p->f, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" d=\"", colour, width);
    for (int i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i])) {
            pen = false;
            continue;
        }
        fprintf(p->f, "%s%.1f %.1f", pen ? " L" : " M", svg_px(p, x[i]), svg_py(p, y[i]));
        pen = true;
    }
    fputs("\"/>\n", p->f);
}

void svg_steps(struct svg_panel *p, const double *x, const double *y, int n, double dx,
               const char *colour, double width)
{
    bool pen = false;

    fprintf(p->f, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" d=\"", colour, width);
    for (int i = 0; i < n; i++) {
        if (!isfinite(y[i]) || y[i] <= 0) {
            if (pen)
                fprintf(p->f, " L%.1f %.1f", svg_px(p, x[i]), svg_py(p, p->y0));
            pen = false;
            continue;
        }
        if (!pen)
            fprintf(p->f, " M%.1f %.1f", svg_px(p, x[i]), svg_py(p, p->y0));
        fprintf(p->f, " L%.1f %.1f L%.1f %.1f", svg_px(p, x[i]), svg_py(p, y[i]),
                svg_px(p, x[i] + dx), svg_py(p, y[i]));
        pen = true;
    }
    if (pen && n > 0)
        fprintf(p->f, " L%.1f %.1f", svg_px(p, x[n - 1] + dx), svg_py(p, p->y0));
    fputs("\"/>\n", p->f);
}

void svg_markers(struct svg_panel *p, const double *x, const double *y, int n, const char *colour,
                 double r)
{
    fprintf(p->f, "<g fill=\"%s\">\n", colour);
    for (int i = 0; i < n; i++)
        if (isfinite(x[i]) && isfinite(y[i]))
            fprintf(p->f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"/>\n", svg_px(p, x[i]),
                    svg_py(p, y[i]), r);
    fputs("</g>\n", p->f);
}

void svg_bar(struct svg_panel *p, double x, double dx, double base, double y, const char *colour)
{
    const double a = svg_py(p, base), b = svg_py(p, y);

    fprintf(p->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
            svg_px(p, x), a < b ? a : b, svg_px(p, x + dx) - svg_px(p, x), fabs(a - b), colour);
}

void svg_hline(struct svg_panel *p, double y, const char *colour, const char *label)
{
    fprintf(p->f,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
            "stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n",
            p->x, svg_py(p, y), p->x + p->w, svg_py(p, y), colour);
    if (label) {
        fprintf(p->f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"%s\">",
                p->x + p->w - 4, svg_py(p, y) - 4, colour);
        esc(p->f, label);
        fputs("</text>\n", p->f);
    }
}

void svg_legend(struct svg_panel *p, const char *colour, const char *text)
{
    const double y = p->y + 16 + 16 * p->nlegend, x = p->legend_x;

    fprintf(p->f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"10\" fill=\"%s\"/>\n<text "
            "x=\"%.1f\" y=\"%.1f\">",
            x, y - 9, colour, x + 20, y);
    esc(p->f, text);
    fputs("</text>\n", p->f);
    p->nlegend++;
}

void svg_text(struct svg_panel *p, double x, double y, const char *anchor, const char *text)
{
    fprintf(p->f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", svg_px(p, x), svg_py(p, y),
            anchor);
    esc(p->f, text);
    fputs("</text>\n", p->f);
}
