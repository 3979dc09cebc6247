#!/usr/bin/env bash
# Installs the Debian packages rcf needs to build and test, plus any named as arguments (skips
# the install when all are present). Runs apt-get update first, as a fresh Debian machine needs.
set -euo pipefail
# chromium runs the HTML report's browser test (headless).
packages=(g++ cmake make pkg-config libsqlite3-dev nlohmann-json3-dev libre2-dev libfmt-dev
  zlib1g-dev libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev sqlite3 python3
  chromium)
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
