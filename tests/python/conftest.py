"""Shared fixtures of the Python package's tests (docs/python.md, "Tests").

They run in a fresh virtual environment where the wheel is installed (scripts/test_python.sh),
and read the checkout's fixtures beside them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict

import pytest

import rcf

SOURCE_DIR = Path(__file__).resolve().parents[2]
REAL_RUN = SOURCE_DIR / "fixtures" / "real_runs" / "constant_counter" / "run1"


@pytest.fixture(scope="session")
def real_run() -> Path:
    return REAL_RUN


@pytest.fixture(scope="session")
def truth() -> Dict[str, Any]:
    """What the constant_counter run really did (fixtures/real_runs/README.md)."""
    return json.loads((REAL_RUN / "truth.json").read_text())


@pytest.fixture(scope="session")
def store(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A store holding the constant_counter run as lane `counter`, run `r1`."""
    db = str(tmp_path_factory.mktemp("store") / "rcf.db")
    rcf.ingest([REAL_RUN / "logs", REAL_RUN / "stderr.log"], db=db, lane="counter", run="r1")
    return db


@pytest.fixture()
def in_tmp(tmp_path: Path):
    old = os.getcwd()
    os.chdir(tmp_path)
    yield tmp_path
    os.chdir(old)
