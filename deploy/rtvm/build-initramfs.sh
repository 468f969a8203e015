#!/bin/bash
# deploy/rtvm/build-initramfs.sh RTVD - a minimal initramfs for Debian's PREEMPT_RT kernel:
# busybox-static, the CAN modules with their dependencies (from the RT kernel's own tree),
# cyclictest, can-utils, iproute2's ip, chrt, taskset and rtvd, each with its shared
# libraries (ldd; rtvd's DT_RPATH to the serial OpenBLAS is kept by keeping the paths), and
# /init + /test.sh (guest-test.sh).
#   RTVD   the rtvd binary (argument 1)
#   WORK   scratch/output dir (default /var/tmp/rtvd-rtvm); KROOT defaults to $WORK/kroot
# Outputs: $WORK/vmlinuz, $WORK/initramfs.cpio.gz
# Extending (issue #6 and later): add modules to MODS, binaries to BINS, steps to
# guest-test.sh.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
RTVD=$(readlink -f "${1:?usage: build-initramfs.sh RTVD}")
WORK=${WORK:-/var/tmp/rtvd-rtvm}
KROOT=${KROOT:-$WORK/kroot}
KVER=${KVER:-$(ls "$KROOT/lib/modules" | grep -- '-rt-amd64$' | sort -V | tail -n 1)}
[ -n "$KVER" ] || { echo "no *-rt-amd64 module tree under $KROOT/lib/modules" >&2; exit 1; }
MODS="vcan can-raw"
BINS="/usr/bin/cyclictest /usr/bin/candump /usr/bin/cangen /usr/bin/cansend /usr/sbin/ip
      /usr/bin/chrt /usr/bin/taskset"

ST=$WORK/initramfs-root
rm -rf "$ST"
mkdir -p "$ST"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,etc,lib/modules/$KVER}

# busybox + applet symlinks
cp /bin/busybox "$ST/bin/busybox"
for a in $("$ST/bin/busybox" --list); do [ -e "$ST/bin/$a" ] || ln -s busybox "$ST/bin/$a"; done

# dynamic binaries + their libraries, at their own paths (busybox ash runs its applets before
# $PATH, so the guest script calls iproute2 as /usr/sbin/ip)
copy_with_libs() { # $1 = binary, $2 = path inside the initramfs (default: the same)
    install -D -m 0755 "$1" "$ST${2:-$1}"
    ldd "$1" | grep -o '/[^ ]*' | while read -r lib; do
        [ -e "$ST$lib" ] || install -D -m 0755 "$(readlink -f "$lib")" "$ST$lib"
    done
}
for b in $BINS; do copy_with_libs "$b"; done
copy_with_libs "$RTVD" /usr/bin/rtvd
# CAN transport test (issue #6, io/can.h): test_can_socketcan from rtvd's build tree (or
# $CANTEST), run by guest-test.sh's CAN section against vcan0 and can-utils
CANTEST=${CANTEST:-$(dirname "$RTVD")/../tests/io/test_can_socketcan}
if [ -x "$CANTEST" ]; then
    copy_with_libs "$(readlink -f "$CANTEST")" /usr/bin/test_can_socketcan
else
    echo "build-initramfs: $CANTEST not built: the guest's SocketCAN transport steps will fail" >&2
fi

# the HIL loop's candump checker (issue #6): can_logcheck from rtvd's build tree (or
# $LOGCHECK), run by guest-test.sh's HIL section on candump's log and rtvd's report
LOGCHECK=${LOGCHECK:-$(dirname "$RTVD")/../tests/app/can_logcheck}
if [ -x "$LOGCHECK" ]; then
    copy_with_libs "$(readlink -f "$LOGCHECK")" /usr/bin/can_logcheck
else
    echo "build-initramfs: $LOGCHECK not built: the guest's HIL check will fail" >&2
fi

# kernel modules + their modules.dep closure
MD=$KROOT/lib/modules/$KVER
need=""
resolve() { # $1 = module name (dash or underscore)
    local n=${1//_/-} path line
    path=$(find "$MD/kernel" -name "$n.ko*" -o -name "${n//-/_}.ko*" | head -n 1)
    [ -n "$path" ] || { echo "module $1 not found in $MD" >&2; exit 1; }
    path=${path#"$MD/"}
    case " $need " in *" $path "*) return ;; esac
    line=$(grep "^$path:" "$MD/modules.dep")
    for d in ${line#*:}; do resolve "$(basename "${d%%.ko*}")"; done
    need="$need $path"
}
for m in $MODS; do resolve "$m"; done
for p in $need; do install -D -m 0644 "$MD/$p" "$ST/lib/modules/$KVER/$p"; done
cp "$MD/modules.order" "$MD/modules.builtin" "$MD/modules.builtin.modinfo" \
    "$ST/lib/modules/$KVER/" 2>/dev/null || true
depmod -b "$ST" "$KVER"

# init: mount the basics, run the test, power off whatever happens
install -m 0755 "$HERE/guest-test.sh" "$ST/test.sh"
cat >"$ST/init" <<'INIT'
#!/bin/sh
export PATH=/usr/sbin:/usr/bin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/shm && mount -t tmpfs tmpfs /dev/shm   # cyclictest shm_open()s here
mount -t tmpfs tmpfs /tmp
echo "RTVM: init up after $(cut -d' ' -f1 /proc/uptime) s guest uptime"
/bin/sh /test.sh 2>&1
echo "RTVM: done after $(cut -d' ' -f1 /proc/uptime) s guest uptime"
poweroff -f
INIT
chmod 0755 "$ST/init"

cp "$KROOT/boot/vmlinuz-$KVER" "$WORK/vmlinuz"
(cd "$ST" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -6 -n >"$WORK/initramfs.cpio.gz"
echo "initramfs: $WORK/initramfs.cpio.gz ($(stat -c %s "$WORK/initramfs.cpio.gz") bytes, $(find "$ST" | wc -l) entries), kernel $KVER, modules:$need"
