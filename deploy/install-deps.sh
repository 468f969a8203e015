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
# libsundials-dev: CVODE for the validation reference solver (rtvd sim --solver cvode) and
# IDA for models with ideal joints (--solver ida): well-kept stiff integrators beat writing
# them; app-only, never in the RT path.
# libmicrohttpd-dev: the HTTP server of rtvd monitor's web view and Prometheus /metrics
# (chosen over civetweb: a small C API with an external-select mode, so the monitor's one
# thread serves HTTP beside its UDP sockets with no server thread and no lock; GNU, widely
# deployed and security-maintained in Debian). libjansson-dev: the monitor parses status
# datagrams from the network with it (depth limits, exact error codes) and builds its JSON.
# librsvg2-bin: rsvg-convert turns the SVG that rtvd plot writes into PNG (the SVG itself needs
# nothing; a renderer of SVG is not worth writing).
# libsuitesparse-dev: KLU, the sparse direct solver SUNDIALS' sunlinsol_klu (in
# libsundials-dev) calls for CVODE's Newton systems: a full vehicle runs in minutes instead
# of hours with the dense LU.
# help2man: the package's man pages from each command's --help (deploy/pkg), as Debian does
# for programs without hand-written pages.
BUILD="build-essential cmake pkg-config git
       liblapacke-dev libopenblas-dev libopenblas0-serial
       libyaml-dev libsocketcan-dev
       libsundials-dev libsuitesparse-dev
       libmicrohttpd-dev libjansson-dev
       librsvg2-bin
       help2man"
# tests: valgrind (callgrind instruction counts), python3 for the validation scripts,
# python3-canmatrix as the independent DBC oracle, python3-matplotlib for the validation
# plots (tests/validation/validate.py --plots), python3-numpy for the enveloping comparison's
# spectra (tests/validation/enveloping.py)
# chromium + python3-pil: the monitor's web view is tested in a real headless browser, its
# screenshot read pixel by pixel (tests/app/monitor_web_test.sh); prometheus: /metrics is
# scraped by a real Prometheus on loopback (tests/app/prometheus_test.sh)
# lintian: the package is checked as Debian checks packages (tests/deploy/deb_package_test.sh);
# debootstrap: a clean Debian 12 root for the package's install test (deploy/pkg/debroot.sh)
TEST="valgrind python3 python3-canmatrix python3-matplotlib python3-numpy
      chromium python3-pil prometheus
      lintian debootstrap"

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
