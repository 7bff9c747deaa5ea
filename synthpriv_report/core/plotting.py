"""Drawing helpers shared by the metrics' figure functions (matplotlib, imported lazily).

A metric's figure is part of its declaration and draws from its result alone (``result.evidence``); these helpers
hold the common style: set colours, level colours (the same as the tables), empirical CDFs from stored quantiles,
histograms from stored counts, an interval strip with reference lines, and the limits of a value axis fitted to
what is drawn on it (:func:`fit_axis`, :func:`hist_top`, :func:`quantile_top`). Nothing here computes a metric.

One style for every figure: :func:`figure_style` is a context manager (a white grid theme, the
colour-blind-safe palette, fonts of at least :data:`MIN_FONT_PT` points, deterministic SVG) entered around each
drawing; importing this module changes no global setting.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from .formats import SEARCH_NAMES

#: Colours of the three sets (colour-blind-safe: Okabe-Ito) and of the levels.
COLORS = {"S": "#D55E00", "H": "#0072B2", "T": "#7f7f7f", "line": "#222222"}
#: Level colours, the same as the badges of the notebook views and the reports (Okabe-Ito bluish green and orange,
#: a dark red); the badges always carry the level's word and a symbol as well.
LEVEL_COLORS = {"low": "#009E73", "inconclusive": "#F0E442", "medium": "#E69F00", "high": "#B3261E",
                None: "#B0B0B0"}
#: The Okabe-Ito palette (colour-blind-safe), the colour cycle of every figure.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")
#: Smallest font size in a figure, in points at the size the figure is printed.
MIN_FONT_PT = 8.0
#: Widest figure, in inches: the text width of an A4 page with the reports' margins (182 mm) less a little.
MAX_WIDTH_IN = 6.9
#: The value axis of a distribution (histogram, ECDF) reaches at least this share of every set's records ...
SHOWN_SHARE = 0.95
#: ... and every histogram bin holding at least this share of a set's records: what lies beyond is the far tail,
#: bars a few pixels high at the figures' size (of distances and ratios: the safe end). Above the 1% that a
#: stored histogram's last bin may hold of values beyond its range (clipped into it).
VISIBLE_BIN = 0.02
#: Room left at each end of a fitted axis, as a share of the span of what it shows, so that a mark at an end (a
#: point at exactly 0 or 1, a threshold line) is drawn whole.
AXIS_MARGIN = 0.04


#: The whitegrid look the figures were first drawn with (seaborn 0.13's ``axes_style("whitegrid")`` and
#: ``plotting_context("paper")``, written out so that drawing imports no styling library): light grey grid and
#: frame, no tick marks on the axes, dark grey text, thin lines.
WHITEGRID = {
    "axes.axisbelow": True, "axes.edgecolor": ".8", "axes.grid": True, "axes.labelcolor": ".15",
    "axes.linewidth": 1.0, "axes.spines.bottom": True, "axes.spines.left": True, "axes.spines.right": True,
    "axes.spines.top": True, "grid.color": ".8", "grid.linestyle": "-", "grid.linewidth": 0.8,
    "lines.linewidth": 1.2, "lines.markersize": 4.8, "lines.solid_capstyle": "round", "patch.edgecolor": "w",
    "patch.force_edgecolor": True, "patch.linewidth": 0.8, "text.color": ".15",
    "xtick.bottom": False, "xtick.color": ".15", "xtick.direction": "out", "xtick.top": False,
    "xtick.major.size": 4.8, "xtick.major.width": 1.0, "xtick.minor.size": 3.2, "xtick.minor.width": 0.8,
    "ytick.color": ".15", "ytick.direction": "out", "ytick.left": False, "ytick.right": False,
    "ytick.major.size": 4.8, "ytick.major.width": 1.0, "ytick.minor.size": 3.2, "ytick.minor.width": 0.8,
}


@contextmanager
def figure_style() -> Iterator[None]:
    """The one style of the package's figures, for the duration of a ``with`` block.

    A white grid theme (:data:`WHITEGRID`) with the :data:`PALETTE` colour cycle, a white background (figures are
    shown on a light card, so they read on dark notebook themes too), fonts of 8 to 9 points, text kept as text in
    SVG output (searchable, sharp at any zoom) and SVG bytes that do not change between runs. Global settings are
    restored on exit.
    """
    import matplotlib as mpl
    from cycler import cycler

    rc: dict[str, Any] = {
        **WHITEGRID,
        "axes.prop_cycle": cycler(color=list(PALETTE)),
        "font.family": "sans-serif",
        "font.sans-serif": ["DejaVu Sans", "Liberation Sans", "Arial", "Helvetica"],
        "font.size": 9.0, "axes.titlesize": 9.5, "axes.labelsize": 9.0, "xtick.labelsize": 8.5,
        "ytick.labelsize": 8.5, "legend.fontsize": 8.0, "legend.title_fontsize": 8.5,
        "figure.facecolor": "white", "axes.facecolor": "white", "savefig.facecolor": "white",
        "svg.fonttype": "none", "svg.hashsalt": "synthpriv_report", "svg.image_inline": True,
    }
    # matplotlib types the keys as a closed list of literals
    with mpl.rc_context(rc):  # type: ignore[arg-type]
        yield


def enforce_min_font(fig: Any, minimum: float = MIN_FONT_PT) -> None:
    """Raise every text of ``fig`` (titles, labels, ticks, legends, annotations) to at least ``minimum`` points.

    Metric figure functions may ask for small legend text; printed at the figure's own size no text is smaller
    than ``minimum``. The texts are found as matplotlib's ``findobj`` finds them, except that an axis gives only
    the tick labels it already holds: asking an axis for its children makes it create every major and minor tick
    it could draw, which cost a fifth of a figure's time (ticks made later copy the first tick's font).
    """
    for t in figure_texts(fig):
        if t.get_text() and t.get_fontsize() < minimum:
            t.set_fontsize(minimum)


def figure_texts(artist: Any) -> Iterator[Any]:
    """Every :class:`~matplotlib.text.Text` under ``artist`` (itself included), without making an axis' ticks."""
    from matplotlib.axis import Axis
    from matplotlib.text import Text

    if isinstance(artist, Axis):
        yield artist.label
        yield artist.offsetText
        for tick in (*artist.majorTicks, *artist.minorTicks):
            yield tick.label1
            yield tick.label2
        return
    if isinstance(artist, Text):
        yield artist
    for child in artist.get_children():
        yield from figure_texts(child)


