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
The module holds no Dask code: :mod:`synthpriv_report.cluster.distributed` runs :func:`search_shard` and
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

__all__ = ["ShardParams", "shard_bounds", "search_shard", "merge_shards", "Candidates", "pickable",
           "shard_candidates", "decide_rows", "knn_sharded", "CANDIDATE_ENTRIES"]


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


#: Most (query, reference) entries one candidate walk holds at once (:func:`shard_candidates`): a block of
#: queries is walked ``CANDIDATE_ENTRIES // list length`` rows at a time, so a task's lists stay near 64 MB.
CANDIDATE_ENTRIES = 1 << 22


@dataclass(frozen=True)
class Candidates:
    """One shard's candidates for a block of queries, packed: query ``x``'s distances are
    ``dist[start[x]:start[x + 1]]`` and their positions in the whole reference set ``idx[start[x]:start[x + 1]]``,
    in the order by (distance, position)."""

    start: NDArray[np.int64]
    dist: NDArray[np.float64]
    idx: NDArray[np.int64]

    def row(self, x: int) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
        """Query ``x``'s candidates ``(dist, idx)``."""
        a, b = int(self.start[x]), int(self.start[x + 1])
        return self.dist[a:b], self.idx[a:b]


def pickable(dist: NDArray[np.float64], idx: NDArray[np.int64], k: int) -> NDArray[np.int64]:
    """Which of one query's candidates the tie rule (:func:`.kernels._pick`) can still pick, in the order by
    (distance, position): the others may be left out of its input without changing what it picks.

    A candidate ``c`` with ``k`` others at a distance at most ``c``'s and of lower positions is never picked: in any
    slot where ``c`` is tied with the smallest remaining distance, each of them still untaken lies between that
    distance and ``c``'s, so is tied with it too and comes first by position; and once all ``k`` are taken, the
    ``k`` slots are filled. Nor does leaving ``c`` out change the smallest remaining distance before that. The
    candidates kept are the first ``k`` layers of prefix minima of the positions in the order by (distance,
    position) (a candidate in none of them has one such other in each layer): at most ``k`` of references at one
    distance (copies), and about ``k`` times the logarithm of the list's length where positions come in no order.

    Parameters
    ----------
    dist : ndarray of float64
    idx : ndarray of int64
        Distinct positions.
    k : int

    Returns
    -------
    ndarray of int64
        Indices into ``dist``/``idx`` of the candidates to keep, in the order by (distance, position).

    Examples
    --------
    >>> d = np.array([0.5, 0.5, 0.5, 0.5, 0.2])
    >>> i = np.array([7, 3, 9, 1, 8])
    >>> pickable(d, i, 2).tolist()  # the copies at 0.5: positions 1 and 3 only; 0.2 comes first
    [4, 3, 1]
    """
    order = np.lexsort((idx, dist))
    if order.shape[0] <= k:
        return order.astype(np.int64)
    pos = idx[order]
    keep = np.zeros(order.shape[0], dtype=np.bool_)
    rest = np.arange(order.shape[0])
    for _ in range(k):
        if not rest.size:
            break
        p = pos[rest]
        before = np.empty_like(p)
        before[0] = np.iinfo(np.int64).max
        np.minimum.accumulate(p[:-1], out=before[1:])
        layer = p < before
        keep[rest[layer]] = True
        rest = rest[~layer]
    return order[keep].astype(np.int64)


