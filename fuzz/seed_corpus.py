#!/usr/bin/env python3
"""Writes the seed corpus of one fuzz target from fixtures/ (usage: seed_corpus.py TARGET OUT_DIR).

Each seed is a reading-plan byte (see fuzz/fuzz_harness.h) followed by a piece of a fixture: its
first 16 KiB and, for bigger files, four 8 KiB slices from its body that start at a line (small
seeds keep the executions fast; the fuzzer may grow inputs up to -max_len). The
ingest_source target also gets gzip-compressed seeds (one and two members), json_skim the JSON
payloads of TORCH_TRACE records and step JSONL lines.
"""
import gzip
import hashlib
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIX = ROOT / "fixtures"
HEAD = 16 * 1024
SLICE = 8 * 1024

GLOBS = {
    "torch_trace": ["torch_trace/**/*.log"],
    "dynamo_text": ["dynamo/*.txt", "scenarios/dynamo_lane/*.log"],
    "pt_xla_debug": ["xla/pt_xla_*.txt", "xla/vlog_*.txt", "xla_bundle/pt_xla_debug.log",
                     "scenarios/*/pt_xla_debug.log", "restart/partial/*/pt_xla_debug.log"],
    "xla_metrics": ["xla/metrics_*.txt", "xla_bundle/metrics.txt", "scenarios/*/metrics.txt",
                    "restart/proven/*/metrics.txt"],
    "xla_saved_graph": ["xla/save_tensors_*.txt", "xla/grab_graphs_*.txt",
                        "xla_bundle/save_tensors.hlo.0", "scenarios/*/save_tensors.hlo.0"],
    "hlo_text": ["xla/hlo_*.txt", "scenarios/clean_settle/xla_dump/*.txt"],
    "hlo_parser": ["xla/hlo_*.txt", "scenarios/clean_settle/xla_dump/*.txt",
                   "xla_bundle/save_tensors.hlo.0"],
    "jax_log": ["xla/jax_*.txt", "restart/jax/*/jax.log"],
    "step_timing": ["steps/*.csv", "steps/*.jsonl", "xla_bundle/steps.csv",
                    "scenarios/*/steps.csv", "restart/jax/*/steps.jsonl"],
    "ingest_source": ["torch_trace/simple.log", "dynamo/recompiles_*.txt", "xla/*.txt",
                      "xla_bundle/*", "steps/*", "restart/jax/cold/*"],
    "json_skim": [],
    # Log text as the sanitiser sees it (its first byte is the plan byte: just more text).
    "safe_text": ["dynamo/recompiles_*.txt", "torch_trace/simple.log"],
}
# Plan bytes: 0x0f reads whole buffers of 4 MiB (as the ingest driver does); 0x05 reads 1..7
# bytes at a time into a 100-byte buffer; 0x2f also names the source like a dump file (hlo_text).
PLANS = [0x0F, 0x05]


def slices(data):
    yield data[:HEAD]
    if len(data) > 2 * HEAD:
        for quarter in range(1, 5):
            at = data.find(b"\n", len(data) * quarter // 5)
            if at >= 0:
                yield data[at + 1:at + 1 + SLICE]


def write(out, blob):
    name = hashlib.sha1(blob).hexdigest()
    (out / name).write_bytes(blob)


def main():
    target, out = sys.argv[1], pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    files = sorted({p for g in GLOBS[target] for p in FIX.glob(g) if p.is_file()})
    files = [p for p in files if p.suffix not in (".md", ".py")]
    for path in files:
        data = path.read_bytes()
        for part in slices(data):
            for plan in PLANS + ([0x2F] if target == "hlo_text" else []):
                write(out, bytes([plan]) + part)
            if target == "ingest_source":
                packed = gzip.compress(part[:8192])
                write(out, bytes([0x0F]) + packed)
                write(out, bytes([0x4F]) + packed + gzip.compress(part[8192:16384]))
    if target == "json_skim":
        for path in sorted(FIX.glob("torch_trace/**/*.log")) + sorted(FIX.glob("**/*.jsonl")):
            for line in path.read_bytes().splitlines()[:400]:
                brace = line.find(b"{")
                if brace >= 0:
                    write(out, line[brace:][:HEAD])
    print(f"{target}: {len(list(out.iterdir()))} seeds in {out}")


if __name__ == "__main__":
    main()
