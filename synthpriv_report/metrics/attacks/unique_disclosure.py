"""``unique_disclosure``: training records unique on the key fields whose sensitive value the synthetic data give
away, against the same rate for real records the generator never saw.

After G. M. Raab, B. Nowok, C. Dibben, "Practical privacy metrics for synthetic data" (arXiv 2406.16826, 2024) and
the ``disclosure()`` function of the synthpop R package, which call a real record *DiSCO* (disclosive in the
synthetic data, correct in the original) when its key combination ``q`` occurs in the synthetic data, every
synthetic record with ``q`` holds the same value of the sensitive field ``t``, and that value is the record's own
``t``; and a record unique on ``q`` in the original data whose ``q`` is unique in the synthetic data too a
*replicated unique* (repU). Definitions and choices: ``docs/metrics.md``, section ``unique_disclosure``.

**The value.** Among the training records unique on the key fields (no other training record has their key
values), the share that are DiSCO. A person alone in the training data with their key values is the one an
attacker who knows those values can single out, and a DiSCO record hands the attacker their true sensitive value.

**The holdout's rate, and why it is defined so.** The same share among the *holdout records whose key values no
training record has*: each of them would be unique on the key fields had it been in the training data, which is
exactly the condition a training unique meets (no *other* training record shares its key values). A training
unique and such a holdout record are then alike in everything but membership: had the synthetic records been
fresh real records, drawn without the training data, both rates would be the same in expectation (the only
difference, ``n - 1`` other training records against ``n``, is negligible). Taking instead the holdout records
unique *within the holdout* would compare uniques of sets of different sizes, and the smaller set's uniques are
commoner key combinations, more often present and less often unanimous in the synthetic data: a difference made by
the sizes, not by a leak. A release made of training records gives the holdout's rate 0 exactly (no synthetic
record can have key values no training record has), and every training unique it contains is DiSCO.

**The comparison.** The level is graded on the excess, the value minus the holdout's rate, never on the value
alone: the lower end of a one-sided interval of the excess at the verdict's per-check level (divided among the
sensitive fields when there are several), made by Newcombe's square-and-add of two exact Clopper-Pearson intervals
(the MOVER construction of Zou and Donner). Holdout records that share their key values are not independent (the
same synthetic records decide them), so that side is taken at its effective size (Kish's design effect over its
key combinations). The training uniques have distinct key values, so that side needs none.

**Columns.** Key and sensitive values are compared exactly, as ZCAP compares them: numbers by exact value, a
missing value equal to a missing value, categories by level. A numeric key field with many distinct values seldom
matches exactly, and a note says so (bin such a column before the evaluation). The details hold counts and shares
only, never a value of a real record.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ... import stats
from ...core.applicability import continuous_columns, continuous_keys
from ...core.formats import fmt_count, fmt_share
from ...core.formats import is_finite_number as finite
from ...core.registry import (
    Computation,
    Grading,
    LevelSpec,
    MetricSpec,
    NotRequired,
    Presentation,
    ResultJSON,
    TypedDict,
    Words,
    register,
    verdict_alpha,
)
from ...core.results import MetricResult, not_computed
from ._common import _key_groups, _keys
from .cap import key_matches, zcap_scores

NAME = "unique_disclosure"

#: The confidence of the intervals shown (the graded bound is one-sided at the verdict's per-check level).
CONFIDENCE = 0.95

#: The public source in the reader's words (the arXiv number, 2406.16826, is in the module docstring and the docs).
SOURCE = ('G. M. Raab, B. Nowok, C. Dibben, "Practical privacy metrics for synthetic data" (2024), and the '
          'disclosure function of the synthpop R package (DiSCO, repU)')


# ---------------------------------------------------------------------------------------------------------------
# per-record indicators (pure functions of id arrays)


def unique_within(ids: ArrayLike) -> NDArray[np.bool_]:
    """For each record: is it the only one of its set with its id (its key combination)?

    Parameters
    ----------
    ids : array-like of int, shape (n,)
        Non-negative ids of the records' key combinations (equal ids: equal key values).

    Returns
    -------
    ndarray of bool, shape (n,)

    Examples
    --------
    >>> unique_within([0, 1, 1, 2]).tolist()
    [True, False, False, True]
    """
    v = np.asarray(ids, dtype=np.int64)
    if v.size == 0:
        return np.zeros(0, dtype=bool)
    return np.asarray(np.bincount(v.astype(np.intp))[v] == 1)


def absent_from(ids_query: ArrayLike, ids_ref: ArrayLike) -> NDArray[np.bool_]:
    """For each query record: does no record of the reference set have its id? (Both in one id space.)

    Examples
    --------
    >>> absent_from([0, 3, 5], [3, 4]).tolist()
    [True, False, True]
    """
    q = np.asarray(ids_query, dtype=np.int64)
    r = np.asarray(ids_ref, dtype=np.int64)
    present = np.zeros(int(max(q.max(initial=-1), r.max(initial=-1))) + 1, dtype=bool)
    present[r] = True
    return np.asarray(~present[q])


def synthetic_matches(keys_target: ArrayLike, keys_syn: ArrayLike) -> NDArray[np.int64]:
    """For each target record: how many synthetic records have its key combination (one id space).

    Examples
    --------
    >>> synthetic_matches([0, 1, 2], [1, 1, 2]).tolist()
    [0, 2, 1]
    """
    return key_matches(keys_target, keys_syn)


def disclosed(keys_target: ArrayLike, sens_target: ArrayLike, keys_syn: ArrayLike,
              sens_syn: ArrayLike) -> NDArray[np.bool_]:
    """For each target record: is it DiSCO, disclosive in the synthetic data and correct in the original?

    A record is DiSCO when at least one synthetic record has its key combination, every such synthetic record has
    the same sensitive value, and that value is the record's own (Raab, Nowok and Dibben 2024).

    Parameters
    ----------
    keys_target, keys_syn : array-like of int, shapes (n,) and (m,)
        Ids of the key combinations of the target and synthetic records, in one id space.
    sens_target, sens_syn : array-like of int, shapes (n,) and (m,)
        Ids of the sensitive values, in one id space (a missing value is a value of its own).

    Returns
    -------
    ndarray of bool, shape (n,)

    Examples
    --------
    Key 0 has two synthetic records, both with value 7; key 1 has two with different values; key 2 has none:

    >>> disclosed([0, 0, 1, 2], [7, 8, 7, 7], [0, 0, 1, 1], [7, 7, 7, 8]).tolist()
    [True, False, False, False]
    """
    # every synthetic record with the key holds the target's value, and there is one: ZCAP exactly 1 (k / k)
    return np.asarray(zcap_scores(keys_target, keys_syn, sens_target, sens_syn) == 1.0)


# ---------------------------------------------------------------------------------------------------------------
# the interval of the excess


def clustered_design_effect(flags: ArrayLike, groups: ArrayLike) -> float:
    """Kish's design effect of the share of 0/1 ``flags`` whose records come in ``groups``: the cluster-robust
    variance ``sum over groups g of (k_g - n_g m)^2 / n^2`` over the binomial ``m (1 - m) / n``, at least 1
    (``k_g`` flags among the ``n_g`` records of group ``g``, ``m`` the share).

    The same number as :func:`synthpriv_report.stats.evidence.design_effect`, summed over the groups' ``(k_g, n_g)``
    pairs in sorted order, so that it does not depend on how the groups are numbered (the row order) to the last
    bit.

    Examples
    --------
    Two groups of two with flags [1, 1] and [0, 0]: ``(2 - 1)^2 + (0 - 1)^2 = 2`` over 16 against ``0.25 / 4``:

    >>> clustered_design_effect([1, 1, 0, 0], [5, 5, 2, 2])
    2.0
    >>> clustered_design_effect([1, 0, 0], [0, 0, 1])
    1.0
    """
    f = np.asarray(flags, dtype=np.int64)
    g = np.asarray(groups, dtype=np.int64)
    n = int(f.size)
    k = int(f.sum())
    if n == 0 or k in (0, n):
        return 1.0
    _, inverse = np.unique(g, return_inverse=True)
    inverse = inverse.ravel()
    k_g = np.bincount(inverse, weights=f).astype(np.int64)
    n_g = np.bincount(inverse).astype(np.int64)
    order = np.lexsort((k_g, n_g))
    m = k / n
    dev = k_g[order] - n_g[order] * m
    clustered = float(np.sum(dev * dev)) / (n * n)
    return max(1.0, clustered / (m * (1.0 - m) / n))


def exact_bounds(k: float, n: float, tail: float) -> tuple[float, float]:
    """Clopper-Pearson ends of a proportion ``k / n``, each a one-sided bound at level ``tail``; ``k`` and ``n``
    may be effective (fractional) numbers, the ends are then the same Beta quantiles.

    ``lower = Beta(tail; k, n - k + 1)`` (0 at ``k = 0``), ``upper = Beta(1 - tail; k + 1, n - k)`` (1 at
    ``k = n``): with whole numbers, :func:`synthpriv_report.stats.clopper_pearson` at confidence ``1 - 2 tail``.

    Examples
    --------
    >>> [round(v, 4) for v in exact_bounds(5, 10, 0.025)] == [round(v, 4) for v in stats.clopper_pearson(5, 10)]
    True
    >>> exact_bounds(0, 10, 0.025)[0], round(exact_bounds(0, 10, 0.025)[1], 6), round(1 - 0.025 ** 0.1, 6)
    (0.0, 0.308497, 0.308497)
    """
    from ...stats.intervals import beta_quantile

    k, n = float(k), float(n)
    if not n > 0:
        return (0.0, 1.0)
    p = k / n
    lo = 0.0 if k <= 0 else beta_quantile(tail, k, n - k + 1.0)
    hi = 1.0 if k >= n else beta_quantile(1.0 - tail, k + 1.0, n - k)
    return (min(lo, p), max(hi, p))


def excess_bounds(k1: float, n1: float, k0: float, n0: float, *, tail: float) -> tuple[float, float]:
    """Bounds of the difference ``k1 / n1 - k0 / n0`` of two independent proportions, each a one-sided bound at
    level ``tail``: Newcombe's square-and-add of the two exact intervals of :func:`exact_bounds` (the MOVER
    construction of Zou and Donner, 2008; Newcombe's method 10 with Clopper-Pearson ends instead of Wilson's).

    ``lower = d - sqrt((p1 - l1)^2 + (u0 - p0)^2)``, ``upper = d + sqrt((u1 - p1)^2 + (p0 - l0)^2)``, with
    ``d = p1 - p0`` and ``(l, u)`` the exact ends of each proportion.

    Examples
    --------
    Three in three against none in three is no evidence at the 2.5% level; 30 in 100 against none in 100 is:

    >>> excess_bounds(3, 3, 0, 3, tail=0.025)[0] < 0 < excess_bounds(30, 100, 0, 100, tail=0.025)[0]
    True
    >>> lo, hi = excess_bounds(5, 10, 5, 10, tail=0.025); round(lo + hi, 12)
    0.0
    """
    p1, p0 = float(k1) / float(n1), float(k0) / float(n0)
    l1, u1 = exact_bounds(k1, n1, tail)
    l0, u0 = exact_bounds(k0, n0, tail)
    d = p1 - p0
    return (d - math.sqrt((p1 - l1) ** 2 + (u0 - p0) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p0 - l0) ** 2))


# ---------------------------------------------------------------------------------------------------------------
# the counts of one sensitive field


def field_counts(*, keys_t: ArrayLike, keys_s_t: ArrayLike, sens_t: ArrayLike, sens_s_t: ArrayLike,
                 keys_h: ArrayLike, keys_s_h: ArrayLike, sens_h: ArrayLike, sens_s_h: ArrayLike,
                 keys_t_h: ArrayLike, keys_h_t: ArrayLike, tail: float) -> dict[str, Any]:
    """Every count of the check for one sensitive field, from id arrays.

    Parameters
    ----------
    keys_t, keys_s_t : array-like of int
        Key-combination ids of the training and synthetic records in one id space.
    sens_t, sens_s_t : array-like of int
        Sensitive-value ids of the training and synthetic records in one id space.
    keys_h, keys_s_h, sens_h, sens_s_h : array-like of int
        The same for the holdout and the synthetic records (an id space of their own).
    keys_t_h, keys_h_t : array-like of int
        Key-combination ids of the training and holdout records in one id space.
    tail : float
        One-sided level of the graded bound of the excess.

    Returns
    -------
    dict
        Counts, shares and bounds (JSON-safe numbers; ``None`` where a share has no record to count).

    Examples
    --------
    Training keys ``a a b c``, holdout keys ``c d``, synthetic keys ``b c c``: the training uniques are the ``b``
    and ``c`` records, the holdout record ``d`` is the only one whose key no training record has.

    >>> d = field_counts(keys_t=[0, 0, 1, 2], keys_s_t=[1, 2, 2], sens_t=[0, 0, 1, 0], sens_s_t=[1, 0, 0],
    ...                  keys_h=[0, 1], keys_s_h=[2, 0, 0], sens_h=[0, 0], sens_s_h=[0, 0, 0],
    ...                  keys_t_h=[0, 0, 1, 2], keys_h_t=[2, 3], tail=0.025)
    >>> d["n_training_unique"], d["n_disclosed"], d["n_holdout_unseen_keys"], d["n_holdout_disclosed"]
    (2, 2, 1, 0)
    """
    kt, kst = np.asarray(keys_t, dtype=np.int64), np.asarray(keys_s_t, dtype=np.int64)
    kh, ksh = np.asarray(keys_h, dtype=np.int64), np.asarray(keys_s_h, dtype=np.int64)
    unique = unique_within(kt)
    unseen = absent_from(keys_h_t, keys_t_h)
    disc_t = disclosed(kt, sens_t, kst, sens_s_t)
    disc_h = disclosed(kh, sens_h, ksh, sens_s_h)
    match_t = synthetic_matches(kt, kst)
    match_h = synthetic_matches(kh, ksh)
    n1, n0 = int(unique.sum()), int(unseen.sum())
    k1, k0 = int((disc_t & unique).sum()), int((disc_h & unseen).sum())
    rep_t, rep_h = int(((match_t == 1) & unique).sum()), int(((match_h == 1) & unseen).sum())
    n_t, n_h = int(kt.size), int(kh.size)
    out: dict[str, Any] = {
        "n_training": n_t, "n_training_unique": n1, "n_disclosed": k1,
        "share": k1 / n1 if n1 else None,
        "n_training_unique_in_synthetic": int(((match_t > 0) & unique).sum()),
        "n_replicated_uniques": rep_t,
        "rep_u": rep_t / n1 if n1 else None,
        "rep_u_of_training": rep_t / n_t if n_t else None,
        "disco_of_training": int(disc_t.sum()) / n_t if n_t else None,
        "n_holdout": n_h, "n_holdout_unseen_keys": n0, "n_holdout_disclosed": k0,
        "holdout_share": k0 / n0 if n0 else None,
        "n_holdout_replicated": rep_h,
        "holdout_rep_u": rep_h / n0 if n0 else None,
        "disco_of_holdout": int(disc_h.sum()) / n_h if n_h else None,
    }
    if not (n1 and n0):
        return out
    deff = clustered_design_effect(disc_h[unseen], np.asarray(keys_h_t, dtype=np.int64)[unseen])
    n0_eff = n0 / deff
    k0_eff = k0 / deff
    half = (1.0 - CONFIDENCE) / 2.0
    out.update({
        "interval": list(stats.clopper_pearson(k1, n1, confidence=CONFIDENCE)),
        "holdout_interval": list(stats.clopper_pearson(k0, n0, confidence=CONFIDENCE)),
        "holdout_design_effect": deff,
        "excess": k1 / n1 - k0 / n0,
        "excess_interval": list(excess_bounds(k1, n1, k0_eff, n0_eff, tail=half)),
        "excess_lower_bound": excess_bounds(k1, n1, k0_eff, n0_eff, tail=tail)[0],
        "excess_upper_bound": excess_bounds(k1, n1, k0_eff, n0_eff, tail=tail)[1],
    })
    return out


# ---------------------------------------------------------------------------------------------------------------
# the metric


def _ids(ctx: Any, columns: tuple[str, ...], a: str, b: str) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Shared ids of the records of ``a`` and ``b`` by their exact values in ``columns`` (memoised)."""

    def make() -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        ia, ib, _ = ctx.key_groups(columns, a, b)
        return ia, ib

    ids: tuple[NDArray[np.int64], NDArray[np.int64]] = ctx.memo((NAME + ".ids", columns, a, b), make)
    return ids


