#!/usr/bin/env python3
"""Writes hand-made boundary inputs to fixtures/fuzz_regressions/TARGET/edge_* (run from anywhere).

tests/fuzz_regression_test.cc replays them with the crashing inputs that fuzzing finds: each is a
reading-plan byte (fuzz/fuzz_harness.h) and a log. They pin the cases a fuzzer reaches only by
luck: CRLF line ends read one byte at a time, lines of exactly the line limit and one byte over
(also when the extra byte is the '\\r'), a last line without '\\n' that is over the limit, a block
cut off by the end of the file, JSON nested past any recursion budget, concatenated and truncated
gzip members, and an inflate-ratio bomb.
"""
import gzip
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIX = ROOT / "fixtures"
OUT = FIX / "fuzz_regressions"
# Plan bytes: 0x01 reads 1 byte at a time into a 16-byte buffer; 0x11 the same with a 300-byte
# line limit; 0x0f whole reads; 0x8f whole reads and a prefix hash (ingest_source).
ONE_BYTE, ONE_BYTE_LIMIT, WHOLE, WHOLE_PREFIX = 0x01, 0x11, 0x0F, 0x8F
SAMPLES = {
    "torch_trace": "torch_trace/comp_failure.log",
    "dynamo_text": "dynamo/recompiles_pytorch_issue148179_shape_multi_entry.txt",
    "pt_xla_debug": "xla/pt_xla_debug_pr7768.txt",
    "xla_metrics": "xla/metrics_report_issue6614.txt",
    "xla_saved_graph": "xla/save_tensors_pr5971.txt",
    "hlo_text": "xla/hlo_pr4205_no_python_frames.txt",
    "hlo_parser": "xla/hlo_before_opt_issue7053.txt",
    "jax_log": "xla/jax_log_compiles_issue25768.txt",
    "step_timing": "steps/steps_run.csv",
    "ingest_source": "xla_bundle/pt_xla_debug.log",
}


def write(target, name, plan, data):
    d = OUT / target
    d.mkdir(parents=True, exist_ok=True)
    (d / ("edge_" + name)).write_bytes(bytes([plan]) + data)


def head(path, n=4096):
    return (FIX / path).read_bytes()[:n]


def line_limit_edges(sample):
    """Lines of 300 and 301 bytes, 301 ending in '\\r', then the sample, then 400 bytes, no '\\n'."""
    return (b"a" * 300 + b"\n" + b"b" * 301 + b"\n" + b"c" * 300 + b"\r\n" + b"d" * 299 +
            b"\r\n" + sample + b"\n" + b"e" * 400)


def main():
    for target, sample in SAMPLES.items():
        text = head(sample)
        whole_lines = text[:text.rfind(b"\n") + 1]
        write(target, "crlf_one_byte_reads", ONE_BYTE, whole_lines.replace(b"\n", b"\r\n"))
        write(target, "line_limit_edges", ONE_BYTE_LIMIT, line_limit_edges(whole_lines))
        # Cut in the middle of a line (and of a block): the end of a crashed run's log.
        write(target, "cut_mid_block", WHOLE, text[:len(text) * 2 // 3])

    prefix = b"V1206 15:18:15.925000 1500233 torch/_dynamo/utils.py:1288] "
    deep = 30000
    write("torch_trace", "deep_json", WHOLE,
          prefix + b'{"dynamo_start": ' + b"[" * deep + b"]" * deep + b"}\n" +
          prefix + b'{"chromium_event": {}, "has_payload": "490a3a38ce10390374e403dd6e063c7f"}\n\t' +
          b'{"a":' * 8000 + b"1" + b"}" * 8000 + b"\n")
    write("step_timing", "deep_json_and_huge_numbers", WHOLE,
          b'{"step": 1, "x": ' + b"[" * deep + b"]" * deep + b"}\n" +
          b'{"step": 99999999999999999999, "ms": 1e400}\n{"step": -9223372036854775809, "ms": -0}\n'
          b"step,ms\n1,NaN\n2,inf\n3,1e-400\n")
    write("json_skim", "nesting_at_the_limit", 0,
          b"[" * 256 + b"]" * 256)
    write("json_skim", "nesting_past_the_limit", 0, b'{"a":' * 300 + b"1" + b"}" * 300)
    write("json_skim", "surrogates_and_numbers", 0,
          b'{"s": "\\ud800\\udc00 \\ud800 \\udc00 \\u0000", "n": [1e400, -0, 18446744073709551616]}')
    write("hlo_parser", "unbalanced_nesting", WHOLE,
          b"HloModule deep\n\nENTRY %main (p: f32[2]) -> f32[2] {\n  %p = f32[2]{0} parameter(0)\n"
          b"  %t = (" + b"(" * 5000 + b"f32[2]" + b")" * 4000 + b" tuple(%p)\n"
          b'  %c = s32[] constant(1), metadata={op_name="' + b"{" * 3000 + b'"}\n'
          b"  ROOT %r = f32[2]{0} add(%p, %p\n")

    body = head("xla_bundle/pt_xla_debug.log", 16384)
    write("ingest_source", "gzip_two_members", WHOLE,
          gzip.compress(body[:8192]) + gzip.compress(body[8192:]))
    write("ingest_source", "gzip_truncated", WHOLE, gzip.compress(body)[:3000])
    write("ingest_source", "gzip_ratio_bomb", WHOLE, gzip.compress(b"\0" * (4 << 20), 9))
    write("ingest_source", "plain_with_prefix_hash", WHOLE_PREFIX, body)
    for d in sorted(OUT.iterdir()):
        print(d.name, len(list(d.iterdir())))


if __name__ == "__main__":
    main()
