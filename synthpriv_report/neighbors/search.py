"""Exact k-nearest-neighbour search: the tree walk, and :func:`knn`, which picks the engine (tree, dense filter and
refine, tiled kernel, GPU) and records which ran and why.

A query walks the tree nearest box first and skips every box whose lower bound exceeds its current k-th distance
(with the package's tie tolerance (docs/metrics.md, "Ties, self-matches and nearest records") added, so no record at
a tied distance is skipped); bounds and leaf
distances stop early once the category mismatches alone exceed it. Queries are visited in the leaf order of a
tree built on the queries, each starting from the previous query's neighbours (warm start); the result of a query
does not depend on either.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from .._compiled import COMPILED, njit, prange
from ..spaces import MODE_L2
from .dense import _knn_dense
from .kernels import _CHUNK, _acc, _acc_within, _offer, query_chunks, resolve_near_ties
from .tiled import knn_tiled
from .tree import RefTree, query_order

Engine = Literal["auto", "tree", "tiled"]
Device = Literal["cpu", "cuda", "auto"]

#: Dense numeric spaces with at least this many coordinates and no categorical column (the projected space) are
#: searched by blocked matrix products followed by an exact re-check (trees lose their pruning in many dense
#: dimensions).
DENSE_MIN_DIMS = 12
#: Automatic choice: below this many query x reference pairs the tree runs without sampling.
AUTO_MIN_PAIRS = 4_000_000
#: Queries the automatic choice runs through the tree.
AUTO_SAMPLE = 64
#: Cost of the tiled kernel per reference and column relative to the tree's per unit of work (a reference
#: scored or a node bounded) and column: the tiled kernel is chosen when the tree's sampled work exceeds this
#: share of the reference set. Measured on 2 cores (benchmarks/bench_engine.py): the tree costs 2 to 6.5 ns per
#: unit and column, the tiled kernel 0.1 to 0.13 ns per reference and column; the break-even shares on Adult
#: (gower, euclidean, hamming; S -> T k=1, T -> T k=5) and on wide unstructured data lie between 0.02 and 0.045.
TILED_RELATIVE_COST = 0.025
#: Dense spaces (the projected space): below this many query x reference pairs the matrix-product filter runs
#: without sampling (at 100k x 100k it takes tens of seconds on 2 cores, and it grows with the product).
DENSE_AUTO_MIN_PAIRS = 4_000_000_000
#: Cost of the dense filter per reference relative to the tree's per unit of work: the tree is chosen over it when
#: the tree's sampled work share is below this. Measured on 2 cores (Adult-like data, 300k records per set, 39
#: projected coordinates, 20k queries, k=2): the filter 2.5 to 3.3 ns per query-reference pair, the tree about
#: 80 ns per unit of work at a sampled share of 0.27% (1.0-1.6 s against 15-20 s).
DENSE_RELATIVE_COST = 0.03


@dataclass(frozen=True)
class SearchChoice:
    """Which engine ran a search and why.

    Attributes
    ----------
    engine : {"tree", "dense", "tiled", "numpy"}
        ``tree``: the tree walk; ``dense``: the projected space's matrix-product filter and refine; ``tiled``:
        the tiled brute-force kernel; ``numpy``: the blocked brute force in NumPy, where numba is absent
        (:mod:`.vectorised`).
    device : {"cpu", "cuda"}
    reason : str
        One sentence: forced by the caller, or the estimate that decided.
    visited_share : float or None
        The tree's sampled work per query as a share of the reference set (a reference scored or a node bounded
        counts one), when it was estimated.
    """

    engine: str
    device: str
    reason: str
    visited_share: float | None = None

    def to_dict(self) -> dict:
        return {"engine": self.engine, "device": self.device, "reason": self.reason,
                "visited_share": self.visited_share}


#: Reads ``k`` columns of a deferred table: ``load("dist" | "idx", k)`` gives an array of shape ``(n_query, k)``.
ColumnLoader = Callable[[str, int], NDArray]


class NeighborTable:
    """k nearest reference records of every query record.

    A table is made from its two arrays, or deferred (:meth:`deferred`): its rows are kept elsewhere (on the
    workers of a Dask cluster) and each array is read once, on first use, and only its first ``k`` columns, so
    that a metric which reduces the first column never brings the others to the calling process.

    Attributes
    ----------
    dist : ndarray, shape (n_query, k)
        The k smallest distances, ascending. ``inf`` where fewer than k references exist.
    idx : ndarray, shape (n_query, k)
        Reference positions (within the reference set), ``-1`` where fewer than k references exist: slot by
        slot, of the references not yet taken that tie with the smallest remaining distance, the lowest position
        (so ``idx[:, 0]`` is the lowest position at the row minimum, ties by the tolerance of docs/metrics.md,
        "Shared machinery").
    space : str
        Label of the space.
    query, ref : str
        Labels of the query and reference sets.
    choice : SearchChoice, optional
        The engine that computed the table (``knn(..., info=...)`` fills one).
    """

    __slots__ = ("_dist", "_idx", "_load", "_k", "_keep", "space", "query", "ref", "choice")

    def __init__(self, dist: NDArray[np.float64], idx: NDArray[np.int64], space: str, query: str, ref: str,
                 choice: SearchChoice | None = None):
        self._dist: NDArray[np.float64] | None = dist
        self._idx: NDArray[np.int64] | None = idx
        self._load: ColumnLoader | None = None
        self._k = int(dist.shape[1])
        self._keep = True
        self.space, self.query, self.ref, self.choice = space, query, ref, choice

    @classmethod
    def deferred(cls, k: int, load: ColumnLoader, space: str, query: str, ref: str,
                 choice: SearchChoice | None = None, *, keep: bool = True) -> NeighborTable:
        """A table of ``k`` columns whose arrays ``load(which, k)`` reads on first use.

        ``keep=False`` makes a handle that keeps nothing it reads (each use reads again): what a cache holds, so
        that the arrays live only as long as the tables :meth:`head` hands out.
        """
        table = cls.__new__(cls)
        table._dist = table._idx = None
        table._load, table._k, table._keep = load, int(k), keep
        table.space, table.query, table.ref, table.choice = space, query, ref, choice
        return table

    @property
    def is_deferred(self) -> bool:
        """Whether the arrays are read from elsewhere on use (:meth:`deferred`)."""
        return self._load is not None

    def _column_block(self, which: str) -> NDArray:
        have = self._dist if which == "dist" else self._idx
        if have is not None:
            return have
        assert self._load is not None
        got = self._load(which, self._k)
        if got.ndim != 2 or got.shape[1] != self._k:
            raise ValueError(f"a deferred table read {which} of shape {got.shape}, expected {self._k} columns")
        if self._keep:
            if which == "dist":
                self._dist = got
            else:
                self._idx = got
        return got

    @property
    def dist(self) -> NDArray[np.float64]:
        return self._column_block("dist")

    @property
    def idx(self) -> NDArray[np.int64]:
        return self._column_block("idx")

    @property
    def k(self) -> int:
        return self._k

    def row_means(self) -> NDArray[np.float64]:
        """Each query record's mean distance to its ``k`` neighbours, ``dist.mean(axis=1)``, bit for bit. A
        deferred table whose arrays are not held asks its loader for ``"mean"``: where the lists are held
        elsewhere (on Dask workers) the means are made there, from the same rows, and 8 bytes a record come
        back instead of ``8 k``."""
        if self._dist is None and self._load is not None:
            got = self._load("mean", self._k)
            if got.ndim != 1:
                raise ValueError(f"a deferred table read row means of shape {got.shape}, expected one value a row")
            return got
        return np.asarray(self.dist, dtype=np.float64).mean(axis=1)

    def head(self, k: int) -> NeighborTable:
        """The first ``k`` neighbours; asking for more than were searched is an error, not a silent recompute.
        A deferred table's head is deferred too (nothing is read until it is used) and keeps what it reads."""
        if k > self.k:
            raise ValueError(f"{k} neighbours requested but only {self.k} were searched")
        if self._load is not None and (self._dist is None or self._idx is None):
            load = self._load
            return NeighborTable.deferred(k, load, self.space, self.query, self.ref, self.choice)
        return NeighborTable(self.dist[:, :k], self.idx[:, :k], self.space, self.query, self.ref, self.choice)

    def __repr__(self) -> str:
        how = "deferred" if self._load is not None else "in memory"
        return f"NeighborTable({self.space}: {self.query} -> {self.ref}, k={self.k}, {how})"


