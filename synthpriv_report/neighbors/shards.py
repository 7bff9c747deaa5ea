"""Exact k-nearest-neighbour search against a reference set cut into shards, with the numbers of one tree.

A reference set too large for one process is cut into contiguous shards of positions (shard ``s`` holds the
references ``start_s:end_s``), each organised in its own tree (:class:`ShardParams.build`, the tree of
:func:`.tree.build_tree` on those rows). Every query is searched against every shard by the usual engines
(:func:`.search.run_engine`), and the shards' k-best lists are merged here so that neighbours and distances are bit
for bit those of one tree over the whole set:

1. ``dist``: the k smallest distances of the union of the shards' lists. Each shard's list holds that shard's k
   smallest distances (exact order statistics, whatever the engine), so the union holds the k smallest overall.
2. ``idx``: where no two references that tie by the tolerance of docs/metrics.md ("Shared machinery") have
   distances that differ in their bits, the tie rule of :mod:`.kernels` is the order by (distance, position).
   Shards are contiguous ranges of positions, so a shard's order by (distance, local position) is the order by
   (distance, position), and the merged order is the sort of the union by (distance, position): ties across
   shard borders go to the lowest position, as in one tree.
3. A merged row is decided again from every reference within the tie window of its k-th distance (scanned in
   every shard, then :func:`.kernels._pick`) when a near tie (tied by the tolerance, unequal bits) may touch it:
   a shard marked one (:func:`.search.run_engine`'s ``near_out``: a reference tied with that shard's k-th
   distance was left out, or its list holds two), the union holds two candidates tied but unequal, or a full
   shard's last distance is tied with the merged k-th distance without being equal to it (that shard may hold
   more references in the window). A reference a full shard left out has a distance at least its k-th; where
   that k-th equals the merged k-th bit for bit and the shard marked no near tie, such a reference is either
   bit-equal to it at a higher position (it comes after the shard's own k references) or outside the window, so
   the other rows are decided by (distance, position) exactly.

Near ties are rare (1 or 2 queries of 862,874 on full Adult, :mod:`.kernels`), so the scan of step 3 costs little.
The module holds no Dask code: :mod:`synthpriv_report.distributed` runs :func:`search_shard` and
:func:`merge_shards` as tasks on workers, and :func:`knn_sharded` runs the same steps in this process (tests, and
the reference for what the cluster must return).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..spaces import Encoding
from .kernels import _pick
from .search import SearchChoice, run_engine
from .tree import _ORDER_LEAF_SIZE, RefTree, _assemble, _build
from .vectorised import BLOCK_PAIRS, accumulate, position_order, tied, to_dist

__all__ = ["ShardParams", "shard_bounds", "search_shard", "merge_shards", "shard_candidates", "decide_rows",
           "knn_sharded"]


@dataclass(frozen=True)
class ShardParams:
    """What a worker needs, besides a shard's rows, to build the shard's tree: the space's metric and weights.

    Attributes
    ----------
    mode : int
        0 gower, 1 l2, 2 hamming (:class:`synthpriv_report.spaces.Encoding`).
    w, cost : ndarray of float64
        Numeric weights, shape (q,), and category mismatch costs, shape (c,).
    n_codes : ndarray of int64, shape (c,)
        Codes per categorical column over all sets (the same bitmask layout in every shard).
    scale : float
    exact : bool
        Every distance an integer (ties are equal bits).
    """

    mode: int
    w: NDArray[np.float64]
    cost: NDArray[np.float64]
    n_codes: NDArray[np.int64]
    scale: float
    exact: bool

    @classmethod
    def from_encoding(cls, enc: Encoding) -> ShardParams:
        """The parameters of ``enc``'s space."""
        n_codes = enc.n_codes.astype(np.int64) if len(enc.n_codes) else np.zeros(0, dtype=np.int64)
        return cls(int(enc.mode), np.ascontiguousarray(enc.num_weight, dtype=np.float64),
                   np.ascontiguousarray(enc.cat_cost, dtype=np.float64), n_codes, float(enc.scale),
                   bool(enc.integer_valued))

    def query_order(self, qnum: NDArray[np.float64], qcat: NDArray[np.int64]) -> NDArray[np.int64]:
        """The tree walk's visiting order of a block of queries (:func:`.tree.query_order` with this space's
        metric), found once per block and shared by its searches against every shard; results do not depend
        on it."""
        n = qnum.shape[0]
        if n < 2:
            return np.arange(n, dtype=np.int64)
        from .._compiled import COMPILED

        if not COMPILED:  # the NumPy engines read every reference: no visiting order
            return np.arange(n, dtype=np.int64)
        maxc = int(max(int(qcat.max()) + 1 if qcat.size else 1, int(self.n_codes.max()) if len(self.n_codes) else 1))
        perm, *_ = _build(self.mode, np.ascontiguousarray(qnum), np.ascontiguousarray(qcat), self.w, self.cost,
                          np.full(qcat.shape[1], maxc, dtype=np.int64), _ORDER_LEAF_SIZE)
        return perm.astype(np.int64)

    def build(self, num: NDArray[np.float64], cat: NDArray[np.int64]) -> RefTree:
        """The tree of one shard's rows (positions within the shard), as :func:`.tree.build_tree` builds it."""
        from .._compiled import COMPILED

        return _assemble(self.mode, num, cat, self.w, self.cost, self.n_codes, self.scale, self.exact,
                         split=COMPILED)


