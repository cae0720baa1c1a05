# e2e_lib.sh -- shared by the CLI end-to-end scripts (source it after
# setting CLI). Provides TMP (removed on exit), the pass/fail counters and
# expect CODE NEEDLE -- ARGS...: run the CLI, require exit CODE (or one of
# CODE|CODE...) and NEEDLE
# (a fixed string) in stdout+stderr, and no death by signal;
# need_shared FILE: stop with FAIL unless FILE (under ../shared) is readable;
# synth_csv SRC DST PY: DST a copy of the CSV SRC, each row r (a dict of
# strings) first rewritten by the Python statements PY;
# SUBSET: 1 under SC_TEST_SUBSET=1 (CTest sets it in the sanitizer build:
# CMake option SC_TEST_SUBSET, README "Tests"), where the tests that check
# numbers run a representative part and leave the whole sweep to the
# Release build; SUBSET_SETS: one small validation set of each kind
# (relative to data/validation or ../shared/validation);
# memo_cli: prints the path of a wrapper of $CLI that runs each distinct
# argument list once and replays its output and exit code after, for a tool
# that runs the same commands several times (the CLI is deterministic:
# hostile.sh checks validate's bytes run to run).
SUBSET=${SC_TEST_SUBSET:-0}
SUBSET_SETS="training/megatron_sc21_table1.csv collectives/echo_allreduce_a100_2_to_32.csv
dp_training/kungfu_2xdgx1_allreduce_ps_gossip.csv recsys/nvidia_dle_dlrm_dcnv2.csv"
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

memo_cli() {
  local cli=$CLI
  [[ $cli == */* && $cli != /* ]] && cli=$PWD/$cli
  mkdir -p "$TMP/memo"
  cat > "$TMP/memo/stepcast" <<EOF
#!/usr/bin/env bash
k="$TMP/memo/\$(printf '%s\\0' "\$@" | md5sum | cut -c1-32)"
[[ -f \$k.rc ]] || { "$cli" "\$@" > "\$k.out" 2> "\$k.err"; echo \$? > "\$k.rc"; }
cat "\$k.out"; cat "\$k.err" >&2; exit "\$(cat "\$k.rc")"
EOF
  chmod +x "$TMP/memo/stepcast"
  echo "$TMP/memo/stepcast"
}
