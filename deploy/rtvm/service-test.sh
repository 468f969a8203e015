#!/bin/bash
# deploy/rtvm/service-test.sh BUILD [ARTEFACT_DIR] - the PREEMPT_RT guest with systemd (ctest
# rtvm_service): Debian's RT kernel boots the cached Debian 12 root with the rtvd package
# installed (service-image.sh) and systemd as init; in it, service-guest.sh starts
# rtvd@guest.service as a bench would and checks READY, the user, the capabilities, locked
# memory, the cgroup, the loop thread's SCHED_FIFO 80 on the isolated cpu 1, the watchdog's
# STATUS= line, the clean stop on SIGTERM with the reports and the journal. Here the report is
# checked again. The journal, the report and the console go to ARTEFACT_DIR (default
# BUILD/rtvm-service-artifacts). Emulated timing is never judged.
# Exit: 0 pass; 1 fail; 77 skip only when no guest can run here (QEMU or the kernel cannot be
# had, no Debian root can be made, the guest does not boot in time).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(readlink -f "${1:?usage: service-test.sh BUILD [ARTEFACT_DIR]}")
ART=${2:-$BUILD/rtvm-service-artifacts}
export WORK=${WORK:-/var/tmp/rtvd-rtvm}
export TIMEOUT=${TIMEOUT:-600}
LOG=$WORK/svc-console.log
skip() { echo "rtvm_service: SKIPPED: $*"; exit 77; }
t0=$SECONDS
DEB=$(ls "$BUILD"/package/rtvd_*_amd64.deb 2>/dev/null | head -1)
[ -n "$DEB" ] || { echo "rtvm_service: FAIL: no package in $BUILD/package (deb_package first)"; exit 1; }
mkdir -p "$WORK" || skip "cannot create $WORK"
"$HERE/setup.sh" >"$WORK/setup.log" 2>&1 ||
    { tail -n 5 "$WORK/setup.log"; skip "cannot install QEMU or fetch linux-image-rt-amd64: see $WORK/setup.log"; }
"$HERE/../pkg/debroot.sh" "$DEB" >"$WORK/debroot.log" 2>&1 ||
    { tail -n 5 "$WORK/debroot.log"; skip "no Debian 12 root can be made here: see $WORK/debroot.log"; }
"$HERE/service-image.sh" "$DEB" || { echo "rtvm_service: FAIL: building the guest's disk"; exit 1; }
echo "rtvm_service: disk and initramfs ready after $((SECONDS - t0)) s"

INITRD=$WORK/svc-initramfs.cpio.gz LOG=$LOG \
    QEMU_EXTRA="-drive file=$WORK/svc-root.img,format=raw,if=virtio,cache=unsafe" \
    APPEND="console=ttyS0 isolcpus=1 nohz_full=1 rcu_nocbs=1 irqaffinity=0 quiet panic=-1 systemd.show_status=0 loglevel=3" \
    "$HERE/run-vm.sh"
qrc=$?
echo "rtvm_service: qemu exited $qrc after $((SECONDS - t0)) s"
grep -a '^RTVM:' "$LOG" 2>/dev/null
if ! grep -aq '^RTVM: systemd up' "$LOG" 2>/dev/null; then
    [ "$qrc" = 124 ] && skip "systemd did not come up in the guest within ${TIMEOUT}s (QEMU too slow here)"
    [ -s "$LOG" ] || skip "QEMU could not start here (exit $qrc, empty console)"
    echo "rtvm_service: FAIL: systemd did not come up (exit $qrc); console: $LOG"
    tail -n 40 "$LOG"
    exit 1
fi
rm -rf "$ART"
mkdir -p "$ART"
cp "$LOG" "$ART/guest-console.log"
/usr/bin/python3 "$HERE/guest-files.py" "$LOG" "$ART"
# the report the service wrote: SCHED_FIFO 80 on cpu 1, memory locked, stopped by the signal
/usr/bin/python3 - "$ART/svc-report.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
lt, c = j["loop_thread"], j["counters"]
assert j["preempt_rt"] is True, j["preempt_rt"]
assert lt["policy"] == "SCHED_FIFO" and lt["priority"] == 80 and lt["cpu"] == 1, lt
assert j["setup"]["memory_locked"] is True, j["setup"]
r = j["result"]
assert r["stop_reason"] == "request" and r["exit_status"] == 0, r
assert c["cycles"] > 0 and c["cycles"] + c["skipped_releases"] == c["elapsed_periods"], c
print("rtvm_service: report: loop thread %s %d on cpu %d, %d cycles + %d skipped, stop %s, exit %d, "
      "best effort: %s" % (lt["policy"], lt["priority"], lt["cpu"], c["cycles"], c["skipped_releases"],
                           r["stop_reason"], r["exit_status"], "; ".join(j["best_effort_reasons"]) or "no"))
PY
hrc=$?
echo "rtvm_service: artefacts in $ART; total $((SECONDS - t0)) s"
if grep -aq '^RTVM: RESULT PASS' "$LOG" && [ $hrc = 0 ]; then
    echo "rtvm_service: PASS"
    exit 0
fi
echo "rtvm_service: FAIL (guest: $(grep -a '^RTVM: RESULT' "$LOG" || echo none), host checks: $hrc, qemu: $qrc)"
exit 1
