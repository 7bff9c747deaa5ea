"""The statistics behind the levels of the verdict's checks: a level is reached only when the data show it beyond
chance.

Each check compares a synthetic statistic with its baseline (fresh real records: the holdout, or without one the
training records among themselves) through the uncertainty of *both* sides, and at a confidence level that keeps
the verdict's false-alarm rate bounded across all its checks (Bonferroni: each of the m checks is tested at
one-sided level alpha / m; :func:`check_alpha`).

Per-record indicators of one set are not always independent: synthetic records that share the same nearest
real record win or lose together, and duplicates among the training records come in groups. Their variance is
then the cluster-robust ("sandwich") variance over those groups, and intervals use the effective number of
independent records (Kish's design effect), so that clustering never makes an honest release look significant.

Sources: E. B. Wilson, "Probable inference, the law of succession, and statistical inference", JASA 22 (1927);
R. G. Newcombe, "Interval estimation for the difference between independent proportions", Statistics in
Medicine 17 (1998) 873-890 (the hybrid score interval, method 10); L. Kish, "Survey Sampling" (1965) for the
design effect; C. E. Bonferroni's inequality for several checks at once.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._compiled import COMPILED, njit
from .intervals import wilson_centre_half

#: The false-alarm rate the verdict is built for: the probability that an ideal generator (fresh real records of
#: the training data's population) gets a verdict of medium or high, summed over the checks behind it.
VERDICT_FALSE_ALARM = 0.05


def check_alpha(n_checks: int, rate: float = VERDICT_FALSE_ALARM) -> float:
    """The one-sided level at which each of ``n_checks`` checks is tested (Bonferroni: ``rate / n_checks``).

    >>> round(check_alpha(6), 6)
    0.008333
    """
    if n_checks < 1:
        raise ValueError(f"n_checks must be at least 1, got {n_checks}")
    return float(rate) / int(n_checks)


def z_of(alpha: float) -> float:
    """The standard normal quantile of ``1 - alpha`` (one-sided critical value).

    >>> round(z_of(0.025), 4)
    1.96
    """
    return float(NormalDist().inv_cdf(1.0 - float(alpha)))


def wilson_bounds(p_hat: float, n: float, z: float) -> tuple[float, float]:
    """Wilson score interval of a proportion at critical value ``z``, for a possibly fractional number of trials
    ``n`` (an effective number of independent records). ``n <= 0`` gives (0, 1).

    >>> [round(v, 4) for v in wilson_bounds(0.5, 100, 1.959964)]
    [0.4038, 0.5962]
    """
    if not n > 0 or not math.isfinite(p_hat):
        return 0.0, 1.0
    centre, half = wilson_centre_half(p_hat, n, z)
    return max(0.0, centre - half), min(1.0, centre + half)


def clustered_variance(y: ArrayLike, groups: ArrayLike, *, centre: float | None = None) -> float:
    """Cluster-robust variance of the mean of ``y`` when records of one group are not independent.

    V = sum over groups g of (sum over i in g of (y_i - c))^2 / n^2, with c = ``centre`` (default the mean).
    With one record per group this is the plain variance estimate sum (y_i - c)^2 / n^2.

    >>> clustered_variance([1, 1, 0, 0], [0, 0, 1, 2], centre=0.5)
    0.09375
    """
    v = np.asarray(y, dtype=np.float64)
    n = v.size
    if n == 0:
        return float("nan")
    c = float(v.mean()) if centre is None else float(centre)
    sums = _group_sums(v, np.asarray(groups).ravel(), c)
    np.multiply(sums, sums, out=sums)  # squared where they are (the same numbers as sums * sums, no second array)
    return float(np.sum(sums)) / (n * n)


def _group_sums(v: NDArray[np.float64], g: NDArray[Any], c: float) -> NDArray[np.float64]:
    """Per group of ``g``, in increasing order of the groups, the sum of ``v - c`` over its records, added in
    record order.

    Compiled, for groups numbered 0 to at most 2n (the positions of nearest records, the first records of
    groups): the groups are summed a range of :func:`group_range` numbers at a time (one float64 and one byte per
    number of the range, at most an eighth of them at once), each range's sums written after the last range's,
    instead of sorting the groups (:func:`numpy.unique`), which holds several 8-byte arrays per record. The sums
    are the same numbers, added in the same order, as the sorting path's :func:`numpy.bincount`.
    """
    n = v.size
    if COMPILED and n and np.issubdtype(g.dtype, np.integer) and int(g.min()) >= 0 and int(g.max()) <= 2 * n:
        top = int(g.max()) + 1
        out = np.empty(min(top, n))  # no more groups than records
        width, count = group_range(top), 0
        for lo in range(0, top, width):
            count = _group_sums_compiled(v, g, c, lo, min(top, lo + width), out, count)
        front: NDArray[np.float64] = out[:count]  # a view of the front of the sums' array
        return front
    inverse = np.unique(g, return_inverse=True)[1].ravel()
    return np.asarray(np.bincount(np.asarray(inverse, dtype=np.intp), weights=v - c), dtype=np.float64)


def group_range(top: int) -> int:
    """How many group numbers (of ``0 .. top - 1``) :func:`_group_sums` sums at a time: at least 2**20, else an
    eighth of them (at most eight passes over the records).

    >>> group_range(10), group_range(80_000_000)
    (1048576, 10000000)
    """
    return max(1 << 20, -(-top // 8))


def _group_sums_loop(v: NDArray[np.float64], g: NDArray[np.integer], c: float, lo: int, hi: int,
                     out: NDArray[np.float64], count: int) -> int:
    """The sums of ``v - c`` (in record order) of each group numbered ``lo`` to ``hi - 1`` that has records, in
    increasing order, written to ``out`` from position ``count`` on; returns the position after the last one
    written (compiled as :data:`_group_sums_compiled`).

    >>> out = np.zeros(3)
    >>> _group_sums_loop(np.array([1.0, 2.0, 4.0]), np.array([5, 2, 5]), 0.0, 0, 6, out, 0), out.tolist()
    (2, [2.0, 5.0, 0.0])
    """
    sums = np.zeros(hi - lo)
    present = np.zeros(hi - lo, dtype=np.bool_)
    for i in range(v.size):
        j = np.int64(g[i]) - lo  # signed, whatever the groups' integer type
        if 0 <= j < hi - lo:
            sums[j] += v[i] - c
            present[j] = True
    for j in range(hi - lo):
        if present[j]:
            out[count] = sums[j]
            count += 1
    return count


_group_sums_compiled: Any = njit(cache=True)(_group_sums_loop)


def design_effect(y: ArrayLike, groups: ArrayLike) -> float:
    """Kish's design effect of the mean of 0/1 (or 0/0.5/1) indicators clustered in ``groups``: the cluster-robust
    variance over the variance the same indicators would have if independent; at least 1.

    >>> design_effect([1, 1, 0, 0], [0, 0, 1, 1])
    2.0
    >>> design_effect([1, 0, 0, 0], [0, 1, 2, 3])
    1.0
    """
    v = np.asarray(y, dtype=np.float64)
    n = v.size
    if n == 0:
        return 1.0
    m = float(v.mean())
    squares = v - m
    np.multiply(squares, squares, out=squares)  # (v - m) ** 2, squared where it is
    plain = float(np.mean(squares)) / n
    del squares
    if plain <= 0.0:
        return 1.0
    return max(1.0, clustered_variance(v, groups) / plain)


def newcombe_lower(k1: float, n1: float, k0: float, n0: float, *, z: float) -> float:
    """Lower end of Newcombe's hybrid score interval for p1 - p0 (k1 of n1 against k0 of n0) at critical value
    ``z``; counts and sizes may be effective (fractional) numbers.

    L = p1 - p0 - sqrt((p1 - l1)^2 + (u0 - p0)^2), with l1 the lower Wilson bound of p1 and u0 the upper one of p0.

    >>> round(newcombe_lower(30, 1000, 1, 1000, z=2.394), 4)
    0.0166
    >>> newcombe_lower(1, 1000, 1, 1000, z=2.394) < 0
    True
    """
    p1 = k1 / n1 if n1 > 0 else 0.0
    p0 = k0 / n0 if n0 > 0 else 0.0
    l1, _ = wilson_bounds(p1, n1, z)
    _, u0 = wilson_bounds(p0, n0, z)
    return p1 - p0 - math.sqrt((p1 - l1) ** 2 + (u0 - p0) ** 2)


def newcombe_upper(k1: float, n1: float, k0: float, n0: float, *, z: float) -> float:
    """Upper end of Newcombe's hybrid score interval for p1 - p0 (the partner of :func:`newcombe_lower`): the risky
    end a copy check must bring inside its low band to rule a risk out.

    U = p1 - p0 + sqrt((u1 - p1)^2 + (p0 - l0)^2), with u1 the upper Wilson bound of p1 and l0 the lower one of p0.

    >>> round(newcombe_upper(0, 1000, 0, 1000, z=2.45), 4)  # no copies on either side: at most 0.6 points more
    0.006
    >>> round(newcombe_upper(30, 1000, 1, 1000, z=2.394), 4)
    0.0449
    """
    p1 = k1 / n1 if n1 > 0 else 0.0
    p0 = k0 / n0 if n0 > 0 else 0.0
    _, u1 = wilson_bounds(p1, n1, z)
    l0, _ = wilson_bounds(p0, n0, z)
    return p1 - p0 + math.sqrt((u1 - p1) ** 2 + (p0 - l0) ** 2)


def excess_share(flags: ArrayLike, baseline: ArrayLike, *, alpha: float,
                 flag_groups: ArrayLike | None = None, baseline_groups: ArrayLike | None = None) -> dict[str, float]:
    """Compare a synthetic share with its baseline share, both sides' uncertainty counted.

    Parameters
    ----------
    flags : bool array (n1,)
        Per synthetic record: is it flagged (a copy, a near copy)?
    baseline : bool array (n0,)
        The same flag for each baseline record (holdout records against the training data, or training records
        against the other training records).
    alpha : float
        One-sided level of the comparison.
    flag_groups, baseline_groups : int arrays, optional
        Groups of records whose flags are not independent (e.g. identical training records flag one another);
        their design effect shrinks that side to its effective number of records.

    Returns
    -------
    dict
        ``share``, ``baseline_share``, ``excess`` (the difference), ``excess_lower`` (lower end of Newcombe's
        hybrid score interval at one-sided level ``alpha``, on effective sizes), ``n``, ``n_baseline``,
        ``deff``, ``deff_baseline``, ``alpha``.

    >>> r = excess_share([True] * 3 + [False] * 97, [False] * 100, alpha=0.05)
    >>> r["excess"], r["excess_lower"] > 0
    (0.03, False)
    """
    f = np.asarray(flags, dtype=bool)
    b = np.asarray(baseline, dtype=bool)
    d1 = 1.0 if flag_groups is None else design_effect(f, flag_groups)
    d0 = 1.0 if baseline_groups is None else design_effect(b, baseline_groups)
    n1, n0 = f.size / d1, b.size / d0
    p1 = float(f.mean()) if f.size else float("nan")
    p0 = float(b.mean()) if b.size else float("nan")
    lower = newcombe_lower(p1 * n1, n1, p0 * n0, n0, z=z_of(alpha)) if f.size and b.size else float("nan")
    return {"share": p1, "baseline_share": p0, "excess": p1 - p0, "excess_lower": lower, "n": int(f.size),
            "n_baseline": int(b.size), "deff": d1, "deff_baseline": d0, "alpha": float(alpha)}


def share_bounds(y: ArrayLike, groups: ArrayLike | None, *, alpha: float) -> dict[str, float]:
    """One-sided bounds of a share of per-record outcomes (1, 0.5 for a tie, 0), Wilson's at the effective number
    of records (the design effect of ``groups``), each at level ``alpha``.

    >>> r = share_bounds([1, 1, 0, 0, 1, 0, 1, 0], None, alpha=0.025)
    >>> round(r["lower"], 4), round(r["upper"], 4), r["deff"]
    (0.2152, 0.7848, 1.0)
    """
    v = np.asarray(y, dtype=np.float64)
    d = 1.0 if groups is None else design_effect(v, groups)
    p = float(v.mean()) if v.size else float("nan")
    lo, hi = wilson_bounds(p, v.size / d, z_of(alpha))
    return {"share": p, "lower": lo, "upper": hi, "deff": d, "n_effective": v.size / d, "alpha": float(alpha)}


def difference_bounds(a: ArrayLike, a_groups: ArrayLike, b: ArrayLike, b_groups: ArrayLike, *,
                      alpha: float) -> dict[str, float]:
    """Normal bounds of mean(b) - mean(a) for two indicator arrays over the same records, each clustered in its
    own groups; their variances are added (the covariance of the two, positive when they share records, is left
    out, which widens the interval). Each side's variance is at least the binomial variance at the two arrays'
    pooled mean: with few records a cluster-robust estimate can come out near 0 (all indicators of one side
    equal), which would make a chance difference look certain.

    >>> r = difference_bounds([0, 0, 1, 0], [0, 1, 2, 3], [1, 1, 1, 0], [0, 1, 2, 3], alpha=0.05)
    >>> r["difference"], round(r["lower"], 3)
    (0.5, -0.082)
    """
    va = np.asarray(a, dtype=np.float64)
    vb = np.asarray(b, dtype=np.float64)
    diff = float(vb.mean() - va.mean())
    pooled = float(np.concatenate([va, vb]).mean())
    floor_a = pooled * (1.0 - pooled) / va.size
    floor_b = pooled * (1.0 - pooled) / vb.size
    se = math.sqrt(max(clustered_variance(va, a_groups), floor_a) + max(clustered_variance(vb, b_groups), floor_b))
    z = z_of(alpha)
    return {"difference": diff, "lower": diff - z * se, "upper": diff + z * se, "se": se, "alpha": float(alpha)}

