#!/bin/sh
# tests/rt/noalloc_rtvd_run.sh RTVD PRELOAD - zero allocation, zero minor page faults and no
# lock in the real-time threads of the unmodified `rtvd run` binary: 13 s at 1 kHz of its embedded default (loop, telemetry
# with its status line, UDP datagrams and CSV trace, and the CAN loop: the CAN thread and the
# in-process virtual ECU exchanging frames over udp on loopback), with the recording thread
# writing MDF4 and CSV, trace markers into a file on two injected overruns, rtvd monitor
# attached to the datagrams (another process: udp 25873), the motion feed (its thread sending
# to rtvd motion on udp 25874 at 1 kHz, which answers with heartbeats the thread watches; the
# cues on the loop thread), and as under systemd's Type=notify
# with WatchdogSec=1 (READY=1 after init, WATCHDOG=1 from the telemetry thread about every
# 0.25 s, STOPPING=1 at the end, to a receiver on $NOTIFY_SOCKET), counted by an LD_PRELOAD'ed
# malloc interposer in every thread (and the locks of the loop, CAN, ECU and motion threads,
# and the loop thread's syscalls but its period wait and trace-marker writes:
# tests/rt/noalloc_preload.c) from 1 s after READY=1 (init done, the threads running:
# counted from READY, not from start, so a slow init on a loaded machine stays outside) for 10 s.
# Further arguments go to rtvd run (a vehicle with joints: --vehicle, --constraints, a longer
# --period-us), and the environment can move the windows for a slower step: NOALLOC_DURATION
# (13 s of the loop), NOALLOC_ARM_S (1 s after READY), NOALLOC_SPAN_S (10), NOALLOC_INJECT
# (the two injected overruns, 5000:1500,9000:1500: cycle:us, inside the counted span), NOALLOC_EXPECT (an extended regex
# the run's output must match, e.g. the line naming the joints' form) and NOALLOC_RUN (a run
# file instead of the embedded default, e.g. config/runs/hmmwv_bench.yaml: the HMMWV with its
# own CAN mapping), NOALLOC_MOTION (moog_mda: the feed in Moog MDA, rtvd motion acting as the
# MBC and answering every command with a status message, which the motion thread decodes and
# watches as the heartbeat, instead of RTVH heartbeats), NOALLOC_MOTION_CASE (with moog_mda: the
# feed's paths off the normal run, inside the counted window, with what its counters, the
# MBC's and the monitor's metrics must then say):
#   reset_at_start  run file motion.reset: at_start; the MBC (rtvd motion --moog-fault 2:6@0,
#                   a fault latched before the host commands anything) starts ARM + 1 s after
#                   READY, so that the whole RESET exchange falls in the counted window (until
#                   then the feed sends neutral commands to no one; the heartbeat is watched
#                   with 5 s, not 1 s, so that the MBC's late start is no heartbeat loss): the
#                   feed sends RESET until the MBC reports no fault, then the engage handshake,
#                   and the run ends parked; RESET sent >= 1 and acknowledged, the MBC cleared
#                   exactly one fault and got every RESET sent, fault words [0, 64, 0] before
#                   the first ENGAGE, no fault event; rtvd_motion_platform_resets_total = the
#                   RESET sent;
#   engage_timeout  run file motion.engage_timeout_s: 3; the MBC ignores ENGAGE
#                   (--moog-never-engage): ENGAGE with neutral cues for exactly floor(3 s /
#                   1 ms) + 1 = 3001 sends from the first (slot times, not the wall clock),
#                   that is until about 3 s after READY, then the feed parks with "engage
#                   timeout": one fault event, no RESET, the MBC got every ENGAGE and never saw
#                   motion; rtvd_motion_engage_timeouts_total 1;
#   operator        run file motion.control: a socket in the test's directory; the MBC latches
#                   a fault 2 s after its first command (rtvd motion --moog-fault 2:6@2), the
#                   feed parks and latches it; then, inside the counted window, the operator
#                   (rtvd control, and a malformed datagram from python) sends: a malformed
#                   request (refused, counted), RESET --wait (RESET until the MBC reports no
#                   fault), ENGAGE --wait (the engage handshake, the fade-in), PARK --wait (the
#                   operator's park), ENGAGE (again): the motion thread reads, decides and
#                   replies with no allocation; the report counts 1 RESET acknowledged, 2
#                   re-engagements, 1 operator park, 1 malformed; the run ends parked;
#                   rtvd_motion_operator_commands_total{cmd="engage",result="accepted"} 2.
set -u
RTVD=$1
PRELOAD=$2
shift 2
DURATION=${NOALLOC_DURATION:-13}
ARM=${NOALLOC_ARM_S:-1}
SPAN=${NOALLOC_SPAN_S:-10}
INJECT=${NOALLOC_INJECT:-5000:1500,9000:1500}
EXPECT=${NOALLOC_EXPECT:-}
RUNFILE=${NOALLOC_RUN:-}
MOTION=${NOALLOC_MOTION:-rtvd}
CASE=${NOALLOC_MOTION_CASE:-}
if [ "$MOTION" = moog_mda ]; then
    RX_OPTS="--format moog_mda --moog-timeout 2"