# ---------------------------------------------------------------------------------------------------------------
# lower bounds of a node


@njit(cache=True, inline="always")
def _query_bits(qc, n_words, qword, qbit):
    """The bitmask word and bit of each query code (``qbit`` 0 for a code beyond the bitmasks); returns whether
    any code lies beyond them (those columns are bounded by the node's code range instead)."""
    beyond = False
    for j in range(qc.shape[0]):
        wi = qc[j] >> 6
        if wi < n_words:
            qword[j] = wi
            qbit[j] = np.uint64(1) << np.uint64(qc[j] & 63)
        else:
            qword[j] = 0
            qbit[j] = np.uint64(0)
            beyond = True
    return beyond


@njit(cache=True, inline="always")
def _cat_lower_bound(node, qc, qword, qbit, beyond, mask, cost):
    """Category part of :func:`_lower_bound`: the costs of the query codes absent from the node (``qbit`` not
    in the node's bitmask, or for codes beyond the bitmasks outside its code range)."""
    acc = 0.0
    for j in range(cost.shape[0]):
        absent = (qbit[j] & ~mask[node, qword[j], j]) != np.uint64(0)
        acc += cost[j] if absent else 0.0
    if beyond:
        n_words = mask.shape[1] - 2
        for j in range(cost.shape[0]):
            ucode = np.uint64(qc[j])
            if (qc[j] >> 6) >= n_words and (ucode < mask[node, n_words, j] or ucode > mask[node, n_words + 1, j]):
                acc += cost[j]
    return acc


