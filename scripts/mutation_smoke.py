#!/usr/bin/env python3
"""Whole-CLI mutation runs: real logs changed the ways real logs differ, through every command.

The libFuzzer targets (scripts/fuzz.sh) cover the importers; nothing there reaches the analysis,
the restart proof, the lane diff, the gate or the reports. This script takes the logs under the
given folders (default: fixtures/), and for as long as it is told:
  1. picks a log and mutates it: cut at a byte, lines dropped, repeated, swapped or shuffled,
     numbers changed (ids, steps, sizes: 0, -1, 2^31-1, 2^32, 20 digits), a second log's lines
     interleaved (two processes in one file) or appended, bytes overwritten;
  2. ingests the original as lane A run "cold", the mutant as lane A run "warm" and another
     mutant as lane B, into a fresh store;
  3. runs explain (text and JSON), report (HTML, Markdown, JSON), gate, restart A cold/warm and
     diff A B on it.
Any exit status other than 0, 1 or 2 (3 is rcf's internal error), a timeout, or a sanitizer,
`terminate called` or `internal error` message is a finding: the mutant, the log it came from and
the command's stderr are written to --out. Run it with the sanitized build (build-asan/rcf, which
scripts/test_asan.sh makes) so that memory errors are findings too. Deterministic for a seed.

  python3 scripts/mutation_smoke.py --seconds 600 --seed 1 [--rcf build-asan/rcf] [DIR...]

Exit status 1 when anything was found. docs/fuzzing.md has the runs made so far.
"""
import argparse
import gzip
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

NUMBER = re.compile(rb"\d+")
ODD_NUMBERS = [b"0", b"1", b"-1", b"7", b"2147483647", b"4294967296", b"99999999999999999999"]
FINDING = re.compile(
    rb"AddressSanitizer|LeakSanitizer|runtime error:|terminate called|internal error|Segmentation")
TIMEOUT_S = 120


def logs_under(roots, max_bytes):
    """Every non-empty file under `roots` that may be a log, sorted (documentation, scripts and
    stores are left out)."""
    found = []
    for root in roots:
        for folder, _, names in os.walk(root):
            for name in names:
                path = os.path.join(folder, name)
                if name.endswith((".md", ".py", ".db", ".golden")):
                    continue
                size = os.path.getsize(path)
                if 0 < size <= max_bytes:
                    found.append(path)
    return sorted(found)


def read_log(path):
    data = open(path, "rb").read()
    if path.endswith(".gz"):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError):
            pass  # a corrupt .gz stays as it is: itself a mutant
    return data


def line_range(rng, lines, longest):
    first = rng.randrange(len(lines))
    return first, min(len(lines), first + rng.randrange(1, longest))


def mutate(rng, data, other):
    """One mutation of `data` (`other`: a second log), and its name."""
    lines = data.split(b"\n")
    kind = rng.randrange(9)
    if kind == 0 and len(data) > 1:
        return data[: rng.randrange(len(data))], "cut"
    if kind == 1 and len(lines) > 2:
        a, b = line_range(rng, lines, 20)
        return b"\n".join(lines[:a] + lines[b:]), "lines dropped"
    if kind == 2 and len(lines) > 2:
        a, b = line_range(rng, lines, 30)
        return b"\n".join(lines[:b] + lines[a:b] * rng.randrange(1, 4) + lines[b:]), "lines repeated"
    if kind == 3 and len(lines) > 4:
        a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[a], lines[b] = lines[b], lines[a]
        return b"\n".join(lines), "lines swapped"
    if kind == 4:
        numbers = list(NUMBER.finditer(data))
        if numbers:
            out = bytearray(data)
            chosen = rng.sample(numbers, min(len(numbers), rng.randrange(1, 8)))
            for m in sorted(chosen, key=lambda m: -m.start()):
                out[m.start():m.end()] = rng.choice(ODD_NUMBERS + [str(rng.randrange(1000)).encode()])
            return bytes(out), "numbers changed"
    if kind == 5:
        theirs, merged, i, j = other.split(b"\n"), [], 0, 0
        while i < len(lines) or j < len(theirs):
            if j >= len(theirs) or (i < len(lines) and rng.random() < 0.5):
                merged.append(lines[i])
                i += 1
            else:
                merged.append(theirs[j])
                j += 1
        return b"\n".join(merged), "interleaved with another log"
    if kind == 6 and len(data) > 1:
        out = bytearray(data)
        for _ in range(rng.randrange(1, 10)):
            out[rng.randrange(len(out))] = rng.randrange(256)
        return bytes(out), "bytes overwritten"
    if kind == 7:
        return data + b"\n" + other, "another log appended"
    if kind == 8 and len(lines) > 3:
        a, b = line_range(rng, lines, 50)
        block = lines[a:b]
        rng.shuffle(block)
        return b"\n".join(lines[:a] + block + lines[b:]), "lines shuffled"
    return data, "unchanged"


