"""The searches in NumPy, for where numba is absent (:mod:`synthpriv_report._compiled`): a blocked brute force.

Every distance is accumulated exactly as :func:`.kernels._acc` does it, a column at a time in column order (the
numeric part, then the category part, added once), but for a block of queries against every reference at once;
elementwise float64 additions in the same order give the same bits, so the distances equal the compiled
engines' bit for bit. The k-best lists then follow the definition of :mod:`.kernels` literally: ``dist`` the k
smallest distances ascending; ``idx`` the order by (distance, position) (a stable sort of each row), except in
the rows where two different distances are tied by the tolerance inside the window of the k-th distance, which
are decided slot by slot (:func:`.kernels._pick`). Memory: one block of about :data:`BLOCK_PAIRS` distances.

No tree walk; instead a column-wise pruning that leaves every number as it was (:func:`_pruned_distances`): the
accumulator only grows as columns are added (each term is non-negative and rounding is monotone), so a partial
sum over some columns is a lower bound of the whole. Each query's k-th distance is bounded from above by the
whole distances of its few most promising references, and the remaining columns are added only for the pairs
whose partial sum stays within the tie rule's reach of that bound (:func:`.kernels._slack`), in the same order
of operations (the categorical part is a sum of its own, added to the numeric one at the end). Pairs dropped
this way are farther than anything tied with the k-th distance, so they take no part in the k-best lists or the
tie windows, and are left at infinity. The cost is still quadratic in the set sizes, which suits the teaching
sizes (a few thousand records per set) in a browser.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .kernels import ABS_TOL, REL_TOL, _pick
from .tree import RefTree

#: Query x reference distances held at once (8 MB of float64).
BLOCK_PAIRS = 1_000_000


def position_order(tree: RefTree) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """The tree's reference rows back in position order (``num[p]`` is the reference at position ``p``)."""
    inv = np.empty_like(tree.perm)
    inv[tree.perm] = np.arange(tree.perm.shape[0], dtype=tree.perm.dtype)
    return tree.num[inv], tree.cat[inv]


def accumulate(mode: int, qnum: NDArray[np.float64], qcat: NDArray[np.int64], rnum: NDArray[np.float64],
               rcat: NDArray[np.int64], w: NDArray[np.float64], cost: NDArray[np.float64],
               *, paired: bool = False) -> NDArray[np.float64]:
    """The distance accumulator of :func:`.kernels._acc` between every query row and every reference row (shape
    ``(n, m)``), or between row i of each (``paired``, shape ``(n,)``), in the same order of operations."""
    if paired:
        def col(a, b, j):
            return a[:, j], b[:, j]
        shape = (qnum.shape[0],)
    else:
        def col(a, b, j):
            return a[:, j, None], b[None, :, j]
        shape = (qnum.shape[0], rnum.shape[0])
    num = np.zeros(shape)
    tmp = np.empty(shape)
    if mode == 0:
        for j in range(w.shape[0]):
            a, b = col(qnum, rnum, j)
            np.subtract(a, b, out=tmp)
            np.abs(tmp, out=tmp)
            np.minimum(tmp, 1.0, out=tmp)  # d if d < 1 else 1 (no NaN reaches here but through a missing side)
            na, nb = np.isnan(a), np.isnan(b)
            if na.any() or nb.any():
                tmp[np.broadcast_to(na | nb, shape)] = 1.0
                tmp[np.broadcast_to(na & nb, shape)] = 0.0
            num += tmp
    elif mode == 1:
        sq = np.empty(shape)
        for j in range(w.shape[0]):
            a, b = col(qnum, rnum, j)
            np.subtract(a, b, out=tmp)
            np.multiply(tmp, w[j], out=sq)  # (w * d) * d, as the compiled kernel
            np.multiply(sq, tmp, out=sq)
            num += sq
    cat = np.zeros(shape)
    differ = np.empty(shape, dtype=np.bool_)
    for j in range(cost.shape[0]):
        a, b = col(qcat, rcat, j)
        np.not_equal(a, b, out=differ)
        np.multiply(differ, cost[j], out=tmp)  # cost[j] or 0.0
        cat += tmp
    return num + cat


