"""Joins of record sets on exact keys and numeric tolerances (no distance space): the key groupings of the CAP
attacks and the tolerance join of the hitting rate. They sit beside the neighbour searches in the layers: metrics
reduce what they return.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._compiled import COMPILED, njit, prange
from ..stats import ABS_TOL, REL_TOL


def group_ids(a: ArrayLike, b: ArrayLike) -> tuple[NDArray[np.int64], NDArray[np.int64], int]:
    """Shared integer ids of the rows of two integer arrays: equal rows get equal ids, different rows different
    ids, dense from 0 (in no particular order: every use compares or counts them).

    Parameters
    ----------
    a : array-like of int, shape (n, c)
    b : array-like of int, shape (m, c)

    Returns
    -------
    ids_a : ndarray, shape (n,)
    ids_b : ndarray, shape (m,)
    n_groups : int
        Number of distinct rows over both arrays.

    Examples
    --------
    >>> ia, ib, g = group_ids([[0, 1], [1, 1], [0, 1]], [[1, 1], [2, 0]])
    >>> ia.tolist(), ib.tolist(), g
    ([0, 1, 0], [1, 2], 3)
    """
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    n = a.shape[0]
    if a.ndim == 1:
        a = a[:, None]
        b = b[:, None]
    both = np.concatenate([a, b], axis=0)
    ids = row_ids((both[:, j] for j in range(both.shape[1])), both.shape[0])
    n_groups = int(ids.max()) + 1 if ids.shape[0] else 0
    return ids[:n], ids[n:], n_groups


def row_ids(columns: Iterable[NDArray[np.int64]], n: int) -> NDArray[np.int64]:
    """Dense ids (first-appearance order) of ``n`` rows given column by column: equal rows get equal ids.

    A mixed-radix combination, re-densified after every column so that it never overflows; codes found by
    hashing (pandas.factorize). ``columns`` may be a generator, so only one column need exist at a time.

    >>> row_ids(iter([np.array([5, 5, 7]), np.array([1, 1, 1])]), 3).tolist()
    [0, 0, 1]
    """
    ids = np.zeros(n, dtype=np.int64)
    for column in columns:
        col = _codes(np.asarray(column, dtype=np.int64))
        ids = _codes(ids * (int(col.max(initial=-1)) + 1) + col)
    return ids


def _codes(x: NDArray[np.int64]) -> NDArray[np.int64]:
    """Dense codes of the values of ``x`` in order of first appearance (equal values, equal codes).

    >>> _codes(np.array([7, 3, 7, 9])).tolist()
    [0, 1, 0, 2]
    """
    import pandas as pd

    return pd.factorize(x, sort=False)[0].astype(np.int64, copy=False)


@njit(cache=True, parallel=True)
def _hitr_kernel(a, b, order, num_t, num_s, h):  # pragma: no cover - compiled
    n = a.shape[0]
    q = num_t.shape[1]
    pairs = np.zeros(n, dtype=np.int64)
    for i in prange(n):
        cnt = 0
        for t in range(a[i], b[i]):
            s = order[t]
            ok = True
            for j in range(q):
                y = num_t[i, j]
                z = num_s[s, j]
                y_nan, z_nan = np.isnan(y), np.isnan(z)
                if y_nan or z_nan:
                    ok = y_nan and z_nan
                else:
                    d = abs(y - z)
                    if h[j] == 0.0:
                        ok = d == 0.0
                    else:
                        ok = d <= h[j] or abs(d - h[j]) <= REL_TOL * max(d, h[j]) + ABS_TOL
                if not ok:
                    break
            if ok:
                cnt += 1
        pairs[i] = cnt
    return pairs


def _window_bounds(xt: NDArray[np.float64], hw: float, uniq: NDArray[np.float64], groups: NDArray[np.int64],
                   width: int, key_sorted: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Per real record, the window of S within ``hw`` of its value in its group (:func:`_window_bounds_compiled`;
    without numba the same ``np.searchsorted`` calls on whole arrays)."""
    if COMPILED:
        return _window_bounds_compiled(xt, hw, uniq, groups, width, key_sorted)
    base = groups.astype(np.int64) * np.int64(width)
    lo_rank = np.searchsorted(uniq, xt - hw)
    hi_rank = np.searchsorted(uniq, xt + hw, side="right")
    return (np.searchsorted(key_sorted, base + lo_rank).astype(np.int64),
            np.searchsorted(key_sorted, base + hi_rank).astype(np.int64))


@njit(cache=True, parallel=True)
def _window_bounds_compiled(xt, hw, uniq, groups, width, key_sorted):  # pragma: no cover - compiled
    """Per real record, the window of S (positions in ``key_sorted``, S sorted by group then value rank) whose
    values lie within ``hw`` of the record's value ``xt[i]`` in its group: ``np.searchsorted`` of the same keys,
    record by record in parallel."""
    n = xt.shape[0]
    a = np.empty(n, dtype=np.int64)
    b = np.empty(n, dtype=np.int64)
    for i in prange(n):
        lo_rank = np.searchsorted(uniq, xt[i] - hw)
        hi_rank = np.searchsorted(uniq, xt[i] + hw, side="right")
        base = groups[i] * width
        a[i] = np.searchsorted(key_sorted, base + lo_rank)
        b[i] = np.searchsorted(key_sorted, base + hi_rank)
    return a, b


