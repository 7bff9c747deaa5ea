"""Near copies: the machinery behind ``near_copies`` and the copy check of the verdict (declared in
:mod:`synthpriv_report.metrics.distance`, beside ``exact_copies``): synthetic records that are a training record
with a small change.

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

from ..engine import compared_numbers
from ..registry import Param

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


def cell_words_of(ctx: Any) -> dict[str, NDArray[np.uint64]]:
    """Cell words of every set, cached (numbers at the synthetic columns' precision)."""

    def make():
        nums = compared_numbers(ctx.data)
        return {s: cell_words(nums[s], ctx.fitted.codes[s]) for s in ctx.data.sets}

    return ctx.memo("near_copies.words", make)


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


__all__ = ["near_copy_cutoff", "leave_one_out_cutoffs", "one_column_matches", "cell_words", "cell_words_of",
           "NEAR_COPY_QUANTILE"]
