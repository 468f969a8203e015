/* rt/tracemark.h - overrun markers in the kernel's trace (ftrace's trace_marker), after
 * cyclictest's --tracemark: the fd is opened once at init; on an overrun the loop thread
 * formats one line without stdio and writes it with one write(2), so a trace captured with
 * trace-cmd or rtla shows the overrun beside what the scheduler did on that CPU. The write
 * goes into the ftrace ring buffer (it does not block); the path may also be a FIFO or a
 * regular file (tests, machines without tracefs), opened O_NONBLOCK so that a full FIFO
 * counts an error instead of blocking the loop.
 * vd_tracemark_open/close: init only. vd_tracemark_line/write: RT-safe (no allocation, one
 * non-blocking syscall). */
#ifndef VD_RT_TRACEMARK_H
#define VD_RT_TRACEMARK_H

#include <stddef.h>
#include <stdint.h>

#define VD_TRACEMARK_DEFAULT  "/sys/kernel/tracing/trace_marker"
#define VD_TRACEMARK_DEBUGFS  "/sys/kernel/debug/tracing/trace_marker"
#define VD_TRACEMARK_LINE_MAX 192

/* init-time */
/* open path for writing (NULL: the tracefs marker, else its debugfs path); fd or -errno */
int vd_tracemark_open(const char *path);
void vd_tracemark_close(int fd);

/* RT-safe */
/* "rtvd: overrun cycle=C turnaround_ns=T overrun_ns=O latency_ns=L missed=M[ grace]\n" into
 * buf (VD_TRACEMARK_LINE_MAX); its length */
size_t vd_tracemark_line(char *buf, uint64_t cycle, int64_t turnaround_ns, int64_t overrun_ns,
                         int64_t latency_ns, int64_t missed, int grace);
/* one write of buf[0, n); 0 or -errno (a short write is -EIO) */
int vd_tracemark_write(int fd, const char *buf, size_t n);

#endif /* VD_RT_TRACEMARK_H */
