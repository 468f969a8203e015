#!/bin/sh
# tests/app/motion_control_test.sh RTVD - the operator's control channel into `rtvd run`'s motion
# feed (app/motionctl.h) end to end: real sockets, real threads, `rtvd control` as the operator.
# 1. moog_mda against `rtvd motion --format moog_mda` acting as the MBC (the sedan in a steady
#    circle at 15 m/s, 500 Hz, the MBC's status watched, a fault injected at 1 s: HostCommandRangeExceeded):
#    the socket exists with mode 0600 while the run lasts and is gone after it; the fault parks
#    and latches the feed; out of state and refused (each counted by its reason): ENGAGE while
#    the fault is latched ("fault"), PARK while in fault ("not_engaged"); malformed and unknown
#    datagrams from an independent client (python) are refused, counted and never acted on;
#    RESET --wait: RESET with neutral cues until the MBC reports no fault (acknowledged), then
#    RESET refused while engaged ("not_parked"); ENGAGE --wait: ENGAGE with neutral cues until
#    the MBC reports ENGAGED, then the fade-in (the MBC sees no motion in STANDBY); PARK --wait
#    by the operator: the fade to neutral with the jerk bound 15/(8 T) |c - n| checked on what
#    the MBC received, then DISENGAGE; ENGAGE again (from the operator's park); the run ends
#    parked after stop. The report, the summary and the status datagrams (telemetry:
#    motion.operator) carry the counts.
# 2. the rtvd format (no platform faults) against an independent decoder (python struct +
#    zlib's crc32 of io/MOTION_DATAGRAMS.md): PARK fades out (state parking then parked, reason
#    11 "operator park", flag fault clear, the jerk bound checked in f64), RESET refused
#    ("no_platform"), ENGAGE fades in again (state engaging, reason 0, flag live).
# 3. what does not come back: a fault the MBC holds through RESET (not acknowledged in 2 s,
#    counted, ENGAGE still refused); an MBC that never engages (the operator's ENGAGE times out
#    after engage_timeout_s, counted, the feed in fault); a heartbeat lost (ENGAGE refused while
#    it is); every command after the loop's end refused (run_ended).
# 4. run-file errors of motion.control (a relative path) and a path that is no socket.
# Ports: motion 24990/24991, status 24992 (none of the other tests' ports: moog_status_test
# takes 24970..24981).
set -u
RTVD=$1
PY=/usr/bin/python3
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
fails=0
bad() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
# the sedan in a steady circle at 15 m/s (lateral specific force of several m/s^2: a park
# fades something), no CAN bus. The loop's silence watch at 500 ms instead of 50: under ASan on
# a loaded 2-core machine the sedan's loop falls behind for tens of ms (a `loop silent` park
# at the run's end turned CI red once); this test is about the operator's channel, and
# motion_test covers the silence watch
RUN=$tmp/circle.yaml
printf 'scenario: <embedded>/config/scenarios/steady_circle.yaml\nrt:\n  period_us: 1000\n  policy: skip\nmotion:\n  stale_ms: 500\n' >"$RUN"
CTL=$tmp/ctl.sock

# rtvd control, its output appended to $tmp/ops with the command line; $1 the expected status
op() {
    want=$1
    shift
    echo "> rtvd control $*" >>"$tmp/ops"
    "$RTVD" control "$@" >>"$tmp/ops" 2>&1
    got=$?
    [ "$got" = "$want" ] || bad "rtvd control $*: exit $got, not $want: $(tail -2 "$tmp/ops")"
}
. "$(dirname "$0")/ready.sh"
# `rtvd motion` as a Moog MBC on port $2 in the background (rp its pid), its JSON counts in
# $tmp/$1.json, until it is ready; $3.. its options. Its hostComm timeout is 5 s, not the
# MBC's 0.2 s: a loaded machine can hold rtvd's motion thread off that long, and no case here
# tests the host's silence (a latched hostComm fault would change their fault words)
mbc() {
    name=$1 port=$2
    shift 2
    "$RTVD" motion "127.0.0.1:$port" --format moog_mda --duration 120 --exit-when-silent 1 \
        --json "$tmp/$name.json" --moog-timeout 5 "$@" >"$tmp/$name.out" 2>&1 &
    rp=$!
    ready "$tmp/$name.out" "listening on"
}
# end a run once its operations are done: SIGTERM is rtvd run's clean stop (the feed parks as
# at the end of its duration); the durations are only a backstop
stop_run() {
    kill -TERM "$1" 2>/dev/null
}
# wait (at most 20 s) until the feed's STATUS has $1 (a grep pattern)
wait_for() {
    i=0
    while [ $i -lt 200 ]; do
        "$RTVD" control "$CTL" status 2>/dev/null | grep -q "$1" && return 0
        sleep 0.1
        i=$((i + 1))
    done
    bad "never reached '$1': $("$RTVD" control "$CTL" status 2>&1)"
    return 1
}

