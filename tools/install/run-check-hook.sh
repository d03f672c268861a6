#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs tools/install/check-hook.sh alone, as make check would source it,
# and prints its counts: the install, DKMS and consumer checks on the host
# without the VMs. Output in build/check-install/ (CHECK= to change).
#   tools/install/run-check-hook.sh
set -euo pipefail

. "$(dirname "$0")/../vm/lib.sh"
CHECK=${CHECK:-$TOP/build/check-install}
RESULTS=$TOP/tools/vm/results.py
T0=$SECONDS

rm -rf "$CHECK"
mkdir -p "$CHECK"
# shellcheck source=tools/install/check-hook.sh
. "$TOP/tools/install/check-hook.sh"
python3 "$RESULTS" total "$CHECK"
