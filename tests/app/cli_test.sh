#!/bin/sh
# tests/app/cli_test.sh RTVD - the rtvd command line: help texts, sim and bench on every
# shipped example model, CSV and JSON outputs well-formed, bad input gives a located error
# and exit status 1. Timings are never judged here.
set -u
RTVD=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

for c in "" sim bench; do
    # shellcheck disable=SC2086
    if $RTVD $c --help >"$tmp/help" 2>&1 && grep -q "usage: rtvd" "$tmp/help"; then ok; else bad "rtvd $c --help"; fi
done
$RTVD --version | grep -q "^rtvd [0-9]" && ok || bad "--version"
# the revision is taken at build time (app/git_rev.cmake): in a git checkout, --version names
# the HEAD the binary was built from (a commit after the last build fails here: rebuild)
if head=$(git rev-parse --short=12 HEAD 2>/dev/null); then
    $RTVD --version | grep -q "(git $head" && ok || bad "--version: not HEAD $head: $($RTVD --version)"
fi
$RTVD nosuchcmd >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "unknown command must exit 2"

# the embedded default (the README's main job), briefly
if $RTVD sim --duration 1 >"$tmp/sim.txt" 2>&1 && grep -q "^done: 1000 steps" "$tmp/sim.txt"; then ok; else
    bad "rtvd sim (embedded)"; cat "$tmp/sim.txt" >&2; fi

