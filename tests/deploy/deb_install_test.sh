#!/bin/bash
# tests/deploy/deb_install_test.sh BUILD - the package on a clean Debian 12, as an operator
# installs it: a throwaway copy (overlayfs) of a cached debootstrap root
# (deploy/pkg/debroot.sh: minbase + systemd, udev, man-db and the package's Depends), then in
# a chroot: dpkg -i; the files in place, the user rtvd (system, no login) and its udev rule;
# `systemd-analyze verify` of both units (binary, man pages and all as installed);
# `rtvd check` and a 2 s `rtvd run` of the installed /etc/rtvd/run.yaml as user rtvd with the
# unit's capabilities and limits (setpriv/prlimit, as systemd would set them), its reports in
# /var/lib/rtvd/run; an upgrade over a locally edited /etc/rtvd/run.yaml (kept); dpkg -r (the
# conffile stays) and dpkg -P (nothing of the package is left: the root's file list equals
# the one before the install, but for dpkg's own records and the user, which Debian keeps).
# Uses BUILD/package/*.deb from deb_package_test.
# Exit 0 pass, 1 fail, 77 skip: no root can be made here (no debootstrap, no network for the
# first download, not root).
set -u
BUILD=$(readlink -f "${1:?usage: deb_install_test.sh BUILD}")
SRC=$(cd "$(dirname "$0")/../.." && pwd)
DEB=$(ls "$BUILD"/package/rtvd_*_amd64.deb 2>/dev/null | head -1)
UPG=$(ls "$BUILD"/package/upgrade/rtvd_*_amd64.deb 2>/dev/null | head -1)
[ -n "$DEB" ] && [ -n "$UPG" ] || { echo "FAIL: no package in $BUILD/package (deb_package_test first)"; exit 1; }
ROOT=${DEBROOT:-/var/tmp/rtvd-debroot}
t0=$SECONDS
if ! "$SRC/deploy/pkg/debroot.sh" "$DEB" "$ROOT"; then
    echo "deb_install: SKIPPED: no Debian 12 root can be made here (debootstrap, network or root missing; see above)"
    exit 77
fi
echo "deb_install: root ready after $((SECONDS - t0)) s"
T=$(mktemp -d /var/tmp/rtvd-install.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/upper" "$T/work" "$T/root"
cp "$DEB" "$T/rtvd.deb"
cp "$UPG" "$T/rtvd-upgrade.deb"

# everything below in a private mount namespace: the overlay and the API file systems vanish
# with it, the cached root is never written
unshare --mount --propagation private bash -s "$T" "$ROOT" <<'IN'
set -u
T=$1 ROOT=$2
R=$T/root
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
if ! mount -t overlay overlay -o "lowerdir=$ROOT,upperdir=$T/upper,workdir=$T/work" "$R" 2>/dev/null; then
    echo "deb_install: no overlayfs here: copying the root"
    rmdir "$R" && cp -a "$ROOT" "$R" || { echo "FAIL: copying the root"; exit 1; }
fi
mount -t proc proc "$R/proc"
mount --rbind /dev "$R/dev"
mount -t sysfs sys "$R/sys"
mount -t tmpfs tmp "$R/tmp"
mount -t tmpfs run "$R/run"
cp "$T/rtvd.deb" "$T/rtvd-upgrade.deb" "$R/tmp/"
inr() { chroot "$R" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 "$@"; }
# the file list of the clean box (what purge must return to)
snap() { (cd "$R" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./tmp -o -path ./run \) -prune -o -print | sort); }
snap >"$T/before"

echo "== dpkg -i $(basename "$T/rtvd.deb")"
inr dpkg -i /tmp/rtvd.deb || fail "dpkg -i"
inr dpkg-query -W -f='${Package} ${Version} ${Status}\n' rtvd
for f in /usr/bin/rtvd /etc/rtvd/run.yaml /lib/systemd/system/rtvd.service \
    /lib/systemd/system/rtvd@.service /lib/udev/rules.d/60-rtvd.rules \
    /usr/lib/sysusers.d/rtvd.conf /usr/lib/tuned/rtvd/tuned.conf \
    /usr/share/rtvd/config/scenarios/hil_default.yaml /usr/share/man/man1/rtvd-run.1.gz; do
    [ -f "$R$f" ] || fail "$f not installed"
done
pw=$(inr getent passwd rtvd)
echo "user: $pw; group: $(inr getent group rtvd)"
uid=$(echo "$pw" | cut -d: -f3)
[ -n "$uid" ] && [ "$uid" -lt 1000 ] && echo "$pw" | grep -q ':/var/lib/rtvd:/usr/sbin/nologin$' ||
    fail "rtvd is not a system user without login: $pw"
inr man -w rtvd-run >/dev/null || fail "man rtvd-run"
inr man -w rtvd-check >/dev/null || fail "man rtvd-check"

echo "== systemd-analyze verify rtvd.service rtvd@bench1.service"
inr systemd-analyze verify rtvd.service rtvd@bench1.service >"$T/verify.txt" 2>&1
vrc=$?
cat "$T/verify.txt"
[ $vrc = 0 ] && [ ! -s "$T/verify.txt" ] || fail "systemd-analyze verify: exit $vrc"
echo "== systemd-analyze security rtvd.service (installed)"
inr systemd-analyze security --offline=yes --no-pager rtvd.service | tail -n 1

