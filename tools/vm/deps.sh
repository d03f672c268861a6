#!/bin/bash
# Install what the VM harness needs on a fresh Debian 12 machine (as root).
# Idempotent: does nothing when every package is already present.
set -euo pipefail

PKGS="linux-source-6.1 linux-source-6.12 linux-headers-amd64 linux-image-amd64
linux-image-6.12-amd64 linux-headers-6.12-amd64
linux-image-6.12-rt-amd64 linux-headers-6.12-rt-amd64 dkms qemu-system-x86
busybox-static bc flex bison libelf-dev libssl-dev dwarves cpio xz-utils
kmod gcc make gcc-multilib python3 rsync perl gzip trinity groff-base file openssl"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing (run as root or install them)" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
