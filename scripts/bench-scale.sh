#!/bin/sh
# Prints the figures of issue 27's scale benchmark: one MPI_Allreduce and
# one ring step from 2^15 to 2^20 ranks (--max-ranks 8388608 with raised
# limits), wall time and peak memory. Release build. Arguments go to the
# benchmark (--runs N, --min-ranks N, --max-ranks N, --cfg NAME:VALUE,
# --csv FILE, --svg FILE).
set -eu
cd "$(dirname "$0")/.."
cargo build --release --workspace
exec target/release/scale "$@"
