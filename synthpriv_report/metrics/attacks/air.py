"""``air``: attribute inference risk, the weighted F1 of an attacker who guesses a real record's sensitive values
from its nearest synthetic records, numeric values within a relative tolerance (Hittmeir et al., "A baseline for
attribute disclosure risk in synthetic data", CODASPY 2020, as reviewed by Trudslev et al.). Definitions and
choices: ``docs/metrics.md``, section "air".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ... import neighbors as nb
from ...core.params import N_BOOTSTRAP, review_level
from ...core.registry import Computation, Grading, MetricSpec, Param, Presentation, TypedDict, register
from ...core.results import MetricResult, not_computed

if TYPE_CHECKING:  # pragma: no cover
    from ...core.protocols import MetricContext
    from ...engine.context import Context

from ._common import (
    _WORDS_ATTACK,
    _euclid_keys,
    _interval,
    _key_groups,
    _keys,
    _sens_codes,
    _sens_values,
    _split_sensitive,
    correct_exists,
    entropy_weights,
)


def air_f1(n_min: ArrayLike, n_correct: ArrayLike) -> NDArray[np.float64]:
    """Per-real-record F1 of AIR (docs/metrics.md): ``2 TP / (2 TP + FP)`` with ``FP = |N(y)| - TP``, and 0 when
    TP = 0.

    Parameters
    ----------
    n_min : array-like of int, shape (n,)
        ``|N(y)|``, the synthetic records at the minimal euclidean distance on the key attributes.
    n_correct : array-like of int, shape (n,) or (n, a)
        TP per record (and sensitive attribute).

    Returns
    -------
    ndarray, shape like ``n_correct``; range [0, 1], higher is riskier.

    Examples
    --------
    >>> air_f1([1, 3, 2], [1, 1, 0]).round(4).tolist()
    [1.0, 0.5, 0.0]
    """
    m = np.asarray(n_min, dtype=np.float64)
    tp = np.asarray(n_correct, dtype=np.float64)
    if tp.ndim == 2:
        m = m[:, None]
    denom = tp + m  # 2 TP + FP = 2 TP + (|N| - TP)
    return np.where(tp > 0, 2.0 * tp / np.maximum(denom, 1.0), 0.0)


def _air_plan(ctx: Context, params: dict[str, Any]) -> list[Any]:
    sp = _euclid_keys(ctx)
    return [ctx.request(sp, ctx.T, ctx.S, 1), ctx.tree_request(sp, ctx.S)]  # the ties at the minimum read S's tree


def _air_ties(ctx: Context, attrs: list[str], kind: int, tol: float) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(|N(y)|, TP per attribute) for the categorical (kind 0) or numeric (kind 1, tolerance ``tol``) a_S."""
    space = _euclid_keys(ctx)

    def build() -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        dmin = ctx.knn(space, ctx.T, ctx.S, 1).dist[:, 0]
        tree = ctx.tree(space, ctx.S)
        qnum, qcat = ctx.query_arrays(space, ctx.T)
        if kind == 0:
            qlab = _sens_codes(ctx, ctx.T, attrs).astype(np.float64)
            rlab = _sens_codes(ctx, ctx.S, attrs).astype(np.float64)
        else:
            qlab = _sens_values(ctx, ctx.T, attrs)
            rlab = _sens_values(ctx, ctx.S, attrs)
        kinds = np.full(len(attrs), kind, dtype=np.int64)
        return nb.ties_at_min(tree, qnum, qcat, dmin, qlab, rlab, kinds, np.full(len(attrs), tol),
                              engine=ctx.settings.get("engine", "auto"))

    key_tol = float(tol) if kind == 1 else None
    return ctx.memo(("review_attack.air_ties", space, ctx.T, ctx.S, tuple(attrs), kind, key_tol), build)


