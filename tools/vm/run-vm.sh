#!/bin/bash
# Boot one test VM under qemu (TCG: /dev/kvm hangs on our machines).
# Usage: run-vm.sh [--live] KERNEL INITRD OUTDIR BOUND
#   writes OUTDIR/console.log (ttyS0: kernel log + everything) and
#   OUTDIR/results.log (ttyS1: fragment output only, for parsing).
#   BOUND is the wall-clock limit in seconds; a VM still running then is
#   killed and the exit status is 124.
#   --live also copies the console to stdout as it happens (make demo).
#   HWTIMER_VM_SMP sets the vCPU count (default 2), HWTIMER_VM_CPU qemu's
#   -cpu (default max,cx16=off: see below).
set -euo pipefail

live=0
if [ "${1:-}" = --live ]; then
	live=1
	shift
fi
kernel=$1 initrd=$2 outdir=$3 bound=$4
mkdir -p "$outdir"
rm -f "$outdir/console.log" "$outdir/results.log"

if [ "$live" = 1 ]; then
	con=(-chardev "stdio,id=con,signal=off,logfile=$outdir/console.log"
		-serial chardev:con)
else
	con=(-serial "file:$outdir/console.log")
fi

# panic=-1 and -no-reboot: a panic or the guest's final reboot ends qemu.
append="console=ttyS0 panic=-1 printk.time=1 log_buf_len=8M"
append+=" loglevel=${HWTIMER_LOGLEVEL:-7} no_hash_pointers ${HWTIMER_APPEND:-}"

# HWTIMER_QEMU_PLUGIN: a TCG plugin and its arguments, for -plugin.
plugin=()
[ -n "${HWTIMER_QEMU_PLUGIN:-}" ] && plugin=(-plugin "$HWTIMER_QEMU_PLUGIN")

# The vCPU: qemu's max without CMPXCHG16B. QEMU 7.2's translator calls its
# CMPXCHG16B helper without first storing which operation last set the
# flags, and the helper can then rebuild RFLAGS from a stale operand:
# reserved bits set, a double fault soon after (seen in 6.12's SLUB fast
# path; docs/testing.md). Without CX16 the kernel emulates the instruction.
cpu=${HWTIMER_VM_CPU:-max,cx16=off}

rc=0
timeout -k 10 "$bound" qemu-system-x86_64 -accel tcg -cpu "$cpu" \
	-m "${HWTIMER_VM_MEM:-1024}" -smp "${HWTIMER_VM_SMP:-2}" -nographic \
	-no-reboot -monitor none -nic none "${plugin[@]}" \
	"${con[@]}" -serial "file:$outdir/results.log" \
	-kernel "$kernel" -initrd "$initrd" -append "$append" \
	</dev/null 2>"$outdir/qemu.stderr" || rc=$?
# qemu exits 0 after the guest's reboot; 124/137 means timeout killed it.
exit "$rc"
