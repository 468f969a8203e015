/* rt/fixplan.h - `rtvd check --fix-plan`: what to change on a box for each WARN and FAIL of
 * rt/check.h, the way Debian takes such settings: a GRUB drop-in for the kernel command line
 * (/etc/default/grub.d), sysctl.d, a tmpfiles.d line for the CPU governor, systemd drop-ins
 * for irqbalance and for rtvd.service's CPUAffinity, limits.d and a udev rule for
 * interactive runs; then the commands that make each take effect, and the steps no file can
 * do (an RT kernel, the serial OpenBLAS). The tuned profile `rtvd` (deploy/pkg/tuned.conf)
 * is the one-step alternative for the kernel, sysctl, governor and irqbalance parts.
 * vd_fixplan_apply writes the files under a root: the only code in rtvd that changes a
 * machine, and only when asked (rtvd check --apply). Owns nothing. Init-time only. */
#ifndef VD_RT_FIXPLAN_H
#define VD_RT_FIXPLAN_H

#include <stdio.h>

#include "rt/check.h"

#define VD_FIX_MAX 12

struct vd_fix {
    char items[128];    /* the check items it answers, e.g. "isolcpus nohz_full" */
    char path[128];     /* the file to write (absolute; under the root); "": a manual step */
    char content[1024]; /* the file's whole text */
    char then[640];     /* the command(s) that make it take effect, or the manual step */
};

struct vd_fixplan {
    int n;
    struct vd_fix fix[VD_FIX_MAX];
    char rt_cpus[64];     /* the CPUs to isolate: the loop's, and its SMT sibling if flagged */
    char house_cpus[128]; /* the online CPUs but those: IRQs, helper threads */
};

/* the plan for items[VD_CHECK_ITEMS] as vd_check_run left them for env; 0, or -EINVAL when
 * no RT CPU is configured and a CPU-dependent item needs a fix (the plan then says so) */
int vd_fixplan_build(const struct vd_check_env *env, const struct vd_check_item *items,
                     struct vd_fixplan *p);
/* write every file of the plan under root (directories made 0755, files 0644, replaced
 * whole), one line per file to log; 0 or the first -errno (the rest still tried) */
int vd_fixplan_apply(const char *root, const struct vd_fixplan *p, FILE *log);
/* print the plan: per fix, the items, the file and its text, then what to run */
void vd_fixplan_print(const struct vd_fixplan *p, FILE *f);

#endif /* VD_RT_FIXPLAN_H */
