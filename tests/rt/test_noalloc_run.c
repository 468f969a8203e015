/* tests/rt/test_noalloc_run.c - the whole real-time run allocates nothing and faults in no
 * page after init: the loop thread at 1 kHz, the telemetry thread (status line to /dev/null,
 * UDP status datagrams to a socket of this test, a per-cycle CSV trace) and an input
 * producer thread writing the input mailbox at 400 Hz, for 10 s with the counter armed.
 * malloc & co. are interposed in this executable and counted in every thread (symbol
 * interposition also sees calls inside libc, liblapacke and libopenblas); minor page faults
 * are counted for the whole process (getrusage RUSAGE_SELF). Set-up as `rtvd run` does it:
 * malloc tuned, mlockall, heap prefaulted, thread stacks prefaulted. Not under ASan/TSan.
 * Without an argument: the quarter car driven by its input signals. With a run file (ctest:
 * config/runs/default.yaml, the sedan in its HIL scenario with the closed-loop driver): the
 * scenario started as `rtvd run` starts it, the producer overriding one driver-controlled
 * input (front_l.drive); the override must reach the model while the driver keeps the other
 * inputs (the input contract of rt/loop.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "config/model_yaml.h"
#include "config/run_yaml.h"
#include "config/scenario.h"
#include "core/cue.h"
#include "core/data.h"
#include "core/linalg.h"
#include "core/signal.h"
#include "rt/clock.h"
#include "rt/loop.h"
#include "rt/sched.h"
#include "rt/telemetry.h"
#include "io/udpout.h"

#define ARMED_S 10

#include "noalloc.h"

#define OVERRIDE 123.0 /* [N m] front_l.drive from the producer (scenario mode) */

/* input producer at 400 Hz through the input mailbox: input `in` valid, the others not */
struct producer {
    struct vd_loop *L;
    int in;        /* the input it provides */
    bool constant; /* OVERRIDE, else a staircase 0..600 N */
    atomic_int stop;
    uint64_t published;
};