# --- 1. moog_mda ---------------------------------------------------------------------------
mbc rx 24990 --moog-fault 2:6@1.0 --csv "$tmp/rx.csv"
$PY - "$tmp/dgrams.json" 24992 <<'PY' &
import socket, sys, json
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[2]))); s.settimeout(10)
open(sys.argv[1] + ".ready", "w").write("bound\n")
got = []
try:
    while True:
        d = json.loads(s.recv(65536))
        if "motion" in d:
            got.append(d["motion"])
except socket.timeout:
    pass
json.dump(got, open(sys.argv[1], "w"))
PY
dgpid=$!
ready "$tmp/dgrams.json.ready" bound
"$RTVD" run "$RUN" --duration 90 --report-dir "$tmp/moog" --motion 127.0.0.1:24990 \
    --motion-format moog_mda --motion-rate 500 --motion-heartbeat 0.5 --motion-control "$CTL" \
    --udp 127.0.0.1:24992 >"$tmp/moog.out" 2>&1 &
runpid=$!
i=0
while [ ! -S "$CTL" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
mode=$(stat -c %a "$CTL" 2>/dev/null)
[ "$mode" = 600 ] || bad "control socket mode '$mode', not 600"
if wait_for "state=fault reason=platform_fault"; then
    op 1 "$CTL" engage # the fault latched: refused ("fault")
    op 1 "$CTL" park   # in fault: refused ("not_engaged")
    # malformed (empty, two words, binary, too long) and unknown, from a client of its own
    $PY - "$CTL" <<'PY' >>"$tmp/ops" 2>&1 || bad "malformed datagrams: $(tail -6 "$tmp/ops")"
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("")  # autobind: an abstract address for the replies
s.connect(sys.argv[1]); s.settimeout(3)
ok = True
for req, why in ((b"", "malformed"), (b"PARK PARK", "malformed"), (b"\x00\xffENGAGE", "malformed"),
                 (b"ENGAGE" * 7, "malformed"), (b"FLY\n", "unknown")):
    s.send(req)
    r = s.recv(512).decode()
    print("py %r -> %s" % (req, r.strip()))
    ok = ok and r.startswith("REFUSED - why=%s state=fault " % why) and "pending=none" in r
# lower case and a newline: a command
s.send(b"status\n")
r = s.recv(512).decode()
print("py b'status\\n' -> %s" % r.strip())
ok = ok and r.startswith("ACCEPTED STATUS why=- state=fault ") and " latched=1 " in r
sys.exit(0 if ok else 1)
PY
    op 0 "$CTL" reset --wait --timeout 5    # RESET until the MBC reports no fault
    op 0 "$CTL" engage --wait --timeout 10  # the handshake, then the fade-in (engage_s 2 s)
    op 1 "$CTL" reset                       # engaged: refused ("not_parked")
    sleep 1
    op 0 "$CTL" park --wait --timeout 10    # the operator's park (park_s 2 s), the MBC settled
    op 0 "$CTL" engage --wait --timeout 10  # from the operator's park
fi
stop_run $runpid
wait $runpid
echo $? >"$tmp/moog.rc"
wait $rp
wait $dgpid
cat "$tmp/ops"
[ "$(cat "$tmp/moog.rc")" = 0 ] || bad "rtvd run exit $(cat "$tmp/moog.rc"): $(tail -3 "$tmp/moog.out")"
[ ! -e "$CTL" ] || bad "the control socket was not removed at exit"
grep -q "operator control channel $CTL (Unix datagrams, mode 0600): PARK, RESET, ENGAGE" \
    "$tmp/moog.out" || bad "describe line: $(grep 'control' "$tmp/moog.out")"
grep -Eq "^    operator commands: [0-9]+ received, [0-9]+ accepted \(park 1, reset 1, engage 2, status [0-9]+\), 8 refused \(4 malformed\) \(1 unknown\) \(1 not_engaged\) \(1 not_parked\) \(1 fault\); 1 operator parks, 2 re-engagements; RESET 1 acknowledged, 0 not, 0 cut short by the run's end; 0 engage timeouts" \
    "$tmp/moog.out" || bad "summary: $(grep 'operator commands' "$tmp/moog.out")"
$PY - "$tmp" <<'PY' || bad "moog_mda: report, MBC, telemetry"
import csv, json, sys
d = sys.argv[1]
rep = json.load(open(d + "/moog/rtvd-report.json"))["motion"]
rx = json.load(open(d + "/rx.json"))
tm = json.load(open(d + "/dgrams.json"))
rows = list(csv.DictReader(open(d + "/rx.csv")))
op, pl, mo = rep["operator"], rep["platform"], rx["moog"]
ok = True
def check(c, what):
    global ok
    if not c:
        print("FAIL:", what, file=sys.stderr); ok = False
cm = op["commands"]
print("  moog_mda: %s after %s; operator %s" % (rep["state"], rep["reason"], op))
check(rep["state"] == "parked" and rep["reason"] == "stop", "the run ends parked after stop")
check(cm["park"] == {"accepted": 1, "refused": 1} and cm["reset"] == {"accepted": 1, "refused": 1}
      and cm["engage"] == {"accepted": 2, "refused": 1} and cm["other"] == {"accepted": 0, "refused": 5}
      and cm["status"]["accepted"] >= 1 and cm["status"]["refused"] == 0, "commands %s" % cm)
want = {"malformed": 4, "unknown": 1, "not_engaged": 1, "not_parked": 1, "fault": 1}
check(all(op["refused"][k] == want.get(k, 0) for k in op["refused"]), "refused %s" % op["refused"])
check(op["parks"] == 1 and op["reengagements"] == 2 and op["resets_acked"] == 1
      and op["resets_failed"] == 0 and op["resets_cut"] == 0 and op["engage_timeouts"] == 0
      and op["engages_aborted"] == 0
      and op["reply_errors"] == 0 and op["reset_sends"] >= 1 and op["engage_sends"] >= 1
      and op["engages_begun"] == 3, "what came of them: %s" % op)
# one platform fault (the injected one), latched until the operator's RESET; no RESET but his
check(rep["faults"]["platform fault"] == 1 and rep["faults"]["operator park"] == 1
      and sum(v for k, v in rep["faults"].items() if k not in ("stop", "operator park")) == 1,
      "fault events %s" % rep["faults"])
check(pl["reset"] == "never" and pl["reset_sends"] == 0 and pl["fault_words_seen"] == [0, 64, 0]
      and pl["fault_words"] == [0, 0, 0], "platform %s" % pl)
# the MBC: its fault cleared by exactly one RESET exchange, every RESET the feed sent received
# (no gaps), no motion commanded while it was in STANDBY (the handshakes sent neutral cues)
check(rx["gaps"] == 0 and rx["bad"] == 0 and mo["resets_cleared"] == 1
      and mo["reset"] == op["reset_sends"] and mo["motion_in_standby"] == 0, "the MBC %s" % rx)
check(rx["jerk_max"] < 50 and rx["jerky"] == 0, "jerk max %g m/s^3" % rx["jerk_max"])
# the commands in order: runs of the same motion command word (CSV state: 2 ENGAGE, 4
# DISENGAGE, 0 NULL or RESET)
runs = []
for r in rows:
    if not runs or runs[-1][0] != r["state"]:
        runs.append([r["state"], []])
    runs[-1][1].append(r)
seq = [s for s, _ in runs]
print("  the MBC's commands: " + " ".join("%s x%d" % (s, len(v)) for s, v in runs))
# ENGAGE (run, fault fade), DISENGAGE, RESET, DISENGAGE, ENGAGE (handshake, fade-in, engaged,
# the operator's park), DISENGAGE, ENGAGE (again), DISENGAGE (after the stop)
core = [s for s in seq if s != "0"] 
check(seq[-1] == "4" and core.count("2") == 3 and "0" in seq[seq.index("4"):],
      "the command sequence %s" % seq)
engs = [v for s, v in runs if s == "2"]
if len(engs) == 3:
    g = 9.81
    n = [0.0, 0.0, g]
    F = ("fx", "fy", "fz")
    # the operator's park: the last 1000 ENGAGE of the second ENGAGE run (park_s 2 s at
    # 500 Hz: 999 fading, then DISENGAGE with neutral), the row before them the cue c held
    after = runs[[i for i, (s, _) in enumerate(runs) if s == "2"][1] + 1][1]
    win = engs[1][-1000:] + after[:1]
    c = [float(win[0][k]) for k in F]
    dt = 1.0 / 500
    # jerk bound of the quintic fade: |df/dt| <= 15/(8 T) |c - n|, T = 2 s. Tolerance: the
    # MDA record is f32: each decoded f is within half an ulp of |a| < 16 m/s^2 (4.8e-7) of
    # the sent value, so a difference of two within 1e-6, over dt 2 ms: 5e-4 m/s^3; 1e-3
    ok_j = True
    jmax = 0.0
    for i in range(len(win) - 1):
        if int(win[i + 1]["seq"]) != int(win[i]["seq"]) + 1:
            ok_j = False
        for k, f in enumerate(F):
            j = abs(float(win[i + 1][f]) - float(win[i][f])) / dt
            jmax = max(jmax, j)
            if j > 15.0 / 16.0 * abs(c[k] - n[k]) + 1e-3:
                ok_j = False
    print("  operator park: c - n = (%.4g, %.4g, %.4g) m/s^2, jerk max %.4g m/s^3, bound %.4g" %
          (c[0] - n[0], c[1] - n[1], c[2] - n[2], jmax,
           15.0 / 16.0 * max(abs(c[k] - n[k]) for k in range(3)) + 1e-3))
    check(ok_j, "the operator park's jerk bound (or a gap)")
    check(max(abs(c[k] - n[k]) for k in range(3)) > 1.0, "the park starts from live cues")
    check(all(abs(float(win[-1][f]) - n[k]) < 1e-5 for k, f in enumerate(F)),
          "the park ends neutral: %s" % [win[-1][f] for f in F])
    # the re-engagement after the RESET: ENGAGE with neutral cues first (the handshake), then
    # the fade-in from neutral
    first = engs[1][:op["engage_sends"] // 2 + 1]
    check(all(abs(float(r[f]) - n[k]) < 1e-5 for r in first[:1] for k, f in enumerate(F)),
          "the handshake's first ENGAGE is neutral")
# the status datagrams: motion.operator, the monitor's alarm field not set by the operator park
ops = [x for x in tm if "operator" in x]
check(len(ops) > 3 and len(ops) == len(tm), "status datagrams with motion.operator: %d of %d" % (len(ops), len(tm)))
if ops:
    last = ops[-1]["operator"]
    check(last["commands"]["engage"]["accepted"] == 2 and last["parks"] == 1
          and last["reengagements"] == 2 and last["resets_acked"] == 1
          and last["refused"]["malformed"] == 4 and last["pending"] == "none", "telemetry %s" % last)
    check(not any(x["fault"] == "operator park" for x in tm), "an operator park is no fault")
    check(any(x["state"] == "parked" and x["reason"] == "operator park" for x in tm),
          "telemetry saw the operator's park")
sys.exit(0 if ok else 1)
PY

# --- 1b. an MBC whose status lags 1.5 s (--moog-status-lag): after the operator's park the feed
# is parked and sends DISENGAGE while the MBC still reports ENGAGED (then SETTLING 0.5 s, then
# STANDBY): ENGAGE is refused ("settling") until a status received after the park reports
# STANDBY (settled=yes), and the handshake then waits for an ENGAGED reported after its first
# ENGAGE (the lagged status says STANDBY for 1.5 s more): the MBC never gets motion while
# SETTLING or in STANDBY. RESET without a fault: refused ("no_fault"). Then an ENGAGE cancelled
# by PARK while its handshake waits (the MBC has engaged on it, its lagged status still says
# STANDBY): ENGAGE refused ("settling") for engage_timeout_s (2 s here) after the cancel, then
# until STANDBY is reported (a stale STANDBY must not count); the cancel counted as an ENGAGE
# aborted, not as an operator park.
printf 'model: <embedded>/config/models/quarter_car.yaml\nrt:\n  period_us: 1000\n  policy: skip\nmotion:\n  dest: 127.0.0.1:24990\n  format: moog_mda\n  rate_hz: 500\n  heartbeat_s: 0.5\n  engage_timeout_s: 2\n  control: %s\n' \
    "$CTL" >"$tmp/lag.yaml"
mbc rx1b 24990 --moog-status-lag 1.5
"$RTVD" run "$tmp/lag.yaml" --duration 90 --udp off --report-dir "$tmp/lag" \
    >"$tmp/lag.out" 2>&1 &
runpid=$!
: >"$tmp/ops"
if wait_for "state=engaged "; then
    # a second run on the same control path: refused at its start (the lock), the first's
    # socket untouched
    "$RTVD" run "<embedded>/config/runs/quarter_car.yaml" --duration 1 --udp off \
        --motion 127.0.0.1:24993 --motion-control "$CTL" >"$tmp/second.out" 2>&1 &&
        bad "a second run on the same control socket started"
    grep -q "motion.control $CTL: in use: another rtvd run holds its lock $CTL.lock" \
        "$tmp/second.out" || bad "the second run's message: $(head -3 "$tmp/second.out")"
    op 0 "$CTL" status
    op 0 "$CTL" park
    wait_for "state=parked " # the fade's end: DISENGAGE goes out, the MBC reports ENGAGED for 1.5 s
    op 1 "$CTL" engage       # refused: "settling"
    op 1 "$CTL" reset        # refused: "no_fault"
    wait_for "settled=yes"
    op 0 "$CTL" engage --wait --timeout 20
    op 0 "$CTL" park --wait --timeout 20 # parked, the MBC in STANDBY again
    op 0 "$CTL" engage                   # the handshake: ENGAGE; the MBC engages at once
    sleep 0.3                            # (its status says so 1.5 s later)
    op 0 "$CTL" park                     # cancels the pending ENGAGE
    op 1 "$CTL" engage                   # refused: "settling" (the hold)
    wait_for "settled=yes"
    op 0 "$CTL" engage --wait --timeout 20
fi
stop_run $runpid
wait $runpid
wait $rp
cat "$tmp/ops"
grep -Eq "^REFUSED ENGAGE why=settling state=parked .* platform=(engaged|settling) settled=no " \
    "$tmp/ops" ||
    bad "a lagging MBC: ENGAGE right after the park not refused as settling"
grep -q "^REFUSED RESET why=no_fault " "$tmp/ops" || bad "RESET without a fault not refused"
$PY - "$tmp" <<'PY' || bad "a lagging MBC"
import json, sys
d = sys.argv[1]
rep = json.load(open(d + "/lag/rtvd-report.json"))["motion"]
mo = json.load(open(d + "/rx1b.json"))["moog"]
op = rep["operator"]
print("  lagging MBC: %s after %s; operator %s; the MBC %s" % (rep["state"], rep["reason"], op, mo))
ok = (op["refused"]["settling"] == 2 and op["refused"]["no_fault"] == 1 and op["parks"] == 2
      and op["reengagements"] == 2 and op["engages_aborted"] == 1 and op["engage_sends"] > 0 and mo["motion_in_settling"] == 0
      and mo["motion_in_standby"] == 0 and rep["state"] == "parked")
sys.exit(0 if ok else 1)
PY

# --- 2. the rtvd format ----------------------------------------------------------------------
$PY - "$tmp/rtvd.json" 24991 <<'PY' &
# an independent decoder of the rtvd layout (io/MOTION_DATAGRAMS.md): header, 26 f64, CRC-32
import json, socket, struct, sys, zlib
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[2]))); s.settimeout(5)
open(sys.argv[1] + ".ready", "w").write("bound\n")
rows = []
try:
    while True:
        b = s.recv(1024)
        if len(b) != 252 or b[:4] != b"RTVM" or struct.unpack_from("<I", b, 248)[0] != zlib.crc32(b[:248]):
            rows.append(None)
            continue
        ver, typ, seq, flags, tm, ts, st, rs, rate, fade = struct.unpack_from("<HHIIdqBBHf", b, 4)
        f = struct.unpack_from("<3d", b, 40)
        rows.append([seq, flags, st, rs, fade, f[0], f[1], f[2]])
