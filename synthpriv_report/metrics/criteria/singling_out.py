"""``singling_out_risk``: can a person be singled out with what the synthetic data reveal?

The multivariate attack of Giomi et al. (PoPETs 2023) for the singling-out criterion of the Article 29 Working
Party's Opinion 05/2014. The attacker writes predicates on ``singling_out_columns`` columns from synthetic
records, and keeps those that match exactly one synthetic record: ``col == v`` for a category, ``col >= v``
when v is above the column's synthetic median and ``col <= v`` otherwise for a number, ``col is missing`` for a
missing value. A kept predicate singles out a person when it matches exactly one real record. The attack counts
the predicates that single out a training record; the control counts the same predicates on the holdout; the
baseline writes predicates at random (random columns, a random synthetic value of each, a random operator:
``==`` or ``!=`` for categories, one of ``==, !=, >, <, >=, <=`` for numbers) without looking at the synthetic
records, and counts those that single out a training record.

**Equal-sized populations.** Whether a predicate matches exactly one record depends on how many records there
are. The attack and the control are therefore counted on populations of equal size: where training set and
holdout differ in size, the larger is replaced by a random subset of the smaller's size (drawn from
``random_state``). anonymeter 1.1.0 counts the attack on all training records and rescales the control count by
a curve fitted on unseeded subsamples, which at very different sizes roughly divides the control by the size
ratio and so overstates the risk. The price here: a predicate that singles out a training record outside the
subset counts as a failure, so even a verbatim copy of the training data reaches only about (holdout size /
training size) on the attack rate. The count on all training records is reported too.

**Other differences from anonymeter 1.1.0** (each a fix):

- records are not deduplicated: a predicate matching two identical records does not single out a person
  (anonymeter deduplicates every set, so two people with identical records become one that can be singled out);
- the attack rate's denominator is the number of predicates generated (anonymeter divides by ``n_attacks`` even
  when fewer predicates could be found, which understates the risk); both numbers are reported;
- a category's missing value is a value like any other (``!=`` matches it), and category values are compared
  exactly (anonymeter escapes quotes, so that a value holding a quote never matches).

**Fast and reproducible.** Values are held as numbers and category codes; a compiled kernel counts each
predicate's matches and stops at the second. Rows and columns are drawn from ``default_rng([random_state, 1])``
in batches of 1,000 (per batch: rows, then columns), then the baseline; the sets are in the evaluation's canonical
row order and a column's distinct synthetic values are sorted, so the same ``random_state`` gives the same
numbers whatever the order of the rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..._compiled import njit
from ...core.formats import fmt_share
from ...core.registry import (
    Computation,
    FigureSpec,
    Grading,
    MetricSpec,
    Param,
    Presentation,
    ResultJSON,
    Words,
    register,
)
from ...core.results import MetricResult, not_computed
from ._common import (
    CAVEAT,
    CONFIDENCE_LEVEL,
    LEVEL,
    LIMITATION,
    N_ATTACKS,
    CriterionDetails,
    attacks_note,
    criterion_result,
    criterion_rng,
    draw_rows,
    plot_rates,
    residual_sentence,
    risk_words,
)

SINGLING_OUT_COLUMNS = Param("singling_out_columns", 3, kind="int", low=1, high=50, label="predicate columns",
                             reduces_only=False, doc="Columns each singling-out predicate combines.")

#: Predicate operators: equal, not equal, greater, less, greater or equal, less or equal, missing.
EQ, NE, GT, LT, GE, LE, ISNULL = 0, 1, 2, 3, 4, 5, 6

#: Candidate predicates tried per wanted predicate before the attacker gives up (anonymeter: 10 million in all).
MAX_TRIES_PER_ATTACK = 1000

_BATCH = 1000
_SALT = 1


@njit(cache=True)  # type: ignore[untyped-decorator]  # numba has no type hints: its njit is Any
def _holds(x: float, op: int, v: float) -> bool:
    if op == ISNULL:
        return x != x
    if x != x:  # a missing number satisfies no comparison
        return False
    if op == EQ:
        return x == v
    if op == NE:
        return x != v
    if op == GT:
        return x > v
    if op == LT:
        return x < v
    if op == GE:
        return x >= v
    return x <= v


#: A condition's rows are read through the sorted index (:func:`column_index`) when they are fewer than this share
#: of the records; otherwise the records are scanned in order (a gathered row costs a few times a scanned one).
INDEXED_SHARE = 0.25


def column_index(X: NDArray[np.float64]) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.int64]]:
    """Each column of ``X`` sorted once, for :func:`count_matches`: the rows that can satisfy a condition are then
    a range of the sorted column.

    Parameters
    ----------
    X : ndarray of float64, shape (n, d)

    Returns
    -------
    order : ndarray of int64, shape (d, n)
        Per column, the rows in the order of their values (stable; missing values last).
    values : ndarray of float64, shape (d, n)
        Per column, the sorted values.
    n_present : ndarray of int64, shape (d,)
        Per column, the rows whose value is not missing (they come first in ``order``).

    Examples
    --------
    >>> order, values, n_present = column_index(np.array([[3.0, 1.0], [np.nan, 0.0], [1.0, 1.0], [3.0, 0.0]]))
    >>> order.tolist(), values[0].tolist(), n_present.tolist()
    ([[2, 0, 3, 1], [1, 3, 0, 2]], [1.0, 3.0, 3.0, nan], [3, 4])
    """
    X = np.asarray(X, dtype=np.float64)
    order = np.ascontiguousarray(np.argsort(X, axis=0, kind="stable").T.astype(np.int64))
    values = np.ascontiguousarray(np.take_along_axis(X, order.T, axis=0).T)
    n_present = (~np.isnan(X)).sum(axis=0).astype(np.int64)
    return order, values, n_present


def count_matches(X: NDArray[np.float64], cols: NDArray[np.int64], ops: NDArray[np.int64],
                  vals: NDArray[np.float64], limit: int,
                  index: tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.int64]] | None = None,
                  ) -> NDArray[np.int64]:
    """For each predicate (a row of ``cols``, ``ops``, ``vals``), the number of rows of ``X`` it matches, counted
    up to ``limit`` (the scan stops there).

    Parameters
    ----------
    X : ndarray of float64, shape (n, d)
        Records: numbers (NaN missing) and category codes.
    cols, ops : ndarray of int64, shape (q, m)
        Column and operator of each condition (:data:`EQ` ... :data:`ISNULL`); all conditions must hold.
    vals : ndarray of float64, shape (q, m)
        Right-hand values.
    limit : int
        Stop counting at this many matches.
    index : tuple, optional
        :func:`column_index` of ``X`` (made here when not given; a caller that counts many predicates on the
        same records makes it once).

    Returns
    -------
    ndarray of int64, shape (q,)

    Notes
    -----
    Every row that satisfies a predicate lies in the range of the sorted column that each of its ``==``, ``>``,
    ``<``, ``>=`` and ``<=`` conditions allows; the records read are those of the narrowest such range (when it
    holds fewer than :data:`INDEXED_SHARE` of them, else every record in order), each checked against every
    condition. A count is min(matches, ``limit``) whichever rows are read first, so it is that of a scan of
    every record.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    order, values, n_present = column_index(X) if index is None else index
    counts: NDArray[np.int64] = _count_matches(
        X, order, values, n_present, np.ascontiguousarray(cols, dtype=np.int64),
        np.ascontiguousarray(ops, dtype=np.int64), np.ascontiguousarray(vals, dtype=np.float64), int(limit))
    return counts


