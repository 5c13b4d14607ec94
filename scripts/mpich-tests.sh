#!/usr/bin/env bash
# mpich-tests.sh - build and run the C and Fortran tests of the MPICH test
# suite with an smpicc/smpif90/smpirun set (ours by default, SimGrid's on
# demand).
#
# The MPICH sources are third-party code: they are fetched with
# `apt-get source mpich` (Debian bookworm) into a scratch directory outside
# the repository and never copied into it.
#
# Usage:
#   scripts/mpich-tests.sh [-h] [REGEX...]
#     REGEX...   run only the tests whose name matches one of these
#                (grep -E, anchored), e.g. 'sendrecv.*' 'bsend1'
#
# Environment (all optional):
#   SMPICC          compiler driver        (default: <repo>/target/release/smpicc)
#   SMPIRUN         launcher               (default: <repo>/target/release/smpirun)
#   SMPIF90         Fortran driver, for the f77/ and f90/ directories
#                   (default: <repo>/target/release/smpif90; gfortran is
#                   installed by scripts/gfortran.sh when missing)
#   SMPIRUN_ARGS    extra launcher arguments, split on blanks, placed after
#                   `-np N`, e.g. for SimGrid:
#                   "-platform p.xml -hostfile h.txt --cfg=smpi/privatization:yes"
#   MPICH_SCRATCH   where the source package lives (default: /tmp/mpich-src)
#   MPICH_TESTS_BUILD   build/log directory (default: $MPICH_SCRATCH/build-<hash
#                   of SMPICC>), wiped and rebuilt on every run
#   MPICH_TESTS_DIRS    test directories to run (default: "attr basic comm
#                   datatype errhan group info init pt2pt rma topo"; also
#                   e.g. "threads", whose testlist lists subdirectories,
#                   or "f77 f90", the Fortran tests)
#   MPICH_TESTS_TIMEOUT seconds per test when the testlist gives no timeLimit
#                   (default: 180, MPICH's runtests' own default)
#   MPICH_TESTS_CFLAGS  extra compiler flags (default: "-O1 -w"), for
#                   the Fortran compiler too
#   MPICH_TESTS_RUN_XFAIL=1  also run lines marked xfail= (skipped by default,
#                   as MPICH's runtests does unless configured otherwise)
#   MPICH_TESTS_FAIL_ON_ERROR=1  exit 1 when any test fails (default: exit 0
#                   once the suite has run, whatever the results)
#
# Pass/fail follows MPICH's runtests:
#   - normal tests pass when the launcher exits 0, the standard output has a
#     line " No Errors" (or "No errors"), and every other standard-output line
#     is blank or "Test Passed". Standard error is not judged (simulators log
#     there) but is kept in the log files;
#   - resultTest=TestStatus / TestErrFatal pass when the launcher itself
#     exits non-zero;
#   - time limits: the launcher gets MPIEXEC_TIMEOUT=<the test's limit>, as
#     from runtests, and must end the run itself when it passes (our smpirun
#     does, with exit status 124, counted as TIMEOUT for a normal test and as
#     the expected failure for init/timeout); a launcher still running
#     15 seconds later is killed (status 137) and the test never
#     passes;
#   - a test that does not compile is BUILD-FAIL and counts as a failure.
# Tests whose build fails only for want of MPI 4.0 names (see MPI4_RE) are
# SKIP with the names listed: we implement MPI 3.1.
#
# Testlists are read as runtests reads them:
#   - a line naming a subdirectory runs that directory's testlist (in turn
#     following its own subdirectories); its tests are named dir/sub/prog
#     (e.g. threads/pt2pt/mt_sendrecv), REGEX matching either that or prog;
#   - a testlist.in's configure markers (@name@) are resolved as MPICH's
#     test/mpi/configure.ac would for an MPI 3.1 implementation with POSIX
#     threads: @comm_overlap@ is empty (--enable-comm-overlap-tests is the
#     default: the line runs); @largetest@ is "#" (--enable-large-tests is
#     off by default: the line is a comment); @rmadir@ is "rma"; @spawndir@
#     is empty, as with MPI_NO_SPAWN=yes (we have no MPI_Comm_spawn);
#     @partdir@ is "#", as with MPI_NO_PART=yes (partitioned communication
#     is MPI 4.0). A line a marker leaves out is reported as SKIP with the
#     marker's value; a line with any other marker is SKIP as unsubstituted;
#   - directories whose Makefile.am includes Makefile_threads.mtest (all of
#     threads/) are built as MPICH builds them: -DMTEST_USE_THREAD, the MTest
#     thread helpers of util/mtest_thread.c (POSIX threads) in place of
#     util/mtest_single.c, and -pthread (configure's threadlib, -lpthread).
# Output: one line per test, "PASS|FAIL|BUILD-FAIL|TIMEOUT|SKIP name np
# [args/env]" ("SKIP dir/sub/ [why]" for a subdirectory configure leaves
# out), then "dir/sub: N passed, M failed, K skipped" after each followed
# subdirectory, "dir: N passed, M failed, K skipped" per directory (its
# subdirectories included) and "total: N passed, M failed, K skipped".
#
# Exit status: 0 when the suite ran (see MPICH_TESTS_FAIL_ON_ERROR), 2 on a
# setup error (missing tools, no source package...).

