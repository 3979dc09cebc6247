"""rcf from Python: a thin layer over the ``rcf`` binary that this package carries.

The binary does the work (reading logs, the store, the analysis, every rendering); each function
here runs it, reads what it prints, and raises :class:`RcfError` with its own message and exit
code when it fails. ``python3 -m rcf ARGS`` and the ``rcf`` command run the binary itself.

    import rcf
    rcf.ingest(["run1/logs", "run1/stderr.log"], db="rcf.db", lane="baseline", run="r1")
    rcf.explain("rcf.db")                     # dict: exactly `rcf explain --json`
    rcf.query("rcf.db", "recompiles")         # list of dicts (a view, or one SELECT)
    rcf.report("rcf.db")                      # the HTML report, shown inline in Jupyter

See docs/python.md in the rcf repository.
"""

from __future__ import annotations

import html
import json
import os
import subprocess
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Sequence, Union

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = [
    "Explanation",
    "RcfError",
    "Report",
    "binary_path",
    "explain",
    "explain_text",
    "ingest",
    "query",
    "report",
    "report_html",
    "run",
]

__version__ = "0.1.0"

PathLike = Union[str, "os.PathLike[str]"]


class RcfError(Exception):
    """The binary failed: ``message`` is what it printed on stderr, ``returncode`` its exit code.

    Exit codes (docs/usage.md): 1 a gate violated or a restart not proven, 2 a usage or input
    error, 3 an internal error (a bug in rcf).
    """

    def __init__(self, message: str, returncode: int, command: Sequence[str], stderr: str = ""):
        super().__init__(message)
        self.message = message
        self.returncode = returncode
        self.command = list(command)
        self.stderr = stderr

    def __str__(self) -> str:
        return f"{self.message} (exit code {self.returncode})"


