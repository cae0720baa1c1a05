#!/usr/bin/env bash
# docs_map.sh -- docs/architecture.md's module map is the src/ tree: every
# src/FOLDER/FILE.c is named in the row of its folder in the table "Every
# module, by folder", every file that row names exists, and every src/
# folder has a row there and one in README.md's layout table.
# Usage: tests/docs_map.sh (from anywhere; reads the source tree only)
# (backticks below are literal markdown; the loops read file names, one word each)
# shellcheck disable=SC2016,SC2013
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ARCH="$ROOT/docs/architecture.md"
pass=0 fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
# the table's rows: "| `src/core/` | `clock.c` (...), ... |"
table=$(sed -n '/^## Every module, by folder/,/^## /p' "$ARCH" | grep -E '^\| `src/[a-z_]+/` \|')
[[ -n $table ]] || bad "docs/architecture.md has no table \"Every module, by folder\""
for dir in "$ROOT"/src/*/; do
  folder=$(basename "$dir")
  row=$(grep -F "| \`src/$folder/\` |" <<<"$table")
  if [[ -z $row ]]; then bad "src/$folder/ has no row in docs/architecture.md"; continue; fi
  grep -qF "\`src/$folder/\`" "$ROOT/README.md" || bad "src/$folder/ is not in README.md's layout table"
  for f in "$dir"*.c; do
    [[ -e $f ]] || continue
    name=$(basename "$f")
    if grep -qF "\`$name\`" <<<"$row"; then pass=$((pass + 1))
    else bad "src/$folder/$name is not named in its row of docs/architecture.md"; fi
  done
  for name in $(grep -oE '`[a-z0-9_]+\.c`' <<<"$row" | tr -d '`'); do
    [[ -e "$dir$name" ]] || bad "docs/architecture.md names src/$folder/$name, which does not exist"
  done
done
# and no row for a folder that is gone
for folder in $(grep -oE '^\| `src/[a-z_]+/`' <<<"$table" | sed -E 's#.*src/([a-z_]+)/.*#\1#'); do
  [[ -d "$ROOT/src/$folder" ]] || bad "docs/architecture.md has a row for src/$folder/, which does not exist"
done
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