except socket.timeout:
    pass
json.dump(rows, open(sys.argv[1], "w"))
PY
rxp=$!
ready "$tmp/rtvd.json.ready" bound
"$RTVD" run "$RUN" --duration 90 --udp off --report-dir "$tmp/rtvd" --motion 127.0.0.1:24991 \
    --motion-rate 500 --motion-control "$CTL" >"$tmp/rtvd.out" 2>&1 &
runpid=$!
: >"$tmp/ops"
if wait_for "state=engaged "; then
    sleep 0.5
    op 0 "$CTL" park --wait --timeout 10
    op 1 "$CTL" reset # no platform faults in this format: refused ("no_platform")
    op 0 "$CTL" engage --wait --timeout 10
    sleep 0.5
    # the loop has ended, the feed parks for good (park_s 2 s): everything but STATUS refused
    stop_run $runpid
    wait_for "reason=stop " && op 1 "$CTL" engage
fi
wait $runpid
echo $? >"$tmp/rtvd.rc"
wait $rxp
cat "$tmp/ops"
[ "$(cat "$tmp/rtvd.rc")" = 0 ] || bad "rtvd run (rtvd format) exit $(cat "$tmp/rtvd.rc")"
grep -q "REFUSED RESET why=no_platform " "$tmp/ops" || bad "RESET in the rtvd format not refused"
grep -q "REFUSED ENGAGE why=run_ended state=park[a-z]* reason=stop " "$tmp/ops" ||
    bad "ENGAGE after the loop's end not refused"
