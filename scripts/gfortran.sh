#!/bin/sh
# Prints the path of gfortran, installing it first when it is missing:
# smpif90 drives it, and the Fortran tests build with smpif90.
set -eu
. "$(dirname "$0")/lib/install.sh"
install_package gfortran command -v gfortran
command -v gfortran
