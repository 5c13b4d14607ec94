#!/bin/sh
# Prints the path of a TrueType font for smpi-sweep's PNG plots (Debian's
# fonts-dejavu-core), installing the package first when it is missing.
set -eu
f=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
if [ ! -e "$f" ]; then
    apt-get update >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y fonts-dejavu-core >&2
fi
echo "$f"
