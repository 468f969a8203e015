#!/bin/sh
# tests/blas_kernels.sh [BUILD_DIR] - the numerical tests once per OpenBLAS kernel family this
# CPU can execute, selected with OPENBLAS_CORETYPE: a tolerance fitted to one machine's
# rounding fails here (dense vs structured did at 1e-10 with the Haswell and Zen kernels).
# The tests that call LAPACK/BLAS (ctest label blas) run with every family; all numerical
# tests (label numeric, without the minute-long validation) with the generic SSE3 kernels
# (Prescott), Haswell's (AVX2/FMA) and the ones OpenBLAS picks by itself: the other numeric
# tests never reach OpenBLAS, and these runs show it. A family is tried only when
# /proc/cpuinfo has every instruction set its kernels use (forcing AVX-512 kernels on a CPU
# without them dies of SIGILL), and OpenBLAS must report the family it was asked for (the
# probe: test_blocklu --blas), else it is listed as not selectable by this OpenBLAS. Prints
# per test the worst error/tolerance over the kernels (each test prints its own,
# tests/check.h) and exits 1 if any run failed. KERNELS="Prescott Haswell" limits the
# families.
set -u
cd "$(dirname "$0")/.."
build=${1:-build}
probe="$build/tests/core/test_blocklu"
[ -x "$probe" ] || { echo "blas_kernels: $probe missing: build first" >&2; exit 2; }
flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
has() { # every flag of a comma-separated list in /proc/cpuinfo
    for f in $(echo "$1" | tr , ' '); do
        case "$flags" in *" $f "*) ;; *) return 1 ;; esac
    done
}
# family:flags (OpenBLAS 0.3 x86_64 DYNAMIC_ARCH kernels; sse3 is "pni" in cpuinfo; the AMD
# families before Zen use FMA4/XOP or 3DNow! prefetches)
avx512="avx512f,avx512cd,avx512bw,avx512dq,avx512vl"
table="Prescott:pni Core2:ssse3 Penryn:sse4_1 Dunnington:sse4_1 Nehalem:sse4_2 Atom:ssse3
Sandybridge:avx Haswell:avx2,fma Zen:avx2,fma SkylakeX:$avx512 Cooperlake:$avx512,avx512_bf16
Opteron:3dnow,pni Barcelona:sse4a Bobcat:sse4a,ssse3 Bulldozer:avx,fma4,xop
Piledriver:avx,fma,fma4,xop Steamroller:avx,fma,fma4,xop Excavator:avx2,fma,fma4,xop"
wanted=${KERNELS:-$(for e in $table; do echo "${e%%:*}"; done)}
native=$(env -u OPENBLAS_CORETYPE "$probe" --blas)
native_core=$(echo "$native" | awk '{for (i = 1; i < NF; i++) if ($(i + 1) ~ /THREAD/) print $i}')
echo "== OpenBLAS kernels: $native (chosen by OpenBLAS on this CPU: $native_core)"
logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT
fails=0
ran=""
full="Prescott Haswell $native_core"
run() { # $1 = family (OPENBLAS_CORETYPE exported or unset by the caller), $2 = label
    if ctest --test-dir "$build" -L "$2" -LE validation -j 2 --output-on-failure \
        >"$logdir/$1.out" 2>&1; then
        echo "   $1 ($2): $(grep -E 'tests passed' "$logdir/$1.out")"
    else
        echo "   $1 ($2): FAILED"
        cat "$logdir/$1.out"
        fails=$((fails + 1))
    fi
    cp "$build/Testing/Temporary/LastTest.log" "$logdir/$1.log"
    ran="$ran $1"
}
label() { # numeric for the families of $full, blas for the others
    case " $full " in *" $1 "*) echo numeric ;; *) echo blas ;; esac
}
for fam in $wanted; do
    req=$(for e in $table; do [ "${e%%:*}" = "$fam" ] && echo "${e#*:}"; done)
    if [ -z "$req" ]; then
        echo "   $fam: unknown family" >&2
        fails=$((fails + 1))
        continue
    fi
    if ! has "$req"; then
        echo "   $fam: skipped, the CPU lacks $(for f in $(echo "$req" | tr , ' '); do
            has "$f" || printf '%s ' "$f"; done)"
        continue
    fi
    got=$(OPENBLAS_CORETYPE=$fam "$probe" --blas 2>/dev/null)
    case " $got " in
    *" $fam "*) ;;
    *)
        echo "   $fam: not selectable by name in this OpenBLAS (it ran: $got)"
        continue
        ;;
    esac
    OPENBLAS_CORETYPE=$fam
    export OPENBLAS_CORETYPE
    run "$fam" "$(label "$fam")"
    unset OPENBLAS_CORETYPE
done
case " $ran " in
*" $native_core "*) ;;
*) run "$native_core" numeric ;;
esac
# the worst error/tolerance per test over the kernels
echo "== worst error/tolerance per test (1 = at the tolerance) over:$ran"
cat "$logdir"/*.log | awk '/: worst error\/tolerance /{
        t = $1; sub(":", "", t); v = $4 + 0; where = $5
        if (!(t in w) || v > w[t]) { w[t] = v; at[t] = where }
    }
    END { for (t in w) printf "   %-16s %.3g %s\n", t, w[t], at[t] }' | sort
if [ "$fails" -ne 0 ]; then
    echo "== blas_kernels: $fails kernel run(s) failed"
    exit 1
fi
echo "== blas_kernels: numerical tests green with every kernel:$ran"
