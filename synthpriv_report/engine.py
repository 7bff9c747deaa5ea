"""The search and cache engine behind an evaluation: encodings, trees, neighbour tables, memoised steps.

Every (space, query set, reference set) is searched once per evaluation with the largest ``k`` any planned metric
needs; metrics read the cached tables through a :class:`Context`, the one object a metric's ``plan`` and
``compute`` receive. Nothing here knows about metrics, levels or presentation.
"""

from __future__ import annotations

import functools
import hashlib
import time
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import neighbors as nb
from . import progress as pg
from .data import PreparedData, position_dtype
from .neighbors.search import Device, Engine
from .spaces import (
    EncodedRows,
    Encoding,
    Fitted,
    Projection,
    SpaceSpec,
    as_space,
    encode,
    encoded_codes,
    encoded_numbers,
    encoding_header,
    fit,
    project,
)

if TYPE_CHECKING:
    from .held import HeldArray

#: What a memoised step returns (:meth:`Context.memo`).
R = TypeVar("R")


# ---------------------------------------------------------------------------------------------------------------
# set references and search requests


@dataclass(frozen=True, eq=False)
class SetRef:
    """A record set: a whole set (``rows is None``) or a subset of one, identified by a tag.

    Made by :meth:`Context.full` and :meth:`Context.subset`; everywhere a :class:`Context` method takes a set, a
    plain set name (``"T"``) means the whole set.

    Parameters
    ----------
    base : {"T", "S", "H", "R"}
        The set the records come from: training (real), synthetic, holdout (real, not seen by the generator),
        reference (real, neither training nor holdout: the membership attacks' reference data, when given).
    rows : ndarray of int, shape (n_rows,), optional
        Positions in ``base`` (the evaluation's row order, see :class:`Context`), in the order the subset lists
        them (int32 from :meth:`Context.subset` where the set has fewer than 2**31 records, else int64);
        ``None``: the whole set.
    tag : str
        Name of the subset, shown in the search log (``"T[privacy_score.R1]"``). Part of the identity: two subsets
        of the same rows under different tags are searched separately.

    Notes
    -----
    Two references are equal, and share cached searches, when their :attr:`key` is: the same base, tag, number of
    rows and rows. Neighbour positions returned for a subset are positions *within the subset*; ``rows`` maps them
    back to the base set (``ref.rows[table.idx]``). A query subset's rows of a table follow ``rows``.

    Examples
    --------
    >>> import numpy as np
    >>> SetRef("T").label, SetRef("T", np.array([0, 2]), "half").label
    ('T', 'T[half]')
    >>> SetRef("T", np.array([0, 2]), "half") == SetRef("T", np.array([0, 2]), "half")
    True
    """

    base: str
    rows: NDArray[np.integer] | None = None
    tag: str = ""

    @functools.cached_property
    def key(self) -> tuple[str, str, int, str]:
        """What identifies the set in the caches: ``(base, tag, number of rows, digest of the rows)``; a whole set
        is ``(base, "", 0, "")``. Found once per reference (every lookup of a cache reads it); the digest is of
        the rows as int64, whatever type holds them, read a block at a time."""
        if self.rows is None:
            return (self.base, "", 0, "")
        h = hashlib.sha1()
        step = 1 << 16
        for a in range(0, self.rows.shape[0], step):
            h.update(np.ascontiguousarray(self.rows[a:a + step], dtype=np.int64).tobytes())
        return (self.base, self.tag, int(self.rows.shape[0]), h.hexdigest()[:16])

    @property
    def label(self) -> str:
        """``base`` for a whole set, ``base[tag]`` for a subset (the search log's name for it)."""
        return self.base if self.rows is None else f"{self.base}[{self.tag}]"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SetRef) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)


@dataclass(frozen=True)
class SearchRequest:
    """A neighbour search a metric will ask for: ``k`` nearest records of ``ref`` for each record of ``query``.

    Made by :meth:`Context.request` and returned by a metric's ``plan``. The evaluation plans the requests of all
    its metrics before any searches, and each (space, query, ref) then runs once with the largest ``k`` asked for.
    """

    space: SpaceSpec
    query: SetRef
    ref: SetRef
    k: int


@dataclass(frozen=True)
class TreeRequest:
    """A metric will read the search tree of ``ref`` itself (:meth:`Context.tree`, :meth:`Context.farthest`), not
    only through a neighbour search: the tree is kept until that metric has been computed."""

    space: SpaceSpec
    ref: SetRef


@dataclass
class SearchRecord:
    """One executed search (for the search counter and the benchmark).

    ``where`` is ``"local"`` (this process) or ``"dask"`` (``blocks`` tasks that ran on ``workers``, their
    addresses).
    """

    space: str
    query: str
    ref: str
    k: int
    n_query: int
    n_ref: int
    seconds: float
    engine: str = ""
    reason: str = ""
    where: str = "local"
    blocks: int = 1
    workers: tuple[str, ...] = ()


# ---------------------------------------------------------------------------------------------------------------
# engine: caches shared by every context of one evaluation


