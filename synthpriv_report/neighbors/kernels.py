"""Distance accumulation and the tie rule shared by every search (tree, dense, tiled, GPU re-check, brute force).

Every kernel computes a distance through :func:`_acc`, so equal pairs give bit-identical values whichever engine
found them; :func:`_offer` is the one k-best insertion with the tie rule of spec section 0: two distances are
equal when |a - b| <= 1e-9 max(|a|, |b|) + 1e-12 (integer-valued distances exactly); among equal distances the
record with the lowest reference position comes first.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..spaces import Encoding

REL_TOL = 1e-9
ABS_TOL = 1e-12
#: Queries per call of a compiled batch (bounds the per-call output and lets a progress bar advance).
_CHUNK = 4096

@njit(cache=True, inline="always")
def _num_acc(mode, qn, rnum, t, w):
    """Numeric part of the accumulator between query values ``qn`` and reference row ``t`` of ``rnum``."""
    acc = 0.0
    if mode == 0:
        for j in range(w.shape[0]):
            a = qn[j]
            b = rnum[t, j]
            if a != a:
                if b == b:
                    acc += 1.0
            elif b != b:
                acc += 1.0
            else:
                d = abs(a - b)
                acc += d if d < 1.0 else 1.0
    elif mode == 1:
        for j in range(w.shape[0]):
            d = qn[j] - rnum[t, j]
            acc += w[j] * d * d
    return acc


@njit(cache=True, inline="always")
def _cat_acc(qc, rcat, t, cost):
    """Category part of the accumulator: the costs of the columns whose codes differ, summed in column order."""
    acc = 0.0
    for j in range(cost.shape[0]):
        if qc[j] != rcat[t, j]:
            acc += cost[j]
    return acc


@njit(cache=True, inline="always")
def _acc(mode, qn, qc, rnum, rcat, t, w, cost):
    """Distance accumulator (numeric part + category part) between a query and reference row ``t``; every
    kernel computes distances through this one expression, so equal pairs give bit-identical values.

    The two parts are summed separately and added once (rows are indexed, never sliced into views, which
    would cost a reference count update per row).
    """
    return _num_acc(mode, qn, rnum, t, w) + _cat_acc(qc, rcat, t, cost)


@njit(cache=True, inline="always")
def _acc_within(mode, qn, qc, rnum, rcat, t, w, cost, bound):
    """:func:`_acc`, or the category part alone as soon as it exceeds ``bound``.

    Rounded addition is monotone and the numeric part is non-negative, so when the category part exceeds
    ``bound`` the full accumulator does too; otherwise the value is exactly :func:`_acc`'s.
    """
    c = _cat_acc(qc, rcat, t, cost)
    if c > bound:
        return c
    return _num_acc(mode, qn, rnum, t, w) + c


@njit(cache=True, inline="always")
def _to_dist(mode, acc, scale):
    if mode == 1:
        return np.sqrt(acc)
    if mode == 0:
        return acc * scale
    return acc


@njit(cache=True, inline="always")
def _slack(mode, d, scale, exact):
    """Accumulator value above which a distance cannot tie with or beat ``d``."""
    if exact:
        return d
    e = d * (1.0 + REL_TOL) + ABS_TOL
    e *= 1.0 + 1e-12
    if mode == 1:
        return e * e
    if mode == 0:
        return e / scale
    return e


@njit(cache=True, inline="always")
def _equal(a, b, exact):
    if exact or a == b:
        return a == b
    if np.isinf(a) or np.isinf(b):
        return False
    return abs(a - b) <= REL_TOL * max(abs(a), abs(b)) + ABS_TOL


@njit(cache=True, inline="always")
def _better(d1, i1, d2, i2, exact):
    """True when (d1, i1) comes before (d2, i2): smaller distance, or a tie and a lower position."""
    if _equal(d1, d2, exact):
        return i1 < i2
    return d1 < d2


@njit(cache=True, inline="always")
def _offer(qi, t, ridx, acc, count, k, bound, mode, scale, exact, out_d, out_i, out_t):
    """Offer reference ``t`` (position ``ridx``) at accumulator ``acc`` to the k-best list of query ``qi``.

    Returns the new (count, bound). A reference already in the list (from the warm start) is skipped.
    """
    if count == k and acc > bound:
        return count, bound
    for c in range(count):
        if out_t[c] == t:
            return count, bound
    d = _to_dist(mode, acc, scale)
    if count == k:
        if not _better(d, ridx, out_d[qi, k - 1], out_i[qi, k - 1], exact):
            return count, bound
        pos = k - 1
    else:
        pos = count
        count += 1
    while pos > 0 and _better(d, ridx, out_d[qi, pos - 1], out_i[qi, pos - 1], exact):
        out_d[qi, pos] = out_d[qi, pos - 1]
        out_i[qi, pos] = out_i[qi, pos - 1]
        out_t[pos] = out_t[pos - 1]
        pos -= 1
    out_d[qi, pos] = d
    out_i[qi, pos] = ridx
    out_t[pos] = t
    if count == k:
        bound = _slack(mode, out_d[qi, k - 1], scale, exact)
    return count, bound


def _query_arrays(enc: Encoding, set_name: str, rows: NDArray[np.int64] | None):
    num = enc.num[set_name]
    cat = enc.cat[set_name]
    if rows is not None:
        num, cat = num[rows], cat[rows]
    return np.ascontiguousarray(num, dtype=np.float64), np.ascontiguousarray(cat, dtype=np.int64)


def query_chunks(n: int, desc: str, progress: bool, chunk: int | None = None):
    """``(start, end)`` of consecutive query chunks, advancing one progress bar (shown from 20,000 queries) after
    each chunk is done; the bar is closed whatever happens."""
    size = _CHUNK if chunk is None else chunk
    bar = _progress(n, desc, progress)
    try:
        for s in range(0, n, size):
            e = min(n, s + size)
            yield s, e
            if bar is not None:
                bar.update(e - s)
    finally:
        if bar is not None:
            bar.close()


def _progress(total: int, desc: str, enabled: bool):
    if not enabled or total < 20_000:
        return None
    from ..progress import bar

    return bar(total, desc, enabled=True, unit="rec")
