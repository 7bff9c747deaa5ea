"""Is the holdout a fair yardstick? The check that holdout records lie as far from the training data as training
records lie from one another (read by every metric that compares with the holdout, and by the verdict's note on
the data). Definitions: ``docs/metrics.md``, section "The holdout".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ...core.formats import fmt_number
from .arrays import SmallResult, space_for

#: A holdout is reported as unlike the training data when the two-sided Mann-Whitney p-value of its distances to
#: the training data against the training records' own is below ``HOLDOUT_SHIFT_P`` and the probability that a
#: holdout record is the farther one differs from one half by at least ``HOLDOUT_SHIFT_AUC`` (package defaults:
#: on random splits of Adult and Bank Marketing the probability stays within 0.498-0.502; a holdout split off by
#: date gave 0.561).
HOLDOUT_SHIFT_P = 1e-3


HOLDOUT_SHIFT_AUC = 0.02


@dataclass(frozen=True)
class HoldoutShift(SmallResult):
    """What :func:`holdout_shift` finds.

    Attributes
    ----------
    auc : float
        P(holdout record farther) + half P(equal): the Mann-Whitney U of the holdout divided by the number of pairs.
    p_value : float
        Two-sided, normal approximation with the tie correction.
    median_holdout : float
        Median of DCR(h, T) over the holdout records.
    median_within : float
        Median of DCR(t, T minus t) over the training records.
    n_holdout, n_within : int
        Number of distances on each side.
    """

    auc: float
    p_value: float
    median_holdout: float
    median_within: float
    n_holdout: int
    n_within: int


def holdout_shift(d_holdout: ArrayLike, d_within: ArrayLike) -> HoldoutShift:
    """Do holdout records lie as far from the training data as training records lie from one another?

    The metric definitions take the holdout as fresh records of the training data's population
    (``docs/metrics.md``, section "Baselines: the holdout and the calibration"); the package checks it, since
    every comparison with the holdout rests on it. When holdout and training records are drawn at random from the
    same records, DCR(h, T) and DCR(t, T minus t) have the same distribution (each is the distance from a record
    of the population to its nearest of about |T| others), so the probability that a holdout record is the
    farther one is one half.

    Parameters
    ----------
    d_holdout : array
        DCR(h, T) of every holdout record.
    d_within : array
        DCR(t, T minus t) of every training record.

    Returns
    -------
    HoldoutShift
        ``auc``: P(holdout farther) + half P(equal), the Mann-Whitney U of the holdout divided by the number of
        pairs; ``p_value``: two-sided, normal approximation with the tie correction; ``median_holdout``,
        ``median_within``, ``n_holdout``, ``n_within``.

    Examples
    --------
    >>> r = holdout_shift([0.3, 0.4, 0.5], [0.1, 0.2, 0.3])
    >>> r.auc, r.median_holdout, r.median_within
    (0.9444444444444444, 0.4, 0.2)
    """
    return holdout_shift_sorted(np.sort(np.asarray(d_holdout, dtype=np.float64)),
                                np.sort(np.asarray(d_within, dtype=np.float64)))


#: Records of the holdout whose ranks among the training distances are found at a time (:func:`holdout_shift`).
SHIFT_BLOCK = 1 << 20


def holdout_shift_sorted(hs: NDArray[np.float64], ts: NDArray[np.float64]) -> HoldoutShift:
    """:func:`holdout_shift` of the two sets' distances sorted ascending (``np.sort``), the same numbers.

    The Mann-Whitney U and the tie correction are sums of whole numbers, found a block of
    :data:`SHIFT_BLOCK` values at a time (a block of the holdout's ranks; the values of a range that holds a
    block of each set's, for the ties) instead of ranking both sets at once; where the tie sum reaches 2**53 (or a
    distance is not finite) it is made as ``np.unique`` counts it, so that it is the same float in every case.
    """
    n1, n2 = hs.size, ts.size
    if n1 == 0 or n2 == 0:
        raise ValueError("holdout_shift needs at least one distance in each set")
    below = at_most = 0
    for a in range(0, n1, SHIFT_BLOCK):
        block = hs[a:a + SHIFT_BLOCK]
        below += int(np.searchsorted(ts, block, side="left").sum())
        at_most += int(np.searchsorted(ts, block, side="right").sum())
    u = float(below) + 0.5 * float(at_most - below)  # Mann-Whitney U of the holdout
    # normal approximation with the tie correction (as scipy.stats.mannwhitneyu, method="asymptotic", without the
    # continuity correction), from sorts instead of a ranking of both sets: a second at a million each
    n = n1 + n2
    ties = _tie_sum(hs, ts)
    var = n1 * n2 / 12.0 * ((n + 1) - (ties / (n * (n - 1)) if n > 1 else 0.0))
    z = (u - n1 * n2 / 2.0) / math.sqrt(var) if var > 0 else 0.0
    return HoldoutShift(auc=u / (n1 * n2), p_value=math.erfc(abs(z) / math.sqrt(2.0)),
                        median_holdout=float(np.median(hs)), median_within=float(np.median(ts)),
                        n_holdout=int(n1), n_within=int(n2))


def _tie_sum(hs: NDArray[np.float64], ts: NDArray[np.float64]) -> float:
    """sum(c**3 - c) over the distinct values of both sorted sets together, c each one's count, as
    ``np.sum(counts ** 3 - counts)`` of ``np.unique(np.concatenate([hs, ts]), return_counts=True)`` gives it.

    The counts are found range by range of values (each range holding at most a block of each set's values, and
    a value held by more; a value never split between two ranges), never for both whole sets at once. Below
    2**53 every term and every partial sum is a whole number a float64 holds exactly, so any order of adding gives
    that float: the sum is made in whole numbers. Otherwise the ranges are read again for the float terms
    ``c**3 - c``, in increasing order of the values, and added by one ``np.sum`` over them all: the array and the
    sum written above, without the concatenation of both sets and its sort. Where a value is not finite, the sum
    is made as written above.
    """
    if not (np.isfinite(hs[[0, -1]]).all() and np.isfinite(ts[[0, -1]]).all()):
        all_counts = np.unique(np.concatenate([hs, ts]), return_counts=True)[1].astype(np.float64)
        return float(np.sum(all_counts ** 3 - all_counts))
    cuts = np.unique(np.concatenate([hs[::SHIFT_BLOCK], ts[::SHIFT_BLOCK]]))  # both minima among them
    h_at = np.searchsorted(hs, cuts, side="left").tolist() + [hs.size]
    t_at = np.searchsorted(ts, cuts, side="left").tolist() + [ts.size]

    def counts(k: int) -> NDArray[np.int64]:  # the counts of the distinct values of range k, in increasing order
        part = np.concatenate([hs[h_at[k]:h_at[k + 1]], ts[t_at[k]:t_at[k + 1]]])
        return np.unique(part, return_counts=True)[1].astype(np.int64)

    total = 0
    for k in range(cuts.size):
        c = counts(k)
        if c.size and int(c.max()) > 2_000_000:  # c**3 past int64
            break
        total += int(np.sum(c * c * c - c))
        if total >= 2**53:
            break
    else:
        return float(total)
    terms = []
    for k in range(cuts.size):
        f = counts(k).astype(np.float64)
        terms.append(f ** 3 - f)
    return float(np.sum(np.concatenate(terms) if terms else np.zeros(0)))


def holdout_shift_note(shift: HoldoutShift | None) -> str | None:
    """The reader's note when :func:`holdout_shift` finds the holdout unlike the training data, else None."""
    if shift is None or not (shift.p_value < HOLDOUT_SHIFT_P and abs(shift.auc - 0.5) >= HOLDOUT_SHIFT_AUC):
        return None
    farther = shift.auc > 0.5
    share = shift.auc if farther else 1.0 - shift.auc
    word = "farther" if farther else "closer"
    effect = ("too much distance from an honest generator and can report a risk that is not there" if farther
              else "too little distance from an honest generator and can hide a risk")
    return (f"The holdout does not look like a random sample of the training data's records: its records lie "
            f"{word} {'from' if farther else 'to'} the training records than these lie {'from' if farther else 'to'} "
            f"one another (median "
            f"distance to the closest training record {fmt_number(shift.median_holdout)} against "
            f"{fmt_number(shift.median_within)}; the holdout record is the {word} one in {share:.1%} of pairs, 50% "
            f"for a random split; Mann-Whitney p < {HOLDOUT_SHIFT_P:g}), as when a holdout is split off by date "
            f"or source. Comparisons with it then expect {effect}. Draw the holdout at random from the same "
            f"records.")


