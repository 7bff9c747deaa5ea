"""For the lecturer: slides, a printable worksheet, an auto-checked quiz and a copy of the lab for Colab.

- :func:`slides` exports the figures of one or several evaluations as 16:9 slides (13.333 x 7.5 inches, PNG at
  200 dpi or SVG), the generators side by side on shared axes as :func:`~synthpriv_report.display.widgets.
  side_by_side` draws them (or one file per generator), with fonts raised for a projector.
- :func:`worksheet` prints a notebook's Markdown without its solutions to PDF, with blank answer space after each
  exercise, through the package's own HTML and PDF path (autoescaping Jinja, a Content-Security-Policy without
  script, WeasyPrint). The notebook's Markdown never passes through a Markdown renderer: a small converter here
  reads headings, paragraphs, bullet lists, bold, italic and code spans into plain structures whose every string
  the template escapes; tables are printed as plain text.
- :func:`quiz` (:class:`Quiz`) is a quiz widget checked in the notebook's own kernel (nothing is sent anywhere);
  :data:`LAB_QUIZ` holds five questions on the lab's ideas.
- :func:`colab_notebook` writes a copy of a notebook for Google Colab: the package installed from the Python
  Package Index in the first code cell, below the title, the desktop kernel, outputs cleared.

Every file is written whole or not at all (:func:`synthpriv_report.export.files.write_atomic`).
"""

from __future__ import annotations

import copy
import json
import math
import os
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal, cast

from ..core.plotting import empty, figure_style, figure_texts
from ..core.registry import get_spec
from ..core.results import MetricResult
from ..display.figures import DPI, share_ranges, wrap_labels
from ..text import templating

__all__ = ["COLAB_INSTALL", "COLAB_KERNEL", "LAB_QUIZ", "Question", "Quiz", "SLIDE_FONTS", "colab_notebook",
           "inline_spans", "markdown_blocks", "notebook_blocks", "quiz", "safe_name", "slide_figure", "slides",
           "worksheet", "worksheet_html"]


# ---------------------------------------------------------------------------------------------------------------
# slides

#: Smallest font sizes on a slide, in points: titles, tick labels, and every other text (axis labels, legends,
#: annotations). A slide is 13.333 inches wide, so these read from the back of a lecture hall.
SLIDE_FONTS = {"title": 20.0, "tick": 14.0, "text": 14.0}

_SLIDE_RC: dict[str, Any] = {"font.size": 16.0, "axes.titlesize": 20.0, "axes.labelsize": 16.0, "xtick.labelsize": 14.0,
             "ytick.labelsize": 14.0, "legend.fontsize": 14.0, "legend.title_fontsize": 14.0,
             "figure.titlesize": 22.0, "lines.linewidth": 2.0}

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")



def _export() -> Any:
    """The export package, imported when a file is written: it needs nbconvert, which an in-browser Python (the
    lab's JupyterLite site) does not have, while the quiz needs none of it."""
    from .. import export

    return export


def safe_name(text: Any, *, fallback: str = "figure", width: int = 60) -> str:
    """A file-name part made of ASCII letters, digits, ``_`` and ``-`` only (no dot, no path separator).

    Accents are dropped (``é`` becomes ``e``), every other run of characters becomes one ``-``, leading and
    trailing ``-`` are removed and the result is cut to ``width`` characters; an empty result is ``fallback``.

    >>> safe_name("../x<y>"), safe_name("private (ε = 1)"), safe_name("Çà"), safe_name("///")
    ('x-y', 'private-1', 'Ca', 'figure')
    """
    s = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode("ascii")
    s = _UNSAFE.sub("-", s).strip("-_")[:width].strip("-_")
    return s or fallback


def _result_sets(source: Any) -> dict[str, Mapping[str, MetricResult]]:
    """``{label: result set}`` from an evaluation, a result set, a mapping of labels to either (an evaluation's
    results are its default ``results()``), or a mapping of labels to results of one metric (as
    :func:`~synthpriv_report.display.widgets.side_by_side` takes). One unlabelled source gets the label ``""``."""
    def one(x: Any) -> Mapping[str, MetricResult] | None:
        if hasattr(x, "results") and callable(x.results) and hasattr(x, "metric_names"):
            rs: Mapping[str, MetricResult] = x.results()
            return rs
        if isinstance(x, Mapping) and x and all(isinstance(v, MetricResult) for v in x.values()):
            return x
        return None

    if isinstance(source, Mapping) and source and all(isinstance(v, MetricResult) for v in source.values()) \
            and any(k != v.name for k, v in source.items()):
        return {str(label): {r.name: r} for label, r in source.items()}  # one metric's results, as side_by_side
    single = one(source)
    if single is not None:
        return {"": single}
    if isinstance(source, Mapping) and source:
        out = {}
        for label, x in source.items():
            rs = one(x)
            if rs is None:
                raise TypeError(f"slides(): {label!r} is a {type(x).__name__}; give an Evaluation, a ResultSet or a "
                                "mapping of labels to them")
            out[str(label)] = rs
        return out
    raise TypeError(f"slides() takes an Evaluation, a ResultSet or a mapping of labels to them, not "
                    f"{type(source).__name__}")


