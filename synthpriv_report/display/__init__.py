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

from collections.abc import Iterable
from typing import Any

import jinja2

from .. import templating
from ..results import MetricResult, ResultSet

__all__ = ["bundle", "explore", "explain", "render_html", "render_markdown", "render_text", "environment"]


def environment() -> jinja2.Environment:
    """The environment of the display templates: loaded once from package data, autoescaping on (made by the
    package's one factory, :func:`synthpriv_report.templating.environment`)."""
    return templating.environment(__name__)


def _views(obj: Any, figures: bool) -> tuple[str, dict, str]:
    """``(kind, view, heading)`` for a ResultSet (or anything with ``results()``, such as an Evaluation) or a
    MetricResult."""
    from . import views

    if not isinstance(obj, (ResultSet, MetricResult)) and callable(getattr(obj, "results", None)):
        obj = obj.results()
    if isinstance(obj, ResultSet):
        heading = "Synthetic data privacy evaluation" if obj.meta else "Privacy results"
        return "resultset", views.resultset_view(obj, figures=figures), heading
    if isinstance(obj, MetricResult):
        return "metric", views.metric_view(obj, figures=figures), obj.title or obj.name
    raise TypeError(f"cannot display an object of type {type(obj).__name__}")


def _render(kind: str, view: dict, heading: str, fmt: str) -> str:
    from .views import render_view

    return render_view(kind, view, heading, fmt)


def render_html(obj: Any, *, figures: bool = True) -> str:
    """Self-contained HTML of an Evaluation, ResultSet or MetricResult (a string; nothing is displayed)."""
    kind, view, heading = _views(obj, figures)
    return _render(kind, view, heading, "html")


def render_markdown(obj: Any) -> str:
    """Markdown of an Evaluation, ResultSet or MetricResult."""
    kind, view, heading = _views(obj, False)
    return _render(kind, view, heading, "markdown")


def render_text(obj: Any) -> str:
    """Plain-text summary of an Evaluation, ResultSet or MetricResult."""
    kind, view, heading = _views(obj, False)
    return _render(kind, view, heading, "text")


def _wanted(mime: str, include: Iterable[str] | None, exclude: Iterable[str] | None) -> bool:
    if include is not None and mime not in set(include):
        return False
    return not (exclude is not None and mime in set(exclude))


def bundle(obj: Any, include: Iterable[str] | None = None, exclude: Iterable[str] | None = None) -> dict[str, str]:
    """The MIME bundle of ``obj`` for IPython's ``_repr_mimebundle_``.

    Parameters
    ----------
    obj : Evaluation, ResultSet or MetricResult
    include, exclude : iterable of str, optional
        MIME types to keep or drop (IPython's arguments). ``text/plain`` is always present as the fallback.

    Returns
    -------
    dict
        ``{"text/plain": ..., "text/html": ...}`` (strings).
    """
    want_html = _wanted("text/html", include, exclude)
    kind, view, heading = _views(obj, figures=want_html)
    out = {"text/plain": _render(kind, view, heading, "text")}
    if want_html:
        out["text/html"] = _render(kind, view, heading, "html")
    return out


def explore(ev: Any, **params: Any) -> Any:
    """Sliders over the reduction parameters of ``ev`` (see :func:`synthpriv_report.display.widgets.explore`)."""
    from .widgets import explore as _explore

    return _explore(ev, **params)
