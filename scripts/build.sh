#!/usr/bin/env bash
# Configures and builds rcf into ./build (Release-with-debug-info: -O2, line tables): everything
# (the rcf binary, the test suite, the benchmarks), or only the targets named, e.g.
# `scripts/build.sh rcf`. RCF_BUILD_TESTS / RCF_BUILD_BENCH are set on every configure (default ON),
# so a build directory that scripts/demo.sh configured without them gets them back. RCF_WERROR=ON
# (scripts/test.sh sets it) builds with -Werror; it is set to OFF on every other configure, so the
# demo's build never fails on a warning of a newer compiler. RCF_PORTABLE=ON (scripts/test.sh)
# also links rcf_portable, the self-contained binary of the Python wheel (docs/python.md).
# Ninja, a unity build and ccache (when installed) keep a cold build short (docs/performance.md,
# "The test command's time").
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/configure.sh build -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DRCF_BUILD_TESTS="${RCF_BUILD_TESTS:-ON}" -DRCF_BUILD_BENCH="${RCF_BUILD_BENCH:-ON}" \
  -DRCF_WERROR="${RCF_WERROR:-OFF}" -DRCF_PORTABLE="${RCF_PORTABLE:-OFF}"
targets=()
for t in "$@"; do targets+=("$t"); done
ninja -C build -j"$(nproc)" "${targets[@]}"
