#!/usr/bin/env bash
# mbi.sh - run the MPI Bugs Initiative (MBI) codes with an smpicc/smpirun
# set (ours by default, SimGrid's on demand) and tabulate how many of the
# erroneous codes each tool reports and how many correct codes it leaves
# clean.
#
# The MBI generators are third-party code: SimGrid 3.32's Debian source
# package carries them (teshsuite/smpi/MBI/*Generator.py and
# generator_utils.py). The package is fetched with `apt-get source simgrid`
# (Debian bookworm) into a scratch directory outside the repository and never
# copied into it; the ~1,800 C codes are generated once into
# $MBI_SCRATCH/mbi-codes (again when that directory is missing or empty).
#
# Usage:
#   scripts/mbi.sh [-h] [--tool ours|simgrid] [-j N] [--timeout S]
#                  [--filter REGEX] [--out DIR] [--csv FILE] [--force]
#                  [--compare OTHER.csv]
#     --tool ours|simgrid  whose smpicc/smpirun to use (default: ours);
#                  simgrid is /usr/bin/smpicc and /usr/bin/smpirun, plain
#                  smpirun (no model checker)
#     -j N         parallel runs (default: 2)
#     --timeout S  seconds per run (default: 30); the whole process group
#                  is killed when it passes
#     --filter REGEX  run only the codes whose file name matches (Python
#                  re.search)
#     --out DIR    binaries and logs (default: $MBI_SCRATCH/mbi-<tool>);
#                  logs are DIR/logs/<code>_<id>.txt
#     --csv FILE   results (default: DIR/results.csv), sorted by code and
#                  test id so that two runs' files can be diffed
#     --force      rerun every test (by default a test whose log exists and
#                  whose code's md5 is unchanged is not rerun)
#     --compare OTHER.csv  after the run, print the rows whose outcome
#                  differs from OTHER.csv's (a determinism check)
#   These options are scripts/mbi.py's: this script installs what is
#   missing, fetches and generates the codes, then runs it.
#
# Environment (all optional):
#   SMPICC, SMPIRUN  our tools (default: <repo>/target/release/smpicc and
#                  smpirun); --tool simgrid ignores them
#   SMPIRUN_ARGS   launcher arguments for ours, split on blanks, placed
#                  before the program (default: --cfg=smpi/check:all,
#                  every correctness check)
#   MBI_SCRATCH    where the SimGrid source package, the generated codes
#                  and the default output directories live
#                  (default: /tmp/simgrid-src)
#
# A test line of a code's header (`$ mpirun -np 2 ${EXE}`) is run as
#   ours:    smpirun -np 2 -platform cluster.xml
#            --cfg=smpi/simulate-computation:no $SMPIRUN_ARGS ./bin
#            (built with smpicc -g -O0 -trace-call-location, so that
#            reports name the source line, as MBI's SimGrid wrapper does)
#   simgrid: smpirun -np 2 -platform cluster.xml --cfg=smpi/list-leaks:10
#            ./bin
# cluster.xml being the 100-node cluster MBI's simgrid.py writes;
# $zero_buffer / $infty_buffer tokens (model-checker options) are dropped.
# Each run's outcome is one of timeout, build-fail, crash, deadlock, mpierr,
# finding, error-exit, ok (first that applies; see scripts/mbi.py). A
# correct code is a true negative when ok, else a false positive; an
# erroneous code is a true positive for deadlock, mpierr, finding and
# error-exit, a false negative for ok; crash, timeout and build-fail are
# counted apart (failures of the tool).
#
# Output: per MBI scope and per detail, the number of tests, TP, FN, FP, TN,
# crashes, timeouts, build failures, recall and precision; then the totals.
#
# Exit status: 0 when the suite ran, 2 on a setup error.

set -euo pipefail

die() { echo "mbi: error: $*" >&2; exit 2; }
note() { echo "mbi: $*" >&2; }

