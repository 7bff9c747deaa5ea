"""Joins of records on a Dask cluster, hash-partitioned: no process holds a whole set's records.

The near-copy check (:func:`synthpriv_report.matching.identity.one_column_matches`) asks, for each query record and each
column j, for the reference record with the lowest position among those equal to it on every column but j. In one
process that is one sort of the references' keys per column. On a cluster the records are cut into blocks of cell
words (:func:`synthpriv_report.matching.identity.cell_words`, 8 bytes a cell), each made in the calling process from its
rows alone and sent to one worker, where it stays. Then, for a group of columns at a time (as many as keep one
pass within :data:`GROUP_KEYS` keys: all of Adult's 14 columns in one pass at a million records a set):

1. *map*: each block computes its rows' keys with column j left out, for each j of the group (only the query
   records not matched yet), and splits them by key into partitions (the key modulo the number of partitions);
2. *reduce*: each partition gathers its keys from every block and finds, column by column, each query's
   lowest-position partner (:func:`synthpriv_report.matching.identity.first_equal`): equal keys always meet in one
   partition;
3. *fetch*: each reference block sends the rows of the partners asked of it to the queries' blocks (a row asked
   for on several columns travels once);
4. *check*: each query block compares its rows with their partners' cell by cell
   (:func:`synthpriv_report.matching.identity.equal_but`), so a match is exact, and records the first column of the
   group
   whose partner passes, and that partner.

The blocks keep their state (column and partner of each record) on the workers; the calling process gathers only
the number of records still open after each group (to stop early) and, at the end, the two per-record arrays (16
bytes a query record). The result is that of one process, array for array: for each column, each open query's
candidate is the same record (the lowest position with its key), the check is the same comparison of cell words,
and a query takes the first column whose candidate passes, which is what the one-process loop over the columns
finds (a query it closes at column j is not looked at again; here it may be, and column j still wins).
"""

from __future__ import annotations

import operator
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..data.containers import position_dtype
from ..matching.identity import equal_but, first_equal, keys_but, row_totals

__all__ = ["JOIN_PREFIX", "BLOCK_ROWS", "PARTITION_KEYS", "GROUP_KEYS", "WHOLE", "one_column_matches", "record_ids"]

#: Key prefix of the join's tasks on the cluster.
JOIN_PREFIX = "synthpriv-join"
#: Most records in one block of cell words (8 bytes a cell: 30 MB for 15 columns), whatever the size of the sets.
BLOCK_ROWS = 250_000
#: Keys (query and reference) per partition of the join, at most, on average.
PARTITION_KEYS = 2_000_000
#: Keys in one pass of the join over the cluster, at most (columns are joined in groups that fit; 18 bytes a key).
GROUP_KEYS = 40_000_000

Pairs = tuple[NDArray[np.int64], NDArray[np.int64]]
#: The "column" of a whole-record key (identical records), where a column j stands for "every column but j".
WHOLE = -1


def _edges(n: int, blocks: int) -> NDArray[np.int64]:
    return np.linspace(0, n, blocks + 1).astype(np.int64)


def _split_by(dest: NDArray[np.integer], count: int, *arrays: NDArray[Any]) -> list[tuple[NDArray[Any], ...]]:
    """``arrays`` cut by destination ``dest`` (0 .. count-1), each destination's entries in their given order."""
    small = dest.astype(np.uint16 if count <= 1 << 16 else np.int64)  # 16 bits: numpy's stable sort is a radix sort
    order = np.argsort(small, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(small, minlength=count))])
    moved = [a[order] for a in arrays]
    return [tuple(a[bounds[i]:bounds[i + 1]] for a in moved) for i in range(count)]


# ---------------------------------------------------------------------------------------------------------------
# tasks on the workers


def _column_dtype(p: int) -> np.dtype:
    """The narrowest signed type of a column position among ``p`` columns (and -1, -2)."""
    return np.dtype(np.int16 if p < 2**15 else np.int32 if p < 2**31 else np.int64)


def _fresh_state(n: int) -> Pairs:
    return np.full(n, -1, dtype=np.int64), np.full(n, -1, dtype=np.int64)


def _open_count(state: Pairs) -> int:
    return int((state[0] < 0).sum())


