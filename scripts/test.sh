#!/usr/bin/env bash
# README command 2: install what is missing, build, run the whole test suite with CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
