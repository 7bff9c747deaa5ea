"""Near copies: synthetic records that are a training record with a small change.

A generator that memorises people does not always reproduce them verbatim: one number moved by a unit, one
category changed, redacted or re-spelled, every number rounded to float32. Such a record still points at one
real person. A synthetic record is a *near copy* when one of these holds:

- it is an exact copy (every column equal, numbers at the synthetic column's precision);
- it equals a training record on every column but one (whatever the one column holds);
- its distance to the closest training record is below the distance that only ``near_copy_quantile`` (1%) of
  training records have to their own closest other training record: it is closer than real people lie to one
  another (the cut-off is calibrated on the real data, not a fixed constant).

Its baseline is the same flag for fresh real records: holdout records against the training data, or without a
holdout each training record against the *other* training records. The level compares the two shares through
both sides' uncertainty (:func:`synthpriv_report.evidence.excess_share`), as for exact copies.

Equality on "every column but one" is found by hashing: each cell is mapped to a 64-bit word by a bijection of
its value (numbers by their float64 bits, categories by their code), a record's key with column j left out is
the sum of its other cells' words, and every match of keys is then checked cell by cell, so a match is exact.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import plotting as plot
from .. import stats
from ..engine import compared_numbers
from ..registry import FigureSpec, MetricSpec, Param, Words, register
from ..results import MetricResult, not_computed
from .distance import _exact_flags, copy_baseline, copy_check_level, copy_strip, dcr_arrays, excess_evidence

NEAR_COPY_QUANTILE = Param(
    "near_copy_quantile", 0.01, low=0.0, high=0.5, low_open=True, slider=(0.001, 0.1, 0.001),
    label="near-copy distance quantile",
    doc="A synthetic record closer to a training record than this share of training records are to their own "
        "closest other training record counts as a near copy.")

_SALT = np.uint64(0x9E3779B97F4A7C15)


def _mix(h: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """splitmix64's finalizer, a bijection of 64-bit words (vectorised)."""
    h = h ^ (h >> np.uint64(30))
    h = h * np.uint64(0xBF58476D1CE4E5B9)
    h = h ^ (h >> np.uint64(27))
    h = h * np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(31))


