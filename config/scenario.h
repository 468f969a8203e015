/* config/scenario.h - scenario files: a vehicle (or any model file) plus a road, initial
 * conditions, open-loop input signals, a closed-loop driver, a duration and the signals to
 * record. Owns the loaded model, its signals and the driver configuration.
 * vd_cfg_load_scenario/free: init only (reads files, allocates, prints diagnostics).
 * vd_scenario_start: init only. The driver's input function is RT-safe (core/driver.h). */
#ifndef VD_CONFIG_SCENARIO_H
#define VD_CONFIG_SCENARIO_H

#include <stdbool.h>
#include <stdio.h>

#include "config/model_yaml.h"
#include "core/data.h"
#include "core/driver.h"
#include "core/model.h"

struct vd_scenario {
    char name[VD_NAME_MAX];
    char vehicle[512];  /* the model file it loaded */
    struct vd_model *m; /* finalized */
    struct vd_source *src;
    double duration; /* [s] */
    double speed0;   /* [m/s] initial forward speed of everything */
    double heading0; /* [rad] initial yaw of the whole vehicle */
    double pos0[2];  /* [m] initial x, y shift of the whole vehicle */
    bool statics;    /* start from the static equilibrium (default; `initial.static`) */
    bool has_driver;
    struct vd_driver drv; /* configuration; bound to a data object by vd_scenario_start */
    int nout;
    char (*out)[2 * VD_NAME_MAX]; /* (nout) default recorded signals */
};

/* true when the file's top level has a `scenario` key */
bool vd_cfg_is_scenario(const char *path);
/* load; vehicle (may be NULL) replaces the scenario's own vehicle file. NULL on error (all
 * diagnostics printed to errf, in file:line:col form) */
struct vd_scenario *vd_cfg_load_scenario(const char *path, const char *vehicle, FILE *errf);
void vd_cfg_scenario_free(struct vd_scenario *s);
/* put d into the scenario's initial state (pose shift, speeds, wheel spins, statics) and
 * install the input function (signals + driver) on d. 0 or -errno with a message in err. */
int vd_scenario_start(struct vd_scenario *s, struct vd_data *d, char *err, size_t errlen);

#endif /* VD_CONFIG_SCENARIO_H */
