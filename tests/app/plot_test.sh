#!/bin/sh
# tests/app/plot_test.sh RTVD - rtvd plot on a short run's report (with --trace) and on its
# recording: the SVG files are well-formed XML, hold what the run measured (one step curve
# per histogram, one marker per overrun in the timeline, four stage groups, one curve per
# recorded signal) and their PNGs (rsvg-convert) show the series colours; bad inputs are
# clear errors. CAN and telemetry off: no ports.
set -u
RTVD=$1
PY=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
bad() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

"$RTVD" run "<embedded>/config/runs/quarter_car.yaml" --duration 2 --udp off --quiet --trace \
    --record "$tmp/r/rtvd-record.csv" --report-dir "$tmp/r" --inject-delay 400:1500,1400:2600 \
    >"$tmp/run.out" 2>&1 || bad "rtvd run exit $?"
"$RTVD" plot "$tmp/r/rtvd-report.json" >"$tmp/p1.out" 2>&1 || bad "plot report: $(cat "$tmp/p1.out")"
"$RTVD" plot "$tmp/r/rtvd-record.csv" --signals chassis.z,knuckle.z >"$tmp/p2.out" 2>&1 ||
    bad "plot recording: $(cat "$tmp/p2.out")"
$PY - "$tmp/r" <<'PY' || bad "plots"
import json, os, sys
import xml.etree.ElementTree as ET
from PIL import Image
d = sys.argv[1]
rep = json.load(open(os.path.join(d, "rtvd-report.json")))
c = rep["counters"]
ns = "{http://www.w3.org/2000/svg}"
def svg(name):
    return ET.parse(os.path.join(d, name))
def colours(png):
    im = Image.open(os.path.join(d, png)).convert("RGB")
    return {"#%02x%02x%02x" % px for px in im.getdata()}
h = svg("rtvd-plot-histograms.svg")
paths = [p for p in h.iter(ns + "path") if p.get("stroke") in ("#1f77b4", "#2ca02c", "#ff7f0e")]
assert len(paths) == 3, len(paths)
t = svg("rtvd-plot-timeline.svg")
marks = [e for g in t.iter(ns + "g") if g.get("fill") == "#d62728" for e in g.iter(ns + "circle")]
assert len(marks) == c["overruns"] + c["grace_overruns"] >= 2, (len(marks), c)
s = svg("rtvd-plot-stages.svg")
assert sum(1 for r in s.iter(ns + "rect") if r.get("fill") in ("#1f77b4", "#9ecae1")) >= 8
g = svg("rtvd-record-plot-signals.svg")
assert sum(1 for p in g.iter(ns + "path") if p.get("stroke") in ("#1f77b4", "#2ca02c")) == 2
texts = "".join(x.text or "" for x in g.iter(ns + "text"))
assert "chassis.z" in texts and "knuckle.z" in texts
for png, want in [("rtvd-plot-histograms.png", {"#1f77b4", "#2ca02c", "#ff7f0e"}),
                  ("rtvd-plot-timeline.png", {"#ff7f0e", "#2ca02c", "#d62728"}),
                  ("rtvd-plot-stages.png", {"#1f77b4", "#9ecae1", "#d62728"}),
                  ("rtvd-record-plot-signals.png", {"#1f77b4", "#2ca02c"}),
                  ("rtvd-record-plot-timeline.png", {"#ff7f0e", "#d62728"})]:
    miss = want - colours(png)
    assert not miss, (png, miss)
print("plots: 3 histogram curves, %d overrun markers, 4 stages, 2 signals; PNGs drawn" % len(marks))
PY
"$RTVD" plot "$tmp/none.json" >/dev/null 2>&1
[ $? -eq 1 ] || bad "a missing report must exit 1"
echo '{"rtvd_report": 1}' >"$tmp/x.json"
"$RTVD" plot "$tmp/x.json" 2>&1 | grep -q "not an rtvd run report" || bad "a JSON that is no report"
"$RTVD" plot "$tmp/r/rtvd-record.csv" --signals nothing 2>&1 | grep -q "no such signal column" ||
    bad "an unknown signal"
# endless or special files are refused at once, never read until memory runs out (issue 10
# item 8c: every file read has a size limit and refuses what is not a regular file)
ln -s /dev/zero "$tmp/zero.json"
timeout 10 "$RTVD" plot "$tmp/zero.json" 2>&1 | grep -q "zero.json:0:0: not a regular file" ||
    bad "a report that is /dev/zero"
