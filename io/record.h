/* io/record.h - time-series recording to CSV (rtvd sim). Owns one FILE and the column
 * names. Not RT-safe (stdio): the real-time path records through rt/ rings instead.
 * vd_record_open/close: may allocate and block; vd_record_row: buffered stdio. */
#ifndef VD_IO_RECORD_H
#define VD_IO_RECORD_H

#include <stdio.h>

struct vd_record {
    FILE *f;
    int ncol;
    int own; /* close f at the end (not stdout) */
};

/* path "-" means stdout. Writes the header "t,<names...>". 0 or -errno. */
int vd_record_open(struct vd_record *rec, const char *path, int ncol, const char *const *names);
/* one row: time [s] and ncol values, %.10g. 0 or -EIO */
int vd_record_row(struct vd_record *rec, double t, const double *values);
/* flush and close; 0 or -EIO if anything failed to reach the file */
int vd_record_close(struct vd_record *rec);

#endif /* VD_IO_RECORD_H */
