#!/usr/bin/env bash
# Small inputs, one process each (issue 51): `rcf ingest` of every non-empty TORCH_TRACE log of a
# corpus folder, one file per process, each into a fresh store, as a script run over many logs
# does. Prints the loop's total, the per-file median and the ratio to the same loop of `wc -l`,
# then the median time of one 30 KB log, then (when tlparse is on the PATH) the same loop with
# tlparse. docs/performance.md, "Small logs", reports these figures.
#
#   bash bench/small_logs.sh [--rcf PATH] [--baseline PATH] [--corpus DIR] [--rounds N] [--dir DIR]
#
# --baseline: another rcf binary (an earlier build), timed the same way in the same rounds, its
# loops alternating with --rcf's, so that a change in the machine's load hits both alike.
# --corpus: a folder of TORCH_TRACE logs (default ../shared/corpus/torch_trace beside the
# checkout). --dir: where the stores go (default a fresh folder under $TMPDIR or /tmp; use a
# folder on the disk a user's store would be on, since syncs cost what that disk makes them
# cost). Each round runs every loop once; the figures are the median round.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
rcf="$root/build/rcf"
baseline=""
corpus="$root/../shared/corpus/torch_trace"
rounds=5
dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --rcf) rcf=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    --corpus) corpus=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    *)
      echo "usage: $0 [--rcf PATH] [--baseline PATH] [--corpus DIR] [--rounds N] [--dir DIR]" >&2
      exit 2
      ;;
  esac
done
[ -x "$rcf" ] || { echo "no rcf binary at $rcf (--rcf PATH)" >&2; exit 2; }
[ -z "$baseline" ] || [ -x "$baseline" ] || { echo "no rcf binary at $baseline" >&2; exit 2; }
[ -d "$corpus" ] || { echo "no corpus folder at $corpus (--corpus DIR)" >&2; exit 2; }
if [ -z "$dir" ]; then
  dir=$(mktemp -d "${TMPDIR:-/tmp}/rcf-small-logs.XXXXXX")
  trap 'rm -rf "$dir"' EXIT
fi
mkdir -p "$dir"

mapfile -t files < <(find "$corpus" -type f -size +0 ! -name 'README*' | LC_ALL=C sort)
[ "${#files[@]}" -gt 0 ] || { echo "no logs under $corpus" >&2; exit 2; }
# The single small log: the file closest to 30 KB.
single=$(for f in "${files[@]}"; do
  s=$(stat -c %s "$f")
  echo "$(( s > 30000 ? s - 30000 : 30000 - s )) $f"
done | sort -n | head -1 | cut -d' ' -f2-)

# The time is read from EPOCHREALTIME in place, never through $(...): a command substitution
# forks the shell, and two forks per run added about 6 ms to each (wc -l of 30 KB measured 8.7 ms
# with them, 2.7 ms from a Python driver; docs/performance.md, "Small logs").

# Runs "$@" FILE for every file, one process each, a fresh store each for rcf. Appends each
# file's microseconds to the array named by $1 and sets loop_total to the loop's microseconds.
loop_total=0
loop() {
  local -n times=$1
  shift
  local total=0 f t0 t1
  for f in "${files[@]}"; do
    rm -f "$dir/s.db" "$dir/s.db-wal" "$dir/s.db-shm" "$dir/s.db-journal"
    rm -rf "$dir/tl"
    t0=${EPOCHREALTIME/./}
    "$@" "$f" >/dev/null 2>&1 || { echo "failed: $* $f" >&2; exit 1; }
    t1=${EPOCHREALTIME/./}
    times+=($((t1 - t0)))
    total=$((total + t1 - t0))
  done
  loop_total=$total
}

median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
ms() { awk -v us="$1" 'BEGIN {printf "%.1f ms", us / 1000}'; }

rcf_ingest() { "$rcf" ingest --db "$dir/s.db" "$1"; }
baseline_ingest() { "$baseline" ingest --db "$dir/s.db" "$1"; }
tlparse_run() { tlparse "$1" -o "$dir/tl" --overwrite --no-browser; }
have_tlparse=0
command -v tlparse >/dev/null && have_tlparse=1

