#!/usr/bin/env bash
# Runs every benchmark script bench/*/bench-*.sh against the build folder
# given as $1 and prints their ratios. A failing benchmark does not stop the
# others; the exit status says whether any failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build}" && pwd)
status=0
for script in "$here"/*/bench-*.sh; do
  [[ -e $script ]] || continue
  echo "=== $(basename "$(dirname "$script")")/$(basename "$script")"
  if ! bash "$script" "$build"; then
    echo "!!! $(basename "$script") failed"
    status=1
  fi
done
exit $status
