#!/bin/sh
# hwtimerctl against the loaded module: what the host-side test
# (tools/hwtimerctl/test-cli.sh) cannot see without the device.
#  - --version names the module's version (sysfs) and its ABI;
#  - info --json is valid JSON (checked by a small awk parser: the guest
#    has no python) with numbers unquoted and no placeholder key;
#  - arm's "at" column is the fire time: never before the deadline
#    (exact: the event's fire_ns >= deadline_ns), at = due + late;
#  - watch --count N prints N samples, --count 0 is refused;
#  - batch past ctx_max_pending (set to 1000 here) and past
#    max_user_timeouts (set to 1500) says how many were armed, the cap,
#    its value and how to raise it; both parameters are restored.
ctl=$HWTIMER_DIR/bin/hwtimerctl
runas=$HWTIMER_DIR/bin/hwtimer_runas
prm=/sys/module/hwtimer/parameters
out=/tmp/ctl.out err=/tmp/ctl.err
n=0 rc=0

echo "TAP version 13"

# result WHAT CMD...: one TAP line, "ok" when CMD succeeds; the last
# run's status and output follow a failure as diagnostics.
result() {
	what=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n $what"
		return 0
	fi
	echo "not ok $n $what"
	echo "# exit status $rc"
	sed -n '1,15s/^/# stdout: /p' "$out"
	sed -n '1,15s/^/# stderr: /p' "$err"
	return 1
}

# run ARGS...: hwtimerctl with ARGS, killed after 60 s (a run that
# should end but does not fails, instead of hanging the fragment); sets
# rc, $out and $err.
run() {
	timeout 60 "$ctl" "$@" >"$out" 2>"$err"
	rc=$?
}

line() { sed -n "${1}p" "$2"; }
# Exit 0 and nothing on stderr, and then: stdout's first line is TEXT, or
# starts with TEXT; N lines match the regex RE.
quiet() { [ "$rc" = 0 ] && [ ! -s "$err" ]; }
first_is() { quiet && [ "$(line 1 "$out")" = "$1" ]; }
first_starts() { quiet && case $(line 1 "$out") in "$1"*) ;; *) false ;; esac; }
lines_match() { quiet && [ "$(grep -c -- "$2" "$out")" = "$1" ]; }
# usage_is TEXT: exit 2, stderr's first line TEXT.
usage_is() { [ "$rc" = 2 ] && [ "$(line 1 "$err")" = "$1" ]; }

# JSON_AWK: an awk program that fails unless every line is one JSON text.
JSON_AWK='
	function fail(why) {
		printf "# line %d, column %d: %s\n", NR, i, why
		bad = 1
		exit 1
	}
	function after() { return sp == 0 ? "end" : "sep" }
	function str(c) {
		for (i++; i <= len; i++) {
			c = substr(s, i, 1)
			if (c == "\\")
				i++
			else if (c == "\"")
				return i++
		}
		fail("unterminated string")
	}
	{
		s = $0; len = length(s); sp = 0; want = "value"
		for (i = 1; i <= len && !bad;) {
			c = substr(s, i, 1)
			if (c == " ") {
				i++
			} else if (want == "end") {
				fail("text after the end")
			} else if (want == "colon") {
				if (c != ":")
					fail("\":\" expected")
				i++
				want = "value"
			} else if (want == "sep") {
				if (c == ",") {
					want = stack[sp] == "{" ? "key" : "value"
				} else if ((c == "}" && stack[sp] == "{") ||
					   (c == "]" && stack[sp] == "[")) {
					sp--
					want = after()
				} else {
					fail("\",\" or a close expected")
				}
				i++
			} else if (want ~ /^key/) {
				if (c == "}" && want == "key_or_close") {
					sp--
					i++
					want = after()
				} else if (c == "\"") {
					str()
					want = "colon"
				} else {
					fail("a key expected")
				}
			} else if (c == "]" && want == "value_or_close") {
				sp--
				i++
				want = after()
			} else if (c == "{" || c == "[") {
				stack[++sp] = c
				i++
				want = c == "{" ? "key_or_close" : "value_or_close"
			} else if (c == "\"") {
				str()
				want = after()
			} else if (match(substr(s, i), /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/)) {
				i += RLENGTH
				want = after()
			} else if (substr(s, i, 4) == "true" || substr(s, i, 4) == "null") {
				i += 4
				want = after()
			} else if (substr(s, i, 5) == "false") {
				i += 5
				want = after()
			} else {
				fail("a value expected")
			}
		}
		if (!bad && want != "end")
			fail("unexpected end")
	}
	END { exit bad }'

