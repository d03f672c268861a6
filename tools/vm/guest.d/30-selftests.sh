#!/bin/sh
# Userspace selftests of /dev/hwtimer: the 64-bit and -m32 builds, each as
# root and as nobody (uid 65534, through hwtimer_runas: no su needed).
# The four runs' TAP is merged into one plan: result lines are renumbered
# and their descriptions prefixed with the run ("hwtimer_test_32-nobody:"),
# so every line is unique. A run that crashed or printed fewer results than
# its plan adds one "not ok" of its own.
runas=$HWTIMER_DIR/bin/hwtimer_runas
runs="hwtimer_test:root hwtimer_test:nobody hwtimer_test_32:root hwtimer_test_32:nobody"

find_test() {
	for d in "$HWTIMER_DIR/bin" "$HWTIMER_DIR/bin32"; do
		[ -x "$d/$1" ] && { echo "$d/$1"; return 0; }
	done
	return 1
}

# nobody must reach the binaries: the initramfs root may be packed 0700.
for d in / "$HWTIMER_DIR" "$HWTIMER_DIR/bin" "$HWTIMER_DIR/bin32"; do
	[ -d "$d" ] && chmod a+rx "$d"
done

# Run everything first: the merged plan needs every run's count.
total=0
for r in $runs; do
	t=${r%:*} who=${r#*:} out=/tmp/st-$t-$who
	if ! exe=$(find_test "$t"); then
		echo "# $t missing from the initramfs" >"$out"
		echo 127 >"$out.rc"
	elif [ "$who" = root ]; then
		"$exe" >"$out" 2>&1
		echo $? >"$out.rc"
	else
		"$runas" 65534 65534 "$exe" >"$out" 2>&1
		echo $? >"$out.rc"
	fi
	plan=$(sed -n 's/^1\.\.\([0-9]*\).*/\1/p' "$out" | head -1)
	seen=$(grep -c '^\(not \)\{0,1\}ok ' "$out")
	extra=0
	if [ -z "$plan" ] || [ "$seen" != "$plan" ] ||
		{ [ "$(cat "$out.rc")" != 0 ] && ! grep -q '^not ok ' "$out"; }; then
		extra=1
	fi
	echo "$extra" >"$out.extra"
	total=$((total + seen + extra))
done

echo "TAP version 13"
echo "1..$total"
n=0
for r in $runs; do
	t=${r%:*} who=${r#*:} out=/tmp/st-$t-$who name=$t-$who
	echo "# ---- $name (rc $(cat "$out.rc")) ----"
	while IFS= read -r line; do
		case $line in
		"ok "* | "not ok "*)
			n=$((n + 1))
			res=${line%% [0-9]*}
			rest=${line#"$res "}
			rest=${rest#* }
			echo "$res $n $name: $rest"
			;;
		"TAP version"* | 1..*) echo "# $name: $line" ;;
		*) echo "$line" ;;
		esac
	done <"$out"
	if [ "$(cat "$out.extra")" = 1 ]; then
		n=$((n + 1))
		echo "not ok $n $name: run incomplete (rc $(cat "$out.rc"))"
	fi
done