def _compute(ctx: Any, params: dict[str, Any]) -> MetricResult:
    if ctx.H is None:
        return not_computed(NAME, "needs a holdout set: its records are the baseline")
    keys = _keys(ctx)
    fields = list(ctx.settings["sensitive_fields"])
    kt, kst, _ = _key_groups(ctx)  # shared with ZCAP
    kh, ksh = _ids(ctx, keys, ctx.H, ctx.S)
    kth, kht = _ids(ctx, keys, ctx.T, ctx.H)
    tail = verdict_alpha() / len(fields)
    per: dict[str, dict[str, Any]] = {}
    for f in fields:
        st, sst = _ids(ctx, (f,), ctx.T, ctx.S)
        sh, ssh = _ids(ctx, (f,), ctx.H, ctx.S)
        per[f] = field_counts(keys_t=kt, keys_s_t=kst, sens_t=st, sens_s_t=sst, keys_h=kh, keys_s_h=ksh,
                              sens_h=sh, sens_s_h=ssh, keys_t_h=kth, keys_h_t=kht, tail=tail)
    head = next(iter(per.values()))
    if not head["n_training_unique"]:
        return not_computed(NAME, f"no training record is unique on the key fields ({', '.join(keys)}): every "
                                  "combination of their values is shared by several training records, so none "
                                  "points at one person")
    if not head["n_holdout_unseen_keys"]:
        return not_computed(NAME, "every holdout record has key values that some training record has, so there "
                                  "is no holdout record to compare the training uniques with (the baseline needs "
                                  "holdout records whose key values are not in the training data)")
    worst = max(per, key=lambda f: (per[f]["excess_lower_bound"], per[f]["share"]))
    d = per[worst]
    details = {
        **d,
        "sensitive_field": worst,
        "key_fields": list(keys),
        "check_alpha": tail,
        "confidence_level": CONFIDENCE,
    }
    if len(per) > 1:
        details["per_field"] = {f: {k: c[k] for k in ("n_disclosed", "share", "n_holdout_disclosed", "holdout_share",
                                                      "excess", "excess_lower_bound", "excess_upper_bound",
                                                      "excess_interval")}
                                for f, c in per.items()}
    notes: tuple[str, ...] = ()
    if len(per) > 1:
        notes = (f"{len(per)} sensitive fields: the one shown, {worst!r}, has the largest excess over the holdout "
                 f"(the graded bound of each is at a level shared among the fields)",)
    return MetricResult(name=NAME, value=float(d["share"]), interval=tuple(d["interval"]), details=details,
                        notes=notes)


