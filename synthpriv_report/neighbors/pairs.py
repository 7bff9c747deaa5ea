"""Searches over pairs: all references at the minimal distance (GCAP, AIR), distances of given pairs, and the
exact farthest pair of two sets by a dual-tree search."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .._compiled import COMPILED, njit, prange
from ..spaces import MODE_GOWER, MODE_L2, Encoding
from .kernels import ABS_TOL, REL_TOL, _acc, _equal, _query_arrays, _slack, _to_dist, query_chunks
from .search import _lower_bound, _query_bits, choose_engine
from .tiled import _GROUP, QUERY_BLOCK, REF_TILE, _tile_acc, _up32, prepared_chunks
from .tree import RefTree, split_tree


@njit(cache=True, parallel=True)
def _ties_batch(qnum, qcat, dmin, qlab, rlab, lab_kind, lab_tol, tr):
    mode, rnum, rcat, perm, w, cost, scale, exact = tr.mode, tr.num, tr.cat, tr.perm, tr.w, tr.cost, tr.scale, tr.exact
    start, end, left, right, mask = tr.start, tr.end, tr.left, tr.right, tr.mask
    n = qnum.shape[0]
    n_min = np.zeros(n, dtype=np.int64)
    n_ok = np.zeros((n, qlab.shape[1]), dtype=np.int64)
    n_nodes = start.shape[0]
    for qi in prange(n):
        stack = np.empty(n_nodes + 2, dtype=np.int64)
        qword = np.empty(qcat.shape[1], dtype=np.int64)
        qbit = np.empty(qcat.shape[1], dtype=np.uint64)
        qn = qnum[qi]
        qc = qcat[qi]
        beyond = _query_bits(qc, mask.shape[1] - 2, qword, qbit)
        bound = _slack(mode, dmin[qi], scale, exact)
        sp = 1
        stack[0] = 0
        while sp > 0:
            sp -= 1
            node = stack[sp]
            if _lower_bound(tr, node, qn, qc, qword, qbit, beyond, bound) > bound:
                continue
            if left[node] >= 0:
                stack[sp] = left[node]
                stack[sp + 1] = right[node]
                sp += 2
                continue
            for t in range(start[node], end[node]):
                acc = _acc(mode, qn, qc, rnum, rcat, t, w, cost)
                if acc > bound:
                    continue
                d = _to_dist(mode, acc, scale)
                if not _equal(d, dmin[qi], exact):
                    continue
                n_min[qi] += 1
                _count_correct(qlab, rlab, lab_kind, lab_tol, qi, perm[t], n_ok)
    return n_min, n_ok


@njit(cache=True, inline="always")
def _count_correct(qlab, rlab, lab_kind, lab_tol, qi, ridx, n_ok):
    """Add 1 to ``n_ok[qi, j]`` for every attribute j on which reference ``ridx`` is "correct" for query ``qi``:
    the same code (categorical), or within the relative tolerance (numeric; both missing correct, one missing
    wrong)."""
    for j in range(qlab.shape[1]):
        y = qlab[qi, j]
        z = rlab[ridx, j]
        if lab_kind[j] == 0:  # categorical code
            ok = y == z
        else:  # numeric, relative tolerance
            if y != y or z != z:
                ok = (y != y) and (z != z)
            else:
                lhs = abs(y - z)
                rhs = lab_tol[j] * abs(z)
                ok = lhs <= rhs or abs(lhs - rhs) <= REL_TOL * max(lhs, rhs) + ABS_TOL
        if ok:
            n_ok[qi, j] += 1


@njit(cache=True, parallel=True)
def _ties_tiled(qnum, qcat, Q, Qc, dmin, margin, qlab, rlab, lab_kind, lab_tol, tr, Rt, Rct, cost32):
    """:func:`_ties_batch` by the tiled kernel (:mod:`.tiled`): every query meets every reference in
    single-precision tiles, and each reference whose single-precision accumulator lies within the proven margin
    of the query's tie bound is scored again in float64 by the tree walk's own expression and test, so the counts
    are the tree walk's."""
    mode, rnum, rcat, perm, w, cost, scale, exact = tr.mode, tr.num, tr.cat, tr.perm, tr.w, tr.cost, tr.scale, tr.exact
    n = qnum.shape[0]
    m = Rt.shape[1]
    n_min = np.zeros(n, dtype=np.int64)
    n_ok = np.zeros((n, qlab.shape[1]), dtype=np.int64)
    n_tasks = (n + QUERY_BLOCK - 1) // QUERY_BLOCK
    for task in prange(n_tasks):
        a = task * QUERY_BLOCK
        b = min(n, a + QUERY_BLOCK)
        acc = np.empty((_GROUP, REF_TILE), dtype=np.float32)
        bound = np.empty(QUERY_BLOCK)
        thr = np.empty(QUERY_BLOCK, dtype=np.float32)
        for qi in range(a, b):
            bound[qi - a] = _slack(mode, dmin[qi], scale, exact)
            thr[qi - a] = _up32(bound[qi - a] + margin[qi])
        for lo in range(0, m, REF_TILE):
            hi = min(m, lo + REF_TILE)
            for g in range(a, b, _GROUP):
                _tile_acc(mode, Q, Qc, g, Rt, Rct, cost32, lo, hi, acc)
                for x in range(min(_GROUP, b - g)):
                    qi = g + x
                    th = thr[qi - a]
                    bd = bound[qi - a]
                    for t in range(hi - lo):
                        if acc[x, t] <= th:
                            tt = lo + t
                            ac = _acc(mode, qnum[qi], qcat[qi], rnum, rcat, tt, w, cost)
                            if ac > bd or not _equal(_to_dist(mode, ac, scale), dmin[qi], exact):
                                continue
                            n_min[qi] += 1
                            _count_correct(qlab, rlab, lab_kind, lab_tol, qi, perm[tt], n_ok)
    return n_min, n_ok


