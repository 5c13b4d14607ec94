#!/bin/sh
# Prints the path of a TrueType font for smpi-sweep's PNG plots (Debian's
# fonts-dejavu-core), installing the package first when it is missing.
set -eu
. "$(dirname "$0")/lib/install.sh"
f=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
install_package fonts-dejavu-core test -e "$f"
echo "$f"
