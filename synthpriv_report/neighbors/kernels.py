"""Distance accumulation and the tie rule shared by every search (tree, dense, tiled, GPU re-check, brute force).

Every kernel computes a distance through :func:`_acc`, so equal pairs give bit-identical values whichever engine
found them.

The tie rule of docs/metrics.md, "Shared machinery": two distances are equal when |a - b| <= 1e-9 max(|a|, |b|) + 1e-12
(integer-valued distances exactly), and where one nearest record must be chosen it is the one with the lowest
position. Read literally for a k-best list, that rule is not transitive: references at distances x, x + e and
x + 2e, with e just under the tolerance, are tied pairwise with their neighbours but not end to end, and a list
kept by pairwise comparison then depends on the order the references are met. Every engine therefore gives the
one result that depends only on the distances and positions:

- ``dist``: the k smallest distances in ascending order (exact order statistics; ``dist[:, 0]`` is the row
  minimum);
- ``idx``: slot by slot, among the references not yet taken, those tied with the smallest remaining distance,
  and of them the lowest position.

Where every tie is between equal bits (rounding noise never makes a chain: values that agree to 1e-16 are tied
pairwise) this is simply the order by (distance, position), which the k-best lists keep (:func:`_offer`,
:func:`_before`). :func:`_offer` also notes each query for which a reference within the tolerance of the k-th
distance, but not equal to it bit for bit, was left out or pushed out; those queries, and lists holding such a
near tie themselves, are decided again from every reference within the tolerance of the k-th distance
(:func:`resolve_near_ties`). They are rare: 1 or 2 of the 862,874 queries of the 38 searches of an evaluation
of full Adult (eleven distance metrics, three generators).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .._compiled import njit, prange
from ..spaces import Encoding

REL_TOL = 1e-9
ABS_TOL = 1e-12
#: Queries per call of a compiled batch (bounds the per-call output and lets a progress bar advance).
_CHUNK = 4096

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
def _before(d1, i1, d2, i2):
    """True when (d1, i1) comes before (d2, i2) in the order by exact distance, then position (transitive)."""
    return d1 < d2 or (d1 == d2 and i1 < i2)


@njit(cache=True, inline="always")
def _offer(qi, t, ridx, acc, count, k, bound, mode, scale, exact, out_d, out_i, out_t, near):
    """Offer reference ``t`` (position ``ridx``) at accumulator ``acc`` to the k-best list of query ``qi``, kept
    in the order by (distance, position).

    Returns the new (count, bound); ``bound`` is the accumulator above which a reference cannot tie with the
    k-th distance. ``near[qi]`` is set when a reference tied with the k-th distance but not equal to it is left
    out or pushed out of the full list (see the module docstring). A reference already in the list (from the warm
    start) is skipped.
    """
    if count == k and acc > bound:
        return count, bound
    for c in range(count):
        if out_t[c] == t:
            return count, bound
    d = _to_dist(mode, acc, scale)
    dropped = np.inf
    if count == k:
        dk = out_d[qi, k - 1]
        if not _before(d, ridx, dk, out_i[qi, k - 1]):
            if d != dk and _equal(d, dk, exact):
                near[qi] = True
            return count, bound
        dropped = dk
        pos = k - 1
    else:
        pos = count
        count += 1
    while pos > 0 and _before(d, ridx, out_d[qi, pos - 1], out_i[qi, pos - 1]):
        out_d[qi, pos] = out_d[qi, pos - 1]
        out_i[qi, pos] = out_i[qi, pos - 1]
        out_t[pos] = out_t[pos - 1]
        pos -= 1
    out_d[qi, pos] = d
    out_i[qi, pos] = ridx
    out_t[pos] = t
    if count == k:
        dk = out_d[qi, k - 1]
        if dropped != dk and dropped < np.inf and _equal(dropped, dk, exact):
            near[qi] = True
        bound = _slack(mode, dk, scale, exact)
    return count, bound


@njit(cache=True, inline="always")
def _pick(cd, ci, n_c, k, qi, out_i, exact):
    """Slot by slot, of the candidates (``cd``/``ci``: distances and positions, ``n_c`` of them, every reference
    tied with the k-th distance or nearer) not yet taken, the lowest position tied with the smallest remaining
    distance, into ``out_i[qi]``."""
    taken = np.zeros(n_c, dtype=np.bool_)
    for j in range(min(k, n_c)):
        low = np.inf
        for y in range(n_c):
            if not taken[y] and cd[y] < low:
                low = cd[y]
        pick = -1
        for y in range(n_c):
            if not taken[y] and _equal(cd[y], low, exact) and (pick < 0 or ci[y] < ci[pick]):
                pick = y
        taken[pick] = True
        out_i[qi, j] = ci[pick]


@njit(cache=True)
def _decide_from_lists(rows, out_d, d2, i2, exact, out_i):
    """For each query ``rows[x]`` whose longer list ``d2[x]``/``i2[x]`` (the order by distance and position) ends
    beyond the tie window of the k-th distance, or holds every reference, decide ``out_i`` by :func:`_pick` from
    the list's entries in the window. Returns which rows were decided."""
    k = out_d.shape[1]
    kk = d2.shape[1]
    done = np.zeros(rows.shape[0], dtype=np.bool_)
    for x in range(rows.shape[0]):
        qi = rows[x]
        dk = out_d[qi, k - 1]
        last = d2[x, kk - 1]
        if i2[x, kk - 1] >= 0 and (last <= dk or _equal(last, dk, exact)):
            continue  # the window may go on past the list
        n_c = 0
        while n_c < kk and i2[x, n_c] >= 0 and (d2[x, n_c] <= dk or _equal(d2[x, n_c], dk, exact)):
            n_c += 1
        _pick(d2[x], i2[x], n_c, k, qi, out_i, exact)
        done[x] = True
    return done


