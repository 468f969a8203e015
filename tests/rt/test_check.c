/* tests/rt/test_check.c - every `rtvd check` item against fake /sys /proc /dev /etc trees:
 * a tuned RT box (all PASS), an untuned laptop-like box (the expected WARNs and FAILs),
 * capabilities instead of limits, rcu_nocbs implied by nohz_full, IRQ masks, SMT siblings
 * with a load sample, CONFIG_RT_GROUP_SCHED with cgroup v1 and v2, irqbalance banned or
 * not, the helpers (CPU lists, `cpu: auto`); the fix plan of each box (the files and their
 * text) and --apply writing exactly those files under a root. */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "rt/check.h"
#include "rt/fixplan.h"

static char root[256];

static void put(const char *rel, const char *text)
{
    char path[512], *slash;
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", root, rel);
    for (slash = path + strlen(root) + 1; (slash = strchr(slash, '/')); slash++) {
        *slash = '\0';
        mkdir(path, 0755);
        *slash = '/';
    }
    f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
}

static void rm_rf(void)
{
    char cmd[300];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", root);
}

static void new_root(void)
{
    if (*root)
        rm_rf();
    snprintf(root, sizeof(root), "/tmp/vd_check_XXXXXX");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        exit(1);
    }
}

static const struct vd_check_item *find(const struct vd_check_item *it, const char *name)
{
    for (int i = 0; i < VD_CHECK_ITEMS; i++)
        if (!strcmp(it[i].item, name))
            return &it[i];
    return NULL;
}

#define LEVEL(items, name, lvl)                                                                    \
    do {                                                                                           \
        const struct vd_check_item *it_ = find(items, name);                                       \
        CHECK(it_ && it_->level == (lvl), "%s: %s, expected %s (%s)", name,                        \
              it_ ? vd_check_level_name(it_->level) : "missing", vd_check_level_name(lvl),         \
              it_ ? it_->finding : "");                                                            \
        CHECK(it_ && (it_->level == VD_CHECK_PASS) == (it_->fix[0] == '\0'),                       \
              "%s: a fix exactly when not PASS", name);                                            \
    } while (0)

