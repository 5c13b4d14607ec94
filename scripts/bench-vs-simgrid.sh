#!/bin/sh
# Prints the figures of issue 4: our smpirun beside SimGrid 3.32's on the
# same programs and platforms, and the fluid solver alone. Release build;
# installs SimGrid's smpicc/smpirun (Debian's libsimgrid-dev) if missing.
# Arguments go to the benchmark (--runs N, --no-simgrid, --only a|b|c,
# --max-ranks N).
set -eu
cd "$(dirname "$0")/.."
if ! [ -x /usr/bin/smpirun ] && ! echo "$*" | grep -q -- --no-simgrid; then
    apt-get update
    apt-get install -y libsimgrid-dev
fi
cargo build --release --workspace
exec target/release/vs-simgrid "$@"