def holdout_shift_requests(ctx: Any) -> list[Any]:
    """The searches :func:`holdout_shift_of` reads (none without a holdout): planned by the metrics that compare
    with the holdout, so that they run once."""
    if ctx.H is None:
        return []
    sp = space_for(ctx, "dcr", "gower")
    return [ctx.request(sp, ctx.T, ctx.T, 1), ctx.request(sp, ctx.H, ctx.T, 1)]


def holdout_shift_of(ctx: Any, *, compute: bool = True) -> HoldoutShift | None:
    """:func:`holdout_shift` on the evaluation's data, in the distance space of ``dcr`` (cached; None without a
    holdout, or when ``compute`` is false and no metric has needed it yet)."""
    if ctx.H is None:
        return None
    sp = space_for(ctx, "dcr", "gower")
    key = ("holdout_shift", sp, ctx.T, ctx.H)
    if not compute:
        held: HoldoutShift | None = ctx.peek(key)
        return held

    def make() -> HoldoutShift:
        # each set's distances read and sorted, the read let go before the other's is read
        hs = np.sort(ctx.knn(sp, ctx.H, ctx.T, 1).dist[:, 0])
        return holdout_shift_sorted(hs, np.sort(ctx.knn(sp, ctx.T, ctx.T, 1).dist[:, 0]))

    shift: HoldoutShift = ctx.memo(key, make)
    return shift


def holdout_shift_notes(ctx: Any) -> tuple[str, ...]:
    """The note of :func:`holdout_shift_note` as a tuple (empty when the holdout looks like the training data)."""
    note = holdout_shift_note(holdout_shift_of(ctx))
    return (note,) if note else ()
