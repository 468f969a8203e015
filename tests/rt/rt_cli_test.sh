#!/bin/sh
# tests/rt/rt_cli_test.sh RTVD - `rtvd run` and `rtvd check` from the command line:
#  - a 5 s run of the embedded default (the sedan in its HIL scenario, the driver; started
#    outside the source tree: nothing is read from disk) at 1 kHz without RT privileges (as
#    nobody when started as root): it says that timing is best effort, and its bookkeeping is
#    consistent: histogram totals = cycles, cycles + skipped = elapsed periods = 5000, records
#    received + dropped = cycles, the report fields present and well-formed, the cyclictest
#    files parse, status datagrams arrive. Latency values are never judged: the default's
#    policy is skip, and the sedan may take longer than a period on this machine.
#  - run files naming a scenario: relative paths, the scenario's duration and outputs as
#    defaults, embedded paths on the command line, located errors (scenario and model both);
#  - the policies end to end (stop, freeze) with injected delays, exact counters on a run the
#    machine did not stall (else run again), exit 3
#    (the quarter car: a light model keeps the 15 ms margins of those checks);
#  - SIGINT and SIGTERM stop cleanly with reports; located config errors; rtvd check.
set -u
RTVD=$(readlink -f "$1")
SRC=$(cd "$(dirname "$0")/../.." && pwd)
PY=/usr/bin/python3
tmp=$(mktemp -d)
chmod 0777 "$tmp"
trap 'rm -rf "$tmp"' EXIT
fails=0
pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
. "$(dirname "$0")/../app/ready.sh"

# --- help texts ----------------------------------------------------------------------------
for c in run check ecu; do
    if $RTVD $c --help >"$tmp/help" 2>&1 && grep -q "usage: rtvd $c" "$tmp/help"; then ok; else bad "rtvd $c --help"; fi
done
$RTVD --help | grep -q "^  run " && $RTVD --help | grep -q "^  check " && ok || bad "command table"
$RTVD run --policy sometimes >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "bad --policy must exit 2"
$RTVD run --period-us 10 >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "bad --period-us must exit 2"

# --- the 5 s run without privileges ----------------------------------------------------------
# a UDP listener for the status datagrams (any free port)
$PY - "$tmp/udp.port" "$tmp/udp.json" <<'PY' &
import json, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
# a receive buffer for ~30 s of datagrams: a listener descheduled for seconds on a loaded
# machine must not lose one (the checks below account for every datagram); SO_RCVBUFFORCE
# (33) passes net.core.rmem_max as root, SO_RCVBUF is capped by it otherwise
for opt in (33, socket.SO_RCVBUF):
    try:
        s.setsockopt(socket.SOL_SOCKET, opt, 16 << 20)
        break
    except OSError:
        pass
s.bind(("127.0.0.1", 0))
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s.settimeout(20.0)
got = []
try:
    while True:
        d = json.loads(s.recv(65536))
        got.append(d)
        if d.get("final"):
            break
except socket.timeout:
    pass
