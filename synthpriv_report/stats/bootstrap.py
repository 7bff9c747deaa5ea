"""Resampling over records: bootstrap replicates and percentile intervals of means, quantiles, ratios of sums and
paired medians, each in a plain scheme (record positions drawn with replacement) and a scheme whose time does not
grow with the number of records; and the sorted subsample drawn without replacement.

All functions are pure; every random draw takes ``random_state`` (or a ``numpy.random.Generator``). The draws of
a bootstrap never depend on the values resampled, only on how many there are and on the seed: a
:class:`ResamplePlans` passed as ``plans=`` keeps them, so bootstraps of as many values with the same seed draw once
and give the same replicates as drawing afresh.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .intervals import percentile_interval

#: Sets of more finite values than this are bootstrapped by the grouped scheme (:func:`grouped_resamples`).
GROUPED_MIN_N = 20_000
#: Groups of consecutive ranks in the grouped scheme.
GROUPS = 1024


@dataclass(frozen=True)
class ResamplePlan:
    """The random draws of one bootstrap of ``n`` sorted values (the grouped or the records scheme): everything
    it draws, none of the values. Applied to any ``n`` sorted values it gives the replicates that scheme gives
    them with the same stream (the scheme and ``n`` are in the key it is kept under, :class:`ResamplePlans`)."""

    n_resamples: int
    n_quantiles: int
    chunks: list[tuple[Any, ...]]
    bounds: NDArray[np.int64] | None

    @property
    def nbytes(self) -> int:
        """Bytes held by the plan's arrays."""
        total = 0 if self.bounds is None else int(self.bounds.nbytes)
        for _, _, counts, z, picks in self.chunks:
            total += int(counts.nbytes) + (0 if z is None else int(z.nbytes))
            total += sum(int(a.nbytes) for lo, hi, _ in picks for a in (lo, hi) if a is not None)
        return total


class ResamplePlans:
    """Bootstrap draws kept for reuse, by scheme, number of values, number of resamples, quantiles and seed.

    The draws of a bootstrap do not depend on the values resampled, only on how many there are and on the
    seed, so every bootstrap of an evaluation with the same seed over the same number of values (the synthetic
    records' distances in several spaces, or several releases of one size in a comparison) uses one set of draws
    and only reads the values again: the same replicates, bit for bit, as drawing afresh. At most
    ``max_bytes`` of draws are kept; a plan that would exceed it is used once and not kept.
    """

    def __init__(self, max_bytes: int = 256 << 20) -> None:
        self.max_bytes = int(max_bytes)
        self._plans: dict[tuple[Any, ...], ResamplePlan] = {}
        self._bytes = 0
        self._lock = threading.Lock()
        #: How many bootstraps used draws kept from an earlier one.
        self.reused = 0

    def get(self, key: tuple[Any, ...], make: Callable[[], ResamplePlan]) -> ResamplePlan:
        """The plan kept under ``key``, else ``make()`` (kept while the budget allows)."""
        with self._lock:
            plan = self._plans.get(key)
            if plan is not None:
                self.reused += 1
                return plan
        plan = make()
        size = plan.nbytes
        with self._lock:
            if key not in self._plans and self._bytes + size <= self.max_bytes:
                self._plans[key] = plan
                self._bytes += size
        return plan

    def __len__(self) -> int:
        return len(self._plans)


def _quantile_ranks(n: int, q: float) -> tuple[int, int, float]:
    """The two 0-based ranks and the weight of numpy's linear-interpolation quantile ``q`` of ``n`` values."""
    h = (n - 1) * q
    lo_rank = int(math.floor(h))
    return lo_rank, min(lo_rank + 1, n - 1), h - lo_rank


def _method(method: str, n: int) -> str:
    if method not in ("auto", "records", "grouped"):
        raise ValueError(f"method must be 'auto', 'records' or 'grouped', got {method!r}")
    if method == "auto":
        return "grouped" if n > GROUPED_MIN_N else "records"
    return method