@njit(cache=True)  # type: ignore[untyped-decorator]  # numba has no type hints: its njit is Any
def _condition_range(values: NDArray[np.float64], n_present: NDArray[np.int64], j: int, op: int,
                     v: float) -> tuple[int | np.intp, int | np.intp]:
    """The range of column ``j``'s sorted rows that can satisfy the condition (op, v): all rows for ``!=``
    and ``is missing``, none present for a missing ``v``."""
    n = values.shape[1]
    if op == ISNULL or op == NE:
        return 0, n
    if v != v:  # a missing value satisfies no comparison, and no comparison with it holds
        return 0, 0
    col = values[j, :n_present[j]]
    if op == EQ:
        return np.searchsorted(col, v, side="left"), np.searchsorted(col, v, side="right")
    if op == GE:
        return np.searchsorted(col, v, side="left"), n_present[j]
    if op == GT:
        return np.searchsorted(col, v, side="right"), n_present[j]
    if op == LE:
        return 0, np.searchsorted(col, v, side="right")
    return 0, np.searchsorted(col, v, side="left")  # LT


@njit(cache=True)  # type: ignore[untyped-decorator]  # numba has no type hints: its njit is Any
def _row_holds(X: NDArray[np.float64], r: int, cols: NDArray[np.int64], ops: NDArray[np.int64],
               vals: NDArray[np.float64], i: int, m: int) -> bool:
    """Whether row ``r`` of ``X`` meets every one of the ``m`` conditions of predicate ``i``."""
    for j in range(m):
        if not _holds(X[r, cols[i, j]], ops[i, j], vals[i, j]):
            return False
    return True


