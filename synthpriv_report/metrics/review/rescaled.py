"""``cvp``, ``dvp`` and ``nsnd``: three readings of one rescaled distance u in [0, 1], each real record's distance to
its nearest synthetic record between the smallest and largest real-synthetic distances (Trudslev et al.'s review).
Definitions and choices: ``docs/metrics.md``, sections "cvp", "dvp" and "nsnd".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ... import stats
from ...core.params import N_BOOTSTRAP
from ...core.registry import Param, TypedDict, Words
from ...core.results import MetricResult, not_computed
from ...spaces import SpaceSpec

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.context import Context
    from ...engine.requests import SearchRequest, TreeRequest

from ._common import SATURATION_NOTE, _exact, _mean_interval, _share_result, _sizes, _spec


def rescaled_distance(dcr: ArrayLike, *, d_min: float, d_max: float) -> NDArray[np.float64]:
    """u(y) = (d(y) - d_min) / (d_max - d_min) of Trudslev et al.'s review (CVP, DVP', NSND; Eq. 16, 17, 24).

    Parameters
    ----------
    dcr : array-like, shape (n_real,)
        d(y) = DCR(y, S) for every real record y.
    d_min, d_max : float
        Smallest and largest real-synthetic distance (Eq. 14-15); ``d_max > d_min``.

    Returns
    -------
    ndarray, shape (n_real,)
        Values in [0, 1].

    >>> rescaled_distance([1.0, 2.0, 3.0], d_min=1.0, d_max=5.0).tolist()
    [0.0, 0.25, 0.5]
    """
    d = np.asarray(dcr, dtype=np.float64)
    return (d - d_min) / (d_max - d_min)


def cvp_score(u: ArrayLike, *, threshold: float = 0.2) -> float:
    """CVP = share of real records with u(y) <= threshold (Trudslev et al., section 2.2.1; docs/metrics.md); ties
    with the threshold count.

    Higher is riskier; range [0, 1]; 1 = every real record has a close synthetic record.

    >>> cvp_score([0.0, 0.2, 0.5, 1.0])
    0.5
    """
    return float(np.mean(stats.leq(u, np.full(np.shape(u), threshold))))


def dvp_score(u: ArrayLike, *, threshold: float = 0.8) -> float:
    """DVP' = 1 - share of real records with u(y) >= threshold (Trudslev et al., section 2.2.2; docs/metrics.md);
    ties with the threshold count.

    Higher is riskier; range [0, 1]; 1 = no real record is far from every synthetic record.

    >>> dvp_score([0.0, 0.2, 0.8, 1.0])
    0.5
    """
    return float(1.0 - np.mean(stats.leq(np.full(np.shape(u), threshold), u)))


def nsnd_score(u: ArrayLike) -> float:
    """NSND = 1 - mean u(y) (Trudslev et al., section 2.2.6, resolved: the paper's Eq. 24 grows with distance;
    docs/metrics.md).

    Higher is riskier; range [0, 1].

    >>> nsnd_score([0.0, 0.2, 0.8, 1.0])
    0.5
    """
    return float(1.0 - np.mean(np.asarray(u, dtype=np.float64)))


def _plan_closeness(name: str) -> Callable[[Context, dict[str, Any]], list[SearchRequest | TreeRequest]]:
    def plan(ctx: Context, params: dict[str, Any]) -> list[SearchRequest | TreeRequest]:
        sp = ctx.metric_space(name, "euclidean")
        # d_max reads the trees of T and S (the farthest-pair search)
        return [ctx.request(sp, ctx.T, ctx.S, 1), ctx.tree_request(sp, ctx.T), ctx.tree_request(sp, ctx.S)]
    return plan


def _rescaled(ctx: Context, name: str) -> tuple[SpaceSpec, NDArray[np.float64] | None, dict[str, Any]]:
    """(space, u or None when d_max = d_min, details)."""
    sp = ctx.metric_space(name, "euclidean")
    d = ctx.knn(sp, ctx.T, ctx.S, 1).dist[:, 0]
    d_min = float(d.min())
    d_max, i_far, j_far = ctx.farthest(sp, ctx.T, ctx.S)
    details = {**_sizes(ctx), "d_min": d_min, "d_max": float(d_max), "farthest_pair": [int(i_far), int(j_far)],
               "dcr_mean": float(d.mean()), "dcr_median": float(np.median(d))}
    if stats.ties(d_max, d_min, exact=_exact(ctx, sp)).item():
        return sp, None, details
    return sp, rescaled_distance(d, d_min=d_min, d_max=d_max), details


def _not_spread(name: str, details: dict[str, Any], sp: SpaceSpec) -> MetricResult:
    return not_computed(name, f"every real-synthetic distance is the same (d_max = d_min = {details['d_min']:.6g}); "
                        "the rescaled distance is undefined", details=details, space=sp.label)


def _compute_cvp(ctx: Context, params: dict[str, Any]) -> MetricResult:
    """CVP (Trudslev et al., section 2.2.1; docs/metrics.md): share of real records whose rescaled nearest-synthetic
    distance u(y) <= threshold.

    Higher is riskier, range [0, 1]. Interval: Wilson over |T| records.
    """
    sp, u, details = _rescaled(ctx, "cvp")
    if u is None:
        return _not_spread("cvp", details, sp)
    thr = float(params["cvp_threshold"])
    value = cvp_score(u, threshold=thr)
    details.update(threshold=thr, n_close=round(value * u.size), u_mean=float(u.mean()),
                   u_median=float(np.median(u)))
    return _share_result("cvp", value, u.size, params, sp, details, (SATURATION_NOTE,))


def _compute_dvp(ctx: Context, params: dict[str, Any]) -> MetricResult:
    """DVP' (Trudslev et al., section 2.2.2; docs/metrics.md): 1 - share of real records with u(y) >= threshold.

    Higher is riskier, range [0, 1]. Interval: Wilson over |T| records (of the share of records not far).
    """
    sp, u, details = _rescaled(ctx, "dvp")
    if u is None:
        return _not_spread("dvp", details, sp)
    thr = float(params["dvp_threshold"])
    value = dvp_score(u, threshold=thr)
    details.update(threshold=thr, dvp_original=1.0 - value, n_far=round((1.0 - value) * u.size),
                   u_mean=float(u.mean()), u_median=float(np.median(u)))
    return _share_result("dvp", value, u.size, params, sp, details, (SATURATION_NOTE,))


def _compute_nsnd(ctx: Context, params: dict[str, Any]) -> MetricResult:
    """NSND (Trudslev et al., section 2.2.6; docs/metrics.md): 1 - mean u(y).

    Higher is riskier, range [0, 1]. Interval: bootstrap of the mean of u over real records, then 1 - (hi, lo).
    """
    sp, u, details = _rescaled(ctx, "nsnd")
    if u is None:
        return _not_spread("nsnd", details, sp)
    value = nsnd_score(u)
    lo, hi = _mean_interval(u, ctx, params)
    details.update(nsnd_original=float(u.mean()), u_median=float(np.median(u)))
    return MetricResult(name="nsnd", value=value, interval=(1.0 - hi, 1.0 - lo),
                        details=details, space=sp.label, notes=(SATURATION_NOTE,))


CVP_THRESHOLD = Param("cvp_threshold", 0.2, low=0.0, high=1.0, slider=(0.05, 0.5, 0.05), label="CVP threshold u ≤",
                      doc="A real record counts for the close value probability (CVP) when its distance to the "
                          "synthetic data, rescaled to [0, 1], is at most this.")


DVP_THRESHOLD = Param("dvp_threshold", 0.8, low=0.0, high=1.0, slider=(0.5, 0.95, 0.05), label="DVP threshold u ≥",
                      doc="A real record counts as distant for the distant value probability (DVP) when its distance "
                          "to the synthetic data, rescaled to [0, 1], is at least this.")


class CvpDetails(TypedDict):
    """The details of ``cvp``: the keys its compute function sets."""

    n_real: int
    n_synthetic: int
    d_min: float
    d_max: float
    farthest_pair: list[int]
    dcr_mean: float
    dcr_median: float
    threshold: float
    n_close: int
    u_mean: float
    u_median: float


class DvpDetails(TypedDict):
    """The details of ``dvp``: the keys its compute function sets."""

    n_real: int
    n_synthetic: int
    d_min: float
    d_max: float
    farthest_pair: list[int]
    dcr_mean: float
    dcr_median: float
    threshold: float
    dvp_original: float
    n_far: int
    u_mean: float
    u_median: float


class NsndDetails(TypedDict):
    """The details of ``nsnd``: the keys its compute function sets."""

    n_real: int
    n_synthetic: int
    d_min: float
    d_max: float
    farthest_pair: list[int]
    dcr_mean: float
    dcr_median: float
    nsnd_original: float
    u_median: float


_spec("cvp", "Close value probability (CVP)", _compute_cvp, _plan_closeness("cvp"), space="euclidean",
      params=(CVP_THRESHOLD,),
      summary="Share of real records with a synthetic record unusually close, on a min-max rescaled distance.",
      definition="For each real record, the distance to its nearest synthetic record is rescaled to u in [0, 1] "
      "between the smallest and largest real-synthetic distances. CVP is the share of real records with u at "
      "most the threshold (0.2).",
      details=CvpDetails)


_spec("dvp", "Distant value probability (DVP')", _compute_dvp, _plan_closeness("dvp"), space="euclidean",
      params=(DVP_THRESHOLD,), group="distinguishability",
      words=Words(measures="how many real records have some synthetic record near them, i.e. how well the "
                           "synthetic data covers the real data",
                  high_means="a value near 1 means no real record is far from every synthetic record, which "
                             "almost any faithful synthetic data reaches; it describes coverage, not leakage",
                  ideal="the value the holdout reaches in place of the synthetic data"),
      summary="One minus the share of real records far from every synthetic record; near 1 on almost any data.",
      definition="With the same rescaled nearest-synthetic distance u as CVP, DVP is the share of real records "
      "with u at least the threshold (0.8). DVP' = 1 - DVP, so 1 means no real record is far from the "
      "synthetic data.",
      details=DvpDetails)


_spec("nsnd", "Nearest synthetic neighbour distance (NSND)", _compute_nsnd, _plan_closeness("nsnd"),
      space="euclidean",
      params=(N_BOOTSTRAP,), interval_kind="bootstrap 95% (percentile)",
      summary="One minus the mean rescaled distance from each real record to its nearest synthetic record.",
      definition="With the same rescaled nearest-synthetic distance u as CVP, NSND = 1 - mean u over the real "
      "records. The mean u of Trudslev et al. (Eq. 24) grows with distance, so it is turned around to keep 1 = no "
      "privacy.",
      details=NsndDetails)
