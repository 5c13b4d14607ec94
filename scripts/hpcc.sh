#!/usr/bin/env bash
# Builds HPCC (HPL and the other HPC Challenge kernels) from the Debian
# `hpcc` source package with our smpicc, unmodified, and runs it with our
# smpirun. Nothing of HPCC enters the repository: the source is fetched
# into a scratch directory.
#
#   scripts/hpcc.sh [-n N] [-nb NB] [-p P] [-q Q] [--all | --models]
#                   [--phases] [--prepare DIR] [-- SMPIRUN_OPTIONS...]
#
# Runs P x Q ranks on HPL's N x N system (default N=2000, NB=80, 2 x 2),
# prints HPL's result line and its residual check, and fails unless the
# check passed. By default only HPL runs (HPCC's HPL_main under a small
# driver of ours); --all runs the whole HPC Challenge (PTRANS, DGEMM,
# STREAM, FFT, RandomAccess, latency and bandwidth, then HPL).
#
# --models runs the same unmodified HPL without its arithmetic: the BLAS
# kernel models (calibrated once on this machine into
# $HPCC_SCRATCH/blas-models.toml), HPL's function models
# (examples/hpl/hpl_models.c, built here against HPL's headers), and
# folding of every allocation of at least 64 KiB (the matrix and the panels),
# and HPL's own code between calls measured on the monotonic clock
# (smpi/bench-clock:wall: HPL makes millions of calls, and the thread's CPU
# clock costs a system call per reading; pass --cfg=smpi/bench-clock:cpu
# after -- on a busy machine). No value is computed, so HPL's residual check
# is switched off. Kernels run at the efficiency they have on this machine
# (their rate over its peak) times the simulated hosts' speed
# (smpi/blas-model-scale:peak), and HPL's own code and the function models
# are charged at that peak too (smpi/host-speed defaults to it). To compare
# with a plain run in the same terms, give the plain run the model file's
# peak: --cfg=smpi/host-speed:PEAK after -- (the line peak = in
# $HPCC_SCRATCH/blas-models.toml).
#
# --phases builds HPL with its detailed timing (HPL_DETAILED_TIMING) and
# prints, after the result, the time of each phase of the factorization
# (panel factorization, its pivot search and swaps, the trailing update,
# its row swaps, the triangular solve) on the simulated clock, the
# slowest rank's: what to compare between a plain and a modelled run.
#
# --prepare DIR runs nothing: it puts in DIR what a run needs, for runs
# made another way (smpi-sweep, see examples/hpl/hpl-capacity.toml): the
# program (xhpl), the input file for N, NB, P and Q (hpccinf.txt) and, with
# --models, the model library (hpl_models.so) and the kernel models
# (blas-models.toml). Environment:
#   HPCC_SCRATCH  where the source is unpacked and built (default /tmp/smpi-hpcc)
#   SMPICC, SMPIRUN  our tools (default: target/release of this checkout)
# It installs libopenblas-dev (HPL's BLAS) with apt-get when missing.
set -euo pipefail

die() { echo "hpcc: error: $*" >&2; exit 2; }
note() { echo "hpcc: $*" >&2; }

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
N=2000 NB=80 P=2 Q=2 ALL=0 MODELS=0 PHASES=0 PREPARE=""
RUN_ARGS=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        -n) N="$2"; shift 2 ;;
        -nb) NB="$2"; shift 2 ;;
        -p) P="$2"; shift 2 ;;
        -q) Q="$2"; shift 2 ;;
        --all) ALL=1; shift ;;
        --models) MODELS=1; shift ;;
        --phases) PHASES=1; shift ;;
        --prepare) PREPARE="$2"; shift 2 ;;
        --) shift; RUN_ARGS=("$@"); break ;;
        -h|--help) sed -n '2,/^\([^#]\|$\)/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done
