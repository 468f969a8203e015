/* tests/config/test_run_yaml.c - the run configuration loader (config/run_yaml.h): every key,
 * the defaults, scenario and model paths relative to the run file, a scenario's duration and
 * outputs as defaults, the default file, output signals resolved with located errors, the
 * command-line policy syntax and the config hash; the embedded default run file (the sedan in
 * its scenario) and located errors in embedded files.
 * (It tests config/run_yaml.c; it lives in tests/rt because rt owns `rtvd run`.) */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "config/run_yaml.h"
#include "config/vfs.h"

static char dir[256];
static char *qc_text;
static size_t qc_len;
static char def[512]; /* the default file: a copy of the quarter car */

static void write_file(const char *rel, const char *text)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
}

static void subdir(const char *rel)
{
    char path[512];

    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    mkdir(path, 0755);
}

static void read_model(void)
{
    FILE *f = fopen("config/models/quarter_car.yaml", "rb");

    if (!f) {
        perror("quarter_car.yaml");
        exit(1);
    }
    qc_text = calloc(1, 1 << 16);
    qc_len = fread(qc_text, 1, (1 << 16) - 1, f);
    fclose(f);
    write_file("default_qc.yaml", qc_text);
    snprintf(def, sizeof(def), "%s/default_qc.yaml", dir);
}

/* load text as dir/name with default file d; errors into *err (caller frees) */
static struct vd_run_cfg *load_def(const char *name, const char *text, const char *d, char **err)
{
    char path[512];
    size_t len = 0;
    FILE *ef = open_memstream(err, &len);
    struct vd_run_cfg *c;

    write_file(name, text);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    c = vd_cfg_load_run(path, d, ef);
    fclose(ef);
    return c;
}

static struct vd_run_cfg *load(const char *name, const char *text, char **err)
{
    return load_def(name, text, def, err);
}

static void test_full(void)
{
    char *err;
    struct vd_run_cfg *c;

    subdir("models");
    write_file("models/qc.yaml", qc_text);
    c = load("full.yaml",
             "model: models/qc.yaml\n"
             "duration: 2.5\n"
             "outputs: [chassis.z, strut.force, payload.u]\n"
             "rt:\n"
             "  period_us: 500\n"
             "  cpu: 3\n"
             "  priority: 70\n"
             "  policy: allow\n"
             "  allow: {count: 7, mode: consecutive, then: freeze, realign: delay}\n"
             "  grace_cycles: 100\n"
             "  histogram_us: 250\n"
             "  lock_memory: no\n"
             "  dma_latency: false\n"
             "telemetry:\n"
             "  udp: 10.0.0.2:5000\n"
             "  rate_hz: 25\n"
             "reports:\n"
             "  dir: /tmp/x\n"
             "  prefix: bench-1\n"
             "  trace: yes\n",
             &err);
    CHECK(c != NULL, "full file loads: %s", err);
    if (c) {
        CHECK(!c->scn && !c->scenario_path[0] && strstr(c->model_path, "/models/qc.yaml"),
              "model %s", c->model_path);
        CHECK(c->m && c->m->nbody == 5 && c->src, "model loaded");
        CHECK(c->duration == 2.5, "duration");
        CHECK(c->noutput == 3 && !strcmp(c->out_name[1], "strut.force") &&
                  c->out_sig[2].kind == VD_SIG_INPUT,
              "outputs");
        CHECK(c->rt.period_us == 500 && c->rt.cpu == 3 && c->rt.priority == 70, "rt basics");
        CHECK(c->rt.policy == VD_RUN_POLICY_ALLOW && c->rt.allow_count == 7 &&
                  c->rt.allow_mode == VD_RUN_ALLOW_CONSECUTIVE &&
                  c->rt.allow_then == VD_RUN_THEN_FREEZE &&
                  c->rt.allow_realign == VD_RUN_REALIGN_DELAY,
              "allow");
        CHECK(c->rt.grace_cycles == 100 && c->rt.histogram_us == 250, "grace, histogram");
        CHECK(!c->rt.lock_memory && !c->rt.dma_latency, "booleans");
        CHECK(c->telemetry.udp_on && !strcmp(c->telemetry.udp, "10.0.0.2:5000") &&
                  c->telemetry.rate_hz == 25.0,
              "telemetry");
        CHECK(!strcmp(c->reports.dir, "/tmp/x") && !strcmp(c->reports.prefix, "bench-1") &&
                  c->reports.trace,
              "reports");
    }
    vd_cfg_run_free(c);
    free(err);
}

