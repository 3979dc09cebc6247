#!/usr/bin/env bash
# README command 1: install what building rcf needs, build the rcf binary only (not the test
# suite or the benchmarks: that is scripts/test.sh), run `rcf demo` on the bundled fixtures.
# Writes rcf-demo/rcf.db, explain.txt/.json and the reports report.html (offline, one file), report.md
# (per-lane upgrade notes) and report.json.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh --build-only
# Without -Werror (RCF_WERROR, the test command's): a newer compiler's new warning never stops it.
RCF_BUILD_TESTS=OFF RCF_BUILD_BENCH=OFF RCF_WERROR=OFF bash scripts/build.sh rcf
./build/rcf demo --out rcf-demo --force  # its own output directory: replace the last demo
