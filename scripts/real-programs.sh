#!/usr/bin/env bash
# real-programs.sh - unseen-program checks: real MPI programs, fetched from
# Debian source packages at run time (nothing of them enters the
# repository), built unmodified with our smpicc and run with our smpirun.
#
# Usage:
#   scripts/real-programs.sh [-h] [PROGRAM...]
#     PROGRAM   netpipe, hpcc or mrbayes (default: all three, in that order)
#
# The programs and what passes:
#   netpipe  NetPIPE 3.7.2's MPI module (package `netpipe`), built by its own
#            makefile (`make mpi MPICC=smpicc`), run on 2 ranks with
#            `-u 4096 -p 0 -o FILE`: it must end, both ranks must have read
#            the options (each prints "Using no perturbations"), and the
#            output file must hold the 24 block sizes 1, 2, 3, 4, 6, 8, ...,
#            3072, 4096 that NetPIPE's loop makes without perturbations, each
#            with a positive rate and time.
#   hpcc     the whole HPC Challenge (package `hpcc`, through
#            scripts/hpcc.sh --all) on 4 x 4 ranks at N = HPCC_N: HPL's
#            residual check and HPCC's own verdict (Success=1: PTRANS, FFT,
#            STREAM, DGEMM and RandomAccess checks) must pass. The
#            MPIRandomAccess errors are printed against HPCC's tolerance
#            (1% of the table): a few are expected, see README.md.
#   mrbayes  MrBayes 3.2.7a (package `mrbayes`), built with its own configure
#            (--with-mpi) twice, with Debian's MPICH (mpicc, the reference)
#            and with our smpicc; a fixed-seed MCMC of the primates example
#            (2 runs of 4 chains) runs on 4 ranks under mpirun and under our
#            smpirun, and every output file (samples, trees, convergence
#            diagnostics, summaries, checkpoint) must be identical but for
#            the run ID, which MrBayes draws from time(NULL) (simulated time
#            under smpirun, as under SimGrid).
#
# It installs what it needs with apt-get (one apt-get update, then
# dpkg-dev, make, libopenblas-dev, mpich and libmpich-dev when missing), so
# it needs root on a clean machine. Prints "PASS name: ..." or
# "FAIL name: ..." per program, then "real-programs: N passed, M failed".
#
# Environment (all optional):
#   SMPICC, SMPIRUN   our tools (default: target/release of this checkout)
#   SMPIRUN_ARGS      extra smpirun arguments (split on blanks), e.g. a platform
#   REAL_SCRATCH      where sources are unpacked and built (default /tmp/smpi-real)
#   HPCC_N            HPL's matrix order for the hpcc check (default 1000)
#   MRBAYES_NP        ranks for the mrbayes check (default 4)
#
# Exit status: 0 when every program passed, 1 when one failed, 2 on a setup
# error (missing tools, no source package...).
set -euo pipefail

die() { echo "real-programs: error: $*" >&2; exit 2; }
note() { echo "real-programs: $*" >&2; }
usage() { sed -n '2,/^\([^#]\|$\)/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; }

ALL_PROGRAMS=(netpipe hpcc mrbayes)
PROGRAMS=()
for a in "$@"; do
    case "$a" in
        -h|--help) usage; exit 0 ;;
        netpipe|hpcc|mrbayes) PROGRAMS+=("$a") ;;
        *) die "unknown argument '$a' (see --help)" ;;
    esac