static void test_defaults(void)
{
    char *err;
    struct vd_run_cfg *c = load("empty.yaml", "", &err), *c2;

    CHECK(c != NULL, "empty file = defaults: %s", err);
    if (c) {
        CHECK(!c->scn && !strcmp(c->model_path, def), "the default file: %s", c->model_path);
        CHECK(c->noutput == 6 * c->m->nbody && !strcmp(c->out_name[2], "chassis.z"),
              "default outputs: the pose of every body (%d)", c->noutput);
        CHECK(c->duration == 0 && c->rt.period_us == 1000 && c->rt.cpu == VD_RUN_CPU_AUTO &&
                  c->rt.priority == 80 && c->rt.policy == VD_RUN_POLICY_STOP &&
                  c->rt.grace_cycles == 0 && c->rt.histogram_us == 1000 && c->rt.lock_memory &&
                  c->rt.dma_latency,
              "rt defaults");
        CHECK(c->telemetry.udp_on && !strcmp(c->telemetry.udp, "127.0.0.1:9870") &&
                  c->telemetry.rate_hz == 10.0,
              "telemetry defaults");
        CHECK(!strcmp(c->reports.dir, "out") && !strcmp(c->reports.prefix, "rtvd") &&
                  !c->reports.trace,
              "report defaults");
    }
    free(err);
    /* hash: same text same hash, another model text another hash */
    c2 = load("empty2.yaml", "", &err);
    CHECK(c && c2 && c->hash == c2->hash, "same inputs, same hash");
    vd_cfg_run_free(c2);
    free(err);
    {
        /* the model without its last byte: still a valid model, another text */
        char def2[512];

        qc_text[qc_len - 1] = '\0';
        write_file("default_qc2.yaml", qc_text);
        qc_text[qc_len - 1] = '\n';
        snprintf(def2, sizeof(def2), "%s/default_qc2.yaml", dir);
        c2 = load_def("empty3.yaml", "", def2, &err);
        CHECK(c && c2 && c->hash != c2->hash, "the model text is part of the hash");
        vd_cfg_run_free(c2);
        free(err);
        /* no default: scenario or model required */
        c2 = load_def("empty4.yaml", "", NULL, &err);
        CHECK(!c2 && strstr(err, "empty4.yaml:1:1: error: scenario or model: missing"),
              "no default: %s", err);
        vd_cfg_run_free(c2);
        free(err);
    }
    c2 = load("cpu.yaml", "rt: {cpu: none, policy: queue, queue_depth: 3}\ntelemetry: {udp: off}\n",
              &err);
    CHECK(c2 && c2->rt.cpu == VD_RUN_CPU_NONE && c2->rt.queue_depth == 3 && !c2->telemetry.udp_on,
          "cpu none, queue depth, udp off: %s", err);
    CHECK(c && c2 && c->hash != c2->hash, "the run text is part of the hash");
    vd_cfg_run_free(c2);
    vd_cfg_run_free(c);
    free(err);
}

/* one bad file: NULL and the exact located message */
static void bad(const char *text, const char *want)
{
    char *err;
    struct vd_run_cfg *c = load("bad.yaml", text, &err);

    CHECK(c == NULL, "refused: %s", want);
    CHECK(strstr(err, want) != NULL, "want '%s', got:\n%s", want, err);
    vd_cfg_run_free(c);
    free(err);
}