for model in config/models/*.yaml; do
    for solver in lie lsrt2; do
        out=$tmp/$(basename "$model" .yaml)-$solver
        if $RTVD sim "$model" --solver "$solver" --duration 0.5 --out "$out.csv" >"$out.txt" 2>&1; then
            rows=$(($(wc -l <"$out.csv") - 1))
            head -1 "$out.csv" | grep -q "^t," && [ "$rows" -eq 501 ] && ok ||
                bad "$model $solver: CSV header/rows ($rows)"
        else
            bad "rtvd sim $model --solver $solver"; cat "$out.txt" >&2
        fi
        if $RTVD bench "$model" --solver "$solver" --steps 300 --warmup 20 --json "$out.json" >"$out.b" 2>&1 &&
            /usr/bin/python3 - "$out.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
need = ["model", "solver", "dof", "steps", "dt_s", "min_us", "p50_us", "p99_us", "p999_us", "max_us", "rtf"]
missing = [k for k in need if k not in j]
assert not missing, missing
assert j["steps"] == 300 and j["dof"] > 0
assert 0 < j["min_us"] <= j["p50_us"] <= j["p99_us"] <= j["p999_us"] <= j["max_us"]
# rtf = p50 / dt from the printed numbers: rtf has 6 decimals (error <= 5e-7), p50_us 3
# (<= 5e-4 us, so 5e-10 s / dt in rtf); dt_s is printed exactly enough (%.9g of 1e-3 and
# the like)
assert abs(j["rtf"] - j["p50_us"] * 1e-6 / j["dt_s"]) <= 5e-7 + 5e-10 / j["dt_s"] + 1e-12
PY
        then ok; else bad "rtvd bench $model --solver $solver"; cat "$out.b" >&2; fi
    done
done

# signals: explicit selection, list, unknown name
$RTVD sim --duration 0.01 --signals chassis.z,tyre.force --out - | head -1 | grep -q "^t,chassis.z,tyre.force$" && ok || bad "--signals"
$RTVD sim --list-signals | grep -q "^strut.force$" && ok || bad "--list-signals"
$RTVD sim --signals nosuch.x >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "unknown signal 'nosuch.x'" "$tmp/err" && ok || bad "unknown signal"

# bad model: compiler-style error, exit 1
printf 'bodies:\n  - name: a\n    mass: -1\n    inertia: [1, 1, 1]\n' >"$tmp/bad.yaml"
$RTVD sim "$tmp/bad.yaml" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "bad.yaml:3:11: error: bodies\[0\].mass" "$tmp/err" && ok || { bad "bad model"; cat "$tmp/err" >&2; }
$RTVD sim --dt 0 >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "--dt 0 must be refused"

# the CVODE reference solver: the same CSV rows as the fixed-step path; sim only
for model in config/models/*.yaml; do
    out=$tmp/$(basename "$model" .yaml)-cvode
    if $RTVD sim "$model" --solver cvode --duration 0.5 --out "$out.csv" >"$out.txt" 2>&1 &&
        grep -q "^done: 0.500 s simulated" "$out.txt"; then
        rows=$(($(wc -l <"$out.csv") - 1))
        [ "$rows" -eq 501 ] && ok || bad "$model cvode: CSV rows ($rows)"
    else
        bad "rtvd sim $model --solver cvode"; cat "$out.txt" >&2
    fi
done
$RTVD sim --solver cvode --rtol 1e-6 --atol 1e-9 --duration 0.1 >/dev/null 2>&1 && ok || bad "cvode --rtol --atol"
$RTVD sim --rtol 1e-6 >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "--rtol without --solver cvode must be refused"
$RTVD bench --solver cvode >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "bench --solver cvode must be refused"
# the IDA reference of models with joints: the CSV rows, the constraints held; each
# reference refuses the other's kind of model; sim only
for model in config/mechanisms/*.yaml; do
    out=$tmp/$(basename "$model" .yaml)-ida
    if $RTVD sim "$model" --solver ida --duration 0.5 --out "$out.csv" >"$out.txt" 2>&1 &&
        grep -q "^done: 0.500 s simulated" "$out.txt" && grep -q "^joints: max |g| " "$out.txt"; then
        rows=$(($(wc -l <"$out.csv") - 1))
        [ "$rows" -eq 501 ] && ok || bad "$model ida: CSV rows ($rows)"
    else
        bad "rtvd sim $model --solver ida"; cat "$out.txt" >&2
    fi
done
$RTVD sim config/mechanisms/fourbar.yaml --solver cvode --duration 0.1 >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "its reference is --solver ida" "$tmp/err" && ok || bad "cvode on a joint model must be refused"
$RTVD sim --solver ida --duration 0.1 >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "its reference is --solver cvode" "$tmp/err" && ok || bad "ida on a bushing model must be refused"
$RTVD bench --solver ida >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "bench --solver ida must be refused"

# the second-core worker measurement: refused without clusters or with a bad mode; on the
# sedan (3 clusters) it runs where CPUs 0 and 1 exist and says how it split the clusters
# --cpu: pinned where asked, and it says where the steps ran (text and JSON)
if $RTVD bench --steps 50 --warmup 5 --cpu 0 --json "$tmp/cpu.json" >"$tmp/cpu.txt" 2>&1 &&
    grep -q "^cpu: pinned to cpu 0 (affinity 0); the timed steps ran on cpu 0$" "$tmp/cpu.txt" &&
    grep -q '"cpu": 0,' "$tmp/cpu.json" && grep -q '"cpus_used": "0",' "$tmp/cpu.json"; then ok; else
    bad "bench --cpu 0"; cat "$tmp/cpu.txt" >&2; fi
$RTVD bench --steps 50 --warmup 5 --cpu none >"$tmp/cpu.txt" 2>&1 &&
    grep -q "^cpu: not pinned (affinity " "$tmp/cpu.txt" && ok || bad "bench --cpu none"
$RTVD bench --steps 50 --warmup 5 --cpu auto >"$tmp/cpu.txt" 2>&1 &&
    grep -q "^cpu: pinned to cpu [0-9]* (affinity [0-9]*); the timed steps ran on cpu [0-9]*$" \
        "$tmp/cpu.txt" && ok || bad "bench --cpu auto"
$RTVD bench --cpu x >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "bench --cpu x must be a usage error"
$RTVD bench --steps 10 --cpu 1023 >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "cpu 1023 is not among the CPUs" "$tmp/err" && ok || bad "bench --cpu 1023"
$RTVD bench --worker bad >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "bench --worker bad must be refused"
$RTVD bench --worker spin --steps 10 >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "needs the structured solve and 2 clusters" "$tmp/err" && ok ||
    bad "bench --worker on the quarter car must be refused"
if [ "$(nproc)" -ge 2 ]; then
    for mode in futex spin; do
        $RTVD bench config/vehicles/sedan.yaml --worker $mode --steps 50 --warmup 5 \
            --json "$tmp/w.json" >"$tmp/w.txt" 2>&1 &&
            grep -q "^worker: $mode, factorization on CPU 0 (clusters 0..1" "$tmp/w.txt" &&
            grep -q "\"worker\": \"$mode\"" "$tmp/w.json" && ok ||
            { bad "bench --worker $mode"; cat "$tmp/w.txt" >&2; }
    done
fi

# every shipped scenario: the vehicle scenarios on every shipped vehicle, the rig scenarios on
# their rig; briefly (the long runs are tests/config/test_vehicle.c and tests/validation/):
# each starts (statics, pose, speeds), steps, and writes its own default signals
for scn in config/scenarios/*.yaml; do
    case $(basename "$scn") in
    lc*) vehicles="-" ;;
    *) vehicles=$(ls config/vehicles/*.yaml) ;;
    esac
    for veh in $vehicles; do
        out=$tmp/$(basename "$scn" .yaml)-$(basename "$veh" .yaml)
        if [ "$veh" = - ]; then set -- ; else set -- --vehicle "$veh"; fi
        if $RTVD sim "$scn" "$@" --duration 0.2 --out "$out.csv" >"$out.txt" 2>&1 &&
            grep -q "^scenario $(sed -n "s/^  name: //p" "$scn"): " "$out.txt" &&
            grep -q "^done: 200 steps" "$out.txt"; then
            rows=$(($(wc -l <"$out.csv") - 1))
            # the scenario's outputs are the columns
            want=$(sed -n 's/^outputs: *\[\(.*\)/\1/p' "$scn" | tr -d ' ' | cut -d, -f1)
            head -1 "$out.csv" | grep -q "^t,$want" && [ "$rows" -eq 201 ] && ok ||
                bad "$scn on $veh: CSV header/rows ($rows)"
        else
            bad "rtvd sim $scn --vehicle $veh"; cat "$out.txt" >&2
        fi
    done
done
# tyre-file notes: none unless asked (--verbose), then once per file (the sedan's four
# tyres share one file, the scenario and its vehicle name it by different paths); never from
# rtvd check
$RTVD sim config/scenarios/dlc_iso3888.yaml --duration 0.01 >/dev/null 2>"$tmp/err"
[ $? -eq 0 ] && ! grep -q "note:" "$tmp/err" && ok || bad "sim prints tyre notes unasked"
$RTVD sim config/scenarios/dlc_iso3888.yaml --duration 0.01 --verbose >/dev/null 2>"$tmp/err"
[ "$(grep -c "passenger_245_40R18_pac2002_scaled.tir: note: section skipped: SHAPE" "$tmp/err")" -eq 1 ] &&
    ok || { bad "sim --verbose: tyre notes once"; cat "$tmp/err" >&2; }
$RTVD check >"$tmp/out" 2>&1
! grep -q "note:" "$tmp/out" && ok || bad "rtvd check prints tyre notes"

# a driver schedule longer than the virtual ECU's table: refused with the reason, not cut
{
    printf 'scenario: {name: long, vehicle: %s/config/vehicles/sedan.yaml, duration: 1}\n' "$PWD"
    printf 'driver:\n  drive: [front_l.drive]\n  brake: [front_l.brake]\n  speed: ['
    i=0; while [ $i -lt 40 ]; do printf '[%d, 1], ' $i; i=$((i + 1)); done
    printf '[40, 1]]\n'
} >"$tmp/long_speed.yaml"
printf 'scenario: long_speed.yaml\ncan: {mapping: %s/config/can/sedan.yaml}\n' "$PWD" >"$tmp/long_run.yaml"
$RTVD ecu "$tmp/long_run.yaml" --duration 0.1 >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "the virtual ECU takes at most 32 speed points" "$tmp/err" && ok ||
    { bad "ecu: a 41-point schedule must be refused"; cat "$tmp/err" >&2; }

# --vehicle needs a scenario; the CVODE reference runs a scenario with a closed-loop driver
$RTVD sim config/models/two_body.yaml --vehicle config/vehicles/sedan.yaml >/dev/null 2>&1
[ $? -eq 1 ] && ok || bad "--vehicle on a model file must fail"
if $RTVD sim config/scenarios/dlc_iso3888.yaml --solver cvode --duration 0.05 \
    --out "$tmp/dlc-cvode.csv" >"$tmp/dlc-cvode.txt" 2>&1 &&
    grep -q "^done: 0.050 s simulated" "$tmp/dlc-cvode.txt" &&
    [ "$(($(wc -l <"$tmp/dlc-cvode.csv") - 1))" -eq 51 ]; then ok; else
    bad "cvode with a closed-loop driver"; cat "$tmp/dlc-cvode.txt" >&2; fi

# rtvd ecu: help, usage errors (exit 2), configuration errors (exit 1) with their location
$RTVD ecu --help >"$tmp/help" 2>&1 && grep -q "usage: rtvd ecu" "$tmp/help" &&
    grep -q "bad_datagram" "$tmp/help" && ok || bad "rtvd ecu --help"
for a in "--fault explode" "--fault nan" "--fault unknown_id:X" "--fault flood:M*1" \
    "--fault silent:M@1+2x3" "--speed 1:2,0:3" "--set front_l.drive" "--port 70000"; do
    # shellcheck disable=SC2086
    $RTVD ecu $a >/dev/null 2>&1
    [ $? -eq 2 ] && ok || bad "rtvd ecu $a must exit 2"
done
$RTVD ecu config/runs/quarter_car.yaml --duration 0.1 >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "has no can: section" "$tmp/err" && ok || bad "rtvd ecu on a run file without can:"
$RTVD ecu config/can/sedan.yaml --port 24300 --duration 0.1 --fault silent:VDM_WheelSpeeds@1 \
    >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "no message 'VDM_WheelSpeeds' that the ECU sends" "$tmp/err" && ok ||
    { bad "a fault on a message the ECU does not send"; cat "$tmp/err" >&2; }
# a fault that cannot act on its message is refused, never counted as injected (issue 10
# item 5: ECU_WheelTorques has only integer signals, a NaN cannot be sent in it)
$RTVD ecu config/can/sedan.yaml --port 24300 --duration 0.1 --fault nan:ECU_WheelTorques \
    >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "\-\-fault nan: the message has no mapped float signal to carry a NaN" "$tmp/err" &&
    ok || { bad "a NaN fault on a message without float signals"; cat "$tmp/err" >&2; }
printf 'scenario: %s/config/scenarios/hil_default.yaml\ncan:\n  mapping: %s/config/can/sedan.yaml\n  ecu:\n    faults:\n      - {fault: nan, message: ECU_WheelTorques}\n' \
    "$PWD" "$PWD" >"$tmp/ecunan.yaml"
$RTVD ecu "$tmp/ecunan.yaml" --port 24300 --duration 0.1 >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "ecunan.yaml:6:9: error: can.ecu.faults: the message has no mapped float signal" "$tmp/err" &&
    ok || { bad "a NaN fault without float signals located in the run file"; cat "$tmp/err" >&2; }
# a DBC defect that keeps the meaning (a message name starting with a digit): a located
# warning and the obvious reading; --strict makes it an error (issue 10 item 8d, 8e)
sed 's/^BO_ 272 ECU_WheelTorques/BO_ 272 1ECU_WheelTorques/' config/can/sedan_bench.dbc >"$tmp/sedan_bench.dbc"
sed 's/ECU_WheelTorques/1ECU_WheelTorques/' config/can/sedan.yaml >"$tmp/digit.yaml"
$RTVD ecu "$tmp/digit.yaml" --port 24300 --duration 0.1 >/dev/null 2>"$tmp/err"
[ $? -eq 0 ] && grep -q "sedan_bench.dbc:17: warning: message name '1ECU_WheelTorques': a name must not start with a digit (read as that name)" "$tmp/err" &&
    ok || { bad "a digit-led DBC name: a warning"; cat "$tmp/err" >&2; }
$RTVD ecu "$tmp/digit.yaml" --port 24300 --duration 0.1 --strict >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "sedan_bench.dbc:17: error: message name '1ECU_WheelTorques': a name must not start with a digit$" "$tmp/err" &&
    ok || { bad "a digit-led DBC name with --strict: an error"; cat "$tmp/err" >&2; }
$RTVD run --can "$tmp/digit.yaml" --strict --duration 0.1 --report-dir "$tmp/strict" >/dev/null 2>"$tmp/err"
[ $? -ne 0 ] && grep -q "sedan_bench.dbc:17: error: message name '1ECU_WheelTorques'" "$tmp/err" &&
    ok || { bad "rtvd run --strict"; cat "$tmp/err" >&2; }
printf 'scenario: %s/config/scenarios/hil_default.yaml\ncan:\n  mapping: %s/config/can/sedan.yaml\n  ecu:\n    faults:\n      - {fault: nan, message: NoSuch}\n' \
    "$PWD" "$PWD" >"$tmp/ecurun.yaml"
$RTVD ecu "$tmp/ecurun.yaml" --port 24300 --duration 0.1 >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "ecurun.yaml:6:9: error: can.ecu.faults: no message 'NoSuch'" "$tmp/err" && ok ||
    { bad "a fault's message located in the run file"; cat "$tmp/err" >&2; }
$RTVD ecu config/can/sedan.yaml --port 24300 --duration 0.3 --quiet --report "$tmp/ecu.json" \
    >"$tmp/ecu.out" 2>&1
[ $? -eq 0 ] && grep -q "^rtvd ecu: stopped after 0.3" "$tmp/ecu.out" &&
    /usr/bin/python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['role']=='ecu' and j['buses'][0]['stats']['tx_frames']>0" "$tmp/ecu.json" &&
    ok || { bad "rtvd ecu alone for 0.3 s"; cat "$tmp/ecu.out" >&2; }

# models with joints: --constraints and --project choose the form and the projection (sim,
# bench, run); without the projection the four-bar drifts, with it max |g| stays at the
# projection's level (1e-8: tests/core/test_mechanism.c derives it)
for form in index2 nullspace; do
    for proj in positions none; do
        $RTVD sim config/mechanisms/fourbar.yaml --constraints $form --project $proj --duration 2 \
            >"$tmp/fb.txt" 2>&1
        g=$(sed -n 's/^joints: max |g| \([^ ]*\) over the run.*/\1/p' "$tmp/fb.txt")
        grep -q "^joints: .* $form form, $( [ $proj = none ] && echo 'no projection' || echo 'positions projected')" "$tmp/fb.txt" &&
            /usr/bin/python3 -c "import sys; g=float(sys.argv[1]); sys.exit(0 if (g > 1e-6 if sys.argv[2] == 'none' else g <= 1e-8) else 1)" "$g" $proj &&
            ok || { bad "sim fourbar --constraints $form --project $proj (max |g| '$g')"; cat "$tmp/fb.txt" >&2; }
    done
