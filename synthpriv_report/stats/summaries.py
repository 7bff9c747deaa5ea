"""Bounded summaries of a distribution (the evidence behind figures): mean, median and 5th percentile; a fixed
number of quantiles; a histogram on a fixed range. Non-finite values are dropped first.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

#: Values a histogram clips and counts at a time (its counts are added: the same counts as in one pass).
HISTOGRAM_BLOCK = 1 << 20


def finite_values(x: ArrayLike) -> NDArray[np.float64]:
    """The finite values of ``x`` (float64, flattened) as a contiguous array, in order: a view of ``x``, not a
    copy, when every value is finite and it is contiguous (a per-record array of distances usually is); otherwise
    a copy without the others. Callers read it and never write to it.

    >>> a = np.array([0.5, 1.0])
    >>> np.shares_memory(finite_values(a), a), finite_values([1.0, np.inf, np.nan, 2.0]).tolist()
    (True, [1.0, 2.0])
    """
    v = np.asarray(x, dtype=np.float64).reshape(-1)
    ok = np.isfinite(v)
    return np.ascontiguousarray(v) if ok.all() else v[ok]


def clipped_histogram(v: NDArray[np.float64], *, low: float, high: float, bins: int
                      ) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """``np.histogram(np.clip(v, low, high), bins=bins, range=(low, high))``, clipping and counting a block of
    :data:`HISTOGRAM_BLOCK` values at a time: the same counts and edges, without a clipped copy of every value.

    >>> c, e = clipped_histogram(np.array([-1.0, 0.2, 0.7, 5.0]), low=0.0, high=1.0, bins=2)
    >>> c.tolist(), e.tolist()
    ([2, 2], [0.0, 0.5, 1.0])
    """
    counts = np.zeros(bins, dtype=np.int64)
    edges = np.histogram(np.zeros(0), bins=bins, range=(low, high))[1]
    for a in range(0, v.shape[0], HISTOGRAM_BLOCK):
        counts += np.histogram(np.clip(v[a:a + HISTOGRAM_BLOCK], low, high), bins=bins, range=(low, high))[0]
    return counts, edges


def summary(x: ArrayLike) -> dict[str, float]:
    """Mean, median and 5th percentile (linear interpolation) of the finite values.

    >>> {k: round(v, 6) for k, v in summary([0.0, 1.0, 2.0, 3.0]).items()}
    {'mean': 1.5, 'median': 1.5, 'p5': 0.15, 'n': 4}
    """
    v = finite_values(x)
    if v.size == 0:
        return {"mean": float("nan"), "median": float("nan"), "p5": float("nan"), "n": 0}
    return {"mean": float(v.mean()), "median": float(np.median(v)), "p5": float(np.percentile(v, 5)),
            "n": int(v.size)}


def quantile_summary(x: ArrayLike, *, points: int = 101) -> dict[str, Any]:
    """A bounded summary of a distribution: ``points`` quantiles (linear interpolation) of the finite values.

    The evidence behind ECDF figures: enough to draw the curve at figure resolution, never the records.

    >>> quantile_summary([0.0, 1.0, 2.0, 3.0, 4.0], points=3)
    {'probs': [0.0, 0.5, 1.0], 'values': [0.0, 2.0, 4.0], 'n': 5}
    """
    v = finite_values(x)
    probs = np.linspace(0.0, 1.0, points)
    if v.size == 0:
        return {"probs": probs.tolist(), "values": [], "n": 0}
    return {"probs": probs.tolist(), "values": np.quantile(v, probs).tolist(), "n": int(v.size)}


def histogram(x: ArrayLike, *, upper: float, bins: int = 20) -> dict[str, list[Any]]:
    """Counts of the finite values of ``x`` in ``bins`` equal-width bins on [0, upper] (values clipped into it).

    >>> histogram([0.0, 0.5, 2.0], upper=1.0, bins=2)
    {'edges': [0.0, 0.5, 1.0], 'counts': [1, 2]}
    """
    v = finite_values(x)
    hi = float(upper) if np.isfinite(upper) and upper > 0 else 1.0
    counts, edges = clipped_histogram(v, low=0.0, high=hi, bins=bins)
    return {"edges": edges.tolist(), "counts": counts.astype(int).tolist()}