def continuous_sensitive(ctx: Any, spec: MetricSpec, result: MetricResult) -> str | None:
    """The note on a numeric sensitive field with many distinct values: a value is disclosed only when every
    synthetic record with the key values holds exactly the person's number."""
    cont = continuous_columns(ctx, list(ctx.settings["sensitive_fields"]))
    if not cont:
        return None
    return (f"continuous sensitive field(s) {', '.join(cont)}: a value counts as disclosed only when every "
            "synthetic record with the person's key values holds exactly their number, so a value reproduced "
            "with a small change is not counted; consider binning such a field")


def _upper(r: MetricResult) -> float | None:
    """The risky end: the largest upper confidence bound of the excess over the sensitive fields."""
    per = r.details.get("per_field")
    rows = list(per.values()) if isinstance(per, Mapping) and per else [r.details]
    bounds = [row.get("excess_upper_bound") if isinstance(row, Mapping) else None for row in rows]
    return None if any(not finite(b) for b in bounds) else max(b for b in bounds if b is not None)


LEVEL = LevelSpec(
    medium=0.0, high=0.05, difference=True, direction="higher_is_riskier",
    of=lambda r: r.details.get("excess_lower_bound"),
    risky_end=_upper, negligible=0.05,
    risky_scale="the upper confidence bound of the excess over the holdout's rate",
    scale="the lower confidence bound of the share of training uniques disclosed minus the holdout's rate (holdout "
          "records whose key values no training record has)",
    source="package default; the measures are those of " + SOURCE + ", the comparison Newcombe's interval for a "
           "difference of two shares with Clopper-Pearson ends",
    description="high when the synthetic data disclose the sensitive value of more training uniques than of "
                "comparable real records the generator never saw by more than {high}, medium by more than "
                "{medium}, beyond chance: the lower end of the confidence interval of the difference (both sides' "
                "uncertainty counted, at the level that keeps the verdict's false alarms near 5%, shared among the "
                "sensitive fields) is above the threshold")


