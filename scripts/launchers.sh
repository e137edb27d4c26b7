#!/usr/bin/env bash
# The launchers gshmem's tests run under, on a Debian/Ubuntu machine, as root:
#   launchers.sh install      Open MPI, MPICH (Hydra), Slurm with PMI-2 and PMIx, PMIx, iproute2, and
#                             valgrind (the heap alignment test runs under it)
#   launchers.sh slurm-up     start a one-node Slurm (no systemd, no munge: auth/none, loopback)
#   launchers.sh slurm-down   stop it (by pid)
set -euo pipefail
state=/run/gshmem-slurm
case "${1:-}" in
  install)
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends openmpi-bin libopenmpi-dev mpich slurmctld slurmd slurm-client \
      libpmi2-0-dev libpmix-dev iproute2 pkg-config procps valgrind >/dev/null
    ;;
  slurm-up)
    if [[ -s /run/slurmctld.pid ]] && kill -0 "$(cat /run/slurmctld.pid)" 2>/dev/null; then
      echo "launchers: Slurm is already running"
      exit 0
    fi
    mkdir -p /etc/slurm /var/spool/gshmem-slurmctld /var/spool/gshmem-slurmd /var/log/slurm "$state"
    cat > /etc/slurm/slurm.conf <<CONF
ClusterName=gshmem
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=/var/spool/gshmem-slurmctld
SlurmdSpoolDir=/var/spool/gshmem-slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/gshmem-slurmctld.log
SlurmdLogFile=/var/log/slurm/gshmem-slurmd.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdTimeout=300
InactiveLimit=0
KillWait=5
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=gshmem Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
    # Our own state directories: a state left by another cluster name would stop slurmctld.
    slurmctld || { tail -n 5 /var/log/slurm/gshmem-slurmctld.log >&2; exit 1; }
    slurmd -N localhost || { tail -n 5 /var/log/slurm/gshmem-slurmd.log >&2; exit 1; }
    touch "$state/started"
    for _ in $(seq 1 150); do
      if sinfo -h -N -o '%T' 2>/dev/null | grep -qx idle; then echo "launchers: Slurm is up"; exit 0; fi
      sleep 0.2
    done
    echo "launchers: the Slurm node never became idle" >&2
    tail -n 20 /var/log/slurm/gshmem-slurmctld.log /var/log/slurm/gshmem-slurmd.log >&2 || true
    exit 1
    ;;
  slurm-down)
    pids=()
    for f in /run/slurmctld.pid /run/slurmd.pid; do [[ -s $f ]] && pids+=("$(cat "$f")"); done
    if ((${#pids[@]})); then
      scontrol shutdown 2>/dev/null || kill -TERM "${pids[@]}" 2>/dev/null || true
      for _ in $(seq 1 150); do
        alive=0
        for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
        ((alive)) || break
        sleep 0.2
      done
      for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && kill -KILL "$p" || true; done
    fi
    rm -rf "$state"
    echo "launchers: Slurm stopped"
    ;;
  *)
    echo "usage: launchers.sh install | slurm-up | slurm-down" >&2
    exit 2
    ;;
esac
