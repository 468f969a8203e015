/* rt/check.h - inspection of a box for hard real time (`rtvd check`): each item reads files
 * under an injectable root (sys/..., proc/..., dev/..., etc/...), so the tests run every
 * item against fake trees, and returns PASS, WARN or FAIL with the finding and the fix.
 * Items: preempt_rt, rt_group_sched, isolcpus, nohz_full, rcu_nocbs, rt_throttling,
 * cpu_governor, smt_sibling, irq_affinity, irqbalance, memlock, rtprio, openblas,
 * clocksource, cpu_dma_latency. rt/fixplan.h turns the WARNs and FAILs into the changes.
 * Owns nothing. Init-time only (reads files, may sleep to sample CPU load). */
#ifndef VD_RT_CHECK_H
#define VD_RT_CHECK_H

#include <stddef.h>
#include <stdint.h>

enum vd_check_level { VD_CHECK_PASS = 0, VD_CHECK_WARN, VD_CHECK_FAIL };

#define VD_CHECK_ITEMS 15

struct vd_check_item {
    const char *item; /* e.g. "isolcpus" */
    int level;        /* enum vd_check_level */
    char finding[320];
    char fix[320]; /* empty for PASS */
};

struct vd_check_env {
    const char *root;        /* "/" or a fake tree */
    int cpu;                 /* the loop's CPU (resolved); -1: none configured */
    int priority;            /* SCHED_FIFO priority the loop asks for */
    int blas_parallel;       /* the linked OpenBLAS: 0 sequential, 1 pthreads, 2 OpenMP */
    const char *blas_config; /* openblas_get_config() */
    int64_t sample_ns;       /* [ns] CPU load sampling interval for smt_sibling; 0: no sample */
    /* the interfaces the run's CAN mapping configures through libsocketcan (it then needs
     * CAP_NET_ADMIN), space-separated; NULL or "": none. Only the fix plan reads it. */
    const char *can_configure;
};

/* run every item into items[VD_CHECK_ITEMS]; returns the number of FAILs */
int vd_check_run(const struct vd_check_env *env, struct vd_check_item *items);
const char *vd_check_level_name(int level);

/* helpers shared with `rtvd run` */
/* the CPU `cpu: auto` means: the highest isolated CPU, else the highest online CPU; when
 * allowed is not NULL (a cpu_set_t), only CPUs in it. -1 if none */
int vd_rt_auto_cpu(const char *root, const void *allowed, size_t allowed_size);
/* read root/rel (first line, newline stripped) into buf; 0 or -errno */
int vd_sys_read(const char *root, const char *rel, char *buf, size_t size);
/* parse a kernel CPU list ("0-3,5"; flags like "domain," are skipped) into a bit set of
 * 1024 CPUs (uint64_t[16]); returns the number of CPUs or -EINVAL */
int vd_cpulist_parse(const char *s, uint64_t set[16]);
/* true if the running kernel is PREEMPT_RT (root/sys/kernel/realtime or proc/version) */
int vd_rt_kernel(const char *root);
/* the CPUs a thread of this process can be pinned to: its cgroup's effective cpuset
 * (root/proc/self/cgroup, then cpuset.cpus.effective of that cgroup or the nearest parent
 * that has one under cgroup v2, cpuset.effective_cpus under v1's cpuset controller) into a
 * bit set of 1024 CPUs. A thread may leave its inherited affinity (systemd's CPUAffinity=,
 * the default mask without the isolcpus= CPUs) but never its cpuset, so `cpu: auto` looks
 * here: else a service would never pick an isolated CPU. Returns the number of CPUs, or
 * -ENOENT when no cpuset can be read (then the caller uses the affinity) */
int vd_rt_cpuset(const char *root, uint64_t set[16]);
/* the SMT sibling of cpu (thread_siblings_list), -1 if none or unknown */
int vd_cpu_sibling(const char *root, int cpu);

#endif /* VD_RT_CHECK_H */
