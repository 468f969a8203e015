/* io/record.c - CSV time series. */
#include "record.h"

#include <errno.h>
#include <string.h>

int vd_record_open(struct vd_record *rec, const char *path, int ncol, const char *const *names)
{
    memset(rec, 0, sizeof(*rec));
    if (!strcmp(path, "-")) {
        rec->f = stdout;
    } else {
        rec->f = fopen(path, "w");
        if (!rec->f)
            return -errno;
        rec->own = 1;
    }
    rec->ncol = ncol;
    fputs("t", rec->f);
    for (int i = 0; i < ncol; i++)
        fprintf(rec->f, ",%s", names[i]);
    fputc('\n', rec->f);
    return ferror(rec->f) ? -EIO : 0;
}

int vd_record_row(struct vd_record *rec, double t, const double *values)
{
    fprintf(rec->f, "%.10g", t);
    for (int i = 0; i < rec->ncol; i++)
        fprintf(rec->f, ",%.10g", values[i]);
    fputc('\n', rec->f);
    return ferror(rec->f) ? -EIO : 0;
}

int vd_record_close(struct vd_record *rec)
{
    int rc = 0;

    if (!rec->f)
        return 0;
    if (fflush(rec->f) || ferror(rec->f))
        rc = -EIO;
    if (rec->own && fclose(rec->f))
        rc = -EIO;
    rec->f = NULL;
    return rc;
}