def to_dist(mode: int, acc: NDArray[np.float64], scale: float) -> NDArray[np.float64]:
    """:func:`.kernels._to_dist` elementwise."""
    if mode == 1:
        return np.sqrt(acc)
    if mode == 0:
        return acc * scale
    return acc


def tied(a: NDArray[np.float64], b: NDArray[np.float64], exact: bool) -> NDArray[np.bool_]:
    """:func:`.kernels._equal` elementwise (``a`` and ``b`` broadcast)."""
    if exact:
        return a == b
    with np.errstate(invalid="ignore"):
        close = np.abs(a - b) <= REL_TOL * np.maximum(np.abs(a), np.abs(b)) + ABS_TOL
    return (a == b) | (close & ~np.isinf(a) & ~np.isinf(b))


def _block(m: int) -> int:
    return max(1, BLOCK_PAIRS // max(1, m))


#: Rows whose k-th distance is shared by at most this many references are ordered from a partition.
PARTITION_MAX = 256


def _first_by_distance(d: NDArray[np.float64], kk: int) -> NDArray[np.int64]:
    """Per row of ``d``, the positions of the ``kk`` first entries in the order by (value, position): what a
    stable argsort gives, from a partition where few entries are at most the kk-th value."""
    n, m = d.shape
    if kk >= m or m <= 4 * PARTITION_MAX:
        return np.argsort(d, axis=1, kind="stable")[:, :kk]
    kth = np.partition(d, kk - 1, axis=1)[:, kk - 1:kk]
    count = np.count_nonzero(d <= kth, axis=1)  # at least kk; every entry in the first kk is among them
    out = np.empty((n, kk), dtype=np.int64)
    few = count <= PARTITION_MAX
    if few.any():
        rows = np.nonzero(few)[0]
        c = int(count[rows].max())
        cand = np.argpartition(d[rows], c - 1, axis=1)[:, :c]  # every entry <= the kk-th value is among these
        vals = np.take_along_axis(d[rows], cand, axis=1)
        pick = np.lexsort((cand, vals), axis=1)[:, :kk]
        out[rows] = np.take_along_axis(cand, pick, axis=1)
    if not few.all():
        rows = np.nonzero(~few)[0]
        out[rows] = np.argsort(d[rows], axis=1, kind="stable")[:, :kk]
    return out


#: Numeric columns summed for every pair before pruning when there are fewer than 3 categorical columns (with
#: more, the categorical part alone, whose mismatch costs are large, bounds well).
PRUNE_NUMERIC = 2
#: References per query whose whole distances bound its k-th distance from above (beyond k).
PRUNE_EXTRA = 8
#: Below this many references a block is computed whole (pruning would not pay).
PRUNE_MIN_REFS = 256
#: Above this share of pairs kept after the first columns, the block's other columns are summed for every pair.
PRUNE_MAX_KEPT = 0.25


def _pruned_distances(mode: int, qnum: NDArray[np.float64], qcat: NDArray[np.int64], rnum: NDArray[np.float64],
                      rcat: NDArray[np.int64], w: NDArray[np.float64], cost: NDArray[np.float64], scale: float,
                      exact: bool, own: NDArray[np.int64], kk: int) -> NDArray[np.float64]:
    """The distances of a block of queries to every reference, equal to ``to_dist(accumulate(...))`` wherever
    they can matter for the ``kk`` nearest references or a tie with the kk-th, and ``inf`` elsewhere; ``own[i]``
    (or -1) is the reference query i skips, also ``inf``.

    1. every pair's categorical part and its first numeric columns (:data:`PRUNE_NUMERIC`, where there are few
       categorical columns): their sum ``lb`` is a lower bound of the accumulator (each partial sum is at most
       the whole one, and a rounded sum grows with its terms);
    2. each query's ``kk + PRUNE_EXTRA`` references of smallest ``lb``, their whole accumulators, and the kk-th
       smallest of those, an upper bound of the query's true kk-th accumulator; ``bound`` = the largest
       accumulator whose distance can tie with or beat that distance (:func:`.kernels._slack`);
    3. the other numeric columns, in column order, for the pairs with ``lb <= bound`` only, a pair dropped as
       soon as its partial sum passes the bound (for every pair where more than :data:`PRUNE_MAX_KEPT` are kept).
    """
    from .kernels import _slack

    b, m = qnum.shape[0], rnum.shape[0]
    q, c = w.shape[0], cost.shape[0]
    jq = min(q, PRUNE_NUMERIC) if c < 3 else 0
    rows = np.arange(b)
    has_self = (own >= 0) & (own < m)
    num = accumulate(mode, qnum[:, :jq], qcat[:, :0], rnum[:, :jq], rcat[:, :0], w[:jq], cost[:0])
    cat = accumulate(2, qnum[:, :0], qcat, rnum[:, :0], rcat, w[:0], cost)  # the categorical part, whole
    lb = num + cat
    lb[rows[has_self], own[has_self]] = np.inf
    # an upper bound of each query's kk-th accumulator: the whole accumulators of its most promising references
    n_cand = min(m - 1, kk + PRUNE_EXTRA)
    cand = np.argpartition(lb, n_cand - 1, axis=1)[:, :n_cand]
    qi = np.repeat(rows, n_cand)
    full = accumulate(mode, qnum[qi], qcat[qi], rnum[cand.ravel()], rcat[cand.ravel()], w, cost, paired=True)
    full = full.reshape(b, n_cand)
    full[cand == own[:, None]] = np.inf  # never the skipped reference itself (its lb is inf: drawn only by ties)
    upper_d = to_dist(mode, np.partition(full, kk - 1, axis=1)[:, kk - 1], scale)
    bound = np.array([_slack(mode, float(v), scale, exact) for v in upper_d])
    keep = ~(lb > bound[:, None])  # NaN keeps the pair
    if keep.mean() > PRUNE_MAX_KEPT:  # the first columns do not separate this block: add the others everywhere
        for j in range(jq, q):
            num += accumulate(mode, qnum[:, j:j + 1], qcat[:, :0], rnum[:, j:j + 1], rcat[:, :0], w[j:j + 1],
                              cost[:0])
        d = to_dist(mode, num + cat, scale)
    else:
        qi, ri = np.nonzero(keep)
        num_s, cat_s = num[qi, ri], cat[qi, ri]
        for j in range(jq, q):
            num_s = num_s + accumulate(mode, qnum[qi, j:j + 1], qcat[qi, :0], rnum[ri, j:j + 1], rcat[ri, :0],
                                       w[j:j + 1], cost[:0], paired=True)
            stay = ~(num_s + cat_s > bound[qi])
            qi, ri, num_s, cat_s = qi[stay], ri[stay], num_s[stay], cat_s[stay]
        d = np.full((b, m), np.inf)
        d[qi, ri] = to_dist(mode, num_s + cat_s, scale)
    d[rows[has_self], own[has_self]] = np.inf
    return d


def knn_numpy(tree: RefTree, qnum: NDArray[np.float64], qcat: NDArray[np.int64], self_pos: NDArray[np.int64],
              k: int, *, prune: bool = True, near_out: NDArray[np.bool_] | None = None
              ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """k nearest references of each query by blocked brute force; the same numbers as every engine of
    :func:`.search.knn` (``self_pos[i]``: the reference position query i skips, -1 none). ``prune=False``
    computes every distance of every block (:func:`_pruned_distances` otherwise skips the columns of pairs that
    cannot matter; both give the same result). ``near_out``, when given, receives each query's near-tie mark: a
    reference tied with the k-th distance but not equal to it, or two such distances inside the list (what the
    compiled engines mark, :func:`.kernels._offer`; the pruning keeps every pair such a mark reads)."""
    rnum, rcat = position_order(tree)
    n, m = qnum.shape[0], rnum.shape[0]
    out_d = np.full((n, k), np.inf)
    out_i = np.full((n, k), -1, dtype=np.int64)
    if k == 0 or m == 0 or n == 0:
        return out_d, out_i
    kk = min(k, m)
    step = _block(m)
    for s in range(0, n, step):
        e = min(n, s + step)
        rows = np.arange(e - s)
        own = self_pos[s:e]
        has_self = (own >= 0) & (own < m)
        if prune and m >= PRUNE_MIN_REFS and kk + PRUNE_EXTRA < m - 1 and tree.mode != 2:
            d = _pruned_distances(tree.mode, qnum[s:e], qcat[s:e], rnum, rcat, tree.w, tree.cost, tree.scale,
                                  tree.exact, own.astype(np.int64), kk)
        else:
            d = to_dist(tree.mode, accumulate(tree.mode, qnum[s:e], qcat[s:e], rnum, rcat, tree.w, tree.cost),
                        tree.scale)
            d[rows[has_self], own[has_self]] = np.inf
        avail = m - has_self.astype(np.int64)
        order = _first_by_distance(d, kk)
        dist = np.take_along_axis(d, order, axis=1)
        slot = np.arange(kk)[None, :]
        valid = slot < avail[:, None]
        out_d[s:e, :kk] = np.where(valid, dist, np.inf)
        out_i[s:e, :kk] = np.where(valid, order, -1)
        if tree.exact:
            continue
        # rows where two different distances tie by the tolerance in the window of the k-th distance
        last = np.minimum(avail, kk) - 1
        dk = dist[rows, np.maximum(last, 0)][:, None]
        near = (tied(d, dk, False) & (d != dk) & ~np.isinf(d)).any(axis=1)
        near |= (tied(dist[:, 1:], dist[:, :-1], False) & (dist[:, 1:] != dist[:, :-1])
                 & valid[:, 1:]).any(axis=1)
        near &= last >= 0
        if near_out is not None:
            near_out[s:e] = near
        for x in np.nonzero(near)[0]:
            dx = d[x]
            window = np.nonzero(((dx <= dk[x, 0]) | tied(dx, dk[x, 0], False)) & ~np.isinf(dx))[0]
            _pick(dx[window], window.astype(np.int64), window.shape[0], kk, s + x, out_i, False)
    return out_d, out_i


def ties_numpy(tree: RefTree, qnum: NDArray[np.float64], qcat: NDArray[np.int64], dmin: NDArray[np.float64],
               qlab: NDArray[np.float64], rlab: NDArray[np.float64], lab_kind: NDArray[np.int64],
               lab_tol: NDArray[np.float64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """:func:`.pairs.ties_at_min` by blocked brute force (the same counts)."""
    from .kernels import _slack

    rnum, rcat = position_order(tree)
    n, m, a = qnum.shape[0], rnum.shape[0], qlab.shape[1]
    n_min = np.zeros(n, dtype=np.int64)
    n_ok = np.zeros((n, a), dtype=np.int64)
    step = _block(m)
    for s in range(0, n, step):
        e = min(n, s + step)
        acc = accumulate(tree.mode, qnum[s:e], qcat[s:e], rnum, rcat, tree.w, tree.cost)
        bound = np.array([_slack(tree.mode, v, tree.scale, tree.exact) for v in dmin[s:e]])
        hit = (acc <= bound[:, None]) & tied(to_dist(tree.mode, acc, tree.scale), dmin[s:e, None], tree.exact)
        n_min[s:e] = hit.sum(axis=1)
        for j in range(a):
            y = qlab[s:e, j, None]
            z = rlab[None, :, j]
            if lab_kind[j] == 0:
                ok = y == z
            else:
                with np.errstate(invalid="ignore"):
                    lhs = np.abs(y - z)
                    rhs = lab_tol[j] * np.abs(z)
                    ok = (lhs <= rhs) | (np.abs(lhs - rhs) <= REL_TOL * np.maximum(lhs, rhs) + ABS_TOL)
                yn, zn = np.isnan(y), np.isnan(z)
                ok = np.where(yn | zn, yn & zn, ok)
            n_ok[s:e, j] = (hit & ok).sum(axis=1)
    return n_min, n_ok