done
$RTVD sim config/mechanisms/fourbar.yaml --constraints bogus >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "invalid value 'bogus' for --constraints" "$tmp/err" && ok ||
    bad "sim --constraints bogus: exit 2 with a message"
$RTVD bench config/mechanisms/slider_crank.yaml --constraints nullspace --steps 200 --warmup 10 \
    >"$tmp/b.txt" 2>&1 && grep -q "^linear solve: structured, joints, nullspace form: per-cluster null spaces" "$tmp/b.txt" && ok ||
    { bad "bench --constraints nullspace"; cat "$tmp/b.txt" >&2; }
$RTVD bench config/mechanisms/slider_crank.yaml --constraints nullspace --linear dense --steps 200 \
    --warmup 10 >"$tmp/b.txt" 2>&1 && grep -q "^linear solve: dense, joints, nullspace form" "$tmp/b.txt" &&
    ok || { bad "bench --constraints nullspace --linear dense"; cat "$tmp/b.txt" >&2; }
$RTVD bench config/vehicles/hmmwv_joints.yaml --constraints nullspace --worker spin --steps 10 \
    >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "with joints: the index2 form" "$tmp/err" && ok ||
    bad "bench --worker with the nullspace form must be refused"
# the model forms of one file (issue 14): --formulation ta builds the TA tree and its cuts
# (described, the cut rows' max |g| at the projection's level), bench reports the form; the
# TA form with LSRT2 and both projections runs and says so; an unknown form is refused
$RTVD sim config/vehicles/hmmwv_ce.yaml --formulation ta --duration 0.05 >"$tmp/ta.txt" 2>&1 &&
    grep -q "^formulation ta: 55 tree coordinates (33 nodes) and 40 cut-joint rows" "$tmp/ta.txt" &&
    g=$(sed -n 's/^joints: max |g| \([^ ]*\) over the run.*/\1/p' "$tmp/ta.txt") &&
    /usr/bin/python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= 1e-8 else 1)" "$g" &&
    ok || { bad "sim --formulation ta"; cat "$tmp/ta.txt" >&2; }