def shard_bounds(m: int, shard_rows: int) -> list[tuple[int, int]]:
    """Contiguous ``(start, end)`` ranges of at most ``shard_rows`` references covering ``0:m``, of equal sizes
    within one record.

    Examples
    --------
    >>> shard_bounds(10, 4)
    [(0, 3), (3, 7), (7, 10)]
    >>> shard_bounds(0, 4)
    []
    """
    if shard_rows < 1:
        raise ValueError(f"shard_rows must be at least 1, got {shard_rows}")
    if m <= 0:
        return []
    count = -(-m // shard_rows)
    edges = np.linspace(0, m, count + 1).round().astype(np.int64)
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:]) if b > a]


def _local_self(self_pos: NDArray[np.int64], start: int, end: int) -> NDArray[np.int64]:
    """Global positions to skip, as positions within the shard ``start:end`` (-1 where outside it)."""
    inside = (self_pos >= start) & (self_pos < end)
    return np.where(inside, self_pos - start, -1).astype(np.int64)


def search_shard(tree: RefTree, start: int, qnum: NDArray[np.float64], qcat: NDArray[np.int64],
                 self_pos: NDArray[np.int64], k: int, choice: SearchChoice, *, presorted: bool = False,
                 ) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.bool_]]:
    """One shard's k-best lists for a block of queries.

    Parameters
    ----------
    tree : RefTree
        The shard's tree (:meth:`ShardParams.build`), positions within the shard.
    start : int
        The shard's first position in the whole reference set.
    qnum, qcat : ndarray, shape (n, q) float64 and (n, c) int64
        The queries, C-contiguous.
    self_pos : ndarray of int64, shape (n,)
        Position in the whole reference set each query skips (-1: none).
    k : int
    choice : SearchChoice
        The engine of the whole search (a CPU engine).
    presorted : bool, default False
        The queries are already in the tree walk's visiting order (:meth:`ShardParams.query_order`, found once
        per block for every shard); otherwise the tree engine orders them itself.

    Returns
    -------
    dist : ndarray of float64, shape (n, k)
    idx : ndarray of int64, shape (n, k)
        Positions in the whole reference set (-1 past the shard's references).
    near : ndarray of bool, shape (n,)
        The engine's near-tie marks (:func:`.search.run_engine`).
    """
    near = np.zeros(qnum.shape[0], dtype=np.bool_)
    order = (lambda: np.arange(qnum.shape[0], dtype=np.int64)) if presorted else None
    d, i = run_engine(choice, tree, qnum, qcat, _local_self(self_pos, start, start + tree.size), k, order=order,
                      near_out=near)
    i = np.where(i >= 0, i + start, -1)
    return d, i, near


