/* tests/app/test_monitor.c - the monitor's state (app/monitor.h) fed datagrams directly: good
 * ones of both versions apply and raise exactly the alarms they should (a new overrun, a CAN
 * timeout, a motion fault, silence and its end, the end of a run); bad ones (too big, cut
 * short, not JSON, not a status, a newer version, each kind of bad field, an unknown sender,
 * a stale sequence number, a 17th target, a series value beyond int32) are counted by reason
 * and change nothing; the Prometheus text and the page's JSON say what was fed. The sockets,
 * the HTTP server and a real browser are tests/app/monitor_test.sh and monitor_web_test.sh. */
#include <arpa/inet.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/monitor.h"
#include "check.h"

#define EQ(a, b, what)                                                                             \
    CHECK((unsigned long long)(a) == (unsigned long long)(b), "%s: %llu, want %llu", what,         \
          (unsigned long long)(a), (unsigned long long)(b))

/* a version 2 datagram as rt/telemetry.c writes it (fields in its order) */
static int dgram(char *buf, size_t size, long pid, unsigned seq, unsigned cycles, unsigned overruns,
                 const char *events, unsigned timeouts, const char *extra)
{
    return snprintf(
        buf, size,
        "{\"rtvd_status\": 2, \"seq\": %u, \"target\": \"run.yaml\", \"host\": \"bench\", "
        "\"pid\": %ld, \"tid\": 12, \"priority\": 80, \"period_us\": 1000, \"cycles\": %u, "
        "\"t_model\": %.3f, \"state\": \"running\", \"final\": false, \"lat_min_us\": 10, "
        "\"lat_act_us\": 12, \"lat_avg_us\": 13, \"lat_max_us\": 40, \"exec_max_us\": 1500, "
        "\"turnaround_max_us\": 1520, \"overruns\": %u, \"grace_overruns\": 0, "
        "\"max_consecutive\": 1, \"max_overrun_us\": 520, \"skipped\": %u, \"latched\": %s, "
        "\"step_errors\": 0, \"ring_dropped\": 0, \"latency_us\": {\"min\": 10.5, \"act\": 12.1, "
        "\"avg\": 13.2, \"max\": 40.0}, \"execution_us\": {\"min\": 80.0, \"act\": 90.0, \"avg\": "
        "95.0, \"max\": 1500.0}, \"turnaround_us\": {\"min\": 95.0, \"act\": 100.0, \"avg\": "
        "110.0, \"max\": 1520.0}, \"stages_us\": {\"linearize\": {\"act\": 40.0, \"avg\": 41.0, "
        "\"max\": 90.0}, \"assemble\": {\"act\": 3.0, \"avg\": 3.0, \"max\": 9.0}, \"factor\": "
        "{\"act\": 10.0, \"avg\": 11.0, \"max\": 20.0}, \"stages\": {\"act\": 10.0, \"avg\": "
        "10.5, \"max\": 22.0}}, \"overrun\": {\"total\": %u, \"grace\": 0, \"consecutive\": 0, "
        "\"max_consecutive\": 1, \"max_us\": 520.0, \"max_cycle\": 7, \"first_cycle\": 7, "
        "\"latched\": true, \"skipped\": 0, \"frozen_cycles\": 0}, \"records\": {\"received\": "
        "%u, \"dropped\": 0, \"gaps\": 0, \"overruns\": %u}, \"events\": [%s], \"events_lost\": "
        "0, \"series\": {\"first_cycle\": %u, \"step\": 1, \"n\": 3, \"turnaround_us\": [100, "
        "null, 1520], \"latency_us\": [12, null, 20]}, \"hist\": {\"le_us\": [5, 10, 15, 20, "
        "30, 40, 50, 60, 80, 100, 125, 150, 200, 250, 300, 400, 500, 600, 800, 1000, 1250, "
        "1500, 2000, 3000, 5000, 10000], \"latency\": {\"count\": %u, \"sum_us\": 1300.0, \"n\": "
        "[0, 0, 50, 50, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "
        "%u]}, \"execution\": {\"count\": 0, \"sum_us\": 0.0, \"n\": [0, 0, 0, 0, 0, 0, 0, 0, 0, "
        "0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]}, \"turnaround\": {\"count\": "
        "100, \"sum_us\": 11000.0, \"n\": [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 99, 0, 0, 0, 0, 0, 0, "
        "0, 0, 0, 0, 1, 0, 0, 0, 0, 0]}}, \"can\": {\"seq\": 5, \"rx_frames\": 400, \"rx_used\": "
        "398, \"rx_rejected\": 2, \"rx_ignored\": 0, \"e2e_ok\": 398, \"e2e_ok_some_lost\": 0, "
        "\"e2e_error\": 2, \"e2e_repeated\": 0, \"e2e_wrong_sequence\": 0, \"values_rejected\": "
        "0, \"timeouts\": %u, \"recoveries\": 0, \"tx_frames\": 300, \"drops\": 0, \"slots\": "
        "1000, \"late_slots\": 0, \"invalid\": 0, \"bus_state\": 6, \"timed_out\": [%s]}%s}",
        seq, pid, cycles, cycles * 1e-3, overruns, overruns, overruns ? "true" : "false", overruns,
        cycles, overruns, events, cycles, cycles + 100, cycles, timeouts,
        timeouts ? "\"front_l.drive\"" : "", extra ? extra : "");
}

