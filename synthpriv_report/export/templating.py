"""The one Jinja environment of the export documents, and its filters.

Every string that reaches an HTML or PDF document is escaped by this environment (``autoescape=True``); user
strings never pass through a Markdown renderer. Long strings are shortened for display (the full text stays in a
``title`` attribute), so that the layout cost of a document does not grow with the length of a name.

Filters
-------
``num``
    A number in 3 significant digits (thousands separated) (``—`` for missing), anything else as shortened text.
``shorten(width=80)``
    A string cut to ``width`` characters with an ellipsis; any run of more than 80 characters without a space is
    cut too. When cut, the result is ``<span class="spr-short" title="full text">cut text…</span>``. A ``<wbr>``
    follows each underscore and each dot before a letter, so that long names wrap at their own boundaries
    (:func:`synthpriv_report.display.views.wbr`).
``value``
    Any JSON value (settings, parameters, details) as compact text: at most :data:`MAX_ITEMS` items per list or
    mapping, :data:`MAX_DEPTH` levels deep, every leaf shortened (a value that is a string on its own, such as a
    note among a metric's details, to the width of a sentence).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import jinja2
from markupsafe import Markup, escape

from ..wording import fmt_number as _wording_number

__all__ = ["MAX_DEPTH", "MAX_ITEMS", "NAME_WIDTH", "TEXT_WIDTH", "environment", "fmt_number", "render",
           "shorten", "shorten_text", "value_html", "value_text"]

#: Display width of names and values (column names, category values, metric names, parameters).
NAME_WIDTH = 80
#: Display width of sentences (verdict reasons, notes, reasons a metric was not computed).
TEXT_WIDTH = 600
#: Longest run of characters without a space shown whole.
WORD_WIDTH = 80
MAX_ITEMS = 60
MAX_DEPTH = 3
ELLIPSIS = "…"

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
_LONG_WORD = re.compile(r"\S{%d,}" % (WORD_WIDTH + 1))


def clean(text: Any) -> str:
    """``text`` as a string without control characters or unpaired surrogates (each becomes U+FFFD)."""
    return _CONTROL.sub("\ufffd", text if isinstance(text, str) else str(text))


def shorten_text(text: Any, width: int = NAME_WIDTH) -> str:
    """``text`` cut to ``width`` characters (ellipsis included); long runs without a space cut to 80.

    >>> shorten_text("abc"), shorten_text("x" * 100, 10)
    ('abc', 'xxxxxxxxx…')
    """
    s = clean(text)
    if len(s) > WORD_WIDTH:
        s = _LONG_WORD.sub(lambda m: m.group(0)[:WORD_WIDTH - 1] + ELLIPSIS, s)
    if len(s) > width:
        s = s[:max(width - 1, 1)] + ELLIPSIS
    return s


def shorten(text: Any, width: int = NAME_WIDTH) -> Markup:
    """Escaped ``text`` for HTML, shortened to ``width``; the full text in a ``title`` attribute when cut.

    >>> str(shorten("<b>")), str(shorten("holdout_dcr_share"))
    ('&lt;b&gt;', 'holdout_<wbr>dcr_<wbr>share')
    """
    from ..display.views import wbr

    full = clean(text)
    short = shorten_text(full, width)
    if short == full:
        return wbr(full)
    return Markup('<span class="spr-short" title="{}">{}</span>').format(full, wbr(short))


def fmt_number(v: Any) -> str:
    """A number in 3 significant digits with thousands separators; ``—`` for None; booleans as yes/no.

    >>> fmt_number(0.123456), fmt_number(3000), fmt_number(None), fmt_number(True), fmt_number(0.15000000000000002)
    ('0.123', '3,000', '—', 'yes', '0.15')
    """
    if v is None or isinstance(v, (bool, int, float)):
        return _wording_number(v)
    return shorten_text(v)


def num(v: Any) -> Markup:
    """Jinja filter ``num``: :func:`fmt_number` for numbers, :func:`shorten` for anything else."""
    if v is None or isinstance(v, (bool, int, float)):
        return escape(fmt_number(v))
    return shorten(v)


def _parts(v: Any, depth: int, leaf: Any, lit: Any) -> list[Any]:
    """``v`` as a flat list of pieces: leaves through ``leaf``, punctuation through ``lit``."""
    if isinstance(v, Mapping):
        if not v:
            return [lit("—")]
        if depth >= MAX_DEPTH:
            return [lit(f"{{{len(v)} entries}}")]
        out: list[Any] = []
        items = list(v.items())
        for i, (k, x) in enumerate(items[:MAX_ITEMS]):
            if i:
                out.append(lit("; "))
            out += [leaf(k), lit(": ")] + _parts(x, depth + 1, leaf, lit)
        if len(items) > MAX_ITEMS:
            out.append(lit(f"; … ({len(items) - MAX_ITEMS} more)"))
        return [lit("{")] + out + [lit("}")] if depth else out
    if isinstance(v, (list, tuple)):
        if not v:
            return [lit("—")]
        if depth >= MAX_DEPTH:
            return [lit(f"[{len(v)} items]")]
        out = []
        for i, x in enumerate(v[:MAX_ITEMS]):
            if i:
                out.append(lit(", "))
            out += _parts(x, depth + 1, leaf, lit)
        if len(v) > MAX_ITEMS:
            out.append(lit(f", … ({len(v) - MAX_ITEMS} more)"))
        return [lit("[")] + out + [lit("]")] if depth else out
    return [leaf(v)]


def value_html(v: Any) -> Markup:
    """Jinja filter ``value``: any JSON value as compact escaped HTML (see the module docstring).

    >>> str(value_html({"a": [1, 0.5], "b": "<i>"}))
    'a: [1, 0.5]; b: &lt;i&gt;'
    """
    if isinstance(v, str):  # a value of its own, often a sentence (a note): the width of a sentence
        return shorten(v, TEXT_WIDTH)
    return Markup("").join(_parts(v, 0, num, escape))


def value_text(v: Any) -> str:
    """The plain-text form of :func:`value_html` (shortened, no markup).

    >>> value_text({"a": [1, 0.5], "b": {"c": None}})
    'a: [1, 0.5]; b: {c: —}'
    """
    if isinstance(v, str):
        return shorten_text(v, TEXT_WIDTH)
    return "".join(_parts(v, 0, fmt_number, str))


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The one environment: templates from package data, autoescaping on, undefined names are errors."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("synthpriv_report.export", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["num"] = num
    env.filters["shorten"] = shorten
    env.filters["value"] = value_html
    env.globals["NAME_WIDTH"] = NAME_WIDTH
    env.globals["TEXT_WIDTH"] = TEXT_WIDTH
    return env


def render(template: str, **context: Any) -> str:
    """Render one template of ``synthpriv_report/export/templates``."""
    return environment().get_template(template).render(**context)