set -euo pipefail

die() { echo "mpich-tests: error: $*" >&2; exit 2; }
note() { echo "mpich-tests: $*" >&2; }

usage() { sed -n '2,/^\([^#]\|$\)/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; }

FILTERS=()
for a in "$@"; do
    case "$a" in
        -h|--help) usage; exit 0 ;;
        -*) die "unknown option '$a' (see --help)" ;;
        *) FILTERS+=("$a") ;;
    esac
done

SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd -- "$SCRIPT_DIR/.." && pwd)"

SMPICC="${SMPICC:-$REPO_DIR/target/release/smpicc}"
SMPIRUN="${SMPIRUN:-$REPO_DIR/target/release/smpirun}"
SMPIF90="${SMPIF90:-$REPO_DIR/target/release/smpif90}"
SMPIRUN_ARGS="${SMPIRUN_ARGS:-}"
MPICH_SCRATCH="${MPICH_SCRATCH:-/tmp/mpich-src}"
DIRS="${MPICH_TESTS_DIRS:-attr basic comm datatype errhan group info init pt2pt rma topo}"
DEFAULT_TIMEOUT="${MPICH_TESTS_TIMEOUT:-180}"
CFLAGS_EXTRA="${MPICH_TESTS_CFLAGS:--O1 -w}"
RUN_XFAIL="${MPICH_TESTS_RUN_XFAIL:-0}"
FAIL_ON_ERROR="${MPICH_TESTS_FAIL_ON_ERROR:-0}"
# Seconds past a test's limit (MPIEXEC_TIMEOUT) after which the launcher is
# killed: it had to stop the run itself.
KILL_GRACE=15

read -r -a SMPIRUN_ARGV <<< "$SMPIRUN_ARGS"
read -r -a CFLAGS_ARGV <<< "$CFLAGS_EXTRA"

