"""Figures of the notebook views and reports (matplotlib).

Every figure is drawn from results alone: a metric's figures are part of its declaration
(:class:`~synthpriv_report.core.registry.FigureSpec`, reading ``result.evidence``), and the risk overview reads the
result set. So a report loaded from JSON draws the same figures as the live evaluation, and drawing never starts a
neighbour search.

:func:`render_figure` draws into a pyplot-free Agg figure in the package's one style
(:func:`synthpriv_report.core.plotting.figure_style`) and returns SVG (pages, reports) or PNG at 200 dpi (widgets),
identical bytes for identical data; the figure is never registered with pyplot, so nothing is left open.
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..core.plotting import (
    COLORS,
    LEVEL_COLORS,
    MAX_WIDTH_IN,
    MIN_FONT_PT,
    SET_NAMES,
    empty,
    enforce_min_font,
    figure_style,
    new_ax,
)
from ..core.registry import REGISTRY, get_spec
from ..core.results import MetricResult

#: Resolution of PNG figures (widgets); pages and documents embed SVG.
DPI = 200


def risk_position(result: MetricResult, value: float | None = None) -> float | None:
    """Position of a value on [0, 1] oriented so that 1 is the risky end of the metric's declared range.

    None when the range is not finite (the metric then has no fixed scale to place it on).

    >>> r = MetricResult("m", 75.0, direction="higher_is_safer", value_range=(0.0, 100.0))
    >>> risk_position(r)
    0.25
    """
    v = result.value if value is None else value
    lo, hi = result.value_range
    if v is None or not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo or not math.isfinite(float(v)):
        return None
    p = min(1.0, max(0.0, (float(v) - lo) / (hi - lo)))
    return p if result.direction == "higher_is_riskier" else 1.0 - p


#: Rule scales whose thresholds are in the value's own units (the Wilson lower bound of a share is compared with
#: thresholds on the share's scale).
_VALUE_UNIT_SCALES = ("the value", "the Wilson lower bound of the share")
_EXCESS_SCALE = "the value minus the same metric computed on the holdout"


def threshold_values(r: MetricResult) -> list[tuple[float, str]]:
    """The level thresholds of a result placed on its value's own scale, as ``(value, "medium" | "high")``.

    Thresholds on the value (or on the lower bound of a share, in the same units) are taken as they are; a
    threshold on the excess over the holdout's own value (a higher-is-riskier metric) sits at the holdout's value
    plus the threshold. Rules on another quantity (a ratio of medians, a drop in percent) have no place on this
    scale and give nothing.

    >>> from synthpriv_report.core.results import LevelRule
    >>> rule = LevelRule(0.05, 0.2, "", "", scale="the value minus the same metric computed on the holdout")
    >>> r = MetricResult("m", 0.5, calibration=0.3, level_rule=rule, direction="higher_is_riskier",
    ...                  value_range=(0.0, 1.0))
    >>> [(round(v, 2), w) for v, w in threshold_values(r)]
    [(0.35, 'medium'), (0.5, 'high')]
    """
    rule = r.level_rule
    if rule is None:
        return []
    out = []
    for which in ("medium", "high"):
        t = getattr(rule, which)
        if t is None:
            continue
        if rule.scale in _VALUE_UNIT_SCALES:
            out.append((float(t), which))
        elif rule.scale == _EXCESS_SCALE and r.calibration is not None and r.direction == "higher_is_riskier":
            out.append((float(r.calibration) + float(t), which))
    return out


def _threshold_positions(r: MetricResult) -> list[tuple[float, str]]:
    """Positions on the risk axis of the thresholds of :func:`threshold_values` that fall inside the range."""
    out = []
    for v, which in threshold_values(r):
        lo, hi = r.value_range
        if lo <= v <= hi:
            p = risk_position(r, v)
            if p is not None:
                out.append((p, which))
    return out


def _short_title(r: MetricResult, width: int = 30) -> str:
    """A metric's title for an axis label: wrapped at ``width`` characters, two lines at most.

    >>> r = MetricResult("holdout_dcr_share", 0.5, title="Closer to the training data than to the holdout")
    >>> print(_short_title(r))
    Closer to the training data
    than to the holdout
    """
    import textwrap

    lines = textwrap.wrap(str(r.title or r.name), width) or [r.name]
    if len(lines) > 2:
        lines = [lines[0], textwrap.shorten(" ".join(lines[1:]), width, placeholder="…")]
    return "\n".join(lines)


def plot_risk_overview(results: Any, *, ax: Any = None) -> Any:
    """Every computed metric on one chart: its value placed on its range, oriented so right is riskier.

    Parameters
    ----------
    results : ResultSet or mapping of name to MetricResult
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
        One row per metric with a finite range; the bar is coloured by level, the calibration value (holdout as
        synthetic) is a blue tick, and thresholds that apply to the value itself are drawn as short marks
        (dashed: medium, solid: high). Metrics without a fixed scale are left out.
    """
    rows = [r for r in results.values() if r.computed and risk_position(r) is not None]
    ax = new_ax(ax)
    if not rows:
        return empty(ax, "no metric with a fixed scale was computed")
    y = np.arange(len(rows))[::-1]
    for yi, r in zip(y, rows):
        ax.barh(yi, risk_position(r), color=LEVEL_COLORS.get(r.level, LEVEL_COLORS[None]), height=0.6)
        if r.calibration is not None:
            c = risk_position(r, r.calibration)
            if c is not None:
                ax.plot([c, c], [yi - 0.38, yi + 0.38], color=COLORS["H"], lw=2)
        for p, which in _threshold_positions(r):
            ax.plot([p, p], [yi - 0.42, yi + 0.42], color=COLORS["line"], lw=1.2,
                    ls="--" if which == "medium" else "-")
    ax.set_yticks(y)
    # the measures' titles, in words (a reader of the report does not know the code names), on two lines at most
    ax.set_yticklabels([_short_title(r) for r in rows], fontsize=8)
    ax.set_xlim(0.0, 1.0)
    ax.set_xticks([0.0, 0.5, 1.0])
    ax.set_xticklabels(["safe end", "middle", "risky end"])
    ax.set_xlabel("value on its range (colour: level; blue: the holdout in place of the synthetic data; "
                  "black: level thresholds, dashed medium, solid high)")
    ax.set_title(f"Risk overview ({len(rows)} metrics on a fixed scale)")
    return ax


# ---------------------------------------------------------------------------------------------------------------
# rendering: SVG for pages and documents, PNG for widgets


def _draw_figure(draw: Callable[..., Any], ncols: int, size: tuple[float, float], nrows: int = 1) -> Any:
    """A bare Agg :class:`~matplotlib.figure.Figure` (no pyplot state, nothing to close) drawn by ``draw``.

    The figure is laid out at the width it is printed at (at most :data:`~synthpriv_report.core.plotting.MAX_WIDTH_IN`
    inches; wider requests are narrowed, keeping their height), with matplotlib's constrained layout so that
    labels and legends never overlap, and every text raised to at least 8 points.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    width = min(size[0] * ncols, MAX_WIDTH_IN)
    fig = Figure(figsize=(width, size[1] * nrows), layout="constrained")
    FigureCanvasAgg(fig)
    axes = list(fig.subplots(nrows, ncols).flat) if ncols * nrows > 1 else [fig.subplots()]
    draw(*axes)
    enforce_min_font(fig)
    for ax in fig.axes:
        wrap_labels(ax, width / max(ncols, 1))
    return fig


