#!/usr/bin/env bash
# Install the Debian packages stepcast needs to build and test, if missing.
# Runs apt-get as root (directly, or through sudo when available).
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config libjansson-dev zlib1g-dev libcriterion-dev clang valgrind
      libopenmpi-dev openmpi-bin) # MPI: the SC_MPI search build (docs/search.md)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "stepcast: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
