#!/usr/bin/env bash
# hypre.sh - build the hypre library and its C examples twice, with our
# smpicc and with SimGrid 3.32's, run every example with both smpiruns on
# the same platform and compare the simulated times.
#
# hypre is third-party code: its Debian source package (bookworm) is fetched
# with `apt-get source hypre` into a scratch directory outside the repository
# and never copied into it. Each tool gets its own copy of the upstream
# tarball (hypre builds in its source tree), configured with
#   ./configure --disable-fortran --disable-shared CC=<smpicc> CXX=<smpicxx>
# (static libHYPRE.a, no Fortran; OpenMP, GPUs, external BLAS/LAPACK and
# SuperLU are off by default) and built with `make -j2`. The Debian patches
# are not used: they change configure.in without regenerating configure.
#
# Usage:
#   scripts/hypre.sh [-h]
#
# Environment (all optional):
#   SMPICC, SMPIRUN  our tools (default: <repo>/target/release/smpicc and
#                  smpirun; smpicxx is taken next to SMPICC)
#   SG_SMPICC, SG_SMPIRUN  SimGrid's (default: /usr/bin/smpicc and
#                  /usr/bin/smpirun)
#   HYPRE_SCRATCH  source package, builds, platform, logs and results
#                  (default: /tmp/hypre-src)
#   HYPRE_RANKS    rank counts to try (default: "2 4 16"); an example whose
#                  header/checks ask for another count (ex1: exactly 2,
#                  ex3: a perfect square, ...) skips the others; one that
#                  fits none of them (ex15: a perfect cube) runs at its
#                  header's sample count
#   HYPRE_EXAMPLES which examples (default: the C ones, ex1..ex9, ex11..ex18;
#                  ex10 is C++, ex5f/ex12f Fortran, ex5big/ex15big need a
#                  --enable-bigint library, ex18comp --enable-complex;
#                  ex17 and ex18 are built but not run: their NDIM 4 needs
#                  --enable-maxdim=4, without which they crash with both
#                  tools)
#   HYPRE_TIMEOUT  seconds per run (default: 300; the run's process group
#                  is killed when it passes)
#   HYPRE_REBUILD=1  rebuild both libraries and all examples
#   HYPRE_OURS_ARGS  extra arguments of our smpirun, split on blanks
#                  (default: --cfg=smpi/simgrid-order:yes, SimGrid's exact
#                  order of ranks and messages at one date, which decides
#                  the polls' injected times; set it empty to compare our
#                  default mode)
#
# Every run is (ours with HYPRE_OURS_ARGS after the host file)
#   smpirun -np N -platform $HYPRE_SCRATCH/platform.xml
#           -hostfile $HYPRE_SCRATCH/hostfile.txt
#           --cfg=smpi/simulate-computation:no --cfg=smpi/display-timing:yes
#           ./exN [args]
# on a 16-node cluster (1 Gf, 10 Gbps, 1 us; SimGrid platform version 4.1).
# The simulated time is read from the `Simulated time: X seconds.` line
# both tools print on stderr. Logs: $HYPRE_SCRATCH/logs/<tool>/<run>.log.
#
# Output: a table (example, ranks, our simulated time, SimGrid's, relative
# difference (ours - SimGrid) / SimGrid in %, wall times of both, status),
# the examples not built or not run and why, and how many runs agree
# within 1%. Also $HYPRE_SCRATCH/results.csv.
#
# Exit status: 0 when the comparison ran (whatever the results), 2 on a
# setup error.

set -euo pipefail

die() { echo "hypre: error: $*" >&2; exit 2; }
note() { echo "hypre: $*" >&2; }

usage() { sed -n '2,/^\([^#]\|$\)/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; }

for a in "$@"; do
    case "$a" in
        -h|--help) usage; exit 0 ;;
        *) die "unknown argument '$a' (see --help)" ;;
    esac
done

SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd -- "$SCRIPT_DIR/.." && pwd)"