def wrap_labels(ax: Any, width_in: float) -> None:
    """Wrap an axes' title and x label at word boundaries to the axes' width (about 0.55 em per character).

    The axes are narrower than the figure by their y tick labels (long on the risk overview, whose labels are
    the measures' titles): that room, measured on the drawn labels, is taken off the width.
    """
    import textwrap

    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    labels = [t.get_window_extent(renderer).width for t in ax.get_yticklabels() if t.get_text()]
    width_in = max(1.0, width_in - (max(labels) / fig.dpi + 0.3 if labels else 0.0))
    for text in (ax.title, ax.xaxis.label):
        s = text.get_text()
        if not s:
            continue
        chars = max(12, int(width_in * 72.0 / (0.55 * text.get_fontsize())))
        if len(s) > chars:
            text.set_text("\n".join(textwrap.wrap(s, chars)))


def render_figure(draw: Callable[..., Any], *, ncols: int = 1, size: tuple[float, float] = (6.0, 3.4),
                  fmt: str = "svg", nrows: int = 1) -> bytes:
    """Draw with ``draw(ax)`` (or ``draw(ax1, ax2, ...)`` when ``ncols > 1``) in :func:`figure_style` and return
    the figure as SVG (vector, text kept as text) or PNG (:data:`DPI` dots per inch).

    The same data gives the same bytes (no date or software metadata, fixed SVG ids).

    Parameters
    ----------
    draw : callable
        Draws on the axes it is given.
    ncols : int
        Axes side by side.
    nrows : int, default 1
        Rows of axes (``draw`` gets ``nrows * ncols`` axes, row by row; one left over is switched off by it).
    size : (float, float)
        Size of one axes in inches; the whole figure is at most 6.9 inches wide.
    fmt : {"svg", "png"}

    Returns
    -------
    bytes
    """
    if fmt not in ("svg", "png"):
        raise ValueError(f"unknown figure format {fmt!r}; choose 'svg' or 'png'")
    with figure_style():
        fig = _draw_figure(draw, ncols, size, nrows)
        buf = io.BytesIO()
        if fmt == "svg":
            fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
        else:
            fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    return buf.getvalue()