static struct sockaddr_in addr(const char *ip, int port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};

    inet_pton(AF_INET, ip, &a.sin_addr);
    return a;
}

static int feed(struct app_monitor *m, const char *s, const struct sockaddr_in *from, double t)
{
    return app_monitor_feed(m, s, strlen(s), strlen(s), from, t, 1.7e9 + t);
}

/* in into out with the first `from` replaced by `to`; false: no `from` in it */
static bool replaced(char *out, size_t size, const char *in, const char *from, const char *to)
{
    const char *p = strstr(in, from);

    if (!p)
        return false;
    snprintf(out, size, "%.*s%s%s", (int)(p - in), in, to, p + strlen(from));
    return true;
}

static int alarms_with(const struct app_mon_target *t, const char *text)
{
    int n = 0;

    for (size_t i = 0; i < t->al_n; i++)
        n += strstr(t->alarm[i].text, text) != NULL;
    return n;
}

static uint64_t total_rejected(const struct app_monitor *m)
{
    uint64_t n = 0;

    for (int r = 0; r < APP_MON_NREJECT; r++)
        n += m->rejected[r];
    return n;
}

static void t_good_and_alarms(void)
{
    struct app_monitor_cfg cfg;
    struct app_monitor *m = calloc(1, sizeof(*m));
    const struct sockaddr_in a = addr("127.0.0.1", 40000);
    static char buf[APP_MON_DGRAM_MAX];
    const struct app_mon_target *t;
    char *s;
    size_t len;

    app_monitor_cfg_default(&cfg);
    CHECK(app_monitor_init(m, &cfg) == 0, "init");
    dgram(buf, sizeof(buf), 100, 0, 100, 0, "", 0, NULL);
    EQ(feed(m, buf, &a, 1.0), 0, "first datagram accepted");
    t = &m->t[0];
    CHECK(t->used && !strcmp(t->name, "run.yaml") && !strcmp(t->host, "bench") && t->pid == 100,
          "target identity");
    EQ(t->s_n, 2, "series: two values, the null skipped");
    EQ(t->s_cycle[1], 102, "series cycles from first_cycle + j step");
    EQ(t->s_turn[1], 1520, "series value");
    EQ(alarms_with(t, "overrun"), 0, "no overrun alarm yet");

    /* a new overrun: one alarm naming its cycle and length */
    dgram(buf, sizeof(buf), 100, 1, 200, 1,
          "{\"cycle\": 150, \"overrun_us\": 520.0, \"turnaround_us\": 1520.0, \"grace\": false}", 0,
          NULL);
    EQ(feed(m, buf, &a, 1.1), 0, "overrun datagram");
    EQ(alarms_with(t, "overrun: 1 new (total 1, grace 0); cycle 150 +520.0 us"), 1,
       "overrun alarm");
    EQ(alarms_with(t, "latched"), 1, "the latch said once");
    EQ(t->ev_n, 1, "event kept");
    CHECK(t->ev[0].cycle == 150 && t->ev[0].overrun_us == 520.0, "event fields");
    /* the same count again: no new alarm; a CAN timeout: one */
    dgram(buf, sizeof(buf), 100, 3, 300, 1, "", 1, NULL);
    EQ(feed(m, buf, &a, 1.2), 0, "CAN timeout datagram");
    EQ(t->lost, 1, "seq 2 lost");
    EQ(alarms_with(t, "overrun:"), 1, "still one overrun alarm");
    EQ(alarms_with(t, "CAN timeout: 1 new (total 1); in timeout now: front_l.drive"), 1,
       "CAN timeout alarm");
    /* a motion feed's fault */
    dgram(buf, sizeof(buf), 100, 4, 400, 1, "", 1,
          ", \"motion\": {\"state\": \"engaged\", \"sent\": 40, \"fault\": \"host link lost\"}");
    EQ(feed(m, buf, &a, 1.3), 0, "motion datagram");
    EQ(alarms_with(t, "motion: host link lost"), 1, "motion fault alarm");
    /* the recording ring dropped records */
    dgram(buf, sizeof(buf), 100, 5, 440, 1, "", 1,
          ", \"recording\": {\"pushed\": 400, \"dropped\": 40}");
    EQ(feed(m, buf, &a, 1.35), 0, "recording datagram");
    EQ(alarms_with(t, "recording: 40 records dropped"), 1, "recording drop alarm");
    /* silence, then back */
    app_monitor_tick(m, 1.3 + cfg.silence_s + 0.1, 0);
    CHECK(t->silent && alarms_with(t, "target silent") == 1, "silent");
    app_monitor_tick(m, 1.3 + cfg.silence_s + 0.5, 0);
    EQ(alarms_with(t, "target silent"), 1, "silence said once");
    dgram(buf, sizeof(buf), 100, 6, 500, 1, "", 1,
          ", \"motion\": {\"state\": \"engaged\", \"sent\": 41, \"fault\": \"\", "
          "\"engage_timeouts\": 1, \"wrong_source\": 5, \"hb_stale\": 2, \"platform\": {\"state\": "
          "\"fault2\", "
          "\"state_code\": 9, "
          "\"fault1\": 0, \"fault2\": 64, \"fault3\": 0, \"status\": 120, \"rejected\": 3, "
          "\"resets\": 2}, \"operator\": {\"pending\": \"none\", \"commands\": {\"park\": "
          "{\"accepted\": 1, \"refused\": 0}, \"engage\": {\"accepted\": 2, \"refused\": 1}}, "
          "\"refused\": {\"malformed\": 4, \"fault\": 1}, \"parks\": 1, \"reengagements\": 2, "
          "\"resets_acked\": 1, \"resets_failed\": 0, \"resets_cut\": 3, \"engage_timeouts\": 0}}");
    EQ(feed(m, buf, &a, 5.0), 0, "back");
    CHECK(!t->silent && alarms_with(t, "back after") == 1, "back after silence");
    CHECK(alarms_with(t, "motion: parked by the operator") == 1 &&
              alarms_with(t, "motion: engaged again by the operator") == 1 &&
              alarms_with(t, "motion: platform fault reset by the operator") == 1,
          "the operator's commands as events");

    /* the views */
    s = app_monitor_metrics(m, 5.0, &len);
    CHECK(s && strstr(s, "# TYPE rtvd_overruns_total counter\nrtvd_overruns_total{target=\"run."
                         "yaml\",host=\"bench\",sender=\"127.0.0.1:40000\"} 1\n"),
          "overrun counter");
    CHECK(s && strstr(s, "rtvd_cycles_total{target=\"run.yaml\",host=\"bench\",sender=\"127.0.0."
                         "1:40000\"} 500\n"),
          "cycle counter");
    /* cumulative buckets: 50 at le 15 us, 100 at 20 us, + the 500 in the last at +Inf */
    CHECK(s && strstr(s, "rtvd_wakeup_latency_seconds_bucket{target=\"run.yaml\",host=\"bench\","
                         "sender=\"127.0.0.1:40000\",le=\"1.5e-05\"} 50\n"),
          "latency bucket le 15 us");
    CHECK(s && strstr(s, "le=\"+Inf\"} 600\n") && strstr(s, "rtvd_wakeup_latency_seconds_count{"),
          "latency +Inf bucket and count");
    CHECK(s && strstr(s, "rtvd_turnaround_seconds_sum{target=\"run.yaml\",host=\"bench\",sender="
                         "\"127.0.0.1:40000\"} 0.011\n"),
          "turnaround sum in seconds");
    CHECK(s && strstr(s, "rtvd_can_timeouts_total{") &&
              strstr(s, "# TYPE rtvd_motion_datagrams_sent_total "
                        "counter\nrtvd_motion_datagrams_sent_total{"),
          "CAN and motion metrics (motion: counters with _total)");
    CHECK(s && !strstr(s, "rtvd_motion_state"), "strings are not metrics");
    /* a Moog platform's status (motion.platform): its state code and fault words as gauges */
    CHECK(s && strstr(s, "# TYPE rtvd_motion_platform_state gauge\nrtvd_motion_platform_state{"
                         "target=\"run.yaml\",host=\"bench\",sender=\"127.0.0.1:40000\"} 9\n"),
          "platform state gauge");
    CHECK(s &&
              strstr(s, "rtvd_motion_platform_fault_word2{target=\"run.yaml\",host=\"bench\","
                        "sender=\"127.0.0.1:40000\"} 64\n") &&
              strstr(s, "rtvd_motion_platform_fault_word1{") &&
              strstr(s, "rtvd_motion_platform_fault_word3{"),
          "platform fault words");
    CHECK(s &&
              strstr(s, "# TYPE rtvd_motion_platform_status_rejected_total counter\n"
                        "rtvd_motion_platform_status_rejected_total{target=\"run.yaml\",host="
                        "\"bench\",sender=\"127.0.0.1:40000\"} 3\n") &&
              strstr(s, "rtvd_motion_platform_status_total{"),
          "platform status counters");
    /* the engage timeout and the fault resets (app/motionlink.h) */
    CHECK(s &&
              strstr(s, "# TYPE rtvd_motion_engage_timeouts_total counter\n"
                        "rtvd_motion_engage_timeouts_total{target=\"run.yaml\",host=\"bench\","
                        "sender=\"127.0.0.1:40000\"} 1\n") &&
              strstr(s, "# TYPE rtvd_motion_platform_resets_total counter\n"
                        "rtvd_motion_platform_resets_total{target=\"run.yaml\",host=\"bench\","
                        "sender=\"127.0.0.1:40000\"} 2\n"),
          "engage timeouts and resets");
    /* datagrams from another sender than the platform (app/motionlink.h wrong_source) */
    CHECK(s && strstr(s, "# TYPE rtvd_motion_wrong_source_datagrams_total counter\n"
                         "rtvd_motion_wrong_source_datagrams_total{target=\"run.yaml\",host="
                         "\"bench\",sender=\"127.0.0.1:40000\"} 5\n"),
          "wrong-source counter");
    CHECK(s && strstr(s, "# TYPE rtvd_motion_heartbeats_stale_total counter\n"
                         "rtvd_motion_heartbeats_stale_total{target=\"run.yaml\",host="
                         "\"bench\",sender=\"127.0.0.1:40000\"} 2\n"),
          "stale-heartbeat counter");
    /* the operator's control channel (motion.operator, app/motionctl.h) */
    CHECK(s && strstr(s, "# TYPE rtvd_motion_operator_commands_total counter\n") &&
              strstr(s, "rtvd_motion_operator_commands_total{target=\"run.yaml\",host=\"bench\","
                        "sender=\"127.0.0.1:40000\",cmd=\"engage\",result=\"accepted\"} 2\n") &&
              strstr(s, "rtvd_motion_operator_commands_total{target=\"run.yaml\",host=\"bench\","
                        "sender=\"127.0.0.1:40000\",cmd=\"engage\",result=\"refused\"} 1\n") &&
              strstr(s,
                     "rtvd_motion_operator_reengagements_total{target=\"run.yaml\",host=\"bench\","
                     "sender=\"127.0.0.1:40000\"} 2\n") &&
              strstr(s, "rtvd_motion_operator_resets_acked_total{") &&
              strstr(s, "rtvd_motion_operator_resets_cut_total{target=\"run.yaml\",host=\"bench\","
                        "sender=\"127.0.0.1:40000\"} 3\n"),
          "operator command counters");
    CHECK(s && strstr(s, "rtvd_monitor_datagrams_accepted_total 6\n"), "accepted counter");
    free(s);
    {
        char *txt = NULL;
        size_t tl = 0;
        FILE *f = open_memstream(&txt, &tl);

        app_monitor_text(m, f, false, 5.0, NULL);
        fclose(f);
        CHECK(txt && strstr(txt,
                            "  operator: pending none, commands park 1/0 engage 2/1 "
                            "(accepted/refused); refused: malformed 4 fault 1; parks 1, "
                            "re-engagements 2, RESET acked 1 failed 0 cut 3, engage timeouts 0\n"),
              "the operator line of the text view: %s",
              txt && strstr(txt, "operator") ? strstr(txt, "operator") : "none");
        free(txt);
    }
    s = app_monitor_json(m, 5.0, 100, &len);
    {
        json_error_t err;
        json_t *j = s ? json_loadb(s, len, 0, &err) : NULL;
        json_t *t0 = json_array_get(json_object_get(j, "targets"), 0);

        CHECK(j && json_array_size(json_object_get(j, "targets")) == 1, "page JSON");
        EQ(json_array_size(json_object_get(json_object_get(t0, "series"), "cycle")), 12,
           "page series: the 12 values kept");
        EQ(json_array_size(json_object_get(t0, "events")), 1, "page events");
        EQ(json_array_size(json_object_get(json_object_get(t0, "can"), "t_s")), 6, "page CAN");
        json_decref(j);
    }
    free(s);
    /* a target of before resets_cut (its cut RESETs counted in resets_failed): "cut -" and no
     * resets_cut_total, never a 0 it did not say */
    dgram(buf, sizeof(buf), 100, 7, 550, 1, "", 1,
          ", \"motion\": {\"state\": \"engaged\", \"sent\": 42, \"fault\": \"\", "
          "\"operator\": {\"pending\": \"none\", \"parks\": 1, \"reengagements\": 2, "
          "\"resets_acked\": 1, \"resets_failed\": 4, \"engage_timeouts\": 0}}");
    EQ(feed(m, buf, &a, 5.05), 0, "an operator object without resets_cut");
    {
        char *txt = NULL;
        size_t tl = 0;
        FILE *f = open_memstream(&txt, &tl);

        app_monitor_text(m, f, false, 5.05, NULL);
        fclose(f);
        CHECK(txt && strstr(txt, "RESET acked 1 failed 4 cut -, engage timeouts 0\n"),
              "no resets_cut: %s",
              txt && strstr(txt, "operator") ? strstr(txt, "operator") : "none");
        free(txt);
    }
    s = app_monitor_metrics(m, 5.05, &len);
    CHECK(s && strstr(s, "rtvd_motion_operator_resets_failed_total{") &&
              !strstr(s, "rtvd_motion_operator_resets_cut_total"),
          "no resets_cut: no resets_cut_total");
    CHECK(s && !strstr(s, "rtvd_motion_wrong_source_datagrams_total") &&
              !strstr(s, "rtvd_motion_heartbeats_stale_total"),
          "no wrong_source, hb_stale: none of their counters");
    free(s);
    /* the final datagram ends the target */
    dgram(buf, sizeof(buf), 100, 8, 600, 1, "", 1, NULL);
    {
        char *f = strstr(buf, "\"final\": false");

        memcpy(f, "\"final\": true ", 14);
    }
    EQ(feed(m, buf, &a, 5.1), 0, "final");
    CHECK(t->ended && app_monitor_nended(m) == 1, "ended");
    EQ(total_rejected(m), 0, "nothing rejected");
    app_monitor_free(m);
    free(m);
}

