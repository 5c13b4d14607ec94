#!/usr/bin/env bash
# simgrid-tesh.sh - build the test programs of SimGrid 3.32's own SMPI test
# suite and run its .tesh files (teshsuite/smpi and examples/smpi) with an
# smpicc/smpicxx/smpirun set: ours by default, SimGrid's to validate the
# harness.
#
# The SimGrid sources are third-party code: they are fetched with
# `apt-get source simgrid` (Debian bookworm) into a scratch directory outside
# the repository and never copied into it; the test programs are built in a
# scratch build tree laid out as SimGrid's CMake lays out its own.
#
# Usage:
#   scripts/simgrid-tesh.sh [-h] [--variants] [--factories] [--list] [REGEX...]
#     REGEX...     run only the runs whose label matches one of these
#                  (grep -E, unanchored); a label is the tesh file's path in
#                  the SimGrid sources, plus [variant] for a variant, e.g.
#                  'coll-bcast' 'pt2pt-pingpong/pt2pt' 'bcast.tesh\[NTSB\]'
#     --variants   also run every other configuration SimGrid's CMake
#                  registers for a file: one per collective algorithm for the
#                  coll-* files (label file[algo]), privatization:mmap...
#     --factories  run the files that CMake registers once per context
#                  factory (ADD_TESH_FACTORIES) with each factory in turn
#                  (label file[thread]...) instead of SimGrid's default one
#     --list       print the runs (and their tesh command lines), run nothing
#
# Environment (all optional):
#   SMPICC, SMPICXX, SMPIRUN   the tools (default: <repo>/target/release/...)
#   SMPIF90, SMPIFF  Fortran drivers (default: <repo>/target/release/smpif90
#                  and smpiff when they exist). Without SMPIF90 the Fortran
#                  test (fort_args) is SKIP.
#   S4U_CXX        compiler command for what SimGrid's CMake builds as plain
#                  S4U programs or C++ platform plugins linked to libsimgrid,
#                  not with smpicc/smpicxx (masterworker_mailbox_smpi,
#                  replay_multiple(_manual), libgriffon.so,
#                  libsmpi_comm-dynamic-cost.so); split on blanks
#                  (default: $SMPICXX). For SimGrid, as its CMake does:
#                  S4U_CXX="c++ -I/usr/include/smpi" S4U_LIBS=-lsimgrid
#   S4U_LIBS       libraries appended to those link lines (default: none)
#   SIMGRID_SCRATCH  where the source package lives (default: /tmp/simgrid-src)
#   SIMGRID_TESH_BUILD  build tree and logs (default: /tmp/simgrid-tesh-build-
#                  <hash of the tools>), wiped and rebuilt on every run
#   SIMGRID_TESH_TIMEOUT  seconds per tesh run (default: 300); tesh's own
#                  per-command timeouts (10 s, or the file's `! timeout`)
#                  apply within it
#   SIMGRID_TESH_CFLAGS   C flags (default: SimGrid's CMake ones:
#                  "-std=gnu11 -g -O3 -funroll-loops -fno-strict-aliasing")
#   SIMGRID_TESH_CXXFLAGS C++ flags (default: the same with -std=gnu++17)
#   SIMGRID_TESH_FAIL_ON_ERROR=1  exit 1 when any run fails
#   TESH           the tesh driver (default: tesh from PATH; when absent,
#                  Debian's simgrid and libsimgrid-dev are installed, as
#                  root, to get it)
#
# How a run is made (as SimGrid's `ctest` does): the ADD_TESH and
# ADD_TESH_FACTORIES registrations are read from teshsuite/smpi/,
# examples/smpi/ and examples/smpi/*/CMakeLists.txt, and the files of the
# top-level CMakeLists.txt's configure_file(... COPYONLY) are copied into the
# build tree. A run is `tesh --ignore-jenkins [--cfg contexts/factory:F]
# <the registration's arguments>` (tesh appends each --cfg=... to every
# command line of the file), with LD_LIBRARY_PATH=<build>/lib. The build tree
# has smpi_script/bin/{smpirun,smpicc,smpicxx,smpif90,smpiff}, shell wrappers
# of the chosen tools, which the tesh files call. (With --ignore-jenkins, as
# in SimGrid's CMake, tesh multiplies its per-command timeouts by 10.) Each test program is built
# from the sources and with the flags of SimGrid's CMakeLists, except that
# SimGrid's own include/smpi is not put on the include path: the compiler
# driver brings its mpi.h.
# Per file, the base run is the first registration without a --cfg of its
# own (the first one when all have one: coll-allreduce-large, clusters); the
# other registrations are its variants. Files that CMake registers for
# several context factories run once, with SimGrid's default factory (no
# --cfg), unless --factories; a file registered for given factories only
# (gh-139, broken_hostfiles: thread) runs with the first of them.
# A run passes only when tesh exits 0 (tesh compares the output exactly,
# after its own `! output sort` and `! ignore` directives).
# Model-checker files (mc/, mc-*) are SKIP; so are files CMake registers only
# under a condition Debian's SimGrid build does not meet (HAVE_PAPI).
#
# Output: one line per run, "PASS|FAIL|BUILD-FAIL|TIMEOUT|SKIP label
# [reason]" where a FAIL's reason is the first failure tesh reports (the
# first differing line of the first command whose output differs, a return
# code, a signal), then "total: N passed, M failed, K skipped".
# Logs: <build>/logs/<label>.log (tesh's output), <build>/logs/build/<target>.log.
#
# Validating the harness with SimGrid 3.32 (Debian's; smpif90 needs gfortran):
#   SMPICC=smpicc SMPICXX=smpicxx SMPIRUN=smpirun SMPIF90=smpif90 \
#   SMPIFF=smpiff S4U_CXX="c++ -I/usr/include/smpi" S4U_LIBS=-lsimgrid \
#   scripts/simgrid-tesh.sh
#
# Exit status: 0 when the suite ran (see SIMGRID_TESH_FAIL_ON_ERROR), 2 on a
# setup error (missing tools, no source package...).

