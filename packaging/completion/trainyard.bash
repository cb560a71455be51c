# bash completion for trainyard                            -*- shell-script -*-
# shellcheck shell=bash
# The commands and options are those of `trainyard --help`; ctest's
# shell_docs test keeps the two the same. Plain bash: works with or without
# the bash-completion package.

# Adds compgen's words (its arguments) to COMPREPLY, one a line.
_trainyard_add()
{
    local words
    mapfile -t words < <(compgen "$@")
    COMPREPLY+=("${words[@]}")
}

# Experiment files, and the folders on the way to them.
_trainyard_json()
{
    compopt -o filenames 2>/dev/null
    _trainyard_add -d -- "$1"
    _trainyard_add -f -X '!*.json' -- "$1"
}

_trainyard_devices()
{
    local n=0 i devices=cpu
    if command -v nvidia-smi >/dev/null 2>&1; then
        n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
    fi
    for ((i = 0; i < n; i++)); do
        devices+=" cuda:$i"
    done
    _trainyard_add -W "$devices" -- "$1"
}

_trainyard()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local common="-h --help -v --version"
    COMPREPLY=()

    if ((COMP_CWORD == 1)); then
        if [[ $cur == -* ]]; then
            _trainyard_add -W "$common" -- "$cur"
        else
            _trainyard_add -W "run check export probe-slots trust status stop pause resume schema" -- "$cur"
            _trainyard_json "$cur"
        fi
        return
    fi

    local opts="" valued="" positional=json
    case ${COMP_WORDS[1]} in
        run)
            opts="--demo --cpu-fallback --threads --retry-failed --stop-timeout --stall-timeout --leave-queued --trust --notify"
            valued="--threads --stop-timeout --stall-timeout"
            ;;
        check) opts="--cpu-fallback" ;;
        export)
            opts="--runs --summary --tensorboard"
            valued="--runs"
            if [[ $prev == --tensorboard ]]; then
                compopt -o filenames 2>/dev/null
                _trainyard_add -d -- "$cur"
                return
            fi
            ;;
        probe-slots)
            opts="--device --spec --levels --steps"
            valued="--levels --steps"
            positional=""
            case $prev in
                --device) _trainyard_devices "$cur"; return ;;
                --spec) _trainyard_json "$cur"; return ;;
            esac
            ;;
        trust) opts="--list --revoke" ;;
        status) opts="--json" ;;
        schema)
            opts="-o --output"
            positional=""
            case $prev in
                -o | --output) _trainyard_json "$cur"; return ;;
            esac
            ;;
        stop | pause | resume) ;;
        *) return ;; # FILE.json: the desktop app takes nothing more
    esac

    # An option's value: nothing to offer.
    if [[ " $valued " == *" $prev "* ]]; then
        return
    fi
    if [[ $cur == -* || -z $positional ]]; then
        _trainyard_add -W "$opts $common" -- "$cur"
    else
        _trainyard_json "$cur"
    fi
}

complete -F _trainyard trainyard
