#!/bin/sh
# deploy/build.sh - configure and build one flavour of rtvd.
#   deploy/build.sh [release|asan|tsan]   (default release)
# Build trees: build/ (release with debug info), build-asan/ (ASan + UBSan, -O1),
# build-tsan/ (TSan). All with -Werror.
set -eu
cd "$(dirname "$0")/.."
case "${1:-release}" in
release)
    dir=build
    cmake -S . -B "$dir" -DVD_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null ;;
asan)
    dir=build-asan
    cmake -S . -B "$dir" -DVD_WERROR=ON -DVD_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug \
        -DCMAKE_C_FLAGS_DEBUG="-g -O1" >/dev/null ;;
tsan)
    dir=build-tsan
    cmake -S . -B "$dir" -DVD_WERROR=ON -DVD_TSAN=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null ;;
*)
    echo "usage: $0 [release|asan|tsan]" >&2
    exit 2 ;;
esac
cmake --build "$dir" -j "$(nproc)"
