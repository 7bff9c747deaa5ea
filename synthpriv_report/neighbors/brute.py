"""Brute-force k nearest neighbours (every pair visited): the reference every engine is tested against."""

from __future__ import annotations

import numpy as np
from numba import njit, prange
from numpy.typing import NDArray

from ..spaces import Encoding
from .kernels import _acc, _better, _query_arrays, _to_dist


@njit(cache=True, parallel=True)
def _brute(qnum, qcat, self_pos, k, mode, rnum, rcat, w, cost, scale, exact):
    """Every pair visited. The k-best insertion is written out here rather than taken from :func:`_offer`, so
    the reference the tree search is tested against shares only the distance and the tie rule with it."""
    n = qnum.shape[0]
    m = rnum.shape[0]
    out_d = np.full((n, k), np.inf)
    out_i = np.full((n, k), -1, dtype=np.int64)
    for qi in prange(n):
        count = 0
        qn = qnum[qi]
        qc = qcat[qi]
        for r in range(m):
            if r == self_pos[qi]:
                continue
            d = _to_dist(mode, _acc(mode, qn, qc, rnum, rcat, r, w, cost), scale)
            if count == k:
                if not _better(d, r, out_d[qi, k - 1], out_i[qi, k - 1], exact):
                    continue
                pos = k - 1
            else:
                pos = count
                count += 1
            while pos > 0 and _better(d, r, out_d[qi, pos - 1], out_i[qi, pos - 1], exact):
                out_d[qi, pos] = out_d[qi, pos - 1]
                out_i[qi, pos] = out_i[qi, pos - 1]
                pos -= 1
            out_d[qi, pos] = d
            out_i[qi, pos] = r
    return out_d, out_i


def knn_brute(enc: Encoding, query: str, ref: str, *, k: int, exclude_self: bool = False,
              q_rows=None, r_rows=None) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Brute-force k nearest neighbours (every pair visited); the reference the tree search is tested against."""
    qn, qc = _query_arrays(enc, query, q_rows)
    rn, rc = _query_arrays(enc, ref, r_rows)
    n = qn.shape[0]
    self_pos = np.arange(n, dtype=np.int64) if exclude_self else np.full(n, -1, dtype=np.int64)
    return _brute(qn, qc, self_pos, k, enc.mode, rn, rc, enc.num_weight, enc.cat_cost, enc.scale,
                  enc.integer_valued)