static void test_errors(void)
{
    bad("duraton: 3\n", "bad.yaml:1:1: error: unknown key 'duraton' at the top level");
    bad("duration: -1\n", "bad.yaml:1:11: error: duration: -1 out of range [0, 1e+07]");
    bad("rt:\n  period_us: 10\n",
        "bad.yaml:2:14: error: rt.period_us: 10 out of range [50, 1e+06]");
    bad("rt:\n  policy: sometimes\n",
        "bad.yaml:2:11: error: rt.policy: unknown value 'sometimes' (expected one of: stop, skip, "
        "delay, queue, allow)");
    bad("rt:\n  cpu: all\n", "bad.yaml:2:8: error: rt.cpu: unknown value 'all'");
    bad("rt:\n  cpu: 2000\n", "bad.yaml:2:8: error: rt.cpu: 2000 out of range [0, 1023]");
    bad("rt:\n  priority: 1.5\n", "bad.yaml:2:13: error: rt.priority: expected an integer");
    bad("rt:\n  queue_depth: 2\n",
        "bad.yaml:2:16: error: rt.queue_depth: only used with policy: queue");
    bad("rt:\n  policy: allow\n", "bad.yaml:2:11: error: rt.allow: required with policy: allow");
    bad("rt:\n  policy: allow\n  allow: {mode: total}\n",
        "bad.yaml:3:10: error: missing required key 'count' in rt.allow");
    bad("rt:\n  policy: allow\n  allow: {count: 1, then: explode}\n",
        "bad.yaml:3:27: error: rt.allow.then: unknown value 'explode'");
    bad("rt:\n  lock_memory: maybe\n",
        "bad.yaml:2:16: error: rt.lock_memory: unknown value 'maybe'");
    bad("telemetry:\n  udp: 127.0.0.1\n",
        "bad.yaml:2:8: error: telemetry.udp: '127.0.0.1' is not IPV4:PORT");
    bad("telemetry:\n  rate_hz: 0\n",
        "bad.yaml:2:12: error: telemetry.rate_hz: 0 out of range (0, 1000]");
    bad("reports:\n  prefix: a/b\n",
        "bad.yaml:2:11: error: reports.prefix: 'a/b' may only contain");
    bad("outputs: [chassis.z, chassis.q]\n",
        "bad.yaml:1:22: error: outputs[1]: unknown signal 'chassis.q' of model quarter-car-dw");
    bad("outputs: chassis.z\n", "bad.yaml:1:10: error: outputs: expected a sequence");
    bad("model: nosuch.yaml\n", "bad.yaml:1:8: error: model: cannot read");
    bad("rt: {policy: skip}\nrt: {policy: stop}\n", "bad.yaml:2:1: error: duplicate key 'rt'");
    bad("rt: [1, 2]\n", "bad.yaml:1:5: error: rt: expected a mapping, got a sequence");
    /* a broken model file: its own errors, then the run file's */
    write_file("broken.yaml", "bodies:\n  - name: a\n    mass: -1\n    inertia: [1, 1, 1]\n");
    bad("model: broken.yaml\n",
        "broken.yaml:3:11: error: bodies[0].mass: -1 out of range [0.001, 100000] kg");
    bad("model: broken.yaml\n", "bad.yaml:1:8: error: model: '");
}

/* a scenario file named relative to the run file: its model, duration and outputs as
 * defaults, overridden by the run file's; the hash covers the scenario and its vehicle */
