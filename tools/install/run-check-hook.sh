#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs one of the host-side check hooks alone, tools/HOOK/check-hook.sh, as
# make check would source it, and prints its counts: the install, DKMS and
# consumer checks (install, the default) or the Debian packages' (deb) on
# the host without the VMs. Output in build/check-HOOK/ (CHECK= to change).
#   tools/install/run-check-hook.sh [install|deb]
set -euo pipefail

. "$(dirname "$0")/../vm/lib.sh"
HOOK=${1:-install}
CHECK=${CHECK:-$TOP/build/check-$HOOK}
RESULTS=$TOP/tools/vm/results.py
T0=$SECONDS

if [ ! -f "$TOP/tools/$HOOK/check-hook.sh" ]; then
	echo "usage: $0 [install|deb]: no tools/$HOOK/check-hook.sh" >&2
	exit 2
fi
rm -rf "$CHECK"
mkdir -p "$CHECK"
# shellcheck source=tools/install/check-hook.sh
. "$TOP/tools/$HOOK/check-hook.sh"
python3 "$RESULTS" total "$CHECK"
