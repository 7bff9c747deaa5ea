"""``nndr``: the share of synthetic records whose nearest-neighbour distance ratio (distance to the closest
training record over that record's typical distance to its own neighbours) is below a threshold.

Definition, source and choices: ``docs/metrics.md``, section "nndr".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import stats
from ...core import plotting as plot
from ...core.params import N_BOOTSTRAP, SOURCES
from ...core.registry import (
    Computation,
    FigureSpec,
    Grading,
    LevelSpec,
    MetricSpec,
    NotRequired,
    Param,
    Presentation,
    TypedDict,
    Words,
    register,
)
from ...core.results import MetricResult, not_computed
from .._shared.arrays import describe, figure_evidence, nndr_arrays, space_for

NNDR_THRESHOLD = Param("nndr_threshold", 0.5, low=0.0, low_open=True, slider=(0.05, 1.0, 0.05),
                       label="NNDR threshold",
                       doc="A synthetic record with a nearest-neighbour distance ratio below it counts as at risk.")


def _nndr_plan(ctx: Any, params: dict[str, Any]) -> list[Any]:
    sp = space_for(ctx, "nndr", "gower")
    reqs = [ctx.request(sp, ctx.T, ctx.T, ctx.settings["nndr_k"]), ctx.request(sp, ctx.S, ctx.T, 1)]
    if ctx.H is not None:
        reqs.append(ctx.request(sp, ctx.H, ctx.T, 1))
    return reqs


def nndr_evidence(arrays: dict[str, Any], *, threshold: float) -> dict[str, Any]:
    """What the NNDR figure needs: per set a 30-bin histogram on a common range and the share below the
    threshold."""
    sets = {k: np.asarray(arrays[k], dtype=np.float64) for k in ("S", "H") if arrays.get(k) is not None}
    fin = {k: stats.finite_values(v) for k, v in sets.items()}  # no copy where every value is finite
    upper = max([float(np.quantile(v, 0.99)) for v in fin.values() if v.size] + [threshold * 1.5, 1e-9]) * 1.05
    ev: dict[str, Any] = {"threshold": threshold, "upper": upper}
    for k, v in fin.items():
        ev[k] = {"hist": stats.histogram(v, upper=upper, bins=30), "n": int(v.size),
                 "share_below": float(np.mean(v < threshold)) if v.size else 0.0}
    return ev


def _nndr_compute(ctx: Any, params: dict[str, Any]) -> MetricResult:
    k = ctx.settings["nndr_k"]
    if ctx.size(ctx.T) <= k:
        return not_computed("nndr", f"needs more than nndr_k={k} real records")
    a = nndr_arrays(ctx)
    thr = float(params["nndr_threshold"])
    below = stats.less(a["S"], thr)
    share = float(below.mean())
    interval = stats.wilson(share, int(below.size))
    s = describe(a["S"], ctx, params, "nndr." + a["space"])
    details: dict[str, Any] = {"threshold": thr, "k": k, "mean": s["mean"], "median": s["median"], "p5": s["p5"],
                               "mean_ci": s["mean_ci"], "median_ci": s["median_ci"], "n_below": int(below.sum()),
                               "n": int(below.size)}
    if "H" in a:
        h_share = float(stats.less(a["H"], thr).mean())
        details["holdout_share"] = h_share
        details["holdout_interval"] = stats.wilson(h_share, int(a["H"].size))
    details["excess_over_holdout"] = share - details["holdout_share"] if "H" in a else None
    return MetricResult(name="nndr", value=share, interval=interval, details=details, space=a["space"],
                        evidence=nndr_evidence(a, threshold=thr))


def plot_nndr(data: Any, *, ax: Any = None, threshold: float | None = None) -> Any:
    """NNDR distributions of synthetic and holdout records, with the threshold line.

    Parameters
    ----------
    data : MetricResult or mapping
        The ``nndr`` result, or :func:`nndr_arrays` (``"S"``, optional ``"H"``).
    ax : matplotlib Axes, optional
    threshold : float, optional
        Threshold when arrays are given (default 0.5); a result carries its own.

    Returns
    -------
    matplotlib Axes
        Records left of the line count as at risk (a low NNDR is riskier). The x axis runs from 0 to where the
        ratios end (:func:`~synthpriv_report.core.plotting.hist_top`: at least 95% of each set and every bin of 2% or
        more), the threshold always in view.
    """
    t = 0.5 if threshold is None else float(threshold)
    ev = figure_evidence(data, lambda arr: nndr_evidence(arr, threshold=t))
    ax = plot.new_ax(ax)
    if not ev:
        return plot.empty(ax, "NNDR evidence not available (the metric was not computed)")
    for key, name in (("S", "synthetic"), ("H", "holdout")):
        if key in ev:
            plot.hist(ax, ev[key]["hist"], filled=key == "S", color=plot.COLORS[key],
                      label=f"{name} (n={ev[key]['n']}; {ev[key]['share_below']:.1%} below)")
    ax.axvline(ev["threshold"], color=plot.COLORS["line"], ls="--", lw=1.2, label=f"threshold = {ev['threshold']:g}")
    tops = [plot.hist_top(ev[key]["hist"]) for key in ("S", "H") if key in ev]
    plot.fit_axis(ax, [0.0, ev["threshold"], *tops], low=0.0)
    ax.set_xlabel("NNDR (distance / typical spacing of real records there)")
    ax.set_ylabel("share of records per bin")
    ax.set_title("Nearest-neighbour distance ratio")
    ax.legend(fontsize=8, loc="upper right")
    return ax


class NndrDetails(TypedDict):
    """The details of ``nndr``: the keys its compute function sets."""

    threshold: float
    k: int
    mean: float
    median: float
    p5: float
    mean_ci: tuple[float, float]
    median_ci: tuple[float, float]
    n_below: int
    n: int
    holdout_share: NotRequired[float]
    holdout_interval: NotRequired[tuple[float, float]]
    excess_over_holdout: float | None


register(MetricSpec(
    name="nndr",
    computation=Computation(
        compute=_nndr_compute, plan=_nndr_plan, default_space="gower", space_choosable=True,
        params=(NNDR_THRESHOLD, N_BOOTSTRAP), calibratable=True, details=NndrDetails),
    grading=Grading(
        direction="higher_is_riskier", value_range=(0.0, 1.0), value_kind="share",
        level=LevelSpec(
            medium=0.05, high=0.2, difference=True,
            of=lambda r: r.details.get("excess_over_holdout") if r.details.get("excess_over_holdout") is not None
            else r.value,
            scale="the share below the threshold minus the holdout's share (without a holdout: the share)",
            source="package default, after " + SOURCES["apx"],
            description="high when the share exceeds the holdout's share by more than {high}, medium by more than "
                        "{medium}")),
    presentation=Presentation(
        title="Nearest-neighbour distance ratio", section="2.4", group="closeness",
        summary="Share of synthetic records much closer to their nearest real record than real records typically "
                "are to their own neighbours.",
        definition="For each synthetic record, the nearest-neighbour distance ratio (NNDR) divides its distance to "
                   "the nearest real training record by that real record's mean distance to its k nearest other "
                   "real records. A low ratio means the synthetic record sits unusually close to one real person; "
                   "the measure is the share of synthetic records below the threshold.",
        words=Words(measures="how many synthetic records sit unusually close to one real person",
                    high_means="a high share is risky",
                    ideal="about the holdout's own share"),
        interval_kind="Wilson 95%",
        figures=(FigureSpec(lambda r, a: plot_nndr(r, ax=a), "Nearest-neighbour distance ratios of synthetic and "
                            "holdout records, with the threshold"),)),
))