static void test_scenario(void)
{
    static const char scn[] = "scenario:\n"
                              "  name: qc-scn\n"
                              "  vehicle: ../models/qc.yaml\n"
                              "  duration: 3\n"
                              "initial: {static: false}\n"
                              "inputs:\n"
                              "  payload: 500\n"
                              "outputs: [chassis.z, strut.force, payload.u]\n";
    struct vd_run_cfg *c, *c2;
    char *err;

    subdir("models");
    subdir("scenarios");
    subdir("runs");
    write_file("models/qc.yaml", qc_text);
    write_file("scenarios/s.yaml", scn);
    c = load("runs/scn.yaml", "scenario: ../scenarios/s.yaml\nrt: {policy: skip}\n", &err);
    CHECK(c != NULL, "scenario run file loads: %s", err);
    if (c) {
        CHECK(c->scn && strstr(c->scenario_path, "/runs/../scenarios/s.yaml") &&
                  strstr(c->model_path, "/scenarios/../models/qc.yaml"),
              "paths relative to the run file, then to the scenario: %s, %s", c->scenario_path,
              c->model_path);
        CHECK(c->m == c->scn->m && c->src == c->scn->src && c->m->nbody == 5 &&
                  !strcmp(c->scn->name, "qc-scn") && !c->scn->statics,
              "the scenario's model");
        CHECK(c->duration == 3.0, "the scenario's duration: %g", c->duration);
        CHECK(c->noutput == 3 && !strcmp(c->out_name[0], "chassis.z") &&
                  !strcmp(c->out_name[2], "payload.u") && c->out_sig[2].kind == VD_SIG_INPUT,
              "the scenario's outputs");
        CHECK(c->rt.policy == VD_RUN_POLICY_SKIP, "the rest of the run file");
    }
    free(err);
    /* the run file's duration and outputs win */
    c2 = load("runs/scn2.yaml",
              "scenario: ../scenarios/s.yaml\nduration: 0\noutputs: [strut.length]\n", &err);
    CHECK(c2 && c2->scn && c2->duration == 0.0 && c2->noutput == 1 &&
              !strcmp(c2->out_name[0], "strut.length"),
          "duration and outputs of the run file: %s", err);
    vd_cfg_run_free(c2);
    free(err);
    /* the hash covers the scenario text and its vehicle's */
    write_file("scenarios/s.yaml", "# another text\n");
    {
        FILE *f;
        char path[512];

        snprintf(path, sizeof(path), "%s/scenarios/s.yaml", dir);
        f = fopen(path, "a");
        fputs(scn, f);
        fclose(f);
    }
    c2 = load("runs/scn.yaml", "scenario: ../scenarios/s.yaml\nrt: {policy: skip}\n", &err);
    CHECK(c && c2 && c->hash != c2->hash, "the scenario text is part of the hash: %s", err);
    vd_cfg_run_free(c2);
    free(err);
    write_file("scenarios/s.yaml", scn);
    write_file("models/qc.yaml", "# another text\n");
    {
        FILE *f;
        char path[512];

        snprintf(path, sizeof(path), "%s/models/qc.yaml", dir);
        f = fopen(path, "a");
        fputs(qc_text, f);
        fclose(f);
    }
    c2 = load("runs/scn.yaml", "scenario: ../scenarios/s.yaml\nrt: {policy: skip}\n", &err);
    CHECK(c && c2 && c->hash != c2->hash, "the vehicle text is part of the hash: %s", err);
    vd_cfg_run_free(c2);
    free(err);
    write_file("models/qc.yaml", qc_text);
    vd_cfg_run_free(c);

    /* a scenario as the default file */
    {
        char d[512];

        snprintf(d, sizeof(d), "%s/scenarios/s.yaml", dir);
        c = load_def("runs/empty.yaml", "", d, &err);
        CHECK(c && c->scn && !strcmp(c->scenario_path, d) && c->duration == 3.0,
              "a scenario as the default: %s", err);
        vd_cfg_run_free(c);
        free(err);
    }

    /* mistakes, located */
    bad("model: default_qc.yaml\nscenario: scenarios/s.yaml\n",
        "bad.yaml:2:11: error: scenario and model: give one of them, not both");
    bad("scenario: scenarios/s.yaml\nmodel: default_qc.yaml\n",
        "bad.yaml:2:8: error: scenario and model: give one of them, not both");
    bad("scenario: nosuch.yaml\n", "bad.yaml:1:11: error: scenario: cannot read '");
    /* what is not a regular file is refused where it is named (never read until memory runs
     * out, as /dev/zero was) */
    bad("scenario: /dev/zero\n", "bad.yaml:1:11: error: scenario: cannot read '/dev/zero': is "
                                 "not a regular file");
    bad("model: /tmp\n", "bad.yaml:1:8: error: model: cannot read '/tmp': is a directory");
    bad("can:\n  mapping: /dev/zero\n", "bad.yaml:2:12: error: can.mapping: cannot read "
                                        "'/dev/zero': is not a regular file");
    bad("scenario: default_qc.yaml\n", "bad.yaml:1:11: error: scenario: '");
    bad("scenario: default_qc.yaml\n", "is not a scenario file");
    bad("model: scenarios/s.yaml\n", "bad.yaml:1:8: error: model: '");
    bad("model: scenarios/s.yaml\n", "is a scenario file");
    bad("scenario: [a]\n", "bad.yaml:1:11: error: scenario: expected a string, got a sequence");
    bad("scenario: scenarios/s.yaml\noutputs: [nosuch.x]\n",
        "bad.yaml:2:11: error: outputs[0]: unknown signal 'nosuch.x'");
    /* a broken scenario: its own located errors, then the run file's */
    write_file("scenarios/broken.yaml",
               "scenario:\n  vehicle: ../models/qc.yaml\n  duration: 3\ninputs:\n  nosuch: 1\n");
    bad("scenario: scenarios/broken.yaml\n", "broken.yaml:5:3: error: inputs.nosuch: ");
    bad("scenario: scenarios/broken.yaml\n", "bad.yaml:1:11: error: scenario: '");
}

/* the embedded files: the default run file is the sedan in its scenario with the driver;
 * every shipped run file loads from the table; errors in embedded files are located with
 * their embedded names */
