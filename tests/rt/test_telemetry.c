/* tests/rt/test_telemetry.c - the status datagram's strings (rt/telemetry.c) through the real
 * telemetry thread beside a short loop on the quarter car: a run file's path is bytes, not
 * necessarily UTF-8, and the datagram must be valid UTF-8 JSON whatever it holds. A path with
 * every kind of ill-formed UTF-8 (a Latin-1 byte, stray continuation bytes, overlong forms,
 * a surrogate, a code point beyond U+10FFFF, a sequence cut short inside and at the end),
 * control characters (C0, DEL, C1), a quote and a backslash: the datagram parses with jansson
 * and its target is exactly the path with each byte that begins no well-formed sequence as
 * U+FFFD, well-formed characters (2, 3, 4 bytes) kept, control characters as U+FFFD too (the
 * monitor refuses a string holding one), and rtvd monitor (app/monitor.h) takes the datagram;
 * a Latin-1 path likewise, named so; a path of 5000 bytes (each 3 in the datagram) is cut to
 * 255 bytes at a character boundary and the datagrams still go. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/monitor.h"
#include "check.h"
#include "config/model_yaml.h"
#include "core/data.h"
#include "core/signal.h"
#include "core/source.h"
#include "rt/loop.h"
#include "rt/telemetry.h"

#define MS 1000000LL

#define FFFD "\xEF\xBF\xBD"

/* the newest datagram the telemetry thread sent (read after vd_telemetry_join) */
static char last[VD_TM_DGRAM_MAX + 1];
static size_t last_len;
static int sent;

static int capture(void *ctx, const void *buf, size_t len)
{
    (void)ctx;
    memcpy(last, buf, len);
    last[len] = '\0';
    last_len = len;
    sent++;
    return 0;
}

/* a 40 ms run of the quarter car (2 ms period) with `name` as the datagram's target; the
 * final datagram in last[] */
static void run(const char *name)
{
    struct vd_source *src = NULL;
    struct vd_model *m = vd_cfg_load_model("config/models/quarter_car.yaml", &src, stderr);
    struct vd_data *d;
    struct vd_signal sig;
    struct vd_loop L;
    struct vd_loop_cfg lc;
    struct vd_telemetry tm;
    struct vd_telemetry_cfg tc;
    const int devnull = open("/dev/null", O_WRONLY);

    CHECK(m != NULL, "model");
    if (!m)
        exit(1);
    d = vd_data_new(m);
    CHECK(vd_signal_resolve(m, "chassis.z", &sig) == 0, "signal chassis.z");
    vd_loop_cfg_default(&lc);
    lc.policy.kind = VD_OVR_SKIP;
    lc.policy.period_ns = 2 * MS;
    lc.duration_ns = 40 * MS;
    CHECK(vd_loop_init(&L, &lc, m, d, vd_source_eval, src, &sig, 1) == 0, "loop init");
    vd_telemetry_cfg_default(&tc);
    tc.rate_hz = 100;
    tc.status_fd = devnull;
    tc.log_fd = devnull;
    tc.send = capture;
    tc.name = name;
    sent = 0;
    last_len = 0;
    CHECK(vd_telemetry_init(&tm, &L, &tc) == 0, "telemetry init");
    CHECK(vd_loop_start(&L) == 0, "loop start");
    CHECK(vd_telemetry_start(&tm) == 0, "telemetry start");
    CHECK(vd_loop_join(&L) == 0 && vd_telemetry_join(&tm) == 0, "joins");
    CHECK(sent >= 1 && tm.format_errors == 0 && strstr(last, "\"final\": true"),
          "the final datagram sent (%d sent, %llu too long)", sent,
          (unsigned long long)tm.format_errors);
    vd_telemetry_free(&tm);
    vd_loop_free(&L);
    vd_data_free(d);
    vd_source_free(src);
    vd_model_free(m);
    close(devnull);
}

/* the datagram parsed (NULL: jansson refused it, said on stderr) */
static json_t *parsed(void)
{
    json_error_t err;
    json_t *j = json_loadb(last, last_len, JSON_REJECT_DUPLICATES, &err);

    CHECK(j != NULL, "the datagram parses: %s at byte %d (%s)", j ? "" : err.text, err.position,
          json_error_code(&err) == json_error_invalid_utf8 ? "invalid UTF-8" : "not UTF-8 related");
    return j;
}

static void monitor_takes(const char *name);