/* a host longer than its buffer is cut at a character, not inside one (its UTF-8 stays
 * valid for /metrics and the JSON of the web view) */
static void t_utf8(void)
{
    struct app_monitor_cfg cfg;
    struct app_monitor *m = calloc(1, sizeof(*m));
    const struct sockaddr_in a = addr("127.0.0.1", 40000);
    static char good[APP_MON_DGRAM_MAX], buf[APP_MON_DGRAM_MAX];
    char host[80];
    const char *p;

    dgram(good, sizeof(good), 7, 10, 1000, 0, "", 0, NULL);
    memset(host, 'a', 70);
    snprintf(host + 70, sizeof(host) - 70, "\xc3\xa9"); /* e acute: bytes 71 and 72 */
    p = strstr(good, "\"bench\"");
    snprintf(buf, sizeof(buf), "%.*s\"%s\"%s", (int)(p - good), good, host, p + 7);
    app_monitor_cfg_default(&cfg);
    CHECK(app_monitor_init(m, &cfg) == 0, "init");
    EQ(feed(m, buf, &a, 1.0), 0, "a 72-byte host taken");
    EQ(strlen(m->t[0].host), 70, "cut before the character the buffer would halve");
    app_monitor_free(m);
    free(m);
}

/* the series values are kept as int32_t (the sender clamps to it): 2147483647 is taken as it
 * is, anything above is a bad field, never wrapped (to a negative "no record" or a small
 * value) or clamped */