static void *produce(void *arg)
{
    struct producer *p = arg;
    int64_t next = vd_clock_now();

    while (!atomic_load_explicit(&p->stop, memory_order_acquire)) {
        struct vd_snapshot *s = vd_loop_input_back(p->L);
        struct timespec ts;

        s->seq = ++p->published;
        s->stamp_ns = vd_clock_now();
        for (int j = 0; j < s->n; j++) {
            s->value[j] = 0.0;
            vd_snapshot_valid(s)[j] = j == p->in;
        }
        s->value[p->in] = p->constant ? OVERRIDE : 100.0 * (double)(p->published % 7);
        vd_loop_input_publish(p->L);
        next += 2500000;
        ts = vd_ns_to_timespec(next);
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    /* outputs the loop evaluates every cycle, the tyre steer angle and the acceleration
     * without gravity among them */
    static const char *const scn_sig[] = {"chassis.vx",         "front_l.drive.u",
                                          "front_r.drive.u",    "steering.angle.u",
                                          "front_l.tire.steer", "imu.lax"};
    struct vd_source *src = NULL;
    struct vd_run_cfg *rc = NULL;
    struct vd_model *m;
    struct vd_data *d;
    struct vd_signal sig[6], in_sig;
    vd_input_fn scen_fn = vd_source_eval;
    void *scen_ctx;
    int nsig = 3;
    struct vd_loop L;
    struct vd_loop_cfg lc;
    struct vd_telemetry tm;
    struct vd_telemetry_cfg tc;
    struct vd_udpout uo;
    struct vd_rt_mem mem;
    struct vd_thread prod_thread;
    struct producer prod = {0};
    struct sockaddr_in rx_addr = {.sin_family = AF_INET};
    socklen_t alen = sizeof(rx_addr);
    char trace[] = "/tmp/vd_noalloc_trace_XXXXXX", buf[1024];
    const struct vd_snapshot *o;
    uint64_t c0 = 0, c1 = 0;
    long f0, f1, n, datagrams = 0;
    int rx, devnull, fd;

    /* cyclictest's order: malloc tuning + mlockall + heap prefault, then allocate */
    vd_rt_memory_setup(true, 8u << 20, &mem);
    printf("memory: %s (%s), malloc tuned %d\n", mem.locked ? "locked" : "not locked",
           mem.lock_errno ? strerror(mem.lock_errno) : "ok", mem.malloc_tuned);
    if (argc > 1) {
        /* a run file naming a scenario, started as rtvd run does */
        char err[200] = "";

        rc = vd_cfg_load_run(argv[1], NULL, stderr);
        CHECK(rc && rc->scn, "run file %s with a scenario", argv[1]);
        if (!rc || !rc->scn)
            return vt_report("test_noalloc_run");
        m = rc->m;
        d = vd_data_new(m);
        CHECK(vd_scenario_start(rc->scn, d, err, sizeof(err)) == 0, "scenario start: %s", err);
        CHECK(rc->scn->has_driver && d->input_fn == vd_driver_inputs, "the driver's inputs");
        scen_fn = d->input_fn;
        scen_ctx = d->input_ctx;
        nsig = 6;
        for (int i = 0; i < nsig; i++)
            CHECK(vd_signal_resolve(m, scn_sig[i], &sig[i]) == 0, "signal %s", scn_sig[i]);
        CHECK(vd_signal_resolve(m, "front_l.drive.u", &in_sig) == 0, "override input");
        prod.in = in_sig.index;
        prod.constant = true;
        printf("%s: scenario %s, vehicle %s (%d DOF), driver\n", argv[1], rc->scn->name, m->name,
               m->nq);
    } else {
        m = vd_cfg_load_model("config/models/quarter_car.yaml", &src, stderr);
        CHECK(m != NULL, "model");
        if (!m)
            return vt_report("test_noalloc_run");
        d = vd_data_new(m);
        vd_source_eval(src, 0.0, d->u);
        scen_ctx = src;
        CHECK(vd_signal_resolve(m, "chassis.z", &sig[0]) == 0 &&
                  vd_signal_resolve(m, "strut.force", &sig[1]) == 0 &&
                  vd_signal_resolve(m, "payload.u", &sig[2]) == 0,
              "signals");
    }

    /* a UDP receiver of our own on loopback */
    rx = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    rx_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(bind(rx, (struct sockaddr *)&rx_addr, sizeof(rx_addr)) == 0 &&
              getsockname(rx, (struct sockaddr *)&rx_addr, &alen) == 0,
          "receiver socket");
    devnull = open("/dev/null", O_WRONLY);
    fd = mkstemp(trace);
    close(fd);

    vd_loop_cfg_default(&lc);
    lc.policy.kind = VD_OVR_SKIP; /* the run must go on whatever this machine does */
    lc.policy.period_ns = 1000000;
    lc.ntaps = 2;
    {
        /* the motion cues at the chassis' CoM on every cycle, as rtvd run's loop with a
         * motion feed computes them (core/cue.h) */
        static struct vd_cue_point cue;
        const int ch = vd_model_find_body(m, "chassis");
        char cerr[120];

        CHECK(ch >= 0 && vd_cue_point_init(m, &cue, ch, m->body[ch].com, (const double[3]){0, 0, 0},
                                           cerr, sizeof(cerr)) == 0,
              "cue point");
        lc.cue = &cue;
    }
    CHECK(vd_loop_init(&L, &lc, m, d, scen_fn, scen_ctx, sig, nsig) == 0, "loop init");
    vd_telemetry_cfg_default(&tc);
    tc.rate_hz = 20;
    tc.status_fd = devnull;
    tc.log_fd = devnull;
    CHECK(vd_udpout_open(&uo, &rx_addr) == 0, "udp out");
    tc.send = vd_udpout_sink;
    tc.send_ctx = &uo;
    tc.trace_path = trace;
    CHECK(vd_telemetry_init(&tm, &L, &tc) == 0, "telemetry init");
    CHECK(vd_loop_start(&L) == 0, "loop start");
    CHECK(vd_telemetry_start(&tm) == 0, "telemetry start");
    prod.L = &L;
    atomic_init(&prod.stop, 0);
    {
        const struct vd_thread_spec ps = {.name = "vd-producer",
                                          .cpu = -1,
                                          .priority = 0,
                                          .stack_size = 128 * 1024,
                                          .fn = produce,
                                          .arg = &prod};

        CHECK(vd_rt_thread_create(&prod_thread, &ps) == 0, "producer");
    }
    printf("loop thread: %s %d on cpu %d (affinity %s)\n", vd_sched_policy_name(L.sched.policy),
           L.sched.priority, L.sched.cpu, L.sched.affinity);

    /* settle (first status lines, first datagrams, first trace flush), then arm */
    {
        const struct timespec ts = {0, 500000000};

        nanosleep(&ts, NULL);
    }
    o = vd_loop_output(&L, 1, NULL);
    c0 = o ? o->seq : 0;
    f0 = minflt();
    atomic_store(&calls, 0);
    atomic_store(&armed, 1);
    {
        /* drain the datagrams as they come (a few kB each: the socket buffer would hold
         * only some seconds' worth); recv(2) allocates nothing in this process */
        const struct timespec ts = {0, 100000000};

        for (int k = 0; k < ARMED_S * 10; k++) {
            nanosleep(&ts, NULL);
            while (recv(rx, buf, sizeof(buf), MSG_TRUNC) > 0)
                datagrams++;
        }
    }
    o = vd_loop_output(&L, 1, NULL);
    c1 = o ? o->seq : 0;
    atomic_store(&armed, 0);
    f1 = minflt();
    n = atomic_load(&calls);

    atomic_store_explicit(&prod.stop, 1, memory_order_release);
    vd_rt_thread_join(&prod_thread);
    vd_loop_request_stop(&L);
    vd_loop_join(&L);
    vd_telemetry_join(&tm);
    while (recv(rx, buf, sizeof(buf), 0) > 0)
        datagrams++;

    printf("armed %d s: %llu loop cycles, %ld allocator calls, %ld minor faults; %llu inputs "
           "published, %llu taken; %llu records, %ld datagrams received\n",
           ARMED_S, (unsigned long long)(c1 - c0), n, f1 - f0, (unsigned long long)prod.published,
           (unsigned long long)L.inputs_taken, (unsigned long long)tm.records, datagrams);
    CHECK(c1 - c0 >= (uint64_t)ARMED_S * 1000 - 5 - L.pol.skipped,
          "cycles while armed: %llu (skipped %llu)", (unsigned long long)(c1 - c0),
          (unsigned long long)L.pol.skipped);
    CHECK(n == 0, "%ld allocator calls after init (any thread)", n);
    CHECK(f1 - f0 == 0, "%ld minor page faults after init", f1 - f0);
    CHECK(L.step_errors == 0 && L.warmup_rc == 0, "steps");
    CHECK(L.inputs_taken > 1000, "input mailbox exercised");
    CHECK(tm.records + vd_ring_dropped(&L.rec) == L.pol.cycles, "records");
    CHECK(datagrams > ARMED_S * 10, "status datagrams received: %ld", datagrams);
    CHECK(tm.trace_errors == 0, "trace written");
    if (rc) {
        /* the last outputs: the override reached the model, the driver kept the rest */
        o = vd_loop_output(&L, 1, NULL);
        CHECK(o && o->value[1] == OVERRIDE, "front_l.drive.u = the producer's %g: %g", OVERRIDE,
              o ? o->value[1] : -1.0);
        CHECK(o && o->value[2] != OVERRIDE && d->t > 1.5 && o->value[0] > 0.1,
              "the driver drives (front_r.drive.u %g N m, vx %g m/s at t = %g s)",
              o ? o->value[2] : 0.0, o ? o->value[0] : 0.0, d->t);
    }

    vd_telemetry_free(&tm);
    CHECK(uo.sent == tm.datagrams, "datagrams sent by io");
    vd_udpout_close(&uo);
    vd_loop_free(&L);
    vd_data_free(d);
    if (rc) {
        vd_cfg_run_free(rc);
    } else {
        vd_source_free(src);
        vd_model_free(m);
    }
    close(rx);
    close(devnull);
    unlink(trace);
    return vt_report("test_noalloc_run");
}