resolve_tool() { # name path -> absolute path or die
    local p="$2"
    if [[ "$p" != */* ]]; then
        p="$(command -v -- "$p" || true)"
    fi
    [[ -n "$p" && -x "$p" ]] || die "$1 not found or not executable: '$2' (set $1=...; build ours with 'cargo build --release')"
    printf '%s\n' "$(cd -- "$(dirname -- "$p")" && pwd)/$(basename -- "$p")"
}
SMPICC="$(resolve_tool SMPICC "$SMPICC")"
SMPIRUN="$(resolve_tool SMPIRUN "$SMPIRUN")"
case " $DIRS " in
    *" f77"*|*" f90"*)
        SMPIF90="$(resolve_tool SMPIF90 "$SMPIF90")"
        sh "$SCRIPT_DIR/gfortran.sh" >/dev/null || die "gfortran is needed for the Fortran tests"
        ;;
esac
command -v timeout >/dev/null || die "'timeout' (coreutils) is needed"

# ---------------------------------------------------------------------------
# 1. The MPICH source package (Debian bookworm), fetched once.
# ---------------------------------------------------------------------------
find_source() {
    local d
    for d in "$MPICH_SCRATCH"/mpich-*/; do
        if [[ -d "$d/test/mpi/pt2pt" ]]; then
            printf '%s\n' "${d%/}"
            return 0
        fi
    done
    return 1
}

# shellcheck source=lib/debian-source.sh
. "$(dirname "$0")/lib/debian-source.sh"

SRC="$(find_source || true)"
if [[ -z "$SRC" ]]; then
    fetch_debian_source mpich "$MPICH_SCRATCH"
    SRC="$(find_source || true)"
    [[ -n "$SRC" ]] || die "no mpich-*/test/mpi/pt2pt under $MPICH_SCRATCH after apt-get source"
fi
T="$SRC/test/mpi"
note "MPICH tests from $T"
note "SMPICC=$SMPICC"
note "SMPIRUN=$SMPIRUN ${SMPIRUN_ARGS}"

# ---------------------------------------------------------------------------
# 2. Configuration headers, written by hand instead of running configure.
# ---------------------------------------------------------------------------
if [[ -z "${MPICH_TESTS_BUILD:-}" ]]; then
    MPICH_TESTS_BUILD="$MPICH_SCRATCH/build-$(printf '%s' "$SMPICC" | md5sum | cut -c1-8)"
fi
BUILD="$MPICH_TESTS_BUILD"
case "$BUILD" in /|"") die "refusing to use '$BUILD' as build directory" ;; esac
rm -rf -- "$BUILD"
mkdir -p "$BUILD/include"

# mpitestconf.h: what configure would find on Linux/x86-64 glibc. Features
# we do not have (Fortran, GPU memory) are left undefined.
cat > "$BUILD/include/mpitestconf.h" <<'EOF'
/* Generated by scripts/mpich-tests.sh (replaces MPICH's configure). */
#ifndef MPITESTCONF_H_INCLUDED
#define MPITESTCONF_H_INCLUDED
#define HAVE_STDLIB_H 1
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_STRING_H 1
#define HAVE_STRINGS_H 1
#define HAVE_STDARG_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_PTHREAD_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_USLEEP 1
#define HAVE_STRDUP 1
#define HAVE_LONG_LONG 1
#define HAVE_LONG_DOUBLE 1
#define HAVE__BOOL 1
#define HAVE_FLOAT__COMPLEX 1
#define HAVE_DOUBLE__COMPLEX 1
#define HAVE_LONG_DOUBLE__COMPLEX 1
#define SIZEOF_SHORT 2
#define SIZEOF_INT 4
#define SIZEOF_LONG 8
#define SIZEOF_LONG_LONG 8
#define SIZEOF_VOID_P 8
#define SIZEOF_MPI_OFFSET 8
#define POINTERINT_t long
#define STDC_HEADERS 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_MPI_INTEGER16 1
/* gfortran's names, for the C halves of the Fortran tests. */
#define F77_NAME_LOWER_USCORE 1
/* The thread package of the MTest thread helpers (mtest_thread.c, linked
   into the threaded tests): POSIX, what configure picks on Linux. */
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
#endif
EOF
# dtpools_internal.h includes "../dtpoolsconf.h" relative to its own
# directory, so this one goes into the (scratch) source tree.
cat > "$T/dtpools/dtpoolsconf.h" <<'EOF'
/* Generated by scripts/mpich-tests.sh (replaces dtpools' configure). */
#ifndef DTPOOLSCONF_H_INCLUDED
#define DTPOOLSCONF_H_INCLUDED
#define HAVE_INTTYPES_H 1
#define HAVE_LIMITS_H 1
#define HAVE_MEMSET 1
#define HAVE_STDINT_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRDUP 1
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define STDC_HEADERS 1
#endif
EOF

# The MTest helpers: mtest.c and mtest_common.c (libmtest), dtypes.c, and
# the thread-package half: mtest_single.c for the single-threaded tests,
# mtest_thread.c (the MTest thread helpers, POSIX threads) for the tests
# whose Makefile.am includes Makefile_threads.mtest, as MPICH links them
# (libmtest_single.la or libmtest_thread.la; see is_threaded).
UTIL_SRCS=("$T/util/mtest.c" "$T/util/mtest_common.c" "$T/util/mtest_single.c" "$T/util/mtest_thread.c" "$T/util/dtypes.c")
DTP_SRCS=("$T"/dtpools/src/*.c)
INCLUDES=(-I"$BUILD/include" -I"$T/include" -I"$T/dtpools/include")

# The suite's utility code is linked into every test but references far more
# of MPI than most tests use (intercommunicators, for instance). Built as
# hidden, per-function sections and linked with --gc-sections (set
# MPICH_TESTS_GC=0 to disable), a test only needs the MPI functions its own
# code reaches, so a missing function fails only the tests that use it.
# (Hidden visibility matters: a shared object keeps every exported symbol.)
UTIL_LINK=("${UTIL_SRCS[@]}")
DTP_LINK=("${DTP_SRCS[@]}")
GC_LDFLAGS=()
if [[ "${MPICH_TESTS_GC:-1}" != 0 ]]; then
    mkdir -p "$BUILD/util-objs"
    UTIL_LINK=() DTP_LINK=()
    for src in "${UTIL_SRCS[@]}" "${DTP_SRCS[@]}"; do
        obj="$BUILD/util-objs/$(basename "$src" .c).o"
        if "$SMPICC" "${CFLAGS_ARGV[@]}" "${INCLUDES[@]}" -ffunction-sections -fdata-sections \
                -fvisibility=hidden -c "$src" -o "$obj" >"$BUILD/util-objs/$(basename "$src").log" 2>&1; then
            case "$src" in
                */util/*) UTIL_LINK+=("$obj") ;;
                *) DTP_LINK+=("$obj") ;;
            esac
        else
            note "could not compile $(basename "$src") (see $BUILD/util-objs/); tests needing it will fail to build"
        fi
    done
    GC_LDFLAGS=(-Wl,--gc-sections)
fi
# The utility objects for one kind of test: all but the other kind's
# thread-package half.
util_link_for() { # single|thread -> UTIL_FOR
    local other=mtest_thread u
    [[ "$1" == thread ]] && other=mtest_single
    UTIL_FOR=()
    for u in "${UTIL_LINK[@]}"; do
        case "$(basename "$u")" in "$other".[co]) ;; *) UTIL_FOR+=("$u") ;; esac
    done
}

# Per-program sources and defines, from the directory's Makefile.am
# (e.g. irecv_any_SOURCES = recv_any.c, irecv_any_CPPFLAGS = -DTEST_NB).
am_var() { # dir var -> value (one-line assignments only), empty if none
    local f="$T/$1/Makefile.am"
    [[ -f "$f" ]] || return 0
    sed -nE "s/^[[:space:]]*$2[[:space:]]*=[[:space:]]*(.*)$/\\1/p" "$f" | head -n 1 \
        | sed -E 's/\$\((AM_CPPFLAGS|AM_CFLAGS)\)//g'
}

# Whether a directory's tests are threaded ones (Makefile_threads.mtest).
is_threaded() { # dir
    grep -qsE '^[[:space:]]*include[[:space:]].*Makefile_threads\.mtest' "$T/$1/Makefile.am"
}

# Log file names keep one level: threads/pt2pt -> threads.pt2pt.
log_name() { # dir
    printf '%s\n' "${1//\//.}"
}

BUILD_LOG_DIR="$BUILD/logs"
mkdir -p "$BUILD_LOG_DIR"

declare -A BUILT=()   # "dir/prog" -> ok|fail

# The Fortran tests: f77/ in fixed form (.f), f90/ in free form (.f90),
# linked with MTest's Fortran helpers (util/mtest_f77.f, util/mtest_f90.f90)
# and built by the Fortran driver, which also compiles their C sources.
# Their configure-made headers (attraints.h from attraints.h.in...) get
# the kinds configure would find: 8-byte addresses and offsets.
fortran_ext() { # dir -> .f, .f90 or nothing for a C directory
    case "$1" in
        f77|f77/*) echo .f ;;
        f90|f90/*) echo .f90 ;;
    esac
}
declare -A FORTRAN_UTIL=()
fortran_util() { # .f|.f90 -> path of MTest's helper object (empty if it fails)
    local ext="$1" src obj
    if [[ -z "${FORTRAN_UTIL[$ext]+set}" ]]; then
        src="$T/util/mtest_f77.f"
        [[ "$ext" == .f90 ]] && src="$T/util/mtest_f90.f90"
        mkdir -p "$BUILD/util-objs"
        obj="$BUILD/util-objs/$(basename "$src" "$ext")$ext.o"
        if (cd "$BUILD/util-objs" && "$SMPIF90" "${CFLAGS_ARGV[@]}" -c "$src" -o "$obj") \
                >"$BUILD/util-objs/$(basename "$src").log" 2>&1; then
            FORTRAN_UTIL[$ext]="$obj"
        else
            note "could not compile $(basename "$src") (see $BUILD/util-objs/)"
            FORTRAN_UTIL[$ext]=""
        fi
    fi
    printf '%s\n' "${FORTRAN_UTIL[$ext]}"
}
configure_fortran_headers() { # dir
    local h
    mkdir -p "$BUILD/$1"
    for h in "$T/$1"/*.h.in; do
        [[ -f "$h" ]] || continue
        sed -e 's/@F77_MPI_ADDRESS@/integer*8/g' -e 's/@F77_MPI_OFFSET@/integer*8/g' \
            "$h" > "$BUILD/$1/$(basename "$h" .in)"
    done
}

build_prog() { # dir prog -> 0 if built
    local dir="$1" prog="$2" key="$1/$2"
    if [[ -n "${BUILT[$key]:-}" ]]; then
        [[ "${BUILT[$key]}" == ok ]]
        return
    fi
    local fext
    fext="$(fortran_ext "$dir")"
    if [[ -n "$fext" ]]; then
        build_fortran_prog "$dir" "$prog" "$fext"
        return
    fi
    local var="${prog//[^A-Za-z0-9_]/_}"
    local srcs_s cpp_s
    srcs_s="$(am_var "$dir" "${var}_SOURCES")"
    cpp_s="$(am_var "$dir" "${var}_CPPFLAGS")"
    [[ -n "$srcs_s" ]] || srcs_s="$prog.c"
    local -a srcs=() cpp=() extra=()
    read -r -a srcs <<< "$srcs_s"
    read -r -a cpp <<< "$cpp_s"
    local s
    local -a paths=()
    for s in "${srcs[@]}"; do paths+=("$T/$dir/$s"); done
    if grep -qsE '#[[:space:]]*include[[:space:]]*"(mtest_dtp|dtpools)\.h"' "${paths[@]}"; then
        extra=("${DTP_LINK[@]}")
    fi
    # Threaded tests: Makefile_threads.mtest adds -DMTEST_USE_THREAD, the
    # MTest thread helpers and the thread library (configure's threadlib).
    local -a thr=()
    if is_threaded "$dir"; then
        util_link_for thread
        thr=(-DMTEST_USE_THREAD -pthread)
    else
        util_link_for single
    fi
    mkdir -p "$BUILD/$dir"
    local log
    log="$BUILD_LOG_DIR/$(log_name "$dir").$prog.build.log"
    if (cd "$BUILD/$dir" && "$SMPICC" "${CFLAGS_ARGV[@]}" "${INCLUDES[@]}" "${thr[@]}" "${cpp[@]}" \
            -o "$BUILD/$dir/$prog" "${paths[@]}" "${UTIL_FOR[@]}" "${extra[@]}" "${GC_LDFLAGS[@]}" -lm) >"$log" 2>&1 \
        && [[ -x "$BUILD/$dir/$prog" ]]; then
        BUILT[$key]=ok
        return 0
    fi
    BUILT[$key]=fail
    return 1
}

# The I/O tests that MPICH's make generates (nodist_*_SOURCES): f77/io's
# from its ioharness template with maint/testmerge, and f90/io's from those
# with maint/f77tof90, as MPICH's autogen makes f90/ from f77/, into
# $BUILD/generated/<dir>; once per run (GENERATED_IO: ok or failed).
GENERATED_IO=""
generate_io_sources() {
    local gen="$BUILD/generated"
    if [[ -z "$GENERATED_IO" ]]; then
        GENERATED_IO=failed
        mkdir -p "$gen/f77/io" "$gen/f90/io"
        sed 's|@PERL@|/usr/bin/env perl|' "$T/maint/testmerge.in" > "$gen/testmerge"
        if (cd "$gen/f77/io" && perl "$gen/testmerge" -defn="$T/maint/common.defn" \
                "$T/f77/io/ioharness.defn" "$T/f77/io/ioharness.tlt" \
                && perl "$T/maint/f77tof90" "$gen/f77/io" "$gen/f90/io") >"$gen/log" 2>&1; then
            GENERATED_IO=ok
        else
            note "could not generate the I/O tests' sources (see $gen/log)"
        fi
    fi
}

build_fortran_prog() { # dir prog ext -> 0 if built
    local dir="$1" prog="$2" ext="$3" key="$1/$2"
    local var="${prog//[^A-Za-z0-9_]/_}" srcs_s s util log generated="$BUILD/generated/$1"
    srcs_s="$(am_var "$dir" "${var}_SOURCES")"
    [[ -n "$srcs_s" ]] || srcs_s="$(am_var "$dir" "nodist_${var}_SOURCES")"
    [[ -n "$srcs_s" ]] || srcs_s="$prog$ext"
    local -a srcs=() paths=()
    read -r -a srcs <<< "$srcs_s"
    for s in "${srcs[@]}"; do
        [[ ! -f "$T/$dir/$s" && "$dir" == f*/io ]] && generate_io_sources
        if [[ ! -f "$T/$dir/$s" && -f "$generated/$s" ]]; then
            paths+=("$generated/$s")
        else
            paths+=("$T/$dir/$s")
        fi
    done
    configure_fortran_headers "$dir"
    # AM_FFLAGS/AM_FCFLAGS += -I../attr: headers of a sibling directory.
    local -a incs=()
    local inc
    for inc in $(sed -nE 's/^[[:space:]]*AM_F(C)?FLAGS[[:space:]]*\+?=(.*)$/\2/p' "$T/$dir/Makefile.am" 2>/dev/null); do
        case "$inc" in
            -I.|-I) ;;
            -I*)
                configure_fortran_headers "$(cd "$T/$dir/${inc#-I}" 2>/dev/null && pwd | sed "s|^$T/||")"
                incs+=("-I$BUILD/$dir/${inc#-I}" "-I$T/$dir/${inc#-I}")
                ;;
        esac
    done
    util="$(fortran_util "$ext")"
    # C halves of a test use the C MTest helpers.
    local -a cutil=()
    if [[ " ${srcs[*]}" == *".c"* ]]; then
        util_link_for single
        cutil=("${UTIL_FOR[@]}" "${GC_LDFLAGS[@]}")
    fi
    log="$BUILD_LOG_DIR/$(log_name "$dir").$prog.build.log"
    if (cd "$BUILD/$dir" && "$SMPIF90" "${CFLAGS_ARGV[@]}" -I"$BUILD/$dir" -I"$T/$dir" "${incs[@]}" "${INCLUDES[@]}" \
            -o "$BUILD/$dir/$prog" "${paths[@]}" ${util:+"$util"} "${cutil[@]}") >"$log" 2>&1 \
        && [[ -x "$BUILD/$dir/$prog" ]]; then
        BUILT[$key]=ok
        return 0
    fi
    BUILT[$key]=fail
    return 1
}

