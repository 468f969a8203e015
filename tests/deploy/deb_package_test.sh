#!/bin/bash
# tests/deploy/deb_package_test.sh BUILD RTVD - the Debian package from the build tree the
# other tests ran on (CPack, deploy/pkg/CMakeLists.txt): it builds; it holds exactly the
# layout of deploy/pkg (binary, every shipped config file, conffile, units, udev rule,
# sysusers, tuned profile, man pages, docs); /etc/rtvd/run.yaml is its only conffile; every
# library the binary needs comes from a package its Depends names, the serial OpenBLAS among
# them; the binary is stripped, BIND_NOW, with the one RPATH; lintian (--pedantic) reports no
# error and no warning beyond the justified overrides, and its full output is printed; the
# unit's `systemd-analyze security` is printed. Leaves BUILD/package/rtvd_*.deb (and an
# upgrade build, version +1) for deb_install_test.
# Exit 0 pass, 1 fail, 77 skip (cpack or dpkg-deb missing: no package can be built here).
set -u
BUILD=$(readlink -f "${1:?usage: deb_package_test.sh BUILD RTVD}")
RTVD=$(readlink -f "$2")
SRC=$(cd "$(dirname "$0")/../.." && pwd)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
command -v cpack >/dev/null && command -v dpkg-deb >/dev/null ||
    { echo "deb_package: SKIPPED: cpack or dpkg-deb not installed"; exit 77; }
[ -f "$BUILD/CPackConfig.cmake" ] || { echo "FAIL: no CPackConfig.cmake in $BUILD (help2man missing at configure time? deploy/install-deps.sh)"; exit 1; }
out=$BUILD/package
rm -rf "$out"
mkdir -p "$out"
t0=$SECONDS
cpack --config "$BUILD/CPackConfig.cmake" -B "$out" >"$out/cpack.log" 2>&1 ||
    { cat "$out/cpack.log"; echo "FAIL: cpack"; exit 1; }
ver=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")/\1/p' "$BUILD/CPackConfig.cmake")
deb=$out/rtvd_${ver}_amd64.deb
[ -f "$deb" ] || { ls "$out"; echo "FAIL: $deb not built"; exit 1; }
# the upgrade the install test installs over it: same tree, a higher version
cpack --config "$BUILD/CPackConfig.cmake" -B "$out/upgrade" -D CPACK_PACKAGE_VERSION="$ver+1" \
    >"$out/cpack-upgrade.log" 2>&1 || { cat "$out/cpack-upgrade.log"; fail "cpack (upgrade)"; }
echo "deb_package: $(basename "$deb") ($(stat -c %s "$deb") bytes) built in $((SECONDS - t0)) s"
dpkg-deb -I "$deb"

# 1. contents: the layout, and every shipped config file (the embedded table) under
# /usr/share/rtvd
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' | sort >"$out/contents"
echo "deb_package: $(grep -vc '/$' "$out/contents") files:"
grep -v '/$' "$out/contents" | grep -v '^/usr/share/rtvd/config/[a-z]*/..*' | sed 's/^/  /'
echo "  /usr/share/rtvd/config/*/...: $(grep -c '^/usr/share/rtvd/config/[a-z]*/[^/]*[^/]$' "$out/contents") files"
for f in /usr/bin/rtvd /etc/rtvd/run.yaml /lib/systemd/system/rtvd.service \
    /lib/systemd/system/rtvd@.service /lib/udev/rules.d/60-rtvd.rules \
    /usr/lib/sysusers.d/rtvd.conf /usr/lib/tuned/rtvd/tuned.conf \
    /usr/share/doc/rtvd/copyright /usr/share/doc/rtvd/changelog.gz /usr/share/doc/rtvd/README.md \
    /usr/share/doc/rtvd/core/NUMERICS.md /usr/share/doc/rtvd/io/MOTION_DATAGRAMS.md \
    /usr/share/lintian/overrides/rtvd /usr/share/man/man1/rtvd.1.gz; do
    grep -qx "$f" "$out/contents" || fail "missing $f"
done
# a man page per command rtvd --help lists
cmds=$("$RTVD" --help | awk '/^commands:/ {on = 1; next} on && /^  [a-z]+ / {print $1}')
[ -n "$cmds" ] || fail "no commands in rtvd --help"
for c in $cmds; do
    grep -qx "/usr/share/man/man1/rtvd-$c.1.gz" "$out/contents" || fail "no man page rtvd-$c(1)"
done
echo "deb_package: man pages for rtvd and its commands:" $cmds
while read -r f; do
    grep -qx "/usr/share/rtvd/$f" "$out/contents" || fail "shipped config $f missing"
done <"$BUILD/app/embedded_files.txt"
n_cfg=$(grep -c '^/usr/share/rtvd/config/[a-z]*/[^/]*[^/]$' "$out/contents")
[ "$n_cfg" = "$(grep -c . "$BUILD/app/embedded_files.txt")" ] ||
    fail "$n_cfg config files in the package, $(grep -c . "$BUILD/app/embedded_files.txt") embedded"
