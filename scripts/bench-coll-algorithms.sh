#!/bin/sh
# Prints the figures of issue 6: the simulated time of every collective
# algorithm from 64 to 4,096 ranks of a fat tree. Release build. Arguments
# go to the benchmark (--max-ranks N, --mem-gb G, --only allreduce|alltoall).
set -eu
cd "$(dirname "$0")/.."
cargo build --release --workspace
exec target/release/coll-algorithms "$@"