def _block(words: NDArray[np.uint64]) -> tuple[NDArray[np.uint64], NDArray[np.uint64]]:
    """A block as the workers keep it: its cell words and each row's total (:func:`~synthpriv_report.matching.identity.
    row_totals`, found once for every column)."""
    return words, row_totals(words)


def _map_keys(block: tuple[NDArray[np.uint64], NDArray[np.uint64]], start: int, state: Pairs | None,
              columns: Sequence[int], parts: int, with_open: bool) -> list[tuple[NDArray[Any], ...]]:
    """Keys without column j, for each j of ``columns``, of a block's rows, with their positions in the whole set
    and j, split into ``parts`` partitions by key: every row, with a flag for the query rows still open where
    ``with_open`` (queries and references one set), else the open query rows where ``state`` is given, else every
    row."""
    words, totals = block
    if state is None or with_open:
        rows = np.arange(words.shape[0], dtype=np.int64)
    else:
        rows = np.flatnonzero(state[0] < 0)
    every = rows.size == words.shape[0]
    keys = np.concatenate([(totals if every else totals[rows]) if j == WHOLE
                           else keys_but(words, totals, j, None if every else rows) for j in columns])
    pos = np.tile(rows + start, len(columns))
    col = np.repeat(np.asarray(columns, dtype=np.int16), rows.size)
    dest = keys % np.uint64(parts)
    if with_open:
        return _split_by(dest, parts, keys, pos, col, np.tile(state[0] < 0, len(columns)))  # type: ignore[index]
    return _split_by(dest, parts, keys, pos, col)


def _reduce(queries: Sequence[tuple[NDArray[Any], ...]], refs: Sequence[tuple[NDArray[Any], ...]], one_set: bool,
            exclude_self: bool, columns: Sequence[int], r_edges: NDArray[np.int64]) -> list[tuple[NDArray[Any], ...]]:
    """One partition: for each column j of ``columns``, each query's lowest-position partner among the references
    with its key without j, as (query position, j, partner position) split by the partner's block. The references
    come block after block, so their positions are ascending, as :func:`~synthpriv_report.matching.identity.first_equal`
    takes them; with ``one_set`` the queries are the flagged references."""
    kr = np.concatenate([r[0] for r in refs])
    rpos = np.concatenate([r[1] for r in refs])
    rcol = np.concatenate([r[2] for r in refs])
    c0, width = int(columns[0]), len(columns)  # a group is a run of columns
    if one_set:  # one map per block: every row is a reference, the flagged ones are the open queries
        is_open = np.concatenate([r[3] for r in refs])
        kq, qpos, qcol = kr[is_open], rpos[is_open], rcol[is_open]
    else:
        kq = np.concatenate([q[0] for q in queries])
        qpos = np.concatenate([q[1] for q in queries])
        qcol = np.concatenate([q[2] for q in queries])
    # column by column (a stable split: each column's references keep their ascending positions)
    by_col_r = _split_by(rcol - np.int16(c0), width, kr, rpos)
    by_col_q = _split_by(qcol - np.int16(c0), width, kq, qpos)
    out_q, out_j, out_r = [], [], []
    for j, (kr_j, rpos_j), (kq_j, qpos_j) in zip(columns, by_col_r, by_col_q):
        pick = first_equal(kq_j, kr_j, r_pos=rpos_j, q_pos=qpos_j if exclude_self else None)
        found = pick >= 0
        if one_set and not exclude_self:
            found &= pick != qpos_j  # a record that is its own first key-mate: nothing to check
        out_q.append(qpos_j[found])
        out_r.append(pick[found])
        out_j.append(np.full(int(found.sum()), j, dtype=np.int16))
    qpos, col, pick = np.concatenate(out_q), np.concatenate(out_j), np.concatenate(out_r)
    blocks = r_edges.size - 1
    return _split_by(np.searchsorted(r_edges, pick, side="right") - 1, blocks, qpos, col, pick)


