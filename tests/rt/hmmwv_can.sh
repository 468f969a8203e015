#!/bin/sh
# tests/rt/hmmwv_can.sh RTVD - the HMMWV's CAN bench (config/runs/hmmwv_bench.yaml: the mapping
# config/can/hmmwv.yaml on hmmwv_bench.dbc, the in-process virtual ECU over udp) with each form
# of the vehicle: minimal coordinates (hmmwv_ce.yaml, the run file's), bushings (hmmwv.yaml)
# and ideal joints (hmmwv_joints.yaml), 3 s of `rtvd run` each, from the embedded files (a
# missing embedded file fails the load). Checked per form from the summary: the mapping loads
# against the vehicle's signals, every frame either end received was used (none rejected: no
# bad length, range, NaN, invalid value, unknown id or E2E error), the target received every
# frame the ECU sent, the ECU every frame the target sent but those of the target's last 10 ms
# (the ECU stops first: at most 3 frames, the two 10 ms messages and one of the 20 ms ones;
# usually only the last), and no transmitted value was clamped to its DBC range. The bus is
# on udp ports 20110/20111 (--can-port), apart from the default's 20000/20001, which tests
# without the ctest lock (cli_test) may hold.
set -u
RTVD=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
for v in hmmwv_ce hmmwv hmmwv_joints; do
    "$RTVD" run "<embedded>/config/runs/hmmwv_bench.yaml" \
        --vehicle "<embedded>/config/vehicles/$v.yaml" --duration 3 --quiet --udp off --can-port 20110 \
        --motion off --no-mlock --report-dir "$tmp/$v" >"$tmp/$v.out" 2>&1
    rc=$?
    out=$tmp/$v.out
    line=$(grep -E '^  CAN hmmwv-bench' "$out")
    ecu=$(grep -E '^  ECU: tx' "$out")
    tx=$(grep -Eo 'tx [0-9]+ frames \([0-9]+ clamped values\)' "$out")
    # target: rx N frames, N used; E2E ok N, error 0 ...; rejected: 0 ... 0 unknown ids
    trx=$(echo "$line" | sed -nE 's/.*: rx ([0-9]+) frames, ([0-9]+) used; E2E ok ([0-9]+), ok-some-lost 0, error 0, repeated 0, wrong-sequence 0; rejected: 0 bad length, 0 out of range, 0 NaN, 0 invalid values; 0 unknown ids$/\1 \2 \3/p')
    etx=$(echo "$ecu" | sed -nE 's/^  ECU: tx ([0-9]+) frames \(0 faulted or suppressed\); rx ([0-9]+) frames, ([0-9]+) used; E2E ok ([0-9]+), ok-some-lost 0, error 0, repeated 0, wrong-sequence 0;.*/\1 \2 \3 \4/p')
    ttx=$(echo "$tx" | sed -nE 's/tx ([0-9]+) frames \(0 clamped values\)/\1/p')
    echo "$v: rc $rc | $line | $ecu | $tx"
    set -- $trx
    r_n=${1:-x} r_used=${2:-y} r_ok=${3:-z}
    set -- $etx
    e_tx=${1:-a} e_rx=${2:-b} e_used=${3:-c} e_ok=${4:-d}
    if [ $rc -ne 0 ] || [ -z "$trx" ] || [ -z "$etx" ] || [ -z "$ttx" ] ||
        [ "$r_n" != "$r_used" ] || [ "$r_n" != "$r_ok" ] || [ "$r_n" != "$e_tx" ] ||
        [ "$e_rx" != "$e_used" ] || [ "$e_rx" != "$e_ok" ] || [ "$r_n" -lt 1000 ] ||
        [ $((ttx - e_rx)) -lt 0 ] || [ $((ttx - e_rx)) -gt 3 ]; then
        echo "FAIL: $v: the CAN counters do not match (or the run failed):" >&2
        cat "$out" >&2
        fails=1
    fi
done
# the default run (the sedan's mapping) with the HMMWV: refused at load, located in the
# mapping, with the way out
"$RTVD" run --vehicle "<embedded>/config/vehicles/hmmwv_ce.yaml" --duration 0.1 --quiet \
    --udp off --motion off --no-mlock --report-dir "$tmp/def" >"$tmp/def.out" 2>&1
rc=$?
if [ $rc -ne 1 ] ||
    ! grep -q "sedan.yaml:[0-9]*:[0-9]*: error: output '[^']*' is not a signal of model hmmwv_ce .*config/can/hmmwv.yaml" "$tmp/def.out"; then
    echo "FAIL: the sedan's mapping with the HMMWV: exit $rc, no located error with the hint:" >&2
    cat "$tmp/def.out" >&2
    fails=1
fi
[ $fails -eq 0 ] && echo "hmmwv_can: passed"
exit $fails
