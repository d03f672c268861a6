#!/bin/sh
# The installed module's identity and its load on the first open of
# /dev/hwtimer: the fixed misc minor, MODULE_VERSION, and the aliases that
# depmod turns into modules.devname (kmod static-nodes creates the node at
# boot) and char-major-10-MINOR (the kernel's request_module on open).
echo "TAP version 13"
echo "1..4"

minor=250
dev=/dev/hwtimer
# busybox stat: %t/%T are the major/minor in hex.
if [ "$(stat -c '%F %t:%T' "$dev" 2>/dev/null)" = "character special file a:fa" ]; then
	echo "ok 1 $dev is char 10:$minor"
else
	echo "# $dev: $(stat -c '%F %t:%T' "$dev" 2>&1)"
	echo "not ok 1 $dev is char 10:$minor"
fi

ver=$(cat /sys/module/hwtimer/version 2>/dev/null)
if echo "$ver" | grep -qE '^[0-9]+\.[0-9]+\.[0-9]+$'; then
	echo "ok 2 module version $ver"
else
	echo "not ok 2 module version (/sys/module/hwtimer/version: '$ver')"
fi

# Lay out /lib/modules like an installed system, unload, and open the node
# as it exists before the module is loaded.
kver=$(uname -r)
mdir=/lib/modules/$kver/updates
mkdir -p "$mdir"
cp "$HWTIMER_DIR/modules/hwtimer.ko" "$mdir/"
depmod -a 2>/dev/null
echo /bin/modprobe >/proc/sys/kernel/modprobe
if ! rmmod hwtimer 2>/dev/null; then
	echo "not ok 3 first open loads hwtimer # rmmod failed: $(lsmod | grep hwtimer)"
	echo "ok 4 # SKIP module still loaded"
	exit 0
fi
rm -f "$dev"
mknod -m 666 "$dev" c 10 "$minor"
if hwtimerctl info >/tmp/autoload.out 2>&1 && [ -d /sys/module/hwtimer ]; then
	echo "ok 3 first open of char 10:$minor loads hwtimer"
else
	sed 's/^/# /' /tmp/autoload.out
	echo "not ok 3 first open of char 10:$minor loads hwtimer"
fi

# The later fragments expect the module loaded as 00-load.sh left it.
[ -d /sys/module/hwtimer ] || insmod "$HWTIMER_DIR/modules/hwtimer.ko"
if grep -q 'devname:hwtimer' "/lib/modules/$kver/modules.alias" 2>/dev/null ||
	modinfo "$mdir/hwtimer.ko" 2>/dev/null | grep -q 'devname:hwtimer'; then
	echo "ok 4 devname:hwtimer alias present"
else
	echo "not ok 4 devname:hwtimer alias present"
fi
