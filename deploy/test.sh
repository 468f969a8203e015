#!/bin/sh
# deploy/test.sh - the README's second command (and CI's): install the dependencies, build
# with -Werror, and pass every test in the release build (its numerical tests once more per
# OpenBLAS kernel family the CPU can execute: tests/blas_kernels.sh) and in the ASan+UBSan
# build; the real-time layer's lock-free exchange and loop threads also under
# ThreadSanitizer; last the PREEMPT_RT guests (QEMU, 1-2.5 min each; ctest reports them skipped only
# where no guest can run).
set -eu
cd "$(dirname "$0")/.."
./deploy/install-deps.sh
for flavour in release asan tsan; do
    echo "== $flavour build"
    ./deploy/build.sh "$flavour"
done
echo "== release tests"
ctest --test-dir build --output-on-failure -j 2 -LE rtvm
echo "== numerical tests with every OpenBLAS kernel this CPU can run (OPENBLAS_CORETYPE)"
./tests/blas_kernels.sh build
echo "== ASan + UBSan tests"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j 2
echo "== TSan: rings, mailboxes, loop and telemetry threads"
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    ctest --test-dir build-tsan --output-on-failure -L rt_stress
echo "== PREEMPT_RT guest: cyclictest and rtvd run on an isolated vCPU; the package under systemd (deploy/rtvm)"
ctest --test-dir build --output-on-failure -L rtvm
echo "== all tests passed"
