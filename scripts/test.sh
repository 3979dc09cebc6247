#!/usr/bin/env bash
# README command 2: install what is missing, build, run the whole test suite with CTest, the Python
# package's tests in a fresh venv (scripts/test_python.sh), then the suite again under
# AddressSanitizer + UndefinedBehaviorSanitizer (scripts/test_asan.sh). Ends with the wall time of
# each phase and the number of tests each pass ran.
set -euo pipefail
cd "$(dirname "$0")/.."
export RCF_PHASE_LOG
RCF_PHASE_LOG=$(mktemp)
# The tests' temporary files and stores on tmpfs where there is one: a store's syncs cost nothing
# there, and the suite spends much of its time creating stores (docs/performance.md, "The test
# command's time"). World-writable and sticky like /tmp: some tests run rcf as nobody.
# RCF_TEST_ON_DISK=1 keeps $TMPDIR.
test_tmp=""
if [ -z "${RCF_TEST_ON_DISK:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
  test_tmp=$(mktemp -d /dev/shm/rcf-tests.XXXXXX)
  chmod 1777 "$test_tmp"
  export TMPDIR=$test_tmp
fi
trap 'rm -f "$RCF_PHASE_LOG"; [ -z "$test_tmp" ] || rm -rf "$test_tmp"' EXIT
phase() { echo "$1 $(date +%s)" >>"$RCF_PHASE_LOG"; }
phase start
bash scripts/install_deps.sh
# The DuckDB load test's engine (npm @duckdb/node-api); offline, the test skips and says why.
bash scripts/install_duckdb_test.sh
phase install
# -Werror (RCF_WERROR): a change that makes the compiler warn fails the test command.
# RCF_PORTABLE: rcf_portable too, the wheel's binary (a link of the same objects).
RCF_WERROR=ON RCF_PORTABLE=ON bash scripts/build.sh
phase build
ctest --test-dir build --output-on-failure -j"$(($(nproc) * 2))" | tee build/ctest.log
phase tests
# The Python package: the wheel built offline with build/rcf_portable, installed into a fresh
# venv, tests/python run there with pytest (docs/python.md).
bash scripts/test_python.sh build
phase python
# The same suite under ASan+UBSan (build-asan); RCF_SKIP_SANITIZERS=1 skips it for a quick run.
if [ "${RCF_SKIP_SANITIZERS:-0}" != 1 ]; then bash scripts/test_asan.sh; fi
python3 scripts/test_summary.py "$RCF_PHASE_LOG"
