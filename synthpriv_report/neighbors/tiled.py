"""Tiled brute-force k-NN: exact search at the hardware's limit where a tree cannot prune.

Every query meets every reference, in tasks of :data:`QUERY_BLOCK` queries x all references, the references
streamed in tiles of :data:`REF_TILE` (a tile of 40 columns is 80 KB: it stays in L2 while the task's queries
pass over it, four at a time so that each reference value is loaded once for four queries). The tasks run in
parallel over all cores.

Filter: single-precision accumulators, one SIMD lane per reference (numeric columns as float32, category codes as
int32, transposed so that a column of a tile is contiguous; missing Gower values replaced by a sentinel far
from every value, which gives exactly the published 0 for two missing values and 1 for one). Refine: every reference
whose single-precision accumulator lies within a proven margin of the current k-th best bound is re-computed in
float64 by the one expression every engine uses (:func:`.kernels._acc`) and offered to the k-best list with the
tie rule (:func:`.kernels._offer`), so distances are bit-identical to the tree's and the ties go to the lowest
reference position.

The margin (:func:`approx_margin`) bounds |single-precision accumulator - float64 accumulator| for every
reference of a query: the float32 conversion of both values and the difference (2.03 u (|q| + max|r|) per
column, u = 2^-24; Gower terms are capped at 1, so never more than 1), the square of l2 terms
(5.2 u M^2 with M = sqrt(w) (|q| + max|r|)), the float32 costs of the category columns (u cost), and the
summation of n terms in any order (1.1 (n + 2) u times the sum of the terms' upper bounds), plus the same for
the float64 side at 2^-53; the whole is doubled. A reference skipped by the filter has a float64 accumulator
above the bound, so it can neither beat nor tie the k-th best (the reasoning of the dense path, :mod:`.dense`).
Memory: the transposed single-precision copy of the references plus a tile of accumulators per thread.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np
from numpy.typing import NDArray

from .._compiled import njit, prange
from .kernels import _acc, _offer, query_chunks, resolve_near_ties
from .tree import RefTree

#: Queries per parallel task (they share the pass over the reference tiles).
QUERY_BLOCK = 64
#: References per tile.
REF_TILE = 512
#: Queries scored together against one tile (each reference value loaded once for all of them).
_GROUP = 4
#: Stand-in for a missing Gower value: |v - sentinel| >= 1 for every |v| < 2^19, and sentinel - sentinel = 0.
_SENTINEL = np.float32(2.0 ** 20)
_SENTINEL_SAFE = 2.0 ** 19 - 2.0
_U32 = 2.0 ** -24
_U64 = 2.0 ** -53


@njit(cache=True, fastmath={"nnan", "nsz", "contract"})
def _tile_acc(mode, Q, Qc, g, Rt, Rct, cost32, lo, hi, acc):
    """Single-precision accumulators of queries g ... g + 3 (rows of ``Q``/``Qc``) against references lo:hi
    (columns of ``Rt``/``Rct``) into ``acc[0:4, 0:hi - lo]``.

    fastmath is safe here and only here: no NaN reaches it (sentinels), and every reordering or contraction of
    the arithmetic stays within the margin, which assumes any summation order. The exact values are never
    computed under fastmath.
    """
    nt = hi - lo
    zero = np.float32(0.0)
    one = np.float32(1.0)
    for x in range(_GROUP):
        for t in range(nt):
            acc[x, t] = zero
    a0_ = acc[0]
    a1_ = acc[1]
    a2_ = acc[2]
    a3_ = acc[3]
    for j in range(Rt.shape[0]):
        r_ = Rt[j, lo:hi]
        q0 = Q[g, j]
        q1 = Q[g + 1, j]
        q2 = Q[g + 2, j]
        q3 = Q[g + 3, j]
        if mode == 0:
            for t in range(nt):
                r = r_[t]
                a0_[t] += min(abs(q0 - r), one)
                a1_[t] += min(abs(q1 - r), one)
                a2_[t] += min(abs(q2 - r), one)
                a3_[t] += min(abs(q3 - r), one)
        else:
            for t in range(nt):
                r = r_[t]
                d0 = q0 - r
                d1 = q1 - r
                d2 = q2 - r
                d3 = q3 - r
                a0_[t] += d0 * d0
                a1_[t] += d1 * d1
                a2_[t] += d2 * d2
                a3_[t] += d3 * d3
    for j in range(Rct.shape[0]):
        c_ = Rct[j, lo:hi]
        cj = cost32[j]
        c0 = Qc[g, j]
        c1 = Qc[g + 1, j]
        c2 = Qc[g + 2, j]
        c3 = Qc[g + 3, j]
        for t in range(nt):
            c = c_[t]
            a0_[t] += cj if c != c0 else zero
            a1_[t] += cj if c != c1 else zero
            a2_[t] += cj if c != c2 else zero
            a3_[t] += cj if c != c3 else zero


@njit(cache=True, inline="always")
def _up32(x):
    """A float32 threshold >= x (round-to-nearest of a value nudged above x; inf stays inf)."""
    return np.float32(x * (1.0 + 2.0 ** -21) + 1e-38)


@njit(cache=True, parallel=True)
def _tiled_batch(qnum, qcat, Q, Qc, self_pos, margin, k, tr, Rt, Rct, cost32, near):
    """Exact k nearest references of each query of a chunk (see the module docstring)."""
    n = qnum.shape[0]
    m = Rt.shape[1]
    mode, rnum, rcat, perm, w, cost, scale, exact = tr.mode, tr.num, tr.cat, tr.perm, tr.w, tr.cost, tr.scale, tr.exact
    out_d = np.full((n, k), np.inf)
    out_i = np.full((n, k), -1, dtype=np.int64)
    n_tasks = (n + QUERY_BLOCK - 1) // QUERY_BLOCK
    for task in prange(n_tasks):
        a = task * QUERY_BLOCK
        b = min(n, a + QUERY_BLOCK)
        acc = np.empty((_GROUP, REF_TILE), dtype=np.float32)
        count = np.zeros(QUERY_BLOCK, dtype=np.int64)
        bound = np.full(QUERY_BLOCK, np.inf)
        thr = np.full(QUERY_BLOCK, np.inf, dtype=np.float32)
        out_t = np.full((QUERY_BLOCK, k), -1, dtype=np.int64)
        for lo in range(0, m, REF_TILE):
            hi = min(m, lo + REF_TILE)
            for g in range(a, b, _GROUP):
                _tile_acc(mode, Q, Qc, g, Rt, Rct, cost32, lo, hi, acc)
                for x in range(min(_GROUP, b - g)):
                    qi = g + x
                    lq = qi - a
                    th = thr[lq]
                    for t in range(hi - lo):
                        if acc[x, t] <= th:
                            tt = lo + t
                            ridx = perm[tt]
                            if ridx == self_pos[qi]:
                                continue
                            ac = _acc(mode, qnum[qi], qcat[qi], rnum, rcat, tt, w, cost)
                            c, bd = _offer(qi, tt, ridx, ac, count[lq], k, bound[lq], mode, scale, exact, out_d,
                                           out_i, out_t[lq], near)
                            count[lq] = c
                            bound[lq] = bd
                            if c == k:
                                th = _up32(bd + margin[qi])
                                thr[lq] = th
    return out_d, out_i


def _prepare_refs(tree: RefTree):
    """Transposed single-precision references (tree order), int32 codes, float32 costs, and per column the
    largest |value| (finite values; l2: times sqrt(w)) and whether the Gower sentinel is exact for it."""
    num = tree.num
    if tree.mode == 1:
        num = num * np.sqrt(tree.w)
    finite = np.isfinite(num)
    absmax = np.where(finite, np.abs(num), 0.0).max(axis=0) if num.shape[0] else np.zeros(num.shape[1])
    if tree.mode == 0:
        num = np.where(np.isnan(num), _SENTINEL, num)
    Rt = np.ascontiguousarray(num.T, dtype=np.float32)
    if tree.cat.size and (tree.cat.max() >= 2 ** 31 or tree.cat.min() < 0):
        raise ValueError("category codes beyond 32 bits")
    Rct = np.ascontiguousarray(tree.cat.T, dtype=np.int32)
    return Rt, Rct, tree.cost.astype(np.float32), absmax


def _prepare_queries(tree: RefTree, qnum, qcat):
    """Single-precision queries padded to a multiple of the group size, and per query and column |value|
    (l2: times sqrt(w), missing Gower values 0)."""
    num = qnum
    if tree.mode == 1:
        num = num * np.sqrt(tree.w)
    absq = np.abs(num)
    if tree.mode == 0:
        absq = np.where(np.isnan(num), 0.0, absq)
        num = np.where(np.isnan(num), _SENTINEL, num)
    n = num.shape[0]
    pad = (-n) % _GROUP
    Q = np.zeros((n + pad, num.shape[1]), dtype=np.float32)
    Q[:n] = num
    Qc = np.zeros((n + pad, qcat.shape[1]), dtype=np.int32)
    Qc[:n] = qcat
    return Q, Qc, absq


def approx_margin(tree: RefTree, absq: NDArray[np.float64], absmax: NDArray[np.float64],
                  sentinel_ok: NDArray[np.bool_] | None = None) -> NDArray[np.float64]:
    """Per query, a bound on |single-precision accumulator - float64 accumulator| over every reference (see the
    module docstring). ``absq``: (n, q) |query value| per column (l2: scaled by sqrt(w), missing 0); ``absmax``:
    (q,) the largest finite |reference value| per column, likewise."""
    u, u64 = _U32, _U64
    M = absq + absmax  # (n, q)
    cost = np.asarray(tree.cost, dtype=np.float64)
    n_terms = M.shape[1] + cost.shape[0]
    csum = float(cost.sum())
    if tree.mode == 0:
        e = np.minimum(1.0, 2.03 * u * M + 2.0 * u64 * M)
        if sentinel_ok is not None:
            e = np.where(sentinel_ok, e, 1.0)
        upper = float(M.shape[1])  # each Gower term lies in [0, 1]
        err = e.sum(axis=1) + (1.1 * (n_terms + 2) * (u + u64)) * (upper + csum)
    else:
        M2 = M * M
        upper = 1.01 * M2.sum(axis=1)
        err = (5.2 * u + 4.0 * u64) * M2.sum(axis=1) + (1.1 * (n_terms + 2) * (u + u64)) * (upper + csum)
    err = err + u * csum
    with np.errstate(invalid="ignore", over="ignore"):
        out = 2.0 * err
    return np.where(np.isfinite(out), out, np.inf)


def prepared_chunks(tree: RefTree, qnum: NDArray[np.float64], qcat: NDArray[np.int64],
                    chunks: Iterable[tuple[int, int]], margin_scale: float = 1.0) -> Iterator[tuple]:
    """What a tiled kernel reads, chunk by chunk of the queries: ``(start, end, Q, Qc, margin, refs)``, with the
    chunk's single-precision queries, each query's proven margin (:func:`approx_margin`, times ``margin_scale``)
    and ``refs = (Rt, Rct, cost32)``, the references' single-precision copy, made once."""
    Rt, Rct, cost32, absmax = _prepare_refs(tree)
    sentinel_ok = absmax <= _SENTINEL_SAFE
    for s, e in chunks:
        Q, Qc, absq = _prepare_queries(tree, qnum[s:e], qcat[s:e])
        ok_q = sentinel_ok & (absq <= _SENTINEL_SAFE) if tree.mode == 0 else None
        yield s, e, Q, Qc, approx_margin(tree, absq, absmax, ok_q) * margin_scale, (Rt, Rct, cost32)