SMPICC="${SMPICC:-$REPO_DIR/target/release/smpicc}"
SMPIRUN="${SMPIRUN:-$REPO_DIR/target/release/smpirun}"
SG_SMPICC="${SG_SMPICC:-/usr/bin/smpicc}"
SG_SMPIRUN="${SG_SMPIRUN:-/usr/bin/smpirun}"
HYPRE_SCRATCH="${HYPRE_SCRATCH:-/tmp/hypre-src}"
RANKS="${HYPRE_RANKS:-2 4 16}"
read -r -a OURS_ARGS <<< "${HYPRE_OURS_ARGS---cfg=smpi/simgrid-order:yes}"
EXAMPLES="${HYPRE_EXAMPLES:-ex1 ex2 ex3 ex4 ex5 ex6 ex7 ex8 ex9 ex11 ex12 ex13 ex14 ex15 ex16 ex17 ex18}"
TIMEOUT="${HYPRE_TIMEOUT:-300}"
REBUILD="${HYPRE_REBUILD:-0}"

case "$HYPRE_SCRATCH" in
    /|"") die "refusing HYPRE_SCRATCH='$HYPRE_SCRATCH'" ;;
    "$REPO_DIR"|"$REPO_DIR"/*) die "HYPRE_SCRATCH must be outside the repository (third-party code)" ;;
esac
mkdir -p "$HYPRE_SCRATCH"
HYPRE_SCRATCH="$(cd -- "$HYPRE_SCRATCH" && pwd)"

resolve_tool() { # name path -> absolute path or die
    local p="$2"
    if [[ "$p" != */* ]]; then
        p="$(command -v -- "$p" || true)"
    fi
    [[ -n "$p" && -x "$p" ]] || die "$1 not found or not executable: '$2'"
    printf '%s\n' "$(cd -- "$(dirname -- "$p")" && pwd)/$(basename -- "$p")"
}
SMPICC="$(resolve_tool SMPICC "$SMPICC")"
SMPIRUN="$(resolve_tool SMPIRUN "$SMPIRUN")"
SG_SMPICC="$(resolve_tool SG_SMPICC "$SG_SMPICC")"
SG_SMPIRUN="$(resolve_tool SG_SMPIRUN "$SG_SMPIRUN")"

# shellcheck source-path=SCRIPTDIR source=lib/debian-source.sh
. "$SCRIPT_DIR/lib/debian-source.sh"