@njit(cache=True, parallel=True)
def _decide_by_scan(qnum, qcat, self_pos, k, rows, mode, rnum, rcat, perm, w, cost, scale, exact, out_d, out_i):
    """:func:`_pick` for the queries ``rows`` from every reference within the tolerance of the k-th distance,
    found by scanning all references (the last resort of :func:`resolve_near_ties`)."""
    m = rnum.shape[0]
    for x in prange(rows.shape[0]):
        qi = rows[x]
        qn = qnum[qi]
        qc = qcat[qi]
        lim = _slack(mode, out_d[qi, k - 1], scale, exact)
        n_c = 0
        for t in range(m):
            if perm[t] != self_pos[qi] and _acc_within(mode, qn, qc, rnum, rcat, t, w, cost, lim) <= lim:
                n_c += 1
        cd = np.empty(n_c)
        ci = np.empty(n_c, dtype=np.int64)
        c = 0
        for t in range(m):
            if perm[t] != self_pos[qi]:
                a = _acc_within(mode, qn, qc, rnum, rcat, t, w, cost, lim)
                if a <= lim:
                    cd[c] = _to_dist(mode, a, scale)
                    ci[c] = perm[t]
                    c += 1
        _pick(cd, ci, n_c, k, qi, out_i, exact)


@njit(cache=True)
def _near_in_list(out_d, exact, near):
    """Mark the queries whose list holds two distances tied but not equal bit for bit."""
    for qi in range(out_d.shape[0]):
        for j in range(out_d.shape[1] - 1):
            a = out_d[qi, j]
            b = out_d[qi, j + 1]
            if a != b and _equal(a, b, exact):
                near[qi] = True
                break


#: First length of the longer lists searched for the queries with a near tie (k + this), then four times longer.
RESEARCH_EXTRA = 8
#: Longest such list; beyond it the remaining queries scan every reference.
RESEARCH_MAX_K = 1024


def resolve_near_ties(tree, qnum: NDArray[np.float64], qcat: NDArray[np.int64], self_pos: NDArray[np.int64],
                      out_d: NDArray[np.float64], out_i: NDArray[np.int64], near: NDArray[np.bool_],
                      research) -> int:
    """Decide again, in place, the indices of the queries with a near tie (``near``, completed here with the near
    ties inside the lists); every engine calls this last, with ``research(qnum, qcat, self_pos, kk)``: its own
    search of some queries for a longer list of kk (by distance and position, not decided again).

    Each such query gets a list k + :data:`RESEARCH_EXTRA` long, four times longer while the tie window of its
    k-th distance runs past the list's end (many references at one distance), and a scan of every reference
    past :data:`RESEARCH_MAX_K`. Returns how many queries were decided again.
    """
    k = out_d.shape[1]
    if k == 0 or tree.exact or len(near) == 0:
        return 0
    _near_in_list(out_d, tree.exact, near)
    rows = np.nonzero(near)[0].astype(np.int64)
    total = int(len(rows))
    kk = k + RESEARCH_EXTRA
    while len(rows):
        if kk > RESEARCH_MAX_K or kk >= tree.size:
            _decide_by_scan(qnum, qcat, self_pos, k, rows, tree.mode, tree.num, tree.cat, tree.perm, tree.w,
                            tree.cost, tree.scale, tree.exact, out_d, out_i)
            break
        d2, i2 = research(np.ascontiguousarray(qnum[rows]), np.ascontiguousarray(qcat[rows]), self_pos[rows], kk)
        done = _decide_from_lists(rows, out_d, d2, i2, tree.exact, out_i)
        rows = rows[~done]
        kk *= 4
    return total


def _query_arrays(enc: Encoding, set_name: str, rows: NDArray[np.int64] | None):
    num = enc.num[set_name]
    cat = enc.cat[set_name]
    if rows is not None:
        num, cat = num[rows], cat[rows]
    return np.ascontiguousarray(num, dtype=np.float64), np.ascontiguousarray(cat, dtype=np.int64)


def query_chunks(n: int, desc: str, progress: bool, chunk: int | None = None):
    """``(start, end)`` of consecutive query chunks, advancing one progress bar (shown from 20,000 queries) after
    each chunk is done; the bar is closed whatever happens."""
    size = _CHUNK if chunk is None else chunk
    bar = _progress(n, desc, progress)
    try:
        for s in range(0, n, size):
            e = min(n, s + size)
            yield s, e
            if bar is not None:
                bar.update(e - s)
    finally:
        if bar is not None:
            bar.close()


def _progress(total: int, desc: str, enabled: bool):
    if not enabled or total < 20_000:
        return None
    from ..core.progress import bar

    return bar(total, desc, enabled=True, unit="rec")
