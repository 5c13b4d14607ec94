#!/bin/sh
# The exascale labs of examples/labs (README, Labs): the seed study's two
# patterns, the 2-D spectral transposition (transpose_2d.c) and the halo
# exchange + allreduce (halo_allreduce.c), on a 16,384-node dragonfly
# (32 groups of 4 chassis of 32 routers of 4 nodes, 10 Gb/s, 1 us; 4x
# faster links between groups), with minimal and Valiant routing, at
# several numbers of ranks (the first P nodes of the machine: a job of P
# ranks on it). Computation timing is off, buffers of the transposition
# are folded (SMPI_SHARED_MALLOC: not checked; the e2e tests check them on
# small runs). Writes target/exascale-labs/results.csv (simulated times,
# wall time and peak memory of each run, from /usr/bin/time) and draws
# docs/exascale-labs.svg.
#
#   scripts/exascale-labs.sh [RANKS...]        (default: 1024 4096 16384)
#
# Environment: LABS ("transpose_2d halo_allreduce"), ROUTINGS ("minimal
# valiant"), BYTES per pair of the transposition (4096), CELLS doubles per
# halo face (1024), STEPS of the halo lab (4), LIMIT of wall seconds per
# run (600, the acceptance bound of issue 21: a run stopped there is
# recorded as such, with the simulated time it reached), APPEND=1 to add
# rows to the CSV instead of starting it afresh. Runs one simulation at a
# time, under nice. If 16,384 ranks run out of memory mappings
# (vm.max_map_count), smpirun says so: `sysctl -w vm.max_map_count=262144`
# as root.
set -eu
cd "$(dirname "$0")/.."
RANKS=${*:-1024 4096 16384}
LABS=${LABS:-transpose_2d halo_allreduce}
ROUTINGS=${ROUTINGS:-minimal valiant}
BYTES=${BYTES:-4096}
CELLS=${CELLS:-1024}
STEPS=${STEPS:-4}
LIMIT=${LIMIT:-600}
PLATFORM='dragonfly:32,4;4,1;32,1;4:bw=10Gbps:lat=1us'
cargo build --release -p emulator --bins
BIN=${CARGO_TARGET_DIR:-target}/release
OUT=target/exascale-labs
mkdir -p "$OUT" docs
"$BIN/smpicc" -O2 examples/labs/transpose_2d.c -o "$OUT/transpose_2d"
"$BIN/smpicc" -O2 examples/labs/halo_allreduce.c -o "$OUT/halo_allreduce"
CSV="$OUT/results.csv"
[ "${APPEND:-0}" = 1 ] && [ -f "$CSV" ] ||
    echo "lab,ranks,grid,routing,time1_s,time2_s,wall_s,peak_kb,status" > "$CSV"

# The ROWS of a near-square grid of P ranks: the largest divisor <= sqrt(P).
rows_of() {
    awk -v p="$1" 'BEGIN { r = int(sqrt(p)); while (p % r) r--; print r }'
}

# run LAB RANKS ROUTING ARGS...: one simulation, one CSV row.
run() {
    lab=$1 ranks=$2 routing=$3
    shift 3
    log="$OUT/$lab-$ranks-$routing"
    status=ok
    nice -n 10 /usr/bin/time -f "%e %M" -o "$log.time" "$BIN/smpirun" -np "$ranks" \
        -platform "$PLATFORM" --cfg=smpi/simulate-computation:no \
        --cfg=network/routing:"$routing" --cfg=smpi/wall-time-limit:"$LIMIT" \
        "$OUT/$lab" "$@" > "$log.out" 2> "$log.err" || status=failed
    line=$(cat "$log.out")
    if [ $status = failed ]; then
        status=$(sed -n 's/.*reached at simulated time \([0-9.]*\) s.*/stopped at simulated \1 s/p' \
            "$log.err" | head -n 1)
        [ -n "$status" ] || status="failed: $(head -c 200 "$log.err" | tr '\n,' '  ')"
    fi
    grid=$(echo "$line" | sed -n 's/^\([0-9]*\) x \([0-9]*\) ranks.*/\1x\2/p')
    case $lab in
    transpose_2d) t=$(echo "$line" | sed -n 's/.*rows \([0-9.]*\) s, rows+columns \([0-9.]*\) s.*/\1,\2/p') ;;
    *) t=$(echo "$line" | sed -n 's/.*halo \([0-9.]*\) s, allreduce \([0-9.]*\) s.*/\1,\2/p') ;;
    esac
    case $line in *WRONG*) status="data WRONG" ;; esac
    [ -n "$t" ] || t=","
    wall_mem=$(tail -n 1 "$log.time" | tr ' ' ',')
    echo "$lab,$ranks,$grid,$routing,$t,$wall_mem,$status" | tee -a "$CSV"
}

for ranks in $RANKS; do
    for routing in $ROUTINGS; do
        for lab in $LABS; do
            case $lab in
            transpose_2d) run transpose_2d "$ranks" "$routing" "$(rows_of "$ranks")" "$BYTES" 1 shared ;;
            halo_allreduce) run halo_allreduce "$ranks" "$routing" "$CELLS" "$STEPS" ;;
            *) echo "unknown lab $lab" >&2 && exit 2 ;;
            esac
        done
    done
done
python3 scripts/exascale-labs-plot.py "$CSV" docs/exascale-labs.svg
echo "results: $CSV; figure: docs/exascale-labs.svg"
