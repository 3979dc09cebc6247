#!/usr/bin/env bash
# The recompile zoo on the GPU machine, in one call: every scenario with capture's environment,
# then the capture directories packed into one archive under $OUT (the device tool brings back
# at most a few files). Usage, from the repository root: bash examples/recompile_zoo/device_run.sh
set -u
here="$(cd "$(dirname "$0")" && pwd)"
work=/tmp/zoo_runs
rm -rf "$work" && mkdir -p "$work"
export PYTHONUNBUFFERED=1
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  python3 --version
} > "$work/machine.txt" 2>&1
# The zoo is cut at ZOO_BUDGET seconds so that the archive is always written.
# ZOO_ONLY=a,b runs only those scenarios (zoo.py list names them).
timeout "${ZOO_BUDGET:-330}" python3 "$here/zoo.py" run-all --out "$work" --jobs "${ZOO_JOBS:-10}" \
  --timeout "${ZOO_TIMEOUT:-150}" --device cuda ${ZOO_ONLY:+--only "$ZOO_ONLY"} 2>&1 \
  | tee "$work/run.log"
rm -rf "$work/.cache"
tar czf "${OUT:-/tmp}/real_runs.tar.gz" -C /tmp zoo_runs
ls -la "${OUT:-/tmp}"
for f in "$work"/*/*/stderr.log; do
  if grep -q Traceback "$f"; then echo "== $f"; grep -B2 -A12 Traceback "$f" | tail -30; fi
done
cat "$work/machine.txt"
# What XLA dumped, per run: file count and size, and one listing (the rest is in the archive).
for d in "$work"/*/*/logs/xla_dump; do
  [ -d "$d" ] && echo "$d: $(ls "$d" | wc -l) files, $(du -sh "$d" | cut -f1)"
done
first=$(ls -d "$work"/*/*/logs/xla_dump 2>/dev/null | head -1)
[ -n "$first" ] && ls "$first" | head -40
