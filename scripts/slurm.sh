#!/bin/sh
# Makes a real single-node Slurm cluster ready on this machine and prints
# the name of its partition: the tests that submit job arrays with sbatch
# run against it.
#
# Installs Debian's slurm-wlm and munge when they are missing (output on
# stderr), writes /etc/slurm/slurm.conf (one node: this host, with its CPUs
# and memory; one partition), starts munged (as the munge user), slurmctld
# and slurmd (as root) directly -- no systemd needed -- and waits until the
# node is idle. When the cluster already answers it does nothing but print
# the partition. Daemons are left running; to stop them:
#   kill $(cat /run/slurm-smpi/slurmd.pid /run/slurm-smpi/slurmctld.pid /run/munge/munged.pid)
# No accounting storage: sacct does not work, use squeue / scontrol.
set -eu

PARTITION=debug
CLUSTER=smpi
CONF=/etc/slurm/slurm.conf
SPOOL=/var/spool/slurm
RUNDIR=/run/slurm-smpi
LOGDIR=/var/log/slurm
TIMEOUT=${SLURM_SETUP_TIMEOUT:-60}

note() { echo "slurm.sh: $*" >&2; }
die() { echo "slurm.sh: error: $*" >&2; exit 1; }

# Client commands are bounded by `timeout`: one that cannot reach its
# daemon otherwise waits for MessageTimeout (10 s), and may retry.

# The node's state as sinfo prints it (idle, mix, alloc, down*, drain, ...),
# empty when the controller does not answer.
node_state() {
    timeout 5 sinfo -h -p "$PARTITION" -o %t 2>/dev/null | head -n 1 || true
}

controller_up() {
    timeout 5 scontrol ping 2>/dev/null | grep -q 'is UP'
}

# The local slurmd answers (after a restart of slurmctld the node's saved
# state may read idle before slurmd is back).
slurmd_up() {
    timeout 5 scontrol show slurmd >/dev/null 2>&1
}

cluster_ready() {
    controller_up && slurmd_up || return 1
    case "$(node_state)" in
        idle|mix|alloc|comp) return 0 ;;
        *) return 1 ;;
    esac
}

