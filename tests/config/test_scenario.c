/* tests/config/test_scenario.c - the scenario loader (config/scenario.h) on sizes no shipped
 * file has: a list of 150 recorded signals (was capped at 64), a driver speed schedule of 40
 * points (was capped at 32) and a path of 2000 points (was capped at 1024), all sized from
 * the file at load; every output resolves and the driver holds every point. Runs in the
 * source tree (the sedan's vehicle file). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "config/scenario.h"
#include "core/data.h"
#include "core/step.h"

static void test_large(void)
{
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char path[256], cwd[512];
    FILE *f;
    struct vd_scenario *s;
    int nout = 0;

    if (!getcwd(cwd, sizeof(cwd)))
        return;
    snprintf(path, sizeof(path), "%s/rtvd-test-scenario-%d.yaml", dir, (int)getpid());
    f = fopen(path, "w");
    CHECK(f != NULL, "write %s", path);
    if (!f)
        return;
    fprintf(f, "scenario: {name: large, vehicle: %s/config/vehicles/sedan.yaml, duration: 1}\n",
            cwd);
    fprintf(f, "driver:\n  drive: [front_l.drive, front_r.drive]\n");
    fprintf(f, "  brake: [front_l.brake, front_r.brake]\n  steering: steering.angle\n");
    fprintf(f, "  speed: [");
    for (int i = 0; i < 40; i++)
        fprintf(f, "%s[%d, %d]", i ? ", " : "", i, i % 5);
    fprintf(f, "]\n  path: [");
    for (int i = 0; i < 2000; i++)
        fprintf(f, "%s[%d, 0]", i ? ", " : "", i);
    fprintf(f, "]\noutputs: [");
    /* 150 signals: 50 bodies x (x, y, z) */
    {
        struct vd_scenario *probe =
            vd_cfg_load_scenario("config/scenarios/rest_flat.yaml", NULL, NULL);

        CHECK(probe && probe->m->nbody == 50, "the sedan has 50 bodies");
        for (int b = 0; probe && b < probe->m->nbody; b++)
            for (int c = 0; c < 3; c++, nout++)
                fprintf(f, "%s%s.%c", nout ? ", " : "", probe->m->body[b].name, "xyz"[c]);
        vd_cfg_scenario_free(probe);
    }
    fprintf(f, "]\n");
    fclose(f);
    s = vd_cfg_load_scenario(path, NULL, stderr);
    CHECK(s != NULL, "load the large scenario");
    if (s) {
        /* the loader resolves every output against the model: loaded means all resolved */
        CHECK(s->nout == 150 && nout == 150, "150 outputs: %d", s->nout);
        CHECK(s->has_driver && s->drv.nv == 40 && s->drv.vv[39] == 4.0, "40 speed points: %d",
              s->drv.nv);
        CHECK(s->drv.npath == 2000 && s->drv.ps[1999] == 1999.0, "2000 path points: %d",
              s->drv.npath);
        vd_cfg_scenario_free(s);
    }
    unlink(path);
}

/* write a scenario on the sedan with these extra lines (inputs) and start it; returns the
 * start's status, err its message, r (nq) the start state; NULL r: not kept */
static int start_with(const char *extra, char *err, size_t errlen, double *r, double *vx_after)
{
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char path[256], cwd[512];
    struct vd_scenario *s;
    struct vd_data *d;
    FILE *f;
    int rc = -1;

    if (!getcwd(cwd, sizeof(cwd)))
        return -1;
    snprintf(path, sizeof(path), "%s/rtvd-test-drive-%d.yaml", dir, (int)getpid());
    f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "scenario: {name: drive, vehicle: %s/config/vehicles/sedan.yaml, duration: 1}\n%s",
            cwd, extra);
    fclose(f);
    s = vd_cfg_load_scenario(path, NULL, stderr);
    unlink(path);
    if (!s)
        return -1;
    d = vd_data_new(s->m);
    if (d && !vd_solver_warmup(s->m, d)) {
        rc = vd_scenario_start(s, d, err, errlen);
        if (r && !rc)
            memcpy(r, d->r, (size_t)s->m->nq * sizeof(double));
        for (int k = 0; !rc && vx_after && k < 200; k++)
            vd_step(s->m, d);
        if (vx_after)
            *vx_after = d->v[0];
    }
    vd_data_free(d);
    vd_cfg_scenario_free(s);
    return rc;
}

/* issue 10 item 7a: a scenario that starts with drive torques settles with them held at 0 and
 * applies them from t = 0; one that cannot settle names the inputs that push */
static void test_drive_start(void)
{
    static double r0[600], r1[600];
    char err[400] = "";
    double vx = 0.0;
    int rc;

    rc = start_with("", err, sizeof(err), r0, NULL);
    CHECK(rc == 0, "the sedan settles without inputs: %s", err);
    rc =
        start_with("inputs: {front_l.drive: 300, front_r.drive: 300}\n", err, sizeof(err), r1, &vx);
    CHECK(rc == 0, "the sedan with 300 N m drive torques at t = 0 settles: %s", err);
    /* the same Newton iterations from the same start: the same pose bit for bit */
    CHECK(!memcmp(r0, r1, 300 * sizeof(double)), "the drive torques were held at 0 in the statics");
    CHECK(vx > 0.1, "then they drive it forward: vx %g m/s after 0.2 s", vx);
    rc = start_with("inputs: {steering.eps_torque: 3000}\n", err, sizeof(err), NULL, NULL);
    CHECK(rc < 0 && strstr(err, "steering.eps_torque = 3000"),
          "an input the vehicle cannot hold at rest is named: %s", err);
}

int main(void)
{
    test_large();
    test_drive_start();
    return vt_report("test_scenario");
}
