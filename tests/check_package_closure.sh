#!/usr/bin/env bash
# Proves scripts/packages-*.txt complete: every CMake package the configure step found and every
# shared library the built binaries load must come from a Debian package inside the dependency
# closure of the listed packages, as `apt-get install --no-install-recommends` installs it.
# A clean clone on a machine that once had a package installed by hand proves nothing; this does.
#
# usage: check_package_closure.sh SOURCE_DIR BUILD_DIR [PACKAGE_LIST...]
#   PACKAGE_LIST defaults to SOURCE_DIR/scripts/packages-build.txt and packages-test.txt.
# Exit: 0 complete, 1 a package is missing (named on stderr), 77 skipped (no dpkg/apt-cache).
set -euo pipefail

src=$1
build=$2
shift 2
lists=("$@")
if ((${#lists[@]} == 0)); then
    lists=("$src/scripts/packages-build.txt" "$src/scripts/packages-test.txt")
fi

for tool in dpkg apt-cache ldd; do
    if ! command -v "$tool" >/dev/null; then
        echo "SKIP: $tool not found; this check needs a Debian-based system" >&2
        exit 77
    fi
done
cache="$build/CMakeCache.txt"
[ -f "$cache" ] || { echo "FAIL: $cache not found (configure first)" >&2; exit 1; }

mapfile -t listed < <(cat "${lists[@]}" | grep -v '^[[:space:]]*\(#\|$\)')
echo "listed: ${listed[*]}"

# The closure: what the listed packages pull in through Depends and PreDepends alone. apt-cache
# prints a virtual package as <name> and its providers on the following lines; both are kept.
# Essential packages are on every Debian system whatever the list says.
closure=$(mktemp)
trap 'rm -f "$closure" "$closure".*' EXIT
apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances "${listed[@]}" 2>/dev/null |
    sed -n 's/^\([^ <][^ ]*\)$/\1/p; s/^ *\(Pre\)\?Depends: \([^<].*\)$/\2/p' |
    sed 's/:any$//; s/:amd64$//' >"$closure.raw"
dpkg-query -W -f='${Package} ${Essential}\n' | awk '$2 == "yes" { print $1 }' >>"$closure.raw"
printf '%s\n' "${listed[@]}" >>"$closure.raw"
sort -u "$closure.raw" >"$closure"
echo "closure: $(wc -l <"$closure") packages"

# owner PATH...: the Debian package that installed each file, trying the path as given, then
# with /usr merged or unmerged, then the path behind any symbolic links (alternatives).
owner() {
    local f candidates c pkg
    for f in "$@"; do
        candidates=("$f")
        case "$f" in
        /usr/*) candidates+=("${f#/usr}") ;;
        *) candidates+=("/usr$f") ;;
        esac
        local real
        real=$(readlink -f "$f" || true)
        if [ -n "$real" ] && [ "$real" != "$f" ]; then
            candidates+=("$real")
            case "$real" in
            /usr/*) candidates+=("${real#/usr}") ;;
            *) candidates+=("/usr$real") ;;
            esac
        fi
        pkg=""
        for c in "${candidates[@]}"; do
            pkg=$(dpkg -S "$c" 2>/dev/null | head -n1 | sed 's/: .*//; s/:amd64$//; s/, .*//') || true
            [ -n "$pkg" ] && break
        done
        printf '%s\t%s\n' "${pkg:-?}" "$f"
    done
}

# What the build used: each CMake package's config file (the *_DIR cache entries that name a
# folder holding a *Config.cmake or *-config.cmake), then every shared library that any built
# executable loads.
used=$(mktemp)
trap 'rm -f "$closure" "$closure".* "$used"' EXIT
while IFS=' ' read -r name dir; do
    [ -d "$dir" ] || continue
    case "$dir" in "$build"*) continue ;; esac
    lower=$(echo "$name" | tr 'A-Z_' 'a-z-')
    for cfg in "$dir/${name}Config.cmake" "$dir/${lower}-config.cmake" ""; do
        [ -z "$cfg" ] || [ -f "$cfg" ] && break
    done
    [ -n "$cfg" ] && owner "$cfg" >>"$used"
done < <(sed -n 's/^\([A-Za-z0-9_]*\)_DIR:PATH=\(.*\)$/\1 \2/p' "$cache")

mapfile -t binaries < <(find "$build" -type f -perm -u+x ! -name '*.so*' ! -name '*.sh' \
    ! -path '*/CMakeFiles/*' ! -path '*/_CPack_Packages/*' -exec sh -c \
    'head -c4 "$1" | grep -q "ELF" && echo "$1"' _ {} \;)
((${#binaries[@]})) || { echo "FAIL: no built executables under $build" >&2; exit 1; }
echo "binaries: ${#binaries[@]}"
mapfile -t libs < <(for b in "${binaries[@]}"; do ldd "$b"; done |
    sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p' | sort -u)
echo "shared libraries: ${#libs[@]}"
owner "${libs[@]}" >>"$used"

status=0
while IFS=$'\t' read -r pkg file; do
    if [ "$pkg" = "?" ]; then
        echo "FAIL: $file belongs to no Debian package" >&2
        status=1
    elif ! grep -qx "$pkg" "$closure"; then
        echo "FAIL: $file comes from package $pkg, which the package lists do not install" \
            "(add $pkg to scripts/packages-build.txt)" >&2
        status=1
    fi
done < <(sort -u "$used")
[ $status -eq 0 ] && echo "PASS: $(sort -u "$used" | cut -f1 | sort -u | wc -l) packages used, all in the closure"
exit $status
