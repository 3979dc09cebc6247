#!/usr/bin/env bash
# Issue 51's four targets in one bench run, on this machine, one after the other (docs/performance.md,
# "Issue 51's targets in one run"): the small logs (bench/small_logs.sh), TORCH_TRACE's MB/s and
# peak RSS (ingest_cli_bench --only torch_trace), the dense Dynamo log against the store's floor
# (ingest_cli_bench --only dynamo_text, which also times the training log, then store_floor_bench
# on the dense file) and the million
# compiles (attribution_bench --only dynamo_lane, then its --reanalyze). Each tool prints its own
# figures with the ratio to `wc -l`; this script prints the load average before each and runs
# them from the build directory given.
#
#   bash bench/issue51_targets.sh BUILD_DIR [--rounds N] [--mb N]
set -euo pipefail
build=${1:?usage: bench/issue51_targets.sh BUILD_DIR [--rounds N] [--mb N]}
shift
rounds=3
mb=256
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --mb) mb=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/rcf_issue51.XXXXXX")
trap 'rm -rf "$work"' EXIT
load() { echo "== $1 (load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%H:%M:%S) UTC)"; }

load "small logs: 38 corpus TORCH_TRACE logs, one rcf ingest each (target 1.5 s); a 30 KB log (target 15 ms)"
bash "$here/small_logs.sh" --rcf "$build/rcf" --rounds "$rounds" --dir "$work/small"

load "TORCH_TRACE, ${mb} MB (target 1 GB/s at 32 MB)"
"$build/bench/ingest_cli_bench" --mb "$mb" --only torch_trace --rounds "$rounds" --dir "$work/trace"

load "dense Dynamo text (target 80 % of the store's floor, at 64 MB)"
"$build/bench/ingest_cli_bench" --mb "$mb" --only dynamo_text --rounds "$rounds" \
  --dir "$work/dense" --keep
"$build/bench/store_floor_bench" "$work/dense/dynamo_text_repeated.log" --dir "$work/floor"

load "a million Dynamo compiles (target: ingest 15.0 s, analysis 7.8 s)"
"$build/bench/attribution_bench" --only dynamo_lane --dir "$work/million" --keep
"$build/bench/attribution_bench" --reanalyze --dir "$work/million"
