"""Tie-aware comparisons of distances: tied (equal within a relative tolerance), less, less-or-equal, win shares.

Two distances are tied when ``|a - b| <= 1e-9 * max(|a|, |b|) + 1e-12`` (plain equality for integer-valued
distances); the metrics compare distances through these functions.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

REL_TOL = 1e-9
ABS_TOL = 1e-12


def ties(a: ArrayLike, b: ArrayLike, *, exact: bool = False) -> NDArray[np.bool_]:
    """Element-wise equality of distances under the package's tie rule.

    ``|a - b| <= 1e-9 * max(|a|, |b|) + 1e-12``; with ``exact`` (integer-valued distances) plain equality.
    Infinite values are equal only to themselves.

    >>> ties([1.0, 1.0, 0.0], [1.0 + 1e-12, 1.1, 0.0]).tolist()
    [True, False, True]
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    same: NDArray[np.bool_] = a == b
    if exact:
        return same
    with np.errstate(invalid="ignore"):
        close: NDArray[np.bool_] = np.abs(a - b) <= REL_TOL * np.maximum(np.abs(a), np.abs(b)) + ABS_TOL
    close &= np.isfinite(a) & np.isfinite(b)
    return close | same


def less(a: ArrayLike, b: ArrayLike, *, exact: bool = False) -> NDArray[np.bool_]:
    """``a < b`` and not a tie.

    >>> less([0.5, 1.0], [1.0, 1.0 + 1e-13]).tolist()
    [True, False]
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return (a < b) & ~ties(a, b, exact=exact)


def leq(a: ArrayLike, b: ArrayLike, *, exact: bool = False) -> NDArray[np.bool_]:
    """``a <= b`` with the tie tolerance (a boundary such as u <= 0.2 includes ties).

    >>> leq([0.2 + 1e-15, 0.3], [0.2, 0.2]).tolist()
    [True, False]
    """
    return less(a, b, exact=exact) | ties(a, b, exact=exact)


def win_share(a: ArrayLike, b: ArrayLike, *, exact: bool = False) -> tuple[float, int, int, int]:
    """Share of pairs with a < b, ties counted one half: ``(wins + ties/2) / n``.

    Returns ``(share, wins, ties, n)``.

    >>> win_share([0.1, 0.5, 0.3], [0.2, 0.5, 0.1])
    (0.5, 1, 1, 3)
    """
    t = ties(a, b, exact=exact)
    w = less(a, b, exact=exact)
    n = int(t.shape[0])
    wins, nt = int(w.sum()), int(t.sum())
    return ((wins + 0.5 * nt) / n if n else float("nan")), wins, nt, n
