"""The search and cache engine behind an evaluation: encodings, trees, neighbour tables, memoised steps.

Every (space, query set, reference set) is searched once per evaluation with the largest ``k`` any planned metric
needs; metrics read the cached tables through a :class:`Context`. Nothing here knows about metrics, levels or
presentation.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from . import neighbors as nb
from . import progress as pg
from .data import PreparedData
from .spaces import Encoding, Fitted, Projection, SpaceSpec, as_space, encode, fit, project


# ---------------------------------------------------------------------------------------------------------------
# set references and search requests


@dataclass(frozen=True, eq=False)
class SetRef:
    """A record set: a whole set (``rows is None``) or a subset of one, identified by a tag.

    Neighbour positions returned for a subset are positions *within the subset*; ``rows`` maps them back to the
    base set.
    """

    base: str
    rows: NDArray[np.int64] | None = None
    tag: str = ""

    @property
    def key(self) -> tuple:
        if self.rows is None:
            return (self.base, "", 0, "")
        digest = hashlib.sha1(np.ascontiguousarray(self.rows, dtype=np.int64).tobytes()).hexdigest()[:16]
        return (self.base, self.tag, int(self.rows.shape[0]), digest)

    @property
    def label(self) -> str:
        return self.base if self.rows is None else f"{self.base}[{self.tag}]"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SetRef) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)


@dataclass(frozen=True)
class SearchRequest:
    """A neighbour search a metric will ask for: ``k`` nearest records of ``ref`` for each record of ``query``."""

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
    def __init__(self, data: PreparedData, *, progress: bool, search_engine: str = "auto", device: str = "cpu",
                 client: Any = None):
        self.data = data
        self.dask = None
        if client is not None:
            from .distributed import DaskSearcher

            self.dask = DaskSearcher(client)
        self.progress = progress
        self.stage_seconds: dict[str, float] = {}
        with self.stage("fitting the encoders"):
            self.fitted: Fitted = fit(data)
        self.search_engine = search_engine
        self.device = device
        self.encodings: dict[SpaceSpec, Encoding] = {}
        self.projections: dict[SpaceSpec, Projection] = {}
        self.trees: dict[tuple, nb.RefTree] = {}
        self.orders: dict[tuple, NDArray[np.int64]] = {}
        self.tables: dict[tuple, nb.NeighborTable] = {}
        self.planned_k: dict[tuple, int] = {}
        self.planned_reads: dict[tuple, set[str]] = {}
        self.searches: list[SearchRecord] = []
        self.memo: dict[Any, Any] = {}
        self._record_ids: dict[str, NDArray[np.int64]] | None = None

    # stages -------------------------------------------------------------------------------------------------
    def stage(self, name: str):
        """A timed stage: its seconds are added to :attr:`stage_seconds` and a progress bar names it when it runs
        longer than :data:`synthpriv_report.progress.DELAY`."""
        return _TimedStage(self, name)

    # encodings ----------------------------------------------------------------------------------------------
    def encoding(self, spec: SpaceSpec) -> Encoding:
        if spec not in self.encodings:
            if spec.kind == "projected":
                base = SpaceSpec("euclidean", columns=spec.columns, weights=spec.weights)
                base_enc = self.encoding(base)
                with self.stage(f"encoding: {spec.label}"):
                    enc, proj = project(self.data, base_enc, spec)
                self.projections[spec] = proj
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
            with self.stage(f"search tree: {spec.label} {ref.label}"):
                self.trees[key] = nb.build_tree(enc, ref.base, ref.rows)
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

    def knn(self, spec: SpaceSpec, query: SetRef, ref: SetRef, k: int) -> nb.NeighborTable:
        key = (spec, query.key, ref.key)
        table = self.tables.get(key)
        if table is not None and table.k >= k:
            return table.head(k)
        k_search = max(k, self.planned_k.get(key, 0))
        enc = self.encoding(spec)
        tree = self.tree(spec, ref)
        qn = enc.num[query.base] if query.rows is None else enc.num[query.base][query.rows]
        qc = enc.cat[query.base] if query.rows is None else enc.cat[query.base][query.rows]
        t0 = time.perf_counter()
        desc = f"{spec.label}: {query.label} -> {ref.label}"
        where: dict[str, Any] = {}
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
        return table.head(k)

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

    # identity of records --------------------------------------------------------------------------------------
    def record_ids(self) -> dict[str, NDArray[np.int64]]:
        """An id per record of every set; equal ids exactly when the records are identical (spec section 0)."""
        if self._record_ids is None:
            with self.stage("identical records"):
                self._record_ids = self._compute_record_ids()
        return self._record_ids

    def _compute_record_ids(self) -> dict[str, NDArray[np.int64]]:
        from .identity import record_ids

        d = self.data
        return record_ids(compared_numbers(d), self.fitted.codes, list(d.sets))


def compared_numbers(data: PreparedData) -> dict[str, NDArray[np.float64]]:
    """The numbers of every set as records are compared for equality: float64, except that a column the
    synthetic data holds at a lower precision (:attr:`PreparedData.precision`) is rounded to it in every set."""
    if not data.precision:
        return data.numeric
    cols = data.numeric_columns
    out = {}
    for s, num in data.numeric.items():
        num = num.copy()
        for c, p in data.precision.items():
            j = cols.index(c)
            with np.errstate(over="ignore"):
                num[:, j] = num[:, j].astype(p).astype(np.float64)
        out[s] = num
    return out


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
    """What a metric's ``compute`` and ``plan`` see: the data, cached spaces and searches, and the roles.

    In the calibration context (spec section 4) the holdout plays the synthetic role: ``ctx.S == "H"`` and no
    holdout is available.
    """

    def __init__(self, engine: _Engine, settings: Mapping[str, Any], *, syn: str = "S",
                 holdout: str | None = "H", calibration: bool = False):
        self._engine = engine
        self.settings = dict(settings)
        self.T = "T"
        self.S = syn
        self.H = holdout if holdout in engine.data.sizes else None
        self.is_calibration = calibration

    # data ---------------------------------------------------------------------------------------------------
    @property
    def data(self) -> PreparedData:
        return self._engine.data

    @property
    def fitted(self) -> Fitted:
        return self._engine.fitted

    @property
    def random_state(self) -> int | None:
        return self.settings["random_state"]

    def size(self, s: str | SetRef) -> int:
        if isinstance(s, SetRef):
            return self.data.sizes[s.base] if s.rows is None else int(s.rows.shape[0])
        return self.data.sizes[s]

    def full(self, base: str) -> SetRef:
        return SetRef(base)

    def subset(self, base: str, rows: NDArray[np.int64], tag: str) -> SetRef:
        return SetRef(base, np.asarray(rows, dtype=np.int64), tag)

    def calibration(self) -> "Context":
        """The same caches with H in the role of S (only when a holdout exists)."""
        return Context(self._engine, self.settings, syn="H", holdout=None, calibration=True)

    # spaces -------------------------------------------------------------------------------------------------
    def space(self, name: str | SpaceSpec) -> SpaceSpec:
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
        return self._engine.encoding(self.space(space))

    def projection(self, space: str | SpaceSpec = "projected") -> Projection:
        spec = self.space(space)
        self._engine.encoding(spec)
        return self._engine.projections[spec]

    def embedding(self, s: str | SetRef, space: str | SpaceSpec = "euclidean") -> NDArray[np.float64]:
        """Dense one-hot euclidean embedding (classifier features) of a set or of a subset's rows (in the
        subset's order). Not cached: a whole set's embedding is large (a million records by about a hundred
        coordinates: 0.9 GB), so callers embed the rows they use, or a set in :meth:`embedding_blocks`."""
        from .spaces import embed

        ref = self._ref(s)
        return embed(self.encoding(space), ref.base, ref.rows)

    def embedding_blocks(self, s: str | SetRef, space: str | SpaceSpec = "euclidean", *,
                         rows_per_block: int = 1 << 16) -> Iterator[NDArray[np.float64]]:
        """The dense embedding of a set (or subset) in consecutive blocks of rows, in order; a row's embedding
        does not depend on the block it is in."""
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
        return SearchRequest(self.space(space), self._ref(query), self._ref(ref), int(k))

    def tree_request(self, space: str | SpaceSpec, ref: str | SetRef) -> TreeRequest:
        """For a plan: ``compute`` will read the tree of ``ref`` itself (:meth:`tree`, :meth:`farthest`)."""
        return TreeRequest(self.space(space), self._ref(ref))

    def knn(self, space: str | SpaceSpec, query: str | SetRef, ref: str | SetRef, k: int) -> nb.NeighborTable:
        """k nearest records of ``ref`` for every record of ``query`` (cached; a within-set search excludes each
        record itself by position)."""
        return self._engine.knn(self.space(space), self._ref(query), self._ref(ref), int(k))

    def cached_table(self, space: str | SpaceSpec, query: str | SetRef,
                     ref: str | SetRef) -> nb.NeighborTable | None:
        """The neighbour table of ``(space, query, ref)`` if a metric already searched it, else None.

        Never searches: presentation code reads tables through this.
        """
        return self._engine.tables.get((self.space(space), self._ref(query).key, self._ref(ref).key))

    def tree(self, space: str | SpaceSpec, ref: str | SetRef) -> nb.RefTree:
        """The search tree of ``ref`` (cached; a metric that reads it declares a :meth:`tree_request` in its plan,
        so that the tree is kept until the metric has been computed)."""
        return self._engine.tree(self.space(space), self._ref(ref))

    def query_arrays(self, space: str | SpaceSpec, query: str | SetRef):
        enc = self.encoding(space)
        q = self._ref(query)
        qn = enc.num[q.base] if q.rows is None else enc.num[q.base][q.rows]
        qc = enc.cat[q.base] if q.rows is None else enc.cat[q.base][q.rows]
        return np.ascontiguousarray(qn), np.ascontiguousarray(qc)

    def farthest(self, space: str | SpaceSpec, a: str, b: str) -> tuple[float, int, int]:
        """Exact farthest pair between sets ``a`` and ``b`` (cached)."""
        spec = self.space(space)
        return self.memo(("farthest", spec, a, b),
                         lambda: nb.farthest_pair(self.encoding(spec), self.tree(spec, a), self.tree(spec, b)))

    # identity -----------------------------------------------------------------------------------------------
    def record_ids(self, s: str | SetRef) -> NDArray[np.int64]:
        ref = self._ref(s)
        ids = self._engine.record_ids()[ref.base]
        return ids if ref.rows is None else ids[ref.rows]

    def identical_in(self, query: str | SetRef, ref: str | SetRef) -> NDArray[np.bool_]:
        """For each query record: has ``ref`` an identical record (spec section 0)? Within one set the record
        itself does not count, an exact duplicate elsewhere does."""
        q, r = self._ref(query), self._ref(ref)
        qi, ri = self.record_ids(q), self.record_ids(r)
        if q.key == r.key:
            counts = np.bincount(ri)
            return counts[qi] >= 2
        return np.isin(qi, ri)

    # generic memo -------------------------------------------------------------------------------------------
    def memo(self, key: Any, fn: Callable[[], Any]) -> Any:
        """Cache the result of an expensive step (a fit, a subsample) on the evaluation."""
        store = self._engine.memo
        if key not in store:
            store[key] = fn()
        return store[key]

    def peek(self, key: Any) -> Any:
        """What :meth:`memo` cached under ``key``, or None (never computes)."""
        return self._engine.memo.get(key)