def _raise_fonts(fig: Any) -> None:
    """Every text of ``fig`` raised to :data:`SLIDE_FONTS`: axes and figure titles to the title size, tick labels
    to the tick size, the rest to the text size (ticks are made by a first drawing, so they are all seen)."""
    fig.canvas.draw()
    titles = {id(t) for ax in fig.axes for t in (ax.title, ax._left_title, ax._right_title)}
    if getattr(fig, "_suptitle", None) is not None:
        titles.add(id(fig._suptitle))
    ticks: set[int] = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in (*axis.majorTicks, *axis.minorTicks):
                ticks.update((id(tick.label1), id(tick.label2)))
        ax.tick_params(which="both", labelsize=max(SLIDE_FONTS["tick"], 14.0))
    for t in figure_texts(fig):
        if not t.get_text():
            continue
        least = (SLIDE_FONTS["title"] if id(t) in titles else SLIDE_FONTS["tick"] if id(t) in ticks
                 else SLIDE_FONTS["text"])
        if t.get_fontsize() < least:
            t.set_fontsize(least)


def slide_figure(results: Mapping[str, MetricResult], *, index: int = 0, width_in: float = 13.333,
                 height_in: float = 7.5) -> Any:
    """One declared figure of a metric as a slide: a bare Agg :class:`~matplotlib.figure.Figure` (no pyplot state)
    of ``width_in`` x ``height_in`` inches, one panel per result, side by side on shared axis ranges, titled by its
    label, every text at least :data:`SLIDE_FONTS`.

    Parameters
    ----------
    results : mapping of label -> MetricResult
        Results of one metric (a label ``""`` gives a panel without a label).
    index : int
        Which of the metric's declared figures.
    width_in, height_in : float
        The slide's size in inches (16:9 by default).

    Returns
    -------
    matplotlib.figure.Figure
        Drawn and laid out (matplotlib's constrained layout); :func:`slides` saves it.
    """
    import matplotlib as mpl
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    first = next(iter(results.values()))
    spec = get_spec(first.name).figures[index]
    k, n = spec.ncols, len(results)
    rows, cols = (1, n) if k == 1 else (n, k)
    with figure_style(), mpl.rc_context(cast(Any, _SLIDE_RC)):
        fig = Figure(figsize=(width_in, height_in), dpi=DPI, layout="constrained")
        FigureCanvasAgg(fig)
        axes = list(fig.subplots(rows, cols, squeeze=False).ravel())
        for i, (label, r) in enumerate(results.items()):
            group = axes[i * k:(i + 1) * k]
            if r.computed and (r.evidence or not spec.needs_evidence):
                spec.draw(r, *group)
            else:
                empty(group[0], "no figure: " + (r.reason_not_computed or "the result carries no evidence"))
            if label:  # a label is text, never mathtext (a "$" in it stays a "$")
                title = group[0].get_title()
                group[0].set_title(f"{label}: {title}" if title else label, parse_math=False)
        if n > 1:
            share_ranges(axes, k, n)
        _raise_fonts(fig)
        for ax in axes:
            wrap_labels(ax, width_in / cols)
        _fit_legends(fig)
    return fig


def _fit_legends(fig: Any) -> None:
    """Wrap the entries of a legend wider than its axes (a legend drawn for a small figure outgrows a panel once
    its text is raised for a projector), so that the layout keeps the panels their width."""
    import textwrap

    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None:
            continue
        room = ax.get_window_extent(renderer).width * 0.9
        width = legend.get_window_extent(renderer).width
        if width <= room:
            continue
        texts = [t for t in legend.get_texts() if t.get_text()]
        if not texts:
            continue
        widest = max(texts, key=lambda t: t.get_window_extent(renderer).width)
        text_px = widest.get_window_extent(renderer).width
        # the longest entry sets the width in characters (the rest of the legend's width is its handles)
        chars = max(12, int(len(widest.get_text()) * (room - (width - text_px)) / max(text_px, 1.0)))
        for t in texts:
            if len(t.get_text()) > chars:
                t.set_text("\n".join(textwrap.wrap(t.get_text(), chars)))


def _save(fig: Any, fmt: str) -> bytes:
    import io

    buf = io.BytesIO()
    with figure_style():  # its SVG settings: text as text, fixed ids
        if fmt == "svg":
            fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
        else:
            fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    return buf.getvalue()


def _folder(folder: str | os.PathLike[str]) -> Path:
    out = Path(folder)
    if out.exists() and not out.is_dir():
        raise ValueError(f"folder {str(out)!r} is a file; give a folder for the slides")
    out.mkdir(parents=True, exist_ok=True)
    return out


