/* app/ref_common.h - pieces the SUNDIALS references share (app/ref_cvode.c, app/ref_ida.c),
 * defined in ref_cvode.c; app_ref_scan_jumps and app_cvode_input_bodies are in ref_cvode.h. */
#ifndef VD_APP_REF_COMMON_H
#define VD_APP_REF_COMMON_H

#include <sundials/sundials_types.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include "core/model.h"

/* res = M^-1 x for the 6 rows of body b: x / m (translation), I^-1 x (rotation) */
void app_ref_minv_body(const struct vd_model *m, int b, double res[6], const double x[6]);
/* the CSC matrix J (n x n, room for nnz) from the run's pattern (colptr, rowval) and the
 * dense Jacobian jd (column-major, n x n): SUNDIALS zeroes the index arrays along with the
 * values, so they are set on every call */
void app_ref_csc_fill(SUNMatrix J, sunindextype n, sunindextype nnz, const sunindextype *colptr,
                      const sunindextype *rowval, const double *jd);

#endif /* VD_APP_REF_COMMON_H */
