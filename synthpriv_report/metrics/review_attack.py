"""Matching and attack metrics of the review paper (spec section 3): ZCAP, GCAP, AIR, CRP and HitR.

Every metric compares real training records T (the paper's Y) with synthetic records S (the paper's Z) and
returns a value in [0, 1] where higher means more risk. None of them is 0 at an ideal generator; the
evaluation shows each beside its calibration (the holdout H in the role of S, spec section 4).

Exact-match metrics (ZCAP, CRP, HitR) group records on integer-encoded keys (``numpy.unique``, sorting,
``searchsorted``); no pairwise loop over T x S and no n x m matrix is ever built. GCAP and AIR use the engine's
exact neighbour search (``ctx.knn`` for the minimal distance) and :func:`neighbors.ties_at_min` for the
synthetic records tied at that distance.

GCAP's Hamming space over many key attributes holds large groups of synthetic records at the same minimal
distance, which no search can skip: its cost grows with |T| x |S| (at 300,000 records per set it took 94 s of
the 244 s of all 24 metrics, and about eleven times as long at a million). Where the spec is silent on size, and
like D-MLP and MIR (spec section 3, last bullet), it then compares a random subsample of T drawn from
``rng = default_rng(random_state)`` (:func:`synthpriv_report.stats.subsample`): only above
:data:`GCAP_MAX_PAIRS` real-synthetic pairs (20,000 real records against a million synthetic ones), so data of
the size of full Adult (32,561 x 32,561) are computed on every record. S is kept whole, so every synthetic record
at the minimal distance still counts, and the calibration compares the same real records. The value is then the
mean over the sampled real records, an unbiased estimate of the mean over T whose bootstrap interval covers the
sampling; the sizes used are in the details and a note in the report says so.

HitR's tolerance join checks, for each real record, the synthetic records of its categorical signature within
the window of one numeric column: their number (known before the scan) grows with |T| x |S| too (142 million at
a million Adult-like records per set, 6 s). Above :data:`HITR_MAX_CANDIDATES` it checks a random subsample of T
drawn the same way, sized to that budget, against every synthetic record; the Wilson interval covers the
sampling, the pair count in the details is the sampled records', and a note says so.

Levels: each value is graded on the ``review_absolute`` thresholds of :mod:`synthpriv_report.params` (medium
from 0.5, high from 0.8, inclusive). The calibration value is attached by the evaluation after ``compute`` and
shown beside the value; the level does not subtract it.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import neighbors as nb
from .. import stats
from ..applicability import continuous_keys
from ..joins import _hits_from_index, _HitrIndex, group_ids, hitting_candidates, hitting_matches
from ..params import N_BOOTSTRAP, review_level
from ..registry import MetricSpec, Param, Words, register
from ..results import MetricResult, not_computed
from ..spaces import SpaceSpec
from ..stats import bootstrap_ratio

if TYPE_CHECKING:  # pragma: no cover
    from ..engine import Context

__all__ = [
    "air_f1",
    "bootstrap_ratio",
    "correct_exists",
    "crp_value",
    "entropy_weights",
    "gcap_scores",
    "group_ids",
    "hitting_matches",
    "zcap_scores",
]

REL_TOL = stats.REL_TOL
ABS_TOL = stats.ABS_TOL


# ---------------------------------------------------------------------------------------------------------------
# pure array functions


def zcap_scores(keys_t: ArrayLike, keys_s: ArrayLike, sens_t: ArrayLike, sens_s: ArrayLike) -> NDArray[np.float64]:
    """Per-real-record ZCAP of one categorical sensitive attribute (spec section 3, paper Eq. 3).

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
    n_groups = int(max(kt.max(initial=-1), ks.max(initial=-1))) + 1
    matches = np.bincount(ks, minlength=n_groups)[kt]
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
    """Per-real-record GCAP (spec section 3, paper Eq. 5): correct matches over all matches at the minimal
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


def air_f1(n_min: ArrayLike, n_correct: ArrayLike) -> NDArray[np.float64]:
    """Per-real-record F1 of AIR (spec section 3): ``2 TP / (2 TP + FP)`` with ``FP = |N(y)| - TP``, and 0 when
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