else
    RX_OPTS="--heartbeat 50"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the motion feed's end state: parked after stop, or its safety reaction to the run's timing
# (below); a case's own instead
END_STATE='parked after stop|fault after (loop silent|heartbeat lost)'
RX_AFTER= # the MBC starts this many seconds after READY (empty: before the run)
RUN_MOTION=
MOTION_KEYS=
case "$CASE" in
'') ;;
reset_at_start)
    MOTION_KEYS="reset: at_start"
    RX_OPTS="$RX_OPTS --moog-fault 2:6@0"
    RX_AFTER=$((ARM + 1))
    RUN_MOTION="--motion-heartbeat 5" ;;
operator)
    MOTION_KEYS="control: $tmp/ctl.sock"
    RX_OPTS="$RX_OPTS --moog-fault 2:6@2" ;;
engage_timeout)
    MOTION_KEYS="engage_timeout_s: 3"
    RX_OPTS="$RX_OPTS --moog-never-engage"
    RUN_MOTION="--motion-heartbeat 5"
    END_STATE='fault after engage timeout' ;;
*)
    echo "FAIL: NOALLOC_MOTION_CASE '$CASE' unknown" >&2
    exit 1 ;;
esac
if [ -n "$CASE" ] && [ "$MOTION" != moog_mda ]; then
    echo "FAIL: NOALLOC_MOTION_CASE needs NOALLOC_MOTION=moog_mda" >&2
    exit 1
fi
if [ -n "$MOTION_KEYS" ]; then
    # the run file (the embedded default, or NOALLOC_RUN's) with the keys added to its motion
    # section, which must be its last; its relative paths to the embedded files
    src=${RUNFILE:-config/runs/default.yaml}
    awk '/^[a-z_]+:/ { last = $1 } END { exit last != "motion:" }' "$src" ||
        { echo "FAIL: $src: motion is not its last section" >&2; exit 1; }
    sed 's#: \.\./#: <embedded>/config/#' "$src" >"$tmp/run.yaml"
    echo "  $MOTION_KEYS" >>"$tmp/run.yaml"
    RUNFILE=$tmp/run.yaml
fi
"$RTVD" monitor 127.0.0.1:25873 --quiet --duration 40 --exit-when-done --http 127.0.0.1:25876 \
    2>"$tmp/mon.err" &
mpid=$!
# the monitor's metrics as they were last served before it ended (the counters of a case)
/usr/bin/python3 - "$tmp/metrics" <<'PY' &
import sys, time, urllib.request
last, end = None, time.monotonic() + 45
while time.monotonic() < end:
    try:
        last = urllib.request.urlopen("http://127.0.0.1:25876/metrics", timeout=2).read()
    except OSError:
        if last is not None:
            break
    time.sleep(0.5)
open(sys.argv[1], "wb").write(last or b"")
PY
hpid=$!
# the service manager's end of $NOTIFY_SOCKET: READY first, then pings, STOPPING last; on
# READY it creates $tmp/ready, from which the interposer counts (VD_NOALLOC_ARM_FILE)
/usr/bin/python3 - "$tmp/notify" "$tmp/ready" >"$tmp/notify.out" 2>&1 <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(40)
seq, t_ready, gaps, last = [], None, [], None
while True:
    try:
        m = s.recv(4096).decode()
    except socket.timeout:
        break
    now = time.monotonic()
    keys = [l.split("=", 1)[0] for l in m.split("\n") if l]
    seq.append(keys[0])
    if "READY" in keys:
        open(sys.argv[2], "w").close()
    if "WATCHDOG" in keys:
        if last is not None:
            gaps.append(now - last)
        last = now
    if "STOPPING" in keys:
        break
