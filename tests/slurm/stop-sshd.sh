#!/usr/bin/env bash
# Stops the sshd of start-sshd.sh DIR; with --private-root, every process
# still in its mount namespace too (workers it started, detached), which
# ends the namespace and its tmpfs.
set -uo pipefail
dir=${1:?usage: stop-sshd.sh DIR}
if [[ -s $dir/mntns ]]; then
  ns=$(cat "$dir/mntns")
  for _ in 1 2 3; do
    for p in /proc/[0-9]*; do
      [[ $(readlink "$p/ns/mnt" 2>/dev/null) == "$ns" ]] && kill -9 "${p#/proc/}" 2>/dev/null
    done
    sleep 0.1
  done
elif [[ -s $dir/sshd.pid ]]; then
  kill "$(cat "$dir/sshd.pid")" 2>/dev/null
fi
exit 0
