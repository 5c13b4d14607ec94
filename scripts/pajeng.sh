#!/bin/sh
# Prints the path of pj_dump (Debian's pajeng, which reads Paje traces),
# installing pajeng first when it is missing: the tests of Paje traces
# read them back with it.
set -eu
if ! command -v pj_dump >/dev/null 2>&1; then
    apt-get update >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y pajeng >&2
fi
command -v pj_dump
