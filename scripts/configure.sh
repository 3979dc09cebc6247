#!/usr/bin/env bash
# Configures the build directory $1 with Ninja and the given CMake arguments. A directory that an
# older checkout configured with another generator is configured afresh (CMake refuses to switch).
set -euo pipefail
dir=$1
shift
if [ -f "$dir/CMakeCache.txt" ] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$dir/CMakeCache.txt"; then
  rm -rf "$dir/CMakeCache.txt" "$dir/CMakeFiles"
fi
cmake -S . -B "$dir" -G Ninja "$@" >/dev/null