x=$(mktemp -d)
trap 'rm -rf "$x"' EXIT
dpkg-deb -R "$deb" "$x"
[ "$(cat "$x/DEBIAN/conffiles")" = "/etc/rtvd/run.yaml" ] ||
    fail "conffiles: $(cat "$x/DEBIAN/conffiles")"
cmp -s "$x/etc/rtvd/run.yaml" "$SRC/deploy/pkg/run.yaml" || fail "run.yaml differs from deploy/pkg"
for s in postinst prerm postrm; do
    [ -x "$x/DEBIAN/$s" ] && sh -n "$x/DEBIAN/$s" || fail "maintainer script $s"
done

# 2. Depends: each library the binary names (DT_NEEDED, resolved as the loader does, the
# RPATH honoured) belongs to a package the Depends field names; the serial OpenBLAS
# explicitly, and liblapack.so.3 (liblapacke's) from it through the RPATH
depends=$(dpkg-deb -f "$deb" Depends)
echo "deb_package: Depends: $depends"
echo "$depends" | tr ',' '\n' | grep -qx ' *libopenblas0-serial' || fail "Depends lacks libopenblas0-serial"
names=$(echo "$depends" | tr ',|' '\n\n' | sed 's/(.*)//; s/ //g')
ldd "$x/usr/bin/rtvd" | awk '$2 == "=>" {print $1, $3}' >"$out/ldd"
for lib in $(readelf -d "$x/usr/bin/rtvd" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    path=$(awk -v l="$lib" '$1 == l {print $2}' "$out/ldd")
    [ -n "$path" ] || { fail "$lib not found by the loader"; continue; }
    pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null || dpkg -S "$path" 2>/dev/null)
    pkg=${pkg%%:*}
    pkg=${pkg%%,*}
    echo "$names" | grep -qx "$pkg" || fail "$lib from ${pkg:-no package}, not in Depends"
    echo "  NEEDED $lib -> $(readlink -f "$path") ($pkg)"
done
grep -q 'openblas-serial/libopenblas.so.0' "$out/ldd" || fail "not the serial OpenBLAS"
grep -q 'openblas-serial/liblapack.so.3' "$out/ldd" || fail "liblapack.so.3 not from openblas-serial"
readelf -d "$x/usr/bin/rtvd" | grep -q 'Library rpath: \[/usr/lib/x86_64-linux-gnu/openblas-serial\]$' ||
    fail "RPATH: $(readelf -d "$x/usr/bin/rtvd" | grep -i rpath)"
readelf -d "$x/usr/bin/rtvd" | grep -q 'Flags: NOW' || fail "not BIND_NOW"
readelf -S "$x/usr/bin/rtvd" | grep -q '\.symtab' && fail "binary not stripped"
"$x/usr/bin/rtvd" --version | grep -q "^rtvd $ver " || fail "the packaged binary does not run"

# 3. lintian, all tags shown; errors and warnings fail (the overrides are in the package)
if command -v lintian >/dev/null; then
    lintian --pedantic --info --display-info --show-overrides --tag-display-limit 0 "$deb" \
        >"$out/lintian.txt" 2>&1
    echo "deb_package: lintian --pedantic --info --show-overrides:"
    grep -E '^[EWIPXO]: ' "$out/lintian.txt" | sed 's/^/  /'
    grep -qE '^[EWIPX]: ' "$out/lintian.txt" || echo "  (no tags but the overridden ones above)"
    grep -E '^[EW]: ' "$out/lintian.txt" && fail "lintian errors or warnings"
else
    fail "lintian is not installed (deploy/install-deps.sh installs it)"
fi

# 4. the units' exposure as systemd rates it (offline; verify needs the installed root:
# deb_install_test)
for u in rtvd.service rtvd@.service; do
    systemd-analyze security --offline=yes --no-pager "$x/lib/systemd/system/$u" >"$out/security-$u.txt" 2>&1
    echo "deb_package: systemd-analyze security $u: $(grep 'Overall exposure' "$out/security-$u.txt")"
done
grep '✗' "$out/security-rtvd.service.txt" | sed 's/^/  /'
level=$(sed -n 's/.*Overall exposure level for rtvd.service: \([0-9.]*\) .*/\1/p' "$out/security-rtvd.service.txt")
# systemd's scale: < 2 SAFE ... < 5 MEDIUM; the service needs network, CAP_SYS_NICE,
# CAP_IPC_LOCK and one device, which alone cost ~1.5; 3.0 is the bound it must stay under
awk -v l="${level:-99}" 'BEGIN {exit !(l < 3.0)}' || fail "exposure ${level:-unknown} >= 3.0"

[ $fails = 0 ] && echo "deb_package: passed" || echo "deb_package: $fails failures"
exit $((fails > 0))
