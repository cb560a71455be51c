#!/usr/bin/env bash
# Runs shellcheck over every shell script in the repository (*.sh, the bash
# completions *.bash, and .ci/run):
# a finding of any severity fails. Without shellcheck the check is skipped
# (exit 77), except in CI (TRAINYARD_CI=1, set by .ci/run), where a skipped
# check would hide findings, so it fails instead.
set -uo pipefail
top=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top" || exit 1
if ! command -v shellcheck >/dev/null; then
  echo "check-shell: shellcheck not found (packaging/install-deps.sh installs it)"
  [[ ${TRAINYARD_CI:-} == 1 ]] && exit 1
  exit 77
fi
mapfile -t scripts < <(git ls-files '*.sh' '*.bash' .ci/run 2>/dev/null ||
  find . \( -name '*.sh' -o -name '*.bash' \) -not -path './build*')
present=()
for f in "${scripts[@]}"; do
  [[ -f $f ]] && present+=("$f")
done
shellcheck "${present[@]}"