def render_png(draw: Callable[..., Any], *, ncols: int = 1, size: tuple[float, float] = (6.0, 3.4),
               margins: tuple[float, float] | None = None) -> bytes:
    """:func:`render_figure` as PNG at :data:`DPI` dots per inch (``margins`` is accepted for compatibility and
    ignored: the layout is constrained)."""
    return render_figure(draw, ncols=ncols, size=size, fmt="png")


def data_uri(data: bytes, fmt: str) -> str:
    """A ``data:`` URL of SVG or PNG bytes (exported pages load images from ``data:`` URLs only)."""
    mime = "image/svg+xml" if fmt == "svg" else "image/png"
    return f"data:{mime};base64," + base64.b64encode(data).decode("ascii")


def alt_text(result: MetricResult, caption: str) -> str:
    """What a figure shows and the value it is about, for an image's ``alt`` attribute.

    >>> r = MetricResult("m", 0.25, title="Share", direction="higher_is_riskier", value_range=(0.0, 1.0))
    >>> alt_text(r, "Histogram of distances.")
    'Histogram of distances. Share: 0.25, higher is riskier, no level.'
    """
    value = "not computed" if result.value is None else f"{float(result.value):.4g}"
    direction = {"higher_is_riskier": "higher is riskier", "higher_is_safer": "higher is safer"}.get(
        result.direction, str(result.direction))
    level = f"{result.level} risk" if result.level else "no level"
    return f"{caption.rstrip()} {result.title or result.name}: {value}, {direction}, {level}."


def figures_for(result: MetricResult, params: Mapping[str, Any] | None = None, *,
                fmt: str = "png") -> list[tuple[str, bytes]]:
    """The figures of one metric as ``(caption, bytes)`` (PNG by default, for widgets; ``fmt="svg"`` for pages),
    drawn from the result alone; empty when the metric declares none, was not computed or carries no evidence."""
    if not result.computed:
        return []
    spec = REGISTRY.get(result.name)
    if spec is None:
        try:
            spec = get_spec(result.name)
        except ValueError:
            return []
    out = []
    for fig in spec.figures:
        if fig.needs_evidence and not result.evidence:
            continue
        data = render_figure(lambda *axes, f=fig: f.draw(result, *axes), ncols=fig.ncols, size=fig.size, fmt=fmt)
        out.append((fig.caption, data))
    return out


#: Resolution of the live figures of the sliders: a screen's, not a printer's (a quarter of the pixels of
#: :data:`DPI`, so a slider move encodes a quarter of the PNG).
WIDGET_DPI = 100
#: Widest live figure, in inches (a notebook is wider than an A4 page).
WIDGET_MAX_WIDTH_IN = 11.0


