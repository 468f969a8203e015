#!/bin/sh
# tests/app/motion_test.sh RTVD - the motion feed end to end: `rtvd run` (the embedded
# default: the sedan with its CAN loop) sends to `rtvd motion` over real sockets:
# - the rtvd format at 500 Hz: every datagram the report says was sent is received, none
#   lost or reordered, no cue beyond its limit, the specific force's jerk below 50 m/s^3, the
#   feed parked after the stop with the fade trajectory in the report ending neutral; the
#   status line and the status datagrams carry the motion counters; rtvd plot draws the CSV;
# - moog_mda at 250 Hz over IPv6 (where the namespace has ::1) and outsim at 100 Hz: decoded
#   and counted by format;
# - the fade paths of a run (the quarter car): the overrun policy stopping the loop (reason overrun stop,
#   state fault), freezing it (freeze), a heartbeat that is never sent (heartbeat lost)
#   and one that is (no fault);
# - sequence gaps: an independent encoder of the layout of io/MOTION_DATAGRAMS.md (python struct + zlib's
#   crc32) sends 100 datagrams with 7 left out: rtvd motion counts 7 gaps, and its CSV holds
#   the values sent;
# - multicast (239.255.0.42) in a network namespace of its own;
# - located errors of the motion: section.
# Ports: motion 24950.., status 24960, CAN 25930/25931 (not the defaults 4950 and 20000, which
# the other tests' default runs use).
set -u
RTVD=$1
PY=/usr/bin/python3
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
fails=0
bad() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
. "$(dirname "$0")/ready.sh"

# one run against one receiver; $1 name, $2 receiver address, $3.. rtvd run options
pair() {
    name=$1 addr=$2
    shift 2
    "$RTVD" motion "$addr" --duration 30 --exit-when-silent 1 --csv "$tmp/$name.csv" \
        --json "$tmp/$name.json" $RECV_OPTS >"$tmp/$name.motion" 2>&1 &
    rp=$!
    ready "$tmp/$name.motion" "listening on"
    "$RTVD" run $RUN --duration 2.5 --udp off --report-dir "$tmp/$name" --motion "$addr" "$@" \
        >"$tmp/$name.out" 2>&1
    echo $? >"$tmp/$name.rc"
    wait $rp
}

# 1. the default format and rate
RECV_OPTS=""
RUN=""
pair rtvd 127.0.0.1:24950 --udp 127.0.0.1:24960 --can-port 25930 &
runpid=$!
$PY - "$tmp/dgrams" <<'PY' &
import socket, sys, json
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 24960)); s.settimeout(8)
n = m = 0
try:
    while True:
        d = json.loads(s.recv(65536))
        n += 1
        if "motion" in d and d["motion"]["sent"] >= 0 and d["motion"]["state"]:
            m += 1
except socket.timeout:
    pass
open(sys.argv[1], "w").write("%d %d\n" % (n, m))
PY
dgpid=$!
wait $runpid
wait $dgpid
[ "$(cat "$tmp/rtvd.rc")" = 0 ] || bad "rtvd run exit $(cat "$tmp/rtvd.rc"): $(tail -3 "$tmp/rtvd.out")"
grep -q "MOT [a-z]* tx:[0-9]* flt:0" "$tmp/rtvd.out" || bad "status line without the motion counters"
grep -q "^  motion feed to 127.0.0.1:24950: [0-9]* datagrams sent (0 send errors), state parked after stop" \
    "$tmp/rtvd.out" || bad "summary: $(grep 'motion feed' "$tmp/rtvd.out")"
read n m <"$tmp/dgrams"
[ "$n" -gt 5 ] && [ "$m" = "$n" ] || bad "status datagrams with a motion object: $m of $n"
$PY - "$tmp/rtvd/rtvd-report.json" "$tmp/rtvd.json" <<'PY' || bad "rtvd: report against receiver"
import json, sys
full = json.load(open(sys.argv[1]))
rep = full["motion"]
rx = json.load(open(sys.argv[2]))
ok = True
def check(c, what):
    global ok
    if not c:
        print("FAIL:", what, file=sys.stderr); ok = False
check(rep["state"] == "parked" and rep["reason"] == "stop", "report state %s %s" % (rep["state"], rep["reason"]))
check(rep["format"] == "rtvd" and rep["rate_hz"] == 500, "format, rate")
# 2.5 s run + 2 s park at 500 Hz: ~2250 datagrams; every one received, in order, none lost
check(rep["sent"] > 2000 and rx["datagrams"] == rep["sent"] and rx["rtvd"] == rep["sent"],
      "sent %d, received %d" % (rep["sent"], rx["datagrams"]))
