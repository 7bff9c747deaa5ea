"""The caches shared by every context of one evaluation: encodings, trees, neighbour tables and memoised steps.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Iterable
from typing import TYPE_CHECKING, Any, overload

import numpy as np
from numpy.typing import NDArray

from .. import neighbors as nb
from ..core import progress as pg
from ..data.containers import PreparedData
from ..matching.identity import cell_words, record_ids
from ..matching.joins import group_ids
from ..neighbors.search import Device, Engine
from ..neighbors.shards import ShardParams
from ..spaces import (
    EncodedRows,
    Encoding,
    Fitted,
    Projection,
    SpaceSpec,
    encode,
    encoded_codes,
    encoded_numbers,
    encoding_header,
    fit,
    project,
)
from ..stats.bootstrap import ResamplePlans
from .backend import LocalBackend
from .requests import SearchRecord, SearchRequest, SetRef, TreeRequest

if TYPE_CHECKING:
    from .backend import Backend


# ---------------------------------------------------------------------------------------------------------------
# engine: caches shared by every context of one evaluation


class _Engine:
    """The caches one evaluation shares between its contexts: fitted encoders, encodings, search trees, neighbour
    tables (keyed by space, query key and reference key), the planned ``k`` per search, memoised steps and the log
    of the searches run. Metrics reach it only through a :class:`Context`."""

    def __init__(self, data: PreparedData, *, progress: bool, search_engine: Engine = "auto", device: Device = "cpu",
                 backend: Backend | None = None):
        self.data = data
        #: Where the searches, joins and kept results run (:mod:`synthpriv_report.engine.backend`).
        self.backend: Backend = LocalBackend() if backend is None else backend
        self.progress = progress
        self.stage_seconds: dict[str, float] = {}
        each_set, numbers_read = self.backend.fit_hooks(data)
        with self.stage("fitting the encoders"):
            self.fitted: Fitted = fit(data, each_set=each_set, numbers_read=numbers_read)
        self.search_engine = search_engine
        self.device = device
        self.encodings: dict[SpaceSpec, Encoding] = {}
        self.projections: dict[SpaceSpec, Projection] = {}
        self.trees: dict[tuple[Any, ...], nb.RefTree] = {}
        #: Where a search tree, or a projected space's fit, may be taken instead of made (set by a comparison of
        #: several releases of the same real data): an object with ``lend(spec, ref, enc) -> RefTree | None`` and
        #: ``projection(spec, base_enc) -> Projection | None``, which give one only where it was made from the
        #: same arrays, and ``keep(spec, ref, enc, tree)``, ``keep_projection(spec, base_enc, projection)``;
        #: None: everything is made here.
        self.lender: Any = None
        #: The bootstraps' random draws kept for reuse (they depend on the number of values and the seed only); a
        #: comparison gives every release the first release's.
        self.resample_plans = ResamplePlans()
        self.orders: dict[tuple[Any, ...], NDArray[np.int64]] = {}
        self.tables: dict[tuple[Any, ...], nb.NeighborTable] = {}
        #: Tables whose lists stay on the workers (sharded searches): key -> (table, space, query, reference).
        self.remote: dict[tuple[Any, ...], tuple[Any, SpaceSpec, SetRef, SetRef]] = {}
        self.planned_k: dict[tuple[Any, ...], int] = {}
        self.planned_reads: dict[tuple[Any, ...], set[str]] = {}
        self.searches: list[SearchRecord] = []
        self.memo: dict[Any, Any] = {}

    # stages -------------------------------------------------------------------------------------------------
    def stage(self, name: str) -> _TimedStage:
        """A timed stage: its seconds are added to :attr:`stage_seconds` and a progress bar names it when it runs
        longer than :data:`synthpriv_report.core.progress.DELAY`."""
        return _TimedStage(self, name)

    # encodings ----------------------------------------------------------------------------------------------
    def encoding(self, spec: SpaceSpec) -> Encoding:
        if spec not in self.encodings:
            if spec.kind == "projected":
                base_enc = self.encoding(_projection_base(spec))
                fitted = None if self.lender is None else self.lender.projection(spec, base_enc)
                with self.stage(f"encoding: {spec.label}"):
                    enc, proj = project(self.data, base_enc, spec, fitted=fitted)
                self.projections[spec] = proj
                if self.lender is not None and fitted is None:
                    self.lender.keep_projection(spec, base_enc, proj)
            else:
                with self.stage(f"encoding: {spec.label}"):
                    enc = encode(self.data, self.fitted, spec)
            self.encodings[spec] = self._shared(enc)
        return self.encodings[spec]

    def _shared(self, enc: Encoding) -> Encoding:
        """``enc`` with each coordinate array that is bit for bit equal to one of an encoding already cached
        replaced by that one (gower and euclidean coordinates coincide when no numeric value is missing, a
        weighted euclidean space shares the euclidean one's): one copy in memory instead of two or three."""
        for s, arr in enc.num.items():
            for other in self.encodings.values():
                cand = other.num.get(s)
                if (cand is not None and cand is not arr and cand.shape == arr.shape and cand.dtype == arr.dtype
                        and cand.flags.c_contiguous and arr.flags.c_contiguous
                        and np.array_equal(cand.view(np.uint8), arr.view(np.uint8))):
                    enc.num[s] = cand
                    break
        return enc

    def tree(self, spec: SpaceSpec, ref: SetRef) -> nb.RefTree:
        key = (spec, ref.key)
        if key not in self.trees:
            enc = self.encoding(spec)
            lent = None if self.lender is None else self.lender.lend(spec, ref, enc)
            if lent is not None:
                self.trees[key] = lent
            else:
                with self.stage(f"search tree: {spec.label} {ref.label}"):
                    self.trees[key] = nb.build_tree(enc, ref.base, ref.rows)
                if self.lender is not None:
                    self.lender.keep(spec, ref, enc, self.trees[key])
        return self.trees[key]

    # searches -----------------------------------------------------------------------------------------------
    def plan(self, requests: Iterable[SearchRequest | TreeRequest], owner: str = "") -> None:
        """Record the searches (the largest ``k`` per search) and the tree reads ``owner`` (a metric) will ask for."""
        for r in requests:
            if isinstance(r, TreeRequest):
                self.planned_reads.setdefault((r.space, r.ref.key), set()).add(owner)
                continue
            key = (r.space, r.query.key, r.ref.key)
            self.planned_k[key] = max(self.planned_k.get(key, 0), r.k)

    def done(self, owner: str) -> None:
        """``owner`` (a metric) has been computed: its planned tree reads are over, and each tree nothing planned
        needs any more leaves the cache."""
        for (spec, ref_key), owners in list(self.planned_reads.items()):
            if owner in owners:
                owners.discard(owner)
                if not owners:
                    del self.planned_reads[(spec, ref_key)]
                    self._release_tree_key(spec, ref_key)
        for spec in list(self.encodings):
            self._release_encoding(spec)
        self.settle()

    def settle(self) -> None:
        """Between steps, the backend gives back what the calling process no longer holds
        (:meth:`synthpriv_report.engine.backend.Backend.settle`)."""
        self.backend.settle()

    def knn(self, spec: SpaceSpec, query: SetRef, ref: SetRef, k: int) -> nb.NeighborTable:
        key = (spec, query.key, ref.key)
        table = self.tables.get(key)
        if table is not None and table.k >= k:
            return table.head(k)
        k_search = max(k, self.planned_k.get(key, 0))
        n_ref = self.data.sizes[ref.base] if ref.rows is None else int(ref.rows.shape[0])
        t0 = time.perf_counter()
        desc = f"{spec.label}: {query.label} -> {ref.label}"
        where: dict[str, Any] = {}
        choice: nb.SearchChoice | None
        sharded = None if (spec, ref.key) in self.trees else self.backend.shards(
            n_ref, tree_read_here=(spec, ref.key) in self.planned_reads)
        if sharded is not None:
            # a reference set cut into shards, each with its own tree on one worker, or one shard where the set is
            # no larger than a shard and no metric reads its tree here: no tree of it in the calling process, and
            # (gower and euclidean-type spaces) no whole set's coordinates either: each block is made as sent
            header = self._header(spec)
            (qn, qc), (rn, rc) = self._rows(spec, query, header), self._rows(spec, ref, header)
            remote, choice, where = sharded(
                (spec, ref.key), ShardParams.from_encoding(header), rn, rc, qn, qc, k=k_search,
                exclude_self=(query.key == ref.key), engine=self.search_engine, desc=desc)
            self.searches.append(SearchRecord(spec.label, query.label, ref.label, k_search, qn.shape[0], n_ref,
                                              time.perf_counter() - t0, engine=choice.engine, reason=choice.reason,
                                              **where))
            # the lists stay on the workers: this process keeps a handle, and the tables handed to a metric read
            # the columns it asks for when it first uses them (and hold them only as long as it does)
            old = self.remote.pop(key, None)
            if old is not None:
                old[0].release()
            self.remote[key] = (remote, spec, query, ref)
            table = nb.NeighborTable.deferred(k_search, lambda which, kk: self._read_remote(key, which, kk),
                                              spec.label, query.label, ref.label, choice=choice, keep=False)
            self.tables[key] = table
            self._release_tree(spec, ref)
            self._release_encoding(spec)
            return table.head(k)
        tree = self.tree(spec, ref)
        enc = self.encoding(spec)
        qn = enc.num[query.base] if query.rows is None else enc.num[query.base][query.rows]
        qc = enc.cat[query.base] if query.rows is None else enc.cat[query.base][query.rows]
        qn, qc = np.ascontiguousarray(qn), np.ascontiguousarray(qc)
        dist, idx, choice, where = self.backend.search(
            (spec, ref.key), tree, qn, qc, k=k_search, exclude_self=(query.key == ref.key),
            engine=self.search_engine, device=self.device, progress=self.progress, desc=desc,
            order=lambda: self.query_order(spec, query, tree, qn, qc))
        self.searches.append(SearchRecord(spec.label, query.label, ref.label, k_search, len(qn), tree.size,
                                          time.perf_counter() - t0, engine=getattr(choice, "engine", ""),
                                          reason=getattr(choice, "reason", ""), **where))
        table = nb.NeighborTable(dist, idx, spec.label, query.label, ref.label, choice=choice)
        self.tables[key] = table
        self._release_tree(spec, ref)
        if not any(p[0] == spec and p[1] == query.key and p not in self.tables for p in self.planned_k):
            self.orders.pop((spec, query.key), None)  # no planned search from these records is left
        self._release_encoding(spec)
        return table.head(k)

    def _read_remote(self, key: tuple[Any, ...], which: str, k: int) -> NDArray[Any]:
        """``k`` columns of a table kept where it was searched (:meth:`knn`'s sharded searches,
        :class:`~synthpriv_report.cluster.distributed.RemoteTable`). A table the backend lost (a worker died with
        blocks of it) is searched again, the same lists, and read from the new search; up to the backend's
        retries."""
        last: Exception | None = None
        for _attempt in range(self.backend.retries + 1):
            held = self.remote.get(key)
            if held is None:  # searched again where the lists come here (a tree of the reference is cached now)
                table = self.tables[key]
                if which == "mean":
                    return table.head(k).row_means()
                return np.ascontiguousarray((table.dist if which == "dist" else table.idx)[:, :k])
            remote, spec, query, ref = held
            try:
                columns: NDArray[Any] = remote.columns(which, k)
                return columns
            except self.backend.lost as exc:
                last = exc
                remote.release()
                del self.remote[key]
                k_search = self.tables.pop(key).k
                self.knn(spec, query, ref, k_search)  # the same search again: its lists replace the lost ones
        raise self.backend.lost(f"{last} (searched again {self.backend.retries} times)") from last

    def _blockwise(self, spec: SpaceSpec) -> bool:
        """Whether a search on the workers reads ``spec``'s records a block at a time (a gower or euclidean-type
        space not cached here) rather than slicing its whole encoding."""
        return spec not in self.encodings and spec.kind in ("gower", "euclidean")

    def _header(self, spec: SpaceSpec) -> Encoding:
        """``spec``'s encoding where a search slices it (:meth:`_blockwise`), else its header
        (:func:`~synthpriv_report.spaces.encoding_header`): what a sharded search needs besides the records."""
        return encoding_header(self.data, self.fitted, spec) if self._blockwise(spec) else self.encoding(spec)

    def _rows(self, spec: SpaceSpec, s: SetRef, header: Encoding) -> tuple[Any, Any]:
        """The numeric coordinates and codes of ``s`` in ``spec`` for a search on the workers: slices of the
        encoding ``header`` (:meth:`_header`), or rows made a block at a time when the search reads them
        (:class:`~synthpriv_report.spaces.EncodedRows`, :meth:`_blockwise`), bit for bit the same numbers."""
        if not self._blockwise(spec):
            if s.rows is None:
                return header.num[s.base], header.cat[s.base]
            return header.num[s.base][s.rows], header.cat[s.base][s.rows]
        data, fitted, n = self.data, self.fitted, self.data.sizes[s.base]
        return (EncodedRows(lambda at: encoded_numbers(data, fitted, header, s.base, at), n, s.rows),
                EncodedRows(lambda at: encoded_codes(data, fitted, header, s.base, at), n, s.rows))

    def query_order(self, spec: SpaceSpec, query: SetRef, tree: nb.RefTree, qn: NDArray[np.float64],
                    qc: NDArray[np.int64]) -> NDArray[np.int64]:
        """The order in which the tree walk visits ``query``'s records in ``spec``, found once per query set and
        shared by its searches: the leaf order of the query set's own tree where one is cached (a within-set
        search), else :func:`synthpriv_report.neighbors.query_order` (a tree built on the queries, about as long
        as the search itself at a million records)."""
        key = (spec, query.key)
        order = self.orders.get(key)
        if order is None:
            own = self.trees.get(key)
            order = own.perm if own is not None else nb.query_order(tree, qn, qc)
            self.orders[key] = order
        return order

    def _release_tree(self, spec: SpaceSpec, ref: SetRef) -> None:
        self._release_tree_key(spec, ref.key)

    def _release_tree_key(self, spec: SpaceSpec, ref_key: tuple[Any, ...]) -> None:
        """Drop a tree once every planned search against it has run and every metric that planned to read it
        (:class:`TreeRequest`) has been computed: at a million records a tree holds a few hundred megabytes, and
        the searches of one space end before those of the next begin. A tree asked for again (a per-record view,
        a search no metric planned) is simply rebuilt: the same tree, since it depends only on the data. On a Dask
        cluster the copy scattered to the workers is released with it."""
        if (spec, ref_key) in self.planned_reads:
            return
        pending = any(k[0] == spec and k[2] == ref_key and k not in self.tables for k in self.planned_k)
        if not pending:
            self.trees.pop((spec, ref_key), None)
            self.backend.release((spec, ref_key))  # copies kept elsewhere go too

    def _release_encoding(self, spec: SpaceSpec) -> None:
        """With a Dask client, drop an encoding once every search planned in its space has run and no tree of it
        is cached or planned to be read: the calling process then holds no coordinates of that space (8 bytes a
        numeric cell) while the next space's searches run. Asked for again (a per-record view, a search no metric
        planned), it is rebuilt: the same arrays, since an encoding depends only on the data and the fitted
        encoders. Without a client encodings stay, so that a slider never waits for one. (A sharded search in a
        gower or euclidean-type space makes no whole encoding at all: see :meth:`_rows`.)"""
        if self.backend.keeps_encodings or spec not in self.encodings:
            return
        planned = [key for key in self.planned_k if key[0] == spec]
        if not planned or any(key not in self.tables for key in planned):
            return
        if any(key[0] == spec for key in self.trees) or any(key[0] == spec for key in self.planned_reads):
            return
        if any(other.kind == "projected" and other not in self.encodings
               and _projection_base(other) == spec for other, _, _ in self.planned_k):
            return  # the base of a projected space not yet made
        del self.encodings[spec]

    # identity of records --------------------------------------------------------------------------------------
    def record_ids(self, set_name: str) -> NDArray[np.integer]:
        """An id per record of set ``set_name``; equal ids exactly when the records are identical, across all sets
        (``docs/metrics.md``, section "Shared machinery").

        Found once for every set and cached per set (:meth:`keep`): with a Dask client a set's ids are kept on a
        worker and read from there on each use, so that the calling process holds them only while a step reads
        them (4 bytes a record of each set otherwise, for the rest of the evaluation). Ids kept on a worker that
        has gone are found again: the same ids, since they depend only on the data."""
        key = ("identical records", set_name)
        if key in self.memo:
            try:
                return self.recall(key)  # type: ignore[no-any-return]
            except LookupError:  # kept on a worker that is gone: every set's ids are found again
                pass
        with self.stage("identical records"):
            ids = self._compute_record_ids()
        for s, set_ids in ids.items():
            self.keep(("identical records", s), set_ids)
        return ids[set_name]

    def one_column_matches(self, query: str, ref: str) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """For each record of set ``query``, the first column on which alone a record of set ``ref`` differs from
        it, and that record's position (:func:`synthpriv_report.matching.identity.one_column_matches`; -1 where none).
        Numbers are compared at the synthetic columns' precision (:func:`compared_numbers`). With a Dask client
        the join runs on the workers, hash-partitioned, and the calling process makes each block's cell words
        from its rows alone; the arrays are the same."""
        d, codes = self.data, self.fitted.codes

        def words(s: str) -> Callable[[int, int], NDArray[np.uint64]]:
            return lambda a, b: cell_words(compared_numbers(d, s, rows=slice(a, b)), codes[s][a:b])

        same = query == ref
        p = len(d.columns)
        with self.stage("records equal but one column"):
            return self.backend.one_column_matches(words(query), d.sizes[query], None if same else words(ref),
                                                   d.sizes[ref], p)

    def other_column_ids(self, query: str, ref: str, j: int) -> tuple[NDArray[np.integer], NDArray[np.integer]] | None:
        """:meth:`Context.other_column_ids`: the join of the records' cell words less column ``j`` on the workers
        (:func:`synthpriv_report.cluster.joins.record_ids`); ``None`` where the backend joins nothing itself (in
        this process)."""
        d, codes = self.data, self.fitted.codes
        p = len(d.columns)
        keep = [c for c in range(p) if c != j]
        n_q = d.sizes[query]
        same = query == ref

        def words(lo: int, hi: int) -> NDArray[np.uint64]:  # a block lies within one set
            s, rows = (query, slice(lo, hi)) if lo < n_q else (ref, slice(lo - n_q, hi - n_q))
            return cell_words(compared_numbers(d, s, rows=rows), codes[s][rows])[:, keep]

        sizes = [n_q] if same else [n_q, d.sizes[ref]]
        with self.stage("records equal but one column"):
            ids = self.backend.record_ids(words, sizes, p - 1, desc="records equal but one column")
        if ids is None:
            return None
        return (ids, ids) if same else (ids[:n_q], ids[n_q:])

    def key_groups(self, columns: tuple[str, ...], a: str, b: str
                   ) -> tuple[NDArray[np.int64], NDArray[np.int64], int]:
        """Shared ids of the records of sets ``a`` and ``b`` by their values in ``columns``: equal ids exactly when
        the records have the same value in every one of those columns (numbers by exact value, -0.0 equal to 0.0,
        missing equal to missing; categories by level), dense in order of first appearance over ``a`` then
        ``b`` (:func:`synthpriv_report.matching.joins.group_ids` over the ``hamming`` encoding of ``columns``).

        With a Dask client the grouping is a hash-partitioned join on the workers
        (:func:`synthpriv_report.cluster.joins.record_ids` over the columns' cell words): the calling process makes
        each block's cell words from that block's rows alone and receives 8 bytes a record; where two different
        value combinations share a key (a collision of 64-bit sums), the ids are made here, exactly. The ids are
        the same either way.

        Returns
        -------
        ids_a, ids_b : int arrays, shapes (n_a,), (n_b,)
        n_groups : int
            Number of distinct value combinations over both sets.
        """
        d = self.data
        if columns:
            ni = [d.numeric_columns.index(c) for c in columns if c in d.numeric_columns]
            ci = [d.categorical_columns.index(c) for c in columns if c in d.categorical_columns]
            n_a = d.sizes[a]

            def words(lo: int, hi: int) -> NDArray[np.uint64]:  # a block lies within one set
                s, rows = (a, slice(lo, hi)) if lo < n_a else (b, slice(lo - n_a, hi - n_a))
                return cell_words(d.numeric[s].columns(ni, rows), self.fitted.codes[s][rows][:, ci])

            with self.stage("key groupings"):
                ids = self.backend.record_ids(words, [n_a, d.sizes[b]], len(ni) + len(ci), desc="key groupings")
            if ids is not None:
                return ids[:n_a], ids[n_a:], int(ids.max()) + 1 if ids.shape[0] else 0
        enc = self.encoding(SpaceSpec("hamming", columns=columns))
        with self.stage("key groupings"):
            return group_ids(enc.cat[a], enc.cat[b])

    # memoised steps -----------------------------------------------------------------------------------------
    def keep(self, key: Hashable, value: Any) -> None:
        """Cache ``value`` under ``key`` (:meth:`Context.memo`), in the form the backend keeps it
        (:meth:`synthpriv_report.engine.backend.Backend.keep`: here as it is, or on a worker with a Dask client
        where it holds many bytes of arrays in plain containers, :func:`_plain_bytes`)."""
        self.memo[key] = self.backend.keep(value, _plain_bytes(value))

    def recall(self, key: Hashable) -> Any:
        """What :meth:`keep` cached under ``key`` (a copy read from the worker where it was kept there).

        Raises
        ------
        LookupError
            It was kept on a worker that has gone; the entry is dropped.
        """
        try:
            return self.backend.recall(self.memo[key])
        except LookupError:
            del self.memo[key]
            raise

    def _compute_record_ids(self) -> dict[str, NDArray[np.integer]]:
        """With a Dask client, a hash-partitioned join on the workers (:func:`synthpriv_report.cluster.joins.
        record_ids`): the calling process makes each block's cell words from its rows alone and receives the
        ids (8 bytes a record). Where that join meets two different records under one key (a collision of 64-bit
        sums, about one chance in 10^7 at three million records), the ids are numbered here, exactly."""
        d = self.data
        sets = list(d.sets)
        offsets = np.cumsum([0] + [d.sizes[s] for s in sets])

        def words(a: int, b: int) -> NDArray[np.uint64]:  # a block lies within one set
            i = int(np.searchsorted(offsets, a, side="right")) - 1
            s, rows = sets[i], slice(a - int(offsets[i]), b - int(offsets[i]))
            return cell_words(compared_numbers(d, s, rows=rows), self.fitted.codes[s][rows])

        ids = self.backend.record_ids(words, [d.sizes[s] for s in sets], len(d.columns))
        if ids is not None:
            return {s: ids[offsets[i]:offsets[i + 1]] for i, s in enumerate(sets)}
        return dict(record_ids(compared_numbers(d), self.fitted.codes, sets))


def _plain_bytes(value: Any) -> int | None:
    """Bytes of the numeric arrays in ``value`` when it is made only of plain parts (numbers, strings, None,
    numeric arrays, :class:`SetRef`, space specs, and tuples, lists and dicts of them), else None:
    what may be sent to a worker and read back as an equal copy. Anything else (an object array, a fitted model,
    a function) stays in this process.

    >>> _plain_bytes({"a": np.zeros(4), "b": (np.zeros(2, np.int32), "x", None)}), _plain_bytes([lambda: 0])
    (40, None)
    """
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes, np.generic)):
        return 0
    if isinstance(value, np.ndarray):
        return int(value.nbytes) if value.dtype.kind in "biufcmM" else None
    if isinstance(value, SetRef):
        return 0 if value.rows is None else _plain_bytes(value.rows)
    if isinstance(value, (tuple, list)):
        parts = [_plain_bytes(v) for v in value]
    elif isinstance(value, dict):
        parts = [_plain_bytes(v) for v in value.values()] + [_plain_bytes(k) for k in value]
    elif isinstance(value, SpaceSpec):
        return 0
    else:
        return None
    return None if any(p is None for p in parts) else sum(p for p in parts if p is not None)


