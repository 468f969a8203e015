/* app/svgplot.h - a small SVG chart writer for rtvd plot: one panel with axes (linear, or
 * log10 on y), nice ticks, grid, polylines, steps, markers, bars, a dashed reference line
 * and a legend; several panels stacked in one file. SVG 1.1 text written with stdio; no
 * dependency (a PNG is made from it by Debian's rsvg-convert). Exit-time code, allocates
 * nothing beyond stdio. */
#ifndef VD_APP_SVGPLOT_H
#define VD_APP_SVGPLOT_H

#include <stdbool.h>
#include <stdio.h>

struct svg_panel {
    FILE *f;
    double x, y, w, h;     /* [px] the plot area inside the panel */
    double x0, x1, y0, y1; /* data range */
    bool ylog;
    int nlegend;
    double legend_x; /* [px] left edge of the legend */
};

/* the file: width x height px, a title on top */
void svg_begin(FILE *f, int width, int height, const char *title);
void svg_end(FILE *f);
/* a panel at (px, py) of pw x ph px with axes and labels over [x0, x1] x [y0, y1]; ylog:
 * log10 y axis (y0 > 0); ncat > 0: a category axis instead of x ticks, category i centred at
 * x = i + 0.5 with the name cat[i] (x0 = 0, x1 = ncat) */
void svg_panel(struct svg_panel *p, FILE *f, double px, double py, double pw, double ph, double x0,
               double x1, double y0, double y1, bool ylog, const char *xlabel, const char *ylabel,
               const char *title, const char *const *cat, int ncat);
/* data -> pixel */
double svg_px(const struct svg_panel *p, double x);
double svg_py(const struct svg_panel *p, double y);
/* a polyline through n points (NaN: a break), colour "#rrggbb" */
void svg_line(struct svg_panel *p, const double *x, const double *y, int n, const char *colour,
              double width);
/* a step curve (histogram outline): y[i] over [x[i], x[i] + dx) */
void svg_steps(struct svg_panel *p, const double *x, const double *y, int n, double dx,
               const char *colour, double width);
/* circles of radius r at the points */
void svg_markers(struct svg_panel *p, const double *x, const double *y, int n, const char *colour,
                 double r);
/* a bar from y = base to y at x, width dx (data units) */
void svg_bar(struct svg_panel *p, double x, double dx, double base, double y, const char *colour);
/* a dashed horizontal line at y */
void svg_hline(struct svg_panel *p, double y, const char *colour, const char *label);
/* a legend entry (top right, stacked) */
void svg_legend(struct svg_panel *p, const char *colour, const char *text);
/* text at data coordinates, anchor "start" | "middle" | "end" */
void svg_text(struct svg_panel *p, double x, double y, const char *anchor, const char *text);

#endif /* VD_APP_SVGPLOT_H */
