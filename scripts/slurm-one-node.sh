#!/usr/bin/env bash
# Starts a one-node Slurm cluster on this machine (Debian's slurm-wlm and munge, installed if
# missing), to try motionlab's Slurm scripts (docs/cluster.md) where no cluster is at hand. Run
# as root. Idempotent: daemons already running are left alone. `scancel -u root` and
# `pkill slurmd slurmctld munged` stop it.
set -euo pipefail
if [ "$(id -u)" -ne 0 ]; then
  echo "slurm-one-node: run as root" >&2
  exit 1
fi
for p in slurm-wlm munge; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
    break
  fi
done

node=$(hostname -s)
cpus=$(nproc)
memory=$(awk '/MemTotal/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)

# munge: the key every Slurm daemon authenticates with.
if [ ! -s /etc/munge/munge.key ]; then
  mkdir -p /etc/munge
  dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
fi
chown munge:munge /etc/munge/munge.key 2>/dev/null || true
chmod 400 /etc/munge/munge.key
mkdir -p /run/munge /var/log/munge /var/lib/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge 2>/dev/null || true
if ! pgrep -x munged >/dev/null; then
  runuser -u munge -- /usr/sbin/munged 2>/dev/null || /usr/sbin/munged --force
fi

mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
cat > /etc/slurm/slurm.conf <<CONF
# One-node cluster written by motionlab's scripts/slurm-one-node.sh.
ClusterName=motionlab
SlurmctldHost=${node}
AuthType=auth/munge
SlurmUser=root
SlurmdUser=root
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
NodeName=${node} CPUs=${cpus} RealMemory=${memory} State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF

pgrep -x slurmctld >/dev/null || /usr/sbin/slurmctld
pgrep -x slurmd >/dev/null || /usr/sbin/slurmd || { echo "slurm-one-node: slurmd did not start; see /var/log/slurm/slurmd.log" >&2; exit 1; }
for _ in $(seq 1 30); do
  if sinfo -h -o '%T' 2>/dev/null | grep -qE 'idle|mixed|allocated'; then
    sinfo
    exit 0
  fi
  sleep 1
done
echo "slurm-one-node: the node did not come up; see /var/log/slurm/" >&2
sinfo >&2 || true
exit 1
