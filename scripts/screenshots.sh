#!/usr/bin/env bash
# Takes a screenshot of every tab of the real app under Xvfb, in the light and the dark palette,
# at 1600x1000 and at 1024x700, into docs/screenshots/PALETTE-SIZE/TAB.png; README shows the
# light 1600x1000 set. Whatever the app prints on stderr is kept in docs/screenshots/stderr.log
# and counted: a clean session prints nothing.
#   scripts/screenshots.sh [build dir]     (needs xvfb: apt-get install xvfb)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build/release}
app=$build/app/gui/attnplan
out=$root/docs/screenshots
mkdir -p "$out"
log=$out/stderr.log
: >"$log"
config=$(mktemp -d)
xvfb=
trap 'kill $xvfb 2>/dev/null; rm -rf "$config"' EXIT
names=(memory plans compute compare cost measure explain benchmark)
startlog=
if [ -f "$root/../shared/engine-logs/cases.json" ]; then
    startlog=$config/startup.log
    python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))[0]; open(sys.argv[2], "w").write(c["log_excerpt"])' \
        "$root/../shared/engine-logs/cases.json" "$startlog"
fi
# One shot of the app as a fresh start sees it (the default scenario, this palette), on the
# current screen: shot FILE [app options].
shot() {
    local file=$1
    shift
    rm -rf "$config/attnplan"
    mkdir -p "$config/attnplan"
    [ "$palette" = dark ] && printf '[window]\ndark=true\n' >"$config/attnplan/attnplan.conf"
    XDG_CONFIG_HOME=$config XDG_RUNTIME_DIR=$config DISPLAY=$display QT_QPA_PLATFORM=xcb \
        "$app" "${model:-llama-3.1-8b}" "$@" -geometry "$size+0+0" --screenshot "$file" 2>>"$log" || true
}
for size in 1600x1000 1024x700; do
    # A screen of that size, as a user with that screen has.
    [ -n "$xvfb" ] && kill $xvfb 2>/dev/null && sleep 0.5
    display=${ATTNPLAN_SCREENSHOT_DISPLAY:-:97} # another where :97 is taken
    Xvfb $display -screen 0 "${size}x24" >/dev/null 2>&1 &
    xvfb=$!
    sleep 1
    for palette in light dark; do
        dir=$out/$palette-$size
        mkdir -p "$dir"
        for i in "${!names[@]}"; do
            shot "$dir/${names[$i]}.png" --tab "$i"
        done
        # The Benchmark tab over GPUStack's four published vLLM points (Qwen3-8B on an H100).
        model=qwen3-8b shot "$dir/benchmark-open.png" --benchmark \
            "$root/tests/data/benchmarks/gpustack-vllm0.11.0-qwen3-8b-h100-sharegpt-c1-c8.txt"
        # The start-up log pane over a real log (the first of ../shared/engine-logs, where the
        # checkout has it beside it).
        if [ -n "$startlog" ]; then
            shot "$dir/log-pane.png" --log "$startlog"
        fi
    done
done
# The exported HTML report as a browser draws it (headless Chromium, where installed: apt-get
# install chromium), light and dark, at both sizes, the whole page.
if command -v chromium >/dev/null; then
    html=$(mktemp --suffix=.html)
    printf '{"attnplan_scenario": 1, "model": "llama-3.1-8b", "deployment": {"gpu": "H100 SXM", "context": 32768}, "plan": {"concurrent": 64}}' >"$config/report.json"
    "$build/app/attnplan-cli" report "$config/report.json" --html >"$html"
    for size in 1600x1000 1024x700; do
        for palette in light dark; do
            flags=()
            [ "$palette" = dark ] && flags=(--force-dark-mode --blink-settings=preferredColorScheme=0)
            chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
                --window-size="${size%x*},4200" "${flags[@]}" \
                --screenshot="$out/$palette-$size/report-html.png" "file://$html" >/dev/null 2>&1 || true
        done
    done
    rm -f "$html"
fi
ls -R "$out" | head -40
echo "stderr: $(grep -c . "$log" || true) line(s) in $log"