grep -q "operator control channel $CTL (Unix datagrams, mode 0600): PARK, ENGAGE, STATUS" \
    "$tmp/rtvd.out" || bad "describe line (rtvd): $(grep 'control' "$tmp/rtvd.out")"
$PY - "$tmp" <<'PY' || bad "rtvd format: the datagrams"
import json, sys
d = sys.argv[1]
rows = json.load(open(d + "/rtvd.json"))
rep = json.load(open(d + "/rtvd/rtvd-report.json"))["motion"]
ok = True
def check(c, what):
    global ok
    if not c:
        print("FAIL:", what, file=sys.stderr); ok = False
check(rows and None not in rows, "every datagram decoded (%d)" % len(rows))
rows = [r for r in rows if r]
check(all(rows[i + 1][0] == rows[i][0] + 1 for i in range(len(rows) - 1)), "no gaps")
FAULT, LIVE, FADING = 1 << 5, 1 << 4, 1 << 2
# state runs: (state, reason)
runs = []
for r in rows:
    if not runs or runs[-1][0] != (r[2], r[3]):
        runs.append([(r[2], r[3]), []])
    runs[-1][1].append(r)
# off (neutral) before the loop's first output reached the feed: on a slow start (TSan) a
# datagram or two
if runs and runs[0][0] == (0, 0):
    runs = runs[1:]