class LiveFigure:
    """One declared figure of a metric, for one or several results side by side, kept between slider moves.

    The matplotlib figure, its axes and their layout are made once; an update clears the axes, lets the metric's
    declared drawing function (:class:`~synthpriv_report.core.registry.FigureSpec`) draw the new result on them and
    encodes a PNG at :data:`WIDGET_DPI`. The layout (matplotlib's constrained layout, the slowest step of a
    drawing) is computed on the first drawing only and then frozen; while the axes' frame (limits, ticks, labels,
    titles) stays the same, its pixels are kept and only the new artists are drawn over them (blitting); and
    panels side by side share their axis ranges (the union of what each panel drew), so that honest and leaky
    data are read on the same scale: a figure of one axes puts the panels side by side, a figure of several axes
    one row per panel, aligned.

    Parameters
    ----------
    name : str
        The metric whose figure this is.
    index : int
        Which of its declared figures (default the first).
    panels : sequence of str
        One label per result side by side (titles of the panels); one panel without a title by default.

    Attributes
    ----------
    caption : str
        The figure's declared caption.
    timings : list of float
        Seconds taken by each :meth:`draw`.
    """

    def __init__(self, name: str, index: int = 0, panels: tuple[str, ...] = ("",)):
        self.spec = get_spec(name).figures[index]
        self.caption = self.spec.caption
        self.panels = tuple(panels)
        self.timings: list[float] = []
        self._fig: Any = None
        self._axes: list[Any] = []
        self._background: Any = None
        self._frame_key: tuple[Any, ...] = ()

    def _make(self) -> None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        # a figure of one axes: the panels side by side; of several axes: one row of them per panel
        k, n = self.spec.ncols, len(self.panels)
        rows, cols = (1, n) if k == 1 else (n, k)
        width = min(self.spec.size[0] * cols, WIDGET_MAX_WIDTH_IN)
        height = (self.spec.size[1] + (0.25 if any(self.panels) else 0.0)) * rows
        fig = Figure(figsize=(width, height), dpi=WIDGET_DPI, layout="constrained")
        FigureCanvasAgg(fig)
        self._fig, self._axes = fig, list(fig.subplots(rows, cols, squeeze=False).ravel())

    def draw(self, results: list[MetricResult]) -> bytes:
        """Draw ``results`` (one per panel) and return the PNG bytes."""
        import time

        t0 = time.perf_counter()
        with figure_style():
            first = self._fig is None
            if first:
                self._make()
            for ax in self._axes:
                ax.cla()
            draw_panels(self.spec, self._axes, results, self.panels)
            if first:
                enforce_min_font(self._fig)
                width = self._fig.get_figwidth() / max(len(self._axes), 1)
                for ax in self._axes:
                    wrap_labels(ax, width)
                self._fig.canvas.draw()  # lays out (constrained layout, once)
                self._fig.set_layout_engine("none")
            else:
                _raise_small_texts(self._axes)
            self._render()
        png = _png(self._fig)
        self.timings.append(time.perf_counter() - t0)
        return png


    def _frame(self) -> tuple[Any, ...]:
        """What the background of the axes shows: limits, scales, tick positions and their labels, titles, axis
        labels (the same frame gives the same background pixels).

        The ticks are read from each axis's locator and formatter, which is what a drawing would place, without
        making the tick artists (making them costs more than a slider move may take).
        """
        out: list[Any] = []
        for ax in self._axes:
            out.append((ax.get_xlim(), ax.get_ylim(), ax.get_xscale(), ax.get_yscale(), ax.axison,
                        _ticks(ax.xaxis), _ticks(ax.yaxis),
                        ax.get_title(), ax.get_title("left"), ax.get_title("right"), ax.get_xlabel(),
                        ax.get_ylabel()))
        return tuple(out)

    def _content(self) -> list[tuple[Any, Any]]:
        """``(axes, artist)`` for what a drawing function put on the axes (lines, areas, patches, images,
        texts, the legend), in drawing order; the frame (axes patch, spines, ticks, grid, titles) is not."""
        out = []
        for ax in self._axes:
            arts = [*ax.lines, *ax.collections, *ax.patches, *ax.images, *ax.texts, *ax.artists]
            legend = ax.get_legend()
            if legend is not None:
                legend.get_frame().set_alpha(1.0)  # opaque: its pixels do not depend on what lies beneath
                arts.append(legend)
            out += [(ax, a) for a in sorted(arts, key=lambda a: a.get_zorder())]
        return out

    def _render(self) -> None:
        """Draw the canvas: the frame is drawn again only when it changed (new limits, ticks or labels); else
        its pixels are restored and only the drawing function's artists are drawn over them (matplotlib's
        blitting), which skips most of the text, the slowest part of a drawing. A legend whose entries are
        those of the last drawing is not typeset again: its box is drawn and its kept inside pasted in."""
        from matplotlib.legend import Legend

        canvas = self._fig.canvas
        frame = self._frame()
        content = self._content()
        if getattr(self, "_background", None) is None or frame != self._frame_key:
            for _, a in content:
                a.set_visible(False)
            canvas.draw()
            self._background = canvas.copy_from_bbox(self._fig.bbox)
            self._frame_key = frame
            for _, a in content:
                a.set_visible(True)
        else:
            canvas.restore_region(self._background)
        renderer = canvas.get_renderer()
        kept: dict[int, tuple[Any, Any, Any]] = getattr(self, "_legends", {})
        self._legends: dict[int, tuple[Any, Any, Any]] = {}
        for ax, a in content:
            if not isinstance(a, Legend):
                ax.draw_artist(a)
                continue
            slot, key = self._axes.index(ax), _legend_key(a)
            old = kept.get(slot)
            if old is not None and old[0] == key:
                old[1].legendPatch.draw(renderer)  # the box (same place, same size)
                for region in old[2]:  # its inside: the entries typeset at the last drawing
                    canvas.restore_region(region)
                self._legends[slot] = old
                continue
            ax.draw_artist(a)
            self._legends[slot] = (key, a, [canvas.copy_from_bbox(b) for b in _inside(a.legendPatch, renderer)])


