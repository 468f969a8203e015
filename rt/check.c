/* rt/check.c - real-time readiness checks against a (possibly fake) root. */
#include "check.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CAP_IPC_LOCK_BIT 14
#define CAP_SYS_NICE_BIT 23
#define MEMLOCK_NEED     (256ull << 20) /* [bytes] model + OpenBLAS's 128 MiB buffer, locked */

const char *vd_check_level_name(int level)
{
    static const char *const n[] = {"PASS", "WARN", "FAIL"};

    return level >= 0 && level <= VD_CHECK_FAIL ? n[level] : "?";
}

static void path_of(char *buf, size_t size, const char *root, const char *rel)
{
    const size_t n = strlen(root);

    snprintf(buf, size, "%s%s%s", root, n && root[n - 1] == '/' ? "" : "/", rel);
}

int vd_sys_read(const char *root, const char *rel, char *buf, size_t size)
{
    char path[1024];
    FILE *f;

    path_of(path, sizeof(path), root, rel);
    f = fopen(path, "r");
    if (!f)
        return -errno;
    if (!fgets(buf, (int)size, f))
        buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

static bool set_has(const uint64_t set[16], int cpu)
{
    return cpu >= 0 && cpu < 1024 && (set[cpu / 64] >> (cpu % 64)) & 1u;
}

int vd_cpulist_parse(const char *s, uint64_t set[16])
{
    int n = 0;

    memset(set, 0, 16 * sizeof(uint64_t));
    while (*s) {
        char *end;
        long a, b;

        if (*s == ',' || *s == ' ') {
            s++;
            continue;
        }
        if (*s < '0' || *s > '9') {
            /* a flag (isolcpus=domain,managed_irq,...) or "(null)": skip the word */
            while (*s && *s != ',')
                s++;
            continue;
        }
        a = strtol(s, &end, 10);
        b = a;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        if (a < 0 || b < a || b >= 1024)
            return -EINVAL;
        for (long c = a; c <= b; c++) {
            if (!set_has(set, (int)c))
                n++;
            set[c / 64] |= 1ull << (c % 64);
        }
        s = end;
        if (*s && *s != ',' && *s != ' ')
            return -EINVAL;
    }
    return n;
}

static int highest(const uint64_t set[16], const uint64_t *allowed)
{
    for (int c = 1023; c >= 0; c--)
        if (set_has(set, c) && (!allowed || set_has(allowed, c)))
            return c;
    return -1;
}

int vd_rt_auto_cpu(const char *root, const void *allowed, size_t allowed_size)
{
    uint64_t iso[16], on[16], al[16];
    char buf[512];
    int c;

    memset(al, 0, sizeof(al));
    if (allowed) {
        const unsigned char *p = allowed;

        for (size_t i = 0; i < allowed_size * 8 && i < 1024; i++)
            if ((p[i / 8] >> (i % 8)) & 1)
                al[i / 64] |= 1ull << (i % 64);
    }
    if (!vd_sys_read(root, "sys/devices/system/cpu/isolated", buf, sizeof(buf)) &&
        vd_cpulist_parse(buf, iso) > 0 && (c = highest(iso, allowed ? al : NULL)) >= 0)
        return c;
    if (!vd_sys_read(root, "sys/devices/system/cpu/online", buf, sizeof(buf)) &&
        vd_cpulist_parse(buf, on) > 0 && (c = highest(on, allowed ? al : NULL)) >= 0)
        return c;
    return allowed ? highest(al, NULL) : -1;
}

int vd_rt_kernel(const char *root)
{
    char buf[512];

    if (!vd_sys_read(root, "sys/kernel/realtime", buf, sizeof(buf)) && !strcmp(buf, "1"))
        return 1;
    if (!vd_sys_read(root, "proc/version", buf, sizeof(buf)) && strstr(buf, "PREEMPT_RT"))
        return 1;
    return 0;
}

int vd_rt_cpuset(const char *root, uint64_t set[16])
{
    char path[1024], line[1200], rel[1300];
    FILE *f;
    int n = -ENOENT;

    path_of(path, sizeof(path), root, "proc/self/cgroup");
    f = fopen(path, "r");
    while (f && n < 0 && fgets(line, sizeof(line), f)) {
        const bool v2 = !strncmp(line, "0::/", 4);
        char *cg = v2 ? line + 3 : strstr(line, ":cpuset:/");

        if (!cg)
            continue;
        if (!v2)
            cg += strlen(":cpuset:");
        cg[strcspn(cg, "\n")] = '\0';
        /* this cgroup, else the nearest parent with the file (a v2 cgroup without the cpuset
         * controller enabled has none: it gets its parent's CPUs) */
        for (;;) {
            char buf[512];

            snprintf(rel, sizeof(rel), "sys/fs/cgroup%s%s%s", v2 ? "" : "/cpuset",
                     strcmp(cg, "/") ? cg : "",
                     v2 ? "/cpuset.cpus.effective" : "/cpuset.effective_cpus");
            if (!vd_sys_read(root, rel, buf, sizeof(buf)) && vd_cpulist_parse(buf, set) > 0) {
                n = vd_cpulist_parse(buf, set);
                break;
            }
            {
                char *slash = strrchr(cg, '/');

                if (!slash || !strcmp(cg, "/"))
                    break;
                if (slash == cg)
                    slash[1] = '\0';
                else
                    *slash = '\0';
            }
        }
    }
    if (f)
        fclose(f);
    return n;
}

int vd_cpu_sibling(const char *root, int cpu)
{
    uint64_t sib[16];
    char rel[128], buf[256];

    snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
    if (cpu < 0 || vd_sys_read(root, rel, buf, sizeof(buf)) || vd_cpulist_parse(buf, sib) < 0)
        return -1;
    for (int c = 0; c < 1024; c++)
        if (c != cpu && set_has(sib, c))
            return c;
    return -1;
}

/* the value of name= on the kernel command line, or NULL */
static const char *cmdline_arg(const char *cmdline, const char *name, char *out, size_t size)
{
    const size_t n = strlen(name);

    for (const char *p = cmdline; (p = strstr(p, name)); p += n) {
        if ((p == cmdline || p[-1] == ' ') && p[n] == '=') {
            size_t len = strcspn(p + n + 1, " ");

            if (len >= size)
                len = size - 1;
            memcpy(out, p + n + 1, len);
            out[len] = '\0';
            return out;
        }
    }
    return NULL;
}

static void set_item(struct vd_check_item *it, const char *name, int level, const char *fix,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void set_item(struct vd_check_item *it, const char *name, int level, const char *fix,
                     const char *fmt, ...)
{
    va_list ap;

    it->item = name;
    it->level = level;
    va_start(ap, fmt);
    vsnprintf(it->finding, sizeof(it->finding), fmt, ap);
    va_end(ap);
    snprintf(it->fix, sizeof(it->fix), "%s", level == VD_CHECK_PASS || !fix ? "" : fix);
}

/* --- items ------------------------------------------------------------------------------- */

static void check_preempt_rt(const struct vd_check_env *e, struct vd_check_item *it)
{
    char rel[128] = "?", rt[16] = "missing";

    vd_sys_read(e->root, "proc/sys/kernel/osrelease", rel, sizeof(rel));
    vd_sys_read(e->root, "sys/kernel/realtime", rt, sizeof(rt));
    if (vd_rt_kernel(e->root))
        set_item(it, "preempt_rt", VD_CHECK_PASS, NULL,
                 "PREEMPT_RT kernel %s (/sys/kernel/realtime = %s)", rel, rt);
    else
        set_item(it, "preempt_rt", VD_CHECK_FAIL,
                 "boot a PREEMPT_RT kernel (Debian: apt install linux-image-rt-amd64)",
                 "kernel %s is not PREEMPT_RT (/sys/kernel/realtime: %s)", rel, rt);
}

static void check_cpuset(const struct vd_check_env *e, struct vd_check_item *it, const char *name,
                         const char *file, const char *param)
{
    uint64_t set[16];
    char buf[512] = "", fix[160];

    snprintf(fix, sizeof(fix), "add %s=%d to the kernel command line", param, e->cpu);
    if (!strcmp(name, "isolcpus"))
        snprintf(fix, sizeof(fix), "add isolcpus=domain,managed_irq,%d to the kernel command line",
                 e->cpu);
    if (e->cpu < 0) {
        set_item(it, name, VD_CHECK_WARN, "set rt.cpu in the run configuration",
                 "no RT CPU configured (rt.cpu: none)");
        return;
    }
    vd_sys_read(e->root, file, buf, sizeof(buf));
    if (vd_cpulist_parse(buf, set) > 0 && set_has(set, e->cpu))
        set_item(it, name, VD_CHECK_PASS, NULL, "cpu%d is in %s (%s)", e->cpu, param, buf);
    else
        set_item(it, name, VD_CHECK_WARN, fix, "cpu%d is not in %s (/%s: %s)", e->cpu, param, file,
                 *buf && strcmp(buf, "(null)") ? buf : "none");
}

static void check_rcu_nocbs(const struct vd_check_env *e, struct vd_check_item *it)
{
    uint64_t set[16], nohz[16];
    char cmd[4096] = "", arg[512], buf[512] = "", fix[128];

    snprintf(fix, sizeof(fix), "add rcu_nocbs=%d (or nohz_full=%d) to the kernel command line",
             e->cpu, e->cpu);
    if (e->cpu < 0) {
        set_item(it, "rcu_nocbs", VD_CHECK_WARN, "set rt.cpu in the run configuration",
                 "no RT CPU configured (rt.cpu: none)");
        return;
    }
    vd_sys_read(e->root, "proc/cmdline", cmd, sizeof(cmd));
    if (cmdline_arg(cmd, "rcu_nocbs", arg, sizeof(arg)) && vd_cpulist_parse(arg, set) > 0 &&
        set_has(set, e->cpu)) {
        set_item(it, "rcu_nocbs", VD_CHECK_PASS, NULL, "cpu%d is in rcu_nocbs=%s", e->cpu, arg);
        return;
    }
    vd_sys_read(e->root, "sys/devices/system/cpu/nohz_full", buf, sizeof(buf));
    if (vd_cpulist_parse(buf, nohz) > 0 && set_has(nohz, e->cpu)) {
        set_item(it, "rcu_nocbs", VD_CHECK_PASS, NULL,
                 "cpu%d offloads its RCU callbacks (nohz_full=%s implies rcu_nocbs)", e->cpu, buf);
        return;
    }
    set_item(it, "rcu_nocbs", VD_CHECK_WARN, fix,
             "RCU callbacks run on cpu%d (no rcu_nocbs= or nohz_full= covering it)", e->cpu);
}

static void check_throttling(const struct vd_check_env *e, struct vd_check_item *it)
{
    char rt[32] = "", per[32] = "";

    if (vd_sys_read(e->root, "proc/sys/kernel/sched_rt_runtime_us", rt, sizeof(rt))) {
        set_item(it, "rt_throttling", VD_CHECK_WARN, "check CONFIG_RT_GROUP_SCHED and sysctl",
                 "kernel.sched_rt_runtime_us is not readable");
        return;
    }
    vd_sys_read(e->root, "proc/sys/kernel/sched_rt_period_us", per, sizeof(per));
    if (!strcmp(rt, "-1"))
        set_item(it, "rt_throttling", VD_CHECK_PASS, NULL,
                 "RT throttling disabled (sched_rt_runtime_us = -1)");
    else
        set_item(it, "rt_throttling", VD_CHECK_WARN,
                 "sysctl -w kernel.sched_rt_runtime_us=-1 on a box whose isolated RT core "
                 "runs only the loop (it sleeps every cycle)",
                 "RT tasks may use %s of every %s us; the rest is forced idle time that can "
                 "land in a cycle",
                 rt, *per ? per : "?");
}

static void check_governor(const struct vd_check_env *e, struct vd_check_item *it)
{
    char rel[128], gov[64], fix[320];
    const int cpu = e->cpu < 0 ? 0 : e->cpu;

    snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu);
    snprintf(fix, sizeof(fix),
             "cpupower -c %d frequency-set -g performance (or write performance to /%s)", cpu, rel);
    if (vd_sys_read(e->root, rel, gov, sizeof(gov)))
        set_item(it, "cpu_governor", VD_CHECK_PASS, NULL,
                 "cpu%d has no cpufreq driver: the OS does not scale its frequency (check the "
                 "BIOS power settings)",
                 cpu);
    else if (!strcmp(gov, "performance"))
        set_item(it, "cpu_governor", VD_CHECK_PASS, NULL, "cpu%d governor is performance", cpu);
    else
        set_item(it, "cpu_governor", VD_CHECK_WARN, fix,
                 "cpu%d governor is %s: frequency changes add latency", cpu, gov);
}

/* busy fraction of a CPU between two /proc/stat samples; -1 if unknown */
static double cpu_busy(const char *root, int cpu, int64_t sample_ns)
{
    unsigned long long a[2][10];
    char path[1024], line[512], tag[16];

    if (sample_ns <= 0)
        return -1.0;
    path_of(path, sizeof(path), root, "proc/stat");
    snprintf(tag, sizeof(tag), "cpu%d ", cpu);
    for (int s = 0; s < 2; s++) {
        FILE *f = fopen(path, "r");
        bool found = false;

        if (!f)
            return -1.0;
        memset(a[s], 0, sizeof(a[s]));
        while (fgets(line, sizeof(line), f))
            if (!strncmp(line, tag, strlen(tag))) {
                found = sscanf(line + strlen(tag), "%llu %llu %llu %llu %llu %llu %llu %llu",
                               &a[s][0], &a[s][1], &a[s][2], &a[s][3], &a[s][4], &a[s][5], &a[s][6],
                               &a[s][7]) >= 4;
                break;
            }
        fclose(f);
        if (!found)
            return -1.0;
        if (s == 0) {
            struct timespec ts = {(time_t)(sample_ns / 1000000000), (long)(sample_ns % 1000000000)};

            nanosleep(&ts, NULL);
        }
    }
    {
        unsigned long long tot = 0, idle = (a[1][3] - a[0][3]) + (a[1][4] - a[0][4]);

        for (int i = 0; i < 8; i++)
            tot += a[1][i] - a[0][i];
        return tot ? 1.0 - (double)idle / (double)tot : 0.0;
    }
}

static void check_smt(const struct vd_check_env *e, struct vd_check_item *it)
{
    uint64_t sib[16], iso[16];
    char rel[128], buf[256] = "", isob[512] = "", fix[200];
    int other = -1;

    if (e->cpu < 0) {
        set_item(it, "smt_sibling", VD_CHECK_WARN, "set rt.cpu in the run configuration",
                 "no RT CPU configured (rt.cpu: none)");
        return;
    }
    snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
             e->cpu);
    if (vd_sys_read(e->root, rel, buf, sizeof(buf)) || vd_cpulist_parse(buf, sib) < 0) {
        set_item(it, "smt_sibling", VD_CHECK_PASS, NULL,
                 "cpu%d: no topology information (no SMT sibling known)", e->cpu);
        return;
    }
    for (int c = 0; c < 1024 && other < 0; c++)
        if (c != e->cpu && set_has(sib, c))
            other = c;
    if (other < 0) {
        set_item(it, "smt_sibling", VD_CHECK_PASS, NULL, "cpu%d has no SMT sibling", e->cpu);
        return;
    }
    vd_sys_read(e->root, "sys/devices/system/cpu/isolated", isob, sizeof(isob));
    vd_cpulist_parse(isob, iso);
    {
        const double busy = cpu_busy(e->root, other, e->sample_ns);
        const bool isolated = set_has(iso, other);
        char load[48] = "";

        if (busy >= 0.0)
            snprintf(load, sizeof(load), ", %.0f%% busy", 100.0 * busy);
        snprintf(fix, sizeof(fix),
                 "isolate cpu%d as well (isolcpus=...,%d,%d) and keep it idle, or disable SMT "
                 "(nosmt)",
                 other, e->cpu, other);
        if (isolated && busy < 0.05)
            set_item(it, "smt_sibling", VD_CHECK_PASS, NULL,
                     "SMT sibling cpu%d of cpu%d is isolated%s", other, e->cpu, load);
        else
            set_item(it, "smt_sibling", VD_CHECK_WARN, fix,
                     "SMT sibling cpu%d shares cpu%d's core and is %s%s", other, e->cpu,
                     isolated ? "isolated but busy" : "not isolated", load);
    }
}

