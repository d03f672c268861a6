#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# install-symvers.sh SRC DEST: install hwtimer's Module.symvers for modules
# that build against it (KBUILD_EXTRA_SYMBOLS=DEST). The module column,
# which kbuild fills with the build directory's path, becomes "hwtimer":
# modpost only takes the base name from it (for the consumer's depends=),
# and the build path means nothing where the file is installed.
# Used by make install and, as POST_BUILD, by DKMS (dkms.conf.in).
set -euo pipefail

[ $# = 2 ] || {
	echo "usage: $0 SRC DEST" >&2
	exit 2
}
src=$1 dest=$2
grep -q . "$src" || {
	echo "install-symvers.sh: $src lists no symbol" >&2
	exit 1
}
mkdir -p "$(dirname "$dest")"
awk 'BEGIN { FS = OFS = "\t" } { $3 = "hwtimer"; print }' "$src" >"$dest.tmp"
chmod 0644 "$dest.tmp"
mv "$dest.tmp" "$dest"
echo "installed $dest"