# Names that MPI 4.0 introduced (sessions, partitioned communication,
# persistent collectives, large-count "_c" functions, new constants). A test
# whose build fails on one of them is counted as skipped (it needs MPI 4.0,
# which we do not claim); tests using MPI 4.0 functions we do provide build
# and count normally.
MPI4_RE='MPI_(Session[A-Za-z_]*|SESSION_NULL|Group_from_session_pset|Comm_create_from_group|Intercomm_create_from_groups|Info_create_env|Info_get_string|P(send|recv)_init|Pready(_range|_list)?|Parrived|(Barrier|Bcast|Gatherv?|Scatterv?|Allgatherv?|Alltoall[vw]?|Reduce|Allreduce|Reduce_scatter(_block)?|Scan|Exscan|Neighbor_[a-z]+)_init|[A-Z][A-Za-z_]*_c|COMM_TYPE_HW_(UN)?GUIDED|ERRORS_ABORT|T_event_[a-z_]+|T_source_[a-z_]+)'

# The MPI 4.0 names a failed build log complains about (undefined or
# undeclared), comma-separated; empty when there are none.
mpi4_names() { # build-log
    grep -E "undefined reference|undeclared|implicit declaration|unknown type name|does not provide" "$1" 2>/dev/null \
        | grep -oiE "\b${MPI4_RE}\b" | sort -u | paste -sd, - || true
}