def _inside(patch: Any, renderer: Any) -> list[Any]:
    """Two boxes whose union is every whole pixel inside a legend's box but its rounded corners: pixels that
    only the legend's own (opaque) face, edge and entries decide, whatever the axes show beneath it."""
    from matplotlib.transforms import Bbox

    b = patch.get_window_extent(renderer)
    x0, y0, x1, y1 = math.ceil(b.x0) + 1, math.ceil(b.y0) + 1, math.floor(b.x1) - 1, math.floor(b.y1) - 1
    style = patch.get_boxstyle()
    c = math.ceil(float(getattr(style, "rounding_size", 0.0) or 0.0) * patch.get_mutation_scale()
                  * renderer.points_to_pixels(1.0))
    return [Bbox.from_extents(x0 + c, y0, x1 - c, y1), Bbox.from_extents(x0, y0 + c, x1, y1 - c)]


def _ticks(axis: Any) -> tuple[Any, ...]:
    """Major and minor tick positions of ``axis`` in its view and their labels, from its locators and
    formatters."""
    out: list[Any] = []
    lo, hi = sorted(axis.get_view_interval())
    for locator, formatter in ((axis.get_major_locator(), axis.get_major_formatter()),
                               (axis.get_minor_locator(), axis.get_minor_formatter())):
        locs = [float(x) for x in locator() if lo - 1e-12 * (abs(lo) + 1) <= x <= hi + 1e-12 * (abs(hi) + 1)]
        out.append((tuple(locs), tuple(formatter.format_ticks(locs))))
    return tuple(out)


def _legend_key(legend: Any) -> tuple[Any, ...]:
    """What a legend shows: its place, title, entry texts and each entry's marker, line and colours. Two legends
    with the same key are the same pixels (at a fixed place; a legend placed "best" depends on the data, so it
    has no key)."""
    if legend._loc == 0:
        return (object(),)  # "best": never equal to another
    entries = []
    for h in legend.legend_handles:
        style = []
        for getter in ("get_color", "get_facecolor", "get_edgecolor", "get_linestyle", "get_linewidth",
                       "get_marker", "get_markersize", "get_alpha", "get_hatch"):
            f = getattr(h, getter, None)
            if f is not None:
                v = f()
                style.append(tuple(np.ravel(v).tolist()) if isinstance(v, np.ndarray) else
                             (tuple(v) if isinstance(v, list) else v))
        entries.append((type(h).__name__, tuple(style)))
    return (legend._loc, legend.get_title().get_text(), tuple(t.get_text() for t in legend.texts), tuple(entries),
            legend._fontsize)


def _raise_small_texts(axes: list[Any], minimum: float = MIN_FONT_PT) -> None:
    """:func:`~synthpriv_report.core.plotting.enforce_min_font` for the texts a drawing function makes on its axes
    (titles, labels, annotations, legends), without walking every artist of the figure."""
    for ax in axes:
        texts = [ax.title, ax.xaxis.label, ax.yaxis.label, *ax.texts]
        legend = ax.get_legend()
        if legend is not None:
            texts += [*legend.get_texts(), legend.get_title()]
        for t in texts:
            if t.get_text() and t.get_fontsize() < minimum:
                t.set_fontsize(minimum)


