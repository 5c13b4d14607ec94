#!/usr/bin/env bash
# The capacity-planning lab: how much of HPL's performance does a 512-node
# two-level fat tree keep as its top level shrinks? The sweep is the spec
# examples/hpl/hpl-capacity.toml (axes: link bandwidth, rank placement,
# top switches); this script prepares HPL for it and runs it with
# smpi-sweep.
#
#   scripts/hpl-capacity-lab.sh [-n N] [-nb NB] [--jobs J] [-o DIR]
#
# Builds HPL (scripts/hpcc.sh --prepare DIR/hpl --models, 16 x 32 ranks),
# copies the spec into DIR, runs it (smpi-sweep run, J points at a time;
# a second run does only what is missing), and plots Gflops against the
# top switches (DIR/hpl-capacity.svg; the rows are in DIR/sweep/results.csv).
# Defaults: N=20000, NB=128, J=1, DIR=hpl-capacity. Edit the copied spec to
# change the axes.
set -euo pipefail

die() { echo "hpl-capacity-lab: error: $*" >&2; exit 2; }

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
N=20000 NB=128 JOBS=1 OUT=hpl-capacity
while [[ $# -gt 0 ]]; do
    case "$1" in
        -n) N="$2"; shift 2 ;;
        -nb) NB="$2"; shift 2 ;;
        --jobs) JOBS="$2"; shift 2 ;;
        -o) OUT="$2"; shift 2 ;;
        -h|--help) sed -n '2,/^\([^#]\|$\)/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done
SWEEP="${SMPI_SWEEP:-$ROOT/target/release/smpi-sweep}"
[[ -x "$SWEEP" ]] || die "build our tools first: cargo build --release (or set SMPI_SWEEP)"
mkdir -p "$OUT"
bash "$ROOT/scripts/hpcc.sh" -n "$N" -nb "$NB" -p 16 -q 32 --models --prepare "$OUT/hpl"
[[ -f "$OUT/hpl-capacity.toml" ]] || cp "$ROOT/examples/hpl/hpl-capacity.toml" "$OUT/"
"$SWEEP" run "$OUT/hpl-capacity.toml" --out "$OUT/sweep" --jobs "$JOBS"
SMPI_SWEEP_FONT="$(sh "$ROOT/scripts/font.sh")" \
    "$SWEEP" plot "$OUT/sweep" --x tops --y gflops -o "$OUT/hpl-capacity.svg"
echo "hpl-capacity-lab: rows in $OUT/sweep/results.csv, plot in $OUT/hpl-capacity.svg" >&2
