#!/bin/sh
# Prints the figures of issue 21's ping-pong: the wall time of one 1-byte
# message under our smpirun and SimGrid 3.32's, computation timing off and
# on. Release build. Arguments go to the benchmark (--runs N,
# --round-trips N, --no-simgrid).
set -eu
cd "$(dirname "$0")/.."
cargo build --release --workspace
exec target/release/pingpong "$@"
