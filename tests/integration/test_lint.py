"""The style and type checks configured in pyproject.toml run with the tests: ruff over the package, the tests
and the benchmarks; mypy (strict) over the base modules."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed (pip install -e .[test])")
def test_ruff_finds_nothing() -> None:
    run = subprocess.run(["ruff", "check", "synthpriv_report", "tests", "benchmarks"], cwd=ROOT,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]


def test_mypy_strict_on_the_base_modules() -> None:
    pytest.importorskip("mypy", reason="mypy is not installed (pip install -e .[test])")
    run = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