def mutant(rng, data, other):
    changed, kind = mutate(rng, data, other)
    if rng.random() < 0.3:
        changed, second = mutate(rng, changed, other)
        kind += " + " + second
    return changed, kind


def commands(rcf, db, work, original, warm, lane_b):
    return [
        [rcf, "ingest", "--db", db, "--lane", "A", "--run", "cold", original],
        [rcf, "ingest", "--db", db, "--lane", "A", "--run", "warm", warm],
        [rcf, "ingest", "--db", db, "--lane", "B", "--run", "cold", lane_b],
        [rcf, "explain", "--db", db],
        [rcf, "explain", "--db", db, "--json", "--all"],
        [rcf, "report", "--db", db, "--format", "html", "-o", os.path.join(work, "report.html")],
        [rcf, "report", "--db", db, "--format", "md"],
        [rcf, "report", "--db", db, "--format", "json"],
        [rcf, "gate", "--db", db],
        [rcf, "restart", "--db", db, "--lane", "A", "--cold", "cold", "--warm", "warm"],
        [rcf, "diff", "--db", db, "A", "B", "--format", "md"],
    ]


def run_one(command, env):
    """None when it is fine, else what went wrong."""
    try:
        done = subprocess.run(command, capture_output=True, timeout=TIMEOUT_S, env=env)
    except subprocess.TimeoutExpired:
        return f"timeout after {TIMEOUT_S} s"
    if done.returncode not in (0, 1, 2) or FINDING.search(done.stderr):
        tail = done.stderr.decode("utf-8", "replace")[-4000:]
        return f"exit status {done.returncode}\n{tail}"
    return None


def keep_finding(out, number, files, kind, command, problem):
    os.makedirs(out, exist_ok=True)
    stem = os.path.join(out, f"finding_{number}")
    for i, (name, path) in enumerate(files):
        shutil.copy(path, f"{stem}.{i}.{name}.log")
    with open(stem + ".txt", "w") as f:
        f.write(f"mutation: {kind}\ncommand: {' '.join(command)}\n{problem}\n")
    return stem


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", nargs="*", default=["fixtures"])
    parser.add_argument("--rcf", default="build-asan/rcf")
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="mutation-findings")
    parser.add_argument("--max-bytes", type=int, default=3_000_000)
    args = parser.parse_args()
    if not os.access(args.rcf, os.X_OK):
        sys.exit(f"mutation_smoke: no rcf binary at {args.rcf} (build it, or pass --rcf)")
    logs = logs_under(args.roots, args.max_bytes)
    if not logs:
        sys.exit(f"mutation_smoke: no logs under {' '.join(args.roots)}")
    rng = random.Random(args.seed)
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=1",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    work = tempfile.mkdtemp(prefix="rcf-mutation-")
    started, mutants, findings = time.monotonic(), 0, 0
    try:
        while time.monotonic() - started < args.seconds:
            source, other = rng.choice(logs), rng.choice(logs)
            data, other_data = read_log(source), read_log(other)
            warm_data, kind = mutant(rng, data, other_data)
            lane_b_data, kind_b = mutant(rng, data, other_data)
            paths = {name: os.path.join(work, name + ".log") for name in ("original", "warm", "lane_b")}
            for name, content in (("original", data), ("warm", warm_data), ("lane_b", lane_b_data)):
                open(paths[name], "wb").write(content)
            db = os.path.join(work, "store.db")
            for suffix in ("", "-wal", "-shm", "-journal"):
                if os.path.exists(db + suffix):
                    os.remove(db + suffix)
            mutants += 1
            for command in commands(args.rcf, db, work, paths["original"], paths["warm"], paths["lane_b"]):
                problem = run_one(command, env)
                if problem:
                    findings += 1
                    stem = keep_finding(args.out, findings, list(paths.items()),
                                        f"{source}: {kind}; lane B: {kind_b}", command, problem)
                    print(f"finding: {stem}.txt ({command[1]}, {kind})", flush=True)
                    break
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"mutation_smoke seed {args.seed}: {mutants} mutants of {len(logs)} logs in "
          f"{time.monotonic() - started:.0f} s, {findings} findings", flush=True)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
