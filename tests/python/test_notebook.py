"""The example notebook's outputs are what its code produces with this rcf
(tests/python/make_notebook.py runs it; nothing in it is typed by hand)."""

from __future__ import annotations

import json

import nbformat

import make_notebook


def test_committed_notebook_is_what_its_code_produces() -> None:
    fresh = make_notebook.render()
    committed = make_notebook.NOTEBOOK.read_text()
    assert committed == fresh, (
        "examples/rcf_in_jupyter.ipynb is stale: rewrite it with "
        "`python tests/python/make_notebook.py --write` in the wheel's venv (docs/python.md)")


def test_notebook_is_valid_nbformat_as_jupyter_writes_it() -> None:
    # Valid against nbformat 4's schema, and byte for byte what Jupyter's writer makes of it, so
    # opening and saving it in Jupyter changes nothing.
    text = make_notebook.NOTEBOOK.read_text()
    notebook = nbformat.reads(text, as_version=4)
    nbformat.validate(notebook)
    assert (notebook.nbformat, notebook.nbformat_minor) == (4, 4)
    assert nbformat.writes(notebook) + "\n" == text


def test_notebook_shows_the_explanation_and_the_report() -> None:
    cells = json.loads(make_notebook.NOTEBOOK.read_text())["cells"]
    outputs = [o for c in cells if c["cell_type"] == "code" for o in c["outputs"]]
    text = "".join("".join(o.get("text", [])) for o in outputs)
    assert "ingested 2 files" in text and "'cause': 'constant'" in text
    html = ["".join(o["data"]["text/html"]) for o in outputs if "text/html" in o.get("data", {})]
    assert len(html) == 2
    assert html[0].startswith('<pre class="rcf-explain">== lane constant-counter / run run1')
    assert html[1].startswith('<iframe class="rcf-report"')