def _png(fig: Any) -> bytes:
    """The drawn canvas of ``fig`` as PNG (fast compression: a slider's figure is encoded on every move)."""
    from PIL import Image

    buf = io.BytesIO()
    width, height = fig.canvas.get_width_height(physical=True)
    Image.frombuffer("RGBA", (width, height), fig.canvas.buffer_rgba()).save(buf, format="png", compress_level=1)
    return buf.getvalue()


def share_ranges(axes: list[Any], ncols: int, npanels: int) -> None:
    """Give the axes in the same position of each panel the union of their x and y ranges (numeric axes only;
    an axis with category tick labels keeps its own)."""
    for j in range(ncols):
        group = [axes[p * ncols + j] for p in range(npanels)]
        for get, put in (("get_xlim", "set_xlim"), ("get_ylim", "set_ylim")):
            lims = [getattr(ax, get)() for ax in group]
            lo = min(min(a, b) for a, b in lims)
            hi = max(max(a, b) for a, b in lims)
            for ax, (a, b) in zip(group, lims):
                getattr(ax, put)((lo, hi) if a <= b else (hi, lo))


def draw_panels(spec: Any, axes: list[Any], results: Sequence[MetricResult], panels: Sequence[str]) -> None:
    """Draw one declared figure (``spec``, a :class:`~synthpriv_report.core.registry.FigureSpec`) for several results,
    each on its own ``spec.ncols`` axes (``axes`` holds them panel by panel), every panel's title led by its label
    (plain text, never mathematics: a "$" in a release's name stays a "$"), and the panels' axis ranges shared
    (:func:`share_ranges`). A result without a value, or without the evidence the figure needs, gets a note in
    place of its figure.

    The one drawing of results side by side: the live figure of the notebook
    (:class:`LiveFigure`) and the documents' (:func:`side_by_side_entry`) both call it.
    """
    k = spec.ncols
    for i, r in enumerate(results):
        group = axes[i * k:(i + 1) * k]
        if r.computed and (r.evidence or not spec.needs_evidence):
            spec.draw(r, *group)
        else:
            empty(group[0], "no figure: " + (r.reason_not_computed or "the result carries no evidence"))
        if panels[i]:
            title = group[0].get_title()
            group[0].set_title(f"{panels[i]}: {title}" if title else panels[i], parse_math=False)
    if len(results) > 1:
        share_ranges(axes, k, len(results))


#: Tallest image of a figure for a page, in inches: a figure of more panels is cut into several images (one
#: after the other, the axis ranges still shared by all), each of which fits an A4 page under a heading.
PAGE_FIGURE_MAX_HEIGHT_IN = 9.0
#: Longest panel label of a figure for a page, in characters (a longer release name is cut, with "…").
PANEL_LABEL_CHARS = 60


