#!/usr/bin/env bash
# Install what is missing, build stepcast in build/, and run the default
# prediction (GPT-3 175B on 1,024 A100 80 GB).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build
echo
./build/stepcast predict "$@"
