#!/bin/bash
# make demo: boot Debian's stock kernel in qemu, load hwtimer.ko and run
# tools/vm/demo.sh (hwtimerctl session) with the console shown live.
# Output is also saved in build/demo/console.log. VM bound: DEMO_BOUND
# seconds (default 600). DEMO_KERNEL picks Debian's kernel: 6.1 (default),
# 6.12 or rt (6.12 PREEMPT_RT).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

DEMO=$TOP/build/demo
say() { echo "demo: $*"; }

[ -f "$VM_DIR/demo.sh" ] || {
	say "tools/vm/demo.sh is missing" >&2
	exit 1
}
"$VM_DIR/deps.sh"
stock=$(stock_release "${DEMO_KERNEL:-6.1}") || {
	say "no ${DEMO_KERNEL:-6.1} kernel in /boot with headers in /lib/modules" >&2
	exit 1
}
mkdir -p "$DEMO"
mods=$DEMO/mod
say "building hwtimer.ko for $stock and hwtimerctl (log: build/demo/build.log)"
rm -rf "$mods"
mkdir -p "$mods"
rsync -a --exclude=/build/ --exclude=/.git/ --exclude='*.o' --exclude='*.ko' \
	--exclude='*.mod' --exclude='*.mod.c' --exclude='.*.cmd' \
	--exclude=Module.symvers --exclude=modules.order "$TOP/" "$mods/"
{
	make -C "$mods" KDIR="/lib/modules/$stock/build" all
	make -C "$TOP/tools/hwtimerctl" O="$DEMO/bin" STATIC=1
} >"$DEMO/build.log" 2>&1 || {
	tail -25 "$DEMO/build.log" >&2
	say "build failed" >&2
	exit 1
}
"$VM_DIR/mkinitrd.sh" "$DEMO/initrd.gz" stock demo "$mods" "$DEMO/bin"
say "booting Debian's kernel $stock in qemu (software emulation, ~20 s)"
HWTIMER_LOGLEVEL=4 "$VM_DIR/run-vm.sh" --live "/boot/vmlinuz-$stock" \
	"$DEMO/initrd.gz" "$DEMO" "${DEMO_BOUND:-600}"