set -euo pipefail

die() { echo "simgrid-tesh: error: $*" >&2; exit 2; }
note() { echo "simgrid-tesh: $*" >&2; }

usage() { sed -n '2,/^\([^#]\|$\)/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; }

FILTERS=()
VARIANTS=0 FACTORIES=0 LIST_ONLY=0
for a in "$@"; do
    case "$a" in
        -h|--help) usage; exit 0 ;;
        --variants) VARIANTS=1 ;;
        --factories) FACTORIES=1 ;;
        --list) LIST_ONLY=1 ;;
        -*) die "unknown option '$a' (see --help)" ;;
        *) FILTERS+=("$a") ;;
    esac
done

SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd -- "$SCRIPT_DIR/.." && pwd)"

SMPICC="${SMPICC:-$REPO_DIR/target/release/smpicc}"
SMPICXX="${SMPICXX:-$REPO_DIR/target/release/smpicxx}"
SMPIRUN="${SMPIRUN:-$REPO_DIR/target/release/smpirun}"
SIMGRID_SCRATCH="${SIMGRID_SCRATCH:-/tmp/simgrid-src}"
TIMEOUT="${SIMGRID_TESH_TIMEOUT:-300}"
CFLAGS_S="${SIMGRID_TESH_CFLAGS:--std=gnu11 -g -O3 -funroll-loops -fno-strict-aliasing}"
CXXFLAGS_S="${SIMGRID_TESH_CXXFLAGS:--std=gnu++17 -g -O3 -funroll-loops -fno-strict-aliasing}"
FAIL_ON_ERROR="${SIMGRID_TESH_FAIL_ON_ERROR:-0}"
[[ "$TIMEOUT" =~ ^[0-9]+$ ]] || die "SIMGRID_TESH_TIMEOUT must be a number of seconds"

read -r -a CFLAGS_ARGV <<< "$CFLAGS_S"
read -r -a CXXFLAGS_ARGV <<< "$CXXFLAGS_S"

