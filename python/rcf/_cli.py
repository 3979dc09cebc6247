"""The ``rcf`` command of the wheel: replaces the Python process with the binary.

The process becomes the binary (``os.execv``), so its exit code, signals, standard streams and a
terminal's size are the binary's own; Python costs only its start-up.
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn


def main() -> NoReturn:
    """Runs the packaged rcf binary with this process's arguments."""
    from rcf import RcfError, binary_path

    try:
        path = binary_path()
    except RcfError as e:
        sys.stderr.write(f"rcf: error: {e.message}\n")
        sys.exit(e.returncode)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(path, ["rcf"] + sys.argv[1:])