SCRATCH="${HPCC_SCRATCH:-/tmp/smpi-hpcc}"
SMPICC="${SMPICC:-$ROOT/target/release/smpicc}"
SMPIRUN="${SMPIRUN:-$ROOT/target/release/smpirun}"
[[ -x "$SMPICC" && -x "$SMPIRUN" ]] || die "build our tools first: cargo build --release (or set SMPICC and SMPIRUN)"

# shellcheck source=lib/debian-source.sh
. "$(dirname "$0")/lib/debian-source.sh"

CBLAS_DIR=/usr/include/x86_64-linux-gnu/openblas-pthread
if [[ ! -f "$CBLAS_DIR/cblas.h" ]]; then
    note "installing libopenblas-dev (HPL's BLAS)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q libopenblas-dev >/dev/null \
        || die "cannot install libopenblas-dev"
fi

SRC="$(ls -d "$SCRATCH"/hpcc-*/ 2>/dev/null | head -n 1 || true)"
if [[ -z "$SRC" ]]; then
    fetch_debian_source hpcc "$SCRATCH"
    SRC="$(ls -d "$SCRATCH"/hpcc-*/ 2>/dev/null | head -n 1 || true)"
    [[ -n "$SRC" ]] || die "no hpcc-* directory under $SCRATCH after apt-get source"
fi
SRC="${SRC%/}"

HPL_OPTS="-DHPL_CALL_CBLAS"
[[ "$PHASES" == 0 ]] || HPL_OPTS="$HPL_OPTS -DHPL_DETAILED_TIMING"

# HPL's make configuration for our compiler driver: CBLAS from OpenBLAS, no
# MPI paths (smpicc provides mpi.h and the library). HPCC's main lives in
# libhpl.a: --undefined=main lets SimGrid's smpicc find it too (ours asks
# for it by itself).
cat > "$SRC/hpl/Make.smpi" <<MAKE
SHELL        = /bin/sh
CD           = cd
CP           = cp
LN_S         = ln -s
MKDIR        = mkdir -p
RM           = /bin/rm -f
TOUCH        = touch
ARCH         = \$(arch)
TOPdir       = ../../..
INCdir       = \$(TOPdir)/include
BINdir       = \$(TOPdir)/bin/\$(ARCH)
LIBdir       = \$(TOPdir)/lib/\$(ARCH)
HPLlib       = \$(LIBdir)/libhpl.a
LAinc        = -I$CBLAS_DIR
LAlib        = -lopenblas
HPL_INCLUDES = -I\$(INCdir) -I\$(INCdir)/\$(ARCH) \$(LAinc)
HPL_LIBS     = \$(HPLlib) \$(LAlib) -lm
HPL_OPTS     = $HPL_OPTS
HPL_DEFS     = \$(HPL_OPTS) \$(HPL_INCLUDES)
CC           = $SMPICC
CCNOOPT      = \$(HPL_DEFS)
CCFLAGS      = \$(HPL_DEFS) -O2
LINKER       = $SMPICC
LINKFLAGS    = \$(CCFLAGS) -Wl,--undefined=main
ARCHIVER     = ar
ARFLAGS      = r
RANLIB       = echo
MAKE

# Built once per compiler and options: rebuilt when smpicc or this script is
# newer than the last build, for other options (or HPCC_REBUILD=1).
BUILT="$SCRATCH/.built-with"
if [[ "${HPCC_REBUILD:-0}" == 1 || ! -f "$BUILT" || "$SMPICC" -nt "$BUILT" || "$0" -nt "$BUILT" \
      || "$(cat "$BUILT")" != "$SMPICC $HPL_OPTS" ]]; then
    note "building HPCC in $SRC (log: $SCRATCH/build.log)"
    rm -f "$BUILT"
    (cd "$SRC" && make arch=smpi clean >/dev/null 2>&1; make arch=smpi) >"$SCRATCH/build.log" 2>&1 \
        || die "the build failed; see $SCRATCH/build.log"
    REBUILT=1
else
    REBUILT=0
fi

