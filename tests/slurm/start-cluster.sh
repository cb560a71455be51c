#!/usr/bin/env bash
# A private one-node Slurm cluster on 127.0.0.1 for the tests:
#   tests/slurm/start-cluster.sh DIR     start munged, slurmctld and slurmd
#   tests/slurm/stop-cluster.sh DIR      stop them and remove what they left
# Everything lives in DIR (its own slurm.conf, gres.conf, munge key and
# socket, state, logs, pid files, free ports); the system's Slurm and munge
# configuration are never read or written: every command gets
# SLURM_CONF=DIR/slurm.conf (DIR/env says so for the tests).
# The node has two fake GPUs (character devices like /dev/null, made with
# mknod: gres.conf's File= must name devices, Count= alone drains the node).
# Exit status 77 (the tests' "skip") with the reason on stderr when it cannot
# run here: not root, or the packages are missing.
set -euo pipefail

dir=${1:?usage: start-cluster.sh DIR}
here=$(cd "$(dirname "$0")" && pwd)

skip() {
  echo "start-cluster: skipped: $*" >&2
  exit 77
}
[[ $(id -u) -eq 0 ]] || skip "needs root (slurmd and munged run as root here)"
for program in munged slurmctld slurmd sbatch squeue scontrol scancel sinfo; do
  command -v "$program" >/dev/null 2>&1 || [[ -x /usr/sbin/$program ]] ||
    skip "$program not found (apt-get install slurmctld slurmd slurm-client munge)"
done
export PATH=$PATH:/usr/sbin

# A cluster already started in DIR is stopped first: one cluster per folder.
if [[ -f $dir/env ]]; then
  "$here/stop-cluster.sh" "$dir" || true
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
mkdir -p "$dir"/{munge,ctld,spool,log,run,dev}
chmod 0700 "$dir/munge"

# Free TCP ports on 127.0.0.1 (the kernel picks them; a race with another
# program binding them meanwhile is possible but unlikely).
read -r ctld_port slurmd_port < <(python3 - <<'EOF'
import socket
socks = []
for _ in range(2):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(*[s.getsockname()[1] for s in socks])
EOF
)

host=$(hostname -s)
for i in 0 1; do
  [[ -e $dir/dev/gpu$i ]] || mknod "$dir/dev/gpu$i" c 1 3
done

# munged refuses a key that others can read, and its socket folder must be
# ours alone.
head -c 1024 /dev/urandom >"$dir/munge/munge.key"
chmod 0400 "$dir/munge/munge.key"
munge_socket=$dir/munge/munge.socket
munged --force --key-file="$dir/munge/munge.key" --socket="$munge_socket" \
  --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" \
  --seed-file="$dir/munge/munge.seed" --num-threads=2

cat >"$dir/slurm.conf" <<EOF
# Written by tests/slurm/start-cluster.sh: a private test cluster.
ClusterName=trainyard-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$munge_socket
CredType=cred/munge
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1,bf_interval=1
ReturnToService=2
# The node's configured CPUs count, not the machine's: the fake GPUs, not two
# cores, must be what three one-GPU jobs wait for.
SlurmdParameters=config_overrides
KillWait=5
MinJobAge=300
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host NodeAddr=127.0.0.1 CPUs=8 RealMemory=1000 Gres=gpu:2 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
cat >"$dir/gres.conf" <<EOF
AutoDetect=off
NodeName=$host Name=gpu File=$dir/dev/gpu[0-1]
EOF
cat >"$dir/env" <<EOF
SLURM_CONF=$dir/slurm.conf
EOF

export SLURM_CONF=$dir/slurm.conf
slurmctld -i
slurmd

# Bounded: the node registers within a second or two.
for _ in $(seq 1 150); do
  state=$(sinfo --noheader --nodes="$host" --format=%t 2>/dev/null || true)
  if [[ $state == idle ]]; then
    echo "start-cluster: up in $dir (SLURM_CONF=$SLURM_CONF, node $host, ports $ctld_port/$slurmd_port)"
    exit 0
  fi
  sleep 0.2
done
echo "start-cluster: the node did not become idle within 30 s (sinfo: ${state:-nothing}); logs:" >&2
tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
"$here/stop-cluster.sh" "$dir" || true
exit 1