def side_by_side_entry(results: Mapping[str, MetricResult], index: int = 0, *,
                       max_height: float = PAGE_FIGURE_MAX_HEIGHT_IN) -> dict[str, Any] | None:
    """One metric's declared figure for several results, panels on shared axis ranges, for a page: the
    documents' counterpart of the notebook's live figure (:class:`LiveFigure` with several panels), drawn by the
    same :func:`draw_panels`.

    Each result gets a row of the figure's own axes, at the size the metric declares (its size in a report, so
    its legends and labels fit as they do there; at most :data:`~synthpriv_report.core.plotting.MAX_WIDTH_IN` inches
    wide), in the package's style, as SVG (text kept as text, identical bytes for identical results); the x axis's
    label, the same in every row, is written under the last row of each image. Rows that would make an image
    taller than ``max_height`` go on to a next image; the axis ranges are shared across all of them.

    Parameters
    ----------
    results : mapping of str -> MetricResult
        Results of the same metric, by label (a release's name), drawn in this order.
    index : int, default 0
        Which of the metric's declared figures.
    max_height : float, default 9.0
        Tallest image, in inches (one row is always drawn, however tall).

    Returns
    -------
    dict or None
        ``{"caption", "parts": [{"alt", "src"}]}``: the declared caption and the images in order (``src`` an SVG
        ``data:`` URL; ``alt`` names each of the image's panels with its value and level). None when the metric
        declares no such figure or no result can draw it.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if not results:
        return None
    first = next(iter(results.values()))
    figures = get_spec(first.name).figures
    if index >= len(figures):
        return None
    spec = figures[index]
    drawn = list(results.values())
    if not any(r.computed and (r.evidence or not spec.needs_evidence) for r in drawn):
        return None
    labels = [str(label) if len(str(label)) <= PANEL_LABEL_CHARS else str(label)[:PANEL_LABEL_CHARS - 1] + "…"
              for label in results]
    k = spec.ncols
    width = min(spec.size[0] * k, MAX_WIDTH_IN)
    # each row: the figure's own height, room for the panel's label above its title, less its x axis's label
    # (the same in every row, so written under the last row only), which the image's height adds once
    row_height, x_label = spec.size[1] + 0.25, 0.3
    per_image = max(1, int((max_height - x_label) // (row_height - x_label)))
    made: list[tuple[Any, list[Any], list[str], list[MetricResult]]] = []
    with figure_style():
        for start in range(0, len(drawn), per_image):
            part, names = drawn[start:start + per_image], labels[start:start + per_image]
            fig = Figure(figsize=(width, (row_height - x_label) * len(part) + x_label), layout="constrained")
            FigureCanvasAgg(fig)
            axes = list(fig.subplots(len(part), k, squeeze=False).ravel())
            draw_panels(spec, axes, part, names)
            for ax in axes[:-k]:
                ax.set_xlabel("")
            enforce_min_font(fig)
            for ax in axes:
                wrap_labels(ax, width / k)
            made.append((fig, axes, names, part))
        if len(made) > 1:  # one scale for every image
            share_ranges([ax for _, axes, _, _ in made for ax in axes], k, len(drawn))
        parts = []
        for fig, _, names, part in made:
            buf = io.BytesIO()
            fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
            listed = "; ".join(alt_text(r, f"{name}:").rstrip(".") for name, r in zip(names, part))
            parts.append({"alt": f"{spec.caption.rstrip().rstrip('.')}. {listed}.",
                          "src": data_uri(buf.getvalue(), "svg")})
    return {"caption": spec.caption, "parts": parts}


def figure_entries(result: MetricResult, params: Mapping[str, Any] | None = None) -> list[dict[str, str]]:
    """The figures of one metric for a page: ``[{"caption", "alt", "src"}]`` with SVG ``data:`` URLs."""
    return [{"caption": c, "alt": alt_text(result, c), "src": data_uri(svg, "svg")}
            for c, svg in figures_for(result, params, fmt="svg")]


def overview_entry(results: Any) -> dict[str, str] | None:
    """The risk overview for a page (``{"caption", "alt", "src"}``, SVG), or None when no metric has a fixed
    scale. The alt text lists every metric's value and level."""
    rows = [r for r in results.values() if r.computed and risk_position(r) is not None]
    if not rows:
        return None
    svg = render_figure(lambda a: plot_risk_overview(results, ax=a), size=(MAX_WIDTH_IN, 1.1 + 0.36 * len(rows)))
    listed = "; ".join(f"{r.title or r.name} {float(r.value):.4g} ({r.level or 'no'} level)" for r in rows)
    return {"caption": "All metrics on one chart: each bar is the value placed on its range, right is riskier; "
                       "black marks are the level thresholds where they lie on the value's own scale (dashed "
                       "medium, solid high; a share is judged by its interval's lower bound), blue marks the "
                       "same measure with the holdout in place of the synthetic data.",
            "alt": f"Risk overview of {len(rows)} metrics: {listed}.", "src": data_uri(svg, "svg")}


__all__ = [
    "COLORS", "LEVEL_COLORS", "SET_NAMES", "DPI", "plot_risk_overview", "risk_position", "render_png", "render_figure",
    "figures_for", "figure_entries", "overview_entry", "alt_text", "data_uri", "LiveFigure", "WIDGET_DPI",
    "share_ranges", "wrap_labels", "draw_panels", "side_by_side_entry", "PAGE_FIGURE_MAX_HEIGHT_IN",
    "PANEL_LABEL_CHARS",
]
