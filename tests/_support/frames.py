"""Small data frames the tests share: a random mixed-type triple (real, synthetic, holdout), optionally with
copied records or a missing value, and a tiny hand-written triple with a missing category.

Everything is drawn from ``numpy.random.default_rng(seed)``, so a test that names a seed gets the same frames
on every run and every machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd


class Sets(NamedTuple):
    """The three data sets in the order :class:`synthpriv_report.Evaluation` takes them."""

    real: pd.DataFrame
    synthetic: pd.DataFrame
    holdout: pd.DataFrame


def mixed(n: int = 60, seed: int = 0, *, n_synthetic: int | None = None, copied: int = 0, missing: bool = False,
          category: str = "c", categories: Sequence[str] = ("a", "b", "c")) -> Sets:
    """Random real, synthetic and holdout frames with columns ``x``, ``y`` and ``category``.

    ``x`` holds integers 0-29 stored as floats (ties between records are common), ``y`` a standard normal
    rounded to two decimals, ``category`` one of ``categories``. The real and the holdout frames have ``n``
    rows, the synthetic frame ``n_synthetic`` (default ``n // 2``), of which the first ``copied`` are copies of
    the first ``copied`` real records and the rest fresh draws. ``missing=True`` blanks ``x`` in the first row
    of every frame. The frames are drawn in the order real, holdout, synthetic.

    >>> T, S, H = mixed(4, n_synthetic=3, copied=2)
    >>> list(T.columns), len(T), len(S), len(H)
    (['x', 'y', 'c'], 4, 3, 4)
    >>> S.iloc[:2].equals(T.iloc[:2])
    True
    """
    if n_synthetic is None:
        n_synthetic = n // 2
    if not 0 <= copied <= min(n, n_synthetic):
        raise ValueError(f"copied must be between 0 and {min(n, n_synthetic)}, got {copied}")
    rng = np.random.default_rng(seed)

    def draw(m: int) -> pd.DataFrame:
        x = rng.integers(0, 30, m).astype(float)
        if missing and m:
            x[0] = np.nan
        return pd.DataFrame({"x": x, "y": rng.normal(size=m).round(2), category: rng.choice(list(categories), m)})

    real, holdout = draw(n), draw(n)
    fresh = draw(n_synthetic - copied)
    synthetic = pd.concat([real.iloc[:copied], fresh], ignore_index=True) if copied else fresh
    return Sets(real, synthetic, holdout)


def tiny() -> Sets:
    """A 5-row real, 4-row synthetic and 4-row holdout frame with a numeric column (``age``, one missing in the
    holdout), a categorical one (``sex``, missing in one real and one synthetic record, with a synthetic-only
    value ``"X"``) and an integer one (``n``)."""
    real = pd.DataFrame({"age": [20.0, 30.0, 40.0, 50.0, 60.0], "sex": ["F", "M", None, "F", "M"],
                         "n": [1, 2, 3, 4, 5]})
    holdout = pd.DataFrame({"age": [25.0, 35.0, np.nan, 55.0], "sex": ["M", "F", "F", "M"], "n": [2, 3, 4, 5]})
    synthetic = pd.DataFrame({"age": [20.0, 31.0, 90.0, 50.0], "sex": ["F", "M", "X", None], "n": [1, 2, 9, 4]})
    return Sets(real, synthetic, holdout)


def near_tie_chains(n: int, seed: int, step: float, offset: float, categories: list[str]) -> pd.DataFrame:
    """Values 0 to 3 steps apart around a handful of levels (shifted by ``offset``): distances that differ by
    about the tie tolerance, so chains of near ties are common."""
    rng = np.random.default_rng(seed)
    cols = {f"x{j}": rng.choice([0.1, 0.3, 0.5, 0.9], n) + offset + rng.integers(0, 4, n) * step for j in range(3)}
    cols["c"] = rng.choice(categories, n)
    return pd.DataFrame(cols)
