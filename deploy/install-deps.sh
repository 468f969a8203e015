#!/bin/sh
# deploy/install-deps.sh - install rtvd's build and test dependencies on Debian 12 (root).
# Idempotent: apt-get only installs what is missing; safe to run on every build.
#   --runtime-only   skip the test-only packages (valgrind, python3, sanitizer runtimes)
set -eu

if [ "$(id -u)" != 0 ]; then
    echo "install-deps: must run as root (apt-get)" >&2
    exit 1
fi

# build: compiler, cmake, and the customer-fixed libraries. OpenBLAS comes as the serial
# (single-threaded) variant: rtvd links against it directly (see CMakeLists.txt), so the
# threaded default alternative never runs inside the RT loop.
# libsundials-dev: CVODE for the validation reference solver (rtvd sim --solver cvode): a
# well-kept stiff integrator beats writing one; app-only, never in the RT path.
# libsuitesparse-dev: KLU, the sparse direct solver SUNDIALS' sunlinsol_klu (in
# libsundials-dev) calls for CVODE's Newton systems: a full vehicle runs in minutes instead
# of hours with the dense LU.
BUILD="build-essential cmake pkg-config git
       liblapacke-dev libopenblas-dev libopenblas0-serial
       libyaml-dev libsocketcan-dev
       libsundials-dev libsuitesparse-dev"
# tests: valgrind (callgrind instruction counts), python3 for the validation scripts,
# python3-canmatrix as the independent DBC oracle, python3-matplotlib for the validation
# plots (tests/validation/validate.py --plots)
TEST="valgrind python3 python3-canmatrix python3-matplotlib"

pkgs="$BUILD"
[ "${1:-}" = "--runtime-only" ] || pkgs="$pkgs $TEST"

missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
if [ -n "$missing" ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing
fi
echo "install-deps: all packages present"