# HPL alone: HPCC's HPL_main between MPI_Init and MPI_Finalize (HPL reads
# the same input file).
cat > "$SCRATCH/xhpl_main.c" <<'DRIVER'
#include <mpi.h>
#include "hpcc.h"
int main(int argc, char **argv) {
    HPL_RuntimeData rdata;
    int failure = 0;
    MPI_Init(&argc, &argv);
    HPL_main(argc, argv, &rdata, &failure);
    MPI_Finalize();
    return failure;
}
DRIVER
"$SMPICC" -O2 $HPL_OPTS -I"$SRC/include" -I"$SRC/hpl/include" -I"$SRC/hpl/include/smpi" \
    -I"$CBLAS_DIR" "$SCRATCH/xhpl_main.c" "$SRC/hpl/lib/smpi/libhpl.a" -lopenblas -lm \
    -o "$SCRATCH/xhpl" >>"$SCRATCH/build.log" 2>&1 || die "building xhpl failed; see $SCRATCH/build.log"
[[ "$REBUILT" == 0 ]] || echo "$SMPICC $HPL_OPTS" >"$BUILT"
if [[ "$ALL" == 1 ]]; then PROGRAM="$SRC/hpcc"; else PROGRAM="$SCRATCH/xhpl"; fi

MODEL_ARGS=()
THRESHOLD=16.0
if [[ "$MODELS" == 1 ]]; then
    [[ "$ALL" == 0 ]] || die "--models runs HPL alone; drop --all"
    # HPL's own functions that models wrap (the panel set-up, the pivot
    # bookkeeping), each compiled once more under another name and hidden;
    # HPL's other helpers they need come from libhpl.a, hidden too (only the
    # models are exported).
    # shellcheck disable=SC2206 # HPL_OPTS is a list of -D flags
    HPLINC=($HPL_OPTS -I"$SRC/hpl/include" -I"$SRC/hpl/include/smpi" -I"$CBLAS_DIR")
    ORIGINALS=()
    for source in panel/HPL_pdpanel_init pgesv/HPL_pipid pgesv/HPL_perm; do
        name="${source#*/}" renamed="hpl_original_${source#*/HPL_}"
        "$SMPICC" -O2 "${HPLINC[@]}" -fvisibility=hidden "-D$name=$renamed" \
            -c "$SRC/hpl/src/$source.c" -o "$SCRATCH/$renamed.o" \
            >>"$SCRATCH/build.log" 2>&1 || die "compiling $name failed; see $SCRATCH/build.log"
        ORIGINALS+=("$SCRATCH/$renamed.o")
    done
    "$SMPICC" -shared -O2 "${HPLINC[@]}" "$ROOT/examples/hpl/hpl_models.c" \
        "${ORIGINALS[@]}" "$SRC/hpl/lib/smpi/libhpl.a" -lopenblas \
        -Wl,--exclude-libs,ALL -o "$SCRATCH/hpl_models.so" >>"$SCRATCH/build.log" 2>&1 \
        || die "building the HPL function models failed; see $SCRATCH/build.log"
    # Calibrated once; again when the file predates the machine's peak
    # (which the default smpi/blas-model-scale:peak needs).
    if ! grep -qs '^\[machine\]' "$SCRATCH/blas-models.toml"; then
        note "calibrating the BLAS kernel models (once): $SCRATCH/blas-models.toml"
        "$SMPIRUN" -calibrate-blas "$SCRATCH/blas-models.toml" >&2 || die "calibration failed"
    fi
    MODEL_ARGS=(--cfg=smpi/blas:model "--cfg=smpi/blas-model-file:$SCRATCH/blas-models.toml"
        "--cfg=smpi/function-models:$SCRATCH/hpl_models.so"
        --cfg=smpi/auto-shared-malloc-thresh:65536 --cfg=smpi/bench-clock:wall)
    THRESHOLD=-16.0
fi