json.dump(got, open(sys.argv[2], "w"))
PY
lpid=$!
i=0
while [ ! -s "$tmp/udp.port" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done # 30 s
port=$(cat "$tmp/udp.port")
asuser=""
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    # nobody: no capabilities, RLIMIT_RTPRIO and RLIMIT_MEMLOCK as for any user
    asuser="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all"
fi
(cd "$tmp" && $asuser "$RTVD" run --duration 5 --report-dir "$tmp/r5" --prefix five --trace \
    --udp "127.0.0.1:$port" >"$tmp/run5.out" 2>"$tmp/run5.err")
rc=$?
wait $lpid
if [ $rc -eq 0 ]; then ok; else bad "5 s run exit $rc"; cat "$tmp/run5.out" "$tmp/run5.err" >&2; fi
grep -q "WARNING: timing is best effort" "$tmp/run5.out" && ok || bad "no best-effort warning"
if [ -n "$asuser" ]; then
    grep -q "no SCHED_FIFO" "$tmp/run5.out" && grep -q "memory not locked" "$tmp/run5.out" && ok ||
        bad "unprivileged run must say: no SCHED_FIFO, memory not locked"
fi
grep -q "^  cycles " "$tmp/run5.out" && grep -q "^T: 0 " "$tmp/run5.err" && ok || bad "summary / status line"
grep -q "^rtvd run: <embedded>/config/runs/default.yaml: scenario hil-default (<embedded>/config/scenarios/hil_default.yaml), static equilibrium first, closed-loop driver$" "$tmp/run5.out" &&
    grep -q "^rtvd run: vehicle sedan (<embedded>/config/vehicles/sedan.yaml), 300 DOF" "$tmp/run5.out" && ok ||
    bad "the embedded default is the sedan in its scenario"
sed -n '/summary/,$p' "$tmp/run5.out"
$PY - "$tmp/r5" five "$tmp/udp.json" "$asuser" <<'PY' && ok || bad "5 s run: report checks"
import json, os, re, sys
d, pre, udp, unpriv = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
j = json.load(open(os.path.join(d, pre + "-report.json")))
for k in ["command_line", "version", "git_revision", "uname", "sys_kernel_realtime", "preempt_rt",
          "config", "start", "end", "best_effort", "best_effort_reasons", "setup", "loop_thread",
          "model", "result", "counters", "rings", "telemetry", "latency", "execution",
          "turnaround", "stages", "histogram_files"]:
    assert k in j, "missing " + k
c = j["counters"]
n = c["cycles"]
assert j["result"]["stop_reason"] == "duration", j["result"]
assert n > 0 and n + c["skipped_releases"] == c["elapsed_periods"] == 5000, c
assert j["model"]["steps"] == n - c["frozen_cycles"] and c["step_errors"] == 0
assert j["best_effort"] is True and j["best_effort_reasons"]
if unpriv:
    assert j["loop_thread"]["policy"] == "SCHED_OTHER" and not j["loop_thread"]["fifo_obtained"]
    assert j["setup"]["memory_locked"] is False and j["setup"]["mlock_error"]
assert re.fullmatch(r"fnv1a64:[0-9a-f]{16}", j["config"]["hash"])
assert j["config"]["period_us"] == 1000 and j["config"]["policy"] == "skip"
assert j["config"]["name"] == "<embedded>/config/runs/default.yaml", j["config"]["name"]
assert j["config"]["scenario"] == "<embedded>/config/scenarios/hil_default.yaml", j["config"]
assert j["config"]["model"] == "<embedded>/config/vehicles/sedan.yaml", j["config"]
assert j["model"]["name"] == "sedan" and j["model"]["dof"] == 300, j["model"]
assert "chassis.vx" in j["config"]["outputs"] and "steering.angle.u" in j["config"]["outputs"]
assert j["start"]["monotonic_ns"] < j["first_release_ns"] < j["last_completion_ns"] < j["end"]["monotonic_ns"]
assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", j["start"]["utc"])
for q in ["latency", "execution", "turnaround"]:
    h = j[q]
    assert h["count"] == n and h["total"] + h["overflows"] == n, (q, h["count"], n)
    assert sum(h["histogram"].values()) == h["total"], q
    assert h["min_us"] <= h["avg_us"] <= h["max_us"]
    assert (h["overflows"] == 0) == (h["first_overflow_cycle"] == -1)
for s in ["linearize", "assemble", "factor", "stages"]:
    assert j["stages"][s]["count"] == n - c["frozen_cycles"], s
r = j["rings"]["cycle_records"]
assert r["pushed"] + r["dropped"] == n and r["received"] == r["pushed"] and r["gaps"] == r["dropped"], r
# cyclictest histogram files: rows sum to "# Total", overflows match the JSON
for q, f in [("latency", "latency"), ("execution", "execution"), ("turnaround", "turnaround")]:
    lines = open(os.path.join(d, pre + "-" + f + ".hist")).read().splitlines()
    assert "# Histogram" in lines
    rows = [l for l in lines if re.fullmatch(r"\d{6} \d{6,}", l)]
    assert len(rows) == 1000, len(rows)
    tot = int(next(l for l in lines if l.startswith("# Total:")).split()[2])
    assert tot == sum(int(x.split()[1]) for x in rows) == j[q]["total"]
    ovf = int(next(l for l in lines if l.startswith("# Histogram Overflows:")).split()[3])
    assert ovf == j[q]["overflows"]
    for key in ["# Min Latencies:", "# Avg Latencies:", "# Max Latencies:",
                "# Histogram Overflow at cycle number:"]:
        assert any(l.startswith(key) for l in lines), key
# the per-cycle trace
t = open(os.path.join(d, pre + "-cycles.csv")).read().splitlines()
assert t[0].startswith("cycle,release_ns,latency_ns,exec_ns,turnaround_ns")
assert len(t) - 1 == r["received"], (len(t), r)
skip = sum(int(l.split(",")[-1]) for l in t[1:])
assert skip == c["skipped_releases"] or r["dropped"] > 0
# status datagrams
u = json.load(open(udp))
assert len(u) >= 10 and u[-1]["final"] is True and u[-1]["cycles"] == n, (len(u), u[-1] if u else None)
assert all(x["rtvd_status"] == 2 for x in u)
# version 2: the histograms, the per-cycle series and the overrun events add up to the run
fin = u[-1]
for q in ["latency", "execution", "turnaround"]:
    h = fin["hist"][q]
    assert len(h["n"]) == len(fin["hist"]["le_us"]) + 1 and sum(h["n"]) == h["count"], (q, h)
    assert h["count"] == r["received"], (q, h["count"], r)
    # the report's average has 3 decimals, the datagram's sum 1: they agree to 0.01 us
    assert abs(h["sum_us"] / h["count"] - j[q]["avg_us"]) < 0.01 or r["dropped"] > 0, (q, h, j[q]["avg_us"])
    st = fin[q + "_us"]
    assert st["min"] <= st["avg"] <= st["max"], (q, st)
assert abs(fin["turnaround_us"]["max"] - j["turnaround"]["max_us"]) <= 0.1, (fin["turnaround_us"], j["turnaround"])
assert fin["overrun"]["total"] == c["overruns"] and fin["overrun"]["skipped"] == c["skipped_releases"]
assert fin["records"]["overruns"] == c["overruns"] + c["grace_overruns"] or r["dropped"] > 0
ev = [e for x in u for e in x["events"]]
assert len(ev) == fin["records"]["overruns"] - fin["events_lost"], (ev, fin["records"])
# an overrun is a turnaround past the 1000 us period; the datagram prints both to 0.1 us, so
# one of less than 0.05 us reads overrun 0.0, turnaround 1000.0 (seen: cycle 4780 of a run
# under load): >= here, and the two agree to the rounding of each (0.05 + 0.05 us)
assert all(e["overrun_us"] >= 0 and e["turnaround_us"] >= 1000 and
           abs(e["turnaround_us"] - 1000 - e["overrun_us"]) <= 0.1 + 1e-9 for e in ev), ev
seen = set()
for x in u:
    sr = x["series"]
    assert len(sr["turnaround_us"]) == len(sr["latency_us"]) == sr["n"] and sr["step"] >= 1, sr
    seen.update(range(sr["first_cycle"], sr["first_cycle"] + sr["n"] * sr["step"]) if sr["n"] else [])
assert len(seen) >= r["received"] - 1, (len(seen), r)  # every cycle in some datagram's series
assert set(fin["stages_us"]) == {"linearize", "assemble", "factor", "stages"}
assert [x["seq"] for x in u] == sorted(x["seq"] for x in u)
print("5 s run: %d cycles, %d skipped, %d datagrams, best effort: %s" %
      (n, c["skipped_releases"], len(u), "; ".join(j["best_effort_reasons"])))
# the CAN loop with the in-process ECU (udp on loopback): every frame accounted for
t, e = j["can"]["target"], j["can"]["ecu"]
rx, erx = t["map"]["rx"], e["map"]["rx"]
b, eb = t["buses"][0]["stats"], e["buses"][0]["stats"]
assert rx["frames"] == rx["used"] + rx["unknown"] + rx["other"] + rx["bad_len"] + rx["e2e_rejected"], rx
assert rx["frames"] == t["counters"]["rx_frames"] == b["rx_frames"] > 0, (rx, b)
# the ECU stops first and the target drains its socket: what the ECU sent, the target got
assert eb["tx_frames"] == b["rx_frames"] and eb["tx_datagrams"] == b["rx_datagrams"], (eb, b)
assert erx["frames"] <= b["tx_frames"] and erx["frames"] > 0, (erx, b)
assert rx["bad_len"] == rx["e2e_rejected"] == rx["out_of_range"] == rx["nan"] == 0, rx
assert b["rx_malformed"] == b["rx_overflow"] == b["udp_seq_lost"] == 0, b
names = sorted(i["name"] for i in t["inputs"])
assert names == sorted(["front_l.drive", "front_r.drive", "rear_l.drive", "rear_r.drive",
                        "front_l.brake", "front_r.brake", "rear_l.brake", "rear_r.brake",
                        "steering.angle", "steering.eps_torque"]), names
assert set(t["tx_last"]) == {"VDM_WheelSpeeds", "VDM_Dynamics", "VDM_Steering", "VDM_Suspension"}
assert "front_l.tire.omega" in j["config"]["outputs"] and "imu.lvx" in j["config"]["outputs"]
assert all("can" in x for x in u[1:]) and u[-1]["can"]["rx_used"] > 0, u[-1]
print("5 s run CAN: target rx %d frames (%d used), tx %d; ECU tx %d, rx %d; timeouts %d" %
      (rx["frames"], rx["used"], b["tx_frames"], eb["tx_frames"], erx["frames"], rx["timeouts"]))
PY

# --- run files naming a scenario ----------------------------------------------------------------
# a scenario next to the run file (relative path), 1 s long, its vehicle on disk; the run file
# gives neither duration nor outputs: the scenario's are used. A 2 ms period and skip: the
# sedan's step time is not judged.
mkdir -p "$tmp/scn/runs" "$tmp/scn/scenarios"
sed -e "s|vehicle: ../vehicles/sedan.yaml|vehicle: $PWD/config/vehicles/sedan.yaml|" \
    -e "s|duration: 20|duration: 1|" config/scenarios/hil_default.yaml >"$tmp/scn/scenarios/s.yaml"
printf 'scenario: ../scenarios/s.yaml\nrt: {period_us: 2000, policy: skip}\ntelemetry: {udp: off}\n' \
    >"$tmp/scn/runs/r.yaml"
$RTVD run "$tmp/scn/runs/r.yaml" --quiet --report-dir "$tmp/scnr" >"$tmp/scn.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok || { bad "scenario run file: exit $rc"; cat "$tmp/scn.out" >&2; }
grep -q "scenario hil-default ($tmp/scn/runs/../scenarios/s.yaml), static equilibrium first, closed-loop driver" "$tmp/scn.out" &&
    ok || { bad "scenario run file: the scenario relative to the run file"; cat "$tmp/scn.out" >&2; }
$PY - "$tmp/scnr/rtvd-report.json" <<'PY' && ok || bad "scenario run file: report"
import json, sys
j = json.load(open(sys.argv[1])); c = j["counters"]
assert j["config"]["scenario"].endswith("/runs/../scenarios/s.yaml"), j["config"]
assert j["config"]["duration_s"] == 1 and c["elapsed_periods"] == 500, (j["config"], c)
assert c["cycles"] + c["skipped_releases"] == 500 and j["model"]["steps"] == c["cycles"], c
assert j["config"]["outputs"][:3] == ["chassis.x", "chassis.y", "chassis.z"], j["config"]["outputs"]
assert len(j["config"]["outputs"]) == 18 and j["result"]["stop_reason"] == "duration"
PY
# the command line overrides the scenario's duration; the shipped default from the source tree
$RTVD run config/runs/default.yaml --duration 0.5 --period-us 2000 --quiet --udp off \
    --report-dir "$tmp/dflt" >"$tmp/dflt.out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "scenario hil-default (config/runs/../scenarios/hil_default.yaml)" "$tmp/dflt.out" &&
    grep -q '"duration_s": 0.5,' "$tmp/dflt/rtvd-report.json" && ok ||
    { bad "config/runs/default.yaml --duration 0.5: exit $rc"; cat "$tmp/dflt.out" >&2; }
# embedded files by name, from any directory
(cd "$tmp" && $RTVD run "<embedded>/config/runs/quarter_car.yaml" --duration 0.3 --quiet --udp off \
    --report-dir "$tmp/emb" >"$tmp/emb.out" 2>&1)
rc=$?
[ $rc -eq 0 ] && grep -q "model quarter-car-dw (<embedded>/config/models/quarter_car.yaml)" "$tmp/emb.out" && ok ||
    { bad "<embedded>/config/runs/quarter_car.yaml: exit $rc"; cat "$tmp/emb.out" >&2; }
(cd "$tmp" && $RTVD run "<embedded>/config/runs/nosuch.yaml" >"$tmp/emb.out" 2>&1)
[ $? -eq 1 ] && grep -q "<embedded>/config/runs/nosuch.yaml: error: cannot read: No such file or directory" "$tmp/emb.out" && ok ||
    { bad "a missing embedded file"; cat "$tmp/emb.out" >&2; }
# scenario and model both: a located error
printf 'duration: 1\nmodel: ../models/quarter_car.yaml\nscenario: ../scenarios/hil_default.yaml\n' >"$tmp/both.yaml"
$RTVD run "$tmp/both.yaml" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "both.yaml:3:11: error: scenario and model: give one of them, not both" "$tmp/err" && ok ||
    { bad "scenario and model both"; cat "$tmp/err" >&2; }
printf 'scenario: %s/config/vehicles/sedan.yaml\n' "$PWD" >"$tmp/notscn.yaml"
$RTVD run "$tmp/notscn.yaml" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "notscn.yaml:1:11: error: scenario: '.*sedan.yaml' is not a scenario file" "$tmp/err" && ok ||
    { bad "scenario: naming a model"; cat "$tmp/err" >&2; }

# --- policies end to end: period 20 ms, 45 ms injected in cycle 30 ------------------------------
# The counters are exact on a run the machine did not stall for 15 ms or more in a cycle (a
# shared VM can): cycle 30 then turns around in under 60 ms (45 injected + 15, the margin
# before a third release is missed) and no other cycle takes 15 ms (an uninjected one would
# overrun at 20). A run that breaks this (the turnaround histogram, --histogram-us 15000: its
# overflows other than cycle 30, and its largest turnaround) is checked for what holds on
# any run (exit 3, the stop or freeze at cycle 30's overrun or an earlier one) and repeated,
# up to 3 runs (3 disturbed in a row fail). The checker exits 2 for such a run.
QC=config/runs/quarter_car.yaml
disturbed='
t = j["turnaround"]
if t["overflows"] != (30 in t["overflow_cycles"]) or t["max_us"] >= 60000:
    print("disturbed: %d cycles took 15 ms or more (%s), the longest %.1f ms" %
          (t["overflows"], t["overflow_cycles"], t["max_us"] / 1000))
    sys.exit(2)
'
# NAME ANY EXACT RTVD-ARGS...: ANY (python, j and c bound) holds on every run, EXACT on an
# undisturbed one; bad on failure
policy_run() {
    name=$1 any=$2 exact=$3
    shift 3
    for attempt in 1 2 3; do
        rm -rf "$tmp/$name"
        $RTVD run $QC --duration 2 --period-us 20000 --inject-delay 30:45000 --histogram-us 15000 \
            --quiet --udp off --report-dir "$tmp/$name" "$@" >"$tmp/$name.out" 2>&1
        echo "rc $?" >>"$tmp/$name.out"
        $PY - "$tmp/$name/rtvd-report.json" "$tmp/$name.out" >"$tmp/$name.chk" 2>&1 <<PY
import json, sys
j = json.load(open(sys.argv[1])); c = j["counters"]
rc = int(open(sys.argv[2]).read().split()[-1])
$any
$disturbed
$exact
PY
        r=$?
        [ $r -eq 2 ] || break
        echo "rt_cli_test: $name, run $attempt of 3: $(cat "$tmp/$name.chk")" >&2
    done
    [ $r -eq 0 ] && ok || { bad "policy $name"; cat "$tmp/$name.chk" "$tmp/$name.out" >&2; }
}
policy_run stop '
assert rc == 3, "policy stop must exit 3, got %d" % rc
assert j["result"] == {"state": "stopped", "stop_reason": "overrun", "exit_status": 3}, j["result"]
assert c["overruns"] == 1 and c["overrun_latched"] and c["stop_cycle"] == c["first_overrun_cycle"] <= 30, c
assert c["cycles"] == c["stop_cycle"] + 1 and c["elapsed_periods"] == c["cycles"] + c["skipped_releases"], c
' '
# cycle 30 overran by 25 ms: releases 31 and 32 skipped, 33 elapsed
assert (c["cycles"], c["first_overrun_cycle"], c["skipped_releases"], c["elapsed_periods"]) == (31, 30, 2, 33), c
' --policy stop --no-dma-latency
policy_run frz '
assert rc == 3, "freeze must exit 3, got %d" % rc
# the model froze at the first overrun and the loop went on cycling without stepping until
# the duration: every cycle after it frozen, every elapsed period a cycle or a skipped release
f = c["freeze_cycle"]
assert 0 <= f <= 30 and c["frozen_cycles"] == c["cycles"] - (f + 1) and j["model"]["steps"] == f + 1, c
assert c["cycles"] + c["skipped_releases"] == c["elapsed_periods"], c
assert j["result"]["stop_reason"] == "duration", j["result"]
' '
# frozen at cycle 30 (31 steps), releases 31 and 32 skipped: 98 cycles of the 100 periods of 2 s
assert (c["freeze_cycle"], c["skipped_releases"], c["cycles"], c["elapsed_periods"]) == (30, 2, 98, 100), c
' --policy allow:0:total:freeze

# --- SIGINT / SIGTERM: a clean stop with reports ------------------------------------------------
# the signal once the loop runs ("loop thread" follows the handlers' installation and the
# loop's start: a signal during the set-up would end the process by its default action), not
# after a fixed time, which a loaded machine's set-up (ASan, model, statics) can outlast
for sig in INT TERM; do
    $RTVD run $QC --duration 0 --quiet --udp off --report-dir "$tmp/sig$sig" >"$tmp/sig.out" 2>&1 &
    pid=$!
    ready "$tmp/sig.out" "^rtvd run: loop thread"
    sleep 0.5
    kill -$sig $pid
    wait $pid
    rc=$?
    [ $rc -eq 0 ] && ok || { bad "SIG$sig: exit $rc"; cat "$tmp/sig.out" >&2; }
    $PY -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["result"]["stop_reason"]=="request" and j["counters"]["cycles"]>0' \
        "$tmp/sig$sig/rtvd-report.json" && ok || bad "SIG$sig: report"
done

# --- configuration errors and the shipped run files ---------------------------------------------
printf 'duration: 1\nrt:\n  policy: sometimes\n' >"$tmp/bad.yaml"
$RTVD run "$tmp/bad.yaml" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "bad.yaml:3:11: error: rt.policy: unknown value 'sometimes'" "$tmp/err" && ok ||
    { bad "located config error"; cat "$tmp/err" >&2; }
printf 'outputs: [chassis.z, nosuch.x]\n' >"$tmp/bad2.yaml"
$RTVD run "$tmp/bad2.yaml" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "bad2.yaml:1:22: error: outputs\[1\]: unknown signal 'nosuch.x'" "$tmp/err" && ok ||
    { bad "unknown output signal"; cat "$tmp/err" >&2; }
$RTVD run config/runs/hil_bench.yaml --duration 0.5 --policy skip --quiet --udp off \
    --report-dir "$tmp/hil" >"$tmp/hil.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok || { bad "hil_bench.yaml: exit $rc"; cat "$tmp/hil.out" >&2; }
if [ "$(nproc)" -le 3 ]; then
    grep -q "not pinned to cpu3" "$tmp/hil.out" && ok || bad "cpu 3 absent: must say not pinned"
fi
[ -s "$tmp/hil/bench-cycles.csv" ] && [ -s "$tmp/hil/bench-report.json" ] && ok || bad "hil_bench reports"

# --- rtvd check --------------------------------------------------------------------------------
$RTVD check --no-sample >"$tmp/check.out" 2>&1
rc=$?
cat "$tmp/check.out"
n=$(grep -cE '^(PASS|WARN|FAIL)  [a-z_]+: ' "$tmp/check.out")
[ "$n" -eq 15 ] && ok || bad "rtvd check printed $n items, expected 15"
for item in preempt_rt rt_group_sched isolcpus nohz_full rcu_nocbs rt_throttling cpu_governor \
    smt_sibling irq_affinity irqbalance memlock rtprio openblas clocksource cpu_dma_latency; do
    grep -qE "^(PASS|WARN|FAIL)  $item: " "$tmp/check.out" && ok || bad "check item $item"
done
if grep -q '^FAIL' "$tmp/check.out"; then want=1; else want=0; fi
[ $rc -eq $want ] && ok || bad "rtvd check exit $rc, expected $want"
grep -E '^(WARN|FAIL)' "$tmp/check.out" | grep -vq ' — ' && bad "a WARN/FAIL without a fix" || ok
grep -q '^PASS  openblas: rtvd runs the serial OpenBLAS' "$tmp/check.out" && ok || bad "openblas serial"
# a fake, fully tuned box: all PASS, exit 0
f=$tmp/fake
mkdir -p $f/sys/kernel $f/sys/devices/system/cpu/cpu1/topology $f/proc/sys/kernel $f/proc/self \
    $f/proc/irq/9 $f/dev $f/sys/devices/system/clocksource/clocksource0 $f/boot
echo 6.1.0-rt-amd64 >$f/proc/sys/kernel/osrelease
echo "# CONFIG_RT_GROUP_SCHED is not set" >$f/boot/config-6.1.0-rt-amd64
echo 1 >$f/sys/kernel/realtime
echo 1 >$f/sys/devices/system/cpu/isolated
echo 1 >$f/sys/devices/system/cpu/nohz_full
echo 0-1 >$f/sys/devices/system/cpu/online
echo 1 >$f/sys/devices/system/cpu/cpu1/topology/thread_siblings_list
echo "isolcpus=1 nohz_full=1 rcu_nocbs=1 irqaffinity=0" >$f/proc/cmdline
echo -1 >$f/proc/sys/kernel/sched_rt_runtime_us
echo 1 >$f/proc/irq/default_smp_affinity
echo 0 >$f/proc/irq/9/smp_affinity_list
printf 'CapEff:\t0000000000804000\n' >$f/proc/self/status
echo tsc >$f/sys/devices/system/clocksource/clocksource0/current_clocksource
: >$f/dev/cpu_dma_latency
$RTVD check --root "$f" --no-sample >"$tmp/fake.out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c '^PASS  ' "$tmp/fake.out")" -eq 15 ] && grep -q "RT cpu 1" "$tmp/fake.out" && ok ||
    { bad "fake tuned box: exit $rc"; cat "$tmp/fake.out" >&2; }