def entropy_weights(record_ids: ArrayLike) -> NDArray[np.float64]:
    """AIR weights ``w(y) = -P(y) ln P(y)`` with ``P(y)`` = share of T identical to y (paper Eq. 10-11; the
    constant ``H(T)`` cancels in the normalised sum).

    Parameters
    ----------
    record_ids : array-like of int, shape (n,)
        Ids of the records of T; equal ids for identical records.

    Returns
    -------
    ndarray, shape (n,)

    Examples
    --------
    >>> entropy_weights([0, 0, 1, 2]).round(4).tolist()
    [0.3466, 0.3466, 0.3466, 0.3466]
    >>> entropy_weights([3, 3]).tolist()
    [0.0, 0.0]
    """
    ids = np.asarray(record_ids, dtype=np.int64)
    n = ids.shape[0]
    if n == 0:
        return np.zeros(0)
    _, inv, counts = np.unique(ids, return_inverse=True, return_counts=True)
    p = counts[inv.reshape(-1)] / n
    return np.abs(p * np.log(p))  # -P ln P >= 0 (abs avoids -0.0)


def correct_exists(y: ArrayLike, z: ArrayLike, *, kind: int, tolerance: float = 0.1) -> NDArray[np.bool_]:
    """For each real sensitive value, does S hold any value that would be a correct guess (AIR, spec 3)?

    Categorical (``kind=0``): an equal code exists. Numeric (``kind=1``): some z with ``|y - z| <= tol |z|``
    (with the tie tolerance of spec section 0); both missing is correct, one missing wrong. The numeric case
    is a union-of-intervals lookup: intervals ``[z - r, z + r]`` sorted by their lower end, a running maximum
    of their upper ends and one ``searchsorted`` per query (O((n + m) log m)).

    Examples
    --------
    >>> correct_exists([10.0, 15.0, np.nan], [10.5, 20.0], kind=1).tolist()
    [True, False, False]
    >>> correct_exists([1, 2], [2, 2], kind=0).tolist()
    [False, True]
    """
    yv = np.asarray(y, dtype=np.float64)
    zv = np.asarray(z, dtype=np.float64)
    if kind == 0:
        return np.isin(yv, zv)
    out = np.zeros(yv.shape[0], dtype=bool)
    y_nan = np.isnan(yv)
    z_nan = np.isnan(zv)
    out[y_nan] = bool(z_nan.any())
    zz = zv[~z_nan]
    if zz.size == 0:
        return out
    # |y - z| <= r + REL_TOL * max(|y - z|, r) + ABS_TOL  <=>  |y - z| <= (r + ABS_TOL) / (1 - REL_TOL)
    r = (tolerance * np.abs(zz) + ABS_TOL) / (1.0 - REL_TOL)
    lo, hi = zz - r, zz + r
    order = np.argsort(lo, kind="stable")
    lo_s = lo[order]
    run_hi = np.maximum.accumulate(hi[order])
    yy = yv[~y_nan]
    k = np.searchsorted(lo_s, yy, side="right") - 1
    ok = k >= 0
    ok[ok] = run_hi[k[ok]] >= yy[ok]
    out[~y_nan] = ok
    return out


def crp_value(n_copies: int, n_real: int) -> float:
    """CRP (spec section 3, paper Eq. 12 without the 1e-8 term): synthetic records identical to some real
    record, counted with multiplicity over S, divided by |T| and clipped to [0, 1]. Higher is riskier.

    >>> crp_value(3, 4), crp_value(9, 4)
    (0.75, 1.0)
    """
    return float(min(1.0, max(0.0, n_copies / n_real)))


# ---------------------------------------------------------------------------------------------------------------
# adapters


def _keys(ctx: Context) -> tuple[str, ...]:
    return tuple(ctx.settings["key_fields"])


