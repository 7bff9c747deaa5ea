"""Bounded summaries of a distribution (the evidence behind figures): mean, median and 5th percentile; a fixed
number of quantiles; a histogram on a fixed range. Non-finite values are dropped first.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike


def summary(x: ArrayLike) -> dict[str, float]:
    """Mean, median and 5th percentile (linear interpolation) of the finite values.

    >>> {k: round(v, 6) for k, v in summary([0.0, 1.0, 2.0, 3.0]).items()}
    {'mean': 1.5, 'median': 1.5, 'p5': 0.15, 'n': 4}
    """
    v = np.asarray(x, dtype=np.float64)
    v = v[np.isfinite(v)]
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
    v = np.asarray(x, dtype=np.float64).reshape(-1)
    v = v[np.isfinite(v)]
    probs = np.linspace(0.0, 1.0, points)
    if v.size == 0:
        return {"probs": probs.tolist(), "values": [], "n": 0}
    return {"probs": probs.tolist(), "values": np.quantile(v, probs).tolist(), "n": int(v.size)}


def histogram(x: ArrayLike, *, upper: float, bins: int = 20) -> dict[str, list[Any]]:
    """Counts of the finite values of ``x`` in ``bins`` equal-width bins on [0, upper] (values clipped into it).

    >>> histogram([0.0, 0.5, 2.0], upper=1.0, bins=2)
    {'edges': [0.0, 0.5, 1.0], 'counts': [1, 2]}
    """
    v = np.asarray(x, dtype=np.float64).reshape(-1)
    v = v[np.isfinite(v)]
    hi = float(upper) if np.isfinite(upper) and upper > 0 else 1.0
    counts, edges = np.histogram(np.clip(v, 0.0, hi), bins=bins, range=(0.0, hi))
    return {"edges": edges.tolist(), "counts": counts.astype(int).tolist()}
