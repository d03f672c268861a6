#!/bin/sh
# Userspace selftests of /dev/hwtimer: the 64-bit and -m32 builds, each as
# root and as nobody (uid 65534, through hwtimer_runas: no su needed).
# The four runs' TAP is merged into one stream as it comes: result lines are
# renumbered and their descriptions prefixed with the run
# ("hwtimer_test_32-nobody: ..."), and a skip, which kselftest_harness.h
# prints without the test's name, gets the name of the test last started,
# so every line is unique; the merged plan comes last. A run that crashed or printed fewer results than its plan adds
# one "not ok" of its own, as does a missing device (plan 1..0).
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

echo "TAP version 13"
echo 0 >/tmp/st-n
for r in $runs; do
	t=${r%:*} who=${r#*:} name=${r%:*}-${r#*:} out=/tmp/st-$name
	echo "# ---- $name ----"
	{
		if ! exe=$(find_test "$t"); then
			echo "# $t missing from the initramfs"
			echo 127 >"$out.rc"
		elif [ "$who" = root ]; then
			"$exe" 2>&1
			echo $? >"$out.rc"
		else
			"$runas" 65534 65534 "$exe" 2>&1
			echo $? >"$out.rc"
		fi
	} | {
		n=$(cat /tmp/st-n) seen=0 plan= test=
		while IFS= read -r line; do
			case $line in
			"#  RUN "*)
				test=${line#"#  RUN "}
				while [ "${test# }" != "$test" ]; do
					test=${test# }
				done
				test=${test%% *}
				echo "$line"
				;;
			"ok "* | "not ok "*)
				n=$((n + 1)) seen=$((seen + 1))
				res=${line%% [0-9]*}
				rest=${line#"$res "}
				rest=${rest#* }
				# The harness names no test on a skip: add it.
				case $rest in
				"# SKIP"*) rest="$test $rest" ;;
				esac
				echo "$res $n $name: $rest"
				;;
			1..*)
				plan=${line#1..}
				plan=${plan%% *}
				echo "# $name: $line"
				;;
			"TAP version"*) ;;
			*) echo "$line" ;;
			esac
		done
		echo "$n $seen $plan" >/tmp/st-n.run
	}
	set -- $(cat /tmp/st-n.run)
	n=$1 seen=$2 plan=${3:-}
	rc=$(cat "$out.rc" 2>/dev/null || echo 255)
	# rc 1 means "some check failed", already reported by its "not ok".
	if [ -z "$plan" ] || [ "$seen" != "$plan" ] ||
		{ [ "$rc" != 0 ] && [ "$rc" != 1 ]; }; then
		n=$((n + 1))
		echo "not ok $n $name: run incomplete (rc $rc, $seen of ${plan:-?} results)"
	fi
	echo "$n" >/tmp/st-n
done
echo "1..$(cat /tmp/st-n)"
