#!/usr/bin/env python3
"""Ingests zoo runs with rcf and compares what rcf says with each run's truth.json.

  python3 check.py --rcf build/rcf --runs fixtures/real_runs [--db zoo.db] [--verbose]

(the database defaults to rcf_zoo_check.db in the temporary directory, replaced each time).

Each capture directory (<lane>/<run>/ with truth.json) is ingested as one run, as `rcf capture`
would (logs/, stderr.log, stdout.log). Then, per run: every intended compile must be one rcf
compile with the same function, step and cause, and rcf must list no compile the runtime did not
report. Prints one line per mismatch and exits 1 when there is any. Standard library only.
"""

import argparse
import glob
import json
import os
import sqlite3
import subprocess
import sys
import tempfile


def ingest(rcf, db, run_dir, truth):
    # logs/ is empty for a JAX run (no TORCH_TRACE), and then absent from a git checkout.
    paths = [p for p in [os.path.join(run_dir, "logs")] if os.path.isdir(p)]
    for console in ("stderr.log", "stdout.log"):
        p = os.path.join(run_dir, console)
        if os.path.getsize(p) > 0:
            paths.append(p)
    cmd = [rcf, "ingest", "--db", db, "--lane", truth["lane"], "--run", truth["run"]] + paths
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def function_of(site):
    # "file:line (function)" -> function
    if "(" in site and site.endswith(")"):
        return site[site.rindex("(") + 1:-1]
    return site


def matches(row, want):
    fn = function_of(row["site"])
    if want.get("prefix"):
        return fn.startswith(want["function"])
    return fn == want["function"]


def check_run(con, truth, verbose):
    problems = []
    # A compile that hit the recompile limit built no program (kind dynamo_failed): not counted.
    rows = [dict(r) for r in con.execute(
        "SELECT c.step, c.site, c.program_key, coalesce(r.cause, 'first_compile') AS cause "
        "FROM compiles c LEFT JOIN recompiles r ON r.run_id = c.run_id AND r.ordinal = c.ordinal "
        "WHERE c.lane = ? AND c.run = ? AND c.kind <> 'dynamo_failed' ORDER BY c.ordinal",
        (truth["lane"], truth["run"]))]
    if truth["framework"] == "jax":
        # JAX compiles its own helpers (random, casts) too: only the scenario's functions count.
        names = {w["function"] for w in truth["intended"]}
        rows = [r for r in rows if any(n in r["site"] or n in r["program_key"] for n in names)]
    unmatched = list(rows)
    undecided = 0
    for want in truth["intended"]:
        if want.get("if_observed"):
            continue
        hit = next((r for r in unmatched if matches(r, want) and r["step"] == want["step"]
                    and r["cause"] == want["cause"]), None)
        if hit:
            unmatched.remove(hit)
            continue
        # rcf left the step open (the logs cannot place it): not a mismatch, said below.
        hit = next((r for r in unmatched if matches(r, want) and r["step"] is None
                    and r["cause"] == want["cause"]), None)
        if hit:
            unmatched.remove(hit)
            undecided += 1
            continue
        near = [f"{function_of(r['site'])}@{r['step']}={r['cause']}" for r in unmatched
                if matches(r, want)]
        problems.append(f"missing {want['function']} step {want['step']} {want['cause']}"
                        f" (rcf: {', '.join(near) or 'none'})")
    for r in unmatched:
        problems.append(f"extra {function_of(r['site'])} {r['program_key']} step {r['step']} "
                        f"{r['cause']}")
    notes = []
    if undecided:
        detail = con.execute(
            "SELECT step_detail FROM convergence_summary WHERE lane = ? AND run = ?",
            (truth["lane"], truth["run"])).fetchone()
        notes.append(f"{undecided} compile(s) matched, their step left open by rcf, which says: "
                     f"{detail[0] if detail else '?'}")
    if verbose:
        for r in rows:
            print(f"    {r['program_key']:>40} step {r['step']} {r['cause']:14} {r['site']}")
    return problems, notes


def main(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--rcf", required=True)
    p.add_argument("--runs", required=True)
    p.add_argument("--db", default="")
    p.add_argument("--verbose", action="store_true")
    args = p.parse_args(argv)
    db = args.db or os.path.join(tempfile.gettempdir(), "rcf_zoo_check.db")
    if os.path.exists(db):
        os.remove(db)
    truths = []
    for path in sorted(glob.glob(os.path.join(args.runs, "*", "*", "truth.json"))):
        truth = json.load(open(path))
        ingest(args.rcf, db, os.path.dirname(path), truth)
        truths.append(truth)
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    bad = 0
    for truth in truths:
        problems, notes = check_run(con, truth, args.verbose)
        print(f"{truth['lane']}/{truth['run']}: {'ok' if not problems else 'MISMATCH'}")
        for line in problems + notes:
            print("  " + line)
        bad += len(problems)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