$RTVD bench config/vehicles/hmmwv_ce.yaml --formulation ta --steps 20 --warmup 2 --json - \
    >"$tmp/ta.json" 2>&1 &&
    grep -q '"formulation": {"form": "ta", "coordinates": 55, "rows": 40}' "$tmp/ta.json" &&
    ok || { bad "bench --formulation ta --json"; cat "$tmp/ta.json" >&2; }
$RTVD sim config/vehicles/hmmwv_ce.yaml --formulation ta --solver lsrt2 --project both \
    --duration 0.05 >"$tmp/ta2.txt" 2>&1 &&
    grep -q "^formulation ta: 55 tree coordinates.*LSRT2 .*positions and velocities projected" \
        "$tmp/ta2.txt" &&
    g=$(sed -n 's/^joints: max |g| \([^ ]*\) over the run.*/\1/p' "$tmp/ta2.txt") &&
    /usr/bin/python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= 1e-8 else 1)" "$g" &&
    ok || { bad "sim --formulation ta --solver lsrt2 --project both"; cat "$tmp/ta2.txt" >&2; }
$RTVD sim config/vehicles/hmmwv_ce.yaml --formulation tree >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "invalid value 'tree' for --formulation" "$tmp/err" && ok ||
    bad "sim --formulation tree: exit 2 with a message"
printf 'model: %s/config/mechanisms/fourbar.yaml\n' "$PWD" >"$tmp/fbrun.yaml"
$RTVD run "$tmp/fbrun.yaml" --vehicle config/vehicles/hmmwv.yaml --duration 0.1 \
    --report-dir "$tmp/veh" >/dev/null 2>"$tmp/err"
[ $? -ne 0 ] && grep -q "fbrun.yaml:1:8: error: model: '.*fourbar.yaml' is a bare model: a vehicle given with the run (--vehicle config/vehicles/hmmwv.yaml) replaces a scenario's vehicle" "$tmp/err" &&
    ok || { bad "rtvd run --vehicle on a bare model"; cat "$tmp/err" >&2; }

echo "cli_test: $pass checks passed, $fails failed"
[ "$fails" -eq 0 ] && [ "$pass" -gt 0 ]