# pid_alive PIDFILE: the process named in PIDFILE runs.
pid_alive() {
    [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null
}

# --- already up? ----------------------------------------------------------
if command -v sinfo >/dev/null 2>&1 && command -v scontrol >/dev/null 2>&1 \
    && cluster_ready; then
    echo "$PARTITION"
    exit 0
fi

[ "$(id -u)" = 0 ] || die "must run as root (installs packages, starts slurmctld/slurmd/munged)"

# --- install --------------------------------------------------------------
pkgs=
for cmd in slurmctld slurmd sbatch squeue scontrol sinfo; do
    command -v "$cmd" >/dev/null 2>&1 || pkgs=" slurm-wlm"
done
if ! command -v munged >/dev/null 2>&1 || ! command -v munge >/dev/null 2>&1; then
    pkgs="$pkgs munge"
fi
if [ -n "$pkgs" ]; then
    note "installing$pkgs"
    apt-get update >&2 || die "apt-get update failed"
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y $pkgs >&2 \
        || die "apt-get install $pkgs failed"
fi
for cmd in slurmctld slurmd sbatch squeue scontrol sinfo munged munge unmunge; do
    command -v "$cmd" >/dev/null 2>&1 || die "$cmd not found after installing slurm-wlm and munge"
done

# --- munge ----------------------------------------------------------------
if ! munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
    id munge >/dev/null 2>&1 || die "no munge user (the munge package creates it)"
    mkdir -p /etc/munge /var/lib/munge /var/log/munge /run/munge
    chown munge:munge /etc/munge /var/lib/munge /var/log/munge /run/munge
    chmod 0700 /etc/munge /var/lib/munge
    chmod 0755 /run/munge
    if [ ! -s /etc/munge/munge.key ]; then
        note "creating /etc/munge/munge.key"
        if command -v mungekey >/dev/null 2>&1; then
            mungekey --create --keyfile=/etc/munge/munge.key >&2
        else
            dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 2>/dev/null
        fi
    fi
    chown munge:munge /etc/munge/munge.key
    chmod 0400 /etc/munge/munge.key
    # A munged that does not answer (or a stale pid file) is replaced.
    if pid_alive /run/munge/munged.pid; then
        kill "$(cat /run/munge/munged.pid)" 2>/dev/null || true
        sleep 1
    fi
    rm -f /run/munge/munged.pid /run/munge/munge.socket.2 /run/munge/munge.socket.2.lock
    note "starting munged"
    runuser -u munge -- munged >&2 || die "munged did not start (see /var/log/munge/munged.log)"
    i=0
    until munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; do
        i=$((i + 1))
        [ "$i" -le 20 ] || die "munged does not answer (see /var/log/munge/munged.log)"
        sleep 0.5
    done
fi

# --- slurm.conf -----------------------------------------------------------
host=$(hostname -s)
[ -n "$host" ] || die "no hostname"
cpus=$(nproc)
mem_total=$(free -m | awk '/^Mem:/ { print $2 }')
[ -n "$mem_total" ] || die "cannot read the memory size from free -m"
# Slightly below what the machine has: slurmd drains a node that has less
# memory than configured.
mem=$((mem_total * 95 / 100))

mkdir -p /etc/slurm "$SPOOL/ctld" "$SPOOL/d" "$RUNDIR" "$LOGDIR"
conf_tmp=$(mktemp)
cat >"$conf_tmp" <<EOF
# Written by smpi-rs's scripts/slurm.sh: a single-node cluster for tests.
ClusterName=$CLUSTER
# Addresses given explicitly: the host name need not resolve.
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
# No mail is sent (silences "Configured MailProg is invalid").
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
ReturnToService=2
StateSaveLocation=$SPOOL/ctld
SlurmdSpoolDir=$SPOOL/d
SlurmctldPidFile=$RUNDIR/slurmctld.pid
SlurmdPidFile=$RUNDIR/slurmd.pid
SlurmctldLogFile=$LOGDIR/slurmctld.log
SlurmdLogFile=$LOGDIR/slurmd.log
SchedulerType=sched/backfill
# CPUs (not cores, not memory) are what jobs consume: several one-CPU
# array tasks run at once, whatever the hyperthreading.
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=$PARTITION Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
conf_changed=0
if ! cmp -s "$conf_tmp" "$CONF"; then
    if [ -e "$CONF" ] && ! grep -q 'scripts/slurm.sh' "$CONF"; then
        note "replacing $CONF (saved as $CONF.orig)"
        cp -p "$CONF" "$CONF.orig"
    fi
    note "writing $CONF"
    cat "$conf_tmp" >"$CONF"
    chmod 0644 "$CONF"
    conf_changed=1
fi
rm -f "$conf_tmp"

# --- daemons --------------------------------------------------------------
# A new configuration needs daemons started with it.
if [ "$conf_changed" = 1 ]; then
    for d in slurmd slurmctld; do
        if pid_alive "$RUNDIR/$d.pid"; then
            note "stopping $d (configuration changed)"
            kill "$(cat "$RUNDIR/$d.pid")" 2>/dev/null || true
        fi
    done
    sleep 1
fi
if ! pid_alive "$RUNDIR/slurmctld.pid"; then
    note "starting slurmctld"
    slurmctld >&2 || die "slurmctld did not start (see $LOGDIR/slurmctld.log)"
fi
if ! pid_alive "$RUNDIR/slurmd.pid"; then
    note "starting slurmd"
    slurmd >&2 || die "slurmd did not start (see $LOGDIR/slurmd.log)"
fi

# --- wait for the node ----------------------------------------------------
start=$(date +%s)
state=
while :; do
    if controller_up && slurmd_up; then
        state=$(node_state)
        case "$state" in
            idle|mix|alloc|comp) break ;;
            # Responding (no '*') but down or drained, e.g. after a restart.
            down|drain|drng|fail|failg|inval)
                note "node $host is $state: resuming it"
                timeout 5 scontrol update NodeName="$host" State=RESUME >&2 || true ;;
        esac
    fi
    # (A daemon writes its pid file a moment after it forks.)
    for d in slurmctld slurmd; do
        [ $(($(date +%s) - start)) -ge 3 ] || break
        pid_alive "$RUNDIR/$d.pid" && continue
        tail -n 5 "$LOGDIR/$d.log" >&2 2>/dev/null || true
        die "$d exited (see $LOGDIR/$d.log)"
    done
    if [ $(($(date +%s) - start)) -ge "$TIMEOUT" ]; then
        if ! controller_up; then why="slurmctld does not answer"
        elif ! slurmd_up; then why="slurmd does not answer"
        else why="node $host is ${state:-unknown}"; fi
        die "the cluster did not come up within ${TIMEOUT}s: $why; see $LOGDIR/slurmctld.log and $LOGDIR/slurmd.log"
    fi
    sleep 1
done
note "node $host is $state ($(($(date +%s) - start))s)"
echo "$PARTITION"
