#!/usr/bin/env python3
"""The recompile zoo: real torch.compile and jax.jit runs whose truth is known by construction.

  python3 zoo.py list
  python3 zoo.py run-all --out DIR [--only a,b] [--jobs N] [--device cuda|cpu] [--dry-run]
  python3 zoo.py scenario NAME --truth PATH [--device D] [--backend B] [--dry-run]

`run-all` runs every scenario in a process of its own, with the environment `rcf capture` gives a
command (read from capture_env.txt, which is `rcf capture --print-env --out @CAPTURE@`), and lays
each run out as a capture directory: DIR/<lane>/<run>/ with logs/ (TORCH_TRACE), stdout.log,
stderr.log and truth.json. Scenarios of one group (a cold and a warm run) run one after another on
one cache directory; groups run in parallel. `--dry-run` needs neither torch nor jax: it writes
each scenario's intended truth and the commands it would run. See README.md.
"""

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import jax_zoo  # noqa: E402
import torch_zoo  # noqa: E402
from truth import Truth, install_jax_tap, install_torch_taps  # noqa: E402

CAPTURE_PLACEHOLDER = "@CAPTURE@"


def all_scenarios():
    out = {}
    out.update(torch_zoo.SCENARIOS)
    out.update(jax_zoo.SCENARIOS)
    return out


def lane_and_run(name, spec):
    """A group is one lane with one run per scenario (cold, warm, broken); any other scenario is
    a lane of its own with one run."""
    if spec["group"]:
        return spec["group"], name.split("_")[-1]
    return name, "run1"


def read_capture_env(path, capture_dir):
    env = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            name, _, value = line.partition("=")
            env[name] = value.replace(CAPTURE_PLACEHOLDER, capture_dir)
    return env


def versions():
    """Versions of what a run used, from package metadata (nothing imported)."""
    import importlib.metadata as md
    out = {"python": sys.version.split()[0]}
    for pkg in ("torch", "triton", "jax", "jaxlib", "jax-cuda13-plugin", "jax-cuda12-plugin"):
        try:
            out[pkg] = md.version(pkg)
        except Exception:
            pass
    return out


# --- one scenario, in its own process ---------------------------------------------------------

def run_scenario(args):
    specs = all_scenarios()
    spec = specs[args.name]
    truth = Truth(args.name, args.truth, spec["framework"],
                  step_stream="stdout" if args.name == "multi_sync_steps" else "stderr")
    truth.data["description"] = spec["description"]
    truth.data["backend"] = args.backend or spec["backend"]
    truth.data["device"] = args.device
    truth.data["lane"], truth.data["run"] = lane_and_run(args.name, spec)
    truth.data["versions"] = versions()
    if not args.dry_run and spec["framework"] == "torch":
        import torch
        install_torch_taps(truth)
        if args.device == "cuda":
            truth.data["versions"]["gpu"] = torch.cuda.get_device_name(0)
            truth.data["versions"]["cuda"] = torch.version.cuda
    if not args.dry_run and spec["framework"] == "jax":
        import jax
        install_jax_tap(truth)
        truth.data["versions"]["jax_devices"] = [str(d) for d in jax.devices()]
    status = "ok"
    try:
        spec["fn"](truth, args.device, args.backend or spec["backend"], args.dry_run)
    except BaseException as e:  # keep the truth of what ran, then fail the process
        import traceback
        truth.note("scenario raised: " + "".join(traceback.format_exception_only(type(e), e)))
        traceback.print_exc()
        status = "failed"
    truth.write("dry_run" if args.dry_run and status == "ok" else status)
    return 0 if status == "ok" else 1


# --- every scenario ------------------------------------------------------------------------------

def plan_runs(args):
    specs = all_scenarios()
    names = [n for n in specs if not args.only or n in args.only.split(",")]
    groups = {}
    for name in names:
        groups.setdefault(specs[name]["group"] or name, []).append(name)
    return specs, groups