check(rx["gaps"] == 0 and rx["reordered"] == 0 and rx["bad"] == 0, "gaps/reordered/bad: %s" % rx)
check(rx["beyond_limits"] == 0, "cues beyond limits: %d" % rx["beyond_limits"])
# the fades: 15/(8 T) |f - neutral| with T = 2 s and |f| < 10 m/s^2: < 10 m/s^3; the
# model's own jerk in this scenario (driving off, no bumps) is far below 50
check(rx["jerk_max"] < 50 and rx["jerky"] == 0, "jerk max %g" % rx["jerk_max"])
check(rx["state"] == "parked" and rx["reason"] == "stop", "receiver's last state")
fade = rep["fade"]
check(len(fade) > 10 and fade[0][1] > 0.99 and fade[-1][1] == 0.0 and abs(fade[-1][3] - 9.81) < 1e-4
      and fade[-1][2] == 0.0, "fade trajectory: %s .. %s" % (fade[:1], fade[-1:]))
check(all(fade[i + 1][1] <= fade[i][1] + 1e-7 for i in range(len(fade) - 1)), "fade monotone")
# every cycle of the loop taken by the motion thread or counted as missed
check(rep["samples"] + rep["missed_cycles"] == full["counters"]["cycles"],
      "cycles taken %d + missed %d of %d" % (rep["samples"], rep["missed_cycles"], full["counters"]["cycles"]))
sys.exit(0 if ok else 1)
PY
"$RTVD" plot "$tmp/rtvd.csv" --signals fx,fz,pitch,fade --out "$tmp/plot" --no-png >"$tmp/plot.out" 2>&1 &&
    grep -q "<svg" "$tmp"/plot*.svg || bad "rtvd plot of the receiver's CSV: $(tail -2 "$tmp/plot.out")"

# 2. the vendor formats: moog_mda at 250 Hz (IPv6 where ::1 exists), outsim at 100 Hz
addr6="[::1]:24951"
ip -6 addr show dev lo 2>/dev/null | grep -q "::1" || addr6="127.0.0.1:24951"
pair moog "$addr6" --motion-format moog_mda --motion-rate 250 --can-port 25930
pair outsim 127.0.0.1:24952 --motion-format outsim --motion-rate 100 --can-port 25930
$PY - "$tmp" <<'PY' || bad "vendor formats"
import json, sys
ok = True
for name, key, rate in (("moog", "moog_mda", 250), ("outsim", "outsim", 100)):
    rep = json.load(open("%s/%s/rtvd-report.json" % (sys.argv[1], name)))["motion"]
    rx = json.load(open("%s/%s.json" % (sys.argv[1], name)))
    if not (rep["format"] == key and rep["rate_hz"] == rate and rx[key] == rep["sent"] > 0
            and rx["gaps"] == 0 and rx["beyond_limits"] == 0):
        print("FAIL: %s: report %s, receiver %s" % (name, rep, rx), file=sys.stderr); ok = False
sys.exit(0 if ok else 1)
PY