@njit(cache=True)  # type: ignore[untyped-decorator]  # numba has no type hints: its njit is Any
def _count_matches(X: NDArray[np.float64], order: NDArray[np.int64], values: NDArray[np.float64],
                   n_present: NDArray[np.int64], cols: NDArray[np.int64], ops: NDArray[np.int64],
                   vals: NDArray[np.float64], limit: int) -> NDArray[np.int64]:
    """:func:`count_matches` with the sorted columns given."""
    q, m = cols.shape
    n = X.shape[0]
    out = np.zeros(q, dtype=np.int64)
    for i in range(q):
        # the narrowest range any condition allows
        best_j = -1
        lo = 0
        hi = n
        for j in range(m):
            a, b = _condition_range(values, n_present, cols[i, j], ops[i, j], vals[i, j])
            if b - a < hi - lo:
                best_j, lo, hi = cols[i, j], a, b
        c = 0
        if best_j >= 0 and hi - lo < INDEXED_SHARE * n:
            rows = order[best_j]
            for x in range(lo, hi):
                if _row_holds(X, rows[x], cols, ops, vals, i, m):
                    c += 1
                    if c >= limit:
                        break
        else:
            for r in range(n):
                if _row_holds(X, r, cols, ops, vals, i, m):
                    c += 1
                    if c >= limit:
                        break
        out[i] = c
    return out


def predicates_from_records(X: NDArray[np.float64], rows: NDArray[np.int64], cols: NDArray[np.int64],
                            is_cat: NDArray[np.bool_], medians: NDArray[np.float64]
                            ) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """The attacker's predicates: for record ``rows[i]`` on columns ``cols[i]``, ``== v`` for a category,
    ``>= v`` above the column's median and ``<= v`` otherwise for a number, missing for a missing number.

    Returns
    -------
    ops : ndarray of int64, shape (q, m)
    vals : ndarray of float64, shape (q, m)

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [5.0, 1.0], [np.nan, 1.0]])
    >>> ops, vals = predicates_from_records(X, np.array([1, 2]), np.array([[0, 1], [0, 1]]),
    ...                                     np.array([False, True]), np.array([3.0, np.nan]))
    >>> ops.tolist(), vals[0].tolist()
    ([[4, 0], [6, 0]], [5.0, 1.0])
    """
    vals = X[rows[:, None], cols]
    cat = is_cat[cols]
    ops = np.where(cat, EQ, np.where(np.isnan(vals), ISNULL, np.where(vals > medians[cols], GE, LE)))
    return ops.astype(np.int64), vals