def run_one(name, spec, args, env_template):
    lane, run = lane_and_run(name, spec)
    capture_dir = os.path.join(args.out, lane, run)
    os.makedirs(os.path.join(capture_dir, "logs"), exist_ok=True)
    env = dict(os.environ)
    env.update(read_capture_env(args.env_file, capture_dir))
    # One cache directory per lane, outside the capture (never packed): a cold run starts empty,
    # the warm runs of its group reuse it; other lanes never share one.
    cache = os.path.join(args.out, ".cache", lane)
    env["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(cache, "inductor")
    env["TRITON_CACHE_DIR"] = os.path.join(cache, "triton")
    env["JAX_COMPILATION_CACHE_DIR"] = os.path.join(cache, "jax")
    env["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
    env["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
    cmd = [sys.executable, os.path.join(HERE, "zoo.py"), "scenario", name,
           "--truth", os.path.join(capture_dir, "truth.json"), "--device", args.device]
    if args.backend:
        cmd += ["--backend", args.backend]
    if args.dry_run:
        cmd.append("--dry-run")
    started = time.time()
    rc = run_teed(cmd, env, capture_dir, args.timeout)
    return {"scenario": name, "lane": lane, "run": run, "rc": rc,
            "seconds": round(time.time() - started, 1), "command": " ".join(cmd[1:])}


LINE_TIMES_HEADER = b"# rcf console line times v1: lines\tunix_ms\n"


def copy_with_line_times(pipe, log_path):
    """Copies a child's stream to log_path and, as `rcf capture` does, notes when each line
    arrived in log_path + ".times" (docs/capture.md, "Console line times")."""
    lines = 0
    with open(log_path, "wb") as log, open(log_path + ".times", "wb") as times:
        times.write(LINE_TIMES_HEADER)
        for chunk in iter(lambda: pipe.read1(65536), b""):
            log.write(chunk)
            log.flush()
            completed = chunk.count(b"\n")
            if completed:
                lines += completed
                times.write(b"%d\t%d\n" % (lines, int(time.time() * 1000)))


def run_teed(cmd, env, capture_dir, timeout):
    """Runs cmd with its stdout and stderr kept in capture_dir as `rcf capture` keeps them."""
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=HERE)
    copies = [threading.Thread(target=copy_with_line_times,
                               args=(stream, os.path.join(capture_dir, name)))
              for stream, name in ((proc.stdout, "stdout.log"), (proc.stderr, "stderr.log"))]
    for c in copies:
        c.start()
    try:
        rc = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        rc = "timeout"
    for c in copies:
        c.join()
    return rc


def run_group(names, specs, args, env_template):
    return [run_one(n, specs[n], args, env_template) for n in names]


def run_all(args):
    specs, groups = plan_runs(args)
    os.makedirs(args.out, exist_ok=True)
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_group, names, specs, args, None) for names in groups.values()]
        for f in concurrent.futures.as_completed(futures):
            for r in f.result():
                results.append(r)
                print(f"{r['scenario']:28} rc={r['rc']} {r['seconds']}s", flush=True)
    results.sort(key=lambda r: (r["lane"], r["run"]))
    summary = {"versions": versions(), "device": args.device, "results": results,
               "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    with open(os.path.join(args.out, "zoo_runs.json"), "w") as f:
        json.dump(summary, f, indent=1, sort_keys=True)
        f.write("\n")
    shutil.rmtree(os.path.join(args.out, ".cache"), ignore_errors=True) if args.drop_caches else None
    return 0 if all(r["rc"] == 0 for r in results) else 1


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="verb", required=True)
    sub.add_parser("list")
    a = sub.add_parser("run-all")
    a.add_argument("--out", required=True)
    a.add_argument("--only", default="")
    a.add_argument("--jobs", type=int, default=6)
    a.add_argument("--device", default="cuda")
    a.add_argument("--backend", default="")
    a.add_argument("--timeout", type=int, default=240, help="seconds per scenario")
    a.add_argument("--env-file", default=os.path.join(HERE, "capture_env.txt"))
    a.add_argument("--dry-run", action="store_true")
    a.add_argument("--drop-caches", action="store_true")
    s = sub.add_parser("scenario")
    s.add_argument("name")
    s.add_argument("--truth", required=True)
    s.add_argument("--device", default="cuda")
    s.add_argument("--backend", default="")
    s.add_argument("--dry-run", action="store_true")
    args = p.parse_args(argv)
    if args.verb == "list":
        for name, spec in all_scenarios().items():
            lane, run = lane_and_run(name, spec)
            print(f"{name:28} {spec['framework']:5} {lane}/{run}: {spec['description']}")
        return 0
    if args.verb == "run-all":
        return run_all(args)
    return run_scenario(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