w = seq.count("WATCHDOG")
ok = seq and seq[0] == "READY" and seq[-1] == "STOPPING" and w >= 20 and seq.count("READY") == 1
print("notify: %s READY, %d WATCHDOG (longest gap %.2f s), %s STOPPING" %
      (seq.count("READY"), w, max(gaps) if gaps else -1, seq.count("STOPPING")))
print("notify: " + ("ok" if ok else "BAD order: " + " ".join(seq[:5]) + " ... " + " ".join(seq[-3:])))
PY
npid=$!
while [ ! -S "$tmp/notify" ] && kill -0 $npid 2>/dev/null; do sleep 0.05; done
if [ -z "$RX_AFTER" ]; then
    "$RTVD" motion 127.0.0.1:25874 --quiet --duration 40 --exit-when-silent 1 $RX_OPTS \
        --json "$tmp/motion.json" >"$tmp/motion.out" 2>&1 &
else
    (
        i=0
        while [ ! -e "$tmp/ready" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
        sleep "$RX_AFTER"
        exec "$RTVD" motion 127.0.0.1:25874 --quiet --duration 40 --exit-when-silent 1 $RX_OPTS \
            --json "$tmp/motion.json" >"$tmp/motion.out" 2>&1
    ) &
fi
opid=$!
oppid=
if [ "$CASE" = operator ]; then
    # the operator, after READY: waits for the latched fault, then commands (all inside the
    # counted window: the fault at ~2 s of the feed + the 1 s park at... see the header)
    (
        ctl() { "$RTVD" control "$tmp/ctl.sock" "$@" >>"$tmp/ops" 2>&1; }
        i=0
        while [ ! -e "$tmp/ready" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
        t_ready=$(date +%s.%N)
        i=0
        until "$RTVD" control "$tmp/ctl.sock" status 2>/dev/null | grep -q "state=fault "; do
            [ $i -lt 200 ] || exit 1
            sleep 0.05
            i=$((i + 1))
        done
        /usr/bin/python3 -c "
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(''); s.connect(sys.argv[1])
s.settimeout(3); s.send(b'\\x00PARK'); print('py', s.recv(512).decode().strip())" "$tmp/ctl.sock" >>"$tmp/ops" 2>&1
        ctl reset --wait --timeout 3 && ctl engage --wait --timeout 4 && ctl park --wait --timeout 4 &&
            ctl engage
        echo "operator: exit $? at $(awk "BEGIN { print $(date +%s.%N) - $t_ready }") s after READY" >>"$tmp/ops"
    ) &
    oppid=$!
fi
mkdir -p "$tmp/r"
: >"$tmp/r/marks" # --trace-marker opens an existing marker (tracefs, a FIFO, a file)
NOTIFY_SOCKET=$tmp/notify WATCHDOG_USEC=1000000 \
VD_NOALLOC_OUT=$tmp/count VD_NOALLOC_ARM_FILE=$tmp/ready VD_NOALLOC_ARM_S=$ARM VD_NOALLOC_SPAN_S=$SPAN LD_PRELOAD=$PRELOAD \
    "$RTVD" run $RUNFILE --duration "$DURATION" --policy skip --trace --report-dir "$tmp/r" \
    --udp 127.0.0.1:25873 --record "$tmp/r/rec" --record-format both \
    --trace-marker="$tmp/r/marks" --inject-delay "$INJECT" \
    --motion 127.0.0.1:25874 --motion-rate 1000 --motion-heartbeat 1 --motion-format "$MOTION" \
    $RUN_MOTION "$@" >"$tmp/out" 2>"$tmp/err"
rc=$?
wait $mpid
wait $npid
wait $opid
wait $hpid
[ -z "$oppid" ] || wait $oppid
cat "$tmp/out"
[ ! -e "$tmp/ops" ] || cat "$tmp/ops"
cat "$tmp/notify.out"
echo "interposer: $(cat "$tmp/count" 2>/dev/null || echo 'no result')"
fails=0
[ $rc -eq 0 ] || { echo "FAIL: rtvd run exit $rc" >&2; cat "$tmp/err" >&2; fails=1; }
# rt_sys: the loop thread's syscalls outside the allowlist (its period wait clock_nanosleep,
# rt_wait, and a trace-marker line's write, rt_marker: tests/rt/noalloc_preload.c), by name in
# rt_sys_seen; rt_wait > 0 shows the counter saw the loop thread at all
grep -Eq "^calls=0 minflt=0 rt_locks=0 rt_sys=0 span_s=$SPAN rt_sys_seen=- rt_wait=[1-9][0-9]* rt_marker=[0-9]+\$" "$tmp/count" 2>/dev/null ||
    { echo "FAIL: allocations, page faults, real-time threads locking or the loop thread making syscalls while running: $(cat "$tmp/count" 2>/dev/null)" >&2; fails=1; }
grep -Eq '^  CAN [^ ]+ .*: rx [1-9][0-9]* frames, [1-9][0-9]* used' "$tmp/out" &&
    grep -Eq '^  ECU: tx [1-9][0-9]* frames .* rx [1-9][0-9]* frames' "$tmp/out" ||
    { echo "FAIL: the CAN loop (CAN thread and in-process ECU) did not run" >&2; fails=1; }
# the motion feed ran and parked. How it parked is the feed's safety reaction to the timing it
# saw, not a property of the allocation-free loop: a loop wake-up later than the feed's
# stale_ms (50 ms) parks it with "loop silent" (a 52 ms wake-up did once under a load of 8-12
# on this 2-core machine), a platform silent for heartbeat_s (1 s) with "heartbeat lost".
# Those two are accepted and reported; any other reason (a NaN cue, a cue beyond its limit, a
# platform fault) fails.
grep -Eq "^  motion feed to 127.0.0.1:25874: [1-9][0-9]* datagrams sent \(0 send errors\), state ($END_STATE);.* [1-9][0-9]* heartbeats" "$tmp/out" ||
    { echo "FAIL: the motion feed did not run: $(grep 'motion feed' "$tmp/out")" >&2; fails=1; }
grep -Eq '^  motion feed .* state fault after (loop silent|heartbeat lost)' "$tmp/out" &&
    echo "note: the motion feed parked for the run's timing: $(grep -Eo 'state fault after [a-z ]+' "$tmp/out")"
[ "$MOTION" != moog_mda ] ||
    grep -Eq '^    platform \(Moog MBC status\): state [a-z]+, fault words 0x00000000 0x00000000 0x00000000 .*; [1-9][0-9]* status messages, 0 rejected' "$tmp/out" ||
    { echo "FAIL: the MBC's status messages were not read: $(grep 'platform' "$tmp/out")" >&2; fails=1; }
# the recording ring holds 16384 records (run file record.buffer), more than the run's 13 s at
# 1 kHz: none can be dropped however late the writer runs
grep -Eq '^  recording: ([1-9][0-9]*) records written of \1 taken \(0 dropped' "$tmp/out" ||
    { echo "FAIL: the recording thread did not write every record" >&2; fails=1; }
[ "$(grep -c 'rtvd: overrun cycle=' "$tmp/r/marks" 2>/dev/null)" -ge 2 ] ||
    { echo "FAIL: no trace markers of the injected overruns" >&2; fails=1; }
grep -q "1 targets (1 ended)" "$tmp/mon.err" ||
    { echo "FAIL: the monitor did not follow the run: $(cat "$tmp/mon.err")" >&2; fails=1; }
grep -q "^notify: ok" "$tmp/notify.out" ||
    { echo "FAIL: READY=1, the watchdog pings (>= 20 in 13 s) or STOPPING=1 missing" >&2; fails=1; }
grep -q "memory locked" "$tmp/out" ||
    echo "note: memory not locked here (no CAP_IPC_LOCK / RLIMIT_MEMLOCK): faults are possible"
# a case's counters: the report's, the MBC's (rtvd motion --json) and the monitor's metrics
[ -z "$CASE" ] || /usr/bin/python3 - "$CASE" "$tmp" "$((ARM + SPAN))" <<'PY' || fails=1
import json, re, sys
case, d = sys.argv[1], sys.argv[2]
rep = json.load(open(d + "/r/rtvd-report.json"))["motion"]
rx = json.load(open(d + "/motion.json"))
pl, mo = rep["platform"], rx["moog"]
text = open(d + "/metrics").read()
ok = True
def check(c, what):
    global ok
    if not c:
        print("FAIL: %s: %s" % (case, what), file=sys.stderr)
        ok = False
def metric(name):
    m = re.search(r"^%s(?:\{[^}]*)?\} ([0-9.e+]+)$" % name, text, re.M)
    return float(m.group(1)) if m else None
# the faults the run's timing may cause after the case's own path (see below)
timing = ("stop", "loop silent", "heartbeat lost")
if case == "operator":
    op = rep["operator"]
    eng = metric(r'rtvd_motion_operator_commands_total\{[^}]*cmd="engage",result="accepted"')
    print("  operator: %s; metrics: %s engage accepted" % (op, eng))
    check(op["resets_acked"] == 1 and op["reengagements"] == 2 and op["parks"] == 1
          and op["refused"]["malformed"] == 1 and op["commands"]["engage"]["accepted"] == 2
          and op["reply_errors"] == 0, "operator counts: %s" % op)
    check(rep["faults"]["platform fault"] == 1 and mo["resets_cleared"] == 1
          and mo["motion_in_standby"] == 0, "fault %s, the MBC %s" % (rep["faults"], mo))
    check(eng == 2, "metrics: engage accepted %s" % eng)
    # every command inside the counted window (ARM .. ARM + SPAN s after READY)
    import re as _re
    m = _re.search(r"operator: exit 0 at ([0-9.]+) s after READY", open(d + "/ops").read())
    check(m and float(m.group(1)) < float(sys.argv[3]), "the last command's time: %s" % (m and m.group(1)))
elif case == "reset_at_start":
    resets = metric("rtvd_motion_platform_resets_total")
    print("  reset at start: %d RESET sent (acknowledged %s), fault words before engage %s, "
          "the MBC cleared %d and got %d RESET; %d ENGAGE; metrics: %s resets" %
          (pl["reset_sends"], pl["reset_acked"], pl["fault_words_before_engage"],
           mo["resets_cleared"], mo["reset"], pl["engage_wait_sends"], resets))
    check(pl["reset"] == "at_start" and pl["reset_sends"] >= 1 and pl["reset_acked"]
          and not pl["reset_failed"] and pl["fault_words_before_engage"] == [0, 64, 0]
          and pl["fault_state_before_engage"] == "fault2" and not pl["fault"]
          and pl["engage_wait_sends"] >= 1 and not pl["engage_timed_out"], "feed: %s" % pl)
    check(mo["resets_cleared"] == 1 and mo["motion_in_standby"] == 0
          and (mo["reset"] == pl["reset_sends"] if rx["gaps"] == 0
               else 1 <= mo["reset"] <= pl["reset_sends"]),
          "the MBC: %s (gaps %d)" % (mo, rx["gaps"]))
    check(all(v == 0 for k, v in rep["faults"].items() if k not in timing),
          "fault events: %s" % rep["faults"])
    check(resets == pl["reset_sends"], "metrics: resets %s" % resets)
else:
    eto = metric("rtvd_motion_engage_timeouts_total")
    print("  engage timeout: %s after %s, %d ENGAGE sent, the MBC got %d ENGAGE, %d DISENGAGE, "
          "%d RESET; metrics: %s engage timeouts" %
          (rep["state"], rep["reason"], pl["engage_wait_sends"], mo["engage"], mo["disengage"],
           mo["reset"], eto))
    check(rep["state"] == "fault" and rep["reason"] == "engage timeout"
          and rep["faults"]["engage timeout"] == 1 and sum(rep["faults"].values()) == 1,
          "fault events: %s" % rep["faults"])
    check(pl["engage_timed_out"] and pl["engage_timeout_s"] == 3
          and pl["engage_wait_tries"] == 3001 and pl["reset_sends"] == 0 and not pl["fault"]
          and (pl["engage_wait_sends"] == 3001 or 0 < rep["send_errors"]),
          "feed: %s" % pl)
    check((mo["engage"] == 3001 if rx["gaps"] == 0 else mo["engage"] <= 3001)
          and mo["disengage"] >= 1 and mo["reset"] == 0 and mo["motion_in_standby"] == 0
          and mo["never_engage"], "the MBC: %s (gaps %d)" % (mo, rx["gaps"]))
    check(eto == 1, "metrics: engage timeouts %s" % eto)
sys.exit(0 if ok else 1)
PY
[ -z "$EXPECT" ] || grep -Eq "$EXPECT" "$tmp/out" ||
    { echo "FAIL: the run did not print '$EXPECT'" >&2; fails=1; }
[ $fails -eq 0 ] && echo "noalloc_rtvd_run: passed"
exit $fails
