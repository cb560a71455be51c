#!/usr/bin/env bash
# A private sshd on 127.0.0.1 for the ssh-reach tests, next to the test
# cluster of start-cluster.sh:
#   tests/slurm/start-sshd.sh DIR SLURM_CONF    start it
#   kill "$(cat DIR/sshd.pid)"                  stop it
# Everything is in DIR: a host key, a client key made here (root may log in
# with it only), its authorized_keys, a known_hosts holding the host key (as
# a user who accepted it once would have), an empty known_hosts for the
# "unknown host" case, and DIR/ssh_config for `ssh -F` (port, key, known
# hosts). Commands run over it get SLURM_CONF (sshd's SetEnv), so the
# remote side's Slurm commands reach the test cluster.
# Exit 77 with the reason on stderr where it cannot run (not root, no sshd).
set -euo pipefail
dir=${1:?usage: start-sshd.sh DIR SLURM_CONF}
slurm_conf=${2:?usage: start-sshd.sh DIR SLURM_CONF}
skip() {
  echo "start-sshd: skipped: $*" >&2
  exit 77
}
[[ $(id -u) -eq 0 ]] || skip "needs root"
[[ -x /usr/sbin/sshd ]] || skip "/usr/sbin/sshd not found (apt-get install openssh-server)"
command -v ssh-keygen >/dev/null || skip "ssh-keygen not found"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
chmod 0700 "$dir"
ssh-keygen -q -t ed25519 -N '' -f "$dir/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$dir/client_key"
cp "$dir/client_key.pub" "$dir/authorized_keys"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$dir/host_key.pub")" >"$dir/known_hosts"
: >"$dir/known_hosts.empty"
cat >"$dir/sshd_config" <<CONF
ListenAddress 127.0.0.1
Port $port
HostKey $dir/host_key
AuthorizedKeysFile $dir/authorized_keys
PidFile $dir/sshd.pid
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
SetEnv SLURM_CONF=$slurm_conf
CONF
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
/usr/sbin/sshd -f "$dir/sshd_config" -E "$dir/sshd.log"
for _ in $(seq 50); do
  if ssh -F "$dir/ssh_config" -o BatchMode=yes 127.0.0.1 true 2>/dev/null; then
    echo "start-sshd: up on 127.0.0.1:$port ($dir)"
    exit 0
  fi
  sleep 0.1
done
echo "start-sshd: sshd did not answer on port $port; its log:" >&2
tail -n 20 "$dir/sshd.log" >&2 || true
exit 1
