"""``zcap`` and ``gcap``: the correct attribution probability of an attacker who knows a real record's key fields
and guesses its sensitive values from the synthetic records that match them exactly (ZCAP) or are nearest in
Hamming distance (GCAP), after Taub et al., "Differential correct attribution probability for synthetic data"
(PSD 2018), as reviewed by Trudslev et al. Definitions and choices: ``docs/metrics.md``, sections "zcap" and
"gcap".

GCAP's Hamming space over many key attributes holds large groups of synthetic records at the same minimal
distance, which no search can skip: its cost grows with |T| x |S|. Where a tree walk would visit many of them,
the records at the minimum are counted by the tiled kernel (:func:`synthpriv_report.neighbors.ties_at_min`, the
same counts; on full Adult without key fields 1.6 CPU-s instead of 17). Above :data:`GCAP_MAX_PAIRS` real-synthetic
pairs (20,000 real records against a million synthetic ones) it compares a random subsample of T drawn from
``default_rng(random_state)``; S is kept whole, so every synthetic record at the minimal distance still counts,
and the calibration compares the same real records. The value is then the mean over the sampled real records, an
unbiased estimate of the mean over T whose bootstrap interval covers the sampling; the sizes used are in the
details and a note in the report says so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ... import neighbors as nb
from ...core.applicability import continuous_keys
from ...core.params import N_BOOTSTRAP, review_level
from ...core.registry import Computation, Grading, MetricSpec, Presentation, TypedDict, register
from ...core.results import MetricResult, not_computed

if TYPE_CHECKING:  # pragma: no cover
    from ...core.protocols import MetricContext
    from ...engine.context import Context
    from ...engine.requests import SetRef

from ._common import (
    _WORDS_ATTACK,
    _budget_rows,
    _hamming_keys,
    _interval,
    _key_groups,
    _keys,
    _numeric_sens_reason,
    _sample_note,
    _sens_codes,
    _split_sensitive,
)


def key_matches(keys_t: ArrayLike, keys_s: ArrayLike) -> NDArray[np.int64]:
    """For each real record: how many synthetic records have its key combination (ids in one id space).

    >>> key_matches([0, 1, 2], [1, 1, 2]).tolist()
    [0, 2, 1]
    """
    kt = np.asarray(keys_t, dtype=np.int64)
    ks = np.asarray(keys_s, dtype=np.int64)
    n_groups = int(max(kt.max(initial=-1), ks.max(initial=-1))) + 1
    return np.asarray(np.bincount(ks.astype(np.intp), minlength=n_groups)[kt], dtype=np.int64)  # 32-bit: intp


def zcap_scores(keys_t: ArrayLike, keys_s: ArrayLike, sens_t: ArrayLike, sens_s: ArrayLike) -> NDArray[np.float64]:
    """Per-real-record ZCAP of one categorical sensitive attribute (Trudslev et al., Eq. 3).

    ``zcap(y) = |{s : s[A_K] = y[A_K], s[a_S] = y[a_S]}| / max(1, |{s : s[A_K] = y[A_K]}|)``; a real record
    without a key match scores 0. Direction: higher is riskier; range [0, 1].

    Parameters
    ----------
    keys_t, keys_s : array-like of int, shape (n,) and (m,)
        Key-combination ids of T and S in one id space (see :func:`group_ids`).
    sens_t, sens_s : array-like of int, shape (n,) and (m,)
        Codes of the sensitive attribute (missing is its own code).

    Returns
    -------
    ndarray, shape (n,)

    Examples
    --------
    >>> zcap_scores([0, 1, 2], [0, 0, 1], [5, 5, 5], [5, 6, 6]).tolist()
    [0.5, 0.0, 0.0]
    """
    kt = np.asarray(keys_t, dtype=np.int64)
    ks = np.asarray(keys_s, dtype=np.int64)
    ct = np.asarray(sens_t, dtype=np.int64)
    cs = np.asarray(sens_s, dtype=np.int64)
    matches = key_matches(kt, ks)
    n_levels = int(max(ct.max(initial=-1), cs.max(initial=-1))) + 1
    pair_s = ks * n_levels + cs
    uniq, counts = np.unique(pair_s, return_counts=True)
    pair_t = kt * n_levels + ct
    correct = np.zeros(kt.shape[0], dtype=np.int64)
    if uniq.shape[0]:
        pos = np.minimum(np.searchsorted(uniq, pair_t), uniq.shape[0] - 1)
        correct = np.where(uniq[pos] == pair_t, counts[pos], 0)
    return correct / np.maximum(1, matches)


def gcap_scores(n_min: ArrayLike, n_correct: ArrayLike) -> NDArray[np.float64]:
    """Per-real-record GCAP (Trudslev et al., Eq. 5): correct matches over all matches at the minimal
    Hamming distance.

    Parameters
    ----------
    n_min : array-like of int, shape (n,)
        Synthetic records at the minimal distance of each real record (at least 1 when S is not empty).
    n_correct : array-like of int, shape (n,) or (n, a)
        Of those, the ones sharing the sensitive value (per attribute).

    Returns
    -------
    ndarray, shape like ``n_correct``; range [0, 1], higher is riskier.

    Examples
    --------
    >>> gcap_scores([2, 4, 1], [1, 4, 0]).tolist()
    [0.5, 1.0, 0.0]
    """
    m = np.asarray(n_min, dtype=np.float64)
    c = np.asarray(n_correct, dtype=np.float64)
    if c.ndim == 2:
        m = m[:, None]
    return np.where(m > 0, c / np.maximum(m, 1.0), 0.0)


def _zcap_compute(ctx: Context, params: dict[str, Any]) -> MetricResult:
    cat, num = _split_sensitive(ctx)
    if not cat:
        return not_computed("zcap", _numeric_sens_reason("ZCAP", num))
    gt, gs, _ = _key_groups(ctx)
    ct, cs = _sens_codes(ctx, ctx.T, cat), _sens_codes(ctx, ctx.S, cat)
    per_attr = np.column_stack([zcap_scores(gt, gs, ct[:, j], cs[:, j]) for j in range(len(cat))])
    scores = per_attr.mean(axis=1)
    value = float(scores.mean())
    matches = np.bincount(np.asarray(gs, dtype=np.intp), minlength=int(max(gt.max(), gs.max())) + 1)[gt]
    details = {
        **_cap_details(ctx, cat, num, per_attr, gt),
        "share_real_with_match": float((matches > 0).mean()),
        "mean_matches_per_real": float(matches.mean()),
        "n_real": int(gt.shape[0]),
        "n_synthetic": int(gs.shape[0]),
    }
    return MetricResult(name="zcap", value=value, interval=_interval(scores, None, ctx, params),
                        details=details)


def _cap_details(ctx: Context, cat: list[str], num: list[str], per_attr: NDArray[np.float64],
                 gt: NDArray[np.int64]) -> dict[str, Any]:
    """The details ZCAP and GCAP share: per-attribute means, the attributes used and skipped, the key fields
    and the number of distinct real key combinations."""
    return {
        "per_attribute": {a: float(per_attr[:, j].mean()) for j, a in enumerate(cat)},
        "sensitive_used": cat,
        "sensitive_skipped_numeric": num,
        "key_fields": list(_keys(ctx)),
        "n_key_combinations_real": int(np.unique(gt).shape[0]),
    }


#: Real-synthetic pairs above which GCAP compares a random sample of the real records (see the module docstring).
GCAP_MAX_PAIRS = 2 * 10**10


def gcap_real_rows(n_real: int, n_syn: int, *, random_state: int | None,
                   max_pairs: int | None = None) -> NDArray[np.int64] | None:
    """The real records GCAP compares: all of them (None) while ``n_real * n_syn`` is at most ``max_pairs``
    (default :data:`GCAP_MAX_PAIRS`), else a random subsample of ``max_pairs // n_syn`` positions drawn from
    ``default_rng(random_state)`` (sorted; the package's subsample rule).

    >>> gcap_real_rows(5, 4, random_state=0, max_pairs=20) is None
    True
    >>> rows = gcap_real_rows(5, 4, random_state=0, max_pairs=12)
    >>> rows.tolist() == sorted(np.random.default_rng(0).choice(5, 3, replace=False))
    True
    """
    budget = GCAP_MAX_PAIRS if max_pairs is None else int(max_pairs)
    return _budget_rows(n_real, n_real * n_syn, budget, random_state)


def _gcap_real(ctx: Context) -> SetRef:
    """T, or its GCAP subsample (a SetRef); sized on the synthetic set, so the calibration compares the same."""
    n_real, n_syn = ctx.size(ctx.T), ctx.size("S")

    def make() -> SetRef:
        rows = gcap_real_rows(n_real, n_syn, random_state=ctx.random_state)
        return ctx.full(ctx.T) if rows is None else ctx.subset(ctx.T, rows, "gcap.T")

    return ctx.memo(("review_attack.gcap_real", ctx.T, n_syn, GCAP_MAX_PAIRS, ctx.random_state), make)


def _gcap_plan(ctx: Context, params: dict[str, Any]) -> list[Any]:
    cat, _ = _split_sensitive(ctx)
    sp = _hamming_keys(ctx)
    # the ties read S's tree
    return [ctx.request(sp, _gcap_real(ctx), ctx.S, 1), ctx.tree_request(sp, ctx.S)] if cat else []


def _gcap_ties(ctx: Context, cat: list[str]) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]]:
    space = _hamming_keys(ctx)
    real = _gcap_real(ctx)

    def build() -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]]:
        dmin = ctx.knn(space, real, ctx.S, 1).dist[:, 0]
        tree = ctx.tree(space, ctx.S)
        qnum, qcat = ctx.query_arrays(space, real)
        qlab = _sens_codes(ctx, ctx.T, cat).astype(np.float64)
        if real.rows is not None:
            qlab = qlab[real.rows]
        rlab = _sens_codes(ctx, ctx.S, cat).astype(np.float64)
        kinds = np.zeros(len(cat), dtype=np.int64)
        n_min, n_ok = nb.ties_at_min(tree, qnum, qcat, dmin, qlab, rlab, kinds, np.zeros(len(cat)),
                                     engine=ctx.settings.get("engine", "auto"))
        return dmin, n_min, n_ok

    return ctx.memo(("review_attack.gcap_ties", space, real, ctx.S, tuple(cat)), build)


def _gcap_compute(ctx: Context, params: dict[str, Any]) -> MetricResult:
    cat, num = _split_sensitive(ctx)
    if not cat:
        return not_computed("gcap", _numeric_sens_reason("GCAP", num))
    dmin, n_min, n_ok = _gcap_ties(ctx, cat)
    per_attr = gcap_scores(n_min, n_ok)
    scores = per_attr.mean(axis=1)
    value = float(scores.mean())
    gt, _, _ = _key_groups(ctx)
    details = {
        **_cap_details(ctx, cat, num, per_attr, gt),
        "mean_min_distance": float(dmin.mean()),
        "share_exact_key_match": float((dmin == 0).mean()),
        "mean_matches_per_real": float(n_min.mean()),
        "max_matches_per_real": int(n_min.max()),
        "n_real": int(n_min.shape[0]),
        "n_real_used": int(n_min.shape[0]),
        "n_real_total": ctx.size(ctx.T),
        "max_pairs": GCAP_MAX_PAIRS,
    }
    notes = _sample_note(int(n_min.shape[0]), ctx.size(ctx.T), ctx.random_state, GCAP_MAX_PAIRS,
                         "real-synthetic pairs")
    return MetricResult(name="gcap", value=value, interval=_interval(scores, None, ctx, params),
                        details=details, space=_hamming_keys(ctx).label, notes=notes)


class ZcapDetails(TypedDict):
    """The details of ``zcap``: the keys its compute function sets."""

    per_attribute: dict[str, float]
    sensitive_used: list[str]
    sensitive_skipped_numeric: list[str]
    key_fields: list[str]
    n_key_combinations_real: int
    share_real_with_match: float
    mean_matches_per_real: float
    n_real: int
    n_synthetic: int


class GcapDetails(TypedDict):
    """The details of ``gcap``: the keys its compute function sets."""

    per_attribute: dict[str, float]
    sensitive_used: list[str]
    sensitive_skipped_numeric: list[str]
    key_fields: list[str]
    n_key_combinations_real: int
    mean_min_distance: float
    share_exact_key_match: float
    mean_matches_per_real: float
    max_matches_per_real: int
    n_real: int
    n_real_used: int
    n_real_total: int
    max_pairs: int


register(MetricSpec(
    name="zcap",
    computation=Computation(
        # the engine passes its own Context (beyond the MetricContext protocol: the fitted codes)
        compute=cast("Callable[[MetricContext, dict[str, Any]], MetricResult]", _zcap_compute),
        plan=lambda ctx, p: [], needs=("sensitive_fields",), params=(N_BOOTSTRAP,), calibratable=True,
        checks=(continuous_keys(),), copy_sensitive=True, details=ZcapDetails),
    grading=Grading(
        direction="higher_is_riskier", value_range=(0.0, 1.0), level=review_level),
    presentation=Presentation(
        title="Zero CAP (exact key match)", section="3", group="attack",
        summary="How often a synthetic record with a real person's exact key values also reveals their sensitive "
                "value.",
        definition="For each real record, the share of synthetic records with identical key attributes that also "
                   "share its categorical sensitive value (0 when none matches). ZCAP is the mean over real records "
                   "and sensitive attributes (Trudslev et al., Eq. 3-4).",
        interval_kind="bootstrap 95% (percentile)", words=_WORDS_ATTACK),
))


register(MetricSpec(
    name="gcap",
    computation=Computation(
        # the engine passes its own Context (beyond the MetricContext protocol: the search tree, the query arrays)
        compute=cast("Callable[[MetricContext, dict[str, Any]], MetricResult]", _gcap_compute),
        plan=cast("Callable[[MetricContext, dict[str, Any]], list[Any]]", _gcap_plan), needs=("sensitive_fields",),
        default_space="hamming", params=(N_BOOTSTRAP,), calibratable=True, checks=(continuous_keys(),),
        details=GcapDetails),
    grading=Grading(
        direction="higher_is_riskier", value_range=(0.0, 1.0), level=review_level),
    presentation=Presentation(
        title="Generalised CAP (nearest keys)", section="3", group="attack",
        summary="How often the synthetic records closest to a real person's key values reveal their sensitive "
                "value.",
        definition="For each real record, the synthetic records at the minimal Hamming distance on the key "
                   "attributes are its matches, and its score is the share of them sharing its categorical "
                   "sensitive value. GCAP is the mean over real records and sensitive attributes "
                   "(Trudslev et al., Eq. 5-6).",
        interval_kind="bootstrap 95% (percentile)", words=_WORDS_ATTACK),
))
