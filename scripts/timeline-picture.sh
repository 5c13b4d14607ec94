#!/bin/sh
# The README's timeline picture, taken from a real run: examples/jacobi.c
# on 8 ranks traced with -trace (SimGrid's Paje format), drawn by ViTE
# (Debian's `vite`) under a virtual X server (Xvfb) with its own SVG
# export, then turned into docs/timeline-jacobi.png by rsvg-convert.
# Installs vite, xvfb and librsvg2-bin when missing.
set -eu
cd "$(dirname "$0")/.."
missing=""
command -v vite >/dev/null 2>&1 || missing="$missing vite"
command -v Xvfb >/dev/null 2>&1 || missing="$missing xvfb"
command -v rsvg-convert >/dev/null 2>&1 || missing="$missing librsvg2-bin"
if [ -n "$missing" ]; then
    apt-get update
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y $missing
fi
cargo build --release -p emulator --bins
OUT=target/timeline
mkdir -p "$OUT" docs
target/release/smpicc -O2 examples/jacobi.c -o "$OUT/jacobi"
target/release/smpirun -np 8 --cfg=smpi/simulate-computation:no -trace \
    -trace-file "$OUT/jacobi.trace" "$OUT/jacobi" 32 20
DISPLAY_NUMBER=${DISPLAY_NUMBER:-97}
Xvfb ":$DISPLAY_NUMBER" -screen 0 1280x800x24 >/dev/null 2>&1 &
XVFB=$!
trap 'kill $XVFB 2>/dev/null' EXIT
sleep 2
(cd "$OUT" && DISPLAY=":$DISPLAY_NUMBER" XDG_RUNTIME_DIR="$(pwd)" \
    vite -f jacobi.trace -e jacobi.svg >vite.log 2>&1)
rsvg-convert -w 1200 "$OUT/jacobi.svg" -o docs/timeline-jacobi.png
echo "picture: docs/timeline-jacobi.png (ViTE's drawing of $OUT/jacobi.trace)"
