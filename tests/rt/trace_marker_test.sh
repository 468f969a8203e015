#!/bin/sh
# tests/rt/trace_marker_test.sh RTVD - rtvd run --trace-marker: the loop thread writes exactly
# one line per overrun cycle and none otherwise. Into a FIFO (a reader collects the lines)
# and a regular file, each run with --trace: the marker lines' cycles must be exactly the
# cycles flagged as overruns in the per-cycle trace, and their count the report's overruns
# (grace included) and trace_marker_writes. A missing path is a clear error. Where tracefs
# can be mounted (root; the PREEMPT_RT guest does the same in deploy/rtvm), a real ftrace
# instance of its own (instances/rtvd-test-PID: its own buffer, nothing global changes)
# records sched_switch and the markers: the marker lines must be in the trace, with the
# scheduler's view of that CPU before them. rtvd bench --trace-marker times the write.
set -u
RTVD=$1
PY=/usr/bin/python3
tmp=$(mktemp -d)
tfs=""
inst=""
cleanup() {
    [ -n "$inst" ] && { echo 0 >"$inst/events/sched/sched_switch/enable"; rmdir "$inst"; } 2>/dev/null
    # tracefs is mounted outside $tmp: nothing below ever runs rm -r on it
    [ -n "$tfs" ] && umount "$tfs" 2>/dev/null && rmdir "$tfs"
    rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
bad() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
RUN="$RTVD run --policy skip --can off --motion off --udp off --quiet --trace"

# $1 = marker lines, $2 = report dir: the lines against the cycles flagged in the trace
check_lines() {
    $PY - "$1" "$2/rtvd-report.json" "$2/rtvd-cycles.csv" "$3" <<'PY'
import json, re, sys
lines = open(sys.argv[1]).read().splitlines()
rep = json.load(open(sys.argv[2]))
c = rep["counters"]
rows = open(sys.argv[3]).read().splitlines()[1:]
flagged = [int(r.split(",")[0]) for r in rows if int(r.split(",")[9]) & 1]
pat = re.compile(r"rtvd: overrun cycle=(\d+) turnaround_ns=(\d+) overrun_ns=(\d+) "
                 r"latency_ns=(-?\d+) missed=(\d+)( grace)?$")
cyc = []
for l in lines:
    m = pat.search(l)
    assert m, "malformed marker line: %r" % l
    assert int(m.group(3)) > 0 and int(m.group(2)) == int(m.group(3)) + rep["config"]["period_us"] * 1000
    cyc.append(int(m.group(1)))
assert cyc == flagged, (cyc, flagged)
assert len(cyc) == c["overruns"] + c["grace_overruns"] == c["trace_marker_writes"], (len(cyc), c)
assert c["trace_marker_errors"] == 0, c
for want in [int(x) for x in sys.argv[4].split(",") if x]:
    assert want in cyc, (want, cyc)
print("%s: %d marker lines = %d overruns flagged in %d cycles" % (sys.argv[1].split("/")[-1],
      len(cyc), len(flagged), len(rows)))
PY
}

# a FIFO with a reader
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/fifo.lines" &
rpid=$!
$RUN --duration 2 --period-us 5000 --inject-delay 100:6500,250:7000 --trace-marker="$tmp/fifo" \
    --report-dir "$tmp/a" >"$tmp/a.out" 2>&1 || bad "run into the FIFO: exit $?"
wait $rpid
check_lines "$tmp/fifo.lines" "$tmp/a" 100,250 || bad "FIFO lines"
grep -q "trace markers: [0-9]* written, 0 failed" "$tmp/a.out" || bad "summary line"

# a regular file, the quarter car at a 10 ms period: no overrun expected, and whatever the
# machine does, the lines are exactly the overruns
: >"$tmp/file.lines"
$RUN "<embedded>/config/runs/quarter_car.yaml" --duration 1 --period-us 10000 \
    --trace-marker="$tmp/file.lines" --report-dir "$tmp/b" >"$tmp/b.out" 2>&1 ||
    bad "run into a file: exit $?"
check_lines "$tmp/file.lines" "$tmp/b" "" || bad "file lines"

# no such marker: a clear error, exit 1, before anything runs
$RUN --duration 1 --trace-marker="$tmp/none/trace_marker" --report-dir "$tmp/c" >"$tmp/c.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "cannot open .*none/trace_marker" "$tmp/c.out" ||
    bad "missing marker path: exit $rc, $(tail -1 "$tmp/c.out")"

# the cost of the write, as a distribution (a benchmark: printed, never judged)
: >"$tmp/bench.lines"
"$RTVD" bench --trace-marker="$tmp/bench.lines" --steps 2000 || bad "bench --trace-marker"
[ "$(wc -l <"$tmp/bench.lines")" -eq 2100 ] || bad "bench wrote $(wc -l <"$tmp/bench.lines") lines"

# a real ftrace instance where tracefs can be mounted
mnt=$(mktemp -d /tmp/rtvd-tracefs.XXXXXX)
if [ "$(id -u)" = 0 ] && mount -t tracefs nodev "$mnt" 2>/dev/null; then
    tfs=$mnt
    inst=$tfs/instances/rtvd-test-$$
    if mkdir "$inst" 2>/dev/null; then
        # 16 MB per CPU: a busy machine's switches over the run must not wrap the ring over
        # the marker (the instance's default is ~1.4 MB)
        echo 16384 >"$inst/buffer_size_kb" 2>/dev/null
        echo 1 >"$inst/events/sched/sched_switch/enable"
        $RUN --duration 1.5 --period-us 5000 --inject-delay 150:6500 --trace-marker="$inst/trace_marker" \
            --report-dir "$tmp/d" >"$tmp/d.out" 2>&1 || bad "run into ftrace: exit $?"
        echo 0 >"$inst/events/sched/sched_switch/enable"
        cp "$inst/trace" "$tmp/trace.txt"
        grep "tracing_mark_write: rtvd: overrun" "$tmp/trace.txt" |
            sed 's/.*tracing_mark_write: //' >"$tmp/ftrace.lines"
        check_lines "$tmp/ftrace.lines" "$tmp/d" 150 || bad "ftrace marker lines"
        # the scheduler's view: switches on the loop's CPU before the first marker
        $PY - "$tmp/trace.txt" <<'PY' || bad "no sched_switch before the marker"
import re, sys
t = open(sys.argv[1]).read().splitlines()
k = next(i for i, l in enumerate(t) if "rtvd: overrun cycle=150 " in l)
cpu = re.search(r"\[(\d+)\]", t[k]).group(1)
before = [l for l in t[:k] if "sched_switch:" in l and "[%s]" % cpu in l]
assert before, "no sched_switch on cpu %s" % cpu
print("ftrace: the marker of cycle 150 on cpu %s after %d context switches there; the last:\n  %s"
      % (cpu, len(before), before[-1].strip()[:160]))
PY
        "$RTVD" bench --trace-marker="$inst/trace_marker" --steps 5000 || bad "bench into ftrace"
    else
        echo "note: tracefs mounted but no instance could be made: the ftrace check is skipped"
    fi
else
    rmdir "$mnt"
    echo "note: tracefs cannot be mounted here (not root or not permitted): the ftrace check" \
        "is skipped; the FIFO and file checks above cover the code path"
fi

[ $fails -eq 0 ] && echo "trace_marker_test: passed"
exit $fails
