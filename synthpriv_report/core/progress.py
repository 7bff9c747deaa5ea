"""Progress bars for the long stages of an evaluation and its exports (one mechanism, used everywhere).

A bar names its stage and, where the stage counts steps (records searched, metrics computed), shows an ETA. Bars
come from ``tqdm.auto``: a widget in Jupyter, text on stderr in a terminal or the command line. A bar appears only
once its stage has run :data:`DELAY` seconds, so short stages print nothing, and it is removed when its stage
ends. Everything here is a no-op with ``enabled=False`` (``Evaluation(progress=False)``, the CLI's
``--no-progress``); no bar ever changes a number.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

__all__ = ["DELAY", "Bar", "bar", "stage", "steps", "threads_available"]

#: Seconds a stage runs before its bar appears.
DELAY = 2.0

T = TypeVar("T")


@functools.cache
def threads_available() -> bool:
    """Whether this Python can start a thread (not in Pyodide, Python compiled to WebAssembly for a browser)."""
    probe = threading.Thread(target=lambda: None, daemon=True)
    try:
        probe.start()
    except RuntimeError:  # "can't start new thread"
        return False
    probe.join()
    return True


def _tqdm_class() -> Any:
    """The bar class: ``tqdm.auto``'s choice (a widget in Jupyter, text elsewhere), except in a browser's Python.

    There (Pyodide, in JupyterLite) ``tqdm.auto`` does not recognise the notebook's kernel and writes text bars to
    stderr, which JupyterLab shows as red boxes (an empty one once a bar is cleared); and tqdm's monitor thread
    cannot start, which it reports on stderr too. So the browser gets the notebook's widget bar when a notebook
    shows it, and no monitor thread.
    """
    from tqdm.auto import tqdm

    if threads_available():
        return tqdm
    chosen = tqdm
    try:
        from IPython.core.getipython import get_ipython

        if get_ipython() is not None:  # type: ignore[no-untyped-call]
            import ipywidgets  # noqa: F401  (tqdm.notebook draws with it)
            from tqdm.notebook import tqdm as notebook_tqdm

            chosen = notebook_tqdm
    except ImportError:
        pass
    tqdm.monitor_interval = chosen.monitor_interval = 0  # every later bar of the process, the user's own too
    return chosen


class Bar:
    """A progress bar, or nothing when disabled: ``update``, ``note`` and ``close`` are always safe to call."""

    def __init__(self, total: int | None, desc: str, *, enabled: bool, unit: str = "it"):
        self._bar: Any = None
        self._timer: threading.Timer | None = None
        if not enabled:
            return
        tqdm = _tqdm_class()
        self._bar = tqdm(total=total, desc=desc, unit=unit, leave=False, delay=DELAY, file=sys.stderr,
                         dynamic_ncols=True)
        # a stage that never updates (one long call) still shows its bar once DELAY has passed
        if not threads_available():  # Pyodide in a browser: the bar appears at its first update
            return
        self._timer = threading.Timer(DELAY, self._show)
        self._timer.daemon = True
        self._timer.start()

    def _show(self) -> None:
        bar = self._bar
        if bar is not None and not getattr(bar, "disable", True):
            try:
                bar.refresh()
            except Exception:  # the bar was closed meanwhile
                pass

    def update(self, n: int = 1) -> None:
        """Advance by ``n`` steps."""
        if self._bar is not None:
            self._bar.update(n)

    def note(self, text: str) -> None:
        """Name the step now running (shown after the counts)."""
        if self._bar is not None:
            self._bar.set_postfix_str(text, refresh=False)

    def close(self) -> None:
        """Remove the bar (idempotent)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Bar:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def bar(total: int | None, desc: str, *, enabled: bool, unit: str = "it") -> Bar:
    """A bar of ``total`` steps named ``desc`` (use as a context manager, or call ``close``).

    >>> with bar(3, "demo", enabled=False) as b:
    ...     b.update(3)
    """
    return Bar(total, desc, enabled=enabled, unit=unit)


@contextmanager
def stage(desc: str, *, enabled: bool) -> Iterator[Bar]:
    """A one-step stage named ``desc`` (data preparation, a tree build, a classifier fit, PDF rendering).

    >>> with stage("preparing the data", enabled=False):
    ...     pass
    """
    b = Bar(1, desc, enabled=enabled, unit="stage")
    try:
        yield b
        b.update(1)
    finally:
        b.close()


def steps(items: Iterable[T], desc: str, *, enabled: bool, total: int | None = None,
          unit: str = "it") -> Iterator[T]:
    """Iterate over ``items`` advancing a bar named ``desc`` (with an ETA when the total is known).

    >>> list(steps([1, 2], "demo", enabled=False))
    [1, 2]
    """
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    with bar(total, desc, enabled=enabled, unit=unit) as b:
        for item in items:
            yield item
            b.update(1)
