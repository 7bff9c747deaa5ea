"""Exact nearest-neighbour search in the compact encodings of :mod:`synthpriv_report.spaces`.

The reference set is organised in a tree of boxes (numeric intervals, missing flags, category code ranges and
bitmasks per node), built level by level in parallel and numbered depth-first. A query walks the tree nearest box
first and skips every box whose lower bound exceeds its current k-th distance (with the tie tolerance of spec
section 0 added, so no record at a tied distance is skipped); bounds and leaf distances stop early once the
category mismatches alone exceed it. Queries are visited in the leaf order of a tree built on the queries, each
starting from the previous query's neighbours (warm start); the result of a query does not depend on either.
Distances are computed exactly in float64 from the compact encoding; no n x m distance matrix is ever built,
memory is O((n + m) * columns + n * k). Queries run in parallel over both cores (numba ``prange``).

Ties (spec section 0): two distances are equal when |a - b| <= 1e-9 max(|a|, |b|) + 1e-12 (integer-valued
distances exactly); among equal distances the record with the lowest reference position comes first.
Within-set searches exclude the query record itself by position.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from numba import njit, prange
from numpy.typing import NDArray

from .spaces import MODE_GOWER, MODE_HAMMING, MODE_L2, Encoding

REL_TOL = 1e-9
ABS_TOL = 1e-12
LEAF_SIZE = 8
#: Leaf size of the tree that orders the queries (the order inside a leaf matters little to warm starts).
_ORDER_LEAF_SIZE = 32
_CHUNK = 4096
#: Dense numeric spaces with at least this many coordinates and no categorical column (the projected space) are
#: searched by blocked matrix products followed by an exact re-check (trees lose their pruning in many dense
#: dimensions).
DENSE_MIN_DIMS = 12


@dataclass(frozen=True)
class NeighborTable:
    """k nearest reference records of every query record.

    Attributes
    ----------
    dist : ndarray, shape (n_query, k)
        Distances, ascending (ties by lowest reference position). ``inf`` where fewer than k references exist.
    idx : ndarray, shape (n_query, k)
        Reference positions (within the reference set), ``-1`` where fewer than k references exist.
    space : str
        Label of the space.
    query, ref : str
        Labels of the query and reference sets.
    """

    dist: NDArray[np.float64]
    idx: NDArray[np.int64]
    space: str
    query: str
    ref: str

    @property
    def k(self) -> int:
        return int(self.dist.shape[1])

    def head(self, k: int) -> "NeighborTable":
        """The first ``k`` neighbours; asking for more than were searched is an error, not a silent recompute."""
        if k > self.k:
            raise ValueError(f"{k} neighbours requested but only {self.k} were searched")
        return NeighborTable(self.dist[:, :k], self.idx[:, :k], self.space, self.query, self.ref)


# ---------------------------------------------------------------------------------------------------------------
# distance kernels


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


# ---------------------------------------------------------------------------------------------------------------
# tree


@dataclass(frozen=True)
class RefTree:
    """A reference set organised for search (see module docstring)."""

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
def _code_runs(cat, j, perm, s, e, nc, counts, codes):
    """Records per code of column j over perm[s:e], in code order: a histogram in ``counts`` when the column has
    at most len(counts) codes, else the run lengths of the sorted codes (written into ``codes``)."""
    n = e - s
    if nc <= counts.shape[0]:
        for c in range(nc):
            counts[c] = 0
        for t in range(s, e):
            counts[cat[perm[t], j]] += 1
        return counts[:nc]
    for t in range(n):
        codes[t] = cat[perm[s + t], j]
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
def _split_node(mode, num, cat, w, cost, n_codes, perm, s, e, counts):
    """Choose a split dimension for perm[s:e] and reorder it; return the split position or -1."""
    n = e - s
    best_score = 0.0
    best_dim = -1
    q = num.shape[1]
    # split the dimension whose median split removes the most expected distance between two random members:
    # numeric about 3/4 of its 2 var (gower: of its mean absolute difference, capped at 1, plus the
    # missing/non-missing mismatches); categorical the Gini impurity removed by splitting the sorted codes at the
    # boundary nearest the middle (a near-unique column gains almost nothing, a binary one becomes pure)
    for j in range(q):
        cnt = 0
        mean = 0.0
        m2 = 0.0
        for t in range(s, e):
            v = num[perm[t], j]
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
    for j in range(cat.shape[1]):
        sc = cost[j] * _gini_gain_runs(_code_runs(cat, j, perm, s, e, n_codes[j], counts, codes), n)
        if sc > best_score:
            best_score = sc
            best_dim = q + j
    if best_dim < 0:
        return -1
    keys = np.empty(n, dtype=np.float64)
    for t in range(n):
        r = perm[s + t]
        if best_dim < q:
            v = num[r, best_dim]
            keys[t] = np.inf if v != v else v
        else:
            keys[t] = cat[r, best_dim - q]
    order = np.argsort(keys, kind="mergesort")
    tmp = perm[s:e].copy()
    sk = keys[order]
    for t in range(n):
        perm[s + t] = tmp[order[t]]
    best = _middle_boundary(sk)
    if best <= 0:
        return -1
    return s + best


@njit(cache=True, parallel=True)
def _build(mode, num, cat, w, cost, n_codes, leaf_size):
    """Split the records level by level (the nodes of one level in parallel); nodes are numbered breadth-first.

    The tree depends only on the data (each node's split is a function of its records), not on the threads.
    """
    m = num.shape[0]
    perm = np.arange(m)
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
                splits[x] = _split_node(mode, num, cat, w, cost, n_codes, perm, s, e, counts)
        nxt = np.empty(2 * fn, dtype=np.int64)
        nn = 0
        for x in range(fn):
            if splits[x] < 0 or n_nodes + 2 > cap:
                continue
            node = frontier[x]
            l = n_nodes
            r = n_nodes + 1
            n_nodes += 2
            start[l] = start[node]
            end[l] = splits[x]
            start[r] = splits[x]
            end[r] = end[node]
            left[node] = l
            right[node] = r
            nxt[nn] = l
            nxt[nn + 1] = r
            nn += 2
        frontier = nxt[:nn].copy()
    return perm, start[:n_nodes].copy(), end[:n_nodes].copy(), left[:n_nodes].copy(), right[:n_nodes].copy()


_MAX_BITMASK_WORDS = 4  # category bitmasks up to 256 codes; larger columns keep only the code range


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


def build_tree(enc: Encoding, set_name: str, rows: NDArray[np.int64] | None = None) -> RefTree:
    """Organise the reference set ``set_name`` (optionally only ``rows`` of it) for search."""
    num = enc.num[set_name]
    cat = enc.cat[set_name]
    if rows is not None:
        num, cat = num[rows], cat[rows]
    num = np.ascontiguousarray(num, dtype=np.float64)
    cat = np.ascontiguousarray(cat, dtype=np.int64)
    n_codes = enc.n_codes.astype(np.int64) if len(enc.n_codes) else np.zeros(0, dtype=np.int64)
    perm, start, end, left, right = _build(
        enc.mode, num, cat, enc.num_weight, enc.cat_cost, n_codes, LEAF_SIZE
    )
    start, end, left, right = _preorder(start, end, left, right)
    pnum = np.ascontiguousarray(num[perm])
    pcat = np.ascontiguousarray(cat[perm])
    n_words = min(_MAX_BITMASK_WORDS, max(1, int((int(n_codes.max()) if len(n_codes) else 1) + 63) // 64))
    nmin, nmax, nnan, mask = _boxes(pnum, pcat, start, end, n_words)
    return RefTree(
        mode=enc.mode, num=pnum, cat=pcat, perm=perm.astype(np.int64), start=start, end=end, left=left,
        right=right, nmin=nmin, nmax=nmax, nnan=nnan, mask=mask, w=enc.num_weight, cost=enc.cat_cost,
        scale=enc.scale, exact=enc.integer_valued,
    )


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
def _lower_bound(mode, node, qn, qc, qword, qbit, beyond, nmin, nmax, nnan, mask, w, cost, bound):
    """Lower bound of the accumulator between the query and any record of ``node``.

    The category part comes first; once it exceeds ``bound`` it is returned alone, since the node is pruned
    whatever its numeric part (every use compares with ``bound``). The two parts are computed by separate
    loops and added once (an accumulator carried across the mode branch ran three times slower).
    """
    c = _cat_lower_bound(node, qc, qword, qbit, beyond, mask, cost)
    if c > bound:
        return c
    return c + _num_lower_bound(mode, node, qn, nmin, nmax, nnan, w)


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


@njit(cache=True)
def _knn_one(qi, qn, qc, self_pos, k, mode, rnum, rcat, perm, start, end, left, right, nmin, nmax, nnan, mask,
             w, cost, scale, exact, out_d, out_i, stack_n, stack_lb, warm, out_t, qword, qbit):
    count = 0
    bound = np.inf
    beyond = _query_bits(qc, mask.shape[1] - 2, qword, qbit)
    # warm start: the neighbours of the previous (similar) query give a tight bound at once
    for c in range(warm.shape[0]):
        t = warm[c]
        if t >= 0 and perm[t] != self_pos:
            acc = _acc(mode, qn, qc, rnum, rcat, t, w, cost)
            count, bound = _offer(qi, t, perm[t], acc, count, k, bound, mode, scale, exact, out_d, out_i, out_t)
    stack_n[0] = 0
    stack_lb[0] = 0.0
    sp = 1
    while sp > 0:
        sp -= 1
        node = stack_n[sp]
        if count == k and stack_lb[sp] > bound:
            continue
        if left[node] < 0:
            for t in range(start[node], end[node]):
                ridx = perm[t]
                if ridx == self_pos:
                    continue
                acc = _acc_within(mode, qn, qc, rnum, rcat, t, w, cost, bound)
                count, bound = _offer(qi, t, ridx, acc, count, k, bound, mode, scale, exact, out_d, out_i, out_t)
        else:
            l = left[node]
            r = right[node]
            lbl = _lower_bound(mode, l, qn, qc, qword, qbit, beyond, nmin, nmax, nnan, mask, w, cost, bound)
            lbr = _lower_bound(mode, r, qn, qc, qword, qbit, beyond, nmin, nmax, nnan, mask, w, cost, bound)
            near, far, lbn, lbf = (l, r, lbl, lbr) if lbl <= lbr else (r, l, lbr, lbl)
            full = count == k
            if not (full and lbf > bound):  # children beyond the bound are never pushed
                stack_n[sp] = far
                stack_lb[sp] = lbf
                sp += 1
            if not (full and lbn > bound):
                stack_n[sp] = near
                stack_lb[sp] = lbn
                sp += 1


@njit(cache=True, parallel=True)
def _knn_batch(qnum, qcat, order, self_pos, k, mode, rnum, rcat, perm, start, end, left, right, nmin, nmax, nnan, mask,
               w, cost, scale, exact):
    n = qnum.shape[0]
    out_d = np.full((n, k), np.inf)
    out_i = np.full((n, k), -1, dtype=np.int64)
    n_nodes = start.shape[0]
    n_blocks = (n + 63) // 64
    for b in prange(n_blocks):
        stack_n = np.empty(n_nodes + 2, dtype=np.int64)
        stack_lb = np.empty(n_nodes + 2, dtype=np.float64)
        warm = np.full(k, -1, dtype=np.int64)
        out_t = np.full(k, -1, dtype=np.int64)
        qword = np.empty(qcat.shape[1], dtype=np.int64)
        qbit = np.empty(qcat.shape[1], dtype=np.uint64)
        for qq in range(b * 64, min(n, (b + 1) * 64)):
            qi = order[qq]
            for c in range(k):
                out_t[c] = -1
            _knn_one(qi, qnum[qi], qcat[qi], self_pos[qi], k, mode, rnum, rcat, perm, start, end, left, right,
                     nmin, nmax, nnan, mask, w, cost, scale, exact, out_d, out_i, stack_n, stack_lb, warm, out_t,
                     qword, qbit)
            for c in range(k):
                warm[c] = out_t[c]
    return out_d, out_i


def _query_arrays(enc: Encoding, set_name: str, rows: NDArray[np.int64] | None):
    num = enc.num[set_name]
    cat = enc.cat[set_name]
    if rows is not None:
        num, cat = num[rows], cat[rows]
    return np.ascontiguousarray(num, dtype=np.float64), np.ascontiguousarray(cat, dtype=np.int64)


def _progress(total: int, desc: str, enabled: bool):
    if not enabled or total < 20_000:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="rec", leave=False)


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


def knn(
    tree: RefTree,
    qnum: NDArray[np.float64],
    qcat: NDArray[np.int64],
    *,
    k: int,
    exclude_self: bool = False,
    progress: bool = False,
    desc: str = "neighbours",
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """k nearest references of each query row.

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

    Returns
    -------
    dist, idx : ndarray, shape (n_query, k)
    """
    n = qnum.shape[0]
    self_pos = np.arange(n, dtype=np.int64) if exclude_self else np.full(n, -1, dtype=np.int64)
    if tree.mode == MODE_L2 and tree.cat.shape[1] == 0 and tree.num.shape[1] >= DENSE_MIN_DIMS:
        return _knn_dense(tree, qnum, self_pos, k, progress=progress, desc=desc)
    out_d = np.empty((n, k))
    out_i = np.empty((n, k), dtype=np.int64)
    bar = _progress(n, desc, progress)
    # visit queries in an order that keeps similar queries together (warm starts, cache locality); the result
    # of each query does not depend on the order
    order = query_order(tree, qnum, qcat)
    qnum, qcat, self_pos = qnum[order], qcat[order], self_pos[order]
    local = np.arange(_CHUNK, dtype=np.int64)
    for s in range(0, n, _CHUNK):
        e = min(n, s + _CHUNK)
        d, i = _knn_batch(qnum[s:e], qcat[s:e], local[:e - s], self_pos[s:e], k, tree.mode, tree.num, tree.cat, tree.perm,
                          tree.start, tree.end, tree.left, tree.right, tree.nmin, tree.nmax, tree.nnan, tree.mask,
                          tree.w, tree.cost, tree.scale, tree.exact)
        out_d[order[s:e]] = d
        out_i[order[s:e]] = i
        if bar is not None:
            bar.update(e - s)
    if bar is not None:
        bar.close()
    return out_d, out_i


_DENSE_TASK = 64  # queries per product in the dense path: 64 x m single-precision values per thread


@njit(cache=True, fastmath={"nnan", "nsz"})
def _dense_select(g, r2, si, k, margin, mins, best, buf):
    """Columns j whose single-precision ranking value r2[j] - 2 g[j] lies within ``margin`` of the k-th
    smallest (column ``si`` excluded). Returns (columns, count): ``buf`` when they fit, else a new array.

    The row is read in blocks of 64 columns: the minimum of a block is taken first (a branch-free loop) and the
    block is scanned element by element only when that minimum can enter the k best (first pass) or lies within
    the threshold (second pass).
    """
    m = g.shape[0]
    B = 64
    n_b = (m + B - 1) // B
    two = np.float32(2.0)
    for c in range(k):
        best[c] = np.inf
    for b in range(n_b):
        lo = b * B
        hi = min(m, lo + B)
        mn = np.float32(np.inf)
        for j in range(lo, hi):
            a = r2[j] - two * g[j]
            mn = a if a < mn else mn
        mins[b] = mn
        if mn < best[k - 1]:
            for j in range(lo, hi):
                a = r2[j] - two * g[j]
                if a < best[k - 1] and j != si:
                    pos = k - 1
                    while pos > 0 and a < best[pos - 1]:
                        best[pos] = best[pos - 1]
                        pos -= 1
                    best[pos] = a
    t = best[k - 1] + margin
    c = 0
    for b in range(n_b):
        if mins[b] <= t:
            for j in range(b * B, min(m, b * B + B)):
                if r2[j] - two * g[j] <= t and j != si:
                    if c < buf.shape[0]:
                        buf[c] = j
                    c += 1
    if c <= buf.shape[0]:
        return buf, c
    out = np.empty(c, dtype=np.int64)
    c = 0
    for j in range(m):
        if r2[j] - two * g[j] <= t and j != si:
            out[c] = j
            c += 1
    return out, c


@njit(cache=True, parallel=True)
def _dense_batch(qnum, Q32, RT, r2, self_pos, self_col, k, kk, margin, mode, rnum, rcat, perm, w, cost, scale,
                 exact):
    """Exact k nearest references of each query of a chunk by filter and refine (see :func:`_knn_dense`).

    Each task multiplies its 64 queries with all references (single-threaded BLAS inside the thread, so the
    product, the selection and the refinement of a task share one core), selects the candidates of each query
    and decides among them with exact float64 distances and the tie rule.
    """
    n = qnum.shape[0]
    m = RT.shape[1]
    out_d = np.full((n, k), np.inf)
    out_i = np.full((n, k), -1, dtype=np.int64)
    n_tasks = (n + _DENSE_TASK - 1) // _DENSE_TASK
    qcat_empty = np.zeros(0, dtype=rcat.dtype)
    for task in prange(n_tasks):
        a = task * _DENSE_TASK
        b = min(n, a + _DENSE_TASK)
        G = np.dot(Q32[a:b], RT)
        mins = np.empty((m + 63) // 64, dtype=np.float32)
        best = np.empty(kk)
        buf = np.empty(64, dtype=np.int64)
        out_t = np.full(k, -1, dtype=np.int64)
        for qi in range(a, b):
            cols, c = _dense_select(G[qi - a], r2, self_col[qi], kk, margin[qi], mins, best, buf)
            qn = qnum[qi]
            count = 0
            bound = np.inf
            for x in range(k):
                out_t[x] = -1
            for x in range(c):
                t = cols[x]
                ridx = perm[t]
                if ridx == self_pos[qi]:
                    continue
                acc = _acc(mode, qn, qcat_empty, rnum, rcat, t, w, cost)
                count, bound = _offer(qi, t, ridx, acc, count, k, bound, mode, scale, exact, out_d, out_i, out_t)
    return out_d, out_i


def _knn_dense(tree: RefTree, qnum: NDArray[np.float64], self_pos: NDArray[np.int64], k: int, *,
               progress: bool, desc: str) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Filter and refine for dense l2 spaces (the projected space).

    Filter: single-precision matrix products give q.r for every reference; the ranking value |r|^2 - 2 q.r
    (|q|^2 is constant per query) selects every reference within a margin of the k-th smallest. The margin is
    four times the worst-case rounding error of the product (dims * 2^-24 |q| |r|), plus the rounding of the
    single-precision ranking values, plus the tie tolerance, so every reference that can be among the exact k
    nearest, or tie with them, is kept. Refine: exact float64 distances from the compact kernel and the tie rule
    decide. The result equals the exact search; memory is O(threads * 64 * m) single-precision values.

    BLAS runs single-threaded here, one product per numba thread, each followed by that thread's selection and
    refinement: with BLAS's own threads, they spin after every call and took the cores from the kernels between
    products (measured on 2 cores: candidate selection 1.8 s instead of 0.45 s, refinement 0.31 s instead of
    0.01 s, for 32,561 queries against 32,561 references in 39 dimensions).
    """
    from threadpoolctl import threadpool_limits

    n = qnum.shape[0]
    m = tree.num.shape[0]
    dims = tree.num.shape[1]
    sw = np.sqrt(tree.w)
    R = tree.num * sw
    r2 = np.einsum("ij,ij->i", R, R)
    rnorm_max = float(np.sqrt(r2.max())) if m else 0.0
    RT = np.asfortranarray(R.T, dtype=np.float32)
    r2_32 = r2.astype(np.float32)
    inv = np.empty(m, dtype=np.int64)
    inv[tree.perm] = np.arange(m)
    out_d = np.full((n, k), np.inf)
    out_i = np.full((n, k), -1, dtype=np.int64)
    avail = m - (1 if (self_pos >= 0).any() else 0)
    kk = min(k, avail)
    if kk <= 0 or n == 0:
        return out_d, out_i
    unit = (dims + 2) * 2.0 ** -23
    Q = qnum * sw
    q2 = np.einsum("ij,ij->i", Q, Q)
    Q32 = np.ascontiguousarray(Q, dtype=np.float32)
    self_col = np.where(self_pos >= 0, inv[np.maximum(self_pos, 0)], -1).astype(np.int64)
    err = unit * (np.sqrt(q2) + 1.0) * (rnorm_max + 1.0) + unit * (q2 + rnorm_max ** 2 + 1.0)
    bound_d2 = q2 + rnorm_max ** 2 + 2 * np.sqrt(q2) * rnorm_max
    # plus the rounding of single-precision ranking values (|r|^2 and the difference, on both sides)
    margin = 4.0 * err + 3e-9 * bound_d2 + 2.0 ** -20 * (bound_d2 + rnorm_max ** 2) + 1e-20
    qnum = np.ascontiguousarray(qnum, dtype=np.float64)
    bar = _progress(n, desc, progress)
    with threadpool_limits(limits=1, user_api="blas"):
        for s in range(0, n, _CHUNK):
            e = min(n, s + _CHUNK)
            d, i = _dense_batch(qnum[s:e], Q32[s:e], RT, r2_32, self_pos[s:e], self_col[s:e], k, kk, margin[s:e],
                                tree.mode, tree.num, tree.cat, tree.perm, tree.w, tree.cost, tree.scale, tree.exact)
            out_d[s:e] = d
            out_i[s:e] = i
            if bar is not None:
                bar.update(e - s)
    if bar is not None:
        bar.close()
    return out_d, out_i


# ---------------------------------------------------------------------------------------------------------------
# all references at the minimal distance (GCAP, AIR)


@njit(cache=True, parallel=True)
def _ties_batch(qnum, qcat, dmin, qlab, rlab, lab_kind, lab_tol, mode, rnum, rcat, perm, start, end, left, right,
                nmin, nmax, nnan, mask, w, cost, scale, exact):
    n = qnum.shape[0]
    a = qlab.shape[1]
    n_min = np.zeros(n, dtype=np.int64)
    n_ok = np.zeros((n, a), dtype=np.int64)
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
            if _lower_bound(mode, node, qn, qc, qword, qbit, beyond, nmin, nmax, nnan, mask, w, cost,
                            bound) > bound:
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
                ridx = perm[t]
                for j in range(a):
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
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Count, per query, the references at its minimal distance and how many of them are "correct".

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

    Returns
    -------
    n_min : ndarray, shape (n_query,)
        References at the minimal distance (ties by the rule of spec section 0).
    n_correct : ndarray, shape (n_query, a)
        Of those, the correct ones per attribute.
    """
    return _ties_batch(qnum, qcat, np.asarray(dmin, dtype=np.float64), np.ascontiguousarray(qlab, np.float64),
                       np.ascontiguousarray(rlab, np.float64), np.asarray(lab_kind, np.int64),
                       np.asarray(lab_tol, np.float64), tree.mode, tree.num, tree.cat, tree.perm, tree.start,
                       tree.end, tree.left, tree.right, tree.nmin, tree.nmax, tree.nnan, tree.mask, tree.w,
                       tree.cost, tree.scale, tree.exact)


# ---------------------------------------------------------------------------------------------------------------
# pairs and farthest pair


@njit(cache=True, parallel=True)
def _pair_dist(mode, an, ac, bn, bc, w, cost, scale):
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
def _pair_upper(mode, a, b, anmin, anmax, annan, amask, bnmin, bnmax, bnnan, bmask, w, cost):
    """Upper bound of the distance accumulator between any record of node ``a`` and any record of node ``b``."""
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
def _farthest_dual(mode, anum, acat, aperm, astart, aend, aleft, aright, anmin, anmax, annan, amask,
                   bnum, bcat, bperm, bstart, bend, bleft, bright, bnmin, bnmax, bnnan, bmask, w, cost,
                   best, bi, bj):
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
        if _pair_upper(mode, a, b, anmin, anmax, annan, amask, bnmin, bnmax, bnnan, bmask, w, cost) <= best:
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
                u = _pair_upper(mode, ca[x], cb[y], anmin, anmax, annan, amask, bnmin, bnmax, bnnan, bmask, w,
                                cost)
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
    """Exact largest distance between a record of tree ``ta``'s set and one of ``tb``'s (spec 3, Eq. 14).

    A dual-tree search over the two reference trees: node pairs are visited largest upper bound first and
    skipped once their bound cannot beat the best pair found, so no n x m matrix is built and only a small
    fraction of pairs is visited. The starting pair comes from one double sweep (the farthest record of b from
    a's first record, then the farthest record of a from that one). Returns ``(d_max, i, j)`` with positions in
    the two sets.
    """
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
    acc, i, j = _farthest_dual(enc.mode, ta.num, ta.cat, ta.perm, ta.start, ta.end, ta.left, ta.right, ta.nmin,
                               ta.nmax, ta.nnan, ta.mask, tb.num, tb.cat, tb.perm, tb.start, tb.end, tb.left,
                               tb.right, tb.nmin, tb.nmax, tb.nnan, tb.mask, enc.num_weight, enc.cat_cost,
                               acc0, i0, j0)
    d = float(_to_dist(enc.mode, acc, enc.scale))
    return max(d, best), int(i), int(j)


# ---------------------------------------------------------------------------------------------------------------
# brute force reference (tests)


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


def set_threads(n: int | None) -> None:
    """Limit numba's worker threads (``None``: all cores)."""
    numba.set_num_threads(n or numba.config.NUMBA_NUM_THREADS)


__all__ = [
    "NeighborTable", "RefTree", "build_tree", "knn", "ties_at_min", "pair_distances", "farthest_pair",
    "knn_brute", "MODE_GOWER", "MODE_L2", "MODE_HAMMING",
]