# ---------------------------------------------------------------------------
# 1. Build tools, installed only when missing.
# ---------------------------------------------------------------------------
missing=()
command -v gcc >/dev/null || missing+=(gcc)
command -v g++ >/dev/null || missing+=(g++)
command -v make >/dev/null || missing+=(make)
command -v timeout >/dev/null || missing+=(coreutils)
command -v tar >/dev/null || missing+=(tar)
command -v gzip >/dev/null || missing+=(gzip)
command -v awk >/dev/null || missing+=(gawk)
if [[ ${#missing[@]} -gt 0 ]]; then
    command -v apt-get >/dev/null || die "missing ${missing[*]} and no apt-get to install them"
    [[ "$(id -u)" == 0 ]] || die "missing ${missing[*]}; installing needs root (apt-get)"
    # apt-get update only when the package lists do not know them yet.
    for m in "${missing[@]}"; do
        apt-cache show "$m" >/dev/null 2>&1 || { apt_update_once; break; }
    done
    note "installing ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null \
        || die "cannot install ${missing[*]}"
fi

# ---------------------------------------------------------------------------
# 2. The hypre source package (Debian bookworm), fetched once.
# ---------------------------------------------------------------------------
find_orig() {
    local f
    for f in "$HYPRE_SCRATCH"/hypre_*.orig.tar.*; do
        [[ -f "$f" ]] && { printf '%s\n' "$f"; return 0; }
    done
    return 1
}
ORIG="$(find_orig || true)"
if [[ -z "$ORIG" ]]; then
    # apt-get update only when the source lists do not know hypre yet.
    if has_deb_src && apt-cache showsrc hypre 2>/dev/null | grep -q '^Package: hypre'; then
        export SMPI_APT_UPDATED=1
    fi
    fetch_debian_source hypre "$HYPRE_SCRATCH"
    ORIG="$(find_orig || true)"
    [[ -n "$ORIG" ]] || die "no hypre_*.orig.tar.* in $HYPRE_SCRATCH after apt-get source"
fi
note "source: $ORIG"

# ---------------------------------------------------------------------------
# 3. Platform and hostfile (the same for both tools).
# ---------------------------------------------------------------------------
PLATFORM="$HYPRE_SCRATCH/platform.xml"
HOSTFILE="$HYPRE_SCRATCH/hostfile.txt"
cat > "$PLATFORM" <<'EOF'
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="c" prefix="node-" suffix="" radical="0-15" speed="1Gf" bw="10Gbps" lat="1us"/>
</platform>
EOF
: > "$HOSTFILE"
for i in $(seq 0 15); do echo "node-$i" >> "$HOSTFILE"; done

# ---------------------------------------------------------------------------
# 4. Two builds of libHYPRE.a and of the examples.
# ---------------------------------------------------------------------------
TOOLS=(ours simgrid)
declare -A CC_OF=([ours]="$SMPICC" [simgrid]="$SG_SMPICC")
declare -A RUN_OF=([ours]="$SMPIRUN" [simgrid]="$SG_SMPIRUN")
declare -A BUILD_FAIL=()   # "tool ex" -> first error line

build_lib() { # tool
    local tool="$1" cc="${CC_OF[$1]}" cxx
    local b="$HYPRE_SCRATCH/build-$tool"
    local stamp="$b/.built"
    cxx="$(dirname -- "$cc")/smpicxx"
    [[ -x "$cxx" ]] || cxx="$cc"
    if [[ "$REBUILD" != 1 && -f "$stamp" && "$(cat "$stamp")" == "$cc $(basename "$ORIG")" \
          && -f "$b/src/hypre/lib/libHYPRE.a" ]]; then
        note "$tool: libHYPRE.a already built in $b/src/hypre/lib"
        return 0
    fi
    rm -rf -- "$b"
    mkdir -p "$b"
    note "$tool: unpacking $(basename "$ORIG") into $b"
    tar -C "$b" --strip-components=1 -xf "$ORIG" || die "cannot unpack $ORIG"
    # SimGrid's smpicc builds programs that cannot run outside smpirun, so
    # configure's "cannot run C compiled programs" check fails: SimGrid's
    # documentation says to configure with SMPI_PRETEND_CC=1 (plain cc
    # builds). Ours runs a program started directly as `smpirun -np 1`.
    local pretend=()
    if [[ "$tool" == simgrid ]]; then pretend=(env SMPI_PRETEND_CC=1); fi
    note "$tool: configure (CC=$cc${pretend[*]:+, ${pretend[1]}}), log in $b/configure.log"
    (cd "$b/src" && "${pretend[@]}" ./configure --disable-fortran --disable-shared \
        CC="$cc" CXX="$cxx" > "$b/configure.log" 2>&1) \
        || { tail -n 20 "$b/configure.log" >&2; die "$tool: configure failed, see $b/configure.log"; }
    note "$tool: make -j2 (this takes a while), log in $b/make.log"
    local t0=$SECONDS
    (cd "$b/src" && make -j2 > "$b/make.log" 2>&1) \
        || { grep -m 10 -E 'error|Error' "$b/make.log" >&2 || true; die "$tool: make failed, see $b/make.log"; }
    [[ -f "$b/src/hypre/lib/libHYPRE.a" ]] || die "$tool: make left no src/hypre/lib/libHYPRE.a"
    note "$tool: libHYPRE.a built in $((SECONDS - t0)) s"
    printf '%s\n' "$cc $(basename "$ORIG")" > "$stamp"
    rm -rf -- "$b/bin"
}

build_examples() { # tool
    local tool="$1" cc="${CC_OF[$1]}" ex
    local b="$HYPRE_SCRATCH/build-$tool"
    local exd="$b/src/examples" bin="$b/bin"
    mkdir -p "$bin"
    for ex in $EXAMPLES; do
        [[ -x "$bin/$ex" ]] && continue
        [[ -f "$exd/$ex.c" ]] || { BUILD_FAIL["$tool $ex"]="no $ex.c in src/examples"; continue; }
        if (cd "$exd" && rm -f "$ex" "$ex.o" \
              && make CC="$cc" LINK_CC="$cc" HYPRE_DIR=../hypre "$ex" > "$bin/$ex.build.log" 2>&1) \
              && [[ -x "$exd/$ex" ]]; then
            mv "$exd/$ex" "$bin/$ex"
        else
            local why
            why="$(grep -m 1 -E 'error|undefined reference' "$bin/$ex.build.log" || tail -n 1 "$bin/$ex.build.log")"
            BUILD_FAIL["$tool $ex"]="$why"
            note "$tool: $ex does not build: $why"
        fi
    done
    note "$tool: examples in $bin"
}

for t in "${TOOLS[@]}"; do
    build_lib "$t"
    build_examples "$t"
done

# ---------------------------------------------------------------------------
# 5. The runs.
# ---------------------------------------------------------------------------
# Rank counts an example accepts (its header comment and its own checks),
# and its arguments (none: the defaults of each example).
is_square() { local r; r=$(awk -v n="$1" 'BEGIN{printf "%d", sqrt(n)+0.5}'); (( r * r == $1 )); }
is_cube() { local r; r=$(awk -v n="$1" 'BEGIN{printf "%d", exp(log(n)/3)+0.5}'); (( r * r * r == $1 )); }
is_4th() { local r; r=$(awk -v n="$1" 'BEGIN{printf "%d", exp(log(n)/4)+0.5}'); (( r * r * r * r == $1 )); }
accepts() { # ex np -> 0 when the example runs at np ranks
    local ex="$1" np="$2"
    case "$ex" in
        ex1|ex2|ex6|ex8|ex12) (( np == 2 )) ;;        # "Must run with 2 processors!"
        ex3|ex4|ex7|ex9|ex16) is_square "$np" ;;      # N x N processor grid
        ex13|ex14) (( np >= 3 )) ;;                   # "at least 3 processors"
        ex15) is_cube "$np" ;;                        # N x N x N processor grid
        ex17|ex18) is_4th "$np" ;;                    # NDIM=4: perfect 4th power
        *) return 0 ;;                                # ex5, ex11: any count
    esac
}
sample_np() { # ex -> the rank count of the header's "Sample run: mpirun -np N"
    grep -m 1 -oE 'mpirun -np [0-9]+' "$HYPRE_SCRATCH/build-ours/src/examples/$1.c" 2>/dev/null \
        | awk '{print $3}'
}

