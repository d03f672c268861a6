# shellcheck shell=bash
# Sourced by tools/vm/check.sh after its own build steps, in its scope
# (CHECK, TOP, RESULTS, say, fail_step). Runs tools/hwtimerctl/test-cli.sh
# on the host: hwtimerctl's builds (no warnings; STATIC=1 on and off
# relinks), its command line and messages, and its output against a
# stand-in device, and on libhwtimer's timerfd backend. Its JSON checks
# read ids back with jq, installed here when missing and run as root (as
# tools/vm/deps.sh installs packages); without it they are skipped.
# Counted as "hwtimerctl-cli"; never fails the sourcing script.

# jq for test-cli.sh, if it can be had; a failed install is only said.
hwtimerctl_need_jq() {
	command -v jq >/dev/null && return 0
	if [ "$(id -u)" != 0 ]; then
		say "jq is not installed (not root): test-cli.sh skips its jq checks"
		return 0
	fi
	say "installing jq for test-cli.sh"
	if ! DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1 ||
		! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends jq >/dev/null 2>&1; then
		say "jq could not be installed: test-cli.sh skips its jq checks"
	fi
}

hwtimerctl_check_hook() {
	local out=$CHECK/hwtimerctl-cli rc=0
	rm -rf "$out"
	mkdir -p "$out"
	hwtimerctl_need_jq
	say "checking hwtimerctl's command line on the host (tools/hwtimerctl/test-cli.sh)"
	"$TOP/tools/hwtimerctl/test-cli.sh" "$out/work" >"$out/cli.tap" 2>&1 ||
		rc=$?
	grep '^not ok' "$out/cli.tap" | sed 's/^/    /' || true
	python3 "$RESULTS" tap hwtimerctl-cli "$out/cli.tap" "$rc" | tail -1 |
		sed 's/^/    /' || true
}

hwtimerctl_check_hook || true