usage() { sed -n '2,/^\([^#]\|$\)/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; }

for a in "$@"; do
    case "$a" in
        -h|--help) usage; exit 0 ;;
    esac
done

SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd -- "$SCRIPT_DIR/.." && pwd)"
MBI_SCRATCH="${MBI_SCRATCH:-/tmp/simgrid-src}"
export MBI_SCRATCH

# shellcheck source-path=SCRIPTDIR source=lib/debian-source.sh
. "$SCRIPT_DIR/lib/debian-source.sh"

# ---------------------------------------------------------------------------
# 1. python3 and gcc (smpicc drives gcc), installed only when missing.
# ---------------------------------------------------------------------------
missing=()
command -v python3 >/dev/null || missing+=(python3)
command -v gcc >/dev/null || missing+=(gcc)
if [[ ${#missing[@]} -gt 0 ]]; then
    command -v apt-get >/dev/null || die "missing ${missing[*]} and no apt-get to install them"
    [[ "$(id -u)" == 0 ]] || die "missing ${missing[*]}; installing needs root (apt-get)"
    apt_update_once
    note "installing ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null \
        || die "cannot install ${missing[*]}"
fi

# ---------------------------------------------------------------------------
# 2. The SimGrid source package (Debian bookworm), fetched once.
# ---------------------------------------------------------------------------
find_mbi() {
    local d
    for d in "$MBI_SCRATCH"/simgrid-*/; do
        if [[ -f "$d/teshsuite/smpi/MBI/generator_utils.py" ]]; then
            printf '%s\n' "${d%/}/teshsuite/smpi/MBI"
            return 0
        fi
    done
    return 1
}

MBI_SRC="$(find_mbi || true)"
if [[ -z "$MBI_SRC" ]]; then
    fetch_debian_source simgrid "$MBI_SCRATCH"
    MBI_SRC="$(find_mbi || true)"
    [[ -n "$MBI_SRC" ]] || die "no simgrid-*/teshsuite/smpi/MBI under $MBI_SCRATCH after apt-get source"
fi
note "MBI generators: $MBI_SRC"

# ---------------------------------------------------------------------------
# 3. The codes, generated once (each generator in the output directory,
#    next to a copy of generator_utils.py, as SimGrid's CMake does).
# ---------------------------------------------------------------------------
CODES="$MBI_SCRATCH/mbi-codes"
if ! compgen -G "$CODES/*.c" >/dev/null; then
    note "generating the MBI codes into $CODES"
    tmp="$MBI_SCRATCH/mbi-codes.tmp"
    rm -rf "$tmp"
    mkdir -p "$tmp"
    cp "$MBI_SRC/generator_utils.py" "$tmp/"
    for g in "$MBI_SRC"/*Generator.py; do
        (cd "$tmp" && python3 "$g" >/dev/null) || die "generator $(basename "$g") failed"
    done
    rm -f "$tmp/generator_utils.py"
    rm -rf "$tmp/__pycache__"
    compgen -G "$tmp/*.c" >/dev/null || die "the generators wrote no code"
    rm -rf "$CODES"
    mv "$tmp" "$CODES"
    note "$(find "$CODES" -maxdepth 1 -name '*.c' | wc -l) codes generated"
fi

# ---------------------------------------------------------------------------
# 4. The runs.
# ---------------------------------------------------------------------------
export SMPICC="${SMPICC:-$REPO_DIR/target/release/smpicc}"
export SMPIRUN="${SMPIRUN:-$REPO_DIR/target/release/smpirun}"
if [[ ! -x "$SMPIRUN" && "$SMPIRUN" == "$REPO_DIR/target/release/smpirun" ]]; then
    note "building smpicc and smpirun"
    (cd "$REPO_DIR" && cargo build --release --bin smpicc --bin smpirun) \
        || die "cargo build failed"
fi
exec python3 "$SCRIPT_DIR/mbi.py" --codes "$CODES" --mbi-src "$MBI_SRC" "$@"
