#!/usr/bin/env bash
# The README's screenshot of a GPU pool lane: the real app under Xvfb on the
# fake NVML's four 80 GiB H100s, a "cuda:*" lane of fake-worker runs and a
# two-GPU program run, another process holding 14 GiB on GPU 3, Start all
# pressed (F5) and the window grabbed. Needs Xvfb, openbox, xdotool and
# ImageMagick's import; builds nothing:
#   cmake --build build --target trainyard trainyard-fake-worker trainyard-fake-nvml trainyard-fake-gpu-alloc
#   docs/screenshots/screenshot-gpu-pool.sh [BUILD [OUT.png]]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
out=${2:-$here/gpu-pool.png}
work=$(mktemp -d)
state=$work/nvml.txt
pids=()
cleanup() {
    # The app first, then what it started: its runs live in sessions of
    # their own, known by this script's state file in their environment.
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null || true; done
    for environ in /proc/[0-9]*/environ; do
        if grep -qzx "TRAINYARD_FAKE_NVML=$state" "$environ" 2>/dev/null; then
            pid=${environ#/proc/}
            kill "${pid%/environ}" 2>/dev/null || true
        fi
    done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

gib=1073741824
# gpu INDEX TOTAL_BYTES "NAME" UTIL TEMP POWER_MW
for i in 0 1 2 3; do
    echo "gpu $i $((80 * gib)) \"NVIDIA H100 80GB HBM3\" $((92 - 17 * i)) $((61 - 4 * i)) 350000" >>"$state"
done
export TRAINYARD_FAKE_NVML=$state
export LD_LIBRARY_PATH=$build/tests/fakenvml${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export TRAINYARD_WORKER=$build/bin/trainyard-fake-worker
export TRAINYARD_FAKE_GPU_BYTES=$((18 * gib)) # what each fake worker holds on its GPU
# A fresh profile: no recent files, no remembered settings, its own trust list.
export HOME=$work/home XDG_DATA_HOME=$work/home/data XDG_CONFIG_HOME=$work/home/config XDG_CACHE_HOME=$work/home/cache
mkdir -p "$HOME"

# Another process on GPU 3 ("someone else's": it makes the GPU busy).
"$build/bin/trainyard-fake-gpu-alloc" 3 $((14 * gib)) &
pids+=($!)

worker() { # NAME: a fake-worker run that trains for minutes, needing 20 GiB
    printf '{"name": "%s", "model": {"type": "fake", "steps": 100000, "step_ms": 40},
      "data": {"kind": "synthetic-kg"}, "train": {"seed": 1}, "resources": {"gpu_memory": "20GiB"}}' "$1"
}
cat >"$work/pool.json" <<JSON
{
  "name": "gpu-pool",
  "runs_root": "$work/runs",
  "lanes": [
    {"device": "cuda:*", "slots": 2, "runs": [
      $(worker transe-fb15k),
      {"name": "ddp-resnet", "resources": {"gpus": 2, "gpu_memory": "24GiB"}, "program": {"argv": ["sh", "-c",
        "exec '$build/bin/trainyard-fake-gpu-alloc' \"\$CUDA_VISIBLE_DEVICES\" $((22 * gib))"]}},
      $(worker transh-wn18rr), $(worker conve-yago), $(worker sacn-fb15k), $(worker transe-wn18)
    ]},
    {"device": "cuda:3", "runs": [$(worker rotate-fb15k)]}
  ]
}
JSON
"$build/bin/trainyard" trust "$work/pool.json" >/dev/null

export DISPLAY=:99
Xvfb :99 -screen 0 1600x1000x24 -nolisten tcp &
pids+=($!)
for _ in $(seq 50); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done
openbox &
pids+=($!)
"$build/bin/trainyard" "$work/pool.json" &
pids+=($!)
window=$(xdotool search --sync --onlyvisible --name 'gpu-pool' | head -1)
xdotool windowmove "$window" 0 0 windowsize "$window" 1600 1000 windowactivate --sync "$window"
sleep 2
xdotool key --window "$window" F5
sleep 2
xdotool key alt+y # "cuda:3 is busy with another process: start anyway?" (its run waits by its lane's "busy")
sleep 1
# The plots down to the window's foot: the board's cards are the subject.
xdotool mousemove 1300 506 sleep 0.3 mousedown 1 sleep 0.3 mousemove 1300 600 sleep 0.3 mousemove 1300 940 sleep 0.3 mouseup 1
sleep 6 # the runs start, the inventory polls once a second
import -window root "$work/shot.png"
# The board, without the palette (the fake worker has no catalogue to list).
convert "$work/shot.png" -crop 1060x740+200+78 +repage "$out"
xdotool key --window "$window" shift+F5 # Stop all, so no run outlives the app
sleep 3
echo "wrote $out"
