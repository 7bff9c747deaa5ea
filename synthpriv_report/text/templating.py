"""The one Jinja environment factory of the package, and its filters.

Every HTML piece the package writes (the notebook display, the widgets, the Dask notice, the export documents) is
rendered by an environment from :func:`environment`: templates loaded once from a package's ``templates`` folder,
autoescaping on, undefined names an error. Markdown (:func:`environment` with ``markdown=True``) escapes every
interpolated value as Markdown instead, so no string becomes a link, an image or inline HTML. A user's or a file's
string never passes through a Markdown renderer.

Filters (the same in every environment)
---------------------------------------
``wbr``
    Escaped text with a line-break opportunity after each underscore and each dot before a letter.
``num``
    A number in 3 significant digits (thousands separated; ``—`` for missing), anything else as shortened text.
``shorten(width=80)``
    A string cut to ``width`` characters with an ellipsis; any run of more than 80 characters without a space is
    cut too. When cut, the result is ``<span class="spr-short" title="full text">cut text…</span>``, so the full
    text stays in a ``title`` attribute and the layout cost of a document does not grow with the length of a name.
``value``
    Any JSON value (settings, parameters, details) as compact text: at most :data:`MAX_ITEMS` items per list or
    mapping, :data:`MAX_DEPTH` levels deep, every leaf shortened (a value that is a string on its own, such as a
    note among a metric's details, to the width of a sentence).

Globals: ``NAME_WIDTH``, ``TEXT_WIDTH`` and ``TITLE_WIDTH``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any

import jinja2
from markupsafe import Markup, escape

from ..core.formats import fmt_cell, fmt_number

__all__ = ["ELLIPSIS", "MAX_DEPTH", "MAX_ITEMS", "NAME_WIDTH", "TEXT_WIDTH", "TITLE_WIDTH", "WORD_WIDTH", "clean",
           "environment", "markdown_escape", "num", "shorten", "shorten_text", "value_html", "value_text", "wbr"]

#: Display width of names and values (column names, category values, metric names, parameters).
NAME_WIDTH = 80
#: Display width of sentences (verdict reasons, notes, reasons a metric was not computed).
TEXT_WIDTH = 600
#: Display width of a metric's title: every declared title fits (a test holds them to it), so none is cut.
TITLE_WIDTH = 160
#: Longest run of characters without a space shown whole.
WORD_WIDTH = 80
#: Items shown per list or mapping by the ``value`` filter.
MAX_ITEMS = 60
#: Levels of nesting shown by the ``value`` filter.
MAX_DEPTH = 3
ELLIPSIS = "…"

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
_LONG_WORD = re.compile(rf"\S{{{WORD_WIDTH + 1},}}")
_BREAK_AFTER = re.compile(r"(_+|\.(?=[^\W\d]))")
_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_{}[]()<>#+-.!|~&"})


# ---------------------------------------------------------------------------------------------------------------
# text


def clean(text: Any) -> str:
    """``text`` as a string without control characters or unpaired surrogates (each becomes U+FFFD).

    >>> clean("a\\x00b")
    'a\\ufffdb'
    """
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


def markdown_escape(value: Any) -> str:
    r"""Text with every Markdown (and inline HTML) control character backslash-escaped.

    >>> print(markdown_escape("[x](javascript:alert(1))"))
    \[x\]\(javascript:alert\(1\)\)
    """
    return str(value).translate(_MD_SPECIAL)


# ---------------------------------------------------------------------------------------------------------------
# filters


def wbr(text: Any) -> Markup:
    """Escaped text with a line-break opportunity (``<wbr>``) after each underscore and each dot
    before a letter, so that long names (``holdout_dcr_share``, ``native-country.Holand``) wrap at their own
    boundaries instead of overflowing their column or being split inside a word.

    >>> str(wbr("holdout_dcr_share")), str(wbr("<b>_")), str(wbr("0.5"))
    ('holdout_<wbr>dcr_<wbr>share', '&lt;b&gt;_', '0.5')
    """
    if isinstance(text, Markup):
        return text
    parts = _BREAK_AFTER.split(str(text))
    out = Markup("")
    for i, part in enumerate(parts):
        out += escape(part)
        if i % 2 == 1 and i < len(parts) - 1 and parts[i + 1]:
            out += Markup("<wbr>")
    return out


def shorten(text: Any, width: int = NAME_WIDTH) -> Markup:
    """Escaped ``text`` for HTML, shortened to ``width``; the full text in a ``title`` attribute when cut.

    >>> str(shorten("<b>")), str(shorten("holdout_dcr_share"))
    ('&lt;b&gt;', 'holdout_<wbr>dcr_<wbr>share')
    """
    full = clean(text)
    short = shorten_text(full, width)
    if short == full:
        return wbr(full)
    return Markup('<span class="spr-short" title="{}">{}</span>').format(full, wbr(short))


def num(v: Any) -> Markup:
    """Filter ``num``: :func:`~synthpriv_report.core.formats.fmt_number` for numbers, :func:`shorten` for anything else.

    >>> str(num(0.123456)), str(num(None)), str(num("<i>"))
    ('0.123', '—', '&lt;i&gt;')
    """
    if v is None or isinstance(v, (bool, int, float)):
        return escape(fmt_number(v))
    return shorten(v)


def _leaf_text(v: Any) -> str:
    """A leaf of :func:`value_text`: numbers formatted, anything else shortened."""
    return fmt_cell(v, shorten_text)


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
    """Filter ``value``: any JSON value as compact escaped HTML (see the module docstring).

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
    return "".join(_parts(v, 0, _leaf_text, str))


# ---------------------------------------------------------------------------------------------------------------
# the environment


@cache
def environment(package: str, *, markdown: bool = False) -> jinja2.Environment:
    """The Jinja environment of the templates in ``package``'s ``templates`` folder (one per package and flavour).

    Parameters
    ----------
    package : str
        The package holding a ``templates`` folder (``"synthpriv_report.display"``, ``"synthpriv_report.export"``).
    markdown : bool, default False
        False: HTML, autoescaping on. True: Markdown, every interpolated value escaped by
        :func:`markdown_escape` (HTML autoescaping off, since the output is not HTML).

    Returns
    -------
    jinja2.Environment
        Cached: templates are compiled once. Undefined names are errors; block tags leave no blank lines; the
        filters ``wbr``, ``num``, ``shorten`` and ``value`` and the globals ``NAME_WIDTH``, ``TEXT_WIDTH`` and
        ``TITLE_WIDTH`` are set.

    >>> env = environment("synthpriv_report.display")
    >>> env.autoescape, env.from_string("{{ x }}|{{ x|wbr }}").render(x="a_<b>")
    (True, 'a_&lt;b&gt;|a_<wbr>&lt;b&gt;')
    >>> environment("synthpriv_report.display", markdown=True).from_string("{{ x }}").render(x="[a](b)")
    '\\\\[a\\\\]\\\\(b\\\\)'
    """
    env = jinja2.Environment(
        loader=jinja2.PackageLoader(package, "templates"),
        autoescape=not markdown,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=markdown_escape if markdown else None,
    )
    env.filters.update(wbr=wbr, num=num, shorten=shorten, value=value_html)
    env.globals.update(NAME_WIDTH=NAME_WIDTH, TEXT_WIDTH=TEXT_WIDTH, TITLE_WIDTH=TITLE_WIDTH)
    return env