static void test_embedded(void)
{
    static const char bad_vehicle[] =
        "bodies:\n  - name: a\n    mass: -1\n    inertia: [1, 1, 1]\n";
    static const char bad_run[] = "model: ../vehicles/bad.yaml\n";
    static const struct vd_cfg_file mine[] = {
        {"<embedded>/config/runs/bad.yaml", (const unsigned char *)bad_run, sizeof(bad_run) - 1},
        {"<embedded>/config/vehicles/bad.yaml", (const unsigned char *)bad_vehicle,
         sizeof(bad_vehicle) - 1},
    };
    struct vd_run_cfg *c;
    char *err;
    size_t len = 0;
    FILE *ef;
    int nrun = 0;

    vd_cfg_vfs_register(vd_embedded_files, vd_embedded_nfiles);
    ef = open_memstream(&err, &len);
    c = vd_cfg_load_run("<embedded>/config/runs/default.yaml",
                        "<embedded>/config/scenarios/hil_default.yaml", ef);
    fclose(ef);
    CHECK(c != NULL, "the embedded default run file loads: %s", err);
    if (c) {
        CHECK(c->scn && !strcmp(c->scenario_path, "<embedded>/config/scenarios/hil_default.yaml"),
              "the default scenario: %s", c->scenario_path);
        CHECK(!strcmp(c->model_path, "<embedded>/config/vehicles/sedan.yaml") &&
                  !strcmp(c->m->name, "sedan") && c->m->ntire == 4 && c->m->nq == 300,
              "the sedan: %s %s, %d DOF", c->model_path, c->m->name, c->m->nq);
        CHECK(c->scn->has_driver && c->scn->drv.speed_on && c->scn->drv.path_on && c->scn->statics,
              "statics first, driver with speed control and path following");
        CHECK(c->duration >= 10.0 && c->duration <= 20.0 && c->duration == c->scn->duration,
              "the scenario's duration, 10-20 s: %g", c->duration);
        CHECK(c->noutput == c->scn->nout && c->noutput > 0, "the scenario's outputs");
        CHECK(c->rt.period_us == 1000, "1 kHz");
    }
    vd_cfg_run_free(c);
    free(err);
    /* every shipped run file, embedded */
    for (int i = 0; i < vd_embedded_nfiles; i++) {
        const char *p = vd_embedded_files[i].path;

        if (strncmp(p, "<embedded>/config/runs/", 23))
            continue;
        nrun++;
        ef = open_memstream(&err, &len);
        c = vd_cfg_load_run(p, NULL, ef);
        fclose(ef);
        CHECK(c != NULL, "%s loads: %s", p, err);
        vd_cfg_run_free(c);
        free(err);
    }
    CHECK(nrun >= 3, "shipped run files: %d", nrun);

    /* errors in embedded files read like those of files on disk */
    vd_cfg_vfs_register(mine, 2);
    ef = open_memstream(&err, &len);
    c = vd_cfg_load_run("<embedded>/config/runs/bad.yaml", NULL, ef);
    fclose(ef);
    CHECK(!c && strstr(err, "<embedded>/config/vehicles/bad.yaml:3:11: error: bodies[0].mass: -1 "
                            "out of range [0.001, 100000] kg\n      mass: -1\n"),
          "located error in an embedded model:\n%s", err);
    CHECK(strstr(err, "<embedded>/config/runs/bad.yaml:1:8: error: model: "
                      "'<embedded>/config/vehicles/bad.yaml' does not load"),
          "and in the embedded run file:\n%s", err);
    vd_cfg_run_free(c);
    free(err);
    vd_cfg_vfs_register(NULL, 0);
}

/* the can: section: every key, defaults, the mapping relative to the run file (its text in
 * the hash), the ECU's faults, located errors; the embedded default has the CAN loop */
