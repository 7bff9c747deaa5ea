"""Tie-aware comparisons of distances: tied (equal within a relative tolerance), less, less-or-equal, win shares.

Two distances are tied when ``|a - b| <= 1e-9 * max(|a|, |b|) + 1e-12`` (plain equality for integer-valued
distances); the metrics compare distances through these functions.
"""

from __future__ import annotations

from collections.abc import Callable

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
    if exact:
        return np.asarray(a == b)
    return _blockwise(_ties, a, b)


def _ties(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.bool_]:
    same: NDArray[np.bool_] = a == b
    with np.errstate(invalid="ignore"):
        close: NDArray[np.bool_] = np.abs(a - b) <= REL_TOL * np.maximum(np.abs(a), np.abs(b)) + ABS_TOL
    close &= np.isfinite(a) & np.isfinite(b)
    return np.asarray(close | same)


def _less(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.bool_]:
    return np.asarray((a < b) & ~_ties(a, b))


#: Most elements compared at once: the float temporaries of a comparison stay a few megabytes, whatever the
#: length of the arrays (a million distances would otherwise take about 40 MB of them at a time).
BLOCK = 1 << 17


def _blockwise(fn: Callable[[NDArray[np.float64], NDArray[np.float64]], NDArray[np.bool_]],
               a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.bool_]:
    """``fn(a, b)`` (element-wise, broadcasting), a block of rows along the first axis at a time: the same
    values, without temporaries the size of the whole arrays."""
    shape = np.broadcast_shapes(a.shape, b.shape)
    if len(shape) == 0 or int(np.prod(shape)) <= BLOCK:
        return fn(a, b)
    a, b = np.broadcast_to(a, shape), np.broadcast_to(b, shape)
    out = np.empty(shape, dtype=bool)
    step = max(1, BLOCK // max(1, int(np.prod(shape[1:]))))
    for i in range(0, shape[0], step):
        out[i:i + step] = fn(a[i:i + step], b[i:i + step])
    return out


def less(a: ArrayLike, b: ArrayLike, *, exact: bool = False) -> NDArray[np.bool_]:
    """``a < b`` and not a tie.

    >>> less([0.5, 1.0], [1.0, 1.0 + 1e-13]).tolist()
    [True, False]
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if exact:
        return np.asarray(a < b)
    return _blockwise(_less, a, b)


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
