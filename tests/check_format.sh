#!/usr/bin/env bash
# The committed .clang-format, enforced: fails naming each C++ file that
# `clang-format --dry-run --Werror` rejects. Fix with: clang-format -i FILE
# usage: check_format.sh SOURCE_DIR        Exit: 0 clean, 1 a file is off, 77 no clang-format.
set -euo pipefail
src=$1
if ! command -v clang-format >/dev/null; then
    echo "SKIP: clang-format not found (Debian: apt-get install clang-format)" >&2
    exit 77
fi
mapfile -t files < <(find "$src/app" "$src/model" "$src/tests" "$src/tools" -path "$src/tests/data" -prune -o \
    -type f \( -name '*.cpp' -o -name '*.h' -o -name '*.cpp.in' \) -print | sort)
((${#files[@]})) || { echo "FAIL: no sources found under $src" >&2; exit 1; }
bad=0
for f in "${files[@]}"; do
    if ! clang-format --style=file:"$src/.clang-format" --dry-run --Werror "$f" >/dev/null 2>&1; then
        echo "FAIL: ${f#"$src"/} is not formatted (clang-format -i ${f#"$src"/})" >&2
        bad=$((bad + 1))
    fi
done
((bad == 0)) || exit 1
echo "PASS: ${#files[@]} files match .clang-format ($(clang-format --version))"