# 3. the fade paths of a run: the quarter car (its chassis' CoM the MRP), quicker to start
RECV_OPTS=""
RUN="<embedded>/config/runs/quarter_car.yaml"
pair ovr 127.0.0.1:24953 --policy stop --inject-delay 1500:3000
pair frz 127.0.0.1:24954 --policy allow:0:total:freeze --inject-delay 1500:3000
pair hbl 127.0.0.1:24955 --motion-heartbeat 0.2
# heartbeats every 50 ms against a 1 s timeout: 20 intervals of margin, so only a receiver
# really gone faults (at 0.2 s a loaded CI machine delayed the non-RT receiver 468 ms once)
RECV_OPTS="--heartbeat 50"
pair hbo 127.0.0.1:24956 --motion-heartbeat 1.0
$PY - "$tmp" <<'PY' || bad "fade paths"
import json, sys
ok = True
for name, state, reason in (("ovr", "fault", "overrun stop"), ("frz", "fault", "freeze"),
                            ("hbl", "fault", "heartbeat lost"), ("hbo", "parked", "stop")):
    rep = json.load(open("%s/%s/rtvd-report.json" % (sys.argv[1], name)))["motion"]
    rx = json.load(open("%s/%s.json" % (sys.argv[1], name)))
    fade = rep["fade"]
    good = (rep["state"] == state and rep["reason"] == reason and rx["state"] == state
            and rx["reason"] == reason and rx["gaps"] == 0 and fade and fade[-1][1] == 0.0
            and fade[-1][2] == 0.0 and abs(fade[-1][3] - 9.81) < 1e-4)
    # the fade's jerk, from the report's trajectory: a park from the engaged state holds the
    # cue c and sends n + s (c - n), |d/dt| <= 15/(8 T) |c - n| (T = park_s = 2 s); the points
    # are floats printed to 9 digits: 1e-7 of |f| < 10 m/s^2 over >= 2 ms: 1e-3 m/s^3
    if fade[0][1] > 0.999:
        c = fade[0][2] / fade[0][1]
        j = max(abs(fade[i + 1][2] - fade[i][2]) / (fade[i + 1][0] - fade[i][0])
                for i in range(len(fade) - 1))
        bound = 15.0 / 16.0 * abs(c) + 1e-3
        print("    fade jerk %.4f m/s^3, bound %.4f" % (j, bound))
        good = good and j <= bound
    if name == "hbo":
        # rtvd motion answers from the feed's destination, its counter +1 each: every
        # heartbeat taken, none from a wrong source or stale
        good = (good and rep["heartbeats"] > 50 and rep["hb_stale"] == 0
                and rep["wrong_source"] == 0 and rep["foreign"] == 0)
    print("  %s: %s after %s, %d datagrams, jerk max %.2f m/s^3 (the model's own), fade %d points" %
          (name, rep["state"], rep["reason"], rep["sent"], rx["jerk_max"], len(fade)))
    if not good:
        print("FAIL: %s: report %s/%s receiver %s" % (name, rep["state"], rep["reason"], rx), file=sys.stderr)
        ok = False
sys.exit(0 if ok else 1)
PY
[ "$(cat "$tmp/ovr.rc")" = 3 ] || bad "overrun stop: exit $(cat "$tmp/ovr.rc")"

# 4. gaps, from an independent encoder of the io/MOTION_DATAGRAMS.md layout
"$RTVD" motion 127.0.0.1:24957 --duration 3 --csv "$tmp/gap.csv" --json "$tmp/gap.json" \
    >"$tmp/gap.motion" 2>&1 &
rp=$!
ready "$tmp/gap.motion" "listening on"
$PY - <<'PY' || bad "sender"
import socket, struct, zlib, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
skip = {10, 11, 12, 40, 41, 77, 90}
for seq in range(100):
    if seq in skip:
        continue
    cues = [0.0] * 26
    cues[0] = 0.01 * seq          # f_x
    cues[2] = 9.81
    cues[11] = 0.5                # yaw
    body = struct.pack("<4sHHIIdqBBHf26d", b"RTVM", 1, 1, seq, 0x11, seq * 0.002, 0, 2, 0, 500, 1.0, *cues)
    s.sendto(body + struct.pack("<I", zlib.crc32(body)), ("127.0.0.1", 24957))
    time.sleep(0.002)
# then seq 50 again (late: counted as reordered, not used) and seq 100 with state 9, its CRC
# right (no such state: malformed)
for seq, state in ((50, 2), (100, 9)):
    cues = [0.0] * 26
    cues[0] = 0.01 * seq
    cues[2] = 9.81
    cues[11] = 0.5
    body = struct.pack("<4sHHIIdqBBHf26d", b"RTVM", 1, 1, seq, 0x11, seq * 0.002, 0, state, 0, 500, 1.0, *cues)
    s.sendto(body + struct.pack("<I", zlib.crc32(body)), ("127.0.0.1", 24957))
    time.sleep(0.002)
PY
wait $rp
$PY - "$tmp/gap.json" "$tmp/gap.csv" <<'PY' || bad "gaps counted"
import json, sys, csv
rx = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
ok = rx["gaps"] == 7 and rx["datagrams"] == 94 and rx["reordered"] == 1 and rx["bad"] == 1
ok = ok and all(abs(float(r["fx"]) - 0.01 * int(r["seq"])) < 1e-12 and float(r["yaw"]) == 0.5 for r in rows)
if not ok:
    print("FAIL: gaps %s" % rx, file=sys.stderr)
sys.exit(0 if ok else 1)
PY

