#!/bin/bash
# make checkpatch: the kernel's checkpatch.pl --strict over every tracked
# .c/.h file. Passes only with 0 errors and 0 warnings (CHECKs are shown).
# EMBEDDED_FILENAME is not checked: it flags any line of hwtimer.h naming a
# file called hwtimer.h, and hwtimer.h includes include/uapi/linux/hwtimer.h.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

src=$(source_dir)
if [ ! -f "$src/scripts/checkpatch.pl" ]; then
	echo "checkpatch: unpacking linux-source $(src_version)" >&2
	mkdir -p "$(dirname "$src")"
	tar -C "$(dirname "$src")" -xf /usr/src/linux-source-6.1.tar.xz
fi

cd "$TOP"
mapfile -t files < <(git ls-files '*.c' '*.h')
errors=0 warnings=0 checks=0
for f in "${files[@]}"; do
	out=$("$src/scripts/checkpatch.pl" --no-tree --strict --terse \
		--ignore EMBEDDED_FILENAME \
		--show-types -f "$f" 2>&1) || true
	# --terse gives one "file:line: TYPE:..." line per finding.
	e=$(grep -c ': ERROR:' <<<"$out" || true)
	w=$(grep -c ': WARNING:' <<<"$out" || true)
	c=$(grep -c ': CHECK:' <<<"$out" || true)
	errors=$((errors + e)) warnings=$((warnings + w)) checks=$((checks + c))
	grep -E ': (ERROR|WARNING|CHECK):' <<<"$out" || true
done
echo "checkpatch: ${#files[@]} files: $errors errors, $warnings warnings, $checks checks"
[ "$errors" = 0 ] && [ "$warnings" = 0 ]
