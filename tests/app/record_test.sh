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
grep -Eq "^  recording: ([0-9]+) records written of \1 taken \(0 dropped" "$tmp/out" ||
    bad "summary: $(grep recording "$tmp/out")"
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
# what reached the files: every cycle, and the bytes the files hold
files = glob.glob(os.path.join(d, "rtvd-record-*.*"))
rf = rep["recording"]
assert rf == {"taken": c["cycles"], "written": c["cycles"], "lost": 0, "missing": 0,
              "bytes": sum(os.path.getsize(f) for f in files), "files": len(files),
              "error": None}, (rf, len(files))
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
# size rotation, one format and both: a file is closed before the row that would start at
# rotate_bytes or beyond (the check is before each row: a file ends below rotate_bytes + one
# row), and every file but the last reached rotate_bytes in the format that filled first
for fmt in mdf4 both; do
    cat >"$tmp/size.yaml" <<EOF
model: <embedded>/config/models/quarter_car.yaml
duration: 1.5
telemetry: {udp: off}
rt: {policy: skip}
record: {format: $fmt, rotate_mb: 0.05}
EOF
    rm -rf "$tmp/z"
    "$RTVD" run "$tmp/size.yaml" --quiet --report-dir "$tmp/z" >"$tmp/z.out" 2>&1 ||
        bad "size rotation run ($fmt)"
    n=$(ls "$tmp/z"/rtvd-record-*.mf4 2>/dev/null | wc -l)
    [ "$n" -ge 3 ] || bad "size rotation ($fmt): $n files"
    for f in "$tmp/z"/rtvd-record-*.mf4; do
        if [ $fmt = both ]; then set -- --csv "${f%.mf4}.csv"; else set --; fi
        $PY "$HERE/../io/mdf4_check.py" "$f" "$@" >/dev/null || bad "mdf4_check $f ($fmt)"
    done
    $PY - "$tmp/z" "$fmt" <<'PY' || bad "size rotation ($fmt): file sizes"
import glob, json, os, sys
d, fmt = sys.argv[1], sys.argv[2]
limit = int(0.05 * 1048576)  # rotate_mb x 2^20, truncated as app/recording.c does
rep = json.load(open(os.path.join(d, "rtvd-report.json")))
mf = sorted(glob.glob(os.path.join(d, "rtvd-record-*.mf4")))
ncol = 1 + len(rep["config"]["outputs"]) + 12  # time, the outputs, the 12 fixed channels
for i, m in enumerate(mf):
    sizes = {"mdf4": os.path.getsize(m)}
    rows = {"mdf4": 8 * ncol}  # an MDF4 record: 8 bytes a channel
    if fmt == "both":
        c = m[:-4] + ".csv"
        sizes["csv"] = os.path.getsize(c)
        rows["csv"] = max(len(l) for l in open(c, "rb"))
    for k in sizes:
        assert sizes[k] < limit + rows[k], (m, k, sizes[k], limit, rows[k])
    if i < len(mf) - 1:
        assert max(sizes.values()) >= limit, (m, sizes, limit)
rf = rep["recording"]
on_disk = sum(os.path.getsize(f) for f in glob.glob(os.path.join(d, "rtvd-record-*.*")))
assert rf["written"] == rf["taken"] == rep["counters"]["cycles"] and rf["bytes"] == on_disk, rf
PY
done

# a full disk: the CSV's writes fail (ENOSPC at its first flush, at the end of this short run):
# nothing is counted as written, every record as lost, the error in the summary and the report
ln -s /dev/full "$tmp/full.csv"
"$RTVD" run "<embedded>/config/runs/quarter_car.yaml" --duration 1 --udp off --quiet \
    --record "$tmp/full.csv" --report-dir "$tmp/f" >"$tmp/f.out" 2>&1
rc=$?
grep -Eq "^  recording: 0 records written of ([0-9]+) taken .*WRITE ERROR" "$tmp/f.out" &&
    grep -Eq "^  recording: No space left on device \([0-9]+ records not written\)" "$tmp/f.out" &&
    [ $rc -ne 0 ] || bad "a full disk: exit $rc, $(grep recording "$tmp/f.out")"
$PY - "$tmp/f" <<'PY' || bad "a full disk: the report"
import json, os, sys
rep = json.load(open(os.path.join(sys.argv[1], "rtvd-report.json")))
rf = rep["recording"]
assert rf["taken"] == rep["counters"]["cycles"] > 0 and rf["written"] == 0, rf
assert rf["lost"] == rf["taken"] and rf["bytes"] == 0, rf
assert rf["error"] == "No space left on device", rf
PY

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
