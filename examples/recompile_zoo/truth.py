"""Truth recording for the recompile zoo (standard library only).

A scenario declares, before it runs, what it does on purpose: at which training step which
function compiles and why (`intend`). While it runs, `Truth` also records what the runtime itself
reported, in process: every compile PyTorch's structured trace announced (compile id, function,
the step it happened in, FX graph / AOTAutograd cache hits and misses) and the recompile-limit
warning. The two are written side by side to truth.json, so a test compares rcf with intent and
with observation, and a run where the runtime did not do what was intended says so instead of
hiding it.
"""

import json
import logging
import os
import sys
import time

SCHEMA_VERSION = 1


class Truth:
    def __init__(self, scenario, path, framework, step_stream="stderr"):
        self.path = path
        self.data = {
            "schema_version": SCHEMA_VERSION,
            "scenario": scenario,
            "framework": framework,
            "started_unix": time.time(),
            "versions": {},
            "intended": [],
            "observed_compiles": [],
            "observed_cache_events": [],
            "observed_limit_hits": [],
            "steps": [],
            "notes": [],
            "status": "running",
        }
        self.step = None
        self.epoch = None
        self.stream = sys.stdout if step_stream == "stdout" else sys.stderr
        self.timestamped = step_stream == "stdout"

    # What the scenario does on purpose. `cause` is rcf's vocabulary (docs/causes.md):
    # first_compile, shape, dtype, constant, key_subset, sync_fragment, tensor_meta, global_state,
    # object_identity, type. `function` is the Python function (code object) that compiles.
    def intend(self, step, function, cause, why, **extra):
        row = {"step": step + 1, "function": function, "cause": cause, "why": why}
        row.update(extra)
        self.data["intended"].append(row)

    def note(self, text):
        self.data["notes"].append(text)

    # A training step begins: its progress line goes to the scenario's step stream, the way a
    # training script prints it.
    # Steps are recorded as the progress lines number them, counted from 1 over the whole run
    # (epochs unrolled): the step a reader of the log would name.
    def begin_step(self, step, total, epoch=None, steps_per_epoch=None, loss=None):
        self.step = step + 1
        self.epoch = epoch
        self.data["steps"].append({"step": step + 1, "epoch": epoch, "t": time.time()})

    def end_step(self, step, total, loss, epoch=None, steps_per_epoch=None):
        if epoch is not None:
            text = f"epoch {epoch} step {step % steps_per_epoch + 1}/{steps_per_epoch} loss {loss:.4f}"
        else:
            text = f"step {step + 1}/{total} loss {loss:.4f}"
        if self.timestamped:
            text = time.strftime("%Y-%m-%d %H:%M:%S") + f",{int(time.time() * 1000) % 1000:03d} " + text
        print(text, file=self.stream, flush=True)

    def write(self, status):
        self.data["status"] = status
        self.data["finished_unix"] = time.time()
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.data, f, indent=1, sort_keys=True)
            f.write("\n")
        os.replace(tmp, self.path)


class TraceTap(logging.Handler):
    """Sees every record of PyTorch's structured trace logger (`torch.__trace`, active when
    TORCH_TRACE is set) in process, and keeps compiles and cache events with the current step.
    Only metadata is read; payloads are never kept."""

    CACHE_ARTIFACTS = ("cache_hit", "cache_miss", "cache_bypass")

    def __init__(self, truth):
        super().__init__(level=logging.DEBUG)
        self.truth = truth

    def emit(self, record):
        try:
            meta = getattr(record, "metadata", None)
            if not isinstance(meta, dict):
                return
            cid = None
            if "frame_id" in meta:
                cid = f"{meta.get('frame_id')}/{meta.get('frame_compile_id')}"
            if "compilation_metrics" in meta:
                m = meta["compilation_metrics"] or {}
                self.truth.data["observed_compiles"].append({
                    "step": self.truth.step,
                    "compile_id": cid,
                    "attempt": meta.get("attempt"),
                    "function": m.get("co_name"),
                    "fail_type": m.get("fail_type"),
                    "cache_size": m.get("cache_size"),
                })
            if "artifact" in meta:
                name = (meta["artifact"] or {}).get("name", "")
                if any(k in name for k in self.CACHE_ARTIFACTS):
                    self.truth.data["observed_cache_events"].append(
                        {"step": self.truth.step, "compile_id": cid, "event": name})
        except Exception as e:  # never break the run being observed
            self.truth.note(f"trace tap: {type(e).__name__}: {e}")


class MessageTap(logging.Handler):
    """Log messages of the runtime that contain one of `keys`, kept in `truth.data[field]` with
    the step they were printed in (their first line, cut at 400 characters)."""

    def __init__(self, truth, field, keys, level, with_logger=False):
        super().__init__(level=level)
        self.truth, self.field, self.keys, self.with_logger = truth, field, keys, with_logger

    def emit(self, record):
        try:
            text = record.getMessage()
        except Exception:
            return
        if any(k in text for k in self.keys):
            row = {"step": self.truth.step, "message": text.splitlines()[0][:400]}
            if self.with_logger:
                row["logger"] = record.name
            self.truth.data[self.field].append(row)


def limit_tap(truth):
    """Dynamo's recompile-limit warning."""
    return MessageTap(truth, "observed_limit_hits", ("recompile_limit", "cache_size_limit"),
                      logging.WARNING)


def jax_tap(truth):
    """JAX's own compile and cache lines (jax_log_compiles, jax_explain_cache_misses, persistent
    cache hits)."""
    keys = ("Finished XLA compilation", "Finished tracing", "Compiling ", "TRACING CACHE MISS",
            "ersistent compilation cache", "cache hit", "cache miss")
    return MessageTap(truth, "observed_compiles", keys, logging.DEBUG, with_logger=True)


def install_jax_tap(truth):
    # JAX prints its compile lines through Python's last-resort handler (no handler of its own);
    # a handler added to its logger would silence that, so the last-resort one is added with it
    # and the console stays exactly as without the tap.
    logger = logging.getLogger("jax")
    if not logger.hasHandlers() and logging.lastResort is not None:
        logger.addHandler(logging.lastResort)
    logger.addHandler(jax_tap(truth))


def install_torch_taps(truth):
    logging.getLogger("torch.__trace").addHandler(TraceTap(truth))
    logging.getLogger("torch._dynamo").addHandler(limit_tap(truth))