def _split_sensitive(ctx: Context) -> tuple[list[str], list[str]]:
    kinds = ctx.data.kinds
    sens = list(ctx.settings["sensitive_fields"])
    return ([a for a in sens if kinds[a] == "categorical"], [a for a in sens if kinds[a] == "numeric"])


def _sens_codes(ctx: Context, set_name: str, attrs: list[str]) -> NDArray[np.int64]:
    cols = [ctx.data.categorical_columns.index(a) for a in attrs]
    return ctx.fitted.codes[set_name][:, cols]


def _sens_values(ctx: Context, set_name: str, attrs: list[str]) -> NDArray[np.float64]:
    cols = [ctx.data.numeric_columns.index(a) for a in attrs]
    return ctx.data.numeric[set_name][:, cols]


def _hamming_keys(ctx: Context) -> SpaceSpec:
    return SpaceSpec("hamming", columns=_keys(ctx))


def _euclid_keys(ctx: Context) -> SpaceSpec:
    return SpaceSpec("euclidean", columns=_keys(ctx))


def _key_groups(ctx: Context) -> tuple[NDArray[np.int64], NDArray[np.int64], int]:
    """Key-combination ids of T and the synthetic-role set (exact values, missing equals missing)."""
    space = _hamming_keys(ctx)

    def build():
        enc = ctx.encoding(space)
        return group_ids(enc.cat[ctx.T], enc.cat[ctx.S])

    return ctx.memo(("review_attack.key_groups", space, ctx.T, ctx.S), build)


def _interval(num: NDArray[np.float64], den: NDArray[np.float64] | None, ctx: Context,
              params: dict[str, Any]) -> tuple[float, float] | None:
    """Bootstrap interval of a (weighted) mean of per-record scores; the calibration context only needs the
    value, so it skips the resampling."""
    if ctx.is_calibration:
        return None
    d = np.ones_like(num) if den is None else den
    return bootstrap_ratio(num, d, n_resamples=int(params["n_bootstrap"]), random_state=ctx.random_state)


def _numeric_sens_reason(metric: str, num: list[str]) -> str:
    return (f"every sensitive attribute is numeric ({', '.join(num)}); {metric} is defined for categorical "
            "sensitive attributes only")


# ZCAP ----------------------------------------------------------------------------------------------------------


def _zcap_compute(ctx: Context, params: dict[str, Any]) -> MetricResult:
    cat, num = _split_sensitive(ctx)
    if not cat:
        return not_computed("zcap", _numeric_sens_reason("ZCAP", num))
    gt, gs, _ = _key_groups(ctx)
    ct, cs = _sens_codes(ctx, ctx.T, cat), _sens_codes(ctx, ctx.S, cat)
    per_attr = np.column_stack([zcap_scores(gt, gs, ct[:, j], cs[:, j]) for j in range(len(cat))])
    scores = per_attr.mean(axis=1)
    value = float(scores.mean())
    matches = np.bincount(gs, minlength=int(max(gt.max(), gs.max())) + 1)[gt]
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


# GCAP ----------------------------------------------------------------------------------------------------------


#: Real-synthetic pairs above which GCAP compares a random sample of the real records (see the module docstring).
GCAP_MAX_PAIRS = 2 * 10**10


