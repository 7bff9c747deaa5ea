"""Figures of the notebook views and reports (matplotlib; seaborn for style only).

Every ``plot_*`` function draws on ``ax`` (or a new Axes from :func:`matplotlib.pyplot.subplots` when ``ax`` is
None) and returns the Axes; none calls ``plt.show()``. The first argument is either the arrays the metric
modules expose (``dcr_arrays``, ``privacy_score_arrays``, ``nndr_arrays`` of
:mod:`synthpriv_report.metrics.distance`, pure reads of cached neighbour tables) or a result/evaluation from
which they are looked up, so drawing never starts a neighbour search.

:func:`render_png` draws into a pyplot-free Agg figure and returns PNG bytes that are identical for identical
data (fixed dpi, no ``Software`` metadata); the figure is never registered with pyplot, so nothing is left open.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..results import MetricResult, ResultSet

#: Resolution of every embedded PNG (fixed so that bytes are deterministic).
DPI = 100

#: Colours of the three sets and of the levels.
COLORS = {"S": "#d1495b", "H": "#2e86ab", "T": "#8d99ae", "line": "#222222"}
LEVEL_COLORS = {"low": "#3c9d5d", "medium": "#e8a33d", "high": "#c0392b", None: "#b0b0b0"}
SET_NAMES = {"S": "synthetic → train", "H": "holdout → train", "T": "train → train (within real)"}


# ---------------------------------------------------------------------------------------------------------------
# locating arrays (pure reads of cached tables)


def _owner(obj: Any):
    """The :class:`Evaluation` that produced ``obj`` (itself when it is one), or None."""
    from ..evaluation import Evaluation
    from .views import owner_of

    if isinstance(obj, Evaluation):
        return obj
    return owner_of(obj)


def arrays_for(obj: Any, kind: str) -> dict[str, Any] | None:
    """Per-record arrays of a figure: ``kind`` in ``{"dcr", "privacy_score", "nndr"}``.

    ``obj`` may be the arrays themselves (a mapping), a :class:`MetricResult` or :class:`ResultSet` produced by an
    evaluation, or the :class:`Evaluation`. Returns None when the arrays are not available (no owning evaluation,
    or the metric has not been computed yet, so that its tables are not cached). Never searches.
    """
    from ..evaluation import Evaluation

    if isinstance(obj, Mapping) and not isinstance(obj, ResultSet):
        return dict(obj)
    ev = _owner(obj)
    if ev is None:
        return None
    if isinstance(obj, Evaluation):
        ev.results(metrics=[kind])  # computation step (cached after the first call)
    elif kind not in ev.computed_metrics():
        return None  # its tables are not cached: reading them would search, and rendering never searches
    from ..metrics import distance

    fn = getattr(distance, f"{kind}_arrays")
    before = ev.search_count
    out = fn(ev.context)
    if ev.search_count != before:  # pragma: no cover - guarded above: the helpers only read cached tables
        raise RuntimeError(f"{kind}_arrays started a neighbour search; figures must only read cached tables")
    return dict(out)


def _new_ax(ax: Any):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=(6.0, 3.4))
    return ax


def _finite(x: Any) -> NDArray[np.float64]:
    a = np.asarray(x, dtype=np.float64).reshape(-1)
    return a[np.isfinite(a)]


def _ecdf(ax: Any, x: NDArray[np.float64], **kw: Any) -> None:
    if x.size == 0:
        return
    xs = np.sort(x)
    ys = np.arange(1, xs.size + 1) / xs.size
    if xs.size > 1000:  # at most 1000 steps on screen: the curve is the same at figure resolution
        pick = np.unique(np.linspace(0, xs.size - 1, 1000).round().astype(np.int64))
        xs, ys = xs[pick], ys[pick]
    ax.step(np.concatenate([[xs[0]], xs]), np.concatenate([[0.0], ys]), where="post", **kw)


# ---------------------------------------------------------------------------------------------------------------
# figures


def plot_dcr(data: Any, *, ax: Any = None, kind: str = "hist") -> Any:
    """Distances to the closest training record (spec 2.1): synthetic against holdout and within-real baselines.

    Parameters
    ----------
    data : mapping, MetricResult or Evaluation
        ``dcr_arrays(ctx)``: ``"S"`` DCR(s, T), optional ``"H"`` DCR(h, T), ``"T"`` DCR(t, T∖t), ``"copies"``
        (bool per s), ``"space"``; or an object they can be looked up from.
    ax : matplotlib Axes, optional
    kind : {"hist", "ecdf"}
        Histogram (20 equal-width bins on [0, 1] for gower, on [0, max] otherwise; densities so that sets of
        different sizes compare) or empirical CDF.

    Returns
    -------
    matplotlib Axes
        Exact copies (DCR 0 with an identical record) are marked by a vertical line at 0 with their share in the
        legend. Lower DCRs are riskier.
    """
    arrays = arrays_for(data, "dcr")
    ax = _new_ax(ax)
    if not arrays:
        return _empty(ax, "DCR arrays not available (compute the 'dcr' metric first)")
    space = str(arrays.get("space", "gower"))
    sets = [(k, _finite(arrays[k])) for k in ("S", "H", "T") if arrays.get(k) is not None]
    if space.startswith("gower"):
        hi = 1.0
    else:
        hi = max([float(x.max()) for _, x in sets if x.size] + [1e-12])
    bins = np.linspace(0.0, hi, 21)
    for key, x in sets:
        if kind == "ecdf":
            _ecdf(ax, x, color=COLORS[key], label=f"{SET_NAMES[key]} (n={x.size})", lw=1.6)
        else:
            w = np.full(x.size, 1.0 / max(x.size, 1))
            ax.hist(np.clip(x, 0.0, hi), bins=bins, weights=w, histtype="step" if key != "S" else "stepfilled",
                    alpha=0.45 if key == "S" else 1.0, color=COLORS[key], lw=1.6,
                    label=f"{SET_NAMES[key]} (n={x.size})")
    copies = arrays.get("copies")
    if copies is not None and np.asarray(copies).size:
        share = float(np.mean(np.asarray(copies, dtype=bool)))
        ax.axvline(0.0, color=COLORS["line"], ls="--", lw=1.2, label=f"exact copies: {share:.1%} of synthetic")
    ax.set_xlabel(f"distance to closest training record ({space})")
    ax.set_ylabel("cumulative share of records" if kind == "ecdf" else "share of records per bin")
    ax.set_title("Distance to closest record (DCR)" + (": ECDF" if kind == "ecdf" else ""))
    ax.set_xlim(0.0, hi)
    ax.legend(fontsize=7, loc="lower right" if kind == "ecdf" else "upper right")
    return ax


def plot_privacy_score(data: Any, *, ax: Any = None, alpha: float | None = None) -> Any:
    """TTPR against TSPR (spec 2.3) as empirical CDFs with the α-quantile line.

    Parameters
    ----------
    data : mapping, MetricResult or Evaluation
        ``privacy_score_arrays(ctx)`` with ``"ttpr"`` and ``"tspr"``; or an object they can be looked up from.
    ax : matplotlib Axes, optional
    alpha : float, optional
        The quantile level (default: the result's ``details["alpha"]``, else 0.1).

    Returns
    -------
    matplotlib Axes
        q = α-quantile of TTPR (vertical line), the horizontal line at α, and f_TS = share of TSPR ≤ q where the
        TSPR curve crosses q. Score = 100·min(1, f_TT/f_TS): a TSPR curve above the TTPR curve at q is risky.
    """
    arrays = arrays_for(data, "privacy_score")
    ax = _new_ax(ax)
    if not arrays:
        return _empty(ax, "TTPR/TSPR arrays not available (compute 'privacy_score' first)")
    if alpha is None:
        alpha = _detail(data, "alpha", 0.1)
    ttpr, tspr = _finite(arrays["ttpr"]), _finite(arrays["tspr"])
    q = float(np.quantile(ttpr, alpha)) if ttpr.size else 0.0
    f_tt = float(np.mean(ttpr <= q)) if ttpr.size else 0.0
    f_ts = float(np.mean(tspr <= q)) if tspr.size else 0.0
    _ecdf(ax, ttpr, color=COLORS["T"], lw=1.6, label="TTPR: train half → other train half")
    _ecdf(ax, tspr, color=COLORS["S"], lw=1.6, label="TSPR: train half → synthetic")
    ax.axvline(q, color=COLORS["line"], ls="--", lw=1.2, label=f"q = {alpha:g}-quantile of TTPR = {q:.3g}")
    ax.axhline(alpha, color=COLORS["line"], ls=":", lw=1.0, label=f"α = {alpha:g}")
    ax.plot([q], [f_ts], "o", color=COLORS["S"], ms=5, label=f"f_TS = {f_ts:.1%} (f_TT = {f_tt:.1%})")
    both = np.concatenate([ttpr, tspr])
    hi = float(np.quantile(both, 0.98)) * 1.05 if both.size else 1.0
    ax.set_xlim(0.0, max(hi, q * 1.2, 1e-9))
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel("proximity ratio (distance / distance to own nearest real neighbour)")
    ax.set_ylabel("cumulative share of train records")
    ax.set_title("Proximity ratios: TTPR vs TSPR")
    ax.legend(fontsize=7, loc="lower right")
    return ax


def plot_nndr(data: Any, *, ax: Any = None, threshold: float | None = None) -> Any:
    """NNDR distributions (spec 2.4) of synthetic and holdout records, with the threshold line.

    Parameters
    ----------
    data : mapping, MetricResult or Evaluation
        ``nndr_arrays(ctx)`` with ``"S"`` (and ``"H"`` with a holdout).
    ax : matplotlib Axes, optional
    threshold : float, optional
        Default: the result's ``details["threshold"]``, else 0.5.

    Returns
    -------
    matplotlib Axes
        Records left of the line count as at risk (low NNDR is riskier).
    """
    arrays = arrays_for(data, "nndr")
    ax = _new_ax(ax)
    if not arrays:
        return _empty(ax, "NNDR arrays not available (compute 'nndr' first)")
    if threshold is None:
        threshold = _detail(data, "threshold", 0.5)
    sets = [(k, _finite(arrays[k])) for k in ("S", "H") if arrays.get(k) is not None]
    hi = max([float(np.quantile(x, 0.99)) for _, x in sets if x.size] + [threshold * 1.5, 1e-9]) * 1.05
    bins = np.linspace(0.0, hi, 31)
    for key, x in sets:
        w = np.full(x.size, 1.0 / max(x.size, 1))
        below = float(np.mean(x < threshold)) if x.size else 0.0
        name = "synthetic" if key == "S" else "holdout"
        ax.hist(np.clip(x, 0.0, hi), bins=bins, weights=w, histtype="stepfilled" if key == "S" else "step",
                alpha=0.45 if key == "S" else 1.0, color=COLORS[key], lw=1.6,
                label=f"{name} (n={x.size}; {below:.1%} below)")
    ax.axvline(threshold, color=COLORS["line"], ls="--", lw=1.2, label=f"threshold = {threshold:g}")
    ax.set_xlim(0.0, hi)
    ax.set_xlabel("NNDR (distance / typical spacing of real records there)")
    ax.set_ylabel("share of records per bin")
    ax.set_title("Nearest-neighbour distance ratio")
    ax.legend(fontsize=7, loc="upper right")
    return ax


def plot_holdout_share(result: Any, *, ax: Any = None) -> Any:
    """The holdout DCR share (spec 2.2) with its Wilson interval and the 50% line.

    Parameters
    ----------
    result : MetricResult or ResultSet
        The ``holdout_dcr_share`` result (a ResultSet is looked up by name).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
        Above 50%: synthetic records sit closer to training records than to holdout records (riskier).
    """
    if isinstance(result, ResultSet):
        result = result.get("holdout_dcr_share")
    ax = _new_ax(ax)
    if result is None or not result.computed:
        why = result.reason_not_computed if result is not None else "no result"
        return _empty(ax, f"holdout share not computed: {why}")
    v = float(result.value)
    ax.axvline(0.5, color=COLORS["line"], ls="--", lw=1.2, label="50%: no closer to train than to holdout")
    if result.interval is not None:
        lo, hi = result.interval
        ax.errorbar([v], [0.0], xerr=[[v - lo], [hi - v]], fmt="o", color=LEVEL_COLORS[result.level], capsize=6,
                    lw=2, ms=7, label=f"share = {v:.1%} (95% Wilson {lo:.1%}–{hi:.1%})")
    else:
        ax.plot([v], [0.0], "o", color=LEVEL_COLORS[result.level], label=f"share = {v:.1%}")
    if result.calibration is not None:
        ax.plot([result.calibration], [0.0], "|", color=COLORS["H"], ms=18, mew=2,
                label=f"holdout as synthetic: {result.calibration:.1%}")
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(-1.0, 1.0)
    ax.set_yticks([])
    ax.set_xlabel("share of synthetic records closer to train than to holdout")
    ax.set_title("Holdout DCR share")
    ax.legend(fontsize=7, loc="upper left")
    return ax


def risk_position(result: MetricResult, value: float | None = None) -> float | None:
    """Position of a value on [0, 1] oriented so that 1 is the risky end of the metric's declared range.

    None when the range is not finite (the metric then has no fixed scale to place it on).

    >>> r = MetricResult("m", 75.0, direction="higher_is_safer", value_range=(0.0, 100.0))
    >>> risk_position(r)
    0.25
    """
    v = result.value if value is None else value
    lo, hi = result.value_range
    if v is None or not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return None
    p = min(1.0, max(0.0, (float(v) - lo) / (hi - lo)))
    return p if result.direction == "higher_is_riskier" else 1.0 - p


def plot_risk_overview(results: Any, *, ax: Any = None) -> Any:
    """Every computed metric on one chart: its value placed on its range, oriented so right is riskier.

    Parameters
    ----------
    results : ResultSet, Evaluation or mapping of name to MetricResult
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
        One row per metric with a finite range; the bar is coloured by level and the calibration value (holdout
        as synthetic) is a vertical tick. Metrics without a fixed scale are listed in the title count only.
    """
    from ..evaluation import Evaluation

    if isinstance(results, Evaluation):
        results = results.results()
    rows = [r for r in results.values() if r.computed and risk_position(r) is not None]
    ax = _new_ax(ax)
    if not rows:
        return _empty(ax, "no metric with a fixed scale was computed")
    y = np.arange(len(rows))[::-1]
    for yi, r in zip(y, rows):
        ax.barh(yi, risk_position(r), color=LEVEL_COLORS[r.level], height=0.6)
        if r.calibration is not None:
            c = risk_position(r, r.calibration)
            if c is not None:
                ax.plot([c, c], [yi - 0.38, yi + 0.38], color=COLORS["H"], lw=2)
    ax.set_yticks(y)
    ax.set_yticklabels([r.name for r in rows], fontsize=8)
    ax.set_xlim(0.0, 1.0)
    ax.set_xticks([0.0, 0.5, 1.0])
    ax.set_xticklabels(["safe end", "middle", "risky end"])
    ax.set_xlabel("value on its declared range (bar colour: level; blue tick: holdout as synthetic)")
    ax.set_title(f"Risk overview ({len(rows)} metrics on a fixed scale)")
    return ax


def _empty(ax: Any, message: str) -> Any:
    ax.text(0.5, 0.5, message, ha="center", va="center", fontsize=9, wrap=True, transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])
    return ax


def _detail(obj: Any, key: str, default: float) -> float:
    if isinstance(obj, MetricResult) and key in obj.details:
        try:
            return float(obj.details[key])
        except (TypeError, ValueError):
            return default
    return default


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
    """The figures of one metric as ``(caption, png bytes)``; empty when it has none or its arrays are absent."""
    if not result.computed:
        return []
    p = dict(params or {})
    name = result.name
    if name in ("dcr", "exact_copies"):
        arr = arrays_for(result, "dcr")
        if not arr:
            return []
        png = render_png(lambda a, b: (plot_dcr(arr, ax=a, kind="hist"), plot_dcr(arr, ax=b, kind="ecdf")),
                         ncols=2, size=(5.0, 3.4))
        return [("DCR of synthetic records against the holdout and within-real baselines", png)]
    if name == "privacy_score":
        arr = arrays_for(result, "privacy_score")
        if not arr:
            return []
        alpha = float(p.get("alpha", _detail(result, "alpha", 0.1)))
        return [("TTPR and TSPR with the α-quantile", render_png(lambda a: plot_privacy_score(arr, ax=a,
                                                                                              alpha=alpha)))]
    if name == "nndr":
        arr = arrays_for(result, "nndr")
        if not arr:
            return []
        thr = float(p.get("nndr_threshold", _detail(result, "threshold", 0.5)))
        return [("NNDR distributions with the threshold", render_png(lambda a: plot_nndr(arr, ax=a,
                                                                                         threshold=thr)))]
    if name == "holdout_dcr_share":
        return [("Holdout share with its Wilson interval", render_png(lambda a: plot_holdout_share(result, ax=a),
                                                                      size=(6.0, 2.2)))]
    return []
