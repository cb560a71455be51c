#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (in build-fuzz/) and runs each for
# the given number of seconds (default 60) over a scratch copy of its seed
# corpus. Prints executions, coverage and new inputs per target; exits
# non-zero on the first finding, whose reproducer is kept in build-fuzz/findings.
#   tests/fuzz/run-fuzzers.sh [SECONDS] [TARGET...]
set -euo pipefail
seconds=${1:-60}
shift || true
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${FUZZ_BUILD:-$top/build-fuzz}

if ! command -v clang++ >/dev/null; then
  echo "run-fuzzers: clang++ is missing (packaging/install-deps.sh installs it)" >&2
  exit 1
fi

if [[ ! -f $build/build.ninja ]]; then
  cmake -S "$top" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER=clang++ -DTRAINYARD_FUZZ=ON >/dev/null
fi
cmake --build "$build" --target fuzz_all -j "$(nproc)" >/dev/null

targets=("$@")
if ((${#targets[@]} == 0)); then
  for bin in "$build"/bin/fuzz_*; do
    [[ -x $bin ]] && targets+=("$(basename "$bin" | sed 's/^fuzz_//')")
  done
fi

# An undefined-behaviour report is a finding too, not a warning to scroll past.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export QT_QPA_PLATFORM=offscreen

mkdir -p "$build/findings"
status=0
for name in "${targets[@]}"; do
  seeds=$top/tests/fuzz/corpus/$name
  work=$(mktemp -d)
  cp -r "$seeds"/. "$work"/ 2>/dev/null || true
  dict=()
  [[ -f $top/tests/fuzz/$name.dict ]] && dict=(-dict="$top/tests/fuzz/$name.dict")
  log=$build/findings/$name.log
  if "$build/bin/fuzz_$name" "$work" "${dict[@]}" -max_total_time="$seconds" -max_len=65536 \
       -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$build/findings/$name-" >"$log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | grep -o '[0-9]*' || echo "?")
    ft=$(grep -Eo 'ft: [0-9]+' "$log" | tail -1 | grep -o '[0-9]*' || echo "?")
    echo "fuzz $name: ${seconds}s, $runs executions, coverage $cov edges, $ft features, no finding"
  else
    echo "fuzz $name: FINDING — see $log and $build/findings/$name-*" >&2
    tail -30 "$log" >&2
    status=1
  fi
  rm -rf "$work"
done
exit $status
