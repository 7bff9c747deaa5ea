"""``nnaa``: one minus the nearest-neighbour adversarial accuracy (Yale et al., "Generation and evaluation of privacy
preserving synthetic health data", Neurocomputing 2020; as reviewed by Trudslev et al.). Definitions and choices:
``docs/metrics.md``, section "nnaa".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from ... import stats
from ...core.registry import TypedDict
from ...core.results import MetricResult, not_computed

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.context import Context
    from ...engine.requests import SearchRequest, SetRef

from ._common import _exact, _share_result, _sizes, _spec, closer_indicator

#: Number of subsample draws of NNAA' when |T| != |S| (Trudslev et al., section 2.2.10; docs/metrics.md).
NNAA_DRAWS = 5


def nnaa_score(d_ys: ArrayLike, d_yy: ArrayLike, d_zy: ArrayLike, d_zz: ArrayLike, *,
               exact: bool = False) -> float:
    """NNAA' = 1 - AA for one pair of equally sized sets (Trudslev et al., section 2.2.10, with the ½ the printed Eq.
    30 omits; docs/metrics.md).

    AA = ½ [mean over y of (1[d(y, S) > d(y, T∖y)] + ½ ties) + mean over z of (1[d(z, T) > d(z, S∖z)] + ½ ties)].

    Parameters
    ----------
    d_ys, d_yy : array-like, shape (n,)
        For every real record: distance to the nearest synthetic record and to the nearest other real record.
    d_zy, d_zz : array-like, shape (n,)
        For every synthetic record: distance to the nearest real record and to the nearest other synthetic one.

    Returns
    -------
    float
        In [0, 1]; 1 when S = T (every record's nearest neighbour is its copy in the other set), about 0.5 when
        the sets are exchangeable.

    >>> nnaa_score([0.0, 0.0], [1.0, 1.0], [0.0, 0.0], [1.0, 1.0])
    1.0
    >>> nnaa_score([2.0, 1.0], [1.0, 1.0], [2.0, 2.0], [1.0, 3.0])
    0.375
    """
    aa_y = closer_indicator(d_yy, d_ys, exact=exact).mean()  # 1[d(y, S) > d(y, T∖y)] + ½ ties
    aa_z = closer_indicator(d_zz, d_zy, exact=exact).mean()  # 1[d(z, T) > d(z, S∖z)] + ½ ties
    return float(1.0 - 0.5 * (aa_y + aa_z))


def _nnaa_sets(ctx: Context) -> list[tuple[SetRef, SetRef]]:
    """(real set, synthetic set) pairs of equal size: the full sets, or 5 subsamples of the larger one."""
    n_t, n_s = ctx.size(ctx.T), ctx.size(ctx.S)
    full_t, full_s = ctx.full(ctx.T), ctx.full(ctx.S)
    if n_t == n_s:
        return [(full_t, full_s)]
    rng = np.random.default_rng(ctx.random_state)
    out = []
    for i in range(NNAA_DRAWS):
        if n_t > n_s:
            out.append((ctx.subset(ctx.T, stats.subsample(n_t, n_s, rng), tag=f"nnaa.{i}"), full_s))
        else:
            out.append((full_t, ctx.subset(ctx.S, stats.subsample(n_s, n_t, rng), tag=f"nnaa.{i}")))
    return out


def _plan_nnaa(ctx: Context, params: dict[str, Any]) -> list[SearchRequest]:
    sp = ctx.metric_space("nnaa", "euclidean")
    if min(ctx.size(ctx.T), ctx.size(ctx.S)) < 2:
        return []
    reqs = []
    for y, z in _nnaa_sets(ctx):
        reqs += [ctx.request(sp, y, z, 1), ctx.request(sp, y, y, 1), ctx.request(sp, z, y, 1),
                 ctx.request(sp, z, z, 1)]
    return reqs


def _compute_nnaa(ctx: Context, params: dict[str, Any]) -> MetricResult:
    """NNAA' (Trudslev et al., section 2.2.10; docs/metrics.md): 1 - AA on equally sized sets (5 subsamples of the
    larger set when sizes differ).

    Higher is riskier, range [0, 1]. Interval: Wilson with p = NNAA' over the 2·min(|T|, |S|) records of one
    evaluation (each record is one trial of the nearest-neighbour classifier).
    """
    sp = ctx.metric_space("nnaa", "euclidean")
    m = min(ctx.size(ctx.T), ctx.size(ctx.S))
    if m < 2:
        return not_computed("nnaa", "needs at least two real and two synthetic records")
    exact = _exact(ctx, sp)
    values = []
    for y, z in _nnaa_sets(ctx):
        values.append(nnaa_score(ctx.knn(sp, y, z, 1).dist[:, 0], ctx.knn(sp, y, y, 1).dist[:, 0],
                                 ctx.knn(sp, z, y, 1).dist[:, 0], ctx.knn(sp, z, z, 1).dist[:, 0], exact=exact))
    value = float(np.mean(values))
    details = {**_sizes(ctx), "evaluation_size": m, "n_draws": len(values), "draw_values": values,
               "aa": 1.0 - value}
    return _share_result("nnaa", value, 2 * m, params, sp, details)


class NnaaDetails(TypedDict):
    """The details of ``nnaa``: the keys its compute function sets."""

    n_real: int
    n_synthetic: int
    evaluation_size: int
    n_draws: int
    draw_values: list[float]
    aa: float


_spec("nnaa", "Nearest neighbour adversarial accuracy (NNAA')", _compute_nnaa, _plan_nnaa, space="euclidean",
      copy_sensitive=True,
      summary="One minus the accuracy of telling real from synthetic by whose nearest neighbour is which.",
      definition="AA averages, over real records, whether the nearest synthetic record is farther than the "
      "nearest other real one, and over synthetic records, whether the nearest real record is farther than the "
      "nearest other synthetic one (ties one half), on equally sized sets. NNAA' = 1 - AA; 1 when the synthetic "
      "data copies the real data.",
      details=NnaaDetails)
