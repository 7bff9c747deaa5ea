"""``authenticity`` and ``identifiability``: the share of real records whose nearest synthetic record is closer than
their nearest other real record, in the euclidean space and in a space weighting low-entropy (more identifying)
columns up (Alaa et al., "How faithful is your synthetic data?", ICML 2022; Yoon et al., "Anonymization through
data synthesis using generative adversarial networks (ADS-GAN)", IEEE JBHI 2020; as reviewed by Trudslev et al.).
Definitions and choices: ``docs/metrics.md``, sections "authenticity" and "identifiability".
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from ... import stats
from ...core.registry import TypedDict
from ...core.results import MetricResult, not_computed
from ...spaces import SpaceSpec

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.context import Context
    from ...engine.requests import SearchRequest

from ._common import _exact, _share_result, _sizes, _spec, closer_indicator


def column_entropy(values: ArrayLike, *, numeric: bool, missing: Any = None) -> float:
    """Shannon entropy (natural log) of one column of T, as the identifiability weights need (Trudslev et al.,
    section 2.2.5; docs/metrics.md).

    Categorical: over its levels (``missing`` is a level like any other). Numeric: over bins whose edges are the
    distinct values among the 10%, 20%, ..., 90% quantiles (linear interpolation) of the non-missing values; a
    value's bin index is the number of edges strictly below it; missing values (NaN) form their own bin.

    Parameters
    ----------
    values : array-like, shape (n,)
        The column's values in T (float64 with NaN for numeric; strings for categorical).
    numeric : bool
        Whether the column is numeric.
    missing : object, optional
        Unused for numeric columns; for categorical columns missing is already one string level.

    Returns
    -------
    float
        H_a >= 0; 0 when every value falls in one bin or level.

    >>> round(column_entropy(["a", "a", "b", "b"], numeric=False), 6)  # ln 2
    0.693147
    >>> column_entropy([1.0, 1.0, 1.0, float("nan")], numeric=True) > 0  # value bin and missing bin
    True
    """
    v = np.asarray(values)
    n = v.shape[0]
    if n == 0:
        return 0.0
    if numeric:
        x = v.astype(np.float64)
        miss = np.isnan(x)
        present = x[~miss]
        counts_list = []
        if present.size:
            edges = np.unique(np.quantile(present, np.arange(1, 10) / 10.0))
            idx = np.searchsorted(edges, present, side="left")  # number of edges strictly below each value
            counts_list.append(np.bincount(np.asarray(idx, dtype=np.intp), minlength=edges.size + 1))
        counts_list.append(np.array([int(miss.sum())]))
        counts = np.concatenate(counts_list)
    else:
        _, counts = np.unique(v.astype(str), return_counts=True)
    counts = counts[counts > 0].astype(np.float64)
    p = counts / n
    h = float(-(p * np.log(p)).sum())
    return max(h, 0.0)


#: Epsilon of the identifiability weights w_a = 1 / (H_a + eps) (Trudslev et al., section 2.2.5; docs/metrics.md).
ID_EPS = 1e-8


def _plan_authenticity(ctx: Context, params: dict[str, Any]) -> list[SearchRequest]:
    sp = ctx.metric_space("authenticity", "euclidean")
    return [ctx.request(sp, ctx.T, ctx.S, 1), ctx.request(sp, ctx.T, ctx.T, 1)]


def _closer_than_real(name: str, ctx: Context, sp: SpaceSpec, params: dict[str, Any],
                      extra: dict[str, Any]) -> MetricResult:
    if ctx.size(ctx.T) < 2:
        return not_computed(name, "needs at least two real records (nearest other real record)")
    d_s = ctx.knn(sp, ctx.T, ctx.S, 1).dist[:, 0]
    d_t = ctx.knn(sp, ctx.T, ctx.T, 1).dist[:, 0]
    exact = _exact(ctx, sp)
    ind = closer_indicator(d_s, d_t, exact=exact)
    value = float(ind.mean())
    n_tie = int(stats.ties(d_s, d_t, exact=exact).sum())
    details = {**_sizes(ctx), **extra, "n_synthetic_closer": int(stats.less(d_s, d_t, exact=exact).sum()),
               "n_ties": n_tie, "dcr_synthetic_median": float(np.median(d_s)),
               "dcr_real_median": float(np.median(d_t))}
    return _share_result(name, value, d_s.size, params, sp, details)


def _compute_authenticity(ctx: Context, params: dict[str, Any]) -> MetricResult:
    """Authenticity' (Trudslev et al., section 2.2.4; docs/metrics.md): mean over y of 1[d(y, S) < d(y, T∖y)] + ½
    ties, i.e. 1 - Auth.

    Higher is riskier, range [0, 1]. Interval: Wilson over |T| records (halves included).
    """
    sp = ctx.metric_space("authenticity", "euclidean")
    res = _closer_than_real("authenticity", ctx, sp, params, {})
    if not res.computed:
        return res
    assert res.value is not None  # a computed result has a value
    return replace(res, details={**res.details, "authenticity_original": 1.0 - float(res.value)})


def _id_weights(ctx: Context) -> dict[str, float]:
    """Entropy H_a of every column of T (fitted on T alone: docs/metrics.md, "Distance spaces")."""
    def fit() -> dict[str, float]:
        d = ctx.data
        return {c: column_entropy(d.column_values(ctx.T, c), numeric=d.kinds[c] == "numeric") for c in d.columns}
    return ctx.memo(("review_distance", "id_entropy"), fit)


def _id_space(ctx: Context) -> tuple[SpaceSpec | None, dict[str, float]]:
    ent = _id_weights(ctx)
    weights = tuple((c, 1.0 / (h + ID_EPS)) for c, h in ent.items() if h > 0.0)
    if not weights:
        return None, ent
    return SpaceSpec("euclidean", weights=weights), ent


def _plan_identifiability(ctx: Context, params: dict[str, Any]) -> list[SearchRequest]:
    sp, _ = _id_space(ctx)
    if sp is None:
        return []
    return [ctx.request(sp, ctx.T, ctx.S, 1), ctx.request(sp, ctx.T, ctx.T, 1)]


def _compute_identifiability(ctx: Context, params: dict[str, Any]) -> MetricResult:
    """ID (Trudslev et al., section 2.2.5; docs/metrics.md): Authenticity' in the euclidean space whose columns are
    weighted by 1/(H_a + 1e-8).

    Higher is riskier, range [0, 1]. Interval: Wilson over |T| records (halves included).
    """
    sp, ent = _id_space(ctx)
    if sp is None:
        return not_computed("identifiability", "every column is constant in the real data (entropy 0), so no "
                            "column is left to weigh")
    extra = {"entropy": {c: float(h) for c, h in ent.items()},
             "weights": {c: float(w) for c, w in sp.weights or ()},
             "columns_left_out": [c for c, h in ent.items() if h <= 0.0]}
    return _closer_than_real("identifiability", ctx, sp, params, extra)


class AuthenticityDetails(TypedDict):
    """The details of ``authenticity``: the keys its compute function sets."""

    n_real: int
    n_synthetic: int
    n_synthetic_closer: int
    n_ties: int
    dcr_synthetic_median: float
    dcr_real_median: float
    authenticity_original: float


class IdentifiabilityDetails(TypedDict):
    """The details of ``identifiability``: the keys its compute function sets."""

    n_real: int
    n_synthetic: int
    entropy: dict[str, float]
    weights: dict[str, float]
    columns_left_out: list[str]
    n_synthetic_closer: int
    n_ties: int
    dcr_synthetic_median: float
    dcr_real_median: float


_spec("authenticity", "Authenticity'", _compute_authenticity, _plan_authenticity, space="euclidean",
      copy_sensitive=True,
      summary="Share of real records whose nearest synthetic record is closer than their nearest other real one.",
      definition="For each real record, its distance to the nearest synthetic record is compared with its "
      "distance to the nearest other real record; a closer synthetic record counts 1, a tie one half. "
      "Authenticity' is the mean count, i.e. 1 minus the authenticity of Trudslev et al.",
      details=AuthenticityDetails)


_spec("identifiability", "Identifiability (ID)", _compute_identifiability, _plan_identifiability,
      space=None, copy_sensitive=True, choosable=False,
      summary="Authenticity' with low-entropy (more identifying) columns weighted up.",
      definition="Each column's euclidean coordinates are multiplied by 1/(entropy + 1e-8), the column's "
      "entropy taken in the real data (constant columns left out). ID is the share of real records whose nearest "
      "synthetic record is "
      "closer than their nearest other real record in that weighted space, ties counted one half.",
      details=IdentifiabilityDetails)
