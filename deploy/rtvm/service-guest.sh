#!/bin/sh
# deploy/rtvm/service-guest.sh - runs as a oneshot unit under systemd in the PREEMPT_RT guest
# (service-image.sh): rtvd@guest.service from the installed package is started, inspected
# and stopped exactly as on a bench; then the shipped rtvd.service with the shipped
# /etc/rtvd/run.yaml (only its policy made skip for the emulation). Every line for the host starts with RTVM:; files go
# between RTVM-FILE-BEGIN/END markers; the last lines are "RTVM: N passed, M failed" and
# "RTVM: RESULT PASS|FAIL", then the guest powers off. Function only: emulated timing is
# never judged.
U=rtvd@guest.service
pass=0
fail=0
say() { echo "RTVM: $*"; }
ok() { pass=$((pass + 1)); say "ok: $*"; }
bad() { fail=$((fail + 1)); say "FAIL: $*"; }
file() { echo "RTVM-FILE-BEGIN $1"; cat "$2"; echo "RTVM-FILE-END $1"; }
say "systemd up after $(cut -d' ' -f1 /proc/uptime) s: $(uname -r), $(systemctl --version | head -n 1)"
grep -q 1 /sys/kernel/realtime && ok "PREEMPT_RT kernel" || bad "not PREEMPT_RT"

# 1. start: Type=notify, so systemctl returns once rtvd sent READY=1
t0=$(cut -d' ' -f1 /proc/uptime)
if systemctl start $U; then
    ok "systemctl start $U returned after $(awk -v a="$t0" '{printf "%.1f", $1 - a}' /proc/uptime) s (emulated): READY=1 received"
else
    bad "systemctl start $U failed"
    systemctl status --no-pager $U
    journalctl -u $U --no-pager -o cat | tail -n 30
fi
[ "$(systemctl show -p ActiveState --value $U)" = active ] && ok "active (running)" || bad "not active"
pid=$(systemctl show -p MainPID --value $U)
say "MainPID $pid, cgroup $(cat /proc/$pid/cgroup 2>/dev/null | tr '\n' ' ')"

# 2. the process as the unit made it: user, capabilities, memory locked, the cgroup
[ "$(stat -c %U /proc/$pid)" = rtvd ] && ok "runs as user rtvd" || bad "user $(stat -c %U /proc/$pid)"
capeff=$(awk '/^CapEff/ {print $2}' /proc/$pid/status)
capbnd=$(awk '/^CapBnd/ {print $2}' /proc/$pid/status)
[ "$capeff" = 0000000000804000 ] && [ "$capbnd" = 0000000000804000 ] &&
    ok "capabilities CAP_SYS_NICE + CAP_IPC_LOCK only (CapEff $capeff, CapBnd $capbnd)" ||
    bad "capabilities CapEff $capeff CapBnd $capbnd"
lck=$(awk '/^VmLck/ {print $2}' /proc/$pid/status)
# mlockall(MCL_CURRENT|MCL_FUTURE) with the 8 MiB heap prefault of rt/sched.h: more than that
[ "${lck:-0}" -gt 8192 ] && ok "memory locked: VmLck $lck kB" || bad "VmLck ${lck:-?} kB"
grep -q 'system-rtvd.slice/rtvd@guest.service' /proc/$pid/cgroup &&
    ok "in the service's cgroup (SCHED_FIFO there needs a kernel without RT_GROUP_SCHED)" ||
    bad "cgroup: $(cat /proc/$pid/cgroup)"
