"""``dcr``: the distance from each synthetic record to its closest real training record (Distance to Closest
Record), against the same distance for holdout records and within the real data.

Source: the DCR of Park et al., "Data Synthesis based on Generative Adversarial Networks" (VLDB 2018) and the
practitioners' guides cited in the declaration; definition and choices in ``docs/metrics.md``, section "dcr".
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

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
    Presentation,
    ResultJSON,
    TypedDict,
    Words,
    register,
)
from ...core.results import MetricResult
from .._shared.arrays import describe, figure_evidence, space_for
from .._shared.shift import holdout_shift_note, holdout_shift_of


def dcr_histogram(dcr: ArrayLike, *, gower: bool, bins: int = 20,
                  upper: float | None = None) -> dict[str, list[Any]]:
    """Histogram of DCR values: 20 equal-width bins on [0, 1] for gower, on [0, max] otherwise (docs/metrics.md, "dcr").

    >>> dcr_histogram([0.0, 0.5, 1.0], gower=True, bins=2)
    {'edges': [0.0, 0.5, 1.0], 'counts': [1, 2]}
    """
    v = stats.finite_values(dcr)
    hi = 1.0 if gower else float(upper if upper is not None else (v.max() if v.size else 1.0))
    if hi <= 0:
        hi = 1.0
    counts, edges = np.histogram(v, bins=bins, range=(0.0, hi))
    return {"edges": edges.tolist(), "counts": counts.astype(int).tolist()}


def dcr_evidence(arrays: dict[str, Any]) -> dict[str, Any]:
    """What the DCR figures need, from :func:`dcr_arrays`: per set a histogram (20 bins on [0, 1] for gower, on
    [0, max] otherwise) and a quantile summary, and the share of exact copies."""
    gower = bool(arrays.get("gower", str(arrays.get("space", "")).startswith("gower")))
    sets = {k: np.asarray(arrays[k], dtype=np.float64) for k in ("S", "H", "T") if arrays.get(k) is not None}
    # the largest finite distance of any set (no copy of a set's finite values is made)
    tops = [_finite_top(v) for v in sets.values()] if not gower else []
    ev = _evidence_head(str(arrays.get("space", "gower")), gower, tops)
    for k, v in sets.items():
        ev[k] = _evidence_of(v, ev["upper"])
    copies = arrays.get("copies")
    if copies is not None and np.asarray(copies).size:
        ev["copy_share"] = float(np.mean(np.asarray(copies, dtype=bool)))
    return ev


def _finite_top(v: Any) -> float:
    return float(np.max(v, where=np.isfinite(v), initial=-np.inf))


def _evidence_head(space: str, gower: bool, tops: list[float]) -> dict[str, Any]:
    upper = 1.0 if gower else max([t for t in tops if t > -np.inf] + [1e-12])
    return {"space": space, "gower": gower, "upper": upper}


def _evidence_of(v: Any, upper: float) -> dict[str, Any]:
    return {"hist": stats.histogram(v, upper=upper), "quantiles": stats.quantile_summary(v)}


def _dcr_plan(ctx: Any, params: dict[str, Any]) -> list[Any]:
    sp = space_for(ctx, "dcr", "gower")
    reqs = [ctx.request(sp, ctx.S, ctx.T, 1), ctx.request(sp, ctx.T, ctx.T, 1)]
    if ctx.H is not None:
        reqs.append(ctx.request(sp, ctx.H, ctx.T, 1))
    return reqs


def _dcr_compute(ctx: Any, params: dict[str, Any]) -> MetricResult:
    # first (cached): its sorts then never sit on top of the arrays below, a record each of four sets
    shift = holdout_shift_of(ctx)
    sp = space_for(ctx, "dcr", "gower")
    gower = sp.kind == "gower"
    sets = {"S": ctx.S} | ({"H": ctx.H} if ctx.H is not None else {}) | {"T": ctx.T}
    # dcr_arrays' numbers a set at a time, each set's distances read, reduced and let go before the next set's are
    # read (a record each of one set, not of three): the copy flags first (one byte a record: the first of an
    # evaluation finds the identical records, whose temporaries then meet no distance column), then, outside the
    # gower space, the largest distance of each set (the histograms' common range), then each set's summaries
    h_copy_share = float(ctx.identical_in(ctx.H, ctx.T).mean()) if "H" in sets else None
    copies = ctx.identical_in(ctx.S, ctx.T)
    n_synthetic, copy_share = int(copies.size), float(copies.mean())
    del copies

    def dist(k: str) -> Any:
        return ctx.knn(sp, sets[k], ctx.T, 1).dist[:, 0]  # read from the workers anew with a Dask client

    # outside the gower space, each set's largest distance (the details' histograms' range) and largest finite
    # distance (the evidence's); in it both ranges are [0, 1]
    largest, finite_tops = {k: 1.0 for k in sets}, []
    if not gower:
        for k in sets:
            v = dist(k)
            largest[k] = float(np.max(v))
            finite_tops.append(_finite_top(v))
            del v
    upper = max(largest["S"], largest["T"], largest["H"] if "H" in sets else 0.0)
    ev = _evidence_head(sp.label, gower, finite_tops)
    summaries: dict[str, dict[str, Any]] = {}
    for k in sets:
        v = dist(k)
        summaries[k] = dict(describe(v, ctx, params, "dcr." + sp.label) if k == "S" else stats.summary(v))
        summaries[k]["histogram"] = dcr_histogram(v, gower=gower, upper=upper)
        ev[k] = _evidence_of(v, ev["upper"])
        del v
    if n_synthetic:
        ev["copy_share"] = copy_share
    s = summaries["S"]
    details: dict[str, Any] = {
        "mean": s["mean"], "median": s["median"], "p5": s["p5"], "mean_ci": s["mean_ci"],
        "p5_ci": s["p5_ci"], "n": s["n"],
        "histogram": s["histogram"],
        "exact_copy_share": copy_share,
        "baseline_within_real": summaries["T"],
    }
    baseline = "within the training data (each record to its nearest other record)"
    base_median = details["baseline_within_real"]["median"]
    if "H" in sets:
        hs = summaries["H"]
        details["baseline_holdout"] = {**hs, "exact_copy_share": h_copy_share}
        baseline = "holdout to training data"
        base_median = hs["median"]
    # both medians 0: S is exactly as close to T as the baseline is (ratio 1); only the baseline 0: safe side
    ratio = s["median"] / base_median if base_median > 0 else (1.0 if s["median"] == 0 else float("inf"))
    details["ratio_to_baseline"] = ratio
    details["baseline"] = baseline
    if shift is not None:
        details["holdout_vs_within_real"] = shift.to_dict()
    note = holdout_shift_note(shift)
    return MetricResult(name="dcr", value=s["median"], interval=s["median_ci"], details=details,
                        space=sp.label, evidence=ev, notes=(note,) if note else ())


def plot_dcr(data: Any, *, ax: Any = None, kind: str = "hist", legend: bool = True) -> Any:
    """Distances to the closest training record: synthetic against the holdout and within-real baselines.

    Parameters
    ----------
    data : MetricResult or mapping
        The ``dcr`` result (its evidence), or the arrays of :func:`dcr_arrays`.
    ax : matplotlib Axes, optional
    kind : {"hist", "ecdf"}
        Histogram (shares per bin, so that sets of different sizes compare) or empirical CDF.
    legend : bool, default True
        Whether to draw the legend (the declared figure draws it once, on the histogram beside the ECDF).

    Returns
    -------
    matplotlib Axes
        Exact copies are marked by a vertical line at 0 with their share in the legend. Lower is riskier. The x
        axis runs from 0 to where the distances end (:func:`dcr_top`), the same for both kinds, not to the
        space's largest possible distance.
    """
    ev = figure_evidence(data, dcr_evidence)
    ax = plot.new_ax(ax)
    if not ev:
        return plot.empty(ax, "DCR evidence not available (the 'dcr' metric was not computed)")
    for key in ("S", "H", "T"):
        if key not in ev:
            continue
        n = ev[key]["quantiles"]["n"]
        label = f"{plot.SET_NAMES[key]} (n={n})"
        if kind == "ecdf":
            plot.ecdf(ax, ev[key]["quantiles"], color=plot.COLORS[key], label=label, lw=1.6)
        else:
            plot.hist(ax, ev[key]["hist"], filled=key == "S", color=plot.COLORS[key], label=label)
    if "copy_share" in ev:
        ax.axvline(0.0, color=plot.COLORS["line"], ls="--", lw=1.2,
                   label=f"exact copies: {ev['copy_share']:.1%} of synthetic")
    ax.set_xlabel(f"distance to closest training record ({ev['space']})")
    ax.set_ylabel("cumulative share of records" if kind == "ecdf" else "share of records per bin")
    ax.set_title("Distance to closest record (DCR)" + (": ECDF" if kind == "ecdf" else ""))
    plot.fit_axis(ax, [0.0, dcr_top(ev)], low=0.0)
    if legend:
        if kind != "ecdf":  # room above the tallest bar for the legend: the bars fill the width of the axes
            ax.set_ylim(0.0, ax.get_ylim()[1] * LEGEND_ROOM)
            ax.set_yticks([t for t in ax.get_yticks() if 0.0 <= t <= 1.0 + 1e-9])  # a share: no tick above 1
        ax.legend(fontsize=8, loc="lower right" if kind == "ecdf" else "upper right")
    return ax


#: Height of the DCR histogram's y axis over its tallest bar, leaving the top of the axes to the legend.
LEGEND_ROOM = 1.6


def dcr_top(ev: Any) -> float | None:
    """The end of the DCR figures' x axis: the furthest of the sets' histogram and ECDF ends
    (:func:`~synthpriv_report.core.plotting.hist_top`, :func:`~synthpriv_report.core.plotting.quantile_top`), so that
    the
    histogram and the ECDF side by side share one scale.

    >>> ev = {"S": {"hist": {"edges": [0.0, 0.5, 1.0], "counts": [4, 0]},
    ...             "quantiles": {"probs": [0.0, 1.0], "values": [0.0, 0.3], "n": 4}}}
    >>> dcr_top(ev)
    0.5
    """
    tops = [t for key in ("S", "H", "T") if key in ev
            for t in (plot.hist_top(ev[key].get("hist")), plot.quantile_top(ev[key].get("quantiles")))
            if t is not None]
    return max(tops) if tops else None


_SPACE_NOTE = "Choose another distance space with spaces={name: ...}."


def dcr_range(m: ResultJSON) -> str | None:
    """The range of a DCR in words: in the gower space a distance is between 0 and 1.

    >>> dcr_range({"space": "gower"})[:11], dcr_range({"space": "euclidean"})
    ('from 0 to 1', None)
    """
    if str(m.get("space") or "").startswith("gower"):
        return "from 0 to 1 (gower distances average per-column differences, each between 0 and 1)"
    return None


class DcrDetails(TypedDict):
    """The details of ``dcr``: the keys its compute function sets."""

    mean: float
    median: float
    p5: float
    mean_ci: tuple[float, float]
    p5_ci: tuple[float, float]
    n: int
    histogram: dict[str, Any]
    exact_copy_share: float
    baseline_within_real: dict[str, Any]
    baseline_holdout: NotRequired[dict[str, Any]]
    ratio_to_baseline: float
    baseline: str
    holdout_vs_within_real: NotRequired[dict[str, Any]]


register(MetricSpec(
    name="dcr",
    computation=Computation(
        compute=_dcr_compute, plan=_dcr_plan, default_space="gower", space_choosable=True, params=(N_BOOTSTRAP,),
        calibratable=True, details=DcrDetails),
    grading=Grading(
        direction="higher_is_safer", value_range=(0.0, float("inf")), value_kind="distance",
        level=LevelSpec(
            medium=0.9, high=0.5, direction="higher_is_safer", of=lambda r: r.details.get("ratio_to_baseline"),
            scale="the median DCR divided by the baseline's median DCR (holdout to train; without a holdout, "
                  "within the real data)",
            source="package default, after " + SOURCES["apx"],
            description="high when synthetic records are typically less than {high} times as far from the training "
                        "data as the baseline, medium when less than {medium} times")),
    presentation=Presentation(
        title="Distance to closest record", section="2.1", group="closeness",
        summary="Median distance from each synthetic record to its closest real training record; compare it with "
                "the same distance for fresh real (holdout) records.",
        definition="The distance to closest record (DCR) of a synthetic record is its distance to the nearest real "
                   "training record. Their distribution is compared with the same distances of holdout records and "
                   "with the distances between training records themselves; synthetic data much closer to the "
                   "training data than fresh real records are is suspicious.",
        words=Words(measures="how far each synthetic record is from the nearest real person in the training data",
                    high_means="a high value is safe: synthetic records are not near-copies of real people",
                    ideal="about the holdout's own median distance to the training data"),
        interval_kind="bootstrap 95% (percentile, records resampled)",
        figures=(FigureSpec(lambda r, a, b: (plot_dcr(r, ax=a, kind="hist"),
                                             plot_dcr(r, ax=b, kind="ecdf", legend=False)),
                            "Distances from synthetic records to their closest training record, against the same "
                            "distances for holdout records and within the real data", ncols=2, size=(5.0, 3.4)),),
        range_note=dcr_range),
))
