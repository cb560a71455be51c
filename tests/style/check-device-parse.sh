#!/usr/bin/env bash
# A device is text only where it enters: the experiment file, the board's
# edits, the run folders' and the state file's JSON, a slot probe's command
# line. Everywhere else lanes, runs and launch specs hold a parsed Device
# (core/orchestration/devices/device.h), so a new Device::parse elsewhere
# is a string that should have been a Device. Exit 0 clean, 1 with the
# call sites that are not in the list below.
set -uo pipefail
top=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top" || exit 1
allowed=(
  core/orchestration/devices/device.cpp         # the parser itself
  core/orchestration/experiment/experimentlanes.cpp # the experiment file's lanes
  core/orchestration/board/board.cpp            # a lane added or edited on the board
  core/orchestration/runstore/runstore.cpp      # status.json
  core/orchestration/runstore/liveworkerfile.cpp # the state file of live workers
  core/orchestration/slots/slotprobe.cpp        # the device a probe is asked for
  core/orchestration/document/boardcommands.cpp # an edit checked before the board takes it
)
pattern=$(printf '%s\n' "${allowed[@]}" | sed 's/[.]/\\./g' | paste -sd'|')
found=$(grep -rn --include='*.cpp' --include='*.h' 'Device::parse' core ui app | grep -Ev "^(${pattern}):" || true)
if [[ -n $found ]]; then
  echo "check-device-parse: Device::parse outside the places where device text enters:"
  echo "$found"
  echo "hold a Device (lanes, runs, launch specs) instead of parsing a string again"
  exit 1
fi
count=$(grep -rn --include='*.cpp' --include='*.h' 'Device::parse' core ui app | grep -vc '^core/orchestration/devices/device.cpp:')
echo "check-device-parse: ${count} call sites, all where device text enters"
