"""Fixtures and settings shared by the whole test suite.

The suite is split by what a test needs:

- ``tests/unit``: no browser, no notebook run, no Adult-sized run, in folders that mirror the package's
  subpackages (``tests/unit/metrics/closeness`` for ``synthpriv_report/metrics/closeness``); the tests that take
  half a second or more carry the ``slow`` marker, so the fast part (``python -m pytest tests/unit -m "not slow"
  -q``) runs in under a minute of CPU time;
- ``tests/integration``: whole reports, exports to HTML/PDF/JSON, notebooks, the command line, Adult runs, Dask;
- ``tests/browser``: a headless Chromium (Selenium) or a real JupyterLab in it.

Tests under ``tests/integration`` and ``tests/browser`` carry the ``integration`` and ``browser`` markers from
their folder, so ``-m "not browser"`` or ``-m "not integration and not browser"`` select the same parts from the
repository root. Shared helpers live in ``tests/_support`` and are imported as ``_support.<module>``.
"""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path

# The golden numbers (tests/integration/test_numbers_unchanged.py) are compared bit for bit. OpenBLAS picks its
# kernels by the processor (DYNAMIC_ARCH): on a processor with AVX-512 it takes the SkylakeX kernels, whose sums
# run in another order than the Haswell (AVX2) kernels the numbers were recorded with, and the PCA of the projected
# space and the float32 classifiers move in their last bits. The suite pins the Haswell kernels, which every
# x86-64 processor of the last decade runs, before NumPy is first imported; a variable already set is left alone.
if platform.machine().lower() in ("x86_64", "amd64"):
    os.environ.setdefault("OPENBLAS_CORETYPE", "Haswell")

import pytest

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:  # the helpers in tests/_support, whichever folder a test lives in
    sys.path.insert(0, str(TESTS))

from _support.frames import Sets, tiny  # noqa: E402

_FOLDER_MARKERS = {"integration": "integration", "browser": "browser"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test under ``tests/integration`` or ``tests/browser`` with its folder's marker."""
    for item in items:
        try:
            part = Path(str(item.path)).resolve().relative_to(TESTS).parts[0]
        except ValueError:  # the package's own doctests
            continue
        if part in _FOLDER_MARKERS:
            item.add_marker(_FOLDER_MARKERS[part])


@pytest.fixture
def tiny_mixed() -> Sets:
    """The 5-row real, 4-row synthetic and 4-row holdout frames of :func:`_support.frames.tiny` (a fresh copy
    per test, so a test may modify them)."""
    return tiny()
