"""Brute-force k nearest neighbours (every pair visited): the reference every engine is tested against."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .._compiled import njit, prange
from ..spaces import Encoding
from .kernels import _acc, _equal, _query_arrays, _to_dist


@njit(cache=True, parallel=True)
def _brute(qnum, qcat, self_pos, k, mode, rnum, rcat, w, cost, scale, exact):
    """The definition of :mod:`.kernels` taken literally, from every distance of a query: ``dist`` the k smallest
    distances in ascending order; ``idx`` slot by slot the lowest position among the references not yet taken
    whose distance ties with the smallest remaining one. It shares only the distance and the tie test with the
    engines (no k-best list, no near-tie marks)."""
    n = qnum.shape[0]
    m = rnum.shape[0]
    out_d = np.full((n, k), np.inf)
    out_i = np.full((n, k), -1, dtype=np.int64)
    for qi in prange(n):
        d = np.full(m, np.inf)
        taken = np.zeros(m, dtype=np.bool_)
        for r in range(m):
            if r == self_pos[qi]:
                taken[r] = True
            else:
                d[r] = _to_dist(mode, _acc(mode, qnum[qi], qcat[qi], rnum, rcat, r, w, cost), scale)
        avail = m - (1 if 0 <= self_pos[qi] < m else 0)
        srt = np.sort(d)
        for j in range(min(k, avail)):
            out_d[qi, j] = srt[j]
            low = np.inf
            for r in range(m):
                if not taken[r] and d[r] < low:
                    low = d[r]
            for r in range(m):  # positions ascending: the first tied one is the lowest
                if not taken[r] and _equal(d[r], low, exact):
                    taken[r] = True
                    out_i[qi, j] = r
                    break
    return out_d, out_i


def knn_brute(enc: Encoding, query: str, ref: str, *, k: int, exclude_self: bool = False,
              q_rows=None, r_rows=None) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Brute-force k nearest neighbours (every pair visited); the reference the engines are tested against."""
    qn, qc = _query_arrays(enc, query, q_rows)
    rn, rc = _query_arrays(enc, ref, r_rows)
    n = qn.shape[0]
    self_pos = np.arange(n, dtype=np.int64) if exclude_self else np.full(n, -1, dtype=np.int64)
    return _brute(qn, qc, self_pos, k, enc.mode, rn, rc, enc.num_weight, enc.cat_cost, enc.scale,
                  enc.integer_valued)
