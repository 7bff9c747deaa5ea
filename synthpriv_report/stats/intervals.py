"""Intervals and tests on proportions: the Wilson score interval, the exact one-sided binomial test, percentile
intervals of bootstrap replicates, and round-half-up for counts that include half-counted ties.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

WILSON_Z = 1.959964


def wilson_centre_half(p_hat: float, n: float, z: float) -> tuple[float, float]:
    """The centre and half-width of the Wilson score interval of a proportion ``p_hat`` over ``n > 0`` trials (a
    possibly fractional, effective number) at critical value ``z``: the one formula behind :func:`wilson`,
    :func:`synthpriv_report.stats.evidence.wilson_bounds` and the criteria's rates (:func:`wilson_score_counts`).

    >>> c, h = wilson_centre_half(0.5, 100, WILSON_Z); round(c - h, 4), round(c + h, 4)
    (0.4038, 0.5962)
    """
    denom = 1.0 + z * z / n
    centre = (p_hat + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(p_hat * (1.0 - p_hat) / n + z * z / (4 * n * n), 0.0)) / denom
    return centre, half


def wilson_score_counts(successes: float, n: int, z: float) -> tuple[float, float]:
    """:func:`wilson_centre_half` of ``successes`` out of ``n``, written over the counts as anonymeter writes it
    (``(k + z²/2) / (n + z²)`` and ``z / (n + z²) sqrt(k (n - k) / n + z²/4)``), so that the criteria's rates
    equal anonymeter's to the last bit; algebraically the same interval.

    >>> c, h = wilson_score_counts(50, 100, WILSON_Z); round(c - h, 4), round(c + h, 4)
    (0.4038, 0.5962)
    """
    z2 = z * z
    centre = (successes + z2 / 2.0) / (n + z2)
    half = z / (n + z2) * math.sqrt(successes * (n - successes) / n + z2 / 4.0)
    return centre, half


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
    centre, half = wilson_centre_half(p, n, z)
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


def clopper_pearson(k: int, n: int, *, confidence: float = 0.95, sided: str = "two") -> tuple[float, float]:
    """Exact (Clopper-Pearson) interval of a proportion of ``k`` successes in ``n`` trials.

    C. J. Clopper, E. S. Pearson, "The use of confidence or fiducial limits illustrated in the case of the
    binomial", Biometrika 26 (1934): the ends are Beta quantiles, ``Beta(a/2; k, n - k + 1)`` and
    ``Beta(1 - a/2; k + 1, n - k)`` with ``a = 1 - confidence``; the lower end is 0 at ``k = 0`` and the upper 1
    at ``k = n``. With ``sided="one"`` each end is a one-sided bound at ``confidence`` (``a`` instead of ``a/2``).

    Parameters
    ----------
    k, n : int
        Successes and trials, ``0 <= k <= n``.
    confidence : float, default 0.95
    sided : {"two", "one"}

    Returns
    -------
    (float, float)
        ``(nan, nan)`` when ``n`` is 0.

    Examples
    --------
    With no success in 10 trials the two-sided 95% upper end is ``1 - 0.025 ** (1/10)``:

    >>> lo, hi = clopper_pearson(0, 10); lo, round(hi, 6), round(1 - 0.025 ** 0.1, 6)
    (0.0, 0.308497, 0.308497)
    >>> [round(v, 4) for v in clopper_pearson(5, 10)]
    [0.1871, 0.8129]
    """
    k, n = int(k), int(n)
    if n <= 0:
        return (float("nan"), float("nan"))
    if not 0 <= k <= n:
        raise ValueError(f"k must be in [0, n], got k={k}, n={n}")
    a = 1.0 - float(confidence)
    tail = a / 2.0 if sided == "two" else a
    lo = 0.0 if k == 0 else beta_quantile(tail, k, n - k + 1)
    hi = 1.0 if k == n else beta_quantile(1.0 - tail, k + 1, n - k)
    return (min(lo, k / n), max(hi, k / n))


def beta_quantile(q: float, a: float, b: float) -> float:
    """The ``q`` quantile of the Beta(``a``, ``b``) law.

    SciPy's inverse of the regularised incomplete beta function (``scipy.special.betaincinv``, the function behind
    ``scipy.stats.beta.ppf``, whose answers it gives bit for bit without building a distribution object each
    call), checked: where its root finder gives up (some builds, WebAssembly's among them, warn "... iterations,
    giving up now" for large ``a`` and ``b``) or its answer does not give back ``q``, the quantile is found by
    bisection on the regularised incomplete beta function, which is monotone, to the last bit.

    >>> round(beta_quantile(0.025, 5, 6), 4), round(beta_quantile(0.975, 6, 5), 4)  # clopper_pearson(5, 10)
    (0.1871, 0.8129)
    """
    import warnings

    from scipy.special import betainc, betaincinv

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x = float(betaincinv(a, b, q))
    if not caught and math.isfinite(x) and abs(float(betainc(a, b, x)) - q) <= 1e-9 * max(q, 1.0 - q, 1e-300):
        return x
    return _beta_bisection(q, a, b)


def _beta_bisection(q: float, a: float, b: float) -> float:
    """The smallest ``x`` with ``I_x(a, b) >= q``, by bisection to adjacent floating-point numbers."""
    from scipy.special import betainc

    lo, hi = 0.0, 1.0
    for _ in range(2000):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if float(betainc(a, b, mid)) < q:
            lo = mid
        else:
            hi = mid
    return hi


def exceedance_quantile(n_members: int, n_nonmembers: int, allowed: int, alpha: float) -> int:
    """How many of ``n_members`` scores chance alone puts above a threshold that ``allowed`` of
    ``n_nonmembers`` scores exceed, at level ``alpha``: the smallest ``q`` with ``P(M > q) <= alpha``.

    When members and non-members are exchangeable (an attack no better than chance), the share of the score
    distribution above the ``(allowed + 1)``-th largest non-member score is ``Beta(allowed + 1, n_nonmembers -
    allowed)``, so the number ``M`` of members above it is beta-binomial ``BB(n_members, allowed + 1,
    n_nonmembers - allowed)`` (the exceedance statistic of order statistics; H. A. David, H. N. Nagaraja, "Order
    Statistics", 3rd ed., Wiley 2003, section 2.5). Flagging only members strictly above a tied threshold makes
    ``M`` smaller, so the test stays valid under ties.

    Examples
    --------
    With 10 members, 9 non-members and no non-member allowed above the threshold, ``M >= m`` means that the
    ``m`` highest of the 19 pooled scores are all members, with probability ``C(10, m) / C(19, m)``:
    ``P(M >= 4) = 210 / 3876 = 0.054`` and ``P(M >= 5) = 252 / 11628 = 0.022``, so chance allows 4 at 5%:

    >>> exceedance_quantile(10, 9, 0, 0.05)
    4
    """
    n_m, n_n, k = int(n_members), int(n_nonmembers), int(allowed)
    if k >= n_n:
        return n_m
    dist = _BetaBinomial(n_m, k + 1, n_n - k)
    if dist.sf(0) <= alpha:
        return 0
    lo, hi = 0, 1  # sf(lo) > alpha; doubling reads the tail only as far as the answer needs
    while dist.sf(hi) > alpha:
        lo, hi = hi, min(2 * hi, n_m)  # sf(n_m) is 0
    while hi - lo > 1:  # sf(lo) > alpha >= sf(hi)
        mid = (lo + hi) // 2
        if dist.sf(mid) <= alpha:
            hi = mid
        else:
            lo = mid
    return hi


def exceedance_p_value(flagged: int, n_members: int, n_nonmembers: int, allowed: int) -> float:
    """``P(M >= flagged)`` for the beta-binomial ``M`` of :func:`exceedance_quantile`: the exact one-sided
    p-value of "the attack flags more members than chance would".

    >>> round(exceedance_p_value(3, 10, 9, 0), 4), round(120 / 969, 4)  # C(10, 3) / C(19, 3)
    (0.1238, 0.1238)
    """
    n_m, n_n, k = int(n_members), int(n_nonmembers), int(allowed)
    if flagged <= 0 or k >= n_n:
        return 1.0
    return _BetaBinomial(n_m, k + 1, n_n - k).sf(int(flagged) - 1)


class _BetaBinomial:
    """The survival function of the beta-binomial law ``BB(n, a, b)``, as SciPy's ``betabinom(n, a, b).sf`` gives
    it bit for bit (one minus the sum of the probabilities from 0 to ``k``, each from the same log-beta formula),
    without building a distribution object per call; the probabilities are computed once, as far as asked.
    """

    def __init__(self, n: int, a: float, b: float) -> None:
        self.n, self.a, self.b = int(n), float(a), float(b)
        self._pmf = np.empty(0)

    def _upto(self, k: int) -> np.ndarray:
        if self._pmf.size < k + 1:
            from scipy.special import betaln

            m = np.arange(0.0, float(k) + 1.0)
            n, a, b = float(self.n), self.a, self.b
            log_choose = -np.log(n + 1) - betaln(n - m + 1, m + 1)
            self._pmf = np.exp(log_choose + betaln(m + a, n - m + b) - betaln(a, b))
        return self._pmf[: k + 1]

    def sf(self, k: int) -> float:
        """``P(X > k)``."""
        k = int(k)
        if k < 0:
            return 1.0
        if k >= self.n:
            return 0.0
        return float(np.clip(1.0 - np.sum(self._upto(k)), 0.0, 1.0))


def epsilon_lower_bound(tpr_low: float, fpr_high: float, *, delta: float = 0.0) -> float:
    """The ε that a test with true-positive rate at least ``tpr_low`` and false-positive rate at most
    ``fpr_high`` proves for an (ε, δ)-differentially private mechanism (0 when it proves none).

    Every test of an (ε, δ)-DP mechanism satisfies ``TPR <= e^ε FPR + δ`` and ``1 - FPR <= e^ε (1 - TPR) + δ``
    (P. Kairouz, S. Oh, P. Viswanath, "The Composition Theorem for Differential Privacy", ICML 2015), hence
    ``ε >= max(log((TPR - δ) / FPR), log((1 - FPR - δ) / (1 - TPR)))``, evaluated at the conservative ends of
    confidence intervals (M. Jagielski, J. Ullman, A. Oprea, "Auditing Differentially Private Machine Learning:
    How Private is Private SGD?", NeurIPS 2020).

    Examples
    --------
    >>> round(epsilon_lower_bound(0.5, 0.05), 4), round(float(np.log(10.0)), 4)
    (2.3026, 2.3026)
    >>> epsilon_lower_bound(0.01, 0.02)
    0.0
    """
    t, f, d = float(tpr_low), float(fpr_high), float(delta)
    best = 0.0
    if t - d > 0 and f > 0:
        best = max(best, math.log((t - d) / f))
    elif t - d > 0 and f == 0:
        return math.inf
    if 1.0 - f - d > 0 and 1.0 - t > 0:
        best = max(best, math.log((1.0 - f - d) / (1.0 - t)))
    return best