/* does a hex mask like "ff,ffffffff" include cpu? */
static bool mask_has(const char *mask, int cpu)
{
    int bit = 0;

    for (const char *p = mask + strlen(mask); p-- > mask;) {
        int v;

        if (*p == ',')
            continue;
        if (*p >= '0' && *p <= '9')
            v = *p - '0';
        else if (*p >= 'a' && *p <= 'f')
            v = *p - 'a' + 10;
        else if (*p >= 'A' && *p <= 'F')
            v = *p - 'A' + 10;
        else
            continue;
        if (cpu >= bit && cpu < bit + 4)
            return (v >> (cpu - bit)) & 1;
        bit += 4;
    }
    return false;
}

static void check_irqs(const struct vd_check_env *e, struct vd_check_item *it)
{
    char path[1024], rel[320], buf[512], def[128] = "", fix[256], first[96] = "";
    int total = 0, on = 0;
    bool def_on;
    DIR *dir;
    struct dirent *de;

    if (e->cpu < 0) {
        set_item(it, "irq_affinity", VD_CHECK_WARN, "set rt.cpu in the run configuration",
                 "no RT CPU configured (rt.cpu: none)");
        return;
    }
    path_of(path, sizeof(path), e->root, "proc/irq");
    dir = opendir(path);
    if (!dir) {
        set_item(it, "irq_affinity", VD_CHECK_WARN, "mount /proc", "/proc/irq is not readable");
        return;
    }
    while ((de = readdir(dir))) {
        uint64_t set[16];

        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        snprintf(rel, sizeof(rel), "proc/irq/%.32s/effective_affinity_list", de->d_name);
        if (vd_sys_read(e->root, rel, buf, sizeof(buf)) || !*buf) {
            snprintf(rel, sizeof(rel), "proc/irq/%.32s/smp_affinity_list", de->d_name);
            if (vd_sys_read(e->root, rel, buf, sizeof(buf)))
                continue;
        }
        total++;
        if (vd_cpulist_parse(buf, set) > 0 && set_has(set, e->cpu)) {
            if (!on++)
                snprintf(first, sizeof(first), "IRQ %.16s -> %.60s", de->d_name, buf);
        }
    }
    closedir(dir);
    vd_sys_read(e->root, "proc/irq/default_smp_affinity", def, sizeof(def));
    def_on = *def && mask_has(def, e->cpu);
    snprintf(fix, sizeof(fix),
             "boot with irqaffinity=<the other CPUs> and isolcpus=managed_irq,%d, write "
             "/proc/irq/*/smp_affinity_list, and ban cpu%d in irqbalance "
             "(IRQBALANCE_BANNED_CPULIST)",
             e->cpu, e->cpu);
    if (!on && !def_on)
        set_item(it, "irq_affinity", VD_CHECK_PASS, NULL,
                 "none of %d IRQs may run on cpu%d (default mask %s)", total, e->cpu,
                 *def ? def : "?");
    else
        set_item(it, "irq_affinity", VD_CHECK_WARN, fix,
                 "%d of %d IRQs may run on cpu%d%s%s%s; default mask %s %s it", on, total, e->cpu,
                 on ? " (first: " : "", first, on ? ")" : "", *def ? def : "?",
                 def_on ? "includes" : "excludes");
}