resolve_tool() { # name path -> absolute path or die
    local p="$2"
    if [[ "$p" != */* ]]; then
        p="$(command -v -- "$p" || true)"
    fi
    [[ -n "$p" && -x "$p" ]] || die "$1 not found or not executable: '$2' (set $1=...; build ours with 'cargo build --release')"
    printf '%s\n' "$(cd -- "$(dirname -- "$p")" && pwd)/$(basename -- "$p")"
}
SMPICC="$(resolve_tool SMPICC "$SMPICC")"
SMPICXX="$(resolve_tool SMPICXX "$SMPICXX")"
SMPIRUN="$(resolve_tool SMPIRUN "$SMPIRUN")"
# The Fortran drivers are optional: we have none yet.
for v in SMPIF90 SMPIFF; do
    lower="$(tr '[:upper:]' '[:lower:]' <<< "$v")"
    if [[ -n "${!v:-}" ]]; then
        printf -v "$v" '%s' "$(resolve_tool "$v" "${!v}")"
    elif [[ -x "$REPO_DIR/target/release/$lower" ]]; then
        printf -v "$v" '%s' "$REPO_DIR/target/release/$lower"
    else
        printf -v "$v" '%s' ""
    fi
done
read -r -a S4U_CXX_ARGV <<< "${S4U_CXX:-$SMPICXX}"
read -r -a S4U_LIBS_ARGV <<< "${S4U_LIBS:-}"
[[ ${#S4U_CXX_ARGV[@]} -gt 0 ]] || die "S4U_CXX is empty"
command -v timeout >/dev/null || die "'timeout' (coreutils) is needed"
command -v awk >/dev/null || die "awk is needed"

# ---------------------------------------------------------------------------
# 1. tesh, and the SimGrid source package (Debian bookworm), fetched once.
# ---------------------------------------------------------------------------
TESH="${TESH:-tesh}"
if ! command -v -- "$TESH" >/dev/null; then
    [[ "$TESH" == tesh ]] || die "TESH='$TESH' not found"
    [[ "$(id -u)" == 0 ]] || die "tesh is missing; install Debian's 'simgrid' package (needs root) or set TESH"
    note "tesh is missing: installing Debian's simgrid and libsimgrid-dev"
    apt-get update -q >/dev/null || die "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q libsimgrid-dev simgrid >/dev/null \
        || die "cannot install simgrid (for tesh)"
    command -v tesh >/dev/null || die "still no tesh after installing simgrid"
fi
TESH="$(command -v -- "$TESH")"

find_source() {
    local d
    for d in "$SIMGRID_SCRATCH"/simgrid-*/; do
        if [[ -f "$d/teshsuite/smpi/CMakeLists.txt" && -f "$d/examples/smpi/CMakeLists.txt" ]]; then
            printf '%s\n' "${d%/}"
            return 0
        fi
    done
    return 1
}

# shellcheck source=lib/debian-source.sh
. "$SCRIPT_DIR/lib/debian-source.sh"

SRC="$(find_source || true)"
if [[ -z "$SRC" ]]; then
    fetch_debian_source simgrid "$SIMGRID_SCRATCH"
    SRC="$(find_source || true)"
    [[ -n "$SRC" ]] || die "no simgrid-*/teshsuite/smpi under $SIMGRID_SCRATCH after apt-get source"
fi
note "SimGrid sources: $SRC"
note "SMPICC=$SMPICC SMPICXX=$SMPICXX SMPIRUN=$SMPIRUN"
note "SMPIF90=${SMPIF90:-(none)} SMPIFF=${SMPIFF:-(none)} S4U_CXX=${S4U_CXX_ARGV[*]} S4U_LIBS=${S4U_LIBS_ARGV[*]}"
note "tesh: $TESH"

if [[ -z "${SIMGRID_TESH_BUILD:-}" ]]; then
    SIMGRID_TESH_BUILD="/tmp/simgrid-tesh-build-$(printf '%s\n' "$SMPICC" "$SMPICXX" "$SMPIRUN" | md5sum | cut -c1-8)"
fi
BUILD="$SIMGRID_TESH_BUILD"
case "$BUILD" in /|""|"$SRC"|"$REPO_DIR"|"$REPO_DIR"/*) die "refusing to use '$BUILD' as build directory" ;; esac
LOGS="$BUILD/logs"

# ---------------------------------------------------------------------------
# 2. What CMake registers: a small interpreter of the CMake statements that
#    matter here (foreach, list(APPEND), string(REPLACE), if/else for the
#    conditions, ADD_TESH, ADD_TESH_FACTORIES, configure_file(... COPYONLY)).
#    Prints
#      TESH ^^ name ^^ factories|- ^^ conditions ^^ args (\037-separated)
#      COPY ^^ from ^^ to
#    (^^ stands for \036: tabs would let `read` merge empty fields)
# ---------------------------------------------------------------------------
# shellcheck disable=SC2016 # awk code, not shell expansions
CMAKE_AWK='
function subst(s,    name) {
    while (match(s, /\$\{[A-Za-z0-9_.-]+\}/)) {
        name = substr(s, RSTART + 2, RLENGTH - 3)
        s = substr(s, 1, RSTART - 1) ((name in vars) ? vars[name] : "") substr(s, RSTART + RLENGTH)
    }
    return s
}
function tokens(s, toks,    n, t) {
    n = 0
    while (match(s, /"[^"]*"|[^ \t\n]+/)) {
        t = substr(s, RSTART, RLENGTH)
        s = substr(s, RSTART + RLENGTH)
        if (t ~ /^"/) t = substr(t, 2, length(t) - 2)
        toks[++n] = subst(t)
    }
    return n
}
function join(toks, from, to,    k, r) {
    r = ""
    for (k = from; k <= to; k++) r = r (k > from ? "\037" : "") toks[k]
    return r
}
function conds(    k, r) {
    r = ""
    for (k = 1; k <= ncond; k++) r = r (k > 1 ? ";" : "") cond[k]
    return r
}
function run(lo, hi,    i, j, depth, n, k, nt, toks, items, c, out, rest, p) {
    for (i = lo; i <= hi; i++) {
        c = cmd[i]
        if (c == "foreach") {
            depth = 1
            for (j = i + 1; j <= hi; j++) {
                if (cmd[j] == "foreach") depth++
                else if (cmd[j] == "endforeach" && --depth == 0) break
            }
            nt = tokens(arg[i], toks)
            n = 0
            if (toks[2] == "IN" && toks[3] == "LISTS") {
                n = split(lists[toks[4]], items, "\037")
            } else {
                for (k = 2; k <= nt; k++) if (toks[k] != "") items[++n] = toks[k]
            }
            for (k = 1; k <= n; k++) { vars[toks[1]] = items[k]; run(i + 1, j - 1) }
            i = j
        } else if (c == "if") {
            cond[++ncond] = arg[i]
        } else if (c == "elseif") {
            cond[ncond] = "NOT (" cond[ncond] ");" arg[i]
        } else if (c == "else") {
            cond[ncond] = "NOT (" cond[ncond] ")"
        } else if (c == "endif") {
            ncond--
        } else if (c == "list") {
            nt = tokens(arg[i], toks)
            if (toks[1] == "APPEND")
                for (k = 3; k <= nt; k++)
                    lists[toks[2]] = (lists[toks[2]] == "" ? "" : lists[toks[2]] "\037") toks[k]
        } else if (c == "string") {
            nt = tokens(arg[i], toks)
            if (toks[1] == "REPLACE") {
                out = ""; rest = toks[5]
                while (toks[2] != "" && (p = index(rest, toks[2])) > 0) {
                    out = out substr(rest, 1, p - 1) toks[3]; rest = substr(rest, p + length(toks[2]))
                }
                vars[toks[4]] = out rest
            }
        } else if (c == "add_tesh") {
            nt = tokens(arg[i], toks)
            print "TESH\036" toks[1] "\036-\036" conds() "\036" join(toks, 2, nt)
        } else if (c == "add_tesh_factories") {
            nt = tokens(arg[i], toks)
            print "TESH\036" toks[1] "\036" toks[2] "\036" conds() "\036" join(toks, 3, nt)
        } else if (c == "configure_file") {
            nt = tokens(arg[i], toks)
            if (toks[nt] == "COPYONLY") print "COPY\036" toks[1] "\036" toks[2]
        }
    }
}
BEGIN {
    vars["CMAKE_HOME_DIRECTORY"] = src; vars["CMAKE_BINARY_DIR"] = bin
    vars["CMAKE_CURRENT_SOURCE_DIR"] = cursrc; vars["CMAKE_CURRENT_BINARY_DIR"] = curbin
}
{
    # Split into statements: drop comments and count parentheses outside
    # double-quoted strings.
    line = ""; o = 0
    for (k = 1; k <= length($0); k++) {
        ch = substr($0, k, 1)
        if (inq) {
            if (ch == "\\") { line = line ch substr($0, k + 1, 1); k++; continue }
            if (ch == "\"") inq = 0
        } else if (ch == "\"") inq = 1
        else if (ch == "#") break
        else if (ch == "(") o++
        else if (ch == ")") o--
        line = line ch
    }
    buf = buf " " line
    depth += o
    if (depth <= 0 && !inq) {
        if (buf ~ /\(/) {
            b = buf; sub(/^[ \t]+/, "", b)
            p = index(b, "(")
            name = tolower(substr(b, 1, p - 1)); gsub(/[ \t]/, "", name)
            rest = substr(b, p + 1); sub(/\)[ \t]*$/, "", rest)
            cmd[++ns] = name; arg[ns] = rest
        }
        buf = ""; depth = 0
    }
}
END { run(1, ns) }
'

cmake_registrations() {
    local f d
    for f in "$SRC"/teshsuite/smpi/CMakeLists.txt "$SRC"/examples/smpi/CMakeLists.txt \
             "$SRC"/examples/smpi/*/CMakeLists.txt "$SRC"/CMakeLists.txt; do
        [[ -f "$f" ]] || continue
        f="${f#"$SRC"/}"
        d="$(dirname "$f")"
        awk -v src="$SRC" -v bin="$BUILD" -v cursrc="$SRC/$d" -v curbin="$BUILD/$d" "$CMAKE_AWK" "$SRC/$f" \
            || die "cannot read $SRC/$f"
    done
}

declare -A REGS_OF=()      # tesh file (absolute) -> registration indices
REG_NAME=() REG_FACT=() REG_COND=() REG_ARGS=()
COPIES=()
nreg=0
while IFS=$'\036' read -r kind f1 f2 f3 f4; do
    case "$kind" in
        TESH)
            tesh_file="${f4##*$'\037'}"
            REG_NAME[nreg]="$f1" REG_FACT[nreg]="$f2" REG_COND[nreg]="$f3"
            if [[ "$f4" == *$'\037'* ]]; then REG_ARGS[nreg]="${f4%$'\037'*}"; else REG_ARGS[nreg]=""; fi
            REGS_OF[$tesh_file]="${REGS_OF[$tesh_file]:-} $nreg"
            nreg=$((nreg + 1))
            ;;
        COPY)
            case "$f2" in
                "$BUILD"/teshsuite/smpi/*|"$BUILD"/examples/smpi/*) COPIES+=("$f1"$'\036'"$f2") ;;
            esac
            ;;
    esac
done < <(cmake_registrations)
[[ $nreg -gt 0 ]] || die "no ADD_TESH registration found in $SRC's CMakeLists"

# CMake conditions of Debian's SimGrid 3.32 build (amd64): what is false.
# Anything not listed counts as true (enable_smpi, enable_debug,
# SMPI_FORTRAN, HAVE_PRIVATIZATION, NOT WIN32...).
FALSE_CONDS=" HAVE_PAPI SIMGRID_HAVE_MC HAVE_MC enable_model-checking WIN32 HAVE_SANITIZER_ADDRESS "
cond_true() { # one if() argument, e.g. "NOT HAVE_MC", "enable_smpi AND SMPI_FORTRAN"
    local c="$1" part neg
    c="${c//(/ }" c="${c//)/ }"
    local -a words
    read -r -a words <<< "$c"
    neg=0
    for part in "${words[@]}"; do
        case "$part" in
            NOT) neg=$((1 - neg)); continue ;;
            AND) continue ;;
        esac
        if [[ "$FALSE_CONDS" == *" $part "* ]]; then
            [[ $neg == 1 ]] || return 1
        else
            [[ $neg == 0 ]] || return 1
        fi
        neg=0
    done
    return 0
}
# First false condition of a registration, empty when all hold. (A NOT (...)
# from an else() branch is evaluated as a whole.)
false_cond() { # "cond;cond;..."
    local c rest="$1"
    while [[ -n "$rest" ]]; do
        c="${rest%%;*}"
        if [[ "$rest" == *";"* ]]; then rest="${rest#*;}"; else rest=""; fi
        if [[ "$c" == "NOT ("*")" ]]; then
            local inner="${c#NOT (}"; inner="${inner%)}"
            if cond_true "$inner"; then printf '%s\n' "$c"; return; fi
        elif ! cond_true "$c"; then
            printf '%s\n' "$c"; return
        fi
    done
}

# ---------------------------------------------------------------------------
# 3. The test programs, as SimGrid's CMakeLists build them. Each target:
#    kind|output (in the build tree)|sources (in the sources)|extra flags
#    kind: c (smpicc), cxx (smpicxx), f90 (smpif90), s4u (S4U_CXX program),
#    s4u-lib (S4U_CXX shared library).
# ---------------------------------------------------------------------------
declare -A TARGET=()
# teshsuite/smpi/CMakeLists.txt
for x in coll-allgather coll-allgatherv coll-allreduce coll-allreduce-with-leaks coll-alltoall \
         coll-alltoallv coll-barrier coll-bcast coll-gather coll-reduce coll-reduce-scatter coll-scatter \
         macro-sample pt2pt-dsend pt2pt-pingpong type-hvector type-indexed type-struct type-vector \
         bug-17132 gh-139 timers privatization io-simple io-simple-at io-all io-all-at io-shared \
         io-ordered topo-cart-sub replay-ti-colls macro-shared auto-shared macro-partial-shared \
         macro-partial-shared-communication; do
    TARGET[$x]="c|teshsuite/smpi/$x/$x|teshsuite/smpi/$x/$x.c|"
done
TARGET[coll-allreduce-with-leaks]+="-trace-call-location"
TARGET[fort_args]="f90|teshsuite/smpi/fort_args/fort_args|teshsuite/smpi/fort_args/fort_args.f90|"
# examples/smpi/CMakeLists.txt (the mc/ programs are not built: model checker)
for x in trace trace_simple trace_call_location energy gemm simple-execute; do
    TARGET[smpi_$x]="c|examples/smpi/$x/smpi_$x|examples/smpi/$x/$x.c|"
done
TARGET[smpi_trace_call_location]+="-trace-call-location"
TARGET[smpi_ampi_test]="cxx|examples/smpi/ampi_test/smpi_ampi_test|examples/smpi/ampi_test/ampi_test.cpp|"
TARGET[smpi_replay]="cxx|examples/smpi/replay/smpi_replay|examples/smpi/replay/replay.cpp|"
# examples/smpi/*/CMakeLists.txt and examples/platforms/CMakeLists.txt: plain
# S4U programs and libraries, linked to libsimgrid by CMake
TARGET[masterworker_mailbox_smpi]="s4u|examples/smpi/smpi_s4u_masterworker/masterworker_mailbox_smpi|examples/smpi/smpi_s4u_masterworker/masterworker_mailbox_smpi.cpp|"
TARGET[replay_multiple]="s4u|examples/smpi/replay_multiple/replay_multiple|examples/smpi/replay_multiple/replay_multiple.cpp|"
TARGET[replay_multiple_manual]="s4u|examples/smpi/replay_multiple_manual_deploy/replay_multiple_manual|examples/smpi/replay_multiple_manual_deploy/replay_multiple_manual.cpp|"
TARGET[libsmpi_comm-dynamic-cost]="s4u-lib|lib/libsmpi_comm-dynamic-cost.so|examples/smpi/comm_dynamic_costs/comm-dynamic-cost.cpp|"
TARGET[libgriffon]="s4u-lib|lib/libgriffon.so|examples/platforms/griffon.cpp|"