static void test_can(void)
{
    struct vd_run_cfg *c, *c0;
    char *err = NULL;
    uint64_t h0;

    write_file("map.yaml", "buses: []\n");
    c0 = load("nocan.yaml", "duration: 1\n", &err);
    CHECK(c0 && !c0->can.on && c0->can.priority == 70 && c0->can.cpu == VD_RUN_CPU_NONE &&
              c0->can.port == 0 && !c0->can.ecu.enable && c0->can.ecu.priority == 60 &&
              c0->can.ecu.nfault == 0 && c0->can.ecu.nspeed == 0 && c0->can.ecu.eps_gain < 0,
          "no can: section: off, defaults: %s", err);
    h0 = c0 ? c0->hash : 0;
    vd_cfg_run_free(c0);
    free(err);
    c = load("can.yaml",
             "duration: 1\n"
             "can:\n"
             "  mapping: map.yaml\n"
             "  role: target\n"
             "  priority: 65\n"
             "  cpu: 1\n"
             "  port: 24000\n"
             "  ecu:\n"
             "    enable: true\n"
             "    priority: 55\n"
             "    speed: [[0, 0], [2, 5]]\n"
             "    eps_gain: 0.5\n"
             "    faults:\n"
             "      - {fault: silent, message: ECU_WheelTorques, at: 1, duration: 0.5}\n"
             "      - {fault: bad_crc, message: ECU_BrakeTorques, at: 2, count: 3}\n"
             "      - {fault: flood, message: ECU_Steering, at: 3, factor: 20}\n"
             "      - {fault: unknown_id, at: 4}\n"
             "      - fault: bad_datagram\n",
             &err);
    CHECK(c != NULL, "can: section loads: %s", err);
    if (c) {
        char want[600];

        snprintf(want, sizeof(want), "%s/map.yaml", dir);
        CHECK(c->can.on && !strcmp(c->can.mapping, want), "mapping relative to the run file: %s",
              c->can.mapping);
        CHECK(c->can.priority == 65 && c->can.cpu == 1 && c->can.port == 24000, "thread, port");
        CHECK(c->can.ecu.enable && c->can.ecu.priority == 55 && c->can.ecu.nspeed == 2 &&
                  c->can.ecu.speed_t[1] == 2 && c->can.ecu.speed_v[1] == 5 &&
                  c->can.ecu.eps_gain == 0.5,
              "ecu settings");
        CHECK(c->can.ecu.nfault == 5, "5 faults: %d", c->can.ecu.nfault);
        if (c->can.ecu.nfault == 5) {
            const struct vd_run_fault *f = c->can.ecu.fault;

            CHECK(f[0].kind == VD_RUN_FAULT_SILENT && !strcmp(f[0].message, "ECU_WheelTorques") &&
                      f[0].at == 1 && f[0].duration == 0.5 && f[0].count == 0 && f[0].line == 14 &&
                      f[0].col == 9,
                  "silent window, located at 14:9: %d:%d", f[0].line, f[0].col);
            CHECK(f[1].kind == VD_RUN_FAULT_BAD_CRC && f[1].count == 3 && f[1].duration < 0,
                  "bad_crc x3");
            CHECK(f[2].kind == VD_RUN_FAULT_FLOOD && f[2].factor == 20, "flood x20");
            CHECK(f[3].kind == VD_RUN_FAULT_UNKNOWN_ID && f[3].factor == 1 && !f[3].message[0],
                  "unknown ids, 1 per slot");
            CHECK(f[4].kind == VD_RUN_FAULT_BAD_DATAGRAM && f[4].at == 0, "bad datagrams");
        }
        CHECK(c->hash != h0, "the mapping's text is hashed");
    }
    vd_cfg_run_free(c);
    free(err);
    CHECK(vd_run_fault_kind("stale_counter") == VD_RUN_FAULT_STALE_COUNTER &&
              vd_run_fault_kind("nope") == -1 &&
              !strcmp(vd_run_fault_name(VD_RUN_FAULT_WRONG_LENGTH), "wrong_length"),
          "fault names");

    bad("can:\n  priority: 70\n", "bad.yaml:2:3: error: missing required key 'mapping' in can");
    bad("can:\n  mapping: nosuch.yaml\n", "bad.yaml:2:12: error: can.mapping: cannot read");
    bad("can:\n  mapping: map.yaml\n  role: ecu\n",
        "bad.yaml:3:9: error: can.role: unknown value 'ecu'");
    bad("can:\n  mapping: map.yaml\n  priority: 100\n",
        "bad.yaml:3:13: error: can.priority: 100 out of range [0, 99]");
    bad("can:\n  mapping: map.yaml\n  cpu: auto\n", "bad.yaml:3:8: error: can.cpu: unknown value");
    bad("can:\n  mapping: map.yaml\n  ecu: {enable: sure}\n",
        "bad.yaml:3:17: error: can.ecu.enable: unknown value 'sure'");
    bad("can:\n  mapping: map.yaml\n  ecu:\n    faults:\n      - {fault: explode, message: X}\n",
        "bad.yaml:5:17: error: can.ecu.faults[0].fault: unknown fault 'explode'");
    bad("can:\n  mapping: map.yaml\n  ecu:\n    faults:\n      - {fault: nan}\n",
        "bad.yaml:5:9: error: can.ecu.faults[0].message: required for fault nan");
    bad("can:\n  mapping: map.yaml\n  ecu:\n    faults:\n"
        "      - {fault: unknown_id, message: X}\n",
        "bad.yaml:5:38: error: can.ecu.faults[0].message: not used by fault unknown_id");
    bad("can:\n  mapping: map.yaml\n  ecu:\n    faults:\n"
        "      - {fault: silent, message: X, duration: 1, count: 2}\n",
        "error: can.ecu.faults[0]: give duration or count, not both");
    bad("can:\n  mapping: map.yaml\n  ecu:\n    faults:\n"
        "      - {fault: silent, message: X, factor: 2}\n",
        "error: can.ecu.faults[0].factor: only used by burst, flood, unknown_id");
    bad("can:\n  mapping: map.yaml\n  ecu:\n    faults:\n"
        "      - {fault: flood, message: X, factor: 1}\n",
        "error: can.ecu.faults[0].factor: a flood needs 2 or more");
    bad("can:\n  mapping: map.yaml\n  ecu:\n    faults:\n      - {fault: nan, message: X, at: "
        "-1}\n",
        "error: can.ecu.faults[0].at: -1 out of range [0, 1e+06]");
    bad("can:\n  mapping: map.yaml\n  ecu:\n    speed: [[0, 0], [0, 1]]\n",
        "bad.yaml:4:12: error: can.ecu.speed");

    /* the embedded default closes the loop with the in-process ECU */
    vd_cfg_vfs_register(vd_embedded_files, vd_embedded_nfiles);
    {
        size_t len = 0;
        FILE *ef = open_memstream(&err, &len);

        c = vd_cfg_load_run("<embedded>/config/runs/default.yaml", NULL, ef);
        fclose(ef);
    }
    CHECK(c && c->can.on && !strcmp(c->can.mapping, "<embedded>/config/can/sedan.yaml") &&
              c->can.ecu.enable && c->can.priority < c->rt.priority,
          "default: can.mapping %s, ecu %d", c ? c->can.mapping : "", c ? c->can.ecu.enable : -1);
    vd_cfg_run_free(c);
    free(err);
    vd_cfg_vfs_register(NULL, 0);
}

