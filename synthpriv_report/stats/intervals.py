"""Intervals and tests on proportions: the Wilson score interval, the exact one-sided binomial test, percentile
intervals of bootstrap replicates, and round-half-up for counts that include half-counted ties.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

WILSON_Z = 1.959964


def wilson(p_hat: float, n: int, *, z: float = WILSON_Z) -> tuple[float, float]:
    """Wilson score interval for a proportion ``p_hat`` (halves allowed) over ``n`` trials.

    The ends are exact, not only up to rounding: the lower bound is 0 when ``p_hat == 0``, the upper bound is 1
    when ``p_hat == 1``, and ``lower <= p_hat <= upper`` always holds. (In floating point the closed form gives
    about 1e-18 instead of 0 at ``p_hat = 0`` for some ``n``, which would make "the lower bound exceeds a share
    of 0" true for a set with no copy at all.)

    >>> lo, hi = wilson(0.5, 100); round(lo, 4), round(hi, 4)
    (0.4038, 0.5962)
    >>> wilson(0.0, 69)[0], wilson(1.0, 69)[1]
    (0.0, 1.0)
    """
    if n <= 0:
        return (float("nan"), float("nan"))
    p = float(p_hat)
    if not math.isfinite(p):
        return (float("nan"), float("nan"))
    p = min(1.0, max(0.0, p))
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1.0 - p) / n + z * z / (4 * n * n), 0.0)) / denom
    lo = 0.0 if p == 0.0 else min(p, max(0.0, centre - half))
    hi = 1.0 if p == 1.0 else max(p, min(1.0, centre + half))
    return (lo, hi)


def round_half_up(x: float) -> int:
    """Round half up: ``round_half_up(2.5) == 3`` (Python's round would give 2).

    >>> round_half_up(2.5), round_half_up(2.4)
    (3, 2)
    """
    return int(math.floor(x + 0.5))


def binomial_p_greater(k: int, n: int, p: float = 0.5) -> float:
    """Exact one-sided binomial p-value P(X >= k), X ~ Bin(n, p).

    >>> round(binomial_p_greater(8, 10), 4)
    0.0547
    """
    from scipy.stats import binom

    if k <= 0:
        return 1.0
    return float(binom.sf(k - 1, n, p))


def percentile_interval(replicates: ArrayLike, confidence: float = 0.95) -> tuple[float, float]:
    """Percentile interval of bootstrap replicates (non-finite replicates dropped).

    >>> [round(v, 6) for v in percentile_interval(np.arange(101.0))]
    [2.5, 97.5]
    """
    r = np.asarray(replicates, dtype=np.float64)
    r = r[np.isfinite(r)]
    if r.size == 0:
        return (float("nan"), float("nan"))
    a = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(r, [a, 1.0 - a])
    return (float(lo), float(hi))
