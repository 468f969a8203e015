#!/bin/sh
# tests/app/prometheus_test.sh RTVD - a real Prometheus (Debian's prometheus) on loopback
# scrapes rtvd monitor's /metrics every second while a short rtvd run with injected overruns
# sends its datagrams to the monitor; then Prometheus' HTTP API (/api/v1/query) must give the
# run's cycle, overrun and skipped-release counts as its report has them, the turnaround
# histogram's count as the records received, and a wake-up latency quantile inside the range
# the report measured. Ports: prometheus 25890, monitor udp 25872 and http 25882, CAN 25920/1.
set -u
RTVD=$1
PY=/usr/bin/python3
PROM=$(command -v prometheus || true)
tmp=$(mktemp -d)
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null; done; wait; rm -rf "$tmp"; }
trap cleanup EXIT
[ -n "$PROM" ] || { echo "FAIL: no prometheus (deploy/install-deps.sh installs it)" >&2; exit 1; }

cat >"$tmp/prometheus.yml" <<'EOF'
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: rtvd
    static_configs:
      - targets: ['127.0.0.1:25882']
EOF
"$PROM" --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
    --web.listen-address=127.0.0.1:25890 --log.level=warn >"$tmp/prom.log" 2>&1 &
pids="$pids $!"
"$RTVD" monitor 127.0.0.1:25872 --http 127.0.0.1:25882 --quiet --duration 120 \
    2>"$tmp/mon.err" &
pids="$pids $!"
$PY - <<'PY' || { echo "FAIL: prometheus not ready" >&2; cat "$tmp/prom.log" >&2; exit 1; }
import time, urllib.request
for i in range(300):
    try:
        if urllib.request.urlopen("http://127.0.0.1:25890/-/ready", timeout=2).status == 200:
            break
    except Exception:
        time.sleep(0.1)
else:
    raise SystemExit(1)
PY

"$RTVD" run --duration 4 --period-us 5000 --policy skip --udp 127.0.0.1:25872 --can-port 25920 --quiet \
    --inject-delay 200:6500,400:7500,600:6200 --report-dir "$tmp/r" >"$tmp/run.out" 2>&1 ||
    { echo "FAIL: rtvd run" >&2; cat "$tmp/run.out" >&2; exit 1; }

$PY - "$tmp/r/rtvd-report.json" <<'PY'
import json, sys, time, urllib.parse, urllib.request
rep = json.load(open(sys.argv[1]))
c = rep["counters"]
def query(q):
    u = "http://127.0.0.1:25890/api/v1/query?" + urllib.parse.urlencode({"query": q})
    r = json.load(urllib.request.urlopen(u, timeout=5))
    assert r["status"] == "success", r
    return [(x["metric"], float(x["value"][1])) for x in r["data"]["result"]]
def one(q):
    v = query(q)
    assert len(v) == 1, (q, v)
    return v[0][1]
sel = '{job="rtvd",target="<embedded>/config/runs/default.yaml"}'
# wait until a scrape after the run's final datagram is in
for i in range(200):
    v = query("rtvd_cycles_total" + sel)
    if v and v[0][1] == c["cycles"]:
        break
    time.sleep(0.1)
else:
    raise SystemExit("FAIL: rtvd_cycles_total never reached %d: %s" % (c["cycles"], v))
assert one('up{job="rtvd"}') == 1
assert one("rtvd_overruns_total" + sel) == c["overruns"] >= 3, c
assert one("rtvd_grace_overruns_total" + sel) == c["grace_overruns"]
assert one("rtvd_skipped_releases_total" + sel) == c["skipped_releases"]
assert one("rtvd_overrun_latched" + sel) == 1
assert one("rtvd_turnaround_seconds_count" + sel) == rep["rings"]["cycle_records"]["received"]
# a quantile from the scraped histogram lies inside what the run measured
q = one("histogram_quantile(0.5, rtvd_wakeup_latency_seconds_bucket" + sel + ")")
lo, hi = rep["latency"]["min_us"] * 1e-6, rep["latency"]["max_us"] * 1e-6
assert lo * 0.5 <= q <= max(hi, 5e-6) * 2, (q, lo, hi)  # within the bucket around the data
assert one("rtvd_monitor_datagrams_rejected_total{reason=\"bad_field\"}") == 0
print("prometheus: cycles %d, overruns %d, skipped %d, median wake-up %.1f us (report: min %.1f, "
      "max %.1f)" % (c["cycles"], c["overruns"], c["skipped_releases"], q * 1e6,
                     rep["latency"]["min_us"], rep["latency"]["max_us"]))
PY
rc=$?
[ $rc -eq 0 ] && echo "prometheus_test: passed"
exit $rc
