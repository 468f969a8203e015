#!/bin/sh
# deploy/test.sh - the README's second command (and CI's): install the dependencies, build
# with -Werror, and pass every test in the release build and in the ASan+UBSan build.
set -eu
cd "$(dirname "$0")/.."
./deploy/install-deps.sh
for flavour in release asan; do
    echo "== $flavour build"
    ./deploy/build.sh "$flavour"
done
echo "== release tests"
ctest --test-dir build --output-on-failure -j 2
echo "== ASan + UBSan tests"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j 2
echo "== all tests passed"
