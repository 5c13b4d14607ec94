#!/bin/sh
# Prints the path of gfortran, installing it first when it is missing:
# smpif90 drives it, and the Fortran tests build with smpif90.
set -eu
if ! command -v gfortran >/dev/null 2>&1; then
    # Tests run in parallel and may all find it missing: one installs while
    # the others wait on the lock, then find it installed. apt's own lock
    # is waited for too (another script may be installing something).
    flock /var/lock/smpi-apt.lock sh -c '
        command -v gfortran >/dev/null 2>&1 && exit 0
        apt-get -o DPkg::Lock::Timeout=600 update
        DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y gfortran
    ' >&2
fi
command -v gfortran