declare -a rcf_totals=() wc_totals=() tl_totals=() single_times=() single_wc=()
declare -a rcf_per=() wc_per=() tl_per=() base_totals=() base_per=() single_base=()

# Five ingests of the single log by binary $1, each into a fresh store; appends each one's
# microseconds to the array named by $2.
single_runs() {
  local -n out=$2
  local k t0 t1
  for ((k = 0; k < 5; ++k)); do
    rm -f "$dir/s.db" "$dir/s.db-wal" "$dir/s.db-shm" "$dir/s.db-journal"
    t0=${EPOCHREALTIME/./}
    "$1" ingest --db "$dir/s.db" "$single" >/dev/null 2>&1
    t1=${EPOCHREALTIME/./}
    out+=($((t1 - t0)))
  done
}

# The loops alternate within each round, so that a change in the machine's load hits all alike.
for ((r = 0; r < rounds; ++r)); do
  loop rcf_per rcf_ingest
  rcf_totals+=("$loop_total")
  loop wc_per wc -l
  wc_totals+=("$loop_total")
  if [ "$have_tlparse" = 1 ]; then
    loop tl_per tlparse_run
    tl_totals+=("$loop_total")
  fi
  if [ -n "$baseline" ]; then
    loop base_per baseline_ingest
    base_totals+=("$loop_total")
    single_runs "$baseline" single_base
  fi
  single_runs "$rcf" single_times
  for ((k = 0; k < 5; ++k)); do
    t0=${EPOCHREALTIME/./}
    wc -l "$single" >/dev/null
    t1=${EPOCHREALTIME/./}
    single_wc+=($((t1 - t0)))
  done
done

bytes=$(cat "${files[@]}" | wc -c)
rcf_total=$(median "${rcf_totals[@]}")
wc_total=$(median "${wc_totals[@]}")
echo "host: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "input: ${#files[@]} logs under $corpus, $((bytes / 1000)) KB in all; stores in $dir"
echo "rounds: $rounds (totals are the median round)"
printf 'rcf ingest, one per file:   total %s, per-file median %s, over `wc -l` %.1fx (wc -l loop %s)\n' \
  "$(ms "$rcf_total")" "$(ms "$(median "${rcf_per[@]}")")" \
  "$(awk -v a="$rcf_total" -v b="$wc_total" 'BEGIN {print a / b}')" "$(ms "$wc_total")"
single_rcf=$(median "${single_times[@]}")
single_wc_median=$(median "${single_wc[@]}")
printf 'rcf ingest of %s (%s bytes): median %s of %s, over `wc -l` %.1fx (wc -l %s)\n' \
  "$(basename "$single")" "$(stat -c %s "$single")" "$(ms "$single_rcf")" "${#single_times[@]}" \
  "$(awk -v a="$single_rcf" -v b="$single_wc_median" 'BEGIN {print a / b}')" "$(ms "$single_wc_median")"
if [ -n "$baseline" ]; then
  base_total=$(median "${base_totals[@]}")
  printf 'baseline %s, one per file: total %s, per-file median %s, over `wc -l` %.1fx\n' \
    "$baseline" "$(ms "$base_total")" "$(ms "$(median "${base_per[@]}")")" \
    "$(awk -v a="$base_total" -v b="$wc_total" 'BEGIN {print a / b}')"
  printf 'baseline ingest of %s: median %s of %s\n' "$(basename "$single")" \
    "$(ms "$(median "${single_base[@]}")")" "${#single_base[@]}"
fi
if [ "$have_tlparse" = 1 ]; then
  tl_total=$(median "${tl_totals[@]}")
  printf 'tlparse, one per file:      total %s, per-file median %s, over `wc -l` %.1fx\n' \
    "$(ms "$tl_total")" "$(ms "$(median "${tl_per[@]}")")" \
    "$(awk -v a="$tl_total" -v b="$wc_total" 'BEGIN {print a / b}')"
else
  echo "tlparse: not on the PATH, not measured"
fi
