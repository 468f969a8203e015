#!/bin/sh
# config/bench/callgrind.sh - instructions per step (valgrind callgrind, collection only
# inside vd_step) for the dense and the structured linear solve: stable numbers where the
# wall clock of a shared machine is not. A benchmark, not a test.
#
# usage: config/bench/callgrind.sh [RTVD] [MODEL.yaml ...]
#   RTVD   the rtvd binary (default build/app/rtvd); models default to the sedan and the
#          HMMWV. Environment: STEPS (default 200), METHOD (lsrt2 | lie, default lsrt2).
# Output: one line per model and path, and the top functions of the structured sedan run.
set -eu
cd "$(dirname "$0")/../.."
RTVD=${1:-build/app/rtvd}
[ $# -gt 0 ] && shift
MODELS=${*:-config/vehicles/sedan.yaml config/vehicles/hmmwv.yaml}
STEPS=${STEPS:-200}
METHOD=${METHOD:-lsrt2}
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind not installed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%-36s %-11s %14s %14s\n' model linear "instr/step" "vs structured"
for model in $MODELS; do
    s_ir=
    for linear in structured dense; do
        out=$tmp/$(basename "$model" .yaml)-$linear.cg
        # no warm-up beyond the bench's own: every collected call is a full step
        valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect=vd_step \
            "$RTVD" bench "$model" --linear "$linear" --solver "$METHOD" --relin 1 \
            --steps "$STEPS" --warmup 0 >/dev/null 2>&1
        ir=$(callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
        per=$((ir / STEPS))
        [ "$linear" = structured ] && s_ir=$per
        printf '%-36s %-11s %14d %13.1fx\n' "$(basename "$model")" "$linear" "$per" \
            "$(echo "$per $s_ir" | awk '{print $1 / $2}')"
    done
done
echo
echo "structured $(basename "$(echo "$MODELS" | cut -d' ' -f1)"): top functions (instructions per step)"
callgrind_annotate "$tmp/$(basename "$(echo "$MODELS" | cut -d' ' -f1)" .yaml)-structured.cg" 2>/dev/null |
    awk -v n="$STEPS" '/file:function/ {go = 1; next} go && NF >= 2 && $1 ~ /^[0-9,]+$/ {
        ir = $1; gsub(",", "", ir); fn = $NF; if (fn ~ /^\[/) fn = $(NF - 1);
        printf "  %10d  %s\n", ir / n, fn; if (++k == 15) exit }'
