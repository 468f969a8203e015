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
[ $fails -eq 0 ] && echo "plot_test: passed"
exit $fails
