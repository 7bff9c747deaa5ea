"""``crp``: the common rows proportion, the share of real records that appear verbatim in the synthetic data (as
reviewed by Trudslev et al.). Records are grouped on integer-encoded rows (sorting and ``searchsorted``); no
pairwise loop and no n x m matrix. Definitions and choices: ``docs/metrics.md``, section "crp".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ... import stats
from ...core.applicability import continuous_keys
from ...core.params import review_level
from ...core.registry import Computation, Grading, MetricSpec, Presentation, TypedDict, register
from ...core.results import MetricResult

if TYPE_CHECKING:  # pragma: no cover
    from ...core.protocols import MetricContext

from ._common import _WORDS_ATTACK


def crp_value(n_copies: int, n_real: int) -> float:
    """CRP (Trudslev et al., Eq. 12 without the 1e-8 term): synthetic records identical to some real
    record, counted with multiplicity over S, divided by |T| and clipped to [0, 1]. Higher is riskier.

    >>> crp_value(3, 4), crp_value(9, 4)
    (0.75, 1.0)
    """
    return float(min(1.0, max(0.0, n_copies / n_real)))


def _crp_compute(ctx: MetricContext, params: dict[str, Any]) -> MetricResult:
    copies = ctx.identical_in(ctx.S, ctx.T)
    n_t, n_s = ctx.size(ctx.T), ctx.size(ctx.S)
    n_copies = int(copies.sum())
    value = crp_value(n_copies, n_t)
    ids_t = ctx.record_ids(ctx.T)
    copied_real = np.isin(ids_t, ctx.record_ids(ctx.S)[copies])
    details = {
        "n_copies": n_copies,
        "ratio_unclipped": n_copies / n_t,
        "share_synthetic_copied": n_copies / n_s,
        "n_real_copied": int(copied_real.sum()),
        "n_real": n_t,
        "n_synthetic": n_s,
    }
    return MetricResult(name="crp", value=value, interval=stats.wilson(value, n_t),
                        details=details)


class CrpDetails(TypedDict):
    """The details of ``crp``: the keys its compute function sets."""

    n_copies: int
    ratio_unclipped: float
    share_synthetic_copied: float
    n_real_copied: int
    n_real: int
    n_synthetic: int


register(MetricSpec(
    name="crp",
    computation=Computation(
        compute=_crp_compute, plan=lambda ctx, p: [], calibratable=True, checks=(continuous_keys(all_columns=True),),
        copy_sensitive=True, details=CrpDetails),
    grading=Grading(
        direction="higher_is_riskier", value_range=(0.0, 1.0), level=review_level),
    presentation=Presentation(
        title="Common rows proportion", section="3", group="attack",
        summary="How many synthetic records are exact copies of real records, relative to the real data's size.",
        definition="The number of synthetic records identical to some real record, counted with multiplicity, "
                   "divided by the number of real records and clipped to [0, 1]. Identical means every analysed "
                   "column equal (Trudslev et al., Eq. 12).",
        interval_kind="Wilson 95%", words=_WORDS_ATTACK),
))
