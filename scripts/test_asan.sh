#!/usr/bin/env bash
# The test suite under AddressSanitizer + UndefinedBehaviorSanitizer (RCF_SANITIZE=ON) in its own
# build directory, build-asan. Any sanitizer report fails the test that triggered it
# (-fno-sanitize-recover=undefined, halt_on_error), the CLI tests included: they run the
# sanitized rcf binary. scripts/test.sh runs this after the normal suite.
#
# Built with clang at -O1 -g1 (line tables: reports name file:line), the tests' own code at -O0,
# without benchmarks: g++ takes two and a half times as long to compile the same instrumentation
# at -O1 (docs/performance.md, "The test command's time"). CTest runs the suite as GoogleTest
# shards (RCF_TEST_SHARDS, 16 by default), not one instrumented process per test. Like the normal
# build of scripts/test.sh, with -Werror (RCF_WERROR): clang's warnings fail the test command too.
#
# Left out, because they measure or drive something ASan changes, not rcf's correctness:
#   HtmlBrowser.*                          headless Chromium (an uninstrumented browser) renders a
#                                          report that the normal pass checks byte for byte;
#   BadInputCatalogue.HundredMegabyteLine  assert a peak RSS of the release build (ASan's shadow
#   BadInputCatalogue.GzipBomb             memory and quarantine double it); the normal pass
#                                          runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
FILTER='-HtmlBrowser.*:BadInputCatalogue.HundredMegabyteLine:BadInputCatalogue.GzipBomb'
SHARDS=${RCF_ASAN_SHARDS:-16}
phase() { [ -n "${RCF_PHASE_LOG:-}" ] && echo "$1 $(date +%s)" >>"$RCF_PHASE_LOG" || true; }
bash scripts/configure.sh build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRCF_SANITIZE=ON \
  -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DRCF_BUILD_BENCH=OFF -DRCF_TEST_SHARDS="$SHARDS" -DRCF_TEST_FILTER="$FILTER" -DRCF_WERROR=ON
ninja -C build-asan -j"$(nproc)"
phase asan_build
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
rm -rf build-asan/test-results
# Two shards per core: an instrumented ingest spends much of its time waiting for its own worker
# threads, and two per core kept the cores busy (docs/performance.md, "The test command's time").
ctest --test-dir build-asan --output-on-failure -j"$(($(nproc) * 2))" | tee build-asan/ctest.log
phase asan_tests