def _inside(folder: Path, name: str) -> Path:
    """``folder / name``, checked to lie directly inside ``folder`` (``name`` is already a safe name)."""
    path = folder / name
    if path.resolve().parent != folder.resolve() or path.name != name:
        raise ValueError(f"refusing to write {name!r} outside {str(folder)!r}")
    return path


def slides(results_or_evaluations: Any, folder: str | os.PathLike[str], *, fmt: Literal["png", "svg"] = "png",
           width_in: float = 13.333, height_in: float = 7.5, metrics: Sequence[str] | None = None,
           layout: Literal["side_by_side", "each"] = "side_by_side") -> list[Path]:
    """Write every figure of the given results as a slide, one file each, and return their paths.

    Parameters
    ----------
    results_or_evaluations : Evaluation, ResultSet, or mapping of label -> Evaluation, ResultSet or MetricResult
        What to draw: ``{"honest": ev_honest, "leaky": ev_leaky}``, say (an evaluation gives its ``results()``), or
        one metric's results by label, as :func:`~synthpriv_report.display.widgets.side_by_side` takes them.
    folder : path
        Where the files go (made if missing; a path that is a file is refused). Nothing is written elsewhere.
    fmt : {"png", "svg"}
        PNG at 200 dots per inch (2667 x 1500 pixels at the default size) or SVG (text kept as text).
    width_in, height_in : float
        The slide's size in inches; 13.333 x 7.5 is PowerPoint's and Keynote's 16:9 slide.
    metrics : sequence of str, optional
        Which metrics, in this order; default every computed metric that declares a figure, in report order.
    layout : {"side_by_side", "each"}
        ``"side_by_side"`` (default): one file per declared figure of a metric, the generators in panels side by
        side on shared axis ranges, as in the lab; ``"each"``: one file per figure per generator.

    Returns
    -------
    list of Path
        Named ``NN-<metric>[-<figure>][--<label>].png``: ``NN`` the slide's order, every part made safe by
        :func:`safe_name` (a label such as ``"../x<y>"`` becomes ``x-y``; two labels that become the same name get
        ``-2``, ``-3``). Each file is written whole (a temporary file beside it, then ``os.replace``); the same
        results give the same bytes.

    Notes
    -----
    Every text is at least :data:`SLIDE_FONTS` points (titles 20, tick labels 14), at the slide's own size.
    """
    if fmt not in ("png", "svg"):
        raise ValueError(f"unknown slide format {fmt!r}; choose 'png' or 'svg'")
    if layout not in ("side_by_side", "each"):
        raise ValueError(f"unknown slide layout {layout!r}; choose 'side_by_side' or 'each'")
    if not (width_in > 0 and height_in > 0 and math.isfinite(width_in) and math.isfinite(height_in)):
        raise ValueError(f"a slide's size must be positive inches, not {width_in!r} x {height_in!r}")
    sets = _result_sets(results_or_evaluations)
    if metrics is None:
        names = list(dict.fromkeys(n for rs in sets.values() for n, r in rs.items()
                                   if r.computed and get_spec(n).figures))
    else:
        names = [str(n) for n in metrics]
        missing = [n for n in names if not any(n in rs for rs in sets.values())]
        if missing:
            given = ", ".join(dict.fromkeys(n for rs in sets.values() for n in rs))
            raise ValueError(f"metric {missing[0]!r} is not among the results given ({given})")
    out_dir = _folder(folder)
    labels: dict[str, str] = {}
    for label in sets:
        base = safe_name(label, fallback="generator")
        name, i = base, 1
        while name in labels.values():
            i += 1
            name = f"{base}-{i}"
        labels[label] = name
    written: list[Path] = []
    number = 0
    for metric in names:
        present = {label: rs[metric] for label, rs in sets.items() if metric in rs}
        figures = get_spec(metric).figures
        for index in range(len(figures)):
            part = safe_name(metric) + (f"-{index + 1}" if len(figures) > 1 else "")
            groups = ([(present, "")] if layout == "side_by_side" else
                      [({label: r}, labels[label]) for label, r in present.items()])
            for group, suffix in groups:
                number += 1
                name = f"{number:02d}-{part}" + (f"--{suffix}" if suffix and len(sets) > 1 else "") + f".{fmt}"
                fig = slide_figure(group, index=index, width_in=width_in, height_in=height_in)
                written.append(_export().write_atomic(_inside(out_dir, name), _save(fig, fmt)))
    return written


# ---------------------------------------------------------------------------------------------------------------
# the worksheet: a small, safe reading of a notebook's Markdown

#: A span of inline text: ``("text", str)``, ``("code", str)``, ``("strong", spans)`` or ``("em", spans)``.
Span = tuple[str, Any]

_INLINE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])"          # a backslash escape: the character itself
                     r"|`([^`\n]+)`"                           # a code span
                     r"|\*\*(?=\S)(.+?)(?<=\S)\*\*"              # bold
                     r"|\*(?=[^\s*])(.+?)(?<=[^\s*])\*", re.S)  # italic
