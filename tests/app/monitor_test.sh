#!/bin/sh
# tests/app/monitor_test.sh RTVD - rtvd monitor as a process, over real sockets: a short rtvd run
# with injected overruns sends its status datagrams to it while another sender throws bad
# ones at it (cut short by it: not JSON, not JSON, 20 kB, 16385 bytes, not a status, a bad
# field, from a sender outside --allow) and a fake target, whose second datagram is exactly
# 16384 bytes, falls silent. Then /metrics and /api/status over HTTP must say
# what the run's report says (cycles, overruns, CAN frames), every bad datagram counted by
# reason, the silent target flagged; the terminal view (plain, and redrawn with ANSI on a
# pseudo-terminal) shows the alarms. A 5 ms period: the injected overruns are the only ones
# even in a sanitizer build or on a slow machine. Ports: udp 25870, http 25880, the run's CAN 25900/25901.
set -u
RTVD=$1
PY=/usr/bin/python3
tmp=$(mktemp -d)
mpid=""
cleanup() { [ -n "$mpid" ] && kill "$mpid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fails=0
bad() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

"$RTVD" monitor --help | grep -q -- "--http ADDR:PORT" || bad "monitor --help"
"$RTVD" monitor --bogus >/dev/null 2>&1
[ $? -eq 2 ] || bad "unknown option must exit 2"
"$RTVD" monitor 1.2.3:99 >/dev/null 2>&1
[ $? -eq 2 ] || bad "bad listen address must exit 2"

"$RTVD" monitor 127.0.0.1:25870 --http 127.0.0.1:25880 --allow 127.0.0.1/32 --silence 1 \
    --plain --interval 0.5 --duration 60 >"$tmp/mon.out" 2>"$tmp/mon.err" &
mpid=$!
i=0
until grep -q "listening" "$tmp/mon.err" 2>/dev/null || [ $i -ge 600 ]; do sleep 0.05; i=$((i + 1)); done
grep -q "listening" "$tmp/mon.err" || bad "the monitor never said it was listening (30 s)"

# the bad datagrams and the target that falls silent
$PY - <<'PY' || bad "bad-datagram sender"
import json, socket, time
dst = ("127.0.0.1", 25870)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0))
good = {"rtvd_status": 2, "seq": 0, "target": "fake.yaml", "host": "h", "pid": 4242, "tid": 1,
        "priority": 0, "period_us": 1000, "cycles": 10, "t_model": 0.01, "state": "running",
        "final": False, "lat_min_us": 1, "lat_act_us": 1, "lat_avg_us": 1, "lat_max_us": 2,
        "exec_max_us": 50, "turnaround_max_us": 60, "overruns": 0, "grace_overruns": 0,
        "max_consecutive": 0, "max_overrun_us": 0, "skipped": 0, "latched": False,
        "step_errors": 0, "ring_dropped": 0,
        "latency_us": {"min": 1, "act": 1, "avg": 1, "max": 2},
        "execution_us": {"min": 40, "act": 45, "avg": 45, "max": 50},
        "turnaround_us": {"min": 41, "act": 46, "avg": 46, "max": 60},
        "overrun": {"total": 0, "grace": 0, "consecutive": 0, "max_consecutive": 0, "max_us": 0,
                    "max_cycle": -1, "first_cycle": -1, "latched": False, "skipped": 0,
                    "frozen_cycles": 0}}
