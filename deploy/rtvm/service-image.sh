#!/bin/bash
# deploy/rtvm/service-image.sh DEB - the disk and initramfs of the PREEMPT_RT guest that
# boots systemd (service-test.sh): the cached Debian 12 root (deploy/pkg/debroot.sh) with the
# rtvd package installed by dpkg as on a bench, /etc/rtvd/guest.yaml (rtvd@guest), the RT
# kernel's config in /boot (so rtvd check can read CONFIG_RT_GROUP_SCHED), the in-guest test
# (service-guest.sh) as a oneshot unit on the serial console, serial-getty masked; packed into
# an ext4 image with mke2fs -d (no loop device). The initramfs: busybox and the virtio-pci,
# virtio-blk and ext4 modules (with their modules.dep closure) of the RT kernel; its /init
# mounts /dev/vda and switch_roots to systemd.
#   WORK scratch dir (default /var/tmp/rtvd-rtvm); DEBROOT (default /var/tmp/rtvd-debroot)
# Outputs: $WORK/svc-root.img, $WORK/svc-initramfs.cpio.gz (and $WORK/vmlinuz)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DEB=$(readlink -f "${1:?usage: service-image.sh DEB}")
WORK=${WORK:-/var/tmp/rtvd-rtvm}
DEBROOT=${DEBROOT:-/var/tmp/rtvd-debroot}
KROOT=${KROOT:-$WORK/kroot}
KVER=${KVER:-$(ls "$KROOT/lib/modules" | grep -- '-rt-amd64$' | sort -V | tail -n 1)}
[ -n "$KVER" ] || { echo "no *-rt-amd64 kernel under $KROOT" >&2; exit 1; }
S=$WORK/svc
rm -rf "$S"
mkdir -p "$S/upper" "$S/work" "$S/root"
cp "$DEB" "$S/rtvd.deb"

# 1. the root: the package installed into an overlay of the cached root, then packed
unshare --mount --propagation private bash -s "$S" "$DEBROOT" "$HERE" "$KROOT" "$KVER" <<'IN'
set -euo pipefail
S=$1 DEBROOT=$2 HERE=$3 KROOT=$4 KVER=$5
R=$S/root
mount -t overlay overlay -o "lowerdir=$DEBROOT,upperdir=$S/upper,workdir=$S/work" "$R" 2>/dev/null ||
    { rmdir "$R"; cp -a "$DEBROOT" "$R"; }
mount -t proc proc "$R/proc"
mount --rbind /dev "$R/dev"
mount -t tmpfs tmp "$R/tmp"
cp "$S/rtvd.deb" "$R/tmp/"
chroot "$R" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin dpkg -i /tmp/rtvd.deb >"$S/dpkg.log" 2>&1 ||
    { cat "$S/dpkg.log"; exit 1; }
# the bench's run file: the quarter car on cpu 1 until stopped (skip: the guest is emulated)
cat >"$R/etc/rtvd/guest.yaml" <<'Y'
# rtvd@guest in the PREEMPT_RT guest: the quarter car at 1 kHz on the isolated cpu 1 until
# systemctl stop; skip, because emulated time overruns (timing is not judged here)
model: /usr/share/rtvd/config/models/quarter_car.yaml
duration: 0
rt: {period_us: 1000, cpu: 1, priority: 80, policy: skip, grace_cycles: 10}
telemetry: {udp: 127.0.0.1:9870, rate_hz: 10}
reports: {dir: /var/lib/rtvd/guest, prefix: rtvd}
Y
install -D -m 0644 "$KROOT/boot/config-$KVER" "$R/boot/config-$KVER"
install -m 0755 "$HERE/service-guest.sh" "$R/usr/local/sbin/rtvd-guest-test"
cat >"$R/etc/systemd/system/rtvd-guest-test.service" <<'U'
[Unit]
Description=rtvd service test in the PREEMPT_RT guest
After=systemd-udev-settle.service systemd-udevd.service local-fs.target
[Service]
Type=oneshot
ExecStart=/usr/local/sbin/rtvd-guest-test
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS0
[Install]
WantedBy=multi-user.target
U
ln -sf /etc/systemd/system/rtvd-guest-test.service \
    "$R/etc/systemd/system/multi-user.target.wants/rtvd-guest-test.service"
ln -sf /dev/null "$R/etc/systemd/system/serial-getty@ttyS0.service"
ln -sf /dev/null "$R/etc/systemd/system/getty@tty1.service"
echo rtvm >"$R/etc/hostname"
echo "/dev/vda / ext4 rw,noatime 0 1" >"$R/etc/fstab"
# smaller image: what the test never reads
rm -rf "$R/var/lib/apt/lists"/* "$R/var/cache/apt"/* "$R/usr/share/doc"/* "$R/usr/share/locale"/*
umount "$R/tmp"
umount -R "$R/dev"
umount "$R/proc"
rm -f "$S/root.img"
mke2fs -q -t ext4 -L rtvdroot -d "$R" "$S/root.img" 900M
IN
mv "$S/root.img" "$WORK/svc-root.img"

# 2. the initramfs: busybox + virtio-pci, virtio-blk, ext4 (+ crc32c for its checksums)
ST=$S/initramfs
mkdir -p "$ST"/{bin,sbin,proc,sys,dev,newroot,lib/modules/$KVER}
cp /bin/busybox "$ST/bin/busybox"
for a in sh mount umount mkdir modprobe switch_root sleep cat echo ls poweroff; do
    ln -s busybox "$ST/bin/$a"
done
MD=$KROOT/lib/modules/$KVER
need=""
resolve() {
    local n=${1//_/-} path line
    path=$(find "$MD/kernel" -name "$n.ko*" -o -name "${n//-/_}.ko*" | head -n 1)
    [ -n "$path" ] || { echo "module $1 not found in $MD" >&2; exit 1; }
    path=${path#"$MD/"}
    case " $need " in *" $path "*) return ;; esac
    line=$(grep "^$path:" "$MD/modules.dep")
    for d in ${line#*:}; do resolve "$(basename "${d%%.ko*}")"; done
    need="$need $path"
}
for m in virtio_pci virtio_blk crc32c_generic ext4; do resolve "$m"; done
for p in $need; do install -D -m 0644 "$MD/$p" "$ST/lib/modules/$KVER/$p"; done
cp "$MD/modules.builtin" "$MD/modules.order" "$ST/lib/modules/$KVER/" 2>/dev/null || true
depmod -b "$ST" "$KVER"
cat >"$ST/init" <<'INIT'
#!/bin/sh
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
echo "RTVM: initramfs up after $(cut -d' ' -f1 /proc/uptime) s"
for m in virtio_pci virtio_blk crc32c_generic ext4; do modprobe $m; done
for i in 1 2 3 4 5 6 7 8 9 10; do [ -b /dev/vda ] && break; sleep 1; done
mount -t ext4 -o rw /dev/vda /newroot || { echo "RTVM: cannot mount /dev/vda"; echo "RTVM: RESULT FAIL"; poweroff -f; }
umount /proc /sys
mount --move /dev /newroot/dev
exec switch_root /newroot /lib/systemd/systemd
INIT
chmod 0755 "$ST/init"
(cd "$ST" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -6 -n >"$WORK/svc-initramfs.cpio.gz"
cp "$KROOT/boot/vmlinuz-$KVER" "$WORK/vmlinuz"
rm -rf "$S"
echo "service-image: $WORK/svc-root.img ($(du -h --apparent-size "$WORK/svc-root.img" | cut -f1), $(du -h "$WORK/svc-root.img" | cut -f1) used), initramfs with$need"
