#!/bin/bash
# deploy/rtvm/setup.sh - what the PREEMPT_RT guest test needs, from Debian's mirror (Debian 12
# host, root): qemu-system-x86, busybox-static, rt-tests (cyclictest), can-utils, kmod, cpio,
# and the RT kernel. The kernel is NOT installed on the host: its .deb (linux-image-rt-amd64's
# versioned image package) is downloaded and unpacked into $WORK/kroot, and depmod makes the
# modules.dep its postinst would have made. Idempotent and offline-friendly: nothing is
# fetched when the packages are installed and the kernel is unpacked already.
#   WORK  scratch dir (default /var/tmp/rtvd-rtvm)
# Exit: 0 ready; 1 something could not be installed or fetched (no network, no apt).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
WORK=${WORK:-/var/tmp/rtvd-rtvm}
PKGS="qemu-system-x86 busybox-static rt-tests can-utils kmod cpio iproute2 util-linux"

missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    [ "$(id -u)" = 0 ] || { echo "setup: need root to install:$missing" >&2; exit 1; }
    apt-get update -qq
    # --no-install-recommends keeps qemu small (no GUI, no firmware bundles)
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

if ! ls "$WORK"/kroot/lib/modules/*-rt-amd64/modules.dep >/dev/null 2>&1; then
    # resolve the meta package to the versioned image, e.g. linux-image-6.1.0-56-rt-amd64
    KPKG=$(apt-cache depends --important linux-image-rt-amd64 2>/dev/null |
        awk '/Depends: linux-image-/{print $2; exit}')
    if [ -z "$KPKG" ]; then
        apt-get update -qq
        KPKG=$(apt-cache depends --important linux-image-rt-amd64 |
            awk '/Depends: linux-image-/{print $2; exit}')
    fi
    [ -n "$KPKG" ] || { echo "setup: linux-image-rt-amd64 not known to apt" >&2; exit 1; }
    mkdir -p "$WORK/debs"
    (cd "$WORK/debs" && rm -f ./*.deb && apt-get download -q "$KPKG" 2>&1 |
        grep -v '^W: Download is performed unsandboxed' || true)
    ls "$WORK"/debs/"$KPKG"_*.deb >/dev/null 2>&1 || { echo "setup: could not download $KPKG" >&2; exit 1; }
    rm -rf "$WORK/kroot"
    dpkg-deb -x "$WORK"/debs/"$KPKG"_*.deb "$WORK/kroot"
    depmod -b "$WORK/kroot" "$(ls "$WORK/kroot/lib/modules")"
fi
echo "setup: RT kernel $(ls "$WORK/kroot/lib/modules") unpacked in $WORK/kroot"
dpkg-query -W qemu-system-x86 busybox-static rt-tests
