#!/usr/bin/env bash
# Configures and builds rcf into ./build (Release-with-debug-info): everything (the rcf binary, the
# test suite, the benchmarks), or only the targets named, e.g. `scripts/build.sh rcf`.
# RCF_BUILD_TESTS / RCF_BUILD_BENCH are set on every configure (default ON), so a build directory
# that scripts/demo.sh configured without them gets them back.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRCF_BUILD_TESTS="${RCF_BUILD_TESTS:-ON}" \
  -DRCF_BUILD_BENCH="${RCF_BUILD_BENCH:-ON}" >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build build -j"$(nproc)" "${targets[@]}"