SET_NAMES = SEARCH_NAMES


def new_ax(ax: Any) -> Any:
    """``ax``, or a new Axes of a new pyplot figure when None."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=(6.0, 3.4))
    return ax


def empty(ax: Any, message: str) -> Any:
    """An Axes that says why there is nothing to draw."""
    ax.text(0.5, 0.5, message, ha="center", va="center", fontsize=9, wrap=True, transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])
    return ax


def ecdf(ax: Any, summary: Mapping[str, Any] | None, **kw: Any) -> None:
    """Empirical CDF from a quantile summary (:func:`synthpriv_report.stats.quantile_summary`)."""
    if not summary or not summary.get("n"):
        return
    xs = np.asarray(summary["values"], dtype=np.float64)
    ys = np.asarray(summary["probs"], dtype=np.float64)
    ok = np.isfinite(xs)
    xs, ys = xs[ok], ys[ok]
    if xs.size == 0:
        return
    ax.step(np.concatenate([[xs[0]], xs]), np.concatenate([[0.0], ys]), where="post", **kw)


def hist(ax: Any, h: Mapping[str, Any] | None, *, filled: bool, **kw: Any) -> None:
    """A stored histogram (``{"edges", "counts"}``) drawn as shares of records per bin."""
    if not h:
        return
    edges = np.asarray(h["edges"], dtype=np.float64)
    counts = np.asarray(h["counts"], dtype=np.float64)
    total = counts.sum()
    if total <= 0:
        return
    ax.hist(edges[:-1], bins=edges, weights=counts / total, histtype="stepfilled" if filled else "step",
            alpha=0.45 if filled else 1.0, lw=1.6, **kw)


def hist_top(h: Mapping[str, Any] | None, *, share: float = SHOWN_SHARE, visible: float = VISIBLE_BIN
             ) -> float | None:
    """Where the value axis of a stored histogram (``{"edges", "counts"}``) should end: the right edge of the bin
    in which ``share`` of the records is reached, or of the last bin holding at least ``visible`` of them, whichever
    lies further right. None for an empty histogram.

    >>> hist_top({"edges": [0.0, 0.25, 0.5, 0.75, 1.0], "counts": [600, 395, 5, 0]})
    0.5
    >>> hist_top({"edges": [0.0, 0.25, 0.5, 0.75, 1.0], "counts": [90, 5, 0, 5]})
    1.0
    """
    if not h:
        return None
    edges = np.asarray(h["edges"], dtype=np.float64)
    counts = np.asarray(h["counts"], dtype=np.float64)
    total = counts.sum()
    if counts.size == 0 or total <= 0:
        return None
    reached = int(np.searchsorted(np.cumsum(counts) / total, share - 1e-12))
    seen = np.flatnonzero(counts >= visible * total)
    last = max(min(reached, counts.size - 1), int(seen[-1]) if seen.size else 0)
    return float(edges[last + 1])


def quantile_top(summary: Mapping[str, Any] | None, *, share: float = SHOWN_SHARE) -> float | None:
    """Where the value axis of an ECDF drawn from a quantile summary should end: its ``share`` quantile (linear
    between the stored quantiles). None for an empty summary.

    >>> quantile_top({"probs": [0.0, 0.5, 1.0], "values": [0.0, 1.0, 9.0], "n": 3}, share=0.75)
    5.0
    """
    if not summary or not summary.get("n"):
        return None
    xs = np.asarray(summary["values"], dtype=np.float64)
    ps = np.asarray(summary["probs"], dtype=np.float64)
    ok = np.isfinite(xs)
    if not ok.any():
        return None
    return float(np.interp(share, ps[ok], xs[ok]))


def fit_axis(ax: Any, values: Sequence[float | None], *, axis: str = "x", low: float | None = None,
             high: float | None = None, margin: float = AXIS_MARGIN) -> tuple[float, float]:
    """Set the limits of one axis of ``ax`` to what it shows: from the smallest to the largest of ``values`` (the
    drawn data's ends and every reference line or marker), held within the metric's own range ``[low, high]``
    where given, with ``margin`` of the span added at each end so that a mark at either end (a point at exactly
    0, an error bar's cap, a line on the range's end) is drawn whole.

    Returns the limits set. Values that are None or not finite are left out; when all are equal the axis spans
    a tenth of their size (1 around 0).

    >>> from matplotlib.figure import Figure
    >>> ax = Figure().subplots()
    >>> fit_axis(ax, [0.0, 0.3, 0.5], low=0.0, high=1.0)
    (-0.02, 0.52)
    """
    v = np.asarray([float(x) for x in values if x is not None], dtype=np.float64)
    v = v[np.isfinite(v)]
    a, b = (float(v.min()), float(v.max())) if v.size else (low if low is not None else 0.0, high or 1.0)
    if low is not None:
        a, b = max(a, low), max(b, low)
    if high is not None:
        a, b = min(a, high), min(b, high)
    if b <= a:
        b = a + (0.1 * abs(a) if a else 1.0)
    span = b - a
    lims = (round(a - margin * span, 12), round(b + margin * span, 12))
    (ax.set_xlim if axis == "x" else ax.set_ylim)(*lims)
    return lims


def interval_strip(ax: Any, value: float, interval: Sequence[float] | None, level: str | None, *, label: str,
                   refs: Sequence[tuple[float, str, str]] = (), xlim: tuple[float, float] | None = None,
                   bounds: tuple[float, float] = (0.0, 1.0), marks: Sequence[float] = ()) -> Any:
    """One value with its interval on a horizontal strip, with reference lines ``(x, label, linestyle)``.

    The error bar never gets a negative length, whatever rounding did to the interval's ends. The x axis spans
    the value, its interval, the reference lines and ``marks`` (other points the caller draws on the strip),
    within ``bounds`` (the value's own range), with a margin at each end (:func:`fit_axis`); ``xlim`` sets it
    instead.
    """
    for x, text, ls in refs:
        ax.axvline(x, color=COLORS["line"], ls=ls, lw=1.2, label=text)
    colour = LEVEL_COLORS.get(level, LEVEL_COLORS[None])
    if interval is not None and all(np.isfinite(interval)):
        lo, hi = float(interval[0]), float(interval[1])
        ax.errorbar([value], [0.0], xerr=[[max(0.0, value - lo)], [max(0.0, hi - value)]], fmt="o", color=colour,
                    capsize=6, lw=2, ms=7, label=label)
    else:
        ax.plot([value], [0.0], "o", color=colour, label=label)
    if xlim is not None:
        ax.set_xlim(*xlim)
    else:
        ends = [value, *(interval if interval is not None else ()), *(x for x, _, _ in refs), *marks]
        fit_axis(ax, ends, low=bounds[0], high=bounds[1])
    ax.set_ylim(-1.0, 1.0)
    ax.set_yticks([])
    return ax


def log_rate_axes(ax: Any, floor: float) -> None:
    """Both axes of a ROC curve on log scales from ``floor`` to 100%, labelled as plain percentages (the default
    labels, 10 with a superscript exponent, print below 8 points), with no minor ticks: the figures' style draws no
    tick marks and grids the major ticks only, so minor ones would show nothing, and laying out their empty labels
    was half of such a figure's time."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

    ax.set_xscale("log")
    ax.set_yscale("log")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(LogLocator(base=10.0))
        axis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v * 100:.4g}%"))
        axis.set_minor_locator(NullLocator())
    ax.set_xlim(floor, 1.0)
    ax.set_ylim(floor, 1.0)
