#!/bin/sh
# tests/app/can_bus_test.sh RTVD CAN_LOGCHECK - `rtvd run` and `rtvd ecu` as two processes on
# one udp (cannelloni) bus, with a recording relay in between (what candump is on vcan0, for a
# kernel without CAN; the PREEMPT_RT guest does the same on vcan0 with candump,
# deploy/rtvm/guest-test.sh): every datagram is forwarded and its frames logged in candump's
# -l format. Then can_logcheck decodes the log with the DBC and checks rtvd's frames (E2E,
# counts per message) and that the values of the last frame of each message on the bus (the
# four wheel speeds, yaw rate, speed, accelerations, steering) are the model outputs rtvd's
# report says the frame carried, within the DBC resolution. Also: the ECU drove (the inputs
# came from the bus, the car moved), both ends' counters agree with the log. Timing is not
# judged. Ports 24100/24101 (rtvd) and 24110/24111 (ECU).
set -u
RTVD=$(readlink -f "$1")
CHECK=$(readlink -f "$2")
PY=/usr/bin/python3
tmp=$(mktemp -d)
trap 'kill $rpid $epid 2>/dev/null; rm -rf "$tmp"' EXIT
fails=0
bad() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# the relay: rtvd (binds 24100, sends to 24101) <-> relay <-> ECU (binds 24111, sends to 24110)
# (argv 3: once the script has made it (rtvd run has ended), the relay writes argv 4 after
# 0.5 s without a datagram from rtvd: every frame rtvd sent is then logged and forwarded, so
# the ECU, stopped only after that, has had the chance to receive all of them)
$PY - "$tmp/bus.log" "$tmp/relay.ready" "$tmp/run.done" "$tmp/relay.idle" <<'PY' &
import os, select, socket, struct, sys, time
log = open(sys.argv[1], "w")
a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for s in (a, b):  # 16 MB, as rt_cli_test's listener: a relay held off must not drop
    try:
        s.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)  # SO_RCVBUFFORCE (root)
    except OSError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 20)
a.bind(("127.0.0.1", 24101)); b.bind(("127.0.0.1", 24110))
open(sys.argv[2], "w").write("ready\n")
def frames(d):
    # cannelloni v2: version, op, seq, count (be16), then can_id (be32), len, [flags], data
    if len(d) < 5 or d[0] != 2 or d[1] != 0:
        return
    n, off = struct.unpack(">H", d[3:5])[0], 5
    for _ in range(n):
        cid, ln = struct.unpack(">IB", d[off:off + 5]); off += 5
        fd = ln & 0x80; ln &= 0x7f
        if fd: off += 1
        data = d[off:off + ln]; off += ln
        ext = cid & 0x80000000
        ids = ("%08X" if ext else "%03X") % (cid & (0x1FFFFFFF if ext else 0x7FF))
        log.write("(%.6f) udp0 %s#%s\n" % (time.time(), ids, data.hex().upper()))
idle = last_a = time.time()
told = False
while time.time() - idle < 10:
    r, _, _ = select.select([a, b], [], [], 0.1)
    for s in r:
        d = s.recv(65536)
        idle = time.time()
        frames(d)
        if s is a:
            last_a = idle
            b.sendto(d, ("127.0.0.1", 24111))
        else: a.sendto(d, ("127.0.0.1", 24100))
    if not told and os.path.exists(sys.argv[3]) and time.time() - last_a > 0.5:
        log.flush()
        open(sys.argv[4], "w").write("idle\n")
        told = True
log.close()
PY
rpid=$!
i=0
while [ ! -s "$tmp/relay.ready" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done # 30 s

# the ECU first (its own process, the default run's mapping and driver), then rtvd
# (the ECU until its signal: a fixed duration could end it before a slow start-up of rtvd
# has sent everything)
"$RTVD" ecu --port 24110 --duration 0 --quiet --report "$tmp/ecu.json" >"$tmp/ecu.out" 2>&1 &
epid=$!
(cd "$tmp" && "$RTVD" run --no-ecu --can-port 24100 --duration 6 --quiet --udp off \
    --report-dir "$tmp/r" --prefix bus >"$tmp/run.out" 2>&1)
rc=$?
[ $rc -eq 0 ] || { bad "rtvd run exit $rc"; cat "$tmp/run.out" >&2; }
touch "$tmp/run.done"
i=0
while [ ! -s "$tmp/relay.idle" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done # 30 s
[ -s "$tmp/relay.idle" ] || bad "the relay never went idle after the run"
kill -TERM $epid 2>/dev/null
wait $epid
erc=$?
wait $rpid
grep -A30 summary "$tmp/run.out" | grep -E "CAN|inputs|bus|ECU"
cat "$tmp/ecu.out"
[ $erc -eq 0 ] && grep -q "^rtvd ecu: stopped after" "$tmp/ecu.out" || bad "rtvd ecu exit $erc"

# decode the recorded bus with the DBC, compare with rtvd's report
"$CHECK" "<embedded>/config/can/sedan.yaml" "$tmp/bus.log" "$tmp/r/bus-report.json"
[ $? -eq 0 ] || bad "can_logcheck"

$PY - "$tmp/r/bus-report.json" "$tmp/ecu.json" "$tmp/bus.log" <<'PY' || bad "report checks"
import json, sys
j, e = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
log = open(sys.argv[3]).read().splitlines()
t = j["can"]["target"]
assert j["can"]["ecu"] is None
rx, b = t["map"]["rx"], t["buses"][0]["stats"]
ids = [l.split()[2].split("#")[0] for l in log]
ecu_ids = {"110", "111", "120"}
n_ecu = sum(1 for i in ids if i in ecu_ids)
# every ECU frame on the bus reached rtvd, and rtvd's on the bus reached the ECU
assert b["rx_frames"] <= n_ecu and rx["frames"] == b["rx_frames"] > 0, (b, n_ecu)
assert e["buses"][0]["stats"]["rx_frames"] == len(ids) - n_ecu, (e["buses"][0]["stats"], len(ids))
assert rx["e2e_rejected"] == rx["bad_len"] == rx["out_of_range"] == rx["nan"] == 0, rx
# the inputs came from the ECU: drive torque applied, the car moved
ins = {i["name"]: i for i in t["inputs"]}
assert len(ins) == 10 and all(i["status"] in ("ok", "timeout") for i in ins.values()), ins
v = j["final_outputs"]["values"]
assert v["chassis.x"] > 1.0 and v["imu.lvx"] > 1.0, v
# the ECU dead-reckoned the car's way from the bus (its speed: 0 once rtvd stopped sending)
assert e["controller"]["x"] > 1.0 and e["counters"]["tx_sent"] > 0, e["controller"]
print("can_bus_test: bus log %d frames (%d from the ECU); rtvd rx %d, ECU rx %d; car at x %.1f m, %.2f m/s"
      % (len(ids), n_ecu, rx["frames"], e["buses"][0]["stats"]["rx_frames"], v["chassis.x"], v["imu.lvx"]))
PY
[ $fails -eq 0 ] && echo "can_bus_test: passed"
exit $fails