def _air_compute(ctx: Context, params: dict[str, Any]) -> MetricResult:
    cat, num = _split_sensitive(ctx)
    tol = float(params["air_tolerance"])
    w = ctx.memo(("review_attack.entropy_weights", ctx.T), lambda: entropy_weights(ctx.record_ids(ctx.T)))
    if not float(w.sum()) > 0:
        return not_computed("air", "every real record is identical, so every entropy weight -P ln P is 0 and "
                                   "AIR's weighted mean is undefined")
    attrs: list[str] = []
    tps: list[NDArray[np.int64]] = []
    n_min: NDArray[np.int64] | None = None
    exists: list[NDArray[np.bool_]] = []
    if cat:
        n_min, tp = _air_ties(ctx, cat, 0, 0.0)
        attrs += cat
        tps.append(tp)
        ct, cs = _sens_codes(ctx, ctx.T, cat), _sens_codes(ctx, ctx.S, cat)
        exists += [correct_exists(ct[:, j], cs[:, j], kind=0) for j in range(len(cat))]
    if num:
        n_min, tp = _air_ties(ctx, num, 1, tol)
        attrs += num
        tps.append(tp)
        vt, vs = _sens_values(ctx, ctx.T, num), _sens_values(ctx, ctx.S, num)
        exists += [correct_exists(vt[:, j], vs[:, j], kind=1, tolerance=tol) for j in range(len(num))]
    tp = np.concatenate(tps, axis=1)
    assert n_min is not None  # set by either branch above: without a sensitive attribute the concatenation fails
    f1 = air_f1(n_min, tp)
    scores = f1.mean(axis=1)
    wsum = float(w.sum())
    value = float(np.clip((w * scores).sum() / wsum, 0.0, 1.0))
    per_attr, dataset = {}, {}
    for j, a in enumerate(attrs):
        per_attr[a] = float((w * f1[:, j]).sum() / wsum)
        tp_sum = int(tp[:, j].sum())
        fp_sum = int((n_min - tp[:, j]).sum())
        fn_sum = int(((tp[:, j] == 0) & exists[j]).sum())
        prec = tp_sum / (tp_sum + fp_sum) if tp_sum + fp_sum else 0.0
        rec = tp_sum / (tp_sum + fn_sum) if tp_sum + fn_sum else 0.0
        f1_d = 2 * prec * rec / (prec + rec) if prec + rec > 0 else 0.0
        dataset[a] = {"TP": tp_sum, "FP": fp_sum, "FN": fn_sum, "precision": prec, "recall": rec, "f1": f1_d}
    gt, _, _ = _key_groups(ctx)
    dmin = ctx.knn(_euclid_keys(ctx), ctx.T, ctx.S, 1).dist[:, 0]
    details = {
        "per_attribute": per_attr,
        "dataset_level": dataset,
        "air_tolerance": tol,
        "sensitive_used": attrs,
        "key_fields": list(_keys(ctx)),
        "n_key_combinations_real": int(np.unique(gt).shape[0]),
        "mean_matches_per_real": float(n_min.mean()),
        "max_matches_per_real": int(n_min.max()),
        "share_exact_key_match": float((dmin == 0).mean()),
        "sum_weights": wsum,
        "n_real": int(n_min.shape[0]),
    }
    interval = _interval(w * scores, w, ctx, params)
    return MetricResult(name="air", value=value, interval=interval,
                        details=details, space=_euclid_keys(ctx).label)


AIR_TOLERANCE = Param("air_tolerance", 0.1, low=0.0, slider=(0.0, 0.5, 0.01), label="AIR numeric tolerance",
                      doc="A numeric sensitive value is guessed right when within this share of the true value.")


class AirDetails(TypedDict):
    """The details of ``air``: the keys its compute function sets."""

    per_attribute: dict[str, float]
    dataset_level: dict[str, Any]
    air_tolerance: float
    sensitive_used: list[str]
    key_fields: list[str]
    n_key_combinations_real: int
    mean_matches_per_real: float
    max_matches_per_real: int
    share_exact_key_match: float
    sum_weights: float
    n_real: int


register(MetricSpec(
    name="air",
    computation=Computation(
        # the engine passes its own Context (beyond the MetricContext protocol: the search tree, the query arrays)
        compute=cast("Callable[[MetricContext, dict[str, Any]], MetricResult]", _air_compute),
        plan=cast("Callable[[MetricContext, dict[str, Any]], list[Any]]", _air_plan), needs=("sensitive_fields",),
        default_space="euclidean", params=(AIR_TOLERANCE, N_BOOTSTRAP), calibratable=True, details=AirDetails),
    grading=Grading(
        direction="higher_is_riskier", value_range=(0.0, 1.0), level=review_level),
    presentation=Presentation(
        title="Attribute inference risk", section="3", group="attack",
        summary="How well an attacker who knows a person's key values guesses their sensitive values from the "
                "nearest synthetic records.",
        definition="For each real record, the synthetic records at the minimal euclidean distance on the key "
                   "attributes are guesses, correct when the sensitive value is equal (categorical) or within the "
                   "relative tolerance (numeric), scored by F1 = 2TP/(2TP + FP). AIR is the mean of these F1 "
                   "scores weighted by -P ln P of each record's frequency in the real data, averaged over sensitive "
                   "attributes (Trudslev et al., Eq. 8-11).",
        interval_kind="bootstrap 95% (percentile)", words=_WORDS_ATTACK),
))