# The targets a tesh file runs (from the programs its command lines name).
needs_of() { # relative tesh path -> target names
    local rel="$1" dir
    case "$rel" in
        teshsuite/smpi/pt2pt-pingpong/TI_output.tesh) echo "pt2pt-pingpong smpi_replay" ;;
        teshsuite/smpi/*)
            dir="${rel#teshsuite/smpi/}"; dir="${dir%%/*}"
            echo "$dir" ;;
        examples/smpi/ampi_test/*) echo "smpi_ampi_test" ;;
        examples/smpi/comm_dynamic_costs/*) echo "libsmpi_comm-dynamic-cost smpi_simple-execute" ;;
        examples/smpi/simple-execute/simple-execute-cpp-platf.tesh) echo "libgriffon smpi_simple-execute" ;;
        examples/smpi/replay/*) echo "smpi_replay" ;;
        examples/smpi/replay_multiple/*) echo "replay_multiple" ;;
        examples/smpi/replay_multiple_manual_deploy/*) echo "replay_multiple_manual" ;;
        examples/smpi/smpi_s4u_masterworker/*) echo "masterworker_mailbox_smpi" ;;
        examples/smpi/trace_call_location/*) echo "smpi_trace_call_location smpi_replay" ;;
        examples/smpi/*)
            dir="${rel#examples/smpi/}"; dir="${dir%%/*}"
            echo "smpi_$dir" ;;
    esac
}

declare -A BUILT=()   # target -> ok|fail|nocompiler

build_target() { # target -> 0 if built
    local t="$1"
    if [[ -n "${BUILT[$t]:-}" ]]; then
        [[ "${BUILT[$t]}" == ok ]]
        return
    fi
    [[ -n "${TARGET[$t]:-}" ]] || die "internal: no build rule for target '$t'"
    local kind out srcs flags
    IFS='|' read -r kind out srcs flags <<< "${TARGET[$t]}"
    local -a src_paths=() extra=() cmd=()
    local s
    read -r -a extra <<< "$flags"
    for s in $srcs; do src_paths+=("$SRC/$s"); done
    case "$kind" in
        c) cmd=("$SMPICC" "${CFLAGS_ARGV[@]}" "${extra[@]}" -o "$BUILD/$out" "${src_paths[@]}") ;;
        cxx) cmd=("$SMPICXX" "${CXXFLAGS_ARGV[@]}" "${extra[@]}" -o "$BUILD/$out" "${src_paths[@]}") ;;
        f90)
            if [[ -z "$SMPIF90" ]]; then BUILT[$t]=nocompiler; return 1; fi
            cmd=("$SMPIF90" -g -O3 "${extra[@]}" -o "$BUILD/$out" "${src_paths[@]}") ;;
        s4u) cmd=("${S4U_CXX_ARGV[@]}" "${CXXFLAGS_ARGV[@]}" "${extra[@]}" -o "$BUILD/$out" "${src_paths[@]}" "${S4U_LIBS_ARGV[@]}") ;;
        s4u-lib) cmd=("${S4U_CXX_ARGV[@]}" "${CXXFLAGS_ARGV[@]}" -fPIC -shared "${extra[@]}" -o "$BUILD/$out" "${src_paths[@]}" "${S4U_LIBS_ARGV[@]}") ;;
        *) die "internal: unknown target kind '$kind'" ;;
    esac
    mkdir -p "$(dirname "$BUILD/$out")"
    local log="$LOGS/build/$t.log"
    printf '%q ' "${cmd[@]}" > "$log"
    echo >> "$log"
    if (cd "$(dirname "$BUILD/$out")" && "${cmd[@]}") >>"$log" 2>&1 && [[ -f "$BUILD/$out" ]]; then
        BUILT[$t]=ok
        return 0
    fi
    BUILT[$t]=fail
    return 1
}

# The first error of a failed build, on one line: the first error, or the
# first implicit declaration of a function when one comes before (it is the
# cause of what follows); the missing symbols when the link fails.
build_reason() { # target
    local t="$1" log="$LOGS/build/$1.log" line undef
    if [[ "${BUILT[$t]}" == nocompiler ]]; then
        echo "Fortran: no smpif90 (set SMPIF90)"
        return
    fi
    line="$(sed -n '2,$p' "$log" | grep -m1 -E 'error|implicit declaration of function|undefined reference|unrecognized|No such file' || true)"
    if [[ "$line" == *"undefined reference"* ]]; then
        undef="$(sed -n '2,$p' "$log" | sed -nE "s/.*undefined reference to [\`'‘]([^'’]*)['’].*/\\1/p" | awk '!seen[$0]++' | head -n 8 | paste -sd, - | sed 's/,/, /g')"
        line="undefined references: $undef"
    fi
    [[ -n "$line" ]] || line="$(sed -n '2,$p' "$log" | grep -v '^[[:space:]]*$' | tail -n 1 || true)"
    line="${line//$SRC\//}"
    line="${line//$BUILD\//}"
    line="${line/warning: implicit/implicit}"
    line="${line% \[-W*\]}"
    printf '%s: %s\n' "$t" "${line:0:240}"
}