_DETAILS = re.compile(r"<details\b(?:(?!<details\b).)*?</details\s*>", re.I | re.S)
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_HEADING = re.compile(r"^(#{1,3})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^(\s*)[-*+]\s+(.*)$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_EXERCISE = re.compile(r"^\s*(?:\*\*|__|\*|_)?\s*Exercise\b", re.I)


def inline_spans(text: str) -> list[Span]:
    """The inline Markdown of ``text`` as spans (no HTML: the template escapes every string).

    >>> inline_spans("a **b** `<c>` *d*")  # doctest: +NORMALIZE_WHITESPACE
    [('text', 'a '), ('strong', [('text', 'b')]), ('text', ' '), ('code', '<c>'), ('text', ' '),
     ('em', [('text', 'd')])]
    """
    out: list[Span] = []
    pos = 0

    def text_span(s: str) -> None:
        if not s:
            return
        if out and out[-1][0] == "text":
            out[-1] = ("text", out[-1][1] + s)
        else:
            out.append(("text", s))

    for m in _INLINE.finditer(text):
        text_span(text[pos:m.start()])
        if m.group(1) is not None:
            text_span(m.group(1))
        elif m.group(2) is not None:
            out.append(("code", m.group(2)))
        elif m.group(3) is not None:
            out.append(("strong", inline_spans(m.group(3))))
        else:
            out.append(("em", inline_spans(m.group(4))))
        pos = m.end()
    text_span(text[pos:])
    return out


def _without_solutions(text: str) -> str:
    """Markdown less every ``<details>`` block (innermost first; an unclosed one to the end of the cell) and
    every HTML comment."""
    text = _COMMENT.sub("", text)
    while True:
        shorter = _DETAILS.sub("", text)
        if shorter == text:
            break
        text = shorter
    at = re.search(r"<details\b", text, re.I)
    return text[:at.start()] if at else text


def _table_text(lines: list[str], width: int = 100) -> str:
    """A Markdown table as plain text in aligned columns (its rule line left out), the last column wrapped so that
    a row fits in ``width`` characters where it can (its continuation lines start under that column)."""
    import textwrap

    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in lines if not _TABLE_RULE.match(line)]
    widths = [max(len(r[i]) if i < len(r) else 0 for r in rows) for i in range(max(len(r) for r in rows))]
    out = []
    for r in rows:
        head = "  ".join(c.ljust(w) for c, w in zip(r[:-1], widths)) + ("  " if len(r) > 1 else "")
        room = max(20, width - len(head))
        last = textwrap.wrap(r[-1], room) or [""]
        out.append((head + last[0]).rstrip())
        out += [" " * len(head) + more for more in last[1:]]
    return "\n".join(out)


