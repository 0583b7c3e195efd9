#!/usr/bin/env bash
# Start-up time of the real app: `attnplan --startup-time` (main to a shown, populated window)
# under Xvfb with fresh settings each start. Given several builds, they run side by side in one
# run: each round starts every build once per run, alternating, so a busy machine slows them all
# alike. Prints each round's median per build and the ratio to the first build.
#   scripts/bench-startup.sh [--runs N] [--rounds R] [build dir ...]
# e.g. against the build the start-up target names, built in a worktree:
#   scripts/bench-startup.sh build/release /tmp/wt/build/release
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=9
rounds=1
builds=()
while (($#)); do
    case $1 in
    --runs) runs=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) builds+=("$1"); shift ;;
    esac
done
((${#builds[@]})) || builds=("$root/build/release")
for b in "${builds[@]}"; do
    [[ -x $b/app/gui/attnplan ]] || { echo "no app at $b/app/gui/attnplan" >&2; exit 2; }
done
display=:96
Xvfb $display -screen 0 1600x1000x24 >/dev/null 2>&1 &
xvfb=$!
config=$(mktemp -d)
trap 'kill $xvfb 2>/dev/null; rm -rf "$config"' EXIT
sleep 1
median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }
for ((r = 1; r <= rounds; r++)); do
    declare -A times=()
    for ((i = 0; i < runs; i++)); do
        for b in "${builds[@]}"; do
            rm -rf "${config:?}"/*
            t=$(XDG_CONFIG_HOME=$config XDG_RUNTIME_DIR=$config DISPLAY=$display \
                "$b/app/gui/attnplan" --startup-time 2>/dev/null | grep -o '[0-9]\+ ms' | cut -d' ' -f1)
            times[$b]+="$t "
        done
    done
    first=""
    for b in "${builds[@]}"; do
        # shellcheck disable=SC2086
        m=$(median ${times[$b]})
        [[ -n $first ]] || first=$m
        echo "round $r: $b: ${times[$b]}ms, median $m ms ($(echo "scale=2; $m / $first" | bc)x the first)"
    done
    unset times
done
