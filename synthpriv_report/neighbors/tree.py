"""The reference tree: boxes (numeric intervals, missing flags, category code ranges and bitmasks per node), built
level by level in parallel and numbered depth-first.

:class:`RefTree` is a named tuple of arrays, so the compiled searches take the whole tree as one argument.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from .._compiled import COMPILED, njit, prange
from ..spaces import Encoding

LEAF_SIZE = 8
#: Leaf size of the tree that orders the queries (the order inside a leaf matters little to warm starts).
_ORDER_LEAF_SIZE = 32


class RefTree(NamedTuple):
    """A reference set organised for search (see :mod:`synthpriv_report.neighbors`).

    A named tuple of arrays and scalars: numba passes it to the compiled kernels as one structure (its fields
    are read as ``tree.num``, ``tree.start``, ... there). Records are stored in tree order: ``num[t]`` is the
    reference at position ``perm[t]``; node ``x`` holds ``t`` in ``start[x]:end[x]``.
    """

    mode: int
    num: NDArray[np.float64]
    cat: NDArray[np.int64]
    perm: NDArray[np.int64]
    start: NDArray[np.int64]
    end: NDArray[np.int64]
    left: NDArray[np.int64]
    right: NDArray[np.int64]
    nmin: NDArray[np.float64]
    nmax: NDArray[np.float64]
    nnan: NDArray[np.bool_]
    mask: NDArray[np.uint64]
    w: NDArray[np.float64]
    cost: NDArray[np.float64]
    scale: float
    exact: bool

    @property
    def size(self) -> int:
        return int(self.perm.shape[0])


@njit(cache=True)
def _middle_boundary(sorted_vals):
    """Position of the value boundary (sorted_vals[i] != sorted_vals[i - 1]) nearest the middle; -1 if none."""
    n = sorted_vals.shape[0]
    mid = n // 2
    for off in range(n):
        a = mid - off
        if 0 < a < n and sorted_vals[a] != sorted_vals[a - 1]:
            return a
        b = mid + off
        if 0 < b < n and sorted_vals[b] != sorted_vals[b - 1]:
            return b
    return -1


@njit(cache=True)
def _gini_gain_runs(runs, n):
    """Gini impurity removed by splitting a column at the code boundary nearest the middle.

    ``runs`` holds the number of records of each code in code order (zeros allowed), ``n`` their total. The
    boundary is the cumulative count nearest n // 2 (the lower of two equally near ones), as
    :func:`_middle_boundary` finds it in the sorted codes; 0 when the column holds one code.
    """
    mid = n // 2
    split = -1
    best_off = n + 1
    cum = 0
    g_all = 1.0
    for c in range(runs.shape[0]):
        r = runs[c]
        if r == 0:
            continue
        g_all -= (r / n) ** 2
        cum += r
        if cum < n and abs(cum - mid) < best_off:
            best_off = abs(cum - mid)
            split = cum
    if split < 0:
        return 0.0
    g_left = 1.0
    g_right = 1.0
    cum = 0
    for c in range(runs.shape[0]):
        r = runs[c]
        if r == 0:
            continue
        if cum < split:  # runs never straddle the split: it sits at a boundary
            g_left -= (r / split) ** 2
        else:
            g_right -= (r / (n - split)) ** 2
        cum += r
    return g_all - (split / n) * g_left - ((n - split) / n) * g_right


@njit(cache=True)
def _code_runs(ccol, s, e, nc, counts, codes):
    """Records per code of one column's codes ``ccol[s:e]``, in code order: a histogram in ``counts`` when the
    column has at most len(counts) codes, else the run lengths of the sorted codes (written into ``codes``)."""
    n = e - s
    if nc <= counts.shape[0]:
        for c in range(nc):
            counts[c] = 0
        for t in range(s, e):
            counts[ccol[t]] += 1
        return counts[:nc]
    for t in range(n):
        codes[t] = ccol[s + t]
    codes.sort()
    n_runs = 0
    run = 1
    for t in range(1, n + 1):
        if t < n and codes[t] == codes[t - 1]:
            run += 1
            continue
        codes[n_runs] = run  # run n_runs ends at t - 1 >= n_runs: overwrites only codes already read
        n_runs += 1
        run = 1
    return codes[:n_runs]


@njit(cache=True)
def _split_node(mode, wnum, wcat, w, cost, n_codes, perm, s, e, counts):
    """Choose a split dimension for the records in tree positions s:e and reorder them (``perm[s:e]`` and the
    tree-ordered, column-major working copies ``wnum``/``wcat``); return the split position or -1."""
    n = e - s
    best_score = 0.0
    best_dim = -1
    q = wnum.shape[0]
    # split the dimension whose median split removes the most expected distance between two random members:
    # numeric about 3/4 of its 2 var (gower: of its mean absolute difference, capped at 1, plus the
    # missing/non-missing mismatches); categorical the Gini impurity removed by splitting the sorted codes at the
    # boundary nearest the middle (a near-unique column gains almost nothing, a binary one becomes pure)
    for j in range(q):
        col = wnum[j]
        cnt = 0
        mean = 0.0
        m2 = 0.0
        for t in range(s, e):
            v = col[t]
            if v == v:
                cnt += 1
                delta = v - mean
                mean += delta / cnt
                m2 += delta * (v - mean)
        var = m2 / cnt if cnt > 0 else 0.0
        if mode == 0:
            f_nan = 1.0 - cnt / n
            sdv = 1.128 * np.sqrt(var)
            sc = 0.75 * (sdv if sdv < 1.0 else 1.0) * (1.0 - f_nan) * (1.0 - f_nan) + 2.0 * f_nan * (1.0 - f_nan)
        else:
            sc = 0.75 * w[j] * 2.0 * var
        if sc > best_score:
            best_score = sc
            best_dim = j
    codes = np.empty(n, dtype=np.int64)
    for j in range(wcat.shape[0]):
        sc = cost[j] * _gini_gain_runs(_code_runs(wcat[j], s, e, n_codes[j], counts, codes), n)
        if sc > best_score:
            best_score = sc
            best_dim = q + j
    if best_dim < 0:
        return -1
    keys = np.empty(n, dtype=np.float64)
    for t in range(n):
        if best_dim < q:
            v = wnum[best_dim, s + t]
            keys[t] = np.inf if v != v else v
        else:
            keys[t] = wcat[best_dim - q, s + t]
    order = np.argsort(keys, kind="mergesort")
    best = _middle_boundary(keys[order])
    if best <= 0:
        return -1
    # reorder the node's records, one column at a time through one buffer
    tmp = np.empty(n, dtype=np.int64)
    for t in range(n):
        tmp[t] = perm[s + order[t]]
    perm[s:e] = tmp
    ftmp = np.empty(n, dtype=np.float64)
    for j in range(q):
        col = wnum[j]
        for t in range(n):
            ftmp[t] = col[s + order[t]]
        col[s:e] = ftmp
    for j in range(wcat.shape[0]):
        col = wcat[j]
        for t in range(n):
            tmp[t] = col[s + order[t]]
        col[s:e] = tmp
    return s + best


@njit(cache=True, parallel=True)
def _build(mode, num, cat, w, cost, n_codes, leaf_size):
    """Split the records level by level (the nodes of one level in parallel); nodes are numbered breadth-first.

    The records are copied once into column-major working arrays kept in tree order (each node's records
    contiguous), so a node's statistics read its columns in sequence rather than gathering through ``perm``;
    they are freed on return, before the caller gathers the row-major copy the search reads (so memory peaks no
    higher than that copy's). The tree depends only on the data
    (each node's split is a function of its records), not on the threads.
    """
    m = num.shape[0]
    perm = np.arange(m)
    wnum = num.T.copy()  # a copy (never a view of num, which is permuted in place)
    wcat = cat.T.copy()
    cap = max(1, 2 * (m // max(1, leaf_size // 2)) + 3)
    start = np.empty(cap, dtype=np.int64)
    end = np.empty(cap, dtype=np.int64)
    left = np.full(cap, -1, dtype=np.int64)
    right = np.full(cap, -1, dtype=np.int64)
    maxc = 1
    for j in range(n_codes.shape[0]):
        if n_codes[j] > maxc:
            maxc = n_codes[j]
    start[0] = 0
    end[0] = m
    n_nodes = 1
    frontier = np.zeros(1, dtype=np.int64)
    while frontier.shape[0] > 0:
        fn = frontier.shape[0]
        splits = np.full(fn, -1, dtype=np.int64)
        for x in prange(fn):
            node = frontier[x]
            s = start[node]
            e = end[node]
            if e - s > leaf_size:
                # a code histogram as long as the node (columns with more codes are sorted instead)
                counts = np.empty(min(maxc, 4 * (e - s)) + 1, dtype=np.int64)
                splits[x] = _split_node(mode, wnum, wcat, w, cost, n_codes, perm, s, e, counts)
        nxt = np.empty(2 * fn, dtype=np.int64)
        nn = 0
        for x in range(fn):
            if splits[x] < 0 or n_nodes + 2 > cap:
                continue
            node = frontier[x]
            lc = n_nodes
            r = n_nodes + 1
            n_nodes += 2
            start[lc] = start[node]
            end[lc] = splits[x]
            start[r] = splits[x]
            end[r] = end[node]
            left[node] = lc
            right[node] = r
            nxt[nn] = lc
            nxt[nn + 1] = r
            nn += 2
        frontier = nxt[:nn].copy()
    return perm, start[:n_nodes].copy(), end[:n_nodes].copy(), left[:n_nodes].copy(), right[:n_nodes].copy()


_MAX_BITMASK_WORDS = 4  # category bitmasks up to 256 codes; larger columns keep only the code range


def _boxes_numpy(num, cat, start, end, left, right, n_words):
    """:func:`_boxes` in NumPy: the leaves (which partition the records) by reductions over their record ranges,
    then each inner node from its two children, children first (they are numbered after their parent)."""
    n_nodes = start.shape[0]
    q = num.shape[1]
    c = cat.shape[1]
    nmin = np.full((n_nodes, q), np.inf)
    nmax = np.full((n_nodes, q), -np.inf)
    nnan = np.zeros((n_nodes, q), dtype=np.bool_)
    mask = np.zeros((n_nodes, n_words + 2, c), dtype=np.uint64)
    mask[:, n_words, :] = np.uint64(0x7FFFFFFFFFFFFFFF)
    leaves = np.nonzero((left < 0) & (end > start))[0]
    if leaves.shape[0] == 0:
        return nmin, nmax, nnan, mask
    leaves = leaves[np.argsort(start[leaves], kind="stable")]
    at = start[leaves].astype(np.intp)  # reduceat takes platform-size indices only (32-bit in WebAssembly)
    missing = np.isnan(num)
    nmin[leaves] = np.minimum.reduceat(np.where(missing, np.inf, num), at, axis=0)
    nmax[leaves] = np.maximum.reduceat(np.where(missing, -np.inf, num), at, axis=0)
    nnan[leaves] = np.logical_or.reduceat(missing, at, axis=0)
    ucode = cat.astype(np.int64).view(np.uint64)
    mask[leaves, n_words, :] = np.minimum(np.minimum.reduceat(ucode, at, axis=0), np.uint64(0x7FFFFFFFFFFFFFFF))
    mask[leaves, n_words + 1, :] = np.maximum.reduceat(ucode, at, axis=0)
    word = cat >> 6
    bit = np.uint64(1) << (cat & 63).astype(np.uint64)
    for wi in range(n_words):
        mask[leaves, wi, :] = np.bitwise_or.reduceat(np.where(word == wi, bit, np.uint64(0)), at, axis=0)
    for node in range(n_nodes - 1, -1, -1):
        lc, r = left[node], right[node]
        if lc < 0:
            continue
        nmin[node] = np.minimum(nmin[lc], nmin[r])
        nmax[node] = np.maximum(nmax[lc], nmax[r])
        nnan[node] = nnan[lc] | nnan[r]
        mask[node, :n_words] = mask[lc, :n_words] | mask[r, :n_words]
        mask[node, n_words] = np.minimum(mask[lc, n_words], mask[r, n_words])
        mask[node, n_words + 1] = np.maximum(mask[lc, n_words + 1], mask[r, n_words + 1])
    return nmin, nmax, nnan, mask


@njit(cache=True, parallel=True)
def _boxes(num, cat, start, end, n_words):
    """Per node: numeric min/max/missing flags, and per categorical column j a bitmask of the codes present for
    codes below 64 * n_words (``mask[node, 0 ... n_words - 1, j]``) plus the code range
    (``mask[node, n_words, j]`` and ``mask[node, n_words + 1, j]``), which bounds the codes the bitmask does not
    cover. Word-major, so that the words of all columns a query tests lie side by side."""
    n_nodes = start.shape[0]
    q = num.shape[1]
    c = cat.shape[1]
    nmin = np.full((n_nodes, q), np.inf)
    nmax = np.full((n_nodes, q), -np.inf)
    nnan = np.zeros((n_nodes, q), dtype=np.bool_)
    mask = np.zeros((n_nodes, n_words + 2, c), dtype=np.uint64)
    for node in prange(n_nodes):
        for j in range(c):
            mask[node, n_words, j] = np.uint64(0x7FFFFFFFFFFFFFFF)
        for t in range(start[node], end[node]):
            for j in range(q):
                v = num[t, j]
                if v != v:
                    nnan[node, j] = True
                else:
                    if v < nmin[node, j]:
                        nmin[node, j] = v
                    if v > nmax[node, j]:
                        nmax[node, j] = v
            for j in range(c):
                code = cat[t, j]
                ucode = np.uint64(code)
                if ucode < mask[node, n_words, j]:
                    mask[node, n_words, j] = ucode
                if ucode > mask[node, n_words + 1, j]:
                    mask[node, n_words + 1, j] = ucode
                wi = code >> 6
                if wi < n_words:
                    mask[node, wi, j] |= np.uint64(1) << np.uint64(code & 63)
    return nmin, nmax, nnan, mask


@njit(cache=True)
def _preorder(start, end, left, right):
    """Renumber the nodes depth-first (a node, then its left subtree, then its right subtree), so that a search,
    which walks subtrees, reads neighbouring box rows."""
    n = start.shape[0]
    new_id = np.empty(n, dtype=np.int64)
    stack = np.empty(n + 1, dtype=np.int64)
    stack[0] = 0
    sp = 1
    c = 0
    while sp > 0:
        sp -= 1
        node = stack[sp]
        new_id[node] = c
        c += 1
        if left[node] >= 0:
            stack[sp] = right[node]
            stack[sp + 1] = left[node]
            sp += 2
    s2 = np.empty(n, dtype=np.int64)
    e2 = np.empty(n, dtype=np.int64)
    l2 = np.full(n, -1, dtype=np.int64)
    r2 = np.full(n, -1, dtype=np.int64)
    for node in range(n):
        i = new_id[node]
        s2[i] = start[node]
        e2[i] = end[node]
        if left[node] >= 0:
            l2[i] = new_id[left[node]]
            r2[i] = new_id[right[node]]
    return s2, e2, l2, r2


def build_tree(enc: Encoding, set_name: str, rows: NDArray[np.integer[Any]] | None = None) -> RefTree:
    """Organise the reference set ``set_name`` (optionally only ``rows`` of it) for search.

    Without numba (:mod:`synthpriv_report._compiled`) the tree is one leaf holding every record in position
    order: the NumPy searches read every reference anyway, and the searches that walk a tree (the farthest pair)
    split it first (:func:`split_tree`).
    """
    num = enc.num[set_name]
    cat = enc.cat[set_name]
    if rows is not None:
        num, cat = num[rows], cat[rows]
    n_codes = enc.n_codes.astype(np.int64) if len(enc.n_codes) else np.zeros(0, dtype=np.int64)
    return _assemble(int(enc.mode), num, cat, enc.num_weight, enc.cat_cost, n_codes, float(enc.scale),
                     bool(enc.integer_valued), split=COMPILED)


def split_tree(tree: RefTree) -> RefTree:
    """The tree :func:`build_tree` builds with numba, from the one-leaf tree it builds without (the same splits:
    they depend on the records alone; the category bitmasks cover the codes present)."""
    if tree.left.shape[0] > 1 or tree.size <= LEAF_SIZE:
        return tree
    n_codes = tree.cat.max(axis=0) + 1 if tree.cat.size else np.zeros(tree.cat.shape[1], dtype=np.int64)
    inv = np.empty_like(tree.perm)
    inv[tree.perm] = np.arange(tree.size, dtype=tree.perm.dtype)
    return _assemble(tree.mode, tree.num[inv], tree.cat[inv], tree.w, tree.cost, n_codes.astype(np.int64),
                     tree.scale, tree.exact, split=True)


def _assemble(mode: int, num: NDArray[np.float64], cat: NDArray[np.int64], w: NDArray[np.float64],
              cost: NDArray[np.float64], n_codes: NDArray[np.int64], scale: float, exact: bool, *,
              split: bool) -> RefTree:
    num = np.ascontiguousarray(num, dtype=np.float64)
    cat = np.ascontiguousarray(cat, dtype=np.int64)
    if split:
        perm, start, end, left, right = _build(mode, num, cat, w, cost, n_codes, LEAF_SIZE)
        start, end, left, right = _preorder(start, end, left, right)
    else:
        m = num.shape[0]
        perm = np.arange(m, dtype=np.int64)
        start, end = np.zeros(1, dtype=np.int64), np.full(1, m, dtype=np.int64)
        left, right = np.full(1, -1, dtype=np.int64), np.full(1, -1, dtype=np.int64)
    pnum = np.ascontiguousarray(num[perm])
    pcat = np.ascontiguousarray(cat[perm])
    n_words = min(_MAX_BITMASK_WORDS, max(1, int((int(n_codes.max()) if len(n_codes) else 1) + 63) // 64))
    if COMPILED:
        nmin, nmax, nnan, mask = _boxes(pnum, pcat, start, end, n_words)
    else:
        nmin, nmax, nnan, mask = _boxes_numpy(pnum, pcat, start, end, left, right, n_words)
    return RefTree(
        mode=int(mode), num=pnum, cat=pcat, perm=perm.astype(np.int64), start=start, end=end, left=left,
        right=right, nmin=nmin, nmax=nmax, nnan=nnan, mask=mask, w=np.ascontiguousarray(w, dtype=np.float64),
        cost=np.ascontiguousarray(cost, dtype=np.float64), scale=float(scale), exact=bool(exact),
    )


def query_order(tree: RefTree, qnum: NDArray[np.float64], qcat: NDArray[np.int64]) -> NDArray[np.int64]:
    """An order of the query rows that keeps similar rows together: the leaf order of a tree built on the
    queries with the reference tree's metric. Results do not depend on it; warm starts and caches do."""
    n = qnum.shape[0]
    if n < 2:
        return np.arange(n, dtype=np.int64)
    maxc = int(max(int(qcat.max()) + 1 if qcat.size else 1, int(tree.cat.max()) + 1 if tree.cat.size else 1))
    n_codes = np.full(qcat.shape[1], maxc, dtype=np.int64)
    perm, *_ = _build(tree.mode, qnum, qcat, tree.w, tree.cost, n_codes, _ORDER_LEAF_SIZE)
    return perm.astype(np.int64)