def _matrix(ctx: Any, set_name: str) -> NDArray[np.float64]:
    """The set's records as one float64 matrix: numbers, then category codes (``ctx.data``'s column kinds)."""
    return np.ascontiguousarray(np.concatenate(
        [ctx.data.numeric[set_name].rows(), ctx.fitted.codes[set_name].astype(np.float64)], axis=1))


def attack_queries(S: NDArray[np.float64], is_cat: NDArray[np.bool_], n_attacks: int, n_cols: int,
                   rng: np.random.Generator) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64], int]:
    """Up to ``n_attacks`` distinct predicates that each match exactly one synthetic record.

    Batches of 1,000 candidates: rows drawn with replacement, then ``n_cols`` distinct columns per candidate
    (sorted); a candidate is kept when it matches exactly one record of ``S`` and is new. Stops at ``n_attacks``
    kept or after :data:`MAX_TRIES_PER_ATTACK` x ``n_attacks`` candidates.

    Returns
    -------
    cols, ops : ndarray of int64, shape (q, n_cols)
    vals : ndarray of float64, shape (q, n_cols)
    tries : int
        Candidates tried.
    """
    n, d = S.shape
    m = min(n_cols, d)
    with np.errstate(all="ignore"):
        medians = np.array([np.nan if is_cat[j] or np.isnan(S[:, j]).all() else np.nanmedian(S[:, j])
                            for j in range(d)])
    index = column_index(S)  # sorted once for every batch
    seen: set[bytes] = set()
    kept_c, kept_o, kept_v = [], [], []
    tries = 0
    while len(seen) < n_attacks and tries < MAX_TRIES_PER_ATTACK * n_attacks:
        rows = rng.integers(0, n, _BATCH)
        cols = np.sort(np.argsort(rng.random((_BATCH, d)), axis=1)[:, :m], axis=1).astype(np.int64)
        ops, vals = predicates_from_records(S, rows, cols, is_cat, medians)
        tries += _BATCH
        counts = count_matches(S, cols, ops, np.ascontiguousarray(vals), 2, index=index)
        for i in np.flatnonzero(counts == 1):
            key = cols[i].tobytes() + ops[i].tobytes() + np.nan_to_num(vals[i], nan=np.inf).tobytes()
            if key in seen:
                continue
            seen.add(key)
            kept_c.append(cols[i])
            kept_o.append(ops[i])
            kept_v.append(vals[i])
            if len(seen) == n_attacks:
                break
    if not kept_c:
        return np.zeros((0, m), np.int64), np.zeros((0, m), np.int64), np.zeros((0, m)), tries
    return np.array(kept_c), np.array(kept_o), np.ascontiguousarray(np.array(kept_v)), tries


def baseline_queries(S: NDArray[np.float64], is_cat: NDArray[np.bool_], n_attacks: int, n_cols: int,
                     rng: np.random.Generator) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
    """``n_attacks`` random predicates: per predicate ``n_cols`` distinct random columns, for each a random
    value among the column's distinct synthetic values (sorted; a missing value gives ``is missing``) and a
    random operator (``==``/``!=`` for categories, any of six comparisons for numbers)."""
    n, d = S.shape
    m = min(n_cols, d)
    cols = np.sort(np.argsort(rng.random((n_attacks, d)), axis=1)[:, :m], axis=1).astype(np.int64)
    distinct = [np.unique(S[:, j]) for j in range(d)]  # sorted; NaN (missing number) last
    pick = rng.random((n_attacks, m))
    op_draw = rng.random((n_attacks, m))
    vals = np.empty((n_attacks, m))
    ops = np.empty((n_attacks, m), dtype=np.int64)
    for i in range(n_attacks):
        for j in range(m):
            c = cols[i, j]
            values = distinct[c]
            v = values[min(int(pick[i, j] * values.size), values.size - 1)]
            vals[i, j] = v
            if np.isnan(v):
                ops[i, j] = ISNULL
            elif is_cat[c]:
                ops[i, j] = EQ if op_draw[i, j] < 0.5 else NE
            else:
                ops[i, j] = min(int(op_draw[i, j] * 6), 5)
    return cols, ops, vals


