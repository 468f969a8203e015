#!/bin/bash
# deploy/rtvm/rtvm-test.sh RTVD [ARTEFACT_DIR] - the PREEMPT_RT guest test (ctest `rtvm`):
# boot Debian's RT kernel in QEMU with cpu 1 isolated, run cyclictest and `rtvd run` pinned
# there with SCHED_FIFO (guest-test.sh), check in the guest that the loop thread got
# SCHED_FIFO 80 on cpu 1, and on the host that both reports are well-formed; then the HIL
# loop over SocketCAN (rtvd run + rtvd ecu on vcan0, candump, cangen, the log decoded with the
# DBC against rtvd's report in the guest; the reports checked here). The histograms, the
# reports, the bus log and the console log are kept in ARTEFACT_DIR (default
# build/rtvm-artifacts).
# Latency values under emulation are meaningless and are not judged.
# Exit: 0 pass; 1 fail; 77 (ctest's skip) only when this machine cannot run the guest at all:
# QEMU or the kernel package cannot be installed/fetched, or the guest does not boot in time.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
RTVD=$(readlink -f "${1:?usage: rtvm-test.sh RTVD [ARTEFACT_DIR]}")
ART=${2:-$(pwd)/build/rtvm-artifacts}
export WORK=${WORK:-/var/tmp/rtvd-rtvm}
export TIMEOUT=${TIMEOUT:-600}
LOG=$WORK/guest-console.log
SKIP=77
skip() {
    echo "rtvm: SKIPPED: $*"
    exit $SKIP
}
t0=$SECONDS
mkdir -p "$WORK" || skip "cannot create $WORK"

# 1. QEMU, busybox, rt-tests and the RT kernel (.deb unpacked, not installed)
if ! "$HERE/setup.sh" >"$WORK/setup.log" 2>&1; then
    tail -n 5 "$WORK/setup.log"
    skip "cannot install QEMU/busybox/rt-tests or fetch linux-image-rt-amd64 (no network or no apt): see $WORK/setup.log"
fi
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is not available"
echo "rtvm: setup done after $((SECONDS - t0)) s: $(tail -n 4 "$WORK/setup.log" | tr '\n' ' ')"

# 2. initramfs with rtvd and its libraries
"$HERE/build-initramfs.sh" "$RTVD" || {
    echo "rtvm: FAIL: building the initramfs"
    exit 1
}

# 3. boot and run guest-test.sh
LOG=$LOG "$HERE/run-vm.sh"
qrc=$?
echo "rtvm: qemu exited $qrc after $((SECONDS - t0)) s"
grep -a '^RTVM:' "$LOG" 2>/dev/null
if ! grep -aq '^RTVM: init up' "$LOG" 2>/dev/null; then
    [ "$qrc" = 124 ] && skip "the guest did not reach init within ${TIMEOUT}s (QEMU too slow on this machine)"
    [ -s "$LOG" ] || skip "QEMU could not start here (exit $qrc, empty console)"
    echo "rtvm: FAIL: the guest did not reach init (exit $qrc); console: $LOG"
    tail -n 30 "$LOG"
    exit 1
fi
[ "$qrc" = 124 ] && echo "rtvm: FAIL: timeout after init: a test step hung"

# 4. artefacts: the console, and every file the guest printed between markers
rm -rf "$ART"
mkdir -p "$ART"
cp "$LOG" "$ART/guest-console.log"
/usr/bin/python3 "$HERE/guest-files.py" "$LOG" "$ART"
ls -l "$ART"

# 5. host-side checks: both reports well-formed, the loop thread's scheduling as obtained
/usr/bin/python3 - "$ART" <<'PY'
import json, os, re, sys
art = sys.argv[1]
def hist(path):
    lines = open(path).read().splitlines()
    assert "# Histogram" in lines, path
    rows = [l.split() for l in lines if re.fullmatch(r"\d{6} \d{6,}", l)]
    assert rows, path
    total = int(next(l for l in lines if l.startswith("# Total:")).split()[2])
    assert total == sum(int(r[1]) for r in rows), path
    mx = int(next(l for l in lines if l.startswith("# Max Latencies:")).split()[3])
    ovf = int(next(l for l in lines if l.startswith("# Histogram Overflows:")).split()[3])
    return len(rows), total, ovf, mx