def _budget_rows(n_real: int, cost: int, budget: int, random_state: int | None) -> NDArray[np.int64] | None:
    """The real records a join whose work ``cost`` grows with |T| x |S| compares: all (None) while ``cost`` is at
    most ``budget``, else ``n_real * budget // cost`` positions (at least one) drawn from
    ``default_rng(random_state)`` (sorted; spec section 0's subsample), so that about ``budget`` work remains."""
    if cost <= budget:
        return None
    return stats.subsample(n_real, max(1, n_real * budget // cost), np.random.default_rng(random_state))


def _sample_note(n_used: int, n_total: int, random_state: int | None, budget: int, what: str,
                 also: str = "") -> tuple[str, ...]:
    """The report's note on a metric computed on a sample of the real records (none when all were used)."""
    if n_used == n_total:
        return ()
    return (f"computed on a random sample of {n_used:,} of the {n_total:,} real records (drawn with "
            f"random_state={random_state}), each compared with every synthetic record: the work grows with the "
            f"product of the two sizes, and above {budget:,} {what} the real records are sampled; the interval "
            "covers the sampling" + (f"; {also}" if also else ""),)


def gcap_real_rows(n_real: int, n_syn: int, *, random_state: int | None,
                   max_pairs: int | None = None) -> NDArray[np.int64] | None:
    """The real records GCAP compares: all of them (None) while ``n_real * n_syn`` is at most ``max_pairs``
    (default :data:`GCAP_MAX_PAIRS`), else a random subsample of ``max_pairs // n_syn`` positions drawn from
    ``default_rng(random_state)`` (sorted; spec section 0's subsample).

    >>> gcap_real_rows(5, 4, random_state=0, max_pairs=20) is None
    True
    >>> rows = gcap_real_rows(5, 4, random_state=0, max_pairs=12)
    >>> rows.tolist() == sorted(np.random.default_rng(0).choice(5, 3, replace=False))
    True
    """
    budget = GCAP_MAX_PAIRS if max_pairs is None else int(max_pairs)
    return _budget_rows(n_real, n_real * n_syn, budget, random_state)


def _gcap_real(ctx: Context):
    """T, or its GCAP subsample (a SetRef); sized on the synthetic set, so the calibration compares the same."""
    n_real, n_syn = ctx.size(ctx.T), ctx.size("S")

    def make():
        rows = gcap_real_rows(n_real, n_syn, random_state=ctx.random_state)
        return ctx.full(ctx.T) if rows is None else ctx.subset(ctx.T, rows, "gcap.T")

    return ctx.memo(("review_attack.gcap_real", ctx.T, n_syn, GCAP_MAX_PAIRS, ctx.random_state), make)


def _gcap_plan(ctx: Context, params: dict[str, Any]) -> list:
    cat, _ = _split_sensitive(ctx)
    sp = _hamming_keys(ctx)
    return [ctx.request(sp, _gcap_real(ctx), ctx.S, 1), ctx.tree_request(sp, ctx.S)] if cat else []  # ties read S's tree


def _gcap_ties(ctx: Context, cat: list[str]) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]]:
    space = _hamming_keys(ctx)
    real = _gcap_real(ctx)

    def build():
        dmin = ctx.knn(space, real, ctx.S, 1).dist[:, 0]
        tree = ctx.tree(space, ctx.S)
        qnum, qcat = ctx.query_arrays(space, real)
        qlab = _sens_codes(ctx, ctx.T, cat).astype(np.float64)
        if real.rows is not None:
            qlab = qlab[real.rows]
        rlab = _sens_codes(ctx, ctx.S, cat).astype(np.float64)
        kinds = np.zeros(len(cat), dtype=np.int64)
        n_min, n_ok = nb.ties_at_min(tree, qnum, qcat, dmin, qlab, rlab, kinds, np.zeros(len(cat)))
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


# AIR -----------------------------------------------------------------------------------------------------------


def _air_plan(ctx: Context, params: dict[str, Any]) -> list:
    sp = _euclid_keys(ctx)
    return [ctx.request(sp, ctx.T, ctx.S, 1), ctx.tree_request(sp, ctx.S)]  # the ties at the minimum read S's tree


def _air_ties(ctx: Context, attrs: list[str], kind: int, tol: float):
    """(|N(y)|, TP per attribute) for the categorical (kind 0) or numeric (kind 1, tolerance ``tol``) a_S."""
    space = _euclid_keys(ctx)

    def build():
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
        return nb.ties_at_min(tree, qnum, qcat, dmin, qlab, rlab, kinds, np.full(len(attrs), tol))

    key_tol = float(tol) if kind == 1 else None
    return ctx.memo(("review_attack.air_ties", space, ctx.T, ctx.S, tuple(attrs), kind, key_tol), build)


