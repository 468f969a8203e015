#!/bin/bash
# deploy/pkg/debroot.sh DEB [ROOT] - a clean Debian 12 root for the package's install test
# (tests/deploy/deb_install_test.sh), cached: debootstrap --variant=minbase of bookworm with
# what every Debian 12 server has for a service (systemd, udev, man-db), then the
# dependencies the .deb declares (its Depends field, so a new dependency is fetched once
# and the root stays in step with the package). The test works on a throwaway copy; this
# root is never modified by it.
#   ROOT default /var/tmp/rtvd-debroot (DEBROOT overrides); MIRROR default deb.debian.org
# Idempotent and offline-friendly: nothing is fetched when the root has everything already.
# Exit: 0 ready; 1 it cannot be made here (no debootstrap, no network, not root).
set -euo pipefail
DEB=$(readlink -f "${1:?usage: debroot.sh DEB [ROOT]}")
ROOT=${2:-${DEBROOT:-/var/tmp/rtvd-debroot}}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
export DEBIAN_FRONTEND=noninteractive LC_ALL=C

# the packages the .deb needs, without versions and alternatives' second choices
deps=$(dpkg-deb -f "$DEB" Depends | tr ',' '\n' | sed 's/|.*//; s/(.*)//; s/ //g' | grep -v '^$')
missing() {
    local m=""
    for p in $deps; do
        chroot "$ROOT" dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
            m="$m $p"
    done
    echo "$m"
}

if [ ! -x "$ROOT/usr/bin/dpkg" ] || [ ! -f "$ROOT/.rtvd-debroot-complete" ]; then
    [ "$(id -u)" = 0 ] || { echo "debroot: need root for debootstrap" >&2; exit 1; }
    command -v debootstrap >/dev/null || { echo "debroot: debootstrap is not installed" >&2; exit 1; }
    rm -rf "$ROOT"
    mkdir -p "$ROOT"
    echo "debroot: debootstrap bookworm into $ROOT (once; a few minutes)"
    debootstrap --variant=minbase --include=systemd,udev,man-db,init-system-helpers \
        bookworm "$ROOT" "$MIRROR" >"$ROOT.log" 2>&1 ||
        { tail -n 5 "$ROOT.log" >&2; rm -rf "$ROOT"; exit 1; }
    touch "$ROOT/.rtvd-debroot-complete"
fi
m=$(missing)
if [ -n "$m" ]; then
    echo "debroot: installing the package's dependencies into $ROOT:$m"
    # shellcheck disable=SC2086
    unshare --mount --propagation private sh -c "
        mount -t proc proc '$ROOT/proc' &&
        chroot '$ROOT' apt-get update -qq &&
        chroot '$ROOT' apt-get install -y -qq --no-install-recommends $m &&
        chroot '$ROOT' apt-get clean" >"$ROOT.deps.log" 2>&1 ||
        { tail -n 5 "$ROOT.deps.log" >&2; exit 1; }
    m=$(missing)
    [ -z "$m" ] || { echo "debroot: still missing:$m" >&2; exit 1; }
fi
echo "debroot: $ROOT ready: Debian $(cat "$ROOT/etc/debian_version"), $(chroot "$ROOT" dpkg-query -W | wc -l) packages"
