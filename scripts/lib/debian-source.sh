# Sourced by the scripts that build third-party programs from Debian source
# packages (never kept in the repository). Needs `die` and `note` defined.

has_deb_src() {
    grep -qhsE '^[[:space:]]*deb-src[[:space:]]|^[[:space:]]*Types:.*deb-src' \
        /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources >/dev/null 2>&1
}

# apt_update_once: `apt-get update`, once per run of the calling script and
# the scripts it runs (SMPI_APT_UPDATED, exported, remembers it).
apt_update_once() {
    [[ "${SMPI_APT_UPDATED:-0}" == 1 ]] && return 0
    note "apt-get update"
    apt-get update -q >/dev/null || die "apt-get update failed"
    export SMPI_APT_UPDATED=1
}

# fetch_debian_source PACKAGE DIR: `apt-get source PACKAGE` into DIR, adding
# a deb-src line for Debian bookworm first if none is configured. Only the
# upstream tarball is required (some packages' Debian parts are gone from
# the mirrors); it is unpacked if apt-get could not do it.
fetch_debian_source() {
    local pkg="$1" dir="$2"
    command -v apt-get >/dev/null || die "apt-get is needed to fetch the $pkg source package"
    [[ "$(id -u)" == 0 ]] || die "fetching the source needs root (apt-get); run as root or put an unpacked $pkg source package in $dir"
    if ! has_deb_src; then
        local f=/etc/apt/sources.list.d/smpi-deb-src.sources
        note "no deb-src line configured; adding $f (Debian bookworm sources)"
        cat > "$f" <<'SOURCES'
# Added by smpi-rs's scripts to allow `apt-get source`.
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
        SMPI_APT_UPDATED=0  # the new sources need lists of their own
    fi
    apt_update_once
    if ! command -v dpkg-source >/dev/null; then
        note "installing dpkg-dev (needed by apt-get source)"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q dpkg-dev >/dev/null || die "cannot install dpkg-dev"
    fi
    mkdir -p "$dir"
    note "fetching the $pkg source package into $dir"
    if ! (cd "$dir" && apt-get source -q "$pkg" >apt-get-source.log 2>&1); then
        (cd "$dir" && apt-get source -q --download-only "$pkg" >>apt-get-source.log 2>&1) || true
        local orig
        orig="$(ls "$dir"/"${pkg}"_*.orig.tar.* 2>/dev/null | head -n 1)"
        [[ -n "$orig" ]] || die "apt-get source $pkg failed; see $dir/apt-get-source.log"
        note "unpacking $(basename "$orig") (the Debian part could not be fetched)"
        tar -C "$dir" -xf "$orig" || die "cannot unpack $orig"
    fi
}