# HPCC reads hpccinf.txt (HPL's input format) from the current directory.
RUN="$SCRATCH/run-$N-$NB-${P}x$Q"
if [[ "$MODELS" == 1 ]]; then RUN="$RUN-models"; fi
[[ -z "$PREPARE" ]] || RUN="$PREPARE"
mkdir -p "$RUN"
sed -e "6s/^[0-9]*/$N/" -e "8s/^[0-9]*/$NB/" -e "11s/^[0-9]*/$P/" -e "12s/^[0-9]*/$Q/" \
    -e "13s/^[-0-9.]*/$THRESHOLD/" "$SRC/_hpccinf.txt" >"$RUN/hpccinf.txt"
if [[ -n "$PREPARE" ]]; then
    cp "$PROGRAM" "$PREPARE/xhpl"
    if [[ "$MODELS" == 1 ]]; then
        cp "$SCRATCH/hpl_models.so" "$SCRATCH/blas-models.toml" "$PREPARE/"
    fi
    note "prepared $PREPARE for $((P * Q)) ranks, N=$N NB=$NB"
    exit 0
fi
rm -f "$RUN/hpccoutf.txt"
note "running $((P * Q)) ranks, N=$N NB=$NB ($RUN)"
# Peak memory: the run goes into a memory cgroup of its own when one can be
# made (v1 or v2), whose peak charges a page once however many times it is
# mapped. (The kernel's maximum RSS counts a folded block once per mapping:
# 1 MiB mapped over a 1 GiB matrix shows as 1 GiB.)
CGROUP="" PEAK_FILE=""
if [[ -w /sys/fs/cgroup/memory ]]; then
    CGROUP=/sys/fs/cgroup/memory/smpi-hpcc-$$ PEAK_FILE=memory.max_usage_in_bytes
elif [[ -w /sys/fs/cgroup/cgroup.procs && -f /sys/fs/cgroup/cgroup.controllers ]]; then
    CGROUP=/sys/fs/cgroup/smpi-hpcc-$$ PEAK_FILE=memory.peak
fi
[[ -z "$CGROUP" ]] || mkdir -p "$CGROUP" 2>/dev/null || CGROUP=""
# The cgroup goes when the script does, failed or interrupted (Ctrl-C stops
# smpirun too, which empties it).
remove_cgroup() { [[ -z "$CGROUP" ]] || rmdir "$CGROUP" 2>/dev/null || true; }
trap remove_cgroup EXIT
START=$(date +%s.%N)
(
    if [[ -n "$CGROUP" ]]; then echo "$BASHPID" >"$CGROUP/cgroup.procs" 2>/dev/null || true; fi
    cd "$RUN" && OPENBLAS_NUM_THREADS=1 exec "$SMPIRUN" -np $((P * Q)) "${MODEL_ARGS[@]}" \
        "${RUN_ARGS[@]}" "$PROGRAM"
) || die "smpirun failed"
WALL=$(awk -v a="$START" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
if [[ -n "$CGROUP" && -r "$CGROUP/$PEAK_FILE" ]]; then
    PEAK_MB=$(( $(cat "$CGROUP/$PEAK_FILE") / 1048576 ))
    echo "hpcc: smpirun took $WALL s, peak memory $PEAK_MB MB (memory cgroup)"
else
    echo "hpcc: smpirun took $WALL s (peak memory not measured: no memory cgroup to use)"
fi
RESULT="$(grep -E '^WR' "$RUN/hpccoutf.txt" || true)"
CHECK="$(grep -E '^\|\|Ax-b\|\|' "$RUN/hpccoutf.txt" || true)"
[[ -n "$RESULT" ]] || die "no HPL result in $RUN/hpccoutf.txt"
echo "HPL: $RESULT"
if [[ "$PHASES" == 1 ]]; then
    grep -E 'aggregated wall time' "$RUN/hpccoutf.txt" | sed 's/^/HPL phase: /'
fi
if [[ "$MODELS" == 1 ]]; then
    echo "HPL: residual check off (the models compute no values)"
    exit 0
fi
echo "HPL: $CHECK"
[[ "$CHECK" == *PASSED* ]] || die "HPL's residual check did not pass"
