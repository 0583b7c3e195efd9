#!/usr/bin/env bash
# The .deb as a user gets it: CPack builds it from this build tree into a scratch folder, its
# control data must name the Qt libraries it needs, its contents must hold both binaries, the
# desktop entry and the icon, and the CLI unpacked from it (dpkg -x, no installation) must run
# and read a bundled model with no source tree around it.
# usage: check_package.sh BUILD_DIR VERSION        Exit: 0 pass, 1 fail, 77 no dpkg tools.
set -euo pipefail
build=$1
version=$2
for tool in cpack dpkg-deb dpkg-shlibdeps file; do
    command -v "$tool" >/dev/null || { echo "SKIP: $tool not found" >&2; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

(cd "$build" && cpack -G DEB -B "$work/out" >"$work/cpack.log" 2>&1) ||
    { cat "$work/cpack.log" >&2; fail "cpack did not build the package"; }
deb="$work/out/attnplan_${version}_amd64.deb"
[ -f "$deb" ] || fail "no $deb (cpack wrote: $(ls "$work/out"))"

depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for lib in libqt6charts6 libqt6widgets6 libqt6core6 qt6-qpa-plugins; do
    grep -q "\b$lib\b" <<<"$depends" || fail "Depends lacks $lib"
done
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "Version is not $version"
[ "$(dpkg-deb -f "$deb" Section)" = "science" ] || fail "Section is not science"

contents=$(dpkg-deb -c "$deb")
for f in ./usr/bin/attnplan ./usr/bin/attnplan-cli ./usr/share/applications/attnplan.desktop \
    ./usr/share/icons/hicolor/scalable/apps/attnplan.svg ./usr/share/man/man1/attnplan-cli.1 \
    ./usr/share/doc/attnplan/README.md ./usr/share/doc/attnplan/LICENSE; do
    grep -q " $f\$" <<<"$contents" || fail "package lacks $f"
done

root="$work/root"
dpkg -x "$deb" "$root"
grep -q '^Categories=Development;Science;$' "$root/usr/share/applications/attnplan.desktop" ||
    fail "desktop entry categories"
cli="$root/usr/bin/attnplan-cli"
cd "$work" # nothing of the source tree in reach
[ "$("$cli" --version)" = "attnplan-cli $version" ] || fail "attnplan-cli --version"
out=$("$cli" inspect llama-3.1-8b --json)
grep -q '"parameters": 8030261248,' <<<"$out" || fail "installed inspect llama-3.1-8b: $out"
[ "$("$cli" models --json | grep -c '"repo_id"')" -ge 40 ] || fail "installed models lists < 40"
gui=$(QT_QPA_PLATFORM=offscreen "$root/usr/bin/attnplan" --version 2>/dev/null)
[ "$gui" = "attnplan $version" ] || fail "attnplan --version said: $gui"
echo "PASS: $(basename "$deb") installs and runs from a scratch root"
