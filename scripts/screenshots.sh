#!/usr/bin/env bash
# Takes a screenshot of each tab of the real app under Xvfb, into docs/screenshots/.
#   scripts/screenshots.sh [build dir]     (needs xvfb: apt-get install xvfb)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build/release}
app=$build/app/gui/attnplan
out=$root/docs/screenshots
mkdir -p "$out"
export XDG_CONFIG_HOME=$(mktemp -d) # fresh settings: default window size and inputs
display=:97
Xvfb $display -screen 0 1600x1000x24 >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null; rm -rf "$XDG_CONFIG_HOME"' EXIT
sleep 1
names=(memory compute compare cost measure explain)
for i in "${!names[@]}"; do
    DISPLAY=$display QT_QPA_PLATFORM=xcb "$app" "$root/configs/llama-3.1-8b.json" --tab "$i" \
        --screenshot "$out/${names[$i]}.png" 2>/dev/null || true
done
ls -l "$out"
