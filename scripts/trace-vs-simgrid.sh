#!/bin/sh
# Issue 20's trace acceptance beside SimGrid 3.32: traces a held-out
# pattern program (tests/c/trace_pattern.c, 16 ranks, computation timing
# off, explicit computations) with our -trace-ti and SimGrid's, compares
# the files, and replays each trace with SimGrid's smpirun and with ours.
# Prints the four simulated times and the two gaps the issue bounds
# (SimGrid's replay of our trace vs of its own: 0.1%; our replay of
# SimGrid's trace vs SimGrid's: 1%). Installs SimGrid (Debian's
# libsimgrid-dev) if missing. Usage: scripts/trace-vs-simgrid.sh [NP]
set -eu
cd "$(dirname "$0")/.."
NP=${1:-16}
if ! [ -x /usr/bin/smpirun ]; then
    apt-get update
    apt-get install -y libsimgrid-dev
fi
cargo build --release -p emulator --bins
ROOT=$(pwd)
WORK=$(mktemp -d /tmp/trace-vs-simgrid.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
cat > platform.xml <<'XML'
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="c" prefix="node-" suffix="" radical="0-63" speed="1Gf" bw="10Gbps" lat="1us"
           bb_bw="40Gbps" bb_lat="1us"/>
</platform>
XML
NOCOMP=--cfg=smpi/simulate-computation:no
"$ROOT/target/release/smpicc" -O1 "$ROOT/tests/c/trace_pattern.c" -o ours
/usr/bin/smpicc -O1 "$ROOT/tests/c/trace_pattern.c" -o theirs 2>/dev/null
"$ROOT/target/release/smpirun" -quiet -np "$NP" -platform platform.xml $NOCOMP \
    -trace-ti -trace-file ours.txt ./ours
/usr/bin/smpirun -np "$NP" -platform platform.xml $NOCOMP --log=root.thres:critical \
    -trace-ti -trace-file theirs.txt ./theirs
differing=0
r=0
while [ "$r" -lt "$NP" ]; do
    a=$(sed -n "$((r + 1))p" ours.txt)
    b=$(sed -n "$((r + 1))p" theirs.txt)
    cmp -s "$a" "$b" || differing=$((differing + 1))
    r=$((r + 1))
done
echo "rank files that differ from SimGrid's: $differing of $NP"
sg_replay() {
    /usr/bin/smpirun -np "$NP" -platform platform.xml -replay "$1" --log=smpi_config.thres:warning \
        2>&1 | sed -n 's/.*Simulation time //p' | tail -1
}
our_replay() {
    "$ROOT/target/release/smpirun" -np "$NP" -platform platform.xml -replay "$1" 2>&1 \
        | sed -n 's/.*Simulation time //p' | tail -1
}
sg_own=$(sg_replay theirs.txt)
sg_ours=$(sg_replay ours.txt)
us_theirs=$(our_replay theirs.txt)
us_own=$(our_replay ours.txt)
echo "SimGrid replays its trace: $sg_own s; our trace: $sg_ours s"
echo "smpirun replays SimGrid's trace: $us_theirs s; our trace: $us_own s"
awk -v a="$sg_own" -v b="$sg_ours" -v c="$us_theirs" 'BEGIN {
    d1 = (b - a) / a * 100; d2 = (c - a) / a * 100
    printf "SimGrid, our trace vs its own: %+.3f%% (bound 0.1%%)\n", d1
    printf "smpirun vs SimGrid on SimGrid'"'"'s trace: %+.3f%% (bound 1%%)\n", d2
    exit !(d1 <= 0.1 && d1 >= -0.1 && d2 <= 1 && d2 >= -1)
}'