# 4b. OutSim has no sequence and no rate, and its time field (the model's) advances unevenly
# when the loop skips cycles: no gaps counted from it, a time going back is reordered. Every
# 10 ms, 100, 110 and 300 ms not sent, then 250 ms again (late)
"$RTVD" motion 127.0.0.1:24958 --format outsim --duration 3 --json "$tmp/os.json" \
    >"$tmp/os.motion" 2>&1 &
rp=$!
ready "$tmp/os.motion" "listening on"
$PY - <<'PY' || bad "outsim sender"
import socket, struct, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for t in [t for t in range(0, 500, 10) if t not in (100, 110, 300)] + [250]:
    s.sendto(struct.pack("<I", t) + bytes(60), ("127.0.0.1", 24958))
    time.sleep(0.002)
PY
wait $rp
$PY - "$tmp/os.json" <<'PY' || bad "outsim reordering counted"
import json, sys
rx = json.load(open(sys.argv[1]))
ok = rx["outsim"] == 48 and rx["gaps"] == 0 and rx["reordered"] == 1 and rx["bad"] == 0
if not ok:
    print("FAIL: outsim %s" % rx, file=sys.stderr)
sys.exit(0 if ok else 1)
PY

# 5. multicast: in a network namespace of its own (lo up, a multicast route on it), so that
# the machine's routes are not touched; skipped where namespaces cannot be made
if command -v unshare >/dev/null && unshare -n true 2>/dev/null; then
    unshare -n sh -c '
        ip link set lo up && ip route add 224.0.0.0/4 dev lo || exit 77
        "$0" motion 239.255.0.42:24958 --duration 20 --exit-when-silent 1 \
            --json "$1/mc.json" >"$1/mc.motion" 2>&1 &
        i=0 # until it is bound (as ready.sh, which this shell does not have)
        while [ $i -lt 300 ] && ! grep -q "listening on" "$1/mc.motion" 2>/dev/null; do
            sleep 0.1
            i=$((i + 1))
        done
        "$0" run "<embedded>/config/runs/quarter_car.yaml" --duration 1 --udp off --quiet \
            --motion 239.255.0.42:24958 --report-dir "$1/mc" >"$1/mc.out" 2>&1
        wait' "$RTVD" "$tmp"
    rc=$?
    if [ $rc = 77 ]; then
        echo "motion_test: multicast skipped (no route could be added in the namespace)"
    else
        $PY - "$tmp" <<'PY' || bad "multicast"
import json, sys
rep = json.load(open(sys.argv[1] + "/mc/rtvd-report.json"))["motion"]
rx = json.load(open(sys.argv[1] + "/mc.json"))
ok = rep["sent"] > 500 and rep["send_errors"] == 0 and rx["datagrams"] == rep["sent"] and rx["gaps"] == 0
print("  multicast 239.255.0.42: %d sent, %d received" % (rep["sent"], rx["datagrams"]))
if not ok:
    print("FAIL: multicast: report %s receiver %s" % (rep, rx), file=sys.stderr)
sys.exit(0 if ok else 1)
PY
    fi
else
    echo "motion_test: multicast skipped (no network namespace: unshare -n refused)"
fi

# 6. located errors
printf 'motion:\n  rate_hz: 300\n' >"$tmp/bad1.yaml"
"$RTVD" run "$tmp/bad1.yaml" >"$tmp/bad1.out" 2>&1
grep -q "bad1.yaml:2:12: error: motion.rate_hz: 300: one of 1000, 500, 250, 100" "$tmp/bad1.out" ||
    bad "rate error: $(head -2 "$tmp/bad1.out")"
printf 'motion:\n  dest: 127.0.0.1:4950\n  mrp: {marker: nosuch}\n' >"$tmp/bad2.yaml"
"$RTVD" run "$tmp/bad2.yaml" >"$tmp/bad2.out" 2>&1
grep -q "bad2.yaml:3:17: error: motion.mrp.marker: 'nosuch' is not a marker" "$tmp/bad2.out" ||
    bad "mrp error: $(head -2 "$tmp/bad2.out")"
printf 'motion:\n  format: outsim\n  output: pose\n' >"$tmp/bad3.yaml"
"$RTVD" run "$tmp/bad3.yaml" >"$tmp/bad3.out" 2>&1
grep -q "bad3.yaml:3:11: error: motion.output: pose needs format rtvd" "$tmp/bad3.out" ||
    bad "pose error: $(head -2 "$tmp/bad3.out")"

[ $fails = 0 ] && echo "motion_test: all passed" || echo "motion_test: $fails failed"
exit $fails