static void t_any_bytes(void)
{
    /* the path, piece by piece, and what the datagram's target must hold for each */
    static const struct {
        const char *in, *out;
    } piece[] = {
        {"/bench/", "/bench/"},
        {"caf\xc3\xa9", "caf\xc3\xa9"},                     /* U+00E9, 2 bytes: kept */
        {"\xe2\x82\xac", "\xe2\x82\xac"},                   /* U+20AC, 3 bytes: kept */
        {"\xf0\x9f\x9a\x97", "\xf0\x9f\x9a\x97"},           /* U+1F697, 4 bytes: kept */
        {"-\xe9t\xe9-", "-" FFFD "t" FFFD "-"},             /* Latin-1 */
        {"\x80\xbf", FFFD FFFD},                            /* stray continuation bytes */
        {"\xc0\xaf", FFFD FFFD},                            /* '/' overlong in 2 bytes */
        {"\xe0\x80\xaf", FFFD FFFD FFFD},                   /* '/' overlong in 3 bytes */
        {"\xed\xa0\x80", FFFD FFFD FFFD},                   /* U+D800, a surrogate */
        {"\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD},          /* U+110000 */
        {"\xf8\x88\x80\x80\x80", FFFD FFFD FFFD FFFD FFFD}, /* a 5-byte form */
        {"\xfe\xff", FFFD FFFD},                            /* never in UTF-8 */
        {"\xe2\x82x", FFFD FFFD "x"},                       /* cut short before an ASCII byte */
        {"\x01\t\x1f", FFFD FFFD FFFD},                     /* C0 */
        {"\x7f\xc2\x85", FFFD FFFD},                        /* DEL, U+0085 (C1) */
        {"\"q\\", "\"q\\"},                                 /* a quote, a backslash */
        {".yaml\xf0\x9f\x9a", ".yaml" FFFD FFFD FFFD},      /* cut short at the end */
    };
    char in[256] = "", want[512] = "";
    json_t *j;
    size_t nwant;

    for (size_t i = 0; i < sizeof(piece) / sizeof(piece[0]); i++) {
        strcat(in, piece[i].in);
        strcat(want, piece[i].out);
    }
    /* the first 255 bytes of the expected form, cut at a character boundary (U+FFFD and
     * the 3-byte character are 3 bytes, the escapes 2: the cut is before the piece that would
     * pass 255) */
    run(in);
    j = parsed();
    nwant = strlen(want);
    if (j) {
        json_t *t = json_object_get(j, "target");
        const char *s = json_string_value(t);

        CHECK(s && json_string_length(t) == nwant && !memcmp(s, want, nwant),
              "the target: each ill-formed byte and control character U+FFFD, the rest as it "
              "was (%zu bytes, %zu expected)",
              s ? json_string_length(t) : 0, nwant);
        json_decref(j);
    }
    /* no control character left in the datagram's text, raw or escaped */
    CHECK(!strstr(last, "\\u00") && !strchr(last, '\x01') && !strchr(last, '\x7f'),
          "control characters replaced: %.160s", strstr(last, "\"target\""));
    monitor_takes(want);
}

/* the monitor takes the newest datagram, its target named `name` */
static void monitor_takes(const char *name)
{
    struct app_monitor_cfg cfg;
    struct app_monitor *mon = calloc(1, sizeof(*mon));
    const struct sockaddr_in from = {
        .sin_family = AF_INET, .sin_port = htons(40000), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int rc;

    app_monitor_cfg_default(&cfg);
    CHECK(mon && app_monitor_init(mon, &cfg) == 0, "monitor init");
    if (!mon)
        return;
    rc = app_monitor_feed(mon, last, last_len, last_len, &from, 1.0, 0.0);
    CHECK(rc == 0, "the monitor takes the datagram (%d: %s)", rc, mon->last_reject);
    CHECK(!strcmp(mon->t[0].name, name), "its name: %s", mon->t[0].name);
    CHECK(mon->accepted == 1 && mon->rejected[APP_MON_NOT_JSON] == 0, "accepted 1, not_json 0");
    app_monitor_free(mon);
    free(mon);
}

static void t_long_path(void)
{
    static char in[5001], want[256];
    size_t n = 0;

    /* 5000 Latin-1 bytes: 15000 in the datagram uncut, beyond its buffer; cut to 85 U+FFFD
     * (255 bytes), the datagrams sent (run() checks: none too long) */
    memset(in, 0xe9, 5000);
    while (n + 3 <= 255) {
        memcpy(want + n, FFFD, 3);
        n += 3;
    }
    want[n] = '\0';
    run(in);
    monitor_takes(want);
}

static void t_monitor_takes_it(void)
{
    run("/home/b\xe9nch/r\xe9glage.yaml"); /* a Latin-1 file name */
    monitor_takes("/home/b" FFFD "nch/r" FFFD "glage.yaml");
}

int main(void)
{
    t_any_bytes();
    t_monitor_takes_it();
    t_long_path();
    return vt_report("test_telemetry");
}