def _populations(ctx: Any) -> tuple[NDArray[np.int64] | None, NDArray[np.int64] | None]:
    """The training and holdout rows counted on: equal-sized (a random subset of the larger set), None = all."""

    def make() -> tuple[NDArray[np.int64] | None, NDArray[np.int64] | None]:
        rng = criterion_rng(ctx.random_state, 100 + _SALT)
        n_t, n_h = ctx.size(ctx.T), ctx.size(ctx.H)
        t_rows = draw_rows(rng, n_t, n_h) if n_t > n_h else None
        h_rows = draw_rows(rng, n_h, n_t) if n_h > n_t else None
        return t_rows, h_rows

    rows: tuple[NDArray[np.int64] | None, NDArray[np.int64] | None] = ctx.memo(
        ("singling_out_risk.populations", ctx.T, ctx.H, ctx.random_state), make)
    return rows


def _outcomes(ctx: Any, n_attacks: int, n_cols: int) -> dict[str, Any]:
    """The raw outcomes (cached): per predicate, its number of matches (up to 2) in each population."""

    def build() -> dict[str, Any]:
        rng = criterion_rng(ctx.random_state, _SALT)
        is_cat = np.array([False] * len(ctx.data.numeric_columns) + [True] * len(ctx.data.categorical_columns))
        S = _matrix(ctx, ctx.S)
        T, H = _matrix(ctx, ctx.T), _matrix(ctx, ctx.H)
        t_rows, h_rows = _populations(ctx)
        Tp = T if t_rows is None else np.ascontiguousarray(T[t_rows])
        Hp = H if h_rows is None else np.ascontiguousarray(H[h_rows])
        cols, ops, vals, tries = attack_queries(S, is_cat, n_attacks, n_cols, rng)
        bcols, bops, bvals = baseline_queries(S, is_cat, n_attacks, n_cols, rng)
        t_index = column_index(Tp)
        return {
            "attack": count_matches(Tp, cols, ops, vals, 2, index=t_index),
            "attack_all_training": count_matches(T, cols, ops, vals, 2, index=t_index if Tp is T else None),
            "control": count_matches(Hp, cols, ops, vals, 2),
            "baseline": count_matches(Tp, bcols, bops, bvals, 2, index=t_index),
            "tries": tries, "n_population": int(Tp.shape[0]),
        }

    outcomes: dict[str, Any] = ctx.memo(("singling_out_risk.outcomes", ctx.T, ctx.H, ctx.S, ctx.random_state,
                                         int(n_attacks), int(n_cols)), build)
    return outcomes


def _compute(ctx: Any, params: dict[str, Any]) -> MetricResult:
    if ctx.H is None:
        return not_computed("singling_out_risk", "needs a holdout set: the control attack runs on it")
    n_attacks, n_cols = int(params["n_attacks"]), int(params["singling_out_columns"])
    raw = _outcomes(ctx, n_attacks, n_cols)
    q = int(raw["attack"].shape[0])
    if q == 0:
        return not_computed("singling_out_risk", f"no predicate on {n_cols} columns matches exactly one synthetic "
                                                 f"record in {raw['tries']:,} tries")
    notes: tuple[str, ...] = ()
    if q < n_attacks:
        notes = (f"only {q:,} predicates matching exactly one synthetic record were found in {raw['tries']:,} "
                 f"tries (of {n_attacks:,} wanted); the rates are over the {q:,} found",)
    details = {
        "n_queries": q, "n_attacks_asked": n_attacks, "tries": int(raw["tries"]), "predicate_columns": n_cols,
        "columns": list(ctx.data.numeric_columns) + list(ctx.data.categorical_columns),
        "population_size": raw["n_population"], "training_size": ctx.size(ctx.T), "holdout_size": ctx.size(ctx.H),
        "attack_rate_all_training": float((raw["attack_all_training"] == 1).mean()),
        "random_state": ctx.random_state,
    }
    return criterion_result("singling_out_risk", k_attack=int((raw["attack"] == 1).sum()), n_attack=q,
                            k_control=int((raw["control"] == 1).sum()), n_control=q,
                            k_baseline=int((raw["baseline"] == 1).sum()), n_baseline=n_attacks,
                            confidence_level=params["confidence_level"], details=details, notes=notes)