seq = [s for s, _ in runs]
print("  rtvd: " + " ".join("%d/%d x%d" % (s[0], s[1], len(v)) for s, v in runs))
# engaging, engaged, parking (operator park), parked (operator park), engaging, engaged,
# parking (stop), parked (stop)
want = [(1, 0), (2, 0), (3, 11), (4, 11), (1, 0), (2, 0), (3, 1), (4, 1)]
check(seq == want, "states %s" % seq)
if seq == want:
    park, parked, again = runs[2][1], runs[3][1], runs[4][1]
    check(all(not r[1] & FAULT and not r[1] & LIVE and r[1] & FADING for r in park[:-1]),
          "parking by the operator: no fault flag, not live, fading")
    check(all(not r[1] & FAULT and r[4] == 0.0 for r in parked), "parked: no fault, fade 0")
    check(all(r[1] & LIVE for r in again) and again[0][4] < 0.01, "engaging again: live, from 0")
    check(all(park[i + 1][4] <= park[i][4] for i in range(len(park) - 1)), "the fade decreases")
    # the jerk bound 15/(8 T) |c - n| (T = park_s 2 s), c the cue of the last engaged datagram
    # (held through the park), in f64: rounding 1e-15 x 10 m/s^2 / 2 ms = 5e-12; 1e-9
    c = runs[1][1][-1][5:8]
    n = [0.0, 0.0, parked[-1][7]]
    win = [runs[1][1][-1]] + park + parked[:1]
    jm = [max(abs(win[i + 1][5 + k] - win[i][5 + k]) * 500 for i in range(len(win) - 1)) for k in range(3)]
    print("  operator park (rtvd): jerk max %s m/s^3, bound %s" %
          (["%.4g" % j for j in jm], ["%.4g" % (15 / 16 * abs(c[k] - n[k])) for k in range(3)]))
    check(all(jm[k] <= 15 / 16 * abs(c[k] - n[k]) + 1e-9 for k in range(3)), "jerk bound")
    check(abs(parked[0][7] - n[2]) < 1e-12 and parked[0][5] == 0.0, "parked neutral")
