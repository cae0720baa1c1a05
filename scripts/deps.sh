#!/usr/bin/env bash
# Install the Debian packages stepcast needs to build and test, if missing.
# Runs apt-get as root (directly, or through sudo when available).
# python3 + python3-pytest: the Python module's tests and the output-format
# test. chromium (optional): the headless-browser test of the HTML report;
# when it cannot be installed that test is skipped with a loud message.
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config libjansson-dev zlib1g-dev libcriterion-dev clang valgrind
      libopenmpi-dev openmpi-bin # MPI: the SC_MPI search build (docs/search.md)
      libprotobuf-c-dev protobuf-c-compiler # Chakra ETs via protobuf-c: the sanitizer build's SC_CHAKRA_PROTOBUF
      python3 python3-pytest)
optional=(chromium)
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=()
for p in "${pkgs[@]}"; do installed "$p" || missing+=("$p"); done
missing_opt=()
for p in "${optional[@]}"; do installed "$p" || missing_opt+=("$p"); done
[ ${#missing[@]} -eq 0 ] && [ ${#missing_opt[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq || true
if [ ${#missing[@]} -gt 0 ]; then
  echo "stepcast: installing ${missing[*]}" >&2
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ ${#missing_opt[@]} -gt 0 ]; then
  echo "stepcast: installing ${missing_opt[*]} (optional)" >&2
  $SUDO apt-get install -y -qq --no-install-recommends "${missing_opt[@]}" >/dev/null ||
    echo "stepcast: WARNING: could not install ${missing_opt[*]}: the HTML report's browser test will be SKIPPED" >&2
fi
