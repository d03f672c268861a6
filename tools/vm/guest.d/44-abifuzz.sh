#!/bin/sh
# Concurrency fuzzer of the /dev/hwtimer ABI with an exact ledger
# (tools/stress/hwtimer_abifuzz.c): 64-bit and -m32, each as root and as
# nobody (uid 65534, through hwtimer_runas). ABIFUZZ_SECS is split over
# the four runs: about 60 s in make check; make soak's /tmp/stress.conf
# gives the soak time. Each run's TAP is renumbered and prefixed with the
# run ("hwtimer_abifuzz_32-nobody: ..."); a run that crashed or printed
# fewer results than its plan adds one "not ok".
ABIFUZZ_SECS=48
[ -f /tmp/stress.conf ] && . /tmp/stress.conf
bin=$HWTIMER_DIR/bin runas=$HWTIMER_DIR/bin/hwtimer_runas
t_start=$(date +%s)
trap 'echo "# $(basename "$0"): $(($(date +%s) - t_start)) s"' EXIT

find_prog() {
	for d in "$HWTIMER_DIR/bin" "$HWTIMER_DIR/bin32"; do
		[ -x "$d/$1" ] && { echo "$d/$1"; return 0; }
	done
	return 1
}

# nobody must reach the binaries: the initramfs root may be packed 0700.
for d in / "$HWTIMER_DIR" "$bin" "$HWTIMER_DIR/bin32"; do
	[ -d "$d" ] && chmod a+rx "$d"
done

runs=""
for p in hwtimer_abifuzz hwtimer_abifuzz_32; do
	find_prog $p >/dev/null && runs="$runs $p:root $p:nobody"
done
echo "TAP version 13"
if [ -z "$runs" ]; then
	echo "1..0 # SKIP hwtimer_abifuzz not in the initramfs"
	exit 0
fi
nruns=$(echo $runs | wc -w)
secs=$((ABIFUZZ_SECS / nruns))
[ "$secs" -lt 5 ] && secs=5
n=0
for r in $runs; do
	p=${r%:*} who=${r#*:} name=${r%:*}-${r#*:} out=/tmp/af-$name
	exe=$(find_prog "$p")
	echo "# ---- $name: $secs s ----"
	if [ "$who" = root ]; then
		"$exe" -t "$secs" -j 4 -c 3 >"$out" 2>&1
	else
		"$runas" 65534 65534 "$exe" -t "$secs" -j 4 -c 3 >"$out" 2>&1
	fi
	rc=$?
	seen=0 plan=
	while IFS= read -r line; do
		case $line in
		"ok "* | "not ok "*)
			n=$((n + 1)) seen=$((seen + 1))
			res=${line%% [0-9]*}
			rest=${line#"$res "}
			rest=${rest#* }
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
	done <"$out"
	# rc 1 means "some check failed", already reported by its "not ok".
	if [ -z "$plan" ] || [ "$seen" != "$plan" ] ||
		{ [ "$rc" != 0 ] && [ "$rc" != 1 ]; }; then
		n=$((n + 1))
		echo "not ok $n $name: run incomplete (rc $rc, $seen of ${plan:-?} results)"
	fi
done
echo "1..$n"