op = rep["operator"]
check(op["parks"] == 1 and op["reengagements"] == 1 and op["refused"]["no_platform"] == 1
      and op["commands"]["reset"] == {"accepted": 0, "refused": 1}, "report %s" % op)
sys.exit(0 if ok else 1)
PY

# --- 3. what does not come back: a fault that persists through RESET, an MBC that will not engage
# (the quarter car, quicker to start). a) the MBC holds FAULT1 from 0.5 s (a forced state
# RESET does not clear): the operator's RESET is not acknowledged within 2 s (resets_failed),
# twice (each RESET's own datagrams decide: every RESET datagram of both counted), the fault
# stays latched and ENGAGE is refused; a third RESET cut short by the run's end (resets_cut);
# b) the MBC ignores ENGAGE, engage_timeout_s 1:
# the first handshake times out (engage timeout), the operator's ENGAGE is accepted (no
# platform fault latched) and times out too: counted, the feed in fault, DISENGAGE after.
mbc rx3a 24990 --moog-state fault1@0.5 --csv "$tmp/rx3a.csv"
"$RTVD" run "<embedded>/config/runs/quarter_car.yaml" --duration 60 --udp off \
    --report-dir "$tmp/held" --motion 127.0.0.1:24990 --motion-format moog_mda \
    --motion-rate 500 --motion-heartbeat 0.5 --motion-control "$CTL" >"$tmp/held.out" 2>&1 &