def grouped_resamples(
    v: NDArray[np.float64],
    quantiles: tuple[float, ...],
    *,
    n_resamples: int,
    rng: np.random.Generator,
    groups: int = GROUPS,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Bootstrap replicates of the mean and of quantiles of sorted values, in time independent of ``n``.

    The plain bootstrap draws ``n`` records with replacement. This scheme draws the same resamples in two steps:
    the sorted values are cut into ``groups`` runs of consecutive ranks (sizes ``n_g`` as equal as possible);
    how many of the ``n`` draws fall in each run is one multinomial draw ``C ~ Multinomial(n, n_g / n)``, exactly
    as in the plain bootstrap. Then

    - **quantiles are exact**: the resample's value at rank ``r`` lies in the run where the cumulative count first
      exceeds ``r``, at within-run rank ``r'``; the ``r'``-th smallest of ``C_g`` uniform draws from the run's
      ``n_g`` sorted values is ``v[floor(n_g U)]`` with ``U ~ Beta(r' + 1, C_g - r')`` (order statistics of
      uniforms), and the next rank is the next order statistic (``U + (1 - U) Beta(1, C_g - r' - 1)``) or the
      smallest draw of the next non-empty run (``Beta(1, C_g)``), so the plain bootstrap's distribution of a
      quantile with linear interpolation is reproduced exactly;
    - **the mean has the exact conditional mean and variance**: ``sum_g C_g m_g / n`` plus a normal term of
      variance ``sum_g C_g s_g^2 / n^2`` (``m_g``, ``s_g^2``: the run's mean and variance), the sum of the
      within-run draws replaced by its normal limit (each run holds about ``n / groups`` draws).

    With ``groups >= n`` every run is one value and the scheme *is* the plain bootstrap. Cost:
    ``O(n_resamples * groups)``, against ``O(n_resamples * n)`` for drawing records.

    Parameters
    ----------
    v : ndarray of shape (n,)
        Sorted finite values.
    quantiles : tuple of float
        Quantiles wanted (linear interpolation, numpy's default).
    n_resamples : int
        Number of bootstrap resamples.
    rng : numpy.random.Generator
        The random stream (multinomial counts, then normals, then betas).
    groups : int, default 1024
        Runs of consecutive ranks.

    Returns
    -------
    means : ndarray of shape (n_resamples,)
    qvals : ndarray of shape (n_resamples, len(quantiles))

    >>> v = np.sort(np.random.default_rng(0).exponential(size=50_000))
    >>> means, q = grouped_resamples(v, (0.5,), n_resamples=200, rng=np.random.default_rng(1))
    >>> bool(abs(means.mean() - v.mean()) < 0.01), bool(abs(np.median(q) - np.median(v)) < 0.02)
    (True, True)
    """
    return _grouped_apply(v, _grouped_plan(int(v.shape[0]), tuple(quantiles), int(n_resamples), rng, groups))


def _grouped_plan(n: int, quantiles: tuple[float, ...], n_resamples: int, rng: np.random.Generator,
                  groups: int = GROUPS) -> ResamplePlan:
    """The random draws of :func:`grouped_resamples` for ``n`` values, in its order: they depend on ``n``, the
    quantiles, the number of resamples and the stream, never on the values. Each chunk keeps its multinomial
    counts, its normals and, per quantile, the positions of the two order statistics and the interpolation
    weight."""
    m = max(1, min(int(groups), n))
    bounds = (np.arange(m + 1, dtype=np.int64) * n) // m
    sizes = np.diff(bounds)
    B = int(n_resamples)
    chunks: list[tuple[Any, ...]] = []
    chunk = max(1, min(B, 4_000_000 // m))
    for start in range(0, B, chunk):
        b = min(chunk, B - start)
        counts = rng.multinomial(n, sizes / n, size=b)
        z = rng.standard_normal(b)
        cum = np.cumsum(counts, axis=1)
        rows = np.arange(b)
        picks: list[tuple[Any, Any, float]] = []
        for q in quantiles:
            lo_rank, hi_rank, frac = _quantile_ranks(n, q)
            g = (cum <= lo_rank).sum(axis=1)
            c = counts[rows, g]
            r_in = lo_rank - (cum[rows, g] - c)
            u = rng.beta(r_in + 1.0, (c - r_in).astype(np.float64))
            lo_pos = bounds[g] + np.minimum((u * sizes[g]).astype(np.int64), sizes[g] - 1)
            if hi_rank == lo_rank:
                picks.append((lo_pos, None, frac))
                continue
            same = r_in + 1 < c
            # next order statistic within the run, or the smallest draw of the next non-empty run
            g2 = np.where(same, g, (cum <= hi_rank).sum(axis=1))
            c2 = counts[rows, g2]
            nxt = rng.beta(1.0, np.where(same, c - r_in - 1, c2).astype(np.float64))
            u2 = np.where(same, u + (1.0 - u) * nxt, nxt)
            picks.append((lo_pos, bounds[g2] + np.minimum((u2 * sizes[g2]).astype(np.int64), sizes[g2] - 1), frac))
        chunks.append((start, b, counts, z, picks))
    return ResamplePlan(B, len(quantiles), chunks, bounds)


def _grouped_apply(v: NDArray[np.float64], plan: ResamplePlan) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """:func:`grouped_resamples` of the sorted values ``v`` from the draws of ``plan``."""
    n = int(v.shape[0])
    bounds = plan.bounds
    assert bounds is not None  # the grouped scheme's plans carry the runs' bounds
    sizes = np.diff(bounds)
    csum, csq = _sums_at(v, bounds)  # the running sums at the runs' bounds only
    gmean = (csum[1:] - csum[:-1]) / sizes
    # within-run variance around the run mean: E[(v - mu)^2] - (m_g - mu)^2
    gvar = np.maximum((csq[1:] - csq[:-1]) / sizes - (gmean - v.mean()) ** 2, 0.0)
    means = np.empty(plan.n_resamples)
    qvals = np.empty((plan.n_resamples, plan.n_quantiles))
    for start, b, counts, z, picks in plan.chunks:
        sd = np.sqrt(counts @ gvar)
        means[start:start + b] = (counts @ gmean + sd * z) / n
        for j, (lo_pos, hi_pos, frac) in enumerate(picks):
            lo_val = v[lo_pos]
            qvals[start:start + b, j] = lo_val if hi_pos is None else lo_val + frac * (v[hi_pos] - lo_val)
    return means, qvals


#: Values per block of the running sums of :func:`_sums_at`.
_SUM_BLOCK = 1 << 20


def _sums_at(v: NDArray[np.float64], bounds: NDArray[np.int64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``concatenate([[0], cumsum(v)])[bounds]`` and the same of ``(v - v.mean()) ** 2``, bit for bit, made a
    block of :data:`_SUM_BLOCK` values at a time (each block's running sum continues from the last one's, the
    order of the additions of one ``cumsum`` over the whole array), so that no array of ``n`` sums is made.

    >>> v = np.random.default_rng(0).exponential(size=3_000_001)
    >>> b = np.array([0, 5, 1_048_576, 1_048_577, 2_500_000, 3_000_001])
    >>> s, q = _sums_at(v, b)
    >>> whole = np.concatenate([[0.0], np.cumsum(v)])[b]
    >>> sq = np.concatenate([[0.0], np.cumsum((v - v.mean()) ** 2)])[b]
    >>> same = lambda a, b: bool(np.array_equal(a.view(np.int64), b.view(np.int64)))
    >>> same(s, whole) and same(q, sq)
    True
    """
    n = int(v.shape[0])
    mean = v.mean()
    out_s = np.zeros(bounds.shape[0])
    out_q = np.zeros(bounds.shape[0])
    ends = bounds - 1  # a bound b > 0 reads the running sum of v[:b], which ends at position b - 1
    carry_s = carry_q = None
    for a in range(0, n, _SUM_BLOCK):
        e = min(n, a + _SUM_BLOCK)
        block = v[a:e]
        sq = (block - mean) ** 2
        if carry_s is None:
            rs, rq = np.cumsum(block), np.cumsum(sq)
        else:  # continue the one running sum: the carry is the first addend, as in a cumsum of the whole array
            rs = np.cumsum(np.concatenate([[carry_s], block]))[1:]
            rq = np.cumsum(np.concatenate([[carry_q], sq]))[1:]
        at = np.flatnonzero((ends >= a) & (ends < e))
        out_s[at], out_q[at] = rs[ends[at] - a], rq[ends[at] - a]
        carry_s, carry_q = rs[-1], rq[-1]
    return out_s, out_q


def _records_resamples(v: NDArray[np.float64], quantiles: tuple[float, ...], *, n_resamples: int,
                       rng: np.random.Generator) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The plain bootstrap: ``n`` record positions drawn with replacement per resample (chunks of 2e6 draws);
    statistics from the resample's counts over the sorted values, so no resample is ever sorted."""
    return _records_apply(v, _records_plan(int(v.shape[0]), quantiles, n_resamples, rng))


def _records_plan(n: int, quantiles: tuple[float, ...], n_resamples: int,
                  rng: np.random.Generator) -> ResamplePlan:
    """The random draws of :func:`_records_resamples` for ``n`` values, in its order: per chunk the resamples'
    counts of each rank (in the smallest unsigned type that holds ``n``) and, per quantile, the ranks read and the
    interpolation weight. They depend on ``n``, the quantiles, the number of resamples and the stream only."""
    small = np.min_scalar_type(max(n, 1))
    chunks: list[tuple[Any, ...]] = []
    chunk = max(1, min(n_resamples, 2_000_000 // max(n, 1)))
    done = 0
    while done < n_resamples:
        b = min(chunk, n_resamples - done)
        draws = rng.integers(0, n, size=(b, n))
        counts = np.zeros((b, n), dtype=np.int64)
        for r in range(b):
            counts[r] = np.bincount(draws[r].astype(np.intp), minlength=n)  # 32-bit platforms: intp
        picks: list[tuple[Any, Any, float]] = []
        if quantiles:
            cum = np.cumsum(counts, axis=1)
            for q in quantiles:
                lo_rank, hi_rank, frac = _quantile_ranks(n, q)
                # value at rank r (0-based) of the resample = v[first index whose cumulative count > r]
                picks.append(((cum <= lo_rank).sum(axis=1), (cum <= hi_rank).sum(axis=1), frac))
        chunks.append((done, b, counts.astype(small), None, picks))
        done += b
    return ResamplePlan(n_resamples, len(quantiles), chunks, None)


def _records_apply(v: NDArray[np.float64], plan: ResamplePlan) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """:func:`_records_resamples` of the sorted values ``v`` from the draws of ``plan``."""
    n = int(v.shape[0])
    means = np.empty(plan.n_resamples)
    qvals = np.empty((plan.n_resamples, plan.n_quantiles))
    for done, b, counts, _, picks in plan.chunks:
        means[done:done + b] = counts.astype(np.int64) @ v / n
        for qi, (lo_idx, hi_idx, frac) in enumerate(picks):
            qvals[done:done + b, qi] = v[lo_idx] + frac * (v[hi_idx] - v[lo_idx])
    return means, qvals


def resample_stats(x: ArrayLike, quantiles: tuple[float, ...] = (), *, n_resamples: int = 1000,
                   random_state: int | None = None, method: str = "auto",
                   plans: ResamplePlans | None = None) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Bootstrap replicates of the mean and of the given quantiles of the finite values of ``x``.

    ``method="records"`` is the plain bootstrap (record positions drawn with replacement from
    ``default_rng(random_state)``); ``"grouped"`` is :func:`grouped_resamples`, the same resampling drawn run by
    run in time independent of ``n``; ``"auto"`` (default) takes ``"grouped"`` above
    :data:`GROUPED_MIN_N` finite values. ``plans``: where draws are kept for reuse (:class:`ResamplePlans`; only
    with an integer ``random_state``); the replicates are the same with or without.

    Returns
    -------
    means : ndarray of shape (n_resamples,)
    qvals : ndarray of shape (n_resamples, len(quantiles))

    >>> means, q = resample_stats([1.0, 2.0, 3.0], (0.5,), n_resamples=4, random_state=0)
    >>> means.shape, q.shape
    ((4,), (4, 1))
    """
    v = np.sort(np.asarray(x, dtype=np.float64).reshape(-1))
    # the finite values: a slice of the sorted ones (-inf sorts first, +inf and NaN last), not a copy
    v = v[np.searchsorted(v, -np.inf, side="right"):np.searchsorted(v, np.inf, side="left")]
    n = int(v.shape[0])
    how = _method(method, n)
    if n == 0:
        return np.full(n_resamples, np.nan), np.full((n_resamples, len(quantiles)), np.nan)
    quantiles = tuple(float(q) for q in quantiles)
    apply = _grouped_apply if how == "grouped" else _records_apply

    def plan() -> ResamplePlan:
        rng = np.random.default_rng(random_state)
        if how == "grouped":
            return _grouped_plan(n, quantiles, int(n_resamples), rng)
        return _records_plan(n, quantiles, int(n_resamples), rng)

    if plans is None or not isinstance(random_state, (int, np.integer)) or isinstance(random_state, bool):
        return apply(v, plan())
    return apply(v, plans.get((how, n, int(n_resamples), quantiles, int(random_state), GROUPS), plan))


def bootstrap_stats(
    x: ArrayLike,
    *,
    n_resamples: int = 1000,
    random_state: int | None = None,
    quantiles: tuple[float, ...] = (0.5, 0.05),
    confidence: float = 0.95,
    method: str = "auto",
    plans: ResamplePlans | None = None,
) -> dict[str, tuple[float, float]]:
    """Percentile bootstrap intervals over records for the mean and the given quantiles.

    Each resample draws ``n`` record positions with replacement from ``default_rng(random_state)``; statistics
    are computed from the resample's counts over the sorted values (linear interpolation, numpy's default), so no
    resample is ever sorted. Non-finite values are dropped first. Above :data:`GROUPED_MIN_N` values the same
    resampling is drawn by the grouped scheme (:func:`grouped_resamples`: quantiles exact in distribution, the
    mean exact in conditional mean and variance) in time independent of ``n``; ``method`` forces one scheme;
    ``plans`` keeps the draws for reuse (:func:`resample_stats`).

    Returns
    -------
    dict
        ``{"mean": (lo, hi), "q0.5": (lo, hi), ...}``.

    >>> ci = bootstrap_stats([1.0, 2.0, 3.0, 4.0], n_resamples=200, random_state=0)
    >>> ci["mean"][0] <= 2.5 <= ci["mean"][1]
    True
    """
    keys = ["mean"] + [f"q{q:g}" for q in quantiles]
    means, qvals = resample_stats(x, tuple(quantiles), n_resamples=n_resamples, random_state=random_state,
                                  method=method, plans=plans)
    if not np.isfinite(means).any():
        return {k: (float("nan"), float("nan")) for k in keys}
    out = np.column_stack([means, qvals])
    a = (1.0 - confidence) / 2.0
    res = {}
    for j, k in enumerate(keys):
        lo, hi = np.quantile(out[:, j], [a, 1.0 - a])
        res[k] = (float(lo), float(hi))
    return res


def bootstrap_replicates(
    x: ArrayLike, *, statistic: str = "mean", n_resamples: int = 1000, random_state: int | None = None,
    method: str = "auto", plans: ResamplePlans | None = None,
) -> NDArray[np.float64]:
    """Bootstrap replicates of the mean or median of ``x`` (records resampled with replacement).

    Uses the same draws as :func:`bootstrap_stats` for the same ``random_state`` (and the grouped scheme above
    :data:`GROUPED_MIN_N` values, as there); ``plans`` keeps them for reuse (:func:`resample_stats`).

    >>> r = bootstrap_replicates([1.0, 2.0, 3.0], statistic="median", n_resamples=50, random_state=0)
    >>> r.shape, bool(((r >= 1) & (r <= 3)).all())
    ((50,), True)
    """
    if statistic not in ("mean", "median"):
        raise ValueError(f"statistic must be 'mean' or 'median', got {statistic!r}")
    means, qvals = resample_stats(x, (0.5,) if statistic == "median" else (), n_resamples=n_resamples,
                                  random_state=random_state, method=method, plans=plans)
    return means if statistic == "mean" else qvals[:, 0]


def grouped_sums(num: NDArray[np.float64], den: NDArray[np.float64], *, n_resamples: int,
                 rng: np.random.Generator, groups: int = GROUPS) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Bootstrap replicates of ``(sum(num), sum(den))`` over records, in time independent of ``n``.

    The records are cut into ``groups`` runs of consecutive positions; how many of the ``n`` draws fall in each
    run is one multinomial draw ``C ~ Multinomial(n, n_g / n)``, exactly as in the plain bootstrap; the sums of
    the ``C_g`` draws within each run are replaced by their normal limit with the exact conditional mean
    ``C_g (m1_g, m2_g)`` and covariance ``C_g Sigma_g`` (the run's means and covariance of ``num`` and ``den``).
    With ``groups >= n`` each run is one record and the replicates are those of the plain bootstrap.

    Returns
    -------
    num_sums, den_sums : ndarray of shape (n_resamples,)

    >>> x = np.random.default_rng(0).integers(0, 2, 50_000).astype(float)
    >>> a, b = grouped_sums(x, np.ones_like(x), n_resamples=100, rng=np.random.default_rng(1))
    >>> bool(abs((a / b).mean() - x.mean()) < 0.01), bool((b == 50_000).all())
    (True, True)
    """
    n = int(num.shape[0])
    m = max(1, min(int(groups), n))
    bounds = (np.arange(m + 1, dtype=np.int64) * n) // m
    sizes = np.diff(bounds).astype(np.float64)

    def run_sums(x: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.add.reduceat(x, bounds[:-1].astype(np.intp))  # platform-size indices (32-bit WebAssembly)

    m1, m2 = run_sums(num) / sizes, run_sums(den) / sizes
    ids = np.repeat(np.arange(m), np.diff(bounds))
    c1, c2 = num - m1[ids], den - m2[ids]
    v11, v22, v12 = run_sums(c1 * c1) / sizes, run_sums(c2 * c2) / sizes, run_sums(c1 * c2) / sizes
    B = int(n_resamples)
    out1, out2 = np.empty(B), np.empty(B)
    chunk = max(1, min(B, 4_000_000 // m))
    for start in range(0, B, chunk):
        b = min(chunk, B - start)
        counts = rng.multinomial(n, sizes / n, size=b).astype(np.float64)
        z = rng.standard_normal((b, 2))
        a11, a22, a12 = counts @ v11, counts @ v22, counts @ v12
        s11 = np.sqrt(a11)
        l21 = np.divide(a12, s11, out=np.zeros_like(a12), where=s11 > 0)
        l22 = np.sqrt(np.maximum(a22 - l21 * l21, 0.0))
        out1[start:start + b] = counts @ m1 + s11 * z[:, 0]
        out2[start:start + b] = counts @ m2 + l21 * z[:, 0] + l22 * z[:, 1]
    return out1, out2


def bootstrap_ratio(num: ArrayLike, den: ArrayLike, *, n_resamples: int = 1000,
                    random_state: int | None = None, confidence: float = 0.95,
                    method: str = "auto") -> tuple[float, float]:
    """Percentile bootstrap interval over records of ``sum(num) / sum(den)`` .

    Each resample draws ``n`` record positions with replacement from ``default_rng(random_state)``, in chunks
    of at most two million draws. With ``den`` all ones this is the bootstrap of the mean of ``num``; with
    entropy weights it is AIR's weighted mean. Resamples whose denominator is 0 are dropped. Above
    :data:`GROUPED_MIN_N` records the sums are drawn by :func:`grouped_sums` (``method`` forces one scheme).

    >>> lo, hi = bootstrap_ratio([1.0, 0.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0], n_resamples=200, random_state=0)
    >>> 0.0 <= lo <= 0.5 <= hi <= 1.0
    True
    """
    nv = np.asarray(num, dtype=np.float64)
    dv = np.asarray(den, dtype=np.float64)
    n = nv.shape[0]
    how = _method(method, n)
    if n == 0 or n_resamples < 1:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(random_state)
    if how == "grouped":
        nn, dd = grouped_sums(nv, dv, n_resamples=n_resamples, rng=rng)
        out = np.where(dd > 0, nn / np.where(dd > 0, dd, 1.0), np.nan)
        return percentile_interval(out, confidence)
    out = np.empty(n_resamples)
    chunk = max(1, min(n_resamples, 2_000_000 // n))
    done = 0
    while done < n_resamples:
        bsz = min(chunk, n_resamples - done)
        draws = rng.integers(0, n, size=(bsz, n))
        nn = nv[draws].sum(axis=1)
        dd = dv[draws].sum(axis=1)
        out[done:done + bsz] = np.where(dd > 0, nn / np.where(dd > 0, dd, 1.0), np.nan)
        done += bsz
    return percentile_interval(out, confidence)


#: Half-width of the rank window around the median in which :func:`paired_median_bootstrap` counts records one by
#: one, in standard deviations of a resample's count below a rank (at most sqrt(n) / 2): past 12 of them a
#: resample's median leaves the window with probability below 1e-30, and such a resample is resolved record by
#: record.
WINDOW_SDS = 12


#: The windowed kernel's signature: ``(a, b, rank_b, seeds, lo_rank, hi_rank, frac, half) -> (medians of a, of b)``.
_Kernel = Callable[..., tuple[NDArray[np.float64], NDArray[np.float64]]]


def _windowed_kernel() -> _Kernel:
    """The compiled windowed paired-median kernel (:mod:`synthpriv_report.stats._paired_medians`, imported on first
    use)."""
    from ._paired_medians import windowed

    kernel: _Kernel = windowed
    return kernel


def paired_median_replicates(a: NDArray[np.float64], b: NDArray[np.float64], *, n_resamples: int,
                             rng: np.random.Generator,
                             window: int | None = None) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The bootstrap replicates ``(median(a*), median(b*))`` of :func:`paired_median_bootstrap`'s large-n scheme,
    ``a`` sorted ascending (ties in ``a`` ordered by ``b``); ``window``: the half-width in ranks of the window
    counted record by record (default: :data:`WINDOW_SDS` standard deviations)."""
    n = a.shape[0]
    order_b = np.argsort(b, kind="stable")
    rank_b = np.empty(n, dtype=np.int64)
    rank_b[order_b] = np.arange(n)
    seeds = rng.integers(0, 2**63 - 1, size=int(n_resamples), dtype=np.int64)
    lo_rank, hi_rank, frac = _quantile_ranks(n, 0.5)
    a_c, b_c = np.ascontiguousarray(a, dtype=np.float64), np.ascontiguousarray(b[order_b], dtype=np.float64)
    half = int(math.ceil(WINDOW_SDS * math.sqrt(n) / 2.0)) + 2 if window is None else int(window)
    return _windowed_kernel()(a_c, b_c, rank_b, seeds, lo_rank, hi_rank, frac, half)


def paired_median_bootstrap(num: ArrayLike, den: ArrayLike, *, statistic: Any, n_resamples: int = 1000,
                            random_state: int | None = None, confidence: float = 0.95,
                            method: str = "auto", window: int | None = None) -> tuple[float, float]:
    """Percentile bootstrap interval of ``statistic(median(num), median(den))`` over records (MDCR' uses it).

    Each resample draws record positions with replacement (``default_rng(random_state)``) and takes both
    medians over the same records. Records are first sorted by (num, den), so the interval does not depend on
    the row order. Above :data:`GROUPED_MIN_N` records (or with ``method="grouped"``) each resample is drawn in
    two steps with the plain bootstrap's distribution exactly: a median only depends on the records near the
    middle rank and on how many draws fall below them, so the records within ``WINDOW_SDS`` standard deviations
    of the middle rank of ``num`` or of ``den`` are counted one by one and every other record only through its
    cell (below or above the window in each order), all in one multinomial draw over those counts. Each
    resample's stream is numba's generator seeded from ``default_rng(random_state)`` (the numbers do not depend
    on the threads); the cost is O(n_resamples * sqrt(n)). A resample whose median falls outside the window
    (probability below 1e-30) is resolved record by record from the same draw, each cell's draws spread
    uniformly over its records, so the law stays exactly the plain bootstrap's.

    ``window``: the window's half-width in ranks (tests; default from :data:`WINDOW_SDS`).

    >>> ratio = lambda a, b: a / b
    >>> lo, hi = paired_median_bootstrap([1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 2.0, 2.0], statistic=ratio,
    ...                                  n_resamples=200, random_state=0)
    >>> lo <= ratio(2.5, 2.0) <= hi
    True
    """
    a = np.asarray(num, dtype=np.float64)
    b = np.asarray(den, dtype=np.float64)
    order = np.lexsort((b, a))
    a, b = a[order], b[order]
    n = a.shape[0]
    how = _method(method, n)
    rng = np.random.default_rng(random_state)
    if how == "grouped" and n > 0:
        ma, mb = paired_median_replicates(a, b, n_resamples=n_resamples, rng=rng, window=window)
        out = np.array([statistic(x, y) for x, y in zip(ma, mb)], dtype=np.float64)
    else:
        out = np.empty(n_resamples)
        chunk = max(1, min(n_resamples, 2_000_000 // max(n, 1)))
        done = 0
        while done < n_resamples:
            m = min(chunk, n_resamples - done)
            draws = rng.integers(0, n, size=(m, n))
            ma = np.median(a[draws], axis=1)
            mb = np.median(b[draws], axis=1)
            out[done:done + m] = [statistic(x, y) for x, y in zip(ma, mb)]
            done += m
    q = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(out, [q, 1.0 - q])
    return float(lo), float(hi)


def subsample(n: int, k: int, rng: np.random.Generator) -> NDArray[np.int64]:
    """``k`` of ``range(n)`` drawn without replacement, sorted: ``sort(rng.choice(n, k, replace=False))``.

    >>> s = subsample(10, 4, np.random.default_rng(0))
    >>> str(s.dtype), len(set(s.tolist())), bool((np.diff(s) > 0).all()), bool(s.max() < 10)
    ('int64', 4, True, True)
    """
    return np.sort(rng.choice(n, k, replace=False)).astype(np.int64)
