#!/usr/bin/env bash
# The files under examples/ as a clone ships them, from another current
# directory (their paths are relative to each file):
#   examples.sh check TRAINYARD SOURCE_DIR   every examples/**/*.json checks clean
#   examples.sh run TRAINYARD SOURCE_DIR     the cheap ones train to the end
# TRAINYARD_WORKER names the worker (the catalogue, the data checks, the
# runs); exit 77 (skipped) without one.
set -u
mode=$1 trainyard=$2 src=$3
if [ -z "${TRAINYARD_WORKER:-}" ] || [ ! -x "$TRAINYARD_WORKER" ]; then
    echo "skipped: no trainyard-worker in this build (TRAINYARD_WORKER)"
    exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# Its own trust list, catalogue cache and runs; a current directory far from the files.
export XDG_CONFIG_HOME=$tmp/config XDG_CACHE_HOME=$tmp/cache XDG_DATA_HOME=$tmp/data
mkdir -p "$tmp/cwd" && cd "$tmp/cwd" || exit 1
failed=0

case $mode in
check)
    # program.requires is asked of python3 only for a trusted file; a
    # python3 without PyTorch would fail the Python examples' requires, so
    # there it is left unchecked and said so.
    torch=yes
    python3 -c 'import torch' 2>/dev/null || torch=no
    while IFS= read -r -d '' file; do
        if [ "$torch" = yes ] || ! grep -q '"requires"' "$file"; then
            "$trainyard" trust "$file" > /dev/null || { echo "FAIL: trainyard trust $file"; failed=1; continue; }
        fi
        out=$("$trainyard" check "$file" 2>&1)
        rc=$?
        # A warning is a line naming the file that is not its verdict.
        warnings=$(printf '%s\n' "$out" | grep -F "$file: " | grep -v -F "$file: no problem found")
        if [ "$torch" = no ]; then
            unchecked=$(printf '%s\n' "$warnings" | grep -c 'program.requires was not checked')
            [ "$unchecked" -gt 0 ] && echo "note: $file: python3 has no torch here: program.requires not checked"
            warnings=$(printf '%s\n' "$warnings" | grep -v 'program.requires was not checked')
        fi
        if [ $rc -ne 0 ] || [ -n "$warnings" ]; then
            echo "FAIL: trainyard check $file (exit $rc):"
            printf '%s\n' "$out"
            failed=1
        else
            echo "ok: $file"
        fi
    done < <(find "$src/examples" -name '*.json' -print0 | sort -z)
    ;;
run)
    # sweep-kg: 8 trials on its shipped data, a few seconds. The Python
    # examples (federated, mnist-parallel) need PyTorch in python3 and take
    # minutes: checked only.
    file=$src/examples/sweep-kg/sweep-kg.json
    out=$("$trainyard" run "$file" 2>&1)
    rc=$?
    if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q '^8 of 8 finished$'; then
        echo "FAIL: trainyard run $file (exit $rc):"
        printf '%s\n' "$out"
        failed=1
    else
        echo "ok: $file: 8 of 8 finished"
    fi
    ;;
*)
    echo "usage: examples.sh check|run TRAINYARD SOURCE_DIR" >&2
    exit 2
    ;;
esac
exit $failed
