#!/usr/bin/env bash
# README command 2: install what is missing, build, run the whole test suite with CTest, then
# again under AddressSanitizer + UndefinedBehaviorSanitizer (scripts/test_asan.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
bash scripts/build.sh
# The DuckDB load test's engine (npm @duckdb/node-api); offline, the test skips and says why.
bash scripts/install_duckdb_test.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
# The same suite under ASan+UBSan (build-asan); RCF_SKIP_SANITIZERS=1 skips it for a quick run.
if [ "${RCF_SKIP_SANITIZERS:-0}" != 1 ]; then bash scripts/test_asan.sh; fi