/* "Max locked memory  8388608  8388608  bytes": soft limit; -1 unlimited; -2 unknown */
static long long limit_of(const char *root, const char *what)
{
    char path[1024], line[256];
    long long v = -2;
    FILE *f;

    path_of(path, sizeof(path), root, "proc/self/limits");
    f = fopen(path, "r");
    if (!f)
        return -2;
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, what, strlen(what)))
            continue;
        {
            const char *p = line + strlen(what);

            while (*p == ' ')
                p++;
            v = !strncmp(p, "unlimited", 9) ? -1 : strtoll(p, NULL, 10);
        }
        break;
    }
    fclose(f);
    return v;
}

/* CapEff bit of the process; -1 unknown */
static int cap_eff(const char *root, int bit)
{
    char path[1024], line[256];
    int r = -1;
    FILE *f;

    path_of(path, sizeof(path), root, "proc/self/status");
    f = fopen(path, "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f))
        if (!strncmp(line, "CapEff:", 7)) {
            unsigned long long caps = strtoull(line + 7, NULL, 16);

            r = (int)((caps >> bit) & 1u);
            break;
        }
    fclose(f);
    return r;
}

static void check_memlock(const struct vd_check_env *e, struct vd_check_item *it)
{
    const long long lim = limit_of(e->root, "Max locked memory");

    if (cap_eff(e->root, CAP_IPC_LOCK_BIT) == 1)
        set_item(it, "memlock", VD_CHECK_PASS, NULL,
                 "CAP_IPC_LOCK: mlockall is not limited by RLIMIT_MEMLOCK");
    else if (lim == -1 || (lim >= 0 && (unsigned long long)lim >= MEMLOCK_NEED))
        set_item(it, "memlock", VD_CHECK_PASS, NULL, "RLIMIT_MEMLOCK %s",
                 lim == -1 ? "unlimited" : "large enough");
    else
        set_item(it, "memlock", VD_CHECK_FAIL,
                 "LimitMEMLOCK=infinity in the systemd unit, or '<user> - memlock unlimited' in "
                 "/etc/security/limits.d/rtvd.conf",
                 "RLIMIT_MEMLOCK is %lld KiB: mlockall(MCL_FUTURE) cannot lock OpenBLAS's 128 MiB "
                 "buffer, the loop would page-fault",
                 lim < 0 ? -1 : lim / 1024);
}

static void check_rtprio(const struct vd_check_env *e, struct vd_check_item *it)
{
    const long long lim = limit_of(e->root, "Max realtime priority");

    if (cap_eff(e->root, CAP_SYS_NICE_BIT) == 1)
        set_item(it, "rtprio", VD_CHECK_PASS, NULL,
                 "CAP_SYS_NICE: SCHED_FIFO %d allowed regardless of RLIMIT_RTPRIO", e->priority);
    else if (lim == -1 || lim >= e->priority)
        set_item(it, "rtprio", VD_CHECK_PASS, NULL, "RLIMIT_RTPRIO %lld >= %d", lim, e->priority);
    else
        set_item(it, "rtprio", VD_CHECK_FAIL,
                 "LimitRTPRIO=99 in the systemd unit, or '<user> - rtprio 99' in "
                 "/etc/security/limits.d/rtvd.conf",
                 "RLIMIT_RTPRIO is %lld < %d and no CAP_SYS_NICE: no SCHED_FIFO, timing would be "
                 "best effort",
                 lim, e->priority);
}

static void check_openblas(const struct vd_check_env *e, struct vd_check_item *it)
{
    static const char *const kind[] = {"serial", "pthreads", "OpenMP"};
    const char *k = e->blas_parallel >= 0 && e->blas_parallel <= 2 ? kind[e->blas_parallel] : "?";
    char path[1024], alt[512] = "", sys[600] = "";
    ssize_t n;

    path_of(path, sizeof(path), e->root, "etc/alternatives/liblapack.so.3-x86_64-linux-gnu");
    n = readlink(path, alt, sizeof(alt) - 1);
    if (n > 0) {
        alt[n] = '\0';
        snprintf(sys, sizeof(sys), "; the system liblapack.so.3 alternative is %s", alt);
    }
    if (e->blas_parallel == 0)
        set_item(it, "openblas", VD_CHECK_PASS, NULL, "rtvd runs the %s OpenBLAS (%s)%s%s", k,
                 e->blas_config ? e->blas_config : "?", *sys ? sys : "",
                 *sys ? ", not used by rtvd" : "");
    else
        set_item(it, "openblas", VD_CHECK_FAIL,
                 "install libopenblas0-serial and rebuild (rtvd links it by RPATH)",
                 "rtvd runs a %s OpenBLAS (%s): its worker threads spin in the RT loop%s", k,
                 e->blas_config ? e->blas_config : "?", sys);
}

static void check_clocksource(const struct vd_check_env *e, struct vd_check_item *it)
{
    char cs[64] = "";

    if (vd_sys_read(e->root, "sys/devices/system/clocksource/clocksource0/current_clocksource", cs,
                    sizeof(cs)))
        set_item(it, "clocksource", VD_CHECK_WARN, "mount /sys", "clocksource unknown");
    else if (!strcmp(cs, "tsc"))
        set_item(it, "clocksource", VD_CHECK_PASS, NULL, "clocksource is tsc");
    else
        set_item(it, "clocksource", VD_CHECK_WARN,
                 "use a stable TSC (clocksource=tsc tsc=reliable only if it is stable)",
                 "clocksource is %s: slower clock reads than tsc", cs);
}

static void check_dma(const struct vd_check_env *e, struct vd_check_item *it)
{
    char path[1024];

    path_of(path, sizeof(path), e->root, "dev/cpu_dma_latency");
    if (access(path, W_OK) == 0)
        set_item(it, "cpu_dma_latency", VD_CHECK_PASS, NULL,
                 "/dev/cpu_dma_latency is writable: rtvd holds it at 0 us while running");
    else
        set_item(it, "cpu_dma_latency", VD_CHECK_WARN,
                 "run as root or give the rtvd user write access (udev rule)",
                 "/dev/cpu_dma_latency is not writable (%s): deep C-states stay allowed",
                 strerror(errno));
}

/* CONFIG_RT_GROUP_SCHED: with cgroup v2 there is no cpu.rt_runtime_us, so every process
 * outside the root cgroup (any systemd service) gets EPERM from sched_setscheduler(FIFO)
 * (systemd/systemd#27893). The kernel's config: boot/config-<release>; /proc/config.gz is
 * compressed and only named. */
static void check_rt_group_sched(const struct vd_check_env *e, struct vd_check_item *it)
{
    char rel[160], osr[128] = "", path[1024], line[256];
    bool found = false, set = false, v2;
    FILE *f;

    path_of(path, sizeof(path), e->root, "sys/fs/cgroup/cgroup.controllers");
    v2 = access(path, F_OK) == 0;
    vd_sys_read(e->root, "proc/sys/kernel/osrelease", osr, sizeof(osr));
    snprintf(rel, sizeof(rel), "boot/config-%s", osr);
    path_of(path, sizeof(path), e->root, rel);
    f = *osr ? fopen(path, "r") : NULL;
    while (f && fgets(line, sizeof(line), f)) {
        if (!strncmp(line, "CONFIG_RT_GROUP_SCHED=y", 23))
            found = set = true;
        else if (!strncmp(line, "# CONFIG_RT_GROUP_SCHED is not set", 34))
            found = true;
    }
    if (f)
        fclose(f);
    if (!found)
        set_item(it, "rt_group_sched", VD_CHECK_WARN,
                 "zcat /proc/config.gz | grep RT_GROUP_SCHED: with =y and cgroup v2, run rtvd in "
                 "the root cgroup or boot Debian's linux-image-rt-amd64 (built without it)",
                 "kernel config unknown (no /boot/config-%s): CONFIG_RT_GROUP_SCHED not checked",
                 *osr ? osr : "?");
    else if (!set)
        set_item(it, "rt_group_sched", VD_CHECK_PASS, NULL,
                 "CONFIG_RT_GROUP_SCHED is not set: SCHED_FIFO works inside a service's cgroup");
    else
        set_item(it, "rt_group_sched", v2 ? VD_CHECK_FAIL : VD_CHECK_WARN,
                 "boot a kernel without CONFIG_RT_GROUP_SCHED (Debian's linux-image-rt-amd64 has "
                 "none)",
                 "CONFIG_RT_GROUP_SCHED=y%s",
                 v2 ? " with cgroup v2: SCHED_FIFO is refused (EPERM) "
                      "to rtvd.service and any process outside the "
                      "root cgroup"
                    : ": a service's cgroup needs cpu.rt_runtime_us");
}

/* irqbalance moves IRQs onto the RT CPU unless banned from it: by IRQBALANCE_BANNED_CPULIST
 * (/etc/default/irqbalance, or a drop-in of its unit), or, from irqbalance 1.8 on, by isolcpus=
 * / nohz_full= which it honours by itself */
static void check_irqbalance(const struct vd_check_env *e, struct vd_check_item *it)
{
    static const char *const conf[] = {"etc/default/irqbalance",
                                       "etc/systemd/system/irqbalance.service.d/rtvd.conf"};
    char path[1024], buf[512], fix[320];
    uint64_t set[16];
    bool running = false, banned = false;
    DIR *dir;
    struct dirent *de;

    if (e->cpu < 0) {
        set_item(it, "irqbalance", VD_CHECK_WARN, "set rt.cpu in the run configuration",
                 "no RT CPU configured (rt.cpu: none)");
        return;
    }
    path_of(path, sizeof(path), e->root, "proc");
    dir = opendir(path);
    while (dir && (de = readdir(dir)) && !running) {
        char rel[64];

        if (de->d_name[0] < '1' || de->d_name[0] > '9')
            continue;
        snprintf(rel, sizeof(rel), "proc/%.32s/comm", de->d_name);
        running = !vd_sys_read(e->root, rel, buf, sizeof(buf)) && !strcmp(buf, "irqbalance");
    }
    if (dir)
        closedir(dir);
    if (!running) {
        set_item(it, "irqbalance", VD_CHECK_PASS, NULL, "irqbalance is not running");
        return;
    }
    for (int i = 0; i < 2 && !banned; i++) {
        FILE *f;

        path_of(path, sizeof(path), e->root, conf[i]);
        f = fopen(path, "r");
        while (f && fgets(buf, sizeof(buf), f)) {
            char *v = strstr(buf, "IRQBALANCE_BANNED_CPULIST=");

            if (!v || buf[strspn(buf, " \t")] == '#')
                continue;
            v += strlen("IRQBALANCE_BANNED_CPULIST=");
            v += *v == '"' || *v == '\'';
            v[strcspn(v, "\"'\n")] = '\0';
            banned = vd_cpulist_parse(v, set) > 0 && set_has(set, e->cpu);
        }
        if (f)
            fclose(f);
        if (banned) {
            set_item(it, "irqbalance", VD_CHECK_PASS, NULL,
                     "irqbalance runs with cpu%d banned (/%s)", e->cpu, conf[i]);
            return;
        }
    }
    for (int i = 0; i < 2; i++) {
        static const char *const f2[] = {"sys/devices/system/cpu/isolated",
                                         "sys/devices/system/cpu/nohz_full"};

        if (!vd_sys_read(e->root, f2[i], buf, sizeof(buf)) && vd_cpulist_parse(buf, set) > 0 &&
            set_has(set, e->cpu)) {
            set_item(it, "irqbalance", VD_CHECK_PASS, NULL,
                     "irqbalance runs and leaves cpu%d alone (in /%s)", e->cpu, f2[i]);
            return;
        }
    }
    snprintf(fix, sizeof(fix),
             "a drop-in /etc/systemd/system/irqbalance.service.d/rtvd.conf with "
             "Environment=IRQBALANCE_BANNED_CPULIST=%d, or stop irqbalance",
             e->cpu);
    set_item(it, "irqbalance", VD_CHECK_WARN, fix,
             "irqbalance runs and may move IRQs onto cpu%d (not banned, not isolated)", e->cpu);
}

int vd_check_run(const struct vd_check_env *e, struct vd_check_item *items)
{
    int fails = 0;

    check_preempt_rt(e, &items[0]);
    check_rt_group_sched(e, &items[1]);
    check_cpuset(e, &items[2], "isolcpus", "sys/devices/system/cpu/isolated", "isolcpus");
    check_cpuset(e, &items[3], "nohz_full", "sys/devices/system/cpu/nohz_full", "nohz_full");
    check_rcu_nocbs(e, &items[4]);
    check_throttling(e, &items[5]);
    check_governor(e, &items[6]);
    check_smt(e, &items[7]);
    check_irqs(e, &items[8]);
    check_irqbalance(e, &items[9]);
    check_memlock(e, &items[10]);
    check_rtprio(e, &items[11]);
    check_openblas(e, &items[12]);
    check_clocksource(e, &items[13]);
    check_dma(e, &items[14]);
    for (int i = 0; i < VD_CHECK_ITEMS; i++)
        fails += items[i].level == VD_CHECK_FAIL;
    return fails;
}
