#!/bin/sh
# modes_cli_test.sh RTVD - rtvd modes beyond --check (modes_<vehicle>): --at on the HMMWV at
# 20 m/s (the state after 1 s of config/scenarios/cruise_20.yaml: the speed in the header,
# the body modes found, no "on tyres" body roll at speed), --check refused with --at (exit 2),
# a usage error (exit 2) and a missing file (exit 1).
set -u
rtvd=$1
fail=0
out=$("$rtvd" modes config/scenarios/cruise_20.yaml --vehicle config/vehicles/hmmwv.yaml --at 1 \
    --max-hz 3 2>/dev/null)
echo "$out"
echo "$out" | grep -q "at t = 1 s, chassis speed 19\.[89][0-9] m/s" || { echo "FAIL: speed"; fail=1; }
for m in "body bounce" "body roll" "body pitch"; do
    echo "$out" | grep -q " $m  " || { echo "FAIL: no $m"; fail=1; }
done
echo "$out" | grep -q "body roll on tyres" && { echo "FAIL: roll on tyres at speed"; fail=1; }
"$rtvd" modes config/scenarios/cruise_20.yaml --at 1 --check >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: --check with --at not refused"; fail=1; }
"$rtvd" modes --max-hz nope >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: bad --max-hz"; fail=1; }
"$rtvd" modes /nonexistent.yaml >/dev/null 2>&1
[ $? -eq 1 ] || { echo "FAIL: missing file"; fail=1; }
[ $fail -eq 0 ] && echo "modes_cli_test: ok"
exit $fail