@njit(cache=True, inline="always")
def _num_lower_bound(mode, node, qn, nmin, nmax, nnan, w):
    """Numeric part of :func:`_lower_bound`: the accumulator from the query to the node's numeric box."""
    acc = 0.0
    if mode == 0:
        for j in range(w.shape[0]):
            a = qn[j]
            lo = nmin[node, j]
            hi = nmax[node, j]
            if a != a:
                if not nnan[node, j]:
                    acc += 1.0
            elif hi < lo:  # every member missing
                acc += 1.0
            else:
                g = max(lo - a, a - hi, 0.0)
                acc += g if g < 1.0 else 1.0
    elif mode == 1:
        for j in range(w.shape[0]):
            a = qn[j]
            g = max(nmin[node, j] - a, a - nmax[node, j], 0.0)
            acc += w[j] * g * g
    return acc


@njit(cache=True, inline="always")
def _lower_bound(tr, node, qn, qc, qword, qbit, beyond, bound):
    """Lower bound of the accumulator between the query and any record of ``node`` of tree ``tr``.

    The category part comes first; once it exceeds ``bound`` it is returned alone, since the node is pruned
    whatever its numeric part (every use compares with ``bound``). The two parts are computed by separate
    loops and added once (an accumulator carried across the mode branch ran three times slower).
    """
    c = _cat_lower_bound(node, qc, qword, qbit, beyond, tr.mask, tr.cost)
    if c > bound:
        return c
    return c + _num_lower_bound(tr.mode, node, qn, tr.nmin, tr.nmax, tr.nnan, tr.w)


# ---------------------------------------------------------------------------------------------------------------
# tree walk


