"""What the distance metrics of Trudslev et al.'s review share: result and interval helpers and one declaration
factory. Every value is in [0, 1] and higher means more risk (the review's rescaled convention); none of them is 0
at an ideal generator, which is why the evaluation shows each beside its calibration (the holdout in the role of
the synthetic data). A share of records gets a Wilson interval; a mean of per-record values a percentile
bootstrap of the mean over records, transformed to the headline scale. Searches are shared between metrics:
euclidean T -> S with k = 1 serves CVP, DVP', NSND, Authenticity' and MDCR'; euclidean T -> T with k = 1 serves
Authenticity', MDCR' and NNAA'; projected S -> T with k = 2 serves NNDR; projected T -> S with k = 1 serves DCR'
and HiddR. Definitions and sources: ``docs/metrics.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ... import stats
from ...core.params import review_level
from ...core.registry import Computation, Grading, Group, MetricSpec, Need, Param, Presentation, Words, register
from ...core.results import MetricResult
from ...spaces import SpaceSpec

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.context import Context


SATURATION_NOTE = (
    "d_max is the farthest real-synthetic pair, which dwarfs nearest-neighbour distances: the rescaled distances "
    "u crowd near 0, so DVP' is about 1 on almost any data and NSND sits high even for an ideal generator; read "
    "the value against its calibration (holdout in the role of the synthetic data)."
)


def closer_indicator(d_a: ArrayLike, d_b: ArrayLike, *, exact: bool = False) -> NDArray[np.float64]:
    """Per record 1[d_a < d_b] + 1/2 1[d_a = d_b] with the package's tie rule (docs/metrics.md, "Ties, self-matches
    and nearest records").

    Authenticity' uses ``closer_indicator(d(y, S), d(y, T \\ y))``, ID the same in the weighted space, NNAA's
    terms ``closer_indicator(d(y, T \\ y), d(y, S))`` and ``closer_indicator(d(z, S \\ z), d(z, T))``.

    >>> closer_indicator([0.0, 1.0, 2.0, 3.0], [1.0, 1.0, 1.0, 3.0 + 1e-13]).tolist()
    [1.0, 0.5, 0.0, 0.5]
    """
    a = np.asarray(d_a, dtype=np.float64)
    b = np.asarray(d_b, dtype=np.float64)
    return stats.less(a, b, exact=exact).astype(np.float64) + 0.5 * stats.ties(a, b, exact=exact)


def _share_result(name: str, value: float, n: int, params: dict[str, Any], space: SpaceSpec,
                  details: dict[str, Any], notes: tuple[str, ...] = ()) -> MetricResult:
    """A share of records: Wilson interval over ``n`` trials."""
    return MetricResult(name=name, value=float(value), interval=stats.wilson(float(value), int(n)),
                        details=details, space=space.label, notes=notes)


def _mean_interval(x: NDArray[np.float64], ctx: Context, params: dict[str, Any]) -> tuple[float, float]:
    ci = stats.bootstrap_stats(x, n_resamples=int(params["n_bootstrap"]), random_state=ctx.random_state,
                               quantiles=(), plans=ctx.resample_plans)
    return ci["mean"]


def _sizes(ctx: Context) -> dict[str, int]:
    return {"n_real": ctx.size(ctx.T), "n_synthetic": ctx.size(ctx.S)}


def _exact(ctx: Context, space: SpaceSpec) -> bool:
    return bool(ctx.encoding(space).integer_valued)


def _space_details(ctx: Context, space: SpaceSpec) -> dict[str, Any]:
    if space.kind != "projected":
        return {"space": space.label}
    proj = ctx.projection(space)
    return {"space": space.label, "projected_k": int(proj.n_components),
            "explained_variance": float(np.sum(proj.explained_variance_ratio[:proj.n_components]))}


_WORDS_CLOSE = Words(measures="how close synthetic records come to real people, as defined by Trudslev et al.",
                     high_means="a high value is risky (1 = no privacy)",
                     ideal="the value the holdout reaches when it stands in for the synthetic data")


def _spec(name: str, title: str, compute: Any, plan: Any, *, space: str | None, summary: str, definition: str,
          params: tuple[Param, ...] = (), copy_sensitive: bool = False, calibratable: bool = True,
          choosable: bool = True, needs: tuple[Need, ...] = (), interval_kind: str = "Wilson 95%",
          group: Group = "closeness", words: Words = _WORDS_CLOSE, details: type | None = None) -> MetricSpec:
    return register(MetricSpec(
        name=name,
        computation=Computation(
            compute=compute, plan=plan, needs=needs, default_space=space, space_choosable=choosable, params=params,
            calibratable=calibratable, details=details, copy_sensitive=copy_sensitive),
        grading=Grading(
            direction="higher_is_riskier", value_range=(0.0, 1.0), level=review_level),
        presentation=Presentation(
            title=title, section="3", group=group, summary=summary, definition=definition, words=words,
            interval_kind=interval_kind),
    ))