def _air_compute(ctx: Context, params: dict[str, Any]) -> MetricResult:
    cat, num = _split_sensitive(ctx)
    tol = float(params["air_tolerance"])
    w = ctx.memo(("review_attack.entropy_weights", ctx.T), lambda: entropy_weights(ctx.record_ids(ctx.T)))
    if not float(w.sum()) > 0:
        return not_computed("air", "every real record is identical, so every entropy weight -P ln P is 0 and "
                                   "AIR's weighted mean is undefined")
    attrs, tps, n_min = [], [], None
    exists = []
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


# CRP -----------------------------------------------------------------------------------------------------------


def _crp_compute(ctx: Context, params: dict[str, Any]) -> MetricResult:
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


# HitR ----------------------------------------------------------------------------------------------------------


def _hitr_index(ctx: Context, syn: str | None = None) -> _HitrIndex:
    """The join index of T against the synthetic set (``syn``: default the context's, H in the calibration)."""
    syn = ctx.S if syn is None else syn

    def build():
        d = ctx.data
        return _HitrIndex(ctx.fitted.codes[ctx.T], d.numeric[ctx.T], ctx.fitted.codes[syn], d.numeric[syn])

    return ctx.memo(("review_attack.hitr_index", ctx.T, syn), build)


#: Candidate (real, synthetic) pairs above which HitR checks a random sample of the real records (see
#: :func:`_hitr_rows`); Adult-like data at a million records per set stay below it.
HITR_MAX_CANDIDATES = 5 * 10**8


def _hitr_rows(ctx: Context, h: NDArray[np.float64]) -> NDArray[np.int64] | None:
    """The real records HitR checks: all (None) while the join against the synthetic set has at most
    :data:`HITR_MAX_CANDIDATES` candidate pairs, else a random subsample of T drawn from
    ``default_rng(random_state)``, sized so that about that many remain. The candidates grow with |T| x |S|
    (each real record's window holds a share of S); the calibration checks the same records."""
    def build():
        cands = hitting_candidates(_hitr_index(ctx, "S"), h)
        return _budget_rows(ctx.size(ctx.T), cands, HITR_MAX_CANDIDATES, ctx.random_state)

    return ctx.memo(("review_attack.hitr_rows", ctx.T, h.tobytes(), HITR_MAX_CANDIDATES, ctx.random_state), build)


def _hitr_ranges(ctx: Context) -> NDArray[np.float64]:
    """Numeric ranges fitted on T alone (spec section 0); an all-missing or constant column has range 0."""
    def build():
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
    details = {
        "n_real_hit": int(hit.sum()),
        "n_pairs": n_pairs,
        "hitr_divisor": divisor,
        "tolerances": {c: float(v) for c, v in zip(ctx.data.numeric_columns, h)},
        "n_categorical_signatures_real": int(np.unique(index.g_t).shape[0]),
        "n_real": n_t,
        "n_real_total": ctx.size(ctx.T),
        "n_synthetic": int(index.g_s.shape[0]),
    }
    notes = _sample_note(n_t, ctx.size(ctx.T), ctx.random_state, HITR_MAX_CANDIDATES, "candidate pairs",
                         "the pair count is that of the sampled records")
    return MetricResult(name="hitting_rate", value=value, interval=stats.wilson(value, n_t),
                        details=details, notes=notes)


# ---------------------------------------------------------------------------------------------------------------
# registration

HITR_DIVISOR = Param("hitr_divisor", 30.0, low=0.0, low_open=True, slider=(5.0, 100.0, 1.0),
                     label="HitR tolerance divisor",
                     doc="A numeric value matches when it is within the real column's range divided by this.")
AIR_TOLERANCE = Param("air_tolerance", 0.1, low=0.0, slider=(0.0, 0.5, 0.01), label="AIR numeric tolerance",
                      doc="A numeric sensitive value is guessed right when within this share of the true value.")

_WORDS_ATTACK = Words(measures="how much an attacker who knows some of a person's values learns from the synthetic "
                               "data, as defined by Trudslev et al.",
                      high_means="a high value is risky (1 = the attack always succeeds)",
                      ideal="the value the holdout reaches when it stands in for the synthetic data")
_COMMON = {"level": review_level, "words": _WORDS_ATTACK}