@njit(cache=True, inline="always")
def _knn_one(qi, qn, qc, self_pos, k, tr, out_d, out_i, stack_n, stack_lb, warm, out_t, qword, qbit, near_tie):
    """k nearest references of query ``qi`` by a walk of tree ``tr``; returns the work done (references scored
    plus nodes bounded), the cost measure of the automatic engine choice."""
    mode, rnum, rcat, perm, w, cost, scale, exact = tr.mode, tr.num, tr.cat, tr.perm, tr.w, tr.cost, tr.scale, tr.exact
    start, end, left, right = tr.start, tr.end, tr.left, tr.right
    count = 0
    bound = np.inf
    work = 0
    beyond = _query_bits(qc, tr.mask.shape[1] - 2, qword, qbit)
    # warm start: the neighbours of the previous (similar) query give a tight bound at once
    for c in range(warm.shape[0]):
        t = warm[c]
        if t >= 0 and perm[t] != self_pos:
            acc = _acc(mode, qn, qc, rnum, rcat, t, w, cost)
            count, bound = _offer(qi, t, perm[t], acc, count, k, bound, mode, scale, exact, out_d, out_i, out_t,
                                      near_tie)
    stack_n[0] = 0
    stack_lb[0] = 0.0
    sp = 1
    while sp > 0:
        sp -= 1
        node = stack_n[sp]
        if count == k and stack_lb[sp] > bound:
            continue
        if left[node] < 0:
            work += end[node] - start[node]
            for t in range(start[node], end[node]):
                ridx = perm[t]
                if ridx == self_pos:
                    continue
                acc = _acc_within(mode, qn, qc, rnum, rcat, t, w, cost, bound)
                count, bound = _offer(qi, t, ridx, acc, count, k, bound, mode, scale, exact, out_d, out_i, out_t,
                                      near_tie)
        else:
            work += 2
            lc = left[node]
            r = right[node]
            lbl = _lower_bound(tr, lc, qn, qc, qword, qbit, beyond, bound)
            lbr = _lower_bound(tr, r, qn, qc, qword, qbit, beyond, bound)
            near, far, lbn, lbf = (lc, r, lbl, lbr) if lbl <= lbr else (r, lc, lbr, lbl)
            full = count == k
            if not (full and lbf > bound):  # children beyond the bound are never pushed
                stack_n[sp] = far
                stack_lb[sp] = lbf
                sp += 1
            if not (full and lbn > bound):
                stack_n[sp] = near
                stack_lb[sp] = lbn
                sp += 1
    return work


@njit(cache=True, parallel=True)
def _knn_batch(qnum, qcat, order, self_pos, k, tr, work, near):
    """Tree search of the queries ``order`` (positions in qnum), 64 consecutive ones per task, each warm-started
    from the previous one's neighbours; ``work[qq]`` receives the work of query ``order[qq]``, ``near[qi]`` the
    near-tie mark of query ``qi`` (:func:`.kernels._offer`).

    :func:`_knn_one` is inlined into the parallel loop: 20% faster than base on Adult (gower, 1 thread: 0.52 s
    instead of 0.66 s) where a call per query, or inlining into a per-block function, ran 10% slower than
    base; it costs about 15 s more compile time once (numba caches the result on disk).
    """
    n = qnum.shape[0]
    out_d = np.full((n, k), np.inf)
    out_i = np.full((n, k), -1, dtype=np.int64)
    n_nodes = tr.start.shape[0]
    n_q = order.shape[0]
    n_blocks = (n_q + 63) // 64
    for b in prange(n_blocks):
        stack_n = np.empty(n_nodes + 2, dtype=np.int64)
        stack_lb = np.empty(n_nodes + 2, dtype=np.float64)
        warm = np.full(k, -1, dtype=np.int64)
        out_t = np.full(k, -1, dtype=np.int64)
        qword = np.empty(qcat.shape[1], dtype=np.int64)
        qbit = np.empty(qcat.shape[1], dtype=np.uint64)
        for qq in range(b * 64, min(n_q, (b + 1) * 64)):
            qi = order[qq]
            for c in range(k):
                out_t[c] = -1
            work[qq] = _knn_one(qi, qnum[qi], qcat[qi], self_pos[qi], k, tr, out_d, out_i, stack_n, stack_lb,
                                warm, out_t, qword, qbit, near)
            for c in range(k):
                warm[c] = out_t[c]
    return out_d, out_i


