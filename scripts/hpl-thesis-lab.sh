#!/usr/bin/env bash
# The HPL thesis lab: HPL's predicted Gflops on a 4,096-node fat tree as a
# function of N, of the grid shape and of the number of top switches. The
# sweep is the spec examples/hpl/hpl-thesis.toml (axes n, grid, tops);
# this script prepares HPL for it and runs it with smpi-sweep.
#
#   scripts/hpl-thesis-lab.sh [--jobs J] [-o DIR]
#
# Builds HPL (scripts/hpcc.sh --prepare DIR/hpl --models, NB = 512), writes
# one input file per N and grid of the spec's axes (DIR/hpl/inputs/N-PxQ/),
# copies the spec into DIR, runs it (smpi-sweep run, J points at a time;
# a second run does only what is missing) and plots Gflops against N and
# against the top switches (DIR/hpl-thesis-n.svg, DIR/hpl-thesis-tops.svg;
# the rows are in DIR/sweep/results.csv). Defaults: J=1, DIR=hpl-thesis.
# A point takes 1 to 4 minutes and 4.5 GB (the 4,096 ranks' stacks and
# folded matrices); J=2 needs 10 GB. Edit the copied spec to change the
# axes: a new N or grid gets its input file at the next run.
set -euo pipefail

die() { echo "hpl-thesis-lab: error: $*" >&2; exit 2; }

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
JOBS=1 OUT=hpl-thesis NB=512
while [[ $# -gt 0 ]]; do
    case "$1" in
        --jobs) JOBS="$2"; shift 2 ;;
        -o) OUT="$2"; shift 2 ;;
        -h|--help) sed -n '2,/^\([^#]\|$\)/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done
SWEEP="${SMPI_SWEEP:-$ROOT/target/release/smpi-sweep}"
[[ -x "$SWEEP" ]] || die "build our tools first: cargo build --release (or set SMPI_SWEEP)"
mkdir -p "$OUT"
bash "$ROOT/scripts/hpcc.sh" -n 51200 -nb "$NB" -p 64 -q 64 --models --prepare "$OUT/hpl"
[[ -f "$OUT/hpl-thesis.toml" ]] || cp "$ROOT/examples/hpl/hpl-thesis.toml" "$OUT/"

# The values of axis $1 in the spec, one per line (a list of numbers or of
# quoted strings on one line).
axis() {
    sed -n "s/^$1 *= *\[\(.*\)\]/\1/p" "$OUT/hpl-thesis.toml" | tr ',' '\n' | tr -d ' "'
}
# HPL's input file holds N (line 6), P (line 11) and Q (line 12).
for n in $(axis n); do
    for grid in $(axis grid); do
        [[ "$grid" =~ ^([0-9]+)x([0-9]+)$ ]] || die "grid '$grid' is not PxQ"
        p="${BASH_REMATCH[1]}" q="${BASH_REMATCH[2]}"
        (( p * q == 4096 )) || die "grid $grid is not 4,096 ranks"
        dir="$OUT/hpl/inputs/$n-$grid"
        mkdir -p "$dir"
        awk -v n="$n" -v p="$p" -v q="$q" '
            NR == 6 { $1 = n } NR == 11 { $1 = p } NR == 12 { $1 = q } { print }
        ' "$OUT/hpl/hpccinf.txt" > "$dir/hpccinf.txt"
    done
done

"$SWEEP" run "$OUT/hpl-thesis.toml" --out "$OUT/sweep" --jobs "$JOBS"
FONT="$(sh "$ROOT/scripts/font.sh")"
SMPI_SWEEP_FONT="$FONT" "$SWEEP" plot "$OUT/sweep" --x n --y gflops --series grid \
    -o "$OUT/hpl-thesis-n.svg"
SMPI_SWEEP_FONT="$FONT" "$SWEEP" plot "$OUT/sweep" --x tops --y gflops --series grid \
    -o "$OUT/hpl-thesis-tops.svg"
echo "hpl-thesis-lab: rows in $OUT/sweep/results.csv, plots in $OUT/hpl-thesis-n.svg and $OUT/hpl-thesis-tops.svg" >&2