def binary_path() -> str:
    """The path of the ``rcf`` binary inside this package."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_bin", "rcf")
    if not os.path.isfile(path):
        raise RcfError(f"the rcf binary is missing from the package ({path}); reinstall the "
                       "wheel", 2, [path])
    return path


def run(args: Sequence[PathLike], *, check: bool = True) -> "subprocess.CompletedProcess[str]":
    """Runs ``rcf ARGS`` and returns its result (stdout and stderr as text).

    With ``check`` (the default) an exit code other than 0 raises :class:`RcfError`.
    """
    return _run_binary(args, check=check)


def _run_binary(args: Sequence[PathLike], *,
                check: bool = True) -> "subprocess.CompletedProcess[str]":
    command = [binary_path()] + [os.fspath(a) for a in args]
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          encoding="utf-8", errors="replace", check=False)
    if check and done.returncode != 0:
        message = done.stderr.strip() or f"rcf {' '.join(command[1:])} failed"
        raise RcfError(message, done.returncode, ["rcf"] + command[1:], done.stderr)
    return done


def _paths(paths: Union[PathLike, Iterable[PathLike]]) -> List[str]:
    if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
        return [os.fspath(paths)]  # type: ignore[arg-type]
    return [os.fspath(p) for p in paths]  # type: ignore[union-attr]


def _lane(lane: Optional[str]) -> List[str]:
    return ["--lane", lane] if lane is not None else []


def ingest(paths: Union[PathLike, Iterable[PathLike]], db: PathLike = "rcf.db",
           lane: Optional[str] = None, run: Optional[str] = None, format: Optional[str] = None,
           *, host: Optional[str] = None, step_pattern: Optional[str] = None,
           strict: bool = False) -> str:
    """Ingests log files, ``.gz`` files or directories into the store ``db`` (``rcf ingest``).

    ``lane`` names the configuration, ``run`` the execution; ``format`` forces one format
    (``torch_trace``, ``dynamo_text``, ...; by default each file's is sniffed). Returns the
    summary rcf prints (``ingested N files (...), N lines, ...``).
    """
    args: List[str] = ["ingest", "--db", os.fspath(db)] + _lane(lane)
    for flag, value in (("--run", run), ("--format", format), ("--host", host),
                        ("--step-pattern", step_pattern)):
        if value is not None:
            args += [flag, value]
    if strict:
        args.append("--strict")
    names = _paths(paths)
    if not names:
        raise RcfError("rcf: error: ingest needs at least one path", 2, ["rcf"] + args)
    return _run_binary(args + ["--"] + names).stdout


class Explanation(Dict[str, Any]):
    """``rcf explain --json`` as a dict, shown in Jupyter as ``rcf explain``'s text."""

    def __init__(self, data: Dict[str, Any], db: str, lane: Optional[str], all: bool):
        super().__init__(data)
        self._db, self._lane, self._all = db, lane, all

    @property
    def text(self) -> str:
        """The same explanation as ``rcf explain`` writes it for a terminal."""
        return explain_text(self._db, self._lane, all=self._all)

    def _repr_html_(self) -> str:
        try:
            text = self.text
        except RcfError as e:  # the store went away since: say so instead of failing the display
            text = e.message
        return '<pre class="rcf-explain">' + html.escape(text) + "</pre>"


def explain(db: PathLike = "rcf.db", lane: Optional[str] = None, *,
            all: bool = False) -> Explanation:
    """Why each lane recompiled: exactly the JSON of ``rcf explain --json`` (a dict).

    ``lane`` keeps one lane; ``all`` lists every cause, not only the first ones. The dict
    displays in Jupyter as the text ``rcf explain`` prints.
    """
    args = ["explain", "--db", os.fspath(db), "--json"] + _lane(lane) + (["--all"] if all else [])
    return Explanation(json.loads(_run_binary(args).stdout), os.fspath(db), lane, all)


def explain_text(db: PathLike = "rcf.db", lane: Optional[str] = None, *, all: bool = False) -> str:
    """The explanation as ``rcf explain`` prints it (text)."""
    args = ["explain", "--db", os.fspath(db)] + _lane(lane) + (["--all"] if all else [])
    return _run_binary(args).stdout


def query(db: PathLike, sql_or_view: str, *,
          dataframe: bool = False) -> Union[List[Dict[str, Any]], "pandas.DataFrame"]:
    """The rows of a public view (``"recompiles"``) or of one read-only SELECT (``rcf query``).

    Returns a list of dicts, one per row with the columns as keys in order; with
    ``dataframe=True``, a pandas DataFrame (pandas must be installed). The public views and
    their columns: docs/schema.md.
    """
    rows: List[Dict[str, Any]] = json.loads(
        _run_binary(["query", "--db", os.fspath(db), "--", sql_or_view]).stdout)
    if not dataframe:
        return rows
    try:
        import pandas as pd
    except ImportError as e:
        raise ImportError("rcf.query(..., dataframe=True) needs pandas: pip install pandas") from e
    return pd.DataFrame.from_records(rows)


def report_html(db: PathLike = "rcf.db", lane: Optional[str] = None) -> str:
    """The self-contained HTML report (``rcf report --format html``) as a string."""
    args = ["report", "--db", os.fspath(db), "--format", "html", "-o", "-"] + _lane(lane)
    return _run_binary(args).stdout


class Report:
    """An HTML report; shown inline in Jupyter, in a frame of its own (its styles and script
    stay inside it). ``html`` is the document, ``save(path)`` writes it."""

    def __init__(self, html_text: str, height: int = 720):
        self.html = html_text
        self.height = height

    def save(self, path: PathLike) -> None:
        """Writes the report to ``path`` (one file that opens offline in a browser)."""
        with open(os.fspath(path), "w", encoding="utf-8") as f:
            f.write(self.html)

    def _repr_html_(self) -> str:
        return ('<iframe class="rcf-report" sandbox="allow-scripts" style="width: 100%; '
                f'height: {int(self.height)}px; border: 0" srcdoc="'
                + html.escape(self.html, quote=True) + '"></iframe>')

    def __repr__(self) -> str:
        return f"<rcf.Report: {len(self.html)} characters of HTML>"


def report(db: PathLike = "rcf.db", lane: Optional[str] = None, *, height: int = 720) -> Report:
    """The HTML report as an object that Jupyter shows inline (``Report``)."""
    return Report(report_html(db, lane), height)