def unique_disclosure_finding(m: ResultJSON) -> str:
    """The cover's sentence: the counts of both sides.

    >>> m = {"value": 362 / 563, "details": {"n_training_unique": 563, "n_disclosed": 362,
    ...      "sensitive_field": "income", "n_holdout_unseen_keys": 250, "n_holdout_disclosed": 0,
    ...      "holdout_share": 0.0}}
    >>> print(unique_disclosure_finding(m))  # doctest: +NORMALIZE_WHITESPACE
    Of the 563 training records unique on the key fields, 362 (64.3%) have their 'income' given away: every
    synthetic record with their key values holds their true value. Of the 250 holdout records whose key values
    no training record has, 0 (0%) do.
    """
    d = m.get("details") or {}
    head = (f"Of the {fmt_count(d.get('n_training_unique'))} training records unique on the key fields, "
            f"{fmt_count(d.get('n_disclosed'))} ({fmt_share(m.get('value'))}) have their "
            f"{d.get('sensitive_field')!r} given away: every synthetic record with their key values holds their "
            "true value.")
    if not finite(d.get("holdout_share")):
        return head
    return (f"{head} Of the {fmt_count(d.get('n_holdout_unseen_keys'))} holdout records whose key values no "
            f"training record has, {fmt_count(d.get('n_holdout_disclosed'))} ({fmt_share(d.get('holdout_share'))})"
            " do.")