class _Engine:
    """The caches one evaluation shares between its contexts: fitted encoders, encodings, search trees, neighbour
    tables (keyed by space, query key and reference key), the planned ``k`` per search, memoised steps and the log
    of the searches run. Metrics reach it only through a :class:`Context`."""

    def __init__(self, data: PreparedData, *, progress: bool, search_engine: Engine = "auto", device: Device = "cpu",
                 client: Any = None, shard_rows: int | None = None):
        self.data = data
        self.dask = None
        self._blocks: Any = None  # where hold_numbers and hold_codes keep the sets' blocks
        if client is not None:
            from .distributed import DaskSearcher

            self.dask = DaskSearcher(client, shard_rows=shard_rows)
        self.progress = progress
        self.stage_seconds: dict[str, float] = {}
        with self.stage("fitting the encoders"):
            self.fitted: Fitted = fit(data, each_set=None if self.dask is None else self.hold_codes,
                                      numbers_read=None if self.dask is None else self.hold_numbers)
        self.search_engine = search_engine
        self.device = device
        self.encodings: dict[SpaceSpec, Encoding] = {}
        self.projections: dict[SpaceSpec, Projection] = {}
        self.trees: dict[tuple, nb.RefTree] = {}
        #: Where a search tree, or a projected space's fit, may be taken instead of made (set by a comparison of
        #: several releases of the same real data): an object with ``lend(spec, ref, enc) -> RefTree | None`` and
        #: ``projection(spec, base_enc) -> Projection | None``, which give one only where it was made from the
        #: same arrays, and ``keep(spec, ref, enc, tree)``, ``keep_projection(spec, base_enc, projection)``;
        #: None: everything is made here.
        self.lender: Any = None
        self.orders: dict[tuple, NDArray[np.int64]] = {}
        self.tables: dict[tuple, nb.NeighborTable] = {}
        #: Tables whose lists stay on the workers (sharded searches): key -> (table, space, query, reference).
        self.remote: dict[tuple, tuple[Any, SpaceSpec, SetRef, SetRef]] = {}
        self.planned_k: dict[tuple, int] = {}
        self.planned_reads: dict[tuple, set[str]] = {}
        self.searches: list[SearchRecord] = []
        self.memo: dict[Any, Any] = {}

    # stages -------------------------------------------------------------------------------------------------
    def stage(self, name: str):
        """A timed stage: its seconds are added to :attr:`stage_seconds` and a progress bar names it when it runs
        longer than :data:`synthpriv_report.progress.DELAY`."""
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

    def hold_numbers(self) -> None:
        """With a Dask client, hand every set's packed numbers (and its canonical order, where the sets are held in
        one) to the workers (:mod:`synthpriv_report.held`), set after set, in blocks of a few megabytes with two
        copies each; :func:`~synthpriv_report.spaces.fit` calls this once it has read them, before it makes any
        category codes. ``data.numeric[s]`` and ``data.order[s]`` then read the rows they are asked for from the
        workers, the same values; this process keeps the handles and each packed column's table of distinct
        values, and lets a set's numbers go before the next set's are handed over. A set the preparation has
        already kept on the workers (:class:`~synthpriv_report.held.Parking`, partitioned inputs) stays there."""
        from .held import HeldNumericSet, Parking

        d = self.data
        park = Parking(self._held_blocks())
        for s in d.sets:
            if isinstance(d.numeric[s], HeldNumericSet):
                continue  # kept on the workers since the preparation (held.Parking), with its order
            d.numeric[s], _, order = park(d.numeric[s], [], None if d.order is None else d.order[s])
            if d.order is not None:
                d.order[s] = order  # type: ignore[assignment]
            del order
            self.settle()

    def hold_codes(self, s: str, codes: NDArray[np.signedinteger[Any]], levels: tuple[NDArray[np.object_], ...]
                   ) -> HeldArray:
        """With a Dask client, hand set ``s``'s fitted category ``codes`` to the workers as soon as
        :func:`~synthpriv_report.spaces.fit` has made them (set after set), as :meth:`hold_numbers` hands the
        numbers. ``data.categorical[s]`` and the fitted codes (what this returns) then read the rows they are asked
        for from the workers; this process keeps the handles and each column's texts, and lets the set's codes go
        before the next set's are made."""
        from .data import CodedSet
        from .held import HeldArray, HeldSet  # noqa: F811

        d = self.data
        held = HeldArray(HeldSet(self._held_blocks(), {"codes": codes}), "codes")
        del codes
        d.categorical[s] = CodedSet(held, levels)  # type: ignore[assignment]
        if d.factorized is not None:
            d.factorized[s] = ()  # its codes are the fitted codes' now (fit has read them)
        self.settle()
        return held

    def _held_blocks(self) -> Any:
        """Where the sets' blocks are kept (:class:`~synthpriv_report.held.ClusterBlocks`, made on first use)."""
        from .held import ClusterBlocks

        assert self.dask is not None
        if self._blocks is None:
            self._blocks = ClusterBlocks(self.dask.client)
        return self._blocks

    def settle(self) -> None:
        """With a Dask client, give the heap's free pages back to the system
        (:func:`synthpriv_report.distributed.give_back_free_heap`): between steps, the calling process holds what
        it keeps, not the holes its freed arrays left, nor the client's copies of the messages it sent
        (:func:`~synthpriv_report.distributed.stop_message_log`)."""
        if self.dask is not None:
            from .distributed import give_back_free_heap, stop_message_log

            stop_message_log(self.dask.client)  # a client that reconnected has a new log
            give_back_free_heap()

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
        if self.dask is not None and (spec, ref.key) not in self.trees and (
                self.dask.shard_size(n_ref) is not None or (spec, ref.key) not in self.planned_reads):
            # a reference set cut into shards, each with its own tree on one worker, or one shard where the set is
            # no larger than a shard and no metric reads its tree here: no tree of it in the calling process, and
            # (gower and euclidean-type spaces) no whole set's coordinates either: each block is made as sent
            from .neighbors.shards import ShardParams

            header = self._header(spec)
            (qn, qc), (rn, rc) = self._rows(spec, query, header), self._rows(spec, ref, header)
            remote, choice, placed = self.dask.search_sharded(
                (spec, ref.key), ShardParams.from_encoding(header), rn, rc, qn, qc, k=k_search,
                exclude_self=(query.key == ref.key), engine=self.search_engine, desc=desc)
            where = {"where": "dask", "blocks": placed.blocks, "workers": placed.workers}
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
        if self.dask is not None:
            qn, qc = np.ascontiguousarray(qn), np.ascontiguousarray(qc)
            # the blocks are cut from the queries in the tree walk's visiting order, found once per query set as
            # in a local search: each block holds neighbouring queries and no worker orders its block again
            dist, idx, choice, placed = self.dask.knn((spec, ref.key), tree, qn, qc, k=k_search,
                                                      exclude_self=(query.key == ref.key), engine=self.search_engine,
                                                      progress=self.progress, desc=desc,
                                                      order=lambda: self.query_order(spec, query, tree, qn, qc))
            where = {"where": "dask", "blocks": placed.blocks, "workers": placed.workers}
        else:
            info: dict[str, Any] = {}
            qn, qc = np.ascontiguousarray(qn), np.ascontiguousarray(qc)
            dist, idx = nb.knn(tree, qn, qc, k=k_search, exclude_self=(query.key == ref.key),
                               progress=self.progress, desc=desc, engine=self.search_engine, device=self.device,
                               info=info, order=lambda: self.query_order(spec, query, tree, qn, qc))
            choice = info.get("choice")
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

    def _read_remote(self, key: tuple, which: str, k: int) -> NDArray[Any]:
        """``k`` columns of a table kept on the workers (:meth:`knn`'s sharded searches,
        :class:`~synthpriv_report.distributed.RemoteTable`). A table the cluster lost (a worker died with blocks
        of it) is searched again, the same lists, and read from the new search; up to the searcher's retries."""
        from .distributed import DistributedSearchError

        assert self.dask is not None
        last: Exception | None = None
        for _attempt in range(self.dask.retries + 1):
            held = self.remote.get(key)
            if held is None:  # searched again where the lists come here (a tree of the reference is cached now)
                table = self.tables[key]
                if which == "mean":
                    return table.head(k).row_means()
                return np.ascontiguousarray((table.dist if which == "dist" else table.idx)[:, :k])
            remote, spec, query, ref = held
            try:
                return remote.columns(which, k)
            except DistributedSearchError as exc:
                last = exc
                remote.release()
                del self.remote[key]
                k_search = self.tables.pop(key).k
                self.knn(spec, query, ref, k_search)  # the same search again: its lists replace the lost ones
        raise DistributedSearchError(f"{last} (searched again {self.dask.retries} times)") from last

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

    def _release_tree_key(self, spec: SpaceSpec, ref_key: tuple) -> None:
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
            if self.dask is not None:  # the workers' copies go too
                self.dask.release((spec, ref_key))

    def _release_encoding(self, spec: SpaceSpec) -> None:
        """With a Dask client, drop an encoding once every search planned in its space has run and no tree of it
        is cached or planned to be read: the calling process then holds no coordinates of that space (8 bytes a
        numeric cell) while the next space's searches run. Asked for again (a per-record view, a search no metric
        planned), it is rebuilt: the same arrays, since an encoding depends only on the data and the fitted
        encoders. Without a client encodings stay, so that a slider never waits for one. (A sharded search in a
        gower or euclidean-type space makes no whole encoding at all: see :meth:`_rows`.)"""
        if self.dask is None or spec not in self.encodings:
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
        it, and that record's position (:func:`synthpriv_report.identity.one_column_matches`; -1 where none).
        Numbers are compared at the synthetic columns' precision (:func:`compared_numbers`). With a Dask client
        the join runs on the workers, hash-partitioned, and the calling process makes each block's cell words
        from its rows alone; the arrays are the same."""
        from .identity import cell_words, one_column_matches

        d, codes = self.data, self.fitted.codes

        def words(s: str) -> Callable[[int, int], NDArray[np.uint64]]:
            return lambda a, b: cell_words(compared_numbers(d, s, rows=slice(a, b)), codes[s][a:b])

        same = query == ref
        p = len(d.columns)
        with self.stage("records equal but one column"):
            if self.dask is None:
                wq = words(query)(0, d.sizes[query])
                return one_column_matches(wq, wq if same else words(ref)(0, d.sizes[ref]), same=same)
            return self.dask.one_column_matches(words(query), d.sizes[query], None if same else words(ref),
                                                d.sizes[ref], p)

    def other_column_ids(self, query: str, ref: str, j: int) -> tuple[NDArray[np.integer], NDArray[np.integer]] | None:
        """:meth:`Context.other_column_ids`: the join of the records' cell words less column ``j`` on the workers
        (:func:`synthpriv_report.cluster_joins.record_ids`); ``None`` without a Dask client."""
        if self.dask is None:
            return None
        from .identity import cell_words

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
            ids = self.dask.record_ids(words, sizes, p - 1, desc="records equal but one column")
        if ids is None:
            return None
        return (ids, ids) if same else (ids[:n_q], ids[n_q:])

    def key_groups(self, columns: tuple[str, ...], a: str, b: str
                   ) -> tuple[NDArray[np.int64], NDArray[np.int64], int]:
        """Shared ids of the records of sets ``a`` and ``b`` by their values in ``columns``: equal ids exactly when
        the records have the same value in every one of those columns (numbers by exact value, -0.0 equal to 0.0,
        missing equal to missing; categories by level), dense in order of first appearance over ``a`` then
        ``b`` (:func:`synthpriv_report.joins.group_ids` over the ``hamming`` encoding of ``columns``).

        With a Dask client the grouping is a hash-partitioned join on the workers
        (:func:`synthpriv_report.cluster_joins.record_ids` over the columns' cell words): the calling process makes
        each block's cell words from that block's rows alone and receives 8 bytes a record; where two different
        value combinations share a key (a collision of 64-bit sums), the ids are made here, exactly. The ids are
        the same either way.

        Returns
        -------
        ids_a, ids_b : int arrays, shapes (n_a,), (n_b,)
        n_groups : int
            Number of distinct value combinations over both sets.
        """
        from .identity import cell_words
        from .joins import group_ids

        d = self.data
        if self.dask is not None and columns:
            ni = [d.numeric_columns.index(c) for c in columns if c in d.numeric_columns]
            ci = [d.categorical_columns.index(c) for c in columns if c in d.categorical_columns]
            n_a = d.sizes[a]

            def words(lo: int, hi: int) -> NDArray[np.uint64]:  # a block lies within one set
                s, rows = (a, slice(lo, hi)) if lo < n_a else (b, slice(lo - n_a, hi - n_a))
                return cell_words(d.numeric[s].columns(ni, rows), self.fitted.codes[s][rows][:, ci])

            with self.stage("key groupings"):
                ids = self.dask.record_ids(words, [n_a, d.sizes[b]], len(ni) + len(ci), desc="key groupings")
            if ids is not None:
                return ids[:n_a], ids[n_a:], int(ids.max()) + 1 if ids.shape[0] else 0
        enc = self.encoding(SpaceSpec("hamming", columns=columns))
        with self.stage("key groupings"):
            return group_ids(enc.cat[a], enc.cat[b])

    # memoised steps -----------------------------------------------------------------------------------------
    def keep(self, key: Hashable, value: Any) -> None:
        """Cache ``value`` under ``key`` (:meth:`Context.memo`): here, or, with a Dask client and at least
        :data:`MEMO_KEPT_BYTES` of arrays in plain containers (:func:`_plain_bytes`), on a worker, this process
        keeping only the handle; with a client, an array that is a view of a larger one is kept here as a copy of
        its own, so that it does not keep the larger one alive."""
        if self.dask is not None:
            size = _plain_bytes(value)
            if size is not None and size >= MEMO_KEPT_BYTES:
                self.memo[key] = _OnWorker(self.dask.hold(value))
                return
            if isinstance(value, np.ndarray) and value.base is not None:
                value = value.copy()  # a view kept here would keep the whole array it is cut from (every set's ids)
        self.memo[key] = value

    def recall(self, key: Hashable) -> Any:
        """What :meth:`keep` cached under ``key`` (a copy read from the worker where it was kept there).

        Raises
        ------
        LookupError
            It was kept on a worker that has gone; the entry is dropped.
        """
        from .distributed import DistributedSearchError

        held = self.memo[key]
        if not isinstance(held, _OnWorker):
            return held
        assert self.dask is not None
        try:
            return self.dask.held(held.kept)
        except DistributedSearchError as exc:
            del self.memo[key]
            raise LookupError(str(exc)) from exc

    def _compute_record_ids(self) -> dict[str, NDArray[np.integer]]:
        """With a Dask client, a hash-partitioned join on the workers (:func:`synthpriv_report.cluster_joins.
        record_ids`): the calling process makes each block's cell words from its rows alone and receives the
        ids (8 bytes a record). Where that join meets two different records under one key (a collision of 64-bit
        sums, about one chance in 10^7 at three million records), the ids are numbered here, exactly."""
        from .identity import cell_words, record_ids

        d = self.data
        sets = list(d.sets)
        if self.dask is not None:
            offsets = np.cumsum([0] + [d.sizes[s] for s in sets])

            def words(a: int, b: int) -> NDArray[np.uint64]:  # a block lies within one set
                i = int(np.searchsorted(offsets, a, side="right")) - 1
                s, rows = sets[i], slice(a - int(offsets[i]), b - int(offsets[i]))
                return cell_words(compared_numbers(d, s, rows=rows), self.fitted.codes[s][rows])

            ids = self.dask.record_ids(words, [d.sizes[s] for s in sets], len(d.columns))
            if ids is not None:
                return {s: ids[offsets[i]:offsets[i + 1]] for i, s in enumerate(sets)}
        return record_ids(compared_numbers(d), self.fitted.codes, sets)


#: With a Dask client, a memoised result holding at least this many bytes of arrays is kept on a worker
#: (:meth:`_Engine.keep`): per-record arrays of a few hundred thousand records and more.
MEMO_KEPT_BYTES = 4 * 2**20


@dataclass(frozen=True)
class _OnWorker:
    """A memoised result kept on the Dask workers: the handle it is read from
    (:class:`~synthpriv_report.held.HeldValue`)."""

    kept: Any


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
        num = data.numeric[set_name][rows]
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


class Context:
    """What a metric's ``plan`` and ``compute`` see: the data, cached encodings and searches, and the roles.

    An evaluation makes one context (:attr:`synthpriv_report.Evaluation.context`) and, when it calibrates, a
    second one from :meth:`calibration`; both read the same caches, so a search or a memoised step is shared by
    every metric and by both contexts.

    Parameters
    ----------
    engine : _Engine
        The evaluation's caches (encodings, trees, neighbour tables, memoised steps, the search log).
    settings : mapping of str to object
        The evaluation's settings (``random_state``, ``spaces``, ``n_components``, ``nndr_k``, ``key_fields``,
        ...; :meth:`synthpriv_report.Evaluation.settings_dict` lists them). Copied.
    syn : str, default "S"
        The set in the synthetic role.
    holdout : str or None, default "H"
        The set in the holdout role; ``None``, or a set the data do not hold, leaves :attr:`H` None.
    calibration : bool, default False
        Whether this is the calibration context (:attr:`is_calibration`).

    Attributes
    ----------
    T : str
        The training (real) set: always ``"T"``.
    S : str
        The set in the synthetic role: ``"S"``, or ``"H"`` in the calibration context.
    H : str or None
        The holdout: ``"H"`` when the evaluation has one, else None; always None in the calibration context,
        whose holdout is playing ``S``.
    R : str or None
        The reference set the user gave (``Evaluation(reference=...)``): ``"R"`` when there is one and :attr:`H`
        is not None, else None (the membership attacks then split the holdout,
        :func:`synthpriv_report.metrics.mia_common.attack_split`).
    settings : dict of str to object
        The evaluation's settings.
    is_calibration : bool
        True in the context made by :meth:`calibration`.

    Notes
    -----
    **Roles.** A metric names sets through :attr:`T`, :attr:`S` and :attr:`H`, never by their letters, so that the
    same code computes it with the holdout in the synthetic role: the calibration value, what the metric gives
    for fresh real records the generator never saw (``docs/metrics.md``, section "Baselines: the holdout and the
    calibration"). Anything a metric memoises that depends on the roles has ``ctx.S`` (and ``ctx.H``) in its key.

    **Positions.** Every row position (a :class:`SetRef`'s rows, a neighbour table's ``idx``, a record id) is a
    position in the evaluation's own order of the set: by default the canonical order, which depends on the
    records' values alone (``row_order="canonical"`` of :class:`synthpriv_report.Evaluation`), otherwise the
    caller's order (``row_order="as_given"``).

    **Searches.** :meth:`knn` returns the ``k`` nearest records of a reference set for every record of a query set,
    exactly, as a :class:`synthpriv_report.neighbors.NeighborTable`: ``dist`` of shape (n_query, k), float64,
    ascending along each row, and ``idx`` of shape (n_query, k), int64, positions in the reference set. A metric
    lists the searches it will ask for in ``plan`` (:meth:`request`); the evaluation plans every metric before it
    computes any, and then runs each (space, query, ref) once, at the first :meth:`knn` that needs it, with the
    largest ``k`` planned for it. Later calls with that ``k`` or less are slices of the cached table and never
    search again. A call for more neighbours than are cached is searched again at the larger ``k`` (a second
    entry in the search log, :attr:`synthpriv_report.Evaluation.searches`), so a metric that plans what it reads
    causes no second search.

    **Self-exclusion.** When the query and the reference set are the same (equal :attr:`SetRef.key`: the same
    whole set, or the same subset), each query record is left out of its own neighbours by position, as
    scikit-learn's ``NearestNeighbors.kneighbors()`` does without ``X``. Another record identical to it is still a
    neighbour, at distance 0 (``docs/metrics.md``, section "Ties, self-matches and nearest records"). A subset
    searched against its whole base set is not a within-set search: each record then finds itself.

    **Ties and missing neighbours.** Distances within the package's tolerance (``|a - b| <= 1e-9 max(|a|, |b|) +
    1e-12``, :mod:`synthpriv_report.neighbors`) are ties, and among tied references the lowest position comes
    first, whichever engine ran. Where the reference set has fewer than ``k`` records (after self-exclusion), the
    missing slots hold ``dist = inf`` and ``idx = -1``.

    **Memoised steps.** :meth:`memo` runs an expensive step once per evaluation and key (a fit, a subsample, an
    array several metrics read); :meth:`peek` and :meth:`cached_table` read the caches without computing, for
    presentation code.

    Examples
    --------
    How a metric uses it: ``plan`` lists the searches, ``compute`` reads them (registered with
    :class:`synthpriv_report.registry.MetricSpec`, the evaluation calls both with its context; here ``compute``
    is called directly, unplanned, so its search runs with the ``k`` it asks for).

    >>> import pandas as pd
    >>> from synthpriv_report import Evaluation
    >>> T = pd.DataFrame({"x": [0.0, 1.0, 2.0, 4.0]})
    >>> S = pd.DataFrame({"x": [0.9, 4.0]})
    >>> ev = Evaluation(T, S, progress=False, calibrate=False, row_order="as_given")
    >>> def plan(ctx, params):
    ...     return [ctx.request("gower", ctx.S, ctx.T, 2)]
    >>> def compute(ctx, params):
    ...     table = ctx.knn("gower", ctx.S, ctx.T, 1)  # once planned, the first column of the k=2 table
    ...     return table.idx[:, 0].tolist(), table.dist.shape, table.dist.dtype.name, table.idx.dtype.name
    >>> compute(ev.context, {})
    ([1, 3], (2, 1), 'float64', 'int64')
    >>> _ = compute(ev.context, {}); ev.search_count  # the second call reads the cached table
    1
    >>> within = ev.context.knn("gower", "T", "T", 1)  # a set against itself: no record is its own neighbour
    >>> within.idx[:, 0].tolist()
    [1, 0, 1, 2]
    """

    def __init__(self, engine: _Engine, settings: Mapping[str, Any], *, syn: str = "S",
                 holdout: str | None = "H", calibration: bool = False):
        self._engine = engine
        self.settings: dict[str, Any] = dict(settings)
        self.T = "T"
        self.S = syn
        self.H = holdout if holdout in engine.data.sizes else None
        self.R = "R" if self.H is not None and "R" in engine.data.sizes else None
        self.is_calibration = calibration

    # data ---------------------------------------------------------------------------------------------------
    @property
    def data(self) -> PreparedData:
        """The prepared data: every set's numbers and category codes, in the evaluation's row order."""
        return self._engine.data

    @property
    def fitted(self) -> Fitted:
        """The encoders, fitted on the real records only (ranges, scales, category codes)."""
        return self._engine.fitted

    @property
    def random_state(self) -> int | None:
        """The evaluation's seed: every random step of a metric draws from ``numpy.random.default_rng`` of it (or
        of a number derived from it), so that the same evaluation gives the same numbers."""
        return self.settings["random_state"]

    def size(self, s: str | SetRef) -> int:
        """Number of records of a set, or of a subset's rows.

        Parameters
        ----------
        s : str or SetRef
            A set name (``ctx.T``, ``ctx.S``, ``ctx.H``) or a reference.

        Returns
        -------
        int
        """
        if isinstance(s, SetRef):
            return self.data.sizes[s.base] if s.rows is None else int(s.rows.shape[0])
        return self.data.sizes[s]

    def full(self, base: str) -> SetRef:
        """A reference to the whole set ``base`` (what a plain set name stands for)."""
        return SetRef(base)

    def subset(self, base: str, rows: ArrayLike, tag: str) -> SetRef:
        """A reference to some records of ``base``, to search from or against.

        Parameters
        ----------
        base : str
            The set (``ctx.T``, ``ctx.S``, ``ctx.H``).
        rows : array of int, shape (n_rows,)
            Positions in ``base``, in the order the subset's tables list them; held as int32 where ``base`` has
            fewer than 2**31 records (4 bytes a row: the evaluation keeps its subsets), else int64.
        tag : str
            The subset's name: it appears in the search log and is part of its identity (:class:`SetRef`).

        Returns
        -------
        SetRef
            Searches against it return positions within ``rows``; a search of it against itself leaves each
            record out of its own neighbours.
        """
        return SetRef(base, np.asarray(rows, dtype=position_dtype(self.size(base))), tag)

    def calibration(self) -> Context:
        """The calibration context: the same caches with the holdout in the role of the synthetic set.

        Returns
        -------
        Context
            ``S == "H"``, ``H is None`` and ``is_calibration`` true. Call it only when the evaluation has a holdout.
        """
        return Context(self._engine, self.settings, syn="H", holdout=None, calibration=True)

    # spaces -------------------------------------------------------------------------------------------------
    def space(self, name: str | SpaceSpec) -> SpaceSpec:
        """The space of a name (``"gower"``, ``"euclidean"``, ``"hamming"``, ``"projected"``) or a spec, with the
        evaluation's number of projected components filled in (``n_components``, default 0.95 of the variance)."""
        spec = as_space(name)
        if spec.kind == "projected" and spec.n_components is None:
            spec = replace(spec, n_components=self.settings.get("n_components") or 0.95)
        return spec

    def metric_space(self, metric: str, default: str) -> SpaceSpec:
        """The space a distance metric uses: the caller's choice (``spaces=``) or the metric's default."""
        choice = self.settings.get("spaces") or {}
        if isinstance(choice, str):
            return self.space(choice)
        return self.space(choice.get(metric, default))

    def encoding(self, space: str | SpaceSpec) -> Encoding:
        """The compact encoding of every set in ``space`` (built on first use, then cached): per set, numeric
        coordinates (n, q) float64 and category codes (n, c) int64."""
        return self._engine.encoding(self.space(space))

    def projection(self, space: str | SpaceSpec = "projected") -> Projection:
        """The PCA behind a projected space (fitted on the real records; built with its encoding)."""
        spec = self.space(space)
        self._engine.encoding(spec)
        return self._engine.projections[spec]

    def embedding(self, s: str | SetRef, space: str | SpaceSpec = "euclidean") -> NDArray[np.float64]:
        """Dense one-hot euclidean embedding (classifier features) of a set or of a subset's rows (in the
        subset's order).

        Not cached: a whole set's embedding is large (a million records by about a hundred coordinates: 0.9 GB),
        so callers embed the rows they use, or a set in :meth:`embedding_blocks`.

        Returns
        -------
        ndarray of float64, shape (n_rows, n_features)
            Squared euclidean distances between rows equal the space's own.
        """
        from .spaces import embed

        ref = self._ref(s)
        return embed(self.encoding(space), ref.base, ref.rows)

    def embedding_blocks(self, s: str | SetRef, space: str | SpaceSpec = "euclidean", *,
                         rows_per_block: int = 1 << 16) -> Iterator[NDArray[np.float64]]:
        """The dense embedding of a set (or subset) in consecutive blocks of rows, in order; a row's embedding
        does not depend on the block it is in.

        Yields
        ------
        ndarray of float64, shape (at most rows_per_block, n_features)
        """
        from .spaces import embed

        ref = self._ref(s)
        enc = self.encoding(space)
        rows = np.arange(self.size(ref), dtype=np.int64) if ref.rows is None else ref.rows
        for a in range(0, rows.shape[0], rows_per_block):
            yield embed(enc, ref.base, rows[a:a + rows_per_block])

    # searches -----------------------------------------------------------------------------------------------
    def _ref(self, s: str | SetRef) -> SetRef:
        return s if isinstance(s, SetRef) else SetRef(s)

    def request(self, space: str | SpaceSpec, query: str | SetRef, ref: str | SetRef, k: int) -> SearchRequest:
        """For a plan: ``compute`` will call :meth:`knn` with these arguments (and at most this ``k``).

        Returns
        -------
        SearchRequest
            Nothing is searched; the evaluation runs each planned (space, query, ref) once, with the largest ``k``
            any of its metrics requested.
        """
        return SearchRequest(self.space(space), self._ref(query), self._ref(ref), int(k))

    def tree_request(self, space: str | SpaceSpec, ref: str | SetRef) -> TreeRequest:
        """For a plan: ``compute`` will read the tree of ``ref`` itself (:meth:`tree`, :meth:`farthest`)."""
        return TreeRequest(self.space(space), self._ref(ref))

    def knn(self, space: str | SpaceSpec, query: str | SetRef, ref: str | SetRef, k: int) -> nb.NeighborTable:
        """The ``k`` nearest records of ``ref`` for every record of ``query``, exact.

        Parameters
        ----------
        space : str or SpaceSpec
            The distance space (``"gower"``, ``"euclidean"``, ``"hamming"``, ``"projected"`` or a spec).
        query : str or SetRef
            The records whose neighbours are sought (n_query of them).
        ref : str or SetRef
            The records searched.
        k : int
            Number of neighbours.

        Returns
        -------
        NeighborTable
            ``dist``: ndarray of float64, shape (n_query, k), ascending along each row; ``idx``: ndarray of int64,
            shape (n_query, k), positions in ``ref`` (within the subset for a subset). Slots beyond the number
            of references hold ``inf`` and ``-1``.

        Notes
        -----
        Searched at the first call only, with the largest ``k`` planned for (space, query, ref), and cached; a
        call with that ``k`` or less returns the first ``k`` columns of the cached table without searching. A
        call with a larger ``k`` than is cached searches again at that ``k``. When ``query`` and ``ref`` are the
        same set or subset, each record is left out of its own neighbours (by position; identical records
        elsewhere in the set remain). Ties, within the package's tolerance, go to the lowest reference position.
        With a Dask client, a search against a sharded reference set keeps its table on the workers: the table
        returned reads ``dist`` and ``idx`` (its ``k`` columns only) when they are first used, and holds them as
        long as it is held. See :class:`Context`.
        """
        return self._engine.knn(self.space(space), self._ref(query), self._ref(ref), int(k))

    def cached_table(self, space: str | SpaceSpec, query: str | SetRef,
                     ref: str | SetRef) -> nb.NeighborTable | None:
        """The neighbour table of ``(space, query, ref)`` if a metric already searched it, else None.

        Never searches: presentation code reads tables through this. The table has every column searched (the
        largest ``k`` planned), not only those one metric read. A table kept on a Dask cluster's workers (a
        sharded search) is read when its arrays are used, every column of them: ``head(k)`` reads only the first
        ``k``.
        """
        return self._engine.tables.get((self.space(space), self._ref(query).key, self._ref(ref).key))

    def tree(self, space: str | SpaceSpec, ref: str | SetRef) -> nb.RefTree:
        """The search tree of ``ref`` (cached; a metric that reads it declares a :meth:`tree_request` in its plan,
        so that the tree is kept until the metric has been computed)."""
        return self._engine.tree(self.space(space), self._ref(ref))

    def query_arrays(self, space: str | SpaceSpec,
                     query: str | SetRef) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
        """The encoded rows of ``query`` in ``space``: numeric coordinates, shape (n_query, q), float64, and
        category codes, shape (n_query, c), int64, both C-contiguous (what the search kernels take)."""
        enc = self.encoding(space)
        q = self._ref(query)
        qn = enc.num[q.base] if q.rows is None else enc.num[q.base][q.rows]
        qc = enc.cat[q.base] if q.rows is None else enc.cat[q.base][q.rows]
        return np.ascontiguousarray(qn), np.ascontiguousarray(qc)

    def farthest(self, space: str | SpaceSpec, a: str | SetRef, b: str | SetRef) -> tuple[float, int, int]:
        """Exact farthest pair between sets ``a`` and ``b`` (memoised).

        Returns
        -------
        (d_max, i, j) : tuple of (float, int, int)
            The largest distance between a record of ``a`` and one of ``b``, at positions ``i`` in ``a`` and ``j``
            in ``b``. Reads the two sets' trees: plan a :meth:`tree_request` for each.
        """
        spec = self.space(space)
        return self.memo(("farthest", spec, a, b),
                         lambda: nb.farthest_pair(self.encoding(spec), self.tree(spec, a), self.tree(spec, b)))

    # identity -----------------------------------------------------------------------------------------------
    def record_ids(self, s: str | SetRef) -> NDArray[np.integer]:
        """An id per record of a set (or of a subset's rows, in their order), shape (n,), integer (int32 where a
        Dask join made them, int64 otherwise): two records have equal ids exactly when they are identical, across
        all sets (``docs/metrics.md``, section "Shared machinery")."""
        ref = self._ref(s)
        ids = self._engine.record_ids(ref.base)
        return ids if ref.rows is None else ids[ref.rows]

    def one_column_matches(self, query: str, ref: str) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """For each record of set ``query``: the first column on which alone a record of set ``ref`` differs from
        it (within one set, the record itself left out and exact duplicates not counted), and that record's
        position; -1 where none (:func:`synthpriv_report.identity.one_column_matches`). Not cached here: a metric
        memoises what it keeps.

        Returns
        -------
        column, partner : int arrays, shape (n_query,)
        """
        return self._engine.one_column_matches(query, ref)

    @property
    def on_cluster(self) -> bool:
        """Whether the evaluation runs its searches and joins on a Dask cluster."""
        return self._engine.dask is not None

    def other_column_ids(self, query: str, ref: str, j: int) -> tuple[NDArray[np.integer], NDArray[np.integer]] | None:
        """With a Dask client, shared ids of the records of sets ``query`` and ``ref`` by every column but column
        ``j`` (numeric columns first, then categorical, as :func:`synthpriv_report.identity.cell_words` orders
        them; numbers at the synthetic columns' precision): equal ids exactly when the records are equal on
        those columns, by a hash-partitioned join on the workers whose blocks' cell words the calling process
        makes from each block's rows alone. ``None`` without a client, or where the join met a collision of
        64-bit keys: the caller then compares the records in this process. Not cached here."""
        return self._engine.other_column_ids(query, ref, j)

    def key_groups(self, columns: Iterable[str], a: str, b: str) -> tuple[NDArray[np.int64], NDArray[np.int64], int]:
        """Shared ids of the records of sets ``a`` and ``b`` by their values in ``columns`` (exact values,
        missing equal to missing), dense from 0, and the number of distinct combinations; on the workers with a
        Dask client (:meth:`_Engine.key_groups`). Not cached here: a metric memoises what it keeps.

        Returns
        -------
        ids_a, ids_b : int arrays, shapes (n_a,), (n_b,)
        n_groups : int
        """
        return self._engine.key_groups(tuple(columns), a, b)

    def identical_in(self, query: str | SetRef, ref: str | SetRef) -> NDArray[np.bool_]:
        """For each query record: has ``ref`` an identical record?

        Returns
        -------
        ndarray of bool, shape (n_query,)
            Within one set (equal keys) the record itself does not count, an exact duplicate elsewhere does.
        """
        q, r = self._ref(query), self._ref(ref)
        if q.key == r.key:  # the set's ids read once; a record repeated in it (one byte per id, no count)
            from .identity import repeated_ids

            return repeated_ids(self.record_ids(q))
        qi, ri = self.record_ids(q), self.record_ids(r)
        # ids are small non-negative integers: a flag per id, not a sort of both sets' ids (np.isin)
        present = np.zeros(int(max(qi.max(initial=-1), ri.max(initial=-1))) + 1, dtype=bool)
        present[ri] = True
        return present[qi]

    # generic memo -------------------------------------------------------------------------------------------
    def memo(self, key: Hashable, fn: Callable[[], R]) -> R:
        """Cache the result of an expensive step (a fit, a subsample, arrays several metrics read) on the
        evaluation.

        Parameters
        ----------
        key : hashable
            Names the step and everything its result depends on: the roles (``ctx.S``, ``ctx.H``), the space,
            ``random_state``. The cache is shared by every metric and by the calibration context.
        fn : callable
            Computes the result; called only when ``key`` is not cached.

        Returns
        -------
        object
            ``fn()``'s result: the same object at every later call with ``key``; with a Dask client, a result that
            holds :data:`MEMO_KEPT_BYTES` or more of arrays is kept on a worker, and every later call reads a copy
            of it (equal, not the same object), so that the calling process does not hold every step's per-record
            arrays at once. Callers never change a result in place.

        Examples
        --------
        >>> import pandas as pd
        >>> from synthpriv_report import Evaluation
        >>> ctx = Evaluation(pd.DataFrame({"x": [0.0, 1.0]}), pd.DataFrame({"x": [0.5]}), progress=False).context
        >>> ctx.peek(("doc", "answer")) is None
        True
        >>> ctx.memo(("doc", "answer"), lambda: 42), ctx.memo(("doc", "answer"), lambda: 0)
        (42, 42)
        >>> ctx.peek(("doc", "answer"))
        42
        """
        engine = self._engine
        if key in engine.memo:
            try:
                return engine.recall(key)  # type: ignore[no-any-return]
            except LookupError:  # kept on a worker that is gone: computed again
                pass
        value = fn()
        engine.keep(key, value)
        return value

    def peek(self, key: Hashable) -> Any:
        """What :meth:`memo` cached under ``key``, or None (never computes; a step whose result is None reads the
        same as one not run, and so does one kept on a Dask worker that has gone since)."""
        try:
            return self._engine.recall(key) if key in self._engine.memo else None
        except LookupError:
            return None
