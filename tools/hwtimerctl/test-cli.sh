#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hwtimerctl's command line, checked on the host (no module, no VM):
#  - the builds: no compiler warnings, and switching STATIC=1 on and off
#    relinks (hwtimerctl and the selftests), an unchanged build does not;
#  - parsing and messages against the built binary: --opt VALUE and
#    --opt=VALUE, --device before and after the command, strict numbers
#    and durations, the "hwtimerctl[ COMMAND]: " prefix, exit statuses
#    (0, 1 runtime, 2 usage: nothing done), help and --version;
#  - the output of every command against fakedev.so, an LD_PRELOADed
#    stand-in for /dev/hwtimer: info --json is valid JSON with typed
#    values, arm's "at" is the fire time, batch names the cap it hit.
# Usage: test-cli.sh [WORKDIR]   (default: a temporary directory)
# Prints kselftest TAP; exit status 0 when every check passed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
work=${1:-}
if [ -z "$work" ]; then
	work=$(mktemp -d "${TMPDIR:-/tmp}/hwtimerctl-cli.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
bin=$work/bin/hwtimerctl so=$work/fakedev.so tmp=$work
nodev=/nonexistent/hwtimer
n=0 failed=0 rc=0 out="" err=""

echo "TAP version 13"

# result WHAT CMD...: one TAP line, "ok" when CMD succeeds; on failure the
# last run's status and output follow as diagnostics.
result() {
	local what=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n $what"
		return 0
	fi
	failed=$((failed + 1))
	echo "not ok $n $what"
	echo "# exit status $rc"
	[ -z "$out" ] || awk 'NR <= 20 { print "# stdout: " $0 }' <<<"$out"
	[ -z "$err" ] || awk 'NR <= 20 { print "# stderr: " $0 }' <<<"$err"
	return 1
}

# run [VAR=VALUE...] ARGS...: hwtimerctl with ARGS (and VARs in its
# environment); sets rc, out and err.
run() {
	local envs=()
	while [ $# -gt 0 ] && [[ $1 == HWTIMER_FAKE_*=* || $1 == LD_PRELOAD=* ]]; do
		envs+=("$1")
		shift
	done
	env "${envs[@]}" "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
}

# fake ARGS...: run against fakedev.so, the stand-in device.
fake() {
	local envs=()
	while [ $# -gt 0 ] && [[ $1 == HWTIMER_FAKE_*=* ]]; do
		envs+=("$1")
		shift
	done
	run LD_PRELOAD="$so" "${envs[@]}" --device=/dev/null "$@"
}

line() { sed -n "${1}p" <<<"$2"; }

# is_usage FIRST: exit 2, nothing on stdout, stderr is FIRST, the usage
# and "Try 'hwtimerctl help...'".
is_usage() {
	[ "$rc" = 2 ] && [ -z "$out" ] && [ "$(line 1 "$err")" = "$1" ] &&
		[[ $(line 2 "$err") == "usage: hwtimerctl "* ]] &&
		[[ $(tail -n 1 <<<"$err") == "Try 'hwtimerctl help"* ]]
}

# is_fail TEXT: exit 1, nothing on stdout, stderr exactly TEXT.
is_fail() { [ "$rc" = 1 ] && [ -z "$out" ] && [ "$err" = "$1" ]; }

# is_out RC TEXT: exit RC, stdout exactly TEXT, nothing on stderr.
is_out() { [ "$rc" = "$1" ] && [ "$out" = "$2" ] && [ -z "$err" ]; }

# Exit 0 and nothing on stderr, and then: stdout's first line is TEXT,
# or starts with TEXT; N lines match the regex RE; CODE's assertions
# hold for the JSON records (py below); stdout is one valid JSON text.
quiet() { [ "$rc" = 0 ] && [ -z "$err" ]; }
first_is() { quiet && [ "$(line 1 "$out")" = "$1" ]; }
first_starts() { quiet && [[ $(line 1 "$out") == "$1"* ]]; }
lines_match() { quiet && [ "$(grep -c -- "$2" <<<"$out")" = "$1" ]; }
py_ok() { quiet && py "$1"; }
json_tool() { quiet && python3 -m json.tool <<<"$out" >/dev/null; }

# usage_case WHAT FIRST ARGS...: ARGS are bad usage reported as FIRST.
usage_case() {
	local what=$1 first=$2
	shift 2
	run "$@"
	result "$what" is_usage "$first"
}

# ---- the builds ----

# linkage BIN: as file(1) says it; from the ELF program headers (an
# interpreter or none) where file is not installed.
linkage() {
	if command -v file >/dev/null; then
		file -L "$1" | grep -o 'statically linked\|dynamically linked'
	elif readelf -l "$1" | grep -q 'Requesting program interpreter'; then
		echo "dynamically linked"
	elif readelf -h "$1" >/dev/null; then
		echo "statically linked"
	fi
}

# build WHAT DIR [MAKEARGS...]: make in DIR into $work/bin, log.
build() {
	local dir=$2
	shift 2
	out=$(make -C "$top/$dir" O="$work/bin" "$@" 2>&1)
	rc=$?
	err=""
	echo "$out" >>"$work/build.log"
}

no_warnings() { [ "$rc" = 0 ] && ! grep -qi 'warning:' <<<"$out"; }
links() { [ "$rc" = 0 ] && [ "$(linkage "$2")" = "$1" ]; }
relinked() { [[ $out == *"-o $work/bin/$1 "* ]]; }
not_relinked() { [ "$rc" = 0 ] && ! relinked "$1"; }

rm -f "$work/build.log" "$bin" "$work/bin/hwtimer_test"
build plain tools/hwtimerctl
result "hwtimerctl builds with -Wall -Wextra, no warnings" no_warnings
result "plain build: hwtimerctl is dynamically linked" \
	links "dynamically linked" "$bin"
build static tools/hwtimerctl STATIC=1
result "STATIC=1 after a plain build relinks: statically linked" \
	links "statically linked" "$bin"
build static tools/hwtimerctl STATIC=1
result "STATIC=1 again: nothing relinked" not_relinked hwtimerctl
build plain tools/hwtimerctl
result "plain after STATIC=1 relinks: dynamically linked" \
	links "dynamically linked" "$bin"
build plain tools/testing/selftests/hwtimer
result "selftests: plain build is dynamically linked" \
	links "dynamically linked" "$work/bin/hwtimer_test"
build static tools/testing/selftests/hwtimer STATIC=1
result "selftests: STATIC=1 after a plain build relinks: statically linked" \
	links "statically linked" "$work/bin/hwtimer_test"
build plain tools/testing/selftests/hwtimer
result "selftests: plain after STATIC=1 relinks: dynamically linked" \
	links "dynamically linked" "$work/bin/hwtimer_test"

out=$(${CC:-cc} -shared -fPIC -O2 -Wall -Wextra -I"$top/include/uapi" \
	-o "$so" "$here/fakedev.c" -ldl 2>&1)
rc=$? err=""
result "fakedev.so (the stand-in device) builds, no warnings" no_warnings

# ---- version and help ----

hdr=$top/include/uapi/linux/hwtimer.h
ver=$(awk '$1 == "#define" && $2 ~ /^HWTIMER_VERSION_(MAJOR|MINOR|PATCH)$/ {
	v = v (v == "" ? "" : ".") $3 } END { print v }' "$hdr")
abi=$(printf '#include <stdio.h>\n#include <linux/hwtimer.h>\nint main(void) { printf("%%d\\n", HWTIMER_API); return 0; }\n' |
	${CC:-cc} -I"$top/include/uapi" -x c - -o "$work/abi" && "$work/abi")

run --version
result "--version: 'hwtimerctl $ver (ABI $abi)' from the uapi header" \
	is_out 0 "hwtimerctl $ver (ABI $abi)"
run -V
result "-V is --version" is_out 0 "hwtimerctl $ver (ABI $abi)"
fake --version
result "--version with a device: its module and ABI too" is_out 0 \
	"hwtimerctl $ver (ABI $abi)
hwtimer module unknown (ABI $abi, /dev/null)"
json_version() {
	python3 -c 'import json, sys
d = json.load(sys.stdin)
assert d == {"hwtimerctl": sys.argv[1], "api": int(sys.argv[2])}, d' \
		"$ver" "$abi" <<<"$out"
}
run --json --version
result "--json --version: a JSON object of the versions" json_version

run help
help_out=$out
has_commands() {
	local c
	[ "$rc" = 0 ] && [ -z "$err" ] &&
		[ "$(line 1 "$out")" = "usage: hwtimerctl [--json] [--device PATH] [--backend B] COMMAND [ARGS]" ] ||
		return 1
	for c in info arm batch watch help; do
		grep -q "^  $c  " <<<"$out" || return 1
	done
}
result "help: the usage and every command on stdout, exit 0" has_commands
run --help
result "--help is help" is_out 0 "$help_out"
run -h
result "-h is help" is_out 0 "$help_out"
for c in info arm batch watch; do
	run help "$c"
	want=$out
	result "help $c: its usage on stdout, exit 0" first_starts \
		"usage: hwtimerctl [--json] [--device PATH] [--backend B] $c"
	run "$c" --help
	result "$c --help is help $c" is_out 0 "$want"
	run "$c" -h
	result "$c -h is help $c" is_out 0 "$want"
done
usage_case "help with an unknown command: exit 2" \
	"hwtimerctl help: unknown command 'bogus'" help bogus
usage_case "no command: exit 2, usage on stderr" \
	"hwtimerctl: no command given"
usage_case "unknown command: exit 2" \
	"hwtimerctl: unknown command 'bogus'" bogus

# ---- the man page ----

man=$top/man/hwtimerctl.1
groff_clean() { out=$(groff -man -Tutf8 -ww -z "$man" 2>&1) && [ -z "$out" ]; }
# Every command and option the help names is in the page, as rendered
# (one long line per paragraph, no hyphenation).
man_complete() {
	local text o c
	text=$(groff -man -Tascii -P -cbou -rLL=1000n -rHY=0 "$man" 2>/dev/null)
	for c in "" info arm batch watch help; do
		# shellcheck disable=SC2086 # no command: the top-level help
		for o in $c $("$bin" help $c | grep -o -- '--[a-z]*' | sort -u); do
			grep -qF -- "$o" <<<"$text" || {
				err="'$o' (from help $c) is not in $man"
				return 1
			}
		done
	done
}
if command -v groff >/dev/null; then
	result "man/hwtimerctl.1: groff -man -ww clean" groff_clean
	rc=0 out=""
	result "man/hwtimerctl.1 names every command and option of help" \
		man_complete
else
	echo "ok $((n += 1)) man/hwtimerctl.1: groff -man -ww clean # SKIP no groff"
	echo "ok $((n += 1)) man/hwtimerctl.1 names every option # SKIP no groff"
fi

# ---- --opt VALUE and --opt=VALUE, --device anywhere ----

# enoent COMMAND: the device at $nodev is missing, and COMMAND ran on it
# (--backend device, or watch): exit 1, the path, the module, and what
# serves without it: the timerfd backend, or nothing for watch.
enoent() {
	local also="--backend timerfd (or auto) runs $1 without the hwtimer module"
	[ "$1" != watch ] ||
		also="watch reads the wheel counters of the hwtimer module: it needs the module (the timerfd backend has no wheel)"
	is_fail "hwtimerctl $1: cannot open $nodev: No such file or directory (is the hwtimer module loaded?)
hwtimerctl $1: $also"
}
# The parsing checks below run on --backend device: a missing device
# stops them before anything is armed.
for form in "--device=$nodev" "--device $nodev"; do
	# shellcheck disable=SC2086 # the form is one or two words
	run --backend=device $form info
	result "$form before the command: ENOENT names the path" enoent info
	# shellcheck disable=SC2086
	run info $form --backend device
	result "$form after the command" enoent info
	# shellcheck disable=SC2086
	run arm 10ms $form --backend=device
	result "$form after arm's operands" enoent arm
done
run arm --every=10ms --count=2 --cancel=1 --boottime "--device=$nodev" \
	--backend=device
result "arm: --every=D --count=N --cancel=I accepted" enoent arm
run --backend device arm --every 10ms --count 2 --cancel 1 --device "$nodev"
result "arm: --every D --count N --cancel I accepted" enoent arm
run batch --at=1s --spread=2s --chunk=100 10 "--device=$nodev" --backend=device
result "batch: --at=D --spread=D --chunk=K accepted" enoent batch
run batch --at 1s --spread 2s --chunk 100 10 --device "$nodev" --backend device
result "batch: --at D --spread D --chunk K accepted" enoent batch
run watch --interval=10ms --count=2 --boottime "--device=$nodev"
result "watch: --interval=D --count=N accepted" enoent watch
run watch --interval 10ms --once --device "$nodev"
result "watch: --interval D --once accepted" enoent watch
run --json arm 10ms --json "--device=$nodev" --backend device
result "--json before and after the command" enoent arm
run --backend timerfd --backend device arm 10ms "--device=$nodev"
result "--backend: the last one given counts" enoent arm
usage_case "--device without a value" \
	"hwtimerctl: option '--device' needs a value" --device
usage_case "arm --device without a value" \
	"hwtimerctl arm: option '--device' needs a value" arm 10ms --device
usage_case "--device= (empty)" "hwtimerctl: --device: empty path" --device= info
run --device=/dev/null info
result "a device that is not hwtimer: ENOTTY, named" is_fail \
	"hwtimerctl info: /dev/null: HWTIMER_IOC_API: Inappropriate ioctl for device (not a hwtimer device?)"

# ---- bad options: one prefix, usage on stderr, exit 2 ----

usage_case "--backend: device, timerfd or auto" \
	"hwtimerctl: --backend 'bogus': want device, timerfd or auto" \
	--backend bogus info
usage_case "arm --backend=: device, timerfd or auto" \
	"hwtimerctl arm: --backend '': want device, timerfd or auto" \
	arm 10ms --backend=
usage_case "arm --backend without a value" \
	"hwtimerctl arm: option '--backend' needs a value" arm 10ms --backend
usage_case "watch --backend timerfd: the module's wheel, not there" \
	"hwtimerctl watch: the timerfd backend has no wheel: watch reads the hwtimer module's (--backend device or auto)" \
	--backend timerfd watch --once
usage_case "unknown global option" \
	"hwtimerctl: unknown option '--bogus'" --bogus info
usage_case "unknown short global option" "hwtimerctl: unknown option '-x'" -x
usage_case "unknown option of a command" \
	"hwtimerctl arm: unknown option '--bogus'" arm --bogus 10ms
usage_case "unknown short option of a command" \
	"hwtimerctl watch: unknown option '-x'" watch -x
usage_case "a value to an option that takes none" \
	"hwtimerctl watch: option '--once' takes no value" watch --once=3
usage_case "an option without its value" \
	"hwtimerctl arm: option '--every' needs a value" arm 10ms --every
usage_case "an ambiguous abbreviation" \
	"hwtimerctl arm: option '--c' is ambiguous" arm --c 3 10ms
usage_case "unexpected operand" \
	"hwtimerctl info: unexpected argument 'now'" info now

# ---- numbers: digits only, range of the real type, nothing done ----

usage_case "--cancel 4294967298 (was #2 truncated): out of range, exit 2" \
	"hwtimerctl arm: --cancel 4294967298: there are only 2 timeouts to cancel" \
	arm --cancel 4294967298 10ms 20ms --device "$nodev"
usage_case "--cancel past the timeouts given" \
	"hwtimerctl arm: --cancel 3: there are only 2 timeouts to cancel" \
	arm 10ms 20ms --cancel 3
usage_case "--cancel 0" "hwtimerctl arm: --cancel '0': must be at least 1" \
	arm 10ms --cancel 0
usage_case "--cancel 2^64: past uint64" \
	"hwtimerctl arm: --cancel '18446744073709551616' is out of range: at most 18446744073709551615" \
	arm 10ms --cancel 18446744073709551616
for v in " -1" "-1" "+1" " 1" "1 " "0x10" "1.5" "1e3" "" "one"; do
	usage_case "--count '$v': rejected" \
		"hwtimerctl arm: --count '$v': want a whole number (digits only)" \
		arm --every 10ms --count "$v"
done
usage_case "arm --count 0" "hwtimerctl arm: --count '0': must be at least 1" \
	arm --every 10ms --count 0
usage_case "arm --count without --every" \
	"hwtimerctl arm: --count counts the expiries of periodic timeouts: add --every" \
	arm 10ms --count 3
usage_case "watch --count 0: must be at least 1" \
	"hwtimerctl watch: --count 0: must be at least 1 (leave --count out to sample until interrupted)" \
	watch --count 0 --device "$nodev"
usage_case "watch --count ' -1'" \
	"hwtimerctl watch: --count ' -1': want a whole number (digits only)" \
	watch --count " -1"
usage_case "batch N: 0" "hwtimerctl batch: N '0': must be at least 1" batch 0
usage_case "batch N: past 32 bits" \
	"hwtimerctl batch: N '4294967296' is out of range: at most 4294967295" \
	batch 4294967296
usage_case "batch --chunk past HWTIMER_BATCH_MAX" \
	"hwtimerctl batch: --chunk '65537' is out of range: at most 65536" \
	batch --chunk 65537 10
usage_case "batch without N" "hwtimerctl batch: give the number of timeouts N" batch
usage_case "batch with two N" "hwtimerctl batch: unexpected argument '20'" \
	batch 10 20

# ---- durations ----

for d in 7ns 10us 5µs 250ms 1.5s 2m 3min 1h 0 0.5ms 18446744073709551615ns; do
	run arm "$d" --device "$nodev" --backend device
	result "duration '$d' accepted" enoent arm
done
for d in 5 1.5 " 5ms" "+5ms" 1e3ms 0x10ms 5parsecs 1.ms .5ms inf nan ms ""; do
	usage_case "duration '$d' rejected" \
		"hwtimerctl arm: bad DURATION '$d': want a number and a unit, e.g. 250ms, 1.5s, 2m, 10us" \
		arm -- "$d"
done
usage_case "duration past 2^64 ns" \
	"hwtimerctl arm: DURATION '18446744073709551616ns' is too long: at most 18446744073709551615 ns" \
	arm 18446744073709551616ns
usage_case "duration past 2^64 ns in hours" \
	"hwtimerctl arm: --every '5124096h' is too long: at most 18446744073709551615 ns" \
	arm --every 5124096h
usage_case "--every 0" "hwtimerctl arm: --every must be more than 0" arm --every 0
usage_case "watch --interval 0" \
	"hwtimerctl watch: --interval must be more than 0" watch --interval 0
usage_case "batch: --at plus --spread past 2^64 ns" \
	"hwtimerctl batch: --at plus --spread is too long" \
	batch 5 --at 18446744073709551615ns --spread 1ns

# ---- the commands, on the stand-in device ----

# py CODE: python3 over the last run's stdout (one JSON object per line
# as the list "recs"); succeeds when CODE's assertions hold.
py() {
	python3 -c 'import json, sys
recs = [json.loads(l) for l in sys.stdin.read().splitlines()]
'"$1" <<<"$out"
}

fake --json info
result "info --json passes python3 -m json.tool" json_tool
result "info --json: typed values, no placeholder key" py_ok '
d, = recs
assert "_" not in d and "_" not in d["params"], d
assert d["api"] == '"$abi"' and d["event_size"] == 48, d
assert d["max_pending"] == 100 and d["tick_ns"] == 1000000, d
assert d["features"] == ["periodic", "boottime", "batch", "eventfd", "timens", "realtime", "cancel-on-set", "batch-cancel-on-set"], d
assert d["device"] == "/dev/null" and d["module_version"] == "unknown", d
assert d["backend"] == "device", d
assert isinstance(d["params"], dict), d
for w in ("monotonic", "boottime"):
    for k, v in d[w].items():
        if k == "lateness_log2":
            assert len(v) == 40 and all(type(x) is int for x in v), (k, v)
        else:
            assert type(v) is int, (w, k, v)'
fake info
result "info: text, first line names device, module, API" first_is \
	"/dev/null: module unknown, API $abi, event record 48 bytes"

fake --json arm 10ms 20ms 30ms --cancel 2
arm_json() {
	py_ok '
ev = [(r["event"], r["n"]) for r in recs]
assert ev == [("armed", 1), ("armed", 2), ("armed", 3), ("cancel", 2),
              ("fired", 1), ("fired", 3)], ev
assert recs[3]["result"] == "cancelled", recs[3]
assert [r["id"] for r in recs] == ["1", "2", "3", "2", "1", "3"], recs
assert all(r["backend"] == "device" for r in recs[:3]), recs
for r in recs[4:]:
    assert r["late_ns"] == 1234 == r["fire_ns"] - r["deadline_ns"], r
    assert r["at_ns"] == r["due_ns"] + r["late_ns"], r
    assert 0 <= r["due_ns"] - r["n"] * 10000000 < 10**9, r'
}
result "arm --json: at_ns is the fire time: due_ns + late_ns; ids strings" \
	arm_json
fake arm 10ms
arm_text() {
	quiet &&
		[[ $(line 1 "$out") =~ ^armed\ \ \ \ \#1\ \ id\ 0x1\ \ in\ 10\.000\ ms$ ]] &&
		[[ $(line 2 "$out") =~ ^fired\ \ \ \ \#1\ \ at\ \+1[0-9]\.[0-9]{3}\ ms\ \ late\ 1234\ ns\ \ read\ \+ ]] &&
		[ "$(line 3 "$out")" = "" ]
}
result "arm: 'fired #1  at +T  late L  read +R', T the fire time" arm_text
fake arm --every 10ms --count 3
result "arm --every --count 3: three expiries" lines_match 3 "^fired    #1  at +"
fake HWTIMER_FAKE_CAP=2 arm 1s 2s 3s
arm_cap() {
	[ "$rc" = 1 ] && [ "$(grep -c '^armed' <<<"$out")" = 2 ] && [ "$err" = \
"hwtimerctl arm: armed 2 of 3 timeouts, then: No space left on device
hwtimerctl arm: the per-context cap was reached: ctx_max_pending is 2 live timeouts for one open /dev/null
hwtimerctl arm: raise it with: echo 3 > /sys/module/hwtimer/parameters/ctx_max_pending" ]
}
result "arm past ctx_max_pending: how many, which cap, how to raise it" arm_cap

rm -f "$work/fake.log"
fake HWTIMER_FAKE_CAP=1000 HWTIMER_FAKE_LOG="$work/fake.log" \
	batch 3000 --chunk 512
batch_cap() {
	[ "$rc" = 1 ] && [ -z "$out" ] && [ "$err" = \
"hwtimerctl batch: armed 1000 of 3000 timeouts, then: No space left on device
hwtimerctl batch: the per-context cap was reached: ctx_max_pending is 1000 live timeouts for one open /dev/null
hwtimerctl batch: raise it with: echo 3000 > /sys/module/hwtimer/parameters/ctx_max_pending" ]
}
result "batch past ctx_max_pending: armed count, the cap, its value, how to raise it" \
	batch_cap
two_calls() {
	[ "$(cat "$work/fake.log")" = "batch 512 failed 0
batch 512 failed 24" ]
}
result "batch stops after the first BATCH call that failed" two_calls
fake HWTIMER_FAKE_CAP=100000 HWTIMER_FAKE_USER_CAP=700 batch 3000 --chunk 512
batch_quota() {
	[ "$rc" = 1 ] && [ "$(line 1 "$err")" = \
		"hwtimerctl batch: armed 700 of 3000 timeouts, then: Disk quota exceeded" ] &&
		[[ $(line 2 "$err") == "hwtimerctl batch: the per-user cap was reached: max_user_timeouts"* ]] &&
		[[ $(line 3 "$err") == *"/sys/module/hwtimer/parameters/max_user_timeouts"* ]]
}
result "batch past max_user_timeouts (EDQUOT): named, with its path" batch_quota
fake --json batch 80 --at 1ms --spread 1ms --chunk 64
result "batch --json: one object, numbers as numbers" py_ok '
d, = recs
assert d["n"] == 80 and d["chunk"] == 64 and d["max_late_ns"] == 1234, d
assert d.pop("backend") == "device", d
assert all(type(v) in (int, float) for v in d.values()), d'
fake batch 80 --at 1ms --spread 1ms
result "batch: text report" first_starts "batch: armed 80 timeouts in "

fake --json watch --count 3 --interval 1ms
result "watch --json --count 3: three samples, rates from the second" py_ok '
assert [r["sample"] for r in recs] == [0, 1, 2], recs
assert "fired_per_sec" not in recs[0] and "fired_per_sec" in recs[2], recs
assert recs[0]["wheel"]["tick_ns"] == 1000000, recs'
fake watch --count 2 --interval 1ms
result "watch --count 2: two samples" lines_match 2 "^monotonic wheel: pending"
fake watch --once --boottime
result "watch --once --boottime: one sample of that wheel" lines_match 1 \
	"^boottime wheel: pending"

# ---- ids past 2^53, as strings ----

# Ids of the module's 512th and later open are past 2^53, where a double
# (jq, JavaScript) rounds: --json prints each as a string of its digits.
big=9007199254740992
fake HWTIMER_FAKE_ID_BASE=$big --json arm 10ms 20ms 30ms --cancel 2
result "arm --json, ids past 2^53: each id the exact string" py_ok '
base = '"$big"'
want = [str(base + k) for k in (1, 2, 3, 2, 1, 3)]
assert [r["id"] for r in recs] == want, recs'
big_out=$out
fake HWTIMER_FAKE_ID_BASE=$big arm 10ms --every 10ms --count 2
result "arm, ids past 2^53: the text shows the id in hex, exactly" \
	lines_match 1 "^armed    #1  id 0x20000000000001  in 10.000 ms, every 10.000 ms$"

# ---- the timerfd backend: no module needed ----

# A timerfd context of this process; --device at a missing node, so that
# auto does not find a device on a host that has the module.
tfd() { run --device "$nodev" "$@"; }

# fired_sane N: the JSON records of arm are N "armed" then N "fired", each
# id a string that round-trips, every expiry at or after its deadline
# (exact: "never early"), which is at least the DURATION after the arm.
fired_sane() {
	py_ok '
n = '"$1"'
assert [r["event"] for r in recs] == ["armed"] * n + ["fired"] * n, recs
assert all(r["backend"] == "timerfd" for r in recs[:n]), recs
ids = [r["id"] for r in recs[:n]]
assert all(type(i) is str and str(int(i)) == i for i in ids), ids
assert len(set(ids)) == n, ids
for r in recs[n:]:
    assert r["id"] == ids[r["n"] - 1], r
    assert r["fire_ns"] >= r["deadline_ns"], r
    assert r["late_ns"] == r["fire_ns"] - r["deadline_ns"], r
    assert r["due_ns"] >= r["n"] * 10000000, r
    assert r["at_ns"] == r["due_ns"] + r["late_ns"], r
    assert r["read_ns"] >= r["at_ns"], r'
}
tfd --backend timerfd --json arm 10ms 20ms
result "--backend timerfd arm 10ms 20ms: two expiries, none early" fired_sane 2
tfd --json arm 10ms 20ms
result "auto without a device: arm on timerfd, two expiries, none early" \
	fired_sane 2
auto_json=$out
tfd arm 10ms 20ms --backend timerfd
tfd_arm_text() {
	quiet && [ "$(line 1 "$out")" = "backend  timerfd (--backend timerfd)" ] &&
		[[ $(line 2 "$out") =~ ^armed\ \ \ \ \#1\ \ id\ 0x[0-9a-f]+\ \ in\ 10\.000\ ms$ ]] &&
		[[ $(line 3 "$out") =~ ^armed\ \ \ \ \#2\ \ id\ 0x[0-9a-f]+\ \ in\ 20\.000\ ms$ ]] &&
		[ "$(grep -c '^fired    #[12]  at +' <<<"$out")" = 2 ] &&
		[ "$(wc -l <<<"$out")" = 5 ]
}
result "--backend timerfd arm: text names the backend, then two armed, two fired" \
	tfd_arm_text
tfd arm 10ms 20ms
result "auto without a device: the text says timerfd and why" first_is \
	"backend  timerfd (cannot open $nodev: No such file or directory (is the hwtimer module loaded?))"
tfd --backend timerfd arm --every 10ms --count 3
result "--backend timerfd arm --every 10ms --count 3: three expiries" \
	lines_match 3 "^fired    #1  at +"
tfd --backend timerfd --json arm 10ms 20ms --cancel 1
result "--backend timerfd arm --cancel 1: cancelled, the other fires" py_ok '
ev = [(r["event"], r["n"]) for r in recs]
assert ev == [("armed", 1), ("armed", 2), ("cancel", 1), ("fired", 2)], ev
assert recs[2]["result"] == "cancelled" and recs[2]["id"] == recs[0]["id"], recs
assert recs[3]["fire_ns"] >= recs[3]["deadline_ns"], recs'
tfd --backend timerfd --json batch 1000
result "--backend timerfd batch 1000: all read, the backend named" py_ok '
d, = recs
assert d["backend"] == "timerfd" and d["n"] == 1000, d
assert d["max_late_ns"] >= d["avg_late_ns"] >= 0, d'
batch_json=$out
tfd batch 1000 --at 10ms --spread 10ms
tfd_batch_text() {
	quiet && [[ $(line 1 "$out") == "batch: backend timerfd (cannot open $nodev:"* ]] &&
		[[ $(line 2 "$out") == "batch: armed 1000 timeouts in "* ]]
}
result "auto without a device: batch 1000 on timerfd, text names it" \
	tfd_batch_text
tfd --json info
result "auto without a device: info --json names timerfd and what is missing" py_ok '
d, = recs
assert d["backend"] == "timerfd" and d["device"] == "'"$nodev"'", d
assert d["device_not_used"].startswith("cannot open '"$nodev"'"), d
assert d["unavailable"] == ["module_version", "params", "monotonic", "boottime"], d
assert d["max_pending"] > 0 and d["tick_ns"] == 1000000, d
assert "params" not in d and "monotonic" not in d, d'
tfd --backend timerfd info
tfd_info() {
	first_is "timerfd backend: API $abi, event record 48 bytes" &&
		grep -q '^backend:  timerfd$' <<<"$out" &&
		grep -q '^device:   not used: --backend timerfd$' <<<"$out" &&
		grep -q 'not available without the hwtimer module' <<<"$out"
}
result "--backend timerfd info: the backend, and what needs the module" tfd_info
fake info
result "info on the device: backend device" lines_match 1 '^backend:  device$'

# ---- ids through jq ----

# ids_jq: every id of the last run's JSON, as jq reads it, is the
# string printed (no rounding) and a string.
ids_jq() {
	local printed parsed
	printed=$(grep -o '"id": "[0-9]*"' <<<"$out" | cut -d '"' -f 4)
	parsed=$(jq -r 'select(has("id")) | .id' <<<"$out") || return 1
	[ -n "$printed" ] && [ "$printed" = "$parsed" ] &&
		jq -e 'select(has("id")) | .id | type == "string"' <<<"$out" >/dev/null &&
		[ -z "$(jq -r 'select(has("id") and (.id | type != "string"))' <<<"$out")" ]
}
# batch_jq: batch's record, whose values are all below 2^53, reads back
# the same through jq.
batch_jq() {
	[ "$(jq -r '.n, .backend' <<<"$out" | tr '\n' ' ')" = "1000 timerfd " ]
}
if command -v jq >/dev/null; then
	out=$big_out
	result "jq: arm --json ids past 2^53 read back unchanged" ids_jq
	out=$auto_json
	result "jq: arm --json ids of the timerfd backend read back unchanged" ids_jq
	out=$batch_json
	result "jq: batch --json reads back" batch_jq
else
	for w in "ids past 2^53" "ids of the timerfd backend" "batch --json"; do
		echo "ok $((n += 1)) jq: $w # SKIP no jq"
	done
fi

echo "1..$n"
[ "$failed" = 0 ]