def merge_shards(parts: list[tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.bool_]]], k: int,
                 exact: bool) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]]:
    """Merge the shards' lists of one block of queries (steps 1 to 3 of the module docstring).

    Parameters
    ----------
    parts : list of (dist, idx, near)
        :func:`search_shard`'s result for each shard, global positions.
    k : int
    exact : bool
        The space's distances are integers (no near ties can exist).

    Returns
    -------
    dist : ndarray of float64, shape (n, k)
        The k smallest distances, ascending (final).
    idx : ndarray of int64, shape (n, k)
        The order by (distance, position); final except in ``rows``.
    rows : ndarray of int64
        The rows to decide again from every reference in their tie window (:func:`decide_rows`).
    """
    D = np.concatenate([p[0] for p in parts], axis=1)
    I_ = np.concatenate([p[1] for p in parts], axis=1)
    n = D.shape[0]
    if n == 0 or k == 0:
        return np.full((n, k), np.inf), np.full((n, k), -1, dtype=np.int64), np.zeros(0, dtype=np.int64)
    # unfilled slots (inf, -1) sort after every reference: -1 would sort first among equal distances
    order = np.lexsort((np.where(I_ < 0, np.iinfo(np.int64).max, I_), D), axis=1)
    V = np.take_along_axis(D, order, axis=1)
    dist = np.ascontiguousarray(V[:, :k])
    idx = np.ascontiguousarray(np.take_along_axis(I_, order[:, :k], axis=1))
    if exact:
        return dist, idx, np.zeros(0, dtype=np.int64)
    unsafe = np.zeros(n, dtype=np.bool_)
    for _, _, near in parts:
        unsafe |= near
    dk = dist[:, k - 1]
    for d_s, i_s, _ in parts:
        last = d_s[:, k - 1]
        unsafe |= (i_s[:, k - 1] >= 0) & (last != dk) & tied(last, dk, False)
    with np.errstate(invalid="ignore"):
        cand = (V <= dk[:, None]) | tied(V, dk[:, None], False)
    # distances are non-negative: a pair tied but unequal exists among the sorted candidates exactly when two
    # neighbouring distinct values are tied
    unsafe |= (cand[:, 1:] & (V[:, 1:] != V[:, :-1]) & tied(V[:, 1:], V[:, :-1], False)).any(axis=1)
    return dist, idx, np.nonzero(unsafe)[0].astype(np.int64)


