#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs tools/install/check-hook.sh alone, as make check would source it,
# and prints its counts: the install, DKMS and consumer checks on the host
# without the VMs. Output in build/check-install/ (CHECK= to change).
#   tools/install/run-check-hook.sh
set -euo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
CHECK=${CHECK:-$TOP/build/check-install}
RESULTS=$TOP/tools/vm/results.py
T0=$SECONDS

say() { printf 'check: [%4ds] %s\n' $((SECONDS - T0)) "$*"; }

# fail_step LABEL WHY LOG: as check.sh's.
fail_step() {
	say "FAILED: $2 (log: ${3#"$TOP"/})"
	[ -f "$3" ] && tail -25 "$3" | sed 's/^/    /'
	python3 "$RESULTS" fail "$1" "$CHECK/$1" "$2" >/dev/null || true
}

rm -rf "$CHECK"
mkdir -p "$CHECK"
# shellcheck source=tools/install/check-hook.sh
. "$TOP/tools/install/check-hook.sh"
python3 "$RESULTS" total "$CHECK"
