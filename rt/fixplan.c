/* rt/fixplan.c - the changes that answer rtvd check's WARNs and FAILs. */
#include "fixplan.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

static const struct vd_check_item *item(const struct vd_check_item *items, const char *name)
{
    for (int i = 0; i < VD_CHECK_ITEMS; i++)
        if (items[i].item && !strcmp(items[i].item, name))
            return &items[i];
    return NULL;
}

static bool bad(const struct vd_check_item *items, const char *name)
{
    const struct vd_check_item *it = item(items, name);

    return it && it->level != VD_CHECK_PASS;
}

static struct vd_fix *add(struct vd_fixplan *p, const char *path, const char *then_fmt, ...)
    __attribute__((format(printf, 3, 4)));
static struct vd_fix *add(struct vd_fixplan *p, const char *path, const char *then_fmt, ...)
{
    struct vd_fix *x;
    va_list ap;

    if (p->n >= VD_FIX_MAX)
        return NULL;
    x = &p->fix[p->n++];
    memset(x, 0, sizeof(*x));
    snprintf(x->path, sizeof(x->path), "%s", path ? path : "");
    va_start(ap, then_fmt);
    vsnprintf(x->then, sizeof(x->then), then_fmt, ap);
    va_end(ap);
    return x;
}

static void cat(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cat(char *buf, size_t size, const char *fmt, ...)
{
    const size_t n = strlen(buf);
    va_list ap;

    if (n + 1 >= size)
        return;
    va_start(ap, fmt);
    vsnprintf(buf + n, size - n, fmt, ap);
    va_end(ap);
}

/* a CPU list ("0-2,5") of set */
static void list_of(const uint64_t set[16], char *buf, size_t size)
{
    buf[0] = '\0';
    for (int c = 0; c < 1024; c++) {
        int d = c;

        if (!((set[c / 64] >> (c % 64)) & 1u))
            continue;
        while (d + 1 < 1024 && ((set[(d + 1) / 64] >> ((d + 1) % 64)) & 1u))
            d++;
        if (d == c)
            cat(buf, size, "%s%d", *buf ? "," : "", c);
        else
            cat(buf, size, "%s%d-%d", *buf ? "," : "", c, d);
        c = d;
    }
}

/* does a drop-in of rtvd.service under root grant CAP_NET_ADMIN? */
static bool has_net_admin_dropin(const char *root)
{
    const size_t n = strlen(root);
    char dir[1024], path[1400], line[256];
    bool found = false;
    struct dirent *de;
    DIR *d;

    snprintf(dir, sizeof(dir), "%.*s/etc/systemd/system/rtvd.service.d",
             (int)(n && root[n - 1] == '/' ? n - 1 : n), root);
    d = opendir(dir);
    while (d && !found && (de = readdir(d))) {
        FILE *f;

        if (!strstr(de->d_name, ".conf"))
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        f = fopen(path, "r");
        while (f && !found && fgets(line, sizeof(line), f))
            found = !strncmp(line, "AmbientCapabilities=", 20) && strstr(line, "CAP_NET_ADMIN");
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return found;
}

/* the kernel's hex CPU mask of set ("ff", "1,00000000": 32-bit groups, highest first) */
static void mask_of(const uint64_t set[16], char *buf, size_t size)
{
    int top = 31;

    buf[0] = '\0';
    while (top > 0 && !(uint32_t)(set[top / 2] >> (32 * (top % 2))))
        top--;
    for (int g = top; g >= 0; g--) {
        const uint32_t w = (uint32_t)(set[g / 2] >> (32 * (g % 2)));

        if (g == top)
            cat(buf, size, "%x", w);
        else
            cat(buf, size, ",%08x", w);
    }
}

int vd_fixplan_build(const struct vd_check_env *e, const struct vd_check_item *items,
                     struct vd_fixplan *p)
{
    static const char *const cpu_items[] = {"isolcpus",     "nohz_full",  "rcu_nocbs",
                                            "irq_affinity", "irqbalance", "smt_sibling"};
    uint64_t rt[16] = {0}, on[16] = {0};
    char buf[512], cmd[640] = "", names[128] = "";
    const int sib = e->cpu >= 0 && bad(items, "smt_sibling") ? vd_cpu_sibling(e->root, e->cpu) : -1;
    bool cpu_needed = false;
    struct vd_fix *x;

    memset(p, 0, sizeof(*p));
    for (size_t i = 0; i < sizeof(cpu_items) / sizeof(cpu_items[0]); i++)
        cpu_needed |= bad(items, cpu_items[i]);
    if (e->cpu < 0 && cpu_needed) {
        x = add(p, NULL,
                "set rt.cpu (an integer) in the run configuration, then run rtvd check "
                "--fix-plan again");
        snprintf(x->items, sizeof(x->items), "isolcpus nohz_full rcu_nocbs irq_affinity");
        return -EINVAL;
    }
    /* the CPUs: the loop's (and its SMT sibling when that is flagged), the rest housekeeping */
    if (e->cpu >= 0) {
        rt[e->cpu / 64] |= 1ull << (e->cpu % 64);
        if (sib >= 0)
            rt[sib / 64] |= 1ull << (sib % 64);
        if (vd_sys_read(e->root, "sys/devices/system/cpu/online", buf, sizeof(buf)) ||
            vd_cpulist_parse(buf, on) <= 0)
            memset(on, 0, sizeof(on));
        for (int i = 0; i < 16; i++)
            on[i] &= ~rt[i];
        list_of(rt, p->rt_cpus, sizeof(p->rt_cpus));
        list_of(on, p->house_cpus, sizeof(p->house_cpus));
    }

    /* steps no file can do: the item's own fix (an RT kernel, the serial OpenBLAS, ...) */
    {
        static const char *const manual[] = {"preempt_rt", "rt_group_sched", "openblas"};

        for (size_t i = 0; i < sizeof(manual) / sizeof(manual[0]); i++)
            if (bad(items, manual[i])) {
                x = add(p, NULL, "%s", item(items, manual[i])->fix);
                snprintf(x->items, sizeof(x->items), "%s", manual[i]);
            }
    }

    /* the kernel command line: a GRUB drop-in (Debian's grub reads /etc/default/grub.d) */
    if (e->cpu >= 0) {
        buf[0] = '\0';
        if (bad(items, "isolcpus") || sib >= 0) {
            cat(buf, sizeof(buf), " isolcpus=managed_irq,domain,%s", p->rt_cpus);
            cat(names, sizeof(names), " isolcpus%s", sib >= 0 ? " smt_sibling" : "");
        }
        if (bad(items, "nohz_full")) {
            cat(buf, sizeof(buf), " nohz_full=%s", p->rt_cpus);
            cat(names, sizeof(names), " nohz_full");
        }
        if (bad(items, "rcu_nocbs")) {
            cat(buf, sizeof(buf), " rcu_nocbs=%s", p->rt_cpus);
            cat(names, sizeof(names), " rcu_nocbs");
        }
        if (bad(items, "irq_affinity") && *p->house_cpus) {
            cat(buf, sizeof(buf), " irqaffinity=%s", p->house_cpus);
            cat(names, sizeof(names), " irq_affinity");
        }
        if (*buf) {
            x = add(p, "/etc/default/grub.d/rtvd.cfg",
                    "update-grub, then reboot (or, with tuned: isolated_cores=%s in "
                    "/etc/tuned/realtime-variables.conf and tuned-adm profile rtvd)",
                    p->rt_cpus);
            snprintf(x->items, sizeof(x->items), "%s", names + 1);
            snprintf(x->content, sizeof(x->content),
                     "# written by rtvd check --apply: the RT CPU(s) %s isolated from the\n"
                     "# scheduler, the tick, RCU callbacks and IRQs (rtvd check items:%s)\n"
                     "GRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT%s\"\n",
                     p->rt_cpus, names, buf);
        }
    }
    /* IRQs now, without a reboot (per-CPU IRQs refuse; the kernel line makes it permanent) */
    if (bad(items, "irq_affinity") && *p->house_cpus) {
        char mask[300];

        mask_of(on, mask, sizeof(mask));
        snprintf(cmd, sizeof(cmd),
                 "now, until the reboot: for f in /proc/irq/*/smp_affinity_list; do echo %s > $f "
                 "2>/dev/null; done; echo %s > /proc/irq/default_smp_affinity",
                 p->house_cpus, mask);
        x = add(p, NULL, "%s", cmd);
        snprintf(x->items, sizeof(x->items), "irq_affinity");
    }
    if (bad(items, "irqbalance")) {
        x = add(p, "/etc/systemd/system/irqbalance.service.d/rtvd.conf",
                "systemctl daemon-reload && systemctl restart irqbalance");
        snprintf(x->items, sizeof(x->items), "irqbalance");
        snprintf(x->content, sizeof(x->content),
                 "# written by rtvd check --apply: irqbalance keeps IRQs off the RT CPU %s\n"
                 "[Service]\nEnvironment=IRQBALANCE_BANNED_CPULIST=%s\n",
                 p->rt_cpus, p->rt_cpus);
    }
    /* the helper threads of rtvd.service on the housekeeping CPUs (the loop pins itself) */
    if ((bad(items, "isolcpus") || sib >= 0) && *p->house_cpus) {
        x = add(p, "/etc/systemd/system/rtvd.service.d/cpu.conf", "systemctl daemon-reload");
        snprintf(x->items, sizeof(x->items), "isolcpus");
        snprintf(x->content, sizeof(x->content),
                 "# written by rtvd check --apply: rtvd's main and helper threads on the\n"
                 "# housekeeping CPUs; the loop thread pins itself to rt.cpu %d\n"
                 "[Service]\nCPUAffinity=%s\n",
                 e->cpu, p->house_cpus);
    }
    if (bad(items, "rt_throttling")) {
        x = add(p, "/etc/sysctl.d/60-rtvd.conf", "sysctl --system");
        snprintf(x->items, sizeof(x->items), "rt_throttling");
        snprintf(x->content, sizeof(x->content),
                 "# written by rtvd check --apply: no forced idle time in a cycle (the loop\n"
                 "# sleeps every period, so it cannot starve its isolated CPU)\n"
                 "kernel.sched_rt_runtime_us = -1\n");
    }
    if (bad(items, "cpu_governor")) {
        const int cpu = e->cpu < 0 ? 0 : e->cpu;

        x = add(p, "/etc/tmpfiles.d/rtvd-governor.conf",
                "systemd-tmpfiles --create /etc/tmpfiles.d/rtvd-governor.conf");
        snprintf(x->items, sizeof(x->items), "cpu_governor");
        snprintf(x->content, sizeof(x->content),
                 "# written by rtvd check --apply: the RT CPU at full speed from boot on\n"
                 "w /sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor - - - - performance\n",
                 cpu);
    }
    /* limits: the service has them; interactive runs by members of group rtvd */
    if (bad(items, "memlock") || bad(items, "rtprio")) {
        x = add(p, "/etc/security/limits.d/rtvd.conf",
                "run rtvd as rtvd.service (it sets LimitMEMLOCK, LimitRTPRIO and the "
                "capabilities); for interactive runs: adduser <you> rtvd, then log in again");
        snprintf(x->items, sizeof(x->items), "%s%s%s", bad(items, "memlock") ? "memlock" : "",
                 bad(items, "memlock") && bad(items, "rtprio") ? " " : "",
                 bad(items, "rtprio") ? "rtprio" : "");
        snprintf(x->content, sizeof(x->content),
                 "# written by rtvd check --apply: members of group rtvd may lock memory and use\n"
                 "# SCHED_FIFO up to 99 (pam_limits, at the next login)\n"
                 "@rtvd - memlock unlimited\n@rtvd - rtprio 99\n");
    }
    if (bad(items, "cpu_dma_latency")) {
        char rule[1024];
        struct stat st;
        const size_t n = strlen(e->root);

        snprintf(rule, sizeof(rule), "%s%slib/udev/rules.d/60-rtvd.rules", e->root,
                 n && e->root[n - 1] == '/' ? "" : "/");
        x = add(p, stat(rule, &st) ? "/etc/udev/rules.d/60-rtvd.rules" : NULL,
                "udevadm control --reload-rules && udevadm trigger --action=change "
                "--sysname-match=cpu_dma_latency; run rtvd as user rtvd (the service) or as a "
                "member of group rtvd");
        snprintf(x->items, sizeof(x->items), "cpu_dma_latency");
        if (*x->path)
            snprintf(x->content, sizeof(x->content),
                     "# written by rtvd check --apply: /dev/cpu_dma_latency to group rtvd\n"
                     "KERNEL==\"cpu_dma_latency\", GROUP=\"rtvd\", MODE=\"0660\"\n");
    }
    /* a mapping that configures its SocketCAN interface needs CAP_NET_ADMIN in the service */
    if (e->can_configure && *e->can_configure && !has_net_admin_dropin(e->root)) {
        x = add(p, "/etc/systemd/system/rtvd.service.d/can.conf", "systemctl daemon-reload");
        snprintf(x->items, sizeof(x->items), "can_configure");
        snprintf(
            x->content, sizeof(x->content),
            "# written by rtvd check --apply: the run's CAN mapping configures %.64s\n"
            "# through libsocketcan (bit timing, restart): CAP_NET_ADMIN for rtvd.service\n"
            "[Service]\nAmbientCapabilities=CAP_NET_ADMIN\nCapabilityBoundingSet=CAP_NET_ADMIN\n",
            e->can_configure);
    }
    if (bad(items, "clocksource")) {
        x = add(p, NULL, "%s (dmesg | grep -i tsc says why the kernel left it)",
                item(items, "clocksource")->fix);
        snprintf(x->items, sizeof(x->items), "clocksource");
    }
    return 0;
}

static int mkdirs(char *path)
{
    for (char *s = path + 1; (s = strchr(s, '/')); s++) {
        *s = '\0';
        if (mkdir(path, 0755) && errno != EEXIST) {
            const int err = errno;

            *s = '/';
            return -err;
        }
        *s = '/';
    }
    return 0;
}

int vd_fixplan_apply(const char *root, const struct vd_fixplan *p, FILE *log)
{
    int first = 0;

    for (int i = 0; i < p->n; i++) {
        const struct vd_fix *x = &p->fix[i];
        const size_t n = strlen(root);
        char path[1024];
        int rc = 0;
        FILE *f;

        if (!*x->path)
            continue;
        snprintf(path, sizeof(path), "%.*s%s", (int)(n && root[n - 1] == '/' ? n - 1 : n), root,
                 x->path);
        rc = mkdirs(path);
        if (!rc) {
            f = fopen(path, "w");
            if (!f)
                rc = -errno;
            else if (fputs(x->content, f) < 0 || fclose(f))
                rc = -EIO;
        }
        if (log)
            fprintf(log, "%s %s%s%s\n", rc ? "FAILED" : "wrote", path, rc ? ": " : "",
                    rc ? strerror(-rc) : "");
        if (rc && !first)
            first = rc;
    }
    return first;
}

void vd_fixplan_print(const struct vd_fixplan *p, FILE *f)
{
    for (int i = 0; i < p->n; i++) {
        const struct vd_fix *x = &p->fix[i];

        fprintf(f, "%d. [%s]\n", i + 1, x->items);
        if (*x->path) {
            fprintf(f, "   %s:\n", x->path);
            for (const char *l = x->content; *l;) {
                const size_t len = strcspn(l, "\n");

                fprintf(f, "     %.*s\n", (int)len, l);
                l += len + (l[len] == '\n');
            }
            fprintf(f, "   then: %s\n", x->then);
        } else {
            fprintf(f, "   %s\n", x->then);
        }
    }
}
