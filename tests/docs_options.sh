#!/usr/bin/env bash
# docs_options.sh -- every option a command's --help lists is documented in
# that command's page(s) of docs/, and every option the pages give a
# command is one its --help lists (a renamed or removed option fails here
# until the docs follow).
# Usage: tests/docs_options.sh PATH/TO/stepcast
# (the loops read option names, one word each)
# shellcheck disable=SC2013
set -u
CLI=${1:?usage: docs_options.sh PATH/TO/stepcast}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
pass=0 fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# command (as typed after stepcast) -> the pages that document its options
declare -A PAGES=(
  [predict]="input.md output.md event.md report.md"
  [dp]="dp.md input.md output.md"
  [search]="search.md input.md"
  [validate]="output.md"
  [collective]="network.md"
  [topo]="network.md"
  [trace]="trace.md"
  ["recsys predict"]="recsys.md"
  ["recsys plan"]="recsys.md"
  [presets]="output.md"
)

for cmd in "${!PAGES[@]}"; do
  # shellcheck disable=SC2086
  help=$("$CLI" $cmd --help 2>&1)
  opts=$(grep -oE -- '(^|[^a-z-])--[a-z][a-z0-9-]*' <<<"$help" | sed -E 's/^[^-]*//' | sort -u)
  [[ -n $opts ]] || { bad "stepcast $cmd --help lists no option"; continue; }
  files=()
  for p in ${PAGES[$cmd]}; do files+=("$ROOT/docs/$p"); done
  for o in $opts; do
    [[ $o == --help ]] && continue
    if grep -qE -- "(^|[^a-z-])$o([^a-z0-9-]|$)" "${files[@]}"; then pass=$((pass + 1))
    else bad "stepcast $cmd $o (in --help) is not in docs/${PAGES[$cmd]// /, docs/}"; fi
  done
done

# the other way: `stepcast CMD ... --opt` written in a doc or the README
# names an option CMD's --help lists
while IFS= read -r line; do
  file=${line%%:*}
  text=${line#*:}
  cmd=$(sed -E 's/.*stepcast (recsys (predict|plan)|[a-z]+).*/\1/' <<<"$text")
  # shellcheck disable=SC2086
  help=$("$CLI" $cmd --help 2>&1) || true
  [[ $help == *usage* ]] || continue
  for o in $(sed -E "s/.*stepcast $cmd//" <<<"$text" | grep -oE -- '(^|[ [])--[a-z][a-z0-9-]*' | sed -E 's/^[ [ ]*//'); do
    [[ $o == --help ]] && continue
    if grep -qE -- "(^|[^a-z-])$o([^a-z0-9-]|$)" <<<"$help"; then pass=$((pass + 1))
    else bad "$file: stepcast $cmd $o is not an option of stepcast $cmd --help: $text"; fi
  done
done < <(cd "$ROOT" && grep -HoE '(build/)?stepcast (recsys (predict|plan)|[a-z]+)( [^`#|]*)?' README.md docs/*.md |
         grep -E -- ' --[a-z]')

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