# 3. the threads: the loop SCHED_FIFO 80 pinned to cpu 1, the helpers SCHED_OTHER nice -10
loop=""
for t in /proc/$pid/task/*; do
    comm=$(cat $t/comm)
    set -- $(cut -d')' -f2 $t/stat)
    # after "comm)": field 3 is $1, so nice (19) is ${17}, rt_priority (40) ${38}, policy (41) ${39}
    nice=${17} prio=${38} pol=${39}
    cpus=$(awk '/^Cpus_allowed_list/ {print $2}' $t/status)
    say "thread $(basename $t) $comm: policy $pol priority $prio nice $nice cpus $cpus"
    [ "$comm" = vd-loop ] && loop="$pol $prio $cpus"
    [ "$comm" = vd-telemetry ] && { [ "$pol" = 0 ] && [ "$nice" = -10 ] && ok "telemetry thread SCHED_OTHER, nice -10 (Nice=)" || bad "telemetry thread policy $pol nice $nice"; }
done
[ "$loop" = "1 80 1" ] && ok "loop thread SCHED_FIFO 80 on cpu 1" || bad "loop thread: ${loop:-none} (policy prio cpus)"

# 4. the watchdog pings (from the telemetry thread) and their STATUS= line
sleep 5
st=$(systemctl show -p StatusText --value $U)
wd=$(systemctl show -p WatchdogTimestampMonotonic --value $U)
say "StatusText: $st; WatchdogTimestampMonotonic $wd; WatchdogUSec $(systemctl show -p WatchdogUSec --value $U)"
echo "$st" | grep -Eq '^cycle [1-9][0-9]*, overruns [0-9]+, skipped [0-9]+, max turnaround [0-9]+ us' &&
    ok "STATUS= from the watchdog pings" || bad "StatusText '$st'"
[ "${wd:-0}" -gt 0 ] && ok "watchdog pinged (WatchdogTimestamp set)" || bad "no watchdog ping"
[ "$(systemctl show -p ActiveState --value $U)" = active ] && ok "still active after 5 s (the watchdog did not fire)" || bad "not active after 5 s"

# 5. stop: SIGTERM, a clean stop with the reports written, exit 0
systemctl stop $U
res=$(systemctl show -p Result --value $U)
code=$(systemctl show -p ExecMainStatus --value $U)
[ "$res" = success ] && [ "$code" = 0 ] && ok "stopped by SIGTERM: Result=$res, exit $code" ||
    bad "stop: Result=$res exit $code"
journalctl -u $U --no-pager -o cat >/tmp/journal.txt
journalctl -u $U --no-pager -o cat -p warning >/tmp/journal-warn.txt
grep -q '^rtvd check: ' /tmp/journal.txt && grep -q '^PASS  preempt_rt: ' /tmp/journal.txt &&
    grep -q '^PASS  rt_group_sched: ' /tmp/journal.txt && grep -q '^PASS  rtprio: CAP_SYS_NICE' /tmp/journal.txt &&
    grep -q '^PASS  memlock: CAP_IPC_LOCK' /tmp/journal.txt &&
    ok "ExecStartPre rtvd check in the journal: PREEMPT_RT, no RT_GROUP_SCHED, the capabilities" ||
    bad "rtvd check in the journal"
grep -q 'loop thread [0-9]*: SCHED_FIFO priority 80 on cpu 1 (affinity 1); memory locked; cpu_dma_latency held at 0 us' /tmp/journal.txt &&
    ok "the run's set-up in the journal: SCHED_FIFO 80 on cpu 1, memory locked, cpu_dma_latency held (udev rule + DeviceAllow)" ||
    bad "set-up line: $(grep 'loop thread' /tmp/journal.txt)"
grep -q 'summary (stop reason request)' /tmp/journal.txt && ok "summary in the journal (stop reason request: SIGTERM)" || bad "no summary"
say "journal: $(wc -l </tmp/journal.txt) lines, $(wc -l </tmp/journal-warn.txt) at priority warning or above"
for f in rtvd-report.json rtvd-latency.hist; do
    [ -s /var/lib/rtvd/guest/$f ] && ok "/var/lib/rtvd/guest/$f written" || bad "/var/lib/rtvd/guest/$f missing"
done
[ "$(stat -c %U /var/lib/rtvd/guest/rtvd-report.json)" = rtvd ] && ok "reports owned by rtvd" || bad "report owner"
# 6. the shipped rtvd.service with the shipped /etc/rtvd/run.yaml (the sedan, its CAN thread
# on the udp bus waiting for an ECU), only the policy made skip by a runtime drop-in: under
# emulation the sedan overruns, and the shipped stop policy would end the run by design
mkdir -p /run/systemd/system/rtvd.service.d
printf '[Service]\nExecStart=\nExecStart=/usr/bin/rtvd run /etc/rtvd/run.yaml --quiet --policy skip\n' \
    >/run/systemd/system/rtvd.service.d/emulated.conf
systemctl daemon-reload
if systemctl start rtvd.service; then
    ok "systemctl start rtvd.service (the shipped /etc/rtvd/run.yaml): READY=1 received"
else
    bad "systemctl start rtvd.service failed"
fi
pid=$(systemctl show -p MainPID --value rtvd.service)
journalctl -u rtvd.service --no-pager -o cat >/tmp/journal-rtvd-start.txt
can=""
for t in /proc/$pid/task/*; do
    [ "$(cat $t/comm 2>/dev/null)" = vd-can ] || continue
    set -- $(cut -d')' -f2 $t/stat)
    can="${39} ${38}"
done
# cpu: auto under systemd: the isolated cpu 1 (the service's cpuset), not the inherited
# affinity, which the kernel keeps off the isolated CPUs
grep -q 'loop thread [0-9]*: SCHED_FIFO priority 80 on cpu 1 (affinity 1)' /tmp/journal-rtvd-start.txt &&
    ok "cpu: auto chose the isolated cpu 1 under systemd" ||
    bad "cpu: auto: $(grep 'loop thread' /tmp/journal-rtvd-start.txt)"
[ "$can" = "1 70" ] && ok "its CAN thread SCHED_FIFO 70 (sockets, timerfd and poll under the unit's seccomp filter)" ||
    bad "CAN thread: ${can:-none}"
sleep 3
systemctl stop rtvd.service
res=$(systemctl show -p Result --value rtvd.service)
code=$(systemctl show -p ExecMainStatus --value rtvd.service)
journalctl -u rtvd.service --no-pager -o cat >/tmp/journal-rtvd.txt
[ "$res" = success ] && [ "$code" = 0 ] && ok "rtvd.service stopped: Result=$res, exit $code" ||
    bad "rtvd.service stop: Result=$res exit $code"
grep -Eq '^  CAN sedan-bench .*: rx 0 frames' /tmp/journal-rtvd.txt &&
    grep -Eq 'tx [1-9][0-9]* frames' /tmp/journal-rtvd.txt &&
    grep -q '^  reports: /var/lib/rtvd/run/rtvd-report.json' /tmp/journal-rtvd.txt &&
    ok "its summary: CAN frames sent to the (absent) ECU, reports in /var/lib/rtvd/run" ||
    bad "rtvd.service summary"
file svc-journal.txt /tmp/journal.txt
file svc-journal-rtvd.txt /tmp/journal-rtvd.txt
file svc-report.json /var/lib/rtvd/guest/rtvd-report.json
file svc-latency.hist /var/lib/rtvd/guest/rtvd-latency.hist
say "$pass passed, $fail failed"
[ $fail = 0 ] && say "RESULT PASS" || say "RESULT FAIL"
sync
systemctl poweroff --force --force
