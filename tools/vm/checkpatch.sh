#!/bin/bash
# make checkpatch: the kernel's checkpatch.pl --strict over every tracked
# .c/.h file. Passes only with 0 errors and 0 warnings (CHECKs are shown).
# EMBEDDED_FILENAME is not checked: it flags any line of hwtimer.h naming a
# file called hwtimer.h, and hwtimer.h includes include/uapi/linux/hwtimer.h.
# Nor is PREFER_DEFINED_ATTRIBUTE_MACRO on a line that defines the very
# macro it prefers ("#define noinline __attribute__((__noinline__))"):
# userspace code taking the kernel's names has to define them somewhere.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

src=$(source_dir)
if [ ! -f "$src/scripts/checkpatch.pl" ]; then
	echo "checkpatch: unpacking linux-source $(src_version)" >&2
	mkdir -p "$(dirname "$src")"
	tar -C "$(dirname "$src")" -xf /usr/src/linux-source-6.1.tar.xz
fi

# own_macros FILE OUT: OUT without the findings "Prefer M over
# __attribute__((...))" on a line of FILE that is "#define M __attribute__".
own_macros() {
	local f=$1 line n m
	while IFS= read -r line; do
		if [[ $line =~ ^[^:]+:([0-9]+):\ WARNING:PREFER_DEFINED_ATTRIBUTE_MACRO:\ Prefer\ ([A-Za-z_]+)\ over ]]; then
			n=${BASH_REMATCH[1]} m=${BASH_REMATCH[2]}
			sed -n "${n}p" "$f" |
				grep -Eq "^#define[[:space:]]+$m[[:space:]]+__attribute__" &&
				continue
		fi
		printf '%s\n' "$line"
	done <<<"$2"
}

cd "$TOP"
mapfile -t files < <(git ls-files '*.c' '*.h')
errors=0 warnings=0 checks=0
for f in "${files[@]}"; do
	out=$("$src/scripts/checkpatch.pl" --no-tree --strict --terse \
		--ignore EMBEDDED_FILENAME \
		--show-types -f "$f" 2>&1) || true
	out=$(own_macros "$f" "$out")
	# --terse gives one "file:line: TYPE:..." line per finding.
	e=$(grep -c ': ERROR:' <<<"$out" || true)
	w=$(grep -c ': WARNING:' <<<"$out" || true)
	c=$(grep -c ': CHECK:' <<<"$out" || true)
	errors=$((errors + e)) warnings=$((warnings + w)) checks=$((checks + c))
	grep -E ': (ERROR|WARNING|CHECK):' <<<"$out" || true
done
echo "checkpatch: ${#files[@]} files: $errors errors, $warnings warnings, $checks checks"
[ "$errors" = 0 ] && [ "$warnings" = 0 ]
