#!/usr/bin/env bash
# The seed's two MNIST nets (examples/mnist-parallel) from the desktop app,
# driven as a user would under Xvfb: open the file, answer the trust prompt
# ("Trust and Open", Alt+T), Start all (F5), wait until both runs finished.
# Screenshots of the prompt and the board go to OUTDIR. Not in CTest: it
# needs python3-torch (apt install python3-torch), xdotool and openbox.
#   tests/programs/gui-mnist-parallel.sh BUILD OUTDIR
set -euo pipefail
build=$(cd "${1:?usage: gui-mnist-parallel.sh BUILD OUTDIR}" && pwd)
out=$(mkdir -p "${2:?usage: gui-mnist-parallel.sh BUILD OUTDIR}" && cd "$2" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
for tool in xvfb-run xdotool openbox xwd convert; do
    command -v $tool >/dev/null || { echo "gui-mnist-parallel: $tool is not installed" >&2; exit 77; }
done
python3 -c 'import torch' 2>/dev/null || { echo "gui-mnist-parallel: python3 has no torch (apt install python3-torch)" >&2; exit 77; }
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
export HOME=$home XDG_CONFIG_HOME=$home/config XDG_DATA_HOME=$home/data XDG_CACHE_HOME=$home/cache
export TRAINYARD_WORKER=$build/bin/trainyard-worker
# shellcheck disable=SC2016 # expanded by the inner shell, under xvfb-run
xvfb-run -a -s "-screen 0 1600x1000x24" bash -c '
    set -u
    out=$2
    openbox > /dev/null 2>&1 & sleep 1
    "$0/bin/trainyard" "$1/examples/mnist-parallel/mnist-parallel.json" > "$out/app.log" 2>&1 &
    app=$!
    shot() { xwd -root -silent | convert xwd:- "$out/$1"; }
    for i in $(seq 60); do xdotool search --name "Run this file" >/dev/null 2>&1 && break; sleep 0.5; done
    sleep 1; shot trust-prompt.png
    xdotool key alt+t; sleep 3
    xdotool search --name "mnist-parallel" windowactivate --sync >/dev/null 2>&1 || true
    xdotool key F5
    for i in $(seq 600); do
        n=$(grep -c "finished" "$XDG_DATA_HOME"/trainyard/mnist-parallel/*/status.json 2>/dev/null | grep -c ":1" || true)
        [ "$n" = 2 ] && break; sleep 1
    done
    sleep 2; shot program-runs.png
    echo "finished runs: $n"
    kill $app; wait $app || true
    [ "$n" = 2 ]
' "$build" "$src" "$out"