register(MetricSpec(
    name="zcap", title="Zero CAP (exact key match)", section="3", group="attack",
    direction="higher_is_riskier", value_range=(0.0, 1.0), compute=_zcap_compute, plan=lambda ctx, p: [],
    needs=("sensitive_fields",), params=(N_BOOTSTRAP,), calibratable=True, copy_sensitive=True,
    checks=(continuous_keys(),),
    interval_kind="bootstrap 95% (percentile)", **_COMMON,
    summary="How often a synthetic record with a real person's exact key values also reveals their sensitive "
            "value.",
    definition="For each real record, the share of synthetic records with identical key attributes that also "
               "share its categorical sensitive value (0 when none matches). ZCAP is the mean over real records "
               "and sensitive attributes (Trudslev et al., Eq. 3-4).",
))

register(MetricSpec(
    name="gcap", title="Generalised CAP (nearest keys)", section="3", group="attack",
    direction="higher_is_riskier", value_range=(0.0, 1.0), compute=_gcap_compute, plan=_gcap_plan,
    needs=("sensitive_fields",), default_space="hamming", params=(N_BOOTSTRAP,), calibratable=True,
    checks=(continuous_keys(),), interval_kind="bootstrap 95% (percentile)", **_COMMON,
    summary="How often the synthetic records closest to a real person's key values reveal their sensitive "
            "value.",
    definition="For each real record, the synthetic records at the minimal Hamming distance on the key "
               "attributes are its matches, and its score is the share of them sharing its categorical "
               "sensitive value. GCAP is the mean over real records and sensitive attributes "
               "(Trudslev et al., Eq. 5-6).",
))

register(MetricSpec(
    name="air", title="Attribute inference risk", section="3", group="attack",
    direction="higher_is_riskier", value_range=(0.0, 1.0), compute=_air_compute, plan=_air_plan,
    needs=("sensitive_fields",), default_space="euclidean", params=(AIR_TOLERANCE, N_BOOTSTRAP), calibratable=True,
    interval_kind="bootstrap 95% (percentile)", **_COMMON,
    summary="How well an attacker who knows a person's key values guesses their sensitive values from the "
            "nearest synthetic records.",
    definition="For each real record, the synthetic records at the minimal euclidean distance on the key "
               "attributes are guesses, correct when the sensitive value is equal (categorical) or within the "
               "relative tolerance (numeric), scored by F1 = 2TP/(2TP + FP). AIR is the mean of these F1 "
               "scores weighted by -P ln P of each record's frequency in the real data, averaged over sensitive "
               "attributes (Trudslev et al., Eq. 8-11).",
))

register(MetricSpec(
    name="crp", title="Common rows proportion", section="3", group="attack",
    direction="higher_is_riskier", value_range=(0.0, 1.0), compute=_crp_compute, plan=lambda ctx, p: [],
    calibratable=True, copy_sensitive=True, checks=(continuous_keys(all_columns=True),), interval_kind="Wilson 95%",
    **_COMMON,
    summary="How many synthetic records are exact copies of real records, relative to the real data's size.",
    definition="The number of synthetic records identical to some real record, counted with multiplicity, "
               "divided by the number of real records and clipped to [0, 1]. Identical means every analysed "
               "column equal (Trudslev et al., Eq. 12).",
))

register(MetricSpec(
    name="hitting_rate", title="Hitting rate", section="3", group="attack",
    direction="higher_is_riskier", value_range=(0.0, 1.0), compute=_hitr_compute, plan=lambda ctx, p: [],
    params=(HITR_DIVISOR,), calibratable=True, copy_sensitive=True,
    checks=(continuous_keys(all_columns=True, match="tolerance match"),), interval_kind="Wilson 95%", **_COMMON,
    summary="The share of real records that have a near-identical synthetic record.",
    definition="A real record is hit when some synthetic record has every categorical value equal and every "
               "numeric value within the real range divided by the divisor (30 by default). The hitting rate "
               "is the share of real records hit (Trudslev et al., Eq. 32-33, counting real records).",
))