# json_ok: every line of $out is one JSON text.
json_ok() { awk "$JSON_AWK" "$out"; }

# fields KEY...: the numbers of KEY... in each line of $out, one line each.
fields() {
	awk -v keys="$*" '{
		n = split(keys, k, " ")
		row = ""
		for (j = 1; j <= n; j++) {
			v = "-"
			if (match($0, "\"" k[j] "\": [0-9]+"))
				v = substr($0, RSTART + length(k[j]) + 4,
					   RLENGTH - length(k[j]) - 4)
			row = row (j > 1 ? " " : "") v
		}
		print row
	}' "$out"
}

if [ ! -x "$ctl" ] || [ ! -c /dev/hwtimer ]; then
	echo "not ok 1 hwtimerctl in the initramfs and /dev/hwtimer present"
	echo "1..1"
	exit 1
fi
old_cap=$(cat "$prm/ctx_max_pending")
old_user=$(cat "$prm/max_user_timeouts")
restore() {
	echo "$old_cap" >"$prm/ctx_max_pending"
	echo "$old_user" >"$prm/max_user_timeouts"
}
trap restore EXIT

# ---- version ----

run --version
ver=$(line 1 "$out" | awk '{ print $2 }')
abi=$(line 1 "$out" | sed -n 's/.*(ABI \([0-9]*\))$/\1/p')
modver=$(cat /sys/module/hwtimer/version 2>/dev/null)
echo "# hwtimerctl $ver, ABI $abi; module $modver"
version_ok() {
	quiet && [ -n "$ver" ] && [ -n "$abi" ] && [ "$modver" = "$ver" ] &&
		[ "$(line 2 "$out")" = "hwtimer module $ver (ABI $abi, /dev/hwtimer)" ]
}
result "--version: the module's version (sysfs, same header) and ABI" \
	version_ok

# ---- info ----

run --json info
one_json_line() { quiet && [ "$(wc -l <"$out")" = 1 ] && json_ok; }
result "info --json: one line of valid JSON" one_json_line
info_typed() {
	quiet && ! grep -q '"_"' "$out" && ! grep -q '": "[0-9][0-9]*"' "$out" &&
		grep -q "\"module_version\": \"$modver\", \"api\": $abi, " "$out" &&
		grep -q '"ctx_max_pending": [0-9]' "$out" &&
		grep -q '"monotonic": {"tick_ns": [1-9]' "$out" &&
		grep -q '"lateness_log2": \[[0-9]' "$out"
}
result "info --json: numbers unquoted, no placeholder key" info_typed
run info
result "info: first line names device, module and API" first_is \
	"/dev/hwtimer: module $modver, API $abi, event record 48 bytes"

# ---- arm: "at" is the fire time ----

run --json arm 30ms 10ms 20ms
three_and_three() {
	quiet && json_ok && [ "$(grep -c '"event": "armed"' "$out")" = 3 ] &&
		[ "$(grep -c '"event": "fired"' "$out")" = 3 ]
}
result "arm --json: valid JSON, three armed and three fired" three_and_three
fired_times() {
	grep '"event": "fired"' "$out" >"$out.f" && mv "$out.f" "$out" &&
		fields n deadline_ns fire_ns late_ns due_ns at_ns >"$out.t" &&
		awk '{
			after = ($1 == 1 ? 30 : $1 == 2 ? 10 : 20) * 1000000
			if ($3 < $2 || $6 < $5 || $6 != $5 + $4 ||
			    $3 - $2 != $4 || $5 < after) {
				print "# bad: " $0
				bad = 1
			}
		} END { exit bad + (NR != 3) }' "$out.t"
}
result "arm --json: fire_ns >= deadline_ns, at = due + late >= after" \
	fired_times