$RTVD check --root "$f" --no-sample --fix-plan >"$tmp/fake.out" 2>&1
grep -q '^rtvd check: fix plan: nothing to change$' "$tmp/fake.out" && ok || bad "tuned box: a fix plan"
# --fix-plan prints and changes nothing; --apply writes the planned file, nothing else
echo 950000 >$f/proc/sys/kernel/sched_rt_runtime_us
$RTVD check --root "$f" --no-sample --fix-plan >"$tmp/fake.out" 2>&1
grep -q '^1\. \[rt_throttling\]$' "$tmp/fake.out" && grep -q '^     kernel.sched_rt_runtime_us = -1$' "$tmp/fake.out" &&
    grep -q '^   then: sysctl --system$' "$tmp/fake.out" && [ ! -e "$f/etc" ] && ok ||
    { bad "--fix-plan: the sysctl step, nothing written"; cat "$tmp/fake.out" >&2; }
$RTVD check --root "$f" --no-sample --apply >"$tmp/fake.out" 2>&1
[ $? -eq 0 ] && grep -qx 'kernel.sched_rt_runtime_us = -1' "$f/etc/sysctl.d/60-rtvd.conf" &&
    [ "$(find "$f/etc" -type f | wc -l)" -eq 1 ] && ok ||
    { bad "--apply: exactly the sysctl.d file"; cat "$tmp/fake.out" >&2; }
