"""``hidden_rate``: the share of real records whose own synthetic offspring (from the generator's pairing) is their
nearest synthetic record (as reviewed by Trudslev et al.). Definitions and choices: ``docs/metrics.md``, section
"hidden_rate".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from ... import neighbors as nb
from ... import stats
from ...core.registry import NotRequired, TypedDict
from ...core.results import MetricResult, not_computed

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.context import Context
    from ...engine.requests import SearchRequest

from ._common import _exact, _share_result, _sizes, _space_details, _spec


def hidden_rate_counts(y_rows: ArrayLike, pair_dist: ArrayLike, dmin_y: ArrayLike, *,
                       exact: bool = False) -> tuple[int, int, int]:
    """Count the real records that the pairing hides badly (Trudslev et al., section 2.2.12; docs/metrics.md).

    A real record y counts when some z paired with it lies at the minimal distance from y among all of S.

    Parameters
    ----------
    y_rows : array-like of int, shape (n_pairs,)
        Real position of each pair.
    pair_dist : array-like, shape (n_pairs,)
        Distance between the paired real and synthetic records.
    dmin_y : array-like, shape (n_pairs,)
        DCR(y, S) of each pair's real record.

    Returns
    -------
    counted, n_real_paired, n_pairs_at_min : int
        Real records counted, distinct real records in the pairing (the denominator), pairs at the minimum.

    >>> hidden_rate_counts([0, 0, 1, 2], [1.0, 0.5, 2.0, 1.0], [0.5, 0.5, 1.0, 1.0])
    (2, 3, 2)
    """
    y = np.asarray(y_rows, dtype=np.int64)
    hit = stats.ties(pair_dist, dmin_y, exact=exact)
    return int(np.unique(y[hit]).size), int(np.unique(y).size), int(hit.sum())


def _plan_hidden_rate(ctx: Context, params: dict[str, Any]) -> list[SearchRequest]:
    return [ctx.request(ctx.metric_space("hidden_rate", "projected"), ctx.T, ctx.S, 1)]


def _compute_hidden_rate(ctx: Context, params: dict[str, Any]) -> MetricResult:
    """HiddR (Trudslev et al., section 2.2.12; docs/metrics.md): share of paired real records with a paired synthetic
    record at their minimal
    distance to S (projected space, Minkowski p = 2); the denominator is the number of distinct paired real
    records (the paper's |Z| is in the details).

    Higher is riskier, range [0, 1]. Interval: Wilson over the paired real records.
    """
    pairs = ctx.settings.get("pairing")
    if pairs is None or len(pairs) == 0:
        return not_computed("hidden_rate", "needs the generator's pairing of real and synthetic records "
                            "(pairing=)")
    pairs = np.asarray(pairs, dtype=np.int64)
    sp = ctx.metric_space("hidden_rate", "projected")
    dmin = ctx.knn(sp, ctx.T, ctx.S, 1).dist[:, 0]
    y_rows, z_rows = pairs[:, 0], pairs[:, 1]
    pd_ = nb.pair_distances(ctx.encoding(sp), ctx.T, y_rows, ctx.S, z_rows)
    counted, n_paired, n_pairs_min = hidden_rate_counts(y_rows, pd_, dmin[y_rows], exact=_exact(ctx, sp))
    value = counted / n_paired
    details = {**_sizes(ctx), **_space_details(ctx, sp), "n_pairs": len(pairs), "n_real_paired": n_paired,
               "n_real_counted": counted, "n_pairs_at_minimum": n_pairs_min,
               "hidden_rate_paper": counted / ctx.size(ctx.S)}
    return _share_result("hidden_rate", value, n_paired, params, sp, details)


class HiddenRateDetails(TypedDict):
    """The details of ``hidden_rate``: the keys its compute function sets."""

    n_real: int
    n_synthetic: int
    space: str
    projected_k: NotRequired[int]
    explained_variance: NotRequired[float]
    n_pairs: int
    n_real_paired: int
    n_real_counted: int
    n_pairs_at_minimum: int
    hidden_rate_paper: float


_spec("hidden_rate", "Hidden rate (HiddR)", _compute_hidden_rate, _plan_hidden_rate, space="projected",
      needs=("pairing",), calibratable=False,
      summary="Share of real records whose own synthetic offspring is their nearest synthetic record.",
      definition="Given the generator's pairing of real and synthetic records, a real record counts when one "
      "of its paired synthetic records is at its minimal distance to the synthetic data in the projected space. "
      "HiddR is the counted share of the real records that appear in the pairing.",
      details=HiddenRateDetails)
