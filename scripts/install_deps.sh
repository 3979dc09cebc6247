#!/usr/bin/env bash
# Installs the Debian packages rcf needs to build and test, plus any named as arguments (skips
# the install when all are present). Runs apt-get update first, as a fresh Debian machine needs.
# --build-only: only what building the rcf binary needs (scripts/demo.sh): no test framework,
# benchmark library or browser.
set -euo pipefail
build_only=0
if [ "${1:-}" = "--build-only" ]; then
  build_only=1
  shift
fi
packages=(g++ cmake make pkg-config libsqlite3-dev nlohmann-json3-dev libre2-dev libfmt-dev
  zlib1g-dev libcli11-dev)
# The test suite and the benchmarks; chromium runs the HTML report's browser test (headless).
# Node and npm for the export's DuckDB load test are best effort (scripts/install_duckdb_test.sh):
# an image whose node does not come from Debian must not fail here.
if [ "$build_only" -eq 0 ]; then
  packages+=(libgtest-dev libgmock-dev libbenchmark-dev sqlite3 python3 chromium)
fi
# Extra packages a caller needs (scripts/fuzz.sh: clang and its libFuzzer runtime).
packages+=("$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all packages present"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install_deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