static void t_series_range(void)
{
    struct app_monitor_cfg cfg;
    struct app_monitor *m = calloc(1, sizeof(*m));
    const struct sockaddr_in a = addr("127.0.0.1", 40000);
    static char good[APP_MON_DGRAM_MAX], buf[APP_MON_DGRAM_MAX];
    static const struct {
        const char *what, *from, *to;
    } cases[] = {
        {"turnaround 2^31", "[100, null, 1520]", "[100, null, 2147483648]"},
        {"latency 2^32 (0 as an int32)", "[12, null, 20]", "[12, null, 4294967296]"},
        {"latency 2^32 - 1 (int32 -1: no record)", "[12, null, 20]", "[4294967295, null, 20]"},
        {"turnaround 2^63 - 1", "[100, null, 1520]", "[9223372036854775807, null, 1520]"},
    };
    const struct app_mon_target *t = &m->t[0];
    int rc;

    app_monitor_cfg_default(&cfg);
    CHECK(app_monitor_init(m, &cfg) == 0, "init");
    dgram(good, sizeof(good), 7, 10, 1000, 0, "", 0, NULL);
    CHECK(replaced(buf, sizeof(buf), good, "[100, null, 1520]", "[100, null, 2147483647]"),
          "pattern");
    rc = feed(m, buf, &a, 1.0);
    EQ(rc, 0, "2147483647 taken");
    EQ(t->s_n, 2, "two values");
    EQ(t->s_turn[1], INT32_MAX, "2147483647 kept as it is");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        dgram(good, sizeof(good), 7, 11 + (unsigned)i, 1000, 0, "", 0, NULL);
        CHECK(replaced(buf, sizeof(buf), good, cases[i].from, cases[i].to), "pattern %s",
              cases[i].what);
        rc = feed(m, buf, &a, 1.1);
        EQ(rc, 1 + APP_MON_BAD_FIELD, cases[i].what);
    }
    EQ(t->s_n, 2, "nothing of them applied");
    EQ(t->seq, 10, "the sequence number of the good one");
    for (int r = 0; r < APP_MON_NREJECT; r++)
        EQ(m->rejected[r], r == APP_MON_BAD_FIELD ? 4 : 0, app_monitor_reject_name(r));
    EQ(m->accepted, 1, "accepted");
    app_monitor_free(m);
    free(m);
}

