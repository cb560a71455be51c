# bash completion for trainyard-worker                     -*- shell-script -*-
# shellcheck shell=bash
# The options are those of `trainyard-worker --help`; ctest's shell_docs
# test keeps the two the same. Plain bash: works with or without the
# bash-completion package.

# Adds compgen's words (its arguments) to COMPREPLY, one a line.
_trainyard_worker_add()
{
    local words
    mapfile -t words < <(compgen "$@")
    COMPREPLY+=("${words[@]}")
}

_trainyard_worker()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    COMPREPLY=()
    case $prev in
        --spec)
            compopt -o filenames 2>/dev/null
            _trainyard_worker_add -d -- "$cur"
            _trainyard_worker_add -f -X '!*.json' -- "$cur"
            ;;
        --run-dir)
            compopt -o filenames 2>/dev/null
            _trainyard_worker_add -d -- "$cur"
            ;;
        --connect)
            compopt -o nospace 2>/dev/null
            _trainyard_worker_add -W "unix: tcp:" -- "$cur"
            ;;
        --device)
            local n=0 i devices=cpu
            if command -v nvidia-smi >/dev/null 2>&1; then
                n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
            fi
            for ((i = 0; i < n; i++)); do
                devices+=" cuda:$i"
            done
            _trainyard_worker_add -W "$devices" -- "$cur"
            ;;
        --token | --threads) ;; # a value of the user's
        *)
            _trainyard_worker_add -W "--spec --run-dir --connect --token --device --threads --resume --cpu-fallback
                --check --list-models --version --help -h" -- "$cur"
            ;;
    esac
}

complete -F _trainyard_worker trainyard-worker
