/* app/cmd_check.c - rtvd check: is this box ready for hard real time? One line per item,
 * PASS / WARN / FAIL with the finding and the fix (rt/check.h does the inspecting). */
#include <getopt.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "config/can_map.h"
#include "config/run_yaml.h"
#include "core/linalg.h"
#include "rt/check.h"
#include "rt/fixplan.h"

static void check_usage(FILE *f)
{
    fprintf(f, "usage: rtvd check [CONFIG.yaml] [options]\n"
               "\n"
               "Inspect this machine for hard real time and print one line per item:\n"
               "  PASS|WARN|FAIL  item: finding — fix\n"
               "Items: PREEMPT_RT kernel, CONFIG_RT_GROUP_SCHED, isolcpus / nohz_full /\n"
               "rcu_nocbs covering the RT CPU, RT throttling, CPU frequency governor, SMT\n"
               "sibling of the RT CPU, IRQ affinity, irqbalance, RLIMIT_MEMLOCK, RLIMIT_RTPRIO,\n"
               "the OpenBLAS variant rtvd runs, clocksource, /dev/cpu_dma_latency. The RT CPU\n"
               "and priority come from CONFIG (default: the embedded default run\n"
               "configuration) or the options. Nothing is changed on the machine unless\n"
               "--apply is given.\n"
               "\n"
               "  --cpu N|auto          the loop's CPU (auto: the highest isolated CPU, else the\n"
               "                        highest allowed one)\n"
               "  --priority N          the loop's SCHED_FIFO priority\n"
               "  --root DIR            read sys/, proc/, dev/, etc/ under DIR (testing)\n"
               "  --no-sample           do not sample the SMT sibling's load (200 ms)\n"
               "  --fix-plan            then, for every WARN and FAIL, exactly what to change:\n"
               "                        the file (GRUB drop-in for the kernel command line,\n"
               "                        sysctl.d, tmpfiles.d for the governor, systemd drop-ins\n"
               "                        for irqbalance and rtvd.service's CPUAffinity,\n"
               "                        limits.d, a udev rule) with its whole text, and the\n"
               "                        command that makes it take effect; or the manual step\n"
               "  --apply               write those files (under --root), nothing else: the\n"
               "                        commands that activate them are printed, not run\n"
               "  --help                this text\n"
               "\n"
               "Exit status: 0 no FAIL, 1 at least one FAIL (--apply: a file not written),\n"
               "2 usage.\n");
}

