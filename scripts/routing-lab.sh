#!/bin/sh
# The routing lab of examples/labs (README, Labs): the seed study's
# comparison of minimal and Valiant routing (and UGAL) on a dragonfly, seen
# through smpirun's network statistics. Runs routing_congestion.c on a
# 256-node dragonfly (8 groups of 8 routers of 4 nodes, 10 Gb/s) with each
# routing, prints the times, the busiest inter-group (blue) link and the
# share of messages slowed at least twofold, and draws docs/routing-lab-
# links.svg (link load) and docs/routing-lab-slowdown.svg (message
# slowdowns). Usage: scripts/routing-lab.sh [BYTES] [STEPS]
set -eu
cd "$(dirname "$0")/.."
BYTES=${1:-262144}
STEPS=${2:-4}
cargo build --release -p emulator --bins
OUT=target/routing-lab
mkdir -p "$OUT" docs
target/release/smpicc -O2 examples/labs/routing_congestion.c -o "$OUT/routing_congestion"
PLATFORM='dragonfly:8,1;1,1;8,1;4:bw=10Gbps:lat=1us'
printf '%-8s %12s %18s %22s\n' routing time busiest_blue_link slowed_2x_or_more
ARGS=""
for routing in minimal valiant ugal; do
    stats="$OUT/$routing.csv"
    line=$(target/release/smpirun -platform "$PLATFORM" --cfg=smpi/simulate-computation:no \
        --cfg=network/routing:"$routing" --cfg=smpi/network-stats:"$stats" \
        "$OUT/routing_congestion" 32 "$BYTES" "$STEPS")
    time=$(echo "$line" | sed -n 's/.*steps: \([0-9.]*\) ms.*/\1 ms/p')
    blue=$(awk -F, '$1 ~ /^blue/ { if ($7 > m) m = $7 } END { printf "%.0f%%", 100 * m }' "$stats")
    slowed=$(awk -F, 'NR > 1 { n += $4; if ($2 >= 2) s += $4 } END { printf "%.0f%%", 100 * s / n }' \
        "${stats%.csv}.slowdown.csv")
    printf '%-8s %12s %18s %22s\n' "$routing" "$time" "$blue" "$slowed"
    ARGS="$ARGS $routing=$stats"
done
# shellcheck disable=SC2086
python3 scripts/routing-lab-plot.py "$OUT" $ARGS
cp "$OUT/links.svg" docs/routing-lab-links.svg
cp "$OUT/slowdown.svg" docs/routing-lab-slowdown.svg
echo "figures: docs/routing-lab-links.svg docs/routing-lab-slowdown.svg"
