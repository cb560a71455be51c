#!/usr/bin/env bash
# The docs' screenshot of the window at twice the scale on a 1920x1080
# screen (a laptop's HiDPI setting): the real app on the built-in demo under
# Xvfb with openbox, QT_SCALE_FACTOR=2, Start all pressed (F5) as a user
# would, and the whole screen grabbed a while later, so that anything the
# window puts off screen is missing from the picture. Prints the window's
# geometry. Needs Xvfb, openbox, xdotool and ImageMagick's import:
#   docs/screenshots/screenshot-scale2.sh [BUILD [OUT.png [SECONDS]]]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
out=$(realpath -m "${2:-$here/scale-2.png}")
wait_s=${3:-20}
work=$(mktemp -d)
pids=()
cleanup() {
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

display=:$((90 + RANDOM % 9))
Xvfb "$display" -screen 0 1920x1080x24 -nolisten tcp >/dev/null 2>&1 &
pids+=($!)
export DISPLAY=$display
for _ in $(seq 50); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done
openbox >/dev/null 2>&1 &
pids+=($!)

# A fresh profile: no remembered window size, no recent files.
export HOME=$work/home XDG_CONFIG_HOME=$work/home/config XDG_DATA_HOME=$work/home/data \
    XDG_CACHE_HOME=$work/home/cache XDG_RUNTIME_DIR=$work/runtime
mkdir -p "$HOME" && mkdir -m 0700 "$XDG_RUNTIME_DIR"
cd "$work"
QT_SCALE_FACTOR=2 "$build/bin/trainyard" >"$work/app.log" 2>&1 &
pids+=($!)
window=
for _ in $(seq 100); do
    window=$(xdotool search --onlyvisible --name 'Trainyard' 2>/dev/null | head -1) && [ -n "$window" ] && break
    sleep 0.2
done
[ -n "$window" ] || { echo "no Trainyard window appeared" >&2; cat "$work/app.log" >&2; exit 1; }
sleep 1
xdotool windowactivate --sync "$window" key F5
sleep "$wait_s"
xdotool getwindowgeometry "$window"
import -window root "$out"
echo "wrote $out"
