"""Builds the rcf wheel: the package in python/rcf plus the self-contained rcf binary.

The metadata is in pyproject.toml. This file adds the binary (docs/python.md):
- RCF_BINARY=PATH takes a binary already built (scripts/test_python.sh passes build/rcf_portable);
- otherwise CMake builds the target rcf_portable into build-python/cmake (RCF_WHEEL_BUILD_DIR),
  with CMAKE_BUILD_PARALLEL_LEVEL jobs (default: one per core).
The binary is stripped into the package as rcf/_bin/rcf. It must need no shared library but
glibc's (a wheel with the dynamically linked build/rcf would not run elsewhere), and the wheel is
tagged manylinux_2_NN_x86_64 with 2.NN the newest glibc symbol version it uses.
"""

import os
import platform
import re
import shutil
import subprocess
import sys

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70 (Debian 12): the wheel package's command
    from wheel.bdist_wheel import bdist_wheel

ROOT = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(ROOT, "build-python"), exist_ok=True)

# The shared libraries of glibc itself; anything else in the binary's NEEDED list is refused.
GLIBC_LIBRARIES = {"libc.so.6", "libm.so.6", "ld-linux-x86-64.so.2", "libpthread.so.0",
                   "libdl.so.2", "librt.so.1"}


def log(message):
    print(f"rcf setup.py: {message}", file=sys.stderr, flush=True)


def build_binary():
    """Builds rcf_portable with CMake (Ninja when installed) and returns its path."""
    build_dir = os.environ.get("RCF_WHEEL_BUILD_DIR", os.path.join(ROOT, "build-python", "cmake"))
    configure = ["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                 "-DRCF_PORTABLE=ON", "-DRCF_BUILD_TESTS=OFF", "-DRCF_BUILD_BENCH=OFF"]
    if shutil.which("ninja") and not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
        configure += ["-G", "Ninja"]
    log("building rcf_portable in " + build_dir)
    subprocess.check_call(configure)
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
    subprocess.check_call(["cmake", "--build", build_dir, "--target", "rcf_portable", "--parallel",
                           jobs])
    return os.path.join(build_dir, "rcf_portable")


def needed_libraries(binary):
    """The NEEDED entries of the binary's dynamic section (readelf -d)."""
    out = subprocess.check_output(["readelf", "-d", binary], text=True)
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def glibc_floor(binary):
    """The newest GLIBC_2.N symbol version the binary's dynamic symbols need, as (2, N)."""
    out = subprocess.check_output(["objdump", "-T", binary], text=True)
    versions = {(int(a), int(b)) for a, b in re.findall(r"\bGLIBC_(\d+)\.(\d+)", out)}
    return max(versions) if versions else (2, 17)


def check_portable(binary):
    foreign = [lib for lib in needed_libraries(binary) if lib not in GLIBC_LIBRARIES]
    if foreign:
        sys.exit(f"rcf setup.py: {binary} needs {', '.join(foreign)} besides glibc: build the "
                 "CMake target rcf_portable (-DRCF_PORTABLE=ON), not rcf")


class BuildPyWithBinary(build_py):
    """build_py, then the binary into the package as rcf/_bin/rcf (stripped)."""

    def run(self):
        super().run()
        source = os.environ.get("RCF_BINARY") or build_binary()
        source = os.path.abspath(source)
        if not os.path.isfile(source):
            sys.exit(f"rcf setup.py: no binary at {source} (RCF_BINARY)")
        check_portable(source)
        target_dir = os.path.join(self.build_lib, "rcf", "_bin")
        os.makedirs(target_dir, exist_ok=True)
        target = os.path.join(target_dir, "rcf")
        if os.path.exists(target):
            os.remove(target)
        subprocess.check_call(["strip", "--strip-all", "-o", target, source])
        os.chmod(target, 0o755)
        log(f"packaged {source} as {target} ({os.path.getsize(target)} bytes)")


class BinaryDistribution(Distribution):
    """A distribution with a compiled part: installed in platlib, not purelib."""

    def has_ext_modules(self):
        return True


class BdistWheelManylinux(bdist_wheel):
    """One wheel for every Python 3 on this architecture (x86-64: manylinux_2_NN_x86_64) with
    glibc at least the binary's floor."""

    def get_tag(self):
        binary = os.path.join(self.bdist_dir, "rcf", "_bin", "rcf")
        if not os.path.isfile(binary):
            binary = os.path.join(self.get_finalized_command("build_py").build_lib, "rcf", "_bin",
                                  "rcf")
        major, minor = glibc_floor(binary)
        return "py3", "none", f"manylinux_{major}_{minor}_{platform.machine()}"


setup(distclass=BinaryDistribution,
      cmdclass={"build_py": BuildPyWithBinary, "bdist_wheel": BdistWheelManylinux})