def singling_out_finding(m: ResultJSON) -> str:
    """The cover's sentence.

    >>> m = {"value": 0.5, "interval": [0.4, 0.6], "details": {"predicate_columns": 3, "confidence_level": 0.95,
    ...      "rates": {"attack": {"value": 0.6}, "control": {"value": 0.2}, "baseline": {"value": 0.01}}}}
    >>> singling_out_finding(m)[:44]
    'Singling-out risk: 0.5 (0.4 to 0.6 at 95% co'
    """
    d = m.get("details") or {}
    r = d.get("rates") or {}

    def v(key: str) -> str:
        return fmt_share((r.get(key) or {}).get("value"))

    return (f"Singling-out risk: {risk_words(m)}; of the predicates on {d.get('predicate_columns')} columns that "
            f"pick out one synthetic record, {v('attack')} single out a training record and {v('control')} a "
            f"holdout record; {v('baseline')} of random predicates single out a training record.")


class SinglingOutRiskDetails(CriterionDetails):
    """The details of ``singling_out_risk``: the keys every criterion's result has (:class:`CriterionDetails`),
    and its own."""

    n_queries: int
    n_attacks_asked: int
    tries: int
    predicate_columns: int
    columns: list[str]
    population_size: int
    training_size: int
    holdout_size: int
    attack_rate_all_training: float
    random_state: int


register(MetricSpec(
    name="singling_out_risk",
    computation=Computation(
        compute=_compute, plan=None, needs=("holdout",), params=(N_ATTACKS, CONFIDENCE_LEVEL, SINGLING_OUT_COLUMNS),
        copy_sensitive=True, details=SinglingOutRiskDetails),
    grading=Grading(
        direction="higher_is_riskier", value_range=(0.0, 1.0), value_kind="number", level=LEVEL, drives_verdict=False),
    presentation=Presentation(
        title="Singling-out risk (anonymisation criterion)", section="package", group="criteria",
        summary="How much more often a rule read off one synthetic record picks out exactly one person of the "
                "training data than exactly one real person the generator never saw.",
        definition="Predicates on a few columns that match exactly one synthetic record are tried on the real data; "
                   "one that matches exactly one real record singles that person out. The risk is the success on "
                   "training records in excess of that on holdout records of the same number, normalised (Giomi et "
                   "al. 2023). " + CAVEAT,
        words=Words(measures="whether a person can be singled out with the synthetic data: rules such as \"age >= "
                             "71 and occupation = X and sex = F\" that fit exactly one synthetic record are tried "
                             "on the real records",
                    high_means="a high value is risky: such rules pick out exactly one training record more often "
                               "than exactly one record of a person the generator never saw",
                    ideal="0 (rules read off the synthetic data single out training and fresh real records alike)"),
        interval_kind="Wilson, propagated to the risk (confidence_level, default 95%)",
        figures=(FigureSpec(plot_rates, "Share of predicates that single out a training record, a holdout record, "
                            "and of random predicates that single out a training record, with their Wilson intervals",
                            size=(6.0, 2.2), needs_evidence=False),),
        finding=singling_out_finding,
        residual_risk=lambda m: residual_sentence(
            m, f"a few of a person's values (rules on {(m.get('details') or {}).get('predicate_columns')} columns read "
               "off the synthetic records)", "singles out one record (the rule matches it alone)",
            "the rules tried"),
        limitation=LIMITATION + "; rules are read off synthetic records, so a person the synthetic data do not "
                   "resemble is never tried",
        sample_note=attacks_note),
))