def _fetch(block: tuple[NDArray[np.uint64], NDArray[np.uint64]], start: int, asked: Sequence[tuple[NDArray[Any], ...]],
           q_edges: NDArray[np.int64]) -> list[tuple[NDArray[Any], ...]]:
    """A reference block's rows asked for as partners, split by the block of the query that asked: per query
    block, (query position, j, partner position, index of the partner's row, the distinct rows asked for): a row
    asked for by one query block on several columns travels once."""
    qpos = np.concatenate([a[0] for a in asked])
    col = np.concatenate([a[1] for a in asked])
    rpos = np.concatenate([a[2] for a in asked])
    out = []
    for q, c, r in _split_by(np.searchsorted(q_edges, qpos, side="right") - 1, q_edges.size - 1, qpos, col, rpos):
        distinct, which = np.unique(r, return_inverse=True)
        out.append((q, c, r, which.astype(np.int64), block[0][distinct - start]))
    return out


def _check(block: tuple[NDArray[np.uint64], NDArray[np.uint64]], start: int, state: Pairs,
           columns: Sequence[int], fetched: Sequence[tuple[NDArray[Any], ...]], exclude_self: bool) -> Pairs:
    """A query block's candidates checked cell by cell; the block's new state: each query takes the first
    column of ``columns`` whose candidate passes the check, as the one-process loop over columns does. For the
    whole-record key (:data:`WHOLE`) every column is compared, the column stays -1, and a record that differs
    from its candidate (a collision of keys) gets partner -2."""
    words = block[0]
    column, partner = state[0].copy(), state[1].copy()
    for j in sorted(columns, reverse=True):  # the first column's match is written last
        qi_parts, r_parts = [], []
        for q, c, r, which, rows in fetched:
            sel = c == j
            qi = q[sel] - start
            ok = equal_but(words, qi, rows, which[sel], j, same=exclude_self)
            qi_parts.append(qi[ok])
            r_parts.append(r[sel][ok])
            if j == WHOLE:  # a record that differs from its first key-mate: a collision of keys, marked -2
                qi_parts.append(qi[~ok])
                r_parts.append(np.full(int((~ok).sum()), -2, dtype=np.int64))
        qi = np.concatenate(qi_parts)
        column[qi] = j
        partner[qi] = np.concatenate(r_parts)
    return column, partner


# ---------------------------------------------------------------------------------------------------------------
# in the calling process


