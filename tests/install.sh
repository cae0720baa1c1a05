#!/usr/bin/env bash
# install.sh -- `cmake --install` of a build tree into a fresh prefix, then
# what a user of the installed tree does: build examples/c/predict.c with
# pkg-config against the shared and the static library and run both (their
# JSON equals the installed CLI's), check the SONAME, and run the installed
# `stepcast validate` on the shipped sets with no source tree around.
# Usage: tests/install.sh BUILD_DIR
set -u
BUILD=$(cd "${1:?usage: install.sh BUILD_DIR}" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
check() { # check DESCRIPTION COMMAND...
  local what=$1; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi
}
P=$TMP/prefix
cmake --install "$BUILD" --prefix "$P" > "$TMP/install.log" 2>&1 || { cat "$TMP/install.log"; exit 1; }
pc=$(find "$P" -name stepcast.pc | head -n 1)
check "stepcast.pc installed" test -n "$pc"
export PKG_CONFIG_PATH=$(dirname "$pc")
libdir=$(pkg-config --variable=libdir stepcast)
version=$(sed -n 's/^#define SC_VERSION "\(.*\)"$/\1/p' "$P/include/stepcast.h")
check "header installed with SC_VERSION $version" test -n "$version"
check "pkg-config version $version" test "$(pkg-config --modversion stepcast)" = "$version"
check "static library installed" test -f "$libdir/libstepcast.a"
soname=$(objdump -p "$libdir/libstepcast.so" | awk '/SONAME/ {print $2}')
check "versioned SONAME ($soname)" test "$soname" = "libstepcast.so.${version%.*}"
check "shared library exports only sc_* symbols" \
  test -z "$(nm -D --defined-only "$libdir/libstepcast.so" | awk '{print $3}' | grep -v '^sc_' | grep -v '^_')"
check "data installed" test -f "$P/share/stepcast/validation/README.md"

# the example, shared and static
cc -Wall -Wextra -Werror "$ROOT/examples/c/predict.c" $(pkg-config --cflags --libs stepcast) \
  -Wl,-rpath,"$libdir" -o "$TMP/predict_shared" || fail=1
cc -Wall -Wextra -Werror "$ROOT/examples/c/predict.c" -static-libgcc \
  $(pkg-config --cflags stepcast) "$libdir/libstepcast.a" $(pkg-config --static --libs-only-l stepcast | sed 's/-lstepcast//') \
  -o "$TMP/predict_static" || fail=1
check "example links the installed shared library" \
  sh -c "ldd '$TMP/predict_shared' | grep -q '$libdir/libstepcast.so'"
cd "$TMP"
"$P/bin/stepcast" predict --format json > cli.json 2>/dev/null
check "installed CLI predicts" test -s cli.json
for v in shared static; do
  ./predict_$v > $v.json 2> $v.err
  check "example ($v) runs and prints what the CLI prints" cmp -s $v.json cli.json
done
./predict_shared "$ROOT/examples/llama3-70b-512-h100.json" plan.recompute=full > ov.json 2>/dev/null
"$P/bin/stepcast" predict "$ROOT/examples/llama3-70b-512-h100.json" --set plan.recompute=full --format json > ov_cli.json
check "example with a file and an override agrees with the CLI" cmp -s ov.json ov_cli.json
./predict_shared /nonexistent.json > /dev/null 2>&1
check "example: unreadable file exits 3" test $? -eq 3
# the installed CLI finds the installed data, not the source tree's
env -u STEPCAST_DATA "$P/bin/stepcast" validate --summary > val.txt 2>&1
check "installed validate runs every shipped set" \
  test "$(grep -c '^validation/' val.txt)" -eq "$(ls "$P"/share/stepcast/validation/*/*.csv | wc -l)"
[ $fail -eq 0 ] && echo "install: all passed" || echo "install: FAILED"
exit $fail
