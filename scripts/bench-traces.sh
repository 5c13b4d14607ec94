#!/bin/sh
# Issue 20's overhead figures: bench/c/allreduce.c (ITERATIONS allreduces)
# on NP ranks of the built-in cluster, computation timing off, RUNS times
# each (median wall time, from smpirun's closing line):
#   off      untraced, this build
#   before   untraced, the build in BEFORE (a worktree of an older commit,
#            built in release; skipped when BEFORE is unset)
#   ti       with -trace-ti
#   replay   replaying that TI trace (no program)
#   paje     with -trace
#   perfetto with the Perfetto writer
#   computing, replayed: bench/c/compute_allreduce.c (real computation
#            between the allreduces) traced, and the replay of its trace
# Usage: [BEFORE=/path/to/worktree] scripts/bench-traces.sh [NP] [ITERATIONS] [RUNS]
set -eu
cd "$(dirname "$0")/.."
NP=${1:-4096}
ITER=${2:-10}
RUNS=${3:-5}
cargo build --release -p emulator --bins >/dev/null 2>&1
OUT=target/bench-traces
mkdir -p "$OUT"
target/release/smpicc -O2 bench/c/allreduce.c -o "$OUT/allreduce"
NC=--cfg=smpi/simulate-computation:no
wall() { sed -n 's/.*wall time \([0-9.]*\) s.*/\1/p' | tail -1; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
measure() {
    label=$1
    shift
    i=0
    while [ "$i" -lt "$RUNS" ]; do
        "$@" --cfg=smpi/display-timing:yes 2>&1 | wall
        i=$((i + 1))
    done | median | awk -v l="$label" '{ printf "%-9s %8.3f s\n", l, $1; print l, $1 > "/dev/stderr" }'
}
run() { target/release/smpirun -np "$NP" $NC "$@"; }
echo "$NP ranks, $ITER allreduce, median of $RUNS runs (wall time)"
measure off run "$OUT/allreduce" "$ITER" 2>>"$OUT/figures"
if [ -n "${BEFORE:-}" ]; then
    measure before "$BEFORE/target/release/smpirun" -np "$NP" $NC "$OUT/allreduce" "$ITER" \
        2>>"$OUT/figures"
fi
measure ti run -trace-ti -trace-file "$OUT/ti.txt" "$OUT/allreduce" "$ITER" 2>>"$OUT/figures"
measure replay run -replay "$OUT/ti.txt" 2>>"$OUT/figures"
measure paje run -trace -trace-file "$OUT/t.trace" "$OUT/allreduce" "$ITER" 2>>"$OUT/figures"
measure perfetto run --cfg=tracing:yes --cfg=tracing/smpi:yes --cfg=tracing/smpi/format:perfetto \
    --cfg=tracing/filename:"$OUT/t.pftrace" "$OUT/allreduce" "$ITER" 2>>"$OUT/figures"
# The replay's purpose: a program that computes for real (measured by the
# simulator) against the replay of its trace, which only simulates it.
target/release/smpicc -O2 bench/c/compute_allreduce.c -o "$OUT/compute"
SPEED=--cfg=smpi/host-speed:1Gf
measure computing target/release/smpirun -np "$NP" $SPEED -trace-ti -trace-file "$OUT/c.txt" \
    "$OUT/compute" "$ITER" 100000 2>>"$OUT/figures"
measure replayed target/release/smpirun -np "$NP" $SPEED -replay "$OUT/c.txt" 2>>"$OUT/figures"