# ---------------------------------------------------------------------------
# 4. The runs.
# ---------------------------------------------------------------------------
matches_filter() {
    local f
    [[ ${#FILTERS[@]} -eq 0 ]] && return 0
    for f in "${FILTERS[@]}"; do
        [[ "$1" =~ $f ]] && return 0
    done
    return 1
}

# The label of a variant: the values of its --cfg options and of its
# --setenv options other than directories.
reg_label() { # index
    local -a args=()
    local i label=""
    IFS=$'\037' read -r -a args <<< "${REG_ARGS[$1]}"
    for ((i = 0; i < ${#args[@]}; i++)); do
        case "${args[i]}" in
            --cfg) label+=",${args[i + 1]##*:}"; i=$((i + 1)) ;;
            --setenv)
                case "${args[i + 1]}" in
                    platfdir=*|srcdir=*|bindir=*|libdir=*) ;;
                    *) label+=",${args[i + 1]#*=}" ;;
                esac
                i=$((i + 1)) ;;
        esac
    done
    printf '%s\n' "${label#,}"
}
reg_has_cfg() { [[ $'\037'"${REG_ARGS[$1]}"$'\037' == *$'\037--cfg\037'* ]]; }

ALL_FACTORIES="thread boost raw ucontext"   # tools/cmake/Tests.cmake
factories_of() { # index -> factories to run ("" = SimGrid's default: no --cfg)
    local f="${REG_FACT[$1]}"
    case "$f" in
        -) echo "" ;;
        "*"|"^"*)
            if [[ $FACTORIES == 1 ]]; then
                local all=" $ALL_FACTORIES " x
                for x in ${f#^}; do [[ "$f" == "^"* ]] && all="${all/ $x / }"; done
                echo "$all"
            else
                echo ""
            fi ;;
        *)
            if [[ $FACTORIES == 1 ]]; then echo "${f//;/ }"; else echo "${f%%;*}"; fi ;;
    esac
}