MEM_GB="$(awk '/^MemTotal:/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo 2>/dev/null || echo 0)"

# ---------------------------------------------------------------------------
# 3. Run the testlists.
# ---------------------------------------------------------------------------
TOTAL_PASS=0 TOTAL_FAIL=0 TOTAL_SKIP=0

matches_filter() {
    local f
    [[ ${#FILTERS[@]} -eq 0 ]] && return 0
    for f in "${FILTERS[@]}"; do
        [[ "$1" =~ ^($f)$ ]] && return 0
    done
    return 1
}

# Judge a normal test's standard output the way runtests does.
stdout_ok() { # file
    local saw=0 line
    while IFS= read -r line || [[ -n "$line" ]]; do
        if [[ "$line" =~ ^[[:space:]]*No\ [Ee]rrors[[:space:]]*$ ]]; then
            saw=1
        elif [[ "$line" =~ ^[[:space:]]*$ || "$line" =~ ^[[:space:]]*Test\ Passed[[:space:]]*$ || "$line" =~ FORTRAN\ STOP ]]; then
            :
        else
            return 1
        fi
    done < "$1"
    [[ $saw == 1 ]]
}

# Configure's markers in testlist.in files (@name@), resolved as MPICH's
# test/mpi/configure.ac would for us (see the header): the value it
# substitutes, and why. A line that a value turns into a comment (or an
# empty line) is reported as SKIP; markers not listed here stay
# unsubstituted and their lines are SKIP as such.
declare -A AC_VALUE=(
    [comm_overlap]=""   # --enable-comm-overlap-tests, configure's default
    [largetest]="#"     # --enable-large-tests is off by default
    [rmadir]="rma"      # we implement one-sided communication
    [spawndir]=""       # MPI_NO_SPAWN=yes: no dynamic processes here
    [partdir]="#"       # MPI_NO_PART=yes: partitioned communication is MPI 4.0
    [iodir]="io"        # we implement MPI-IO
)
declare -A AC_WHY=(
    [largetest]="large tests are off by default (--enable-large-tests)"
    [spawndir]="no dynamic processes (MPI_Comm_spawn): configure with MPI_NO_SPAWN=yes"
    [partdir]="partitioned communication is MPI 4.0: configure with MPI_NO_PART=yes"
)
# The directory a marker stands for, to name a disabled directory line.
declare -A AC_DIR=([rmadir]=rma [spawndir]=spawn [partdir]=part [iodir]=io)

# resolve_markers LINE: sets RESOLVED (LINE with the known markers
# substituted), UNKNOWN_MARKERS (1 if some marker is not in AC_VALUE) and
# DISABLED_BY: when RESOLVED is only a comment or blank, the marker whose
# value made it so (empty or '#'), else empty.
resolve_markers() {
    local rest="$1" name off=""
    RESOLVED="" DISABLED_BY="" UNKNOWN_MARKERS=0
    while [[ "$rest" =~ ^([^@]*)@([A-Za-z0-9_]+)@(.*)$ ]]; do
        name="${BASH_REMATCH[2]}"
        RESOLVED+="${BASH_REMATCH[1]}"
        if [[ -v "AC_VALUE[$name]" ]]; then
            RESOLVED+="${AC_VALUE[$name]}"
            [[ -z "$off" && ( -z "${AC_VALUE[$name]}" || "${AC_VALUE[$name]}" == *"#"* ) ]] && off="$name"
        else
            RESOLVED+="@$name@"
            UNKNOWN_MARKERS=1
        fi
        rest="${BASH_REMATCH[3]}"
    done
    RESOLVED+="$rest"
    local kept="${RESOLVED%%#*}"
    [[ -z "${kept//[[:space:]]/}" ]] && DISABLED_BY="$off"
    return 0
}

pass=0 fail=0 skip=0

# run_list DIR DEPTH: run DIR's testlist, following the directories it
# lists. Tests of a directory below one of MPICH_TESTS_DIRS are named
# dir/sub/prog.
run_list() {
    local dir="$1" depth="$2"
    local list="" cand
    for cand in testlist testlist.in; do
        if [[ -f "$T/$dir/$cand" ]]; then list="$T/$dir/$cand"; break; fi
    done
    if [[ -z "$list" ]]; then
        note "no testlist in $T/$dir: skipping that directory"
        return 0
    fi
    local prefix=""
    [[ "$depth" -gt 0 ]] && prefix="$dir/"
    local raw line lineno=0 prog np name i kv k v desc tag tl run_id out err rc status needs
    local -a f args envs
    local result xfail tlimit mem mpix strict unknown
    while IFS= read -r raw || [[ -n "$raw" ]]; do
        lineno=$((lineno + 1))
        line="${raw%%#*}"
        if [[ "$line" == *@*@* ]]; then
            resolve_markers "$line"
            if [[ $UNKNOWN_MARKERS == 1 ]]; then
                read -r -a f <<< "$line" || true
                echo "SKIP ${f[0]} ${f[1]:-1} [unsubstituted configure variable in $list:$lineno]"
                skip=$((skip + 1)); continue
            fi
            if [[ -n "$DISABLED_BY" ]]; then
                local why="@$DISABLED_BY@ is empty"
                [[ -n "${AC_VALUE[$DISABLED_BY]}" ]] && why="@$DISABLED_BY@ is '${AC_VALUE[$DISABLED_BY]}'"
                [[ -n "${AC_WHY[$DISABLED_BY]:-}" ]] && why+=": ${AC_WHY[$DISABLED_BY]}"
                read -r -a f <<< "${line//@$DISABLED_BY@/}" || true
                if [[ ${#f[@]} -eq 0 ]]; then
                    echo "SKIP $dir/${AC_DIR[$DISABLED_BY]:-?}/ [directory left out as configure would: $why]"
                else
                    matches_filter "$prefix${f[0]}" || matches_filter "${f[0]}" || continue
                    echo "SKIP $prefix${f[0]} ${f[1]:-1} [left out as configure would: $why]"
                fi
                skip=$((skip + 1)); continue
            fi
            line="${RESOLVED%%#*}"
        fi
        read -r -a f <<< "$line" || true
        [[ ${#f[@]} -eq 0 ]] && continue
        prog="${f[0]}"
        np="${f[1]:-1}"
        [[ "$np" =~ ^[0-9]+$ ]] || np=1
        if [[ -d "$T/$dir/$prog" ]]; then
            # A directory: runtests runs its testlist in turn.
            local p0=$pass f0=$fail s0=$skip
            run_list "$dir/$prog" $((depth + 1))
            echo "$dir/$prog: $((pass - p0)) passed, $((fail - f0)) failed, $((skip - s0)) skipped"
            continue
        fi
        name="$prefix$prog"
        matches_filter "$name" || matches_filter "$prog" || continue
        args=() envs=() result="" xfail="" tlimit="" mem="" mpix="" strict="" unknown=""
        for ((i = 2; i < ${#f[@]}; i++)); do
            kv="${f[i]}"
            [[ "$kv" == *=* ]] || continue   # runtests ignores bare words too
            k="${kv%%=*}" v="${kv#*=}"
            case "$k" in
                arg) args+=("$v") ;;
                env) envs+=("$v") ;;
                resultTest) result="$v" ;;
                xfail) xfail="$v" ;;
                timeLimit) tlimit="$v" ;;
                mem) mem="$v" ;;
                mpix) mpix="$v" ;;
                strict) strict="$v" ;;
                lock|init|mpiexecarg) ;;   # no meaning here
                mpiversion) unknown="mpiversion=$v" ;;
                *) unknown="$kv" ;;
            esac
        done
        desc=""
        [[ ${#args[@]} -gt 0 ]] && desc+=" ${args[*]}"
        [[ ${#envs[@]} -gt 0 ]] && desc+=" env:${envs[*]}"
        tag="$name $np${desc:+ [${desc# }]}"
        if [[ -n "$unknown" ]]; then
            echo "SKIP $tag [unsupported testlist condition $unknown]"
            skip=$((skip + 1)); continue
        fi
        if [[ -n "$xfail" && "$RUN_XFAIL" != 1 ]]; then
            echo "SKIP $tag [xfail=$xfail; MPICH_TESTS_RUN_XFAIL=1 runs it]"
            skip=$((skip + 1)); continue
        fi
        if [[ -n "$mem" ]] && awk -v m="$mem" -v t="$MEM_GB" 'BEGIN { exit !(m > t) }'; then
            echo "SKIP $tag [needs ${mem} GB, machine has ${MEM_GB} GB]"
            skip=$((skip + 1)); continue
        fi

        if ! build_prog "$dir" "$prog"; then
            needs="$(mpi4_names "$BUILD_LOG_DIR/$(log_name "$dir").$prog.build.log")"
            if [[ -n "$needs" ]]; then
                echo "SKIP $tag [needs MPI 4.0: $needs]"
                skip=$((skip + 1)); continue
            fi
            echo "BUILD-FAIL $tag"
            fail=$((fail + 1)); continue
        fi

        tl="$DEFAULT_TIMEOUT"
        [[ "$tlimit" =~ ^[0-9]+$ ]] && tl="$tlimit"
        run_id="$(log_name "$dir").$prog.np$np.l$lineno"
        out="$BUILD_LOG_DIR/$run_id.out" err="$BUILD_LOG_DIR/$run_id.err"
        rc=0
        (
            cd "$BUILD/$dir"
            for e in "${envs[@]}"; do export "${e?}"; done
            export MPIEXEC_TIMEOUT="$tl"
            exec timeout -s KILL "$((tl + KILL_GRACE))" "$SMPIRUN" -np "$np" "${SMPIRUN_ARGV[@]}" "./$prog" "${args[@]}"
        ) </dev/null >"$out" 2>"$err" || rc=$?

        status=FAIL
        case "$result" in
            TestStatus|TestErrFatal)
                if [[ $rc -ne 0 && $rc -ne 137 ]]; then status=PASS; fi
                ;;
            TestStatusNoErrors)
                if [[ $rc -ne 0 && $rc -ne 124 && $rc -ne 137 ]] && grep -qE '^[[:space:]]*No [Ee]rrors[[:space:]]*$' "$out"; then status=PASS; fi
                ;;
            "")
                if [[ $rc -eq 124 || $rc -eq 137 ]]; then
                    status=TIMEOUT
                elif [[ $rc -eq 0 ]] && stdout_ok "$out"; then
                    status=PASS
                fi
                ;;
            *)
                echo "SKIP $tag [unknown resultTest=$result]"
                skip=$((skip + 1)); continue
                ;;
        esac
        if [[ "$status" == PASS ]]; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1))
            if [[ $rc -eq 124 || $rc -eq 137 ]]; then status=TIMEOUT; fi
        fi
        echo "$status $tag"
    done < "$list"
}

for dir in $DIRS; do
    pass=0 fail=0 skip=0
    run_list "$dir" 0
    echo "$dir: $pass passed, $fail failed, $skip skipped"
    TOTAL_PASS=$((TOTAL_PASS + pass)) TOTAL_FAIL=$((TOTAL_FAIL + fail)) TOTAL_SKIP=$((TOTAL_SKIP + skip))
done

note "logs: $BUILD_LOG_DIR (<dir>.<test>.build.log, <dir>.<test>.np<N>.l<line>.out/.err)"
echo "total: $TOTAL_PASS passed, $TOTAL_FAIL failed, $TOTAL_SKIP skipped"
if [[ "$FAIL_ON_ERROR" == 1 && $TOTAL_FAIL -gt 0 ]]; then
    exit 1
fi
exit 0