rm -rf "$f/etc"
echo -1 >$f/proc/sys/kernel/sched_rt_runtime_us
# a run whose mapping configures can0: the plan's CAP_NET_ADMIN drop-in for rtvd.service
mkdir -p "$tmp/cancfg"
sed "s|socketcan: {interface: vcan0}|socketcan: {interface: can0, configure: true, bitrate: 500000}|; s|dbc: sedan_bench.dbc|dbc: $SRC/config/can/sedan_bench.dbc|" \
    "$SRC/config/can/sedan_vcan.yaml" >"$tmp/cancfg/map.yaml"
printf 'model: %s/config/models/quarter_car.yaml\ncan: {mapping: map.yaml}\n' "$SRC" >"$tmp/cancfg/run.yaml"
$RTVD check "$tmp/cancfg/run.yaml" --root "$f" --no-sample --fix-plan >"$tmp/fake.out" 2>&1
grep -q '^1\. \[can_configure\]$' "$tmp/fake.out" &&
    grep -q '^   /etc/systemd/system/rtvd.service.d/can.conf:$' "$tmp/fake.out" &&
    grep -q '^     AmbientCapabilities=CAP_NET_ADMIN$' "$tmp/fake.out" && ok ||
    { bad "--fix-plan: the CAP_NET_ADMIN drop-in for a configured can0"; cat "$tmp/fake.out" >&2; }
echo 0 >$f/proc/sys/kernel/osrelease
rm $f/sys/kernel/realtime
$RTVD check --root "$f" --no-sample >"$tmp/fake.out" 2>&1
[ $? -eq 1 ] && grep -q '^FAIL  preempt_rt: ' "$tmp/fake.out" && ok || bad "fake box without RT: exit 1"

echo "rt_cli_test: $pass checks passed, $fails failed"
[ "$fails" -eq 0 ] && [ "$pass" -gt 0 ]
