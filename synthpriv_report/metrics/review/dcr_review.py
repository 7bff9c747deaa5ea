"""``dcr_review`` and ``mdcr``: the review's closest-record distances squashed to [0, 1]: DCR' = 1/(1 + mean real
to synthetic distance) in the projected space, and MDCR' = 1/(1 + the median real-to-synthetic distance over the
median real-to-real one). Definitions and choices: ``docs/metrics.md``, sections "dcr_review" and "mdcr".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ... import stats
from ...core.params import N_BOOTSTRAP
from ...core.registry import NotRequired, TypedDict
from ...core.results import MetricResult, not_computed

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.context import Context
    from ...engine.requests import SearchRequest

from ._common import _exact, _mean_interval, _sizes, _space_details, _spec


def dcr_review_score(mean_dcr: float) -> float:
    """DCR' = 1 - sigma(ln DCR) = 1 / (1 + DCR), and 1 when DCR = 0 (Trudslev et al., section 2.2.8; docs/metrics.md).

    >>> dcr_review_score(0.0), dcr_review_score(1.0), dcr_review_score(3.0)
    (1.0, 0.5, 0.25)
    """
    m = float(mean_dcr)
    return 1.0 if m <= 0.0 else 1.0 / (1.0 + m)


def mdcr_score(num_median: float, den_median: float) -> float:
    """MDCR' = 1 / (1 + num/den) = sigma(-ln ratio), and 1 when the numerator is 0 (Trudslev et al., section 2.2.9;
    docs/metrics.md).

    The caller reports *not computed* when ``den_median`` is 0; here a zero denominator with a positive
    numerator gives the limit 0 (used only inside bootstrap resamples).

    >>> mdcr_score(0.0, 2.0), mdcr_score(2.0, 2.0), mdcr_score(6.0, 2.0)
    (1.0, 0.5, 0.25)
    """
    a, b = float(num_median), float(den_median)
    if stats.ties(a, 0.0).item():
        return 1.0
    if stats.ties(b, 0.0).item():
        return 0.0
    return 1.0 / (1.0 + a / b)


def _plan_dcr_review(ctx: Context, params: dict[str, Any]) -> list[SearchRequest]:
    return [ctx.request(ctx.metric_space("dcr_review", "projected"), ctx.T, ctx.S, 1)]


def _compute_dcr_review(ctx: Context, params: dict[str, Any]) -> MetricResult:
    """DCR' (Trudslev et al., section 2.2.8; docs/metrics.md): 1 / (1 + mean over y of DCR(y, S)) in the projected
    space, 1 when that mean is 0.

    Higher is riskier, range [0, 1]; the level depends on the projected space's scale. Interval: bootstrap of
    the mean DCR over real records, transformed (the transform is decreasing, so the bounds swap).
    """
    sp = ctx.metric_space("dcr_review", "projected")
    d = ctx.knn(sp, ctx.T, ctx.S, 1).dist[:, 0]
    mean = float(d.mean())
    value = dcr_review_score(mean)
    lo, hi = _mean_interval(d, ctx, params)
    details = {**_sizes(ctx), **_space_details(ctx, sp), "dcr_mean": mean, "dcr_median": float(np.median(d)),
               "dcr_mean_interval": (lo, hi)}
    return MetricResult(name="dcr_review", value=value, interval=(dcr_review_score(hi), dcr_review_score(lo)),
                        details=details, space=sp.label)


def _plan_mdcr(ctx: Context, params: dict[str, Any]) -> list[SearchRequest]:
    sp = ctx.metric_space("mdcr", "euclidean")
    return [ctx.request(sp, ctx.T, ctx.S, 1), ctx.request(sp, ctx.T, ctx.T, 1)]


def _compute_mdcr(ctx: Context, params: dict[str, Any]) -> MetricResult:
    """MDCR' (Trudslev et al., section 2.2.9; docs/metrics.md): 1 / (1 + median DCR(y, S) / median DCR(y, T∖y)), 1
    when the numerator is 0.

    Higher is riskier, range [0, 1]. Not computed when the denominator median is 0. Interval: bootstrap over
    real records of both medians on the same resample.
    """
    sp = ctx.metric_space("mdcr", "euclidean")
    if ctx.size(ctx.T) < 2:
        return not_computed("mdcr", "needs at least two real records (nearest other real record)")
    d_s = ctx.knn(sp, ctx.T, ctx.S, 1).dist[:, 0]
    d_t = ctx.knn(sp, ctx.T, ctx.T, 1).dist[:, 0]
    num, den = float(np.median(d_s)), float(np.median(d_t))
    details = {**_sizes(ctx), "median_dcr_synthetic": num, "median_dcr_real": den}
    if stats.ties(den, 0.0, exact=_exact(ctx, sp)).item():
        dup = float(ctx.identical_in(ctx.T, ctx.T).mean())
        details["share_real_with_identical_real"] = dup
        return not_computed("mdcr", f"the median distance between real records and their nearest other real "
                            f"record is 0 ({dup:.1%} of real records have an identical real record)",
                            details=details, space=sp.label)
    value = mdcr_score(num, den)
    details["ratio"] = num / den
    details["mdcr_original"] = float(1.0 / (1.0 + np.exp(-num / den)))
    ci = stats.paired_median_bootstrap(d_s, d_t, statistic=mdcr_score, n_resamples=int(params["n_bootstrap"]),
                                       random_state=ctx.random_state)
    return MetricResult(name="mdcr", value=value, interval=ci, details=details,
                        space=sp.label)


class DcrReviewDetails(TypedDict):
    """The details of ``dcr_review``: the keys its compute function sets."""

    n_real: int
    n_synthetic: int
    space: str
    projected_k: NotRequired[int]
    explained_variance: NotRequired[float]
    dcr_mean: float
    dcr_median: float
    dcr_mean_interval: tuple[float, float]


class MdcrDetails(TypedDict):
    """The details of ``mdcr``: the keys its compute function sets."""

    n_real: int
    n_synthetic: int
    median_dcr_synthetic: float
    median_dcr_real: float
    ratio: float
    mdcr_original: float
    share_real_with_identical_real: NotRequired[float]


_spec("dcr_review", "Distance to closest record (DCR')", _compute_dcr_review, _plan_dcr_review,
      space="projected", copy_sensitive=True,
      params=(N_BOOTSTRAP,), interval_kind="bootstrap 95% (percentile)",
      summary="1/(1 + mean distance from each real record to its nearest synthetic record) in PCA space.",
      definition="DCR is the mean over real records of the distance to the nearest synthetic record in the "
      "projected (PCA) space. DCR' = 1 - sigmoid(ln DCR) = 1/(1 + DCR), 1 when DCR = 0; its level depends on "
      "the space's scale.",
      details=DcrReviewDetails)


_spec("mdcr", "Median distance to closest record (MDCR')", _compute_mdcr, _plan_mdcr, space="euclidean",
      copy_sensitive=True,
      params=(N_BOOTSTRAP,), interval_kind="bootstrap 95% (percentile)",
      summary="Median real-to-synthetic nearest distance relative to the median real-to-real one, squashed.",
      definition="ratio = the median, over real records, of the distance to the nearest synthetic record, "
      "divided by the median distance to the nearest other real record. MDCR' = 1/(1 + ratio), 1 when the "
      "numerator is 0, so a synthetic set closer than real records are to "
      "each other scores above 0.5.",
      details=MdcrDetails)