/* an isolated, tuned RT box with cpu 3 for the loop */
static void tuned_box(void)
{
    new_root();
    put("sys/kernel/realtime", "1\n");
    put("proc/sys/kernel/osrelease", "6.1.0-56-rt-amd64\n");
    put("proc/version", "Linux version 6.1.0-56-rt-amd64 #1 SMP PREEMPT_RT Debian\n");
    put("sys/devices/system/cpu/isolated", "3\n");
    put("sys/devices/system/cpu/nohz_full", "3\n");
    put("sys/devices/system/cpu/online", "0-3\n");
    put("proc/cmdline", "BOOT_IMAGE=/vmlinuz isolcpus=domain,managed_irq,3 nohz_full=3 "
                        "rcu_nocbs=3 irqaffinity=0-2\n");
    put("proc/sys/kernel/sched_rt_runtime_us", "-1\n");
    put("proc/sys/kernel/sched_rt_period_us", "1000000\n");
    put("sys/devices/system/cpu/cpu3/cpufreq/scaling_governor", "performance\n");
    put("sys/devices/system/cpu/cpu3/topology/thread_siblings_list", "3\n");
    put("proc/irq/default_smp_affinity", "7\n");
    put("proc/irq/0/smp_affinity_list", "0-2\n");
    put("proc/irq/24/effective_affinity_list", "1\n");
    put("proc/irq/24/smp_affinity_list", "0-3\n"); /* effective wins */
    put("proc/self/status", "Name:\trtvd\nCapEff:\t0000000000000000\n");
    put("proc/self/limits",
        "Limit                     Soft Limit           Hard Limit           Units\n"
        "Max locked memory         unlimited            unlimited            bytes\n"
        "Max realtime priority     99                   99\n");
    put("sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc\n");
    put("dev/cpu_dma_latency", "");
    put("boot/config-6.1.0-56-rt-amd64",
        "CONFIG_PREEMPT_RT=y\n# CONFIG_RT_GROUP_SCHED is not set\n");
    put("sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
    put("proc/1/comm", "systemd\n");
    put("proc/640/comm", "irqbalance\n"); /* leaves the isolated cpu 3 alone by itself */
}

static void test_tuned(void)
{
    struct vd_check_item it[VD_CHECK_ITEMS];
    struct vd_check_env e = {
        .cpu = 3, .priority = 80, .blas_parallel = 0, .blas_config = "OpenBLAS SINGLE_THREADED"};
    int fails;

    tuned_box();
    e.root = root;
    fails = vd_check_run(&e, it);
    CHECK(fails == 0, "tuned box: %d FAILs", fails);
    for (int i = 0; i < VD_CHECK_ITEMS; i++)
        CHECK(it[i].level == VD_CHECK_PASS, "tuned box: %s is %s: %s", it[i].item,
              vd_check_level_name(it[i].level), it[i].finding);
    CHECK(strstr(find(it, "rcu_nocbs")->finding, "rcu_nocbs=3") != NULL, "rcu_nocbs finding");
    CHECK(strstr(find(it, "irq_affinity")->finding, "none of 2 IRQs") != NULL, "irq: %s",
          find(it, "irq_affinity")->finding);
    CHECK(vd_rt_auto_cpu(root, NULL, 0) == 3, "auto cpu = the isolated one");
    CHECK(strstr(find(it, "irqbalance")->finding, "leaves cpu3 alone") != NULL, "irqbalance: %s",
          find(it, "irqbalance")->finding);
    {
        struct vd_fixplan fp;

        CHECK(vd_fixplan_build(&e, it, &fp) == 0 && fp.n == 0, "tuned box: nothing to change (%d)",
              fp.n);
        /* a mapping that configures can0: CAP_NET_ADMIN for the service by a drop-in, once */
        e.can_configure = "can0";
        CHECK(vd_fixplan_build(&e, it, &fp) == 0 && fp.n == 1 &&
                  !strcmp(fp.fix[0].path, "/etc/systemd/system/rtvd.service.d/can.conf") &&
                  strstr(fp.fix[0].content, "\n[Service]\nAmbientCapabilities=CAP_NET_ADMIN\n"
                                            "CapabilityBoundingSet=CAP_NET_ADMIN\n"),
              "can0 configured: the CAP_NET_ADMIN drop-in");
        CHECK(vd_fixplan_apply(root, &fp, NULL) == 0, "apply the drop-in");
        CHECK(vd_fixplan_build(&e, it, &fp) == 0 && fp.n == 0, "with the drop-in: nothing (%d)",
              fp.n);
        e.can_configure = NULL;
    }
}

static const struct vd_fix *fix_of(const struct vd_fixplan *p, const char *path)
{
    for (int i = 0; i < p->n; i++)
        if (!strcmp(p->fix[i].path, path))
            return &p->fix[i];
    return NULL;
}

/* the file under root equals text */
static int file_is(const char *rel, const char *text)
{
    char path[512], buf[2048];
    size_t n;
    FILE *f;

    snprintf(path, sizeof(path), "%s%s", root, rel);
    f = fopen(path, "r");
    if (!f)
        return 0;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return !strcmp(buf, text);
}

#define HAS(fix, text)                                                                             \
    CHECK((fix) && strstr((fix)->content, text), "%s: no '%s' in:\n%s", #fix, text,                \
          (fix) ? (fix)->content : "(missing)")

/* the plan of the untuned box (cpu 1, SMT sibling 5 busy, 8 CPUs), and --apply */
static void test_plan_untuned(const struct vd_check_env *e, const struct vd_check_item *it)
{
    struct vd_fixplan fp;
    const struct vd_fix *grub, *x;
    int files = 0, manual = 0;
    char dest[256];

    CHECK(vd_fixplan_build(e, it, &fp) == 0, "plan");
    vd_fixplan_print(&fp, stdout);
    CHECK(!strcmp(fp.rt_cpus, "1,5") && !strcmp(fp.house_cpus, "0,2-4,6-7"), "cpus %s / %s",
          fp.rt_cpus, fp.house_cpus);
    grub = fix_of(&fp, "/etc/default/grub.d/rtvd.cfg");
    HAS(grub, "GRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT isolcpus=managed_irq,"
              "domain,1,5 nohz_full=1,5 rcu_nocbs=1,5 irqaffinity=0,2-4,6-7\"\n");
    CHECK(grub && strstr(grub->then, "update-grub"), "grub: then update-grub");
    CHECK(grub && !strcmp(grub->items, "isolcpus smt_sibling nohz_full rcu_nocbs irq_affinity"),
          "grub answers: %s", grub ? grub->items : "");
    HAS(fix_of(&fp, "/etc/sysctl.d/60-rtvd.conf"), "\nkernel.sched_rt_runtime_us = -1\n");
    HAS(fix_of(&fp, "/etc/tmpfiles.d/rtvd-governor.conf"),
        "\nw /sys/devices/system/cpu/cpu1/cpufreq/scaling_governor - - - - performance\n");
    HAS(fix_of(&fp, "/etc/systemd/system/irqbalance.service.d/rtvd.conf"),
        "[Service]\nEnvironment=IRQBALANCE_BANNED_CPULIST=1,5\n");
    HAS(fix_of(&fp, "/etc/systemd/system/rtvd.service.d/cpu.conf"),
        "[Service]\nCPUAffinity=0,2-4,6-7\n");
    HAS(fix_of(&fp, "/etc/security/limits.d/rtvd.conf"),
        "@rtvd - memlock unlimited\n@rtvd - rtprio 99\n");
    HAS(fix_of(&fp, "/etc/udev/rules.d/60-rtvd.rules"),
        "KERNEL==\"cpu_dma_latency\", GROUP=\"rtvd\"");
    for (int i = 0; i < fp.n; i++) {
        files += fp.fix[i].path[0] != '\0';
        manual += fp.fix[i].path[0] == '\0';
    }
    /* manual: the RT kernel, RT_GROUP_SCHED, OpenBLAS, IRQs now, clocksource */
    CHECK(files == 7 && manual == 5, "%d files, %d manual steps", files, manual);
    x = NULL;
    for (int i = 0; i < fp.n; i++)
        if (!strcmp(fp.fix[i].items, "irq_affinity"))
            x = &fp.fix[i];
    CHECK(x && strstr(x->then, "echo 0,2-4,6-7 > $f") &&
              strstr(x->then, "echo dd > /proc/irq/default_smp_affinity"),
          "IRQs now: %s", x ? x->then : "(missing)");
    /* every WARN and FAIL is answered by some step */
    for (int i = 0; i < VD_CHECK_ITEMS; i++) {
        int answered = it[i].level == VD_CHECK_PASS;

        for (int j = 0; j < fp.n && !answered; j++) {
            const char *w = strstr(fp.fix[j].items, it[i].item);
            const size_t n = strlen(it[i].item);

            answered = w && (w == fp.fix[j].items || w[-1] == ' ') && (!w[n] || w[n] == ' ');
        }
        CHECK(answered, "%s (%s) has no step in the plan", it[i].item,
              vd_check_level_name(it[i].level));
    }

    /* --apply: exactly those files, with that text, under a root; nothing else */
    snprintf(dest, sizeof(dest), "%s", root);
    new_root();
    CHECK(vd_fixplan_apply(root, &fp, stdout) == 0, "apply");
    for (int i = 0; i < fp.n; i++)
        if (fp.fix[i].path[0])
            CHECK(file_is(fp.fix[i].path, fp.fix[i].content), "%s as planned", fp.fix[i].path);
    {
        char cmd[600];
        FILE *f;
        int n = 0;

        snprintf(cmd, sizeof(cmd), "find '%s' -type f | wc -l", root);
        f = popen(cmd, "r");
        CHECK(f && fscanf(f, "%d", &n) == 1 && n == files, "%d files under the root, %d planned", n,
              files);
        if (f)
            pclose(f);
    }
    /* an unwritable place is an error, reported: a root below a character device */
    CHECK(vd_fixplan_apply("/dev/null", &fp, NULL) == -ENOTDIR, "apply under /dev/null: ENOTDIR");
    (void)dest;
}

/* a stock laptop kernel, nothing tuned, cpu 1 */
static void test_untuned(void)
{
    struct vd_check_item it[VD_CHECK_ITEMS];
    struct vd_check_env e = {
        .cpu = 1, .priority = 80, .blas_parallel = 1, .blas_config = "OpenBLAS USE_OPENMP"};
    int fails;

    new_root();
    put("proc/sys/kernel/osrelease", "6.1.0-13-amd64\n");
    put("proc/version", "Linux version 6.1.0-13-amd64 #1 SMP PREEMPT_DYNAMIC Debian\n");
    put("sys/devices/system/cpu/isolated", "\n");
    put("sys/devices/system/cpu/nohz_full", "(null)\n");
    put("sys/devices/system/cpu/online", "0-7\n");
    put("proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 quiet\n");
    put("proc/sys/kernel/sched_rt_runtime_us", "950000\n");
    put("proc/sys/kernel/sched_rt_period_us", "1000000\n");
    put("sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "powersave\n");
    put("sys/devices/system/cpu/cpu1/topology/thread_siblings_list", "1,5\n");
    put("proc/irq/default_smp_affinity", "ff\n");
    put("proc/irq/0/smp_affinity_list", "0-7\n");
    put("proc/self/status", "CapEff:\t0000000000000000\n");
    put("proc/self/limits",
        "Max locked memory         8388608              8388608              bytes\n"
        "Max realtime priority     0                    0\n");
    put("sys/devices/system/clocksource/clocksource0/current_clocksource", "hpet\n");
    put("boot/config-6.1.0-13-amd64", "CONFIG_CGROUP_SCHED=y\nCONFIG_RT_GROUP_SCHED=y\n");
    put("sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
    put("proc/812/comm", "irqbalance\n");
    e.root = root;
    fails = vd_check_run(&e, it);
    CHECK(fails == 5,
          "untuned: %d FAILs, expected 5 (preempt_rt rt_group_sched memlock rtprio "
          "openblas)",
          fails);
    LEVEL(it, "preempt_rt", VD_CHECK_FAIL);
    LEVEL(it, "rt_group_sched", VD_CHECK_FAIL);
    LEVEL(it, "irqbalance", VD_CHECK_WARN);
    LEVEL(it, "isolcpus", VD_CHECK_WARN);
    LEVEL(it, "nohz_full", VD_CHECK_WARN);
    LEVEL(it, "rcu_nocbs", VD_CHECK_WARN);
    LEVEL(it, "rt_throttling", VD_CHECK_WARN);
    LEVEL(it, "cpu_governor", VD_CHECK_WARN);
    LEVEL(it, "smt_sibling", VD_CHECK_WARN);
    LEVEL(it, "irq_affinity", VD_CHECK_WARN);
    LEVEL(it, "memlock", VD_CHECK_FAIL);
    LEVEL(it, "rtprio", VD_CHECK_FAIL);
    LEVEL(it, "openblas", VD_CHECK_FAIL);
    LEVEL(it, "clocksource", VD_CHECK_WARN);
    LEVEL(it, "cpu_dma_latency", VD_CHECK_WARN);
    CHECK(strstr(find(it, "smt_sibling")->finding, "cpu5") != NULL, "sibling named");
    CHECK(strstr(find(it, "memlock")->finding, "8192 KiB") != NULL, "memlock: %s",
          find(it, "memlock")->finding);
    CHECK(strstr(find(it, "isolcpus")->fix, "isolcpus=domain,managed_irq,1") != NULL,
          "isolcpus fix: %s", find(it, "isolcpus")->fix);
    CHECK(vd_rt_auto_cpu(root, NULL, 0) == 7, "auto cpu without isolation: highest online");
    CHECK(vd_cpu_sibling(root, 1) == 5, "sibling of cpu1");
    test_plan_untuned(&e, it);
}

static void test_variants(void)
{
    struct vd_check_item it[VD_CHECK_ITEMS];
    struct vd_check_env e = {.cpu = 2, .priority = 90, .blas_parallel = 0};

    /* capabilities instead of limits; rcu via nohz_full; realtime via proc/version only;
     * no cpufreq; an IRQ and the default mask on the RT cpu */
    new_root();
    put("proc/version", "Linux version 6.12.0 #1 SMP PREEMPT_RT\n");
    put("sys/devices/system/cpu/isolated", "2-3\n");
    put("sys/devices/system/cpu/nohz_full", "2-3\n");
    put("proc/cmdline", "isolcpus=2-3 nohz_full=2-3\n");
    put("proc/sys/kernel/sched_rt_runtime_us", "-1\n");
    put("sys/devices/system/cpu/cpu2/topology/thread_siblings_list", "2-3\n");
    put("proc/stat", "cpu  1 2 3 4 5 6 7 8 0 0\ncpu3 10 0 10 1000 0 0 0 0 0 0\n");
    put("proc/irq/default_smp_affinity", "00000000,0000000f\n");
    put("proc/irq/5/smp_affinity_list", "2\n");
    put("proc/self/status", "CapEff:\t0000000000804000\n"); /* CAP_IPC_LOCK, CAP_SYS_NICE */
    put("proc/self/limits",
        "Max locked memory         65536                65536                bytes\n"
        "Max realtime priority     0                    0\n");
    e.root = root;
    e.sample_ns = 1000; /* two samples of an unchanged file: 0 % busy */
    vd_check_run(&e, it);
    LEVEL(it, "preempt_rt", VD_CHECK_PASS);
    LEVEL(it, "rcu_nocbs", VD_CHECK_PASS);
    CHECK(strstr(find(it, "rcu_nocbs")->finding, "implies") != NULL, "nohz_full implies rcu");
    LEVEL(it, "cpu_governor", VD_CHECK_PASS);
    LEVEL(it, "smt_sibling", VD_CHECK_PASS);
    CHECK(strstr(find(it, "smt_sibling")->finding, "0% busy") != NULL, "sampled: %s",
          find(it, "smt_sibling")->finding);
    LEVEL(it, "irq_affinity", VD_CHECK_WARN);
    CHECK(strstr(find(it, "irq_affinity")->finding, "1 of 1 IRQs") != NULL &&
              strstr(find(it, "irq_affinity")->finding, "includes"),
          "irq: %s", find(it, "irq_affinity")->finding);
    LEVEL(it, "memlock", VD_CHECK_PASS);
    LEVEL(it, "rtprio", VD_CHECK_PASS);
    LEVEL(it, "clocksource", VD_CHECK_WARN);

    /* limits instead of capabilities, exactly enough */
    put("proc/self/status", "CapEff:\t0000000000000000\n");
    put("proc/self/limits",
        "Max locked memory         268435456            268435456            bytes\n"
        "Max realtime priority     90                   90\n");
    vd_check_run(&e, it);
    LEVEL(it, "memlock", VD_CHECK_PASS);
    LEVEL(it, "rtprio", VD_CHECK_PASS);
    e.priority = 91;
    vd_check_run(&e, it);
    LEVEL(it, "rtprio", VD_CHECK_FAIL);

    /* kernel config unknown; then RT_GROUP_SCHED with cgroup v1 (a WARN: cpu.rt_runtime_us
     * exists there) */
    LEVEL(it, "rt_group_sched", VD_CHECK_WARN);
    CHECK(strstr(find(it, "rt_group_sched")->finding, "unknown") != NULL, "config unknown");
    put("proc/sys/kernel/osrelease", "6.12.0\n");
    put("boot/config-6.12.0", "CONFIG_RT_GROUP_SCHED=y\n");
    vd_check_run(&e, it);
    LEVEL(it, "rt_group_sched", VD_CHECK_WARN);
    CHECK(strstr(find(it, "rt_group_sched")->finding, "cpu.rt_runtime_us") != NULL, "v1: %s",
          find(it, "rt_group_sched")->finding);

    /* irqbalance: running, cpu 2 isolated (left alone); banned by /etc/default/irqbalance on a
     * box without isolation; a commented ban does not count */
    put("proc/77/comm", "irqbalance\n");
    vd_check_run(&e, it);
    LEVEL(it, "irqbalance", VD_CHECK_PASS);
    put("sys/devices/system/cpu/isolated", "\n");
    put("sys/devices/system/cpu/nohz_full", "\n");
    put("etc/default/irqbalance", "#IRQBALANCE_BANNED_CPULIST=2\n");
    vd_check_run(&e, it);
    LEVEL(it, "irqbalance", VD_CHECK_WARN);
    put("etc/default/irqbalance", "IRQBALANCE_ONESHOT=0\nIRQBALANCE_BANNED_CPULIST=\"2-3\"\n");
    vd_check_run(&e, it);
    LEVEL(it, "irqbalance", VD_CHECK_PASS);

    /* no RT cpu configured: the plan asks for one first */
    e.cpu = -1;
    vd_check_run(&e, it);
    LEVEL(it, "isolcpus", VD_CHECK_WARN);
    LEVEL(it, "smt_sibling", VD_CHECK_WARN);
    LEVEL(it, "irq_affinity", VD_CHECK_WARN);
    LEVEL(it, "irqbalance", VD_CHECK_WARN);
    {
        struct vd_fixplan fp;

        CHECK(vd_fixplan_build(&e, it, &fp) == -EINVAL && fp.n == 1 && !fp.fix[0].path[0] &&
                  strstr(fp.fix[0].then, "set rt.cpu"),
              "no RT cpu: one manual step");
    }
}

static void test_helpers(void)
{
    uint64_t set[16];
    cpu_set_t allowed;

    CHECK(vd_cpulist_parse("domain,managed_irq,2-3,5", set) == 3 && (set[0] & 0x2c) == 0x2c &&
              !(set[0] & ~0x2cull),
          "isolcpus with flags");
    CHECK(vd_cpulist_parse("(null)", set) == 0, "(null)");
    CHECK(vd_cpulist_parse("", set) == 0, "empty");
    CHECK(vd_cpulist_parse("3-1", set) == -EINVAL, "reversed range");
    CHECK(vd_cpulist_parse("0-1023", set) == 1024, "all");
    CHECK(vd_cpulist_parse("1,1,1", set) == 1, "duplicates counted once");

    new_root();
    put("sys/devices/system/cpu/isolated", "2-3\n");
    put("sys/devices/system/cpu/online", "0-5\n");
    CHECK(vd_rt_auto_cpu(root, NULL, 0) == 3, "highest isolated");
    CPU_ZERO(&allowed);
    CPU_SET(0, &allowed);
    CPU_SET(2, &allowed);
    CHECK(vd_rt_auto_cpu(root, &allowed, sizeof(allowed)) == 2, "highest isolated and allowed");
    CPU_ZERO(&allowed);
    CPU_SET(4, &allowed);
    CHECK(vd_rt_auto_cpu(root, &allowed, sizeof(allowed)) == 4, "no isolated allowed: online");
    CHECK(vd_rt_kernel(root) == 0, "not RT");

    /* the cgroup's cpuset, not the inherited affinity: a service (cgroup v2, the cpuset file
     * only at the root) may pin to the isolated cpu 3 */
    new_root();
    put("sys/devices/system/cpu/isolated", "3\n");
    put("sys/devices/system/cpu/online", "0-3\n");
    CHECK(vd_rt_cpuset(root, set) == -ENOENT, "no cgroup: unknown");
    put("proc/self/cgroup", "0::/system.slice/system-rtvd.slice/rtvd@a.service\n");
    put("sys/fs/cgroup/cpuset.cpus.effective", "0-3\n");
    put("sys/fs/cgroup/system.slice/cgroup.procs", "");
    CHECK(vd_rt_cpuset(root, set) == 4 && set[0] == 0xf, "v2: the root's cpuset, walked up");
    CPU_ZERO(&allowed);
    for (int c = 0; c < 4; c++)
        CPU_SET((size_t)c, &allowed);
    CHECK(vd_rt_auto_cpu(root, &allowed, sizeof(allowed)) == 3, "a service picks isolated cpu 3");
    /* a cpuset of its own without cpu 3, and cgroup v1's cpuset controller */
    put("sys/fs/cgroup/system.slice/cpuset.cpus.effective", "0-2\n");
    CHECK(vd_rt_cpuset(root, set) == 3 && set[0] == 0x7, "v2: the nearest cpuset");
    put("proc/self/cgroup", "12:memory:/docker/x\n5:cpuset:/docker/x\n0::/\n");
    put("sys/fs/cgroup/cpuset/docker/x/cpuset.effective_cpus", "1-2\n");
    CHECK(vd_rt_cpuset(root, set) == 2 && set[0] == 0x6, "v1: the cpuset controller");
    CHECK(!strcmp(vd_check_level_name(VD_CHECK_WARN), "WARN"), "level names");
}

int main(void)
{
    test_tuned();
    test_untuned();
    test_variants();
    test_helpers();
    rm_rf();
    return vt_report("test_check");
}