def unique_disclosure_residual(m: ResultJSON) -> str | None:
    """The residual risk: the upper end of the excess's 95% interval, as a share of the people unique on the key
    fields.

    >>> m = {"details": {"excess": 0.01, "excess_interval": [-0.02, 0.04], "key_fields": ["age", "sex"],
    ...                  "sensitive_field": "income"}}
    >>> print(unique_disclosure_residual(m))  # doctest: +NORMALIZE_WHITESPACE
    An attacker who knows age, sex learns the true income of at most 4% of the people unique on those fields in
    the training data (95% upper bound; estimate 1%) more often than of people not in the training data.
    """
    d = m.get("details") or {}
    iv = d.get("excess_interval")
    if not iv or not finite(iv[1]) or not finite(d.get("excess")):
        return None
    return (f"An attacker who knows {', '.join(d.get('key_fields') or []) or 'the key fields'} learns the true "
            f"{d.get('sensitive_field')} of at most {fmt_share(max(0.0, float(iv[1])))} of the people unique on "
            f"those fields in the training data (95% upper bound; estimate {fmt_share(max(0.0, float(d['excess'])))})"
            " more often than of people not in the training data.")


class UniqueDisclosureDetails(TypedDict):
    """The details of ``unique_disclosure``: the keys its compute function sets."""

    n_training: int
    n_training_unique: int
    n_disclosed: int
    share: float
    n_training_unique_in_synthetic: int
    n_replicated_uniques: int
    rep_u: float
    rep_u_of_training: float
    disco_of_training: float
    n_holdout: int
    n_holdout_unseen_keys: int
    n_holdout_disclosed: int
    holdout_share: float
    n_holdout_replicated: int
    holdout_rep_u: float
    disco_of_holdout: float
    interval: list[float]
    holdout_interval: list[float]
    holdout_design_effect: float
    excess: float
    excess_interval: list[float]
    excess_lower_bound: float
    excess_upper_bound: float
    sensitive_field: str
    key_fields: list[str]
    check_alpha: float
    confidence_level: float
    per_field: NotRequired[dict[str, dict[str, Any]]]


