#!/bin/sh
# bump_test.sh RTVD VEHICLE.yaml FRONT_BUMP FRONT_REBOUND REAR_BUMP REAR_REBOUND
# Issue 10 item 2: config/scenarios/bump_left.yaml (a 0.05 m x 0.5 m half-sine under the left
# wheels only, 10 m/s) on VEHICLE: every tyre loses contact at most twice (a real vehicle
# damps the wheel hop the bump excites within a cycle or two), and the left struts stay
# between their bump-stop and rebound-stop contact lengths [m] (the *_stop.length of the
# vehicle file: travel inside the stops). Both are inequalities on physical quantities; no
# numerical tolerance enters (a lift-off is a load of exactly 0: the tyre's contact switch).
set -eu
rtvd=$1 veh=$2 fb=$3 fr=$4 rb=$5 rr=$6
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$rtvd" sim config/scenarios/bump_left.yaml --vehicle "$veh" --out "$out" >/dev/null
awk -F, -v fb="$fb" -v fr="$fr" -v rb="$rb" -v rr="$rr" '
NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
{
    n = split("front_l front_r rear_l rear_r", w, " ")
    for (k = 1; k <= n; k++) {
        f = $(c[w[k] ".tire.fz"])
        if (NR > 2 && prev[k] > 0 && f <= 0) lift[k]++
        prev[k] = f
        if (f > peak[k]) peak[k] = f
    }
    lf = $(c["front_l.strut.length"]); lr = $(c["rear_l.strut.length"])
    if (NR == 2 || lf < minf) minf = lf; if (NR == 2 || lf > maxf) maxf = lf
    if (NR == 2 || lr < minr) minr = lr; if (NR == 2 || lr > maxr) maxr = lr
}
END {
    bad = 0
    for (k = 1; k <= 4; k++) {
        printf "%s: %d lift-offs, peak load %.1f kN\n", w[k], lift[k], peak[k] / 1000
        if (lift[k] > 2) { print "FAIL: more than two lift-offs"; bad = 1 }
    }
    printf "front_l strut %.4f..%.4f m (stops %s, %s); rear_l strut %.4f..%.4f m (stops %s, %s)\n",
        minf, maxf, fb, fr, minr, maxr, rb, rr
    if (!(minf > fb && maxf < fr)) { print "FAIL: front strut reached a stop"; bad = 1 }
    if (!(minr > rb && maxr < rr)) { print "FAIL: rear strut reached a stop"; bad = 1 }
    if (NR < 3000) { print "FAIL: short output"; bad = 1 }
    exit bad
}' "$out"