static void test_policy_syntax(void)
{
    struct vd_run_rt rt = {0};

    CHECK(vd_run_parse_policy(&rt, "skip") == 0 && rt.policy == VD_RUN_POLICY_SKIP, "skip");
    CHECK(vd_run_parse_policy(&rt, "queue:4") == 0 && rt.policy == VD_RUN_POLICY_QUEUE &&
              rt.queue_depth == 4,
          "queue:4");
    CHECK(vd_run_parse_policy(&rt, "allow:12:consecutive:freeze:delay") == 0 &&
              rt.policy == VD_RUN_POLICY_ALLOW && rt.allow_count == 12 &&
              rt.allow_mode == VD_RUN_ALLOW_CONSECUTIVE && rt.allow_then == VD_RUN_THEN_FREEZE &&
              rt.allow_realign == VD_RUN_REALIGN_DELAY,
          "allow:12:consecutive:freeze:delay");
    CHECK(vd_run_parse_policy(&rt, "allow") == -22, "allow needs a count");
    CHECK(vd_run_parse_policy(&rt, "queue:0") == -22, "queue:0");
    CHECK(vd_run_parse_policy(&rt, "stop:3") == -22, "stop takes nothing");
    CHECK(vd_run_parse_policy(&rt, "allow:3:forever") == -22, "unknown allow word");
    CHECK(rt.policy == VD_RUN_POLICY_ALLOW && rt.allow_count == 12, "unchanged on error");
    CHECK(!strcmp(vd_run_policy_name(VD_RUN_POLICY_DELAY), "delay"), "names");
}

int main(void)
{
    char cmd[300];

    snprintf(dir, sizeof(dir), "/tmp/vd_runyaml_XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    read_model();
    test_full();
    test_defaults();
    test_errors();
    test_scenario();
    test_embedded();
    test_can();
    test_policy_syntax();
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd))
        fprintf(stderr, "cannot remove %s\n", dir);
    free(qc_text);
    return vt_report("test_run_yaml");
}
