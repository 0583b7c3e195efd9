#!/usr/bin/env bash
# attnplan's two commands on a fresh Debian 12 machine:
#   scripts/setup.sh run    install what is missing, build, launch the GUI with a bundled model
#                           (without a display: print that model's report with the CLI)
#   scripts/setup.sh test   install what is missing, build, run every test (and the model and
#                           CLI suites again under ASan + UBSan)
#   scripts/setup.sh package  install what is missing, build, and write
#                           build/release/attnplan_<version>_amd64.deb
set -euo pipefail

mode=${1:-run}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

# Debian 12 packages, one list per purpose (BRIEF.md, "Dependencies"). The suite's closure
# test reads the same files, so a package the build needs cannot be left off unnoticed.
read_list() { grep -v '^[[:space:]]*\(#\|$\)' "$1"; }
mapfile -t packages < <(read_list scripts/packages-build.txt)
if [ "$mode" != run ]; then
    mapfile -t -O "${#packages[@]}" packages < <(read_list scripts/packages-test.txt)
fi

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "attnplan: installing ${missing[*]}"
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

jobs=$(nproc 2>/dev/null || echo 2)
cmake --preset release >/dev/null
cmake --build --preset release -- -j"$jobs"

case "$mode" in
run)
    if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
        exec build/release/app/gui/attnplan configs/llama-3.1-8b.json
    fi
    echo "attnplan: no display found; the bundled model's report from the CLI instead:"
    exec build/release/app/attnplan-cli inspect configs/llama-3.1-8b.json --context 32000
    ;;
test)
    ctest --preset release --timeout 600
    # The model and CLI suites again under AddressSanitizer + UndefinedBehaviorSanitizer.
    cmake --preset asan >/dev/null
    cmake --build --preset asan -- -j"$jobs"
    ctest --preset asan --timeout 900
    ;;
package)
    (cd build/release && cpack -G DEB >/dev/null)
    ls build/release/attnplan_*_amd64.deb
    ;;
*)
    echo "usage: scripts/setup.sh run|test|package" >&2
    exit 2
    ;;
esac
