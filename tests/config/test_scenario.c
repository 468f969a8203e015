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

int main(void)
{
    test_large();
    return vt_report("test_scenario");
}