/* truncated is what the receive buffer cut (the true length, from MSG_TRUNC, beyond it),
 * too_big a whole datagram over 16 KiB, not_json a whole one the parser refuses: at the
 * edges of the buffer and of the protocol, whatever the parser's error */
static void t_edges(void)
{
    struct app_monitor_cfg cfg;
    struct app_monitor *m = calloc(1, sizeof(*m));
    const struct sockaddr_in a = addr("127.0.0.1", 40000);
    static char good[APP_MON_DGRAM_MAX], buf[APP_MON_DGRAM_MAX + 1];
    const size_t max = APP_MON_DGRAM_MAX;
    size_t n;
    int rc;

    app_monitor_cfg_default(&cfg);
    CHECK(app_monitor_init(m, &cfg) == 0, "init");
    /* exactly 16 KiB filling the buffer: a good one (blanks before it) is taken */
    n = (size_t)dgram(good, sizeof(good), 7, 1, 1000, 0, "", 0, NULL);
    memset(buf, ' ', sizeof(buf));
    memcpy(buf + max - n, good, n);
    rc = app_monitor_feed(m, buf, max, max, &a, 1.0, 0);
    EQ(rc, 0, "16384 bytes, good, in a 16384-byte buffer");
    /* exactly 16 KiB, its JSON ending early (the final brace a blank): not JSON */
    dgram(good, sizeof(good), 7, 2, 1000, 0, "", 0, NULL);
    memcpy(buf + max - n, good, n);
    buf[max - 1] = ' ';
    rc = app_monitor_feed(m, buf, max, max, &a, 1.1, 0);
    EQ(rc, 1 + APP_MON_NOT_JSON, "16384 bytes whose JSON ends early");
    /* one byte more than the buffer held: truncated, though the bytes held are a good
     * datagram (its final brace back) */
    buf[max - 1] = '}';
    rc = app_monitor_feed(m, buf, max, max + 1, &a, 1.2, 0);
    EQ(rc, 1 + APP_MON_TRUNCATED, "16385 bytes in a 16384-byte buffer");
    /* 16385 bytes held whole: too big */
    rc = app_monitor_feed(m, buf, max + 1, max + 1, &a, 1.3, 0);
    EQ(rc, 1 + APP_MON_TOO_BIG, "16385 bytes held whole");
    /* a buffer just as long as a good datagram; one byte longer than it */
    n = (size_t)dgram(good, sizeof(good), 7, 3, 1000, 0, "", 0, NULL);
    rc = app_monitor_feed(m, good, n, n, &a, 1.4, 0);
    EQ(rc, 0, "a datagram filling its buffer exactly");
    n = (size_t)dgram(good, sizeof(good), 7, 4, 1000, 0, "", 0, NULL);
    rc = app_monitor_feed(m, good, n, n + 1, &a, 1.5, 0);
    EQ(rc, 1 + APP_MON_TRUNCATED, "a datagram one byte longer than its buffer");
    for (int r = 0; r < APP_MON_NREJECT; r++)
        EQ(m->rejected[r],
           r == APP_MON_TRUNCATED                          ? 2
           : r == APP_MON_NOT_JSON || r == APP_MON_TOO_BIG ? 1
                                                           : 0,
           app_monitor_reject_name(r));
    EQ(m->accepted, 2, "accepted");
    EQ(m->t[0].seq, 3, "the last one taken");
    app_monitor_free(m);
    free(m);
}

