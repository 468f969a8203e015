/* app/recording.h - the recording thread of rtvd run: a SCHED_OTHER thread beside the loop
 * that drains the loop's recording ring (rt/loop.h: per cycle the cycle record and the
 * recorded outputs) and writes every record to CSV and/or MDF4 files (io/recorder.h), rotated
 * by size or time. The glue between rt and io (as the CAN thread, app/canlink.h). Bounded
 * memory: the ring (2^order records, allocated by the loop) and the writers' buffers; when the
 * writer falls behind, the loop's pushes into the full ring are dropped and counted (the
 * loop never waits), and the gaps in the cycle numbers are counted here.
 * Channels after the time master (the release of the cycle [s] since the recording was set
 * up, whose UTC is the MDF4 file's start time): cycle, t_model [s],
 * latency, execution, turnaround [us], linearize, assemble, factor, stages [us], overrun (0/1),
 * flags (rt/loop.h enum vd_cycle_flags), skipped (releases), then the recorded signals.
 * Owns the thread, the recorder and its channel table.
 * app_recording_init/start/join/free: init/exit. The thread: no allocation after its start. */
#ifndef VD_APP_RECORDING_H
#define VD_APP_RECORDING_H

#include <stdatomic.h>
#include <stdint.h>

#include "io/recorder.h"
#include "rt/loop.h"
#include "rt/sched.h"

#define APP_REC_FIXED 12 /* channels before the signals */

struct app_recording_cfg {
    const char *path;         /* file name without extension */
    int formats;              /* VD_REC_CSV | VD_REC_MDF4 */
    double rotate_mb;         /* [MiB] 0: no size rotation */
    double rotate_s;          /* [s] 0: no time rotation */
    const char *const *names; /* (loop cfg.rec_nsig) the recorded signals' names */
    int64_t start_utc_ns;     /* [ns since the epoch] when the first release happens */
    const char *comment, *version;
};

struct app_recording {
    struct vd_loop *L;
    struct vd_recorder rec;
    struct vd_mdf4_chan *ch; /* (nch) */
    int nch;
    uint64_t *bits;     /* (nch) one row */
    unsigned char *buf; /* one ring record */
    struct vd_thread thread;
    int64_t t0_ns;     /* [ns] CLOCK_MONOTONIC of the time master's 0 (at init) */
    int64_t t0_utc_ns; /* [ns since the epoch] the same instant: the MDF4 start time */
    bool open;
    /* the thread's counters; read after app_recording_join */
    uint64_t records; /* records taken from the ring */
    uint64_t gaps;    /* cycles missing in the sequence (ring full) */
    uint64_t next_cycle;
    int write_rc; /* the recorder's first error */
};

/* init-time: the channel table and the first file(s); 0 or -errno */
int app_recording_init(struct app_recording *r, struct vd_loop *L,
                       const struct app_recording_cfg *cfg);
/* start the thread after vd_loop_start (the first release is known); 0 or -errno */
int app_recording_start(struct app_recording *r);
/* wait until the loop is done and every record is written, then close the files */
int app_recording_join(struct app_recording *r);
void app_recording_free(struct app_recording *r);

#endif /* VD_APP_RECORDING_H */