raw = json.dumps(good).encode()
for d in [raw[:len(raw) // 2],                      # cut short by its sender: not JSON
          b"hello, monitor",                        # not JSON
          b"{" + b" " * 20000 + b"}",               # too big
          b"{" + b" " * 16383 + b"}",               # 16385 bytes: too big
          b'{"rtvd_status": "2"}',                  # not a status
          json.dumps(dict(good, cycles=-5)).encode()]:  # bad field
    s.sendto(d, dst)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.2", 0))
u.sendto(raw, dst)                                  # unknown sender (--allow 127.0.0.1/32)
# the fake target: two good datagrams (the second padded to exactly 16384 bytes), then
# silence (no final one)
for k in range(2):
    d = json.dumps(dict(good, seq=k, cycles=10 + k)).encode()
    s.sendto(d + b" " * (16384 - len(d)) if k else d, dst)
    time.sleep(0.1)
PY

"$RTVD" run --duration 3 --period-us 5000 --policy skip --udp 127.0.0.1:25870 --can-port 25900 --quiet \
    --inject-delay 200:6500,400:6300 --report-dir "$tmp/r" >"$tmp/run.out" 2>&1 ||
    bad "rtvd run exit $? ($(tail -3 "$tmp/run.out"))"
# until the monitor has taken the run's final datagram (polled, 20 s at most: the monitor is
# an ordinary-priority process, which a loaded machine can hold off for a while)
$PY - <<'PY' || bad "the monitor never saw the run end (20 s)"
import json, time, urllib.request
for _ in range(200):
    try:
        with urllib.request.urlopen("http://127.0.0.1:25880/api/status", timeout=5) as r:
            t = {x["name"]: x for x in json.loads(r.read())["targets"]}
        if t.get("<embedded>/config/runs/default.yaml", {}).get("ended"):
            raise SystemExit(0)
    except OSError:
        pass
    time.sleep(0.1)
raise SystemExit(1)
PY

$PY - "$tmp/r/rtvd-report.json" <<'PY' || bad "HTTP views against the report"
import json, sys, urllib.request, urllib.error
rep = json.load(open(sys.argv[1]))
c = rep["counters"]
base = "http://127.0.0.1:25880"
def get(path):
    with urllib.request.urlopen(base + path, timeout=5) as r:
        return r.status, r.headers.get("Content-Type"), r.read().decode()
st, ct, m = get("/metrics")
assert st == 200 and ct.startswith("text/plain; version=0.0.4"), (st, ct)
def metric(name, **lab):
    for line in m.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            labels = line[len(name):line.rfind(" ")]
            if all('%s="%s"' % kv in labels for kv in lab.items()):
                return float(line.rsplit(" ", 1)[1])
    raise AssertionError("no %s %s" % (name, lab))
run = {"target": "<embedded>/config/runs/default.yaml"}
fake = {"target": "fake.yaml"}
assert metric("rtvd_cycles_total", **run) == c["cycles"], (metric("rtvd_cycles_total", **run), c)
assert metric("rtvd_overruns_total", **run) == c["overruns"] >= 2, c
assert metric("rtvd_skipped_releases_total", **run) == c["skipped_releases"]
assert metric("rtvd_overrun_latched", **run) == 1
assert abs(metric("rtvd_overrun_max_seconds", **run) - c["max_overrun_us"] * 1e-6) < 1.5e-6
assert metric("rtvd_turnaround_seconds_count", **run) == rep["rings"]["cycle_records"]["received"]
assert metric("rtvd_wakeup_latency_seconds_bucket", le="+Inf", **run) == \
    rep["rings"]["cycle_records"]["received"]
assert metric("rtvd_can_rx_used_total", **run) == rep["can"]["target"]["map"]["rx"]["used"], rep["can"]["target"]["map"]["rx"]
assert metric("rtvd_can_tx_frames_total", **run) == rep["can"]["target"]["counters"]["tx_offered"], rep["can"]["target"]["counters"]
assert metric("rtvd_up", **run) == 0 and metric("rtvd_up", **fake) == 0   # ended; silent
assert metric("rtvd_cycles_total", **fake) == 11   # its 16384-byte datagram taken whole
# truncated: none (the receive buffer holds 64 KiB, more than any UDP datagram over IPv4)
for reason, n in [("truncated", 0), ("not_json", 2), ("too_big", 2), ("not_status", 1),
                  ("bad_field", 1), ("unknown_sender", 1), ("stale", 0), ("bad_version", 0)]:
    assert metric("rtvd_monitor_datagrams_rejected_total", reason=reason) == n, (reason, m)
# every family once, with HELP and TYPE
types = [l.split()[2] for l in m.splitlines() if l.startswith("# TYPE")]
assert len(types) == len(set(types)), "a family twice"
st, ct, j = get("/api/status")
j = json.loads(j)
t = {x["name"]: x for x in j["targets"]}
r, f = t["<embedded>/config/runs/default.yaml"], t["fake.yaml"]
assert r["ended"] and r["status"]["final"] and r["status"]["cycles"] == c["cycles"]
assert {200, 400} <= {e["cycle"] for e in r["events"]}, r["events"]
assert len(r["series"]["cycle"]) == min(5000, rep["rings"]["cycle_records"]["received"])
assert sum(1 for a in r["alarms"] if a["text"].startswith("overrun:")) >= 2, r["alarms"]
assert f["silent"] and any("target silent" in a["text"] for a in f["alarms"]), f
st, ct, page = get("/")
assert st == 200 and ct.startswith("text/html") and page.count("<canvas") == 4
for path, code in [("/nothing", 404)]:
    try:
        get(path); raise AssertionError(path)
    except urllib.error.HTTPError as e:
        assert e.code == code, (path, e.code)
try:
    urllib.request.urlopen(urllib.request.Request(base + "/metrics", data=b"x"), timeout=5)
    raise AssertionError("POST accepted")
except urllib.error.HTTPError as e:
    assert e.code == 405, e.code
print("monitor over HTTP: %d cycles, %d overruns, 7 bad datagrams counted by reason, the "
      "silent target flagged" % (c["cycles"], c["overruns"]))
PY

kill "$mpid"
wait "$mpid"
rc=$?
mpid=""
[ $rc -eq 0 ] || bad "monitor exit status $rc"
grep -Eq "ALARM .* overrun: [0-9]+ new \(total [0-9]+, grace [0-9]+\); cycle (200|400) \+" "$tmp/mon.out" ||
    bad "terminal: overrun alarm of cycle 200 or 400"
grep -q "ALARM .* target silent" "$tmp/mon.out" || bad "terminal: silent target"
grep -q "rejected (too_big 2, not_json 2, not_status 1, bad_field 1, unknown_sender 1)" \
    "$tmp/mon.out" || bad "terminal: rejections by reason"
grep -q "^  T: 0 (" "$tmp/mon.out" && grep -q "^  turnaround " "$tmp/mon.out" &&
    grep -q "^  CAN rx " "$tmp/mon.out" || bad "terminal: the target's lines"
if grep -q "$(printf '\033')" "$tmp/mon.out"; then bad "plain output has escapes"; fi
grep -q "rtvd monitor: .* datagrams, .* accepted, 7 rejected" "$tmp/mon.err" || bad "exit summary"

# on a terminal (a pty: as over ssh) the view is redrawn in place with colours
if command -v script >/dev/null; then
    script -qfec "$RTVD monitor 127.0.0.1:25870 --duration 1.2 --interval 0.3" "$tmp/tty.out" \
        >/dev/null 2>&1
    grep -q "$(printf '\033\\[H')" "$tmp/tty.out" && grep -q "$(printf '\033\\[K')" "$tmp/tty.out" ||
        bad "terminal: no in-place redraw on a pty"
else
    echo "note: no script(1): the pty check is skipped"
fi

[ $fails -eq 0 ] && echo "monitor_test: passed"
exit $fails
