#!/bin/sh
# deploy/build.sh - configure and build one flavour of rtvd.
#   deploy/build.sh [release|asan|tsan]   (default release)
# Build trees: build/ (release, -Werror), build-asan/ (ASan + UBSan), build-tsan/ (TSan).
set -eu
cd "$(dirname "$0")/.."
flavour=${1:-release}
case "$flavour" in
release) dir=build; opts="-DCMAKE_BUILD_TYPE=RelWithDebInfo" ;;
asan) dir=build-asan; opts="-DCMAKE_BUILD_TYPE=Debug -DVD_SANITIZE=ON" ;;
tsan) dir=build-tsan; opts="-DCMAKE_BUILD_TYPE=RelWithDebInfo -DVD_TSAN=ON" ;;
*) echo "usage: $0 [release|asan|tsan]" >&2; exit 2 ;;
esac
# shellcheck disable=SC2086
cmake -S . -B "$dir" -DVD_WERROR=ON $opts >/dev/null
cmake --build "$dir" -j "$(nproc)"
