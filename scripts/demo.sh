#!/usr/bin/env bash
# README command 1: install what is missing, build, run `rcf demo` on the bundled fixtures.
# Writes rcf-demo/rcf.db, explain.txt/.json and the reports report.html (offline, one file), report.md
# (per-lane upgrade notes) and report.json.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
bash scripts/build.sh
./build/rcf demo --out rcf-demo --force  # its own output directory: replace the last demo
