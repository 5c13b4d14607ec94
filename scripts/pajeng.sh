#!/bin/sh
# Prints the path of pj_dump (Debian's pajeng, which reads Paje traces),
# installing pajeng first when it is missing: the tests of Paje traces
# read them back with it.
set -eu
if ! command -v pj_dump >/dev/null 2>&1; then
    # Tests run in parallel and may all find it missing: one installs while
    # the others wait on the lock, then find it installed. apt's own lock
    # is waited for too (another script may be installing something).
    flock /var/lock/smpi-apt.lock sh -c '
        command -v pj_dump >/dev/null 2>&1 && exit 0
        apt-get -o DPkg::Lock::Timeout=600 update
        DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y pajeng
    ' >&2
fi
command -v pj_dump
