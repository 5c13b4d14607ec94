# Sourced by the scripts that the tests run to find a tool (POSIX sh).
#
# install_package PACKAGE CHECK...: installs Debian's PACKAGE unless the
# command CHECK... succeeds. Tests run in parallel and may all find a tool
# missing at once: the install runs under a lock, and the check is made
# again under it, so that one test installs while the others wait and then
# find the package there; apt's own lock is waited for too (another script
# may be installing something). apt-get's output goes to stderr.
install_package() {
    pkg=$1
    shift
    "$@" >/dev/null 2>&1 && return 0
    (
        flock 9
        "$@" >/dev/null 2>&1 && exit 0
        apt-get -o DPkg::Lock::Timeout=600 update
        DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y "$pkg"
    ) 9>/var/lock/smpi-apt.lock >&2
}