def _block_edges(sizes: Sequence[int], block_rows: int, least: int) -> NDArray[np.int64]:
    """Block edges over sets laid end to end (positions 0 .. sum(sizes)): every set cut into blocks of at most
    ``block_rows`` records, at least ``least`` blocks in all; no block spans two sets."""
    total = max(1, sum(sizes))
    edges, start = [0], 0
    for n in sizes:
        count = max(-(-n // block_rows), -(-least * n // total), 1)
        edges.extend((start + _edges(n, count)[1:]).tolist())
        start += n
    return np.unique(np.asarray(edges, dtype=np.int64))


def one_column_matches(client: Any, q_words: Callable[[int, int], NDArray[np.uint64]], n_q: int,
                       r_words: Callable[[int, int], NDArray[np.uint64]] | None, n_r: int, p: int, *,
                       block_rows: int | None = None, partition_keys: int | None = None,
                       group_keys: int | None = None, retries: int = 2
                       ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """:func:`synthpriv_report.matching.identity.one_column_matches` as a hash-partitioned join on the workers of
    ``client``.

    Parameters
    ----------
    client : distributed.Client
    q_words, r_words : callable
        ``q_words(a, b)``: the cell words of the query records at positions ``a`` to ``b`` (an array (b - a, p),
        uint64), made in the calling process block by block; ``r_words`` likewise for the references, or None
        when queries and references are one set (``same``: a record does not match itself).
    n_q, n_r : int
        Records of each set.
    p : int
        Columns.
    block_rows, partition_keys, group_keys : int, optional
        Most records in a block (default :data:`BLOCK_ROWS`); keys per partition, on average (default
        :data:`PARTITION_KEYS`); keys in one pass of the join, at most (default :data:`GROUP_KEYS`).
    retries : int
        Retries of a task that raised.

    Returns
    -------
    column, partner : int arrays (n_q,)
        As :func:`synthpriv_report.matching.identity.one_column_matches`, in the narrowest types that hold them (int16
        columns, int32 positions below 2**31 records).
    """
    same = r_words is None
    if p < 2 or n_r == 0 or n_q == 0:
        return np.full(n_q, -1, dtype=_column_dtype(p)), np.full(n_q, -1, dtype=position_dtype(n_r))
    group_keys = GROUP_KEYS if group_keys is None else int(group_keys)
    # columns in groups, each group one pass of the join whose keys (18 bytes each, every column of the group for
    # every record) stay within GROUP_KEYS over the cluster; the first column alone: a verbatim copy matches there
    # and is not looked at again
    width = max(1, min(p - 1, group_keys // max(1, n_q + n_r)))
    groups = [[0]] + [list(range(a, min(p, a + width))) for a in range(1, p, width)]
    # in the narrowest types that hold them: the calling process holds these two arrays, a record each
    column = np.full(n_q, -1, dtype=_column_dtype(p))
    partner = np.full(n_q, -1, dtype=position_dtype(n_q if same else n_r))

    def fill(a: int, b: int, col: NDArray[np.int64], ptn: NDArray[np.int64]) -> bool:
        column[a:b] = col
        partner[a:b] = ptn
        return True

    _join(client, q_words, [n_q], r_words, [n_r], p, groups, exclude_self=same, block_rows=block_rows,
          partition_keys=partition_keys, retries=retries, into=fill)
    return column, partner


def record_ids(client: Any, words: Callable[[int, int], NDArray[np.uint64]], sizes: Sequence[int], p: int, *,
               block_rows: int | None = None, partition_keys: int | None = None, retries: int = 2
               ) -> NDArray[np.int64] | None:
    """:func:`synthpriv_report.matching.identity.record_ids` as a hash-partitioned join on the workers of ``client``.

    Each record's key is the sum of its cell words; the join finds, for each record, the first record (in the
    sets laid end to end) with its key, and checks cell by cell that the two are identical. The ids number those
    first records in order, which is the numbering of :func:`~synthpriv_report.matching.identity.record_ids` (dense ids
    in
    order of first appearance).

    Parameters
    ----------
    words : callable
        ``words(a, b)``: the cell words of the records at positions ``a`` to ``b`` of the sets laid end to end
        (never asked across two sets).
    sizes : sequence of int
        Records of each set, in order.

    Returns
    -------
    int array (sum(sizes),) or None
        The ids (int32 below 2**31 records); None where two different records share a key (about one chance in
        10^7 for three million records): the caller then numbers them exactly in one process.
    """
    n = int(sum(sizes))
    ids = np.empty(n, dtype=position_dtype(n))
    count = 0  # first appearances numbered so far

    def number(a: int, b: int, _: NDArray[np.int64], first: NDArray[np.int64]) -> bool:
        # blocks arrive in order of position, and a record's first key-mate comes before it (its own first has
        # partner -1): a first appearance takes the next id, every other record the id of its first key-mate,
        # already numbered (in an earlier block, or above in this one, set first)
        nonlocal count
        if (first == -2).any():
            return False  # a record whose first key-mate differs from it: a collision of keys
        own = first < 0
        new = int(own.sum())
        block = ids[a:b]
        block[own] = np.arange(count, count + new, dtype=ids.dtype)
        count += new
        mates = ~own
        block[mates] = ids[first[mates]]
        return True

    done = _join(client, words, list(sizes), None, list(sizes), p, [[WHOLE]], exclude_self=False,
                 block_rows=block_rows, partition_keys=partition_keys, retries=retries, into=number)
    return ids if done else None


def _join(client: Any, q_words: Callable[[int, int], NDArray[np.uint64]], q_sizes: list[int],
          r_words: Callable[[int, int], NDArray[np.uint64]] | None, r_sizes: list[int], p: int,
          groups: list[list[int]], *, exclude_self: bool, block_rows: int | None, partition_keys: int | None,
          retries: int, into: Callable[[int, int, NDArray[np.int64], NDArray[np.int64]], bool]) -> bool:
    """The join of the module's docstring: per query record, the column (the first of the groups' columns whose
    candidate passes the check; -1 for none, and for a whole-record key, :data:`WHOLE`) and the partner's
    position. ``r_words`` None: the references are the queries (one map per block); ``exclude_self``: a record is
    not its own partner and must differ from it in the column.

    The answer is handed over a query block at a time, in order of position: ``into(a, b, column, partner)`` for
    the records at positions ``a`` to ``b``; it returns False to stop there (and then so does ``_join``)."""
    one_set = r_words is None
    block_rows = BLOCK_ROWS if block_rows is None else int(block_rows)
    partition_keys = PARTITION_KEYS if partition_keys is None else int(partition_keys)
    n_q, n_r = sum(q_sizes), sum(r_sizes)
    workers = sorted(client.nthreads())  # asked of the scheduler (scheduler_info() may be a cached copy)
    if not workers:
        raise RuntimeError("the Dask cluster has no workers: start workers, or run without client=")
    run = uuid.uuid4().hex[:12]

    def submit(fn: Callable[..., Any], *args: Any, name: str, **kw: Any) -> Any:
        # no future is kept beyond the pass that needs it: the workers drop each pass's keys and rows as soon
        # as the next step's tasks have read them
        return client.submit(fn, *args, key=f"{JOIN_PREFIX}-{run}-{name}", retries=retries, pure=False, **kw)

    def part(fut: Any, i: int) -> Any:
        return client.submit(operator.getitem, fut, i, retries=retries)

    def scattered(make: Callable[[int, int], NDArray[np.uint64]], edges: NDArray[np.int64], tag: str) -> list[Any]:
        out = []
        for b in range(edges.size - 1):  # one block at a time: the calling process never holds a whole set's words
            block = np.ascontiguousarray(make(int(edges[b]), int(edges[b + 1])), dtype=np.uint64)
            w = workers[b % len(workers)]
            raw = client.scatter([block], workers=[w], hash=False)[0]
            out.append(client.submit(_block, raw, key=f"{JOIN_PREFIX}-{run}-{tag}{b}", workers=[w], pure=False))
            del block, raw
        return out

    q_edges = _block_edges(q_sizes, block_rows, 2 * len(workers))
    q_blocks = scattered(q_words, q_edges, "q")
    if one_set:
        r_edges, r_blocks = q_edges, q_blocks
    else:
        r_edges = _block_edges(r_sizes, block_rows, 2 * len(workers))
        r_blocks = scattered(r_words, r_edges, "r")  # type: ignore[arg-type]
    width = max(len(g) for g in groups)
    parts = max(2 * len(workers), -(-(n_q + (0 if one_set else n_r)) * width // partition_keys))
    nq_b, nr_b = q_edges.size - 1, r_edges.size - 1
    state: list[Any] = []
    try:
        state = [submit(_fresh_state, int(q_edges[b + 1] - q_edges[b]), name=f"state-{b}",
                        workers=[workers[b % len(workers)]]) for b in range(nq_b)]
        for g, columns in enumerate(groups):
            if one_set:  # one map per block, its open rows flagged
                mq = []
                mr = [submit(_map_keys, q_blocks[b], int(q_edges[b]), state[b], columns, parts, True,
                             name=f"{g}-m{b}") for b in range(nq_b)]
            else:
                mq = [submit(_map_keys, q_blocks[b], int(q_edges[b]), state[b], columns, parts, False,
                             name=f"{g}-mq{b}") for b in range(nq_b)]
                mr = [submit(_map_keys, r_blocks[b], int(r_edges[b]), None, columns, parts, False,
                             name=f"{g}-mr{b}") for b in range(nr_b)]
            red = [submit(_reduce, [part(m, i) for m in mq], [part(m, i) for m in mr], one_set, exclude_self,
                          columns, r_edges, name=f"{g}-reduce{i}") for i in range(parts)]
            fetched = [submit(_fetch, r_blocks[b], int(r_edges[b]), [part(x, b) for x in red], q_edges,
                              name=f"{g}-fetch{b}") for b in range(nr_b)]
            state = [submit(_check, q_blocks[b], int(q_edges[b]), state[b], columns, [part(f, b) for f in fetched],
                            exclude_self, name=f"{g}-check{b}") for b in range(nq_b)]
            del mq, mr, red, fetched
            if g < len(groups) - 1 and sum(client.gather([client.submit(_open_count, s) for s in state])) == 0:
                break  # every query record has its column
        for b in range(nq_b):  # a block at a time: no second copy of the whole arrays is ever gathered
            col, ptn = client.gather(state[b])
            if not into(int(q_edges[b]), int(q_edges[b + 1]), col, ptn):
                return False
            del col, ptn
    finally:
        for fut in state + q_blocks + ([] if one_set else r_blocks):
            fut.release()
    return True
