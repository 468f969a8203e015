/* app/ref_common.h - pieces the SUNDIALS references share (app/ref_cvode.c, app/ref_ida.c),
 * defined in ref_cvode.c; app_ref_scan_jumps and app_cvode_input_bodies are in ref_cvode.h. */
#ifndef VD_APP_REF_COMMON_H
#define VD_APP_REF_COMMON_H

#include <sundials/sundials_types.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <stdbool.h>

#include "core/model.h"
#include "ref_cvode.h"

/* res = M^-1 x for the 6 rows of body b: x / m (translation), I^-1 x (rotation) */
void app_ref_minv_body(const struct vd_model *m, int b, double res[6], const double x[6]);
/* the CSC matrix J (n x n, room for nnz) from the run's pattern (colptr, rowval) and the
 * dense Jacobian jd (column-major, n x n): SUNDIALS zeroes the index arrays along with the
 * values, so they are set on every call */
void app_ref_csc_fill(SUNMatrix J, sunindextype n, sunindextype nnz, const sunindextype *colptr,
                      const sunindextype *rowval, const double *jd);

/* the input-jump segments of a run (see "input jumps" in ref_cvode.c): the solver integrates
 * up to `end` and restarts there; the inputs are evaluated inside [tu_min, tu_max], the
 * segment's side of its jumps */
struct app_ref_segs {
    const struct app_jump *jump;
    int n, i;              /* jumps, the next one */
    double eps, t_end;     /* [s] */
    double tu_min, tu_max; /* [s] input time window of the current segment */
    double end;            /* [s] where the current segment ends */
};

/* the first segment from t0; a jump (nearly) at t0 applies from the start */
void app_ref_segs_start(struct app_ref_segs *s, const struct app_jump *jump, int n, double t0,
                        double t_end, double eps);
/* at an accepted time tcur: true when tcur ends a segment before t_end (the solver then
 * restarts), with s moved to the next segment */
bool app_ref_segs_next(struct app_ref_segs *s, double tcur);
/* the time the inputs are evaluated at for a solver's t */
double app_ref_segs_tu(const struct app_ref_segs *s, double t);

#endif /* VD_APP_REF_COMMON_H */
