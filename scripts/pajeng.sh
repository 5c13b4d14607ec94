#!/bin/sh
# Prints the path of pj_dump (Debian's pajeng, which reads Paje traces),
# installing pajeng first when it is missing: the tests of Paje traces
# read them back with it.
set -eu
. "$(dirname "$0")/lib/install.sh"
install_package pajeng command -v pj_dump
command -v pj_dump
