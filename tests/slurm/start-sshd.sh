#!/usr/bin/env bash
# A private sshd on 127.0.0.1 for the ssh tests (clusters reached over ssh,
# hosts of docs/remote.md):
#   tests/slurm/start-sshd.sh DIR SLURM_CONF [OPTIONS]    start it
#   tests/slurm/stop-sshd.sh DIR                          stop it (and, with
#                                                         --private-root, all it started)
# Everything is in DIR: a host key, a client key made here (root may log in
# with it only), its authorized_keys, a known_hosts holding the host key (as
# a user who accepted it once would have), an empty known_hosts for the
# "unknown host" case, and DIR/ssh_config for `ssh -F` (port, key, known
# hosts). Commands run over it get SLURM_CONF (sshd's SetEnv; "-" for none),
# so the remote side's Slurm commands reach the test cluster.
# Options:
#   --private-root PATH SIZE  sshd runs in a mount namespace of its own
#                             (unshare --mount) with a tmpfs of SIZE (as
#                             mount takes it: 64m) at PATH: what its commands
#                             write there does not exist for this machine
#                             except over ssh (a host whose files are not
#                             mounted here); DIR/mntns names the namespace.
#   --path DIR2               DIR2 first on its commands' PATH (a fake
#                             nvidia-smi).
#   --with-cluster DIR3       with --private-root: start-cluster.sh DIR3 in
#                             the same namespace first (a cluster whose
#                             files are not mounted here: its jobs run
#                             there too); SLURM_CONF is DIR3/slurm.conf.
# Exit 77 with the reason on stderr where it cannot run (not root, no sshd,
# no unshare).
set -euo pipefail
usage="usage: start-sshd.sh DIR SLURM_CONF [--private-root PATH SIZE] [--path DIR] [--with-cluster DIR]"
dir=${1:?$usage}
slurm_conf=${2:?$usage}
shift 2
private_root=
private_size=
path_first=
cluster=
while [[ $# -gt 0 ]]; do
  case $1 in
  --private-root)
    private_root=${2:?$usage}
    private_size=${3:?$usage}
    shift 3
    ;;
  --path)
    path_first=${2:?$usage}
    shift 2
    ;;
  --with-cluster)
    cluster=${2:?$usage}
    shift 2
    ;;
  *)
    echo "$usage" >&2
    exit 2
    ;;
  esac
done
skip() {
  echo "start-sshd: skipped: $*" >&2
  exit 77
}
[[ $(id -u) -eq 0 ]] || skip "needs root"
[[ -x /usr/sbin/sshd ]] || skip "/usr/sbin/sshd not found (apt-get install openssh-server)"
command -v ssh-keygen >/dev/null || skip "ssh-keygen not found"
if [[ -n $private_root ]]; then
  command -v unshare >/dev/null || skip "unshare not found (util-linux)"
  unshare --mount --propagation private true 2>/dev/null || skip "unshare --mount is not allowed here (a container without CAP_SYS_ADMIN?)"
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
chmod 0700 "$dir"
if [[ -n $cluster ]]; then
  [[ -n $private_root ]] || { echo "$usage (--with-cluster needs --private-root)" >&2; exit 2; }
  mkdir -p "$cluster"
  cluster=$(cd "$cluster" && pwd)
  slurm_conf=$cluster/slurm.conf
fi
ssh-keygen -q -t ed25519 -N '' -f "$dir/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$dir/client_key"
cp "$dir/client_key.pub" "$dir/authorized_keys"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$dir/host_key.pub")" >"$dir/known_hosts"
: >"$dir/known_hosts.empty"
{
  echo "ListenAddress 127.0.0.1"
  echo "Port $port"
  echo "HostKey $dir/host_key"
  echo "AuthorizedKeysFile $dir/authorized_keys"
  echo "PidFile $dir/sshd.pid"
  echo "PermitRootLogin prohibit-password"
  echo "PasswordAuthentication no"
  echo "KbdInteractiveAuthentication no"
  echo "UsePAM no"
  echo "StrictModes no"
  echo "AllowStreamLocalForwarding yes"
  echo "MaxSessions 64"
  echo "MaxStartups 64"
  env=()
  [[ $slurm_conf == - ]] || env+=("SLURM_CONF=$slurm_conf")
  [[ -z $path_first ]] || env+=("PATH=$path_first:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
  [[ ${#env[@]} -eq 0 ]] || echo "SetEnv ${env[*]}"
} >"$dir/sshd_config"
for known in known_hosts known_hosts.empty; do
  cat >"$dir/ssh_config.${known#known_hosts}" <<CONF
Host 127.0.0.1
  Port $port
  User root
  IdentityFile $dir/client_key
  IdentitiesOnly yes
  UserKnownHostsFile $dir/$known
  GlobalKnownHostsFile /dev/null
CONF
done
mv "$dir/ssh_config." "$dir/ssh_config"
mv "$dir/ssh_config..empty" "$dir/ssh_config.unknown-host"
mkdir -p /run/sshd # sshd's privilege separation folder, compiled in
if [[ -n $private_root ]]; then
  mkdir -p "$private_root"
  # sshd stays in the foreground (-D) in the namespace unshare made for it;
  # the tmpfs exists only there (private propagation: never seen here).
  # The cluster, if any, first and in the same namespace: its jobs see the tmpfs.
  here=$(cd "$(dirname "$0")" && pwd)
  # shellcheck disable=SC2016 # expanded by the inner shell
  unshare --mount --propagation private sh -c 'mount -t tmpfs -o "size=$1,mode=0755" tmpfs "$2" || exit 1
if [ -n "$5" ]; then "$6/start-cluster.sh" "$5" >"$5.log" 2>&1; echo $? >"$5.status"; [ "$(cat "$5.status")" = 0 ] || exit 1; fi
exec /usr/sbin/sshd -D -f "$3" -E "$4"' \
    sh "$private_size" "$private_root" "$dir/sshd_config" "$dir/sshd.log" "$cluster" "$here" </dev/null >/dev/null 2>&1 &
  echo $! >"$dir/sshd.pid"
  readlink "/proc/$!/ns/mnt" >"$dir/mntns" || true
else
  /usr/sbin/sshd -f "$dir/sshd_config" -E "$dir/sshd.log"
fi
for _ in $(seq 300); do
  if [[ -n $cluster && -s $cluster.status && $(cat "$cluster.status") != 0 ]]; then
    if [[ $(cat "$cluster.status") == 77 ]]; then
      skip "$(tail -n 1 "$cluster.log")"
    fi
    echo "start-sshd: start-cluster.sh failed:" >&2
    tail -n 20 "$cluster.log" >&2
    exit 1
  fi
  if ssh -F "$dir/ssh_config" -o BatchMode=yes 127.0.0.1 true 2>/dev/null; then
    [[ -z $private_root ]] || readlink "/proc/$(cat "$dir/sshd.pid")/ns/mnt" >"$dir/mntns"
    echo "start-sshd: up on 127.0.0.1:$port ($dir)"
    exit 0
  fi
  sleep 0.1
done
echo "start-sshd: sshd did not answer on port $port; its log:" >&2
tail -n 20 "$dir/sshd.log" >&2 || true
exit 1