def _knn_tree(tree: RefTree, qnum, qcat, self_pos, k, order, *, progress: bool, desc: str, resolve: bool = True,
              near_out: NDArray[np.bool_] | None = None):
    """The tree walk of every query (in ``order``), near ties decided again unless ``resolve`` is false;
    ``near_out`` (in query order) receives the near-tie marks (:func:`.kernels._offer`)."""
    n = qnum.shape[0]
    out_d = np.empty((n, k))
    out_i = np.empty((n, k), dtype=np.int64)
    qnum, qcat, self_pos = qnum[order], qcat[order], self_pos[order]
    local = np.arange(_CHUNK, dtype=np.int64)
    work = np.empty(_CHUNK, dtype=np.int64)
    near = np.zeros(n, dtype=np.bool_)
    for s, e in query_chunks(n, desc, progress):
        d, i = _knn_batch(qnum[s:e], qcat[s:e], local[:e - s], self_pos[s:e], k, tree, work, near[s:e])
        out_d[s:e] = d
        out_i[s:e] = i
    if resolve:
        resolve_near_ties(tree, qnum, qcat, self_pos, out_d, out_i, near,
                          lambda qn, qc, sp, kk: _knn_tree(tree, qn, qc, sp, kk, query_order(tree, qn, qc),
                                                           progress=False, desc=desc, resolve=False))
    if near_out is not None:
        near_out[order] = near
    back = np.empty_like(order)
    back[order] = np.arange(n)
    return out_d[back], out_i[back]


def tree_work_share(tree: RefTree, qnum: NDArray[np.float64], qcat: NDArray[np.int64],
                    self_pos: NDArray[np.int64], k: int, n_sample: int = AUTO_SAMPLE) -> float:
    """The tree's work per query (references scored plus nodes bounded) as a share of the reference set, from
    ``n_sample`` queries evenly spaced over the query set (deterministic). Without the warm starts of similar
    neighbouring queries the sample's work is not lower than the full search's (measured on Adult: 0.4% to 10%
    with or without them)."""
    n = qnum.shape[0]
    seq = np.unique(np.linspace(0, n - 1, min(n, n_sample)).astype(np.int64))
    work = np.zeros(seq.shape[0], dtype=np.int64)
    _knn_batch(qnum, qcat, seq, self_pos, k, tree, work, np.zeros(n, dtype=np.bool_))
    return float(work.mean()) / max(1, tree.size)


# ---------------------------------------------------------------------------------------------------------------
# the entry point


def _cuda_available() -> bool:
    from . import gpu

    return gpu.available()


