#!/usr/bin/env bash
# The Python package's tests (docs/python.md): builds the wheel offline from the checkout with the
# portable binary of BUILD_DIR (default build/: scripts/build.sh, RCF_PORTABLE=ON), installs it
# into a fresh virtual environment and runs tests/python there with pytest. Results:
# BUILD_DIR/python/pytest.xml (scripts/test_summary.py counts them).
# usage: scripts/test_python.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
binary=$build/rcf_portable
if [ ! -x "$binary" ]; then
  echo "test_python: no $binary (configure with -DRCF_PORTABLE=ON)" >&2
  exit 2
fi
# A Python with what the build and the tests need: setuptools 61 or newer, wheel, venv, pip,
# pytest and nbformat. Debian's (/usr/bin/python3, from scripts/install_deps.sh) first: the
# python3 first on the PATH may be another (pyenv, conda) that lacks them, and nothing outside
# Debian's archive is installed.
python=""
for candidate in /usr/bin/python3 "$(command -v python3 || true)"; do
  [ -n "$candidate" ] && [ -x "$candidate" ] || continue
  if "$candidate" - <<'PY' 2>/dev/null; then
import importlib.util, nbformat, pytest, setuptools, venv, wheel
old = int(setuptools.__version__.split(".")[0]) < 61
raise SystemExit(old or importlib.util.find_spec("pip") is None)
PY
    python=$candidate
    break
  fi
done
if [ -z "$python" ]; then
  echo "test_python: no python3 with setuptools>=61, wheel, venv, pip, pytest and nbformat" \
    "(scripts/install_deps.sh installs Debian's)" >&2
  exit 2
fi
out=$build/python
# setuptools' build folder (setup.cfg) afresh too, so no file of an earlier build is packaged.
rm -rf "$out" build-python/setuptools
mkdir -p "$out"
echo "test_python: wheel with $binary, built by $python ($("$python" --version 2>&1))"
RCF_BINARY=$binary "$python" -m pip wheel --no-build-isolation --no-deps --no-index -q \
  -w "$out/dist" .
wheel=$(ls "$out"/dist/rcf-*.whl)
echo "test_python: $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB)"
# --system-site-packages: the venv sees Debian's pytest and pip; rcf itself comes from the wheel
# only. --without-pip: the venv's Python runs Debian's pip, which installs into the venv, so the
# venv is made in 0.1 s instead of the 5-9 s that copying pip into it takes on the 2-core VM.
"$python" -m venv --without-pip --system-site-packages "$out/venv"
"$out/venv/bin/python" -m pip install --no-index --no-deps -q "$wheel"
# The venv's bin/ first on the PATH, as `activate` does: the tests run the `rcf` command from it.
PATH="$(cd "$out/venv/bin" && pwd):$PATH" "$out/venv/bin/python" -m pytest -q -p no:cacheprovider \
  --junitxml="$out/pytest.xml" tests/python
