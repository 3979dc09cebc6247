"""The installed wheel: the binary inside it, the `rcf` command, and the Python API over a real
run (fixtures/real_runs/constant_counter: a Python int counter baked into torch.compile's graph,
four recompiles of cause `constant` at steps 2..5)."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import types
from importlib import metadata
from pathlib import Path
from typing import Any, Dict

import pytest

import rcf
from conftest import SOURCE_DIR

# glibc's own shared objects: the only ones the packaged binary may need.
GLIBC_LIBRARIES = {"libc.so.6", "libm.so.6", "ld-linux-x86-64.so.2", "libpthread.so.0",
                   "libdl.so.2", "librt.so.1"}


def test_the_package_is_the_installed_wheel() -> None:
    # Imported from the virtual environment's site-packages, not from the checkout's python/.
    assert Path(rcf.__file__).resolve().is_relative_to(Path(sys.prefix).resolve())
    assert sys.prefix != sys.base_prefix, "the tests run inside a virtual environment"
    assert metadata.version("rcf") == rcf.__version__


def test_binary_needs_nothing_but_glibc() -> None:
    binary = rcf.binary_path()
    assert os.access(binary, os.X_OK)
    dynamic = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True,
                             check=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)
    assert "libc.so.6" in needed
    assert set(needed) <= GLIBC_LIBRARIES, f"needs more than glibc: {needed}"
    # No RPATH/RUNPATH pointing at the build machine either.
    assert "RPATH" not in dynamic and "RUNPATH" not in dynamic
    # The interpreter is the standard x86-64 one every glibc distribution has.
    headers = subprocess.run(["readelf", "-l", binary], capture_output=True, text=True,
                             check=True).stdout
    assert "/lib64/ld-linux-x86-64.so.2" in headers


def glibc_floor(binary: str) -> str:
    symbols = subprocess.run(["objdump", "-T", binary], capture_output=True, text=True,
                             check=True).stdout
    versions = {(int(a), int(b)) for a, b in re.findall(r"\bGLIBC_(\d+)\.(\d+)", symbols)}
    major, minor = max(versions)
    return f"{major}.{minor}"


def test_wheel_tag_and_readme_name_the_binarys_glibc_floor() -> None:
    floor = glibc_floor(rcf.binary_path())
    wheel = metadata.distribution("rcf").read_text("WHEEL") or ""
    tag = f"py3-none-manylinux_{floor.replace('.', '_')}_x86_64"
    assert f"Tag: {tag}" in wheel.splitlines(), wheel
    assert "Root-Is-Purelib: false" in wheel
    for page in ("README.md", "docs/python.md", "python/README.md"):
        text = (SOURCE_DIR / page).read_text()
        assert f"glibc {floor} or newer" in text, f"{page} must state the floor glibc {floor}"


def test_rcf_command_and_python_m_rcf_run_the_binary(tmp_path: Path) -> None:
    command = shutil.which("rcf")
    assert command is not None
    assert Path(command).parent == Path(sysconfig.get_path("scripts"))
    for argv in ([command], [sys.executable, "-m", "rcf"]):
        done = subprocess.run(argv + ["--version"], capture_output=True, text=True)
        # The binary's version is the package's.
        assert (done.returncode, done.stdout.strip()) == (0, f"rcf {rcf.__version__}")
        # Exit codes and messages are the binary's own.
        bad = subprocess.run(argv + ["explain", "--db", str(tmp_path / "none.db")],
                             capture_output=True, text=True)
        assert bad.returncode == 2
        assert bad.stderr.startswith("rcf: error: ") and "none.db" in bad.stderr
        usage = subprocess.run(argv + ["report", "--help"], capture_output=True, text=True)
        assert usage.returncode == 0 and "Usage: rcf report" in usage.stdout


def test_ingest_returns_rcfs_summary(tmp_path: Path, real_run: Path) -> None:
    db = tmp_path / "s.db"
    summary = rcf.ingest([real_run / "logs", real_run / "stderr.log"], db=db, lane="l", run="r")
    assert re.fullmatch(r"ingested 2 files \(dynamo_text 1, torch_trace 1\), \d+ lines, .*, "
                        r"0 rejected lines\n", summary), summary
    # A second ingest of the same file is a no-op (the content hash), and says so.
    again = rcf.ingest(str(real_run / "stderr.log"), db=str(db), lane="l", run="r")
    assert "1 already ingested (unchanged)" in again
    # format= forces the format: the console read as a plain text log holds no compiles.
    plain = tmp_path / "plain.db"
    forced = rcf.ingest(real_run / "stderr.log", db=plain, lane="plain", run="r",
                        format="plain_text")
    assert forced.startswith("ingested 1 file (plain_text 1), ")
    assert rcf.query(plain, "SELECT count(*) AS n FROM compiles") == [{"n": 0}]


def test_explain_is_exactly_explain_json(store: str, truth: Dict[str, Any]) -> None:
    explanation = rcf.explain(store)
    assert isinstance(explanation, dict)
    cli = subprocess.run([rcf.binary_path(), "explain", "--db", store, "--json"],
                         capture_output=True, text=True, check=True).stdout
    assert explanation == json.loads(cli)
    (run,) = explanation["runs"]
    assert (run["lane"], run["run"]) == ("counter", "r1")
    intended = [c for c in truth["intended"] if c["cause"] != "first_compile"]
    assert run["causes"] == {"constant": len(intended)}
    assert run["compiles"] == len(truth["intended"])
    assert run["fix_first"][0]["cause"] == "constant"
    assert "STEP_COUNTER" in run["fix_first"][0]["subject"]
    assert rcf.explain(store, lane="counter") == explanation
    with pytest.raises(rcf.RcfError, match="no lane named 'no-such-lane'"):
        rcf.explain(store, lane="no-such-lane")


def test_recompiles_match_what_the_run_did(store: str, truth: Dict[str, Any]) -> None:
    rows = rcf.query(store, "recompiles")
    intended = [(c["step"], c["cause"]) for c in truth["intended"] if c["cause"] != "first_compile"]
    assert [(r["step"], r["cause"]) for r in rows] == intended
    assert list(rows[0])[:4] == ["run_id", "lane", "run", "ordinal"]  # the view's column order
    assert all(r["lane"] == "counter" and r["evidence"] for r in rows)
    picked = rcf.query(store, "SELECT step, cause FROM recompiles WHERE step >= 4 ORDER BY step")
    assert picked == [{"step": 4, "cause": "constant"}, {"step": 5, "cause": "constant"}]
    assert rcf.query(store, "SELECT 1.5 AS x, NULL AS y, 'a' AS z") == [
        {"x": 1.5, "y": None, "z": "a"}]
    assert rcf.query(store, "SELECT * FROM recompiles WHERE 0") == []


def test_query_as_dataframe(store: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # pandas is not a dependency: a stand-in records what rcf hands it.
    handed = []
    frame = types.SimpleNamespace(from_records=lambda rows: handed.append(rows) or "frame")
    monkeypatch.setitem(sys.modules, "pandas", types.SimpleNamespace(DataFrame=frame))
    assert rcf.query(store, "recompiles", dataframe=True) == "frame"
    assert handed == [rcf.query(store, "recompiles")]
    # Without pandas, asking for a DataFrame says what to install.
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="needs pandas"):
        rcf.query(store, "recompiles", dataframe=True)


def test_errors_carry_rcfs_message_and_exit_code(tmp_path: Path, store: str) -> None:
    with pytest.raises(rcf.RcfError) as missing:
        rcf.explain(tmp_path / "missing.db")
    assert missing.value.returncode == 2
    assert missing.value.message.startswith("rcf: error: ")
    assert "missing.db" in missing.value.message
    assert "(exit code 2)" in str(missing.value)
    assert missing.value.command[:2] == ["rcf", "explain"]
    for sql, words in (("DELETE FROM source", "only statements that read"),
                       ("SELECT 1; SELECT 2", "more than one SQL statement"),
                       ("no_such_view", "no view or table named 'no_such_view'"),
                       ("SELECT nothing FROM", "cannot prepare")):
        with pytest.raises(rcf.RcfError) as bad:
            rcf.query(store, sql)
        assert bad.value.returncode == 2 and words in bad.value.message, bad.value.message
    assert rcf.query(store, "SELECT count(*) AS n FROM runs") == [{"n": 1}]  # nothing deleted
    with pytest.raises(rcf.RcfError) as usage:
        rcf.ingest([], db=tmp_path / "x.db")
    assert usage.value.returncode == 2
    # run() hands back any command's result; check=False leaves the exit code to the caller.
    gate = rcf.run(["gate", "--db", store, "--max-programs", "1"], check=False)
    assert gate.returncode == 1 and "FAIL" in gate.stdout


def test_report_html_and_inline_display(store: str) -> None:
    page = rcf.report_html(store)
    assert page.lstrip().lower().startswith("<!doctype html>")
    assert "counter" in page and "constant" in page
    assert page == rcf.report_html(store, lane="counter")
    shown = rcf.report(store)._repr_html_()
    assert shown.startswith('<iframe class="rcf-report" sandbox="allow-scripts"')
    srcdoc = re.search(r'srcdoc="([^"]*)"', shown)
    assert srcdoc is not None and html.unescape(srcdoc.group(1)) == page
    explained = rcf.explain(store)._repr_html_()
    text = rcf.explain_text(store)
    assert explained == '<pre class="rcf-explain">' + html.escape(text) + "</pre>"
    assert text.startswith("== lane counter / run r1")
    # A store that went away after the explanation was read: the display says so.
    gone = rcf.Explanation({}, str(Path(store).with_name("gone.db")), None, False)
    assert gone._repr_html_().startswith('<pre class="rcf-explain">rcf: error: no database at ')


def test_report_save(store: str, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    rcf.report(store, lane="counter").save(out)
    assert out.read_text() == rcf.report_html(store, lane="counter")