def ties_at_min(
    tree: RefTree,
    qnum: NDArray[np.float64],
    qcat: NDArray[np.int64],
    dmin: NDArray[np.float64],
    qlab: NDArray[np.float64],
    rlab: NDArray[np.float64],
    lab_kind: NDArray[np.int64],
    lab_tol: NDArray[np.float64],
    *,
    engine: str = "auto",
    info: dict | None = None,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Count, per query, the references at its minimal distance and how many of them are "correct".

    Every engine gives the same counts: each applies the tree walk's float64 expression and tie test to every
    reference that can lie at the minimal distance.

    Parameters
    ----------
    dmin : ndarray, shape (n_query,)
        The minimal distance of each query (from :func:`knn` with k=1).
    qlab, rlab : ndarray, shape (n, a)
        Label values per attribute (categorical: codes as float; numeric: values, NaN = missing). ``rlab`` is
        indexed by reference position.
    lab_kind : ndarray, shape (a,)
        0: correct when codes are equal; 1: numeric, correct when |y - z| <= tol * |z| (both missing correct,
        one missing wrong).
    lab_tol : ndarray, shape (a,)
        Relative tolerance per numeric attribute.
    engine : {"auto", "tree", "tiled"}
        ``tree``: a walk of ``tree`` per query, bounded by its minimal distance; ``tiled``: the tiled kernel
        (:mod:`.tiled`: every query against every reference in single precision, the candidates scored again in
        float64); ``auto`` (default): the engine :func:`.search.choose_engine` picks for these queries' nearest
        reference (the tiled kernel where the tree would visit more than
        :data:`~.search.TILED_RELATIVE_COST` of the references). Where many references lie at the minimal
        distance, as in a Hamming space of few key fields, the walk cannot skip them and the tiled kernel costs
        less.
    info : dict, optional
        Filled with ``info["engine"]``: the engine that ran.

    Returns
    -------
    n_min : ndarray, shape (n_query,)
        References at the minimal distance (ties by the rule of docs/metrics.md, "Shared machinery").
    n_correct : ndarray, shape (n_query, a)
        Of those, the correct ones per attribute.
    """
    args = (qnum, qcat, np.asarray(dmin, dtype=np.float64), np.ascontiguousarray(qlab, np.float64),
            np.ascontiguousarray(rlab, np.float64), np.asarray(lab_kind, np.int64), np.asarray(lab_tol, np.float64))
    if engine not in ("auto", "tree", "tiled"):
        raise ValueError(f"engine={engine!r}: choose 'auto', 'tree' or 'tiled'")
    if not COMPILED:
        from .vectorised import ties_numpy

        if info is not None:
            info["engine"] = "numpy"
        return ties_numpy(tree, *args)
    if engine == "auto":
        none = np.full(qnum.shape[0], -1, dtype=np.int64)
        engine = "tiled" if choose_engine(tree, args[0], args[1], none, 1).engine == "tiled" else "tree"
    if info is not None:
        info["engine"] = engine
    if engine == "tree" or qnum.shape[0] == 0 or tree.size == 0:
        return _ties_batch(*args, tree)
    return _ties_tiled_run(tree, *args)


def _ties_tiled_run(tree: RefTree, qnum: NDArray[np.float64], qcat: NDArray[np.int64], dmin: NDArray[np.float64],
                    qlab: NDArray[np.float64], rlab: NDArray[np.float64], lab_kind: NDArray[np.int64],
                    lab_tol: NDArray[np.float64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """:func:`ties_at_min` by the tiled kernel, in the search's query chunks (the margins as
    :func:`.tiled.knn_tiled`'s)."""
    qnum = np.ascontiguousarray(qnum, dtype=np.float64)
    qcat = np.ascontiguousarray(qcat, dtype=np.int64)
    n = qnum.shape[0]
    n_min = np.zeros(n, dtype=np.int64)
    n_ok = np.zeros((n, qlab.shape[1]), dtype=np.int64)
    for s, e, Q, Qc, margin, refs in prepared_chunks(tree, qnum, qcat, query_chunks(n, "ties", False)):
        n_min[s:e], n_ok[s:e] = _ties_tiled(qnum[s:e], qcat[s:e], Q, Qc, dmin[s:e], margin, qlab[s:e], rlab,
                                            lab_kind, lab_tol, tree, *refs)
    return n_min, n_ok



# ---------------------------------------------------------------------------------------------------------------
# pairs and farthest pair


def _pair_dist(mode, an, ac, bn, bc, w, cost, scale):
    """Distances between row i of ``an``/``ac`` and row i of ``bn``/``bc``, for every i."""
    if not COMPILED:
        from .vectorised import accumulate, to_dist

        return to_dist(mode, accumulate(mode, an, ac, bn, bc, w, cost, paired=True), scale)
    return _pair_dist_compiled(mode, an, ac, bn, bc, w, cost, scale)


@njit(cache=True, parallel=True)
def _pair_dist_compiled(mode, an, ac, bn, bc, w, cost, scale):
    n = an.shape[0]
    out = np.empty(n)
    for i in prange(n):
        out[i] = _to_dist(mode, _acc(mode, an[i], ac[i], bn, bc, i, w, cost), scale)
    return out


def pair_distances(enc: Encoding, a_set: str, a_rows: NDArray[np.int64], b_set: str,
                   b_rows: NDArray[np.int64]) -> NDArray[np.float64]:
    """Distances between paired rows ``a_set[a_rows[i]]`` and ``b_set[b_rows[i]]``."""
    an, ac = _query_arrays(enc, a_set, np.asarray(a_rows, dtype=np.int64))
    bn, bc = _query_arrays(enc, b_set, np.asarray(b_rows, dtype=np.int64))
    return _pair_dist(enc.mode, an, ac, bn, bc, enc.num_weight, enc.cat_cost, enc.scale)


# exact farthest pair by a dual-tree search


@njit(cache=True, inline="always")
def _pair_upper(ta, tb, a, b):
    """Upper bound of the distance accumulator between any record of node ``a`` of tree ``ta`` and any record of
    node ``b`` of tree ``tb``."""
    mode, w, cost = ta.mode, ta.w, ta.cost
    anmin, anmax, annan, amask = ta.nmin, ta.nmax, ta.nnan, ta.mask
    bnmin, bnmax, bnnan, bmask = tb.nmin, tb.nmax, tb.nnan, tb.mask
    acc = 0.0
    for j in range(w.shape[0]):
        alo, ahi, blo, bhi = anmin[a, j], anmax[a, j], bnmin[b, j], bnmax[b, j]
        a_vals = ahi >= alo
        b_vals = bhi >= blo
        g = 0.0
        if a_vals and b_vals:
            g = max(ahi - blo, bhi - alo)
        if mode == 0:
            if (annan[a, j] and b_vals) or (bnnan[b, j] and a_vals):
                g = 1.0
            acc += g if g < 1.0 else 1.0
        else:
            acc += w[j] * g * g
    for j in range(cost.shape[0]):
        # no mismatch is possible only when both nodes hold one and the same code (the last two words: range)
        ra = amask.shape[1] - 2
        rb = bmask.shape[1] - 2
        pure_same = (amask[a, ra, j] == amask[a, ra + 1, j] and bmask[b, rb, j] == bmask[b, rb + 1, j]
                     and amask[a, ra, j] == bmask[b, rb, j])
        if not pure_same:
            acc += cost[j]
    return acc


@njit(cache=True)
def _farthest_dual(ta, tb, best, bi, bj):
    mode, w, cost = ta.mode, ta.w, ta.cost
    anum, acat, aperm, astart, aend, aleft, aright = ta.num, ta.cat, ta.perm, ta.start, ta.end, ta.left, ta.right
    bnum, bcat, bperm, bstart, bend, bleft, bright = tb.num, tb.cat, tb.perm, tb.start, tb.end, tb.left, tb.right
    n_stack = 4 * (astart.shape[0] + bstart.shape[0]) + 16
    sa = np.empty(n_stack, dtype=np.int64)
    sb = np.empty(n_stack, dtype=np.int64)
    sa[0] = 0
    sb[0] = 0
    sp = 1
    ca = np.empty(2, dtype=np.int64)
    cb = np.empty(2, dtype=np.int64)
    ub = np.empty(4)
    pa = np.empty(4, dtype=np.int64)
    pb = np.empty(4, dtype=np.int64)
    while sp > 0:
        sp -= 1
        a = sa[sp]
        b = sb[sp]
        if _pair_upper(ta, tb, a, b) <= best:
            continue
        a_leaf = aleft[a] < 0
        b_leaf = bleft[b] < 0
        if a_leaf and b_leaf:
            for s in range(astart[a], aend[a]):
                sn = anum[s]
                sc = acat[s]
                for t in range(bstart[b], bend[b]):
                    acc = _acc(mode, sn, sc, bnum, bcat, t, w, cost)
                    if acc > best:
                        best = acc
                        bi = aperm[s]
                        bj = bperm[t]
            continue
        # split both non-leaf nodes; visit the child pair with the largest bound first (pushed last)
        na = 1
        ca[0] = a
        if not a_leaf:
            ca[0] = aleft[a]
            ca[1] = aright[a]
            na = 2
        nb_ = 1
        cb[0] = b
        if not b_leaf:
            cb[0] = bleft[b]
            cb[1] = bright[b]
            nb_ = 2
        m = 0
        for x in range(na):
            for y in range(nb_):
                u = _pair_upper(ta, tb, ca[x], cb[y])
                if u > best:
                    ub[m] = u
                    pa[m] = ca[x]
                    pb[m] = cb[y]
                    m += 1
        # insertion sort ascending by bound so that the largest bound is on top of the stack
        for x in range(1, m):
            u, p, q = ub[x], pa[x], pb[x]
            y = x - 1
            while y >= 0 and ub[y] > u:
                ub[y + 1] = ub[y]
                pa[y + 1] = pa[y]
                pb[y + 1] = pb[y]
                y -= 1
            ub[y + 1] = u
            pa[y + 1] = p
            pb[y + 1] = q
        for x in range(m):
            sa[sp] = pa[x]
            sb[sp] = pb[x]
            sp += 1
    return best, bi, bj


def farthest_pair(enc: Encoding, ta: RefTree, tb: RefTree) -> tuple[float, int, int]:
    """Exact largest distance between a record of tree ``ta``'s set and one of ``tb``'s (Trudslev et al., Eq. 14: the
    d_max of the rescaled distances).

    A dual-tree search over the two reference trees: node pairs are visited largest upper bound first and
    skipped once their bound cannot beat the best pair found, so no n x m matrix is built and only a small
    fraction of pairs is visited. The starting pair comes from one double sweep (the farthest record of b from
    a's first record, then the farthest record of a from that one). Returns ``(d_max, i, j)`` with positions in
    the two sets.
    """
    if not COMPILED:  # the dual-tree search needs split trees
        ta, tb = split_tree(ta), split_tree(tb)
    n_a, n_b = ta.size, tb.size
    inv_a = np.empty(n_a, dtype=np.int64)
    inv_a[ta.perm] = np.arange(n_a)
    inv_b = np.empty(n_b, dtype=np.int64)
    inv_b[tb.perm] = np.arange(n_b)
    a0 = inv_a[0]
    d_b = _pair_dist(enc.mode, np.repeat(ta.num[a0:a0 + 1], n_b, 0), np.repeat(ta.cat[a0:a0 + 1], n_b, 0),
                     tb.num[inv_b], tb.cat[inv_b], enc.num_weight, enc.cat_cost, enc.scale)
    j0 = int(np.argmax(d_b))
    b0 = inv_b[j0]
    d_a = _pair_dist(enc.mode, ta.num[inv_a], ta.cat[inv_a], np.repeat(tb.num[b0:b0 + 1], n_a, 0),
                     np.repeat(tb.cat[b0:b0 + 1], n_a, 0), enc.num_weight, enc.cat_cost, enc.scale)
    i0 = int(np.argmax(d_a))
    best = float(d_a[i0])
    acc0 = best * best if enc.mode == MODE_L2 else (best / enc.scale if enc.mode == MODE_GOWER else best)
    acc, i, j = _farthest_dual(ta, tb, acc0, i0, j0)
    d = float(_to_dist(enc.mode, acc, enc.scale))
    return max(d, best), int(i), int(j)

