#!/usr/bin/env bash
# Fuzzes the importers with libFuzzer: scripts/fuzz.sh SECONDS_PER_TARGET [TARGET...]
#
# Builds the clang fuzz build (build-fuzz, -fsanitize=fuzzer,address,undefined) and runs each
# target (default: all) for the given seconds, one after the other, on one core. Each target
# starts from the seeds cut from fixtures/ (fuzz/seed_corpus.py), the inputs it found before
# (fuzz/corpus/TARGET, gitignored) and the kept regressions (fixtures/fuzz_regressions/TARGET).
# A crash, timeout (-timeout=10 s per input, wall time: do not SIGSTOP a fuzzer) or OOM
# (-rss_limit_mb=2048) is written to fuzz/regressions/TARGET/ (gitignored); replay it with
# build-fuzz/fuzz/fuzz_TARGET FILE, fix it, and keep it as a regression test by copying it to
# fixtures/fuzz_regressions/TARGET/ (tests/fuzz_regression_test.cc replays those).
# Prints per target: executions, CPU seconds, result. Exit status 1 when any target failed.
set -euo pipefail
cd "$(dirname "$0")/.."

ALL_TARGETS=(torch_trace dynamo_text pt_xla_debug xla_metrics xla_saved_graph hlo_text hlo_parser
  jax_log step_timing ingest_source json_skim safe_text)
if [ $# -lt 1 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/fuzz.sh SECONDS_PER_TARGET [TARGET...]  (targets: ${ALL_TARGETS[*]})" >&2
  exit 2
fi
seconds=$1
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${ALL_TARGETS[@]}")
for t in "${targets[@]}"; do
  [[ " ${ALL_TARGETS[*]} " == *" $t "* ]] || { echo "fuzz.sh: unknown target '$t'" >&2; exit 2; }
done
# clang with its libFuzzer runtime (libclang-rt-dev is only a recommendation of clang).
bash scripts/install_deps.sh clang libclang-rt-dev

cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DRCF_FUZZ=ON -DRCF_BUILD_TESTS=OFF -DRCF_BUILD_BENCH=OFF >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]/#/fuzz_}"

summary=()
failed=0
for t in "${targets[@]}"; do
  seeds=build-fuzz/seeds/$t
  rm -rf "$seeds"
  python3 fuzz/seed_corpus.py "$t" "$seeds" >/dev/null
  mkdir -p "fuzz/corpus/$t" "fuzz/regressions/$t"
  log=build-fuzz/fuzz-$t.log
  echo "== fuzz_$t for ${seconds}s (log: $log)"
  rc=0
  # CPU seconds (user + system) of the fuzzer, from bash's `time` (no extra package needed).
  TIMEFORMAT='%U %S'
  # A target without kept regressions yet has no fixtures/fuzz_regressions/TARGET (libFuzzer
  # stops on a missing corpus directory).
  kept=()
  [ -d "fixtures/fuzz_regressions/$t" ] && kept=("fixtures/fuzz_regressions/$t")
  { time ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} "build-fuzz/fuzz/fuzz_$t" \
    -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
    -dict="fuzz/dict/$t.dict" -artifact_prefix="fuzz/regressions/$t/" -print_final_stats=1 \
    "fuzz/corpus/$t" "$seeds" "${kept[@]}" "fuzz/regressions/$t" \
    >"$log" 2>&1 || rc=$?; } 2>"$log.cpu"
  cpu=$(awk '{ printf "%.0f", $1 + $2 }' "$log.cpu")
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  corpus=$(ls "fuzz/corpus/$t" | wc -l)
  if [ "$rc" -eq 0 ]; then
    result="ok"
  else
    failed=1
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
    kind=$(grep -m1 -o 'ERROR: [A-Za-z]*Sanitizer: [a-z-]*\|ERROR: libFuzzer: [a-z-]*\|rcf fuzz invariant broken' "$log" || true)
    result="FAILED (${kind:-exit $rc}) ${artifact}"
  fi
  line=$(printf '%-16s %12s execs %7s CPU s  corpus %5s  %s' "$t" "${execs:-?}" "$cpu" "$corpus" "$result")
  echo "$line"
  summary+=("$line")
done
echo "== summary (${seconds}s per target)"
printf '%s\n' "${summary[@]}"
exit "$failed"
