"""Figures of the notebook views and reports (matplotlib; seaborn for style only).

Every figure is drawn from results alone: a metric's figures are part of its declaration
(:class:`~synthpriv_report.registry.FigureSpec`, reading ``result.evidence``), and the risk overview reads the
result set. So a report loaded from JSON draws the same figures as the live evaluation, and drawing never starts a
neighbour search.

:func:`render_png` draws into a pyplot-free Agg figure and returns PNG bytes that are identical for identical
data (fixed dpi, no ``Software`` metadata); the figure is never registered with pyplot, so nothing is left open.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ..metrics.distance import plot_dcr, plot_exact_copies, plot_holdout_share, plot_nndr, plot_privacy_score
from ..plotting import COLORS, LEVEL_COLORS, SET_NAMES, empty, new_ax
from ..registry import REGISTRY, get_spec
from ..results import MetricResult

#: Resolution of every embedded PNG (fixed so that bytes are deterministic).
DPI = 100


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


def _threshold_positions(r: MetricResult) -> list[tuple[float, str]]:
    """Positions of the level thresholds that apply to the headline value itself (others are not on this scale)."""
    rule = r.level_rule
    if rule is None or rule.scale != "the value":
        return []
    out = []
    for which in ("medium", "high"):
        t = getattr(rule, which)
        if t is not None:
            p = risk_position(r, float(t))
            if p is not None:
                out.append((p, which))
    return out


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
    ax.set_yticklabels([r.name for r in rows], fontsize=8)
    ax.set_xlim(0.0, 1.0)
    ax.set_xticks([0.0, 0.5, 1.0])
    ax.set_xticklabels(["safe end", "middle", "risky end"])
    ax.set_xlabel("value on its range (colour: level; blue: holdout as synthetic; black: thresholds)")
    ax.set_title(f"Risk overview ({len(rows)} metrics on a fixed scale)")
    return ax


# ---------------------------------------------------------------------------------------------------------------
# PNG rendering for HTML


def render_png(draw: Callable[..., Any], *, ncols: int = 1, size: tuple[float, float] = (6.0, 3.4),
               margins: tuple[float, float] = (0.75, 0.0)) -> bytes:
    """Draw with ``draw(ax)`` (or ``draw(ax1, ax2, ...)`` when ``ncols > 1``) and return PNG bytes.

    The figure is a bare :class:`matplotlib.figure.Figure` on the Agg canvas (no pyplot state, nothing to close),
    styled with seaborn's ``whitegrid`` inside a context manager (no global change), saved at :data:`DPI` with
    ``metadata={"Software": None}``: the same data gives the same bytes.
    """
    import seaborn as sns
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with sns.axes_style("whitegrid"), sns.plotting_context("notebook", font_scale=0.8):
        fig = Figure(figsize=(size[0] * ncols, size[1]))
        FigureCanvasAgg(fig)
        axes = fig.subplots(1, ncols) if ncols > 1 else [fig.subplots()]
        draw(*axes)
        # fixed margins (tight_layout would draw the figure once more; this keeps rendering fast)
        fig.subplots_adjust(left=margins[0] / (size[0] * ncols), right=1 - 0.25 / (size[0] * ncols),
                            bottom=0.55 / size[1], top=1 - 0.35 / size[1], wspace=0.28)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    return buf.getvalue()


def figures_for(result: MetricResult, params: Mapping[str, Any] | None = None) -> list[tuple[str, bytes]]:
    """The figures of one metric as ``(caption, png bytes)``, drawn from the result alone; empty when the metric
    declares none, was not computed or carries no evidence."""
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
        png = render_png(lambda *axes, f=fig: f.draw(result, *axes), ncols=fig.ncols, size=fig.size)
        out.append((fig.caption, png))
    return out


__all__ = [
    "COLORS", "LEVEL_COLORS", "SET_NAMES", "DPI", "plot_dcr", "plot_exact_copies", "plot_holdout_share",
    "plot_nndr", "plot_privacy_score", "plot_risk_overview", "risk_position", "render_png", "figures_for",
]