runpid=$!
: >"$tmp/ops"
if wait_for "state=fault reason=platform_fault"; then
    op 1 "$CTL" reset --wait --timeout 5 # not acknowledged: NOT reached
    op 1 "$CTL" reset --wait --timeout 5 # again
    op 1 "$CTL" engage                   # still latched: refused ("fault")
    op 0 "$CTL" reset                    # accepted; the run ends within its 2 s
fi
stop_run $runpid
wait $runpid
wait $rp
cat "$tmp/ops"
grep -q "REFUSED ENGAGE why=fault .* latched=1 .* resets_failed=2 " "$tmp/ops" ||
    bad "a held fault: ENGAGE after a failed RESET not refused"
printf 'model: <embedded>/config/models/quarter_car.yaml\nrt:\n  period_us: 1000\n  policy: skip\nmotion:\n  dest: 127.0.0.1:24991\n  format: moog_mda\n  rate_hz: 500\n  heartbeat_s: 0.5\n  engage_timeout_s: 1\n  control: %s\n' \
    "$CTL" >"$tmp/never.yaml"
mbc rx3b 24991 --moog-never-engage
"$RTVD" run "$tmp/never.yaml" --duration 60 --udp off --report-dir "$tmp/never" \
    >"$tmp/never.out" 2>&1 &
runpid=$!
: >"$tmp/ops"
if wait_for "state=fault reason=engage_timeout"; then
    op 1 "$CTL" engage --wait --timeout 5 # accepted, then the timeout: NOT reached
fi
stop_run $runpid
wait $runpid
wait $rp
cat "$tmp/ops"
grep -q "^ACCEPTED ENGAGE why=- state=fault reason=engage_timeout .*pending=engage " "$tmp/ops" ||
    bad "the operator's ENGAGE after an engage timeout not accepted"
$PY - "$tmp" <<'PY' || bad "what does not come back"
import csv, json, sys
d = sys.argv[1]
ok = True
def check(c, what):
    global ok
    if not c:
        print("FAIL:", what, file=sys.stderr); ok = False
held = json.load(open(d + "/held/rtvd-report.json"))["motion"]
op = held["operator"]
print("  held fault: %s after %s; operator %s" % (held["state"], held["reason"], op))
# RESET for 2 s at 500 Hz in slot times from the slot of the request (1 ms slots, a send
# every 2nd): sends at 0, 2, .. 2000 ms after it (1001) or at 1, 3, .. 1999 ms (1000), twice;
# the third RESET's until the run's end (0 or more); every one received by the MBC
rx = json.load(open(d + "/rx3a.json"))
# each RESET's own run of datagrams (CSV state 0: RESET, or NULL before the first status;
# the runs of 0 after the first DISENGAGE, 4, are the RESETs): 1000-1001 for each failed one
runs = []
for r in csv.DictReader(open(d + "/rx3a.csv")):
    if not runs or runs[-1][0] != r["state"]:
        runs.append([r["state"], 0])
    runs[-1][1] += 1
