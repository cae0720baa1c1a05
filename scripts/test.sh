#!/usr/bin/env bash
# Run every test: the Criterion suites and CLI checks under CTest in a
# normal build and in an AddressSanitizer + UndefinedBehaviorSanitizer
# build, the fuzzers for a bounded time, and the validation summary.
# Environment: FUZZ_SECONDS (default 30 per target), SC_MPI_TESTS=0 skips
# the MPI build and its check. The sanitizer build's CLI tests that check
# numbers run a representative part (CMake option SC_TEST_SUBSET, README).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d ../shared/validation ]; then
  # the tests compare against the project's measurement sets, calibration
  # data and traces, which live in ../shared beside the checkout
  echo "scripts/test.sh: $(cd .. && pwd)/shared/validation is missing: clone stepcast" \
       "beside the project's shared/ folder (the tests that need it would fail)" >&2
  exit 1
fi
scripts/deps.sh
jobs=$(nproc)

echo "== build (Release, -Wall -Wextra -Werror)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS=-Werror >/dev/null
ninja -C build
echo "== tests"
ctest --test-dir build --output-on-failure -j "$jobs"

if [ "${SC_MPI_TESTS:-1}" != 0 ]; then
  echo "== MPI build: a search split over 2 processes prints what one prints (SC_MPI_TESTS=0 skips)"
  cmake -S . -B build-mpi -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS=-Werror -DSC_MPI=ON -DSC_TESTS=OFF >/dev/null
  ninja -C build-mpi stepcast-cli
  tests/search_mpi.sh build-mpi/stepcast
fi

echo "== sanitizer build (ASan + UBSan, debug invariant checks, Chakra ETs through libprotobuf-c)"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSC_SANITIZE=ON -DSC_DEBUG_CHECKS=ON -DSC_ALLOC_FAULTS=ON -DSC_CHAKRA_PROTOBUF=ON >/dev/null
ninja -C build-asan
echo "== tests under sanitizers"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs"

if command -v clang >/dev/null; then
  echo "== fuzzing (bounded)"
  # with the debug invariant checks: no input may trip one (issue 12)
  CC=clang cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSC_FUZZ=ON -DSC_TESTS=OFF -DSC_DEBUG_CHECKS=ON >/dev/null
  ninja -C build-fuzz
  # FUZZ_SECONDS for each target, $jobs targets at a time (each fuzzer is
  # one process on one core); a finding prints the end of its log
  fuzz_one() { # TARGET LOG: fuzz TARGET in a scratch copy of its corpus
    local f=$1 name corpus work dict
    name=$(basename "$f")
    corpus=fuzz/corpus/${name#fuzz_}
    work=$(mktemp -d)
    [ -d "$corpus" ] && cp -r "$corpus"/. "$work"/ 2>/dev/null || true
    dict=fuzz/${name#fuzz_}.dict
    local dict_arg=()
    [ -f "$dict" ] && dict_arg=(-dict="$dict")
    local rc=0
    "$f" -max_total_time="${FUZZ_SECONDS:-30}" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
      "${dict_arg[@]}" "$work" > "$2" 2>&1 || rc=$?
    rm -rf "$work"
    return $rc
  }
  targets=()
  for f in build-fuzz/fuzz_*; do [ -x "$f" ] && targets+=("$f"); done
  logs=$(mktemp -d)
  failed=0
  for ((i = 0; i < ${#targets[@]}; i += jobs)); do
    pids=()
    for f in "${targets[@]:i:jobs}"; do
      fuzz_one "$f" "$logs/$(basename "$f").log" &
      pids+=($!)
    done
    k=0
    for f in "${targets[@]:i:jobs}"; do
      name=$(basename "$f")
      echo "-- $name for ${FUZZ_SECONDS:-30} s"
      if wait "${pids[k]}"; then tail -n 2 "$logs/$name.log"
      else tail -n 40 "$logs/$name.log"; failed=1; fi
      k=$((k + 1))
    done
  done
  rm -rf "$logs"
  [ "$failed" = 0 ] || exit 1
fi

echo "== validation summary (the sets shipped in data/validation)"
./build/stepcast validate --summary
echo "== all tests passed"
