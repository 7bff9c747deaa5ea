"""Issue 55, an interrupt that reads as a crash: SIGINT ("Interrupt kernel" in a notebook, Ctrl-C) while a
compiled (numba) kernel runs surfaces as ``KeyboardInterrupt`` from every public call, and the evaluation stays
usable: a second call computes what an evaluation never interrupted computes.

Before: numba's dispatcher raised ``SystemError: CPUDispatcher(...) returned a result with an exception set``
(the interrupt as its context) out of ``Evaluation(...)``, ``results()`` and the exports; only the command line
mapped it to an interrupt.

A timer thread sends SIGINT to this process shortly after a compiled kernel is entered. The kernel is wrapped so
that the same call runs again and again until the signal arrives (each run gives the same arrays): the signal
then lands inside compiled code, not in the Python between two runs, whatever the machine's speed; each test
checks that it did.
"""

from __future__ import annotations

import signal
import threading
import time
from typing import Any

import numpy as np
import pandas as pd
import pytest
from _support.evaluation import evaluation

from synthpriv_report import _compiled
from synthpriv_report.matching import identity
from synthpriv_report.neighbors import search

pytestmark = [
    pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="this platform cannot send a signal to a thread"),
    pytest.mark.skipif(not _compiled.COMPILED, reason="the compiled kernels are off (no numba, or "
                                                      "SYNTHPRIV_NO_NUMBA is set)"),
]

METRICS = ["dcr", "exact_copies", "holdout_dcr_share", "membership_inference"]


@pytest.fixture(autouse=True)
def _sigint_raises():
    """Python's own SIGINT handler for each test: a test process started in the background (``cmd &`` from a
    script, ``nohup``) inherits SIGINT ignored, and Python then installs no handler, so the signal these tests
    send would be dropped instead of raising ``KeyboardInterrupt``."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous if previous is not None else signal.SIG_DFL)


def _sets(seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)

    def draw(n: int) -> pd.DataFrame:
        return pd.DataFrame({"age": rng.integers(18, 90, n).astype(float), "income": rng.normal(0.0, 1.0, n),
                             "region": rng.choice(["north", "south", "east", "west"], n)})

    return draw(3000), draw(2000), draw(1000)


def _interrupt_inside(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> dict[str, BaseException]:
    """Wrap the compiled kernel ``module.name``: its first call runs the kernel again and again while a timer
    thread sends SIGINT to the main thread 50 ms in; later calls run it once. Returns what the kernel raised
    (key ``"kernel"``), set only when the signal arrived while the kernel ran."""
    kernel = getattr(module, name)
    seen: dict[str, BaseException] = {}
    armed = [True]

    def run(*args: Any) -> Any:
        if not armed[0]:
            return kernel(*args)
        armed[0] = False
        timer = threading.Timer(0.05, signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT))
        deadline = time.monotonic() + 30.0
        timer.start()
        try:
            while True:
                try:
                    out = kernel(*args)
                except BaseException as exc:
                    seen["kernel"] = exc
                    raise
                if time.monotonic() > deadline:  # pragma: no cover - the signal never came
                    return out
        finally:
            timer.cancel()

    monkeypatch.setattr(module, name, run)
    return seen


def _numbers(res) -> dict[str, Any]:
    return {m: (res[m].value, res[m].interval, res[m].level) for m in METRICS}


@pytest.fixture(scope="module")
def uninterrupted() -> dict[str, Any]:
    T, S, H = _sets()
    return _numbers(evaluation(T, S, H, metrics=METRICS, random_state=0).results())


def test_an_interrupt_during_a_search_kernel_raises_keyboard_interrupt_from_results(monkeypatch, uninterrupted):
    T, S, H = _sets()
    ev = evaluation(T, S, H, metrics=METRICS, random_state=0)
    seen = _interrupt_inside(monkeypatch, search, "_knn_batch")
    with pytest.raises(BaseException) as caught:
        ev.results()
    assert "kernel" in seen, "the signal did not arrive while the compiled kernel ran"
    assert caught.type is KeyboardInterrupt
    monkeypatch.undo()
    # the caches hold nothing half made: the same numbers as an evaluation never interrupted
    assert _numbers(ev.results()) == uninterrupted


def test_an_interrupt_while_the_data_are_prepared_raises_keyboard_interrupt_from_evaluation(monkeypatch):
    T, S, H = _sets()
    seen = _interrupt_inside(monkeypatch, identity, "_row_hashes_compiled")
    with pytest.raises(BaseException) as caught:
        evaluation(T, S, H, metrics=METRICS, random_state=0)
    assert "kernel" in seen, "the signal did not arrive while the compiled kernel ran"
    assert caught.type is KeyboardInterrupt


@pytest.mark.parametrize("export", ["to_json", "to_html"])
def test_an_interrupt_during_an_export_raises_keyboard_interrupt_and_writes_no_file(monkeypatch, tmp_path,
                                                                                  uninterrupted, export):
    T, S, H = _sets()
    ev = evaluation(T, S, H, metrics=METRICS, random_state=0)
    target = tmp_path / f"report.{export[3:]}"
    seen = _interrupt_inside(monkeypatch, search, "_knn_batch")
    with pytest.raises(BaseException) as caught:
        getattr(ev, export)(target)
    assert "kernel" in seen, "the signal did not arrive while the compiled kernel ran"
    assert caught.type is KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    getattr(ev, export)(target)
    assert target.is_file()
    assert _numbers(ev.results()) == uninterrupted
