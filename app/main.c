/* app/main.c - rtvd: real-time vehicle-dynamics HIL target. Dispatches git-style
 * subcommands; each has its own --help. */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "app/git_rev.h" /* VD_GIT_REV, generated at build time */
#include "config/vfs.h"

struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    {"sim", cmd_sim, "integrate a model as fast as possible, write time series"},
    {"bench", cmd_bench, "time every step and report the distribution"},
    {"modes", cmd_modes, "vibration modes at the static equilibrium (frequency, damping, name)"},
    {"run", cmd_run, "run a model in real time (the main job)"},
    {"check", cmd_check, "check this machine for hard real time"},
    {"ecu", cmd_ecu, "a virtual ECU on the other end of the CAN bus"},
    {"plot", cmd_plot, "charts of a run report or a recording (SVG and PNG)"},
    {"motion", cmd_motion, "the platform end of the motion feed: receive, check, record"},
    {"control", cmd_control, "the operator's commands to a run's motion feed: park, reset, engage"},
    {"monitor", cmd_monitor, "watch targets live: terminal, web view, Prometheus /metrics"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: rtvd <command> [options]   (rtvd <command> --help for details)\n\n"
               "commands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n  --version  print version and git revision\n"
               "  --help     this text\n");
}

int main(int argc, char **argv)
{
    vd_cfg_vfs_register(vd_embedded_files, vd_embedded_nfiles);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("rtvd %s (git %s)\n", VD_VERSION, VD_GIT_REV);
        return 0;
    }
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "rtvd: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