seq = [s for s, _ in runs]
resets = [n for s, n in runs[seq.index("4"):] if s == "0"] if "4" in seq else []
print("  held fault: the MBC's commands: " + " ".join("%s x%d" % (s, n) for s, n in runs))
check(len(resets) in (2, 3) and all(1000 <= n <= 1001 for n in resets[:2])
      and sum(resets) == op["reset_sends"], "each RESET's datagrams %s" % resets)
check(op["resets_failed"] == 2 and op["resets_cut"] == 1 and op["resets_acked"] == 0
      and op["reset_sends"] >= 2000 and rx["moog"]["reset"] == op["reset_sends"]
      and op["refused"]["fault"] == 1
      and op["reengagements"] == 0 and held["state"] == "fault"
      and held["reason"] == "platform fault", "held fault: %s" % op)
never = json.load(open(d + "/never/rtvd-report.json"))["motion"]
op = never["operator"]
rx = json.load(open(d + "/rx3b.json"))
print("  never engaged: %s after %s; operator %s" % (never["state"], never["reason"], op))
# the operator's handshake: ENGAGE for engage_timeout_s 1 s at 500 Hz from the slot of the
# request (500 or 501, as RESET's above), then the feed in fault again, DISENGAGE after
check(op["engage_timeouts"] == 1 and op["reengagements"] == 0 and 500 <= op["engage_tries"] <= 501
      and (op["engage_sends"] == op["engage_tries"] or 0 < never["send_errors"])
      and never["state"] == "fault" and never["reason"] == "engage timeout"
      and never["faults"]["engage timeout"] == 2 and rx["moog"]["motion_in_standby"] == 0
      and rx["moog"]["disengage"] >= 1, "never engaged: %s, the MBC %s" % (op, rx["moog"]))
# the start-up handshake's timeout stays in the report after the operator's ENGAGE began anew
pl = never["platform"]
check(pl["engage_timed_out"] and pl["engage_wait_tries"] == 501, "start-up timeout kept: %s" % pl)
sys.exit(0 if ok else 1)
PY

# c) the rtvd format, the heartbeat watched and never sent: the feed parks with heartbeat lost;
#    ENGAGE refused while it stays lost ("heartbeat"), PARK refused ("not_engaged")
"$RTVD" run "<embedded>/config/runs/quarter_car.yaml" --duration 60 --udp off \
    --report-dir "$tmp/hbl" --motion 127.0.0.1:24991 --motion-heartbeat 0.2 \
    --motion-control "$CTL" >"$tmp/hbl.out" 2>&1 &
runpid=$!
: >"$tmp/ops"
if wait_for "state=fault reason=heartbeat_lost"; then
    op 1 "$CTL" engage
    op 1 "$CTL" park
fi
stop_run $runpid
wait $runpid
cat "$tmp/ops"
grep -q "^REFUSED ENGAGE why=heartbeat state=fault reason=heartbeat_lost .*heartbeat=lost " \
    "$tmp/ops" && grep -q "^REFUSED PARK why=not_engaged " "$tmp/ops" ||
    bad "heartbeat lost: ENGAGE or PARK not refused"

# --- 4. configuration errors --------------------------------------------------------------
printf 'motion:\n  dest: 127.0.0.1:24991\n  control: rel.sock\n' >"$tmp/bad1.yaml"
"$RTVD" run "$tmp/bad1.yaml" --duration 1 >"$tmp/bad1.out" 2>&1
grep -q "bad1.yaml:3:12: error: motion.control: 'rel.sock': an absolute path of a Unix socket" \
    "$tmp/bad1.out" || bad "relative path: $(head -2 "$tmp/bad1.out")"
: >"$tmp/file"
"$RTVD" run "$RUN" --duration 1 --motion 127.0.0.1:24991 --motion-control "$tmp/file" \
    >"$tmp/bad2.out" 2>&1 && bad "a regular file as the socket accepted"
grep -q "motion.control $tmp/file: exists and is not a socket" "$tmp/bad2.out" ||
    bad "not a socket: $(head -3 "$tmp/bad2.out")"
[ -f "$tmp/file" ] || bad "the regular file was removed"
"$RTVD" control "$tmp/nosuch.sock" status >"$tmp/bad3.out" 2>&1
[ $? = 2 ] || bad "rtvd control to no socket: not exit 2"

[ $fails = 0 ] && echo "motion_control_test: all passed" || echo "motion_control_test: $fails failed"
exit $fails