done
[[ ${#PROGRAMS[@]} -gt 0 ]] || PROGRAMS=("${ALL_PROGRAMS[@]}")

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SMPICC="${SMPICC:-$ROOT/target/release/smpicc}"
SMPIRUN="${SMPIRUN:-$ROOT/target/release/smpirun}"
SCRATCH="${REAL_SCRATCH:-/tmp/smpi-real}"
HPCC_N="${HPCC_N:-1000}"
MRBAYES_NP="${MRBAYES_NP:-4}"
read -r -a RUN_ARGS <<< "${SMPIRUN_ARGS:-}"
[[ -x "$SMPICC" && -x "$SMPIRUN" ]] || die "build our tools first: cargo build --release (or set SMPICC and SMPIRUN)"
SMPICC="$(cd "$(dirname "$SMPICC")" && pwd)/$(basename "$SMPICC")"
SMPIRUN="$(cd "$(dirname "$SMPIRUN")" && pwd)/$(basename "$SMPIRUN")"
mkdir -p "$SCRATCH"

# shellcheck source=lib/debian-source.sh
. "$(dirname "$0")/lib/debian-source.sh"

selected() { local p; for p in "${PROGRAMS[@]}"; do [[ "$p" == "$1" ]] && return 0; done; return 1; }

# source_dir PACKAGE PATTERN VAR: sets VAR to the unpacked source of Debian
# package PACKAGE under $SCRATCH/PACKAGE (a directory matching PATTERN),
# fetched when missing (in this shell, so that apt-get update runs once).
source_dir() {
    local pkg="$1" pattern="$2" dir
    dir="$(ls -d "$SCRATCH/$pkg"/$pattern/ 2>/dev/null | head -n 1 || true)"
    if [[ -z "$dir" ]]; then
        fetch_debian_source "$pkg" "$SCRATCH/$pkg"
        dir="$(ls -d "$SCRATCH/$pkg"/$pattern/ 2>/dev/null | head -n 1 || true)"
        [[ -n "$dir" ]] || die "no $pattern directory under $SCRATCH/$pkg after apt-get source $pkg"
    fi
    printf -v "$3" '%s' "${dir%/}"
}

# Sources first (fetching may add a deb-src line, then updates apt's lists
# once), then the packages still missing, in one apt-get install.
NETPIPE_SRC="" MRBAYES_SRC=""
if selected netpipe; then source_dir netpipe 'NetPIPE-*' NETPIPE_SRC; fi
if selected hpcc; then source_dir hpcc 'hpcc-*' HPCC_SRC; fi  # scripts/hpcc.sh finds it there
if selected mrbayes; then source_dir mrbayes 'MrBayes-*' MRBAYES_SRC; fi

NEEDED=()
command -v make >/dev/null || NEEDED+=(make)
if selected hpcc; then NEEDED+=(libopenblas-dev); fi
if selected mrbayes; then NEEDED+=(mpich libmpich-dev); fi
MISSING=()
for p in "${NEEDED[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || MISSING+=("$p")
done
if [[ ${#MISSING[@]} -gt 0 ]]; then
    [[ "$(id -u)" == 0 ]] || die "missing packages (${MISSING[*]}); run as root or install them"
    apt_update_once
    note "installing ${MISSING[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${MISSING[@]}" >"$SCRATCH/apt-get-install.log" 2>&1 \
        || die "apt-get install ${MISSING[*]} failed; see $SCRATCH/apt-get-install.log"
fi

PASSED=0 FAILED=0
pass() { echo "PASS $1: $2"; PASSED=$((PASSED + 1)); }
fail() { echo "FAIL $1: $2"; FAILED=$((FAILED + 1)); }

# NetPIPE: NPmpi with options; both ranks must see them (each rank runs
# getopt on its own argv: a rank that missed -u would go on past 4096 bytes
# alone, and the run would deadlock).
check_netpipe() {
    local src="$NETPIPE_SRC" run="$SCRATCH/netpipe/run" log="$SCRATCH/netpipe/build.log"
    note "netpipe: building NPmpi in $src (log: $log)"
    rm -f "$src/NPmpi"
    if ! make -C "$src" mpi MPICC="$SMPICC" >"$log" 2>&1; then
        fail netpipe "the build failed; see $log"; return
    fi
    rm -rf "$run" && mkdir -p "$run"
    note "netpipe: running 2 ranks: NPmpi -u 4096 -p 0 -o np.out"
    if ! (cd "$run" && timeout 600 "$SMPIRUN" -np 2 "${RUN_ARGS[@]}" "$src/NPmpi" -u 4096 -p 0 -o np.out \
            >stdout.txt 2>stderr.txt); then
        fail netpipe "smpirun failed; see $run/stderr.txt"; return
    fi
    local seen sizes expected lines last bad
    seen=$(grep -c '^Using no perturbations' "$run/stdout.txt" || true)
    [[ "$seen" == 2 ]] || { fail netpipe "$seen rank(s) of 2 read the options (see $run/stdout.txt)"; return; }
    [[ -s "$run/np.out" ]] || { fail netpipe "no output file $run/np.out"; return; }
    # Without perturbations NetPIPE measures 1, 2, 3, then 2^k and 3 * 2^(k-1)
    # up to its upper bound.
    expected="1 2 3" k=4
    while [[ $k -le 4096 ]]; do
        expected+=" $k"; [[ $((k * 3 / 2)) -le 4096 ]] && expected+=" $((k * 3 / 2))"; k=$((k * 2))
    done
    sizes="$(awk '{ printf "%s%s", (NR > 1 ? " " : ""), $1 }' "$run/np.out")"
    lines=$(wc -l <"$run/np.out")
    last=$(awk 'END { print $1 }' "$run/np.out")
    bad=$(awk 'NF != 3 || !($2 > 0) || !($3 > 0) { n++ } END { print n + 0 }' "$run/np.out")
    if [[ "$sizes" != "$expected" ]]; then
        fail netpipe "block sizes '$sizes', expected '$expected'"
    elif [[ "$bad" != 0 ]]; then
        fail netpipe "$bad line(s) of $run/np.out without a positive rate and time"
    else
        pass netpipe "both ranks read -u 4096 -p 0; $lines lines, last block $last bytes ($(awk 'END { printf "%s Mbps in %.2f us", $2, $3 * 1e6 }' "$run/np.out"))"
    fi
}

# hpcc_value FILE KEY: KEY's value in the summary of HPCC's output FILE.
hpcc_value() { sed -n "s/^$2=//p" "$1" | tail -n 1; }

# HPCC: the whole suite through scripts/hpcc.sh, then HPCC's own verdict and
# the RandomAccess error counts against its tolerance.
check_hpcc() {
    local scratch="$SCRATCH/hpcc" out log="$SCRATCH/hpcc/hpcc.log"
    note "hpcc: scripts/hpcc.sh --all -n $HPCC_N -nb 50 -p 4 -q 4 (log: $log)"
    if ! HPCC_SCRATCH="$scratch" SMPICC="$SMPICC" SMPIRUN="$SMPIRUN" \
            "$ROOT/scripts/hpcc.sh" --all -n "$HPCC_N" -nb 50 -p 4 -q 4 -- "${RUN_ARGS[@]}" >"$log" 2>&1; then
        fail hpcc "scripts/hpcc.sh failed; see $log"; return
    fi
    out="$scratch/run-$HPCC_N-50-4x4/hpccoutf.txt"
    local success detail="" name errors size
    success="$(hpcc_value "$out" Success)"
    for name in MPIRandomAccess MPIRandomAccess_LCG; do
        errors="$(hpcc_value "$out" "${name}_Errors")" size="$(hpcc_value "$out" "${name}_N")"
        [[ -n "$errors" && -n "$size" ]] || { fail hpcc "no $name result in $out"; return; }
        detail+="; $name: $errors errors in $size locations (tolerance $((size / 100)))"
    done
    if [[ "$success" == 1 ]]; then
        pass hpcc "16 ranks, N=$HPCC_N, HPL $(hpcc_value "$out" HPL_Tflops) Tflops, residual check passed, Success=1$detail"
    else
        fail hpcc "HPCC reports Success=${success:-?}$detail; see $out"
    fi
}

# MrBayes: the same fixed-seed analysis under Debian's MPICH and under our
# tools; every output file must match but for the time-drawn run ID.
mrbayes_build() {
    local dir="$1" cc="$2"
    mkdir -p "$dir"
    (cd "$dir" && "$MRBAYES_SRC/configure" --with-mpi --without-beagle --without-readline \
        CC="$cc" MPICC="$cc" >configure.log 2>&1 && make >make.log 2>&1)
}

check_mrbayes() {
    local base="$SCRATCH/mrbayes" f differ=() files=0
    # Built once per compiler: again when smpicc or this script is newer.
    if [[ ! -x "$base/build-native/src/mb" || "$0" -nt "$base/build-native/src/mb" ]]; then
        note "mrbayes: building with mpicc in $base/build-native"
        rm -rf "$base/build-native"
        mrbayes_build "$base/build-native" mpicc || { fail mrbayes "the native build failed; see $base/build-native"; return; }
    fi
    if [[ ! -x "$base/build-smpi/src/mb" || "$SMPICC" -nt "$base/build-smpi/src/mb" \
          || "$0" -nt "$base/build-smpi/src/mb" ]]; then
        note "mrbayes: building with our smpicc in $base/build-smpi"
        rm -rf "$base/build-smpi"
        mrbayes_build "$base/build-smpi" "$SMPICC" || { fail mrbayes "the build failed; see $base/build-smpi"; return; }
    fi
    local run
    for run in native smpi; do
        rm -rf "$base/run-$run" && mkdir -p "$base/run-$run"
        cp "$MRBAYES_SRC/examples/primates.nex" "$base/run-$run/"
        cat >"$base/run-$run/batch.nex" <<'NEXUS'
#NEXUS
begin mrbayes;
  set autoclose=yes nowarn=yes seed=4242 swapseed=2424;
  execute primates.nex;
  lset nst=6 rates=invgamma;
  mcmc ngen=5000 samplefreq=50 printfreq=1000 diagnfreq=1000 nruns=2 nchains=4 filename=primates-out;
  sump;
  sumt;
end;
NEXUS
    done
    note "mrbayes: running $MRBAYES_NP ranks under mpirun (MPICH), then under our smpirun"
    if ! (cd "$base/run-native" && timeout 1200 mpirun -np "$MRBAYES_NP" "$base/build-native/src/mb" batch.nex \
            >stdout.txt 2>stderr.txt); then
        fail mrbayes "the native run failed; see $base/run-native"; return
    fi
    if ! (cd "$base/run-smpi" && timeout 1200 "$SMPIRUN" -np "$MRBAYES_NP" "${RUN_ARGS[@]}" \
            "$base/build-smpi/src/mb" batch.nex >stdout.txt 2>stderr.txt); then
        fail mrbayes "smpirun failed; see $base/run-smpi/stderr.txt"; return
    fi
    for f in "$base"/run-native/primates-out.*; do
        f="$(basename "$f")"
        files=$((files + 1))
        if [[ ! -f "$base/run-smpi/$f" ]] \
            || ! cmp -s <(sed -E 's/\[ID: [^]]*\]/[ID]/' "$base/run-native/$f") \
                        <(sed -E 's/\[ID: [^]]*\]/[ID]/' "$base/run-smpi/$f"); then
            differ+=("$f")
        fi
    done
    local extra
    extra=$(comm -13 <(cd "$base/run-native" && ls primates-out.* | sort) <(cd "$base/run-smpi" && ls primates-out.* | sort) | wc -l)
    if [[ "$files" -lt 10 ]]; then
        fail mrbayes "only $files output files from the native run; see $base/run-native"
    elif [[ ${#differ[@]} -gt 0 || "$extra" != 0 ]]; then
        fail mrbayes "${#differ[@]} of $files output files differ from MPICH's (${differ[*]:-}), $extra extra; see $base"
    else
        pass mrbayes "$MRBAYES_NP ranks, 2 runs x 4 chains, 5,000 generations: $files output files identical to MPICH's (run ID aside); mean ln L $(awk '$1 == "TOTAL" { print $2; exit }' "$base/run-smpi/stdout.txt")"
    fi
}

for p in "${PROGRAMS[@]}"; do "check_$p"; done
echo "real-programs: $PASSED passed, $FAILED failed"
[[ "$FAILED" == 0 ]]