def shard_candidates(tree: RefTree, start: int, qnum: NDArray[np.float64], qcat: NDArray[np.int64],
                     self_pos: NDArray[np.int64], dk: NDArray[np.float64], k: int,
                     choice: SearchChoice | None = None) -> Candidates:
    """The references of one shard the tie rule may pick for each query ``x``: of those at a distance at most
    ``dk[x]`` or tied with it, the ones :func:`pickable` keeps.

    As :func:`.kernels.resolve_near_ties` does for one tree: the shard's tree walk finds a list of
    :data:`.kernels.RESEARCH_EXTRA` + 8 references by (distance, position), four times longer while the list
    ends inside the tie window of ``dk[x]`` (many references at one distance); without numba, and beyond
    :data:`.kernels.RESEARCH_MAX_K`, the remaining queries scan every reference of the shard, their distances
    accumulated as the compiled kernels do (:func:`.vectorised.accumulate`: the same bits). Walks take at most
    :data:`CANDIDATE_ENTRIES` list entries at a time, and each query keeps only what :func:`pickable` keeps, so a
    task's memory does not grow with the number of references in a tie window (a shard of many copies of one
    record). ``choice`` is accepted for the caller's convenience and not needed (every engine gives the same
    lists).

    Returns
    -------
    Candidates
        Per query, the candidates' distances and positions in the whole reference set.
    """
    from .._compiled import COMPILED
    from .kernels import RESEARCH_EXTRA, RESEARCH_MAX_K
    from .search import _knn_tree
    from .tree import query_order

    n = qnum.shape[0]
    m = tree.size
    own = _local_self(self_pos, start, start + m)
    out: list[tuple[NDArray[np.float64], NDArray[np.int64]]] = [(np.zeros(0), np.zeros(0, dtype=np.int64))] * n

    def keep(r: int, d: NDArray[np.float64], i: NDArray[np.int64]) -> None:
        sel = pickable(d, i, k)
        out[r] = (d[sel].copy(), i[sel] + start)

    rows = np.arange(n, dtype=np.int64)
    kk = RESEARCH_EXTRA + 8
    with np.errstate(invalid="ignore"):
        # lists in the order by (distance, position), not decided again: entry j's distance is its reference's
        while COMPILED and len(rows) and kk <= RESEARCH_MAX_K and kk < m:
            left = []
            step = max(1, CANDIDATE_ENTRIES // kk)
            for c in range(0, len(rows), step):
                sub = rows[c:c + step]
                qn, qc = np.ascontiguousarray(qnum[sub]), np.ascontiguousarray(qcat[sub])
                d2, i2 = _knn_tree(tree, qn, qc, own[sub], kk, query_order(tree, qn, qc), progress=False,
                                   desc="candidates", resolve=False)
                last = d2[:, -1]
                window = dk[sub]
                done = (i2[:, -1] < 0) | ((last > window) & ~tied(last, window, tree.exact))
                for x in np.nonzero(done)[0]:
                    hit = (i2[x] >= 0) & ((d2[x] <= window[x]) | tied(d2[x], window[x], tree.exact))
                    keep(int(sub[x]), d2[x][hit], i2[x][hit])
                left.append(sub[~done])
                del d2, i2
            rows = np.concatenate(left)
            kk *= 4
        if len(rows):
            rnum, rcat = position_order(tree)
            step = max(1, BLOCK_PAIRS // max(1, m))
            for s in range(0, len(rows), step):
                block = rows[s:s + step]
                d = to_dist(tree.mode, accumulate(tree.mode, qnum[block], qcat[block], rnum, rcat, tree.w,
                                                  tree.cost), tree.scale)
                for x, r in enumerate(block):
                    row = d[x]
                    if own[r] >= 0:
                        row[own[r]] = np.inf
                    hit = np.nonzero(((row <= dk[r]) | tied(row, dk[r], tree.exact)) & np.isfinite(row))[0]
                    keep(int(r), row[hit], hit.astype(np.int64))
    counts = np.array([len(d) for d, _ in out], dtype=np.int64)
    starts = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    dist = np.concatenate([d for d, _ in out]) if n else np.zeros(0)
    idx = np.concatenate([i for _, i in out]) if n else np.zeros(0, dtype=np.int64)
    return Candidates(starts, dist.astype(np.float64, copy=False), idx.astype(np.int64, copy=False))


def decide_rows(rows: NDArray[np.int64], idx: NDArray[np.int64], candidates: list[Candidates], exact: bool) -> None:
    """Decide ``idx[rows]`` in place by the tie rule (:func:`.kernels._pick`) from every shard's candidates.

    Parameters
    ----------
    rows : ndarray of int64
        Rows of ``idx`` (the rows :func:`merge_shards` returned).
    idx : ndarray of int64, shape (n, k)
    candidates : list of Candidates
        Per shard, :func:`shard_candidates` of the queries ``rows`` (in that order).
    exact : bool
    """
    k = idx.shape[1]
    for x, r in enumerate(rows):
        parts = [c.row(x) for c in candidates]
        cd = np.concatenate([p[0] for p in parts])
        ci = np.concatenate([p[1] for p in parts])
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
        cands = [shard_candidates(tree, start, qnum[rows], qcat[rows], self_pos[rows], dist[rows, k - 1], k, choice)
                 for start, tree in shards]
        decide_rows(rows, idx, cands, shards[0][1].exact)
    return dist, idx
