#!/usr/bin/env bash
# Makes huge pages available to smpi/shared-malloc-hugepage: reserves at
# least PAGES huge pages of 2 MiB (default 16) and mounts a hugetlbfs at DIR
# (default /dev/hugepages) unless one is mounted already. Needs root.
#
#   scripts/hugepages.sh [PAGES] [DIR]
#
# Prints the mount point to pass as --cfg=smpi/shared-malloc-hugepage:DIR.
set -euo pipefail
PAGES="${1:-16}" DIR="${2:-/dev/hugepages}"
die() { echo "hugepages: error: $*" >&2; exit 2; }

[[ "$(id -u)" == 0 ]] || die "reserving huge pages needs root"
have=$(cat /proc/sys/vm/nr_hugepages)
if (( have < PAGES )); then
    echo "$PAGES" >/proc/sys/vm/nr_hugepages || die "cannot write /proc/sys/vm/nr_hugepages"
fi
have=$(cat /proc/sys/vm/nr_hugepages)
(( have >= PAGES )) || die "the kernel reserved only $have of $PAGES huge pages (memory too fragmented?)"
mounted=$(awk '$3 == "hugetlbfs" && $4 ~ /pagesize=2M/ { print $2; exit }' /proc/mounts)
if [[ -z "$mounted" ]]; then
    mkdir -p "$DIR"
    mount -t hugetlbfs -o pagesize=2M none "$DIR" || die "cannot mount a hugetlbfs at $DIR"
    mounted="$DIR"
fi
echo "$mounted"
