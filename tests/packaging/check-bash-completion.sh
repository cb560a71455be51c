#!/usr/bin/env bash
# Sources the bash completions in a plain bash (no bash-completion package)
# and asks them what a user's Tab would get.
set -uo pipefail
top=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/experiments"
touch "$work/experiments/mnist.json" "$work/notes.txt" "$work/demo.json"
cd "$work" || exit 1

status=0
# expect SCRIPT FUNCTION "WANTED" WORD...: the completion of WORD... offers
# exactly WANTED (words separated by spaces, in any order).
expect() {
  local script=$1 function=$2 wanted=$3
  shift 3
  local got
  got=$(bash --norc --noprofile -c 'source "$1"; shift; f=$1; shift; COMP_WORDS=("$@")
        COMP_CWORD=$(($# - 1)); "$f"; printf "%s\n" "${COMPREPLY[@]}"' bash "$script" "$function" "$@" |
    sed '/^$/d' | sort | tr '\n' ' ')
  wanted=$(tr ' ' '\n' <<<"$wanted" | sed '/^$/d' | sort | tr '\n' ' ')
  if [[ $got != "$wanted" ]]; then
    echo "check-bash-completion: '$*' offers [$got], expected [$wanted]"
    status=1
  fi
}
# contains SCRIPT FUNCTION WORD WORD...: the completion of WORD... offers WORD.
contains() {
  local script=$1 function=$2 word=$3
  shift 3
  local got
  got=$(bash --norc --noprofile -c 'source "$1"; shift; f=$1; shift; COMP_WORDS=("$@")
        COMP_CWORD=$(($# - 1)); "$f"; printf "%s\n" "${COMPREPLY[@]}"' bash "$script" "$function" "$@")
  if ! grep -qxF -- "$word" <<<"$got"; then
    echo "check-bash-completion: '$*' does not offer $word"
    status=1
  fi
}

app=$top/packaging/completion/trainyard.bash
worker=$top/packaging/completion/trainyard-worker.bash
expect "$app" _trainyard "check" trainyard ch
contains "$app" _trainyard --cpu-fallback trainyard run --
expect "$app" _trainyard "--retry-failed" trainyard run --re
# Experiment files and folders, never other files.
expect "$app" _trainyard "experiments demo.json" trainyard run ""
expect "$app" _trainyard "experiments/mnist.json" trainyard check experiments/
expect "$app" _trainyard "demo.json" trainyard d
# An option's value is the user's.
expect "$app" _trainyard "" trainyard run --threads ""
contains "$app" _trainyard cpu trainyard probe-slots --device ""
expect "$app" _trainyard "--summary" trainyard export --su
expect "$worker" _trainyard_worker "--list-models" trainyard-worker --li
expect "$worker" _trainyard_worker "experiments demo.json" trainyard-worker --spec ""
expect "$worker" _trainyard_worker "tcp:" trainyard-worker --connect t
if ((status == 0)); then
  echo "ok: the bash completions of trainyard and trainyard-worker"
fi
exit $status
