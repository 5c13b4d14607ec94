#!/bin/sh
# Prints the path of gfortran, installing it first when it is missing:
# smpif90 drives it, and the Fortran tests build with smpif90.
set -eu
if ! command -v gfortran >/dev/null 2>&1; then
    apt-get update >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y gfortran >&2
fi
command -v gfortran