def knn_tiled(tree: RefTree, qnum: NDArray[np.float64], qcat: NDArray[np.int64], self_pos: NDArray[np.int64],
              k: int, *, progress: bool = False, desc: str = "neighbours", margin_scale: float = 1.0,
              resolve: bool = True, near: NDArray[np.bool_] | None = None,
              ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Exact k nearest references of each query by the tiled kernel (module docstring).

    ``self_pos[i]``: the reference position query i must skip (-1: none). ``margin_scale`` multiplies the
    proven margin (tests only: 0 shows that the margin is needed). ``resolve=False``: near ties are not decided
    again (:func:`.kernels.resolve_near_ties`, which calls this so); ``near``: receives the queries' near-tie
    marks.
    """
    qnum = np.ascontiguousarray(qnum, dtype=np.float64)
    qcat = np.ascontiguousarray(qcat, dtype=np.int64)
    n = qnum.shape[0]
    out_d = np.full((n, k), np.inf)
    out_i = np.full((n, k), -1, dtype=np.int64)
    if n == 0 or k == 0 or tree.size == 0:
        return out_d, out_i
    if near is None:
        near = np.zeros(n, dtype=np.bool_)
    for s, e, Q, Qc, margin, refs in prepared_chunks(tree, qnum, qcat, query_chunks(n, desc, progress),
                                                     margin_scale):
        d, i = _tiled_batch(qnum[s:e], qcat[s:e], Q, Qc, self_pos[s:e], margin, k, tree, *refs, near[s:e])
        out_d[s:e] = d
        out_i[s:e] = i
    if resolve:
        resolve_near_ties(tree, qnum, qcat, self_pos, out_d, out_i, near,
                          lambda qn, qc, sp, kk: knn_tiled(tree, qn, qc, sp, kk, margin_scale=margin_scale,
                                                           resolve=False))
    return out_d, out_i
