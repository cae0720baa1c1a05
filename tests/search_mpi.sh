#!/usr/bin/env bash
# search_mpi.sh -- a search prints the same bytes on one thread, on every
# core, and split over 2 MPI processes (wall time masked).
# Usage: tests/search_mpi.sh PATH/TO/stepcast-built-with-SC_MPI
set -u
CLI=${1:?usage: search_mpi.sh PATH/TO/stepcast (built with -DSC_MPI=ON)}
cd "$(dirname "$0")/.."
MPIRUN=(mpirun -np 2 --oversubscribe)
[ "$(id -u)" -eq 0 ] && MPIRUN+=(--allow-run-as-root)
mask() {
  sed -E 's/, [0-9.]+ s \([0-9]+ plans\/s[^)]*\)/, T s (R plans\/s)/; s/"seconds": [0-9.e+-]+/"seconds": T/'
}
fail=0
TMPDIR_MPI=$(mktemp -d)
trap 'rm -rf "$TMPDIR_MPI"' EXIT
check() {
  local one all mpi
  # stdout and the exit code (mpirun adds its own words on stderr)
  one=$("$CLI" "$@" --threads 1 2>/dev/null; echo "exit $?")
  all=$("$CLI" "$@" 2>/dev/null; echo "exit $?")
  mpi=$("${MPIRUN[@]}" "$CLI" "$@" 2>/dev/null; echo "exit $?")
  one=$(printf '%s\n' "$one" | mask)
  all=$(printf '%s\n' "$all" | mask)
  mpi=$(printf '%s\n' "$mpi" | mask)
  if [[ $one != "$all" || $one != "$mpi" ]]; then
    echo "FAIL: stepcast $* differs between 1 thread, every core and 2 MPI processes:"
    diff <(printf '%s\n' "$one") <(printf '%s\n' "$mpi") | head -20
    fail=$((fail + 1))
  fi
}
check search --format json
check search examples/llama3-70b-512-h100.json --format json --top 20
check search examples/mixtral-8x7b-h100.json --top 20
check search -m gpt3-13b -n 64 --gb 256 --set cluster.topology=examples/topologies/fat_tree_64.json --format json --top 8
check search -n 8 --gb 64 --format json
check search examples/llama3-70b-512-h100.json --dtypes bf16,fp8 --headroom 4 --format csv --top 30
# the inner constraints (a fixed micro-batch, vpp, recomputation kinds)
check search examples/llama3-70b-512-h100.json --mb 1 --recompute full,partial --format json --top 20
check search examples/mixtral-8x7b-h100.json --vpp 2 --recompute none --top 10
# the README's line as written (4 processes: more than a small machine has
# cores, which --oversubscribe allows), with this binary; as root with the
# flag the README says OpenMPI then wants
readme=$(grep -E '^mpirun ' README.md | sed -E 's/[[:space:]]+# .*$//')
read -ra words <<< "$readme"
cmd=()
args=() # what follows the binary
for w in "${words[@]}"; do
  if [[ $w == build-mpi/stepcast ]]; then cmd+=("$CLI"); args=(); continue; fi
  cmd+=("$w")
  args+=("$w")
  [[ $w == mpirun && $(id -u) -eq 0 ]] && cmd+=(--allow-run-as-root)
done
if [[ ${#words[@]} -lt 4 || ${words[1]} != -np || " ${cmd[*]} " != *" $CLI "* ]]; then
  echo "FAIL: no 'mpirun -np N ... build-mpi/stepcast ...' line in README.md"; fail=$((fail + 1))
else
  one=$("$CLI" "${args[@]}" --threads 1 2>/dev/null | mask)
  got=$("${cmd[@]}" 2>"$TMPDIR_MPI/err" | mask)
  if [[ $got != "$one" ]]; then
    echo "FAIL: the README's '$readme' does not print what one process prints:"
    diff <(printf '%s\n' "$one") <(printf '%s\n' "$got") | head -10
    head -5 "$TMPDIR_MPI/err"
    fail=$((fail + 1))
  fi
fi
[ $fail -eq 0 ] && echo "search: identical on 1 thread, every core and 2 MPI processes"
[ $fail -eq 0 ]
