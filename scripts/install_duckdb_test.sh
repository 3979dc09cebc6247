#!/usr/bin/env bash
# Installs the npm package @duckdb/node-api (a prebuilt DuckDB) into tests/duckdb/node_modules for
# the export load test (ExportTest.DuckDbCountsPerViewEqualTheSqliteViews in tests/export_test.cc).
# Best effort: without node, npm or a network the test skips with a message saying so, and this
# script does not fail the suite.
set -uo pipefail
cd "$(dirname "$0")/.."
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  { $SUDO apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends nodejs npm; } ||
    echo "install_duckdb_test: could not install nodejs and npm with apt-get"
fi
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "install_duckdb_test: node or npm not found; the DuckDB load test will skip"
  exit 0
fi
if [ -d tests/duckdb/node_modules/@duckdb/node-api ]; then
  echo "install_duckdb_test: @duckdb/node-api present"
  exit 0
fi
npm install --prefix tests/duckdb --no-audit --no-fund --no-save @duckdb/node-api@1.5.6-r.1 ||
  echo "install_duckdb_test: npm install failed; the DuckDB load test will skip"
exit 0
