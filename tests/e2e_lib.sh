# e2e_lib.sh -- shared by the CLI end-to-end scripts (source it after
# setting CLI). Provides TMP (removed on exit), the pass/fail counters and
# expect CODE NEEDLE -- ARGS...: run the CLI, require exit CODE (or one of
# CODE|CODE...) and NEEDLE
# (a fixed string) in stdout+stderr, and no death by signal;
# need_shared FILE: stop with FAIL unless FILE (under ../shared) is readable;
# synth_csv SRC DST PY: DST a copy of the CSV SRC, each row r (a dict of
# strings) first rewritten by the Python statements PY.
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0

expect() {
  local code=$1 needle=$2
  shift 3
  local out rc
  out=$("$CLI" "$@" 2>&1)
  rc=$?
  if [[ "|$code|" != *"|$rc|"* ]]; then
    echo "FAIL: stepcast $* -> exit $rc, expected $code"; echo "$out" | head -5 | sed 's/^/    /'
    fail=$((fail + 1))
  elif [[ $out != *"$needle"* ]]; then
    echo "FAIL: stepcast $* -> output lacks: $needle"; echo "$out" | head -5 | sed 's/^/    /'
    fail=$((fail + 1))
  elif [[ $rc -ge 128 ]]; then
    echo "FAIL: stepcast $* -> killed by signal $((rc - 128))"
    fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
}

need_shared() {
  if [[ ! -r $1 ]]; then
    echo "FAIL: $1 is missing: these checks need ../shared"
    exit 1
  fi
}

synth_csv() {
  python3 - "$1" "$2" "$3" <<'PY'
import csv, sys
src, dst, body = sys.argv[1:]
fix = compile(body, 'synth_csv', 'exec')
rows = list(csv.DictReader(open(src)))
with open(dst, 'w', newline='') as f:
    w = csv.DictWriter(f, fieldnames=rows[0].keys())
    w.writeheader()
    for r in rows:
        exec(fix, {'r': r})
        w.writerow(r)
PY
}