def _projection_base(spec: SpaceSpec) -> SpaceSpec:
    """The euclidean space a projected space ``spec`` is made from (same columns and weights)."""
    return SpaceSpec("euclidean", columns=spec.columns, weights=spec.weights)


@overload
def compared_numbers(data: PreparedData) -> dict[str, NDArray[np.float64]]: ...
@overload
def compared_numbers(data: PreparedData, set_name: str, rows: slice = ...) -> NDArray[np.float64]: ...


def compared_numbers(data: PreparedData, set_name: str | None = None, rows: slice = slice(None),
                     ) -> dict[str, NDArray[np.float64]] | NDArray[np.float64]:
    """The numbers of every set (or of ``set_name`` alone, or of its ``rows``) as records are compared for
    equality: float64, except that a column the synthetic data holds at a lower precision
    (:attr:`PreparedData.precision`) is rounded to it in every set."""
    if set_name is not None:
        num: NDArray[np.float64] = data.numeric[set_name][rows]
        if not data.precision:
            return num
        num = num.copy()
        cols = data.numeric_columns
        for c, p in data.precision.items():
            j = cols.index(c)
            with np.errstate(over="ignore"):
                num[:, j] = num[:, j].astype(p).astype(np.float64)
        return num
    return {s: compared_numbers(data, s) for s in data.numeric}


class _TimedStage:
    def __init__(self, engine: _Engine, name: str):
        self._engine, self._name = engine, name

    def __enter__(self) -> None:
        self._t0 = time.perf_counter()
        self._cm = pg.stage(self._name, enabled=self._engine.progress)
        self._cm.__enter__()

    def __exit__(self, *exc: Any) -> None:
        self._cm.__exit__(*exc)
        secs = self._engine.stage_seconds
        secs[self._name] = secs.get(self._name, 0.0) + time.perf_counter() - self._t0
