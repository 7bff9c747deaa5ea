"""Notebook views: rich display bundles, figures, live sliders and one record's view.

``bundle(obj)`` is what ``Evaluation``, ``ResultSet`` and ``MetricResult`` return from ``_repr_mimebundle_``:
``text/plain`` (what a terminal shows) and a self-contained ``text/html`` (Jinja templates from package data, one
environment with autoescaping, CSS scoped under ``.spr-report``, figures as inline PNG). No ``text/markdown``: a
column name or category value must never pass through a Markdown renderer (:func:`render_markdown` escapes every
string it writes, for those who want Markdown explicitly).
Results are computed before rendering; rendering only reads them (figures come from each result's evidence), so
it never starts a neighbour search. Nothing here calls ``display()``: every function returns data.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from typing import Any

import jinja2

from ..core.registry import verdict_metric_names
from ..core.results import MetricResult, ResultSet, Verdict
from ..text import templating

__all__ = ["bundle", "explore", "render_html", "render_markdown", "render_text", "environment", "preload"]


def environment() -> jinja2.Environment:
    """The environment of the display templates: loaded once from package data, autoescaping on (made by the
    package's one factory, :func:`synthpriv_report.text.templating.environment`)."""
    return templating.environment(__name__)


def _views(obj: Any, figures: bool, compact: bool = False) -> tuple[str, dict, str]:
    """``(kind, view, heading)`` for a ResultSet (or anything with ``results()``, such as an Evaluation), a
    MetricResult or a Verdict.

    A metric shown alone says whether it drives the verdict from its registry declaration (the checks declared
    ``drives_verdict``), as the summary does from the verdict it belongs to.
    """
    from . import views

    if not isinstance(obj, (ResultSet, MetricResult, Verdict)) and callable(getattr(obj, "results", None)):
        obj = obj.results()
    if isinstance(obj, ResultSet):
        heading = "Synthetic data privacy evaluation" if obj.meta else "Privacy results"
        return "resultset", views.resultset_view(obj, figures=figures, compact=compact), heading
    if isinstance(obj, MetricResult):
        return "metric", views.metric_view(obj, figures=figures, driving=verdict_metric_names(),
                                           compact=compact), obj.title or obj.name
    if isinstance(obj, Verdict):
        return "verdict", views.verdict_view(obj), "Verdict"
    raise TypeError(f"cannot display an object of type {type(obj).__name__}")


def _render(kind: str, view: dict, heading: str, fmt: str) -> str:
    from .views import render_view

    return render_view(kind, view, heading, fmt)


def render_html(obj: Any, *, figures: bool = True, compact: bool = False) -> str:
    """Self-contained HTML of an Evaluation, ResultSet, MetricResult or Verdict (a string; nothing is displayed);
    ``compact`` gives the notebook's short form (see :func:`bundle`)."""
    kind, view, heading = _views(obj, figures, compact)
    return _render(kind, view, heading, "html")


def render_markdown(obj: Any) -> str:
    """Markdown of an Evaluation, ResultSet, MetricResult or Verdict."""
    kind, view, heading = _views(obj, False)
    return _render(kind, view, heading, "markdown")


def render_text(obj: Any) -> str:
    """Plain-text summary of an Evaluation, ResultSet, MetricResult or Verdict."""
    kind, view, heading = _views(obj, False)
    return _render(kind, view, heading, "text")


def _wanted(mime: str, include: Iterable[str] | None, exclude: Iterable[str] | None) -> bool:
    if include is not None and mime not in set(include):
        return False
    return not (exclude is not None and mime in set(exclude))


def bundle(obj: Any, include: Iterable[str] | None = None, exclude: Iterable[str] | None = None, *,
           compact: bool = True) -> dict[str, str]:
    """The MIME bundle of ``obj`` for IPython's ``_repr_mimebundle_``.

    Parameters
    ----------
    obj : Evaluation, ResultSet, MetricResult or Verdict
    include, exclude : iterable of str, optional
        MIME types to keep or drop (IPython's arguments). ``text/plain`` is always present as the fallback.
    compact : bool
        The notebook's short form (default): one row per measure with its value, interval, level and one
        sentence; the figures of each measure and every "Details" block collapsed; the level rules with their
        sources once, in an appendix at the end. ``False`` shows every rule and figure in place.

    Returns
    -------
    dict
        ``{"text/plain": ..., "text/html": ...}`` (strings).
    """
    want_html = _wanted("text/html", include, exclude)
    kind, view, heading = _views(obj, want_html, compact)
    out = {"text/plain": _render(kind, view, heading, "text")}
    if want_html:
        out["text/html"] = _render(kind, view, heading, "html")
    return out


def explore(ev: Any, **params: Any) -> Any:
    """Sliders over the reduction parameters of ``ev`` (see :func:`synthpriv_report.display.widgets.explore`)."""
    from .widgets import explore as _explore

    return _explore(ev, **params)


def preload() -> threading.Thread | None:
    """Import the libraries the figures and sliders need (matplotlib's Agg canvas, ipywidgets, Pillow)
    in a background thread, and return it (already started).

    A teaching notebook calls it in its first cell, which then shows its output at once: the imports (several
    seconds on a slow machine) run while the student reads, instead of before the first figure. Importing is
    all it does; a cell that needs a module before the thread has imported it waits for Python's import lock.
    Where Python cannot start a thread (Pyodide, in JupyterLite) it does nothing and returns None: the modules
    are then imported when first used.
    """

    def run() -> None:
        import ipywidgets  # noqa: F401
        import matplotlib.backends.backend_agg  # noqa: F401
        import PIL.Image  # noqa: F401

    thread = threading.Thread(target=run, name="synthpriv-preload", daemon=True)
    try:
        thread.start()
    except RuntimeError:  # no threads on this platform (WebAssembly)
        # a fresh browser kernel has no font cache: matplotlib's notice that it builds one would show in red
        # under the first figure, as if something had gone wrong
        logging.getLogger("matplotlib.font_manager").addFilter(_font_cache_notice)
        return None
    return thread


def _font_cache_notice(record: logging.LogRecord) -> bool:
    """A logging filter: False (drop) for matplotlib's "building the font cache" notice only.

    >>> notice = "Matplotlib is building the font cache; this may take a moment."
    >>> _font_cache_notice(logging.makeLogRecord({"msg": notice})), _font_cache_notice(logging.makeLogRecord({}))
    (False, True)
    """
    return "building the font cache" not in record.getMessage()
