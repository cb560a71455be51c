#!/usr/bin/env bash
# Stops the test cluster tests/slurm/start-cluster.sh DIR started and removes
# DIR: the jobs are cancelled, then slurmd, slurmctld and munged end by their
# pid files, and whatever still runs with this cluster's SLURM_CONF in its
# environment (a job step, a worker) is killed. Nothing else is touched.
# TRAINYARD_SLURM_KEEP=1 keeps DIR (its logs) for a look afterwards.
set -uo pipefail

dir=${1:?usage: stop-cluster.sh DIR}
[[ -d $dir ]] || exit 0
dir=$(cd "$dir" && pwd)
export PATH=$PATH:/usr/sbin
conf=$dir/slurm.conf
# Never exported: this script's own processes must not look like the
# cluster's (a caller may have set it for itself).
unset SLURM_CONF
if [[ -f $conf ]]; then
  SLURM_CONF=$conf timeout 10 scancel --quiet --user=root 2>/dev/null || true
fi

# This script and its callers (a test that set SLURM_CONF for itself) are
# never ours to kill.
spared=" $$ "
pid=$$
while [[ $pid -gt 1 ]]; do
  pid=$(awk '{print $4}' "/proc/$pid/stat" 2>/dev/null) || break
  spared+="$pid "
done

# The processes of this cluster: the daemons by their pid files, and any
# process whose environment names this cluster's slurm.conf.
# A zombie has ended (only its parent, often init, has yet to reap it).
alive() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [[ ${stat:0:1} != Z ]]
}
ours() {
  local pidfile pid
  for pidfile in "$dir"/run/slurmd.pid "$dir"/run/slurmctld.pid "$dir"/run/munged.pid; do
    [[ -f $pidfile ]] && read -r pid <"$pidfile" && alive "$pid" && echo "$pid"
  done
  local environ
  while read -r environ; do
    pid=${environ#/proc/}
    pid=${pid%/environ}
    [[ $spared == *" $pid "* || $pid == "$BASHPID" ]] || ! alive "$pid" || echo "$pid"
  done < <(grep -lzxF "SLURM_CONF=$conf" /proc/[0-9]*/environ 2>/dev/null)
}

stop_all() {
  local signal=$1 pids
  pids=$(ours | sort -u)
  [[ -z $pids ]] && return 0
  # shellcheck disable=SC2086
  kill "-$signal" $pids 2>/dev/null || true
  return 1
}

# Step jobs and workers first (by environment), then the daemons; TERM, a
# bounded wait, then KILL.
stop_all TERM
for _ in $(seq 1 50); do
  [[ -z $(ours) ]] && break
  sleep 0.1
done
stop_all KILL
for _ in $(seq 1 50); do
  [[ -z $(ours) ]] && break
  sleep 0.1
done
if [[ -n $(ours) ]]; then
  echo "stop-cluster: still running: $(ours | tr '\n' ' ')" >&2
  exit 1
fi

if [[ ${TRAINYARD_SLURM_KEEP:-0} != 1 ]]; then
  rm -rf "$dir"
fi
exit 0
