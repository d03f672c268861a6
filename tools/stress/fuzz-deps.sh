#!/bin/bash
# clang and its libFuzzer runtime for tools/testing/wheel/fuzz (Debian 12).
set -euo pipefail
echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
	clang -x c -fsanitize=fuzzer -o /dev/null - 2>/dev/null && exit 0
[ "$(id -u)" = 0 ] || { echo "fuzz-deps: need clang and libclang-rt-dev" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends clang libclang-rt-dev >/dev/null