# the unit's ExecStartPre and ExecStart, as user rtvd with the unit's capabilities and
# limits (what systemd sets before it execs; the unit file is read for them, not retyped)
unit=$R/lib/systemd/system/rtvd.service
# each unit its own runtime directory: systemd removes a unit's innermost RuntimeDirectory at
# its stop, so rtvd.service with a plain rtvd would remove every rtvd@NAME's (their sockets)
[ "$(sed -n 's/^RuntimeDirectory=//p' "$unit")" = rtvd/main ] &&
    [ "$(sed -n 's/^RuntimeDirectory=//p' "$R/lib/systemd/system/rtvd@.service")" = 'rtvd/%i' ] ||
    fail "RuntimeDirectory: rtvd/main and rtvd/%i expected"
caps=$(sed -n 's/^AmbientCapabilities=//p' "$unit" | tr 'A-Z ' 'a-z,' | sed 's/cap_//g; s/,$//')
pcaps=$(echo "$caps" | sed 's/\([a-z_]*\)/+\1/g')
rtprio=$(sed -n 's/^LimitRTPRIO=//p' "$unit")
memlock=$(sed -n 's/^LimitMEMLOCK=//p' "$unit")
[ "$memlock" = infinity ] && memlock=unlimited
pre=$(sed -n 's/^ExecStartPre=-//p' "$unit")
start=$(sed -n 's/^ExecStart=//p' "$unit")
echo "unit: User=rtvd, AmbientCapabilities=$caps, LimitRTPRIO=$rtprio, LimitMEMLOCK=$memlock"
# raising a hard limit needs CAP_SYS_RESOURCE, which systemd has and a container may not:
# then the limits stay as they are (the capabilities alone grant SCHED_FIFO and mlockall)
limits="--rtprio=$rtprio --memlock=$memlock"
if ! prlimit $limits -- true 2>/dev/null; then
    echo "note: LimitRTPRIO/LimitMEMLOCK cannot be raised here (no CAP_SYS_RESOURCE): limits as they are"
    limits=""
fi
asunit() {
    inr mkdir -p /var/lib/rtvd && inr chown rtvd:rtvd /var/lib/rtvd
    # shellcheck disable=SC2086
    chroot "$R" env -i PATH=/usr/bin:/bin LC_ALL=C.UTF-8 \
        prlimit $limits -- \
        setpriv --reuid=rtvd --regid=rtvd --init-groups --inh-caps="$pcaps" \
        --ambient-caps="$pcaps" --bounding-set="$pcaps" -- "$@"
}
echo "== $pre (as the unit runs it)"
# shellcheck disable=SC2086
asunit $pre >"$T/check.txt" 2>&1
cat "$T/check.txt"
grep -q 'PASS  memlock: CAP_IPC_LOCK' "$T/check.txt" && grep -q 'PASS  rtprio: CAP_SYS_NICE' "$T/check.txt" ||
    fail "rtvd check did not see the unit's capabilities"
echo "== $start --duration 2 --policy skip (as the unit runs it, 2 s)"
# shellcheck disable=SC2086
(cd "$R/var/lib/rtvd" && asunit $start --duration 2 --policy skip) >"$T/run.txt" 2>&1
rrc=$?
cat "$T/run.txt"
[ $rrc = 0 ] || fail "rtvd run exit $rrc"
grep -q 'scenario hil-default (/usr/share/rtvd/config/scenarios/hil_default.yaml)' "$T/run.txt" ||
    fail "not the installed run.yaml's scenario"
for f in rtvd-report.json rtvd-latency.hist; do
    [ -s "$R/var/lib/rtvd/run/$f" ] || fail "/var/lib/rtvd/run/$f not written"
done
[ "$(inr stat -c %U /var/lib/rtvd/run/rtvd-report.json)" = rtvd ] || fail "report not owned by rtvd"

echo "== upgrade over a locally edited conffile"
echo "# bench 7: local change" >>"$R/etc/rtvd/run.yaml"
inr dpkg -i /tmp/rtvd-upgrade.deb || fail "dpkg -i (upgrade)"
inr dpkg-query -W -f='${Package} ${Version} ${Status}\n' rtvd
grep -q '^# bench 7: local change$' "$R/etc/rtvd/run.yaml" || fail "the edited conffile was replaced"
[ -f "$R/etc/rtvd/run.yaml.dpkg-new" ] && fail "a .dpkg-new beside an unchanged conffile"

echo "== dpkg -r rtvd"
inr dpkg -r rtvd || fail "dpkg -r"
[ -e "$R/usr/bin/rtvd" ] && fail "/usr/bin/rtvd left after remove"
[ -e "$R/lib/systemd/system/rtvd.service" ] && fail "the unit left after remove"
[ -f "$R/etc/rtvd/run.yaml" ] || fail "remove took the conffile"
inr dpkg-query -W -f='${Package} ${Status}\n' rtvd
echo "== dpkg -P rtvd"
inr dpkg -P rtvd || fail "dpkg -P"
inr dpkg-query -W rtvd 2>/dev/null && fail "rtvd still known to dpkg"
snap >"$T/after"
# dpkg's and man-db's own records, the user Debian keeps, and files this test made
diff "$T/before" "$T/after" | grep '^[<>]' |
    grep -vE '^[<>] \./var/(lib/dpkg|cache/man|log|cache/debconf)(/|$)' |
    grep -vE '^[<>] \./etc/(passwd|group|shadow|gshadow|subuid|subgid)-?$' |
    grep -vE '^[<>] \./var/lib/systemd/deb-systemd-helper-(enabled|masked)$' >"$T/left"
if [ -s "$T/left" ]; then
    cat "$T/left"
    fail "purge left the box different"
else
    echo "purge: the root's file list equals the one before the install (but dpkg's records and the kept user)"
fi
umount -R "$R" 2>/dev/null
exit $((fails > 0))
IN
rc=$?
echo "deb_install: $([ $rc = 0 ] && echo passed || echo FAILED) in $((SECONDS - t0)) s"
exit $rc
