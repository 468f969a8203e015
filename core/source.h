/* core/source.h - the input signals of a model (`inputs[j].signal` of a model file): per
 * input a sum of terms (constant, step, ramp, sine, sweep, table), evaluated by the loop.
 * Owns the terms and the table points; config/sources.c parses them from YAML.
 * vd_source_new/free/push/begin/end: init only (allocate). vd_source_eval: RT-safe, no
 * allocation, no syscalls. */
#ifndef VD_CORE_SOURCE_H
#define VD_CORE_SOURCE_H

enum vd_src_kind {
    VD_SRC_CONST = 0,
    VD_SRC_STEP,
    VD_SRC_RAMP,
    VD_SRC_SINE,
    VD_SRC_SWEEP,
    VD_SRC_TABLE
};

/* one term; values in the unit of the input ([N] or [N m]), times [s], frequencies [Hz] */
struct vd_src_term {
    int kind; /* enum vd_src_kind */
    union {
        double value;
        struct {
            double time, before, after;
        } step;
        struct {
            double start, end, from, to;
        } ramp;
        struct {
            double amplitude, frequency, phase, offset, start; /* phase [rad] */
        } sine;
        struct {
            double offset, amplitude, f0, f1, start, end;
        } sweep;
        struct {
            int n, off; /* points in tx/ty */
        } table;
    } p;
};

struct vd_source {
    int ninput, cap_in;
    int *first;               /* (ninput) terms of input j: first[j] .. first[j] + count[j] - 1 */
    int *count;               /* (ninput) */
    struct vd_src_term *term; /* (nterm) */
    int nterm, cap_term;
    double *tx, *ty; /* [s], [N | N m] (npt) table points */
    int npt, cap_pt;
};

/* signals for ninput inputs, all zero until added; NULL when out of memory */
struct vd_source *vd_source_new(int ninput);
void vd_source_free(struct vd_source *s);
/* start the terms of input j, replacing what it had (inputs past the end are added with zero
 * signals in between); 0 or -ENOMEM */
int vd_source_begin(struct vd_source *s, int j);
/* append one term to the input begun last; 0 or -ENOMEM */
int vd_source_push_term(struct vd_source *s, const struct vd_src_term *g);
/* append n table points; *off gets their offset (for vd_src_term.p.table.off); 0 or -ENOMEM */
int vd_source_push_points(struct vd_source *s, const double *x, const double *y, int n, int *off);
/* close input j begun by vd_source_begin */
void vd_source_end(struct vd_source *s, int j);
/* number of inputs the signals cover */
int vd_source_count(const struct vd_source *s);

/* RT-safe: u[j] = the signal of input j at time t [s], for every input j < vd_source_count;
 * the signature of a model input callback (ctx: struct vd_source *) */
void vd_source_eval(void *ctx, double t, double *u);

#endif /* VD_CORE_SOURCE_H */
