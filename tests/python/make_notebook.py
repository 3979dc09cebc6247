"""Writes examples/rcf_in_jupyter.ipynb with the outputs its code really produces.

The notebook's cells are below; each code cell runs in one namespace (as in a Jupyter kernel),
in a scratch directory laid out like the checkout (examples/ and a link to fixtures/), and its
printed text and displayed value (text/html from `_repr_html_`, text/plain from `repr`) become its
outputs, as nbformat 4. test_notebook.py checks the committed notebook is what this writes;
after a change to rcf's output, write it anew:

    build/python/venv/bin/python tests/python/make_notebook.py --write
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Tuple

SOURCE_DIR = Path(__file__).resolve().parents[2]
NOTEBOOK = SOURCE_DIR / "examples" / "rcf_in_jupyter.ipynb"

CELLS: List[Tuple[str, str]] = [
    ("markdown", """# rcf in Jupyter

Why did `torch.compile` recompile? This notebook ingests a real run from the rcf repository
(`fixtures/real_runs/constant_counter`: a Python `int` counter read inside the compiled step),
asks rcf why it recompiled, queries the store and shows the HTML report inline.

Install the package first: `pip install rcf-*.whl` (see `docs/python.md`). Its outputs were
written by `tests/python/make_notebook.py`, run by the test suite."""),
    ("code", """import rcf

run_dir = "../fixtures/real_runs/constant_counter/run1"
print(rcf.ingest([f"{run_dir}/logs", f"{run_dir}/stderr.log"],
                 db="rcf.db", lane="constant-counter", run="run1"), end="")"""),
    ("markdown", """`rcf.explain` returns exactly `rcf explain --json` as a dict; displayed, it shows
the text `rcf explain` prints: what to fix first, each site, its causes and evidence."""),
    ("code", """explanation = rcf.explain("rcf.db")
explanation["runs"][0]["causes"]"""),
    ("code", "explanation"),
    ("markdown", """The public views of the store are the API (`docs/schema.md`): `rcf.query` takes a
view name or one read-only `SELECT` and returns a list of dicts (`dataframe=True` for pandas)."""),
    ("code", """for row in rcf.query("rcf.db", "SELECT step, cause, program_key FROM recompiles"):
    print(row)"""),
    ("markdown", """The single-file HTML report, inline (`rcf.report_html` returns it as a string;
`.save("report.html")` writes it)."""),
    ("code", """rcf.report("rcf.db", height=560)"""),
]


def run_cell(source: str, namespace: Dict[str, Any], count: int) -> List[Dict[str, Any]]:
    tree = ast.parse(source)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    printed = io.StringIO()
    value = None
    with contextlib.redirect_stdout(printed):
        exec(compile(tree, "<cell>", "exec"), namespace)
        if last is not None:
            value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace)
    outputs: List[Dict[str, Any]] = []
    if printed.getvalue():
        outputs.append({"name": "stdout", "output_type": "stream",
                        "text": printed.getvalue().splitlines(keepends=True)})
    if value is not None:
        data = {"text/plain": repr(value).splitlines(keepends=True)}
        if hasattr(value, "_repr_html_"):
            data["text/html"] = value._repr_html_().splitlines(keepends=True)
        outputs.append({"data": data, "execution_count": count, "metadata": {},
                        "output_type": "execute_result"})
    return outputs


def lines(text: str) -> List[str]:
    return text.splitlines(keepends=True)


def render() -> str:
    """The notebook, executed, as the JSON Jupyter writes (one-space indent)."""
    cells = []
    namespace: Dict[str, Any] = {"__name__": "__main__"}
    old = os.getcwd()
    with tempfile.TemporaryDirectory() as scratch:
        (Path(scratch) / "examples").mkdir()
        (Path(scratch) / "fixtures").symlink_to(SOURCE_DIR / "fixtures")
        os.chdir(Path(scratch) / "examples")
        try:
            count = 0
            for kind, source in CELLS:
                if kind == "markdown":
                    cells.append({"cell_type": "markdown", "metadata": {}, "source": lines(source)})
                    continue
                count += 1
                cells.append({"cell_type": "code", "execution_count": count, "metadata": {},
                              "outputs": run_cell(source, namespace, count),
                              "source": lines(source)})
        finally:
            os.chdir(old)
    notebook = {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 4,
    }
    return json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    text = render()
    if sys.argv[1:] == ["--write"]:
        NOTEBOOK.write_text(text)
        print(f"wrote {NOTEBOOK}")
    else:
        sys.stdout.write(text)
