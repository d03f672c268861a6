# shellcheck shell=bash
# Sourced by tools/vm/check.sh after its own build steps, in its scope
# (CHECK, TOP, RESULTS, say, fail_step). Runs tools/hwtimerctl/test-cli.sh
# on the host: hwtimerctl's builds (no warnings; STATIC=1 on and off
# relinks), its command line and messages, and its output against a
# stand-in device. Counted as "hwtimerctl-cli"; never fails the sourcing
# script.

hwtimerctl_check_hook() {
	local out=$CHECK/hwtimerctl-cli rc=0
	rm -rf "$out"
	mkdir -p "$out"
	say "checking hwtimerctl's command line on the host (tools/hwtimerctl/test-cli.sh)"
	"$TOP/tools/hwtimerctl/test-cli.sh" "$out/work" >"$out/cli.tap" 2>&1 ||
		rc=$?
	grep '^not ok' "$out/cli.tap" | sed 's/^/    /' || true
	python3 "$RESULTS" tap hwtimerctl-cli "$out/cli.tap" "$rc" | tail -1 |
		sed 's/^/    /' || true
}

hwtimerctl_check_hook || true