def knn(
    tree: RefTree,
    qnum: NDArray[np.float64],
    qcat: NDArray[np.int64],
    *,
    k: int,
    exclude_self: bool = False,
    progress: bool = False,
    desc: str = "neighbours",
    engine: Engine = "auto",
    device: Device = "cpu",
    info: dict | None = None,
    order: Callable[[], NDArray[np.int64]] | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """k nearest references of each query row.

    Every engine gives the same numbers: distances bit-identical, ties by the lowest reference position.

    Parameters
    ----------
    tree : RefTree
        The reference set (:func:`build_tree`).
    qnum, qcat : ndarray
        Query rows in the same encoding.
    k : int
        Number of neighbours.
    exclude_self : bool
        Query row i is reference row i (a within-set search): it is skipped by position.
    progress : bool
        Show a progress bar for long searches.
    engine : {"auto", "tree", "tiled"}
        ``tree``: the tree walk (the projected space's matrix-product filter and refine where the space is
        dense); ``tiled``: the tiled brute-force kernel (:mod:`.tiled`); ``auto`` (default): the tree's pruning
        is estimated on a sample of queries and the cheaper engine runs.
    device : {"cpu", "cuda", "auto"}
        ``cuda``: the tiled kernel on a CUDA device (needs CuPy, the ``gpu`` extra; an error without one);
        ``auto``: the GPU when one is found, else the CPU; ``cpu`` (default).
    info : dict, optional
        Filled with ``info["choice"]``: a :class:`SearchChoice` (engine, device, reason, visited share).
    order : callable, optional
        Returns the order in which the tree walk visits the queries (called only when the tree runs; default
        :func:`query_order`, a tree built on the queries, as long to build as the reference tree). An evaluation
        passes one it keeps per query set, so that searches from the same records share it. Results do not
        depend on the order.

    Returns
    -------
    dist, idx : ndarray, shape (n_query, k)

    Examples
    --------
    >>> import pandas as pd
    >>> from synthpriv_report.data import prepare
    >>> from synthpriv_report.neighbors import build_tree
    >>> from synthpriv_report.spaces import SpaceSpec, encode, fit
    >>> d = prepare(pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]}), pd.DataFrame({"x": [0.9, 2.0]}))
    >>> enc = encode(d, fit(d), SpaceSpec("gower"))
    >>> info = {}
    >>> dist, idx = knn(build_tree(enc, "T"), enc.num["S"], enc.cat["S"], k=2, engine="tiled", info=info)
    >>> idx.tolist(), info["choice"].engine  # 2.0: T1 and T3 tie at 1/3, the lower position first
    ([[1, 0], [2, 1]], 'tiled')
    """
    if engine not in ("auto", "tree", "tiled"):
        raise ValueError(f"engine={engine!r}: choose 'auto', 'tree' or 'tiled'")
    if device not in ("cpu", "cuda", "auto"):
        raise ValueError(f"device={device!r}: choose 'cpu', 'cuda' or 'auto'")
    qnum = np.ascontiguousarray(qnum, dtype=np.float64)
    qcat = np.ascontiguousarray(qcat, dtype=np.int64)
    n = qnum.shape[0]
    self_pos = np.arange(n, dtype=np.int64) if exclude_self else np.full(n, -1, dtype=np.int64)
    choice = choose_engine(tree, qnum, qcat, self_pos, k, engine=engine, device=device)
    if info is not None:
        info["choice"] = choice
    return run_engine(choice, tree, qnum, qcat, self_pos, k, progress=progress, desc=desc, order=order)


def choose_engine(tree: RefTree, qnum: NDArray[np.float64], qcat: NDArray[np.int64], self_pos: NDArray[np.int64],
                  k: int, *, engine: Engine = "auto", device: Device = "cpu", n_total: int | None = None,
                  m_total: int | None = None) -> SearchChoice:
    """The engine :func:`knn` runs for these queries (the automatic choice samples the tree's work on 64 of
    them). ``self_pos[i]``: the reference position query i skips (-1: none). Searches split over query blocks
    (:mod:`synthpriv_report.cluster.distributed`) choose once for the whole query set and run that choice on every
    block, so the log says one engine per search. A sharded search (:mod:`.shards`) chooses on one shard's tree
    with a sample of the queries: ``n_total`` and ``m_total`` then give the sizes of the whole search (queries,
    references) for the size thresholds."""
    n = qnum.shape[0] if n_total is None else int(n_total)
    m = tree.size if m_total is None else int(m_total)
    if not COMPILED:
        return SearchChoice("numpy", "cpu", "numba is not available here: the NumPy brute force "
                            "(the same numbers as the compiled engines)")
    use_gpu = device == "cuda" or (device == "auto" and _cuda_available())
    if use_gpu:
        from .gpu import MAX_K

        if k <= MAX_K:
            return SearchChoice("tiled", "cuda", f"device={device!r}: the tiled kernel on the GPU")
        return SearchChoice("tiled", "cpu",
                            f"k={k} exceeds the GPU's k-best lists ({MAX_K}): the tiled kernel on the CPU")
    dense = tree.mode == MODE_L2 and tree.cat.shape[1] == 0 and tree.num.shape[1] >= DENSE_MIN_DIMS
    if engine == "tiled":
        return SearchChoice("tiled", "cpu", "engine='tiled' requested")
    if engine == "tree":
        return SearchChoice("dense" if dense else "tree", "cpu", "engine='tree' requested")
    if dense:
        if n * m < DENSE_AUTO_MIN_PAIRS or k >= m:
            return SearchChoice("dense", "cpu", "dense numeric space: matrix-product filter and exact refine")
        # the filter scores every pair: at scale the tree wins wherever it prunes (clustered projections do)
        share = tree_work_share(tree, qnum, qcat, self_pos, k)
        if share < DENSE_RELATIVE_COST:
            return SearchChoice("tree", "cpu", f"dense numeric space of {n} x {m} pairs, where the tree visits "
                                f"{share:.1%} of the references per sampled query (below {DENSE_RELATIVE_COST:.0%}, "
                                "where it costs less than the matrix-product filter)", share)
        return SearchChoice("dense", "cpu", f"dense numeric space: matrix-product filter and exact refine (the "
                            f"tree visits {share:.0%} of the references per sampled query)", share)
    if n * m < AUTO_MIN_PAIRS or k >= m:
        return SearchChoice("tree", "cpu", f"small search ({n} x {m} pairs)")
    share = tree_work_share(tree, qnum, qcat, self_pos, k)
    if share > TILED_RELATIVE_COST:
        return SearchChoice("tiled", "cpu", f"the tree visits {share:.0%} of the references per sampled query "
                            f"(more than {TILED_RELATIVE_COST:.1%}, where the tiled kernel costs less)", share)
    return SearchChoice("tree", "cpu", f"the tree visits {share:.1%} of the references per sampled query (at most "
                        f"{TILED_RELATIVE_COST:.1%}, where it costs less than the tiled kernel)", share)


def run_engine(choice: SearchChoice, tree: RefTree, qnum: NDArray[np.float64], qcat: NDArray[np.int64],
               self_pos: NDArray[np.int64], k: int, *, progress: bool = False, desc: str = "neighbours",
               order: Callable[[], NDArray[np.int64]] | None = None, near_out: NDArray[np.bool_] | None = None,
               ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Run the engine of ``choice`` (:func:`choose_engine`) on contiguous float64/int64 queries (``order``: as in
    :func:`knn`). The result of each query depends neither on the other queries nor on their order, so any split
    of the queries into blocks gives the same rows.

    ``near_out``, a boolean array of one entry per query (CPU engines only), receives the engine's near-tie
    marks: True where a reference tied with the k-th distance by the tolerance but not equal to it bit for bit
    was left out of the list or pushed out of it, or where the list holds two such distances
    (:func:`.kernels._offer`). A sharded search (:mod:`.shards`) needs them to know which merged rows to decide
    again."""
    if choice.device == "cuda":
        if near_out is not None:
            raise ValueError("near-tie marks are not available from the GPU path")
        from .gpu import knn_cuda

        return knn_cuda(tree, qnum, qcat, self_pos, k, progress=progress, desc=desc)
    if not COMPILED:  # no numba: every engine's numbers by the NumPy brute force
        from .vectorised import knn_numpy

        return knn_numpy(tree, qnum, qcat, self_pos, k, near_out=near_out)
    if choice.engine == "dense":
        return _knn_dense(tree, qnum, self_pos, k, progress=progress, desc=desc, near_out=near_out)
    if choice.engine == "tiled":
        return knn_tiled(tree, qnum, qcat, self_pos, k, progress=progress, desc=desc, near=near_out)
    # visit queries in an order that keeps similar queries together (warm starts, cache locality); the result
    # of each query does not depend on the order
    visit = query_order(tree, qnum, qcat) if order is None else np.asarray(order(), dtype=np.int64)
    if visit.shape != (qnum.shape[0],):
        raise ValueError(f"a query order of shape {visit.shape} for {qnum.shape[0]} queries")
    return _knn_tree(tree, qnum, qcat, self_pos, k, visit, progress=progress, desc=desc, near_out=near_out)
