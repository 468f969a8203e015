#!/bin/sh
# tests/app/record_test.sh RTVD - full-rate recording of rtvd run (record: / --record): a run
# with injected overruns records MDF4 and CSV rotated every 0.5 s; every file must pass the
# independent MDF4 reader (tests/io/mdf4_check.py: the spec's blocks, finalized) with values
# equal to the CSV written beside it; together the files hold every cycle once, in order,
# as many as the report's cycles, the injected cycles flagged as overruns with their
# turnaround; the recorded signals are the run file's record.signals (one added to the
# outputs); size rotation makes more files; the record: section's mistakes are located
# errors. CAN off, telemetry off: no ports.
set -u
RTVD=$1
PY=/usr/bin/python3
HERE=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
bad() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

cat >"$tmp/run.yaml" <<'EOF'
model: <embedded>/config/models/quarter_car.yaml
duration: 2.2
outputs: [chassis.z, strut.force]
rt: {policy: skip, period_us: 5000}
telemetry: {udp: off}
record:
  format: both
  signals: [chassis.z, knuckle.wx]
  rotate_s: 0.5
  buffer: 4096
EOF
"$RTVD" run "$tmp/run.yaml" --quiet --report-dir "$tmp/r" --inject-delay 100:6500,300:7500 \
    >"$tmp/out" 2>&1 || bad "rtvd run exit $? ($(tail -2 "$tmp/out"))"
grep -q "^  recording: [0-9]* records written (0 dropped" "$tmp/out" || bad "summary: $(grep recording "$tmp/out")"
n=$(ls "$tmp/r"/rtvd-record-*.mf4 2>/dev/null | wc -l)
[ "$n" -ge 4 ] || bad "time rotation: $n MDF4 files"
for f in "$tmp/r"/rtvd-record-*.mf4; do
    $PY "$HERE/../io/mdf4_check.py" "$f" --csv "${f%.mf4}.csv" >"$tmp/check.txt" ||
        { bad "mdf4_check $f"; cat "$tmp/check.txt" >&2; }
done
$PY - "$tmp/r" <<'PY' || bad "the files against the report"
import csv, glob, json, os, sys
d = sys.argv[1]
rep = json.load(open(os.path.join(d, "rtvd-report.json")))
c = rep["counters"]
rows = []
for f in sorted(glob.glob(os.path.join(d, "rtvd-record-*.csv"))):
    r = list(csv.DictReader(open(f)))
    assert r, f
    rows += r
head = list(rows[0].keys())
assert head[:13] == ["time", "cycle", "t_model", "latency", "execution", "turnaround", "linearize",
                     "assemble", "factor", "stages", "overrun", "flags", "skipped"], head
assert head[13:] == ["chassis.z", "knuckle.wx"], head[13:]
assert "knuckle.wx" in rep["config"]["outputs"], "record.signals adds to the outputs"
rr = rep["recording_ring"]
assert rr["pushed"] == c["cycles"] and rr["dropped"] == 0 and rr["signals"] == 2, rr
cyc = [int(r["cycle"]) for r in rows]
assert cyc == list(range(c["cycles"])), (len(cyc), c["cycles"])
ovr = [int(r["cycle"]) for r in rows if r["overrun"] == "1"]
assert 100 in ovr and 300 in ovr and len(ovr) == c["overruns"] + c["grace_overruns"], (ovr, c)
for r in rows:
    if int(r["cycle"]) in (100, 300):
        assert float(r["turnaround"]) > 5000, r
assert sum(int(r["skipped"]) for r in rows) == c["skipped_releases"]
t = [float(r["time"]) for r in rows]
assert all(b > a for a, b in zip(t, t[1:])), "time master increasing across the files"
print("recording: %d cycles in %d files, overruns at %s" % (len(rows),
      len(glob.glob(os.path.join(d, "rtvd-record-*.csv"))), ovr))
PY

# size rotation and the --record shorthand (MDF4 only, every output)
: >"$tmp/afile"
"$RTVD" run "<embedded>/config/runs/quarter_car.yaml" --duration 1.5 --udp off --quiet \
    --record "$tmp/afile/rec.mf4" --report-dir "$tmp/s" >"$tmp/s.out" 2>&1
[ $? -eq 1 ] && grep -q "recording to $tmp/afile/rec: Not a directory" "$tmp/s.out" ||
    bad "an impossible directory must be a clear error: $(tail -1 "$tmp/s.out")"
"$RTVD" run "<embedded>/config/runs/quarter_car.yaml" --duration 1.5 --udp off --quiet \
    --record "$tmp/s/rec.mf4" --report-dir "$tmp/s" >"$tmp/s.out" 2>&1 ||
    bad "--record run: $(tail -2 "$tmp/s.out")"
$PY "$HERE/../io/mdf4_check.py" "$tmp/s/rec.mf4" >/dev/null || bad "--record rec.mf4"
[ ! -e "$tmp/s/rec.csv" ] || bad "--record x.mf4 wrote a CSV"
cat >"$tmp/size.yaml" <<'EOF'
model: <embedded>/config/models/quarter_car.yaml
duration: 1.5
telemetry: {udp: off}
rt: {policy: skip}
record: {format: mdf4, rotate_mb: 0.05}
EOF
"$RTVD" run "$tmp/size.yaml" --quiet --report-dir "$tmp/z" >"$tmp/z.out" 2>&1 || bad "size rotation run"
n=$(ls "$tmp/z"/rtvd-record-*.mf4 2>/dev/null | wc -l)
[ "$n" -ge 3 ] || bad "size rotation: $n files"
for f in "$tmp/z"/rtvd-record-*.mf4; do
    $PY "$HERE/../io/mdf4_check.py" "$f" >/dev/null || bad "mdf4_check $f"
    s=$(stat -c %s "$f")
    [ "$s" -lt 120000 ] || bad "$f: $s bytes, rotation at 0.05 MiB"
done

# located errors in record:
check_err() { # $1 = yaml line(s) of record:, $2 = expected message (grep -E)
    printf 'model: <embedded>/config/models/quarter_car.yaml\nrecord:\n%s\n' "$1" >"$tmp/e.yaml"
    "$RTVD" run "$tmp/e.yaml" >"$tmp/e.out" 2>&1
    rc=$?
    [ $rc -eq 1 ] && grep -Eq "$2" "$tmp/e.out" || bad "record error '$1': exit $rc, $(head -2 "$tmp/e.out")"
}
check_err "  format: hdf5" "e.yaml:3:11: error: record.format: "
check_err "  signals: [chassis.z, nothing.here]" "e.yaml:3:24: error: record.signals\[1\]: unknown signal 'nothing.here'"
check_err "  rotate_mb: -1" "e.yaml:3:14: error: record.rotate_mb: "
check_err "  buffer: 8" "e.yaml:3:11: error: record.buffer: "
check_err "  colour: red" "e.yaml:3:3: error: unknown key .colour. in record"

[ $fails -eq 0 ] && echo "record_test: passed"
exit $fails