static void t_bad(void)
{
    struct app_monitor_cfg cfg;
    struct app_monitor *m = calloc(1, sizeof(*m));
    const struct sockaddr_in a = addr("127.0.0.1", 40000), stranger = addr("10.1.2.3", 40000);
    static char good[APP_MON_DGRAM_MAX], buf[APP_MON_DGRAM_MAX * 2];
    const int n = dgram(good, sizeof(good), 7, 10, 1000, 0, "", 0, NULL);
    static const struct {
        const char *what, *from, *to; /* replace the first `from` by `to` */
        int reason;
    } cases[] = {
        {"not a status", "\"rtvd_status\": 2", "\"rtvd_statut\": 2", APP_MON_NOT_STATUS},
        {"version 3", "\"rtvd_status\": 2", "\"rtvd_status\": 3", APP_MON_BAD_VERSION},
        {"cycles negative", "\"cycles\": 1000", "\"cycles\": -1", APP_MON_BAD_FIELD},
        {"cycles a string", "\"cycles\": 1000", "\"cycles\": \"x\"", APP_MON_BAD_FIELD},
        {"t_model a string", "\"t_model\": 1.000", "\"t_model\": \"1\"", APP_MON_BAD_FIELD},
        {"state missing", "\"state\"", "\"stat_\"", APP_MON_BAD_FIELD},
        {"series n wrong", "\"n\": 3", "\"n\": 4", APP_MON_BAD_FIELD},
        {"series step 0", "\"step\": 1", "\"step\": 0", APP_MON_BAD_FIELD},
        {"series negative", "[100, null, 1520]", "[100, null, -1]", APP_MON_BAD_FIELD},
        {"hist edges", "[5, 10, 15,", "[5, 5, 15,", APP_MON_BAD_FIELD},
        {"hist counts", "\"n\": [0, 0, 50,", "\"n\": [0, 50,", APP_MON_BAD_FIELD},
        /* a histogram's count is the sum of its buckets, the last one (above 10 ms) included */
        {"hist count not the sum", "\"count\": 100,", "\"count\": 101,", APP_MON_BAD_FIELD},
        {"hist count without the last bucket", "\"count\": 1100,", "\"count\": 100,",
         APP_MON_BAD_FIELD},
        {"hist buckets summing to 2^64 (0 wrapped)",
         "\"execution\": {\"count\": 0, \"sum_us\": 0.0, \"n\": [0, 0, 0,",
         "\"execution\": {\"count\": 0, \"sum_us\": 0.0, \"n\": [9223372036854775807, "
         "9223372036854775807, 2,",
         APP_MON_BAD_FIELD},
        {"hist count missing", "\"count\": 100, \"sum_us\"", "\"sum_us\"", APP_MON_BAD_FIELD},
        {"event without cycle", "\"events\": []", "\"events\": [{\"overrun_us\": 1}]",
         APP_MON_BAD_FIELD},
        {"can counter negative", "\"rx_used\": 398", "\"rx_used\": -398", APP_MON_BAD_FIELD},
        {"motion not an object", "\"can\": {", "\"motion\": 1, \"can\": {", APP_MON_BAD_FIELD},
        /* control characters (the terminal view prints the strings): ESC, a C1 CSI */
        {"escape in the target", "\"target\": \"run", "\"target\": \"\\u001b[2Jrun",
         APP_MON_BAD_FIELD},
        {"C1 control in the host", "\"host\": \"bench\"", "\"host\": \"\\u009bbench\"",
         APP_MON_BAD_FIELD},
        /* an operator command's name is a label value on /metrics: a quote would break it */
        {"command name with a quote", "\"can\": {",
         "\"motion\": {\"operator\": {\"commands\": {\"a\\\"b\": {\"accepted\": 1}}}}, \"can\": {",
         APP_MON_BAD_FIELD},
        {"motion counter negative", "\"can\": {", "\"motion\": {\"sent\": -3}, \"can\": {",
         APP_MON_BAD_FIELD},
        {"motion counter null", "\"can\": {", "\"motion\": {\"sent\": null}, \"can\": {",
         APP_MON_BAD_FIELD},
        {"hb_stale fractional", "\"can\": {", "\"motion\": {\"hb_stale\": 0.5}, \"can\": {",
         APP_MON_BAD_FIELD},
        {"wrong_source negative", "\"can\": {", "\"motion\": {\"wrong_source\": -1}, \"can\": {",
         APP_MON_BAD_FIELD},
        {"platform counter fractional", "\"can\": {",
         "\"motion\": {\"platform\": {\"status\": 1.5}}, \"can\": {", APP_MON_BAD_FIELD},
        {"command count negative", "\"can\": {",
         "\"motion\": {\"operator\": {\"commands\": {\"park\": {\"accepted\": -1}}}}, \"can\": {",
         APP_MON_BAD_FIELD},
        {"duplicate key", "\"host\": \"bench\"", "\"host\": \"bench\", \"host\": \"x\"",
         APP_MON_NOT_JSON},
        {"not JSON", "{\"rtvd_status\"", "<rtvd_status\"", APP_MON_NOT_JSON},
        {"NaN", "\"t_model\": 1.000", "\"t_model\": NaN", APP_MON_NOT_JSON},
    };
    uint64_t want[APP_MON_NREJECT] = {0};
    int rc;

    app_monitor_cfg_default(&cfg);
    CHECK(app_monitor_parse_allow("127.0.0.0/8", &cfg.allow[0]) == 0, "allow");
    cfg.nallow = 1;
    CHECK(app_monitor_parse_allow("300.1.1.1", &cfg.allow[1]) != 0 &&
              app_monitor_parse_allow("1.2.3.4/33", &cfg.allow[1]) != 0,
          "bad allow entries refused");
    CHECK(app_monitor_init(m, &cfg) == 0, "init");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *p = strstr(good, cases[i].from);

        CHECK(p != NULL, "case %s: pattern", cases[i].what);
        if (!p)
            continue;
        snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(p - good), good, cases[i].to,
                 p + strlen(cases[i].from));
        rc = feed(m, buf, &a, 1.0);
        EQ(rc, 1 + cases[i].reason, cases[i].what);
        want[cases[i].reason]++;
    }
    /* a whole datagram that is a good one's beginning (its sender cut it, not the network):
     * not JSON, wherever the parser stopped */
    for (int cut = 1; cut < n; cut += 97) {
        rc = app_monitor_feed(m, good, (size_t)n, (size_t)cut, &a, 1.0, 0);
        EQ(rc, 1 + APP_MON_NOT_JSON, "cut short by its sender");
        want[APP_MON_NOT_JSON]++;
    }
    /* huge: longer than the protocol allows, held whole; longer than the receive buffer */
    memset(buf, ' ', sizeof(buf));
    memcpy(buf, good, (size_t)n);
    rc = app_monitor_feed(m, buf, sizeof(buf), sizeof(buf), &a, 1.0, 0);
    EQ(rc, 1 + APP_MON_TOO_BIG, "too big");
    want[APP_MON_TOO_BIG]++;
    rc = app_monitor_feed(m, buf, 1000, 70000, &a, 1.0, 0);
    EQ(rc, 1 + APP_MON_TRUNCATED, "longer than received");
    want[APP_MON_TRUNCATED]++;
    /* binary garbage */
    for (int k = 0; k < 256; k++)
        buf[k] = (char)(k * 37 + 11);
    rc = app_monitor_feed(m, buf, 256, 256, &a, 1.0, 0);
    EQ(rc, 1 + APP_MON_NOT_JSON, "garbage");
    want[APP_MON_NOT_JSON]++;
    /* an unknown sender, even with a good datagram */
    EQ(feed(m, good, &stranger, 1.0), 1 + APP_MON_UNKNOWN_SENDER, "unknown sender");
    want[APP_MON_UNKNOWN_SENDER]++;
    EQ(app_monitor_ntargets(m), 0, "no target from any bad datagram");
    EQ(m->accepted, 0, "nothing accepted");
    /* the good one now; a replay of it is stale */
    EQ(feed(m, good, &a, 1.0), 0, "good");
    EQ(feed(m, good, &a, 1.1), 1 + APP_MON_STALE, "replayed");
    want[APP_MON_STALE]++;
    /* 16 targets, then a 17th sender while all 16 talk */
    for (int k = 1; k < APP_MON_MAX_TARGETS; k++) {
        const struct sockaddr_in b = addr("127.0.0.1", 40000 + k);

        EQ(feed(m, good, &b, 1.0), 0, "target");
    }
    {
        const struct sockaddr_in b = addr("127.0.0.1", 41000);

        EQ(feed(m, good, &b, 1.0), 1 + APP_MON_TOO_MANY_TARGETS, "17th target");
        want[APP_MON_TOO_MANY_TARGETS]++;
        /* once one ended, its slot is taken over */
        app_monitor_tick(m, 1.0 + cfg.silence_s + 1, 0);
        EQ(feed(m, good, &b, 10.0), 0, "17th target after the others fell silent");
    }
    for (int r = 0; r < APP_MON_NREJECT; r++)
        EQ(m->rejected[r], want[r], app_monitor_reject_name(r));
    EQ(m->received, m->accepted + total_rejected(m), "received = accepted + rejected");
    /* a version 1 datagram (the flat fields only) is read */
    {
        const struct sockaddr_in v1 = addr("127.0.0.1", 42000);
        static const char d1[] =
            "{\"rtvd_status\": 1, \"seq\": 0, \"cycles\": 10, \"t_model\": 0.0100, \"state\": "
            "\"running\", \"final\": false, \"lat_min_us\": 1, \"lat_act_us\": 2, \"lat_avg_us\": "
            "2, \"lat_max_us\": 3, \"exec_max_us\": 90, \"turnaround_max_us\": 95, \"overruns\": "
            "0, \"grace_overruns\": 0, \"max_consecutive\": 0, \"max_overrun_us\": 0, "
            "\"skipped\": 0, \"latched\": false, \"step_errors\": 0, \"ring_dropped\": 0}";
        char *s;
        size_t len;

        app_monitor_tick(m, 20.0, 0);
        EQ(feed(m, d1, &v1, 20.0), 0, "version 1");
        {
            /* a version 2 block in a version 1 datagram is checked as in version 2 */
            char bad1[sizeof(d1) + 32];

            snprintf(bad1, sizeof(bad1), "%.*s, \"hist\": {}}", (int)sizeof(d1) - 2, d1);
            bad1[strlen("{\"rtvd_status\": 1, \"seq\": ")] = '1';
            EQ(feed(m, bad1, &v1, 20.0), 1 + APP_MON_BAD_FIELD, "version 1 with a bad hist");
        }
        s = app_monitor_metrics(m, 20.0, &len);
        CHECK(s && strstr(s, "rtvd_cycles_total{target=\"(version 1)\",host=\"\",sender=\"127.0."
                             "0.1:42000\"} 10\n"),
              "version 1 in the metrics");
        free(s);
    }
    app_monitor_free(m);
    free(m);
}

int main(void)
{
    t_good_and_alarms();
    t_bad();
    t_series_range();
    t_edges();
    t_utf8();
    return vt_report("test_monitor");
}