int cmd_check(int argc, char **argv)
{
    static const struct option lopts[] = {
        {"cpu", required_argument, 0, 'c'},  {"priority", required_argument, 0, 'p'},
        {"root", required_argument, 0, 'r'}, {"no-sample", no_argument, 0, 'n'},
        {"fix-plan", no_argument, 0, 'f'},   {"apply", no_argument, 0, 'a'},
        {"help", no_argument, 0, 'h'},       {0, 0, 0, 0}};
    struct vd_check_item items[VD_CHECK_ITEMS];
    struct vd_check_env env = {.root = "/", .sample_ns = 200000000};
    struct vd_run_cfg *c;
    const char *cpu_arg = NULL;
    char blas[256], can_ifs[160] = "";
    long prio = -1;
    int ch, cpu, fails, n[3] = {0, 0, 0};
    bool plan = false, apply = false;

    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
        switch (ch) {
        case 'c':
            cpu_arg = optarg;
            break;
        case 'p':
            if (app_parse_long(optarg, &prio) || prio < 0 || prio > 99) {
                fprintf(stderr, "rtvd check: invalid --priority '%s'\n", optarg);
                return 2;
            }
            break;
        case 'r':
            env.root = optarg;
            break;
        case 'n':
            env.sample_ns = 0;
            break;
        case 'f':
            plan = true;
            break;
        case 'a':
            plan = apply = true;
            break;
        case 'h':
            check_usage(stdout);
            return 0;
        default:
            check_usage(stderr);
            return 2;
        }
    }
    if (argc - optind > 1) {
        check_usage(stderr);
        return 2;
    }
    c = vd_cfg_load_run(optind < argc ? argv[optind] : APP_DEFAULT_RUN, APP_DEFAULT_SCENARIO,
                        stderr);
    if (!c)
        return 2;
    cpu = c->rt.cpu;
    env.priority = prio >= 0 ? (int)prio : c->rt.priority;
    if (cpu_arg && app_parse_cpu(cpu_arg, false, &cpu)) {
        fprintf(stderr, "rtvd check: invalid --cpu '%s'\n", cpu_arg);
        vd_cfg_run_free(c);
        return 2;
    }
    if (cpu == VD_RUN_CPU_AUTO) {
        cpu_set_t allowed;
        const bool known = app_pinnable_cpus(env.root, &allowed);

        cpu = vd_rt_auto_cpu(env.root, known ? &allowed : NULL, sizeof(allowed));
    }
    env.cpu = cpu;
    /* the interfaces the run's CAN mapping configures (rtvd.service then needs CAP_NET_ADMIN) */
    if (c->can.on) {
        struct vd_candesc *cd = vd_cfg_load_canmap(c->can.mapping, VD_CANDESC_TARGET, stderr);

        for (int b = 0; cd && b < cd->nbus; b++)
            if (cd->bus[b].kind == VD_CANDESC_SOCKETCAN && cd->bus[b].configure == 1)
                snprintf(can_ifs + strlen(can_ifs), sizeof(can_ifs) - strlen(can_ifs), "%s%s",
                         *can_ifs ? " " : "", cd->bus[b].ifname);
        if (cd)
            vd_cfg_canmap_free(cd);
        env.can_configure = can_ifs;
    }
    vd_blas_init(blas, sizeof(blas));
    env.blas_parallel = vd_blas_parallel();
    env.blas_config = vd_blas_config();

    printf("rtvd check: RT cpu %d, SCHED_FIFO priority %d (%s)%s%s\n", env.cpu, env.priority,
           c->name, strcmp(env.root, "/") ? ", root " : "", strcmp(env.root, "/") ? env.root : "");
    fails = vd_check_run(&env, items);
    for (int i = 0; i < VD_CHECK_ITEMS; i++) {
        const struct vd_check_item *it = &items[i];

        n[it->level]++;
        printf("%s  %s: %s%s%s\n", vd_check_level_name(it->level), it->item, it->finding,
               *it->fix ? " — " : "", it->fix);
    }
    printf("rtvd check: %d pass, %d warn, %d fail\n", n[VD_CHECK_PASS], n[VD_CHECK_WARN],
           n[VD_CHECK_FAIL]);
    if (!plan && n[VD_CHECK_WARN] + n[VD_CHECK_FAIL] > 0)
        printf("rtvd check: --fix-plan prints exactly what to change (nothing is changed)\n");
    if (plan) {
        struct vd_fixplan *fp = malloc(sizeof(*fp));

        if (!fp) {
            vd_cfg_run_free(c);
            return 1;
        }
        vd_fixplan_build(&env, items, fp);
        if (!fp->n) {
            printf("rtvd check: fix plan: nothing to change\n");
        } else {
            printf("rtvd check: fix plan (%d changes%s%s%s%s%s):\n", fp->n,
                   *fp->rt_cpus ? "; RT cpus " : "", fp->rt_cpus,
                   *fp->house_cpus ? ", housekeeping cpus " : "", fp->house_cpus,
                   apply ? "" : "; nothing changed: --apply writes the files");
            vd_fixplan_print(fp, stdout);
            printf("The tuned way for the kernel line, sysctls, governor and irqbalance at once: "
                   "apt install tuned; echo isolated_cores=%s >> "
                   "/etc/tuned/realtime-variables.conf; tuned-adm profile rtvd; reboot\n",
                   *fp->rt_cpus ? fp->rt_cpus : "<rt.cpu>");
        }
        if (apply) {
            printf("rtvd check: --apply: writing the files under %s\n", env.root);
            fflush(stdout);
            if (vd_fixplan_apply(env.root, fp, stdout))
                fails = fails ? fails : 1;
            printf("rtvd check: --apply: done; run the 'then:' commands above to make them take "
                   "effect\n");
        }
        free(fp);
    }
    vd_cfg_run_free(c);
    return fails ? 1 : 0;
}