def markdown_blocks(text: str) -> list[dict[str, Any]]:
    """The blocks of a Markdown text: ``{"kind": "heading", "level", "spans"}``, ``{"kind": "paragraph",
    "spans"}``, ``{"kind": "list", "items": [{"depth", "spans"}]}`` or ``{"kind": "table", "text"}``.

    Only headings ``#`` to ``###``, paragraphs, bullet lists, tables (kept as text) and inline bold, italic and
    code are read; anything else (HTML included) stays text.

    >>> [b["kind"] for b in markdown_blocks("# T\\n\\nSome *text*.\\n\\n- a\\n- b\\n\\n| x |\\n|---|\\n| 1 |")]
    ['heading', 'paragraph', 'list', 'table']
    """
    blocks: list[dict[str, Any]] = []
    para: list[str] = []
    table: list[str] = []
    items: list[dict[str, Any]] = []

    def flush() -> None:
        if para:
            blocks.append({"kind": "paragraph", "spans": inline_spans(" ".join(para))})
            para.clear()
        if table:
            blocks.append({"kind": "table", "text": _table_text(table)})
            table.clear()
        if items:
            blocks.append({"kind": "list", "items": [
                {"depth": it["depth"], "spans": inline_spans(" ".join(it["lines"]))} for it in items]})
            items.clear()

    for raw in text.replace("\r\n", "\n").split("\n"):
        line = raw.rstrip()
        if not line.strip():
            if not items:
                flush()
            continue
        heading, bullet = _HEADING.match(line), _BULLET.match(line)
        if heading:
            flush()
            blocks.append({"kind": "heading", "level": len(heading.group(1)), "spans": inline_spans(heading.group(2))})
        elif line.lstrip().startswith("|"):
            if not table:
                flush()
            table.append(line)
        elif bullet:
            if para or table:
                flush()
            items.append({"depth": min(len(bullet.group(1).expandtabs(4)) // 2, 3), "lines": [bullet.group(2)]})
        elif items and raw[:1] in (" ", "\t"):
            items[-1]["lines"].append(line.strip())  # a list item's continuation
        else:
            if items or table:
                flush()
            para.append(line.strip())
    flush()
    return blocks


def _cell_text(cell: Mapping[str, Any]) -> str:
    src = cell.get("source", "")
    return src if isinstance(src, str) else "".join(src)


def _is_solution(cell: Mapping[str, Any]) -> bool:
    meta = cell.get("metadata") or {}
    return "solution" in (meta.get("tags") or []) or bool((meta.get("jupyter") or {}).get("source_hidden"))


def notebook_blocks(nb: Mapping[str, Any], *, code: bool = False) -> list[dict[str, Any]]:
    """A notebook's Markdown without its solutions, as :func:`markdown_blocks`, with ``{"kind": "answer"}`` after
    each exercise (a paragraph that opens with "Exercise", up to the next heading, exercise or cell).

    Cells tagged ``solution`` or whose ``metadata.jupyter.source_hidden`` is true are left out, and so is every
    ``<details>`` block of a Markdown cell; other code cells are printed as ``{"kind": "code", "text"}`` when
    ``code`` is true.
    """
    out: list[dict[str, Any]] = []
    for cell in nb.get("cells", []):
        if _is_solution(cell):
            continue
        if cell.get("cell_type") == "code":
            if code and _cell_text(cell).strip():
                out.append({"kind": "code", "text": _cell_text(cell)})
            continue
        if cell.get("cell_type") != "markdown":
            continue
        open_exercise = False
        for block in markdown_blocks(_without_solutions(_cell_text(cell))):
            starts = block["kind"] == "paragraph" and _EXERCISE.match(_plain(block["spans"])) is not None
            if open_exercise and (starts or block["kind"] == "heading"):
                out.append({"kind": "answer"})
                open_exercise = False
            out.append({**block, "exercise": True} if starts else block)
            open_exercise = open_exercise or starts
        if open_exercise:
            out.append({"kind": "answer"})
    return out


def _plain(spans: Iterable[Span]) -> str:
    return "".join(s if kind in ("text", "code") else _plain(s) for kind, s in spans)


def _title_of(nb: Mapping[str, Any]) -> str:
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "markdown":
            for line in _cell_text(cell).splitlines():
                if line.startswith("# "):
                    return _plain(inline_spans(line[2:].strip()))
    return "Worksheet"


#: The worksheet's page: every string reaches it through the template's escaping. Kerning is off and code is
#: 0.9 em: with kerning, or code at 8.5 points in 10.5-point text, WeasyPrint 70 broke some lines after their first
#: words ("A" alone on a line, then a full line).
_WORKSHEET = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{ csp }}">
<meta name="generator" content="synthpriv_report">
<title>{{ title }}</title>
<style>
@page { size: A4; margin: 16mm 18mm; @bottom-right { content: counter(page) " / " counter(pages); font-size: 8pt;
  color: #57606a; } }
body { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; font-size: 10.5pt; line-height: 1.4;
  color: #1f2328; font-kerning: none; }
h1 { font-size: 14pt; margin: 7mm 0 2mm; break-after: avoid; } h1.spr-title { font-size: 17pt; margin: 0 0 4mm; }
h2 { font-size: 13pt; margin: 6mm 0 2mm; break-after: avoid; }
h3 { font-size: 11pt; margin: 4mm 0 2mm; break-after: avoid; } p { margin: 0 0 2.5mm; }
code, pre { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 0.9em; }
pre { white-space: pre-wrap; background: #f6f8fa; padding: 2mm; border-radius: 1mm; }
pre.spr-table { font-size: 0.72em; }
ul { margin: 0 0 2.5mm; padding-left: 6mm; }
.spr-kicker { color: #57606a; font-size: 9pt; text-transform: uppercase; letter-spacing: 0.05em; }
.spr-name { margin: 0 0 6mm; } .spr-name span { display: inline-block; width: 70mm;
  border-bottom: 0.6pt solid #57606a; }
.spr-answer { break-inside: avoid; margin: 2mm 0 5mm; border: 0.6pt solid #8c959f; border-radius: 1mm;
  padding: 1mm 3mm 3mm; }
.spr-exercise { break-after: avoid; }
.spr-answer p { color: #57606a; font-size: 8pt; margin: 0; }
.spr-line { height: 8mm; border-bottom: 0.5pt solid #c4c9cf; }
</style></head>
{% macro spans(items) %}{% for kind, s in items %}
{%- if kind == "text" %}{{ s }}
{%- elif kind == "code" %}<code>{{ s }}</code>
{%- elif kind == "strong" %}<strong>{{ spans(s) }}</strong>
{%- else %}<em>{{ spans(s) }}</em>{% endif %}
{%- endfor %}{% endmacro %}
<body>
<p class="spr-kicker">Worksheet</p>
<h1 class="spr-title">{{ title }}</h1>
<p class="spr-name">Name: <span>&#8203;</span></p>
{% for b in blocks %}
{% if b.kind == "heading" %}<h{{ b.level }}>{{ spans(b.spans) }}</h{{ b.level }}>
{% elif b.kind == "paragraph" %}<p{% if b.get("exercise") %} class="spr-exercise"{% endif %}>{{ spans(b.spans) }}</p>
{% elif b.kind == "list" %}<ul>{% for it in b["items"] %}
<li style="margin-left:{{ it.depth * 5 }}mm">{{ spans(it.spans) }}</li>{% endfor %}</ul>
{% elif b.kind == "table" %}<pre class="spr-table">{{ b.text }}</pre>
{% elif b.kind == "code" %}<pre>{{ b.text }}</pre>
{% elif b.kind == "answer" %}<div class="spr-answer"><p>Your answer</p>
{% for _ in range(lines) %}<div class="spr-line"></div>{% endfor %}</div>
{% endif %}
{% endfor %}
</body></html>
"""


@cache
def _worksheet_template() -> Any:
    return templating.environment("synthpriv_report.export").from_string(_WORKSHEET)


def _read_notebook(notebook: Any) -> tuple[dict[str, Any], Path | None]:
    if isinstance(notebook, Mapping):
        return dict(notebook), None
    path = Path(notebook)
    return json.loads(path.read_text(encoding="utf-8")), path


def worksheet_html(notebook: Any, *, title: str | None = None, code: bool = False, answer_lines: int = 7) -> str:
    """The worksheet's page (HTML, with a Content-Security-Policy without script): see :func:`worksheet`."""
    nb, _ = _read_notebook(notebook)
    blocks = notebook_blocks(nb, code=code)
    # the notebook's own title is the page's heading: the first level-1 heading is not repeated
    for i, b in enumerate(blocks):
        if b["kind"] == "heading" and b["level"] == 1:
            if title is None:
                title = _plain(b["spans"])
            del blocks[i]
            break
    page: str = _worksheet_template().render(csp=_export().CSP, title=title if title is not None else _title_of(nb),
                                                 blocks=blocks, lines=int(answer_lines))
    return page


def worksheet(notebook: str | os.PathLike[str] | Mapping[str, Any], pdf_path: str | os.PathLike[str], *,
              title: str | None = None, code: bool = False, answer_lines: int = 7) -> Path:
    """Print a notebook's Markdown, without its solutions, as a worksheet (A4 PDF) with answer space.

    Parameters
    ----------
    notebook : path or dict
        An ``.ipynb`` file or its JSON (nbformat 4).
    pdf_path : path
        Where the PDF goes (written whole; never over the notebook).
    title : str, optional
        The page's heading; default the notebook's first level-1 heading.
    code : bool, default False
        Print the code cells too (never the solutions'); by default only the Markdown.
    answer_lines : int, default 7
        Ruled lines of the answer space after each exercise.

    Returns
    -------
    Path
        ``pdf_path``.

    Notes
    -----
    Left out: every cell tagged ``solution`` or hidden (``metadata.jupyter.source_hidden``), every
    ``<details>...</details>`` block of a Markdown cell (an unclosed one to the end of its cell) and every HTML
    comment. The Markdown is read by a small converter (headings ``#`` to ``###``, paragraphs, bullet lists, bold,
    italic, code; tables printed as text) into plain structures, and the package's autoescaping template writes
    them: HTML in a cell prints as text. The page carries the reports' Content-Security-Policy (no script, nothing
    loaded) and is printed by WeasyPrint.
    """
    export = _export()
    nb, source = _read_notebook(notebook)
    export.check_distinct({"notebook": source}, {"pdf_path": pdf_path})
    pdf = export.html_to_pdf(worksheet_html(nb, title=title, code=code, answer_lines=answer_lines))
    return export.write_atomic(pdf_path, pdf)


# ---------------------------------------------------------------------------------------------------------------
# the quiz


@dataclass(frozen=True)
class Question:
    """One question of a :class:`Quiz`: multiple choice (``options`` and the index ``answer`` of the right one) or
    a number (no ``options``; ``answer`` a number, right within ``tolerance``).

    >>> Question("2 + 2?", answer=4.0, tolerance=0.0).is_right(4)
    True
    """

    prompt: str
    options: tuple[str, ...] = ()
    answer: float = 0
    hint: str = ""
    tolerance: float = 0.0
    unit: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", tuple(str(o) for o in self.options))
        if self.options:
            if isinstance(self.answer, bool) or int(self.answer) != self.answer or \
                    not 0 <= int(self.answer) < len(self.options):
                raise ValueError(f"question {self.prompt[:60]!r}: answer must be the index of one of its "
                                 f"{len(self.options)} options, not {self.answer!r}")
        elif not (math.isfinite(float(self.answer)) and self.tolerance >= 0):
            raise ValueError(f"question {self.prompt[:60]!r}: a numeric answer needs a finite value and a tolerance "
                             f">= 0, not {self.answer!r} +- {self.tolerance!r}")

    @property
    def numeric(self) -> bool:
        return not self.options

    def is_right(self, given: Any) -> bool:
        """Whether ``given`` (an option's index, or a number) is the right answer."""
        if given is None:
            return False
        if self.numeric:
            try:
                x = float(given.strip().rstrip("%").strip().replace(",", ".")) if isinstance(given, str) \
                    else float(given)
            except (TypeError, ValueError):
                return False
            return math.isfinite(x) and abs(x - float(self.answer)) <= self.tolerance + 1e-12
        return bool(given == int(self.answer))

    def feedback(self, given: Any) -> str:
        """``"right"`` or ``"not quite: <hint>"``."""
        return "right" if self.is_right(given) else ("not quite: " + self.hint if self.hint else "not quite")


def _question(q: Question | Mapping[str, Any]) -> Question:
    if isinstance(q, Question):
        return q
    if isinstance(q, Mapping):
        unknown = set(q) - {"prompt", "options", "answer", "hint", "tolerance", "unit"}
        if unknown:
            raise ValueError(f"a question has unknown keys {sorted(unknown)}")
        return Question(**q)
    raise TypeError(f"a question is a Question or a mapping, not {type(q).__name__}")


_PROMPT = "<div class='spr-report'><p><b>{{ n }}.</b> {{ prompt }}</p></div>"
_FEEDBACK = ("{% if text %}<span role='status' style='color:{{ 'var(--jp-success-color1, #1a7f37)' if right else "
             "'var(--jp-warn-color1, #9a6700)' }}'>{{ text }}</span>{% endif %}")
_SCORE = "<b>Score: {{ right }} / {{ total }}</b>{% if answered < total %} ({{ answered }} checked){% endif %}"


class Quiz:
    """A quiz in a notebook, checked in its own kernel: nothing is sent anywhere.

    Each question shows its prompt, its options (or a number box) and a *Check* button; checking says "right" or
    "not quite: <hint>" and updates the score. Every string is shown as text (the prompts and feedback through the
    package's autoescaping template, the options as the widgets' plain labels).

    Parameters
    ----------
    questions : sequence of Question or mapping
        ``{"prompt", "options", "answer", "hint"}`` (``answer`` the index of the right option) or, for a number,
        ``{"prompt", "answer", "tolerance", "hint"}``.

    Attributes
    ----------
    questions : tuple of Question
    widget : ipywidgets.VBox
        What the notebook shows (the quiz displays as it).
    answers : list
        The last answer checked for each question (None before).
    """

    def __init__(self, questions: Sequence[Question | Mapping[str, Any]]):
        import ipywidgets as w

        from ..display.widgets import html

        self._html = html
        self.questions = tuple(_question(q) for q in questions)
        if not self.questions:
            raise ValueError("a quiz needs at least one question")
        self.answers: list[Any] = [None] * len(self.questions)
        self.inputs: list[Any] = []
        self.buttons: list[Any] = []
        self.feedbacks: list[Any] = []
        rows = []
        for i, q in enumerate(self.questions):
            prompt = w.HTML(html(_PROMPT, n=i + 1, prompt=q.prompt))
            if q.numeric:
                # a text box (an empty number box would read 0): "2.7", "2,7" and "2.7 %" are all read as 2.7
                box: Any = w.Text(value="", placeholder="a number" + (f" ({q.unit})" if q.unit else ""),
                                  layout=w.Layout(width="16em"))
            else:
                box = w.RadioButtons(options=[(o, j) for j, o in enumerate(q.options)], value=None,
                                     layout=w.Layout(width="auto"))
            button = w.Button(description="Check", layout=w.Layout(width="6em"))
            feedback = w.HTML("")
            button.on_click(lambda _b, i=i: self.check(i))
            self.inputs.append(box)
            self.buttons.append(button)
            self.feedbacks.append(feedback)
            rows.append(w.VBox([prompt, box, w.HBox([button, feedback])]))
        self.score = w.HTML(html(_SCORE, right=0, answered=0, total=len(self.questions)))
        self.widget = w.VBox([*rows, self.score])
        self.widget.add_class("spr-report")

    def check(self, i: int, answer: Any = ...) -> str:
        """Check question ``i`` (0-based) with ``answer``, by default what its control holds; returns the feedback."""
        if answer is not ...:
            self.inputs[i].value = ("" if answer is None else str(answer)) if self.questions[i].numeric else answer
        given = self.inputs[i].value
        if isinstance(given, str) and not given.strip():
            given = None
        self.answers[i] = given
        q = self.questions[i]
        text = q.feedback(given) if given is not None else "choose an answer first"
        self.feedbacks[i].value = self._html(_FEEDBACK, text=text, right=q.is_right(given))
        self.score.value = self._html(_SCORE, right=self.right, answered=sum(a is not None for a in self.answers),
                                      total=len(self.questions))
        return text

    @property
    def right(self) -> int:
        """How many questions were last checked with the right answer."""
        return sum(q.is_right(a) for q, a in zip(self.questions, self.answers))

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        bundle: dict[str, Any] = self.widget._repr_mimebundle_(include=include, exclude=exclude)
        return bundle


def quiz(questions: Sequence[Question | Mapping[str, Any]]) -> Quiz:
    """A :class:`Quiz` of ``questions``, shown as a widget in a notebook (``quiz(LAB_QUIZ)``)."""
    return Quiz(questions)


#: Five questions on the lab's ideas (notebooks/02_teaching_the_metrics.ipynb), with hints that point back to it.
LAB_QUIZ: tuple[Question, ...] = (
    Question(
        "Why does every check compare the synthetic data with the holdout?",
        ("The holdout is a second synthetic data set, and the two are averaged",
         "The holdout is real people the generator never saw: how close they come to the training set is what a "
         "generator that copies nobody reaches",
         "The holdout holds the training records most at risk",
         "A safe generator's measures are 0, and the holdout checks the arithmetic"),
        answer=1,
        hint="the glossary calls the holdout the yardstick: fresh real records from the same population. A "
             "synthetic share is compared with theirs, never with zero (exercise 2)."),
    Question(
        "A check shows a 95% interval and a graded bound. Which statement is right?",
        ("The level is graded on the end of the 95% interval",
         "The interval is for reading; the level rests on a stricter one-sided bound, set so that all the checks "
         "together raise a false alarm on an honest generator about 5% of the time",
         "The graded bound always lies inside the 95% interval",
         "A 95% interval contains the true value in every sample"),
        answer=1,
        hint="section 4: the graded bound is one-sided and stricter, and can lie outside the interval (each of the "
             "seven checks runs at a stricter level, Bonferroni's correction)."),
    Question(
        "A release has 0% exact copies. What does that tell you on its own?",
        ("That it copies nobody",
         "That its membership attack is at chance",
         "Little: records changed in a column or two still copy a person, and a few copied atypical people hide "
         "in any share; the near-copy, distance and membership checks can still find them",
         "That its privacy score is 100"),
        answer=2,
        hint="in the leak explorer, near copies alone read 0% exact copies and still leave \"low\"; and the "
             "atypical release of section 5b passes the distance checks and fails only the membership attack."),
    Question(
        "A membership attack reports a TPR of 30% at 1% FPR. What does it mean?",
        ("30% of the synthetic records are copies of training records",
         "The attacker is right about 30% of the people it tries, 1% of the time",
         "While wrongly accusing 1% of real people who were not in the training data, the attacker finds 30% of "
         "the people who were",
         "The risk is 30%, give or take 1%"),
        answer=2,
        hint="TPR is the share of training members found, FPR the share of outsiders wrongly accused; chance alone "
             "gives a TPR of about 1% at 1% FPR (section 5)."),
    Question(
        "A generator is differentially private with ε = 1. An attack on it wrongly accuses 1% of the outsiders. At "
        "most what percentage of the training members can it find? (a number, in percent)",
        answer=round(math.e, 2), tolerance=0.1, unit="%",
        hint="ε-DP bounds how much more often anything happens with a person in the data than without: by e^ε, "
             "and e^1 ≈ 2.7, so at most about 2.7 times the 1% it wrongly accuses (section 5b)."),
)


# ---------------------------------------------------------------------------------------------------------------
# Colab

#: The first code cell of the Colab copy: the package from the Python Package Index.
COLAB_INSTALL = ["# In Colab: install the package from the Python Package Index (PyPI)\n",
                 "%pip install -q synthpriv-report"]
#: Colab's (and a desktop Jupyter's) Python kernel.
COLAB_KERNEL = {"name": "python3", "display_name": "Python 3", "language": "python"}


def colab_notebook(notebook_path: str | os.PathLike[str], out_path: str | os.PathLike[str]) -> Path:
    """Write a copy of a notebook for Google Colab: the first code cell installs the package from the Python
    Package Index (``%pip install -q synthpriv-report``), placed right below the notebook's title (a first Markdown
    cell opening with a level-1 heading) or first; the kernel is ``python3``; every output is cleared.

    The notebook itself is left as it is, and ``out_path`` may not be it. Text marked as about a local
    installation (:data:`synthpriv_report.tools.lite.LOCAL_ONLY`) is kept: Colab installs the package as a local
    installation does.

    Returns
    -------
    Path
        ``out_path``, written whole.
    """
    source = Path(notebook_path)
    _export().check_distinct({"notebook_path": source}, {"out_path": out_path})
    nb = copy.deepcopy(json.loads(source.read_text(encoding="utf-8")))
    nb.setdefault("metadata", {})["kernelspec"] = dict(COLAB_KERNEL)
    nb["metadata"]["language_info"] = {"name": "python"}
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
    install: dict[str, Any] = {"cell_type": "code", "execution_count": None, "id": "synthpriv-colab-install",
                               "metadata": {}, "outputs": [], "source": list(COLAB_INSTALL)}
    cells = nb.get("cells", [])
    at = 1 if cells and cells[0].get("cell_type") == "markdown" and _cell_text(cells[0]).lstrip().startswith(
        "# ") else 0
    nb["cells"] = cells[:at] + [install] + cells[at:]
    nb.setdefault("nbformat", 4)
    nb["nbformat_minor"] = max(int(nb.get("nbformat_minor", 5)), 5)  # cell ids
    return _export().write_atomic(out_path, json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