def shard_candidates(tree: RefTree, start: int, qnum: NDArray[np.float64], qcat: NDArray[np.int64],
                     self_pos: NDArray[np.int64], dk: NDArray[np.float64], choice: SearchChoice | None = None,
                     ) -> list[tuple[NDArray[np.float64], NDArray[np.int64]]]:
    """Every reference of one shard at a distance at most ``dk[x]`` or tied with it, for each query ``x``.

    As :func:`.kernels.resolve_near_ties` does for one tree: the shard's tree walk finds a list of
    :data:`.kernels.RESEARCH_EXTRA` + 8 references by (distance, position), four times longer while the list
    ends inside the tie window of ``dk[x]`` (many references at one distance); without numba, and beyond
    :data:`.kernels.RESEARCH_MAX_K`, the remaining queries scan every reference of the shard, their distances
    accumulated as the compiled kernels do (:func:`.vectorised.accumulate`: the same bits). ``choice`` is
    accepted for the caller's convenience and not needed (every engine gives the same lists).

    Returns
    -------
    list of (dist, idx)
        Per query: the candidates' distances and positions in the whole reference set.
    """
    from .._compiled import COMPILED
    from .kernels import RESEARCH_EXTRA, RESEARCH_MAX_K
    from .search import _knn_tree
    from .tree import query_order

    n = qnum.shape[0]
    m = tree.size
    own = _local_self(self_pos, start, start + m)
    out: list[tuple[NDArray[np.float64], NDArray[np.int64]]] = [(np.zeros(0), np.zeros(0, dtype=np.int64))] * n
    rows = np.arange(n, dtype=np.int64)
    kk = RESEARCH_EXTRA + 8
    with np.errstate(invalid="ignore"):
        # lists in the order by (distance, position), not decided again: entry j's distance is its reference's
        while COMPILED and len(rows) and kk <= RESEARCH_MAX_K and kk < m:
            qn, qc = np.ascontiguousarray(qnum[rows]), np.ascontiguousarray(qcat[rows])
            d2, i2 = _knn_tree(tree, qn, qc, own[rows], kk, query_order(tree, qn, qc), progress=False,
                               desc="candidates", resolve=False)
            last = d2[:, -1]
            window = dk[rows]
            done = (i2[:, -1] < 0) | ((last > window) & ~tied(last, window, tree.exact))
            for x in np.nonzero(done)[0]:
                hit = (i2[x] >= 0) & ((d2[x] <= window[x]) | tied(d2[x], window[x], tree.exact))
                out[rows[x]] = (d2[x][hit].copy(), i2[x][hit] + start)
            rows = rows[~done]
            kk *= 4
        if not len(rows):
            return out
        rnum, rcat = position_order(tree)
        step = max(1, BLOCK_PAIRS // max(1, m))
        for s in range(0, len(rows), step):
            block = rows[s:s + step]
            d = to_dist(tree.mode, accumulate(tree.mode, qnum[block], qcat[block], rnum, rcat, tree.w, tree.cost),
                        tree.scale)
            for x, r in enumerate(block):
                row = d[x]
                if own[r] >= 0:
                    row[own[r]] = np.inf
                hit = np.nonzero(((row <= dk[r]) | tied(row, dk[r], tree.exact)) & np.isfinite(row))[0]
                out[r] = (row[hit].copy(), hit.astype(np.int64) + start)
    return out


def decide_rows(rows: NDArray[np.int64], idx: NDArray[np.int64],
                candidates: list[list[tuple[NDArray[np.float64], NDArray[np.int64]]]], exact: bool) -> None:
    """Decide ``idx[rows]`` in place by the tie rule (:func:`.kernels._pick`) from every shard's candidates.

    Parameters
    ----------
    rows : ndarray of int64
        Rows of ``idx`` (the rows :func:`merge_shards` returned).
    idx : ndarray of int64, shape (n, k)
    candidates : list
        Per shard, :func:`shard_candidates` of the queries ``rows`` (in that order).
    exact : bool
    """
    k = idx.shape[1]
    for x, r in enumerate(rows):
        cd = np.concatenate([c[x][0] for c in candidates])
        ci = np.concatenate([c[x][1] for c in candidates])
        idx[r, :] = -1
        _pick(np.ascontiguousarray(cd, dtype=np.float64), np.ascontiguousarray(ci, dtype=np.int64), int(cd.shape[0]),
              k, int(r), idx, bool(exact))


def knn_sharded(shards: list[tuple[int, RefTree]], qnum: NDArray[np.float64], qcat: NDArray[np.int64], *, k: int,
                exclude_self: bool, choice: SearchChoice) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """The search of :func:`.search.knn` against a sharded reference set, in this process.

    Parameters
    ----------
    shards : list of (start, RefTree)
        The shards in position order, each with its first position (:func:`shard_bounds`).
    qnum, qcat : ndarray
        The queries.
    k : int
    exclude_self : bool
        Query i is reference i (a within-set search).
    choice : SearchChoice
        A CPU engine for every shard (:func:`.search.choose_engine`).

    Returns
    -------
    dist, idx : ndarray, shape (n_query, k)
        Bit for bit those of one tree over the whole reference set.

    Examples
    --------
    >>> import pandas as pd
    >>> from synthpriv_report.data import prepare
    >>> from synthpriv_report.neighbors import build_tree, knn
    >>> from synthpriv_report.neighbors.search import SearchChoice
    >>> from synthpriv_report.spaces import SpaceSpec, encode, fit
    >>> d = prepare(pd.DataFrame({"x": [2.0, 0.0, 1.0, 2.0, 3.0]}), pd.DataFrame({"x": [2.0, 0.4]}))
    >>> enc = encode(d, fit(d), SpaceSpec("gower"))
    >>> p = ShardParams.from_encoding(enc)
    >>> T = enc.num["T"], enc.cat["T"]
    >>> shards = [(a, p.build(T[0][a:b], T[1][a:b])) for a, b in shard_bounds(5, 2)]
    >>> dist, idx = knn_sharded(shards, enc.num["S"], enc.cat["S"], k=2, exclude_self=False,
    ...                         choice=SearchChoice("tree", "cpu", "doc"))
    >>> idx.tolist()  # 2.0 is T0 and T3 (two shards): the lower position first
    [[0, 3], [1, 2]]
    >>> one = knn(build_tree(enc, "T"), enc.num["S"], enc.cat["S"], k=2)
    >>> bool((one[0] == dist).all() and (one[1] == idx).all())
    True
    """
    qnum = np.ascontiguousarray(qnum, dtype=np.float64)
    qcat = np.ascontiguousarray(qcat, dtype=np.int64)
    n = qnum.shape[0]
    self_pos = np.arange(n, dtype=np.int64) if exclude_self else np.full(n, -1, dtype=np.int64)
    if not shards:
        return np.full((n, k), np.inf), np.full((n, k), -1, dtype=np.int64)
    parts = [search_shard(tree, start, qnum, qcat, self_pos, k, choice) for start, tree in shards]
    dist, idx, rows = merge_shards(parts, k, shards[0][1].exact)
    if len(rows):
        cands = [shard_candidates(tree, start, qnum[rows], qcat[rows], self_pos[rows], dist[rows, k - 1], choice)
                 for start, tree in shards]
        decide_rows(rows, idx, cands, shards[0][1].exact)
    return dist, idx
