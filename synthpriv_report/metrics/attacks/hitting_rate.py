"""``hitting_rate``: the share of real records with a synthetic record equal on every category and within a
tolerance (the column's range divided by ``hitr_divisor``) on every number (as reviewed by Trudslev et al.).

The tolerance join checks, for each real record, the synthetic records of its categorical signature within the
window of one numeric column: their number (known before the scan) grows with |T| x |S|. Above
:data:`HITR_MAX_CANDIDATES` it checks a random subsample of T drawn from ``default_rng(random_state)``, sized to
that budget, against every synthetic record; the Wilson interval covers the sampling, the pair count in the
details is the sampled records', and a note says so. Definitions and choices: ``docs/metrics.md``, section
"hitting_rate".

Each column's tolerance is its range in the training data divided by the divisor: 30 times a tolerance is a real
column's exact range, so the tolerances are kept in the details only with ``reveal_real_values=True``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import NDArray

from ... import stats
from ...core.applicability import continuous_keys
from ...core.params import review_level
from ...core.registry import Computation, Grading, MetricSpec, NotRequired, Param, Presentation, TypedDict, register
from ...core.results import MetricResult
from ...matching.joins import _HitrIndex, _hits_from_index, hitting_candidates

if TYPE_CHECKING:  # pragma: no cover
    from ...core.protocols import MetricContext
    from ...engine.context import Context

from ._common import _WORDS_ATTACK, _budget_rows, _sample_note


def _hitr_index(ctx: Context, syn: str | None = None) -> _HitrIndex:
    """The join index of T against the synthetic set (``syn``: default the context's, H in the calibration)."""
    syn = ctx.S if syn is None else syn

    def build() -> _HitrIndex:
        d = ctx.data
        return _HitrIndex(ctx.fitted.wide_codes(ctx.T), d.numeric[ctx.T].rows(), ctx.fitted.wide_codes(syn),
                          d.numeric[syn].rows())

    return ctx.memo(("review_attack.hitr_index", ctx.T, syn), build)


#: Candidate (real, synthetic) pairs above which HitR checks a random sample of the real records (see
#: :func:`_hitr_rows`); Adult-like data at a million records per set stay below it.
HITR_MAX_CANDIDATES = 5 * 10**8


def _hitr_rows(ctx: Context, h: NDArray[np.float64]) -> NDArray[np.int64] | None:
    """The real records HitR checks: all (None) while the join against the synthetic set has at most
    :data:`HITR_MAX_CANDIDATES` candidate pairs, else a random subsample of T drawn from
    ``default_rng(random_state)``, sized so that about that many remain. The candidates grow with |T| x |S|
    (each real record's window holds a share of S); the calibration checks the same records."""
    def build() -> NDArray[np.int64] | None:
        cands = hitting_candidates(_hitr_index(ctx, "S"), h)
        return _budget_rows(ctx.size(ctx.T), cands, HITR_MAX_CANDIDATES, ctx.random_state)

    return ctx.memo(("review_attack.hitr_rows", ctx.T, h.tobytes(), HITR_MAX_CANDIDATES, ctx.random_state), build)


def _hitr_ranges(ctx: Context) -> NDArray[np.float64]:
    """Numeric ranges fitted on T alone (docs/metrics.md, "Shared machinery"); an all-missing or constant column
    has range 0."""
    def build() -> NDArray[np.float64]:
        x = ctx.data.numeric[ctx.T]
        out = np.zeros(x.shape[1])
        for j in range(x.shape[1]):
            v = x[:, j][~np.isnan(x[:, j])]
            if v.size:
                out[j] = float(v.max() - v.min())
        return out

    return ctx.memo(("review_attack.hitr_ranges", ctx.T), build)


def _hitr_compute(ctx: Context, params: dict[str, Any]) -> MetricResult:
    divisor = float(params["hitr_divisor"])
    if not divisor > 0 or not math.isfinite(divisor):
        raise ValueError(f"hitr_divisor must be a positive number, got {params['hitr_divisor']!r}")
    h = _hitr_ranges(ctx) / divisor
    index = _hitr_index(ctx)
    rows = _hitr_rows(ctx, h)
    hit, n_pairs = _hits_from_index(index, h, rows)
    n_t = int(hit.shape[0])
    value = float(hit.mean())
    details: dict[str, Any] = {
        "n_real_hit": int(hit.sum()),
        "n_pairs": n_pairs,
        "hitr_divisor": divisor,
        "n_categorical_signatures_real": int(np.unique(index.g_t).shape[0]),
        "n_real": n_t,
        "n_real_total": ctx.size(ctx.T),
        "n_synthetic": int(index.g_s.shape[0]),
    }
    if ctx.settings.get("reveal_real_values", False):
        # each tolerance is a real column's range (times 1/divisor): shown only where real values may be
        details["tolerances"] = {c: float(v) for c, v in zip(ctx.data.numeric_columns, h)}
    notes = _sample_note(n_t, ctx.size(ctx.T), ctx.random_state, HITR_MAX_CANDIDATES, "candidate pairs",
                         "the pair count is that of the sampled records")
    return MetricResult(name="hitting_rate", value=value, interval=stats.wilson(value, n_t),
                        details=details, notes=notes)


HITR_DIVISOR = Param("hitr_divisor", 30.0, low=0.0, low_open=True, slider=(5.0, 100.0, 1.0),
                     label="HitR tolerance divisor",
                     doc="A numeric value matches when it is within the real column's range divided by this.")


class HittingRateDetails(TypedDict):
    """The details of ``hitting_rate``: the keys its compute function sets."""

    n_real_hit: int
    n_pairs: int
    hitr_divisor: float
    n_categorical_signatures_real: int
    n_real: int
    n_real_total: int
    n_synthetic: int
    tolerances: NotRequired[dict[str, float]]


register(MetricSpec(
    name="hitting_rate",
    computation=Computation(
        # the engine passes its own Context (beyond the MetricContext protocol: the fitted codes)
        compute=cast("Callable[[MetricContext, dict[str, Any]], MetricResult]", _hitr_compute),
        plan=lambda ctx, p: [], params=(HITR_DIVISOR,), calibratable=True,
        checks=(continuous_keys(all_columns=True, match="tolerance match"),), copy_sensitive=True,
        details=HittingRateDetails),
    grading=Grading(
        direction="higher_is_riskier", value_range=(0.0, 1.0), level=review_level),
    presentation=Presentation(
        title="Hitting rate", section="3", group="attack",
        summary="The share of real records that have a near-identical synthetic record.",
        definition="A real record is hit when some synthetic record has every categorical value equal and every "
                   "numeric value within the real range divided by the divisor (30 by default). The hitting rate "
                   "is the share of real records hit (Trudslev et al., Eq. 32-33, counting real records).",
        interval_kind="Wilson 95%", words=_WORDS_ATTACK),
))
