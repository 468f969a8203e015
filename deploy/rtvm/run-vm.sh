#!/bin/bash
# deploy/rtvm/run-vm.sh - boot the PREEMPT_RT kernel + initramfs in QEMU, serial console to
# a file, under a wall-clock timeout. Exit: QEMU's status (124: timeout).
#   WORK     where build-initramfs.sh put vmlinuz / initramfs.cpio.gz
#   LOG      serial console log (default $WORK/guest-console.log)
#   ACCEL    auto (default), kvm or tcg. auto = kvm only when /dev/kvm is usable AND the CPU
#            has hardware virtualisation (vmx/svm) AND it is not kvm_pvm (a software nesting
#            layer on which an unmodified Debian kernel crawls): else TCG.
#   TIMEOUT  seconds before the host kills QEMU (default 600)
#   APPEND   kernel command line: CPU 1 isolated for the RT work
#   INITRD   the initramfs (default $WORK/initramfs.cpio.gz)
#   QEMU_EXTRA  more QEMU arguments (e.g. the root disk of the service test)
set -uo pipefail
WORK=${WORK:-/var/tmp/rtvd-rtvm}
LOG=${LOG:-$WORK/guest-console.log}
TIMEOUT=${TIMEOUT:-600}
APPEND=${APPEND:-console=ttyS0 isolcpus=1 nohz_full=1 rcu_nocbs=1 irqaffinity=0 quiet panic=-1}
ACCEL=${ACCEL:-auto}
if [ "$ACCEL" = auto ]; then
    if [ -r /dev/kvm ] && [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo && [ ! -d /sys/module/kvm_pvm ]; then
        ACCEL=kvm
    else
        ACCEL=tcg
    fi
fi
if [ "$ACCEL" = kvm ]; then ACCEL_ARGS=(-enable-kvm -cpu host); else ACCEL_ARGS=(-accel tcg -cpu max); fi
echo "run-vm: accelerator $ACCEL, timeout ${TIMEOUT}s"
rm -f "$LOG"
timeout --kill-after=5 "$TIMEOUT" qemu-system-x86_64 "${ACCEL_ARGS[@]}" -smp 2 -m 1024 \
    -kernel "$WORK/vmlinuz" -initrd "${INITRD:-$WORK/initramfs.cpio.gz}" -append "$APPEND" \
    -display none -monitor none -serial "file:$LOG" -no-reboot -nodefaults -net none \
    ${QEMU_EXTRA:-}