run arm 20ms
text_at() {
	quiet && awk '$1 == "fired" && $3 == "at" {
		v = substr($4, 2) + 0
		m = $5 == "ns" ? 1e-6 : $5 == "us" ? 1e-3 : $5 == "ms" ? 1 : 1000
		seen++
		if (v * m < 20) {
			print "# fired before its deadline: " $0
			bad = 1
		}
	} END { exit bad + (seen != 1) }' "$out"
}
result "arm: the 'at +T' column is never before the 20ms deadline" text_at
run arm 50ms 100ms 150ms --cancel 2
cancel_ok() {
	quiet && grep -q '^cancel   #2  id 0x[0-9a-f]*  -> cancelled before firing$' "$out" &&
		[ "$(grep -c '^fired    #[13]  at +' "$out")" = 2 ] &&
		! grep -q '^fired    #2' "$out"
}
result "arm --cancel 2: #2 cancelled, #1 and #3 fired" cancel_ok
run --json arm --every 20ms --count 3
periodic_ok() {
	quiet && json_ok && grep '"event": "fired"' "$out" >"$out.f" &&
		mv "$out.f" "$out" && fields overruns deadline_ns fire_ns |
		awk '{ seen += 1 + $1; if ($3 < $2) bad = 1 }
			END { exit bad + (seen < 3) + (NR > 3) }'
}
result "arm --every 20ms --count 3: three expiries, none early" periodic_ok
for d in / "$HWTIMER_DIR" "$HWTIMER_DIR/bin"; do
	chmod a+rx "$d"
done
timeout 60 "$runas" 65534 65534 "$ctl" arm 10ms >"$out" 2>"$err"
rc=$?
result "arm as nobody" lines_match 1 '^fired    #1  at +'

# ---- watch ----

run watch --count 3 --interval 100ms
three_samples() {
	lines_match 3 "^monotonic wheel: pending" && lines_match 2 "^  rates: "
}
result "watch --count 3: three samples, rates from the second" three_samples
run --json watch --count 2 --interval 50ms
two_json_samples() {
	quiet && json_ok && [ "$(fields sample | tr '\n' ' ')" = "0 1 " ]
}
result "watch --json --count 2: two JSON samples" two_json_samples
run watch --count 0
result "watch --count 0: refused, exit 2" usage_is \
	"hwtimerctl watch: --count 0: must be at least 1 (leave --count out to sample until interrupted)"

# ---- batch and the caps ----

run batch 1000 --at 50ms --spread 50ms
result "batch 1000: all armed and read back" first_starts \
	"batch: armed 1000 timeouts in "

# watch opens no rings, whose drain would count in the wheel's arms.
wheel_armed() {
	timeout 60 "$ctl" --json watch --once | awk 'match($0, /"armed": [0-9]+/) {
		print substr($0, RSTART + 9, RLENGTH - 9) }'
}
echo 1000 >"$prm/ctx_max_pending"
ctx_cap_ok() {
	[ "$rc" = 1 ] && [ ! -s "$out" ] && [ "$(cat "$err")" = \
"hwtimerctl batch: armed 1000 of 3000 timeouts, then: No space left on device
hwtimerctl batch: the per-context cap was reached: ctx_max_pending is 1000 live timeouts for one open /dev/hwtimer
hwtimerctl batch: raise it with: echo 3000 > /sys/module/hwtimer/parameters/ctx_max_pending" ]
}
run batch 3000 --chunk 512 --at 10s
result "batch 3000 past ctx_max_pending=1000: armed count, cap, value, how to raise it" \
	ctx_cap_ok
# Without the timer rings, whose periodic drain is a wheel timeout too, the
# wheel sees none of a context's timeouts: only the context's one wake-up,
# armed again as its earliest deadline moves.
before=$(wheel_armed)
HWTIMER_NO_RINGS=1 timeout 60 "$ctl" batch 3000 --chunk 512 --at 10s \
	>"$out" 2>"$err"
rc=$?
after=$(wheel_armed)
result "batch past the cap, without the rings: the same answer" ctx_cap_ok
result "batch past the cap: the timeouts stay off the shared wheel ($before -> $after)" \
	[ "$((after - before))" -lt 100 ]
echo "$old_cap" >"$prm/ctx_max_pending"

echo 1500 >"$prm/max_user_timeouts"
run batch 3000 --chunk 512 --at 10s
user_cap_ok() {
	[ "$rc" = 1 ] && [ ! -s "$out" ] && [ "$(cat "$err")" = \
"hwtimerctl batch: armed 1500 of 3000 timeouts, then: Disk quota exceeded
hwtimerctl batch: the per-user cap was reached: max_user_timeouts is 1500, for all of this user's open /dev/hwtimer files together
hwtimerctl batch: raise it with: echo 3000 > /sys/module/hwtimer/parameters/max_user_timeouts" ]
}
result "batch 3000 past max_user_timeouts=1500 (EDQUOT): named, valued, how to raise it" \
	user_cap_ok
restore
restored() {
	[ "$(cat "$prm/ctx_max_pending")" = "$old_cap" ] &&
		[ "$(cat "$prm/max_user_timeouts")" = "$old_user" ]
}
result "ctx_max_pending and max_user_timeouts restored" restored

echo "1..$n"