b, t, o, mx = hist(os.path.join(art, "cyclictest.hist"))
print("rtvm: cyclictest.hist: %d buckets, %d in range, %d overflows, max %d us (emulated)" % (b, t, o, mx))
j = json.load(open(os.path.join(art, "rtvd-report.json")))
lt, c = j["loop_thread"], j["counters"]
assert j["preempt_rt"] is True and j["sys_kernel_realtime"] == "1"
assert lt["policy"] == "SCHED_FIFO" and lt["priority"] == 80 and lt["cpu"] == 1 and lt["affinity"] == "1", lt
assert j["setup"]["memory_locked"] is True, j["setup"]
assert c["cycles"] + c["skipped_releases"] == c["elapsed_periods"] == 4000, c
for q in ["latency", "execution", "turnaround"]:
    b, t, o, mx = hist(os.path.join(art, "rtvd-%s.hist" % q))
    assert t == j[q]["total"] and o == j[q]["overflows"] and t + o == c["cycles"], q
print("rtvm: rtvd report: loop thread %s %d on cpu %d (affinity %s), %d cycles + %d skipped = %d "
      "periods, latency max %.0f us (emulated), reasons for best effort: %s" %
      (lt["policy"], lt["priority"], lt["cpu"], lt["affinity"], c["cycles"],
       c["skipped_releases"], c["elapsed_periods"], j["latency"]["max_us"],
       "; ".join(j["best_effort_reasons"]) or "none"))
# the motion feed (quarter car at 5 ms): parked after the stop, every datagram received
mo = json.load(open(os.path.join(art, "motion-report.json")))["motion"]
mr = json.load(open(os.path.join(art, "motion.json")))
assert mo["state"] == "parked" and mo["reason"] == "stop" and mo["sent"] > 500, mo
assert mr["datagrams"] == mo["sent"] and mr["gaps"] == 0 and mr["reordered"] == 0, mr
print("rtvm: motion feed: %d datagrams at %d Hz, all received; send lateness p50 %s p99 %s max "
      "%s us (emulated)" % (mo["sent"], mo["rate_hz"], mo["send_late_us"]["p50"],
                            mo["send_late_us"]["p99"], mo["send_late_us"]["max"]))
# the default run's CAN loop: udp on loopback with the in-process ECU
t = j["can"]["target"]
assert t["buses"][0]["kind"] == "udp" and j["can"]["ecu"] is not None and t["map"]["rx"]["used"] > 0, t["map"]["rx"]
# the HIL loop over SocketCAN: rtvd run (vcan_bench.yaml) and rtvd ecu on vcan0
h = json.load(open(os.path.join(art, "hil-report.json")))
ht, hc = h["can"]["target"], h["counters"]
hb = ht["buses"][0]
assert hb["kind"] == "socketcan" and h["can"]["ecu"] is None, hb
assert ht["map"]["rx"]["used"] > 0 and hb["stats"]["tx_frames"] > 0 and ht["map"]["rx"]["unknown"] > 0, ht["map"]["rx"]
assert hc["cycles"] + hc["skipped_releases"] == hc["elapsed_periods"] == 12000, hc
assert h["loop_thread"]["policy"] == "SCHED_FIFO" and h["loop_thread"]["cpu"] == 1, h["loop_thread"]
e = json.load(open(os.path.join(art, "hil-ecu.json")))
assert e["map"]["rx"]["used"] > 0 and e["buses"][0]["kind"] == "socketcan", e["map"]["rx"]
print("rtvm: HIL over vcan0: rtvd rx %d frames (%d used, %d unknown: cangen), tx %d; ECU rx %d used, "
      "tx %d; %d cycles + %d skipped" %
      (ht["map"]["rx"]["frames"], ht["map"]["rx"]["used"], ht["map"]["rx"]["unknown"],
       hb["stats"]["tx_frames"], e["map"]["rx"]["used"], e["buses"][0]["stats"]["tx_frames"],
       hc["cycles"], hc["skipped_releases"]))
PY
hrc=$?
echo "rtvm: artefacts in $ART; total $((SECONDS - t0)) s"
if grep -aq '^RTVM: RESULT PASS' "$LOG" && [ $hrc = 0 ] && [ "$qrc" = 0 ]; then
    echo "rtvm: PASS"
    exit 0
fi
echo "rtvm: FAIL (guest result: $(grep -a '^RTVM: RESULT' "$LOG" || echo none), host checks: $hrc, qemu: $qrc)"
exit 1