# Plan: one line per run, "label ^^ tesh file ^^ registration ^^ factory ^^
# skip reason" (^^ = \036)
RS=$'\036'
PLAN=()
mapfile -t TESH_FILES < <(cd "$SRC" && find teshsuite/smpi examples/smpi -name '*.tesh' | LC_ALL=C sort)
[[ ${#TESH_FILES[@]} -gt 0 ]] || die "no .tesh file under $SRC/teshsuite/smpi or $SRC/examples/smpi"
for rel in "${TESH_FILES[@]}"; do
    abs="$SRC/$rel"
    if [[ "$rel" == */mc/* || "$(basename "$rel")" == mc-* ]]; then
        PLAN+=("$rel$RS$abs$RS-$RS${RS}model checker (simgrid-mc) is out of scope")
        continue
    fi
    regs="${REGS_OF[$abs]:-}"
    if [[ -z "${regs// /}" ]]; then
        PLAN+=("$rel$RS$abs$RS-$RS${RS}no ADD_TESH registers it in SimGrid's CMakeLists")
        continue
    fi
    read -r -a reg_list <<< "$regs"
    base=""
    for r in "${reg_list[@]}"; do
        if ! reg_has_cfg "$r"; then base="$r"; break; fi
    done
    [[ -n "$base" ]] || base="${reg_list[0]}"
    runs=("$base")
    if [[ $VARIANTS == 1 ]]; then
        for r in "${reg_list[@]}"; do [[ "$r" == "$base" ]] || runs+=("$r"); done
    fi
    for r in "${runs[@]}"; do
        vlabel=""
        [[ "$r" == "$base" ]] || vlabel="$(reg_label "$r")"
        skip="$(false_cond "${REG_COND[$r]}")"
        [[ -z "$skip" ]] || skip="SimGrid's CMake registers it only if $skip (false in Debian's build)"
        facts="$(factories_of "$r")"
        if [[ -z "${facts// /}" ]]; then facts="-"; fi
        for fa in $facts; do
            l="$vlabel"
            if [[ "$fa" != - && $FACTORIES == 1 ]]; then l="${l:+$l,}$fa"; fi
            PLAN+=("$rel${l:+[$l]}$RS$abs$RS$r$RS${fa#-}$RS$skip")
        done
    done
done

tesh_argv() { # registration factory -> TESH_ARGV
    TESH_ARGV=("$TESH" --ignore-jenkins)
    [[ -z "$2" ]] || TESH_ARGV+=(--cfg "contexts/factory:$2")
    local -a args=()
    if [[ -n "${REG_ARGS[$1]}" ]]; then IFS=$'\037' read -r -a args <<< "${REG_ARGS[$1]}"; fi
    TESH_ARGV+=("${args[@]}")
}

if [[ $LIST_ONLY == 1 ]]; then
    for p in "${PLAN[@]}"; do
        IFS=$RS read -r label abs reg fa skip <<< "$p"
        matches_filter "$label" || continue
        if [[ -n "$skip" ]]; then echo "$label: SKIP [$skip]"; continue; fi
        tesh_argv "$reg" "$fa"
        echo "$label (ctest ${REG_NAME[$reg]}${fa:+-$fa}): builds $(needs_of "${abs#"$SRC"/}"); runs ${TESH_ARGV[*]} $abs"
    done
    exit 0
fi

# ---------------------------------------------------------------------------
# 5. The build tree, as CMake lays it out.
# ---------------------------------------------------------------------------
rm -rf -- "$BUILD"
mkdir -p "$BUILD/smpi_script/bin" "$BUILD/bin" "$BUILD/lib" "$LOGS/build"
# Shell wrappers, not symbolic links: tesh runs every command line that
# names smpirun as `sh <command line>`, expecting SimGrid's shell script.
write_wrapper() { # path tool
    printf '#!/bin/sh\nexec %q "$@"\n' "$2" > "$1"
    chmod +x "$1"
}
for d in smpi_script/bin bin; do
    write_wrapper "$BUILD/$d/smpirun" "$SMPIRUN"
    write_wrapper "$BUILD/$d/smpicc" "$SMPICC"
    write_wrapper "$BUILD/$d/smpicxx" "$SMPICXX"
    [[ -z "$SMPIF90" ]] || write_wrapper "$BUILD/$d/smpif90" "$SMPIF90"
    [[ -z "$SMPIFF" ]] || write_wrapper "$BUILD/$d/smpiff" "$SMPIFF"
done
for c in "${COPIES[@]}"; do
    from="${c%%$'\036'*}" to="${c#*$'\036'}"
    mkdir -p "$(dirname "$to")"
    cp -- "$from" "$to" 2>/dev/null || note "cannot copy $from (configure_file)"
done
# Every directory a registration changes to (--cd) or names as bindir.
for ((r = 0; r < nreg; r++)); do
    IFS=$'\037' read -r -a args <<< "${REG_ARGS[r]}"
    for ((i = 0; i < ${#args[@]} - 1; i++)); do
        case "${args[i]}" in
            --cd) mkdir -p "${args[i + 1]}" ;;
            --setenv)
                case "${args[i + 1]}" in bindir=*|libdir=*) mkdir -p "${args[i + 1]#*=}" ;; esac ;;
        esac
    done
done

export LD_LIBRARY_PATH="$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
unset VALGRIND_NO_LEAK_CHECK

# The reason of a failed tesh run: its first failure.
tesh_reason() { # log
    local log="$1" nok where
    nok="$(grep -m1 -E "^Test suite \`.*': NOK|^\[Tesh/CRITICAL\]|Cannot start|^Caught signal" "$log" || true)"
    if [[ -z "$nok" ]]; then
        echo "tesh exited without a verdict: $(grep -v '^[[:space:]]*$' "$log" | tail -n 1 | cut -c1-200)"
        return
    fi
    where="$(sed -nE 's/.*NOK \(<([^>]*)>.*/\1/p' <<< "$nok")"
    where="${where##*/}"
    case "$nok" in
        *"output mismatch)"*)
            # The first hunk of the first diff: its first expected (-) and
            # obtained (+) lines.
            local diff
            diff="$(awk '
                /^--- expected$/ { indiff = 1; next }
                indiff && /^\+\+\+ obtained$/ { next }
                indiff && /^@@/ { if (seen) exit; hunk = 1; next }
                indiff && hunk && /^-/ && minus == "" { minus = substr($0, 2); seen = 1 }
                indiff && hunk && /^\+/ && plus == "" { plus = substr($0, 2); seen = 1 }
                indiff && hunk && !/^[-+ ]/ { exit }
                END {
                    if (minus != "" || plus != "") {
                        if (minus != "") printf "expected \"%s\"", substr(minus, 1, 160)
                        if (minus != "" && plus != "") printf ", "
                        if (plus != "") printf "got \"%s\"", substr(plus, 1, 160)
                        if (plus == "") printf ", got nothing in its place"
                        if (minus == "") printf " (unexpected line)"
                    }
                }' "$log")"
            echo "$where: ${diff:-output mismatch}" ;;
        *"returned code"*|*"got signal"*|*"timeout after"*)
            echo "$where: $(sed -nE 's/.*NOK \(<[^>]*> (.*)\)$/\1/p' <<< "$nok")" ;;
        *) echo "${nok:0:200}" ;;
    esac
}

TOTAL_PASS=0 TOTAL_FAIL=0 TOTAL_SKIP=0
for p in "${PLAN[@]}"; do
    IFS=$RS read -r label abs reg fa skip <<< "$p"
    matches_filter "$label" || continue
    if [[ -n "$skip" ]]; then
        echo "SKIP $label [$skip]"
        TOTAL_SKIP=$((TOTAL_SKIP + 1)); continue
    fi
    rel="${abs#"$SRC"/}"
    bad="" reason=""
    for t in $(needs_of "$rel"); do
        if ! build_target "$t"; then
            bad="$t"; reason="$(build_reason "$t")"; break
        fi
    done
    if [[ -n "$bad" ]]; then
        if [[ "${BUILT[$bad]}" == nocompiler ]]; then
            echo "SKIP $label [$reason]"
            TOTAL_SKIP=$((TOTAL_SKIP + 1))
        else
            echo "BUILD-FAIL $label [$reason]"
            TOTAL_FAIL=$((TOTAL_FAIL + 1))
        fi
        continue
    fi
    tesh_argv "$reg" "$fa"
    log="$LOGS/${label//[^A-Za-z0-9._-]/_}.log"
    printf '%q ' "${TESH_ARGV[@]}" "$abs" > "$log"
    echo >> "$log"
    rc=0
    (cd "$BUILD" && exec timeout -k 10 "$TIMEOUT" "${TESH_ARGV[@]}" "$abs") </dev/null >>"$log" 2>&1 || rc=$?
    if [[ $rc -eq 0 ]]; then
        echo "PASS $label"
        TOTAL_PASS=$((TOTAL_PASS + 1))
    elif [[ $rc -eq 124 || $rc -eq 137 ]]; then
        echo "TIMEOUT $label [no verdict after ${TIMEOUT} s (SIMGRID_TESH_TIMEOUT)]"
        TOTAL_FAIL=$((TOTAL_FAIL + 1))
    else
        reason="$(tesh_reason "$log")"
        if [[ "$reason" == *"timeout after"* ]]; then
            echo "TIMEOUT $label [$reason]"
        else
            echo "FAIL $label [$reason]"
        fi
        TOTAL_FAIL=$((TOTAL_FAIL + 1))
    fi
done

note "logs: $LOGS (<file>.log: tesh's output; build/<target>.log)"
echo "total: $TOTAL_PASS passed, $TOTAL_FAIL failed, $TOTAL_SKIP skipped"
if [[ "$FAIL_ON_ERROR" == 1 && $TOTAL_FAIL -gt 0 ]]; then
    exit 1
fi
exit 0