def cell_words(numbers: NDArray[np.float64], codes: NDArray[np.integer]) -> NDArray[np.uint64]:
    """One 64-bit word per cell, a bijection of the cell's value within its column (numbers by their canonical
    float64 bits: -0.0 as 0.0, one NaN; categories by their code).

    >>> w = cell_words(np.array([[0.0], [-0.0], [1.0]]), np.array([[3], [3], [4]]))
    >>> bool(w[0, 0] == w[1, 0]), bool(w[0, 1] == w[2, 1])
    (True, False)
    """
    num = np.array(numbers, dtype=np.float64, copy=True) + 0.0  # -0.0 -> 0.0
    bits = num.view(np.uint64)
    bits[np.isnan(num)] = np.uint64(0x7FF8000000000000)
    cols = [bits[:, j] for j in range(bits.shape[1])]
    cols += [np.asarray(codes[:, j], dtype=np.int64).view(np.uint64) for j in range(codes.shape[1])]
    out = np.empty((num.shape[0], len(cols)), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j, c in enumerate(cols):
            out[:, j] = _mix(c ^ (_SALT * np.uint64(j + 1)))
    return out


def one_column_matches(q: NDArray[np.uint64], r: NDArray[np.uint64], *, same: bool = False
                       ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """For each record of ``q`` (cell words, :func:`cell_words`): a column j such that some record of ``r`` equals
    it on every column but j (-1 where none), and the position of such a record in ``r``.

    With ``same`` (``q`` is ``r``) a record does not match itself, and a column is only reported when the
    matching record differs in it (exact duplicates are exact copies, found elsewhere).

    >>> a = cell_words(np.array([[1.0, 2.0], [1.0, 5.0], [7.0, 8.0]]), np.zeros((3, 0), dtype=np.int64))
    >>> one_column_matches(a, a, same=True)[0].tolist()
    [1, 1, -1]
    """
    n_q, p = q.shape
    column = np.full(n_q, -1, dtype=np.int64)
    partner = np.full(n_q, -1, dtype=np.int64)
    if p < 2 or r.shape[0] == 0:
        return column, partner
    with np.errstate(over="ignore"):
        tq = q.sum(axis=1, dtype=np.uint64)
        tr = r.sum(axis=1, dtype=np.uint64)
        for j in range(p):
            open_q = column < 0
            if not open_q.any():
                break
            kq = tq - q[:, j]
            kr = tr - r[:, j]
            order = np.argsort(kr, kind="stable")
            ks = kr[order]
            lo = np.searchsorted(ks, kq, side="left")
            hi = np.searchsorted(ks, kq, side="right")
            cand = np.flatnonzero(open_q & (hi > lo))
            if not cand.size:
                continue
            pick = order[lo[cand]]
            if same:  # not the record itself: the next one with the key where the first is itself
                self_hit = pick == cand
                nxt = np.minimum(lo[cand] + 1, ks.size - 1)
                ok_next = hi[cand] - lo[cand] >= 2
                pick = np.where(self_hit, np.where(ok_next, order[nxt], -1), pick)
                keep = pick >= 0
                cand, pick = cand[keep], pick[keep]
            others = np.ones(p, dtype=bool)
            others[j] = False
            equal_rest = (q[cand][:, others] == r[pick][:, others]).all(axis=1)
            if same:
                equal_rest &= q[cand, j] != r[pick, j]
            cand, pick = cand[equal_rest], pick[equal_rest]
            column[cand] = j
            partner[cand] = pick
    return column, partner


def _words(ctx: Any) -> dict[str, NDArray[np.uint64]]:
    """Cell words of every set, cached (numbers at the synthetic columns' precision)."""

    def make():
        nums = compared_numbers(ctx.data)
        return {s: cell_words(nums[s], ctx.fitted.codes[s]) for s in ctx.data.sets}

    return ctx.memo("near_copies.words", make)


def near_copy_flags(ctx: Any, query: str, ref: str, cutoff: float | NDArray[np.float64], dist: NDArray[np.float64],
                    nearest: NDArray[np.int64]) -> dict[str, Any]:
    """Which records of ``query`` are near copies of a record of ``ref`` (the training data), by kind.

    ``dist``/``nearest``: each query record's distance to its closest record of ``ref`` (itself left out within
    one set) and that record's position.
    """
    same = query == ref
    exact, exact_partner = _exact_flags(ctx, query, ref)

    def make():
        w = _words(ctx)
        return one_column_matches(w[query], w[ref], same=same)

    column, col_partner = ctx.memo(("near_copies.columns", query, ref), make)
    one_col = (column >= 0) & ~exact
    close = stats.less(dist, np.broadcast_to(np.asarray(cutoff, dtype=np.float64), dist.shape)) & ~exact & ~one_col
    flags = exact | one_col | close
    partner = np.where(exact, exact_partner, np.where(one_col, col_partner, np.where(close, nearest, -1)))
    return {"flags": flags, "partner": partner, "exact": exact, "one_column": one_col, "column": column,
            "close": close}


def near_copy_cutoff(within: NDArray[np.float64], quantile: float) -> float:
    """The distance below which a record counts as a near copy: the ``quantile`` of the training records'
    distances to their closest other training record (linear interpolation).

    >>> near_copy_cutoff(np.array([0.1, 0.2, 0.3, 0.4, 0.5]), 0.25)
    0.2
    """
    return float(np.quantile(np.asarray(within, dtype=np.float64), quantile))


def leave_one_out_cutoffs(within: NDArray[np.float64], quantile: float) -> NDArray[np.float64]:
    """Per training record, the cut-off computed from the *other* training records' distances.

    A fresh record is compared with a cut-off it took no part in; a training record compared with a cut-off
    computed with its own distance would be flagged less often (at 100 records, 1 in 100 against about 2 in 101
    for a fresh record), which makes an honest release look worse than its baseline.

    >>> leave_one_out_cutoffs(np.array([0.1, 0.2, 0.3, 0.4, 0.5]), 0.25).round(6).tolist()
    [0.275, 0.25, 0.175, 0.175, 0.175]
    """
    d = np.asarray(within, dtype=np.float64)
    n = d.size
    out = np.full(n, np.nan)
    if n < 2:
        return out
    order = np.argsort(d, kind="stable")
    x = d[order]
    h = quantile * (n - 2)  # position in the n - 1 other values
    lo = int(np.floor(h))
    frac = h - lo
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)

    def y(i: NDArray[np.int64]) -> NDArray[np.float64]:  # the i-th smallest of the others
        i = np.minimum(i, n - 2)
        return x[np.where(i < rank, i, i + 1)]

    a = y(np.full(n, lo, dtype=np.int64))
    b = y(np.full(n, min(lo + 1, n - 2), dtype=np.int64))
    out = a + frac * (b - a)
    return out


def _plan(ctx, params):
    sp = ctx.metric_space("dcr", "gower")
    reqs = [ctx.request(sp, ctx.S, ctx.T, 1), ctx.request(sp, ctx.T, ctx.T, 1)]
    if ctx.H is not None:
        reqs.append(ctx.request(sp, ctx.H, ctx.T, 1))
    return reqs


def _compute(ctx, params) -> MetricResult:
    if ctx.size(ctx.T) < 2:
        return not_computed("near_copies", "needs at least 2 real training records")
    a = dcr_arrays(ctx)
    q = float(params["near_copy_quantile"])
    cutoff = near_copy_cutoff(a["T"], q)
    sp = ctx.metric_space("dcr", "gower")
    tt = ctx.knn(sp, ctx.T, ctx.T, 1)
    s = near_copy_flags(ctx, ctx.S, ctx.T, cutoff, a["S"], a["nearest"])

    def flags_of(query, ref):
        if query == ref:
            loo = leave_one_out_cutoffs(tt.dist[:, 0], q)
            f = near_copy_flags(ctx, query, ref, loo, tt.dist[:, 0], tt.idx[:, 0])
        else:
            th = ctx.knn(sp, query, ref, 1)
            f = near_copy_flags(ctx, query, ref, cutoff, th.dist[:, 0], th.idx[:, 0])
        return f["flags"], f["partner"]

    base, groups, which = copy_baseline(ctx, flags_of)
    flags = s["flags"]
    share = float(flags.mean())
    interval = stats.wilson(share, int(flags.size))
    cols = list(ctx.data.numeric_columns) + list(ctx.data.categorical_columns)
    by_col = np.bincount(s["column"][s["one_column"]], minlength=len(cols))
    details: dict[str, Any] = {
        "n_near_copies": int(flags.sum()), "n": int(flags.size),
        "n_exact": int(s["exact"].sum()), "n_one_column": int(s["one_column"].sum()),
        "n_closer_than_real": int(s["close"].sum()),
        "one_column_by_column": {cols[j]: int(c) for j, c in enumerate(by_col) if c},
        "distance_cutoff": cutoff, "cutoff_quantile": q, "space": sp.label,
    }
    details.update(excess_evidence(flags, base, groups, which))
    return MetricResult(name="near_copies", value=share, interval=interval, details=details, space=sp.label)


def plot_near_copies(result: Any, *, ax: Any = None) -> Any:
    """The near-copy share with its Wilson interval against the same share for fresh real records."""
    ax = plot.new_ax(ax)
    if result is None or not result.computed:
        return plot.empty(ax, "near copies not computed")
    return copy_strip(ax, result, what="near copies",
                      xlabel="share of synthetic records that are a training record with a small change",
                      title="Near copies", base_words=("holdout records as near a training record",
                                                       "training records as near another one"))


register(MetricSpec(
    name="near_copies", title="Near copies", section="package", group="closeness",
    direction="higher_is_riskier", value_range=(0.0, 1.0), compute=_compute, plan=_plan, calibratable=True,
    copy_sensitive=True, params=(NEAR_COPY_QUANTILE,), interval_kind="Wilson 95%",
    level=copy_check_level(
        "near-copy share", "near copies", "holdout records that are near copies of a training record; without a "
        "holdout, training records near another one",
        "package default: near copies count as copies (Article 29 Working Party, Opinion 05/2014 on anonymisation "
        "techniques: a record that singles out a person)"),
    figures=(FigureSpec(lambda r, a: plot_near_copies(r, ax=a),
                        "Share of synthetic records that are near copies of a training record, by kind, against "
                        "the same share for fresh real records", size=(6.0, 2.2), needs_evidence=False),),
    summary="Share of synthetic records that are a training record with a small change: equal on every column "
            "but one, or closer to it than real people are to one another.",
    definition="A synthetic record is a near copy when it is an exact copy of a training record, equals one on "
               "every column but one, or lies closer to one than all but 1% of training records lie to their "
               "own closest other training record. The same count for fresh real records (the holdout, or the "
               "training records among themselves) is its baseline.",
    words=Words(measures="how many synthetic records are a real person's record with a small change",
                high_means="a high value is risky: real records were reproduced with cosmetic changes",
                ideal="no more than the share of unseen real records that lie as close to a training record"),
))

__all__ = ["near_copy_flags", "near_copy_cutoff", "one_column_matches", "cell_words", "plot_near_copies",
           "NEAR_COPY_QUANTILE"]
