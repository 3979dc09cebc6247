#!/usr/bin/env python3
"""The closing lines of scripts/test.sh: each phase's wall time and the tests each pass ran.

usage: test_summary.py PHASE_LOG
PHASE_LOG holds lines `NAME EPOCH_SECONDS`, one written as each phase ends (the first: `start`).
The normal pass's count comes from CTest's summary in build/ctest.log; the Python tests' from
pytest's JUnit XML, build/python/pytest.xml (scripts/test_python.sh); the sanitizer pass's from
the GoogleTest XML files its shards write under build-asan/test-results/.
"""
import glob
import re
import sys
import xml.etree.ElementTree as ET

NAMES = {
    "install": "install (apt, npm)",
    "build": "build (build/)",
    "tests": "tests (build/)",
    "python": "Python wheel, venv, tests",
    "asan_build": "ASan+UBSan build (build-asan/)",
    "asan_tests": "ASan+UBSan tests (build-asan/)",
}


def phases(path):
    marks = [line.split() for line in open(path) if line.strip()]
    return [(name, int(t) - int(prev)) for (_, prev), (name, t) in zip(marks, marks[1:])], \
        int(marks[-1][1]) - int(marks[0][1])


def normal_counts():
    try:
        text = open("build/ctest.log", errors="replace").read()
    except OSError:
        return None
    m = re.search(r"(\d+)% tests passed, (\d+) tests failed out of (\d+)", text)
    return (int(m.group(3)) - int(m.group(2)), int(m.group(2))) if m else None


def python_counts():
    try:
        root = ET.parse("build/python/pytest.xml").getroot()
    except (OSError, ET.ParseError):
        return None
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    run = failed = 0
    for s in suites:
        run += int(s.get("tests", 0)) - int(s.get("skipped", 0))
        failed += int(s.get("failures", 0)) + int(s.get("errors", 0))
    return run - failed, failed


def asan_counts():
    files = glob.glob("build-asan/test-results/*.xml")
    if not files:
        return None
    run = failed = 0
    for f in files:
        root = ET.parse(f).getroot()
        run += int(root.get("tests", 0)) - int(root.get("disabled", 0)) - int(root.get("skipped", 0))
        failed += int(root.get("failures", 0)) + int(root.get("errors", 0))
    return run - failed, failed


def main():
    steps, total = phases(sys.argv[1])
    print("test.sh phases (wall time):")
    for name, seconds in steps:
        print(f"  {NAMES.get(name, name):34} {seconds // 60:3d} min {seconds % 60:02d} s")
    print(f"  {'total':34} {total // 60:3d} min {total % 60:02d} s")
    ran = {name for name, _ in steps}
    normal = normal_counts() if "tests" in ran else None
    python = python_counts() if "python" in ran else None
    asan = asan_counts() if "asan_tests" in ran else None
    passed = failed = 0
    passes = (("normal pass", normal), ("Python tests", python), ("ASan+UBSan pass", asan))
    for label, counts in passes:
        if counts:
            print(f"  {label}: {counts[0]} tests passed, {counts[1]} failed")
            passed, failed = passed + counts[0], failed + counts[1]
    print(f"{passed} passed, {failed} failed")


if __name__ == "__main__":
    main()