class _HitrIndex:
    """Divisor-independent part of the HitR join: groups on the categorical signature and, per numeric column,
    S sorted by (group, rank of the value)."""

    def __init__(self, cat_t: NDArray[np.int64], num_t: NDArray[np.float64], cat_s: NDArray[np.int64],
                 num_s: NDArray[np.float64]) -> None:
        sig_t = np.concatenate([cat_t, np.isnan(num_t).astype(np.int64)], axis=1)
        sig_s = np.concatenate([cat_s, np.isnan(num_s).astype(np.int64)], axis=1)
        self.g_t, self.g_s, _ = group_ids(sig_t, sig_s)
        self.num_t = np.ascontiguousarray(num_t, dtype=np.float64)
        self.num_s = np.ascontiguousarray(num_s, dtype=np.float64)
        self.columns = []
        for j in range(num_t.shape[1]):
            xt = np.where(np.isnan(num_t[:, j]), 0.0, num_t[:, j])
            xs = np.where(np.isnan(num_s[:, j]), 0.0, num_s[:, j])
            uniq = np.unique(np.concatenate([xt, xs]))
            width = np.int64(uniq.shape[0] + 1)
            key_s = self.g_s * width + np.searchsorted(uniq, xs)
            order = np.argsort(key_s, kind="stable")
            self.columns.append((xt, uniq, width, key_s[order], order))
        self.order_g = np.argsort(self.g_s, kind="stable")
        self.sorted_g = self.g_s[self.order_g]
        self._windows: dict[bytes, tuple] = {}

    def windows(self, h: NDArray[np.float64]):
        """Candidate windows for the tolerances ``h``: the column whose windows hold the fewest candidates
        (found once per ``h``: counting the candidates and scanning them read the same windows)."""
        key = np.ascontiguousarray(h, dtype=np.float64).tobytes()
        if key not in self._windows:
            self._windows[key] = self._find_windows(h)
        return self._windows[key]

    def _find_windows(self, h: NDArray[np.float64]):
        if not self.columns:
            a = np.searchsorted(self.sorted_g, self.g_t, side="left")
            b = np.searchsorted(self.sorted_g, self.g_t, side="right")
            return a, b, self.order_g, -1
        best = None
        for j, (xt, uniq, width, key_sorted, order) in enumerate(self.columns):
            hw = h[j] * (1.0 + 4 * REL_TOL) + 2 * ABS_TOL if h[j] > 0 else 0.0
            a, b = _window_bounds(xt, float(hw), uniq, self.g_t, int(width), key_sorted)
            size = int((b - a).sum())
            if best is None or size < best[0]:
                best = (size, a, b, order, j)
        return best[1], best[2], best[3], best[4]


def hitting_matches(cat_t: ArrayLike, num_t: ArrayLike, cat_s: ArrayLike, num_s: ArrayLike,
                    h: ArrayLike) -> tuple[NDArray[np.bool_], int]:
    """Which real records are "hit" by some synthetic record (HitR, Trudslev et al., Eq. 32-33).

    y is hit when some s has every categorical value equal (missing equals missing) and every numeric value
    within ``h[j]`` (inclusive, with the package's tie tolerance (docs/metrics.md, "Ties, self-matches and nearest
    records"); ``h[j] = 0`` means exact equality;
    both missing match, one missing does not). Records are grouped on their categorical signature (codes plus
    numeric missing flags); within a group, S is sorted on one numeric column and each real record scans only
    the window ``[y - h, y + h]`` of that column, checking the others exactly. The column with the smallest
    total window is used. Cost O((n + m) log m + candidates); no n x m matrix.

    Parameters
    ----------
    cat_t, cat_s : array-like of int, shape (n, c) and (m, c)
        Category codes of every categorical column.
    num_t, num_s : array-like of float, shape (n, q) and (m, q)
        Numeric values (NaN = missing).
    h : array-like of float, shape (q,)
        Tolerance per numeric column.

    Returns
    -------
    hit : ndarray of bool, shape (n,)
    n_pairs : int
        Number of matching (y, s) pairs.

    Examples
    --------
    >>> hit, pairs = hitting_matches([[0], [0], [1]], [[1.0], [5.0], [1.0]], [[0], [0]], [[1.5], [2.0]], [1.0])
    >>> hit.tolist(), pairs
    ([True, False, False], 2)
    """
    ct, cs = np.asarray(cat_t, np.int64), np.asarray(cat_s, np.int64)
    nt, ns = np.asarray(num_t, np.float64), np.asarray(num_s, np.float64)
    index = _HitrIndex(ct.reshape(ct.shape[0], -1), nt.reshape(nt.shape[0], -1),
                       cs.reshape(cs.shape[0], -1), ns.reshape(ns.shape[0], -1))
    return _hits_from_index(index, h)


def hitting_candidates(index: _HitrIndex, h: ArrayLike) -> int:
    """How many (real, synthetic) candidate pairs the HitR join checks for the tolerances ``h``: the sum of the
    windows' sizes, known before any is scanned (it grows with the product of the set sizes)."""
    a, b, _, _ = index.windows(np.ascontiguousarray(h, dtype=np.float64).reshape(-1))
    return int((b - a).sum())


def _hits_from_index(index: _HitrIndex, h: ArrayLike,
                     rows: NDArray[np.int64] | None = None) -> tuple[NDArray[np.bool_], int]:
    """Hit flags and pair count of the real records ``rows`` (default all) for the tolerances ``h``."""
    hh = np.ascontiguousarray(h, dtype=np.float64).reshape(-1)
    a, b, order, _ = index.windows(hh)
    num_t = index.num_t
    if rows is not None:
        a, b, num_t = a[rows], b[rows], np.ascontiguousarray(num_t[rows])
    pairs = _hitr_kernel(a.astype(np.int64), b.astype(np.int64), order.astype(np.int64), num_t,
                         index.num_s, hh)
    return pairs > 0, int(pairs.sum())
