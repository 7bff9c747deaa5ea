"""``nndr_review``: the review's nearest-neighbour distance ratio, the mean over synthetic records of 1 - d1/d2 to
their two nearest real records in the projected (PCA) space (1 for copies). Definitions and choices:
``docs/metrics.md``, section "nndr_review".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ... import stats
from ...core.params import N_BOOTSTRAP
from ...core.registry import NotRequired, TypedDict
from ...core.results import MetricResult, not_computed

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.context import Context
    from ...engine.requests import SearchRequest

from ._common import _mean_interval, _sizes, _space_details, _spec


def nndr_review_scores(d1: ArrayLike, d2: ArrayLike, copy: ArrayLike) -> tuple[NDArray[np.float64],
                                                                              NDArray[np.float64]]:
    """Per synthetic record the NNDR scores of Trudslev et al. (section 2.2.7): the rescaled r(s) and the paper's Eq.
    27 term.

    r(s) = 1 when s is identical to a real record (``copy``), else 1 - d1/d2, and 1 when d2 = 0. The paper's
    term is 1 when d1 = 0 (tie rule) and d1/d2 otherwise.

    Parameters
    ----------
    d1, d2 : array-like, shape (n_syn,)
        Distances to the nearest and second nearest real record in the projected space.
    copy : array-like of bool, shape (n_syn,)
        s has an identical record in T (section 0 equality).

    Returns
    -------
    r, raw : ndarray, shape (n_syn,)

    >>> r, raw = nndr_review_scores([0.0, 1.0, 1.0, 0.0], [1.0, 4.0, 1.0, 0.0], [True, False, False, False])
    >>> r.tolist(), raw.tolist()
    ([1.0, 0.75, 0.0, 1.0], [1.0, 0.25, 1.0, 1.0])
    """
    a = np.asarray(d1, dtype=np.float64)
    b = np.asarray(d2, dtype=np.float64)
    c = np.asarray(copy, dtype=bool)
    zero2 = stats.ties(b, np.zeros_like(b))
    zero1 = stats.ties(a, np.zeros_like(a))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(zero2, 0.0, a / np.where(zero2, 1.0, b))
    r = np.where(c | zero2, 1.0, 1.0 - ratio)
    raw = np.where(zero1, 1.0, ratio)
    return r, raw


def _plan_nndr_review(ctx: Context, params: dict[str, Any]) -> list[SearchRequest]:
    return [ctx.request(ctx.metric_space("nndr_review", "projected"), ctx.S, ctx.T, 2)]


def _compute_nndr_review(ctx: Context, params: dict[str, Any]) -> MetricResult:
    """NNDR (Trudslev et al., section 2.2.7; docs/metrics.md): mean over s of r(s) = 1 for a copy of a real record,
    else 1 - d1/d2 (1 if d2 = 0).

    Higher is riskier, range [0, 1]. Interval: bootstrap of the mean of r(s) over synthetic records.
    """
    sp = ctx.metric_space("nndr_review", "projected")
    if ctx.size(ctx.T) < 2:
        return not_computed("nndr_review", "needs at least two real records (second nearest real record)")
    tab = ctx.knn(sp, ctx.S, ctx.T, 2)
    copy = ctx.identical_in(ctx.S, ctx.T)
    r, raw = nndr_review_scores(tab.dist[:, 0], tab.dist[:, 1], copy)
    value = float(r.mean())
    details = {**_sizes(ctx), **_space_details(ctx, sp), "nndr_original_mean": float(raw.mean()),
               "n_copies": int(copy.sum()), "ratio_median": float(np.median(1.0 - r[~copy])) if (~copy).any()
               else 0.0}
    return MetricResult(name="nndr_review", value=value, interval=_mean_interval(r, ctx, params),
                        details=details, space=sp.label)


class NndrReviewDetails(TypedDict):
    """The details of ``nndr_review``: the keys its compute function sets."""

    n_real: int
    n_synthetic: int
    space: str
    projected_k: NotRequired[int]
    explained_variance: NotRequired[float]
    nndr_original_mean: float
    n_copies: int
    ratio_median: float


_spec("nndr_review", "Nearest neighbour distance ratio (review NNDR)", _compute_nndr_review, _plan_nndr_review,
      space="projected", copy_sensitive=True,
      params=(N_BOOTSTRAP,), interval_kind="bootstrap 95% (percentile)",
      summary="Mean over synthetic records of 1 - d1/d2 to the real records (1 for copies), in PCA space.",
      definition="For each synthetic record, d1 and d2 are the distances to its two nearest real records in the "
      "projected (PCA) space; its score is 1 for an exact copy of a real record, else 1 - d1/d2 (1 when d2 = 0). "
      "The value is the mean score; the mean of Trudslev et al. (Eq. 27) is in the details.",
      details=NndrReviewDetails)
