#!/usr/bin/env bash
# The README's screenshot of lanes on a host over ssh: a private sshd in a
# mount namespace of its own (tests/slurm/start-sshd.sh --private-root) as
# the host "lab", a fake nvidia-smi there listing four H100s whose figures
# move with the clock (one busy with another user's process), the demo's
# three knowledge-graph lanes on its GPUs 0-2 (they train for seconds each,
# so they still train when the picture is taken), the real worker
# as the host's worker; the app under Xvfb grabs the board while they train.
#   tests/remote/screenshot-remote.sh BUILD OUTDIR [WORKER]     (as root)
set -euo pipefail
build=$(cd "${1:?usage: screenshot-remote.sh BUILD OUTDIR [WORKER]}" && pwd)
out=$(mkdir -p "${2:?usage: screenshot-remote.sh BUILD OUTDIR [WORKER]}" && cd "$2" && pwd)
worker=${3:-$build/bin/trainyard-worker}
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
chmod 0700 "$work"
export XDG_RUNTIME_DIR=$work/runtime
mkdir -m 0700 "$XDG_RUNTIME_DIR"
cleanup() {
  ssh -F "$work/sshd/ssh_config" -o "ControlPath=$XDG_RUNTIME_DIR/trainyard-ssh-%C" -O exit 127.0.0.1 2>/dev/null || true
  bash "$source_dir/tests/slurm/stop-sshd.sh" "$work/sshd" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/bin"
cat >"$work/bin/nvidia-smi" <<'SMI'
#!/bin/sh
# A fake nvidia-smi for the screenshot: four H100s, figures moving with the clock.
t=$(date +%s)
case "$*" in
*--query-gpu=*)
  for i in 0 1 2 3; do
    u=$(((t * (i + 3) + i * 17) % 40 + 55 - i * 15))
    [ "$u" -lt 0 ] && u=0
    echo "$i, NVIDIA H100 80GB HBM3, $u, $((18000 + i * 9000 + (t % 7) * 300)), 81559, $((48 + u / 4)), GPU-$i"
  done
  ;;
*--query-compute-apps=*) echo "GPU-3, 31337, 40960, /usr/bin/python3" ;;
*) exit 2 ;;
esac
SMI
chmod 0755 "$work/bin/nvidia-smi"
bash "$source_dir/tests/slurm/start-sshd.sh" "$work/sshd" - --private-root "$work/host-runs" 512m --path "$work/bin"
python3 - "$source_dir/resources/demo.json" "$work/remote.json" "$work/runs" "$worker" "$work/sshd/ssh_config" \
  "$work/host-runs" <<'PY'
import json, sys
demo, out, runs_root, worker, ssh_config, host_root = sys.argv[1:7]
e = json.load(open(demo))
e["name"] = "demo-remote"
e["runs_root"] = runs_root
e["hosts"] = [{"name": "lab", "host": "127.0.0.1", "ssh_config": ssh_config,
               "runs_root": host_root, "worker": worker}]
kg = {"transe", "transh", "sacn"}
lanes = [l for l in e["lanes"] if all(r["model"]["type"] in kg for r in l["runs"])]
for i, lane in enumerate(lanes):
    lane["device"] = f"ssh:lab/cuda:{i}"
lanes.append({"device": "ssh:lab/cuda:3", "slots": 1, "runs": []})
e["lanes"] = lanes
json.dump(e, open(out, "w"), indent=2)
PY
# A fresh profile: no recent files, no remembered plot settings.
export HOME=$work/home XDG_DATA_HOME=$work/home/data XDG_CONFIG_HOME=$work/home/config XDG_CACHE_HOME=$work/home/cache
export TRAINYARD_WORKER=$worker
xvfb-run -a -s "-screen 0 1600x1000x24" "$build/bin/trainyard-screenshots" --remote "$work/remote.json" "$out"