timeout 10 "$RTVD" plot /dev/zero 2>&1 | grep -q "/dev/zero: not a regular file" ||
    bad "a recording that is /dev/zero"
mkdir "$tmp/dir.csv"
timeout 10 "$RTVD" plot "$tmp/dir.csv" 2>&1 | grep -q "dir.csv: Is a directory" || bad "a directory"

# axes whose span is below the last digits of their values (1e16 and the next double): the
# tick loops must end (they never did: v += step left v unchanged), a few ticks drawn
printf 'time,x\n0,1e16\n1,1.0000000000000002e16\n' >"$tmp/flat.csv"
timeout 20 "$RTVD" plot "$tmp/flat.csv" --no-png >"$tmp/flat.out" 2>&1 ||
    bad "an axis at the last digits of its values: exit $? ($(head -c 200 "$tmp/flat.out"))"
[ -f "$tmp/flat-plot-signals.svg" ] && [ "$(stat -c %s "$tmp/flat-plot-signals.svg")" -lt 100000 ] ||
    bad "an axis at the last digits of its values: $(ls -la "$tmp"/flat-plot-* 2>&1)"
# a report's bucket count sizes the arrays: out of [1, 1000000] it is refused, not allocated
for b in 2000000000 0 -5 '"10"'; do
    printf '{"latency": {"buckets_us": %s, "histogram": {}}}\n' "$b" >"$tmp/b.json"
    timeout 20 "$RTVD" plot "$tmp/b.json" --no-png >"$tmp/b.out" 2>&1
    rc=$?
    [ $rc -eq 1 ] && grep -q "b.json: latency.buckets_us is not an integer in \[1, 1000000\]" "$tmp/b.out" ||
        bad "buckets_us $b: exit $rc, $(head -2 "$tmp/b.out")"
done
# CSV rows against the header: an empty header field is a column ("column 2"), not dropped
# (the columns after it kept their data); a row with fewer or more fields, or a field that
# is not a number, is a located error; a last line without its newline (a recording cut
# short) is left out with a warning
printf 'time,,x\n0,1,2\n1,3,4\n' >"$tmp/e.csv"
"$RTVD" plot "$tmp/e.csv" --signals x --no-png >"$tmp/e.out" 2>&1 || bad "empty header field: $(cat "$tmp/e.out")"
$PY - "$tmp/e-plot-signals.svg" <<'PY' || bad "empty header field: x's axis"
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
t = [x.text for x in ET.parse(sys.argv[1]).iter(ns + "text") if x.text]
assert "x" in t and any(v in t for v in ("2", "2.0", "4", "4.0")) and "1" not in t[-12:], t
PY
for row in '0,1' '0,1,2,3' '0,1,zz' '0,1,2abc'; do
    printf 'time,a,b\n%s\n' "$row" >"$tmp/r.csv"
    "$RTVD" plot "$tmp/r.csv" --no-png >"$tmp/r.out" 2>&1
    rc=$?
    [ $rc -ne 0 ] && grep -Eq "r.csv:2: field [0-9]: (not a number|the row ends early|the row has more fields)" "$tmp/r.out" ||
        bad "row '$row': exit $rc, $(head -2 "$tmp/r.out")"
done
printf 'time,a,b\n0,1,2\n1,3,4\n2,12' >"$tmp/cut.csv"
"$RTVD" plot "$tmp/cut.csv" --no-png >"$tmp/cut.out" 2>&1 &&
    grep -q "cut.csv:4: warning: the last line has no newline (cut short?): left out, 2 complete rows plotted" "$tmp/cut.out" ||
    bad "a last line cut short: $(cat "$tmp/cut.out")"
# the stages' p99 counts the samples beyond the histogram: one bucket of 1 sample and 99
# beyond it puts p99 beyond the range, labelled "> 1"
cat >"$tmp/o.json" <<'EOF'
{"config": {"name": "o", "period_us": 1000}, "latency": {"buckets_us": 1, "histogram": {}},
 "stages": {"factor": {"avg_us": 5, "max_us": 9, "overflows": 99, "histogram": {"0": 1}}}}
EOF
"$RTVD" plot "$tmp/o.json" --no-png >"$tmp/o.out" 2>&1
grep -q "factor: 5.0 / &gt; 1 / 9\|factor: 5.0 / > 1 / 9" "$tmp/o-plot-stages.svg" ||
    bad "p99 beyond the histogram: $(grep -o 'factor: [^<]*' "$tmp/o-plot-stages.svg")"
[ $fails -eq 0 ] && echo "plot_test: passed"
exit $fails
