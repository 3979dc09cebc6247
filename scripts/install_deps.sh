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
# ninja-build runs the build; ccache keeps compiled objects between builds (CMakeLists.txt).
packages=(g++ cmake ninja-build ccache pkg-config libsqlite3-dev nlohmann-json3-dev libre2-dev
  libfmt-dev zlib1g-dev libcli11-dev)
# The test suite and the benchmarks; chromium runs the HTML report's browser test (headless);
# clang and its sanitizer runtime build the ASan+UBSan pass (scripts/test_asan.sh); Python's venv,
# pip, setuptools, wheel and pytest build the wheel and run its tests (scripts/test_python.sh),
# nbformat validates the example notebook;
# binutils' readelf, objdump and strip check and strip its binary.
# Node and npm for the export's DuckDB load test are best effort (scripts/install_duckdb_test.sh):
# an image whose node does not come from Debian must not fail here.
if [ "$build_only" -eq 0 ]; then
  packages+=(libgtest-dev libgmock-dev libbenchmark-dev sqlite3 python3 chromium clang
    libclang-rt-dev python3-venv python3-pip python3-setuptools python3-wheel python3-pytest
    python3-nbformat binutils)
fi
# Extra packages a caller needs (scripts/fuzz.sh: clang and its libFuzzer runtime).
packages+=("$@")
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=()
for p in "${packages[@]}"; do
  installed "$p" || missing+=("$p")
done
# ISA-L inflates gzip logs three times as fast as zlib (ingest/reading/gzip_inflater.h). Debian builds it
# only for the architectures it has assembly for: where it has none, rcf inflates with zlib.
optional=(libisal-dev)
optional_missing=()
for p in "${optional[@]}"; do
  installed "$p" || optional_missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ] && [ ${#optional_missing[@]} -eq 0 ]; then
  echo "install_deps: all packages present"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
if [ ${#missing[@]} -gt 0 ]; then
  echo "install_deps: installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
for p in "${optional_missing[@]}"; do
  if apt-cache show "$p" > /dev/null 2>&1; then
    echo "install_deps: installing $p"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$p" ||
      echo "install_deps: $p could not be installed; rcf builds without it"
  else
    echo "install_deps: $p is not packaged for this architecture; rcf builds without it"
  fi
done