register(MetricSpec(
    name=NAME,
    computation=Computation(
        compute=_compute, needs=("holdout", "sensitive_fields"), calibratable=False,
        checks=(continuous_keys(), continuous_sensitive), copy_sensitive=True, details=UniqueDisclosureDetails),
    grading=Grading(
        direction="higher_is_riskier", value_range=(0.0, 1.0), value_kind="share", level=LEVEL, drives_verdict=False),
    presentation=Presentation(
        title="Unique-record disclosure (DiSCO of training uniques)", section="package", group="attack",
        summary="How many people unique on the key fields in the training data have their sensitive value given "
                "away by the synthetic data, against the same rate for real people the generator never saw.",
        definition="A training record unique on the key fields is disclosed (DiSCO) when synthetic records with its "
                   "key values exist and all hold its true sensitive value. The value is the share of training "
                   "uniques disclosed; the baseline is the same share among holdout records whose key values no "
                   "training record has, and the level grades the excess (Raab, Nowok and Dibben 2024).",
        words=Words(measures="whether the synthetic data give away the sensitive value of people who are alone in the "
                             "training data with their key values: every synthetic record with those values holds the "
                             "person's true value",
                    high_means="a value above the holdout's rate is risky: rare real people were reproduced with "
                               "their sensitive value",
                    ideal="the holdout's rate (real people the generator never saw, who would have been unique)"),
        interval_kind="Clopper-Pearson 95%", finding=unique_disclosure_finding,
        residual_risk=unique_disclosure_residual,
        limitation="it counts exact matches only: a unique person's key values reproduced with a small change (an age "
                   "off by one), or their true value mixed with other values among the synthetic records with their "
                   "key values, is not counted; and only people unique in the training data are counted, not those "
                   "who share their key values with a few others"),
))