# One run: sets R_SIM (simulated seconds or empty), R_WALL, R_STATUS.
run_one() { # tool ex np log
    local tool="$1" ex="$2" np="$3" log="$4" rc=0 t0 t1
    local bin="$HYPRE_SCRATCH/build-$tool/bin"
    local extra=()
    [[ "$tool" == ours ]] && extra=("${OURS_ARGS[@]}")
    t0=$(date +%s.%N)
    (cd "$bin" && timeout -k 10 "$TIMEOUT" "${RUN_OF[$tool]}" -np "$np" \
        -platform "$PLATFORM" -hostfile "$HOSTFILE" "${extra[@]}" \
        --cfg=smpi/simulate-computation:no --cfg=smpi/display-timing:yes \
        "./$ex" > "$log" 2> "$log.err") || rc=$?
    t1=$(date +%s.%N)
    R_WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}')
    R_SIM=$(sed -n 's/.*Simulated time: \([0-9.eE+-]*\) seconds\..*/\1/p' "$log.err" | tail -n 1)
    if (( rc == 124 || rc == 137 )); then
        R_STATUS="timeout"
    elif (( rc != 0 )); then
        R_STATUS="exit$rc"
    elif [[ -z "$R_SIM" ]]; then
        R_STATUS="no-time"
    else
        R_STATUS="ok"
    fi
}

LOGS="$HYPRE_SCRATCH/logs"
mkdir -p "$LOGS/ours" "$LOGS/simgrid"
CSV="$HYPRE_SCRATCH/results.csv"
echo "example,ranks,ours_sim_s,simgrid_sim_s,diff_pct,ours_wall_s,simgrid_wall_s,ours_status,simgrid_status" > "$CSV"

