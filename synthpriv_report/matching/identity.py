"""Identical records (docs/metrics.md, "Shared machinery"): an id per record of every set, equal exactly when the
records are identical.

Two records are identical when every analysed column is equal: numbers as float64, exactly (-0.0 equals 0.0,
missing equals missing), categories as strings (compared through the fitted category codes, which are equal
exactly when the strings are, missing being a category of its own).

:func:`record_ids` hashes each record's values with a 64-bit mixing function (compiled, in parallel over records),
numbers the distinct hashes densely, and then checks every record against the first record that received its
id, value by value. Where the check finds two different records under one hash (about one chance in 10^7 for
three million records), the ids are computed again by :func:`record_ids_by_columns`, which numbers column by
column and is exact by construction but some ten times slower. Either way the ids are exact.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .._compiled import COMPILED, njit, prange


class RowReader(Protocol):
    """Rows of numbers read a block at a time (:class:`synthpriv_report.data.containers.NumericSet`): ``rows(rows)`` is
    a
    new float64 array ``(len(rows), q)``."""

    @property
    def shape(self) -> tuple[int, int]: ...

    def rows(self, rows: Any = ...) -> NDArray[np.float64]: ...


_NAN_BITS = np.int64(0x7FF8000000000000)


@njit(cache=True, inline="always")
def _mix(h):
    """The splitmix64 finalizer: a bijection of 64-bit words whose every output bit depends on every input bit."""
    h ^= h >> np.uint64(30)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(27)
    h *= np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(31)
    return h


_EXP = np.int64(0x7FF0000000000000)
_MANT = np.int64(0x000FFFFFFFFFFFFF)
_NEG_ZERO = np.int64(-0x8000000000000000)


@njit(cache=True, inline="always")
def _num_bits(b):
    """The canonical bit pattern of a number given as its float64 bits: -0.0 as 0.0, every NaN as one NaN."""
    if b == _NEG_ZERO:
        return np.int64(0)
    if (b & _EXP) == _EXP and (b & _MANT) != 0:
        return _NAN_BITS
    return b


def _row_hashes(num: NDArray[np.int64], codes: NDArray[np.int64]) -> NDArray[np.int64]:
    """A 64-bit hash of each row: numbers given as their float64 bits (canonicalised here), then codes."""
    if COMPILED:
        return _row_hashes_compiled(num, codes)
    return _row_hashes_numpy(num, codes)


def mix64(h: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """splitmix64's finalizer, a bijection of 64-bit words, on a whole array: :func:`_mix` vectorised (unsigned
    array arithmetic wraps modulo 2**64, silently). Also the cell words of the near-copy check."""
    h = h ^ (h >> np.uint64(30))
    h = h * np.uint64(0xBF58476D1CE4E5B9)
    h = h ^ (h >> np.uint64(27))
    h = h * np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(31))


def _row_hashes_numpy(num: NDArray[np.int64], codes: NDArray[np.int64]) -> NDArray[np.int64]:
    """:func:`_row_hashes_compiled` column by column in NumPy: the same hashes."""
    h = np.full(num.shape[0], 0x9E3779B97F4A7C15, dtype=np.uint64)
    for j in range(num.shape[1]):
        h = mix64(h ^ _canonical_bits(num[:, j]).view(np.uint64))
    for j in range(codes.shape[1]):
        c = np.ascontiguousarray(codes[:, j], dtype=np.int64).view(np.uint64)
        h = mix64(h ^ c ^ np.uint64(0x5851F42D4C957F2D))
    return h.view(np.int64)


@njit(cache=True, parallel=True)
def _row_hashes_compiled(num, codes):
    n = num.shape[0]
    out = np.empty(n, dtype=np.int64)
    for r in prange(n):
        h = np.uint64(0x9E3779B97F4A7C15)
        for j in range(num.shape[1]):
            h = _mix(h ^ np.uint64(_num_bits(num[r, j])))
        for j in range(codes.shape[1]):
            h = _mix(h ^ np.uint64(codes[r, j]) ^ np.uint64(0x5851F42D4C957F2D))
        out[r] = np.int64(h)
    return out


def _canonical_bits(b: NDArray[np.int64]) -> NDArray[np.int64]:
    """:func:`_num_bits` elementwise."""
    b = b.copy()
    b[b == _NEG_ZERO] = 0
    b[((b & _EXP) == _EXP) & ((b & _MANT) != 0)] = _NAN_BITS
    return b


def _same_rows(num_a: NDArray[np.int64], codes_a: NDArray[np.int64], rows_a: NDArray[np.integer],
               num_b: NDArray[np.int64], codes_b: NDArray[np.int64], rows_b: NDArray[np.integer]) -> NDArray[np.bool_]:
    """Whether row ``rows_a[x]`` of set a equals row ``rows_b[x]`` of set b in every value, for every x."""
    if COMPILED:
        return _same_rows_compiled(num_a, codes_a, np.asarray(rows_a, dtype=np.int64), num_b, codes_b,
                                   np.asarray(rows_b, dtype=np.int64))
    same = (_canonical_bits(num_a[rows_a]) == _canonical_bits(num_b[rows_b])).all(axis=1)
    return same & (codes_a[rows_a] == codes_b[rows_b]).all(axis=1)


@njit(cache=True, parallel=True)
def _same_rows_compiled(num_a, codes_a, rows_a, num_b, codes_b, rows_b):
    """Whether row ``rows_a[x]`` of set a equals row ``rows_b[x]`` of set b in every value, for every x."""
    n = rows_a.shape[0]
    ok = np.ones(n, dtype=np.bool_)
    for x in prange(n):
        ra = rows_a[x]
        rb = rows_b[x]
        for j in range(num_a.shape[1]):
            if _num_bits(num_a[ra, j]) != _num_bits(num_b[rb, j]):
                ok[x] = False
                break
        if ok[x]:
            for j in range(codes_a.shape[1]):
                if codes_a[ra, j] != codes_b[rb, j]:
                    ok[x] = False
                    break
    return ok


def record_ids(numeric: Mapping[str, NDArray[np.float64]], codes: Mapping[str, NDArray[np.integer]],
               sets: Sequence[str]) -> dict[str, NDArray[np.int64]]:
    """Dense ids (0, 1, ...) per record of every set in ``sets``; equal ids exactly when the records are
    identical. ``numeric[s]``: (n_s, q) float64 values; ``codes[s]``: (n_s, c) category codes.

    Examples
    --------
    >>> num = {"T": np.array([[0.0], [np.nan], [1.0]]), "S": np.array([[-0.0], [np.nan]])}
    >>> cod = {"T": np.array([[1], [2], [1]]), "S": np.array([[1], [2]])}
    >>> ids = record_ids(num, cod, ["T", "S"])
    >>> ids["T"].tolist(), ids["S"].tolist()  # -0.0 equals 0.0, missing equals missing
    ([0, 1, 2], [0, 1])
    """
    # numbers as their float64 bit patterns (canonicalised by the kernels), codes as int64
    arrays = {s: (np.ascontiguousarray(numeric[s], dtype=np.float64).view(np.int64),
                  np.ascontiguousarray(codes[s], dtype=np.int64)) for s in sets}
    hashes = np.concatenate([_row_hashes(*arrays[s]) for s in sets]) if sets else np.zeros(0, dtype=np.int64)
    ids_all = pd.factorize(hashes)[0].astype(np.int64)
    sizes = [arrays[s][0].shape[0] for s in sets]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    # the first record of each id, as (set number, row), and a check of every record against it
    first = np.full(int(ids_all.max()) + 1 if len(ids_all) else 0, -1, dtype=np.int64)
    first[ids_all[::-1]] = np.arange(len(ids_all) - 1, -1, -1, dtype=np.int64)
    owner = np.searchsorted(offsets, first, side="right") - 1
    for a, s in enumerate(sets):
        ids_s = ids_all[offsets[a]:offsets[a + 1]]
        for b, s0 in enumerate(sets[:a + 1]):
            mine = np.nonzero(owner[ids_s] == b)[0]
            if not len(mine):
                continue
            rows_b = first[ids_s[mine]] - offsets[b]
            if not _same_rows(*arrays[s], mine, *arrays[s0], rows_b).all():
                return record_ids_by_columns(numeric, codes, sets)
    return {s: ids_all[offsets[a]:offsets[a + 1]] for a, s in enumerate(sets)}


def record_ids_by_columns(numeric: Mapping[str, NDArray[np.float64]], codes: Mapping[str, NDArray[np.integer]],
                          sets: Sequence[str]) -> dict[str, NDArray[np.int64]]:
    """:func:`record_ids` column by column (:func:`synthpriv_report.matching.joins.row_ids` over each column's
    canonical bit
    patterns of the numbers, then the category codes). Exact by construction; memory a few vectors."""
    from .joins import row_ids

    total = sum(numeric[s].shape[0] for s in sets)
    n_num = numeric[sets[0]].shape[1] if sets else 0
    n_cat = codes[sets[0]].shape[1] if sets else 0

    def column(j: int) -> NDArray[np.int64]:  # one column at a time
        if j < n_num:
            col = np.concatenate([numeric[s][:, j] + 0.0 for s in sets])  # -0.0 == 0.0
            bits = col.view(np.int64).copy()
            bits[np.isnan(col)] = _NAN_BITS
            return bits
        return np.concatenate([codes[s][:, j - n_num] for s in sets]).astype(np.int64)

    ids_all = row_ids((column(j) for j in range(n_num + n_cat)), total)
    out, start = {}, 0
    for s in sets:
        n = numeric[s].shape[0]
        out[s] = ids_all[start:start + n]
        start += n
    return out


#: Ids :func:`repeated_ids` reads at a time.
REPEAT_BLOCK = 1 << 20


def repeated_ids(ids: NDArray[np.integer]) -> NDArray[np.bool_]:
    """For each position, whether its id occurs at least twice in ``ids`` (non-negative integers): ``bincount(ids)
    [ids] >= 2``, from two flags per id (seen, seen again: one byte each) filled a block of
    :data:`REPEAT_BLOCK` ids at a time, where a count per id took 8 bytes an id and its gather 8 bytes a record.

    >>> repeated_ids(np.array([3, 0, 3, 1, 0, 5])).tolist()
    [True, True, True, False, True, False]
    """
    m = int(ids.max(initial=-1)) + 1
    seen = np.zeros(m, dtype=bool)
    again = np.zeros(m, dtype=bool)
    for a in range(0, ids.shape[0], REPEAT_BLOCK):
        b = ids[a:a + REPEAT_BLOCK]
        again[b[seen[b]]] = True  # met in an earlier block
        s = np.sort(b)
        again[s[1:][s[1:] == s[:-1]]] = True  # twice within this block
        seen[b] = True
        del b, s
    del seen
    return again[ids]


def _text_hashes(table: NDArray[np.object_]) -> NDArray[np.int64]:
    """A 64-bit hash of each text of ``table`` that depends on the text alone (pandas' keyed SipHash with its
    fixed key), with one extra entry at the end for the missing value (code -1)."""
    h = pd.util.hash_array(np.asarray(table, dtype=object), categorize=False).view(np.int64) if len(table) else \
        np.zeros(0, dtype=np.int64)
    return np.append(h, np.int64(0x2545F4914F6CDD1D))


#: Sorted hashes :func:`canonical_order` compares at a time (8 MB).
SORTED_BLOCK = 1 << 20
#: Pairs of records under one hash whose rows :func:`canonical_order` compares at a time.
PAIR_BLOCK = 1 << 16
#: Records :func:`stable_order` sorts at a time, about (a range of hash values each): 512k, 12 MB of its arrays.
ORDER_BLOCK = 1 << 19


def stable_order(h: NDArray[np.int64], positions: type[np.integer] = np.int64) -> NDArray[np.integer]:
    """``np.argsort(h, kind="stable")`` in ``positions``, made a range of values at a time.

    The hashes are cut into 2**b ranges by their top b bits (an arithmetic shift keeps their order), enough for
    about :data:`ORDER_BLOCK` records a range; each range's records are found in their order as given and sorted
    stably, so that the ranges laid end to end give the same permutation as one stable sort of all, without its
    8-byte positions and merge buffer for every record (at 5M records: 20 MB of positions and about 12 MB a
    range, against about 100 MB).

    >>> stable_order(np.array([5, -3, 5, 0, -3]), np.int32).tolist()
    [1, 4, 3, 0, 2]
    """
    n = h.shape[0]
    bits = max(0, int(np.ceil(np.log2(max(1, n) / ORDER_BLOCK))))
    if bits == 0:
        return np.argsort(h, kind="stable").astype(positions, copy=False)
    bits = min(bits, 15)
    shift = np.int64(64 - bits)
    top = np.empty(n, dtype=np.int16)
    for a in range(0, n, SORTED_BLOCK):
        top[a:a + SORTED_BLOCK] = h[a:a + SORTED_BLOCK] >> shift
    order = np.empty(n, dtype=positions)
    at = 0
    for v in range(-(1 << (bits - 1)), 1 << (bits - 1)):
        rows = np.flatnonzero(top == v)
        if rows.size:
            order[at:at + rows.size] = rows[np.argsort(h[rows], kind="stable")]
            at += rows.size
        del rows
    return order


def canonical_order(numeric: NDArray[np.float64] | RowReader,
                    codes: NDArray[np.integer] | Sequence[NDArray[np.integer]] | None,
                    tables: Sequence[NDArray[np.object_]]) -> NDArray[np.integer]:
    """A permutation that puts the records of one set in an order that depends on their values alone.

    Records are sorted by a 64-bit hash of their content (numbers by their canonical float64 bits, texts by a
    hash of the text, not of a code numbered in order of appearance); identical records are interchangeable, so
    their order among themselves does not matter. Two different records under one hash (about one chance in
    10^7 for three million records) are put in order by their values, column by column. Every step of an
    evaluation that takes records in order (halves, subsamples, bootstrap resamples, the lowest position among
    tied neighbours) then gives the same numbers whatever the order of the rows it was given.

    Parameters
    ----------
    numeric : array (n, q), or an object with ``shape`` and ``rows(rows)``
        Numbers (NaN missing); a packed set (:class:`synthpriv_report.data.containers.NumericSet`) is read a block of
        rows
        at a time, so that no float64 copy of the whole set is made.
    codes : int array (n, c), sequence of c int arrays (n,), or None
        Per categorical column, the code of each record's text in ``tables[j]`` (-1 missing), in any integer
        type: given column by column, no (n, c) array of them is made.
    tables : sequence of object arrays
        Per categorical column, the distinct texts.

    Returns
    -------
    int array (n,)
        ``order[i]`` is the row (as given) of the record that comes i-th; int32 below 2**31 records (the sort's
        positions narrowed at once, 4 bytes a record besides the hashes), else int64.

    Examples
    --------
    >>> num, codes = np.array([[2.0], [1.0], [3.0]]), np.array([[0], [1], [0]])
    >>> a = canonical_order(num, codes, [np.array(["x", "y"], dtype=object)])
    >>> # the same records in reverse order, their texts numbered in their own order of appearance
    >>> b = canonical_order(num[::-1], np.array([[0], [1], [0]]), [np.array(["x", "y"], dtype=object)])
    >>> num[a].ravel().tolist() == num[::-1][b].ravel().tolist()
    True
    """
    n = numeric.shape[0]
    if isinstance(numeric, np.ndarray):
        whole = np.ascontiguousarray(numeric, dtype=np.float64)

        def bits_of(rows: slice | NDArray[np.int64]) -> NDArray[np.int64]:
            return np.ascontiguousarray(whole[rows]).view(np.int64)
    else:
        reader = numeric

        def bits_of(rows: slice | NDArray[np.int64]) -> NDArray[np.int64]:
            return np.ascontiguousarray(reader.rows(rows), dtype=np.float64).view(np.int64)
    if codes is None:
        cols: list[NDArray[np.integer]] = []
    elif isinstance(codes, np.ndarray):
        cols = [codes[:, j] for j in range(codes.shape[1])]
    else:
        cols = list(codes)
    c = len(cols)
    text_hashes = [_text_hashes(t) for t in tables[:c]]

    def content_of(rows: slice | NDArray[np.int64]) -> NDArray[np.int64]:
        """The texts' hashes of some rows (code -1 takes the last entry)."""
        m = len(range(*rows.indices(n))) if isinstance(rows, slice) else rows.shape[0]
        out = np.empty((m, c), dtype=np.int64)
        for j in range(c):
            out[:, j] = text_hashes[j][cols[j][rows].astype(np.int64)]
        return out

    # a row's hash reads that row alone: made a block of rows at a time, 8 bytes a cell of a block only
    step = max(1, (1 << 20) // max(1, c))
    h = np.empty(n, dtype=np.int64)
    for a in range(0, n, step):
        h[a:a + step] = _row_hashes(bits_of(slice(a, a + step)), content_of(slice(a, a + step)))
    positions = np.int32 if n < 2**31 else np.int64  # 4 bytes a record below 2**31 records
    order = stable_order(h, positions)  # no 8-byte position per record
    # neighbours in that order under one hash, a block of the sorted hashes at a time (not a sorted copy of all)
    same: list[NDArray[np.integer]] = []
    for a in range(0, n - 1, SORTED_BLOCK):
        hs = h[order[a:a + SORTED_BLOCK + 1]]
        same.append((np.flatnonzero(hs[1:] == hs[:-1]) + a).astype(positions, copy=False))
    same_hash = np.concatenate(same) if same else np.zeros(0, dtype=positions)
    del same
    collision = False
    # identical records, or a collision: compare the rows of each pair, a block of pairs at a time (a pair's two
    # rows are 8 bytes a cell each), until a pair differs
    for start in range(0, same_hash.size, PAIR_BLOCK):
        at = same_hash[start:start + PAIR_BLOCK]
        a, b = order[at], order[at + 1]
        pairs = np.arange(a.shape[0], dtype=np.int64)
        collision = not _same_rows(bits_of(a), content_of(a), pairs, bits_of(b), content_of(b), pairs).all()
        del a, b, pairs
        if collision:
            break
    if collision:  # a collision (rare): order by the values themselves (canonical bits, text hashes)
        content = content_of(slice(None))
        keys = [content[:, j] for j in range(c - 1, -1, -1)]
        canon = bits_of(slice(None)).copy()
        nan = np.isnan(canon.view(np.float64))
        canon[canon == _NEG_ZERO] = 0
        canon[nan] = _NAN_BITS
        keys += [canon[:, j] for j in range(canon.shape[1] - 1, -1, -1)]
        order = np.lexsort(keys + [h]) if keys else order
    return order.astype(positions, copy=False)


# ---------------------------------------------------------------------------------------------------------------
# records equal on every column but one (the near-copy check)

_SALT = np.uint64(0x9E3779B97F4A7C15)


def cell_words(numbers: NDArray[np.float64], codes: NDArray[np.integer]) -> NDArray[np.uint64]:
    """One 64-bit word per cell, a bijection of the cell's value within its column (numbers by their canonical
    float64 bits: -0.0 as 0.0, one NaN; categories by their code).

    >>> w = cell_words(np.array([[0.0], [-0.0], [1.0]]), np.array([[3], [3], [4]]))
    >>> bool(w[0, 0] == w[1, 0]), bool(w[0, 1] == w[2, 1])
    (True, False)
    """
    num = np.array(numbers, dtype=np.float64, copy=True) + 0.0  # -0.0 -> 0.0
    bits = num.view(np.uint64)
    bits[np.isnan(num)] = np.uint64(0x7FF8000000000000)
    cols = [bits[:, j] for j in range(bits.shape[1])]
    cols += [np.asarray(codes[:, j], dtype=np.int64).view(np.uint64) for j in range(codes.shape[1])]
    out = np.empty((num.shape[0], len(cols)), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j, c in enumerate(cols):
            out[:, j] = mix64(c ^ (_SALT * np.uint64(j + 1)))
    return out


def first_equal(kq: NDArray[np.uint64], kr: NDArray[np.uint64], *, r_pos: NDArray[np.int64] | None = None,
                q_pos: NDArray[np.int64] | None = None) -> NDArray[np.int64]:
    """For each key of ``kq``, the lowest position of a reference with an equal key in ``kr`` (-1 where none).

    ``r_pos`` gives the references' positions (ascending; default 0, 1, ...). With ``q_pos`` (queries and
    references are one set) a query does not take itself: where the lowest position is the query's own, the
    next reference with its key is taken, if any. One sort of the references; the queries are looked up in key
    order, so that each binary search starts where the last one ended (a few times faster than in record order).

    >>> first_equal(np.array([5, 7, 9], dtype=np.uint64), np.array([7, 5, 7], dtype=np.uint64)).tolist()
    [1, 0, -1]
    >>> first_equal(np.array([7, 7], dtype=np.uint64), np.array([7, 5, 7], dtype=np.uint64),
    ...             q_pos=np.array([0, 2])).tolist()
    [2, 0]
    """
    pick = np.full(kq.size, -1, dtype=np.int64)
    if kr.size == 0 or kq.size == 0:
        return pick
    order = np.argsort(kr, kind="stable")
    ks = kr[order]
    pos = order.astype(np.int64) if r_pos is None else np.asarray(r_pos, dtype=np.int64)[order]
    by_key = np.argsort(kq)
    lo = np.empty(kq.size, dtype=np.intp)
    lo[by_key] = np.searchsorted(ks, kq[by_key], side="left")
    at = np.minimum(lo, ks.size - 1)
    hit = (lo < ks.size) & (ks[at] == kq)
    pick[hit] = pos[at[hit]]
    if q_pos is not None:  # not the record itself: the next one with the key where the first is itself
        nxt = np.minimum(lo + 1, ks.size - 1)
        own = hit & (pick == q_pos)
        ok_next = own & (lo + 1 < ks.size) & (ks[nxt] == kq)
        pick[own] = -1
        pick[ok_next] = pos[nxt[ok_next]]
    return pick


def equal_but(q: NDArray[np.uint64], qi: NDArray[np.int64], r: NDArray[np.uint64], ri: NDArray[np.int64], j: int, *,
              same: bool) -> NDArray[np.bool_]:
    """Whether rows ``q[qi]`` and ``r[ri]`` (cell words) are equal on every column but ``j``; with ``same``, also
    different in column ``j`` (an exact duplicate is an exact copy, not a one-column match). A column at a time:
    no copy of the rows (8 bytes a cell each).

    >>> w = np.array([[1, 2], [1, 3], [1, 2]], dtype=np.uint64)
    >>> equal_but(w, np.array([0, 0]), w, np.array([1, 2]), 1, same=True).tolist()
    [True, False]
    """
    ok = np.ones(qi.size, dtype=bool)
    for c in range(q.shape[1]):
        if c != j:
            ok &= q[qi, c] == r[ri, c]
    if same:
        ok &= q[qi, j] != r[ri, j]
    return ok


def row_totals(words: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """The sum of each row's cell words, modulo 2**64 (unsigned sums wrap silently)."""
    return words.sum(axis=1, dtype=np.uint64)


def keys_but(words: NDArray[np.uint64], totals: NDArray[np.uint64], j: int, rows: NDArray[np.int64] | None = None
             ) -> NDArray[np.uint64]:
    """The key of each row (of ``rows``) with column ``j`` left out: its total (:func:`row_totals`) less its word
    in column ``j``, modulo 2**64. Rows equal on every column but ``j`` have equal keys; a match of keys is then
    checked cell by cell (:func:`equal_but`)."""
    if rows is None:
        return totals - words[:, j]
    return totals[rows] - words[rows, j]


def one_column_matches(q: NDArray[np.uint64], r: NDArray[np.uint64], *, same: bool = False
                       ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """For each record of ``q`` (cell words, :func:`cell_words`): the first column j such that the record of ``r``
    with the lowest position among those whose key without j equals the record's (:func:`first_equal`) equals it
    on every column but j (-1 where none), and the position of that record in ``r``.

    With ``same`` (``q`` is ``r``) a record does not match itself, and a column is only reported when the
    matching record differs in it (exact duplicates are exact copies, found elsewhere). On a Dask cluster,
    :func:`synthpriv_report.cluster.joins.one_column_matches` gives the same arrays by a hash-partitioned join.

    >>> a = cell_words(np.array([[1.0, 2.0], [1.0, 5.0], [7.0, 8.0]]), np.zeros((3, 0), dtype=np.int64))
    >>> one_column_matches(a, a, same=True)[0].tolist()
    [1, 1, -1]
    """
    n_q, p = q.shape
    column = np.full(n_q, -1, dtype=np.int64)
    partner = np.full(n_q, -1, dtype=np.int64)
    if p < 2 or r.shape[0] == 0:
        return column, partner
    tq = row_totals(q)
    tr = tq if same else row_totals(r)
    for j in range(p):
        open_q = np.flatnonzero(column < 0)
        if not open_q.size:
            break
        pick = first_equal(keys_but(q, tq, j, open_q), keys_but(r, tr, j), q_pos=open_q if same else None)
        found = pick >= 0
        cand, pick = open_q[found], pick[found]
        ok = equal_but(q, cand, r, pick, j, same=same)
        column[cand[ok]] = j
        partner[cand[ok]] = pick[ok]
    return column, partner