MAXDIM="$(sed -n 's/^#define HYPRE_MAXDIM \([0-9]*\).*/\1/p' "$HYPRE_SCRATCH/build-ours/src/hypre/include/HYPRE_config.h")"
MAXDIM="${MAXDIM:-3}"
ROWS=()
NOT_RUN=()
total=0
within=0
for ex in $EXAMPLES; do
    if [[ -n "${BUILD_FAIL[ours $ex]:-}" || -n "${BUILD_FAIL[simgrid $ex]:-}" ]]; then
        NOT_RUN+=("$ex: not built (ours: ${BUILD_FAIL[ours $ex]:-ok}; simgrid: ${BUILD_FAIL[simgrid $ex]:-ok})")
        continue
    fi
    # ex17 and ex18 (NDIM 4) need a library configured with
    # --enable-maxdim=4 (the Makefile's "maxdim" target); with the default
    # HYPRE_MAXDIM 3 they crash (SIGSEGV) under both tools.
    ndim="$(sed -n 's/^#define NDIM[[:space:]]*\([0-9]*\).*/\1/p' "$HYPRE_SCRATCH/build-ours/src/examples/$ex.c" | head -n 1)"
    if [[ -n "$ndim" ]] && (( ndim > MAXDIM )); then
        NOT_RUN+=("$ex: NDIM $ndim needs a library configured with --enable-maxdim=$ndim (this one: HYPRE_MAXDIM $MAXDIM)")
        continue
    fi
    nps=()
    for np in $RANKS; do accepts "$ex" "$np" && nps+=("$np"); done
    if [[ ${#nps[@]} -eq 0 ]]; then
        s="$(sample_np "$ex")"
        if [[ -n "$s" ]] && accepts "$ex" "$s" && (( s <= 16 )); then
            nps=("$s")
            note "$ex accepts none of $RANKS ranks; running it at $s (its sample run)"
        else
            NOT_RUN+=("$ex: accepts none of $RANKS ranks")
            continue
        fi
    fi
    for np in "${nps[@]}"; do
        declare -A SIM=() WALL=() STATUS=()
        for t in "${TOOLS[@]}"; do
            note "running $ex -np $np with $t"
            run_one "$t" "$ex" "$np" "$LOGS/$t/$ex-np$np.log"
            SIM[$t]="$R_SIM"; WALL[$t]="$R_WALL"; STATUS[$t]="$R_STATUS"
            [[ "$R_STATUS" == ok ]] || note "$ex -np $np with $t: $R_STATUS, see $LOGS/$t/$ex-np$np.log{,.err}"
        done
        diff=""
        if [[ -n "${SIM[ours]}" && -n "${SIM[simgrid]}" ]]; then
            diff=$(awk -v o="${SIM[ours]}" -v s="${SIM[simgrid]}" \
                'BEGIN{ if (s == 0) { print (o == 0 ? "0.00" : "inf") } else printf "%+.2f", (o - s) / s * 100 }')
        fi
        total=$((total + 1))
        if [[ "${STATUS[ours]}" == ok && "${STATUS[simgrid]}" == ok && -n "$diff" && "$diff" != inf ]] \
             && awk -v d="$diff" 'BEGIN{exit !(d <= 1 && d >= -1)}'; then
            within=$((within + 1))
        fi
        st="${STATUS[ours]}/${STATUS[simgrid]}"
        ROWS+=("$(printf '%-6s %5s %14s %14s %9s %9s %9s  %s' "$ex" "$np" \
            "${SIM[ours]:--}" "${SIM[simgrid]:--}" "${diff:--}" "${WALL[ours]}" "${WALL[simgrid]}" "$st")")
        echo "$ex,$np,${SIM[ours]},${SIM[simgrid]},$diff,${WALL[ours]},${WALL[simgrid]},${STATUS[ours]},${STATUS[simgrid]}" >> "$CSV"
        unset SIM WALL STATUS
    done
done

# ---------------------------------------------------------------------------
# 6. The table.
# ---------------------------------------------------------------------------
echo
printf '%-6s %5s %14s %14s %9s %9s %9s  %s\n' example ranks "ours sim(s)" "simgrid sim(s)" "diff %" "ours wall" "sg wall" "status ours/simgrid"
for r in "${ROWS[@]}"; do printf '%s\n' "$r"; done
for n in "${NOT_RUN[@]}"; do printf 'not run: %s\n' "$n"; done
echo "within 1%: $within of $total runs"
note "results in $CSV, logs in $LOGS"
